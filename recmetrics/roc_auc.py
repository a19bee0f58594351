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

from ._inputs import as_ranking, input_form
from ._metric_core import finish, hits
from ._validation import as_numeric_array, check_choice, check_same_length
from .ranking import Ranking, from_scores

__all__ = [
    "auc",
    "rank_loss",
    "roc_curve",
    "precision_recall_curve",
    "trapezoid_area",
    "break_even_point",
    "AUC_AVERAGES",
]

AUC_AVERAGES = ("user", "weighted", "global")


def _binary_vectors(y_true, y_score):
    t = as_numeric_array(y_true, "y_true", ndim=1)
    s = as_numeric_array(y_score, "y_score", ndim=1)
    check_same_length(t, s, "y_true", "y_score")
    if not np.isin(t, (0, 1)).all():
        raise ValueError("y_true must hold binary labels 0/1 for a ROC or precision-recall curve")
    return t, s


def _auc_values(r: Ranking):
    """Per-user AUC with ties counting 1/2, and where it is defined."""
    if r.n_items is None:
        raise ValueError(
            "AUC needs the catalogue size: pass n_items= (ranked lists or ranks) or score matrices"
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
    loss = r.per_user_sum(above + 0.5 * tied)
    defined = (n_pos > 0) & (n_neg > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(defined, 1.0 - loss / np.where(defined, n_pos * n_neg, 1.0), 0.0)
    return val, defined


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
):
    """Area under the ROC curve, per user, averaged over users or pooled.

    .. math::

        \\mathrm{AUC} = \\frac{1}{|R|\\,(n-|R|)} \\sum_{i \\in R} \\sum_{j \\notin R}
        \\Big(\\mathbb{1}[s_i > s_j] + \\tfrac12 \\mathbb{1}[s_i = s_j]\\Big)

    the probability that a relevant item outranks a non-relevant one, ties
    counting one half (Hanley & McNeil, 1982). With one relevant item at rank
    ``r`` among ``n``, ``AUC = (n - r) / (n - 1)``.

    Parameters
    ----------
    average : {'user', 'weighted', 'global'}, default 'user'
        ``'user'``: mean of the per-user AUCs. ``'weighted'``: per-user AUCs
        weighted by each user's number of ranked items (impressions), the
        GAUC of Zhou et al. (2018). ``'global'``: pool every (user, item)
        pair of a score matrix into one ranking and compute one AUC, as
        ``sklearn.metrics.roc_auc_score`` on the flattened arrays.
    ties : str
        Only ``'expected'`` gives the one-half convention; deterministic
        policies order the tied items first.

    Users with no relevant (or no non-relevant) item have no AUC; see
    ``no_relevant``. The default ``'skip'`` leaves them out (NaN per user);
    ``'zero'`` would count them as 0, far below the chance level 0.5. 1-D
    ``y_true`` (0/1) and ``y_score`` of equal length are one ranking.

    Examples
    --------
    >>> auc([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])   # 3 of 4 pairs ordered well
    0.75
    >>> auc([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.1])   # a tied pair counts 1/2
    0.75
    >>> auc(ranks=[100], n_items=10_000)          # (n - r) / (n - 1)
    0.9900990099009901
    """
    check_choice(average, "average", AUC_AVERAGES)
    if average == "global":
        if input_form(a, b, ranks) != "scores":
            raise ValueError(
                "average='global' pools scores, so it needs y_true and y_score matrices"
            )
        if n_items is not None:
            raise TypeError(
                "n_items does not apply to (y_true, y_score): the catalogue is the columns"
            )
        t = as_numeric_array(a, "y_true", ndim=(1, 2)) if not hasattr(a, "toarray") else a.toarray()
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
        return finish(val, r, True, no_relevant=no_relevant, per_user=False, defined=defined)
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    val, defined = _auc_values(r)
    if average == "weighted" and not (single or per_user):
        check_choice(no_relevant, "no_relevant", ("zero", "skip", "raise"))
        if no_relevant == "raise" and not np.all(defined):
            return finish(val, r, False, no_relevant="raise", per_user=False, defined=defined)
        w = r.n_ranked * (defined if no_relevant == "skip" else 1.0)
        return float(np.sum(np.where(defined, val, 0.0) * w) / np.sum(w))
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user, defined=defined)


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
):
    """The fraction of (relevant, non-relevant) pairs ranked the wrong way, ties one half.

    .. math:: \\ell_{rank} = \\frac{1}{m^+ m^-}\\sum_{x^+}\\sum_{x^-}
              \\Big(\\mathbb{1}[f(x^+) < f(x^-)] + \\tfrac12\\mathbb{1}[f(x^+) = f(x^-)]\\Big)

    Equal to ``1 - auc(...)`` (Zhou, 2016); the arguments are those of :func:`auc`.

    Examples
    --------
    >>> rank_loss([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])
    0.25
    """
    value = auc(
        a,
        b,
        average=average,
        ranks=ranks,
        n_items=n_items,
        mask=mask,
        ties=ties,
        no_relevant=no_relevant,
        per_user=per_user,
    )
    return 1.0 - value if isinstance(value, float) else 1.0 - np.asarray(value)


def roc_curve(y_true, y_score):
    """ROC curve of one list of scores: one point per distinct threshold.

    Lower the threshold from above the highest score (the point (0, 0)) to
    each distinct score in turn; a group of tied items moves the curve by a
    diagonal step (Fawcett, 2006).

    Returns
    -------
    fpr, tpr, thresholds : ndarray
        ``thresholds[0] = inf``.

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    t, s = _binary_vectors(y_true, y_score)
    n_pos, n_neg = t.sum(), t.shape[0] - t.sum()
    if n_pos == 0 or n_neg == 0:
        raise ValueError("y_true must contain both positives and negatives for a ROC curve")
    tp, fp, thr = _cumulative_counts(t, s)
    return fp / n_neg, tp / n_pos, thr


def _cumulative_counts(t, s):
    order = np.argsort(-s, kind="stable")
    ss, tt = s[order], t[order]
    last = np.r_[np.flatnonzero(np.diff(ss) != 0), ss.shape[0] - 1]
    tp = np.r_[0.0, np.cumsum(tt)[last]]
    fp = np.r_[0.0, (last + 1) - np.cumsum(tt)[last]]
    return tp, fp, np.r_[np.inf, ss[last]]


def precision_recall_curve(y_true, y_score):
    """Precision-recall curve of one list of scores: one point per distinct threshold.

    Returns
    -------
    precision, recall, thresholds : ndarray
        Ordered by decreasing threshold (increasing recall), starting at the
        highest score (there is no point for the empty prediction, whose
        precision is undefined).

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


def trapezoid_area(x, y):
    """Area under a piecewise-linear curve through the points ``(x_i, y_i)``.

    .. math:: \\frac12 \\sum_{i=1}^{m-1} (x_{i+1} - x_i)(y_i + y_{i+1})

    the estimate of the sources (Zhou, 2016) for the AUC of a ROC curve.
    ``x`` must be monotonic. As ``sklearn.metrics.auc``, a decreasing ``x``
    (points listed from right to left) gives the same, positive area as the
    same points in increasing order, and a non-monotonic ``x`` raises
    ``ValueError`` (the formula would subtract the parts where ``x`` goes
    back).

    Examples
    --------
    >>> trapezoid_area([0, 0, 0.5, 0.5, 1], [0, 0.5, 0.5, 1, 1])
    0.75
    >>> trapezoid_area([1, 0.5, 0.5, 0, 0], [1, 1, 0.5, 0.5, 0])   # the same points, reversed
    0.75
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
):
    """Break-even point: where precision equals recall on the P-R curve.

    ``P@k = hits/k`` and ``R@k = hits/|R|`` are equal exactly at ``k = |R|``,
    so the break-even point is the precision at ``|R|`` (R-precision,
    Manning et al., 2008). 1-D ``y_true`` (0/1) and ``y_score`` are read as one
    ranking.

    Examples
    --------
    >>> break_even_point([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1])   # P@2 = R@2 = 1/2
    0.5
    """
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    nrel = r.n_relevant
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(nrel > 0, hits(r, np.maximum(nrel, 1)) / np.maximum(nrel, 1), 0.0)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)
