"""``python -m holdout.audit ...``: the same as ``holdout audit ...``."""

import sys

from holdout.audit.cli import main

sys.exit(main(sys.argv[1:]))
