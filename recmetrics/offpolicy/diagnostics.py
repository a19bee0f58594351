"""How trustworthy an importance-weighted estimate can be: the weights' diagnostics."""

from __future__ import annotations

import pandas as pd

from ._inputs import read_feedback

__all__ = ["weight_diagnostics"]


def weight_diagnostics(*, action, pscore, action_dist, position=None) -> pd.Series:
    """Diagnostics of the importance weights of a target policy on logged data.

    With :math:`w_i = \\pi_e(a_i \\mid x_i) / \\pi_b(a_i \\mid x_i)`:

    * ``mean_weight``: :math:`\\frac1n \\sum_i w_i`, whose expectation is 1
      when the propensities are right and the logging policy covers the
      target's actions; far from 1 means wrong propensities, a support
      deficiency, or too few rounds;
    * ``max_weight``: the largest weight (one round's share of the IPS sum
      is at most ``max_weight / (n * value)``);
    * ``effective_sample_size``: Kish's :math:`(\\sum_i w_i)^2 / \\sum_i
      w_i^2`, the number of rounds an unweighted sample of the same
      variance would have;
    * ``zero_weight_share``: the share of logged rounds whose action the
      target policy could not have taken (:math:`\\pi_e(a_i \\mid x_i) = 0`);
      they carry no information about it;
    * ``n_rounds``.

    Parameters
    ----------
    action : array-like of int, shape (n_rounds,)
        The logged actions.
    pscore : array-like of shape (n_rounds,)
        The logging policy's propensities of the logged actions, in (0, 1].
    action_dist : array-like of shape (n_rounds, n_actions, len_list)
        The target policy's action probabilities.
    position : array-like of int, shape (n_rounds,), optional
        The logged positions (required when ``len_list > 1``).

    Returns
    -------
    pandas.Series
        Indexed by the names above.

    See Also
    --------
    ips, snips

    References
    ----------
    L. Kish. Survey Sampling. Wiley, 1965 (the effective sample size).

    A. B. Owen. Monte Carlo Theory, Methods and Examples, 2013, ch. 9.

    Examples
    --------
    >>> import numpy as np
    >>> pi = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])[:, :, None]
    >>> weight_diagnostics(action=[0, 1, 1, 1], pscore=[0.5] * 4, action_dist=pi)
    mean_weight              1.50
    max_weight               2.00
    effective_sample_size    3.00
    zero_weight_share        0.25
    n_rounds                 4.00
    dtype: float64
    """
    f = read_feedback(action=action, pscore=pscore, action_dist=action_dist, position=position,
                      need=("action", "pscore", "action_dist"))  # fmt: skip
    w = f.weights()
    total = float(w.sum())
    squares = float((w * w).sum())
    return pd.Series(
        {
            "mean_weight": total / f.n_rounds,
            "max_weight": float(w.max()),
            "effective_sample_size": total * total / squares if squares > 0 else 0.0,
            "zero_weight_share": float((f.target_at_logged() == 0).mean()),
            "n_rounds": float(f.n_rounds),
        }
    )
