"""Figures of the search analysis: Mania et al. (2019) Figure 3 for our random search, drawn with the
similarity study's plotters (the same look as the published models' figures)."""

from __future__ import annotations

import pandas as pd

from holdout.similarity.plots import plot_covering_numbers, plot_pair_similarities

__all__ = ["search_figure3_figures"]


def search_figure3_figures(pairs: pd.DataFrame, covering: pd.DataFrame, test_set: str, min_accuracy: float) -> dict:
    """Mania et al. Fig. 3 for our random search: ``pairs`` (pair similarities vs independent errors)
    and ``covering`` (N_eta upper bounds), from the frames of
    [`holdout.search_analysis.figure3.figure3`][holdout.search_analysis.figure3.figure3]."""
    label = f"Our random search, {test_set}"
    k = int(covering["num_checkpoints"].iloc[0])
    return {
        "pairs": plot_pair_similarities(
            pairs["similarity"],
            pairs["independent_similarity"],
            f"{label}: checkpoints with accuracy >= {min_accuracy:g}",
            k,
        ),
        "covering": plot_covering_numbers(
            covering["eta"].to_numpy(),
            covering["covering_number_upper_bound"].to_numpy(),
            k,
            f"{label}: similarity covering numbers",
        ),
    }
