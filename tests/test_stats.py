"""recmetrics.stats: tests against scipy, statsmodels and ranx; interval coverage."""

import io
import itertools
import json
import math
import os
import subprocess
import sys
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower

import recmetrics as rm
from recmetrics import cli, stats


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
    assert np.allclose(stats.adjust_pvalues(p, "by"), multipletests(p, method="fdr_by")[1])
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


# --------------------------------------------------------------------------
# 1. summaries are not per-user values
def _evaluated(per_user, seed=0, n_users=40):
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n_users, 12)) > 0.7).astype(int)
    y_true[:, 0] = 1  # every user has a relevant item
    y_score = rng.random((n_users, 12))
    return rm.evaluate(y_true, y_score, ["ndcg@10", "recall@5"], per_user=per_user)


def test_the_means_of_evaluate_are_refused():
    means, means_b = _evaluated(False), _evaluated(False, seed=1)
    assert means.name == "mean" and list(means.index) == ["ndcg@10", "recall@5"]
    calls = [
        lambda: stats.bootstrap_ci(means),
        lambda: stats.bootstrap_ci(means.to_frame()),
        lambda: stats.bootstrap_ci(means, means_b),
        lambda: stats.paired_test(means, means_b),
        lambda: stats.paired_test(means, means_b, method="randomization"),
        lambda: stats.compare({"a": means, "b": means_b}),
        lambda: stats.corrected_resampled_ttest(means, 0.8, 0.2),
        # one row per model, as pd.DataFrame({model: evaluate(...)}) gives
        lambda: stats.bootstrap_ci(pd.DataFrame({"a": means, "b": means_b})),
        # trec_eval's names, as the command line labels its measures
        lambda: stats.bootstrap_ci(
            pd.Series([0.3, 0.2, 0.4], index=["P_10", "ndcg_cut_10", "map"])
        ),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"per_user=True"):
            call()
    y_true = [[1, 0, 1, 0], [0, 1, 0, 0], [1, 1, 0, 1]]
    y_score = [[0.9, 0.2, 0.5, 0.1], [0.3, 0.8, 0.1, 0.4], [0.2, 0.6, 0.9, 0.7]]
    conventions = rm.compare_conventions(y_true, y_score, k=2)
    with pytest.raises(ValueError, match="convention names.*per_user=True"):
        stats.bootstrap_ci(conventions)
    # the per-user table of the same evaluation is what the functions take
    per_user, per_user_b = _evaluated(True), _evaluated(True, seed=1)
    table = stats.bootstrap_ci(per_user, n_resamples=500)
    assert list(table.index) == ["ndcg@10", "recall@5"] and (table["n_users"] == 40).all()
    assert table.loc["ndcg@10", "estimate"] == pytest.approx(means["ndcg@10"], rel=1e-12)
    assert stats.paired_test(per_user, per_user_b).shape == (2, 8)
    # users whose ids are strings are users
    named = per_user["ndcg@10"].rename(lambda u: f"user{u}")
    assert stats.bootstrap_ci(named, n_resamples=200).n_users == 40


def test_too_few_users_for_a_bootstrap_interval():
    """With n users the extreme resampled mean has probability n**-n: below (1-level)/2 only."""
    assert stats._min_bootstrap_users(0.95) == 4
    assert stats._min_bootstrap_users(0.99) == 4
    assert stats._min_bootstrap_users(0.999) == 5
    for level in (0.5, 0.9, 0.95, 0.99, 0.999, 0.9999):
        n = stats._min_bootstrap_users(level)
        assert n ** (-n) < (1 - level) / 2 <= (n - 1) ** (-(n - 1))
    with pytest.raises(ValueError, match="of a has 3 users, too few.*at least 4"):
        stats.bootstrap_ci([0.3, 0.5, 0.4])
    with pytest.raises(ValueError, match="too few"):
        stats.bootstrap_ci([0.3, 0.5, 0.4, 0.6], level=0.999)
    r = stats.bootstrap_ci([0.3, 0.5, 0.4, 0.6], method="percentile", n_resamples=4000)
    assert 0.3 < r.low < r.high < 0.6  # inside the range of the values
    # two users, as the means of two metrics would be
    with pytest.raises(ValueError, match="too few"):
        stats.bootstrap_ci([0.53, 0.28])


# --------------------------------------------------------------------------
# 2.-3. randomization test: exact with ties, Monte Carlo for many users
def _enumerate_exactly(a_tenths, b_tenths, alternative):
    """The exact randomization p-value, in rational arithmetic (values k / 10)."""
    d = [Fraction(x - y, 10) for x, y in zip(a_tenths, b_tenths, strict=True)]
    observed = sum(d)
    count = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        t = sum(s * v for s, v in zip(signs, d, strict=True))
        if alternative == "greater":
            count += t >= observed
        elif alternative == "less":
            count += t <= observed
        else:
            count += abs(t) >= abs(observed)
    return Fraction(count, 2 ** len(d))


def test_randomization_counts_ties_of_exact_arithmetic():
    a, b = [0.2, 0.6], [0.0, 0.8]  # differences 0.2 and -0.2, flips sum to -0.4, 0, 0, 0.4
    assert (a[0] - b[0]) + (a[1] - b[1]) != 0  # not exactly 0 in floating point
    p = {
        alt: stats.paired_test(a, b, method="randomization", alternative=alt).pvalue
        for alt in ("less", "greater", "two-sided")
    }
    assert p == {"less": 0.75, "greater": 0.75, "two-sided": 1.0}
    r = stats.paired_test(a, b, method="randomization", alternative="less")
    assert r.resampling == "exact" and r.n_resamples == 4 and r.details["exact"]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_randomization_equals_brute_force_enumeration(alternative):
    """Metric values on a grid of tenths (many exact ties): p equals the rational count."""
    rng = np.random.default_rng(11)
    for _ in range(60):
        n = int(rng.integers(2, 11))
        ka = rng.integers(0, 11, n)
        kb = np.clip(ka + rng.integers(-3, 4, n), 0, 10)
        a, b = ka / 10, kb / 10
        r = stats.paired_test(a, b, method="randomization", alternative=alternative)
        assert r.resampling == "exact" and r.n_resamples == 2**n
        assert r.pvalue == float(_enumerate_exactly(ka, kb, alternative)), (ka, kb)


def test_randomization_monte_carlo_estimates_the_exact_pvalue(monkeypatch):
    a, b = pair(9, n=16, shift=0.02)
    for alternative in ("two-sided", "greater", "less"):
        exact = stats.paired_test(
            a, b, method="randomization", n_resamples=2**16, alternative=alternative
        )
        assert exact.resampling == "exact"
        for g4 in (False, True):  # groups of 8 users per table look-up, or of 4
            if g4:
                monkeypatch.setattr(stats.paired, "_BYTE_TABLE_USERS", 0)
            mc = stats.paired_test(
                a, b, method="randomization", n_resamples=2**16 - 1, alternative=alternative
            )
            monkeypatch.undo()
            assert mc.resampling == "monte carlo" and mc.n_resamples == 2**16 - 1
            se = np.sqrt(exact.pvalue * (1 - exact.pvalue) / 2**16)
            assert abs(mc.pvalue - exact.pvalue) < 4.5 * se + 1 / 2**16


@pytest.mark.parametrize("n_users", [1024, 1100, 5000])
def test_randomization_with_many_users(n_users):
    a, b = pair(10, n=n_users, shift=0.004)
    r = stats.paired_test(a, b, method="randomization", n_resamples=4000, seed=3)
    assert r.resampling == "monte carlo" and r.n_resamples == 4000 and not r.details["exact"]
    assert (
        r.pvalue == stats.paired_test(a, b, method="randomization", n_resamples=4000, seed=3).pvalue
    )
    # (1 + count) / (1 + B): never 0, a multiple of 1 / 4001
    assert r.pvalue * 4001 == pytest.approx(round(r.pvalue * 4001), abs=1e-6) and r.pvalue > 0
    # for many users the randomization and t-tests agree closely
    t = stats.paired_test(a, b).pvalue
    assert abs(r.pvalue - t) < 4.5 * np.sqrt(t * (1 - t) / 4000) + 0.01
    table = stats.compare({"base": b, "new": a}, test="randomization", n_resamples=500)
    assert table["pvalue"].notna().sum() == 1
    # the floor of a Monte Carlo p-value: 1 / (B + 1), two-sided twice that (as scipy)
    far = {
        alt: stats.paired_test(a + 1, a, method="randomization", n_resamples=999, alternative=alt)
        for alt in ("greater", "less", "two-sided")
    }
    assert far["greater"].pvalue == 1 / 1000 and far["less"].pvalue == 1.0
    assert far["two-sided"].pvalue == 2 / 1000


def test_cli_compare_randomization_with_many_users(tmp_path, capsys):
    rng = np.random.default_rng(4)
    users = np.repeat(np.arange(1100), 6)
    items = np.tile(np.arange(6), 1100)
    qrels = pd.DataFrame({"user": users, "item": items})[rng.random(users.size) < 0.4]
    rm.io.write_trec_qrels(qrels, tmp_path / "qrels.txt")
    for name in ("a", "b"):
        run = pd.DataFrame({"user": users, "item": items, "score": rng.random(users.size)})
        rm.io.write_trec_run(run, tmp_path / f"{name}.txt")
    code = cli.main(
        [
            "compare",
            str(tmp_path / "a.txt"),
            str(tmp_path / "b.txt"),
            "--qrels",
            str(tmp_path / "qrels.txt"),
            "-m",
            "ndcg@5",
            "--test",
            "randomization",
            "--n-resamples",
            "300",
            "--format",
            "csv",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    rows = pd.read_csv(io.StringIO(out.out))
    assert rows["pvalue"].notna().sum() == 1 and 0 < rows["pvalue"].max() <= 1


def test_seed_none_is_fresh_entropy_everywhere():
    a, b = pair(12, n=60, shift=0.0)  # p about 0.06: 300 random flips vary
    draws = {stats.paired_test(a, b, method="randomization", n_resamples=300, seed=None).pvalue
             for _ in range(6)}  # fmt: skip
    assert len(draws) > 1
    lows = {stats.bootstrap_ci(a, n_resamples=300, seed=None).low for _ in range(4)}
    assert len(lows) > 1
    frames = {"x": pd.DataFrame({"m": a}), "y": pd.DataFrame({"m": b})}
    tables = [stats.compare(frames, n_resamples=300, seed=None) for _ in range(3)]
    assert len({t["ci_low"].iloc[0] for t in tables}) > 1
    # an integer reproduces, a Generator is drawn from
    assert (
        stats.bootstrap_ci(a, n_resamples=300, seed=5).low
        == stats.bootstrap_ci(a, n_resamples=300, seed=5).low
    )
    g = np.random.default_rng(5)
    assert (
        stats.bootstrap_ci(a, n_resamples=300, seed=g).low
        == stats.bootstrap_ci(a, n_resamples=300, seed=5).low
    )
    stats.compare(frames, n_resamples=300, seed=g)
    for bad, error in ((-1, ValueError), (1.5, TypeError), (True, TypeError), ("0", TypeError)):
        with pytest.raises(error, match="seed"):
            stats.paired_test(a, b, method="randomization", seed=bad)
        with pytest.raises(error, match="seed"):
            stats.bootstrap_ci(a, seed=bad)
        with pytest.raises(error, match="seed"):
            stats.compare(frames, seed=bad)
        with pytest.raises(error, match="seed"):
            stats.paired_test(a, b, seed=bad)  # checked whatever the method


# --------------------------------------------------------------------------
# 4. probabilities, levels and counts
BAD_PROBABILITIES = [
    (0, ValueError),
    (1, ValueError),
    (0.0, ValueError),
    (1.0, ValueError),
    (1.5, ValueError),
    (-0.05, ValueError),
    (5, ValueError),
    (95, ValueError),
    (math.nan, ValueError),
    (math.inf, ValueError),
    (True, TypeError),
    ("0.05", TypeError),
    ([0.05], TypeError),
]


@pytest.mark.parametrize("bad,error", BAD_PROBABILITIES)
def test_probabilities_and_levels_are_checked(bad, error):
    a, b = pair(13, n=30)
    frames = {"x": pd.DataFrame({"m": a}), "y": pd.DataFrame({"m": b})}
    table = stats.compare(frames, n_resamples=200)
    calls = {
        "alpha": [
            lambda: stats.compare(frames, alpha=bad, n_resamples=200),
            lambda: stats.significance_table(table, alpha=bad),
            lambda: stats.detectable_difference(100, 0.2, alpha=bad),
            lambda: stats.users_needed(0.02, 0.2, alpha=bad),
        ],
        "level": [
            lambda: stats.bootstrap_ci(a, level=bad),
            lambda: stats.bootstrap_ci(a, b, level=bad),
            lambda: stats.compare(frames, level=bad, n_resamples=200),
        ],
        "power": [
            lambda: stats.detectable_difference(100, 0.2, power=bad),
            lambda: stats.users_needed(0.02, 0.2, power=bad),
        ],
    }
    for name, group in calls.items():
        for call in group:
            with pytest.raises(error, match=name):
                call()


def test_power_must_exceed_alpha():
    for call in (
        lambda: stats.detectable_difference(100, 0.2, alpha=0.1, power=0.05),
        lambda: stats.users_needed(0.02, 0.2, alpha=0.1, power=0.1),
    ):
        with pytest.raises(ValueError, match="power must be larger than alpha"):
            call()


@pytest.mark.parametrize(
    "bad,error",
    [(0, ValueError), (-5, ValueError), (2.5, TypeError), (1e4, TypeError), (True, TypeError),
     ("100", TypeError), (None, TypeError), (2**60, ValueError)],
)  # fmt: skip
def test_counts_are_checked(bad, error):
    a, b = pair(14, n=30)
    frames = {"x": pd.DataFrame({"m": a}), "y": pd.DataFrame({"m": b})}
    for call in (
        lambda: stats.paired_test(a, b, method="randomization", n_resamples=bad),
        lambda: stats.paired_test(a, b, n_resamples=bad),
        lambda: stats.bootstrap_ci(a, n_resamples=bad),
        lambda: stats.compare(frames, n_resamples=bad),
    ):
        with pytest.raises(error, match="n_resamples"):
            call()
    if bad != 2**60:
        with pytest.raises((TypeError, ValueError), match="n_users"):
            stats.detectable_difference(bad, 0.2)


def test_alpha_decides_significance():
    rng = np.random.default_rng(15)
    base = pd.DataFrame({"ndcg@10": rng.random(200)})
    models = {"base": base, "new": base + rng.normal(0.02, 0.1, base.shape)}
    t = stats.compare(models, n_resamples=200)
    p = t["pvalue_adjusted"].iloc[1]
    assert 0 < p < 1
    assert stats.compare(models, alpha=min(1.0, p * 1.01), n_resamples=200)["significant"].iloc[1]
    assert not stats.compare(models, alpha=p * 0.99, n_resamples=200)["significant"].iloc[1]
    assert stats.significance_table(t, alpha=min(1.0, p * 1.01)).iloc[1, 0].endswith("*")
    assert not stats.significance_table(t, alpha=p * 0.99).iloc[1, 0].endswith("*")


# --------------------------------------------------------------------------
# 5. power
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
@pytest.mark.parametrize("power", [0.5, 0.8, 0.9, 0.99])
def test_users_needed_is_the_smallest_n_reaching_the_power(alpha, power):
    solver = TTestPower()
    for difference, sd in itertools.product([0.001, 0.005, 0.01, 0.05, 0.3, 2.0], [0.05, 0.3]):
        n = stats.users_needed(difference, sd, alpha=alpha, power=power)
        effect = difference / sd
        assert isinstance(n, int) and n >= 2
        assert stats._power(effect, n, alpha) >= power
        assert n == 2 or stats._power(effect, n - 1, alpha) < power
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            at_n = float(solver.power(effect, n, alpha))
            guess = float(np.ravel(solver.solve_power(effect, None, alpha, power))[0])
        if np.isfinite(at_n):  # statsmodels' power function, where it is defined
            assert at_n == stats._power(effect, n, alpha)
        if np.isfinite(guess) and guess > 3:  # statsmodels' solver where it converges
            assert n - 1 < guess <= n + 1e-6


def test_users_needed_where_statsmodels_falls_short():
    """For an effect of 6 sd, statsmodels' solve_power gives 2 users (or NaN): 3 are needed."""
    solver = TTestPower()
    effect = 0.3 / 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        short = float(np.ravel(solver.solve_power(effect, None, 0.05, 0.8))[0])
    assert not np.ceil(short) >= 3  # 2.0 with statsmodels 0.15, NaN for effect 6.0
    assert solver.power(effect, 2, 0.05) < 0.8 <= solver.power(effect, 3, 0.05)
    assert stats.users_needed(0.3, 0.05) == 3
    assert stats.users_needed(-0.3, 0.05) == 3  # the sign of the difference does not matter
    assert stats.users_needed(0.01, sd=0.3) == 7066
    with pytest.raises(ValueError, match="2\\*\\*53"):
        stats.users_needed(1e-12, 1.0)


@pytest.mark.parametrize("n_users", [2, 3, 10, 656, 10**6, 10**9])
@pytest.mark.parametrize("power", [0.06, 0.5, 0.8, 0.999])
def test_detectable_difference_reaches_the_power(n_users, power):
    delta = stats.detectable_difference(n_users, 0.3, power=power)
    assert stats._power(delta / 0.3, n_users, 0.05) == pytest.approx(power, abs=1e-9)
    assert stats.users_needed(delta * (1 + 1e-6), 0.3, power=power) <= n_users


# --------------------------------------------------------------------------
# 6. result tables: numbers, labels
def test_result_tables_are_typed_and_labelled():
    a, b = pair(16, n=200, shift=0.2)
    fa = pd.DataFrame({"ndcg@10": a, "recall@10": a / 2})
    fb = pd.DataFrame({"ndcg@10": b, "recall@10": b / 2})
    tests = stats.paired_test(fa, fb)
    assert tests.index.name == "metric" and list(tests.index) == ["ndcg@10", "recall@10"]
    assert dict(tests.dtypes.map(str)) == {
        "statistic": "float64",
        "pvalue": "float64",
        "mean_difference": "float64",
        "n_users": "int64",
        "method": "str",
        "alternative": "str",
        "resampling": "str",
        "n_resamples": "int64",
    }
    assert tests["pvalue"].max() < 1e-9  # a tiny p-value is kept, and shows as one
    assert "e-" in tests[["pvalue"]].to_string()
    assert tests.round(3)["mean_difference"].tolist() == [
        round(v, 3) for v in tests["mean_difference"]
    ]
    ci = stats.bootstrap_ci(fa, fb, n_resamples=300)
    assert (ci.dtypes[["estimate", "low", "high", "level", "standard_error"]] == "float64").all()
    assert (ci.dtypes[["n_users", "n_resamples"]] == "int64").all()
    assert ci.round(3).loc["ndcg@10", "low"] == round(ci.loc["ndcg@10", "low"], 3)
    rt = stats.corrected_resampled_ttest(fa.iloc[:10] - fb.iloc[:10], 0.8, 0.2)
    assert (rt.dtypes[["statistic", "pvalue", "standard_error"]] == "float64").all()
    assert (rt.dtypes[["df", "n_splits"]] == "int64").all()
    # a single compared metric is labelled by its name, in every model's rows
    per_user = {"pop": pd.Series(b, name="ndcg@10"), "als": pd.Series(a, name="ndcg@10")}
    table = stats.compare(per_user, n_resamples=300)
    assert table["metric"].tolist() == ["ndcg@10", "ndcg@10"]
    assert table["significant"].dtype == bool and table["pvalue"].dtype == "float64"
    assert list(stats.significance_table(table).columns) == ["ndcg@10"]
    mixed = {"pop": b, "als": pd.Series(a, name="ndcg@10")}  # an array and a named Series
    assert stats.compare(mixed, n_resamples=300)["metric"].tolist() == ["ndcg@10", "ndcg@10"]
    # metrics in another column order are matched by name
    swapped = stats.compare({"pop": fb, "als": fa[["recall@10", "ndcg@10"]]}, n_resamples=300)
    diffs = swapped.set_index(["model", "metric"])["difference"]
    assert diffs["als", "recall@10"] == pytest.approx(np.mean(a / 2 - b / 2))


# --------------------------------------------------------------------------
# 7. corrected resampled t-test (Nadeau & Bengio 2003)
def test_corrected_resampled_ttest_by_hand():
    d = np.array([0.012, 0.004, 0.019, 0.008, 0.015, -0.002, 0.011, 0.007, 0.016, 0.010])
    j, ratio = d.size, 0.25  # 80/20 splits
    mean = d.sum() / j
    var = ((d - mean) ** 2).sum() / (j - 1)
    t = mean / np.sqrt((1 / j + ratio) * var)
    for alternative, p in (
        ("two-sided", 2 * sps.t.sf(abs(t), j - 1)),
        ("greater", sps.t.sf(t, j - 1)),
        ("less", sps.t.cdf(t, j - 1)),
    ):
        r = stats.corrected_resampled_ttest(d, 8000, 2000, alternative=alternative)
        assert r.statistic == pytest.approx(t, rel=1e-12)
        assert r.pvalue == pytest.approx(p, rel=1e-10)
        assert (r.df, r.n_splits, r.alternative) == (9, 10, alternative)
        assert r.standard_error == pytest.approx(np.sqrt((1 / j + ratio) * var), rel=1e-12)
        assert r.mean_difference == pytest.approx(mean, rel=1e-12)
    assert round(t, 2) == 2.75 and round(2 * sps.t.sf(t, 9), 4) == 0.0225
    # sizes or fractions: only the ratio enters
    assert stats.corrected_resampled_ttest(d, 0.8, 0.2).statistic == pytest.approx(t, rel=1e-12)
    # without the correction (n_test / n_train -> 0) it is the one-sample t-test
    plain = stats.corrected_resampled_ttest(d, 1.0, 1e-300)
    ref = sps.ttest_1samp(d, 0.0)
    assert plain.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert plain.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    # k-fold: n_test / n_train = 1 / (k - 1), more conservative than the plain test
    assert stats.corrected_resampled_ttest(d, 9, 1).pvalue > plain.pvalue
    # one column per metric
    frame = pd.DataFrame({"ndcg@10": d, "recall@10": 2 * d})
    table = stats.corrected_resampled_ttest(frame, 0.8, 0.2)
    assert table.loc["recall@10", "statistic"] == pytest.approx(t, rel=1e-12)
    # equal differences: no variance
    assert stats.corrected_resampled_ttest([0.0, 0.0, 0.0], 0.8, 0.2).pvalue == 1.0
    r = stats.corrected_resampled_ttest([0.01] * 4, 0.8, 0.2, alternative="less")
    assert (r.statistic, r.pvalue) == (np.inf, 1.0)


def test_corrected_resampled_ttest_refuses_bad_input():
    d = [0.01, 0.02, -0.01, 0.015]
    with pytest.raises(ValueError, match="at least 2 splits"):
        stats.corrected_resampled_ttest([0.01], 0.8, 0.2)
    with pytest.raises(ValueError, match="NaN"):
        stats.corrected_resampled_ttest([0.01, np.nan, 0.02], 0.8, 0.2)
    with pytest.raises(ValueError, match="differences"):
        stats.corrected_resampled_ttest([0.01, np.inf, 0.02], 0.8, 0.2)
    for bad, error in ((0, ValueError), (-1, ValueError), (np.nan, ValueError),
                       (np.inf, ValueError), ("0.8", TypeError), (True, TypeError)):  # fmt: skip
        with pytest.raises(error, match="n_train"):
            stats.corrected_resampled_ttest(d, bad, 0.2)
        with pytest.raises(error, match="n_test"):
            stats.corrected_resampled_ttest(d, 0.8, bad)
    with pytest.raises(ValueError, match="alternative"):
        stats.corrected_resampled_ttest(d, 0.8, 0.2, alternative="larger")
    with pytest.raises(TypeError, match="differences"):
        stats.corrected_resampled_ttest("0.1 0.2", 0.8, 0.2)


# --------------------------------------------------------------------------
# 8. bad input: clear errors naming the argument, no warnings from numpy/scipy
BAD_PER_USER = [
    (None, TypeError),
    ("0.1 0.2", TypeError),
    ({0.1, 0.2}, TypeError),
    ({"u1": 0.1}, TypeError),
    (0.3, TypeError),
    ([True, False, True, True], TypeError),
    (["0.1", "0.2", "0.3", "0.4"], TypeError),
    ([0.1, None, 0.3, 0.4], TypeError),
    ([0.1, 0.2j, 0.3, 0.4], TypeError),
    ([[0.1, 0.2], [0.3]], ValueError),
    ([[0.1, 0.2], [0.3, 0.4]], ValueError),
    ([], ValueError),
    ([0.1, np.inf, 0.3, 0.4], ValueError),
    ([0.1, 1e300, 0.3, 0.4], ValueError),
    (pd.Series([0.1, 0.2, 0.3, 0.4], index=["u1", "u2", "u1", "u3"]), ValueError),
    (pd.Series([], dtype=float), ValueError),
    (pd.Series([True, False, True, True]), TypeError),
    (pd.Series(["a", "b", "c", "d"]), TypeError),
    (pd.DataFrame(index=range(4)), ValueError),
    (pd.DataFrame([[0.1, 0.2]] * 4, columns=["m", "m"]), ValueError),
    (pd.DataFrame({"m": [0.1, 0.2, 0.3, 0.4], "n": ["a", "b", "c", "d"]}), TypeError),
    (pd.DataFrame({"m": pd.to_datetime(["2020-01-01"] * 4)}), TypeError),
]


@pytest.mark.parametrize("bad,error", BAD_PER_USER, ids=lambda v: type(v).__name__)
def test_bad_per_user_values_raise_naming_the_argument(bad, error):
    good = [0.3, 0.5, 0.4, 0.6]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from numpy or scipy on the way
        for call, name in (
            (lambda: stats.paired_test(bad, good), "a"),
            (lambda: stats.paired_test(good, bad), "b"),
            (lambda: stats.paired_test(bad, good, method="randomization"), "a"),
            (lambda: stats.bootstrap_ci(bad), "a"),
            (lambda: stats.bootstrap_ci(good, bad if bad is not None else "x"), "b"),
            (lambda: stats.compare({"x": bad, "y": good}), "per_user_by_model['x']"),
            (lambda: stats.compare({"x": good, "y": bad}), "per_user_by_model['y']"),
            (lambda: stats.corrected_resampled_ttest(bad, 0.8, 0.2), "differences"),
        ):
            with pytest.raises(error) as info:
                call()
            assert name in str(info.value), str(info.value)


def test_pairing_errors():
    a = pd.Series([0.1, 0.5, 0.4, 0.7], index=["u1", "u2", "u3", "u4"])
    b = pd.Series([0.2, 0.4, 0.3, 0.6], index=["v1", "v2", "v3", "v4"])
    with pytest.raises(ValueError, match="4 users are only in a and 4 only in b"):
        stats.paired_test(a, b)
    with pytest.raises(ValueError, match="no user in common"):
        stats.paired_test(a, b, missing="drop")
    with pytest.raises(ValueError, match="fewer than 2 users"):
        stats.paired_test([0.1, np.nan, 0.3], [0.2, 0.2, np.nan])
    with pytest.raises(ValueError, match="lengths must be equal"):
        stats.bootstrap_ci([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3])
    for option, call in (
        ("method", lambda: stats.paired_test([0.1, 0.2], [0.2, 0.1], method="ttest")),
        ("alternative", lambda: stats.paired_test([0.1, 0.2], [0.2, 0.1], alternative="<")),
        ("missing", lambda: stats.paired_test([0.1, 0.2], [0.2, 0.1], missing="keep")),
        ("nan", lambda: stats.bootstrap_ci([0.1, 0.2, 0.3, 0.4], nan="zero")),
        ("method", lambda: stats.bootstrap_ci([0.1, 0.2, 0.3, 0.4], method="BCa")),
        ("test", lambda: stats.compare({"x": [0.1, 0.2], "y": [0.2, 0.1]}, test="z")),
        ("ci_method", lambda: stats.compare({"x": [0.1, 0.2], "y": [0.2, 0.1]}, ci_method="t")),
        ("correction", lambda: stats.compare({"x": [0.1, 0.2], "y": [0.2, 0.1]}, correction="x")),
    ):
        with pytest.raises(ValueError, match=option):
            call()


def test_constant_differences_give_limits_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = stats.paired_test([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
        assert (same.statistic, same.pvalue) == (0.0, 1.0)
        up = stats.paired_test([1.0, 2.0, 3.0], [0.0, 1.0, 2.0])
        assert (up.statistic, up.pvalue) == (np.inf, 0.0)
        assert stats.paired_test([1.0, 2.0], [0.0, 1.0], alternative="less").pvalue == 1.0
        for method in ("wilcoxon", "sign", "randomization"):
            assert stats.paired_test([0.1, 0.2, 0.3], [0.1, 0.2, 0.3], method=method).pvalue == 1
        # tiny differences: the t statistic does not depend on the scale
        d = np.array([1.0, 2.0, 4.0, -1.0])
        tiny = stats.paired_test(d * 1e-160, np.zeros(4))
        assert tiny.statistic == pytest.approx(stats.paired_test(d, np.zeros(4)).statistic)


def test_compare_and_significance_table_refuse_bad_tables():
    frames = {"x": pd.DataFrame({"m": [0.1, 0.2, 0.3, 0.4]}),
              "y": pd.DataFrame({"m": [0.2, 0.2, 0.4, 0.5]})}  # fmt: skip
    with pytest.raises(TypeError, match="per_user_by_model"):
        stats.compare([frames["x"], frames["y"]])
    with pytest.raises(ValueError, match="at least two models"):
        stats.compare({"x": frames["x"]})
    with pytest.raises(TypeError, match="baseline"):
        stats.compare(frames, baseline=["x"])
    with pytest.raises(ValueError, match="same metrics"):
        stats.compare({"x": frames["x"], "y": frames["y"].rename(columns={"m": "n"}).assign(o=1.0)})
    table = stats.compare(frames, n_resamples=200)
    with pytest.raises(TypeError, match="table"):
        stats.significance_table(table.to_dict())
    with pytest.raises(ValueError, match="significant"):
        stats.significance_table(table.drop(columns="significant"))
    with pytest.raises(ValueError, match="twice"):
        stats.significance_table(pd.concat([table, table]))
    with pytest.raises(ValueError, match="empty"):
        stats.significance_table(table.iloc[:0])
    with pytest.raises(TypeError, match="significant"):
        stats.significance_table(table.assign(significant=["yes", "no"]))
    with pytest.raises(TypeError, match="mean"):
        stats.significance_table(table.assign(mean=["0.1", "0.2"]))
    for bad, error in ((2.5, TypeError), (-1, ValueError), (True, TypeError), (99, ValueError)):
        with pytest.raises(error, match="digits"):
            stats.significance_table(table, digits=bad)
    for bad in ("*", ("*",), ("*", 1), None):
        with pytest.raises(TypeError, match="marks"):
            stats.significance_table(table, marks=bad)
    assert stats.significance_table(table, digits=0, marks=("+", "-")).iloc[0, 0] in ("0-", "0+")


def test_adjust_pvalues_refuses_bad_input():
    for bad, error in (
        ([], ValueError),
        ([0.1, np.nan], ValueError),
        ([0.1, -0.1], ValueError),
        ([0.1, np.inf], ValueError),
        ([True, False], TypeError),
        (["0.1"], TypeError),
        (None, TypeError),
        ([0.1, None], TypeError),
    ):
        with pytest.raises(error, match="pvalues"):
            stats.adjust_pvalues(bad)
    assert stats.adjust_pvalues(0.2).shape == ()


def test_power_arguments_are_checked():
    for call, name, error in (
        (lambda: stats.users_needed(0, 0.2), "difference", ValueError),
        (lambda: stats.users_needed(np.inf, 0.2), "difference", ValueError),
        (lambda: stats.users_needed(np.nan, 0.2), "difference", ValueError),
        (lambda: stats.users_needed("0.1", 0.2), "difference", TypeError),
        (lambda: stats.users_needed(True, 0.2), "difference", TypeError),
        (lambda: stats.users_needed(0.01, np.inf), "sd", ValueError),
        (lambda: stats.users_needed(0.01, -0.2), "sd", ValueError),
        (lambda: stats.detectable_difference(100, np.nan), "sd", ValueError),
        (lambda: stats.detectable_difference(100.0, 0.2), "n_users", TypeError),
        (lambda: stats.detectable_difference(2**70, 0.2), "n_users", ValueError),
    ):
        with pytest.raises(error, match=name):
            call()


# --------------------------------------------------------------------------
# power of two independent samples (A/B tests)


def test_two_sample_power_agrees_with_statsmodels_on_random_inputs():
    from statsmodels.stats.power import NormalIndPower, TTestIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    rng = np.random.default_rng(11)
    for _ in range(25):
        p0 = float(rng.uniform(0.01, 0.5))
        p1 = p0 * float(rng.uniform(1.02, 1.5))
        alpha = float(rng.choice([0.01, 0.05, 0.1]))
        power = float(rng.uniform(0.5, 0.95))
        ratio = float(rng.uniform(0.5, 3.0))
        n = stats.proportion_users_needed(p0, p1, alpha=alpha, power=power, ratio=ratio)
        h = proportion_effectsize(p1, p0)
        want = NormalIndPower().solve_power(h, alpha=alpha, power=power, ratio=ratio)
        assert n == int(np.ceil(want - 1e-9))
        # n reaches the power and n - 1 does not (up to the solver's accuracy)
        assert NormalIndPower().power(h, n, alpha, ratio=ratio) >= power - 1e-9
        assert NormalIndPower().power(h, n - 1, alpha, ratio=ratio) < power + 1e-9
        rate = stats.proportion_detectable_rate(p0, n, alpha=alpha, power=power, ratio=ratio)
        assert NormalIndPower().power(
            proportion_effectsize(rate, p0), n, alpha, ratio=ratio
        ) == pytest.approx(power, abs=1e-9)
        sd = float(rng.uniform(0.1, 3.0))
        diff = sd * float(rng.uniform(0.02, 0.5))
        m = stats.two_sample_users_needed(diff, sd, alpha=alpha, power=power, ratio=ratio)
        want = TTestIndPower().solve_power(diff / sd, alpha=alpha, power=power, ratio=ratio)
        assert m == max(2, int(np.ceil(want - 1e-9)))
        mde = stats.two_sample_detectable_difference(m, sd, alpha=alpha, power=power, ratio=ratio)
        assert TTestIndPower().power(mde / sd, m, alpha, ratio=ratio) == pytest.approx(
            power, abs=1e-4
        )
        assert mde <= diff * (1 + 1e-4)


def test_two_sample_power_one_sided_and_known_values():
    # the textbook closed form, 2 (z_0.975 + z_0.8)^2 / h^2 per arm
    h = 2 * np.arcsin(np.sqrt(0.11)) - 2 * np.arcsin(np.sqrt(0.10))
    closed = 2 * (sps.norm.ppf(0.975) + sps.norm.ppf(0.8)) ** 2 / h**2
    assert stats.proportion_users_needed(0.10, 0.11) == 14745 == int(np.ceil(closed))
    larger = stats.proportion_users_needed(0.10, 0.11, alternative="larger")
    assert larger < 14745
    assert stats.proportion_users_needed(0.11, 0.10, alternative="smaller") == larger
    assert stats.two_sample_users_needed(-0.01, 0.1) == stats.two_sample_users_needed(0.01, 0.1)
    assert stats.two_sample_users_needed(0.01, 0.1, ratio=2) < 1571


def test_two_sample_power_bad_input():
    with pytest.raises(ValueError, match="equal"):
        stats.proportion_users_needed(0.1, 0.1)
    with pytest.raises(ValueError, match="p1"):
        stats.proportion_users_needed(0.1, 1.0)
    with pytest.raises(TypeError, match="p0"):
        stats.proportion_users_needed("0.1", 0.2)
    with pytest.raises(ValueError, match="other direction"):
        stats.proportion_users_needed(0.2, 0.1, alternative="larger")
    with pytest.raises(ValueError, match="other direction"):
        stats.two_sample_users_needed(0.1, 1.0, alternative="smaller")
    with pytest.raises(ValueError, match="alternative"):
        stats.two_sample_users_needed(0.1, 1.0, alternative="greater")
    with pytest.raises(ValueError, match="power must be larger than alpha"):
        stats.two_sample_users_needed(0.1, 1.0, alpha=0.1, power=0.05)
    with pytest.raises(ValueError, match="ratio"):
        stats.two_sample_users_needed(0.1, 1.0, ratio=0)
    with pytest.raises(TypeError, match="difference"):
        stats.two_sample_users_needed(True, 1.0)
    with pytest.raises(ValueError, match="difference"):
        stats.two_sample_users_needed(0.0, 1.0)
    with pytest.raises(TypeError, match="n_control"):
        stats.two_sample_detectable_difference(100.0, 1.0)
    with pytest.raises(ValueError, match="n_control"):
        stats.proportion_detectable_rate(0.1, 1)
    with pytest.raises(ValueError, match="cannot detect"):
        stats.proportion_detectable_rate(0.99, 2, power=0.99)
