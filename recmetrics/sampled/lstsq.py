"""The least-squares numerics behind the corrections.

The ``n x (m + 1)`` system of a correction is compressed to ``(m + 1)`` rows
by an exact Gauss-quadrature reduction (the columns are polynomials in the
rank), or formed densely when small; solvers for minimal bias, the
bias-variance trade-off and the monotone variant, and the trust estimate.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ._common import _BLOCK, _EPS, _TRUST
from .distribution import _binom_pmf, _pmf, _rank_block

# ---------------------------------------------------------------------------
# Corrections
# ---------------------------------------------------------------------------


def _binomial_basis(t, m):
    """``B[i, k] = C(m, k) t_i^k (1 - t_i)^(m - k)`` at real nodes ``t``."""
    t = np.asarray(t, dtype=np.float64)[:, None]
    return _binom_pmf(m, t, 1.0 - t)


def _log_binom_poly(z, jmax):
    """log|C(z, j)| and sign of C(z, j) = z (z-1) ... (z-j+1) / j!, j = 0..jmax, real z."""
    d = z[:, None] - np.arange(jmax)[None, :]
    with np.errstate(divide="ignore"):
        logs = np.log(np.abs(d))
    zero = np.zeros((z.shape[0], 1))
    lg = np.concatenate([zero, np.cumsum(logs, axis=1)], axis=1) - special.gammaln(
        np.arange(jmax + 1) + 1.0
    )
    neg = np.concatenate([zero, np.cumsum(d < 0, axis=1)], axis=1)
    return lg, np.where(neg % 2 == 1, -1.0, 1.0)


def _hypergeometric_basis(rank, n, m):
    """``H[i, k] = C(r_i-1, k) C(n-r_i, m-k) / C(n-1, m)`` at real ``r_i`` (degree m in r)."""
    rank = np.asarray(rank, dtype=np.float64)
    l1, s1 = _log_binom_poly(rank - 1.0, m)
    l2, s2 = _log_binom_poly(n - rank, m)
    lognorm = np.sum(np.log(n - 1.0 - np.arange(m))) - special.gammaln(m + 1.0)
    return s1 * s2[:, ::-1] * np.exp(l1 + l2[:, ::-1] - lognorm)


def _uniform_recurrence(n, m):
    """Recurrence coefficients of the uniform distribution's orthonormal polynomials.

    The distribution is uniform on ``x_r = (r - 1)/(n - 1)``, ``r = 1..n`` (discrete Chebyshev /
    Gram polynomials, Gautschi 2004, Table 1.2): ``alpha_j = 1/2``,
    ``beta_j = j^2 (n^2 - j^2) / (4 (4 j^2 - 1) (n - 1)^2)``, ``beta_0 = 1``.
    """
    j = np.arange(1, m + 1, dtype=np.float64)
    beta = j * j * (float(n) * n - j * j) / (4.0 * (4.0 * j * j - 1.0)) / (n - 1.0) ** 2
    return np.full(m + 1, 0.5), beta


def _project_uniform(n, m, weights):
    """``y_j = sum_r w_r psi_j(x_r)`` for the orthonormal Gram polynomials ``psi_j``.

    ``weights`` is ``w`` over ``r = 1..n``. Only ranks where ``w`` (or ``w`` at
    the mirrored rank) is non-zero are visited, and the symmetry
    ``psi_j(1 - x) = (-1)^j psi_j(x)`` halves the work. The recurrence runs on
    ``phi_j = 4^j pi_j`` (``pi_j`` monic), which stays of order one on
    ``[0, 1]``: ``phi_{j+1} = 4 (x - 1/2) phi_j - 16 beta_j phi_{j-1}``; then
    ``psi_j = phi_j / ||phi_j||`` with ``||phi_j||^2 = prod_{i <= j} 16 beta_i``.
    Blocks of 8192 nodes keep the vectors in cache (and below OpenBLAS's
    threading threshold for dot products, which only adds contention here).
    """
    _, beta = _uniform_recurrence(n, m)
    c = 16.0 * beta
    log_norm = 0.5 * np.concatenate([[0.0], np.cumsum(np.log(c))])
    h = (n + 1) // 2
    mirrored = weights[::-1][:h]
    keep = (weights[:h] != 0) | (mirrored != 0)
    lower = np.flatnonzero(keep) + 1
    w_lo, w_hi = weights[lower - 1], mirrored[lower - 1]
    w_hi = np.where(n + 1 - lower != lower, w_hi, 0.0)  # the middle rank (n odd) counts once
    y = np.zeros(m + 1)
    for s in range(0, lower.shape[0], _BLOCK):
        rr = lower[s : s + _BLOCK]
        even = w_lo[s : s + _BLOCK] + w_hi[s : s + _BLOCK]
        odd = w_lo[s : s + _BLOCK] - w_hi[s : s + _BLOCK]
        x4 = 4.0 * ((rr - 1.0) / (n - 1.0) - 0.5)
        prev = np.zeros(rr.shape[0])
        cur = np.ones(rr.shape[0])
        tmp = np.empty(rr.shape[0])
        y[0] += even.sum()
        for j in range(m):
            np.multiply(x4, cur, out=tmp)
            if j:
                prev *= -c[j - 1]
                tmp += prev
            prev, cur, tmp = cur, tmp, prev
            y[j + 1] += (odd if j % 2 == 0 else even) @ cur
    return y * np.exp(-log_norm)


def _dot(a, b):
    """Dot product of long vectors without OpenBLAS threads (einsum: one core, SIMD)."""
    return float(np.einsum("i,i->", a, b))


def _stieltjes(x, p, pm, m):
    """Discretised Stieltjes procedure for the measure sum_r p_r delta(x_r).

    Returns the recurrence coefficients of the orthonormal polynomials
    ``psi_0..psi_m`` and ``y_j = sum_r pm_r psi_j(x_r)``, in O(len(x) * m)
    time and two vectors of memory. Each step is one pass over blocks of
    8192 nodes (cache-sized): it forms
    ``u = (x - alpha_j) psi_j - sqrt(beta_j) psi_{j-1}`` in place of
    ``psi_{j-1}`` and accumulates ``sum p u^2``, ``sum p x u^2`` and
    ``sum pm u``, from which ``beta_{j+1}``, ``alpha_{j+1}`` and ``y_{j+1}``
    follow after normalisation. For the uniform prior the computed
    coefficients agree with the closed form to ~1e-14 up to n = 10^6,
    m = 1000 (Gautschi 2004, Sec. 2.2.3, on the stability of the procedure
    for discrete measures with m much smaller than the number of nodes).
    """
    alpha = np.empty(m + 1)
    beta = np.empty(m)
    y = np.empty(m + 1)
    size = x.shape[0]
    blocks = [slice(s, min(size, s + _BLOCK)) for s in range(0, size, _BLOCK)]
    prev = np.zeros(size)
    cur = np.ones(size)
    y[0] = sum(float(pm[b].sum()) for b in blocks)
    alpha[0] = sum(float(p[b] @ x[b]) for b in blocks)
    sb = 0.0
    for j in range(m):
        a = alpha[j]
        s2 = sx = sy = 0.0
        for b in blocks:
            u = (x[b] - a) * cur[b]
            if j:
                u -= sb * prev[b]
            prev[b] = u
            pu = p[b] * u
            s2 += float(pu @ u)
            sx += float((pu * x[b]) @ u)
            sy += float(pm[b] @ u)
        if not s2 > 0:
            raise ValueError("prior has fewer than n_samples + 1 ranks with positive weight")
        nb = float(np.sqrt(s2))
        prev *= 1.0 / nb
        prev, cur = cur, prev
        beta[j] = s2
        alpha[j + 1] = sx / s2
        y[j + 1] = sy / nb
        sb = nb
    return alpha, beta, y


class _System:
    """The least-squares system of a correction, in compressed form.

    ``A`` (n x (m+1), ``A[r, k] = sqrt(p(r)) P(r~ = k+1 | r)``) and ``b``
    (``b_r = sqrt(p(r)) M(r)``) are replaced by a small ``G`` and ``z`` with
    ``A = Q G`` and ``Q^T b = z`` for some ``Q`` with orthonormal columns, so
    that ``|A x - b|^2 = |G x - z|^2 + (|b|^2 - |z|^2)`` for every ``x``, ``G``
    has the singular values and right singular vectors of ``A``, and
    ``A^T b = G^T z``. Also ``c_k = sum_r p(r) P(r~ = k+1 | r)``.
    """

    def __init__(self, G, z, c, b_sq, solver, structural_rank, A=None, b=None, atb=None):
        self.G, self.z, self.c, self.b_sq = G, z, c, b_sq
        self.atb = G.T @ z if atb is None else atb
        self.solver = solver
        self.structural_rank = structural_rank
        self.A, self.b = A, b  # the dense system itself, when it was formed in one block


def _system_quadrature(n, m, replace, p, mvals):
    from scipy import linalg as sla  # imported on first use

    # 1. orthonormal polynomials of the prior and the projection y of M on them
    if p is None:
        alpha, beta = _uniform_recurrence(n, m)
        y = _project_uniform(n, m, mvals / n)
        b_sq = _dot(mvals, mvals) / n
    else:
        idx = np.flatnonzero(p > 0)
        x = idx / (n - 1.0)
        alpha, beta, y = _stieltjes(x, p[idx], p[idx] * mvals[idx], m)
        b_sq = float(p[idx] @ (mvals[idx] ** 2))
    # 2. Gauss rule of the prior (Golub-Welsch): exact for degree <= 2m + 1
    nodes, vecs = sla.eigh_tridiagonal(alpha, np.sqrt(beta))
    vecs = vecs * np.where(vecs[0] < 0, -1.0, 1.0)
    sqrt_w = vecs[0]
    nodes = np.clip(nodes, 0.0, 1.0)
    # 3. A^T A = G^T G with G = diag(sqrt w) P(t) (every entry of A^T A is a
    #    polynomial of degree 2m integrated against the prior); z = V^T y
    basis = (
        _binomial_basis(nodes, m)
        if replace
        else _hypergeometric_basis(1.0 + (n - 1.0) * nodes, n, m)
    )
    G = sqrt_w[:, None] * basis
    c = (sqrt_w * sqrt_w) @ basis
    return _System(
        G, vecs.T @ y, c, b_sq, "quadrature", m + 1, atb=_direct_atb(n, m, replace, p, mvals)
    )


def _direct_atb(n, m, replace, p, mvals):
    """``A^T b = sum_r p(r) M(r) P(. | r)``, summed directly.

    Used when ``M`` is non-zero on few ranks (metrics with a cutoff): a sum of
    terms of one sign, accurate entry by entry, where ``G^T z`` is accurate
    only relative to its largest entry. ``None`` when that would cost more than 2e5 pmf evaluations
    (then the cost stays O(n m) with a small constant).
    """
    rows = np.flatnonzero(mvals if p is None else mvals * p) + 1
    if rows.shape[0] * (m + 1) > 2e5:
        return None
    weight = mvals[rows - 1] * (1.0 / n if p is None else p[rows - 1])
    out = np.zeros(m + 1)
    step = _rank_block(max(rows.shape[0], 1), m)
    for s in range(0, rows.shape[0], step):
        out += weight[s : s + step] @ _pmf(rows[s : s + step], n, m, replace)
    return out


def _system_dense(n, m, replace, p, mvals):
    rows = np.arange(1, n + 1) if p is None else np.flatnonzero(p > 0) + 1
    weight = np.full(rows.shape[0], 1.0 / n) if p is None else p[rows - 1]
    R = np.zeros((0, m + 2))
    c = np.zeros(m + 1)
    atb = np.zeros(m + 1)
    step = _rank_block(rows.shape[0], m)
    A = b = None
    for s in range(0, rows.shape[0], step):
        rr, ww = rows[s : s + step], weight[s : s + step]
        P = _pmf(rr, n, m, replace)
        c += ww @ P
        atb += (ww * mvals[rr - 1]) @ P
        sw = np.sqrt(ww)
        block = np.hstack([sw[:, None] * P, (sw * mvals[rr - 1])[:, None]])
        if step >= rows.shape[0]:  # one block: A itself is a valid G (Q = I), no factorisation
            A, b = block[:, : m + 1], block[:, m + 1]
        else:
            R = np.linalg.qr(np.vstack([R, block]), mode="r")  # streaming (TSQR) update
    b_sq = float(weight @ (mvals[rows - 1] ** 2))
    if A is not None:
        return _System(A, b, c, b_sq, "dense", min(rows.shape[0], m + 1), A, b, atb)
    return _System(
        R[:, : m + 1], R[:, m + 1], c, b_sq, "dense", min(rows.shape[0], m + 1), None, None, atb
    )


def _stacked(system, gamma):
    """Least-squares form of the bias-variance objective for 0 < gamma < 1.

    (1-gamma)|Ax|^2 - 2 x^T A^T b + gamma x^T diag(c) x + const
    = |[sqrt(1-gamma) G; sqrt(gamma c)] x - [z / sqrt(1-gamma); 0]|^2 + const.
    """
    m1 = system.G.shape[1]
    G = np.vstack([np.sqrt(1.0 - gamma) * system.G, np.diag(np.sqrt(gamma * system.c))])
    z = np.concatenate([system.z / np.sqrt(1.0 - gamma), np.zeros(m1)])
    return G, z


def _monotone_lsq(G, z, lo, hi, decreasing):
    """Min |G x - z| subject to hi >= x_1 >= ... >= x_{m+1} >= lo (or increasing).

    Solved exactly with NNLS on the increments (Lawson & Hanson 1974):
    x = lo + U d with d >= 0 enforces monotonicity and the lower bound; if the
    upper bound is then violated it is active, and the problem is re-solved
    from the top (x = hi - L e, e >= 0); only if both bounds are active is the
    equality sum(d) = hi - lo imposed by a heavily weighted row.
    """
    from scipy import optimize  # imported on first use

    if not decreasing:
        x = _monotone_lsq(G[:, ::-1], z, lo, hi, True)
        return x[::-1]
    m1 = G.shape[1]
    tol = 1e-12 * max(1.0, abs(hi), abs(lo))
    scale = np.sqrt(np.sum(G * G)) or 1.0
    Gs, zs = G / scale, z / scale
    B = np.cumsum(Gs, axis=1)  # columns of G U: x_k = lo + sum_{j >= k} d_j
    d, _ = optimize.nnls(B, zs - lo * Gs.sum(axis=1), maxiter=50 * m1)
    x = lo + np.cumsum(d[::-1])[::-1]
    if x[0] > hi + tol:
        Bt = -np.cumsum(Gs[:, ::-1], axis=1)[:, ::-1]  # x_k = hi - sum_{j <= k} e_j
        e, _ = optimize.nnls(Bt, zs - hi * Gs.sum(axis=1), maxiter=50 * m1)
        x = hi - np.cumsum(e)
        if x[-1] < lo - tol:
            weight = 1e6 * np.sqrt(np.sum(B * B)) / max(hi - lo, 1e-300)
            Bw = np.vstack([B, weight * np.ones((1, m1))])
            zw = np.concatenate([zs - lo * Gs.sum(axis=1), [weight * (hi - lo)]])
            d, _ = optimize.nnls(Bw, zw, maxiter=50 * m1)
            x = lo + np.cumsum(d[::-1])[::-1]
    return np.minimum.accumulate(np.clip(x, lo, hi))


def _round_rank(rhat, rounding, n):
    if rounding == "round":
        return np.clip(np.floor(rhat + 0.5), 1, n).astype(np.int64)
    if rounding == "floor":
        return np.clip(np.floor(rhat), 1, n).astype(np.int64)
    return np.clip(np.ceil(rhat), 1, n).astype(np.int64)


def _solve_bias_variance(system, gamma):
    """Solve ((1 - gamma) A^T A + gamma diag(c)) x = A^T b.

    The matrix is symmetric positive definite with eigenvalues in
    ``[gamma min(c), max(c)]`` (``||A^T A|| <= max(c)`` because each row of
    ``A^T A`` sums to ``c_k``), so when ``max(c) / (gamma min(c)) <= 1e8``
    the Cholesky factorisation is accurate and cheap; otherwise the stacked
    least-squares form ``G, z`` is solved by SVD.
    """
    from scipy import linalg as sla  # imported on first use

    c = system.c
    if c.min() > 0 and c.max() / (gamma * c.min()) <= 1e8:
        normal = (1.0 - gamma) * (system.G.T @ system.G)
        normal[np.diag_indices_from(normal)] += gamma * c
        try:
            return sla.cho_solve(sla.cho_factor(normal), system.atb)
        except np.linalg.LinAlgError:
            pass
    return np.linalg.lstsq(*_stacked(system, gamma), rcond=None)[0]


def _posterior_mean(system):
    atb = system.atb
    c = system.c
    return np.divide(atb, c, out=np.zeros_like(atb), where=c > 0)


def _trust(sv, rank, rcond, system, x, G, z):
    structural = system.structural_rank
    s = sv[:structural]
    cond = float(s[0] / s[-1]) if s[-1] > 0 else np.inf
    kept = sv[: max(int(rank), 1)]
    est = 3.0 * _EPS * float(kept[0] / kept[-1])
    resid = G @ x - z
    res_sq = max(system.b_sq - float(z @ z), 0.0) + float(resid @ resid)
    return {
        "singular_values": sv,
        "cond": cond,
        "rank": int(rank),
        "rcond": rcond,
        "estimated_relative_error": est,
        "residual_norm": float(np.sqrt(res_sq)),
        "warn": bool(est > _TRUST),
    }
