"""Tables and figures of the synthetic experiment of Werpachowski et al. (2019):
Figure 4, Figure 7 (rows 1-3 and the last row) and Figure 8.

Each ``*_table`` function turns the per-run / per-group results of
[`holdout.adversarial.synthetic.evaluate_grid`][holdout.adversarial.synthetic.evaluate_grid] (with a ``case`` column)
into
the exact values plotted; each ``plot_*`` function draws such a table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

__all__ = [
    "CASES",
    "density_table",
    "figure4_table",
    "figure8_table",
    "histogram_table",
    "plot_densities",
    "plot_figure4",
    "plot_figure7_pvalues",
    "plot_figure8",
    "plot_histograms",
    "plot_risks",
    "risk_table",
    "synthetic_figures",
]

CASES = ("independent", "dependent")
#: one colour per N (matplotlib's default cycle, as in the paper's figure)
N_COLOURS = {1: "C0", 2: "C1", 10: "C2", 25: "C3", 100: "C4"}
#: two-sided 97.5% empirical intervals of Figure 7 rows 2-3
Q975 = (0.0125, 0.9875)


def _colour(n: int) -> str:
    return N_COLOURS.get(int(n), f"C{(int(n) % 10)}")


# ---------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------
def figure4_table(groups: pd.DataFrame, empirical_max_n: int = 2) -> pd.DataFrame:
    """Average p-value per (case, N, eps) with the paper's bands (Figure 4 / Figure 7
    row 1): empirical 95% two-sided interval (2.5% and 97.5% quantiles) for
    N <= ``empirical_max_n``, min-max range for larger N (few groups).

    ``groups`` has columns case, eps, N, group, p_value (N = 1 rows are the single runs).
    """
    rows = []
    for (case, n, eps), d in groups.groupby(["case", "N", "eps"], sort=True):
        p = d["p_value"].to_numpy()
        if n <= empirical_max_n:
            lo, hi = np.quantile(p, [0.025, 0.975])
            band = "empirical_95"
        else:
            lo, hi = p.min(), p.max()
            band = "min_max"
        rows.append(
            dict(
                case=case,
                N=int(n),
                eps=float(eps),
                p_value_mean=float(p.mean()),
                p_value_lo=float(lo),
                p_value_hi=float(hi),
                p_value_median=float(np.median(p)),
                n_groups=int(p.size),
                band=band,
            )
        )
    out = pd.DataFrame(rows)
    out["case"] = pd.Categorical(out["case"], CASES, ordered=True)
    return out.sort_values(["case", "N", "eps"]).reset_index(drop=True).astype({"case": str})


def _mean_band(values: np.ndarray) -> tuple[float, float, float]:
    v = values[np.isfinite(values)]
    if v.size == 0:
        return np.nan, np.nan, np.nan
    lo, hi = np.quantile(v, Q975)
    return float(v.mean()), float(lo), float(hi)


def risk_table(per_run: pd.DataFrame, training: pd.DataFrame) -> pd.DataFrame:
    """Figure 7 row 2: mean over runs and empirical two-sided 97.5% interval
    (1.25% and 98.75% quantiles) of R_S (``test_error``), R_g (``adversarial_risk``),
    R_S' (``adversarial_error``, the unweighted error on g(S)) and the true risk R(f)
    (from ``training``, the same at every eps), per case and eps."""
    rows = []
    risk = training.set_index(["case", "run"])["true_risk"]
    for (case, eps), d in per_run.groupby(["case", "eps"], sort=True):
        for q in ("test_error", "adversarial_risk", "adversarial_error"):
            m, lo, hi = _mean_band(d[q].to_numpy())
            rows.append(dict(case=case, eps=float(eps), quantity=q, mean=m, lo=lo, hi=hi, n_runs=len(d)))
        r = risk.loc[case].reindex(d["run"]).to_numpy()
        m, lo, hi = _mean_band(r)
        rows.append(dict(case=case, eps=float(eps), quantity="true_risk", mean=m, lo=lo, hi=hi, n_runs=len(d)))
    return pd.DataFrame(rows)


def density_table(per_run: pd.DataFrame) -> pd.DataFrame:
    """Figure 7 row 3: average density h_g of originally misclassified points and of
    successful adversarial examples (per run, then mean over runs with empirical
    two-sided 97.5% interval; runs without such points are left out)."""
    rows = []
    for (case, eps), d in per_run.groupby(["case", "eps"], sort=True):
        for kind, col, cnt in (
            ("misclassified", "density_misclassified", "n_misclassified"),
            ("adversarial", "density_adversarial", "n_successful"),
        ):
            v = d[col].to_numpy(dtype=float)
            m, lo, hi = _mean_band(v)
            rows.append(
                dict(
                    case=case,
                    eps=float(eps),
                    kind=kind,
                    mean=m,
                    lo=lo,
                    hi=hi,
                    n_runs=int(np.isfinite(v).sum()),
                    mean_count=float(d[cnt].mean()),
                )
            )
    return pd.DataFrame(rows)


def _nearest(values: np.ndarray, eps: float) -> float:
    values = np.unique(values)
    i = int(np.argmin(np.abs(np.log(values) - np.log(eps))))
    if abs(values[i] - eps) > 1e-9 * eps:
        raise ValueError(f"eps = {eps:g} is not among the evaluated values")
    return float(values[i])


def histogram_table(per_run: pd.DataFrame, eps_by_case: Mapping[str, Sequence[float]], bins: int) -> pd.DataFrame:
    """Figure 7 last row: counts of single-run p-values in ``bins`` equal bins of [0, 1]."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    rows = []
    for case, eps_list in eps_by_case.items():
        d = per_run[per_run["case"] == case]
        for eps in eps_list:
            e = _nearest(d["eps"].to_numpy(), float(eps))
            p = d.loc[np.isclose(d["eps"], e, rtol=1e-12), "p_value"].to_numpy()
            counts, _ = np.histogram(p, bins=edges)
            for k in range(bins):
                rows.append(dict(case=case, eps=e, bin_lo=edges[k], bin_hi=edges[k + 1], count=int(counts[k])))
    return pd.DataFrame(rows)


def figure8_table(
    groups: pd.DataFrame, panels: Sequence[tuple[str, float]], n_models: Sequence[int], bins: int
) -> pd.DataFrame:
    """Figure 8: p-value histograms (as probability densities on [0, 1]) of the N-model
    tests for each N in ``n_models``; one panel per (case, eps) in ``panels``."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    rows = []
    for panel, (case, eps) in enumerate(panels):
        d = groups[groups["case"] == case]
        e = _nearest(d["eps"].to_numpy(), float(eps))
        for n in n_models:
            p = d.loc[np.isclose(d["eps"], e, rtol=1e-12) & (d["N"] == n), "p_value"].to_numpy()
            if p.size == 0:
                raise ValueError(f"no N = {n} results for case {case} (is N in adversarial.synthetic.n_models?)")
            dens, _ = np.histogram(p, bins=edges, density=True)
            counts, _ = np.histogram(p, bins=edges)
            for k in range(bins):
                rows.append(
                    dict(
                        panel=panel,
                        case=case,
                        eps=e,
                        N=int(n),
                        bin_lo=edges[k],
                        bin_hi=edges[k + 1],
                        density=float(dens[k]),
                        count=int(counts[k]),
                        n_groups=int(p.size),
                    )
                )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------
def _eps_axis(ax: plt.Axes) -> None:
    ax.set_xscale("log")
    ax.set_xlabel(r"attack strength $\varepsilon$")
    ax.grid(True, which="major", alpha=0.3)


def plot_figure4(table: pd.DataFrame) -> plt.Figure:
    """Figure 4: average p-value vs eps, solid dependent, dashed independent, one colour per N."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for case, ls in (("dependent", "-"), ("independent", "--")):
        for n, d in table[table["case"] == case].groupby("N"):
            ax.plot(
                d["eps"],
                d["p_value_mean"],
                ls,
                color=_colour(n),
                lw=1.6,
                label=f"N = {n}" if case == "dependent" else None,
            )
    _eps_axis(ax)
    ax.set_ylabel("average p-value")
    ax.set_ylim(-0.02, 1.02)
    handles, labels = ax.get_legend_handles_labels()
    handles += [plt.Line2D([], [], color="k", ls="-"), plt.Line2D([], [], color="k", ls="--")]
    labels += ["dependent", "independent"]
    ax.legend(handles, labels, fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    ax.set_title("Figure 4: N-model independence test, synthetic problem", fontsize=10)
    return fig


def _two_panels(title: str) -> tuple[plt.Figure, np.ndarray]:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    fig.suptitle(title, fontsize=10)
    for ax, case in zip(axes, CASES):
        ax.set_title(f"{case} test set", fontsize=9)
    return fig, axes


def plot_figure7_pvalues(table: pd.DataFrame) -> plt.Figure:
    """Figure 7 row 1: average p-value with bands (empirical 95% for N <= 2, min-max else)."""
    fig, axes = _two_panels("Figure 7, row 1: average p-value")
    for ax, case in zip(axes, CASES):
        for n, d in table[table["case"] == case].groupby("N"):
            ax.plot(d["eps"], d["p_value_mean"], color=_colour(n), lw=1.5, label=f"N={n}")
            ax.fill_between(d["eps"], d["p_value_lo"], d["p_value_hi"], color=_colour(n), alpha=0.12, lw=0)
        _eps_axis(ax)
        ax.set_ylim(-0.02, 1.02)
    axes[0].set_ylabel(r"p-value $\delta$")
    axes[1].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    return fig


def _band_panels(
    axes: np.ndarray, table: pd.DataFrame, column: str, series: Mapping[str, Mapping[str, tuple[str, str]]]
) -> None:
    """Per case (one panel each), for every value of ``column`` in ``series[case]`` (value ->
    (label, colour)): the mean over runs against eps and its empirical interval [lo, hi]."""
    for ax, case in zip(axes, CASES):
        d = table[table["case"] == case]
        for value, (label, c) in series[case].items():
            e = d[d[column] == value]
            ax.plot(e["eps"], e["mean"], color=c, lw=1.5, label=label)
            ax.fill_between(e["eps"], e["lo"], e["hi"], color=c, alpha=0.15, lw=0)
        _eps_axis(ax)
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=8, frameon=False)


def plot_risks(table: pd.DataFrame) -> plt.Figure:
    """Figure 7 row 2: R_g and R_S (and R(f) for the dependent case) with 97.5% intervals."""
    fig, axes = _two_panels("Figure 7, row 2: risk estimates (mean, empirical 97.5% interval over runs)")
    names = {
        "adversarial_risk": (r"$\hat R_g(f)$", "C0"),
        "test_error": (r"$\hat R_S(f)$", "C1"),
        "true_risk": (r"$R(f)$", "C2"),
    }
    # the paper omits R(f) in the independent case (there R(f) ~ R_S)
    independent = {q: v for q, v in names.items() if q != "true_risk"}
    _band_panels(axes, table, "quantity", {"independent": independent, "dependent": names})
    axes[0].set_ylabel("error")
    return fig


def plot_densities(table: pd.DataFrame) -> plt.Figure:
    """Figure 7 row 3: average h_g of originally misclassified points and of successful
    adversarial examples, with empirical 97.5% intervals."""
    fig, axes = _two_panels("Figure 7, row 3: average density $h_g$")
    kinds = {"misclassified": ("original misclassified", "C0"), "adversarial": ("adversarial", "C1")}
    _band_panels(axes, table, "kind", {case: kinds for case in CASES})
    axes[0].set_ylabel(r"average $h_g$")
    return fig


def plot_histograms(table: pd.DataFrame) -> plt.Figure:
    """Figure 7 last row: histograms of single-run p-values at selected eps."""
    fig, axes = _two_panels("Figure 7, last row: p-values of single runs")
    for ax, case in zip(axes, CASES):
        d = table[table["case"] == case]
        for k, (eps, e) in enumerate(d.groupby("eps")):
            edges = np.append(e["bin_lo"].to_numpy(), e["bin_hi"].to_numpy()[-1])
            ax.stairs(e["count"].to_numpy(), edges, color=f"C{k}", lw=1.5, label=rf"$\delta(\varepsilon={eps:g})$")
        ax.set_xlabel("p-value")
        ax.set_xlim(0, 1)
        ax.legend(fontsize=8, frameon=False)
    axes[0].set_ylabel("count")
    return fig


def plot_figure8(table: pd.DataFrame) -> plt.Figure:
    """Figure 8: p-value densities of N-model tests (N = 1, 2, 10), one panel per (case, eps)."""
    panels = sorted(table["panel"].unique())
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.6), squeeze=False)
    fig.suptitle("Figure 8: p-values of N-model tests", fontsize=10)
    for ax, panel in zip(axes[0], panels):
        d = table[table["panel"] == panel]
        case, eps = str(d["case"].iloc[0]), float(d["eps"].iloc[0])
        for n, e in d.groupby("N"):
            edges = np.append(e["bin_lo"].to_numpy(), e["bin_hi"].to_numpy()[-1])
            ax.stairs(e["density"].to_numpy(), edges, color=_colour(n), lw=1.5, label=rf"$\delta(N={n})$")
        ax.set_title(
            f"{'independent' if case == 'independent' else 'non-independent'} model, "
            rf"$\varepsilon={eps:g}$",
            fontsize=9,
        )
        ax.set_xlabel("p-value")
        ax.set_xlim(0, 1)
        ax.set_ylabel("PDF")
        ax.legend(fontsize=8, frameon=False)
    return fig


def synthetic_figures(tables: Mapping[str, pd.DataFrame]) -> dict[str, plt.Figure]:
    """Every figure of the synthetic experiment from the tables of
    [`synthetic_figure_tables`][holdout.adversarial.synthetic.study.synthetic_figure_tables], keyed
    figure4, figure7_pvalues, risks, densities, histograms, figure8."""
    return {
        "figure4": plot_figure4(tables["figure4"]),
        "figure7_pvalues": plot_figure7_pvalues(tables["figure4"]),
        "risks": plot_risks(tables["risks"]),
        "densities": plot_densities(tables["densities"]),
        "histograms": plot_histograms(tables["histograms"]),
        "figure8": plot_figure8(tables["figure8"]),
    }
