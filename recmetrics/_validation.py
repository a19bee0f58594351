"""Input checking shared by every public function of :mod:`recmetrics`.

Every check raises :class:`TypeError` (wrong kind of object) or
:class:`ValueError` (right kind, wrong content) with a message that names the
argument and says what was wrong, so that a bad call never produces a silent
wrong number or a traceback from deep inside NumPy.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

__all__ = [
    "as_numeric_array",
    "check_same_length",
    "check_k",
    "check_ks",
    "check_choice",
    "check_positive_number",
    "check_unique_items",
    "check_fraction",
    "check_bool",
    "check_integers",
    "check_n_items",
    "check_seed",
    "MAX_EXACT_INT",
    "truth_relevance",
]

# Integers up to 2**53 are exact in float64; beyond, neighbours merge.
MAX_EXACT_INT = 2**53


def _describe(x) -> str:
    return type(x).__name__


def as_numeric_array(
    x,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    allow_empty: bool = False,
    allow_nan: bool = False,
    allow_inf: bool = False,
    nonnegative: bool = False,
    dtype=np.float64,
    allow_bool: bool = False,
) -> np.ndarray:
    """Convert ``x`` to a finite numeric NumPy array or raise a clear error.

    Parameters
    ----------
    x : array-like
        The value to check.
    name : str
        The argument name used in error messages.
    ndim : int or tuple of int, optional
        Accepted number(s) of dimensions.
    allow_empty : bool
        Whether an array with no elements is accepted.
    allow_nan, allow_inf : bool
        Whether NaN / infinite values are accepted.
    nonnegative : bool
        Whether negative values are rejected.
    dtype : numpy dtype
        The dtype of the returned array.
    allow_bool : bool
        Whether booleans are read as 0/1 (relevance labels such as
        ``test > 0``); otherwise they are refused, since a boolean rating or
        score is most likely a mistake.

    Examples
    --------
    >>> as_numeric_array([1, 2.5], "y_true")
    array([1. , 2.5])
    >>> as_numeric_array([1, float("nan")], "y_pred")
    Traceback (most recent call last):
    ...
    ValueError: y_pred contains NaN at position 1; remove or impute missing values first
    """
    if x is None:
        raise TypeError(f"{name} must be array-like of numbers, got None")
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be array-like of numbers, got a string")
    if isinstance(x, (set, frozenset, dict)):
        raise TypeError(f"{name} must be an ordered array-like of numbers, got {_describe(x)}")
    if hasattr(x, "toarray") and hasattr(x, "nnz"):
        raise TypeError(f"{name} must be a dense array here, got a scipy.sparse matrix")
    try:
        raw = np.asarray(x)
    except ValueError as exc:  # ragged nested sequences
        raise ValueError(f"{name} must be a rectangular array of numbers ({exc})") from None
    if raw.dtype == object:
        # Mixed Python objects: accept only real numbers (not None, not strings).
        bad = next(
            (
                v
                for v in raw.ravel()
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)
            ),
            None,
        )
        if bad is not None or any(v is None for v in raw.ravel()):
            raise TypeError(
                f"{name} must contain only numbers, found {bad!r} of type {_describe(bad)}"
            )
        if any(
            isinstance(v, numbers.Integral) and abs(int(v)) > MAX_EXACT_INT for v in raw.ravel()
        ):
            raise ValueError(
                f"{name} holds integers beyond 2**53, which float64 cannot represent exactly"
            )
        raw = raw.astype(np.float64)
    if raw.dtype.kind == "b" and allow_bool:
        raw = raw.astype(np.int8)
    if raw.dtype.kind == "b":
        raise TypeError(
            f"{name} must contain numbers, got booleans; convert with .astype(int) if intended"
        )
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"{name} must contain only numbers, got dtype {raw.dtype}")
    arr = raw.astype(dtype, copy=False)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(f"{d}-D" for d in allowed)
            raise ValueError(f"{name} must be {want}, got an array of shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} is empty; at least one value is needed")
    if arr.dtype.kind == "f":
        if not allow_nan:
            nan = np.isnan(arr)
            if nan.any():
                pos = _first_position(nan)
                raise ValueError(
                    f"{name} contains NaN at {pos}; remove or impute missing values first"
                )
        if not allow_inf:
            inf = np.isinf(arr)
            if inf.any():
                pos = _first_position(inf)
                raise ValueError(f"{name} contains an infinite value at {pos}")
    if nonnegative:
        neg = arr < 0
        if neg.any():
            pos = _first_position(neg)
            first = arr[np.unravel_index(np.argmax(neg), arr.shape)]
            raise ValueError(f"{name} must be non-negative, found {first!r} at {pos}")
    return arr


def _first_position(mask: np.ndarray) -> str:
    """Where the first True of ``mask`` is: 'position i', or 'row r, column c' for 2-D."""
    idx = np.unravel_index(int(np.argmax(mask)), mask.shape)
    if len(idx) == 1:
        return f"position {int(idx[0])}"
    if len(idx) == 2:
        return f"row {int(idx[0])}, column {int(idx[1])}"
    return f"index {tuple(int(i) for i in idx)}"


def check_same_length(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    """Raise ``ValueError`` unless ``a`` and ``b`` have the same shape."""
    if a.shape != b.shape:
        raise ValueError(
            f"{name_a} and {name_b} must have the same shape, got {a.shape} and {b.shape}"
        )


def check_k(k, name: str = "k", *, allow_none: bool = False) -> int | None:
    """Return ``k`` as a Python int >= 1 or raise.

    Examples
    --------
    >>> check_k(10)
    10
    >>> check_k(0)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 1, got 0
    """
    if k is None:
        if allow_none:
            return None
        raise TypeError(f"{name} must be an integer >= 1, got None")
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (numbers.Integral,)):
        if isinstance(k, float) and k.is_integer() and k >= 1:
            return int(k)
        raise TypeError(f"{name} must be an integer >= 1, got {k!r} of type {_describe(k)}")
    if k < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {k}")
    return int(k)


def check_ks(ks, name: str = "k") -> list[int]:
    """Accept one cutoff or an iterable of cutoffs; return a list of ints >= 1."""
    if isinstance(ks, Iterable) and not isinstance(ks, (str, bytes)):
        out = [check_k(k, name) for k in ks]
        if not out:
            raise ValueError(f"{name} is empty; give at least one cutoff")
        return out
    return [check_k(ks, name)]


def check_choice(value, name: str, choices: Sequence) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``choices``."""
    if not isinstance(value, Hashable) or value not in choices:
        opts = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {opts}; got {value!r}")


def check_positive_number(x, name: str, *, strict: bool = True) -> float:
    """Return ``x`` as a float, > 0 (or >= 0 when ``strict`` is False)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {x!r} of type {_describe(x)}")
    x = float(x)
    if not np.isfinite(x) or (x <= 0 if strict else x < 0):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {x}")
    return x


def check_fraction(x, name: str) -> float:
    """Return ``x`` as a float in [0, 1] or raise."""
    x = check_positive_number(x, name, strict=False)
    if x > 1:
        raise ValueError(f"{name} must lie in [0, 1], got {x}")
    return x


def check_unique_items(items: Sequence, name: str) -> None:
    """Raise ``ValueError`` if a ranked list repeats an item.

    Examples
    --------
    >>> check_unique_items(["a", "b", "a"], "recommended")
    Traceback (most recent call last):
    ...
    ValueError: recommended contains the item 'a' twice (positions 0 and 2); ...
    """
    seen: dict = {}
    for pos, item in enumerate(items):
        if item is None or (isinstance(item, (float, np.floating)) and item != item):
            raise ValueError(f"{name} contains a missing item id ({item!r}) at position {pos}")
        try:
            first = seen.setdefault(item, pos)
        except TypeError:
            raise TypeError(
                f"{name} must contain hashable item ids, found {item!r} of type {_describe(item)}"
            ) from None
        if first != pos:
            raise ValueError(
                f"{name} contains the item {item!r} twice (positions {first} and {pos}); "
                "a ranked list must not repeat items"
            )


def check_bool(x, name: str) -> bool:
    """Return ``x`` as a bool, or raise ``TypeError`` (the string ``"no"`` is not ``False``).

    Examples
    --------
    >>> check_bool("no", "per_user")
    Traceback (most recent call last):
    ...
    TypeError: per_user must be True or False, got 'no' of type str
    """
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {x!r} of type {_describe(x)}")
    return bool(x)


def check_integers(arr: np.ndarray, name: str, *, minimum: int | None = None) -> None:
    """Raise unless every value of the float array ``arr`` is an exact integer >= ``minimum``.

    Values beyond ``2**53`` are rejected: float64 cannot tell them from their
    neighbours, so ranks or counts that large would silently merge.
    """
    frac = arr != np.round(arr)
    if np.any(frac):
        raise ValueError(
            f"{name} must be integers, found {arr[frac][0]!r} at {_first_position(frac)}"
        )
    if minimum is not None:
        low = arr < minimum
        if np.any(low):
            raise ValueError(
                f"{name} must be >= {minimum}, found {arr[low][0]:g} at {_first_position(low)}"
            )
    big = np.abs(arr) > MAX_EXACT_INT
    if np.any(big):
        raise ValueError(
            f"{name} must be at most 2**53 (larger integers are not exact in float64), "
            f"found {arr[big][0]:.6g} at {_first_position(big)}"
        )


def check_n_items(n_items, n_users: int) -> np.ndarray:
    """Catalogue size (one integer, or one per user) as a float array of length ``n_users``."""
    if isinstance(n_items, (bool, np.bool_)):
        raise TypeError(f"n_items must be a positive integer or one per user, got {n_items!r}")
    arr = as_numeric_array(n_items, "n_items", ndim=(0, 1))
    if arr.ndim == 1 and arr.shape[0] != n_users:
        raise ValueError(
            f"n_items must be one integer or one per user: got {arr.shape[0]} values for "
            f"{n_users} users"
        )
    check_integers(arr.reshape(-1), "n_items", minimum=1)
    return np.broadcast_to(arr, (n_users,)).astype(np.float64)


def check_seed(seed) -> np.random.Generator:
    """A NumPy Generator from ``seed``, the one reading of a seed in the package.

    ``None`` gives a generator seeded from fresh OS entropy (different runs
    differ); a non-negative integer, a ``SeedSequence`` or a
    ``BitGenerator`` seeds a new one; a ``Generator`` is used as it is.
    Booleans, floats and negative integers raise.

    Examples
    --------
    >>> check_seed(0).integers(10) == check_seed(0).integers(10)
    np.True_
    >>> isinstance(check_seed(None), np.random.Generator)
    True
    >>> check_seed(1.5)
    Traceback (most recent call last):
    ...
    TypeError: seed must be None, a non-negative integer or a numpy.random.Generator, got 1.5 ...
    """
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (np.random.BitGenerator, np.random.SeedSequence)):
        return np.random.default_rng(seed)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(
            "seed must be None, a non-negative integer or a numpy.random.Generator, got "
            f"{seed!r} of type {_describe(seed)}"
        )
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    return np.random.default_rng(int(seed))


def check_probability(x, name: str, *, open: bool = True) -> float:
    """Return ``x`` as a float in (0, 1) (``open=True``) or [0, 1] (``open=False``), or raise.

    For significance levels, confidence levels and powers: a bool, a string
    or ``None`` raises :class:`TypeError`; NaN or a value outside the
    interval (such as ``95`` for a 95 % level) raises :class:`ValueError`.

    Examples
    --------
    >>> check_probability(0.05, "alpha")
    0.05
    >>> check_probability(95, "level")
    Traceback (most recent call last):
    ...
    ValueError: level must be a number in (0, 1), got 95
    """
    interval = "(0, 1)" if open else "[0, 1]"
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a number in {interval}, got {x!r} of type {_describe(x)}")
    value = float(x)
    inside = (0.0 < value < 1.0) if open else (0.0 <= value <= 1.0)
    if not inside:  # also NaN
        raise ValueError(f"{name} must be a number in {interval}, got {x!r}")
    return value


def check_count(x, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``x`` as a Python int in [``minimum``, ``maximum``], or raise.

    Only integers (Python or NumPy, not bools) are counts: a float such as
    ``1e4`` raises :class:`TypeError` rather than being truncated.

    Examples
    --------
    >>> check_count(2000, "n_resamples")
    2000
    >>> check_count(0, "n_resamples")
    Traceback (most recent call last):
    ...
    ValueError: n_resamples must be an integer >= 1, got 0
    """
    bound = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be an integer {bound}, got {x!r} of type {_describe(x)}")
    if x < minimum or (maximum is not None and x > maximum):
        raise ValueError(f"{name} must be an integer {bound}, got {x!r}")
    return int(x)


# the column of a truth frame read as graded relevance when ``relevance=None``
DEFAULT_RELEVANCE = "relevance"


def truth_relevance(truth, relevance):
    """The graded-relevance column of a long ``truth`` frame: the one default.

    ``relevance`` when given; without it (``None``), the column named
    ``'relevance'`` when ``truth`` has one (the column that
    :func:`recmetrics.io.read_trec_qrels` writes: grades, 0 = judged
    non-relevant), else ``None``: every row of ``truth`` is relevant with
    gain 1. Every reader of truth frames (pandas, Dask or Spark: anything
    with ``columns``) calls this, so that a qrels frame's zero grades are
    never read as relevant by default. To read every row as relevant
    whatever its grade, drop the column. For anything without columns the
    result is ``relevance`` as given (its reader then says what is wrong).

    Examples
    --------
    >>> import pandas as pd
    >>> truth_relevance(pd.DataFrame({"user": [1], "item": [2], "relevance": [0]}), None)
    'relevance'
    >>> truth_relevance(pd.DataFrame({"user": [1], "item": [2]}), None) is None
    True
    >>> truth_relevance(pd.DataFrame({"user": [1], "item": [2], "grade": [3]}), "grade")
    'grade'
    """
    if relevance is not None:
        return relevance
    columns = getattr(truth, "columns", None)  # pandas, Dask and Spark frames
    if columns is None:
        return None
    return DEFAULT_RELEVANCE if DEFAULT_RELEVANCE in list(columns) else None
