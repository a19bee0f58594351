"""A preset's per-metric setting never silently replaces a keyword passed explicitly."""

import numpy as np
import pytest

import recmetrics as rm
from recmetrics import conventions
from recmetrics.providers import METRIC_OVERRIDES

Y = np.array([[1, 0, 1], [0, 0, 0], [0, 1, 0]])
S = np.array([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3], [0.5, 0.4, 0.1]])

CASES = [
    (preset, metric, key, wanted)
    for preset, table in METRIC_OVERRIDES.items()
    for metric, kw in table.items()
    for key, wanted in kw.items()
    if key not in conventions.CALLER_CHOOSES
]


@pytest.mark.parametrize(("preset", "metric", "key", "wanted"), CASES)
def test_explicit_value_that_the_metric_overrides_raises(preset, metric, key, wanted):
    general = conventions.PRESETS[preset][key]
    passed = {key: general}
    if general == wanted:  # nothing to contradict
        pytest.skip("the override equals the general value")
    with pytest.raises(ValueError, match=f"sets {key}={wanted!r} for {metric}"):
        conventions.resolve(preset, passed, [metric])
    with pytest.raises(ValueError, match=f"sets {key}="):
        conventions.resolve(preset, passed)  # every metric of the preset
    # a metric without an override keeps the general value, as before
    others = [m for m in ("ndcg", "precision", "mrr") if m not in METRIC_OVERRIDES[preset]]
    options, _, _ = conventions.resolve(preset, passed, others)
    assert options[key] == general


def test_sklearn_auc_keeps_its_skip_when_left_out():
    out = rm.evaluate(Y, S, ["auc"], convention="sklearn", per_user=True)
    assert np.isnan(out["auc"].iloc[1])  # the one-class user is skipped
    assert out["auc"].iloc[0] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="sets no_relevant='skip' for auc"):
        rm.evaluate(Y, S, ["ndcg@2", "auc"], convention="sklearn", no_relevant="zero")
    # the same keyword is fine when no requested metric sets it otherwise
    ndcg = rm.evaluate(Y, S, ["ndcg@2"], convention="sklearn", no_relevant="zero")
    assert ndcg["ndcg@2"] == pytest.approx(rm.ndcg(Y, S, k=2, no_relevant="zero"))


def test_caller_chooses_keywords_still_win():
    chooser = sorted(conventions.CALLER_CHOOSES)
    assert chooser  # 'users' decides which users are evaluated, for every metric
    _, overrides, _ = conventions.resolve("recommenders", {"users": "truth"}, ["precision"])
    assert all("users" not in kw for kw in overrides.values())


def test_metrics_may_be_any_iterable():
    with pytest.raises(ValueError, match="sets no_relevant='skip' for auc"):
        conventions.resolve("sklearn", {"no_relevant": "zero"}, ("auc",))
