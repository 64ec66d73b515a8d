"""Every p-value of the adversarial overfitting test on the seeds models, the N-model test,
Figure 5 (Werpachowski et al. 2019, Sec. 5.2) and the p-value against the error (Sec. 3.3)."""

from pathlib import Path

import pandas as pd

from holdout.adversarial import cifar10 as ac
from holdout.adversarial import plots_cifar10 as plots
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
out = snakemake.output

frames = {}
for path in snakemake.input.per_image:  # per_image/<model>_<set>.csv
    model, split = Path(path).stem.rsplit("_", 1)
    frames[model, split] = pd.read_csv(path)
seed, sizes = int(cfg["seed"]), [int(s) for s in cfg["sample_sizes"]]
with timed(log, "pairwise and N-model tests"):
    pvalues = ac.pvalue_table(frames, sizes, seed=seed, confidence_delta=float(cfg["confidence_delta"]))
    n_model = ac.n_model_table(frames, sizes, seed=seed)
    summary = ac.rejection_summary(pvalues, n_model, alpha=float(cfg["alpha"]))
write_table(pvalues, csv=out.pvalues)
write_table(n_model, csv=out.n_model)
write_table(summary, csv=out.summary, markdown=out.pvalues_md, markdown_text=ac.pvalue_markdown(pvalues, summary))
for _, r in summary.iterrows():
    log.info(
        "%s %s m=%d: %d/%d models rejected at %g (median p %.3g); N-model test p = %.3g (ln p = %.1f)",
        r["set"],
        r["aeg"],
        r["sample_size"],
        r["rejected"],
        r["n_models"],
        r["alpha"],
        r["median_p_value"],
        r["n_model_p_value"],
        r["n_model_log_p_value"],
    )
with timed(log, "figures"):
    fig, data = plots.plot_figure5(pvalues, n_model, snakemake.params.models[0])
    save_figure(fig, out.figure5, pdf=out.figure5_pdf, data=data, csv=out.figure5_csv)
    fig, data = plots.plot_pvalue_vs_error(pvalues, alpha=float(cfg["alpha"]))
    save_figure(fig, out.error, pdf=out.error_pdf, data=data, csv=out.error_csv)
