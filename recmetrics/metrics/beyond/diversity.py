"""Intra-list diversity, and the distances between items it reads (:class:`_Space`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..._kernels import CHUNK_CELLS, jaccard_pair_sums
from ..._validation import as_numeric_array, check_bool, check_choice
from ...inputs.lists import _read_lists
from ._common import _pos_weights
from ._pieces import _fill_doc
from ._presets import _resolve
from ._side import _feature_matrix, _keyed_positions

__all__ = ["intra_list_diversity"]

_DISTANCES = ("jaccard", "cosine", "hamming", "precomputed")


# --------------------------------------------------------------------------
# item features and distances
class _Space:
    """Distances between the items ``0..m-1`` (codes), with code ``m`` a padding item.

    * jaccard: features packed into 64-bit words; ``|A ∩ B|`` by popcount;
    * hamming: each feature's values as integer codes; the count of
      features whose codes differ;
    * cosine: unit feature vectors (zero for items without features);
    * precomputed: the distance matrix.

    ``width`` is the number of values a pair's distance reads (to size blocks).
    """

    def __init__(self, features, items, distance, lists):
        check_choice(distance, "distance", _DISTANCES)
        self.kind = distance
        self.width = 1
        m = len(items)
        if distance == "precomputed":
            if not isinstance(features, pd.DataFrame):
                raise TypeError(
                    "with distance='precomputed', features must be a DataFrame of distances "
                    "indexed and labelled by item id"
                )
            ri = _keyed_positions(features.index, items, lists, "features (the distance rows)")
            ci = _keyed_positions(
                features.columns, items, lists, "features (the distance columns)", what="column"
            )
            d = as_numeric_array(features.to_numpy(), "features", ndim=2, nonnegative=True)
            self.d = np.zeros((m + 1, m + 1))
            self.d[:m, :m] = d[np.ix_(ri, ci)]
            return
        x = _feature_matrix(features, items, lists)
        if distance == "jaccard":
            b = np.zeros((m + 1, max(x.shape[1], 1)), dtype=bool)
            b[:m, : x.shape[1]] = x != 0
            packed = np.packbits(b, axis=1, bitorder="little")
            pad = (-packed.shape[1]) % 8
            packed = np.pad(packed, ((0, 0), (0, pad)))
            self.bits = np.ascontiguousarray(packed).view(np.uint64)
            self.size = b.sum(axis=1).astype(np.float64)
        elif distance == "hamming":
            # RecTools' PairwiseHammingDistanceCalculator: the number of
            # features whose values differ (2 and 1 differ, as 1 and 0 do)
            codes = np.zeros((m + 1, x.shape[1]), dtype=np.int64)
            for j in range(x.shape[1]):
                codes[:m, j] = np.unique(x[:, j], return_inverse=True)[1].ravel()
            self.codes = codes
            self.width = max(x.shape[1], 1)
        else:
            norm = np.linalg.norm(x, axis=1)
            unit = np.zeros((m + 1, x.shape[1]))
            ok = norm > 0
            unit[:m][ok] = x[ok] / norm[ok, None]
            self.unit = unit
            self.width = max(x.shape[1], 1)

    def pairs(self, a, b):
        """Distances ``d(a[e], b[e])`` for code arrays ``a``, ``b`` of one shape."""
        if self.kind == "precomputed":
            return self.d[a, b]
        if self.kind == "jaccard":
            inter = np.zeros(a.shape, dtype=np.float64)
            for w in range(self.bits.shape[1]):
                col = self.bits[:, w]
                inter += np.bitwise_count(col[a] & col[b])
            union = self.size[a] + self.size[b] - inter
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(union > 0, 1.0 - inter / union, 0.0)
        if self.kind == "hamming":
            out = np.zeros(a.shape, dtype=np.float64)
            for j in range(self.codes.shape[1]):
                col = self.codes[:, j]
                out += col[a] != col[b]
            return out
        return 1.0 - np.einsum("...f,...f->...", self.unit[a], self.unit[b])


def _pair_sums_numpy(space, codes, wpad, pad_code):
    """Per row, ``sum_{i<j} w_i w_j d(i, j)`` over the padded lists, in blocks of users."""
    codes = np.where(codes < 0, pad_code, codes)  # the padding item: no features, weight 0
    n, width = codes.shape
    pi, pj = np.triu_indices(width, 1)
    total = np.zeros(n)
    step = max(1, CHUNK_CELLS // max(pi.shape[0] * space.width, 1))
    for lo in range(0, n, step):
        c, ww = codes[lo : lo + step], wpad[lo : lo + step]
        d = space.pairs(c[:, pi], c[:, pj])
        total[lo : lo + step] = np.einsum("up,up->u", d, ww[:, pi] * ww[:, pj])
    return total


@_fill_doc
def intra_list_diversity(
    recommended, features, *, k=None, distance=None, short=None, per_user=False,
    discount=False, convention=None, items=None,
):  # fmt: skip
    """Intra-list diversity: the mean pairwise distance between the items of each list.

    .. math:: \\mathrm{ILD}(L_u) = \\frac{\\sum_{i < j} w_i w_j\\, d(L_{u,i}, L_{u,j})}
              {\\sum_{i < j} w_i w_j}

    with ``w = 1`` (Ziegler et al. 2005; Smyth & McClave 2001: the mean over
    the ``|L|(|L|-1)/2`` pairs) or, with ``discount=True``,
    ``w_i = 1 / log2(r_i + 1)`` for the item at rank ``r_i``: a rank-aware
    variant in the spirit of Vargas & Castells (2011), normalised by the
    weights so that it stays in the distance's range. Lists shorter than
    two items have no pairs (NaN per user, left out of the mean).

    Parameters
    ----------
    %(b_recommended)s
    features : pandas.DataFrame or dict
        Item features: a DataFrame indexed by item id with one column per
        feature (e.g. one-hot genres), or a dict item -> set of features;
        with ``distance='precomputed'``, a DataFrame of distances indexed
        and labelled by item id.
    %(b_k)s
    distance : {'jaccard', 'cosine', 'hamming', 'precomputed'}, optional
        ``1 - |A ∩ B| / |A ∪ B|`` on the sets of features (non-zero
        entries; two items without features are at distance 0), ``1 - cos``
        of the feature vectors (an item without features is at distance 1
        from every other; with the items' user-incidence vectors from the
        training data as features this is Microsoft Recommenders' default
        co-occurrence similarity), the Hamming distance: the number of
        features (columns) in which the two items' values differ, whatever
        the values (1 and 2 differ as 0 and 1 do; not normalised; RecTools'
        ``PairwiseHammingDistanceCalculator``; for a dict of feature sets,
        ``|A xor B|``), or the given matrix. ``None`` means ``'jaccard'``.
    short : {'skip', 'zero'}, optional
        Lists with fewer than two items have no pairs: ``None`` means
        ``'skip'`` (NaN per user, left out of the mean, as Microsoft
        Recommenders); ``'zero'`` counts them as 0 (RecTools).
    %(beyond_per_user)s
    discount : bool, default False
        Weight pairs by their ranks, as above.
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float or numpy.ndarray or pandas.Series

    See Also
    --------
    serendipity, calibration

    Notes
    -----
    Cosine uses ``sum_{i<j} w_i w_j cos(i, j) = (|sum_i w_i u_i|^2 - sum_i
    w_i^2 |u_i|^2) / 2`` with unit vectors ``u``: one pass over the lists'
    features, no pairs. Jaccard packs the features into 64-bit words and
    counts intersections with a population count, pair by pair, in blocks
    of users.

    References
    ----------
    .. [1] C.-N. Ziegler, S. M. McNee, J. A. Konstan and G. Lausen. Improving
       recommendation lists through topic diversification. WWW 2005.
    .. [2] S. Vargas and P. Castells. Rank and Relevance in Novelty and
       Diversity Metrics for Recommender Systems. RecSys 2011.

    Examples
    --------
    >>> genres = {"a": {"Drama"}, "b": {"Drama"}, "c": {"Comedy"}}
    >>> round(intra_list_diversity([["a", "b", "c"]], genres), 4)   # pairs: 0, 1, 1
    0.6667
    >>> sizes = pd.DataFrame({"seasons": [1, 2, 2], "kids": [0, 0, 1]}, index=["a", "b", "c"])
    >>> round(intra_list_diversity([["a", "b", "c"]], sizes, distance="hamming"), 4)  # 1, 2, 1
    1.3333
    """
    opts = _resolve(
        "ild", convention, {"distance": distance, "short": short},
        {"distance": "jaccard", "short": "skip"},
    )  # fmt: skip
    check_choice(opts["short"], "short", ("skip", "zero"))
    per_user = check_bool(per_user, "per_user")
    discount = check_bool(discount, "discount")
    lists = _read_lists(recommended, k, items=items)
    space = _Space(features, lists.items, opts["distance"], lists)
    w = _pos_weights(lists.pos, discount)
    n = lists.n_users
    sw = np.bincount(lists.owner, weights=w, minlength=n)
    sw2 = np.bincount(lists.owner, weights=w * w, minlength=n)
    weight = (sw * sw - sw2) / 2.0  # sum over pairs of w_i w_j
    if space.kind == "cosine":
        # sum over pairs of w_i w_j cos = (|sum w_i u_i|^2 - sum w_i^2 |u_i|^2) / 2
        m = space.unit.shape[0]
        W = sp.csr_matrix((w, (lists.owner, lists.code)), shape=(n, m))
        s = np.asarray(W @ space.unit)
        sq = (space.unit**2).sum(axis=1)
        self_sim = np.bincount(lists.owner, weights=w * w * sq[lists.code], minlength=n)
        # 1 - cos >= 0: clip the round-off of the difference (exact up to ~1e-16)
        total = np.maximum(weight - ((s * s).sum(axis=1) - self_sim) / 2.0, 0.0)
    else:
        codes = lists.padded()
        wpad = np.zeros(codes.shape)
        wpad[lists.owner, lists.slots()] = w
        total = None
        if space.kind == "jaccard":
            total = jaccard_pair_sums(codes, wpad, space.bits, space.size)
        if total is None:
            total = _pair_sums_numpy(space, codes, wpad, len(lists.items))
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(weight > 0, total / weight, np.nan if opts["short"] == "skip" else 0.0)
    return lists.finish(per, per_user)
