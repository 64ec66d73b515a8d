"""CIFAR-10.1 v4 / v6 accuracies with Clopper-Pearson intervals, and Recht et al. (2018) Table 5."""

from pathlib import Path

from holdout.predictions import load_predictions
from holdout.cifar10_1.recht import accuracy_table, new_accuracies, new_accuracies_markdown, table5, table5_markdown
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, alpha = snakemake.input, snakemake.output, snakemake.params.alpha  # noqa: F821
with timed(log, "v4 / v6 accuracies and Table 5"):
    v4 = accuracy_table(load_predictions(inp.v4), alpha)
    v6 = accuracy_table(load_predictions(inp.v6), alpha)
    acc = new_accuracies(v4, v6)
    acc.to_csv(out.accuracies, index=False)
    Path(out.accuracies_md).write_text(new_accuracies_markdown(acc))
    original = None
    if "original" in inp.keys():
        original = accuracy_table(load_predictions(inp.original), alpha)
    else:
        log.warning("no original CIFAR-10 predictions (archive not available): Table 5 original columns are n/a")
    t5 = table5(v4, v6, original, alpha)
    t5.to_csv(out.table5, index=False)
    Path(out.table5_md).write_text(table5_markdown(t5))
log.info("mean accuracy: v4 %.2f%%, v6 %.2f%%; Delta Acc (v6 - v4) mean %.3f, min %.3f, max %.3f",
         acc.v4_accuracy.mean(), acc.v6_accuracy.mean(), t5.delta_acc.mean(), t5.delta_acc.min(), t5.delta_acc.max())
