"""Beyond accuracy: coverage, novelty, popularity, diversity, serendipity and calibration.

These metrics look at the recommended lists themselves and at item data
(popularity in the training interactions, item features such as genres, the
user's history), not only at whether the recommended items were relevant.
Libraries give the same names to different quantities; every such choice is
a keyword here, and :data:`PRESETS` reproduces the libraries' definitions.

The flow is the package's: the lists are read once into flat arrays (item,
owner, rank), the item data into one matrix over the distinct
recommended items, and every metric is a vectorised reduction over users
(``np.bincount``, sparse products; no loop over users in Python).

Recommended lists are given as

* a list of lists of item ids (one ranked list per user, best first), or a
  2-D integer or object array of item ids ``(n_users, length)``;
* a long pandas DataFrame with ``user``, ``item`` and ``rank`` (1 = first) or
  ``score`` columns, as :func:`recmetrics.from_frames` reads predictions
  (with both, ``score`` orders the lists there and here; in
  :func:`recmetrics.evaluate`, ``rank=`` makes both follow the ranks);

a score matrix becomes lists through :func:`top_k`. One rule cuts every list
at ``k``, the ranking metrics' rule: an item is in the top ``k`` when its
rank is at most ``k`` (its position in a list; its ``rank`` value in a
frame, gaps and all; with scores, its position after sorting by score).

Item data are matched to the lists by item id. Lists of column positions
(what :func:`top_k` returns) name their ids with ``items=``; item data keyed
by ids of another type than the lists' (integers against strings) raise
:class:`TypeError` rather than match nothing.

The package holds

* the lists come from the inputs layer: :func:`top_k` and the readers of
  every form are in :mod:`recmetrics.inputs.lists`, the flattened lists in
  ``recmetrics.ranking.recommended`` (``top_k`` is re-exported here);
* ``_common``: small checks shared by the metrics;
* :mod:`._side`: item data keyed by id (popularity, features, per-user
  collections such as the history);
* :mod:`._presets`: :data:`PRESETS`, :data:`SOURCES`, :func:`describe`;
* one module per family: :mod:`.catalogue` (coverage, user coverage,
  Gini, entropy), :mod:`.popularity` (novelty, ARP, long-tail share),
  :mod:`.diversity` (intra-list diversity), :mod:`.serendipity`,
  :mod:`.calibration`, :mod:`.exposure` (exposure under an attention
  model, group exposure, the disparate treatment ratio) and
  :mod:`.expected_exposure` (expected exposure of stochastic rankings).

References
----------
.. [1] S. Vargas and P. Castells. Rank and Relevance in Novelty and Diversity
   Metrics for Recommender Systems. RecSys 2011.
.. [2] T. Zhou et al. Solving the apparent diversity-accuracy dilemma of
   recommender systems. PNAS 107(10), 2010.
.. [3] H. Abdollahpouri, R. Burke and B. Mobasher. Managing Popularity Bias
   in Recommender Systems with Personalized Re-ranking. FLAIRS 2019.
.. [4] H. Steck. Calibrated Recommendations. RecSys 2018.
.. [5] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
   Coverage: A Survey and Empirical Analysis of Beyond-Accuracy Objectives in
   Recommender Systems. ACM TiiS 7(1), 2016.
.. [6] M. Ge, C. Delgado-Battenfeld and D. Jannach. Beyond accuracy:
   evaluating recommender systems by coverage and serendipity. RecSys 2010.
.. [7] C.-N. Ziegler, S. M. McNee, J. A. Konstan and G. Lausen. Improving
   recommendation lists through topic diversification. WWW 2005.
"""

# the private names are those that other modules, tests and benchmarks use
# (recmetrics.evaluation._lists, tests/test_beyond.py, benchmarks/bench_beyond.py)
from ...inputs.lists import (  # noqa: F401
    _check_eval_frames,
    _check_eval_matrix,
    _columns,
    _read_lists,
    top_k,
)
from ...ranking.recommended import _Lists  # noqa: F401
from ._presets import PRESETS, SOURCES, _resolve, describe  # noqa: F401
from ._side import _by_popularity  # noqa: F401
from .calibration import calibration
from .catalogue import coverage, entropy, gini, user_coverage
from .diversity import _pair_sums_numpy, _Space, intra_list_diversity  # noqa: F401
from .expected_exposure import expected_exposure, expected_exposure_loss, plackett_luce_rankings
from .exposure import (
    ATTENTION_MODELS,
    attention_weights,
    disparate_treatment_ratio,
    group_exposure,
    item_exposure,
    tail_exposure,
)
from .popularity import average_popularity, long_tail_share, novelty
from .serendipity import serendipity

__all__ = [
    "top_k",
    "coverage",
    "user_coverage",
    "gini",
    "entropy",
    "novelty",
    "average_popularity",
    "long_tail_share",
    "intra_list_diversity",
    "serendipity",
    "calibration",
    "PRESETS",
    "describe",
    # issue 29: fairness of exposure
    "ATTENTION_MODELS",
    "attention_weights",
    "item_exposure",
    "group_exposure",
    "tail_exposure",
    "disparate_treatment_ratio",
    "plackett_luce_rankings",
    "expected_exposure",
    "expected_exposure_loss",
]


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
