"""From scores, ranked lists or ranks to one representation of a ranking.

Every Top-N metric of a user is a function of *where that user's relevant
items sit in the ranking* (and, for graded relevance, of their gains): this is
the ``M(R)`` of Krichene & Rendle. This module computes that once per call, for
all users at once, and the metric modules (:mod:`recmetrics.metrics.topn`,
:mod:`recmetrics.metrics.ndcg`, :mod:`recmetrics.metrics.roc_auc`) are small functions of it.

The representation, :class:`Ranking`, stores one entry per relevant item
(gain > 0), grouped by user in CSR fashion. For each entry it keeps the *tie
group* the item falls in: ``start`` items are ranked strictly above the group,
the group spans positions ``start + 1 .. start + size``, and it contains
``group_rel`` relevant items, with ``rel_before`` relevant items strictly above
it. Under a deterministic tie policy every group has size 1 and ``start + 1``
is the item's rank. Under ``ties="expected"`` the item is equally likely to sit
at any position of its group, and the metrics return their exact expectation
over all orders of the tied items (McSherry & Najork, 2008). Items that are not
ranked at all (a relevant item missing from a recommendation list) have
``start = inf``.

Input forms, all converging here:

* a score matrix ``(n_users, n_items)`` with a relevance (gain) matrix of the
  same shape, dense or :mod:`scipy.sparse`, and an optional mask of items to
  exclude (:func:`from_scores`);
* ranked recommendation lists with sets, or graded dicts, of relevant items
  (:func:`from_lists`), including one list of gains in ranked order
  (:func:`from_gains`);
* the ranks of held-out items (:func:`from_ranks`).
"""

from __future__ import annotations

from ._representation import TIE_POLICIES, Ranking
from .lists import from_gains, from_lists, from_ranks
from .scores import from_scores

__all__ = ["Ranking", "TIE_POLICIES", "from_gains", "from_lists", "from_ranks", "from_scores"]


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
