"""An independent route to delta(epsilon) of a composed pair: Laplace inversion of the loss's MGF.

Test-only. For a pair (A, B) of densities on the real line with privacy loss L = log(a/b),
the hockey-stick divergence of the T-fold products is E_A[(1 - e^{epsilon - S})_+], S the sum of
T independent losses under A. The function g(s) = (1 - e^{epsilon - s})_+ has the two-sided Laplace
transform e^{-z epsilon} / (z (z + 1)) for Re z > 0, so

    delta(epsilon) = (1 / 2 pi) * integral over t of  M(c + i t)^T e^{-(c + i t) epsilon} / ((c + i t)(c + i t + 1)) dt,

M(z) = E_A[e^{z L}] the one-step moment generating function, for any c > 0 where M is finite
(Zhu, Dong and Wang, "Optimal accounting of differential privacy via characteristic function",
AISTATS 2022, use the same identity). Nothing here is shared with dpnotes.subsampling: no
discretization of the loss, no FFT, no truncation of the output's tails except the quadrature's.

Numerics, each checked by the caller's convergence test:
- M(z) - 1 = sum over a uniform y grid of w (e^{z L} - 1), w = a dy: the trapezoid rule, which
  converges geometrically for these analytic, Gaussian-decaying integrands. Writing it as M - 1
  keeps the small q digits that T log M needs (T up to 1e6 multiplies the error).
- c is the saddle point (the minimum over real c of the integrand at t = 0), where the integrand
  oscillates least; the t range doubles until the integrand at its end is 1e-25 of its peak.
"""

import numpy as np
from scipy.optimize import brentq, minimize_scalar


class Pair:
    """A one-step pair on a uniform grid ``y``, densities given by their logs."""

    def __init__(self, y, log_a, log_b):
        self.dy = y[1] - y[0]
        self.logw = log_a + np.log(self.dy)
        self.w = np.exp(self.logw)
        self.loss = log_a - log_b

    def m1(self, z):
        """M(z) - 1 for an array of complex z."""
        z = np.atleast_1d(z)[:, None]
        with np.errstate(over="ignore", invalid="ignore"):     # inf at orders beyond the grid's reach
            return (np.exp(self.logw + z * self.loss) - self.w).sum(axis=1)

    def log_m(self, z):
        """log M(z) for an array of complex z: log1p(M - 1) where M is near 1 (the small-q digits),
        else a log-sum-exp shifted by the largest term (no overflow at large orders)."""
        z = np.atleast_1d(np.asarray(z, dtype=complex))
        m1 = self.m1(z)
        out = np.log1p(m1)
        far = ~np.isfinite(m1) | (np.abs(m1) > 0.5)
        if far.any():
            terms = self.logw + z[far, None] * self.loss
            top = terms.real.max(axis=1, keepdims=True)
            out[far] = top[:, 0] + np.log(np.exp(terms - top).sum(axis=1))
        return out


def gaussian_mixture_log_density(y, sigma, weights_means):
    """log of sum_k weight_k N(mean_k, sigma^2) at y."""
    parts = [np.log(wk) - 0.5 * ((y - mk) / sigma) ** 2 for wk, mk in weights_means if wk > 0]
    return np.logaddexp.reduce(parts, axis=0) - np.log(sigma) - 0.5 * np.log(2 * np.pi)


def delta(pair: Pair, steps: int, epsilon: float, c_max: float = 50.0, nt_per_width: int = 50, k_max: float = 2560.0):
    """delta(epsilon) of the ``steps``-fold pair, and diagnostics (c, t range, end ratio)."""
    def log_integrand0(c):
        return steps * pair.log_m(c)[0].real - c * epsilon - np.log(c) - np.log1p(c)

    c = minimize_scalar(log_integrand0, bounds=(1e-6, c_max), method="bounded",
                        options={"xatol": 1e-10}).x
    h = 1e-4 * max(c, 1e-3)
    curv = (log_integrand0(c + h) - 2 * log_integrand0(c) + log_integrand0(c - h)) / h**2
    width = 1 / np.sqrt(max(curv, 1e-300))
    peak = log_integrand0(c)
    k = 40.0
    while True:
        nt = int(k * nt_per_width) + 1
        t = np.linspace(0.0, k * width, nt)
        logv = np.empty(nt, complex)
        for i in range(0, nt, 64):
            z = c + 1j * t[i:i + 64]
            logv[i:i + 64] = steps * pair.log_m(z) - z * epsilon - np.log(z) - np.log1p(z)
        end = np.exp(logv[-1].real - peak)
        if end < 1e-25:
            break
        if k >= k_max:
            # the integrand decays only like 1 / t^2 beyond a range where it is still this large:
            # what is cut off is at most about end * k of the peak's contribution
            if end * k > 1e-10:
                raise RuntimeError(f"t range not converged: integrand at {end:.1e} of its peak at {k} widths")
            break
        k *= 2
    # the integrand is Hermitian in t: twice the real part over t >= 0; scale out the peak
    vals = np.exp(logv - peak).real
    dt = t[1] - t[0]
    integral = dt * (vals.sum() - 0.5 * (vals[0] + vals[-1]))
    return float(np.exp(peak) * integral / np.pi), {"c": c, "width": width, "k": k, "end": end}


def subsampled_gaussian_pairs(q, sigma, relation, lo, hi, n):
    """The one-step pairs of the Poisson-subsampled Gaussian (sensitivity 1, noise ``sigma``) on a grid.

    add/remove: remove (A = (1-q) N(0) + q N(1), B = N(0)) and add (A and B swapped);
    replace-one: A = (1-q) N(0) + q N(1), B = (1-q) N(0) + q N(-1), symmetric under y -> -y.
    """
    y = np.linspace(lo, hi, n)
    mix = gaussian_mixture_log_density(y, sigma, [(1 - q, 0.0), (q, 1.0)])
    if relation == "replace_one":
        return [Pair(y, mix, gaussian_mixture_log_density(y, sigma, [(1 - q, 0.0), (q, -1.0)]))]
    base = gaussian_mixture_log_density(y, sigma, [(1.0, 0.0)])
    return [Pair(y, mix, base), Pair(y, base, mix)]


def composed_delta(q, sigma, steps, epsilon, relation, lo, hi, n=10001, nt_per_width=10, rtol=1e-7, k_max=2560.0):
    """delta(epsilon) of ``steps`` compositions: the larger direction, computed on two grids.

    The second grid halves the y step and doubles the t points; in each direction the two must
    agree to ``rtol`` of the result (a direction far below the other only needs to stay below it),
    else the quadrature is not converged and this raises."""
    pairs = zip(subsampled_gaussian_pairs(q, sigma, relation, lo, hi, n),
                subsampled_gaussian_pairs(q, sigma, relation, lo, hi, 2 * n - 1))
    runs = [(delta(coarse, steps, epsilon, nt_per_width=nt_per_width, k_max=k_max)[0],
             delta(fine, steps, epsilon, nt_per_width=2 * nt_per_width, k_max=k_max)[0]) for coarse, fine in pairs]
    if not all(np.isfinite(d) for run in runs for d in run):
        raise RuntimeError(f"not finite: {runs!r}")
    best = max(d2 for _, d2 in runs)
    for d1, d2 in runs:
        if abs(d1 - d2) > rtol * best + 1e-300:
            raise RuntimeError(f"quadrature not converged: {d1!r} against {d2!r}")
    return best


def composed_epsilon(q, sigma, steps, delta_target, relation, lo, hi, eps_lo, eps_hi, **kw):
    """The epsilon at which composed_delta equals ``delta_target``, bracketed in [eps_lo, eps_hi]."""
    return brentq(lambda e: np.log(composed_delta(q, sigma, steps, e, relation, lo, hi, **kw) / delta_target),
                  eps_lo, eps_hi, xtol=1e-12, rtol=1e-10)
