"""Analyses of the checkpoints of our own random search (Mania et al. 2019, Sec. 5.2, Fig. 3, Table 1;
Recht et al. 2018, Table 1, Eq. (3), Figure 2).

The search study writes one predictions file per test set ([`holdout.predictions`][holdout.predictions]) whose models
are checkpoints named ``<model>@e<epoch:03d>``; these functions turn such files into the outputs of
``results/search_analysis/``. Pure functions; no torch.

Checkpoints ([`checkpoints`][holdout.search_analysis.checkpoints])
---------------------------------------------------------
- [`split_checkpoint_name`][holdout.search_analysis.split_checkpoint_name]  ``"m007@e012"`` -> ``("m007", 12)``.
- [`checkpoint_table`][holdout.search_analysis.checkpoint_table]       one row per checkpoint: model, epoch, correct
  predictions, accuracy.
- [`filter_by_accuracy`][holdout.search_analysis.filter_by_accuracy]     the checkpoints with accuracy >= a threshold
  (the paper: 50%).

Figure 3 ([`figure3`][holdout.search_analysis.figure3])
--------------------------------------------------
- [`figure3`][holdout.search_analysis.figure3]                pair similarities vs independent errors and N_eta of the
  kept checkpoints.
- [`Figure3`][holdout.search_analysis.Figure3]               its pairs, covering numbers and summary.
- [`eta_grid`][holdout.search_analysis.eta_grid]               the etas of Figure 3 (right) from
  ``search_analysis.eta``.
- [`search_figure3`][holdout.search_analysis.search_figure3]         [`figure3`][holdout.search_analysis.figure3], timed
  and summarised in the log.

Table 1 ([`table1`][holdout.search_analysis.table1])
------------------------------------------------
- [`table1_rows`][holdout.search_analysis.table1_rows]            mean accuracy and similarity of the rows all / random
  / highest scoring.
- [`table1_gains`][holdout.search_analysis.table1_gains]           the models testable by the union, similarity and
  naive Bayes bounds.
- [`search_table1`][holdout.search_analysis.search_table1]          both, with the Markdown beside the paper's DARTS
  rows.

Recht et al. comparison ([`recht`][holdout.search_analysis.recht])
---------------------------------------------------------------
- [`recht_comparison`][holdout.search_analysis.recht_comparison]       Table 1 and Eq. (3): original vs new test set for
  the same checkpoints.
- [`search_recht`][holdout.search_analysis.search_recht]           that, with the points and line of Figure 2.

The figures are drawn by
[`holdout.search_analysis.plots.search_figure3_figures`][holdout.search_analysis.plots.search_figure3_figures]
(matplotlib,
imported only there).
"""

from holdout.search_analysis.checkpoints import checkpoint_table, filter_by_accuracy, split_checkpoint_name
from holdout.search_analysis.figure3 import Figure3, eta_grid, figure3, search_figure3
from holdout.search_analysis.recht import recht_comparison, search_recht
from holdout.search_analysis.table1 import search_table1, table1_gains, table1_rows

__all__ = [
    "Figure3",
    "checkpoint_table",
    "eta_grid",
    "figure3",
    "filter_by_accuracy",
    "recht_comparison",
    "search_figure3",
    "search_recht",
    "search_table1",
    "split_checkpoint_name",
    "table1_gains",
    "table1_rows",
]
