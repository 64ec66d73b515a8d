# Stage: bounds, helper functions (kept apart from the rules so that `snakemake --lint`
# stays clean: its "mixed rules and functions" check flags any .smk holding both).
# Included by bounds.smk.


def _bounds_cfg():
    """The validated ``bounds`` section of the config."""
    return config["bounds"]


def _bounds_setting_input(wildcards):
    """The measured setting JSON when bounds.setting_from is "measured", else nothing."""
    if _bounds_cfg()["setting_from"] == "measured":
        # written by the similarity stage (rule similarity_setting)
        return {"measured": rules.similarity_setting.output.setting}
    return {}


def bounds_targets():
    """Final outputs of the bounds stage (empty when the stage is disabled)."""
    if not study_enabled("bounds"):
        return []
    return [
        *rules.bounds_figure1b.output,
        *expand(rules.bounds_figure2_grid.output.csv, panel=["similarity", "eps"]),
        *rules.bounds_figure2.output,
        *rules.bounds_table1.output,
    ]
