"""Write the seeds study's recipe (recipe.json) and its training subset (train_subset.npy, int64)."""

import json

import numpy as np

from holdout.runlog import script_logger
from holdout.training.seeds import recipe_from_config
from holdout.training.subset import train_subset

log = script_logger(snakemake.log[0])
recipe = recipe_from_config(snakemake.params.cfg)
idx = train_subset(snakemake.params.n_total, recipe.train_subset_size, recipe.train_subset_seed)
np.save(snakemake.output.train_subset, idx)
with open(snakemake.output.recipe, "w") as fh:
    json.dump(recipe.to_dict(), fh, indent=2)
log.info("recipe: %s", json.dumps(recipe.to_dict()))
log.info("training subset: %d images (seed %d)", len(idx), recipe.train_subset_seed)
