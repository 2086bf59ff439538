"""Property tests of dpnotes.divergences over the whole documented domain (Hypothesis).

Discrete pairs are drawn with zeros and masses down to 1e-300; orders alpha from 1e-3 to 1e3;
the Laplace and Gaussian parameters from 1e-6 to 50. Properties: the chain
KL <= Renyi(alpha) <= Renyi(beta) <= max for 1 < alpha < beta (and KL <= eps tanh(eps/2) for an
eps-indistinguishable pair), the approximate max divergence as a supremum over all events, and the
closed forms of the continuous pairs against quadrature. Every tolerance is stated where it is used.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate

import profiles
from dpnotes import divergences as dv

U = np.finfo(float).eps
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")   # valid input must not make numpy warn


def logu(lo, hi):
    return st.one_of(st.sampled_from([lo, hi]), st.floats(math.log(lo), math.log(hi)).map(math.exp)).map(
        lambda x: min(max(x, lo), hi))


@st.composite
def pairs(draw, max_m=7, zeros=True):
    m = draw(st.integers(1, max_m))
    mass = st.one_of(st.just(0.0), st.floats(1e-300, 1.0), logu(1e-300, 1.0)) if zeros else logu(1e-12, 1.0)
    p = np.array(draw(st.lists(mass, min_size=m, max_size=m)))
    q = np.array(draw(st.lists(mass, min_size=m, max_size=m)))
    assume(p.sum() > 0 and q.sum() > 0)
    return p / p.sum(), q / q.sum()


# ---------------------------------------------------------------- discrete laws
@given(pq=pairs(), a=logu(1.0 + 1e-6, 1e3), f=st.floats(1.0, 10.0))
def test_kl_below_renyi_below_max_and_renyi_monotone_in_the_order(pq, a, f):
    """D_1 = KL <= D_a <= D_b <= D_inf for 1 < a <= b. Tolerance: each is a log of a sum of at most
    7 terms (relative 8U) and the orders are compared through (alpha - 1) divisions: 1e-12 relative
    plus 1e-12 absolute (near-equal laws make all of them ~0)."""
    p, q = pq
    kl, d_a = dv.kl_divergence(p, q), dv.renyi_divergence(p, q, a)
    d_b, d_inf = dv.renyi_divergence(p, q, min(a * f, 1e3)), dv.max_divergence(p, q)
    assert kl >= -1e-15
    tol = lambda x: 1e-12 * abs(x) + 1e-12       # noqa: E731
    assert kl <= d_a + tol(d_a) and d_a <= d_b + tol(d_b) and d_b <= d_inf + tol(d_inf)
    assert dv.renyi_divergence(p, q, 1.0) == kl and dv.renyi_divergence(p, q, math.inf) == d_inf


@given(pq=pairs(zeros=False))
def test_kl_is_at_most_eps_tanh_eps_over_2_for_eps_indistinguishable_laws(pq):
    """The tight KL bound of an eps-DP pair (randomized response attains it): D(P||Q) <= eps tanh(eps/2),
    below Dwork-Roth's eps (e^eps - 1)."""
    p, q = pq
    eps = dv.pure_epsilon(p, q)
    kl = dv.kl_divergence(p, q)
    assert kl <= eps * math.tanh(eps / 2) * (1 + 1e-12) + 1e-15
    assert eps * math.tanh(eps / 2) <= eps * math.expm1(eps) * (1 + 1e-15) or eps > 700


@given(pq=pairs(), a=st.one_of(logu(1e-3, 1.0 - 1e-6), logu(1.0 + 1e-6, 1e3)))
def test_renyi_divergence_against_the_direct_sum(pq, a):
    """Independent route: (1/(a - 1)) log sum p^a q^(1 - a) with math.fsum in plain floats, where
    no term underflows (masses >= 1e-100 at orders <= 3); elsewhere only the sign conventions."""
    p, q = pq
    d = dv.renyi_divergence(p, q, a)
    both = (p > 0) & (q > 0)
    if a > 1 and np.any((p > 0) & (q == 0)):
        assert d == math.inf
        return
    if not both.any():
        assert d == math.inf
        return
    assert d >= -1e-12 or a < 1                       # Renyi divergences are >= 0 (rounding aside)
    if np.all(p[both] > 1e-100) and np.all(q[both] > 1e-100) and a <= 3:
        s = math.fsum(p[both] ** a * q[both] ** (1 - a))
        assert d == pytest.approx(math.log(s) / (a - 1), rel=1e-9, abs=1e-9)


def _brute_approx_max(p, q, delta):
    """sup over all events with P(S) > delta of log((P(S) - delta)/Q(S)); None if some event's P(S)
    is within rounding (8 m U P(S)) of delta, where "above delta" is a matter of rounding."""
    best = -math.inf
    for r in range(1, p.size + 1):
        for s in itertools.combinations(range(p.size), r):
            ps, qs = math.fsum(p[list(s)]), math.fsum(q[list(s)])
            if abs(ps - delta) <= 8 * p.size * U * ps:
                return None
            if ps > delta:
                best = max(best, math.inf if qs == 0 else math.log(ps - delta) - math.log(qs))
    return best


@given(pq=pairs(), delta=st.one_of(st.just(0.0), logu(1e-12, 0.99)))
def test_approx_max_divergence_is_the_supremum_over_all_events(pq, delta):
    p, q = pq
    got = dv.approx_max_divergence(p, q, delta)
    ref = _brute_approx_max(p, q, delta)
    assume(ref is not None)
    if math.isinf(ref):
        assert got == ref
    else:
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-9)


@given(pq=pairs(), delta=logu(1e-12, 0.99), f=st.floats(1.0, 10.0))
def test_approx_max_divergence_falls_with_delta_and_starts_at_the_max(pq, delta, f):
    p, q = pq
    got = dv.approx_max_divergence(p, q, delta)
    assert dv.approx_max_divergence(p, q, min(delta * f, 0.99)) <= got + 1e-12
    assert got <= dv.approx_max_divergence(p, q, 0.0) + 1e-12
    assert dv.approx_max_divergence(p, q, 0.0) == pytest.approx(dv.max_divergence(p, q), rel=1e-12, abs=1e-12)


@given(pq=pairs())
def test_pure_epsilon_is_symmetric_and_the_larger_max_divergence(pq):
    p, q = pq
    e = dv.pure_epsilon(p, q)
    assert e == dv.pure_epsilon(q, p) == max(dv.max_divergence(p, q), dv.max_divergence(q, p))
    assert e >= 0.0


# ---------------------------------------------------------------- Laplace and Gaussian pairs
def _laplace_renyi_quad(alpha, eps):
    """(1/(a-1)) log int p^a q^(1-a) for Lap(0,1) and Lap(eps,1), split at the kinks 0 and eps, by
    mpmath quadrature at 40 digits (the integral is 1 + O(eps^2): double precision would keep only
    log10(1/((a-1) eps^2)) digits of the divergence)."""
    with mp.workdps(40):
        a, e = mp.mpf(alpha), mp.mpf(eps)
        val = mp.quad(lambda y: mp.e ** (-a * abs(y) - (1 - a) * abs(y - e)) / 2, [-mp.inf, 0, e, mp.inf])
        return float(mp.log(val) / (a - 1))


@settings(max_examples=profiles.size(fast=25, thorough=100))      # 40-digit mpmath quadrature
@given(alpha=logu(1.0 + 1e-9, 100.0), eps=logu(1e-6, 30.0))
def test_laplace_renyi_matches_quadrature_and_lies_between_kl_and_eps(alpha, eps):
    d = dv.laplace_renyi(alpha, eps)
    assert d == pytest.approx(_laplace_renyi_quad(alpha, eps), rel=1e-12, abs=0)
    assert dv.laplace_kl(eps) <= d * (1 + 1e-12) + 1e-15 and d <= eps * (1 + 1e-12)
    assert dv.laplace_renyi(min(alpha * 1.5, 1e3), eps) >= d * (1 - 1e-12)


@given(eps=logu(1e-8, 50.0))
def test_laplace_kl_is_the_mean_loss_and_below_the_tight_bound(eps):
    """KL = E[L] for the Laplace pair: by quadrature of the loss against Lap(0,1) where eps > 1e-3
    (relative 1e-12), by its Taylor series eps^2/2 - ... + eps^5/120 below (the next term is eps^4/360
    of the first: 3e-15 relative at eps = 1e-3; the closed form eps - 1 + e^-eps would lose log10(2/eps)
    digits); and KL <= eps tanh(eps/2)."""
    kl = dv.laplace_kl(eps)
    if eps > 1e-3:
        # E[L] = int 1/2 e^-|y| (|y - eps| - |y|) dy at 30 digits: the loss is eps left of 0 and -eps right
        # of eps (those pieces integrate to eps/2 and -eps e^-eps/2), eps - 2y between (mpmath quadrature)
        with mp.workdps(30):
            e = mp.mpf(eps)
            middle = mp.quad(lambda y: mp.e ** (-y) * (e - 2 * y) / 2, [0, e])
            mean = e / 2 - e * mp.e ** (-e) / 2 + middle
        assert kl == pytest.approx(float(mean), rel=1e-12, abs=0)
    else:
        assert kl == pytest.approx(eps**2 / 2 - eps**3 / 6 + eps**4 / 24 - eps**5 / 120, rel=1e-13, abs=0)
    assert 0 <= kl <= eps * math.tanh(eps / 2) * (1 + 1e-12)


@given(alpha=logu(1e-3, 1e3), mu=logu(1e-6, 50.0), f=st.floats(1.0, 10.0))
def test_gaussian_renyi_is_linear_in_the_order_and_its_limit_is_kl(alpha, mu, f):
    d = dv.gaussian_renyi(alpha, mu)
    assert d == pytest.approx(alpha * dv.gaussian_kl(mu), rel=2 * U, abs=0)
    assert dv.gaussian_renyi(alpha * f, mu) >= d
    assert dv.gaussian_renyi(1.0, mu) == dv.gaussian_kl(mu)


@settings(max_examples=profiles.size(fast=20, thorough=200))
@given(alpha=logu(1.0 + 1e-3, 20.0), mu=logu(1e-2, 5.0))
def test_gaussian_renyi_matches_quadrature(alpha, mu):
    """(1/(a-1)) log int phi(y)^a phi(y - mu)^(1-a) dy by quadrature, in log space around the tilted mean."""
    log_f = lambda y: alpha * (-0.5 * y * y) + (1 - alpha) * (-0.5 * (y - mu) ** 2) - 0.5 * math.log(2 * math.pi)  # noqa: E731
    centre = (1 - alpha) * mu
    c = log_f(centre)
    val = integrate.quad(lambda y: math.exp(log_f(y) - c), centre - 40, centre + 40, epsabs=0, epsrel=1e-12,
                         limit=200)[0]
    assert dv.gaussian_renyi(alpha, mu) == pytest.approx((c + math.log(val)) / (alpha - 1), rel=1e-8, abs=1e-12)
