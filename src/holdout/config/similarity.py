"""Checks of the ``similarity`` keys (Mania et al. 2019) that span several keys."""

from __future__ import annotations

from holdout.config._base import LOG, Config, ConfigError, check_names_among
from holdout.config.data import known_prediction_sets


def check_similarity(config: Config) -> None:
    """Set names exist (a warning for ``table1.sets`` outside ``sets``); ``eta.min <= eta.max``."""
    sim = config["similarity"]
    known = known_prediction_sets(config)
    check_names_among("similarity.sets", sim["sets"], known, "the configured prediction sets")
    check_names_among("similarity.table1.sets", sim["table1"]["sets"], known, "the configured prediction sets")
    check_names_among("similarity.setting_set", [sim["setting_set"]], known, "the configured prediction sets")
    skipped = [s for s in sim["table1"]["sets"] if s not in sim["sets"]]
    if skipped and sim.get("enabled", True):
        LOG.warning(f"similarity.table1.sets: {', '.join(skipped)} not in similarity.sets: no Table-1 rows for them")
    dups = sorted({s for s in sim["sets"] if sim["sets"].count(s) > 1})
    if dups:
        raise ConfigError(f"similarity.sets: {', '.join(map(repr, dups))} listed more than once")
    eta = sim["eta"]
    if eta["min"] > eta["max"]:
        raise ConfigError(f"similarity.eta: min = {eta['min']} is above max = {eta['max']}")
    names = [s["name"] for s in sim["table1"]["subsets"]]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise ConfigError(f"similarity.table1.subsets: name {', '.join(map(repr, dups))} given more than once")
