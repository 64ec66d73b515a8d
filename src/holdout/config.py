"""Start-up checks of the workflow's configuration that the JSON schema cannot express.

``config/schema.yaml`` checks each key on its own (types, ranges, defaults). The checks here
span several keys (a grid's start below its stop, a set name that must exist among the
configured sets, a similarity that must be at least that of independent errors at the
configured accuracy), or the files and folders the keys name (the mirror folder, the config
files themselves, the output folders). [`check_startup`][holdout.config.check_startup] runs them all; the workflow
calls it once, right after the schema validation (``workflow/rules/common.smk``).

Every check raises [`ConfigError`][holdout.config.ConfigError] with one line naming the key (or file) and the value.
"""

from __future__ import annotations

import difflib
import logging
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "OUTPUT_FOLDERS",
    "ConfigError",
    "builtin_prediction_sets",
    "check_adaptive",
    "check_adversarial",
    "check_audit",
    "check_bounds",
    "check_config_files",
    "check_data",
    "check_leaderboard_files",
    "check_leaderboard_pair",
    "check_leaderboards",
    "check_livecodebench_keys",
    "check_names",
    "check_retraining",
    "check_similarity",
    "check_startup",
    "check_unknown_keys",
    "check_writable",
    "schema_error",
    "known_prediction_sets",
    "load_config_file",
    "load_yaml_strict",
]

#: Warnings go to Snakemake's logger (shown with its other start-up messages).
LOG = logging.getLogger("snakemake.holdout.config")

#: Folders (relative to the working directory) the workflow writes into.
OUTPUT_FOLDERS = ("results", "resources", "logs")

Config = Mapping[str, Any]


class ConfigError(ValueError):
    """A configuration value (or a file or folder it names) is unusable; the message names it."""


# ---------------------------------------------------------------------------
# config files
# ---------------------------------------------------------------------------


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last silently)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call]
        if key in seen:
            raise yaml.MarkedYAMLError(
                problem=f"key {key!r} appears twice in one mapping (first on line {seen[key] + 1}); "
                "the last one would silently win",
                problem_mark=key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


class _FastStrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """`_StrictLoader` on libyaml's parser (4x faster: the workflow reads its config files
    at every start, each SLURM job included)."""


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_FastStrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml_strict(text: str) -> Any:
    """``yaml.safe_load`` that also refuses a key given twice in one mapping.

    Raises `yaml.MarkedYAMLError` (its message has the line and column) for both
    syntax errors and duplicate keys. Parsed with libyaml when PyYAML has it; a document it
    refuses is parsed again by the pure-Python parser, so that errors read the same everywhere.
    """
    try:
        return yaml.load(text, Loader=_FastStrictLoader)
    except yaml.YAMLError:
        return yaml.load(text, Loader=_StrictLoader)


def load_config_file(path: str | Path) -> Any:
    """Read a YAML (or JSON) config file strictly: a syntax error or a duplicate key raises
    [`ConfigError`][holdout.config.ConfigError] with the file, line and column."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc})") from exc
    try:
        return load_yaml_strict(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        what = " ".join(str(x) for x in (exc.context, exc.problem) if x)
        raise ConfigError(f"{path}{where}: {what}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from exc


def check_config_files(paths: Iterable[str | Path]) -> None:
    """Each config file loads strictly (see [`load_config_file`][holdout.config.load_config_file]) to a mapping."""
    for path in paths:
        data = load_config_file(path)
        if data is not None and not isinstance(data, dict):
            raise ConfigError(f"{path}: a config file must be a mapping of keys, got {type(data).__name__}")


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def builtin_prediction_sets(config: Config) -> list[str]:
    """Names of the prediction sets the data stage builds from public data."""
    return ["cifar10_1_v4", "cifar10_1_v6", "cifar10_original", *config["data"].get("imagenet_datasets", {})]


def known_prediction_sets(config: Config) -> list[str]:
    """Every prediction set name the config defines: the built-in ones and ``user_<name>``."""
    users = [f"user_{u['name']}" for u in config["data"].get("user_predictions", [])]
    return builtin_prediction_sets(config) + users


def _closest(word: str, known: Iterable[str]) -> str:
    match = difflib.get_close_matches(str(word), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


def _unknown_in(value: Any, schema: Mapping[str, Any], key: str) -> list[str]:
    """Problems (one line each) of ``value`` against the ``properties`` of ``schema`` where it
    forbids other keys, recursively (mappings, mappings of mappings, lists of mappings)."""
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [p for i, v in enumerate(value) for p in _unknown_in(v, schema["items"], f"{key}[{i}]")]
    if not isinstance(value, Mapping):
        return []
    props = schema.get("properties", {}) or {}
    extra = schema.get("additionalProperties", True)
    problems = []
    for name, sub in value.items():
        where = f"{key}.{name}" if key else str(name)
        if name in props:
            problems += _unknown_in(sub, props[name], where)
        elif extra is False:
            known = ", ".join(sorted(props)) if len(props) <= 12 else f"{len(props)} keys, see config/schema.yaml"
            problems.append(
                f"{where}: unknown config key{_closest(name, props)} (known under {key or 'the top level'}: {known})"
            )
        elif isinstance(extra, Mapping):
            problems += _unknown_in(sub, extra, where)
    return problems


def check_unknown_keys(config: Config, schema: Mapping[str, Any] | str | Path) -> None:
    """Every key of ``config`` is one the schema knows (where the schema forbids others): a
    misspelt key is an error naming it and the closest known key (difflib), not silently ignored.

    Run before the schema validation, whose message for an unknown key names neither."""
    if not isinstance(schema, Mapping):
        schema = load_config_file(schema)
    problems = _unknown_in(config, schema, "")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ConfigError(problems[0] + more)


def schema_error(exc: BaseException) -> ConfigError:
    """The schema validation's refusal (Snakemake's ``WorkflowError`` around a jsonschema
    ``ValidationError``, printed with the whole schema) as one line naming the key:
    ``config key audit.rvw_C: 0.5 is less than the minimum of 1 (see config/schema.yaml)``."""
    import jsonschema

    err = exc if isinstance(exc, jsonschema.ValidationError) else exc.__context__  # raised in its `except`
    if not isinstance(err, jsonschema.ValidationError):
        err = next((a for a in getattr(exc, "args", ()) if isinstance(a, jsonschema.ValidationError)), None)
    if err is None:
        return ConfigError(f"config: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}")
    key = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in err.absolute_path).lstrip(".")
    return ConfigError(f"config key {key or 'the top level'}: {err.message[:300]} (see config/schema.yaml)")


def _mapping(value: Any) -> Mapping[Any, Any]:
    return value if isinstance(value, Mapping) else {}  # another type: the schema names it


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def check_names(config: Config) -> None:
    """Every config name that becomes part of a path is safe
    ([`check_name`][holdout.data.names.check_name], [`check_relpath`][holdout.data.names.check_relpath]):
    set names, dataset keys and folders, model names, mirror-relative paths, user set names.
    Runs before the schema validation too (its message for a pattern names no key)."""
    from holdout.data.names import UnsafeNameError, check_name, check_relpath

    data = _mapping(config.get("data"))
    try:
        for key, folder in _mapping(data.get("imagenet_datasets")).items():
            check_name(key, "data.imagenet_datasets")
            check_name(folder, f"data.imagenet_datasets.{key}")
        for model in _list(data.get("imagenet_models")):
            check_name(model, "data.imagenet_models")
        for model in _mapping(data.get("cifar10_1_models")):
            check_name(model, "data.cifar10_1_models")
        for rel in _mapping(data.get("checksums")):
            check_relpath(rel, "data.checksums")
        for i, entry in enumerate(_list(data.get("user_predictions"))):
            check_name(_mapping(entry).get("name"), f"data.user_predictions[{i}].name")
        for name in _mapping(_mapping(config.get("audit")).get("user")):
            check_name(name, "audit.user")
        retraining = _mapping(config.get("retraining"))
        for name in [*_list(retraining.get("table2_models")), *_mapping(retraining.get("models"))]:
            check_name(name, "retraining.table2_models / retraining.models")
        for name in _list(_mapping(config.get("adversarial_imagenet")).get("models")):
            check_name(name, "adversarial_imagenet.models")
        lb = _mapping(config.get("leaderboards"))
        for rel in _mapping(lb.get("checksums")):
            check_relpath(rel, "leaderboards.checksums")
        for name, pair in _mapping(lb.get("pairs")).items():
            check_name(name, "leaderboards.pairs")
            if _mapping(pair).get("source") == "timm":  # timm's set names become file names and URLs
                for side in ("original", "new"):
                    check_name(_mapping(pair).get(side), f"leaderboards.pairs.{name}.{side}")
    except UnsafeNameError as exc:
        raise ConfigError(str(exc)) from None


def check_data(config: Config, workdir: str | Path = ".") -> None:
    """``data.mirror`` is an existing folder; ``data.user_predictions`` names are unique."""
    check_names(config)
    data = config["data"]
    mirror = data.get("mirror")
    if mirror:
        folder = Path(workdir, Path(mirror).expanduser()).resolve()
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"data.mirror: {folder} is a file, not a folder: give the folder that holds the mirror")
        if not folder.is_dir():
            raise ConfigError(f"data.mirror: folder {folder} does not exist")
    names = [u["name"] for u in data.get("user_predictions", [])]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise ConfigError(f"data.user_predictions: name {', '.join(map(repr, dups))} given more than once")


# ---------------------------------------------------------------------------
# similarity
# ---------------------------------------------------------------------------


def _check_names(key: str, names: Sequence[str], allowed: Sequence[str], what: str) -> None:
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ConfigError(f"{key}: {', '.join(map(repr, unknown))} not among {what} ({', '.join(allowed)})")


def check_similarity(config: Config) -> None:
    """Set names exist (a warning for ``table1.sets`` outside ``sets``); ``eta.min <= eta.max``."""
    sim = config["similarity"]
    known = known_prediction_sets(config)
    _check_names("similarity.sets", sim["sets"], known, "the configured prediction sets")
    _check_names("similarity.table1.sets", sim["table1"]["sets"], known, "the configured prediction sets")
    _check_names("similarity.setting_set", [sim["setting_set"]], known, "the configured prediction sets")
    skipped = [s for s in sim["table1"]["sets"] if s not in sim["sets"]]
    if skipped and sim.get("enabled", True):
        LOG.warning(f"similarity.table1.sets: {', '.join(skipped)} not in similarity.sets: no Table-1 rows for them")
    dups = sorted({s for s in sim["sets"] if sim["sets"].count(s) > 1})
    if dups:
        raise ConfigError(f"similarity.sets: {', '.join(map(repr, dups))} listed more than once")
    eta = sim["eta"]
    if eta["min"] > eta["max"]:
        raise ConfigError(f"similarity.eta: min = {eta['min']} is above max = {eta['max']}")
    names = [s["name"] for s in sim["table1"]["subsets"]]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise ConfigError(f"similarity.table1.subsets: name {', '.join(map(repr, dups))} given more than once")


# ---------------------------------------------------------------------------
# bounds
# ---------------------------------------------------------------------------


def _independent_similarity(accuracy: float) -> float:
    """mu^2 + (1 - mu)^2 for error mu = 1 - accuracy (Mania et al. Sec. 5.1)."""
    from holdout.stats import independent_similarity  # numpy: imported only when bounds are checked

    return independent_similarity(1.0 - float(accuracy))


def _check_above_independent(key: str, similarity: float, accuracy: float, accuracy_key: str) -> None:
    floor = _independent_similarity(accuracy)
    if float(similarity) < floor - 1e-12:
        raise ConfigError(
            f"{key} = {similarity} is below the independent-errors similarity {floor:.6g} at "
            f"{accuracy_key} = {accuracy} (the bounds need a similarity at least that large)"
        )


def check_bounds(config: Config) -> None:
    """Fig. 2 grids run upwards; similarities are at least the independent-errors similarity.

    The similarity and naive-Bayes bounds of Mania et al. need the coupling of Appendix B,
    which exists only for a similarity >= mu^2 + (1 - mu)^2. With ``bounds.setting_from:
    config`` the accuracy is known here; with ``measured`` the bounds stage checks the grid
    against the measured accuracy ([`holdout.bounds.study.gain_grid`][holdout.bounds.study.gain_grid]).
    """
    b = config["bounds"]
    for panel in ("similarity", "eps"):
        grid = b["figure2"][panel]
        if grid["start"] >= grid["stop"]:
            raise ConfigError(f"bounds.figure2.{panel}: start = {grid['start']} must be below stop = {grid['stop']}")
    if b["setting_from"] == "config":
        acc = b["setting"]["mean_accuracy"]
        _check_above_independent(
            "bounds.setting.similarity", b["setting"]["similarity"], acc, "bounds.setting.mean_accuracy"
        )
        _check_above_independent(
            "bounds.figure2.similarity.start", b["figure2"]["similarity"]["start"], acc, "bounds.setting.mean_accuracy"
        )
    for i, row in enumerate(b["table1"]["rows"]):
        _check_above_independent(
            f"bounds.table1.rows[{i}].mean_similarity",
            row["mean_similarity"],
            row["mean_accuracy"],
            f"bounds.table1.rows[{i}].mean_accuracy",
        )


# ---------------------------------------------------------------------------
# adversarial
# ---------------------------------------------------------------------------


def check_adversarial(config: Config) -> None:
    """Synthetic study: ``eps_grid.min <= max``; ``batch_size`` divides each case's training set."""
    syn = config["adversarial"]["synthetic"]
    if syn["eps_grid"]["min"] > syn["eps_grid"]["max"]:
        raise ConfigError(
            f"adversarial.synthetic.eps_grid: min = {syn['eps_grid']['min']} is above max = {syn['eps_grid']['max']}"
        )
    shared = round(syn["dependent_train_fraction"] * syn["n_test_dependent"])
    sizes = {
        "independent": syn["n_train"],
        "dependent": shared + (syn["n_train"] if syn["dependent_mode"] == "join" else 0),
    }
    for case, size in sizes.items():
        if size % syn["batch_size"]:
            raise ConfigError(
                f"adversarial.synthetic.batch_size = {syn['batch_size']} does not divide the {case} "
                f"training set of {size} points (n_train, n_test_dependent, dependent_train_fraction, "
                "dependent_mode)"
            )


# ---------------------------------------------------------------------------
# audit, adaptive: set names in lists and mappings
# ---------------------------------------------------------------------------


def _check_known_sets(key: str, names: Iterable[str], known: Sequence[str], hint: str) -> None:
    for name in names:
        if name not in known:
            raise ConfigError(f"{key}: {name!r} is not {hint}{_closest(name, known)} (known: {', '.join(known)})")


def check_audit(config: Config) -> None:
    """Each ``audit.user`` key and ``new_set`` is a ``data.user_predictions`` name."""
    audit = config.get("audit", {}) or {}
    users = [u["name"] for u in config["data"].get("user_predictions", [])]
    user = audit.get("user") or {}
    _check_known_sets("audit.user", user, users, "a data.user_predictions name")
    for name, opts in user.items():
        if (opts or {}).get("new_set") is not None:
            _check_known_sets(f"audit.user.{name}.new_set", [opts["new_set"]], users, "a data.user_predictions name")


def check_adaptive(config: Config, workdir: str | Path = ".") -> None:
    """Each ``adaptive.sets`` entry is a prediction set the config defines (built-in or user_<name>);
    with the study on, each user set has the models the attacks need (its file's header read):
    ``adaptive.subset_size`` models per random ensemble, one model left by ``adaptive.exclude_models``,
    ``adaptive.base_model`` among them."""
    ad = _mapping(config.get("adaptive"))
    sets = ad.get("sets") or []
    _check_known_sets("adaptive.sets", sets, known_prediction_sets(config), "a configured prediction set")
    if not ad.get("enabled", True):
        return
    users = {f"user_{u.get('name')}": u for u in _list(_mapping(config.get("data")).get("user_predictions"))}
    for name in (s for s in sets if s in users):
        path = Path(workdir, Path(str(users[name].get("predictions"))).expanduser())
        models = _user_set_models(users[name], path)
        if models is not None:
            _check_adaptive_models(ad, name, models, path)


def _check_adaptive_models(ad: Mapping[str, Any], name: str, models: list[str], path: Path) -> None:
    kept = [m for m in models if m not in set(_list(ad.get("exclude_models")))]
    if not kept:
        raise ConfigError(f"adaptive.exclude_models: leaves none of the {len(models)} models of {name} ({path})")
    size = ad.get("subset_size", 5)
    if "ensemble" in _list(ad.get("attacks", ["ensemble"])) and len(kept) < size:
        raise ConfigError(
            f"adaptive.subset_size: {size} models per random ensemble, but {name} has {len(kept)} ({path}): set "
            f"adaptive.subset_size to at most {len(kept)}, or leave ensemble out of adaptive.attacks or {name} out "
            "of adaptive.sets"
        )
    base = ad.get("base_model")
    if base is not None and base not in kept:
        raise ConfigError(f"adaptive.base_model: {base!r} is not a model of {name} ({path}){_closest(base, kept)}")


def _user_set_models(entry: Mapping[str, Any], path: Path) -> list[str] | None:
    """The model names of a ``data.user_predictions`` entry from its file's header (a .csv's first
    row, an index column left out; a .npy's shape), None where it cannot be read (its conversion
    job names the problem)."""
    import csv

    try:
        if path.suffix.lower() == ".npy":
            import numpy as np

            shape = np.load(path, mmap_mode="r", allow_pickle=False).shape
            k = 1 if len(shape) == 1 else shape[0]
            return [str(m) for m in entry.get("model_names") or [f"model_{i}" for i in range(k)]]
        if path.suffix.lower() == ".csv":
            with open(path, newline="", encoding="utf-8-sig") as fh:
                header = [c.strip() for c in next(csv.reader(fh), [])]
            return header[1:] if header and header[0].lower() in ("", "unnamed: 0", "index") else header
    except (OSError, ValueError, csv.Error):
        return None
    return None


# ---------------------------------------------------------------------------
# output folders
# ---------------------------------------------------------------------------


def check_writable(folders: Iterable[str | Path]) -> None:
    """Every existing folder at or below ``folders`` accepts a new file.

    Tries to create (and removes) a temporary file in each, which also catches read-only
    mounts and access lists that `os.access` misses. Folders that do not exist are
    skipped (the workflow creates them).
    """
    for top in folders:
        top = Path(top)
        if not top.is_dir():
            continue
        for dirpath, _, _ in os.walk(top):
            try:
                fd, probe = tempfile.mkstemp(prefix=".holdout-write-check-", dir=dirpath)
            except OSError as exc:
                raise ConfigError(
                    f"{Path(dirpath).resolve()}: folder is not writable ({exc.strerror}); the workflow "
                    "writes its outputs there: make it writable (chmod u+w) or run in another directory"
                ) from exc
            os.close(fd)
            os.unlink(probe)


# ---------------------------------------------------------------------------
# all at once
# ---------------------------------------------------------------------------


#: the mirror-relative name of a timm results file (leaderboards.checksums keys)
_TIMM_RESULTS = "pytorch-image-models/results/results-{}.csv"


def check_leaderboards(config: Config, workdir: str | Path = ".") -> None:
    """Each timm set of ``leaderboards.pairs`` is a results file with a checksum (a misspelt one
    would silently leave the whole study out), the LiveCodeBench split dates are YYYY-MM-DD, and,
    with the study on, the keys that name parts of its files
    ([`check_leaderboard_files`][holdout.config.check_leaderboard_files])."""
    lb = _mapping(config.get("leaderboards"))
    sums = _mapping(lb.get("checksums"))
    known = sorted(k[len(_TIMM_RESULTS) - 6 : -4] for k in sums if k.startswith(_TIMM_RESULTS[:-6]))
    for name, pair in _mapping(lb.get("pairs")).items():
        if _mapping(pair).get("source") != "timm":
            continue
        for side in ("original", "new"):
            key = f"leaderboards.pairs.{name}.{side}"
            _check_known_sets(key, [pair.get(side)], known, "a timm results set with a checksum")
    lcb = _mapping(lb.get("livecodebench"))
    splits = [("split", lcb.get("split"))] + [
        (f"placebo_splits[{i}]", v) for i, v in enumerate(_list(lcb.get("placebo_splits")))
    ]
    for key, value in splits:
        if value is not None and not _is_day(str(value)):
            raise ConfigError(f"leaderboards.livecodebench.{key}: {value!r} is not a date written YYYY-MM-DD")
    if lb.get("enabled", True):
        check_leaderboard_files(config, workdir)


#: the mirror-relative names of the testbed, EvalPlus and LiveCodeBench files
_TESTBED, _EVALPLUS = "imagenet-testbed/robustness_top1s.csv", "evalplus/results.json"
_LCB = "livecodebench/src/mocks/performances_generation.json"


def _leaderboard_file(config: Config, relpath: str, workdir: str | Path) -> Path | None:
    """The local copy of a leaderboard input: in ``data.mirror``, or fetched by an earlier run;
    None before it is downloaded (the job then checks the same keys)."""
    mirror = _mapping(config.get("data")).get("mirror")
    places = [Path(workdir, Path(mirror).expanduser(), relpath)] if mirror else []
    places.append(Path(workdir, "resources/leaderboards/raw", relpath))
    return next((p for p in places if p.is_file()), None)


def _unreadable(path: Path, exc: BaseException) -> ConfigError:
    return ConfigError(
        f"{path}: unreadable ({type(exc).__name__}); restore it (leaderboards.checksums holds its checksum)"
    )


def _testbed_columns(path: Path) -> list[str]:
    """The testbed CSV's columns, from its header line only."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8") as fh:
            return [c for c in next(csv.reader(fh), []) if c != "model"]
    except (OSError, ValueError) as exc:
        raise _unreadable(path, exc) from None


def _evalplus_rates(path: Path) -> dict[str, list[float]]:
    """Every model's pass@1 (percent) in EvalPlus's ``results.json``, by key (humaneval, mbpp+, ...)."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _unreadable(path, exc) from None
    out: dict[str, list[float]] = {}
    for row in data.values() if isinstance(data, Mapping) else []:
        for key, value in _mapping(_mapping(row).get("pass@1")).items():
            if isinstance(value, (int, float)):
                out.setdefault(key, []).append(float(value))
    return out


def _check_evalplus_size(key: str, n: Any, rates: list[float], set_name: str, path: str | Path) -> None:
    """Most pass@1 values of a set of n problems are k/n in percent, to one decimal: a size that half
    of them do not fit is not the set's (the fits would leave those models out as another version's)."""
    if not isinstance(n, int) or n < 1 or not rates:
        return
    fit = sum(abs(round(v * n / 100) / n * 100 - v) <= 0.05 + 1e-9 for v in rates)
    if 2 * fit < len(rates):
        raise ConfigError(
            f"{key}: {n} problems, but only {fit} of the {len(rates)} pass@1 values of {set_name!r} in {path} are "
            f"k/{n} (to one decimal): give that set's number of problems"
        )


def check_leaderboard_files(config: Config, workdir: str | Path = ".") -> None:
    """The keys of ``leaderboards`` that name parts of an input file, against the file where it is
    already here ([`check_leaderboard_pair`][holdout.config.check_leaderboard_pair],
    [`check_livecodebench_keys`][holdout.config.check_livecodebench_keys]); a file still to be
    downloaded is checked by its job, with the same messages."""
    lb = _mapping(config.get("leaderboards"))
    for name, pair in _mapping(lb.get("pairs")).items():
        relpath = {"testbed": _TESTBED, "evalplus": _EVALPLUS}.get(_mapping(pair).get("source"))
        path = None if relpath is None else _leaderboard_file(config, relpath, workdir)
        if path is not None:
            check_leaderboard_pair(name, pair, path)
    path = _leaderboard_file(config, _LCB, workdir)
    if path is not None:
        check_livecodebench_keys(_mapping(lb.get("livecodebench")), path)


def check_leaderboard_pair(name: str, pair: Mapping[str, Any], path: str | Path) -> None:
    """``leaderboards.pairs.<name>``'s original and new set are columns of the testbed CSV (its
    header line only) or pass@1 keys of EvalPlus's ``results.json``, there with sizes the values
    fit; timm pairs need no file."""
    source = pair.get("source")
    if source not in ("testbed", "evalplus"):
        return
    rates = _evalplus_rates(Path(path)) if source == "evalplus" else {}
    known = sorted(rates) if source == "evalplus" else _testbed_columns(Path(path))
    for side in ("original", "new"):
        value = pair.get(side)
        if value not in known:
            what = "column" if source == "testbed" else "pass@1 key"
            listed = ", ".join(known) if len(known) <= 12 else f"{len(known)} columns"
            raise ConfigError(
                f"leaderboards.pairs.{name}.{side}: {value!r} is not a {what} of {path}{_closest(value, known)} "
                f"({listed})"
            )
        _check_evalplus_size(
            f"leaderboards.pairs.{name}.n_{side}", pair.get(f"n_{side}"), rates.get(value, []), value, path
        )


def check_livecodebench_keys(lcb: Mapping[str, Any], path: str | Path) -> None:
    """``leaderboards.livecodebench``'s ``split`` and each placebo split leave items on both sides
    (a placebo: within the split's side), ``line_models`` and ``families`` name models of the file."""
    import json

    import numpy as np

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        days = np.unique(
            np.array([p["date"] for p in data["performances"]], dtype="datetime64[ms]").astype("datetime64[D]")
        )
        models = [str(m["model_repr"]) for m in data["models"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _unreadable(Path(path), exc) from None
    if not days.size or lcb.get("split") is None:
        return
    split = np.datetime64(str(lcb["split"]), "D")
    span = f"the {days.size} contest days of {path} run from {days[0]} to {days[-1]}"
    if not days[0] < split <= days[-1]:
        empty = "before" if split <= days[0] else "on or after"
        raise ConfigError(
            f"leaderboards.livecodebench.split: {split} leaves no item {empty} it ({span}): "
            f"choose a day after {days[0]} and not after {days[-1]}"
        )
    for i, text in enumerate(_list(lcb.get("placebo_splits"))):
        day = np.datetime64(str(text), "D")
        where = "before" if day < split else "on or after"
        side = days[days < split] if day < split else days[days >= split]
        if not side[0] < day <= side[-1]:
            raise ConfigError(
                f"leaderboards.livecodebench.placebo_splits[{i}]: {day} leaves no item on one side within its "
                f"period (the items {where} the split {split} run from {side[0]} to {side[-1]})"
            )
    named = [("line_models", m) for m in _list(lcb.get("line_models"))]
    named += [(f"families.{f}", m) for f, ms in _mapping(lcb.get("families")).items() for m in _list(ms)]
    for key, model in named:
        if model not in models:
            raise ConfigError(
                f"leaderboards.livecodebench.{key}: {model!r} is not a model of {path}{_closest(model, models)}"
            )


def _is_day(text: str) -> bool:
    import datetime
    import re

    try:
        return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", text)) and bool(datetime.date.fromisoformat(text))
    except ValueError:
        return False


def check_retraining(config: Config) -> None:
    """A scale that trains the published recipes (paper, gpu) needs the full training set: with
    ``retraining.train_per_class`` set it would train them on a few images under a CPU-run note."""
    rt = _mapping(config.get("retraining"))
    scale, per_class = rt.get("scale"), rt.get("train_per_class")
    if scale in ("paper", "gpu") and per_class is not None:
        raise ConfigError(
            f"retraining.scale: {scale} trains on the full training set, but retraining.train_per_class is "
            f"{per_class} ({10 * int(per_class):,} images): set retraining.train_per_class: null (as "
            f"config/{scale}.yaml does), or use retraining.scale: cpu"
        )
    if scale in ("paper", "gpu") and any("scale: cpu" in str(n) for n in _list(rt.get("notes"))):
        raise ConfigError(
            f"retraining.notes: still the CPU run's note under retraining.scale: {scale}; set retraining.notes "
            f"(config/{scale}.yaml has one)"
        )


def check_startup(
    config: Config,
    configfiles: Iterable[str | Path] = (),
    workdir: str | Path = ".",
) -> None:
    """Every check of this module, in order: config files, data, similarity, bounds,
    adversarial, then the writability of the output folders under ``workdir``."""
    check_config_files(configfiles)
    check_data(config, workdir)
    check_similarity(config)
    check_bounds(config)
    check_adversarial(config)
    check_audit(config)
    check_adaptive(config, workdir)
    check_leaderboards(config, workdir)
    check_retraining(config)
    check_writable(Path(workdir, name) for name in OUTPUT_FOLDERS)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m holdout.config FILE...``: check config files' YAML, printing file and line.

    Snakemake 9 loads ``--configfile`` files before any workflow code runs and reports a YAML
    syntax error there without the file or line ("Config file is not valid JSON or YAML");
    this command (or ``snakemake --verbose``) names them.
    """
    import sys

    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print("usage: python -m holdout.config CONFIG.yaml [...]", file=sys.stderr)
        return 2
    try:
        check_config_files(paths)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"ok: {len(paths)} config file(s) are valid YAML without duplicate keys")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
