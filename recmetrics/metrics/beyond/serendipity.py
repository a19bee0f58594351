"""Serendipity: the share of a list that is both relevant and unexpected to its user."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._kernels import CHUNK_CELLS
from ..._validation import check_bool, check_choice, check_k, truth_relevance
from ...inputs.lists import _read_lists
from ._common import _check_n_items
from ._pieces import _fill_doc
from ._presets import _resolve
from ._side import _by_popularity, _counts, _membership, _membership_table, _user_rows
from .diversity import _Space

__all__ = ["serendipity"]


def _relevant_rows(truth):
    """The relevant rows of a graded truth frame (a ``relevance`` column: grade > 0)."""
    column = truth_relevance(truth, None) if isinstance(truth, pd.DataFrame) else None
    if column is None:
        return truth
    grades = pd.to_numeric(truth[column], errors="coerce")
    if grades.isna().any():
        raise ValueError(f"truth column {column!r} must hold numeric grades")
    return truth[grades.to_numpy() > 0]


@_fill_doc
def serendipity(
    recommended,
    truth,
    *,
    k=None,
    expectedness=None,
    popularity=None,
    n_primitive=None,
    history=None,
    features=None,
    distance=None,
    n_items=None,
    per_user=False,
    user="user",
    item="item",
    convention=None,
    items=None,
):
    """Serendipity: the share of a list that is both relevant and unexpected.

    .. math:: \\mathrm{Ser}(L_u) = \\frac{1}{|L_u|} \\sum_{i \\in L_u}
              \\mathrm{rel}(u, i)\\, \\mathrm{unexp}(u, i)

    with ``rel`` 1 for the user's relevant (held-out) items and 0 otherwise,
    and the expectedness model chosen by ``expectedness``:

    * ``'popularity'`` (Murakami et al. 2008; Ge et al. 2010): an item is
      expected if a primitive model recommends it, here the
      ``n_primitive`` most popular training items (the user's own training
      items excluded when ``history`` is given); ``unexp`` is 0 or 1;
    * ``'history'`` (Kaminskas & Bridge 2016): ``unexp(u, i)`` is the mean
      distance between ``i`` and the items of the user's history (the
      content-based unexpectedness; Microsoft Recommenders uses its
      complement, 1 - mean cosine similarity);
    * ``'rank'`` (RecTools, after a Lab41 blog post): ``unexp(u, i) =
      max(0, p(i) - pu(i))`` with ``p(i) = (n + 1 - r) / n`` for the item's
      rank ``r`` in the list and ``pu(i) = (n + 1 - s) / n`` for its
      dense popularity rank ``s`` among the training items (0 for items
      absent from training), ``n = n_items``.

    Parameters
    ----------
    %(b_recommended)s
    truth : pandas.DataFrame or sequence of collections
        The relevant items of each user: a long DataFrame (``user``,
        ``item``; with a column ``relevance`` of grades, as
        :func:`~recmetrics.read_trec_qrels` gives, only its rows with a
        grade > 0 are relevant), or one collection of items per list.
    %(b_k)s
    expectedness : {'popularity', 'history', 'rank'}, optional
        The model of what the user expects; ``None`` means
        ``'popularity'``.
    popularity : pandas.DataFrame, Series or dict, optional
        The training interactions (or counts per item) for the primitive
        model of ``'popularity'``.
    n_primitive : int, optional
        Length of the primitive model's list; ``None``: the largest rank
        in the lists (the length of the longest list when ranks have no
        gaps).
    history : pandas.DataFrame or sequence of collections, optional
        Each user's training items: needed by ``'history'``; with
        ``'popularity'``, removes them from the primitive list.
    features : pandas.DataFrame or dict, optional
        Item features for ``'history'`` (as in :func:`intra_list_diversity`).
    distance : {'jaccard', 'cosine', 'precomputed'}, optional
        The distance of ``'history'``; ``None`` means ``'cosine'``.
    n_items : int, optional
        Catalogue size, for ``'rank'``.
    %(beyond_per_user)s
    user, item : str, default 'user', 'item'
        Column names of ``truth`` and ``history`` DataFrames.
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    novelty, intra_list_diversity

    References
    ----------
    .. [1] T. Murakami, K. Mori and R. Orihara. Metrics for evaluating the
       serendipity of recommendation lists. JSAI 2007, LNAI 4914, 2008.
    .. [2] M. Ge, C. Delgado-Battenfeld and D. Jannach. Beyond accuracy:
       evaluating recommender systems by coverage and serendipity. RecSys 2010.
    .. [3] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
       Coverage. ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> train = pd.DataFrame({"user": [1, 2, 3], "item": ["a", "a", "b"]})
    >>> serendipity([["a", "c"]], [{"a", "c"}], popularity=train, n_primitive=1)
    0.5
    >>> genres = {"a": {"Drama"}, "b": {"Drama"}, "c": {"Comedy"}}
    >>> serendipity([["a", "c"]], [{"a", "c"}], expectedness="history",
    ...             history=[["b"]], features=genres)
    0.5
    """
    opts = _resolve(
        "serendipity",
        convention,
        {"expectedness": expectedness, "distance": distance},
        {"expectedness": "popularity", "distance": "cosine"},
    )
    check_choice(opts["expectedness"], "expectedness", ("popularity", "history", "rank"))
    per_user = check_bool(per_user, "per_user")
    lists = _read_lists(recommended, k, items=items)
    rel = _membership(lists, _relevant_rows(truth), "truth", user, item)
    if opts["expectedness"] != "rank" and n_items is not None:
        raise TypeError("n_items applies only to expectedness='rank'")
    if opts["expectedness"] == "rank":
        if popularity is None:
            raise TypeError("expectedness='rank' needs popularity= (training interactions)")
        if history is not None or features is not None or n_primitive is not None:
            raise TypeError("history, features and n_primitive do not apply to expectedness='rank'")
        unexp = _unexpected_by_rank(lists, _counts(popularity, lists), n_items)
    elif opts["expectedness"] == "popularity":
        if popularity is None:
            raise TypeError("expectedness='popularity' needs popularity= (training interactions)")
        if features is not None:
            raise TypeError("features apply only to expectedness='history'")
        n_p = int(lists.pos.max()) if n_primitive is None else check_k(n_primitive, "n_primitive")
        ranked = _by_popularity(_counts(popularity, lists))
        expected = _expected_by_popularity(lists, ranked, n_p, history, user, item)
        unexp = (~expected).astype(np.float64)
    else:
        if history is None or features is None:
            raise TypeError("expectedness='history' needs history= and features=")
        if n_primitive is not None or popularity is not None:
            raise TypeError("popularity and n_primitive apply only to expectedness='popularity'")
        unexp = _distance_to_history(lists, history, features, opts["distance"], user, item)
    return lists.per_user(rel * unexp, per_user)


def _unexpected_by_rank(lists, counts, n_items):
    """``expectedness='rank'``: ``max(0, p(i) - pu(i))`` of every list entry (RecTools)."""
    n = _check_n_items(n_items, len(lists.items))
    dense = pd.Series(counts.rank(method="dense", ascending=False).to_numpy(), counts.index)
    s_rank = dense.reindex(lists.items).to_numpy()[lists.code]
    pu = np.where(np.isnan(s_rank), 0.0, (n + 1 - s_rank) / n)
    return np.maximum((n + 1 - lists.pos) / n - pu, 0.0)


def _expected_by_popularity(lists, ranked, n_p, history, user, item):
    """``expectedness='popularity'``: whether the primitive model recommends each list entry.

    The primitive list holds the ``n_p`` most popular items (``ranked``:
    item ids by decreasing popularity), without the user's own ``history``
    items when it is given.
    """
    if history is None:
        return pd.Index(lists.items).isin(ranked[:n_p])[lists.code]
    # the primitive list of each user: the most popular items not in
    # their history; an item is expected if it is in it
    seen = _membership_table(lists, history, "history", user, item)
    pos_in = pd.Series(np.arange(len(ranked)), index=ranked)
    item_rank = pos_in.reindex(lists.items).to_numpy()  # NaN: unseen in training
    # the user's seen items above each popularity position
    top_seen = _seen_above(seen, pos_in, lists.n_users)
    r = item_rank[lists.code]
    # the item is in the primitive list if fewer than n_p unseen items rank above it
    above_unseen = r - top_seen(lists.owner, r)
    is_seen = seen.contains(lists.owner, lists.code)
    return ~np.isnan(r) & ~is_seen & (above_unseen < n_p)


def _seen_above(seen, pos_in, n_users):
    """A function ``(owner, r) -> number of the user's seen items ranked above position r``."""
    r_seen = pos_in.reindex(pd.Index(seen.ids_all, dtype=object)).to_numpy()
    ok = ~np.isnan(r_seen)
    own, rs = seen.owner_all[ok], r_seen[ok]
    pairs = np.unique(np.stack([own, rs], axis=1), axis=0) if own.size else np.zeros((0, 2))
    key = pairs[:, 0] * (len(pos_in) + 1) + pairs[:, 1]

    def count(owner, r):
        r = np.where(np.isnan(r), len(pos_in), r)
        lo = np.searchsorted(key, owner * (len(pos_in) + 1), side="left")
        hi = np.searchsorted(key, owner * (len(pos_in) + 1) + r, side="left")
        return (hi - lo).astype(np.float64)

    return count


def _distance_to_history(lists, history, features, distance, user, item):
    """Mean distance of each list entry to the items of its user's history (NaN: no history)."""
    owner_h, ids_h, _ = _user_rows(history, lists, "history", user=user, item=item)
    hcode, hist_items = pd.factorize(pd.Index(ids_h, dtype=object))
    # one item space over the recommended and the history items
    all_items = pd.Index(lists.items).append(pd.Index(hist_items)).drop_duplicates()
    space = _Space(features, all_items, distance, lists)
    lcode = all_items.get_indexer(pd.Index(lists.items))[lists.code]
    hcode = all_items.get_indexer(pd.Index(hist_items))[hcode]
    n = lists.n_users
    n_hist = np.bincount(owner_h, minlength=n).astype(np.float64)
    if space.kind == "cosine":
        f = space.unit.shape[1]
        mean_vec = np.zeros((n, f))
        for j in range(f):
            mean_vec[:, j] = np.bincount(owner_h, weights=space.unit[hcode, j], minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_vec /= n_hist[:, None]
        return 1.0 - np.einsum("ef,ef->e", space.unit[lcode], mean_vec[lists.owner])
    # pairs (list entry, history item of the same user), in blocks of entries
    order = np.argsort(owner_h, kind="stable")
    hsorted = hcode[order]
    start = np.concatenate([[0], np.cumsum(np.bincount(owner_h, minlength=n))])
    out = np.empty(lists.code.shape[0])
    reps = n_hist[lists.owner].astype(np.int64)
    bounds = np.concatenate([[0], np.cumsum(reps)])
    e = 0
    while e < out.shape[0]:
        block = max(CHUNK_CELLS // space.width, 1)
        stop = int(np.searchsorted(bounds, bounds[e] + block, side="right")) - 1
        stop = max(stop, e + 1)
        idx = np.arange(e, stop)
        r = reps[idx]
        ent = np.repeat(idx, r)
        offs = np.arange(ent.shape[0]) - np.repeat(np.cumsum(r) - r, r)
        hidx = hsorted[start[lists.owner[ent]] + offs]
        d = space.pairs(lcode[ent], hidx)
        sums = np.bincount(ent - e, weights=d, minlength=idx.shape[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            out[e:stop] = sums / r
        e = stop
    return out
