"""trec_eval's gain measures and ranx's Burges DCG, against the peers' own code.

* trec_eval: ``ndcg`` / ``dcg`` with gain maps (``gain_values``), ``Rndcg``,
  ``binG``, ``utility`` and ``relstring``. A line-by-line transcription of
  the C files (``gain_init.c``, ``m_ndcg.c``, ``m_Rndcg.c``, ``m_binG.c``,
  ``m_utility.c``, ``m_relstring.c``; ``form_res_rels.c`` for the ranked
  relevance list) is first checked against pytrec_eval per query (its C
  extension directly: the Python wrapper refuses ``ndcg.1=0.5``), then
  used as the reference: per query with ``ties='trec_eval'``, and averaged
  over every order of tied items for ``ties='expected'`` (brute force), on
  graded qrels with judged non-relevant (0), unjudged and negative grades.
* ranx: ``ndcg_burges`` / ``dcg_burges`` against ranx itself, runs without ties.
"""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import reference as ref

import recmetrics as rm
from recmetrics.cli import trec_measures
from recmetrics.metrics import _registry

NONPOOL, UNJUDGED = -1, -2  # trec_eval.h: RELVALUE_NONPOOL, RELVALUE_UNJUDGED
TOL = 1e-9


# ---------------------------------------------------------------------------
# the C code, transcribed
def setup_gains(levels, params, truncate=True):
    """gain_init.c: ``[level, gain, count]`` sorted by gain.

    ``levels`` counts the judged documents per grade >= 0; a named level keeps
    its gain, every other level 0 .. max its grade. trec_eval compares gains
    with ``(int)(g1 - g2)`` (``comp_rel_gain``); ``truncate=False`` sorts right.
    """
    gains = [[level, float(g), 0] for level, g in params.items()]
    num_rel_levels = max((lv + 1 for lv, c in levels.items() if c), default=0)
    for i in range(num_rel_levels):
        for entry in gains:
            if entry[0] == i:
                entry[2] = levels.get(i, 0)
                break
        else:
            gains.append([i, float(i), levels.get(i, 0)])
    if truncate:
        cmp = lambda a, b: int(a[1] - b[1])  # noqa: E731
    else:
        cmp = lambda a, b: (a[1] > b[1]) - (a[1] < b[1])  # noqa: E731
    return sorted(gains, key=functools.cmp_to_key(cmp))  # glibc's qsort: a stable merge sort


def get_gain(level, gains):
    for entry in gains:
        if entry[0] == level:
            return entry[1]
    return 0.0


class IdealWalk:
    """The ideal gain of m_ndcg.c: ``cur_level`` from the top, ``num_at_level`` of it."""

    def __init__(self, gains):
        self.gains, self.cur = gains, len(gains) - 1
        self.gain = gains[self.cur][1] if self.cur >= 0 else 0.0
        self.num = 0

    def step(self):
        self.num += 1
        while self.cur >= 0 and self.num > self.gains[self.cur][2]:
            self.num = 1
            self.cur -= 1
            self.gain = self.gains[self.cur][1] if self.cur >= 0 else 0.0
        return self.gain


def te_ndcg(rels, gains, measure="ndcg"):
    """m_ndcg.c (ndcg, and trec_eval 10's dcg)."""
    walk, results_dcg, ideal_dcg, i = IdealWalk(gains), 0.0, 0.0, 0
    while i < len(rels) and walk.gain > 0:
        results_dcg += get_gain(rels[i], gains) / math.log2(i + 2)
        if walk.step() > 0:
            ideal_dcg += walk.gain / math.log2(i + 2)
        i += 1
    while i < len(rels):
        results_dcg += get_gain(rels[i], gains) / math.log2(i + 2)
        i += 1
    while walk.gain > 0:
        if walk.step() > 0:
            ideal_dcg += walk.gain / math.log2(i + 2)
        i += 1
    if measure == "dcg":
        return results_dcg
    return results_dcg / ideal_dcg if ideal_dcg > 0 else 0.0


def te_rndcg(rels, gains, num_rel):
    """m_Rndcg.c; nan where trec_eval divides 0 by 0."""
    if num_rel == 0:
        return 0.0
    walk, results_dcg, ideal_dcg, total, points, i = IdealWalk(gains), 0.0, 0.0, 0.0, 0, 0
    old = walk.gain
    while i < len(rels) and walk.gain > 0:
        g = get_gain(rels[i], gains)
        walk.step()
        if old != walk.gain:
            if ideal_dcg > 0:
                total, points = total + results_dcg / ideal_dcg, points + 1
            old = walk.gain
        results_dcg += g / math.log2(i + 2)
        if walk.gain > 0:
            ideal_dcg += walk.gain / math.log2(i + 2)
        i += 1
    if i < len(rels):
        while i < len(rels):
            results_dcg += get_gain(rels[i], gains) / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0:
            total, points = total + results_dcg / ideal_dcg, points + 1
    while walk.gain > 0:
        walk.step()
        if old != walk.gain:
            if ideal_dcg > 0:
                total, points = total + results_dcg / ideal_dcg, points + 1
            old = walk.gain
        if walk.gain > 0:
            ideal_dcg += walk.gain / math.log2(i + 2)
        i += 1
    return total / points if points else math.nan


def te_ndcg_rel(rels, gains):
    """m_ndcg_rel.c."""
    walk, results_dcg, ideal_dcg, i = IdealWalk(gains), 0.0, 0.0, 0
    total, num_rel_ret, num_rel = 0.0, 0, 0
    while i < len(rels) and walk.gain > 0:
        results_gain = get_gain(rels[i], gains)
        results_dcg += results_gain / math.log2(i + 2)
        if walk.step() > 0:
            num_rel += 1
            ideal_dcg += walk.gain / math.log2(i + 2)
        if results_gain > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while i < len(rels):
        results_gain = get_gain(rels[i], gains)
        results_dcg += results_gain / math.log2(i + 2)
        if results_gain > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while walk.gain > 0:
        if walk.step() > 0:
            num_rel += 1
            ideal_dcg += walk.gain / math.log2(i + 2)
        i += 1
    if ideal_dcg > 0:
        total += (num_rel - num_rel_ret) * results_dcg / ideal_dcg
    return total / num_rel if total > 0 else 0.0


def te_g(rels, gains):
    """m_G.c."""
    walk, results_g, sum_results, sum_ideal, sum_cost, i = IdealWalk(gains), 0.0, 0.0, 0.0, 0.0, 0
    while i < len(rels) and walk.gain > 0:
        results_gain = get_gain(rels[i], gains)
        sum_results += results_gain
        if walk.step() > 0:
            sum_ideal += walk.gain
        sum_cost += walk.gain if walk.gain >= 1.0 else 1.0
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < len(rels):
        results_gain = get_gain(rels[i], gains)
        sum_results += results_gain
        sum_cost += 1.0
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while walk.gain > 0:
        if walk.step() > 0:
            sum_ideal += walk.gain
        i += 1
    return results_g / sum_ideal if sum_ideal > 0 else 0.0


def te_bing(rels, num_rel):
    """m_binG.c (relevance level 1)."""
    rel_so_far, total = 0, 0.0
    for i, rel in enumerate(rels):
        if rel >= 1:
            rel_so_far += 1
            total += 1.0 / math.log2(3 + i - rel_so_far)
    return total / num_rel if rel_so_far else 0.0


def te_utility(rels, num_rel, p=(1.0, -1.0, 0.0, 0.0), n_docs=0):
    """m_utility.c."""
    rel_ret, ret = sum(1 for rel in rels if rel >= 1), len(rels)
    return (
        p[0] * rel_ret
        + p[1] * (ret - rel_ret)
        + p[2] * (num_rel - rel_ret)
        + p[3] * (n_docs + rel_ret - ret - num_rel)
    )


def te_relstring(rels, n=10):
    """m_relstring.c."""
    out = ""
    for rel in rels[:n]:
        if rel > 9:
            out += ">"
        elif rel >= 0:
            out += str(rel)
        elif rel == NONPOOL:
            out += "-"
        elif rel == UNJUDGED:
            out += "."
        else:
            out += "<"
    return out


def query_of(qrels, run):
    """form_res_rels.c: the ranked relevance list, the judged counts per grade, num_rel."""
    order = sorted(run, key=lambda d: (-run[d], tuple(-ord(c) for c in d)))
    rels = [NONPOOL if d not in qrels else UNJUDGED if qrels[d] < 0 else qrels[d] for d in order]
    levels = {}
    for g in qrels.values():
        if g >= 0:
            levels[g] = levels.get(g, 0) + 1
    return rels, levels, sum(c for g, c in levels.items() if g >= 1)


def te_measure(name, rels, levels, num_rel, params, truncate=True):
    if name in ("ndcg", "dcg"):
        return te_ndcg(rels, setup_gains(levels, params, truncate), name)
    if name == "Rndcg":
        return te_rndcg(rels, setup_gains(levels, params, truncate), num_rel)
    if name == "binG":
        return te_bing(rels, num_rel)
    if name == "ndcg_rel":
        return te_ndcg_rel(rels, setup_gains(levels, params, truncate))
    if name == "G":
        return te_g(rels, setup_gains(levels, params, truncate))
    if name == "utility":
        return te_utility(rels, num_rel, params or (1.0, -1.0, 0.0, 0.0))
    raise ValueError(name)


# ---------------------------------------------------------------------------
# random qrels and runs: grades -1 .. 3, unjudged documents, ties
def problem(seed, n_q=6, n_docs=10, ties=False):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_q):
        docs = [f"d{j:02d}" for j in range(n_docs)]
        judged = rng.choice(docs, size=rng.integers(1, n_docs), replace=False)
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        grades[0] = max(grades[0], 0)  # trec_eval loops on a query judged only negative
        qrels[f"q{q}"] = {str(d): int(g) for d, g in zip(judged, grades, strict=True)}
        ret = rng.choice(docs, size=rng.integers(1, n_docs), replace=False)
        if ties:
            scores = rng.integers(0, 3, size=len(ret)).astype(float)
        else:
            scores = rng.permutation(len(ret)) + 1.0
        run[f"q{q}"] = {str(d): float(s) for d, s in zip(ret, scores, strict=True)}
    return qrels, run


def frames(qrels, run):
    """Long frames as the command line reads TREC files: a negative grade is unjudged."""
    truth = pd.DataFrame(
        [(q, d, g) for q, docs in qrels.items() for d, g in docs.items() if g >= 0],
        columns=["user", "item", "rel"],
    )
    pred = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        columns=["user", "item", "score"],
    )
    return truth, pred


def pytrec(qrels, run, measure):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval._RelevanceEvaluator(
        query_relevance=qrels, measures={measure}, relevance_level=1, judged_docs_only_flag=False
    )
    key = measure.split(".")[0]
    return {q: v[key] for q, v in evaluator.evaluate(run).items()}


def _params(measure):
    name, _, params = measure.partition(".")
    if name == "utility":
        return name, tuple(float(x) for x in params.split(",")) if params else ()
    pairs = [p.split("=") for p in params.split(",")] if params else []
    return name, {int(a): float(b) for a, b in pairs}


MEASURES = [
    "ndcg",
    "ndcg.1=0.5,2=3",  # trec_eval's comparator calls 0.5 and 0 equal
    "ndcg.0=1",
    "ndcg.1=-2,3=5",
    "ndcg.0=2,2=0",
    "ndcg.1=4,2=2.5",
    "ndcg.0=-1,1=3,3=1",
    "Rndcg",
    "Rndcg.1=3,3=1",
    "Rndcg.0=1",
    "Rndcg.1=-1,2=4",
    "Rndcg.2=1",
    "binG",
    "utility",
    "utility.2,-1,-0.5,0",
    "ndcg_rel",
    "ndcg_rel.1=3,3=1",
    "ndcg_rel.0=1",
    "ndcg_rel.1=-2,3=5",
    "G",
    "G.1=3,3=1",
    "G.0=1",
    "G.1=-2,3=5",
    "G.2=0.5",  # trec_eval's comparator calls 0.5 and 0 (and 1) equal
]
# the gain maps whose gains trec_eval's comparator sorts right on these problems
SORTED_RIGHT = [m for m in MEASURES if m not in ("ndcg.1=0.5,2=3", "G.2=0.5")]


def _ours(name, params, r, **kw):
    if name == "ndcg":
        return rm.ndcg(r, gain_values=params, **kw)
    if name == "Rndcg":
        return rm.rndcg(r, gain_values=params, **kw)
    if name == "binG":
        return rm.bin_g(r, **kw)
    if name == "ndcg_rel":
        return rm.ndcg_rel(r, gain_values=params, **kw)
    if name == "G":
        return rm.trec_g(r, gain_values=params, **kw)
    keys = ("rel_ret", "nonrel_ret", "rel_not_ret", "nonrel_not_ret")
    return rm.utility(r, **dict(zip(keys, params or (1.0, -1.0, 0.0, 0.0), strict=True)), **kw)


@pytest.mark.parametrize("ties", [False, True], ids=["no ties", "ties"])
@pytest.mark.parametrize("measure", MEASURES)
def test_transcription_is_pytrec_eval(measure, ties):
    name, params = _params(measure)
    for seed in range(25):
        qrels, run = problem(seed, ties=ties)
        theirs = pytrec(qrels, run, measure)
        for q in run:
            mine = te_measure(name, *query_of(qrels[q], run[q]), params)
            assert theirs[q] == pytest.approx(mine, abs=TOL, nan_ok=True), (seed, q)


@pytest.mark.parametrize("ties", [False, True], ids=["no ties", "ties"])
@pytest.mark.parametrize("measure", MEASURES)
def test_per_query_as_trec_eval(measure, ties):
    """ties='trec_eval' gives trec_eval's value per query (its ideal sorted right)."""
    name, params = _params(measure)
    for seed in range(25):
        qrels, run = problem(seed, ties=ties)
        truth, pred = frames(qrels, run)
        r = rm.from_frames(truth, pred, relevance="rel", users="both", ties="trec_eval")
        got = _ours(name, params, r, per_user=True, no_relevant="zero")
        theirs = pytrec(qrels, run, measure) if measure in SORTED_RIGHT else None
        for q in run:
            want = te_measure(name, *query_of(qrels[q], run[q]), params, truncate=False)
            want = 0.0 if math.isnan(want) else want  # Rndcg's 0 / 0: 0 here
            assert got[q] == pytest.approx(want, abs=TOL), (seed, q)
            if theirs is not None:
                assert got[q] == pytest.approx(theirs[q], abs=TOL, nan_ok=True) or (
                    math.isnan(theirs[q]) and got[q] == 0.0
                ), (seed, q)


def test_trec_eval_comparator_misorders_close_gains():
    """ndcg.1=0.5: trec_eval's ideal may stop at grade 0 (gain 0) before grade 1 (gain 0.5)."""
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    rels, levels, _ = query_of(qrels["q"], run["q"])
    theirs = pytrec(qrels, run, "ndcg.1=0.5,2=3")["q"]
    assert theirs == pytest.approx(te_ndcg(rels, setup_gains(levels, {1: 0.5, 2: 3})), abs=TOL)
    r = rm.from_frames(*frames(qrels, run), relevance="rel", ties="trec_eval")
    ours = rm.ndcg(r, gain_values={1: 0.5, 2: 3})
    right = te_ndcg(rels, setup_gains(levels, {1: 0.5, 2: 3}, truncate=False))
    assert ours == pytest.approx(right, abs=TOL)
    # trec_eval's ideal stops at grade 0 and lacks the grade-1 document: 2 / 3
    assert theirs == pytest.approx(2.0 / 3.0) and ours == pytest.approx(
        2.0 / (3 + 0.5 / math.log2(3))
    )


# ---------------------------------------------------------------------------
# ties='expected': brute force over every order of tied items
def _expected_by_enumeration(codes, scores, extra_levels, fn):
    """Mean of ``fn(rels, levels, num_rel)`` over every arrangement of tied items.

    ``codes``: per ranked item its grade, or NONPOOL (unjudged); ``extra_levels``
    counts the judged items that are not ranked.
    """
    levels = dict(extra_levels)
    for c in codes:
        if c >= 0:
            levels[c] = levels.get(c, 0) + 1
    num_rel = sum(n for g, n in levels.items() if g >= 1)
    values = [fn(list(seq), levels, num_rel) for seq in ref.tie_orderings(codes, scores)]
    return sum(values) / len(values)


CASES_EXPECTED = [
    ("ndcg", {}),
    ("ndcg", {0: 1.0}),
    ("ndcg", {1: -2.0, 3: 5.0}),
    ("ndcg", {0: 2.0, 2: 0.0}),
    ("dcg", {0: -1.0, 2: 4.0}),
    ("Rndcg", {}),
    ("Rndcg", {0: 1.0}),
    ("Rndcg", {1: 3.0, 3: 1.0}),
    ("Rndcg", {1: -1.0, 2: 4.0}),
    ("binG", None),
    ("utility", (2.0, -1.0, -0.5, 0.0)),
    ("ndcg_rel", {}),
    ("ndcg_rel", {0: 1.0}),
    ("ndcg_rel", {1: 3.0, 3: 0.0}),
    ("G", {}),
    ("G", {0: 1.0}),
    ("G", {1: -2.0, 3: 5.0}),
    ("G", {2: 0.5}),
]


def _ours_any(name, params, r, **kw):
    if name == "dcg":
        return rm.dcg(r, gain_values=params, **kw)
    return _ours(name, params, r, **kw)


def _reference(name, params):
    def fn(rels, levels, num_rel):
        value = te_measure(name, rels, levels, num_rel, params, truncate=False)
        return 0.0 if math.isnan(value) else value

    return fn


@pytest.mark.parametrize(("name", "params"), CASES_EXPECTED, ids=[str(c) for c in CASES_EXPECTED])
def test_expected_ties_with_explicit_judgments(name, params):
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(1, 7))
        codes = [int(c) for c in rng.choice([NONPOOL, 0, 1, 2, 3], size=n)]
        scores = [float(s) for s in rng.integers(0, 3, size=n)]
        extra = {int(g): int(rng.integers(0, 2)) for g in (0, 1, 2)}  # judged, not ranked
        truth = [("u", f"i{j}", c) for j, c in enumerate(codes) if c >= 0]
        truth += [("u", f"x{g}{j}", g) for g, m in extra.items() for j in range(m)]
        if not truth:
            continue
        truth = pd.DataFrame(truth, columns=["user", "item", "rel"])
        pred = pd.DataFrame(
            [("u", f"i{j}", s) for j, s in enumerate(scores)], columns=["user", "item", "score"]
        )
        r = rm.from_frames(truth, pred, relevance="rel", ties="expected")
        got = _ours_any(name, params, r, per_user=True, no_relevant="zero")["u"]
        want = _expected_by_enumeration(codes, scores, extra, _reference(name, params))
        assert got == pytest.approx(want, abs=TOL), (codes, scores, extra)


@pytest.mark.parametrize(("name", "params"), CASES_EXPECTED, ids=[str(c) for c in CASES_EXPECTED])
def test_expected_ties_with_complete_judgments(name, params):
    """Score matrices: every item that is not relevant is judged non-relevant (grade 0)."""
    rng = np.random.default_rng(11)
    for _ in range(30):
        n = int(rng.integers(1, 7))
        y_true = rng.choice([0, 0, 1, 2, 3], size=n)
        y_score = rng.integers(0, 3, size=n).astype(float)
        got = _ours_any(name, params, rm.from_scores([y_true], [y_score]), per_user=True)[0]
        codes = [int(c) for c in y_true]
        want = _expected_by_enumeration(codes, list(y_score), {}, _reference(name, params))
        if np.isnan(got):  # left out (no_relevant='skip'): no relevant item, or no ideal
            assert not y_true.any() or params, (y_true, y_score)
            continue
        assert got == pytest.approx(want, abs=TOL), (y_true, y_score)


def test_grade_zero_gain_reads_the_catalogue_of_complete_judgments():
    # one relevant item (grade 1) and three judged non-relevant ones, gain 1 each
    y_true, y_score = [[0, 1, 0, 0]], [[0.4, 0.3, 0.2, 0.1]]
    want = sum(1 / math.log2(i + 2) for i in range(4)) / sum(1 / math.log2(i + 2) for i in range(4))
    assert rm.ndcg(y_true, y_score, gain_values={0: 1}) == pytest.approx(want)
    # ranked lists without a catalogue: the list's other items are the judged ones
    assert rm.ndcg(["a", "b"], {"b": 2}, gain_values={0: 2}) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="n_items"):
        rm.dcg(ranks=[1, 2], k=3, gain_values={0: 1})


def test_gain_values_checked():
    y_true, y_score = [[0, 1, 2]], [[0.3, 0.2, 0.1]]
    for bad, err, match in [
        ([(1, 2)], TypeError, "gain_values must be a mapping"),
        ({"1": 2}, TypeError, "relevance grades, ints"),
        ({True: 2}, TypeError, "relevance grades, ints"),
        ({1.0: 2}, TypeError, "relevance grades, ints"),
        ({-1: 5}, ValueError, "negative"),
        ({1: "2"}, TypeError, "real number"),
        ({1: True}, TypeError, "real number"),
        ({1: float("nan")}, ValueError, "finite"),
    ]:
        for fn in (rm.ndcg, rm.dcg, rm.rndcg):
            with pytest.raises(err, match=match):
                fn(y_true, y_score, gain_values=bad)
    with pytest.raises(ValueError, match="idcg='k'"):
        rm.ndcg(y_true, y_score, k=2, idcg="k", gain_values={1: 2})
    # an empty map and None are trec_eval's default gains (the grades)
    assert rm.ndcg(y_true, y_score, gain_values={}) == rm.ndcg(y_true, y_score)
    assert rm.ndcg(y_true, y_score, gain_values={np.int64(2): np.float32(2)}) == rm.ndcg(
        y_true, y_score
    )


def test_utility_keywords():
    g = [1, 0, 1, 0, 0]  # 2 relevant retrieved, 3 others; |R| = 2
    assert rm.utility(g) == -1.0
    assert rm.utility(["a", "b"], {"a", "c"}, rel_not_ret=-1.0) == pytest.approx(1 - 1 - 1)
    assert rm.utility(g, nonrel_not_ret=1.0, n_docs=10) == pytest.approx(-1 + 5)
    for key in ("rel_ret", "nonrel_ret", "rel_not_ret", "nonrel_not_ret"):
        with pytest.raises(TypeError, match=key):
            rm.utility(g, **{key: "1"})
        with pytest.raises(ValueError, match=key):
            rm.utility(g, **{key: float("inf")})
    with pytest.raises(TypeError, match="n_docs"):
        rm.utility(g, n_docs=1.5)
    with pytest.raises(ValueError, match="n_docs"):
        rm.utility(g, n_docs=-1)


# ---------------------------------------------------------------------------
# relstring
def test_relstring_is_trec_eval():
    for seed in range(10):
        qrels, run = problem(seed, ties=True)
        truth, pred = frames(qrels, run)
        # the negative grades kept: in the pool but not judged
        truth = pd.DataFrame(
            [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
            columns=["user", "item", "rel"],
        )
        r = rm.from_frames(truth, pred, relevance="rel", users="both", ties="trec_eval")
        for n in (3, 10):
            got = rm.relstring(r, k=n)
            assert isinstance(got, pd.Series)
            for q in got.index:
                rels = query_of(qrels[q], run[q])[0]
                # a negative grade (in the pool, not judged): '.' as trec_eval's
                assert got[q] == te_relstring(rels, n), (seed, q)


def test_relstring_forms_and_ties():
    assert rm.relstring([3, 0, 1, 0, 12, 2]) == "3010>2"
    assert rm.relstring([[0, 2, 1]], [[0.1, 0.5, 0.5]]) == ["120"]  # trec_eval: higher column
    assert rm.relstring([[0, 2, 1]], [[0.1, 0.5, 0.5]], ties="pessimistic") == ["120"]
    assert rm.relstring([[0, 1, 2]], [[0.1, 0.5, 0.5]], ties="optimistic") == ["210"]
    assert rm.relstring([[0, 1.5, 2]], [[0.1, 0.5, 0.4]], k=2) == ["<2"]
    with pytest.raises(ValueError, match="one order"):
        rm.relstring([[0, 1]], [[0.5, 0.5]], ties="expected")
    with pytest.raises(ValueError, match="k"):
        rm.relstring([1, 0], k=0)


# ---------------------------------------------------------------------------
# ranx's Burges DCG
def test_burges_is_ranx():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(3)
    qrels, run = {}, {}
    for q in range(20):
        docs = [f"d{j}" for j in range(15)]
        judged = rng.choice(docs, size=rng.integers(1, 10), replace=False)
        qrels[f"q{q}"] = {
            str(d): int(g) for d, g in zip(judged, rng.integers(0, 4, len(judged)), strict=True)
        }
        ret = rng.choice(docs, size=rng.integers(1, 15), replace=False)
        run[f"q{q}"] = {
            str(d): float(s) for d, s in zip(ret, rng.permutation(len(ret)) + 1.0, strict=True)
        }
    truth, pred = frames(qrels, run)
    r = rm.from_frames(truth, pred, relevance="rel", users="both")
    for k in (None, 1, 3, 5, 10):
        for name, fn in (("ndcg_burges", rm.ndcg_burges), ("dcg_burges", rm.dcg_burges)):
            label = name if k is None else f"{name}@{k}"
            theirs = ranx.evaluate(
                ranx.Qrels.from_dict(qrels),
                ranx.Run.from_dict(run),
                label,
                return_mean=False,
                make_comparable=True,
            )
            got = fn(r, k=k, per_user=True, no_relevant="zero")
            np.testing.assert_allclose(
                got[sorted(qrels)].to_numpy(), theirs, atol=TOL, err_msg=label
            )
            same = (rm.ndcg if name == "ndcg_burges" else rm.dcg)(
                r, k=k, gain="exponential", per_user=True, no_relevant="zero"
            )
            np.testing.assert_allclose(got.to_numpy(), same.to_numpy(), atol=0)


# ---------------------------------------------------------------------------
# names: ours, trec_eval's (the command line), ir_measures', ranx's
def test_names():
    assert _registry.parse("ndcg_burges@10") == (_registry.REGISTRY["ndcg_burges"], 10)
    assert _registry.parse("dcg_burges")[0].name == "dcg_burges"
    assert _registry.parse("Rndcg")[0].name == "rndcg"
    assert _registry.parse("binG")[0].name == "bin_g"
    assert _registry.parse("utility")[0].name == "utility"
    spec, k, kw = _registry.parse_with_keywords("nDCG(gains={0: 0, 1: 1, 2: 3})@5")
    assert (spec.name, k, kw) == ("ndcg", 5, {"gain_values": {0: 0.0, 1: 1.0, 2: 3.0}})
    with pytest.raises(ValueError, match="negative gain"):
        _registry.parse_with_keywords("nDCG(gains={1: -1})")
    with pytest.raises(ValueError, match="only recmetrics.evaluate"):
        _registry.parse("Rndcg(gain_values={1: 2})")
    assert trec_measures("ndcg.1=0.5,2=3") == [
        ("ndcg_1=0.5,2=3", "ndcg(gain_values={1: 0.5, 2: 3.0})")
    ]
    assert trec_measures("Rndcg.0=1") == [("Rndcg_0=1", "rndcg(gain_values={0: 1.0})")]
    assert trec_measures("utility.2,-1,0,0")[0][0] == "utility_2,-1,0,0"
    assert trec_measures("binG") == [("binG", "bin_g")]
    with pytest.raises(ValueError, match="twice"):
        trec_measures("ndcg.1=2,1=3")
    with pytest.raises(ValueError, match="negative"):
        rm.evaluate([[1, 0]], [[0.5, 0.4]], [trec_measures("ndcg.-1=5")[0][1]])


def test_evaluate_reads_trec_eval_names_as_trec_eval():
    qrels, run = problem(5, ties=True)
    truth, pred = frames(qrels, run)
    names = ["ndcg.1=3,2=5", "Rndcg.0=1", "utility.2,-1,0,0", "binG"]
    metrics = {label: metric for n in names for label, metric in trec_measures(n)}
    got = rm.evaluate(
        truth,
        pred,
        list(metrics.values()),
        relevance="rel",
        convention="trec_eval",
        per_user=True,
    )
    for name, (label, metric) in zip(names, metrics.items(), strict=True):
        theirs = pytrec(qrels, run, name)
        for q in got.index:
            assert got.loc[q, metric] == pytest.approx(theirs[q], abs=TOL), (label, q)


@pytest.mark.slow
def test_command_line_prints_trec_eval_values(tmp_path):
    qrels, run = problem(9, ties=True)
    qpath, rpath = tmp_path / "qrels", tmp_path / "run"
    qpath.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    rpath.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s} run\n"
            for q, docs in run.items()
            for i, (d, s) in enumerate(docs.items())
        )
    )
    names = [
        "ndcg.1=3,2=5",
        "Rndcg.1=-1,2=4",
        "utility.2,-1,0,0",
        "binG",
        "Rndcg",
        "ndcg_rel.0=1",
        "G.1=3,3=1",
    ]
    res = subprocess.run(
        [sys.executable, "-m", "recmetrics", "evaluate", str(qpath), str(rpath), "-m", *names,
         "--convention", "trec_eval", "--per-user", "--format", "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    got = pd.DataFrame(json.loads(res.stdout)).T
    for name in names:
        theirs = pytrec(qrels, run, name)
        label = name.replace(".", "_", 1)
        for q in got.index:
            assert float(got.loc[q, label]) == pytest.approx(theirs[q], abs=TOL), (name, q)
