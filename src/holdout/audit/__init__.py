"""``holdout audit``: every lens of the four papers on a researcher's own models, in one report.

Pure lens functions (:mod:`holdout.audit.core`), their verdicts (:mod:`holdout.audit.verdicts`),
the whole run and its outputs (:mod:`holdout.audit.run`), the HTML report
(:mod:`holdout.audit.report`), figures (:mod:`holdout.audit.plots`), the command line
(:mod:`holdout.audit.cli`) and the four lenses side by side for the workflow's own trained models
(:mod:`holdout.audit.own_models`). Nothing here imports torch.
"""

from holdout.audit.core import (
    AuditError,
    BoundsLens,
    NewSetLens,
    RvwLens,
    SimilarityLens,
    accuracy_lens,
    align_models,
    bounds_lens,
    check_open_unit,
    load_audit_predictions,
    new_set_lens,
    rvw_lens,
    selection_bits,
    similarity_lens,
)
from holdout.audit.run import (
    LENSES,
    AuditOptions,
    AuditResult,
    run_audit,
    summary_dict,
    write_audit,
)

__all__ = [
    "LENSES",
    "AuditError",
    "AuditOptions",
    "AuditResult",
    "BoundsLens",
    "NewSetLens",
    "RvwLens",
    "SimilarityLens",
    "accuracy_lens",
    "align_models",
    "bounds_lens",
    "check_open_unit",
    "load_audit_predictions",
    "new_set_lens",
    "run_audit",
    "rvw_lens",
    "selection_bits",
    "similarity_lens",
    "summary_dict",
    "write_audit",
]
