"""A throw-away single-node SLURM cluster on loopback, for tests.

:func:`start_cluster` writes ``slurm.conf`` into a
temporary folder, starts ``slurmctld`` and ``slurmd`` in the foreground
(``-D``) as child processes, waits until ``sinfo`` reports the node idle and
returns a :class:`Cluster`. :meth:`Cluster.stop` terminates exactly the two
processes it started (by pid). Nothing is installed here: the daemons come
from Debian's ``slurmctld`` / ``slurmd`` / ``slurm-client`` packages, which
``.ci/run`` installs where apt is available.

Design choices (slurm 22.05, Debian 12):

* ``AuthType=auth/none`` and ``CredType=cred/none``: no munge daemon to run;
  acceptable because every daemon listens on 127.0.0.1 in a private folder.
* No accounting daemon: ``AccountingStorageType=accounting_storage/none`` and a
  long ``MinJobAge`` so that finished jobs stay visible to ``squeue``. The
  Snakemake SLURM executor plugin is told to poll with ``squeue``
  (``--slurm-status-command squeue``), which it accepts when ``MinJobAge`` is at
  least three times its initial status-check interval.
* The config lives in a temporary folder and clients find it through
  ``SLURM_CONF``. snakemake-executor-plugin-slurm-jobstep (which runs every rule
  inside its job with ``srun``) strips all ``SLURM_*`` variables, ``SLURM_CONF``
  included, from the inner ``srun``'s environment; on a real cluster that srun
  reads ``/etc/slurm/slurm.conf``. Rather than write into ``/etc``, the cluster
  puts a two-line ``srun`` shim first on ``PATH`` that sets ``SLURM_CONF`` and
  execs the real ``srun``.
* ``ProctrackType=proctrack/linuxproc`` and ``TaskPlugin=task/none``: work in
  containers without a writable cgroup hierarchy.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("slurmctld", "slurmd", "sinfo", "sbatch", "squeue", "scontrol", "srun")
NODE = "holdoutnode"
PARTITION = "debug"


def missing_commands() -> list[str]:
    """SLURM programs absent from PATH (and /usr/sbin, where Debian puts daemons)."""
    path = os.environ.get("PATH", "") + os.pathsep + "/usr/sbin" + os.pathsep + "/sbin"
    return [c for c in DAEMONS if shutil.which(c, path=path) is None]


def _which(cmd: str) -> str:
    path = os.environ.get("PATH", "") + os.pathsep + "/usr/sbin" + os.pathsep + "/sbin"
    found = shutil.which(cmd, path=path)
    if found is None:
        raise FileNotFoundError(cmd)
    return found


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def slurm_conf(root: Path, cpus: int, real_memory_mb: int, user: str) -> str:
    """The text of a single-node ``slurm.conf`` whose state lives under ``root``."""
    ctl_port, d_port = _free_port(), _free_port()
    return f"""\
# Written by tests/infra/slurm_cluster.py: one node on loopback.
ClusterName=holdouttest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctl_port}
SlurmdPort={d_port}
SlurmUser={user}
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# trust the CPUs/RealMemory written here even where the machine has less memory:
# the test's retry asks for 8000 MB, and nothing here allocates that much
SlurmdParameters=config_overrides
MinJobAge=3600
SchedulerParameters=sched_interval=1
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName={NODE} NodeHostname=localhost NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={real_memory_mb} State=UNKNOWN
PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
"""


@dataclass
class Cluster:
    """A running test cluster: its folder, ``SLURM_CONF`` and daemon processes."""

    root: Path
    conf: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        """Environment for client commands (``sbatch``, ``squeue``, snakemake)."""
        env = dict(os.environ)
        env["SLURM_CONF"] = str(self.conf)
        env["PATH"] = os.pathsep.join([str(self.root / "bin"), env.get("PATH", ""), "/usr/sbin"])
        return env

    def run(self, *cmd: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(cmd), env=self.env, capture_output=True, text=True, timeout=timeout)

    def logs(self) -> str:
        """Tail of both daemon logs, for failure messages."""
        out = []
        for name in ("slurmctld.log", "slurmd.log"):
            p = self.root / name
            if p.is_file():
                out.append(f"--- {name} ---\n" + "\n".join(p.read_text().splitlines()[-40:]))
        return "\n".join(out)

    def stop(self) -> None:
        """Terminate the daemons started by :func:`start_cluster` (by pid), then kill."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


def start_cluster(root: Path, cpus: int = 2, real_memory_mb: int = 16000, timeout: float = 60) -> Cluster:
    """Start ``slurmctld`` + ``slurmd`` under ``root``; return once the node is idle.

    Raises ``RuntimeError`` (with the daemon logs) when the node does not come up
    within ``timeout`` seconds; the daemons started so far are stopped first.
    """
    root = root.resolve()
    for sub in ("state", "spool"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    import getpass

    conf = root / "slurm.conf"
    conf.write_text(slurm_conf(root, cpus, real_memory_mb, getpass.getuser()))
    shim = root / "bin" / "srun"
    shim.parent.mkdir(exist_ok=True)
    shim.write_text(f'#!/bin/sh\nSLURM_CONF={conf} exec {_which("srun")} "$@"\n')
    shim.chmod(0o755)
    cluster = Cluster(root=root, conf=conf)
    env = cluster.env
    try:
        for daemon, args in (("slurmctld", ["-D", "-i"]), ("slurmd", ["-D", "-N", NODE])):
            with open(root / f"{daemon}.stdout", "wb") as out:
                cluster.procs.append(
                    subprocess.Popen(
                        [_which(daemon), *args, "-f", str(conf)],
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
            time.sleep(0.5)
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            for proc in cluster.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}\n{cluster.logs()}")
            res = cluster.run("sinfo", "-h", "-n", NODE, "-o", "%t", timeout=10)
            state = res.stdout.strip()
            if res.returncode == 0 and state == "idle":
                return cluster
            time.sleep(0.5)
        raise RuntimeError(f"node {NODE} not idle after {timeout}s (state {state!r})\n{cluster.logs()}")
    except BaseException:
        cluster.stop()
        raise
