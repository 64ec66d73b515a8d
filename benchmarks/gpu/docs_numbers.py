"""docs/measurements/gpu.json from one gpu_check run's files and the shipped calibration.

    PYTHONPATH=src python benchmarks/gpu/docs_numbers.py \
        --results benchmarks/gpu/results/2026-11-27-h200 --calibration config/calibration/nvidia-h200-2026-11-27.json

Every GPU number the pages show comes from here: the gpu tests, the concurrent jobs, the compiled
cell, hysts' ResNet-preact-20 epochs, and `holdout plan` totals with and without the calibration.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from holdout.training.calibration import load_calibration
from holdout.training.cost import StepTable
from holdout.training.plan import load_merged_config, plan_jobs, plan_table

REPO = Path(__file__).resolve().parents[2]
GOAL_CELL = "ResNet-preact-110 (basic, 16 ch) | batch 128 | views 1 | 32 px"


def _plan(configfiles: list[str], table: StepTable) -> dict[str, float]:
    cfg = load_merged_config([REPO / c for c in configfiles], REPO / "config" / "config.yaml")
    df = plan_table(plan_jobs(cfg, table=table))
    out = {"jobs": len(df), "low": df.gpu_hours_low.sum(), "high": df.gpu_hours_high.sum()}
    out["calibrated"] = df.gpu_hours_calibrated.sum()
    out["not_calibrated"] = int(df.gpu_hours_calibrated.isna().sum())
    for study, g in df.groupby("study"):
        out[f"{study}_calibrated"] = g.gpu_hours_calibrated.sum()
        out[f"{study}_flops_only"] = g.gpu_hours_projected.sum()
    return {k: round(float(v), 1) if isinstance(v, float) else v for k, v in out.items()}


def numbers(results: Path, calibration: Path) -> dict[str, object]:
    check = json.loads((results / "gpu_check.json").read_text())
    cal = load_calibration(calibration)
    table = StepTable.from_calibration(cal, str(calibration))
    conc = {str(r["jobs"]): round(r["images_per_s"]) for r in cal["concurrent"]}
    compiled = next(t for t in cal["cells"][GOAL_CELL]["timings"] if t["compiled"])
    epochs = check["resnet20_epochs"]
    paper, gpu = _plan(["config/paper.yaml"], table), _plan(["config/gpu.yaml"], table)
    gain = conc["8"] / conc["1"]
    m = cal["machine"]
    return {
        "what": "benchmarks/gpu/gpu_check.sh and a second calibration call on one lent GPU",
        "command": "OUT=... bash benchmarks/gpu/gpu_check.sh; python -m holdout.training.calibration measure ...",
        "date": m["date"],
        "machine": {"gpu": m["device"], "torch": m["torch"], "cuda": m["cuda"], "host_cpus": m["host_cpus"]},
        "load": "the GPU to itself; the ResNet-20 run paused while the calibration timed",
        "pytest_gpu_passed": check["pytest_gpu"]["passed"],
        "pytest_gpu_total": len(check["pytest_gpu"]["cases"]),
        "cells_timed": len(cal["cells"]),
        "cells_total": len(cal["cells"]) + len(cal["skipped"]),
        "resnet110_eager_img_s": conc["1"],
        "resnet110_eager_ms": round(128 / conc["1"] * 1e3, 1),
        "resnet110_compiled_ms": round(compiled["seconds_per_step"] * 1e3, 1),
        "resnet110_compile_s": round(compiled["first_step_s"]),
        "concurrent_img_s": conc,
        "concurrent_gain_8": round(gain, 2),
        "resnet20_epochs": len(epochs),
        "resnet20_last_test_accuracy": epochs[-1]["test_accuracy"],
        "resnet20_best_test_accuracy": max(e["test_accuracy"] for e in epochs),
        "resnet20_img_s_median": sorted(e["images_per_s"] for e in epochs)[len(epochs) // 2],
        "paper": paper,
        "paper_search_8_jobs": round(paper["search_calibrated"] / gain, 1),
        "search_goal_miss": round(paper["search_calibrated"] / gain / 24, 1),
        "gpu": gpu,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--results", type=Path, required=True)
    p.add_argument("--calibration", type=Path, required=True)
    p.add_argument("--out", type=Path, default=REPO / "docs" / "measurements" / "gpu.json")
    args = p.parse_args(argv)
    args.out.write_text(json.dumps(numbers(args.results, args.calibration), indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
