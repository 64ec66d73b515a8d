"""The Snakemake report, opened in headless Chromium: the figures are there.

Builds ``--report report.html`` from the infrastructure test workflow's local
run and walks the rendered page (tests/infra/report_browser.py): every result
registered with report() must be listed under its category, and every figure
must show as a decoded image when its "view" button is clicked. Skipped (with
the reason) where no Chromium is installed; `.ci/run` installs Debian's.
"""

from __future__ import annotations

import pytest

import report_browser
from conftest import run, snakemake_cmd

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def chromium():
    path = report_browser.find_chromium()
    if path is None:
        pytest.skip("headless Chromium not installed (`.ci/run` installs Debian's chromium)")
    return path


def test_report_shows_registered_table_and_figure(repo, chromium, local_run, tmp_path):
    report = tmp_path / "report.html"
    run(snakemake_cmd(local_run, local_run.parent / "markers", "--cores", "1",
                      "--report", str(report)), repo)
    html = report.read_text()
    assert "Infrastructure test" in html
    shown = report_browser.inspect_report(report, tmp_path / "browser")
    assert set(shown) == {"results/summary.tsv", "results/accuracy.png"}, shown
    fig = shown["results/accuracy.png"]
    assert (fig["category"], fig["subcategory"]) == ("Infrastructure test", "Figures")
    assert fig["img"] and fig["width"] == 400, fig  # 5 in x 80 dpi, decoded by the browser
    table = shown["results/summary.tsv"]
    assert (table["category"], table["subcategory"]) == ("Infrastructure test", "Tables")
    assert not table["img"]
