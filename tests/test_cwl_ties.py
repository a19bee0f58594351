"""The C/W/L measures that adapt to the gain read (INST, NERR8-11, BPM) under ties='expected'.

* The value is the mean over every order of the tied items, checked against
  a brute force in exact arithmetic (``fractions.Fraction``): the gains are
  thirds, whose running sums come out a unit in the last place either side
  of the mathematical value in floating point, and BPM's threshold ``T`` is
  hit exactly (cwl_eval's ``c_gain[i] < T`` must be the exact comparison).
  INSQ, which does not adapt, is checked the same way.
* A user's value depends on that user's data only: the same bits alone, in
  blocks of ``rm.evaluate(..., chunk_users=k)`` and with all users.
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest

import recmetrics as rm

DEPTH = 12  # max_depth of the brute force


# ------------------------------------------------------------------ exact reference
def _eu(gains, cont, depth=DEPTH):
    """C/W/L expected utility in exact arithmetic over ``depth`` positions.

    ``cont(i, g_i, gain read so far)`` is the continuation ``C_i``.
    """
    gains = list(gains)[:depth] + [Fraction(0)] * (depth - min(len(gains), depth))
    reach, total, total_reach, so_far = Fraction(1), Fraction(0), Fraction(0), Fraction(0)
    for i, g in enumerate(gains, start=1):
        so_far += g
        total += reach * g
        total_reach += reach
        reach *= cont(i, g, so_far)
    return total / total_reach


def _insq_c(i, T):
    return ((i + 2 * T - 1) / (i + 2 * T)) ** 2


def _exact(name, gains, kw, depth=DEPTH):
    T = Fraction(kw.get("T", 1))
    k = kw.get("k") or depth + 1
    if name == "inst":
        return _eu(gains, lambda i, g, c: ((i + 2 * T - c - 1) / (i + 2 * T - c)) ** 2)
    if name == "insq":
        return _eu(gains, lambda i, g, c: _insq_c(i, T))
    if name == "nerr8":
        return _eu(gains, lambda i, g, c: (1 - g) if i < k else 0)
    if name == "nerr9":
        return _eu(gains, lambda i, g, c: Fraction(i, i + 1) * (1 - g) if i < k else 0)
    if name == "nerr10":
        p = Fraction(kw.get("p", 0.9))
        return _eu(gains, lambda i, g, c: p * (1 - g))
    if name == "nerr11":
        return _eu(gains, lambda i, g, c: _insq_c(i, T) * (1 - g))
    assert name == "bpm"
    target = [T]
    hb, med = kw.get("hb"), Fraction(kw.get("gain_med", 0.5))

    def cont(i, g, c):
        go = c < target[0] and i < k
        if hb is not None:
            target[0] += Fraction(hb) * (g - med)
        return Fraction(int(go))

    return _eu(gains, cont, depth)


def _brute(name, grades, scores, max_grade, kw, depth=DEPTH):
    """The exact mean over every order of the tied items (all permutations of each group)."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    groups = [list(g) for _, g in itertools.groupby(order, key=lambda i: scores[i])]
    values = [
        _exact(name, [Fraction(int(grades[i]), max_grade) for p in perm for i in p], kw, depth)
        for perm in itertools.product(*[itertools.permutations(g) for g in groups])
    ]
    return sum(values) / len(values)


VARIANTS = [
    ("inst", {"T": 1}),
    ("inst", {"T": 2}),
    ("insq", {"T": 1}),
    ("nerr8", {"k": 4}),
    ("nerr8", {}),
    ("nerr9", {"k": 5}),
    ("nerr10", {"p": 0.5}),
    ("nerr11", {"T": 2}),
    ("bpm", {"T": 1}),
    ("bpm", {"T": 2}),
    ("bpm", {"T": 2, "k": 5}),
    ("bpm", {"T": Fraction(5, 3)}),  # the package reads float(T), within 1e-16 of 5/3
    ("bpm", {"T": 1.5, "hb": 1.0, "gain_med": 0.25}),
]


def _tied_inputs(seed):
    """A small user with many ties: grades 0..3, scores in {0, 1, 2} (groups of up to 4)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 9))
    grades = rng.integers(0, 4, n) * (rng.random(n) < 0.7)
    scores = rng.integers(0, 3, n).astype(float)
    while max(np.unique(scores, return_counts=True)[1]) > 4:  # keep the brute force small
        scores = rng.integers(0, 4, n).astype(float)
    return grades, scores


@pytest.mark.parametrize(("name", "kw"), VARIANTS, ids=[f"{n}-{kw}" for n, kw in VARIANTS])
def test_expected_ties_exact_brute_force(name, kw):
    fn = getattr(rm, name)
    for seed in range(25):
        grades, scores = _tied_inputs(seed)
        want = _brute(name, grades, scores, 3, kw)
        got = fn([grades], [scores], max_grade=3, max_depth=DEPTH, no_relevant="zero", **kw)
        assert got == pytest.approx(float(want), abs=1e-12), (seed, grades, scores)


def test_bpm_threshold_reached_exactly():
    """The brief's example: gains 1/3, 1, 2/3 reach T = 2 in every order of the ties."""
    s = [0.5, 0.5, 0.9, 0.1, 0.5, 0.6, 0.7, 0.7, 0.8, 0.2, 0.1, 0.4, 0.1, 0.5]
    y = [0] * 14
    y[0], y[6], y[13] = 1, 3, 2
    want = Fraction(61, 252)  # the mean over the 288 orders, in exact arithmetic
    assert _brute("bpm", y, s, 3, {"T": 2}, depth=1000) == want
    alone = rm.bpm([y], [s], T=2, max_grade=3, per_user=True)
    assert alone[0] == pytest.approx(float(want), abs=1e-15)
    # with another user, and through rm.evaluate in one pass and in blocks of one user
    s2 = [0.1, 0.6, 0.3, 0.3, 0.4, 0.6, 0.4, 0.1, 0.7, 0.7, 0.3, 0.1, 0.3, 0.0]
    y2 = [0, 2, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    both = rm.bpm([y, y2], [s, s2], T=2, max_grade=3, per_user=True)
    assert both[0] == alone[0]
    for chunk in (None, 1):
        got = rm.evaluate(
            np.array([y, y2]),
            np.array([s, s2]),
            ["bpm(T=2,max_rel=3)"],
            per_user=True,
            chunk_users=chunk,
        )
        assert got.iloc[0, 0] == alone[0]
    # six gains of 1/3 sum to 2 - 2**-52 in floating point: T = 2 is reached all the same,
    # and the user reads six items (EU 1/3), not the seventh
    assert sum([1 / 3] * 6) < 2
    assert rm.bpm([1] * 6 + [3], T=2, max_grade=3) == pytest.approx(1 / 3, abs=1e-15)
    assert rm.bpm([2, 3, 1, 3], T=2, max_grade=3) == pytest.approx(2 / 3, abs=1e-15)


NAMES = [
    "inst",
    "inst(T=2,max_rel=3)",
    "insq",
    "nerr8@5",
    "nerr9@5",
    "nerr10",
    "nerr11(T=2,max_rel=3)",
    "bpm@5",
    "bpm(T=2,max_rel=3)",
]


@pytest.mark.parametrize("seed", range(6))
def test_per_user_values_do_not_depend_on_other_users(seed):
    rng = np.random.default_rng(seed)
    n_users = 30
    s = np.round(rng.random((n_users, 40)), 2)
    y = (rng.random((n_users, 40)) < 0.15) * rng.integers(1, 4, (n_users, 40))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in NAMES:
            one = np.asarray(rm.evaluate(y, s, [name], per_user=True), dtype=float)
            for chunk in (1, 7):
                blk = rm.evaluate(y, s, [name], per_user=True, chunk_users=chunk)
                assert np.array_equal(np.asarray(blk, dtype=float), one, equal_nan=True), name
    # the functions themselves: each user alone, and the users in reverse order
    for fn, kw in [(rm.inst, {"T": 2}), (rm.nerr10, {}), (rm.bpm, {"T": 2})]:
        every = fn(y, s, max_grade=3, per_user=True, no_relevant="zero", **kw)
        rev = fn(y[::-1], s[::-1], max_grade=3, per_user=True, no_relevant="zero", **kw)
        assert np.array_equal(every, rev[::-1])
        for u in range(0, n_users, 5):
            alone = fn(y[u : u + 1], s[u : u + 1], max_grade=3, per_user=True, **kw)
            assert np.array_equal(alone, every[u : u + 1], equal_nan=True), (fn, u)


def test_long_tie_groups_full_depth_block_identity():
    """At cwl_eval's 1000 positions, users of very different widths in one call."""
    rng = np.random.default_rng(4)
    s = np.round(rng.random((12, 300)), 2)
    y = (rng.random((12, 300)) < 0.01) * rng.integers(1, 4, (12, 300))
    y[3, :] = 0
    y[3, 290] = 2  # a user whose last relevant item is deep
    for fn in (rm.inst, rm.nerr11, rm.bpm):
        every = fn(y, s, max_grade=3, per_user=True, no_relevant="zero")
        for u in range(12):
            alone = fn(y[u : u + 1], s[u : u + 1], max_grade=3, per_user=True, no_relevant="zero")
            assert alone[0] == every[u], (fn, u)
