"""Rating-prediction metrics: RMSE and MAE.

For a test set of (user, item) pairs with true ratings :math:`r_{ui}` and
predictions :math:`\\hat r_{ui}`,

.. math::

    \\mathrm{RMSE} = \\sqrt{\\frac{1}{|T|}\\sum_{(u,i)\\in T}(r_{ui}-\\hat r_{ui})^2},
    \\qquad
    \\mathrm{MAE} = \\frac{1}{|T|}\\sum_{(u,i)\\in T}|r_{ui}-\\hat r_{ui}|.

Both exist in two flavours that give different numbers on the same data:
*global* averaging over all test pairs (every rating weighs the same, so heavy
users dominate) and *per-user* averaging (compute the metric for each user,
then average users, so every user weighs the same). The choice is the
``average`` argument.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._docs import fill_doc
from .._validation import as_numeric_array, check_choice, check_k, check_same_length

__all__ = ["rmse", "mae", "rating_errors_by_user"]

_AVERAGES = ("global", "user")


def _prepare(y_true, y_pred, clip):
    t = as_numeric_array(y_true, "y_true", ndim=1)
    p = as_numeric_array(y_pred, "y_pred", ndim=1)
    check_same_length(t, p, "y_true", "y_pred")
    if clip is not None:
        try:
            lo, hi = clip
        except (TypeError, ValueError):
            raise TypeError(f"clip must be a pair (low, high) or None, got {clip!r}") from None
        lo, hi = as_numeric_array([lo, hi], "clip", ndim=1)
        if lo > hi:
            raise ValueError(f"clip must satisfy low <= high, got ({lo}, {hi})")
        p = np.clip(p, lo, hi)
    return t, p


def _users(users, n):
    if users is None:
        raise ValueError("users is required when average='user': give the user of each rating")
    u = np.asarray(users)
    if u.ndim != 1:
        raise ValueError(f"users must be 1-D, got an array of shape {u.shape}")
    if u.shape[0] != n:
        raise ValueError(
            f"users must have one entry per rating: got {u.shape[0]} users for {n} ratings"
        )
    if u.dtype.kind in "US" and not isinstance(users, np.ndarray):
        # numpy turns [1, "1"] into ["1", "1"]: two users would silently merge
        u = np.asarray(users, dtype=object)
    if u.dtype == object:
        kinds = {_id_kind(v) for v in u}
        if len(kinds - {"missing"}) > 1:
            raise TypeError(
                "users mixes ids of different kinds (e.g. the string '1' and the number 1); "
                "convert them to one type first so that no two users are merged or split by "
                "accident"
            )
    missing = np.asarray(pd.isna(u), dtype=bool)
    if missing.any():
        # pandas' groupby would silently drop these ratings from the per-user average.
        pos = int(np.argmax(missing))
        raise ValueError(
            f"users contains a missing id (None or NaN) at position {pos}; every rating needs a "
            "user id"
        )
    return u


def _id_kind(v):
    if v is None or (isinstance(v, float) and v != v):
        return "missing"
    if isinstance(v, (str, bytes)):
        return "text"
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, float, np.number)):
        return "number"
    return type(v).__name__


def _errors(t, p):
    """Prediction errors ``t - p`` as ``(scale, err / scale)``, never overflowing.

    Ratings near the float64 limit make ``t - p`` (and its square) overflow;
    the errors are computed from halved values when needed and returned
    divided by their largest magnitude, so the metrics can be formed
    without overflow and rescaled at the end.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        err = t - p
        factor = 1.0
        if not np.all(np.isfinite(err)):
            err, factor = t * 0.5 - p * 0.5, 2.0
    scale = float(np.max(np.abs(err))) if err.size else 0.0
    if scale == 0.0:
        return 0.0, np.zeros_like(err)
    if factor == 1.0 and 1e-150 < scale < 1e150:
        return 1.0, err  # squares cannot overflow or underflow: no rescaling, exact as usual
    return scale * factor, err / scale


def _finite(value, what):
    if not np.isfinite(value):
        raise ValueError(
            f"{what} is larger than the largest float64 ({np.finfo(np.float64).max:.3g})"
        )
    return float(value)


@fill_doc
def rating_errors_by_user(y_true, y_pred, users, *, clip=None) -> pd.DataFrame:
    """Per-user RMSE and MAE.

    .. math::

        \\mathrm{RMSE}_u = \\sqrt{\\frac{1}{|T_u|}\\sum_{i \\in T_u}(r_{ui}-\\hat r_{ui})^2},
        \\qquad
        \\mathrm{MAE}_u = \\frac{1}{|T_u|}\\sum_{i \\in T_u}|r_{ui}-\\hat r_{ui}|

    over the test pairs ``T_u`` of user ``u``. Their unweighted means over
    users are :func:`rmse` and :func:`mae` with ``average='user'``.

    Parameters
    ----------
    %(rating_y)s
    users : array-like of shape (n_ratings,)
        The user of each test pair (hashable ids of one kind, no missing id).
    %(rating_clip)s

    Returns
    -------
    pandas.DataFrame
        Indexed by user (sorted), with columns ``n_ratings``, ``rmse``, ``mae``.

    See Also
    --------
    rmse, mae : Global or per-user averages.

    References
    ----------
    %(ref_herlocker2004)s

    Examples
    --------
    >>> rating_errors_by_user([4, 2, 5], [3.5, 2, 3], users=["ann", "ann", "bob"])
          n_ratings      rmse   mae
    user
    ann           2  0.353553  0.25
    bob           1  2.000000  2.00
    """
    t, p = _prepare(y_true, y_pred, clip)
    u = _users(users, t.shape[0])
    scale, err = _errors(t, p)
    frame = pd.DataFrame({"user": u, "sq": err * err, "abs": np.abs(err)})
    g = frame.groupby("user", sort=True)
    with np.errstate(over="ignore"):
        out = pd.DataFrame(
            {
                "n_ratings": g.size(),
                "rmse": scale * np.sqrt(g["sq"].mean()),
                "mae": scale * g["abs"].mean(),
            }
        )
    for col in ("rmse", "mae"):
        if not np.all(np.isfinite(out[col])):
            _finite(np.inf, f"the {col.upper()} of a user")
    out.index.name = "user"
    return out


def _average(kind, y_true, y_pred, users, average, clip, min_ratings):
    check_choice(average, "average", _AVERAGES)
    min_ratings = check_k(min_ratings, "min_ratings")
    if average == "global":
        if min_ratings != 1:
            raise ValueError("min_ratings applies only to average='user'")
        t, p = _prepare(y_true, y_pred, clip)
        scale, err = _errors(t, p)
        with np.errstate(over="ignore"):
            if kind == "rmse":
                return _finite(scale * np.sqrt(np.mean(err * err)), "RMSE")
            return _finite(scale * np.mean(np.abs(err)), "MAE")
    table = rating_errors_by_user(y_true, y_pred, users, clip=clip)
    table = table[table["n_ratings"] >= min_ratings]
    if table.empty:
        raise ValueError(f"no user has at least min_ratings={min_ratings} ratings")
    return float(table[kind].mean())


@fill_doc
def rmse(y_true, y_pred, *, users=None, average="global", clip=None, min_ratings=1) -> float:
    """Root mean squared error of rating predictions.

    .. math:: \\mathrm{RMSE} = \\sqrt{\\frac{1}{|T|}\\sum_{(u,i)\\in T}(r_{ui}-\\hat r_{ui})^2}

    over the test pairs ``T``. With ``average='user'`` it is the unweighted
    mean over users of each user's RMSE (see :func:`rating_errors_by_user`).

    Parameters
    ----------
    %(rating_y)s
    %(rating_average)s
    %(rating_clip)s
    %(rating_min_ratings)s

    Returns
    -------
    float
        The RMSE, in rating units.

    Raises
    ------
    ValueError
        On NaN or infinite values, empty inputs or mismatched lengths.
    TypeError
        On non-numeric inputs.

    See Also
    --------
    mae : The mean absolute error, less sensitive to large errors.
    rating_errors_by_user : RMSE and MAE of every user.

    References
    ----------
    %(ref_xiang2012)s

    %(ref_herlocker2004)s

    %(ref_bennett2007)s

    %(ref_chai2014)s

    Examples
    --------
    >>> rmse([4, 3, 5], [3.5, 3, 3])
    1.1902380714238083
    >>> rmse([4, 3, 5], [3.5, 3, 3], users=["a", "a", "b"], average="user")
    1.1767766952966369
    >>> round(rmse([4, 3, 5], [3.5, 3, 6.2], clip=(1, 5)), 4)   # 6.2 is clipped to 5
    0.2887
    """
    return _average("rmse", y_true, y_pred, users, average, clip, min_ratings)


@fill_doc
def mae(y_true, y_pred, *, users=None, average="global", clip=None, min_ratings=1) -> float:
    """Mean absolute error of rating predictions.

    .. math:: \\mathrm{MAE} = \\frac{1}{|T|}\\sum_{(u,i)\\in T}|r_{ui}-\\hat r_{ui}|

    over the test pairs ``T``. With ``average='user'`` it is the unweighted
    mean over users of each user's MAE (see :func:`rating_errors_by_user`).

    Parameters
    ----------
    %(rating_y)s
    %(rating_average)s
    %(rating_clip)s
    %(rating_min_ratings)s

    Returns
    -------
    float
        The MAE, in rating units.

    Raises
    ------
    ValueError
        On NaN or infinite values, empty inputs or mismatched lengths.
    TypeError
        On non-numeric inputs.

    See Also
    --------
    rmse : The root mean squared error, which weighs large errors more.
    rating_errors_by_user : RMSE and MAE of every user.

    References
    ----------
    %(ref_xiang2012)s

    %(ref_herlocker2004)s

    %(ref_willmott2005)s

    Examples
    --------
    >>> mae([4, 3, 5], [3.5, 3, 3])
    0.8333333333333334
    >>> mae([4, 3, 5], [3.5, 3, 3], users=["a", "a", "b"], average="user")
    1.125
    >>> mae([4, 3, 5, 2], [3.5, 3, 3, 2], users=["a", "a", "b", "c"], average="user", min_ratings=2)
    0.25
    """
    return _average("mae", y_true, y_pred, users, average, clip, min_ratings)
