"""Docstring pieces of the beyond-accuracy metrics, and the decorator that fills them.

A line ``%(b_name)s`` of a docstring in this package is replaced by the
piece ``b_name`` here; the pieces shared with the rest of the package come
from :mod:`recmetrics._docs` (:func:`recmetrics._docs.fill_doc`).
"""

from __future__ import annotations

import re

from ..._docs import fill_doc

__all__: list[str] = []

# docstring pieces of this package (the shared ones come from recmetrics._docs)
_LOCAL_DOCS = {
    "b_recommended": """\
recommended : list of lists, 2-D array of item ids, or pandas.DataFrame
    The recommended lists, best first: one list of item ids per user; a
    2-D array of item ids ``(n_users, length)`` (integers or objects; a
    float array is refused, because it would be a score matrix: turn
    scores into lists with :func:`recmetrics.beyond.top_k`); or a long
    DataFrame with ``user``, ``item`` and ``rank`` or ``score`` columns,
    one row per recommended item (with both, ``score`` orders the lists,
    as in :func:`recmetrics.from_frames`). Ranks are integers >= 1
    (1 = first), distinct within a user, gaps allowed; with scores, an
    item's rank is its position after sorting the user's rows by
    decreasing score, equal scores in increasing item id order. An item
    is in the top ``k`` when its rank (its position in a list or array
    row) is at most ``k``, as for the ranking metrics. Per-user results
    are indexed by the user ids of a DataFrame, by position otherwise.""",
    "b_items": """\
items : array-like, optional
    The item id of each column when ``recommended`` holds column
    positions (as :func:`top_k` returns; for a DataFrame, its item
    column): position ``j`` stands for ``items[j]``, and the item data are
    matched by these ids. Without it the entries of ``recommended`` are
    the ids themselves, and item data keyed by ids of another type (say
    strings against integers) raise :class:`TypeError`.""",
    "b_popularity": """\
popularity : pandas.DataFrame, pandas.Series or dict
    The training interactions as a long DataFrame (columns ``user`` and
    ``item``, one row per interaction), or counts per item (a Series or
    dict item -> count) together with ``n_users``; keyed by the item ids
    of ``recommended`` (see ``items``). Ids of another type raise
    :class:`TypeError`; when most recommended items are absent from it, a
    :class:`UserWarning` says so (absent items count as documented for
    each metric).""",
    "b_k": """\
k : int, optional
    Keep the items of rank at most ``k`` (the first ``k`` of a list or an
    array row); ``None`` keeps every item.""",
}
_LOCAL_PLACEHOLDER = re.compile(r"^(\s*)%\((b_\w+)\)s$", re.MULTILINE)


def _fill_doc(obj):
    """Fill this module's docstring pieces, then the package's shared ones."""
    if obj.__doc__:

        def piece(match):
            indent, name = match.group(1), match.group(2)
            return "\n".join(
                (indent + line) if line.strip() else "" for line in _LOCAL_DOCS[name].split("\n")
            )

        obj.__doc__ = _LOCAL_PLACEHOLDER.sub(piece, obj.__doc__)
    return fill_doc(obj)
