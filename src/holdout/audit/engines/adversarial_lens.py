"""The audit's adversarial lens: Werpachowski, György & Szepesvári (2019), *Detecting
overfitting via adversarial examples*, from a translations file instead of the models.

From each model's predictions on every needed translation of every test image
([`holdout.adversarial.translations_file`][holdout.adversarial.translations_file]) the translational AEGs of Appendix B
and their
exact densities (eqs. 8, 9) give per model and AEG the test error R_S, the importance-weighted
adversarial risk estimate R_g of eq. (2), the pairwise independence test (6)-(7), and over all
models the N-model test of Sec. 3.3 (ii). Every number comes from
[`holdout.adversarial.stats`][holdout.adversarial.stats].
Torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.adversarial.per_image import attack_range
from holdout.adversarial.stats import adversarial_risk, empirical_error, n_model_test, pairwise_test
from holdout.adversarial.translation import ATTACKS
from holdout.adversarial.translations_file import (
    TranslationsFileError,
    attacks_from_translations,
    available_attacks,
    check_matches,
    read_translations,
)
from holdout.audit.errors import AuditError
from holdout.plotting import figure_text, save_figure
from holdout.predictions import Predictions
from holdout.stats import holm

__all__ = [
    "G3_CAVEAT",
    "AdversarialLens",
    "adversarial_lens",
    "adversarial_summary",
    "adversarial_verdict",
    "write_adversarial",
]


@dataclass(frozen=True)
class AdversarialLens:
    """Werpachowski et al.'s tests on K models from a translations file.

    ``pairwise``: model, aeg, m, R_S, R_g, T (= R_g - R_S), variance, U, p_value, log_p_value,
    rejected (p <= alpha, uncorrected), p_holm and rejected_holm (Holm's correction over the K
    models of the AEG: [`holm`][holdout.stats.holm]), one row per model and AEG. ``n_model``: aeg, n_models, statistic,
    variance, U, p_value, log_p_value. ``skipped``: AEGs the file does not allow, and why.
    """

    source: str
    eps: float
    norm: str
    alpha: float
    pairwise: pd.DataFrame
    n_model: pd.DataFrame
    skipped: tuple[str, ...]

    @property
    def headline_aeg(self) -> str:
        """The strongest AEG that ran (the paper's order: strongest, nearest, random, random2)."""
        return str(next(a for a in ATTACKS if a in set(self.pairwise["aeg"])))


def _check_against(data, preds: Predictions | None) -> None:
    if preds is not None:
        check_matches(data, preds.model_names, preds.labels, preds.test_set or "the predictions")


def adversarial_lens(
    path: str | Path, preds: Predictions | None = None, *, alpha: float = 0.05, seed: int = 0
) -> AdversarialLens:
    """Run every AEG the translations file at ``path`` allows on each of its models (Appendix B),
    then eqs. (2), (6)-(7) per model and the N-model test (Sec. 3.3 (ii)) over them. ``preds``
    (the audit's predictions) only serve to check that the labels agree."""
    try:
        data = read_translations(path)
        _check_against(data, preds)
        why = available_attacks(data)
        aegs = [a for a in ATTACKS if not why[a]]
        if not aegs:
            raise AuditError(f"{path}: no AEG can run: " + "; ".join(f"{a} {w}" for a, w in why.items()))
        results = [attacks_from_translations(data, k, aegs, seed=seed) for k in range(data.num_models)]
    except TranslationsFileError as exc:
        raise AuditError(f"--translations {exc}") from None
    rows, nrows = [], []
    for a in aegs:
        U, rng = attack_range(a)
        ts = []
        for name, res in zip(data.models, results):
            out, t = res.outcomes[a], res.t_statistic(a)
            test = pairwise_test(t, U, expected_range=rng)
            ts.append(t)
            rows.append(
                {
                    "model": name,
                    "aeg": a,
                    "m": res.m,
                    "R_S": empirical_error(res.losses),
                    "R_g": adversarial_risk(out.adv_losses, out.densities),
                    "T": test.statistic,
                    "variance": test.variance,
                    "U": U,
                    "p_value": test.p_value,
                    "log_p_value": test.log_p_value,
                    "rejected": bool(test.p_value <= alpha),
                }
            )
        nm = n_model_test(np.stack(ts), U, expected_range=rng)
        nrows.append(
            {
                "aeg": a,
                "n_models": nm.n_models,
                "statistic": nm.statistic,
                "variance": nm.variance,
                "U": U,
                "p_value": nm.p_value,
                "log_p_value": nm.log_p_value,
            }
        )
    skipped = tuple(f"{a}: {w}" for a, w in why.items() if w)
    pairwise = _with_holm(pd.DataFrame(rows), alpha)
    return AdversarialLens(str(path), data.eps, data.norm, alpha, pairwise, pd.DataFrame(nrows), skipped)


def _with_holm(pairwise: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Add p_holm and rejected_holm: Holm's step-down correction over the K models of each AEG."""
    log_holm = np.empty(len(pairwise))
    for _, idx in pairwise.groupby("aeg", sort=False).indices.items():
        log_holm[idx] = holm(pairwise["log_p_value"].to_numpy()[idx])
    return pairwise.assign(p_holm=np.exp(log_holm), rejected_holm=log_holm <= np.log(alpha))


#: Werpachowski et al. Sec. 5.1 and footnote 4, said with every verdict of the lens
G3_CAVEAT = (
    "The test assumes that translating an image by a few pixels does not change its likelihood "
    "(density preservation, G3); Werpachowski et al. (footnote 4) note that this excludes centred or "
    "essentially centred benchmarks such as MNIST and CIFAR-10: on such images neither a rejection nor "
    "its absence is backed by the paper's guarantee."
)


def adversarial_verdict(lens: AdversarialLens) -> str:
    """The headline AEG: the N-model test over all K models first (Sec. 3.3 (ii)), then the K
    pairwise tests with Holm's correction (uncorrected count beside it), then the G3 caveat."""
    a = lens.headline_aeg
    t = lens.pairwise[lens.pairwise["aeg"] == a]
    nm = lens.n_model[lens.n_model["aeg"] == a].iloc[0]
    K, k_holm, k_raw = len(t), int(t["rejected_holm"].sum()), int(t["rejected"].sum())
    worst = t.loc[t["p_value"].idxmin()]
    text = f"With the {a} translation AEG (eps = {lens.eps:g}, {lens.norm}-norm), "
    if K > 1:
        text += f"the N-model test over all {K} models gives p = {nm['p_value']:.3g}; per model, "
    text += (
        f"the pairwise test rejects independence of model and test set for {k_holm} of {K} at "
        f"{lens.alpha:g} after Holm's correction over the {K} tests ({k_raw} uncorrected; smallest "
        f"p = {worst['p_value']:.3g}, {worst['model']}: R_S = {100 * worst['R_S']:.2f}%, "
        f"R_g = {100 * worst['R_g']:.2f}%)"
    )
    rejected = k_holm > 0 or (K > 1 and nm["p_value"] <= lens.alpha)
    if rejected:
        text += ": evidence of dependence between the models and the test set (overfitting, or training on it)."
    elif k_raw > 0:
        text += (
            f": no evidence of dependence; the {k_raw} uncorrected rejection(s) among {K} tests at "
            f"{lens.alpha:g} are not significant once corrected for the {K} tests."
        )
    else:
        text += ": no evidence that these models overfit the test set (as Werpachowski et al. found on ImageNet)."
    return f"{text} {G3_CAVEAT}"


def adversarial_summary(lens: AdversarialLens) -> dict[str, object]:
    """The lens's entry of ``summary.json``."""
    return {
        "translations": lens.source,
        "eps": lens.eps,
        "norm": lens.norm,
        "aegs": sorted(set(lens.pairwise["aeg"]), key=ATTACKS.index),
        "skipped": list(lens.skipped),
        "n_model": lens.n_model.to_dict(orient="records"),
        "rejected": {a: int(g["rejected"].sum()) for a, g in lens.pairwise.groupby("aeg")},
        "rejected_holm": {a: int(g["rejected_holm"].sum()) for a, g in lens.pairwise.groupby("aeg")},
        "verdict": adversarial_verdict(lens),
    }


def plot_pvalues(lens: AdversarialLens, title: str):
    """p-value of the pairwise test per model (x) and AEG (marker), log scale, with alpha."""
    import matplotlib.pyplot as plt

    from holdout.plotting import plain_log_axis

    models = list(dict.fromkeys(lens.pairwise["model"]))
    fig, ax = plt.subplots(figsize=(5.6, 3.6 + 0.05 * max(len(m) for m in models)))
    x = {m: i for i, m in enumerate(models)}
    for a, g in lens.pairwise.groupby("aeg", sort=False):
        ax.scatter([x[m] for m in g["model"]], g["p_value"].clip(lower=1e-300), label=a, s=18)
    ax.axhline(lens.alpha, color="red", lw=1, ls="--", label=f"alpha = {lens.alpha:g}")
    ax.set_yscale("log")
    low = max(min(float(lens.pairwise["p_value"].min()), lens.alpha) / 3, 1e-300)  # alpha always in view
    ax.set_ylim(low, 1.5)
    plain_log_axis(ax.yaxis, low, 1.5)
    ax.set_xticks(range(len(models)), [figure_text(m) for m in models], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("p-value, pairwise test (6)-(7)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def write_adversarial(lens: AdversarialLens, out: Path, label: str) -> dict[str, Path]:
    """``adversarial_n_model.csv`` and the p-value figure (PNG, PDF, ``adversarial_pvalues.csv`` of every
    pairwise test); returns name -> PNG."""
    out = Path(out)
    lens.n_model.to_csv(out / "adversarial_n_model.csv", index=False)
    png = out / "adversarial_pvalues.png"
    save_figure(plot_pvalues(lens, f"{label}: adversarial overfitting test"), png, data=lens.pairwise)
    return {"adversarial_pvalues": png}
