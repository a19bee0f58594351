"""trec_eval's set measures and relative precision: functions of the retrieved set.

trec_eval's ``set_*`` measures look at the whole retrieved list as a set
(its order does not matter), and ``relative_P_k`` divides the hits of the
top ``k`` by the most a list could hold there:

* :func:`set_precision` (``set_P``), :func:`set_recall` (``set_recall``) and
  :func:`set_f` (``set_F``): precision, recall and F over the whole list;
* :func:`set_relative_precision` (``set_relative_P``): the hits over the
  most the list could hold, ``min(n, |R|)``;
* :func:`relative_precision` (``relative_P_k``): ``hits@k / min(k, |R|)``.

Each is trec_eval's C file line by line (``m_set_P.c``, ``m_set_recall.c``,
``m_set_F.c``, ``m_set_rel_P.c``, ``m_rel_P.c``). trec_eval's ``-M depth``
(truncate the run first) makes the set measures functions of the top
``depth``; here that is truncating the predictions first.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._validation import check_positive_number
from ._core import finish, hits
from .topn._common import _cutoff_size, _f_beta, _rank, _ratio

__all__ = [
    "set_precision",
    "set_recall",
    "set_f",
    "set_relative_precision",
    "relative_precision",
]


def _set_counts(a, b, ranks, n_items, mask, ties, judged_only):
    """The Ranking, whether one user was given, the hits of the whole list and its length."""
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    if np.any(~np.isfinite(r.n_ranked)):
        raise ValueError("the set measures need the length of each list: pass n_items with ranks")
    # every retrieved relevant item is a hit, whatever the order of tied items
    return r, single, hits(r, None), _cutoff_size(r, None)


@fill_doc
def set_precision(
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
    """Set precision: the fraction of the retrieved items that are relevant (trec_eval's ``set_P``).

    .. math:: \\mathrm{set\\_P} = \\frac{|\\mathrm{retrieved} \\cap R|}{n}

    per user, averaged over users, with ``n`` the length of the user's list
    (0 for an empty list). It is trec_eval's ``set_P`` (``m_set_P.c``:
    ``num_rel_ret / num_ret``), the same as :func:`~recmetrics.precision`
    without a cutoff. trec_eval's own note: ``P_50`` differs from
    ``-M 50 -m set_P`` in that ``set_P`` does not fill a list shorter than
    50 with non-relevant items. The order of the list does not matter, so
    every tie policy gives the same value.

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
    set_recall, set_f, set_relative_precision : The other set measures.
    recmetrics.precision : Precision at a cutoff.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> set_precision([1, 0, 1, 0])
    0.5
    >>> set_precision(["a", "b", "c"], {"a", "d"})   # 1 of the 3 retrieved
    0.3333333333333333
    """
    r, single, h, n = _set_counts(a, b, ranks, n_items, mask, ties, judged_only)
    return finish(_ratio(h, n), r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def set_recall(
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
    """Set recall: the fraction of the relevant items retrieved (trec_eval's ``set_recall``).

    .. math:: \\mathrm{set\\_recall} = \\frac{|\\mathrm{retrieved} \\cap R|}{|R|}

    per user, averaged over users. It is trec_eval's ``set_recall``
    (``m_set_recall.c``: ``num_rel_ret / num_rel``), the same as
    :func:`~recmetrics.recall` without a cutoff. With a score matrix every
    item is ranked, so it is 1; it tells something only for lists (or
    truncated predictions). The order of the list does not matter.

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
    set_precision, set_f : The other set measures.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> set_recall(["a", "b", "c"], {"a", "d"})   # 1 of the 2 relevant items
    0.5
    """
    r, single, h, _ = _set_counts(a, b, ranks, n_items, mask, ties, judged_only)
    val = _ratio(h, r.n_relevant)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def set_f(
    a=None,
    b=None,
    *,
    beta=1.0,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Set F: the weighted harmonic mean of set precision and set recall (trec_eval's ``set_F``).

    .. math:: F_\\beta = \\frac{(1 + \\beta^2)\\,P\\,R}{\\beta^2 P + R}

    per user, averaged over users, with ``P`` = :func:`set_precision` and
    ``R`` = :func:`set_recall`, and 0 when no relevant item is retrieved.
    ``beta > 1`` weighs recall more (van Rijsbergen, 1979), as in
    :func:`~recmetrics.f_score`, which this is without a cutoff.

    **trec_eval's parameter is our beta squared.** ``m_set_F.c`` computes
    ``(x + 1) P R / (x P + R)`` with ``x`` "the relative importance of R
    to P" (default 1.0), so trec_eval's ``set_F.x`` is ``set_f(beta=sqrt(x))``:
    ``set_F.4`` is ``beta=2`` and ``set_F.0.25`` is ``beta=0.5``. The two
    agree at the default, ``set_F`` = ``set_F.1.0`` = ``beta=1``.

    Parameters
    ----------
    %(a_b)s
    beta : float, default 1.0
        The weight of recall: recall counts ``beta`` times as much as
        precision. trec_eval's parameter ``x`` is ``beta ** 2``.
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
    set_precision, set_recall : The two means set F combines.
    recmetrics.f_score : F-beta at a cutoff.

    References
    ----------
    %(ref_vanrijsbergen1979)s

    %(ref_trec_eval)s

    Examples
    --------
    >>> set_f(["a", "b", "c"], {"a", "d"})   # P = 1/3, R = 1/2
    0.4
    >>> set_f(["a", "b", "c"], {"a", "d"}, beta=2.0)   # trec_eval's set_F.4
    0.45454545454545453
    """
    beta = check_positive_number(beta, "beta")
    r, single, h, n = _set_counts(a, b, ranks, n_items, mask, ties, judged_only)
    p = _ratio(h, n)
    rec = _ratio(h, r.n_relevant)
    val = _f_beta(p, rec, beta)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def set_relative_precision(
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
    """Relative set precision: hits over the most the list can hold (``set_relative_P``).

    .. math:: \\mathrm{set\\_relative\\_P} = \\frac{|\\mathrm{retrieved} \\cap R|}{\\min(n, |R|)}

    per user, averaged over users, with ``n`` the length of the user's list
    (0 for an empty list). It is trec_eval's ``set_relative_P``
    (``m_set_rel_P.c``: ``num_rel_ret / MIN(num_ret, num_rel)``), the set
    precision divided by the largest set precision a list of ``n`` items
    can reach: set precision while ``n <= |R|``, set recall beyond. It is
    :func:`relative_precision` without a cutoff. The order of the list does
    not matter.

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
    relative_precision : The same at a cutoff ``k``.
    set_precision : Precision over the whole list.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> set_relative_precision(["a", "b", "c"], {"a", "d"})   # 1 of min(3, 2)
    0.5
    >>> set_relative_precision(["a", "b"], {"a", "c", "d"})   # 1 of min(2, 3)
    0.5
    """
    r, single, h, n = _set_counts(a, b, ranks, n_items, mask, ties, judged_only)
    val = _ratio(h, np.minimum(n, r.n_relevant))
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def relative_precision(
    a=None,
    b=None,
    *,
    k=None,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Relative precision at k: hits@k over the most the top k can hold (``relative_P_k``).

    .. math:: \\mathrm{relative\\_P@}k = \\frac{\\mathrm{hits@}k}{\\min(k, |R|)}

    per user, averaged over users: precision at ``k`` divided by the
    largest precision at ``k`` possible, which is precision up to
    ``k = |R|`` and recall beyond. It is trec_eval's ``relative_P_k``
    (``m_rel_P.c``): a list shorter than ``k`` keeps the denominator
    ``min(k, |R|)`` (its empty slots are misses, as in
    :func:`~recmetrics.precision`). Without a cutoff ``k`` is the length
    ``n`` of the list: :func:`set_relative_precision`.

    Under ``ties='expected'`` the value is the exact expectation over the
    orders of tied items: ``hits@k`` is linear in the items' positions
    and the denominator does not depend on the order.

    Parameters
    ----------
    %(a_b)s
    %(k)s
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
    set_relative_precision : The same over the whole list.
    recmetrics.precision, recmetrics.r_precision : Precision at ``k`` and at ``|R|``.

    References
    ----------
    %(ref_trec_eval)s

    Examples
    --------
    >>> relative_precision([1, 0, 1, 0, 1], k=2)   # 1 hit of min(2, 3)
    0.5
    >>> relative_precision([1, 0, 1, 0, 1], k=4)   # 2 hits of min(4, 3)
    0.6666666666666666
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    den = np.minimum(_cutoff_size(r, k), r.n_relevant)
    val = _ratio(hits(r, k), den)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
