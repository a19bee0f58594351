"""Multiple-comparison corrections: Holm, Bonferroni, Benjamini-Hochberg and -Yekutieli."""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._validation import as_numeric_array, check_choice

__all__ = ["adjust_pvalues"]

_ADJUSTMENTS = ("holm", "bonferroni", "bh", "by", "none")


def adjust_pvalues(pvalues, method="holm"):
    """P-values adjusted for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of float
        P-values in [0, 1] (no NaN), any shape (the adjustment runs over all
        of them).
    method : {'holm', 'bonferroni', 'bh', 'by', 'none'}, default 'holm'
        ``'holm'``: Holm's step-down method, controls the family-wise error
        rate under any dependence (equal to statsmodels' ``multipletests``,
        which the tests check, and much faster per call).
        ``'bonferroni'``: ``min(1, m p)``, the same control, less power.
        ``'bh'``: Benjamini-Hochberg, controls the false discovery rate when
        the tests are independent or positively dependent (PRDS;
        ``scipy.stats.false_discovery_control``). ``'by'``:
        Benjamini-Yekutieli, controls it under any dependence, at the cost
        of a factor ``sum_{i<=m} 1/i`` (``method='by'`` there).
        ``'none'``: unchanged.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape (compare them with the level alpha).

    Raises
    ------
    TypeError
        For p-values that are not numbers (strings, booleans, ``None``).
    ValueError
        For no p-values, NaN, or a value outside [0, 1].

    See Also
    --------
    compare : applies it across models and metrics.

    References
    ----------
    S. Holm. A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 1979. Y. Benjamini and Y.
    Hochberg. Controlling the false discovery rate. JRSS B 57(1), 1995.
    Y. Benjamini and D. Yekutieli. The control of the false discovery rate
    in multiple testing under dependency. Annals of Statistics 29(4), 2001.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.20]).round(3).tolist()
    [0.04, 0.09, 0.09, 0.2]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.20], method="bh").round(3).tolist()
    [0.04, 0.053, 0.053, 0.2]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.20], method="by").round(3).tolist()
    [0.083, 0.111, 0.111, 0.417]
    """
    check_choice(method, "method", _ADJUSTMENTS)
    p = as_numeric_array(pvalues, "pvalues")
    outside = (p < 0) | (p > 1)
    if outside.any():
        first = p.ravel()[int(np.argmax(outside.ravel()))]
        raise ValueError(f"pvalues must lie in [0, 1], found {first!r}")
    flat = p.ravel()
    if method == "none":
        out = flat.copy()
    elif method in ("bh", "by"):
        out = stats.false_discovery_control(flat, method=method)
    elif method == "bonferroni":
        out = np.minimum(1.0, flat * flat.shape[0])
    else:
        # Holm's step-down adjustment: the running maximum of (m - i) p_(i) over
        # the sorted p-values. Written out (and tested against statsmodels'
        # multipletests) because multipletests spends ~50 ms per call in
        # gc.collect(), which a simulation of thousands of families cannot afford.
        m = flat.shape[0]
        order = np.argsort(flat, kind="stable")
        stepped = np.maximum.accumulate((m - np.arange(m)) * flat[order])
        out = np.empty(m)
        out[order] = np.minimum(1.0, stepped)
    return np.asarray(out, dtype=np.float64).reshape(p.shape)
