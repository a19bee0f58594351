"""trec_eval's ``ndcg_rel`` and ``G``: gain measures that walk the list.

Both read, at each ranked item, sums over the items above it, so under
``ties='expected'`` the position of an item inside its tie group and the
items of the group that precede it are random together. The expectation
over the orders of tied items is exact: items of groups above a group are
above it in every order; inside a group of ``s`` items at positions
``a + 1 .. a + s``, an item is at ``a + 1 + m`` with ``m`` uniform on
``0 .. s - 1``, and given ``m`` the items before it are a uniform
``m``-subset of the others.

Gains are trec_eval's (``gain_values``, :mod:`recmetrics.metrics._gain_values`):
a relevant item has the gain of its grade, a judged non-relevant item the
gain of grade 0 (0 unless named), an unjudged item 0; the ideal ranking
holds every judged item with a positive gain in decreasing order.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._docs import fill_doc
from ._core import finish
from ._gain_values import check_gain_values, entry_gains, ideal_runs
from .topn._common import _rank

__all__ = ["ndcg_rel", "trec_g"]


def _seg_cumsum(x, offsets):
    """Per segment ``offsets[u]:offsets[u + 1]``: the running sum of ``x``, user by user."""
    out = np.empty_like(x)
    for lo, hi in zip(offsets[:-1], offsets[1:], strict=True):
        np.cumsum(x[lo:hi], out=out[lo:hi])
    return out


class _Walk:
    """Every ranked position of every user, flat: expected gains, ideal, tie groups."""

    def __init__(self, r, gain_values):
        gain_values = check_gain_values(gain_values) or {}
        rel, g0 = entry_gains(r, gain_values, r.gain)
        if np.any(~np.isfinite(r.n_ranked)):
            raise ValueError("this measure needs the length of each list: pass n_items")
        n = r.n_ranked.astype(np.int64)
        self.r, self.rel, self.g0, self.n = r, rel, g0, n
        self.offsets = off = np.concatenate([[0], np.cumsum(n)])
        total = int(off[-1])
        self.pos = np.arange(total) - np.repeat(off[:-1], n) + 1.0  # 1-based positions
        ranked = np.isfinite(r.start)
        user, start, size = r.user[ranked], r.start[ranked].astype(np.int64), r.size[ranked]
        at = off[user] + start
        explicit = r.judgments == "explicit"
        # the gain per position; on the positions of a tie group, the group's mean gain
        eg = np.zeros(total) if explicit else np.full(total, g0)
        one = size == 1
        eg[at[one]] = rel[ranked][one]
        groups = [(user, start, size, rel[ranked])]
        if explicit and g0 != 0.0:
            nr_user = np.repeat(np.arange(r.n_users), np.diff(r.nonrel_indptr))
            keep = np.isfinite(r.nonrel_start)
            nu, ns = nr_user[keep], r.nonrel_start[keep].astype(np.int64)
            nsz = r.nonrel_size[keep]
            eg[(off[nu] + ns)[nsz == 1]] = g0
            groups.append((nu, ns, nsz, np.full(nu.shape[0], g0)))
        self.groups = self._tie_groups(groups, explicit)
        tied = np.zeros(total + 1)
        for u, a, s, gains in self.groups:
            eg[off[u] + a : off[u] + a + s] = gains.mean()
            tied[off[u] + a] += 1
            tied[off[u] + a + s] -= 1
        self.eg = eg
        self.single = np.cumsum(tied)[:total] == 0
        # the ideal gain at each position (0 beyond the ideal), and its length
        self.runs = runs = ideal_runs(r, rel, g0)
        ru, rg, rf, rc = runs
        lo = np.minimum(rf, n[ru]).astype(np.int64)
        width = np.minimum(rf + rc, n[ru]).astype(np.int64) - lo
        first = np.repeat(off[ru] + lo, width)
        within = np.arange(first.shape[0]) - np.repeat(np.cumsum(width) - width, width)
        self.ideal_at = np.zeros(total)
        self.ideal_at[first + within] = np.repeat(rg, width)
        self.ideal_len = np.bincount(ru, weights=rc, minlength=r.n_users)

    def _tie_groups(self, parts, explicit):
        """``[(user, a, s, gains of the s items)]`` for every group of more than one item."""
        found = {}
        for user, start, size, gain in parts:
            for u, a, s, g in zip(user, start, size, gain, strict=True):
                if s > 1:
                    found.setdefault((int(u), int(a), int(s)), []).append(float(g))
        groups = []
        for (u, a, s), gains in sorted(found.items()):
            # the other items: unjudged (explicit judgments) or judged non-relevant
            gains += [0.0 if explicit else self.g0] * (s - len(gains))
            groups.append((u, a, s, np.array(gains)))
        return groups


def _log2_discount(i):
    return 1.0 / np.log2(i + 1.0)


@fill_doc
def ndcg_rel(
    a=None,
    b=None,
    *,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    gain_values=None,
):
    """NDCG averaged over the relevant items (trec_eval's ``ndcg_rel``).

    .. math:: \\mathrm{ndcg\\_rel} = \\frac{1}{L} \\left( \\sum_{x} \\frac{\\mathrm{DCG}(p_x)}
              {\\mathrm{IDCG}(p_x)} + (L - L_{ret}) \\frac{\\mathrm{DCG}}{\\mathrm{IDCG}} \\right)

    per user, averaged over users (``m_ndcg_rel.c``): the sum runs over the
    retrieved items ``x`` with a positive gain, at their position ``p_x``;
    ``DCG(p)`` and ``IDCG(p)`` are the DCG of the list and of the ideal
    down to ``p`` (the ideal stops growing past its ``L`` items of positive
    gain), and each of the ``L - L_ret`` items of positive gain that are
    not retrieved counts the NDCG of the whole list. A negative sum scores
    0, as in trec_eval; a user without a positive ideal is left to
    ``no_relevant`` (trec_eval: 0). trec_eval's gains and ``log2``
    discount (``gain_values``).

    Under ``ties='expected'`` the sum is its exact expectation over the
    orders of tied items (see the module); with negative gains the clamp
    at 0 is applied to the expectation (exact whenever no gain is
    negative: the sum is then never below 0).

    Parameters
    ----------
    %(a_b)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s
    gain_values : mapping of int to float, optional
        trec_eval's gain map (``-m ndcg_rel.1=0.5,2=3``): the gain of each
        named grade (an int ``>= 0``); the other grades keep their grade.

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.ndcg : NDCG at one cutoff.
    recmetrics.rndcg : NDCG averaged where the ideal gain changes.

    References
    ----------
    %(ref_jarvelin2002)s

    %(ref_trec_eval)s

    Examples
    --------
    >>> round(ndcg_rel([3, 0, 2, 1]), 4)
    0.9235
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    w = _Walk(r, gain_values)
    off, d = w.offsets, _log2_discount(w.pos)
    cum_dcg = _seg_cumsum(w.eg * d, off)
    ideal = _seg_cumsum(w.ideal_at * d, off)  # IDCG(p), constant past the ideal
    users = np.repeat(np.arange(r.n_users), w.n)
    with np.errstate(invalid="ignore", divide="ignore"):
        single_term = np.where(w.single & (w.eg > 0), cum_dcg / ideal, 0.0)
    total = np.bincount(users, weights=single_term, minlength=r.n_users)
    dpref = _seg_cumsum(d, off)
    for u, a0, s, gains in w.groups:
        pos_gains = gains[gains > 0]
        if pos_gains.size == 0:  # no item of the group counts
            continue
        pos = slice(off[u] + a0, off[u] + a0 + s)
        inv = 1.0 / ideal[pos]
        before = cum_dcg[off[u] + a0 - 1] if a0 > 0 else 0.0
        d_above = dpref[off[u] + a0 - 1] if a0 > 0 else 0.0
        m1, m2 = inv.mean(), (d[pos] * inv).mean()
        m3 = np.sum((dpref[pos] - d[pos] - d_above) * inv) / (s * (s - 1))
        n_p, s_p, s_g = pos_gains.size, pos_gains.sum(), gains.sum()
        total[u] += n_p * before * m1 + s_p * m2 + (n_p * s_g - s_p) * m3
    whole_dcg = np.bincount(users, weights=w.eg * d, minlength=r.n_users)
    whole_ideal = _ideal_total(w)
    n_pos_ret = np.bincount(users, weights=np.where(w.single, w.eg > 0, 0.0), minlength=r.n_users)
    for u, _, _, gains in w.groups:
        n_pos_ret[u] += np.sum(gains > 0)
    L = w.ideal_len
    with np.errstate(invalid="ignore", divide="ignore"):
        total += np.where(whole_ideal > 0, (L - n_pos_ret) * whole_dcg / whole_ideal, 0.0)
        val = np.where((total > 0) & (L > 0), total / np.where(L > 0, L, 1.0), 0.0)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=L > 0)


def _ideal_total(w):
    """Per user: the DCG of the whole ideal ranking (every judged item of positive gain)."""
    ru, rg, rf, rc = w.runs
    top = int((rf + rc).max()) if rf.size else 0
    table = np.concatenate([[0.0], np.cumsum(_log2_discount(np.arange(1, top + 1.0)))])
    part = rg * (table[(rf + rc).astype(np.int64)] - table[rf.astype(np.int64)])
    return np.bincount(ru, weights=part, minlength=w.r.n_users)


def _subset_sums(others):
    """Every way to pick items of ``others``: ``(m, sum, probability given m)`` as arrays.

    Items of equal gain are alike: a pick is a count per distinct gain;
    among the ``m``-subsets, ``prod C(c_v, j_v)`` of ``C(len(others), m)``
    give it.
    """
    values, counts = np.unique(others, return_counts=True)
    picks = np.array(list(itertools.product(*(range(int(c) + 1) for c in counts))))
    m = picks.sum(axis=1)
    ways = np.array(
        [
            math.prod(math.comb(int(c), int(j)) for c, j in zip(counts, p, strict=True))
            for p in picks
        ],
        dtype=np.float64,
    )
    total = np.array([math.comb(len(others), int(x)) for x in m], dtype=np.float64)
    return m, picks @ values, ways / total


@fill_doc
def trec_g(
    a=None,
    b=None,
    *,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    gain_values=None,
):
    """Normalised gain G, trec_eval's ``G`` (``m_G.c``, an experimental measure of 2008).

    .. math:: G = \\frac{1}{\\sum_j g^*_j} \\sum_{i} \\frac{g_i}{\\log_2(2 + C_i - S_i)},
              \\qquad S_i = \\sum_{j \\le i} g_j, \\quad C_i = \\sum_{j \\le i} \\max(g^*_j, 1)

    per user, averaged over users: ``g_i`` is the gain of the item at rank
    ``i``, ``g*_j`` the ideal gain at rank ``j`` (0 past the ideal's items
    of positive gain), and the normaliser the sum of the positive ideal
    gains. An item retrieved when the items above it hold nearly all the
    gain they could is rewarded nearly fully. A user without a positive
    ideal is left to ``no_relevant`` (trec_eval: 0). trec_eval's gains
    (``gain_values``).

    Under ``ties='expected'`` the value is its exact expectation over the
    orders of tied items (see the module): for an item of a tie group the
    sum over the group's items before it is averaged over every subset of
    them, which costs a product of (count + 1) over the distinct gains of
    the group.

    Parameters
    ----------
    %(a_b)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s
    gain_values : mapping of int to float, optional
        trec_eval's gain map (``-m G.1=0.5,2=3``): the gain of each named
        grade (an int ``>= 0``); the other grades keep their grade.

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.bin_g : Its binary version, trec_eval's ``binG``.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> round(trec_g([3, 0, 2, 1]), 4)
    0.8155
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    w = _Walk(r, gain_values)
    off = w.offsets
    users = np.repeat(np.arange(r.n_users), w.n)
    s_cum = _seg_cumsum(w.eg, off)  # exact at the end of every group
    c_cum = _seg_cumsum(np.maximum(w.ideal_at, 1.0), off)
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(w.single & (w.eg != 0), w.eg / np.log2(2.0 + c_cum - s_cum), 0.0)
    total = np.bincount(users, weights=term, minlength=r.n_users)
    for u, a0, s, gains in w.groups:
        above = s_cum[off[u] + a0 - 1] if a0 > 0 else 0.0
        cost = c_cum[off[u] + a0 : off[u] + a0 + s]
        for value in np.unique(gains[gains != 0]):
            others = np.delete(gains, np.flatnonzero(gains == value)[0])
            m, sums, probs = _subset_sums(others)
            e = np.sum(probs * value / np.log2(2.0 + cost[m] - above - sums - value)) / s
            total[u] += e * np.sum(gains == value)
    norm = np.bincount(w.runs[0], weights=w.runs[1] * w.runs[3], minlength=r.n_users)
    val = np.where(norm > 0, total / np.where(norm > 0, norm, 1.0), 0.0)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=norm > 0)
