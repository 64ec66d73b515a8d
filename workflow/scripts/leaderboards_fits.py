"""Every accuracy table (holdout.leaderboards): intervals, gaps, linear and probit fits, effective
robustness, written per pair; then all fits in one table."""

from pathlib import Path

from holdout.config import check_leaderboard_pair
from holdout.leaderboards import accuracy_table_audit
from holdout.leaderboards.outputs import fits_table, write_table
from holdout.leaderboards.sources import pair_table, split_off_size, timm_architecture, timm_in1k_only
from holdout.runlog import script_logger, timed
from holdout.tables import markdown_table
from holdout.tables import write_table as write_csv_md

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
files = {k: v for k, v in dict(inp).items() if k != "imagenetv2"}
for name, summary_path in zip(params.pairs, out.summaries, strict=True):
    pair = params.pairs[name]
    if pair["source"] in files:  # a testbed column or EvalPlus key: one line naming the config key
        check_leaderboard_pair(name, pair, files[pair["source"]])
    with timed(log, f"accuracy-table audit {name}"):
        t = pair_table(pair["source"], files, pair["original"], pair["new"])
        excluded: list[str] = []
        if pair["source"] == "evalplus":  # values of another version of the set: flagged, left out
            t, excluded = split_off_size(t, [pair["original"], pair["new"]], [pair["n_original"], pair["n_new"]])
        audit = accuracy_table_audit(
            t["model"],
            t[pair["original"]],
            t[pair["new"]],
            pair["n_original"],
            pair["n_new"],
            params.alpha,
            params.band_level,
            baseline=timm_in1k_only(t["model"]) if pair.get("baseline") == "in1k_only" else None,
            paired=bool(pair.get("paired", False)),
            clusters=timm_architecture(t["model"]) if pair["source"] == "timm" else None,
        )
        s = write_table(
            audit,
            Path(summary_path).parent,
            f"{name} ({len(t)} models)",
            pair["original"],
            pair["new"],
            name=name,
            source=pair["source"],
            excluded_off_size=excluded,
        )
    log.info("%s: linear %s, probit %s", name, s["linear_fit"], s["probit_fit"])
table = fits_table(list(out.summaries), list(inp.imagenetv2))
write_csv_md(
    table, out.table, out.table_md, markdown_text=markdown_table(table.round(4).astype(object).where(table.notna(), ""))
)
