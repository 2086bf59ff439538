"""Property tests of dpnotes.loss over the whole documented domain (Hypothesis).

Discrete laws are drawn with zeros (outcomes one law never produces) and with masses down to
1e-300; epsilon runs from 0 to 1e3 (past the overflow of e^eps at 709.8); the Gaussian and
Laplace parameter mu from 1e-8 to 60. The references are independent routes: brute force over
all events, mpmath at 50 digits, quadrature of the tail formula
delta(eps) = int_eps^inf e^(eps - l) Pr[L > l] dl (which links the profile to the loss law
without either function's code). Every tolerance is stated where it is used.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import profiles
from dpnotes import loss
from dpnotes.mechanisms import rr_keep_probability

U = np.finfo(float).eps

# valid input must not make numpy warn (an overflow there is a value computed the wrong way round)
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def logu(lo, hi):
    return st.one_of(st.sampled_from([lo, hi]), st.floats(math.log(lo), math.log(hi)).map(math.exp)).map(
        lambda x: min(max(x, lo), hi))


MU = logu(1e-8, 60.0)
EPS = st.one_of(st.just(0.0), logu(1e-10, 1e3))


@st.composite
def pairs(draw, max_m=8):
    """Two probability vectors over the same m outcomes, with zeros and tiny masses."""
    m = draw(st.integers(1, max_m))
    mass = st.one_of(st.just(0.0), st.floats(1e-300, 1.0), logu(1e-300, 1.0))
    p = np.array(draw(st.lists(mass, min_size=m, max_size=m)))
    q = np.array(draw(st.lists(mass, min_size=m, max_size=m)))
    assume(p.sum() > 0 and q.sum() > 0)
    return p / p.sum(), q / q.sum()


def brute_force_hockey_stick(p, q, eps):
    """sup over all 2^m events S of P(S) - e^eps Q(S), summed with fsum."""
    e = math.exp(eps) if eps < 700 else math.inf
    best = 0.0
    for r in range(1, p.size + 1):
        for s in itertools.combinations(range(p.size), r):
            qs = math.fsum(q[list(s)])
            best = max(best, math.fsum(p[list(s)]) - (e * qs if qs > 0 else 0.0))
    return best


# ---------------------------------------------------------------- discrete laws
@given(pq=pairs(), eps=EPS)
def test_hockey_stick_is_the_supremum_over_events(pq, eps):
    p, q = pq
    d = loss.hockey_stick(p, q, eps)
    assert 0.0 <= d <= 1.0
    # both sum at most m terms of size <= 1: rounding below m * 4U
    assert d == pytest.approx(brute_force_hockey_stick(p, q, eps), rel=0, abs=p.size * 4 * U)


@given(pq=pairs(), eps=EPS, step=logu(1e-12, 10.0))
def test_hockey_stick_falls_with_epsilon_and_equals_the_loss_route(pq, eps, step):
    p, q = pq
    d = loss.hockey_stick(p, q, eps)
    assert loss.hockey_stick(p, q, eps + step) <= d + p.size * 4 * U
    ell, prob = loss.privacy_loss(p, q)
    assert loss.hockey_stick_from_loss(ell, prob, eps) == pytest.approx(d, rel=1e-12, abs=p.size * 4 * U)
    # delta(eps) <= Pr[L > eps]: each outcome with loss above eps contributes at most its P-mass
    assert d <= loss.loss_tail(ell, prob, eps) + p.size * 4 * U
    vec = loss.hockey_stick(p, q, np.array([eps, eps + step]))
    assert vec.shape == (2,) and vec[0] == d


@given(pq=pairs())
def test_hockey_stick_at_zero_is_total_variation(pq):
    p, q = pq
    assert loss.hockey_stick(p, q, 0.0) == pytest.approx(0.5 * math.fsum(np.abs(p - q)), rel=0, abs=p.size * 4 * U)
    assert loss.hockey_stick(p, q, 0.0) == pytest.approx(loss.hockey_stick(q, p, 0.0), rel=0, abs=p.size * 4 * U)


@given(pq=pairs())
def test_privacy_loss_is_a_law_whose_exponential_moment_is_q_of_the_support(pq):
    """prob is P restricted to its support (sums to 1); E[e^-L] = sum_{p>0} q = Q(supp P) <= 1."""
    p, q = pq
    ell, prob = loss.privacy_loss(p, q)
    assert np.all(prob > 0) and math.fsum(prob) == pytest.approx(1.0, abs=p.size * 4 * U)
    moment = math.fsum(prob * np.exp(-ell))
    assert moment == pytest.approx(math.fsum(q[p > 0]), rel=1e-12, abs=p.size * 4 * U)
    assert np.all(np.isinf(ell) == (q[p > 0] == 0))


@given(pq=pairs(), eps=st.floats(-50.0, 50.0), step=logu(1e-12, 10.0))
def test_loss_tail_is_monotone_and_strict_below_weak(pq, eps, step):
    ell, prob = loss.privacy_loss(*pq)
    strict, weak = loss.loss_tail(ell, prob, eps), loss.loss_tail(ell, prob, eps, strict=False)
    assert 0.0 <= strict <= weak <= 1.0 + 4 * U * ell.size
    assert loss.loss_tail(ell, prob, eps + step, strict=False) <= strict + 4 * U * ell.size
    # the atoms: the two differ by exactly the mass at eps
    assert weak - strict == pytest.approx(math.fsum(prob[ell == eps]), abs=4 * U * ell.size)


@settings(max_examples=profiles.size(fast=40, thorough=300))
@given(pq=pairs(), eps=logu(1e-6, 20.0), gap=logu(1e-6, 20.0))
def test_tail_bound_from_dp_bounds_the_tail(pq, eps, gap):
    p, q = pq
    ell, prob = loss.privacy_loss(p, q)
    d = loss.hockey_stick(p, q, eps)
    assume(d < 1.0)
    bound = loss.tail_bound_from_dp(eps, d, eps + gap)
    assert loss.loss_tail(ell, prob, eps + gap) <= bound * (1 + 1e-12) + p.size * 8 * U
    assert d * (1 - 1e-15) <= bound <= 1.0


# ---------------------------------------------------------------- randomized response
@given(eps0=logu(1e-8, 30.0), eps=EPS)
def test_rr_delta_is_the_hockey_stick_of_randomized_response(eps0, eps):
    p = rr_keep_probability(eps0)
    q = 1.0 / (1.0 + math.exp(eps0))          # 1 - p without cancellation (1 - p loses 13 digits at eps0 = 30)
    got = loss.rr_delta(eps, eps0)
    assert got == pytest.approx(loss.hockey_stick([p, q], [q, p], eps), rel=1e-12, abs=8 * U)
    if eps >= eps0:
        assert got == 0.0                             # randomized response is eps0-DP


# ---------------------------------------------------------------- Laplace mechanism
def _laplace_delta_by_quadrature(eps, mu):
    """int (p(y) - e^eps q(y))_+ dy with Lap(0,1) and Lap(mu,1) densities, split at the kinks."""
    f = lambda y: max(0.5 * math.exp(-abs(y)) - math.exp(eps) * 0.5 * math.exp(-abs(y - mu)), 0.0)  # noqa: E731
    cut = 0.5 * (mu - eps)        # p > e^eps q exactly for y < (mu - eps)/2
    pieces = [(-math.inf, min(0.0, cut))] + ([(0.0, cut)] if cut > 0 else [])
    return sum(integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-12)[0] for a, b in pieces)


@given(eps=st.one_of(st.just(0.0), logu(1e-6, 30.0)), mu=logu(1e-6, 30.0))
def test_laplace_delta_matches_quadrature_and_the_tail_formula(eps, mu):
    d = loss.laplace_delta(eps, mu)
    assert 0.0 <= d <= 1.0
    assert d == pytest.approx(_laplace_delta_by_quadrature(eps, mu), rel=1e-8, abs=1e-13)
    if eps >= mu:
        assert d == 0.0
    # delta(eps) = int_eps^mu e^(eps - l) Pr[L > l] dl: the profile from the loss law (L <= mu)
    # (over an interval narrower than 1e-9 mu quad warns of bad behaviour: there the integrand, at
    # most 1, bounds the integral by the width)
    if eps < mu and mu - eps <= 1e-9 * mu:
        assert d <= mu - eps
    elif eps < mu:
        tail = integrate.quad(lambda ell: math.exp(eps - ell) * loss.laplace_loss_tail(ell, mu), eps, mu,
                              epsabs=1e-14, epsrel=1e-12)[0]
        assert d == pytest.approx(tail, rel=1e-8, abs=1e-13)


@given(eps=st.one_of(st.just(0.0), logu(1e-8, 50.0)), mu=logu(1e-8, 50.0), f=st.floats(1.0, 10.0))
def test_laplace_delta_falls_with_epsilon_and_rises_with_mu(eps, mu, f):
    d = loss.laplace_delta(eps, mu)
    assert loss.laplace_delta(eps * f, mu) <= d
    assert loss.laplace_delta(eps, mu * f) >= d


@given(ell=st.floats(-60.0, 60.0), step=logu(1e-12, 10.0), mu=logu(1e-8, 50.0))
def test_laplace_loss_cdf_is_a_distribution_function_and_matches_scipy(ell, step, mu):
    c = loss.laplace_loss_cdf(ell, mu)
    assert 0.0 <= c <= loss.laplace_loss_cdf(ell + step, mu) <= 1.0
    # L = |y - mu| - |y|, y ~ Lap(0, 1): L <= l iff y >= (mu - l)/2 for -mu <= l < mu (scipy's sf)
    if -mu <= ell < mu:
        assert c == pytest.approx(stats.laplace.sf(0.5 * (mu - ell)), rel=1e-13, abs=0)
    assert loss.laplace_loss_tail(ell, mu) == pytest.approx(1.0 - c, abs=2 * U)
    weak = loss.laplace_loss_tail(ell, mu, strict=False)
    assert weak >= loss.laplace_loss_tail(ell, mu)
    if ell not in (mu, -mu):
        assert weak == pytest.approx(loss.laplace_loss_tail(ell, mu), abs=2 * U)   # atoms only at +-mu


# ---------------------------------------------------------------- Gaussian mechanism
def _mp_gaussian_delta(eps, mu):
    with mp.workdps(50):
        m, e = mp.mpf(mu), mp.mpf(eps)
        return mp.ncdf(m / 2 - e / m) - mp.e ** e * mp.ncdf(-m / 2 - e / m)


@given(eps=EPS, mu=MU)
def test_gaussian_delta_matches_mpmath(eps, mu):
    """Relative error 1e-14 (1 + a^2), a = mu/2 - eps/mu: the docstring's claim (a^2 is the
    conditioning of phi(a) itself). Where the true value is below the smallest double the function
    must return 0 or a subnormal, never more."""
    d = loss.gaussian_delta(eps, mu)
    ref = _mp_gaussian_delta(eps, mu)
    assert 0.0 <= d <= 1.0
    if ref < mp.mpf("1e-300"):
        assert d <= 1e-290
        return
    a = mu / 2 - eps / mu
    assert d == pytest.approx(float(ref), rel=1e-14 * (1 + a * a), abs=0)


@given(eps=EPS, mu=MU, f=st.floats(1.0, 10.0))
def test_gaussian_delta_falls_with_epsilon_rises_with_mu_and_stays_below_the_tail(eps, mu, f):
    d = loss.gaussian_delta(eps, mu)
    a = mu / 2 - eps / mu
    slack = 1e-14 * (1 + a * a)                       # the accuracy of each value (previous test)
    assert loss.gaussian_delta(eps * f + (f - 1.0), mu) <= d * (1 + 2 * slack)
    assert loss.gaussian_delta(eps, mu * f) >= d * (1 - 2 * slack)
    # delta(eps) <= Pr[L >= eps]: (1 - e^(eps - L))_+ <= 1{L >= eps}
    assert d <= loss.gaussian_loss_tail(eps, mu) * (1 + 2 * slack)


@settings(max_examples=profiles.size(fast=20, thorough=300))
@given(eps=st.one_of(st.just(0.0), logu(1e-4, 50.0)), mu=logu(1e-3, 20.0))
def test_gaussian_delta_is_the_tail_integral_of_the_loss(eps, mu):
    """delta(eps) = int_eps^inf e^(eps - l) Pr[L > l] dl with Pr[L > l] = Phi(mu/2 - l/mu): the
    profile from the loss law by quadrature. quad's relative tolerance 1e-10; where delta is
    below 1e-250 the integrand underflows and only the absolute error counts."""
    d = loss.gaussian_delta(eps, mu)
    tail = integrate.quad(lambda ell: math.exp(eps - ell) * loss.gaussian_loss_tail(ell, mu), eps, math.inf,
                          epsabs=0.0, epsrel=1e-11, limit=200)[0]
    assert d == pytest.approx(tail, rel=1e-9, abs=1e-250)


@given(eps=st.lists(EPS, min_size=1, max_size=5), mu=st.lists(MU, min_size=1, max_size=5))
def test_gaussian_delta_vectorized_equals_scalar(eps, mu):
    e, m = np.array(eps)[:, None], np.array(mu)[None, :]
    grid = loss.gaussian_delta(e, m)
    assert grid.shape == (len(eps), len(mu))
    for i, j in itertools.product(range(len(eps)), range(len(mu))):
        assert grid[i, j] == loss.gaussian_delta(eps[i], mu[j])


@given(delta=logu(1e-300, 0.999), mu=logu(1e-8, 60.0))
def test_gaussian_epsilon_inverts_the_profile(delta, mu):
    """The returned eps is the root: 1e-12 (relative) more meets delta, 1e-12 less does not (the root
    finder's relative tolerance is 4U; gaussian_delta's own error, 1e-14 (1 + a^2) relative, moves the
    root by less)."""
    e = loss.gaussian_epsilon(delta, mu)
    assert e >= 0.0
    if e == 0.0:
        assert loss.gaussian_delta(0.0, mu) <= delta
        return
    r = 1e-12 * e
    assert loss.gaussian_delta(e + r, mu) <= delta * (1 + 1e-12)
    assert loss.gaussian_delta(max(e - r, 0.0), mu) >= delta * (1 - 1e-12)


@given(delta=logu(1e-300, 0.999), mu=logu(1e-6, 60.0), f=st.floats(1.0, 10.0))
def test_gaussian_epsilon_falls_with_delta_and_rises_with_mu(delta, mu, f):
    e = loss.gaussian_epsilon(delta, mu)
    tol = 1e-12 * e                                   # the root's accuracy (previous test)
    assert loss.gaussian_epsilon(min(delta * f, 0.999), mu) <= e + tol
    assert loss.gaussian_epsilon(delta, mu * f) >= e - tol


@settings(max_examples=profiles.size(fast=20, thorough=150))      # one quadrature each
@given(mu=logu(1e-4, 30.0))
def test_gaussian_loss_is_a_privacy_loss_law(mu):
    """N(mu^2/2, mu^2): E[L] = KL = mu^2/2 and E[e^-L] = 1 (the likelihood ratio q/p integrates to 1),
    by quadrature against the frozen law's own density."""
    law = loss.gaussian_loss(mu)
    assert law.mean() == pytest.approx(mu * mu / 2, rel=4 * U, abs=0) and law.std() == pytest.approx(mu, rel=4 * U, abs=0)
    lo, hi = mu * mu / 2 - 40 * mu, mu * mu / 2 + 40 * mu       # e^-L tilts the law to N(-mu^2/2, mu^2)
    moment = integrate.quad(lambda x: math.exp(law.logpdf(x) - x), lo, hi, points=[-mu * mu / 2], epsrel=1e-12,
                            limit=200)[0]
    assert moment == pytest.approx(1.0, rel=1e-9, abs=0)


@given(gamma=st.floats(0.0, 1.0), mu=logu(1e-6, 30.0), eps=st.one_of(st.just(0.0), logu(1e-4, 50.0)))
def test_gaussian_test_power_is_above_its_level_and_within_the_dp_bound(gamma, mu, eps):
    """A test's power exceeds its level (mu > 0) and obeys power <= e^eps level + delta(eps) for
    every eps (the hypothesis-testing form of (eps, delta)-DP), with delta the exact profile."""
    power = loss.gaussian_test_power(gamma, mu)
    assert gamma <= power + 4 * U and power <= 1.0
    bound = math.exp(eps) * gamma + loss.gaussian_delta(eps, mu)
    assert power <= bound * (1 + 1e-12) + 1e-15
    assert loss.gaussian_test_power(gamma, mu * 1.5) >= power
    assert loss.gaussian_test_power(min(gamma * 1.5, 1.0), mu) >= power


@given(eps=EPS, mu=MU, gap=logu(1e-6, 50.0))
def test_tail_bound_from_dp_bounds_the_gaussian_tail(eps, mu, gap):
    d = loss.gaussian_delta(eps, mu)
    assume(d < 1.0)
    a = mu / 2 - eps / mu
    assert loss.gaussian_loss_tail(eps + gap, mu) <= loss.tail_bound_from_dp(eps, d, eps + gap) * (
        1 + 1e-14 * (1 + a * a)) + 1e-300
