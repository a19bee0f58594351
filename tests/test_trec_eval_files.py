"""trec_eval's own test files, through ``recmetrics evaluate ... --convention trec_eval``.

The inputs and the expected outputs are trec_eval 10.0's ``test/`` folder,
unchanged (``tests/data/trec_eval/``, see its README.md); each output was
printed by the command of trec_eval's Makefile (target ``quicktest``), or, for
``-J`` and ``-M`` with ``-l`` (which trec_eval's tests lack), by trec_eval
10.0 built from the same commit (``generated/``), and is
compared here, line by line, with ``recmetrics evaluate`` run in this process
with the same options (``-m all_trec -q -c -M100 -l2 -Z ...``) and
``--format trec``: every (measure, query) line that both print must be the
same line, value to the printed digits. trec_eval's measures that recmetrics
does not compute yet are listed in :data:`MISSING` (the test fails when one
lands, so that the list shrinks); the lines where trec_eval 10.0 differs from
9.0.8 (pytrec_eval, whose numbers the ``trec_eval`` convention reproduces) are
listed in :data:`TREC_EVAL_10_CHANGES`, with the reason, and checked against
pytrec_eval instead.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from recmetrics import cli
from recmetrics.cli._trec_groups import TREC_ORDER

DATA = Path(__file__).parent / "data" / "trec_eval"

# trec_eval's measures (its -m names) that recmetrics does not compute yet:
# the command line leaves them out of -m all_trec (with a note on stderr).
# None since relstring (per query, a string) and trec_eval 10.0's rbp,
# rbp_resid and unj (not in pytrec_eval's 9.0.8: outside the trec_eval preset)
MISSING: set[str] = set()

# Where trec_eval 10.0 prints another value than 9.0.8 (pytrec_eval): its
# CHANGELOG's "Breaking fix: change uses of int truncation to round/floor"
# (commit 2a9e214, m_iprec_at_recall.c): the number of documents for a recall
# level x is lround(x R) instead of (long)(x R + 0.9). recmetrics reproduces
# 9.0.8 (pytrec_eval), checked in test_options_and_iprec_agree_with_pytrec_eval; 11pt_avg
# is their mean.
TREC_EVAL_10_CHANGES = {"iprec_at_recall", "11pt_avg"}

# qrels.rel_level has grade -1 lines: trec_eval's "in the pool but not judged"
# (form_res_rels.c, RELVALUE_UNJUDGED), which infAP (m_infap.c) counts apart
# from the documents not in the pool, and -J drops: the command line passes
# them on, and out.test.aql, out.test.aqJl and out.test.aqMl match line for line.

# file -> (qrels, run, options of trec_eval's Makefile, quicktest)
CASES = {
    "out.test": ("qrels.test", "results.test", ["-m", "official"]),  # no -m: official
    "out.test.a": ("qrels.test", "results.test", ["-m", "all_trec"]),
    "out.test.aq": ("qrels.test", "results.test", ["-m", "all_trec", "-q"]),
    "out.test.aqc": ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c"]),
    "out.test.aqcM": ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c", "-M100"]),
    "out.test.aql": (
        "qrels.rel_level",
        "results.test",
        ["-m", "all_trec", "-m", "relstring.20", "-q", "-l2"],
    ),
    "out.test.aqZ": (
        "qrels.test",
        "results.test",
        ["-q", "-m", "all_trec", "-Z", str(DATA / "zscores_file")],
    ),
    # printed by trec_eval 10.0 built from the same commit (see the README)
    "generated/out.test.aqJ": ("qrels.test", "results.test", ["-m", "all_trec", "-q", "-J"]),
    "generated/out.test.aqJl": (
        "qrels.rel_level",
        "results.test",
        ["-m", "all_trec", "-q", "-J", "-l2"],
    ),
    "generated/out.test.aqMl": (
        "qrels.rel_level",
        "results.test",
        ["-m", "all_trec", "-q", "-M50", "-l2"],
    ),
}


def family(label, z=False):
    """trec_eval's measure (its -m name) of a printed label: ``P_5`` -> ``P``."""
    if z and label.startswith("Z"):
        label = label[1:]
    names = [n for n in TREC_ORDER if label == n or label.startswith(n + "_")]
    assert names, label
    return max(names, key=len)


def lines_of(text):
    """``{(label, query): line}`` of trec_eval's output."""
    out = {}
    for line in text.splitlines():
        label, query, _ = line.split("\t")
        key = (label.strip(), query)
        assert key not in out, f"printed twice: {line!r}"
        out[key] = line
    return out


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    assert code == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def run_files(tmp_path_factory):
    """The runs, with results.trunc's fields after the tag cut off.

    trec_eval ignores what follows the sixth field (get_trec_results.c), and
    results.trunc holds such notes on a few lines; recmetrics refuses a line
    with more than six fields (tests/test_cli_errors.py, 'seven.txt'), so the
    copy given to it has them cut.
    """
    d = tmp_path_factory.mktemp("trec_eval")
    trunc = d / "results.trunc"
    text = (DATA / "results.trunc").read_text()
    trunc.write_text("".join(" ".join(line.split()[:6]) + "\n" for line in text.splitlines()))
    return {"results.test": DATA / "results.test", "results.trunc": trunc}


def _ours(name, run_files):
    qrels, run, options = CASES[name]
    text, err = run_cli(
        "evaluate", DATA / qrels, run_files[run], "--convention", "trec_eval", "--format",
        "trec", *options,
    )  # fmt: skip
    return lines_of(text), err


@pytest.mark.parametrize("name", list(CASES))
def test_trec_eval_output_is_reproduced(name, run_files):
    z = "-Z" in CASES[name][2]
    theirs = lines_of((DATA / name).read_text())
    ours, err = _ours(name, run_files)
    assert set(ours) <= set(theirs), sorted(set(ours) - set(theirs))
    missing = {family(label, z) for label, _ in set(theirs) - set(ours)}
    asked = {family(label, z) for label, _ in theirs}
    assert missing == MISSING & asked, (
        f"now computed: {sorted(MISSING & asked - missing)}; not computed: "
        f"{sorted(missing - MISSING)}"
    )
    if missing:
        assert "not computed by recmetrics yet" in err
    differ = {key: (ours[key], theirs[key]) for key in ours if ours[key] != theirs[key]}
    assert {family(label, z) for label, _ in differ} <= TREC_EVAL_10_CHANGES, differ
    # in trec_eval's order: queries, then measures as measures.c lists them
    assert list(ours) == [key for key in theirs if key in ours]
    same = len(ours) - len(differ)
    assert same >= 200 if "-q" in CASES[name][2] else same >= 20


def test_every_missing_measure_is_in_all_trec(run_files):
    """MISSING holds trec_eval's measure names, each printed by -m all_trec."""
    theirs = lines_of((DATA / "out.test.aq").read_text())
    assert MISSING <= {family(label) for label, _ in theirs}


# the parametrised names of trec_eval's quicktest (out.test.meas_params)
MEAS_PARAMS = [
    "-m", "iprec_at_recall..10,.20,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
    "-m", "ndcg_cut.10,20", "-m", "success.2,5,20", "-m", "utility.2,-1,0,0",
    "-m", "ndcg.1=3,2=9,4=4.5",
]  # fmt: skip
# ... and those not read yet: other recall levels than 0.0, 0.1, ..., 1.0, a
# fractional cutoff (trec_eval truncates 23.4 to 23), Rprec_mult's multiples
# other than 0.2, 0.4, ..., 2.0
MEAS_PARAMS_MISSING = [
    "iprec_at_recall..25,.75",
    "Rprec_mult.5.0,0.2,0.35",
    "11pt_avg..25,.5,.75",
    "ndcg_cut.23.4",
]


def test_parametrised_names(run_files):
    theirs = lines_of((DATA / "out.test.meas_params").read_text())
    text, _ = run_cli(
        "evaluate", DATA / "qrels.test", DATA / "results.test", "--convention", "trec_eval",
        "--format", "trec", "-q", *MEAS_PARAMS,
    )  # fmt: skip
    ours = lines_of(text)
    assert set(ours) <= set(theirs)
    assert list(ours) == [key for key in theirs if key in ours]  # parameters sorted
    differ = {key: (ours[key], theirs[key]) for key in ours if ours[key] != theirs[key]}
    assert {family(label) for label, _ in differ} <= TREC_EVAL_10_CHANGES, differ
    labels = {label for label, _ in ours}
    assert {"P_3", "P_5", "P_7", "recall_2000", "ndcg_cut_20", "success_20"} <= labels
    assert len(ours) - len(differ) >= 50


@pytest.mark.parametrize("name", MEAS_PARAMS_MISSING)
def test_parametrised_names_not_read_yet(name):
    """Refused (exit 2) until they are read: then move them to MEAS_PARAMS."""
    with contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit) as exc:
        cli.main(["evaluate", str(DATA / "qrels.test"), str(DATA / "results.test"), "-m", name])
    assert exc.value.code == 2


def _pytrec_eval():
    return pytest.importorskip("pytrec_eval")


def _read(path, column, kind):
    table = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        table.setdefault(fields[0], {})[fields[2]] = kind(fields[column])
    return table


@pytest.mark.parametrize(
    "qrels, options, kwargs",
    [
        ("qrels.test", [], {}),
        ("qrels.rel_level", ["-l2"], {"relevance_level": 2}),
        ("qrels.test", ["-J"], {"judged_docs_only_flag": True}),
        ("qrels.rel_level", ["-J", "-l", "2"],
         {"relevance_level": 2, "judged_docs_only_flag": True}),
    ],
)  # fmt: skip
def test_options_and_iprec_agree_with_pytrec_eval(qrels, options, kwargs):
    """-l and -J (no test file of trec_eval has -J) and iprec_at_recall: pytrec_eval's values.

    pytrec_eval embeds trec_eval 9.0.8, with its iprec_at_recall rounding
    (TREC_EVAL_10_CHANGES); it reads qrels with negative grades as trec_eval.
    """
    pytrec_eval = _pytrec_eval()
    measures = ["map", "P", "recip_rank", "bpref", "ndcg", "Rprec", "recall", "ndcg_cut",
                "iprec_at_recall", "11pt_avg", "success", "set_F", "relative_P"]  # fmt: skip
    evaluator = pytrec_eval.RelevanceEvaluator(_read(DATA / qrels, 3, int), set(measures), **kwargs)
    expected = evaluator.evaluate(_read(DATA / "results.test", 4, float))
    text, _ = run_cli(
        "evaluate", DATA / qrels, DATA / "results.test", "--convention", "trec_eval",
        "--format", "csv", "-q", "--digits", "10", *options, "-m", *measures,
    )  # fmt: skip
    rows = text.splitlines()
    header = rows[0].split(",")
    compared = 0
    for row in rows[1:]:
        values = row.split(",")
        query = values[0]
        for label, value in zip(header[1:], values[1:], strict=True):
            assert float(value) == pytest.approx(expected[query][label], abs=1e-12), (query, label)
            compared += 1
    assert compared == 3 * len(header[1:]) and len(header) > 50


# --------------------------------------------------------------------------
# the keywords of recmetrics.evaluate behind -M, -l and -J
def _frames(seed=0, n_users=12):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    truth, run = [], []
    for u in range(n_users):
        judged = rng.choice(20, size=rng.integers(2, 10), replace=False)
        truth += [
            (u, f"d{d}", int(g))
            for d, g in zip(judged, rng.choice([0, 1, 2, 3], judged.size), strict=True)
        ]
        shown = rng.choice(20, size=rng.integers(1, 15), replace=False)
        run += [
            (u, f"d{d}", float(s))
            for d, s in zip(shown, rng.integers(0, 4, shown.size), strict=True)
        ]
    truth = pd.DataFrame(truth, columns=["user", "item", "grade"])
    run = pd.DataFrame(run, columns=["user", "item", "score"])
    return truth, run


METRICS = ["precision@3", "recall@5", "map", "ndcg", "mrr", "bpref", "rprec"]


@pytest.mark.parametrize("ties", ["expected", "trec_eval", "optimistic"])
def test_judged_only_is_the_condensed_list(ties):
    """judged_only=True is evaluate on the predictions judged in truth (Sakai's condensed list)."""
    import pandas as pd

    from recmetrics import evaluate

    truth, run = _frames()
    judged = run.merge(truth[["user", "item"]], on=["user", "item"])
    kw = dict(relevance="grade", ties=ties, per_user=True, no_relevant="zero")
    got = evaluate(truth, run, METRICS, judged_only=True, **kw)
    want = evaluate(truth[truth.user.isin(run.user)], judged, METRICS, **kw)
    pd.testing.assert_frame_equal(got, want)
    assert not got.equals(evaluate(truth, run, METRICS, **kw))


def test_judged_only_expected_ties_by_enumeration():
    """Under ties='expected', the mean over every order of the tied judged items."""
    import itertools

    import numpy as np
    import pandas as pd

    from recmetrics import average_precision, evaluate

    truth = pd.DataFrame({"user": 0, "item": ["a", "b", "c", "d"], "grade": [1, 0, 1, 0]})
    run = pd.DataFrame({"user": 0, "item": ["x", "a", "y", "b", "c", "d"],
                        "score": [5, 3, 3, 3, 1, 1]})  # fmt: skip
    got = evaluate(truth, run, ["map", "precision@2"], relevance="grade", judged_only=True)
    # condensed: a, b tied (score 3), then c, d tied (score 1)
    aps, p2 = [], []
    for first in itertools.permutations(["a", "b"]):
        for second in itertools.permutations(["c", "d"]):
            rels = [1 if i in ("a", "c") else 0 for i in first + second]
            aps.append(average_precision(np.array([rels]), np.array([[4, 3, 2, 1]])))
            p2.append(sum(rels[:2]) / 2)
    assert got["map"] == pytest.approx(np.mean(aps), abs=1e-15)
    assert got["precision@2"] == pytest.approx(np.mean(p2), abs=1e-15)


def test_max_depth_and_relevance_level():
    import pandas as pd

    from recmetrics import evaluate

    truth, run = _frames(1)
    kw = dict(relevance="grade", ties="trec_eval", per_user=True, no_relevant="zero")
    # trec_eval's order: score, then id in decreasing string order
    ordered = run.sort_values(["user", "score", "item"], ascending=[True, False, False])
    want = evaluate(truth, ordered.groupby("user").head(4), METRICS, **kw)
    pd.testing.assert_frame_equal(evaluate(truth, run, METRICS, max_depth=4, **kw), want)
    # relevance_level: the binary metrics see grades >= 2 only; ndcg keeps every grade
    level = evaluate(truth, run, METRICS, relevance_level=2, **kw)
    high = truth.assign(grade=truth.grade.where(truth.grade >= 2, 0))
    binary = [m for m in METRICS if m != "ndcg"]
    pd.testing.assert_frame_equal(level[binary], evaluate(truth.pipe(lambda t: high), run,
                                                          binary, **kw))  # fmt: skip
    pd.testing.assert_series_equal(level["ndcg"], evaluate(truth, run, ["ndcg"], **kw)["ndcg"])
    # the caller's choice: no preset sets them, every preset takes them
    evaluate(truth, run, ["map"], relevance="grade", convention="trec_eval", max_depth=3,
             relevance_level=2, judged_only=True)  # fmt: skip


@pytest.mark.parametrize(
    "kwargs, error, fragment",
    [
        ({"max_depth": 0}, ValueError, "max_depth"),
        ({"max_depth": 2.5}, TypeError, "max_depth"),
        ({"relevance_level": 0}, ValueError, "relevance_level"),
        ({"relevance_level": "2"}, TypeError, "relevance_level"),
        ({"relevance_level": True}, TypeError, "relevance_level"),
        ({"judged_only": "yes"}, TypeError, "judged_only"),
        ({"judged_only": True, "users": "predictions"}, ValueError, "judged_only"),
        ({"judged_only": True, "users": "all"}, ValueError, "judged_only"),
    ],
)
def test_trec_keywords_are_checked(kwargs, error, fragment):
    from recmetrics import evaluate

    truth, run = _frames()
    with pytest.raises(error, match=fragment):
        evaluate(truth, run, ["map"], relevance="grade", **kwargs)


@pytest.mark.parametrize(
    "keyword", [("max_depth", 2), ("relevance_level", 2), ("judged_only", True)]
)
def test_trec_keywords_need_frames(keyword):
    from recmetrics import evaluate

    with pytest.raises(TypeError, match=f"{keyword[0]}= applies only to long data frames"):
        evaluate([[1, 0, 2]], [[0.3, 0.2, 0.1]], ["map"], **dict([keyword]))
    evaluate([[1, 0, 2]], [[0.3, 0.2, 0.1]], ["map"], judged_only=False)


# --------------------------------------------------------------------------
# trec_eval 10.0's rbp, rbp_resid and unj (m_rbp.c, m_rbp_resid.c,
# m_unjudged.c), transcribed on the list of relevance values in trec_eval's
# order (form_res_rels.c: -1 not in the qrels, -2 a negative grade)
NONPOOL, UNJUDGED = -1, -2


def te_rbp(rels, max_grade, p=0.9):
    scale = max_grade if max_grade > 1 else 1.0  # (g - 0) / (max - 0) when max > 1
    return (1 - p) * sum(max(g, 0) / scale * p**i for i, g in enumerate(rels))


def te_rbp_resid(rels, p=0.9):
    unj = [i for i, g in enumerate(rels) if g < 0]
    return p ** len(rels) + (1 - p) * sum(p**i for i in unj) if unj else 0.0


def te_unj(rels, k):
    return sum(g < 0 for g in rels[:k]) / k


def _problem(seed):
    """Small frames with ties, grades 0..3, negative grades and unjudged documents."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    truth, run = [], []
    for q in range(4):
        docs = [f"d{i}" for i in range(8)]
        judged = rng.choice(8, size=rng.integers(1, 7), replace=False)
        grades = rng.choice([-1, 0, 1, 2, 3], size=judged.size)
        # a query judged: one grade >= 0 (a user whose rows are all negative has no
        # judgment for recmetrics.unjudged, whose no_relevant then applies)
        grades[0] = max(grades[0], 0)
        for d, g in zip(judged, grades, strict=True):
            truth.append((f"q{q}", docs[d], int(g)))
        shown = rng.choice(8, size=rng.integers(1, 7), replace=False)
        run += [(f"q{q}", docs[d], float(rng.integers(0, 3))) for d in shown]
    truth = pd.DataFrame(truth, columns=["user", "item", "grade"])
    run = pd.DataFrame(run, columns=["user", "item", "score"])
    return truth, run


def _rels(truth, run, user, order):
    """trec_eval's relevance values of ``order`` (item ids), and the query's largest grade."""
    grades = dict(zip(*(truth[truth.user == user][c] for c in ("item", "grade")), strict=True))
    rels = [NONPOOL if d not in grades else (UNJUDGED if grades[d] < 0 else grades[d])
            for d in order]  # fmt: skip
    return rels, max([g for g in grades.values() if g >= 0], default=0)


TE10 = {
    "rbp": ("rbp(p=0.9, gain='scaled')", lambda rels, top: te_rbp(rels, top)),
    "rbp_resid": (
        "rbp_residual(p=0.9, definition='trec_eval')",
        lambda rels, top: te_rbp_resid(rels),
    ),
    "unj_3": ("unjudged@3", lambda rels, top: te_unj(rels, 3)),
    "unj_10": ("unjudged@10", lambda rels, top: te_unj(rels, 10)),
}


@pytest.mark.parametrize("seed", range(6))
def test_trec_eval_10_measures_are_transcribed(seed):
    """Under ties='trec_eval': the transcription on trec_eval's order (score, then id down)."""
    from recmetrics import evaluate

    truth, run = _problem(seed)
    got = evaluate(truth, run, [m for m, _ in TE10.values()], relevance="grade",
                   ties="trec_eval", per_user=True, no_relevant="zero", users="both")  # fmt: skip
    for user in got.index:
        mine = run[run.user == user].sort_values(["score", "item"], ascending=False)
        rels, top = _rels(truth, run, user, list(mine.item))
        for metric, te in TE10.values():
            assert got.at[user, metric] == pytest.approx(te(rels, top), abs=1e-12), (user, metric)


@pytest.mark.parametrize("seed", range(4))
def test_trec_eval_10_measures_expected_ties_by_enumeration(seed):
    """Under ties='expected': the mean of the transcription over every order of tied items."""
    import itertools

    import numpy as np

    from recmetrics import evaluate

    truth, run = _problem(seed)
    got = evaluate(truth, run, [m for m, _ in TE10.values()], relevance="grade",
                   ties="expected", per_user=True, no_relevant="zero", users="both")  # fmt: skip
    for user in got.index:
        mine = run[run.user == user]
        groups = [list(g.item) for _, g in mine.groupby("score", sort=True)][::-1]
        orders = [sum(map(list, combo), []) for combo in
                  itertools.product(*(itertools.permutations(g) for g in groups))]  # fmt: skip
        for metric, te in TE10.values():
            want = np.mean([te(*_rels(truth, run, user, order)) for order in orders])
            assert got.at[user, metric] == pytest.approx(want, abs=1e-12), (user, metric)


def test_rbp_keywords_are_checked():
    import recmetrics as rm

    with pytest.raises(ValueError, match="gain"):
        rm.rbp([1, 0], gain="trec")
    with pytest.raises(ValueError, match="definition"):
        rm.rbp_residual([1, 0], definition="none")
    assert rm.rbp([2, 1], gain="scaled") == pytest.approx(0.2 * (1 + 0.8 * 0.5))
    assert rm.rbp([1, 1], gain="scaled") == rm.rbp([1, 1])  # no grade above 1: binary
    # a user without relevant items: trec_eval's residual whatever no_relevant says
    import pandas as pd

    truth = pd.DataFrame({"user": 1, "item": ["a"], "rel": [0]})
    run = pd.DataFrame({"user": 1, "item": ["a", "x"], "score": [2, 1]})
    r = rm.from_frames(truth, run, relevance="rel")
    assert rm.rbp_residual(r, p=0.5, definition="trec_eval") == pytest.approx(0.5 * 0.5 + 0.25)
    assert rm.rbp_residual(r, p=0.5, no_relevant="zero") == 0.0


# --------------------------------------------------------------------------
# relstring on the command line
def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_relstring_formats():
    import json

    q, r = DATA / "qrels.rel_level", DATA / "results.test"
    code, out, _ = _cli("evaluate", q, r, "-m", "relstring.5", "map", "-q", "--format", "json",
                        "--convention", "trec_eval")  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["303"]["relstring_5"] == "0000." and isinstance(data["303"]["map"], float)
    code, out, _ = _cli("evaluate", q, r, "-m", "relstring.5", "-q", "--format", "csv")
    assert code == 0 and out.splitlines() == [
        "user,relstring_5", "301,'00000'", "302,'33033'", "303,'0000.'",
    ]  # fmt: skip
    # trec: trec_eval's line, no 'all' line, no Z under -Z
    code, out, _ = _cli("evaluate", q, r, "-m", "relstring", "P.5", "-q", "--format", "trec",
                        "--convention", "trec_eval")  # fmt: skip
    assert code == 0
    assert "relstring             \t301\t'0000011000'" in out.splitlines()
    assert not any(line.startswith("relstring") and "\tall\t" in line for line in out.splitlines())
    # -m all_trec without -q: trec_eval prints relstring per query only
    code, out, _ = _cli("evaluate", q, r, "-m", "all_trec", "--format", "trec",
                        "--convention", "trec_eval")  # fmt: skip
    assert code == 0 and "relstring" not in out and "rbp_resid" in out


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["-m", "relstring", "map"], "add --per-user"),
        (["-m", "relstring", "relstring.10", "-q"], "twice"),
        (["-m", "relstring.0", "-q"], ">= 1"),
    ],
)
def test_relstring_refused(args, fragment):
    code, _, err = _cli("evaluate", DATA / "qrels.test", DATA / "results.test", *args)
    assert code == 2 and fragment in err


def test_relstring_ties():
    """trec_eval's order unless --ties is deterministic (relstring has no expectation)."""
    import pandas as pd

    from recmetrics.cli._relstring import relstring_table

    class Args:
        convention, users, format, relstrings = None, None, "table", [("relstring", 3)]

    from recmetrics.cli._keyword_options import _KEYWORD_OPTIONS

    for key in _KEYWORD_OPTIONS:
        setattr(Args, key, None)
    truth = pd.DataFrame({"user": "q", "item": ["a", "b"], "relevance": [1, 2]})
    run = pd.DataFrame({"user": "q", "item": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    frames = dict(user="user", item="item", score="score", rank=None, relevance="relevance")
    assert relstring_table(truth, run, frames, Args, None).at["q", "relstring"] == "21-"
    Args.ties = "optimistic"
    assert relstring_table(truth, run, frames, Args, None).at["q", "relstring"] == "21-"
    Args.ties = "pessimistic"
    assert relstring_table(truth, run, frames, Args, None).at["q", "relstring"] == "12-"


def test_rbp_persistence_names():
    """trec_eval's rbp.p=0.95 (labelled rbp_p=0.95, meas_init.c: append_string)."""
    import pandas as pd

    from recmetrics import evaluate
    from recmetrics.io import read_trec_qrels, read_trec_run

    code, out, _ = _cli("evaluate", DATA / "qrels.rel_level", DATA / "results.test", "-q",
                        "--format", "csv", "--digits", "12", "--convention", "trec_eval",
                        "-m", "rbp.p=0.95", "rbp_resid.p=0.5")  # fmt: skip
    assert code == 0
    got = pd.read_csv(io.StringIO(out), index_col=0)
    assert list(got.columns) == ["rbp_p=0.95", "rbp_resid_p=0.5"]
    truth = read_trec_qrels(DATA / "qrels.rel_level")
    run = read_trec_run(DATA / "results.test")
    want = evaluate(truth, run, ["rbp(p=0.95, gain='scaled')",
                                 "rbp_residual(p=0.5, definition='trec_eval')"],
                    relevance="relevance", score="score", ties="trec_eval", per_user=True,
                    users="both", no_relevant="zero", score_dtype="float32")  # fmt: skip
    assert got.to_numpy() == pytest.approx(want.to_numpy(), abs=1e-12)
