"""The four lenses side by side for our own trained models (search + adversarial CIFAR-10 studies)."""

import pandas as pd

from holdout.audit.engines.own_models import own_models, own_models_markdown
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, par = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
with timed(log, "own models: four lenses"):
    result = own_models(
        load_predictions(inp.test),
        pd.read_csv(inp.configs),
        v6=load_predictions(inp.v6) if hasattr(inp, "v6") else None,
        pvalues=pd.read_csv(inp.pvalues) if hasattr(inp, "pvalues") else None,
        eps=par.eps,
        delta=par.delta,
        alpha=par.alpha,
        C=par.rvw_C,
    )
    write_table(result.lenses, out.table, out.table_md, own_models_markdown(result))
    result.models.to_csv(out.models, index=False)
log.info("\n%s", own_models_markdown(result))
