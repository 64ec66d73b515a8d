"""CIFAR-10.1 v4 / v6 accuracies with Clopper-Pearson intervals, and Recht et al. (2018) Table 5."""

from holdout.cifar10_1.recht import (
    accuracy_table,
    new_accuracies,
    new_accuracies_markdown,
    table5,
    table5_markdown,
)
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821
inp, out, alpha = snakemake.input, snakemake.output, snakemake.params.alpha  # noqa: F821
if "original" not in inp.keys():  # noqa: SIM118
    log.warning("no original CIFAR-10 predictions (archive not available): Table 5 original columns are n/a")
with timed(log, "v4 / v6 accuracies and Table 5"):
    v4, v6 = (accuracy_table(load_predictions(path), alpha) for path in (inp.v4, inp.v6))
    original = accuracy_table(load_predictions(inp.original), alpha) if "original" in inp.keys() else None  # noqa: SIM118
    acc, t5 = new_accuracies(v4, v6), table5(v4, v6, original, alpha)
write_table(acc, csv=out.accuracies, markdown=out.accuracies_md, markdown_text=new_accuracies_markdown(acc))
write_table(t5, csv=out.table5, markdown=out.table5_md, markdown_text=table5_markdown(t5))
log.info(
    "mean accuracy: v4 %.2f%%, v6 %.2f%%; Delta Acc (v6 - v4) mean %.3f, min %.3f, max %.3f",
    acc.v4_accuracy.mean(),
    acc.v6_accuracy.mean(),
    t5.delta_acc.mean(),
    t5.delta_acc.min(),
    t5.delta_acc.max(),
)
