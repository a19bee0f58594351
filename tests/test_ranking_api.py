"""The calling forms of the ranking metrics, their agreement, and bad input."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import recmetrics as rm
from recmetrics.metrics import _registry

# Every ranking metric of the registry (a metric added there is covered), and
# the public ranking functions that are no registry entry: f_score (F-beta;
# the registry has F1, at beta=1), idcg (the normaliser of NDCG, not a score),
# break_even_point (R-precision read off the P-R curve, in the chapter on
# curves).
REGISTRY_METRICS = [_registry.get(name).function for name in _registry.ranking_names()]
NOT_REGISTERED = [rm.f_score, rm.idcg, rm.break_even_point]
# the metrics that need the catalogue size with ranked lists (spec.needs)
NEEDS_CATALOGUE = {
    _registry.get(name).function
    for name in _registry.ranking_names()
    if "n_items" in _registry.get(name).needs
}
# the metrics with a cutoff k (for the depth of a Ranking)
RANKED_METRICS = [fn for fn in REGISTRY_METRICS if "k" in inspect.signature(fn).parameters]


# ------------------------------------------------------------- calling forms
def test_required_calling_forms():
    assert rm.ndcg([3, 2, 3, 0, 1, 2]) == pytest.approx(6.861 / 7.141, abs=1e-3)
    assert rm.dcg([3, 2, 3, 0, 1, 2]) == pytest.approx(6.8611, abs=1e-4)
    assert rm.average_precision(["a", "b", "x", "c"], {"a", "b", "c"}) == pytest.approx(
        (1 + 1 + 3 / 4) / 3
    )
    assert rm.reciprocal_rank(["x", "a", "b"], {"a", "b"}) == 0.5
    y_true = np.array([[1, 0, 0, 1, 0], [0, 2, 0, 0, 1]])
    y_score = np.array([[0.9, 0.8, 0.1, 0.4, 0.3], [0.3, 0.2, 0.9, 0.1, 0.5]])
    res = rm.evaluate(
        y_true, y_score, ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10", "auc"]
    )
    assert list(res.index) == ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10", "auc"]
    per = rm.evaluate(y_true, y_score, ["ndcg@10", "auc"], per_user=True)
    assert per.shape == (2, 2)
    assert res["auc"] == pytest.approx(per["auc"].mean())


@pytest.mark.parametrize("fn", REGISTRY_METRICS + NOT_REGISTERED, ids=lambda f: f.__name__)
def test_forms_agree(fn):
    """Gains list == (list, set) == (list, dict) == score matrix == ranks."""
    kw = {"k": 3} if "k" in inspect.signature(fn).parameters else {}
    # AUC (and every metric whose spec needs it) needs the catalogue size with
    # ranked lists (here, the five listed items)
    lists_kw = dict(kw, n_items=5) if fn in NEEDS_CATALOGUE else kw
    gains = [1, 0, 1, 1, 0]
    recommended = ["a", "b", "c", "d", "e"]
    relevant = {"a", "c", "d"}
    v1 = fn(gains, **kw)
    v2 = fn(recommended, relevant, **lists_kw)
    v3 = fn(recommended, {"a": 1, "c": 1, "d": 1, "b": 0}, **lists_kw)
    v4 = fn(np.array([gains]), np.array([[5.0, 4, 3, 2, 1]]), **kw)
    v5 = fn(ranks=[np.array([1, 3, 4])], n_items=5, **kw)
    v6 = fn(sp.csr_array(np.array([gains], dtype=float)), np.array([[5.0, 4, 3, 2, 1]]), **kw)
    for v in (v2, v3, v4, v5, v6):
        assert v == pytest.approx(v1, abs=1e-12)


def test_batch_lists_and_per_user():
    recs = [["a", "b", "c"], ["c", "b", "a"]]
    rels = [{"a"}, {"a"}]
    per = rm.reciprocal_rank(recs, rels, per_user=True)
    np.testing.assert_allclose(per, [1.0, 1 / 3])
    assert rm.reciprocal_rank(recs, rels) == pytest.approx((1 + 1 / 3) / 2)
    # one list of ids with a set of relevant ids
    assert rm.average_precision([3, 4, 2, 1, 5], {1, 3, 5}) == pytest.approx(
        (1 + 2 / 4 + 3 / 5) / 3
    )
    # two sequences are always (y_true, y_score): relevant ids must be a set
    assert rm.average_precision([[3, 4, 2, 1, 5]], [{1, 3, 5}]) == pytest.approx(
        (1 + 2 / 4 + 3 / 5) / 3
    )
    with pytest.raises(ValueError, match="pass each user's relevant items as a set"):
        rm.average_precision([[3, 4, 2, 1, 5]], [[1, 3, 5]])
    with pytest.raises(ValueError, match="same shape"):
        rm.average_precision([3, 4, 2, 1, 5], [1, 3, 5])


def test_unretrieved_relevant_items_count_in_recall_and_ap():
    assert rm.recall(["a", "b"], {"a", "z"}, k=2) == 0.5
    assert rm.average_precision(["a", "b"], {"a", "z"}) == 0.5
    assert rm.average_precision(["a", "b"], {"a", "z"}, ap_denominator="hits") == 1.0


def test_mask_excludes_items():
    y_true = np.array([[1, 0, 1, 0]])
    y_score = np.array([[0.1, 0.9, 0.8, 0.7]])
    mask = np.array([[False, True, False, False]])  # item 1 was a training item
    assert rm.reciprocal_rank(y_true, y_score, mask=mask) == 1.0
    assert rm.precision(y_true, y_score, k=1, mask=mask) == 1.0
    # a masked relevant item is not relevant any more
    assert rm.recall(y_true, y_score, k=2, mask=np.array([[True, False, False, False]])) == 1.0
    assert rm.auc(y_true, y_score, mask=mask) == rm.auc([[1, 1, 0]], [[0.1, 0.8, 0.7]])


def test_average_precision_denominators():
    gains = [1, 0, 1, 0, 0, 0, 1, 1]  # |R| = 4
    num = 1 / 1 + 2 / 3  # hits within k = 4
    assert rm.average_precision(gains, k=4, ap_denominator="relevant") == pytest.approx(num / 4)
    assert rm.average_precision(gains, k=4, ap_denominator="min") == pytest.approx(num / 4)
    assert rm.average_precision(gains, k=2, ap_denominator="min") == pytest.approx(1 / 2)
    assert rm.average_precision(gains, k=4, ap_denominator="k") == pytest.approx(num / 4)
    assert rm.average_precision(gains, k=3, ap_denominator="k") == pytest.approx(num / 3)
    assert rm.average_precision(gains, k=4, ap_denominator="hits") == pytest.approx(num / 2)


def test_idcg_modes_and_gains():
    assert rm.ndcg([0, 1, 0], k=3, idcg="min") == pytest.approx(1 / np.log2(3))
    assert rm.ndcg([0, 1, 0], k=3, idcg="k") == pytest.approx(
        (1 / np.log2(3)) / (1 + 1 / np.log2(3) + 0.5)
    )
    with pytest.raises(ValueError, match="binary relevance only"):
        rm.ndcg([2, 1], k=2, idcg="k")
    with pytest.raises(ValueError, match="needs a cutoff"):
        rm.ndcg([1, 0], idcg="k")
    assert rm.dcg([1, 0, 1], gain="exponential") == rm.dcg([1, 0, 1], gain="linear")
    assert rm.dcg([2], gain="exponential") == 3.0
    assert rm.ndcg([1, 0, 1], log_base=10) == pytest.approx(rm.ndcg([1, 0, 1]))


def test_no_relevant_policies():
    y_true = np.array([[1, 0, 0], [0, 0, 0]])
    y_score = np.array([[0.9, 0.1, 0.2], [0.3, 0.2, 0.1]])
    assert rm.ndcg(y_true, y_score) == 1.0  # default: 'skip'
    assert rm.ndcg(y_true, y_score, no_relevant="zero") == 0.5
    assert rm.ndcg(y_true, y_score, no_relevant="skip") == 1.0
    per = rm.ndcg(y_true, y_score, no_relevant="skip", per_user=True)
    assert per[0] == 1.0 and np.isnan(per[1])
    with pytest.raises(ValueError, match="user 1 has no relevant item"):
        rm.ndcg(y_true, y_score, no_relevant="raise")
    with pytest.raises(ValueError, match="no_relevant must be one of"):
        rm.ndcg(y_true, y_score, no_relevant="ignore")


def test_tie_policies_on_a_small_example():
    y_true = [[0, 1, 0, 0]]
    y_score = [[0.5, 0.5, 0.5, 0.1]]
    assert rm.reciprocal_rank(y_true, y_score, ties="optimistic") == 1.0
    assert rm.reciprocal_rank(y_true, y_score, ties="pessimistic") == pytest.approx(1 / 3)
    assert rm.reciprocal_rank(y_true, y_score, ties="expected") == pytest.approx(
        (1 + 1 / 2 + 1 / 3) / 3
    )
    # trec_eval: higher item index first within a tie -> order 2, 1, 0
    assert rm.reciprocal_rank(y_true, y_score, ties="trec_eval") == 0.5
    assert rm.precision(y_true, y_score, k=1, ties="expected") == pytest.approx(1 / 3)


def test_auc_forms():
    assert rm.auc(ranks=[1], n_items=10) == 1.0
    assert rm.auc(ranks=[10], n_items=10) == 0.0
    np.testing.assert_allclose(rm.auc(ranks=[1, 4, 10], n_items=10, per_user=True), [1, 6 / 9, 0])
    # a list with a catalogue: unlisted items tie below the list
    assert rm.auc(["a", "b"], {"b"}, n_items=4) == pytest.approx(2 / 3)
    # z is unlisted: a and b rank above it, one unlisted negative ties with it
    assert rm.auc(["a", "b"], {"z"}, n_items=4) == pytest.approx(1 - 2.5 / 3)
    with pytest.raises(ValueError, match="catalogue size"):
        rm.auc(["a", "b"], {"b"})
    y_true = np.array([[1, 0, 0, 1], [0, 1, 0, 0]])
    y_score = np.array([[0.9, 0.8, 0.1, 0.4], [0.3, 0.2, 0.9, 0.1]])
    w = rm.auc(y_true, y_score, average="weighted")
    assert w == pytest.approx(rm.auc(y_true, y_score))  # equal list lengths
    from sklearn.metrics import roc_auc_score

    assert rm.auc(y_true, y_score, average="global") == pytest.approx(
        roc_auc_score(y_true.ravel(), y_score.ravel())
    )


def test_curves_and_break_even():
    y = [1, 0, 1, 1, 0, 0]
    s = [0.9, 0.8, 0.7, 0.7, 0.2, 0.1]
    fpr, tpr, thr = rm.roc_curve(y, s)
    assert rm.trapezoid_area(fpr, tpr) == pytest.approx(rm.auc(y, s))
    assert rm.rank_loss(y, s) == pytest.approx(1 - rm.auc(y, s))
    p, r, _ = rm.precision_recall_curve(y, s)
    assert r[-1] == 1.0 and p[0] == 1.0
    assert rm.break_even_point(y, s) == pytest.approx(rm.precision([y], [s], k=3))
    from sklearn.metrics import roc_curve as sk_roc

    f2, t2, _ = sk_roc(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, f2)
    np.testing.assert_allclose(tpr, t2)


def test_confusion_counts():
    table = rm.confusion(["a", "b", "c"], {"a", "z"}, k=2, n_items=10)
    row = table.iloc[0]
    assert (row.TP, row.FP, row.FN, row.TN) == (1, 1, 1, 7)
    assert row.accuracy == pytest.approx(0.8)
    assert np.isnan(rm.confusion(["a"], {"a"}, k=1).iloc[0].TN)


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (lambda: rm.ndcg([1, 0, 1], k=0), ValueError, "k must be an integer >= 1"),
        (lambda: rm.ndcg([1, 0, 1], k=2.5), TypeError, "k must be an integer"),
        (lambda: rm.precision([1, 0, 1], k="3"), TypeError, "k must be an integer"),
        (lambda: rm.ndcg([1, -1, 1]), ValueError, "gains must be non-negative"),
        (lambda: rm.ndcg([1, float("nan")]), ValueError, "gains contains NaN"),
        (lambda: rm.ndcg([]), ValueError, "gains is empty"),
        (
            lambda: rm.average_precision(["a", "b", "a"], {"a"}),
            ValueError,
            "recommended contains the item 'a' twice",
        ),
        (lambda: rm.average_precision(["a"], {"a": -1}), ValueError, "grades must be non-negative"),
        (
            lambda: rm.average_precision([["a"]], [{"b": 1, "c": -1}]),
            ValueError,
            "grades must be non-negative",
        ),
        (lambda: rm.ndcg([[1, 0]], [[0.5, float("nan")]]), ValueError, "y_score contains NaN"),
        (lambda: rm.ndcg([[1, 0]], [[0.5, 0.2, 0.1]]), ValueError, "same shape"),
        (
            lambda: rm.ndcg(np.array([[1, -2]]), np.array([[0.5, 0.2]])),
            ValueError,
            "y_true must be non-negative",
        ),
        (
            lambda: rm.ndcg(np.array([[1, 0]]), np.array([["a", "b"]])),
            TypeError,
            "y_score must contain only numbers",
        ),
        (lambda: rm.ndcg(np.array([[1, 0]])), TypeError, "y_score is missing"),
        (lambda: rm.ndcg(ranks=[0, 3]), ValueError, "ranks must be >= 1"),
        (lambda: rm.ndcg(ranks=[5], n_items=4), ValueError, "ranks must be <= n_items"),
        (lambda: rm.ndcg(ranks=[1.5]), ValueError, "ranks must be integers"),
        (lambda: rm.ndcg(ranks=[[1, 1]]), ValueError, "distinct"),
        (lambda: rm.ndcg([1, 0], ties="random"), ValueError, "ties must be one of"),
        (
            lambda: rm.average_precision([1, 0], ap_denominator="n"),
            ValueError,
            "ap_denominator must be one of",
        ),
        (lambda: rm.dcg([1, 0], gain="log"), ValueError, "gain must be one of"),
        (lambda: rm.dcg([1, 0], log_base=1), ValueError, "log_base must be > 1"),
        (lambda: rm.f_score([1, 0], k=1, beta=0), ValueError, "beta must be a finite number > 0"),
        (lambda: rm.reciprocal_rank([["a"], ["b"]], [{"a"}]), ValueError, "one entry per user"),
        (lambda: rm.ndcg([[1, 0]], [[0.5, 0.2]], mask=[[1, 2]]), TypeError, "mask must be boolean"),
        (lambda: rm.precision(ranks=[1, 2]), ValueError, "k is required"),
        (lambda: rm.evaluate([[1, 0]], [[0.5, 0.2]], ["ndcg@0"]), ValueError, "cutoff"),
        (lambda: rm.evaluate([[1, 0]], [[0.5, 0.2]], ["auc@3"]), ValueError, "auc has no cutoff"),
        (lambda: rm.evaluate([[1, 0]], [[0.5, 0.2]], ["bleu@3"]), ValueError, "unknown metric"),
        (lambda: rm.roc_curve([1, 2], [0.1, 0.2]), ValueError, "binary labels"),
        (lambda: rm.roc_curve([1, 1], [0.1, 0.2]), ValueError, "both positives and negatives"),
    ],
)
def test_bad_input_raises_clearly(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_one_dimensional_scores_are_read_as_one_user():
    y = np.array([1, 0, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.3, 0.1, 0.2])
    assert rm.ndcg(y, s) == pytest.approx(rm.ndcg(y[None, :], s[None, :]))
    assert rm.precision([1, 0, 0], [0.9, 0.1, 0.5], k=1) == 1.0
    assert rm.auc(y, s) == pytest.approx(rm.auc(y[None, :], s[None, :]))
    # whole-number scores are scores too: the type decides, never the values
    assert rm.ndcg([0, 1, 2], [3.0, 2.0, 1.0]) == pytest.approx(rm.ndcg([0, 1, 2], [3.5, 2, 1]))
    assert rm.precision([1, 2, 3], [3, 4, 5], k=1) == 1.0  # y_true [1, 2, 3]: all relevant
    assert rm.precision([1, 2, 3], {3, 4, 5}, k=3) == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "kw", [{}, {"no_relevant": "skip"}, {"ties": "pessimistic"}, {"convention": "trec_eval"}]
)
def test_evaluate_in_blocks_of_users_gives_the_same_numbers(kw):
    rng = np.random.default_rng(11)
    y = (rng.random((300, 60)) < 0.08) * rng.integers(1, 4, (300, 60))
    y[::9] = 0
    s = np.round(rng.random((300, 60)), 2)
    mask = rng.random((300, 60)) < 0.1
    names = ["ndcg@10", "map@10", "precision@10", "recall@10"] + (
        [] if "convention" in kw else ["mrr", "auc"]
    )
    whole = rm.evaluate(y, s, names, mask=mask, per_user=True, **kw)
    blocks = rm.evaluate(y, s, names, mask=mask, per_user=True, chunk_users=37, **kw)
    pd.testing.assert_frame_equal(whole, blocks)
    sparse_means = rm.evaluate(
        sp.csr_array(y), s, names, mask=sp.csr_array(mask), chunk_users=37, **kw
    )
    pd.testing.assert_series_equal(rm.evaluate(y, s, names, mask=mask, **kw), sparse_means)
    with pytest.raises(ValueError, match="chunk_users must be an integer >= 1"):
        rm.evaluate(y, s, names, chunk_users=0)


# ------------------------------------------------------------- rankings to a depth


def _refuses_expected_ties(fn, ranking, k):
    """The error of a metric that refuses too many orders of tied items, or None.

    INST, NERR and BPM average over every order under ``ties='expected'``.
    """
    try:
        fn(ranking, k=k, per_user=True)
    except ValueError as err:
        if "ties='expected'" in str(err) and "distinct orders" in str(err):
            return err
        raise
    return None


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
@pytest.mark.parametrize(
    ("levels", "dtype", "sparse"),
    [
        (3, np.float32, False),
        (40, np.float16, True),
        (40, np.int64, False),
        (10**6, np.float64, True),
        (10**6, np.float32, False),
    ],
)
@pytest.mark.parametrize("retrieve_nonpositive", [True, False])
def test_a_ranking_to_a_depth_gives_every_cutoff_metric_bit_for_bit(
    ties, levels, dtype, sparse, retrieve_nonpositive
):
    """``from_scores(depth=d)`` changes no metric cut at ``k <= d``, in any bit.

    Graded and binary gains, dense and sparse relevance and masks, heavy
    ties, float16/32/64 and integer scores, rows with many relevant items
    (past the sweeps of four) and relevant items scored <= 0.
    """
    rng = np.random.default_rng(levels + len(ties))
    n_users, n_items = 60, 600  # rows long enough to stop counting early
    s = rng.integers(0, levels, (n_users, n_items)) - levels // 3
    s = s.astype(dtype) if dtype != np.float16 else (s / 8).astype(dtype)
    y = (rng.random((n_users, n_items)) < rng.uniform(0.01, 0.7, (n_users, 1))) * rng.integers(
        1, 4, (n_users, n_items)
    )
    y[::7] = (y[::7] > 0).astype(int)
    mask = rng.random((n_users, n_items)) < 0.1
    if sparse:
        y, mask = sp.csr_array(y), sp.csr_array(mask)
    kw = dict(mask=mask, ties=ties, retrieve_nonpositive=retrieve_nonpositive)
    full = rm.from_scores(y, s, **kw)
    left_out = 0
    for depth in (1, 2, 5, 10, 200):
        r = rm.from_scores(y, s, depth=depth, **kw)
        assert r.depth == depth
        left_out += int(np.sum(np.isinf(r.start)) - np.sum(np.isinf(full.start)))
        for fn in RANKED_METRICS:  # (the registry's metrics with a cutoff)
            for k in {1, depth // 2 or 1, depth}:
                refused = _refuses_expected_ties(fn, full, k)
                if refused is not None:  # adaptive C/W/L measures: the same error at depth
                    with pytest.raises(ValueError, match=r"ties='expected'"):
                        fn(r, k=k, per_user=True)
                    continue
                np.testing.assert_array_equal(
                    fn(r, k=k, per_user=True), fn(full, k=k, per_user=True), err_msg=fn.__name__
                )
    if levels > 3:  # (with three levels every relevant item is tied near the top)
        assert left_out > 0


def test_evaluate_ranks_only_as_deep_as_its_cutoffs(monkeypatch):
    """``evaluate`` builds the ranking to the largest cutoff, and fully when a metric has none."""
    import recmetrics.inputs.forms as inputs

    seen = []
    real = inputs.from_scores

    def spy(*args, **kwargs):
        seen.append(kwargs.get("depth"))
        return real(*args, **kwargs)

    monkeypatch.setattr(inputs, "from_scores", spy)
    rng = np.random.default_rng(3)
    y = (rng.random((50, 600)) < 0.05).astype(int)
    s = rng.random((50, 600))
    names = ["ndcg@10", "map@5", "mrr@20", "recall@3"]
    got = rm.evaluate(y, s, names, per_user=True)
    assert seen == [20]
    full = rm.from_scores(y, s)
    for name, fn, k in [
        ("ndcg@10", rm.ndcg, 10),
        ("map@5", rm.average_precision, 5),
        ("mrr@20", rm.reciprocal_rank, 20),
        ("recall@3", rm.recall, 3),
    ]:
        np.testing.assert_array_equal(got[name].to_numpy(), fn(full, k=k, per_user=True))
    seen.clear()
    rm.evaluate(y, s, ["ndcg@10", "auc"])
    rm.evaluate(y, s, ["ndcg@10", "mrr"])
    assert seen == [None, None]


def test_a_ranking_to_a_depth_refuses_deeper_questions():
    y, s = np.zeros((1, 600)), np.linspace(1.0, 0.0, 600)[None, :]
    y[0, [1, 3]] = 1
    r = rm.from_scores(y, s, depth=2)
    assert r.start.tolist() == [1.0, np.inf]
    assert rm.precision(r, k=2) == 0.5
    short = rm.from_scores(y[:, :100], s[:, :100], depth=2)  # short rows: counted in full
    assert short.start.tolist() == [1.0, 3.0] and short.depth == 2
    with pytest.raises(ValueError, match="built with depth=2"):
        rm.ndcg(short)
    for call, what in [
        (lambda: rm.precision(r, k=3), "a cutoff of 3"),
        (lambda: rm.ndcg(r), "every rank"),
        (lambda: rm.reciprocal_rank(r), "every rank"),
        (lambda: rm.average_precision(r, k=5), "a cutoff of 5"),
        (lambda: rm.auc(r), "AUC needs every rank"),
        (lambda: rm.break_even_point(r), "break-even point"),
        (lambda: rm.evaluate(r, None, ["ndcg@3"]), "a cutoff of 3"),
    ]:
        with pytest.raises(ValueError, match=f"built with depth=2.*{what}"):
            call()
    with pytest.raises(ValueError, match="ranks of the relevant items below that depth"):
        r.ranks()
    for where in [(0, 1), (0, 599), (0, 300)]:  # on a relevant item, below the depth
        bad = s.copy()
        bad[where] = np.nan
        with pytest.raises(ValueError, match=f"y_score contains NaN at row 0, column {where[1]}"):
            rm.from_scores(y, bad, depth=2)
    with pytest.raises(ValueError, match="y_true contains NaN"):
        rm.from_scores(np.where(y > 0, np.nan, 0.0), s, depth=2)
    huge = rm.from_scores(y, s, depth=2**70)  # beyond the catalogue: every item counted
    assert huge.start.tolist() == [1.0, 3.0] and huge.depth == 2**70
    name = f"precision@{2**64}"
    assert rm.evaluate(y, s, [name])[name] == pytest.approx(2 / 2**64)
    with pytest.raises(ValueError, match="depth must be an integer >= 1, got 0"):
        rm.from_scores([[1, 0]], [[0.5, 0.2]], depth=0)
    with pytest.raises(TypeError, match="depth must be an integer >= 1"):
        rm.from_scores([[1, 0]], [[0.5, 0.2]], depth="10")
