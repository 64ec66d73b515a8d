"""holdout site on site.spec: the shipped benchmarks audited and published as one static folder;
the index's numbers also beside it as a CSV for the workflow's report."""

import shutil
from pathlib import Path

from holdout.runlog import script_logger, timed
from holdout.site import build_site, load_spec

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
p, out = snakemake.params, snakemake.output  # noqa: F821
spec = load_spec(snakemake.input.spec, p.root)  # noqa: F821 (a bad SPEC: one line naming the file and key)
with timed(log, f"site of {len(spec.benchmarks)} benchmarks"):
    site = build_site(spec, out.site, workers=p.jobs, progress=log.info)
shutil.copyfile(Path(out.site) / "index.csv", out.index)
log.info(
    "wrote %s/index.html: %d benchmarks, %d shared models", out.site, len(site.results), site.models["model"].nunique()
)
