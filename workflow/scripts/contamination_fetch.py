"""Fetch one contamination input file from the mirror (data.mirror) or its pinned URL (contamination.urls),
verified against its checksum (holdout.data.fetch)."""

from holdout.data.fetch import fetch_configured
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
relpath, config = snakemake.wildcards.relpath, snakemake.config  # noqa: F821
with timed(log, f"fetch {relpath}"):
    urls = config["contamination"]["urls"]
    fetch_configured(
        relpath,
        config["data"].get("mirror"),
        urls,
        snakemake.output[0],
        snakemake.params.checksum,
        "contamination",
        log=log,
    )  # noqa: F821
