"""Beyond-accuracy metrics (issue 13, first part): hand-computed cases and properties."""

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from recmetrics.metrics import beyond

TRAIN = pd.DataFrame({"user": [1, 2, 3, 4, 5], "item": ["a", "a", "a", "b", "c"]})
GENRES = {"a": {"Drama"}, "b": {"Drama", "War"}, "c": {"Comedy"}, "d": set()}


def test_coverage_gini_entropy_by_hand():
    lists = [["a", "b"], ["a", "c"]]
    assert beyond.coverage(lists, n_items=4) == 0.75
    assert beyond.coverage(lists, n_items=4, k=1) == 0.25
    # exposures a=2, b=1, c=1, d=0 sorted: 0, 1, 1, 2
    x = np.array([0, 1, 1, 2.0])
    j = np.arange(1, 5)
    assert beyond.gini(lists, n_items=4) == pytest.approx(np.sum((2 * j - 5) * x) / (4 * x.sum()))
    p = np.array([0.5, 0.25, 0.25])
    assert beyond.entropy(lists) == pytest.approx(-(p * np.log2(p)).sum())
    assert beyond.gini([["a"], ["b"], ["c"]], n_items=3) == 0.0
    with pytest.raises(ValueError, match="smaller than"):
        beyond.gini(lists, n_items=2)


def test_popularity_metrics_by_hand():
    lists = [["a", "b"], ["c"]]
    per = beyond.novelty(lists, TRAIN, per_user=True)
    assert per[0] == pytest.approx((-math.log2(3 / 5) - math.log2(1 / 5)) / 2)
    assert per[1] == pytest.approx(-math.log2(1 / 5))
    assert beyond.average_popularity(lists, TRAIN, per_user=True).tolist() == [2.0, 1.0]
    counts = pd.Series({"a": 3, "b": 1, "c": 1})
    assert beyond.novelty(lists, counts, n_users=5) == pytest.approx(beyond.novelty(lists, TRAIN))
    # head = the items holding 60 % of the interactions = {a}
    assert beyond.long_tail_share(lists, TRAIN, head=0.6, per_user=True).tolist() == [0.5, 1.0]
    with pytest.raises(ValueError, match="no training interaction"):
        with pytest.warns(UserWarning, match="1 of the 1 recommended items are absent"):
            beyond.novelty([["z"]], TRAIN, unseen="raise")
    with pytest.warns(UserWarning, match="absent from popularity"):
        assert np.isfinite(beyond.novelty([["z"]], TRAIN))
    with pytest.raises(TypeError, match="n_users"):
        beyond.novelty(lists, counts)


def test_intra_list_diversity_by_hand():
    ild = beyond.intra_list_diversity
    # jaccard: a-b 1/2, a-c 1, b-c 1 -> 5/6
    assert ild([["a", "b", "c"]], GENRES) == pytest.approx((0.5 + 1 + 1) / 3)
    assert np.isnan(ild([["a"]], GENRES, per_user=True)[0])
    onehot = pd.DataFrame(
        {"Drama": [1, 1, 0], "War": [0, 1, 0], "Comedy": [0, 0, 1]}, index=["a", "b", "c"]
    )
    assert ild([["a", "b", "c"]], onehot) == pytest.approx((0.5 + 1 + 1) / 3)
    cos_ab = 1 - 1 / math.sqrt(2)
    assert ild([["a", "b"]], onehot, distance="cosine") == pytest.approx(cos_ab)
    dist = pd.DataFrame([[0, 0.2], [0.2, 0]], index=["a", "b"], columns=["a", "b"])
    assert ild([["a", "b"]], dist, distance="precomputed") == pytest.approx(0.2)
    w = [
        1 / math.log2(2) / math.log2(3),
        1 / math.log2(2) / math.log2(4),
        1 / math.log2(3) / math.log2(4),
    ]
    assert ild([["a", "b", "c"]], GENRES, discount=True) == pytest.approx(
        (w[0] * 0.5 + w[1] + w[2]) / sum(w)
    )
    with pytest.raises(ValueError, match="no entry for item"):
        ild([["a", "x"]], GENRES)


def test_input_forms_agree():
    lists = [["a", "b", "c"], ["c", "a"]]
    frame = pd.DataFrame(
        {
            "user": ["u", "u", "u", "v", "v"],
            "item": ["a", "b", "c", "c", "a"],
            "rank": [1, 2, 3, 1, 2],
        }
    )
    by_score = frame.assign(score=-frame["rank"]).drop(columns="rank").iloc[::-1]
    for fn, kw in (
        (beyond.intra_list_diversity, {"features": GENRES}),
        (beyond.novelty, {"popularity": TRAIN}),
    ):
        a = fn(lists, **kw, per_user=True)
        b = fn(frame, **kw, per_user=True)
        c = fn(by_score, **kw, per_user=True)
        np.testing.assert_allclose(a, b.loc[["u", "v"]].to_numpy())
        np.testing.assert_allclose(a, c.loc[["u", "v"]].to_numpy())
    arr = np.array([[0, 1, 2], [2, 0, 3]])
    feats = pd.DataFrame(np.eye(4), index=range(4))
    assert beyond.intra_list_diversity(arr, feats) == 1.0
    with pytest.raises(ValueError, match="twice"):
        beyond.coverage([["a", "a"]], n_items=3)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from("abcd"), min_size=2, max_size=4, unique=True),
        min_size=1,
        max_size=6,
    ),
    st.randoms(use_true_random=False),
)
def test_properties(lists, rnd):
    ild = beyond.intra_list_diversity(lists, GENRES, per_user=True)
    assert np.all((ild >= 0) & (ild <= 1))
    shuffled = [rnd.sample(lst, len(lst)) for lst in lists]
    np.testing.assert_allclose(beyond.intra_list_diversity(shuffled, GENRES, per_user=True), ild)
    assert 0 <= beyond.gini(lists, n_items=4) <= 1
    assert 0 < beyond.coverage(lists, n_items=4) <= 1
    same = [["a", "b"]] * 3
    assert beyond.intra_list_diversity([["a", "a2"]], {"a": {"x"}, "a2": {"x"}}) == 0.0
    assert beyond.entropy(same) == 1.0


# --------------------------------------------------------------------------
# second part: top_k, the remaining metrics, kernels, evaluate
def test_top_k_ties_mask_and_errors():
    s = np.array([[0.5, 0.9, 0.5, 0.9, 0.1], [1.0, 1.0, 1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(beyond.top_k(s, 3), [[1, 3, 0], [0, 1, 2]])
    np.testing.assert_array_equal(
        beyond.top_k(s, 2, mask=[[0, 1, 0, 0, 0], [1, 0, 0, 0, 0]]), [[3, 0], [1, 2]]
    )
    rng = np.random.default_rng(3)
    r = rng.integers(0, 4, (200, 40)).astype(float)  # many ties
    expect = np.argsort(-r, axis=1, kind="stable")[:, :7]
    np.testing.assert_array_equal(beyond.top_k(r, 7), expect)
    with pytest.raises(ValueError, match="fewer than k=5"):
        beyond.top_k(s, 5, mask=[[0, 1, 0, 0, 0], [0] * 5])
    with pytest.raises(ValueError, match="larger than"):
        beyond.top_k(s, 6)
    with pytest.raises(ValueError, match="NaN"):
        beyond.top_k([[np.nan, 1.0]], 1)


def test_coverage_variants():
    lists = [["a", "b"], ["a", "c"], []]
    assert beyond.coverage(lists, n_items=4, min_exposure=2) == 0.25
    assert beyond.user_coverage(lists, n_users=3) == pytest.approx(2 / 3)
    assert beyond.user_coverage(lists, n_users=4, min_length=2) == 0.5
    with pytest.raises(ValueError, match="smaller than"):
        beyond.user_coverage(lists, n_users=2)
    with pytest.raises(TypeError, match="n_items"):
        beyond.coverage(lists, n_items=4.0)
    # uniform exposure over 4 of 16 items: 2 bits of log2(16) = 4
    assert beyond.entropy([["a", "b"], ["c", "d"]], normalize="catalogue", n_items=16) == 0.5
    assert beyond.entropy([["a", "b"], ["c", "d"]], base=np.e) == pytest.approx(np.log(4))
    # discounted exposure: a at 1 twice, b at 2 once
    e = np.array([2.0, 1 / np.log2(3)])
    p = e / e.sum()
    assert beyond.entropy([["a", "b"], ["a"]], discount="log") == pytest.approx(
        -(p * np.log2(p)).sum()
    )


def test_novelty_and_popularity_options():
    # a: 3 users / 4 interactions (user 1 twice), b: 1, c: 1 -> 5 users, 6 rows
    train = pd.concat([TRAIN, pd.DataFrame({"user": [1], "item": ["a"]})], ignore_index=True)
    by_users = beyond.novelty([["a"]], train)
    assert by_users == pytest.approx(-math.log2(3 / 5))
    by_rows = beyond.novelty([["a"]], train, denominator="interactions")
    assert by_rows == pytest.approx(-math.log2(4 / 6))
    assert beyond.novelty([["a", "z"]], train, unseen="skip") == pytest.approx(by_users)
    with pytest.warns(UserWarning, match="absent from popularity"):
        assert beyond.novelty([["z"]], train) == pytest.approx(math.log2(6))  # p = 1 / (5 + 1)
    assert beyond.average_popularity([["a", "b"]], train) == 2.5  # counts of interactions
    assert beyond.average_popularity(
        [["a", "b"]], train, count="users", normalize=True
    ) == pytest.approx((3 / 5 + 1 / 5) / 2)
    assert beyond.average_popularity([["a", "b"]], train, normalize=True) == pytest.approx(
        (4 / 6 + 1 / 6) / 2
    )
    # head by items: the top 20 % of the 3 training items rounds down to none, 40 % to {a}
    assert beyond.long_tail_share([["a", "b"]], train, head=0.4, head_by="items") == 0.5
    with pytest.raises(ValueError, match="head"):
        beyond.long_tail_share([["a"]], train, head=1.0)
    with pytest.raises(TypeError, match="n_users applies"):
        beyond.novelty([["a"]], train, n_users=5)


def _ild_loop(lists, feats, distance):
    out = []
    for lst in lists:
        d = []
        for i in range(len(lst)):
            for j in range(i + 1, len(lst)):
                a, b = feats[lst[i]], feats[lst[j]]
                if distance == "jaccard":
                    union = np.sum((a > 0) | (b > 0))
                    d.append(1 - np.sum((a > 0) & (b > 0)) / union if union else 0.0)
                else:
                    na, nb = np.linalg.norm(a), np.linalg.norm(b)
                    d.append(1 - (a @ b) / (na * nb) if na and nb else 1.0)
        out.append(np.mean(d) if d else np.nan)
    return np.array(out)


@pytest.mark.parametrize("distance", ["jaccard", "cosine"])
def test_ild_matches_a_plain_loop(distance):
    rng = np.random.default_rng(7)
    n_items, n_feat = 60, 70  # more than 64 features: two words per item
    x = (rng.random((n_items, n_feat)) < 0.1).astype(float)
    x[5] = 0  # an item without features
    feats = pd.DataFrame(x)
    lists = [list(rng.choice(n_items, rng.integers(0, 9), replace=False)) for _ in range(150)]
    lists[0] = [5, 6]
    got = beyond.intra_list_diversity(lists, feats, distance=distance, per_user=True)
    np.testing.assert_allclose(got, _ild_loop(lists, x, distance), rtol=0, atol=1e-12)


def test_ild_numba_and_numpy_paths_agree():
    from recmetrics._kernels import HAVE_NUMBA, jaccard_pair_sums

    rng = np.random.default_rng(11)
    x = rng.random((300, 20)) < 0.2
    lists = beyond._read_lists(np.array([rng.choice(300, 12, replace=False) for _ in range(500)]))
    space = beyond._Space(pd.DataFrame(x), lists.items, "jaccard", lists)
    codes = lists.padded()
    w = np.where(codes >= 0, 1.0 / np.log2(np.arange(2, 14)), 0.0)
    slow = beyond._pair_sums_numpy(space, codes, w, len(lists.items))
    if HAVE_NUMBA:
        np.testing.assert_allclose(jaccard_pair_sums(codes, w, space.bits, space.size), slow)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from("abcd"), min_size=2, max_size=4, unique=True), st.booleans())
def test_diversity_and_calibration_properties(lst, discount):
    onehot = pd.DataFrame(
        {"Drama": [1, 1, 0, 0], "War": [0, 1, 0, 1], "Comedy": [0, 0, 1, 1]},
        index=list("abcd"),
    )
    for distance in ("jaccard", "cosine"):
        v = beyond.intra_list_diversity([lst], onehot, distance=distance, discount=discount)
        assert -1e-12 <= v <= 1 + 1e-12
        # the same item twice (two ids, same features): distance 0
        twin = onehot.loc[[lst[0]] * 2].set_axis(["x", "y"])
        same = beyond.intra_list_diversity([["x", "y"]], twin, distance=distance)
        assert same == 0.0 if distance == "jaccard" else same < 1e-15  # cosine: round-off
    kl = beyond.calibration([lst], [lst], onehot, discount=discount)
    assert kl == pytest.approx(0.0, abs=1e-12) or discount
    assert beyond.calibration([lst], [["a", "b", "c"]], onehot) >= 0


def test_serendipity_by_hand():
    train = pd.DataFrame({"user": [0, 1, 1, 2], "item": ["a", "a", "b", "c"]})
    # popularity: a 2, b 1, c 1 -> primitive top-2: a, b (b before c by id)
    recs = [["a", "c", "d"], ["c", "d"]]
    truth = [{"a", "c"}, {"d"}]
    per = beyond.serendipity(recs, truth, popularity=train, n_primitive=2, per_user=True)
    np.testing.assert_allclose(per, [1 / 3, 1 / 2])
    # without user 0's own training item a, its primitive list is b, c
    per = beyond.serendipity(
        recs, truth, popularity=train, n_primitive=2, history=train, per_user=True
    )
    np.testing.assert_allclose(per, [1 / 3, 1 / 2])  # a (seen) is unexpected; c expected
    per = beyond.serendipity([["a", "c"]], [{"a", "c"}], popularity=train, n_primitive=2,
                             history=[["a"]], per_user=True)  # fmt: skip
    np.testing.assert_allclose(per, [1 / 2])
    genres = {"a": {"Drama"}, "b": {"Drama", "War"}, "c": {"Comedy"}, "d": {"War"}}
    # history b: cosine distance to a = 1 - 1/sqrt(2), to c = 1, to d = 1 - 1/sqrt(2)
    per = beyond.serendipity(
        [["a", "c", "d"]], [{"a", "d"}], expectedness="history", history=[["b"]],
        features=genres, per_user=True,
    )  # fmt: skip
    np.testing.assert_allclose(per, [2 * (1 - 1 / math.sqrt(2)) / 3])
    jac = beyond.serendipity(
        [["a", "c"]], [{"a", "c"}], expectedness="history", history=[["b", "c"]],
        features=genres, distance="jaccard",
    )  # fmt: skip
    # a: (1/2 + 1) / 2, c: (1 + 0) / 2
    assert jac == pytest.approx(((0.75) + 0.5) / 2)
    with pytest.raises(TypeError, match="needs history"):
        beyond.serendipity([["a"]], [{"a"}], expectedness="history")


def test_calibration_by_hand():
    genres = {"a": {"Drama"}, "b": {"Comedy"}, "c": {"Drama", "Comedy"}, "n": set()}
    # history a, b, b -> p = (1/3, 2/3); list a, c -> q = (3/4, 1/4)
    p, q = np.array([1 / 3, 2 / 3]), np.array([3 / 4, 1 / 4])
    qt = 0.99 * q + 0.01 * p
    assert beyond.calibration([["a", "c"]], [["a", "b"]], genres) == pytest.approx(
        np.sum([0.5, 0.5] * np.log(np.array([0.5, 0.5]) / (0.99 * q + 0.01 * 0.5)))
    )
    hist = pd.DataFrame({"user": [0, 0], "item": ["a", "b"], "w": [1.0, 2.0]})
    assert beyond.calibration([["a", "c", "n"]], hist, genres, history_weight="w") == pytest.approx(
        np.sum(p * np.log(p / qt))
    )
    assert beyond.calibration([["a"]], [["a", "b"]], genres, alpha=0) == np.inf
    assert np.isnan(beyond.calibration([["a"]], [["n"]], genres, per_user=True)[0])
    with pytest.raises(ValueError, match="alpha"):
        beyond.calibration([["a"]], [["a"]], genres, alpha=1.0)
    with pytest.raises(ValueError, match="2 entries for 1"):
        beyond.calibration([["a"]], [["a"], ["b"]], genres)


def test_bad_inputs_raise_clearly():
    with pytest.raises(TypeError, match="top_k"):
        beyond.novelty(np.array([[0.3, 0.2]]), TRAIN)
    with pytest.raises(TypeError, match="ranked list"):
        beyond.coverage([{"a", "b"}], n_items=3)
    with pytest.raises(ValueError, match="no row for item"):
        beyond.intra_list_diversity([["a", "z"]], pd.DataFrame({"f": [1]}, index=["a"]))
    with pytest.raises(ValueError, match="distance"):
        beyond.intra_list_diversity([["a", "b"]], GENRES, distance="euclid")
    with pytest.raises(ValueError, match="twice"):
        beyond.novelty(pd.DataFrame({"user": [1, 1], "item": ["a", "a"], "rank": [1, 2]}), TRAIN)
    with pytest.raises(ValueError, match="'rank' or 'score'"):
        beyond.novelty(pd.DataFrame({"user": [1], "item": ["a"]}), TRAIN)


def test_evaluate_beside_accuracy():
    import recmetrics as rm

    rng = np.random.default_rng(5)
    S = rng.random((40, 25))
    Y = (rng.random((40, 25)) < 0.2).astype(int)
    train = pd.DataFrame({"user": rng.integers(0, 40, 200), "item": rng.integers(0, 25, 200)})
    feats = pd.DataFrame((rng.random((25, 6)) < 0.4).astype(int))
    names = ["ndcg@5", "novelty@5", "ild@5", "coverage@5", "calibration@5", "serendipity@5"]
    kw = dict(popularity=train, features=feats, history=train.drop_duplicates())
    got = rm.evaluate(Y, S, names, **kw)
    lists = beyond.top_k(S, 5)
    assert got["ndcg@5"] == rm.evaluate(Y, S, ["ndcg@5"])["ndcg@5"]
    assert got["novelty@5"] == pytest.approx(beyond.novelty(lists, train))
    assert got["ild@5"] == pytest.approx(beyond.intra_list_diversity(lists, feats))
    assert got["coverage@5"] == beyond.coverage(lists, n_items=25)
    # the same through long data frames
    preds = pd.DataFrame(
        {
            "user": np.repeat(np.arange(40), 25),
            "item": np.tile(np.arange(25), 40),
            "score": S.ravel(),
        }
    )
    truth = pd.DataFrame({"user": np.nonzero(Y)[0], "item": np.nonzero(Y)[1]})
    frames = rm.evaluate(truth, preds, names, n_items=25, **kw)
    pd.testing.assert_series_equal(frames, got, rtol=1e-12)
    per = rm.evaluate(truth, preds, names[:3], n_items=25, per_user=True, **kw)
    assert list(per.columns) == names[:3] and per.index.name == "user"
    with pytest.raises(ValueError, match="no per-user values"):
        rm.evaluate(Y, S, ["coverage@5"], per_user=True)
    with pytest.raises(ValueError, match="list length"):
        rm.evaluate(Y, S, ["novelty"], popularity=train)
    with pytest.raises(TypeError, match="needs features"):
        rm.evaluate(Y, S, ["ild@5"])
    with pytest.raises(TypeError, match="applies only to beyond"):
        rm.evaluate(Y, S, ["ndcg@5"], features=feats)
    with pytest.raises(TypeError, match="recommended lists"):
        rm.evaluate(ranks=[1, 2], n_items=10, metrics=["novelty@5"], popularity=train)
    with pytest.raises(ValueError, match="not a\\s+function of the rank"):
        rm.metric_function("novelty@10", n_items=100)


# --------------------------------------------------------------------------
# presets: one toy example, the libraries' values read from their source (and,
# for RecTools 0.19.0, Recommenders 1.2.1, RecBole 1.2.1 and LensKit 2025.8.1,
# obtained by running them on this example in separate environments: they do
# not install beside this project's pins, except RecBole, which needs torch)
TOY_TRAIN = pd.DataFrame({"user": [1, 2, 3, 3, 4], "item": ["d", "a", "a", "b", "a"]})
TOY_RECS = pd.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "b", "c"], "rank": [1, 2, 1, 2]})
TOY_TEST = pd.DataFrame({"user": [1, 2], "item": ["b", "c"]})
TOY_FEATURES = pd.DataFrame({"f1": [1, 0, 0, 1], "f2": [0, 0, 1, 1]}, index=list("abcd"))


def test_rectools_preset_on_the_toy_example():
    nov = beyond.novelty(TOY_RECS, TOY_TRAIN, convention="rectools", per_user=True)
    np.testing.assert_allclose(nov.loc[[1, 2]], [1.207519, 2.0], atol=1e-6)
    assert beyond.average_popularity(TOY_RECS, TOY_TRAIN, convention="rectools") == 1.25
    assert beyond.intra_list_diversity(TOY_RECS, TOY_FEATURES, convention="rectools") == 1.0
    assert (
        beyond.intra_list_diversity([["a"]], TOY_FEATURES, convention="rectools") == 0.0
    )  # a one-item list counts 0 there
    ser = beyond.serendipity(
        TOY_RECS, TOY_TEST, popularity=TOY_TRAIN, n_items=4, convention="rectools"
    )
    assert ser == pytest.approx(0.1875)
    assert beyond.coverage(TOY_RECS, n_items=4) == 0.75  # CatalogCoverage(normalize=True)
    with pytest.raises(ValueError, match="sets distance='hamming'"):
        beyond.intra_list_diversity(
            TOY_RECS, TOY_FEATURES, convention="rectools", distance="cosine"
        )


def test_recommenders_preset_on_the_toy_example():
    assert beyond.entropy(TOY_RECS, convention="recommenders") == 1.5
    nov = beyond.novelty(TOY_RECS, TOY_TRAIN, convention="recommenders")
    assert nov == pytest.approx(1.345205, abs=1e-6)
    # item_cooccurrence_count: cosine of the items' training user-incidence vectors
    incidence = pd.crosstab(TOY_TRAIN["item"], TOY_TRAIN["user"]).reindex(
        list("abcd"), fill_value=0
    )
    div = beyond.intra_list_diversity(TOY_RECS, incidence, convention="recommenders")
    assert div == pytest.approx(0.711325, abs=1e-6)
    ser = beyond.serendipity(
        TOY_RECS, TOY_TEST, history=TOY_TRAIN, features=incidence, convention="recommenders"
    )
    assert ser == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no gini|has no"):
        beyond.long_tail_share(TOY_RECS, TOY_TRAIN, convention="recommenders")


def test_recbole_lenskit_elliot_presets_on_the_toy_example():
    assert beyond.entropy(TOY_RECS, convention="recbole") == pytest.approx(0.346574, abs=1e-6)
    assert beyond.average_popularity(TOY_RECS, TOY_TRAIN, convention="recbole") == 1.25
    # RecBole's catalogue counts its padding item: 4 items + [PAD]
    assert beyond.coverage(TOY_RECS, n_items=5) == 0.6  # ItemCoverage@2
    assert beyond.gini(TOY_RECS, n_items=5) == pytest.approx(0.5)  # GiniIndex@2
    assert beyond.gini(TOY_RECS, n_items=4) == pytest.approx(0.375)  # LensKit ListGini
    ev = TOY_RECS.assign(item=["a", "b", "b", "d"])  # Elliot knows only training items
    assert beyond.average_popularity(ev, TOY_TRAIN, convention="elliot") == 1.5
    assert beyond.long_tail_share(ev, TOY_TRAIN, convention="elliot") == 0.25
    assert beyond.entropy(ev, convention="elliot") == 1.5
    table = beyond.describe()
    assert set(table.index.get_level_values(0)) == {"rectools", "recommenders", "recbole", "elliot"}
    with pytest.raises(ValueError, match="defines no beyond-accuracy"):
        beyond.novelty(TOY_RECS, TOY_TRAIN, convention="trec_eval")
    with pytest.raises(ValueError, match="convention"):
        beyond.novelty(TOY_RECS, TOY_TRAIN, convention="nope")


def test_evaluate_passes_the_preset_on():
    import recmetrics as rm

    got = rm.evaluate(
        TOY_TEST, TOY_RECS.rename(columns={"rank": "r"}), ["novelty@2", "arp@2"],
        rank="r", popularity=TOY_TRAIN, convention="rectools", users="predictions",
    )  # fmt: skip
    assert got["novelty@2"] == pytest.approx(1.603759, abs=1e-6)
    assert got["arp@2"] == 1.25


# --------------------------------------------------------------------------
# trustworthy where people use it: ids, rank cuts, Hamming, APLT, bad inputs
def _matrix_case(seed=0, n_users=30, n_items=15):
    rng = np.random.default_rng(seed)
    S = rng.random((n_users, n_items))
    Y = (rng.random((n_users, n_items)) < 0.3).astype(int)
    ids = np.arange(n_items) * 7 + 101  # item ids that are not column positions
    train = pd.DataFrame(
        {"user": rng.integers(0, n_users, 150), "item": rng.integers(0, n_items, 150)}
    ).drop_duplicates()
    feats = pd.DataFrame((rng.random((n_items, 5)) < 0.4).astype(int))
    return S, Y, ids, train, feats


def test_items_align_id_keyed_item_data_with_a_score_matrix():
    import recmetrics as rm

    S, Y, ids, train, feats = _matrix_case()
    by_id = train.assign(item=ids[train["item"]])
    feats_by_id = feats.set_axis(ids)
    names = ["novelty@5", "arp@5", "aplt@5", "ild@5", "calibration@5", "serendipity@5"]
    positional = rm.evaluate(Y, S, names, popularity=train, features=feats, history=train)
    keyed = rm.evaluate(
        Y, S, names, popularity=by_id, features=feats_by_id, history=by_id, items=ids
    )
    pd.testing.assert_series_equal(keyed, positional)
    # counts per item (Series, dict) and a sparse history follow the same rule
    counts = by_id["item"].value_counts()
    hist = sp.csr_matrix((np.ones(len(train)), (train["user"], train["item"])), shape=Y.shape)
    got = rm.evaluate(Y, S, ["arp@5", "calibration@5"], popularity=dict(counts),
                      features=feats_by_id, history=hist, items=ids)  # fmt: skip
    assert got["arp@5"] == positional["arp@5"]
    assert got["calibration@5"] == pytest.approx(positional["calibration@5"])
    # without items=, id-keyed data are refused, never matched by position
    for kw in (
        {"popularity": by_id},
        {"popularity": counts},
        {"popularity": by_id.assign(item=by_id["item"].astype(str))},
    ):
        with pytest.raises(ValueError, match="pass items="):
            rm.evaluate(Y, S, ["novelty@5"], **kw)
    with pytest.raises(ValueError, match="not column positions 0 .. 14"):
        rm.evaluate(Y, S, ["ild@5"], features=feats_by_id)
    with pytest.raises(ValueError, match="pass items="):
        rm.evaluate(Y, S, ["calibration@5"], features=feats, history=by_id)
    with pytest.raises(ValueError, match="items has 3 ids for the 15 columns"):
        rm.evaluate(Y, S, ["novelty@5"], popularity=by_id, items=ids[:3])
    with pytest.raises(ValueError, match="repeats the id"):
        rm.evaluate(Y, S, ["novelty@5"], popularity=by_id, items=np.r_[ids[:-1], ids[0]])
    with pytest.raises(TypeError, match="applies only to score matrices"):
        rm.evaluate([[1, 2]], [{1}], ["novelty@2"], popularity=by_id, items=ids)
    with pytest.raises(TypeError, match="applies only to beyond"):
        rm.evaluate(Y, S, ["ndcg@5"], items=ids)


def test_items_for_the_functions_called_with_column_positions():
    S, Y, ids, train, feats = _matrix_case(1)
    by_id = train.assign(item=ids[train["item"]])
    lists = beyond.top_k(S, 5)
    np.testing.assert_array_equal(beyond.top_k(S, 5, items=ids), ids[lists])
    for fn, data, keyed in (
        (beyond.novelty, train, by_id),
        (beyond.average_popularity, train, by_id),
        (beyond.long_tail_share, train, by_id),
        (beyond.intra_list_diversity, feats, feats.set_axis(ids)),
    ):
        expect = fn(lists, data, per_user=True)
        np.testing.assert_array_equal(fn(lists, keyed, items=ids, per_user=True), expect)
        np.testing.assert_array_equal(fn(ids[lists], keyed, per_user=True), expect)
    assert beyond.coverage(lists, n_items=15, items=ids) == beyond.coverage(lists, n_items=15)
    # positions with string-keyed data: never matched, a TypeError naming both
    as_text = by_id.assign(item=by_id["item"].map(lambda i: f"m{i}"))
    with pytest.raises(TypeError, match=r"popularity\['item'\] holds str ids .* int ids"):
        beyond.novelty(lists, as_text)
    with pytest.raises(TypeError, match="pass items="):
        beyond.intra_list_diversity(lists, feats.set_axis([f"m{i}" for i in ids]))
    # positions with int ids that mostly do not match: a warning that names items=
    with pytest.warns(UserWarning, match="pass items="):
        beyond.novelty(lists, by_id)
    with pytest.raises(ValueError, match="column position 20"):
        beyond.novelty([[20]], train, items=ids)
    with pytest.raises(TypeError, match="column positions"):
        beyond.novelty([["a"]], train, items=ids)
    with pytest.raises(ValueError, match="top_k|columns of y_score"):
        beyond.top_k(S, 5, items=ids[:4])


def test_ids_of_different_types_raise_and_safe_ones_align():
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 10], "rank": [1, 2, 1]})
    train = pd.DataFrame({"user": [7, 8, 9], "item": [10, 10, 11]})
    base = beyond.novelty(recs, train, per_user=True)
    with pytest.raises(TypeError, match=r"popularity\['item'\] holds str ids \(.*\) but "
                       r"recommended holds int ids \(int64\)"):  # fmt: skip
        beyond.novelty(recs, train.assign(item=train["item"].astype(str)))
    with pytest.warns(UserWarning, match="matched as integers"):
        got = beyond.novelty(recs, train.assign(item=train["item"].astype(float)), per_user=True)
    pd.testing.assert_series_equal(got, base)
    truth = pd.DataFrame({"user": ["1", "2"], "item": [10, 11]})
    with pytest.raises(TypeError, match=r"truth\['user'\] holds str ids .* recommended\['user'\]"):
        beyond.serendipity(recs, truth, popularity=train, n_primitive=1)
    with pytest.raises(ValueError, match="shares no user"):
        beyond.serendipity(recs, truth.assign(user=[5, 6]), popularity=train, n_primitive=1)
    with pytest.raises(TypeError, match=r"history\['item'\] holds float ids"):
        beyond.calibration(recs, train.assign(item=[10.5, 10, 11], user=[1, 1, 2]), GENRES)


RANKED = pd.DataFrame(
    {
        "user": ["u"] * 3 + ["v"] * 3,
        "item": ["a", "b", "c", "c", "d", "a"],
        "rank": [1, 3, 6, 2, 4, 5],
    }
)


def _as_lists(frame, k):
    """The items with rank <= k, best first, as plain lists (u, then v)."""
    top = frame[frame["rank"] <= k].sort_values(["user", "rank"])
    return [top.loc[top["user"] == u, "item"].tolist() for u in ("u", "v")]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_the_top_k_is_the_rank_at_most_k_for_every_metric(k):
    train = pd.DataFrame({"user": [1, 2, 3, 4, 5, 6], "item": list("aabbcd")})
    feats = pd.DataFrame(
        {"f1": [1, 0, 1, 0], "f2": [0, 1, 1, 0], "f3": [2, 1, 0, 1]}, index=list("abcd")
    )
    genres = feats.clip(upper=1)
    truth_frame = pd.DataFrame({"user": ["u", "v", "v"], "item": ["b", "c", "d"]})
    hist_frame = pd.DataFrame({"user": ["u", "v", "u", "v"], "item": ["a", "b", "c", "d"]})
    truth_lists, hist_lists = [{"b"}, {"c", "d"}], [["a", "c"], ["b", "d"]]
    lists = _as_lists(RANKED, k)

    def each(recs, kk, frame):
        truth, hist = (truth_frame, hist_frame) if frame else (truth_lists, hist_lists)
        kw = {"k": kk, "per_user": True}
        return {
            "novelty": beyond.novelty(recs, train, **kw),
            "arp": beyond.average_popularity(recs, train, **kw),
            "aplt": beyond.long_tail_share(recs, train, head=0.5, **kw),
            "ild": beyond.intra_list_diversity(recs, feats, distance="hamming", **kw),
            "ser_pop": beyond.serendipity(recs, truth, popularity=train, n_primitive=2, **kw),
            "ser_hist": beyond.serendipity(
                recs, truth, expectedness="history", history=hist, features=genres, **kw
            ),
            "cal": beyond.calibration(recs, hist, genres, **kw),
        }

    want = each(lists, None, False)
    got = each(RANKED, k, True)
    for name, values in want.items():
        np.testing.assert_allclose(got[name].loc[["u", "v"]].to_numpy(), values, err_msg=name)
    n = 4
    assert beyond.coverage(RANKED, n_items=n, k=k) == beyond.coverage(lists, n_items=n)
    assert beyond.gini(RANKED, n_items=n, k=k) == pytest.approx(beyond.gini(lists, n_items=n))
    assert beyond.entropy(RANKED, k=k) == pytest.approx(beyond.entropy(lists))
    assert beyond.user_coverage(RANKED, n_users=2, k=k, min_length=2) == beyond.user_coverage(
        lists, n_users=2, min_length=2
    )


def test_rank_gaps_weigh_by_the_rank_value_and_agree_with_precision():
    import recmetrics as rm

    one = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "rank": [1, 3, 6]})
    train = pd.DataFrame({"user": [1, 2, 3, 4], "item": ["a", "b", "b", "c"]})
    # the case: ranks 1, 3, 6 and k = 2 -> only a is in the top 2
    assert beyond.average_popularity(one, train, k=2) == 1.0
    assert beyond.average_popularity(one, train, k=3) == 1.5
    truth = pd.DataFrame({"user": [1], "item": ["b"]})
    got = rm.evaluate(truth, one, ["precision@2", "recall@3", "arp@2", "arp@3"], rank="rank",
                      popularity=train)  # fmt: skip
    assert got.tolist() == [0.0, 1.0, 1.0, 1.5]
    # position discounts use the rank: exposure of a 1, of b 1/log2(4)
    e = np.array([1.0, 1 / np.log2(4)])
    p = e / e.sum()
    assert beyond.entropy(one, k=3, discount="log") == pytest.approx(-(p * np.log2(p)).sum())
    # ILD with rank weights: pairs a-b (ranks 1, 3) and a-c, b-c (c at rank 6), k = 6
    feats = pd.DataFrame({"f": [1, 2, 2]}, index=list("abc"))  # distances 1, 1, 0
    w = {("a", "b"): 1 / np.log2(4), ("a", "c"): 1 / np.log2(7), ("b", "c"): 1 / (2 * np.log2(7))}
    want = (w[("a", "b")] + w[("a", "c")]) / sum(w.values())
    got = beyond.intra_list_diversity(one, feats, discount=True, distance="hamming")
    assert got == pytest.approx(want)
    # RecTools' rank serendipity: p(i) = (n + 1 - rank) / n with the rank value
    ser = beyond.serendipity(
        one, pd.DataFrame({"user": [1], "item": ["c"]}), popularity=train, n_items=6,
        expectedness="rank", per_user=True,
    )  # fmt: skip
    # c: rank 6 -> p = 1/6; popularity ranks: b 1, a and c 2 (dense) -> pu = 5/6; max(0, .) = 0
    assert ser.loc[1] == 0.0


def test_score_frames_rank_by_score_then_item_id():
    frame = pd.DataFrame({"user": [1, 1, 1], "item": ["c", "a", "b"], "score": [0.5, 0.5, 0.9]})
    lists = beyond._read_lists(frame)
    assert list(lists.items[lists.code]) == ["b", "a", "c"]
    assert lists.pos.tolist() == [1, 2, 3]
    train = pd.DataFrame({"user": [1, 2, 3], "item": ["a", "a", "c"]})
    # top 2 = b, a (a before c at equal scores): ARP (0 + 2) / 2
    assert beyond.average_popularity(frame, train, k=2) == 1.0
    with pytest.raises(ValueError, match="integer ranks >= 1"):
        beyond.coverage(frame.assign(rank=[0, 1, 2]).drop(columns="score"), n_items=3)
    with pytest.raises(ValueError, match="integer ranks >= 1"):
        beyond.coverage(frame.assign(rank=[1.5, 2, 3]).drop(columns="score"), n_items=3)
    with pytest.raises(ValueError, match="two items the rank 2"):
        beyond.coverage(frame.assign(rank=[2, 2, 3]).drop(columns="score"), n_items=3)


# predictions holding a score and a rank that order the items differently
BOTH = pd.DataFrame(
    {
        "user": [1, 1, 1, 1, 2, 2, 2],
        "item": ["a", "b", "c", "d", "b", "c", "e"],
        "score": [0.9, 0.7, 0.5, 0.1, 0.2, 0.8, 0.6],  # 1: a b c d, 2: c e b
        "rank": [4, 3, 1, 2, 1, 3, 2],  # 1: c d b a, 2: b e c
    }
)
BOTH_TRUTH = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "d", "c"]})
BOTH_TRAIN = pd.DataFrame(
    {"user": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "item": list("aaaabbbcde")}
)  # counts a 4, b 3, c 1, d 1, e 1


def _top(frame, k, by):
    """Each user's top ``k`` items (users 1, 2), ordered by ``by`` as from_frames orders them."""
    order = frame.sort_values(["user", by], ascending=[True, by == "rank"])
    return [order.loc[order["user"] == u, "item"].tolist()[:k] for u in (1, 2)]


def _from_lists(lists, k):
    """precision@k, arp@k and novelty@k per user, computed from the given top-k lists."""
    relevant = [set(BOTH_TRUTH.loc[BOTH_TRUTH["user"] == u, "item"]) for u in (1, 2)]
    return pd.DataFrame(
        {
            f"precision@{k}": [
                len(set(lst) & rel) / k for lst, rel in zip(lists, relevant, strict=True)
            ],
            f"arp@{k}": beyond.average_popularity(lists, BOTH_TRAIN, per_user=True),
            f"novelty@{k}": beyond.novelty(lists, BOTH_TRAIN, per_user=True),
        },
        index=pd.Index([1, 2], name="user"),
    )


@pytest.mark.parametrize("k", [1, 2, 3])
def test_score_and_rank_columns_give_every_metric_of_evaluate_the_same_lists(k):
    # issue 25: with both columns, precision followed the score and ARP the
    # rank in one call; the lists now follow from_frames' rule: the score
    # unless rank= names the column of ranks (score= names the score column)
    import recmetrics as rm

    names = [f"precision@{k}", f"arp@{k}", f"novelty@{k}"]
    kw = {"popularity": BOTH_TRAIN, "per_user": True}
    by_score, by_rank = (
        _from_lists(_top(BOTH, k, "score"), k),
        _from_lists(_top(BOTH, k, "rank"), k),
    )
    assert not by_score.equals(by_rank)  # the two orders disagree at every k here
    pd.testing.assert_frame_equal(rm.evaluate(BOTH_TRUTH, BOTH, names, **kw), by_score)
    pd.testing.assert_frame_equal(
        rm.evaluate(BOTH_TRUTH, BOTH, names, score="score", **kw), by_score
    )
    pd.testing.assert_frame_equal(rm.evaluate(BOTH_TRUTH, BOTH, names, rank="rank", **kw), by_rank)
    # the functions of recmetrics.beyond read such a frame by its score too
    np.testing.assert_array_equal(
        beyond.average_popularity(BOTH, BOTH_TRAIN, k=k, per_user=True), by_score[f"arp@{k}"]
    )
    # a frame of ranks only is still read by its ranks
    np.testing.assert_array_equal(
        beyond.average_popularity(BOTH.drop(columns="score"), BOTH_TRAIN, k=k, per_user=True),
        by_rank[f"arp@{k}"],
    )


def test_hamming_counts_the_features_whose_values_differ():
    feats = pd.DataFrame(
        {"seasons": [1, 2, 2, 5], "kids": [0, 0, 1, 1], "rating": [1.5, 1.5, 3.0, 3.0]},
        index=list("abcd"),
    )
    x = feats.to_numpy()

    def by_hand(lst):
        idx = [list("abcd").index(i) for i in lst]
        d = [np.sum(x[i] != x[j]) for n, i in enumerate(idx) for j in idx[n + 1 :]]
        return np.mean(d)

    lists = [["a", "b"], ["a", "b", "c", "d"], ["c", "d", "b"]]
    got = beyond.intra_list_diversity(lists, feats, distance="hamming", per_user=True)
    np.testing.assert_allclose(got, [by_hand(lst) for lst in lists])
    assert got[0] == 1.0  # 1 and 2 differ: distance 1 (RecTools), not 0 as binarised features
    # a dict of sets: the number of features in one set only
    assert beyond.intra_list_diversity([["b", "c"]], GENRES, distance="hamming") == 3.0
    # the preset (RecTools) and rank weights go through the same distance
    assert beyond.intra_list_diversity([["a", "b"]], feats, convention="rectools") == 1.0


def _elliot_aplt(train, lists, pop_ratio=0.8):
    """APLT as Elliot 0.3.1 computes it (popularity.py and aplt.py), on one run's item order."""
    pairs = train.drop_duplicates(["user", "item"])
    pop = pairs["item"].value_counts(sort=False)
    pop = pop.loc[sorted(pop.index)]  # Elliot's order is its set's; here by id
    ordered = sorted(pop.items(), key=lambda kv: kv[1], reverse=True)  # stable
    limit, head = len(pairs) * pop_ratio, []
    for i, p in ordered:
        head.append(i)
        limit -= p
        if limit <= 0:
            break
    tail = [i for i, _ in ordered if i not in head]
    return np.mean([len(set(lst) & set(tail)) / len(lst) for lst in lists])


def test_aplt_head_as_the_paper_and_elliot_define_it():
    rng = np.random.default_rng(4)
    items = np.array([f"i{j:02d}" for j in range(40)])
    draw = rng.zipf(1.6, 600) % 40
    train = pd.DataFrame({"user": rng.integers(0, 80, 600), "item": items[draw]})
    known = np.unique(train["item"])  # Elliot's lists hold training items only
    lists = [list(rng.choice(known, 6, replace=False)) for _ in range(50)]
    # Elliot counts distinct users per item and distinct (user, item) pairs
    elliot = beyond.long_tail_share(lists, train, convention="elliot")
    assert elliot == pytest.approx(_elliot_aplt(train, lists))
    dedup = train.drop_duplicates(["user", "item"])
    assert beyond.long_tail_share(lists, dedup) == pytest.approx(elliot)  # default: head 0.8
    # the paper's Figure 1 line: the top 20 % of the items by popularity
    counts = train["item"].value_counts()
    ranked = counts.loc[beyond._by_popularity(counts)]
    head = set(ranked.index[: int(0.2 * len(ranked))])
    want = np.mean([np.mean([i not in head for i in lst]) for lst in lists])
    got = beyond.long_tail_share(lists, train, head=0.2, head_by="items")
    assert got == pytest.approx(want)
    # by hand: counts a 3, b 1, c 1 -> 80 % of 5 rows = 4 -> head {a, b} (b before c by id)
    assert beyond.long_tail_share([["b"], ["c"]], TRAIN, per_user=True).tolist() == [0.0, 1.0]
    counts = pd.Series({"a": 3, "b": 1, "c": 1})  # counts are used as given
    assert beyond.long_tail_share([["c"]], counts, count="users") == 1.0
    with pytest.raises(TypeError, match="head must be"):
        beyond.long_tail_share([["a"]], TRAIN, head="0.8")


BAD_FRAME_RECS = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rank": [1, 2]})


@pytest.mark.parametrize(
    "call",
    [
        lambda: beyond.coverage("ab", n_items=3),
        lambda: beyond.coverage({"a", "b"}, n_items=3),
        lambda: beyond.coverage([["a"]], n_items=2.5),
        lambda: beyond.user_coverage([["a"]], n_users="2"),
        lambda: beyond.gini([["a"]], n_items=None),
        lambda: beyond.entropy([["a"]], base="e"),
        lambda: beyond.novelty([["a"]], [("a", 1)]),
        lambda: beyond.novelty([["a"]], TRAIN, per_user="yes"),
        lambda: beyond.average_popularity(np.array([[0.5, 0.1]]), TRAIN),
        lambda: beyond.long_tail_share([["a"]], TRAIN, head=True),
        lambda: beyond.intra_list_diversity([["a", "b"]], [1, 2]),
        lambda: beyond.intra_list_diversity(
            [["a", "b"]], pd.DataFrame({"f": ["x", "y"]}, index=["a", "b"])
        ),
        lambda: beyond.serendipity([["a"]], "a", popularity=TRAIN),
        lambda: beyond.calibration([["a"]], [["a"]], GENRES, discount=1),
        lambda: beyond.top_k("scores", 2),
        lambda: beyond.describe(3),
        lambda: beyond.novelty(BAD_FRAME_RECS, TRAIN, items="ab"),
        lambda: beyond.calibration([["a"]], [["a"]], GENRES, history_weight="w"),
        lambda: beyond.coverage(sp.csr_matrix((2, 2)), n_items=3),
        lambda: beyond.top_k([[0.1, 0.2]], 1, mask="ab"),
        lambda: beyond.top_k([[0.1, 0.2]], 1, mask=[["x", "y"]]),
        lambda: beyond.novelty([[0]], TRAIN, items=[[1, 2], [3]]),
    ],
)
def test_bad_types_raise_type_errors(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: beyond.coverage([], n_items=3), "empty"),
        (lambda: beyond.novelty([[]], TRAIN), "no item"),
        (lambda: beyond.gini([[], []], n_items=3), "no item"),
        (lambda: beyond.novelty(BAD_FRAME_RECS.iloc[:0], TRAIN), "empty"),
        (lambda: beyond.novelty([["a"]], TRAIN.iloc[:0]), "popularity is empty"),
        (lambda: beyond.novelty([["a"]], pd.Series(dtype=float), n_users=3), "empty"),
        (lambda: beyond.novelty(np.empty((0, 2), dtype=int), TRAIN), "empty"),
        (
            lambda: beyond.serendipity(BAD_FRAME_RECS, BAD_FRAME_RECS.iloc[:0], popularity=TRAIN),
            "truth is empty",
        ),
        (lambda: beyond.novelty([["a", None]], TRAIN), "missing item id"),
        (lambda: beyond.novelty([["a", np.nan]], TRAIN), "missing item id"),
        (lambda: beyond.novelty(BAD_FRAME_RECS.assign(rank=[1, np.nan]), TRAIN), "NaN"),
        (lambda: beyond.novelty(BAD_FRAME_RECS.assign(rank=[1, np.inf]), TRAIN), "infinite"),
        (lambda: beyond.novelty([["a"]], pd.Series({"a": np.nan}), n_users=3), "NaN"),
        (lambda: beyond.novelty([["a"]], TRAIN.assign(item=["a", None, "a", "b", "c"])), "missing"),
        (
            lambda: beyond.intra_list_diversity(
                [["a", "b"]], pd.DataFrame({"f": [1.0, np.inf]}, index=["a", "b"])
            ),
            "infinite",
        ),
        (
            lambda: beyond.intra_list_diversity(
                [["a", "b"]], pd.DataFrame({"f": [1.0, 2.0, 3.0]}, index=["a", "b", "a"])
            ),
            "two rows for the item 'a'",
        ),
        (
            lambda: beyond.novelty([["a"]], pd.Series([1, 2], index=["a", "a"]), n_users=3),
            "two counts",
        ),
        (lambda: beyond.novelty(pd.concat([BAD_FRAME_RECS, BAD_FRAME_RECS]), TRAIN), "twice"),
        (lambda: beyond.novelty([["a", "a"]], TRAIN), "twice"),
        (
            lambda: beyond.calibration(
                BAD_FRAME_RECS,
                pd.DataFrame({"user": [1], "item": ["a"], "w": [np.nan]}),
                GENRES,
                history_weight="w",
            ),
            "NaN",
        ),
        (lambda: beyond.serendipity([["a"]], [{"a"}, {"b"}], popularity=TRAIN), "2 entries"),
        (lambda: beyond.top_k([[0.1, 0.2]], 1, mask=[[np.nan, 0]]), "mask contains NaN"),
        (lambda: beyond.top_k([[0.1, 0.2]], 1, mask=[[0, 0, 0]]), "mask has shape"),
        (
            lambda: beyond.intra_list_diversity(
                [["a", "b"]],
                pd.DataFrame([[0, -1], [-1, 0]], index=["a", "b"], columns=["a", "b"]),
                distance="precomputed",
            ),
            "non-negative",
        ),
    ],
)
def test_bad_values_raise_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_evaluate_with_rank_frames_reads_rank_gaps_once():
    import recmetrics as rm

    truth = pd.DataFrame({"user": ["u", "v"], "item": ["b", "d"]})
    train = pd.DataFrame({"user": [1, 2, 3, 4, 5, 6], "item": list("aabbcd")})
    got = rm.evaluate(truth, RANKED, ["hr@3", "novelty@3", "coverage@3", "arp@4"],
                      rank="rank", popularity=train, n_items=4)  # fmt: skip
    lists3, lists4 = _as_lists(RANKED, 3), _as_lists(RANKED, 4)
    assert got["hr@3"] == 0.5  # u: b at rank 3; v: d at rank 4
    assert got["novelty@3"] == pytest.approx(beyond.novelty(lists3, train))
    assert got["coverage@3"] == beyond.coverage(lists3, n_items=4)
    assert got["arp@4"] == pytest.approx(beyond.average_popularity(lists4, train))
