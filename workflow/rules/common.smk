# Helpers shared by every stage. Config is validated once, here, against
# config/schema.yaml (which also fills in defaults).
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

import holdout.config as holdout_config


def _check_single_configfile_flag(argv):
    """Stop when --configfile is given more than once: Snakemake's argparse keeps only the
    last flag's files, so `--configfile config/offline.yaml --configfile mine.yaml` would
    silently drop offline.yaml (its mirror checksums included). One flag takes several files."""
    flags = [a for a in argv if a.split("=", 1)[0] in ("--configfile", "--configfiles")]
    if len(flags) > 1:
        raise WorkflowError(
            f"--configfile is given {len(flags)} times; Snakemake would use only the last one's "
            "files. Give every file after one flag: --configfile config/offline.yaml mine.yaml"
        )


_check_single_configfile_flag(sys.argv)
# A misspelt key: one line naming it and the closest known key (the schema's own message names neither).
holdout_config.check_unknown_keys(config, Path(workflow.basedir) / "config/schema.yaml")
holdout_config.check_names(config)  # a name that becomes a path: one line naming the key
try:
    validate(config, "../../config/schema.yaml")
except WorkflowError as exc:  # one line naming the key, not the whole schema
    raise holdout_config.schema_error(exc) from None
# Checks spanning several keys, the config files' YAML, data.mirror and the output folders.
holdout_config.check_startup(config, configfiles=workflow.configfiles, workdir=Path.cwd())

REPO = Path(workflow.basedir)


def log_path(study, name):
    """Log file of a rule: logs/<study>/<name>.log."""
    return f"logs/{study}/{name}.log"


def bench_path(study, name):
    """Benchmark (time, memory) file of a rule: logs/<study>/<name>.benchmark.tsv."""
    return f"logs/{study}/{name}.benchmark.tsv"


def study_enabled(name):
    """True when config[name]['enabled'] is set (each study has the switch)."""
    return bool(config.get(name, {}).get("enabled", True))


def attempt_scaled(base):
    """A resource that grows with each retry: ``base`` on the first attempt, ``2 * base`` on the second, ...

    Used for ``mem_mb`` and ``runtime`` so that a job killed for memory or time on a cluster
    asks for more when Snakemake retries it (``retries:`` in the profile).
    """
    return lambda wildcards, attempt: base * attempt
