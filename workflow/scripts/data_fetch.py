"""Fetch files from the mirror or their URLs into resources/raw/, verifying each checksum."""

from holdout.data import fetch
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
outputs = list(snakemake.output)  # noqa: F821
sources = list(snakemake.params.sources)  # noqa: F821
checksums = list(snakemake.params.checksums)  # noqa: F821
with timed(log, f"fetch {len(outputs)} file(s)"):
    for i, (dest, source, checksum) in enumerate(zip(outputs, sources, checksums, strict=True), 1):
        fetch(source, dest, checksum, log=log)
        if i % 10 == 0 or i == len(outputs):
            log.info("%d of %d files fetched and verified", i, len(outputs))
