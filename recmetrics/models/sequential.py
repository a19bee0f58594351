"""A sequential baseline: what came next, in training, after the user's last item.

References
----------
.. [1] S. Rendle, C. Freudenthaler and L. Schmidt-Thieme. Factorizing
   Personalized Markov Chains for Next-Basket Recommendation. WWW 2010.
.. [2] M. Ludewig and D. Jannach. Evaluation of Session-based
   Recommendation Algorithms. User Modeling and User-Adapted Interaction
   28(4-5), 331-390, 2018.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..inputs.ids import _check_no_duplicates, _check_time, _frame
from ._common import _interactions

__all__ = ["last_item"]


def last_item(train, users, items, *, user="user", item="item", time="timestamp"):
    """Score items by how often they followed the user's last training item.

    A first-order Markov chain counted on the training sequences: with each
    user's interactions in time order,

    .. math::

        T_{ab} = \\#\\{(u, t) : i_{u,t} = a,\\ i_{u,t+1} = b\\},
        \\qquad \\mathrm{score}(u, i) = T_{\\ell(u), i}

    where ``i_{u,t}`` is user ``u``'s ``t``-th item and ``l(u)`` their last
    training item. ``T`` is directed: it counts ``b`` right after ``a``, not
    before it.

    Parameters
    ----------
    train : pandas.DataFrame
        Training interactions in the long format of :mod:`recmetrics.split`,
        with the columns ``user``, ``item`` and ``time`` (numbers or
        datetimes); one row per (user, item) pair, as the splitters return.
        Interactions at the same time are ordered by item id, as in
        :func:`recmetrics.split.leave_last_out`, so the order is the same on
        every machine.
    users, items : sequence
        The ids of the rows and columns of the score matrix, as given to
        :func:`recmetrics.split.interaction_matrix` (so that the scores line
        up with its ``y_true`` and ``mask``); every id of ``train`` must be
        among them. A user without training rows scores 0 everywhere.
    user, item, time : str
        Column names.

    Returns
    -------
    ndarray of shape (len(users), len(items)), float64

    Raises
    ------
    TypeError
        If ``train`` is not a DataFrame, its time column holds neither
        numbers nor datetimes, or its item ids cannot be sorted.
    ValueError
        For a missing column, a repeated (user, item) pair, or ids absent
        from ``users`` / ``items``.

    Notes
    -----
    It needs the order of the interactions, which the user x item matrix of
    the other models has lost: hence the frame, and the index of the score
    matrix as arguments. Like every model here it does not exclude a user's
    training items (mask them at evaluation). To tune it with
    :func:`tune`, pass ``fit_input='frame'``.

    References
    ----------
    .. [1] S. Rendle, C. Freudenthaler and L. Schmidt-Thieme. Factorizing
       Personalized Markov Chains for Next-Basket Recommendation. WWW 2010.
    .. [2] M. Ludewig and D. Jannach. Evaluation of Session-based
       Recommendation Algorithms. User Modeling and User-Adapted
       Interaction 28(4-5), 331-390, 2018.

    Examples
    --------
    User 1 took a then b, user 2 a then c, user 3 b then c: after b came c
    once, so user 1 (last item b) scores c; nothing followed c:

    >>> train = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": list("abacbc"),
    ...                       "timestamp": [1, 2, 1, 2, 1, 2]})
    >>> last_item(train, [1, 2, 3, 4], ["a", "b", "c"]).tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]

    If user 3 took c first, then b, b followed c once: user 2 (last item c)
    now scores b:

    >>> train.loc[5, "timestamp"] = 0
    >>> last_item(train, [1, 2, 3, 4], ["a", "b", "c"])[1].tolist()
    [0.0, 1.0, 0.0]
    """
    _frame(train, "train", [user, item, time])
    _check_time(train, time, "train")
    _check_no_duplicates(train, user, item, "train")
    try:
        item_order = pd.factorize(train[item], sort=True)[0]
    except TypeError:
        raise TypeError(
            f"train[{item!r}] mixes ids that cannot be sorted (e.g. strings and numbers); "
            "ties in time are broken by item id, so use one type"
        ) from None
    # the ids are checked and placed by the one function that builds y_true and the
    # mask: its cell values are the positions of the rows of train (+1, as 0 is no cell)
    label = "recmetrics.row"
    while label in train.columns:
        label += "_"
    positions = train[[user, item]].assign(**{label: np.arange(1.0, len(train) + 1.0)})
    placed = _interactions(positions, "train", users, items, user=user, item=item, value=label)
    placed = placed.tocoo()
    n_users, n_items = placed.shape
    row = np.empty(len(train), dtype=np.int64)
    col = np.empty(len(train), dtype=np.int64)
    at = placed.data.astype(np.int64) - 1
    row[at], col[at] = placed.row, placed.col
    time_order = pd.factorize(train[time], sort=True)[0]
    seq = np.lexsort((item_order, time_order, row))  # by user, then time, then item id
    r, c = row[seq], col[seq]
    same_user = r[1:] == r[:-1]
    transitions = sp.csr_matrix(
        (np.ones(int(same_user.sum())), (c[:-1][same_user], c[1:][same_user])),
        shape=(n_items, n_items),
    )
    transitions.sum_duplicates()
    ends = np.append(~same_user, True)  # each user's latest row
    last = np.full(n_users, -1)
    last[r[ends]] = c[ends]
    scores = np.zeros((n_users, n_items))
    has = last >= 0
    scores[has] = transitions[last[has]].toarray()
    return scores
