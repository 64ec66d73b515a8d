"""``holdout audit``: every lens of the four papers on a researcher's own models, in one report.

The lenses ([`holdout.audit.core`][holdout.audit.core])
--------------------------------------
- [`accuracy_lens`][holdout.audit.accuracy_lens]           accuracy with Clopper-Pearson intervals (Recht et al. 2018,
  Sec. 3.2).
- [`new_set_lens`][holdout.audit.new_set_lens]            gap, Delta Rank, error ratio and the linear fit on a newer
  test set
  (Recht et al. Tables 1 and 4, Eq. 3, Figure 2).
- [`similarity_lens`][holdout.audit.similarity_lens]         similarity, covering numbers, difficulty (Mania et al.
  2019, Sec. 5.1).
- [`bounds_lens`][holdout.audit.bounds_lens]             testable models under the union, similarity and naive-Bayes
  bounds.
- [`rvw_lens`][holdout.audit.rvw_lens]                Rip van Winkle's Razor on the selected model (Arora & Zhang 2021).
- [`selection_bits`][holdout.audit.selection_bits]          the description length of the selected model.
- [`load_audit_predictions`][holdout.audit.load_audit_predictions]  K models' predictions from any format the data stage
  reads.

The run ([`holdout.audit.run`][holdout.audit.run])
----------------------------------
- [`run_audit`][holdout.audit.run_audit]               predictions in, [`AuditResult`][holdout.audit.AuditResult] out
  (pure).
- [`write_audit`][holdout.audit.write_audit]             the tables, figures, ``summary.json`` and ``report.html``.
- [`AuditOptions`][holdout.audit.AuditOptions]           the lenses to run (`LENSES`) and their settings.
- [`AuditError`][holdout.audit.AuditError]             bad input; one line naming the file or option.

In a notebook ([`holdout.audit.notebook`][holdout.audit.notebook])
-----------------------------------------------------------------
- [`read_logs`][holdout.audit.read_logs]               evaluation logs (lm-eval, Inspect, HELM, ...) -> a K x n
  correctness matrix with item ids.
- [`audit`][holdout.audit.audit]                   every correctness lens on it -> an
  [`AuditResult`][holdout.audit.AuditResult] (DataFrames; shown as its verdicts).

Also: verdicts ([`holdout.audit.verdicts`][holdout.audit.verdicts]), the HTML report
    ([`holdout.audit.report`][holdout.audit.report]),
figures ([`holdout.audit.plots`][holdout.audit.plots]), the command line ([`holdout.audit.cli`][holdout.audit.cli]) and
the four
lenses side by side for the workflow's own trained models ([`holdout.audit.own_models`][holdout.audit.own_models]).
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
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.notebook import Lenses, audit, read_logs
from holdout.audit.readers import read_accuracies, read_matrix, read_predictions, with_dates
from holdout.audit.readers import read_logs as read_log_evidence
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
    "Evidence",
    "LensResult",
    "Lenses",
    "accuracy_lens",
    "audit",
    "bounds_lens",
    "load_audit_predictions",
    "new_set_lens",
    "read_accuracies",
    "read_log_evidence",
    "read_logs",
    "read_matrix",
    "read_predictions",
    "run_audit",
    "rvw_lens",
    "selection_bits",
    "similarity_lens",
    "with_dates",
    "write_audit",
]
