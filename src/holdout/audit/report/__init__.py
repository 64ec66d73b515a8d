"""The audit's outputs for a reader: the verdicts (one plain-language line per lens), the figures, the
HTML page's pieces and the page itself with its ``summary.md`` (the at-a-glance block)."""
