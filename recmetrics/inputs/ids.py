"""Ids and frames of interactions, read and checked the same way everywhere.

The bottom of the input layer (no import from the rest of the package but
:mod:`recmetrics._validation`): what kind of ids a collection holds, ids of
two collections aligned (integers and whole floats matched with a warning,
other mixes refused), a catalogue of ids as a unique :class:`pandas.Index`,
and the checks of a long frame of interactions (its columns present and
complete, a time column of numbers or datetimes, no (user, item) pair twice).
:mod:`recmetrics.split` and :mod:`recmetrics.beyond` use them (and
``recmetrics.split`` re-exports them, for the code that imports them from
there).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._validation import MAX_EXACT_INT

# --------------------------------------------------------------------------
# ids of two collections: the same type, or aligned with a warning
_KINDS = {
    "integer": "int",
    "floating": "float",
    "mixed-integer-float": "float",
    "string": "str",
    "boolean": "bool",
    "datetime64": "datetime",
    "datetime": "datetime",
    "mixed-integer": "mixed",
}


def _id_kind(values):
    """The kind of ids in ``values``: 'int', 'float', 'str', 'bool', 'mixed', 'empty', ..."""
    dtype = getattr(values, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        values = values.dtype.categories
    if not isinstance(values, (pd.Series, pd.Index, np.ndarray)):
        values = pd.Index(list(values), dtype=object)
    kind = pd.api.types.infer_dtype(values, skipna=True)
    return _KINDS.get(kind, kind)


def _show(x):
    """An id for a message: NumPy scalars as the Python values they hold."""
    return x.item() if isinstance(x, np.generic) else x


def _dtype_text(values):
    dtype = getattr(values, "dtype", None)
    return str(dtype) if dtype is not None else type(values).__name__


def _whole(values):
    """Whether the numbers in ``values`` are finite whole numbers that int64 holds exactly."""
    arr = pd.to_numeric(pd.Series(np.asarray(values, dtype=object)), errors="coerce").to_numpy(
        dtype=np.float64
    )
    return bool(
        np.all(np.isfinite(arr))
        and np.all(arr == np.round(arr))
        and np.all(np.abs(arr) <= MAX_EXACT_INT)
    )


def _as_int_ids(values):
    """Whole float ids as int64, in the same container (Series, Index or array)."""
    if isinstance(values, pd.Series):
        return values.astype(np.int64)
    if isinstance(values, pd.Index):
        return values.astype(np.int64)
    return np.asarray(values, dtype=np.float64).astype(np.int64)


def _as_float_ids(values):
    """Integer ids as float64, in the same container."""
    if isinstance(values, (pd.Series, pd.Index)):
        return values.astype(np.float64)
    return np.asarray(values, dtype=np.float64)


def _align_ids(values, ref, name, ref_name, *, hint="", to_ref=False):
    """``(values, ref)`` as ids that compare equal where they name the same thing.

    Ids of one kind are returned unchanged. Integer ids on one side and
    whole-number float ids on the other are matched as integers (with
    ``to_ref``, ``values`` takes the type of ``ref`` instead and ``ref`` is
    left alone), with a :class:`UserWarning`. Any other pair of kinds (e.g.
    integers and strings) never matches: :class:`TypeError` naming both and
    their dtypes.
    """
    kv, kr = _id_kind(values), _id_kind(ref)
    if kv == kr or "empty" in (kv, kr) or "mixed" in (kv, kr):
        return values, ref
    if {kv, kr} == {"int", "float"}:
        floats = values if kv == "float" else ref
        if _whole(floats):
            warnings.warn(
                f"{name} holds {kv} ids ({_dtype_text(values)}) and {ref_name} {kr} ids "
                f"({_dtype_text(ref)}); they are matched as integers",
                UserWarning,
                stacklevel=4,
            )
            if kv == "float":
                return _as_int_ids(values), ref
            if to_ref:
                return _as_float_ids(values), ref
            return values, _as_int_ids(ref)
    raise TypeError(
        f"{name} holds {kv} ids ({_dtype_text(values)}) but {ref_name} holds {kr} ids "
        f"({_dtype_text(ref)}): they never match; convert one of them to the other's type{hint}"
    )


# --------------------------------------------------------------------------
# frames of interactions: the columns a function reads, checked once
def _check_label(label, keyword):
    if not isinstance(label, Hashable) or isinstance(label, (list, tuple)):
        raise TypeError(f"{keyword} must be a column name, got {label!r}")
    return label


def _frame(data, name, columns):
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas DataFrame (one row per interaction), "
            f"got {type(data).__name__}"
        )
    for c in columns:
        _check_label(c, "a column name")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"{name} has no column {missing[0]!r}; columns are {list(data.columns)}")
    for c in columns:
        if int(np.sum(data.columns == c)) > 1:
            raise ValueError(f"{name} has two columns named {c!r}")
    if data.empty:
        raise ValueError(f"{name} is empty")
    for c in columns:
        col = data[c]
        if col.isna().any():
            raise ValueError(
                f"{name} has missing values in column {c!r} (row {col.index[col.isna()][0]!r})"
            )
        if col.dtype.kind == "f" and np.isinf(col.to_numpy()).any():
            raise ValueError(f"{name} has an infinite value in column {c!r}")
    return data


def _check_time(data, time, name):
    """A time column holds numbers or datetimes (not strings, not booleans)."""
    col = data[time]
    if not (
        pd.api.types.is_datetime64_any_dtype(col)
        or (pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col))
    ):
        raise TypeError(f"{name}[{time!r}] must hold numbers or datetimes, got dtype {col.dtype}")
    return col


def _check_no_duplicates(data, user, item, name):
    dup = data.duplicated(subset=[user, item])
    if dup.any():
        row = data[dup].iloc[0]
        raise ValueError(
            f"{name} holds the pair ({_show(row[user])!r}, {_show(row[item])!r}) twice; "
            "aggregate repeated interactions first (e.g. keep the last)"
        )


def _id_index(ids, name):
    """A catalogue of ids (users or items) as a unique pandas Index without missing values."""
    if ids is None or isinstance(ids, (str, bytes, set, frozenset, Mapping)):
        raise TypeError(
            f"{name} must be an ordered sequence of ids (list, array or pandas Index), "
            f"got {type(ids).__name__}"
        )
    try:
        flat = not isinstance(ids, pd.DataFrame) and not sp.issparse(ids) and np.ndim(ids) == 1
    except ValueError:  # ragged nested sequences
        flat = False
    if not flat:
        raise TypeError(f"{name} must be one-dimensional (one id per row or column)")
    index = pd.Index(ids)
    if len(index) == 0:
        raise ValueError(f"{name} is empty")
    if index.hasnans:
        raise ValueError(f"{name} holds a missing id")
    if not index.is_unique:
        raise ValueError(f"{name} repeats the id {_show(index[index.duplicated()][0])!r}")
    return index
