"""Constants, the ill-conditioning warning and the input checks of :mod:`recmetrics.sampled`."""

from __future__ import annotations

import numbers

import numpy as np

from .._docs import fill_doc
from .._validation import MAX_EXACT_INT, as_numeric_array, check_bool, check_k

_EPS = np.finfo(np.float64).eps
#: integers up to 2**53 are exact in float64
_MAX_EXACT = MAX_EXACT_INT  # 2**53: larger integers are not exact in float64

CORRECTION_METHODS = ("sampled", "unbiased_rank", "minimal_bias", "bias_variance", "monotone")
_ROUNDINGS = ("round", "floor", "ceil", "interpolate")
_SOLVERS = ("auto", "quadrature", "dense")
#: default trade-off weight of method="bias_variance" (our choice, see correction())
DEFAULT_GAMMA = 0.01
#: warn when the estimated relative error of a minimal-bias vector exceeds this
_TRUST = 1e-6
#: nodes per block of the projection (8192 doubles = 64 kB per vector)
_BLOCK = 8192
#: solver="auto" forms A densely when n (m + 1)^2 is at most this (a few ms)
_DENSE_WORK = 2e7


@fill_doc
class IllConditionedCorrectionWarning(RuntimeWarning):
    """The requested correction is not determined in double precision.

    Issued (with :func:`warnings.warn`) by :func:`correction` when the
    minimal-bias least-squares problem is so ill-conditioned that its
    solution changes by more than about one part in a million under rounding
    errors, or when singular values had to be discarded (the answer then
    depends on ``rcond``): with ``3 eps s_max / s_min > 1e-6`` over the
    singular values ``s`` kept,

    .. math:: \\kappa(A) = \\frac{s_{\\max}}{s_{\\min}} > \\frac{10^{-6}}{3\\,\\varepsilon}.

    A subclass of :class:`RuntimeWarning`, so it can be filtered or turned
    into an error on its own.

    See Also
    --------
    correction : Where it is issued; ``method='bias_variance'`` with
        ``gamma > 0`` or ``method='monotone'`` avoid it.

    References
    ----------
    %(ref_krichene2020)s

    %(ref_lawson1974)s

    Examples
    --------
    >>> import warnings
    >>> from recmetrics import correction
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     x = correction(500, 50, "ndcg@10", method="minimal_bias")
    >>> any(issubclass(w.category, IllConditionedCorrectionWarning) for w in caught)
    True
    """


# ---------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------


def _check_count(x, name):
    """A positive integer (``check_k``) that float64 represents exactly: at most 2**53.

    Ranks and sizes enter floating-point formulas (``(r - 1) / (n - 1)``); beyond
    2**53 neighbouring integers merge, and beyond 2**63 NumPy's int64 overflows.
    """
    k = check_k(x, name)
    if k > _MAX_EXACT:
        raise ValueError(
            f"{name} must be at most 2**53 = {_MAX_EXACT} (larger integers are not exactly "
            f"representable as float64), got {k}"
        )
    return k


def _check_nm(n_items, n_samples, replace):
    n = _check_count(n_items, "n_items")
    if n < 2:
        raise ValueError(
            f"n_items must be >= 2 (one relevant and at least one irrelevant item), got {n}"
        )
    m = _check_count(n_samples, "n_samples")
    replace = check_bool(replace, "replace")
    if not replace and m > n - 1:
        raise ValueError(
            f"n_samples must be <= n_items - 1 = {n - 1} without replacement "
            f"(there are only {n - 1} irrelevant items), got {m}"
        )
    return n, m, replace


def _where(mask):
    idx = np.unravel_index(int(np.argmax(mask)), mask.shape)
    return f"position {int(idx[0])}" if len(idx) == 1 else f"index {tuple(int(i) for i in idx)}"


def _check_ranks(ranks, upper, name, *, ndim=(0, 1), allow_empty=False):
    """1-based integer ranks in ``1..upper`` as an int64 array, or a clear error.

    Integer input is checked as integers (never through float64, which would
    merge neighbours beyond 2**53); float input must be finite and integral.
    Booleans are not ranks.
    """
    if isinstance(ranks, (str, bytes)) or ranks is None:
        raise TypeError(f"{name} must be integer ranks (array-like), got {ranks!r}")
    try:
        raw = np.asarray(ranks)
    except ValueError as exc:  # ragged
        raise ValueError(f"{name} must be a rectangular array of ranks ({exc})") from None
    if raw.dtype == object:
        flat = raw.ravel()
        bad = next(
            (v for v in flat if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)),
            None,
        )
        if bad is not None or any(v is None for v in flat):
            raise TypeError(
                f"{name} must contain only numbers, found {bad!r} of type {type(bad).__name__}"
            )
        big = [v for v in flat if isinstance(v, numbers.Integral) and abs(int(v)) > _MAX_EXACT]
        if big:
            raise ValueError(
                f"{name} must be at most 2**53 = {_MAX_EXACT} (ranks beyond are not exactly "
                f"representable as float64), found {big[0]}"
            )
        raw = raw.astype(np.float64)
    if raw.dtype.kind == "b":
        raise TypeError(f"{name} must be integer ranks, got booleans")
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be integer ranks, got dtype {raw.dtype}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if raw.ndim not in allowed:
            want = " or ".join(f"{d}-D" for d in allowed)
            raise ValueError(f"{name} must be {want}, got an array of shape {raw.shape}")
    if raw.size == 0 and not allow_empty:
        raise ValueError(f"{name} is empty; at least one rank is needed")
    if raw.dtype.kind == "f":
        for bad, what in ((np.isnan(raw), "NaN"), (np.isinf(raw), "an infinite value")):
            if bad.any():
                raise ValueError(
                    f"{name} contains {what} at {_where(bad)}; ranks are integers 1, 2, ..."
                )
        frac = raw != np.floor(raw)
        if frac.any():
            raise ValueError(
                f"{name} must be integers (1-based ranks), found {float(raw[frac].ravel()[0])!r} "
                f"at {_where(frac)}"
            )
    big = np.abs(raw) > _MAX_EXACT
    if big.any():
        raise ValueError(
            f"{name} must be at most 2**53 = {_MAX_EXACT} (ranks beyond are not exactly "
            f"representable as float64), found {raw[big].ravel()[0]:.17g} at {_where(big)}"
        )
    bad = (raw < 1) | (raw > upper)
    if bad.any():
        raise ValueError(
            f"{name} must lie in 1..{upper}, found {raw[bad].ravel()[0]:.17g} at {_where(bad)}"
        )
    return raw.astype(np.int64)


def _check_rcond(rcond):
    if isinstance(rcond, (bool, np.bool_)) or not isinstance(rcond, numbers.Real):
        raise TypeError(
            f"rcond must be None or a real number in [0, 1), got {rcond!r} of type "
            f"{type(rcond).__name__}"
        )
    rcond = float(rcond)
    if not (np.isfinite(rcond) and 0 <= rcond < 1):
        raise ValueError(
            f"rcond must be a finite number in [0, 1), got {rcond} (singular values below rcond * "
            "s_max "
            "are discarded: rcond >= 1 would discard all of them)"
        )
    return rcond


def _check_prior(prior, n):
    if prior is None:
        return None
    p = as_numeric_array(prior, "prior", ndim=1, nonnegative=True)
    if p.shape[0] != n:
        raise ValueError(
            f"prior must have one weight per true rank (n_items={n}), got {p.shape[0]}"
        )
    total = p.sum()
    if not total > 0:
        raise ValueError("prior must have a positive total weight")
    return p / total
