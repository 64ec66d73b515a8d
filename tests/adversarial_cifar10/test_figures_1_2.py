"""Werpachowski et al. (2019) Figure 1 (published CIFAR-10 models by year) and Figure 2 (the
strongest AEG's most confident translation): the library parts, on hand-made inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from holdout.adversarial.cifar10.figures import figure1_table, figure2_example, model_years, strongest_successes
from holdout.predictions import Predictions


def test_model_years_cover_the_30_recht_models_with_citations():
    y = model_years()
    assert len(y) == 30 and y["model"].is_unique
    assert (y["authors"] != "").all() and (y["title"] != "").all()
    years = dict(zip(y["model"], y["year"]))
    assert years["resnet_basic_110"] == 2016  # He et al., CVPR 2016 (arXiv 1512.03385)
    assert years["shake_drop"] == 2018  # Yamada et al., arXiv 1802.02375
    assert years["cudaconvnet"] == 2012 and years["random_features_32k"] == 2011
    assert y["year"].between(2010, 2018).all()  # Figure 1's axis: 2010-2018


def test_figure1_table_accuracy_and_missing_year():
    labels = np.array([0, 1, 2, 3])
    preds = Predictions.create(np.array([[0, 1, 2, 0], [0, 1, 2, 3]]), labels, ["alexnet_tf", "shake_drop"])
    t = figure1_table(preds, model_years())
    assert list(t["model"]) == ["alexnet_tf", "shake_drop"] and list(t["accuracy"]) == [75.0, 100.0]
    assert list(t["year"]) == [2012, 2018]
    bad = Predictions.create(np.array([[0, 1, 2, 3]]), labels, ["my_model"])
    with pytest.raises(ValueError, match=r"no year of publication for \['my_model'\]"):
        figure1_table(bad, model_years())


def test_figure2_picks_the_largest_excess_logit():
    frame = pd.DataFrame(
        {
            "index": [5, 6, 7],
            "label": [1, 2, 0],
            "loss": [0, 0, 1],
            "strongest_adv_loss": [1, 1, 1],
            "strongest_v_row": [1, -2, 0],
            "strongest_v_col": [0, 1, 0],
        }
    )
    s = strongest_successes({"seed000": frame})
    assert list(s["index"]) == [5, 6]  # image 7 was misclassified already (G2)
    lo = np.array([[0.0, 2.0, 1.0], [0.0, 0.0, 3.0]])  # both correct
    lt = np.array([[3.0, 1.0, 0.0], [5.0, 0.0, 1.0]])  # excess logits 3 - 1 = 2 and 5 - 1 = 4
    ex = figure2_example(s, lo, lt)
    assert ex["index"] == 6 and ex["excess_logit"] == 4.0 and (ex["pred_original"], ex["pred_translated"]) == (2, 0)
    assert (ex["v_row"], ex["v_col"]) == (-2, 1)
