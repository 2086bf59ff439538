"""Property tests of dpnotes.functional over random points, data and bandwidths (Hypothesis).

Kernels: Gram matrices are symmetric with unit diagonal and positive semidefinite (smallest
eigenvalue >= -m 1e-15 times the largest: rounding of a PSD matrix), scale with the bandwidth,
and fall with distance. Norms: Mahalanobis and RKHS norms are >= 0, absolutely homogeneous,
satisfy the triangle inequality, and the RKHS norm bounds every finite Mahalanobis norm. GP
noise is ``L z`` exactly (coupled seeds), and so are the GP mechanism and private KDE. KDE:
non-negative, integrates to one, invariant to the order of the data. Sensitivities: every
replaced record moves the KDE by at most ``rkhs_sensitivity`` in the RKHS, LSCV by at most
``lscv_sensitivity(sharp=True) <= lscv_sensitivity()``, the KDE in the Sobolev norm (by
quadrature) by at most ``sobolev_kde_sensitivity``, kernel logistic regression by at most
``erm_sensitivity``; all fall as n and h grow. Bandwidth: the normal-reference rule is positive,
falls as n grows (n^(-1/(d+4))) and is scale-equivariant; the exact MISE equals a quadrature of
variance plus squared bias and falls with n.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import profiles
from dpnotes import functional as fn
from dpnotes.mechanisms import gaussian_sigma

SEED = st.integers(0, 2**32 - 1)
LOG_H = st.floats(math.log10(0.05), math.log10(20.0)).map(lambda x: 10.0**x)


def points(min_size=1, max_size=8, d=None):
    dim = st.just(d) if d is not None else st.integers(1, 3)
    return dim.flatmap(lambda k: st.lists(st.lists(st.floats(-5.0, 5.0), min_size=k, max_size=k),
                                          min_size=min_size, max_size=max_size).map(np.array))


def psd_tolerance(matrix):
    return matrix.shape[0] * 1e-15 * max(1.0, np.abs(matrix).max())


# --------------------------------------------------------------------------- kernels and norms
@given(x=points(1, 12), h=LOG_H, scale=st.floats(0.1, 10.0))
def test_gram_matrices_are_psd_symmetric_and_scale_with_the_bandwidth(x, h, scale):
    k = fn.gaussian_kernel(x, x, h)
    assert np.allclose(k, k.T, rtol=0, atol=1e-15) and np.all(np.diag(k) == 1.0)
    assert np.all((k > 0) | (k == 0)) and np.all(k <= 1.0)
    assert np.linalg.eigvalsh(k).min() >= -psd_tolerance(k)
    assert np.allclose(fn.gaussian_kernel(x * scale, x * scale, h * scale), k, rtol=1e-12, atol=1e-300)
    normalized = fn.gaussian_kernel(x, x, h, normalized=True)
    # an entry of k below 2.2e-308 is a subnormal of few bits, which k * c lifts (the normalised kernel computes
    # such a term with its constant): the reference is good only to a subnormal ulp times c there
    c = (2 * math.pi * h * h) ** (-x.shape[1] / 2)
    assert np.allclose(normalized, k * c, rtol=1e-12, atol=c * 2.0**-1074)


def test_kde_difference_of_close_records_keeps_its_digits():
    """Regression: sqrt(2 - 2 exp(-r)) lost every digit for records 1e-8 apart (5.94e-9 for 6.66e-9)."""
    got = fn.kde_difference_rkhs_norm(1e-8, 2.5e-8, 1, 1.0)[0]
    assert math.isclose(got, 1.5e-8 / math.sqrt(2 * math.pi), rel_tol=1e-12)
    # and r^2 underflowed to 0 for records 1e-189 apart
    got = fn.kde_difference_rkhs_norm([[0.0, 0.0]], [[3e-189, 4e-189]], 2, 0.5)[0]
    assert math.isclose(got, 5e-189 / 0.5 / (2 * 2 * math.pi * 0.25), rel_tol=1e-12)
    # records 1e200 apart: the supremum sqrt(2) c, not 0 (r^2 must not overflow either)
    assert fn.kde_difference_rkhs_norm([-1e200, 0.0], [1e200, 0.0], 3, 2.0).tolist() == [
        fn.rkhs_sensitivity(3, 2.0), 0.0]


def test_close_points_far_from_the_origin_keep_their_distance():
    """Regression: |x|^2 + |y|^2 - 2 x.y cancelled: 1e-4 apart at (1000, 1000) the squared distance
    was 9.78e-9 instead of 1e-8 and the kernel at h = 1e-4 was 0.6133 instead of e^-1/2."""
    x = np.array([[1e3, 1e3], [1e3 + 1e-4, 1e3]])
    k = fn.gaussian_kernel(x, x, 1e-4)
    assert np.all(np.diag(k) == 1.0)
    assert math.isclose(k[0, 1], math.exp(-((x[1, 0] - x[0, 0]) ** 2) / 2e-8), rel_tol=1e-9)
    assert math.isclose(fn.kde(x[:1], x[1:], 1e-4)[0], k[0, 1] / (2 * math.pi * 1e-8), rel_tol=1e-9)


@given(r=st.floats(0.0, 10.0), dr=st.floats(0.0, 5.0), h=LOG_H)
def test_kernel_falls_with_distance(r, dr, h):
    near, far = fn.gaussian_kernel([0.0], [r, r + dr], h)[0]
    assert far <= near and math.isclose(near, math.exp(-r * r / (2 * h * h)), rel_tol=1e-12)


@given(data=st.data(), m=st.integers(1, 6), h=LOG_H, c=st.floats(-10.0, 10.0))
def test_mahalanobis_and_rkhs_norms_are_norms(data, m, h, c):
    z = data.draw(points(m, m, d=1))
    a = np.array(data.draw(st.lists(st.floats(-5.0, 5.0), min_size=m, max_size=m)))
    b = np.array(data.draw(st.lists(st.floats(-5.0, 5.0), min_size=m, max_size=m)))
    na, nb = fn.rkhs_norm(a, z, h), fn.rkhs_norm(b, z, h)
    assert na >= 0 and math.isclose(fn.rkhs_norm(c * a, z, h), abs(c) * na, rel_tol=1e-9, abs_tol=1e-12)
    assert fn.rkhs_norm(a + b, z, h) <= na + nb + 1e-9
    gram = fn.gaussian_kernel(z, z, h) + np.eye(m)       # a positive definite matrix
    va, vb = fn.mahalanobis_norm(a, gram), fn.mahalanobis_norm(b, gram)
    assert math.isclose(va, math.sqrt(a @ np.linalg.solve(gram, a)), rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(fn.mahalanobis_norm(c * a, gram), abs(c) * va, rel_tol=1e-9, abs_tol=1e-12)
    assert fn.mahalanobis_norm(a + b, gram) <= va + vb + 1e-9


@given(centres=points(1, 5, d=1), grid=points(1, 6, d=1), h=st.floats(0.3, 5.0), data=st.data())
def test_rkhs_norm_bounds_every_finite_mahalanobis_norm(centres, grid, h, data):
    """f = sum_j a_j K(., z_j) seen on any grid: ||M^-1/2 f(grid)|| <= ||f||_H (M + tau I >= M)."""
    a = np.array(data.draw(st.lists(st.floats(-3.0, 3.0), min_size=centres.shape[0], max_size=centres.shape[0])))
    values = fn.gaussian_kernel(grid, centres, h) @ a
    lower, _ = fn.gp_cholesky(grid, h)
    assert fn.mahalanobis_norm(values, lower @ lower.T) <= fn.rkhs_norm(a, centres, h) * (1 + 1e-6) + 1e-9


# --------------------------------------------------------------------------- GP noise, coupled
@given(x=points(1, 10), h=LOG_H, size=st.integers(1, 4), seed=SEED)
def test_gp_draws_are_the_cholesky_factor_times_normals(x, h, size, seed):
    lower, tau = fn.gp_cholesky(x, h)
    assert np.allclose(lower @ lower.T, fn.gaussian_kernel(x, x, h) + tau * np.eye(len(x)), rtol=0, atol=1e-12)
    got = fn.sample_gp(x, h, np.random.default_rng(seed), size=size)
    z = np.random.default_rng(seed).standard_normal((len(x), size))
    assert np.array_equal(got, (lower @ z).T)


@given(data=points(1, 10, d=1), grid=points(2, 10, d=1), eps=st.floats(0.05, 1.0), delta=st.floats(1e-10, 0.1),
       h=st.floats(0.1, 3.0), seed=SEED, method=st.sampled_from(["hrw", "classical", "analytic"]))
def test_private_kde_is_the_kde_plus_calibrated_gp_noise(data, grid, eps, delta, h, seed, method):
    got = fn.private_kde(data, grid, eps, delta, h, np.random.default_rng(seed), method=method)
    sigma = gaussian_sigma(eps, delta, fn.rkhs_sensitivity(len(data), h, 1), method=method)
    lower, _ = fn.gp_cholesky(grid, h)
    z = np.random.default_rng(seed).standard_normal(len(grid))
    assert np.allclose(got, fn.kde(data, grid, h) + sigma * (lower @ z), rtol=1e-12, atol=1e-12)


@settings(max_examples=profiles.size(fast=40, thorough=300))
@given(x=points(1, 6, d=1), new=points(1, 4, d=1), h=st.floats(0.2, 3.0), seed=SEED, data=st.data())
def test_gp_conditional_law_is_a_psd_gaussian_linear_in_the_values(x, new, h, seed, data):
    v = np.array(data.draw(st.lists(st.floats(-3.0, 3.0), min_size=len(x), max_size=len(x))))
    mean, cov = fn.gp_conditional(x, v, new, h)
    assert np.allclose(cov, cov.T) and np.linalg.eigvalsh(cov).min() >= -1e-9
    matrix, _ = fn.gp_conditional(x, np.eye(len(x)), new, h)
    assert np.allclose(mean, matrix @ v, rtol=1e-9, atol=1e-12)
    got = fn.gp_extend(x, v, new, h, np.random.default_rng(seed))
    assert got.shape == (len(new),) and np.all(np.isfinite(got))


# --------------------------------------------------------------------------- KDE and sensitivities
@given(data=points(1, 15, d=1), h=LOG_H, seed=SEED)
def test_kde_is_a_density_that_ignores_the_order_of_the_data(data, h, seed):
    lo, hi = data.min() - 12 * h, data.max() + 12 * h
    grid = np.linspace(lo, hi, 4001)
    f = fn.kde(data, grid, h)
    assert np.all(f >= 0)
    assert math.isclose(np.trapezoid(f, grid), 1.0, rel_tol=1e-5)     # trapezoid error O((step / h)^2)
    assert np.allclose(fn.kde(np.random.default_rng(seed).permutation(data), grid, h), f, rtol=1e-12, atol=0)
    assert np.allclose(f[::400], stats.norm.pdf(grid[::400, None], data[:, 0], h).mean(axis=1), rtol=1e-12, atol=1e-300)


@given(x=points(1, 4), h=LOG_H, n=st.integers(1, 10**6), data=st.data())
def test_replacing_a_record_moves_the_kde_by_at_most_its_rkhs_sensitivity(x, h, n, data):
    d = x.shape[1]
    xp = np.array(data.draw(st.lists(st.lists(st.floats(-50.0, 50.0), min_size=d, max_size=d),
                                     min_size=len(x), max_size=len(x))))
    moved = fn.kde_difference_rkhs_norm(x, xp, n, h)
    bound = fn.rkhs_sensitivity(n, h, d)
    assert np.all(moved <= bound * (1 + 1e-12))
    c = 1 / (n * (2 * math.pi * h * h) ** (d / 2))
    with mp.workdps(40):                           # c sqrt(2 - 2 K(x, x')) in 40-digit mpmath
        for i in range(len(x)):
            r2 = mp.fsum((mp.mpf(float(u)) - mp.mpf(float(v))) ** 2 for u, v in zip(x[i], xp[i]))
            exact = c * mp.sqrt(-2 * mp.expm1(-r2 / (2 * mp.mpf(h) ** 2)))
            assert math.isclose(moved[i], float(exact), rel_tol=1e-12, abs_tol=1e-300)
    away = x[:1] + np.eye(d)[:1] * 2 * h                         # the Gram form, where it is well conditioned
    far = fn.rkhs_norm([c, -c], np.vstack([x[:1], away]), h)
    assert math.isclose(fn.kde_difference_rkhs_norm(x[:1], away, n, h)[0], far, rel_tol=1e-12)
    assert fn.rkhs_sensitivity(n + 1, h, d) < bound and fn.rkhs_sensitivity(n, h * 1.5, d) < bound


@settings(max_examples=profiles.size(fast=20, thorough=400))
@given(x=points(2, 10), h=st.floats(0.1, 3.0), data=st.data())
def test_lscv_moves_by_at_most_its_sensitivity(x, h, data):
    n, d = x.shape
    i = data.draw(st.integers(0, n - 1))
    y = x.copy()
    y[i] = np.array(data.draw(st.lists(st.floats(-10.0, 10.0), min_size=d, max_size=d)))
    moved = abs(fn.lscv(x, h) - fn.lscv(y, h))
    sharp, simple = fn.lscv_sensitivity(n, h, d, sharp=True), fn.lscv_sensitivity(n, h, d)
    assert moved <= sharp * (1 + 1e-9) + 1e-15 and sharp <= simple
    assert fn.lscv_sensitivity(n + 1, h, d, sharp=True) < sharp and fn.lscv_sensitivity(n, 1.5 * h, d) < simple
    # LSCV is invariant to translation, and lscv(a x, a h) = lscv(x, h) / a^d
    assert math.isclose(fn.lscv(x + 3.0, h), fn.lscv(x, h), rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(fn.lscv(2 * x, 2 * h), fn.lscv(x, h) / 2**d, rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=profiles.size(fast=8, thorough=150))
@given(a=st.floats(-5.0, 5.0), b=st.floats(-5.0, 5.0), n=st.integers(1, 100), h=st.floats(0.2, 3.0))
def test_sobolev_norm_of_a_replaced_record_is_below_the_sensitivity(a, b, n, h):
    """||f||^2 = int f^2 + int f'^2 with f = (phi_h(. - a) - phi_h(. - b)) / n, by quadrature."""
    def f(t):
        return (stats.norm.pdf(t, a, h) - stats.norm.pdf(t, b, h)) / n

    def fprime(t):
        return (-(t - a) * stats.norm.pdf(t, a, h) + (t - b) * stats.norm.pdf(t, b, h)) / (h * h * n)

    lo, hi = min(a, b) - 12 * h, max(a, b) + 12 * h
    sq = integrate.quad(lambda t: f(t) ** 2 + fprime(t) ** 2, lo, hi, points=[a, b], limit=1000, epsabs=0,
                        epsrel=1e-10)[0]
    assert math.sqrt(sq) <= fn.sobolev_kde_sensitivity(n, h) * (1 + 1e-7)
    assert fn.sobolev_kde_sensitivity(n + 1, h) < fn.sobolev_kde_sensitivity(n, h)


@settings(max_examples=profiles.size(fast=12, thorough=200))
@given(x=points(2, 8, d=1), h=st.floats(0.2, 2.0), lam=st.floats(0.01, 1.0), data=st.data())
def test_kernel_logistic_regression_moves_by_at_most_the_erm_sensitivity(x, h, lam, data):
    n = len(x)
    y = np.array(data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    x2, y2 = x.copy(), y.copy()
    x2[-1] = data.draw(st.floats(-20.0, 20.0))
    y2[-1] = data.draw(st.sampled_from([-1.0, 1.0]))
    a, b = fn.kernel_logistic_regression(x, y, h, lam), fn.kernel_logistic_regression(x2, y2, h, lam)
    moved = fn.rkhs_norm(np.concatenate([a, -b]), np.concatenate([x, x2]), h)
    bound = fn.erm_sensitivity(n, lam)
    assert moved <= bound * (1 + 1e-6) + 1e-9
    assert fn.erm_sensitivity(n + 1, lam) < bound and fn.erm_sensitivity(n, 2 * lam) < bound


# --------------------------------------------------------------------------- against 50-digit mpmath
# Points anywhere in the float range, with ties, near-ties and far pairs (base + s1 k1 + s2 k2 with
# small integers k), bandwidths tied to their spread or anywhere from 5e-324 to 1e308. Each result is
# compared with mpmath at 50 digits from the floats given (mp.mpf of a float is exact), within a bound
# that follows the conditioning: an exponent u computed from rounded differences is off by about
# (d + 6) eps u, the constant's logarithm by a few eps times itself; a subnormal result by an ulp
# (5e-324) twice rounded. These found, before they were fixed, the subnormal term lifted by the
# normalising constant (2 bits of 2.85e-308 right), lscv's 0 in thousands of dimensions and
# rkhs_norm's float sum of cancelling coefficients.
EPS = 2.0**-52
TINY_ABS = 1e-323                                   # two ulps of a subnormal
MP_MAX = mp.mpf(np.finfo(float).max)


@st.composite
def spread_points(draw, max_n=5):
    d, n = draw(st.integers(1, 3)), draw(st.integers(2, max_n))
    base = draw(st.sampled_from([0.0, 1.0, -1.0])) * 10.0 ** draw(st.floats(-300.0, 300.0))
    s1, s2 = (10.0 ** draw(st.floats(-300.0, 300.0)) for _ in range(2))
    ks = st.lists(st.lists(st.integers(-20, 20), min_size=d, max_size=d), min_size=n, max_size=n)
    x = base + s1 * np.array(draw(ks), dtype=float) + s2 * np.array(draw(ks), dtype=float)
    assume(np.isfinite(x).all())
    spread = float(np.abs(x[:, None, :] - x[None, :, :]).max()) if np.isfinite(x).all() else 1.0
    how = draw(st.sampled_from(["spread", "anywhere", "moderate"]))
    if how == "spread" and 0.0 < spread < 1e300:
        h = spread * 10.0 ** draw(st.floats(-3.0, 3.0))
    else:                                      # moderate: a constant (2 pi h^2)^(-d/2) from about e^3 to e^100
        h = 10.0 ** draw(st.floats(-323.0, 308.0) if how == "anywhere" else st.floats(-20.0, -2.0))
    assume(np.isfinite(h) and h > 0)
    return x, float(h)


def _mp_u(a, b, h):                    # |a - b|^2 / (2 h^2), from the floats given
    return mp.fsum((mp.mpf(float(p)) - mp.mpf(float(q))) ** 2 for p, q in zip(a, b)) / (2 * mp.mpf(h) ** 2)


def _mp_log_c(h, d):                   # log (2 pi h^2)^(-d/2)
    return -mp.mpf(d) / 2 * mp.log(2 * mp.pi * mp.mpf(h) ** 2)


def _check(got, want, slack):
    """got is want within ``slack`` (absolute, from the conditioning) plus two subnormal ulps; beyond the
    float range, +-inf (a value within 1e-10 of its edge is not judged)."""
    if abs(want) > MP_MAX * (1 + 1e-10):
        assert got == (math.inf if want > 0 else -math.inf), (got, want)
    elif abs(want) < MP_MAX * (1 - 1e-10):
        assert abs(mp.mpf(got) - want) <= slack + TINY_ABS, (got, mp.nstr(want, 17), mp.nstr(slack, 3))


@settings(max_examples=profiles.size(fast=25, thorough=300))
@given(xh=spread_points(), data=st.data())
@mp.workdps(50)
def test_kernel_and_kde_are_their_50_digit_values_everywhere(xh, data):
    x, h = xh
    d = x.shape[1]
    g = x[data.draw(st.lists(st.integers(0, len(x) - 1), min_size=1, max_size=3))]
    g = g + data.draw(st.sampled_from([0.0, 1.0, -1.0])) * (x.max(axis=0) - x.min(axis=0)) / 3
    # and a point at a chosen exponent from x[0] (up to 800: terms near and below the normal range)
    step = np.zeros(d)
    step[0] = math.sqrt(2 * data.draw(st.one_of(st.floats(0.0, 800.0), st.floats(712.0, 745.0)))) * h
    g = np.vstack([g, x[0] + step])
    assume(np.isfinite(g).all())
    log_c = _mp_log_c(h, d)
    kernel = fn.gaussian_kernel(g, x, h)
    density = fn.gaussian_kernel(g, x, h, normalized=True)
    f = fn.kde(x, g, h)
    for i, p in enumerate(g):
        terms = []
        for j, q in enumerate(x):
            u = _mp_u(p, q, h)
            tol = EPS * ((d + 6) * u + 4 * abs(log_c) + 16)
            k = mp.exp(-u)
            _check(kernel[i, j], k, k * EPS * ((d + 6) * u + 4))
            _check(density[i, j], k * mp.exp(log_c), k * mp.exp(log_c) * tol)
            terms.append((k * mp.exp(log_c) / len(x), tol + 2 * len(x) * EPS))
        _check(f[i], mp.fsum(t for t, _ in terms), mp.fsum(t * e for t, e in terms))


@settings(max_examples=profiles.size(fast=25, thorough=300))
@given(xh=spread_points())
@mp.workdps(50)
def test_lscv_is_its_50_digit_value_everywhere(xh):
    x, h = xh
    n, d = x.shape
    hm, a_part = mp.mpf(h), abs(_mp_log_c(h, d))
    both, loo, slack = [], [], mp.mpf(0)
    for i in range(n):
        for j in range(n):
            u = _mp_u(x[i], x[j], h)
            t1 = mp.exp(-u / 2) * (4 * mp.pi * hm * hm) ** (-mp.mpf(d) / 2) / n**2
            t2 = 0 if i == j else 2 * mp.exp(-u) * (2 * mp.pi * hm * hm) ** (-mp.mpf(d) / 2) / (n * (n - 1))
            both.append(t1)
            loo.append(t2)
            slack += (t1 + t2) * EPS * ((d + 6) * u + 4 * a_part + 16 + 2 * n * n)
    want = mp.fsum(both) - mp.fsum(loo)
    _check(fn.lscv(x, h), want, slack + abs(want) * EPS * (a_part + 50))


@settings(max_examples=profiles.size(fast=25, thorough=300))
@given(xh=spread_points(), data=st.data())
@mp.workdps(80)
def test_rkhs_norm_is_its_80_digit_value_everywhere(xh, data):
    z, h = xh
    k, d = z.shape
    top = 10.0 ** data.draw(st.floats(-300.0, 300.0))
    a = np.array(data.draw(st.lists(st.integers(-9, 9), min_size=k, max_size=k)), dtype=float) / 9 * top
    if data.draw(st.booleans()):           # coefficients that sum to about 0, as a difference of functions has
        a[-1] = -a[:-1].sum()
    a[0] = a[0] if a.any() else top
    am = [mp.mpf(float(c)) for c in a]
    cross = [am[i] * am[j] * mp.expm1(-_mp_u(z[i], z[j], h)) for i in range(k) for j in range(k)]
    q = mp.fsum(am) ** 2 + mp.fsum(cross)                   # a^T K a without cancellation
    want = mp.sqrt(max(q, 0))
    # |got^2 - want^2| <= eps-sized errors of (sum a)^2 and of each a_i a_j expm1(-u_ij), plus the pairs
    # whose exponent underflows (below 1e-323 each)
    q_err = EPS * (4 * mp.fsum(am) ** 2 + (d + 12) * mp.fsum(abs(c) for c in cross)) \
        + k * k * mp.mpf(1e-323) * mp.mpf(float(np.abs(a).max())) ** 2
    got = fn.rkhs_norm(a, z, h)
    if want > MP_MAX * (1 + 1e-10):
        assert got == math.inf
    else:
        assert abs(mp.mpf(got) - want) * (mp.mpf(got) + want) <= q_err + 4 * EPS * want * want + TINY_ABS, \
            (got, mp.nstr(want, 17))


# --------------------------------------------------------------------------- the whole float range
@given(x=points(1, 6), grid=st.data(), h=LOG_H, k=st.integers(-1000, 1000))
def test_kernel_and_kde_are_scale_equivariant_over_the_whole_float_range(x, grid, h, k):
    """K(s x, s y; s h) = K(x, y; h) and kde(s D, s g, s h) = kde(D, g, h) / s^d for s = 2^k (exact
    scaling) anywhere in the float range: the plain 2 h^2 underflowed to 0 below h = 1.5e-154 (nan)
    and overflowed above 9e153, and the constant (2 pi h^2)^(-d/2) with it."""
    d = x.shape[1]
    g = grid.draw(points(1, 5, d=d))
    s = 2.0**k
    k_plain = fn.gaussian_kernel(x, g, h)
    k_scaled = fn.gaussian_kernel(x * s, g * s, h * s)
    assert np.allclose(k_scaled, k_plain, rtol=1e-10, atol=1e-300)
    f = fn.kde(x, g, h)
    f_scaled = np.ldexp(fn.kde(x * s, g * s, h * s), k * d)     # times s^d, exactly
    with np.errstate(divide="ignore"):
        log2_scaled = np.log2(f) - k * d                          # the scaled density is f / s^d
    normal = (log2_scaled > -960) & (log2_scaled < 1000)          # where that is a normal float
    assert np.allclose(f_scaled[normal], f[normal], rtol=1e-10, atol=0)
    assert not np.isnan(f_scaled).any()


@settings(max_examples=profiles.size(fast=60, thorough=300))
@given(log_h=st.floats(-323.5, 308.0), n=st.integers(2, 10**6), d=st.integers(1, 4), sharp=st.booleans())
def test_sensitivities_are_their_formulas_over_the_whole_float_range(log_h, n, d, sharp):
    """rkhs_sensitivity, lscv_sensitivity and sobolev_kde_sensitivity equal their formulas (50-digit
    mpmath) for every bandwidth: correctly rounded to inf or 0 beyond the float range, to 1e-13
    inside it (they divided by zero, raised 0.0 to a negative power or returned 0 outside
    [1e-154, 1e154])."""
    h = 10.0**log_h
    assume(h > 0)

    def close(got, want):
        want_f = float(want)                                      # mpmath rounds beyond the range to inf / 0
        if want_f == math.inf or abs(want_f) < 1e-300:
            return got == want_f or math.isclose(got, want_f, rel_tol=0, abs_tol=1e-305)
        return math.isclose(got, want_f, rel_tol=1e-13)

    with mp.workdps(50):
        hm = mp.mpf(h)
        c2 = (2 * mp.pi * hm * hm) ** (-mp.mpf(d) / 2)
        assert close(fn.rkhs_sensitivity(n, h, d), mp.sqrt(2) / n * c2)
        a = mp.mpf(2) / n**2 * (4 * mp.pi * hm * hm) ** (-mp.mpf(d) / 2)
        b = mp.mpf(4) / (n * (n - 1)) * c2
        want = (n - 1) * (b - a + a * a / (4 * b)) if sharp else (n - 1) * (a + b)
        assert close(fn.lscv_sensitivity(n, h, d, sharp=sharp), want)
        s2 = 2 * hm * hm
        sob = mp.sqrt(2 / mp.sqrt(2 * mp.pi * s2) * (1 + 1 / s2 + 2 / s2 * mp.exp(-(s2 + 3) / 2))) / n
        assert close(fn.sobolev_kde_sensitivity(n, h), sob)


# --------------------------------------------------------------------------- bandwidth and risk
@given(x=points(2, 30), scale=st.floats(0.1, 10.0), shift=st.floats(-10.0, 10.0), rule=st.sampled_from(["iqr", "sd"]))
def test_normal_reference_bandwidth_is_positive_falls_with_n_and_is_scale_equivariant(x, scale, shift, rule):
    n, d = x.shape
    h = fn.normal_reference_bandwidth(x, scale=rule)
    s = stats.iqr(x, axis=0) / (2 * stats.norm.ppf(0.75)) if rule == "iqr" else np.std(x, axis=0, ddof=1)
    assert np.allclose(h, (4 / ((d + 2) * n)) ** (1 / (d + 4)) * s, rtol=1e-12, atol=0)
    assert np.all(h >= 0)
    assert np.allclose(fn.normal_reference_bandwidth(scale * x + shift, scale=rule), scale * h, rtol=1e-9, atol=1e-12)
    assume(np.all(np.std(x, axis=0) > 0))
    # twice the data, mirrored about its mean: the sum of squares doubles over 2n - 1 degrees of
    # freedom instead of n - 1, so the sd does not grow, and the factor n^(-1/(d+4)) falls
    mirrored = np.vstack([x, 2 * x.mean(axis=0) - x])
    assert np.all(fn.normal_reference_bandwidth(mirrored, scale="sd") < fn.normal_reference_bandwidth(x, scale="sd"))


@given(n=st.integers(1, 10**5), h=LOG_H)
def test_normal_kde_mise_is_a_quadrature_of_variance_plus_squared_bias(n, h):
    """Independently: E f = phi_s (s^2 = 1 + h^2), E K_h(x - X)^2 = phi_r(x) / (2 sqrt(pi) h) with
    r^2 = 1 + h^2 / 2, so MISE = int (E K^2 - (E f)^2) / n + (E f - phi)^2 dx."""
    s, r = math.sqrt(1 + h * h), math.sqrt(1 + h * h / 2)

    def phi(x, sd):                              # math, not scipy.stats: quad calls it point by point
        return math.exp(-x * x / (2 * sd * sd)) / (sd * math.sqrt(2 * math.pi))

    def integrand(x):
        ef = phi(x, s)
        return (phi(x, r) / (2 * math.sqrt(math.pi) * h) - ef**2) / n + (ef - phi(x, 1.0)) ** 2

    quad = integrate.quad(integrand, -np.inf, np.inf, epsabs=0, epsrel=1e-11, limit=200)[0]
    mise = fn.normal_kde_mise(n, h)
    assert mise > 0 and math.isclose(mise, quad, rel_tol=1e-8)
    assert fn.normal_kde_mise(n + 1, h) <= mise


# --------------------------------------------------------------------------- bad input
RNG = np.random.default_rng(0)
SCALAR_BAD = [math.nan, math.inf, None, "1", [1.0, 2.0], True]
ARRAY_BAD = ["abc", None, [1.0, "a"], [math.nan, 1.0], [[1.0], [2.0, 3.0]], [True, False]]
CALLS = {
    "gaussian_kernel": (fn.gaussian_kernel, dict(x=[0.0, 1.0], y=[1.0, 2.0], bandwidth=1.0)),
    "mahalanobis_norm": (fn.mahalanobis_norm, dict(v=[1.0, 2.0], gram=[[1.0, 0.0], [0.0, 1.0]])),
    "rkhs_norm": (fn.rkhs_norm, dict(coef=[1.0, 2.0], centers=[0.0, 1.0], bandwidth=1.0)),
    "gp_cholesky": (fn.gp_cholesky, dict(points=[0.0, 1.0], bandwidth=1.0, jitter=1e-10, max_jitter=1e-4)),
    "sample_gp": (fn.sample_gp, dict(points=[0.0, 1.0], bandwidth=1.0, rng=RNG, size=1, jitter=1e-10)),
    "kde": (fn.kde, dict(data=[0.0, 1.0], grid=[0.5, 1.0], bandwidth=1.0)),
    "kde_difference_rkhs_norm": (fn.kde_difference_rkhs_norm, dict(x=[0.0, 1.0], x_prime=[1.0, 2.0], n=5, bandwidth=1.0)),
    "rkhs_sensitivity": (fn.rkhs_sensitivity, dict(n=5, bandwidth=1.0, d=1)),
    "gp_mechanism": (fn.gp_mechanism, dict(values=[0.0, 1.0], points=[0.0, 1.0], sensitivity=0.1, epsilon=0.5,
                                           delta=1e-3, bandwidth=0.5, rng=RNG, jitter=1e-10)),
    "private_kde": (fn.private_kde, dict(data=[0.0, 1.0], grid=[0.0, 1.0], epsilon=0.5, delta=1e-3, bandwidth=0.5,
                                         rng=RNG, jitter=1e-10)),
    "gp_conditional": (fn.gp_conditional, dict(points=[0.0, 1.0], values=[1.0, 0.5], new_points=[0.5, 2.0],
                                               bandwidth=1.0, jitter=1e-10)),
    "gp_extend": (fn.gp_extend, dict(points=[0.0, 1.0], values=[1.0, 0.5], new_points=[0.5, 2.0], bandwidth=1.0,
                                     rng=RNG, jitter=1e-10)),
    "normal_reference_bandwidth": (fn.normal_reference_bandwidth, dict(data=[0.0, 1.0, 3.0])),
    "normal_kde_mise": (fn.normal_kde_mise, dict(n=5, bandwidth=1.0)),
    "kde_ise_normal": (fn.kde_ise_normal, dict(n=5, bandwidth=1.0, grid=[0.0, 1.0], rng=RNG, reps=2, epsilon=0.5,
                                               delta=1e-3)),
    "lscv": (fn.lscv, dict(data=[0.0, 1.0], bandwidth=1.0)),
    "lscv_sensitivity": (fn.lscv_sensitivity, dict(n=5, bandwidth=1.0, d=1)),
    "sobolev_kde_sensitivity": (fn.sobolev_kde_sensitivity, dict(n=5, bandwidth=1.0)),
    "erm_sensitivity": (fn.erm_sensitivity, dict(n=5, lam=1.0, lipschitz=1.0, kappa=1.0)),
    "kernel_logistic_regression": (fn.kernel_logistic_regression, dict(data=[0.0, 1.0], labels=[-1, 1], bandwidth=1.0,
                                                                       lam=0.1, tol=1e-12, max_iter=100)),
}
ARRAYS = {"x", "y", "v", "gram", "coef", "centers", "points", "data", "grid", "x_prime", "values", "new_points",
          "labels"}
CASES = [(name, param, bad) for name, (_, kwargs) in CALLS.items() for param in kwargs if param != "rng"
         for bad in (ARRAY_BAD if param in ARRAYS else SCALAR_BAD)
         if not (bad is None and name == "kde_ise_normal" and param in ("epsilon", "delta"))]


@pytest.mark.parametrize("name, param, bad", CASES, ids=[f"{n}-{p}-{b!r}" for n, p, b in CASES])
def test_every_numeric_parameter_rejects_bad_values_by_name(name, param, bad):
    fn_, kwargs = CALLS[name]
    fn_(**kwargs)
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        fn_(**{**kwargs, param: bad})
