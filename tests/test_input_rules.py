"""Issue 9: inputs read by type, clear errors, right numbers, faithful presets.

Inputs are read by type, every bad input raises clearly, every valid input
gets the right number, and presets match their library.

One test (at least) per class of failure found by an adversarial user; each
test says which class it covers.
"""

from __future__ import annotations

import inspect
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.special import gammaln
from sklearn.metrics import auc as sk_auc
from sklearn.metrics import ndcg_score, roc_auc_score

import recmetrics as rm
from recmetrics.metrics import _registry

# Every ranking metric of the registry (a metric added there is covered), and
# the public ranking functions that are no registry entry: f_score (F-beta;
# the registry has F1, at beta=1), idcg (the normaliser of NDCG, not a score),
# break_even_point (R-precision read off the P-R curve, in the chapter on
# curves).
RANKING_METRICS = [_registry.get(name).function for name in _registry.ranking_names()] + [
    rm.f_score,
    rm.idcg,
    rm.break_even_point,
]


# ----------------------------------------------------------------------------
# 3. the type of an argument decides what it means, never its values
def test_whole_number_scores_are_scores():
    """(y_true, y_score) with integral float scores is not read as item ids."""
    assert rm.ndcg([0, 1, 2], [3.0, 2.0, 1.0]) == pytest.approx(
        ndcg_score([[0, 1, 2]], [[3.0, 2.0, 1.0]]), abs=1e-15
    )
    assert rm.ndcg([0, 1, 2], [3.0, 2.0, 1.0]) == rm.ndcg([0, 1, 2], [3.5, 2.0, 1.0])
    assert rm.ndcg([0, 1, 2], [3, 2, 1]) == rm.ndcg([0, 1, 2], [3.0, 2.0, 1.0])  # int scores too
    assert rm.auc([0, 1, 1], [3.0, 2.0, 1.0]) == roc_auc_score([0, 1, 1], [3.0, 2.0, 1.0])


@pytest.mark.parametrize("fn", RANKING_METRICS, ids=lambda f: f.__name__)
def test_every_metric_reads_the_forms_the_same_way(fn):
    """One user as 1-D arrays == the same user as a 1 x n matrix == ranked list + set."""
    y = np.array([1, 0, 0, 1, 0, 1])
    s = np.array([0.9, 0.8, 0.3, 0.1, 0.2, 0.7])
    kw = {"k": 3} if "k" in inspect.signature(fn).parameters else {}
    one = fn(y, s, **kw)
    assert isinstance(one, float)
    assert one == pytest.approx(fn(y[None, :], s[None, :], **kw), abs=1e-15)
    order = [f"i{j}" for j in np.argsort(-s)]
    rel = {f"i{j}" for j in np.flatnonzero(y)}
    needs_catalogue = {s.function for s in _registry.REGISTRY.values() if "n_items" in s.needs}
    extra = {"n_items": 6} if fn in needs_catalogue else {}
    assert one == pytest.approx(fn(order, rel, **kw, **extra), abs=1e-15)


def test_lists_of_ids_need_sets_for_the_relevant_items():
    with pytest.raises(TypeError, match="pass each user's relevant items as a set or dict"):
        rm.ndcg(["a", "b", "c"], ["a"])
    with pytest.raises(ValueError, match="pass each user's relevant items as a set or dict"):
        rm.precision([3, 4, 2, 1, 5], [1, 3, 5], k=5)
    with pytest.raises(ValueError, match="ragged"):
        rm.ndcg([["a", "b"], ["c"]], [["a"], ["c"]])
    with pytest.raises(TypeError, match=r"relevant\[1\] is a list"):
        rm.ndcg([["a"], ["b"]], [{"a"}, ["b"]])
    with pytest.raises(TypeError, match="ordered sequence"):
        rm.ndcg({"a", "b"}, {"a"})
    assert rm.precision([3, 4, 2, 1, 5], {1, 3, 5}, k=5) == 0.6


@pytest.mark.parametrize(
    "call, pattern",
    [
        (lambda: rm.ndcg([], []), "y_true is empty"),
        (lambda: rm.ndcg([]), "gains is empty"),
        (lambda: rm.evaluate([], [], ["ndcg@3"]), "y_true is empty"),
        (lambda: rm.ndcg(np.zeros((0, 3)), np.zeros((0, 3))), "y_true is empty"),
        (lambda: rm.precision([], [], k=1), "y_true is empty"),
        (lambda: rm.ndcg([[]], [{"a"}]), None),  # one user with an empty list is fine
    ],
)
def test_empty_inputs_raise(call, pattern):
    if pattern is None:
        assert call() == 0.0
        return
    with pytest.raises(ValueError, match=pattern):
        call()


@pytest.mark.parametrize(
    "call, pattern",
    [
        (
            lambda: rm.auc(["a", "b", "c"], {"z"}, n_items=3),
            "n_items=3 is smaller than what user 0 needs",
        ),
        (lambda: rm.auc(["a", "b", "c"], {"a"}, n_items=2), "n_items=2 is smaller"),
        (lambda: rm.auc(ranks=[5], n_items=4), "ranks must be <= n_items"),
        (
            lambda: rm.auc(ranks=[1, 2], n_items=[10, 10, 10]),
            "one integer or one per user: got 3 values for 2",
        ),
        (
            lambda: rm.auc([["a"], ["b"]], [{"a"}, {"b"}], n_items=[5, 5, 5]),
            "got 3 values for 2 users",
        ),
        (lambda: rm.auc(ranks=[1], n_items=0), "n_items must be >= 1"),
        (lambda: rm.auc(ranks=[1], n_items=2.5), "n_items must be integers"),
        (lambda: rm.auc(ranks=[1], n_items=True), "n_items must be a positive integer"),
    ],
)
def test_impossible_catalogue_sizes_raise(call, pattern):
    with pytest.raises((ValueError, TypeError), match=pattern):
        call()


# ----------------------------------------------------------------------------
# 4. every valid input the right number, every bad input a clear error
def test_precision_of_an_empty_list_is_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        per = rm.precision([[], ["a"]], [{"a"}, {"a"}], per_user=True)
        mean = rm.precision([[], ["a"]], [{"a"}, {"a"}])
        f = rm.f1([[], ["a"]], [{"a"}, {"a"}], per_user=True)
    np.testing.assert_array_equal(per, [0.0, 1.0])
    assert mean == 0.5
    np.testing.assert_array_equal(f, [0.0, 1.0])


def test_gains_and_errors_that_would_overflow():
    with pytest.raises(ValueError, match="overflows float64 for grades above 1023"):
        rm.ndcg(["a", "b"], {"a": 2000, "b": 1}, gain="exponential")
    assert rm.ndcg(["a", "b"], {"a": 1000, "b": 1}, gain="exponential") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="DCG of user 0 overflows"):
        rm.ndcg(["a", "b"], {"a": 1.5e308, "b": 1.5e308})
    # rating errors: huge but finite values give the exact result
    assert rm.rmse([1e200], [-1e200]) == 2e200
    assert rm.mae([1e200, 0.0], [-1e200, 0.0]) == 1e200
    assert rm.rmse([1e-200], [-1e-200]) == 2e-200
    assert rm.rmse([1e300, 0.0], [0.0, 1e300], users=["a", "b"], average="user") == 1e300
    with pytest.raises(ValueError, match="RMSE is larger than the largest float64"):
        rm.rmse([1.7e308], [-1.7e308])
    # F-beta for extreme beta is recall (beta -> inf) or precision (beta -> 0)
    y, s = [[1, 0, 1, 0, 1]], [[0.9, 0.8, 0.7, 0.6, 0.5]]
    assert rm.f_score(y, s, k=2, beta=1e200) == pytest.approx(rm.recall(y, s, k=2))
    assert rm.f_score(y, s, k=2, beta=1e-200) == pytest.approx(rm.precision(y, s, k=2))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, object])
def test_integer_scores_beyond_2_53_are_compared_exactly(dtype):
    big = 2**53
    y_score = np.array([[big + 1, big], [big, big + 1]], dtype=dtype)
    y_true = np.array([[0, 1], [0, 1]])
    np.testing.assert_array_equal(rm.reciprocal_rank(y_true, y_score, per_user=True), [0.5, 1.0])
    if dtype is not np.uint64:
        neg = np.array([[-big - 1, -big]], dtype=dtype)
        assert rm.reciprocal_rank([[1, 0]], neg) == 0.5
    with pytest.raises(ValueError, match="at most 2\\*\\*53"):
        rm.ndcg(ranks=[2**53 + 2])


def test_mixed_type_user_ids_do_not_merge():
    with pytest.raises(TypeError, match="mixes ids of different kinds"):
        rm.rmse([1, 2], [1, 3], users=[1, "1"], average="user")
    with pytest.raises(TypeError, match="mixes ids of different kinds"):
        rm.rating_errors_by_user([1, 2], [1, 3], users=pd.Series([1, "1"], dtype=object))
    # one kind is fine, whatever it is
    assert rm.rmse([1, 2], [1, 3], users=["1", "2"], average="user") == 0.5


@pytest.mark.parametrize("base", [0.5, 1, 1.0, -2, 0])
def test_log_base_must_exceed_one(base):
    with pytest.raises(ValueError, match="log_base must be"):
        rm.ndcg([[1, 0]], [[0.2, 0.1]], log_base=base)
    with pytest.raises(ValueError, match="log_base must be"):
        rm.discount([1, 2], log_base=base)


def _bad_csr(index):
    m = sp.csr_array((np.array([1.0]), np.array([index]), np.array([0, 1])), shape=(1, 3))
    return m


@pytest.mark.parametrize("index", [-1, 3, 10**6])
@pytest.mark.parametrize("argument", ["y_true", "mask"])
def test_malformed_sparse_matrices_never_reach_the_kernels(index, argument):
    """Negative or out-of-range column indices raise before any compiled code runs."""
    bad = _bad_csr(index)
    y_true = sp.csr_array(np.array([[1, 0, 0]])) if argument == "mask" else bad
    mask = bad if argument == "mask" else None
    with pytest.raises(ValueError, match=f"{argument} is a malformed scipy.sparse matrix"):
        rm.ndcg(y_true, np.array([[0.3, 0.2, 0.1]]), mask=mask)
    with pytest.raises(ValueError, match=f"{argument} is a malformed scipy.sparse matrix"):
        rm.evaluate(y_true, np.array([[0.3, 0.2, 0.1]]), ["ndcg@2"], mask=mask)


def test_malformed_coo_matrix():
    coo = sp.coo_array((np.array([1.0]), (np.array([0]), np.array([1]))), shape=(1, 3))
    coo.col[0] = -2  # scipy checks at construction, not after
    with pytest.raises(ValueError, match="y_true is a malformed scipy.sparse matrix"):
        rm.ndcg(coo, np.array([[0.3, 0.2, 0.1]]))


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (lambda: rm.ndcg(ranks=[1, 2], mask=[[True]]), TypeError, "mask does not apply"),
        (lambda: rm.ndcg(["a"], {"a"}, mask=[[True]]), TypeError, "mask does not apply"),
        (lambda: rm.ndcg([1, 0]), None, None),
        (lambda: rm.ndcg([1, 0], n_items=5), TypeError, "n_items does not apply"),
        (lambda: rm.ndcg([[1, 0]], [[0.2, 0.1]], n_items=5), TypeError, "n_items does not apply"),
        (lambda: rm.auc([[1, 0]], [[0.2, 0.1]], n_items=5), TypeError, "n_items does not apply"),
        (
            lambda: rm.auc([[1, 0]], [[0.2, 0.1]], n_items=5, average="global"),
            TypeError,
            "n_items does not apply",
        ),
        (
            lambda: rm.ndcg(
                rm.from_scores([[1, 0]], [[0.2, 0.2]], ties="pessimistic"), ties="expected"
            ),
            ValueError,
            "built with ties='pessimistic'",
        ),
        (lambda: rm.ndcg(rm.from_ranks([1]), n_items=5), TypeError, "n_items does not apply"),
        (lambda: rm.ndcg(rm.from_ranks([1]), mask=[[True]]), TypeError, "mask does not apply"),
    ],
)
def test_keywords_that_do_not_apply_raise(call, exc, pattern):
    if exc is None:
        call()
        return
    with pytest.raises(exc, match=pattern):
        call()


def test_prebuilt_ranking_keeps_its_policy():
    r = rm.from_scores([[1, 0, 0]], [[0.5, 0.5, 0.1]], ties="pessimistic")
    assert r.ties == "pessimistic"
    assert rm.reciprocal_rank(r) == 0.5
    assert rm.reciprocal_rank(r, ties="pessimistic") == 0.5
    assert rm.evaluate(r, metrics=["mrr"])["mrr"] == 0.5
    with pytest.raises(ValueError, match="built with ties='pessimistic'"):
        rm.evaluate(r, metrics=["mrr"], ties="optimistic")
    # a ranking from lists has no ties: any policy is the same
    assert rm.reciprocal_rank(rm.from_lists([["a", "b"]], [{"b"}]), ties="optimistic") == 0.5


@pytest.mark.parametrize(
    "conv, kw",
    [
        ("torchmetrics", {"retrieve_nonpositive": True}),
        ("trec_eval", {"score_dtype": "float64"}),
        ("sklearn", {"score_dtype": "float32"}),
        ("trec_eval", {"no_relevant": "skip"}),
        ("recbole", {"ap_denominator": "relevant"}),
    ],
)
def test_explicit_keyword_contradicting_a_preset_raises(conv, kw):
    with pytest.raises(ValueError, match=f"convention='{conv}'"):
        rm.evaluate([[1, 0, 1]], [[0.3, 0.2, 0.1]], ["ndcg@2"], convention=conv, **kw)


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (
            lambda: rm.ndcg([[1, 0]], [[0.2, 0.1]], per_user="no"),
            TypeError,
            "per_user must be True or False",
        ),
        (
            lambda: rm.evaluate([[1, 0]], [[0.2, 0.1]], ["ndcg"], per_user=1),
            TypeError,
            "per_user must be",
        ),
        (
            lambda: rm.evaluate([[1, 0]], [[0.2, 0.1]], ["ndcg"], progress="yes"),
            TypeError,
            "progress must be",
        ),
        (
            lambda: rm.evaluate([[1, 0]], [[0.2, 0.1]], ["ndcg"], retrieve_nonpositive="no"),
            TypeError,
            "retrieve_nonpositive must be",
        ),
        (
            lambda: rm.evaluate([[1, 0]], [[0.2, 0.1]], ["ndcg"], score_dtype="float16"),
            ValueError,
            "score_dtype must be 'float32' or 'float64'",
        ),
        (
            lambda: rm.evaluate([[1, 0]], [[0.2, 0.1]], ["ndcg"], score_dtype=3),
            ValueError,
            "score_dtype must be",
        ),
        (
            lambda: rm.evaluate([[1, 0]], [[0.2, 0.1]], None),
            TypeError,
            "metrics must be a metric name or a list",
        ),
        (lambda: rm.evaluate([[1, 0]], [[0.2, 0.1]], 5), TypeError, "metrics must be"),
        (lambda: rm.evaluate([[1, 0]], [[0.2, 0.1]], []), ValueError, "metrics is empty"),
    ],
)
def test_flags_and_options_are_checked(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_score_dtype_accepts_numpy_types():
    a = rm.evaluate([[1, 0]], [[0.2, 0.1]], ["ndcg"], score_dtype=np.float32)
    b = rm.evaluate([[1, 0]], [[0.2, 0.1]], ["ndcg"], score_dtype="float32")
    pd.testing.assert_series_equal(a, b)


@pytest.mark.parametrize("bad", [float("nan"), None])
def test_missing_item_ids_raise(bad):
    with pytest.raises(ValueError, match="missing item id"):
        rm.ndcg(["a", bad, float("nan")], {"a"})
    with pytest.raises(ValueError, match="missing item id"):
        rm.ndcg(["a", "b"], {"a", bad})
    with pytest.raises(ValueError, match="missing item id"):
        rm.ndcg(["a", "b"], {bad: 1, "a": 2})


def test_cutoff_far_beyond_the_catalogue():
    """K = 10**12 allocates nothing of size k and equals the uncut metric."""
    y = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    s = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    huge = 10**12
    for name in ("ndcg", "reciprocal_rank", "hit_ratio", "recall", "arhr"):
        fn = getattr(rm, name)
        assert fn(y, s, k=huge) == pytest.approx(fn(y, s, k=4), abs=1e-15), name
    assert rm.average_precision(y, s, k=huge) == rm.average_precision(y, s)
    assert rm.precision(y, s, k=huge) == pytest.approx(1.5 / huge)  # P@k divides by k
    table = rm.evaluate(y, s, [f"ndcg@{huge}", f"map@{huge}", f"mrr@{huge}"])
    assert table.iloc[0] == pytest.approx(rm.ndcg(y, s))
    # IDCG over k positions: exact closed form beyond 2**22 positions
    big = rm.idcg(ranks=[1], k=huge, idcg="k")
    assert 1e10 < big < huge
    assert rm.idcg(ranks=[1], k=10**7, idcg="k") == pytest.approx(
        float(np.sum(rm.discount(np.arange(1, 10**7 + 1)))), rel=1e-13
    )


def _rr_tied_reference(a, t, c):
    s = np.arange(1, t - c + 2, dtype=float)
    log_p = (
        gammaln(t - s + 1)
        - gammaln(c)
        - gammaln(t - s - c + 2)
        - gammaln(t + 1)
        + gammaln(c + 1)
        + gammaln(t - c + 1)
    )
    return float(np.sum(np.exp(log_p) / (a + s)))


def test_reciprocal_rank_on_huge_tie_groups():
    """All-tied rows: the exact expectation, in linear time and bounded memory."""
    n_users, n_items = 50, 20_000
    y = np.zeros((n_users, n_items), dtype=np.int8)
    for u in range(n_users):
        y[u, : (u % 7) + 1] = 1
    s = np.zeros((n_users, n_items), dtype=np.float32)
    got = rm.reciprocal_rank(y, s, per_user=True)
    want = [_rr_tied_reference(0.0, n_items, (u % 7) + 1) for u in range(n_users)]
    np.testing.assert_allclose(got, want, rtol=1e-10)
    # cut at k: the same sum stopped at k
    np.testing.assert_allclose(
        rm.reciprocal_rank(y[:1], s[:1], k=3, per_user=True),
        [(1 / 1 + 1 / 2 + 1 / 3) / n_items],
        rtol=1e-12,
    )


@pytest.mark.parametrize(
    "call, pattern",
    [
        (
            lambda: rm.ndcg(np.array([[1, 0], [0, 1]]), np.array([[0.5, 0.1], [0.2, np.nan]])),
            "y_score contains NaN at row 1, column 1",
        ),
        (
            lambda: rm.ndcg([[1, 0], [0, 1]], [[0.5, 0.1], [np.inf, 0.2]]),
            "y_score contains an infinite value at row 1, column 0",
        ),
        (lambda: rm.rmse([1, 2], [1, np.nan]), "y_pred contains NaN at position 1"),
    ],
)
def test_bad_values_are_located(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_float32_overflow_of_a_preset_is_explained():
    with pytest.raises(ValueError, match="beyond the float32 range"):
        rm.evaluate([[1, 0]], [[1e39, 1.0]], ["ndcg@2"], convention="trec_eval")


def test_fraction_grades():
    graded = rm.ndcg(["a", "b"], {"a": Fraction(1, 2), "b": Fraction(3, 2)})
    assert graded == rm.ndcg(["a", "b"], {"a": 0.5, "b": 1.5})
    assert rm.ndcg([Fraction(1, 2), 0, Fraction(3, 2)]) == rm.ndcg([0.5, 0, 1.5])


# ----------------------------------------------------------------------------
# 5. presets match their library on every metric they list
def test_sklearn_preset_auc_of_one_class_users_is_undefined():
    y = np.array([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]])
    s = np.array(
        [[0.9, 0.8, 0.3, 0.1], [0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4], [0.3, 0.9, 0.1, 0.2]]
    )
    per = rm.evaluate(y, s, ["auc"], convention="sklearn", per_user=True)["auc"].to_numpy()
    assert np.isnan(per[1]) and np.isnan(per[2])
    for u in (0, 3):
        assert per[u] == roc_auc_score(y[u], s[u])
    with pytest.warns(UserWarning, match="not defined"):
        assert np.isnan(roc_auc_score(y[1], s[1]))  # scikit-learn 1.9: NaN, with a warning
    mean = rm.evaluate(y, s, ["auc"], convention="sklearn")["auc"]
    assert mean == pytest.approx(np.mean([roc_auc_score(y[u], s[u]) for u in (0, 3)]))


def test_uncut_metrics_listed_by_a_preset_are_accepted():
    y, s = [[1, 0, 1, 0, 0]], [[0.9, 0.8, 0.7, 0.6, 0.5]]
    table = rm.evaluate(y, s, ["precision", "recall", "f1", "hr"], convention="ranx")
    assert table["precision"] == 0.4 and table["recall"] == 1.0 and table["hr"] == 1.0
    assert table["f1"] == pytest.approx(2 * 0.4 / 1.4)


def test_rectools_false_positives_count_empty_slots():
    short = rm.confusion(["a", "b"], {"a"}, k=5, n_items=10, recommended="k").iloc[0]
    assert (short.TP, short.FP, short.FN, short.TN) == (1, 4, 0, 5)
    filled = rm.confusion(["a", "b"], {"a"}, k=5, n_items=10).iloc[0]
    assert (filled.TP, filled.FP, filled.FN, filled.TN) == (1, 1, 0, 8)
    with pytest.raises(ValueError, match="recommended must be one of"):
        rm.confusion(["a"], {"a"}, k=1, recommended="all")


def test_trapezoid_area_matches_sklearn_auc():
    x, y = [0, 0, 0.5, 0.5, 1], [0, 0.5, 0.5, 1, 1]
    assert rm.trapezoid_area(x, y) == sk_auc(x, y)
    assert rm.trapezoid_area(x[::-1], y[::-1]) == sk_auc(x[::-1], y[::-1]) == 0.75
    with pytest.raises(ValueError, match="neither increasing nor decreasing"):
        rm.trapezoid_area([0, 1, 0.5], [0, 1, 1])
    with pytest.raises(ValueError):
        sk_auc([0, 1, 0.5], [0, 1, 1])  # scikit-learn refuses it too


# ----------------------------------------------------------------------------
# 6. the defaults are the book's recommendations
def test_defaults_are_the_recommended_conventions():
    y = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0]])
    s = np.array([[0.9, 0.1, 0.2, 0.8, 0.7], [0.5, 0.4, 0.3, 0.2, 0.1]])
    # users without relevant items are left out
    assert rm.ndcg(y, s) == rm.ndcg(y[:1], s[:1])
    assert np.isnan(rm.ndcg(y, s, per_user=True)[1])
    assert rm.auc(y, s) == rm.auc(y[:1], s[:1])
    # AP@k divides by min(|R|, k): a perfect top 2 scores 1 with |R| = 3
    assert rm.average_precision([1, 1, 0, 1], k=2) == 1.0
    assert rm.average_precision([1, 1, 0, 1], k=2, ap_denominator="relevant") == pytest.approx(
        2 / 3
    )
    means = rm.evaluate(y, s, ["map@2", "ndcg@2"])
    assert means["map@2"] == rm.average_precision(y, s, k=2)
