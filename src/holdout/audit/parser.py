"""The parsers of ``holdout audit``: the whole option set (every spelling that works, grouped by input
kind as ``docs/audit.md`` shows it) and one parser per subcommand (``predictions``, ``matrix``,
``accuracies``, ``logs``) holding only the options its input reads.

Every subcommand parser reuses the whole parser's option objects (same names, types and defaults), so
that ``holdout audit matrix M`` and ``holdout audit M --correctness`` parse to the same values.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from holdout.audit.cli_groups import group_options
from holdout.audit.clusters import add_cluster_arguments
from holdout.audit.options import add_leaderboard_arguments, add_logs_arguments
from holdout.audit.result import LENSES
from holdout.training.plan import add_plan_parser

__all__ = ["EPILOG", "SUBCOMMANDS", "build_parser", "subcommand_parser"]

EPILOG = """\
formats: .csv (header row of model names, one row per test point, one column per model),
.npy (K x n integer array, one row per model; or K x n x C scores / K x n x k top-k, see --scores
and --topk) or holdout's .npz predictions format (labels inside).
Labels: .npy vector or one-column .csv. Outputs in --out: summary.json, CSVs of every number,
PNG/PDF figures and report.html (self-contained). Every option with an example: docs/audit.md.

examples:
  holdout audit config/examples/user_predictions.csv --labels config/examples/user_labels.npy --out /tmp/audit
  holdout audit config/examples/user_predictions.csv --labels config/examples/user_labels.npy \\
      --search-size 64 --lenses accuracy,bounds,rvw --eps 0.05 --out /tmp/audit_rvw
  holdout audit original.csv --labels labels.npy --new-predictions new_unlabeled.csv --out /tmp/aline
  holdout audit --accuracies table.csv --columns mathqa gsm8k --sizes 2000 1319 \\
      --reference-models reference_models.txt --chance 0.25 0 --out /tmp/reference
  holdout audit --logs lm_eval_results/ --task arc_easy --metric acc_norm --out /tmp/arc
  holdout audit --logs 'logs/*.eval' --out /tmp/inspect
  holdout audit config/examples/user_predictions.csv --labels config/examples/user_labels.npy \\
      --lenses accuracy,pairs --mid-p --out /tmp/audit_pairs
"""


class _Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """Show ``(default: ...)`` for options that have one (not for those defaulting to None)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return action.help if action.default is None else super()._get_help_string(action)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        """Wrap each paragraph of the epilog; keep the examples' lines as written."""
        fill = super()._fill_text
        blocks = text.split("\n\n")
        kept = [
            "\n".join(indent + ln for ln in b.splitlines()) if b.startswith("examples:") else fill(b, width, indent)
            for b in blocks
        ]
        return "\n\n".join(kept)


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _add_audit_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("predictions", nargs="?", help="predictions of the K models on the test set (.csv, .npy or .npz)")
    p.add_argument("--labels", help="true labels of the test set (.npy or .csv; optional for .npz)")
    p.add_argument("--out", default="audit", help="output folder")
    p.add_argument(
        "--new-predictions",
        help="the same models' predictions on a second, newer test set (.csv and .npz by name; a .npy's rows are "
        "PREDICTIONS' models in order); without --new-labels: agreement on the line",
    )
    p.add_argument("--new-labels", help="labels of the newer test set")
    p.add_argument("--eps", type=float, default=0.01, help="accuracy tolerance of the bounds, in (0, 1)")
    p.add_argument("--delta", type=float, default=0.05, help="failure probability of the bounds, in (0, 1)")
    p.add_argument("--alpha", type=float, default=0.05, help="1 - confidence of the Clopper-Pearson intervals")
    p.add_argument("--band-level", type=float, default=0.95, help="confidence level of the linear fit's band")
    p.add_argument(
        "--rvw-description",
        help="description file (holdout.rvw format) of how the selected model was made, for Rip van Winkle's Razor",
    )
    p.add_argument(
        "--search-size",
        help="the selected model is the best of a search over a grid of G configurations: adds ceil(log2 G) bits",
    )
    p.add_argument("--rvw-C", type=float, default=5000.0, help="largest description length covered (bits)")
    p.add_argument("--selected", help="model the RvW bound is for (default: the most accurate)")
    p.add_argument(
        "--translations",
        help="each model's predictions on every translation of every test image (.npz, see the docs): "
        "runs Werpachowski et al.'s adversarial overfitting test without the models",
    )
    kind = p.add_mutually_exclusive_group()
    kind.add_argument(
        "--scores",
        action="store_true",
        help="the .npy holds K x n x C scores (probabilities or logits): predicted class = argmax "
        "(default for a 3-D float array)",
    )
    kind.add_argument(
        "--topk",
        action="store_true",
        help="the .npy holds K x n x k top-k classes, top-1 in column 0 (default for a 3-D integer array)",
    )
    p.add_argument(
        "--model-names", type=_names, help="comma-separated model names for .npy predictions (any text, numbers too)"
    )
    p.add_argument("--num-classes", type=int, help="number of classes (default: largest label or prediction + 1)")
    p.add_argument(
        "--lenses",
        type=_names,
        default=",".join(LENSES),
        help="comma-separated lenses to run, from: " + ",".join(LENSES),
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write into an --out folder that holds files no audit wrote (they are moved aside to "
        "<out>.replaced-<time>, not deleted), and run inputs estimated not to fit in memory",
    )


def _add_pairs_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mid-p",
        action="store_true",
        help="paired comparisons of 0/1 results: McNemar mid-p values instead of the exact (conservative) ones",
    )
    p.add_argument(
        "--rank-resamples",
        type=int,
        metavar="B",
        default=1000,
        help="bootstrap resamples of the simultaneous rank intervals (paired lens)",
    )
    p.add_argument(
        "--all-pairs",
        action="store_true",
        help="write every pair of models into pairs.csv (K(K-1)/2 rows: 18 million at K = 6,000); by default, "
        "beyond 50 models, it holds each model against the best and against the next in rank order",
    )
    p.add_argument(
        "--variants",
        type=int,
        metavar="N",
        help="the most accurate model is the best of N variants tried on this test set: how much that pick can "
        "inflate its score (Mania et al.'s bounds)",
    )
    p.add_argument(
        "--families",
        metavar="FILE.csv",
        help="CSV (model, family): each family's most accurate model is the best of its models; the inflation "
        "of that pick from their measured similarity and by resampling",
    )


def _add_adaptive_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--adaptive",
        action="store_true",
        help="also run the adaptive analyst study on your models (writes <out>/adaptive/; minutes on large sets)",
    )


class _Parser(argparse.ArgumentParser):
    """An option error is one line, like every other bad input (``--help`` shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """``holdout`` with ``audit`` (every option of every input kind; defaults shown) and ``plan``."""
    parser = _Parser(prog="holdout", description="holdout: audits of test-set reuse.")
    sub = parser.add_subparsers(dest="command", required=True)
    audit = sub.add_parser(
        "audit",
        formatter_class=_Defaults,
        epilog=EPILOG,
        help="every lens of the four papers on your own models, in one report",
        description="How much can you trust your test accuracies after all the evaluations "
        "you made, and is there evidence that you overfit the test set?",
    )
    _add_audit_arguments(audit)
    _add_pairs_arguments(audit)
    _add_adaptive_argument(audit)
    add_leaderboard_arguments(audit)
    add_logs_arguments(audit)
    add_cluster_arguments(audit)
    group_options(audit)  # --help by input kind (holdout.audit.cli_groups), as docs/audit.md
    add_plan_parser(sub)  # `holdout plan`: holdout.training.plan (torch only when run)
    return parser


#: the options every subcommand has
SHARED = ("help", "out", "force", "lenses", "alpha")

#: subcommand -> (positional dest, its metavar, nargs, help; fixed values; the options it reads, by dest;
#: one example). The options are those of the whole parser's groups (holdout.audit.cli_groups.GROUPS).
SUBCOMMANDS: dict[str, tuple[tuple[str, str, str | None, str], dict[str, object], tuple[str, ...], str]] = {
    "predictions": (
        ("predictions", "FILE", None, "predictions of the K models on the test set (.csv, .npy or .npz)"),
        {},
        (*SHARED, "model_names", "labels", "scores", "topk", "num_classes", "new_predictions", "new_labels")
        + ("translations", "eps", "delta", "rvw_description", "search_size", "rvw_C", "selected")
        + ("mid_p", "rank_resamples", "variants", "families", "band_level", "adaptive", "clusters"),
        "holdout audit predictions preds.csv --labels labels.npy --out /tmp/audit",
    ),
    "matrix": (
        ("predictions", "FILE", None, "a K x n correctness matrix: 0/1 results or pass rates (.csv or .npy)"),
        {"correctness": True},
        (*SHARED, "model_names", "samples", "rows", "item_dates", "model_dates", "split", "date_format")
        + ("reference_models", "reference_correctness", "fit", "chance", "n_bootstrap")
        + ("eps", "delta", "rvw_description", "search_size", "rvw_C", "selected")
        + ("mid_p", "rank_resamples", "variants", "families", "band_level", "adaptive", "clusters"),
        "holdout audit matrix correctness.csv --samples 10 --out /tmp/audit",
    ),
    "accuracies": (
        ("accuracies", "TABLE", None, "a table of accuracies: a 'model' column and one column per test set"),
        {},
        (*SHARED, "scale", "columns", "sizes", "reference_models", "fit", "chance", "n_bootstrap", "band_level"),
        "holdout audit accuracies table.csv --columns imagenet imagenetv2 --sizes 50000 10000 --out /tmp/table",
    ),
    "logs": (
        ("logs", "PATH", "+", "evaluation logs: files, folders searched recursively, or globs"),
        {},
        (*SHARED, "model_names", "format", "task", "metric", "filter", "strict")
        + ("item_dates", "model_dates", "split", "date_format")
        + ("eps", "delta", "rvw_description", "search_size", "rvw_C", "selected")
        + ("mid_p", "rank_resamples", "variants", "families", "band_level", "adaptive")
        + ("clusters", "cluster_by"),
        "holdout audit logs lm_eval_results/ --task arc_easy --metric acc_norm --out /tmp/arc",
    ),
}

OVERVIEW = """\
usage: holdout audit SUBCOMMAND INPUT [options]

How much can you trust your test accuracies after all the evaluations you made, and is there
evidence that you overfit the test set? One subcommand per input kind; each writes --out (tables,
figures, summary.json, report.html) and has its own --help.

subcommands:
{rows}

shared options (every subcommand): --out DIR, --alpha ALPHA, --lenses A,B,..., --force.
The spellings without a subcommand keep working: holdout audit FILE --labels L,
holdout audit FILE --correctness, holdout audit --accuracies TABLE, holdout audit --logs PATH.
Every option with an example: docs/audit.md.
"""


def overview() -> str:
    """``holdout audit --help``: the subcommands, what each reads and one example each."""
    rows = []
    for name, ((_, metavar, _, what), _, _, example) in SUBCOMMANDS.items():
        rows += [f"  {name:<12}{metavar}: {what}", f"      {example}"]
    return OVERVIEW.format(rows="\n".join(rows))


def subcommand_parser(name: str) -> argparse.ArgumentParser:
    """``holdout audit NAME``'s parser: its input as a positional argument and the options it reads
    (the whole parser's own option objects, so names, types, defaults and help are the same)."""
    (dest, metavar, nargs, what), _, dests, example = SUBCOMMANDS[name]
    whole = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["audit"]
    p = _Parser(
        prog=f"holdout audit {name}",
        usage=f"holdout audit {name} {metavar}{' ...' if nargs else ''} [options]",
        formatter_class=_Defaults,
        description=whole.description,
        epilog=f"example:\n  {example}\n\nEvery option with an example: docs/audit.md.",
        add_help=False,
    )
    by_dest = {a.dest: a for a in whole._actions}
    p.add_argument(dest, metavar=metavar, nargs=nargs, help=what)
    for d in dests:
        p._add_action(by_dest[d])
    group_options(p)
    return p
