"""Inferred average precision (infAP; Yilmaz & Aslam 2006), as trec_eval computes it.

trec_eval's ``m_infap.c`` sorts the retrieved documents into four kinds:
judged relevant, judged non-relevant, *in the pool but unjudged* (a qrels
line with a negative grade: the pool was sampled and this document was not
judged) and *not in the pool* (no qrels line). Walking down the list, each
judged relevant document at 0-based position ``j`` adds

.. math:: \\frac{1}{j + 1} + \\frac{j}{j + 1} \\cdot \\frac{X}{j} \\cdot
          \\frac{r + \\epsilon}{r + n + 2\\epsilon}

(1 at ``j = 0``), with ``r`` and ``n`` the judged relevant and judged
non-relevant documents above it, ``X = r + n + p`` the pooled documents
above it (``p`` the pooled-but-unjudged ones), and ``\\epsilon =
0.00001`` (``INFAP_EPSILON``); the sum is divided by ``|R|``. Documents
not in the pool count as non-relevant (they take a rank but add nothing to
``X``); pooled-but-unjudged ones are assumed relevant in the proportion of
the judged ones above.

The package's :class:`~recmetrics.Ranking` built from long data frames
holds the four kinds: relevant and judged non-relevant items (rows of
``truth`` with a grade > 0 and 0), pooled-but-unjudged ones (rows with a
negative grade, trec_eval's meaning; the ``pooled_*`` entries, placed as
the judged non-relevant ones) and the others (no row in ``truth``: not in
the pool). Every other metric reads the pooled-but-unjudged items as
unjudged, as trec_eval does; only infAP counts them in ``X``. The command
line passes qrels grades below 0 on, so that infAP on sampled qrels is
trec_eval's to the last digit (its own ``out.test.aql``, checked in
``tests/test_trec_eval_files.py``).

Under ``ties='expected'`` the term of a relevant item of a tie group is
its exact expectation over the orders of the group: its offset is
uniform, and the relevant, judged non-relevant, pooled-but-unjudged and
other items of the group before it are multivariate hypergeometric given
the offset.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from ._core import finish
from .judged import _entries_around, _nonrelevant_around
from .topn._common import _rank, _ratio

__all__ = ["infap", "INFAP_EPSILON"]

#: trec_eval's smoothing of the estimated precision above a relevant item (``trec_eval.h``).
INFAP_EPSILON = 0.00001


def _increment(j, rel_above, nonrel_above, pooled_above=0.0):
    """trec_eval's addition for a relevant item at 0-based position ``j`` (``m_infap.c``)."""
    fj = np.where(j > 0, j, 1.0)
    pooled = rel_above + nonrel_above + pooled_above  # X: every pooled item above
    inc = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (pooled / fj) * (
        (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)
    )
    return np.where(j > 0, inc, 1.0)


def _log_comb(n, k):
    from scipy.special import gammaln  # only for tie groups; scipy.special is slow to import

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _expected_increment(start, size, above, group_rel, group_nonrel, group_pooled):
    """The increment's expectation over the orders of one tie group, for a relevant item in it.

    ``above``: the relevant, judged non-relevant and pooled-but-unjudged
    items above the group. The item's offset ``m`` in the group is uniform
    on ``0 .. size - 1``; given ``m``, the ``x`` relevant, ``y`` judged
    non-relevant, ``p`` pooled-but-unjudged and ``u`` other (not in the
    pool) items of the group before it are multivariate hypergeometric
    (``m`` draws from the other ``group_rel - 1``, ``group_nonrel``,
    ``group_pooled`` and ``size - group_rel - group_nonrel - group_pooled``
    items). The sum runs over ``(x, y, p, u)``, one ``x`` (and one ``p``)
    at a time when the whole grid would be large.
    """
    rel_above, nonrel_above, pooled_above = above
    other = size - group_rel - group_nonrel - group_pooled
    y = np.arange(group_nonrel + 1, dtype=np.float64)[:, None, None]
    p = np.arange(group_pooled + 1, dtype=np.float64)[None, :, None]
    u = np.arange(other + 1, dtype=np.float64)[None, None, :]
    log_yu = _log_comb(float(group_nonrel), y) + _log_comb(float(other), u)
    log_p = _log_comb(float(group_pooled), p)
    cells = y.size * p.size * u.size
    if group_rel * cells <= _GRID_CELLS:
        xs = [np.arange(group_rel, dtype=np.float64)[:, None, None, None]]
    else:
        xs = [np.full((1, 1, 1, 1), float(x)) for x in range(group_rel)]
    ps = (
        [(p, log_p)]
        if cells <= _GRID_CELLS
        else [(p[:, i : i + 1], log_p[:, i : i + 1]) for i in range(p.size)]
    )
    total = 0.0
    for x in xs:
        log_x = _log_comb(group_rel - 1.0, x)
        for pp, lp in ps:
            m = x + y + pp + u
            logp = log_x + log_yu + lp - _log_comb(size - 1.0, m)
            inc = _increment(start + m, rel_above + x, nonrel_above + y, pooled_above + pp)
            total += float(np.sum(np.exp(logp) * inc))
    return total / size


# the most (x, y, p, u) cells of one tie group summed at once (32 MiB of float64)
_GRID_CELLS = 1 << 22


@fill_doc
def infap(
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
):
    """Inferred average precision (trec_eval's ``infAP``): AP estimated from judged items.

    .. math:: \\mathrm{infAP} = \\frac{1}{|R|} \\sum_{\\text{retrieved relevant at } j}
              \\left(\\frac{1}{j + 1} + \\frac{X_j}{j + 1} \\cdot
              \\frac{r_j + \\epsilon}{r_j + n_j + 2\\epsilon}\\right)

    per user, averaged over users (Yilmaz & Aslam, 2006), with ``j`` the
    0-based position of the relevant item (the term is 1 at ``j = 0``),
    ``r_j`` and ``n_j`` the judged relevant and judged non-relevant items
    above it, ``X_j = r_j + n_j + p_j`` the pooled items above it (``p_j``
    the items *in the pool but not judged*: rows of ``truth`` with a
    negative grade, trec_eval's qrels grade -1 of a sampled pool) and
    ``\\epsilon = 0.00001``. This is trec_eval's ``m_infap.c`` line by line.
    An item not in the pool (long data frames: no row in ``truth``) takes a
    rank but is neither in ``X_j`` nor in the estimate of precision. With
    complete judgments (every other input) ``X_j = j`` and infAP differs
    from AP (``ap_denominator='relevant'``) by the smoothing ``\\epsilon``
    only. A relevant item not retrieved adds 0; a user without relevant
    items follows ``no_relevant`` (trec_eval: 0).

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items: for a relevant item of a tie group, its offset in
    the group is uniform and the relevant, judged non-relevant,
    pooled-but-unjudged and other items of the group before it are
    multivariate hypergeometric given the offset; the term is summed over
    that distribution (a cost of the product of the group's counts of the
    four kinds, per tie group holding a relevant item). ``'optimistic'``,
    ``'pessimistic'`` and ``'trec_eval'`` order the group as elsewhere.

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

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.bpref : Another measure for incomplete judgments.
    recmetrics.average_precision : AP, which counts unjudged items as non-relevant.

    References
    ----------
    %(ref_yilmaz2006)s

    %(ref_trec_eval)s

    Examples
    --------
    One unjudged item (``x``) above the relevant ``a``: at ``j = 1``,
    ``X = 0``, so ``a`` adds 1/2; ``c`` at ``j = 3`` sees ``r = 1``, ``n = 1``
    (``b``), ``X = 2``:

    >>> import pandas as pd
    >>> from recmetrics import from_frames
    >>> truth = pd.DataFrame({"user": [1] * 3, "item": ["a", "b", "c"], "rel": [1, 0, 1]})
    >>> run = pd.DataFrame({"user": [1] * 4, "item": ["x", "a", "b", "c"], "score": [4, 3, 2, 1]})
    >>> round(infap(from_frames(truth, run, relevance="rel")), 6)   # (1/2 + 1/4 + 1/4) / 2
    0.5

    The same with ``x`` in the pool but not judged (grade -1): at ``j = 1``,
    ``X = 1`` and ``r = n = 0``, so ``a`` adds ``1/2 + 1/2 * 1/2``; ``c``
    at ``j = 3`` sees ``X = 3``, ``r = n = 1`` and adds ``1/4 + 3/4 * 1/2``:

    >>> sampled = pd.concat([truth, pd.DataFrame({"user": [1], "item": ["x"], "rel": [-1]})])
    >>> round(infap(from_frames(sampled, run, relevance="rel")), 6)   # (3/4 + 5/8) / 2
    0.6875
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    ranked = np.isfinite(r.start)
    if r.judgments == "complete":
        nonrel_above, nonrel_tied = r.start - r.rel_before, r.size - r.group_rel
        pooled_above = pooled_tied = np.zeros_like(r.start)
    else:
        nonrel_above, nonrel_tied = _nonrelevant_around(r)
        pooled_above, pooled_tied = _entries_around(
            r, r.pooled_indptr, r.pooled_start, r.pooled_size
        )
    start = np.where(ranked, r.start, 0.0)
    rel_above = np.where(ranked, r.rel_before, 0.0)
    nonrel_above = np.where(ranked, nonrel_above, 0.0)
    pooled_above = np.where(ranked, pooled_above, 0.0)
    term = np.where(ranked, _increment(start, rel_above, nonrel_above, pooled_above), 0.0)
    tied = np.flatnonzero(ranked & (r.size > 1))
    if tied.size:
        # one expectation per tie group (its relevant items share it)
        keys = np.stack([r.user[tied].astype(np.float64), start[tied]], axis=1)
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        values = np.array(
            [
                _expected_increment(
                    start[e],
                    int(r.size[e]),
                    (rel_above[e], nonrel_above[e], pooled_above[e]),
                    int(r.group_rel[e]),
                    int(nonrel_tied[e]),
                    int(pooled_tied[e]),
                )
                for e in tied[first]
            ]
        )
        term[tied] = values[inverse.ravel()]
    val = _ratio(r.per_user_sum(term), r.n_relevant)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
