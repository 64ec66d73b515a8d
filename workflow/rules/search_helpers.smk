# Helpers and constants of the search study (rules: search.smk).
# holdout.training.naming imports no torch: parsing the workflow never loads it.
from holdout.training.naming import checkpoint_paths as _checkpoint_paths
from holdout.training.naming import search_model_name as _search_model_name

from holdout.training.recipes import resolve_search as _resolve_search

SEARCH = _resolve_search(config["search"])  # the keys of search.scale, unless set
SEARCH_DIR = "results/search"


def search_models():
    """m000, m001, ... (one per sampled configuration; empty when the study is disabled); under a
    work cap with search_draws, only those draws."""
    if not study_enabled("search"):
        return []
    draws = range(int(SEARCH["n_models"]))
    if TRAINING_CAP.search_draws is not None:
        draws = [i for i in TRAINING_CAP.search_draws if i < int(SEARCH["n_models"])]
    return [_search_model_name(i) for i in draws]


def search_model_outputs(model):
    """The files search_train writes for one model (its checkpoints first)."""
    d = f"{SEARCH_DIR}/models/{model}"
    ckpts = [str(p) for p in _checkpoint_paths(d, int(SEARCH["num_checkpoints"]))]
    return ckpts + [f"{d}/config.json", f"{d}/log.csv"]


def search_targets():
    """Final outputs of the search study: the sampled table and every model's files."""
    if not study_enabled("search"):
        return []
    out = [f"{SEARCH_DIR}/configs.csv"]
    for m in search_models():
        out += search_model_outputs(m)
    return out


def search_groups():
    """The fused groups of the draws (lists of model names) when training.fused_members > 1, else
    none. Only then does parsing load torch (holdout.training.search computes the fusion keys)."""
    n = int(config["training"]["fused_members"])
    if n <= 1 or not study_enabled("search"):
        return []
    from holdout.training.search import fused_search_groups  # only when training.fused_members > 1

    return fused_search_groups(SEARCH, search_models(), n)


SEARCH_GROUPS = search_groups()
