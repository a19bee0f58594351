"""Several metrics at once, from one ranking.

:func:`evaluate` builds the ranking representation once (one pass over the
scores, one tie policy) and evaluates every requested metric on it, so asking
for ten metrics costs little more than asking for one. With
``convention=...`` it reproduces one library's variant of every metric (see
:mod:`recmetrics.conventions`); :func:`compare_conventions` shows them all.

The modules follow the flow of a call: :mod:`._call` reads and checks the
arguments once; :mod:`.core` resolves the conventions once and applies each
metric's spec; :mod:`._rankings` builds one ranking per tie policy;
:mod:`._lists` feeds the beyond-accuracy metrics the recommended lists.
"""

from ._call import SCORE_DTYPES
from .compare import compare_conventions
from .core import evaluate, summarise_table

__all__ = ["evaluate", "compare_conventions", "SCORE_DTYPES", "summarise_table"]


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
