"""The translations file (Werpachowski et al. 2019, Sec. 5.1, Appendix B without the model):
the attacks and densities computed from the file equal those computed with the network."""

from __future__ import annotations

import numpy as np
import pytest

from holdout.adversarial.translation import ATTACKS, translation_attacks
from holdout.adversarial.translations_file import (
    TranslationsFileError,
    attacks_from_translations,
    available_attacks,
    make_translations_file,
    read_translations,
    write_translations,
)

torch = pytest.importorskip("torch")


def _tiny(seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(4 * 6 * 6, 3)
    ).double()


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    g = torch.Generator().manual_seed(0)
    canv = torch.rand(40, 3, 14, 14, generator=g, dtype=torch.float64)
    labels = np.random.default_rng(1).integers(0, 3, 40)
    nets = [_tiny(0), _tiny(1)]
    path = tmp_path_factory.mktemp("tr") / "translations.npz"
    data = make_translations_file(nets, canv, labels, window=(8, 8), eps=1, model_names=["a", "b"], path=path)
    return nets, canv, labels, data, path


def test_file_round_trip_and_shapes(setup):
    _, _, labels, data, path = setup
    back = read_translations(path)
    assert back.predictions.shape == (2, 40, 49)  # (6 * 1 + 1)^2 offsets within 3 eps
    assert back.models == ("a", "b") and np.array_equal(back.labels, labels)
    assert all(v == "" for v in available_attacks(back).values())


@pytest.mark.parametrize("k", [0, 1])
def test_attacks_from_file_equal_attacks_with_the_model(setup, k):
    nets, canv, labels, _, path = setup
    data = read_translations(path)
    ref = translation_attacks(nets[k], canv, labels, window=(8, 8), eps=1, seed=3)
    got = attacks_from_translations(data, k, seed=3)
    np.testing.assert_array_equal(got.losses, ref.losses)
    for a in ATTACKS:
        np.testing.assert_array_equal(got.outcomes[a].offsets, ref.outcomes[a].offsets)
        np.testing.assert_array_equal(got.outcomes[a].adv_losses, ref.outcomes[a].adv_losses)
        np.testing.assert_allclose(got.outcomes[a].densities, ref.outcomes[a].densities, equal_nan=True)
    assert any(ref.outcomes[a].adv_losses[ref.losses == 0].sum() > 0 for a in ATTACKS)  # attacks succeed


def test_missing_prediction_is_named(setup, tmp_path):
    _, _, _, data, _ = setup
    from dataclasses import replace

    preds = data.predictions.copy()
    preds[0, :, :] = -1
    preds[0, :, np.flatnonzero(np.all(data.vectors == 0, axis=1))] = data.labels  # only the originals
    bad = replace(data, predictions=preds, source=str(tmp_path / "t.npz"))
    write_translations(tmp_path / "t.npz", bad)
    loaded = read_translations(tmp_path / "t.npz")
    with pytest.raises(TranslationsFileError, match=r"t\.npz: model a has no prediction for image 0 translated by"):
        attacks_from_translations(loaded, "a")


def test_format_errors_name_the_file(tmp_path):
    with pytest.raises(TranslationsFileError, match="is a directory"):
        read_translations(tmp_path)
    with pytest.raises(TranslationsFileError, match="not found"):
        read_translations(tmp_path / "nope.npz")
    p = tmp_path / "x.npz"
    np.savez(
        p,
        predictions=np.zeros((1, 2, 1), int),
        vectors=np.zeros((1, 2), int),
        labels=np.zeros(3, int),
        models=np.array(["m"]),
        eps=1.0,
    )
    with pytest.raises(TranslationsFileError, match=r"x\.npz: labels has shape \(3,\), expected \(2,\)"):
        read_translations(p)
    np.savez(
        p,
        predictions=np.zeros((1, 2, 1)),
        vectors=np.zeros((1, 2), int),
        labels=np.zeros(2, int),
        models=np.array(["m"]),
        eps=1.0,
    )
    with pytest.raises(TranslationsFileError, match="predictions must be a 3-D integer array"):
        read_translations(p)
    np.savez(
        p,
        predictions=np.zeros((1, 2, 1), int),
        vectors=np.ones((1, 2), int),
        labels=np.zeros(2, int),
        models=np.array(["m"]),
        eps=1.0,
    )
    with pytest.raises(TranslationsFileError, match=r"lacks \(0, 0\)"):
        read_translations(p)
