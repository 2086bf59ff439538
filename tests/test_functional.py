"""Unit tests of dpnotes.functional (GP noise, RKHS norms, private KDE)."""

import math

import numpy as np
import pytest
from scipy import integrate, linalg, stats

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
    assert fn.mahalanobis_norm(v, m) == pytest.approx(np.linalg.norm(inv_sqrt @ v), rel=1e-12)


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
    assert fn.mahalanobis_norm(fx, fn.gaussian_kernel(x, x, h)) == pytest.approx(fn.rkhs_norm(a, z, h), rel=1e-8)


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
    with pytest.raises(ValueError, match="jitter"):
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
    assert far == pytest.approx(fn.rkhs_sensitivity(n, h), rel=1e-14)
    dists = np.linspace(0, 5, 101)
    assert np.all(fn.kde_difference_rkhs_norm(np.zeros(101), dists, n, h) <= fn.rkhs_sensitivity(n, h) * (1 + 1e-12))
    # d = 2: sqrt(2) / (n 2 pi h^2), written out.
    assert fn.rkhs_sensitivity(n, h, d=2) == pytest.approx(math.sqrt(2) / (n * 2 * math.pi * h * h))


def test_private_kde_is_kde_plus_calibrated_gp_noise():
    rng = np.random.default_rng(6)
    x = rng.normal(size=50)
    grid = np.array([-1.0, 0.0, 0.7])
    eps, delta, h = 1.0, 1e-3, 0.5
    # sigma written out: sqrt(2)/(n sqrt(2 pi) h) * sqrt(2 log(2/delta)) / eps.
    sigma = math.sqrt(2) / (50 * math.sqrt(2 * math.pi) * h) * math.sqrt(2 * math.log(2 / delta)) / eps
    draws = np.stack([fn.private_kde(x, grid, eps, delta, h, rng) for _ in range(4000)])
    noise = (draws - fn.kde(x, grid, h)) / sigma
    # Standardised noise ~ N(0, K) on the grid: mean se 1/sqrt(4000) = 0.016, covariance se <= 0.023.
    assert np.abs(noise.mean(axis=0)).max() < 0.08
    k = fn.gaussian_kernel(grid, grid, h)
    assert np.abs(noise.T @ noise / 4000 - k).max() < 0.1


def test_private_kde_two_dimensional_shape():
    rng = np.random.default_rng(8)
    out = fn.private_kde(rng.normal(size=(30, 2)), rng.normal(size=(9, 2)), 1.0, 1e-3, 0.5, rng)
    assert out.shape == (9,) and np.all(np.isfinite(out))


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

    assert fn.normal_kde_mise(n, h) == pytest.approx(integrate.quad(integrand, -np.inf, np.inf)[0], rel=1e-8)


def test_kde_ise_normal_private_adds_noise_energy():
    # E ISE_private - E ISE = sigma^2 * (1 + tau) * |T| exactly; with 400 reps the difference of
    # means has a standard error ~ 5% of sigma^2 |T| here, so 25% is a safe tolerance.
    grid = np.linspace(-4, 4, 81)
    ise, isep = fn.kde_ise_normal(200, 0.4, grid, np.random.default_rng(11), reps=400, epsilon=1.0, delta=1e-2)
    sigma = fn.rkhs_sensitivity(200, 0.4) * math.sqrt(2 * math.log(2 / 1e-2)) / 1.0
    assert np.mean(isep - ise) == pytest.approx(sigma**2 * 8.0, rel=0.25)
    assert np.mean(ise) == pytest.approx(fn.normal_kde_mise(200, 0.4), rel=0.15)


# ---------------------------------------------------------------- cross-validation
def test_lscv_matches_quadrature_and_explicit_leave_one_out():
    rng = np.random.default_rng(12)
    x = rng.normal(size=15)
    h = 0.45
    int_sq = integrate.quad(lambda t: fn.kde(x, [t], h)[0] ** 2, -np.inf, np.inf, epsabs=1e-13, limit=200)[0]
    loo = np.mean([fn.kde(np.delete(x, i), [x[i]], h)[0] for i in range(15)])
    assert fn.lscv(x, h) == pytest.approx(int_sq - 2 * loo, rel=1e-8)


def test_lscv_sensitivity_bounds_replacements():
    rng = np.random.default_rng(13)
    n, h = 12, 0.3
    bound = fn.lscv_sensitivity(n, h)
    worst = 0.0
    for _ in range(300):
        x = rng.uniform(-1, 1, n)
        y = x.copy()
        y[0] = rng.uniform(-5, 5)
        worst = max(worst, abs(fn.lscv(x, h) - fn.lscv(y, h)))
    assert worst <= bound
    assert worst > 0.1 * bound  # the bound is not vacuous
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        fn.lscv_sensitivity(1, h)
    with pytest.raises(ValueError, match="bandwidth"):
        fn.lscv(x, 0.0)


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
    with pytest.raises(ValueError, match=match):
        fn.private_kde(**args)


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="bandwidth"):
        fn.gaussian_kernel([0.0], [0.0], 0)
    with pytest.raises(ValueError, match="y must have points of dimension 1"):
        fn.gaussian_kernel([0.0], [[0.0, 1.0]], 1.0)
    with pytest.raises(ValueError, match="bandwidth"):
        fn.kde([0.0], [0.0], -0.1)
    with pytest.raises(ValueError, match="grid"):
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
    with pytest.raises(ValueError, match="size"):
        fn.sample_gp([0.0], 1.0, RNG, size=0)
    with pytest.raises(ValueError, match="rng"):
        fn.sample_gp([0.0], 1.0, 42)
    with pytest.raises(ValueError, match="jitter"):
        fn.gp_cholesky([0.0], 1.0, jitter=0.0)
    with pytest.raises(ValueError, match="scale"):
        fn.normal_reference_bandwidth([0.0, 1.0], scale="mad")
    with pytest.raises(ValueError, match="at least 2"):
        fn.normal_reference_bandwidth([0.0])
    with pytest.raises(ValueError, match="bandwidth"):
        fn.normal_kde_mise(10, 0.0)
    with pytest.raises(ValueError, match="grid must be increasing"):
        fn.kde_ise_normal(10, 0.5, [1.0, 0.0], RNG)
    with pytest.raises(ValueError, match="epsilon"):
        fn.kde_ise_normal(10, 0.5, [0.0, 1.0], RNG, epsilon=-1.0, delta=0.1)
