"""Attack every run of one case at every eps and run the pairwise and N-model tests
(Werpachowski et al. Sec. 3-4, Appendix A.3)."""

from holdout.adversarial.synthetic.study import evaluate_case
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
inp, out = snakemake.input, snakemake.output  # noqa: F821
with timed(log, "attack and tests over the eps grid"):
    per_run, groups = evaluate_case(snakemake.params.cfg, snakemake.wildcards.case, inp.test_set, inp.models, log)  # noqa: F821
per_run.to_csv(out.per_run, index=False)
groups.to_csv(out.n_model, index=False)
