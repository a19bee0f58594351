"""Rank-biased precision and its residual; ir_measures' measure strings.

RBP and its residual are checked against the plain references of
``tests/reference.py`` by brute force over every order of tied items (long
frames with relevant, judged non-relevant and unjudged items, under every tie
policy), against a transcription of ranx's ``_rank_biased_precision`` and
against ranx itself (``from ranx import Qrels, Run, evaluate``) on random runs
without ties. The names: ir_measures' spellings read by ``rm.evaluate`` and
the command line, and the clear errors for the parameters not supported yet.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import reference as ref

import recmetrics as rm
from recmetrics.metrics import _registry
from recmetrics.ranking import TIE_POLICIES

TOL = 1e-12
CUTOFFS = (None, 1, 2, 3, 5, 10)


# --------------------------------------------------------------------------
# brute force: long frames with unjudged items, every order of the tied items
def _frames(seed, n_users=5, n_items=7, n_values=3):
    """Truth with grades 0 (judged non-relevant), 1, 2; runs with unjudged items and ties."""
    rng = np.random.default_rng(seed)
    truth, run = [], []
    for u in range(n_users):
        judged = rng.permutation(n_items)[: rng.integers(1, n_items + 1)]
        grades = rng.integers(0, 3, judged.size)
        if u % 2 == 0 and not grades.any():
            grades[0] = 1
        truth += [(f"u{u}", f"d{i:03d}", int(g)) for i, g in zip(judged, grades, strict=True)]
        listed = rng.permutation(n_items)[: rng.integers(1, n_items + 1)]
        scores = rng.integers(0, n_values, listed.size) / 4.0
        run += [(f"u{u}", f"d{i:03d}", float(s)) for i, s in zip(listed, scores, strict=True)]
    truth = pd.DataFrame(truth, columns=["user", "item", "rel"])
    run = pd.DataFrame(run, columns=["user", "item", "score"])
    return truth, run


def _orders(rows, ties):
    """Every order of one user's (item, score, grade) rows that the tie policy allows."""
    rows = sorted(rows, key=lambda r: -r[1])
    groups = [list(g) for _, g in itertools.groupby(rows, key=lambda r: r[1])]
    if ties == "trec_eval":
        yield [r for g in groups for r in sorted(g, key=lambda r: r[0], reverse=True)]
        return
    options = []
    for g in groups:
        if ties == "expected":
            options.append(list(itertools.permutations(g)))
            continue
        # the relevant items first, higher gain first (optimistic), or last, lower gain
        # first (pessimistic); the others in every order
        rel = sorted((r for r in g if r[2] is not None and r[2] > 0), key=lambda r: -r[2])
        other = [r for r in g if not (r[2] is not None and r[2] > 0)]
        if ties == "optimistic":
            options.append([tuple(rel) + p for p in itertools.permutations(other)])
        else:
            options.append([p + tuple(rel[::-1]) for p in itertools.permutations(other)])
    for combo in itertools.product(*options):
        yield [r for g in combo for r in g]


def _brute_force(truth, run, uid, ties, fn, **kw):
    grade = dict(truth.loc[truth.user == uid, ["item", "rel"]].itertuples(index=False))
    rows = [
        (i, s, grade.get(i))  # None: unjudged
        for i, s in run.loc[run.user == uid, ["item", "score"]].itertuples(index=False)
    ]
    rel_gains = [g for g in grade.values() if g > 0]
    values = [
        fn([g for (_, _, g) in order], rel_gains=rel_gains, **kw) for order in _orders(rows, ties)
    ]
    return float(np.mean(values))


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(6))
def test_frames_equal_brute_force(ties, seed):
    truth, run = _frames(seed)
    r = rm.from_frames(truth, run, relevance="rel", ties=ties)
    assert r.judgments == "explicit"
    for k in CUTOFFS:
        for p in (0.5, 0.8, 0.95):
            got = {
                "rbp": rm.rbp(r, k=k, p=p, no_relevant="zero", per_user=True),
                "linear": rm.rbp(r, k=k, p=p, gain="linear", no_relevant="zero", per_user=True),
                "res": rm.rbp_residual(r, k=k, p=p, no_relevant="zero", per_user=True),
            }
            for uid in r.user_ids:
                want = {
                    "rbp": _brute_force(truth, run, uid, ties, ref.rbp, k=k, p=p),
                    "linear": _brute_force(truth, run, uid, ties, ref.rbp, k=k, p=p, gain="linear"),
                    "res": _brute_force(truth, run, uid, ties, ref.rbp_residual, k=k, p=p),
                }
                for key in got:
                    assert got[key][uid] == pytest.approx(want[key], abs=TOL), (key, uid, k, p)


@pytest.mark.parametrize("seed", range(4))
def test_residual_brackets_every_completion(seed):
    """RBP <= RBP of any completion of the judgments <= RBP + residual (binary gains)."""
    truth, run = _frames(seed)
    rng = np.random.default_rng(seed)
    r = rm.from_frames(truth, run, relevance="rel", ties="trec_eval")
    low = rm.rbp(r, k=5, per_user=True, no_relevant="zero")
    high = low + rm.rbp_residual(r, k=5, per_user=True, no_relevant="zero")
    for uid in r.user_ids:
        grade = dict(truth.loc[truth.user == uid, ["item", "rel"]].itertuples(index=False))
        rows = list(run.loc[run.user == uid, ["item", "score"]].itertuples(index=False))
        order = next(_orders([(i, s, grade.get(i)) for i, s in rows], "trec_eval"))
        if not any(g is not None and g > 0 for (_, _, g) in order):
            continue
        unjudged = [j for j, (_, _, g) in enumerate(order) if g is None]
        for _ in range(20):  # random completions, and the two extremes
            filled = [g for (_, _, g) in order]
            for j in unjudged:
                filled[j] = int(rng.integers(0, 2))
            assert low[uid] - TOL <= ref.rbp(filled, k=5) <= high[uid] + TOL
        best = [1 if g is None else g for (_, _, g) in order] + [1] * 5
        assert ref.rbp(best, k=5) == pytest.approx(high[uid], abs=TOL)


def test_score_matrices_with_ties_equal_brute_force():
    rng = np.random.default_rng(3)
    yt = rng.integers(0, 3, (20, 6))
    yt[:, 0] = np.maximum(yt[:, 0], 1)
    ys = rng.integers(0, 3, (20, 6)).astype(float)
    for k in CUTOFFS:
        got = rm.rbp(yt, ys, k=k, p=0.7, gain="linear", per_user=True)
        res = rm.rbp_residual(yt, ys, k=k, p=0.7, per_user=True)
        for u in range(yt.shape[0]):
            want = ref.from_scores(ref.rbp, yt[u], ys[u], "expected", k=k, p=0.7, gain="linear")
            assert got[u] == pytest.approx(want, abs=TOL)
            # complete judgments: only the end of the list is left
            assert res[u] == pytest.approx(0.7 ** min(k or 6, 6) - (0.7**k if k else 0.0))


def test_complete_judgments_full_list_has_no_residual():
    """A full list cut at k <= n leaves nothing: exactly 0, not a rounding error below it."""
    for k in (1, 2, 3):
        assert rm.rbp_residual([[1, 0, 1]], [[0.3, 0.3, 0.1]], k=k) == 0.0
        assert rm.rbp_residual([1, 0, 1], k=k, p=0.9) == 0.0


def test_persistence_is_validated():
    for bad in (0, 1, 1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match="p must be a number in"):
            rm.rbp([1, 0], p=bad)
        with pytest.raises(ValueError, match="p must be a number in"):
            rm.rbp_residual([1, 0], p=bad)
    for bad in ("0.8", True, None):
        with pytest.raises(TypeError, match="p must be a number in"):
            rm.rbp([1, 0], p=bad)
    with pytest.raises(ValueError, match="gain must be one of"):
        rm.rbp([1, 0], gain="exponential")


def test_closed_form_equals_the_sum_deep_in_a_tie():
    """(p^lo - p^hi) / size is (1 - p) times the mean of p^(i-1) over the group's positions."""
    n = 300
    got = rm.rbp([[1] + [0] * (n - 1)], [[0.5] * n], p=0.99)
    want = (1 - 0.99) * np.mean(0.99 ** np.arange(n))
    assert got == pytest.approx(want, rel=1e-12)


# --------------------------------------------------------------------------
# ranx: a transcription of _rank_biased_precision, and ranx itself
def _ranx_rbp(qrels, run, p, rel_lvl=1):
    """ranx/metrics/rank_biased_precision.py: _rank_biased_precision, transcribed.

    ``qrels``: (doc, grade) rows; ``run``: doc ids in ranked order. The gain
    of a retrieved document is its grade (qrels rows with grade >= rel_lvl),
    summed as ``(1 - p) sum_i g_i p^i`` over the whole run (i from 0).
    """
    qrels = [(d, g) for d, g in qrels if g >= rel_lvl]
    if len(qrels) == 0:
        return 0.0
    grade = dict(qrels)
    weighted_hit_list = np.array([grade.get(d, 0.0) for d in run], dtype=np.float64)
    p_values = p ** np.arange(len(weighted_hit_list))
    return (1 - p) * float(np.sum(weighted_hit_list * p_values))


def _random_run(seed, n_users=30):
    """Frames without ties (distinct scores), graded qrels with judged non-relevant rows."""
    rng = np.random.default_rng(seed)
    truth, run = [], []
    for u in range(n_users):
        n = int(rng.integers(1, 25))
        docs = rng.permutation(40)
        for d in docs[: rng.integers(1, 15)]:
            truth.append((f"q{u}", f"d{d}", int(rng.integers(0, 4))))
        scores = rng.permutation(n) + rng.random()
        run += [(f"q{u}", f"d{d}", float(s)) for d, s in zip(docs[5 : 5 + n], scores, strict=False)]
        run += [(f"q{u}", f"d{docs[0]}", float(n + 1.5))]  # a judged document on top
    truth = pd.DataFrame(truth, columns=["user", "item", "rel"])
    run = pd.DataFrame(run, columns=["user", "item", "score"]).drop_duplicates(["user", "item"])
    return truth, run


@pytest.mark.parametrize("seed", range(3))
def test_transcription_of_ranx(seed):
    truth, run = _random_run(seed)
    r = rm.from_frames(truth, run, relevance="rel")
    for p in (0.5, 0.8, 0.95):
        linear = rm.rbp(r, p=p, gain="linear", per_user=True)
        binary = rm.rbp(r, p=p, per_user=True)
        for uid, rows in run.groupby("user"):
            qrels = list(truth.loc[truth.user == uid, ["item", "rel"]].itertuples(index=False))
            ranked = rows.sort_values("score", ascending=False)["item"].tolist()
            want = _ranx_rbp(qrels, ranked, p)
            got = linear.get(uid, np.nan)
            if not any(g > 0 for _, g in qrels):  # no relevant: ranx 0, recmetrics skips
                assert np.isnan(got) and want == 0.0
                continue
            assert got == pytest.approx(want, abs=TOL)
            binary_qrels = [(d, int(g > 0)) for d, g in qrels]
            assert binary[uid] == pytest.approx(_ranx_rbp(binary_qrels, ranked, p), abs=TOL)


@pytest.mark.parametrize("seed", range(3))
def test_ranx_itself(seed):
    ranx = pytest.importorskip("ranx")
    truth, run = _random_run(seed)
    qrels = {
        q: {d: int(g) for d, g in zip(t.item, t.rel, strict=True)} for q, t in truth.groupby("user")
    }
    results = {q: dict(zip(r.item, r.score, strict=True)) for q, r in run.groupby("user")}
    qrels = {q: v for q, v in qrels.items() if q in results}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety warnings
        for name, p in (("rbp.8", 0.8), ("rbp.95", 0.95), ("rbp.5", 0.5)):
            want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(results), name, return_mean=False)
            r = rm.from_frames(truth, run, relevance="rel")
            got = rm.rbp(r, p=p, gain="linear", per_user=True)
            got = got.reindex(sorted(qrels)).fillna(0.0).to_numpy()  # ranx: 0 without relevant
            np.testing.assert_allclose(got, want, atol=1e-9)
            # ranx's spelling as a name of rm.evaluate (binary gain: ranx on 0/1 qrels)
            binary = {q: {d: int(g > 0) for d, g in v.items()} for q, v in qrels.items()}
            want = ranx.evaluate(ranx.Qrels(binary), ranx.Run(results), name, return_mean=False)
            table = rm.evaluate(truth, run, [name], relevance="rel", per_user=True)
            got = table[name].reindex(sorted(qrels)).fillna(0.0).to_numpy()
            np.testing.assert_allclose(got, want, atol=1e-9)


# --------------------------------------------------------------------------
# ir_measures' measure strings
IR_MEASURES = {
    "nDCG@10": ("ndcg", 10, {}),
    "P@5": ("precision", 5, {}),
    "R@10": ("recall", 10, {}),
    "AP": ("map", None, {}),
    "AP@10": ("map", 10, {}),
    "RR": ("mrr", None, {}),
    "RR@10": ("mrr", 10, {}),
    "Rprec": ("rprec", None, {}),
    "Bpref": ("bpref", None, {}),
    "Judged@10": ("judged", 10, {}),
    "Success@10": ("hr", 10, {}),
    "RBP": ("rbp", None, {}),
    "RBP(p=0.8)": ("rbp", None, {"p": 0.8}),
    "RBP(p=0.95)@20": ("rbp", 20, {"p": 0.95}),
    "RBP(rel=1, p=0.5)": ("rbp", None, {"gain": "binary", "p": 0.5}),
    "rbp.95": ("rbp", None, {"p": 0.95}),
    "rbp_residual(p=0.9)@5": ("rbp_residual", 5, {"p": 0.9}),
}


@pytest.mark.parametrize("name", list(IR_MEASURES))
def test_ir_measures_names(name):
    spec, k, keywords = _registry.parse_with_keywords(name)
    assert (spec.name, k, keywords) == IR_MEASURES[name]
    if not keywords:
        assert _registry.parse(name) == (spec, k)


@pytest.mark.parametrize(
    "name, what",
    [
        ("P(rel=2)@5", "rel=2 are not supported yet for precision"),
        ("AP(judged_only=True)", "judged_only=True are not supported yet for map"),
        ("nDCG(dcg='exp-log2')@10", "dcg='exp-log2' are not supported yet for ndcg"),
        ("RBP(rel=2)", "rel=2 is not supported for rbp"),
        ("RBP(p=1.2)", "p=1.2 is not supported for rbp"),
        ("RBP(T=1)", "T=1 are not supported yet for rbp"),
        ("RBP(0.8)", "cannot read the parameter '0.8'"),
        ("RBP(p=0.8, p=0.9)", "sets p twice"),
        ("Bpref(rel=1)", "rel=1 are not supported yet for bpref"),
        ("NERR12(p=0.8)", "unknown metric"),
    ],
)
def test_unsupported_parameters_raise_naming_them(name, what):
    with pytest.raises(ValueError, match=what.replace("(", r"\(").replace(")", r"\)")):
        _registry.parse_with_keywords(name)
    with pytest.raises(ValueError):
        rm.evaluate([[1, 0]], [[0.5, 0.2]], [name])


def test_parse_refuses_keywords_it_cannot_pass_on():
    with pytest.raises(ValueError, match="only recmetrics.evaluate and the command line"):
        _registry.parse("RBP(p=0.9)")
    with pytest.raises(ValueError, match="only recmetrics.evaluate and the command line"):
        rm.metric_function("RBP(p=0.9)")


def test_evaluate_passes_the_keywords_of_each_name():
    truth, run = _frames(1)
    names = ["RBP(p=0.9)", "rbp", "RBP(p=0.5)@3", "rbp.95", "rbp_residual(p=0.9)@5", "nDCG@10"]
    table = rm.evaluate(truth, run, names, relevance="rel", per_user=True)
    r = rm.from_frames(truth, run, relevance="rel")
    expected = {
        "RBP(p=0.9)": rm.rbp(r, p=0.9, per_user=True),
        "rbp": rm.rbp(r, per_user=True),
        "RBP(p=0.5)@3": rm.rbp(r, p=0.5, k=3, per_user=True),
        "rbp.95": rm.rbp(r, p=0.95, per_user=True),
        "rbp_residual(p=0.9)@5": rm.rbp_residual(r, p=0.9, k=5, per_user=True),
        "nDCG@10": rm.ndcg(r, k=10, per_user=True),
    }
    for name, want in expected.items():
        pd.testing.assert_series_equal(table[name], want, check_names=False)
    assert table["RBP(p=0.9)"].ne(table["rbp"]).any()


def test_cli_reads_ir_measures_names(tmp_path):
    from test_io_cli import in_process

    truth, run = _frames(2)
    rm.io.write_trec_qrels(truth.rename(columns={"rel": "relevance"}), tmp_path / "q.txt")
    rm.io.write_trec_run(run, tmp_path / "r.txt")
    out = in_process(
        "evaluate", tmp_path / "q.txt", tmp_path / "r.txt", "-m", "RBP(p=0.9)", "RBP(p=0.5)@3",
        "nDCG@10", "Success@10", "--per-user", "--format", "csv",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    table = pd.read_csv(pd.io.common.StringIO(out.stdout))
    assert {"RBP(p=0.9)", "RBP(p=0.5)@3", "nDCG@10", "Success@10"} <= set(table.columns)
    bad = in_process("evaluate", tmp_path / "q.txt", tmp_path / "r.txt", "-m", "P(rel=2)@5")
    assert bad.returncode == 2 and "rel=2 are not supported yet for precision" in bad.stderr
