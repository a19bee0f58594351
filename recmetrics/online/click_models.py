"""Click models: simulated users on a ranking, and their exact click probabilities.

Three models of how a user reads a list of ``k`` items, best first
(Chuklin, Markov & de Rijke 2015), each from the *attractiveness*
:math:`\\alpha_r` of the item at rank :math:`r` (the probability of a click
if the user looks at it, e.g. from a preference matrix):

* ``'pbm'``, position-based: rank :math:`r` is examined with probability
  :math:`\\gamma_r` (``examination``), independently of the rest, and
  clicked if examined and attractive: :math:`P(C_r) = \\gamma_r \\alpha_r`;
* ``'cascade'``: the user reads from the top, clicks the first attractive
  item and stops: :math:`P(C_r) = \\alpha_r \\prod_{j<r} (1 - \\alpha_j)`;
* ``'dcm'``, dependent click: as the cascade, but after a click at rank
  :math:`r` the user goes on reading with probability :math:`\\lambda_r`
  (``continuation``); ``continuation=0`` is the cascade.

:func:`simulate_clicks` draws clicks for many impressions at once (a loop
over the ``k`` ranks, vectorised over impressions); :func:`click_probabilities`
gives each rank's exact click probability.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_numeric_array, check_choice, check_seed

__all__ = ["CLICK_MODELS", "simulate_clicks", "click_probabilities"]

CLICK_MODELS = ("pbm", "cascade", "dcm")


def _probabilities(x, name, shape=None):
    arr = as_numeric_array(x, name, ndim=(1, 2) if shape is None else 1)
    bad = (arr < 0) | (arr > 1)
    if np.any(bad):
        raise ValueError(f"{name} must be probabilities in [0, 1], found {arr[bad][0]!r}")
    if shape is not None and arr.shape != shape:
        raise ValueError(
            f"{name} must have one probability per rank, {shape[0]}, got {arr.shape[0]}"
        )
    return arr


def _read(attractiveness, model, examination, continuation):
    check_choice(model, "model", CLICK_MODELS)
    alpha = _probabilities(attractiveness, "attractiveness")
    single = alpha.ndim == 1
    alpha = np.atleast_2d(alpha)
    k = alpha.shape[1]
    gamma = lam = None
    if model == "pbm":
        if examination is None:
            raise TypeError("model='pbm' needs examination= (one probability per rank)")
        gamma = _probabilities(examination, "examination", (k,))
    elif examination is not None:
        raise TypeError(f"examination is a parameter of model='pbm', not {model!r}")
    if model == "dcm":
        if continuation is None:
            raise TypeError("model='dcm' needs continuation= (one probability per rank)")
        lam = _probabilities(continuation, "continuation", (k,))
    elif continuation is not None:
        raise TypeError(f"continuation is a parameter of model='dcm', not {model!r}")
    if model == "cascade":
        lam = np.zeros(k)
    return alpha, single, gamma, lam


def simulate_clicks(attractiveness, *, model, examination=None, continuation=None, seed=0):
    """Draw the clicks of simulated users on shown lists.

    Parameters
    ----------
    attractiveness : array-like of shape (n_impressions, k) or (k,)
        The attractiveness :math:`\\alpha` of the item at each rank of each
        shown list, in [0, 1].
    model : {'pbm', 'cascade', 'dcm'}
        The click model (see the module docstring).
    examination : array-like of shape (k,), optional
        ``'pbm'`` only: the probability that each rank is examined.
    continuation : array-like of shape (k,), optional
        ``'dcm'`` only: the probability of reading on after a click at
        each rank.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the draws.

    Returns
    -------
    ndarray of bool, shape like ``attractiveness``
        The clicks.

    See Also
    --------
    click_probabilities : the exact click probability of each rank.

    References
    ----------
    A. Chuklin, I. Markov and M. de Rijke. Click Models for Web Search.
    Morgan & Claypool, 2015.

    N. Craswell, O. Zoeter, M. Taylor and B. Ramsey. An Experimental
    Comparison of Click Position-Bias Models. WSDM 2008.

    F. Guo, C. Liu and Y. M. Wang. Efficient Multiple-Click Models in Web
    Search. WSDM 2009.

    Examples
    --------
    >>> clicks = simulate_clicks([[1.0, 1.0, 1.0]], model="cascade")
    >>> clicks.tolist()  # the first attractive item, then the user stops
    [[True, False, False]]
    """
    alpha, single, gamma, lam = _read(attractiveness, model, examination, continuation)
    rng = check_seed(seed)
    n, k = alpha.shape
    if model == "pbm":
        clicks = (rng.random((n, k)) < gamma) & (rng.random((n, k)) < alpha)
    else:
        clicks = np.zeros((n, k), dtype=bool)
        reading = np.ones(n, dtype=bool)
        attract = rng.random((n, k)) < alpha
        go_on = rng.random((n, k)) < lam
        for r in range(k):
            clicks[:, r] = reading & attract[:, r]
            reading &= ~clicks[:, r] | go_on[:, r]
    return clicks[0] if single else clicks


def click_probabilities(attractiveness, *, model, examination=None, continuation=None):
    """The exact probability of a click at each rank under a click model.

    .. math::
        \\mathrm{PBM}: \\gamma_r \\alpha_r; \\qquad
        \\mathrm{DCM}: \\alpha_r e_r, \\; e_1 = 1, \\;
        e_{r+1} = e_r \\bigl(1 - \\alpha_r + \\alpha_r \\lambda_r\\bigr)

    (the cascade is the DCM with :math:`\\lambda = 0`).

    Parameters
    ----------
    attractiveness, model, examination, continuation
        As in :func:`simulate_clicks`.

    Returns
    -------
    ndarray of float, shape like ``attractiveness``

    Examples
    --------
    >>> click_probabilities([0.5, 0.5], model="cascade").tolist()
    [0.5, 0.25]
    """
    alpha, single, gamma, lam = _read(attractiveness, model, examination, continuation)
    if model == "pbm":
        out = alpha * gamma
    else:
        stay = 1.0 - alpha + alpha * lam
        examined = np.concatenate([np.ones((alpha.shape[0], 1)), np.cumprod(stay, axis=1)[:, :-1]],
                                  axis=1)  # fmt: skip
        out = alpha * examined
    return out[0] if single else out
