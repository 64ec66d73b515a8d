"""Mania-Table-1-like table over the CIFAR-10 test sets (CSV and Markdown)."""

import math

import pandas as pd

from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])
table = pd.concat([pd.read_csv(p) for p in snakemake.input.tables], ignore_index=True)
table.to_csv(snakemake.output.csv, index=False)


def times(x: float) -> str:
    if not math.isfinite(x):
        return "n/a (k_UB = 0)"
    if x < 1000:
        return f"{x:.1f}x"
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant}e{int(exp)}x"


lines = [
    "| Test set | Models | K | n | eps | Mean accuracy | Mean similarity | Independent | k (UB) | SB | NBB |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
]
for r in table.itertuples():
    lines.append(
        f"| {r.test_set} | {r.models} | {r.num_models} | {r.n:,} | {r.eps:g} | {100 * r.mean_accuracy:.1f}% "
        f"| {100 * r.mean_similarity:.1f}% | {100 * r.mean_independent_similarity:.1f}% | {r.k_union:,} "
        f"| {times(r.gain_similarity)} | {times(r.gain_naive_bayes)} |"
    )
note = (f"\ndelta = {table['delta'].iloc[0]:g}. SB, NBB: the number of testable models by the similarity bound "
        "and by the naive Bayes bound, divided by that of the union bound (UB) "
        "(Mania et al. 2019, Table 1: 20 random DARTS models, 96.8% / 97.5%: SB 9.9x, NBB 1.6e4x).\n")
with open(snakemake.output.md, "w") as fh:
    fh.write("\n".join(lines) + "\n" + note)
log.info("wrote %d rows", len(table))
