"""Config files merged exactly as Snakemake merges them (``snakemake.utils.update_config``, key by
key), then the scale of each section applied: no CPU-sized value of config/config.yaml may reach a
job of config/paper.yaml or config/gpu.yaml, in either order of the extra files."""

from __future__ import annotations

import copy
import itertools

import pytest
from small_configs import read_yaml
from snakemake.utils import update_config, validate

from holdout.training.recipes import (
    PAPER_RETRAINING,
    PAPER_SEARCH,
    PAPER_SEEDS,
    SEARCH_SCALES,
    resolve_retraining,
    resolve_search,
)

STUDIES = ("search", "seeds", "retraining", "predict")


def _merged(repo, *names: str) -> dict:
    cfg: dict = {}
    for name in names:
        update_config(cfg, read_yaml(repo / name))
    validate(cfg, str(repo / "config" / "schema.yaml"), set_default=True)
    cfg["search"] = resolve_search(cfg["search"])
    cfg["retraining"] = resolve_retraining(cfg["retraining"])
    return cfg


@pytest.mark.parametrize(
    ("scale_file", "extras"),
    [
        ("config/paper.yaml", ("config/offline.yaml",)),
        ("config/gpu.yaml", ()),
        ("config/gpu.yaml", ("config/offline.yaml",)),
    ],
)
def test_no_cpu_value_reaches_a_scaled_job(repo, scale_file, extras):
    """Over config.yaml, in every order of the extra files, each training study equals the scale
    file alone over the schema defaults (config.yaml's CPU values never show through)."""
    alone = _merged(repo, scale_file)
    for order in itertools.permutations((*extras, scale_file)):
        merged = _merged(repo, "config/config.yaml", *order)
        for study in STUDIES:
            assert merged[study] == alone[study], (order, study)


def test_gpu_config_trains_recht_vgg_columns_at_the_published_recipes(repo):
    cfg = _merged(repo, "config/config.yaml", "config/offline.yaml", "config/gpu.yaml")
    rt = cfg["retraining"]
    assert rt["train_per_class"] is None and rt["table2_models"] == ["vgg_15_BN_64"]
    for name in ("vgg_15_BN_64", "vgg16_keras"):
        assert rt["models"][name] == PAPER_RETRAINING[name].as_config(), name
    assert cfg["search_analysis"]["min_accuracy"] == 0.5  # Mania et al. Sec. 5.2


def test_paper_config_is_the_published_recipes(repo):
    cfg = _merged(repo, "config/config.yaml", "config/offline.yaml", "config/paper.yaml")
    assert cfg["retraining"]["train_per_class"] is None
    for name, recipe in PAPER_RETRAINING.items():
        assert cfg["retraining"]["models"][name] == recipe.as_config(), name
        assert cfg["retraining"]["models"][name]["overrides"] == {}  # the published networks
    assert {k: cfg["search"][k] for k in PAPER_SEARCH} == PAPER_SEARCH
    assert cfg["seeds"]["n_models"] == PAPER_SEEDS["n_models"] == 120


def test_the_bug_this_replaces_empty_mapping_does_not_remove(repo):
    """What the old paper.yaml did (``overrides: {}``) leaves config.yaml's CPU widths in place."""
    base = {"retraining": {"models": {"vgg_15_BN_64": {"overrides": {"channels": [8, 16, 32, 32, 32]}}}}}
    update_config(base, {"retraining": {"models": {"vgg_15_BN_64": {"overrides": {}}}}})
    assert base["retraining"]["models"]["vgg_15_BN_64"]["overrides"] == {"channels": [8, 16, 32, 32, 32]}


def test_section_values_win_over_the_scale():
    search = resolve_search({"scale": "paper", "n_models": 4})
    assert search["n_models"] == 4 and search["depth"] == 110
    rt = resolve_retraining({"scale": "paper", "models": {"vgg16_keras": {"train": {"epochs": 3}}}})
    train = rt["models"]["vgg16_keras"]["train"]
    assert train["epochs"] == 3 and train["weight_decay_scope"] == "keras_kernels"
    assert PAPER_RETRAINING["vgg16_keras"].train["epochs"] == 250  # the recipe itself is untouched
    with pytest.raises(ValueError, match="search.scale: 'huge'"):
        resolve_search({"scale": "huge"})


def test_cpu_scale_is_the_previous_default():
    assert SEARCH_SCALES["cpu"] == {
        **copy.deepcopy(PAPER_SEARCH),
        "n_models": 12,
        "depth": 8,
        "depth_bottleneck": 11,
        "max_base_channels": 8,
        "epochs": 4,
        "num_checkpoints": 4,
        "train_subset_size": 4000,
    }


def test_every_paper_recipe_value_has_a_source():
    for name, recipe in PAPER_RETRAINING.items():
        assert "architecture" in recipe.sources, name
        for key in ("epochs", "batch_size", "base_lr", "weight_decay"):
            assert key in recipe.sources, (name, key)
        assert any(k in recipe.sources for k in ("schedule",)), name


def test_each_config_file_header_has_one_usage_line(repo):
    """One `snakemake ...` command in the comment block at the top of every config file."""
    for path in sorted((repo / "config").glob("*.yaml")):
        if path.name in ("schema.yaml", "site.yaml"):  # the schema and holdout site's SPEC
            continue
        header = []
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                break
            header.append(line)
        commands = [ln for ln in header if "snakemake " in ln]
        assert len(commands) == 1, (path.name, commands)
        assert "--configfile" in commands[0] or path.name == "config.yaml", path.name
