"""Table-1-style rows (Mania et al. 2019, Table 1) of our search's checkpoints with accuracy >=
search_analysis.min_accuracy: all, n_random random, n_top highest scoring; SB and NBB gains."""

import math

import pandas as pd

from holdout.bounds.study import fmt_gain
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.similarity.own_models import (
    filter_by_accuracy,
    table1_gains,
    table1_rows,
    table1_subsets,
)
from holdout.tables import markdown_table, write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
cfg = params.table1
preds = load_predictions(inp.predictions)
kept = filter_by_accuracy(preds, params.min_accuracy)
log.info("%d of %d checkpoints have accuracy >= %g", kept.num_models, preds.num_models, params.min_accuracy)
with timed(log, "subsets and mean similarities"):
    specs = table1_subsets(kept.num_models, cfg["n_random"], cfg["n_top"], cfg["seed"])
    rows = table1_rows(kept, specs, n=cfg["n"])
with timed(log, f"testable models at eps={cfg['eps']}, delta={cfg['delta']}"):
    df = table1_gains(rows, cfg["eps"], cfg["delta"], cfg["form"], threads=snakemake.threads)  # noqa: F821


def _k(v: float) -> str:
    return "n/a" if isinstance(v, float) and math.isnan(v) else f"{int(v):,}"


shown = pd.DataFrame(
    {
        "name": df["name"],
        "k": df["num_models"],
        "n": [f"{v:,}" for v in df["n"]],
        "acc": [f"{100 * v:.1f}%" for v in df["mean_accuracy"]],
        "sim": [f"{100 * v:.1f}%" for v in df["mean_similarity"]],
        "ind": [f"{100 * v:.1f}%" for v in df["independent_similarity"]],
        "ub": [_k(v) for v in df["union_k"]],
        "sb": [fmt_gain(v) for v in df["sb_gain"]],
        "nbb": [fmt_gain(v) for v in df["nbb_gain"]],
    }
)
notes = [
    (
        f"Our search on {preds.test_set}: {kept.num_models} of {preds.num_models} checkpoints with accuracy >= "
        f"{params.min_accuracy:g}; 'highest scoring' = highest accuracy on this test set, 'random' drawn with "
        f"seed {cfg['seed']}."
    ),
    (
        f"eps = {cfg['eps']}, delta = {cfg['delta']}; n = the test set size unless search_analysis.table1.n is set. "
        "SB, NBB: testable models by the similarity bound (3)+(8) and the naive Bayes bound over those by the "
        "union bound (k UB). Independent: mu^2 + (1 - mu)^2 at the mean error mu; below it the similarity "
        "bounds do not apply (–)."
    ),
    (
        "Paper (Mania et al. 2019, Table 1, DARTS, n = 10,000): 20 Random 96.8% / 97.5%: SB 9.9x, NBB 1.6e4x; "
        "20 Highest Scoring 96.9% / 97.6%: SB 12x, NBB 3.4e4x."
    ),
]
md = markdown_table(
    shown,
    {
        "name": "Checkpoints",
        "k": "K",
        "n": "n",
        "acc": "Mean accuracy",
        "sim": "Mean similarity",
        "ind": "Independent",
        "ub": "k UB",
        "sb": "SB",
        "nbb": "NBB",
    },
    align={c: "r" for c in ("k", "n", "acc", "sim", "ind", "ub", "sb", "nbb")},
    notes=notes,
)
write_table(df, csv=out.csv, markdown=out.md, markdown_text=md)
for r in df.itertuples():
    log.info(
        "%s: %d checkpoints, accuracy %.4f, similarity %.4f (independent %.4f), k_UB %d, SB %s, NBB %s",
        r.name,
        r.num_models,
        r.mean_accuracy,
        r.mean_similarity,
        r.independent_similarity,
        r.union_k,
        fmt_gain(r.sb_gain),
        fmt_gain(r.nbb_gain),
    )
