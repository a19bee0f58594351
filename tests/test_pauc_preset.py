"""Partial AUC in the scikit-learn preset: ``interpolation`` is a convention keyword.

``convention='sklearn'`` gives ``pauc`` scikit-learn's straight line across a
tie group cut by ``max_fpr`` (``roc_auc_score(y, s, max_fpr=f)``, with
McClish's standardisation); the package's default is the exact expectation
over the orders of tied items.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import recmetrics as rm


def _matrix(seed, n_users=25, n_items=12):
    rng = np.random.default_rng(seed)
    y = (rng.random((n_users, n_items)) < 0.3).astype(int)
    y[0], y[1] = 0, 1  # one class only: no value
    s = rng.integers(0, 4, size=(n_users, n_items)).astype(float)  # many ties
    return y, s


def _sklearn(y, s, f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(
            [
                roc_auc_score(y[u], s[u], max_fpr=f) if 0 < y[u].sum() < y.shape[1] else np.nan
                for u in range(y.shape[0])
            ]
        )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("f", [0.05, 0.1, 0.25, 0.5, 1.0])
def test_preset_equals_roc_auc_score_max_fpr(seed, f):
    y, s = _matrix(seed)
    want = _sklearn(y, s, f)
    name = f"pauc(max_fpr={f})"
    got = rm.evaluate(y, s, [name], convention="sklearn", per_user=True)[name].to_numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, equal_nan=True)
    mean = rm.evaluate(y, s, [name], convention="sklearn")[name]
    assert mean == pytest.approx(np.nanmean(want), abs=1e-12)


def test_the_keyword_without_the_preset():
    y, s = _matrix(7)
    linear = rm.evaluate(y, s, ["pauc"], interpolation="linear", per_user=True)["pauc"]
    np.testing.assert_allclose(linear, _sklearn(y, s, 0.1), atol=1e-12)
    exact = rm.evaluate(y, s, ["pauc"], per_user=True)["pauc"]
    np.testing.assert_allclose(
        exact, rm.partial_auc(y, s, interpolation="expected", per_user=True), atol=0
    )
    assert np.nanmax(np.abs(exact - linear)) > 1e-3  # ties cut by max_fpr: they differ


def test_bad_values_are_named():
    y, s = _matrix(3)
    with pytest.raises(ValueError, match="interpolation"):
        rm.evaluate(y, s, ["pauc"], interpolation="trapezoid")


def test_describe_lists_pauc():
    table = rm.conventions.describe("sklearn")
    assert table.loc["pauc", "keywords"] == "interpolation='linear'"
    assert "roc_auc_score(max_fpr" in table.loc["pauc", "source"]
