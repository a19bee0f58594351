"""trec_eval's set measures and relative precision (recmetrics/metrics/trec_sets.py).

The registry-driven tests (test_ranking_reference.py, test_metric_common.py,
test_preset_parity.py) cover them in every input form and tie policy; here:
set_F's parameter (trec_eval's x is our beta squared) against pytrec_eval,
the exact expectation under ties by enumeration, and the CLI names.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics.cli import trec_measures

QRELS = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}, "q2": {"a": 0, "e": 1}, "q3": {"b": 0}}
RUN = {
    "q1": {"a": 3.0, "x": 2.0, "b": 1.5, "y": 1.0, "d": 0.5},
    "q2": {"a": 2.0, "b": 1.0, "e": 0.5},
    "q3": {"b": 1.0, "a": 0.5},
}


def _frames():
    truth = pd.DataFrame(
        [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
        columns=["user", "item", "grade"],
    )
    run = pd.DataFrame(
        [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
        columns=["user", "item", "score"],
    )
    return truth, run


def _pytrec(measures):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    return pytrec_eval.RelevanceEvaluator(QRELS, set(measures)).evaluate(RUN)


@pytest.mark.parametrize("x", [1.0, 4.0, 0.25, 2.0])
def test_set_f_parameter_is_beta_squared(x):
    truth, run = _frames()
    r = rm.from_frames(truth, run, relevance="grade", ties="trec_eval")
    ours = rm.set_f(r, beta=np.sqrt(x), no_relevant="zero", per_user=True)
    theirs = _pytrec([f"set_F.{x}"])
    for q in QRELS:
        assert ours[q] == pytest.approx(theirs[q]["set_F"], abs=1e-12), q


@pytest.mark.parametrize(
    "fn, trec",
    [
        (rm.set_precision, "set_P"),
        (rm.set_recall, "set_recall"),
        (rm.set_relative_precision, "set_relative_P"),
    ],
)
def test_set_measures_per_query(fn, trec):
    truth, run = _frames()
    r = rm.from_frames(truth, run, relevance="grade", ties="trec_eval")
    ours = fn(r, no_relevant="zero", per_user=True)
    theirs = _pytrec([trec])
    for q in QRELS:
        assert ours[q] == pytest.approx(theirs[q][trec], abs=1e-12), q


@pytest.mark.parametrize("k", [1, 2, 3, 4, 10])
def test_relative_precision_per_query(k):
    truth, run = _frames()
    r = rm.from_frames(truth, run, relevance="grade", ties="trec_eval")
    ours = rm.relative_precision(r, k=k, no_relevant="zero", per_user=True)
    theirs = _pytrec([f"relative_P.{k}"])
    for q in QRELS:
        assert ours[q] == pytest.approx(theirs[q][f"relative_P_{k}"], abs=1e-12), q


def test_without_cutoff_and_set_forms_agree():
    rng = np.random.default_rng(0)
    y = (rng.random((6, 9)) < 0.3).astype(int)
    s = rng.integers(0, 3, (6, 9)).astype(float)  # many ties
    np.testing.assert_allclose(
        rm.set_relative_precision(y, s, per_user=True, no_relevant="zero"),
        rm.relative_precision(y, s, per_user=True, no_relevant="zero"),
    )
    np.testing.assert_allclose(
        rm.set_precision(y, s, per_user=True, no_relevant="zero"),
        rm.precision(y, s, per_user=True, no_relevant="zero"),
    )
    np.testing.assert_allclose(
        rm.set_f(y, s, beta=2.0, per_user=True, no_relevant="zero"),
        rm.f_score(y, s, beta=2.0, per_user=True, no_relevant="zero"),
    )


def test_relative_precision_expected_over_tie_orders():
    gains = np.array([1, 0, 1, 1, 0, 0])
    scores = np.array([0.9, 0.5, 0.5, 0.5, 0.5, 0.1])
    tied = [1, 2, 3, 4]
    for k in range(1, 7):
        values = []
        for perm in itertools.permutations(tied):
            order = [0, *perm, 5]
            top = gains[order][:k]
            values.append(top.sum() / min(k, gains.sum()))
        got = rm.relative_precision(gains, scores, k=k, ties="expected")
        assert got == pytest.approx(np.mean(values), abs=1e-12), k


def test_set_measures_ignore_the_order():
    y = [[1, 0, 1, 0, 0]]
    s = [[0.5, 0.5, 0.5, 0.2, 0.2]]
    for fn in (rm.set_precision, rm.set_recall, rm.set_f, rm.set_relative_precision):
        values = {fn(y, s, ties=t) for t in ("expected", "optimistic", "pessimistic", "trec_eval")}
        assert len(values) == 1, fn.__name__


def test_trec_names():
    assert trec_measures("set_P") == [("set_P", "set_precision")]
    assert trec_measures("set_F.1") == [("set_F", "set_f")]
    assert trec_measures("relative_P") == [
        (f"relative_P_{k}", f"relative_precision@{k}")
        for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    ]
    with pytest.raises(ValueError, match="beta = sqrt"):
        trec_measures("set_F.4")


def test_registry_names_and_aliases():
    from recmetrics.metrics import _registry

    assert _registry.parse("set_P")[0].name == "set_precision"
    assert _registry.parse("set_F")[0].name == "set_f"
    assert _registry.parse("set_relative_P")[0].name == "set_relative_precision"
    assert _registry.parse("relative_P@5") == (_registry.get("relative_precision"), 5)
    with pytest.raises(ValueError, match="no cutoff"):
        _registry.parse("set_P@5")


def test_evaluate_under_trec_eval_matches_pytrec_eval():
    truth, run = _frames()
    names = ["set_P", "set_recall", "set_F", "set_relative_P", "relative_P@2"]
    res = rm.evaluate(truth, run, names, relevance="grade", convention="trec_eval", per_user=True)
    theirs = _pytrec(["set_P", "set_recall", "set_F", "set_relative_P", "relative_P.2"])
    labels = ["set_P", "set_recall", "set_F", "set_relative_P", "relative_P_2"]
    keys = dict(zip(names, labels, strict=True))
    for name, key in keys.items():
        for q in QRELS:
            assert res.loc[q, name] == pytest.approx(theirs[q][key], abs=1e-6), (name, q)
