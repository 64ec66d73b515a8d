"""ImageNet -> ImageNetV2 (Recht et al. 2019): accuracy tables, fits, similarity lens, paper check."""

from holdout.imagenetv2 import imagenetv2_tables
from holdout.predictions import load_predictions
from holdout.runlog import script_logger
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, par = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
tables = imagenetv2_tables(
    load_predictions(inp.original),
    load_predictions(inp.new),
    inp.top5_original,
    inp.top5_new,
    par.non_convolutional,
    par.alpha,
    par.eps,
    par.delta,
    log=log,
)
for name, (df, md) in tables.items():  # outputs accuracies, fit, check, similarity and <name>_md
    write_table(df, out[name], out[f"{name}_md"], md)
