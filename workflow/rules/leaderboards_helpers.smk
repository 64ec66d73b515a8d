# Stage leaderboards: helpers (functions only; the rules are in leaderboards.smk).
# Inputs: four public leaderboard files (leaderboards.urls / .checksums in config/config.yaml),
# fetched from data.mirror or their URLs with the data stage's fetch (holdout.data.fetch).
LB = config["leaderboards"]
LB_RAW = "resources/leaderboards/raw"
LB_RESULTS = "results/leaderboards"
LB_TIMM = "pytorch-image-models/results/results-{}.csv"
LB_TESTBED = "imagenet-testbed/robustness_top1s.csv"
LB_EVALPLUS = "evalplus/results.json"
LB_LCB = "livecodebench/src/mocks/performances_generation.json"
LB_FILES = sorted(LB["checksums"])
LB_PAIRS = list(LB["pairs"])


def leaderboards_checksum(relpath):
    """The configured checksum of a leaderboard file (leaderboards.checksums)."""
    return LB["checksums"][relpath]


def leaderboards_raw(relpath):
    """Where the fetched, verified copy of a mirror-relative leaderboard file lives."""
    return f"{LB_RAW}/{relpath}"


def leaderboards_pair_files(name):
    """The raw inputs of accuracy-table pair ``name``, by role (timm: set name; else the source)."""
    pair = LB["pairs"][name]
    if pair["source"] == "timm":
        return {s: leaderboards_raw(LB_TIMM.format(s)) for s in (pair["original"], pair["new"])}
    relpath = LB_TESTBED if pair["source"] == "testbed" else LB_EVALPLUS
    return {pair["source"]: leaderboards_raw(relpath)}


def leaderboards_fits_inputs(wildcards):
    """Every pair's raw files (keys as in leaderboards_pair_files) and the imagenetv2 fit."""
    files = {k: v for name in LB_PAIRS for k, v in leaderboards_pair_files(name).items()}
    return files | {"imagenetv2": leaderboards_imagenetv2_fit()}


def leaderboards_inputs_available():
    """True when every input file has a checksum and, with data.mirror set, the mirror holds it."""
    needed = {LB_TESTBED, LB_EVALPLUS, LB_LCB} | {
        LB_TIMM.format(s) for p in LB["pairs"].values() if p["source"] == "timm" for s in (p["original"], p["new"])
    }
    return all(_data_av.file_available(p, LB, DATA_AVAILABILITY.mirror) for p in needed)


def leaderboards_imagenetv2_fit():
    """The imagenetv2 study's 67-model testbed fit, set beside ours when that study runs."""
    return [f"{IV2_RESULTS}/linear_fit.csv"] if imagenetv2_targets() else []


def leaderboards_targets():
    """Final outputs of the leaderboards stage: empty when disabled or an input is not available."""
    if not study_enabled("leaderboards") or not leaderboards_inputs_available():
        return []
    return list(rules.leaderboards_fits.output) + list(rules.leaderboards_livecodebench.output)
