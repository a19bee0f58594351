"""Catalogue coverage and concentration: coverage, user coverage, Gini index, entropy."""

from __future__ import annotations

import numbers

import numpy as np

from ..._validation import check_choice, check_k
from ...inputs.lists import _read_lists
from ._common import _check_base, _check_n_items
from ._pieces import _fill_doc
from ._presets import _resolve

__all__ = ["coverage", "user_coverage", "gini", "entropy"]


def _exposure(lists, discount):
    """Exposure of each distinct recommended item: 1 per slot, or 1/log2(position + 1)."""
    check_choice(discount, "discount", ("none", "log"))
    w = None if discount == "none" else 1.0 / np.log2(lists.pos + 1.0)  # pos: the rank
    exp = np.bincount(lists.code, weights=w, minlength=len(lists.items))
    return exp[exp > 0]


@_fill_doc
def coverage(recommended, *, n_items, k=None, min_exposure=1, items=None):
    """Catalogue coverage: the fraction of the catalogue recommended to at least one user.

    .. math:: \\mathrm{Coverage@}k = \\frac{|\\{i \\in I : e_i \\ge t\\}|}{|I|}

    where ``e_i`` is the number of top-``k`` lists that hold ``i`` and ``t``
    is ``min_exposure`` (1: item coverage as in Elliot, RecBole,
    Microsoft Recommenders' ``catalog_coverage``; Ge et al. 2010).

    Parameters
    ----------
    %(b_recommended)s
    n_items : int
        Catalogue size ``|I|``.
    %(b_k)s
    min_exposure : int, default 1
        Count an item as covered only if at least this many lists hold it.
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    gini, entropy : How evenly the exposure is spread.
    user_coverage : The share of users who get a list.

    References
    ----------
    .. [1] M. Ge, C. Delgado-Battenfeld and D. Jannach. Beyond accuracy:
       evaluating recommender systems by coverage and serendipity. RecSys 2010.

    Examples
    --------
    >>> coverage([["a", "b"], ["a", "c"]], n_items=10)
    0.3
    >>> coverage([["a", "b"], ["a", "c"]], n_items=10, min_exposure=2)
    0.1
    """
    lists = _read_lists(recommended, k, items=items, allow_empty=True)
    min_exposure = check_k(min_exposure, "min_exposure")
    exp = np.bincount(lists.code, minlength=len(lists.items))
    n = _check_n_items(n_items, int((exp > 0).sum()))
    return float((exp >= min_exposure).sum() / n)


@_fill_doc
def user_coverage(recommended, *, n_users, k=None, min_length=1, items=None):
    """User coverage: the fraction of users who receive a list of at least ``min_length`` items.

    .. math:: \\mathrm{UserCov} = \\frac{|\\{u : |L_u^{(k)}| \\ge t\\}|}{|U|}

    A model that cannot score cold users, or a filter that removes most
    candidates, leaves users with short or empty lists; this counts them.

    Parameters
    ----------
    %(b_recommended)s
    n_users : int
        The number of users who should have received a list (users absent
        from ``recommended`` count as uncovered).
    %(b_k)s
    min_length : int, default 1
        The shortest list that counts (``k`` for "a full list").
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    coverage : The share of the catalogue that is recommended.

    References
    ----------
    .. [1] M. Ge, C. Delgado-Battenfeld and D. Jannach. Beyond accuracy:
       evaluating recommender systems by coverage and serendipity. RecSys 2010.

    Examples
    --------
    >>> user_coverage([["a", "b"], ["c"], []], n_users=4)
    0.5
    >>> user_coverage([["a", "b"], ["c"], []], n_users=4, min_length=2)
    0.25
    """
    lists = _read_lists(recommended, k, items=items, allow_empty=True)
    min_length = check_k(min_length, "min_length")
    if isinstance(n_users, (bool, np.bool_)) or not isinstance(n_users, numbers.Integral):
        raise TypeError(f"n_users must be an integer, got {n_users!r}")
    if n_users < lists.n_users:
        raise ValueError(f"n_users={n_users} is smaller than the {lists.n_users} lists given")
    lengths = np.bincount(lists.owner, minlength=lists.n_users)
    return float((lengths >= min_length).sum() / n_users)


@_fill_doc
def gini(recommended, *, n_items, k=None, discount="none", items=None):
    """Gini index of the exposure of the catalogue's items (0 = equal, towards 1 = concentrated).

    .. math:: G = \\frac{\\sum_{j=1}^{n} (2j - n - 1)\\, x_{(j)}}{n \\sum_j x_j}

    with ``x_(1) <= ... <= x_(n)`` the exposures of all ``n = n_items``
    items, never-recommended items counting 0 (as Elliot's ``Gini`` and
    RecBole's ``GiniIndex`` do).

    Parameters
    ----------
    %(b_recommended)s
    n_items : int
        Catalogue size (items never recommended count with exposure 0).
    %(b_k)s
    discount : {'none', 'log'}, default 'none'
        Exposure of a slot: 1, or ``1 / log2(rank + 1)`` (users look at
        the top of a list more often).
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    entropy, coverage

    References
    ----------
    .. [1] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
       Coverage. ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> gini([["a"], ["a"]], n_items=2)   # one item gets all exposure
    0.5
    >>> gini([["a"], ["b"]], n_items=2)
    0.0
    """
    lists = _read_lists(recommended, k, items=items)
    exp = _exposure(lists, discount)
    n = _check_n_items(n_items, exp.shape[0])
    # the n - d never-recommended items come first with exposure 0: only the
    # d recommended ones, at sorted places n - d + 1 .. n, add to the sum
    x = np.sort(exp)
    d = x.shape[0]
    j = float(n - d) + np.arange(1, d + 1, dtype=np.float64)
    return float(np.sum((2 * j - n - 1) * x) / (float(n) * np.sum(x)))


@_fill_doc
def entropy(
    recommended, *, k=None, discount="none", base=None, normalize=None, n_items=None,
    convention=None, items=None,
):  # fmt: skip
    """Shannon entropy of the exposure distribution over the recommended items.

    .. math:: H = -\\sum_i p_i \\log_b p_i, \\qquad p_i = x_i / \\sum_j x_j

    Parameters
    ----------
    %(b_recommended)s
    %(b_k)s
    discount : {'none', 'log'}, default 'none'
        As in :func:`gini`.
    base : float, optional
        Base of the logarithm; ``None`` means 2 (bits, as Microsoft
        Recommenders' ``distributional_coverage`` and Elliot's ``SEntropy``).
    normalize : {'none', 'catalogue', 'distinct'}, optional
        ``None`` means ``'none'``; ``'catalogue'`` divides by ``log_b
        n_items``, the entropy of uniform exposure over the catalogue (then
        ``n_items`` is required): 1 = perfectly even; ``'distinct'`` divides
        by the number of distinct recommended items (RecBole's
        ``ShannonEntropy``, with ``base=e``).
    n_items : int, optional
        Catalogue size; only checked unless ``normalize='catalogue'``.
    %(beyond_convention)s
    %(b_items)s

    Returns
    -------
    float

    See Also
    --------
    gini, coverage

    References
    ----------
    .. [1] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
       Coverage. ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> entropy([["a", "b"], ["c", "d"]])   # four items, equal exposure: 2 bits
    2.0
    >>> entropy([["a", "b"], ["c", "d"]], normalize="catalogue", n_items=16)
    0.5
    """
    opts = _resolve(
        "entropy", convention, {"base": base, "normalize": normalize},
        {"base": 2.0, "normalize": "none"},
    )  # fmt: skip
    check_choice(opts["normalize"], "normalize", ("none", "catalogue", "distinct"))
    lists = _read_lists(recommended, k, items=items)
    exp = _exposure(lists, discount)
    b = _check_base(opts["base"])
    n = _check_n_items(n_items, exp.shape[0], required=opts["normalize"] == "catalogue")
    p = exp / exp.sum()
    h = float(-np.sum(p * np.log(p)) / np.log(b))
    if opts["normalize"] == "catalogue":
        return float(h / (np.log(n) / np.log(b))) if n > 1 else float("nan")
    if opts["normalize"] == "distinct":
        return h / exp.shape[0]
    return h
