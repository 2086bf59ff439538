"""Unit tests of dpnotes.functional (GP noise, RKHS norms, private KDE)."""

import math
import sys

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, linalg, optimize, stats

from dpnotes import functional as fn


# ---------------------------------------------------------------- kernels and norms
def test_gaussian_kernel_matches_normal_densities():
    x = np.array([-1.0, 0.3, 2.0])
    y = np.array([0.0, 0.5])
    h = 0.7
    k = fn.gaussian_kernel(x, y, h, normalized=True)
    expected = stats.norm.pdf(x[:, None], loc=y[None, :], scale=h)
    assert np.allclose(k, expected, rtol=1e-13)
    assert np.allclose(fn.gaussian_kernel(x, y, h), expected * math.sqrt(2 * math.pi) * h)


def test_gaussian_kernel_two_dimensions_matches_multivariate_normal():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    h = 0.5
    expected = np.array([[stats.multivariate_normal.pdf(a, mean=b, cov=h * h * np.eye(2)) for b in y] for a in x])
    assert np.allclose(fn.gaussian_kernel(x, y, h, normalized=True), expected, rtol=1e-12)


def test_mahalanobis_norm_matches_symmetric_inverse_square_root():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(5, 5))
    m = a @ a.T + 0.5 * np.eye(5)
    v = rng.normal(size=5)
    w, u = linalg.eigh(m)
    inv_sqrt = u @ np.diag(w**-0.5) @ u.T
    assert fn.mahalanobis_norm(v, m) == pytest.approx(np.linalg.norm(inv_sqrt @ v), rel=1e-12, abs=0)


def test_rkhs_norm_limits():
    # Far-apart centres: the Gram matrix is the identity, so the norm is Euclidean.
    assert fn.rkhs_norm([3.0, 4.0], [0.0, 1e3], 1.0) == pytest.approx(5.0)
    # Coincident centres: a single kernel section with coefficient a1 + a2.
    assert fn.rkhs_norm([0.5, 1.5], [2.0, 2.0], 0.3) == pytest.approx(2.0)


def test_rkhs_norm_dominates_every_finite_mahalanobis_norm():
    # Proposition (RKHS): ||M^{-1/2} f(x_1..x_m)|| <= ||f||_H.
    rng = np.random.default_rng(2)
    h = 0.6
    for _ in range(20):
        z, a = rng.uniform(-2, 2, 4), rng.normal(size=4)
        x = np.sort(rng.uniform(-3, 3, 6))
        fx = fn.gaussian_kernel(x, z, h) @ a
        m = fn.gaussian_kernel(x, x, h)
        assert fn.mahalanobis_norm(fx, m) <= fn.rkhs_norm(a, z, h) * (1 + 1e-9)
    # Equality when the points contain the centres (f is then in the span).
    x = np.concatenate([z, [5.0]])
    fx = fn.gaussian_kernel(x, z, h) @ a
    assert fn.mahalanobis_norm(fx, fn.gaussian_kernel(x, x, h)) == pytest.approx(fn.rkhs_norm(a, z, h), rel=1e-8, abs=0)


# ---------------------------------------------------------------- GP sampling
def test_gp_cholesky_factorises_gram_plus_jitter():
    pts = np.linspace(0, 1, 50)
    lower, tau = fn.gp_cholesky(pts, 0.2)
    assert np.allclose(lower @ lower.T, fn.gaussian_kernel(pts, pts, 0.2) + tau * np.eye(50), atol=1e-12)
    assert np.allclose(lower, np.tril(lower))


def test_gp_cholesky_raises_jitter_when_needed():
    # Two equal points give the singular Gram matrix [[1, 1], [1, 1]]; jitter 1e-300 is too small for a
    # positive pivot in floating point (1 + 1e-300 == 1), so the jitter has to grow.
    lower, tau = fn.gp_cholesky([0.0, 0.0], 1.0, jitter=1e-300)
    assert tau > 1e-300
    with pytest.raises(ValueError, match=r"^jitter must"):
        fn.gp_cholesky([0.0, 0.0], 1.0, jitter=1e-300, max_jitter=1e-299)


def test_sample_gp_empirical_covariance():
    # Each empirical covariance entry has standard error <= sqrt(2/N) = 0.0063 for N = 50_000;
    # 0.035 is over 5 standard errors.
    pts = np.linspace(0, 1, 12)
    g = fn.sample_gp(pts, 0.3, np.random.default_rng(3), size=50_000)
    emp = g.T @ g / g.shape[0]
    k = np.exp(-((pts[:, None] - pts[None, :]) ** 2) / (2 * 0.3**2))
    assert np.abs(emp - k).max() < 0.035
    assert np.abs(g.mean(axis=0)).max() < 0.03


def test_sample_gp_is_reproducible():
    a = fn.sample_gp([0.0, 0.5], 1.0, np.random.default_rng(7), size=3)
    b = fn.sample_gp([0.0, 0.5], 1.0, np.random.default_rng(7), size=3)
    assert np.array_equal(a, b)


# ---------------------------------------------------------------- KDE
def test_kde_matches_scipy_gaussian_kde_1d():
    rng = np.random.default_rng(4)
    x = rng.normal(size=300)
    grid = np.linspace(-3, 3, 41)
    h = 0.4
    ref = stats.gaussian_kde(x, bw_method=h / x.std(ddof=1))(grid)
    assert np.allclose(fn.kde(x, grid, h), ref, rtol=1e-10)


def test_kde_2d_matches_sum_of_normal_densities():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(20, 2))
    grid = rng.normal(size=(7, 2))
    h = 0.6
    ref = np.mean([stats.multivariate_normal.pdf(grid, mean=xi, cov=h * h * np.eye(2)) for xi in x], axis=0)
    assert np.allclose(fn.kde(x, grid, h), ref, rtol=1e-10)


def test_kde_integrates_to_one():
    x = np.array([-0.5, 0.0, 1.2])
    val = integrate.quad(lambda t: fn.kde(x, [t], 0.3)[0], -10, 10, points=[-0.5, 0.0, 1.2])[0]
    assert val == pytest.approx(1.0, abs=1e-9)


def test_kde_difference_rkhs_norm_equals_gram_form():
    # f_D - f_D' = c (K(., x) - K(., x')): the exact norm is c * sqrt(a^T K a) with a = (1, -1).
    n, h = 25, 0.35
    c = 1 / (n * math.sqrt(2 * math.pi) * h)
    for x, xp in [(0.0, 0.1), (0.0, 1.0), (-2.0, 3.0)]:
        assert fn.kde_difference_rkhs_norm(x, xp, n, h)[0] == pytest.approx(c * fn.rkhs_norm([1, -1], [x, xp], h))
    # Two dimensions: c = 1/(n 2 pi h^2).
    got = fn.kde_difference_rkhs_norm([[0.0, 0.0]], [[1.0, 1.0]], n, h)[0]
    assert got == pytest.approx(math.sqrt(2 - 2 * math.exp(-1 / h**2)) / (n * 2 * math.pi * h * h))


def test_rkhs_sensitivity_is_the_supremum():
    n, h = 40, 0.25
    far = fn.kde_difference_rkhs_norm(0.0, 100.0, n, h)[0]
    assert far == pytest.approx(fn.rkhs_sensitivity(n, h), rel=1e-14, abs=0)
    dists = np.linspace(0, 5, 101)
    assert np.all(fn.kde_difference_rkhs_norm(np.zeros(101), dists, n, h) <= fn.rkhs_sensitivity(n, h) * (1 + 1e-12))
    # d = 2: sqrt(2) / (n 2 pi h^2), written out.
    assert fn.rkhs_sensitivity(n, h, d=2) == pytest.approx(math.sqrt(2) / (n * 2 * math.pi * h * h))


# Independent calibrations: the three formulas written out (the analytic one by root-finding on the
# exact Gaussian privacy profile, coded here from scipy's normal cdf, not from dpnotes).
def _c_hrw(delta):
    return math.sqrt(2 * math.log(2 / delta))


def _sigma_written_out(eps, delta, sens, method):
    if method == "hrw":
        return sens * math.sqrt(2 * math.log(2 / delta)) / eps
    if method == "classical":
        return sens * math.sqrt(2 * math.log(1.25 / delta)) / eps
    prof = lambda mu: stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu) - delta
    return sens / optimize.brentq(prof, 1e-6, 50.0, xtol=1e-15, rtol=1e-15)


def _gauss_gram(a, b, h):
    a, b = np.atleast_2d(a.T).T, np.atleast_2d(b.T).T
    return np.exp(-((a[:, None, :] - b[None, :, :]) ** 2).sum(-1) / (2 * h * h))


def _coupled_gp_draw(grid, h, seed, size=1):
    """The GP draw sample_gp makes from default_rng(seed), computed from scratch (jitter 1e-10)."""
    lower = linalg.cholesky(_gauss_gram(grid, grid, h) + 1e-10 * np.eye(len(grid)), lower=True)
    return lower @ np.random.default_rng(seed).standard_normal((len(grid), size))


@pytest.mark.parametrize(
    "d,n,eps,delta,h,method",
    [
        (1, 37, 0.7, 1e-4, 0.45, "hrw"),
        (2, 29, 0.6, 1e-5, 0.35, "hrw"),      # d = 2: the sensitivity has (2 pi h^2)^{d/2}
        (2, 41, 0.9, 1e-3, 0.6, "classical"),
        (1, 23, 3.0, 1e-6, 0.8, "analytic"),  # epsilon > 1: only the analytic calibration is valid
        (2, 31, 2.5, 2e-2, 0.5, "analytic"),
    ],
)
def test_private_kde_noise_is_exact_by_coupled_seeds(d, n, eps, delta, h, method):
    # released - KDE == sigma * (the GP draw of the same seed), sigma written out from n, h, d, eps,
    # delta and the method: catches a wrong d, n, noise factor, noise bandwidth or ignored method.
    rng = np.random.default_rng(100 + d)
    data = rng.normal(size=(n, d))
    axis = np.array([-1.3, 0.1, 1.4])
    grid = axis[:, None] if d == 1 else np.array([[a, b] for a in axis for b in axis[::-1] * 0.8])
    out = fn.private_kde(data, grid, eps, delta, h, np.random.default_rng(7), method=method)
    kde_ref = np.mean([stats.multivariate_normal.pdf(grid, mean=x, cov=h * h * np.eye(d)) for x in data], axis=0)
    sens = math.sqrt(2) / (n * (2 * math.pi * h * h) ** (d / 2))
    sigma = _sigma_written_out(eps, delta, sens, method)
    noise = _coupled_gp_draw(grid, h, 7)[:, 0]
    assert np.allclose(out - np.atleast_1d(kde_ref), sigma * noise, rtol=1e-8, atol=1e-13)


def test_private_kde_method_changes_the_noise():
    x, grid = np.array([0.1, 0.5, -0.3]), np.array([-1.0, 0.0, 1.0])
    draws = {m: fn.private_kde(x, grid, 0.8, 1e-4, 0.5, np.random.default_rng(3), method=m) - fn.kde(x, grid, 0.5)
             for m in ("hrw", "classical", "analytic")}
    ratio = draws["hrw"] / draws["classical"]
    assert np.allclose(ratio, math.sqrt(math.log(2 / 1e-4) / math.log(1.25 / 1e-4)), rtol=1e-10)
    assert np.all(np.abs(draws["analytic"]) < np.abs(draws["classical"]))  # analytic is the smallest valid sigma
    with pytest.raises(ValueError, match="method must be one of"):
        fn.private_kde(x, grid, 0.8, 1e-4, 0.5, np.random.default_rng(3), method="exact")


def test_private_kde_noise_has_the_gp_covariance():
    # A statistical check on top of the exact one: standardised noise ~ N(0, K_h) on the grid.
    rng = np.random.default_rng(6)
    x = rng.normal(size=50)
    grid = np.array([-1.0, 0.0, 0.7])
    eps, delta, h = 1.0, 1e-3, 0.5
    sigma = math.sqrt(2) / (50 * math.sqrt(2 * math.pi) * h) * _c_hrw(delta) / eps
    draws = np.stack([fn.private_kde(x, grid, eps, delta, h, rng) for _ in range(4000)])
    noise = (draws - fn.kde(x, grid, h)) / sigma
    # mean se 1/sqrt(4000) = 0.016, covariance se <= 0.023.
    assert np.abs(noise.mean(axis=0)).max() < 0.08
    assert np.abs(noise.T @ noise / 4000 - _gauss_gram(grid, grid, h)).max() < 0.1


def test_private_kde_two_dimensional_shape():
    rng = np.random.default_rng(8)
    out = fn.private_kde(rng.normal(size=(30, 2)), rng.normal(size=(9, 2)), 1.0, 1e-3, 0.5, rng)
    assert out.shape == (9,) and np.all(np.isfinite(out))


def test_gp_mechanism_is_values_plus_calibrated_noise():
    grid = np.array([0.0, 0.9, 2.1, 3.0])
    vals = np.array([1.0, -2.0, 0.5, 3.0])
    out = fn.gp_mechanism(vals, grid, 0.3, 0.5, 1e-4, 0.7, np.random.default_rng(11), method="classical")
    sigma = 0.3 * math.sqrt(2 * math.log(1.25 / 1e-4)) / 0.5
    assert np.allclose(out - vals, sigma * _coupled_gp_draw(grid, 0.7, 11)[:, 0], rtol=1e-9, atol=1e-14)
    with pytest.raises(ValueError, match=r"values must have one entry per point \(4\)"):
        fn.gp_mechanism(vals[:3], grid, 0.3, 0.5, 1e-4, 0.7, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^sensitivity must"):
        fn.gp_mechanism(vals, grid, 0.0, 0.5, 1e-4, 0.7, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^rng must"):
        fn.gp_mechanism(vals, grid, 0.3, 0.5, 1e-4, 0.7, 5)


# ---------------------------------------------------------------- new points
def _schur(old, new, vals, h, tau=1e-10):
    m = _gauss_gram(old, old, h) + tau * np.eye(len(old))
    cross = _gauss_gram(new, old, h)
    return cross @ np.linalg.solve(m, vals), _gauss_gram(new, new, h) - cross @ np.linalg.solve(m, cross.T)


def test_gp_conditional_matches_schur_complement():
    old = np.array([[0.0, 0.0], [1.0, 0.3], [-0.4, 1.2]])
    new = np.array([[0.5, 0.5], [2.0, -1.0]])
    vals = np.array([0.3, -1.1, 0.8])
    mean, cov = fn.gp_conditional(old, vals, new, 0.8)
    m_ref, c_ref = _schur(old, new, vals, 0.8)
    assert np.allclose(mean, m_ref, rtol=1e-10) and np.allclose(cov, c_ref, atol=1e-12)
    assert np.array_equal(cov, cov.T)
    with pytest.raises(ValueError, match=r"values must have one entry \(or row\) per point \(3\)"):
        fn.gp_conditional(old, vals[:2], new, 0.8)
    with pytest.raises(ValueError, match=r"values must have one entry \(or row\) per point"):
        fn.gp_conditional(old, np.zeros((3, 1, 1)), new, 0.8)
    # columns of values are conditioned on one by one
    many = np.column_stack([vals, 2 * vals[::-1]])
    assert np.allclose(fn.gp_conditional(old, many, new, 0.8)[0],
                       np.column_stack([m_ref, _schur(old, new, 2 * vals[::-1], 0.8)[0]]), rtol=1e-10)
    with pytest.raises(ValueError, match="new_points must have points of dimension 2"):
        fn.gp_conditional(old, vals, [0.0, 1.0], 0.8)


def test_gp_extend_is_a_coupled_conditional_draw():
    old, new = np.array([0.0, 0.8, 1.9]), np.array([0.4, 3.5])
    vals = np.array([1.2, -0.3, 0.4])
    got = fn.gp_extend(old, vals, new, 0.6, np.random.default_rng(5))
    m_ref, c_ref = _schur(old[:, None], new[:, None], vals, 0.6)
    z = np.random.default_rng(5).standard_normal(2)
    assert np.allclose(got, m_ref + linalg.cholesky(c_ref + 1e-10 * np.eye(2), lower=True) @ z, rtol=1e-8)
    # A new point that repeats an old one gets the old value: the conditional variance is 0 (the jitter grows).
    rep = fn.gp_extend(old, vals, [0.8], 0.6, np.random.default_rng(5))
    assert rep[0] == pytest.approx(-0.3, abs=1e-4)


# ---------------------------------------------------------------- bandwidth and risk
def test_normal_reference_bandwidth_reduces_to_silverman_in_1d():
    rng = np.random.default_rng(9)
    x = rng.normal(size=500)
    got = fn.normal_reference_bandwidth(x, scale="sd")[0]
    assert got == pytest.approx((4 / 3) ** 0.2 * x.std(ddof=1) * 500**-0.2)
    assert (4 / 3) ** 0.2 == pytest.approx(1.06, abs=0.001)  # the familiar 1.06
    iqr = np.subtract(*np.percentile(x, [75, 25]))
    assert fn.normal_reference_bandwidth(x)[0] == pytest.approx((4 / 3) ** 0.2 * iqr / 1.3489795 * 500**-0.2)


def test_normal_reference_bandwidth_2d_uses_d_plus_2():
    rng = np.random.default_rng(10)
    x = rng.normal(size=(200, 2)) * [1.0, 3.0]
    got = fn.normal_reference_bandwidth(x, scale="sd")
    assert np.allclose(got, (4 / (4 * 200)) ** (1 / 6) * x.std(axis=0, ddof=1))


@pytest.mark.parametrize("n,h", [(1, 1.0), (10, 0.5), (1000, 0.25)])
def test_normal_kde_mise_matches_quadrature(n, h):
    s = math.sqrt(1 + h * h)

    def integrand(t):
        bias2 = (stats.norm.pdf(t, scale=s) - stats.norm.pdf(t)) ** 2
        second = stats.norm.pdf(t, scale=math.sqrt(1 + h * h / 2)) / (2 * math.sqrt(math.pi) * h)
        return bias2 + (second - stats.norm.pdf(t, scale=s) ** 2) / n

    assert fn.normal_kde_mise(n, h) == pytest.approx(integrate.quad(integrand, -np.inf, np.inf)[0], rel=1e-8, abs=0)


def test_kde_ise_normal_private_adds_noise_energy():
    # E ISE_private - E ISE = sigma^2 * (1 + tau) * |T| exactly; with 400 reps the difference of
    # means has a standard error ~ 5% of sigma^2 |T| here, so 25% is a safe tolerance.
    grid = np.linspace(-4, 4, 81)
    ise, isep = fn.kde_ise_normal(200, 0.4, grid, np.random.default_rng(11), reps=400, epsilon=1.0, delta=1e-2)
    sigma = fn.rkhs_sensitivity(200, 0.4) * math.sqrt(2 * math.log(2 / 1e-2)) / 1.0
    assert np.mean(isep - ise) == pytest.approx(sigma**2 * 8.0, rel=0.25, abs=0)
    assert np.mean(ise) == pytest.approx(fn.normal_kde_mise(200, 0.4), rel=0.15, abs=0)


@pytest.mark.parametrize("method,eps", [("hrw", 0.6), ("analytic", 2.0)])
def test_kde_ise_normal_is_exact_by_coupled_seeds(method, eps):
    # Reproduce the whole stream of default_rng(seed): reps samples, then one (m, reps) block of
    # standard normals for the GP noise; integrate with scipy's trapezoid.
    n, h, delta, reps = 40, 0.7, 1e-3, 3
    grid = np.linspace(-4, 4, 9)                       # spacing > h: the first jitter 1e-10 works
    ise, ise_p = fn.kde_ise_normal(n, h, grid, np.random.default_rng(21), reps=reps, epsilon=eps, delta=delta,
                                   method=method)
    rng = np.random.default_rng(21)
    samples = [rng.standard_normal(n) for _ in range(reps)]
    z = rng.standard_normal((grid.size, reps))
    est = np.stack([stats.norm.pdf(grid[:, None], loc=x[None, :], scale=h).mean(axis=1) for x in samples])
    sigma = _sigma_written_out(eps, delta, math.sqrt(2) / (n * math.sqrt(2 * math.pi) * h), method)
    noisy = est + sigma * (linalg.cholesky(_gauss_gram(grid, grid, h) + 1e-10 * np.eye(9), lower=True) @ z).T
    truth = stats.norm.pdf(grid)
    assert np.allclose(ise, integrate.trapezoid((est - truth) ** 2, grid, axis=1), rtol=1e-10)
    assert np.allclose(ise_p, integrate.trapezoid((noisy - truth) ** 2, grid, axis=1), rtol=1e-10)


def test_kde_ise_normal_needs_both_privacy_parameters():
    grid = np.linspace(-1, 1, 5)
    with pytest.raises(ValueError, match=r"^delta must"):
        fn.kde_ise_normal(10, 0.5, grid, np.random.default_rng(0), epsilon=1.0)
    with pytest.raises(ValueError, match=r"^epsilon must"):
        fn.kde_ise_normal(10, 0.5, grid, np.random.default_rng(0), delta=0.1)
    with pytest.raises(ValueError, match="reps"):
        fn.kde_ise_normal(10, 0.5, grid, np.random.default_rng(0), reps=0)
    with pytest.raises(ValueError, match="grid must be increasing"):
        fn.kde_ise_normal(10, 0.5, [0.0], np.random.default_rng(0))


# ---------------------------------------------------------------- cross-validation
def test_lscv_matches_quadrature_and_explicit_leave_one_out():
    rng = np.random.default_rng(12)
    x = rng.normal(size=15)
    h = 0.45
    int_sq = integrate.quad(lambda t: fn.kde(x, [t], h)[0] ** 2, -np.inf, np.inf, epsabs=1e-13, limit=200)[0]
    loo = np.mean([fn.kde(np.delete(x, i), [x[i]], h)[0] for i in range(15)])
    assert fn.lscv(x, h) == pytest.approx(int_sq - 2 * loo, rel=1e-8, abs=0)


def _lscv_parts(x, h):
    """(integral of f_D^2 by quadrature, mean leave-one-out value by explicit loops), 1-D."""
    lo, hi = x.min() - 12 * h, x.max() + 12 * h
    pts = np.sort(x)
    int_sq = integrate.quad(lambda t: fn.kde(x, [t], h)[0] ** 2, lo, hi, points=pts[:50], limit=400, epsabs=1e-13)[0]
    loo = np.mean([stats.norm.pdf(x[i], loc=np.delete(x, i), scale=h).mean() for i in range(x.size)])
    return int_sq, loo


@pytest.mark.parametrize("n,h", [(9, 0.3), (14, 0.55)])
def test_lscv_sensitivity_simple_bound_is_the_sum_of_two_attained_ranges(n, h):
    # Worst-case pair: n-1 records in a tight cluster, the last one in it or moved far away. Each part of
    # LSCV moves by its full range there, so the simple bound is exactly the sum of the two changes.
    x = np.zeros(n)
    y = x.copy(); y[-1] = 200 * h
    (i0, l0), (i1, l1) = _lscv_parts(x, h), _lscv_parts(y, h)
    first, second = abs(i1 - i0), abs(2 * (l1 - l0))
    assert first == pytest.approx(2 * (n - 1) / n**2 / (2 * math.sqrt(math.pi) * h), rel=1e-8)
    assert fn.lscv_sensitivity(n, h) == pytest.approx(first + second, rel=1e-8, abs=0)
    # ... but the two parts move in opposite directions, so the change of LSCV itself is their difference.
    assert abs(fn.lscv(y, h) - fn.lscv(x, h)) == pytest.approx(second - first, rel=1e-8, abs=0)


@pytest.mark.parametrize("n,h,d", [(12, 0.3, 1), (20, 0.8, 1), (15, 0.4, 2), (8, 1.3, 3)])
def test_lscv_sensitivity_sharp_is_attained_and_never_exceeded(n, h, d):
    sharp = fn.lscv_sensitivity(n, h, d, sharp=True)
    # Attained: cluster at 0, the last record at 0 or at the distance where psi is largest (found by a
    # brute-force search over distances, not from the closed form).
    x = np.zeros((n, d))

    def moved(t):
        y = x.copy(); y[-1, 0] = t
        return fn.lscv(y, h) - fn.lscv(x, h)

    ts = np.linspace(0, 8 * h, 4001)
    changes = np.array([moved(t) for t in ts])
    assert changes.max() == pytest.approx(sharp, rel=1e-5, abs=0)
    best = optimize.minimize_scalar(lambda t: -moved(t), bracket=(ts[changes.argmax() - 1], ts[changes.argmax()],
                                                                  ts[changes.argmax() + 1]))
    assert -best.fun == pytest.approx(sharp, rel=1e-10, abs=0)
    # Never exceeded on random pairs (asymmetric data, every record replaced somewhere), and below the simple bound.
    rng = np.random.default_rng(13 + d)
    for _ in range(150):
        a = rng.normal(size=(n, d)) * rng.uniform(0.05, 2)
        b = a.copy(); b[rng.integers(n)] = rng.uniform(-5, 5, d)
        assert abs(fn.lscv(a, h) - fn.lscv(b, h)) <= sharp * (1 + 1e-9)
    assert sharp < fn.lscv_sensitivity(n, h, d)
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        fn.lscv_sensitivity(1, h)
    with pytest.raises(ValueError, match="d must be an integer >= 1"):
        fn.lscv_sensitivity(n, h, 0)
    with pytest.raises(ValueError, match=r"^bandwidth must"):
        fn.lscv(x, 0.0)
    with pytest.raises(ValueError, match="at least 2"):
        fn.lscv(x[:1], h)


def test_lscv_in_two_dimensions_matches_explicit_sums():
    rng = np.random.default_rng(14)
    x, h = rng.normal(size=(7, 2)) * [1.0, 0.4], 0.5
    both = np.mean([[stats.multivariate_normal.pdf(a, mean=b, cov=2 * h * h * np.eye(2)) for b in x] for a in x])
    loo = np.mean([np.mean([stats.multivariate_normal.pdf(x[i], mean=x[j], cov=h * h * np.eye(2))
                            for j in range(7) if j != i]) for i in range(7)])
    assert fn.lscv(x, h) == pytest.approx(both - 2 * loo, rel=1e-10, abs=0)


# ---------------------------------------------------------------- Sobolev space and regularised ERM
@pytest.mark.parametrize("n,h", [(10, 0.3), (25, 1.2)])
def test_sobolev_kde_sensitivity_is_the_supremum_by_quadrature(n, h):
    def sq_norm(u):  # int g^2 + g'^2 for g = (phi_h(. - 0) - phi_h(. - u)) / n; the trapezoid rule on a
        # fine grid is accurate to rounding for these smooth, fast-decaying integrands
        t = np.linspace(min(0, u) - 12 * h, max(0, u) + 12 * h, 20001)
        g = (stats.norm.pdf(t, 0, h) - stats.norm.pdf(t, u, h)) / n
        dg = (-t * stats.norm.pdf(t, 0, h) + (t - u) * stats.norm.pdf(t, u, h)) / (h * h * n)
        return integrate.trapezoid(g**2 + dg**2, t)

    us = np.linspace(0, 8 * h + 4, 161)
    vals = np.array([sq_norm(u) for u in us])
    best = optimize.minimize_scalar(lambda u: -sq_norm(u), bounds=(us[vals.argmax() - 1], us[vals.argmax() + 1]),
                                    method="bounded", options={"xatol": 1e-10})
    assert math.sqrt(-best.fun) == pytest.approx(fn.sobolev_kde_sensitivity(n, h), rel=1e-7, abs=0)
    assert best.x**2 == pytest.approx(2 * h * h * (2 * h * h + 3), rel=1e-4, abs=0)   # the worst distance is finite
    assert math.sqrt(sq_norm(60.0)) < fn.sobolev_kde_sensitivity(n, h)  # far apart is not the worst
    assert fn.sobolev_kde_sensitivity(1, h) == pytest.approx(n * fn.sobolev_kde_sensitivity(n, h), rel=1e-14, abs=0)
    with pytest.raises(ValueError, match=r"^bandwidth must"):
        fn.sobolev_kde_sensitivity(n, 0.0)


def test_erm_sensitivity_formula_and_inputs():
    assert fn.erm_sensitivity(40, 0.02) == pytest.approx(1 / 0.8)
    assert fn.erm_sensitivity(40, 0.02, lipschitz=3.0, kappa=0.5) == pytest.approx(1.5 / 0.8)
    assert fn.erm_sensitivity(7, 0.3, lipschitz=2.0) == pytest.approx(2 / 2.1)
    assert fn.erm_sensitivity(1, 0.5) == pytest.approx(2.0)                  # n = 1 is allowed
    for kw, name in [({"lam": 0.0}, "lam"), ({"lipschitz": -1.0}, "lipschitz"), ({"kappa": 0.0}, "kappa")]:
        args = {"lam": 0.1} | kw
        with pytest.raises(ValueError, match=rf"^{name} must"):
            fn.erm_sensitivity(10, **args)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        fn.erm_sensitivity(0, 0.1)


def _klr_objective(beta, gram, y, lam):
    f = gram @ beta
    return np.mean(np.logaddexp(0, -y * f)) + lam * beta @ gram @ beta


def test_kernel_logistic_regression_minimises_the_objective():
    rng = np.random.default_rng(15)
    x = rng.normal(size=(25, 2))
    y = np.where(x[:, 0] + 0.5 * rng.normal(size=25) > 0, 1.0, -1.0)
    h, lam = 0.9, 0.03
    alpha = fn.kernel_logistic_regression(x, y, h, lam)
    gram = _gauss_gram(x, x, h)
    res = optimize.minimize(_klr_objective, np.zeros(25), args=(gram, y, lam), method="BFGS",
                            options={"gtol": 1e-12, "maxiter": 5000})
    assert _klr_objective(alpha, gram, y, lam) <= res.fun + 1e-12
    assert np.allclose(gram @ alpha, gram @ res.x, atol=2e-5)   # the same function at the data
    # optimality in every direction of the span (the objective's gradient in beta is gram @ (...))
    grad = gram @ (-(y / (1 + np.exp(y * (gram @ alpha)))) / 25 + 2 * lam * alpha)
    assert np.abs(grad).max() < 1e-10


def test_kernel_logistic_regression_sensitivity_bound_holds_and_is_not_vacuous():
    rng = np.random.default_rng(16)
    n, h, lam = 30, 0.5, 0.05
    bound = fn.erm_sensitivity(n, lam)
    ratios = []
    for trial in range(40):
        x = rng.uniform(-2, 2, n)
        y = np.where(rng.uniform(size=n) < 0.5 + 0.4 * np.tanh(x), 1.0, -1.0)
        x2, y2 = x.copy(), y.copy()
        if trial == 0:                      # near worst case: an isolated record moved to another isolated place
            x[-1], x2[-1], y[-1], y2[-1] = -30.0, 30.0, 1.0, 1.0
        else:
            x2[-1], y2[-1] = rng.uniform(-4, 4), -y[-1]
        a, b = fn.kernel_logistic_regression(x, y, h, lam), fn.kernel_logistic_regression(x2, y2, h, lam)
        centres = np.concatenate([x, x2])
        ratios.append(fn.rkhs_norm(np.concatenate([a, -b]), centres, h) / bound)
    assert max(ratios) <= 1.0 and ratios[0] > 0.3


def test_kernel_logistic_regression_bad_inputs():
    with pytest.raises(ValueError, match="labels must be 2 values in"):
        fn.kernel_logistic_regression([0.0, 1.0], [0, 1], 1.0, 0.1)
    with pytest.raises(ValueError, match="labels must be 2 values in"):
        fn.kernel_logistic_regression([0.0, 1.0], [1.0], 1.0, 0.1)
    with pytest.raises(ValueError, match=r"^lam must"):
        fn.kernel_logistic_regression([0.0, 1.0], [-1, 1], 1.0, 0.0)
    with pytest.raises(ValueError, match="max_iter must be raised"):
        fn.kernel_logistic_regression([0.0, 1.0], [-1, 1], 1.0, 1e-3, max_iter=1)
    with pytest.raises(ValueError, match=r"^tol must"):
        fn.kernel_logistic_regression([0.0, 1.0], [-1, 1], 1.0, 0.1, tol=0.0)


# ---------------------------------------------------------------- bad inputs
RNG = np.random.default_rng(0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"bandwidth": 0.0}, "bandwidth"),
        ({"bandwidth": -1.0}, "bandwidth"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"grid": np.zeros((3, 2))}, "grid"),
        ({"grid": np.zeros((2, 2, 2))}, "grid"),
        ({"grid": [0.0, np.nan]}, "grid"),
        ({"data": []}, "data"),
        ({"rng": 3}, "rng"),
    ],
)
def test_private_kde_bad_inputs(kwargs, match):
    args = {"data": [0.0, 1.0], "grid": [0.0, 0.5], "epsilon": 1.0, "delta": 1e-3, "bandwidth": 0.5, "rng": RNG}
    args.update(kwargs)
    with pytest.raises(ValueError, match=rf"^{match} must"):
        fn.private_kde(**args)


def test_other_bad_inputs():
    with pytest.raises(ValueError, match=r"^bandwidth must"):
        fn.gaussian_kernel([0.0], [0.0], 0)
    with pytest.raises(ValueError, match="y must have points of dimension 1"):
        fn.gaussian_kernel([0.0], [[0.0, 1.0]], 1.0)
    with pytest.raises(ValueError, match=r"^bandwidth must"):
        fn.kde([0.0], [0.0], -0.1)
    with pytest.raises(ValueError, match=r"^grid must"):
        fn.kde([[0.0, 1.0]], [0.0], 0.1)
    with pytest.raises(ValueError, match="gram must have shape"):
        fn.mahalanobis_norm([1.0, 2.0], np.eye(3))
    with pytest.raises(ValueError, match="positive definite"):
        fn.mahalanobis_norm([1.0, 2.0], [[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="coef"):
        fn.rkhs_norm([1.0], [0.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        fn.rkhs_sensitivity(0, 1.0)
    with pytest.raises(ValueError, match="d must be"):
        fn.rkhs_sensitivity(10, 1.0, d=0)
    with pytest.raises(ValueError, match="x_prime"):
        fn.kde_difference_rkhs_norm([0.0, 1.0], [0.0], 5, 1.0)
    with pytest.raises(ValueError, match=r"^size must"):
        fn.sample_gp([0.0], 1.0, RNG, size=0)
    with pytest.raises(ValueError, match=r"^rng must"):
        fn.sample_gp([0.0], 1.0, 42)
    with pytest.raises(ValueError, match=r"^jitter must"):
        fn.gp_cholesky([0.0], 1.0, jitter=0.0)
    with pytest.raises(ValueError, match=r"^scale must"):
        fn.normal_reference_bandwidth([0.0, 1.0], scale="mad")
    with pytest.raises(ValueError, match="at least 2"):
        fn.normal_reference_bandwidth([0.0])
    with pytest.raises(ValueError, match=r"^bandwidth must"):
        fn.normal_kde_mise(10, 0.0)
    with pytest.raises(ValueError, match="grid must be increasing"):
        fn.kde_ise_normal(10, 0.5, [1.0, 0.0], RNG)
    with pytest.raises(ValueError, match=r"^epsilon must"):
        fn.kde_ise_normal(10, 0.5, [0.0, 1.0], RNG, epsilon=-1.0, delta=0.1)


def _exactly(message):
    import re

    return "^" + re.escape(message) + "$"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: fn.kde_difference_rkhs_norm(0.0, 1.0, 0, 1.0), "n must be an integer >= 1, got 0"),
        (lambda: fn.kde_difference_rkhs_norm(0.0, 1.0, 5, -0.5), "bandwidth must be > 0, got -0.5"),
        (lambda: fn.kde_difference_rkhs_norm([0.0, np.nan], [1.0, 2.0], 5, 1.0), "x must have finite entries"),
        (lambda: fn.kde_difference_rkhs_norm([0.0, 1.0], [np.inf, 2.0], 5, 1.0), "x_prime must have finite entries"),
        (lambda: fn.kde_difference_rkhs_norm([[0.0, 1.0], [1.0, 1.0]], [[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]], 5, 1.0),
         "x_prime must have points of dimension 2, got shape (2, 3)"),
        (lambda: fn.mahalanobis_norm([1.0, 2.0], [[1.0, 2.0], [2.0, 1.0]]), "gram must be positive definite (Cholesky failed)"),
        (lambda: fn.normal_reference_bandwidth([0.0, np.nan, 1.0]), "data must have finite entries"),
    ],
)
def test_bad_inputs_exact_messages(call, message):
    with pytest.raises(ValueError, match=_exactly(message)):
        call()


def test_kde_difference_rkhs_norm_names_a_non_numeric_argument():
    with pytest.raises(ValueError, match="^x must be an array of real numbers, got "):
        fn.kde_difference_rkhs_norm("a", 1.0, 5, 1.0)
    with pytest.raises(ValueError, match="^x_prime must be an array of real numbers, got "):
        fn.kde_difference_rkhs_norm(1.0, ["b"], 5, 1.0)


def test_kde_difference_rkhs_norm_with_a_single_record():
    # n = 1 is allowed: f_D - f_D' = c (K(., x) - K(., x')) with c = (2 pi h^2)^(-d/2); its RKHS norm
    # is the quadratic form of (c, -c) in the Gram matrix of x, x' (computed here by hand, in 2-D)
    h, x, xp = 0.7, np.array([0.3, -1.0]), np.array([1.1, 0.4])
    c = 1.0 / (2 * math.pi * h * h)
    k = math.exp(-np.sum((x - xp) ** 2) / (2 * h * h))
    expect = math.sqrt(c * c * (1 + 1 - 2 * k))
    assert fn.kde_difference_rkhs_norm([x], [xp], 1, h)[0] == pytest.approx(expect, rel=1e-14, abs=0)


_GEN_MSG = "must be a numpy.random.Generator (use numpy.random.default_rng(seed)), got int"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: fn.rkhs_norm([1.0, 2.0], [0.0, 1.0, 2.0], 1.0), "coef must have one entry per centre (3), got shape (2,)"),
        (lambda: fn.rkhs_norm([1.0], [np.nan], 1.0), "centers must have finite entries"),
        (lambda: fn.gp_extend([0.0], [1.0], [0.5], 1.0, 42), "rng " + _GEN_MSG),
        (lambda: fn.kde_ise_normal(0, 0.5, [0.0, 1.0], RNG), "n must be an integer in [1, 100000000], got 0"),
        (lambda: fn.kde_ise_normal(5, 0.0, [0.0, 1.0], RNG), "bandwidth must be > 0, got 0"),
        (lambda: fn.kde_ise_normal(5, 0.5, [0.0, 1.0], 7), "rng " + _GEN_MSG),
        (lambda: fn.kde_ise_normal(5, 0.5, [0.0, 1.0], RNG, reps=0), "reps must be an integer in [1, 100000], got 0"),
        (lambda: fn.kde_ise_normal(5, 0.5, [[0.0, 1.0], [1.0, 2.0]], RNG), "grid must have points of dimension 1, got shape (2, 2)"),
        (lambda: fn.kde_ise_normal(5, 0.5, [0.0, np.nan], RNG), "grid must have finite entries"),
        # a repeated grid point is not increasing
        (lambda: fn.kde_ise_normal(5, 0.5, [0.0, 0.0, 1.0], RNG), "grid must be increasing with at least 2 points"),
        (lambda: fn.kde_ise_normal(5, 0.5, [0.0], RNG), "grid must be increasing with at least 2 points"),
    ],
)
def test_more_bad_inputs_exact_messages(call, message):
    with pytest.raises(ValueError, match=_exactly(message)):
        call()


def test_kde_ise_normal_defaults_and_smallest_sizes_by_coupled_seeds():
    g = np.linspace(-4.0, 4.0, 201)
    ise, none = fn.kde_ise_normal(30, 0.4, g, np.random.default_rng(3))
    assert none is None and ise.shape == (10,)            # the documented default reps = 10
    # n = 1, reps = 1: the KDE is the N(x, h^2) density of the one seeded draw x
    h = 0.6
    (got,), _ = fn.kde_ise_normal(1, h, g, np.random.default_rng(4), reps=1)
    x = np.random.default_rng(4).standard_normal(1)[0]
    want = np.trapezoid((stats.norm.pdf(g, x, h) - stats.norm.pdf(g)) ** 2, g)
    assert got == pytest.approx(want, rel=1e-12, abs=0)


def test_gp_extend_uses_the_given_jitter():
    """With jitter tau the conditional is computed from K_gg + tau I, and the draw from a Cholesky
    factor of the conditional covariance + tau I (same seed); checked by solving directly."""
    old, new = np.array([0.0, 0.8, 1.9]), np.array([0.4, 3.5])
    vals = np.array([1.2, -0.3, 0.4])
    h, tau = 0.6, 1e-3
    k = lambda u, v: np.exp(-np.subtract.outer(u, v) ** 2 / (2 * h * h))
    kgg = k(old, old) + tau * np.eye(3)
    mean = k(new, old) @ np.linalg.solve(kgg, vals)
    cov = k(new, new) - k(new, old) @ np.linalg.solve(kgg, k(old, new))
    z = np.random.default_rng(6).standard_normal(2)
    want = mean + np.linalg.cholesky(cov + tau * np.eye(2)) @ z
    got = fn.gp_extend(old, vals, new, h, np.random.default_rng(6), jitter=tau)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-12)
    # the jitter matters at this size: the default gives a visibly different release
    assert not np.allclose(fn.gp_extend(old, vals, new, h, np.random.default_rng(6)), want, rtol=1e-6, atol=0)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: fn.gp_conditional([np.nan], [1.0], [0.5], 1.0), "points must have finite entries"),
        (lambda: fn.normal_kde_mise(0, 0.5), "n must be an integer >= 1, got 0"),
        (lambda: fn.lscv_sensitivity(5, 0.0), "bandwidth must be > 0, got 0"),
        (lambda: fn.sobolev_kde_sensitivity(0, 1.0), "n must be an integer >= 1, got 0"),
        (lambda: fn.kernel_logistic_regression([0.0, np.nan], [1, -1], 1.0, 0.1), "data must have finite entries"),
        (lambda: fn.kernel_logistic_regression([0.0, 1.0], [1, 2], 1.0, 0.1), "labels must be 2 values in {-1, 1}, got array([1, 2])"),
        (lambda: fn.kernel_logistic_regression([0.0, 1.0], [1, -1], 1.0, 0.1, max_iter=0), "max_iter must be an integer >= 1, got 0"),
    ],
)
def test_remaining_bad_inputs_exact_messages(call, message):
    with pytest.raises(ValueError, match=_exactly(message)):
        call()


def test_gp_conditional_uses_the_given_jitter():
    old, new = np.array([0.0, 0.8, 1.9]), np.array([0.4, 3.5])
    vals = np.array([1.2, -0.3, 0.4])
    h, tau = 0.6, 1e-3
    k = lambda u, v: np.exp(-np.subtract.outer(u, v) ** 2 / (2 * h * h))
    kgg = k(old, old) + tau * np.eye(3)
    mean, cov = fn.gp_conditional(old, vals, new, h, jitter=tau)
    assert np.allclose(mean, k(new, old) @ np.linalg.solve(kgg, vals), rtol=1e-12, atol=1e-14)
    assert np.allclose(cov, k(new, new) - k(new, old) @ np.linalg.solve(kgg, k(old, new)), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: fn.kde([np.nan], [0.0], 1.0), "data must have finite entries"),
        (lambda: fn.lscv([0.0, np.nan], 1.0), "data must have finite entries"),
        (lambda: fn.rkhs_sensitivity(5, -1.0), "bandwidth must be > 0, got -1"),
        (lambda: fn.gp_mechanism([1.0], [np.nan], 1.0, 1.0, 0.1, 1.0, RNG), "points must have finite entries"),
    ],
)
def test_last_bad_inputs_exact_messages(call, message):
    with pytest.raises(ValueError, match=_exactly(message)):
        call()


def test_jitter_reaches_the_gp_draw_in_sample_gp_gp_mechanism_and_private_kde():
    """With jitter tau the noise is L z, L the Cholesky factor of K + tau I, z the seeded standard
    normals: checked for sample_gp (default size 1), gp_mechanism and private_kde by coupled seeds."""
    from dpnotes.mechanisms import gaussian_sigma

    g, h, tau = np.linspace(0.0, 1.0, 6), 0.3, 1e-3
    lower = np.linalg.cholesky(np.exp(-np.subtract.outer(g, g) ** 2 / (2 * h * h)) + tau * np.eye(6))
    z = np.random.default_rng(7).standard_normal((6, 1))[:, 0]
    draw = fn.sample_gp(g, h, np.random.default_rng(7), jitter=tau)
    assert draw.shape == (1, 6)
    assert np.allclose(draw[0], lower @ z, rtol=1e-12, atol=1e-14)
    vals = np.array([0.5, -1.0, 2.0, 0.0, 1.5, 3.0])
    sigma = gaussian_sigma(0.8, 1e-4, 0.2, method="hrw")
    got = fn.gp_mechanism(vals, g, 0.2, 0.8, 1e-4, h, np.random.default_rng(7), jitter=tau)
    assert np.allclose(got - vals, sigma * (lower @ z), rtol=1e-12, atol=1e-12)
    data = np.array([0.1, 0.4, 0.45, 0.9])
    sigma = gaussian_sigma(0.8, 1e-4, fn.rkhs_sensitivity(4, h, 1), method="hrw")
    got = fn.private_kde(data, g, 0.8, 1e-4, h, np.random.default_rng(7), jitter=tau)
    assert np.allclose(got - fn.kde(data, g, h), sigma * (lower @ z), rtol=1e-12, atol=1e-12)


def test_point_and_jitter_validation_exact_messages():
    with pytest.raises(ValueError, match=_exactly("grid must have shape (m,) or (m, d) with m, d >= 1, got shape (1, 1, 1)")):
        fn.as_points("grid", [[[0.0]]])
    with pytest.raises(ValueError, match=_exactly("x must have finite entries")):
        fn.gaussian_kernel([np.nan], [0.0], 1.0)
    with pytest.raises(ValueError, match=_exactly("max_jitter must be > 0, got 0")):
        fn.gp_cholesky([0.0], 1.0, max_jitter=0)
    # an indefinite matrix (eigenvalue -1): the jitter grows from 1e-10 by factors of 10 while it
    # stays <= max_jitter = 1e-4, so the last one tried is 1e-10 * 10^6 (in floats)
    tau = 1e-10
    for _ in range(6):
        tau *= 10.0
    with pytest.raises(ValueError, match=_exactly(f"jitter must be raised: Cholesky failed up to {tau!r}")):
        fn._jittered_cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]), 1e-10, 1e-4)


def test_gp_cholesky_default_jitter_is_1e_10():
    pts = np.array([0.0, 0.5, 1.3])
    lower, tau = fn.gp_cholesky(pts, 0.7)
    assert tau == 1e-10
    gram = np.exp(-np.subtract.outer(pts, pts) ** 2 / (2 * 0.7 ** 2))
    assert np.allclose(lower @ lower.T, gram + 1e-10 * np.eye(3), rtol=0, atol=1e-15)


def test_kde_in_several_blocks_matches_the_direct_sum():
    # 100_000 data points: kde evaluates the grid in blocks of 2e6 // n = 20 points, so a grid
    # of 47 points takes three blocks (the last one partial); every block must be filled
    rng = np.random.default_rng(12)
    x, g, h = rng.standard_normal(100_000), np.linspace(-3.0, 3.0, 47), 0.25
    got = fn.kde(x, g, h)       # first: an unfilled block could otherwise reuse the reference's freed memory
    direct = np.exp(-np.subtract.outer(g, x) ** 2 / (2 * h * h)).sum(axis=1) / (x.size * math.sqrt(2 * math.pi) * h)
    assert 2_000_000 // x.size < g.size
    assert np.allclose(got, direct, rtol=1e-12, atol=0)


# ---------------------------------------------------------------- extreme bandwidths
# References at 50 digits (mpmath, each test under mp.workdps(50)) from the defining formulas, with the
# floats given exactly (mp.mpf of a float is that float); a value beyond the float range is checked to
# be beyond it first.
_MAX = mp.mpf(sys.float_info.max)


def _mp_kernel(x, y, h):
    return mp.exp(-(mp.mpf(x) - mp.mpf(y)) ** 2 / (2 * mp.mpf(h) ** 2))


def _mp_phi(t, h):                         # the N(0, h^2) density at t
    return mp.exp(-mp.mpf(t) ** 2 / (2 * mp.mpf(h) ** 2)) / (mp.sqrt(2 * mp.pi) * mp.mpf(h))


@mp.workdps(50)
def test_gaussian_kernel_at_bandwidths_whose_square_under_or_overflows():
    """h^2 underflowed to 0 below 1.5e-154 (0 / 0 = nan on the diagonal, where the kernel is 1) and
    overflowed above 9e153; the kernel is exp(-(x - y)^2 / (2 h^2)) at every h."""
    x, y = [0.0, 1e-300, 3.0], [0.0, 2.5e-300]
    got = fn.gaussian_kernel(x, y, 1e-300)
    want = [[float(_mp_kernel(a, b, 1e-300)) for b in y] for a in x]   # 1, e^-3.125; e^-0.5, e^-1.125; 0, 0
    assert want[0][1] < want[1][0] and want[2] == [0.0, 0.0]
    assert np.allclose(got, want, rtol=1e-14, atol=0)
    # two dimensions, 5e-200 apart at h = 1e-200: e^-12.5 (cdist's squared distance underflows there)
    k2 = fn.gaussian_kernel([[0.0, 0.0], [3e-200, 4e-200]], [[0.0, 0.0]], 1e-200)[:, 0]
    assert k2[0] == 1.0 and math.isclose(k2[1], math.exp(-12.5), rel_tol=1e-14)
    # the smallest bandwidth: 1 on the diagonal, 0 off it; a huge one: 1 nearby, e^-1/2 and e^-2 at h and 2h
    assert fn.gaussian_kernel([0.0, 1.0], [0.0, 1.0], 5e-324).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    far = fn.gaussian_kernel([0.0], [3.0, 1e300, -2e300], 1e300)[0]
    assert far[0] == 1.0 and np.allclose(far[1:], [math.exp(-0.5), math.exp(-2.0)], rtol=1e-14, atol=0)


@mp.workdps(50)
def test_normalised_kernel_at_extreme_bandwidths_is_the_normal_density():
    """(2 pi h^2)^(-1/2) raised 0.0 to a negative power below h = 1.5e-154 and was 0 above 1e154."""
    ts = [0.0, 1e-300, 40e-300]                         # the last: e^-800 times 4e299, about 1.5e-48
    got = fn.gaussian_kernel(ts, [0.0], 1e-300, normalized=True)[:, 0]
    want = [float(_mp_phi(t, 1e-300)) for t in ts]
    assert np.allclose(got, want, rtol=1e-13, atol=0) and 1e-49 < got[2] < 1e-47
    got = fn.gaussian_kernel([0.0, 1e300], [0.0], 1e300, normalized=True)[:, 0]
    assert np.allclose(got, [float(_mp_phi(0.0, 1e300)), float(_mp_phi(1e300, 1e300))], rtol=1e-14, atol=0)
    assert _mp_phi(0.0, 5e-324) > _MAX                  # 8.1e322: beyond the float range
    assert fn.gaussian_kernel([0.0, 1.0], [0.0], 5e-324, normalized=True)[:, 0].tolist() == [math.inf, 0.0]


@mp.workdps(50)
def test_kde_at_extreme_bandwidths():
    """At h = 1e-300 the KDE is 0 away from the data and (2 pi h^2)^(-1/2) / n on it; the plain sum
    gave nan (0 / 0) and at h = 1e300 it gave 0 (or nan) for 4e-301."""
    data, grid = [0.0, 1.0], [0.0, 0.5, 3e-299]        # 3e-299 is 30 h from 0: e^-450 times 2e299
    got = fn.kde(data, grid, 1e-300)
    want = [float(sum(_mp_phi(g - x, 1e-300) for x in data) / 2) for g in grid]
    assert want[1] == 0.0 and 1e100 < want[2] < 1e110
    assert np.allclose(got, want, rtol=1e-13, atol=0)
    got = fn.kde(data, [0.0, 1e300], 1e300)
    want = [float(sum(_mp_phi(g - x, 1e300) for x in data) / 2) for g in [0.0, 1e300]]
    assert np.allclose(got, want, rtol=1e-14, atol=0) and got[0] > got[1]
    assert fn.kde(data, grid, 5e-324).tolist() == [math.inf, 0.0, 0.0]
    # two dimensions at h = 1e-120: 1 / (2 pi h^2) on the point, times e^-12.5 at 5 h
    got = fn.kde([[0.0, 0.0]], [[0.0, 0.0], [3e-120, 4e-120]], 1e-120)
    c = 1 / (2 * mp.pi * mp.mpf(1e-120) ** 2)
    assert np.allclose(got, [float(c), float(c * mp.exp(-12.5))], rtol=1e-13, atol=0)


@mp.workdps(50)
def test_sensitivities_of_the_kde_at_extreme_bandwidths():
    """sqrt(2) / (n (2 pi h^2)^(d/2)): ZeroDivisionError below h = 1.5e-154, 0 above 1e154."""
    def mp_delta(n, h, d):
        return mp.sqrt(2) / (n * (2 * mp.pi * mp.mpf(h) ** 2) ** (mp.mpf(d) / 2))

    for n, h, d in [(10, 1e-300, 1), (10, 1e300, 1), (3, 1e-120, 2), (7, 1e120, 2), (2, 1e-102, 3)]:
        assert math.isclose(fn.rkhs_sensitivity(n, h, d), float(mp_delta(n, h, d)), rel_tol=1e-14)
    assert mp_delta(10, 5e-324, 1) > _MAX and fn.rkhs_sensitivity(10, 5e-324) == math.inf
    assert mp_delta(10, 1e300, 2) < mp.mpf(2) ** -1075 and fn.rkhs_sensitivity(10, 1e300, d=2) == 0.0
    # the exact norm of a replaced record: 0 for the same record, sqrt(2) c far apart, and
    # c sqrt(2 - 2 e^-2) for records 2 h apart
    h, n = 1e-300, 10
    got = fn.kde_difference_rkhs_norm([0.0, 1.0, 2e-300], [0.0, 0.0, 0.0], n, h)
    c = 1 / (n * mp.sqrt(2 * mp.pi) * mp.mpf(h))
    want = [0.0, float(mp.sqrt(2) * c), float(c * mp.sqrt(2 - 2 * mp.exp(-2)))]
    assert got[0] == 0.0 and np.allclose(got, want, rtol=1e-14, atol=0)
    assert fn.kde_difference_rkhs_norm([0.0, 1.0], [0.0, 0.0], n, 5e-324).tolist() == [0.0, math.inf]
    # records 3 apart at h = 1e300: c (3 / h), about 1.7e-601: 0 in floats; at h = 1e150 it is representable
    got = fn.kde_difference_rkhs_norm([0.0], [3.0], 1, 1e150)[0]
    assert math.isclose(got, float(3 / (mp.sqrt(2 * mp.pi) * mp.mpf(1e150) ** 2)), rel_tol=1e-14)
    # records beyond the float range apart (-1e308 to 1e308): the supremum sqrt(2) c, not an overflow
    assert fn.kde_difference_rkhs_norm(-1e308, 1e308, 3, 2.0)[0] == pytest.approx(float(mp_delta(3, 2.0, 1)),
                                                                                   rel=1e-15)


@mp.workdps(50)
def test_lscv_and_its_sensitivity_at_extreme_bandwidths():
    """lscv gave nan (0 / 0) at h = 1e-300 and 0 at h = 1e300; lscv_sensitivity raised "0.0 cannot be
    raised to a negative power" below h = 1.5e-154."""
    def mp_lscv(x, h):
        h, n = mp.mpf(h), len(x)
        both = sum(_mp_phi(a - b, mp.sqrt(2) * h) for a in x for b in x) / n**2
        loo = sum(_mp_phi(a - b, h) for i, a in enumerate(x) for j, b in enumerate(x) if i != j) / (n - 1)
        return both - 2 * loo / n

    for x, h in [([0.0, 1.0, 3.0], 1e-300), ([0.0, 0.0, 1.0], 1e-300), ([0.0, 1.0, 3.0], 1e300),
                 ([0.0, 2e-120, 1.0], 1e-120)]:
        want = mp_lscv(x, h)
        assert math.isclose(fn.lscv(x, h), float(want), rel_tol=1e-13), (x, h)
    assert fn.lscv([0.0, 0.0, 1.0], 1e-300) < 0 < fn.lscv([0.0, 1.0, 3.0], 1e-300)   # a tie makes it negative
    assert mp_lscv([0.0, 1.0, 3.0], 5e-324) > _MAX and fn.lscv([0.0, 1.0, 3.0], 5e-324) == math.inf

    def mp_sens(n, h, d, sharp):
        h = mp.mpf(h)
        a = mp.mpf(2) / n**2 * (4 * mp.pi * h * h) ** (-mp.mpf(d) / 2)
        b = mp.mpf(4) / (n * (n - 1)) * (2 * mp.pi * h * h) ** (-mp.mpf(d) / 2)
        return (n - 1) * (b - a + a * a / (4 * b)) if sharp else (n - 1) * (a + b)

    for n, h, d, sharp in [(10, 1e-300, 1, False), (10, 1e-300, 1, True), (10, 1e300, 1, False),
                           (5, 1e-101, 3, True), (5, 1e101, 3, False), (2, 1e-200, 1, True)]:
        assert math.isclose(fn.lscv_sensitivity(n, h, d, sharp=sharp), float(mp_sens(n, h, d, sharp)),
                            rel_tol=1e-14), (n, h, d, sharp)
    assert mp_sens(10, 5e-324, 1, False) > _MAX and fn.lscv_sensitivity(10, 5e-324) == math.inf


@mp.workdps(50)
def test_sobolev_kde_sensitivity_at_extreme_bandwidths():
    """1 / s^2 divided by 0 at h = 1e-300; at h = 1e300 phi_s(0) was 0 and Delta 0 for 7.5e-152; at
    h = 1e-120 the plain product overflowed to inf for 6e178."""
    def mp_sob(n, h):
        s2 = 2 * mp.mpf(h) ** 2
        phi0 = 1 / mp.sqrt(2 * mp.pi * s2)
        return mp.sqrt(2 * phi0 * (1 + 1 / s2 + 2 / s2 * mp.exp(-(s2 + 3) / 2))) / n

    for n, h in [(10, 1e300), (10, 1e-120), (3, 3e-101), (3, 7e101), (1, 1e-205), (4, 2.0**-700)]:
        assert math.isclose(fn.sobolev_kde_sensitivity(n, h), float(mp_sob(n, h)), rel_tol=1e-14), (n, h)
    assert mp_sob(10, 1e-300) > _MAX and fn.sobolev_kde_sensitivity(10, 1e-300) == math.inf


@mp.workdps(50)
def test_rkhs_norm_at_extreme_bandwidths_and_close_centres():
    """K = I at h = 1e-300 (the norm was nan); near 1 1^T the plain a^T K a cancelled: centres 1e-8
    apart at h = 1 gave 0 for 1e-8, and 3 apart at h = 1e300 0 for 3e-300."""
    assert fn.rkhs_norm([1.0, -2.0], [0.0, 3.0], 1e-300) == pytest.approx(math.sqrt(5), rel=1e-15, abs=0)
    assert fn.rkhs_norm([1.0, -2.0], [0.0, 3.0], 5e-324) == pytest.approx(math.sqrt(5), rel=1e-15, abs=0)
    # sqrt(2 - 2 exp(-r^2 / (2 h^2))) for a = (1, -1)
    for r, h in [(1e-8, 1.0), (3.0, 1e300), (5e-300, 1e-300)]:
        want = mp.sqrt(-2 * mp.expm1(-mp.mpf(r) ** 2 / (2 * mp.mpf(h) ** 2)))   # 2 - 2 e^-u, u = 4.5e-600
        assert math.isclose(fn.rkhs_norm([1.0, -1.0], [0.0, r], h), float(want), rel_tol=1e-14), (r, h)
    # a = (1, -2) at h = 1e300: the kernel is 1 to the last bit, the norm |1 - 2| = 1
    assert fn.rkhs_norm([1.0, -2.0], [0.0, 3.0], 1e300) == 1.0
    # coefficients near the float range: 1e300 sqrt(2 - 2 e^-4.5)
    assert fn.rkhs_norm([1e300, -1e300], [0.0, 3.0], 1.0) == pytest.approx(
        float(mp.mpf(1e300) * mp.sqrt(2 - 2 * mp.exp(-4.5))), rel=1e-14)


@mp.workdps(80)
def test_rkhs_norm_keeps_its_digits_where_the_coefficients_or_the_exponents_are_tiny():
    """Centres 2e-170 apart at h = 1e-70: their squared distance underflowed to 0 and the norm was 0
    for 2e-100. Coefficients 0.1, 0.2, -0.3 sum exactly to 2.8e-17 (the floats' own sum); the float
    sum of a / max|a| is 1.1e-16 or 0, which the norm took for the sum."""
    def mp_norm(a, z, h):               # (sum a)^2 + sum_ij a_i a_j expm1(-u_ij), no cancellation
        a, h = [mp.mpf(c) for c in a], mp.mpf(h)
        q = mp.fsum(a) ** 2 + mp.fsum(a[i] * a[j] * mp.expm1(-(mp.mpf(z[i]) - mp.mpf(z[j])) ** 2 / (2 * h * h))
                                      for i in range(len(a)) for j in range(len(a)))
        return mp.sqrt(q)

    assert fn.rkhs_norm([1.0, -1.0], [0.0, 2e-170], 1e-70) == pytest.approx(2e-100, rel=1e-15, abs=0)
    a = [0.1, 0.2, -0.3]
    exact = float(mp.fsum(mp.mpf(c) for c in a))
    assert exact == pytest.approx(2.7755575615628914e-17, rel=1e-15, abs=0) and sum(a) != exact
    # within 1e-100 h of each other (the norm is |sum a| to the last bit) and 4.5e-17 h apart, where
    # (sum a)^2 = 7.7e-34 and the kernel's part 1.8e-34 are both in the answer
    for z, h in [([0.0, 1e-120, 2e-120], 1.0), ([0.0, 0.0, 4.5e-17], 1.0), ([0.0, 0.0, 4.5e-117], 1e-100)]:
        want = mp_norm(a, z, h)
        assert math.isclose(fn.rkhs_norm(a, z, h), float(want), rel_tol=1e-14), (z, h)
    assert math.isclose(float(mp_norm(a, [0.0, 0.0, 4.5e-17], 1.0)), 3.08e-17, rel_tol=1e-2)


@mp.workdps(50)
def test_normalised_kernel_and_kde_keep_the_bits_of_a_term_that_underflowed():
    """A term below 2.2e-308 underflows to a subnormal of few bits, which the constant
    (2 pi h^2)^(-d/2) lifted back into the normal range: 1.93e-308 for the density 2.85e-308 at
    h = 1.02e-16 (the term alone is 7e-324, one bit)."""
    t, h = 3.945058574641553e-15, 1.0226762387315198e-16
    want = float(_mp_phi(t, h))
    assert 2.8e-308 < want < 2.9e-308
    assert math.isclose(fn.gaussian_kernel([0.0], [t], h, normalized=True)[0, 0], want, rel_tol=1e-13)
    assert math.isclose(fn.kde([t], [0.0], h)[0], want, rel_tol=1e-13)
    # a grid point whose every term is that small beside one with a normal term, in one call
    got = fn.kde([t, 1.0], [0.0, 1.0], h)
    assert math.isclose(got[0], want / 2, rel_tol=1e-13)
    assert math.isclose(got[1], float(_mp_phi(0.0, h) / 2), rel_tol=1e-14)
    # two dimensions: (2 pi h^2)^-1 e^-u with u = 760, about 1.9e-300
    x, h2 = [[0.0, 0.0]], 1e-15
    g = [[3e-14, 2.49e-14]]                      # |g|^2 / (2 h^2) = (9 + 6.2001) 1e-28 / 2e-30 = 760.005
    want2 = mp.exp(-(mp.mpf(g[0][0]) ** 2 + mp.mpf(g[0][1]) ** 2) / (2 * mp.mpf(h2) ** 2)) / (2 * mp.pi * mp.mpf(h2) ** 2)
    assert 1e-300 > want2 > mp.mpf(2) ** -1022
    assert math.isclose(fn.kde(x, g, h2)[0], float(want2), rel_tol=1e-12)
    assert math.isclose(fn.gaussian_kernel(g, x, h2, normalized=True)[0, 0], float(want2), rel_tol=1e-12)


@mp.workdps(50)
def test_lscv_in_thousands_of_dimensions_where_two_to_the_minus_d_over_2_underflows():
    """2^(-d/2) is subnormal from d = 2045 and 0 from d = 2150: LSCV of two points 1e3 apart in 2200 dimensions at
    h = 1 / sqrt(4 pi) is (4 pi h^2)^(-d/2) phi-part 2 / 4 = 0.5 (the code gave 0); in 3000 dimensions
    at h = 1e-91 it is beyond the float range (0 for inf), and -inf for points 10 h apart."""
    def mp_lscv(x, h):
        x, h = np.asarray(x, dtype=float), mp.mpf(h)
        n, d = x.shape
        sq = [[mp.fsum((mp.mpf(p) - mp.mpf(q)) ** 2 for p, q in zip(x[i], x[j])) for j in range(n)] for i in range(n)]
        both = mp.fsum(mp.exp(-sq[i][j] / (4 * h * h)) for i in range(n) for j in range(n)) \
            / (4 * mp.pi * h * h) ** (mp.mpf(d) / 2) / n**2
        loo = mp.fsum(mp.exp(-sq[i][j] / (2 * h * h)) for i in range(n) for j in range(n) if i != j) \
            / (2 * mp.pi * h * h) ** (mp.mpf(d) / 2) / (n * (n - 1))
        return both - 2 * loo

    x = np.zeros((2, 2200))
    x[1, 0] = 1e3
    h = 1 / math.sqrt(4 * math.pi)
    want = mp_lscv(x, h)
    assert abs(want - 0.5) < 1e-12 and math.isclose(fn.lscv(x, h), float(want), rel_tol=1e-12)
    # three points, two of them close: both parts matter (the score is negative), 2100 dimensions
    y = np.zeros((3, 2100))
    y[1, :2] = [0.3, 0.1]
    y[2, 0] = 50.0
    for h in (0.2, 1e-120):
        scale = h / 0.2
        want = mp_lscv(y * scale, h)
        assert want < 0 and math.isclose(fn.lscv(y * scale, h), float(want), rel_tol=1e-12), h
    big = np.zeros((2, 3000))
    big[1, 0] = 1e-89                          # 100 h: e^-5000 beside 2^-1500 = e^-1040
    assert mp_lscv(big, 1e-91) > _MAX and fn.lscv(big, 1e-91) == math.inf
    big[1, 0] = 1e-90
    assert mp_lscv(big, 1e-91) < -_MAX and fn.lscv(big, 1e-91) == -math.inf
    # points 1e200 apart at h = 1: their squared distance overflows (a RuntimeWarning, an error in
    # the tests); the score is the diagonal's 2 phi_sqrt2h(0) / 4
    assert math.isclose(fn.lscv([0.0, 1e200], 1.0), 1 / (4 * math.sqrt(math.pi)), rel_tol=1e-15)


@mp.workdps(50)
def test_gp_functions_at_bandwidth_1e_300_use_the_identity_gram_matrix():
    """At h = 1e-300 the Gram matrix of distinct points is I (it was nan: scipy's Cholesky refused
    "array must not contain infs or NaNs"); the noise is sqrt(1 + tau) z, coupled by seed."""
    tau = 1e-10
    lower, t = fn.gp_cholesky([0.0, 1.0, 2e-300], 1e-300)
    gram = np.array([[1, 0, math.exp(-2)], [0, 1, 0], [math.exp(-2), 0, 1]])
    assert t == tau and np.allclose(lower @ lower.T, gram + tau * np.eye(3), rtol=0, atol=1e-15)
    z = np.random.default_rng(5).standard_normal((3, 2))
    draw = fn.sample_gp([0.0, 0.5, 1.0], 1e-300, np.random.default_rng(5), size=2)
    assert np.allclose(draw, math.sqrt(1 + tau) * z.T, rtol=1e-15, atol=0)
    out = fn.gp_mechanism([0.0, 1.0], [0.0, 0.5], 0.1, 1.0, 1e-3, 1e-300, np.random.default_rng(6))
    sigma = 0.1 * math.sqrt(2 * math.log(2 / 1e-3))
    z = np.random.default_rng(6).standard_normal(2)
    assert np.allclose(out, [0.0, 1.0] + sigma * math.sqrt(1 + tau) * z, rtol=1e-14, atol=0)
    mean, cov = fn.gp_conditional([0.0], [2.0], [0.0, 5.0], 1e-300)
    assert np.allclose(mean, [2 / (1 + tau), 0.0], rtol=1e-15, atol=0)
    assert np.allclose(cov, [[tau / (1 + tau), 0.0], [0.0, 1.0]], rtol=1e-6, atol=0)
    # gp_extend at a new point unrelated to the old ones: mean 0, variance 1 (+ jitter 1e-10)
    g = fn.gp_extend([0.0, 1.0], [0.5, -0.5], [0.5], 1e-300, np.random.default_rng(8))
    assert g.tolist() == pytest.approx([math.sqrt(1 + tau) * np.random.default_rng(8).standard_normal()], rel=1e-15, abs=0)


@mp.workdps(50)
def test_kernel_logistic_regression_at_bandwidth_1e_300_fits_each_point_alone():
    """With K = I the stationarity condition 2 lam n alpha_i = y_i expit(-y_i alpha_i) decouples:
    alpha = y t with 2 lam n t = expit(-t) (Newton did not converge on the nan Gram matrix and asked
    for more max_iter)."""
    lam, n = 0.1, 3
    t = mp.findroot(lambda s: 2 * lam * n * s - 1 / (1 + mp.exp(s)), 0.5)
    alpha = fn.kernel_logistic_regression([-1.0, 1.0, 4.0], [-1, 1, 1], 1e-300, lam)
    assert np.allclose(alpha, [-float(t), float(t), float(t)], rtol=1e-12, atol=0)


@mp.workdps(50)
def test_private_kde_refuses_a_bandwidth_whose_sensitivity_leaves_the_float_range(raises_exactly):
    """The range is where sqrt(2) / (n (2 pi h^2)^(d/2)) is a normal float: for n = 2, d = 1 the
    bounds solve it = 1.8e308 (h = 1.5697e-309) and = 2.2e-308 (h = 1.2679e307), rounded inward.
    The old code divided by zero at h = 5e-324 and refused h = 1e300 as "sensitivity must be > 0"."""
    lo = mp.sqrt(2) / (2 * mp.sqrt(2 * mp.pi) * _MAX)
    hi = mp.sqrt(2) / (2 * mp.sqrt(2 * mp.pi) * mp.mpf(sys.float_info.min))
    assert mp.mpf("1.571e-309") > lo > mp.mpf("1.569e-309") and mp.mpf("1.267e307") < hi < mp.mpf("1.268e307")
    message = ("bandwidth must be in [1.571e-309, 1.267e+307] for n = 2 and d = 1 (beyond, the RKHS sensitivity "
               "sqrt(2) / (n (2 pi h^2)^(d/2)) leaves the normal float range), got {}")
    for h in (5e-324, 1.57e-309, 1.268e307):
        with raises_exactly(message.format(repr(h))):
            fn.private_kde([0.1, 0.5], [-1.0, 0.0, 1.0], 1.0, 1e-3, h, np.random.default_rng(0))
    with raises_exactly(message.format("5e-324").replace("n = 2", "n = 20")
                        .replace("1.571e-309", "1.571e-310").replace("1.267e+307", "1.267e+306")):
        fn.kde_ise_normal(20, 5e-324, [-1.0, 0.0, 1.0], np.random.default_rng(0), reps=2, epsilon=1.0, delta=1e-3)
    # inside: the KDE plus sigma sqrt(1 + tau) z at h = 1e-300 (K = I on the grid) and at h = 1e300
    # (K = 1 1^T + tau I), sigma = sqrt(2) c(delta) / (eps n sqrt(2 pi) h)
    for h in (1e-300, 1e300):
        out = fn.private_kde([0.1, 0.5], [-1.0, 0.0, 1.0], 1.0, 1e-3, h, np.random.default_rng(4))
        sigma = float(mp.sqrt(2) * mp.sqrt(2 * mp.log(2 / mp.mpf(1e-3))) / (2 * mp.sqrt(2 * mp.pi) * mp.mpf(h)))
        f = [float(sum(_mp_phi(g - x, h) for x in (0.1, 0.5)) / 2) for g in (-1.0, 0.0, 1.0)]
        gram = np.eye(3) if h < 1 else np.ones((3, 3))
        noise = linalg.cholesky(gram + 1e-10 * np.eye(3), lower=True) @ np.random.default_rng(4).standard_normal(3)
        assert np.allclose(out, np.array(f) + sigma * noise, rtol=1e-9, atol=0)


def test_samplers_cap_n_reps_and_size(raises_exactly):
    """kde_ise_normal(n=2**31) and sample_gp(size=2**31) asked for 16 GiB or more (MemoryError),
    kde_ise_normal(reps=2**31) ran for minutes."""
    rng = np.random.default_rng(0)
    with raises_exactly(f"n must be an integer in [1, 100000000], got {2**31}"):
        fn.kde_ise_normal(2**31, 0.5, [0.0, 1.0], rng)
    with raises_exactly(f"reps must be an integer in [1, 100000], got {2**62}"):
        fn.kde_ise_normal(20, 0.5, [0.0, 1.0], rng, reps=2**62)
    with raises_exactly(f"size must be an integer in [1, 100000000], got {2**31}"):
        fn.sample_gp([0.0, 1.0], 0.3, rng, size=2**31)


def test_three_precision_bugs_the_survivors_helpers_found():
    """(1) kde in 500 dimensions at h = 1e-90, a grid point sqrt(2 * 103150) h from the one data point: the density
    is (2 pi h^2)^(-250) e^-103150 = 953.289 (mpmath), but _exp2 clipped its exponent at -1e5 and answered 0.
    (2) lscv at d = 100, two points with u = 40: sum k - n cancelled the e^-40 off-diagonal terms (4.44e-16 for
    4.3559e-16, the closed form below). (3) private_kde at the low end of its bandwidth range: the sensitivity
    1.79e308 times the calibration overflowed, and the release was [inf, -inf]: refused, naming the bandwidth."""
    d, h = 500, 1e-90
    grid = np.zeros((1, d))
    grid[0, 0] = math.sqrt(2 * 103150.0) * h
    with mp.workdps(30):
        want = mp.exp(-103150) / (2 * mp.pi * mp.mpf(h) ** 2) ** (d / 2)
    assert fn.kde(np.zeros((1, d)), grid, h)[0] == pytest.approx(float(want), rel=1e-9, abs=0)
    d, h = 100, 1 / math.sqrt(2 * math.pi)                  # (2 pi h^2)^(-d/2) = 1, (4 pi h^2)^(-d/2) = 2^-50
    x = np.zeros((2, d))
    x[1, 0] = h * math.sqrt(80.0)                            # |x_1 - x_2|^2 / (2 h^2) = 40
    with mp.workdps(40):
        both = (2 + 2 * mp.exp(-20)) * mp.mpf(2) ** -50 / 4   # sum_ij e^(-u/2) (4 pi h^2)^(-d/2) / n^2
        loo = 2 * mp.exp(-40) / 1                            # sum_(i != j) e^-u (2 pi h^2)^(-d/2) / (n - 1)
        want = both - 2 * loo / 2
    assert fn.lscv(x, h) == pytest.approx(float(want), rel=1e-12, abs=0)
    with pytest.raises(ValueError, match=r"^bandwidth must keep the noise scale sigma .* got 2\.045e-155 with n = 3"):
        fn.private_kde([[0.0, 0], [1, 1], [2, 0]], [[0.0, 0], [1, 1]], 1.0, 1e-5, 2.045e-155, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^sensitivity must keep the noise scale sigma .* got sensitivity 1e\+308"):
        fn.gp_mechanism([0.0], [0.0], 1e308, 0.5, 1e-5, 1.0, np.random.default_rng(0))
