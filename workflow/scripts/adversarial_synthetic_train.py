"""Train the R runs of one case of the synthetic experiment (Werpachowski et al. App. A.2)."""

from holdout.adversarial.synthetic.study import train_case
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
case, out = snakemake.wildcards.case, snakemake.output  # noqa: F821
with timed(log, f"case {case}: data, training, true risk and test error"):
    runs = train_case(snakemake.params.cfg, case, snakemake.threads, log)  # noqa: F821
m = runs.models
log.info(
    "final penalized training loss: mean %.4g (min %.4g, max %.4g); training accuracy: mean %.4f (min %.4f); "
    "R(f): mean %.4f; R_S: mean %.4f",
    m.train_loss.mean(),
    m.train_loss.min(),
    m.train_loss.max(),
    m.train_accuracy.mean(),
    m.train_accuracy.min(),
    runs.true_risk.mean(),
    runs.test_error.mean(),
)
runs.save(out.test_set, out.models, out.training)
