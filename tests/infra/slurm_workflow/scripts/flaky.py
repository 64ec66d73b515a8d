"""Fails on its first attempt (leaving a marker outside the outputs), then succeeds.

The infrastructure tests use it to check that the profile's `retries` resubmit a
failed job and that its resources grow with `attempt`.
"""

from pathlib import Path

from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])
marker = Path(snakemake.params.marker)
log.info("resources: mem_mb=%s runtime=%s", snakemake.resources.get("mem_mb"), snakemake.resources.get("runtime"))
if not marker.exists():
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("failed once\n")
    raise RuntimeError(f"first attempt fails on purpose (marker {marker} written)")
rows = open(snakemake.input[0]).read().splitlines()
Path(snakemake.output[0]).write_text(f"recovered after one failure; {len(rows) - 1} summary rows\n")
log.info("second attempt succeeded")
