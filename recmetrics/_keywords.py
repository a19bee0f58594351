"""The convention keywords of the ranking metrics, each with its default: the single source.

Libraries disagree on the choices these keywords name (see
:mod:`recmetrics.conventions`). Every consumer that lists the keywords reads
them here: :func:`recmetrics.evaluate` and its presets
(:mod:`recmetrics.providers`), the command line's options, Spark and Dask.
"""

from __future__ import annotations

__all__ = ["CONVENTION_KEYWORDS", "EFFECTIVE", "CALLER_CHOOSES"]

# Every convention keyword of recmetrics.evaluate, with its default.
CONVENTION_KEYWORDS = {
    "ties": "expected",
    "no_relevant": "skip",
    "ap_denominator": "min",
    "ap_ties": "policy",
    "recall_denominator": "relevant",
    "gain": "linear",
    "idcg": "min",
    "log_base": 2.0,
    "discount": "log",
    "retrieve_nonpositive": None,  # None: True, every item is ranked
    "score_dtype": None,  # None: the scores as given
    "short_lists": "k",
    "users": None,  # None: 'truth' (long data frames only)
}

# what the keywords left at None mean
EFFECTIVE = dict(CONVENTION_KEYWORDS, retrieve_nonpositive=True, users="truth")

# Keywords for which a value passed explicitly wins over the preset instead of
# contradicting it: which users are evaluated is the caller's choice (trec_eval
# itself has -c for it); the preset only supplies its library's default.
CALLER_CHOOSES = ("users",)
