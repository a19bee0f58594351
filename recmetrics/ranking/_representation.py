"""The :class:`Ranking` representation and the constructors shared by its builders."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from .._docs import fill_doc
from .._kernels import segment_sums, tie_groups
from .._validation import check_bool

TIE_POLICIES = ("expected", "optimistic", "pessimistic", "trec_eval")

# Which items a ranking's relevance judgments cover.
JUDGMENTS = ("complete", "explicit")


@fill_doc
@dataclass(frozen=True)
class Ranking:
    """Where each user's relevant items sit in a ranking: the input of every metric.

    Every Top-N metric of a user is a function of the positions of the
    user's relevant items (and of their gains), the ``M(R)`` of Krichene &
    Rendle (2020). A ``Ranking`` stores them once for all users, one entry
    per relevant item (gain > 0), grouped by user in CSR fashion, with the
    *tie group* the item falls in: ``start`` items are ranked strictly above
    the group, which spans positions ``start + 1 .. start + size``. Under a
    deterministic tie policy every group has size 1. Under
    ``ties='expected'`` the item is equally likely to sit at any position of
    its group, and a metric that sums ``f(pos)`` over relevant items takes
    the exact expectation over all orders of the tied items (McSherry &
    Najork, 2008):

    .. math::

        E[f(pos)] = \\frac{1}{size} \\sum_{j=1}^{size} f(start + j).

    Build it with :func:`from_scores`, :func:`from_lists`, :func:`from_ranks`
    or :func:`from_gains` (the fields below are the constructor's
    parameters), and pass it as the first argument of any metric to rank
    once and evaluate many times; :func:`recmetrics.evaluate` does this
    internally. A prebuilt Ranking always gives a mean over users (or
    per-user values), and its tie policy cannot be changed.

    Parameters
    ----------
    indptr : ndarray of shape (n_users + 1,)
        Entries of user ``u`` are ``indptr[u]:indptr[u + 1]``.
    gain : ndarray of shape (nnz,)
        Gain (relevance grade, > 0) of each relevant item.
    start : ndarray of shape (nnz,)
        Number of items ranked strictly above the item's tie group
        (``inf`` when the item is not ranked at all).
    size : ndarray of shape (nnz,)
        Size of the tie group (1 when there is no tie).
    group_rel : ndarray of shape (nnz,)
        Number of relevant items in the tie group.
    rel_before : ndarray of shape (nnz,)
        Number of relevant items ranked strictly above the tie group.
    n_ranked : ndarray of shape (n_users,)
        Length of each user's ranking (list length, or catalogue size after
        the mask for a full ranking).
    n_items : ndarray of shape (n_users,) or None
        Catalogue size of each user (after the mask); ``None`` when unknown
        (ranked lists without a catalogue), which AUC and TN need.
    ties : str or None
        The tie policy the ranking was built with (``None`` when the input
        cannot hold ties: ranked lists, ranks, a list of gains).
    user_ids : pandas.Index or None
        The id of each user (row), when the input named its users (long
        data frames); per-user results are then indexed by these ids.
    depth : int or None
        ``None`` for a full ranking. An int when it was built for metrics
        cut at ``k <= depth`` only (``from_scores(..., depth=...)``): a
        relevant item with ``depth`` or more items above it may then be
        stored as not ranked (``start = inf``; its ``size``, ``group_rel``
        and ``rel_before`` are placeholders), and the metrics refuse a
        larger cutoff or none.
    judgments : {'complete', 'explicit'}
        Which items the relevance judgments cover, so that every ranked
        item is *relevant*, *judged non-relevant* or *unjudged*.
        ``'complete'`` (score matrices, ranked lists, ranks, gains): every
        item that is not relevant is judged non-relevant, and none is
        unjudged. ``'explicit'`` (long data frames): only the (user, item)
        pairs of ``truth`` are judged; its rows with relevance 0 are the
        judged non-relevant entries below, and every other ranked item is
        unjudged, as in pooled IR test collections (trec_eval's qrels).
        Rows with a negative relevance are unjudged items *in the pool*
        (the pooled entries below), which only infAP tells from the rest.
        :func:`~recmetrics.bpref`, :func:`~recmetrics.judged` and
        :func:`~recmetrics.unjudged` read them; every other metric reads
        the relevant entries only.
    nonrel_indptr, nonrel_start, nonrel_size : ndarray or None
        With ``judgments='explicit'``: the judged non-relevant entries, in
        the CSR layout of the relevant ones (user ``u``'s at
        ``nonrel_indptr[u]:nonrel_indptr[u + 1]``), each with the range of
        positions it can take under the tie policy: ``nonrel_start`` items
        are ranked above it, and it sits at any of the next
        ``nonrel_size`` positions with equal probability (``size`` 1 when
        its position is fixed; ``start = inf`` when it is not ranked). The
        relevant items of a tie group go first under ``'optimistic'`` and
        last under ``'pessimistic'``; ``'trec_eval'`` fixes every position.
        ``None`` with ``judgments='complete'``.
    pooled_indptr, pooled_start, pooled_size : ndarray or None
        With ``judgments='explicit'``: the items *in the pool but not
        judged* (trec_eval's ``RELVALUE_UNJUDGED``, a qrels line with a
        negative grade: the pool was sampled and the item was not judged),
        in the layout of the judged non-relevant entries. Every metric but
        :func:`~recmetrics.infap` reads them as unjudged; infAP counts them
        among the pooled items above a relevant one. Default (``None``):
        none, stored as empty arrays. Must be ``None`` with
        ``judgments='complete'``.

    Attributes
    ----------
    n_users : int
        Number of users.
    n_relevant : ndarray of shape (n_users,)
        Number of relevant items of each user, ranked or not (``|R|``).
    user : ndarray of shape (nnz,)
        User index of each entry.
    is_graded : bool
        Whether some gain differs from 1.

    See Also
    --------
    from_scores : From relevance and score matrices, with a tie policy.
    from_lists : From ranked lists of item ids and relevant sets or dicts.
    from_ranks : From the ranks of held-out items.
    from_gains : From one ranked list of gains.

    References
    ----------
    %(ref_krichene2020)s

    %(ref_mcsherry2008)s

    Examples
    --------
    >>> from recmetrics import from_scores, precision, ndcg
    >>> r = from_scores([[0, 1, 1, 0], [1, 0, 0, 0]], [[0.9, 0.5, 0.5, 0.5], [0.1, 0.2, 0.3, 0.4]])
    >>> r.n_users, r.n_relevant.tolist(), r.start.tolist(), r.size.tolist()
    (2, [2.0, 1.0], [1.0, 1.0, 3.0], [3.0, 3.0, 1.0])
    >>> r.ranks().tolist()   # mean position of each relevant item's tie group
    [3.0, 3.0, 4.0]
    >>> precision(r, k=2, per_user=True).round(4).tolist()   # ranked once, evaluated twice
    [0.3333, 0.0]
    >>> round(ndcg(r), 4)
    0.5345
    """

    indptr: np.ndarray
    gain: np.ndarray
    start: np.ndarray
    size: np.ndarray
    group_rel: np.ndarray
    rel_before: np.ndarray
    n_ranked: np.ndarray
    n_items: np.ndarray | None = None
    ties: str | None = None
    user_ids: object = None
    depth: int | None = None
    judgments: str = "complete"
    nonrel_indptr: np.ndarray | None = None
    nonrel_start: np.ndarray | None = None
    nonrel_size: np.ndarray | None = None
    pooled_indptr: np.ndarray | None = None
    pooled_start: np.ndarray | None = None
    pooled_size: np.ndarray | None = None

    def __post_init__(self):
        if self.judgments not in JUDGMENTS:
            raise ValueError(f"judgments must be one of {JUDGMENTS}, got {self.judgments!r}")
        arrays = (self.nonrel_indptr, self.nonrel_start, self.nonrel_size)
        explicit = self.judgments == "explicit"
        if any((a is None) == explicit for a in arrays):
            raise ValueError(
                "nonrel_indptr, nonrel_start and nonrel_size are given exactly when "
                "judgments='explicit'"
            )
        if explicit and (
            self.nonrel_indptr.shape != self.indptr.shape
            or self.nonrel_start.shape != self.nonrel_size.shape
            or self.nonrel_start.shape[0] != self.nonrel_indptr[-1]
        ):
            raise ValueError("the judged non-relevant entries do not match the users")
        self._check_pooled(explicit)

    def _check_pooled(self, explicit):
        """The pooled-but-unjudged entries: none by default, else in the nonrel layout."""
        arrays = (self.pooled_indptr, self.pooled_start, self.pooled_size)
        if all(a is None for a in arrays):
            if explicit:  # none: empty arrays, so that readers need no special case
                set_ = functools.partial(object.__setattr__, self)
                set_("pooled_indptr", np.zeros_like(self.nonrel_indptr))
                set_("pooled_start", np.empty(0))
                set_("pooled_size", np.empty(0))
            return
        if not explicit:
            raise ValueError(
                "pooled_indptr, pooled_start and pooled_size need judgments='explicit'"
            )
        if any(a is None for a in arrays):
            raise ValueError("give all of pooled_indptr, pooled_start and pooled_size, or none")
        if (
            self.pooled_indptr.shape != self.indptr.shape
            or self.pooled_start.shape != self.pooled_size.shape
            or self.pooled_start.shape[0] != self.pooled_indptr[-1]
        ):
            raise ValueError("the pooled-but-unjudged entries do not match the users")

    @property
    def n_users(self) -> int:
        """Number of users."""
        return self.indptr.shape[0] - 1

    @property
    def n_relevant(self) -> np.ndarray:
        """Number of relevant items of each user, ranked or not."""
        return np.diff(self.indptr).astype(np.float64)

    @functools.cached_property
    def user(self) -> np.ndarray:
        """User index of each entry (computed once: every metric needs it)."""
        return np.repeat(np.arange(self.n_users), np.diff(self.indptr))

    @functools.cached_property
    def _windows(self) -> dict:
        """Cutoff windows already computed, by cutoff (see ``_metric_core.window``)."""
        return {}

    @functools.cached_property
    def untied(self) -> bool:
        """Whether every tie group has size 1 (always so under a deterministic policy)."""
        return bool(np.all(self.size == 1.0))

    @property
    def is_graded(self) -> bool:
        """Whether some gain differs from 1 (graded relevance)."""
        return bool(np.any(self.gain != 1.0))

    @property
    def n_pooled_unjudged(self) -> np.ndarray | None:
        """Pooled but unjudged items of each user, ranked or not (``None``: complete judgments)."""
        if self.judgments == "complete":
            return None
        return np.diff(self.pooled_indptr).astype(np.float64)

    @property
    def n_judged_nonrelevant(self) -> np.ndarray | None:
        """Judged non-relevant items of each user, ranked or not (``None``: every other item)."""
        if self.judgments == "complete":
            return None
        return np.diff(self.nonrel_indptr).astype(np.float64)

    def judged_in_top(self, k) -> np.ndarray:
        """Expected number of judged items (relevant or not) among each user's first ``k``.

        With ``judgments='complete'`` every ranked item is judged: ``min(k,
        n_ranked)``. With ``'explicit'``, the relevant and judged
        non-relevant entries whose positions may fall in the top ``k``,
        each counted with the probability that it does (an entry that may
        sit at any of the positions ``start + 1 .. start + size`` is in the
        top ``k`` with probability ``clip((k - start) / size, 0, 1)``).
        ``judged_in_top(k) / k`` is ir_measures' ``Judged@k`` for full lists.

        Examples
        --------
        >>> import pandas as pd
        >>> from recmetrics import from_frames
        >>> truth = pd.DataFrame({"user": [1, 1], "item": ["a", "c"], "rel": [1, 0]})
        >>> run = pd.DataFrame({"user": [1] * 3, "item": ["a", "b", "c"], "score": [3, 2, 1]})
        >>> r = from_frames(truth, run, relevance="rel")
        >>> r.judgments, r.n_judged_nonrelevant.tolist(), r.judged_in_top(2).tolist()
        ('explicit', [1.0], [1.0])
        """
        if self.depth is not None:
            self.check_depth(k, "judged_in_top")
        k = float(k)
        if self.judgments == "complete":
            return np.minimum(k, self.n_ranked)

        def in_top(start, size):
            with np.errstate(invalid="ignore"):
                share = np.clip((k - start) / size, 0.0, 1.0)
            return np.where(np.isinf(start), 0.0, share)

        nonrel_user = np.repeat(np.arange(self.n_users), np.diff(self.nonrel_indptr))
        nonrel = np.bincount(
            nonrel_user,
            weights=in_top(self.nonrel_start, self.nonrel_size),
            minlength=self.n_users,
        )
        return self.per_user_sum(in_top(self.start, self.size)) + nonrel

    def per_user_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum entry values per user, in entry order (``np.bincount``'s sums, bit for bit)."""
        sums = segment_sums(self.indptr, values)  # compiled, one pass per user
        if sums is None:
            return np.bincount(self.user, weights=values, minlength=self.n_users)
        return sums

    def ranks(self) -> np.ndarray:
        """Ranks of the relevant items (1-based; ``inf`` if not ranked).

        Under ``ties='expected'`` a tied item gets the mean position of its group.
        """
        if self.depth is not None:
            raise ValueError(
                f"this Ranking was built with depth={self.depth}: the ranks of the relevant "
                "items below that depth are not known (build it without depth)"
            )
        return self.start + (self.size + 1.0) / 2.0

    def check_depth(self, k, what: str = "this metric") -> None:
        """Raise unless the ranking is deep enough for a cutoff ``k`` (None: no cutoff)."""
        if self.depth is None:
            return
        if k is None or np.max(k) > self.depth:
            asked = "every rank" if k is None else f"a cutoff of {int(np.max(k))}"
            raise ValueError(
                f"this Ranking was built with depth={self.depth}, for metrics cut at k <= "
                f"{self.depth}; {what} needs {asked} (build it without depth, or with a "
                "larger one)"
            )

    @fill_doc
    def condensed(self) -> Ranking:
        """The condensed list: the ranking with every unjudged ranked item removed.

        Sakai's condensed list (Sakai, 2007), trec_eval's ``-J``
        (``form_res_rels.c``): the unjudged items leave the ranking and the
        judged ones close up, so that a judged item's new position counts
        only the judged items ranked before it. Every metric of the
        returned Ranking evaluates the condensed list.

        * ``judgments='complete'`` (score matrices, ranked lists, ranks,
          gains): every ranked item is judged, and the ranking is returned
          as it is.
        * ``judgments='explicit'`` (long data frames): the relevant and the
          judged non-relevant entries (rows of ``truth`` with grade >= 0)
          are judged; every other ranked item is removed, including the
          pooled entries (a negative grade: in the pool but not judged),
          which trec_eval's ``-J`` drops too and which stay in the pool,
          not ranked. A relevant or judged non-relevant item that is not
          ranked stays not ranked.

        Under every tie policy the entries keep their order, and a tie group
        shrinks to its judged members, still tied among themselves: an
        entry that may sit at any of the positions ``start + 1 .. start +
        size`` may sit at any of ``start' + 1 .. start' + size'``, where
        ``start'`` is the number of judged entries whose positions all lie
        above ``start + 1`` and ``size'`` the number of judged entries
        sharing its positions. The expectation over every order of the
        tied items (``ties='expected'``) stays exact: dropping the
        unjudged items of a uniformly random order leaves a uniformly
        random order of the judged ones. ``n_ranked`` becomes the number
        of judged ranked items, and the catalogue size (``n_items``) loses
        the removed items, as if they had not been predicted.

        Returns
        -------
        Ranking
            The condensed ranking (the ranking itself when nothing is
            unjudged).

        Raises
        ------
        ValueError
            For a ranking with explicit judgments built with a ``depth``:
            items below the depth may rise into it once the unjudged items
            above them are removed, and their positions are not known.

        References
        ----------
        %(ref_sakai2007)s

        Examples
        --------
        >>> import pandas as pd
        >>> from recmetrics import from_frames
        >>> truth = pd.DataFrame({"user": 1, "item": ["a", "b", "c"], "rel": [1, 0, 1]})
        >>> run = pd.DataFrame({"user": 1, "item": list("xaybzc"), "score": [6, 5, 4, 3, 3, 1]})
        >>> r = from_frames(truth, run, relevance="rel")
        >>> r.start.tolist(), r.n_ranked.tolist()   # a at 2, c at 6
        ([1.0, 5.0], [6.0])
        >>> c = r.condensed()
        >>> c.start.tolist(), c.nonrel_start.tolist(), c.n_ranked.tolist()   # a, b, c
        ([0.0, 2.0], [1.0], [3.0])
        """
        if self.judgments == "complete":
            return self
        if self.depth is not None:
            raise ValueError(
                f"this Ranking was built with depth={self.depth}: condensing it needs the "
                "positions of every judged item (build it without depth)"
            )
        return _condense(self)


def condense(r: Ranking, judged_only) -> Ranking:
    """``r.condensed()`` when ``judged_only`` is True, else ``r``: a metric's ``judged_only``.

    ``judged_only`` must be True or False (``TypeError`` naming it).
    """
    return r.condensed() if check_bool(judged_only, "judged_only") else r


# --------------------------------------------------------------------------
# builders
def _from_entries(
    user,
    gain,
    start,
    size,
    group_rel,
    rel_before,
    n_users,
    n_ranked,
    n_items,
    ties=None,
    order=None,
    indptr=None,
    depth=None,
):
    # ``order``: the entries' order by (user, start), when the caller has it;
    # ``indptr``: the users' pointers in that order, when the caller has them
    if order is None:
        order = np.lexsort((start, user))
    if indptr is None:
        indptr = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(np.bincount(user, minlength=n_users), out=indptr[1:])
    f = lambda x: np.asarray(x, dtype=np.float64)[order]  # noqa: E731
    return Ranking(
        indptr=indptr,
        gain=f(gain),
        start=f(start),
        size=f(size),
        group_rel=f(group_rel),
        rel_before=f(rel_before),
        n_ranked=np.asarray(n_ranked, dtype=np.float64),
        n_items=None if n_items is None else np.asarray(n_items, dtype=np.float64),
        ties=ties,
        depth=depth,
    )


def _deterministic(user, gain, rank, n_users, n_ranked, n_items, ties=None, depth=None):
    """Entries with exact (distinct within user) ranks; ``inf`` = not ranked."""
    rank = np.asarray(rank, dtype=np.float64)
    order = _user_rank_order(user, rank, n_users)
    rel_before = np.empty(rank.shape[0], dtype=np.float64)
    su = user[order]
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(user, minlength=n_users), out=indptr[1:])
    # each entry's user's first place in the order (``su`` is sorted)
    rel_before[order] = np.arange(rank.shape[0]) - indptr[su]
    ones = np.ones_like(rank)
    # start = rank - 1 keeps the order and the ties of the ranks (below
    # 2**52): the order of (user, start) is this one
    exact = not rank.shape[0] or np.max(rank, where=np.isfinite(rank), initial=0.0) < 2.0**52
    return _from_entries(
        user,
        gain,
        rank - 1.0,
        ones,
        ones,
        rel_before,
        n_users,
        n_ranked,
        n_items,
        ties,
        order=order if exact else None,
        indptr=indptr,
        depth=depth,
    )


def _user_rank_order(user, rank, n_users):
    """``np.lexsort((rank, user))``, sorting each user's entries alone when they come grouped.

    Entries grouped by user (``user`` non-decreasing) are ordered within
    their user by :func:`recmetrics._kernels.tie_groups`, stably, as the
    global sort orders them; ``inf`` (not ranked) is replaced by a finite
    key above every rank, which keeps both the order and the ties. Any
    other input is sorted whole.
    """
    user = np.asarray(user)
    n = rank.shape[0]
    if (
        n < 2
        or user.dtype.kind not in "iu"
        or np.any(user[1:] < user[:-1])
        or np.isnan(rank).any()
        or np.isneginf(rank).any()
    ):
        return np.lexsort((rank, user))
    finite = np.isfinite(rank)
    key = rank if finite.all() else np.where(finite, rank, np.max(rank[finite], initial=0.0) + 1.0)
    row_ptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(user, minlength=n_users), out=row_ptr[1:])
    return tie_groups(row_ptr, key)[0]


def _condense(r: Ranking) -> Ranking:
    """:meth:`Ranking.condensed` for explicit judgments (vectorised over users)."""
    n = r.n_users
    rel_user = r.user
    nonrel_user = np.repeat(np.arange(n), np.diff(r.nonrel_indptr))
    # the judged entries that are ranked: where each one's positions end
    judged_user = np.concatenate([rel_user, nonrel_user])
    judged_start = np.concatenate([r.start, r.nonrel_start])
    judged_end = judged_start + np.concatenate([r.size, r.nonrel_size])
    ranked = np.isfinite(judged_start)
    judged_user, judged_end = judged_user[ranked], judged_end[ranked]
    # one line of keys: user u's ends (>= 1) lie in (offset[u], offset[u] + last[u]]
    last = np.zeros(n)
    np.maximum.at(last, judged_user, judged_end)
    offset = np.concatenate([[0.0], np.cumsum(last + 1.0)[:-1]])
    keys = np.sort(offset[judged_user] + judged_end)

    def ending_by(user, position):
        """Judged entries of ``user`` whose positions all lie at or above ``position``."""
        base = offset[user]
        return np.searchsorted(keys, base + position, "right") - np.searchsorted(
            keys, base, "right"
        )

    def place(user, start, size):
        fin = np.isfinite(start)
        new_start, new_size = start.copy(), size.copy()
        u, s0 = user[fin], start[fin]
        above = ending_by(u, s0)
        new_start[fin] = above
        new_size[fin] = ending_by(u, s0 + size[fin]) - above
        return new_start, new_size

    start, size = place(rel_user, r.start, r.size)
    nonrel_start, nonrel_size = place(nonrel_user, r.nonrel_start, r.nonrel_size)
    n_judged = np.bincount(judged_user, minlength=n).astype(np.float64)
    n_items = r.n_items
    if n_items is not None:  # the removed items leave the catalogue
        n_items = n_items - (r.n_ranked - n_judged)
    return replace(
        r,
        start=start,
        size=size,
        n_ranked=n_judged,
        n_items=n_items,
        nonrel_start=nonrel_start,
        nonrel_size=nonrel_size,
        pooled_start=np.full(r.pooled_start.shape, np.inf),
        pooled_size=np.ones(r.pooled_size.shape),
    )
