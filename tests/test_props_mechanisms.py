"""Property tests of dpnotes.mechanisms over the whole documented domain (Hypothesis).

Each property holds for every input the docstring allows, so the search draws from the whole
range, extremes included: epsilon from 1e-12 to 1e3, delta from 1e-300 to 0.999, sensitivities
and values to 1e300. The number of examples is the profile's (tests/profiles.py: fast in
``make test``, thorough in ``make verify``). Every tolerance is stated where it is used.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import profiles
from dpnotes import loss
from dpnotes import mechanisms as mech

U = np.finfo(float).eps          # unit roundoff 2.2e-16

# valid input must not make numpy warn (an overflow there is a value computed the wrong way round)
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def logu(lo, hi):
    """Floats spread evenly on a log scale over [lo, hi], both ends included."""
    return st.one_of(st.sampled_from([lo, hi]), st.floats(math.log(lo), math.log(hi)).map(math.exp)).map(
        lambda x: min(max(x, lo), hi))


EPS = logu(1e-12, 1e3)
DELTA = logu(1e-300, 0.999)
SENS = logu(1e-300, 1e300)
SEED = st.integers(0, 2**32 - 1)


# ---------------------------------------------------------------- randomized response
@given(eps=st.one_of(st.just(0.0), logu(1e-300, 800.0)))
def test_rr_keep_probability_is_the_logistic_function_and_in_range(eps):
    p = mech.rr_keep_probability(eps)
    assert 0.5 <= p <= 1.0 and (p < 1.0 or eps > 36)          # 1 - p = e^-eps/(1+e^-eps) rounds to 0 past 36.7
    with mp.workdps(40):                                        # reference: 40 digits
        ref = 1 / (1 + mp.e ** (-mp.mpf(eps)))
    assert abs(p - float(ref)) <= U * float(ref)                # one rounding of 1/(1 + e^-eps)


@given(eps=logu(1e-12, 700.0), factor=st.floats(1.0 + 1e-9, 10.0))
def test_rr_keep_probability_increases_with_epsilon(eps, factor):
    assert mech.rr_keep_probability(eps) <= mech.rr_keep_probability(eps * factor)


@given(eps=logu(1e-12, 35.0))
def test_rr_epsilon_inverts_the_keep_probability(eps):
    # p carries a rounding error of U p; eps = log(p/(1-p)) amplifies it by 1/(p(1-p)) < 1/(1-p) =
    # 1 + e^eps: the tolerance is that condition number times a few roundings.
    p = mech.rr_keep_probability(eps)
    assert mech.rr_epsilon(p) == pytest.approx(eps, rel=4 * U, abs=4 * U * (1 + math.exp(eps)))


@given(p=st.floats(1e-300, 1 - 1e-16, exclude_min=False))
def test_rr_epsilon_is_symmetric_and_matches_mpmath(p):
    e = mech.rr_epsilon(p)
    assert e >= 0.0
    with mp.workdps(40):
        ref = abs(mp.log(mp.mpf(p)) - mp.log(1 - mp.mpf(p)))     # p is exact as a binary fraction
    assert e == pytest.approx(float(ref), rel=8 * U, abs=1e-300)
    if 1.0 - (1.0 - p) == p:      # 1 - p is exact: the mirrored channel is the same one
        assert mech.rr_epsilon(1.0 - p) == pytest.approx(e, rel=8 * U, abs=8 * U)


@given(eps=logu(1e-12, 700.0))
def test_rr_matrix_is_a_channel_with_likelihood_ratio_e_eps(eps):
    m = mech.rr_matrix(eps)
    assert np.all(m >= 0) and np.allclose(m.sum(axis=1), 1.0, rtol=0, atol=2 * U)
    assert np.array_equal(m, m[::-1, ::-1])                       # flipping the input flips the output
    # ratio p/(1-p) = e^eps to a few roundings (each of p, 1 - p, e^eps and the ratio: 4U), at every eps
    assert m[0, 0] / m[1, 0] == pytest.approx(math.exp(eps), rel=4 * U, abs=0)


@given(n=st.integers(1, 6), eps=logu(1e-6, 40.0), data=st.data())
def test_randomized_response_log_pmf_is_a_law_and_is_eps_dp(n, eps, data):
    """Over all 2^n outputs: the law sums to one, and on data sets at Hamming distance h the
    log-probabilities of every output differ by at most h * eps (group privacy, with equality
    at the outputs equal to one of the two data sets)."""
    ys = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    x = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    x2 = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    lp, lp2 = mech.randomized_response_log_pmf(ys, x, eps), mech.randomized_response_log_pmf(ys, x2, eps)
    assert math.fsum(np.exp(lp)) == pytest.approx(1.0, rel=0, abs=2**n * 4 * U)
    h = int(np.sum(x != x2))
    gap = np.abs(lp - lp2)
    assert np.all(gap <= h * eps * (1 + 1e-12) + 1e-12)
    assert gap.max() == pytest.approx(h * eps, rel=1e-9, abs=1e-12)   # attained at y = x


# ---------------------------------------------------------------- Gaussian calibrations
@given(eps=EPS, delta=DELTA)
def test_analytic_sigma_is_the_exact_root(eps, delta):
    """The profile of the returned sigma is delta: a sigma 1e-12 larger (relative) meets delta and
    one 1e-12 smaller breaks it. (gaussian_delta's own relative error is 1e-14 (1 + a^2), far below
    what a 1e-12 change of mu moves the profile by; checked against mpmath in test_props_loss.)"""
    mu = 1.0 / mech.gaussian_sigma(eps, delta, method="analytic")
    assert loss.gaussian_delta(eps, mu * (1 + 1e-12)) >= delta * (1 - 1e-13)
    assert loss.gaussian_delta(eps, mu * (1 - 1e-12)) <= delta * (1 + 1e-13)


@given(eps=EPS, delta=DELTA, sens=logu(1e-100, 1e100))
def test_closed_form_sigmas_match_their_formulas_at_40_digits(eps, delta, sens):
    """classical: sens sqrt(2 log(1.25/delta))/eps; hrw: sens sqrt(2 log(2/delta))/eps (a few roundings: 8U)."""
    with mp.workdps(40):
        e, d, s = mp.mpf(eps), mp.mpf(delta), mp.mpf(sens)
        classical = float(s * mp.sqrt(2 * mp.log(mp.mpf("1.25") / d)) / e)
        hrw = float(s * mp.sqrt(2 * mp.log(2 / d)) / e)
    assert mech.gaussian_sigma(eps, delta, sens) == pytest.approx(classical, rel=8 * U, abs=0)
    assert mech.gaussian_sigma(eps, delta, sens, method="hrw") == pytest.approx(hrw, rel=8 * U, abs=0)


@given(eps=EPS, delta=DELTA, sens=SENS, method=st.sampled_from(["classical", "hrw", "analytic"]))
def test_sigma_scales_linearly_with_sensitivity(eps, delta, sens, method):
    one = mech.gaussian_sigma(eps, delta, method=method)
    assume(math.isfinite(one * sens) and one * sens > 1e-300)
    assert mech.gaussian_sigma(eps, delta, sens, method=method) == pytest.approx(sens * one, rel=2 * U, abs=0)


@given(eps=EPS, delta=DELTA, f=st.floats(1.001, 100.0), method=st.sampled_from(["classical", "hrw", "analytic"]))
def test_sigma_falls_with_epsilon_and_with_delta(eps, delta, f, method):
    s = mech.gaussian_sigma(eps, delta, method=method)
    assert mech.gaussian_sigma(min(eps * f, 1e3), delta, method=method) <= s * (1 + 1e-13)
    bigger = min(delta * f, 0.999)
    assert mech.gaussian_sigma(eps, bigger, method=method) <= s * (1 + 1e-13)


@given(eps=logu(1e-12, 1.0), delta=DELTA)
def test_analytic_below_classical_below_hrw_where_they_are_proved(eps, delta):
    """For 0 < eps <= 1 (their proved range) both closed forms are valid, so the exact smallest
    sigma cannot exceed them; hrw's constant log(2/delta) > log(1.25/delta) always."""
    a = mech.gaussian_sigma(eps, delta, method="analytic")
    c = mech.gaussian_sigma(eps, delta, method="classical")
    h = mech.gaussian_sigma(eps, delta, method="hrw")
    assert a <= c * (1 + 1e-12) and c < h
    assert loss.gaussian_delta(eps, 1.0 / c) <= delta * (1 + 1e-12)    # the classical sigma is valid


# ---------------------------------------------------------------- publish each record
@given(n=st.integers(0, 10**9), delta=st.one_of(st.just(0.0), logu(1e-300, 0.999)))
def test_publish_any_probability_exact_and_below_n_delta(n, delta):
    prob = mech.publish_any_probability(n, delta)
    assert 0.0 <= prob <= 1.0
    assert prob <= n * delta * (1 + 4 * U)                        # Bernoulli's inequality
    with mp.workdps(340):      # 1 - delta keeps delta's digits down to delta = 1e-300
        ref = 1 - (1 - mp.mpf(delta)) ** n
    assert prob == pytest.approx(float(ref), rel=1e-13, abs=1e-300)
    assert mech.publish_any_probability(n + 1, delta) >= prob


# ---------------------------------------------------------------- Laplace and Gaussian mechanisms
@given(eps=logu(1e-300, 1e300), sens=SENS)
def test_laplace_scale_and_epsilon_round_trip(eps, sens):
    b = sens / eps
    assume(1e-300 < b < 1e300)
    assert mech.laplace_scale(eps, sens) == b
    assert mech.laplace_epsilon(b, sens) == pytest.approx(eps, rel=2 * U, abs=0)


@given(eps=logu(1e-6, 50.0), sens=logu(1e-6, 1e6), seed=SEED,
       value=st.one_of(st.floats(-1e300, 1e300), st.lists(st.floats(-1e300, 1e300), min_size=0, max_size=5)))
def test_laplace_mechanism_adds_exactly_the_calibrated_noise(eps, sens, seed, value):
    """Coupled seeds: the release is value + Laplace(0, sens/eps) drawn from the same seed, exactly."""
    out = mech.laplace_mechanism(value, eps, np.random.default_rng(seed), sens)
    v = np.asarray(value, dtype=float)
    expect = v + np.random.default_rng(seed).laplace(0.0, sens / eps, size=v.shape)
    assert np.array_equal(np.asarray(out), expect)
    assert isinstance(out, float) == (v.ndim == 0)


@given(sigma=logu(1e-6, 1e6), seed=SEED, value=st.lists(st.floats(-1e300, 1e300), min_size=1, max_size=4),
       with_cov=st.booleans())
def test_gaussian_mechanism_adds_exactly_sigma_times_the_coupled_draw(sigma, seed, value, with_cov):
    v = np.array(value)
    if with_cov:      # cov = L L^T with a fixed lower-triangular L; the noise is sigma L z
        d = v.size
        chol = np.tril(np.ones((d, d))) + np.eye(d)
        out = mech.gaussian_mechanism(v, sigma, np.random.default_rng(seed), cov=chol @ chol.T)
        z = np.random.default_rng(seed).standard_normal(d)
        assert np.allclose(out, v + sigma * (chol @ z), rtol=1e-12, atol=1e-12 * sigma * d)
    else:
        out = mech.gaussian_mechanism(v, sigma, np.random.default_rng(seed))
        assert np.array_equal(out, v + sigma * np.random.default_rng(seed).standard_normal(v.shape))


# ---------------------------------------------------------------- sensitivities
@settings(max_examples=profiles.size(fast=40, thorough=200))
@given(d=st.integers(1, 4), data=st.data())
def test_mahalanobis_sensitivity_is_the_largest_whitened_norm(d, data):
    rows = data.draw(st.integers(1, 4))
    big = data.draw(st.sampled_from([1.0, 1e-200, 1e200]))        # magnitudes where squares under/overflow
    diffs = big * np.array(data.draw(st.lists(st.lists(st.floats(-1e3, 1e3), min_size=d, max_size=d),
                                              min_size=rows, max_size=rows)))
    a = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=d * d, max_size=d * d))).reshape(d, d)
    cov = a @ a.T + np.eye(d)                                     # symmetric positive definite
    c = data.draw(logu(1e-6, 1e6))
    got = mech.mahalanobis_sensitivity(diffs, cov)
    unit = diffs / big                                              # the reference on the unscaled rows
    ref = big * max(math.sqrt(max(float(x @ np.linalg.solve(cov, x)), 0.0)) for x in unit)
    assert got == pytest.approx(ref, rel=1e-9, abs=1e-9 * big * (1 + np.abs(unit).max()))
    # scaling the noise shape by c shrinks the sensitivity by sqrt(c)
    assert mech.mahalanobis_sensitivity(diffs, c * cov) == pytest.approx(got / math.sqrt(c), rel=1e-9,
                                                                         abs=1e-9 * big)


@given(n=st.integers(1, 5), c=st.one_of(st.floats(-1e300, 1e300), logu(1e-320, 1e300)).filter(lambda x: x != 0),
       ord=st.sampled_from([1, 2, np.inf]))
def test_sensitivity_of_a_scaled_count_is_its_scale(n, c, ord):
    """From subnormal to 1e300 (a 2-norm that squares its entries over- or underflows there)."""
    assert mech.sensitivity(lambda x: c * sum(x), n, (0, 1), ord=ord) == pytest.approx(abs(c), rel=4 * U, abs=0)
    vec = lambda x: [c * x[0], -c * x[0]]                                   # noqa: E731 two coordinates move
    expect = {1: 2 * abs(c), 2: math.sqrt(2) * abs(c), np.inf: abs(c)}[ord]
    if math.isfinite(2 * c):
        assert mech.sensitivity(vec, n, (0, 1), ord=ord) == pytest.approx(expect, rel=4 * U, abs=0)


@settings(max_examples=profiles.size(fast=15, thorough=200))
@given(n=st.integers(1, 4), ord=st.sampled_from([1, 2, np.inf]))
def test_sensitivity_of_a_histogram(n, ord):
    # replacing one record moves one count down and another up: L1 = 2, L2 = sqrt 2, Linf = 1
    hist = lambda x: np.bincount(x, minlength=3)                  # noqa: E731
    expect = {1: 2.0, 2: math.sqrt(2.0), np.inf: 1.0}[ord]
    assert mech.sensitivity(hist, n, (0, 1, 2), ord=ord) == pytest.approx(expect, rel=4 * U, abs=0)
