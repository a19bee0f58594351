"""CSV, TSV and Parquet tables (through pandas), and the format of a file from its name."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import check_bool
from ._files import (
    _COMPRESSED,
    _cannot_read,
    _compression,
    _missing_compressor,
    _path,
    _read_errors,
)

__all__ = ["read_table", "file_format"]

_TABLE_FORMATS = ("csv", "tsv", "parquet")


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
