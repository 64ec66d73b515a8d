"""The item screen (holdout.items) measured on published reviews, and its time on the ImageNet testbed.

Usage: PYTHONPATH=src python benchmarks/itemquality/published_checks.py [--mirror ../shared/data] [--large]

Per reviewed set (CIFAR-10 label errors, MMLU-Redux 2.0, the Platinum negative control): the ROC AUC of
each suspect-key score for wrong keys against items judged fine, the flagged set's size and precision,
agreement of the proposed answer with the reviewers' answer, duplicates found, and what in the files
does not match their description. ImageNet testbed (67 models x 50,000 images x 1,000 classes): the
screen's wall time and flag counts (no review of these images is in the mirror). ``--large`` also
screens a synthetic 2,000 x 20,000 matrix and records its peak memory against the estimate said first.
Writes benchmarks/itemquality/results/<UTC date>.json (NaN written as null); with ``--docs`` also
docs/measurements/itemquality.json, the numbers docs/items.md shows.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # bench_workflow.cpu_name

from bench_workflow import cpu_name  # noqa: E402

from holdout.audit.lenses.items import items_lens  # noqa: E402
from holdout.data.core import convert_imagenet_testbed  # noqa: E402
from holdout.items import (  # noqa: E402
    METHODS,
    answer_groups,
    encode_answers,
    memory_estimate,
    published,
    screen_items,
)
from holdout.items.evaluate import alternative_aucs, leaderboard_summary, review_metrics  # noqa: E402


def reviewed_checks(mirror: Path) -> dict:
    out = {}
    for reader in (published.cifar10_label_errors, published.mmlu_redux, published.platinum):
        rs = reader(mirror)
        kw = dict(items=rs.items, num_classes=rs.num_classes, texts=rs.texts, duplicate_keys=rs.duplicate_keys)
        screen = screen_items(rs.answers, rs.key, rs.models, **kw)
        m = encode_answers(rs.answers, rs.key, rs.models, num_classes=rs.num_classes)
        groups = answer_groups(m)
        scores = {name: fn(m, groups) for name, fn in METHODS.items()}
        out[rs.name] = review_metrics(rs, screen, scores, m.codes)
        if rs.wrong.any():
            out[rs.name]["alternatives"] = alternative_aucs(rs, m, groups, screen.discrimination)
        if rs.name != "platinum":  # Platinum lists only items some model failed: no leaderboard
            out[rs.name]["leaderboard"] = leaderboard_summary(m.codes[:-1] == m.codes[-1], rs.models, screen.flagged)
        print(rs.name, json.dumps({k: v for k, v in out[rs.name].items() if k != "share_curve"}, default=str))
    return out


def imagenet(mirror: Path) -> dict:
    root = mirror / "ImageNetV2/data"
    files = {p.stem: p for p in sorted((root / "predictions/imagenet-validation-original").glob("*.npy"))}
    preds = convert_imagenet_testbed(
        files, root / "datasets/imagenet-validation-original.json", root / "metadata/class_info.json", test_set="val"
    )
    k, n = preds.predictions.shape
    t0 = time.perf_counter()
    screen = screen_items(preds.predictions, preds.labels, preds.model_names, num_classes=1000)
    wall = time.perf_counter() - t0
    board = leaderboard_summary(preds.predictions == preds.labels, preds.model_names, screen.flagged)
    t1 = time.perf_counter()  # the audit's items lens: the screen and the leaderboard with and without the flags
    items_lens(preds.predictions, preds.labels, preds.model_names, preds.predictions == preds.labels, num_classes=1000)
    lens_wall = time.perf_counter() - t1
    m = encode_answers(preds.predictions, preds.labels, num_classes=1000)
    groups = answer_groups(m)
    per_method = {}
    for name, fn in METHODS.items():
        t1 = time.perf_counter()
        fn(m, groups)
        per_method[name] = round(time.perf_counter() - t1, 3)
    return {
        "models": k,
        "items": n,
        "classes": 1000,
        "screen_wall_s": round(wall, 3),
        "lens_wall_s": round(lens_wall, 3),
        "score_wall_s": per_method,
        "memory_estimate_bytes": memory_estimate(k, n, 1000),
        "flagged_suspect_key": int((screen.flag == "suspect_key").sum()),
        "flagged_negative_discrimination": int((screen.flag == "negative_discrimination").sum()),
        "review": "none in the mirror: flags are unconfirmed here",
        "leaderboard": board,
    }


def large(k: int = 2000, n: int = 20_000) -> dict:
    said = memory_estimate(k, n, 4)
    print(f"screening {k} x {n}: memory estimate {said / 2**20:.0f} MiB", flush=True)
    rng = np.random.default_rng(0)
    key = rng.integers(0, 4, n)
    answers = np.empty((k, n), dtype=np.int16)
    for s in range(0, k, 100):
        hit = rng.random((min(100, k - s), n)) < rng.uniform(0.3, 0.9, (min(100, k - s), 1))
        answers[s : s + 100] = np.where(hit, key, rng.integers(0, 4, hit.shape))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0 = time.perf_counter()
    screen_items(answers, key, num_classes=4)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "models": k,
        "items": n,
        "memory_estimate_bytes": said,
        "peak_rss_bytes": peak,
        "rss_before_bytes": base,
        "wall_s": round(wall, 2),
    }


def _nan_to_none(x):
    if isinstance(x, dict):
        return {k: _nan_to_none(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_nan_to_none(v) for v in x]
    if isinstance(x, float) and x != x:
        return None
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mirror = Path(os.environ.get("HOLDOUT_SHARED_DATA", REPO / "../shared/data"))
    parser.add_argument("--mirror", type=Path, default=mirror)
    parser.add_argument("--large", action="store_true", help="also screen a synthetic 2,000 x 20,000 matrix")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--docs", action="store_true", help="also write docs/measurements/itemquality.json")
    args = parser.parse_args()
    now = dt.datetime.now(dt.UTC)
    load0 = os.getloadavg()[0]
    big = large() if args.large else None  # first, so that its peak memory is its own
    result = {
        "what": "the item screen (holdout.items) on published reviews, and on the ImageNet testbed",
        "command": "PYTHONPATH=src python benchmarks/itemquality/published_checks.py" + " --large" * args.large,
        "date": now.strftime("%Y-%m-%d"),
        "machine": {"cpu": cpu_name(), "cores": os.cpu_count()},
        "method": "weighted_agreement",
        "flag_rule": "suspect score > 0 and >= 80% of answering models give the proposed answer",
        "reviewed": reviewed_checks(args.mirror),
        "imagenet_testbed": imagenet(args.mirror),
    }
    print("imagenet", result["imagenet_testbed"])
    if big is not None:
        result["large"] = big
        print("large", big)
    result["load"] = f"load average {load0:.1f} at start, {os.getloadavg()[0]:.1f} at the end"
    text = json.dumps(_nan_to_none(result), indent=1, allow_nan=False) + "\n"
    out = args.out or REPO / "benchmarks/itemquality/results" / f"{result['date']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"wrote {out}")
    if args.docs:
        (REPO / "docs/measurements/itemquality.json").write_text(text)
        short = {"date": result["date"], "machine": result["machine"], "command": result["command"]}
        keep = ("auc", "flagged_suspect_key", "flagged_suspect_key_reviewed", "precision_wrong_key")
        keep += ("precision_any_error", "agreement_flagged_wrong", "source")
        short["reviewed"] = {k: {f: v[f] for f in keep} for k, v in result["reviewed"].items()}
        text = json.dumps(_nan_to_none(short), indent=1, allow_nan=False) + "\n"
        (REPO / "src/holdout/items/measured_precision.json").write_text(text)


if __name__ == "__main__":
    main()
