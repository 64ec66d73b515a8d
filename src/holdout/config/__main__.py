"""``python -m holdout.config FILE...``: check config files' YAML (see [`main`][holdout.config.main])."""

from holdout.config import main

raise SystemExit(main())
