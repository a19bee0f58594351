"""Item data matched to the recommended lists by item id.

Popularity (training interactions, or counts per item), item features
(a DataFrame or a dict item -> set of features) and per-user collections
(the relevant items, the history) are read here and keyed like the lists'
items (:func:`_side_ids`): ids of another type than the lists' raise, and
a warning says when most recommended items are absent (:func:`_check_overlap`).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..._validation import as_numeric_array, check_positive_number
from ...inputs.ids import _align_ids, _as_int_ids, _dtype_text, _id_kind, _show, _whole

__all__: list[str] = []


_POSITIONS_HINT = (
    " (if recommended holds column positions, as top_k returns, pass items= with the item "
    "id of each column)"
)


def _side_ids(keys, lists, name):
    """The ids ``keys`` of item data ``name``, comparable with the lists' item ids.

    Ids of another type than the lists' raise (integer and whole float ids
    are matched with a warning); for the column positions of a score
    matrix without ``items=``, every key must be such a position.
    """
    if lists.n_positions is not None:
        n = lists.n_positions
        kind = _id_kind(keys)
        if kind == "empty":
            return keys
        if kind not in ("int", "float") or (kind == "float" and not _whole(keys)):
            raise ValueError(
                f"{name} is keyed by {kind} ids ({_dtype_text(keys)}), but the lists of a score "
                f"matrix hold column positions 0 .. {n - 1}: pass items= (the item id of each "
                "column) to match them by id"
            )
        keys = _as_int_ids(keys) if kind == "float" else keys
        arr = np.asarray(keys, dtype=np.int64)
        bad = (arr < 0) | (arr >= n)
        if bad.any():
            raise ValueError(
                f"{name} is keyed by ids such as {int(arr[bad][0])} that are not column positions "
                f"0 .. {n - 1} of the score matrix: pass items= (the item id of each column) "
                "to match them by id"
            )
        return keys
    keys, _ = _align_ids(keys, lists.items, name, lists.name, hint=_POSITIONS_HINT, to_ref=True)
    return keys


def _check_overlap(lists, known, name):
    """Warn when most recommended entries are absent from ``known`` (the ids of ``name``).

    Absent items have a defined treatment (e.g. ``unseen=`` of
    :func:`novelty`), so this is a warning: ids of one type that mostly do
    not match usually mean that the lists are column positions and the item
    data are keyed by ids.
    """
    found = pd.Index(lists.items).isin(pd.Index(known))[lists.code]
    if found.size and found.mean() < 0.5:
        warnings.warn(
            f"{np.count_nonzero(~found):,} of the {found.size:,} recommended items are absent "
            f"from {name}; check that both use the same item ids" + _POSITIONS_HINT,
            UserWarning,
            stacklevel=4,
        )


# --------------------------------------------------------------------------
# per-user collections: truth, history
def _user_rows(data, lists, name, *, user="user", item="item", weight=None):
    """Per-user item collections (truth, history) aligned with the users of ``lists``.

    Returns ``(owner, item_ids, weights)``: entry ``e`` says that user
    ``owner[e]`` (a position in ``lists.user_ids``) has ``item_ids[e]``.
    A DataFrame is matched on the user ids (rows of other users are
    ignored; no user in common raises); a sequence of collections must
    have one per list.
    """
    if isinstance(data, pd.DataFrame):
        cols = (user, item) + ((weight,) if weight is not None else ())
        for col in cols:
            if not isinstance(col, Hashable):
                raise TypeError(f"column names must be labels, got {col!r}")
            if col not in data.columns:
                raise ValueError(f"{name} has no column {col!r}")
        if len(data) == 0:
            raise ValueError(f"{name} is empty")
        if data[[user, item]].isna().any().any():
            raise ValueError(f"{name} has a missing {user!r} or {item!r}")
        ids = data[user]
        if not lists.from_frame:
            if _id_kind(ids) != "int":
                raise TypeError(
                    f"{name} is a DataFrame but the lists are not: its {user!r} column must "
                    f"hold list positions (integers 0, 1, ...), got {_dtype_text(ids)}"
                )
        else:
            ids, _ = _align_ids(
                ids, lists.user_ids, f"{name}[{user!r}]",
                f"{lists.name}[{lists.user_ids.name!r}]", to_ref=True,
            )  # fmt: skip
        owner = lists.user_ids.get_indexer(ids)
        keep = owner >= 0
        if not keep.any():
            raise ValueError(
                f"{name} shares no user with {lists.name}: the user ids do not match"
                + ("" if lists.from_frame else " (rows of a DataFrame are list positions here)")
            )
        w = (
            np.ones(int(keep.sum()))
            if weight is None
            else as_numeric_array(
                data[weight].to_numpy()[keep], f"{name}[{weight!r}]", ndim=1, nonnegative=True
            )
        )
        item_ids = _side_ids(data[item], lists, f"{name}[{item!r}]")
        return owner[keep].astype(np.int64), np.asarray(item_ids)[keep], w
    if sp.issparse(data):
        if lists.from_frame:
            raise TypeError(
                f"{name} is a sparse matrix (rows are list positions) but the lists are a "
                "DataFrame of user ids: pass a long DataFrame (user, item)"
            )
        coo = data.tocoo()
        if coo.shape[0] != lists.n_users:
            raise ValueError(f"{name} has {coo.shape[0]} rows for {lists.n_users} lists")
        n_cols = len(lists.columns) if lists.columns is not None else lists.n_positions
        if n_cols is not None and coo.shape[1] != n_cols:
            raise ValueError(f"{name} has {coo.shape[1]} columns for {n_cols} items")
        if coo.data.size and not np.all(np.isfinite(coo.data)):
            raise ValueError(f"{name} holds NaN or infinite values")
        keep = coo.data != 0
        w = coo.data[keep].astype(np.float64) if weight == "values" else np.ones(int(keep.sum()))
        cols = coo.col[keep].astype(np.int64)
        if lists.columns is not None:
            return coo.row[keep].astype(np.int64), lists.columns.to_numpy()[cols], w
        ids = _side_ids(cols, lists, f"{name} (its columns)")
        return coo.row[keep].astype(np.int64), np.asarray(ids), w
    if weight is not None:
        raise TypeError(f"weight columns apply only when {name} is a DataFrame")
    if isinstance(data, (str, bytes, set, frozenset, Mapping)) or not hasattr(data, "__len__"):
        raise TypeError(
            f"{name} must be a long DataFrame (user, item) or one collection of items per list"
        )
    if len(data) != lists.n_users:
        raise ValueError(f"{name} has {len(data)} entries for {lists.n_users} recommended lists")
    owner, flat = [], []
    for u, coll in enumerate(data):
        if isinstance(coll, (str, bytes, Mapping)) or not hasattr(coll, "__iter__"):
            raise TypeError(f"{name}[{u}] must be a collection of item ids")
        coll = list(coll)
        for x in coll:
            if x is None or (isinstance(x, (float, np.floating)) and x != x):
                raise ValueError(f"{name}[{u}] holds a missing item id")
            if not isinstance(x, Hashable):
                raise TypeError(f"{name}[{u}] must hold hashable item ids, found {x!r}")
        flat.extend(coll)
        owner.extend([u] * len(coll))
    arr = pd.Index(flat, dtype=object)
    if _id_kind(arr) in ("int", "float", "str", "bool"):
        arr = pd.Index(flat)
    ids = _side_ids(arr, lists, name)
    return np.asarray(owner, dtype=np.int64), np.asarray(ids, dtype=object), np.ones(len(flat))


class _Membership:
    """Which (user, item) pairs a per-user collection holds, for item codes of ``lists``."""

    def __init__(self, lists, owner, ids):
        code = pd.Index(lists.items).get_indexer(pd.Index(ids, dtype=object))
        ok = code >= 0
        self.m = len(lists.items) + 1
        self.keys = np.unique(owner[ok] * self.m + code[ok])
        self.owner_all, self.ids_all = owner, ids

    def contains(self, owner, code):
        """Whether user ``owner[e]`` holds item ``code[e]``, for every ``e``."""
        if self.keys.size == 0:
            return np.zeros(np.shape(owner), dtype=bool)
        key = owner * self.m + code
        i = np.minimum(np.searchsorted(self.keys, key), self.keys.shape[0] - 1)
        return self.keys[i] == key


def _membership_table(lists, data, name, user, item):
    owner, ids, _ = _user_rows(data, lists, name, user=user, item=item)
    return _Membership(lists, owner, ids)


def _membership(lists, data, name, user, item):
    """1.0 where the entry's item is in its user's collection ``data``, else 0.0."""
    return (
        _membership_table(lists, data, name, user, item)
        .contains(lists.owner, lists.code)
        .astype(np.float64)
    )


# --------------------------------------------------------------------------
# popularity
def _popularity(popularity, n_users, denominator, lists):
    """``(counts, total)``: per-item popularity and the denominator of its fraction.

    ``counts`` is keyed by item ids comparable with the lists' (see
    :func:`_side_ids`); ``denominator='users'`` counts distinct users.
    """
    if isinstance(popularity, pd.DataFrame):
        for col in ("item",) + (("user",) if denominator == "users" else ()):
            if col not in popularity.columns:
                raise ValueError(
                    f"a popularity DataFrame must have a {col!r} column (training interactions)"
                )
        if n_users is not None:
            raise TypeError("n_users applies only when popularity holds counts")
        if len(popularity) == 0:
            raise ValueError("popularity is empty (no training interaction)")
        cols = [c for c in ("user", "item") if c in popularity.columns]
        if popularity[cols].isna().any().any():
            raise ValueError("popularity has a missing 'user' or 'item'")
        item = pd.Series(
            np.asarray(_side_ids(popularity["item"], lists, "popularity['item']")),
            index=popularity.index,
        )
        if denominator == "users":
            pairs = pd.DataFrame({"user": popularity["user"].to_numpy(), "item": item.to_numpy()})
            pairs = pairs.drop_duplicates(["user", "item"])
            counts = pairs["item"].value_counts().astype(np.float64)
            total = float(popularity["user"].nunique())
        else:
            counts, total = item.value_counts().astype(np.float64), float(len(popularity))
        _check_overlap(lists, counts.index, "popularity")
        return counts, total
    counts = _count_series(popularity, lists)
    if n_users is None:
        raise TypeError(
            "with counts, pass n_users= (the number of training users, or of interactions) "
            "so that the popularity of an item is a fraction"
        )
    total = check_positive_number(n_users, "n_users")
    if counts.size and counts.max() > total:
        raise ValueError(f"a popularity count exceeds n_users={n_users}")
    return counts, float(total)


def _count_series(popularity, lists):
    """Counts per item given as a Series or a dict, keyed like the lists."""
    if isinstance(popularity, Mapping):
        popularity = pd.Series(list(popularity.values()), index=pd.Index(list(popularity)))
    if not isinstance(popularity, pd.Series):
        raise TypeError(
            "popularity must be a training DataFrame (user, item), or a Series or dict "
            f"item -> count, got {type(popularity).__name__}"
        )
    if len(popularity) == 0:
        raise ValueError("popularity is empty (no item count)")
    if popularity.index.hasnans:
        raise ValueError("popularity has a missing item id in its index")
    if not popularity.index.is_unique:
        dup = popularity.index[popularity.index.duplicated()][0]
        raise ValueError(f"popularity gives the item {_show(dup)!r} two counts")
    values = as_numeric_array(popularity.to_numpy(), "popularity", ndim=1, nonnegative=True)
    keys = _side_ids(popularity.index, lists, "popularity (its index)")
    counts = pd.Series(values, index=pd.Index(keys))
    _check_overlap(lists, counts.index, "popularity")
    return counts


def _by_popularity(counts):
    """Item ids by decreasing count; equal counts in sorted id order (row order never matters)."""
    try:
        codes, ids = pd.factorize(counts.index, sort=True)
    except TypeError:
        raise TypeError(
            "popularity mixes item ids that cannot be sorted (e.g. strings and numbers); "
            "equal counts are ordered by item id, so use one type"
        ) from None
    return counts.index[np.lexsort((codes, -counts.to_numpy()))]


def _counts(popularity, lists, count="interactions"):
    """Counts per item from training interactions, or the counts as given (no denominator)."""
    if isinstance(popularity, pd.DataFrame):
        return _popularity(popularity, None, count, lists)[0]
    return _count_series(popularity, lists)


def _pop_of(lists, counts):
    """Popularity count of every entry of ``lists`` (0 for items absent from training)."""
    per_item = counts.reindex(lists.items).fillna(0.0).to_numpy(dtype=np.float64)
    return per_item[lists.code]


# --------------------------------------------------------------------------
# item features
def _keyed_positions(index, items, lists, name, what="row"):
    """Where each of ``items`` sits in ``index`` (ids of item data ``name``); raise if absent."""
    if index.hasnans:
        raise ValueError(f"{name} has a missing item id")
    if not index.is_unique:
        dup = _show(index[index.duplicated()][0])
        raise ValueError(f"{name} has two {what}s for the item {dup!r}")
    keys = pd.Index(_side_ids(index, lists, name))
    idx = keys.get_indexer(pd.Index(items))
    if (idx < 0).any():
        bad = items[int(np.argmax(idx < 0))]
        raise ValueError(f"{name} has no {what} for item {_show(bad)!r}")
    return idx


def _feature_matrix(features, items, lists, name="features"):
    """Feature vectors of ``items`` (rows) from a DataFrame or a dict item -> set of features."""
    if isinstance(features, pd.DataFrame):
        idx = _keyed_positions(features.index, items, lists, name)
        dtypes = features.dtypes
        bad = [c for c, t in dtypes.items() if not isinstance(t, np.dtype) or t.kind not in "biuf"]
        if bad:
            raise TypeError(
                f"{name} must hold numbers (one column per feature); column {bad[0]!r} has "
                f"dtype {dtypes[bad[0]]}"
            )
        x = features.to_numpy(dtype=np.float64)
        return as_numeric_array(x[idx], name, ndim=2, allow_empty=True)
    if isinstance(features, Mapping):
        keys = list(features)
        idx = _keyed_positions(pd.Index(keys), items, lists, name, what="entry")
        vocab = {}
        rows, cols = [], []
        for r, i in enumerate(idx):
            it = keys[i]
            feats = features[it]
            if isinstance(feats, (str, bytes, Mapping)) or not hasattr(feats, "__iter__"):
                raise TypeError(f"{name}[{it!r}] must be a set of features")
            for f in feats:
                if not isinstance(f, Hashable):
                    raise TypeError(f"{name}[{it!r}] must hold hashable features, found {f!r}")
                cols.append(vocab.setdefault(f, len(vocab)))
                rows.append(r)
        out = np.zeros((len(items), len(vocab)))
        out[rows, cols] = 1.0
        return out
    raise TypeError(
        f"{name} must be a DataFrame indexed by item id (one column per feature) or a dict "
        f"item -> set of features, got {type(features).__name__}"
    )
