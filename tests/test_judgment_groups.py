"""trec_eval's judgment-group measures: map_avgjg, P_avgjg, Rprec_mult_avgjg (-R qrels_jg).

The expected values are trec_eval 10.0's own output (``tests/data/trec_eval/
qrels_jg/``, see its README.md: three queries of trec_eval's test run, judged
by three groups each, one group of query 303 without a relevant document,
tied scores), for the command line and for :func:`recmetrics.evaluate`; the
values under ``ties='expected'`` are checked against every order of the tied
items, and one group per user against the plain measures.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics import cli
from recmetrics._kernels import _dispatch
from recmetrics.io import _trec_fast, read_trec_qrels, read_trec_run

DATA = Path(__file__).parent / "data" / "trec_eval"
JG = DATA / "qrels_jg"

# trec_eval output -> (run, options); trec_eval -R qrels_jg -m qrels_jg -q <options>
CASES = {
    "out.jg.q": ("results.test", []),
    "out.jg.qc": ("results.trunc", ["-c"]),
    "out.jg.qJ": ("results.test", ["-J"]),
    "out.jg.qMl": ("results.test", ["-M50", "-l2"]),
}


def lines_of(text):
    """``{(label, query): line}`` of trec_eval's output."""
    out = {}
    for line in text.splitlines():
        label, query, _ = line.split("\t")
        out[(label.strip(), query)] = line
    return out


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs; results.trunc without the notes after its sixth field (trec_eval ignores them)."""
    trunc = tmp_path_factory.mktemp("jg") / "results.trunc"
    text = (DATA / "results.trunc").read_text()
    trunc.write_text("".join(" ".join(line.split()[:6]) + "\n" for line in text.splitlines()))
    return {"results.test": DATA / "results.test", "results.trunc": trunc}


@pytest.mark.parametrize("name", list(CASES))
def test_the_command_line_prints_trec_eval_s_lines(name, runs):
    run, options = CASES[name]
    theirs = lines_of((JG / name).read_text())
    text = run_cli(
        "evaluate", JG / "qrels_jg.test", runs[run], "-R", "qrels_jg", "-m", "qrels_jg", "-q",
        "--convention", "trec_eval", "--format", "trec", *options,
    )  # fmt: skip
    ours = lines_of(text)
    assert list(ours) == list(theirs)  # every line, in trec_eval's order
    assert ours == theirs  # the same values to trec_eval's 4 decimals
    assert len(ours) == 82


def _binary_values(name):
    """``{(label, query): value}`` of a vendored output (the measures, not runid/num_q)."""
    out = {}
    for (label, query), line in lines_of((JG / name).read_text()).items():
        if label not in ("runid", "num_q"):
            out[(label, query)] = float(line.split("\t")[2])
    return out


def _metric(label):
    """Our registry name of a trec_eval label: P_avgjg_5 -> p_avgjg@5."""
    if label.startswith("P_avgjg_"):
        return f"p_avgjg@{label[8:]}"
    return label.lower()


@pytest.fixture(scope="module")
def frames():
    truth = read_trec_qrels(JG / "qrels_jg.test", judgment_groups=True)
    return truth, read_trec_run(DATA / "results.test")


@pytest.mark.parametrize("name", ["out.jg.q", "out.jg.qJ", "out.jg.qMl"])
def test_evaluate_agrees_with_trec_eval_per_query_and_mean(name, frames):
    truth, run = frames
    theirs = _binary_values(name)
    labels = list(dict.fromkeys(label for label, _ in theirs))
    options = {
        "out.jg.q": {},
        "out.jg.qJ": {"judged_only": True},
        "out.jg.qMl": {"max_depth": 50, "relevance_level": 2},
    }[name]
    metrics = [_metric(label) for label in labels]
    per_user = rm.evaluate(
        truth, run, metrics, convention="trec_eval", per_user=True, score="score", **options
    )
    mean = rm.evaluate(truth, run, metrics, convention="trec_eval", score="score", **options)
    for label, metric in zip(labels, metrics, strict=True):
        for query in ("301", "302", "303"):
            assert per_user.loc[query, metric] == pytest.approx(
                theirs[(label, query)], abs=0.5e-4 + 1e-12
            ), (label, query)
        assert mean[metric] == pytest.approx(theirs[(label, "all")], abs=0.5e-4 + 1e-12), label


def test_the_data_has_what_the_tests_need(frames):
    """Several groups per query, a group without relevant documents, tied scores."""
    truth, run = frames
    assert (truth.groupby("user")["group"].nunique() == 3).all()
    rel = truth.assign(rel=truth["relevance"] > 0).groupby(["user", "group"])["rel"].sum()
    assert rel[("303", "carol")] == 0 and (rel.drop(("303", "carol")) > 0).all()
    assert run.duplicated(["user", "score"]).sum() >= 9
    assert (truth["relevance"] < 0).any()  # in the pool but not judged (-J drops them)


# ----------------------------------------------------------------- by hand
TRUTH = pd.DataFrame(
    {
        "user": ["q1"] * 6 + ["q2"] * 3 + ["q3"],
        "group": ["u1", "u1", "u1", "u2", "u2", "u3", "a", "a", "b", "x"],
        "item": ["d1", "d2", "d3", "d2", "d4", "d1", "d5", "d6", "d7", "d1"],
        "relevance": [1, 0, 1, 1, 2, 0, 1, 1, 1, 0],
    }
)
RUN = pd.DataFrame(
    {
        "user": ["q1"] * 5 + ["q2"] * 2 + ["q3"],
        "item": ["d1", "d2", "d3", "d4", "d9", "d7", "d5", "d1"],
        "score": [0.9, 0.8, 0.8, 0.5, 0.4, 0.9, 0.3, 1.0],
    }
)


def test_hand_example_with_trec_eval_s_tie_order():
    """trec_eval 10.0 on these frames (qrels_jg): map_avgjg 0.4722, 0.6250, 0.0000.

    q1 ranks d1, then the tie d3 before d2 (document ids in decreasing order),
    d4, d9: group u1 (d1, d3 relevant) has AP 1, group u2 (d2, d4) AP
    (1/3 + 2/4) / 2, group u3 none: 0, and the mean is 0.4722.
    """
    per_user = rm.map_avgjg(TRUTH, RUN, ties="trec_eval", no_relevant="zero", per_user=True)
    assert per_user.to_dict() == pytest.approx(
        {"q1": (1 + (1 / 3 + 2 / 4) / 2 + 0) / 3, "q2": (1 / 4 + 1) / 2, "q3": 0.0}
    )
    p2 = rm.p_avgjg(TRUTH, RUN, k=2, ties="trec_eval", no_relevant="zero", per_user=True)
    assert p2.round(4).to_dict() == {"q1": 0.3333, "q2": 0.5, "q3": 0.0}
    r = rm.evaluate(TRUTH, RUN, ["rprec_mult_avgjg_1.20"], convention="trec_eval", per_user=True)
    assert r["rprec_mult_avgjg_1.20"].round(4).tolist() == [0.3333, 0.4167, 0.0]


def test_a_user_without_relevant_items_in_any_group_follows_no_relevant():
    assert math.isnan(rm.map_avgjg(TRUTH, RUN, per_user=True)["q3"])
    assert rm.map_avgjg(TRUTH, RUN, no_relevant="zero", per_user=True)["q3"] == 0.0
    assert rm.map_avgjg(TRUTH, RUN, no_relevant="one", per_user=True)["q3"] == 1.0
    with pytest.raises(ValueError, match="'q3' has no relevant item in any judgment group"):
        rm.map_avgjg(TRUTH, RUN, no_relevant="raise")
    # the mean skips it by default, but a group without relevant items beside others counts 0
    expected = ((1 + (1 / 3 + 2 / 4) / 2 + 0) / 3 + (1 / 4 + 1) / 2) / 2
    assert rm.map_avgjg(TRUTH, RUN, ties="trec_eval") == pytest.approx(expected)
    assert rm.evaluate(TRUTH, RUN, ["map_avgjg"], ties="trec_eval")["map_avgjg"] == (
        rm.map_avgjg(TRUTH, RUN, ties="trec_eval")
    )


def test_one_group_per_user_is_the_plain_measure():
    truth = TRUTH[TRUTH["group"].isin(["u1", "a", "x"])]
    plain = truth.drop(columns="group")
    pairs = [
        (rm.map_avgjg, rm.average_precision, {}),
        (rm.p_avgjg, rm.precision, {"k": 3}),
        (rm.rprec_mult_avgjg, rm.rprec_mult, {"multiple": 1.4}),
    ]
    for avgjg, base, kw in pairs:
        for ties in ("expected", "trec_eval", "optimistic"):
            for t in (truth, plain):  # a column 'group' with one group, or none
                got = avgjg(t, RUN, ties=ties, per_user=True, no_relevant="zero", **kw)
                want = base(plain, RUN, ties=ties, per_user=True, no_relevant="zero", **kw)
                pd.testing.assert_series_equal(got, want, check_names=False, atol=1e-15)
    # and on the other input forms (no groups there)
    assert rm.map_avgjg([0, 1, 1]) == rm.average_precision([0, 1, 1])
    assert rm.p_avgjg([[1, 0, 1]], [[0.2, 0.5, 0.5]], k=2) == rm.precision(
        [[1, 0, 1]], [[0.2, 0.5, 0.5]], k=2
    )
    names = ["map_avgjg", "map", "p_avgjg@2", "precision@2"]
    table = rm.evaluate(plain, RUN, names, per_user=True)
    np.testing.assert_array_equal(table["map_avgjg"], table["map"])
    np.testing.assert_array_equal(table["p_avgjg@2"], table["precision@2"])


def test_evaluate_mixes_plain_and_group_metrics():
    """The plain metrics read the frame as it is (one more column); the groups' metrics average."""
    truth = TRUTH[TRUTH["user"] != "q1"]  # no document judged twice
    got = rm.evaluate(truth, RUN, ["map", "map_avgjg"], per_user=True, no_relevant="zero")
    assert got["map"].to_dict() == pytest.approx({"q2": 2 / 3, "q3": 0.0})  # d5, d6, d7
    assert got["map_avgjg"].to_dict() == pytest.approx({"q2": (1 / 4 + 1) / 2, "q3": 0.0})


# ----------------------------------------------------------------- ties: brute force
def _ap(gains, n_rel):
    hits, total = 0, 0.0
    for i, g in enumerate(gains, start=1):
        if g:
            hits += 1
            total += hits / i
    return total / n_rel if n_rel else 0.0


def _p(gains, k):
    return sum(gains[:k]) / k


def _rprec(gains, n_rel, multiple):
    cut = int(multiple * n_rel + 0.9)
    return sum(gains[:cut]) / cut if n_rel and cut else 0.0


def _orders(scores):
    """Every order of the items (positions) that sorts the scores decreasingly."""
    levels = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == v] for v in levels]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for perm in perms for i in perm]


def _brute(truth, run, measure):
    """The expectation over every tie order of the mean over groups, per user."""
    out = {}
    for user, rows in run.groupby("user", sort=True):
        items, scores = rows["item"].tolist(), rows["score"].tolist()
        mine = truth[truth["user"] == user]
        groups = [g for _, g in mine.groupby("group")]
        values = []
        for order in _orders(scores):
            ranked = [items[i] for i in order]
            per_group = []
            for g in groups:
                rel = set(g.loc[g["relevance"] > 0, "item"])
                per_group.append(measure([int(x in rel) for x in ranked], len(rel)))
            values.append(sum(per_group) / len(per_group))
        out[user] = sum(values) / len(values)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_expected_ties_are_the_mean_over_every_tie_order(seed):
    rng = np.random.default_rng(seed)
    items = [f"d{i}" for i in range(7)]
    truth_rows, run_rows = [], []
    for user in ("a", "b", "c"):
        for item in rng.choice(items, size=6, replace=False):
            run_rows.append((user, item, float(rng.integers(0, 3))))  # many ties
        for group in ("g1", "g2", "g3")[: rng.integers(1, 4)]:
            for item in rng.choice(items, size=3, replace=False):
                truth_rows.append((user, group, item, int(rng.integers(0, 3))))
        truth_rows.append((user, "g1", "d6", 1))  # every user has a relevant item
    truth = pd.DataFrame(truth_rows, columns=["user", "group", "item", "relevance"])
    truth = truth.drop_duplicates(["user", "group", "item"])
    run = pd.DataFrame(run_rows, columns=["user", "item", "score"])
    cases = [
        (rm.map_avgjg, {}, _ap),
        (rm.p_avgjg, {"k": 3}, lambda g, n: _p(g, 3)),
        (rm.rprec_mult_avgjg, {"multiple": 1.6}, lambda g, n: _rprec(g, n, 1.6)),
        (rm.evaluate, {"metrics": ["rprec_mult_avgjg_0.60"]}, lambda g, n: _rprec(g, n, 0.6)),
    ]
    for fn, kw, measure in cases:
        got = fn(truth, run, ties="expected", per_user=True, no_relevant="zero", **kw)
        got = got.iloc[:, 0] if isinstance(got, pd.DataFrame) else got
        assert got.to_dict() == pytest.approx(_brute(truth, run, measure), abs=1e-12), fn


# ----------------------------------------------------------------- reading qrels_jg
QRELS_JG = "q1 u1 d1 1\nq1 u2 d1 0\nq1 u1 d2 2\nq2 u1 d1 -1\n"


@pytest.mark.parametrize("fast", [False, True])
def test_read_trec_qrels_keeps_the_groups(tmp_path, monkeypatch, fast):
    path = tmp_path / "qrels_jg"
    path.write_text(QRELS_JG)
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)
    if not fast:
        monkeypatch.setattr(_trec_fast, "read_fast", lambda *args: None)
    elif not _trec_fast.HAVE_NUMBA:
        pytest.skip("the fast path needs numba")
    got = read_trec_qrels(path, judgment_groups=True)
    assert list(got.columns) == ["user", "group", "item", "relevance"]
    assert got["group"].tolist() == ["u1", "u2", "u1", "u1"]
    assert got["relevance"].tolist() == [1, 0, 2, -1]
    assert str(got["group"].dtype) == str(got["user"].dtype)
    # the plain format refuses the document judged by two groups
    with pytest.raises(ValueError, match="line.* 1 and 2: document 'd1' is judged twice"):
        read_trec_qrels(path)
    path.write_text(QRELS_JG + "q1 u2 d1 1\n")  # twice in one group
    with pytest.raises(ValueError, match="lines 2 and 5: .* twice for query 'q1' in judgment"):
        read_trec_qrels(path, judgment_groups=True)


def test_read_trec_qrels_plain_frame_is_unchanged(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    assert list(read_trec_qrels(path).columns) == ["user", "item", "relevance"]
    assert list(read_trec_qrels(path, judgment_groups=False).columns) == [
        "user",
        "item",
        "relevance",
    ]


# ----------------------------------------------------------------- bad input
def test_bad_input():
    with pytest.raises(TypeError, match="judgment_groups"):
        read_trec_qrels(JG / "qrels_jg.test", judgment_groups="yes")
    floats = TRUTH.assign(group=np.arange(len(TRUTH), dtype=np.float64))
    with pytest.raises(TypeError, match="judgment-group column 'group' .* strings or integers"):
        rm.map_avgjg(floats, RUN)
    with pytest.raises(TypeError, match="judgment-group column 'group'"):
        rm.evaluate(floats, RUN, ["map_avgjg"])
    missing = TRUTH.assign(group=TRUTH["group"].where(TRUTH.index != 3, None))
    with pytest.raises(ValueError, match="got (None|nan) in row 3"):
        rm.p_avgjg(missing, RUN, k=2)
    with pytest.raises(ValueError, match="no_relevant"):
        rm.map_avgjg(TRUTH, RUN, no_relevant="never")
    with pytest.raises(ValueError, match="multiple"):
        rm.rprec_mult_avgjg(TRUTH, RUN, multiple=-1.0)
    with pytest.raises(ValueError, match="predictions has no column 'item'"):
        rm.map_avgjg(TRUTH, RUN.rename(columns={"item": "doc"}))
    with pytest.raises(ValueError, match="has no cutoff"):
        rm.evaluate(TRUTH, RUN, ["map_avgjg@5"])


def test_the_command_line_names(tmp_path):
    from recmetrics.cli._trec_names import trec_measures

    assert trec_measures("map_avgjg") == [("map_avgjg", "map_avgjg")]
    assert trec_measures("P_avgjg.10,5") == [
        ("P_avgjg_10", "p_avgjg@10"),
        ("P_avgjg_5", "p_avgjg@5"),
    ]
    assert [label for label, _ in trec_measures("Rprec_mult_avgjg.0.2")] == [
        "Rprec_mult_avgjg_0.20"
    ]
    with pytest.raises(ValueError, match="cutoffs must be integers >= 1"):
        trec_measures("P_avgjg.0")
    with pytest.raises(ValueError, match="multiples of R"):
        trec_measures("Rprec_mult_avgjg.0.3")


def test_the_functions_agree_with_evaluate_and_trec_eval(frames):
    """rm.map_avgjg / rm.p_avgjg on the frames, with -J, against trec_eval's -J output."""
    truth, run = frames
    run = run[["user", "item", "score"]]
    theirs = _binary_values("out.jg.qJ")
    kw = dict(ties="trec_eval", no_relevant="zero", per_user=True, judged_only=True)
    got = {
        "map_avgjg": rm.map_avgjg(truth, run, **kw),
        "P_avgjg_10": rm.p_avgjg(truth, run, k=10, **kw),
        "Rprec_mult_avgjg_0.60": rm.rprec_mult_avgjg(truth, run, multiple=0.6, **kw),
    }
    for label, values in got.items():
        for query, value in values.items():
            assert value == pytest.approx(theirs[(label, query)], abs=0.5e-4 + 1e-12)
    table = rm.evaluate(truth, run, ["map_avgjg"], convention="trec_eval", judged_only=True,
                        per_user=True)  # fmt: skip
    np.testing.assert_array_equal(table["map_avgjg"], got["map_avgjg"])
