"""Files in and out: TREC qrels and run files, CSV and Parquet tables.

The readers return the long data frames that :func:`recmetrics.evaluate` and
:func:`recmetrics.from_frames` take (one row per user-item pair), so that a
file evaluates like any frame::

    truth = rm.io.read_trec_qrels("qrels.txt")      # user, item, relevance
    run = rm.io.read_trec_run("run.txt")             # user, item, rank, score, tag
    rm.evaluate(truth, run, ["ndcg@10"], convention="trec_eval")  # grades: "relevance"

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
query) raises ``ValueError`` naming the file and the line. A large
well-formed TREC file is read by one compiled pass over its bytes
(:mod:`._trec_fast`); anything else, and any file that pass does not accept
as plainly well formed, is read in chunks by pandas' C parser, which also
gives the errors. A progress bar follows the bytes read
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

from .tables import file_format, read_table

# the writers' block size and blocks, importable here as before (the writers read
# them from recmetrics.io.trec: patch them there)
from .trec import _WRITE_ROWS as _WRITE_ROWS
from .trec import _blocks as _blocks
from .trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

__all__ = [
    "read_trec_qrels",
    "read_trec_run",
    "write_trec_qrels",
    "write_trec_run",
    "read_table",
    "file_format",
]


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
