"""The recommended lists, flattened: the representation the beyond-accuracy metrics read.

Built by :mod:`recmetrics.inputs.lists` from every accepted form (lists of
item ids, arrays, long data frames, the top ``k`` of a score matrix), as
:class:`~recmetrics.Ranking` is built for the ranking metrics.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["_Lists"]


# --------------------------------------------------------------------------
# reading recommended lists
class _Lists:
    """Recommended lists, flattened: entry ``e`` is item ``code[e]`` at rank ``pos[e]``.

    The entry belongs to the list of user ``owner[e]``.

    ``items`` holds the distinct item ids (``code`` indexes it), ``user_ids``
    the users' ids (a pandas Index; positions for lists and arrays). Entries
    are sorted by owner, then rank. ``columns`` is the ``items=`` index
    (the id of each column position) when one was given; ``n_positions`` is
    set when the ids are column positions ``0 .. n_positions - 1`` of a
    score matrix without ``items=``: item data must then be keyed by them.
    """

    __slots__ = (
        "code",
        "owner",
        "pos",
        "items",
        "n_users",
        "user_ids",
        "from_frame",
        "columns",
        "n_positions",
        "name",
    )

    def __init__(self, code, owner, pos, items, user_ids, from_frame):
        self.code, self.owner, self.pos, self.items = code, owner, pos, pd.Index(items)
        self.user_ids, self.n_users, self.from_frame = user_ids, len(user_ids), from_frame
        self.columns = self.n_positions = None
        self.name = "recommended"

    def subset(self, keep):
        out = _Lists(
            self.code[keep], self.owner[keep], self.pos[keep], self.items, self.user_ids,
            self.from_frame,
        )  # fmt: skip
        out.columns, out.n_positions, out.name = self.columns, self.n_positions, self.name
        return out

    def slots(self):
        """0-based place of each entry within its user's list (ranks without their gaps)."""
        first = np.searchsorted(self.owner, self.owner, side="left")
        return np.arange(self.owner.shape[0], dtype=np.int64) - first

    def padded(self):
        """``(n_users, width)`` item codes in rank order, ``-1`` where a list is shorter."""
        slot = self.slots()
        width = int(slot.max()) + 1 if slot.size else 0
        out = np.full((self.n_users, width), -1, dtype=np.int64)
        out[self.owner, slot] = self.code
        return out

    def require_items(self, k):
        if self.code.size == 0:
            where = f" with a rank <= k={k}" if k is not None else ""
            raise ValueError(f"{self.name} holds no item{where}: every list is empty")

    def per_user(self, values, per_user, *, counts=None):
        """Mean of ``values`` (one per entry) per user, or its mean over users."""
        sums = np.bincount(self.owner, weights=values, minlength=self.n_users)
        if counts is None:
            counts = np.bincount(self.owner, minlength=self.n_users)
        with np.errstate(invalid="ignore", divide="ignore"):
            per = sums / counts
        return self.finish(per, per_user)

    def finish(self, per, per_user):
        if per_user:
            return pd.Series(per, index=self.user_ids) if self.from_frame else per
        ok = ~np.isnan(per)
        return float(np.mean(per[ok])) if ok.any() else float("nan")
