"""The site of config/site.yaml (the shipped benchmarks) opened in headless Chromium as a reader opens
it, at 1,400 px and on a 390 px phone: every benchmark page and the index load with no console error,
scroll no page sideways, sort and filter every table, and show every model (table rows = K); no page
is over 2 MB and no page names anything outside the folder (each page's Content-Security-Policy also
makes the browser refuse any request, which would show as an error). Each benchmark's ranks.csv is
the file `holdout audit` writes for the same input.

Skipped where no Chromium is installed. Screenshots land in the test's folder; with
HOLDOUT_DOCS_SCREENSHOTS=1 the index's also replace docs/site_index.png and docs/site_index_phone.png.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from holdout.audit.cli import main as audit_main
from holdout.commands.site import main

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("report_browser", REPO / "tests" / "infra" / "report_browser.py")
report_browser = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report_browser)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WIDTHS = (1400, 390)
BENCHMARKS = [
    "livecodebench", "swebench_verified", "evalplus_humaneval_logs", "evalplus_mbpp_logs", "evalplus_humaneval",
    "evalplus_mbpp", "helm_bbq", "lmeval_asdiv", "timm_imagenetv2", "timm_sketch", "timm_imagenet_r", "timm_imagenet_a",
]  # fmt: skip
LINK = re.compile(r'(?:href|src)="([^"]*)"')


@pytest.fixture(scope="module")
def site(tmp_path_factory, shared_data) -> Path:
    if report_browser.find_chromium() is None:
        pytest.skip("headless Chromium not installed (`.ci/run` installs Debian's chromium)")
    out = tmp_path_factory.mktemp("site") / "site"
    assert main([str(REPO / "config" / "site.yaml"), "--root", str(shared_data), "--out", str(out)]) == 0
    return out


def test_every_page_small_and_self_contained(site):
    pages = sorted(site.glob("*.html"))
    assert len(pages) > len(BENCHMARKS) + 1
    for page in pages:
        assert page.stat().st_size < 2_000_000, page
        for link in LINK.findall(page.read_text()):
            if link.startswith(("data:image/png;base64,", "#")):
                continue
            assert "//" not in link and not link.startswith("/") and ".." not in link, (page.name, link)
            assert (site / link).is_file(), (page.name, link)


def _check(page: Path, width: int, tmp: Path) -> dict:
    seen = report_browser.check_page(page, width, tmp)
    assert not seen["errors"] and not [c for c in seen["console"] if "Uncaught" in c or "rror" in c], seen
    assert seen["pageScrollWidth"] <= width, f"{page.name} scrolls sideways at {width} px"
    for t in seen["tables"]:
        assert t["scrolls"] and t["right"] <= width, (page.name, t)
    assert all(i["decoded"] and i["right"] <= width for i in seen["images"]), seen["images"]
    assert not seen["badText"], seen["badText"]
    for rec in seen["sorting"]:
        assert rec["ok"] and (rec["filter"] is None or rec["filter"]["ok"]), (page.name, rec)
    return seen


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", BENCHMARKS)
def test_benchmark_page_in_chromium(site, name, width, tmp_path):
    k = next(b["k"] for b in json.loads((site / "site.json").read_text())["benchmarks"] if b["name"] == name)
    seen = _check(site / f"bench-{name}.html", width, tmp_path)
    models = seen["tables"][0]
    assert models["rows"] == k, (models, k)  # every model in the page
    assert len(seen["images"]) == 1 and seen["sorting"][0]["ok"]
    shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


@pytest.mark.parametrize("width", WIDTHS)
def test_index_and_model_pages_in_chromium(site, width, tmp_path):
    seen = _check(site / "index.html", width, tmp_path)
    assert seen["tables"][0]["rows"] == len(BENCHMARKS)
    assert seen["tables"][1]["rows"] == len(list(site.glob("model-*.html")))
    shot = report_browser.screenshot(
        site / "index.html", width, 1100 if width == 1400 else 844, tmp_path / "i.png", tmp_path
    )
    assert shot.stat().st_size > 10_000
    if os.environ.get("HOLDOUT_DOCS_SCREENSHOTS") == "1":
        shutil.copy(shot, REPO / "docs" / ("site_index.png" if width == 1400 else "site_index_phone.png"))
    models = sorted(site.glob("model-*.html"))
    for page in [*models[:2], models[-1]]:  # the model pages share one template: three of them in the browser
        seen = _check(page, width, tmp_path)
        assert seen["tables"][0]["rows"] >= 2
    shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


RANKED = [
    "livecodebench",
    "swebench_verified",
    "evalplus_humaneval_logs",
    "evalplus_mbpp_logs",
    "helm_bbq",
    "lmeval_asdiv",
]


@pytest.mark.parametrize("name", RANKED)
def test_ranks_are_what_holdout_audit_writes(site, name, tmp_path):
    """The same input given to `holdout audit` directly (the site's audit arguments, another --out)."""
    argv = next(
        b["audit_argv"] for b in json.loads((site / "site.json").read_text())["benchmarks"] if b["name"] == name
    )
    staged = str(site.parent / f".{site.name}.partial-")
    argv = [re.sub(re.escape(staged) + r"\d+", str(site), a) for a in argv[:-2]]  # a source's files, kept in inputs/
    assert audit_main(["audit", *argv, "--out", str(tmp_path / "a")]) == 0
    assert (site / name / "ranks.csv").read_bytes() == (tmp_path / "a" / "ranks.csv").read_bytes()
