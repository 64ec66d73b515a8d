"""Property-based test of the audit's input readers (hypothesis): random shapes, dtypes, NaN/inf,
names, encodings and header variants of .csv / .npy / .npz predictions and .csv / .npy labels.

The only allowed outcomes of ``holdout audit``: a correct result (exit 0, the best accuracy equal to
the one computed here from the generated data) or one clear error line (exit 2); never a traceback,
never a file written outside --out. A few seconds in the fast loop; ``-m slow`` runs the long profile.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from holdout.audit.cli import main  # noqa: E402

FAST = settings(
    max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None
)
LONG = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@dataclass(frozen=True)
class Case:
    """One generated input: the files' bytes and, when the generator knows it, the best accuracy."""

    predictions_name: str
    predictions: bytes
    labels_name: str
    labels: bytes
    extra: tuple[str, ...]
    best: float | None  # None: no claim (the reader may accept or refuse)


def _npy(arr: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


NAMES = st.one_of(
    st.text(
        st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Co", "Cn"), exclude_characters=",\"'"),
        min_size=0,
        max_size=6,
    ),
    st.integers(0, 3).map(str),
    st.sampled_from(["", "Unnamed: 0", "index", "../x", "a b", "é", "m1"]),
)


@st.composite
def matrices(draw) -> np.ndarray:
    k, n = draw(st.integers(1, 4)), draw(st.integers(1, 12))
    return np.asarray(draw(st.lists(st.lists(st.integers(0, 4), min_size=n, max_size=n), min_size=k, max_size=k)))


def _accuracy(preds: np.ndarray, labels: np.ndarray) -> float:
    return float((preds == labels[None]).mean(axis=1).max())


@st.composite
def labels_files(draw, y: np.ndarray) -> tuple[str, bytes, bool]:
    """Labels as .npy or .csv; sometimes corrupted (then no claim)."""
    broken = draw(st.integers(0, 5))
    z = y.astype(draw(st.sampled_from(["int64", "int8", "float64", "uint16"])))
    if broken == 1:
        z = z[:-1]
    elif broken == 2:
        z = z.astype(float)
        z[0] = draw(st.sampled_from([np.nan, np.inf, 0.5]))
    if draw(st.booleans()):
        return "labels.npy", _npy(z), broken in (1, 2)
    header = draw(st.sampled_from(["", "label\n", "y\n"]))
    text = header + "".join(f"{v}\n" for v in z)
    return "labels.csv", text.encode(draw(st.sampled_from(["utf-8", "utf-8-sig"]))), broken in (1, 2)


@st.composite
def csv_cases(draw) -> Case:
    preds = draw(matrices())
    y = draw(st.lists(st.integers(0, 4), min_size=preds.shape[1], max_size=preds.shape[1])).__iter__()
    labels = np.fromiter(y, dtype=np.int64)
    names = draw(st.lists(NAMES, min_size=preds.shape[0], max_size=preds.shape[0]))
    clean = all(n.strip() and not n.strip().replace(".", "").isdigit() for n in names)
    clean = clean and len({n.strip() for n in names}) == len(names)
    clean = clean and all(n.strip().lower() not in ("unnamed: 0", "index") for n in names)
    rows = [",".join(names), *(",".join(str(v) for v in col) for col in preds.T)]
    index = draw(st.sampled_from(["none", "unnamed", "named"]))
    if index != "none":
        rows = [("" if index == "unnamed" else "Unnamed: 0") + "," + rows[0]]
        rows += [f"{i}," + ",".join(str(v) for v in col) for i, col in enumerate(preds.T)]
    cell = draw(st.sampled_from(["ok", "nan", "empty", "text", "float", "semicolon"]))
    if cell != "ok" and preds.size:
        bad = {"nan": "nan", "empty": "", "text": "x", "float": "1.5", "semicolon": "1;2"}[cell]
        parts = rows[1].split(",")
        parts[-1] = bad
        rows[1] = ",".join(parts)
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "utf-16"]))
    try:
        data = ("\n".join(rows) + "\n").encode(encoding)
    except UnicodeEncodeError:
        data, encoding = ("\n".join(rows) + "\n").encode("utf-8"), "utf-8"
    lname, lbytes, lbroken = draw(labels_files(labels))
    ok = clean and cell == "ok" and encoding in ("utf-8", "utf-8-sig") and not lbroken
    ok = ok and all(n.isascii() for n in names)  # latin-1 and utf-16 differ only where names are not ASCII
    return Case("p.csv", data, lname, lbytes, (), _accuracy(preds, labels) if ok else None)


@st.composite
def npy_cases(draw) -> Case:
    preds = draw(matrices())
    labels = np.asarray(draw(st.lists(st.integers(0, 4), min_size=preds.shape[1], max_size=preds.shape[1])))
    shape = draw(st.sampled_from(["2d", "1d", "3d", "0d", "empty"]))
    dtype = draw(st.sampled_from(["int64", "int16", "uint8", "float64", "float32", "bool", "complex64", "<U2"]))
    arr = {
        "2d": preds,
        "1d": preds[0],
        "3d": np.repeat(preds[:, :, None], 2, axis=2),
        "0d": np.asarray(3),
        "empty": np.zeros((preds.shape[0], 0), dtype=int),
    }[shape].astype(dtype)
    if dtype.startswith("float") and draw(st.booleans()) and arr.size:
        arr.flat[0] = draw(st.sampled_from([np.nan, np.inf, -np.inf, 0.5]))
    extra: tuple[str, ...] = ()
    if draw(st.booleans()):
        names = draw(st.lists(NAMES, min_size=1, max_size=5))
        extra = ("--model-names", ",".join(names))
    lname, lbytes, lbroken = draw(labels_files(labels))
    ok = shape in ("2d", "1d") and dtype in ("int64", "int16", "uint8") and not extra and not lbroken
    want = _accuracy(preds if shape == "2d" else preds[:1], labels) if ok else None
    return Case("p.npy", _npy(arr), lname, lbytes, extra, want)


@st.composite
def npz_cases(draw) -> Case:
    import io

    preds = draw(matrices())
    labels = np.asarray(draw(st.lists(st.integers(0, 4), min_size=preds.shape[1], max_size=preds.shape[1])))
    names = draw(st.sampled_from(["good", "2d", "numeric", "short", "missing"]))
    arrays = {"predictions": preds, "labels": labels}
    k = preds.shape[0]
    if names != "missing":
        arrays["model_names"] = {
            "good": np.array([f"m{i}" for i in range(k)]),
            "2d": np.array([[f"m{i}"] for i in range(k)]),
            "numeric": np.arange(k),
            "short": np.array(["m"]),
        }[names]
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    data = buf.getvalue()
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data) - 1))]  # truncated
        names = "truncated"
    ok = names in ("good", "numeric")
    return Case("p.npz", data, "", b"", (), _accuracy(preds, labels) if ok else None)


def _run(case: Case) -> None:
    with tempfile.TemporaryDirectory(prefix="holdout-prop-") as top:
        top = Path(top)
        inputs = top / "in"
        inputs.mkdir()
        (inputs / case.predictions_name).write_bytes(case.predictions)
        argv = ["audit", str(inputs / case.predictions_name), "--out", str(top / "out"), "--lenses", "accuracy"]
        if case.labels_name:
            (inputs / case.labels_name).write_bytes(case.labels)
            argv += ["--labels", str(inputs / case.labels_name)]
        before = sorted(p.relative_to(top) for p in top.rglob("*"))
        cwd = os.getcwd()
        os.chdir(top)  # a relative write would land here
        try:
            import contextlib
            import io

            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = main([*argv, *case.extra])
        finally:
            os.chdir(cwd)
        after = sorted(p.relative_to(top) for p in top.rglob("*") if not p.is_relative_to(top / "out"))
        assert after == [p for p in before], f"wrote outside --out: {set(after) - set(before)}"
        message = err.getvalue().strip().splitlines()
        if rc == 2:
            errors = [m for m in message if m.startswith("holdout audit: error: ")]
            assert len(errors) == 1 and "Traceback" not in err.getvalue(), err.getvalue()
            assert not (top / "out").exists()
            # random labels without a 0 can look 1-based: that refusal (a heuristic) is a clear line too
            assert case.best is None or "labels look 1-based" in errors[0], f"refused a valid input: {errors[0]}"
            return
        assert rc == 0, err.getvalue()
        summary = json.loads((top / "out/summary.json").read_text())
        if case.best is not None:
            assert summary["accuracy"]["best"]["accuracy"] == pytest.approx(100 * case.best)


CASES = st.one_of(csv_cases(), npy_cases(), npz_cases())


@FAST
@given(CASES)
def test_readers_give_a_result_or_one_clear_line(case):
    _run(case)


@pytest.mark.slow
@LONG
@given(CASES)
def test_readers_long_profile(case):
    _run(case)
