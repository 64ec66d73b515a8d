"""The small test workflow of the infrastructure tests (tests/infra/slurm_workflow) and the
command runner they share with every other test (tests/snakemake_runner.py)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # snakemake_runner
from snakemake_runner import run_command as run  # noqa: E402
from snakemake_runner import snakemake_command  # noqa: E402

__all__ = ["SEEDS", "TEST_WORKFLOW", "run", "snakemake_cmd"]

TEST_WORKFLOW = HERE / "slurm_workflow" / "Snakefile"
SEEDS = "[0,1]"


def snakemake_cmd(workdir: Path, marker_dir: Path, *extra: str, snakefile: Path = TEST_WORKFLOW) -> list[str]:
    """The small test workflow (or ``snakefile``) with its marker folder and seeds."""
    return snakemake_command(
        workdir,
        snakefile=snakefile,
        config={"marker_dir": marker_dir, "seeds": SEEDS},
        cores=None,
        nolock=False,
        extra=list(extra),
    )
