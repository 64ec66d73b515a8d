"""Fetch files from the mirror (data.mirror) or their URLs (data.urls) into resources/raw/,
verifying each against its checksum. The source is not a rule parameter on purpose: a
verified file does not depend on where it came from, so switching between the mirror and
the network does not re-fetch."""

from holdout.data.core import fetch, source_of
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
data_cfg = snakemake.config["data"]  # noqa: F821
outputs = list(snakemake.output)  # noqa: F821
relpaths = list(snakemake.params.relpaths)  # noqa: F821
checksums = list(snakemake.params.checksums)  # noqa: F821
mirror = data_cfg.get("mirror")
log.info("source: %s", f"mirror {mirror}" if mirror else "download from data.urls")
with timed(log, f"fetch {len(outputs)} file(s)"):
    for i, (dest, rel, checksum) in enumerate(zip(outputs, relpaths, checksums, strict=True), 1):
        fetch(source_of(rel, mirror, data_cfg["urls"]), dest, checksum, log=log)
        if i % 10 == 0 or i == len(outputs):
            log.info("%d of %d files fetched and verified", i, len(outputs))
