"""A user's own predictions (CSV / NPY + labels) -> predictions format."""

from holdout.data.core import convert_user_predictions, describe
from holdout.predictions import save_predictions
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
entry = dict(snakemake.params.entry)  # noqa: F821
with timed(log, f"convert user predictions {entry['name']}"):
    preds = convert_user_predictions(
        snakemake.input.predictions,  # noqa: F821
        snakemake.input.labels,  # noqa: F821
        test_set=entry.get("test_set") or entry["name"],
        model_names=entry.get("model_names"),
        num_classes=entry.get("num_classes"),
    )
    save_predictions(snakemake.output[0], preds)  # noqa: F821
log.info("wrote %s: %s", snakemake.output[0], describe(preds))  # noqa: F821
