"""holdout audit on careless or degenerate input: one clear line (exit 2) or a result whose lens says
why it does not apply; outputs that appear whole, never beside another run's files or a user's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from holdout.audit import AuditError
from holdout.audit import run as audit_run
from holdout.audit.cli import main
from holdout.audit.inputs import check_memory, estimate_memory, peek_shape
from holdout.predictions import Predictions, save_predictions

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PREDS = REPO / "config/examples/user_predictions.csv"
EXAMPLE_LABELS = REPO / "config/examples/user_labels.npy"
EXAMPLE = ["audit", str(EXAMPLE_PREDS), "--labels", str(EXAMPLE_LABELS)]
FAST = ["--lenses", "accuracy,rvw"]  # no figures beyond one: fast


def _error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def _notes(out: Path) -> str:
    return " ".join(json.loads((out / "summary.json").read_text())["notes"])


def _models(tmp_path: Path, preds: np.ndarray, labels: np.ndarray) -> list[str]:
    np.save(tmp_path / "p.npy", preds)
    np.save(tmp_path / "y.npy", labels)
    return ["audit", str(tmp_path / "p.npy"), "--labels", str(tmp_path / "y.npy"), "--lenses", "accuracy,bounds"]


@pytest.fixture(scope="module")
def base() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, 50_000)
    return y, np.where(rng.random(y.size) < 0.9, y, (y + 1) % 10)


# --- degenerate but valid inputs: a result, the lens "not applicable because ..." ---------------


def test_identical_models_bounds_not_applicable(tmp_path, base):
    y, p = base
    argv = _models(tmp_path, np.stack([p, p, p]), y)
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    assert "not applicable because the models make identical mistakes" in _notes(tmp_path / "o")


def test_models_differing_on_one_of_50000_points(tmp_path, base):
    y, p = base
    q = p.copy()
    q[0] = (q[0] + 1) % 10
    argv = _models(tmp_path, np.stack([p, q]), y)
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    assert "not applicable because the models are nearly identical" in _notes(tmp_path / "o")


def test_all_models_perfect(tmp_path, base):
    y, _ = base
    argv = _models(tmp_path, np.stack([y, y]), y)
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    assert "not applicable because every model is right on every test point" in _notes(tmp_path / "o")


def test_one_model_marks_pair_lenses_not_applicable(tmp_path, base):
    y, p = base
    argv = _models(tmp_path, p[None], y)
    assert main([*argv[:-2], "--lenses", "accuracy,similarity,bounds", "--out", str(tmp_path / "o")]) == 0
    assert "not applicable because the audit holds 1 model" in _notes(tmp_path / "o")


def test_two_models_on_a_new_test_set_mark_the_fit_not_applicable(tmp_path, base):
    y, p = base
    argv = _models(tmp_path, np.stack([p, y]), y)
    new = ["--new-predictions", str(tmp_path / "p.npy"), "--new-labels", str(tmp_path / "y.npy")]
    assert main([*argv[:-2], "--lenses", "accuracy,new", *new, "--out", str(tmp_path / "o")]) == 0
    assert "linear fit (Recht et al. Eq. 3) is not applicable because it needs at least 3 models" in _notes(
        tmp_path / "o"
    )


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_adaptive_runs_on_the_shipped_three_model_example(tmp_path):
    out = tmp_path / "o"
    assert main([*EXAMPLE, "--out", str(out), "--lenses", "accuracy", "--adaptive"]) == 0
    assert (out / "adaptive" / "table.csv").is_file()
    assert "votes over all 3 models" in _notes(out)


# --- options: one clear line ------------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "nan", "0.5", "-3"])
def test_rvw_C_out_of_range(capsys, tmp_path, value):
    err = _error(capsys, [*EXAMPLE, *FAST, "--out", str(tmp_path / "o"), "--search-size", "8", "--rvw-C", value])
    assert "--rvw-C must be a finite number of bits >= 1" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("value", ["1e400", "1" + "0" * 400, "0", "ten", "2.5"])
def test_search_size_out_of_range(capsys, tmp_path, value):
    err = _error(capsys, [*EXAMPLE, *FAST, "--out", str(tmp_path / "o"), "--search-size", value])
    assert "--search-size must be a whole number" in err


def test_option_type_errors_are_one_line(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main([*EXAMPLE, "--out", str(tmp_path / "o"), "--eps", "abc"])
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and "\n" not in err and "argument --eps: invalid float value: 'abc'" in err


def test_search_size_in_scientific_notation(tmp_path):
    assert main([*EXAMPLE, *FAST, "--out", str(tmp_path / "o"), "--search-size", "1e6"]) == 0
    assert json.loads((tmp_path / "o/summary.json").read_text())["rvw"]["bits"] == 20


def test_latin1_description_named(capsys, tmp_path):
    desc = tmp_path / "d.yaml"
    desc.write_bytes("name: caf\xe9\n".encode("latin-1"))
    err = _error(capsys, [*EXAMPLE, *FAST, "--out", str(tmp_path / "o"), "--rvw-description", str(desc)])
    assert str(desc) in err and "save it as UTF-8" in err


def test_npz_refuses_options_that_do_not_apply(capsys, tmp_path):
    preds = Predictions.create([[0, 1, 1], [1, 1, 0]], [0, 1, 1], ["a", "b"], num_classes=2)
    save_predictions(tmp_path / "p.npz", preds)
    for extra in (["--model-names", "x,y"], ["--num-classes", "5"], ["--scores"]):
        err = _error(capsys, ["audit", str(tmp_path / "p.npz"), "--out", str(tmp_path / "o"), *extra])
        assert "p.npz" in err and extra[0] in err and "do not apply to a .npz" in err


def test_memory_estimate_refuses_before_the_lenses():
    assert estimate_memory(100_000, 300) > 80 * 2**30  # K^2 pairs: the 100,000-column case
    with pytest.raises(AuditError, match=r"p.csv: 3 models x 10 test points need about .* --force"):
        check_memory(3, 10, source="p.csv", available=100)
    check_memory(3, 10, force=True, source="p.csv", available=100)
    check_memory(3, 10, source="p.csv", available=2**30)


def test_wide_csv_refused_before_it_is_read(capsys, tmp_path):
    """100,000 model columns: refused in well under a second from the header and line count."""
    path = tmp_path / "wide.csv"
    k = 100_000
    path.write_text(",".join(f"m{i}" for i in range(k)) + "\n" + ("0," * (k - 1) + "0\n") * 300)
    err = _error(capsys, ["audit", str(path), "--labels", str(EXAMPLE_LABELS), "--out", str(tmp_path / "o")])
    assert "wide.csv: 100,000 models x 300 test points need about" in err and "--force" in err
    assert peek_shape(path) == (k, 300)


# --- outputs: owned and atomic ------------------------------------------------------------------


def test_out_holding_an_input_is_refused(capsys, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    labels = data / "labels.npy"
    labels.write_bytes(EXAMPLE_LABELS.read_bytes())
    before = labels.read_bytes()
    for extra in ([], ["--force"]):
        err = _error(capsys, ["audit", str(EXAMPLE_PREDS), "--labels", str(labels), *FAST, "--out", str(data), *extra])
        assert f"--out {data}: holds the input {labels}" in err
    assert labels.read_bytes() == before and sorted(p.name for p in data.iterdir()) == ["labels.npy"]


def test_out_with_foreign_files_refused_unless_force(capsys, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "accuracy.csv").write_text("my own table\n")
    err = _error(capsys, [*EXAMPLE, *FAST, "--out", str(out)])
    assert "holds 1 file(s) that no audit wrote (accuracy.csv)" in err and "--force" in err
    assert (out / "accuracy.csv").read_text() == "my own table\n"
    assert main([*EXAMPLE, *FAST, "--out", str(out), "--force"]) == 0
    assert (out / "accuracy.csv").read_text() != "my own table\n"
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("o.replaced-")]
    assert len(kept) == 1 and (kept[0] / "accuracy.csv").read_text() == "my own table\n"  # moved, not deleted
    assert f"were moved to {kept[0]}" in capsys.readouterr().err


def test_working_folder_or_root_as_out_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for out in (".", "/", str(tmp_path.parent)):
        err = _error(capsys, [*EXAMPLE, *FAST, "--out", out, "--force"])
        assert "is the working folder or one above it" in err


def test_rerun_leaves_no_file_of_the_previous_run(tmp_path):
    out = tmp_path / "o"
    assert main([*EXAMPLE, *FAST, "--out", str(out), "--search-size", "8"]) == 0
    assert (out / "rvw.csv").is_file()
    assert main([*EXAMPLE, "--lenses", "accuracy", "--out", str(out)]) == 0
    assert not (out / "rvw.csv").exists()
    written = json.loads((out / ".holdout-manifest.json").read_text())["files"]
    assert sorted(written) == sorted(p.name for p in out.iterdir() if p.name != ".holdout-manifest.json")
    assert [p.name for p in tmp_path.iterdir()] == ["o"]  # no temporary folder left beside it


def test_interrupted_run_keeps_the_previous_result(capsys, tmp_path, monkeypatch):
    out = tmp_path / "o"
    assert main([*EXAMPLE, *FAST, "--out", str(out), "--search-size", "8"]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real = audit_run._write_figures

    def interrupt_midway(result, folder):
        real(result, folder)  # some files written, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(audit_run, "_write_figures", interrupt_midway)
    capsys.readouterr()
    assert main([*EXAMPLE, "--lenses", "accuracy", "--out", str(out)]) == 130
    assert f"interrupted: {out}: left unchanged (the previous complete result)" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["o"]
    fresh = tmp_path / "fresh"
    assert main([*EXAMPLE, "--lenses", "accuracy", "--out", str(fresh)]) == 130
    assert f"interrupted: {fresh}: nothing written" in capsys.readouterr().err
    assert not fresh.exists()


# --- inputs matched, not assumed ----------------------------------------------------------------


def _translation_inputs(tmp_path: Path, names: list[str] | None, n: int | None = None, shift: int = 0) -> list[str]:
    from holdout.adversarial.translations_file import read_translations

    data = read_translations(EXAMPLE_TRANSLATIONS)
    centre = int(np.flatnonzero(np.all(data.vectors == 0, axis=1))[0])
    n = n or data.num_examples
    np.save(tmp_path / "p.npy", data.predictions[:, :n, centre])
    np.save(tmp_path / "y.npy", (data.labels[:n] + shift) % 10)
    argv = ["audit", str(tmp_path / "p.npy"), "--labels", str(tmp_path / "y.npy"), "--out", str(tmp_path / "o")]
    argv += ["--translations", str(EXAMPLE_TRANSLATIONS), "--lenses", "accuracy,adversarial"]
    return argv + (["--model-names", ",".join(names)] if names else [])


EXAMPLE_TRANSLATIONS = REPO / "config/examples/seeds_translations.npz"
SEEDS = ["seed000", "seed001", "seed002", "seed003"]


def test_translations_of_other_models_refused_naming_both(capsys, tmp_path):
    err = _error(capsys, _translation_inputs(tmp_path, ["a", "b", "c", "d"]))
    assert "--translations" in err and "seeds_translations.npz" in err
    assert "holds models seed000, seed001, seed002, seed003, the audit of p has a, b, c, d" in err
    assert not (tmp_path / "o").exists()


def test_translations_of_another_test_set_refused_naming_both(capsys, tmp_path):
    err = _error(capsys, _translation_inputs(tmp_path, SEEDS, n=200))
    assert "holds 300 test images, the audit of p has n = 200" in err
    err = _error(capsys, _translation_inputs(tmp_path, SEEDS, shift=1))
    assert "its labels (fingerprint" in err and "differ from those of p (fingerprint" in err


def test_translations_of_the_same_models_in_another_order_accepted(tmp_path):
    assert main(_translation_inputs(tmp_path, SEEDS)) == 0


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("eps", np.array("one"), "eps must be one number, got <U3"),
        ("eps", np.array([1.0, 2.0]), r"eps must be one number, got float64 of shape \(2,\)"),
        ("eps", np.float64(1e7), "eps = 1e[+]07 pixels: V_eps has at least"),
        ("excess_logits", "strings", "excess_logits must hold numbers"),
        ("models", "objects", "field 'models' is unreadable"),
        (None, None, r"not a readable \.npz file \(BadZipFile"),
    ],
)
def test_bad_translations_field_names_the_translations_file(capsys, tmp_path, field, value, message):
    """Was: 'the audit of p.npy: could not convert string to float' (the predictions blamed) or an
    out-of-memory error on the predictions."""
    argv = _translation_inputs(tmp_path, SEEDS)
    bad = tmp_path / "t.npz"
    if field is None:
        bad.write_bytes(EXAMPLE_TRANSLATIONS.read_bytes()[:500])
    else:
        with np.load(EXAMPLE_TRANSLATIONS) as z:
            arrays = {k: z[k] for k in z.files}
        made = {"strings": np.full(arrays["predictions"].shape, "x"), "objects": arrays["models"].astype(object)}
        arrays[field] = made[value] if isinstance(value, str) and value in made else value
        np.savez(bad, **arrays)
    argv[argv.index(str(EXAMPLE_TRANSLATIONS))] = str(bad)
    err = _error(capsys, argv)
    assert re.match(rf"holdout audit: error: --translations {bad}: {message}", err), err
    assert "p.npy" not in err


@pytest.mark.parametrize("index", ["", "Unnamed: 0", "idx"])
def test_pandas_index_column_dropped_with_a_notice(capsys, tmp_path, index):
    import pandas as pd

    df = pd.read_csv(EXAMPLE_PREDS)
    df.index.name = index or None
    path = tmp_path / "p.csv"
    df.to_csv(path) if index != "Unnamed: 0" else df.reset_index().rename(columns={"index": index}).to_csv(
        path, index=False
    )
    out = tmp_path / "o"
    assert (
        main(["audit", str(path), "--labels", str(EXAMPLE_LABELS), "--lenses", "accuracy,bounds", "--out", str(out)])
        == 0
    )
    assert "an index, as pandas writes it): dropped" in capsys.readouterr().err
    s = json.loads((out / "summary.json").read_text())
    assert s["num_models"] == 3 and any("dropped" in x for x in s["inputs"])
    assert s["bounds"]["similarity"] == pytest.approx(0.862, abs=5e-4)  # not 0.507 with the index


def test_unnamed_first_column_that_is_not_an_index_refused(capsys, tmp_path):
    path = tmp_path / "p.csv"
    lines = EXAMPLE_PREDS.read_text().splitlines()
    path.write_text("\n".join([f",{lines[0]}", *(f"7,{x}" for x in lines[1:])]) + "\n")
    err = _error(capsys, ["audit", str(path), "--labels", str(EXAMPLE_LABELS), *FAST, "--out", str(tmp_path / "o")])
    assert "p.csv: the first column has no model name" in err


def test_numeric_model_names_accepted_when_named(capsys, tmp_path):
    path = tmp_path / "seeds.csv"
    lines = EXAMPLE_PREDS.read_text().splitlines()
    path.write_text("\n".join(["0,1,2", *lines[1:]]) + "\n")
    argv = ["audit", str(path), "--labels", str(EXAMPLE_LABELS), *FAST, "--out", str(tmp_path / "o")]
    err = _error(capsys, argv)
    assert "pass the same names as --model-names" in err
    assert main([*argv, "--model-names", "0,1,2"]) == 0
    assert json.loads((tmp_path / "o/summary.json").read_text())["accuracy"]["best_model"] in {"0", "1", "2"}


def test_two_dimensional_model_names_in_npz_refused(capsys, tmp_path):
    np.savez(tmp_path / "p.npz", predictions=np.array([[0, 1], [1, 1]]), labels=np.array([0, 1]),
             model_names=np.array([["a"], ["b"]]))  # fmt: skip
    err = _error(capsys, ["audit", str(tmp_path / "p.npz"), *FAST, "--out", str(tmp_path / "o")])
    assert "p.npz: model_names must be a vector of K names, got shape (2, 1)" in err


# --- the new test set's file, as its options apply to it ------------------------------------------


def _sets(tmp_path: Path) -> dict[str, str]:
    rng = np.random.default_rng(3)
    y, y_new = rng.integers(0, 10, 60), rng.integers(0, 10, 40)
    p = np.where(rng.random((3, 60)) < 0.8, y, rng.integers(0, 10, (3, 60)))
    p_new = np.where(rng.random((3, 40)) < 0.7, y_new, rng.integers(0, 10, (3, 40)))
    save_predictions(tmp_path / "p.npz", Predictions.create(p, y, ["a", "b", "c"], num_classes=10))
    save_predictions(tmp_path / "N.NPZ", Predictions.create(p_new, y_new, ["a", "b", "c"], num_classes=10))
    np.save(tmp_path / "p.npy", p)
    np.save(tmp_path / "scores.npy", np.eye(10, dtype=np.float32)[p])
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "new.npy", p_new)
    np.save(tmp_path / "new_scores.npy", np.eye(10, dtype=np.float32)[p_new])
    np.save(tmp_path / "y_new.npy", y_new)
    return {
        k: str(tmp_path / f)
        for k, f in [("npz", "p.npz"), ("NPZ", "N.NPZ")]
        + [(s, f"{s}.npy") for s in ("p", "scores", "y", "new", "new_scores", "y_new")]
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["{npz}", "--new-predictions", "{new}"],  # was: 'm0' is in one file only (a .npy has no names)
        ["{npz}", "--new-predictions", "{new}", "--new-labels", "{y_new}"],
        ["{p}", "--labels", "{y}", "--model-names", "a,b,c", "--new-predictions", "{NPZ}"],  # was: not .csv or .npy
        ["{scores}", "--labels", "{y}", "--scores", "--model-names", "a,b,c", "--new-predictions", "{NPZ}"],
    ],
)
def test_new_predictions_read_as_their_own_kind(tmp_path, argv):
    """Was: a .npy's models named model_0.. against a .npz's names; PREDICTIONS' --model-names / --scores
    refused for a .npz new set; an upper-case .NPZ read as a CSV."""
    files = _sets(tmp_path)
    args = ["audit", *(a.format(**files) for a in argv), "--lenses", "accuracy", "--out", str(tmp_path / "o")]
    assert main(args) == 0


def test_new_scores_without_new_labels_ask_for_new_labels(capsys, tmp_path):
    files = _sets(tmp_path)
    argv = ["audit", files["scores"], "--labels", files["y"], "--scores", "--new-predictions", files["new_scores"]]
    err = _error(capsys, [*argv, "--lenses", "accuracy", "--out", str(tmp_path / "o")])
    assert err.endswith(
        "a 3-D array (scores or top-k) is read with its labels: give --new-labels, or the K x n predicted classes"
    )
    assert "--labels" not in err.replace("--new-labels", "")
