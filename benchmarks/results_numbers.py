"""Collect the numbers a study page quotes from a run's result files into ``docs/measurements/``.

    python benchmarks/results_numbers.py adaptive [--load-note TEXT]
    python benchmarks/results_numbers.py leaderboards [--load-note TEXT]

``adaptive`` reads ``results/adaptive/<set>/summary.json``, ``table.csv`` and the rules' benchmark
files (``logs/adaptive/run_<set>.benchmark.tsv``) of the run in the working directory and writes
``docs/measurements/adaptive_results.json``; ``leaderboards`` reads every
``results/leaderboards/fits/<pair>/summary.json`` and ``results/leaderboards/livecodebench/``
(``contamination.json``, ``contamination_checks.csv``) and writes
``docs/measurements/leaderboards_results.json``. ``python benchmarks/update_docs_numbers.py`` then
writes the values into the study pages. So the pages' numbers are those of the re-run, never typed
by hand.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
from pathlib import Path

import pandas as pd
from bench_leaderboards import cpu_model

REPO = Path(__file__).resolve().parents[1]

#: headline columns kept per attack x mechanism (at the attack's largest k)
ADAPTIVE_KEYS = (
    "k",
    "n_guarded",
    "overfit_mean",
    "overfit_sd",
    "overfit_max",
    "overfit_attack_mean",
    "overfit_train_mean",
    "acc_attack",
    "acc_heldout",
    "base_acc_attack",
    "base_acc_heldout",
    "reported_minus_heldout_mean",
    "frac_from_holdout",
    "bound_theorem",
    "bound_if_covering",
)


def _rounded(value: object) -> object:
    return round(value, 6) if isinstance(value, float) else value


def adaptive_set(folder: Path, logs: Path) -> dict[str, object]:
    """One set's headline rows (attack -> mechanism -> values), similarities, the bound at k = 1,
    and the run job's CPU seconds."""
    summary = json.loads((folder / "summary.json").read_text())
    table = pd.read_csv(folder / "table.csv")
    rows: dict[str, dict[str, object]] = {}
    for r in summary["headline"]:
        rows.setdefault(r["attack"], {})[r["mechanism"]] = {k: _rounded(r[k]) for k in ADAPTIVE_KEYS}
    first = table[(table["mechanism"] == "trivial") & (table["k"] == 1) & (table["attack"] == "boosting")]
    sim = table[table["mechanism"] == "trivial"].groupby("attack")["similarity"].mean()
    out: dict[str, object] = {
        "n": summary["n"],
        "num_models": summary["num_models"],
        "models_similarity": round(summary["models_similarity"], 6),
        "query_similarity": {a: round(float(v), 6) for a, v in sim.items()},
        "bound_theorem_k1": round(float(first["bound_theorem"].iloc[0]), 6) if len(first) else None,
        **rows,
    }
    bench = logs / f"run_{folder.name}.benchmark.tsv"
    if bench.is_file():
        out["cpu_s"] = round(float(pd.read_csv(bench, sep="\t")["cpu_time"].iloc[0]), 2)
    return out


def adaptive(results: Path, logs: Path, note: str) -> dict[str, object]:
    sets = sorted(p.parent for p in results.glob("*/summary.json"))
    if not sets:
        raise SystemExit(f"no {results}/<set>/summary.json: run the adaptive targets first")
    return _stamp(
        "adaptive study, default config (10 splits): the headline rows of results/adaptive/<set>/summary.json",
        "snakemake --cores 2 --configfile config/offline.yaml -- results/adaptive/<set>/overfit.png "
        "for the four sets; python benchmarks/results_numbers.py adaptive",
        note,
    ) | {folder.name: adaptive_set(folder, logs) for folder in sets}


def _stamp(what: str, command: str, note: str) -> dict[str, object]:
    return {
        "what": what,
        "command": command,
        "date": datetime.date.today().isoformat(),
        "machine": {"cpu": " ".join(cpu_model().split()[:2]), "cores": os.cpu_count()},
        "load": note or f"load average {os.getloadavg()[0]:.1f} when collected",
    }


def leaderboards(results: Path, note: str) -> dict[str, object]:
    """Every pair's summary.json by name, and LiveCodeBench's contamination summary and checks."""
    pairs = sorted(results.glob("fits/*/summary.json"))
    if not pairs:
        raise SystemExit(f"no {results}/fits/<pair>/summary.json: run the leaderboards targets first")
    lcb = results / "livecodebench"
    checks = pd.read_csv(lcb / "contamination_checks.csv")
    key = checks["check"].str.replace(r"[^A-Za-z0-9]+", "_", regex=True).str.strip("_").str.lower()
    return _stamp(
        "leaderboards study, default config: each pair's summary.json and LiveCodeBench's contamination split",
        "snakemake --cores 2 --configfile config/offline.yaml -- results/leaderboards/fits.csv "
        "results/leaderboards/livecodebench/contamination_checks.csv; "
        "python benchmarks/results_numbers.py leaderboards",
        note,
    ) | {
        "cpu_s": {
            bench.name.split(".")[0]: round(float(pd.read_csv(bench, sep="\t")["cpu_time"].iloc[0]), 2)
            for bench in sorted(Path("logs/leaderboards").glob("*.benchmark.tsv"))
        },
        "pairs": {path.parent.name: json.loads(path.read_text()) for path in pairs},
        "livecodebench": {
            "contamination": json.loads((lcb / "contamination.json").read_text()),
            "lenses": json.loads((lcb / "lenses.json").read_text()),
            "checks": {k: r for k, r in zip(key, checks.to_dict(orient="records"), strict=True)},
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("study", choices=["adaptive", "leaderboards"])
    ap.add_argument("--load-note", default="", help="a word on the machine's load during the run")
    args = ap.parse_args(argv)
    if args.study == "adaptive":
        data = adaptive(Path("results/adaptive"), Path("logs/adaptive"), args.load_note)
    else:
        data = leaderboards(Path("results/leaderboards"), args.load_note)
    dest = REPO / "docs" / "measurements" / f"{args.study}_results.json"
    dest.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {dest.relative_to(REPO)}: now run python benchmarks/update_docs_numbers.py", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
