"""holdout audit on one data.user_predictions set (and its newer test set, when configured)."""

from pathlib import Path

from holdout.audit import LENSES, AuditOptions, run_audit, selection_bits, write_audit
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, par = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
opts = par.options
bits, detail = None, ""
if opts.get("rvw_description") or opts.get("search_size"):
    bits, detail = selection_bits(opts.get("rvw_description"), opts.get("search_size"))
preds = load_predictions(inp.predictions)
lenses = LENSES if preds.num_models >= 2 else tuple(x for x in LENSES if x not in ("similarity", "bounds"))
if preds.num_models < 2:
    log.warning("%s holds 1 model: the similarity and bounds lenses need 2 and are skipped", inp.predictions)
options = AuditOptions(
    lenses=lenses,
    eps=par.eps,
    delta=par.delta,
    alpha=par.alpha,
    band_level=par.band_level,
    rvw_bits=bits,
    rvw_detail=detail,
    rvw_C=par.rvw_C,
    selected=opts.get("selected"),
)
with timed(log, f"audit of {inp.predictions}"):
    new = load_predictions(inp.new) if hasattr(inp, "new") else None
    result = run_audit(
        preds, options, source=inp.predictions, new=new, new_source=inp.new if new is not None else "new predictions"
    )
    summary = write_audit(result, Path(out.report).parent, force=True)  # the workflow's own results folder
for lens in ("accuracy", "pairs", "new", "similarity", "bounds", "rvw"):
    if lens in summary:
        log.info("[%s] %s", lens, summary[lens]["verdict"])
