"""Readers of the four public leaderboard files (layouts as in their source repositories).

* timm's ``results-<set>.csv`` (pytorch-image-models/results): one row per (model, image size),
  top-1 in percent; [`timm_table`][holdout.leaderboards.sources.timm_table] joins the sets.
* the ImageNet robustness testbed's ``robustness_top1s.csv``: 338 models x 213 settings, percent,
  blanks where not evaluated ([`testbed_table`][holdout.leaderboards.sources.testbed_table]).
* EvalPlus ``results.json``: per model ``pass@1`` (percent) on humaneval, humaneval+, mbpp,
  mbpp+ ([`evalplus_table`][holdout.leaderboards.sources.evalplus_table]).
* LiveCodeBench ``performances_generation.json``: pass@1 (percent, 10 samples) of 45 models on
  400 problems with contest dates, and each model's release date
  ([`livecodebench`][holdout.leaderboards.sources.livecodebench]).

Every table comes out with a ``model`` column and accuracies as fractions in [0, 1].
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.leaderboards.correctness import CorrectnessMatrix, check_correctness

__all__ = ["LiveCodeBench", "evalplus_table", "livecodebench", "pair_table", "testbed_table", "timm_table"]


def timm_table(files: Mapping[str, str | Path]) -> pd.DataFrame:
    """One row per timm (model, img_size), one top-1 column (fraction) per set name in ``files``;
    the model column is ``<model>@<img_size>`` (a model is evaluated at several sizes)."""
    out: pd.DataFrame | None = None
    for name, path in files.items():
        df = pd.read_csv(path)
        part = pd.DataFrame({"model": df["model"] + "@" + df["img_size"].astype(str), name: df["top1"] / 100})
        out = part if out is None else out.merge(part, on="model", how="inner", validate="one_to_one")
    assert out is not None
    return out.sort_values("model", kind="stable").reset_index(drop=True)


def testbed_table(path: str | Path, columns: list[str]) -> pd.DataFrame:
    """The testbed's ``model`` and ``columns`` (fractions), models evaluated on all of them."""
    df = pd.read_csv(path)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"{path}: no column {missing[0]!r}")
    out = df[["model", *columns]].dropna()
    return out.assign(**{c: out[c] / 100 for c in columns}).reset_index(drop=True)


def evalplus_table(path: str | Path, base: str, plus: str) -> pd.DataFrame:
    """``model``, ``base``, ``plus`` pass@1 (fractions) of the models with both values."""
    data = json.loads(Path(path).read_text())
    rows = [
        {"model": m, base: v["pass@1"].get(base), plus: v["pass@1"].get(plus)}
        for m, v in data.items()
        if isinstance(v, dict) and isinstance(v.get("pass@1"), dict)
    ]
    df = pd.DataFrame(rows).dropna()
    return df.assign(**{c: df[c].astype(float) / 100 for c in (base, plus)}).reset_index(drop=True)


@dataclass(frozen=True)
class LiveCodeBench:
    """Correctness (pass rates over ``samples`` samples), the problems' contest dates and ids, and
    each model's release date (its training cut-off)."""

    correctness: CorrectnessMatrix
    items: tuple[str, ...]
    item_dates: np.ndarray
    model_dates: np.ndarray


def _day(ms: pd.Series) -> np.ndarray:
    return pd.to_datetime(ms, unit="ms", utc=True).dt.tz_localize(None).to_numpy().astype("datetime64[D]")


def livecodebench(path: str | Path, samples: int = 10) -> LiveCodeBench:
    """The 45 x 400 pass@1 matrix (percent -> fraction), problems in contest-date order."""
    data = json.loads(Path(path).read_text())
    perf = pd.DataFrame(data["performances"])
    wide = perf.pivot_table(index="model", columns="question_id", values="pass@1", aggfunc="first")
    dates = perf.drop_duplicates("question_id").set_index("question_id")["date"]
    items = sorted(wide.columns, key=lambda q: (dates[q], q))
    models = pd.DataFrame(data["models"]).drop_duplicates("model_repr").set_index("model_repr")
    names = [m for m in models.index if m in wide.index]
    c = check_correctness(wide.loc[names, items].to_numpy() / 100, names, str(path), samples)
    return LiveCodeBench(c, tuple(items), _day(dates[items]), _day(models.loc[names, "release_date"]))


def pair_table(source: str, files: Mapping[str, str | Path], original: str, new: str) -> pd.DataFrame:
    """``model``, ``original``, ``new`` accuracies (fractions) of one configured pair.

    ``files``: for ``timm`` the results CSV of each set name, for ``testbed`` / ``evalplus`` the
    one file under the key ``source``.
    """
    if source == "timm":
        return timm_table({original: files[original], new: files[new]})
    if source == "testbed":
        return testbed_table(files["testbed"], [original, new])
    if source == "evalplus":
        return evalplus_table(files["evalplus"], original, new)
    raise ValueError(f"unknown leaderboard source {source!r} (timm, testbed, evalplus)")
