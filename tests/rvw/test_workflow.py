"""The rvw stage end to end: Arora & Zhang (2021) Tables 1 and 2 from the Snakefile, in a tmp dir."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from small_configs import load_small_config, small_config_path

pytestmark = pytest.mark.slow  # starts Snakemake

# conftest.run_workflow puts the targets right after `--configfile FILE`, whose argument list
# (nargs="+") would swallow them; a flag in `extra` ends that list.
END_LIST = ["--nolock"]

PAPER = {  # (table, model, bits): the paper's printed bound in percent
    ("table1", "ResNet-152", 426): 7.39,
    ("table1", "ResNet-152", 729): 8.49,
    ("table1", "DenseNet-264", 362): 8.08,
    ("table1", "DenseNet-264", 741): 9.55,
    ("table2", "ResNet-152", 556): 7.89,
    ("table2", "ResNet-152", 1032): 9.49,
    ("table2", "DenseNet-264", 454): 8.47,
    ("table2", "DenseNet-264", 980): 10.35,
}


def test_rvw_stage_default_config_reproduces_tables_1_and_2(tmp_path: Path, workflow_runner):
    """Default config = the paper's Tables 1-2; every bound equals the printed one to 2 decimals,
    except Table 1 ResNet-152 729 bits (printed 8.49 %, exact 8.4997 %: a rounding slip in the paper)."""
    workflow_runner(
        tmp_path, "results/rvw/table1.csv", "results/rvw/table2.csv", "results/rvw/table1.md", "results/rvw/table2.md"
    )
    seen = 0
    for table in ("table1", "table2"):
        df = pd.read_csv(tmp_path / "results" / "rvw" / f"{table}.csv")
        assert len(df) == 4
        assert set(df["C"]) == {5000} and set(df["delta"]) == {0.05} and set(df["n"]) == {50000}
        for r in df.itertuples():
            printed = PAPER[(table, r.name, int(r.bits))]
            assert r.paper_bound == pytest.approx(printed / 100)
            assert r.bound_minus_paper == pytest.approx(r.bound - r.paper_bound)
            if (table, int(r.bits)) == ("table1", 729):
                assert round(100 * r.bound, 4) == 8.4997
            else:
                assert round(100 * r.bound, 2) == printed
            seen += 1
        md = (tmp_path / "results" / "rvw" / f"{table}.md").read_text()
        assert "Arora & Zhang (2021) Table" in md and md.count("| ResNet-152 |") == 2
    assert seen == 8
    assert "8.50 % | 8.4997 % | 729 | 8.49 % | no |" in (tmp_path / "results/rvw/table1.md").read_text()
    assert (tmp_path / "logs" / "rvw" / "table_table1.log").read_text().count("-> bound") == 4
    assert (tmp_path / "logs" / "rvw" / "table_table2.benchmark.tsv").is_file()


def test_rvw_stage_rows_from_description_files_and_a_bad_one(tmp_path: Path, workflow_runner):
    """Tables whose rows take bits from description files (each English option), plus a table whose
    description file is malformed: that job fails with the file and key in its log (--keep-going
    lets the good tables finish in the same run)."""
    # .test/config-rvw/config.yaml and its two description files, copied to the run's folder; the
    # words table and the broken one name their copies by absolute path (the chars table relatively)
    small = small_config_path("rvw").parent
    own, bad = tmp_path / "my_model.yaml", tmp_path / "bad.yaml"
    shutil.copyfile(small / "my_model.yaml", own)
    shutil.copyfile(small / "bad.yaml", bad)
    cfg = load_small_config("rvw")
    tables = {t["id"]: t for t in cfg["rvw"]["tables"]}
    tables["mine_words"]["rows"][0]["description"] = str(own)
    tables["broken"]["rows"][0]["description"] = str(bad)
    cf = tmp_path / "cfg.yaml"
    cf.write_text(yaml.safe_dump(cfg))
    proc = workflow_runner(
        tmp_path,
        "results/rvw/mine_chars.csv",
        "results/rvw/mine_words.csv",
        "results/rvw/broken.csv",
        configfiles=[cf],
        extra=["--keep-going"],
        check=False,
    )
    assert proc.returncode != 0
    log = (tmp_path / "logs/rvw/table_broken.log").read_text()
    assert f"{bad}: parts[0].math.operators.y: unknown operator 'tanh'" in log
    assert not (tmp_path / "results/rvw/broken.csv").exists()

    chars = pd.read_csv(tmp_path / "results/rvw/mine_chars.csv")
    words = pd.read_csv(tmp_path / "results/rvw/mine_words.csv")
    from holdout.rvw.core import rvw_bound

    assert list(chars["bits"]) == [98, len("train with momentum 0.9") + 100, 123]
    assert words["bits"].tolist() == [4 * 10 + 100]
    for df in (chars, words):
        for r in df.itertuples():
            assert r.bound == pytest.approx(rvw_bound(0.1, r.bits, 10000, C=2000, delta=0.1), rel=1e-12)
    assert chars["paper_bound"].isna().all()
    assert chars["bits_source"].iloc[0].endswith("config/rvw/batch_norm.yaml")


@pytest.mark.parametrize(
    "row,needle",
    [
        ({"name": "m", "test_error": 0.1, "n": 100, "bits": 5, "description": "x.yaml"}, "oneOf"),
        ({"name": "m", "test_error": 0.1, "n": 100}, "oneOf"),
        ({"name": "m", "test_error": 4.49, "n": 100, "bits": 5}, "test_error"),
        ({"name": "m", "test_error": 0.1, "n": 100, "bits": 5, "colour": "red"}, "colour"),
    ],
)
def test_rvw_config_schema_rejects_bad_rows(repo: Path, row, needle):
    """config/schema.yaml (as Snakemake applies it at start-up) stops a bad row and names the key."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    config["rvw"]["tables"] = [{"id": "t", "rows": [row]}]
    with pytest.raises(WorkflowError, match=needle):
        validate(config, str(repo / "config" / "schema.yaml"))
    config["rvw"]["tables"] = yaml.safe_load((repo / "config" / "config.yaml").read_text())["rvw"]["tables"]
    validate(config, str(repo / "config" / "schema.yaml"))  # the shipped defaults are valid
