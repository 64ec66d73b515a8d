"""Train one model of Recht et al. (2018) Sec. 5.5 / 5.6 on one run's data and predict its test set.

Runs: split<k> (train on the other splits + the original test set, test on split k), standard
(train on the 50,000 training images, test on the original test set), half<seed> (add a
class-balanced half of CIFAR-10.1 v4, evaluate on all of v4). With ``train_per_class`` set
(CPU-sized default config) only that many CIFAR-10 images per class are trained on.
"""

from pathlib import Path

from holdout.predictions import save_predictions
from holdout.retraining.core import cap_run_arrays, load_run_sources, read_cv_splits, run_arrays, run_data
from holdout.retraining.train import retrain_and_predict
from holdout.runlog import script_logger
from holdout.training import TrainConfig
from holdout.training.cap import WorkCap

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, p, w = snakemake.input, snakemake.output, snakemake.params, snakemake.wildcards  # noqa: F821
sources = load_run_sources(inp.arrays, getattr(inp, "v4_images", None), getattr(inp, "v4_labels", None))
split = read_cv_splits(inp.splits, len(sources["train"][1]))
v4_labels = sources["v4"][1] if "v4" in sources else None
data = run_data(w.run, split, len(sources["test"][1]), v4_labels, int(p.n_half))
cap = WorkCap.from_config(p.cap)
preds = retrain_and_predict(
    w.model,
    p.overrides,
    TrainConfig.from_dict(dict(p.train)),
    cap_run_arrays(run_arrays(data, sources, cap.per_class(p.train_per_class), int(p.seed), log), w.run, cap.images),
    run=w.run,
    test_set=data.test_set,
    out_dir=Path(out.checkpoint).parent,
    state_dir=p.state_dir,
    seed=int(p.seed),
    device=p.device,
    threads=snakemake.threads,  # noqa: F821
    cap=cap,
    log=log,
)
save_predictions(out.predictions, preds)
