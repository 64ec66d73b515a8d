# Stage: bounds, helper functions (kept apart from the rules so that `snakemake --lint`
# stays clean: its "mixed rules and functions" check flags any .smk holding both).
# Included by bounds.smk.

# Written by the similarity stage (not a rule of this stage); read when
# bounds.setting_from is "measured".
BOUNDS_MEASURED_SETTING = "results/similarity/imagenet/setting.json"


def _bounds_cfg():
    """The validated ``bounds`` section of the config."""
    return config["bounds"]


def _bounds_setting_input(wildcards):
    """The measured setting JSON when bounds.setting_from is "measured", else nothing."""
    if _bounds_cfg()["setting_from"] == "measured":
        return {"measured": BOUNDS_MEASURED_SETTING}
    return {}


def bounds_targets():
    """Final outputs of the bounds stage (empty when the stage is disabled)."""
    if not study_enabled("bounds"):
        return []
    return [
        "results/bounds/figure1b.csv",
        "results/bounds/figure1b.png",
        "results/bounds/figure1b.pdf",
        "results/bounds/figure2_similarity.csv",
        "results/bounds/figure2_eps.csv",
        "results/bounds/figure2.png",
        "results/bounds/figure2.pdf",
        "results/bounds/table1.csv",
        "results/bounds/table1.md",
    ]
