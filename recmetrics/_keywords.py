"""The convention keywords of the ranking metrics, each with its default: the single source.

Libraries disagree on the choices these keywords name (see
:mod:`recmetrics.conventions`). Every consumer that lists the keywords reads
them here: :func:`recmetrics.evaluate` and its presets
(:mod:`recmetrics.providers`), the command line's options, Spark and Dask.
"""

from __future__ import annotations

__all__ = ["CONVENTION_KEYWORDS", "EFFECTIVE", "CALLER_CHOOSES", "PARAMETERS"]

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
    # trec_eval's options -M, -l and -J (long data frames only; see
    # recmetrics.evaluation._trec_options): None/False leaves the frames whole
    "max_depth": None,  # None: every prediction (trec_eval without -M)
    "relevance_level": None,  # None: every grade > 0 is relevant (trec_eval's -l 1)
    "judged_only": False,  # True: Sakai's condensed lists (trec_eval's -J)
    # RBP's own gain and residual (recmetrics.rbp's gain=, rbp_residual's
    # definition=): named apart from ndcg's gain, whose default differs
    "rbp_gain": "binary",
    "rbp_residual_definition": "moffat_zobel",
    # how pauc's ROC curve crosses a tie group that max_fpr cuts
    # (recmetrics.partial_auc): the exact expectation, or scikit-learn's line
    "interpolation": "expected",
}

# what the keywords left at None mean
EFFECTIVE = dict(CONVENTION_KEYWORDS, retrieve_nonpositive=True, users="truth")

# Keywords for which a value passed explicitly wins over the preset instead of
# contradicting it: which users are evaluated is the caller's choice (trec_eval
# itself has -c for it); the preset only supplies its library's default. The
# same holds for what is evaluated: the depth (-M), the relevance level (-l)
# and the condensed lists (-J) are options of trec_eval, not its conventions.
CALLER_CHOOSES = ("users", "max_depth", "relevance_level", "judged_only")

# The parameter of the metric functions that a convention keyword sets, where
# the names differ: RBP's gain and residual (recmetrics.rbp's gain=,
# recmetrics.rbp_residual's definition=) are not ndcg's gain.
PARAMETERS = {"rbp_gain": "gain", "rbp_residual_definition": "definition"}
