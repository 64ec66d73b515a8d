"""``report.html``: one self-contained page (no scripts, no external files), every figure inline
as a base64 PNG, a plain-language verdict per lens with the numbers behind it."""

from __future__ import annotations

import base64
import html
from pathlib import Path

import pandas as pd

from holdout.audit.adaptive_lens import adaptive_report_table
from holdout.audit.result import AuditResult

__all__ = ["render_report"]

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:980px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em} h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
.meta{color:#555} .verdict{background:#f3f6fa;border-left:4px solid #1f77b4;padding:.6em 1em;margin:.8em 0}
.note{color:#8a5a00}
.warn{color:#b00000;font-weight:bold;border:2px solid #b00000;padding:.5em 1em}
img{max-width:100%;height:auto;display:block;margin:.6em 0}
table{border-collapse:collapse;font-size:.85em;margin:.6em 0}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}
th{background:#f4f4f4} td:first-child{text-align:left} .figs{display:flex;flex-wrap:wrap;gap:1em}
.figs img{max-width:470px}
"""

#: section title, paper, figure names of each lens (report order)
SECTIONS = (
    ("accuracy", "Accuracy with exact intervals", "Recht et al. (2018), Sec. 3.2", ("accuracy",)),
    ("new", "A newer test set", "Recht et al. (2018), Table 1, Table 4, Eq. 3, Figure 2", ("new_vs_original",)),
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
)


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'


def _table(df: pd.DataFrame, max_rows: int = 30) -> str:
    shown = df.head(max_rows)
    body = shown.to_html(index=False, float_format=lambda v: f"{v:.3f}", border=0, escape=True)
    more = f"<p class='meta'>First {max_rows} of {len(df)} rows; all in the CSV.</p>" if len(df) > max_rows else ""
    return body + more


def _lens_table(result: AuditResult, lens: str) -> str:
    if lens == "accuracy":
        return _table(result.accuracy[["model", "rank", "correct", "n", "accuracy", "ci_low", "ci_high"]])
    if lens == "new" and result.new is not None:
        cols = ["model", "orig_accuracy", "new_accuracy", "gap", "delta_rank", "error_ratio"]
        return _table(result.new.table[cols])
    if lens == "bounds" and result.bounds is not None:
        t = result.bounds
        ks = [t.union_k, t.similarity_k, t.naive_bayes_k]
        return _table(
            pd.DataFrame(
                {
                    "bound": ["union (2)", "similarity (3)+(8)", "naive Bayes (A1)"],
                    "testable models": ["does not apply" if k is None else f"{k:,}" for k in ks],
                    "gain over union": ["1", f"{t.similarity_gain:.3g}", f"{t.naive_bayes_gain:.3g}"],
                }
            )
        )
    if lens == "adversarial" and result.adversarial is not None:
        cols = ["model", "aeg", "m", "R_S", "R_g", "T", "p_value"]
        return _table(result.adversarial.pairwise[cols]) + _table(result.adversarial.n_model)
    if lens == "adaptive" and result.adaptive is not None:
        return _table(adaptive_report_table(result.adaptive))
    return ""


def render_report(result: AuditResult, summary: dict, figures: dict[str, Path]) -> str:
    """The HTML page of one audit (``summary`` from
    [`holdout.audit.run.summary_dict`][holdout.audit.run.summary_dict])."""
    parts = [
        f"<h1>holdout audit: {html.escape(result.test_set or result.source)}</h1>",
        (
            f"<p class='meta'>{summary['num_models']} models, n = {summary['n']:,} test points, "
            f"predictions {html.escape(result.source)}; eps = {result.options.eps:g}, "
            f"delta = {result.options.delta:g}.</p>"
        ),
    ]
    parts += [f"<p class='warn'>Warning: {html.escape(w)}</p>" for w in result.warnings]
    parts += [f"<p class='meta'>{html.escape(t)}</p>" for t in result.inputs]
    for lens, title, paper, names in SECTIONS:
        if lens not in summary:
            continue
        parts.append(f"<h2>{html.escape(title)}</h2><p class='meta'>{html.escape(paper)}</p>")
        parts.append(f"<div class='verdict'>{html.escape(str(summary[lens]['verdict']))}</div>")
        imgs = [_img(figures[n]) for n in names if n in figures]
        if imgs:
            parts.append("<div class='figs'>" + "".join(imgs) + "</div>")
        parts.append(_lens_table(result, lens))
    for note in result.notes:
        parts.append(f"<p class='note'>{html.escape(note)}</p>")
    parts.append(
        "<p class='meta'>Every number is in the CSV files and summary.json beside this page; "
        "figures also as PDF. Made by holdout audit.</p>"
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>holdout audit</title>"
        f"<style>{STYLE}</style></head><body>" + "\n".join(parts) + "</body></html>\n"
    )
