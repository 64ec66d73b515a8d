"""Agreement on the line (holdout.contamination.aline) on every available shift: per-model
estimates, the summary against the truth, the figure."""

from holdout.contamination.aline import aline, aline_summary
from holdout.contamination.plots import plot_aline
from holdout.plotting import save_figure
from holdout.predictions import align_models, load_predictions
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
results = {}
for (name, shift), path in zip(params.shifts.items(), out.models, strict=True):
    with timed(log, f"ALine {name}"):
        original = load_predictions(inp[shift["original"]])
        new = align_models(original, load_predictions(inp[shift["new"]]), inp[shift["new"]])
        r = aline(original.model_names, original.predictions, original.labels, new.predictions, new.labels)
    r.models.to_csv(path, index=False)
    results[name] = r
summary = aline_summary(results)
write_table(summary, out.summary, out.summary_md)
fig, data = plot_aline(results)
save_figure(fig, out.figure, out.figure_pdf, data, out.figure_csv)
log.info("MAE (points): %s", summary[["shift", "mae_s_points", "mae_d_points", "mae_naive_points"]].to_dict("records"))
