"""``holdout audit``: every lens of the four papers on a researcher's own models, in one report.

The pipeline: readers -> one evidence object -> the registry's lenses -> outputs (docs/architecture.md).

Readers ([`holdout.audit.readers`][holdout.audit.readers])
----------------------------------------------------------
- [`read_predictions`][holdout.audit.read_predictions]        K models' predictions and the labels -> an
  [`Evidence`][holdout.audit.Evidence].
- [`read_matrix`][holdout.audit.read_matrix]             a K x n correctness matrix (0/1 or pass rates).
- [`read_accuracies`][holdout.audit.read_accuracies]         a table of accuracies (two test sets).
- [`read_logs`][holdout.audit.read_logs]               evaluation logs (lm-eval, Inspect, HELM, ...) -> a K x n
  correctness matrix with item ids and runs
  ([`readers.read_logs`][holdout.audit.readers.read_logs]: the same as an Evidence).
- [`Evidence`][holdout.audit.Evidence]                what an input says: K x n matrix, predictions, ids, dates, notes.

Lenses ([`holdout.audit.registry`][holdout.audit.registry], [`holdout.audit.lenses`][holdout.audit.lenses])
------------------------------------------------------------------------------------------------------------
- [`audit`][holdout.audit.audit]                   the lenses the registry finds for an evidence ->
  [`Lenses`][holdout.audit.Lenses], one DataFrame per lens; on a correctness matrix: an
  [`AuditResult`][holdout.audit.AuditResult] (shown as its verdicts in a notebook).
- [`Lenses`][holdout.audit.Lenses]                  the lenses that ran: ``frames``, ``verdicts()``.
- ``LENSES``                            the lenses of the predictions audit, in report order.

The run ([`holdout.audit.run`][holdout.audit.run])
----------------------------------
- [`run_audit`][holdout.audit.run_audit]               predictions in, [`AuditResult`][holdout.audit.AuditResult] out
  (pure).
- [`write_audit`][holdout.audit.write_audit]             the tables, figures, ``summary.json`` and ``report.html``.
- [`AuditOptions`][holdout.audit.AuditOptions]           the lenses to run and their settings.
- [`AuditError`][holdout.audit.AuditError]             bad input; one line naming the file or option.

Also importable from here, as before: ``accuracy_lens``, ``new_set_lens``, ``similarity_lens``,
``bounds_lens``, ``rvw_lens``, ``selection_bits``, ``load_audit_predictions``
([`holdout.audit.engines.core`][holdout.audit.engines.core]). The command line:
[`holdout.audit.cli`][holdout.audit.cli]; the workflow's own models:
[`holdout.audit.engines.own_models`][holdout.audit.engines.own_models].
The audit is built on the studies; no study imports it. Nothing here imports torch.
"""

from holdout.audit.engines.core import (  # noqa: F401
    AuditError,
    accuracy_lens,
    bounds_lens,
    load_audit_predictions,
    new_set_lens,
    rvw_lens,
    selection_bits,
    similarity_lens,
)
from holdout.audit.evidence import Evidence, LensResult  # noqa: F401
from holdout.audit.notebook import Lenses, audit, read_logs
from holdout.audit.readers.accuracies import read_accuracies  # noqa: F401
from holdout.audit.readers.dates import with_dates  # noqa: F401
from holdout.audit.readers.matrix import read_matrix  # noqa: F401
from holdout.audit.readers.predictions import read_predictions  # noqa: F401
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
    "Lenses",
    "audit",
    "read_accuracies",
    "read_logs",
    "read_matrix",
    "read_predictions",
    "run_audit",
    "write_audit",
]
