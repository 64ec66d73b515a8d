"""The public inputs: fetching with checksums, and converters into the predictions format.

Fetching (:mod:`holdout.data.fetch`)
------------------------------------
- :func:`fetch`                           copy from a mirror or download, verify, rename into place.
- :func:`checksum_of`                     a file's md5 / sha256 digest.
- :func:`verify_checksum`                 the digest against ``md5:<hex>`` / ``sha256:<hex>``.

Data sets and published predictions (:mod:`holdout.data.core`)
--------------------------------------------------------------
- :func:`load_cifar10`                    the python-pickle CIFAR-10 archive (Krizhevsky 2009).
- :func:`convert_cifar10_1_predictions`   the 30 models of Recht et al. (2018), Table 1.
- :func:`convert_imagenet_testbed`        top-1 of the 67 ImageNet testbed models (Mania et al. 2019).
- :func:`describe`                        a short summary of a predictions set.

A user's own models (:mod:`holdout.data.user`)
----------------------------------------------
- :func:`read_user_labels`                labels from CSV or NPY.
- :func:`read_user_predictions`           a K x n prediction matrix from CSV or NPY.
- :func:`convert_user_predictions`        both into the predictions format.

Errors: :class:`DataError` (each message names the file and the fix). What the offline mirror
holds: :mod:`holdout.data.availability`.
"""

from holdout.data.core import (
    DataError,
    checksum_of,
    convert_cifar10_1_predictions,
    convert_imagenet_testbed,
    convert_user_predictions,
    describe,
    fetch,
    load_cifar10,
    read_user_labels,
    read_user_predictions,
    verify_checksum,
)

__all__ = [
    "DataError",
    "checksum_of",
    "convert_cifar10_1_predictions",
    "convert_imagenet_testbed",
    "convert_user_predictions",
    "describe",
    "fetch",
    "load_cifar10",
    "read_user_labels",
    "read_user_predictions",
    "verify_checksum",
]
