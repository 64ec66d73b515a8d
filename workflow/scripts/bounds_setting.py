"""Resolve the ImageNet setting of the bounds study (config or measured) into one JSON."""

from holdout.bounds.study import Setting, load_measured_setting, save_setting
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821
p = snakemake.params  # noqa: F821
if p.setting_from == "measured":
    setting = load_measured_setting(snakemake.input.measured)  # noqa: F821
else:
    setting = Setting.from_config(p.setting)
save_setting(setting, snakemake.output[0])  # noqa: F821
log.info("setting: %s", setting)
