"""Fetch one anchor file from the mirror (data.mirror) or its pinned URL (contamination.urls),
verified against its checksum (holdout.data.fetch)."""

from holdout.data.fetch import fetch, source_of
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
config = snakemake.config  # noqa: F821
relpath = snakemake.wildcards.relpath  # noqa: F821
mirror = config["data"].get("mirror")
log.info("source: %s", f"mirror {mirror}" if mirror else "download from contamination.urls")
with timed(log, f"fetch {relpath}"):
    fetch(
        source_of(relpath, mirror, config["contamination"]["urls"]),
        snakemake.output[0],
        snakemake.params.checksum,
        log=log,
    )  # noqa: F821
