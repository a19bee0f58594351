"""Interleaving: one list shown from two rankings, and which ranking the clicks prefer.

An interleaving method merges rankings ``a`` and ``b`` into one list of at
most ``k`` items; the user's clicks on it are credited to ``a`` or ``b``,
and :meth:`Interleaving.outcome` says which won (+1 for ``a``, -1 for
``b``, 0 for a tie). Over many impressions, :func:`interleaving_test`
tests whether one ranking wins more often. Three methods:

* ``'balanced'`` (Joachims 2003): the two rankings take turns, the first
  turn to a coin flip; a click at the lowest clicked item :math:`d` is
  credited by counting clicked items in the top :math:`k'` of each
  ranking, with :math:`k'` the first depth at which :math:`d` is in
  either ranking's top :math:`k'`. Known to be biased: with random clicks
  some pairs of rankings do not tie on average (Radlinski et al. 2008);
* ``'team_draft'`` (Radlinski, Kurup & Joachims 2008): like picking teams,
  the ranking with fewer picks (a coin flip when equal) adds its best item
  not yet shown; each click is credited to the team that picked the item;
* ``'probabilistic'`` (Hofmann, Whiteson & de Rijke 2011): at each rank a
  coin chooses a ranking, which draws an item not yet shown with
  probability proportional to :math:`1/\\mathrm{rank}^{\\tau}` in it; the
  outcome is the expectation of the team-draft-like credit over every
  assignment of the shown items to the rankings that could have produced
  the list (marginalised, so that it is computed from the list shown).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import (
    check_choice,
    check_count,
    check_positive_number,
    check_probability,
    check_seed,
)

__all__ = ["INTERLEAVING_METHODS", "Interleaving", "interleave", "interleaving_test"]

INTERLEAVING_METHODS = ("team_draft", "balanced", "probabilistic")


def _ranking(x, name):
    if isinstance(x, (str, bytes, set, frozenset, dict)) or not hasattr(x, "__len__"):
        raise TypeError(
            f"{name} must be a sequence of item ids, best first, got {type(x).__name__}"
        )
    items = list(x.tolist() if isinstance(x, np.ndarray) else x)
    if len(set(items)) != len(items):
        raise ValueError(f"{name} holds an item twice")
    return items


@dataclass(frozen=True)
class Interleaving:
    """One interleaved list and how to credit clicks on it.

    Attributes
    ----------
    items : list
        The list shown, best first.
    method : str
        The interleaving method.
    team : ndarray of int
        ``'team_draft'``: 1 if ``a`` picked the item, -1 if ``b`` did;
        ``'probabilistic'``: the assignment drawn while building the list
        (the outcome does not use it); ``'balanced'``: 0.
    """

    items: list
    method: str
    team: np.ndarray
    _a: tuple
    _b: tuple
    _posterior_a: np.ndarray  # probabilistic: P(item r came from a | the list shown)

    def _clicks(self, clicks):
        c = np.asarray(clicks)
        if c.dtype.kind != "b" or c.shape != (len(self.items),):
            raise ValueError(
                f"clicks must be {len(self.items)} booleans, one per shown item, got "
                f"{c.dtype} of shape {c.shape}"
            )
        return c

    def credit(self, clicks):
        """The clicks credited to ``a`` and to ``b`` (expected credit for ``'probabilistic'``)."""
        c = self._clicks(clicks)
        if self.method == "team_draft":
            return float(np.sum(c & (self.team > 0))), float(np.sum(c & (self.team < 0)))
        if self.method == "probabilistic":
            pa = self._posterior_a[c]
            return float(pa.sum()), float((1 - pa).sum())
        if not c.any():
            return 0.0, 0.0
        lowest = self.items[int(np.flatnonzero(c).max())]
        rank_a = self._a.index(lowest) if lowest in self._a else len(self._a)
        rank_b = self._b.index(lowest) if lowest in self._b else len(self._b)
        depth = min(rank_a, rank_b) + 1
        clicked = {self.items[i] for i in np.flatnonzero(c)}
        return (float(len(clicked & set(self._a[:depth]))),
                float(len(clicked & set(self._b[:depth]))))  # fmt: skip

    def outcome(self, clicks):
        """Which ranking the clicks prefer: +1 for ``a``, -1 for ``b``, 0 for a tie.

        Team-draft and balanced interleaving compare the clicks credited to
        each ranking. Probabilistic interleaving returns a number in
        [-1, 1]: the expected outcome over the assignments of the shown
        items to the rankings that could have produced the list, given the
        list and the clicks (Hofmann et al. 2011's marginalised outcome);
        it is averaged over impressions as it is, since taking its sign
        first would bias the comparison.

        Parameters
        ----------
        clicks : array-like of bool, shape (len(items),)
            Which shown items were clicked.

        Returns
        -------
        int or float
        """
        c = self._clicks(clicks)
        if self.method == "probabilistic":
            # P(credit_a > credit_b) - P(credit_a < credit_b), the assignments of the
            # clicked items independent given the list
            dist = np.array([1.0])
            for p in self._posterior_a[c]:
                dist = np.convolve(dist, [1 - p, 0.0, p])
            m = (dist.size - 1) // 2
            return float(dist[m + 1 :].sum() - dist[:m].sum())
        ca, cb = self.credit(c)
        return int(np.sign(ca - cb))


def _team_draft(a, b, k, rng):
    shown, team, taken = [], [], set()
    ia = ib = na = nb = 0
    while len(shown) < k:
        while ia < len(a) and a[ia] in taken:
            ia += 1
        while ib < len(b) and b[ib] in taken:
            ib += 1
        left_a, left_b = ia < len(a), ib < len(b)
        if not (left_a or left_b):
            break
        a_turn = left_a and (not left_b or na < nb or (na == nb and rng.random() < 0.5))
        item = a[ia] if a_turn else b[ib]
        shown.append(item)
        taken.add(item)
        team.append(1 if a_turn else -1)
        na, nb = na + a_turn, nb + (not a_turn)
    return shown, np.array(team, dtype=np.int64)


def _balanced(a, b, k, rng):
    a_first = rng.random() < 0.5
    shown, taken = [], set()
    ia = ib = 0
    while len(shown) < k and (ia < len(a) or ib < len(b)):
        take_a = ib >= len(b) or (ia < len(a) and (ia < ib or (ia == ib and a_first)))
        item = a[ia] if take_a else b[ib]
        if take_a:
            ia += 1
        else:
            ib += 1
        if item not in taken:
            shown.append(item)
            taken.add(item)
    return shown, np.zeros(len(shown), dtype=np.int64)


def _softmax_ranks(ranking, tau):
    return {item: 1.0 / (r + 1) ** tau for r, item in enumerate(ranking)}


def _probabilistic(a, b, k, rng, tau):
    wa, wb = _softmax_ranks(a, tau), _softmax_ranks(b, tau)
    shown, team, posterior = [], [], []
    left = set(a) | set(b)
    while len(shown) < k and left:
        za = sum(wa.get(d, 0.0) for d in left)
        zb = sum(wb.get(d, 0.0) for d in left)
        use_a = zb == 0 or (za > 0 and rng.random() < 0.5)
        w, z = (wa, za) if use_a else (wb, zb)
        candidates = [d for d in (a if use_a else b) if d in left]
        p = np.array([w[d] for d in candidates]) / z
        item = candidates[int(rng.choice(len(candidates), p=p))]
        # the probability of this item from each ranking, given what is left
        pa = wa.get(item, 0.0) / za if za > 0 else 0.0
        pb = wb.get(item, 0.0) / zb if zb > 0 else 0.0
        posterior.append(pa / (pa + pb))
        shown.append(item)
        team.append(1 if use_a else -1)
        left.discard(item)
    return shown, np.array(team, dtype=np.int64), np.array(posterior)


def interleave(a, b, *, method="team_draft", k=10, tau=3.0, seed=0):
    """Interleave two rankings into one list of at most ``k`` items.

    Parameters
    ----------
    a, b : sequence of item ids
        The two rankings, best first (no item twice; they may share items).
    method : {'team_draft', 'balanced', 'probabilistic'}, default 'team_draft'
        The interleaving method (see the module docstring).
    k : int, default 10
        The length of the list shown (shorter if the rankings run out).
    tau : float, default 3.0
        ``'probabilistic'`` only: the exponent of the rank distribution.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the coin flips and draws.

    Returns
    -------
    Interleaving
        ``.items`` (the list), ``.outcome(clicks)``, ``.credit(clicks)``.

    References
    ----------
    T. Joachims. Evaluating Retrieval Performance Using Clickthrough Data.
    In Text Mining, 2003.

    F. Radlinski, M. Kurup and T. Joachims. How Does Clickthrough Data
    Reflect Retrieval Quality? CIKM 2008.

    K. Hofmann, S. Whiteson and M. de Rijke. A Probabilistic Method for
    Inferring Preferences from Clicks. CIKM 2011.

    O. Chapelle, T. Joachims, F. Radlinski and Y. Yue. Large-Scale
    Validation and Analysis of Interleaved Search Evaluation. ACM TOIS
    30(1), 2012.

    Examples
    --------
    >>> il = interleave(["x", "y", "z"], ["y", "x", "w"], k=4, seed=1)
    >>> sorted(il.items)
    ['w', 'x', 'y', 'z']
    >>> il.outcome([True, False, False, False]) in (-1, 1)
    True
    """
    check_choice(method, "method", INTERLEAVING_METHODS)
    a, b = _ranking(a, "a"), _ranking(b, "b")
    k = check_count(k, "k")
    rng = check_seed(seed)
    posterior = np.zeros(0)
    if method == "team_draft":
        shown, team = _team_draft(a, b, k, rng)
    elif method == "balanced":
        shown, team = _balanced(a, b, k, rng)
    else:
        tau = check_positive_number(tau, "tau")
        shown, team, posterior = _probabilistic(a, b, k, rng, tau)
    return Interleaving(shown, method, team, tuple(a), tuple(b), posterior)


@dataclass(frozen=True)
class InterleavingTestResult:
    """Outcomes over impressions, and the test of a preference for ``a`` or ``b``.

    Attributes
    ----------
    wins_a, wins_b, ties : int
        Impressions with a positive, negative and zero outcome.
    preference : float
        ``test='sign'``: the share of ``a``'s wins among the decided
        impressions; ``test='t'``: the mean outcome.
    low, high : float
        Its confidence interval.
    pvalue : float
        Two-sided p-value of no preference (0.5, or a mean of 0).
    test : str
        ``'sign'`` or ``'t'``.
    """

    wins_a: int
    wins_b: int
    ties: int
    preference: float
    low: float
    high: float
    pvalue: float
    test: str


def interleaving_test(outcomes, *, test="sign", level=0.95):
    """Test interleaving outcomes over impressions for a preference between the rankings.

    * ``test='sign'``: ties (0) are left out and the wins of ``a`` among the
      decided impressions are tested against a fair coin with
      :func:`scipy.stats.binomtest` (exact, two-sided), with the exact
      (Clopper-Pearson) interval of ``a``'s share of the wins; outcomes
      must be -1, 0 or 1 (team-draft, balanced);
    * ``test='t'``: the mean outcome against 0 with
      :func:`scipy.stats.ttest_1samp` and its t interval, for real-valued
      outcomes in [-1, 1] (probabilistic interleaving).

    Parameters
    ----------
    outcomes : array-like
        One outcome per impression.
    test : {'sign', 't'}, default 'sign'
        The test.
    level : float, default 0.95
        The interval's confidence level.

    Returns
    -------
    InterleavingTestResult

    References
    ----------
    O. Chapelle, T. Joachims, F. Radlinski and Y. Yue. Large-Scale
    Validation and Analysis of Interleaved Search Evaluation. ACM TOIS
    30(1), 2012.

    Examples
    --------
    >>> r = interleaving_test([1] * 60 + [-1] * 40 + [0] * 900)
    >>> (r.wins_a, r.wins_b, r.ties, round(r.pvalue, 3))
    (60, 40, 900, 0.057)
    """
    check_choice(test, "test", ("sign", "t"))
    level = check_probability(level, "level")
    o = np.asarray(outcomes)
    if o.ndim != 1 or o.dtype.kind not in "iuf" or o.size == 0:
        raise ValueError("outcomes must be a non-empty 1-D array of numbers")
    if not np.all(np.isfinite(o)) or np.any(np.abs(o) > 1):
        raise ValueError("outcomes must be numbers in [-1, 1]")
    wins_a, wins_b = int((o > 0).sum()), int((o < 0).sum())
    ties = int(o.size - wins_a - wins_b)
    if test == "sign":
        if not np.isin(o, (-1, 0, 1)).all():
            raise ValueError(
                "test='sign' needs outcomes -1, 0 or 1; for the real-valued outcomes of "
                "probabilistic interleaving use test='t'"
            )
        if wins_a + wins_b == 0:
            raise ValueError("every outcome is a tie: there is nothing to test")
        res = stats.binomtest(wins_a, wins_a + wins_b, 0.5)
        ci = res.proportion_ci(confidence_level=level, method="exact")
        return InterleavingTestResult(wins_a, wins_b, ties, wins_a / (wins_a + wins_b),
                                      float(ci.low), float(ci.high), float(res.pvalue),
                                      "sign")  # fmt: skip
    if o.size < 2:
        raise ValueError("test='t' needs at least 2 outcomes")
    res = stats.ttest_1samp(o.astype(np.float64), 0.0)
    ci = res.confidence_interval(confidence_level=level)
    return InterleavingTestResult(wins_a, wins_b, ties, float(o.mean()), float(ci.low),
                                  float(ci.high), float(res.pvalue), "t")  # fmt: skip
