"""Bayesian personalised ranking (BPR): factors fitted to pairwise preferences.

References
----------
.. [1] S. Rendle, C. Freudenthaler, Z. Gantner and L. Schmidt-Thieme. BPR:
   Bayesian Personalized Ranking from Implicit Feedback. UAI 2009.
.. [2] B. Frederickson. implicit: fast collaborative filtering for implicit
   datasets. https://github.com/benfred/implicit
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp  # noqa: F401 (the examples use sp, as the other models')

from .._validation import check_positive_number, check_seed
from ._common import _implicit, _positive_int, _train_matrix

__all__ = ["bpr"]


def bpr(train, *, factors=64, iterations=100, learning_rate=0.01, regularization=0.01, seed=0):
    """Bayesian personalised ranking (Rendle et al. 2009) by SGD, scores ``U V^T``.

    BPR maximises, over sampled triples of a user ``u``, an item ``i`` the
    user interacted with and an item ``j`` they did not,

    .. math::

        \\sum_{(u, i, j)} \\ln \\sigma(\\hat x_{ui} - \\hat x_{uj})
        - \\lambda \\lVert \\Theta \\rVert^2,
        \\qquad \\hat x_{ui} = w_u \\cdot h_i + b_i,

    by stochastic gradient ascent (``implicit``'s
    ``BayesianPersonalizedRanking``, which holds the item bias ``b_i`` as
    one more factor).

    Parameters
    ----------
    train : scipy.sparse matrix of shape (n_users, n_items)
        Training interactions; only whether a cell is non-zero counts (BPR
        reads implicit feedback as positive and unobserved pairs, its
        values are not weights).
    factors : int, default 64
        Number of latent factors (the item bias comes on top).
    iterations : int, default 100
        Passes over the training interactions (one sampled triple each).
    learning_rate : float, default 0.01
        SGD step size, finite and > 0.
    regularization : float, default 0.01
        L2 penalty ``lambda`` on the factors, finite and >= 0.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the initial factors and of the sampled triples, read as
        everywhere in the package (``None``: fresh entropy, two runs differ).

    Returns
    -------
    ndarray of shape (n_users, n_items), float64

    Notes
    -----
    Deterministic on one machine: with one thread (SGD in several threads
    updates shared factors in a racing order) and in double precision, the
    same ``seed`` gives bit-identical scores on every run (tested).
    Not promised across machines: the triples come from the random number
    generator compiled into ``implicit`` and the updates call ``exp`` in
    compiled code, so another build of ``implicit``, another C++ standard
    library or another processor may give scores that differ in the last
    bits, and near-ties may swap. A chapter prints numbers rounded well
    above that level, or compares models by their metrics, not their scores.

    References
    ----------
    .. [1] S. Rendle, C. Freudenthaler, Z. Gantner and L. Schmidt-Thieme.
       BPR: Bayesian Personalized Ranking from Implicit Feedback. UAI 2009.
    .. [2] B. Frederickson. implicit: fast collaborative filtering for
       implicit datasets. https://github.com/benfred/implicit

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 0, 1, 1]]))
    >>> S = bpr(X, factors=2, iterations=200, learning_rate=0.05)
    >>> S.shape, bool(S[0, 1] > S[0, 3]), bool((S == bpr(X, factors=2, iterations=200,
    ...                                                   learning_rate=0.05)).all())
    ((3, 4), True, True)
    """
    _implicit()
    from implicit.cpu.bpr import BayesianPersonalizedRanking
    from threadpoolctl import threadpool_limits

    m = _train_matrix(train)
    factors = _positive_int(factors, "factors")
    iterations = _positive_int(iterations, "iterations")
    learning_rate = check_positive_number(learning_rate, "learning_rate")
    regularization = check_positive_number(regularization, "regularization", strict=False)
    rng = check_seed(seed)
    m.data[:] = 1.0  # implicit reads non-zero cells only; 1 keeps its float32 copy exact
    with threadpool_limits(1, "blas"):
        model = BayesianPersonalizedRanking(
            factors=factors,
            iterations=iterations,
            learning_rate=learning_rate,
            regularization=regularization,
            random_state=rng,
            num_threads=1,
            dtype=np.float64,
        )
        with warnings.catch_warnings():  # implicit notes its own format conversions
            warnings.simplefilter("ignore")
            model.fit(m, show_progress=False)
    scores = (
        np.asarray(model.user_factors, dtype=np.float64)
        @ np.asarray(model.item_factors, dtype=np.float64).T
    )
    if not np.isfinite(scores).all():
        raise ValueError(
            f"bpr diverged (non-finite factors): learning_rate={learning_rate!r} and "
            f"regularization={regularization!r} are too large; use smaller ones"
        )
    return scores
