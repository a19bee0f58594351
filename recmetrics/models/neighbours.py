"""User-based neighbourhood model: the ``K`` most similar users vote for their items.

References
----------
.. [1] J. Herlocker, J. Konstan, A. Borchers and J. Riedl. An Algorithmic
   Framework for Performing Collaborative Filtering. SIGIR 1999.
.. [2] B. Sarwar, G. Karypis, J. Konstan and J. Riedl. Item-based
   collaborative filtering recommendation algorithms. WWW 2001.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._common import _positive_int, _train_matrix

__all__ = ["user_knn"]

# users whose similarities are computed at once (a dense block x n_users array)
_BLOCK = 512


def user_knn(train, *, neighbours=100):
    """User-based neighbourhood model: cosine similarity between users, K neighbours.

    .. math::

        \\mathrm{sim}(u, v) = \\frac{x_u \\cdot x_v}{\\lVert x_u \\rVert \\, \\lVert x_v \\rVert},
        \\qquad
        \\mathrm{score}(u, i) = \\sum_{v \\in N_K(u)} \\mathrm{sim}(u, v) \\, x_{vi}

    where ``x_u`` is user ``u``'s row of ``train`` and ``N_K(u)`` holds the
    ``K = neighbours`` other users most similar to ``u`` (similarity > 0; the
    user is never their own neighbour). The scores are unnormalised sums of
    similarities, as :func:`item_knn`'s, so a user with many close
    neighbours has larger scores; within one user's row only the order
    matters.

    Parameters
    ----------
    train : scipy.sparse matrix of shape (n_users, n_items)
        Training interactions (values are weights: a cell's value enters both
        the cosine and the vote).
    neighbours : int, default 100
        Number of most similar users kept per user; a number beyond
        ``n_users - 1`` keeps every user with a similarity > 0.

    Returns
    -------
    ndarray of shape (n_users, n_items), float64

    Notes
    -----
    Ties at the ``K``-th similarity keep the users of lower row index (a
    stable sort), so the result is the same on every run. A user without
    interactions has no neighbours and scores 0 everywhere. Similarities are
    computed for blocks of 512 users at a time: memory ``O(512 n_users)``,
    time ``O(n_users^2 log n_users)`` for the selection.

    See Also
    --------
    item_knn : the item-based model (Sarwar et al. 2001).

    References
    ----------
    .. [1] J. Herlocker, J. Konstan, A. Borchers and J. Riedl. An Algorithmic
       Framework for Performing Collaborative Filtering. SIGIR 1999.
    .. [2] B. Sarwar, G. Karypis, J. Konstan and J. Riedl. Item-based
       collaborative filtering recommendation algorithms. WWW 2001.

    Examples
    --------
    User 0's nearest other user is user 1 (cosine ``2 / sqrt(6)``), who has
    every item:

    >>> X = sp.csr_array(np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1]]))
    >>> user_knn(X, neighbours=1).round(3).tolist()
    [[0.816, 0.816, 0.816], [0.816, 0.816, 0.0], [0.577, 0.577, 0.577]]
    """
    m = _train_matrix(train)
    k = min(_positive_int(neighbours, "neighbours"), max(m.shape[0] - 1, 1))
    normalised = _row_normalised(m)
    n_users = m.shape[0]
    rows, cols, vals = [], [], []
    for start in range(0, n_users, _BLOCK):
        stop = min(start + _BLOCK, n_users)
        sim = (normalised[start:stop] @ normalised.T).toarray()
        sim[np.arange(stop - start), np.arange(start, stop)] = -np.inf  # never oneself
        top = np.argsort(-sim, axis=1, kind="stable")[:, :k]
        top_sim = np.take_along_axis(sim, top, axis=1)
        keep = top_sim > 0
        rows.append(np.nonzero(keep)[0] + start)
        cols.append(top[keep])
        vals.append(top_sim[keep])
    weights = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_users, n_users),
    )
    scores = np.asarray((weights @ m).todense())
    if not np.isfinite(scores).all():
        raise ValueError(
            "train holds values too large for user_knn's sums in float64; rescale train"
        )
    return scores


def _row_normalised(m):
    """Each row of ``m`` divided by its Euclidean norm (rows without entries stay 0)."""
    with np.errstate(over="ignore", under="ignore"):
        squares = np.asarray(m.multiply(m).sum(axis=1), dtype=np.float64).ravel()
    present = np.diff(m.indptr) > 0
    bad = present & ~((squares > 0) & np.isfinite(squares))
    if bad.any():
        raise ValueError(
            "train holds values too small or too large for cosine similarities in float64 "
            f"(the squares of user {int(np.argmax(bad))}'s values under- or overflow); "
            "rescale train"
        )
    inv = np.zeros_like(squares)
    inv[present] = 1.0 / np.sqrt(squares[present])
    return sp.csr_matrix(sp.diags(inv) @ m)
