"""Measures of the C/W/L framework (Moffat et al., 2013; Azzopardi et al.'s ``cwl_eval``).

A user reads the ranking from the top and, after the item at position
``i``, reads on with the *continuation probability* ``C_i``. The weight of
position ``i`` is the probability of reaching it, normalised to sum to one,

.. math:: W_i = \\frac{\\prod_{j < i} C_j}{\\sum_{l \\ge 1} \\prod_{j < l} C_j},

and the measure is the expected rate of gain per item read,
``EU = sum_i W_i g_i``, with gains ``g_i`` in [0, 1]. The measures differ
in ``C_i``; in the *adaptive* ones it depends on the gain read so far.

* :func:`inst` (``INST``, Moffat et al. 2015) and :func:`insq` (``INSQ``,
  Moffat et al. 2012): a user who wants ``T`` units of gain;
* in :mod:`recmetrics.metrics.cwl_nerr`: ``nerr8`` .. ``nerr11``
  (``NERR8`` .. ``NERR11``: Azzopardi et al. 2021's C/W/L versions of ERR)
  and ``bpm`` (``BPM``, the static Bejeweled Player Model of Zhang et al.
  2017).

The peer is ``cwl_eval`` (``cwl/ruler/measures/``, PyPI ``cwl-eval`` 1.0.12)
as ir_measures' ``cwl_eval`` provider calls it
(``ir_measures/providers/cwl_eval.py``): a grade ``g`` becomes the gain
``(clip(g, min_rel, max_rel) - min_rel) / (max_rel - min_rel)`` (our
``min_grade`` and ``max_grade``), every item costs 1, unjudged items have
gain 0 (cwl_eval's lower bound), and the vector of gains is cut or padded
with zeros to ``max_n = 1000`` positions (cwl_eval's ``--max_depth``: our
``max_depth``), over which ``W`` is normalised. Both score a topic without
relevant documents 0 (our ``no_relevant='zero'``; the default ``'skip'``
leaves such users out of the mean), and ir_measures orders a run by
decreasing score, tied documents in the order of the run file (cwl_eval
itself reads the run file's order and ignores the scores).
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from .._docs import fill_doc
from .._validation import check_k
from ._core import finish
from .topn._common import _rank

__all__ = ["inst", "insq", "CWL_MAX_DEPTH", "cwl_measure", "cwl_doc"]

#: cwl_eval's ``--max_depth`` (``max_n``), also ir_measures' provider's.
CWL_MAX_DEPTH = 1000

# Under ties='expected', an adaptive measure averages over every distinct
# arrangement of the gains of its tie groups; beyond this many per user it
# raises instead of approximating.
_MAX_ORDERS = 20_000
_CHUNK = 2048  # users per block of the dense gain matrix
_ROWS = 2_000_000  # floats per block of the orders of one user's tie groups
# BPM: the relative tolerance under which the gain read so far counts as reaching T
_BPM_TOL = 1e-9


def _real(x, name, *, positive=False):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {x!r} of type {type(x).__name__}")
    x = float(x)
    if not np.isfinite(x) or (positive and x <= 0):
        raise ValueError(f"{name} must be a finite number{' > 0' if positive else ''}, got {x}")
    return x


def _grades(min_grade, max_grade):
    lo, hi = _real(min_grade, "min_grade"), _real(max_grade, "max_grade")
    if lo < 0 or hi <= lo:
        raise ValueError(
            f"min_grade and max_grade must satisfy 0 <= min_grade < max_grade, got "
            f"min_grade={lo:g}, max_grade={hi:g}"
        )
    return lo, hi


def _max_depth(max_depth):
    return check_k(max_depth, "max_depth")


# --------------------------------------------------------------------------
# the continuation vectors, for a block of gain rows G (rows x depth)
def _positions(depth):
    return np.arange(1, depth + 1, dtype=np.float64)


def _c_inst(G, T):
    i = _positions(G.shape[1])
    t_i = T - np.cumsum(G, axis=1)  # cwl_inst.py: Ti = T - c_gains[i]
    return ((i + T + t_i - 1.0) / (i + T + t_i)) ** 2


def _c_insq(depth, T):
    i = _positions(depth)
    return ((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2  # cwl_insq.py


def _c_nerr(G, equation, k, p, T):
    i = _positions(G.shape[1])
    if equation == 8:
        c = 1.0 - G
    elif equation == 9:
        c = i / (i + 1.0) * (1.0 - G)
    elif equation == 10:
        c = p * (1.0 - G)
    else:
        c = _c_insq(G.shape[1], T) * (1.0 - G)
    if k is not None:  # NERReq8/9: continue only from the positions before k
        c = np.where(i < k, c, 0.0)
    return c


def _c_bpm(G, T, k, hb=None, gain_med=0.5):
    """BPM's continuation: 1 while the gain read so far is below the target ``T_i``.

    cwl_eval stops at the first position where it is not; here ``C_i`` is
    computed at every position and the product of the ``C_j`` before ``i``
    (the probability of reaching ``i``) is 0 after the first 0 all the same.
    The gain read so far reaches ``T_i`` when it is at least
    ``T_i - _BPM_TOL * max(1, |T_i|)``: a sum of gains that equals ``T_i``
    mathematically (``1/3 + 1 + 2/3 = 2``) can come out a few units in the
    last place below it in floating point, depending on the order of the
    terms, and must not read as short of ``T_i``.
    """
    i = _positions(G.shape[1])
    so_far = np.cumsum(G, axis=1)
    if hb is not None:  # BPMDCWLMetric: T += hb (g_j - gain_med) after each item j read
        T = T + hb * (so_far - G - (i - 1.0) * gain_med)
    go = so_far < T - _BPM_TOL * np.maximum(1.0, np.abs(T))  # cwl_bpm.py: c_gain[i] < T
    if k is not None:
        go &= i < k  # cost constraint c_cost[i] < K, every cost 1
    return go.astype(np.float64)


def _expected_utility(G, C):
    """``sum_i W_i g_i`` per row, ``W`` from the continuation probabilities ``C``."""
    reach = np.ones_like(G)
    np.cumprod(C[:, :-1], axis=1, out=reach[:, 1:])
    return np.sum(reach * G, axis=1) / np.sum(reach, axis=1)


# --------------------------------------------------------------------------
# the gains of each user's positions, with the tie groups
def _scaled(r, min_grade, max_grade):
    return np.clip((r.gain - min_grade) / (max_grade - min_grade), 0.0, 1.0)


def _static_rows(r, gain, depth):
    """Dense rows of the expected gain at each position (a tie group's mean gain)."""
    out = np.zeros((r.n_users, depth + 1))
    ranked = np.isfinite(r.start) & (r.start < depth)
    lo = r.start[ranked].astype(np.int64)
    hi = np.minimum(lo + r.size[ranked].astype(np.int64), depth)
    share = gain[ranked] / r.size[ranked]
    np.add.at(out, (r.user[ranked], lo), share)
    np.add.at(out, (r.user[ranked], hi), -share)
    return np.cumsum(out, axis=1)[:, :depth]


def _arrangements(values):
    """Every distinct order of the multiset ``values`` (rows of an array).

    The positions of the rarer values are chosen first; the most frequent
    value fills the rest.
    """
    vals, counts = np.unique(values, return_counts=True)
    order = np.argsort(counts, kind="stable")
    vals, counts = vals[order], counts[order]
    n = len(values)
    rows = [np.full(n, vals[-1])]
    free = [np.ones(n, dtype=bool)]
    for v, c in zip(vals[:-1], counts[:-1], strict=True):
        new_rows, new_free = [], []
        for row, f in zip(rows, free, strict=True):
            slots = np.flatnonzero(f)
            for chosen in itertools.combinations(slots, int(c)):
                r, g = row.copy(), f.copy()
                r[list(chosen)] = v
                g[list(chosen)] = False
                new_rows.append(r)
                new_free.append(g)
        rows, free = new_rows, new_free
    return np.array(rows)


def _n_orders(values):
    _, counts = np.unique(values, return_counts=True)
    out = math.factorial(len(values))
    for c in counts:
        out //= math.factorial(int(c))
    return out


def _tie_layout(r, gain, depth):
    """The fixed gains ``(user, position, gain)`` and the tie groups whose order matters.

    A tie group of equal gains (all relevant with one gain, or all of gain 0)
    has one order and is placed; the others (``{user: [(start, gains)]}``,
    the gains of all the group's items, 0 for the non-relevant ones) are
    averaged over their distinct orders.
    """
    start = r.start
    inside = np.isfinite(start) & (start < depth)
    single = inside & (r.size == 1)
    fixed = [r.user[single], start[single].astype(np.int64), gain[single]]
    mixed = {}
    tied = np.flatnonzero(inside & (r.size > 1))
    if tied.shape[0]:
        tied = tied[np.lexsort((start[tied], r.user[tied]))]
        u, s, g = r.user[tied], start[tied].astype(np.int64), gain[tied]
        new = np.ones(tied.shape[0], dtype=bool)
        new[1:] = (u[1:] != u[:-1]) | (s[1:] != s[:-1])
        heads = np.flatnonzero(new)
        gid = np.cumsum(new) - 1
        n_in = np.diff(np.append(heads, tied.shape[0]))
        size = r.size[tied][heads].astype(np.int64)
        gmin, gmax = np.minimum.reduceat(g, heads), np.maximum.reduceat(g, heads)
        equal = (gmin == gmax) & ((n_in == size) | (gmax == 0))
        pos = s + np.arange(tied.shape[0]) - heads[gid]
        keep = equal[gid] & (gmax[gid] > 0) & (pos < depth)
        fixed = [np.concatenate([f, x[keep]]) for f, x in zip(fixed, (u, pos, g), strict=True)]
        for h in np.flatnonzero(~equal):
            i = heads[h]
            values = np.concatenate([g[i : i + n_in[h]], np.zeros(size[h] - n_in[h])])
            mixed.setdefault(int(u[i]), []).append((int(s[i]), values))
    return fixed, mixed


def _adaptive_values(r, gain, depth, c_of, what):
    """Per user: EU, the mean over the distinct orders of the tie groups that mix gains."""
    (fu, fp, fg), mixed = _tie_layout(r, gain, depth)
    mixed_users = np.array(sorted(mixed), dtype=np.int64)
    out = np.empty(r.n_users)
    for lo in range(0, r.n_users, _CHUNK):
        hi = min(lo + _CHUNK, r.n_users)
        G = np.zeros((hi - lo, depth))
        sel = (fu >= lo) & (fu < hi)
        G[fu[sel] - lo, fp[sel]] = fg[sel]
        out[lo:hi] = _expected_utility(G, c_of(G))
        users = mixed_users[(mixed_users >= lo) & (mixed_users < hi)]
        if users.shape[0]:
            groups_of = [mixed[u] for u in users]
            out[users] = _mean_over_orders(G[users - lo], groups_of, users, c_of, what)
    return out


def _orders_of(row, groups, width, what, u):
    """Blocks of gain rows: ``row[:width]`` with every distinct order of the tie groups."""
    n = 1
    for _, values in groups:
        n *= _n_orders(values)
    if n > _MAX_ORDERS:
        raise ValueError(
            f"ties='expected': {what} adapts to the gain read so far, so its expectation over "
            f"the orders of tied items is a mean over every order; user {u} has {n} distinct "
            f"orders of tied items of different gains (more than {_MAX_ORDERS}); pass "
            "ties='optimistic', 'pessimistic' or 'trec_eval'"
        )
    orders = [_arrangements(values) for _, values in groups]
    index = [i.ravel() for i in np.meshgrid(*[np.arange(len(a)) for a in orders], indexing="ij")]
    step = max(1, _ROWS // width)
    for lo in range(0, n, step):
        G = np.tile(row[:width], (min(step, n - lo), 1))
        for (s, _), a, idx in zip(groups, orders, index, strict=True):
            m = min(a.shape[1], width - s)
            G[:, s : s + m] = a[idx[lo : lo + step], :m]
        yield G


def _width(base_row, groups, depth):
    """The positions a user's tie orders can change: a function of that user only.

    The last position a tie group or a nonzero fixed gain reaches, rounded up
    to a power of two (so that users share blocks) and cut at ``depth``.
    """
    width = max(s + len(v) for s, v in groups)
    nonzero = np.flatnonzero(base_row > 0)
    if nonzero.shape[0]:
        width = max(width, int(nonzero[-1]) + 1)
    return min(depth, 1 << max(0, width - 1).bit_length())


def _mean_over_orders(base, groups_of, users, c_of, what):
    """Per user: the mean EU over the orders of its tie groups, in blocks of rows.

    Only a user's first ``width`` positions (:func:`_width`) can change with
    the order: beyond the last position a tie group or a fixed gain reaches,
    every order has read the same total gain, so the continuation there (and
    the sum of the probabilities of reaching those positions, ``tail``,
    relative to the first of them) is the same for every order and is
    computed once per user. Users are evaluated in blocks of equal width, and
    every operation works row by row, so a user's value depends on that
    user's data only: the same bits alone, in a block or with all users.
    """
    depth = base.shape[1]
    widths = np.array([_width(b, g, depth) for b, g in zip(base, groups_of, strict=True)])
    full = base.copy()  # one order of each user: the total gain is that of every order
    for i, groups in enumerate(groups_of):
        for s, values in groups:
            m = min(len(values), depth - s)
            full[i, s : s + m] = values[:m]
    C_full = c_of(full)
    # tail = sum_{i=width+1}^{depth} prod_{j=width+1}^{i-1} C_j (0 when width = depth)
    tail = np.zeros(len(users))
    for width in np.unique(widths):
        at = np.flatnonzero(widths == width)
        if depth - width:
            t = np.ones((at.shape[0], depth - width))
            if depth - width > 1:
                np.cumprod(C_full[at, width:-1], axis=1, out=t[:, 1:])
            tail[at] = t.sum(axis=1)
    sums, counts = np.zeros(len(users)), np.zeros(len(users))

    def flush(block, owner):
        G = np.concatenate(block)
        rows = np.concatenate(owner)
        C = c_of(G)
        reach = np.ones_like(G)
        np.cumprod(C[:, :-1], axis=1, out=reach[:, 1:])
        beyond = reach[:, -1] * C[:, -1] * tail[rows]
        eu = np.sum(reach * G, axis=1) / (np.sum(reach, axis=1) + beyond)
        np.add.at(sums, rows, eu)

    for width in np.unique(widths):
        block, owner, size = [], [], 0
        for i in np.flatnonzero(widths == width):
            for G in _orders_of(base[i], groups_of[i], int(width), what, int(users[i])):
                block.append(G)
                owner.append(np.full(G.shape[0], i))
                counts[i] += G.shape[0]
                size += G.size
                if size >= _ROWS:
                    flush(block, owner)
                    block, owner, size = [], [], 0
        if block:
            flush(block, owner)
    return sums / counts


def cwl_measure(r, single, k, *, grades, max_depth, no_relevant, per_user, c_of, what):
    """The shared body: scale the grades, evaluate over ``max_depth`` positions, finish.

    ``c_of(G)`` gives the continuation probabilities of a block of gain rows
    (positions ``1 .. depth`` as columns); a static ``c_of(None, depth)``
    (INSQ) does not read the gains, so that the expectation over ties is that
    of the mean gain of each tie group.
    """
    min_grade, max_grade = _grades(*grades)
    depth = _max_depth(max_depth)
    depth = depth if k is None else min(depth, k)  # C = 0 from position k on
    r.check_depth(depth, what)
    gain = _scaled(r, min_grade, max_grade)
    static = getattr(c_of, "static", False)
    if static:
        G = _static_rows(r, gain, depth)
        val = _expected_utility(G, np.broadcast_to(c_of(G), G.shape))
    else:
        val = _adaptive_values(r, gain, depth, c_of, what)
    return finish(val, r, single, no_relevant=no_relevant, per_user=per_user)


# --------------------------------------------------------------------------
# docstring pieces shared by the C/W/L measures (filled before fill_doc's)
CWL_DOCS = {
    "cwl_grades": """\
min_grade, max_grade : float, default 0 and 1
    The gain of grade ``g`` is ``(clip(g, min_grade, max_grade) -
    min_grade) / (max_grade - min_grade)``, in [0, 1]: ir_measures'
    ``min_rel`` and ``max_rel`` (which it requires). The defaults give
    binary gains for integer grades (every grade >= 1 has gain 1);
    ``max_grade=3`` maps grades 0 .. 3 to 0, 1/3, 2/3, 1. cwl_eval itself
    reads the gains from its gain file, where they must lie in [0, 1].""",
    "cwl_max_depth": """\
max_depth : int, default 1000
    The number of positions over which the weights are normalised:
    cwl_eval's ``--max_depth`` (``max_n``; ir_measures' provider fixes
    1000). The ranking is cut there, and a shorter one is padded with
    items of gain 0.""",
    "cwl_ties": """\
ties : {'expected', 'optimistic', 'pessimistic', 'trec_eval'}, optional
    As for every ranking metric (``None``: ``'expected'``). The measure
    adapts to the gain read so far, so its expectation over the orders of
    tied items (every order of a tie group equally likely) is the mean over
    the distinct orders of the gains of each tie group (a tie group of
    equal gains has one), computed order by order, not approximated: a
    user's value depends on that user's data only (the same bits alone, in
    a block of ``rm.evaluate(..., chunk_users=k)`` or with every user).
    When a user has more than 20,000 distinct orders it raises
    ``ValueError`` naming ``ties`` rather than approximating: pass a
    deterministic policy.""",
}


def cwl_doc(obj):
    """Fill :data:`CWL_DOCS` into a docstring, then the package's shared pieces."""
    if obj.__doc__:
        for key, text in CWL_DOCS.items():
            obj.__doc__ = obj.__doc__.replace(
                f"%({key})s", text.replace("\n", "\n    ").replace("\n    \n", "\n\n")
            )
    return fill_doc(obj)


@cwl_doc
def inst(
    a=None,
    b=None,
    *,
    T=1.0,
    min_grade=0.0,
    max_grade=1.0,
    max_depth=CWL_MAX_DEPTH,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """INST (Moffat et al., 2015): the C/W/L rate of gain of a user who wants ``T`` units of gain.

    .. math:: C_i = \\left(\\frac{i + T + T_i - 1}{i + T + T_i}\\right)^2, \\qquad
              T_i = T - \\sum_{j \\le i} g_j, \\qquad
              \\mathrm{INST} = \\sum_{i=1}^{D} W_i g_i

    per user, averaged over users, with ``W_i`` the normalised probability
    of reaching position ``i`` (module :mod:`recmetrics.metrics.cwl`) over
    ``D = max_depth`` positions. The more gain still wanted, the more
    likely the user reads on; once ``T`` is reached, ``C_i`` falls towards
    INSQ's. cwl_eval: ``cwl/ruler/measures/cwl_inst.py`` (``INSTCWLMetric``;
    its default list prints ``INST-T=1.0``, ``2.0`` and ``3.0``);
    ir_measures: ``INST(T=1, max_rel=...)``.

    Parameters
    ----------
    %(a_b)s
    T : float, default 1.0
        The gain wanted (cwl_eval's ``T``).
    %(cwl_grades)s
    %(cwl_max_depth)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(cwl_ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    insq : The non-adaptive variant.
    recmetrics.rbp : A constant continuation probability ``p``.

    References
    ----------
    Moffat, A., Bailey, P., Scholer, F. and Thomas, P. (2015). INST: an
    adaptive metric for information retrieval evaluation. Proceedings of
    ADCS 2015, 5:1-5:4. doi:10.1145/2838931.2838938

    Azzopardi, L., Thomas, P. and Moffat, A. (2019). cwl_eval: an
    evaluation tool for information retrieval. Proceedings of SIGIR 2019,
    1321-1324. doi:10.1145/3331184.3331398

    %(ref_macavaney2022)s

    Examples
    --------
    >>> round(inst([1, 0, 1, 0]), 6)
    0.723289
    >>> round(inst([1, 0, 1, 0], T=3), 6), round(inst([3, 1, 0], max_grade=3), 6)
    (0.301645, 0.692448)

    A relevant item tied with a non-relevant one: the mean over both orders.

    >>> round(inst([[1, 0]], [[0.5, 0.5]]), 6) == round((inst([1, 0]) + inst([0, 1])) / 2, 6)
    True
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    T = _real(T, "T", positive=True)
    return cwl_measure(
        r,
        single,
        None,
        grades=(min_grade, max_grade),
        max_depth=max_depth,
        no_relevant=no_relevant,
        per_user=per_user,
        c_of=lambda G: _c_inst(G, T),
        what="INST",
    )


@cwl_doc
def insq(
    a=None,
    b=None,
    *,
    T=1.0,
    min_grade=0.0,
    max_grade=1.0,
    max_depth=CWL_MAX_DEPTH,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """INSQ (Moffat et al., 2012): the C/W/L rate of gain of INST without its adaptation.

    .. math:: C_i = \\left(\\frac{i + 2T - 1}{i + 2T}\\right)^2, \\qquad
              \\mathrm{INSQ} = \\sum_{i=1}^{D} W_i g_i

    per user, averaged over users, with ``W_i`` the normalised probability
    of reaching position ``i`` over ``D = max_depth`` positions. ``C_i``
    does not depend on the gains, so INSQ is a weighted precision, and
    under ``ties='expected'`` the value is the exact expectation in closed
    form: each position of a tie group holds the group's mean gain.
    cwl_eval: ``cwl/ruler/measures/cwl_insq.py`` (``INSQCWLMetric``);
    ir_measures: ``INSQ(T=1, max_rel=...)``.

    Parameters
    ----------
    %(a_b)s
    T : float, default 1.0
        The gain wanted (cwl_eval's ``T``).
    %(cwl_grades)s
    %(cwl_max_depth)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    %(no_relevant)s
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    inst : The adaptive variant.

    References
    ----------
    Moffat, A., Scholer, F. and Thomas, P. (2012). Models and metrics: IR
    evaluation as a user process. Proceedings of ADCS 2012, 47-54.
    doi:10.1145/2407085.2407092

    %(ref_macavaney2022)s

    Examples
    --------
    >>> round(insq([1, 0, 1, 0]), 6)
    0.485297
    >>> round(insq([[1, 0]], [[0.5, 0.5]]), 6) == round(insq([0.5, 0.5], max_grade=1), 6)
    True
    """
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    T = _real(T, "T", positive=True)

    def c_of(G):
        return _c_insq(G.shape[1], T)

    c_of.static = True
    return cwl_measure(
        r,
        single,
        None,
        grades=(min_grade, max_grade),
        max_depth=max_depth,
        no_relevant=no_relevant,
        per_user=per_user,
        c_of=c_of,
        what="INSQ",
    )
