"""The public inputs: fetching with checksums, and converters into the predictions format.

Fetching ([`holdout.data.fetch`][holdout.data.fetch])
------------------------------------
- [`fetch`][holdout.data.fetch]                           copy from a mirror or download, verify, rename into place.
- [`checksum_of`][holdout.data.checksum_of]                     a file's md5 / sha256 digest.
- [`verify_checksum`][holdout.data.verify_checksum]                 the digest against ``md5:<hex>`` / ``sha256:<hex>``.

Data sets and published predictions ([`holdout.data.core`][holdout.data.core])
--------------------------------------------------------------
- [`load_cifar10`][holdout.data.load_cifar10]                    the python-pickle CIFAR-10 archive (Krizhevsky 2009).
- [`convert_cifar10_1_predictions`][holdout.data.convert_cifar10_1_predictions]   the 30 models of Recht et al. (2018),
  Table 1.
- [`convert_imagenet_testbed`][holdout.data.convert_imagenet_testbed]        top-1 of the 67 ImageNet testbed models
  (Mania et al. 2019).
- [`describe`][holdout.data.describe]                        a short summary of a predictions set.

A user's own models ([`holdout.data.user`][holdout.data.user])
----------------------------------------------
- [`read_user_labels`][holdout.data.read_user_labels]                labels from CSV or NPY.
- [`read_user_predictions`][holdout.data.read_user_predictions]           a K x n prediction matrix from CSV or NPY.
- [`convert_user_predictions`][holdout.data.convert_user_predictions]        both into the predictions format.

Errors: [`DataError`][holdout.data.DataError] (each message names the file and the fix). What the offline mirror
holds: [`holdout.data.availability`][holdout.data.availability].
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
