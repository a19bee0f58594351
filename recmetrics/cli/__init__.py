"""The ``recmetrics`` command: evaluate and compare runs stored in files.

Installed with the package as ``recmetrics`` (also ``python -m recmetrics``)::

    recmetrics evaluate QRELS RUN -m ndcg@10 map P_10 --convention trec_eval
    recmetrics compare RUN_A RUN_B --qrels QRELS -m ndcg@10 --test randomization

Inputs are TREC files (qrels: ``query 0 document grade``; run: ``query Q0
document rank score tag``) or CSV/TSV/Parquet tables of (user, item, ...)
rows, told apart by their file name (see :func:`recmetrics.io.file_format`)
or by ``--truth-format`` / ``--run-format``, which win over the name (the
compression still follows the name: ``.gz``, ``.bz2``, ``.xz``, ``.zst``).
Measures are the names of :func:`recmetrics.evaluate` (``ndcg@10``) or
trec_eval's own (``ndcg_cut_10``, ``P_10``, ``P.10``, ``map``,
``recip_rank``; a family name such as ``P`` stands for trec_eval's default
cutoffs; trec_eval's groups ``all_trec``, ``official`` and ``set`` stand for
their measures), so that trec_eval's measure lists carry over. trec_eval's
options have their short spelling too: ``-q`` (``--per-user``), ``-c``
(``--complete``, the same as ``--users truth``), ``-M N`` (``--max-depth``),
``-l N`` (``--relevance-level``), ``-J`` (``--judged-only``: Sakai's condensed
lists) and ``-Z FILE`` (``--zscores``); ``--format trec`` prints trec_eval's
lines (``measure  query  value``, then ``all``).

An empty input (no line, blank lines only, or a table without rows) is an
error, as trec_eval refuses an empty qrels or results file: an empty run is
far more often a failed job than a system that returned nothing. (In
Python, :func:`recmetrics.evaluate` takes predictions without rows.)

``--format latex`` writes a booktabs ``tabular`` (``\\usepackage{booktabs}``)
with the text escaped, without jinja2.

Exit status: 0 on success; 1 when an input file or value is wrong, with a
one-line message naming the file (and the line, for a TREC file); 2 for a
command-line error (an unknown option, a bad option value such as
``--digits -1`` or ``--alpha 1.5``, options that contradict each other),
with argparse's usage line and a one-line message. No error prints a
traceback.
"""

# private names that tests read, importable here as before
from ._checks import _count as _count
from ._checks import _digits as _digits
from ._checks import _level as _level
from ._checks import _log_base as _log_base
from ._checks import _measure as _measure
from ._checks import _name as _name
from ._checks import _probability as _probability
from ._checks import _seed as _seed
from ._main import main
from ._parser import _parser as _parser
from ._trec_names import trec_measures

__all__ = ["main", "trec_measures"]
