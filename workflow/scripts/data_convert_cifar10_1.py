"""Published CIFAR-10 model predictions (original / v4 / v6) -> predictions format."""

from holdout.data.core import convert_cifar10_1_predictions, describe, load_cifar10, read_user_labels
from holdout.predictions import save_predictions
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, params = snakemake.input, snakemake.params  # noqa: F821
with timed(log, f"convert {params.test_set}"):
    if "archive" in inp.keys():
        labels = load_cifar10(inp.archive).test_labels
        labels_source = f"{inp.archive} (test_batch)"
    else:
        labels = read_user_labels(inp.labels)  # a damaged file: one line naming it
        labels_source = str(inp.labels)
    files = dict(zip(params.model_names, inp.predictions, strict=True))
    preds = convert_cifar10_1_predictions(files, labels, test_set=params.test_set, labels_source=labels_source)
    save_predictions(snakemake.output[0], preds)  # noqa: F821
log.info("wrote %s: %s", snakemake.output[0], describe(preds))  # noqa: F821
