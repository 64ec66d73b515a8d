"""The ``holdout`` command line: one module per command, each with ``main(argv) -> int``."""
