"""Tests that kill the surviving mutants of ``dpnotes.mechanisms`` (``make mutation``).

Written for the survivors of the 2026-11-26 run; each kill was checked by applying the mutant's diff to
``dpnotes/mechanisms.py`` and watching the test fail. Expected messages are the ones the functions'
Raises sections describe; expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from test_mechanisms import _mp_least_sigma, mp_bisect_log_sigma, mp_profile   # mpmath references

from dpnotes import mechanisms
from dpnotes import mechanisms as mech


@pytest.mark.parametrize("eps", [-1.0, -1e-300])
def test_rr_log_pmf_refuses_a_negative_epsilon(eps, raises_exactly):
    """Kills randomized_response_log_pmf mutmut_33 (the lower bound 0 of epsilon dropped: a negative epsilon
    gave log-probabilities of a 'mechanism' that prefers to flip)."""
    with raises_exactly(f"epsilon must be >= 0, got {eps:g}"):
        mech.randomized_response_log_pmf([0, 1], [0, 1], eps)
    # at the bound itself: eps = 0 keeps each bit with probability 1/2, log-probability 2 log(1/2)
    assert mech.randomized_response_log_pmf([0, 1], [1, 1], 0.0) == pytest.approx(2 * math.log(0.5), rel=1e-15, abs=0)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_mahalanobis_sensitivity_reports_a_non_finite_difference_by_its_shape(bad, raises_exactly):
    """Kills mahalanobis_sensitivity mutmut_5, 9 and 13 (allow_inf None, dropped or False: an infinite
    difference was refused by check_array's generic message instead of the function's own, which names
    the expected (k, d) array and the shape; nan is let through to the same check, as before)."""
    with raises_exactly("differences must be a finite (k, d) array, got shape (2, 2)"):
        mech.mahalanobis_sensitivity([[1.0, bad], [0.5, 0.5]], np.eye(2))
    # a finite pair with M = diag(4, 1/4): rows (2, 1) and (1, 1) have lengths sqrt(1 + 4) and sqrt(1/4 + 4)
    assert mech.mahalanobis_sensitivity([[2.0, 1.0], [1.0, 1.0]], np.diag([4.0, 0.25])) == pytest.approx(
        math.sqrt(5.0), rel=1e-15)


def test_sensitivity_refuses_a_query_with_two_dimensional_answers(raises_exactly):
    """Kills sensitivity mutmut_29 and 32 (ndim=(0, 1) of the answer check dropped: a 2-D answer went on to
    a matrix norm, the largest column sum, instead of being refused)."""
    with raises_exactly(
            "query must return a finite real number or 1-D array on every data set; on (0, 0): "
            "query must be a scalar or a 1-D array, got shape (2, 2)"):
        mech.sensitivity(lambda x: np.ones((2, 2)) * sum(x), 2, [0, 1])
    # the same query as a flat vector of 4 entries is fine: changing one record moves each entry by 1
    assert mech.sensitivity(lambda x: np.ones(4) * sum(x), 2, [0, 1]) == 4.0


def test_analytic_sigma_is_never_below_the_exact_calibration_where_newton_falls_back_on_bisection():
    """Kills _analytic_sigma mutmut_96 and mutmut_100 (the fall-back always doubles, or bisects with
    sqrt(lo) / sqrt(hi): at eps = 1e4, delta = 1 - 2^-53 they return half the sigma).

    The profile is flat there, so the existing check of delta(sigma) to 2e-16 lets half the sigma through:
    the profile at sigma / 2 is 1 - 1e-30, one ulp above delta, a calibration that breaks its guarantee.
    Reference: bisection on log(sigma) of the 60-digit profile (tests/test_mechanisms.py); the returned
    sigma must not be below it (rel 1e-13) and not wastefully above it: measured 4.8e-5 above (the profile
    moves by under 1e-17 over that range, below delta's rounding); 1e-4 allowed. And the profile at sigma,
    rounded to a double, must not exceed delta.
    """
    eps, delta = 1e4, 1.0 - 2.0**-53
    s = mech.gaussian_sigma(eps, delta, method="analytic")
    ref = mp_bisect_log_sigma(eps, delta, dps=60)
    assert ref * (1 - 1e-13) <= s <= ref * (1 + 1e-4)
    with mp.workdps(60):
        assert float(mp_profile(mp.mpf(eps), mp.mpf(s))) <= delta


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_non_finite_covariance_is_refused_with_the_functions_own_message(bad, raises_exactly):
    """Kills _check_cov mutmut_5, 9 and 13 (allow_nan None, dropped or False: a nan in cov was refused by
    check_array's generic message instead of 'cov must be a finite symmetric matrix', which the inf case
    gets too)."""
    with raises_exactly("cov must be a finite symmetric matrix"):
        mech.mahalanobis_sensitivity([[1.0, 0.0]], [[1.0, bad], [bad, 1.0]])
    with raises_exactly("cov must be a finite symmetric matrix"):
        mech.gaussian_mechanism([0.0, 0.0], 1.0, np.random.default_rng(0), cov=[[bad, 0.0], [0.0, 1.0]])


@pytest.mark.parametrize("eps, delta", [(1e-13, 3e-8), (1e-14, 1e-8), (1e-12, 3e-8)])
def test_analytic_sigma_where_the_first_loop_ends_on_neighbouring_floats(eps, delta):
    """Kills _analytic_sigma mutmut_106 (the break of the first loop, taken when bisection has brought lo and
    hi to neighbouring floats, turned into a bare return: the function returned None).

    At these points the Newton steps of the first loop end in rounding noise and the bracket closes to
    neighbouring floats (found by instrumenting the loop: 183 of 5,366 random points end this way). The final Newton steps on the exact
    profile then give sigma to the documented 1e-14 (measured 0.9e-15 to 4.4e-15 here); reference: bisection
    on log(sigma) of the 50-digit profile.
    """
    assert mech.gaussian_sigma(eps, delta, method="analytic") == pytest.approx(
        mp_bisect_log_sigma(eps, delta), rel=1e-14, abs=0)


# ---------------------------------------------------------------- helper M (2026-11-28): _analytic_sigma_root near delta = 1
def _mp_gaussian_profile(eps, sigma):
    """Exact Gaussian privacy profile at sensitivity 1 (Balle and Wang 2018, Theorem 8), in the working precision:
    Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu), mu = 1/sigma."""
    mu = 1 / mp.mpf(sigma)
    e = mp.mpf(eps)
    return mp.ncdf(mu / 2 - e / mu) - mp.e ** e * mp.ncdf(-mu / 2 - e / mu)


@pytest.mark.parametrize("eps, delta", [(0.37, 0.99997), (4.3, 0.99999993), (8e-4, 0.999999995), (3e-4, 0.99997),
                                        (4.3, 0.999999995), (3e-4, 0.999998), (0.37, 0.99999993)])
def test_analytic_sigma_near_delta_one_meets_delta_to_the_resolution_of_doubles(eps, delta):
    """The analytic sigma must satisfy the privacy guarantee delta(eps) <= delta: the exact profile (mpmath, 60
    digits; 1 - delta >= 5e-9 leaves over 50 digits after the cancellation) at the returned sigma, rounded to
    the nearest double, must not exceed delta. Near delta = 1 the profile is flat (d delta / d log sigma is
    about 1e-9 here), so no double-precision root finder can place sigma to 1e-14 there, but it can keep the
    profile within half an ulp of delta: the original does (on 976 random points with 1 - delta in
    [1e-16, 1e-3] its exact profile is within -0.64 to +0.49 ulps of delta, never a double above; at these
    seven points -0.41 to +0.17 ulps). With the total-variation start 2 sqrt 3 erfinv(delta) instead of
    2 sqrt 2 erfinv(delta), the start lies above the root, the first profile already meets delta and is returned,
    and the step up to the safe side (dpnotes.loss._least_at_or_above on gaussian_delta in doubles, whose own
    rounding is about an ulp here) stops at the first sigma whose rounded profile reads <= delta: the exact
    profile there is 0.9 to 1.5 ulps above delta at these points (on 377 of 800 random points near 1 it is
    a double above delta). Kills _analytic_sigma_root mutmut_33 (mutmut_30 before the start was rewritten without
    2 eps, 2026-11-28)."""
    sigma = mechanisms.gaussian_sigma(eps, delta, method="analytic")
    with mp.workdps(60):
        assert float(_mp_gaussian_profile(eps, sigma)) <= delta


# Helper M (2026-11-28): _analytic_sigma_root and _analytic_mu_near_one after their near-one change

@pytest.mark.parametrize("eps, delta", [(1e-14, 1e-100), (1e-20, 1e-300)])
def test_analytic_sigma_tiny_epsilon_tiny_delta_matches_mpmath(eps, delta):
    """For eps far below z^2 (z = Phi^-1(delta) = -21.3 and -37.0 here) the tail-bound start mu_0 = z +
    sqrt(z^2 + 2 eps) cancels to 0 in doubles; its product form 2 eps / (sqrt(z^2 + 2 eps) - z) keeps it (here
    4.7e-16 and 2.7e-22, within 10 % of the root), while the other start, 2 sqrt 2 erfinv(delta), is 1e-100 and
    1e-300, some 1e80 to 1e280 below the root, out of reach of the root finder's 200 doublings. The returned sigma
    must be the root of the exact profile: reference by Newton on the profile in mpmath at 60 digits plus the
    100 and 300 lost to the cancellation Phi(a) - e^eps Phi(-b) (about 1/2 each, difference delta). Tolerance 1e-13
    relative: the documented accuracy is about 1e-14 and the original is within 1.5e-16 at these points (with the
    plain sum z + sqrt(z^2 + 2 eps) sigma comes out 1.3e24 and 7e217 times too large). Kills _analytic_sigma_root
    mutmut_15 (the product form never taken)."""
    sigma = mechanisms.gaussian_sigma(eps, delta, method="analytic")
    ref = _mp_least_sigma(eps, delta)
    assert sigma == pytest.approx(float(ref), rel=1e-13)


@pytest.mark.parametrize("eps, delta", [(1.9470505941912037e33, 0.36160198833604196),
                                        (7.042765249855226e34, 0.043610530355101595),
                                        (3.629320143178485e33, 0.011749072532290794)])
def test_analytic_sigma_huge_epsilon_is_one_over_the_tail_bound_root(eps, delta):
    """epsilon > 0 has no upper end in the documented domain. For huge eps the second term of the profile,
    e^eps Phi(-b) ~ phi(a)/b with b = mu/2 + eps/mu ~ sqrt(2 eps) ~ 1e17, is negligible, so the root is
    Phi(a) = delta, a = mu/2 - eps/mu = z = Phi^-1(delta): mu = z + sqrt(z^2 + 2 eps), up to a relative
    correction of order 1/(2 eps) ~ 1e-34 (z from mpmath, 30 digits). Tolerance 1e-14 relative (the documented
    accuracy; the original is within 3e-16 here). At eps ~ 1e34 the double-precision log profile is rounding
    noise, the first loop ends by bisection on neighbouring floats, and the Newton step of the final loop is
    -7.6e14, -4.8e205 and -1.6e109 at these points: refused by the guard |step| < 700 (mu kept); taken, it
    multiplies mu by exp(step) = 0 and sigma = 1/0 raises ZeroDivisionError. Kills _analytic_sigma_root
    mutmut_74 (the guard always passes)."""
    sigma = mechanisms.gaussian_sigma(eps, delta, method="analytic")
    with mp.workdps(30):
        z = mp.sqrt(2) * mp.erfinv(2 * mp.mpf(delta) - 1)
        ref = 1 / (z + mp.sqrt(z * z + 2 * mp.mpf(eps)))
    assert sigma == pytest.approx(float(ref), rel=1e-14)


@pytest.mark.parametrize("delta", [0.6, 0.99999, 1 - 2.0**-40])
def test_analytic_sigma_near_delta_one_huge_epsilon_is_one_over_sqrt_two_eps(delta):
    """Above delta = 1/2 at eps = 1e206 (inside the documented domain eps > 0): the root of the exact profile is
    mu = z + sqrt(z^2 + 2 eps) with z = Phi^-1(delta) in [0.25, 7.1] (the second term e^eps Phi(-b) ~ phi(z)/1.4e103
    is negligible), and z/sqrt(2 eps) < 1e-102, so sigma = 1/sqrt(2 eps) to far below an ulp. Tolerance 1e-14
    relative (documented accuracy; the original returns 1/sqrt(2e206) to the last bit). Starting the upper end of
    the bracket at 2/mu_low = 1.4e-103 instead of 2 mu_low puts it at a mu where eps/mu = 7e308 overflows to
    infinity, and the complement's logarithm raised a math domain error (it killed _analytic_mu_near_one mutmut_13
    until the complement was computed with numpy's logarithm, 2026-11-28: the mutant then doubles up from there to
    the same root, explained in the survivors' table)."""
    eps = 1e206
    sigma = mechanisms.gaussian_sigma(eps, delta, method="analytic")
    assert sigma == pytest.approx(1.0 / math.sqrt(2.0 * eps), rel=1e-14)
