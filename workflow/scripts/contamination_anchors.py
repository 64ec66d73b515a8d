"""The public contamination anchors (holdout.contamination.anchors): GSM1k, MMLU-CF, ObsScaling,
MathArena, each recomputed from its files with a figure; what is off in the files in one JSON."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one rule thread: small dense algebra, no BLAS threads

import json  # noqa: E402

from holdout.contamination import anchors as A  # noqa: E402
from holdout.contamination import plots  # noqa: E402
from holdout.leaderboards import accuracy_table_audit  # noqa: E402
from holdout.plotting import save_figure  # noqa: E402
from holdout.runlog import script_logger, timed  # noqa: E402

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
found, numbers = {}, {}
with timed(log, "GSM1k"):
    df, found["gsm1k"] = A.read_gsm1k(inp.gsm1k_diff, inp.gsm1k_loglik)
    numbers["gsm1k"], per_model = A.gsm1k_anchor(df, params.alpha)
    per_model.to_csv(out.gsm1k, index=False)
    fig, data = plots.plot_gsm1k(per_model, numbers["gsm1k"]["spearman_r"])
    save_figure(fig, out.gsm1k_png, out.gsm1k_pdf, data, out.gsm1k_csv)
with timed(log, "MMLU-CF"):
    table, found["mmlu_cf"] = A.read_mmlu_cf(inp.mmlu_cf)
    numbers["mmlu_cf_5shot"], gaps = A.mmlu_cf_anchor(table, "5shot", params.alpha)
    numbers["mmlu_cf_0shot"], _ = A.mmlu_cf_anchor(table, "0shot", params.alpha)
    gaps.to_csv(out.mmlu_cf, index=False)
    fig, data = plots.plot_mmlu_cf(gaps)
    save_figure(fig, out.mmlu_cf_png, out.mmlu_cf_pdf, data, out.mmlu_cf_csv)
    audit = accuracy_table_audit(
        table["model"], table["mmlu_5shot"] / 100, table["cf_test_5shot"] / 100, A.MMLU_N, A.MMLU_CF_N, params.alpha
    )
    audit.models.to_csv(out.mmlu_vs_cf, index=False)
    numbers["mmlu_vs_cf"] = {
        "probit_slope": audit.probit.slope,
        "probit_intercept": audit.probit.intercept,
        "off_the_line_holm": int(audit.models["er_significant"].sum()),
        "mean_gap_points": float(audit.models["gap"].mean()),
    }
with timed(log, f"ObsScaling ({params.obsscaling['n_bootstrap']} replicates)"):
    obs = params.obsscaling
    df, found["obsscaling"] = A.read_obsscaling(inp.obsscaling, obs["reference"], obs["benchmark"])
    lens = A.obsscaling_anchor(df, tuple(obs["sizes"]), tuple(obs["chance"]), obs["n_bootstrap"], params.seed, "spline")
    lens.models.to_csv(out.obsscaling, index=False)
    label = f"{obs['reference']} (%)", f"{obs['benchmark']} (%)"
    fig, data = plots.plot_reference_lens(lens.models, lens.curve, *label)
    save_figure(fig, out.obsscaling_png, out.obsscaling_pdf, data, out.obsscaling_csv)
    above = lens.models[lens.models["delta_low"] > 0]
    numbers["obsscaling"] = {
        "models": len(df),
        "above_interval": len(above),
        "above_holm": int(lens.models["significant"].sum()),
    }
with timed(log, "MathArena"):
    models, comps, found["matharena"] = A.read_matharena(inp.matharena_models, inp.matharena_competitions)
    dates = A.matharena_dates(models, comps)
    dates.to_csv(out.matharena, index=False)
    fig, data = plots.plot_matharena(dates)
    save_figure(fig, out.matharena_png, out.matharena_pdf, data, out.matharena_csv)
with open(out.summary, "w") as fh:
    json.dump({"numbers": numbers, "findings": found}, fh, indent=2, default=float)
log.info(
    "GSM1k Spearman r = %.3f; MMLU-CF sign test p = %.4f",
    numbers["gsm1k"]["spearman_r"],
    numbers["mmlu_cf_5shot"]["sign_test_p"],
)
