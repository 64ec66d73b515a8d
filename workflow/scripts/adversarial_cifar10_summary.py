"""Every p-value of the adversarial overfitting test on the seeds models, the N-model test,
Figure 5 (Werpachowski et al. 2019, Sec. 5.2) and the p-value against the error (Sec. 3.3)."""

from holdout.adversarial.cifar10 import attack as ac
from holdout.adversarial.cifar10 import plots
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821
cfg, out = snakemake.params.cfg, snakemake.output  # noqa: F821
pvalues, n_model, summary = ac.summary_tables(ac.read_per_image(snakemake.input.per_image), cfg, log)  # noqa: F821
write_table(pvalues, csv=out.pvalues)
write_table(n_model, csv=out.n_model)
write_table(summary, csv=out.summary, markdown=out.pvalues_md, markdown_text=ac.pvalue_markdown(pvalues, summary))
with timed(log, "figures"):
    fig, data = plots.plot_figure5(pvalues, n_model, snakemake.params.models[0])  # noqa: F821
    save_figure(fig, out.figure5, pdf=out.figure5_pdf, data=data, csv=out.figure5_csv)
    fig, data = plots.plot_pvalue_vs_error(pvalues, alpha=float(cfg["alpha"]))
    save_figure(fig, out.error, pdf=out.error_pdf, data=data, csv=out.error_csv)
