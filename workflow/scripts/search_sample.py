"""Draw the random search's configurations (Mania et al. Table 2) and the shared training subset."""

import numpy as np

from holdout.runlog import script_logger
from holdout.training.search import sample_configs
from holdout.training.subset import train_subset

log = script_logger(snakemake.log[0])
p = snakemake.params
table = sample_configs(p.n_models, p.seed)
table.to_csv(snakemake.output.configs, index=False)
log.info("%d configurations (seed %d) -> %s", len(table), p.seed, snakemake.output.configs)
idx = train_subset(p.n_total, p.train_subset_size, p.train_subset_seed)
np.save(snakemake.output.train_subset, idx)
log.info(
    "training subset: %d of %d images (seed %d) -> %s",
    len(idx),
    p.n_total,
    p.train_subset_seed,
    snakemake.output.train_subset,
)
