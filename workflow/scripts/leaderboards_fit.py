"""One accuracy table: intervals, gaps, linear and probit fits, effective robustness (holdout.leaderboards)."""

from pathlib import Path

from holdout.leaderboards import accuracy_table_audit
from holdout.leaderboards.outputs import write_table
from holdout.leaderboards.sources import pair_table
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
pair, params = snakemake.params.pair, snakemake.params  # noqa: F821
name = snakemake.wildcards.name  # noqa: F821
with timed(log, f"accuracy-table audit {name}"):
    table = pair_table(pair["source"], dict(snakemake.input), pair["original"], pair["new"])  # noqa: F821
    audit = accuracy_table_audit(
        table["model"],
        table[pair["original"]],
        table[pair["new"]],
        pair["n_original"],
        pair["n_new"],
        params.alpha,
        params.band_level,
    )
    summary = write_table(
        audit,
        Path(snakemake.output.models).parent,
        f"{name} ({len(table)} models)",  # noqa: F821
        pair["original"],
        pair["new"],
        name=name,
        source=pair["source"],
    )
log.info("linear %s, probit %s", summary["linear_fit"], summary["probit_fit"])
