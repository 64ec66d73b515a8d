"""One safe-name rule for every config name that becomes a path (schema pattern AND library check),
and unknown keys / unknown set names as errors naming the closest known one."""

from __future__ import annotations

import copy
import glob
from pathlib import Path

import jsonschema
import pytest
from small_configs import read_yaml

from holdout import config as C
from holdout.data import availability as av
from holdout.data.fetch import source_of
from holdout.data.names import NAME_PATTERN, RELPATH_PATTERN, UnsafeNameError, check_name, check_relpath

REPO = Path(__file__).resolve().parents[2]
SCHEMA = read_yaml(REPO / "config/schema.yaml")
#: YAML files in config/ that are not workflow configs: the schema and holdout site's SPEC
NOT_WORKFLOW_CONFIGS = {"schema.yaml", "site.yaml"}
BAD_NAMES = ["../evil", "..", "a/b", "/abs", ".hidden", "a\\b", "", "x" * 200, "tab\tname", "é"]


@pytest.fixture(scope="module")
def default_config():
    from snakemake.utils import validate

    cfg = read_yaml(REPO / "config/config.yaml")
    validate(cfg, str(REPO / "config/schema.yaml"))
    return cfg


@pytest.fixture
def cfg(default_config):
    return copy.deepcopy(default_config)


def _schema_errors(config: dict) -> list[str]:
    validator = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
    return [e.message for e in validator.iter_errors(config)]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_check_name_refuses_what_could_leave_its_folder(name):
    with pytest.raises(UnsafeNameError, match="data.x: .* is not a safe name"):
        check_name(name, "data.x")


@pytest.mark.parametrize("rel", ["../x", "a/../../b", "/etc/passwd", "a//b", "a/.b", "a\\b", ""])
def test_check_relpath_refuses_escapes(rel):
    with pytest.raises(UnsafeNameError, match="not a safe relative path"):
        check_relpath(rel, "data.checksums")


def test_shipped_names_are_safe():
    for f in ["config/config.yaml", "config/offline.yaml", "config/paper.yaml", *glob.glob(".test/*/config.yaml")]:
        data = (read_yaml(REPO / f) or {}).get("data", {}) or {}
        for rel in data.get("checksums", {}) or {}:
            check_relpath(rel, f)
        for name in [*(data.get("imagenet_datasets") or {}).items(), *(data.get("imagenet_models") or [])]:
            for n in name if isinstance(name, tuple) else [name]:
                check_name(n, f)


# one case per name-bearing key: (where, how to put the bad name there)
KEYS = {
    "data.imagenet_datasets KEY": lambda c, bad: c["data"]["imagenet_datasets"].update({bad: "imagenetv2-b-33"}),
    "data.imagenet_datasets value": lambda c, bad: c["data"]["imagenet_datasets"].update({"x": bad}),
    "data.imagenet_models entry": lambda c, bad: c["data"]["imagenet_models"].append(bad),
    "data.cifar10_1_models KEY": lambda c, bad: c["data"]["cifar10_1_models"].update({bad: "ResNet"}),
    "data.user_predictions name": lambda c, bad: c["data"].update(
        user_predictions=[{"name": bad, "predictions": "p.csv", "labels": "y.npy"}]
    ),
    "audit.user KEY": lambda c, bad: c.setdefault("audit", {}).setdefault("user", {}).update({bad: {}}),
    "retraining.table2_models entry": lambda c, bad: c["retraining"]["table2_models"].append(bad),
    "retraining.models KEY": lambda c, bad: c["retraining"]["models"].update({bad: {}}),
    "adversarial_imagenet.models entry": lambda c, bad: c["adversarial_imagenet"]["models"].append(bad),
    "leaderboards.pairs KEY (a study name)": lambda c, bad: c["leaderboards"]["pairs"].update(
        {bad: {"source": "evalplus", "original": "mbpp", "new": "mbpp+", "n_original": 3, "n_new": 3}}
    ),
}


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("bad", ["../../outside", "a/b"])
def test_every_name_bearing_key_is_refused_by_schema_and_startup_check(cfg, key, bad):
    KEYS[key](cfg, bad)
    assert _schema_errors(cfg), f"the schema accepts {bad!r} as {key}"
    with pytest.raises(C.ConfigError, match=r"is not a safe name"):
        C.check_names(cfg)


@pytest.mark.parametrize("section", ["data", "leaderboards"])
def test_checksum_key_is_refused_by_schema_and_startup_check(cfg, section):
    cfg[section]["checksums"]["../../x.npy"] = "md5:" + "0" * 32
    assert _schema_errors(cfg)
    with pytest.raises(C.ConfigError, match=f"{section}.checksums: '../../x.npy' is not a safe relative path"):
        C.check_names(cfg)


def test_timm_set_names_become_paths_and_are_checked(cfg):
    pair = {"source": "timm", "original": "imagenet", "new": "../../x", "n_original": 5, "n_new": 5}
    cfg["leaderboards"]["pairs"]["mine"] = pair
    with pytest.raises(C.ConfigError, match=r"leaderboards.pairs.mine.new: '../../x' is not a safe name"):
        C.check_names(cfg)
    cfg["leaderboards"]["pairs"]["mine"] = pair | {"source": "evalplus", "new": "mbpp+"}  # a JSON key: any text
    C.check_names(cfg)


def test_library_checks_where_the_path_is_built(cfg):
    """Download mode too: the name is checked before it is appended to a URL or a folder."""
    with pytest.raises(UnsafeNameError, match="data.imagenet_models"):
        av.imagenet_prediction_files("imagenetv2-b-33", ["../../../../tmp/x"])
    with pytest.raises(UnsafeNameError, match="data.imagenet_datasets"):
        av.imagenet_prediction_files("../..", ["alexnet"])
    with pytest.raises(UnsafeNameError, match="data.cifar10_1_models"):
        av.c101_prediction_files("v4", {"../x": "X"})
    data = cfg["data"] | {"imagenet_datasets": {"../up": "imagenetv2-b-33"}}
    with pytest.raises(UnsafeNameError, match="data.imagenet_datasets"):
        av.builtin_sets(data)
    with pytest.raises(UnsafeNameError, match="not a safe relative path"):
        source_of("ImageNetV2/../../x", None, {"ImageNetV2/": "https://example.org/"})
    with pytest.raises(UnsafeNameError):
        source_of("../x", "/tmp", {})


def test_schema_patterns_are_the_library_patterns():
    text = (REPO / "config/schema.yaml").read_text()
    assert text.count(f'"{NAME_PATTERN}"') >= 6 and f'"{RELPATH_PATTERN}"' in text


# --- unknown keys and unknown set names ---------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "typo", "closest"),
    [
        ((), "similarty", "similarity"),
        (("data",), "imagenet_dataset", "imagenet_datasets"),
        (("audit",), "rvw_c", "rvw_C"),
        (("adaptive",), "n_split", "n_splits"),
    ],
)
def test_unknown_key_names_it_and_the_closest(path, typo, closest):
    config: dict = {}
    node = config
    for p in path:
        node = node.setdefault(p, {})
    node[typo] = 1
    where = ".".join([*path, typo])
    with pytest.raises(C.ConfigError, match=rf"^{where}: unknown config key; did you mean '{closest}'\?"):
        C.check_unknown_keys(config, REPO / "config/schema.yaml")


def test_unknown_key_in_a_list_of_mappings_and_a_mapping_of_mappings():
    schema = REPO / "config/schema.yaml"
    with pytest.raises(C.ConfigError, match=r"data.user_predictions\[0\].label: unknown .* 'labels'"):
        C.check_unknown_keys({"data": {"user_predictions": [{"name": "a", "label": "y"}]}}, schema)
    with pytest.raises(C.ConfigError, match=r"audit.user.mine.search_sise: unknown .* 'search_size'"):
        C.check_unknown_keys({"audit": {"user": {"mine": {"search_sise": 3}}}}, schema)


def test_every_shipped_config_has_only_known_keys():
    files = sorted(glob.glob(str(REPO / "config/*.yaml")) + glob.glob(str(REPO / ".test/*/config.yaml")))
    files = [f for f in files if Path(f).name not in NOT_WORKFLOW_CONFIGS]
    assert len(files) >= 10
    for f in files:
        C.check_unknown_keys(read_yaml(Path(f)) or {}, SCHEMA)


def test_audit_user_set_must_be_a_user_set(cfg):
    cfg["data"]["user_predictions"] = [{"name": "mine", "predictions": "p.csv", "labels": "y.npy"}]
    cfg["audit"]["user"] = {"mien": {"search_size": 4}}
    with pytest.raises(
        C.ConfigError, match=r"audit.user: 'mien' is not a data.user_predictions name; did you mean 'mine'"
    ):
        C.check_audit(cfg)
    cfg["audit"]["user"] = {"mine": {"new_set": "mine_v2"}}
    with pytest.raises(C.ConfigError, match=r"audit.user.mine.new_set: 'mine_v2'"):
        C.check_audit(cfg)
    cfg["audit"]["user"] = {"mine": {"search_size": 4}}
    C.check_audit(cfg)


def test_adaptive_set_typo_is_named(cfg):
    cfg["adaptive"]["sets"] = ["cifar10_1_v4", "cifar10_1_v5"]
    with pytest.raises(C.ConfigError, match=r"adaptive.sets: 'cifar10_1_v5' .*did you mean 'cifar10_1_v6'"):
        C.check_adaptive(cfg)


def test_every_shipped_config_validates_with_the_patterns():
    files = [f for f in glob.glob(str(REPO / "config/*.yaml")) + glob.glob(str(REPO / ".test/*/config.yaml"))]
    files = [f for f in files if Path(f).name not in NOT_WORKFLOW_CONFIGS]
    for f in files:
        config = read_yaml(Path(f)) or {}
        assert not _schema_errors(config), (f, _schema_errors(config)[:2])
        C.check_names(config)
