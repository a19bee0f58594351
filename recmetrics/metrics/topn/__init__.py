"""Top-N metrics: precision, recall, F-beta, hit ratio, R-precision, ARHR, reciprocal rank, AP.

Every function accepts the input forms of :mod:`recmetrics.ranking`:

* ``f(gains)``: one ranked list of gains (teaching form);
* ``f(recommended, relevant)``: one ranked list of item ids and a set (or a
  graded dict) of relevant ids, or lists of both for many users;
* ``f(y_true, y_score)``: relevance and score arrays, 1-D for one user or
  ``(n_users, n_items)`` (scikit-learn's argument order), optionally with
  ``mask=``;
* ``f(ranks=..., n_items=...)``: ranks of held-out items;

and the keywords ``ties`` (how equal scores are ordered; ``None``, the
default, means ``'expected'``), ``no_relevant`` (``'skip'``, the default,
leaves users without relevant items out of the mean and gives them NaN per
user; ``'zero'``, ``'one'`` and ``'raise'`` are the alternatives) and
``per_user`` (return one value per user instead of the mean). A single list
or a 1-D ``(y_true, y_score)`` pair returns a float. Each function's
``Parameters`` section describes them in full.

What the arguments mean is decided by their types: the relevant items of
ranked lists are a ``set``, ``frozenset`` or ``dict`` (or a list of them),
and any other pair of sequences is ``(y_true, y_score)``.

Notation: for one user, ``pos`` is the 1-based rank, ``|R|`` the number of
relevant items, ``hits@k`` the number of relevant items in the top ``k``.
"""

from __future__ import annotations

from ._common import AP_DENOMINATORS, AP_TIES, RECALL_DENOMINATORS
from .counts import (
    CONFUSION_SLOTS,
    confusion,
    f1,
    f_score,
    hit_ratio,
    precision,
    r_precision,
    recall,
)
from .positions import arhr, average_precision, mrr, reciprocal_rank

__all__ = [
    "precision",
    "recall",
    "f_score",
    "f1",
    "hit_ratio",
    "r_precision",
    "arhr",
    "reciprocal_rank",
    "mrr",
    "average_precision",
    "confusion",
    "AP_DENOMINATORS",
    "RECALL_DENOMINATORS",
    "AP_TIES",
    "CONFUSION_SLOTS",
]
