# Helpers and constants of the seeds study (rules: seeds.smk).
from holdout.training.naming import checkpoint_paths as _checkpoint_paths
from holdout.training.naming import seed_model_name as _seed_model_name

SEEDS = config["seeds"]
SEEDS_DIR = "results/seeds"


def seeds_models():
    """seed000, seed001, ... (empty when the study is disabled)."""
    if not study_enabled("seeds"):
        return []
    first = int(SEEDS["first_seed"])
    return [_seed_model_name(s) for s in range(first, first + int(SEEDS["n_models"]))]


def seeds_model_outputs(model):
    d = f"{SEEDS_DIR}/models/{model}"
    ckpts = [str(p) for p in _checkpoint_paths(d, int(SEEDS["num_checkpoints"]))]
    return ckpts + [f"{d}/config.json", f"{d}/log.csv"]


def seeds_targets():
    """Final outputs of the seeds study: recipe, subset and every seed model's files."""
    if not study_enabled("seeds"):
        return []
    out = [f"{SEEDS_DIR}/recipe.json", f"{SEEDS_DIR}/train_subset.npy"]
    for m in seeds_models():
        out += seeds_model_outputs(m)
    return out


def seeds_groups():
    """Seeds trained as one fused network, training.fused_members at a time (all share the recipe);
    none when it is 1."""
    n, models = int(config["training"]["fused_members"]), seeds_models()
    if n <= 1:
        return []
    return [models[i : i + n] for i in range(0, len(models), n)]


SEEDS_GROUPS = seeds_groups()
