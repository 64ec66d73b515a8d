# Stage contamination: helpers (functions only; the rules are in contamination.smk).
# Inputs: the public contamination results under the mirror's anchors/ folder (contamination.urls /
# .checksums in config/config.yaml), fetched from data.mirror or their pinned URLs.
CT = config["contamination"]
CT_RAW = "resources/contamination/raw"
CT_RESULTS = "results/contamination"
CT_CONSTAT = "anchors/constat/tables/{}.csv"
CT_ROLES = "anchors/constat/model_roles.csv"


def contamination_checksum(relpath):
    """The configured checksum of an anchor file (contamination.checksums)."""
    return CT["checksums"][relpath]


def contamination_raw(relpath):
    """Where the fetched, verified copy of a mirror-relative anchor file lives."""
    return f"{CT_RAW}/{relpath}"


def contamination_constat_inputs(wildcards=None):
    """ConStat's tables (by name) and its model roles."""
    tables = {name: contamination_raw(CT_CONSTAT.format(name)) for name in CT["constat"]["tables"]}
    return tables | {"roles": contamination_raw(CT_ROLES)}


def contamination_available(relpaths):
    """True when every anchor file has a checksum and, with data.mirror set, the mirror holds it."""
    return all(_data_av.file_available(p, CT, DATA_AVAILABILITY.mirror) for p in relpaths)


def contamination_aline_shifts():
    """The configured shifts (contamination.aline.shifts) whose two prediction sets can be built."""
    sets = available_prediction_sets()
    return [name for name, s in CT["aline"]["shifts"].items() if {s["original"], s["new"]} <= sets]


def contamination_aline_inputs(wildcards=None):
    """The predictions files of every available shift's original and new set, by set name."""
    shifts = [CT["aline"]["shifts"][name] for name in contamination_aline_shifts()]
    return {s[role]: data_prediction_path(s[role]) for s in shifts for role in ("original", "new")}


CT_ANCHORS = {
    "gsm1k_diff": "anchors/gsm1k/scale_diff.csv",
    "gsm1k_loglik": "anchors/gsm1k/averages.tsv",
    "mmlu_cf": "anchors/mmlu_cf/mmlu_cf_leaderboard.csv",
    "obsscaling": "anchors/obsscaling/eval_results/base_llm_benchmark_eval.csv",
    "matharena_models": "anchors/matharena/model_release_dates.csv",
    "matharena_competitions": "anchors/matharena/competition_dates.csv",
}


def contamination_anchor_inputs():
    """The anchor files of GSM1k, MMLU-CF, ObsScaling and MathArena, by role."""
    return {role: contamination_raw(relpath) for role, relpath in CT_ANCHORS.items()}


def contamination_targets():
    """Final outputs of the contamination stage: empty when disabled; each part when its inputs are there."""
    if not study_enabled("contamination"):
        return []
    targets = []
    if contamination_available([CT_CONSTAT.format(n) for n in CT["constat"]["tables"]] + [CT_ROLES]):
        targets += list(rules.contamination_constat.output)
    if contamination_available(list(CT_ANCHORS.values())):
        targets += list(rules.contamination_anchors.output)
    if contamination_aline_shifts():
        targets += list(rules.contamination_aline.output)
    return targets
