# Helpers of the adversarial stage (included by adversarial.smk): paths, config, targets.

ADV_SYN_DIR = "results/adversarial/synthetic"
ADV_SYN_CASES = ["independent", "dependent"]


def adversarial_synthetic_cfg():
    """The adversarial.synthetic config section (schema defaults filled in)."""
    return config["adversarial"]["synthetic"]


def adversarial_synthetic_outputs():
    """Final outputs of the synthetic study, by output name."""
    d = ADV_SYN_DIR
    return {
        "figure4": f"{d}/figure4.png",
        "figure4_csv": f"{d}/figure4.csv",
        "figure7_pvalues": f"{d}/figure7_pvalues.png",
        "risks": f"{d}/figure7_risks.png",
        "risks_csv": f"{d}/figure7_risks.csv",
        "densities": f"{d}/figure7_densities.png",
        "densities_csv": f"{d}/figure7_densities.csv",
        "histograms": f"{d}/figure7_histograms.png",
        "histograms_csv": f"{d}/figure7_histograms.csv",
        "figure8": f"{d}/figure8.png",
        "figure8_csv": f"{d}/figure8.csv",
        "summary": f"{d}/summary.csv",
    }


def adversarial_targets():
    """Final outputs of the adversarial stage (empty when the stage is disabled)."""
    if not study_enabled("adversarial"):
        return []
    targets = []
    if adversarial_synthetic_cfg().get("enabled", True):
        targets += list(adversarial_synthetic_outputs().values())
    return targets
