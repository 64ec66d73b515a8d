"""The adversarial overfitting test (pairwise, eq. 6-7; and the interval test of
Sec. 3.1) on the whole samples, for every model, split and AEG (Werpachowski et al.
2019, Sec. 5.2: p = 0.96 for VGG16 on the test set)."""

from pathlib import Path

import pandas as pd

from holdout.adversarial.imagenet import study as inet
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
# .../<model>/<split>/per_image.csv
frames = {tuple(Path(p).parts[-3:-1]): pd.read_csv(p) for p in snakemake.input.per_image}  # noqa: F821
with timed(log, "summary"):
    table = inet.summary_table(frames, confidence_delta=float(snakemake.params.cfg["confidence_delta"]))  # noqa: F821
table.to_csv(snakemake.output.summary, index=False)  # noqa: F821
log.info("summary:\n%s", table.to_string())
