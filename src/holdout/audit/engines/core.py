"""The lenses of ``holdout audit``: every paper's question asked of a user's own K models.

One pure function per lens, each returning a frozen dataclass or a DataFrame:

* [`accuracy_lens`][holdout.audit.engines.core.accuracy_lens]: accuracy with exact Clopper-Pearson intervals
  (Recht et al. 2018, Sec. 3.2).
* [`new_set_lens`][holdout.audit.engines.core.new_set_lens]: on a second, newer test set: gap, Delta rank, error
  ratio and the least-squares line of new on original accuracy with its band (Recht et al. Table 1, Table 4,
  Eq. 3 and Figure 2).
* [`similarity_lens`][holdout.audit.engines.core.similarity_lens]: pairwise similarity against the
  independent-errors baseline, the greedy upper bound on the similarity covering number N_eta, the difficulty
  distribution (Mania et al. 2019, Sec. 5.1, Definition 1, Fig. 1a, Fig. 4).
* [`bounds_lens`][holdout.audit.engines.core.bounds_lens]: how many models the test set supports at (eps, delta)
  under the union bound (2), the similarity bound (3)+(8) and the naive-Bayes bound (A1) of Mania et al., at the
  measured n, mean accuracy and mean similarity, against the K the user evaluated.
* [`rvw_lens`][holdout.audit.engines.core.rvw_lens]: Rip van Winkle's Razor (Arora & Zhang 2021, Theorem 3.1) on
  the selected model.

Accuracies, gaps and errors in the tables are in percent (as in the papers); the dataclasses
hold fractions where the bound formulas take fractions (error rates, similarity, eps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.audit.engines.bounds_eps import EPS_FOR_MODELS, EpsNeeded, SupportedModels, eps_needed, supported_models
from holdout.audit.errors import MAX_SEARCH_SIZE, AuditError, check_open_unit
from holdout.bounds.study import testable_model_counts
from holdout.cifar10_1.recht import table1, table4
from holdout.data.core import DataError, convert_user_predictions, read_user_labels
from holdout.leaderboards.lenses import ranked_by_correct
from holdout.predictions import Predictions, PredictionsError, load_predictions
from holdout.predictions import align_models as _align_models
from holdout.rvw.core import DescriptionError, description_length, index_bits, rvw_bound
from holdout.similarity.core import (
    SimilaritySummary,
    covering_numbers,
    difficulty_distribution,
    independent_similarity,
    pairwise_similarity,
    summarize_similarity,
    upper_pairs,
)
from holdout.stats import LinearFit, accuracy_table, fit_band, linear_fit
from holdout.stats import independent_similarity as _independent_similarity

__all__ = [
    "AuditError",
    "BoundsLens",
    "NewSetLens",
    "RvwLens",
    "SimilarityLens",
    "accuracy_lens",
    "align_models",
    "bounds_lens",
    "check_open_unit",
    "load_audit_predictions",
    "new_set_lens",
    "rvw_lens",
    "selection_bits",
    "similarity_lens",
]


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def load_audit_predictions(
    path: str | Path,
    labels: str | Path | None = None,
    *,
    model_names: Sequence[str] | None = None,
    num_classes: int | None = None,
    test_set: str = "",
) -> Predictions:
    """K models' predictions on one test set, from any format the data stage reads.

    ``.npz``: the [`holdout.predictions`][holdout.predictions] format (labels inside; ``labels``, when given, must
    equal them). ``.csv`` / ``.npy``: the user layouts of
    [`holdout.data.convert_user_predictions`][holdout.data.convert_user_predictions]
    (``labels`` required). Every problem raises [`AuditError`][holdout.audit.engines.core.AuditError] naming the file.
    """
    path = Path(path)
    try:
        if path.suffix.lower() == ".npz":
            if not path.is_file():
                raise AuditError(f"{path}: predictions file not found")
            preds = load_predictions(path)
            if labels is not None:
                given = read_user_labels(labels)
                if given.shape != preds.labels.shape or not np.array_equal(given, preds.labels):
                    raise AuditError(f"{labels}: labels differ from those stored in {path}")
            return preds
        if labels is None:
            raise AuditError(f"{path}: labels are needed for .csv / .npy predictions (pass --labels)")
        preds = convert_user_predictions(
            path, labels, test_set=test_set or path.stem, model_names=model_names, num_classes=num_classes
        )
    except (DataError, PredictionsError) as exc:  # the data stage's "in config" is --model-names here
        raise AuditError(str(exc).replace("model_names in config", "names in --model-names")) from None
    if preds.num_models == 0:
        raise AuditError(f"{path}: no models (0 rows); one row (.npy) or column (.csv) per model is needed")
    return preds


def align_models(original: Predictions, new: Predictions, source: str) -> Predictions:
    """``new`` reordered to the models of ``original``; the two must hold the same model names
    ([`holdout.predictions.align_models`][holdout.predictions.align_models], its error as
    [`AuditError`][holdout.audit.engines.core.AuditError])."""
    try:
        return _align_models(original, new, source)
    except PredictionsError as exc:
        raise AuditError(str(exc)) from None


# ---------------------------------------------------------------------------
# Recht et al.: accuracies, and the new test set
# ---------------------------------------------------------------------------


def accuracy_lens(preds: Predictions, alpha: float = 0.05) -> pd.DataFrame:
    """Per model: correct, n, accuracy and its exact 1 - alpha Clopper-Pearson interval (percent).

    Rows by accuracy, best first (ties keep the input order); ``rank`` 1 is the best model, tied
    models share a rank (1, 1, 3: [`ranked_by_correct`][holdout.leaderboards.lenses.ranked_by_correct]).
    """
    df = ranked_by_correct(accuracy_table(preds, alpha))
    return df


@dataclass(frozen=True)
class NewSetLens:
    """Original vs new test set (Recht et al. Table 1, Table 4, Eq. 3, Figure 2).

    ``table``: per model orig_/new_ correct, n, accuracy, ci_low, ci_high, gap, delta_rank,
    error_ratio (percent). ``fit``/``band``: the least-squares line of new on original accuracy
    and its pointwise band (columns x, fit, band_low, band_high); None when K < 3.
    """

    table: pd.DataFrame
    fit: LinearFit | None
    band: pd.DataFrame | None
    band_level: float

    @property
    def mean_gap(self) -> float:
        return float(self.table["gap"].mean())


def new_set_lens(original: Predictions, new: Predictions, alpha: float = 0.05, band_level: float = 0.95) -> NewSetLens:
    """Gap, Delta rank, error ratio per model and the linear fit with its band (K >= 3 for the fit)."""
    t1 = table1(accuracy_table(original, alpha), accuracy_table(new, alpha))
    t1["error_ratio"] = table4(t1)["error_ratio"].to_numpy()
    if len(t1) < 3:
        return NewSetLens(t1, None, None, band_level)
    fit = linear_fit(t1["orig_accuracy"], t1["new_accuracy"])
    x = np.linspace(max(0.0, t1["orig_ci_low"].min() - 1), 100, 201)
    y, lo, hi = fit_band(fit, x, band_level)
    band = pd.DataFrame({"x": x, "fit": y, "band_low": lo, "band_high": hi})
    return NewSetLens(t1, fit, band, band_level)


# ---------------------------------------------------------------------------
# Mania et al.: similarity and the number of testable models
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SimilarityLens:
    """Similarity of the K models (Mania et al. Sec. 5.1, Definition 1, Fig. 1a, Fig. 4).

    ``pairs``: model_i, model_j, similarity, independent (one row per pair i < j);
    ``covering``: eta, covering_number (greedy upper bound on N_eta); ``difficulty``:
    m, fraction_at_most (points misclassified by at most m models). ``items``: the input is a
    correctness matrix (results per item: the verdict speaks of items answered, not points classified).
    """

    summary: SimilaritySummary
    pairs: pd.DataFrame
    covering: pd.DataFrame
    difficulty: pd.DataFrame
    items: bool = False


def similarity_lens(preds: Predictions, etas: Sequence[float], source: str = "predictions") -> SimilarityLens:
    """Pairwise similarity vs the independent-errors baseline, covering numbers, difficulty (K >= 2)."""
    if preds.num_models < 2:
        raise AuditError(f"{source}: {preds.num_models} model, but the similarity lens needs at least 2")
    errors = preds.errors()
    sim = pairwise_similarity(errors)
    mu = errors.mean(axis=1)
    iu, ju = np.triu_indices(preds.num_models, k=1)
    names = np.asarray(preds.model_names)
    pairs = pd.DataFrame(
        {
            "model_i": names[iu],
            "model_j": names[ju],
            "similarity": upper_pairs(sim),
            "independent": upper_pairs(independent_similarity(mu)),
        }
    )
    etas = np.asarray(etas, dtype=float)
    covering = pd.DataFrame({"eta": etas, "covering_number": covering_numbers(sim, mu, etas)})
    frac = difficulty_distribution(errors)
    difficulty = pd.DataFrame({"m": np.arange(frac.size), "fraction_at_most": frac})
    return SimilarityLens(summarize_similarity(errors, sim), pairs, covering, difficulty)


@dataclass(frozen=True)
class BoundsLens:
    """Testable models under the union bound (2), the similarity bound (3)+(8) and the naive-Bayes
    bound (A1) of Mania et al. at (n, error, similarity, eps, delta), and the K models used.

    ``similarity_k`` / ``naive_bayes_k`` are None when the models are less similar than independent
    errors at their mean error rate: the coupling behind both bounds (Mania et al. App. B) needs
    similarity >= mu^2 + (1 - mu)^2, and then only the union bound applies.

    Read the other way round: ``union_eps``, ``similarity_eps``, ``naive_bayes_eps`` are the smallest
    eps at which all ``models_used`` models are guaranteed under each bound, and ``supported`` the
    models each bound supports at standard eps (up to the first that covers them) and the eps asked for
    ([`eps_needed`][holdout.bounds.eps.eps_needed]); ``for_models`` the smallest eps at which the
    test set supports 1, 10 and 100 such models (what a user can act on when it supports none at eps).
    """

    n: int
    mean_accuracy: float
    similarity: float
    eps: float
    delta: float
    union_k: int
    similarity_k: int | None
    naive_bayes_k: int | None
    models_used: int
    union_eps: float = float("nan")
    similarity_eps: float | None = None
    naive_bayes_eps: float | None = None
    supported: tuple[SupportedModels, ...] = ()
    for_models: tuple[EpsNeeded, ...] = ()  # the smallest eps for 1, 10 and 100 models (EPS_FOR_MODELS)

    @property
    def independent_similarity(self) -> float:
        return _independent_similarity(1.0 - self.mean_accuracy)

    @property
    def similarity_gain(self) -> float:
        return float("nan") if not self.union_k or self.similarity_k is None else self.similarity_k / self.union_k

    @property
    def naive_bayes_gain(self) -> float:
        return float("nan") if not self.union_k or self.naive_bayes_k is None else self.naive_bayes_k / self.union_k

    def covered_by(self) -> str:
        """The weakest bound that still covers the K models used: 'union', 'similarity',
        'naive-Bayes' or 'none'."""
        for name, k in (
            ("union", self.union_k),
            ("similarity", self.similarity_k),
            ("naive-Bayes", self.naive_bayes_k),
        ):
            if k is not None and self.models_used <= k:
                return name
        return "none"


def bounds_lens(
    n: int, mean_accuracy: float, mean_similarity: float, eps: float, delta: float, models_used: int
) -> BoundsLens:
    """Mania et al. Sec. 5: k such that k models with this error and similarity are all estimated
    within eps with probability 1 - delta on n points, under bounds (2), (3)+(8) and (A1)."""
    eps, delta = check_open_unit("eps", eps), check_open_unit("delta", delta)
    error = 1.0 - float(mean_accuracy)
    if not 0.0 < error < 1.0:
        raise AuditError(f"mean accuracy {mean_accuracy} leaves no error rate in (0, 1) for the bounds")
    sim = float(mean_similarity)
    ks = testable_model_counts(int(n), error, sim, eps, delta)
    need = eps_needed(int(n), error, sim, int(models_used), delta)
    supported = supported_models(int(n), error, sim, delta, int(models_used), (eps,))
    return BoundsLens(
        int(n),
        float(mean_accuracy),
        sim,
        eps,
        delta,
        *ks,
        int(models_used),
        need.union,
        need.similarity,
        need.naive_bayes,
        supported,
        tuple(eps_needed(int(n), error, sim, k, delta) for k in EPS_FOR_MODELS),
    )


# ---------------------------------------------------------------------------
# Arora & Zhang: Rip van Winkle's Razor on the selected model
# ---------------------------------------------------------------------------


def selection_bits(description: str | Path | None = None, search_size: int | None = None) -> tuple[int, str]:
    """Description length |f|_r of the selected model in bits, and how it was counted.

    ``description``: a description file in the [`holdout.rvw.description_length`][holdout.rvw.description_length]
    format;
    ``search_size`` G: the model is the best of configurations drawn from a grid of G, named by
    its index, ceil(log2 G) bits. Both: their sum. Neither: [`AuditError`][holdout.audit.engines.core.AuditError].
    """
    if description is None and search_size is None:
        raise AuditError("the Rip van Winkle lens needs --rvw-description FILE or --search-size G")
    bits, parts = 0, []
    if description is not None:
        try:
            dl = description_length(description)
        except (DescriptionError, OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            text = " ".join(str(exc).split())  # the whole message, on one line
            if isinstance(exc, UnicodeDecodeError):
                text = f"not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8"
            name = str(description)
            raise AuditError(text if name in text else f"--rvw-description {name}: {text}") from None
        bits += dl.bits
        parts.append(f"{dl.bits} bits from the description {Path(description).name}")
    if search_size is not None:
        if not 1 <= int(search_size) <= MAX_SEARCH_SIZE:
            raise AuditError(f"--search-size must be a whole number in [1, 1e300], got {search_size}")
        idx = index_bits(int(search_size))
        bits += idx
        parts.append(f"{idx} bits for the index into a grid of {int(search_size):,} (ceil(log2 G))")
    return bits, " + ".join(parts)


@dataclass(frozen=True)
class RvwLens:
    """Theorem 3.1 of Arora & Zhang on the selected model: with probability 1 - delta its
    population error is at most ``bound`` (fractions)."""

    model: str
    test_error: float
    n: int
    bits: int
    bits_detail: str
    C: float
    delta: float
    bound: float

    @property
    def overfit(self) -> float:
        """Largest test-overfit the bound allows: bound - test error."""
        return self.bound - self.test_error


def rvw_lens(
    accuracy: pd.DataFrame,
    bits: int,
    bits_detail: str,
    *,
    C: float = 5000,
    delta: float = 0.05,
    selected: str | None = None,
) -> RvwLens:
    """RvW bound for ``selected`` (default: the most accurate row of
    [`accuracy_lens`][holdout.audit.engines.core.accuracy_lens])."""
    delta = check_open_unit("delta", delta)
    if bits > C:
        raise AuditError(f"the description has {bits} bits, more than C = {C:g} (raise --rvw-C)")
    if selected is None:
        row = accuracy.iloc[0]
    else:
        match = accuracy[accuracy["model"] == selected]
        if match.empty:
            raise AuditError(f"--selected {selected}: no such model (known: {', '.join(accuracy['model'][:5])}, ...)")
        row = match.iloc[0]
    n = int(row["n"])
    test_error = 1.0 - int(row["correct"]) / n
    bound = float(rvw_bound(test_error, bits, n, C=C, delta=delta))
    return RvwLens(str(row["model"]), test_error, n, int(bits), bits_detail, float(C), delta, bound)
