"""Train the R runs of one case of the synthetic experiment (Werpachowski et al. App. A.2)."""

import numpy as np
import pandas as pd

from holdout.adversarial import synthetic as syn
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
case = snakemake.wildcards.case
spec = syn.mixture_from_config(cfg)
train = syn.train_spec_from_config(cfg, case)
n_runs = int(cfg["repetitions"])
m_test = int(cfg["n_test_independent"] if case == "independent" else cfg["n_test_dependent"])
test_seed, run_seeds = syn.case_seeds(int(cfg["seed"]), case, n_runs)
log.info("case %s: %d runs, test set %d, %s", case, n_runs, m_test, train)

with timed(log, "data"):
    x_test, y_test = syn.sample_mixture(spec, m_test, np.random.default_rng(test_seed))
    x, y = syn.make_training_sets(
        spec, case, n_runs, int(cfg["n_train"]), run_seeds, x_test, y_test,
        dependent_train_fraction=float(cfg["dependent_train_fraction"]),
        dependent_mode=str(cfg["dependent_mode"]),
    )
    log.info("training sets: %s", x.shape)

with timed(log, f"batched training ({n_runs} runs x {train.steps} steps)"):
    models = syn.train_linear_batched(
        x, y, train, run_seeds, threads=snakemake.threads,
        progress=lambda step, loss: log.info("step %d: mean batch logistic loss %.4g", step, loss),
        progress_every=max(1, train.steps // 10),
    )
del x, y

with timed(log, "true risk and test error"):
    risk = syn.true_risk(spec, models.w, models.b)
    test_error = ((y_test[None, :] * (models.w @ x_test.T + models.b[:, None])) <= 0).mean(axis=1)

log.info(
    "final penalized training loss: mean %.4g (min %.4g, max %.4g); training accuracy: mean %.4f (min %.4f); "
    "R(f): mean %.4f; R_S: mean %.4f",
    models.train_loss.mean(), models.train_loss.min(), models.train_loss.max(),
    models.train_accuracy.mean(), models.train_accuracy.min(), risk.mean(), test_error.mean(),
)
np.savez(snakemake.output.test_set, x=x_test, y=y_test, seed=test_seed)
np.savez(
    snakemake.output.models, w=models.w, b=models.b, seeds=np.asarray(run_seeds, dtype=np.int64),
    train_loss=models.train_loss, train_accuracy=models.train_accuracy, true_risk=risk,
)
pd.DataFrame(
    dict(case=case, run=np.arange(n_runs), seed=run_seeds, train_loss=models.train_loss,
         train_accuracy=models.train_accuracy, test_error=test_error, true_risk=risk,
         w1=models.w[:, 0], w_norm=np.linalg.norm(models.w, axis=1), b=models.b)
).to_csv(snakemake.output.training, index=False)
