"""Constants and helpers shared by the Top-N metrics."""

from __future__ import annotations

import numpy as np

from ..._validation import check_choice, check_k
from ...inputs.forms import as_ranking
from ...ranking._representation import condense

AP_DENOMINATORS = ("relevant", "min", "k", "hits")
RECALL_DENOMINATORS = ("relevant", "min")
AP_TIES = ("policy", "group_end")
# how a list shorter than k is scored: k slots (the empty ones are misses), or
# the list's own length in place of k (LensKit)
SHORT_LISTS = ("k", "list")


def _rank(a, b, ranks, n_items, mask, ties, k, *, k_required=False, judged_only=False):
    """The checked cutoff and the Ranking of the input (condensed under ``judged_only``)."""
    k = check_k(k, allow_none=not k_required)
    r, single = as_ranking(a, b, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
    r = condense(r, judged_only)
    r.check_depth(k)
    return r, single, k


def _cutoff_size(r, k):
    """Number of recommendation slots: k, or the whole ranking when k is None."""
    if k is None:
        if np.any(~np.isfinite(r.n_ranked)):
            raise ValueError(
                "k is required when the length of the ranking is unknown (ranks without n_items)"
            )
        return r.n_ranked
    return np.full(r.n_users, float(k))


def _slots(r, k, short_lists):
    """The ``k`` of precision and AP: ``k`` slots, or ``min(k, list length)``."""
    check_choice(short_lists, "short_lists", SHORT_LISTS)
    size = _cutoff_size(r, k)
    if short_lists == "list":
        return np.minimum(size, r.n_ranked)
    return size


def _ratio(num, den):
    """``num / den``, and 0 where ``den`` is 0 (an empty list retrieves nothing)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _f_beta(p, rec, beta):
    """F-beta of precision ``p`` and recall ``rec`` (0 where both are 0).

    ``(1 + b2) P R / (b2 P + R) = P R / (w P + (1 - w) R)`` with
    ``w = b2 / (1 + b2)``, which stays finite for any beta (``beta**2`` may
    overflow or underflow).
    """
    w = 1.0 / (1.0 + 1.0 / (beta * beta)) if beta * beta > 0 else 0.0
    return _ratio(p * rec, w * p + (1.0 - w) * rec)
