"""Corrected sampled metrics (Krichene & Rendle, 2020): the vectors and their use."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._docs import fill_doc
from .._validation import as_numeric_array, check_bool, check_choice, check_fraction
from ._common import (
    _DENSE_WORK,
    _EPS,
    _ROUNDINGS,
    _SOLVERS,
    CORRECTION_METHODS,
    DEFAULT_GAMMA,
    IllConditionedCorrectionWarning,
    _check_count,
    _check_nm,
    _check_prior,
    _check_ranks,
    _check_rcond,
)
from .distribution import _pmf
from .lstsq import (
    _monotone_lsq,
    _posterior_mean,
    _round_rank,
    _solve_bias_variance,
    _stacked,
    _system_dense,
    _system_quadrature,
    _trust,
)
from .metric import metric_function


@fill_doc
def correction(
    n_items,
    n_samples,
    metric,
    method="bias_variance",
    gamma=None,
    prior=None,
    *,
    replace=True,
    monotone=False,
    rcond=None,
    rounding=None,
    solver="auto",
    return_info=False,
):
    """Corrected metric value for each sampled rank ``r~ = 1..m+1``.

    A user whose relevant item has sampled rank ``r~`` among ``m`` sampled
    irrelevant items scores ``out[r~ - 1]``; averaged over users this
    estimates the metric on the full catalogue of ``n`` items. The
    least-squares methods minimise, over the vector ``x``,

    .. math::

        \\sum_{r=1}^{n} p(r) \\Big( \\big(E[x_{\\tilde r} \\mid r] - M(r)\\big)^2
        + \\gamma \\operatorname{Var}[x_{\\tilde r} \\mid r] \\Big)

    (``gamma = 0``: minimal bias). Methods (Krichene & Rendle 2020, Sec. 5):

    ``"sampled"``
        No correction: ``M_{m+1}(r~)``, the metric on the sampled list.
    ``"unbiased_rank"``
        ``M(r^)`` with the unbiased rank estimate
        ``r^ = 1 + (n - 1)(r~ - 1)/m`` (``E[r^ | r] = r``); ``r^`` is made an
        integer by ``rounding``.
    ``"minimal_bias"``
        The least-squares solution of
        ``min_x sum_r p(r) (E[x_{r~} | r] - M(r))^2 = min_x |A x - b|^2``
        with ``A[r, k] = sqrt(p(r)) P(r~ = k+1 | r)`` (``n x (m+1)``: an
        over-determined system when ``n > m + 1``) and
        ``b_r = sqrt(p(r)) M(r)``.
    ``"bias_variance"``
        Minimises ``sum_r p(r) ((E[x_{r~}|r] - M(r))^2 + gamma Var[x_{r~}|r])``,
        whose solution is
        ``x = ((1 - gamma) A^T A + gamma diag(c))^{-1} A^T b`` with
        ``c_k = sum_r p(r) P(r~ = k+1 | r)``. ``gamma = 0`` is minimal bias,
        ``gamma = 1`` the posterior mean ``E[M(r) | r~]``.
    ``"monotone"``
        The bias-variance objective (default ``gamma = 0``) subject to
        ``x`` non-increasing in ``r~`` (non-decreasing for an increasing
        metric) and inside the metric's range ``[min_r M(r), max_r M(r)]``;
        same as ``monotone=True``.

    Parameters
    ----------
    %(sampled_n_items)s
    %(sampled_n_samples)s
    %(sampled_metric)s
    method : str, default "bias_variance"
        One of :data:`CORRECTION_METHODS`: ``"sampled"``,
        ``"unbiased_rank"``, ``"minimal_bias"``, ``"bias_variance"`` or
        ``"monotone"``, as above.
    gamma : float in [0, 1], optional
        Weight of the variance. Default ``0.01`` for ``"bias_variance"``
        (our choice: small enough to keep the bias near its minimum, large
        enough to tame the variance; see the book's chapter), ``0`` for
        ``"monotone"``; must be 0 or ``None`` for ``"minimal_bias"``; not
        used by ``"sampled"`` and ``"unbiased_rank"``.
    prior : array-like of shape (n_items,), optional
        Weights ``p(r)`` of the true ranks (normalised to sum 1); uniform by
        default, as in the paper.
    %(sampled_replace)s
    monotone : bool, default False
        Add the monotonicity and range constraints to ``"minimal_bias"`` or
        ``"bias_variance"``.
    rcond : float in [0, 1), optional
        ``"minimal_bias"`` only (without ``monotone``): singular values of
        ``A`` below ``rcond * s_max`` are treated as zero, exactly as in
        ``numpy.linalg.lstsq(A, b, rcond)``. Default
        ``eps * max(n, m + 1)``, NumPy's default. The truncated solution is
        determined to about ``3 eps / rcond`` relative to its largest entry
        (the ``estimated_relative_error`` of ``return_info``): with
        ``rcond=1e-6`` to about 1e-10 (measured: below 2e-10 between
        NumPy/OpenBLAS builds with and without AVX-512, for n = 5,000 and
        10,000, m = 100), with ``rcond=1e-8`` only to about 1e-8.
    rounding : {"round", "floor", "ceil", "interpolate"}, optional
        ``"unbiased_rank"`` only (default ``"round"``): how ``r^`` becomes a rank ("round" is
        half up; "interpolate" is linear between the neighbouring ranks,
        which keeps AUC exactly unbiased).
    solver : {"auto", "quadrature", "dense"}, default "auto"
        How the least-squares system is formed; see Notes. ``"auto"`` uses
        ``"dense"`` when fewer than ``2 (m + 1)`` ranks have positive prior
        weight (a square or under-determined system) or when the dense
        system is small (that number of ranks times ``(m + 1)**2`` at most
        2e7, e.g. ``n = 10000`` with ``m <= 43``), else ``"quadrature"``.
    return_info : bool, default False
        Also return a dict with the solver, the singular values of ``A``, its
        condition number, the numerical rank, ``rcond``, an estimate of the
        relative error of the result and the residual norm.

    Returns
    -------
    numpy.ndarray of shape (m + 1,)
        ``out[i]`` is the corrected value for sampled rank ``i + 1``.
    dict
        Only with ``return_info=True``.

    Raises
    ------
    ValueError
        For an option that does not apply to ``method`` (``gamma``,
        ``rounding``, ``rcond``, ``prior``, ``monotone``), out-of-range
        sizes, or ``monotone=True`` with a metric that is not monotone in
        the rank.

    Warns
    -----
    IllConditionedCorrectionWarning
        ``"minimal_bias"``: when ``3 eps s_max / s_min`` over the singular
        values kept exceeds ``1e-6`` (the result is then not reliable to six
        digits: two correct algorithms disagree; the factor 3 is measured),
        or when the default ``rcond`` discarded singular values (the result
        then depends on the threshold). An explicit ``rcond`` that discards
        them is a choice, not an accident: the truncated solution is then
        determined to about ``3 eps / rcond`` (see ``rcond``) and matches
        ``numpy.linalg.lstsq`` on the dense ``A`` to that accuracy.

    See Also
    --------
    corrected_metric : Apply the vector to observed sampled ranks.
    estimator_bias_variance : Bias and variance of the vector per true rank.
    expected_metric : The expectation of the uncorrected sampled metric.

    Notes
    -----
    **What is computed.** Minimal bias is ``lstsq(A, b, rcond)``: the
    minimum-norm least-squares solution after discarding singular values
    below ``rcond * s_max``. The system is badly conditioned: every column
    of ``A`` is a polynomial of degree ``m`` in ``r`` (a Bernstein
    polynomial under the binomial model), and ``cond(A)`` grows like
    ``2^m`` (about ``5e5`` at ``m = 20``, ``5e8`` at ``m = 30``, ``5e11``
    at ``m = 40``): the digits of the minimal-bias vector that double
    precision determines fall with ``m`` (about three at ``m = 40``, none
    from about ``m = 50``, as the sampled-correction chapter measures),
    whatever the algorithm, and its entries are huge with alternating signs.
    ``A^T A`` is never formed nor inverted for it. Bias-variance with
    ``gamma > 0`` is well conditioned (``c_k > 0`` regularises it): its
    normal equations are solved by a Cholesky factorisation when their
    condition bound ``max(c) / (gamma min(c))`` is at most ``1e8``, and as
    a stacked least-squares problem (SVD) otherwise.

    **How** (``solver="quadrature"``). Let ``psi_0..psi_m`` be the
    orthonormal polynomials of the prior on the nodes ``x_r = (r-1)/(n-1)``
    (closed-form recurrence for the uniform prior, the discrete Chebyshev
    polynomials; Stieltjes procedure otherwise) and ``(t_i, w_i)`` its
    ``(m+1)``-point Gauss rule, with ``V`` the eigenvectors of the Jacobi
    matrix (Golub-Welsch). Because ``A[:, k] / sqrt(p)`` is a polynomial of
    degree ``m``, ``A = Q G`` exactly, with ``Q`` orthonormal,
    ``G[i, k] = sqrt(w_i) P(r~ = k+1 | r = 1 + (n-1) t_i)`` and
    ``Q^T b = V^T y``, ``y_j = sum_r p(r) psi_j(x_r) M(r)``. So the
    ``n``-row problem is the ``(m+1)``-row problem ``min |G x - V^T y|``
    with the same singular values, solved by SVD (``numpy.linalg.lstsq``).
    Cost: ``O(n m)`` time for ``y`` (``O(k m)`` for a metric with cutoff
    ``k`` under the uniform prior) and ``O(m^3)`` for the Gauss rule and the
    small solve; memory ``O(m^2)`` plus ``O(n)`` for the metric values (and
    the prior). ``solver="dense"`` forms ``A`` in blocks of rows and reduces
    it with a streaming QR (TSQR) when it does not fit in one block of
    2e6 entries; ``O(n m^2)`` time, ``O(block m + m^2)`` memory.

    Examples
    --------
    >>> v = correction(10_000, 99, "auc", method="unbiased_rank", rounding="interpolate")
    >>> v[:3].round(4).tolist()
    [1.0, 0.9899, 0.9798]
    >>> x = correction(10_000, 100, "recall@10", gamma=0.01)
    >>> x.shape, round(float(x[0]), 4)
    ((101,), 0.4044)

    References
    ----------
    %(ref_krichene2020)s

    %(ref_krichene2022)s

    %(ref_gautschi2004)s

    %(ref_golub1969)s

    %(ref_lawson1974)s
    """
    n, m, replace = _check_nm(n_items, n_samples, replace)
    check_choice(method, "method", CORRECTION_METHODS)
    if rounding is not None:
        check_choice(rounding, "rounding", _ROUNDINGS)
        if method != "unbiased_rank":
            raise ValueError(
                f"rounding applies only to method='unbiased_rank', not to method={method!r}"
            )
    else:
        rounding = "round"
    check_choice(solver, "solver", _SOLVERS)
    monotone = check_bool(monotone, "monotone")
    return_info = check_bool(return_info, "return_info")
    if method == "monotone":
        monotone = True
    least_squares = method in ("minimal_bias", "bias_variance", "monotone")
    if gamma is not None:
        gamma = check_fraction(gamma, "gamma")
        if not least_squares:
            raise ValueError(
                f"gamma applies only to the least-squares methods, not to method={method!r}"
            )
        if method == "minimal_bias" and gamma != 0:
            raise ValueError(
                f"method='minimal_bias' is gamma = 0; use method='bias_variance' for gamma={gamma}"
            )
    elif least_squares:
        gamma = DEFAULT_GAMMA if method == "bias_variance" else 0.0
    if monotone and not least_squares:
        raise ValueError(
            f"monotone=True applies to the least-squares methods, not to method={method!r}"
        )
    if rcond is not None:
        rcond = _check_rcond(rcond)
        if method != "minimal_bias" or monotone:
            raise ValueError(
                "rcond applies only to the unconstrained minimal-bias solve "
                "(method='minimal_bias', "
                f"monotone=False), not to method={method!r}, monotone={monotone}"
            )
    p = _check_prior(prior, n)
    if p is not None and not least_squares:
        raise ValueError(
            f"prior applies only to the least-squares methods, not to method={method!r}"
        )

    info = {"method": method, "gamma": gamma, "solver": None}
    if method == "sampled":
        out = metric_function(metric, m + 1)(np.arange(1, m + 2))
        return (out, info) if return_info else out
    full = metric_function(metric, n)
    if method == "unbiased_rank":
        rhat = 1.0 + (n - 1.0) * np.arange(m + 1) / m
        if rounding == "interpolate":
            lo = np.floor(rhat).astype(np.int64)
            hi = np.minimum(lo + 1, n)
            frac = rhat - lo
            out = (1 - frac) * full(lo) + frac * full(hi)
        else:
            out = full(_round_rank(rhat, rounding, n))
        return (out, info) if return_info else out

    mvals = full(np.arange(1, n + 1))
    support = n if p is None else int(np.count_nonzero(p))
    small = support < 2 * (m + 1) or support * (m + 1) ** 2 <= _DENSE_WORK
    use = solver if solver != "auto" else ("dense" if small else "quadrature")
    if use == "quadrature" and support < m + 1:
        raise ValueError(
            f"solver='quadrature' needs at least n_samples + 1 = {m + 1} ranks with positive "
            "prior weight, "
            f"got {support}; use solver='dense'"
        )
    system = (
        _system_quadrature(n, m, replace, p, mvals)
        if use == "quadrature"
        else _system_dense(n, m, replace, p, mvals)
    )
    info["solver"] = use
    lo_val, hi_val = float(mvals.min()), float(mvals.max())

    if monotone:
        if not (np.all(np.diff(mvals) <= 0) or np.all(np.diff(mvals) >= 0)):
            raise ValueError("monotone=True needs a metric that is monotone in the rank")
        decreasing = bool(mvals[0] >= mvals[-1])
        if gamma == 0:
            G, z = system.G, system.z
        elif gamma < 1:
            G, z = _stacked(system, gamma)
        else:  # gamma = 1: minimise sum_k c_k (x_k - q_k)^2 with q the posterior mean
            q = _posterior_mean(system)
            G, z = np.diag(np.sqrt(system.c)), np.sqrt(system.c) * q
        out = _monotone_lsq(G, z, lo_val, hi_val, decreasing)
    elif gamma == 1:
        out = _posterior_mean(system)
    elif gamma > 0:
        out = _solve_bias_variance(system, gamma)
    else:
        rc = _EPS * max(n, m + 1) if rcond is None else rcond
        if system.A is not None:  # the dense system itself: exactly numpy.linalg.lstsq(A, b, rcond)
            out, _, rank, sv = np.linalg.lstsq(system.A, system.b, rcond=rc)
        else:
            out, _, rank, sv = np.linalg.lstsq(system.G, system.z, rcond=rc)
        info.update(_trust(sv, rank, rc, system, out, system.G, system.z))
        if info["rank"] < system.structural_rank and rcond is None:
            info["warn"] = True  # singular values discarded by the default threshold, not by choice
        if info["warn"]:
            warnings.warn(
                f"minimal-bias correction (n={n}, m={m}) is not reliable: cond(A) = "
                f"{info['cond']:.1e}, "
                f"numerical rank {rank} of {system.structural_rank}, estimated relative error "
                f"{info['estimated_relative_error']:.1e}; the vector depends on rounding errors "
                "and on rcond. "
                "Use method='bias_variance' with gamma > 0 or method='monotone'.",
                IllConditionedCorrectionWarning,
                stacklevel=2,
            )
    if return_info and "singular_values" not in info:
        sv = np.linalg.svd(system.G, compute_uv=False)
        info.update(
            _trust(
                sv,
                int(np.sum(sv > _EPS * max(n, m + 1) * sv[0])),
                0.0,
                system,
                out,
                system.G,
                system.z,
            )
        )
        info["warn"] = False
    info.pop("warn", None)
    return (out, info) if return_info else out


# the options of correction() that corrected_metric passes on, with their defaults
_CORRECTION_OPTIONS = {
    "method": "bias_variance",
    "gamma": None,
    "prior": None,
    "replace": True,
    "monotone": False,
    "rcond": None,
    "rounding": None,
    "solver": "auto",
}


def _is_default(value, default) -> bool:
    """Whether an option was left at its default (identity for None and bools)."""
    if default is None or isinstance(default, bool):
        return value is default
    return isinstance(value, str) and value == default


@fill_doc
def corrected_metric(
    sampled_ranks,
    n_items,
    n_samples,
    metric,
    *,
    per_user=False,
    values=None,
    method="bias_variance",
    gamma=None,
    prior=None,
    replace=True,
    monotone=False,
    rcond=None,
    rounding=None,
    solver="auto",
):
    """Apply a correction to observed sampled ranks.

    .. math:: \\hat M = \\frac{1}{|U|} \\sum_{u \\in U} \\hat x_{\\tilde r_u}

    Looks up the vector ``x^ = correction(n_items, n_samples, metric,
    method=..., ...)`` (or the given ``values``) at each user's sampled rank
    ``r~_u`` and averages over the last axis (users).

    Parameters
    ----------
    sampled_ranks : array-like of int
        Sampled ranks in ``1..n_samples + 1``; 1-D (users) or 2-D
        (repetitions x users), e.g. from :func:`sample_ranks`.
    %(sampled_n_items)s
    %(sampled_n_samples)s
    %(sampled_metric)s
    per_user : bool, default False
        Return the corrected value of every user instead of the mean.
    values : array-like of shape (n_samples + 1,), optional
        A precomputed correction vector (from :func:`correction`), used
        instead of computing one; the options below must then be left at
        their defaults (``TypeError`` otherwise).
    method : str, default "bias_variance"
        The correction method, one of :data:`CORRECTION_METHODS` (see
        :func:`correction`, as for every option below).
    gamma : float in [0, 1], optional
        Weight of the variance (default 0.01 for ``"bias_variance"``, 0 for
        ``"monotone"``).
    prior : array-like of shape (n_items,), optional
        Weights of the true ranks (uniform by default).
    %(sampled_replace)s
    monotone : bool, default False
        Constrain the vector to be monotone and within the metric's range.
    rcond : float in [0, 1), optional
        Cut-off for small singular values (``"minimal_bias"`` only).
    rounding : {"round", "floor", "ceil", "interpolate"}, optional
        How the unbiased rank estimate becomes a rank (``"unbiased_rank"``
        only; default ``"round"``).
    solver : {"auto", "quadrature", "dense"}, default "auto"
        How the least-squares system is formed.

    Returns
    -------
    float or numpy.ndarray
        The mean over users (one per repetition for 2-D input), or the
        per-user values.

    See Also
    --------
    correction : The vector of corrected values.
    sample_ranks : Simulated sampled ranks.
    expected_metric : The exact expectation of the uncorrected metric.

    References
    ----------
    %(ref_krichene2020)s

    Examples
    --------
    >>> corrected_metric([1, 1, 2], 10_000, 99, "auc", method="sampled")
    0.9966329966329966
    >>> v = correction(10_000, 99, "auc", method="sampled")
    >>> corrected_metric([1, 1, 2], 10_000, 99, "auc", values=v)   # the same vector, given
    0.9966329966329966
    >>> ranks = [[1, 1, 2], [3, 1, 1]]   # two repetitions of three users
    >>> corrected_metric(ranks, 10_000, 99, "ndcg@10", method="unbiased_rank").round(4).tolist()
    [0.6667, 0.6667]
    """
    m = _check_count(n_samples, "n_samples")
    per_user = check_bool(per_user, "per_user")
    s = _check_ranks(sampled_ranks, m + 1, "sampled_ranks", ndim=(1, 2))
    options = {
        "method": method,
        "gamma": gamma,
        "prior": prior,
        "replace": replace,
        "monotone": monotone,
        "rcond": rcond,
        "rounding": rounding,
        "solver": solver,
    }
    if values is None:
        values = correction(n_items, n_samples, metric, **options)
    else:
        passed = [
            name
            for name, value in options.items()
            if not _is_default(value, _CORRECTION_OPTIONS[name])
        ]
        if passed:
            raise TypeError(f"values= excludes the options {sorted(passed)}")
        values = as_numeric_array(values, "values", ndim=1)
        if values.shape[0] != m + 1:
            raise ValueError(
                f"values must have n_samples + 1 = {m + 1} entries, got {values.shape[0]}"
            )
    out = values[s - 1]
    if per_user:
        return out
    mean = out.mean(axis=-1)
    return float(mean) if mean.ndim == 0 else mean


@fill_doc
def estimator_bias_variance(values, ranks, n_items, metric, replace=True) -> pd.DataFrame:
    """Bias and variance of a corrected metric as a function of the true rank.

    For a vector ``values`` indexed by the sampled rank (``m + 1`` entries),
    ``E[values[r~] | r]`` and ``Var[values[r~] | r]`` under the sampling
    model, against the true metric ``M(r)``:

    .. math::

        E[x_{\\tilde r} \\mid r] = \\sum_{i=1}^{m+1} P(\\tilde r = i \\mid r)\\, x_i,
        \\qquad \\mathrm{bias}(r) = E[x_{\\tilde r} \\mid r] - M(r),
        \\qquad \\mathrm{rmse}(r) = \\sqrt{\\mathrm{bias}(r)^2
        + \\operatorname{Var}[x_{\\tilde r} \\mid r]}.

    Parameters
    ----------
    values : array-like of shape (m + 1,)
        The metric value assigned to each sampled rank ``1..m+1`` (for
        instance from :func:`correction`); ``m >= 1``.
    ranks : int or array-like of int
        True ranks ``r`` in ``1..n_items`` at which to evaluate.
    %(sampled_n_items)s
    %(sampled_metric)s
    %(sampled_replace)s

    Returns
    -------
    pandas.DataFrame
        Indexed by ``rank``, columns ``metric`` (``M(r)``), ``expected``,
        ``bias``, ``variance``, ``rmse`` (root of bias^2 + variance).

    See Also
    --------
    correction : Vectors that trade bias for variance.
    rank_distribution : The distribution ``P(r~ = i | r)``.

    References
    ----------
    %(ref_krichene2020)s

    Examples
    --------
    >>> x = correction(1000, 20, "auc", method="unbiased_rank", rounding="interpolate")
    >>> estimator_bias_variance(x, [1, 500], 1000, "auc")["bias"].abs().max() < 1e-12
    np.True_

    The uncorrected sampled Recall@10 (``m = 20``) overestimates badly at
    true rank 50:

    >>> x = correction(1000, 20, "recall@10", method="sampled")
    >>> estimator_bias_variance(x, [1, 50, 200], 1000, "recall@10").round(3)
          metric  expected   bias  variance   rmse
    rank
    1        1.0     1.000  0.000     0.000  0.000
    50       0.0     1.000  1.000     0.000  1.000
    200      0.0     0.997  0.997     0.003  0.999
    """
    v = as_numeric_array(values, "values", ndim=1)
    m = v.shape[0] - 1
    if m < 1:
        raise ValueError("values must have at least 2 entries (one per sampled rank 1..m+1)")
    n, m, replace = _check_nm(n_items, m, replace)
    r = _check_ranks(ranks, n, "ranks", ndim=1)
    P = _pmf(r, n, m, replace)
    mean = P @ v
    var = np.maximum(P @ (v * v) - mean * mean, 0.0)
    true = metric_function(metric, n)(r)
    bias = mean - true
    frame = pd.DataFrame(
        {
            "metric": true,
            "expected": mean,
            "bias": bias,
            "variance": var,
            "rmse": np.sqrt(bias * bias + var),
        },
        index=pd.Index(r, name="rank"),
    )
    return frame
