"""``python -m holdout.audit ...``: the same as ``holdout audit ...``."""

import sys

from holdout.cli import main

sys.exit(main(["audit", *sys.argv[1:]]))
