"""Long data frames (truth, predictions) agree with the matrix and list forms and with trec_eval."""

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
import scipy.sparse as sp

import recmetrics as rm

METRICS = ["ndcg@5", "ndcg", "map@5", "map", "precision@5", "recall@5", "mrr", "hr@3", "auc"]


def random_case(seed, n_users=12, n_items=15, ties=True, graded=False):
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n_users, n_items)) < 0.3) * (
        rng.integers(1, 4, (n_users, n_items)) if graded else 1
    )
    y_score = rng.integers(0, 5, (n_users, n_items)) / 4 if ties else rng.random((n_users, n_items))
    return y_true, y_score


def to_frames(y_true, y_score, users=None, items=None):
    n_users, n_items = y_true.shape
    users = [f"user{u:02d}" for u in range(n_users)] if users is None else users
    items = [f"i{j:02d}" for j in range(n_items)] if items is None else items
    u, i = np.nonzero(y_true > 0)
    truth = pd.DataFrame(
        {
            "user": np.asarray(users, dtype=object)[u],
            "item": np.asarray(items, dtype=object)[i],
            "relevance": y_true[u, i],
        }
    )
    uu, ii = np.indices(y_score.shape)
    predictions = pd.DataFrame(
        {
            "user": np.asarray(users, dtype=object)[uu.ravel()],
            "item": np.asarray(items, dtype=object)[ii.ravel()],
            "score": y_score.ravel(),
        }
    )
    return truth, predictions


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic"])
@pytest.mark.parametrize("graded", [False, True])
def test_frames_equal_the_matrix_form(ties, graded):
    y_true, y_score = random_case(1 + graded, graded=graded)
    y_true[3] = 0  # a user without relevant items
    truth, predictions = to_frames(y_true, y_score)
    shuffled = predictions.sample(frac=1.0, random_state=0)  # row order must not matter
    ours = rm.evaluate(
        truth,
        shuffled,
        METRICS,
        relevance="relevance",
        users="predictions",
        ties=ties,
        no_relevant="zero",
        per_user=True,
    )
    matrix = rm.evaluate(y_true, y_score, METRICS, ties=ties, no_relevant="zero", per_user=True)
    assert list(ours.index) == [f"user{u:02d}" for u in range(len(y_true))]
    np.testing.assert_allclose(ours.to_numpy(), matrix.to_numpy(), rtol=0, atol=1e-12)
    # the single-metric functions take the frames too (default column names)
    plain = truth.drop(columns="relevance")
    per = rm.ndcg(plain, shuffled, k=5, ties=ties, per_user=True)
    assert isinstance(per, pd.Series) and per.index.tolist() == sorted(set(plain["user"]))
    binary = (y_true > 0).astype(int)
    expected = rm.ndcg(binary, y_score, k=5, ties=ties, per_user=True)
    np.testing.assert_allclose(per.to_numpy(), expected[binary.sum(axis=1) > 0], atol=1e-12)


def test_ranks_equal_the_list_form():
    recs = [["a", "b", "c", "d"], ["c", "a"], ["x"]]
    rel = [{"a": 1, "d": 2}, {"z": 1}, {"x": 3}]
    predictions = pd.DataFrame(
        [(u, item, pos + 1) for u, lst in enumerate(recs) for pos, item in enumerate(lst)],
        columns=["user", "item", "rank"],
    )
    truth = pd.DataFrame(
        [(u, item, g) for u, d in enumerate(rel) for item, g in d.items()],
        columns=["user", "item", "grade"],
    )
    names = ["ndcg@3", "map", "precision@2", "recall@2", "mrr"]
    ours = rm.evaluate(
        truth, predictions.iloc[::-1], names, rank="rank", relevance="grade", per_user=True
    )
    lists = rm.evaluate(recs, rel, names, per_user=True)
    np.testing.assert_allclose(ours.to_numpy(), lists.to_numpy(), atol=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_frames_with_trec_eval_preset_match_pytrec_eval(ties):
    """pytrec_eval on the same frames, ids as strings: ties by id, decreasing."""
    y_true, y_score = random_case(7, ties=ties, graded=True)
    # item ids whose string order differs from the column order
    items = [str(j) for j in range(y_true.shape[1])]
    truth, predictions = to_frames(y_true, y_score, items=items)
    qrels = {u: {} for u in sorted(set(predictions["user"]))}
    for row in truth.itertuples():
        qrels[row.user][row.item] = int(row.relevance)
    run = {u: {} for u in qrels}
    for row in predictions.itertuples():
        run[row.user][row.item] = float(row.score)
    measures = {
        "ndcg_cut_5": "ndcg@5",
        "map": "map",
        "P_5": "precision@5",
        "recip_rank": "mrr",
        "map_cut_5": "map@5",
        "recall_10": "recall@10",
    }
    res = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    ours = rm.evaluate(
        truth,
        predictions,
        list(measures.values()),
        relevance="relevance",
        convention="trec_eval",
        per_user=True,
    )
    for m, name in measures.items():
        theirs = [res[u][m] for u in ours.index]
        np.testing.assert_allclose(ours[name].to_numpy(), theirs, rtol=0, atol=1e-12, err_msg=m)


def test_user_policies():
    truth = pd.DataFrame({"user": ["a", "b"], "item": [1, 2]})
    predictions = pd.DataFrame({"user": ["a", "c"], "item": [1, 1], "score": [1.0, 1.0]})

    def run(policy):
        return rm.evaluate(
            truth, predictions, ["precision@1"], users=policy, no_relevant="zero", per_user=True
        )["precision@1"]

    assert run("truth").to_dict() == {"a": 1.0, "b": 0.0}  # b got no list: 0
    assert run("predictions").to_dict() == {"a": 1.0, "c": 0.0}  # c has no relevant item
    assert run("both").to_dict() == {"a": 1.0}
    assert run("all").to_dict() == {"a": 1.0, "b": 0.0, "c": 0.0}
    skip = rm.evaluate(truth, predictions, ["precision@1"], users="all", per_user=True)
    assert np.isnan(skip.loc["c", "precision@1"]) and skip.loc["b", "precision@1"] == 0.0


def test_ids_of_any_type_are_never_merged():
    truth = pd.DataFrame({"user": [1, "1"], "item": ["x", "x"]})
    predictions = pd.DataFrame({"user": [1, "1"], "item": ["x", "y"], "score": [1.0, 2.0]})
    per = rm.mrr(truth, predictions, per_user=True)
    assert len(per) == 2 and sorted(per.tolist()) == [0.0, 1.0]  # "1" got only "y"


def test_auc_catalogue_of_frames():
    truth = pd.DataFrame({"user": ["u", "u"], "item": ["a", "z"]})
    predictions = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    # catalogue: a, b, c and the unpredicted relevant z, tied below the list
    # pairs: a>b, a>c (2); z vs b, c: below (0); AUC = 2 / 4
    assert rm.auc(truth, predictions) == 0.5
    assert rm.evaluate(truth, predictions, ["auc"], n_items=10)["auc"] == pytest.approx(
        rm.auc(["a", "b", "c"], {"a", "z"}, n_items=10)
    )


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (
            lambda t, p: rm.ndcg(t.assign(item=t["item"].where(t.index > 0)), p),
            ValueError,
            "missing value in column 'item'",
        ),
        (lambda t, p: rm.ndcg(pd.concat([t, t.iloc[:1]]), p), ValueError, "twice"),
        (lambda t, p: rm.ndcg(t, pd.concat([p, p.iloc[:1]])), ValueError, "twice"),
        (lambda t, p: rm.ndcg(t, p.drop(columns="score")), ValueError, "no column 'score'"),
        (lambda t, p: rm.ndcg(t, p.assign(score="high")), TypeError, "must hold numbers"),
        (lambda t, p: rm.ndcg(t, p.assign(score=np.inf)), ValueError, "non-finite"),
        (lambda t, p: rm.ndcg(t, p.to_numpy()), TypeError, "must be a pandas DataFrame"),
        (lambda t, p: rm.ndcg(t, p, mask=[[True]]), TypeError, "mask does not apply"),
        (
            lambda t, p: rm.evaluate(t, p, ["ndcg"], users="some"),
            ValueError,
            "users must be one of",
        ),
        (
            lambda t, p: rm.evaluate(t, p, ["ndcg"], score="score", rank="score"),
            TypeError,
            "either score= or rank=",
        ),
        (
            lambda t, p: rm.evaluate(t, p.assign(rank=1), ["ndcg"], rank="rank"),
            ValueError,
            "ranks must be distinct",
        ),
        (
            lambda t, p: rm.evaluate(t, p.assign(rank=0.5), ["ndcg"], rank="rank"),
            ValueError,
            "integer ranks >= 1",
        ),
        (
            lambda t, p: rm.evaluate([[1, 0]], [[0.2, 0.1]], ["ndcg"], user="uid"),
            TypeError,
            "applies only to long data frames",
        ),
        (
            lambda t, p: rm.evaluate(t, p, ["ndcg"], relevance="grade"),
            ValueError,
            "no column 'grade'",
        ),
    ],
)
def test_bad_frames_raise_clearly(call, exc, pattern):
    truth, predictions = to_frames(*random_case(3))
    with pytest.raises(exc, match=pattern):
        call(truth.drop(columns="relevance"), predictions)


def test_graded_relevance_and_zero_grades():
    truth = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "g": [3, 0, 1]})
    predictions = pd.DataFrame({"user": "u", "item": ["b", "c", "a"], "score": [3.0, 2.0, 1.0]})
    got = rm.evaluate(truth, predictions, ["ndcg"], relevance="g")["ndcg"]
    assert got == pytest.approx(rm.ndcg([0, 1, 3]))


def test_custom_column_names_through_from_frames():
    truth = pd.DataFrame({"uid": [1, 1], "iid": [10, 30]})
    predictions = pd.DataFrame({"uid": [1, 1, 1], "iid": [10, 20, 30], "p": [0.9, 0.8, 0.1]})
    r = rm.from_frames(truth, predictions, user="uid", item="iid", score="p")
    assert rm.average_precision(r) == pytest.approx((1 + 2 / 3) / 2)
    assert rm.evaluate(truth, predictions, ["map"], user="uid", item="iid", score="p")[
        "map"
    ] == rm.average_precision(r)


def test_many_users_are_converted_without_a_user_loop():
    rng = np.random.default_rng(0)
    n_users, per_user = 20_000, 10
    users = np.repeat(np.arange(n_users), per_user)
    items = np.tile(np.arange(per_user), n_users)
    predictions = pd.DataFrame({"user": users, "item": items, "score": rng.random(users.size)})
    truth = predictions.sample(n=n_users, random_state=1)[["user", "item"]]
    per = rm.evaluate(truth, predictions, ["mrr"], users="predictions", per_user=True)
    assert len(per) == n_users
    score = predictions.pivot(index="user", columns="item", values="score").to_numpy()
    rel = np.zeros_like(score)
    rel[truth["user"], truth["item"]] = 1
    np.testing.assert_allclose(per["mrr"].to_numpy(), rm.mrr(rel, score, per_user=True))


def test_frames_check_ties_and_flags():
    """A tie policy or flag that does not exist raises, as for score matrices."""
    t = pd.DataFrame({"user": ["u", "u"], "item": ["i", "j"]})
    p = pd.DataFrame({"user": ["u", "u"], "item": ["i", "j"], "score": [1.0, 1.0]})
    with pytest.raises(ValueError, match="ties must be one of"):
        rm.evaluate(t, p, ["ndcg@10"], ties="random")
    with pytest.raises(TypeError, match="retrieve_nonpositive"):
        rm.from_frames(t, p, retrieve_nonpositive="no")


@pytest.mark.parametrize("with_text", [False, True])
def test_by_user_score_equals_lexsort(with_text):
    """The combined-key sort of the predictions is lexsort's order, ties and all."""
    from recmetrics.inputs.frames import _by_user_score

    rng = np.random.default_rng(3)
    n = 5000
    pu = rng.integers(0, 300, n)
    values = np.round(rng.normal(size=n), 1)  # many ties, negative and zero scores
    values[:10] = -0.0
    skey = rng.permutation(n) if with_text else None
    want = np.lexsort((-values, pu) if skey is None else (skey, -values, pu))
    got = _by_user_score(pu, values, skey, 300, n if with_text else 1)
    np.testing.assert_array_equal(got, want)
    # the fallback when the combined key would overflow int64
    got = _by_user_score(pu, values, skey, 2**61, n if with_text else 1)
    np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------
# natural mistakes with ids, empty predictions, boolean relevance
def _pair():
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12]})
    preds = pd.DataFrame({"user": [1, 1, 2, 2], "item": [10, 13, 12, 11], "score": [4, 3, 2, 1]})
    return truth, preds


@pytest.mark.parametrize("col", ["user", "item"])
def test_ids_of_different_kinds_raise_naming_both_columns(col):
    truth, preds = _pair()
    with pytest.raises(TypeError, match=rf"truth column '{col}' holds number ids.*predictions"):
        rm.evaluate(truth, preds.assign(**{col: preds[col].astype(str)}), ["ndcg@10"])
    with pytest.raises(TypeError, match=rf"truth column '{col}' holds text ids"):
        rm.evaluate(truth.assign(**{col: truth[col].astype(str)}), preds, ["ndcg@10"])


def test_integer_and_float_ids_are_aligned_with_a_warning():
    truth, preds = _pair()
    want = rm.evaluate(truth, preds, ["ndcg@10", "map@10"])
    with pytest.warns(UserWarning, match="matched by value"):
        got = rm.evaluate(
            truth, preds.assign(item=preds["item"].astype(float)), ["ndcg@10", "map@10"]
        )
    pd.testing.assert_series_equal(got, want)


def test_predictions_without_rows_score_zero_for_every_user():
    truth, preds = _pair()
    for empty in (preds.iloc[:0], preds.iloc[:0].rename(columns={"score": "rank"})):
        kw = {"rank": "rank"} if "rank" in empty else {}
        got = rm.evaluate(truth, empty, ["ndcg@10", "precision@5", "mrr"], per_user=True, **kw)
        assert got.index.tolist() == [1, 2]
        assert (got.to_numpy() == 0).all()


def test_boolean_relevance_is_read_as_zero_one():
    truth, preds = _pair()
    graded = truth.assign(rel=[1, 0, 1])
    flags = truth.assign(rel=[True, False, True])
    want = rm.evaluate(graded, preds, ["ndcg@10", "recall@2"], relevance="rel")
    got = rm.evaluate(flags, preds, ["ndcg@10", "recall@2"], relevance="rel")
    pd.testing.assert_series_equal(got, want)
    y_true = np.array([[True, False, True], [False, False, True]])
    y_score = np.array([[0.3, 0.2, 0.9], [0.5, 0.1, 0.4]])
    want = rm.evaluate(y_true.astype(int), y_score, ["ndcg@2", "auc", "map"])
    for form in (y_true, sp.csr_matrix(y_true), y_true.tolist()):
        pd.testing.assert_series_equal(rm.evaluate(form, y_score, ["ndcg@2", "auc", "map"]), want)
    assert rm.ndcg(y_true[0], y_score[0]) == rm.ndcg(y_true[0].astype(int), y_score[0])
    assert rm.ndcg([True, False, True]) == rm.ndcg([1, 0, 1])


def test_predictions_of_other_users_only_warn():
    truth, preds = _pair()
    with pytest.warns(UserWarning, match="none of the 4 prediction rows"):
        got = rm.evaluate(truth, preds.assign(user=preds["user"] + 100), ["ndcg@10"], per_user=True)
    assert (got["ndcg@10"] == 0).all()


def test_score_dtype_ties_scores_equal_in_single_precision():
    """trec_eval compares scores as floats: frames under its preset must too."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    truth = pd.DataFrame({"user": ["q"], "item": ["d1"]})
    scores = {"d1": 1.0000000001, "d2": 1.0000000002, "d3": 1.0}  # one float32 value
    run = pd.DataFrame({"user": "q", "item": list(scores), "score": list(scores.values())})
    got = rm.evaluate(truth, run, ["mrr"], convention="trec_eval")["mrr"]
    want = pytrec_eval.RelevanceEvaluator({"q": {"d1": 1}}, {"recip_rank"}).evaluate({"q": scores})[
        "q"
    ]["recip_rank"]
    assert got == want == 1 / 3  # tied at 1.0: d3, d2, d1 in trec_eval's order
    # in double precision d2 and d1 are apart: d1 second
    assert rm.from_frames(truth, run, ties="trec_eval").ranks().tolist() == [2.0]
    r = rm.from_frames(truth, run, ties="trec_eval", score_dtype="float32")
    assert r.ranks().tolist() == [3.0]
    with pytest.raises(ValueError, match="score_dtype"):
        rm.from_frames(truth, run, score_dtype="float16")
    big = run.assign(score=[1e39, 1.0, 0.5])
    with pytest.raises(ValueError, match="float32 range"):
        rm.from_frames(truth, big, score_dtype="float32")
