"""trec_eval's geometric means and the AP relatives of ``-m all_trec``.

* :func:`gm_map` and :func:`gm_bpref` (``m_gm_map.c``, ``m_gm_bpref.c``):
  AP and bpref per user, summarised by trec_eval's geometric mean with a
  floor (the registry's ``aggregate='geometric'``, :mod:`._aggregate`);
* :func:`set_map` (``m_set_map.c``): the unranked AP of the retrieved set,
  set precision times set recall;
* :func:`rprec_mult` (``m_Rprec_mult.c``): precision at a multiple of
  ``|R|``, trec_eval's ``Rprec_mult_0.20`` ... ``Rprec_mult_2.00``.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._validation import check_positive_number
from ._core import at_value, finish, hits
from .judged import bpref
from .topn import average_precision
from .topn._common import _rank, _ratio

__all__ = ["gm_map", "gm_bpref", "set_map", "rprec_mult", "RPREC_MULTIPLES", "RPREC_MULT_AT"]


@fill_doc
def gm_map(
    a=None,
    b=None,
    *,
    k=None,
    ap_denominator="min",
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    ap_ties="policy",
    short_lists="k",
):
    """Geometric mean average precision, as trec_eval's ``gm_map`` summarises it.

    .. math:: \\mathrm{GMAP} = \\exp\\left(\\frac{1}{|U|}\\sum_{u \\in U}
              \\log \\max(\\mathrm{AP}_u, 10^{-5})\\right)

    The per-user value is :func:`~recmetrics.average_precision` with the
    same keywords (``per_user=True`` gives the APs); only the summary over
    users differs: the geometric mean, after flooring each AP at trec_eval's
    ``MIN_GEO_MEAN = 0.00001`` (``m_gm_map.c`` stores ``log(MAX(ap,
    MIN_GEO_MEAN))`` per topic, ``te_calc_avg_meas_s_gm`` prints ``exp`` of
    their mean; Robertson 2006). A user without relevant items follows
    ``no_relevant`` (``'zero'``, the ``trec_eval`` preset's, floors it at
    ``0.00001``). Under trec_eval's ``-c`` a topic missing from the run adds
    ``log(MIN_GEO_MEAN)``, which is what a user without predictions scores
    here with ``users='truth'``. trec_eval divides AP by ``|R|``
    (``ap_denominator='relevant'``, as the preset sets); pytrec_eval returns
    the logarithm as the per-query value, here the AP itself.

    Under ``ties='expected'`` each AP is its exact expectation over the
    orders of tied items, and the geometric mean is taken of those
    expectations.

    Parameters
    ----------
    %(a_b)s
    %(k)s
    ap_denominator : {'min', 'relevant', 'k', 'hits'}, default 'min'
        As in :func:`~recmetrics.average_precision` (trec_eval: ``'relevant'``).
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s
    ap_ties : {'policy', 'group_end'}, default 'policy'
        As in :func:`~recmetrics.average_precision`.
    short_lists : {'k', 'list'}, default 'k'
        As in :func:`~recmetrics.average_precision`.

    Returns
    -------
    float or ndarray or pandas.Series
        The geometric mean over users; with ``per_user=True``, or for one
        user's input, the APs.

    See Also
    --------
    recmetrics.average_precision : The per-user value; its mean is MAP.
    gm_bpref : The same summary of bpref.

    References
    ----------
    %(ref_robertson2006)s

    %(ref_trec_eval)s

    Examples
    --------
    AP 1 and AP 0.5: the geometric mean is sqrt(0.5); a user with AP 0
    counts as 0.00001:

    >>> y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> y_score = [[0.3, 0.2, 0.1], [0.3, 0.2, 0.1], [0.3, 0.2, 0.1]]
    >>> round(gm_map(y_true[:2], y_score[:2]), 6)
    0.707107
    >>> round(gm_map(y_true, y_score, k=2), 6)   # AP@2 of the third user is 0
    0.017100
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    values = average_precision(
        r,
        k=k,
        ap_denominator=ap_denominator,
        no_relevant="zero",
        per_user=True,
        ap_ties=ap_ties,
        short_lists=short_lists,
    )
    return finish(
        np.asarray(values, dtype=np.float64),
        r,
        single,
        no_relevant=no_relevant,
        per_user=per_user,
        aggregate="geometric",
    )


@fill_doc
def gm_bpref(
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
    """Binary preference (bpref) summarised by trec_eval's geometric mean (``gm_bpref``).

    .. math:: \\mathrm{gm\\_bpref} = \\exp\\left(\\frac{1}{|U|}\\sum_{u \\in U}
              \\log \\max(\\mathrm{bpref}_u, 10^{-5})\\right)

    The per-user value is :func:`~recmetrics.bpref` (``per_user=True``
    gives it); the summary is trec_eval's geometric mean with the floor
    ``MIN_GEO_MEAN = 0.00001`` (``m_gm_bpref.c``, ``te_calc_avg_meas_s_gm``),
    as for :func:`gm_map`.

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
    float or ndarray or pandas.Series
        The geometric mean over users; with ``per_user=True``, or for one
        user's input, the bprefs.

    See Also
    --------
    recmetrics.bpref : The per-user value.
    gm_map : The same summary of AP.

    References
    ----------
    %(ref_buckley2004)s

    %(ref_trec_eval)s

    Examples
    --------
    bpref 1 and bpref 0 (a judged non-relevant item above the only relevant
    one): the geometric mean is sqrt(1 * 0.00001):

    >>> y_true, y_score = [[1, 0, 0], [0, 1, 0]], [[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]]
    >>> gm_bpref(y_true, y_score, per_user=True).tolist(), round(gm_bpref(y_true, y_score), 6)
    ([1.0, 0.0], 0.003162)
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    values = bpref(r, no_relevant="zero", per_user=True)
    return finish(
        np.asarray(values, dtype=np.float64),
        r,
        single,
        no_relevant=no_relevant,
        per_user=per_user,
        aggregate="geometric",
    )


@fill_doc
def set_map(
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
    """Set MAP: the unranked AP of the retrieved set (trec_eval's ``set_map``).

    .. math:: \\mathrm{set\\_map} = \\frac{|\\mathrm{retrieved} \\cap R|^2}{n\\,|R|}
              = \\mathrm{set\\_P} \\cdot \\mathrm{set\\_recall}

    per user, averaged over users, with ``n`` the length of the list (0 for
    an empty list). trec_eval's ``m_set_map.c`` (``num_rel_ret**2 /
    (num_ret * num_rel)``, formerly ``exact_unranked_avg_prec``): each
    retrieved relevant item is given the set precision, each missed one 0.
    The order does not matter, so every tie policy gives the same value.

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
    recmetrics.set_precision, recmetrics.set_recall : Its two factors.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> set_map(["a", "b", "c", "d"], {"a", "c", "z"})   # 2 * 2 / (4 * 3)
    0.3333333333333333
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    if np.any(~np.isfinite(r.n_ranked)):
        raise ValueError("set_map needs the length of each list: pass n_items with ranks")
    h = hits(r, None)
    val = _ratio(h * h, r.n_ranked * r.n_relevant)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


#: trec_eval's default multiples of ``|R|`` (``m_Rprec_mult.c``: default_Rprec_cutoffs).
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@fill_doc
def rprec_mult(
    a=None,
    b=None,
    *,
    multiple=1.0,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Precision at a multiple of ``|R|`` (trec_eval's ``Rprec_mult_x``).

    .. math:: \\mathrm{Rprec\\_mult}_x = \\frac{\\mathrm{hits@}c}{c}, \\qquad
              c = \\lfloor x |R| + 0.9 \\rfloor

    per user, averaged over users: trec_eval's ``m_Rprec_mult.c`` line by
    line (its cutoff is ``(long) (x * num_rel + 0.9)`` in doubles; a
    cutoff beyond the list divides the relevant items retrieved by ``c``,
    the empty slots counting as misses; a cutoff of 0 scores 0). ``x = 1``
    is :func:`~recmetrics.r_precision`. The registry has trec_eval's ten
    default multiples as ``rprec_mult_0.20`` ... ``rprec_mult_2.00``
    (pytrec_eval's ``Rprec_mult_0.20`` ...). Under ``ties='expected'`` the
    value is the exact expectation over the orders of tied items (the
    expected hits at the user's own cutoff).

    Parameters
    ----------
    %(a_b)s
    multiple : float, default 1.0
        The multiple ``x`` of ``|R|`` (> 0).
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
    recmetrics.r_precision : The multiple 1.

    References
    ----------
    %(ref_buckley2005)s

    %(ref_trec_eval)s

    Examples
    --------
    |R| = 2: at x = 2 the cutoff is floor(4.9) = 4, and 2 of the first 4
    items are relevant; at x = 0.2 it is floor(1.3) = 1:

    >>> rprec_mult([0, 1, 0, 1, 0], multiple=2.0), rprec_mult([0, 1, 0, 1, 0], multiple=0.2)
    (0.5, 0.0)
    """
    multiple = check_positive_number(multiple, "multiple")
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    cut = np.floor(multiple * r.n_relevant + 0.9)  # (long) of a non-negative double
    val = _ratio(hits(r, np.maximum(cut, 1.0)), cut)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


def _at_multiple(x):
    """:func:`rprec_mult` at ``multiple=x``: the registry's ``rprec_mult_x.xx``."""
    doc = f"Precision at {x:.2f} |R|: rprec_mult(multiple={x})."
    return at_value(rprec_mult, "multiple", x, f"rprec_mult_{x:.2f}", doc)


# the registry's metric per trec_eval default multiple, by trec_eval's name (lower case)
RPREC_MULT_AT = {f"rprec_mult_{x:.2f}": _at_multiple(x) for x in RPREC_MULTIPLES}
