"""Cumulative gain family: CG, DCG, IDCG and NDCG (Järvelin & Kekäläinen, 2002).

For gains ``rel_i`` of the items at positions ``i = 1, 2, ...``:

.. math::

    \\mathrm{CG@}k = \\sum_{i=1}^{k} rel_i, \\qquad
    \\mathrm{DCG@}k = \\sum_{i=1}^{k} \\frac{g(rel_i)}{\\log_b(i+1)}, \\qquad
    \\mathrm{NDCG@}k = \\frac{\\mathrm{DCG@}k}{\\mathrm{IDCG@}k},

with the gain ``g(rel) = rel`` (``gain='linear'``) or ``2^{rel} - 1``
(``gain='exponential'``, Burges et al., 2005). The two coincide for binary
relevance; ``gain='binary'`` ignores the grades (``g = 1`` for every relevant
item), as libraries that only know a set of relevant items do. IDCG is the
DCG of the ideal order of the user's relevant items.

The discount is ``1 / log_b(i + 1)`` (``discount='log'``), or the original
``1 / max(1, log_b(i))`` of Järvelin & Kekäläinen (2002) (``discount='jarvelin'``:
no discount up to rank ``b``; with ``b = 2`` this is LensKit's default
``1 / log2(max(i, 2))``).

The input forms and the keywords ``ties``, ``no_relevant`` and ``per_user``
are those of :mod:`recmetrics.metrics.topn`.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._validation import as_numeric_array, check_choice, check_k, check_positive_number
from ..inputs.forms import as_ranking
from ..ranking import Ranking
from ..ranking._representation import condense
from ._core import expected_sum, finish, prefix_table
from ._gain_values import check_gain_values, entry_gains, expected_dcg, ideal_dcg, ideal_runs

__all__ = ["cg", "dcg", "idcg", "ndcg", "GAINS", "IDCG_MODES", "DISCOUNTS", "discount"]

GAINS = ("linear", "exponential", "binary")
IDCG_MODES = ("min", "k")
DISCOUNTS = ("log", "jarvelin")


# 2**1024 overflows float64
_MAX_EXP_GRADE = 1023.0


def _gain(values, gain):
    check_choice(gain, "gain", GAINS)
    if gain == "binary":
        return np.ones_like(values)
    if gain == "linear":
        return values
    if values.size and values.max() > _MAX_EXP_GRADE:
        raise ValueError(
            f"gain='exponential' computes 2**grade - 1, which overflows float64 for grades above "
            f"{_MAX_EXP_GRADE:g} (found {values.max():g}); use gain='linear' or rescale the grades"
        )
    return np.expm1(values * np.log(2.0))


def _check_log_base(log_base):
    b = check_positive_number(log_base, "log_base")
    if b <= 1.0:
        raise ValueError(
            "log_base must be > 1 (a base <= 1 makes the discount zero, negative or undefined), "
            f"got {b:g}"
        )
    return b


def _check_finite_sum(values, r, what):
    """Raise if a per-user sum overflowed (gains near the float64 limit)."""
    bad = ~np.isfinite(values)
    if np.any(bad):
        u = int(np.argmax(bad))
        raise ValueError(f"{what} of user {u} overflows float64; rescale the grades")
    return values


@fill_doc
def discount(positions, log_base=2.0, kind="log"):
    """Position discount ``1 / log_b(i + 1)``, or ``1 / max(1, log_b(i))``.

    .. math::

        d_{\\mathrm{log}}(i) = \\frac{1}{\\log_b(i + 1)}, \\qquad
        d_{\\mathrm{jarvelin}}(i) = \\frac{1}{\\max(1, \\log_b i)}

    ``kind='log'`` (default) is the discount of most libraries;
    ``kind='jarvelin'`` is the original one of Järvelin & Kekäläinen (2002),
    which leaves the ranks ``i <= b`` undiscounted; with ``b = 2`` it is
    LensKit's default ``1 / log2(max(i, 2))`` (ranks 1 and 2 both weigh 1).

    Parameters
    ----------
    positions : array-like of float
        1-based positions ``i`` (any shape).
    log_base : float, default 2
        Base ``b > 1`` of the logarithm.
    kind : {'log', 'jarvelin'}, default 'log'
        Which discount; the ``discount`` keyword of :func:`dcg` and
        :func:`ndcg`.

    Returns
    -------
    numpy.ndarray
        The discount of each position, of the shape of ``positions``.

    See Also
    --------
    dcg : Sums gain times discount over the top ``k``.
    ndcg : DCG normalised by its ideal.

    References
    ----------
    %(ref_jarvelin2002)s

    %(ref_ekstrand2020)s

    Examples
    --------
    >>> discount([1, 2, 3]).round(4).tolist()
    [1.0, 0.6309, 0.5]
    >>> discount([1, 2, 3, 4], kind="jarvelin").round(4).tolist()
    [1.0, 1.0, 0.6309, 0.5]
    """
    check_choice(kind, "discount", DISCOUNTS)
    b = _check_log_base(log_base)
    pos = as_numeric_array(positions, "positions", allow_empty=True)
    if np.any(pos < 1):
        raise ValueError(f"positions must be >= 1 (1-based), found {pos[pos < 1].flat[0]:g}")
    if kind == "jarvelin":
        return 1.0 / np.maximum(1.0, np.log(pos) / np.log(b))
    return np.log(b) / np.log1p(pos)


# Beyond this many positions the sum of the discounts is completed in closed form.
_DIRECT_POSITIONS = 1 << 22


def _discount_sum(k, log_base, kind):
    """``sum_{i=1}^{k} discount(i)`` without allocating ``k`` values.

    The first ``2**22`` terms are added directly; the rest, where the
    discount ``ln b / ln(x + c)`` varies slowly, by the midpoint rule in
    closed form: ``sum_{i=m+1}^{k} 1 / ln(i + c) ~ li(k + c + 1/2) - li(m + c + 1/2)``
    with the logarithmic integral ``li(x) = Ei(ln x)``. The rule's error is
    about ``f''/24`` per term, below ``1e-15`` of the sum there.
    """
    head = min(k, _DIRECT_POSITIONS)
    total = float(np.sum(discount(np.arange(1, head + 1), log_base, kind)))
    if k > head:
        from scipy.special import expi

        c = 1.0 if kind == "log" else 0.0
        li = lambda x: expi(np.log(x))  # noqa: E731
        total += np.log(log_base) * (li(k + c + 0.5) - li(head + c + 0.5))
    return total


def _prep(a, b, ranks, n_items, mask, ties, k, log_base, judged_only):
    k = check_k(k, allow_none=True)
    _check_log_base(log_base)
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    r = condense(r, judged_only)
    r.check_depth(k)
    return r, single, k


def _dcg(r: Ranking, k, gain, log_base, kind="log"):
    check_choice(kind, "discount", DISCOUNTS)
    val = expected_sum(r, k, lambda i: discount(i, log_base, kind), weights=_gain(r.gain, gain))
    return _check_finite_sum(val, r, "DCG")


def _idcg(r: Ranking, k, gain, log_base, idcg, kind="log"):
    check_choice(idcg, "idcg", IDCG_MODES)
    check_choice(kind, "discount", DISCOUNTS)
    if idcg == "k":
        if k is None:
            raise ValueError("idcg='k' needs a cutoff k")
        if r.is_graded and gain != "binary":
            raise ValueError(
                "idcg='k' is defined for binary relevance only; use idcg='min' with graded gains"
            )
        return np.full(r.n_users, _discount_sum(k, log_base, kind))
    if not r.is_graded:
        # binary relevance: the ideal list starts with the |R| relevant items,
        # so IDCG is a prefix sum of the discount at min(|R|, k) (the same
        # additions in the same order as the general case below)
        depth = r.n_relevant if k is None else np.minimum(r.n_relevant, k)
        table = prefix_table(
            lambda i: _gain(np.ones_like(i), gain) * discount(i, log_base, kind),
            depth.max() if depth.size else 0,
        )
        return _check_finite_sum(table[depth.astype(np.int64)], r, "IDCG")
    # ideal order: each user's gains sorted in decreasing order, truncated at k
    user = r.user
    order = np.lexsort((-r.gain, user))
    pos = np.arange(order.shape[0]) - r.indptr[user[order]] + 1.0
    keep = pos <= (np.inf if k is None else k)
    w = _gain(r.gain[order], gain) * discount(pos, log_base, kind)
    val = np.bincount(user[order][keep], weights=w[keep], minlength=r.n_users)
    return _check_finite_sum(val, r, "IDCG")


def _trec_dcg(r, k, gain, log_base, kind, gain_values):
    """DCG, with trec_eval's gain map when ``gain_values`` is given."""
    gain_values = check_gain_values(gain_values)
    if gain_values is None:
        return _dcg(r, k, gain, log_base, kind)
    check_choice(kind, "discount", DISCOUNTS)
    rel, g0 = entry_gains(r, gain_values, _gain(r.gain, gain))
    val = expected_dcg(r, k, rel, g0, lambda i: discount(i, log_base, kind))
    return _check_finite_sum(val, r, "DCG")


def _trec_idcg(r, k, gain, log_base, idcg, kind, gain_values):
    """IDCG, over every judged item with a positive gain under ``gain_values``."""
    gain_values = check_gain_values(gain_values)
    if gain_values is None:
        return _idcg(r, k, gain, log_base, idcg, kind)
    check_choice(idcg, "idcg", IDCG_MODES)
    if idcg == "k":
        raise ValueError("idcg='k' is defined for binary relevance only, not with gain_values")
    rel, g0 = entry_gains(r, gain_values, _gain(r.gain, gain))
    val = ideal_dcg(r, ideal_runs(r, rel, g0), k, lambda i: discount(i, log_base, kind))
    return _check_finite_sum(val, r, "IDCG")


@fill_doc
def cg(
    a=None,
    b=None,
    *,
    k=None,
    gain="linear",
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Cumulative gain at k: the sum of the gains in the top ``k`` (no discount).

    .. math:: \\mathrm{CG@}k = \\sum_{i=1}^{k} g(rel_i)

    Under ``ties='expected'`` each relevant item's gain counts with the
    probability that it lands within the cutoff.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(gain)s
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
    dcg : The gains discounted by position.
    ndcg : DCG normalised by its ideal.

    References
    ----------
    %(ref_jarvelin2002)s

    Examples
    --------
    >>> cg([3, 2, 3, 0, 1, 2])
    11.0
    >>> cg([3, 2, 3, 0, 1, 2], k=3), cg([3, 2, 3, 0, 1, 2], gain="binary")
    (8.0, 5.0)
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, 2.0, judged_only)
    val = _check_finite_sum(expected_sum(r, k, np.ones_like, weights=_gain(r.gain, gain)), r, "CG")
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def dcg(
    a=None,
    b=None,
    *,
    k=None,
    gain="linear",
    log_base=2.0,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    discount="log",
    gain_values=None,
):
    """Discounted cumulative gain at k.

    .. math:: \\mathrm{DCG@}k = \\sum_{i=1}^{k} \\frac{g(rel_i)}{\\log_b(i+1)}

    Under ``ties='expected'`` each relevant item's discounted gain is
    averaged over the positions of its tie group (McSherry & Najork, 2008;
    scikit-learn's ``dcg_score`` averages the same way).

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(gain)s
    %(log_base)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s
    %(discount)s
    gain_values : mapping of int to float, optional
        trec_eval's gain map (``-m ndcg.1=0.5,2=3``; ``gain_init.c``): the
        gain of each named grade (an int ``>= 0``); the other grades keep
        the gain of ``gain``. Grade 0, the judged non-relevant items, may
        get a gain, and gains may be 0 or negative; see
        :mod:`recmetrics.metrics.trec_gain` for the ideal ranking.

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    cg : The gains without discount.
    idcg : The DCG of the ideal order.
    ndcg : DCG normalised by its ideal.
    discount : The position discount.

    References
    ----------
    %(ref_jarvelin2002)s

    %(ref_burges2005)s

    %(ref_mcsherry2008)s

    %(ref_pedregosa2011)s

    Examples
    --------
    >>> round(dcg([3, 2, 3, 0, 1, 2]), 4)
    6.8611
    >>> round(dcg([3, 2, 3, 0, 1, 2], gain="exponential"), 4)
    13.8482
    >>> dcg(["a", "b", "c"], {"a": 3, "c": 1})   # 3 / log2(2) + 1 / log2(4)
    3.5
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base, judged_only)
    val = _trec_dcg(r, k, gain, log_base, discount, gain_values)
    # with a gain map, defined where NDCG is: a positive ideal
    defined = None
    if gain_values is not None:
        defined = _trec_idcg(r, k, gain, log_base, "min", discount, gain_values) > 0
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)


@fill_doc
def idcg(
    a=None,
    b=None,
    *,
    k=None,
    gain="linear",
    log_base=2.0,
    idcg="min",
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    discount="log",
):
    """Ideal DCG at k: the DCG of the relevant items in decreasing order of gain.

    .. math::

        \\mathrm{IDCG@}k = \\sum_{i=1}^{\\min(|R|, k)} \\frac{g(rel^*_i)}{\\log_b(i+1)}
        \\quad (\\texttt{idcg='min'}), \\qquad
        \\sum_{i=1}^{k} \\frac{1}{\\log_b(i+1)} \\quad (\\texttt{idcg='k'}),

    with ``rel*_1 >= rel*_2 >= ...`` the user's gains sorted in decreasing
    order. The ideal order includes relevant items missing from a ranked
    list, and does not depend on ties.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(gain)s
    %(log_base)s
    %(idcg)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s
    %(discount)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    dcg : The DCG of the ranking itself.
    ndcg : ``DCG@k / IDCG@k``.

    References
    ----------
    %(ref_jarvelin2002)s

    %(ref_tamm2021)s

    Examples
    --------
    >>> round(idcg([3, 2, 3, 0, 1, 2]), 4)
    7.1410
    >>> idcg([0, 0, 1, 1], k=1)
    1.0
    >>> round(idcg([0, 0, 1, 1], k=3, idcg="k"), 4)   # 1 + 1/log2(3) + 1/2
    2.1309
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base, judged_only)
    val = _idcg(r, k, gain, log_base, idcg, discount)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def ndcg(
    a=None,
    b=None,
    *,
    k=None,
    gain="linear",
    log_base=2.0,
    idcg="min",
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    discount="log",
    gain_values=None,
):
    """Normalised discounted cumulative gain at k, ``DCG@k / IDCG@k``.

    .. math::

        \\mathrm{NDCG@}k = \\frac{\\mathrm{DCG@}k}{\\mathrm{IDCG@}k}, \\qquad
        \\mathrm{DCG@}k = \\sum_{i=1}^{k} \\frac{g(rel_i)}{\\log_b(i+1)}

    The log base cancels out (with ``discount='log'``). Users without
    relevant items have no IDCG; ``no_relevant`` decides what they count as.
    Under ``ties='expected'`` the DCG is its expectation over the orders of
    tied items (McSherry & Najork, 2008), which is scikit-learn's
    ``ndcg_score`` and torchmetrics' tie handling.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    %(gain)s
    %(log_base)s
    %(idcg)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s
    %(discount)s
    gain_values : mapping of int to float, optional
        trec_eval's gain map (``-m ndcg.1=0.5,2=3``; ``gain_init.c``): the
        gain of each named grade (an int ``>= 0``); the other grades keep
        the gain of ``gain``. Grade 0, the judged non-relevant items, may
        get a gain, and gains may be 0 or negative; see
        :mod:`recmetrics.metrics.trec_gain` for the ideal ranking.

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    dcg, idcg : The numerator and the denominator.
    average_precision : The other standard rank-sensitive metric.
    recmetrics.conventions.describe : Which library uses which gain, IDCG and discount.

    References
    ----------
    %(ref_jarvelin2002)s

    %(ref_burges2005)s

    %(ref_wang2013)s

    %(ref_mcsherry2008)s

    %(ref_pedregosa2011)s

    Examples
    --------
    >>> round(ndcg([3, 2, 3, 0, 1, 2]), 4)
    0.9608
    >>> round(ndcg([1, 2, 3, 4, 5], {1, 3, 5}, k=5), 4)
    0.8855
    >>> round(ndcg([0, 1, 1, 0, 1], discount="jarvelin"), 4)   # LensKit's default discount
    0.7836
    >>> ndcg(ranks=[1, 2, 11], k=10, per_user=True).round(4).tolist()   # 1 / log2(r + 1)
    [1.0, 0.6309, 0.0]
    >>> round(ndcg([0, 0, 1, 1], k=3, idcg="k"), 4)   # RecTools' IDCG over k positions
    0.2346
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base, judged_only)
    num = _trec_dcg(r, k, gain, log_base, discount, gain_values)
    den = _trec_idcg(r, k, gain, log_base, idcg, discount, gain_values)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    # with a gain map, judged non-relevant items may make the ideal positive
    defined = None if gain_values is None else den > 0
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)
