"""Fresh items by date: Recht et al.'s new-test-set setting made from time (contamination).

Items released before a split date form the "original" test set, items released on or after it
the "new" one. Models whose training cut-off precedes the *first* item have seen none of them;
their (original, new) accuracies define the line of new on original accuracy (Recht et al. 2018
Eq. 3, with its band). Every model whose cut-off falls on or after the split is placed against that
line: a model that trained on the original items scores higher there than its skill predicts, so
it lies below the line. Models whose cut-off falls inside the original period (after the first
item, before the split) may have trained on part of the original items: they are neither on the
line nor placed (``excluded``), so they cannot lower the line and hide contamination.

The verdict ``below_line`` is a one-sided test against the line's prediction interval
t_{N-2} sqrt(max(s^2, v) + s^2 (1/N + (x - x_bar)^2 / Sxx)), Holm-corrected over the placed models:
a heuristic test (the scatter s of the line's own models is the reference, but never below v, the
placed model's own item-sampling variance of new - slope x orig, paired with the line models on
the same items, so that line models that happen to fit exactly do not flag a gap within noise).
A model below the line is *consistent with* contamination; a drift specific to a model family or
item type can do the same.
``detectable_drop`` says how far below the line's prediction a model must lie, at the line's mean
accuracy, to be flagged by the first Holm step (the test's reach with these sizes).

Dates are read as written in one declared format
([`parse_dates`][holdout.leaderboards.dates.parse_dates]): ISO 8601 unless a ``strftime`` format
is given, never guessed cell by cell; a date with a UTC offset becomes its UTC calendar day.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.leaderboards.correctness import CorrectnessError, CorrectnessMatrix, accuracy_intervals, text_problem
from holdout.leaderboards.fits import holm
from holdout.stats import LinearFit, fit_band, linear_fit

__all__ = ["Contamination", "contamination", "parse_date", "parse_dates", "read_dates", "read_dates_utc"]


#: a calendar day: the one format of ``--split`` and, without a declared format, of the dates files
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
#: ISO 8601 with a time: ``T`` or a space, HH:MM[:SS[.fff]], then nothing, ``Z`` or an offset +-HH[:MM]
_ISO_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?")


def parse_date(text: object, what: str) -> np.datetime64:
    """A calendar day written ``YYYY-MM-DD`` (and only so: ``today``, ``2023`` or ``09/01/2023`` are
    refused) as numpy datetime64[D]; one clear line otherwise."""
    raw = str(text).strip()
    try:
        if not _DAY.fullmatch(raw):
            raise ValueError(raw)
        return np.datetime64(raw, "D")
    except ValueError:
        raise CorrectnessError(f"{what}: {text!r} is not a date written YYYY-MM-DD") from None


def _utc_day(raw: str, where: str) -> tuple[np.datetime64, bool]:
    """(the UTC calendar day, whether an offset was converted) of an ISO 8601 day or date-time."""
    if _DAY.fullmatch(raw):
        return parse_date(raw, where), False
    m = _ISO_TIME.fullmatch(raw)
    if m is None and raw.isdigit() and 10_000 <= int(raw) <= 99_999:
        raise CorrectnessError(
            f"{where}: {raw!r} is a number, not a date (a spreadsheet's serial day count?): format the column "
            "as dates written YYYY-MM-DD before saving the CSV"
        )
    if m is None:
        raise CorrectnessError(
            f"{where}: {raw!r} is not a date written YYYY-MM-DD (or ISO 8601 with a time); for dates written "
            "another way "
            "give --date-format, e.g. %d/%m/%Y"
        )
    try:
        stamp = pd.Timestamp(raw)
    except ValueError:
        raise CorrectnessError(f"{where}: {raw!r} is not a valid date") from None
    if stamp.tzinfo is None:
        return np.datetime64(stamp.date(), "D"), False
    return np.datetime64(stamp.tz_convert("UTC").date(), "D"), m.group(4) not in (None, "Z")


def parse_dates(cells: list[str], where: list[str], fmt: str | None = None) -> tuple[np.ndarray, int]:
    """Calendar days of ``cells`` (``where``: how to name each in an error) and how many carried a
    UTC offset and were converted to the UTC day.

    Without ``fmt``: ISO 8601 only (``YYYY-MM-DD``, or with a time and ``Z`` / an offset), never
    guessed cell by cell (``01/02/2023``, January or February?, is refused). With ``fmt`` (a
    ``strftime`` format such as ``%d/%m/%Y``) every cell must match it exactly or be ISO 8601
    (which no other common format can be mistaken for)."""
    days = [
        _utc_day(c.strip(), w) if fmt is None or _DAY.match(c.strip()) else _as(c, w, fmt) for c, w in zip(cells, where)
    ]
    return np.array([d for d, _ in days], dtype="datetime64[D]"), sum(c for _, c in days)


def _as(cell: str, where: str, fmt: str) -> tuple[np.datetime64, bool]:
    """The UTC day of ``cell`` in ``strftime`` format ``fmt``, exactly; whether an offset was converted."""
    try:
        stamp = pd.to_datetime(cell.strip(), format=fmt)
    except (ValueError, TypeError):
        raise CorrectnessError(f"{where}: {cell!r} does not match --date-format {fmt}") from None
    if stamp.tzinfo is None:
        return np.datetime64(stamp.date(), "D"), False
    return np.datetime64(stamp.tz_convert("UTC").date(), "D"), stamp.utcoffset().total_seconds() != 0


def read_dates(path: str | Path, names: tuple[str, ...] | list[str], what: str, fmt: str | None = None) -> np.ndarray:
    """Dates of ``names`` (items or models) from a two-column CSV (name, date), in order; the dates
    as [`parse_dates`][holdout.leaderboards.dates.parse_dates] reads them (UTC days)."""
    return read_dates_utc(path, names, what, fmt)[0]


def read_dates_utc(
    path: str | Path, names: tuple[str, ...] | list[str], what: str, fmt: str | None = None
) -> tuple[np.ndarray, int]:
    """[`read_dates`][holdout.leaderboards.dates.read_dates] and how many dates had a UTC offset
    (converted to the UTC day). Names are read as text: ``001`` stays ``001``."""
    path = Path(path)
    if not path.is_file():
        raise CorrectnessError(f"{path}: {what} dates file not found")
    if problem := text_problem(path):
        raise CorrectnessError(f"{path}: {problem}")
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (pd.errors.ParserError, ValueError) as exc:
        raise CorrectnessError(f"{path}: not a readable CSV ({str(exc).splitlines()[0]})") from None
    if df.shape[1] != 2:
        hint = "; the file seems ';'-separated: save it comma-separated" if ";" in str(df.columns[0]) else ""
        raise CorrectnessError(f"{path}: expected two columns ({what}, date), got {df.shape[1]}{hint}")
    key, date = df.columns
    df[key] = df[key].str.strip()
    if df[key].duplicated().any():
        raise CorrectnessError(f"{path}: duplicate {what} {df[key][df[key].duplicated()].iloc[0]!r}")
    table = dict(zip(df[key], df[date]))
    missing = [n for n in names if n not in table]
    if missing:
        raise CorrectnessError(f"{path}: no date for {what} {missing[0]!r} ({len(missing)} missing)")
    return parse_dates([table[n] for n in names], [f"{path} ({what} {n})" for n in names], fmt)


@dataclass(frozen=True)
class Contamination:
    """The split, the line of the clean models, and every model's place against it.

    ``models``: model, cutoff, role ('line', 'placed' or 'excluded'), orig_/new_ accuracy and
    interval (percent), predicted (line at orig), pred_low/pred_high (prediction interval),
    residual, p (one-sided, below), p_holm, below_line. ``band``: x, fit, band_low, band_high,
    pred_low, pred_high. ``detectable_drop``: points below the prediction, at the line's mean
    accuracy, that the first Holm step needs.
    """

    split: np.datetime64
    n_original: int
    n_new: int
    fit: LinearFit
    models: pd.DataFrame
    band: pd.DataFrame
    alpha: float
    detectable_drop: float
    notes: tuple[str, ...] = field(default=())


def _side(c: CorrectnessMatrix, mask: np.ndarray, prefix: str, alpha: float) -> pd.DataFrame:
    sub = CorrectnessMatrix(c.model_names, c.values[:, mask], c.samples)
    acc = accuracy_intervals(sub, alpha)[["accuracy", "ci_low", "ci_high"]]
    return acc.add_prefix(f"{prefix}_")


def _prediction(
    fit: LinearFit, x: np.ndarray, level: float, own: np.ndarray | float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Line, scale and half-width of the prediction interval at ``x``. A new model's own scatter is
    the line's residual variance s^2, but at least ``own`` (its own item-sampling variance,
    percent^2), so that line models that happen to fit exactly (s = 0) do not make every small gap
    significant."""
    from scipy import stats

    y = fit.slope * x + fit.intercept
    var = np.maximum(fit.residual_std**2, own) + fit.residual_std**2 * (1 / fit.n + (x - fit.x_mean) ** 2 / fit.sxx)
    scale = np.sqrt(var)
    half = stats.t.ppf((1 + level) / 2, fit.n - 2) * scale
    return y, scale, half


def _own_variance(c: CorrectnessMatrix, line: np.ndarray, old: np.ndarray, slope: float) -> np.ndarray:
    """Variance (percent^2) of each model's new - slope x orig from its own answers: the item-sampling
    variance of its per-item difference to the line models' mean, on the original and the new items
    (paired: the difficulty the models share on the same items is not counted)."""
    d = c.values - c.values[line].mean(axis=0)
    return 1e4 * (d[:, ~old].var(axis=1) / (~old).sum() + slope**2 * d[:, old].var(axis=1) / old.sum())


def contamination(
    c: CorrectnessMatrix,
    item_dates: np.ndarray,
    model_dates: np.ndarray,
    split: np.datetime64,
    alpha: float = 0.05,
    band_level: float = 0.95,
    line_models: Sequence[str] | None = None,
) -> Contamination:
    """Split the items at ``split``, fit the line on the models with a cut-off before the first item
    (>= 3 needed; only those among ``line_models`` when given), place the models with a cut-off on
    or after the split with a one-sided Holm-corrected test, exclude the rest (module docstring)."""
    from scipy import stats

    split = np.datetime64(split, "D")
    old = np.asarray(item_dates) < split
    if old.all() or not old.any():
        raise CorrectnessError(f"--split {split}: needs items both before and on/after it ({old.sum()} before)")
    t = pd.concat([_side(c, old, "orig", alpha), _side(c, ~old, "new", alpha)], axis=1)
    t.insert(0, "model", list(c.model_names))
    t.insert(1, "cutoff", np.asarray(model_dates).astype(str))
    first = np.asarray(item_dates).min()
    line = np.asarray(model_dates) < first
    placed = np.asarray(model_dates) >= split
    if line_models is not None:
        line &= np.isin(np.asarray(c.model_names), list(line_models))
    t.insert(2, "role", np.where(line, "line", np.where(placed, "placed", "excluded")))
    if line.sum() < 3:
        raise CorrectnessError(
            f"--split {split}: {line.sum()} model(s) with a cut-off before the first item ({first}); the line needs 3"
        )
    if np.ptp(t["orig_accuracy"][line]) == 0:
        raise CorrectnessError(
            f"--split {split}: the {line.sum()} line models (cut-off before {first}) have the same original "
            f"accuracy ({t['orig_accuracy'][line].iloc[0]:g}%): the line needs at least two different ones"
        )
    fit = linear_fit(t["orig_accuracy"][line], t["new_accuracy"][line])
    x = t["orig_accuracy"].to_numpy()
    own = _own_variance(c, line, old, fit.slope)
    y, scale, half = _prediction(fit, x, band_level, own)
    t["predicted"], t["pred_low"], t["pred_high"] = y, y - half, y + half
    t["residual"] = t["new_accuracy"] - y
    p = stats.t.cdf(t["residual"] / scale, fit.n - 2)
    t["p"] = np.where(placed, p, np.nan)
    t["p_holm"] = np.nan
    if placed.any():
        t.loc[placed, "p_holm"] = holm(p[placed])
    t["below_line"] = placed & (t["p_holm"] <= alpha)
    floor = max(fit.residual_std**2, float(np.mean(own[line])))  # at the line's mean accuracy, as _prediction
    reach = stats.t.ppf(1 - alpha / max(int(placed.sum()), 1), fit.n - 2) * np.sqrt(floor + fit.residual_std**2 / fit.n)
    grid = np.linspace(max(0.0, x.min() - 2), min(100.0, x.max() + 2), 101)
    fy, lo, hi = fit_band(fit, grid, band_level)
    _, _, ph = _prediction(fit, grid, band_level)
    band = pd.DataFrame(
        {"x": grid, "fit": fy, "band_low": lo, "band_high": hi, "pred_low": fy - ph, "pred_high": fy + ph}
    )
    return Contamination(split, int(old.sum()), int((~old).sum()), fit, t, band, alpha, float(reach))
