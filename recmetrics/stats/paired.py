"""Is B really better? Paired tests, bootstrap intervals, corrections and power.

Everything here works on *per-user* metric values, the ``per_user=True``
output of :func:`recmetrics.evaluate` (a DataFrame, one column per metric,
indexed by user) or of any metric function (an array or a Series). Two
models are compared *paired*: both were evaluated on the same users, and
the user-to-user spread, much larger than the difference between models,
cancels in the per-user differences (Smucker, Allan & Carterette, 2007).

* :func:`paired_test`: paired t, Wilcoxon signed-rank, sign and Fisher's
  randomization test (exact enumeration of the sign flips for few users,
  seeded Monte Carlo otherwise; the result says which);
* :func:`bootstrap_ci`: percentile or BCa interval of a mean, or of a mean
  paired difference, resampling users (the same resamples for every metric);
* :func:`adjust_pvalues`: Holm and Bonferroni (checked against statsmodels),
  Benjamini-Hochberg and Benjamini-Yekutieli (scipy);
* :func:`detectable_difference` and :func:`users_needed`: the power of a
  paired t-test (statsmodels' power function);
* :func:`corrected_resampled_ttest`: the corrected resampled t-test of
  Nadeau & Bengio (2003) for differences measured on repeated random splits
  (or folds), whose ordinary t-test is anti-conservative;
* :func:`compare`: several models against a baseline on several metrics, as
  a tidy table, and :func:`significance_table` to print it with marks.

**Per-user values only.** A Series or DataFrame whose index holds metric
names (the means ``evaluate(..., per_user=False)`` returns) or convention
names (:func:`recmetrics.compare_conventions`) is a summary, not one value
per user, and raises: pass ``evaluate(..., per_user=True)``. So do users
repeated in an index, booleans, strings, infinite values and values beyond
``1e100`` in absolute value.

**Pairing and missing values.** Inputs with an index (Series, DataFrames)
are aligned on it; users in only one of them raise unless
``missing='drop'``. Arrays without an index must have equal lengths (row ``i``
is the same user in both). A NaN per-user value (a user left out by
``no_relevant='skip'``) drops that user from that metric's comparison
(``nan='drop'``, default) or raises (``nan='raise'``).

**Seeds.** Every function that resamples takes ``seed``: an integer (the
default, 0) gives the same resamples on every call, a
:class:`numpy.random.Generator` is drawn from (and advanced), and ``None``
draws fresh entropy from the operating system (other resamples on every
call).

**Result tables.** With several metrics the functions return a DataFrame
indexed by metric name (``metric``), with ``float64`` numbers, ``int64``
counts and ``bool`` flags, so that ``.round(3)`` and number formats apply.

References
----------
.. [1] M. D. Smucker, J. Allan and B. Carterette. A Comparison of Statistical
   Significance Tests for Information Retrieval Evaluation. CIKM 2007.
.. [2] T. Sakai. Statistical reform in information retrieval? SIGIR Forum
   48(1), 2014.
.. [3] B. Carterette. Multiple testing in statistical analysis of
   systems-based information retrieval experiments. ACM TOIS 30(1), 2012.
.. [4] R. Dror, G. Baumer, S. Shlomov and R. Reichart. The Hitchhiker's Guide
   to Testing Statistical Significance in Natural Language Processing.
   ACL 2018.
.. [5] B. Efron and R. J. Tibshirani. An Introduction to the Bootstrap.
   Chapman & Hall, 1993 (BCa intervals: chapter 14).
.. [6] C. Nadeau and Y. Bengio. Inference for the Generalization Error.
   Machine Learning 52(3), 2003.
.. [7] B. Phipson and G. K. Smyth. Permutation P-values Should Never Be
   Zero. Statistical Applications in Genetics and Molecular Biology 9(1),
   2010.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from .. import _registry
from .._kernels import CHUNK_CELLS
from .._validation import (
    MAX_EXACT_INT,
    as_numeric_array,
    check_choice,
    check_count,
    check_positive_number,
    check_probability,
    check_seed,
)
from ..conventions import PRESETS

__all__ = [
    "PAIRED_TESTS",
    "PairedTestResult",
    "BootstrapResult",
    "ResampledTTestResult",
    "paired_test",
    "bootstrap_ci",
    "adjust_pvalues",
    "detectable_difference",
    "users_needed",
    "corrected_resampled_ttest",
    "compare",
    "significance_table",
]

PAIRED_TESTS = ("t", "wilcoxon", "sign", "randomization")
_ALTERNATIVES = ("two-sided", "greater", "less")
_ADJUSTMENTS = ("holm", "bonferroni", "bh", "by", "none")
_CI_METHODS = ("percentile", "bca")
_MISSING = ("raise", "drop")
_NAN = ("drop", "raise")
# Per-user values beyond this (in absolute value) are refused: their squares,
# summed over users, would overflow float64 in the variance of a t-test.
_MAX_ABS_VALUE = 1e100
# trec_eval's measure names, as the command line labels its columns
_TREC_MEASURE = re.compile(r"^(P|recall|map_cut|ndcg_cut|success)(?:[._]\d+)?$")


@dataclass(frozen=True)
class PairedTestResult:
    """The result of :func:`paired_test` on one metric.

    Attributes
    ----------
    statistic : float
        The test statistic (t; Wilcoxon's W; the number of users where
        ``a > b`` for the sign test; the mean difference for randomization).
    pvalue : float
        The p-value under the test's null hypothesis.
    mean_difference : float
        ``mean(a - b)`` over the paired users.
    n_users : int
        Users in the comparison (after alignment and NaN handling).
    method, alternative : str
        As requested.
    details : dict
        Method-specific: degrees of freedom (t), ties and zero differences
        (sign, Wilcoxon), number of resamples and whether the randomization
        distribution was exact.
    resampling : str
        How the null distribution was obtained: ``'exact'`` (all ``2**n_users``
        sign flips enumerated), ``'monte carlo'`` (``n_resamples`` random sign
        flips) or ``'none'`` (t, Wilcoxon and sign tests: no resampling).
    n_resamples : int
        Sign flips the randomization p-value is computed from (0 without
        resampling).
    """

    statistic: float
    pvalue: float
    mean_difference: float
    n_users: int
    method: str
    alternative: str
    details: dict = field(default_factory=dict)
    resampling: str = "none"
    n_resamples: int = 0


@dataclass(frozen=True)
class BootstrapResult:
    """The result of :func:`bootstrap_ci` on one metric.

    Attributes
    ----------
    estimate : float
        The mean (or mean paired difference) on the data.
    low, high : float
        The interval's bounds.
    level : float
        Its confidence level.
    method : str
        ``'percentile'`` or ``'bca'``.
    n_users, n_resamples : int
        Users resampled and number of resamples.
    standard_error : float
        The standard deviation of the bootstrap means.
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n_users: int
    n_resamples: int
    standard_error: float


@dataclass(frozen=True)
class ResampledTTestResult:
    """The result of :func:`corrected_resampled_ttest` on one metric.

    Attributes
    ----------
    statistic : float
        The corrected t statistic.
    pvalue : float
        Its p-value under Student's t with ``df`` degrees of freedom.
    mean_difference : float
        The mean of the per-split differences.
    standard_error : float
        The corrected standard error, ``sqrt((1/J + n_test/n_train) s**2)``.
    df : int
        Degrees of freedom, ``J - 1``.
    n_splits : int
        ``J``, the number of splits (or folds).
    alternative : str
        As requested.
    """

    statistic: float
    pvalue: float
    mean_difference: float
    standard_error: float
    df: int
    n_splits: int
    alternative: str


# --------------------------------------------------------------------------
# reading per-user values
def _is_summary_label(label) -> str | None:
    """'metric' or 'convention' if ``label`` names one (a summary row, not a user)."""
    if not isinstance(label, str):
        return None
    if label in PRESETS:
        return "convention"
    if _TREC_MEASURE.match(label):
        return "metric"
    try:
        _registry.parse(label)
    except (TypeError, ValueError):
        return None
    return "metric"


def _refuse_summary(index, name):
    """Raise if every label of ``index`` is a metric (or convention) name, as in a summary."""
    kinds = set()
    for label in index:
        kind = _is_summary_label(label)
        if kind is None:
            return
        kinds.add(kind)
    if "convention" in kinds:
        raise ValueError(
            f"{name} is indexed by convention names ({list(index)[:3]}), as "
            "recmetrics.compare_conventions returns: these are means, not per-user values; "
            "pass evaluate(..., per_user=True), one row per user"
        )
    raise ValueError(
        f"{name} is indexed by metric names ({list(index)[:3]}): it looks like the means "
        "that recmetrics.evaluate(..., per_user=False) returns, not per-user values. "
        "Pass evaluate(..., per_user=True), a table with one row per user"
    )


def _column_values(column, label):
    """One column of per-user values as float64 (NaN allowed, inf and bools refused)."""
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise TypeError(
            f"{label} holds booleans, not metric values; convert with .astype(int) if intended"
        )
    if pd.api.types.is_numeric_dtype(dtype) and getattr(dtype, "kind", "") != "c":
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    elif pd.api.types.is_object_dtype(dtype):
        values = as_numeric_array(column.to_numpy(), label, ndim=1, allow_nan=True)
    else:
        raise TypeError(f"{label} must hold numbers, got dtype {dtype}")
    bad = np.isinf(values) | (np.abs(values) > _MAX_ABS_VALUE)
    if bad.any():
        where = int(np.argmax(bad))
        raise ValueError(
            f"{label} holds {values[where]!r} for user {column.index[where]!r}: per-user "
            f"values must be finite and at most {_MAX_ABS_VALUE:g} in absolute value"
        )
    return values


def _as_frame(x, name):
    """Per-user values as a float64 DataFrame (one column per metric) and whether x had an index."""
    if isinstance(x, pd.DataFrame):
        frame, indexed = x, True
        if frame.shape[1] == 0:
            raise ValueError(f"{name} has no columns (one column per metric is expected)")
        if not frame.columns.is_unique:
            dup = frame.columns[frame.columns.duplicated()][0]
            raise ValueError(f"{name} has the column {dup!r} twice (one column per metric)")
    elif isinstance(x, pd.Series):
        frame, indexed = x.to_frame(name=x.name if x.name is not None else "value"), True
    else:
        if (
            x is None
            or isinstance(x, (str, bytes, Mapping, set, frozenset, numbers.Number))
            or np.isscalar(x)
        ):
            raise TypeError(
                f"{name} must be per-user values (an array, a Series or a DataFrame), "
                f"got {type(x).__name__}"
            )
        arr = as_numeric_array(x, name, ndim=1, allow_nan=True, allow_empty=True)
        frame, indexed = pd.DataFrame({"value": arr}), False
    if len(frame) == 0:
        raise ValueError(f"{name} is empty (no users)")
    if indexed:
        if not frame.index.is_unique:
            dup = frame.index[frame.index.duplicated()][0]
            raise ValueError(
                f"{name} has the user {dup!r} more than once: one row per user is expected"
            )
        _refuse_summary(frame.index, name)
    several = isinstance(x, pd.DataFrame)
    values = np.column_stack(
        [_column_values(frame[c], f"{name}[{c!r}]" if several else name) for c in frame.columns]
    )
    return pd.DataFrame(values, index=frame.index, columns=frame.columns), indexed


def _align(fa, ia, fb, ib, missing, names=("a", "b")):
    """Pair the users of two per-user frames; the same index and columns for both."""
    na, nb = names
    if list(fa.columns) != list(fb.columns):
        if fa.shape[1] == fb.shape[1] == 1:
            fb = fb.set_axis(fa.columns, axis=1)
        elif set(fa.columns) == set(fb.columns):
            fb = fb[list(fa.columns)]
        else:
            raise ValueError(
                f"{na} and {nb} must hold the same metrics: {list(fa.columns)} and "
                f"{list(fb.columns)}"
            )
    if ia and ib:
        only_a = fa.index.difference(fb.index, sort=False)
        only_b = fb.index.difference(fa.index, sort=False)
        if len(only_a) or len(only_b):
            if missing == "raise":
                who = only_a[0] if len(only_a) else only_b[0]
                raise ValueError(
                    f"{len(only_a)} users are only in {na} and {len(only_b)} only in {nb} "
                    f"(e.g. {who!r}); pass missing='drop' to compare the users present in both"
                )
            common = fa.index.intersection(fb.index, sort=False)
            if len(common) == 0:
                raise ValueError(f"{na} and {nb} have no user in common")
            fa, fb = fa.loc[common], fb.loc[common]
        else:
            fb = fb.loc[fa.index]
    else:
        if len(fa) != len(fb):
            raise ValueError(
                f"{na} and {nb} have {len(fa)} and {len(fb)} users; without an index (arrays) "
                "row i must be the same user in both, so the lengths must be equal"
            )
        fb = fb.set_axis(fa.index, axis=0)
    return fa, fb


def _pair(a, b, missing):
    """Align two per-user inputs; return the two frames with the same index and columns."""
    check_choice(missing, "missing", _MISSING)
    fa, ia = _as_frame(a, "a")
    fb, ib = _as_frame(b, "b")
    return _align(fa, ia, fb, ib, missing)


def _pairs_of(fa, fb, nan, names=("a", "b")):
    """Per metric: the paired values without NaN (or raise)."""
    out = {}
    for col in fa.columns:
        x, y = fa[col].to_numpy(), fb[col].to_numpy()
        ok = ~(np.isnan(x) | np.isnan(y))
        if not ok.all() and nan == "raise":
            raise ValueError(
                f"metric {col!r} has NaN for {int((~ok).sum())} users (users without relevant "
                "items under no_relevant='skip'?); pass nan='drop' to leave them out"
            )
        if ok.sum() < 2:
            raise ValueError(
                f"metric {col!r} has fewer than 2 users with values in both {names[0]} and "
                f"{names[1]}"
            )
        out[col] = (x[ok], y[ok])
    return out


def _columns_of(fa, nan, name="a"):
    """Per metric: the values without NaN (or raise)."""
    out = {}
    for col in fa.columns:
        x = fa[col].to_numpy()
        ok = ~np.isnan(x)
        if not ok.all() and nan == "raise":
            raise ValueError(
                f"metric {col!r} of {name} has NaN for {int((~ok).sum())} users; pass "
                "nan='drop' to leave them out"
            )
        out[col] = x[ok]
    return out


def _check_n_resamples(n_resamples):
    return check_count(n_resamples, "n_resamples", minimum=1, maximum=MAX_EXACT_INT)


def _one_or_table(results, single):
    """One result, or a table with one row per metric and typed (numeric, bool, str) columns."""
    if single:
        return next(iter(results.values()))
    names = [f.name for f in fields(next(iter(results.values()))) if f.name != "details"]
    rows = [[getattr(r, f) for f in names] for r in results.values()]
    table = pd.DataFrame(rows, columns=names)
    for f in names:
        kind = type(rows[0][names.index(f)])
        if kind is float:
            table[f] = table[f].astype(np.float64)
        elif kind is int:
            table[f] = table[f].astype(np.int64)
        elif kind is bool:
            table[f] = table[f].astype(bool)
    table.index = pd.Index(list(results), name="metric", tupleize_cols=False)
    return table


# --------------------------------------------------------------------------
# paired tests
_EPS = float(np.finfo(np.float64).eps)
# Up to this many users the Monte Carlo sign flips look up subset sums of 8
# users at a time (a table of 256 n / 8 values), beyond it of 4 (16 n / 4).
_BYTE_TABLE_USERS = 1 << 17


def _degenerate(difference, alternative):
    """Statistic and p-value of a t-test whose differences are all equal to ``difference``."""
    if difference == 0:
        return 0.0, 1.0
    statistic = math.copysign(math.inf, difference)
    if alternative == "two-sided":
        return statistic, 0.0
    favoured = difference > 0 if alternative == "greater" else difference < 0
    return statistic, 0.0 if favoured else 1.0


def _scaled(d):
    """``d`` times a power of two (exact) so that tiny values do not underflow when squared."""
    top = float(np.max(np.abs(d)))
    if 0 < top < 2.0**-400:
        return np.ldexp(d, -int(np.frexp(top)[1]))
    return d


def _t_test(d, alternative):
    if np.all(d == d[0]):
        return _degenerate(float(d[0]), alternative)
    res = stats.ttest_1samp(_scaled(d), 0.0, alternative=alternative)
    return float(res.statistic), float(res.pvalue)


def _exact_flip_sums(d):
    """``sum(s * d)`` for every sign vector ``s`` in {-1, 1}**n, in blocks."""
    n = d.shape[0]
    shifts = np.arange(n, dtype=np.int64)
    total = 1 << n
    step = max(1, CHUNK_CELLS // n)
    for lo in range(0, total, step):
        k = np.arange(lo, min(total, lo + step), dtype=np.int64)
        signs = 1.0 - 2.0 * ((k[:, None] >> shifts) & 1)
        yield signs @ d


def _random_flip_sums(d, n_resamples, rng):
    """``sum(s * d)`` for ``n_resamples`` uniformly random sign vectors, in blocks.

    Users are taken in groups of ``g`` (8, or 4 above 131072 users to bound the
    table's memory): a table holds, for every subset of a group, the sum of
    its differences, and one random ``g``-bit code per group and resample
    picks the users whose sign flips, ``sum(s * d) = sum(d) - 2 sum(flipped)``:
    ``n / g`` look-ups per resample instead of ``n`` multiplications.
    """
    n = d.shape[0]
    g = 8 if n <= _BYTE_TABLE_USERS else 4
    groups = -(-n // g)
    padded = np.zeros(groups * g)
    padded[:n] = d
    subsets = ((np.arange(1 << g)[:, None] >> np.arange(g)) & 1).astype(np.float64)
    table = (padded.reshape(groups, g) @ subsets.T).ravel()  # (groups, 2**g), flattened
    offsets = np.arange(groups, dtype=np.int64) * (1 << g)
    total = float(np.sum(d))
    step = max(1, CHUNK_CELLS // groups)
    for lo in range(0, n_resamples, step):
        m = min(step, n_resamples - lo)
        codes = rng.integers(0, 1 << g, size=(m, groups), dtype=np.uint8)
        yield total - 2.0 * table[codes + offsets].sum(axis=1)


def _randomization(x, y, alternative, n_resamples, rng):
    """Fisher's paired randomization test of the mean difference: p-value, exact?, resamples.

    Under H0 the sign of each user's difference is a fair coin. The sums
    ``sum(s * d)`` of the flipped differences are compared with the observed
    ``sum(d)`` with a tolerance: values that are equal in exact arithmetic
    (``0.2 - 0.0`` and ``0.6 - 0.8``) differ in floating point by the
    rounding of the metric values, at most ``eps (|a_u| + |b_u|)`` per user,
    and of the sums, at most ``(n - 1) eps / 2 sum |d_u|`` each (Higham,
    Accuracy and Stability of Numerical Algorithms, 2002, ch. 4), so that
    ``tol = 2 n eps sum(|a_u| + |b_u|)`` bounds both. (scipy's
    ``permutation_test`` scales its tolerance to the observed statistic,
    which is itself ~0 when the tie matters.)
    """
    d = x - y
    n = d.shape[0]
    observed = float(np.sum(d))
    tol = 2.0 * n * _EPS * float(np.sum(np.abs(x)) + np.sum(np.abs(y)))
    exact = n < n_resamples.bit_length()  # 2**n <= n_resamples, without computing 2**n
    if exact:
        total, sums = 1 << n, _exact_flip_sums(d)
    else:
        total, sums = n_resamples, _random_flip_sums(d, n_resamples, rng)
    at_least = at_most = 0  # flipped sums >= and <= the observed one
    for t in sums:
        at_least += int(np.count_nonzero(t >= observed - tol))
        at_most += int(np.count_nonzero(t <= observed + tol))
    if exact:  # the share of all sign flips
        greater, less = at_least / total, at_most / total
    else:  # the observed signs count as one more draw: p is never 0 (Phipson & Smyth 2010)
        greater, less = (at_least + 1) / (total + 1), (at_most + 1) / (total + 1)
    # two-sided: twice the smaller tail, as scipy's permutation_test (for the exact,
    # symmetric distribution of the flips this is the share with |sum| >= |observed|)
    p = {"greater": greater, "less": less}.get(alternative, 2.0 * min(greater, less))
    return min(1.0, p), exact, total


def _paired_tests(fa, fb, method, alternative, n_resamples, rng, nan, names=("a", "b")):
    results = {}
    for col, (x, y) in _pairs_of(fa, fb, nan, names).items():
        d = x - y
        n = int(d.shape[0])
        details = {}
        resampling, used = "none", 0
        if method == "t":
            statistic, p = _t_test(d, alternative)
            details["df"] = n - 1
        elif method == "wilcoxon":
            if not np.any(d != 0):
                statistic, p = 0.0, 1.0
            else:
                res = stats.wilcoxon(x, y, alternative=alternative)
                statistic, p = float(res.statistic), float(res.pvalue)
            details["zero_differences"] = int(np.sum(d == 0))
        elif method == "sign":
            wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
            statistic = float(wins)
            p = (
                1.0
                if wins + losses == 0
                else float(
                    stats.binomtest(wins, wins + losses, 0.5, alternative=alternative).pvalue
                )
            )
            details.update(wins=wins, losses=losses, ties=n - wins - losses)
        else:
            p, exact, used = _randomization(x, y, alternative, n_resamples, rng)
            statistic = float(np.mean(d))
            resampling = "exact" if exact else "monte carlo"
            details.update(exact=exact, n_resamples=used)
        results[col] = PairedTestResult(
            statistic=float(statistic),
            pvalue=float(p),
            mean_difference=float(np.mean(d)),
            n_users=n,
            method=method,
            alternative=alternative,
            details=details,
            resampling=resampling,
            n_resamples=int(used),
        )
    return results


def paired_test(
    a,
    b,
    *,
    method="t",
    alternative="two-sided",
    n_resamples=10_000,
    seed=0,
    missing="raise",
    nan="drop",
):
    """Paired significance test of the per-user values of two models.

    The null hypothesis is about the per-user differences ``d_u = a_u - b_u``,
    and each method states it differently: their mean is 0 (``'t'``); each
    ``d_u`` is distributed symmetrically about 0 (``'randomization'`` and
    ``'wilcoxon'``, a stronger null than a zero mean); their median is 0
    (``'sign'``).

    Parameters
    ----------
    a, b : array-like, pandas.Series or pandas.DataFrame
        Per-user values of the two models (a DataFrame: one column per
        metric, tested separately), e.g. ``evaluate(..., per_user=True)``.
        See the module docstring for how users are paired and what is
        refused.
    method : {'t', 'wilcoxon', 'sign', 'randomization'}, default 't'
        ``'t'``: Student's paired t-test (``scipy.stats.ttest_rel``).
        ``'wilcoxon'``: Wilcoxon's signed-rank test
        (``scipy.stats.wilcoxon``; zero differences dropped).
        ``'sign'``: the sign test, a binomial test of the number of users
        with ``a > b`` among those with ``a != b`` (``scipy.stats.binomtest``).
        ``'randomization'``: Fisher's paired randomization test of the mean
        difference, flipping the sign of each user's difference: exact
        (all ``2**n_users`` sign flips) when ``2**n_users <= n_resamples``,
        else ``n_resamples`` seeded random sign flips, with
        ``p = (1 + #{flipped >= observed}) / (1 + n_resamples)``
        (Phipson & Smyth, 2010) for ``'greater'``, and twice the smaller
        tail for ``'two-sided'`` (at least ``2 / (1 + n_resamples)``, as in
        ``scipy.stats.permutation_test``). Flipped and observed sums are compared with
        a tolerance of ``2 n eps sum(|a_u| + |b_u|)``, so that differences
        equal in exact arithmetic count as ties.
    alternative : {'two-sided', 'greater', 'less'}, default 'two-sided'
        ``'greater'``: the alternative is that ``a`` is better (larger).
    n_resamples : int, default 10000
        Sign flips of the randomization test, at least 1 (and its exactness
        threshold, see ``method``).
    seed : None, int or numpy.random.Generator, default 0
        Seed of the randomization test's Monte Carlo flips: an integer gives
        the same flips on every call, ``None`` fresh entropy from the
        operating system.
    missing : {'raise', 'drop'}, default 'raise'
        Users present in only one of ``a`` and ``b`` (indexed inputs).
    nan : {'drop', 'raise'}, default 'drop'
        Users with a NaN value for a metric.

    Returns
    -------
    PairedTestResult or pandas.DataFrame
        One result for 1-D input or a one-column frame; a DataFrame indexed
        by metric name for several metrics (columns statistic, pvalue,
        mean_difference, n_users, method, alternative, resampling,
        n_resamples). ``resampling`` says how the randomization test's null
        distribution was obtained (``'exact'`` or ``'monte carlo'``; ``'none'``
        for the other tests).

    Raises
    ------
    TypeError
        For inputs that are not numbers (strings, booleans, ``None``) and
        arguments of the wrong type (a float ``n_resamples``, a bool seed).
    ValueError
        For unknown options, empty input, infinite values, a user repeated in
        an index, unequal lengths of unindexed inputs, means indexed by metric
        names instead of per-user values, fewer than 2 paired users.

    See Also
    --------
    bootstrap_ci : the interval of the mean difference.
    adjust_pvalues : for many tests at once.
    corrected_resampled_ttest : for differences measured on repeated splits.

    Notes
    -----
    When every paired difference is the same value ``c``, the t-test has no
    variance to estimate: it returns ``t = 0, p = 1`` for ``c = 0`` and
    ``t = +-inf`` with ``p = 0`` (or ``1`` against the other one-sided
    alternative) otherwise, the limits of the test as the variance vanishes.

    References
    ----------
    M. D. Smucker, J. Allan and B. Carterette. A Comparison of Statistical
    Significance Tests for Information Retrieval Evaluation. CIKM 2007.
    B. Phipson and G. K. Smyth. Permutation P-values Should Never Be Zero.
    Stat. Appl. Genet. Mol. Biol. 9(1), 2010.

    Examples
    --------
    >>> a = [0.50, 0.40, 0.90, 0.70, 0.60, 0.80]
    >>> b = [0.45, 0.30, 0.80, 0.72, 0.50, 0.60]
    >>> r = paired_test(a, b)
    >>> round(r.statistic, 3), round(r.pvalue, 4), round(r.mean_difference, 4)
    (2.996, 0.0302, 0.0883)
    >>> r = paired_test(a, b, method="randomization")
    >>> round(r.pvalue, 4), r.resampling, r.n_resamples   # all 2**6 sign flips
    (0.0625, 'exact', 64)
    >>> paired_test(a, b, method="sign").statistic   # users where a > b
    5.0

    Ties in exact arithmetic count as ties (here ``0.2 - 0.0 == -(0.6 - 0.8)``,
    so three of the four sign flips give a sum at most the observed 0):

    >>> paired_test([0.2, 0.6], [0.0, 0.8], method="randomization", alternative="less").pvalue
    0.75
    """
    check_choice(method, "method", PAIRED_TESTS)
    check_choice(alternative, "alternative", _ALTERNATIVES)
    check_choice(missing, "missing", _MISSING)
    check_choice(nan, "nan", _NAN)
    n_resamples = _check_n_resamples(n_resamples)
    rng = check_seed(seed)
    fa, fb = _pair(a, b, missing)
    results = _paired_tests(fa, fb, method, alternative, n_resamples, rng, nan)
    return _one_or_table(results, len(results) == 1)


# --------------------------------------------------------------------------
# bootstrap intervals
def _resampled_means(values, n_resamples, rng):
    """Means of ``n_resamples`` resamples of the rows of ``values`` (n, m), as (n_resamples, m).

    The same resampled users serve every column, drawn in blocks of bounded
    size (``CHUNK_CELLS`` indices at a time).
    """
    n, m = values.shape
    out = np.empty((n_resamples, m))
    step = max(1, CHUNK_CELLS // n)
    for lo in range(0, n_resamples, step):
        hi = min(n_resamples, lo + step)
        idx = rng.integers(0, n, size=(hi - lo, n))
        for j in range(m):
            out[lo:hi, j] = values[idx, j].mean(axis=1)
    return out


def _bca(theta, boot, values, alpha):
    """BCa bounds (Efron & Tibshirani, ch. 14) for the mean, jackknife in closed form."""
    n = values.shape[0]
    # bias correction: the fraction of bootstrap means below the estimate
    frac = (np.sum(boot < theta, axis=0) + 0.5 * np.sum(boot == theta, axis=0)) / boot.shape[0]
    z0 = special.ndtri(np.clip(frac, 1.0 / (2 * boot.shape[0]), 1 - 1.0 / (2 * boot.shape[0])))
    # acceleration from the jackknife means (sum - x_i) / (n - 1)
    jack = (values.sum(axis=0) - values) / (n - 1)
    dev = jack.mean(axis=0) - jack
    num = np.sum(dev**3, axis=0)
    den = 6.0 * np.sum(dev**2, axis=0) ** 1.5
    acc = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    bounds = []
    for q in (alpha / 2, 1 - alpha / 2):
        zq = special.ndtri(q)
        adj = special.ndtr(z0 + (z0 + zq) / (1 - acc * (z0 + zq)))
        bounds.append(adj)
    return bounds


def _min_bootstrap_users(level):
    """Fewest users whose bootstrap interval at ``level`` is not just the range of the values.

    With ``n`` users, the smallest resampled mean (every draw the same user)
    has probability ``n**-n``; when that reaches ``(1 - level) / 2`` the
    interval's bounds are the smallest and largest values themselves.
    """
    n = 2
    while n * math.log(n) <= -math.log((1.0 - level) / 2.0):
        n += 1
    return n


def _bootstrap(cols, level, method, n_resamples, rng, name="a"):
    """Bootstrap results per metric from ``{metric: values without NaN}``."""
    n_min = _min_bootstrap_users(level)
    for col, x in cols.items():
        if x.shape[0] < n_min:
            raise ValueError(
                f"metric {col!r} of {name} has {x.shape[0]} users, too few for a bootstrap "
                f"interval at level {level:g} (at least {n_min}: with n users the extreme "
                "resampled means have probability n**-n, and the interval would be the range "
                "of the values). "
                "Per-user values are expected: evaluate(..., per_user=True)"
            )
    alpha = 1.0 - level
    results = {}
    # metrics with the same users are resampled together (one pass, shared indices)
    groups = {}
    for col, x in cols.items():
        groups.setdefault(x.shape[0], []).append(col)
    for n, names in groups.items():
        values = np.column_stack([cols[c] for c in names])
        theta = values.mean(axis=0)
        boot = _resampled_means(values, n_resamples, rng)
        if method == "percentile":
            lo_q = np.full(len(names), alpha / 2)
            hi_q = np.full(len(names), 1 - alpha / 2)
        else:
            lo_q, hi_q = _bca(theta, boot, values, alpha)
        for j, name in enumerate(names):
            low, high = np.quantile(boot[:, j], [lo_q[j], hi_q[j]])
            results[name] = BootstrapResult(
                estimate=float(theta[j]),
                low=float(low),
                high=float(high),
                level=float(level),
                method=method,
                n_users=int(n),
                n_resamples=n_resamples,
                standard_error=float(np.std(boot[:, j], ddof=1)),
            )
    return {col: results[col] for col in cols}


def bootstrap_ci(
    a,
    b=None,
    *,
    level=0.95,
    method="bca",
    n_resamples=10_000,
    seed=0,
    missing="raise",
    nan="drop",
):
    """Bootstrap confidence interval of a mean over users, or of a mean paired difference.

    Users are resampled with replacement (``n_resamples`` times); the
    interval is read from the distribution of the resampled means:

    .. math:: \\hat\\theta = \\frac{1}{n}\\sum_u d_u, \\qquad
              d_u = a_u \\ (\\text{or } a_u - b_u)

    Parameters
    ----------
    a : array-like, pandas.Series or pandas.DataFrame
        Per-user values (a DataFrame: one column per metric; the same
        resampled users serve every metric), e.g.
        ``evaluate(..., per_user=True)``. The means of
        ``evaluate(..., per_user=False)`` are refused (see the module
        docstring).
    b : same as ``a``, optional
        A second model's values: the interval is then that of the mean
        paired difference ``a - b``, users paired as in :func:`paired_test`.
    level : float, default 0.95
        Confidence level, in (0, 1).
    method : {'bca', 'percentile'}, default 'bca'
        ``'percentile'``: the ``(1 - level) / 2`` and ``(1 + level) / 2``
        quantiles of the resampled means. ``'bca'``: bias-corrected and
        accelerated (Efron & Tibshirani 1993, ch. 14), more accurate for
        skewed per-user values (most ranking metrics are).
    n_resamples : int, default 10000
        Number of resamples, at least 1.
    seed : None, int or numpy.random.Generator, default 0
        Seed of the resampling: an integer gives the same resamples on
        every call, ``None`` fresh entropy from the operating system.
    missing, nan : str
        As in :func:`paired_test` (``nan='drop'`` drops a user's NaN per
        metric; with ``b``, a user is dropped when either value is NaN).

    Returns
    -------
    BootstrapResult or pandas.DataFrame
        One result for one metric, else a DataFrame indexed by metric name
        (columns estimate, low, high, level, method, n_users, n_resamples,
        standard_error).

    Raises
    ------
    TypeError
        For non-numeric input and arguments of the wrong type.
    ValueError
        As in :func:`paired_test`, and for a metric with too few users for
        an interval at this level: with ``n`` users the most extreme
        resampled mean has probability ``n**-n``, so at least
        :math:`n` with :math:`n^{-n} < (1 - \\text{level}) / 2` (4 users at
        levels 0.95 and 0.99, 5 at 0.999).

    See Also
    --------
    paired_test : the p-value of the difference.
    scipy.stats.bootstrap : the general routine (slower here: this one
        resamples every metric with the same users in one pass).

    References
    ----------
    B. Efron and R. J. Tibshirani. An Introduction to the Bootstrap. Chapman &
    Hall, 1993.

    Examples
    --------
    >>> a = [0.50, 0.40, 0.90, 0.70, 0.60, 0.80, 0.30, 0.55]
    >>> r = bootstrap_ci(a, method="percentile", n_resamples=2000, seed=1)
    >>> round(r.estimate, 4), r.low < r.estimate < r.high
    (0.5938, True)
    >>> b = [0.45, 0.30, 0.80, 0.72, 0.50, 0.60, 0.31, 0.50]
    >>> d = bootstrap_ci(a, b, n_resamples=2000, seed=1)
    >>> round(d.estimate, 4), bool(d.low > 0)
    (0.0713, True)
    """
    check_choice(method, "method", _CI_METHODS)
    level = check_probability(level, "level")
    check_choice(missing, "missing", _MISSING)
    check_choice(nan, "nan", _NAN)
    n_resamples = _check_n_resamples(n_resamples)
    rng = check_seed(seed)
    if b is None:
        fa, _ = _as_frame(a, "a")
        cols = _columns_of(fa, nan)
    else:
        fa, fb = _pair(a, b, missing)
        cols = {col: x - y for col, (x, y) in _pairs_of(fa, fb, nan).items()}
    results = _bootstrap(cols, level, method, n_resamples, rng, "a" if b is None else "a - b")
    return _one_or_table(results, len(results) == 1)


# --------------------------------------------------------------------------
# many tests
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


# --------------------------------------------------------------------------
# power of a paired comparison
def _check_power_args(sd, alpha, power):
    sd = check_positive_number(sd, "sd")
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    if power <= alpha:
        raise ValueError(
            f"power must be larger than alpha: a two-sided test rejects with probability "
            f"alpha = {alpha:g} even without a difference; got power = {power:g}"
        )
    return sd, alpha, power


def _power(effect_size, n, alpha):
    """Power of the two-sided one-sample (paired) t-test (statsmodels' ``TTestPower``).

    scipy's noncentral t (behind statsmodels) returns NaN in parts of its far
    tails (noncentrality above about 7.5). A NaN tail is then replaced by 0
    where a bound proves it below 1e-12: with ``T = (Z + nc) / S``,
    ``S = sqrt(V / df)``, ``P(T < -c) <= P(Z + nc < 0) = Phi(-nc)``, and for
    ``s = nc / (2 c)``, ``P(T < c) <= P(S > s) + P(Z < c s - nc)
    = chi2.sf(df s**2, df) + Phi(-nc / 2)``.
    """
    from statsmodels.stats.power import TTestPower

    power = float(TTestPower().power(effect_size, n, alpha, alternative="two-sided"))
    if not math.isnan(power):
        return power
    df = n - 1
    nc = float(effect_size) * math.sqrt(n)
    crit = float(stats.t.isf(alpha / 2, df))
    below_crit = float(special.nctdtr(df, nc, crit))
    if math.isnan(below_crit):
        s = nc / (2.0 * crit)
        bound = float(stats.chi2.sf(df * s * s, df)) + float(special.ndtr(-nc / 2.0))
        below_crit = 0.0 if bound < 1e-12 else math.nan
    lower = float(special.nctdtr(df, nc, -crit))
    if math.isnan(lower) and special.ndtr(-nc) < 1e-12:
        lower = 0.0
    power = 1.0 - below_crit + lower
    if math.isnan(power):  # pragma: no cover - not seen on a grid of df and nc
        raise ValueError(
            f"the power of a t-test with {n} users at effect size {effect_size!r} is undefined "
            "in scipy's noncentral t distribution"
        )
    return power


def detectable_difference(n_users, sd, *, alpha=0.05, power=0.8):
    """Smallest mean paired difference a two-sided paired t-test detects with this power.

    .. math:: \\delta = d \\cdot s, \\quad d \\text{ solving }
              \\Pr[\\,|T_{n-1}(d\\sqrt{n})| > t_{1-\\alpha/2, n-1}] = 1 - \\beta

    where :math:`T_{n-1}(\\lambda)` is a noncentral t variable with
    :math:`n - 1` degrees of freedom and noncentrality :math:`\\lambda`.

    Parameters
    ----------
    n_users : int
        Users in the paired comparison, from 2 to ``2**53``.
    sd : float
        Standard deviation of the per-user differences ``a - b`` (from a
        pilot or an earlier experiment), finite and > 0.
    alpha : float, default 0.05
        Level of the test, in (0, 1).
    power : float, default 0.8
        Required probability of detecting the difference, in (alpha, 1).

    Returns
    -------
    float
        The difference in the metric's own units.

    Raises
    ------
    TypeError
        For arguments that are not numbers (``n_users``: not an integer).
    ValueError
        For ``n_users < 2``, ``sd <= 0`` or infinite, ``alpha`` or ``power``
        outside (0, 1), ``power <= alpha``.

    See Also
    --------
    users_needed : the inverse question.

    Notes
    -----
    The power function is statsmodels' (``TTestPower.power``); its root in
    the effect size is found with :func:`scipy.optimize.brentq` to a
    relative accuracy of ``4 eps``, because statsmodels' own solver can stop
    far from it for very few or very many users.

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988.

    Examples
    --------
    >>> round(detectable_difference(671, sd=0.3), 4)
    0.0325
    """
    n = check_count(n_users, "n_users", minimum=2, maximum=MAX_EXACT_INT)
    sd, alpha, power = _check_power_args(sd, alpha, power)

    def gap(effect_size):
        return _power(effect_size, n, alpha) - power

    # the power grows from alpha (no effect) to 1: bracket the root, then solve
    high = (special.ndtri(1 - alpha / 2) + special.ndtri(power)) / math.sqrt(n)
    for _ in range(400):
        if gap(high) >= 0:
            break
        high *= 1.25
    else:  # pragma: no cover - power < 1 is always reached
        raise ValueError(f"no effect size reaches power {power!r} with {n} users")
    effect = optimize.brentq(gap, 0.0, high, xtol=1e-300, rtol=4 * _EPS)
    delta = float(effect * sd)
    if not math.isfinite(delta):
        raise ValueError(f"the detectable difference ({effect!r} sd with sd = {sd!r}) overflows")
    return delta


def users_needed(difference, sd, *, alpha=0.05, power=0.8):
    """Users a two-sided paired t-test needs to detect a mean difference with this power.

    The smallest :math:`n \\ge 2` whose power reaches the one asked for:

    .. math:: n = \\min\\{m \\ge 2 :\\ \\Pr[\\,|T_{m-1}(\\delta\\sqrt{m}/s)|
              > t_{1-\\alpha/2, m-1}] \\ge 1 - \\beta\\}

    Parameters
    ----------
    difference : float
        The mean paired difference to detect (metric units, finite,
        non-zero; its sign does not matter).
    sd : float
        Standard deviation of the per-user differences, finite and > 0.
    alpha, power : float
        As in :func:`detectable_difference`.

    Returns
    -------
    int
        The smallest number of users whose power is at least ``power``
        (the power at one user fewer is below it).

    Raises
    ------
    TypeError
        For arguments that are not numbers.
    ValueError
        For a zero or infinite difference, ``sd <= 0``, ``alpha`` or
        ``power`` outside (0, 1), ``power <= alpha``, or a difference so small
        that more than ``2**53`` users would be needed.

    See Also
    --------
    detectable_difference : the inverse question.

    Notes
    -----
    Starts from statsmodels' solution (``TTestPower.solve_power``), whose
    ceiling can be one user short, and moves to the smallest ``n`` whose
    power (``TTestPower.power``) reaches ``power`` by bisection over the
    integers (the power grows with ``n``).

    References
    ----------
    J. Cohen. Statistical Power Analysis for the Behavioral Sciences. 2nd ed.,
    1988.

    Examples
    --------
    >>> users_needed(0.01, sd=0.3)
    7066
    """
    import warnings

    from statsmodels.stats.power import TTestPower
    from statsmodels.tools import sm_exceptions  # noqa: F401  (sets its warning filters now)

    if isinstance(difference, (bool, np.bool_)) or not isinstance(difference, numbers.Real):
        raise TypeError(
            f"difference must be a number, got {difference!r} of type {type(difference).__name__}"
        )
    if not math.isfinite(difference) or difference == 0:
        raise ValueError(f"difference must be a finite non-zero number, got {difference!r}")
    sd, alpha, power = _check_power_args(sd, alpha, power)
    effect = abs(float(difference)) / sd
    if effect == math.inf:  # beyond 1.8e308 standard deviations: the fewest users do
        return 2
    if effect == 0:  # below 5e-324 standard deviations
        raise ValueError(
            f"a difference of {difference!r} with sd {sd!r} needs more than 2**53 users"
        )

    def reaches(n):
        return _power(effect, n, alpha) >= power

    if reaches(2):
        return 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            guess = float(
                np.ravel(
                    TTestPower().solve_power(
                        effect_size=effect, nobs=None, alpha=alpha, power=power
                    )
                )[0]
            )
        except (ValueError, ArithmeticError):  # pragma: no cover - statsmodels' solver failed
            guess = math.nan
    low, high = 2, 3  # invariant: the power at low is below, at high reaches
    if math.isfinite(guess) and 3 <= guess < MAX_EXACT_INT:
        high = math.ceil(guess)
        if not reaches(high - 1):
            low = high - 1
    while not reaches(high):
        low, high = high, 2 * high
        if high > MAX_EXACT_INT:
            raise ValueError(
                f"a difference of {difference!r} with sd {sd!r} needs more than 2**53 users"
            )
    while high - low > 1:
        mid = (low + high) // 2
        if reaches(mid):
            high = mid
        else:
            low = mid
    return int(high)


# --------------------------------------------------------------------------
# differences measured on repeated splits
def corrected_resampled_ttest(differences, n_train, n_test, *, alternative="two-sided"):
    """Corrected resampled t-test (Nadeau & Bengio, 2003) of differences over repeated splits.

    When two models are compared on ``J`` random train/test splits (or
    ``J`` folds), the per-split differences ``d_j`` are not independent:
    the training sets overlap, so their variance underestimates that of
    the mean, and the ordinary t-test over splits rejects far too often
    (Dietterich 1998). Nadeau & Bengio inflate the variance by the ratio of
    test to training size:

    .. math:: t = \\frac{\\bar d}{\\sqrt{\\left(\\frac{1}{J}
              + \\frac{n_\\text{test}}{n_\\text{train}}\\right) \\hat\\sigma^2}},
              \\qquad \\hat\\sigma^2 = \\frac{1}{J - 1} \\sum_j (d_j - \\bar d)^2

    compared with Student's t with ``J - 1`` degrees of freedom
    (``scipy.stats.t``).

    Parameters
    ----------
    differences : array-like, pandas.Series or pandas.DataFrame
        One difference (model A minus model B) per split, at least 2 splits,
        no NaN; a DataFrame: one column per metric, tested separately.
    n_train, n_test : int or float
        Sizes of each split's training and test sets (users or
        interactions, as split); only their ratio enters, so the fractions
        (0.8, 0.2) work too. Finite and > 0.
    alternative : {'two-sided', 'greater', 'less'}, default 'two-sided'
        ``'greater'``: the alternative is that the mean difference is > 0.

    Returns
    -------
    ResampledTTestResult or pandas.DataFrame
        One result for 1-D input or a one-column frame, else a DataFrame
        indexed by metric name.

    Raises
    ------
    TypeError
        For non-numeric differences or sizes.
    ValueError
        For fewer than 2 splits, NaN or infinite differences, sizes <= 0,
        an unknown alternative.

    See Also
    --------
    paired_test : for per-user values from one split.

    Notes
    -----
    When every split gives the same difference ``c`` the variance is 0: the
    result is ``t = 0, p = 1`` for ``c = 0``, else ``t = +-inf`` and
    ``p = 0`` (``1`` against the other one-sided alternative). For ``J``
    folds of a ``J``-fold cross-validation, ``n_test / n_train = 1 / (J - 1)``.

    References
    ----------
    C. Nadeau and Y. Bengio. Inference for the Generalization Error. Machine
    Learning 52(3), 239-281, 2003. T. G. Dietterich. Approximate Statistical
    Tests for Comparing Supervised Classification Learning Algorithms.
    Neural Computation 10(7), 1998. R. R. Bouckaert and E. Frank. Evaluating
    the Replicability of Significance Tests for Comparing Learning
    Algorithms. PAKDD 2004.

    Examples
    --------
    Ten random 80/20 splits (the uncorrected t-test over splits gives t = 5.14 and
    p = 0.0006):

    >>> d = [0.012, 0.004, 0.019, 0.008, 0.015, -0.002, 0.011, 0.007, 0.016, 0.010]
    >>> r = corrected_resampled_ttest(d, n_train=0.8, n_test=0.2)
    >>> round(r.statistic, 3), round(r.pvalue, 4), r.df
    (2.75, 0.0225, 9)
    """
    check_choice(alternative, "alternative", _ALTERNATIVES)
    n_train = check_positive_number(n_train, "n_train")
    n_test = check_positive_number(n_test, "n_test")
    frame, _ = _as_frame(differences, "differences")
    ratio = n_test / n_train
    results = {}
    for col in frame.columns:
        d = frame[col].to_numpy()
        label = "differences" if frame.shape[1] == 1 else f"differences[{col!r}]"
        nan = np.isnan(d)
        if nan.any():
            raise ValueError(
                f"{label} holds NaN for the split {frame.index[int(np.argmax(nan))]!r}"
            )
        n_splits = int(d.shape[0])
        if n_splits < 2:
            raise ValueError(f"{label} must hold at least 2 splits, got {n_splits}")
        df = n_splits - 1
        factor = 1.0 / n_splits + ratio
        if np.all(d == d[0]):
            statistic, p = _degenerate(float(d[0]), alternative)
            se = 0.0
        else:
            scaled = _scaled(d)
            statistic = float(np.mean(scaled) / math.sqrt(factor * float(np.var(scaled, ddof=1))))
            if alternative == "greater":
                p = float(stats.t.sf(statistic, df))
            elif alternative == "less":
                p = float(stats.t.cdf(statistic, df))
            else:
                p = min(1.0, 2.0 * float(stats.t.sf(abs(statistic), df)))
            se = math.sqrt(factor * float(np.var(d, ddof=1)))
        results[col] = ResampledTTestResult(
            statistic=float(statistic),
            pvalue=float(p),
            mean_difference=float(np.mean(d)),
            standard_error=float(se),
            df=df,
            n_splits=n_splits,
            alternative=alternative,
        )
    return _one_or_table(results, len(results) == 1)


# --------------------------------------------------------------------------
# several models at once
def compare(
    per_user_by_model,
    *,
    baseline=None,
    test="t",
    correction="holm",
    alpha=0.05,
    level=0.95,
    ci_method="bca",
    n_resamples=10_000,
    seed=0,
    missing="raise",
    nan="drop",
):
    """Several models on several metrics: means, intervals, and tests against a baseline.

    Parameters
    ----------
    per_user_by_model : dict of str -> pandas.DataFrame
        For each model (at least two), its per-user values
        (``evaluate(..., per_user=True)``), the same metrics as columns and
        the same users; or one Series (or array) per model for a single
        metric, labelled by the Series' name.
    baseline : str, optional
        The model the others are compared with (default: the first).
    test : {'t', 'wilcoxon', 'sign', 'randomization'}, default 't'
        The paired test (see :func:`paired_test`).
    correction : {'holm', 'bonferroni', 'bh', 'none'}, default 'holm'
        Adjustment over all (model, metric) tests (see :func:`adjust_pvalues`).
    alpha : float, default 0.05
        Level at which an adjusted p-value counts as significant, in (0, 1).
    level, ci_method : float, str
        The interval of each mean (see :func:`bootstrap_ci`).
    n_resamples : int, default 10000
        Resamples of the bootstrap intervals and of a randomization test.
    seed : None, int or numpy.random.Generator, default 0
        An integer seeds every interval and test afresh (each model's users
        are resampled with the same draws); a Generator is drawn from in
        turn; ``None`` draws one seed from fresh OS entropy and then acts as
        that integer.
    missing, nan : str
        As in :func:`paired_test`.

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (model, metric), with the columns ``model``,
        ``metric``, ``mean``, ``ci_low``, ``ci_high``, ``difference`` (to the
        baseline), ``pvalue``, ``pvalue_adjusted`` (``float64``, NaN for the
        baseline itself) and ``significant`` (``bool``, False for the
        baseline).

    Raises
    ------
    TypeError
        For ``per_user_by_model`` that is not a dict, values that are not
        per-user numbers, arguments of the wrong type.
    ValueError
        For fewer than two models, an unknown baseline or option, ``alpha``
        or ``level`` outside (0, 1), models with different metrics, and as in
        :func:`paired_test` and :func:`bootstrap_ci`.

    See Also
    --------
    significance_table : the same as a printable table with marks.

    References
    ----------
    B. Carterette. Multiple testing in statistical analysis of systems-based
    information retrieval experiments. ACM TOIS 30(1), 2012.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = pd.DataFrame({"ndcg@10": rng.random(200), "recall@10": rng.random(200)})
    >>> better = base + rng.normal(0.05, 0.1, base.shape)
    >>> table = compare({"pop": base, "als": better}, n_resamples=1000)
    >>> table.loc[table["model"] == "als", ["metric", "significant"]].values.tolist()
    [['ndcg@10', True], ['recall@10', True]]
    """
    if not isinstance(per_user_by_model, Mapping):
        raise TypeError(
            "per_user_by_model must be a dict of model name -> per-user values, got "
            f"{type(per_user_by_model).__name__}"
        )
    if len(per_user_by_model) < 2:
        raise ValueError(
            "per_user_by_model must hold at least two models (a baseline and one to compare "
            f"with it), got {len(per_user_by_model)}"
        )
    names = list(per_user_by_model)
    if baseline is None:
        baseline = names[0]
    elif not isinstance(baseline, Hashable):
        raise TypeError(f"baseline must be a model name, got {type(baseline).__name__}")
    if baseline not in per_user_by_model:
        raise ValueError(f"baseline {baseline!r} is not one of the models {names}")
    check_choice(test, "test", PAIRED_TESTS)
    check_choice(correction, "correction", _ADJUSTMENTS)
    alpha = check_probability(alpha, "alpha")
    level = check_probability(level, "level")
    check_choice(ci_method, "ci_method", _CI_METHODS)
    n_resamples = _check_n_resamples(n_resamples)
    check_seed(seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)
    check_choice(missing, "missing", _MISSING)
    check_choice(nan, "nan", _NAN)

    def label(name):
        return f"per_user_by_model[{name!r}]"

    frames = {name: _as_frame(per_user_by_model[name], label(name)) for name in names}
    if all(f.shape[1] == 1 for f, _ in frames.values()):
        # one metric: named after the baseline's Series (or the first named one)
        given = [frames[baseline][0].columns[0]] + [f.columns[0] for f, _ in frames.values()]
        metric = next((c for c in given if c != "value"), "value")
        frames = {k: (f.set_axis([metric], axis=1), i) for k, (f, i) in frames.items()}
    base, base_indexed = frames[baseline]
    rows = []
    for name in names:
        values, indexed = frames[name]
        if name == baseline:
            tests = None
        else:
            b, a = _align(
                base, base_indexed, values, indexed, missing, (label(baseline), label(name))
            )
            tests = _paired_tests(
                a,
                b,
                test,
                "two-sided",
                n_resamples,
                check_seed(seed),
                nan,
                (label(name), label(baseline)),
            )
            values = values[list(base.columns)]
        cis = _bootstrap(
            _columns_of(values, nan, label(name)),
            level,
            ci_method,
            n_resamples,
            check_seed(seed),
            label(name),
        )
        for metric, ci in cis.items():
            rows.append(
                {
                    "model": name,
                    "metric": metric,
                    "mean": ci.estimate,
                    "ci_low": ci.low,
                    "ci_high": ci.high,
                    "difference": np.nan if tests is None else tests[metric].mean_difference,
                    "pvalue": np.nan if tests is None else tests[metric].pvalue,
                }
            )
    table = pd.DataFrame(rows)
    for col in ("mean", "ci_low", "ci_high", "difference", "pvalue"):
        table[col] = table[col].astype(np.float64)
    tested = table["pvalue"].notna().to_numpy()
    adjusted = np.full(len(table), np.nan)
    adjusted[tested] = adjust_pvalues(table["pvalue"].to_numpy()[tested], correction)
    table["pvalue_adjusted"] = adjusted
    table["significant"] = (table["pvalue_adjusted"] < alpha).astype(bool)
    return table


def significance_table(table, *, digits=4, marks=("*", ""), alpha=None):
    """The tidy output of :func:`compare` as models x metrics, with significance marks.

    Parameters
    ----------
    table : pandas.DataFrame
        The output of :func:`compare` (at least the columns ``model``,
        ``metric``, ``mean`` and ``significant``, or ``pvalue_adjusted``
        with ``alpha``), one row per (model, metric).
    digits : int, default 4
        Decimals of the means, from 0 to 17.
    marks : (str, str), default ('*', '')
        Appended to a mean that differs significantly from the baseline,
        and to one that does not.
    alpha : float, optional
        Re-threshold the adjusted p-values at this level, in (0, 1), instead
        of the ``significant`` column.

    Returns
    -------
    pandas.DataFrame
        Strings such as ``'0.4123*'``; export with ``.to_markdown()`` or
        ``.to_latex()``.

    Raises
    ------
    TypeError
        For a ``table`` that is not a DataFrame, non-numeric means, a
        ``significant`` column that is not boolean, ``digits`` that is not
        an integer, ``marks`` that is not two strings.
    ValueError
        For missing columns, an empty table, a (model, metric) pair given
        twice, ``digits`` outside [0, 17], ``alpha`` outside (0, 1).

    See Also
    --------
    compare

    References
    ----------
    T. Sakai. Statistical reform in information retrieval? SIGIR Forum
    48(1), 2014.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["a", "b"], "metric": ["ndcg", "ndcg"], "mean": [0.3, 0.35],
    ...                   "pvalue_adjusted": [np.nan, 0.01], "significant": [False, True]})
    >>> significance_table(t, digits=2).to_dict()
    {'ndcg': {'a': '0.30', 'b': '0.35*'}}
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            "table must be the DataFrame that recmetrics.stats.compare returns, got "
            f"{type(table).__name__}"
        )
    digits = check_count(digits, "digits", minimum=0, maximum=17)
    if (
        not isinstance(marks, (tuple, list))
        or len(marks) != 2
        or not all(isinstance(m, str) for m in marks)
    ):
        raise TypeError(f"marks must be two strings (significant, not significant), got {marks!r}")
    if alpha is not None:
        alpha = check_probability(alpha, "alpha")
    flag = "significant" if alpha is None else "pvalue_adjusted"
    absent = [c for c in ("model", "metric", "mean", flag) if c not in table.columns]
    if absent:
        raise ValueError(
            f"table lacks the column(s) {absent}: it must be the output of recmetrics.stats.compare"
        )
    if len(table) == 0:
        raise ValueError("table is empty")
    for col in ("mean", "pvalue_adjusted") if alpha is not None else ("mean",):
        dtype = table[col].dtype
        if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
            raise TypeError(f"table[{col!r}] must hold numbers, got dtype {dtype}")
    if alpha is None:
        if not pd.api.types.is_bool_dtype(table["significant"].dtype):
            raise TypeError(
                f"table['significant'] must be booleans, got dtype {table['significant'].dtype}"
            )
        sig = table["significant"].to_numpy(dtype=bool)
    else:
        sig = (table["pvalue_adjusted"] < alpha).to_numpy()
    keys = table[["model", "metric"]]
    if keys.isna().any().any():
        raise ValueError("table has a missing model or metric name")
    if keys.duplicated().any():
        model, metric = keys[keys.duplicated()].iloc[0]
        raise ValueError(f"table has the row (model {model!r}, metric {metric!r}) twice")
    text = [
        f"{m:.{digits}f}{marks[0] if s else marks[1]}"
        for m, s in zip(table["mean"].to_numpy(dtype=np.float64), sig, strict=True)
    ]
    out = table.assign(text=text).pivot(index="model", columns="metric", values="text")
    out = out.loc[pd.unique(table["model"]), pd.unique(table["metric"])]
    out.index.name, out.columns.name = None, None
    return out
