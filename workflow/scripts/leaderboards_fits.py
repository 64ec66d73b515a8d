"""Every accuracy table (holdout.leaderboards): intervals, gaps, linear and probit fits, effective
robustness, written per pair (holdout.leaderboards.outputs.write_pair); then all fits in one table."""

from pathlib import Path

from holdout.config import check_leaderboard_pair
from holdout.leaderboards.outputs import write_fits_table, write_pair
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
files = {k: v for k, v in dict(inp).items() if k != "imagenetv2"}
for name, summary_path in zip(params.pairs, out.summaries, strict=True):
    pair = params.pairs[name]
    if pair["source"] in files:  # a testbed column or EvalPlus key: one line naming the config key
        check_leaderboard_pair(name, pair, files[pair["source"]])
    with timed(log, f"accuracy-table audit {name}"):
        s = write_pair(name, pair, files, Path(summary_path).parent, params.alpha, params.band_level)
    log.info("%s: linear %s, probit %s", name, s["linear_fit"], s["probit_fit"])
write_fits_table(list(out.summaries), list(inp.imagenetv2), out.table, out.table_md)
