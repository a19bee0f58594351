"""recmetrics.offpolicy: reference loops, a known truth, the intervals, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import recmetrics as rm
from recmetrics import offpolicy as ope

# --------------------------------------------------------------------------
# plain reference implementations: one round at a time, as the formulas read


def _random_logs(seed, n=300, n_actions=6, len_list=3):
    rng = np.random.default_rng(seed)
    action = rng.integers(n_actions, size=n)
    position = rng.integers(len_list, size=n)
    pscore = rng.uniform(0.05, 1.0, size=n)
    reward = rng.integers(2, size=n)
    dist = rng.dirichlet(np.ones(n_actions) * 0.7, size=(n, len_list)).transpose(0, 2, 1)
    q_hat = rng.uniform(0, 1, size=(n, n_actions, len_list))
    return dict(
        reward=reward,
        action=action,
        position=position,
        pscore=pscore,
        action_dist=dist,
        estimated_rewards_by_reg_model=q_hat,
    )


def _terms(logs, weight_map):
    """Per-round DR-type terms with a map applied to each weight (None: IPS-type)."""
    out = []
    for i in range(len(logs["reward"])):
        a, p = logs["action"][i], logs["position"][i]
        w = logs["action_dist"][i, a, p] / logs["pscore"][i]
        q = logs["estimated_rewards_by_reg_model"][i, :, p]
        q_pi = sum(logs["action_dist"][i, b, p] * q[b] for b in range(q.size))
        out.append((w, q_pi, q[a], logs["reward"][i]))
    return out


def reference(name, logs, lam=np.inf):
    rows = _terms(logs, None)
    if name == "dm":
        return np.mean([q_pi for _, q_pi, _, _ in rows])
    if name == "ips":
        return np.mean([min(w, lam) * r for w, _, _, r in rows])
    if name == "snips":
        return sum(w * r for w, _, _, r in rows) / sum(w for w, _, _, _ in rows)
    if name == "sndr":
        total_w = sum(w for w, _, _, _ in rows)
        return (
            np.mean([q_pi for _, q_pi, _, _ in rows])
            + sum(w * (r - qa) for w, _, qa, r in rows) / total_w
        )
    shrink = {
        "dr": lambda w: min(w, lam),
        "switch_dr": lambda w: w if w <= lam else 0.0,
        "dros": lambda w: w if np.isinf(lam) else (lam * w / (w * w + lam) if lam > 0 else 0.0),
    }[name]
    return np.mean([q_pi + shrink(w) * (r - qa) for w, q_pi, qa, r in rows])


NEEDS = {
    "dm": ("action_dist", "estimated_rewards_by_reg_model", "position"),
    "ips": ("reward", "action", "pscore", "action_dist", "position"),
    "snips": ("reward", "action", "pscore", "action_dist", "position"),
}
for _name in ("dr", "sndr", "switch_dr", "dros"):
    NEEDS[_name] = (*NEEDS["ips"], "estimated_rewards_by_reg_model")
ESTIMATORS = list(NEEDS)
WITH_LAMBDA = ("ips", "dr", "switch_dr", "dros")


def call(name, logs, **kw):
    return getattr(ope, name)(**{k: logs[k] for k in NEEDS[name]}, **kw)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimators_match_the_reference_loops(name, seed):
    logs = _random_logs(seed)
    got = call(name, logs)
    assert got.estimator == name and got.n_rounds == 300
    assert got.value == pytest.approx(reference(name, logs), rel=1e-12, abs=1e-15)
    assert float(got) == got.value
    if name in WITH_LAMBDA:
        for lam in (0.0, 0.5, 3.0, 40.0):
            value = call(name, logs, lambda_=lam).value
            assert value == pytest.approx(reference(name, logs, lam), rel=1e-12, abs=1e-15)


def test_limits_of_the_hyperparameters():
    logs = _random_logs(5)
    dr = call("dr", logs).value
    dm = call("dm", logs).value
    assert call("switch_dr", logs, lambda_=np.inf).value == dr
    assert call("dros", logs, lambda_=np.inf).value == dr
    assert call("switch_dr", logs, lambda_=0.0).value == pytest.approx(dm, rel=1e-12)
    assert call("dros", logs, lambda_=0.0).value == pytest.approx(dm, rel=1e-12)
    # DR with a reward model of zeros is IPS; SNDR with zeros is SNIPS
    zero = dict(logs, estimated_rewards_by_reg_model=np.zeros_like(logs["action_dist"]))
    assert call("dr", zero).value == pytest.approx(call("ips", logs).value, rel=1e-12)
    assert call("sndr", zero).value == pytest.approx(call("snips", logs).value, rel=1e-12)


# --------------------------------------------------------------------------
# a known truth


def _replications(n_rounds, reps, target_beta, seed=0):
    est = {name: [] for name in ("ips", "snips", "dr", "dm")}
    truths = []
    rng = np.random.default_rng(seed)
    for _ in range(reps):
        b = ope.synthetic_bandit(n_rounds, 5, beta=1.0, seed=rng)
        target = ope.softmax_policy(4.0 * b.expected_reward, target_beta)
        truths.append(ope.policy_value(b.expected_reward, target))
        q_hat = ope.fit_reward_model(reward=b.reward, action=b.action, n_actions=5)
        kw = dict(reward=b.reward, action=b.action, pscore=b.pscore, action_dist=target)
        est["ips"].append(ope.ips(**kw).value)
        est["snips"].append(ope.snips(**kw).value)
        est["dr"].append(ope.dr(**kw, estimated_rewards_by_reg_model=q_hat).value)
        est["dm"].append(ope.dm(action_dist=target, estimated_rewards_by_reg_model=q_hat).value)
    return {k: np.array(v) for k, v in est.items()}, np.array(truths)


def test_ips_and_dr_are_unbiased_on_a_known_truth():
    est, truth = _replications(2000, 300, target_beta=3.0)
    for name in ("ips", "dr"):
        err = est[name] - truth
        se = err.std(ddof=1) / np.sqrt(err.size)
        assert abs(err.mean()) < 4 * se, (name, err.mean(), se)
    # the context-blind reward model is biased for a context-dependent target: DM is off
    err = est["dm"] - truth
    assert abs(err.mean()) > 4 * err.std(ddof=1) / np.sqrt(err.size)


def test_snips_bias_shrinks_with_n_and_its_variance_is_below_ips():
    small, t_small = _replications(50, 400, target_beta=6.0, seed=1)
    large, t_large = _replications(2000, 100, target_beta=6.0, seed=2)
    bias_small = abs((small["snips"] - t_small).mean())
    bias_large = abs((large["snips"] - t_large).mean())
    assert bias_large < bias_small
    assert np.var(large["snips"] - t_large) < np.var(large["ips"] - t_large)


def test_normal_intervals_cover_the_truth():
    rng = np.random.default_rng(3)
    covered = {"ips": 0, "snips": 0, "dr": 0}
    reps = 200
    for _ in range(reps):
        b = ope.synthetic_bandit(3000, 5, seed=rng)
        target = ope.softmax_policy(4.0 * b.expected_reward, 2.0)
        truth = ope.policy_value(b.expected_reward, target)
        q_hat = ope.fit_reward_model(reward=b.reward, action=b.action, n_actions=5)
        kw = dict(reward=b.reward, action=b.action, pscore=b.pscore, action_dist=target)
        for name, v in (
            ("ips", ope.ips(**kw)),
            ("snips", ope.snips(**kw)),
            ("dr", ope.dr(**kw, estimated_rewards_by_reg_model=q_hat)),
        ):
            covered[name] += v.low <= truth <= v.high
    for name, hits in covered.items():
        assert 0.88 * reps <= hits <= reps, (name, hits)


def test_bootstrap_interval_is_scipys_and_renormalises():
    logs = _random_logs(7, n=400)
    kw = {k: logs[k] for k in NEEDS["snips"]}
    boot = ope.snips(**kw, interval="bootstrap", n_resamples=2000, seed=11)
    normal = ope.snips(**kw)
    assert boot.interval == "bootstrap" and boot.value == normal.value
    assert boot.low < boot.value < boot.high
    # the delta method's standard error agrees with the bootstrap's
    assert boot.standard_error == pytest.approx(normal.standard_error, rel=0.15)
    w = logs["action_dist"][np.arange(400), logs["action"], logs["position"]] / logs["pscore"]
    r = logs["reward"]
    direct = stats.bootstrap(
        (w * r, w),
        lambda a, b, axis=-1: a.mean(axis=axis) / b.mean(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=2000,
        method="percentile",
        random_state=np.random.default_rng(11),
    )
    assert boot.low == pytest.approx(direct.confidence_interval.low, rel=1e-12)
    assert boot.high == pytest.approx(direct.confidence_interval.high, rel=1e-12)
    again = ope.snips(**kw, interval="bootstrap", n_resamples=2000, seed=11)
    assert (again.low, again.high) == (boot.low, boot.high)


def test_uniform_logs_evaluate_themselves_exactly():
    # OBD's random logs: the uniform policy's IPS weight is 1 on every round
    logs = rm.datasets.open_bandit("random", "men")
    n, n_actions = len(logs), logs["action"].max() + 1
    uniform = np.full((n, n_actions, 3), 1.0 / n_actions)
    v = ope.ips(reward=logs["reward"], action=logs["action"], pscore=logs["pscore"],
                action_dist=uniform, position=logs["position"])  # fmt: skip
    assert v.value == pytest.approx(logs["reward"].mean(), rel=1e-12)
    diag = ope.weight_diagnostics(action=logs["action"], pscore=logs["pscore"],
                                  action_dist=uniform, position=logs["position"])  # fmt: skip
    assert diag["mean_weight"] == pytest.approx(1.0) and diag["effective_sample_size"] == n


# --------------------------------------------------------------------------
# policies, reward models, diagnostics


def test_thompson_sampling_matches_the_exact_probability():
    alpha, beta = np.array([3.0, 5.0]), np.array([7.0, 9.0])
    exact, _ = integrate.quad(
        lambda x: stats.beta.pdf(x, 3, 7) * stats.beta.cdf(x, 5, 9), 0, 1
    )  # P(theta_0 > theta_1)
    dist = ope.thompson_sampling_action_dist(alpha, beta, len_list=2, n_sim=200_000, seed=0)
    assert dist.shape == (1, 2, 2)
    np.testing.assert_allclose(dist.sum(axis=1), 1.0)
    assert dist[0, 0, 0] == pytest.approx(exact, abs=0.005)
    assert dist[0, 1, 1] == pytest.approx(exact, abs=0.005)


def test_thompson_sampling_of_the_open_bandit_prior():
    prior = rm.datasets.open_bandit_prior("men")
    dist = ope.thompson_sampling_action_dist(
        prior["alpha"], prior["beta"], len_list=3, n_rounds=4, n_sim=20_000
    )
    assert dist.shape == (4, 34, 3)
    np.testing.assert_allclose(dist.sum(axis=1), 1.0)
    assert (dist[0] == dist[3]).all()


def test_ranking_action_dist():
    dist = ope.ranking_action_dist([[2, 0, 1], [1, 2, 0]], n_actions=4, len_list=2)
    assert dist.shape == (2, 4, 2)
    assert dist[0, 2, 0] == dist[0, 0, 1] == dist[1, 1, 0] == dist[1, 2, 1] == 1.0
    assert dist.sum() == 4
    with pytest.raises(ValueError, match="twice"):
        ope.ranking_action_dist([1, 1], n_actions=3)
    with pytest.raises(ValueError, match="0..2"):
        ope.ranking_action_dist([1, 3], n_actions=3)


def test_reward_model_default_and_cross_fitting():
    reward = np.array([1, 0, 0, 1, 1, 0, 0, 0])
    action = np.array([0, 0, 1, 1, 2, 2, 2, 2])
    q = ope.fit_reward_model(reward=reward, action=action, n_actions=3, smoothing=2.0)
    mean = reward.mean()
    assert q[0, :, 0] == pytest.approx([(1 + 2 * mean) / 4, (1 + 2 * mean) / 4, (1 + 2 * mean) / 6])
    assert (q == q[0]).all()  # the default ignores the context
    # cross-fitted: a round's own reward never enters its own prediction
    flipped = reward.copy()
    flipped[0] = 0
    a = ope.fit_reward_model(reward=reward, action=action, n_actions=3, n_folds=4, seed=1)
    b = ope.fit_reward_model(reward=flipped, action=action, n_actions=3, n_folds=4, seed=1)
    assert a[0].tolist() == b[0].tolist()
    assert a.tolist() != b.tolist()


def test_reward_model_with_a_scikit_learn_classifier():
    from sklearn.linear_model import LogisticRegression

    b = ope.synthetic_bandit(1500, 4, seed=4)
    q = ope.fit_reward_model(reward=b.reward, action=b.action, n_actions=4,
                             context=b.context, model=LogisticRegression(), n_folds=2)  # fmt: skip
    assert q.shape == (1500, 4, 1)
    assert ((q > 0) & (q < 1)).all()
    # it learns the context: closer to the truth than the context-blind default
    blind = ope.fit_reward_model(reward=b.reward, action=b.action, n_actions=4)
    assert (
        np.abs(q[:, :, 0] - b.expected_reward).mean()
        < np.abs(blind[:, :, 0] - b.expected_reward).mean()
    )


def test_weight_diagnostics_on_a_known_truth():
    b = ope.synthetic_bandit(50_000, 5, seed=6)
    target = ope.softmax_policy(4.0 * b.expected_reward, 3.0)
    d = ope.weight_diagnostics(action=b.action, pscore=b.pscore, action_dist=target)
    assert d["mean_weight"] == pytest.approx(1.0, abs=0.02)
    assert 0 < d["effective_sample_size"] <= 50_000
    assert d["zero_weight_share"] == 0.0
    greedy = ope.ranking_action_dist(b.expected_reward.argmax(axis=1)[:, None], n_actions=5)
    g = ope.weight_diagnostics(action=b.action, pscore=b.pscore, action_dist=greedy)
    assert 0.5 < g["zero_weight_share"] < 1.0
    assert g["effective_sample_size"] < d["effective_sample_size"]


# --------------------------------------------------------------------------
# rankings


def _slate_logs(seed, n_slates=200, len_list=3):
    rng = np.random.default_rng(seed)
    slate_id = np.repeat(np.arange(n_slates), len_list)
    position = np.tile(np.arange(len_list), n_slates)
    reward = rng.integers(2, size=slate_id.size)
    joint = np.repeat(rng.uniform(0.01, 1, n_slates), len_list)
    joint_e = np.repeat(rng.uniform(0, 1, n_slates), len_list)
    marg = rng.uniform(0.05, 1, slate_id.size)
    marg_e = rng.uniform(0, 1, slate_id.size)
    return slate_id, position, reward, joint, joint_e, marg, marg_e


def test_slate_estimators_match_the_reference():
    slate_id, position, reward, joint, joint_e, marg, marg_e = _slate_logs(0)
    ref_joint = np.mean(
        [(reward[slate_id == s] * joint_e[slate_id == s] / joint[slate_id == s]).sum()
         for s in range(200)]
    )  # fmt: skip
    ref_marg = (reward * marg_e / marg).sum() / 200
    v = ope.sips(slate_id=slate_id, reward=reward, position=position, pscore=joint,
                 evaluation_policy_pscore=joint_e)  # fmt: skip
    assert v.value == pytest.approx(ref_joint, rel=1e-12) and v.n_rounds == 200
    v = ope.iips(slate_id=slate_id, reward=reward, position=position, pscore_item_position=marg,
                 evaluation_policy_pscore_item_position=marg_e)  # fmt: skip
    assert v.value == pytest.approx(ref_marg, rel=1e-12)
    v = ope.rips(slate_id=slate_id, reward=reward, position=position, pscore_cascade=marg,
                 evaluation_policy_pscore_cascade=marg_e)  # fmt: skip
    assert v.value == pytest.approx(ref_marg, rel=1e-12)
    with pytest.raises(ValueError, match="same for every slot"):
        ope.sips(slate_id=slate_id, reward=reward, position=position, pscore=marg,
                 evaluation_policy_pscore=marg_e)  # fmt: skip
    with pytest.raises(ValueError, match="position 0 twice"):
        ope.iips(slate_id=[0, 0], reward=[1, 0], position=[0, 0],
                 pscore_item_position=[0.5, 0.5],
                 evaluation_policy_pscore_item_position=[0.5, 0.5])  # fmt: skip


def test_iips_is_unbiased_under_the_item_position_model():
    # 3 items, 2 slots; logging: uniform over the 6 orderings; target: fixed [2, 0]
    rng = np.random.default_rng(8)
    click = np.array([[0.1, 0.05], [0.3, 0.2], [0.6, 0.4]])  # item x position
    truth = click[2, 0] + click[0, 1]
    perms = np.array([(a, b) for a in range(3) for b in range(3) if a != b])
    values = []
    for _ in range(200):
        shown = perms[rng.integers(6, size=2000)]
        reward = (rng.random(shown.shape) < click[shown, [0, 1]]).astype(int)
        target = np.array([2, 0])
        e = (shown == target).astype(float)  # the target's marginal: 1 if the same item
        values.append(
            ope.iips(slate_id=np.repeat(np.arange(2000), 2), reward=reward.ravel(),
                     position=np.tile([0, 1], 2000),
                     pscore_item_position=np.full(4000, 1 / 3),
                     evaluation_policy_pscore_item_position=e.ravel()).value
        )  # fmt: skip
    values = np.array(values)
    assert abs(values.mean() - truth) < 4 * values.std(ddof=1) / np.sqrt(values.size)


# --------------------------------------------------------------------------
# bad input: every estimator


BAD = [
    ("pscore", lambda L: L["pscore"] * 0, ValueError, r"pscore must be in \(0, 1\]"),
    ("pscore", lambda L: L["pscore"] * 10, ValueError, "pscore"),
    ("action", lambda L: L["action"] + 6, ValueError, "action must be in 0..5"),
    ("action", lambda L: L["action"] - 0.5, ValueError, "action must be integers"),
    ("position", lambda L: L["position"] + 3, ValueError, "position must be in 0..2"),
    ("action_dist", lambda L: L["action_dist"] * 2, ValueError, "sum to 1"),
    ("action_dist", lambda L: L["action_dist"][:, :, 0], ValueError, "3-D"),
    ("action_dist", lambda L: -L["action_dist"], ValueError, "non-negative"),
    ("reward", lambda L: L["reward"][:-1], ValueError, "reward has 299 rounds"),
    ("reward", lambda L: np.where(L["reward"] > 0, np.nan, 0.0), ValueError, "NaN"),
    ("reward", lambda L: "clicks", TypeError, "reward"),
    (
        "estimated_rewards_by_reg_model",
        lambda L: L["estimated_rewards_by_reg_model"][:, :, :2],
        ValueError,
        "shape of action_dist",
    ),
]


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize(("arg", "change", "error", "match"), BAD)
def test_bad_input_is_named(name, arg, change, error, match):
    logs = _random_logs(9)
    if arg not in NEEDS[name]:
        pytest.skip(f"{name} does not take {arg}")
    logs[arg] = change(logs)
    with pytest.raises(error, match=match):
        call(name, logs)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_bad_options_are_named(name):
    logs = _random_logs(10)
    with pytest.raises(ValueError, match="interval"):
        call(name, logs, interval="bca")
    with pytest.raises(ValueError, match="level"):
        call(name, logs, level=95)
    with pytest.raises(TypeError, match="n_resamples"):
        call(name, logs, interval="bootstrap", n_resamples=1e3)
    missing = dict(logs)
    del missing["position"]
    with pytest.raises(TypeError, match="position is required"):
        getattr(ope, name)(**{k: missing[k] for k in NEEDS[name] if k != "position"})
    if name in WITH_LAMBDA:
        for bad, err in ((True, TypeError), (float("nan"), ValueError), (-1, ValueError),
                         ("inf", TypeError)):  # fmt: skip
            with pytest.raises(err, match="lambda_"):
                call(name, logs, lambda_=bad)


def test_arrays_are_keyword_only():
    logs = _random_logs(11)
    with pytest.raises(TypeError):
        ope.ips(logs["reward"], logs["action"], logs["pscore"], logs["action_dist"])


def test_self_normalised_with_no_weight_raises():
    logs = _random_logs(12, n=4, n_actions=2, len_list=1)
    logs["action"] = np.zeros(4, dtype=int)
    logs["action_dist"] = np.tile([[[0.0], [1.0]]], (4, 1, 1))
    with pytest.raises(ValueError, match="self-normalised estimate is undefined"):
        call("snips", logs)


def test_reward_model_per_action():
    from sklearn.linear_model import LinearRegression, LogisticRegression

    b = ope.synthetic_bandit(3000, 4, seed=13)
    kw = dict(reward=b.reward, action=b.action, n_actions=4, context=b.context)
    pooled = ope.fit_reward_model(**kw, model=LinearRegression())
    per = ope.fit_reward_model(**kw, model=LinearRegression(), per_action=True)
    assert per.shape == (3000, 4, 1)
    # the context acts differently on each action: one model per action is closer
    err = lambda q: np.abs(q[:, :, 0] - b.expected_reward).mean()  # noqa: E731
    assert err(per) < err(pooled)
    # an action whose rounds are all unrewarded: its mean reward, 0
    reward = b.reward.copy()
    reward[b.action == 2] = 0
    q = ope.fit_reward_model(reward=reward, action=b.action, n_actions=4, context=b.context,
                             model=LogisticRegression(), per_action=True)  # fmt: skip
    assert (q[:, 2, 0] == 0).all() and (q[:, 0, 0] > 0).all()
    with pytest.raises(TypeError, match="per_action=True needs model"):
        ope.fit_reward_model(reward=b.reward, action=b.action, n_actions=4, per_action=True)
    with pytest.raises(TypeError, match="per_action"):
        ope.fit_reward_model(**kw, model=LinearRegression(), per_action="yes")
    with pytest.raises(TypeError, match="context is read by a model only"):
        ope.fit_reward_model(**kw)


# --------------------------------------------------------------------------
# test sets missing not at random


def _mnar_world(seed, n_users=400, n_items=60):
    rng = np.random.default_rng(seed)
    pop = 1.0 / np.arange(1, n_items + 1) ** 0.8  # item popularity
    relevant = rng.random((n_users, n_items)) < 0.15
    scores = rng.random((n_users, n_items)) + 0.8 * pop  # a model that favours popular items
    users = np.repeat(np.arange(n_users), n_items)
    items = np.tile(np.arange(n_items), n_users)
    preds = pd.DataFrame({"user": users, "item": items, "score": scores.ravel()})
    return rng, pop, relevant, preds


def test_weighted_recall_with_equal_propensities_is_recall():
    rng, pop, relevant, preds = _mnar_world(0)
    u, i = np.nonzero(relevant)
    truth = pd.DataFrame({"user": u, "item": i})
    ones = pd.Series(1.0, index=np.arange(60))
    for k in (1, 5, 20):
        assert ope.weighted_recall(
            truth, preds, k=k, propensity=ones, average="user"
        ) == pytest.approx(rm.recall(truth, preds, k=k), rel=1e-12)
    pooled = ope.weighted_recall(truth, preds, k=5, propensity=ones, average="pooled")
    hits = rm.recall(truth, preds, k=5, per_user=True) * truth.groupby("user").size()
    assert pooled == pytest.approx(hits.sum() / len(truth), rel=1e-12)


def test_weighting_recovers_the_metric_on_every_relevant_item():
    rng, pop, relevant, preds = _mnar_world(1)
    u, i = np.nonzero(relevant)
    full = pd.DataFrame({"user": u, "item": i})
    # recall pooled over every relevant pair
    true_value = (
        rm.recall(full, preds, k=10, per_user=True) * full.groupby("user").size()
    ).sum() / len(full)
    propensity = pd.Series(0.9 * pop / pop.max(), index=np.arange(60))  # the real ones
    plain, weighted = [], []
    for _ in range(40):
        seen = rng.random(len(full)) < propensity.to_numpy()[full["item"]]
        observed = full[seen]
        ones = pd.Series(1.0, index=np.arange(60))
        plain.append(ope.weighted_recall(observed, preds, k=10, propensity=ones))
        weighted.append(ope.weighted_recall(observed, preds, k=10, propensity=propensity))
    plain, weighted = np.array(plain), np.array(weighted)
    se = weighted.std(ddof=1) / np.sqrt(weighted.size)
    # the plain metric overrates the popularity-loving model; weighting recovers it
    assert plain.mean() > true_value + 10 * plain.std(ddof=1) / np.sqrt(plain.size)
    assert abs(weighted.mean() - true_value) < max(4 * se, 0.01 * true_value)


def test_popularity_propensity_and_weighted_dcg():
    inter = pd.DataFrame({"item": ["a"] * 9 + ["b"] * 4 + ["c"]})
    p = ope.popularity_propensity(inter, exponent=0.5)
    assert p.to_dict() == pytest.approx({"a": 1.0, "b": 2 / 3, "c": 1 / 3})
    assert (ope.popularity_propensity(inter, exponent=0) == 1).all()
    truth = pd.DataFrame({"user": [1, 1], "item": ["b", "c"]})
    preds = pd.DataFrame({"user": [1, 1, 1], "item": ["c", "a", "b"], "score": [3.0, 2, 1]})
    w_b, w_c = 1.5, 3.0
    want = (w_c / np.log2(2) + w_b / np.log2(4)) / (w_b + w_c)
    assert ope.weighted_dcg(truth, preds, propensity=p) == pytest.approx(want, rel=1e-12)
    assert ope.weighted_dcg(truth, preds, propensity=p, k=2) == pytest.approx(
        w_c / (w_b + w_c), rel=1e-12
    )


def test_weighted_metrics_bad_input():
    truth = pd.DataFrame({"user": [1, 1], "item": ["b", "c"]})
    preds = pd.DataFrame({"user": [1], "item": ["b"], "score": [1.0]})
    with pytest.raises(ValueError, match=r"no value for 1 relevant row.*\['c'\]"):
        ope.weighted_recall(truth, preds, k=1, propensity=pd.Series({"b": 0.5}))
    with pytest.raises(ValueError, match=r"propensity must be in \(0, 1\]"):
        ope.weighted_recall(truth, preds, k=1, propensity=pd.Series({"b": 0.5, "c": 0.0}))
    with pytest.raises(TypeError, match="propensity must be a pandas Series"):
        ope.weighted_recall(truth, preds, k=1, propensity={"b": 0.5, "c": 1.0})
    with pytest.raises(ValueError, match="average"):
        ope.weighted_recall(truth, preds, k=1, propensity=pd.Series({"b": 1.0, "c": 1.0}),
                            average="micro")  # fmt: skip
    with pytest.raises(ValueError, match="exponent"):
        ope.popularity_propensity(pd.DataFrame({"item": [1]}), exponent=-1)
    with pytest.raises(TypeError, match="exponent"):
        ope.popularity_propensity(pd.DataFrame({"item": [1]}), exponent="0.5")


# --------------------------------------------------------------------------
# cascade doubly robust


def _cascade_world(rng, n, q_model):
    """Rankings of 2 of 3 items: uniform logger, a fixed target [2, 0], cascade clicks."""
    click = np.array([0.15, 0.35, 0.6])  # an item's click probability if read
    perms = np.array([(a, b) for a in range(3) for b in range(3) if a != b])
    shown = perms[rng.integers(6, size=n)]
    first = rng.random(n) < click[shown[:, 0]]
    second = ~first & (rng.random(n) < click[shown[:, 1]])  # read only without a click
    reward = np.stack([first, second], axis=1).astype(float)
    target = np.array([2, 0])
    e1 = (shown[:, 0] == target[0]).astype(float)
    e2 = e1 * (shown[:, 1] == target[1])
    ps = np.stack([np.full(n, 1 / 3), np.full(n, 1 / 6)], axis=1)
    dist = np.zeros((n, 2, 3))
    dist[:, 0, 2] = 1.0  # the target's first item
    dist[:, 1, 0] = 1.0  # and its second, whatever is above
    q = np.zeros((n, 2, 3))
    if q_model == "truth":  # E[r_k | items above, item at k] under the cascade
        q[:, 0, :] = click
        q[:, 1, :] = (1 - click[shown[:, 0]])[:, None] * click
    elif q_model == "wrong":
        q[:, :, :] = 0.3
    truth = click[2] + (1 - click[2]) * click[0]
    kw = dict(slate_id=np.repeat(np.arange(n), 2), action=shown.ravel(),
              reward=reward.ravel(), position=np.tile([0, 1], n),
              pscore_cascade=ps.ravel(),
              evaluation_policy_pscore_cascade=np.stack([e1, e2], axis=1).ravel(),
              q_hat=q.reshape(-1, 3),
              evaluation_policy_action_dist=dist.reshape(-1, 3))  # fmt: skip
    return kw, truth


def test_cascade_dr_reference_and_rips():
    rng = np.random.default_rng(0)
    kw, _ = _cascade_world(rng, 500, "wrong")
    got = ope.cascade_dr(**kw).value
    # a plain loop over rankings and slots
    total = 0.0
    for i in range(500):
        w_prev = 1.0
        for k in range(2):
            j = 2 * i + k
            w = kw["evaluation_policy_pscore_cascade"][j] / kw["pscore_cascade"][j]
            q_row = kw["q_hat"][j]
            total += w * (kw["reward"][j] - q_row[kw["action"][j]])
            total += w_prev * float(kw["evaluation_policy_action_dist"][j] @ q_row)
            w_prev = w
    assert got == pytest.approx(total / 500, rel=1e-12)
    zero = dict(kw, q_hat=np.zeros_like(kw["q_hat"]))
    keys = ("slate_id", "reward", "position", "pscore_cascade",
            "evaluation_policy_pscore_cascade")  # fmt: skip
    rips = ope.rips(**{key: kw[key] for key in keys})
    assert ope.cascade_dr(**zero).value == pytest.approx(rips.value, rel=1e-12)


def test_cascade_dr_is_unbiased_and_a_good_model_helps():
    rng = np.random.default_rng(1)
    est = {m: [] for m in ("none", "wrong", "truth")}
    truth = None
    for _ in range(200):
        for m in est:
            kw, truth = _cascade_world(rng, 400, m)
            est[m].append(ope.cascade_dr(**kw).value)
    for m, values in est.items():
        v = np.array(values)
        assert abs(v.mean() - truth) < 4 * v.std(ddof=1) / np.sqrt(v.size), m
    assert np.var(est["truth"]) < 0.5 * np.var(est["none"])


def test_cascade_dr_bad_input():
    rng = np.random.default_rng(2)
    kw, _ = _cascade_world(rng, 20, "wrong")
    with pytest.raises(ValueError, match="position 0"):
        ope.cascade_dr(**dict(kw, position=np.tile([1, 0], 20)))
    with pytest.raises(ValueError, match="positions 0, 1"):
        ope.cascade_dr(**dict(kw, position=np.r_[np.tile([0, 1], 19), [0, 0]]))
    with pytest.raises(ValueError, match="differ in slate_id"):
        ope.cascade_dr(**dict(kw, slate_id=np.arange(40)))
    with pytest.raises(ValueError, match="shape"):
        ope.cascade_dr(**dict(kw, q_hat=kw["q_hat"][:, :2]))
    with pytest.raises(ValueError, match="sum to 1"):
        ope.cascade_dr(**dict(kw, evaluation_policy_action_dist=kw["q_hat"]))
    with pytest.raises(ValueError, match="pscore_cascade"):
        ope.cascade_dr(**dict(kw, pscore_cascade=np.zeros(40)))


def _cascade_dr_expectation(claimed, q_function):
    """Exact mean of cascade_dr over every ranking of two slots and two items.

    The logger draws each slot's item uniformly; the target draws the first
    item from p0 and the second from p1; the expected click at slot 0 is
    click0[a0] and at slot 1 click1[a0, a1] (the cascade assumption). The
    estimator is linear in the rewards, so expected clicks stand in for draws.
    """
    p_logger, p0, p1 = np.full(2, 0.5), np.array([0.8, 0.2]), np.array([0.3, 0.7])
    click0, click1 = np.array([0.3, 0.1]), np.array([[0.2, 0.05], [0.4, 0.1]])
    truth = p0 @ (click0 + click1 @ p1)
    total = 0.0
    for a0 in range(2):
        for a1 in range(2):
            # slot 0: the Q function (clicks from slot 0 down, slot 1 drawn by the
            # target), the same with slot 1 drawn by the logger, or the slot's own click
            below = {"target": click1 @ p1, "logger": click1 @ p_logger, "own": 0.0}
            first = click0 + below[q_function]
            value = rm.offpolicy.cascade_dr(
                slate_id=[0, 0],
                action=[a0, a1],
                reward=[click0[a0], click1[a0, a1]],
                position=[0, 1],
                pscore_cascade=[claimed[a0], claimed[a0] * claimed[a1]],
                evaluation_policy_pscore_cascade=[p0[a0], p0[a0] * p1[a1]],
                q_hat=np.array([first, click1[a0]]),
                evaluation_policy_action_dist=np.array([p0, p1]),
            ).value
            total += p_logger[a0] * p_logger[a1] * value
    return total, truth


@pytest.mark.parametrize("q_function", ["own", "logger", "target"])
def test_cascade_dr_unbiased_with_right_weights_whatever_the_model(q_function):
    mean, truth = _cascade_dr_expectation(np.full(2, 0.5), q_function)
    assert mean == pytest.approx(truth, abs=1e-12)


def test_cascade_dr_with_wrong_weights_needs_the_q_function():
    wrong = np.array([0.3, 0.7])
    mean, truth = _cascade_dr_expectation(wrong, q_function="target")
    assert mean == pytest.approx(truth, abs=1e-12)
    biased, truth = _cascade_dr_expectation(wrong, q_function="own")
    assert biased - truth > 0.03  # an exact per-slot click model is not enough
    biased, truth = _cascade_dr_expectation(wrong, q_function="logger")
    assert truth - biased > 0.01  # nor the clicks below under the logging policy
