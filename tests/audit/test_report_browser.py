"""The audit's report.html opened in headless Chromium as a reader opens it, at 1,400 px and on a
390 px phone, for the shipped example (K = 3), SWE-bench Verified (a K = 134 x 500 correctness matrix)
and timm's ImageNet -> ImageNetV2 accuracy table (1,556 models): no console error, no table or image
wider than the page, no 'nan' / 'None' text, every figure decoded and shown at a legible scale, every
table sortable and filterable with all its rows, and summary.md beside the page.

Skipped (with the reason) where no Chromium is installed; `.ci/run` installs Debian's. The screenshots
land in the test's folder; with HOLDOUT_DOCS_SCREENSHOTS=1 the example's also replace
docs/audit_report.png (1,400 px) and docs/audit_report_phone.png (390 px), the pictures on the docs'
audit page.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from holdout.audit.cli import main

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("report_browser", REPO / "tests" / "infra" / "report_browser.py")
report_browser = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report_browser)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WIDTHS = (1400, 390)
#: the smallest text in any figure is 8 pt, 8 / 72 * 150 = 16.7 PNG pixels: shown at least this many CSS px
MIN_TEXT_PX = {1400: 11.0, 390: 6.5}


@pytest.fixture(scope="module")
def chromium():
    path = report_browser.find_chromium()
    if path is None:
        pytest.skip("headless Chromium not installed (`.ci/run` installs Debian's chromium)")
    return path


def _audit(args: list[str]) -> None:
    assert main(["audit", *args]) == 0


@pytest.fixture(scope="module")
def reports(chromium, tmp_path_factory, shared_data) -> dict[str, tuple[Path, int]]:
    """name -> (report folder, K) of the three audits."""
    tmp = tmp_path_factory.mktemp("reports")
    ex = REPO / "config" / "examples"
    _audit(
        [str(ex / "user_predictions.csv"), "--labels", str(ex / "user_labels.npy"), "--search-size", "3"]
        + ["--out", str(tmp / "example")]
    )
    swe = shared_data / "anchors" / "swebench" / "swebench_verified_resolved_matrix.csv"
    _audit([str(swe), "--correctness", "--search-size", "134", "--out", str(tmp / "swebench")])
    raw = shared_data / "pytorch-image-models" / "results"
    o, n = (pd.read_csv(raw / f"results-{s}.csv") for s in ("imagenet", "imagenetv2-matched-frequency"))
    both = o.merge(n, on=["model", "img_size"], suffixes=("_o", "_n"))
    table = pd.DataFrame(
        {"model": both["model"] + "@" + both["img_size"].astype(str), "val": both["top1_o"], "v2": both["top1_n"]}
    )
    table.to_csv(tmp / "timm.csv", index=False)
    sizes = ["--sizes", "50000", "10000"]
    _audit(["--accuracies", str(tmp / "timm.csv"), "--columns", "val", "v2", *sizes, "--out", str(tmp / "table")])
    return {"example": (tmp / "example", 3), "swebench": (tmp / "swebench", 134), "table": (tmp / "table", len(table))}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["example", "swebench", "table"])
def test_report_in_chromium(reports, name, width, tmp_path):
    folder, k = reports[name]
    page = folder / "report.html"
    seen = report_browser.check_page(page, width, tmp_path)
    shot = report_browser.screenshot(page, width, min(seen["height"], 2400), tmp_path / f"{name}_{width}.png", tmp_path)
    assert shot.stat().st_size > 10_000
    assert not seen["errors"] and not [c for c in seen["console"] if "Uncaught" in c or "rror" in c], seen
    assert seen["pageScrollWidth"] <= width, "the page scrolls sideways"
    for table in seen["tables"]:
        assert table["scrolls"] and table["right"] <= width, table
    assert seen["images"] and all(i["decoded"] and i["right"] <= width for i in seen["images"]), seen["images"]
    for img in seen["images"]:  # at most 5.6 in at 150 dpi; 8-pt text (16.7 PNG px) shown at a legible size
        assert img["natural"] <= 5.6 * 150 + 2 and 16.7 * img["shown"] / img["natural"] >= MIN_TEXT_PX[width], img
    assert not seen["badText"], seen["badText"]
    assert seen["sections"][0] == "At a glance" and seen["glance"], seen["sections"]
    assert re.search(r"\b(measured|theorem|heuristic)\b", " ".join(seen["glance"]))
    for rec in seen["sorting"]:
        assert rec["ok"], rec
        assert rec["filter"] is None or rec["filter"]["ok"], rec
    models = next(t for t in seen["tables"] if "model" in t["caption"].lower())
    assert models["rows"] == k  # every row (K <= 2,000 here)
    assert seen["links"] and all((folder / link).is_file() for link in seen["links"]), seen["links"]
    assert (folder / "summary.md").is_file()
    if name == "example" and os.environ.get("HOLDOUT_DOCS_SCREENSHOTS") == "1":
        docs = REPO / "docs" / ("audit_report.png" if width == 1400 else "audit_report_phone.png")
        report_browser.screenshot(page, width, 1100 if width == 1400 else 844, docs, tmp_path)
    shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)
