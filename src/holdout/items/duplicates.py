"""Duplicate items: identical or nearly identical text (question and choices), and whether their keys agree.

Text is normalised (NFKC, casefolded, cut into word and symbol tokens, so that ``a*b`` and ``a, b`` or
``J >> a`` and ``J << a`` stay different) and cut into overlapping token 3-grams (shingles, Broder 1997,
"On the resemblance and containment of documents").
Near duplicates are pairs whose shingle sets have Jaccard similarity >= ``threshold``; candidate pairs
come from MinHash signatures banded for locality-sensitive hashing (Leskovec, Rajaraman & Ullman,
"Mining of Massive Datasets", Ch. 3.4), every candidate is then checked on its exact Jaccard, and
pairs are joined into groups (connected components). Identical normalised texts always share a group.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

__all__ = ["Duplicates", "duplicate_groups", "minhash_signatures", "normalise_text", "shingles"]


def normalise_text(text: object) -> str:
    """NFKC, casefold, word and symbol tokens joined by single spaces (``"0.6c ."`` and ``"0.6c."`` agree)."""
    return " ".join(re.findall(r"\w+|[^\w\s]", unicodedata.normalize("NFKC", str(text)).casefold()))


def shingles(text: str, width: int = 3) -> np.ndarray:
    """Sorted unique crc32 hashes of the token ``width``-grams of normalised ``text`` (the text itself if shorter)."""
    words = text.split()
    grams = [" ".join(words[i : i + width]) for i in range(max(len(words) - width + 1, 1))]
    return np.unique(np.array([zlib.crc32(g.encode()) for g in grams], dtype=np.uint64))


def minhash_signatures(sets: Sequence[np.ndarray], num_perm: int = 64, seed: int = 0) -> np.ndarray:
    """(len(sets), num_perm) MinHash signatures (Broder 1997), all sets at once: the minimum over each set of
    ``num_perm`` seeded 64-bit mixes of its hashes (multiply by an odd constant, xor-shift: the finaliser of
    SplitMix64, Steele et al. 2014), which stand in for random permutations."""
    rng = np.random.default_rng(seed)
    salt = rng.integers(0, np.iinfo(np.int64).max, num_perm, dtype=np.uint64)
    flat = np.concatenate(sets) if len(sets) else np.zeros(0, np.uint64)
    if not flat.size:
        return np.zeros((len(sets), num_perm), np.uint64)
    starts = np.cumsum([0] + [s.size for s in sets[:-1]])
    x = flat[:, None] ^ salt  # uint64 arithmetic wraps modulo 2^64, as the mix intends
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.minimum.reduceat(x ^ (x >> np.uint64(31)), starts, axis=0)


@dataclass(frozen=True)
class Duplicates:
    """Groups of duplicate items.

    Attributes:
        group: (n,) group id of each item, -1 where it has no duplicate.
        keys_agree: (n,) for items in a group, whether every key of the group is the same; NaN elsewhere.
        pairs: (P, 2) the item pairs found (i < j), Jaccard >= threshold.
    """

    group: np.ndarray
    keys_agree: np.ndarray
    pairs: np.ndarray

    @property
    def num_groups(self) -> int:
        return int(self.group.max(initial=-1)) + 1

    @property
    def num_items(self) -> int:
        return int((self.group >= 0).sum())


def _candidates(sig: np.ndarray, bands: int) -> np.ndarray:
    """Pairs sharing one band of their signature (LSH), deduplicated."""
    n, p = sig.shape
    rows = p // bands
    out = []
    for b in range(bands):
        band = np.ascontiguousarray(sig[:, b * rows : (b + 1) * rows]).view(f"V{8 * rows}").ravel()
        _, inv = np.unique(band, return_inverse=True)
        order = np.argsort(inv, kind="stable")
        inv_s = inv[order]
        same = np.flatnonzero(inv_s[1:] == inv_s[:-1])
        # pair each member of a bucket with the bucket's first member: enough for connected components
        first = order[np.searchsorted(inv_s, inv_s[same + 1])]
        out.append(np.stack([first, order[same + 1]], axis=1))
    pairs = np.concatenate(out) if out else np.zeros((0, 2), int)
    pairs = np.sort(pairs, axis=1)
    return np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)


def _jaccard(a: np.ndarray, b: np.ndarray) -> float:
    inter = np.intersect1d(a, b, assume_unique=True).size
    return inter / max(a.size + b.size - inter, 1)


def duplicate_groups(
    texts: Sequence[str], keys: Sequence[object] | None = None, *, threshold: float = 0.9, num_perm: int = 64
) -> Duplicates:
    """Groups of items whose normalised texts are identical or have shingle Jaccard >= ``threshold``.

    ``keys`` (one per item, e.g. the text of the keyed choice, so that reordered choices compare right)
    gives ``keys_agree`` per group. An item without text (None or blank) is in no group.
    """
    has = np.array([t is not None and normalise_text(t) != "" for t in texts], dtype=bool)
    if not has.all():
        part = duplicate_groups(
            [t for t, h in zip(texts, has) if h],
            None if keys is None else [k for k, h in zip(keys, has) if h],
            threshold=threshold,
            num_perm=num_perm,
        )
        group, agree = np.full(has.size, -1), np.full(has.size, np.nan)
        group[has], agree[has] = part.group, part.keys_agree
        index = np.flatnonzero(has)
        return Duplicates(group, agree, index[part.pairs] if part.pairs.size else part.pairs)
    norm = [normalise_text(t) for t in texts]
    n = len(norm)
    sets = [shingles(t) for t in norm]
    _, exact = np.unique(np.array(norm, dtype=object).astype(str), return_inverse=True)
    sig = minhash_signatures(sets, num_perm)
    cand = _candidates(sig, bands=num_perm // 4) if n > 1 else np.zeros((0, 2), int)
    keep = [i for i, (p, q) in enumerate(cand) if _jaccard(sets[p], sets[q]) >= threshold]
    pairs = cand[keep] if keep else np.zeros((0, 2), int)
    order = np.argsort(exact, kind="stable")
    same = np.flatnonzero(exact[order][1:] == exact[order][:-1])
    links = np.concatenate([pairs, np.stack([order[same], order[same + 1]], axis=1)])
    graph = coo_matrix((np.ones(len(links)), (links[:, 0], links[:, 1])), shape=(n, n))
    _, comp = connected_components(graph, directed=False)
    sizes = np.bincount(comp, minlength=n)
    multi = sizes[comp] > 1
    _, group = np.unique(comp[multi], return_inverse=True)
    out = np.full(n, -1)
    out[multi] = group
    agree = np.full(n, np.nan)
    if keys is not None and multi.any():
        key_codes = np.unique(np.array([normalise_text(k) for k in keys]), return_inverse=True)[1]
        lo = np.full(out.max() + 1, np.iinfo(np.int64).max)
        hi = np.full(out.max() + 1, -1)
        np.minimum.at(lo, out[multi], key_codes[multi])
        np.maximum.at(hi, out[multi], key_codes[multi])
        agree[multi] = (lo == hi)[out[multi]]
    return Duplicates(out, agree, pairs)
