"""scikit-learn's DET curve, partial AUC, coverage error, drop_intermediate and weighted AUC.

Each is compared with scikit-learn itself on random inputs with many ties
(few score levels), and the per-user measures with brute force over every
order of the tied items under ``ties='expected'``.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import recmetrics as rm

sk = pytest.importorskip("sklearn.metrics")

SEEDS = range(40)
TOL = 1e-12


def _binary(seed, n=None, levels=4):
    """Binary labels with both classes, and scores on a few levels (many ties)."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(3, 12))
    while True:
        y = rng.integers(0, 2, n)
        if 0 < y.sum() < n:
            break
    return y, rng.integers(0, levels, n).astype(float) / levels


def _matrix(seed, n_users=6, n_items=7, levels=3):
    rng = np.random.default_rng(seed)
    y = (rng.random((n_users, n_items)) < 0.4).astype(int)
    y[0, :] = 0
    y[1, :] = 1
    y[2, :2] = [1, 0]
    return y, rng.integers(0, levels, (n_users, n_items)).astype(float)


def _orders_mean(fn, y, s):
    """Mean of fn over every order of the tied items (each turned into distinct scores)."""
    groups = [np.flatnonzero(s == v) for v in np.unique(s)[::-1]]
    values = []
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = np.concatenate(perms)
        strict = np.empty(len(s))
        strict[order] = np.arange(len(s), 0, -1)
        values.append(fn(y, strict))
    return float(np.mean(values))


# ----------------------------------------------------------------- curves
@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_roc_curve_equals_sklearn(seed, drop):
    y, s = _binary(seed)
    got = rm.roc_curve(y, s, drop_intermediate=drop)
    want = sk.roc_curve(y, s, drop_intermediate=drop)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=0, atol=TOL)


@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_det_curve_equals_sklearn(seed, drop):
    y, s = _binary(seed, levels=3 + seed % 5)
    got = rm.det_curve(y, s, drop_intermediate=drop)
    want = sk.det_curve(y, s, drop_intermediate=drop)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=0, atol=TOL)


def test_drop_intermediate_keeps_the_area():
    for seed in SEEDS:
        y, s = _binary(seed)
        fpr, tpr, _ = rm.roc_curve(y, s, drop_intermediate=True)
        assert rm.trapezoid_area(fpr, tpr) == pytest.approx(rm.auc(y, s), abs=TOL)


def test_curves_bad_input():
    with pytest.raises(ValueError, match="both positives and negatives"):
        rm.det_curve([1, 1], [0.1, 0.2])
    with pytest.raises(TypeError, match="drop_intermediate"):
        rm.det_curve([1, 0], [0.1, 0.2], drop_intermediate="yes")
    with pytest.raises(TypeError, match="drop_intermediate"):
        rm.roc_curve([1, 0], [0.1, 0.2], drop_intermediate=1)
    with pytest.raises(ValueError, match="y_true"):
        rm.det_curve([2, 0], [0.1, 0.2])


# ----------------------------------------------------------------- partial AUC
FPRS = (0.05, 0.1, 0.3, 0.5, 0.77, 1.0)


@pytest.mark.parametrize("max_fpr", FPRS)
@pytest.mark.parametrize("seed", SEEDS)
def test_partial_auc_linear_equals_sklearn_with_ties(seed, max_fpr):
    y, s = _binary(seed)
    got = rm.partial_auc(y, s, max_fpr=max_fpr, interpolation="linear")
    assert got == pytest.approx(sk.roc_auc_score(y, s, max_fpr=max_fpr), abs=1e-12)


@pytest.mark.parametrize("max_fpr", FPRS)
@pytest.mark.parametrize("seed", SEEDS)
def test_partial_auc_expected_is_the_mean_over_tie_orders(seed, max_fpr):
    y, s = _binary(seed, n=int(3 + seed % 6))
    for mcclish in (True, False):
        got = rm.partial_auc(y, s, max_fpr=max_fpr, mcclish=mcclish)
        if mcclish:  # on strict orders scikit-learn and the expectation agree
            want = _orders_mean(lambda a, b: sk.roc_auc_score(a, b, max_fpr=max_fpr), y, s)
        else:
            want = _orders_mean(
                lambda a, b: rm.partial_auc(a, b, max_fpr=max_fpr, mcclish=False), y, s
            )
        assert got == pytest.approx(want, abs=1e-12)


def test_partial_auc_per_user_and_forms():
    y, s = _matrix(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [sk.roc_auc_score(y[u], s[u], max_fpr=0.3) for u in range(len(y))]
    got = rm.partial_auc(y, s, max_fpr=0.3, interpolation="linear", per_user=True)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)  # NaN where sklearn gives NaN
    assert rm.partial_auc(y, s, max_fpr=0.3, interpolation="linear") == pytest.approx(
        np.nanmean(want)
    )
    # the evaluate name with ir_measures' parameter syntax
    res = rm.evaluate(y, s, ["pauc(max_fpr=0.3)", "pauc"])
    assert res["pauc(max_fpr=0.3)"] == pytest.approx(rm.partial_auc(y, s, max_fpr=0.3))
    assert res["pauc"] == pytest.approx(rm.partial_auc(y, s))
    # max_fpr = 1 is the AUC
    assert rm.partial_auc(y, s, max_fpr=1.0) == pytest.approx(rm.auc(y, s))
    # ranks of held-out items in a catalogue
    assert rm.partial_auc(ranks=[1], n_items=11, max_fpr=0.5) == 1.0


def test_partial_auc_bad_input():
    y, s = [1, 0, 0], [0.3, 0.2, 0.1]
    for bad in (0, 0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="max_fpr"):
            rm.partial_auc(y, s, max_fpr=bad)
    for bad in ("0.1", True, None):
        with pytest.raises(TypeError, match="max_fpr"):
            rm.partial_auc(y, s, max_fpr=bad)
    with pytest.raises(ValueError, match="interpolation"):
        rm.partial_auc(y, s, interpolation="diagonal")
    with pytest.raises(TypeError, match="mcclish"):
        rm.partial_auc(y, s, mcclish="yes")
    with pytest.raises(ValueError, match="catalogue size"):
        rm.partial_auc(["a", "b"], {"a"})


# ----------------------------------------------------------------- coverage error
@pytest.mark.parametrize("seed", SEEDS)
def test_coverage_error_pessimistic_equals_sklearn(seed):
    y, s = _matrix(seed)
    got = rm.coverage_error(y, s, ties="pessimistic", no_relevant="zero")
    assert got == pytest.approx(sk.coverage_error(y, s), abs=TOL)
    per_user = rm.coverage_error(y, s, ties="pessimistic", no_relevant="zero", per_user=True)
    want = [sk.coverage_error(y[u : u + 1], s[u : u + 1]) for u in range(len(y))]
    np.testing.assert_allclose(per_user, want, rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_coverage_error_expected_is_the_mean_over_tie_orders(seed):
    y, s = _binary(seed, n=int(3 + seed % 6), levels=2 + seed % 3)
    want = _orders_mean(lambda a, b: sk.coverage_error([a], [b]), y, s)
    assert rm.coverage_error(y, s) == pytest.approx(want, abs=TOL)


def test_coverage_error_lists_need_the_catalogue_for_unlisted_items():
    assert rm.coverage_error(["a", "b", "c"], {"b"}) == 2.0
    with pytest.raises(ValueError, match="catalogue size"):
        rm.coverage_error(["a", "b", "c"], {"b", "z"})
    # z is tied with the 6 unlisted items below the list: 3 + (6 + 1) / 2
    assert rm.coverage_error(["a", "b", "c"], {"b", "z"}, n_items=9) == 6.5


# ----------------------------------------------------------------- weighted average
@pytest.mark.parametrize("seed", SEEDS)
def test_auc_average_relevant_is_sklearn_weighted_over_users(seed):
    y, s = _matrix(seed)
    keep = [u for u in range(len(y)) if 0 < y[u].sum() < y.shape[1]]
    y, s = y[keep], s[keep]
    want = sk.roc_auc_score(y.T, s.T, average="weighted")
    assert rm.auc(y, s, average="relevant") == pytest.approx(want, abs=TOL)
    assert rm.auc(y, s, average="user") == pytest.approx(
        sk.roc_auc_score(y.T, s.T, average="macro"), abs=TOL
    )


# ----------------------------------------------------------------- already in the package
@pytest.mark.parametrize("seed", SEEDS)
def test_lrap_and_label_ranking_loss_are_existing_options(seed):
    """LRAP is AP with sklearn's tie rule; label_ranking_loss is the pessimistic rank loss.

    ``label_ranking_average_precision_score`` counts a user without relevant
    items as 1 (``no_relevant='one'``); ``label_ranking_loss`` counts a tied
    pair as wrong (``ties='pessimistic'``) and a user with one class only as
    0 (``rank_loss(no_relevant='zero')``).
    """
    y, s = _matrix(seed)
    lrap = rm.average_precision(
        y, s, ap_ties="group_end", no_relevant="one", ap_denominator="relevant"
    )
    assert lrap == pytest.approx(sk.label_ranking_average_precision_score(y, s), abs=TOL)
    loss = rm.rank_loss(y, s, ties="pessimistic", per_user=True)
    assert np.nan_to_num(loss, nan=0.0).mean() == pytest.approx(
        sk.label_ranking_loss(y, s), abs=TOL
    )
