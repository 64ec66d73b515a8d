"""The site's pages: ``index.html`` (the benchmarks side by side), one page per benchmark (the
ranking with its simultaneous rank intervals and tie groups, the paired tests of the top models, the
audit's verdicts) and one page per model seen on several benchmarks (its rank interval on each)."""

from __future__ import annotations

import json
import re
from hashlib import sha1
from pathlib import Path

import pandas as pd

from holdout.site.collect import LABELS, BenchmarkResult
from holdout.site.html import Column, esc, figure, fmt_int, page, table

__all__ = ["benchmark_href", "model_href", "index_page", "benchmark_page", "model_page", "TOP_PAIRS"]

#: the paired tests shown on a benchmark's page: every pair among its best TOP_PAIRS models
TOP_PAIRS = 10
LENS_ORDER = ("accuracy", "pairs", "similarity", "bounds", "contamination", "new", "effective_robustness")


def benchmark_href(name: str) -> str:
    return f"bench-{name}.html"


def model_href(model: str) -> str:
    """A file name for a model's page: its name made safe, with a short hash when that changed it."""
    safe = re.sub(r"[^A-Za-z0-9_.+-]", "_", model)[:80]
    if safe != model:
        safe += "-" + sha1(model.encode()).hexdigest()[:8]
    return f"model-{safe}.html"


def _label(key: str) -> str:
    kind = LABELS[key]
    return f'<span class="label {kind}">{kind}</span>'


def _legend() -> str:
    return (
        '<p class="note">Each number says what it is: <span class="label measured">measured</span> computed '
        'from the data (counts, intervals, tests); <span class="label theorem">theorem</span> a guarantee under '
        'the paper\'s stated conditions; <span class="label heuristic">heuristic</span> a rule of thumb or an '
        "assumption the data cannot check.</p>"
    )


def _index_row(r: BenchmarkResult) -> dict:
    why = "n/a (table)" if not r.ranked else "n/a"
    adj = f"{r.adjacent_resolved} of {r.adjacent_pairs}" if r.adjacent_pairs is not None else why
    return {
        "benchmark": r.title, "benchmark_href": benchmark_href(r.name), "kind": r.kind, "k": r.k, "n": r.n,
        "best": f"{r.best_model} ({r.best_accuracy:.1f}%)", "top": r.top_tie_group, "adjacent": adj,
        "adjacent_v": None if not r.adjacent_pairs else r.adjacent_resolved / r.adjacent_pairs,
        "eps": r.eps, "union": r.vouched_union, "nb": r.vouched_naive_bayes, "eps_all": r.eps_all_union,
        "contamination": r.contamination or ("n/a (no dates given)" if r.ranked else "n/a"),
        "items": r.item_quality or "n/a (not in the audit)",
    } | _bounds_missing(r)  # fmt: skip


def _bounds_missing(r: BenchmarkResult) -> dict:
    """Why the bounds' cells are empty, from the audit's note (e.g. identical models)."""
    if not r.ranked or r.vouched_union is not None:
        return {}
    why = "n/a (identical mistakes)" if "identical" in r.why else "n/a (no bounds)"
    return {f"{k}_missing": why for k in ("eps", "union", "nb", "eps_all")}


def _glance(r: BenchmarkResult) -> str:
    """One line per benchmark (what a phone shows before the wide table)."""
    link = f'<a href="{benchmark_href(r.name)}">{esc(r.title)}</a>'
    parts = [f"{fmt_int(r.k)} models, n = {esc(r.n)}"]
    if r.ranked:
        parts.append(f"top tie group {r.top_tie_group} {_label('top_tie_group')}")
        parts.append(
            f"{r.adjacent_resolved} of {r.adjacent_pairs} adjacent pairs resolved {_label('adjacent_resolved')}"
        )
        if r.vouched_union is not None:
            parts.append(f"vouches for {r.vouched_union} at eps = {r.eps:g} {_label('vouched_union')}")
    if r.contamination:
        parts.append(f"{esc(r.contamination)} {_label('contamination')}")
    return f"<li>{link}: {'; '.join(parts)}</li>"


def index_page(title: str, results: list[BenchmarkResult], shared: pd.DataFrame, source: str) -> str:
    """``index.html``: one row per benchmark, then the models seen on several benchmarks."""
    cols = [
        Column("benchmark", "benchmark", "link"), Column("input", "kind"), Column("K", "k", "int"),
        Column("n", "n"), Column("best model", "best"),
        Column("top tie group (measured)", "top", "int", "n/a (table)"),
        Column("adjacent pairs resolved (measured)", "adjacent"),
        Column("eps", "eps", "float", "n/a"),
        Column("models vouched for at eps: union (theorem)", "union", "int", "n/a"),
        Column("naive Bayes (heuristic)", "nb", "int", "n/a"),
        Column("eps covering all K: union (theorem)", "eps_all", "float", "n/a"),
        Column("contamination / new set (heuristic)", "contamination"),
        Column("item quality", "items"),
    ]  # fmt: skip
    body = [
        f"<p>{len(results)} benchmarks, each audited by <code>holdout audit</code> from <code>{esc(Path(source).name)}"
        "</code>. A tie group is the best model and every model it does not beat (paired test, Holm); an adjacent "
        "pair is resolved when its paired difference is significant after Holm over all pairs; a test set vouches "
        "for m models at eps when all m test accuracies are within eps of their population accuracies with "
        "probability 1 - delta (Mania et al. 2019).</p>",
        _legend(),
        '<ul class="glance">' + "".join(_glance(r) for r in results) + "</ul>",
        table("Benchmarks side by side", cols, [_index_row(r) for r in results], "index.csv"),
    ]
    body.append("<h2>Models on several benchmarks</h2>")
    if shared.empty:
        body.append("<p>No model appears on two benchmarks under the same name (or an alias).</p>")
    else:
        rows = [
            {"model": m, "model_href": model_href(m), "count": len(g), "benchmarks": ", ".join(g["benchmark"])}
            for m, g in shared.groupby("model", sort=True)
        ]
        cols = [Column("model", "model", "link"), Column("benchmarks", "count", "int"), Column("on", "benchmarks")]
        body.append(table("Models on several benchmarks", cols, rows, "models.csv"))
    body.append('<p>Every number: <a href="site.json">site.json</a>, <a href="index.csv">index.csv</a>, '
                '<a href="models.csv">models.csv</a>; each benchmark\'s audit in its folder.</p>')  # fmt: skip
    return page(title, "\n".join(body))


def _verdicts(summary: dict) -> str:
    items = []
    for lens in LENS_ORDER:
        v = summary.get(lens)
        if isinstance(v, dict) and v.get("verdict"):
            items.append(f"<li><b>{esc(lens)}</b>: {esc(v['verdict'])}</li>")
    return f'<ul class="verdicts">{"".join(items)}</ul>' if items else ""


def _ranking(ranks: pd.DataFrame, name: str, shared: set[str], aliases: dict[str, str]) -> str:
    rows = []
    for r in ranks.to_dict("records"):
        model = aliases.get(str(r["model"]), str(r["model"]))
        href = model_href(model) if model in shared else None
        interval = f"{int(r['rank_low'])}-{int(r['rank_high'])}"
        rows.append({**r, "model": str(r["model"]), "model_href": href, "interval": interval,
                     "width": int(r["rank_high"]) - int(r["rank_low"]) + 1})  # fmt: skip
    cols = [
        Column("model", "model", "link"), Column("accuracy", "accuracy", "pct"), Column("rank", "rank", "int"),
        Column("simultaneous rank interval", "interval"), Column("interval width", "width", "int"),
        Column("tie group", "tie_group", "int"), Column("p vs best, Holm", "p_holm_vs_best", "float"),
    ]  # fmt: skip
    return table(f"Ranking of the {len(rows)} models", cols, rows, f"{name}/ranks.csv")


def _top_pairs(ranks: pd.DataFrame, pairs: pd.DataFrame, name: str, alpha: float) -> str:
    top = set(ranks["model"].astype(str).head(TOP_PAIRS))
    sel = pairs[pairs["model_a"].astype(str).isin(top) & pairs["model_b"].astype(str).isin(top)].copy()
    sel["significant"] = ["yes" if p < alpha else "no" for p in sel["p_holm"]]
    cols = [
        Column("more accurate", "model_a"), Column("less accurate", "model_b"), Column("difference", "diff", "float"),
        Column("low", "diff_low", "float"), Column("high", "diff_high", "float"),
        Column("p, Holm over all pairs", "p_holm", "float"), Column(f"significant at {alpha:g}", "significant"),
    ]  # fmt: skip
    caption = f"Paired tests among the best {len(top)} models (differences in points)"
    return table(caption, cols, sel.to_dict("records"), f"{name}/pairs.csv")


def _files(folder: Path, name: str) -> str:
    files = sorted(f.name for f in folder.iterdir() if f.suffix in (".csv", ".json", ".md", ".html"))
    links = ", ".join(f'<a href="{esc(name)}/{esc(f)}">{esc(f)}</a>' for f in files)
    report = f'<a href="{esc(name)}/report.html">{esc(name)}/report.html</a>'
    return f"<p>The audit's report: {report}. Its files: {links}.</p>"


def benchmark_page(r: BenchmarkResult, folder: Path, shared: set[str], aliases: dict[str, str]) -> str:
    """One benchmark: headline numbers, verdicts, the figure, the ranking and the top pairs."""
    summary = json.loads((folder / "summary.json").read_text())
    nav = '<a href="index.html">all benchmarks</a>'
    head = (
        f"<p>K = {fmt_int(r.k)} models, n = {esc(r.n)} items ({esc(r.kind)} input). Best: <b>{esc(r.best_model)}</b> "
    )
    head += f"({r.best_accuracy:.2f}%).</p>"
    body = [head, _legend()]
    if r.ranked:
        ranks = pd.read_csv(folder / "ranks.csv", dtype={"model": str})
        pairs = pd.read_csv(folder / "pairs.csv", dtype={"model_a": str, "model_b": str})
        top = f"Top tie group: {r.top_tie_group} model(s) {_label('top_tie_group')}"
        adjacent = f"{r.adjacent_resolved} of {r.adjacent_pairs} {_label('adjacent_resolved')}"
        vouch = ""
        if r.vouched_union is not None:
            vouch = f"; models vouched for at eps = {r.eps:g}: {r.vouched_union} {_label('vouched_union')}"
        body.append(f"<p>{top}; adjacent pairs resolved: {adjacent}{vouch}.</p>")
        body += ["<h2>Ranking</h2>", figure(folder / "rank_intervals.png", f"{r.title}: simultaneous rank intervals")]
        body += [_ranking(ranks, r.name, shared, aliases), "<h2>Paired significance of the top models</h2>"]
        body.append(_top_pairs(ranks, pairs, r.name, r.alpha))
    else:
        body += [f"<p>{esc(r.why)}.</p>", "<h2>Original against new test set</h2>"]
        body.append(figure(folder / "fit.png", f"{r.title}: accuracy on the new test set against the original"))
        models = pd.read_csv(folder / "models.csv", dtype={"model": str}).to_dict("records")
        for m in models:
            alias = aliases.get(m["model"], m["model"])
            m["model_href"] = model_href(alias) if alias in shared else None
        cols = [
            Column("model", "model", "link"), Column("original", "orig_accuracy", "pct"),
            Column("new", "new_accuracy", "pct"), Column("gap (points)", "gap", "float"),
            Column("effective robustness (points)", "effective_robustness", "float"),
            Column("p, Holm", "er_p_holm", "float"),
        ]  # fmt: skip
        body.append(table(f"The {len(models)} models", cols, models, f"{r.name}/models.csv"))
    body += ["<h2>What the audit says</h2>", _verdicts(summary), _files(folder, r.name)]
    return page(r.title, "\n".join(body), nav)


def model_page(model: str, rows: pd.DataFrame) -> str:
    """One model: its rank interval on each benchmark it appears on."""
    recs = rows.to_dict("records")
    for rec in recs:
        rec["benchmark_href"] = benchmark_href(rec["benchmark"])
        ok = not pd.isna(rec["rank_low"])
        rec["interval"] = (
            f"{int(rec['rank_low'])}-{int(rec['rank_high'])} of {rec['k']}" if ok else "n/a (accuracy table)"
        )
    cols = [
        Column("benchmark", "benchmark", "link"), Column("name there", "name_on_benchmark"),
        Column("accuracy", "accuracy", "pct"), Column("accuracy on", "accuracy_on"),
        Column("new set (tables)", "new_accuracy", "pct", "n/a"), Column("rank", "rank", "int", "n/a (accuracy table)"),
        Column("simultaneous rank interval", "interval"), Column("tie group", "tie_group", "int", "n/a (table)"),
        Column("K", "k", "int"),
    ]  # fmt: skip
    note = (
        '<p class="note">Accuracy on every item of a benchmark with per-item results (its rank interval is '
        "simultaneous over all its models); on an accuracy table, on its original test set, the new set beside.</p>"
    )
    body = note + table(f"{model} on {len(recs)} benchmarks", cols, recs)
    return page(model, body, '<a href="index.html">all benchmarks</a>')
