"""Leaderboard inputs as researchers' real files come: pandas exports (no name column, a byte-order
mark, an unnamed index, zero-padded ids), transposed matrices, other encodings and separators,
percent tables of hard benchmarks, dates in other formats and time zones, line models that fit
exactly. Each is either read right or refused in one line naming the file, option or row."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from holdout.audit.accuracy_table import read_accuracy_table
from holdout.audit.cli import main
from holdout.leaderboards import CorrectnessError, contamination, read_correctness
from holdout.leaderboards.correctness import check_correctness
from holdout.leaderboards.dates import parse_date, parse_dates

NAMES = [f"{i:03d}" for i in range(1, 13)]


@pytest.fixture
def matrix() -> pd.DataFrame:
    """12 models (ids 001..012) x 40 items q0..q39, 0/1."""
    rng = np.random.default_rng(0)
    m = (rng.random((12, 40)) < np.linspace(0.3, 0.8, 12)[:, None]).astype(int)
    return pd.DataFrame(m, index=pd.Index(NAMES, name="model"), columns=[f"q{j}" for j in range(40)])


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("holdout audit: error: ") and "\n" not in err, err
    return err


# ---------------------------------------------------------------------------
# correctness matrices
# ---------------------------------------------------------------------------


def test_transposed_matrix_is_refused_or_read_with_rows_items(tmp_path, matrix):
    path = tmp_path / "t.csv"
    matrix.T.to_csv(path)  # items as rows, models as columns: the predictions audit's layout
    with pytest.raises(CorrectnessError, match="40 rows x 12 columns, more models than items.*--rows items"):
        read_correctness(path)
    c = read_correctness(path, rows="items")
    assert c.model_names == tuple(NAMES) and c.shape == (12, 40) and c.item_names[:2] == ("q0", "q1")
    assert np.array_equal(c.values, matrix.to_numpy()) and "transposed" in c.read_as
    assert read_correctness(path, rows="models").shape == (40, 12)  # as written, when asked


def test_pandas_export_without_a_name_column_keeps_every_item(tmp_path, matrix):
    path = tmp_path / "m.csv"
    pd.DataFrame(matrix.to_numpy()[:2]).to_csv(path, index=False)  # header 0..39, K = 2
    c = read_correctness(path)
    assert c.shape == (2, 40) and c.model_names == ("model_1", "model_2")
    assert np.array_equal(c.values, matrix.to_numpy()[:2]) and "no name column" in c.read_as


@pytest.mark.parametrize("how", ["bom", "unnamed_index"])
def test_zero_padded_ids_stay_text(tmp_path, matrix, how):
    path = tmp_path / "m.csv"
    if how == "bom":
        matrix.to_csv(path, encoding="utf-8-sig")
    else:
        matrix.rename_axis(None).to_csv(path)
    c = read_correctness(path)
    assert c.model_names == tuple(NAMES) and c.item_names == tuple(matrix.columns)


def test_dates_keyed_by_zero_padded_ids_through_the_cli(tmp_path, matrix, capsys):
    path = tmp_path / "m.csv"
    matrix.to_csv(path, encoding="utf-8-sig")
    pd.DataFrame({"model": NAMES, "d": ["2022-05-01"] * 8 + ["2023-09-01"] * 4}).to_csv(
        tmp_path / "md.csv", index=False, encoding="utf-8-sig"
    )
    pd.DataFrame({"item": matrix.columns, "d": ["2023-01-01"] * 20 + ["2023-07-01"] * 20}).to_csv(
        tmp_path / "id.csv", index=False
    )
    argv = [str(path), "--correctness", "--lenses", "accuracy", "--out", str(tmp_path / "o")]
    argv += ["--item-dates", str(tmp_path / "id.csv"), "--model-dates", str(tmp_path / "md.csv")]
    assert main(["audit", *argv, "--split", "2023-06-01"]) == 0, capsys.readouterr().err
    s = json.loads((tmp_path / "o/summary.json").read_text())["contamination"]
    assert s["placed_models"] == 4 and s["line_models"] == 8


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (lambda p, m: m.to_csv(p, sep=";"), "seems ';'-separated: save it comma-separated"),
        (lambda p, m: m.rename(index=lambda s: s + "é").to_csv(p, encoding="latin-1"), "not UTF-8 text"),
        (lambda p, m: p.write_bytes(b"PK\x03\x04" + bytes(60)), "Excel workbook"),
    ],
)
def test_other_separators_encodings_and_workbooks_are_named(tmp_path, matrix, write, message):
    path = tmp_path / "m.csv"
    write(path, matrix)
    with pytest.raises(CorrectnessError, match=message) as err:
        read_correctness(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_pass_rates_with_float_noise_are_clipped_not_refused():
    c = check_correctness(np.array([[1.0000000002, 0.5, -1e-12], [0.25, 1.0, 0.0]]), ["a", "b"], "made")
    assert c.values[0, 0] == 1.0 and c.values[0, 2] == 0.0
    with pytest.raises(CorrectnessError, match="value 1.0001 "):
        check_correctness(np.array([[1.0001, 0.5]]), ["a"], "made")


# ---------------------------------------------------------------------------
# accuracy tables: percent or fractions
# ---------------------------------------------------------------------------


def _table(tmp_path, orig, new) -> str:
    path = tmp_path / "t.csv"
    pd.DataFrame({"model": [f"m{i}" for i in range(len(orig))], "o": orig, "n": new}).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize(
    ("orig", "new", "message"),
    [
        ([0.2, 0.3, 0.5, 0.9], [0.1, 0.2, 0.3, 0.7], "every accuracy is at most 1"),  # a hard benchmark?
        ([70, 75, 0.8, 90], [60, 65, 70, 80], "model 'm2' has 0.8 there"),  # a fraction among percent
        ([70, 75, 80, 90], [0.6, 0.65, 0.7, 0.8], "column 'n' has no value above 1"),  # fractions beside percent
    ],
)
def test_accuracy_scale_the_table_cannot_tell_is_asked(tmp_path, orig, new, message):
    from holdout.audit.engines.core import AuditError

    with pytest.raises(AuditError, match=message) as err:
        read_accuracy_table(_table(tmp_path, orig, new), ["o", "n"])
    assert "--scale" in str(err.value)


def test_accuracy_scale_given_or_clear(tmp_path):
    from holdout.audit.engines.core import AuditError

    hard = _table(tmp_path, [0.2, 0.3, 0.5, 0.9], [0.1, 0.2, 0.3, 0.7])
    t, how = read_accuracy_table(hard, ["o", "n"], "percent")
    assert t["o"].tolist() == pytest.approx([0.002, 0.003, 0.005, 0.009]) and how == "percent (--scale)"
    t, how = read_accuracy_table(hard, ["o", "n"], "fraction")
    assert t["o"].tolist() == pytest.approx([0.2, 0.3, 0.5, 0.9]) and how == "fractions (--scale)"
    t, how = read_accuracy_table(_table(tmp_path, [0, 50, 70, 100], [0, 45, 65, 99]), ["o", "n"])
    assert how == "percent" and t["o"].tolist() == [0, 0.5, 0.7, 1.0]  # 0% is 0 in either unit
    with pytest.raises(AuditError, match="model 'm1' has 75 in column 'o'; accuracies in fractions"):
        read_accuracy_table(_table(tmp_path, [0.7, 75, 0.8], [0.6, 0.7, 0.7]), ["o", "n"], "fraction")


def test_accuracy_table_as_spreadsheets_write_it(tmp_path):
    """Was: '81.2%' refused as non-numeric; a ';'- or tab-separated export and ' orig ' headers
    refused without saying why; a comma decimal called 'missing or non-numeric' without a hint."""
    from holdout.audit.engines.core import AuditError

    path = tmp_path / "t.csv"
    path.write_text("model, o , n\na,0.5%,0.4%\nb,70.2%,60.1%\nc,90%,85.5%\n")
    t, how = read_accuracy_table(path, ["o", "n"])
    assert how == "percent (% signs)" and t["o"].tolist() == pytest.approx([0.005, 0.702, 0.9])
    with pytest.raises(AuditError, match="carry % signs .*--scale fraction"):
        read_accuracy_table(path, ["o", "n"], "fraction")
    path.write_text("model,o,n\na,0.5%,0.4%\nb,70.2,60.1%\n")
    with pytest.raises(AuditError, match="some accuracies carry a % sign, but model 'b' has '70.2' in column 'o'"):
        read_accuracy_table(path, ["o", "n"])
    path.write_text('model,o,n\na,"81,2",75.0\n')
    with pytest.raises(AuditError, match=r"model 'a' .*\(o: '81,2', n: '75.0'\): write a number \(a decimal point"):
        read_accuracy_table(path, ["o", "n"])
    for sep in (";", "\t"):
        path.write_text(f"model{sep}o{sep}n\na{sep}81{sep}75\n")
        with pytest.raises(AuditError, match=re.escape(f"the file seems {sep!r}-separated: save it comma-separated")):
            read_accuracy_table(path, ["o", "n"])


def test_accuracy_table_with_models_at_0_and_100_percent_and_equal_originals(tmp_path, capsys):
    argv = ["audit", "--columns", "o", "n", "--sizes", "1000", "1000", "--out", str(tmp_path / "o")]
    edge = _table(tmp_path, [70, 75, 80, 85, 90, 100], [60, 65, 70, 75, 80, 0])
    assert main([*argv, "--accuracies", edge]) == 0, capsys.readouterr().err
    models = pd.read_csv(tmp_path / "o/models.csv")
    assert (models["er_ci_low"] <= models["effective_robustness"]).all()
    assert (models["effective_robustness"] <= models["er_ci_high"]).all()
    flat = _table(tmp_path, [70, 70, 70, 70], [60, 65, 70, 75])
    assert main([*argv, "--accuracies", flat, "--force"]) == 2
    assert "every model has the same 'o' accuracy (70%)" in _one_line(capsys)


# ---------------------------------------------------------------------------
# options of another input mode
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [["--split", "2023-01-01"], ["--samples", "4"], ["--lenses", "accuracy"], ["--eps", "0.01"], ["--rows", "items"]],
)
def test_accuracy_table_refuses_options_of_the_correctness_audit(tmp_path, capsys, extra):
    table = _table(tmp_path, [70, 75, 80, 90], [60, 65, 70, 80])
    argv = ["audit", "--accuracies", table, "--columns", "o", "n", "--sizes", "100", "100"]
    assert main([*argv, *extra, "--out", str(tmp_path / "o")]) == 2
    assert f"{extra[0]}: not read by --accuracies" in _one_line(capsys)  # --eps 0.01: typed, though the default
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("extra", [["--columns", "a", "b"], ["--sizes", "10", "10"], ["--scale", "percent"]])
def test_correctness_refuses_options_of_the_accuracy_table(tmp_path, matrix, capsys, extra):
    matrix.to_csv(tmp_path / "m.csv")
    assert main(["audit", str(tmp_path / "m.csv"), "--correctness", *extra, "--out", str(tmp_path / "o")]) == 2
    assert f"{extra[0]}: not read by --correctness" in _one_line(capsys)


# ---------------------------------------------------------------------------
# dates
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["today", "2023", "09/01/2023", "2023-1-5", "2023-02-30"])
def test_split_is_yyyy_mm_dd_only(text):
    with pytest.raises(CorrectnessError, match="is not a date written YYYY-MM-DD"):
        parse_date(text, "--split")


def test_dates_in_one_declared_format_never_guessed_cell_by_cell():
    cells = ["05/01/2023", "13/01/2023", "2023-02-01"]
    where = ["a", "b", "c"]
    with pytest.raises(CorrectnessError, match="a: '05/01/2023' is not a date written YYYY-MM-DD.*--date-format"):
        parse_dates(cells, where)
    days, _ = parse_dates(cells, where, "%d/%m/%Y")
    assert days.astype(str).tolist() == ["2023-01-05", "2023-01-13", "2023-02-01"]  # day first, each cell
    with pytest.raises(CorrectnessError, match="b: '13/01/2023' does not match --date-format %m/%d/%Y"):
        parse_dates(cells, where, "%m/%d/%Y")


def test_utc_offsets_are_converted_and_counted():
    cells = ["2023-08-30T23:30:00-05:00", "2023-08-30T23:30:00Z", "2023-08-31 01:00+02:00", "2023-08-30T12:00"]
    days, converted = parse_dates(cells, ["a", "b", "c", "d"])
    assert days.astype(str).tolist() == ["2023-08-31", "2023-08-30", "2023-08-30", "2023-08-30"]
    assert converted == 2


# ---------------------------------------------------------------------------
# the contamination line
# ---------------------------------------------------------------------------


def _counts(rows: list[tuple[int, int]], n: int = 1000) -> np.ndarray:
    """Models with k_orig of the n early items right and k_new of the n late ones."""
    v = np.zeros((len(rows), 2 * n))
    for i, (ko, kn) in enumerate(rows):
        v[i, :ko], v[i, n : n + kn] = 1, 1
    return v


def test_line_models_that_fit_exactly_do_not_flag_a_model_within_its_noise():
    # three line models exactly on new = orig - 10 (zero scatter); the placed one 0.4 points below
    v = _counts([(500, 400), (600, 500), (700, 600), (650, 546)])
    c = check_correctness(v, ["a", "b", "c", "late"], "made")
    items = np.array(["2023-01-01"] * 1000 + ["2023-07-01"] * 1000, dtype="datetime64[D]")
    models = np.array(["2022-01-01"] * 3 + ["2023-09-01"], dtype="datetime64[D]")
    res = contamination(c, items, models, np.datetime64("2023-06-01"))
    late = res.models.iloc[3]
    assert res.fit.residual_std == pytest.approx(0, abs=1e-9)
    assert not late["below_line"] and late["p"] > 0.3  # 0.4 points is well inside binomial noise
    # 20 points below is still flagged
    c = check_correctness(_counts([(500, 400), (600, 500), (700, 600), (650, 350)]), ["a", "b", "c", "late"], "m")
    assert contamination(c, items, models, np.datetime64("2023-06-01")).models.iloc[3]["below_line"]


def test_line_models_with_equal_original_accuracy_are_one_line():
    c = check_correctness(_counts([(500, 400), (500, 420), (500, 410), (650, 546)]), ["a", "b", "c", "late"], "m")
    items = np.array(["2023-01-01"] * 1000 + ["2023-07-01"] * 1000, dtype="datetime64[D]")
    models = np.array(["2022-01-01"] * 3 + ["2023-09-01"], dtype="datetime64[D]")
    with pytest.raises(CorrectnessError, match="the 3 line models .* have the same original accuracy"):
        contamination(c, items, models, np.datetime64("2023-06-01"))


def test_spreadsheet_serial_days_and_missing_cells_are_named(tmp_path):
    """Was: '45000' asked for --date-format (no strftime format reads a serial day count); a missing
    cell of a matrix named by its column number, not its item id."""
    with pytest.raises(CorrectnessError, match="'45000' is a number, not a date .*serial day count"):
        parse_dates(["2023-01-01", "45000"], ["d.csv (item a)", "d.csv (item b)"])
    path = tmp_path / "m.csv"
    path.write_text("model,q1,q2,q3\na,1,,0\nb,1,1,0\n")
    with pytest.raises(CorrectnessError, match="NaN or missing value for model 'a', item 'q2'"):
        read_correctness(path)
    path.write_text("model,q1,q2,q3\na,1,0,1.5\nb,1,1,0\n")
    with pytest.raises(CorrectnessError, match="value 1.5 for model 'a', item 'q3' is outside"):
        read_correctness(path)


def test_an_item_twice_in_the_header_is_refused(tmp_path):
    """Was: read as two test points (rc 0), the intervals narrower than the data allow."""
    path = tmp_path / "m.csv"
    path.write_text("model,q1,q1,q2\na,1,0,1\nb,1,1,0\n")
    with pytest.raises(CorrectnessError, match="item 'q1' appears 2 times: each item once"):
        read_correctness(path)
