"""Expected exposure of stochastic rankings (Diaz, Mitra, Ekstrand, Biega and Carterette 2020).

A stochastic ranking policy gives a user a different ranking on each
request; sampled rankings (``n_samples`` per user, e.g. from
:func:`plackett_luce_rankings`) estimate the *expected exposure* of each
item, ``eps_i = E_pi[w(rank of i)]``. The *target* exposure ``eps*`` is that of
the ideal policy which ranks more relevant items first and shuffles equally
relevant items uniformly: the items of one grade share equally the
attention of the positions their grade occupies. Then

.. math:: \\text{EE-L} = \\lVert \\varepsilon - \\varepsilon^* \\rVert_2^2
          = \\underbrace{\\lVert \\varepsilon \\rVert_2^2}_{\\text{EE-D}}
          - 2 \\underbrace{\\varepsilon^\\top \\varepsilon^*}_{\\text{EE-R}}
          + \\lVert \\varepsilon^* \\rVert_2^2

EE-D (disparity: low when exposure is spread evenly) and EE-R (relevance:
high when exposure goes to relevant items) are the two sides of the loss.
The definitions, the user models (``'geometric'``, the authors' ``rbp``
exposure ``p^(rank - 1)``, and ``'cascade'``, their ``gerr``) and the
target follow the authors' ``expeval`` (github.com/diazf/expeval:
``exposure.py``, ``metrics.py``); the values are its unnormalised ones
(option ``-U``). ``tests/test_exposure.py`` compares them with a port of
its code on random inputs.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd

from ..._validation import (
    as_numeric_array,
    check_bool,
    check_count,
    check_probability,
    check_seed,
)
from ...inputs.ids import _id_kind
from .exposure import _attention_of

__all__ = ["plackett_luce_rankings", "expected_exposure", "expected_exposure_loss"]


def plackett_luce_rankings(scores, n_samples, *, k=None, seed=0):
    """Rankings sampled from the Plackett-Luce model of a score vector (or one per user).

    The first item is drawn with probability ``exp(s_i) / sum_j exp(s_j)``,
    the next among the rest in the same way, and so on: the scores are
    log-weights (a softmax policy). Sampled with the Gumbel trick: the
    order of ``s_i + G_i`` with ``G_i`` independent standard Gumbel draws
    is a Plackett-Luce sample (Yellott 1977).

    Parameters
    ----------
    scores : array-like of float
        One score per item (1-D), or one row of scores per user (2-D).
    n_samples : int
        Rankings to draw per user, at least 1.
    k : int, optional
        Keep the first ``k`` items of each ranking; ``None`` keeps all.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the draws (an integer gives the same rankings on every call).

    Returns
    -------
    numpy.ndarray of int
        Column positions of the items, best first: ``(n_samples, k)`` for
        1-D scores, ``(n_users, n_samples, k)`` for 2-D scores.

    References
    ----------
    .. [1] F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette.
       Evaluating Stochastic Rankings with Expected Exposure. CIKM 2020.
    .. [2] J. I. Yellott. The relationship between Luce's choice axiom,
       Thurstone's theory of comparative judgment, and the double exponential
       distribution. J. Math. Psychology 15(2), 1977.

    Examples
    --------
    >>> plackett_luce_rankings([2.0, 1.0, 0.0], 4, seed=1).shape
    (4, 3)
    >>> plackett_luce_rankings([[5.0, 0.0], [0.0, 5.0]], 2, k=1, seed=0).tolist()
    [[[0], [0]], [[1], [1]]]
    """
    s = as_numeric_array(scores, "scores", ndim=(1, 2))
    if s.shape[-1] == 0:
        raise ValueError("scores holds no item")
    n_samples = check_count(n_samples, "n_samples", maximum=10**7)
    n = s.shape[-1]
    k = n if k is None else min(check_count(k, "k"), n)
    rng = check_seed(seed)
    rows = s.reshape(-1, n)
    out = np.empty((rows.shape[0], n_samples, k), dtype=np.int64)
    for u, row in enumerate(rows):
        keys = row[None, :] + rng.gumbel(size=(n_samples, n))
        out[u] = np.argsort(-keys, axis=1, kind="stable")[:, :k]
    return out[0] if s.ndim == 1 else out


# --------------------------------------------------------------------------
# inputs, read into flat arrays: one entry per (sampled ranking, position)
class _Samples:
    """The sampled rankings of every user, flat: entries ordered by sample, then position."""

    def __init__(self, user_ids, owner, samp, pos, ids, n_samples):
        self.user_ids, self.owner, self.samp, self.pos = user_ids, owner, samp, pos
        self.ids, self.n_samples = ids, n_samples


def _flat_from_lengths(lengths, sample_owner, ids, user_ids):
    lengths = np.asarray(lengths, dtype=np.int64)
    sample_owner = np.asarray(sample_owner, dtype=np.int64)
    samp = np.repeat(np.arange(lengths.shape[0]), lengths)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    pos = np.arange(samp.shape[0], dtype=np.int64) - starts[samp]
    n_samples = np.bincount(sample_owner, minlength=len(user_ids))
    return _Samples(user_ids, sample_owner[samp], samp, pos, ids, n_samples)


def _check_ids(ids, name):
    """Item ids of ``name`` as an object array: no missing id, no float."""
    ids = np.asarray(ids, dtype=object) if not isinstance(ids, np.ndarray) else ids
    if ids.size and pd.isna(pd.Index(ids, dtype=object)).any():
        raise TypeError(f"{name} holds a missing item id")
    if ids.dtype.kind == "f" or (ids.size and _id_kind(ids) in ("float", "mixed-integer-float")):
        raise TypeError(f"{name} must hold item ids, not floats (scores?)")
    return ids


def _read_rankings(rankings, user, sample, item, rank):
    """The sampled rankings (any accepted form) as :class:`_Samples`."""
    if isinstance(rankings, pd.DataFrame):
        for col in (user, sample, item, rank):
            if not isinstance(col, Hashable) or col not in rankings.columns:
                raise ValueError(f"rankings has no column {col!r}")
        if len(rankings) == 0:
            raise ValueError("rankings is empty")
        if rankings[[user, sample, item, rank]].isna().any().any():
            raise ValueError("rankings has a missing value in its id or rank columns")
        r = as_numeric_array(rankings[rank].to_numpy(), f"rankings[{rank!r}]", ndim=1)
        if (r < 1).any() or (r != np.floor(r)).any():
            raise ValueError(f"rankings[{rank!r}] must hold integer ranks >= 1")
        frame = rankings.assign(_r=r).sort_values([user, sample, "_r"], kind="stable")
        if frame.duplicated([user, sample, "_r"]).any():
            raise ValueError("rankings gives two items one rank in one sample")
        codes, user_ids = pd.factorize(frame[user], sort=True)
        samp = frame.groupby([user, sample], sort=True).ngroup().to_numpy()
        lengths = np.bincount(samp)
        sample_owner = codes[np.concatenate(([0], np.cumsum(lengths)[:-1]))]
        ids = _check_ids(frame[item].to_numpy(dtype=object), f"rankings[{item!r}]")
        return _flat_from_lengths(lengths, sample_owner, ids, pd.Index(user_ids, name=user))
    if isinstance(rankings, np.ndarray):
        if rankings.ndim != 3:
            raise ValueError(
                f"a rankings array must be 3-D (n_users, n_samples, length), got {rankings.ndim}-D"
            )
        n_users, n_samp, length = rankings.shape
        if n_users == 0 or n_samp == 0:
            raise ValueError("rankings is empty (no user or no sampled ranking)")
        ids = _check_ids(rankings.reshape(-1), "rankings")
        lengths = np.full(n_users * n_samp, length)
        owner = np.repeat(np.arange(n_users), n_samp)
        return _flat_from_lengths(lengths, owner, ids, pd.RangeIndex(n_users))
    if isinstance(rankings, (str, bytes, Mapping, set)) or not hasattr(rankings, "__len__"):
        raise TypeError(
            "rankings must be a DataFrame (user, sample, item, rank), a 3-D array or a list "
            f"(users) of lists (samples) of ranked item ids, got {type(rankings).__name__}"
        )
    if len(rankings) == 0:
        raise ValueError("rankings is empty")
    flat, lengths, owner = [], [], []
    for u, samples in enumerate(rankings):
        if isinstance(samples, (str, bytes, Mapping, set)) or not hasattr(samples, "__len__"):
            raise TypeError(f"rankings[{u}] must be a list of sampled rankings")
        if len(samples) == 0:
            raise ValueError(f"rankings[{u}] holds no sampled ranking")
        for one in samples:
            if isinstance(one, (str, bytes, Mapping, set)) or not hasattr(one, "__len__"):
                raise TypeError(f"rankings[{u}] must hold lists of item ids, found {one!r:.60}")
            flat.extend(one)
            lengths.append(len(one))
        owner.extend([u] * len(samples))
    ids = np.empty(len(flat), dtype=object)
    ids[:] = flat
    return _flat_from_lengths(
        lengths, owner, _check_ids(ids, "rankings"), pd.RangeIndex(len(rankings))
    )


def _read_relevance(relevance, samples, from_frame, user, item, grade, complete):
    """``(owner, ids, grades)``: the graded items of each user (position in ``samples``)."""
    user_ids = samples.user_ids
    if isinstance(relevance, pd.DataFrame):
        cols = (user, item) + ((grade,) if grade is not None else ())
        for col in cols:
            if not isinstance(col, Hashable) or col not in relevance.columns:
                raise ValueError(f"relevance has no column {col!r}")
        if relevance[[user, item]].isna().any().any():
            raise ValueError(f"relevance has a missing {user!r} or {item!r}")
        g = (
            np.ones(len(relevance))
            if grade is None
            else as_numeric_array(
                relevance[grade].to_numpy(), f"relevance[{grade!r}]", ndim=1, nonnegative=True
            )
        )
        if not from_frame and not pd.api.types.is_integer_dtype(relevance[user]):
            raise TypeError(
                f"relevance is a DataFrame but rankings are not: its {user!r} column must hold "
                "positions 0, 1, ... of the users in rankings"
            )
        pos = pd.Index(user_ids).get_indexer(relevance[user])
        if not (pos >= 0).any():
            raise ValueError("relevance shares no user with rankings")
        keep = pos >= 0
        ids = relevance[item].to_numpy(dtype=object)[keep]
        return pos[keep], _check_ids(ids, f"relevance[{item!r}]"), g[keep]
    if grade is not None:
        raise TypeError("grade= applies only when relevance is a DataFrame")
    n_users = len(user_ids)
    if isinstance(relevance, np.ndarray) and relevance.ndim == 2:
        m = as_numeric_array(relevance, "relevance", ndim=2, nonnegative=True)
        if m.shape[0] != n_users:
            raise ValueError(f"relevance has {m.shape[0]} rows for {n_users} users")
        rows, cols = np.nonzero(np.ones_like(m, dtype=bool) if complete else m > 0)
        return rows, cols.astype(object), m[rows, cols]
    if isinstance(relevance, (str, bytes, Mapping, set)) or not hasattr(relevance, "__len__"):
        raise TypeError(
            "relevance must be a DataFrame (user, item[, grade]), a 2-D array of grades or "
            f"one dict or set of items per user, got {type(relevance).__name__}"
        )
    if len(relevance) != n_users:
        raise ValueError(f"relevance has {len(relevance)} entries for {n_users} users")
    owner, flat, grades = [], [], []
    for u, rel in enumerate(relevance):
        if isinstance(rel, Mapping):
            vals = as_numeric_array(list(rel.values()), f"relevance[{u}]", nonnegative=True)
            flat.extend(rel.keys())
            grades.extend(vals.tolist())
        elif isinstance(rel, (str, bytes)) or not hasattr(rel, "__iter__"):
            raise TypeError(f"relevance[{u}] must be a dict item -> grade or a set of items")
        else:
            rel = list(rel)
            flat.extend(rel)
            grades.extend([1.0] * len(rel))
        owner.extend([u] * (len(flat) - len(owner)))
    ids = np.empty(len(flat), dtype=object)
    ids[:] = flat
    return (
        np.asarray(owner, dtype=np.int64),
        _check_ids(ids, "relevance"),
        np.asarray(grades, dtype=np.float64),
    )


# --------------------------------------------------------------------------
# the exposures: vectorised over users, samples and items
def _model(attention, patience, utility):
    """Check the user model once: ``(base, u)``, ``u`` None unless the cascade."""
    if isinstance(attention, str) and attention == "cascade":
        p = 0.5 if patience is None else check_probability(patience, "patience")
        u = 0.5 if utility is None else check_probability(utility, "utility", open=False)
        return (lambda pos: p**pos), u
    if utility is not None:
        raise TypeError("utility applies only to attention='cascade'")
    _attention_of(np.arange(1, 2), attention, patience)  # check the arguments once
    return (lambda pos: _attention_of(pos + 1, attention, patience)), None


def _sorted_groups(keys):
    """``(inverse, sorted distinct keys)`` of int64 keys (``np.unique``'s, faster here)."""
    inverse, distinct = pd.factorize(np.asarray(keys, dtype=np.int64), sort=True)
    return inverse, np.asarray(distinct, dtype=np.int64)


def _exposures(rankings, relevance, attention, patience, utility, complete, names):
    """Run and target exposure of every (user, item) pair, keyed ``user * n_codes + code``.

    The cascade (expeval's ``gerr``): ``p^i (1 - u)^(relevant items above)``,
    ``i`` the 0-based position; the target ranks the items by decreasing
    grade, and the items of one grade share the mean attention of their
    positions.
    """
    user, sample, item, rank, grade = names
    base, u = _model(attention, patience, utility)
    run = _read_rankings(rankings, user, sample, item, rank)
    n_users = len(run.user_ids)
    if relevance is None:
        r_owner, r_ids, r_grade = np.zeros(0, np.int64), np.zeros(0, object), np.zeros(0)
    else:
        from_frame = isinstance(rankings, pd.DataFrame)
        r_owner, r_ids, r_grade = _read_relevance(
            relevance, run, from_frame, user, item, grade, complete
        )
        kinds = {_id_kind(x) for x in (run.ids, r_ids) if x.size}
        if len(kinds & {"int", "str"}) == 2:
            raise TypeError("relevance and rankings hold item ids of different types")
    try:
        codes, uniques = pd.factorize(np.concatenate([run.ids, r_ids]))
    except TypeError:
        raise TypeError("rankings and relevance must hold hashable item ids") from None
    n = max(len(uniques), 1)
    code, r_code = codes[: run.ids.shape[0]], codes[run.ids.shape[0] :]
    if pd.unique(run.samp * n + code).shape[0] != code.shape[0]:
        raise ValueError("rankings holds a ranking with a repeated item")
    # relevance: one grade per (user, item), repeated rows summed
    inv, rkeys = _sorted_groups(r_owner * n + r_code)
    rgrade = np.bincount(inv, weights=r_grade, minlength=rkeys.shape[0])
    # run exposure of each entry, then its mean over the user's samples
    key = run.owner * n + code
    w = base(run.pos.astype(np.float64))
    if u is not None:
        rel = np.zeros(key.shape[0], dtype=np.int64)
        if rkeys.size:
            at = np.minimum(np.searchsorted(rkeys, key), rkeys.shape[0] - 1)
            rel = ((rkeys[at] == key) & (rgrade[at] > 0)).astype(np.int64)
        cs = np.cumsum(rel)
        first = np.searchsorted(run.samp, run.samp, side="left")
        above = cs - rel - (cs - rel)[first]
        w = w * (1.0 - u) ** above
    einv, ekeys = _sorted_groups(key)
    eps = np.bincount(einv, weights=w / run.n_samples[run.owner], minlength=ekeys.shape[0])
    # target: per user, grades from the highest; equal grades share their positions
    keep = rgrade > 0 if not complete else np.ones(rkeys.shape[0], dtype=bool)
    tkeys, tgrade = rkeys[keep], rgrade[keep]
    towner = tkeys // n
    order = np.lexsort((-tgrade, towner))
    tkeys, tgrade, towner = tkeys[order], tgrade[order], towner[order]
    tpos = np.arange(tkeys.shape[0]) - np.searchsorted(towner, towner, side="left")
    tw = base(tpos.astype(np.float64))
    if u is not None:
        n_rel = np.bincount(towner[tgrade > 0], minlength=n_users)
        tw = tw * (1.0 - u) ** np.minimum(tpos, n_rel[towner])
    new = np.ones(tkeys.shape[0], dtype=bool)
    new[1:] = (towner[1:] != towner[:-1]) | (tgrade[1:] != tgrade[:-1])
    level = np.cumsum(new) - 1
    share = np.bincount(level, weights=tw) / np.bincount(level)
    has_rel = np.bincount(rkeys[rgrade > 0] // n, minlength=n_users) > 0
    n_levels = np.bincount(towner[new], minlength=n_users)
    return run.user_ids, uniques, n, (ekeys, eps), (tkeys, share[level]), has_rel, n_levels


def _geometric_sum(q, k):
    """``sum_{i < k} q^i`` (expeval's ``geometricSeries``), ``k`` = inf allowed."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isinf(k), 1.0 / (1.0 - q), (1.0 - q ** np.minimum(k, 1e300)) / (1.0 - q))


def _normalise(rows, tkeys, target, n, n_levels, complete, p, pp):
    """Expeval's normalised values: ``(v - lower) / (upper - lower)`` per user.

    The bounds of ``metrics.py`` (Disparity, Relevance, Difference): for
    re-ranking (``complete``) a static ranking and a uniform shuffle, for
    retrieval an infinite corpus; equal bounds give expeval's defaults
    (0 for EE-L and EE-D, 1 for EE-R).
    """
    m = rows.shape[0]
    towner = tkeys // n
    order = np.lexsort((target, towner))  # each user's targets, ascending
    ts, to = target[order], towner[order]
    i = np.arange(ts.shape[0]) - np.searchsorted(to, to, side="left")
    n_t = np.bincount(towner, minlength=m).astype(np.float64)
    tt = np.bincount(towner, weights=target**2, minlength=m)
    if complete:
        d_ub = _geometric_sum(p * p, n_t)
        with np.errstate(divide="ignore", invalid="ignore"):
            d_lb = _geometric_sum(pp, n_t) ** 2 / n_t
        r_lb = np.bincount(to, weights=pp**i * ts, minlength=m)
        l_ub = np.bincount(to, weights=(pp**i - ts) ** 2, minlength=m)
    else:
        d_ub, d_lb = np.full(m, 1.0 / (1.0 - p * p)), np.zeros(m)
        r_lb, l_ub = np.zeros(m), tt + 1.0 / (1.0 - pp)
    r_ub = tt.copy()
    one = n_levels <= 1
    r_ub[one], r_lb[one] = 0.0, 0.0
    out = np.empty_like(rows)
    bounds = ((np.zeros(m), l_ub, 0.0), (d_lb, d_ub, 0.0), (r_lb, r_ub, 1.0))
    for col, (lb, ub, default) in enumerate(bounds):
        with np.errstate(divide="ignore", invalid="ignore"):
            out[:, col] = np.where(lb == ub, default, (rows[:, col] - lb) / (ub - lb))
    out[np.isnan(rows[:, 0])] = np.nan
    return out


def expected_exposure(
    rankings, relevance=None, *, attention="geometric", patience=None, utility=None,
    user="user", sample="sample", item="item", rank="rank",
):  # fmt: skip
    """Expected exposure of each item for each user, over sampled rankings.

    .. math:: \\varepsilon_u(i) = \\frac{1}{S}\\sum_{s=1}^{S} w\\big(r_{u,s}(i)\\big)

    with ``r_{u,s}(i)`` the rank of ``i`` in user ``u``'s ``s``-th sampled
    ranking (no term when absent) and ``w`` the user model's attention.

    Parameters
    ----------
    rankings : pandas.DataFrame, 3-D array or list of lists of lists
        The sampled rankings of each user: a long DataFrame with columns
        ``user``, ``sample``, ``item`` and ``rank`` (1 = first); a 3-D
        array ``(n_users, n_samples, length)`` of item ids (such as
        :func:`plackett_luce_rankings` returns); or a list (one entry per
        user) of lists of ranked item ids.
    relevance : optional
        Needed only by ``attention='cascade'`` (see
        :func:`expected_exposure_loss`).
    attention : {'geometric', 'cascade', 'rbp', 'log', 'uniform'} or array-like
        The user model, default ``'geometric'``: ``p^(rank - 1)`` (the
        authors' ``rbp``; :func:`recmetrics.beyond.attention_weights` for the
        others); ``'cascade'``: ``p^(rank - 1) (1 - u)^(relevant items
        above)``, the authors' ``gerr`` (Chapelle et al. 2009's cascade).
        ``'rbp'`` here is rank-biased precision's ``(1 - p) p^(rank - 1)``,
        not expeval's ``rbp``: for ``expeval -u rbp`` use ``'geometric'``.
    patience : float, optional
        ``p`` in (0, 1); ``None`` means 0.5 (the authors' default).
    utility : float, optional
        ``u`` in [0, 1] of ``'cascade'``, the chance that a relevant item
        satisfies the user; ``None`` means 0.5.
    user, sample, item, rank : str
        Column names of a ``rankings`` DataFrame (and of ``relevance``).

    Returns
    -------
    pandas.Series
        Indexed by (user, item), named ``'exposure'``; users by the ids of
        a DataFrame, by position otherwise.

    References
    ----------
    .. [1] F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette.
       Evaluating Stochastic Rankings with Expected Exposure. CIKM 2020.

    Examples
    --------
    >>> expected_exposure([[["a", "b"], ["b", "a"]]])
    user  item
    0     a       0.75
          b       0.75
    Name: exposure, dtype: float64
    """
    if relevance is None:
        if isinstance(attention, str) and attention == "cascade":
            raise TypeError("attention='cascade' needs relevance= (it counts relevant items)")
    names = (user, sample, item, rank, None)
    user_ids, uniques, n, (ekeys, eps), *_ = _exposures(
        rankings, relevance, attention, patience, utility, False, names
    )
    index = pd.MultiIndex.from_arrays(
        [user_ids[ekeys // n], pd.Index(uniques)[ekeys % n]], names=["user", "item"]
    )
    return pd.Series(eps, index=index, name="exposure", dtype=np.float64)


def expected_exposure_loss(
    rankings, relevance, *, attention="geometric", patience=None, utility=None,
    complete=False, normalize=False, per_user=False, user="user", sample="sample", item="item",
    rank="rank", grade=None,
):  # fmt: skip
    """Expected exposure loss EE-L, with its disparity (EE-D) and relevance (EE-R) parts.

    .. math:: \\text{EE-L} = \\sum_i (\\varepsilon_i - \\varepsilon^*_i)^2, \\quad
              \\text{EE-D} = \\sum_i \\varepsilon_i^2, \\quad
              \\text{EE-R} = \\sum_i \\varepsilon_i \\varepsilon^*_i

    per user, over every item that is ranked or relevant, so that
    ``EE-L = EE-D - 2 EE-R + ||eps*||^2``. ``eps`` is
    :func:`expected_exposure`; ``eps*`` the target: the items of the
    target set sorted by decreasing grade, the attention of positions
    ``b + 1 .. b + m`` shared equally by the ``m`` items of a grade below
    ``b`` better ones (Diaz et al. 2020, section 4; ``expeval``'s
    ``exposure.target``). Lower EE-L is better; EE-L is 0 for a policy
    whose expected exposure is the target (e.g. a uniform shuffle of
    equally relevant items, over all its orders).

    Parameters
    ----------
    rankings : pandas.DataFrame, 3-D array or list of lists of lists
        The sampled rankings of each user (see :func:`expected_exposure`).
    relevance : pandas.DataFrame, 2-D array, or sequence of dicts or sets
        The grades: a long DataFrame (``user``, ``item``, and the column
        ``grade``), a 2-D array of grades (row = user, column = item
        position, for rankings of column positions), or one dict item ->
        grade or set of relevant items (grade 1) per user. Grades >= 0;
        unlisted items have grade 0.
    attention : {'geometric', 'cascade', 'rbp', 'log', 'uniform'} or array-like
        The user model (:func:`expected_exposure`); default ``'geometric'``
        (``expeval -u rbp``; its default is ``gerr``, ``'cascade'`` here;
        ``'rbp'`` here is not expeval's ``rbp``).
    patience : float, optional
        ``p`` in (0, 1); ``None`` means 0.5.
    utility : float, optional
        ``u`` of ``'cascade'``; ``None`` means 0.5.
    complete : bool, default False
        ``False`` (retrieval, ``expeval``'s default): only items of grade > 0
        have a target exposure, every other item's target is 0. ``True``
        (re-ranking a judged candidate set, ``expeval -C``): every item of
        ``relevance``, grade 0 included, shares the exposure of its grade's
        positions.
    normalize : bool, default False
        ``False``: the values above (``expeval -U``, the paper's). ``True``:
        ``expeval``'s default output, each user's values rescaled as
        ``(v - lower) / (upper - lower)`` between the bounds of its
        ``metrics.py`` (re-ranking: a static ranking and a uniform shuffle
        of the candidates; retrieval: an infinite corpus), so that 0 is
        best for EE-L and EE-D and 1 for EE-R. Only for
        ``attention='geometric'`` or ``'cascade'``; like ``expeval``, the
        bounds of the cascade use ``p * u``.
    per_user : bool, default False
        Return one row per user instead of the means over users.
    user, sample, item, rank : str
        Column names of the DataFrames.
    grade : str, optional
        The grade column of a ``relevance`` DataFrame; ``None``: each row
        is a relevant pair of grade 1.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        ``ee_l``, ``ee_d``, ``ee_r``: means over users (a Series), or a
        DataFrame indexed by user. A user without any item of grade > 0
        gets NaN and is left out of the means (``expeval`` skips it). Only
        the users of ``rankings`` are evaluated (``expeval`` gives a query
        of the qrels absent from the run its worst normalised values).

    See Also
    --------
    plackett_luce_rankings, expected_exposure

    References
    ----------
    .. [1] F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette.
       Evaluating Stochastic Rankings with Expected Exposure. CIKM 2020.
    .. [2] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan. Expected
       Reciprocal Rank for Graded Relevance. CIKM 2009.

    Examples
    --------
    Two equally relevant items, always ranked a, b: the target gives each
    (1 + 0.5) / 2 = 0.75, the run gives a 1 and b 0.5.

    >>> expected_exposure_loss([[["a", "b"]]], [{"a", "b"}])
    ee_l    0.1250
    ee_d    1.2500
    ee_r    1.1250
    dtype: float64

    Shuffling them (both orders) meets the target:

    >>> expected_exposure_loss([[["a", "b"], ["b", "a"]]], [{"a", "b"}])["ee_l"]
    np.float64(0.0)
    """
    complete = check_bool(complete, "complete")
    per_user = check_bool(per_user, "per_user")
    names = (user, sample, item, rank, grade)
    normalize = check_bool(normalize, "normalize")
    if normalize and not (isinstance(attention, str) and attention in ("geometric", "cascade")):
        raise ValueError(
            "normalize applies to expeval's user models, attention='geometric' or 'cascade'"
        )
    user_ids, _, n, (ekeys, eps), (tkeys, target), has_rel, n_levels = _exposures(
        rankings, relevance, attention, patience, utility, complete, names
    )
    keys = _sorted_groups(np.concatenate([ekeys, tkeys]))[1]
    e, t = np.zeros(keys.shape[0]), np.zeros(keys.shape[0])
    e[np.searchsorted(keys, ekeys)] = eps
    t[np.searchsorted(keys, tkeys)] = target
    owner, m = keys // n, len(user_ids)
    rows = np.column_stack(
        [
            np.bincount(owner, weights=(e - t) ** 2, minlength=m),
            np.bincount(owner, weights=e * e, minlength=m),
            np.bincount(owner, weights=e * t, minlength=m),
        ]
    )
    rows[~has_rel] = np.nan
    if normalize:
        p = 0.5 if patience is None else patience
        pp = p if attention == "geometric" else p * (0.5 if utility is None else utility)
        rows = _normalise(rows, tkeys, target, n, n_levels, complete, p, pp)
    table = pd.DataFrame(rows, index=user_ids, columns=["ee_l", "ee_d", "ee_r"])
    if per_user:
        return table
    if table["ee_l"].isna().all():
        raise ValueError("relevance gives no user an item of grade > 0")
    return table.mean()
