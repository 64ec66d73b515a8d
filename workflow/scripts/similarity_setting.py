"""The measured ImageNet setting (mean accuracy and similarity) read by the bounds study."""

import json

from holdout.runlog import script_logger
from holdout.similarity.study import measured_setting

log = script_logger(snakemake.log[0])  # noqa: F821
with open(snakemake.input.summary) as fh:  # noqa: F821
    setting = measured_setting(json.load(fh))
with open(snakemake.output.setting, "w") as fh:  # noqa: F821
    json.dump(setting, fh, indent=2)
log.info("setting: %s", setting)
