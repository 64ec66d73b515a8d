"""LiveCodeBench: every correctness lens on the 45 x 400 pass@1 matrix, contamination by date, and the
paired comparisons with rank intervals (the audit's pairs lens)."""

import json
from pathlib import Path

import numpy as np

from holdout.audit.engines.pairs_lens import pairs_lens, write_pairs
from holdout.audit.report.verdicts import pairs_summary
from holdout.config import check_livecodebench_keys
from holdout.leaderboards import contamination
from holdout.leaderboards.checks import contamination_checks
from holdout.leaderboards.lenses import correctness_lenses
from holdout.leaderboards.outputs import write_contamination, write_lenses
from holdout.leaderboards.sources import livecodebench
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
p, out = snakemake.params, snakemake.output  # noqa: F821
keys = {"split": p.split, "placebo_splits": p.placebo_splits, "line_models": p.line_models, "families": p.families}
check_livecodebench_keys(keys, snakemake.input[0])  # noqa: F821 (a key the file contradicts: one line naming it)
with timed(log, "LiveCodeBench lenses"):
    lcb = livecodebench(snakemake.input[0], p.samples)  # noqa: F821
    lenses = correctness_lenses(lcb.correctness, np.round(np.linspace(0.5, 1.0, 51), 4), p.eps, p.delta, p.alpha)
    write_lenses(lenses, out.accuracies, out.lenses, out.covering, out.similarity, "LiveCodeBench: model similarities")
    split = contamination(
        lcb.correctness, lcb.item_dates, lcb.model_dates, np.datetime64(p.split), p.alpha, p.band_level
    )
    summary = write_contamination(split, out.contamination, f"LiveCodeBench, split {p.split}")
with timed(log, "contamination checks"):
    platforms = {name: lcb.item_platforms == name for name in ("leetcode", "atcoder")}
    checks = contamination_checks(
        lcb.correctness,
        lcb.item_dates,
        lcb.model_dates,
        np.datetime64(p.split),
        alpha=p.alpha,
        line_models=list(p.line_models),
        placebos=list(p.placebo_splits),
        item_groups=platforms,
        families=dict(p.families),
    )
    checks.to_csv(out.checks, index=False)
with timed(log, "paired comparisons and rank intervals"):
    pairs = pairs_lens(lcb.correctness.values, lcb.correctness.model_names, alpha=p.alpha)
    write_pairs(pairs, Path(out.ranks).parent, "LiveCodeBench")
    Path(out.pairs_json).write_text(json.dumps(ps := pairs_summary(pairs), indent=2) + "\n")
log.info("testable models %s; below the line: %s; [pairs] %s", lenses.testable, summary["below_line"], ps["verdict"])
