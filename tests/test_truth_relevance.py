"""A truth frame's ``relevance`` column is read by default (issue 24).

``relevance=None`` means: the column named ``'relevance'`` when the truth
frame has one (the frames of ``rm.io.read_trec_qrels``), else every row
relevant. One function decides it (``recmetrics._validation.truth_relevance``)
and every reader of truth frames calls it: ``from_frames`` (so every metric
function), ``rm.evaluate`` (ranking metrics, trec_eval's options, the lists
of the beyond-accuracy metrics).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics._validation import truth_relevance

# q1: a (2), b (0: judged non-relevant), c (1); q2: a (0), d (-1: pooled, unjudged)
TRUTH = pd.DataFrame(
    {
        "user": ["q1", "q1", "q1", "q2", "q2"],
        "item": ["a", "b", "c", "a", "d"],
        "relevance": [2, 0, 1, 0, -1],
    }
)
RUN = pd.DataFrame(
    {
        "user": ["q1", "q1", "q1", "q2", "q2"],
        "item": ["b", "a", "c", "a", "d"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    }
)
METRICS = ["ndcg@10", "precision@2", "map", "mrr", "bpref", "judged@2"]


def test_the_decision():
    assert truth_relevance(TRUTH, None) == "relevance"
    assert truth_relevance(TRUTH.drop(columns="relevance"), None) is None
    assert truth_relevance(TRUTH.rename(columns={"relevance": "g"}), "g") == "g"
    assert truth_relevance(TRUTH, "other") == "other"  # given: its reader checks it
    assert truth_relevance([[1, 0]], None) is None  # not a frame


def test_evaluate_reads_the_relevance_column_by_default():
    default = rm.evaluate(TRUTH, RUN, METRICS, per_user=True)
    explicit = rm.evaluate(TRUTH, RUN, METRICS, relevance="relevance", per_user=True)
    pd.testing.assert_frame_equal(default, explicit)
    # q1: b (grade 0) ranked first is not relevant: P@2 = 1/2, RR = 1/2
    assert default.loc["q1", "precision@2"] == 0.5 and default.loc["q1", "mrr"] == 0.5
    # q2 has no relevant item at all: left out (no_relevant='skip')
    assert np.isnan(default.loc["q2", "ndcg@10"])
    # the old reading (every row relevant) only when the column is dropped
    plain = rm.evaluate(TRUTH.drop(columns="relevance"), RUN, METRICS, per_user=True)
    assert plain.loc["q1", "precision@2"] == 1.0 and plain.loc["q2", "mrr"] == 1.0


def test_another_column_given_wins():
    graded = TRUTH.assign(g=[1, 1, 1, 1, 1])
    got = rm.evaluate(graded, RUN, ["precision@2"], relevance="g", per_user=True)
    assert got["precision@2"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("name", ["ndcg", "precision", "average_precision", "reciprocal_rank"])
def test_metric_functions_read_it_too(name):
    f = getattr(rm, name)
    kw = {"k": 2} if name == "precision" else {}
    got = f(TRUTH, RUN, per_user=True, **kw)
    want = f(rm.from_frames(TRUTH, RUN, relevance="relevance"), per_user=True, **kw)
    pd.testing.assert_series_equal(got, want)
    r = rm.from_frames(TRUTH, RUN)
    assert r.n_relevant.tolist() == [2, 0]


def test_a_qrels_file_read_back(tmp_path):
    rm.io.write_trec_qrels(TRUTH, tmp_path / "qrels", relevance="relevance")
    qrels = rm.io.read_trec_qrels(tmp_path / "qrels")
    got = rm.evaluate(qrels, RUN, ["ndcg@10", "precision@2"], per_user=True)
    want = rm.evaluate(TRUTH, RUN, ["ndcg@10", "precision@2"], per_user=True)
    pd.testing.assert_frame_equal(got, want)


def test_trec_eval_options_see_the_grades():
    # -J drops the pooled-but-unjudged d (grade -1) of q2, -l 2 keeps only a of q1
    for kw in ({"judged_only": True}, {"relevance_level": 2}):
        default = rm.evaluate(TRUTH, RUN, METRICS, per_user=True, **kw)
        explicit = rm.evaluate(TRUTH, RUN, METRICS, relevance="relevance", per_user=True, **kw)
        pd.testing.assert_frame_equal(default, explicit)
    level = rm.evaluate(TRUTH, RUN, ["precision@2"], relevance_level=2, per_user=True)
    assert level.loc["q1", "precision@2"] == 0.5


def test_beyond_accuracy_lists_read_it_with_pooled_grades():
    popularity = {"a": 3, "b": 1, "c": 1, "d": 1}
    got = rm.evaluate(
        TRUTH, RUN, ["ndcg@10", "serendipity@2"], popularity=popularity, per_user=True
    )
    # q2 has no relevant item (grades 0 and -1): nothing serendipitous
    assert got.loc["q2", "serendipity@2"] == 0.0
    explicit = rm.evaluate(
        TRUTH,
        RUN,
        ["ndcg@10", "serendipity@2"],
        popularity=popularity,
        relevance="relevance",
        per_user=True,
    )
    pd.testing.assert_frame_equal(got, explicit)
    plain = rm.evaluate(
        TRUTH.drop(columns="relevance"),
        RUN,
        ["serendipity@2"],
        popularity=popularity,
        per_user=True,
    )
    assert plain.loc["q2", "serendipity@2"] > 0


def test_a_relevance_column_that_is_not_numeric_raises():
    bad = TRUTH.assign(relevance=["high", "none", "low", "none", "pooled"])
    with pytest.raises(TypeError, match="'relevance' must hold numbers"):
        rm.evaluate(bad, RUN, ["ndcg@10"])


def test_write_trec_qrels_reads_the_relevance_column_by_default(tmp_path):
    truth = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"], "relevance": [2, 0, 1]})
    path = tmp_path / "qrels"
    rm.write_trec_qrels(truth, path)
    assert path.read_text() == "1 0 a 2\n1 0 b 0\n2 0 c 1\n"
    back = rm.read_trec_qrels(path)
    assert back["relevance"].tolist() == [2, 0, 1]


def test_serendipity_reads_the_relevance_column_of_a_truth_frame():
    train = pd.DataFrame({"user": [1, 2, 3], "item": ["a", "a", "b"]})
    graded = pd.DataFrame({"user": [0, 0], "item": ["a", "c"], "relevance": [1, 0]})
    kw = dict(popularity=train, n_primitive=1)
    # c is unexpected but judged non-relevant (grade 0): no serendipity
    assert rm.beyond.serendipity([["a", "c"]], graded, **kw) == 0.0
    assert rm.beyond.serendipity([["a", "c"]], graded[["user", "item"]], **kw) == 0.5
    with pytest.raises(ValueError, match="numeric grades"):
        rm.beyond.serendipity([["a", "c"]], graded.assign(relevance=["x", "y"]), **kw)


def test_cli_reads_a_table_relevance_column_by_default(tmp_path, capsys):
    from recmetrics.cli import main

    truth = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "relevance": [1, 0, 2]})
    run = pd.DataFrame({"user": [1, 1, 2], "item": [11, 10, 12], "score": [0.9, 0.5, 0.4]})
    truth.to_csv(tmp_path / "truth.csv", index=False)
    run.to_csv(tmp_path / "run.csv", index=False)
    outs = []
    for extra in ([], ["--relevance", "relevance"]):
        main(["evaluate", str(tmp_path / "truth.csv"), str(tmp_path / "run.csv"),
              "-m", "precision@1", "--format", "json", *extra])  # fmt: skip
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    assert '"precision@1": 0.5' in outs[0]  # item 11 (grade 0) at the top of user 1
