"""Start-up checks of the workflow's configuration that the JSON schema cannot express.

``config/schema.yaml`` checks each key on its own (types, ranges, defaults). The checks here
span several keys (a grid's start below its stop, a set name that must exist among the
configured sets, a similarity that must be at least that of independent errors at the
configured accuracy), or the files and folders the keys name (the mirror folder, the config
files themselves, the output folders). [`check_startup`][holdout.config.check_startup] runs them all; the workflow
calls it once, right after the schema validation (``workflow/rules/common.smk``).

Every check raises [`ConfigError`][holdout.config.ConfigError] with one line naming the key (or file) and the value.
Each study's checks live in a module of this package named after the study; they import no study
package (those load numpy, pandas or scipy, which the workflow's start-up does without).

All at once
-----------
- [`check_startup`][holdout.config.check_startup]         every check below, then the output folders' writability.
- [`ConfigError`][holdout.config.ConfigError]           what every check raises: one line naming the key or file.

Config files ([`holdout.config.files`][holdout.config.files])
-------------------------------------------------
- [`load_config_file`][holdout.config.load_config_file]      a YAML file read strictly (a key given twice is an error).
- [`load_yaml_strict`][holdout.config.load_yaml_strict]      the same for text.
- [`check_config_files`][holdout.config.check_config_files]    each file loads to a mapping.
- [`check_unknown_keys`][holdout.config.check_unknown_keys]    a misspelt key named, with the closest known one.
- [`schema_error`][holdout.config.schema_error]          the schema's refusal as one line naming the key.

One module per study
--------------------
- [`check_names`][holdout.config.check_names], [`check_data`][holdout.config.check_data]
  ([`holdout.config.data`][holdout.config.data]): names that become paths, the mirror folder.
- [`check_similarity`][holdout.config.check_similarity] ([`holdout.config.similarity`][holdout.config.similarity])
- [`check_bounds`][holdout.config.check_bounds] ([`holdout.config.bounds`][holdout.config.bounds])
- [`check_adversarial`][holdout.config.check_adversarial] ([`holdout.config.adversarial`][holdout.config.adversarial])
- [`check_adaptive`][holdout.config.check_adaptive] ([`holdout.config.adaptive`][holdout.config.adaptive])
- [`check_leaderboards`][holdout.config.check_leaderboards]
  ([`holdout.config.leaderboards`][holdout.config.leaderboards])
- [`check_retraining`][holdout.config.check_retraining] ([`holdout.config.retraining`][holdout.config.retraining])

Also importable from here (documented in their modules): ``check_audit``
([`holdout.config.audit`][holdout.config.audit]); ``check_leaderboard_files``, ``check_leaderboard_pair``,
``check_livecodebench_keys`` (the leaderboards jobs check the same keys); ``check_writable``;
``builtin_prediction_sets``, ``known_prediction_sets``, ``OUTPUT_FOLDERS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

# Names not in __all__ (F401): importable from here as always, documented in their modules.
from holdout.config._base import LOG, OUTPUT_FOLDERS, Config, ConfigError  # noqa: F401
from holdout.config.adaptive import check_adaptive
from holdout.config.adversarial import check_adversarial
from holdout.config.audit import check_audit  # noqa: F401
from holdout.config.bounds import check_bounds
from holdout.config.data import builtin_prediction_sets, check_data, check_names, known_prediction_sets  # noqa: F401
from holdout.config.files import (  # noqa: F401
    check_config_files,
    check_unknown_keys,
    check_writable,
    load_config_file,
    load_yaml_strict,
    schema_error,
)
from holdout.config.leaderboards import (  # noqa: F401
    check_leaderboard_files,
    check_leaderboard_pair,
    check_leaderboards,
    check_livecodebench_keys,
)
from holdout.config.retraining import check_retraining
from holdout.config.similarity import check_similarity

__all__ = [
    "ConfigError",
    "check_adaptive",
    "check_adversarial",
    "check_bounds",
    "check_config_files",
    "check_data",
    "check_leaderboards",
    "check_names",
    "check_retraining",
    "check_similarity",
    "check_startup",
    "check_unknown_keys",
    "load_config_file",
    "load_yaml_strict",
    "schema_error",
]


def check_startup(
    config: Config,
    configfiles: Iterable[str | Path] = (),
    workdir: str | Path = ".",
) -> None:
    """Every check of this package, in order: config files, data, similarity, bounds,
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
