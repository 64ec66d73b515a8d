"""The audit's readers, one module per input kind; each returns an [`Evidence`][holdout.audit.evidence.Evidence].
No reader imports a lens."""

from holdout.audit.readers.accuracies import read_accuracies
from holdout.audit.readers.dates import with_dates
from holdout.audit.readers.logs import read_logs
from holdout.audit.readers.matrix import read_matrix
from holdout.audit.readers.predictions import read_predictions

__all__ = ["read_accuracies", "read_logs", "read_matrix", "read_predictions", "with_dates"]
