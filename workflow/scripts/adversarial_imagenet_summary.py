"""The adversarial overfitting test (pairwise, eq. 6-7; and the interval test of
Sec. 3.1) on the whole samples, for every model, split and AEG (Werpachowski et al.
2019, Sec. 5.2: p = 0.96 for VGG16 on the test set)."""

from pathlib import Path

import pandas as pd

from holdout.adversarial import imagenet as inet
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg

frames = {}
for path in snakemake.input.per_image:  # .../<model>/<split>/per_image.csv
    model, split = Path(path).parts[-3:-1]
    frames[model, split] = pd.read_csv(path)
with timed(log, "summary"):
    table = inet.summary_table(frames, confidence_delta=float(cfg["confidence_delta"]))
table.to_csv(snakemake.output.summary, index=False)
for _, r in table.iterrows():
    log.info("%s %s %s: m=%d R_S=%.4f R_g=%.4f p=%.4g", r["model"], r["split"], r["attack"], r["m"],
             r["R_S"], r["R_g"], r["p_value"])
