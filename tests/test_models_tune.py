"""Unit tests of :func:`recmetrics.models.tune`, the tuning helper of issue 29.

What it must guarantee: the validation split is carved out of ``train`` by the
caller's protocol and the model only ever sees training rows; every
configuration's validation value is :func:`recmetrics.evaluate` on the
validation users; the best row is the first maximum of ``results``; the
search is a grid within the budget, otherwise a seeded random sample of at
most ``budget`` configurations in the space's order; the choice is refit on
all of ``train``; and bad input raises naming the argument.
"""

from __future__ import annotations

import functools
import inspect
import math
import re

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics import models

LAST_ONE = functools.partial(rm.split.leave_last_out, n=1)


def _data(seed=0, n_users=40, n_items=15, per_user=6):
    """Interactions with a time and a rating, every user ``per_user`` distinct items."""
    rng = np.random.default_rng(seed)
    rows = []
    popular = rng.permutation(n_items)
    weights = 1.0 / np.arange(1, n_items + 1)
    weights /= weights.sum()
    for u in range(n_users):
        chosen = rng.choice(popular, per_user, replace=False, p=weights)
        for t, i in enumerate(chosen):
            rows.append((u, int(i), t + 10 * u, float(rng.integers(1, 6))))
    return pd.DataFrame(rows, columns=["user", "item", "timestamp", "rating"])


class Spy:
    """A model that records the matrices it is fitted on (EASE underneath)."""

    def __init__(self):
        self.calls = []

    def __call__(self, X, *, l2=1.0, scale=1.0):
        self.calls.append((X.copy(), {"l2": l2, "scale": scale}))
        return scale * rm.models.ease(X, l2=l2)


# --------------------------------------------------------------------------
# no leak: the model sees training rows only


def test_the_test_set_is_no_argument():
    assert not {"test", "y_true", "truth"} & set(inspect.signature(models.tune).parameters)


def test_validation_comes_from_train_only_and_the_refit_uses_all_of_it():
    data = _data()
    train, _test = rm.split.leave_last_out(data, n=1)
    users, items = pd.Index(data["user"].unique()), pd.Index(data["item"].unique())
    spy = Spy()
    result = models.tune(
        train, fit=spy, space={"l2": [1.0, 10.0]}, split=LAST_ONE, users=users, items=items
    )
    full = rm.split.interaction_matrix(train, users, items).toarray()
    fit_part, _ = LAST_ONE(train)
    inner = rm.split.interaction_matrix(fit_part, users, items).toarray()
    assert len(spy.calls) == 3  # two configurations, then the refit
    for X, _ in spy.calls[:2]:
        np.testing.assert_array_equal(X.toarray(), inner)  # the validation fit: train - last
    np.testing.assert_array_equal(spy.calls[2][0].toarray(), full)  # the refit: all of train
    assert (inner <= full).all() and inner.sum() == full.sum() - train["user"].nunique()
    # the held-out test rows were never seen
    test_cells = rm.split.interaction_matrix(_test, users, items).toarray() > 0
    assert not any((X.toarray()[test_cells] > 0).any() for X, _ in spy.calls)
    refit = rm.models.ease(rm.split.interaction_matrix(train, users, items), **result.best)
    np.testing.assert_array_equal(result.scores, refit)


def test_the_validation_value_is_evaluate_on_the_validation_users():
    train = _data(1)
    relevant = functools.partial(rm.split.relevant_from_ratings, threshold=4.0)
    result = models.tune(
        train,
        fit=rm.models.ease,
        space={"l2": [0.5, 50.0]},
        split=LAST_ONE,
        relevant=relevant,
        metric="ndcg@5",
    )
    users, items = result.users, result.items
    fit_part, held = LAST_ONE(train)
    X = rm.split.interaction_matrix(fit_part, users, items)
    Y = rm.split.interaction_matrix(relevant(held), users, items)
    rows = Y.toarray().sum(axis=1) > 0
    assert 0 < rows.sum() < len(users)  # only users with a relevant held-out item count
    for l2, got in zip(result.results["l2"], result.results["ndcg@5"], strict=True):
        S = rm.models.ease(X, l2=l2)
        want = rm.evaluate(Y[rows], S[rows], ["ndcg@5"], mask=X[rows])["ndcg@5"]
        assert got == want


def test_exclude_train_masks_the_fitting_items():
    train = _data(2)

    def pop(X, *, power=1.0):
        return rm.models.popularity(X) ** power

    kw = {"fit": pop, "space": {"power": [1.0]}, "split": LAST_ONE, "metric": "hr@3"}
    masked = models.tune(train, **kw).results["hr@3"].iloc[0]
    unmasked = models.tune(train, exclude_train=False, **kw).results["hr@3"].iloc[0]
    assert masked > unmasked  # unmasked, the most popular items are mostly known ones


# --------------------------------------------------------------------------
# the search


def test_best_is_the_first_maximum_of_results():
    train = _data(3)
    result = models.tune(train, fit=rm.models.ease, space={"l2": [0.1, 5.0, 500.0]}, split=LAST_ONE)
    values = result.results["ndcg@10"].to_numpy()
    assert result.best == {"l2": result.results["l2"].iloc[int(np.argmax(values))]}
    assert result.results["ndcg@10"].max() == values[np.argmax(values)]


def test_ties_go_to_the_first_configuration_of_the_space():
    spy = Spy()
    result = models.tune(
        _data(4), fit=spy, space={"scale": [3.0, 1.0, 2.0], "l2": [7.0]}, split=LAST_ONE
    )
    assert result.results["ndcg@10"].nunique() == 1  # a positive scale ranks the same
    assert result.best == {"scale": 3.0, "l2": 7.0}


def test_a_grid_in_the_order_of_the_space_last_parameter_fastest():
    spy = Spy()
    result = models.tune(
        _data(5), fit=spy, space={"l2": [1.0, 2.0], "scale": (1.0, 2.0, 3.0)}, split=LAST_ONE
    )
    assert result.search == "grid" and result.n_configurations == 6
    assert result.results[["l2", "scale"]].values.tolist() == [
        [1.0, 1.0],
        [1.0, 2.0],
        [1.0, 3.0],
        [2.0, 1.0],
        [2.0, 2.0],
        [2.0, 3.0],
    ]
    assert [c for _, c in spy.calls[:6]] == result.results[["l2", "scale"]].to_dict("records")
    assert result.results.columns.tolist() == ["l2", "scale", "ndcg@10"]


@pytest.mark.parametrize("budget", [1, 4, 7])
def test_budget_limits_the_number_of_rows(budget):
    space = {"l2": [0.5, 1.0, 2.0, 4.0], "scale": [1.0, 2.0]}  # 8 configurations
    result = models.tune(_data(6), fit=Spy(), space=space, split=LAST_ONE, budget=budget)
    assert len(result.results) == budget and result.search == "random"
    assert result.n_configurations == 8
    rows = [tuple(r) for r in result.results[["l2", "scale"]].values.tolist()]
    grid = [(a, b) for a in space["l2"] for b in space["scale"]]
    assert len(set(rows)) == budget  # distinct configurations
    assert rows == sorted(rows, key=grid.index)  # in the space's order


def test_the_same_seed_gives_the_same_frame_another_seed_another_sample():
    kw = {"fit": rm.models.ease, "split": LAST_ONE, "budget": 4}
    space = {"l2": [0.25 * 2**i for i in range(12)]}
    first = models.tune(_data(7), space=space, seed=3, **kw)
    again = models.tune(_data(7), space=space, seed=3, **kw)
    assert first.search == "random"
    pd.testing.assert_frame_equal(first.results, again.results)
    np.testing.assert_array_equal(first.scores, again.scores)
    others = [models.tune(_data(7), space=space, seed=s, **kw).results for s in (4, 5, 6)]
    assert any(not o["l2"].equals(first.results["l2"]) for o in others)
    # within the budget, the grid: the seed is not used
    small = {"l2": space["l2"][:4]}
    grids = [models.tune(_data(7), space=small, seed=s, **kw).results for s in (0, 1)]
    pd.testing.assert_frame_equal(*grids)
    assert grids[0]["l2"].tolist() == small["l2"]


def test_a_huge_space_is_sampled_without_listing_it():
    space = {f"p{i}": list(range(10)) for i in range(12)}  # 10**12 configurations

    def fit(X, **params):
        return rm.models.popularity(X) + sum(params.values())

    result = models.tune(_data(8), fit=fit, space=space, split=LAST_ONE, budget=3)
    assert len(result.results) == 3 and result.n_configurations == 10**12


# --------------------------------------------------------------------------
# what fit takes


def test_fit_input_frame_for_last_item():
    train = _data(9)

    def fit(frame, users, items, *, weight=1.0):
        return weight * rm.models.last_item(frame, users, items)

    result = models.tune(
        train, fit=fit, space={"weight": [2.0, 1.0]}, split=LAST_ONE, fit_input="frame"
    )
    assert result.best == {"weight": 2.0}  # the same ranking: the first wins
    np.testing.assert_array_equal(
        result.scores, 2.0 * rm.models.last_item(train, result.users, result.items)
    )


def test_users_and_items_set_the_index_of_the_scores():
    train = _data(10)
    users, items = pd.Index(range(45)), pd.Index(range(20))  # more than train has
    result = models.tune(
        train, fit=rm.models.ease, space={"l2": [1.0]}, split=LAST_ONE, users=users, items=items
    )
    assert result.scores.shape == (45, 20)
    assert result.users.equals(users) and result.items.equals(items)
    default = models.tune(train, fit=rm.models.ease, space={"l2": [1.0]}, split=LAST_ONE)
    assert default.users.tolist() == train["user"].unique().tolist()


def test_a_numpy_array_of_values_and_partial_fits():
    fit = functools.partial(rm.models.ease)
    result = models.tune(_data(11), fit=fit, space={"l2": np.array([1.0, 2.0])}, split=LAST_ONE)
    assert result.results["l2"].tolist() == [1.0, 2.0]


def test_random_holdout_as_the_protocol():
    split = functools.partial(rm.split.random_holdout, test_size=0.2, seed=1)
    a = models.tune(_data(12), fit=rm.models.ease, space={"l2": [1.0, 9.0]}, split=split)
    b = models.tune(_data(12), fit=rm.models.ease, space={"l2": [1.0, 9.0]}, split=split)
    pd.testing.assert_frame_equal(a.results, b.results)


# --------------------------------------------------------------------------
# bad input


def _tune(**kw):
    base = {"fit": rm.models.ease, "space": {"l2": [1.0]}, "split": LAST_ONE}
    return models.tune(_data(13, n_users=10), **(base | kw))


@pytest.mark.parametrize(
    "kw,error,pattern",
    [
        ({"space": {"lambda": [1.0]}}, ValueError, r"^space has the parameter 'lambda', which fit"),
        ({"space": {}}, ValueError, r"^space is empty"),
        ({"space": {"l2": []}}, ValueError, r"^space\['l2'\] has no value"),
        ({"space": {"l2": 1.0}}, TypeError, r"^space\['l2'\] must be a list"),
        ({"space": {"l2": "abc"}}, TypeError, r"^space\['l2'\] must be a list"),
        ({"space": [("l2", [1.0])]}, TypeError, r"^space must be a dict"),
        ({"space": {1: [1.0]}}, TypeError, r"^space's keys must be parameter names"),
        ({"budget": 0}, ValueError, r"^budget must be an integer >= 1, got 0"),
        ({"budget": -1}, ValueError, r"^budget must be an integer >= 1"),
        ({"budget": 1.5}, ValueError, r"^budget must be an integer >= 1"),
        ({"budget": True}, ValueError, r"^budget must be an integer >= 1"),
        ({"metric": "nosuchmetric@10"}, ValueError, r"^metric 'nosuchmetric@10' is not"),
        ({"metric": "coverage@10"}, ValueError, r"^metric must be a ranking metric"),
        ({"metric": ["ndcg@10"]}, TypeError, r"^metric must be a metric name"),
        ({"fit": "ease"}, TypeError, r"^fit must be a callable"),
        ({"split": "leave_last_out"}, TypeError, r"^split must be a callable"),
        ({"split": lambda f: f}, TypeError, r"^split must return \(train, test\)"),
        ({"fit_input": "frames"}, ValueError, r"^fit_input must be 'matrix' or 'frame'"),
        ({"seed": -1}, ValueError, r"^seed must be a non-negative integer"),
        ({"exclude_train": "yes"}, TypeError, r"exclude_train"),
        ({"relevant": 4.0}, TypeError, r"^relevant must be callable"),
        ({"users": [0, 1]}, ValueError, r"^train has user"),
    ],
    # ids without object addresses: xdist's workers must collect the same names
    ids=lambda v: re.sub(r" at 0x[0-9a-f]+", "", repr(v))[:40] if isinstance(v, dict) else "",
)
def test_bad_input(kw, error, pattern):
    with pytest.raises(error, match=pattern):
        _tune(**kw)


def test_train_must_be_a_frame():
    with pytest.raises(TypeError, match=r"^train must be a pandas DataFrame"):
        models.tune(_data().to_numpy(), fit=rm.models.ease, space={"l2": [1.0]}, split=LAST_ONE)


def test_fit_returning_the_wrong_shape():
    with pytest.raises(ValueError, match=r"^fit returned scores of shape \(10, 2\)"):
        _tune(fit=lambda X, *, l2: np.zeros((10, 2)))


def test_no_relevant_validation_row():
    with pytest.raises(ValueError, match=r"no relevant validation row"):
        _tune(relevant=lambda held: held.iloc[:0])


def test_the_frame_form_checks_parameters_after_its_three_arguments():
    def fit(frame, users, items, *, weight=1.0):
        return weight * rm.models.last_item(frame, users, items)

    with pytest.raises(ValueError, match=r"'users', which fit does not take \(fit takes 'weight'"):
        _tune(fit=fit, fit_input="frame", space={"users": [[0]]})


def test_result_is_a_frozen_record():
    result = _tune()
    with pytest.raises(AttributeError):
        result.best = {}
    assert "scores" not in repr(result) and "best={'l2': 1.0}" in repr(result)
    assert math.isfinite(result.results["ndcg@10"].iloc[0])
