"""holdout.items.answers: encoding and the per-item answer groups against a plain Python count."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from holdout.items import answers as A


def _random(k: int = 7, n: int = 40, c: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ans = rng.integers(-1, c, (k, n))
    return ans, rng.integers(0, c, n)


def _check_groups(m: A.AnswerMatrix, g: A.AnswerGroups) -> None:
    for i in range(m.num_items):
        lo, hi = g.item_start[i], g.item_start[i + 1]
        assert (g.item[lo:hi] == i).all()
        given = Counter(int(x) for x in m.codes[:-1, i] if x >= 0)
        values = set(given) | {int(m.key[i])}
        assert sorted(g.value[lo:hi]) == sorted(values)
        for grp in range(lo, hi):
            assert g.size[grp] == given.get(int(g.value[grp]), 0)
        assert g.value[g.key_group[i]] == m.key[i]
        for k in range(m.num_models):
            e = g.of_entry[k, i]
            assert (e == -1) if m.codes[k, i] < 0 else (g.value[e] == m.codes[k, i])


def test_groups_match_a_plain_count():
    ans, key = _random()
    m = A.encode_answers(ans, key, num_classes=5)
    _check_groups(m, A.answer_groups(m))


def test_chunked_groups_and_sums_equal_one_chunk(monkeypatch):
    ans, key = _random(n=97, seed=3)
    m = A.encode_answers(ans, key, num_classes=5)
    whole = A.answer_groups(m)
    w = np.linspace(0.1, 1.0, m.num_models)
    votes = A.group_sums(whole.of_entry[:-1], whole.item_start, w)
    monkeypatch.setattr(A, "CHUNK_ENTRIES", 17)  # 2 items per chunk
    parts = A.answer_groups(m)
    _check_groups(m, parts)
    for field in ("of_entry", "item", "value", "size", "key_group", "item_start"):
        np.testing.assert_array_equal(getattr(parts, field), getattr(whole, field))
    np.testing.assert_allclose(A.group_sums(parts.of_entry[:-1], parts.item_start, w), votes)


def test_strings_missing_and_normalised():
    ans = [["Paris", " paris.", None], ["Lyon", "", "x"]]
    norm = [[A.normalise_answer(v) if v else None for v in row] for row in ans]
    m = A.encode_answers(norm, [A.normalise_answer("PARIS"), "lyon", "x"], ["a", "b"])
    assert list(m.values) == ["lyon", "paris", "x"]
    np.testing.assert_array_equal(m.codes, [[1, 1, -1], [0, -1, 2], [1, 0, 2]])
    assert m.num_classes == 3 and m.models == ("a", "b")


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="K x n"):
        A.encode_answers(np.zeros((2, 3), int), np.zeros(4, int))
    with pytest.raises(ValueError, match="model names"):
        A.encode_answers(np.zeros((2, 3), int), np.zeros(3, int), ["one"])


def test_memory_estimate_is_linear_in_entries_and_bounds_the_groups():
    small, big = A.memory_estimate(67, 50_000, 1000), A.memory_estimate(2000, 20_000, 4)
    assert small < 400 * 2**20 < big < 2**30
    assert A.memory_estimate(2000, 20_000) > big  # without the class count: one group per model and item
