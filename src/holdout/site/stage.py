"""Each benchmark as ``holdout audit`` arguments: published leaderboard files first written as the
audit's own input files (a correctness matrix with its dates, an accuracy table), by the readers the
leaderboards study uses ([`livecodebench`][holdout.leaderboards.sources.livecodebench],
[`evalplus_table`][holdout.leaderboards.sources.evalplus_table], timm's results files joined by
model and image size as the audit's tests do)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from holdout.site.spec import Benchmark

__all__ = ["audit_argv", "stage_inputs"]


def _livecodebench(b: Benchmark, folder: Path) -> list[str]:
    """LiveCodeBench's site data: the pass@1 matrix over its samples, problem and model dates."""
    from holdout.leaderboards.sources import livecodebench

    lcb = livecodebench(b.inputs["path"], int(b.options.get("samples", 10)))
    c = lcb.correctness
    matrix = pd.DataFrame(c.values, index=pd.Index(c.model_names, name="model"), columns=list(lcb.items))
    matrix.to_csv(folder / "correctness.csv")
    pd.DataFrame({"item": lcb.items, "date": lcb.item_dates.astype(str)}).to_csv(folder / "item_dates.csv", index=False)
    dates = pd.DataFrame({"model": c.model_names, "date": lcb.model_dates.astype(str)})
    dates.to_csv(folder / "model_dates.csv", index=False)
    extra = ["--item-dates", str(folder / "item_dates.csv"), "--model-dates", str(folder / "model_dates.csv")]
    return [str(folder / "correctness.csv"), "--correctness", *extra]


def _evalplus(b: Benchmark, folder: Path) -> list[str]:
    """EvalPlus's leaderboard: pass@1 on the base tests and on the stricter plus tests (fractions)."""
    from holdout.leaderboards.sources import evalplus_table

    base, plus = str(b.inputs["base"]), str(b.inputs["plus"])
    evalplus_table(b.inputs["file"], base, plus).to_csv(folder / "accuracies.csv", index=False)
    sizes = [str(int(s)) for s in b.inputs["sizes"]]
    return ["--accuracies", str(folder / "accuracies.csv"), "--columns", base, plus, "--sizes", *sizes]


def _timm_column(path: str) -> str:
    return Path(path).stem.removeprefix("results-")


def _timm(b: Benchmark, folder: Path) -> list[str]:
    """timm's results files: one row per (model, image size), named ``model@size``, top-1 in percent."""
    cols = [_timm_column(b.inputs["original"]), _timm_column(b.inputs["new"])]
    o, n = (pd.read_csv(b.inputs[k]) for k in ("original", "new"))
    both = o.merge(n, on=["model", "img_size"], suffixes=("_o", "_n"))
    names = both["model"] + "@" + both["img_size"].astype(str)
    pd.DataFrame({"model": names, cols[0]: both["top1_o"], cols[1]: both["top1_n"]}).to_csv(
        folder / "accuracies.csv", index=False
    )
    sizes = [str(int(s)) for s in b.inputs["sizes"]]
    return ["--accuracies", str(folder / "accuracies.csv"), "--columns", *cols, "--sizes", *sizes]


def stage_inputs(b: Benchmark, folder: Path) -> list[str]:
    """The input arguments of ``holdout audit`` for ``b``; a source's files are written into ``folder``."""
    if b.kind == "correctness":
        return [b.inputs["path"], "--correctness"]
    if b.kind == "logs":
        return ["--logs", *b.inputs["paths"]]
    if b.kind == "accuracies":
        return ["--accuracies", b.inputs["path"]]
    if b.kind == "predictions":
        return [b.inputs["path"]]
    folder.mkdir(parents=True, exist_ok=True)
    return {"livecodebench": _livecodebench, "evalplus": _evalplus, "timm": _timm}[b.kind](b, folder)


def _option_args(options: dict[str, Any], skip: frozenset[str]) -> list[str]:
    out: list[str] = []
    for name, value in options.items():
        if name in skip or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, list | tuple):
            out += [flag, *(str(v) for v in value)]
        else:
            out += [flag, str(value)]
    return out


def audit_argv(b: Benchmark, inputs: list[str], out: Path) -> list[str]:
    """``holdout audit`` arguments (without the command) auditing ``b`` into ``out``."""
    staged = {"item_dates", "model_dates"} if b.kind == "livecodebench" else set()
    if b.kind in ("evalplus", "timm"):
        staged |= {"columns", "sizes"}
    if b.kind in ("evalplus",):
        staged |= {"scale"}
    options = _option_args(b.options, frozenset(staged))
    if b.kind == "evalplus":
        options += ["--scale", "fraction"]
    return [*inputs, *options, "--out", str(out)]
