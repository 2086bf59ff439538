"""Unit tests of dpnotes.composition."""

import math

import pytest

from dpnotes import composition as comp


def test_basic_is_linear():
    eps, dlt = comp.basic(0.3, 7, 1e-6)
    assert eps == pytest.approx(2.1) and dlt == pytest.approx(7e-6)


def test_advanced_closed_form_and_crossover():
    eps, dlt = comp.advanced(0.01, 10_000, 1e-5, 1e-8)
    assert eps == pytest.approx(0.01 * math.sqrt(2e4 * math.log(1e5)) + 100 * math.expm1(0.01))
    assert dlt == pytest.approx(1e-4 + 1e-5)
    # advanced beats basic for many small-epsilon mechanisms, not for a few
    assert comp.advanced(0.01, 10_000, 1e-5)[0] < comp.basic(0.01, 10_000)[0]
    assert comp.advanced(0.5, 2, 1e-5)[0] > comp.basic(0.5, 2)[0]


@pytest.mark.parametrize(
    "args, match",
    [
        ((0.0, 3), "epsilon must be > 0"),
        ((0.1, 0), "k must be an integer >= 1"),
        ((0.1, 2.5), "k must be an integer >= 1"),
        ((0.1, 3, 1.0), r"delta must be in \[0, 1\)"),
    ],
)
def test_basic_bad_inputs(args, match):
    with pytest.raises(ValueError, match=match):
        comp.basic(*args)


@pytest.mark.parametrize(
    "args, match",
    [
        ((0.1, 3, 0.0), r"delta_prime must be in \(0, 1\)"),
        ((0.1, 3, 1.0), r"delta_prime must be in \(0, 1\)"),
        ((-0.1, 3, 1e-5), "epsilon must be > 0"),
        ((0.1, 3, 1e-5, -1e-9), r"delta must be in \[0, 1\)"),
    ],
)
def test_advanced_bad_inputs(args, match):
    with pytest.raises(ValueError, match=match):
        comp.advanced(*args)


# ---------------------------------------------------------------------------
# advanced_reduction, optimal_delta, optimal
# ---------------------------------------------------------------------------
import itertools
from fractions import Fraction

import mpmath as mp
import numpy as np
from mp_references import References


def test_advanced_reduction_closed_form_and_order():
    eps, k, dp = 0.3, 50, 1e-6
    e, d = comp.advanced_reduction(eps, k, dp, 1e-8)
    ee = math.exp(eps)
    assert e == pytest.approx(eps * math.sqrt(2 * k * math.log(1 / dp)) + k * eps * (ee - 1) / (ee + 1), rel=1e-14)
    assert d == pytest.approx(k * 1e-8 + dp)
    for eps in (0.01, 0.5, 2.0):
        for k in (1, 10, 1000):
            assert comp.advanced_reduction(eps, k, 1e-6)[0] < comp.advanced(eps, k, 1e-6)[0]


def _exact_kfold_rr_delta(k, ratio):
    """Exact hockey-stick divergence of k-fold RR with p = 3/4 (eps = log 3), at e^{eps'} = ratio (a Fraction).

    Brute force over all 2^k output strings: P(y) = prod of 3/4 or 1/4, Q the same with roles swapped.
    """
    p, q = Fraction(3, 4), Fraction(1, 4)
    total = Fraction(0)
    for y in itertools.product((0, 1), repeat=k):
        flips = sum(y)
        P = p ** (k - flips) * q ** flips
        Q = q ** (k - flips) * p ** flips
        total += max(P - ratio * Q, Fraction(0))
    return total


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 10])
def test_optimal_matches_brute_force_at_breakpoints(k):
    # At eps' = (k - 2m) log 3 the ratio e^{eps'} = 3^(k-2m) is rational: delta is exact.
    for m in range(0, (k + 1) // 2 + 1):
        if k - 2 * m < 0:
            break
        dlt = _exact_kfold_rr_delta(k, Fraction(3) ** (k - 2 * m))
        assert comp.optimal_delta(math.log(3), k, (k - 2 * m) * math.log(3)) == pytest.approx(float(dlt), rel=1e-12, abs=1e-15)
        if 0 < dlt < 1:
            # abs 1e-13 where the breakpoint is 0 (k = 2m): the answer is moved up until optimal_delta, which is about
            # 1e-14 of delta off the exact value there (the first assertion allows 1e-12), is at most delta
            assert comp.optimal(math.log(3), k, float(dlt)) == pytest.approx((k - 2 * m) * math.log(3), rel=1e-12,
                                                                         abs=1e-13)


@pytest.mark.parametrize("k", [3, 6, 9])
def test_optimal_delta_matches_brute_force_between_breakpoints(k):
    for ratio in (Fraction(1), Fraction(2), Fraction(5), Fraction(7, 2), Fraction(50)):
        dlt = _exact_kfold_rr_delta(k, ratio)
        assert comp.optimal_delta(math.log(3), k, math.log(ratio)) == pytest.approx(float(dlt), rel=1e-12, abs=1e-16)
        if 0 < dlt < 1:
            assert comp.optimal(math.log(3), k, float(dlt)) == pytest.approx(math.log(ratio), rel=1e-11, abs=1e-12)


def _delta_mp(eps, k, eps_prime, dps=40):
    """delta(eps') of k-fold randomized response by a direct high-precision sum (mpmath)."""
    with mp.workdps(dps):
        eps, ep = mp.mpf(eps), mp.mpf(eps_prime)
        p = 1 / (1 + mp.exp(-eps))
        q = 1 - p
        s = mp.mpf(0)
        for l in range(k + 1):
            if (k - 2 * l) * eps <= ep:
                break
            s += mp.binomial(k, l) * (p ** (k - l) * q ** l - mp.exp(ep) * p ** l * q ** (k - l))
        return s


MP_STORE = References("composition")


def _delta_mp_stored(eps, k, eps_prime):
    """_delta_mp as a float, stored (the sums over up to 1e5 terms at 40 digits take 15 CPU s in make test;
    make verify computes them again: tests/mp_references.py)."""
    return MP_STORE.get(["kfold_rr_delta", eps, k, eps_prime, 40], lambda: float(_delta_mp(eps, k, eps_prime)))


@pytest.mark.parametrize(
    "eps, k, dlt",
    [(0.1, 2000, 1e-6), (0.001, 2000, 1e-6), (0.001, 20, 1e-3), (5.0, 2000, 1e-6), (5.0, 100_000, 1e-6),
     (1.0, 10, 1e-3), (0.01, 1000, 1e-9), (0.5, 500, 0.3), (0.05, 3000, 1e-12),
     # brackets far in the tails of the binomial: the summation window must adapt
     (5.0, 100_000, 0.9), (0.1, 10_000, 0.99), (0.1, 10_000, 1e-300), (2.0, 50, 0.999)],
)
def test_optimal_agrees_with_mpmath_to_1e9_relative(eps, k, dlt):
    e = comp.optimal(eps, k, dlt)
    assert 0 < e <= k * eps
    # the exact delta crosses the target inside [e (1 - 1e-9), e (1 + 1e-9)]
    assert _delta_mp_stored(eps, k, e * (1 - 1e-9)) > dlt > _delta_mp_stored(eps, k, e * (1 + 1e-9))


def test_optimal_large_k_no_overflow_and_consistent():
    for eps in (0.001, 0.1, 5.0):
        e = comp.optimal(eps, 100_000, 1e-6)
        assert math.isfinite(e) and 0 < e < 100_000 * eps
        lo, hi = comp.optimal_delta(eps, 100_000, [e * (1 - 1e-9), e * (1 + 1e-9)])
        assert lo > 1e-6 > hi


def test_optimal_properties():
    # never worse than basic or either advanced bound; monotone in k and in delta
    for eps in (0.01, 0.3, 2.0):
        for k in (1, 7, 100, 2000):
            e = comp.optimal(eps, k, 1e-6)
            assert e <= k * eps + 1e-12
            assert e <= comp.advanced_reduction(eps, k, 1e-6)[0]
        es = [comp.optimal(eps, k, 1e-6) for k in (10, 20, 40, 80)]
        assert np.all(np.diff(es) > 0)
        ds = [comp.optimal(eps, 100, d) for d in (1e-9, 1e-6, 1e-3, 0.1)]
        assert np.all(np.diff(ds) < 0)
    assert comp.optimal(0.2, 5, 0.0) == pytest.approx(1.0)
    # delta at least the total variation distance of the two binomials: eps' = 0
    tv = comp.optimal_delta(0.01, 100, 0.0)
    assert comp.optimal(0.01, 100, min(tv * 1.01, 0.99)) == 0.0


def test_optimal_delta_vectorized_and_monotone():
    grid = np.linspace(0, 3, 50)
    d = comp.optimal_delta(0.1, 300, grid)
    assert d.shape == grid.shape and np.all(np.diff(d) < 0) and d[0] < 1
    assert comp.optimal_delta(0.1, 300, 30.0) == 0.0


@pytest.mark.parametrize(
    "args, match",
    [
        ((0.0, 3, 1e-6), "epsilon must be > 0"),
        ((-1.0, 3, 1e-6), "epsilon must be > 0"),
        ((0.1, 0, 1e-6), r"k must be an integer in \[1, 10000000\], got 0"),
        ((0.1, 2.5, 1e-6), r"k must be an integer in \[1, 10000000\], got 2.5"),
        ((0.1, 10**7 + 1, 1e-6), r"k must be an integer in \[1, 10000000\], got 10000001"),   # optimal_delta's cap
        ((0.1, 3, 1.0), r"delta must be in \[0, 1\)"),
        ((0.1, 3, -1e-6), r"delta must be in \[0, 1\)"),
    ],
)
def test_optimal_bad_inputs(args, match):
    with pytest.raises(ValueError, match=match):
        comp.optimal(*args)


def test_optimal_delta_and_reduction_bad_inputs():
    with pytest.raises(ValueError, match="epsilon_prime must be >= 0"):
        comp.optimal_delta(0.1, 3, -0.5)
    with pytest.raises(ValueError, match="k must be an integer"):
        comp.optimal_delta(0.1, 1.5, 0.5)
    with pytest.raises(ValueError, match=r"delta_prime must be in \(0, 1\)"):
        comp.advanced_reduction(0.1, 3, 0.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        comp.advanced_reduction(0.0, 3, 1e-6)


def test_uv_pair_is_exactly_eps_delta_and_no_better():
    for eps, dlt in [(0.5, 0.0), (1.0, 0.1), (math.log(3), 0.2)]:
        u, v = comp.uv_pair(eps, dlt)
        assert u.sum() == pytest.approx(1) and v.sum() == pytest.approx(1)
        # hockey-stick at e^eps equals delta exactly (brute force over the 16 events)
        best = max(sum(u[i] for i in s) - math.exp(eps) * sum(v[i] for i in s)
                   for r in range(5) for s in itertools.combinations(range(4), r))
        assert best == pytest.approx(dlt, abs=1e-15)


def test_rr_reduction_channel_exists_iff_indistinguishable():
    rng = np.random.default_rng(5)
    eps, dlt = 0.7, 0.05
    found = 0
    for _ in range(60):
        p, q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        hs = max(np.maximum(p - math.exp(eps) * q, 0).sum(), np.maximum(q - math.exp(eps) * p, 0).sum())
        if hs <= dlt - 1e-9:
            T = comp.rr_reduction_channel(p, q, eps, dlt)
            u, v = comp.uv_pair(eps, dlt)
            assert np.allclose(T.sum(axis=1), 1) and np.allclose(u @ T, p) and np.allclose(v @ T, q)
            found += 1
        elif hs > dlt + 1e-9:
            with pytest.raises(ValueError, match="not"):
                comp.rr_reduction_channel(p, q, eps, dlt)
    assert found > 0


def test_uv_and_channel_bad_inputs():
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        comp.uv_pair(-1.0)
    with pytest.raises(ValueError, match=r"delta must be in \[0, 1\)"):
        comp.uv_pair(1.0, 1.0)
    with pytest.raises(ValueError, match="same length"):
        comp.rr_reduction_channel([0.5, 0.5], [1.0], 1.0)
    with pytest.raises(ValueError, match="p must sum to 1"):
        comp.rr_reduction_channel([0.5, 0.6], [0.5, 0.5], 1.0)


def _gauss_delta_quad(eps, mu):
    """delta(eps) of the Gaussian pair by quadrature of E[(1 - e^{eps - L})_+], L ~ N(mu^2/2, mu^2)."""
    from scipy import integrate, stats
    m, s = mu * mu / 2, mu
    f = lambda l: -math.expm1(eps - l) * stats.norm.pdf(l, m, s)
    return integrate.quad(f, eps, m + 40 * s, epsabs=0, epsrel=1e-12, limit=200)[0]


def test_rdp_and_zcdp_conversions_are_valid_for_gaussians():
    alphas = np.linspace(1.01, 400, 4000)
    for mu in (0.05, 0.3, 1.0):
        for dlt in (1e-3, 1e-6, 1e-9):
            classic = comp.rdp_to_dp(alphas, alphas * mu**2 / 2, dlt, method="classic")
            improved = comp.rdp_to_dp(alphas, alphas * mu**2 / 2, dlt)
            z = comp.zcdp_to_dp(mu**2 / 2, dlt)
            assert improved <= classic
            assert z == pytest.approx(mu**2 / 2 + 2 * math.sqrt(mu**2 / 2 * math.log(1 / dlt)))
            # each converted epsilon is (eps, dlt)-valid: the exact delta there is <= dlt
            for e in (classic, improved, z):
                assert _gauss_delta_quad(e, mu) <= dlt * (1 + 1e-9)
    # classic conversion closed form at its best order: rho alpha + L/(alpha-1) minimised at alpha = 1 + sqrt(L/rho)
    rho, L = 0.02, math.log(1e6)
    best = comp.rdp_to_dp([1 + math.sqrt(L / rho)], [(1 + math.sqrt(L / rho)) * rho], 1e-6, method="classic")
    assert best == pytest.approx(rho + 2 * math.sqrt(rho * L))


def test_conversion_bad_inputs():
    with pytest.raises(ValueError, match="alpha must be > 1"):
        comp.rdp_to_dp([1.0, 2.0], [0.1, 0.2], 1e-6)
    with pytest.raises(ValueError, match="rdp must be >= 0"):
        comp.rdp_to_dp([2.0], [-0.1], 1e-6)
    with pytest.raises(ValueError, match="same length"):
        comp.rdp_to_dp([2.0, 3.0], [0.1], 1e-6)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        comp.rdp_to_dp([2.0], [0.1], 0.0)
    with pytest.raises(ValueError, match="method must be one of"):
        comp.rdp_to_dp([2.0], [0.1], 1e-6, method="magic")
    with pytest.raises(ValueError, match="rho must be > 0"):
        comp.zcdp_to_dp(0.0, 1e-6)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        comp.zcdp_to_dp(0.1, 1.0)


def test_rdp_improved_conversion_matches_canonne_kamath_steinke_form():
    # CKS 2020 state the conversion as delta = exp((alpha-1)(rho-eps)) / (alpha-1) * (1 - 1/alpha)^alpha;
    # solving that for delta (not eps) is an independent check of the closed form used by rdp_to_dp.
    for alpha, rho, dlt in [(1.5, 0.3, 1e-3), (2.0, 0.1, 1e-6), (8.0, 1.0, 1e-9), (100.0, 2.0, 1e-5)]:
        e = comp.rdp_to_dp([alpha], [rho], dlt)
        assert e > 0
        back = math.exp((alpha - 1) * (rho - e)) / (alpha - 1) * (1 - 1 / alpha) ** alpha
        assert back == pytest.approx(dlt, rel=1e-9, abs=0)      # abs=0: approx keeps abs=1e-12 otherwise
        assert e < comp.rdp_to_dp([alpha], [rho], dlt, method="classic")


# ---------------------------------------------------------------------------
# optimal composition with a per-step delta; heterogeneous parameters
# ---------------------------------------------------------------------------
def _uv_fraction(ratio, d0):
    """The pair (U, V) of uv_pair with e^eps = ratio and delta = d0, as exact Fractions."""
    keep, flip = (1 - d0) * ratio / (1 + ratio), (1 - d0) / (1 + ratio)
    return [d0, keep, flip, Fraction(0)], [Fraction(0), flip, keep, d0]


def _exact_product_delta(pairs, ratio):
    """Hockey-stick divergence sum_y [P(y) - ratio Q(y)]_+ of a product of discrete pairs, by brute force."""
    total = Fraction(0)
    for ys in itertools.product(*(range(len(u)) for u, _ in pairs)):
        P, Q = Fraction(1), Fraction(1)
        for (u, v), y in zip(pairs, ys):
            P, Q = P * u[y], Q * v[y]
        total += max(P - ratio * Q, Fraction(0))
    return total


@pytest.mark.parametrize("k, d0", [(1, Fraction(1, 10)), (3, Fraction(1, 10)), (4, Fraction(1, 50)), (5, Fraction(3, 100))])
def test_optimal_with_step_delta_matches_brute_force_over_uv_products(k, d0):
    pairs = [_uv_fraction(Fraction(3), d0)] * k                # eps = log 3 at every step
    for ratio in (Fraction(1), Fraction(2), Fraction(3), Fraction(7, 2), Fraction(9), Fraction(30)):
        exact = _exact_product_delta(pairs, ratio)
        got = comp.optimal_delta(math.log(3), k, math.log(ratio), step_delta=float(d0))
        assert got == pytest.approx(float(exact), rel=1e-12, abs=0)
        catastrophe = 1 - (1 - d0) ** k
        if catastrophe < exact < 1 and ratio < 3 ** k:
            assert comp.optimal(math.log(3), k, float(exact), step_delta=float(d0)) == pytest.approx(
                math.log(ratio), rel=1e-10, abs=1e-12)
    # vectorized over eps' and decreasing towards the catastrophe mass 1 - (1 - d0)^k
    grid = np.linspace(0, k * math.log(3) + 1, 9)
    curve = comp.optimal_delta(math.log(3), k, grid, step_delta=float(d0))
    assert curve.shape == grid.shape and np.all(np.diff(curve) <= 1e-15)
    assert curve[-1] == pytest.approx(float(1 - (1 - d0) ** k), rel=1e-12)


def test_optimal_with_step_delta_edge_cases():
    eps, k, d0 = 0.2, 50, 1e-4
    floor = -math.expm1(k * math.log1p(-d0))                     # 1 - (1 - d0)^k: no eps' reaches below it
    assert comp.optimal(eps, k, floor * 0.999, step_delta=d0) == math.inf
    assert comp.optimal(eps, k, 0.0, step_delta=d0) == math.inf
    just_above = comp.optimal(eps, k, floor + 1e-12, step_delta=d0)
    assert 0.8 * k * eps < just_above < k * eps
    assert comp.optimal_delta(eps, k, just_above, step_delta=d0) == pytest.approx(floor + 1e-12, rel=1e-6, abs=0)
    # a per-step delta costs privacy: the total eps' grows with d0 at a fixed total delta
    es = [comp.optimal(eps, k, 1e-3, step_delta=s) for s in (0.0, 1e-7, 1e-6, 1e-5)]
    assert np.all(np.diff(es) > 0)
    # at the total delta of the mpmath profile with the catastrophe term, the inversion is exact to 1e-9
    e = comp.optimal(0.1, 2000, 2e-6, step_delta=5e-10)
    with mp.workdps(40):
        target = 1 - (1 - mp.mpf(2e-6)) / (1 - mp.mpf(5e-10)) ** 2000     # the randomized-response target
    assert _delta_mp_stored(0.1, 2000, e * (1 - 1e-9)) > target > _delta_mp_stored(0.1, 2000, e * (1 + 1e-9))
    with pytest.raises(ValueError, match=r"step_delta must be in \[0, 1\)"):
        comp.optimal(0.1, 3, 1e-3, step_delta=1.0)
    with pytest.raises(ValueError, match=r"step_delta must be in \[0, 1\)"):
        comp.optimal_delta(0.1, 3, 0.5, step_delta=-1e-9)


def test_optimal_delta_heterogeneous_matches_brute_force():
    # e^eps_i in {2, 3, 5}: every probability is rational, so the brute force over the 4^k outputs is exact
    cases = [([2, 3], [0, 0]), ([3, 2, 5], [Fraction(1, 10), 0, Fraction(1, 20)]), ([5, 2, 2, 3], [0, Fraction(1, 7), 0, 0])]
    for ratios, ds in cases:
        pairs = [_uv_fraction(Fraction(r), Fraction(d)) for r, d in zip(ratios, ds)]
        eps = [math.log(r) for r in ratios]
        for target in (Fraction(1), Fraction(2), Fraction(3), Fraction(10), Fraction(29)):
            exact = _exact_product_delta(pairs, target)
            got = comp.optimal_delta_heterogeneous(eps, math.log(target), deltas=[float(d) for d in ds])
            assert got == pytest.approx(float(exact), rel=1e-12, abs=1e-16)
    # array input, and pure parameters by default
    two = comp.optimal_delta_heterogeneous([math.log(3), math.log(2)], [0.0, math.log(2), 10.0])
    assert two.shape == (3,) and two[0] == pytest.approx(0.5) and two[2] == 0.0
    assert two[1] == pytest.approx(float(_exact_product_delta([_uv_fraction(Fraction(3), 0), _uv_fraction(Fraction(2), 0)], Fraction(2))))


def test_optimal_delta_heterogeneous_equal_parameters_is_the_binomial_formula():
    grid = np.array([0.0, 0.35, 1.0, 2.2])
    for eps, k, d0 in [(0.3, 12, 0.0), (0.7, 9, 1e-3)]:
        a = comp.optimal_delta_heterogeneous([eps] * k, grid, deltas=[d0] * k)
        b = comp.optimal_delta(eps, k, grid, step_delta=d0)
        assert np.allclose(a, b, rtol=1e-11, atol=1e-16)


def test_advanced_heterogeneous_closed_form_and_validity():
    eps = np.array([0.05, 0.3, 0.12, 0.3, 0.8, 0.02, 0.5, 0.1, 0.25, 0.4, 0.07, 0.6])
    dl = np.array([0, 1e-6, 0, 0, 2e-5, 0, 0, 1e-7, 0, 0, 0, 3e-6])
    for dp in (1e-2, 1e-4):
        e, d = comp.advanced_heterogeneous(eps, dp, deltas=dl)
        ee = np.exp(eps)
        assert e == pytest.approx(math.sqrt(2 * math.log(1 / dp) * float((eps**2).sum()))
                                  + float((eps * (ee - 1) / (ee + 1)).sum()), rel=1e-14)
        assert d == pytest.approx(1 - (1 - dp) * float(np.prod(1 - dl)), rel=1e-12)
        assert d < dp + dl.sum()
        # valid against the exact profile of these twelve mechanisms; without the deltas too
        assert comp.optimal_delta_heterogeneous(eps, e, deltas=dl) <= d
        e0, d0 = comp.advanced_heterogeneous(eps, dp)
        assert d0 == pytest.approx(dp) and e0 == pytest.approx(e)
        assert comp.optimal_delta_heterogeneous(eps, e0) <= dp
    # equal parameters: the reduction bound, with the total delta 1 - (1 - d')(1 - d)^k < k d + d'
    e, d = comp.advanced_heterogeneous([0.2] * 30, 1e-5, deltas=[1e-4] * 30)
    er, dr = comp.advanced_reduction(0.2, 30, 1e-5, 1e-4)
    assert e == pytest.approx(er, rel=1e-13, abs=0) and d == pytest.approx(1 - (1 - 1e-5) * (1 - 1e-4) ** 30) and d < dr


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: comp.advanced_heterogeneous([], 1e-5), "epsilons must be a non-empty"),
        (lambda: comp.advanced_heterogeneous([0.1, 0.0], 1e-5), "epsilons must be a non-empty"),
        (lambda: comp.advanced_heterogeneous([0.1, math.inf], 1e-5), "epsilons must be a non-empty"),
        (lambda: comp.advanced_heterogeneous([[0.1, 0.2]], 1e-5), "epsilons must be a non-empty 1-D"),
        (lambda: comp.advanced_heterogeneous([0.1, 0.2], 0.0), r"delta_prime must be in \(0, 1\)"),
        (lambda: comp.advanced_heterogeneous([0.1, 0.2], 1e-5, deltas=[0.1]), "deltas must have the length of epsilons, got 1 and 2"),
        (lambda: comp.advanced_heterogeneous([0.1, 0.2], 1e-5, deltas=[0.1, 1.0]), r"deltas must lie in \[0, 1\)"),
        (lambda: comp.advanced_heterogeneous([0.1, 0.2], 1e-5, deltas=[0.1, -0.1]), r"deltas must lie in \[0, 1\)"),
        (lambda: comp.advanced_heterogeneous([0.1, 0.2], 1e-5, deltas=[0.1, math.nan]), r"deltas must lie in \[0, 1\)"),
        (lambda: comp.optimal_delta_heterogeneous([0.1] * 21, 1.0), "epsilons must have at most 20 entries"),
        (lambda: comp.optimal_delta_heterogeneous([0.1] * 3, -0.5), "epsilon_prime must be >= 0, got -0.5"),
        (lambda: comp.optimal_delta_heterogeneous([0.1] * 3, [1.0, math.nan]), "epsilon_prime must be >= 0"),
    ],
)
def test_heterogeneous_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------------------
# caps, return types, messages that carry the offending value (mutation testing)
# ---------------------------------------------------------------------------
import warnings


def test_total_delta_is_capped_at_one():
    assert comp.basic(0.2, 10, 0.3) == (pytest.approx(2.0), 1.0)
    assert comp.advanced(0.1, 10, 0.5, 0.2)[1] == 1.0
    assert comp.advanced_reduction(0.1, 10, 0.5, 0.2)[1] == 1.0
    # the heterogeneous total is a probability without any cap: 1 - (1 - d')(1 - d_1)...
    assert comp.advanced_heterogeneous([0.1, 0.2], 0.5, deltas=[0.5, 0.9])[1] == pytest.approx(1 - 0.5 * 0.5 * 0.1)


def test_profiles_return_floats_and_emit_no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = comp.optimal_delta(0.3, 5, 0.5)                  # breakpoints 1.5 and 0.9 above, 0.3 and below not
        assert type(d) is float
        assert type(comp.optimal_delta(0.3, 5, 0.5, step_delta=0.1)) is float
        assert comp.optimal_delta(0.3, 5, [0.0, 0.3, 0.9, 1.5, 2.0]).shape == (5,)
        # eps' = 0 with subsets whose loss is exactly 0 (log 3 - log 3): those terms must be skipped silently
        h = comp.optimal_delta_heterogeneous([math.log(3), math.log(3)], 0.0)
        assert type(h) is float and h == pytest.approx(0.5)     # (9 - 1)/16 over the subset {1, 2}
        assert comp.optimal_delta_heterogeneous([0.2] * 20, [3.9, 4.0]).shape == (2,)   # k = 20 is allowed
        assert type(comp.optimal(0.3, 5, 1e-3)) is float
    # exactly 1 - (1 - d0)^k: the randomized-response target is 0, so eps' = k eps (not inf)
    assert comp.optimal(0.3, 1, 0.5, step_delta=0.5) == pytest.approx(0.3)
    assert comp.optimal(0.3, 2, 0.75, step_delta=0.5) == pytest.approx(0.6)


def test_rdp_to_dp_clips_at_zero_and_accepts_rdp_zero():
    # improved conversion at alpha = 2, rho = 0, delta = 0.9: log(1/2) - (log 0.9 + log 2) < 0, clipped to 0
    assert comp.rdp_to_dp([2.0], [0.0], 0.9) == 0.0
    assert comp.rdp_to_dp([2.0], [0.0], 0.9, method="classic") == pytest.approx(math.log(1 / 0.9))
    assert type(comp.zcdp_to_dp(0.3, 1e-5)) is float


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: comp.advanced(0.1, 0, 1e-6), "k must be an integer >= 1, got 0"),
        (lambda: comp.advanced_reduction(0.1, 2.5, 1e-6), "k must be an integer >= 1, got 2.5"),
        (lambda: comp.optimal_delta(0.0, 3, 1.0), "epsilon must be > 0, got 0"),
        (lambda: comp.optimal_delta(0.1, 0, 1.0), r"k must be an integer in \[1, 10000000\], got 0"),
        (lambda: comp.optimal_delta(0.1, 3, [0.0, 0.5, -2.0]), r"epsilon_prime must be >= 0, got -2.0"),
        (lambda: comp.optimal_delta(0.1, 3, [0.5, math.inf]), r"epsilon_prime must be >= 0, got inf"),
        (lambda: comp.optimal_delta(0.1, 3, "a"), "epsilon_prime must be a real number or an array of real numbers, got 'a'"),
        (lambda: comp.optimal_delta_heterogeneous([0.1, "x"], 1.0), "epsilons must be a real number or an array"),
        (lambda: comp.optimal_delta_heterogeneous([0.1, 0.2], 1.0, deltas=["x", 0.1]), "deltas must be a real number or an array"),
        (lambda: comp.rdp_to_dp([2.0, 0.5], [0.1, 0.1], 1e-6), r"alpha must be > 1, got 0.5"),
        (lambda: comp.rdp_to_dp([2.0, 3.0, 4.0], [0.0, 0.5, -0.1], 1e-6), r"rdp must be >= 0, got -0.1"),
        (lambda: comp.rdp_to_dp(["a"], [0.1], 1e-6), "alpha must be a real number or an array"),
        (lambda: comp.rdp_to_dp([2.0], ["b"], 1e-6), "rdp must be a real number or an array"),
        (lambda: comp.rdp_to_dp([[2.0, 3.0]], [[0.1, 0.2]], 1e-6), "alpha and rdp must be 1-D arrays of the same length"),
        (lambda: comp.zcdp_to_dp(0.1, 0.0), r"delta must be in \(0, 1\), got 0"),
        (lambda: comp.uv_pair(math.nan), "epsilon must be a real number, got nan"),
    ],
)
def test_more_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_window_is_the_interval_of_masses_above_the_threshold():
    # _window(eps, k, n, threshold) returns [lo, end): the l < n with log a_l >= threshold, a_l the binomial
    # probability of l flips (scipy.stats.binom here, independently); (0, n) when no mass reaches the threshold
    from scipy import stats

    from dpnotes.composition import _window

    checked = 0
    for eps in (0.01, 0.5, 3.0):
        for k in (1, 2, 7, 12, 50, 1001):        # k = 12, eps = 0.5: (k + 1) q = 4.9, just below an integer
            n = (k + 1) // 2
            log_a = stats.binom.logpmf(np.arange(n), k, 1 / (1 + math.exp(eps)))
            levels = np.sort(np.unique(log_a))
            mids = (levels[1:] + levels[:-1]) / 2 if levels.size > 1 else np.array([])
            # thresholds between distinct levels (no ties), including just below the top (a window of one l)
            for thr in list(mids[:: max(1, mids.size // 6)]) + list(mids[-2:]) + [levels[0] - 1.0, levels[-1] + 1.0]:
                inside = np.nonzero(log_a >= thr)[0]
                want = (0, n) if inside.size == 0 else (int(inside[0]), int(inside[-1]) + 1)
                assert _window(eps, k, n, float(thr)) == want, (eps, k, thr)
                checked += 1
    assert checked > 60


def test_optimal_is_zero_once_delta_reaches_the_mass_of_positive_losses():
    # A = Pr[loss > 0] under x: for delta >= A even eps' = 0 holds (binomial masses from scipy, independently)
    from scipy import stats

    for eps, k in [(0.01, 100), (0.5, 3), (0.3, 40)]:
        n = (k + 1) // 2                                  # l < n flips: loss (k - 2l) eps > 0
        A = float(stats.binom.cdf(n - 1, k, 1 / (1 + math.exp(eps))))
        assert comp.optimal(eps, k, min(A * 1.001, 0.999999)) == 0.0
        assert comp.optimal(eps, k, 0.999999) == 0.0
        tv = comp.optimal_delta(eps, k, 0.0)              # between TV and A: still 0 (the clip at 0)
        assert tv < A and comp.optimal(eps, k, (tv + A) / 2) == 0.0
        assert comp.optimal(eps, k, tv * 0.9) > 0.0


def test_optimal_is_zero_when_delta_equals_the_mass_of_positive_losses_exactly():
    # delta = A = Pr[loss > 0] to the last bit (scipy's binomial cdf; for many of these pairs log(delta) equals
    # the code's log-space sum exactly): the answer is eps' = 0, with no log(0) on the way
    from scipy import stats

    for k in (1, 2, 3, 4, 7):
        n = (k + 1) // 2
        for eps in np.linspace(0.05, 2.5, 50):
            A = float(stats.binom.cdf(n - 1, k, 1 / (1 + math.exp(eps))))
            assert comp.optimal(float(eps), k, A) == 0.0


def test_uv_pair_is_exact_at_large_epsilon():
    """Regression (found by tests/test_props_composition.py): (1 - delta)(1 - p) lost log10(e^eps) digits,
    so U and V at eps = 30 were (30, 1e-3)-indistinguishable instead of (30, 0)."""
    from dpnotes import loss

    u, v = comp.uv_pair(30.0)
    assert u[1] / u[2] == pytest.approx(math.exp(30.0), rel=1e-15, abs=0)
    assert loss.hockey_stick(u, v, 30.0) == 0.0
    u, v = comp.uv_pair(800.0, 0.25)          # e^800 overflows: no error, the flip mass is 0
    assert u.tolist() == [0.25, 0.75, 0.0, 0.0]


def test_optimal_far_below_the_catastrophe_mass_is_inf_not_an_overflow():
    """Regression (found by tests/test_props_composition.py): with 1 - (1 - d0)^k close to 1 and a much
    smaller target, expm1 of k log(1/(1 - d0)) > 709.8 raised OverflowError instead of answering inf."""
    assert comp.optimal(1e-4, 6737, 0.0, step_delta=0.1) == math.inf
    assert comp.optimal(1e-4, 6737, 0.5, step_delta=0.1) == math.inf


def test_optimal_delta_never_exceeds_one():
    """Regression (found by tests/test_props_composition.py): at eps = 20, k = 442413 the log-space sum of
    the masses rounded to 1.0000000000003."""
    assert comp.optimal_delta(20.0, 442413, 0.0) <= 1.0
    assert comp.optimal_delta(20.0, 442413, 0.0) == pytest.approx(1.0, rel=1e-12, abs=0)


def test_optimal_never_exceeds_k_epsilon():
    """Regression (found by tests/test_props_composition.py, thorough profile): with a target just above the
    catastrophe mass the answer is just below the top breakpoint k eps, and rounding put it one ulp above."""
    eps = 0.049787068367863944
    assert comp.optimal(eps, 1, 1.000000000000001e-12, step_delta=1e-12) <= eps


# ----------------------------------------------------------------------------------- extreme magnitudes
def _mp(f):
    import mpmath

    with mpmath.workdps(50):
        return float(f(mpmath))


def test_advanced_is_an_infinite_bound_beyond_the_float_range():
    # math.expm1(1e300) raised OverflowError; eps (e^eps - 1) > 1.8e308 from eps ~ 703
    eps, dlt = comp.advanced(1e300, 100, 1e-6, 1e-7)
    assert eps == math.inf and dlt == pytest.approx(1.1e-5, rel=1e-12, abs=0)
    assert comp.advanced(710.0, 1, 0.5)[0] == math.inf
    assert comp.advanced(704.0, 1, 0.5)[0] == math.inf          # 704 e^704 = 1.2e308 * 704
    exact = _mp(lambda mp: 700 * mp.sqrt(2 * mp.log(2)) + 700 * mp.expm1(700))
    assert comp.advanced(700.0, 1, 0.5)[0] == pytest.approx(exact, rel=1e-13, abs=0)


@pytest.mark.parametrize("fn, mean", [
    (comp.advanced, lambda mp, e: e * mp.expm1(e)),
    (comp.advanced_reduction, lambda mp, e: e * mp.tanh(e / 2)),
])
@pytest.mark.parametrize("eps, k, delta_prime", [(0.1, 100, 5e-324), (0.1, 100, 1e-300), (1e-300, 7, 1e-6),
                                                 (5e-324, 100, 1e-6), (1e300, 100, 1e-6)])
def test_advanced_bounds_at_extreme_magnitudes_are_the_closed_form(fn, mean, eps, k, delta_prime):
    # log(1 / 5e-324) was log(inf) = inf: the bound at the smallest delta' is 0.1 sqrt(200 * 744.44) + ...
    exact = _mp(lambda mp: mp.mpf(eps) * mp.sqrt(2 * k * -mp.log(mp.mpf(delta_prime)))
                + k * mean(mp, mp.mpf(eps)))
    got = fn(eps, k, delta_prime)[0]
    if exact == math.inf:
        assert got == math.inf
    elif eps == 5e-324:            # the result itself is subnormal: within an ulp of 5e-324
        assert abs(got - exact) <= 5e-324
    else:
        assert got == pytest.approx(exact, rel=1e-13, abs=0)


@pytest.mark.parametrize("epsilons, delta_prime", [([1e300], 1e-6), ([1e300, 1e299, 3e300], 1e-300),
                                                   ([1e-200, 1e-200], 1e-6), ([1e-160], 0.5),
                                                   ([0.5, 0.2], 5e-324)])
def test_advanced_heterogeneous_at_extreme_magnitudes_is_the_closed_form(epsilons, delta_prime):
    # sum(eps * eps) overflowed (inf at [1e300], where the bound is 6.26e300) or underflowed to 0
    # (the bound at [1e-200, 1e-200] was 0.0, not 1.05e-199)
    exact = _mp(lambda mp: mp.sqrt(2 * -mp.log(mp.mpf(delta_prime)) * sum(mp.mpf(e) ** 2 for e in epsilons))
                + sum(mp.mpf(e) * mp.tanh(mp.mpf(e) / 2) for e in epsilons))
    assert comp.advanced_heterogeneous(epsilons, delta_prime)[0] == pytest.approx(exact, rel=1e-13, abs=0)


def test_rr_reduction_channel_at_extreme_epsilon():
    import numpy as np

    p, q = [0.5, 0.3, 0.2], [0.3, 0.4, 0.3]
    # at eps = 1e300, U = (0, 1, 0, 0) and V = (0, 0, 1, 0): the channel's middle rows are p and q
    t = comp.rr_reduction_channel(p, q, 1e300)
    assert np.allclose(t[1], p, atol=1e-12) and np.allclose(t[2], q, atol=1e-12)
    u, v = comp.uv_pair(1e-300)
    t = comp.rr_reduction_channel(p, p, 1e-300)                 # equal laws: always a channel
    assert np.allclose(u @ t, p) and np.allclose(v @ t, p)
    # distinct laws are not 1e-300-indistinguishable: the refusal names epsilon (it named no parameter)
    for eps in (1e-300, 5e-324):
        with pytest.raises(ValueError, match=r"not \(epsilon, delta\) = \((1e-300|5e-324), 0\.0\)-indistinguishable"):
            comp.rr_reduction_channel(p, q, eps)


def _mp_optimal(eps, k, delta, dps=400):
    """The smallest eps' with delta_k(eps') <= delta, by bisection on the exact profile of k-fold
    randomized response (400 digits: p = 1/2 + eps/4 must be resolved at eps = 1e-300)."""
    import mpmath

    with mpmath.workdps(dps):
        eps, delta = mpmath.mpf(eps), mpmath.mpf(delta)
        p = mpmath.e**eps / (1 + mpmath.e**eps)

        def profile(ep):
            return mpmath.fsum(mpmath.binomial(k, l) * p ** (k - l) * (1 - p) ** l * -mpmath.expm1(ep - (k - 2 * l) * eps)
                               for l in range(k + 1) if (k - 2 * l) * eps > ep)

        lo, hi = mpmath.mpf(0), k * eps
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if profile(mid) <= delta else (mid, hi)
        return float(hi)


@pytest.mark.parametrize("eps, k, delta", [(1e-20, 10, 1e-30), (1e-20, 10, 1e-21), (1e-12, 10, 1e-20),
                                           (1e-300, 10, 1e-310), (1e-300, 7, 1e-301), (1e-100, 40, 1e-101)])
def test_optimal_at_a_tiny_epsilon_is_the_exact_root(eps, k, delta):
    # A_m (1 - C e^{-2 (m-lo) eps} / A_m) cancelled to 0 below eps = 1e-16: log 0 warned and the bound
    # was 0.0 although delta(0) = 1.2e-20 > 1e-30 (a (0, 1e-30)-DP claim, unsound)
    assert comp.optimal(eps, k, delta) == pytest.approx(_mp_optimal(eps, k, delta), rel=1e-12, abs=0)


@pytest.mark.parametrize("delta", [5e-324, 1e-300])
def test_conversions_at_a_subnormal_delta(delta):
    # log(1/delta) overflowed to inf at 5e-324: zcdp_to_dp and rdp_to_dp(method="classic") returned inf
    import mpmath

    with mpmath.workdps(50):
        log_inv = -mpmath.log(mpmath.mpf(delta))
        zcdp = float(mpmath.mpf(0.5) + 2 * mpmath.sqrt(mpmath.mpf(0.5) * log_inv))
        classic = float(min(mpmath.mpf(0.5) + log_inv / 1, mpmath.mpf(2.0) + log_inv / 7))
    assert comp.zcdp_to_dp(0.5, delta) == pytest.approx(zcdp, rel=1e-14, abs=0)
    assert comp.rdp_to_dp([2.0, 8.0], [0.5, 2.0], delta, method="classic") == pytest.approx(classic, rel=1e-14, abs=0)


def test_optimal_delta_caps_k_at_ten_million(raises_exactly):
    """k = 2**31 built arrays of 2**30 log-masses (8 GiB, MemoryError). Capped at 10**7, where
    the relative error (1e-16 k log k) is still about 2e-8; the answer there is a probability."""
    with raises_exactly(f"k must be an integer in [1, 10000000], got {2**31}"):
        comp.optimal_delta(0.5, 2**31, 1.5)
    assert 0.0 < comp.optimal_delta(1e-4, 10**7, 0.5) < 1.0


def test_optimal_is_on_the_safe_side_of_its_root():
    """optimal is the smallest eps' with optimal_delta(eps') <= delta. Its closed form, computed in floats, came out 1 to 4
    ulps below the crossing in half of 300 random cases (optimal_delta there up to 2.5e-8 relative above delta), and its
    "delta within rounding of A" branch returned 0 for delta one double below optimal_delta(0) (found by a reviewer
    of the root finders). Checked by the definition, on seeded random (epsilon, k, delta) and at those edges; the
    answers stay the roots (mpmath agreement to 1e-9 is tested above)."""
    rng = np.random.default_rng(20261127)
    for _ in range(200):
        eps, k, delta = 10 ** rng.uniform(-3, 0.5), int(10 ** rng.uniform(0, 3)), 10 ** rng.uniform(-12, -0.5)
        e = comp.optimal(eps, k, delta)
        assert e == math.inf or comp.optimal_delta(eps, k, e) <= delta
    for eps, k, below in [(0.001, 100, 1), (1.0, 4, 50), (0.3, 7, 3)]:
        delta = comp.optimal_delta(eps, k, 0.0)
        for _ in range(below):
            delta = math.nextafter(delta, 0.0)
        e = comp.optimal(eps, k, delta)
        assert 0.0 < e < 1e-12 and comp.optimal_delta(eps, k, e) <= delta


def _mp_rr_kept(epsilon, k, eps_prime):
    """1 - delta_k(eps') of k-fold randomized response at 60 digits: sum over l of a_l e^{min(0, eps' - (k - 2l) eps)},
    a_l = C(k, l) e^{(k - l) eps} / (1 + e^eps)^k (both doubles converted exactly)."""
    with mp.workdps(60):
        e, ep = mp.mpf(epsilon), mp.mpf(eps_prime)
        norm = (1 + mp.exp(e)) ** k
        return mp.fsum(mp.binomial(k, l) * mp.exp((k - l) * e) / norm * mp.exp(min(0, ep - (k - 2 * l) * e))
                       for l in range(k + 1))


@pytest.mark.parametrize("epsilon, k, delta", [(1.0, 300, 1 - 1e-9), (1.0062911873346676, 402, 0.9999999996773267),
                                               (2.1411841253624098, 34, 0.9999999896590166),
                                               (2.8805346823179327, 711, 0.9999999999995728),
                                               (7.685735168333775, 693, 0.9999999999999096), (0.5, 1000, 0.9999),
                                               (0.3, 7, 0.6)])
def test_optimal_near_delta_one_is_the_least_epsilon_meeting_delta(epsilon, k, delta):
    """As delta tends to 1 the inversion of optimal_delta magnified its error (1e-16 k log k relative, an absolute error
    in 1 - delta): optimal(1, 300, 1 - 1e-9) was 2e-5 below the least eps' (the profile above delta there), and 0.0 for
    5168 at (7.69, 693, 1 - 9e-14) (a helper's find). Above delta = 1/2 it is now found from log(1 - delta(eps')), a
    sum of positive terms. Checked by the definition at 60 digits: 1 - delta(eps') at the answer is at least 1 - delta
    (the answer meets delta: 4e-13 of it short at (0.5, 1000, 0.9999) before the margin), and exceeds it by at most
    8e-16 (k + 1) log(k + 2) of itself, the profile's own accuracy (measured up to 6.3 times 1e-16 k log k); 0 only
    where delta(0) already meets delta."""
    got = comp.optimal(epsilon, k, delta)
    assert 0.0 <= got < k * epsilon
    with mp.workdps(60):
        kept = 1 - mp.mpf(delta)
        at = _mp_rr_kept(epsilon, k, got)
        assert at >= kept, (got,)
        assert got == 0.0 or at <= kept * (1 + 8e-16 * (k + 1) * math.log(k + 2)), (got, at / kept - 1)
