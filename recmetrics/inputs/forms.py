"""What the arguments of a metric mean, read from their types.

The one entry from the metric functions to the ranking builders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from .._validation import as_numeric_array, check_choice
from ..ranking import TIE_POLICIES, Ranking, from_gains, from_lists, from_ranks, from_scores
from .frames import from_frames, is_frame_input


# --------------------------------------------------------------------------
# dispatch used by every public metric: the *type* of each argument decides
# what it means, never its values
def _is_listlike(x) -> bool:
    return isinstance(x, (Sequence, np.ndarray)) and not isinstance(x, (str, bytes))


def _is_relevant_collection(x) -> bool:
    return isinstance(x, (set, frozenset, Mapping))


def input_form(a=None, b=None, ranks=None) -> str:
    """Which input form the arguments are, by their types alone.

    One of ``'ranks'``, ``'ranking'``, ``'gains'``, ``'lists'`` (ranked item
    ids with sets/dicts of relevant items) and ``'scores'`` (``y_true``,
    ``y_score``); see :func:`as_ranking`.
    """
    if ranks is not None:
        return "ranks"
    if is_frame_input(a, b):
        return "frames"
    if isinstance(a, Ranking):
        return "ranking"
    if b is None:
        return "gains"
    if _is_relevant_collection(b) or (
        _is_listlike(b)
        and not isinstance(b, np.ndarray)
        and len(b) > 0
        and any(_is_relevant_collection(x) for x in b)
    ):
        return "lists"
    return "scores"


def _check_not_given(name, value, why):
    if value is not None:
        raise TypeError(f"{name} does not apply here: {why}")


def as_ranking(
    a=None, b=None, *, ranks=None, n_items=None, mask=None, ties=None, progress=False, depth=None
):
    """Convert any accepted input form to ``(Ranking, single_user)``.

    ``single_user`` tells the caller to return a float rather than a mean over
    users. What the arguments mean is decided by their *types* alone:

    * ``ranks=...``: ranks of held-out relevant items (:func:`from_ranks`);
    * a :class:`Ranking`: used as it is;
    * one argument: a single list of gains in ranked order (:func:`from_gains`);
    * a second argument that is a ``set``, ``frozenset`` or ``dict`` (or a
      list of them, one per user): ranked item ids and relevant items
      (:func:`from_lists`);
    * any other pair of array-likes: ``(y_true, y_score)``, as in
      scikit-learn (:func:`from_scores`); 1-D arrays are one user, 2-D arrays
      (or a scipy.sparse ``y_true``) are ``(n_users, n_items)``.

    Keywords that do not apply to the input form raise ``TypeError``:
    ``mask`` needs score matrices, ``n_items`` ranked lists or ranks, and a
    prebuilt :class:`Ranking` takes none of them (its ties are already
    resolved: ``ties`` must be left out or equal the policy it was built
    with). ``ties=None`` means ``'expected'``. ``depth`` is passed on to
    :func:`from_scores` (score matrices only; the other forms ignore it).
    """
    if ties is not None:
        check_choice(ties, "ties", TIE_POLICIES)
    if isinstance(a, Ranking):
        if b is not None or ranks is not None:
            raise TypeError("pass either a Ranking or raw inputs, not both")
        _check_not_given("mask", mask, "a prebuilt Ranking has its excluded items removed already")
        _check_not_given("n_items", n_items, "a prebuilt Ranking has its catalogue size already")
        if ties is not None and a.ties is not None and ties != a.ties:
            raise ValueError(
                f"this Ranking was built with ties={a.ties!r}; ties={ties!r} cannot change it "
                "(build the ranking again from the scores with the policy you want)"
            )
        return a, False
    ties = "expected" if ties is None else ties
    if ranks is None and is_frame_input(a, b):
        _check_not_given("mask", mask, "with data frames, leave excluded items out of predictions")
        return from_frames(a, b, n_items=n_items, ties=ties), False
    if ranks is not None:
        if a is not None or b is not None:
            raise TypeError(
                "pass either ranks= or (y_true, y_score) / (recommended, relevant), not both"
            )
        _check_not_given("mask", mask, "ranks are already computed without the excluded items")
        return from_ranks(ranks, n_items=n_items), False
    if a is None:
        raise TypeError(
            "no input given: pass gains, (recommended, relevant), (y_true, y_score) or ranks="
        )
    if b is None:
        if (
            sp.issparse(a)
            or (_is_listlike(a) and len(a) > 0 and _is_listlike(a[0]))
            or (isinstance(a, np.ndarray) and a.ndim == 2)
        ):
            raise TypeError(
                "y_score is missing: a 2-D y_true needs a score matrix of the same shape"
            )
        _check_not_given(
            "mask", mask, "a list of gains has no excluded items (mask needs score matrices)"
        )
        _check_not_given("n_items", n_items, "a list of gains is its own catalogue")
        return from_gains(a), True
    if _is_relevant_collection(b):
        # one user's ranked list and set/dict of relevant items
        _check_not_given(
            "mask", mask, "mask needs score matrices; remove excluded items from the list"
        )
        if not _is_listlike(a):
            raise TypeError(
                "recommended must be an ordered sequence of item ids (best first), got "
                f"{type(a).__name__}"
            )
        nested = next((x for x in a if _is_listlike(x) or _is_relevant_collection(x)), None)
        if nested is not None:
            raise TypeError(
                f"the second argument (y_score) is a {type(b).__name__}, so the first is read "
                "as ONE ranked list of item ids, but it holds a sequence "
                f"({nested!r:.40}); for a matrix y_true pass y_score as an array of scores, "
                "for several users pass one set or dict of relevant items per user"
            )
        return from_lists([a], [b], n_items=n_items), True
    if (
        _is_listlike(b)
        and not isinstance(b, np.ndarray)
        and len(b) > 0
        and any(_is_relevant_collection(x) for x in b)
    ):
        bad = next((i for i, x in enumerate(b) if not _is_relevant_collection(x)), None)
        if bad is not None:
            raise TypeError(
                "relevant must hold one set or dict of relevant items per user; "
                f"relevant[{bad}] is a {type(b[bad]).__name__}"
            )
        _check_not_given(
            "mask", mask, "mask needs score matrices; remove excluded items from the lists"
        )
        if not _is_listlike(a):
            raise TypeError(
                f"recommended must be a sequence of ranked lists, got {type(a).__name__}"
            )
        return from_lists(a, b, n_items=n_items), False
    # any other pair: y_true and y_score, as in scikit-learn
    _check_not_given(
        "n_items",
        n_items,
        "with (y_true, y_score) the catalogue is the columns of the matrices (use mask= to "
        "exclude items)",
    )
    if sp.issparse(b):
        raise TypeError(
            "y_score must be a dense array (scores for every item), got a scipy.sparse matrix"
        )
    if not sp.issparse(a) and not _is_listlike(a):
        raise TypeError(
            "y_true must be an array-like of gains (or the ranked list of a (recommended, "
            "relevant) pair "
            f"whose relevant items are a set or dict), got {type(a).__name__}"
        )
    if not _is_listlike(b):
        raise TypeError(
            "the second argument must be y_score (an array-like of scores), a set or dict of "
            "relevant "
            f"items, or a list of them; got {type(b).__name__}"
        )
    one_user = not sp.issparse(a) and _ndim(a, "y_true") == 1
    if not sp.issparse(a) and _shape(a, "y_true") != _shape(b, "y_score"):
        raise ValueError(
            f"y_true and y_score must have the same shape, got {np.shape(a)} and {np.shape(b)}"
            + _IDS_HINT
        )
    if one_user:
        if _ndim(b, "y_score") != 1:
            raise ValueError(
                "y_true is 1-D (one user) but y_score is not; give both as 1-D or both as 2-D"
            )
        if mask is not None:
            mask = _as_row(mask, "mask")
        return from_scores(
            _as_row(a, "y_true"),
            _as_row(b, "y_score"),
            mask=mask,
            ties=ties,
            progress=progress,
            depth=depth,
        ), True
    return from_scores(a, b, mask=mask, ties=ties, progress=progress, depth=depth), False


_IDS_HINT = (
    " (for ranked lists of item ids, pass each user's relevant items as a set or dict: "
    "two sequences are read as y_true and y_score)"
)


def _shape(x, name):
    """The shape of an array-like, with a clear error for a ragged one."""
    try:
        return np.shape(x)
    except ValueError:
        raise ValueError(
            f"{name} must be a rectangular array of numbers, got a ragged sequence" + _IDS_HINT
        ) from None


def _ndim(x, name):
    """Number of dimensions of an array-like, with a clear error for ragged or non-numeric input."""
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except ValueError:
            raise ValueError(
                f"{name} must be a rectangular array of numbers, got a ragged sequence" + _IDS_HINT
            ) from None
    if arr.dtype == object:
        if arr.ndim >= 1 and arr.size and any(_is_listlike(v) for v in arr.ravel()[:1]):
            raise ValueError(
                f"{name} must be a rectangular array of numbers, got a ragged sequence" + _IDS_HINT
            )
    elif arr.dtype.kind not in "iufb":
        raise TypeError(f"{name} must contain numbers, got dtype {arr.dtype}" + _IDS_HINT)
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one user and one item are needed")
    return arr.ndim


def _as_row(x, name):
    """One user's 1-D array-like as a one-row matrix (keeping integer and float dtypes)."""
    arr = x if isinstance(x, np.ndarray) else np.asarray(x)
    if arr.dtype.kind in "iuf":
        return arr.reshape(1, -1)
    if name == "mask":
        return arr.reshape(1, -1)
    return as_numeric_array(x, name, ndim=1, allow_bool=name == "y_true").reshape(1, -1)
