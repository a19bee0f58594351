"""Small checks shared by the beyond-accuracy metrics."""

from __future__ import annotations

import numbers

import numpy as np

from ..._validation import check_positive_number


# --------------------------------------------------------------------------
# checks shared by the metrics
def _check_n_items(n_items, n_distinct, required=True):
    if n_items is None:
        if required:
            raise TypeError("n_items (the catalogue size) is required")
        return None
    if isinstance(n_items, (bool, np.bool_)) or not isinstance(n_items, numbers.Integral):
        raise TypeError(f"n_items must be an integer, got {n_items!r}")
    if n_items < n_distinct:
        raise ValueError(
            f"n_items={n_items} is smaller than the {n_distinct} distinct recommended items"
        )
    return int(n_items)


def _check_base(base):
    base = check_positive_number(base, "base")
    if base == 1:
        raise ValueError("base must differ from 1")
    return base


def _pos_weights(pos, discount):
    return 1.0 / np.log2(pos + 1.0) if discount else np.ones(pos.shape[0])
