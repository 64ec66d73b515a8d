"""The public contamination anchors (holdout.contamination.anchors): GSM1k, MMLU-CF, ObsScaling,
MathArena, each recomputed from its files with a figure; what is off in the files in one JSON
(holdout.contamination.outputs writes each anchor's files)."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one rule thread: small dense algebra, no BLAS threads

from holdout.contamination import outputs as O  # noqa: E402
from holdout.runlog import script_logger, timed  # noqa: E402

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, params = snakemake.input, snakemake.params  # noqa: F821
out = dict(snakemake.output.items())  # noqa: F821
found, numbers = {}, {}
with timed(log, "GSM1k"):
    numbers["gsm1k"], found["gsm1k"] = O.gsm1k_files(inp.gsm1k_diff, inp.gsm1k_loglik, out, params.alpha)
with timed(log, "MMLU-CF"):
    mmlu, found["mmlu_cf"] = O.mmlu_cf_files(inp.mmlu_cf, out, params.alpha)
    numbers.update(mmlu)
with timed(log, f"ObsScaling ({params.obsscaling['n_bootstrap']} replicates)"):
    numbers["obsscaling"], found["obsscaling"] = O.obsscaling_files(inp.obsscaling, params.obsscaling, params.seed, out)
with timed(log, "MathArena"):
    found["matharena"] = O.matharena_files(inp.matharena_models, inp.matharena_competitions, out)
O.write_summary(snakemake.output.summary, numbers, found)  # noqa: F821
log.info(
    "GSM1k Spearman r = %.3f; MMLU-CF sign test p = %.4f",
    numbers["gsm1k"]["spearman_r"],
    numbers["mmlu_cf_5shot"]["sign_test_p"],
)
