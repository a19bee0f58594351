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


# ------------------------------------------------------------------ interpolated precision
def _random_qrels_run(seed, n_queries=40):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        n_docs = int(rng.integers(1, 40))
        docs = [f"d{j:03d}" for j in range(60)]
        rel = rng.random(60) < rng.uniform(0.05, 0.5)
        qrels[f"q{q:02d}"] = {
            d: int(r) for d, r in zip(docs, rel, strict=True) if r or rng.random() < 0.3
        }
        if not any(qrels[f"q{q:02d}"].values()):
            qrels[f"q{q:02d}"][docs[0]] = 1
        chosen = rng.choice(60, n_docs, replace=False)
        run[f"q{q:02d}"] = {docs[j]: float(n_docs - i) for i, j in enumerate(chosen)}
    return qrels, run


def test_iprec_and_11pt_match_pytrec_eval_over_many_sizes():
    """Many values of |R| (1 .. ~30): trec_eval 9.0.8's rounding of level * |R| + 0.9."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_qrels_run(1)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg"}).evaluate(run)
    truth = pd.DataFrame(
        [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        columns=["user", "item", "grade"],
    )
    pred = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        columns=["user", "item", "score"],
    )
    r = rm.from_frames(truth, pred, relevance="grade", ties="trec_eval")
    for level in rm.metrics.interpolated_precision.RECALL_LEVELS:
        ours = rm.iprec_at_recall(r, recall_level=level, no_relevant="zero", per_user=True)
        for q in theirs:
            key = f"iprec_at_recall_{level:.2f}"
            assert ours[q] == pytest.approx(theirs[q][key], abs=1e-12), (q, key)
    ours = rm.precision_11pt(r, no_relevant="zero", per_user=True)
    for q in theirs:
        assert ours[q] == pytest.approx(theirs[q]["11pt_avg"], abs=1e-12), q


def _iprec_plain(gains, level, n_rel):
    cut = max(int(level * n_rel + 0.9), 1)
    pos = np.flatnonzero(gains) + 1
    if n_rel == 0 or len(pos) == 0 or int(level * n_rel + 0.9) > len(pos):
        return 0.0
    m = np.arange(1, len(pos) + 1)
    return float(np.max((m / pos)[cut - 1 :]))


@pytest.mark.parametrize("seed", range(6))
def test_iprec_expected_is_the_mean_over_tie_orders(seed):
    """Exact under ties='expected': every distinct arrangement of two tie groups."""
    rng = np.random.default_rng(seed)
    gains = (rng.random(10) < 0.45).astype(int)
    gains[rng.integers(10)] = 1
    scores = np.array([5, 4, 4, 4, 4, 3, 2, 2, 2, 1], dtype=float)
    groups = [[0], [1, 2, 3, 4], [5], [6, 7, 8], [9]]
    arrangements = []
    for perms in itertools.product(*(set(itertools.permutations(gains[g])) for g in groups)):
        arrangements.append(np.concatenate([np.array(p) for p in perms]))
    weights = [1.0] * len(arrangements)  # distinct arrangements are equally likely
    n_rel = int(gains.sum())
    for level in rm.metrics.interpolated_precision.RECALL_LEVELS:
        want = np.average([_iprec_plain(a, level, n_rel) for a in arrangements], weights=weights)
        got = rm.iprec_at_recall(gains, scores, recall_level=level, ties="expected")
        assert got == pytest.approx(want, abs=1e-12), level
    want = np.mean(
        [
            np.mean(
                [_iprec_plain(a, x, n_rel) for x in rm.metrics.interpolated_precision.RECALL_LEVELS]
            )
            for a in arrangements
        ]
    )
    assert rm.precision_11pt(gains, scores, ties="expected") == pytest.approx(want, abs=1e-12)


def test_iprec_registry_and_cli_names():
    from recmetrics.metrics import _registry

    assert _registry.parse("iprec_at_recall_0.10")[0].name == "iprec_at_recall_0.10"
    assert _registry.parse("11pt_avg")[0].name == "precision_11pt"
    assert trec_measures("iprec_at_recall.0.1,1") == [
        ("iprec_at_recall_0.10", "iprec_at_recall_0.10"),
        ("iprec_at_recall_1.00", "iprec_at_recall_1.00"),
    ]
    assert len(trec_measures("iprec_at_recall")) == 11
    assert trec_measures("11pt_avg") == [("11pt_avg", "precision_11pt")]
    with pytest.raises(ValueError, match="recall_level=x"):
        trec_measures("iprec_at_recall.0.25")
    with pytest.raises(ValueError, match="11 levels"):
        trec_measures("11pt_avg.0.2,0.5,0.8")
    with pytest.raises(ValueError, match=r"\[0, 1\]|recall_level"):
        rm.iprec_at_recall([1, 0], recall_level=1.5)
