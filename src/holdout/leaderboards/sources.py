"""Readers of the four public leaderboard files (layouts as in their source repositories).

* timm's ``results-<set>.csv`` (pytorch-image-models/results): one row per (model, image size),
  top-1 in percent; [`timm_table`][holdout.leaderboards.sources.timm_table] joins the sets.
* the ImageNet robustness testbed's ``robustness_top1s.csv``: 338 models x 213 settings, percent,
  blanks where not evaluated ([`testbed_table`][holdout.leaderboards.sources.testbed_table]).
* EvalPlus ``results.json``: per model ``pass@1`` (percent) on humaneval, humaneval+, mbpp,
  mbpp+ ([`evalplus_table`][holdout.leaderboards.sources.evalplus_table]).
* LiveCodeBench ``performances_generation.json``: pass@1 (percent, 10 samples) of 45 models on
  400 problems with contest dates and platforms, and each model's ``release_date`` field (the
  site's contamination marker, not a release date)
  ([`livecodebench`][holdout.leaderboards.sources.livecodebench]).

Every table comes out with a ``model`` column and accuracies as fractions in [0, 1].
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

from holdout.leaderboards.correctness import CorrectnessMatrix, check_correctness

__all__ = [
    "EXTRA_DATA_TAGS",
    "LiveCodeBench",
    "evalplus_table",
    "fits_size",
    "split_off_size",
    "livecodebench",
    "pair_table",
    "testbed_table",
    "timm_architecture",
    "timm_in1k_only",
    "timm_table",
]

#: tokens of a timm pretrained tag that name training data beyond ImageNet-1k, or a fine-tune from
#: another pretraining (``ft``): pretraining sets (in12k/21k/22k, LAION, CLIP/OpenAI, JFT, IG, YFCC,
#: WebLI, merged 30M/38M sets, SEER), semi-supervised or distilled with extra data (noisy student
#: ``ns``, SSLD), self-supervised pretraining (MIM, MAE, FCMAE), and ``teacher`` / ``indomain``
EXTRA_DATA_TAGS = frozenset(
    "ft in12k in21k in22k laion2b laiona clip openai m30m m38m webli jft ns swag ig1b wsl swsl ssl yfcc100m "
    "seer ssld 6m mim mae fcmae teacher indomain".split()
)


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


def timm_architecture(models: list[str] | pd.Series) -> np.ndarray:
    """The architecture of each timm row (``<model>.<tag>@<size>`` -> ``<model>``): the rows of one
    architecture (its image sizes, its pretrained weights) are not independent."""
    return np.array([str(name).split("@", 1)[0].partition(".")[0] for name in models])


def timm_in1k_only(models: list[str] | pd.Series) -> np.ndarray:
    """Which timm rows (``<model>.<tag>@<size>``) were trained on ImageNet-1k alone, as far as the
    pretrained tag says: ``in1k`` among its ``_``-separated tokens and none of ``EXTRA_DATA_TAGS``.

    The models of Taori et al.'s (2020) baseline ("standard models" trained on ImageNet only); a
    reading of timm's naming, not of each model card.
    """
    out = []
    for name in models:
        tag = str(name).split("@", 1)[0].partition(".")[2]
        tokens = set(tag.split("_"))
        out.append("in1k" in tokens and not tokens & EXTRA_DATA_TAGS)
    return np.array(out, dtype=bool)


def testbed_table(path: str | Path, columns: list[str]) -> pd.DataFrame:
    """The testbed's ``model`` and ``columns`` (fractions), models evaluated on all of them."""
    df = pd.read_csv(path)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"{path}: no column {missing[0]!r}")
    out = df[["model", *columns]].dropna()
    return out.assign(**{c: out[c] / 100 for c in columns}).reset_index(drop=True)


def fits_size(percent: npt.ArrayLike, n: int) -> np.ndarray:
    """Whether each pass@1 (percent, one decimal) can be a pass rate over n problems: k / n * 100,
    rounded to one decimal, for an integer k."""
    v = np.asarray(percent, dtype=float)
    k = np.round(v * n / 100)
    return np.abs(k / n * 100 - v) <= 0.05 + 1e-9


def split_off_size(table: pd.DataFrame, columns: list[str], sizes: list[int]) -> tuple[pd.DataFrame, list[str]]:
    """The rows whose every value (fractions) is a pass rate over its set's size, and the names of
    the others (a value published for another version of the set: EvalPlus's MBPP+ v0.1, 399
    problems, beside v0.2's 378)."""
    ok = np.ones(len(table), dtype=bool)
    for col, n in zip(columns, sizes, strict=True):
        ok &= fits_size(np.round(100 * table[col].to_numpy(float), 1), n)
    return table[ok].reset_index(drop=True), table.loc[~ok, "model"].tolist()


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
    """Correctness (pass rates over ``samples`` samples), the problems' contest dates, ids and
    platforms, and each model's ``release_date`` field: the date LiveCodeBench's site assigns to a
    model for its contamination marker (a cut-off as the site reads it, a placeholder 2023-01-01 for
    many models), not its release date."""

    correctness: CorrectnessMatrix
    items: tuple[str, ...]
    item_dates: np.ndarray
    model_dates: np.ndarray
    item_platforms: np.ndarray


def _day(ms: pd.Series) -> np.ndarray:
    return pd.to_datetime(ms, unit="ms", utc=True).dt.tz_localize(None).to_numpy().astype("datetime64[D]")


def livecodebench(path: str | Path, samples: int = 10) -> LiveCodeBench:
    """The 45 x 400 pass@1 matrix (percent -> fraction), problems in contest-date order."""
    data = json.loads(Path(path).read_text())
    perf = pd.DataFrame(data["performances"])
    wide = perf.pivot_table(index="model", columns="question_id", values="pass@1", aggfunc="first")
    first = perf.drop_duplicates("question_id").set_index("question_id")
    dates = first["date"]
    items = sorted(wide.columns, key=lambda q: (dates[q], q))
    models = pd.DataFrame(data["models"]).drop_duplicates("model_repr").set_index("model_repr")
    names = [m for m in models.index if m in wide.index]
    c = check_correctness(wide.loc[names, items].to_numpy() / 100, names, str(path), samples)
    platforms = first["platform"].reindex(items).to_numpy(str) if "platform" in first else np.full(len(items), "")
    return LiveCodeBench(c, tuple(items), _day(dates[items]), _day(models.loc[names, "release_date"]), platforms)


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
