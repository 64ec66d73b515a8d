"""Summarise one ``gpu_check.sh`` run into ``gpu_check.json`` and print a short table."""

from __future__ import annotations

import argparse
import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path


def _steps(logs: Path) -> list[dict[str, object]]:
    path = logs / "steps.tsv"
    if not path.exists():
        return []
    rows = [line.split("\t") for line in path.read_text().splitlines() if line.strip()]
    return [{"step": s, "exit_code": int(rc), "seconds": int(sec)} for s, rc, sec in rows]


def _pytest(logs: Path) -> dict[str, object]:
    path = logs / "pytest_gpu.xml"
    if not path.exists():
        return {"ran": False}
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
                break
        cases.append({"test": case.get("name"), "outcome": outcome, "seconds": float(case.get("time", 0))})
    counts = {k: sum(c["outcome"] == k for c in cases) for k in ("passed", "failed", "error", "skipped")}
    return {"ran": True, **counts, "cases": cases}


def _epochs(logs: Path) -> list[dict[str, float]]:
    path = logs / "resnet20_training_log.csv"
    if not path.exists():
        return []
    with open(path) as fh:
        return [{k: float(v) for k, v in row.items() if v not in ("", None)} for row in csv.DictReader(fh)]


def _facts(logs: Path) -> dict[str, object]:
    path = logs / "facts.log"
    for line in reversed(path.read_text().splitlines() if path.exists() else []):
        if line.startswith("{"):
            return json.loads(line)
    return {}


def _throughput(calibration: Path | None) -> list[dict[str, object]]:
    if calibration is None or not calibration.exists():
        return []
    return list(json.loads(calibration.read_text()).get("throughput") or [])


def _plan(logs: Path) -> list[str]:
    """holdout plan's summary lines (the totals and the fused groups)."""
    path = logs / "plan.log"
    keys = ("calibrated total", "fused groups", "several jobs", ": ")
    lines = path.read_text().splitlines() if path.exists() else []
    return [ln.strip() for ln in lines if ln.startswith("  ") and any(k in ln for k in keys)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--logs", type=Path, required=True)
    p.add_argument("--calibration", type=Path, help="the calibration JSON with this run's throughput rows")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    summary = {
        "machine": _facts(args.logs),
        "steps": _steps(args.logs),
        "pytest_gpu": _pytest(args.logs),
        "throughput": _throughput(args.calibration),
        "plan": _plan(args.logs),
        "resnet20_epochs": _epochs(args.logs),
    }
    args.out.write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary["machine"]))
    for s in summary["steps"]:
        print(f"  {s['step']:<12} exit {s['exit_code']:>3}  {s['seconds']:>4} s")
    t = summary["pytest_gpu"]
    if t.get("ran"):
        counts = ", ".join(f"{t[k]} {k}" for k in ("passed", "failed", "error", "skipped"))
        print(f"  pytest -m gpu: {counts}")
        for c in t["cases"]:
            if c["outcome"] in ("failed", "error"):
                print(f"    {c['outcome']}: {c['test']}")
    for r in summary["throughput"]:
        print(
            f"  {r['mode']:<6} x{r['members']:<3} {r['seconds_per_step'] * 1e3:8.2f} ms/step "
            f"{r['images_per_s_per_model']:>9,.0f} img/s per model {r['images_per_s']:>9,.0f} together"
        )
    for line in summary["plan"]:
        print(f"  plan: {line}")
    ep = summary["resnet20_epochs"]
    if ep:
        last = ep[-1]
        print(
            f"  ResNet-preact-20: {len(ep)} epochs, last test accuracy {last.get('test_accuracy', float('nan')):.4f}, "
            f"{last.get('images_per_s', 0):,.0f} img/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
