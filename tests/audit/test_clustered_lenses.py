"""The accuracy and pairs lenses with item clusters (evidence from logs read with ``cluster_by``):
the clustered columns against holdout.stats, and the tables unchanged without clusters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from holdout.audit.notebook import audit
from holdout.audit.readers.logs import read_logs
from holdout.stats import clustered_paired_test, clustered_se


@pytest.fixture(scope="module")
def starsim(shared_data):
    # Inspect's StarSim benchmark: 6 runs x 23 sub-steps of 6 problems (the samples' problem_id)
    logs = shared_data / "evallogs/inspect_starsim"
    return read_logs(logs, cluster_by="problem_id"), read_logs(logs)


def test_accuracy_lens_gains_clustered_columns(starsim) -> None:
    e, plain = starsim
    got, before = audit(e, lenses=["accuracy"])["accuracy"], audit(plain, lenses=["accuracy"])["accuracy"]
    pd.testing.assert_frame_equal(got[list(before.columns)], before)
    for _, row in got.iterrows():
        r = clustered_se(e.matrix[e.model_ids.index(row["model"])], e.clusters)
        assert (row["se"], row["se_clustered"]) == pytest.approx((100 * r.se, 100 * r.se_clustered_finite), rel=1e-9)
        assert row["design_effect"] == pytest.approx(r.design_effect, rel=1e-9)
    assert set(got["n_clusters"]) == {6}


def test_pairs_lens_gains_clustered_columns(starsim) -> None:
    e, plain = starsim
    got, before = audit(e, lenses=["pairs"])["pairs"], audit(plain, lenses=["pairs"])["pairs"]
    pd.testing.assert_frame_equal(got[list(before.columns)], before)
    assert not {"se_diff", "p_clustered"} & set(before.columns)
    for _, row in got.head(5).iterrows():
        a, b = (e.matrix[e.model_ids.index(row[k])] for k in ("model_a", "model_b"))
        r = clustered_paired_test(a, b, e.clusters)
        assert row["p_clustered"] == pytest.approx(r.pvalue, rel=1e-12)
        assert row["se_diff_clustered"] == pytest.approx(100 * r.se.se_clustered_finite, rel=1e-9)
        assert row["se_diff"] == pytest.approx(100 * np.std(a - b, ddof=1) / np.sqrt(a.size), rel=1e-9)
