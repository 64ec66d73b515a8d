"""§3 of issue 17: the four lenses on our own models, from generated contract files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from holdout.audit import AuditError
from holdout.audit.engines.own_models import final_epoch_models, own_models
from holdout.predictions import Predictions, save_predictions
from holdout.rvw.core import rvw_bound


def _search(n: int = 2000, configs: int = 6, epochs=(10, 20), seed: int = 0, shared: float = 0.8) -> Predictions:
    """Errors correlated through a per-point difficulty shared by all models (weight ``shared``)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    difficulty = rng.random(n)
    names, rows = [], []
    for i in range(configs):
        for e in epochs:
            p_wrong = 0.3 - 0.03 * i - 0.002 * e
            wrong = shared * difficulty + (1 - shared) * rng.random(n) < p_wrong
            rows.append(np.where(wrong, (labels + 1) % 10, labels))
            names.append(f"m{i:03d}@e{e:03d}")
    return Predictions.create(np.array(rows), labels, names, num_classes=10, test_set="cifar10_test")


def _pvalues() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["seed000", "seed001", "seed000", "seed001"],
            "set": ["test", "test", "train", "train"],
            "aeg": [0.01, 0.02, 0.2, 0.3],
            "sample_size": [1000] * 4,
            "p_value": [0.4, 0.6, 1e-5, 1e-6],
        }
    )


def test_final_epochs_and_names():
    assert final_epoch_models(["m001@e010", "m000@e020", "m001@e020", "m000@e010"]) == ["m000@e020", "m001@e020"]
    with pytest.raises(AuditError, match="m<index:03d>@e<epoch:03d>"):
        final_epoch_models(["seed000"])


def test_four_lenses_side_by_side():
    test = _search()
    configs = pd.DataFrame({"index": range(8)})  # 8 sampled, 6 trained so far
    v6 = _search(seed=1)
    result = own_models(test, configs, v6=v6, pvalues=_pvalues(), eps=0.05)
    lenses = result.lenses.set_index("lens")
    best = test.subset(["m005@e020"])
    acc = 100 * best.accuracies()[0]
    assert lenses.loc["Test accuracy (best model)", "value"] == pytest.approx(acc)
    assert "m005@e020" in lenses.loc["Test accuracy (best model)", "detail"]
    gap = acc - 100 * v6.subset(["m005@e020"]).accuracies()[0]
    assert lenses.loc["CIFAR-10.1 gap (best model)", "value"] == pytest.approx(gap)
    assert lenses.loc["RvW bound, best of the search", "value"] == pytest.approx(
        100 * rvw_bound(1 - acc / 100, 3, 2000)
    )  # ceil(log2 8) = 3 bits
    assert lenses.loc["Adversarial test p-value", "value"] == pytest.approx(0.5)
    assert lenses.loc["Similarity-bound gain", "value"] >= 1.0
    assert result.models["model"].iloc[0] == "m005@e020" and len(result.models) == 6


def test_similarity_gain_is_na_below_independent_errors():
    result = own_models(_search(shared=0.0), pd.DataFrame({"index": range(6)}))
    row = result.lenses.set_index("lens").loc["Similarity-bound gain"]
    assert np.isnan(row["value"]) and "less than independent errors" in row["detail"]


def test_missing_inputs_are_na():
    result = own_models(_search(), pd.DataFrame({"index": range(6)}))
    lenses = result.lenses.set_index("lens")
    assert np.isnan(lenses.loc["CIFAR-10.1 gap", "value"])
    assert np.isnan(lenses.loc["Adversarial test p-value", "value"])
    with pytest.raises(AuditError, match="missing columns"):
        own_models(_search(), pd.DataFrame({"index": range(6)}), pvalues=pd.DataFrame({"model": ["seed000"]}))


@pytest.mark.slow
def test_own_models_rule(tmp_path, repo, shared_data, workflow_runner):
    """Offline (the mirror has no CIFAR-10.1 images): the rule needs no v6 predictions; the adversarial
    CIFAR-10 study is not enabled here, so its p-value row is n/a."""
    save_predictions(tmp_path / "results/search/predictions/cifar10_test.npz", _search())
    pd.DataFrame({"index": range(6)}).to_csv(tmp_path / "results/search/configs.csv", index=False)
    cfg = tmp_path / "test.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {"audit": {"eps": 0.02}, "data": {"mirror": str(shared_data)}, "adversarial_cifar10": {"enabled": False}}
        )
    )
    workflow_runner(
        tmp_path,
        "results/audit/own_models/table.md",
        configfiles=[repo / "config/offline.yaml", cfg],
        # the generated search files stand in for the search study's outputs: train nothing
        extra=["--allowed-rules", "audit_own_models", "--"],
    )
    table = pd.read_csv(tmp_path / "results/audit/own_models/table.csv")
    assert len(table) == 5
    md = (tmp_path / "results/audit/own_models/table.md").read_text()
    assert "RvW bound, best of the search" in md and "n/a" in md
