"""ROC and precision-recall curves, AUC, rank loss and the break-even point.

Two views of the same quantity are implemented and checked against each other
in the tests and in the book:

* the *curve* view: sweep a threshold down the scores, trace the ROC curve
  (FPR, TPR) or the precision-recall curve, and integrate the ROC curve with
  the trapezoid rule (:func:`roc_curve`, :func:`trapezoid_area`);
* the *rank* view: the AUC is the probability that a random relevant item is
  ranked above a random non-relevant one, ties counting one half, i.e.
  ``1 - rank loss`` (:func:`auc`, :func:`rank_loss`), computed from the same
  ranking representation as every other metric.

For ROC/P-R curves of one list of scores (binary classification), pass 1-D
``y_true`` (0/1) and ``y_score``. :func:`auc` also takes every input form of
:mod:`recmetrics.ranking` and averages per user, per impression, or pools all
users into one ranking.
"""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._validation import as_numeric_array, check_bool, check_choice, check_same_length
from ..inputs.forms import as_ranking, input_form
from ..ranking import Ranking, from_scores
from ..ranking._representation import condense
from ._core import finish
from .topn.counts import _precision_at_own_cutoff

__all__ = [
    "auc",
    "rank_loss",
    "roc_curve",
    "precision_recall_curve",
    "trapezoid_area",
    "break_even_point",
    "AUC_AVERAGES",
]

AUC_AVERAGES = ("user", "weighted", "relevant", "global")


def _binary_vectors(y_true, y_score):
    t = as_numeric_array(y_true, "y_true", ndim=1, allow_bool=True)
    s = as_numeric_array(y_score, "y_score", ndim=1)
    check_same_length(t, s, "y_true", "y_score")
    if not np.isin(t, (0, 1)).all():
        raise ValueError("y_true must hold binary labels 0/1 for a ROC or precision-recall curve")
    return t, s


def _pair_counts(r: Ranking, what="AUC"):
    """Per relevant entry: the non-relevant items above it and tied with it; n+, n- per user."""
    if r.n_items is None:
        raise ValueError(
            f"{what} needs the catalogue size: pass n_items= (ranked lists or ranks) or score "
            "matrices"
        )
    n_pos = r.n_relevant
    n_neg = r.n_items - n_pos
    ranked = np.isfinite(r.start)
    user = r.user
    n_pos_ranked = r.per_user_sum(ranked.astype(float))
    # negatives above each relevant item, and negatives tied with it
    above = np.where(ranked, r.start - r.rel_before, (r.n_ranked - n_pos_ranked)[user])
    tied = np.where(
        ranked,
        r.size - r.group_rel,
        ((r.n_items - r.n_ranked) - (n_pos - n_pos_ranked))[user],
    )
    return above, tied, n_pos, n_neg


def _auc_values(r: Ranking):
    """Per-user AUC with ties counting 1/2, and where it is defined."""
    above, tied, n_pos, n_neg = _pair_counts(r)
    loss = r.per_user_sum(above + 0.5 * tied)
    defined = (n_pos > 0) & (n_neg > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(defined, 1.0 - loss / np.where(defined, n_pos * n_neg, 1.0), 0.0)
    return val, defined


@fill_doc
def auc(
    a=None,
    b=None,
    *,
    average="user",
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Area under the ROC curve, per user, averaged over users or pooled.

    .. math::

        \\mathrm{AUC} = \\frac{1}{|R|\\,(n-|R|)} \\sum_{i \\in R} \\sum_{j \\notin R}
        \\Big(\\mathbb{1}[s_i > s_j] + \\tfrac12 \\mathbb{1}[s_i = s_j]\\Big)

    with ``R`` the user's relevant items among ``n`` ranked ones: the
    probability that a relevant item outranks a non-relevant one, ties
    counting one half (Hanley & McNeil, 1982). It equals the area under the
    user's ROC curve (:func:`roc_curve`, :func:`trapezoid_area`). With one
    relevant item at rank ``r`` among ``n``, ``AUC = (n - r) / (n - 1)``.

    The whole catalogue is ranked, so AUC needs its size: score matrices
    give it; ranked lists and ``ranks=`` need ``n_items`` (``ValueError``
    otherwise), and the items missing from a list are tied below it. Only
    ``ties='expected'`` (the default) gives the one-half convention;
    ``'optimistic'`` and ``'pessimistic'`` order the tied relevant items
    first or last, ``'trec_eval'`` by column.

    Users with no relevant (or no non-relevant) item have no AUC; see
    ``no_relevant``. The default ``'skip'`` leaves them out (NaN per user);
    ``'zero'`` would count them as 0, far below the chance level 0.5. 1-D
    ``y_true`` (0/1) and ``y_score`` of equal length are one ranking.

    Parameters
    ----------
    %(a_b)s
    %(auc_average)s
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
    rank_loss : ``1 - AUC``.
    recmetrics.partial_auc : The area up to a false positive rate (``pauc``).
    roc_curve : The ROC curve of one list of scores.
    trapezoid_area : The area under a curve through given points.
    recmetrics.sampled.expected_metric : The AUC of a sampled rank.

    References
    ----------
    %(ref_hanley1982)s

    %(ref_fawcett2006)s

    %(ref_zhou2018)s

    %(ref_pedregosa2011)s

    Examples
    --------
    >>> auc([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])   # 3 of 4 pairs ordered well
    0.75
    >>> auc([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.1])   # a tied pair counts 1/2
    0.75
    >>> auc(ranks=[100], n_items=10_000)          # (n - r) / (n - 1)
    0.9900990099009901

    A ranked list in a catalogue of 5 items (two unlisted items tied below):

    >>> round(auc(["a", "b", "c"], {"a", "c"}, n_items=5), 4)   # 5 of 6 pairs
    0.8333

    The three averages over two users:

    >>> y_true = [[1, 0, 1, 0], [0, 1, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.3, 0.1], [0.4, 0.3, 0.2, 0.1]]
    >>> auc(y_true, y_score, per_user=True).round(4).tolist()
    [0.75, 0.6667]
    >>> [round(auc(y_true, y_score, average=a), 4) for a in ("user", "weighted", "global")]
    [0.7083, 0.7083, 0.7333]

    Weighted by the number of relevant items (2 and 1), scikit-learn's
    ``average='weighted'`` over the users as labels:

    >>> round(auc(y_true, y_score, average="relevant"), 4)   # (2 * 0.75 + 0.6667) / 3
    0.7222
    """
    return _auc_or_loss(
        a, b, False, average, ranks, n_items, mask, ties, no_relevant, per_user, judged_only
    )


def _auc_or_loss(
    a, b, loss, average, ranks, n_items, mask, ties, no_relevant, per_user, judged_only
):
    """AUC (``loss=False``) or the rank loss ``1 - AUC``, before ``no_relevant`` applies.

    The policy is applied to the values asked for, so that ``'zero'`` gives
    a user without both classes a rank loss of 0 (not ``1 - 0``).
    """
    check_choice(average, "average", AUC_AVERAGES)
    check_bool(judged_only, "judged_only")
    if average == "global":
        if input_form(a, b, ranks) != "scores":
            raise ValueError(
                "average='global' pools scores, so it needs y_true and y_score matrices"
            )
        if n_items is not None:
            raise TypeError(
                "n_items does not apply to (y_true, y_score): the catalogue is the columns"
            )
        t = (
            as_numeric_array(a, "y_true", ndim=(1, 2), allow_bool=True)
            if not hasattr(a, "toarray")
            else a.toarray()
        )
        s = as_numeric_array(b, "y_score", ndim=(1, 2))
        check_same_length(t, s, "y_true", "y_score")
        m = (
            None
            if mask is None
            else (mask.toarray() if hasattr(mask, "toarray") else np.asarray(mask))
        )
        if per_user:
            raise ValueError(
                "average='global' pools every user into one ranking, so per_user=True does not "
                "apply"
            )
        r = from_scores(
            t.reshape(1, -1),
            s.reshape(1, -1),
            mask=None if m is None else m.reshape(1, -1),
            ties=ties or "expected",
        )
        val, defined = _auc_values(r)
        val = 1.0 - val if loss else val
        return finish(val, r, True, no_relevant=no_relevant, per_user=False, defined=defined)
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    r = condense(r, judged_only)
    r.check_depth(None, "rank loss" if loss else "AUC")
    val, defined = _auc_values(r)
    val = 1.0 - val if loss else val
    if average in ("weighted", "relevant") and not (single or per_user):
        check_choice(no_relevant, "no_relevant", ("zero", "skip", "raise"))
        if no_relevant == "raise" and not np.all(defined):
            return finish(val, r, False, no_relevant="raise", per_user=False, defined=defined)
        size = r.n_ranked if average == "weighted" else r.n_relevant
        w = size * (defined if no_relevant == "skip" else 1.0)
        return float(np.sum(np.where(defined, val, 0.0) * w) / np.sum(w))
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)


@fill_doc
def rank_loss(
    a=None,
    b=None,
    *,
    average="user",
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """The fraction of (relevant, non-relevant) pairs ranked the wrong way, ties one half.

    .. math:: \\ell_{rank} = \\frac{1}{m^+ m^-}\\sum_{x^+}\\sum_{x^-}
              \\Big(\\mathbb{1}[f(x^+) < f(x^-)] + \\tfrac12\\mathbb{1}[f(x^+) = f(x^-)]\\Big)

    with ``m+`` relevant items ``x+``, ``m-`` non-relevant items ``x-`` and
    scores ``f``: equal to ``1 - auc(...)`` (Zhou, 2016), with the same
    arguments as :func:`auc`.

    A user with one class only (every ranked item relevant, or none) has
    no pair and no rank loss: ``no_relevant`` applies to the loss itself,
    so ``'zero'`` gives it 0, ``'one'`` gives 1 and ``'skip'`` (the
    default) leaves it out. scikit-learn's ``label_ranking_loss`` counts
    such a user as 0 and a tied pair as wrong: it is
    ``rank_loss(y_true, y_score, ties='pessimistic', no_relevant='zero')``
    (``sklearn/metrics/_ranking.py``).

    Parameters
    ----------
    %(a_b)s
    %(auc_average)s
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
    auc : ``1 - rank loss``.

    References
    ----------
    %(ref_zhou2016)s

    %(ref_hanley1982)s

    %(ref_pedregosa2011)s

    Examples
    --------
    >>> rank_loss([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])
    0.25
    >>> y_true, y_score = [[1, 0, 1, 0], [0, 1, 0, 0]], [[0.9, 0.8, 0.3, 0.1], [0.4, 0.3, 0.2, 0.1]]
    >>> rank_loss(y_true, y_score, per_user=True).round(4).tolist()
    [0.25, 0.3333]
    >>> [rank_loss([1, 1], [0.2, 0.1], no_relevant=p) for p in ("zero", "one")]   # one class
    [0.0, 1.0]
    """
    return _auc_or_loss(
        a, b, True, average, ranks, n_items, mask, ties, no_relevant, per_user, judged_only
    )


@fill_doc
def roc_curve(y_true, y_score, *, drop_intermediate=False):
    """ROC curve of one list of scores: one point per distinct threshold.

    .. math::

        \\mathrm{TPR}(\\theta) = \\frac{|\\{i: y_i = 1,\\ s_i \\ge \\theta\\}|}{|\\{i: y_i = 1\\}|},
        \\qquad
        \\mathrm{FPR}(\\theta) = \\frac{|\\{i: y_i = 0,\\ s_i \\ge \\theta\\}|}{|\\{i: y_i = 0\\}|}

    Lower the threshold ``theta`` from above the highest score (the point
    (0, 0)) to each distinct score in turn; a group of tied items moves the
    curve by a diagonal step (Fawcett, 2006). By default every distinct
    threshold keeps its point; ``drop_intermediate=True`` (scikit-learn's
    default) drops the points inside a straight segment, as scikit-learn.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 0 or 1, with at least one of each.
    y_score : array-like of shape (n,)
        Scores (finite); higher means more likely positive.
    drop_intermediate : bool, default False
        Drop the points where neither count bends (the second difference of
        both the false and the true positive counts is 0), keeping the first
        and last point: scikit-learn's ``drop_intermediate=True``. The curve
        and its area are unchanged.

    Returns
    -------
    fpr, tpr : numpy.ndarray of shape (n_thresholds + 1,)
        False and true positive rates, from (0, 0) to (1, 1).
    thresholds : numpy.ndarray of shape (n_thresholds + 1,)
        ``inf`` and then the distinct scores in decreasing order; point ``j``
        predicts positive for the scores ``>= thresholds[j]``.

    See Also
    --------
    trapezoid_area : The area under the curve (the AUC).
    auc : The AUC from ranks, for many users at once.
    recmetrics.det_curve : The false negative rate against FPR.
    precision_recall_curve : Precision against recall at the same thresholds.

    References
    ----------
    %(ref_fawcett2006)s

    %(ref_pedregosa2011)s

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    >>> fpr, tpr, thr = roc_curve([1, 0, 1, 0], [0.5, 0.5, 0.3, 0.1])   # a tie: diagonal step
    >>> fpr.tolist(), tpr.tolist(), thr.tolist()
    ([0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0], [inf, 0.5, 0.3, 0.1])
    >>> fpr, tpr, thr = roc_curve([1, 1, 0, 0], [0.9, 0.8, 0.3, 0.1], drop_intermediate=True)
    >>> fpr.tolist(), tpr.tolist(), thr.tolist()   # (0.5, 1) dropped
    ([0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 1.0, 1.0], [inf, 0.9, 0.8, 0.1])
    """
    drop_intermediate = check_bool(drop_intermediate, "drop_intermediate")
    t, s = _binary_vectors(y_true, y_score)
    n_pos, n_neg = t.sum(), t.shape[0] - t.sum()
    if n_pos == 0 or n_neg == 0:
        raise ValueError("y_true must contain both positives and negatives for a ROC curve")
    tp, fp, thr = _cumulative_counts(t, s)
    if drop_intermediate:
        tp, fp, thr = _drop_straight(tp, fp, thr)
    return fp / n_neg, tp / n_pos, thr


def _drop_straight(tp, fp, thr):
    """scikit-learn's drop_intermediate: keep the ends and the points where tp or fp bends.

    As scikit-learn, the test runs on the thresholds before the point (0, 0)
    is prepended, so the first finite threshold is always kept.
    """
    if tp.shape[0] <= 3:
        return tp, fp, thr
    bend = (np.diff(fp[1:], 2) != 0) | (np.diff(tp[1:], 2) != 0)
    keep = np.r_[True, True, bend, True]
    return tp[keep], fp[keep], thr[keep]


def _cumulative_counts(t, s):
    order = np.argsort(-s, kind="stable")
    ss, tt = s[order], t[order]
    last = np.r_[np.flatnonzero(np.diff(ss) != 0), ss.shape[0] - 1]
    tp = np.r_[0.0, np.cumsum(tt)[last]]
    fp = np.r_[0.0, (last + 1) - np.cumsum(tt)[last]]
    return tp, fp, np.r_[np.inf, ss[last]]


@fill_doc
def precision_recall_curve(y_true, y_score):
    """Precision-recall curve of one list of scores: one point per distinct threshold.

    .. math::

        P(\\theta) = \\frac{TP(\\theta)}{TP(\\theta) + FP(\\theta)}, \\qquad
        R(\\theta) = \\frac{TP(\\theta)}{|\\{i: y_i = 1\\}|}

    with ``TP`` and ``FP`` counted over the scores ``>= theta``. Tied items
    enter together, so a tie group adds one point. Unlike scikit-learn's
    ``precision_recall_curve``, the points are in decreasing order of
    threshold and no point ``(R = 0, P = 1)`` is appended.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels, 0 or 1, with at least one 1.
    y_score : array-like of shape (n,)
        Scores (finite); higher means more likely positive.

    Returns
    -------
    precision, recall, thresholds : numpy.ndarray of shape (n_thresholds,)
        Ordered by decreasing threshold (increasing recall), starting at the
        highest score (there is no point for the empty prediction, whose
        precision is undefined).

    See Also
    --------
    roc_curve : TPR against FPR at the same thresholds.
    break_even_point : Where precision equals recall.
    average_precision : The area under the step-wise P-R curve.

    References
    ----------
    %(ref_davis2006)s

    %(ref_manning2008)s

    Examples
    --------
    >>> p, r, thr = precision_recall_curve([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])
    >>> p.round(3).tolist(), r.tolist()
    ([1.0, 0.5, 0.667, 0.5], [0.5, 0.5, 1.0, 1.0])
    """
    t, s = _binary_vectors(y_true, y_score)
    if t.sum() == 0:
        raise ValueError("y_true has no positive label; recall is undefined")
    tp, fp, thr = _cumulative_counts(t, s)
    tp, fp, thr = tp[1:], fp[1:], thr[1:]
    return tp / (tp + fp), tp / t.sum(), thr


@fill_doc
def trapezoid_area(x, y):
    """Area under a piecewise-linear curve through the points ``(x_i, y_i)``.

    .. math:: \\frac12 \\sum_{i=1}^{m-1} (x_{i+1} - x_i)(y_i + y_{i+1})

    the estimate of the sources (Zhou, 2016) for the AUC of a ROC curve.
    ``x`` must be monotonic. As ``sklearn.metrics.auc``, a decreasing ``x``
    (points listed from right to left) gives the same, positive area as the
    same points in increasing order, and a non-monotonic ``x`` raises
    ``ValueError`` (the formula would subtract the parts where ``x`` goes
    back).

    Parameters
    ----------
    x : array-like of shape (m,)
        Abscissae, monotonic (increasing or decreasing), at least 2 points.
    y : array-like of shape (m,)
        Ordinates.

    Returns
    -------
    float
        The area, positive for a positive ``y`` whichever the direction of
        ``x``.

    See Also
    --------
    roc_curve : The points of a ROC curve.
    auc : The same area computed from ranks.

    References
    ----------
    %(ref_fawcett2006)s

    %(ref_zhou2016)s

    Examples
    --------
    >>> trapezoid_area([0, 0, 0.5, 0.5, 1], [0, 0.5, 0.5, 1, 1])
    0.75
    >>> trapezoid_area([1, 0.5, 0.5, 0, 0], [1, 1, 0.5, 0.5, 0])   # the same points, reversed
    0.75
    >>> fpr, tpr, _ = roc_curve([1, 0, 1, 0], [0.5, 0.5, 0.3, 0.1])
    >>> trapezoid_area(fpr, tpr), auc([1, 0, 1, 0], [0.5, 0.5, 0.3, 0.1])   # ties count 1/2
    (0.625, 0.625)
    """
    x = as_numeric_array(x, "x", ndim=1)
    y = as_numeric_array(y, "y", ndim=1)
    check_same_length(x, y, "x", "y")
    if x.shape[0] < 2:
        raise ValueError(f"x and y need at least 2 points to enclose an area, got {x.shape[0]}")
    dx = np.diff(x)
    if np.any(dx < 0):
        if np.any(dx > 0):
            raise ValueError("x is neither increasing nor decreasing; sort the points by x first")
        dx = -dx
    return float(0.5 * np.sum(dx * (y[1:] + y[:-1])))


@fill_doc
def break_even_point(
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
    """Break-even point: where precision equals recall on the P-R curve.

    .. math:: \\mathrm{BEP} = \\mathrm{P@}|R| = \\mathrm{R@}|R|
              = \\frac{\\mathrm{hits@}|R|}{|R|}

    ``P@k = hits/k`` and ``R@k = hits/|R|`` are equal exactly at ``k = |R|``,
    so the break-even point is the precision at ``|R|`` (R-precision,
    Manning et al., 2008). 1-D ``y_true`` (0/1) and ``y_score`` are read as one
    ranking. Each user has its own cutoff ``|R|``; under ``ties='expected'``
    the hits are expected hits.

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
    precision_recall_curve : The curve the point lies on.
    precision, recall : The two values, at ``k = |R|``.
    recmetrics.r_precision : The same number (trec_eval's ``Rprec``), a registered
        metric with every tie policy.

    References
    ----------
    %(ref_manning2008)s

    %(ref_trec_eval)s

    Examples
    --------
    >>> break_even_point([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])   # P@2 = R@2 = 1/2
    0.5
    >>> round(break_even_point(["a", "b", "c", "d"], {"a", "c", "z"}), 4)   # P@3 = 2/3
    0.6667
    """
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    r = condense(r, judged_only)
    r.check_depth(None, "the break-even point")
    # the point where P@k = R@k is k = |R|: R-precision, computed once in topn
    val = _precision_at_own_cutoff(r)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
