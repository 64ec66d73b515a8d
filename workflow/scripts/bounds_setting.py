"""Resolve the ImageNet setting of the bounds study (config or measured) into one JSON."""

import json

from holdout.bounds.study import Setting, load_measured_setting
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821

with timed(log, "bounds setting"):
    if snakemake.params.setting_from == "measured":  # noqa: F821
        setting = load_measured_setting(snakemake.input.measured)  # noqa: F821
    else:
        cfg = snakemake.params.setting  # noqa: F821
        setting = Setting(
            n=int(cfg["n"]),
            mean_accuracy=float(cfg["mean_accuracy"]),
            similarity=float(cfg["similarity"]),
            source="config",
        )
    log.info("setting: %s", setting)
    with open(snakemake.output[0], "w") as fh:  # noqa: F821
        json.dump(setting.to_json(), fh, indent=2)
        fh.write("\n")
