"""The field's public contamination results, read as published and recomputed from their files.

Each reader returns the table and the list of what is off in the file (said, never fixed):

- GSM1k (Zhang et al. 2024, scaleapi/gsm1k_eval ``loglikelihood/``): each model's GSM8K - GSM1k
  accuracy gap and its character-normalised log-likelihood of GSM8K;
  [`gsm1k_anchor`][holdout.contamination.anchors.gsm1k_anchor] gives their Spearman correlation and
  which gaps are significant.
- MMLU-CF (Zhao et al. 2024, microsoft/MMLU-CF README leaderboard): 44 models on MMLU and on
  MMLU-CF's open validation and closed test sets (10,000 questions each);
  [`mmlu_cf_anchor`][holdout.contamination.anchors.mmlu_cf_anchor] tests each test - validation gap
  and their signs across models.
- ObsScaling (Ruan et al. 2024, ryoungj/ObsScaling ``eval_results/``): base models x benchmarks;
  [`obsscaling_anchor`][holdout.contamination.anchors.obsscaling_anchor] puts GSM8K against MMLU
  through the reference-benchmark lens.
- MathArena (eth-sri/matharena configs): model release dates and competition dates;
  [`matharena_dates`][holdout.contamination.anchors.matharena_dates] says which models could have
  seen each competition.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.contamination.reference import ReferenceLens, binomial_draws, reference_lens
from holdout.leaderboards.fits import holm

__all__ = [
    "gsm1k_anchor",
    "matharena_dates",
    "mmlu_cf_anchor",
    "obsscaling_anchor",
    "read_gsm1k",
    "read_matharena",
    "read_mmlu_cf",
    "read_obsscaling",
]

#: GSM8K's test set and GSM1k (Zhang et al. 2024): the sizes behind the gaps.
GSM8K_N, GSM1K_N = 1319, 1250
#: MMLU-CF's validation and test sets (README: 10,000 questions each); MMLU's test set.
MMLU_CF_N, MMLU_N = 10000, 14042


def _duplicates(df: pd.DataFrame, key: str, source: str) -> list[str]:
    dup = df[df.duplicated(key, keep=False)]
    if dup.empty:
        return []
    same = dup.groupby(key).nunique().le(1).all(axis=1)
    names = ", ".join(sorted(dup[key].unique()))
    kind = "identical values" if same.all() else "DIFFERENT values"
    return [f"{source}: {dup[key].nunique()} names appear more than once ({kind}): {names}"]


def read_gsm1k(diff_path: str | Path, loglik_path: str | Path) -> tuple[pd.DataFrame, list[str]]:
    """``scale_diff.csv`` (no header: model, GSM8K - GSM1k gap as a fraction) and ``averages.tsv``
    (no header: model, log-likelihood), joined on the model after dropping repeated rows."""
    diff = pd.read_csv(diff_path, header=None, names=["model", "gap"])
    ll = pd.read_csv(loglik_path, header=None, names=["model", "loglik"], sep="\t")
    found = _duplicates(diff, "model", Path(diff_path).name) + _duplicates(ll, "model", Path(loglik_path).name)
    only = sorted(set(ll["model"]) - set(diff["model"]))
    if only:
        found.append(f"{Path(loglik_path).name}: no gap for {len(only)} models: {', '.join(only)}")
    joined = diff.drop_duplicates("model").merge(ll.drop_duplicates("model"), on="model", how="inner")
    return joined.reset_index(drop=True), found


def gsm1k_anchor(df: pd.DataFrame, alpha: float = 0.05) -> tuple[dict[str, float], pd.DataFrame]:
    """Spearman's r (and r^2) between gap and log-likelihood, and per model a two-sided z-test of
    gap = 0 with Holm's correction. The files hold the gap only, not the two accuracies, so its
    standard error is bounded by the worst case p = 1/2: sqrt(1/4 / 1319 + 1/4 / 1250) (about 2.0
    points; conservative: the intervals are at least as wide as the true ones)."""
    from scipy import stats

    rho = stats.spearmanr(df["gap"], df["loglik"])
    se = np.sqrt(0.25 / GSM8K_N + 0.25 / GSM1K_N)
    z = stats.norm.ppf(1 - alpha / 2)
    p = 2 * stats.norm.sf(np.abs(df["gap"].to_numpy()) / se)
    out = df.assign(
        gap_low=df["gap"] - z * se, gap_high=df["gap"] + z * se, p_value=p, p_holm=holm(p), significant=holm(p) <= alpha
    )
    summary = {
        "models": len(df),
        "spearman_r": float(rho.statistic),
        "spearman_r2": float(rho.statistic**2),
        "spearman_p": float(rho.pvalue),
        "pearson_r2": float(stats.pearsonr(df["gap"], df["loglik"]).statistic ** 2),
        "gap_se_bound": float(se),
        "significant_gaps": int(out["significant"].sum()),
    }
    return summary, out.sort_values("gap", ascending=False).reset_index(drop=True)


def read_mmlu_cf(path: str | Path) -> tuple[pd.DataFrame, list[str]]:
    """MMLU-CF's leaderboard (percent as printed); what is off: a delta column that disagrees
    with test - validation beyond rounding (each value printed to 0.1, so up to 0.15), and scores
    below random guessing (25 % on four choices)."""
    df = pd.read_csv(path)
    found = _duplicates(df, "model", Path(path).name)
    for shot in ("5shot", "0shot"):
        computed = df[f"cf_test_{shot}"] - df[f"cf_val_{shot}"]
        printed = df[f"cf_delta_{shot}"]
        for _, r in df[(computed - printed).abs() > 0.15 + 1e-9].iterrows():
            what = "sign disagrees" if np.sign(r[f"cf_delta_{shot}"]) != np.sign(computed[_]) else "disagrees"
            found.append(
                f"{r['model']}: cf_delta_{shot} = {printed[_]:+.1f} but test - validation = "
                f"{r[f'cf_test_{shot}']} - {r[f'cf_val_{shot}']} = {computed[_]:+.1f} ({what})"
            )
    scores = [c for c in df.columns if c.startswith(("mmlu_", "cf_test", "cf_val"))]
    for _, r in df[(df[scores] < 25).any(axis=1)].iterrows():
        low = ", ".join(f"{c} = {r[c]}" for c in scores if r[c] < 25)
        found.append(f"{r['model']}: below random guessing (25 %): {low}")
    return df, found


def mmlu_cf_anchor(df: pd.DataFrame, shot: str = "5shot", alpha: float = 0.05) -> tuple[dict[str, float], pd.DataFrame]:
    """Per model, test - validation (points, computed from the two columns) with its 1 - alpha
    interval and a two-sided z-test (two independent sets of 10,000 questions), Holm-corrected;
    across models, the exact two-sided sign test of the non-zero gaps (H0: a gap is as likely
    positive as negative)."""
    from scipy import stats

    test, val = df[f"cf_test_{shot}"].to_numpy() / 100, df[f"cf_val_{shot}"].to_numpy() / 100
    gap = test - val
    se = np.sqrt(test * (1 - test) / MMLU_CF_N + val * (1 - val) / MMLU_CF_N)
    z = stats.norm.ppf(1 - alpha / 2)
    p = 2 * stats.norm.sf(np.abs(gap) / se)
    out = pd.DataFrame(
        {
            "model": df["model"],
            "group": df["group"],
            "gap": 100 * gap,
            "gap_low": 100 * (gap - z * se),
            "gap_high": 100 * (gap + z * se),
            "p_value": p,
            "p_holm": holm(p),
        }
    )
    pos, neg = int((gap > 1e-12).sum()), int((gap < -1e-12).sum())
    sign = stats.binomtest(pos, pos + neg, 0.5)
    summary = {
        "models": len(df),
        "positive": pos,
        "negative": neg,
        "zero": len(df) - pos - neg,
        "sign_test_p": float(sign.pvalue),
        "significant_gaps": int((out["p_holm"] <= alpha).sum()),
        "mean_gap_points": float(out["gap"].mean()),
    }
    return summary, out


def read_obsscaling(path: str | Path, reference: str, benchmark: str) -> tuple[pd.DataFrame, list[str]]:
    """Models with both columns (fractions) of an ObsScaling ``eval_results`` table; what is off:
    repeated models, values outside [0, 1], blanks."""
    df = pd.read_csv(path)
    found = _duplicates(df, "Model", Path(path).name)
    blank = df[[reference, benchmark]].isna().any(axis=1)
    if blank.any():
        found.append(f"{Path(path).name}: {int(blank.sum())} models without {reference} or {benchmark} (left out)")
    out = df.loc[~blank, ["Model", "Model Family", reference, benchmark]].rename(
        columns={"Model": "model", "Model Family": "family", reference: "reference", benchmark: "benchmark"}
    )
    bad = out[((out[["reference", "benchmark"]] < 0) | (out[["reference", "benchmark"]] > 1)).any(axis=1)]
    found += [f"{m}: accuracy outside [0, 1]" for m in bad["model"]]
    return out.reset_index(drop=True), found


def obsscaling_anchor(
    df: pd.DataFrame, sizes: tuple[int, int], chance: tuple[float, float], n_bootstrap: int, seed: int, fit: str
) -> ReferenceLens:
    """Every model against the curve through all of them (its own point included, as ConStat's
    published tables test their reference models; with 100+ models one point moves the curve
    little), parametric binomial bootstrap from the test-set sizes."""
    x, y = df["reference"].to_numpy(float), df["benchmark"].to_numpy(float)
    draws = binomial_draws(x, y, x, y, sizes, n_bootstrap, np.random.default_rng(seed))
    draws_shared = type(draws)(draws.x_ref, draws.y_ref, draws.x_ref, draws.y_ref, draws.kind, draws.n_x, draws.n_y)
    everyone = np.ones(len(df), bool)
    return reference_lens(df["model"], x, y, everyone, draws_shared, fit, chance, seed=seed, tested=everyone)


def read_matharena(
    models_path: str | Path, competitions_path: str | Path
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """MathArena's model configs (release ``date``) and competition configs (``date``); what is
    off: configs without a date, one API id with several dates, placeholder years, and a
    competition dated before the year in its name."""
    models = pd.read_csv(models_path, parse_dates=["date"])
    comps = pd.read_csv(competitions_path)
    found = [f"{len(models) - models['date'].notna().sum()} model configs without a date (left out)"]
    dated = models.dropna(subset=["date"])
    multi = dated.groupby("model")["date"].nunique()
    for model in multi[multi > 1].index:
        dates = ", ".join(sorted(dated.loc[dated["model"] == model, "date"].dt.strftime("%Y-%m-%d").unique()))
        found.append(f"API id {model!r} carries several release dates ({dates}): key on config_path")
    parsed = pd.to_datetime(comps["date"], errors="coerce")
    for _, r in comps[parsed.isna()].iterrows():
        what = f"{str(r['date']).count(':')} per-problem dates" if str(r["date"]).startswith("{") else repr(r["date"])
        found.append(f"{r['config_path']}: date is {what}, not one day (left out)")
    for i, r in comps[parsed.dt.year > 2100].iterrows():
        found.append(f"{r['config_path']}: placeholder date {parsed[i]:%Y-%m-%d} (left out)")
    for i, r in comps.iterrows():
        named = re.search(r"(20\d\d)", Path(r["config_path"]).stem)
        if named and pd.notna(parsed[i]) and parsed[i].year < int(named.group(1)):
            found.append(
                f"{r['config_path']}: dated {parsed[i]:%Y-%m-%d}, before the year {named.group(1)} in its name"
            )
    comps = comps.assign(date=parsed)[parsed.notna() & (parsed.dt.year <= 2100)]
    return dated.reset_index(drop=True), comps.reset_index(drop=True), found


def matharena_dates(models: pd.DataFrame, competitions: pd.DataFrame) -> pd.DataFrame:
    """Per competition: how many dated models were released before it (for them it is unseen, if
    the release date bounds the training data) and on or after it (they may have seen it). Dates
    alone say who *could* have seen a competition, not who did: that needs per-problem results."""
    rel = models["date"].to_numpy()
    rows = []
    for _, c in competitions.sort_values("date").iterrows():
        after = int((rel >= np.datetime64(c["date"])).sum())
        rows.append(
            {
                "competition": Path(c["config_path"]).stem,
                "date": c["date"].strftime("%Y-%m-%d"),
                "problems": c["n_problems"],
                "models_released_before": len(rel) - after,
                "models_released_on_or_after": after,
            }
        )
    return pd.DataFrame(rows)
