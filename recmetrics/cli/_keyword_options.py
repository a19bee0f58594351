"""The convention keywords that the command line offers as options, and their values.

The keywords and their defaults are read from
:data:`recmetrics._keywords.CONVENTION_KEYWORDS` (their single source), in
its order, which is the order of the options in ``--help``.
"""

from __future__ import annotations

from .._keywords import CONVENTION_KEYWORDS

# Convention keywords of recmetrics.evaluate that are not options of the
# "convention keywords" group (a --convention preset still sets them):
_NOT_OPTIONS = (
    # score matrices only (recmetrics.evaluate raises for long frames, which is
    # what the command line reads)
    "retrieve_nonpositive",
    # not an option of the command line (today, --convention lenskit gives 'list')
    "short_lists",
    # an option of its own, --users (among the inputs' options, with its own
    # help): passed to evaluate's users=, the caller's choice (CALLER_CHOOSES),
    # not checked against the --convention preset
    "users",
)

# the convention keywords of recmetrics.evaluate offered as options, in the
# order of CONVENTION_KEYWORDS: each needs its values in _keyword_choices()
# (or a type of its own in the parser, as log_base)
_KEYWORD_OPTIONS = tuple(name for name in CONVENTION_KEYWORDS if name not in _NOT_OPTIONS)

# trec_eval's options among them, with trec_eval's short spelling: they take
# a number (or nothing: -J), not one of the values of _keyword_choices()
_TREC_SHORT = {"max_depth": "-M", "relevance_level": "-l", "judged_only": "-J"}


def _keyword_choices():
    """The values each convention keyword takes (those recmetrics.evaluate checks).

    ``log_base`` and trec_eval's options (:data:`_TREC_SHORT`) take numbers
    instead, each with its own type in the parser.
    """
    from ..evaluation import SCORE_DTYPES as _SCORE_DTYPES
    from ..metrics._core import NO_RELEVANT_POLICIES
    from ..metrics.curves import PAUC_INTERPOLATIONS
    from ..metrics.ndcg import DISCOUNTS, GAINS, IDCG_MODES
    from ..metrics.rbp import RBP_GAINS, RESIDUALS
    from ..metrics.topn import AP_DENOMINATORS, AP_TIES, RECALL_DENOMINATORS
    from ..ranking import TIE_POLICIES

    return {
        "ties": TIE_POLICIES,
        "no_relevant": NO_RELEVANT_POLICIES,
        "ap_denominator": AP_DENOMINATORS,
        "ap_ties": AP_TIES,
        "recall_denominator": RECALL_DENOMINATORS,
        "gain": GAINS,
        "idcg": IDCG_MODES,
        "discount": DISCOUNTS,
        "score_dtype": _SCORE_DTYPES,
        "rbp_gain": RBP_GAINS,
        "rbp_residual_definition": RESIDUALS,
        "interpolation": PAUC_INTERPOLATIONS,
    }
