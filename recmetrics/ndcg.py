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
no discount before rank ``b``; with ``b = 2`` this is LensKit's default
``1 / log2(max(i, 2))``).

The input forms and the keywords ``ties``, ``no_relevant`` and ``per_user``
are those of :mod:`recmetrics.topn`.
"""

from __future__ import annotations

import numpy as np

from ._inputs import as_ranking
from ._metric_core import expected_sum, finish
from ._validation import check_choice, check_k, check_positive_number
from .ranking import Ranking

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


def discount(positions, log_base=2.0, kind="log"):
    """Position discount ``1 / log_b(i + 1)``, or ``1 / max(1, log_b(i))``.

    ``kind='log'`` (default) is the discount of most libraries;
    ``kind='jarvelin'`` is the original one of Järvelin & Kekäläinen (2002),
    which leaves the first ``b - 1`` ranks undiscounted; with ``b = 2`` it is
    LensKit's default ``1 / log2(max(i, 2))`` (ranks 1 and 2 both weigh 1).

    Examples
    --------
    >>> discount([1, 2, 3]).round(4).tolist()
    [1.0, 0.6309, 0.5]
    >>> discount([1, 2, 3, 4], kind="jarvelin").round(4).tolist()
    [1.0, 1.0, 0.6309, 0.5]
    """
    check_choice(kind, "discount", DISCOUNTS)
    b = _check_log_base(log_base)
    pos = np.asarray(positions, dtype=np.float64)
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


def _prep(a, b, ranks, n_items, mask, ties, k, log_base):
    k = check_k(k, allow_none=True)
    _check_log_base(log_base)
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
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
    # ideal order: each user's gains sorted in decreasing order, truncated at k
    user = r.user
    order = np.lexsort((-r.gain, user))
    pos = np.arange(order.shape[0]) - r.indptr[user[order]] + 1.0
    keep = pos <= (np.inf if k is None else k)
    w = _gain(r.gain[order], gain) * discount(pos, log_base, kind)
    val = np.bincount(user[order][keep], weights=w[keep], minlength=r.n_users)
    return _check_finite_sum(val, r, "IDCG")


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
):
    """Cumulative gain at k: the sum of the gains in the top ``k`` (no discount).

    Examples
    --------
    >>> cg([3, 2, 3, 0, 1, 2])
    11.0
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, 2.0)
    val = _check_finite_sum(expected_sum(r, k, np.ones_like, weights=_gain(r.gain, gain)), r, "CG")
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


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
    discount="log",
):
    """Discounted cumulative gain at k.

    .. math:: \\mathrm{DCG@}k = \\sum_{i=1}^{k} \\frac{g(rel_i)}{\\log_b(i+1)}

    Parameters
    ----------
    gain : {'linear', 'exponential', 'binary'}, default 'linear'
        ``g(rel) = rel``, ``2^rel - 1``, or 1 for every relevant item.
    log_base : float, default 2
        Base ``b > 1`` of the logarithm in the discount.
    discount : {'log', 'jarvelin'}, default 'log'
        ``1 / log_b(i + 1)``, or ``1 / max(1, log_b(i))`` (see
        :func:`discount`; LensKit's default).

    Examples
    --------
    >>> round(dcg([3, 2, 3, 0, 1, 2]), 4)
    6.8611
    >>> round(dcg([3, 2, 3, 0, 1, 2], gain="exponential"), 4)
    13.8482
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base)
    val = _dcg(r, k, gain, log_base, discount)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


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
    discount="log",
):
    """Ideal DCG at k: the DCG of the relevant items in decreasing order of gain.

    Parameters
    ----------
    idcg : {'min', 'k'}, default 'min'
        ``'min'``: the ideal list holds the user's relevant items, so only
        ``min(|R|, k)`` positions carry gain (most libraries). ``'k'``: as if
        ``k`` relevant items filled the list (binary relevance only), which
        caps NDCG below 1 for users with fewer than ``k`` relevant items.
    discount : {'log', 'jarvelin'}, default 'log'
        As in :func:`dcg`.

    Examples
    --------
    >>> round(idcg([3, 2, 3, 0, 1, 2]), 4)
    7.1410
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base)
    val = _idcg(r, k, gain, log_base, idcg, discount)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


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
    discount="log",
):
    """Normalised discounted cumulative gain at k, ``DCG@k / IDCG@k``.

    The log base cancels out (with ``discount='log'``). Users without
    relevant items have no IDCG; ``no_relevant`` decides what they count as.
    ``gain``, ``log_base``, ``idcg`` and ``discount`` are as in :func:`dcg`
    and :func:`idcg`.

    Examples
    --------
    >>> round(ndcg([3, 2, 3, 0, 1, 2]), 4)
    0.9608
    >>> round(ndcg([1, 2, 3, 4, 5], {1, 3, 5}, k=5), 4)
    0.8855
    >>> round(ndcg([0, 1, 1, 0, 1], discount="jarvelin"), 4)   # LensKit's default discount
    0.7836
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base)
    num = _dcg(r, k, gain, log_base, discount)
    den = _idcg(r, k, gain, log_base, idcg, discount)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
