"""The Snakemake report, opened in headless Chromium: the figures are there.

Builds ``--report report.html`` from the infrastructure test workflow's local
run and walks the rendered page (tests/infra/report_browser.py): every result
registered with report() must be listed under its category, and every figure
must show as a decoded image when its "view" button is clicked. Skipped (with
the reason) where no Chromium is installed; `.ci/run` installs Debian's.
A second test does the same for the real workflow after a run of its fast
studies (REPORT_STUDIES).
"""

from __future__ import annotations

import sys

import pytest
import report_browser
from infra_workflow import run, snakemake_cmd

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # starts Snakemake and Chromium


@pytest.fixture(scope="module")
def chromium():
    path = report_browser.find_chromium()
    if path is None:
        pytest.skip("headless Chromium not installed (`.ci/run` installs Debian's chromium)")
    return path


def test_report_shows_registered_table_and_figure(repo, chromium, local_run, tmp_path):
    report = tmp_path / "report.html"
    run(snakemake_cmd(local_run, local_run.parent / "markers", "--cores", "1", "--report", str(report)), repo)
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


# Studies fast enough to run in full for the report test (their default config).
REPORT_STUDIES = ("bounds", "rvw", "similarity")
# Enabled too, without report entries of their own: the data stage feeds the similarity study
# (whose measured ImageNet setting feeds bounds, bounds.setting_from: measured by default).
REPORT_INPUT_STAGES = ("data",)


def test_real_workflow_report_collects_every_figure(repo, chromium, tmp_path, shared_data):
    """The real workflow's report, from a run of the fast studies (all others disabled
    through their `enabled` switches): every PNG the run made under results/ is in the
    report and decodes in the browser, every study that ran has entries, and every
    registered file exists."""
    import yaml

    schema = yaml.safe_load((repo / "config" / "schema.yaml").read_text())
    switches = {
        name: {"enabled": name in REPORT_STUDIES + REPORT_INPUT_STAGES}
        for name, spec in schema["properties"].items()
        if "enabled" in spec.get("properties", {})
    }
    assert set(REPORT_STUDIES) <= set(switches)
    switches["data"]["mirror"] = str(shared_data)  # offline.yaml's is relative to the repository
    only = tmp_path / "only.yaml"
    only.write_text(yaml.safe_dump(switches))
    work = tmp_path / "work"
    base = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(repo / "Snakefile"),
        "-d",
        str(work),
        "--configfile",
        str(repo / "config" / "offline.yaml"),
        str(only),
    ]
    run(base + ["--cores", "2"], repo)
    report = tmp_path / "report.html"
    run(base + ["--cores", "1", "--report", str(report)], repo)

    shown = report_browser.inspect_report(report, tmp_path / "browser")
    for study in REPORT_STUDIES:
        assert any(f.startswith(f"results/{study}/") for f in shown), (study, sorted(shown))
    for name in shown:
        assert (work / name).is_file(), f"report lists {name}, which the run did not make"
    pngs = sorted(str(p.relative_to(work)) for p in (work / "results").rglob("*.png"))
    assert pngs, "the fast studies made no figure"
    for png in pngs:
        assert png in shown, f"{png} was made but is not in the report"
        assert shown[png]["img"] and shown[png]["width"] > 0, (png, shown[png])
