"""Concatenate the per-seed accuracy tables."""

from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
with timed(log, "summary"):
    lines = []
    for i, path in enumerate(snakemake.input):
        rows = open(path).read().splitlines()
        lines += rows if i == 0 else rows[1:]
    with open(snakemake.output[0], "w") as fh:
        fh.write("\n".join(lines) + "\n")
    log.info("%d rows", len(lines) - 1)
