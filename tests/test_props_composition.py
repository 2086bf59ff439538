"""Property tests of dpnotes.composition over the whole documented domain (Hypothesis).

k runs to a million compositions, epsilon from 1e-4 to 20, delta from 1e-12 to 1/2. The order of
the bounds the theorems give is checked everywhere (exact <= advanced with the reduction's mean
<= advanced <= basic; RDP and zCDP conversions >= the exact Gaussian epsilon), the limits (one step
is the one-step profile), the round trips (optimal <-> optimal_delta), and the exact profile
against an independent 40-digit mpmath sum. Every tolerance is stated where it is used.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import profiles
from dpnotes import composition as comp
from dpnotes import loss

U = np.finfo(float).eps
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")   # valid input must not make numpy warn


def logu(lo, hi):
    return st.one_of(st.sampled_from([lo, hi]), st.floats(math.log(lo), math.log(hi)).map(math.exp)).map(
        lambda x: min(max(x, lo), hi))


EPS = logu(1e-4, 20.0)
K = st.one_of(st.sampled_from([1, 2, 10**6]), logu(1.0, 1e6).map(lambda x: int(round(x))))
DELTA = logu(1e-12, 0.5)
STEP_DELTA = st.one_of(st.just(0.0), logu(1e-12, 1e-3))


# ---------------------------------------------------------------- the order of the bounds
@given(eps=EPS, k=K, dprime=DELTA, d0=STEP_DELTA)
def test_exact_below_reduction_below_advanced_below_basic(eps, k, dprime, d0):
    """All four are (eps_total, k d0 + d')-DP guarantees for the same mechanisms; the exact one
    (optimal, Kairouz-Oh-Viswanath) is the smallest, the reduction's mean eps tanh(eps/2) is below the
    KL bound's eps (e^eps - 1); basic needs no slack d' and is compared at its own delta k d0."""
    e_adv, d_adv = comp.advanced(eps, k, dprime, d0)
    e_red, d_red = comp.advanced_reduction(eps, k, dprime, d0)
    assert d_adv == d_red == min(k * d0 + dprime, 1.0)
    assert e_red <= e_adv
    assume(d_adv < 1.0)
    e_opt = comp.optimal(eps, k, d_adv, d0)
    assert e_opt <= e_red * (1 + 1e-12)          # optimal is right to 1e-11 (round-trip test below)
    assert e_opt <= k * eps * (1 + 1e-12)
    e_basic, d_basic = comp.basic(eps, k, d0)
    assert e_basic == k * eps and d_basic == min(k * d0, 1.0)
    if k * d0 < 0.999:                               # at basic's own delta the exact eps is at most k eps
        assert comp.optimal(eps, k, k * d0, d0) <= e_basic * (1 + 1e-12)


@given(eps=EPS, k=K, dprime=DELTA, f=st.floats(1.0, 4.0), which=st.sampled_from(["advanced", "advanced_reduction"]))
def test_advanced_bounds_grow_with_k_and_epsilon_and_shrink_with_the_slack(eps, k, dprime, f, which):
    fn = getattr(comp, which)
    e = fn(eps, k, dprime)[0]
    assert fn(eps, k + 1, dprime)[0] >= e
    assert fn(min(eps * f, 20.0), k, dprime)[0] >= e
    assert fn(eps, k, min(dprime * f, 0.5))[0] <= e


# ---------------------------------------------------------------- the exact (optimal) composition
@settings(max_examples=profiles.size(fast=30, thorough=300))
@given(eps=EPS, k=K, delta=DELTA, d0=STEP_DELTA)
def test_optimal_is_the_root_of_the_exact_profile(eps, k, delta, d0):
    """eps' = optimal(...) is where optimal_delta crosses delta: 1e-11 (relative) more meets delta,
    1e-11 less does not. (A test of delta(eps') against delta alone would need a tolerance for the
    profile's steepness: near a breakpoint of a profile with large k eps, a few ulps of eps' move
    delta by 17 %.)"""
    assume(-math.expm1(k * math.log1p(-d0)) < delta)   # otherwise no eps' works (tested below)
    e = comp.optimal(eps, k, delta, d0)
    assert 0.0 <= e <= k * eps
    if e == 0.0:
        assert comp.optimal_delta(eps, k, 0.0, d0) <= delta * (1 + 1e-12)
        return
    r = 1e-11
    assert comp.optimal_delta(eps, k, e * (1 + r), d0) <= delta
    assert comp.optimal_delta(eps, k, e * (1 - r), d0) >= delta


@given(eps=EPS, k=st.integers(1, 10**6), d0=logu(1e-12, 0.1), f=st.floats(0.0, 1.0, exclude_max=True))
def test_optimal_is_inf_below_the_mass_of_the_catastrophes(eps, k, d0, f):
    floor = -math.expm1(k * math.log1p(-d0))      # 1 - (1 - d0)^k: some step said "I am U"
    assume(floor * f < floor * (1 - 1e-9))
    assert comp.optimal(eps, k, floor * f, d0) == math.inf


@given(eps=EPS, k=K, delta=DELTA, f=st.floats(1.0, 3.0))
def test_optimal_grows_with_k_and_epsilon_and_falls_with_delta(eps, k, delta, f):
    e = comp.optimal(eps, k, delta)
    tol = 1e-11 * e                                # the root's accuracy (previous test)
    assert comp.optimal(eps, k + 1, delta) >= e - tol
    assert comp.optimal(min(eps * f, 20.0), k, delta) >= e - tol
    assert comp.optimal(eps, k, min(delta * f, 0.5)) <= e + tol


def _mp_optimal_delta(eps, k, eps_prime):
    """sum_{l: (k - 2l) eps > eps'} C(k, l) (e^{(k-l) eps} - e^{eps'} e^{l eps}) / (1 + e^eps)^k at 40 digits."""
    with mp.workdps(40):
        e, ep = mp.mpf(eps), mp.mpf(eps_prime)
        total = mp.mpf(0)
        for l in range(k + 1):
            if (k - 2 * l) * e > ep:
                total += mp.binomial(k, l) * (mp.e ** ((k - l) * e) - mp.e ** (ep + l * e))
        return total / (1 + mp.e ** e) ** k


@settings(max_examples=profiles.size(fast=25, thorough=300))
@given(eps=logu(1e-3, 10.0), k=st.integers(1, 300), frac=st.floats(0.0, 1.0))
def test_optimal_delta_matches_a_40_digit_sum(eps, k, frac):
    """Independent route: the binomial sum of Kairouz, Oh and Viswanath (Theorem 3.3) term by term in
    mpmath. Relative 1e-9: log-space sums of up to 150 terms, each with gammaln's relative error
    ~1e-15 times |log a_l| (up to ~3000 here). Absolute 4U k eps: the breakpoints (k - 2l) eps are
    rounded in floats, and the profile's slope is at most 1, so an eps' within rounding of a
    breakpoint (frac = 1 puts it on the top one) may be counted on the other side."""
    eps_prime = frac * k * eps
    got = comp.optimal_delta(eps, k, eps_prime)
    ref = _mp_optimal_delta(eps, k, eps_prime)
    assert got == pytest.approx(float(ref), rel=1e-9, abs=4 * U * k * eps)


@settings(max_examples=profiles.size(fast=40, thorough=200))      # a call at k = 1e6 takes 0.1 s
@given(eps=EPS, k=K, eps_prime=st.one_of(st.just(0.0), logu(1e-6, 1e7)), d0=STEP_DELTA, f=st.floats(1.0, 3.0))
def test_optimal_delta_is_a_profile(eps, k, eps_prime, d0, f):
    """In [0, 1], non-increasing in eps', non-decreasing in k; from eps' = k eps on only the
    catastrophes are left, 1 - (1 - d0)^k. Monotone up to the documented relative error
    1e-16 k log k (log-gamma values of size k log k: 1.1e-9 at k = 1e6), taken twice and doubled."""
    acc = 4e-16 * (k + 1) * math.log(k + 2) + 1e-13
    d = comp.optimal_delta(eps, k, eps_prime, d0)
    assert 0.0 <= d <= 1.0
    assert comp.optimal_delta(eps, k, eps_prime * f, d0) <= d * (1 + acc) + 1e-300
    assert comp.optimal_delta(eps, k + 1, eps_prime, d0) >= d * (1 - acc)
    floor = -math.expm1(k * math.log1p(-d0))
    assert d >= floor * (1 - 1e-12)
    if eps_prime >= k * eps:
        assert d == pytest.approx(floor, rel=1e-12, abs=0)


@given(eps=EPS, eps_prime=st.one_of(st.just(0.0), logu(1e-6, 30.0)), d0=STEP_DELTA)
def test_one_step_is_the_one_step_profile(eps, eps_prime, d0):
    """k = 1: randomized response itself, with the catastrophe d0 on top."""
    one = loss.rr_delta(eps_prime, eps)
    assert comp.optimal_delta(eps, 1, eps_prime, d0) == pytest.approx(d0 + (1 - d0) * one, rel=1e-12, abs=1e-300)
    assert comp.optimal_delta_heterogeneous([eps], eps_prime, [d0]) == pytest.approx(
        d0 + (1 - d0) * one, rel=1e-12, abs=1e-300)


@settings(max_examples=profiles.size(fast=25, thorough=300))
@given(eps=logu(1e-3, 5.0), k=st.integers(1, 12), eps_prime=st.one_of(st.just(0.0), logu(1e-4, 30.0)),
       d0=STEP_DELTA)
def test_heterogeneous_profile_with_equal_parameters_is_the_binomial_one(eps, k, eps_prime, d0):
    """Two algorithms: the 2^k-subset enumeration and the binomial sum over the number of flips."""
    got = comp.optimal_delta_heterogeneous([eps] * k, eps_prime, [d0] * k)
    assert got == pytest.approx(comp.optimal_delta(eps, k, eps_prime, d0), rel=1e-10, abs=1e-300)


@settings(max_examples=profiles.size(fast=25, thorough=300))
@given(data=st.data(), k=st.integers(1, 10))
def test_heterogeneous_advanced_is_sound_against_the_exact_profile(data, k):
    """advanced_heterogeneous promises (eps_tot, delta_tot)-DP; the exact profile at eps_tot must be
    at most delta_tot, and permuting the mechanisms changes nothing."""
    eps = data.draw(st.lists(logu(1e-3, 3.0), min_size=k, max_size=k))
    deltas = data.draw(st.lists(STEP_DELTA, min_size=k, max_size=k))
    dprime = data.draw(DELTA)
    e_tot, d_tot = comp.advanced_heterogeneous(eps, dprime, deltas)
    assert comp.optimal_delta_heterogeneous(eps, e_tot, deltas) <= d_tot * (1 + 1e-12)
    perm = data.draw(st.permutations(range(k)))
    e2, d2 = comp.advanced_heterogeneous([eps[i] for i in perm], dprime, [deltas[i] for i in perm])
    assert e2 == pytest.approx(e_tot, rel=1e-13, abs=0) and d2 == pytest.approx(d_tot, rel=1e-13, abs=0)
    x = data.draw(st.floats(0.0, 10.0))
    assert comp.optimal_delta_heterogeneous([eps[i] for i in perm], x, [deltas[i] for i in perm]) == pytest.approx(
        comp.optimal_delta_heterogeneous(eps, x, deltas), rel=1e-12, abs=1e-300)


@given(eps=EPS, k=K, dprime=DELTA, d0=STEP_DELTA)
def test_heterogeneous_advanced_with_equal_parameters_is_the_reduction(eps, k, dprime, d0):
    assume(k <= 10**5)                               # a list of k epsilons
    e, d = comp.advanced_heterogeneous([eps] * k, dprime, [d0] * k)
    e_red, d_red = comp.advanced_reduction(eps, k, dprime, d0)
    assert e == pytest.approx(e_red, rel=1e-9, abs=0)       # a sum of k equal squares vs k times one square
    assert d <= d_red * (1 + 1e-12)                  # 1 - (1 - d')(1 - d0)^k <= k d0 + d'


# ---------------------------------------------------------------- the (U, V) reduction
@given(eps=st.one_of(st.just(0.0), logu(1e-8, 30.0)), delta=st.one_of(st.just(0.0), logu(1e-12, 0.999)))
def test_uv_pair_is_exactly_eps_delta_and_no_better(eps, delta):
    u, v = comp.uv_pair(eps, delta)
    assert math.fsum(u) == pytest.approx(1.0, abs=4 * U) and np.array_equal(v, u[::-1])
    assert loss.hockey_stick(u, v, eps) == pytest.approx(delta, rel=1e-12, abs=4 * U)
    assert loss.hockey_stick(v, u, eps) == pytest.approx(delta, rel=1e-12, abs=4 * U)
    if eps > 1e-6:                                   # a smaller epsilon needs a larger delta
        assert loss.hockey_stick(u, v, eps * 0.5) > delta


@settings(max_examples=profiles.size(fast=20, thorough=200))
@given(data=st.data())
def test_every_eps_delta_pair_is_a_post_processing_of_uv(data):
    m = data.draw(st.integers(1, 5))
    mass = st.floats(1e-6, 1.0)
    p = np.array(data.draw(st.lists(mass, min_size=m, max_size=m)))
    q = np.array(data.draw(st.lists(mass, min_size=m, max_size=m)))
    p, q = p / p.sum(), q / q.sum()
    eps = data.draw(logu(1e-3, 5.0))
    delta = max(loss.hockey_stick(p, q, eps), loss.hockey_stick(q, p, eps))
    assume(delta < 0.999)
    t = comp.rr_reduction_channel(p, q, eps, min(delta * (1 + 1e-9) + 1e-12, 0.999))
    u, v = comp.uv_pair(eps, min(delta * (1 + 1e-9) + 1e-12, 0.999))
    assert np.all(t >= 0) and np.allclose(t.sum(axis=1), 1.0, atol=1e-7)
    assert np.allclose(u @ t, p, atol=1e-7) and np.allclose(v @ t, q, atol=1e-7)    # the LP's tolerance


# ---------------------------------------------------------------- RDP and zCDP
ORDERS = st.lists(st.floats(1.0 + 1e-6, 1e4), min_size=1, max_size=8)


@given(orders=ORDERS, rho=logu(1e-6, 1e3), delta=DELTA)
def test_rdp_conversions_order_and_soundness_for_the_gaussian(orders, rho, delta):
    """For the Gaussian with mu^2/2 = rho (RDP curve alpha rho): exact eps <= improved <= classic,
    and zCDP's closed form is the classic conversion at the best real order, so no grid beats it."""
    a = np.array(orders)
    curve = a * rho
    improved = comp.rdp_to_dp(a, curve, delta)
    classic = comp.rdp_to_dp(a, curve, delta, method="classic")
    exact = loss.gaussian_epsilon(delta, math.sqrt(2 * rho))
    assert improved <= classic * (1 + 1e-13)
    assert exact <= improved * (1 + 1e-9) + 1e-12   # the root's accuracy (test_props_loss)
    z = comp.zcdp_to_dp(rho, delta)
    assert z <= classic * (1 + 1e-12) and exact <= z * (1 + 1e-9)
    best = 1 + math.sqrt(math.log(1 / delta) / rho)   # the optimal real order of the classic conversion
    assert comp.rdp_to_dp([best], [best * rho], delta, method="classic") == pytest.approx(z, rel=1e-12, abs=0)


@given(orders=ORDERS, data=st.data(), delta=DELTA, f=st.floats(1.0, 10.0))
def test_rdp_to_dp_is_monotone_and_a_minimum_over_orders(orders, data, delta, f):
    rdp = data.draw(st.lists(st.floats(0.0, 1e3), min_size=len(orders), max_size=len(orders)))
    a, r = np.array(orders), np.array(rdp)
    for method in ("improved", "classic"):
        e = comp.rdp_to_dp(a, r, delta, method=method)
        assert e >= 0.0
        assert comp.rdp_to_dp(a, r * f, delta, method=method) >= e * (1 - 1e-14)
        assert comp.rdp_to_dp(a, r, min(delta * f, 0.5), method=method) <= e * (1 + 1e-14) + 1e-15
        singles = [comp.rdp_to_dp([x], [y], delta, method=method) for x, y in zip(a, r)]
        assert e == min(singles)


@given(rho=logu(1e-8, 1e4), delta=DELTA, f=st.floats(1.0, 10.0))
def test_zcdp_to_dp_is_monotone(rho, delta, f):
    z = comp.zcdp_to_dp(rho, delta)
    assert z >= rho
    assert comp.zcdp_to_dp(rho * f, delta) >= z
    assert comp.zcdp_to_dp(rho, min(delta * f, 0.5)) <= z
