"""ERR (gdeval's err@k, ir_measures' ERR@k) and the C/W/L measures (cwl_eval).

* ERR against values printed by gdeval.pl (ir_measures/bin/gdeval.pl, version
  1.2a) on a small qrels/run, and its exact expectation over tie orders against
  a literal enumeration of every order, for large and small tie groups.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import reference as ref

import recmetrics as rm
from recmetrics.metrics import _registry

# gdeval.pl q2 r2 k (5 decimals), with the qrels and run below
QRELS = [
    (1, "a", 4),
    (1, "b", 0),
    (1, "c", 2),
    (1, "e", 1),  # (1, d, -1): unjudged, left out as the CLI does
    (2, "a", 3),
    (2, "b", 3),
    (2, "f", 1),
    (3, "a", 0),
]
RUN = [
    (1, "b", 9.0),
    (1, "e", 8.0),
    (1, "a", 7.0),
    (1, "d", 6.0),
    (1, "c", 5.0),
    (2, "f", 3.0),
    (2, "x", 2.0),
    (2, "a", 1.0),
    (2, "b", 0.5),
    (3, "a", 1.0),
]
GDEVAL_ERR = {
    1: {1: 0.0, 2: 0.06250},
    3: {1: 0.32422, 2: 0.19922},
    5: {1: 0.32642, 2: 0.25690},
    20: {1: 0.32642, 2: 0.25690},
}


def _frames():
    truth = pd.DataFrame(QRELS, columns=["user", "item", "rel"])
    run = pd.DataFrame(RUN, columns=["user", "item", "score"])
    return rm.from_frames(truth, run, relevance="rel")


@pytest.mark.parametrize("k", sorted(GDEVAL_ERR))
def test_err_matches_gdeval(k):
    got = rm.err(_frames(), k=k, per_user=True)
    assert np.isnan(got[3])  # gdeval prints no line for a topic without relevant documents
    for topic, value in GDEVAL_ERR[k].items():
        assert got[topic] == pytest.approx(value, abs=5e-6)


def test_err_names():
    assert _registry.parse_with_keywords("ERR@20")[:2] == (_registry.REGISTRY["err"], 20)
    assert _registry.get("expected_reciprocal_rank").name == "err"


def _enumerated(metric, y_true, y_score, k):
    """The mean of ``metric`` over every order of the tied items of one row."""
    n = len(y_true)
    values = []
    for perm in itertools.permutations(range(n)):
        order = sorted(range(n), key=lambda j: (-y_score[j], perm[j]))
        values.append(metric([y_true[j] for j in order], k=k))
    return float(np.mean(values))


@pytest.mark.parametrize("seed", range(4))
def test_err_expected_ties_by_enumeration(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(2, 8))
        y_true = (rng.integers(0, 5, n) * (rng.random(n) < 0.6)).tolist()
        y_score = rng.integers(0, 3, n).astype(float).tolist()
        k = [None, 1, 2, 4][int(rng.integers(0, 4))]
        want = _enumerated(ref.err, y_true, y_score, k)
        got = rm.err([y_true], [y_score], k=k, no_relevant="zero")
        assert got == pytest.approx(want, abs=1e-12), (y_true, y_score, k)


def test_err_expected_large_tie_group():
    """A tie group of 300 items with grades 0..4: the closed form against Monte Carlo."""
    rng = np.random.default_rng(5)
    grades = rng.integers(0, 5, 300) * (rng.random(300) < 0.1)
    got = rm.err([grades.tolist()], [[1.0] * 300], k=20, no_relevant="zero")
    # Monte Carlo over random orders agrees to its own error
    sims = [ref.err(rng.permutation(grades).tolist(), k=20) for _ in range(4000)]
    assert got == pytest.approx(np.mean(sims), abs=4 * np.std(sims) / np.sqrt(4000))


def test_err_bad_max_grade():
    with pytest.raises(ValueError, match="max_grade"):
        rm.err([5, 0, 1])
    with pytest.raises(TypeError, match="max_grade"):
        rm.err([1, 0], max_grade="4")
    with pytest.raises(ValueError, match="max_grade"):
        rm.err([1, 0], max_grade=0)


# --------------------------------------------------------------------------
# C/W/L measures: values printed by cwl_eval 1.0.12 (PyPI cwl-eval; the same
# code as github.com/ireval/cwl at 4c3ea6f) for the gains 0, 0.5, 1, 0, 0.25
# (grades 0, 2, 4, 0, 1 with max_grade=4), max_n = 1000 unless said
GRADES = [0, 2, 4, 0, 1]
CWL_EVAL = [
    ("inst", {"T": 1.0}, 0.21995478392030027),
    ("inst", {"T": 2.0}, 0.2139136262483997),
    ("inst", {"T": 3.0}, 0.18148667843909666),
    ("insq", {"T": 1.0}, 0.19411880140714646),
    ("inst", {"T": 1.0, "max_depth": 3}, 0.26865671641791045),
    ("nerr8", {"k": 3}, 0.4),
    ("nerr9", {"k": 4}, 0.25),
    ("nerr10", {"p": 0.9}, 0.3709327548806942),
    ("nerr11", {"T": 2.0}, 0.29116945107398573),
    ("bpm", {"T": 1.0, "k": 10}, 0.5),
    ("bpm", {"T": 2.0, "k": 3}, 0.5),
    ("sdcg", {"k": 3}, 0.38268031849431094),
    ("bpm", {"T": 1.5, "k": 10, "hb": 1.0, "gain_med": 0.2}, 0.19444444444444445),
    ("sdcg", {"k": 10}, 0.2007628844962226),
]


@pytest.mark.parametrize("name, kw, want", CWL_EVAL)
def test_cwl_matches_cwl_eval(name, kw, want):
    got = getattr(rm, name)(GRADES, max_grade=4, **kw)
    assert got == pytest.approx(want, abs=1e-12)
    assert getattr(ref, name)(GRADES, max_grade=4, **kw) == pytest.approx(want, abs=1e-12)


def test_cwl_ir_measures_names():
    spec, k, kw = _registry.parse_with_keywords("INST(T=2, max_rel=3)")
    assert (spec.name, k, kw) == ("inst", None, {"T": 2, "max_grade": 3})
    assert _registry.parse_with_keywords("INSQ(max_rel=1, min_rel=0)")[2] == {
        "max_grade": 1,
        "min_grade": 0,
    }
    spec, k, kw = _registry.parse_with_keywords("NERR8(max_rel=1)@10")
    assert (spec.name, k, kw) == ("nerr8", 10, {"max_grade": 1})
    assert _registry.parse_with_keywords("NERR10(p=0.8, max_rel=2)")[2] == {
        "p": 0.8,
        "max_grade": 2,
    }
    assert _registry.parse_with_keywords("NERR11(T=2, max_rel=1)")[2] == {"T": 2, "max_grade": 1}
    spec, k, kw = _registry.parse_with_keywords("SDCG(dcg='log2', max_rel=2)@5")
    assert (spec.name, k, kw) == ("sdcg", 5, {"max_grade": 2})
    spec, k, kw = _registry.parse_with_keywords("BPM(T=2, max_rel=4)@20")
    assert (spec.name, k, kw) == ("bpm", 20, {"T": 2, "max_grade": 4})


@pytest.mark.parametrize(
    "name", ["inst", "insq", "nerr8", "nerr9", "nerr10", "nerr11", "bpm", "sdcg"]
)
def test_cwl_expected_ties_by_enumeration(name):
    rng = np.random.default_rng(11)
    for _ in range(30):
        n = int(rng.integers(2, 7))
        y_true = (rng.integers(0, 4, n) * (rng.random(n) < 0.6)).tolist()
        y_score = rng.integers(0, 3, n).astype(float).tolist()

        def metric(gains, k=None):
            return getattr(ref, name)(gains, max_grade=3, max_depth=20)

        want = _enumerated(metric, y_true, y_score, None)
        got = getattr(rm, name)([y_true], [y_score], max_grade=3, max_depth=20, no_relevant="zero")
        assert got == pytest.approx(want, abs=1e-12), (y_true, y_score)


def test_cwl_too_many_orders_raises():
    y_true = [[1, 0] * 15]
    with pytest.raises(ValueError, match="ties="):
        rm.inst(y_true, [[0.0] * 30])
    # INSQ is linear in the gains: exact for any tie group (mean gain 1/2 at each position)
    assert rm.insq(y_true, [[0.0] * 30]) == pytest.approx(rm.insq([0.5] * 30), abs=1e-12)
    # a deterministic policy
    assert rm.inst(y_true, [[0.0] * 30], ties="optimistic") > rm.inst(
        y_true, [[0.0] * 30], ties="pessimistic"
    )


def test_cwl_bad_keywords():
    with pytest.raises(ValueError, match="max_grade"):
        rm.inst([1, 0], min_grade=2, max_grade=1)
    with pytest.raises(TypeError, match="T"):
        rm.inst([1, 0], T="1")
    with pytest.raises(ValueError, match="T"):
        rm.insq([1, 0], T=0)
    with pytest.raises((TypeError, ValueError), match="max_depth"):
        rm.inst([1, 0], max_depth=0)


def test_err_expected_too_costly_raises():
    y_true = [[1, 0] * 10_000]
    with pytest.raises(ValueError, match="ties="):
        rm.err(y_true, [[0.0] * 20_000])
    assert rm.err(y_true, [[0.0] * 20_000], k=20) > 0  # a cutoff keeps it small


@pytest.mark.parametrize("name", ["inst", "nerr10", "bpm"])
def test_cwl_expected_ties_full_depth(name):
    """At cwl_eval's 1000 positions: the orders only change the head of the ranking."""
    y_true, y_score = [3, 0, 1, 2, 0], [1.0, 1.0, 0.5, 0.5, 0.5]

    def metric(gains, k=None):
        return getattr(ref, name)(gains, max_grade=3)

    want = _enumerated(metric, y_true, y_score, None)
    assert getattr(rm, name)([y_true], [y_score], max_grade=3) == pytest.approx(want, abs=1e-12)
