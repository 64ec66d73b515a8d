"""``holdout audit``: every lens of the four papers on a researcher's own models, in one report.

The lenses (:mod:`holdout.audit.core`)
--------------------------------------
- :func:`accuracy_lens`           accuracy with Clopper-Pearson intervals (Recht et al. 2018, Sec. 3.2).
- :func:`new_set_lens`            gap, Delta Rank, error ratio and the linear fit on a newer test set
  (Recht et al. Tables 1 and 4, Eq. 3, Figure 2).
- :func:`similarity_lens`         similarity, covering numbers, difficulty (Mania et al. 2019, Sec. 5.1).
- :func:`bounds_lens`             testable models under the union, similarity and naive-Bayes bounds.
- :func:`rvw_lens`                Rip van Winkle's Razor on the selected model (Arora & Zhang 2021).
- :func:`selection_bits`          the description length of the selected model.
- :func:`load_audit_predictions`  K models' predictions from any format the data stage reads.

The run (:mod:`holdout.audit.run`)
----------------------------------
- :func:`run_audit`               predictions in, :class:`AuditResult` out (pure).
- :func:`write_audit`             the tables, figures, ``summary.json`` and ``report.html``.
- :class:`AuditOptions`           the lenses to run (:data:`LENSES`) and their settings.
- :class:`AuditError`             bad input; one line naming the file or option.

Also: verdicts (:mod:`holdout.audit.verdicts`), the HTML report (:mod:`holdout.audit.report`),
figures (:mod:`holdout.audit.plots`), the command line (:mod:`holdout.audit.cli`) and the four
lenses side by side for the workflow's own trained models (:mod:`holdout.audit.own_models`).
The audit is built on the studies; no study imports it. Nothing here imports torch.
"""

from holdout.audit.core import (
    AuditError,
    accuracy_lens,
    bounds_lens,
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
    write_audit,
)

__all__ = [
    "LENSES",
    "AuditError",
    "AuditOptions",
    "AuditResult",
    "accuracy_lens",
    "bounds_lens",
    "load_audit_predictions",
    "new_set_lens",
    "run_audit",
    "rvw_lens",
    "selection_bits",
    "similarity_lens",
    "write_audit",
]
