"""``holdout power``: which comparisons can this test set resolve, and how many items would the rest need?

From data (a correctness matrix or evaluation logs): for every adjacent pair in the accuracy order
and for each model against the best, the observed paired difference, the standard deviation of the
per-item differences, the minimum detectable difference at the current n and the n needed to detect
the observed difference (two-sided alpha, power 0.8 by default), plain and, with ``--clusters`` or
``--cluster-pattern`` or ``--cluster-by``, clustered (times the design effect). 0/1 correctness uses Connor's (1987)
McNemar sample size from the observed discordance; pass rates the paired normal form from the
standard deviation of the differences. A design effect estimated below 1 is taken as 1 in the
clustered projections (conservative: from few clusters the estimate is noisy). Planning, without
data: ``--accuracy A B`` with ``--discordance`` or ``--correlation`` gives n (and, with ``--items N``,
the detectable difference).

With pass rates over m >= 2 samples per item (``--samples`` or logs that say so), ``samples.csv``
splits each model's variance into a between- and a within-item part (Miller 2024, Sec. 3).

Percent throughout (``diff``, ``sd_diff``, ``mde``: percentage points, the unit of the audit's
accuracy column). ``n_needed`` and ``mde`` are projections under the normal approximation with
the observed discordance (or spread) held fixed; ``resolved`` means n_needed <= n.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from holdout.commands._shared import (
    UsageError,
    add_alpha,
    add_cluster_options,
    add_input_options,
    add_out,
    cluster_labels,
    parser,
    read_matrix,
    run_main,
    write_atomic,
    write_csv,
    write_json,
)
from holdout.stats import (
    clustered_se,
    discordance_from_correlation,
    mcnemar_mde,
    mcnemar_sample_size,
    paired_mde,
    paired_sample_size,
    sample_variance_split_from_rates,
)

__all__ = ["RESOLUTION_COLUMNS", "build_parser", "main", "plan", "resolution", "samples_table", "summary_line"]

RESOLUTION_COLUMNS = [
    "comparison",
    "model_a",
    "model_b",
    "n",
    "accuracy_a",
    "accuracy_b",
    "diff",
    "sd_diff",
    "discordance",
    "method",
    "mde",
    "n_needed",
    "resolved",
]
CLUSTERED_COLUMNS = ["n_clusters", "design_effect", "mde_clustered", "n_needed_clustered", "resolved_clustered"]

EXAMPLES = """\
  # which pairs of SWE-bench Verified submissions 500 instances resolve, clustered by repository
  holdout power ../shared/data/anchors/swebench/swebench_verified_resolved_matrix.csv --correctness \\
      --cluster-pattern '^(.+)-[0-9]+$' --out /tmp/power_swe
  # the same for lm-eval / Inspect / HELM logs (runs aligned by item id)
  holdout power ../shared/data/evallogs/helm_safety_bbq --out /tmp/power_bbq
  # planning: items needed to tell 80% from 78% when 15% of items get different answers
  holdout power --accuracy 0.80 0.78 --discordance 0.15
  # the same from the correlation of the two models' 0/1 outcomes, on clustered items
  holdout power --accuracy 0.80 0.78 --correlation 0.5 --design-effect 1.4
"""


def build_parser() -> argparse.ArgumentParser:
    p = parser(
        "holdout power",
        "How many items does a paired comparison need? Resolution of every adjacent pair and of each "
        "model against the best on your data, or n for planned accuracies.",
        EXAMPLES,
    )
    add_input_options(p, nargs="*", help="a correctness matrix (--correctness) or evaluation logs")
    add_cluster_options(p)
    g = p.add_argument_group("planning, without data")
    g.add_argument("--accuracy", nargs=2, type=float, metavar=("A", "B"), help="the two accuracies, as fractions")
    x = g.add_mutually_exclusive_group()
    x.add_argument("--discordance", type=float, help="share of items exactly one of the two models gets right")
    x.add_argument("--correlation", type=float, help="correlation of the two models' 0/1 outcomes over items")
    g.add_argument("--design-effect", type=float, default=1.0, help="variance inflation of clustered items")
    g.add_argument("--items", type=int, help="also the smallest difference detectable on this many items")
    s = p.add_argument_group("test and output")
    add_alpha(s, "two-sided level of the paired test")
    s.add_argument("--power", type=float, default=0.8, help="power to detect the difference")
    add_out(s, "resolution.csv and power.json")
    return p


def _pair_row(
    a: int, b: int, values: np.ndarray, names: Sequence[str], binary: bool, alpha: float, power: float
) -> dict[str, object]:
    d = values[a] - values[b]
    n = d.size
    diff, sd = float(d.mean()), float(d.std(ddof=1))
    kw = {"alpha": alpha, "power": power}
    if binary:
        psi = float(np.mean(d != 0))
        mde, need = mcnemar_mde(n, psi, **kw), mcnemar_sample_size(diff, psi, **kw)
        method = "McNemar (Connor 1987)"
    else:
        psi = math.nan
        mde, need = paired_mde(n, sd, **kw), paired_sample_size(diff, sd, **kw)
        method = "paired normal"
    return {
        "model_a": names[a],
        "model_b": names[b],
        "n": n,
        "accuracy_a": 100 * float(values[a].mean()),
        "accuracy_b": 100 * float(values[b].mean()),
        "diff": 100 * diff,
        "sd_diff": 100 * sd,
        "discordance": psi,
        "method": method,
        "mde": 100 * mde,
        "n_needed": need,
        "resolved": bool(need <= n),
    }


def _clustered(row: dict[str, object], d: np.ndarray, clusters: np.ndarray, binary: bool, alpha: float, power: float):
    r = clustered_se(d, clusters)
    kw = {"alpha": alpha, "power": power, "design_effect": max(1.0, r.design_effect)}
    n, psi, diff, sd = d.size, row["discordance"], float(d.mean()), float(d.std(ddof=1))
    if binary:
        mde, need = mcnemar_mde(n, psi, **kw), mcnemar_sample_size(diff, psi, **kw)
    else:
        mde, need = paired_mde(n, sd, **kw), paired_sample_size(diff, sd, **kw)
    return {
        "n_clusters": r.n_clusters,
        "design_effect": r.design_effect,
        "mde_clustered": 100 * mde,
        "n_needed_clustered": need,
        "resolved_clustered": bool(need <= n),
    }


def resolution(
    values: np.ndarray,
    model_names: Sequence[str],
    *,
    clusters: np.ndarray | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> pd.DataFrame:
    """One row per adjacent pair in the accuracy order (``comparison`` 'adjacent', the better model
    first) and per model against the best ('vs_best'): the columns ``RESOLUTION_COLUMNS`` (and
    ``CLUSTERED_COLUMNS`` with ``clusters``), in percent. Pure: prints and writes nothing."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[0] < 2 or v.shape[1] < 2:
        raise UsageError(f"power needs at least 2 models and 2 items, got {v.shape[0]} x {v.shape[1]}")
    binary = bool(((v == 0) | (v == 1)).all())
    order = sorted(range(v.shape[0]), key=lambda i: (-v[i].mean(), model_names[i]))
    pairs = [("adjacent", order[k], order[k + 1]) for k in range(len(order) - 1)]
    pairs += [("vs_best", order[0], j) for j in order[1:]]
    rows = []
    for kind, a, b in pairs:
        row = {"comparison": kind, **_pair_row(a, b, v, model_names, binary, alpha, power)}
        if clusters is not None:
            row.update(_clustered(row, v[a] - v[b], clusters, binary, alpha, power))
        rows.append(row)
    return pd.DataFrame(rows, columns=RESOLUTION_COLUMNS + (CLUSTERED_COLUMNS if clusters is not None else []))


def _need_range(need: pd.Series, n: int) -> str:
    """'the other 43 need 1.4x to 300x as many items' or 'of the other 9, 7 need ..., 2 never ...'."""
    ratio = need[np.isfinite(need)] / n
    never = int((~np.isfinite(need)).sum())
    span = ""
    if len(ratio):
        low, high = ratio.min(), ratio.max()
        span = f"{low:.1f}x" if len(ratio) == 1 else f"{low:.1f}x to {high:,.{0 if high >= 10 else 1}f}x"
    if not never:
        return f"the other {len(need)} need {span} as many items"
    if not len(ratio):
        return f"the other {len(need)} never (equal accuracies)"
    return f"of the other {len(need)}, {len(ratio)} need {span} as many items, {never} never (equal accuracies)"


def summary_line(table: pd.DataFrame, clustered: bool = False) -> str:
    """ "this test set (n items) resolves R of P adjacent pairs; the rest need ..." (clustered: the
    same under clustering)."""
    adj = table[table["comparison"] == "adjacent"]
    col, need_col = ("resolved_clustered", "n_needed_clustered") if clustered else ("resolved", "n_needed")
    n = int(adj["n"].iloc[0])
    done = int(adj[col].sum())
    rest = adj.loc[~adj[col], need_col]
    what = "clustered, " if clustered else ""
    line = f"this test set ({what}{n:,} items) resolves {done} of {len(adj)} adjacent pairs"
    line += f"; {_need_range(rest, n)}" if len(rest) else ""
    best = table[table["comparison"] == "vs_best"]
    return line + f"; against the best model: {int(best[col].sum())} of {len(best)} resolved"


def plan(
    accuracy_a: float,
    accuracy_b: float,
    *,
    discordance: float | None = None,
    correlation: float | None = None,
    design_effect: float = 1.0,
    alpha: float = 0.05,
    power: float = 0.8,
    items: int | None = None,
) -> dict[str, float]:
    """Planning: n for McNemar's test to detect accuracy_a - accuracy_b (Connor 1987), from the
    discordance or from the correlation of the 0/1 outcomes; with ``items``, the detectable
    difference on that many items."""
    if (discordance is None) == (correlation is None):
        raise UsageError("--accuracy needs one of --discordance or --correlation")
    try:
        psi = (
            discordance
            if discordance is not None
            else discordance_from_correlation(accuracy_a, accuracy_b, float(correlation))  # type: ignore[arg-type]
        )
        kw = {"alpha": alpha, "power": power, "design_effect": design_effect}
        out = {"discordance": float(psi), "n_needed": mcnemar_sample_size(accuracy_a - accuracy_b, psi, **kw)}
        if items is not None:
            out["mde"] = mcnemar_mde(items, psi, **kw)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return out


def samples_table(values: np.ndarray, model_names: Sequence[str], samples: int) -> pd.DataFrame:
    """Per model, pass rates over ``samples`` 0/1 samples per item: the variance of its mean split into
    between- and within-item parts (Miller 2024, Sec. 3; variances of scores in [0, 1], ``accuracy`` and
    ``se`` in percent), ``share_within`` and ``m_negligible`` (the samples per item
    that bring the within part to a tenth of the between part; empty when there is no between part)."""
    rows = []
    for name, v in zip(model_names, np.asarray(values, dtype=float)):
        s = sample_variance_split_from_rates(v, samples)
        rows.append(
            {
                "model": name,
                "samples": s.m,
                "accuracy": 100 * s.mean,
                "var_between": s.var_between,
                "var_within": s.var_within,
                "se": 100 * s.se,
                "share_within": s.share_within,
                "m_negligible": s.m_negligible,
            }
        )
    return pd.DataFrame(rows)


def _samples_line(table: pd.DataFrame) -> str:
    m = int(table["samples"].iloc[0])
    need = table["m_negligible"].dropna()
    tail = (
        f"; a median {need.median():g} samples per item would make it a tenth of the between-item part"
        if len(need)
        else ""
    )
    share = 100 * table["share_within"].median()
    return f"with {m} samples per item, within-item sampling noise is a median {share:.1f}% of a model's variance{tail}"


def _planning(args: argparse.Namespace) -> int:
    a, b = args.accuracy
    for name, v in (("A", a), ("B", b)):
        if not 0 < v < 1:
            raise UsageError(f"--accuracy {name} = {v:g}: give accuracies as fractions in (0, 1), e.g. 0.80")
    r = plan(
        a,
        b,
        discordance=args.discordance,
        correlation=args.correlation,
        design_effect=args.design_effect,
        alpha=args.alpha,
        power=args.power,
        items=args.items,
    )
    n = r["n_needed"]
    shown = "never (equal accuracies)" if not math.isfinite(n) else f"{math.ceil(n):,} items"
    deff = f", design effect {args.design_effect:g}" if args.design_effect != 1 else ""
    print(
        f"n = {shown} to tell {a:g} from {b:g} (discordance {r['discordance']:.4g}{deff}; McNemar, Connor 1987: "
        f"two-sided alpha {args.alpha:g}, power {args.power:g}; a projection)"
    )
    if args.items is not None:
        print(f"on {args.items:,} items: the smallest detectable difference is {100 * r['mde']:.2f} points")
    return 0


def _from_data(args: argparse.Namespace) -> int:
    if not args.paths:
        raise UsageError("give a correctness matrix or evaluation logs (PATH), or --accuracy A B to plan")
    m = read_matrix(args.paths, args)
    clusters, note = cluster_labels(args, m.item_ids, m.fields)
    try:
        table = resolution(m.values, m.model_names, clusters=clusters, alpha=args.alpha, power=args.power)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    lines = [summary_line(table)] + ([summary_line(table, clustered=True)] if clusters is not None else [])
    files = {"resolution.csv": write_csv(table)}
    if m.samples is not None and m.samples >= 2 and not m.binary:
        split = samples_table(m.values, m.model_names, m.samples)
        files["samples.csv"] = write_csv(split)
        lines.append(_samples_line(split))
    if args.out is not None:
        info = {
            "inputs": list(args.paths),
            "models": len(m.model_names),
            "items": int(m.values.shape[1]),
            "binary": m.binary,
            "method": "McNemar (Connor 1987)" if m.binary else "paired normal",
            "alpha": args.alpha,
            "power": args.power,
            "clusters": None if clusters is None else {"n_clusters": int(len(set(clusters))), "source": note},
            "adjacent_pairs": int((table["comparison"] == "adjacent").sum()),
            "resolved": int(table.loc[table["comparison"] == "adjacent", "resolved"].sum()),
            "summary": lines,
            "notes": list(m.notes),
            "labels": {
                "diff, sd_diff, discordance, design_effect": "measured",
                "mde, n_needed, resolved": "projection",
            },
        }
        write_atomic(args.out, {**files, "power.json": write_json(info)})
    print("\n".join(lines))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``holdout power``: exit 0 on success, 2 on bad input."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        if args.accuracy is not None:
            if args.paths:
                raise UsageError("--accuracy plans without data: leave out the paths, or leave out --accuracy")
            return _planning(args)
        if args.discordance is not None or args.correlation is not None or args.items is not None:
            raise UsageError("--discordance, --correlation and --items go with --accuracy A B (planning)")
        return _from_data(args)

    return run_main(body)


if __name__ == "__main__":
    raise SystemExit(main())
