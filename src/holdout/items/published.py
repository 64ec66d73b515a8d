"""Readers of the published item reviews the screen is measured on (``<mirror>/itemquality/``).

Each returns a [`ReviewedSet`][holdout.items.published.ReviewedSet]: the models' answers and the keys as
published, which items the reviewers judged wrong and which fine, the reviewers' answer where they gave
one, and ``notes``: what in the files as published does not match their own description (reported,
never fixed).

* [`cifar10_label_errors`][holdout.items.published.cifar10_label_errors]: Northcutt et al. (2021),
  cleanlab/label-errors: 275 CIFAR-10 test images reviewed by five crowd workers, 54 with fewer than 3 of 5
  keeping the given label; the 30 models of Recht et al. (2018) answer all 10,000 images.
* [`mmlu_redux`][holdout.items.published.mmlu_redux]: Gema et al. (2024, arXiv 2406.04127), MMLU-Redux 2.0,
  29 subjects x 100 items with the experts' error type, joined to 20 HELM models' predicted letters.
* [`platinum`][holdout.items.published.platinum]: Vendrow et al. (2025), the Platinum benchmarks: items
  every one of which passed a hand review (the negative control), per-model failures of 34 LLMs.
"""

from __future__ import annotations

import ast
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.data.core import read_cifar10_1_prediction_file
from holdout.items.answers import normalise_answer

__all__ = ["ReviewedSet", "cifar10_label_errors", "mmlu_redux", "platinum"]


@dataclass(frozen=True)
class ReviewedSet:
    """Answers of K models on n items with a review of some of them.

    Attributes:
        name: the data set.
        source: citation of the review.
        answers: (K, n) answers (ints, -1 = none; or strings, None = none).
        key: (n,) the published key.
        models: K names.
        items: n item ids.
        num_classes: number of possible answers (None: open answers).
        wrong: (n,) the reviewers judged the key wrong.
        fine: (n,) the reviewers judged the item fine (wrong and fine both False: not reviewed, or another error).
        reference: (n,) the reviewers' answer where they gave one (None elsewhere).
        texts: item texts (question and choices) where published, else None.
        duplicate_keys: the keyed answer's text per item (for duplicate groups), else None.
        published_duplicates: the file's own duplicate groups (-1 = none), else None.
        notes: mismatches between the files and their description, as found.
        looked_at: (n,) the items the reviewers looked at; None: all of them.
    """

    name: str
    source: str
    answers: np.ndarray
    key: np.ndarray
    models: tuple[str, ...]
    items: tuple[str, ...]
    num_classes: int | None
    wrong: np.ndarray
    fine: np.ndarray
    reference: np.ndarray
    texts: tuple[str, ...] | None = None
    duplicate_keys: tuple[str, ...] | None = None
    published_duplicates: np.ndarray | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    looked_at: np.ndarray | None = None


def cifar10_label_errors(mirror: str | Path) -> ReviewedSet:
    """CIFAR-10 test set: 30 models' predictions, the original labels, the crowd review of 275 images."""
    root = Path(mirror)
    pred_dir = root / "CIFAR-10.1/model_predictions/original_predictions"
    files = sorted(pred_dir.glob("*_predictions.json"))
    answers = np.stack([read_cifar10_1_prediction_file(f) for f in files]).astype(np.int64)
    key = np.load(root / "itemquality/cifar10_label_errors/cifar10_test_set_original_labels.npy").astype(np.int64)
    review = pd.read_csv(root / "itemquality/cifar10_label_errors/cifar10_mturk_indexed.csv")
    notes = _cifar10_review_notes(root / "itemquality/cifar10_label_errors", review, key)
    idx = review["index"].to_numpy()
    n = key.size
    wrong, fine = np.zeros(n, bool), np.zeros(n, bool)
    err = review["is_error_given_lt3"].to_numpy() == 1
    wrong[idx[err]], fine[idx[~err]] = True, True
    reference = np.full(n, None, dtype=object)
    fixed = err & (review["is_correctable_guessed_ge3"].to_numpy() == 1)
    reference[idx[fixed]] = review["guessed_label"].to_numpy()[fixed]
    return ReviewedSet(
        name="cifar10",
        source="Northcutt, Athalye & Mueller (2021), github.com/cleanlab/label-errors (crowd review of 275 images)",
        answers=answers,
        key=key,
        models=tuple(f.name.removesuffix("_predictions.json") for f in files),
        items=tuple(str(i) for i in range(n)),
        num_classes=10,
        wrong=wrong,
        fine=fine,
        reference=reference,
        notes=tuple(notes),
        looked_at=wrong | fine,
    )


def _cifar10_review_notes(folder: Path, review: pd.DataFrame, key: np.ndarray) -> list[str]:
    """Where the review's two files, its flags and the labels disagree (each checked, none fixed)."""
    notes = []
    idx = review["index"].to_numpy()
    if (bad := int((key[idx] != review["given_label"].to_numpy()).sum())) > 0:
        notes.append(f"{bad} reviewed images whose given_label is not the .npy label")
    votes = {r["id"]: r for r in json.loads((folder / "cifar10_mturk.json").read_text())}
    fields = (("given", "votes_given"), ("guessed", "votes_guessed"), ("neither", "votes_neither"))
    differ = [
        i
        for i, row in review.set_index("index").iterrows()
        if i not in votes
        or votes[i]["given_original_label"] != row["given_label"]
        or votes[i]["our_guessed_label"] != row["guessed_label"]
        or any(votes[i]["mturk"][a] != row[b] for a, b in fields)
    ]
    if differ:
        notes.append(f"cifar10_mturk.json and cifar10_mturk_indexed.csv differ on {len(differ)} images")
    if ((review["votes_given"] < 3).astype(int) != review["is_error_given_lt3"]).any():
        notes.append("is_error_given_lt3 is not votes_given < 3 on some images")
    return notes


def _read_annotation(path: Path) -> pd.DataFrame:
    """One MMLU-Redux subject file as published: utf-8 or cp1252, ',' or ';' as separator."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("cp1252")
    head = text.split("\n", 1)[0]
    return pd.read_csv(io.StringIO(text), sep=";" if head.count(";") > head.count(",") else ",")


def _choices(cell: str) -> list[str]:
    try:
        return [str(c) for c in ast.literal_eval(cell)]
    except (ValueError, SyntaxError):
        return [str(cell)]


def mmlu_redux(mirror: str | Path) -> ReviewedSet:
    """MMLU-Redux 2.0, 29 subjects: 20 HELM models' letters (0-3, blank = unparsed), the experts' review,
    and each item's question and choices from the subject's annotation file."""
    root = Path(mirror) / "itemquality/mmlu_redux"
    joined = pd.read_csv(root / "mmlu_redux_20models_items.csv")
    models = [c for c in joined.columns[7:]]
    texts, keyed, notes = [], [], []
    for subject, part in joined.groupby("subject", sort=False):
        ann = _read_annotation(root / "annotations" / f"mmlu_{subject}.csv")
        rows = ann.iloc[part["idx_in_subject"].to_numpy()]
        if (rows["answer"].to_numpy() != part["key"].to_numpy()).any():
            notes.append(f"mmlu_{subject}.csv: answer differs from the joined key on some items")
        for q, c, k in zip(rows["question"], rows["choices"], part["key"]):
            ch = _choices(c)
            texts.append(f"{q} || " + " | ".join(sorted(ch)))  # reordered choices: one text
            keyed.append(ch[k] if 0 <= k < len(ch) else str(k))
    wrong = (joined["error_type"] == "wrong_groundtruth").to_numpy()
    ref = pd.to_numeric(joined["correct_answer_annot"], errors="coerce").to_numpy()
    reference = np.array([int(r) if wrong[i] and r == r else None for i, r in enumerate(ref)], dtype=object)
    if (no_ref := int((wrong & np.isnan(ref)).sum())) > 0:
        notes.append(f"{no_ref} wrong_groundtruth items have no experts' answer (correct_answer_annot blank)")
    dup = joined["dup_group"].fillna(-1).astype(int).to_numpy()
    sizes = pd.Series(dup[dup >= 0]).value_counts()
    if (single := int((sizes == 1).sum())) > 0:
        notes.append(f"dup_group: {single} of {sizes.size} groups hold a single item (a duplicate needs two)")
    return ReviewedSet(
        name="mmlu_redux",
        source="Gema et al. (2024), MMLU-Redux 2.0, github.com/aryopg/mmlu-redux (29 subjects, experts' review)",
        answers=joined[models].fillna(-1).astype(np.int64).to_numpy().T,
        key=joined["key"].astype(np.int64).to_numpy(),
        models=tuple(models),
        items=tuple(joined["item_id"]),
        num_classes=4,
        wrong=wrong,
        fine=(joined["error_type"] == "ok").to_numpy(),
        reference=reference,
        texts=tuple(texts),
        duplicate_keys=tuple(keyed),
        published_duplicates=dup,
        notes=tuple(notes),
    )


def _platinum_answer(value: object) -> str | None:
    s = normalise_answer(value)
    return None if s in ("", "parsing error") else s


def _platinum_counts(results_js: Path) -> dict[str, int]:
    """Total failures per subset from the site's ``results_num_errors`` table (``'subset': [per model]``)."""
    text = results_js.read_text()
    table = text[text.index("results_num_errors") : text.index("}", text.index("results_num_errors"))]
    return {m[0]: sum(json.loads(m[1])) for m in re.findall(r"'(\w+)':\s*(\[[^\]]*\])", table)}


def platinum(mirror: str | Path) -> ReviewedSet:
    """The Platinum items some model failed (all kept after hand review): a model of the subset's file that
    does not list an item among its failures gave the key (the first ``platinum_target``); a model absent
    from the subset's file did not answer; ``parsing error`` = no answer."""
    root = Path(mirror) / "itemquality/platinum_negative_control"
    models: list[str] = []
    records: dict[tuple[str, str], dict[str, str | None]] = {}
    keys: dict[tuple[str, str], str] = {}
    evaluated: dict[str, set[str]] = {}
    notes, counts = [], _platinum_counts(root / "app/results.js")
    for path in sorted((root / "public/errors").glob("errors_*.json")):
        subset = path.stem.removeprefix("errors_")
        data = json.loads(path.read_text())
        evaluated[subset] = set(data)
        listed = sum(len(v) for v in data.values())
        if subset in counts and counts[subset] != listed:
            notes.append(f"{path.name}: {listed} failures listed, app/results.js counts {counts[subset]}")
        for model, failures in data.items():
            if model not in models:
                models.append(model)
            for r in failures:
                item = (subset, r["prompt"])
                keys.setdefault(item, normalise_answer(r["platinum_target"][0]))
                records.setdefault(item, {})[model] = _platinum_answer(r["prediction"])
    items = list(records)
    answers = np.array(
        [[records[i].get(m, keys[i] if m in evaluated[i[0]] else None) for i in items] for m in models], dtype=object
    )
    n = len(items)
    return ReviewedSet(
        name="platinum",
        source="Vendrow et al. (2025), Platinum benchmarks, github.com/evendrow/platinum-bench-website (hand review)",
        answers=answers,
        key=np.array([keys[i] for i in items], dtype=object),
        models=tuple(models),
        items=tuple(f"{s}/{k}" for k, (s, _) in enumerate(items)),
        num_classes=None,
        wrong=np.zeros(n, bool),
        fine=np.ones(n, bool),
        reference=np.full(n, None, dtype=object),
        texts=tuple(p for _, p in items),
        notes=tuple(notes),
    )
