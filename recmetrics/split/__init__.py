"""Splitting protocols and the evaluation set-up every paper must state.

Every function takes one long data frame of interactions (one row per
user-item pair, with the columns named by ``user=``, ``item=`` and, where time
matters, ``time=``) and returns ``(train, test)`` frames: a partition of the
rows, so no test interaction is ever in the training data. Randomness comes
from ``seed`` alone (the same seed gives the same split on every machine).

* :func:`random_holdout`: per user, a random fraction or count of the rows;
* :func:`temporal`: one global cut-off time (or the time that leaves a
  fraction of the rows after it): the past trains, the future tests;
* :func:`leave_last_out`: each user's last ``n`` interactions by time (ties
  in time broken by item id, deterministically);
* :func:`kfold`: ``n_splits`` folds of each user's interactions, or of the
  users themselves.

Test users or items absent from the training data are *reported* by
:func:`split_summary` and dropped only when asked (``drop_unseen=True``): a
model cannot score a user it never saw, and silently dropping such users
flatters it.

The set-up around the split: :func:`relevant_from_ratings` (which test
interactions count as relevant), :func:`interaction_matrix` (frames to the
sparse matrices the metrics take, with the training interactions as the mask
of items not to recommend again), and :func:`sample_candidates` (``m``
sampled non-interacted items per user, the protocol whose effect the
sampled-metrics chapters measure).

References
----------
.. [1] M. Harper and J. Konstan. The MovieLens Datasets: History and
   Context. ACM TiiS 5(4), 19, 2015.
.. [2] W. Krichene and S. Rendle. On Sampled Metrics for Item
   Recommendation. KDD 2020.
.. [3] Z. Meng, R. McCreadie, C. Macdonald and I. Ounis. Exploring Data
   Splitting Strategies for the Evaluation of Recommendation Models.
   RecSys 2020.
"""

from __future__ import annotations

# the id and frame helpers live in recmetrics.inputs.ids; importable from here as before
from ..inputs.ids import _KINDS as _KINDS
from ..inputs.ids import _align_ids as _align_ids
from ..inputs.ids import _as_float_ids as _as_float_ids
from ..inputs.ids import _as_int_ids as _as_int_ids
from ..inputs.ids import _check_label as _check_label
from ..inputs.ids import _check_no_duplicates as _check_no_duplicates
from ..inputs.ids import _check_time as _check_time
from ..inputs.ids import _dtype_text as _dtype_text
from ..inputs.ids import _frame as _frame
from ..inputs.ids import _id_index as _id_index
from ..inputs.ids import _id_kind as _id_kind
from ..inputs.ids import _show as _show
from ..inputs.ids import _whole as _whole
from .by_time import leave_last_out, temporal
from .candidates import sample_candidates
from .folds import kfold
from .holdout import random_holdout
from .matrix import interaction_matrix, relevant_from_ratings
from .summary import split_summary

__all__ = [
    "random_holdout",
    "temporal",
    "leave_last_out",
    "kfold",
    "split_summary",
    "relevant_from_ratings",
    "interaction_matrix",
    "sample_candidates",
]


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
