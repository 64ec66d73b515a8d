# Stage audit: helpers (functions only; the rules are in audit.smk).
# Uses data_user_entries(), available_prediction_sets() and data_prediction_path() of data_helpers.smk.

AUDIT = config["audit"]
AUDIT_RESULTS = "results/audit"
AUDIT_OWN = {
    "test": "results/search/predictions/cifar10_test.npz",
    "configs": "results/search/configs.csv",
    "v6": "results/search/predictions/cifar10_1_v6.npz",
    "pvalues": "results/adversarial_cifar10/pvalues.csv",
}


def audit_user_options(name):
    """Per-set audit inputs (audit.user.<name>): new_set, search_size, rvw_description, selected."""
    return AUDIT["user"].get(name, {})


def audit_user_inputs(wildcards):
    inputs = {"predictions": data_prediction_path(f"user_{wildcards.name}")}
    new_set = audit_user_options(wildcards.name).get("new_set")
    if new_set:
        if new_set not in data_user_entries():
            raise WorkflowError(f"audit.user.{wildcards.name}.new_set: {new_set} is not a data.user_predictions name")
        inputs["new"] = data_prediction_path(f"user_{new_set}")
    description = audit_user_options(wildcards.name).get("rvw_description")
    if description:
        inputs["description"] = description
    return inputs


def audit_own_models_enabled():
    """The own-models table needs the search study (search.enabled, added by the training issue)."""
    return bool(config.get("search", {}).get("enabled", False))


def audit_own_models_inputs(wildcards):
    inputs = {"test": AUDIT_OWN["test"], "configs": AUDIT_OWN["configs"]}
    if data_file_available("CIFAR-10.1/datasets/cifar10.1_v6_data.npy"):
        inputs["v6"] = AUDIT_OWN["v6"]
    if config.get("adversarial_cifar10", {}).get("enabled", False):
        inputs["pvalues"] = AUDIT_OWN["pvalues"]
    return inputs


def audit_targets():
    """Final outputs of the audit stage: one report per available user set; the own-models
    table when the search study is enabled (empty when the stage is disabled)."""
    if not study_enabled("audit"):
        return []
    available = available_prediction_sets()
    out = [
        f"{AUDIT_RESULTS}/user_{name}/{f}"
        for name in data_user_entries()
        if f"user_{name}" in available
        for f in ("report.html", "summary.json")
    ]
    if audit_own_models_enabled():
        out += [
            f"{AUDIT_RESULTS}/own_models/table.csv",
            f"{AUDIT_RESULTS}/own_models/table.md",
            f"{AUDIT_RESULTS}/own_models/models.csv",
        ]
    return out
