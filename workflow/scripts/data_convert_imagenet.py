"""ImageNet testbed top-5 files -> top-1 predictions format."""

from holdout.data.core import convert_imagenet_testbed, describe
from holdout.predictions import save_predictions
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, params = snakemake.input, snakemake.params  # noqa: F821
with timed(log, f"convert {params.test_set}"):
    files = dict(zip(params.model_names, inp.predictions, strict=True))
    preds = convert_imagenet_testbed(files, inp.dataset, inp.class_info, test_set=params.test_set, log=log)
    save_predictions(snakemake.output[0], preds)  # noqa: F821
log.info("wrote %s: %s", snakemake.output[0], describe(preds))  # noqa: F821
