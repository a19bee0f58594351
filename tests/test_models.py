"""Unit tests of :mod:`recmetrics.models`, the seeded baselines of the case studies.

Every public function (``popularity``, ``item_knn``, ``als``, ``ease``) is
checked for: the output contract (a dense ``float64`` ndarray of shape
``(n_users, n_items)``, whatever sparse format or dtype ``train`` comes in);
determinism (bit for bit on a second call; for ``als``, the same seed gives the
same scores and another seed other scores); known values computed by hand or
directly with NumPy (counts for ``popularity``, cosine top-K for ``item_knn``,
EASE's closed form ``B = I - P / diag(P)``, ``P = (X^T X + lambda I)^{-1}``);
what they do with a user's training items and with stored zeros (no
interaction, in every model); and bad input, which must raise
``TypeError``/``ValueError`` naming the argument.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import recmetrics as rm
from recmetrics import models

needs_implicit = pytest.mark.skipif(
    importlib.util.find_spec("implicit") is None
    or importlib.util.find_spec("threadpoolctl") is None,
    reason="item_knn and als need the optional 'implicit' package (the 'data' extra)",
)


# the docstrings' example: items 0 and 1 always together, item 2 apart
X3 = [[1, 1, 0], [1, 1, 1], [0, 0, 1]]


def _csr(a):
    return sp.csr_matrix(np.asarray(a, dtype=np.float64))


def _random_train(seed, shape=(12, 7), density=0.45, weighted=False):
    """A random non-negative user x item matrix with every user and item present."""
    rng = np.random.default_rng(seed)
    a = (rng.random(shape) < density).astype(np.float64)
    a[np.arange(shape[0]), np.arange(shape[0]) % shape[1]] = 1.0
    a[np.arange(shape[1]) % shape[0], np.arange(shape[1])] = 1.0
    if weighted:
        a *= rng.integers(1, 6, shape)
    return a


# fast settings of every model; item_knn and als need implicit
MODELS = {
    "popularity": lambda X: models.popularity(X),
    "item_knn": lambda X: models.item_knn(X, neighbours=3),
    "als": lambda X: models.als(X, factors=3, iterations=3),
    "ease": lambda X: models.ease(X, l2=1.0),
    "user_knn": lambda X: models.user_knn(X, neighbours=3),
    "bpr": lambda X: models.bpr(X, factors=3, iterations=5),
}
NEEDS_IMPLICIT = {"item_knn", "als", "bpr"}
DETERMINISTIC = ["popularity", "item_knn", "ease", "user_knn"]  # no random state at all


def _params(names):
    return [
        pytest.param(n, id=n, marks=[needs_implicit] if n in NEEDS_IMPLICIT else []) for n in names
    ]


def _fn(name):
    return getattr(models, name)


# --------------------------------------------------------------------------
# the public API


def test_public_names():
    # the first four, then issue 29's baselines and the tuning helper
    assert models.__all__ == [
        "popularity",
        "item_knn",
        "als",
        "ease",
        "user_knn",
        "bpr",
        "last_item",
        "tune",
        "TuneResult",
    ]
    for name in models.__all__:
        assert getattr(rm.models, name) is getattr(models, name)
        assert inspect.isfunction(getattr(models, name)) or name == "TuneResult"


def test_the_package_keeps_the_old_imports_working():
    from recmetrics.models import als, ease, item_knn, popularity

    assert (als, ease, item_knn, popularity) == (
        rm.models.als,
        rm.models.ease,
        rm.models.item_knn,
        rm.models.popularity,
    )
    assert popularity.__module__ == "recmetrics.models.baselines"


@pytest.mark.parametrize("name", list(MODELS))
def test_hyperparameters_are_keyword_only(name):
    params = list(inspect.signature(_fn(name)).parameters.values())
    assert params[0].name == "train"
    assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:])


@pytest.mark.parametrize(
    "name,defaults",
    [
        ("popularity", {}),
        ("item_knn", {"neighbours": 100}),
        (
            "als",
            {"factors": 64, "iterations": 15, "regularization": 0.05, "alpha": 1.0, "seed": 0},
        ),
        ("ease", {"l2": 500.0}),
        ("user_knn", {"neighbours": 100}),
        (
            "bpr",
            {
                "factors": 64,
                "iterations": 100,
                "learning_rate": 0.01,
                "regularization": 0.01,
                "seed": 0,
            },
        ),
    ],
)
def test_documented_defaults(name, defaults):
    sig = inspect.signature(_fn(name))
    assert {k: p.default for k, p in sig.parameters.items() if k != "train"} == defaults


# --------------------------------------------------------------------------
# the output contract, for every model


@pytest.mark.parametrize("name", _params(MODELS))
def test_output_is_a_dense_float64_user_by_item_matrix(name):
    a = _random_train(0, shape=(9, 6))
    a[4] = 0.0  # a user without training interactions
    a[:, 2] = 0.0  # an item nobody interacted with
    X = _csr(a)
    S = MODELS[name](X)
    assert type(S) is np.ndarray
    assert S.dtype == np.float64
    assert S.shape == (9, 6)
    assert np.isfinite(S).all()
    assert S.flags.writeable
    assert not np.shares_memory(S, X.data)


@pytest.mark.parametrize("name", _params(MODELS))
def test_every_sparse_format_and_dtype_gives_the_same_scores(name):
    a = _random_train(1, weighted=True)
    want = MODELS[name](_csr(a))
    for X in (
        sp.csr_array(a),
        sp.csc_matrix(a),
        sp.coo_matrix(a),
        sp.coo_array(a),
        sp.lil_matrix(a),
        sp.csr_matrix(a.astype(np.int64)),
        sp.csr_matrix(a.astype(np.float32)),
    ):
        got = MODELS[name](X)
        np.testing.assert_array_equal(got, want, err_msg=f"{type(X).__name__} {X.dtype}")


@pytest.mark.parametrize("name", _params(MODELS))
def test_boolean_train_equals_ones(name):
    a = _random_train(2)
    np.testing.assert_array_equal(MODELS[name](sp.csr_matrix(a > 0)), MODELS[name](_csr(a)))


@pytest.mark.parametrize("name", _params(MODELS))
def test_train_is_left_unchanged(name):
    X = sp.csr_matrix(_random_train(3, weighted=True).astype(np.int64))
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy(), X.dtype, X.shape)
    MODELS[name](X)
    after = (X.data, X.indices, X.indptr, X.dtype, X.shape)
    for b, a in zip(before, after, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", _params(MODELS))
def test_a_second_call_gives_the_same_scores_bit_for_bit(name):
    X = _csr(_random_train(4, weighted=True))
    np.testing.assert_array_equal(MODELS[name](X), MODELS[name](X.copy()))


@pytest.mark.parametrize("name", _params(DETERMINISTIC))
def test_deterministic_models_follow_a_permutation_of_users_and_items(name):
    a = _random_train(5, weighted=True)
    rng = np.random.default_rng(5)
    pu, pi = rng.permutation(a.shape[0]), rng.permutation(a.shape[1])
    want = MODELS[name](_csr(a))[np.ix_(pu, pi)]
    got = MODELS[name](_csr(a[np.ix_(pu, pi)]))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------
# popularity


def test_popularity_counts_interactions_by_hand():
    # 3 users x 4 items; values are ignored, only interacted or not counts
    X = _csr([[1, 0, 2, 0], [0, 0, 1, 0], [3, 0, 5, 1]])
    S = models.popularity(X)
    assert S.tolist() == [[2.0, 0.0, 3.0, 1.0]] * 3


def test_popularity_docstring_example():
    S = models.popularity(sp.csr_array(np.array([[1, 0, 1], [0, 0, 1]])))
    assert S.tolist() == [[1.0, 0.0, 2.0], [1.0, 0.0, 2.0]]


def test_popularity_does_not_count_stored_zeros():
    X = sp.csr_matrix((np.array([1.0, 0.0, 2.0]), ([0, 1, 1], [0, 0, 2])), shape=(2, 3))
    assert X.nnz == 3
    assert models.popularity(X).tolist() == [[1.0, 0.0, 1.0]] * 2


def test_popularity_rows_are_independent_copies():
    S = models.popularity(_csr([[1, 0], [1, 1]]))
    S[0, 0] = -7.0
    assert S[1].tolist() == [2.0, 1.0]


# --------------------------------------------------------------------------
# item_knn


def _cosine(a):
    norms = np.linalg.norm(a, axis=0)
    norms[norms == 0] = 1.0
    return (a.T @ a) / np.outer(norms, norms)


def _keep_top(sim, k):
    """Each row's k largest similarities (row j: item j's neighbours), the rest zero."""
    out = np.zeros_like(sim)
    for j, row in enumerate(sim):
        order = np.argsort(-row, kind="stable")
        if k < row.size:  # the k-th and (k+1)-th must differ, or the top-k is ambiguous
            assert row[order[k - 1]] - row[order[k]] > 1e-9, f"tie at the cut of row {j}"
        out[j, order[:k]] = row[order[:k]]
    return out


@needs_implicit
def test_item_knn_by_hand():
    # cos(0, 1) = 1, cos(0, 2) = cos(1, 2) = 1/2
    S = models.item_knn(_csr(X3), neighbours=3)
    np.testing.assert_allclose(S, [[2, 2, 1], [2.5, 2.5, 2], [0.5, 0.5, 1]], rtol=0, atol=1e-12)
    # docstring: with 2 neighbours items 0 and 1 drop item 2
    S2 = models.item_knn(_csr(X3), neighbours=2)
    np.testing.assert_allclose(S2[0], [2, 2, 0], rtol=0, atol=1e-12)


@needs_implicit
@pytest.mark.parametrize("weighted", [False, True], ids=["binary", "weighted"])
@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_item_knn_equals_a_direct_cosine_top_k(k, weighted):
    # seeds chosen so that no row of similarities has a tie among its 5 largest
    a = _random_train(0, shape=(8, 7), weighted=True) if weighted else _random_train(1, (30, 7))
    want = a @ _keep_top(_cosine(a), k)
    got = models.item_knn(_csr(a), neighbours=k)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@needs_implicit
def test_item_knn_with_one_neighbour_returns_train():
    # every item's nearest item is itself (similarity 1), if no two columns are parallel
    a = _random_train(7, shape=(10, 5), weighted=True)
    np.testing.assert_allclose(models.item_knn(_csr(a), neighbours=1), a, rtol=0, atol=1e-12)


@needs_implicit
def test_item_knn_neighbours_beyond_the_catalogue_mean_every_item():
    X = _csr(_random_train(8, weighted=True))
    every = models.item_knn(X, neighbours=X.shape[1])
    for k in (X.shape[1] + 1, 100, 2**70, np.int64(1000)):
        np.testing.assert_array_equal(models.item_knn(X, neighbours=k), every)


@needs_implicit
def test_item_knn_scores_an_unseen_item_zero():
    a = _random_train(9)
    a[:, 3] = 0.0
    S = models.item_knn(_csr(a), neighbours=4)
    assert (S[:, 3] == 0).all()


# --------------------------------------------------------------------------
# als


def _als(X, **kw):
    kw = {"factors": 3, "iterations": 4, **kw}
    return models.als(X, **kw)


@needs_implicit
def test_als_same_seed_same_scores_other_seed_other_scores():
    X = _csr(_random_train(10, shape=(15, 8)))
    np.testing.assert_array_equal(_als(X, seed=3), _als(X, seed=3))
    np.testing.assert_array_equal(_als(X, seed=3), _als(X, seed=np.int64(3)))
    np.testing.assert_array_equal(_als(X), _als(X, seed=0))  # the default seed is 0
    scores = [_als(X, seed=s) for s in range(4)]
    for i in range(4):
        for j in range(i + 1, 4):
            assert not np.allclose(scores[i], scores[j]), (i, j)


@needs_implicit
@pytest.mark.parametrize(
    "change",
    [{"factors": 2}, {"iterations": 2}, {"regularization": 1.0}, {"alpha": 5.0}, {"seed": 1}],
    ids=lambda c: next(iter(c)),
)
def test_als_every_hyperparameter_is_used(change):
    X = _csr(_random_train(11, shape=(15, 8), weighted=True))
    assert not np.allclose(_als(X, **change), _als(X))


@needs_implicit
@pytest.mark.parametrize("factors", [1, 2, 4])
def test_als_scores_are_a_rank_factors_product(factors):
    X = _csr(_random_train(12, shape=(15, 8)))
    S = _als(X, factors=factors, iterations=5)
    assert np.linalg.matrix_rank(S, tol=1e-8 * np.abs(S).max()) == factors


@needs_implicit
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_als_separates_two_disjoint_groups(seed):
    # users 0-3 use items 0-2 only, users 4-7 items 3-5 only: each user's own
    # group of items scores above every item of the other group
    a = np.zeros((8, 6))
    a[:4, :3] = 1.0
    a[np.arange(4), np.arange(4) % 3] = 0.0
    a[4:, 3:] = 1.0
    a[4 + np.arange(4), 3 + np.arange(4) % 3] = 0.0
    S = models.als(_csr(a), factors=2, iterations=10, seed=seed)
    for u in range(4):
        assert S[u, :3].min() > S[u, 3:].max()
    for u in range(4, 8):
        assert S[u, 3:].min() > S[u, :3].max()


@needs_implicit
def test_als_docstring_example():
    S = models.als(_csr([[1, 1, 0, 0], [1, 1, 1, 0], [0, 0, 1, 1]]), factors=2, iterations=5)
    assert S.shape == (3, 4) and S[0, 1] > S[0, 3]


@needs_implicit
def test_als_leaves_the_blas_thread_limit_as_it_was():
    from threadpoolctl import threadpool_info

    def threads():
        return [(i["internal_api"], i["num_threads"]) for i in threadpool_info()]

    before = threads()
    _als(_csr(X3))
    assert threads() == before


# --------------------------------------------------------------------------
# ease


def _ease_closed_form(a, l2):
    """B = I - P / diag(P), P = (X^T X + l2 I)^{-1}, computed directly."""
    p = np.linalg.inv(a.T @ a + l2 * np.eye(a.shape[1]))
    return np.eye(a.shape[1]) - p / np.diag(p)


def test_ease_by_hand():
    # X^T X + I = [[3,2,1],[2,3,1],[1,1,3]], det 13, P = adj / 13
    # B = [[0, 5/8, 1/5], [5/8, 0, 1/5], [1/8, 1/8, 0]]
    f = Fraction
    b = [[f(0), f(5, 8), f(1, 5)], [f(5, 8), f(0), f(1, 5)], [f(1, 8), f(1, 8), f(0)]]
    want = [[float(sum(x * b[j][i] for j, x in enumerate(row))) for i in range(3)] for row in X3]
    assert want[0] == [0.625, 0.625, 0.4]  # the docstring's example
    np.testing.assert_allclose(models.ease(_csr(X3), l2=1.0), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("l2", [0.5, 3, 10.0, 500.0])
@pytest.mark.parametrize("weighted", [False, True], ids=["binary", "weighted"])
def test_ease_equals_its_closed_form(l2, weighted):
    a = _random_train(13, shape=(20, 9), weighted=weighted)
    B = _ease_closed_form(a, l2)
    assert np.all(np.diag(B) == 0)
    np.testing.assert_allclose(models.ease(_csr(a), l2=l2), a @ B, rtol=1e-10, atol=1e-12)


def test_ease_weights_have_a_zero_diagonal():
    # with a square invertible train, B = X^{-1} (X B) is recovered from the scores
    rng = np.random.default_rng(14)
    a = rng.integers(0, 4, (6, 6)).astype(np.float64) + 3 * np.eye(6)
    B = np.linalg.solve(a, models.ease(_csr(a), l2=2.0))
    np.testing.assert_allclose(np.diag(B), 0.0, atol=1e-10)
    np.testing.assert_allclose(B, _ease_closed_form(a, 2.0), rtol=1e-8, atol=1e-10)


def test_ease_default_and_number_types_of_l2():
    X = _csr(_random_train(15))
    np.testing.assert_array_equal(models.ease(X), models.ease(X, l2=500.0))
    for l2 in (500, np.float32(500.0), np.int64(500), Fraction(500)):
        np.testing.assert_array_equal(models.ease(X, l2=l2), models.ease(X))


def test_ease_scores_an_unseen_item_zero():
    a = _random_train(16)
    a[:, 4] = 0.0
    assert (models.ease(_csr(a), l2=1.0)[:, 4] == 0).all()


# --------------------------------------------------------------------------
# training items: no model excludes them (none offers an option to);
# a chapter masks them at evaluation, rm.evaluate(..., mask=X)


@pytest.mark.parametrize("name", _params(MODELS))
def test_no_model_has_an_option_to_exclude_training_items(name):
    params = set(inspect.signature(_fn(name)).parameters)
    assert not params & {"mask", "exclude", "exclude_train", "filter_already_liked_items"}
    X = _csr(X3)
    S = MODELS[name](X)
    assert np.isfinite(S[X.toarray() > 0]).all()  # training items keep a real score


def test_training_items_are_excluded_by_the_mask_at_evaluation():
    # popularity [3, 2, 1, 0]: unmasked, every user's top item is item 0, trained
    # on by everyone; masked, the top items are 2, 1 and 2
    X = _csr([[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0]])
    Y = np.array([[0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    S = models.popularity(X)
    assert S[0].tolist() == [3.0, 2.0, 1.0, 0.0]
    assert rm.evaluate(Y, S, ["precision@1"])["precision@1"] == 0.0
    masked = rm.evaluate(Y, S, ["precision@1"], mask=X)["precision@1"]
    assert masked == pytest.approx(2 / 3, abs=1e-15)
    assert (rm.beyond.top_k(S, 1, mask=X).ravel() == [2, 1, 2]).all()


# --------------------------------------------------------------------------
# stored zeros: not interactions (popularity ignores them)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("popularity", id="popularity"),
        pytest.param("ease", id="ease"),
        # item_knn: no NaN from 0/0 in the cosine, e.g. interaction_matrix(value=...) with a 0
        pytest.param("item_knn", id="item_knn", marks=[needs_implicit]),
        # als: no confidence for a stored zero
        pytest.param("als", id="als", marks=[needs_implicit]),
    ],
)
def test_a_stored_zero_is_no_interaction(name):
    a = _random_train(17, shape=(10, 6))
    a[:, 5] = 0.0
    a[0, 5] = 1.0
    X = _csr(a)
    X.data[X.indices == 5] = 0.0  # item 5: one stored zero, nothing else
    clean = X.copy()
    clean.eliminate_zeros()
    assert X.nnz == clean.nnz + 1
    np.testing.assert_array_equal(MODELS[name](X), MODELS[name](clean))


# --------------------------------------------------------------------------
# bad input: TypeError/ValueError naming the argument


def _raises_naming(name):
    return pytest.raises((TypeError, ValueError), match=rf"\b{name}\b")


@pytest.mark.parametrize("name", _params(MODELS))
@pytest.mark.parametrize(
    "bad",
    [
        None,
        np.array(X3, dtype=float),
        X3,
        pd.DataFrame(X3),
        np.array(X3, dtype=float).view(np.matrix),
        "X",
    ],
    ids=["None", "ndarray", "list", "DataFrame", "np.matrix", "str"],
)
def test_train_of_the_wrong_type(name, bad):
    with pytest.raises(TypeError, match=r"\btrain\b"):
        MODELS[name](bad)


BAD_TRAIN = {
    "NaN": _csr([[1, np.nan], [0, 1]]),
    "infinity": _csr([[1, np.inf], [0, 1]]),
    "negative": _csr([[1, -1], [0, 1]]),
    "no users": sp.csr_matrix((0, 3)),
    "no items": sp.csr_matrix((3, 0)),
    "no interaction": sp.csr_matrix((3, 4)),
}


@pytest.mark.parametrize("name", _params(MODELS))
@pytest.mark.parametrize("case", list(BAD_TRAIN))
def test_train_with_bad_content(name, case):
    with pytest.raises(ValueError, match=r"\btrain\b"):
        MODELS[name](BAD_TRAIN[case])


SHAPE_OR_KIND_TRAIN = {
    "1-D": lambda: sp.coo_array(np.array([1.0, 0.0, 1.0])),
    "3-D": lambda: sp.coo_array(np.ones((2, 2, 2))),
    # not read as its real part
    "complex": lambda: sp.csr_matrix(np.array([[1 + 1j, 0], [0, 1]])),
    # the 'no interaction' check counts interactions, not stored entries
    "stored zeros only": lambda: sp.csr_matrix((np.zeros(2), ([0, 1], [0, 1])), shape=(2, 3)),
}


@pytest.mark.parametrize("name", _params(MODELS))
@pytest.mark.parametrize("case", list(SHAPE_OR_KIND_TRAIN))
def test_train_of_the_wrong_shape_or_content(name, case):
    X = SHAPE_OR_KIND_TRAIN[case]()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an error, not a ComplexWarning
        with _raises_naming("train"):
            MODELS[name](X)


BAD_INTEGERS = [0, -1, 1.5, True, np.bool_(True), "3", None, math.nan, 2.0]


@needs_implicit
@pytest.mark.parametrize("bad", BAD_INTEGERS, ids=repr)
@pytest.mark.parametrize(
    "fn,arg",
    [(models.item_knn, "neighbours"), (models.als, "factors"), (models.als, "iterations")],
    ids=["item_knn-neighbours", "als-factors", "als-iterations"],
)
def test_integer_hyperparameters_below_one_or_not_integers(fn, arg, bad):
    with pytest.raises(ValueError, match=rf"^{arg} must be an integer >= 1, got "):
        fn(_csr(X3), **{arg: bad})


@pytest.mark.parametrize(
    "bad", [0, 0.0, -1.0, -math.inf, math.nan, True, "1", None, [1.0]], ids=repr
)
def test_ease_l2_must_be_a_positive_number(bad):
    with pytest.raises(ValueError, match=r"^l2 must be a number > 0, got "):
        models.ease(_csr(X3), l2=bad)


def test_ease_l2_infinite():
    # an infinite penalty would leave 0/0 (NaN) in B
    with pytest.raises(ValueError, match=r"^l2 must be a finite number > 0, got inf"):
        models.ease(_csr(X3), l2=math.inf)


@needs_implicit
@pytest.mark.parametrize("arg", ["regularization", "alpha"])
@pytest.mark.parametrize(
    "bad,error",
    [
        (-1.0, ValueError),
        (math.nan, ValueError),
        (math.inf, ValueError),
        ("abc", TypeError),
        (None, TypeError),
        ("0.5", TypeError),
        (True, TypeError),
    ],
    ids=repr,
)
def test_als_regularization_and_alpha_must_be_finite_non_negative_numbers(arg, bad, error):
    # recmetrics._validation.check_positive_number's errors
    with pytest.raises(error, match=rf"^{arg} must be a (real|finite) number"):
        _als(_csr(X3), **{arg: bad})


@needs_implicit
def test_als_regularization_may_be_zero_alpha_may_not():
    # implicit adds regularization * I to a Gram matrix; alpha * value weighs an
    # observed interaction, and alpha = 0 would weigh none
    assert np.isfinite(_als(_csr(X3), regularization=0.0)).all()
    with pytest.raises(ValueError, match=r"^alpha must be a finite number > 0, got 0.0"):
        _als(_csr(X3), alpha=0.0)


@needs_implicit
@pytest.mark.parametrize(
    "bad,error",
    [
        (1.5, TypeError),
        ("3", TypeError),
        (True, TypeError),
        (-1, ValueError),
        (math.nan, TypeError),
        ("abc", TypeError),
    ],
    ids=repr,
)
def test_als_seed_must_be_a_non_negative_integer(bad, error):
    # recmetrics._validation.check_seed's errors
    with pytest.raises(error, match=r"^seed must be"):
        _als(_csr(X3), seed=bad)


@needs_implicit
def test_als_seed_none_is_fresh_entropy_a_generator_is_used_as_it_is():
    # the package's seeds (recmetrics._validation.check_seed) take None as fresh entropy
    X = _csr(_random_train(10, shape=(15, 8)))
    a, b = _als(X, seed=None), _als(X, seed=None)
    assert np.isfinite(a).all() and not np.allclose(a, b)
    np.testing.assert_array_equal(_als(X, seed=np.random.default_rng(3)), _als(X, seed=3))
    np.testing.assert_array_equal(
        _als(X, seed=np.random.SeedSequence(3)), _als(X, seed=np.random.default_rng(3))
    )


@needs_implicit
def test_als_confidences_out_of_float32_range_raise():
    # implicit computes alpha * value in float32: beyond its range, NaN factors
    with pytest.raises(ValueError, match=r"^alpha \* train must lie within float32's range"):
        _als(_csr(X3), alpha=1e308)
    for v in (1e200, 1e-300):
        with pytest.raises(ValueError, match=r"\btrain\b.*float32's range"):
            _als(_csr(np.array(X3) * v))


@needs_implicit
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_als_divergence_names_its_hyperparameters():
    # implicit's ModelFitError (an Exception only) becomes a ValueError
    with pytest.raises(ValueError, match=r"^als diverged .*regularization=1e\+308"):
        _als(_csr(X3), regularization=1e308)


@needs_implicit
@pytest.mark.parametrize("v", [1e-200, 1e308])
def test_item_knn_never_returns_nan(v):
    # the squares in the cosine's norms under- or overflow: an error, not NaN
    with pytest.raises(ValueError, match=r"^train holds values too small or too large"):
        models.item_knn(_csr(np.array(X3) * v))
    # one such item is enough
    a = np.array(X3, dtype=np.float64)
    a[:, 1] *= v
    with pytest.raises(ValueError, match=r"item 1's values under- or overflow"):
        models.item_knn(_csr(a))


def test_ease_l2_too_small_for_a_singular_gram_matrix():
    # X3's columns 0 and 1 are equal: X^T X is singular
    with pytest.raises(ValueError, match=r"^X\^T X \+ l2 I is singular: l2=1e-300 "):
        models.ease(_csr(X3), l2=1e-300)


def test_ease_values_too_large_for_the_gram_matrix():
    with pytest.raises(ValueError, match=r"^train holds values too large for X\^T X"):
        models.ease(_csr(np.array(X3) * 1e200))
