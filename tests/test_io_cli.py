"""TREC/CSV/Parquet reading and writing, and the ``recmetrics`` command line.

The command runs as a subprocess (the installed ``recmetrics`` script and
``python -m recmetrics``) on small files written here, and its output is
checked against trec_eval (pytrec_eval) on the same files: ties in the scores
(broken by document id, in decreasing string order), graded judgements,
negative grades, queries judged without a relevant document, retrieved
documents without a judgement, relevant documents not retrieved, and queries
present in only one of the two files.
"""

from __future__ import annotations

import contextlib
import io as io_module
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics import cli, io
from recmetrics.cli import trec_measures
from recmetrics.cli._trec_groups import trec_order

pytrec_eval = pytest.importorskip("pytrec_eval")

SCRIPT = Path(sys.executable).parent / "recmetrics"


def run_cli(*args, module=False, subprocess_run=True):
    """Run the command as a subprocess (the installed script, or ``python -m``).

    Or in this process through ``recmetrics.cli.main`` (same parser and handlers,
    no interpreter start-up): for the option and error checks.
    """
    args = [str(a) for a in args]
    if not subprocess_run:
        out, err = io_module.StringIO(), io_module.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(args)
            except SystemExit as exc:  # argparse: --help, --version, usage errors
                code = exc.code
        return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())
    cmd = [sys.executable, "-m", "recmetrics"] if module else [str(SCRIPT)]
    return subprocess.run(cmd + args, capture_output=True, text=True, timeout=300)


def in_process(*args):
    return run_cli(*args, subprocess_run=False)


# --------------------------------------------------------------------------
# files shared by the tests
def make_trec_files(directory, seed=0, n_queries=40, n_docs=60):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(n_docs)]  # 'd10' < 'd2' in string order
    qrels, run = [], []
    for q in range(n_queries):
        qid = f"q{q:03d}"
        judged = rng.choice(n_docs, size=rng.integers(3, 15), replace=False)
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=judged.size)
        if q % 7 == 3:  # judged, nothing relevant
            grades = np.minimum(grades, 0)
        if q % 11 != 5:  # q 5, 16, 27, 38: judged, not retrieved
            qrels += [(qid, docs[d], int(g)) for d, g in zip(judged, grades, strict=True)]
        retrieved = rng.choice(n_docs, size=rng.integers(1, 40), replace=False)
        scores = np.round(rng.random(retrieved.size), 1)  # many ties
        run += [(qid, docs[d], s) for d, s in zip(retrieved, scores, strict=True)]
    qrels += [("q999", "d1", 1), ("q999", "d2", 0)]  # not in the run
    qpath, rpath = Path(directory) / "qrels.txt", Path(directory) / "run.txt"
    with open(qpath, "w") as f:
        for q, d, g in qrels:
            f.write(f"{q} 0 {d} {g}\n")
    with open(rpath, "w") as f:
        for i, (q, d, s) in enumerate(run):
            f.write(f"{q} Q0 {d} {i % 50 + 1} {s} run\n")  # written ranks are ignored
    return qpath, rpath


@pytest.fixture(scope="module")
def trec_files(tmp_path_factory):
    return make_trec_files(tmp_path_factory.mktemp("trec"))


def pytrec(qpath, rpath, measures):
    """trec_eval's per-query values for each measure, one evaluator per measure."""
    qrels, run = {}, {}
    for line in Path(qpath).read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    for line in Path(rpath).read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    out = {}
    for m in measures:
        res = pytrec_eval.RelevanceEvaluator(qrels, {m}).evaluate(run)
        out.update(pd.DataFrame(res).T.to_dict("series"))
    return pd.DataFrame(out)


TREC_MEASURES = [
    "P.5", "P.10", "recall.5", "recall.20", "map", "map_cut.10", "ndcg", "ndcg_cut.3",
    "ndcg_cut.10", "recip_rank", "success.1", "success.5", "Rprec", "bpref",
    "set_P", "set_recall", "set_F", "set_relative_P", "relative_P.5", "relative_P.20",
    "iprec_at_recall.0.10", "iprec_at_recall.0.50", "11pt_avg",
    "Rndcg", "binG", "utility", "ndcg_rel", "G",
]  # fmt: skip


@pytest.mark.crosslib
@pytest.mark.slow
def test_cli_matches_trec_eval_per_query_and_mean(trec_files):
    qpath, rpath = trec_files
    expected = pytrec(qpath, rpath, TREC_MEASURES)
    # trec_eval's label: the first "." becomes "_" (P.5 -> P_5, iprec_at_recall.0.10 ->
    # iprec_at_recall_0.10)
    labels = [m.replace(".", "_", 1) for m in TREC_MEASURES]
    res = run_cli(
        "evaluate", qpath, rpath, "-m", *TREC_MEASURES, "--convention", "trec_eval",
        "--per-user", "--format", "json",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    got = pd.DataFrame(json.loads(res.stdout)).T[labels]
    # the same queries: in both files (q999 only judged, the q%11==5 ones only retrieved)
    assert sorted(got.index) == sorted(expected.index)
    assert "q999" not in got.index and "q005" not in got.index
    got = got.loc[expected.index].astype(float)
    for label in labels:
        np.testing.assert_allclose(got[label], expected[label], rtol=0, atol=1e-12, err_msg=label)
    # means, through python -m, as trec_eval prints them ('all' lines)
    res = run_cli(
        "evaluate", qpath, rpath, "-m", *TREC_MEASURES, "--convention", "trec_eval",
        "--format", "trec", "--digits", "12", module=True,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = [line.split() for line in res.stdout.splitlines()]
    # in trec_eval's order (measures.c), whatever the order of -m
    assert [f[0] for f in lines] == trec_order(labels) and {f[1] for f in lines} == {"all"}
    for (label, _, value), m in zip(lines, trec_order(labels), strict=True):
        assert float(value) == pytest.approx(expected[m].mean(), abs=1e-11), label


@pytest.mark.slow
def test_cli_tables_and_formats(tmp_path, trec_files):
    """CSV and Parquet inputs give the numbers of the TREC files; every output format."""
    qpath, rpath = trec_files
    truth = io.read_trec_qrels(qpath)
    truth["relevance"] = truth["relevance"].clip(lower=0)
    run = io.read_trec_run(rpath)
    truth.rename(columns={"user": "uid", "relevance": "grade"}).to_csv(tmp_path / "t.csv")
    run.rename(columns={"user": "uid", "score": "s"}).to_parquet(tmp_path / "r.parquet")
    expected = rm.evaluate(
        truth, run, ["ndcg@10", "precision@10", "map"], relevance="relevance",
        convention="trec_eval",
        users="both",
    )  # fmt: skip
    common = ["-m", "ndcg@10", "P_10", "map", "--convention", "trec_eval"]
    res = in_process(
        "evaluate", tmp_path / "t.csv", tmp_path / "r.parquet", *common, "--user", "uid",
        "--relevance", "grade", "--score", "s", "--format", "csv",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    got = pd.read_csv(pd.io.common.StringIO(res.stdout), index_col=0)["value"]
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-15)
    assert list(got.index) == ["ndcg@10", "P_10", "map"]
    table = in_process("evaluate", qpath, rpath, *common)
    assert table.returncode == 0 and table.stdout.split()[:2] == ["value", "measure"]
    assert f"{expected['map']:.4f}" in table.stdout
    latex = in_process("evaluate", qpath, rpath, *common, "--format", "latex")
    assert latex.returncode == 0 and "\\begin{tabular}" in latex.stdout


@pytest.mark.slow
def test_cli_compare(trec_files, tmp_path):
    qpath, rpath = trec_files
    run = io.read_trec_run(rpath)
    worse = run.assign(score=np.random.default_rng(1).random(len(run)))
    io.write_trec_run(worse, tmp_path / "shuffled.txt")
    res = run_cli(
        "compare", rpath, tmp_path / "shuffled.txt", "--qrels", qpath, "-m", "ndcg@10", "map",
        "--test", "randomization", "--n-resamples", "2000", "--format", "json",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    rows = pd.DataFrame(json.loads(res.stdout))
    assert list(rows["model"].unique()) == ["run", "shuffled"]
    truth = io.read_trec_qrels(qpath).assign(relevance=lambda t: t.relevance.clip(lower=0))
    per = {
        name: rm.evaluate(truth, r, ["ndcg@10", "map"], relevance="relevance", per_user=True)
        for name, r in (("run", run), ("shuffled", io.read_trec_run(tmp_path / "shuffled.txt")))
    }
    expected = rm.stats.compare(per, test="randomization", n_resamples=2000)
    np.testing.assert_allclose(rows["mean"], expected["mean"], rtol=1e-12)
    np.testing.assert_allclose(
        rows["pvalue_adjusted"].astype(float), expected["pvalue_adjusted"], rtol=1e-12
    )


@pytest.mark.slow
def test_cli_errors_and_help(tmp_path, trec_files):
    qpath, rpath = trec_files
    bad = tmp_path / "bad_run.txt"
    bad.write_text("q1 Q0 d1 1 0.5 x\nq1 Q0 d2 2 high x\n")
    res = run_cli("evaluate", qpath, bad, "-m", "P_10")
    assert res.returncode == 1
    assert "bad_run.txt, line 2: score must be a number, got 'high'" in res.stderr
    assert "Traceback" not in res.stderr
    res = in_process("evaluate", qpath, tmp_path / "missing.txt")
    assert res.returncode == 1 and "RUN: no such file" in res.stderr
    res = in_process("evaluate", qpath, rpath, "-m", "mrr@10", "--convention", "trec_eval")
    assert res.returncode == 2 and "mrr" in res.stderr and "Traceback" not in res.stderr
    res = run_cli("evaluate", qpath)
    assert res.returncode == 2 and "required" in res.stderr
    res = in_process("evaluate", "--help")
    assert res.returncode == 0 and "examples:" in res.stdout and "ndcg_cut_10" in res.stdout
    res = in_process("--version")
    assert res.returncode == 0 and res.stdout.startswith("recmetrics ")


# --------------------------------------------------------------------------
# readers and writers
def test_trec_round_trip(tmp_path):
    truth = pd.DataFrame({"user": ["1", "1", "2"], "item": ["a", "007", "b"], "g": [2, 0, 1]})
    io.write_trec_qrels(truth, tmp_path / "q", relevance="g")
    back = io.read_trec_qrels(tmp_path / "q")
    assert back["item"].tolist() == ["a", "007", "b"]  # ids stay strings
    assert back["relevance"].tolist() == [2, 0, 1]
    scores = np.array([0.1, 1 / 3, 1 / 3, 2.5e-300])
    pred = pd.DataFrame({"user": ["1", "1", "1", "2"], "item": ["a", "b", "c", "a"], "s": scores})
    io.write_trec_run(pred, tmp_path / "r", score="s", tag="t1")
    back = io.read_trec_run(tmp_path / "r")
    assert back["item"].tolist() == ["c", "b", "a", "a"]  # ties: decreasing id
    assert back["rank"].tolist() == [1, 2, 3, 1]
    assert back["score"].tolist() == [1 / 3, 1 / 3, 0.1, 2.5e-300]  # exact


def test_trec_gzip_and_chunks(tmp_path):
    import gzip

    lines = "".join(f"q{i % 7} 0 d{i} {i % 3}\n" for i in range(1000))
    with gzip.open(tmp_path / "q.gz", "wt") as f:
        f.write(lines)
    (tmp_path / "q").write_text(lines)
    a = io.read_trec_qrels(tmp_path / "q.gz", chunk_lines=64)
    b = io.read_trec_qrels(tmp_path / "q")
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 1000 and a["relevance"].sum() == sum(i % 3 for i in range(1000))


@pytest.mark.parametrize(
    "text, message",
    [
        ("q1 0 d1 1\nq1 0 d2\n", "line 2: expected 4 fields"),
        ("q1 0 d1 1\n\nq1 0 d2 1 extra\n", "line 3: expected 4 fields"),
        (
            "q1 0 d1 1\nq1 0 d2 1.5\n",
            "line 2: relevance must be an integer (below 2**53 in magnitude), got '1.5'",
        ),
        ("q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n", "lines 1 and 3: document 'd1' is judged twice"),
        (
            "q1 0 d1 1 a b c d\n",
            "line 1: expected 4 fields (user iteration item relevance), got more",
        ),
        ("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 1 a b c\n", "line 3"),
    ],
)
def test_qrels_errors_name_file_and_line(tmp_path, text, message):
    f = tmp_path / "qrels.txt"
    f.write_text(text)
    with pytest.raises(ValueError, match="qrels.txt") as err:
        io.read_trec_qrels(f, chunk_lines=2)
    assert message in str(err.value)


@pytest.mark.parametrize(
    "text, message",
    [
        ("q1 Q0 d1 1 0.5\n", "line 1: expected 6 fields"),
        ("q1 Q0 d1 x 0.5 t\n", "line 1: rank must be an integer"),
        ("q1 Q0 d1 1 inf t\n", "line 1: score must be finite"),
        ("q1 Q0 d1 1 nan t\n", "line 1: score must be a number"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", "lines 1 and 2: document 'd1' is retrieved"),
    ],
)
def test_run_errors_name_file_and_line(tmp_path, text, message):
    f = tmp_path / "run.txt"
    f.write_text(text)
    with pytest.raises(ValueError) as err:
        io.read_trec_run(f)
    assert "run.txt" in str(err.value) and message in str(err.value)


def test_reader_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="path must be a file path"):
        io.read_trec_run(3)
    with pytest.raises(FileNotFoundError, match="no such file"):
        io.read_trec_run(tmp_path / "none")
    (tmp_path / "t.csv").write_text("user,item\n1,2\n")
    with pytest.raises(ValueError, match="t.csv has no column 'score'"):
        io.read_table(tmp_path / "t.csv", columns=["user", "item", "score"])
    with pytest.raises(ValueError, match="not a table"):
        (tmp_path / "t.txt").write_text("user,item\n1,2\n")
        io.read_table(tmp_path / "t.txt")
    with pytest.raises(ValueError, match="whitespace"):
        io.write_trec_run(
            pd.DataFrame({"user": ["a b"], "item": ["x"], "score": [1.0]}), tmp_path / "r"
        )
    with pytest.raises(ValueError, match="integer grades"):
        io.write_trec_qrels(
            pd.DataFrame({"user": [1], "item": [2], "g": [0.5]}), tmp_path / "q", relevance="g"
        )


def test_empty_files(tmp_path):
    (tmp_path / "q").write_text("")
    (tmp_path / "r").write_text("\n\n")
    assert io.read_trec_qrels(tmp_path / "q").shape == (0, 3)
    assert io.read_trec_run(tmp_path / "r").columns.tolist() == [
        "user", "item", "rank", "score", "tag",
    ]  # fmt: skip


def test_trec_measure_names():
    assert trec_measures("P") == [(f"P_{k}", f"precision@{k}") for k in io_cutoffs()]
    assert trec_measures("recall.5,20") == [("recall_5", "recall@5"), ("recall_20", "recall@20")]
    assert trec_measures("map_cut_10") == [("map_cut_10", "map@10")]
    assert trec_measures("ndcg") == [("ndcg", "ndcg")]
    with pytest.raises(ValueError, match="cutoffs must be >= 1"):
        trec_measures("P_0")


def io_cutoffs():
    return (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@pytest.mark.slow
def test_cli_options_and_mixed_inputs(tmp_path, trec_files):
    """Repeated -m, --rank rank, mixed inputs, notes and inapplicable options.

    --rank rank on a TREC run, TREC qrels beside a CSV run with zero-padded
    ids, negative grades in a table, the note on conventions, and options
    that do not apply to TREC files.
    """
    qpath, rpath = trec_files
    truth = io.read_trec_qrels(qpath)
    run = io.read_trec_run(rpath)
    res = in_process("evaluate", qpath, rpath, "-m", "map", "-m", "P_10", "--format", "json")
    assert res.returncode == 0, res.stderr
    assert list(json.loads(res.stdout)) == ["map", "P_10"]
    assert "note: map, P_10 computed with recmetrics' defaults" in res.stderr
    clipped = truth.assign(relevance=truth["relevance"].clip(lower=0))
    expected = rm.evaluate(clipped, run, ["map", "precision@10"], relevance="relevance")
    np.testing.assert_allclose(list(json.loads(res.stdout).values()), expected, rtol=1e-15)
    # the written ranks instead of the scores
    res = in_process(
        "evaluate", qpath, rpath, "-m", "ndcg@10", "--rank", "rank", "--format", "json"
    )
    assert res.returncode == 0, res.stderr
    by_rank = rm.evaluate(clipped, run, ["ndcg@10"], relevance="relevance", rank="rank")
    assert json.loads(res.stdout)["ndcg@10"] == pytest.approx(by_rank.iloc[0], abs=1e-15)
    assert "note" not in res.stderr
    # a CSV run beside TREC qrels: ids read as text, so '007' stays '007'
    (tmp_path / "q.txt").write_text("007 0 0010 2\n007 0 11 -1\n8 0 3 1\n")
    (tmp_path / "r.csv").write_text("uid,item,s\n007,0010,0.9\n007,11,0.8\n8,3,0.1\n")
    res = in_process(
        "evaluate", tmp_path / "q.txt", tmp_path / "r.csv", "-m", "P_1", "--user", "uid",
        "--score", "s", "--format", "json",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"P_1": 1.0}
    # negative grades in a table are unjudged and carry no gain, as in a qrels file
    (tmp_path / "t.csv").write_text("uid,item,g\n007,0010,2\n007,11,-1\n8,3,1\n")
    res = in_process(
        "evaluate", tmp_path / "t.csv", tmp_path / "r.csv", "-m", "ndcg@2", "--user", "uid",
        "--score", "s", "--relevance", "g", "--format", "json",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["ndcg@2"] == pytest.approx(1.0)
    # options that do not apply to TREC files
    res = in_process("evaluate", qpath, rpath, "--relevance", "grade")
    assert res.returncode == 2 and "--relevance applies to tables" in res.stderr
    res = in_process("evaluate", qpath, rpath, "--score", "x")
    assert res.returncode == 2 and "a TREC run has the columns" in res.stderr


@pytest.mark.parametrize("grade", ["inf", "1e30", "nan"])
def test_qrels_grades_out_of_range(tmp_path, grade):
    f = tmp_path / "qrels.txt"
    f.write_text(f"q1 0 d1 1\nq1 0 d2 {grade}\n")
    with pytest.raises(ValueError, match="line 2: relevance must be an integer"):
        io.read_trec_qrels(f)


def test_writers_reject_what_readers_reject(tmp_path):
    twice = pd.DataFrame({"user": [1, 1], "item": ["a", "a"], "score": [0.5, 0.4]})
    with pytest.raises(ValueError, match="twice"):
        io.write_trec_run(twice, tmp_path / "r")
    with pytest.raises(ValueError, match="twice"):
        io.write_trec_qrels(twice, tmp_path / "q")
    missing = pd.DataFrame({"user": [1, None], "item": ["a", "b"], "score": [0.5, 0.4]})
    with pytest.raises(ValueError, match="must not be missing"):
        io.write_trec_run(missing, tmp_path / "r")


# --------------------------------------------------------------------------
# empty files, compression, and what the writers refuse
@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_empty_files_have_the_dtypes_of_full_ones(tmp_path, suffix):
    import gzip

    full_q, full_r = tmp_path / f"fq{suffix}", tmp_path / f"fr{suffix}"
    empty_q, empty_r = tmp_path / f"eq{suffix}", tmp_path / f"er{suffix}"
    opener = gzip.open if suffix else open
    for path, text in [(full_q, "q 0 d 1\n"), (full_r, "q Q0 d 1 0.5 t\n"), (empty_q, ""),
                       (empty_r, "\n  \n")]:  # fmt: skip
        with opener(path, "wt") as f:
            f.write(text)
    for read, full, empty in [(io.read_trec_qrels, full_q, empty_q),
                              (io.read_trec_run, full_r, empty_r)]:  # fmt: skip
        a, b = read(full), read(empty)
        assert len(b) == 0 and len(a) == 1
        assert b.dtypes.to_dict() == a.dtypes.to_dict()


def _gz(text):
    import gzip

    return gzip.compress(text.encode(), mtime=0)  # same bytes in every process


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("q.gz", b"not gzip at all", "cannot be read as gzip (BadGzipFile"),
        ("q.gz", _gz("q1 0 d1 1\n" * 50)[:-12], "cannot be read as gzip (EOFError"),
        ("q.bz2", b"not bzip2", "cannot be read as bz2"),
        ("q.xz", b"not xz", "cannot be read as xz (LZMAError"),
        ("q.txt", "q\u00e9 0 d1 1\n".encode("latin-1"), "not UTF-8 text"),
    ],
)
def test_unreadable_files_name_the_file(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    for read in (io.read_trec_qrels, io.read_trec_run):
        with pytest.raises(ValueError) as err:
            read(tmp_path / name)
        assert str(err.value).startswith(f"{tmp_path / name}: ") and message in str(err.value)


def test_reader_options_are_checked(tmp_path):
    (tmp_path / "q").write_text("q 0 d 1\n")
    with pytest.raises(TypeError, match="progress must be True or False"):
        io.read_trec_qrels(tmp_path / "q", progress="yes")
    with pytest.raises(ValueError, match="chunk_lines must be an integer >= 1"):
        io.read_trec_qrels(tmp_path / "q", chunk_lines=0)
    with pytest.raises(IsADirectoryError, match="is a folder"):
        io.read_trec_run(tmp_path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_writers_compress_by_name(tmp_path, suffix):
    truth = pd.DataFrame({"user": ["1", "1", "2"], "item": ["a", "b", "c"], "g": [2, 0, 1]})
    pred = truth.assign(s=[0.5, 1 / 3, 2.0])
    io.write_trec_qrels(truth, tmp_path / f"q{suffix}", relevance="g")
    io.write_trec_run(pred, tmp_path / f"r{suffix}", score="s")
    io.write_trec_qrels(truth, tmp_path / "q", relevance="g")
    io.write_trec_run(pred, tmp_path / "r", score="s")
    assert (tmp_path / f"q{suffix}").read_bytes() != (tmp_path / "q").read_bytes()
    pd.testing.assert_frame_equal(
        io.read_trec_qrels(tmp_path / f"q{suffix}"), io.read_trec_qrels(tmp_path / "q")
    )
    pd.testing.assert_frame_equal(
        io.read_trec_run(tmp_path / f"r{suffix}"), io.read_trec_run(tmp_path / "r")
    )


GOOD = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"],
                     "score": [0.5, 0.25, 1.0], "g": [1, 0, 2]})  # fmt: skip


@pytest.mark.parametrize(
    "column, values, error, message",
    [
        ("g", [1, np.inf, 0], ValueError, "column 'g' must hold integer grades below 2**53"),
        ("g", [1, -np.inf, 0], ValueError, "got -inf in row 1"),
        ("g", [1, np.nan, 0], ValueError, "got nan in row 1"),
        ("g", [1, 0.5, 0], ValueError, "got 0.5 in row 1"),
        ("g", [1, 2.0**53, 0], ValueError, "got 9007199254740992.0 in row 1"),
        ("g", pd.array([1, None, 0], dtype="Int64"), ValueError, "got <NA> in row 1"),
        ("g", ["1", "2", "0"], TypeError, "column 'g' must hold numbers"),
        ("user", ["u1", "u 1", "u2"], ValueError, "got 'u 1' in row 1"),
        ("user", ["u1", "u\t1", "u2"], ValueError, "no whitespace"),
        ("user", ["u1", "#u", "u2"], ValueError, "must not start with '#'"),
        ("item", ["a", "b\x00", "c"], ValueError, "NUL"),
        ("item", ["a", "", "c"], ValueError, "non-empty"),
        ("item", ["a", None, "c"], ValueError, "item ids must not be missing"),
        ("item", ["a", "b\u2028", "c"], ValueError, "whitespace"),
    ],
)
def test_write_trec_qrels_refuses(tmp_path, column, values, error, message):
    target = tmp_path / "qrels.txt"
    target.write_text("old content\n")
    with pytest.raises(error) as err:
        io.write_trec_qrels(GOOD.assign(**{column: values}), target, relevance="g")
    assert message in str(err.value)
    assert target.read_text() == "old content\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels.txt"]


@pytest.mark.parametrize(
    "column, values, error, message",
    [
        ("score", [0.5, np.nan, 1.0], ValueError, "column 'score' must hold finite numbers"),
        ("score", [0.5, np.inf, 1.0], ValueError, "got inf in row 1"),
        ("score", ["0.5", "1", "2"], TypeError, "must hold numbers (a bool, integer or float"),
        ("score", [1 + 1j, 2, 3], TypeError, "got dtype complex128"),
        ("user", ["u1", "#x", "u2"], ValueError, "must not start with '#'"),
        ("item", ["a", "b c", "c"], ValueError, "got 'b c' in row 1"),
    ],
)
def test_write_trec_run_refuses(tmp_path, column, values, error, message):
    target = tmp_path / "run.txt"
    target.write_text("old content\n")
    with pytest.raises(error) as err:
        io.write_trec_run(GOOD.assign(**{column: values}), target)
    assert message in str(err.value)
    assert target.read_text() == "old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.txt"]


def test_writer_arguments(tmp_path):
    with pytest.raises(ValueError, match="tag must be a non-empty string"):
        io.write_trec_run(GOOD, tmp_path / "r", tag="a b")
    with pytest.raises(TypeError, match="user must be a column name"):
        io.write_trec_run(GOOD, tmp_path / "r", user=0)
    with pytest.raises(TypeError, match="path must be a file path"):
        io.write_trec_run(GOOD, 3)
    with pytest.raises(IsADirectoryError, match="is a folder"):
        io.write_trec_run(GOOD, tmp_path)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        io.write_trec_qrels(GOOD, tmp_path / "missing" / "q")
    assert list(tmp_path.iterdir()) == []
    # an integer score column, a bool grade column and an empty frame are fine
    io.write_trec_run(GOOD.assign(score=[3, 2, 1]), tmp_path / "r")
    assert io.read_trec_run(tmp_path / "r")["score"].tolist() == [3.0, 2.0, 1.0]
    io.write_trec_qrels(GOOD.assign(g=[True, False, True]), tmp_path / "q", relevance="g")
    assert io.read_trec_qrels(tmp_path / "q")["relevance"].tolist() == [1, 0, 1]
    io.write_trec_qrels(GOOD.iloc[:0], tmp_path / "e")
    assert (tmp_path / "e").read_text() == "" and len(io.read_trec_qrels(tmp_path / "e")) == 0


@pytest.mark.parametrize("fail", ["fsync", "replace", "write"])
def test_writers_leave_the_target_whole_on_error(tmp_path, monkeypatch, fail):
    """A failure midway (a full disk) leaves the old file, and no temporary file."""
    import errno
    import os

    target = tmp_path / "run.txt"
    target.write_text("old content\n")

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    if fail == "write":
        monkeypatch.setattr(io.trec, "_WRITE_ROWS", 1)  # one block per row
        real = io.trec._blocks

        def blocks(frame, fmt):
            for i, block in enumerate(real(frame, fmt)):
                if i == 2:
                    full_disk()
                yield block

        monkeypatch.setattr(io.trec, "_blocks", blocks)
    else:
        monkeypatch.setattr(os, fail, full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        io.write_trec_run(GOOD, target)
    with pytest.raises(OSError, match="No space left on device"):
        io.write_trec_qrels(GOOD, target)
    assert target.read_text() == "old content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run.txt"]


def test_writers_keep_mode_and_links(tmp_path):
    import os
    import stat

    target = tmp_path / "run.txt"
    io.write_trec_run(GOOD, target)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    target.chmod(0o640)
    io.write_trec_run(GOOD.assign(score=[1.0, 2.0, 3.0]), target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    io.write_trec_run(GOOD, link)
    assert link.is_symlink() and io.read_trec_run(target)["score"].tolist() == [0.5, 0.25, 1.0]


def test_read_table_format_and_completeness(tmp_path):
    (tmp_path / "t.dat").write_text("user\titem\tscore\n1\ta\t0.5\n")
    got = io.read_table(tmp_path / "t.dat", format="tsv", columns=["user", "item", "score"])
    assert got.to_dict("list") == {"user": [1], "item": ["a"], "score": [0.5]}
    (tmp_path / "t.csv").write_text("user\titem\n1\ta\n")
    assert io.read_table(tmp_path / "t.csv", format="tsv").columns.tolist() == ["user", "item"]
    with pytest.raises(ValueError, match="format must be one of"):
        io.read_table(tmp_path / "t.csv", format="trec")
    with pytest.raises(ValueError, match="give format="):
        io.read_table(tmp_path / "t.dat")
    (tmp_path / "gap.csv").write_text("user,item,score\n1,a,0.5\n1,b,\n")
    with pytest.raises(ValueError, match="column 'score' has no value in data row 2"):
        io.read_table(tmp_path / "gap.csv", columns=["user", "item", "score"])
    with pytest.raises(ValueError, match="column 'item' has no value"):
        (tmp_path / "gap2.csv").write_text("user,item\n1,\n")
        io.read_table(tmp_path / "gap2.csv", text_columns=["user", "item"])
    (tmp_path / "long.csv").write_text("user,item\n1,a,9\n")
    with pytest.raises(ValueError, match="a row has more fields than the header"):
        io.read_table(tmp_path / "long.csv")
    with pytest.raises(TypeError, match="columns must be a sequence of column names"):
        io.read_table(tmp_path / "t.csv", columns="user")
    (tmp_path / "bad.gz.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="bad.gz.csv.gz: cannot be read as gzip"):
        io.read_table(tmp_path / "bad.gz.csv.gz")


def test_missing_optional_packages_name_what_to_install(tmp_path, monkeypatch):
    """Parquet without pyarrow/fastparquet and .zst without zstandard: ImportError, a hint."""
    pd.DataFrame({"user": [1], "item": [2], "score": [0.5]}).to_parquet(tmp_path / "r.parquet")
    (tmp_path / "q.txt").write_text("1 0 2 1\n")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "fastparquet", None)
    with pytest.raises(ImportError) as err:
        io.read_table(tmp_path / "r.parquet")
    assert 'r.parquet: reading Parquet needs pyarrow (pip install "pyarrow>=11")' in str(err.value)
    monkeypatch.undo()  # pandas' own string methods use pyarrow once it is loaded

    def no_engine(*args, **kwargs):
        raise ImportError("Unable to find a usable engine")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    res = in_process("evaluate", tmp_path / "q.txt", tmp_path / "r.parquet", "-m", "ndcg@10")
    assert res.returncode == 1 and res.stderr.count("\n") == 1
    assert 'pip install "pyarrow>=11"' in res.stderr and "Traceback" not in res.stderr
    monkeypatch.setitem(sys.modules, "zstandard", None)
    (tmp_path / "q.zst").write_bytes(b"\x28\xb5\x2f\xfd not really zstd")
    with pytest.raises(ImportError, match=r"q.zst: .*needs the zstandard package"):
        io.read_trec_qrels(tmp_path / "q.zst")
    with pytest.raises(ImportError, match=r"pip install zstandard"):
        io.write_trec_qrels(pd.DataFrame({"user": [1], "item": [2]}), tmp_path / "w.zst")
    assert not (tmp_path / "w.zst").exists()


def test_writers_write_through_a_pipe(tmp_path):
    """A target that is not a regular file (a named pipe) is written to, not replaced."""
    import os
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    io.write_trec_qrels(GOOD, fifo)
    reader.join(timeout=60)
    assert got == ["u1 0 a 1\nu1 0 b 1\nu2 0 c 1\n"]
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


# --------------------------------------------------------------------------
# trec_eval's options: -J, -l, -M, -c, -q, -Z, and its measure groups
TREC_OPTION_MEASURES = ["P.5", "P.10", "recall.20", "map", "ndcg", "ndcg_cut.10", "recip_rank",
                        "Rprec", "bpref", "set_F", "success.5",
                        "infAP", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
                        ]  # fmt: skip


def _per_query(res, labels):
    assert res.returncode == 0, res.stderr
    return pd.DataFrame(json.loads(res.stdout)).T[labels].astype(float)


@pytest.mark.crosslib
@pytest.mark.parametrize(
    "options, kwargs",
    [
        (["-J"], {"judged_docs_only_flag": True}),
        (["--judged-only"], {"judged_docs_only_flag": True}),
        (["-l2"], {"relevance_level": 2}),
        (["--relevance-level", "3"], {"relevance_level": 3}),
        (["-J", "-l", "2"], {"judged_docs_only_flag": True, "relevance_level": 2}),
    ],
)
def test_cli_trec_eval_options_match_pytrec_eval(trec_files, options, kwargs):
    """-J (Sakai's condensed lists) and -l on tied scores and negative grades, per query."""
    qpath, rpath = trec_files
    qrels, run = {}, {}
    for line in Path(qpath).read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    for line in Path(rpath).read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    names = {m.split(".")[0] for m in TREC_OPTION_MEASURES} | {"ndcg_cut", "P", "success"}
    expected = pd.DataFrame(pytrec_eval.RelevanceEvaluator(qrels, names, **kwargs).evaluate(run)).T
    labels = [m.replace(".", "_", 1) for m in TREC_OPTION_MEASURES]
    got = _per_query(
        in_process("evaluate", qpath, rpath, "-m", *TREC_OPTION_MEASURES, "--convention",
                   "trec_eval", "-q", "--format", "json", *options),
        labels,
    )  # fmt: skip
    assert sorted(got.index) == sorted(expected.index)
    for label in labels:
        np.testing.assert_allclose(
            got[label], expected.loc[got.index, label], rtol=0, atol=1e-12, err_msg=label
        )


def test_cli_max_depth_is_the_truncated_run(tmp_path, trec_files):
    """-M N: each query's first N documents in trec_eval's order, as if the run held no more."""
    qpath, rpath = trec_files
    run = io.read_trec_run(rpath)
    # trec_eval's order: score (single precision, as the trec_eval convention), then id decreasing
    run["s32"] = run["score"].astype(np.float32)
    run = run.sort_values(["user", "s32", "item"], ascending=[True, False, False])
    short = run.groupby("user").head(7).drop(columns="s32")
    io.write_trec_run(short, tmp_path / "short.txt", tag="run")
    args = ["-m", *TREC_OPTION_MEASURES, "--convention", "trec_eval", "-q", "--format", "json"]
    labels = [m.replace(".", "_", 1) for m in TREC_OPTION_MEASURES]
    cut = _per_query(in_process("evaluate", qpath, rpath, "-M7", *args), labels)
    long = _per_query(in_process("evaluate", qpath, rpath, "--max-depth", "7", *args), labels)
    whole = _per_query(in_process("evaluate", qpath, tmp_path / "short.txt", *args), labels)
    pd.testing.assert_frame_equal(cut, whole)
    pd.testing.assert_frame_equal(long, whole)
    full = _per_query(in_process("evaluate", qpath, rpath, *args), labels)
    assert not full.equals(cut)


def test_cli_complete_and_short_spellings(trec_files, tmp_path):
    qpath, rpath = trec_files
    base = ["evaluate", qpath, rpath, "-m", "map", "P.5", "--convention", "trec_eval"]
    c = in_process(*base, "-c", "-q", "--format", "json")
    users = in_process(*base, "--users", "truth", "--per-user", "--format", "json")
    assert c.returncode == 0 and c.stdout == users.stdout
    per_query = json.loads(c.stdout)
    assert "q999" in per_query and per_query["q999"]["map"] == 0.0  # judged, not retrieved
    res = in_process(*base, "--complete", "--users", "both")
    assert res.returncode == 2 and "--users both" in res.stderr
    # -Z: z-scores from a file of means and standard deviations, trec_eval's lines
    zfile = tmp_path / "z.txt"
    zfile.write_text("q000 map 0.5 0.25\nq001 map 0.1 0\n")
    res = in_process(*base, "-q", "--format", "trec", "-Z", zfile)
    lines = dict(
        ((f[0].strip(), f[1]), f[2]) for f in (line.split("\t") for line in res.stdout.splitlines())
    )
    values = json.loads(users.stdout)
    assert lines[("Zmap", "q000")] == f"{(values['q000']['map'] - 0.5) / 0.25:6.4f}"
    assert lines[("ZP_5", "q000")] == "-1000000.0000"  # not in the file
    assert ("Zmap", "all") in lines
    bad = tmp_path / "bad.txt"
    bad.write_text("q000 map 0.5\n")
    res = in_process(*base, "-Z", bad)
    assert res.returncode == 1 and "line 1" in res.stderr


def test_cli_measure_groups(trec_files):
    """-m official / set / all_trec: trec_eval's groups, printed as trec_eval prints them."""
    qpath, rpath = trec_files
    res = in_process("evaluate", qpath, rpath, "-m", "official", "--convention", "trec_eval",
                     "--format", "trec")  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == f"{'runid':<22}\tall\trun"
    assert lines[1].startswith(f"{'num_q':<22}\tall\t") and lines[1].split("\t")[2].isdigit()
    labels = [line.split("\t")[0].strip() for line in lines]
    assert labels[2:][:3] == ["map", "Rprec", "bpref"] or "map" in labels
    assert labels.index("map") < labels.index("recip_rank") < labels.index("P_5")
    res = in_process("evaluate", qpath, rpath, "-m", "set", "P.5", "--convention",
                     "trec_eval", "--format", "csv")  # fmt: skip
    assert res.returncode == 0, res.stderr
    rows = [row.split(",")[0] for row in res.stdout.splitlines()[1:]]
    assert {"set_P", "set_recall", "set_relative_P", "set_F", "P_5"} <= set(rows)


# issue 26: trec_eval's measures whose summary is not the mean (num_* summed, gm_* geometric),
# set_map, Rprec_mult and infAP, per query and in trec_eval's 'all' line
TREC_SUMMARY_MEASURES = [
    "gm_map", "gm_bpref", "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
    "set_map", "Rprec_mult.0.2,1.0,2.0", "infAP",
]  # fmt: skip
TREC_SUMMARY_LABELS = [
    "gm_map", "gm_bpref", "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
    "set_map", "Rprec_mult_0.20", "Rprec_mult_1.00", "Rprec_mult_2.00", "infAP",
]  # fmt: skip


@pytest.mark.crosslib
def test_cli_trec_summaries_match_trec_eval(trec_files):
    """Per query and in the 'all' line, against pytrec_eval, on qrels with grade -1 lines.

    trec_eval's infAP reads a qrels grade -1 as pooled but unjudged (counted
    among the pooled documents), every other measure as unjudged. gm_* per
    query are the measures they summarise (trec_eval prints them in the
    summary only; pytrec_eval returns log(max(v, 1e-5))).
    """
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qpath, rpath = trec_files
    assert any(int(line.split()[3]) < 0 for line in Path(qpath).read_text().splitlines())
    keys = ["gm_map", "gm_bpref", "map", "bpref", "Rprec_mult", *TREC_SUMMARY_LABELS]
    expected = pytrec(qpath, rpath, [k for k in dict.fromkeys(keys) if k != "Rprec_mult_0.20"])
    res = in_process(
        "evaluate", qpath, rpath, "-m", *TREC_SUMMARY_MEASURES, "--convention", "trec_eval",
        "--per-user", "--format", "json",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    # num_q is the command line's count of the queries (trec_eval prints it
    # in the summary only): it is no per-query column
    per_query = [label for label in TREC_SUMMARY_LABELS if label != "num_q"]
    got = pd.DataFrame(json.loads(res.stdout)).T[per_query]
    assert sorted(got.index) == sorted(expected.index)
    got = got.loc[expected.index].astype(float)
    per_topic = {"gm_map": "map", "gm_bpref": "bpref"}
    for label in per_query:
        want = expected[per_topic.get(label, label)].astype(float)
        np.testing.assert_allclose(got[label], want, rtol=0, atol=1e-12, err_msg=label)
    np.testing.assert_allclose(
        np.log(np.maximum(got["gm_map"], 1e-5)), expected["gm_map"], rtol=0, atol=1e-12
    )
    res = in_process(
        "evaluate", qpath, rpath, "-m", *TREC_SUMMARY_MEASURES, "--convention", "trec_eval",
        "--format", "trec", "--digits", "12",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    rows = [line.split() for line in res.stdout.splitlines()]
    assert sorted(f[0] for f in rows) == sorted(TREC_SUMMARY_LABELS)
    for label, _, value in rows:
        values = list(expected[label].astype(float))
        want = pytrec_eval.compute_aggregated_measure(label, values)
        assert float(value) == pytest.approx(want, rel=1e-11, abs=1e-11), label
