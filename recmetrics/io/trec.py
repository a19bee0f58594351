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
are decompressed on the fly, and a file that cannot be decompressed
(corrupt, truncated, or not compressed at all) raises ``ValueError`` naming
it. An empty file (or one of blank lines only) reads as a frame without
rows, with the columns and dtypes of a non-empty one. A UTF-8 byte order
mark at the start is skipped; lines may end in ``\\n``, ``\\r\\n`` or ``\\r``.
There are no comment lines: a line starting with ``#`` is read as any other
line (trec_eval 9 skips such lines), so it fails unless it happens to have
the right fields; the writers refuse a query id starting with ``#``.

The writers check everything first (ids without whitespace, integer
grades, finite scores, no pair twice, ...) and then write a temporary file
in the target's folder, renamed over the target once complete
(:func:`os.replace`): an error midway (a full disk, an interrupt) leaves
the target as it was, and no temporary file behind. A target ending in
``.gz``, ``.bz2``, ``.xz`` or ``.zst`` is compressed, so that it reads back.

CSV and Parquet tables go through pandas (:func:`read_table`), with the
column keywords of :func:`recmetrics.evaluate` checked on reading.

References
----------
.. [1] NIST, *trec_eval* README, https://github.com/usnistgov/trec_eval
   (formats of the qrels and results files).
"""

from __future__ import annotations

import bz2
import contextlib
import csv
import gzip
import lzma
import os
import secrets
import shutil
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import MAX_EXACT_INT, check_bool, check_k

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
_TABLE_FORMATS = ("csv", "tsv", "parquet")
_CHUNK_LINES = 1_000_000
_WRITE_ROWS = 100_000  # rows formatted per block by the writers


def _path(path, name="path"):
    if not isinstance(path, str | os.PathLike):
        raise TypeError(
            f"{name} must be a file path (str or os.PathLike), got {type(path).__name__}"
        )
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(f"{name}: {str(p)!r} is a folder, not a file")
    if not p.is_file():
        raise FileNotFoundError(f"{name}: no such file: {str(p)!r}")
    return p


def _compression(p):
    return _COMPRESSED.get(p.suffix.lower())


def _read_errors():
    """The exceptions of a file that cannot be read or decompressed."""
    errors = [OSError, EOFError, lzma.LZMAError, zlib.error, UnicodeDecodeError]
    try:
        import zstandard
    except ImportError:
        pass
    else:
        errors.append(zstandard.ZstdError)
    return tuple(errors)


def _cannot_read(p, err):
    """A one-line ``ValueError`` for a file that cannot be read, naming it."""
    compression = _compression(p)
    if isinstance(err, UnicodeDecodeError):
        return ValueError(f"{p}: not UTF-8 text ({err})")
    how = f" as {compression}" if compression else ""
    return ValueError(f"{p}: cannot be read{how} ({type(err).__name__}: {err})")


def _missing_compressor(p, err):
    """A one-line ``ImportError`` naming the file and the package to install."""
    return ImportError(
        f"{p}: reading or writing .zst files needs the zstandard package "
        f"(pip install zstandard): {err}"
    )


def file_format(path) -> str:
    """The format of a file from its name: ``'parquet'``, ``'csv'``, ``'tsv'`` or ``'trec'``.

    ``.parquet``/``.pq`` are Parquet; ``.csv`` and ``.tsv`` (optionally
    compressed, ``.csv.gz``) are tables; anything else is a TREC file.

    Examples
    --------
    >>> file_format("run.parquet"), file_format("run.csv.gz"), file_format("run.txt")
    ('parquet', 'csv', 'trec')
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file path (str or os.PathLike), got {type(path).__name__}")
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    return {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv"}.get(last, "trec")


def _read_fields(p, fields, progress, chunk_lines):
    """Whitespace-separated lines with exactly ``len(fields)`` fields, as strings.

    Yields ``(line_numbers, frame)`` per chunk; blank lines are skipped. One
    extra sentinel column catches a line with one field too many; pandas'
    own error catches more, and is re-raised with the file name, as are the
    errors of a file that cannot be read or decompressed.
    """
    from tqdm.auto import tqdm

    n = len(fields)
    try:
        with (
            open(p, "rb") as raw,
            tqdm.wrapattr(
                raw,
                "read",
                total=p.stat().st_size,
                desc=p.name,
                unit="B",
                unit_scale=True,
                disable=not progress,
            ) as handle,
            warnings.catch_warnings(),
        ):
            # a line with too many fields is caught by the sentinel column
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
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
                        f"{p}, line {lines[i]}: expected {n} fields ({' '.join(fields)}), got {got}"
                    )
                yield lines, pd.DataFrame(values[:, :n], columns=list(fields))
    except pd.errors.ParserError as err:
        raise ValueError(f"{p}: malformed line ({err})") from None
    except ImportError as err:
        raise _missing_compressor(p, err) from None
    except _read_errors() as err:
        raise _cannot_read(p, err) from None


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
        included: they mark judged, non-relevant documents). An empty file
        gives a frame without rows, with these columns and dtypes.

    Raises
    ------
    ValueError
        For a line without exactly 4 fields, a relevance that is not an
        integer, or a document judged twice for one query, naming the file
        and the line(s); for a file that is not UTF-8 text or cannot be
        decompressed, naming the file.
    FileNotFoundError
        If ``path`` is not a file (``IsADirectoryError`` for a folder).
    TypeError
        If ``path`` is not a str or os.PathLike, or ``progress`` not a bool.

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
        or ``rank='rank'`` (the ranks as written). An empty file gives a
        frame without rows, with these columns and dtypes.

    Raises
    ------
    ValueError
        For a line without exactly 6 fields, a rank that is not an integer,
        a score that is not a finite number, or a document retrieved twice
        for one query, naming the file and the line(s); for a file that is
        not UTF-8 text or cannot be decompressed, naming the file.
    FileNotFoundError
        If ``path`` is not a file (``IsADirectoryError`` for a folder).
    TypeError
        If ``path`` is not a str or os.PathLike, or ``progress`` not a bool.

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
    progress = check_bool(progress, "progress")
    chunk_lines = check_k(chunk_lines, "chunk_lines")
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


# ---------------------------------------------------------------------------
# writing
def _columns(frame, names, name):
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    for key, column in names.items():
        if column is not None and not isinstance(column, str):
            raise TypeError(f"{key} must be a column name (str), got {type(column).__name__}")
    missing = [c for c in names.values() if c is not None and c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} has no column {missing[0]!r} (columns: {', '.join(map(str, frame.columns))})"
        )


def _first_bad(series, bad, what):
    """A ``ValueError`` naming the first row (index label) where ``bad`` holds."""
    i = int(np.argmax(bad))
    value, row = series.iloc[i], series.index[i]
    value, row = (x.item() if isinstance(x, np.generic) else x for x in (value, row))
    return ValueError(f"{what}, got {value!r} in row {row!r}")


def _check_id(series, what, *, first_field=False):
    """Ids as text, each one a TREC field: not missing, not empty, no whitespace.

    Also no NUL character (trec_eval reads up to it), and for the first
    field of a line no leading ``#`` (trec_eval skips such a line).
    """
    missing = series.isna().to_numpy()
    if missing.any():
        raise _first_bad(series, missing, f"{what}s must not be missing (NaN or None)")
    text = series.astype(str)
    bad = (text == "") | text.str.contains(r"[\s\x00]", regex=True)
    if bad.any():
        raise _first_bad(
            text,
            bad.to_numpy(),
            f"{what}s must be non-empty and hold no whitespace or NUL character, which a "
            "TREC file cannot hold",
        )
    if first_field:
        bad = text.str.startswith("#").to_numpy()
        if bad.any():
            raise _first_bad(
                text, bad, f"{what}s must not start with '#' (trec_eval skips such a line)"
            )
    return text


def _numbers(frame, column, what, *, integer):
    """The values of a numeric column as float64: finite, and integers if asked."""
    values = frame[column]
    if not (
        pd.api.types.is_bool_dtype(values)
        or pd.api.types.is_integer_dtype(values)
        or pd.api.types.is_float_dtype(values)
    ):
        raise TypeError(
            f"{what} column {column!r} must hold numbers (a bool, integer or float dtype), "
            f"got dtype {values.dtype}"
        )
    out = values.astype(np.float64).to_numpy(dtype=np.float64, na_value=np.nan)
    kind = "integer grades below 2**53 in magnitude" if integer else "finite numbers"
    bad = ~np.isfinite(out)
    if integer:
        bad |= (np.abs(out) >= MAX_EXACT_INT) | (out != np.round(out))
    if bad.any():
        raise _first_bad(values, bad, f"{what} column {column!r} must hold {kind}")
    return out


def _no_repeats(out, name):
    dup = out.duplicated(["user", "item"]).to_numpy()
    if dup.any():
        i = int(np.argmax(dup))
        raise ValueError(
            f"{name} holds the pair (user={out['user'].iloc[i]!r}, "
            f"item={out['item'].iloc[i]!r}) twice; a TREC file cannot"
        )


def _target(path):
    """The file a writer replaces (symbolic links followed), checked before any work."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file path (str or os.PathLike), got {type(path).__name__}")
    p = Path(os.path.realpath(path))
    if p.is_dir():
        raise IsADirectoryError(f"path: {str(path)!r} is a folder, not a file")
    if not p.parent.is_dir():
        raise FileNotFoundError(f"path: no such folder: {str(p.parent)!r}")
    if _compression(p) == "zstd":
        try:
            import zstandard  # noqa: F401
        except ImportError as err:
            raise _missing_compressor(p, err) from None
    return p


def _compressor(compression, raw):
    if compression == "gzip":
        # mtime 0: the same rows give the same bytes
        return gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
    if compression == "bz2":
        return bz2.BZ2File(raw, mode="wb")
    if compression == "xz":
        return lzma.LZMAFile(raw, mode="wb")
    import zstandard

    return zstandard.ZstdCompressor().stream_writer(raw, closefd=False)


def _write_atomic(target, blocks):
    """Write the text ``blocks`` to a new file beside ``target``, then rename it over.

    The temporary file is created exclusively (``O_EXCL``, with the usual
    permissions: mode 0o666 less the umask, or the target's mode if it
    exists), flushed to disk, and renamed with :func:`os.replace` (atomic
    on POSIX and Windows within one folder); on any error it is removed and
    the target is left as it was. A target that exists and is not a regular
    file (``/dev/stdout``, a named pipe) is written to directly: it cannot
    be replaced.
    """
    compression = _compression(target)
    if target.exists() and not target.is_file():
        with open(target, "wb") as raw:
            _write_blocks(raw, compression, blocks)
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue
    try:
        with os.fdopen(fd, "wb") as raw:
            _write_blocks(raw, compression, blocks)
            os.fsync(raw.fileno())
        if target.exists():
            shutil.copymode(target, tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_blocks(raw, compression, blocks):
    """The text ``blocks`` into the binary file ``raw``, UTF-8, compressed if asked."""
    stream = raw if compression is None else _compressor(compression, raw)
    try:
        for block in blocks:
            stream.write(block.encode("utf-8"))
    finally:
        if stream is not raw:
            stream.close()
    raw.flush()


def _blocks(frame, fmt):
    """Lines of ``frame`` formatted by ``fmt`` (a function of a slice), in blocks."""
    for start in range(0, len(frame), _WRITE_ROWS):
        yield fmt(frame.iloc[start : start + _WRITE_ROWS])


def write_trec_qrels(truth, path, *, user="user", item="item", relevance=None):
    """Write a long ``truth`` frame as a TREC qrels file.

    Every row is checked before anything is written; the file is then
    written beside the target and renamed over it, so that an error midway
    leaves the target as it was (see the module's notes).

    Parameters
    ----------
    truth : pandas.DataFrame
        One row per judged (user, item) pair.
    path : str or os.PathLike
        The file to write (replaced if it exists; compressed if its name
        ends in ``.gz``, ``.bz2``, ``.xz`` or ``.zst``).
    user, item : str
        Column names of the ids (written as text with :class:`str`; they must
        not be missing or empty, nor contain whitespace or a NUL character,
        and a user id must not start with ``#``).
    relevance : str, optional
        Column of integer grades (a bool, integer or float dtype holding
        finite integers below 2**53 in magnitude, as the reader takes
        them); default: every row has grade 1.

    Raises
    ------
    TypeError
        If ``truth`` is not a DataFrame, ``path`` not a path, or the
        relevance column not numeric.
    ValueError
        For a missing column, an id a TREC file cannot hold, a grade that
        is missing, infinite, fractional or too large, or a pair given
        twice (naming the column, the value and its row).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> write_trec_qrels(pd.DataFrame({"user": [1, 1], "item": ["a", "b"]}), f)
    >>> print(f.read_text(), end="")
    1 0 a 1
    1 0 b 1
    >>> g = pd.DataFrame({"user": [1], "item": ["a"], "g": [float("inf")]})
    >>> write_trec_qrels(g, f, relevance="g")
    Traceback (most recent call last):
    ...
    ValueError: truth column 'g' must hold integer grades below 2**53 in magnitude, got inf in row 0
    """
    _columns(truth, {"user": user, "item": item, "relevance": relevance}, "truth")
    target = _target(path)
    grades = (
        np.ones(len(truth), dtype=np.int64)
        if relevance is None
        else _numbers(truth, relevance, "truth", integer=True).astype(np.int64)
    )
    out = pd.DataFrame(
        {
            "user": _check_id(truth[user], "user id", first_field=True).to_numpy(),
            "item": _check_id(truth[item], "item id").to_numpy(),
            "relevance": grades,
        }
    )
    _no_repeats(out, "truth")

    def fmt(part):
        lines = part["user"] + " 0 " + part["item"] + " " + part["relevance"].astype(str)
        return "\n".join(lines.tolist()) + "\n"

    _write_atomic(target, _blocks(out, fmt))


def write_trec_run(predictions, path, *, user="user", item="item", score="score", tag="recmetrics"):
    """Write a long ``predictions`` frame as a TREC run file.

    Rows are written per user in trec_eval's order (score descending, ties
    by document id in decreasing string order), with ranks 1, 2, ... and
    each score in its shortest exact decimal form (it reads back to the
    same float64). Every row is checked before anything is written; the
    file is then written beside the target and renamed over it, so that an
    error midway leaves the target as it was (see the module's notes).

    Parameters
    ----------
    predictions : pandas.DataFrame
        One row per scored (user, item) pair.
    path : str or os.PathLike
        The file to write (replaced if it exists; compressed if its name
        ends in ``.gz``, ``.bz2``, ``.xz`` or ``.zst``).
    user, item, score : str
        Column names. Ids are written as text with :class:`str` (not
        missing or empty, no whitespace or NUL character, a user id not
        starting with ``#``); scores must be finite numbers (a bool,
        integer or float dtype).
    tag : str, default 'recmetrics'
        The run tag (last field), without whitespace.

    Raises
    ------
    TypeError
        If ``predictions`` is not a DataFrame, ``path`` not a path, or the
        score column not numeric.
    ValueError
        For a missing column, an id or tag a TREC file cannot hold, a
        missing or non-finite score, or a pair given twice (naming the
        column, the value and its row).

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
    _columns(predictions, {"user": user, "item": item, "score": score}, "predictions")
    if not isinstance(tag, str) or not tag or any(c.isspace() or c == "\x00" for c in tag):
        raise ValueError(
            f"tag must be a non-empty string without whitespace or NUL character, got {tag!r}"
        )
    target = _target(path)
    values = _numbers(predictions, score, "predictions", integer=False)
    out = pd.DataFrame(
        {
            "user": _check_id(predictions[user], "user id", first_field=True).to_numpy(),
            "item": _check_id(predictions[item], "item id").to_numpy(),
            "score": values,
        }
    )
    _no_repeats(out, "predictions")
    out = out.sort_values(["user", "score", "item"], ascending=[True, False, False], kind="stable")
    out["rank"] = out.groupby("user", sort=False).cumcount() + 1

    def fmt(part):
        columns = (part[c].tolist() for c in ("user", "item", "rank", "score"))
        # repr: the shortest decimal that reads back to the same float64
        return "".join(f"{u} Q0 {i} {r} {s!r} {tag}\n" for u, i, r, s in zip(*columns, strict=True))

    _write_atomic(target, _blocks(out, fmt))


# ---------------------------------------------------------------------------
# tables
def read_table(path, *, columns=None, sep=None, progress=False, text_columns=None, format=None):
    """Read a CSV, TSV or Parquet table of (user, item, ...) rows.

    Parameters
    ----------
    path : str or os.PathLike
        ``.parquet``/``.pq`` (Parquet, via pandas and pyarrow or fastparquet),
        ``.csv`` or ``.tsv``, optionally compressed (``.csv.gz``); or any
        name with ``format``.
    columns : sequence of str, optional
        Columns that must be present and complete (the ``user``, ``item``,
        ``score``, ``rank`` or ``relevance`` names to be used); a missing
        column raises ``ValueError`` naming the file and the columns it has,
        a missing value (an empty CSV field, NaN, null) one naming the file,
        the column and the row.
    sep : str, optional
        Field separator of a text table; default ``','`` for CSV and a
        tab for TSV.
    progress : bool, default False
        Show a progress bar over the bytes read (text tables).
    text_columns : sequence of str, optional
        Columns read as text (CSV/TSV: exactly as written, so ``007`` stays
        ``'007'``; Parquet: converted with ``str``), e.g. ids to be matched
        with the string ids of a TREC file; they must be complete too.
    format : {'csv', 'tsv', 'parquet'}, optional
        The table's format; default: from the file name
        (:func:`file_format`). Compression still follows the name's last
        suffix (``.gz``, ``.bz2``, ``.xz``, ``.zst``).

    Returns
    -------
    pandas.DataFrame
        The table as pandas reads it.

    Raises
    ------
    ValueError
        If the file cannot be read as the format (malformed, not UTF-8, a
        row with too many fields, corrupt compression or Parquet), or a
        column of ``columns`` is missing or incomplete, naming the file.
    ImportError
        If Parquet support (pyarrow) or zstandard is missing, naming the
        package to install.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "truth.csv"
    >>> _ = f.write_text("user,item,relevance\\n1,10,2\\n1,11,1\\n")
    >>> read_table(f, columns=["user", "item", "relevance"])
       user  item  relevance
    0     1    10          2
    1     1    11          1
    >>> _ = f.write_text("user,item,relevance\\n1,10,2\\n1,11\\n")
    >>> read_table(f, columns=["user", "item", "relevance"])
    Traceback (most recent call last):
    ...
    ValueError: .../truth.csv: column 'relevance' has no value in data row 2
    """
    from tqdm.auto import tqdm

    p = _path(path)
    progress = check_bool(progress, "progress")
    columns = _names(columns, "columns")
    text_columns = _names(text_columns, "text_columns")
    if sep is not None and (not isinstance(sep, str) or not sep):
        raise TypeError(f"sep must be a non-empty string or None, got {sep!r}")
    if format is None:
        fmt = file_format(p)
        if fmt == "trec":
            raise ValueError(
                f"{p}: not a table by its name (.csv, .tsv, .parquet); give format= or read "
                "TREC files with read_trec_qrels or read_trec_run"
            )
    elif format in _TABLE_FORMATS:
        fmt = format
    else:
        raise ValueError(f"format must be one of {_TABLE_FORMATS} or None, got {format!r}")
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
                warnings.catch_warnings(),
            ):  # fmt: skip
                # a row longer than the header: an error (by default pandas would
                # silently turn the first column into the index)
                warnings.simplefilter("error", pd.errors.ParserWarning)
                frame = pd.read_csv(
                    handle,
                    sep=sep or ("\t" if fmt == "tsv" else ","),
                    compression=_compression(p),
                    dtype=dict.fromkeys(text_columns, str) if text_columns else None,
                    encoding="utf-8",
                    index_col=False,
                )
    except ImportError as err:
        if fmt == "parquet":
            raise ImportError(
                f'{p}: reading Parquet needs pyarrow (pip install "pyarrow>=11") or '
                f"fastparquet: {err}"
            ) from None
        raise _missing_compressor(p, err) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise ValueError(f"{p}: cannot be read as {fmt} ({err})") from None
    except pd.errors.ParserWarning as err:
        raise ValueError(f"{p}: a row has more fields than the header ({err})") from None
    except _read_errors() as err:
        raise _cannot_read(p, err) from None
    except ValueError as err:  # pyarrow's ArrowInvalid, fastparquet's errors
        raise ValueError(f"{p}: cannot be read as {fmt} ({err})") from None
    missing = [c for c in (*columns, *text_columns) if c not in frame.columns]
    if missing and missing[0] in columns:
        raise ValueError(
            f"{p} has no column {missing[0]!r} (columns: {', '.join(map(str, frame.columns))})"
        )
    for c in dict.fromkeys((*columns, *text_columns)):
        if c in frame.columns:
            empty = frame[c].isna().to_numpy()
            if empty.any():
                row = int(np.argmax(empty)) + 1
                raise ValueError(f"{p}: column {c!r} has no value in data row {row}")
    for c in text_columns:
        if c in frame.columns:
            frame[c] = frame[c].astype(str)
    return frame


def _names(names, what):
    """A tuple of column names (``None`` for none)."""
    if names is None:
        return ()
    if isinstance(names, str) or not all(isinstance(c, str) for c in names):
        raise TypeError(f"{what} must be a sequence of column names (str), got {names!r}")
    return tuple(names)
