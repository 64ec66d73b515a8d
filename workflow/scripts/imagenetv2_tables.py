"""ImageNet -> ImageNetV2 (Recht et al. 2019): accuracy tables, fits, similarity lens, paper check."""

from holdout.imagenetv2 import (
    accuracies_markdown,
    fit_table,
    fits_markdown,
    imagenetv2_table,
    paper_check,
    paper_check_markdown,
    similarity_table,
    top5_correct,
)
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.tables import markdown_table, write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, par = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
original, new = load_predictions(inp.original), load_predictions(inp.new)
with timed(log, "top-5 from the testbed arrays"):
    new = new.subset(list(original.model_names))
    top5_o = top5_correct(inp.top5_original, original.labels)
    top5_n = top5_correct(inp.top5_new, new.labels)
with timed(log, "accuracy table, fits, paper check"):
    table = imagenetv2_table(original, new, top5_o, top5_n, par.non_convolutional, par.alpha)
    write_table(table, out.accuracies, out.accuracies_md, accuracies_markdown(table))
    fits = fit_table(table)
    write_table(fits, out.fit, out.fit_md, fits_markdown(fits))
    check = paper_check(table)
    write_table(check, out.check, out.check_md, paper_check_markdown(check))
with timed(log, "similarity lens on both sets"):
    sim = similarity_table({original.test_set: original, new.test_set: new}, par.non_convolutional, par.eps, par.delta)
    write_table(
        sim,
        out.similarity,
        out.similarity_md,
        markdown_table(sim.round(3), title="Mania et al. lens on ImageNet and ImageNetV2 (percent)"),
    )
for row in check.to_dict("records"):
    log.info(
        "%s: mean top-1 drop %.2f (range %.2f to %.2f; paper 11-14)",
        row["models"],
        row["mean_gap_top1"],
        row["min_gap_top1"],
        row["max_gap_top1"],
    )
