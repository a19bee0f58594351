"""TREC qrels and run files: the readers and the writers.

The formats, the checks and the errors are described in :mod:`recmetrics.io`.
"""

from __future__ import annotations

import csv
import warnings

import numpy as np
import pandas as pd

from .._validation import MAX_EXACT_INT, check_bool, check_k, truth_relevance
from . import _trec_fast
from ._files import (
    _cannot_read,
    _compression,
    _missing_compressor,
    _path,
    _read_errors,
    _target,
    _write_atomic,
)

__all__ = ["read_trec_qrels", "read_trec_run", "write_trec_qrels", "write_trec_run"]

_QRELS_FIELDS = ("user", "iteration", "item", "relevance")
# trec_eval's qrels_jg (-R qrels_jg, get_qrels_jg.c): field 2 is the judgment group
_QRELS_JG_FIELDS = ("user", "group", "item", "relevance")
_RUN_FIELDS = ("user", "q0", "item", "rank", "score", "tag")
_CHUNK_LINES = 1_000_000
_WRITE_ROWS = 100_000  # rows formatted per block by the writers


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
                dtype=object,  # Python strings: no conversion before the checks
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
                # column by column: the text stays in pandas' string arrays
                empty = np.stack([(chunk[j] == "").to_numpy(dtype=bool) for j in range(n + 1)])
                blank = empty.all(axis=0)
                if blank.any():
                    chunk, empty, lines = chunk[~blank], empty[:, ~blank], lines[~blank]
                few, many = empty[n - 1], ~empty[n]
                bad = few | many
                if bad.any():
                    i = int(np.argmax(bad))
                    got = f"more than {n}" if many[i] else int((~empty[:, i]).sum())
                    raise ValueError(
                        f"{p}, line {lines[i]}: expected {n} fields ({' '.join(fields)}), got {got}"
                    )
                frame = chunk.iloc[:, :n].set_axis(list(fields), axis=1)
                yield lines, frame.reset_index(drop=True)
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
    keys = ["user", "group", "item"] if "group" in frame.columns else ["user", "item"]
    dup = frame.duplicated(keys, keep=False).to_numpy()
    if dup.any():
        first = int(np.argmax(dup))
        same = dup.copy()
        for key in keys:
            same &= (frame[key] == frame[key].iloc[first]).to_numpy()
        both = lines[same]
        group = f" in judgment group {frame['group'].iloc[first]!r}" if len(keys) == 3 else ""
        raise ValueError(
            f"{path}, lines {both[0]} and {both[1]}: document {frame['item'].iloc[first]!r} is "
            f"{what} twice for query {frame['user'].iloc[first]!r}{group}"
        )


def read_trec_qrels(path, *, progress=False, chunk_lines=_CHUNK_LINES, judgment_groups=False):
    """Read a TREC qrels file into a long ``truth`` frame.

    Parameters
    ----------
    path : str or os.PathLike
        Lines ``query iteration document relevance``, whitespace-separated.
    progress : bool, default False
        Show a progress bar over the bytes read (tqdm, on standard error).
    chunk_lines : int, default 1_000_000
        Lines parsed per chunk by pandas' parser (memory is bounded by a
        chunk plus the result). A well-formed file is read in one compiled
        pass instead (see Notes), which holds the file's bytes at once.
    judgment_groups : bool, default False
        Read trec_eval's ``qrels_jg`` format (``trec_eval -R qrels_jg``,
        ``get_qrels_jg.c``): lines ``query group document relevance``,
        whose second field (ignored in plain qrels) names the judgment
        group, kept as the column ``group`` (str). A document may then be
        judged once per group of a query. The judgment-group metrics
        (:func:`~recmetrics.map_avgjg`, ...) read that column.

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` and ``item`` (str) and ``relevance`` (int64), one row
        per judgement in file order, every judgement kept (grades <= 0
        included: they mark judged, non-relevant documents); with
        ``judgment_groups=True``, ``user``, ``group``, ``item`` and
        ``relevance``. An empty file gives a frame without rows, with these
        columns and dtypes.

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
        If ``path`` is not a str or os.PathLike, or ``progress`` or
        ``judgment_groups`` not a bool.

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

    Two judgment groups (trec_eval's ``qrels_jg``) judging one document:

    >>> _ = (d / "qrels_jg").write_text("q1 u1 d1 1\\nq1 u2 d1 0\\n")
    >>> read_trec_qrels(d / "qrels_jg", judgment_groups=True)
      user group item  relevance
    0   q1    u1   d1          1
    1   q1    u2   d1          0

    Notes
    -----
    With numba (and pyarrow, which pandas uses for its strings), a file is
    first read whole and tokenized in one compiled pass
    (:mod:`recmetrics.io._trec_fast`), by the same rules and with the same
    frame, several times faster than pandas' parser. A file that pass
    does not take as plainly well formed (a line with the wrong number of
    fields, a number in another spelling such as ``1.0`` for an integer, a
    repeated pair, a control character, text that is not UTF-8, an empty
    file) is read again by pandas' parser in chunks, which gives the frame
    or the error naming the file and the line, as without numba.
    """
    fields = _QRELS_JG_FIELDS if check_bool(judgment_groups, "judgment_groups") else _QRELS_FIELDS
    return _read_trec(path, fields, {"relevance": "int"}, "judged", progress, chunk_lines)


def read_trec_run(path, *, progress=False, chunk_lines=_CHUNK_LINES):
    """Read a TREC run (results) file into a long ``predictions`` frame.

    Parameters
    ----------
    path : str or os.PathLike
        Lines ``query Q0 document rank score tag``, whitespace-separated.
    progress : bool, default False
        Show a progress bar over the bytes read (tqdm, on standard error).
    chunk_lines : int, default 1_000_000
        Lines parsed per chunk by pandas' parser (see
        :func:`read_trec_qrels`).

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


def _read_coded(path, kind, progress):
    """The command line's read of a TREC file: ids as categorical columns.

    :func:`read_trec_qrels` (``kind='qrels'``) or :func:`read_trec_run`, with
    the ids as categorical columns of the same strings.

    The compiled pass has coded the ids already; categorical columns keep its
    codes instead of writing every row's string, and
    :func:`recmetrics.from_frames` then hashes the distinct ids only. The
    values, their order and every error are those of the public readers.
    """
    if kind == "qrels":
        args = (_QRELS_FIELDS, {"relevance": "int"}, "judged")
    else:
        args = (_RUN_FIELDS, {"rank": "int", "score": "float"}, "retrieved")
    return _read_trec(path, *args, progress, _CHUNK_LINES, categorical=True)


def _read_trec(path, fields, numbers, what, progress, chunk_lines, categorical=False):
    """The frame of a TREC file: ids as text, ``numbers`` (column -> kind) parsed."""
    p = _path(path)
    progress = check_bool(progress, "progress")
    chunk_lines = check_k(chunk_lines, "chunk_lines")
    ids = ("user", "item", "tag", "group")
    keep = [c for c in fields if c in ids or c in numbers]
    kind = {"int": _trec_fast.INT, "float": _trec_fast.FLOAT}
    kinds = [
        _trec_fast.ID if c in ids else kind.get(numbers.get(c), _trec_fast.SKIP) for c in fields
    ]
    columns = _trec_fast.read_fast(p, fields, kinds, _compression(p), progress, categorical)
    if columns is not None:
        return pd.DataFrame({c: columns[c] for c in keep}, copy=False)
    # the general reader: an empty or malformed file (its error names the line)
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
    if categorical:
        out = out.astype({c: "category" for c in keep if c not in numbers})
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
        them); default: the column ``'relevance'`` when ``truth`` has
        one (what :func:`read_trec_qrels` returns), else every row has
        grade 1.

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
    relevance = truth_relevance(truth, relevance)
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
