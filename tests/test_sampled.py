"""Tests of recmetrics.sampled: sampled-rank distributions, expectations, corrections.

Oracles used here and nowhere in the package: exact rational arithmetic
(math.comb), the paper's closed forms for one relevant item (Krichene & Rendle
2020, Sec. 2-3), the dense least-squares solution with the n x (m+1) matrix A,
and Monte Carlo.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

import recmetrics as rm
from recmetrics.sampled import IllConditionedCorrectionWarning

# --------------------------------------------------------------------------
# Oracles: the paper's closed forms (Sec. 2), for one relevant item at rank r
# --------------------------------------------------------------------------

CLOSED = {
    "auc": lambda r, n: (n - r) / (n - 1.0),
    "ap": lambda r, n: 1.0 / r,
    "mrr": lambda r, n: 1.0 / r,
    "ndcg": lambda r, n: 1.0 / np.log2(r + 1.0),
    "recall@10": lambda r, n: (r <= 10) * 1.0,
    "hr@10": lambda r, n: (r <= 10) * 1.0,
    "precision@10": lambda r, n: (r <= 10) / 10.0,
    "ap@10": lambda r, n: (r <= 10) / r,
    "mrr@10": lambda r, n: (r <= 10) / r,
    "ndcg@10": lambda r, n: (r <= 10) / np.log2(r + 1.0),
    "recall@5": lambda r, n: (r <= 5) * 1.0,
}


def log_comb(a, b):
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    out = np.full(a.shape, -np.inf)
    ok = (b >= 0) & (b <= a)
    out[ok] = (
        special.gammaln(a[ok] + 1) - special.gammaln(b[ok] + 1) - special.gammaln(a[ok] - b[ok] + 1)
    )
    return out


def dense_system(n, m, metric, replace=True, prior=None):
    r = np.arange(1, n + 1)
    k = np.arange(m + 1)
    if replace:
        P = stats.binom.pmf(k[None, :], m, ((r - 1) / (n - 1))[:, None])
    else:  # log-factorials: accurate to ~1e-13 for n <= 10^4 (SciPy's hypergeom.pmf is slow here)
        P = np.exp(
            log_comb(r[:, None] - 1, k[None, :])
            + log_comb(n - r[:, None], m - k[None, :])
            - log_comb(n - 1, m)
        )
    p = np.full(n, 1.0 / n) if prior is None else np.asarray(prior, float) / np.sum(prior)
    A = np.sqrt(p)[:, None] * P
    b = np.sqrt(p) * CLOSED[metric](r, n)
    return A, b, p @ P


def dense_solution(n, m, metric, gamma=0.0, replace=True, prior=None, rcond=None):
    """The direct solution with the dense n x (m+1) matrix A."""
    A, b, c = dense_system(n, m, metric, replace, prior)
    if gamma == 0:
        return np.linalg.lstsq(A, b, rcond=rcond)[0]
    if gamma == 1:
        return (A.T @ b) / c
    return np.linalg.solve((1 - gamma) * A.T @ A + gamma * np.diag(c), A.T @ b)


def rel_err(x, ref):
    return float(np.max(np.abs(x - ref)) / np.max(np.abs(ref)))


# --------------------------------------------------------------------------
# metric_function: the one mapping to the ranking core
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CLOSED))
def test_metric_function_matches_closed_forms(name):
    n = 500
    r = np.arange(1, n + 1)
    np.testing.assert_allclose(
        rm.metric_function(name, n)(r), CLOSED[name](r, n), rtol=1e-12, atol=1e-15
    )


def test_metric_function_callables_and_names():
    f = rm.metric_function(lambda r: 1.0 / r)
    assert f(np.array([1, 4])).tolist() == [1.0, 0.25]
    g = rm.metric_function(lambda r, n_items: (n_items - r) / (n_items - 1.0), n_items=11)
    assert g(np.array([1, 11])).tolist() == [1.0, 0.0]
    assert rm.metric_function("NDCG@10").cutoff == 10
    assert rm.metric_function("ndcg").cutoff is None
    with pytest.raises(ValueError, match="metric"):
        rm.metric_function("nope")
    with pytest.raises(ValueError, match="cutoff"):
        rm.metric_function("recall")
    with pytest.raises(ValueError, match="n_items"):
        rm.metric_function("auc")
    with pytest.raises(TypeError, match="metric"):
        rm.metric_function(3)
    with pytest.raises(ValueError, match="one value per rank"):
        rm.metric_function(lambda r: 1.0)(np.array([1, 2]))


# --------------------------------------------------------------------------
# rank_distribution
# --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 5000), m=st.integers(1, 300), data=st.data())
def test_distribution_sums_to_one_and_mean(n, m, data):
    r = data.draw(st.integers(1, n))
    mean_true = 1 + m * (r - 1) / (n - 1)
    i = np.arange(1, m + 2)
    P = rm.rank_distribution(r, n, m, replace=True)
    assert P.shape == (m + 1,) and np.all(P >= 0)
    assert abs(P.sum() - 1) < 1e-12
    assert abs(P @ i - mean_true) < 1e-9 * mean_true
    if m <= n - 1:
        H = rm.rank_distribution(r, n, m, replace=False)
        assert abs(H.sum() - 1) < 1e-12
        # hypergeometric mean 1 + m (r-1)/(n-1): the seed's "1 + (r-1)/(n-1)" misses the factor m
        assert abs(H @ i - mean_true) < 1e-9 * mean_true


@pytest.mark.parametrize("n,m", [(10, 9), (1000, 20), (10**6, 100), (10**6, 1000)])
def test_distribution_against_exact_rational_arithmetic(n, m):
    ranks = [1, 2, n // 3, n - 1, n]
    P = rm.rank_distribution(ranks, n, m, replace=False)
    B = rm.rank_distribution(ranks, n, m, replace=True)
    den = math.comb(n - 1, m)
    for row, r in enumerate(ranks):
        for k in range(0, m + 1, 1 + m // 150):
            exact_h = math.comb(r - 1, k) * math.comb(n - r, m - k) / den  # correctly rounded
            if exact_h > 1e-290:
                assert abs(P[row, k] - exact_h) <= 1e-11 * exact_h
            else:
                assert P[row, k] <= 1e-280
            # binomial: C(m,k) (r-1)^k (n-r)^(m-k) / (n-1)^m, exactly
            exact_b = math.comb(m, k) * (r - 1) ** k * (n - r) ** (m - k) / (n - 1) ** m
            if exact_b > 1e-290:
                assert abs(B[row, k] - exact_b) <= 1e-11 * exact_b


def test_distribution_small_example_and_shapes():
    np.testing.assert_allclose(rm.rank_distribution(3, 5, 2), [0.25, 0.5, 0.25])
    np.testing.assert_allclose(rm.rank_distribution(3, 5, 2, replace=False), [1 / 6, 2 / 3, 1 / 6])
    assert rm.rank_distribution([1, 2, 3], 5, 2).shape == (3, 3)
    np.testing.assert_array_equal(
        rm.rank_distribution([1, 5], 5, 4, replace=False)[:, [0, 4]], [[1, 0], [0, 1]]
    )


# --------------------------------------------------------------------------
# expected_metric
# --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 20000), m=st.integers(1, 500), replace=st.booleans(), data=st.data())
def test_expected_auc_is_exact_auc_for_every_m(n, m, replace, data):
    if not replace and m > n - 1:
        m = n - 1
    ranks = data.draw(st.lists(st.integers(1, n), min_size=1, max_size=5))
    exact = np.mean(CLOSED["auc"](np.array(ranks), n))
    assert abs(rm.expected_metric(ranks, n, m, "auc", replace=replace) - exact) < 1e-12


@pytest.mark.parametrize("n,m,k", [(10_000, 99, 10), (1000, 5, 3), (10**6, 1000, 10)])
def test_expected_recall_is_binomial_cdf(n, m, k):
    ranks = np.array([1, 2, 50, 101, 950, n])
    got = rm.expected_metric(ranks, n, m, f"recall@{k}", per_user=True)
    np.testing.assert_allclose(
        got, stats.binom.cdf(k - 1, m, (ranks - 1) / (n - 1)), rtol=1e-12, atol=1e-300
    )


@pytest.mark.parametrize("n,m", [(10_000, 99), (100, 3), (10**6, 1000)])
def test_expected_ap_closed_form(n, m):
    # E[1/r~] = (1 - (1 - p)^(m+1)) / (p (m + 1)), p = (r-1)/(n-1) (paper Sec. 3.3; seed's formula)
    ranks = np.array([2, 40, n // 2 + 1, n - 1])
    p = (ranks - 1) / (n - 1)
    q = (n - ranks) / (n - 1)
    closed = -np.expm1((m + 1) * np.log(q)) / (p * (m + 1))
    # rtol: the core evaluates 1/i as a difference of prefix sums (error ~1e-13 at i ~ 1000)
    np.testing.assert_allclose(
        rm.expected_metric(ranks, n, m, "ap", per_user=True), closed, rtol=1e-10
    )
    assert rm.expected_metric(1, n, m, "ap") == 1.0


def test_m_equals_one_every_metric_is_affine_in_auc():
    n = 1000
    ranks = np.arange(1, n + 1)
    auc = CLOSED["auc"](ranks, n)
    for name in ("ap", "ndcg", "recall@1", "precision@1", "ndcg@10"):
        e = rm.expected_metric(ranks, n, 1, name, per_user=True)
        m1, m2 = rm.metric_function(name, 2)(np.array([1, 2]))
        np.testing.assert_allclose(e, m2 + (m1 - m2) * auc, rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------
# Monte Carlo: theory vs really sampling the items
# --------------------------------------------------------------------------


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("n,m", [(200, 20), (60, 50)])  # rejection and random-key branches
def test_monte_carlo_matches_distribution(n, m, replace):
    reps = 4000
    ranks = np.array([1, 7, 100, n])[[0, 1, 2, 3] if n > 100 else [0, 1, 3]]
    s = rm.sample_ranks(ranks, n, m, replace=replace, n_repeats=reps, seed=12345)
    assert s.shape == (reps, ranks.size) and s.min() >= 1 and s.max() <= m + 1
    P = rm.rank_distribution(ranks, n, m, replace=replace)
    for u in range(ranks.size):
        freq = np.bincount(s[:, u] - 1, minlength=m + 1) / reps
        sd = np.sqrt(P[u] * (1 - P[u]) / reps)
        assert np.all(np.abs(freq - P[u]) <= 5 * sd + 2.0 / reps)
        mean_sd = np.sqrt(P[u] @ (np.arange(1, m + 2) - P[u] @ np.arange(1, m + 2)) ** 2 / reps)
        assert abs(s[:, u].mean() - P[u] @ np.arange(1, m + 2)) <= 5 * mean_sd + 1e-12
    assert s[:, 0].max() == 1  # rank 1 stays first
    assert s[:, -1].min() == m + 1  # rank n stays last


def test_monte_carlo_expected_metric_paper_example():
    n, m = 10_000, 99
    ranks = np.array([40, 40, 8437, 9266, 4482])  # recommender B of the paper
    s = rm.sample_ranks(ranks, n, m, n_repeats=3000, seed=7)
    for name in ("ndcg@10", "ap", "recall@10", "auc"):
        per_rep = rm.corrected_metric(s, n, m, name, method="sampled")
        exp = rm.expected_metric(ranks, n, m, name)
        se = per_rep.std(ddof=1) / np.sqrt(per_rep.size)
        assert abs(per_rep.mean() - exp) <= 5 * se + 1e-9  # P(miss) ~ 4e-12 is never observed


def test_sample_ranks_without_replacement_draws_distinct_items():
    # m = n - 1: every irrelevant item is drawn once, so r~ = r exactly
    ranks = np.array([1, 5, 30])
    s = rm.sample_ranks(ranks, 30, 29, replace=False, n_repeats=5, seed=0)
    assert (s == ranks).all()
    a = rm.sample_ranks(ranks, 30, 10, seed=3)
    b = rm.sample_ranks(ranks, 30, 10, seed=3)
    assert a.shape == (3,) and (a == b).all()


# --------------------------------------------------------------------------
# Corrections vs the dense least-squares solution
# --------------------------------------------------------------------------

GRID = [(n, m) for n in (50, 200, 1000) for m in (1, 5, 20)]


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("n,m", GRID)
def test_minimal_bias_equals_dense_lstsq(n, m, replace):
    for metric in ("ndcg@10", "ap", "recall@5", "auc"):
        ref = dense_solution(n, m, metric, 0.0, replace)
        for solver in ("auto", "quadrature", "dense"):
            with warnings.catch_warnings():
                warnings.simplefilter("error", IllConditionedCorrectionWarning)
                x = rm.correction(
                    n, m, metric, method="minimal_bias", replace=replace, solver=solver
                )
            assert rel_err(x, ref) < 1e-5, (metric, solver)


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("n,m", GRID + [(1000, 99)])
@pytest.mark.parametrize("gamma", [0.01, 0.5, 1.0])
def test_bias_variance_equals_dense_solution(n, m, gamma, replace):
    for metric in ("ndcg@10", "ap", "auc"):
        ref = dense_solution(n, m, metric, gamma, replace)
        for solver in ("auto", "quadrature"):
            x = rm.correction(
                n, m, metric, method="bias_variance", gamma=gamma, replace=replace, solver=solver
            )
            assert rel_err(x, ref) < 1e-5, (metric, solver)


def test_under_determined_minimal_bias_is_the_minimum_norm_solution():
    # n = 50 < m + 1 = 100 unknowns: lstsq's minimum-norm solution (binomial model only)
    ref = dense_solution(50, 99, "ap")
    with pytest.warns(IllConditionedCorrectionWarning):
        x = rm.correction(50, 99, "ap", method="minimal_bias")
    assert rel_err(x, ref) < 1e-5


def test_explicit_rcond_gives_a_reproducible_truncated_solution():
    # m = 99: the untruncated problem is not determined in double precision, the truncated one is
    n, m = 1000, 99
    for metric in ("ndcg@10", "ap"):
        ref = dense_solution(n, m, metric, rcond=1e-8)
        with warnings.catch_warnings():
            warnings.simplefilter("error", IllConditionedCorrectionWarning)
            x = rm.correction(n, m, metric, method="minimal_bias", rcond=1e-8, solver="quadrature")
        assert rel_err(x, ref) < 1e-6


def test_ill_conditioned_minimal_bias_warns_and_reports():
    with pytest.warns(IllConditionedCorrectionWarning, match="cond"):
        x, info = rm.correction(10_000, 100, "ndcg@10", method="minimal_bias", return_info=True)
    assert x.shape == (101,)
    assert info["cond"] > 1e12 and info["estimated_relative_error"] > 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllConditionedCorrectionWarning)
        _, info = rm.correction(10_000, 10, "ndcg@10", method="minimal_bias", return_info=True)
    assert 1 < info["cond"] < 1e5 and info["rank"] == 11


def test_quadrature_and_dense_agree_for_large_n_and_priors():
    n, m = 30_000, 20
    for metric in ("ndcg@10", "ap"):
        a = rm.correction(n, m, metric, method="minimal_bias", solver="quadrature")
        b = rm.correction(n, m, metric, method="minimal_bias", solver="dense")
        assert rel_err(a, b) < 1e-6
    # a non-uniform prior: the Stieltjes procedure against the dense solution
    n, m = 2000, 15
    prior = 1.0 / np.sqrt(np.arange(1, n + 1))
    for replace in (True, False):
        for gamma in (0.0, 0.1):
            ref = dense_solution(n, m, "ndcg@10", gamma, replace, prior)
            x = rm.correction(
                n,
                m,
                "ndcg@10",
                method="bias_variance",
                gamma=gamma,
                prior=prior,
                replace=replace,
                solver="quadrature",
            )
            assert rel_err(x, ref) < 1e-5


def test_gamma_one_is_the_posterior_mean():
    n, m = 300, 10
    x = rm.correction(n, m, "ndcg@10", gamma=1.0)
    P = rm.rank_distribution(np.arange(1, n + 1), n, m)
    post = (P * CLOSED["ndcg@10"](np.arange(1, n + 1), n)[:, None]).sum(0) / P.sum(0)
    np.testing.assert_allclose(x, post, rtol=1e-10)


# --------------------------------------------------------------------------
# Monotone correction
# --------------------------------------------------------------------------


def objective(x, n, m, metric, gamma, replace=True):
    r = np.arange(1, n + 1)
    P = rm.rank_distribution(r, n, m, replace=replace)
    mean = P @ x
    var = P @ (x * x) - mean**2
    return np.mean((mean - CLOSED[metric](r, n)) ** 2 + gamma * var)


@pytest.mark.parametrize(
    "n,m,metric,gamma,replace",
    [
        (1000, 20, "ndcg@10", 0.0, True),
        (1000, 99, "ndcg@10", 0.0, True),
        (500, 40, "ap", 0.01, False),
        (2000, 30, "recall@10", 0.1, True),
        (1500, 40, "auc", 0.0, True),
    ],
)
def test_monotone_is_non_increasing_in_range_and_optimal_among_feasible(
    n, m, metric, gamma, replace
):
    x = rm.correction(n, m, metric, method="monotone", gamma=gamma, replace=replace)
    values = CLOSED[metric](np.arange(1, n + 1), n)
    assert np.all(np.diff(x) <= 0)
    assert x.min() >= values.min() and x.max() <= values.max()
    f = objective(x, n, m, metric, gamma, replace)
    # no worse than other feasible (monotone, in-range) vectors
    for method in ("sampled", "unbiased_rank"):
        y = np.clip(rm.correction(n, m, metric, method=method), values.min(), values.max())
        assert f <= objective(y, n, m, metric, gamma, replace) + 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllConditionedCorrectionWarning)
        unc = rm.correction(
            n,
            m,
            metric,
            method="bias_variance" if gamma else "minimal_bias",
            **({"gamma": gamma} if gamma else {}),
            replace=replace,
        )
    iso = np.clip(np.minimum.accumulate(unc), values.min(), values.max())
    assert f <= objective(iso, n, m, metric, gamma, replace) + 1e-12
    # ... and a constrained optimum is no better than the unconstrained one
    assert objective(unc, n, m, metric, gamma, replace) <= f + 1e-9
    # the flag and the method are the same thing
    flag = rm.correction(
        n,
        m,
        metric,
        method="minimal_bias" if gamma == 0 else "bias_variance",
        gamma=gamma,
        monotone=True,
        replace=replace,
    )
    np.testing.assert_allclose(flag, x)


def test_monotone_for_an_increasing_metric():
    x = rm.correction(500, 20, lambda r: np.log(r), method="monotone")
    assert np.all(np.diff(x) >= 0) and x.min() >= 0 and x.max() <= np.log(500)


# --------------------------------------------------------------------------
# Unbiased rank, applying a correction, bias and variance
# --------------------------------------------------------------------------


def test_unbiased_rank():
    n, m = 10_000, 99
    x = rm.correction(n, m, "auc", method="unbiased_rank", rounding="interpolate")
    np.testing.assert_allclose(x, 1 - np.arange(m + 1) / m, atol=1e-12)  # AUC_{m+1}(r~): unbiased
    rhat = 1 + (n - 1) * np.arange(m + 1) / m
    y = rm.correction(n, m, "ap", method="unbiased_rank")
    np.testing.assert_allclose(y, 1 / np.floor(rhat + 0.5))
    z = rm.correction(n, m, "ap", method="unbiased_rank", rounding="ceil")
    np.testing.assert_allclose(z, 1 / np.ceil(rhat))
    bv = rm.estimator_bias_variance(x, [1, 10, 5000, n], n, "auc")
    assert bv["bias"].abs().max() < 1e-12 and list(bv.columns) == [
        "metric",
        "expected",
        "bias",
        "variance",
        "rmse",
    ]


def test_corrected_metric_applies_the_vector():
    n, m = 10_000, 99
    s = np.array([[1, 2, 100], [3, 3, 3]])
    vec = rm.correction(n, m, "ndcg@10", gamma=0.1)
    np.testing.assert_allclose(
        rm.corrected_metric(s, n, m, "ndcg@10", gamma=0.1), vec[s - 1].mean(axis=1)
    )
    np.testing.assert_allclose(
        rm.corrected_metric(s[0], n, m, "ndcg@10", values=vec, per_user=True), vec[s[0] - 1]
    )
    assert rm.corrected_metric([1, 1, 2], n, m, "auc", method="sampled") == pytest.approx(
        (1 + 1 + 98 / 99) / 3
    )
    with pytest.raises(ValueError, match="sampled_ranks"):
        rm.corrected_metric([101], n, m, "auc")


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: rm.rank_distribution(1, 100, 0), ValueError, "n_samples"),
        (lambda: rm.rank_distribution(1, 100, 2.5), TypeError, "n_samples"),
        (lambda: rm.rank_distribution(0, 100, 5), ValueError, "rank"),
        (lambda: rm.rank_distribution(101, 100, 5), ValueError, "rank"),
        (lambda: rm.rank_distribution(1.5, 100, 5), ValueError, "rank"),
        (lambda: rm.rank_distribution(1, 1, 5), ValueError, "n_items"),
        (lambda: rm.rank_distribution(1, 100, 100, replace=False), ValueError, "n_samples"),
        (lambda: rm.rank_distribution(1, 100, 5, replace="no"), TypeError, "replace"),
        (lambda: rm.expected_metric([1, 200], 100, 5, "auc"), ValueError, "ranks"),
        (lambda: rm.expected_metric([1], 100, 5, "ndcg@0"), ValueError, "k"),
        (lambda: rm.expected_metric([1], 100, 5, "foo"), ValueError, "metric"),
        (lambda: rm.correction(100, 5, "auc", method="magic"), ValueError, "method"),
        (lambda: rm.correction(100, 5, "auc", gamma=1.5), ValueError, "gamma"),
        (lambda: rm.correction(100, 5, "auc", gamma=-0.1), ValueError, "gamma"),
        (
            lambda: rm.correction(100, 5, "auc", method="minimal_bias", gamma=0.1),
            ValueError,
            "gamma",
        ),
        (
            lambda: rm.correction(100, 5, "auc", method="unbiased_rank", gamma=0.1),
            ValueError,
            "gamma",
        ),
        (lambda: rm.correction(100, 5, "auc", prior=np.ones(99)), ValueError, "prior"),
        (lambda: rm.correction(100, 5, "auc", prior=-np.ones(100)), ValueError, "prior"),
        (lambda: rm.correction(100, 5, "auc", solver="magic"), ValueError, "solver"),
        (
            lambda: rm.correction(100, 5, "auc", method="unbiased_rank", rounding="up"),
            ValueError,
            "rounding",
        ),
        (lambda: rm.correction(100, 100, "auc", replace=False), ValueError, "n_samples"),
        (
            lambda: rm.correction(100, 5, lambda r: np.sin(r), method="monotone"),
            ValueError,
            "monotone",
        ),
        (lambda: rm.sample_ranks([1, 2], 100, 5, n_repeats=0), ValueError, "n_repeats"),
        (lambda: rm.sample_ranks([0], 100, 5), ValueError, "ranks"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# --------------------------------------------------------------------------
# Validation (issue 9): no silent wrong number from non-integer, huge or
# mistyped input; every error names the argument
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "metric,n_items", [("ndcg@10", None), ("ap", None), ("auc", 100), ("recall@5", 100)]
)
@pytest.mark.parametrize(
    "ranks,match",
    [
        ([1, float("nan")], r"ranks contains NaN at position 1"),
        ([np.inf], r"ranks contains an infinite value at position 0"),
        ([1, 2.5], r"ranks must be integers \(1-based ranks\), found 2\.5 at position 1"),
        ([[1.0, 3.25]], r"ranks must be integers .* found 3\.25 at index \(0, 1\)"),
        ([0], r"ranks must lie in 1\.\."),
        ([-3], r"ranks must lie in 1\.\."),
    ],
)
def test_metric_function_rejects_nan_inf_fractional_and_out_of_range_ranks(
    metric, n_items, ranks, match
):
    f = rm.metric_function(metric, n_items=n_items)
    with pytest.raises(ValueError, match=match):
        f(ranks)


def test_metric_function_rejects_ranks_beyond_the_catalogue_and_booleans():
    # AUC(r) = (n - r)/(n - 1) would silently be negative for r > n
    with pytest.raises(ValueError, match=r"ranks must lie in 1\.\.5, found 7"):
        rm.metric_function("auc", n_items=5)([1, 7])
    with pytest.raises(TypeError, match="ranks must be integer ranks, got booleans"):
        rm.metric_function("ndcg")(np.array([True, False]))
    with pytest.raises(TypeError, match="ranks"):
        rm.metric_function("ndcg")(["1"])
    # integral floats and empty input are fine
    assert rm.metric_function("ndcg")([1.0, 3.0]).tolist() == [1.0, 0.5]
    assert rm.metric_function("ndcg")(np.array([], dtype=int)).shape == (0,)


def test_ranks_beyond_2_53_are_rejected_not_rounded():
    big = 2**53 + 1  # float64(2**53 + 1) == 2**53: would silently become its neighbour
    for ranks in ([big], np.array([big], dtype=np.int64), np.array([2.0**60]), [2**70]):
        with pytest.raises(
            ValueError, match=r"ranks must be at most 2\*\*53 .*not exactly representable"
        ):
            rm.metric_function("ndcg")(ranks)
    with pytest.raises(ValueError, match=r"ranks must be at most 2\*\*53"):
        rm.expected_metric([big], 2**53, 5, "ndcg")
    # 2**53 itself is exact, and works
    assert rm.metric_function("ap")([2**53])[0] == 2.0**-53


@pytest.mark.parametrize("n", [2**53 + 1, 2**63, 2**63 + 5, 10**30])
def test_rank_distribution_huge_catalogue_is_a_clear_error(n):
    with pytest.raises(ValueError, match=r"n_items must be at most 2\*\*53 = 9007199254740992"):
        rm.rank_distribution(1, n, 5)
    with pytest.raises(ValueError, match=r"n_items must be at most 2\*\*53"):
        rm.metric_function("auc", n_items=n)
    with pytest.raises(ValueError, match=r"n_items must be at most 2\*\*53"):
        rm.expected_metric([1], n, [1, 2], "ndcg")


def test_rank_distribution_at_the_largest_exact_catalogue():
    n = 2**53
    p = rm.rank_distribution([1, n // 2, n], n, 3)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert p[0, 0] == 1.0 and p[2, 3] == 1.0


@pytest.mark.parametrize(
    "seed,exc,match",
    [
        (
            True,
            TypeError,
            "seed must be None, a non-negative integer or a numpy.random.Generator, got True of "
            "type bool",
        ),
        (np.bool_(False), TypeError, "seed must be .* of type bool"),
        (1.5, TypeError, "seed must be .* got 1.5 of type float"),
        (2.0, TypeError, "seed must be .* of type float"),
        ("7", TypeError, "seed must be .* of type str"),
        (-1, ValueError, "seed must be a non-negative integer, got -1"),
    ],
)
def test_sample_ranks_validates_seed(seed, exc, match):
    with pytest.raises(exc, match=match):
        rm.sample_ranks([1, 2], 100, 5, seed=seed)


def test_sample_ranks_accepts_integer_generator_and_seed_sequence():
    a = rm.sample_ranks([10, 50], 100, 5, n_repeats=3, seed=np.int64(4))
    b = rm.sample_ranks([10, 50], 100, 5, n_repeats=3, seed=np.random.default_rng(4))
    c = rm.sample_ranks([10, 50], 100, 5, n_repeats=3, seed=np.random.SeedSequence(4))
    assert np.array_equal(a, b) and np.array_equal(a, c)


@pytest.mark.parametrize(
    "rcond,exc,match",
    [
        (
            True,
            TypeError,
            "rcond must be None or a real number in \\[0, 1\\), got True of type bool",
        ),
        ("1e-8", TypeError, "rcond must be .* of type str"),
        ([1e-8], TypeError, "rcond must be .* of type list"),
        (-1e-8, ValueError, "rcond must be a finite number in \\[0, 1\\)"),
        (float("nan"), ValueError, "rcond must be a finite number"),
        (float("inf"), ValueError, "rcond must be a finite number"),
        (1.0, ValueError, "rcond >= 1 would discard all of them"),
    ],
)
def test_correction_validates_rcond(rcond, exc, match):
    with pytest.raises(exc, match=match):
        rm.correction(1000, 10, "ndcg@10", method="minimal_bias", rcond=rcond)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(method="bias_variance"),
        dict(method="sampled"),
        dict(method="unbiased_rank"),
        dict(method="monotone"),
        dict(method="minimal_bias", monotone=True),
    ],
)
def test_rcond_is_refused_where_it_would_be_ignored(kwargs):
    with pytest.raises(
        ValueError, match="rcond applies only to the unconstrained minimal-bias solve"
    ):
        rm.correction(1000, 10, "ndcg@10", rcond=1e-6, **kwargs)


def test_rounding_is_refused_where_it_would_be_ignored():
    with pytest.raises(ValueError, match="rounding applies only to method='unbiased_rank'"):
        rm.correction(1000, 10, "ndcg@10", method="bias_variance", rounding="floor")
    a = rm.correction(1000, 10, "ndcg@10", method="unbiased_rank")
    b = rm.correction(1000, 10, "ndcg@10", method="unbiased_rank", rounding="round")
    assert np.array_equal(a, b)


def test_explicit_rcond_1e6_is_determined_far_beyond_what_the_book_prints():
    # the book's minimal-bias vectors (m = 100): the truncated solution is
    # determined to ~3 eps / rcond relative to its largest entry, and the
    # quadrature reduction agrees with the dense n x (m + 1) lstsq to that level
    n, m = 2000, 100
    for metric in ("ndcg@10", "ap"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", IllConditionedCorrectionWarning)
            x, info = rm.correction(
                n,
                m,
                metric,
                method="minimal_bias",
                rcond=1e-6,
                solver="quadrature",
                return_info=True,
            )
        assert info["estimated_relative_error"] < 1e-9
        assert rel_err(x, dense_solution(n, m, metric, rcond=1e-6)) < 1e-9


def test_metric_function_of_metrics_without_cutoff():
    """Only a metric that needs the catalogue size (AUC) asks for n_items."""
    assert rm.metric_function("rprec")(np.array([1, 2, 5])).tolist() == [1.0, 0.0, 0.0]
    assert rm.metric_function("bpref", n_items=50)(np.array([1, 3])).tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="needs n_items"):
        rm.metric_function("auc")
