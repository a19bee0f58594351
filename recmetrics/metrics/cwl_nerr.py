"""cwl_eval's other C/W/L measures: NERR (Azzopardi et al., 2021), BPM (Zhang et al., 2017), SDCG.

The machinery (weights, gains, ties) is that of :mod:`recmetrics.metrics.cwl`.

* :func:`nerr8`, :func:`nerr9`, :func:`nerr10`, :func:`nerr11`: cwl_eval's
  ``NERReq8`` .. ``NERReq11`` (``cwl/ruler/measures/cwl_nerr.py``),
  ir_measures' ``NERR8@k`` .. ``NERR11``: C/W/L measures whose continuation
  ``1 - g_i`` is ERR's, so that they come close to ERR;
* :func:`bpm`: cwl_eval's static Bejeweled Player Model ``BPMCWLMetric``
  (``cwl/ruler/measures/cwl_bpm.py``), ir_measures' ``BPM(T=1)@k``;
* :func:`sdcg`: cwl_eval's ``NDCGCWLMetric`` (``cwl/ruler/measures/cwl_dcg.py``),
  ir_measures' ``SDCG@k``: DCG scaled by the DCG of ``k`` items of gain 1.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_probability
from .cwl import CWL_MAX_DEPTH, _c_bpm, _c_nerr, _positions, _real, cwl_doc, cwl_measure
from .topn._common import _rank

__all__ = ["nerr8", "nerr9", "nerr10", "nerr11", "bpm", "sdcg"]

_COMMON = """
    Parameters
    ----------
    %(a_b)s
    {first}
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
    recmetrics.err : Expected reciprocal rank, which is not a C/W/L measure.
    recmetrics.inst : The C/W/L measure of a user who wants ``T`` units of gain.

    References
    ----------
    Azzopardi, L., Mackenzie, J. and Moffat, A. (2021). ERR is not C/W/L:
    exploring the relationship between expected reciprocal rank and other
    metrics. Proceedings of ICTIR 2021, 231-237. doi:10.1145/3471158.3472239

    Azzopardi, L., Thomas, P. and Moffat, A. (2019). cwl_eval: an
    evaluation tool for information retrieval. Proceedings of SIGIR 2019,
    1321-1324. doi:10.1145/3331184.3331398

    %(ref_macavaney2022)s
"""

_K_CUT = """k : int, optional
        The cutoff: the user stops after position ``k`` at the latest
        (cwl_eval's ``k``, ir_measures' required ``@k``); ``None``: only
        ``max_depth`` cuts."""


def _doc(first, examples):
    def deco(fn):
        fn.__doc__ = fn.__doc__.rstrip() + "\n" + _COMMON.format(first=first) + examples
        return cwl_doc(fn)

    return deco


def _run(r, single, k, grades, max_depth, no_relevant, per_user, c_of, what):
    return cwl_measure(
        r,
        single,
        k,
        grades=grades,
        max_depth=max_depth,
        no_relevant=no_relevant,
        per_user=per_user,
        c_of=c_of,
        what=what,
    )


@_doc(
    _K_CUT,
    """
    Examples
    --------
    >>> round(nerr8([0, 1, 1]), 6), round(nerr8([0, 1, 1], k=1), 6)
    (0.5, 0.0)
    """,
)
def nerr8(
    a=None,
    b=None,
    *,
    k=None,
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
    """NERR, Eq. 8 of Azzopardi et al. (2021): C/W/L with ERR's continuation ``1 - g_i``, cut at k.

    .. math:: C_i = 1 - g_i \\;(i < k), \\quad C_i = 0 \\;(i \\ge k), \\qquad
              \\mathrm{NERR}_8@k = \\sum_{i=1}^{k} W_i g_i

    per user, averaged over users, with ``W_i`` the normalised probability
    of reaching position ``i`` (:mod:`recmetrics.metrics.cwl`). cwl_eval:
    ``NERReq8CWLMetric(k)``; ir_measures: ``NERR8(max_rel=...)@k``.
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    return _run(
        r,
        single,
        k,
        (min_grade, max_grade),
        max_depth,
        no_relevant,
        per_user,
        lambda G: _c_nerr(G, 8, k, None, None),
        "NERR8",
    )


@_doc(
    _K_CUT,
    """
    Examples
    --------
    >>> round(nerr9([0, 1, 1]), 6), round(nerr9([1, 0, 1], k=2), 6)
    (0.333333, 1.0)
    """,
)
def nerr9(
    a=None,
    b=None,
    *,
    k=None,
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
    """NERR, Eq. 9 of Azzopardi et al. (2021): continuation ``i / (i + 1) (1 - g_i)``, cut at k.

    .. math:: C_i = \\frac{i}{i + 1} (1 - g_i) \\;(i < k), \\quad C_i = 0 \\;(i \\ge k),
              \\qquad \\mathrm{NERR}_9@k = \\sum_{i=1}^{k} W_i g_i

    per user, averaged over users: ERR's continuation and its ``1 / i``
    discount (:mod:`recmetrics.metrics.cwl` for ``W_i``). cwl_eval:
    ``NERReq9CWLMetric(k)``; ir_measures: ``NERR9(max_rel=...)@k``.
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    return _run(
        r,
        single,
        k,
        (min_grade, max_grade),
        max_depth,
        no_relevant,
        per_user,
        lambda G: _c_nerr(G, 9, k, None, None),
        "NERR9",
    )


@_doc(
    """p : float, default 0.9
        The persistence ``phi`` in (0, 1) (cwl_eval's ``phi``, ir_measures'
        ``p``).""",
    """
    Examples
    --------
    >>> round(nerr10([0, 1, 1]), 6), round(nerr10([0, 1, 1], p=0.5), 6)
    (0.473684, 0.333333)
    """,
)
def nerr10(
    a=None,
    b=None,
    *,
    p=0.9,
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
    """NERR, Eq. 10 of Azzopardi et al. (2021): continuation ``p (1 - g_i)``, RBP's patience.

    .. math:: C_i = p \\, (1 - g_i), \\qquad \\mathrm{NERR}_{10} = \\sum_{i=1}^{D} W_i g_i

    per user, averaged over users, over ``D = max_depth`` positions
    (:mod:`recmetrics.metrics.cwl` for ``W_i``). cwl_eval:
    ``NERReq10CWLMetric(phi)``; ir_measures: ``NERR10(p=0.9, max_rel=...)``.
    """
    p = check_probability(p, "p")
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    return _run(
        r,
        single,
        None,
        (min_grade, max_grade),
        max_depth,
        no_relevant,
        per_user,
        lambda G: _c_nerr(G, 10, None, p, None),
        "NERR10",
    )


@_doc(
    """T : float, default 1.0
        The gain wanted, as INSQ's ``T`` (cwl_eval's and ir_measures' ``T``).""",
    """
    Examples
    --------
    >>> round(nerr11([0, 1, 1]), 6), round(nerr11([0, 1, 1], T=3), 6)
    (0.307692, 0.423529)
    """,
)
def nerr11(
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
    """NERR, Eq. 11 of Azzopardi et al. (2021): INSQ's continuation times ``1 - g_i``.

    .. math:: C_i = \\left(\\frac{i + 2T - 1}{i + 2T}\\right)^2 (1 - g_i), \\qquad
              \\mathrm{NERR}_{11} = \\sum_{i=1}^{D} W_i g_i

    per user, averaged over users, over ``D = max_depth`` positions
    (:mod:`recmetrics.metrics.cwl` for ``W_i``). cwl_eval:
    ``NERReq11CWLMetric(T)`` (its docstring says Eq. 12); ir_measures:
    ``NERR11(T=1, max_rel=...)``.
    """
    T = _real(T, "T", positive=True)
    r, single, _ = _rank(a, b, ranks, n_items, mask, ties, None, judged_only=judged_only)
    return _run(
        r,
        single,
        None,
        (min_grade, max_grade),
        max_depth,
        no_relevant,
        per_user,
        lambda G: _c_nerr(G, 11, None, None, T),
        "NERR11",
    )


@_doc(
    """T : float, default 1.0
        The gain wanted (Zhang et al.'s ``E_b``, cwl_eval's and ir_measures'
        ``T``).
    k : int, optional
        The number of items the user is willing to read (Zhang et al.'s
        ``E_c``, cwl_eval's ``K`` with every cost 1, ir_measures' required
        ``@k``); ``None``: only ``max_depth`` cuts.
    hb : float, optional
        ``None`` (default): the static model. A number: cwl_eval's dynamic
        model ``BPMDCWLMetric(T, K, hb, hc, gain_med)``, in which ``T``
        grows by ``hb (g_i - gain_med)`` after each item read. cwl_eval
        never changes ``K`` (its loop updates ``T`` where it means ``K``),
        so its ``hc`` has no effect and is not a keyword here.
    gain_med : float, default 0.5
        The dynamic model's median gain (Zhang et al.'s ``rel_med``).""",
    """
    Examples
    --------
    >>> round(bpm([0, 1, 1]), 6), round(bpm([0, 1, 1], T=2), 6), round(bpm([0, 1, 1], k=1), 6)
    (0.5, 0.666667, 0.0)

    The dynamic model: after two misses the target has fallen from 1.5 to
    0.5, so the first relevant item ends the reading.

    >>> round(bpm([0, 0, 1, 1], T=1.5), 6), round(bpm([0, 0, 1, 1], T=1.5, hb=1.0), 6)
    (0.5, 0.333333)

    Six gains of 1/3 reach ``T = 2`` (their floating-point sum is
    ``2 - 2**-52``): the user reads six items, not the seventh.

    >>> sum([1 / 3] * 6) < 2, round(bpm([1] * 6 + [3], T=2, max_grade=3), 6)
    (True, 0.333333)
    """,
)
def bpm(
    a=None,
    b=None,
    *,
    T=1.0,
    k=None,
    hb=None,
    gain_med=0.5,
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
    """The static Bejeweled Player Model (Zhang et al., 2017) in C/W/L form.

    .. math:: C_i = [\\textstyle\\sum_{j \\le i} g_j < T] \\, [i < k], \\qquad
              \\mathrm{BPM} = \\sum_{i} W_i g_i

    per user, averaged over users: the user reads until the gain reaches
    ``T`` or ``k`` items are read, whichever comes first, with equal weight
    on every item read (:mod:`recmetrics.metrics.cwl` for ``W_i``). The gain
    read so far reaches ``T`` when it is at least ``T - 1e-9 max(1, |T|)``:
    a sum of gains equal to ``T`` (``1/3 + 1/3 + ... = 2``) may come out a
    unit in the last place below ``T`` in floating point, depending on the
    order of the terms. cwl_eval compares its floating-point sum as it is
    (``c_gain[i] < T``) and then reads on, so in such cases (gains in thirds
    and ``T = 2``, say) its value, and ir_measures', differs from this one;
    under ``ties='expected'`` the orders of a tie group would disagree on
    where the user stops.
    cwl_eval: ``BPMCWLMetric(T, K)``, with every cost 1; ir_measures:
    ``BPM(T=1, max_rel=...)@k``. With ``hb``, cwl_eval's dynamic model
    ``BPMDCWLMetric`` (in neither cwl_eval's default list nor ir_measures),
    whose gain target moves with the gain read:
    ``T_i = T + hb sum_{j < i} (g_j - gain_med)``.
    """
    T = _real(T, "T", positive=True)
    hb = None if hb is None else _real(hb, "hb")
    gain_med = _real(gain_med, "gain_med")
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)
    return _run(
        r,
        single,
        k,
        (min_grade, max_grade),
        max_depth,
        no_relevant,
        per_user,
        lambda G: _c_bpm(G, T, k, hb, gain_med),
        "BPM",
    )


@_doc(
    """k : int, optional
        The cutoff (cwl_eval's ``k``, ir_measures' required ``@k``);
        ``None``: the ``max_depth`` positions.""",
    """
    Examples
    --------
    >>> round(sdcg([0, 1, 1], k=3), 6), round(sdcg([1, 0, 0, 0], k=4), 6)
    (0.530721, 0.39038)

    Ties: INSQ-like, a tie group holds its mean gain at each position.

    >>> sdcg([[1, 0]], [[0.5, 0.5]], k=2) == sdcg([0.5, 0.5], k=2)
    True
    """,
)
def sdcg(
    a=None,
    b=None,
    *,
    k=None,
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
    """Scaled DCG, cwl_eval's ``NDCG-k``: DCG@k over the DCG of ``k`` items of gain 1.

    .. math:: C_i = \\frac{\\log_2 (i + 1)}{\\log_2 (i + 2)} \\;(i < k), \\quad
              C_i = 0 \\;(i \\ge k), \\qquad
              \\mathrm{SDCG}@k = \\frac{\\sum_{i=1}^{k} g_i / \\log_2(i + 1)}
              {\\sum_{i=1}^{k} 1 / \\log_2(i + 1)}

    per user, averaged over users, with the gains in [0, 1]: the
    probability of reaching position ``i`` is ``1 / log2(i + 1)``, so
    ``W_i`` is DCG's discount normalised over ``k`` positions
    (:mod:`recmetrics.metrics.cwl`). Unlike NDCG it does not depend on the
    user's relevant items, only on the ranking (ir_measures: "nDCG, but
    assuming there are at least cutoff relevant documents"); for binary
    relevance it is :func:`recmetrics.ndcg` with ``idcg='k'`` when the user
    has at most ``k`` relevant items. ``C_i`` does not read the gains, so
    under ``ties='expected'`` the value is exact in closed form. cwl_eval:
    ``NDCGCWLMetric(k)`` (printed as ``NDCG-k@5`` and ``NDCG-k@10`` in its
    default list); ir_measures: ``SDCG(max_rel=...)@k``.
    """
    r, single, k = _rank(a, b, ranks, n_items, mask, ties, k, judged_only=judged_only)

    def c_of(G):
        i = _positions(G.shape[1])
        c = np.log2(i + 1.0) / np.log2(i + 2.0)
        return c if k is None else np.where(i < k, c, 0.0)

    c_of.static = True
    return _run(
        r, single, k, (min_grade, max_grade), max_depth, no_relevant, per_user, c_of, "SDCG"
    )
