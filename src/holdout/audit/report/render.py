"""``report.html`` and ``summary.md``: one self-contained page (inline CSS and JavaScript, figures as
base64 PNGs) that opens with one line per lens (its verdict's first sentence, labelled measured /
theorem / heuristic, the headline numbers, a link to its section), then a section per lens with the
verdict, the figures and sortable, filterable tables; the first block is also ``summary.md``."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from holdout.audit.engines.adaptive_lens import adaptive_report_table
from holdout.audit.report import page
from holdout.audit.report.page import Glance

if TYPE_CHECKING:
    from holdout.audit.result import AuditResult

__all__ = ["glance_lines", "render_report", "render_summary_md"]

#: decimals of an accuracy in percent wherever the report prints one (one rounding everywhere)
ACCURACY_DECIMALS = 2

#: section id, title, paper, figure names of each lens (report order)
SECTIONS = (
    ("accuracy", "Accuracy with exact intervals", "Recht et al. (2018), Sec. 3.2", ("accuracy",)),
    (
        "pairs",
        "Is the best model really better? Paired comparisons and ranks",
        "McNemar (1947); Newcombe (1998); Holm (1979); Mogstad, Romano, Shaikh & Wilhelm (2024)",
        ("rank_intervals", "pair_differences"),
    ),
    (
        "best_of_n",
        "The best of N variants: how much the pick can inflate a score",
        "Mania et al. (2019), bounds (2), (3)+(8); Singh et al. (2025)",
        (),
    ),
    ("new", "A newer test set", "Recht et al. (2018), Table 1, Table 4, Eq. 3, Figure 2", ("new_vs_original",)),
    (
        "aline",
        "Agreement on the line: the newer set's accuracy without its labels",
        "Baek et al. (2022), Algorithm 1 (ALine-S, ALine-D): a heuristic, right when agreement and accuracy "
        "share their probit line",
        (),
    ),
    (
        "similarity",
        "Model similarity",
        "Mania et al. (2019), Sec. 5.1, Fig. 1a, Fig. 4, Definition 1",
        ("similarity_pairs", "difficulty", "covering_numbers"),
    ),
    (
        "bounds",
        "How many models this test set supports",
        "Mania et al. (2019), bounds (2), (3)+(8), (A1)",
        ("testable_models",),
    ),
    ("rvw", "Rip van Winkle's Razor on the selected model", "Arora & Zhang (2021), Theorem 3.1", ()),
    (
        "adversarial",
        "Adversarial overfitting test (from the translations file)",
        "Werpachowski et al. (2019), eqs. (2), (6)-(7), Sec. 3.3, Appendix B",
        ("adversarial_pvalues",),
    ),
    (
        "adaptive",
        "How much an adaptive analyst could overfit this test set (--adaptive)",
        "Mania et al. (2019), Sec. 4, Corollary 4; Blum & Hardt (2015); Dwork et al. (2015)",
        ("adaptive_overfit",),
    ),
    (
        "contamination",
        "Contamination: the split by date (--item-dates, --model-dates, --split)",
        "Models with a cut-off on or after the split against the line of the models with a cut-off before "
        "every item: one-sided test with Holm's correction, a heuristic whose reference is the scatter of the "
        "line's models",
        ("contamination",),
    ),
    (
        "reference",
        "Reference benchmark: models above the curve of the reference models (--reference-models)",
        "Dekoninck et al. (2024), ConStat: a heuristic whose curve assumes the reference models are uncontaminated",
        (),
    ),
    (
        "items",
        "Which items are wrong? Suspect keys, discrimination, duplicates",
        "A heuristic screen of the models' own answers: accuracy-weighted agreement on one answer other than the "
        "key; point-biserial discrimination; near-identical texts (MinHash). See the item-screen page of the docs.",
        (),
    ),
)

#: the short name and the kind of number of each lens in the at-a-glance block
GLANCE = {
    "accuracy": ("Accuracy", "measured"),
    "pairs": ("Paired comparisons", "measured"),
    "best_of_n": ("Best of N", "theorem"),
    "new": ("Newer test set", "measured"),
    "aline": ("Agreement on the line", "heuristic"),
    "similarity": ("Similarity", "measured"),
    "bounds": ("Models supported", "theorem"),
    "rvw": ("Rip van Winkle's Razor", "theorem"),
    "adversarial": ("Adversarial test", "measured"),
    "adaptive": ("Adaptive analyst", "measured"),
    "contamination": ("Contamination", "heuristic"),
    "reference": ("Reference benchmark", "heuristic"),
    "items": ("Item screen", "heuristic"),
}


def _pct(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}%"


def _accuracy_numbers(result: AuditResult) -> str:
    acc = result.accuracy
    widths = acc["ci_high"] - acc["ci_low"]
    d = ACCURACY_DECIMALS
    return (
        f"K = {page.count(len(acc))} models, n = {page.count(acc['n'].iloc[0])}; interval widths "
        f"{widths.min():.{d}f} to {widths.max():.{d}f} points (median {widths.median():.{d}f})."
    )


def _eps_text(value: object) -> str:
    return "n/a (bound does not apply)" if value is None else f"{float(value):.2g}"


def _k_text(value: object) -> str:
    """A supported-model count of summary.json (None: the bound does not apply; huge: 1.2e+09 style)."""
    if value is None:
        return "n/a"
    return page.count(value) if float(value) < 1e9 else f"{float(value):.2g}"


def _bounds_numbers(s: dict) -> str:
    rows = s.get("supported") or []
    at = "; ".join(
        f"{_k_text(r['union'])} / {_k_text(r['similarity'])} / {_k_text(r['naive_bayes'])} at eps = {r['eps']:g}"
        for r in rows
    )
    k, by = page.count(s["models_used"]), s["covered_by"]
    covered = (
        f"none of the three bounds covers your {k} models" if by == "none" else f"the {by} bound covers your {k} models"
    )
    return f"At eps = {s['eps']:g}, {covered}." + (
        f" Models supported (union / similarity / naive Bayes): {at}." if at else ""
    )


#: the reference lens's files beside the page (holdout.audit.reference_lens)
REFERENCE_FILES = (
    "<p class='meta'>Per model (reference and benchmark accuracy, predicted, delta with its interval, p-values): "
    "<a href='reference_lens.csv' download>reference_lens.csv</a>; the curve: "
    "<a href='reference_curve.csv' download>reference_curve.csv</a>.</p>"
)


ALINE_FILES = "<p class='meta'>ALine-S and ALine-D of every model: <a href='aline.csv' download>aline.csv</a>.</p>"


def reference_section(summary: dict) -> tuple[Glance, str]:
    """The reference-benchmark lens of ``summary`` (its ``reference`` entry) as an at-a-glance line and
    a section; for the accuracy-table report, whose other parts are its own."""
    s = summary["reference"]
    _, title, paper, _ = next(x for x in SECTIONS if x[0] == "reference")
    numbers = _numbers("reference", None, summary)  # type: ignore[arg-type]
    glance = Glance(*GLANCE["reference"], page.first_sentence(str(s["verdict"])), numbers, "reference")
    body = (
        f"<h2 id='reference'>{html.escape(title)}</h2><p class='meta'>{html.escape(paper)}</p>"
        f"<div class='verdict'>{html.escape(str(s['verdict']))}</div>{REFERENCE_FILES}"
    )
    return glance, body


def _numbers(lens: str, result: AuditResult, summary: dict) -> str:
    """The headline numbers of one lens beside its first sentence (from the values of summary.json)."""
    s = summary[lens]
    if lens == "accuracy":
        return _accuracy_numbers(result)
    if lens == "new":
        fit = s.get("fit")
        slope = "" if not fit else f"; slope of new on original {fit['slope']:.2f} ± {fit['slope_se']:.2f}"
        return f"Mean gap {s['mean_gap']:.2f} points{slope}."
    if lens == "similarity":
        d = result.similarity.difficulty["fraction_at_most"].to_numpy() if result.similarity else None
        unit = "items" if result.similarity and result.similarity.items else "points"
        ends = (
            ""
            if d is None or len(d) < 2
            else (f"; {100 * d[0]:.1f}% of the {unit} right by all models, {100 * (1 - d[-2]):.1f}% wrong by all")
        )
        return (
            f"{100 * s['fraction_above_independent']:.1f}% of the {page.count(s['num_pairs'])} pairs more similar "
            f"than independent errors{ends}."
        )
    if lens == "bounds":
        return _bounds_numbers(s)
    if lens == "rvw":
        return (
            f"Population error at most {100 * s['bound']:.2f}% with probability {1 - s['delta']:g} "
            f"({s['bits']} bits); the test set flatters it by at most {100 * s['overfit']:.2f} points."
        )
    if lens == "adversarial":
        held = ", ".join(f"{a}: {k}" for a, k in s.get("rejected_holm", {}).items())
        return f"Models rejected after Holm's correction, per AEG: {held}." if held else ""
    if lens == "adaptive":
        return f"Largest measured overfit {s['max_overfit']:.3f}."
    if lens == "reference":
        return (
            f"{page.count(s['tested_models'])} models tested against the curve through "
            f"{page.count(s['reference_models'])} reference models ({s['fit']} fit, {s['bootstrap']})."
        )
    if lens == "contamination":
        return (
            f"Items before {s['split']}: {page.count(s['n_original_items'])}, from it on: "
            f"{page.count(s['n_new_items'])}; line of {s['line_models']} earlier models, "
            f"{s['placed_models']} later models placed against it."
        )
    if lens == "aline" and "agreement_line" in s:  # none where the line could not be fitted
        line, models, items = s["agreement_line"], page.count(s["models"]), page.count(s["new_items"])
        return (
            f"Agreement line on probit axes: slope {line['slope']:.2f}, R^2 {line['r2']:.3f}, over {models} models "
            f"and {items} items of the newer set."
        )
    if lens == "items":
        board = s.get("leaderboard") or {}
        moved = "changes" if board.get("order_changed") else "keeps"
        top = "changes" if board.get("top_group_changed") else "keeps"
        mmlu = s["measured_precision"]["reviewed"]["mmlu_redux"]["precision_any_error"]
        board_text = (
            f"without them the leaderboard {moved} its order and {top} its top group"
            if s["flagged"]
            else "the leaderboard is unchanged"
        )
        return (
            f"Suspect keys {page.count(s['suspect_key'])}, negative discrimination "
            f"{page.count(s['negative_discrimination'])}; {board_text}; on MMLU-Redux {100 * mmlu:.0f}% of the "
            "items the screen flagged had an error the experts confirmed."
        )
    if lens == "pairs":
        return (
            f"{page.count(s['num_tied_with_best'])} model(s) tied with the best; "
            f"{page.count(s['num_pairs_significant_holm'])} of {page.count(s['num_pairs'])} pairs differ after Holm."
        )
    return ""


def glance_lines(result: AuditResult, summary: dict) -> list[Glance]:
    """One [`Glance`][holdout.audit.report.page.Glance] per lens that ran, in report order."""
    lines = []
    for lens, *_ in SECTIONS:
        if lens in summary and isinstance(summary[lens], dict) and "verdict" in summary[lens]:
            title, label = GLANCE[lens]
            sentence = page.first_sentence(str(summary[lens]["verdict"]))
            lines.append(Glance(title, label, sentence, _numbers(lens, result, summary), lens))
    return lines


def _meta(result: AuditResult, summary: dict) -> str:
    """The line under the title: K, n, the input by its file name (the path is in summary.json)."""
    what = "correctness matrix" if result.notes and result.notes[0].startswith("Correctness matrix") else "predictions"
    return (
        f"{page.count(summary['num_models'])} models, n = {page.count(summary['n'])} "
        f"{'items' if what == 'correctness matrix' else 'test points'}, {what} "
        f"{Path(result.source).name}; eps = {result.options.eps:g}, delta = {result.options.delta:g}."
    )


def _title(result: AuditResult) -> str:
    return f"holdout audit: {result.test_set or Path(result.source).stem}"


def _bounds_table(result: AuditResult) -> str:
    t = result.bounds
    ks = [t.union_k, t.similarity_k, t.naive_bayes_k]
    no_bound = "n/a (models agree less than independent errors)"
    zero = "n/a (the union bound supports 0 models)"
    gains = ["1"] + [no_bound if k is None else zero if t.union_k == 0 else f"{k / t.union_k:.3g}" for k in ks[1:]]
    df = pd.DataFrame(
        {
            "bound": ["union (2)", "similarity (3)+(8)", "naive Bayes (A1)"],
            "smallest eps for all K": [_eps_text(e) for e in (t.union_eps, t.similarity_eps, t.naive_bayes_eps)],
            f"testable models at eps = {t.eps:g}": [no_bound if k is None else page.count(k) for k in ks],
            "gain over union": gains,
        }
    )
    return page.table_html(df, "The three bounds", "bounds.csv")


def _lens_table(result: AuditResult, lens: str) -> str:
    if lens == "accuracy":
        acc = result.accuracy[["model", "rank", "correct", "n", "accuracy", "ci_low", "ci_high"]]
        dec = dict.fromkeys(("accuracy", "ci_low", "ci_high"), ACCURACY_DECIMALS)  # as the verdicts print them
        return page.table_html(acc, "Accuracy (%) per model, best first", "accuracy.csv", decimals=dec)
    if lens == "best_of_n" and result.best_of_n:
        from holdout.audit.engines.best_of import best_of_n_table

        return page.table_html(best_of_n_table(result.best_of_n), "Each selected entry", "best_of_n.csv")
    if lens == "pairs" and result.pairs is not None:
        ranks = result.pairs.ranks
        return page.table_html(
            ranks,
            "Ranks with simultaneous intervals, best first",
            "ranks.csv",
            decimals={"accuracy": ACCURACY_DECIMALS},
        )
    if lens == "new" and result.new is not None:
        t = result.new.table
        cols = ["model", "orig_accuracy", "new_accuracy", "gap", "delta_rank", "error_ratio"]
        dec = dict.fromkeys(("orig_accuracy", "new_accuracy", "gap"), ACCURACY_DECIMALS)
        na = {"error_ratio": "n/a (no errors on the original test set)"}
        return page.table_html(t[cols], "Per model", "new_test_set.csv", decimals=dec, na=na)
    if lens == "bounds" and result.bounds is not None:
        return _bounds_table(result)
    if lens == "adversarial" and result.adversarial is not None:
        cols = ["model", "aeg", "m", "R_S", "R_g", "T", "p_value"]
        return page.table_html(
            result.adversarial.pairwise[cols], "Pairwise tests", "adversarial_pvalues.csv"
        ) + page.table_html(result.adversarial.n_model, "N-model test", "adversarial_n_model.csv")
    if lens == "reference":
        return REFERENCE_FILES
    if lens == "contamination" and result.contamination is not None:
        t = result.contamination.models
        cols = [c for c in ("model", "cutoff", "role", "orig_accuracy", "new_accuracy", "predicted") if c in t]
        cols += [c for c in ("residual", "p", "p_holm", "below_line") if c in t]
        na = dict.fromkeys(("p", "p_holm", "residual"), "n/a (not tested: a model of the line or excluded)")
        d = page.percent_decimals(t["orig_ci_high"] - t["orig_ci_low"])
        dec = dict.fromkeys(("orig_accuracy", "new_accuracy", "predicted", "residual"), d)
        caption = "Every model against the line (accuracies in %)"
        return page.table_html(t[cols], caption, "contamination.csv", decimals=dec, na=na)
    if lens == "items" and result.items is not None:
        return _items_tables(result)
    if lens == "adaptive" and result.adaptive is not None:
        na = {c: "n/a (no such bound for this mechanism)" for c in ("bound_theorem", "bound_if_covering")}
        return page.table_html(
            adaptive_report_table(result.adaptive), "Each attack at its largest k", "adaptive/table.csv", na=na
        )
    return ""


def _items_tables(result: AuditResult) -> str:
    """The flagged items (key and proposed answer side by side) and the leaderboard with and without them."""
    from holdout.items.summary import flagged_table

    r = result.items
    flagged = flagged_table(r.screen, limit=100)
    more = int(r.screen.flagged.sum()) - len(flagged)
    caption = "Flagged items, most suspect first: the key and the proposed answer side by side" + (
        f" (the first 100; {more} more in items.csv)" if more > 0 else ""
    )
    na = {"proposed_answer": "n/a (no other answer)", "duplicate_group": "n/a (none)", "question": "n/a"}
    na |= {"discrimination": "n/a (every model right, or every model wrong)"}
    out = page.table_html(flagged, caption, "items.csv", decimals={"suspect_score": 2, "discrimination": 2}, na=na)
    if r.change is not None:
        board = r.change.table.sort_values("rank", kind="stable")
        caption = "The leaderboard with and without the flagged items (accuracy in %)"
        out += page.table_html(
            board, caption, "items_leaderboard.csv", decimals={"accuracy": 2, "accuracy_without_flagged": 2}
        )
    return out


def _section(result: AuditResult, summary: dict, figures: dict[str, Path], lens: str) -> list[str]:
    _, title, paper, names = next(s for s in SECTIONS if s[0] == lens)
    parts = [f"<h2 id='{lens}'>{html.escape(title)}</h2><p class='meta'>{html.escape(paper)}</p>"]
    parts.append(f"<div class='verdict'>{html.escape(str(summary[lens]['verdict']))}</div>")
    figs = [page.figure_html(figures[n]) for n in names if n in figures]
    if figs:
        parts.append("<div class='figs'>" + "".join(figs) + "</div>")
    parts.append(ALINE_FILES if lens == "aline" and "skipped" not in summary[lens] else _lens_table(result, lens))
    return parts


def render_report(result: AuditResult, summary: dict, figures: dict[str, Path]) -> str:
    """The HTML page of one audit (``summary`` from
    [`holdout.audit.run.summary_dict`][holdout.audit.run.summary_dict])."""
    parts = [f"<h1>{html.escape(_title(result))}</h1>", f"<p class='meta'>{html.escape(_meta(result, summary))}</p>"]
    parts += [f"<p class='warn'>Warning: {html.escape(w)}</p>" for w in result.warnings]
    parts.append(page.glance_html(glance_lines(result, summary)))
    parts += [f"<p class='meta'>{html.escape(t)}</p>" for t in result.inputs]
    for lens, *_ in SECTIONS:
        if lens in summary:
            parts += _section(result, summary, figures, lens)
    parts += [f"<p class='note'>{html.escape(note)}</p>" for note in result.notes]
    parts.append(
        "<p class='meta'>Every number is in the CSV files and summary.json beside this page (summary.md holds "
        "the block at the top); figures also as PDF. Made by holdout audit.</p>"
    )
    return page.page_html(_title(result), parts)


def render_summary_md(result: AuditResult, summary: dict) -> str:
    """``summary.md``: the at-a-glance block of the report as Markdown."""
    notes = [f"Warning: {w}" for w in result.warnings] + list(result.notes)
    return page.glance_markdown(_title(result), _meta(result, summary), glance_lines(result, summary), notes)
