"""Duplicate groups from normalised text: exact, near, symbols that change the question, keys compared."""

from __future__ import annotations

import numpy as np

from holdout.items import duplicate_groups
from holdout.items.duplicates import minhash_signatures, normalise_text, shingles

LONG = (
    "a photon strikes an electron of mass m that is initially at rest creating an electron positron pair the photon"
    " is destroyed and the positron and two electrons move off at equal speeds along the initial direction of the"
    " photon what was the energy of the photon"
)


def test_exact_near_and_distinct():
    texts = [
        LONG + " || mc^2 | 2mc^2",
        LONG.upper() + "  ||  mc^2 | 2mc^2",  # same after normalising
        LONG + " then || mc^2 | 2mc^2",  # near: Jaccard >= 0.9
        "Find the degree of Q(sqrt(2), sqrt(3)) over Q",
        "Find the degree of Q(sqrt(2)*sqrt(3)) over Q",  # one symbol: another question
        "unrelated short item",
    ]
    d = duplicate_groups(texts, ["a", "a", "b", "4", "2", "x"])
    assert d.group[0] == d.group[1] == d.group[2] >= 0
    assert d.group[3] != d.group[4] or d.group[3] == -1
    assert d.group[5] == -1
    assert d.num_groups == 1 and d.num_items == 3
    assert d.keys_agree[0] == 0.0 and np.isnan(d.keys_agree[5])


def test_normalise_keeps_symbols():
    assert normalise_text("J >> a") != normalise_text("J << a")
    assert normalise_text("0.6c .") == normalise_text("0.6c.")


def test_minhash_estimates_jaccard():
    a = shingles(normalise_text(" ".join(f"w{i}" for i in range(200))))
    b = shingles(normalise_text(" ".join(f"w{i}" for i in range(40, 240))))
    exact = np.intersect1d(a, b).size / np.union1d(a, b).size
    sig = minhash_signatures([a, b], num_perm=256)
    assert abs((sig[0] == sig[1]).mean() - exact) < 0.1
