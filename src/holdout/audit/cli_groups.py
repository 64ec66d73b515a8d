"""The shape of ``holdout audit --help``: its options grouped by input kind, and the same groups as the
markdown tables of ``docs/audit.md`` (written by ``benchmarks/update_cli_docs.py``).

The options are added by parser and options (leaderboard, logs, reference); ``group_options``
moves each into its group afterwards, so no option's name, default or behaviour changes. An option not
listed in GROUPS lands in the last group, "other options", and so still shows in --help and the docs.
"""

from __future__ import annotations

import argparse

__all__ = ["GROUPS", "group_options", "options_markdown"]

#: (title, one-line description, destinations), in the order --help and docs/audit.md show them
GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "common",
        "for every input kind: where the outputs go, which lenses run, the intervals' level",
        ("help", "out", "force", "lenses", "alpha", "model_names"),
    ),
    (
        "predictions input",
        "holdout audit PREDICTIONS --labels LABELS: each model's predicted class on each test point",
        ("predictions", "labels", "scores", "topk", "num_classes", "new_predictions", "new_labels", "translations"),
    ),
    (
        "correctness matrix",
        "holdout audit MATRIX --correctness: a K x n matrix of 0/1 results or pass rates, no labels needed",
        ("correctness", "samples", "rows"),
    ),
    (
        "accuracy table",
        "holdout audit --accuracies TABLE.csv: one accuracy per model and test set, no per-item results",
        ("accuracies", "scale", "columns", "sizes"),
    ),
    (
        "evaluation logs",
        "holdout audit --logs PATH ...: lm-eval, Inspect, HELM, Every Eval Ever, EvalPlus, LiveCodeBench",
        ("logs", "format", "task", "metric", "filter", "strict"),
    ),
    (
        "item and model dates",
        "with --correctness (or --logs): the contamination lens from release dates and training cut-offs",
        ("item_dates", "model_dates", "split", "date_format"),
    ),
    (
        "reference benchmark",
        "ConStat's reference-benchmark test, with --accuracies or --correctness",
        ("reference_models", "reference_correctness", "fit", "chance", "n_bootstrap"),
    ),
    (
        "bounds and RvW",
        "the adaptivity bounds and Rip van Winkle's Razor for the selected model",
        ("eps", "delta", "rvw_description", "search_size", "rvw_C", "selected"),
    ),
    (
        "comparisons, best of N, fits",
        "paired comparisons and ranks, the inflation of a best-of-N pick, the linear fit, the adaptive analyst",
        ("mid_p", "rank_resamples", "all_pairs", "variants", "families", "band_level", "adaptive"),
    ),
    (
        "clustered items",
        "items that share a passage, a source or a template: cluster-robust standard errors, p-values and rank sets",
        ("clusters", "cluster_by"),
    ),
)
HEADER = ("| option | meaning | default |", "|---|---|---|")
OTHER = ("other options", "options not yet placed in a group above")


def group_options(parser: argparse.ArgumentParser) -> None:
    """Put ``parser``'s arguments into the argument groups of GROUPS (in that order), replacing the groups
    they were added in; help output only: parsing reads ``parser._actions``, which is unchanged."""
    placed = {dest: i for i, (_, _, dests) in enumerate(GROUPS) for dest in dests}
    parser._action_groups = []
    groups = [parser.add_argument_group(title, desc) for title, desc, _ in (*GROUPS, (*OTHER, ()))]
    order = {dest: k for _, _, dests in GROUPS for k, dest in enumerate(dests)}
    for action in sorted(parser._actions, key=lambda a: order.get(a.dest, len(order))):
        groups[placed.get(action.dest, len(GROUPS))]._group_actions.append(action)
    parser._action_groups = [g for g in groups if g._group_actions]


def _invocation(action: argparse.Action) -> str:
    return argparse.HelpFormatter("holdout")._format_action_invocation(action)


def _cell(text: str) -> str:
    """One markdown table cell: one line, ``|`` escaped, ``<out>`` shown as text (not an HTML tag)."""
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or d is False or d == argparse.SUPPRESS:
        return ""
    return _cell(" ".join(map(str, d)) if isinstance(d, list | tuple) else str(d))


def options_markdown(parser: argparse.ArgumentParser) -> str:
    """Every argument group of ``parser`` as a markdown table (option, meaning, default), one heading each."""
    out: list[str] = []
    for group in parser._action_groups:
        rows = [a for a in group._group_actions if a.dest != "help"]
        if not rows:
            continue
        out += [f"### {group.title}", "", f"{group.description}.", "", *HEADER]
        for a in rows:
            meaning = _cell((a.help or "").replace("%%", "%"))
            out.append(f"| `{_invocation(a)}` | {meaning} | {_default(a)} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
