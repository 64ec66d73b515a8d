"""Checks of the ``audit`` keys: the user sets it names are configured."""

from __future__ import annotations

from holdout.config._base import Config, check_known_sets


def check_audit(config: Config) -> None:
    """Each ``audit.user`` key and ``new_set`` is a ``data.user_predictions`` name."""
    audit = config.get("audit", {}) or {}
    users = [u["name"] for u in config["data"].get("user_predictions", [])]
    user = audit.get("user") or {}
    check_known_sets("audit.user", user, users, "a data.user_predictions name")
    for name, opts in user.items():
        if (opts or {}).get("new_set") is not None:
            check_known_sets(f"audit.user.{name}.new_set", [opts["new_set"]], users, "a data.user_predictions name")
