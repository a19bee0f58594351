"""The compiled TREC reader gives what the general (pandas) reader gives, or hands over to it.

:func:`recmetrics.io._trec_fast.read_fast` reads a well-formed file in one
compiled pass; on anything else it returns None and the general reader
reads the file (and raises its error naming the file and the line). Every
file here is read both ways: the same frame (dtypes, values, the sign of a
zero) or the same error.
"""

from __future__ import annotations

import gzip
import random

import numpy as np
import pandas as pd
import pytest

from recmetrics import io
from recmetrics._kernels import _dispatch
from recmetrics.io import _trec_fast, trec

pytestmark = pytest.mark.skipif(not _trec_fast.HAVE_NUMBA, reason="the fast path needs numba")


@pytest.fixture(autouse=True)
def _small_files_compiled(monkeypatch):
    """Small files take the fast path even before its kernels are in numba's cache."""
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", False)


READERS = {"qrels": io.read_trec_qrels, "run": io.read_trec_run}


def _general(read, path, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(_trec_fast, "read_fast", lambda *args: None)
        return _outcome(read, path)


def _outcome(read, path):
    try:
        frame = read(path)
    except ValueError as err:
        return str(err)
    return frame


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    pd.testing.assert_frame_equal(a, b)
    if "score" in a:  # a zero keeps its sign, as pandas reads it
        assert (np.signbit(a["score"]) == np.signbit(b["score"])).all()


def _fast_taken(path, kind):
    fields = trec._QRELS_FIELDS if kind == "qrels" else trec._RUN_FIELDS
    kinds = (
        [1, 0, 1, 2]
        if kind == "qrels"
        else [_trec_fast.ID, _trec_fast.SKIP, _trec_fast.ID, _trec_fast.INT, _trec_fast.FLOAT, 1]
    )
    return _trec_fast.read_fast(path, fields, kinds, trec._compression(path), False) is not None


WELL_FORMED = {
    "qrels": [
        b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 -1\n",
        b" q1\t0  d1 2 \r\nq1 0 d2 1\rq1 0 d3 0",  # whitespace, \r\n, \r, no last \n
        b"\xef\xbb\xbfq1 0 d1 1\n\n \t \nq1 0 d2 +3\n",  # BOM, blank lines, +3
        b"#q 0 d 1\n\"q 0 'd' 007\n",  # '#' and quotes are text
        "q\u00e9 0 d\u2603 1\nq\u00e9 0 d\u00a0x 2\n".encode(),  # UTF-8, U+00A0 is text
    ],
    "run": [
        b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 -0.0 t\nq1 Q0 d3 3 -0e5 t\n",
        b"q1 Q0 d1 1 1e5 t\nq1 Q0 d2 2 .5 t\nq1 Q0 d3 3 5. t\nq1 Q0 d4 4 +2 t\n",
        b"q1 Q0 d1 1 0.12345678901234567890123 t\nq1 Q0 d2 2 1e-300 t\n",
        b"q1 Q0 d1 1 123456789012345678901234 t\nq2 Q0 d1 1 9007199254740993 t\n",
        b"q2 Q0 d1 1 3 a\nq1 Q0 d1 1 3 b\nq2 Q0 d2 2 2 a\n",  # users not grouped
    ],
}

HANDED_OVER = {
    "qrels": [
        b"q1 0 d1 1\nq1 0 d2\n",  # too few fields
        b"q1 0 d1 1 x\n",  # too many
        b"q1 0 d1 1.0\n",  # an integer in another spelling: the general reader decides
        b"q1 0 d1 1e0\n",
        b"q1 0 d1 1234567890123456\n",  # 16 digits
        b"q1 0 d1 99999999999999999\n",  # too large
        b"q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n",  # judged twice (users not grouped)
        b"q1 0 d1 1\nq1 0 d1 0\n",  # judged twice (grouped)
        b"q1 0 d\x0b1 1\n",  # a control character (pandas: part of the field)
        b"q1 0 d\x001 1\n",
        "q\u00e9 0 d1 1\n".encode("latin-1"),  # not UTF-8
        b"",
        b"\n \n",
    ],
    "run": [
        b"q1 Q0 d1 1 inf t\n",
        b"q1 Q0 d1 1 nan t\n",
        b"q1 Q0 d1 1 1e400 t\n",
        b"q1 Q0 d1 1 1e5000000 t\n",
        b"q1 Q0 d1 1 -0 t\nq1 Q0 d2 2 1 t\n",  # -0 as pandas reads it in an integer chunk
        b"q1 Q0 d1 1 -0 t\nq1 Q0 d2 2 1.5 t\n",
        b"q1 Q0 d1 1 0x10 t\n",
        b"q1 Q0 d1 1 1_0 t\n",
        b"q1 Q0 d1 1 . t\n",
        b"q1 Q0 d1 1 1e t\n",
        b"q1 Q0 d1 x 0.5 t\n",
        b"q1 Q0 d1 1.0 0.5 t\n",
        b"q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n",
    ],
}


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_well_formed_files_take_the_fast_path(tmp_path, monkeypatch, kind):
    for n, text in enumerate(WELL_FORMED[kind]):
        path = tmp_path / f"{kind}{n}.txt"
        path.write_bytes(text)
        assert _fast_taken(path, kind), text
        _same(_outcome(READERS[kind], path), _general(READERS[kind], path, monkeypatch))


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_other_files_are_handed_to_the_general_reader(tmp_path, monkeypatch, kind):
    for n, text in enumerate(HANDED_OVER[kind]):
        path = tmp_path / f"{kind}{n}.txt"
        path.write_bytes(text)
        assert not _fast_taken(path, kind), text
        _same(_outcome(READERS[kind], path), _general(READERS[kind], path, monkeypatch))


def _random_number(rng):
    choice = rng.randrange(8)
    if choice == 0:
        return str(rng.randrange(-(10**6), 10**6))
    if choice == 1:
        return repr(rng.uniform(-1e3, 1e3))
    if choice == 2:
        return f"{rng.randrange(10**25)}e{rng.randrange(-330, 310)}"
    if choice == 3:
        return f"{rng.choice(['', '-', '+'])}{rng.randrange(10**8)}.{rng.randrange(10**12):012d}"
    if choice == 4:
        return rng.choice(["0", "0.0", "-0.0", "+0", ".5", "5.", "1E+05", "2e-3", "007.50"])
    if choice == 5:
        return f"{rng.random():.{rng.randrange(1, 30)}f}"
    if choice == 6:
        return f"{rng.randrange(10**30)}"
    return rng.choice(["1.0", "1e0", "-0", "inf", "x", "1,5"])  # handed over (rarely)


def _random_lines(rng, kind, n):
    space = [" ", "\t", "  ", " \t"]
    ends = ["\n", "\r\n", "\r"]
    lines = []
    for i in range(n):
        user = rng.choice(["q1", "q2", "q10", "#q", "q\u00e9"])
        item = f"d{rng.randrange(40)}"
        if kind == "qrels":
            last = str(rng.randrange(-2, 4)) if rng.random() > 0.02 else rng.choice(["1.0", "+1"])
            fields = [user, "0", item, last]
        else:
            rank = str(i + 1) if rng.random() > 0.02 else "1.0"
            fields = [user, "Q0", item, rank, _random_number(rng), rng.choice(["t", "u"])]
        sep = rng.choice(space)
        lead = rng.choice(["", "", " ", "\t"])
        lines.append(lead + sep.join(fields) + rng.choice(["", "", " "]) + rng.choice(ends))
        if rng.random() < 0.05:
            lines.append(rng.choice(["\n", "  \n", "\t\r\n"]))
    return "".join(lines)


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_random_files_read_as_the_general_reader_reads_them(tmp_path, monkeypatch, kind):
    rng = random.Random(30)
    taken = 0
    for n in range(120):
        text = _random_lines(rng, kind, rng.randrange(1, 30))
        if rng.random() < 0.1:
            text = "\ufeff" + text
        path = tmp_path / f"{kind}{n}.txt"
        path.write_text(text, encoding="utf-8", newline="")
        taken += _fast_taken(path, kind)
        _same(_outcome(READERS[kind], path), _general(READERS[kind], path, monkeypatch))
    assert taken > 20  # both paths are exercised


def test_numbers_are_read_as_python_reads_them(tmp_path):
    """Correctly rounded, on the fast path and through float() (many digits, big powers)."""
    rng = random.Random(7)
    numbers = [_random_number(rng) for _ in range(5000)]
    # those handed over: another spelling, or too large for a float64
    numbers = [
        x
        for x in numbers
        if x not in {"1.0", "1e0", "-0", "inf", "x", "1,5"} and np.isfinite(float(x))
    ]
    path = tmp_path / "run"
    path.write_text("".join(f"q Q0 d{i} {i + 1} {x} t\n" for i, x in enumerate(numbers)))
    assert _fast_taken(path, "run")
    got = io.read_trec_run(path)["score"].to_numpy()
    want = np.array([float(x) for x in numbers])
    assert (got == want).all()
    assert (np.signbit(got) == np.signbit(want)).all()


def test_many_ids_and_long_ids_grow_the_tables(tmp_path, monkeypatch):
    """More distinct ids than the first hash table and arena hold; many float() numbers."""
    n = 20_000
    items = [f"doc-{i:07d}-" + "x" * (i % 50) for i in range(n)]
    scores = [f"0.{i:025d}" for i in range(n)]  # 25 digits: float() for each
    text = "".join(f"q{i % 3000} Q0 {items[i]} {i + 1} {scores[i]} tag{i % 2}\n" for i in range(n))
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(text.encode(), mtime=0))
    assert _fast_taken(path, "run")
    fast = io.read_trec_run(path, progress=True)
    _same(fast, _general(io.read_trec_run, path, monkeypatch))
    assert fast["item"].tolist() == items and fast["user"].nunique() == 3000


def test_errors_name_the_line_after_the_hand_over(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\n\nq1 0 d2 1 extra\n")
    with pytest.raises(ValueError, match=r"qrels.txt, line 3: expected 4 fields"):
        io.read_trec_qrels(path)


def test_an_id_longer_than_the_arena(tmp_path, monkeypatch):
    """One id of 3 MB: the arena grows to hold it at once."""
    path = tmp_path / "qrels"
    path.write_text(f"q1 0 {'x' * (3 << 20)} 1\nq1 0 d 0\nq2 0 d 2\n")
    assert _fast_taken(path, "qrels")
    fast = io.read_trec_qrels(path)
    _same(fast, _general(io.read_trec_qrels, path, monkeypatch))
    assert fast["item"].str.len().tolist() == [3 << 20, 1, 1]


def test_a_mapped_file_leaves_nothing_behind(tmp_path, capsys):
    """The frame owns its data: the file can be rewritten once read; the bar shows its bytes."""
    path = tmp_path / "run"
    text = "".join(f"q{i % 5} Q0 d{i} {i + 1} 0.{i:03d} t\n" for i in range(400))
    path.write_text(text)
    assert _fast_taken(path, "run")
    run = io.read_trec_run(path, progress=True)
    assert "100%" in capsys.readouterr().err  # the bar reached the file's size
    path.write_text(text.replace("d", "x").replace("0.", "9."))
    assert run["item"].tolist() == [f"d{i}" for i in range(400)]
    assert run["score"].tolist() == [float(f"0.{i:03d}") for i in range(400)]


def test_small_files_wait_for_the_compiled_kernels(tmp_path, monkeypatch):
    """Below _SMALL_BYTES, pandas' parser reads a file until the kernels are compiled."""
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1\n")
    monkeypatch.setattr(_dispatch, "_SMALL_TO_NUMPY", True)
    monkeypatch.setattr(_dispatch, "_ready", lambda kernel, args: False)
    assert not _fast_taken(path, "qrels")
    monkeypatch.setattr(_trec_fast, "_SMALL_BYTES", 4)
    assert _fast_taken(path, "qrels")  # a large file: compiled if need be
    monkeypatch.setattr(_dispatch, "_ready", lambda kernel, args: True)
    monkeypatch.setattr(_trec_fast, "_SMALL_BYTES", 1 << 22)
    assert _fast_taken(path, "qrels")


def _as_text(frame):
    """A frame of the command line's reader with its categorical ids as strings."""
    if isinstance(frame, str):
        return frame
    cats = [c for c in frame if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    assert cats == [c for c in frame if c in ("user", "item", "tag")]
    return frame.astype({c: str for c in cats})


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_the_command_lines_categorical_ids_are_the_same_strings(tmp_path, monkeypatch, kind):
    rng = random.Random(31)
    for n in range(60):
        text = _random_lines(rng, kind, rng.randrange(1, 30))
        path = tmp_path / f"{kind}{n}.txt"
        path.write_text(text, encoding="utf-8", newline="")
        want = _outcome(READERS[kind], path)
        _same(_as_text(_outcome(lambda p: trec._read_coded(p, kind, False), path)), want)
        general = _general(lambda p: trec._read_coded(p, kind, False), path, monkeypatch)
        _same(_as_text(general), want)
