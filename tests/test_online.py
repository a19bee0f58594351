"""recmetrics.online: click models against their exact probabilities, interleaving."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from recmetrics import online as on

ALPHA = np.array([0.9, 0.2, 0.6, 0.4, 0.05])
GAMMA = np.array([1.0, 0.7, 0.5, 0.35, 0.2])
LAMBDA = np.array([0.6, 0.5, 0.4, 0.3, 0.2])
MODELS = {
    "pbm": {"examination": GAMMA},
    "cascade": {},
    "dcm": {"continuation": LAMBDA},
}


def _brute_force(model, alpha, params):
    """Exact click probabilities by enumerating every outcome of the coins."""
    k = alpha.size
    out = np.zeros(k)
    # coins: attractive[r], examined[r] (pbm) or go_on[r] (dcm)
    for attract in itertools.product([0, 1], repeat=k):
        p_attract = np.prod([alpha[r] if attract[r] else 1 - alpha[r] for r in range(k)])
        if model == "pbm":
            out += p_attract * np.array(attract) * params["examination"]
            continue
        lam = params.get("continuation", np.zeros(k))
        for go in itertools.product([0, 1], repeat=k):
            p_go = np.prod([lam[r] if go[r] else 1 - lam[r] for r in range(k)])
            reading = True
            for r in range(k):
                if reading and attract[r]:
                    out[r] += p_attract * p_go
                    reading = bool(go[r])
    return out


@pytest.mark.parametrize("model", list(MODELS))
def test_click_probabilities_exact_and_simulated(model):
    exact = on.click_probabilities(ALPHA, model=model, **MODELS[model])
    np.testing.assert_allclose(exact, _brute_force(model, ALPHA, MODELS[model]), atol=1e-12)
    n = 200_000
    clicks = on.simulate_clicks(np.tile(ALPHA, (n, 1)), model=model, **MODELS[model], seed=3)
    assert clicks.shape == (n, 5) and clicks.dtype == bool
    freq = clicks.mean(axis=0)
    se = np.sqrt(exact * (1 - exact) / n)
    assert np.all(np.abs(freq - exact) < 4 * se + 1e-12)
    if model == "cascade":
        assert clicks.sum(axis=1).max() == 1


def test_click_model_special_cases():
    alpha = np.array([[0.3, 0.5, 0.7]])
    ones = np.ones(3)
    np.testing.assert_allclose(on.click_probabilities(alpha, model="pbm", examination=ones),
                               alpha)  # fmt: skip
    np.testing.assert_allclose(on.click_probabilities(alpha, model="dcm", continuation=ones),
                               alpha)  # fmt: skip
    np.testing.assert_allclose(
        on.click_probabilities(alpha, model="dcm", continuation=np.zeros(3)),
        on.click_probabilities(alpha, model="cascade"),
    )
    a = on.simulate_clicks(np.full((50, 3), 0.5), model="cascade", seed=1)
    b = on.simulate_clicks(np.full((50, 3), 0.5), model="cascade", seed=1)
    assert (a == b).all()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"model": "ubm"}, ValueError, "model"),
        ({"model": "pbm"}, TypeError, "examination"),
        ({"model": "dcm"}, TypeError, "continuation"),
        ({"model": "cascade", "examination": GAMMA}, TypeError, "examination"),
        ({"model": "pbm", "examination": GAMMA[:3]}, ValueError, "one probability per rank"),
        ({"model": "dcm", "continuation": LAMBDA + 1}, ValueError, r"\[0, 1\]"),
    ],
)
def test_click_models_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        on.simulate_clicks(ALPHA, **kwargs)
    with pytest.raises(ValueError, match="attractiveness"):
        on.click_probabilities(ALPHA * 2, model="cascade")


# --------------------------------------------------------------------------
# interleaving


def _mean_outcome(a, b, method, k, n=6000, p=0.3, seed=0):
    rng = np.random.default_rng(seed)
    out = np.empty(n)
    for s in range(n):
        il = on.interleave(a, b, method=method, k=k, seed=s)
        out[s] = il.outcome(rng.random(len(il.items)) < p)
    return out.mean(), out.std(ddof=1) / np.sqrt(n)


@pytest.mark.parametrize(
    ("a", "b"),
    [([1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, 1]), ([1, 2, 3, 4, 5, 6], [7, 1, 2, 3, 4, 5])],
)
def test_random_clicks_tie_on_average_except_balanced(a, b):
    for method in ("team_draft", "probabilistic"):
        mean, se = _mean_outcome(a, b, method, k=4)
        assert abs(mean) < 4 * se, (method, mean, se)
    # balanced interleaving's known bias (Radlinski et al. 2008): random clicks prefer one
    mean, se = _mean_outcome(a, b, "balanced", k=4)
    assert abs(mean) > 10 * se


def test_team_draft_builds_teams_of_equal_size():
    a, b = list(range(20)), list(range(19, -1, -1))
    for s in range(50):
        il = on.interleave(a, b, method="team_draft", k=10, seed=s)
        assert len(set(il.items)) == 10 and set(il.items) <= set(a)
        assert (il.team == 1).sum() == (il.team == -1).sum() == 5
        # each team's picks follow its own ranking's order
        for team, ranking in ((1, a), (-1, b)):
            picked = [x for x, t in zip(il.items, il.team, strict=True) if t == team]
            assert picked == sorted(picked, key=ranking.index)


def test_balanced_interleaving_is_joachims_merge():
    a, b = ["x", "y", "z", "w"], ["y", "v", "x", "u"]
    shown = {tuple(on.interleave(a, b, method="balanced", k=4, seed=s).items) for s in range(40)}
    assert shown == {("x", "y", "v", "z"), ("y", "x", "v", "z")}
    il = on.interleave(a, b, method="balanced", k=4, seed=0)
    # a click on v (b's 2nd): k' = 2, a's top 2 {x, y} and b's {y, v}: b wins 1 to 0
    clicks = np.array([item == "v" for item in il.items])
    assert il.credit(clicks) == (0.0, 1.0) and il.outcome(clicks) == -1


def test_a_better_ranking_wins_under_a_click_model():
    # attractiveness of items 0..19 decreasing: a ranks them in order, b reversed
    att = np.linspace(0.8, 0.02, 20)
    a, b = list(range(20)), list(range(19, -1, -1))
    rng = np.random.default_rng(5)
    for method in ("team_draft", "balanced", "probabilistic"):
        outcomes = []
        for s in range(300):
            il = on.interleave(a, b, method=method, k=10, seed=s)
            clicks = on.simulate_clicks(att[il.items], model="cascade", seed=rng)
            outcomes.append(il.outcome(clicks))
        res = on.interleaving_test(outcomes, test="t" if method == "probabilistic" else "sign")
        assert res.preference > (0 if res.test == "t" else 0.5) and res.pvalue < 1e-6


def test_probabilistic_identical_rankings_always_tie():
    a = list(range(8))
    for s in range(20):
        il = on.interleave(a, a, method="probabilistic", k=5, seed=s)
        assert il.outcome(np.ones(5, dtype=bool)) == 0.0
        np.testing.assert_allclose(il._posterior_a, 0.5)


def test_interleaving_test_is_scipys():
    outcomes = [1] * 70 + [-1] * 45 + [0] * 300
    r = on.interleaving_test(outcomes)
    ref = stats.binomtest(70, 115, 0.5)
    assert (r.wins_a, r.wins_b, r.ties) == (70, 45, 300)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    ci = ref.proportion_ci(method="exact")
    assert (r.low, r.high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    real = np.array([0.3, -0.1, 0.5, 0.0, 0.2, 0.4])
    t = on.interleaving_test(real, test="t")
    assert t.pvalue == pytest.approx(stats.ttest_1samp(real, 0.0).pvalue, rel=1e-12)
    assert t.preference == pytest.approx(real.mean())


def test_interleaving_bad_input():
    with pytest.raises(ValueError, match="method"):
        on.interleave([1, 2], [2, 1], method="optimized")
    with pytest.raises(ValueError, match="a holds an item twice"):
        on.interleave([1, 1], [2, 1])
    with pytest.raises(TypeError, match="b must be a sequence"):
        on.interleave([1, 2], {1, 2})
    with pytest.raises(TypeError, match="k"):
        on.interleave([1, 2], [2, 1], k=2.0)
    il = on.interleave([1, 2, 3], [3, 2, 1], k=3)
    with pytest.raises(ValueError, match="clicks must be 3 booleans"):
        il.outcome([1, 0, 0])
    with pytest.raises(ValueError, match="clicks must be 3 booleans"):
        il.outcome([True, False])
    with pytest.raises(ValueError, match="test='t'"):
        on.interleaving_test([0.5, -0.2])
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        on.interleaving_test([2, 0])
    with pytest.raises(ValueError, match="nothing to test"):
        on.interleaving_test([0, 0, 0])


# --------------------------------------------------------------------------
# A/B tests


def test_sample_size_is_statsmodels_and_inverts():
    from statsmodels.stats.power import NormalIndPower, TTestIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    for p0, p1 in ((0.10, 0.11), (0.02, 0.021), (0.5, 0.45)):
        n = on.sample_size(p0, p1)
        want = NormalIndPower().solve_power(proportion_effectsize(p1, p0), alpha=0.05, power=0.8)
        assert n == int(np.ceil(want))
        # the usual closed form per arm, 2 (z_a/2 + z_b)^2 / h^2, two-sided
        h = proportion_effectsize(p1, p0)
        approx = 2 * (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2 / h**2
        assert abs(n - approx) <= 1
        p_star = on.detectable_lift(p0, n) if p1 > p0 else None
        if p_star is not None:
            # statsmodels' root finder is exact to about 1e-4 relative here
            assert p_star == pytest.approx(p1, rel=1e-4)
            assert on.sample_size(p0, p_star) == pytest.approx(n, rel=1e-3)
    assert on.sample_size(0.1, 0.11, ratio=2) < on.sample_size(0.1, 0.11)
    m = on.sample_size_mean(0.02, 0.3)
    assert m == int(np.ceil(TTestIndPower().solve_power(0.02 / 0.3, alpha=0.05, power=0.8)))


def test_compare_arms_is_welch():
    rng = np.random.default_rng(0)
    c, t = rng.normal(1.0, 1.0, 300), rng.normal(1.2, 2.0, 200)
    r = on.compare_arms(c, t)
    ref = stats.ttest_ind(t, c, equal_var=False)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    ci = ref.confidence_interval()
    assert (r.low, r.high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert r.difference == pytest.approx(t.mean() - c.mean())


def test_cuped_reduces_variance_by_rho_squared_and_stays_unbiased():
    rng = np.random.default_rng(1)
    effects, plain_var, cuped_var = [], [], []
    for _ in range(300):
        x = rng.gamma(2.0, 1.0, 2000)  # pre-period activity
        y = 0.8 * x + rng.normal(0, 1.0, 2000)
        arm = rng.random(2000) < 0.5
        y = y + 0.1 * arm  # the true effect
        adjusted, _ = on.cuped(y, x)
        plain = y[arm].mean() - y[~arm].mean()
        cup = adjusted[arm].mean() - adjusted[~arm].mean()
        effects.append(cup)
        plain_var.append(plain)
        cuped_var.append(cup)
    rho2 = np.corrcoef(y, x)[0, 1] ** 2
    ratio = np.var(cuped_var) / np.var(plain_var)
    assert abs(ratio - (1 - rho2)) < 0.12
    assert abs(np.mean(effects) - 0.1) < 4 * np.std(effects) / np.sqrt(len(effects))


def test_ratio_metric_delta_method_matches_the_bootstrap():
    rng = np.random.default_rng(2)
    impressions = rng.poisson(20, 3000) + 1
    rate = rng.beta(2, 30, 3000)  # users differ: clicks are correlated within a user
    clicks = rng.binomial(impressions, rate)
    r, se = on.ratio_metric(clicks, impressions)
    assert r == pytest.approx(clicks.sum() / impressions.sum())
    boots = []
    for _ in range(400):
        i = rng.integers(0, 3000, 3000)
        boots.append(clicks[i].sum() / impressions[i].sum())
    assert se == pytest.approx(np.std(boots, ddof=1), rel=0.12)
    # impressions as independent units understate the standard error
    naive = np.sqrt(r * (1 - r) / impressions.sum())
    assert naive < 0.8 * se


def test_srm_test():
    assert on.srm_test([50_000, 50_600]) == pytest.approx(
        stats.chisquare([50_000, 50_600]).pvalue, rel=1e-12
    )
    assert on.srm_test([49_000, 51_000]) < 1e-8
    assert on.srm_test([20_000, 80_300], [0.2, 0.8]) > 0.1


def test_msprt_keeps_alpha_under_continuous_peeking():
    rng = np.random.default_rng(4)
    sims, steps, alpha = 1000, 500, 0.05
    mixture_fp, naive_fp = 0, 0
    z = stats.norm.ppf(1 - alpha / 2)
    for _ in range(sims):
        d = rng.normal(0.0, 1.0, steps)
        mixture_fp += on.msprt(d, sigma2=1.0, tau2=0.1, alpha=alpha).rejected_at is not None
        n = np.arange(1, steps + 1)
        naive_fp += bool(np.any(np.abs(np.cumsum(d) / np.sqrt(n)) > z))  # peek every time
    assert mixture_fp / sims <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / sims)
    assert naive_fp / sims > 0.2
    # and it has power against a real effect
    hits = sum(
        on.msprt(rng.normal(0.2, 1.0, steps), sigma2=1.0, tau2=0.1).rejected_at is not None
        for _ in range(100)
    )
    assert hits > 80


def test_ab_bad_input():
    with pytest.raises(ValueError, match="p1"):
        on.sample_size(0.1, 1.2)
    with pytest.raises(ValueError, match="equal"):
        on.sample_size(0.1, 0.1)
    with pytest.raises(ValueError, match="alternative"):
        on.sample_size(0.1, 0.2, alternative="greater")
    with pytest.raises(ValueError, match="constant"):
        on.cuped([1.0, 2.0, 3.0], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="one value per user"):
        on.cuped([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="denominator"):
        on.ratio_metric([1, 2], [0, 0])
    with pytest.raises(ValueError, match="sigma2"):
        on.msprt([0.1, 0.2], sigma2=0.0, tau2=1.0)
    with pytest.raises(ValueError, match="at least 2 users"):
        on.compare_arms([1.0], [1.0, 2.0])


# --------------------------------------------------------------------------
# stratification


def test_stratified_with_one_stratum_is_welch():
    rng = np.random.default_rng(7)
    y = rng.normal(1.0, 1.5, 500)
    arm = rng.random(500) < 0.4
    r = on.stratified(y, arm, np.zeros(500, dtype=int), level=0.9)
    w = on.compare_arms(y[~arm], y[arm], level=0.9)
    assert r.difference == pytest.approx(w.difference, rel=1e-12)
    assert r.standard_error == pytest.approx(w.standard_error, rel=1e-12)
    assert (r.low, r.high) == pytest.approx((w.low, w.high), rel=1e-10)
    assert r.pvalue == pytest.approx(w.pvalue, rel=1e-9)
    assert (r.n_control, r.n_treatment) == (int((~arm).sum()), int(arm.sum()))


def test_stratified_by_hand():
    # stratum a: control [1, 2, 3], treatment [2, 4]; stratum b: control [10, 12],
    # treatment [11, 15, 16]; both have 5 of the 10 users: w = (1/2, 1/2)
    y = [1, 2, 3, 2, 4, 10, 12, 11, 15, 16]
    arm = np.array([0, 0, 0, 1, 1, 0, 0, 1, 1, 1], dtype=bool)
    strata = ["a"] * 5 + ["b"] * 5
    r = on.stratified(y, arm, strata)
    assert r.difference == pytest.approx(0.5 * (3 - 2) + 0.5 * (14 - 11))
    # variances: a: control 1, treatment 2; b: control 2, treatment 7
    var = 0.25 * (2 / 2 + 1 / 3) + 0.25 * (7 / 3 + 2 / 2)
    assert r.standard_error == pytest.approx(np.sqrt(var))
    parts = np.array([0.25 * 2 / 2, 0.25 * 1 / 3, 0.25 * 7 / 3, 0.25 * 2 / 2])
    df = var**2 / np.sum(parts**2 / np.array([1, 2, 2, 1]))
    half = stats.t.ppf(0.975, df) * np.sqrt(var)
    assert (r.low, r.high) == pytest.approx((2.0 - half, 2.0 + half))
    assert r.pvalue == pytest.approx(2 * stats.t.sf(2.0 / np.sqrt(var), df))
    # the plain difference mixes the strata (more treated users in b): 9.6 - 5.6, not 2
    assert on.compare_arms(np.array(y)[~arm], np.array(y)[arm]).difference == pytest.approx(4.0)


def test_stratified_reduces_the_variance_when_strata_explain_the_metric():
    rng = np.random.default_rng(8)
    plain, strat, ses = [], [], []
    for _ in range(400):
        strata = rng.integers(0, 4, 1200)
        y = 2.0 * strata + rng.normal(0, 1.0, 1200)  # strata explain most of the variance
        arm = rng.random(1200) < 0.5
        y = y + 0.1 * arm
        plain.append(y[arm].mean() - y[~arm].mean())
        r = on.stratified(y, arm, strata)
        strat.append(r.difference)
        ses.append(r.standard_error)
    # the variance falls to about the within-strata share, 1 / (1 + 4 * 1.25) = 1/6
    ratio = np.var(strat) / np.var(plain)
    assert 0.1 < ratio < 0.25
    assert abs(np.mean(strat) - 0.1) < 4 * np.std(strat) / np.sqrt(len(strat))
    # the standard error estimates the spread of the estimates
    assert np.mean(ses) == pytest.approx(np.std(strat), rel=0.1)


def test_stratified_with_uninformative_strata_costs_little():
    rng = np.random.default_rng(9)
    plain, strat = [], []
    for _ in range(400):
        strata = rng.integers(0, 4, 1200)
        y = rng.normal(0, 1.0, 1200)
        arm = rng.random(1200) < 0.5
        plain.append(y[arm].mean() - y[~arm].mean())
        strat.append(on.stratified(y, arm, strata).difference)
    assert np.var(strat) / np.var(plain) == pytest.approx(1.0, abs=0.1)


def test_stratified_bad_input():
    y = np.arange(8.0)
    arm = np.array([0, 1] * 4, dtype=bool)
    with pytest.raises(TypeError, match="arm must be booleans"):
        on.stratified(y, arm.astype(int), np.zeros(8))
    with pytest.raises(ValueError, match="arm needs one boolean per user"):
        on.stratified(y, arm[:6], np.zeros(8))
    with pytest.raises(ValueError, match="strata needs one label per user"):
        on.stratified(y, arm, np.zeros(7))
    with pytest.raises(ValueError, match="stratum 'b' has fewer than 2 users"):
        on.stratified(y, arm, ["a"] * 6 + ["b"] * 2)
    with pytest.raises(ValueError, match="level"):
        on.stratified(y, arm, np.zeros(8), level=95)


def test_online_power_is_rm_stats_power():
    from recmetrics import stats as rs

    assert on.sample_size(0.05, 0.055) == rs.proportion_users_needed(0.05, 0.055)
    assert on.detectable_lift(0.05, 5000) == rs.proportion_detectable_rate(0.05, 5000)
    assert on.sample_size_mean(0.3, 2.0) == rs.two_sample_users_needed(0.3, 2.0)
    with pytest.raises(TypeError, match="n must"):
        on.detectable_lift(0.05, 5000.0)
