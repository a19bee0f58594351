"""Cumulative gain family: CG, DCG, IDCG and NDCG (Järvelin & Kekäläinen, 2002).

For gains ``rel_i`` of the items at positions ``i = 1, 2, ...``:

.. math::

    \\mathrm{CG@}k = \\sum_{i=1}^{k} rel_i, \\qquad
    \\mathrm{DCG@}k = \\sum_{i=1}^{k} \\frac{g(rel_i)}{\\log_b(i+1)}, \\qquad
    \\mathrm{NDCG@}k = \\frac{\\mathrm{DCG@}k}{\\mathrm{IDCG@}k},

with the gain ``g(rel) = rel`` (``gain='linear'``) or ``2^{rel} - 1``
(``gain='exponential'``, Burges et al., 2005). The two coincide for binary
relevance. IDCG is the DCG of the ideal order of the user's relevant items.

The input forms and the keywords ``ties``, ``no_relevant`` and ``per_user``
are those of :mod:`recmetrics.topn`.
"""
from __future__ import annotations

import numpy as np

from ._validation import check_choice, check_k, check_positive_number
from .ranking import Ranking, as_ranking, expected_sum, finish

__all__ = ["cg", "dcg", "idcg", "ndcg", "GAINS", "IDCG_MODES", "discount"]

GAINS = ("linear", "exponential")
IDCG_MODES = ("min", "k")


def _gain(values, gain):
    check_choice(gain, "gain", GAINS)
    return values if gain == "linear" else np.expm1(values * np.log(2.0))


def discount(positions, log_base=2.0):
    """Position discount ``1 / log_b(i + 1)``.

    Examples
    --------
    >>> discount([1, 2, 3]).round(4).tolist()
    [1.0, 0.6309, 0.5]
    """
    b = check_positive_number(log_base, "log_base")
    if b == 1.0:
        raise ValueError("log_base must not be 1")
    return np.log(b) / np.log1p(np.asarray(positions, dtype=np.float64))


def _prep(a, b, ranks, n_items, mask, ties, k, log_base):
    k = check_k(k, allow_none=True)
    check_positive_number(log_base, "log_base")
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    return r, single, k


def _dcg(r: Ranking, k, gain, log_base):
    return expected_sum(r, k, lambda i: discount(i, log_base), weights=_gain(r.gain, gain))


def _idcg(r: Ranking, k, gain, log_base, idcg):
    check_choice(idcg, "idcg", IDCG_MODES)
    if idcg == "k":
        if k is None:
            raise ValueError("idcg='k' needs a cutoff k")
        if r.is_graded:
            raise ValueError("idcg='k' is defined for binary relevance only; use idcg='min' with graded gains")
        return np.full(r.n_users, discount(np.arange(1, k + 1), log_base).sum())
    # ideal order: each user's gains sorted in decreasing order, truncated at k
    user = r.user
    order = np.lexsort((-r.gain, user))
    pos = np.arange(order.shape[0]) - r.indptr[user[order]] + 1.0
    keep = pos <= (np.inf if k is None else k)
    w = _gain(r.gain[order], gain) * discount(pos, log_base)
    return np.bincount(user[order][keep], weights=w[keep], minlength=r.n_users)


def cg(a=None, b=None, *, k=None, gain="linear", ranks=None, n_items=None, mask=None,
       ties="expected", no_relevant="zero", per_user=False):
    """Cumulative gain at k: the sum of the gains in the top ``k`` (no discount).

    Examples
    --------
    >>> cg([3, 2, 3, 0, 1, 2])
    11.0
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, 2.0)
    val = expected_sum(r, k, np.ones_like, weights=_gain(r.gain, gain))
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def dcg(a=None, b=None, *, k=None, gain="linear", log_base=2.0, ranks=None, n_items=None,
        mask=None, ties="expected", no_relevant="zero", per_user=False):
    """Discounted cumulative gain at k.

    .. math:: \\mathrm{DCG@}k = \\sum_{i=1}^{k} \\frac{g(rel_i)}{\\log_b(i+1)}

    Parameters
    ----------
    gain : {'linear', 'exponential'}, default 'linear'
        ``g(rel) = rel`` or ``2^rel - 1``.
    log_base : float, default 2
        Base ``b`` of the logarithm in the discount.

    Examples
    --------
    >>> round(dcg([3, 2, 3, 0, 1, 2]), 4)
    6.8611
    >>> round(dcg([3, 2, 3, 0, 1, 2], gain="exponential"), 4)
    13.8482
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base)
    val = _dcg(r, k, gain, log_base)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def idcg(a=None, b=None, *, k=None, gain="linear", log_base=2.0, idcg="min", ranks=None,
         n_items=None, mask=None, ties="expected", no_relevant="zero", per_user=False):
    """Ideal DCG at k: the DCG of the relevant items in decreasing order of gain.

    Parameters
    ----------
    idcg : {'min', 'k'}, default 'min'
        ``'min'``: the ideal list holds the user's relevant items, so only
        ``min(|R|, k)`` positions carry gain (most libraries). ``'k'``: as if
        ``k`` relevant items filled the list (binary relevance only), which
        caps NDCG below 1 for users with fewer than ``k`` relevant items.

    Examples
    --------
    >>> round(idcg([3, 2, 3, 0, 1, 2]), 4)
    7.1410
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base)
    val = _idcg(r, k, gain, log_base, idcg)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def ndcg(a=None, b=None, *, k=None, gain="linear", log_base=2.0, idcg="min", ranks=None,
         n_items=None, mask=None, ties="expected", no_relevant="zero", per_user=False):
    """Normalised discounted cumulative gain at k, ``DCG@k / IDCG@k``.

    The log base cancels out. Users without relevant items have no IDCG;
    ``no_relevant`` decides what they count as.

    Examples
    --------
    >>> round(ndcg([3, 2, 3, 0, 1, 2]), 4)
    0.9608
    >>> round(ndcg([1, 2, 3, 4, 5], [1, 3, 5], k=5), 4)
    0.8855
    """
    r, single, k = _prep(a, b, ranks, n_items, mask, ties, k, log_base)
    num = _dcg(r, k, gain, log_base)
    den = _idcg(r, k, gain, log_base, idcg)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
