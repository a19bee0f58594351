"""The ``recmetrics`` command on bad command lines and bad files: no traceback, ever.

A bad command line (an unknown option, a bad option value, options that
contradict each other) exits with status 2, argparse's usage and a one-line
message; a bad input file exits with status 1 and one line on standard error
that names the file (and the line, for a TREC file). The bad option values
are built from the parser's own actions, so that an option added later is
covered (or the test says which option it does not know how to break).
Most cases run in this process through ``recmetrics.cli.main``; a few run
through ``python -m recmetrics`` in a subprocess.
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import gzip
import io as io_module
import json
import lzma
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recmetrics import cli

# six queries (a bootstrap interval in compare needs at least 4 users)
QRELS = "".join(
    f"q{q} 0 d{q}1 2\nq{q} 0 d{q}2 0\nq{q} 0 d{q}3 1\nq{q} 0 d{q}4 1\n" for q in range(1, 7)
)
RUN = "".join(
    f"q{q} Q0 d{q}1 1 0.9 t\nq{q} Q0 d{q}9 2 0.8 t\nq{q} Q0 d{q}3 3 0.{q} t\n" for q in range(1, 7)
)
RUN_B = RUN.replace("0.9", "0.1")
MEASURES = ["-m", "ndcg@10", "precision@2"]  # our names: no note on stderr


def in_process(*args):
    """Exit status, standard output and standard error of ``recmetrics.cli.main``."""
    out, err = io_module.StringIO(), io_module.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in args])
        except SystemExit as exc:  # argparse: usage errors, --help, --version
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def subprocess_run(*args):
    cmd = [sys.executable, "-m", "recmetrics", *map(str, args)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    (d / "qrels.txt").write_text(QRELS)
    (d / "run.txt").write_text(RUN)
    (d / "other.txt").write_text(RUN_B)
    return d


def assert_usage_error(result, command, fragment):
    """Exit 2, nothing on stdout, argparse's usage then one error line."""
    code, out, err = result
    assert code == 2, err
    assert out == "" and "Traceback" not in err
    lines = err.rstrip("\n").split("\n")
    assert lines[0].startswith(f"usage: recmetrics {command}")
    assert lines[-1].startswith(f"recmetrics {command}: error: "), err
    assert fragment in lines[-1], err


def assert_file_error(result, name, fragment="", line=None, command="evaluate"):
    """Exit 1, nothing on stdout, one line naming the file (and the line)."""
    code, out, err = result
    assert code == 1, err
    assert out == "" and "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"recmetrics {command}: error: "), err
    assert name in err and fragment in err, err
    assert "error: unexpected" not in err, err
    if line is not None:
        assert f"line {line}" in err, err


def expected_json(files):
    code, out, err = in_process(
        "evaluate", files / "qrels.txt", files / "run.txt", *MEASURES, "--format", "json"
    )
    assert code == 0, err
    return json.loads(out)


# --------------------------------------------------------------------------
# bad option values, built from the parser's actions
def _actions():
    """(command, action) for every option of every subcommand that takes a value."""
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, p in sub.choices.items():
        for action in p._actions:
            if action.option_strings and action.nargs != 0:
                yield command, action


BAD_VALUES = {
    cli._digits: ["-1", "21", "1.5", "x", "", "nan"],
    cli._count: ["0", "-3", "2.5", "1e3", "x", ""],
    cli._seed: ["-1", "0.5", "x", ""],
    cli._probability: ["0", "1", "1.5", "-0.1", "nan", "inf", "x", ""],
    cli._log_base: ["1", "0.5", "0", "-2", "nan", "inf", "x", ""],
    cli._name: [""],
    cli._level: ["0", "-1", "nan", "inf", "x", ""],
    cli._measure: ["nosuch@10", "ndcg@0", "P_0", "P.x", "", "novelty@10", "auc@10"],
}
FILE_OPTIONS = {"qrels", "zscores"}  # a path: a bad one is a bad file (exit 1), tested below


def _bad_cases():
    for command, action in _actions():
        if action.dest in FILE_OPTIONS:
            continue
        if action.choices is not None:
            values = ["nonesuch", ""]
        else:
            assert action.type in BAD_VALUES, (
                f"{command} {action.option_strings}: no bad values known for its type "
                f"{action.type}; add them to BAD_VALUES"
            )
            values = BAD_VALUES[action.type]
        for value in values:
            yield pytest.param(command, action.option_strings[-1], value,
                               id=f"{command}{action.option_strings[-1]}={value!r}")  # fmt: skip


def _base(command, files):
    if command == "evaluate":
        return ["evaluate", files / "qrels.txt", files / "run.txt"]
    return ["compare", files / "run.txt", files / "other.txt", "--qrels", files / "qrels.txt"]


def test_every_option_is_swept():
    """The sweep covers every option that takes a value (a new option needs bad values)."""
    cases = {(c, o) for c, o, _ in (p.values for p in _bad_cases())}
    options = {(c, a.option_strings[-1]) for c, a in _actions() if a.dest not in FILE_OPTIONS}
    assert cases == options
    assert ("compare", "--alpha") in cases and ("evaluate", "--digits") in cases
    assert len(options) >= 2 * 20


@pytest.mark.parametrize("command, option, value", list(_bad_cases()))
def test_bad_option_value_exits_2(files, command, option, value):
    res = in_process(*_base(command, files), option, value)
    assert_usage_error(res, command, f"{option}: ")  # "argument -M/--max-depth: ..."


@pytest.mark.parametrize(
    "command, option",
    sorted({(c, a.option_strings[-1]) for c, a in _actions()}),
)
def test_option_without_its_value_exits_2(files, command, option):
    res = in_process(*_base(command, files), option)
    assert_usage_error(res, command, "expected")


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--score", "s", "--rank", "r"], "give --score or --rank, not both"),
        (["-m", "map", "ap"], "the same measure"),
        (["-m", "P_10", "precision@10"], "'P_10' and 'precision@10' are the same measure"),
        (["-m", "P_10", "-m", "P.10"], "'P_10' is asked for twice"),
        (["-m", "mrr@10", "--convention", "trec_eval"], "mrr has no cutoff"),
        (["--convention", "trec_eval", "--ap-denominator", "min"], "sets ap_denominator"),
        (["-m", "entropy@10", "--per-user"], "cannot be used with --per-user"),
        (["--relevance", "grade"], "--relevance applies to tables"),
        (["--score", "s"], "a TREC run has the columns"),
        (["--rank", "r"], "a TREC run has the columns"),
        (["--user", "x", "--item", "x"], "--user and --item name the same column"),
        (["--user", "relevance"], "a TREC file's relevance column"),
        (["--item", "score"], "a TREC file's score column"),
    ],
)
def test_contradicting_options_exit_2(files, extra, fragment):
    assert_usage_error(in_process(*_base("evaluate", files), *extra), "evaluate", fragment)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["{d}/run.txt"], "compare needs at least two runs"),
        (["{d}/run.txt", "{d}/run.txt"], "the same run is given twice"),
        (["{d}/run.txt", "{d}/other.txt", "--baseline", "x"], "--baseline 'x' is not one of"),
        (["{d}/run.txt", "{d}/other.txt", "-m", "gini@10"], "n_items"),
        (["{d}/run.txt", "{d}/other.txt", "-m", "entropy@10"], "cannot be used with compare"),
        (["{d}/run.txt", "{d}/other.txt"], "required: --qrels"),
    ],
)
def test_compare_usage_errors_exit_2(files, args, fragment):
    argv = [a.format(d=files) for a in args]
    if "required" not in fragment:
        argv += ["--qrels", files / "qrels.txt"]
    assert_usage_error(in_process("compare", *argv), "compare", fragment)


def test_top_level_usage_errors(files):
    code, out, err = in_process()
    assert code == 2 and "required" in err and "Traceback" not in err
    code, out, err = in_process("nonesuch")
    assert code == 2 and "invalid choice" in err
    code, out, err = in_process("evaluate", files / "qrels.txt")
    assert code == 2 and "required" in err
    code, out, err = in_process(*_base("evaluate", files), "--nonesuch")
    assert code == 2 and err.endswith("error: unrecognized arguments: --nonesuch\n")


def test_bad_option_values_through_a_subprocess(files):
    for command, option, value in [("evaluate", "--digits", "-1"), ("compare", "--alpha", "1.5")]:
        res = subprocess_run(*_base(command, files), option, value)
        assert_usage_error(res, command, f"argument {option}: must be")


# --------------------------------------------------------------------------
# bad files: exit 1, one line naming the file and, for TREC files, the line
def _compressed(opener, text):
    buf = io_module.BytesIO()
    with opener(buf, "wb") as f:
        f.write(text.encode())
    return buf.getvalue()


def _gzip(text):
    return _compressed(lambda b, m: gzip.GzipFile(fileobj=b, mode=m), text)


BAD_RUNS = {
    # name: (bytes, fragment of the message, line or None)
    "empty.txt": (b"", "no prediction (an empty file or table)", None),
    "blank.txt": (b"\n \n\t\n", "no prediction", None),
    "comment.txt": (b"# my run\n" + RUN.encode(), "expected 6 fields", 1),
    "five.txt": (b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4\n", "expected 6 fields", 2),
    "seven.txt": (b"q1 Q0 d1 1 0.5 t x\n", "got more than 6", 1),
    "truncated.txt": (RUN.encode()[:-9], "expected 6 fields", RUN.count("\n")),
    "score.txt": (b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 high t\n", "score must be a number", 2),
    "infinite.txt": (b"q1 Q0 d1 1 inf t\n", "score must be finite", 1),
    "rank.txt": (b"q1 Q0 d1 x 0.5 t\n", "rank must be an integer", 1),
    "twice.txt": (b"q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", "retrieved twice", None),
    "latin1.txt": ("q\u00e9 Q0 d1 1 0.5 t\n".encode("latin-1"), "not UTF-8 text", None),
    "binary.txt": (bytes(range(256)) * 4, "", None),
    "corrupt.gz": (b"this is not gzip\n", "cannot be read as gzip", None),
    "truncated.gz": (_gzip(RUN)[:-12], "cannot be read as gzip", None),
    "bzip2.gz": (bz2.compress(RUN.encode()), "cannot be read as gzip", None),
    "corrupt.bz2": (b"this is not bzip2\n", "cannot be read as bz2", None),
    "truncated.bz2": (bz2.compress(RUN.encode())[:-10], "cannot be read as bz2", None),
    "corrupt.xz": (b"this is not xz\n", "cannot be read as xz", None),
    "truncated.xz": (lzma.compress(RUN.encode())[:-10], "cannot be read as xz", None),
    "empty.gz": (_gzip(""), "no prediction", None),
    "header.csv": (b"user,item,score\n", "no prediction", None),
    "nothing.csv": (b"", "cannot be read as csv", None),
    "short.csv": (
        b"user,item,score\nq1,d1,0.5\nq1,d2\n",
        "'score' has no value in data row 2",
        None,
    ),
    "long.csv": (b"user,item,score\nq1,d1,0.5\nq1,d2,0.4,9\n", "line 3", None),
    "longfirst.csv": (b"user,item,score\nq1,d1,0.5,9\n", "more fields than the header", None),
    "text.csv": (b"user,item,score\nq1,d1,high\n", "must hold numbers, got 'high'", None),
    "inf.csv": (b"user,item,score\nq1,d1,inf\n", "must hold finite numbers", None),
    "columns.csv": (b"uid,iid,s\nq1,d1,0.5\n", "has no column 'user'", None),
    "quote.csv": (b'user,item,score\n"q1,d1,0.5\n', "cannot be read as csv", None),
    "corrupt.parquet": (b"PAR1 not parquet", "cannot be read as parquet", None),
    "corrupt.csv.gz": (b"not gzip", "cannot be read as gzip", None),
}


def _with_files(command, files, qrels, run):
    if command == "evaluate":
        return ["evaluate", qrels, run, *MEASURES]
    return ["compare", files / "run.txt", run, "--qrels", qrels, *MEASURES]


@pytest.mark.parametrize("command", ["evaluate", "compare"])
@pytest.mark.parametrize("name", sorted(BAD_RUNS))
def test_bad_run_file_exits_1(files, tmp_path, name, command):
    content, fragment, line = BAD_RUNS[name]
    path = tmp_path / name
    path.write_bytes(content)
    res = in_process(*_with_files(command, files, files / "qrels.txt", path))
    assert_file_error(res, name, fragment, line, command=command)


BAD_QRELS = {
    "empty.txt": (b"", "no judgement (an empty file or table)", None),
    "blank.txt": (b"\n\n", "no judgement", None),
    "three.txt": (b"q1 0 d1 1\nq1 0 d2\n", "expected 4 fields", 2),
    "grade.txt": (b"q1 0 d1 1\nq1 0 d2 1.5\n", "relevance must be an integer", 2),
    "huge.txt": (b"q1 0 d1 1e30\n", "relevance must be an integer", 1),
    "twice.txt": (b"q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n", "lines 1 and 3", None),
    # no comment lines: '# judged by me' has 4 fields, and 'me' is no grade
    "comment.txt": (b"# judged by me\n" + QRELS.encode(), "relevance must be an integer", 1),
    "corrupt.gz": (b"not gzip", "cannot be read as gzip", None),
    "truncated.bz2": (bz2.compress(QRELS.encode())[:-10], "cannot be read as bz2", None),
    "header.csv": (b"user,item\n", "no judgement", None),
    "missing.csv": (b"user,item\nq1,\n", "'item' has no value in data row 1", None),
}


@pytest.mark.parametrize("command", ["evaluate", "compare"])
@pytest.mark.parametrize("name", sorted(BAD_QRELS))
def test_bad_qrels_file_exits_1(files, tmp_path, name, command):
    content, fragment, line = BAD_QRELS[name]
    path = tmp_path / name
    path.write_bytes(content)
    res = in_process(*_with_files(command, files, path, files / "other.txt"))
    assert_file_error(res, name, fragment, line, command=command)


def test_bad_table_columns_exit_1(files, tmp_path):
    (tmp_path / "t.csv").write_text("user,item,g\nq1,d1,high\n")
    res = in_process("evaluate", tmp_path / "t.csv", files / "run.txt", "--relevance", "g")
    assert_file_error(res, "t.csv", "column 'g' must hold numbers, got 'high' in data row 1")
    (tmp_path / "r.csv").write_text("user,item,r\nq1,d1,0\n")
    res = in_process("evaluate", files / "qrels.txt", tmp_path / "r.csv", "--rank", "r")
    assert_file_error(res, "r.csv", "must hold integer ranks >= 1, got 0 in data row 1")
    # what evaluate rejects is reported with both files named
    (tmp_path / "r2.csv").write_text("user,item,r\nq1,d1,1\nq1,d2,1\n")
    res = in_process("evaluate", files / "qrels.txt", tmp_path / "r2.csv", "--rank", "r")
    assert_file_error(res, "r2.csv", "ranks must be distinct")
    assert "qrels.txt" in res[2]


def test_missing_and_folder_inputs_exit_1(files, tmp_path):
    res = in_process("evaluate", files / "qrels.txt", tmp_path / "none.txt")
    assert_file_error(res, "none.txt", "RUN: no such file")
    res = in_process("evaluate", tmp_path, files / "run.txt")
    assert_file_error(res, str(tmp_path), "QRELS: ", None)
    assert "is a folder" in res[2]
    res = in_process(
        "compare", files / "run.txt", tmp_path / "none.txt", "--qrels", files / "qrels.txt"
    )
    assert_file_error(res, "none.txt", "RUN: no such file", command="compare")


def test_empty_run_in_compare_exits_1(files, tmp_path):
    (tmp_path / "empty.txt").write_text("")
    res = in_process(
        "compare", files / "run.txt", tmp_path / "empty.txt", "--qrels", files / "qrels.txt"
    )
    assert_file_error(res, "empty.txt", "no prediction", command="compare")


def test_bad_files_through_a_subprocess(files, tmp_path):
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "run.txt.gz").write_bytes(_gzip(RUN)[:-12])
    (tmp_path / "bad.txt").write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 high t\n")
    for name, fragment, line in [
        ("empty.txt", "no prediction", None),
        ("run.txt.gz", "cannot be read as gzip", None),
        ("bad.txt", "score must be a number, got 'high'", 2),
    ]:
        res = subprocess_run("evaluate", files / "qrels.txt", tmp_path / name, *MEASURES)
        assert_file_error(res, name, fragment, line)


# --------------------------------------------------------------------------
# odd but valid files give the numbers of the clean ones
ODD_RUNS = {
    "crlf.txt": RUN.replace("\n", "\r\n").encode(),
    "cr.txt": RUN.replace("\n", "\r").encode(),
    "bom.txt": b"\xef\xbb\xbf" + RUN.encode(),
    "tabs.txt": RUN.replace(" ", "\t").encode(),
    "spaces.txt": ("  " + RUN.replace("\n", "   \n\n  ").replace(" ", "  ")).encode(),
    "no_newline.txt": RUN.rstrip("\n").encode(),
    "run.txt.gz": _gzip(RUN),
    "run.txt.bz2": bz2.compress(RUN.encode()),
    "run.txt.xz": lzma.compress(RUN.encode()),
    "bom.csv": b"\xef\xbb\xbf"
    + b"user,item,score\n"
    + "".join(
        f"{f[0]},{f[2]},{f[4]}\n" for f in (line.split() for line in RUN.splitlines())
    ).encode(),
}


@pytest.mark.parametrize("name", sorted(ODD_RUNS))
def test_odd_but_valid_runs(files, tmp_path, name):
    (tmp_path / name).write_bytes(ODD_RUNS[name])
    code, out, err = in_process(
        "evaluate", files / "qrels.txt", tmp_path / name, *MEASURES, "--format", "json"
    )
    assert code == 0 and err == "", err
    assert json.loads(out) == expected_json(files)


def test_non_ascii_ids(tmp_path):
    """Ids are compared as text: non-ASCII ids match across a TREC file and a table."""
    (tmp_path / "q.txt").write_text("q\u00e9 0 d\u4e2d 1\nq\u00e9 0 d2 0\n\u0434 0 \u00df 1\n")
    (tmp_path / "r.csv").write_text(
        "user,item,score\nq\u00e9,d2,0.9\nq\u00e9,d\u4e2d,0.5\n\u0434,\u00df,0.1\n"
    )
    code, out, err = in_process(
        "evaluate", tmp_path / "q.txt", tmp_path / "r.csv", "-m", "precision@1", "--per-user",
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out) == {"q\u00e9": {"precision@1": 0.0}, "\u0434": {"precision@1": 1.0}}


def test_subprocess_reads_odd_files(files, tmp_path):
    (tmp_path / "crlf_bom.txt").write_bytes(b"\xef\xbb\xbf" + RUN.replace("\n", "\r\n").encode())
    code, out, err = subprocess_run(
        "evaluate", files / "qrels.txt", tmp_path / "crlf_bom.txt", *MEASURES, "--format", "json"
    )
    assert code == 0 and "Traceback" not in err and "error" not in err, err
    assert json.loads(out) == expected_json(files)


# --------------------------------------------------------------------------
# --truth-format and --run-format win over the file name
def test_formats_are_honoured(files, tmp_path):
    rows = [line.split() for line in RUN.splitlines()]
    run = pd.DataFrame({"user": [r[0] for r in rows], "item": [r[2] for r in rows],
                        "score": [float(r[4]) for r in rows]})  # fmt: skip
    truth = pd.DataFrame([line.split() for line in QRELS.splitlines()],
                         columns=["user", "iteration", "item", "grade"])  # fmt: skip
    truth["grade"] = truth["grade"].astype(int)
    truth[["user", "item", "grade"]].to_csv(tmp_path / "truth.txt", index=False)  # CSV
    run.to_csv(tmp_path / "run.csv", sep="\t", index=False)  # a TSV named .csv
    run.to_parquet(tmp_path / "run.dat")  # Parquet named .dat
    (tmp_path / "trec.csv").write_text(RUN)  # a TREC run named .csv
    with gzip.open(tmp_path / "run.data.gz", "wt") as f:  # compressed CSV, odd name
        run.to_csv(f, index=False)
    expected = expected_json(files)
    cases = [
        ("--run-format", "tsv", tmp_path / "run.csv"),
        ("--run-format", "parquet", tmp_path / "run.dat"),
        ("--run-format", "trec", tmp_path / "trec.csv"),
        ("--run-format", "csv", tmp_path / "run.data.gz"),
    ]
    for option, fmt, path in cases:
        code, out, err = in_process(
            "evaluate", files / "qrels.txt", path, option, fmt, *MEASURES, "--format", "json"
        )
        assert code == 0, (fmt, err)
        assert json.loads(out) == expected, fmt
    code, out, err = in_process(
        "evaluate", tmp_path / "truth.txt", files / "run.txt", "--truth-format", "csv",
        "--relevance", "grade", *MEASURES, "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out) == expected
    # by name, the TSV named .csv is one column: the error names the file
    res = in_process("evaluate", files / "qrels.txt", tmp_path / "run.csv", *MEASURES)
    assert_file_error(res, "run.csv", "has no column 'user'")


# --------------------------------------------------------------------------
# LaTeX without jinja2
def test_latex_without_jinja2(files, monkeypatch):
    monkeypatch.setitem(sys.modules, "jinja2", None)  # import jinja2 -> ImportError
    with pytest.raises(ImportError):
        import jinja2  # noqa: F401
    code, out, err = in_process(
        "evaluate", files / "qrels.txt", files / "run.txt", "-m", "P_2", "ndcg@10",
        "--format", "latex", "--digits", "3",
    )  # fmt: skip
    assert code == 0, err
    values = expected_json(files)
    assert out == (
        "\\begin{tabular}{lr}\n\\toprule\nmeasure & value \\\\\n\\midrule\n"
        f"P\\_2 & {values['precision@2']:.3f} \\\\\nndcg@10 & {values['ndcg@10']:.3f} \\\\\n"
        "\\bottomrule\n\\end{tabular}\n"
    )
    code, out, err = in_process(
        "compare", files / "run.txt", files / "other.txt", "--qrels", files / "qrels.txt",
        "-m", "ndcg@10", "--format", "latex", "--n-resamples", "200",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "\\begin{tabular}{llrrrrrrl}" and lines[-1] == "\\end{tabular}"
    assert lines[2].startswith("model & metric & mean & ci\\_low")
    assert lines[4].startswith("run & ndcg@10 & ") and lines[5].startswith("other & ndcg@10 & ")
    assert "-- & -- & -- & False" in lines[4]


def test_latex_escapes_ids(tmp_path):
    (tmp_path / "q.txt").write_text("u_1&x%$#{}~^\\ 0 d1 1\n")
    (tmp_path / "r.txt").write_text("u_1&x%$#{}~^\\ Q0 d1 1 0.5 t\n")
    code, out, err = in_process(
        "evaluate", tmp_path / "q.txt", tmp_path / "r.txt", "-m", "ndcg@10", "--per-user",
        "--format", "latex",
    )  # fmt: skip
    assert code == 0, err
    row = (
        "u\\_1\\&x\\%\\$\\#\\{\\}\\textasciitilde{}\\textasciicircum{}\\textbackslash{} "
        "& 1.0000 \\\\"
    )
    assert row in out.splitlines()


# --------------------------------------------------------------------------
# errors deep inside, and broken pipes
def test_no_traceback_for_unexpected_errors(files, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(sys.modules["recmetrics.evaluation"], "evaluate", boom)
    code, out, err = in_process("evaluate", files / "qrels.txt", files / "run.txt")
    assert code == 1 and out == "" and "Traceback" not in err
    assert err == (
        "recmetrics evaluate: error: unexpected RuntimeError: boom second line (please report "
        "this with the command line)\n"
    )


@pytest.mark.parametrize("error", [ImportError("no pyarrow"), OverflowError("too big")])
def test_import_and_arithmetic_errors_are_one_line(files, monkeypatch, error):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(sys.modules["recmetrics.evaluation"], "evaluate", fail)
    code, out, err = in_process("evaluate", files / "qrels.txt", files / "run.txt")
    assert (code, out, err) == (1, "", f"recmetrics evaluate: error: {error}\n")


def test_broken_pipe_is_quiet(files):
    measures = [f"ndcg@{k}" for k in range(1, 200)]
    cmd = [sys.executable, "-m", "recmetrics", "evaluate", str(files / "qrels.txt"),
           str(files / "run.txt"), "--per-user", "-m", *measures]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()  # the reader goes away, as `| head -c 10` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_trec_output_digits(files):
    code, out, err = in_process(
        "evaluate", files / "qrels.txt", files / "run.txt", "-m", "ndcg@10", "--format",
        "trec", "--digits", "0",
    )  # fmt: skip
    assert code == 0, err
    value = expected_json(files)["ndcg@10"]
    assert out.split() == ["ndcg@10", "all", f"{value:.0f}"]
    assert np.isclose(float(out.split()[2]), round(value))


def test_file_errors_name_paths_as_given(files):
    res = in_process("evaluate", files / "qrels.txt", Path("relative") / "none.txt")
    assert_file_error(res, "relative/none.txt", "no such file")
    res = in_process("evaluate", "", files / "run.txt")
    assert_file_error(res, "QRELS", "the path is empty")
