"""scikit-learn's other ranking measures: the DET curve, partial AUC and coverage error.

Where a recommender reader meets scikit-learn (``sklearn/metrics/_ranking.py``):

* :func:`det_curve`: the detection error trade-off curve of one list of
  scores (false negative rate against false positive rate);
* :func:`partial_auc`: the area under the ROC curve up to a false positive
  rate ``max_fpr``, with McClish's standardisation, per user
  (``roc_auc_score(max_fpr=...)``; registry name ``pauc``);
* :func:`coverage_error`: how deep the ranking must be read to see every
  relevant item, per user (``coverage_error``; registry name
  ``coverage_error``).

The ROC curve with scikit-learn's ``drop_intermediate`` and the AUC averaged
with the users' numbers of relevant items as weights (scikit-learn's
``average='weighted'``) are options of :func:`recmetrics.roc_curve` and
:func:`recmetrics.auc` (``average='relevant'``).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._docs import fill_doc
from .._validation import check_bool, check_choice
from ..inputs.forms import as_ranking
from ..ranking import Ranking
from ..ranking._representation import condense
from ._core import finish
from .roc_auc import _binary_vectors, _cumulative_counts, _pair_counts

__all__ = ["det_curve", "partial_auc", "coverage_error", "PAUC_INTERPOLATIONS"]

#: How the ROC curve crosses a tie group of relevant and non-relevant items.
PAUC_INTERPOLATIONS = ("expected", "linear")


@fill_doc
def det_curve(y_true, y_score, *, drop_intermediate=False):
    """Detection error trade-off (DET) curve of one list of scores, as scikit-learn.

    .. math::

        \\mathrm{FPR}(\\theta) = \\frac{|\\{i: y_i = 0,\\ s_i \\ge \\theta\\}|}{|\\{i: y_i = 0\\}|},
        \\qquad
        \\mathrm{FNR}(\\theta) = \\frac{|\\{i: y_i = 1,\\ s_i < \\theta\\}|}{|\\{i: y_i = 1\\}|}

    the two error rates at each distinct score ``theta`` (Martin et al.,
    1997), ``FNR = 1 - TPR`` of :func:`recmetrics.roc_curve`. As
    ``sklearn.metrics.det_curve``, the points with ``FPR = 0`` but the last
    and the points after the first with ``FNR = 0`` are dropped, and the
    rest is listed in increasing order of threshold (decreasing FPR). A tie
    group of scores is one threshold.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 0 or 1, with at least one of each.
    y_score : array-like of shape (n,)
        Scores (finite); higher means more likely positive.
    drop_intermediate : bool, default False
        Drop the thresholds at which the number of true positives does not
        change from the previous or the next threshold (horizontal segments
        on the normal-deviate scale), keeping the first and the last:
        scikit-learn's ``drop_intermediate=True`` (its default is ``False``,
        as here).

    Returns
    -------
    fpr, fnr : numpy.ndarray
        False positive and false negative rates, ``fpr`` decreasing.
    thresholds : numpy.ndarray
        Increasing; point ``j`` predicts positive for the scores
        ``>= thresholds[j]``.

    Raises
    ------
    ValueError
        If ``y_true`` has only one class (scikit-learn raises too).

    See Also
    --------
    recmetrics.roc_curve : TPR against FPR at the same thresholds.

    References
    ----------
    %(ref_martin1997)s

    %(ref_pedregosa2011)s

    Notes
    -----
    scikit-learn: ``sklearn/metrics/_ranking.py``, ``det_curve`` (1.9).

    Examples
    --------
    >>> fpr, fnr, thr = det_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), fnr.tolist(), thr.tolist()
    ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.35, 0.4, 0.8])
    """
    drop_intermediate = check_bool(drop_intermediate, "drop_intermediate")
    t, s = _binary_vectors(y_true, y_score)
    if t.sum() == 0 or t.sum() == t.shape[0]:
        raise ValueError("y_true must contain both positives and negatives for a DET curve")
    tp, fp, thr = _cumulative_counts(t, s)
    if drop_intermediate and tp.shape[0] > 2:
        keep = np.r_[True, (np.diff(tp[:-1]) != 0) | (np.diff(tp[1:]) != 0), True]
        tp, fp, thr = tp[keep], fp[keep], thr[keep]
    n_pos, n_neg = tp[-1], fp[-1]
    fn = n_pos - tp
    # from the last point without a false positive to the first without a false negative
    first = np.searchsorted(fp, fp[0], side="right") - 1
    last = np.searchsorted(tp, tp[-1]) + 1
    sl = slice(first, last)
    return fp[sl][::-1] / n_neg, fn[sl][::-1] / n_pos, thr[sl][::-1]


def _check_max_fpr(max_fpr):
    if isinstance(max_fpr, bool) or not isinstance(max_fpr, numbers.Real):
        raise TypeError(f"max_fpr must be a number in (0, 1], got {max_fpr!r}")
    if not 0.0 < float(max_fpr) <= 1.0:
        raise ValueError(f"max_fpr must be in (0, 1], got {max_fpr!r}")
    return float(max_fpr)


def _area_left_of(c, q, interpolation):
    """Area swept by one relevant item up to ``c`` non-relevant items past those above it.

    ``q`` non-relevant items are tied with it. ``'expected'``: the item sits
    below ``u`` of them, ``u`` uniform on 0..q, and sweeps ``max(c - u, 0)``;
    ``'linear'``: the ROC curve crosses the tie group on a straight line, so
    the item sweeps ``integral_0^c min(t / q, 1) dt``.
    """
    c = np.asarray(c, dtype=np.float64)
    q = np.maximum(np.asarray(q, dtype=np.float64), 0.0)
    if interpolation == "expected":
        m = np.clip(np.ceil(c), 0.0, q + 1.0)
        return (m * c - m * (m - 1.0) / 2.0) / (q + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        inside = np.where(q > 0, c * c / (2.0 * np.where(q > 0, q, 1.0)), 0.0)
    return np.where(c <= 0, 0.0, np.where(c >= q, c - q / 2.0, inside))


def _pauc_values(r: Ranking, max_fpr, mcclish, interpolation):
    above, tied, n_pos, n_neg = _pair_counts(r, "partial AUC")
    budget = (max_fpr * n_neg)[r.user]  # the non-relevant items inside FPR <= max_fpr
    swept = r.per_user_sum(_area_left_of(budget - above, tied, interpolation))
    defined = (n_pos > 0) & (n_neg > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        area = np.where(defined, swept / np.where(defined, n_pos * n_neg, 1.0), 0.0)
    if mcclish:
        low, high = max_fpr**2 / 2.0, max_fpr
        area = np.where(defined, 0.5 * (1.0 + (area - low) / (high - low)), 0.0)
    return area, defined


@fill_doc
def partial_auc(
    a=None,
    b=None,
    *,
    max_fpr=0.1,
    mcclish=True,
    interpolation="expected",
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Partial AUC: the area under the ROC curve for ``FPR <= max_fpr``, standardised.

    .. math::

        A = \\int_0^{f} \\mathrm{TPR}\\; d\\,\\mathrm{FPR}, \\qquad
        \\mathrm{pAUC} = \\frac12 \\Big(1 + \\frac{A - f^2/2}{f - f^2/2}\\Big)

    with ``f = max_fpr``: McClish's (1989) standardisation maps the area of a
    random ranking (``f^2 / 2``) to 0.5 and of a perfect one (``f``) to 1,
    as ``sklearn.metrics.roc_auc_score(y_true, y_score, max_fpr=f)``. With
    ``f = 1`` it is the AUC (:func:`recmetrics.auc`). Counting pairs, with
    ``n+`` relevant and ``n-`` non-relevant items,

    .. math:: A = \\frac{1}{n^+ n^-} \\sum_{i \\in R} \\max(f\\,n^- - a_i,\\ 0)

    where ``a_i`` non-relevant items are ranked above the relevant item
    ``i``: each relevant item sweeps the part of the first ``f n-``
    non-relevant items that lie below it.

    A tie group holding relevant and non-relevant items is where the
    conventions part, when ``f n-`` falls inside it.
    ``interpolation='expected'`` (the default) takes the exact expectation over every order
    of the tied items (with ``ties='expected'``): the relevant item lies
    below ``u`` of its ``q`` tied non-relevant items, ``u`` uniform on
    ``0..q``. ``'linear'`` is scikit-learn's: its ROC curve crosses the tie
    group on a straight line, which is not the curve of any order, and
    ``max_fpr`` cuts that line. Both agree without ties, and at ``f = 1``.

    Users with no relevant or no non-relevant item have no partial AUC
    (scikit-learn warns and returns NaN); see ``no_relevant``. The whole
    catalogue is ranked, so ranked lists and ``ranks=`` need ``n_items``.

    Parameters
    ----------
    %(a_b)s
    max_fpr : float, default 0.1
        The largest false positive rate ``f``, in (0, 1].
    mcclish : bool, default True
        Standardise as McClish (scikit-learn always does); ``False`` gives
        the raw area ``A``, in ``[0, f]``.
    interpolation : {'expected', 'linear'}, default 'expected'
        How the curve crosses a tie group that ``max_fpr`` cuts (see above);
        ``'linear'`` is scikit-learn's.
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
    recmetrics.auc : The whole area (``max_fpr=1``).
    recmetrics.roc_curve : The curve.

    References
    ----------
    %(ref_mcclish1989)s

    %(ref_pedregosa2011)s

    Notes
    -----
    scikit-learn: ``sklearn/metrics/_ranking.py``, ``_binary_roc_auc_score``
    (1.9): one point at ``max_fpr`` by linear interpolation, the trapezoid
    area, then the McClish correction.

    Examples
    --------
    >>> y_true, y_score = [1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1]
    >>> partial_auc(y_true, y_score, max_fpr=1.0)       # the AUC, 5 of 6 pairs
    0.8333333333333334
    >>> round(partial_auc(y_true, y_score, max_fpr=0.5), 4)
    0.7778
    >>> round(partial_auc(y_true, y_score, max_fpr=0.5, mcclish=False), 4)   # A = (1.5 + 0.5) / 6
    0.3333

    A tie that the cut falls inside: the expectation over the two orders,
    and scikit-learn's straight line:

    >>> y_true, y_score = [1, 0, 0, 1], [0.5, 0.5, 0.2, 0.1]
    >>> round(partial_auc(y_true, y_score, max_fpr=0.25, mcclish=False), 4)
    0.0625
    >>> round(partial_auc(y_true, y_score, max_fpr=0.25, mcclish=False, interpolation="linear"), 4)
    0.0312
    """
    max_fpr = _check_max_fpr(max_fpr)
    mcclish = check_bool(mcclish, "mcclish")
    check_choice(interpolation, "interpolation", PAUC_INTERPOLATIONS)
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    r = condense(r, judged_only)
    r.check_depth(None, "partial AUC")
    val, defined = _pauc_values(r, max_fpr, mcclish, interpolation)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)


def _coverage_values(r: Ranking):
    """Expected position of each user's last relevant item."""
    ranked = np.isfinite(r.start)
    n_pos = r.n_relevant
    n_pos_ranked = r.per_user_sum(ranked.astype(float))
    missing = n_pos - n_pos_ranked  # relevant items tied below the ranked ones
    if np.any(missing > 0) and r.n_items is None:
        raise ValueError(
            "coverage_error needs the catalogue size when a relevant item is not ranked: pass "
            "n_items= (ranked lists or ranks) or score matrices"
        )
    # the last relevant item of a group of `size` holding p relevant items: E[max] of p
    # positions drawn from `size` without replacement, p (size + 1) / (p + 1)
    p = np.where(ranked, r.group_rel, 1.0)
    last = np.where(ranked, r.start + p * (r.size + 1.0) / (p + 1.0), 0.0)
    val = np.zeros(r.n_users)
    np.maximum.at(val, r.user, last)
    if np.any(missing > 0):
        tail = r.n_items - r.n_ranked
        val = np.where(missing > 0, r.n_ranked + missing * (tail + 1.0) / (missing + 1.0), val)
    return val


@fill_doc
def coverage_error(
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
    """Coverage error: the rank of the last relevant item, how deep to read to see them all.

    .. math:: \\mathrm{coverage} = \\max_{i \\in R} \\mathrm{rank}(i)

    averaged over users (Tsoumakas et al., 2010, plus one, as scikit-learn);
    the best value is ``|R|``, lower is better. Under ``ties='expected'``
    (the default) it is the exact expectation over the orders of the tied
    items: when the last tie group holding relevant items spans positions
    ``s + 1 .. s + n`` and holds ``p`` of them, ``s + p (n + 1) / (p + 1)``.
    ``sklearn.metrics.coverage_error`` gives tied items the *worst* rank of
    their group: ``ties='pessimistic'``. A user without relevant items
    counts 0 in scikit-learn (``no_relevant='zero'``); here it is skipped by
    default. Relevant items missing from a ranked list are tied below it,
    so they need ``n_items``.

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
    recmetrics.r_precision, recmetrics.recall : How much of ``R`` a depth covers.

    References
    ----------
    %(ref_tsoumakas2010)s

    %(ref_pedregosa2011)s

    Notes
    -----
    scikit-learn: ``sklearn/metrics/_ranking.py``, ``coverage_error`` (1.9):
    ``(y_score >= min relevant score).sum()``.

    Examples
    --------
    >>> coverage_error([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])   # last relevant at rank 3
    3.0
    >>> coverage_error([0, 1, 1, 0], [0.5, 0.5, 0.5, 0.1])   # 2 of 3 tied: 3 (4) / 3
    2.6666666666666665
    >>> coverage_error([0, 1, 1, 0], [0.5, 0.5, 0.5, 0.1], ties="pessimistic")   # scikit-learn
    3.0
    >>> coverage_error(ranks=[[2, 7], [1]], n_items=10, per_user=True).tolist()
    [7.0, 1.0]
    """
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    r = condense(r, judged_only)
    r.check_depth(None, "coverage_error")
    val = _coverage_values(r)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
