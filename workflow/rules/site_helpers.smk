# Stage site: helpers (functions only; the rules are in site.smk).
# Input: the SPEC (site.spec, config/site.yaml) whose paths are relative to data.mirror: the
# evaluation logs and leaderboard files it names are read from the mirror, so the site is built
# only when data.mirror is set.
SITE = config["site"]
SITE_RESULTS = "results/site"


def site_spec():
    """site.spec: as given when absolute or present in the working directory, else relative to the
    repository (where config/site.yaml ships)."""
    p = Path(SITE["spec"])
    if p.is_absolute() or p.exists():
        return str(p)
    return str(REPO / p)


def site_root():
    """The folder the SPEC's relative input paths start from: data.mirror (absolute), or None."""
    return DATA_AVAILABILITY.mirror


def site_targets():
    """Final outputs of the site stage: empty when disabled or without data.mirror."""
    if not study_enabled("site") or site_root() is None:
        return []
    return list(rules.site_build.output)
