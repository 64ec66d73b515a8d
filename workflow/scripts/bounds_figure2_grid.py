"""Mania et al. Fig. 2, one panel: gains of SB and NBB over the union bound on a grid."""

import json

import numpy as np

from holdout.bounds.study import gain_grid
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
p = snakemake.params  # noqa: F821
panel = snakemake.wildcards.panel  # noqa: F821

with open(snakemake.input.setting) as fh:  # noqa: F821
    setting = json.load(fh)
values = np.linspace(float(p.grid["start"]), float(p.grid["stop"]), int(p.grid["num"]))
if panel == "similarity":
    similarities, eps_values = values, [float(p.eps)]
else:
    similarities, eps_values = [float(setting["similarity"])], values
log.info(
    "panel %s: n=%s, error=%s, %d points, delta=%s, form=%s, threads=%d, setting from %s",
    panel, setting["n"], setting["error"], len(values), p.delta, p.form,
    snakemake.threads, setting["source"],  # noqa: F821
)
with timed(log, f"figure 2 grid ({panel})"):
    table = gain_grid(
        n=int(setting["n"]),
        error=float(setting["error"]),
        similarities=similarities,
        eps_values=eps_values,
        delta=float(p.delta),
        form=p.form,
        threads=snakemake.threads,  # noqa: F821
    )
for row in table.to_dict("records"):
    log.info(
        "eta=%.4f eps=%.4f: k union=%s SB=%s NBB=%s (gains %.4g, %.4g)",
        row["similarity"], row["eps"], row["union_k"], row["similarity_k"],
        row["naive_bayes_k"], row["similarity_gain"], row["naive_bayes_gain"],
    )
table["mean_accuracy"] = setting["mean_accuracy"]
table["form"] = p.form
table["setting_source"] = setting["source"]
table.to_csv(snakemake.output.csv, index=False)  # noqa: F821
