"""holdout.training.calibration / cost and `holdout plan --calibration`: cells, lookups, hours."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from holdout.audit.cli import main as audit_main
from holdout.training.calibration import Cell, cell_key, load_calibration, merge_calibrations, plan_cells, time_cell
from holdout.training.calibration import main as calibration_main
from holdout.training.cost import FLOOR_MS_PER_LAYER, StepTable, count_layers, job_hours, projected_step_seconds
from holdout.training.models import ResNetPreactConfig
from holdout.training.optim import TrainConfig
from holdout.training.plan import load_merged_config, plan_jobs, plan_specs

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "config" / "calibration" / "nvidia-h200-2026-11-27.json"


def test_layers_of_resnet_preact_110_are_its_convolutions_and_classifier():
    # 3 stages x 18 basic blocks x 2 convs + the stem conv + 2 projection shortcuts + the linear layer
    assert count_layers(ResNetPreactConfig(depth=110)) == 3 * 18 * 2 + 1 + 2 + 1


def test_projection_is_the_larger_of_arithmetic_and_floor():
    # arithmetic: 3 x 0.25 GFLOP x 128 images x 2 views at 20 TFLOP/s = 9.6 ms; floor 112 layers x 2 views
    low, high = projected_step_seconds(0.25, 128, 2, 112, 20.0)
    compute = 3 * 0.25e9 * 128 * 2 / 20e12
    assert low == pytest.approx(max(compute / 2, FLOOR_MS_PER_LAYER[0] * 1e-3 * 224))
    assert high == pytest.approx(max(compute * 2, FLOOR_MS_PER_LAYER[1] * 1e-3 * 224))
    assert job_hours(3600, 0.5, startup_s=0.0) == pytest.approx(0.5)


def _calibration(cells: dict[str, float], device: str = "GPU X") -> dict:
    return {
        "format": "holdout-calibration/1",
        "machine": {"device": device, "torch": "2.x", "date": "2026-01-01"},
        "cells": {
            k: {
                "jobs": 1,
                "model": ResNetPreactConfig(depth=20).to_dict(),
                "timings": [{"compiled": False, "seconds_per_step": s, "first_step_s": 1.0}],
            }
            for k, s in cells.items()
        },
    }


def test_lookup_measured_then_nearest_batch_then_per_layer_fit():
    net = "ResNet-preact-20 (basic, 16 ch)"
    table = StepTable.from_calibration(
        _calibration({f"{net} | batch 64 | views 1 | 32 px": 0.008, f"{net} | batch 256 | views 1 | 32 px": 0.010}),
        "x",
    )
    assert table.lookup(f"{net} | batch 64 | views 1 | 32 px", 22) == (0.008, "measured")
    s, basis = table.lookup(f"{net} | batch 200 | views 1 | 32 px", 22)
    assert (s, basis) == (0.010, "nearest measured batch (256)")
    layers = count_layers(ResNetPreactConfig(depth=20))
    floor = sorted([0.008 / layers, 0.010 / layers])[1]  # the median of two is the upper one here
    s, basis = table.lookup("ResNet-preact-56 (basic, 16 ch) | batch 128 | views 2 | 32 px", 58)
    assert s == pytest.approx(floor * 58 * 2) and basis.startswith("fit:")
    assert table.lookup("vgg_15_BN_64 | batch 128 | views 1 | 32 px", 15) is None


def test_plan_hours_from_a_calibration_are_steps_times_step_time_plus_startup():
    cfg = load_merged_config([], REPO / "config" / "config.yaml")
    spec = next(s for s in plan_specs(cfg) if s.study == "seeds")
    key = cell_key(spec.model, spec.train.batch_size, spec.train.augment.num_views, spec.train.augment.window or 32)
    table = StepTable.from_calibration(_calibration({key: 0.02}), "x")
    row = next(r for r in plan_jobs(cfg, table=table) if r.study == "seeds")
    steps = spec.train.epochs * (spec.train_images // spec.train.batch_size)
    assert row.steps == steps and row.calibration_basis == "measured"
    assert row.gpu_hours_calibrated == pytest.approx((steps * 0.02 + 60.0) / 3600, abs=5e-4)


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_dual_cutout_counts_twice_in_the_projection():
    cfg = load_merged_config([REPO / "config" / "paper.yaml"], REPO / "config" / "config.yaml")
    rows = [r for r in plan_jobs(cfg) if r.study == "search"]
    dual = [r for r in rows if r.views == 2]
    assert 0 < len(dual) < len(rows)
    r = dual[0]
    single = 3.0 * r.gflops_per_image * 1e9 * r.train_images * r.epochs / 20e12 / 3600
    assert r.gpu_hours_projected == pytest.approx(2 * single, rel=1e-3)


def test_cells_of_a_plan_are_distinct_and_counted():
    model, train = ResNetPreactConfig(depth=20), TrainConfig(batch_size=64)
    cells = plan_cells([(model, train), (model, train), (model, TrainConfig(batch_size=32))])
    assert [c.jobs for c in cells] == [2, 1] and cells[0].key.endswith("batch 64 | views 1 | 32 px")


def test_shipped_cells_file_matches_the_configs(tmp_path, monkeypatch, capsys):
    """``python -m holdout.training.calibration cells --configfile config/paper.yaml config/gpu.yaml``
    (its main, run in this process: no interpreter and torch start-up) writes benchmarks/gpu/cells.json."""
    out = tmp_path / "cells.json"
    monkeypatch.chdir(REPO)
    assert calibration_main(["cells", "--configfile", "config/paper.yaml", "config/gpu.yaml", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}: ")
    assert json.loads(out.read_text()) == json.loads((REPO / "benchmarks" / "gpu" / "cells.json").read_text())


def test_shipped_calibration_loads_and_names_its_gpu():
    data = load_calibration(SHIPPED)
    assert data["machine"]["device"] == "NVIDIA H200" and len(data["cells"]) >= 40
    assert {r["jobs"] for r in data["concurrent"]} == {1, 2, 4, 8}
    table = StepTable.from_calibration(data, str(SHIPPED))
    assert all(0.001 < s < 1.0 for s in table.seconds.values())


def test_merge_refuses_runs_of_different_devices():
    with pytest.raises(ValueError, match="different devices"):
        merge_calibrations([_calibration({}, "A"), _calibration({}, "B")], [], ["a", "b"])


def test_bad_calibration_file_is_one_line(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "c.json"
    bad.write_text("{}")
    with pytest.raises(ValueError, match="not a holdout-calibration/1 file"):
        load_calibration(bad)
    monkeypatch.chdir(REPO)  # `holdout plan` (the audit CLI's main, in this process)
    assert audit_main(["plan", "--configfile", "config/gpu.yaml", "--calibration", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err


_KEY = "ResNet-preact-20 (basic, 16 ch) | batch 128 | views 1 | 32 px"


def _bad_cells(case: str) -> dict:
    data = _calibration({_KEY: 0.02, _KEY.replace("batch 128", "batch 64"): 0.015})
    cell = data["cells"][_KEY]
    if case == "all negative":
        for c in data["cells"].values():
            c["timings"][0]["seconds_per_step"] *= -1
    elif case == "one zero":
        cell["timings"][0]["seconds_per_step"] = 0.0
    elif case == "text":
        cell["timings"][0]["seconds_per_step"] = "fast"
    elif case == "no timings":
        del cell["timings"]
    elif case == "cell as a list":
        data["cells"][_KEY] = [0.02]
    elif case == "key":
        data["cells"] = {"ResNet-preact-20 | batch 128": cell}
    elif case == "cells as a list":
        data["cells"] = list(data["cells"].values())
    return data


@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("all negative", f"cell '{_KEY}': timings[0].seconds_per_step is -0.02, not a number of seconds > 0"),
        ("one zero", f"cell '{_KEY}': timings[0].seconds_per_step is 0.0"),
        ("text", "seconds_per_step is 'fast'"),
        ("no timings", f"cell '{_KEY}': no 'timings' list"),
        ("cell as a list", f"cell '{_KEY}': a list, not a mapping"),
        ("key", "cell 'ResNet-preact-20 | batch 128': the key is not"),
        ("cells as a list", "'cells' is a list, not a mapping"),
    ],
)
def test_bad_calibration_cell_is_one_line_naming_file_and_cell(tmp_path, case, says):
    """A cell whose step time is not a number > 0 (all negative gave "0.0 GPU-hours"; one bad cell was
    silently replaced by a neighbour's time) or that is malformed (a traceback) is an error naming the
    file and the cell."""
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_bad_cells(case)))
    with pytest.raises(ValueError) as err:
        load_calibration(path)
    message = str(err.value)
    assert message.startswith(f"calibration file {path}: ") and says in message and "\n" not in message, message


def test_plan_with_negative_step_times_exits_2_with_one_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_bad_cells("all negative")))
    monkeypatch.chdir(REPO)
    assert audit_main(["plan", "--configfile", "config/gpu.yaml", "--calibration", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and str(path) in captured.err and "GPU-hours" not in captured.out


def test_time_cell_on_the_cpu_reports_positive_times():
    model, train = ResNetPreactConfig(depth=8, base_channels=4), TrainConfig(batch_size=8)
    cell = Cell(key="tiny", model=model.to_dict(), train=train.to_dict(), batch_size=8, views=1, image_size=32)
    t = time_cell(cell, "cpu", min_seconds=0.05, eval_images=16)
    assert t.seconds_per_step > 0 and math.isfinite(t.eval_s_per_10k) and t.steps_timed >= 15


@pytest.mark.slow  # plans config/paper.yaml and config/gpu.yaml (about 30 s)
def test_docs_gpu_numbers_come_from_the_shipped_results():
    sys.path.insert(0, str(REPO / "benchmarks" / "gpu"))
    from docs_numbers import numbers

    got = numbers(REPO / "benchmarks" / "gpu" / "results" / "2026-11-27-h200", SHIPPED)
    assert got == json.loads((REPO / "docs" / "measurements" / "gpu.json").read_text())
