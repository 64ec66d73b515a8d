"""Attack every run of one case at every eps and run the pairwise and N-model tests
(Werpachowski et al. Sec. 3-4, Appendix A.3)."""

import numpy as np

from holdout.adversarial import synthetic as syn
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
case = snakemake.wildcards.case
spec = syn.mixture_from_config(cfg)
grid = syn.eps_grid(cfg)
test = np.load(snakemake.input.test_set)
models = np.load(snakemake.input.models)
log.info(
    "case %s: %d models, %d test points, %d eps values, U = %g",
    case,
    models["w"].shape[0],
    test["y"].size,
    grid.size,
    float(cfg["U"]),
)

with timed(log, "attack and tests over the eps grid"):
    per_run, groups = syn.evaluate_grid(
        spec,
        test["x"],
        test["y"],
        models["w"],
        models["b"],
        grid,
        [int(n) for n in cfg["n_models"]],
        float(cfg["U"]),
        progress=lambda eps: log.info("eps = %g done", eps),
    )
per_run.insert(0, "case", case)
groups.insert(0, "case", case)
per_run.to_csv(snakemake.output.per_run, index=False)
groups.to_csv(snakemake.output.n_model, index=False)
for eps, d in per_run.groupby("eps"):
    log.info(
        "eps %8.4g: mean p %.3f, R_S %.4f, R_g %.4f",
        eps,
        d.p_value.mean(),
        d.test_error.mean(),
        d.adversarial_risk.mean(),
    )
