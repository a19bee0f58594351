"""Files in and out: TREC qrels and run files, CSV and Parquet tables.

The readers return the long data frames that :func:`recmetrics.evaluate` and
:func:`recmetrics.from_frames` take (one row per user-item pair), so that a
file evaluates like any frame::

    truth = rm.io.read_trec_qrels("qrels.txt")      # user, item, relevance
    run = rm.io.read_trec_run("run.txt")             # user, item, rank, score, tag
    rm.evaluate(truth, run, ["ndcg@10"], relevance="relevance", convention="trec_eval")

TREC files are whitespace-separated text, one judgement or one retrieved
document per line:

* qrels: ``query iteration document relevance`` (4 fields; the iteration is
  ignored, as trec_eval ignores it; relevance is an integer, and grades below
  1 mean "judged, not relevant");
* run: ``query Q0 document rank score tag`` (6 fields; trec_eval orders by
  ``score`` and ignores ``rank``, and so does :func:`recmetrics.evaluate`
  given ``score='score'``).

Query and document ids stay strings (``"007"`` is not ``"7"``), as trec_eval
compares them. A malformed line (wrong number of fields, a relevance that is
not an integer, a score that is not a number, a document listed twice for a
query) raises ``ValueError`` naming the file and the line. Files are read in
chunks by pandas' C parser, with a progress bar over the bytes read
(``progress=True``); files ending in ``.gz``, ``.bz2``, ``.xz`` or ``.zst``
are decompressed on the fly.

CSV and Parquet tables go through pandas (:func:`read_table`), with the
column keywords of :func:`recmetrics.evaluate` checked on reading.

References
----------
.. [1] NIST, *trec_eval* README, https://github.com/usnistgov/trec_eval
   (formats of the qrels and results files).
"""

from __future__ import annotations

import csv
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "read_trec_qrels",
    "read_trec_run",
    "write_trec_qrels",
    "write_trec_run",
    "read_table",
    "file_format",
]

_QRELS_FIELDS = ("user", "iteration", "item", "relevance")
_RUN_FIELDS = ("user", "q0", "item", "rank", "score", "tag")
_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}
_CHUNK_LINES = 1_000_000


def _path(path, name="path"):
    if not isinstance(path, str | os.PathLike):
        raise TypeError(
            f"{name} must be a file path (str or os.PathLike), got {type(path).__name__}"
        )
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{name}: no such file: {str(p)!r}")
    return p


def _compression(p):
    return _COMPRESSED.get(p.suffix.lower())


def file_format(path) -> str:
    """The format of a file from its name: ``'parquet'``, ``'csv'``, ``'tsv'`` or ``'trec'``.

    ``.parquet``/``.pq`` are Parquet; ``.csv`` and ``.tsv`` (optionally
    compressed, ``.csv.gz``) are tables; anything else is a TREC file.

    Examples
    --------
    >>> file_format("run.parquet"), file_format("run.csv.gz"), file_format("run.txt")
    ('parquet', 'csv', 'trec')
    """
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    return {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv"}.get(last, "trec")


def _read_fields(path, fields, progress, chunk_lines):
    """Whitespace-separated lines with exactly ``len(fields)`` fields, as strings.

    Yields ``(line_numbers, frame)`` per chunk; blank lines are skipped. One
    extra sentinel column catches a line with one field too many; pandas'
    own error catches more, and is re-raised with the file name.
    """
    from tqdm.auto import tqdm

    p = _path(path)
    n = len(fields)
    size = p.stat().st_size
    with (
        open(p, "rb") as raw,
        tqdm.wrapattr(
            raw,
            "read",
            total=size,
            desc=p.name,
            unit="B",
            unit_scale=True,
            disable=not progress,
        ) as handle,
    ):
        reader = pd.read_csv(
            handle,
            sep=r"\s+",
            header=None,
            names=list(range(n + 1)),
            index_col=False,
            dtype=str,
            na_filter=False,
            skip_blank_lines=False,
            quoting=csv.QUOTE_NONE,
            engine="c",
            chunksize=chunk_lines,
            compression=_compression(p),
            encoding="utf-8",
        )
        try:
            with warnings.catch_warnings():
                # a line with too many fields is caught by the sentinel column
                warnings.simplefilter("ignore", pd.errors.ParserWarning)
                for chunk in reader:
                    lines = chunk.index.to_numpy() + 1
                    values = chunk.to_numpy()
                    blank = (values == "").all(axis=1)
                    if blank.any():
                        values, lines = values[~blank], lines[~blank]
                    few = values[:, n - 1] == ""
                    many = values[:, n] != ""
                    bad = few | many
                    if bad.any():
                        i = int(np.argmax(bad))
                        got = f"more than {n}" if many[i] else int((values[i] != "").sum())
                        raise ValueError(
                            f"{p}, line {lines[i]}: expected {n} fields "
                            f"({' '.join(fields)}), got {got}"
                        )
                    yield lines, pd.DataFrame(values[:, :n], columns=list(fields))
        except pd.errors.ParserError as err:
            raise ValueError(f"{p}: malformed line ({err})") from None
        except UnicodeDecodeError as err:
            raise ValueError(f"{p}: not UTF-8 text ({err})") from None


def _as_numbers(frame, column, lines, path, kind):
    text = frame[column]
    values = pd.to_numeric(text, errors="coerce")
    bad = values.isna().to_numpy().copy()
    if kind == "int":
        v = values.fillna(0).to_numpy(dtype=np.float64)
        bad |= ~np.isfinite(v) | (v != np.round(v)) | (np.abs(v) >= 2.0**53)
    if bad.any():
        i = int(np.argmax(bad))
        what = "an integer (below 2**53 in magnitude)" if kind == "int" else "a number"
        raise ValueError(f"{path}, line {lines[i]}: {column} must be {what}, got {text.iloc[i]!r}")
    if kind == "int":
        return values.astype(np.int64)
    values = values.astype(np.float64)
    if not np.isfinite(values.to_numpy()).all():
        i = int(np.argmax(~np.isfinite(values.to_numpy())))
        raise ValueError(f"{path}, line {lines[i]}: {column} must be finite, got {text.iloc[i]!r}")
    return values


def _check_unique(frame, lines, path, what):
    dup = frame.duplicated(["user", "item"], keep=False).to_numpy()
    if dup.any():
        first = int(np.argmax(dup))
        key = (frame["user"].iloc[first], frame["item"].iloc[first])
        both = lines[
            dup & (frame["user"] == key[0]).to_numpy() & (frame["item"] == key[1]).to_numpy()
        ]
        raise ValueError(
            f"{path}, lines {both[0]} and {both[1]}: document {key[1]!r} is {what} twice for "
            f"query {key[0]!r}"
        )


def read_trec_qrels(path, *, progress=False, chunk_lines=_CHUNK_LINES):
    """Read a TREC qrels file into a long ``truth`` frame.

    Parameters
    ----------
    path : str or os.PathLike
        Lines ``query iteration document relevance``, whitespace-separated.
    progress : bool, default False
        Show a progress bar over the bytes read (tqdm, on standard error).
    chunk_lines : int, default 1_000_000
        Lines parsed per chunk (memory is bounded by a chunk plus the result).

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` and ``item`` (str) and ``relevance`` (int64), one row
        per judgement in file order, every judgement kept (grades <= 0
        included: they mark judged, non-relevant documents).

    Raises
    ------
    ValueError
        For a line without exactly 4 fields, a relevance that is not an
        integer, or a document judged twice for one query, naming the file
        and the line(s).
    FileNotFoundError
        If ``path`` is not a file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "qrels").write_text("q1 0 d1 2\\nq1 0 d2 0\\nq2 0 d7 1\\n")
    >>> read_trec_qrels(d / "qrels")
      user item  relevance
    0   q1   d1          2
    1   q1   d2          0
    2   q2   d7          1
    >>> _ = (d / "bad").write_text("q1 0 d1 2\\nq1 0 d2 high\\n")
    >>> read_trec_qrels(d / "bad")
    Traceback (most recent call last):
    ...
    ValueError: .../bad, line 2: relevance must be an integer (below 2**53 in magnitude), got 'high'
    """
    return _read_trec(path, _QRELS_FIELDS, {"relevance": "int"}, "judged", progress, chunk_lines)


def read_trec_run(path, *, progress=False, chunk_lines=_CHUNK_LINES):
    """Read a TREC run (results) file into a long ``predictions`` frame.

    Parameters
    ----------
    path : str or os.PathLike
        Lines ``query Q0 document rank score tag``, whitespace-separated.
    progress : bool, default False
        Show a progress bar over the bytes read (tqdm, on standard error).
    chunk_lines : int, default 1_000_000
        Lines parsed per chunk.

    Returns
    -------
    pandas.DataFrame
        Columns ``user``, ``item`` (str), ``rank`` (int64, as written),
        ``score`` (float64) and ``tag`` (str), in file order. Evaluate with
        ``score='score'`` (trec_eval's order: the written ranks are ignored)
        or ``rank='rank'`` (the ranks as written).

    Raises
    ------
    ValueError
        For a line without exactly 6 fields, a rank that is not an integer,
        a score that is not a finite number, or a document retrieved twice
        for one query, naming the file and the line(s).
    FileNotFoundError
        If ``path`` is not a file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "run").write_text("q1 Q0 d1 1 0.9 bm25\\nq1 Q0 d3 2 0.5 bm25\\n")
    >>> read_trec_run(d / "run")
      user item  rank  score   tag
    0   q1   d1     1    0.9  bm25
    1   q1   d3     2    0.5  bm25
    """
    return _read_trec(
        path, _RUN_FIELDS, {"rank": "int", "score": "float"}, "retrieved", progress, chunk_lines
    )


def _read_trec(path, fields, numbers, what, progress, chunk_lines):
    """The frame of a TREC file: ids as text, ``numbers`` (column -> kind) parsed."""
    p = _path(path)
    keep = [c for c in fields if c in ("user", "item", "tag") or c in numbers]
    parts, all_lines = [], []
    for lines, chunk in _read_fields(p, fields, progress, chunk_lines):
        for column, kind in numbers.items():
            chunk[column] = _as_numbers(chunk, column, lines, p, kind)
        parts.append(chunk[keep])
        all_lines.append(lines)
    dtypes = {c: np.int64 if kind == "int" else np.float64 for c, kind in numbers.items()}
    out = _concat(parts, keep, dtypes)
    lines = np.concatenate(all_lines) if all_lines else np.zeros(0, dtype=np.int64)
    _check_unique(out, lines, p, what)
    return out


def _concat(parts, columns, dtypes):
    if not parts:
        return pd.DataFrame({c: pd.Series([], dtype=dtypes.get(c, str)) for c in columns})
    out = pd.concat(parts, ignore_index=True)
    return out.astype({c: str for c in columns if c not in dtypes})


def _columns(frame, names, name):
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in names if c is not None and c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} has no column {missing[0]!r} (columns: {', '.join(map(str, frame.columns))})"
        )


def _check_id(series, what):
    if series.isna().any():
        raise ValueError(f"{what}s must not be missing (NaN or None)")
    text = series.astype(str)
    bad = text.str.contains(r"\s", regex=True) | (text == "")
    if bad.any():
        raise ValueError(
            f"{what} {text[bad].iloc[0]!r} is empty or contains whitespace: a TREC file "
            "cannot hold it"
        )
    return text


def _no_repeats(out, name):
    dup = out.duplicated(["user", "item"]).to_numpy()
    if dup.any():
        i = int(np.argmax(dup))
        raise ValueError(
            f"{name} holds the pair (user={out['user'].iloc[i]!r}, "
            f"item={out['item'].iloc[i]!r}) twice; a TREC file cannot"
        )


def write_trec_qrels(truth, path, *, user="user", item="item", relevance=None):
    """Write a long ``truth`` frame as a TREC qrels file.

    Parameters
    ----------
    truth : pandas.DataFrame
        One row per judged (user, item) pair.
    path : str or os.PathLike
        The file to write (overwritten).
    user, item : str
        Column names of the ids (written as text; they must not contain
        whitespace).
    relevance : str, optional
        Column of integer grades; default: every row has grade 1.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> write_trec_qrels(pd.DataFrame({"user": [1, 1], "item": ["a", "b"]}), f)
    >>> print(f.read_text(), end="")
    1 0 a 1
    1 0 b 1
    """
    _columns(truth, [user, item, relevance], "truth")
    grades = (
        np.ones(len(truth), dtype=np.int64)
        if relevance is None
        else pd.to_numeric(truth[relevance], errors="coerce").to_numpy()
    )
    if relevance is not None and (np.isnan(grades).any() or (grades != np.round(grades)).any()):
        raise ValueError(f"truth column {relevance!r} must hold integer grades for a qrels file")
    out = pd.DataFrame(
        {
            "user": _check_id(truth[user], "user id"),
            "iteration": "0",
            "item": _check_id(truth[item], "item id"),
            "relevance": np.asarray(grades, dtype=np.int64),
        }
    )
    _no_repeats(out, "truth")
    out.to_csv(path, sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE)


def write_trec_run(predictions, path, *, user="user", item="item", score="score", tag="recmetrics"):
    """Write a long ``predictions`` frame as a TREC run file.

    Rows are written per user in trec_eval's order (score descending, ties
    by document id in decreasing string order), with ranks 1, 2, ... and
    each score in its shortest exact decimal form (it reads back to the
    same float64).

    Parameters
    ----------
    predictions : pandas.DataFrame
        One row per scored (user, item) pair.
    path : str or os.PathLike
        The file to write (overwritten).
    user, item, score : str
        Column names.
    tag : str, default 'recmetrics'
        The run tag (last field), without whitespace.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> p = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [0.1, 0.5, 0.5]})
    >>> write_trec_run(p, f, tag="demo")
    >>> print(f.read_text(), end="")
    1 Q0 c 1 0.5 demo
    1 Q0 b 2 0.5 demo
    1 Q0 a 3 0.1 demo
    """
    _columns(predictions, [user, item, score], "predictions")
    if not isinstance(tag, str) or not tag or any(c.isspace() for c in tag):
        raise ValueError(f"tag must be a non-empty string without whitespace, got {tag!r}")
    values = pd.to_numeric(predictions[score], errors="coerce").to_numpy(dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"predictions column {score!r} must hold finite numbers")
    out = pd.DataFrame(
        {
            "user": _check_id(predictions[user], "user id").to_numpy(),
            "item": _check_id(predictions[item], "item id").to_numpy(),
            "score": values,
        }
    )
    _no_repeats(out, "predictions")
    out = out.sort_values(["user", "score", "item"], ascending=[True, False, False], kind="stable")
    out["rank"] = out.groupby("user", sort=False).cumcount() + 1
    with open(path, "w", encoding="utf-8") as f:
        for u, i, r, s in zip(out["user"], out["item"], out["rank"], out["score"], strict=True):
            f.write(f"{u} Q0 {i} {r} {float(s)!r} {tag}\n")


def read_table(path, *, columns=None, sep=None, progress=False, text_columns=None):
    """Read a CSV, TSV or Parquet table of (user, item, ...) rows.

    Parameters
    ----------
    path : str or os.PathLike
        ``.parquet``/``.pq`` (Parquet, via pandas and pyarrow or fastparquet),
        ``.csv`` or ``.tsv``, optionally compressed (``.csv.gz``).
    columns : sequence of str, optional
        Columns that must be present (the ``user``, ``item``, ``score``,
        ``rank`` or ``relevance`` names to be used); a missing one raises
        ``ValueError`` naming the file and the columns it has.
    sep : str, optional
        Field separator of a text table; default ``','`` for ``.csv`` and a
        tab for ``.tsv``.
    progress : bool, default False
        Show a progress bar over the bytes read (text tables).
    text_columns : sequence of str, optional
        Columns read as text (CSV/TSV: exactly as written, so ``007`` stays
        ``'007'``; Parquet: converted with ``str``), e.g. ids to be matched
        with the string ids of a TREC file.

    Returns
    -------
    pandas.DataFrame
        The table as pandas reads it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "truth.csv"
    >>> _ = f.write_text("user,item,relevance\\n1,10,2\\n1,11,1\\n")
    >>> read_table(f, columns=["user", "item", "relevance"])
       user  item  relevance
    0     1    10          2
    1     1    11          1
    """
    from tqdm.auto import tqdm

    p = _path(path)
    fmt = file_format(p)
    if fmt == "trec":
        raise ValueError(
            f"{p}: not a table (.csv, .tsv, .parquet); read TREC files with read_trec_qrels "
            "or read_trec_run"
        )
    try:
        if fmt == "parquet":
            frame = pd.read_parquet(p)
        else:
            with (
                open(p, "rb") as raw,
                tqdm.wrapattr(
                    raw, "read", total=p.stat().st_size, desc=p.name, unit="B",
                    unit_scale=True, disable=not progress,
                ) as handle,
            ):  # fmt: skip
                frame = pd.read_csv(
                    handle,
                    sep=sep or ("\t" if fmt == "tsv" else ","),
                    compression=_compression(p),
                    dtype=dict.fromkeys(text_columns, str) if text_columns else None,
                )
    except (pd.errors.ParserError, ValueError, OSError) as err:
        raise ValueError(f"{p}: cannot be read as {fmt} ({err})") from None
    if columns is not None:
        missing = [c for c in columns if c is not None and c not in frame.columns]
        if missing:
            raise ValueError(
                f"{p} has no column {missing[0]!r} (columns: {', '.join(map(str, frame.columns))})"
            )
    for c in text_columns or ():
        if c in frame.columns:
            frame[c] = frame[c].astype(str)
    return frame
