"""Target policies as ``action_dist`` arrays: Thompson sampling's, and a ranking's."""

from __future__ import annotations

import numpy as np

from .._validation import as_numeric_array, check_count, check_seed

__all__ = ["thompson_sampling_action_dist", "ranking_action_dist"]

# beta draws held at once (simulations x actions)
_CHUNK_CELLS = 4_000_000


def thompson_sampling_action_dist(alpha, beta, *, len_list=1, n_rounds=1, n_sim=100_000, seed=0):
    """Bernoulli Thompson sampling's probability of each action at each position.

    Each impression draws a click rate :math:`\\theta_a \\sim
    \\mathrm{Beta}(\\alpha_a, \\beta_a)` for every action and shows the
    ``len_list`` actions with the largest draws, in that order. The
    probability of action ``a`` at position ``k`` has no closed form; it is
    estimated from ``n_sim`` simulated impressions, as obp's
    ``BernoulliTS.compute_batch_action_dist`` does (the standard error of
    each probability is at most :math:`0.5/\\sqrt{n_{sim}}`, about 0.0016 for
    100,000). The
    policy ignores the context, so every round gets the same distribution.

    Parameters
    ----------
    alpha, beta : array-like of shape (n_actions,)
        The Beta parameters of each action (> 0), e.g. from
        :func:`recmetrics.datasets.open_bandit_prior`.
    len_list : int, default 1
        Positions per impression.
    n_rounds : int, default 1
        Rounds of the returned array (all equal).
    n_sim : int, default 100000
        Simulated impressions.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the simulation.

    Returns
    -------
    ndarray of shape (n_rounds, n_actions, len_list)
        Sums to 1 over the actions at each position.

    References
    ----------
    W. R. Thompson. On the Likelihood that One Unknown Probability Exceeds
    Another in View of the Evidence of Two Samples. Biometrika 25(3/4), 1933.

    Saito et al., Open Bandit Dataset and Pipeline, NeurIPS Datasets and
    Benchmarks 2021 (obp 0.5.7, ``obp/policy/contextfree.py``).

    Examples
    --------
    >>> d = thompson_sampling_action_dist([50.0, 1.0], [50.0, 99.0], n_sim=1000)
    >>> d.shape, float(d[0, 0, 0])
    ((1, 2, 1), 1.0)
    """
    a = as_numeric_array(alpha, "alpha", ndim=1)
    b = as_numeric_array(beta, "beta", ndim=1)
    if a.shape != b.shape:
        raise ValueError(f"alpha and beta must have the same length, got {a.size} and {b.size}")
    for name, arr in (("alpha", a), ("beta", b)):
        if np.any(arr <= 0):
            raise ValueError(f"{name} must be > 0 (Beta parameters), found {arr[arr <= 0][0]!r}")
    n_actions = a.size
    len_list = check_count(len_list, "len_list", maximum=n_actions)
    n_rounds = check_count(n_rounds, "n_rounds")
    n_sim = check_count(n_sim, "n_sim")
    rng = check_seed(seed)
    counts = np.zeros((n_actions, len_list))
    chunk = max(1, _CHUNK_CELLS // n_actions)
    positions = np.arange(len_list)
    for start in range(0, n_sim, chunk):
        m = min(chunk, n_sim - start)
        draws = rng.beta(a, b, size=(m, n_actions))
        top = np.argsort(-draws, axis=1, kind="stable")[:, :len_list]
        np.add.at(counts, (top, np.broadcast_to(positions, top.shape)), 1.0)
    return np.broadcast_to(counts / n_sim, (n_rounds, n_actions, len_list)).copy()


def ranking_action_dist(ranked, *, n_actions, len_list=None):
    """The ``action_dist`` of a deterministic policy that shows given rankings.

    Parameters
    ----------
    ranked : array-like of int, shape (n_rounds, len_list) or (len_list,)
        The actions shown, best first, per round (one row for every round
        when 1-D); no action twice in a row.
    n_actions : int
        The number of actions.
    len_list : int, optional
        The positions kept (default: all columns of ``ranked``).

    Returns
    -------
    ndarray of shape (n_rounds, n_actions, len_list)
        1 for the action shown at each position, 0 elsewhere.

    Examples
    --------
    >>> ranking_action_dist([2, 0], n_actions=3)[0].tolist()
    [[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]
    """
    arr = as_numeric_array(ranked, "ranked", ndim=(1, 2))
    if arr.ndim == 1:
        arr = arr[None, :]
    n_actions = check_count(n_actions, "n_actions")
    if np.any(arr != np.round(arr)) or np.any(arr < 0) or np.any(arr >= n_actions):
        raise ValueError(f"ranked must hold action indices in 0..{n_actions - 1}")
    len_list = (
        arr.shape[1]
        if len_list is None
        else check_count(len_list, "len_list", maximum=arr.shape[1])
    )
    top = arr[:, :len_list].astype(np.int64)
    srt = np.sort(top, axis=1)
    if np.any(srt[:, 1:] == srt[:, :-1]):
        raise ValueError("ranked shows an action twice in one round")
    n_rounds = top.shape[0]
    dist = np.zeros((n_rounds, n_actions, len_list))
    rows = np.repeat(np.arange(n_rounds), len_list)
    dist[rows, top.ravel(), np.tile(np.arange(len_list), n_rounds)] = 1.0
    return dist
