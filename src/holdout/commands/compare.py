"""``holdout compare BASE CANDIDATE``: did the candidate get worse than the baseline on the same items?

Two runs of the same items (two log files or folders, aligned by item id), or two models of one
correctness matrix (``FILE --correctness --base NAME --candidate NAME``). The paired difference
candidate - base in percentage points with its interval, a paired test, and a decision as an exit
code a CI job can use:

- 0 not worse: with ``--margin M``, non-inferior (the interval's lower end above -M); without a
  margin, the candidate scored at least the baseline and is not significantly worse;
- 1 significantly worse (the paired test rejects at ``--alpha`` and the candidate scored lower;
  with a margin, and not non-inferior);
- 3 inconclusive (lower but not significantly; with a margin: neither non-inferior nor worse);
- 2 bad input.

0/1 scores: the exact McNemar test (McNemar 1947) and Newcombe's (1998) hybrid score interval;
pass rates: the paired t test and its interval; clustered items (``--clusters``,
``--cluster-pattern``, ``--cluster-by`` a field of the baseline's logs): the clustered standard
error (Miller 2024, App. A, finite-cluster form),
the clustered test (normal with 30 clusters or more, a cluster sign-flip randomization test below)
and its interval (diff -+ t_{C-1} SE, or the inverted randomization test below 30 clusters).
``--prior-uses N``: how far N earlier evaluations on this test set may have moved any of the N + 2
measured accuracies (Mania et al. 2019: Corollary 4 with
alpha = 0 for an adaptive analyst; the union bound (2) for models fixed in advance), a theorem.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from holdout.commands._shared import (
    Matrix,
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
    write_json,
)
from holdout.stats import clustered_paired_test, mcnemar, newcombe_paired_ci, paired_t_test

__all__ = ["EXIT", "build_parser", "compare_scores", "decide", "main", "reuse_bounds"]

#: decision -> exit code
EXIT = {"not worse": 0, "worse": 1, "inconclusive": 3}

EXAMPLES = """\
  # a regression gate on two lm-eval runs of the same items (exit 0 not worse, 1 worse, 3 inconclusive)
  holdout compare '../shared/data/evallogs/lmeval_asdiv_llama3/results/asdiv_cot/*/samples_*03-40-10*.jsonl' \\
      ../shared/data/evallogs/lmeval_asdiv_llama3/results/asdiv --out /tmp/gate
  # non-inferiority within 10 points on two HELM runs, and what 20 earlier uses of the test set may have moved
  holdout compare '../shared/data/evallogs/helm_safety_bbq/runs/v4/*gpt-4o*' \\
      '../shared/data/evallogs/helm_safety_bbq/runs/v4/*qwen2-72b*' --margin 10 --prior-uses 20
  # two models of a correctness matrix, SWE-bench instances clustered by repository
  holdout compare ../shared/data/anchors/swebench/swebench_verified_resolved_matrix.csv --correctness \\
      --base 20240620_sweagent_claude3.5sonnet --candidate 20240402_sweagent_gpt4 --cluster-pattern '^(.+)-[0-9]+$'
"""


def build_parser() -> argparse.ArgumentParser:
    p = parser(
        "holdout compare",
        "Did the candidate get worse than the baseline on the same items? A paired test and a decision "
        "as the exit code: 0 not worse, 1 significantly worse, 3 inconclusive, 2 bad input.",
        EXAMPLES,
    )
    add_input_options(p, nargs="+", help="BASE CANDIDATE (two runs), or one FILE with --correctness")
    g = p.add_argument_group("models of a correctness matrix")
    g.add_argument("--base", help="the baseline model's name (with --correctness)")
    g.add_argument("--candidate", help="the candidate model's name (with --correctness)")
    add_cluster_options(p)
    d = p.add_argument_group("decision and output")
    d.add_argument("--margin", type=float, help="non-inferiority margin in percentage points (1 = one point)")
    add_alpha(d, "two-sided level of the test; interval level 1 - alpha")
    d.add_argument("--prior-uses", type=int, help="earlier evaluations made on this test set (Mania et al. bound)")
    add_out(d, "compare.json")
    return p


def _one_run(path: str, args: argparse.Namespace) -> Matrix:
    m = read_matrix([path], args)
    if len(m.model_names) != 1:
        raise UsageError(
            f"{path}: {len(m.model_names)} runs ({', '.join(m.model_names[:3])}"
            f"{', ...' if len(m.model_names) > 3 else ''}); give one run per side, or choose with --task / --metric"
        )
    return m


def _inputs(args: argparse.Namespace) -> dict[str, object]:
    """Names, the two aligned score vectors, the item ids and what alignment dropped."""
    if args.correctness:
        if len(args.paths) != 1 or args.base is None or args.candidate is None:
            raise UsageError("--correctness compares two models of one matrix: FILE --base NAME --candidate NAME")
        m = read_matrix(args.paths, args)
        rows = {}
        for flag, name in (("--base", args.base), ("--candidate", args.candidate)):
            if name not in m.model_names:
                near = ", ".join(m.model_names[:5])
                raise UsageError(f"{flag} {name!r}: no such model in {args.paths[0]} (models: {near}, ...)")
            rows[flag] = m.model_names.index(name)
        base, cand = m.values[rows["--base"]], m.values[rows["--candidate"]]
        names = (args.base, args.candidate)
        return {"names": names, "base": base, "cand": cand, "ids": m.item_ids, "dropped": (0, 0), "fields": None}
    if args.base is not None or args.candidate is not None:
        raise UsageError("--base and --candidate name models of a correctness matrix (--correctness)")
    if len(args.paths) != 2:
        raise UsageError(f"give two runs, BASE and CANDIDATE, got {len(args.paths)} paths")
    b, c = _one_run(args.paths[0], args), _one_run(args.paths[1], args)
    cpos = {item: j for j, item in enumerate(c.item_ids)}
    common = [i for i, item in enumerate(b.item_ids) if item in cpos]
    if not common:
        raise UsageError(f"{args.paths[0]} and {args.paths[1]} share no item id: not runs of the same items")
    ids = tuple(b.item_ids[i] for i in common)
    base, cand = b.values[0][common], c.values[0][[cpos[item] for item in ids]]
    dropped = (len(b.item_ids) - len(ids), len(c.item_ids) - len(ids))
    fields = None if b.fields is None else {k: tuple(v[i] for i in common) for k, v in b.fields.items()}
    names = (b.model_names[0], c.model_names[0])
    return {"names": names, "base": base, "cand": cand, "ids": ids, "dropped": dropped, "fields": fields}


def compare_scores(
    base: np.ndarray, candidate: np.ndarray, *, clusters: np.ndarray | None = None, alpha: float = 0.05
) -> dict[str, object]:
    """The paired difference candidate - base (percentage points), its 1 - alpha interval, the
    test, its p-value and the method names; pure (prints and writes nothing)."""
    b, c = np.asarray(base, dtype=float), np.asarray(candidate, dtype=float)
    binary = bool(np.isin(b, (0.0, 1.0)).all() and np.isin(c, (0.0, 1.0)).all())
    out: dict[str, object] = {"n": int(b.size), "accuracy_base": 100 * float(b.mean())}
    out["accuracy_candidate"] = 100 * float(c.mean())
    if clusters is not None:
        r = clustered_paired_test(c, b, clusters, confidence_level=1 - alpha)
        inverted = r.interval_method == "sign-flip inverted"
        out.update(
            diff=100 * r.diff,
            low=100 * r.interval.low,
            high=100 * r.interval.high,
            pvalue=r.pvalue,
            test=f"clustered ({r.method})",
            interval="the inverted cluster sign-flip test"
            if inverted
            else "clustered, diff -+ t_{C-1} SE (finite-cluster form)",
            n_clusters=r.se.n_clusters,
            design_effect=r.se.design_effect,
            se=100 * r.se.se,
            se_clustered=100 * r.se.se_clustered,
            se_clustered_finite=100 * r.se.se_clustered_finite,
        )
    elif binary:
        improved, regressed = int(np.sum((c == 1) & (b == 0))), int(np.sum((c == 0) & (b == 1)))
        both, neither = int(np.sum((c == 1) & (b == 1))), int(np.sum((c == 0) & (b == 0)))
        low, high = newcombe_paired_ci(both, improved, regressed, neither, alpha)
        test = mcnemar(improved, regressed)
        out.update(
            diff=100 * (improved - regressed) / b.size,
            low=100 * float(low),
            high=100 * float(high),
            pvalue=test.pvalue,
            test="exact McNemar",
            interval="Newcombe (1998) hybrid score",
            improved=improved,
            regressed=regressed,
        )
    else:
        t = paired_t_test(c, b, alpha)
        out.update(diff=100 * t.diff, low=100 * t.low, high=100 * t.high, pvalue=t.pvalue)
        out.update(test="paired t", interval="paired t")
    out["binary"] = binary
    return out


def decide(diff: float, low: float, pvalue: float, *, alpha: float = 0.05, margin: float | None = None) -> str:
    """'not worse', 'worse' or 'inconclusive' (see the module's rules); ``margin`` in the unit of diff."""
    worse = pvalue < alpha and diff < 0
    if margin is not None:
        if low > -margin:
            return "not worse"
        return "worse" if worse else "inconclusive"
    if worse:
        return "worse"
    return "not worse" if diff >= 0 else "inconclusive"


def _union_eps(n: int, error: float, k: int, delta: float) -> float:
    from holdout.bounds import union_bound_probability

    lo, hi = 0.0, 1.0
    if union_bound_probability(n, error, 1.0 - 1e-12, k) > delta:
        return math.inf
    for _ in range(60):
        mid = (lo + hi) / 2
        if mid > 0 and union_bound_probability(n, error, mid, k) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def reuse_bounds(n: int, prior_uses: int, base_error: float, *, delta: float = 0.05) -> dict[str, object]:
    """How far the test accuracy of any of k = ``prior_uses`` + 2 evaluations (the earlier ones, the
    baseline's and the candidate's) may lie from its population value, with probability 1 - delta
    for all at once (Mania et al. 2019): ``eps_adaptive`` from Corollary 4 with alpha = 0 (any
    adaptive analyst, the trivial mechanism), ``eps_fixed`` from the union bound (2) with exact
    binomial tails at the baseline's observed error (models chosen before seeing the test set). In
    percentage points; a difference of the two can have moved by up to twice eps."""
    from holdout.bounds import corollary4

    if prior_uses < 0:
        raise UsageError(f"--prior-uses must be >= 0, got {prior_uses}")
    k = prior_uses + 2
    adaptive = corollary4(n, k, 0.0, delta).eps
    error = min(max(base_error, 1.0 / n), 1.0 - 1.0 / n)
    fixed = _union_eps(n, error, k, delta)
    return {
        "prior_uses": prior_uses,
        "evaluations": k,
        "delta": delta,
        "eps_adaptive": 100 * adaptive,
        "eps_fixed": 100 * fixed,
        "vacuous_adaptive": bool(adaptive >= 1),
        "label": "theorem (Mania et al. 2019: Corollary 4 with alpha = 0; union bound (2) with the baseline's "
        "observed error in place of its population error)",
    }


def _line(r: dict[str, object], names: tuple[str, str], decision: str, margin: float | None) -> str:
    level = 100 * (1 - float(r["alpha"]))  # type: ignore[arg-type]
    m = f", margin {margin:g}" if margin is not None else ""
    return (
        f"{decision} (exit {EXIT[decision]}): {names[1]} {r['accuracy_candidate']:.2f}% vs {names[0]} "
        f"{r['accuracy_base']:.2f}% on {r['n']:,} items, difference {r['diff']:+.2f} points "
        f"[{level:g}% CI {r['low']:+.2f}, {r['high']:+.2f}], {r['test']} p = {r['pvalue']:.2g}{m}"
    )


def _run(args: argparse.Namespace) -> int:
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must lie in (0, 1), got {args.alpha:g}")
    if args.margin is not None and not args.margin >= 0:
        raise UsageError(f"--margin must be >= 0 percentage points, got {args.margin:g}")
    x = _inputs(args)
    clusters, note = cluster_labels(args, x["ids"], x["fields"])  # type: ignore[arg-type]
    try:
        r = compare_scores(x["base"], x["cand"], clusters=clusters, alpha=args.alpha)  # type: ignore[arg-type]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    r["alpha"] = args.alpha
    decision = decide(r["diff"], r["low"], r["pvalue"], alpha=args.alpha, margin=args.margin)  # type: ignore[arg-type]
    lines = [_line(r, x["names"], decision, args.margin)]  # type: ignore[arg-type]
    only_base, only_cand = x["dropped"]  # type: ignore[misc]
    if only_base or only_cand:
        lines.append(f"note: {only_base:,} items only in BASE and {only_cand:,} only in CANDIDATE were left out")
    reuse = None
    if args.prior_uses is not None:
        if not r["binary"]:
            raise UsageError(
                "--prior-uses: the Mania et al. bounds are for 0/1 correctness; these runs hold pass rates"
            )
        reuse = reuse_bounds(int(r["n"]), args.prior_uses, 1 - float(r["accuracy_base"]) / 100, delta=args.alpha)
        vac = " (vacuous: above 100)" if reuse["vacuous_adaptive"] else ""
        lines.append(
            f"after {args.prior_uses} earlier uses of this test set, each measured accuracy may sit up to "
            f"{reuse['eps_adaptive']:.1f} points{vac} from its population value for an adaptive analyst, "
            f"{reuse['eps_fixed']:.1f} for models fixed in advance (theorem: Mania et al. 2019, Cor. 4 and bound (2))"
        )
    if args.out is not None:
        data = {
            "base": {"input": args.paths[0], "name": x["names"][0]},  # type: ignore[index]
            "candidate": {"input": args.paths[-1], "name": x["names"][1]},  # type: ignore[index]
            "items_only_in_base": x["dropped"][0],  # type: ignore[index]
            "items_only_in_candidate": x["dropped"][1],  # type: ignore[index]
            **r,
            "confidence_level": 1 - args.alpha,
            "margin": args.margin,
            "decision": decision,
            "exit_code": EXIT[decision],
            "clusters": note or None,
            "prior_uses": reuse,
            "summary": lines,
            "labels": {"accuracies, diff, interval, p-value": "measured", "prior_uses": "theorem"},
        }
        write_atomic(args.out, {"compare.json": write_json(data)})
    print("\n".join(lines))
    return EXIT[decision]


def main(argv: list[str] | None = None) -> int:
    """``holdout compare``: exit 0 not worse, 1 significantly worse, 3 inconclusive, 2 bad input."""
    args = build_parser().parse_args(argv)
    return run_main(lambda: _run(args))


if __name__ == "__main__":
    raise SystemExit(main())
