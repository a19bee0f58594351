"""The first four baselines: popularity, item-kNN, implicit ALS and EASE.

Each takes the training interactions as a user x item sparse matrix and
returns a dense ``float64`` score matrix; see :mod:`recmetrics.models`.

References
----------
.. [1] Y. Hu, Y. Koren and C. Volinsky. Collaborative Filtering for Implicit
   Feedback Datasets. ICDM 2008.
.. [2] B. Sarwar, G. Karypis, J. Konstan and J. Riedl. Item-based
   collaborative filtering recommendation algorithms. WWW 2001.
.. [3] H. Steck. Embarrassingly Shallow Autoencoders for Sparse Data. WWW 2019.
.. [4] B. Frederickson. implicit: fast collaborative filtering for implicit
   datasets. https://github.com/benfred/implicit
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from .._validation import check_positive_number, check_seed
from ._common import _implicit, _positive_int, _train_matrix

__all__ = ["popularity", "item_knn", "als", "ease"]


def popularity(train):
    """Score every item by its number of training interactions (the same for every user).

    Parameters
    ----------
    train : scipy.sparse matrix of shape (n_users, n_items)
        Training interactions (non-zero = interacted).

    Returns
    -------
    ndarray of shape (n_users, n_items), float64

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1, 0, 1], [0, 0, 1]]))
    >>> popularity(X).tolist()
    [[1.0, 0.0, 2.0], [1.0, 0.0, 2.0]]
    """
    m = _train_matrix(train)
    counts = np.asarray((m > 0).sum(axis=0), dtype=np.float64).ravel()
    return np.broadcast_to(counts, m.shape).copy()


def item_knn(train, *, neighbours=100):
    """Item-based neighbourhood model: cosine similarity to the user's items, K neighbours.

    Parameters
    ----------
    train : scipy.sparse matrix of shape (n_users, n_items)
        Training interactions.
    neighbours : int, default 100
        Number of most similar items kept per item.

    Returns
    -------
    ndarray of shape (n_users, n_items), float64
        ``score(u, i) = sum over the user's items j of sim(j, i)``, where
        ``sim(j, .)`` keeps the ``neighbours`` most similar items of ``j``
        (``j`` itself has similarity 1, the largest, but when more than
        ``neighbours`` items tie at 1 the cut may keep others instead).

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1]]))
    >>> item_knn(X, neighbours=2).round(3).tolist()[0]
    [2.0, 2.0, 0.0]
    """
    _implicit()
    from implicit.nearest_neighbours import CosineRecommender

    m = _train_matrix(train)
    _check_cosine_norms(m)
    # more neighbours than items means every item (implicit's K is a C integer)
    k = min(_positive_int(neighbours, "neighbours"), max(int(m.shape[1]), 1))
    model = CosineRecommender(K=k, num_threads=1)
    with warnings.catch_warnings():  # implicit notes its own internal format conversions
        warnings.simplefilter("ignore")
        model.fit(m, show_progress=False)
    sim = sp.csr_matrix(model.similarity, dtype=np.float64)
    scores = np.asarray((m @ sim).todense())
    if not np.isfinite(scores).all():
        raise ValueError(
            "train holds values too large for item_knn's sums in float64; rescale train"
        )
    return scores


def _check_cosine_norms(m):
    """Raise unless every item's squared norm is finite and > 0 in float64.

    ``implicit`` divides each item's column by ``sqrt(sum of squares)``: a sum
    that underflows to 0 gives infinite (then NaN) similarities, one that
    overflows gives similarities 0. (An item without entries has no norm and
    no neighbours: it scores 0.)
    """
    with np.errstate(over="ignore", under="ignore"):
        squares = np.bincount(m.indices, weights=m.data**2, minlength=m.shape[1])
    present = np.bincount(m.indices, minlength=m.shape[1]) > 0
    bad = present & ~((squares > 0) & np.isfinite(squares))
    if bad.any():
        raise ValueError(
            "train holds values too small or too large for cosine similarities in float64 "
            f"(the squares of item {int(np.argmax(bad))}'s values under- or overflow); "
            "rescale train"
        )


def als(train, *, factors=64, iterations=15, regularization=0.05, alpha=1.0, seed=0):
    """Implicit-feedback matrix factorisation (ALS), scores ``U V^T``.

    Parameters
    ----------
    train : scipy.sparse matrix of shape (n_users, n_items)
        Training interactions: an observed one (a value > 0) has preference 1
        and confidence ``alpha * value``, an unobserved one preference 0 and
        confidence 1 (``implicit``'s weighting).
    factors : int, default 64
        Number of latent factors.
    iterations : int, default 15
        ALS sweeps.
    regularization : float, default 0.05
        L2 penalty on the factors, finite and >= 0.
    alpha : float, default 1.0
        Confidence scale of the observed interactions, finite and > 0.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the initial factors, read as everywhere in the package: a
        non-negative integer, a ``Generator`` (used as it is), or ``None``
        for fresh entropy (then two runs differ).

    Returns
    -------
    ndarray of shape (n_users, n_items), float64

    Notes
    -----
    Computed in double precision with one thread: ``implicit``'s default
    single precision would leave near-ties between items at the level of
    float32 round-off, where a different processor could swap them.
    (``implicit`` still holds the confidences ``alpha * value`` in single
    precision: values or products out of float32's range raise.)

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 0, 1, 1]]))
    >>> S = als(X, factors=2, iterations=5)
    >>> S.shape, bool(S[0, 1] > S[0, 3])
    ((3, 4), True)
    """
    _implicit()
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.recommender_base import ModelFitError
    from threadpoolctl import threadpool_limits

    m = _train_matrix(train)
    factors = _positive_int(factors, "factors")
    iterations = _positive_int(iterations, "iterations")
    # implicit adds regularization * I to a Gram matrix (0 is allowed) and
    # weighs an observed interaction by alpha * value (0 would weigh none)
    regularization = check_positive_number(regularization, "regularization", strict=False)
    alpha = check_positive_number(alpha, "alpha")
    rng = check_seed(seed)  # None: fresh entropy; implicit takes the Generator as it is
    _check_confidences(m, alpha)
    # one BLAS thread: implicit asks for it, and its sums then run in one order
    with threadpool_limits(1, "blas"):
        model = AlternatingLeastSquares(
            factors=factors,
            iterations=iterations,
            regularization=regularization,
            alpha=alpha,
            random_state=rng,
            num_threads=1,
            dtype=np.float64,
        )
        try:
            model.fit(m, show_progress=False)
        except ModelFitError:
            raise ValueError(
                "als diverged (implicit found NaN in the factors): regularization="
                f"{regularization!r} and alpha={alpha!r} overflow its conjugate-gradient "
                "steps with these values of train; use smaller ones"
            ) from None
    return (
        np.asarray(model.user_factors, dtype=np.float64)
        @ np.asarray(model.item_factors, dtype=np.float64).T
    )


def _check_confidences(m, alpha):
    """Raise unless implicit's confidences ``alpha * value`` are finite and > 0 in float32.

    ``implicit`` casts ``train`` to float32 and multiplies it by ``alpha``
    (the factors are float64, the confidences are not): a value or a product
    out of float32's range would become 0 or infinity, and the factors NaN.
    """
    with np.errstate(over="ignore"):
        values = m.data.astype(np.float32)
    if not (np.isfinite(values).all() and (values > 0).all()):
        raise ValueError(
            "als computes its confidences in single precision: the values of train must "
            f"lie within float32's range, found {m.data.min():g} to {m.data.max():g}"
        )
    with np.errstate(over="ignore", under="ignore"):
        conf = values * alpha if alpha != 1.0 else values
    if not (np.isfinite(conf).all() and (conf > 0).all()):
        raise ValueError(
            f"alpha * train must lie within float32's range (implicit's confidences), got "
            f"alpha={alpha!r} with values of train from {m.data.min():g} to {m.data.max():g}"
        )


def ease(train, *, l2=500.0):
    """EASE (Steck 2019): an item-item linear model in closed form.

    Parameters
    ----------
    train : scipy.sparse matrix of shape (n_users, n_items)
        Training interactions.
    l2 : float, default 500.0
        L2 penalty ``lambda``.

    Returns
    -------
    ndarray of shape (n_users, n_items), float64
        ``X B`` with ``B = I - P diag(1 / diag P)``, ``P = (X^T X + lambda I)^{-1}``
        (the diagonal of ``B`` is zero).

    Notes
    -----
    Inverting an ``n_items x n_items`` matrix costs ``O(n_items^3)``: about
    a second for 3,000 items on two cores, a minute for 9,000.

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1]]))
    >>> ease(X, l2=1.0).round(3).tolist()[0]
    [0.625, 0.625, 0.4]
    """
    m = _train_matrix(train)
    if isinstance(l2, (bool, np.bool_)) or not isinstance(l2, numbers.Real) or not l2 > 0:
        raise ValueError(f"l2 must be a number > 0, got {l2!r}")
    try:
        finite = math.isfinite(l2)
    except OverflowError:  # an integer beyond float64
        finite = False
    if not finite:  # an infinite penalty leaves 0/0 in B
        raise ValueError(f"l2 must be a finite number > 0, got {l2!r}")
    gram = (m.T @ m).toarray()
    if not np.isfinite(gram).all():
        raise ValueError("train holds values too large for X^T X in float64; rescale train")
    gram[np.diag_indices_from(gram)] += float(l2)
    try:
        p = np.linalg.inv(gram)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"X^T X + l2 I is singular: l2={l2!r} is too small for the values of train"
        ) from None
    b = -p / np.diag(p)
    b[np.diag_indices_from(b)] = 0.0
    scores = np.asarray(m @ b)
    if not np.isfinite(scores).all():
        raise ValueError(
            f"ease's scores are not finite: l2={l2!r} is too small or too large for the "
            "values of train (X^T X + l2 I is numerically singular); change l2 or rescale train"
        )
    return scores
