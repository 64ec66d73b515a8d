"""The measured ImageNet setting (mean accuracy and similarity) read by the bounds study."""

import json

from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])
with open(snakemake.input.summary) as fh:
    summary = json.load(fh)
setting = {key: summary[key] for key in
           ("n", "mean_accuracy", "mean_similarity", "mean_independent_similarity", "num_models")}
setting["source"] = (f"measured by the similarity study on {summary['test_set']} ({summary['source']}); "
                     f"excluded models: {', '.join(summary['excluded_models']) or 'none'}")
setting["test_set"] = summary["test_set"]
with open(snakemake.output.setting, "w") as fh:
    json.dump(setting, fh, indent=2)
log.info("setting: %s", setting)
