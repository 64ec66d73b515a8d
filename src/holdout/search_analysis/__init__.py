"""Analyses of the checkpoints of our own random search (Mania et al. 2019, Sec. 5.2, Fig. 3, Table 1;
Recht et al. 2018, Table 1, Eq. (3), Figure 2).

The search study writes one predictions file per test set (:mod:`holdout.predictions`) whose models
are checkpoints named ``<model>@e<epoch:03d>``; these functions turn such files into the outputs of
``results/search_analysis/``. Pure functions; no torch.

Checkpoints (:mod:`~holdout.search_analysis.checkpoints`)
---------------------------------------------------------
- :func:`split_checkpoint_name`  ``"m007@e012"`` -> ``("m007", 12)``.
- :func:`checkpoint_table`       one row per checkpoint: model, epoch, correct predictions, accuracy.
- :func:`filter_by_accuracy`     the checkpoints with accuracy >= a threshold (the paper: 50%).

Figure 3 (:mod:`~holdout.search_analysis.figure3`)
--------------------------------------------------
- :func:`figure3`                pair similarities vs independent errors and N_eta of the kept checkpoints.
- :class:`Figure3`               its pairs, covering numbers and summary.
- :func:`eta_grid`               the etas of Figure 3 (right) from ``search_analysis.eta``.
- :func:`search_figure3`         :func:`figure3`, timed and summarised in the log.

Table 1 (:mod:`~holdout.search_analysis.table1`)
------------------------------------------------
- :func:`table1_rows`            mean accuracy and similarity of the rows all / random / highest scoring.
- :func:`table1_gains`           the models testable by the union, similarity and naive Bayes bounds.
- :func:`search_table1`          both, with the Markdown beside the paper's DARTS rows.

Recht et al. comparison (:mod:`~holdout.search_analysis.recht`)
---------------------------------------------------------------
- :func:`recht_comparison`       Table 1 and Eq. (3): original vs new test set for the same checkpoints.
- :func:`search_recht`           that, with the points and line of Figure 2.

The figures are drawn by :func:`holdout.search_analysis.plots.search_figure3_figures` (matplotlib,
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
