"""``holdout audit --accuracies TABLE.csv --columns ORIG NEW --sizes N_ORIG N_NEW``.

A table of accuracies (a ``model`` column and one column per test set; percent or fractions, see
[`accuracy_scale`][holdout.audit.accuracy_table.accuracy_scale]) is audited by
[`accuracy_table_audit`][holdout.leaderboards.accuracy_table_audit]: Clopper-Pearson intervals
from the sizes, gaps, the linear and the probit fit with standard errors and bands, effective
robustness with Holm's correction. Written by
[`write_table`][holdout.leaderboards.outputs.write_table] plus a self-contained ``report.html``
(at a glance, both figures, every model in a sortable, filterable table) and ``summary.md``.
"""

from __future__ import annotations

import argparse
import html
import json
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.audit.errors import AuditError
from holdout.audit.options import SCALES
from holdout.audit.report.page import (
    Glance,
    count,
    figure_html,
    first_sentence,
    glance_html,
    glance_markdown,
    page_html,
    percent_decimals,
    table_html,
)
from holdout.audit.report.render import reference_section
from holdout.leaderboards import AccuracyTableAudit, accuracy_table_audit
from holdout.leaderboards.correctness import separator_hint, text_problem
from holdout.leaderboards.outputs import write_table

__all__ = ["OFF_LINE_RATIO", "SCALES", "accuracy_scale", "read_accuracy_table", "run_accuracy_table", "table_verdict"]


def accuracy_scale(v: np.ndarray, models: list[str], columns: list[str], source: str, scale: str | None) -> np.ndarray:
    """``v`` (models x columns) as fractions, read in ``scale`` or, when None, decided per column.

    Without ``scale`` a column with values above 1 is percent; the table is percent when every
    column is, and none of its nonzero values is at most 1 (a fraction typed among percent rows, or
    a model below 1%?). Any other table cannot tell: a column without values above 1 (fractions,
    or a hard benchmark in percent below 1%?) is refused in one line asking for ``--scale``."""
    top = {"percent": 100.0, "fraction": 1.0}.get(scale or "percent", 100.0)
    bad = np.argwhere((v < 0) | (v > top))
    if bad.size:
        i, j = bad[0]
        unit = "percent: they must lie in [0, 100]" if top == 100 else "fractions (--scale fraction): in [0, 1]"
        where = f"model {models[i]!r} has {v[i, j]:g} in column {columns[j]!r}"
        raise AuditError(f"{source}: {where}; accuracies in {unit}")
    if scale is not None:
        return v / top
    above = (v > 1).any(axis=0)
    if not above.all():
        low = columns[int(np.argmin(above))]
        why = (
            f"column {low!r} has no value above 1 while {columns[int(np.argmax(above))]!r} has (percent beside "
            "fractions, or a hard benchmark below 1%?)"
            if above.any()
            else "every accuracy is at most 1 (fractions, or percent of a hard benchmark below 1%?)"
        )
        raise AuditError(f"{source}: {why}: pass --scale fraction (0.75 = 75%) or --scale percent (0.75 = 0.75%)")
    small = np.argwhere((v > 0) & (v <= 1))
    if small.size:
        i, j = small[0]
        raise AuditError(
            f"{source}: column {columns[j]!r} is in percent, but model {models[i]!r} has {v[i, j]:g} there "
            f"(a fraction, {100 * v[i, j]:g}%, typed among percent?): correct the row, or pass --scale percent "
            f"if it is {v[i, j]:g}%"
        )
    return v / 100


def read_accuracy_table(path: str | Path, columns: list[str], scale: str | None = None) -> tuple[pd.DataFrame, str]:
    """``model`` + ``columns`` as fractions, and how the scale was read ('percent' / 'fractions',
    with '(--scale)' when given; see [`accuracy_scale`][holdout.audit.accuracy_table.accuracy_scale])."""
    path = Path(path)
    if not path.is_file():
        raise AuditError(f"--accuracies {path}: file not found")
    if problem := text_problem(path):
        raise AuditError(f"--accuracies {path}: {problem}")
    try:
        df = pd.read_csv(path, dtype={"model": str}, encoding="utf-8-sig")
    except (pd.errors.ParserError, ValueError) as exc:
        raise AuditError(f"--accuracies {path}: not a readable CSV ({str(exc).splitlines()[0]})") from None
    df.columns = [str(c).strip() for c in df.columns]  # "model, orig, new": the names without the spaces
    if "model" not in df.columns:
        raise AuditError(
            f"--accuracies {path}: needs a 'model' column (found: {', '.join(map(str, df.columns[:6]))})"
            + separator_hint(str(df.columns[0]))
        )
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise AuditError(
            f"--accuracies {path}: no column {missing[0]!r} (--columns; found: {', '.join(map(str, df.columns[:8]))})"
        )
    dup = df["model"][df["model"].duplicated()]
    if len(dup):
        raise AuditError(f"--accuracies {path}: duplicate model name {dup.iloc[0]!r}")
    values, signs = _percent_signs(df, columns, f"--accuracies {path}", scale)
    bad = values.isna().any(axis=1).to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        cells = ", ".join(f"{c}: {'blank' if pd.isna(df[c].iloc[i]) else repr(str(df[c].iloc[i]))}" for c in columns)
        raise AuditError(
            f"--accuracies {path}: model {df['model'].iloc[i]!r} has a missing or non-numeric accuracy ({cells}): "
            "write a number (a decimal point, not a comma), or leave the row out"
        )
    scale = "percent" if signs else scale
    v = accuracy_scale(values.to_numpy(float), list(df["model"].astype(str)), columns, f"--accuracies {path}", scale)
    read_as = ("fractions" if scale == "fraction" else "percent") + (
        " (% signs)" if signs else " (--scale)" if scale else ""
    )
    return pd.DataFrame({"model": df["model"].astype(str), columns[0]: v[:, 0], columns[1]: v[:, 1]}), read_as


def _percent_signs(df: pd.DataFrame, columns: list[str], source: str, scale: str | None) -> tuple[pd.DataFrame, bool]:
    """The columns as numbers, and whether they were written with % signs ("81.2%": percent, every
    value; a table with some signs only, or signs with --scale fraction, is refused)."""
    text = df[columns].astype(str).apply(lambda col: col.str.strip())
    signed = text.apply(lambda col: col.str.endswith("%"))
    if not signed.to_numpy().any():
        return df[columns].apply(pd.to_numeric, errors="coerce"), False
    if not signed.to_numpy().all():
        i, j = np.argwhere(~signed.to_numpy())[0]
        raise AuditError(
            f"{source}: some accuracies carry a % sign, but model {df['model'].iloc[i]!r} has "
            f"{text.iloc[i, j]!r} in column {columns[j]!r}: write every value the same way"
        )
    if scale == "fraction":
        raise AuditError(f"{source}: the accuracies carry % signs (percent), but --scale fraction is given")
    return text.apply(lambda col: pd.to_numeric(col.str.rstrip("%"), errors="coerce")), True


#: residual variance of the probit line above this many times the binomial variance: not one line
OFF_LINE_RATIO = 4.0


def table_verdict(audit: AccuracyTableAudit) -> str:
    """One line: the fits, the mean gap, how well the probit line fits, the models off it (a heuristic)."""
    lin, pro, t, lof = audit.linear, audit.probit, audit.models, audit.lack_of_fit
    head = (
        f"{len(t):,} models, mean gap {t['gap'].mean():.2f} points; linear fit new = {lin.slope:.3f} x orig "
        f"{lin.intercept:+.2f}, probit fit {pro.slope:.3f} z {pro.intercept:+.3f} (R^2 = {lof.r_squared:.3f}; "
        f"residual variance {lof.variance_ratio:.1f}x what test-set sampling alone gives; quadratic term "
        + (f"p = {lof.quadratic_p:.2g}). " if lof.quadratic_p > 0 else "p < 1e-300). ")
    )
    if audit.paired:
        drops = int(t["drop_significant"].sum())
        return head + (
            f"The new set grades the same items more strictly: {drops:,} model(s) score significantly lower on it "
            f"(exact McNemar on the discordant items, Holm, alpha = {audit.alpha:g}); effective "
            "robustness is not applicable (paired sets)."
        )
    sig = int(t["er_significant"].sum())
    text = head + (
        f"{sig:,} model(s) significantly off the probit line (Holm, alpha = {audit.alpha:g}; heuristic: assumes "
        "the straight probit line is correct)"
    )
    if lof.variance_ratio > OFF_LINE_RATIO:
        text += (
            ": the models do not lie on one line (accuracy on the line does not hold here), so per-model "
            "significance mostly reflects lack of fit"
        )
    elif lof.quadratic_p < audit.alpha:
        text += ": the relation is curved, so models at the ends of the accuracy range can be flagged by the curvature"
    return text + "."


#: the columns of the report's table (every column is in models.csv)
REPORT_COLUMNS = (
    "model",
    "orig_accuracy",
    "new_accuracy",
    "gap",
    "effective_robustness",
    "er_ci_low",
    "er_ci_high",
    "er_p_holm",
    "er_significant",
)


def _decimals(t: pd.DataFrame) -> dict[str, int]:
    """Percent decimals each column's intervals support (holdout.audit.report.page.percent_decimals)."""
    orig = percent_decimals(t["orig_ci_high"] - t["orig_ci_low"])
    new = percent_decimals(t["new_ci_high"] - t["new_ci_low"])
    er = percent_decimals(t["er_ci_high"] - t["er_ci_low"])
    return {"orig_accuracy": orig, "new_accuracy": new, "gap": min(orig, new)} | dict.fromkeys(
        ("effective_robustness", "er_ci_low", "er_ci_high"), er
    )


def _glance(summary: dict, audit: AccuracyTableAudit, verdict: str) -> list[Glance]:
    """The fits (measured), then the models off the line (a heuristic: it assumes the probit line)."""
    first = first_sentence(verdict)
    sizes = f"Test-set sizes: {count(audit.n_original)} original, {count(audit.n_new)} new."
    lines = [Glance("Newer test set", "measured", first, sizes, "new")]
    rest, er = verdict[len(first) :].strip(), summary.get("effective_robustness")
    if rest and isinstance(er, dict) and "significant_above" in er:
        numbers = (
            f"Effective robustness significantly above the probit line: {er['significant_above']:,} models, "
            f"below: {er['significant_below']:,} (Holm, alpha = {audit.alpha:g})."
        )
        lines.append(Glance("Models off the line", "heuristic", first_sentence(rest), numbers, "new"))
    return lines


def _report(out: Path, name: str, columns: list[str], summary: dict, audit: AccuracyTableAudit, verdict: str) -> None:
    """``report.html`` (at a glance, both figures, every model in a sortable table) and ``summary.md``."""
    title = f"holdout audit: {name}"
    t = audit.models
    meta = (
        f"{count(len(t))} models, accuracy table {name}: {columns[0]} (n = {count(audit.n_original)}) "
        f"against {columns[1]} (n = {count(audit.n_new)}); accuracies read as {summary['scale_read_as']}."
    )
    glance, reference = _glance(summary, audit, verdict), ""
    if isinstance(summary.get("reference"), dict):  # the reference-benchmark lens (--reference-models)
        line, reference = reference_section(summary)
        glance.append(line)
    top = t.reindex(t["effective_robustness"].abs().sort_values(ascending=False).index)
    parts = [
        f"<h1>{html.escape(title)}</h1><p class='meta'>{html.escape(meta)}</p>",
        glance_html(glance),
        "<h2 id='new'>Accuracy on the new test set against the original</h2>",
        "<p class='meta'>Recht et al. (2019), Figure 1; Miller et al. (2021), probit scale</p>",
        f"<div class='verdict'>{html.escape(verdict)}</div>",
        "<div class='figs'>" + "".join(figure_html(out / f"{f}.png") for f in ("fit", "effective_robustness")),
        "</div>",
        table_html(
            top[list(REPORT_COLUMNS)],
            "Every model, largest effective robustness (either sign) first; accuracies in %",
            "models.csv",
            decimals=_decimals(t),
        ),
        reference,
        "<p class='meta'>Every number is in models.csv, the figures' CSV files and summary.json beside this page "
        "(summary.md holds the block at the top); figures also as PDF. Made by holdout audit.</p>",
    ]
    (out / "report.html").write_text(page_html(title, parts))
    (out / "summary.md").write_text(glance_markdown(title, meta, glance))


def run_accuracy_table(args: argparse.Namespace) -> dict[str, object]:
    """The whole accuracy-table audit of the CLI's ``args``; returns ``summary.json``'s content."""
    if not args.columns or not args.sizes:
        raise AuditError("--accuracies needs --columns ORIG NEW and --sizes N_ORIG N_NEW")
    if len(set(args.columns)) < len(args.columns):
        raise AuditError(f"--columns {' '.join(args.columns)}: the same column twice; give the two test sets' columns")
    if min(args.sizes) < 1:
        raise AuditError(f"--sizes must be positive test-set sizes, got {args.sizes}")
    lens_only = [o for o in ("fit", "chance", "n_bootstrap") if getattr(args, o, None) is not None]
    if lens_only and not getattr(args, "reference_models", None):
        option = "--" + lens_only[0].replace("_", "-")
        raise AuditError(f"{option} is an option of the reference lens: add --reference-models FILE")
    table, scale = read_accuracy_table(args.accuracies, list(args.columns), getattr(args, "scale", None))
    checked = None
    if getattr(args, "reference_models", None):
        from holdout.audit.reference_lens import check_reference_args

        checked = check_reference_args(args, table)
    if len(table) < 3:
        raise AuditError(f"--accuracies {args.accuracies}: {len(table)} models; the fits need at least 3")
    orig, new = args.columns
    if table[orig].nunique() < 2:
        raise AuditError(
            f"--accuracies {args.accuracies}: every model has the same {orig!r} accuracy "
            f"({100 * table[orig].iloc[0]:g}%): the fits of {new!r} on {orig!r} need at least two different values"
        )
    audit = accuracy_table_audit(table["model"], table[orig], table[new], *args.sizes, args.alpha, args.band_level)
    out = Path(args.out)
    info = {"accuracies": str(args.accuracies), "scale_read_as": scale}
    summary = write_table(audit, out, f"{Path(args.accuracies).name}: {new} vs {orig}", orig, new, **info)
    summary["new"] = {"verdict": table_verdict(audit)}
    if checked is not None:
        from holdout.audit.reference_lens import run_reference_lens

        summary["reference"] = run_reference_lens(args, table, scale, out, checked)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    _report(out, Path(args.accuracies).name, list(args.columns), summary, audit, summary["new"]["verdict"])
    return summary
