"""``holdout audit --accuracies TABLE.csv --columns ORIG NEW --sizes N_ORIG N_NEW``.

A table of accuracies (a ``model`` column and one column per test set; percent or fractions,
detected: any value above 1 means percent) is audited by
[`accuracy_table_audit`][holdout.leaderboards.accuracy_table_audit]: Clopper-Pearson intervals
from the sizes, gaps, the linear and the probit fit with standard errors and bands, effective
robustness with Holm's correction. Written by
[`write_table`][holdout.leaderboards.outputs.write_table] plus a self-contained ``report.html``.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
from pathlib import Path

import pandas as pd

from holdout.audit.core import AuditError
from holdout.leaderboards import AccuracyTableAudit, accuracy_table_audit
from holdout.leaderboards.outputs import write_table

__all__ = ["read_accuracy_table", "run_accuracy_table", "table_verdict"]


def read_accuracy_table(path: str | Path, columns: list[str]) -> tuple[pd.DataFrame, str]:
    """``model`` + ``columns`` as fractions, and how the scale was read ('percent' / 'fractions')."""
    path = Path(path)
    if not path.is_file():
        raise AuditError(f"--accuracies {path}: file not found")
    try:
        df = pd.read_csv(path)
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as exc:
        raise AuditError(f"--accuracies {path}: not a readable CSV ({str(exc).splitlines()[0]})") from None
    if "model" not in df.columns:
        raise AuditError(f"--accuracies {path}: needs a 'model' column (found: {', '.join(map(str, df.columns[:6]))})")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise AuditError(
            f"--accuracies {path}: no column {missing[0]!r} (--columns; found: {', '.join(map(str, df.columns[:8]))})"
        )
    dup = df["model"][df["model"].duplicated()]
    if len(dup):
        raise AuditError(f"--accuracies {path}: duplicate model name {dup.iloc[0]!r}")
    values = df[columns].apply(pd.to_numeric, errors="coerce")
    bad = values.isna().any(axis=1).to_numpy()
    if bad.any():
        raise AuditError(
            f"--accuracies {path}: model {df['model'][bad].iloc[0]!r} has a missing or non-numeric accuracy"
        )
    v = values.to_numpy(float)
    scale = "percent" if (v > 1).any() else "fractions"
    if scale == "percent":
        v = v / 100
    if ((v < 0) | (v > 1)).any():
        raise AuditError(f"--accuracies {path}: accuracies must lie in [0, 100] (percent) or [0, 1] (fractions)")
    return pd.DataFrame({"model": df["model"].astype(str), columns[0]: v[:, 0], columns[1]: v[:, 1]}), scale


def table_verdict(audit: AccuracyTableAudit) -> str:
    """One line: the fits, the mean gap, the models off the probit line."""
    lin, pro, t = audit.linear, audit.probit, audit.models
    sig = int(t["er_significant"].sum())
    return (
        f"{len(t)} models, mean gap {t['gap'].mean():.2f} points; linear fit new = {lin.slope:.3f} x orig "
        f"{lin.intercept:+.2f}, probit fit {pro.slope:.3f} z {pro.intercept:+.3f}; {sig} model(s) significantly "
        f"off the probit line (Holm, alpha = {audit.alpha:g})"
    )


def _report(out: Path, title: str, summary: dict, audit: AccuracyTableAudit) -> None:
    data = {
        name: base64.b64encode((out / f"{name}.png").read_bytes()).decode() for name in ("fit", "effective_robustness")
    }
    imgs = "".join(f'<img alt="{name}" src="data:image/png;base64,{b64}">' for name, b64 in data.items())
    top = audit.models.reindex(audit.models["effective_robustness"].abs().sort_values(ascending=False).index).head(30)
    body = top.to_html(index=False, float_format=lambda v: f"{v:.3f}", border=0)
    text = html.escape(json.dumps(summary, indent=2))
    page = f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><h1>{html.escape(title)}</h1>"
    (out / "report.html").write_text(f"{page}{imgs}<h2>Largest effective robustness</h2>{body}<pre>{text}</pre>\n")


def run_accuracy_table(args: argparse.Namespace) -> dict[str, object]:
    """The whole accuracy-table audit of the CLI's ``args``; returns ``summary.json``'s content."""
    if not args.columns or not args.sizes:
        raise AuditError("--accuracies needs --columns ORIG NEW and --sizes N_ORIG N_NEW")
    if min(args.sizes) < 1:
        raise AuditError(f"--sizes must be positive test-set sizes, got {args.sizes}")
    table, scale = read_accuracy_table(args.accuracies, list(args.columns))
    if len(table) < 3:
        raise AuditError(f"--accuracies {args.accuracies}: {len(table)} models; the fits need at least 3")
    orig, new = args.columns
    audit = accuracy_table_audit(table["model"], table[orig], table[new], *args.sizes, args.alpha, args.band_level)
    out = Path(args.out)
    info = {"accuracies": str(args.accuracies), "scale_read_as": scale}
    summary = write_table(audit, out, f"{Path(args.accuracies).name}: {new} vs {orig}", orig, new, **info)
    summary["new"] = {"verdict": table_verdict(audit)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    _report(out, f"holdout audit: {Path(args.accuracies).name}", summary, audit)
    return summary
