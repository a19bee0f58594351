"""Long data frames in: ``(truth, predictions)`` as every recommender library writes them.

``truth`` holds one row per relevant (user, item) pair, optionally with a
graded ``relevance`` column; ``predictions`` holds one row per scored
(``score`` column) or ranked (``rank`` column, 1 = best) (user, item) pair.
This is the format of RecTools, LensKit, Microsoft Recommenders and of TREC
run files. A pandas DataFrame as the first argument of a metric always means
this long format.

The conversion codes the ids once and places each relevant row among its
user's predictions, with its tie group; no Python loop runs over users.
With numba, one compiled pass per user counts the predictions scored above
and tied with each relevant item, and sorts the user's list only when many
of its relevant items were predicted
(:func:`recmetrics._kernels.frame_places`); without it, the rows are sorted
by (user, score) and a relevant item's place is its position in the sorted
predictions (:mod:`.frame_rows`). Both give the same numbers. The tie
policies are those of score matrices (:func:`recmetrics.from_scores`); for
``ties='trec_eval'`` tied items are ordered by their id in decreasing string
order, as trec_eval orders document numbers.

Which users are evaluated is an explicit policy (``users=``):

* ``'truth'`` (default): every user with a relevant row in ``truth``; a user
  without predictions has an empty list (and scores 0, the honest value for
  a recommender that returned nothing);
* ``'predictions'``: every user with predictions; one missing from ``truth``
  has no relevant item (see ``no_relevant``);
* ``'both'``: users present in both frames only;
* ``'all'``: users present in either frame.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd

from .._kernels import frame_places
from .._validation import check_bool, check_choice, check_n_items, truth_relevance
from ..ranking._representation import TIE_POLICIES, _deterministic
from ..ranking.scores import _entries_from_counts
from .frame_rows import (
    _by_user_score,  # noqa: F401 (read here by tests/test_frames.py)
    _coded_user_index,
    _first_repeat,
    _joint_codes,
    _places_numpy,
    _plain_ids,
    _text_rank,
)

__all__ = ["FRAME_USERS", "from_frames", "is_frame_input"]

FRAME_USERS = ("truth", "predictions", "both", "all")


def is_frame_input(a, b) -> bool:
    """True when the two arguments are the long ``(truth, predictions)`` frames."""
    return isinstance(a, pd.DataFrame) or isinstance(b, pd.DataFrame)


def _column(frame, col, what, name):
    if not isinstance(col, str):
        raise TypeError(f"{what} must be a column name (str), got {col!r}")
    if col not in frame.columns:
        raise ValueError(
            f"{name} has no column {col!r} ({what}=); its columns are {list(frame.columns)}"
        )
    values = frame[col]
    if values.isna().any():
        pos = int(np.argmax(values.isna().to_numpy()))
        raise ValueError(f"{name} has a missing value in column {col!r} (row {pos})")
    return values


def _numbers(values, col, name, *, nonnegative=False, allow_bool=False):
    if allow_bool and values.dtype.kind == "b":
        values = values.astype(np.int8)
    if values.dtype.kind not in "iuf":
        raise TypeError(f"{name} column {col!r} must hold numbers, got dtype {values.dtype}")
    arr = values.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(
            f"{name} column {col!r} has a non-finite value at row {int(np.argmax(bad))}"
        )
    if nonnegative and (arr < 0).any():
        raise ValueError(f"{name} column {col!r} must be >= 0, found {arr[arr < 0][0]:g}")
    return arr


def _no_duplicates(frame, user, item, name):
    dup = frame.duplicated(subset=[user, item]).to_numpy()
    if dup.any():
        _duplicate_error(frame, int(np.argmax(dup)), user, item, name)


def _duplicate_error(frame, pos, user, item, name):
    row = frame.iloc[pos]
    raise ValueError(
        f"{name} holds the pair (user={row[user]!r}, item={row[item]!r}) twice; "
        "each (user, item) pair must appear once"
    )


def _coded_duplicates(frame, user, item, name, codes, first):
    """:func:`_no_duplicates` from integer pair keys, with the same error.

    ``first`` is the first row of the frame (input order) whose (user, item)
    pair an earlier row holds, among the rows where ``codes >= 0`` (a user
    with a code), or -1; the rows of users without one are checked by pandas
    (a repeated pair has one user, so never spans the two sets). The error
    names the first repeated row of the frame.
    """
    coded = codes >= 0
    if not coded.all():
        rest = np.flatnonzero(~coded)
        dup = frame.iloc[rest].duplicated(subset=[user, item]).to_numpy()
        if dup.any():
            pos = int(rest[np.argmax(dup)])
            first = pos if first < 0 else min(first, pos)
    if first >= 0:
        _duplicate_error(frame, first, user, item, name)


def _id_kind(values: pd.Series) -> str:
    """What kind of ids a column holds: 'number', 'text', or pandas' inferred type."""
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _id_kind(pd.Series(dtype.categories))
    if dtype.kind in "iufb":
        return "number"
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("string", "unicode", "bytes"):
        return "text"
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal", "boolean"):
        return "number"
    return inferred


def _first(values):
    v = values.iloc[0]
    return v.item() if isinstance(v, np.generic) else v


def _same_id_kind(t_values, p_values, col, what, stacklevel=4):
    """Refuse ids that cannot match across the frames (``1`` and ``'1'``); warn on int/float.

    An id of ``truth`` matches one of ``predictions`` only if they are equal
    values: integer ids in one frame and strings in the other never match, and
    every user would silently score 0. Integers and floats with the same value
    do match (``1 == 1.0``), which is most often an artefact of reading a file
    with missing values: they are aligned, with a warning.
    """
    if len(t_values) == 0 or len(p_values) == 0:
        return
    tk, pk = _id_kind(t_values), _id_kind(p_values)
    if tk != pk:
        raise TypeError(
            f"the {what} ids cannot match: truth column {col!r} holds {tk} ids "
            f"(dtype {t_values.dtype}, e.g. {_first(t_values)!r}) and predictions column "
            f"{col!r} holds {pk} ids (dtype {p_values.dtype}, e.g. {_first(p_values)!r}); "
            "convert one column to the other's type first"
        )
    kinds = {t_values.dtype.kind, p_values.dtype.kind}
    if tk == "number" and "f" in kinds and kinds & {"i", "u"}:
        warnings.warn(
            f"truth column {col!r} has dtype {t_values.dtype} and predictions column {col!r} "
            f"dtype {p_values.dtype}: {what} ids are matched by value (1 == 1.0)",
            UserWarning,
            stacklevel=stacklevel,
        )


def _user_index(truth_users, pred_users, policy):
    t = pd.Index(pd.unique(truth_users))
    p = pd.Index(pd.unique(pred_users))
    if policy == "truth":
        idx = t
    elif policy == "predictions":
        idx = p
    elif policy == "both":
        idx = t.intersection(p, sort=False)
    else:
        idx = t.append(p[~p.isin(t)])
    try:
        return idx.sort_values()
    except TypeError:  # ids of several types: keep the order of first appearance
        return idx


def _coded_rows(truth, predictions, user, item, users, t_user, p_user, t_item, p_item):
    """The checked ids as codes: users (in the user Index) and items.

    Returns ``(uids, tu, pu, ti, pi, items, coded)``: the user Index, the
    users' places in it (-1: not evaluated) and the items' codes of each row
    of truth and predictions, the Index of items, and whether the ids were
    coded from their values (then the repeated pairs of the predictions are
    still to be refused, from their codes: :func:`_placed_rows`). Refuses
    repeated pairs and ids that cannot match, the repeated pairs first.
    """
    # repeated pairs are found from integer codes when the ids allow (sorting
    # the codes the lookups below need anyway); else by pandas, first
    coded = _plain_ids(t_user, p_user) and _plain_ids(t_item, p_item)
    if not coded:
        _no_duplicates(truth, user, item, "truth")
        _no_duplicates(predictions, user, item, "predictions")
    try:
        # warnings name the caller of from_frames' caller, one frame further out
        _same_id_kind(t_user, p_user, user, "user", stacklevel=5)
        _same_id_kind(t_item, p_item, item, "item", stacklevel=5)
    except TypeError:
        if coded:  # a repeated pair is reported first, as without codes
            _no_duplicates(truth, user, item, "truth")
            _no_duplicates(predictions, user, item, "predictions")
        raise

    if coded:  # each column hashed once: codes, then the few distinct ids looked up
        tu, pu, distinct = _joint_codes(t_user, p_user)
        uids = _coded_user_index(tu, pu, distinct, users)
        uids = _user_index(t_user, p_user, users) if uids is None else uids
        where = uids.get_indexer(distinct).astype(np.int64)
        tu, pu = where[tu], where[pu]
        ti, pi, items = _joint_codes(t_item, p_item)
    else:
        uids = _user_index(t_user, p_user, users)
        tu = uids.get_indexer(t_user).astype(np.int64)
        pu = uids.get_indexer(p_user).astype(np.int64)
        items = pd.Index(pd.unique(pd.concat([t_item, p_item], ignore_index=True)))
        ti = items.get_indexer(t_item).astype(np.int64)
        pi = items.get_indexer(p_item).astype(np.int64)
    if coded:  # repeated pairs of truth; those of the predictions: see _placed_rows
        t_coded = tu >= 0
        t_all = (tu * np.int64(len(items)) + ti)[t_coded]
        t_sorted = np.all(t_all[1:] > t_all[:-1])  # then no pair twice, no sort
        t_order = np.arange(t_all.shape[0]) if t_sorted else np.argsort(t_all, kind="stable")
        first = _first_repeat(t_all, t_order)
        first = -1 if first < 0 else int(np.flatnonzero(t_coded)[first])
        _coded_duplicates(truth, user, item, "truth", tu, first)
    return uids, tu, pu, ti, pi, items, coded


def from_frames(
    truth,
    predictions,
    *,
    user="user",
    item="item",
    score=None,
    rank=None,
    relevance=None,
    users="truth",
    n_items=None,
    ties="expected",
    retrieve_nonpositive=True,
    score_dtype=None,
):
    """Ranking from long ``truth`` and ``predictions`` data frames.

    Parameters
    ----------
    truth : pandas.DataFrame
        One row per relevant (user, item) pair; with ``relevance=`` a column
        of grades: > 0 relevant, 0 judged non-relevant, and (as in
        trec_eval's qrels) negative for an item *in the pool but not
        judged* (a sampled pool): unjudged for every metric, except that
        :func:`~recmetrics.infap` counts it among the pooled items. An item
        without a row is unjudged (not in the pool).
    predictions : pandas.DataFrame
        One row per predicted (user, item) pair, with a ``score`` column
        (higher first) or a ``rank`` column (1 = first; distinct per user).
        It may have no rows: every user then has an empty list, and scores 0
        (the value of a recommender that returned nothing).
    user, item : str
        Column names of the ids (any hashable values). The two frames must
        hold ids of the same kind: integer ids in one and strings in the
        other can never match, and raise ``TypeError``; integers and floats
        are matched by value, with a warning.
    score, rank : str, optional
        The column that orders each user's predictions. Give one of them;
        without either, the column ``'score'`` is used.
    relevance : str, optional
        Column of ``truth`` with graded relevance. Default: the column
        ``'relevance'`` when ``truth`` has one (as the frames of
        :func:`~recmetrics.io.read_trec_qrels` do), else every row of
        ``truth`` has gain 1 (to read a ``'relevance'`` column's rows all as
        relevant, drop the column).
    users : {'truth', 'predictions', 'both', 'all'}, default 'truth'
        Which users are evaluated (see the module docstring).
    n_items : int or array-like, optional
        Catalogue size per user, for AUC and true negatives. Default: the
        user's predicted items plus its relevant items that were not
        predicted (these are taken as tied below every prediction).
    ties : str
        Tie policy for equal scores (see :func:`recmetrics.from_scores`).
    retrieve_nonpositive : bool
        ``False``: relevant items scored ``<= 0`` are not retrieved.
    score_dtype : {'float32', 'float64'}, optional
        Compare the scores in this precision (trec_eval compares in single
        precision); default: as given.

    Returns
    -------
    Ranking
        With ``user_ids`` set: the id of each user (row), sorted when the
        ids can be sorted. Metric functions given it return per-user values
        as a ``pandas.Series`` indexed by these ids.

    Examples
    --------
    >>> truth = pd.DataFrame({"user": ["ann", "ann", "bob"], "item": [1, 3, 2]})
    >>> predictions = pd.DataFrame({"user": ["ann"] * 3 + ["bob"] * 2,
    ...                             "item": [1, 2, 3, 1, 2], "score": [0.9, 0.8, 0.7, 0.5, 0.4]})
    >>> r = from_frames(truth, predictions)
    >>> list(r.user_ids), r.ranks().tolist()
    (['ann', 'bob'], [1.0, 3.0, 2.0])
    """
    for frame, name in ((truth, "truth"), (predictions, "predictions")):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(
                f"{name} must be a pandas DataFrame in the long format (one row per user-item "
                f"pair) when the other argument is one, got {type(frame).__name__}"
            )
    relevance = truth_relevance(truth, relevance)
    check_choice(users, "users", FRAME_USERS)
    check_choice(ties, "ties", TIE_POLICIES)
    check_bool(retrieve_nonpositive, "retrieve_nonpositive")
    if score is not None and rank is not None:
        raise TypeError("give either score= or rank=, not both")
    order_col, by_rank = (rank, True) if rank is not None else (score or "score", False)
    t_user = _column(truth, user, "user", "truth")
    t_item = _column(truth, item, "item", "truth")
    p_user = _column(predictions, user, "user", "predictions")
    p_item = _column(predictions, item, "item", "predictions")
    what = "rank" if by_rank else "score"
    values = _numbers(
        _column(predictions, order_col, what, "predictions"), order_col, "predictions"
    )
    if score_dtype is not None:
        check_choice(score_dtype, "score_dtype", ("float32", "float64"))
        if not by_rank:  # compared in that precision: scores equal there are tied
            values = _in_precision(values, score_dtype)
    gains = (
        np.ones(len(truth))
        if relevance is None
        else _numbers(
            _column(truth, relevance, "relevance", "truth"),
            relevance,
            "truth",
            allow_bool=True,
        )
    )
    uids, tu, pu, ti, pi, items, coded = _coded_rows(
        truth, predictions, user, item, users, t_user, p_user, t_item, p_item
    )
    n_users = len(uids)
    relevant = gains > 0
    counts, found, s, greater, equal, after, rel = _placed_rows(
        predictions,
        user,
        item,
        coded,
        (tu, ti, relevant),
        (pu, pi, values),
        items,
        n_users,
        ties,
        by_rank,
    )
    if n_users == 0:
        raise ValueError(f"no user to evaluate under users={users!r}")
    keep_t = (tu >= 0) & relevant
    judged_nonrel = (tu >= 0) & ~relevant
    ju = tu[judged_nonrel]
    j_found = found[judged_nonrel]
    j_rows = (greater, equal, after, rel, s)  # (None but s for ranks)
    j_greater, j_equal, j_after, j_rel, j_s = (_rows(x, judged_nonrel) for x in j_rows)
    pooled = gains[judged_nonrel] < 0  # in the pool, not judged (trec_eval's grade -1)
    tu, ti, gains = tu[keep_t], ti[keep_t], gains[keep_t]
    found, s, greater, equal, after = (_rows(x, keep_t) for x in (found, s, greater, equal, after))
    if len(p_user) and not counts.any():
        warnings.warn(
            f"none of the {len(p_user)} prediction rows belongs to a user evaluated under "
            f"users={users!r}: every user scores 0; check that the {user!r} columns of truth "
            "and predictions hold the same ids",
            UserWarning,
            stacklevel=3,
        )
    n_ranked = counts.astype(np.float64)
    unlisted = np.bincount(tu[~found], minlength=n_users).astype(np.float64)
    if n_items is None:
        cat = n_ranked + unlisted
    else:
        cat = check_n_items(n_items, n_users)
        short = cat < n_ranked + unlisted
        if short.any():
            u = int(np.argmax(short))
            raise ValueError(
                f"n_items={cat[u]:g} is smaller than what user {uids[u]!r} needs: {n_ranked[u]:g} "
                f"predicted items plus {unlisted[u]:g} relevant items that were not predicted"
            )

    if by_rank:
        keep_p = pu >= 0
        pu, values = (pu, values) if keep_p.all() else (pu[keep_p], values[keep_p])
        if np.any(values != np.round(values)) or np.any(values < 1):
            raise ValueError(f"predictions column {order_col!r} must hold integer ranks >= 1")
        dup = pd.Series(pu * np.int64(2**31) + values.astype(np.int64)).duplicated().to_numpy()
        if dup.any():
            raise ValueError(
                f"predictions give two items the rank {values[dup][0]:g} for user "
                f"{uids[pu[dup][0]]!r}; ranks must be distinct within a user"
            )
        longest = np.zeros(n_users)
        np.maximum.at(longest, pu, values)
        n_ranked = np.maximum(n_ranked, longest)
        rank_of = np.where(found, s, np.inf)
        r = _deterministic(tu, gains, rank_of, n_users, n_ranked, cat)
        j_start = np.where(j_found, j_s - 1.0, np.inf)
        return _with_judgments(r, uids, ju, j_start, np.ones_like(j_start), n_users, pooled)

    dropped = ~found
    if not retrieve_nonpositive:
        dropped = dropped | (s <= 0)
    r = _entries_from_counts(
        ru=tu,
        rc=ti,
        rg=gains,
        s=s,
        greater=greater,
        equal=equal,
        eq_after=after,
        ties=ties,
        dropped=dropped,
        n_users=n_users,
        n_ranked=n_ranked,
        n_items=cat,
    )
    if not ju.shape[0]:  # no judged non-relevant row: nothing more to place
        return _with_judgments(r, uids, ju, np.empty(0), np.empty(0), n_users, pooled)
    j_start, j_size = _judged_places(ties, j_greater, j_equal, j_after, j_rel)
    j_start = np.where(j_found, j_start, np.inf)
    j_size = np.where(j_found, j_size, 1.0)
    return _with_judgments(r, uids, ju, j_start, j_size, n_users, pooled)


def _placed_rows(predictions, user, item, coded, t_rows, p_rows, items, n_users, ties, by_rank):
    """Each truth row's place among its user's predictions; refuses repeated predicted pairs.

    ``t_rows = (tu, ti, relevant)`` and ``p_rows = (pu, pi, values)`` are the
    coded rows of truth and predictions. Returns ``(counts, found, s,
    greater, equal, after, rel)``: the prediction rows of each user and, per
    truth row, whether its pair was predicted, its score (``-inf`` if not),
    the items above it, the size of its score group (1 if not predicted),
    the group's items before it in trec_eval's order and its relevant truth
    rows (see :func:`recmetrics._kernels.frame_places`: compiled, one pass
    per user, or the same numbers from NumPy).
    """
    (tu, ti, relevant), (pu, pi, values) = t_rows, p_rows
    text_rank = _text_rank(items) if ties == "trec_eval" and not by_rank else None
    placed = frame_places(pu, pi, values, n_users, tu, ti, relevant, text_rank)
    if placed is None:
        placed = _places_numpy(t_rows, p_rows, items, n_users, ties, by_rank)
    counts, first, found, s, greater, equal, after, rel = placed
    if coded:
        _coded_duplicates(predictions, user, item, "predictions", pu, first)
    return counts, found, s, greater, equal, after, rel


def _rows(values, which):
    """``values[which]``, None for None."""
    return None if values is None else values[which]


def _judged_places(ties, above, size, before_in_group, rel_in_group):
    """Where a judged non-relevant item can sit: ``(start, size)`` under the tie policy.

    Its score group (``above`` items higher, ``size`` tied), less the places
    the group's relevant items take first (optimistic) or last
    (pessimistic); trec_eval's order fixes its place.
    """
    if ties == "trec_eval":
        return above + before_in_group, np.ones_like(above)
    if ties == "optimistic":
        return above + rel_in_group, size - rel_in_group
    if ties == "pessimistic":
        return above, size - rel_in_group
    return above, size


def _with_judgments(r, uids, ju, j_start, j_size, n_users, pooled):
    """The Ranking of long frames: user ids, the judged non-relevant and pooled entries.

    ``ju, j_start, j_size``: the user and place of each row of ``truth``
    that is not relevant; ``pooled``: which of them have a negative grade
    (in the pool but not judged), placed as the others.
    """
    j_start = np.asarray(j_start, dtype=np.float64)
    j_size = np.asarray(j_size, dtype=np.float64)

    def entries(rows):
        order = np.lexsort((j_start[rows], ju[rows]))
        indptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(np.bincount(ju[rows], minlength=n_users), out=indptr[1:])
        return indptr, j_start[rows][order], j_size[rows][order]

    nonrel_indptr, nonrel_start, nonrel_size = entries(~pooled)
    pooled_indptr, pooled_start, pooled_size = entries(pooled)
    return replace(
        r,
        user_ids=uids,
        judgments="explicit",
        nonrel_indptr=nonrel_indptr,
        nonrel_start=nonrel_start,
        nonrel_size=nonrel_size,
        pooled_indptr=pooled_indptr,
        pooled_start=pooled_start,
        pooled_size=pooled_size,
    )


def _in_precision(values, score_dtype):
    """The scores rounded to ``score_dtype`` (held as float64: the same order and ties)."""
    if score_dtype == "float32":
        with np.errstate(over="ignore"):
            rounded = values.astype(np.float32)
        if np.isinf(rounded).any() and not np.isinf(values[np.isinf(rounded)]).all():
            raise ValueError(
                "predictions hold scores beyond the float32 range (about 3.4e38), which "
                "score_dtype='float32' would turn into infinity; rescale the scores first"
            )
        return rounded.astype(np.float64)
    return values
