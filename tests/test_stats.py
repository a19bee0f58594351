"""recmetrics.stats: tests against scipy, statsmodels and ranx; interval coverage."""

import itertools
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower

from recmetrics import stats


def pair(seed, n=60, shift=0.03):
    rng = np.random.default_rng(seed)
    a = rng.beta(0.6, 1.5, n)  # skewed, like per-user NDCG
    b = np.clip(a + rng.normal(shift, 0.1, n), 0, 1)
    return b, a


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_t_wilcoxon_sign_equal_scipy(alternative):
    a, b = pair(1)
    r = stats.paired_test(a, b, method="t", alternative=alternative)
    ref = sps.ttest_rel(a, b, alternative=alternative)
    assert (r.statistic, r.pvalue) == (ref.statistic, ref.pvalue)
    r = stats.paired_test(a, b, method="wilcoxon", alternative=alternative)
    ref = sps.wilcoxon(a, b, alternative=alternative)
    assert (r.statistic, r.pvalue) == (ref.statistic, ref.pvalue)
    d = a - b
    r = stats.paired_test(a, b, method="sign", alternative=alternative)
    ref = sps.binomtest(int((d > 0).sum()), int((d != 0).sum()), 0.5, alternative=alternative)
    assert r.pvalue == ref.pvalue and r.details["ties"] == int((d == 0).sum())


def test_randomization_is_exact_for_few_users():
    a, b = pair(2, n=10)
    d = a - b
    flips = np.array(list(itertools.product([1, -1], repeat=10)))
    null = (flips * d).mean(axis=1)
    expected = np.mean(np.abs(null) >= abs(d.mean()) * (1 - 1e-12))
    r = stats.paired_test(a, b, method="randomization", n_resamples=2000)
    assert r.details["exact"] and r.pvalue == pytest.approx(expected, abs=1e-12)
    # Monte Carlo above 2**n_resamples, seeded
    a, b = pair(3, n=40)
    r1 = stats.paired_test(a, b, method="randomization", n_resamples=5000, seed=7)
    r2 = stats.paired_test(a, b, method="randomization", n_resamples=5000, seed=7)
    assert r1.pvalue == r2.pvalue and not r1.details["exact"]


RANX_FISHER = """
import json, sys
import numpy as np
from ranx.statistical_tests.fisher_randomization_test import fisher_randomization_test
job = json.load(sys.stdin)
p, _ = fisher_randomization_test(np.array(job["a"]), np.array(job["b"]),
                                 n_permutations=job["n"], random_seed=1)
print(json.dumps(float(p)))
"""


@pytest.mark.slow
@pytest.mark.crosslib
def test_randomization_agrees_with_ranx_within_monte_carlo_error():
    a, b = pair(4, n=80, shift=0.02)
    n = 3000
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run(
        [sys.executable, "-c", RANX_FISHER],
        env=env,
        check=True,
        text=True,
        input=json.dumps({"a": a.tolist(), "b": b.tolist(), "n": n}),
        capture_output=True,
        timeout=600,
    )
    theirs = json.loads(out.stdout)
    ours = stats.paired_test(a, b, method="randomization", n_resamples=20_000, seed=3).pvalue
    se = np.sqrt(ours * (1 - ours) / n + ours * (1 - ours) / 20_000)
    assert 0.01 < ours < 0.99
    assert abs(ours - theirs) < 4.5 * se


@pytest.mark.slow
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_interval_coverage(method):
    """95 % intervals cover the true mean difference in 93-97 % of seeded experiments."""
    rng = np.random.default_rng(2026)
    true_diff = 0.02
    covered, n_exp = 0, 600
    for _ in range(n_exp):
        base = rng.beta(0.6, 1.5, 150)
        noise = rng.gamma(2.0, 0.05, 150) - 0.1 + true_diff  # skewed, mean true_diff
        r = stats.bootstrap_ci(base + noise, base, method=method, n_resamples=2000, seed=rng)
        covered += r.low <= true_diff <= r.high
    assert 0.93 <= covered / n_exp <= 0.97, covered / n_exp


def test_bootstrap_matches_scipy_within_monte_carlo_error():
    a, b = pair(5, n=300)
    ours = stats.bootstrap_ci(a, b, method="bca", n_resamples=20_000, seed=1)
    ref = sps.bootstrap((a - b,), np.mean, method="BCa", n_resamples=20_000, rng=2)
    ci = ref.confidence_interval
    assert ours.low == pytest.approx(ci.low, abs=3 * ours.standard_error / 20)
    assert ours.high == pytest.approx(ci.high, abs=3 * ours.standard_error / 20)
    assert ours.standard_error == pytest.approx(ref.standard_error, rel=0.03)
    p = stats.bootstrap_ci(a, method="percentile", n_resamples=20_000, seed=1)
    refp = sps.bootstrap((a,), np.mean, method="percentile", n_resamples=20_000, rng=2)
    assert p.low == pytest.approx(refp.confidence_interval.low, abs=3 * p.standard_error / 20)


def test_metrics_share_resamples_and_frames_give_tables():
    a, b = pair(6)
    fa = pd.DataFrame({"ndcg@10": a, "recall@10": a / 2})
    fb = pd.DataFrame({"ndcg@10": b, "recall@10": b / 2})
    table = stats.bootstrap_ci(fa, fb, method="percentile", n_resamples=1000)
    assert list(table.index) == ["ndcg@10", "recall@10"]
    # the same resampled users: the second metric is exactly half the first
    assert table.loc["recall@10", "low"] == pytest.approx(table.loc["ndcg@10", "low"] / 2)
    tests = stats.paired_test(fa, fb)
    assert tests.loc["ndcg@10", "pvalue"] == pytest.approx(tests.loc["recall@10", "pvalue"])


def test_adjustments_equal_statsmodels_and_scipy():
    p = np.random.default_rng(7).random(25) ** 2
    p[3] = p[4]  # a tie
    assert np.allclose(stats.adjust_pvalues(p, "holm"), multipletests(p, method="holm")[1])
    assert np.allclose(
        stats.adjust_pvalues(p, "bonferroni"), multipletests(p, method="bonferroni")[1]
    )
    assert np.allclose(stats.adjust_pvalues(p, "bh"), multipletests(p, method="fdr_bh")[1])
    assert np.allclose(
        stats.adjust_pvalues(p.reshape(5, 5), "bh").ravel(), sps.false_discovery_control(p)
    )
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        stats.adjust_pvalues([0.1, 1.5])
    with pytest.raises(ValueError, match="method must be one of"):
        stats.adjust_pvalues([0.1], method="fdr")


def test_power_for_many_user_counts():
    """Every n works, also where statsmodels' fallback root finder returns an array."""
    sd = 0.18
    values = [stats.detectable_difference(n, sd) for n in (50, 92, 120, 656, 876, 1179, 1326, 3000)]
    assert all(isinstance(v, float) for v in values) and values == sorted(values, reverse=True)


def test_power_is_consistent_with_statsmodels():
    sd = 0.25
    delta = stats.detectable_difference(500, sd)
    assert TTestPower().power(delta / sd, 500, 0.05) == pytest.approx(0.8, abs=1e-6)
    n = stats.users_needed(delta, sd)
    assert n in (500, 501)
    assert stats.users_needed(0.02, sd, power=0.9) > stats.users_needed(0.02, sd, power=0.8)
    with pytest.raises(ValueError, match="sd must be"):
        stats.users_needed(0.02, 0)
    with pytest.raises(ValueError, match="n_users"):
        stats.detectable_difference(1, 0.1)


def test_pairing_missing_users_and_nan():
    a = pd.Series([0.1, 0.5, np.nan, 0.7], index=["u1", "u2", "u3", "u4"])
    b = pd.Series([0.2, 0.4, 0.3], index=["u2", "u1", "u3"])
    with pytest.raises(ValueError, match="only in a"):
        stats.paired_test(a, b)
    r = stats.paired_test(a, b, missing="drop")  # u4 dropped; u3 dropped for its NaN
    assert r.n_users == 2 and r.mean_difference == pytest.approx(((0.1 - 0.4) + (0.5 - 0.2)) / 2)
    with pytest.raises(ValueError, match="NaN"):
        stats.paired_test(a, b, missing="drop", nan="raise")
    with pytest.raises(ValueError, match="lengths must be equal"):
        stats.paired_test([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match="same metrics"):
        stats.paired_test(
            pd.DataFrame({"x": [1, 2], "y": [1, 2]}), pd.DataFrame({"x": [1, 2], "z": [1, 2]})
        )
    with pytest.raises(TypeError, match="seed"):
        stats.paired_test([1, 2, 3], [1, 2, 4], method="randomization", seed=True)
    with pytest.raises(ValueError, match="level"):
        stats.bootstrap_ci([1.0, 2.0], level=95)


def test_compare_and_table():
    rng = np.random.default_rng(8)
    base = pd.DataFrame({"ndcg@10": rng.random(300), "map@10": rng.random(300)})
    models = {
        "pop": base,
        "same": base + rng.normal(0, 0.01, base.shape),
        "better": base + 0.1 + rng.normal(0, 0.05, base.shape),
    }
    t = stats.compare(models, n_resamples=500, correction="holm")
    assert list(t.columns) == [
        "model",
        "metric",
        "mean",
        "ci_low",
        "ci_high",
        "difference",
        "pvalue",
        "pvalue_adjusted",
        "significant",
    ]
    assert t.loc[t.model == "pop", "pvalue"].isna().all()
    assert t.loc[t.model == "better", "significant"].all()
    raw = t["pvalue"].dropna().to_numpy()
    assert np.allclose(t["pvalue_adjusted"].dropna(), multipletests(raw, method="holm")[1])
    shown = stats.significance_table(t)
    assert shown.loc["better", "ndcg@10"].endswith("*") and list(shown.index) == list(models)
    assert "better" in shown.to_markdown() and "tabular" in shown.to_latex()
    with pytest.raises(ValueError, match="baseline"):
        stats.compare(models, baseline="nope")
