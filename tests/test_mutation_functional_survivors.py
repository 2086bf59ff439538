"""Tests that kill the surviving mutants of dpnotes.functional found on 2026-11-27 (the rest are explained in
benchmarks/mutation-survivors.toml), each against mpmath or a closed form, never the module's own output.

The kernel and the KDE where a difference, a constant or a term leaves the doubles (points 2e308 apart, bandwidths
1e-300 and 1e308, subnormal densities), the same under a caller's np.errstate(all="raise"), lscv where it switches
to its scaled form and in 1000 dimensions, the RKHS norm of nearly coincident centres, and both ends of the
release bandwidth range.
"""

import math
import re
import sys

import mpmath as mp
import numpy as np
import pytest

from dpnotes import functional

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)

def test_kernel_between_points_whose_difference_overflows():
    """x = 1e308 and y = -1e308 are 2e308 apart, beyond the float range, so _exponent forms the
    difference from the halved points; at h = 1e308 (outside the plain range) the scaled distance is
    exactly 2 and the kernel exp(-2^2 / 2) = e^-2. In two dimensions (1.5e308 - (-1.5e308), 0 - 1e308)
    / 1e308 = (3, -1), u = (9 + 1) / 2 = 5, kernel e^-5 (only the first coordinate overflows).
    Kills _exponent mutmut_24 to 32 (the overflowed coordinates set to None, halved instead of doubled,
    multiplied by h, summed, or scaled by 2 or 3 instead of 1/2)."""
    k = functional.gaussian_kernel([1e308], [-1e308], 1e308)
    assert k.shape == (1, 1)
    assert math.isclose(k[0, 0], math.exp(-2.0), rel_tol=1e-14)
    k2 = functional.gaussian_kernel([[1.5e308, 0.0]], [[-1.5e308, 1e308]], 1e308)
    assert math.isclose(k2[0, 0], math.exp(-5.0), rel_tol=1e-14)


def test_kde_far_from_the_data_at_a_bandwidth_whose_constant_overflows():
    """At h = 1e-300 and d = 2 the constant (2 pi h^2)^-1 ~ 1.6e599 is beyond the float range and
    kde works in logarithms, ending in _exp2(z, k) with z ~ -1500 and k = 1992: the term e^-1500
    underflows on its own and only the power of two brings it back (e^-1500 2^1992 ~ e^-119).
    Reference: mpmath, exp(-|g - x|^2 / (2 h^2)) / (2 pi h^2) for the one data point at 0.
    Kills _exp2 mutmut_16 (q = rint(z ln2) instead of rint(z / ln2): r = z - q ln2 stays near
    -780 and exp(r) underflows to 0)."""
    h = 1e-300
    t = math.sqrt(3000.0) * h                                   # u = t^2 / (2 h^2) = 1500
    got = functional.kde(np.zeros((1, 2)), [[t, 0.0]], h)
    with mp.workdps(30):
        hh, tt = mp.mpf(h), mp.mpf(t)
        want = mp.exp(-tt**2 / (2 * hh**2)) / (2 * mp.pi * hh**2)
    assert float(want) > 1e-60                                  # a normal float, far from 0
    assert math.isclose(got[0], float(want), rel_tol=1e-10)


def test_kde_whose_density_is_subnormal_under_a_callers_strict_errstate():
    """d = 4 and h = e^179.08 (plain): log (2 pi h^2)^2 = 4 (log sqrt(2 pi) + 179.08) ~ 720, so the density
    at the only data point, (2 pi h^2)^-2 ~ 2e-313, is subnormal: the plain constant would overflow
    (log_norm >= 700) and the answer comes from _exp2, whose ldexp underflows; a caller running with
    np.errstate(all="raise") still gets the value. Reference: mpmath (2 pi h^2)^-2 (the subnormal is
    exact to 2.4e-11 relative per unit in the last place). Kills kde mutmut_27 (log n - log_norm:
    the plain path, whose constant overflows with OverflowError) and _exp2 mutmut_60 and 62 (the
    underflow of ldexp left to the caller's setting: FloatingPointError)."""
    h = math.exp(179.08)
    with np.errstate(all="raise"):
        got = functional.kde(np.zeros((1, 4)), np.zeros((1, 4)), h)
    with mp.workdps(30):
        want = (2 * mp.pi * mp.mpf(h) ** 2) ** -2
    assert 0.0 < float(want) < sys.float_info.min                  # subnormal
    assert math.isclose(got[0], float(want), rel_tol=1e-9)


def test_kde_lifts_no_subnormal_term_by_a_constant_of_2_to_the_52_or_more():
    """d = 1, log (2 pi h^2)^(1/2) = -36.9: the constant 1 / (sqrt(2 pi) h) = e^36.9 ~ 1.1e16 exceeds
    2^52, so kde sums in logarithms (plain only above -36, where a lifted subnormal stays below the
    smallest normal float). At u = 744 from the only data point the term e^-744 ~ 1.3e-323 is a
    subnormal with two significant bits, but the density e^(36.9 - 744) ~ 8e-308 is a normal float
    and is computed to full precision. Reference: mpmath exp(-t^2 / (2 h^2)) / (sqrt(2 pi) h).
    Kills kde mutmut_43 (threshold -37: the plain sum, 29 % off)."""
    h = math.exp(-36.9 - 0.5 * math.log(2 * math.pi))
    t = math.sqrt(2 * 744.0) * h
    got = functional.kde([0.0], [t], h)
    with mp.workdps(30):
        hh, tt = mp.mpf(h), mp.mpf(t)
        want = mp.exp(-tt**2 / (2 * hh**2)) / (mp.sqrt(2 * mp.pi) * hh)
    assert float(want) > sys.float_info.min
    assert math.isclose(got[0], float(want), rel_tol=1e-9)


def test_kernel_of_points_1e_200_apart_holds_under_a_callers_strict_errstate():
    """(1e-200)^2 underflows to 0 inside _exponent, which silences exactly that: the kernel is
    exp(-5e-401) = 1 to the last bit. Kills _exponent mutmut_2 and 4 (the underflow left to the
    caller's setting)."""
    with np.errstate(all="raise"):
        k = functional.gaussian_kernel([0.0], [1e-200], 1.0)
    assert k.tolist() == [[1.0]]


def test_kde_with_a_term_that_underflows_holds_under_a_callers_strict_errstate():
    """Data at 0 and 40, h = 1: at the grid point 0 the second term e^-800 underflows in the plain sum;
    the density is (1 + e^-800) / (2 sqrt(2 pi)) = 1 / (2 sqrt(2 pi)) in floats. Kills kde mutmut_73
    (errstate(under=None) around the plain sum)."""
    with np.errstate(all="raise"):
        got = functional.kde([0.0, 40.0], [0.0], 1.0)
    assert math.isclose(got[0], 1.0 / (2.0 * math.sqrt(2.0 * math.pi)), rel_tol=1e-15)


def _release_range(n, d):
    """The documented range of release bandwidths, from mpmath: Delta(h) = sqrt(2) / (n (2 pi h^2)^(d/2))
    equals a float bound B at h = (sqrt(2) / (n B))^(1/d) / sqrt(2 pi); each end moved inward by
    1e-3 relative and rounded to four significant digits."""

    def at(limit):
        return (mp.sqrt(2) / (n * mp.mpf(limit))) ** (mp.mpf(1) / d) / mp.sqrt(2 * mp.pi)

    with mp.workdps(40):
        lo = float(f"{float(at(sys.float_info.max) * (1 + mp.mpf('1e-3'))):.3e}")
        hi = float(f"{float(at(sys.float_info.min) * (1 - mp.mpf('1e-3'))):.3e}")
    return lo, hi


@pytest.mark.parametrize(("n", "d"), [(3, 2), (1, 1), (50, 1)])
def test_release_bandwidth_range_includes_both_ends(n, d):
    """Both ends of the release range are accepted, and the next float beyond each is refused with the
    range in the message; at the ends the RKHS sensitivity is a normal float (mpmath). A release at the
    upper end runs. Kills _check_release_bandwidth mutmut_27 (lo < h: the lower end refused) and 28
    (h < hi: the upper end refused)."""
    lo, hi = _release_range(n, d)
    assert functional._check_release_bandwidth(lo, n, d) == lo
    assert functional._check_release_bandwidth(hi, n, d) == hi
    for h in (lo, hi):
        with mp.workdps(30):
            delta = mp.sqrt(2) / (n * (2 * mp.pi * mp.mpf(h) ** 2) ** (mp.mpf(d) / 2))
        assert sys.float_info.min <= delta <= sys.float_info.max
    for h in (np.nextafter(lo, 0.0), np.nextafter(hi, np.inf)):
        message = f"bandwidth must be in [{lo:.4g}, {hi:.4g}] for n = {n} and d = {d}"
        with pytest.raises(ValueError, match=re.escape(message)):
            functional._check_release_bandwidth(float(h), n, d)
    data = np.arange(n * d, dtype=float).reshape(n, d)
    out = functional.private_kde(data, data[:1], 1.0, 1e-5, hi, np.random.default_rng(0))
    assert out.shape == (1,) and np.isfinite(out).all()


def _mp_lscv_two_points(r, h, d):
    """LSCV of two points at distance r in d dimensions: both - (2/n) loo with n = 2, that is
    (4 pi h^2)^(-d/2) (1 + e^(-u/2)) / 2 - 2 (2 pi h^2)^(-d/2) e^(-u), u = r^2 / (2 h^2)."""
    with mp.workdps(50):
        r, h = mp.mpf(r), mp.mpf(h)
        u = r * r / (2 * h * h)
        c1 = (2 * mp.pi * h * h) ** (-mp.mpf(d) / 2)
        c2 = (4 * mp.pi * h * h) ** (-mp.mpf(d) / 2)
        return c2 * (1 + mp.exp(-u / 2)) / 2 - 2 * c1 * mp.exp(-u)


def _assert_lscv_of_two_points_80_apart(d, h):
    """lscv of two points at squared scaled distance 80 (u = 40) against the two-point closed form, to 1e-12."""
    r = h * math.sqrt(80.0)
    x = np.zeros((2, d))
    x[1, 0] = r
    assert math.isclose(functional.lscv(x, h), float(_mp_lscv_two_points(r, h, d)), rel_tol=1e-12)


def _mp_density(x, h):
    """The N(0, h^2) density at x (one dimension), at 50 digits."""
    with mp.workdps(50):
        x, h = mp.mpf(x), mp.mpf(h)
        return mp.exp(-x * x / (2 * h * h)) / (mp.sqrt(2 * mp.pi) * h)


def test_lscv_in_one_dimension_where_h_squared_under_or_overflows():
    """At h = 1e-200, h * h is 0 and the plain form divides by it (nan); at h = 1e160, h * h is inf and
    the plain form gives 0 for a score of -5e-161. Only the scaled form is right there, and the switch
    must not let these bandwidths (outside 1e-100 <= h <= 1e100, |log (2 pi h^2)^(1/2)| < 600) through.
    Reference: the two-point closed form in mpmath. Kills lscv mutmut_24 (`and` -> `or` in the guard)."""
    for h in (1e-200, 1e160):
        want = _mp_lscv_two_points(1.0, h, 1)
        assert math.isclose(functional.lscv([0.0, 1.0], h), float(want), rel_tol=1e-13), h


@pytest.mark.parametrize("d, h", [
    (100, 0.0009888790459092924),     # log (2 pi h^2)^(d/2) == -600.0 exactly in floats
    (100, math.exp(-600.5 / 100 - _HALF_LOG_2PI)),                         # ... = -600.5
    (101, 107.24135365118465),        # log (4 pi h^2)^(d/2) == 600.0 exactly in floats
    (101, math.exp((600.5 - 101 / 2 * math.log(2.0)) / 101 - _HALF_LOG_2PI)),  # ... = 600.5
])
def test_lscv_in_high_dimension_at_the_switch_to_the_scaled_form(d, h):
    """Two points with u = |x1 - x2|^2 / (2 h^2) = 40 in d = 100 or 101: the leave-one-out term
    2 e^(-40) (2 pi h^2)^(-d/2) is 2 % of the score, since the diagonal part is only 2^(-d/2) / 2 of
    the constant. Just beyond the switch (|log(2 pi h^2)^(d/2)| or |log(4 pi h^2)^(d/2)| >= 600) the
    scaled form is used and gets it to 1e-13; the plain form loses that term (k.sum() - n cancels)
    and is 2-3 % off. Reference: the two-point closed form in mpmath. Kills lscv mutmut_28 and 29
    (`<= 600`, `< 601` on the first bound), 37 and 38 (the same on the second bound); 24 and 25 too.
    The bandwidths with an exact 600.0 were found by stepping h by ulps."""
    _assert_lscv_of_two_points_80_apart(d, h)


def test_lscv_in_1000_dimensions_where_4_pi_h2_to_the_d_half_overflows():
    """d = 1000, log (2 pi h^2)^(d/2) = 365: (4 pi h^2)^(d/2) = e^711.6 overflows (the plain form
    raises OverflowError), while the score, -2.6e-176, is a normal float. Reference: the two-point
    closed form in mpmath. Kills lscv mutmut_31 (d/2 log 2 subtracted in the second bound),
    34 (d/3 log 2 instead of d/2 log 2), 24 and 25 (the guard's `and` turned into `or`)."""
    d = 1000
    h = math.exp(365.0 / d - _HALF_LOG_2PI)
    _assert_lscv_of_two_points_80_apart(d, h)


def test_lscv_under_a_callers_strict_errstate():
    """Both forms of lscv silence the underflow of far-apart terms (e^(-2500) at h = 1, e^(-400) and
    e^(-800) at h = 1e-300); a caller with np.errstate(all="raise") gets the score. Far apart the
    score is 2 phi_{sqrt2 h}(0) / 4 = 1 / (4 sqrt(pi) h); the second case is the two-point closed form
    in mpmath. Kills lscv mutmut_44 (plain form) and 97 (scaled form): under=None leaves the caller's
    setting."""
    with np.errstate(all="raise"):
        plain = functional.lscv([0.0, 100.0], 1.0)
        scaled = functional.lscv([0.0, 4e-299], 1e-300)
    assert math.isclose(plain, 1.0 / (4.0 * math.sqrt(math.pi)), rel_tol=1e-14)
    assert math.isclose(scaled, float(_mp_lscv_two_points(4e-299, 1e-300, 1)), rel_tol=1e-13)


def test_lscv_is_zero_where_the_score_is_below_the_float_range():
    """d = 2200, h = 1e200, two points 1e205 apart per coordinate: the score (4 pi h^2)^(-1100) / 2
    is below 2^-1075 (mpmath), and in the scaled form every term of B underflows, so B == 0 and the
    answer is 0.0 (log |B| would raise). Kills lscv mutmut_131 (the B == 0 check turned into B == 1:
    ValueError from log 0) and 132 (1.0 returned for B == 0)."""
    d, h = 2200, 1e200
    with mp.workdps(30):
        assert (4 * mp.pi * mp.mpf(h) ** 2) ** (-mp.mpf(d) / 2) / 2 < mp.mpf(2) ** -1075
    x = np.zeros((2, d))
    x[1] = 1e205
    assert functional.lscv(x, h) == 0.0


def test_rkhs_norm_of_centres_beyond_the_float_range_apart_under_a_strict_errstate():
    """Centres at -1e308 and 1e308: their coordinate difference overflows to inf, which rkhs_norm
    silences; the kernel between them is 0 and the norm of (1, -1) is sqrt(2). Kills rkhs_norm
    mutmut_42 and 44 (over=None or dropped: FloatingPointError under np.errstate(all="raise"))."""
    with np.errstate(all="raise"):
        got = functional.rkhs_norm([1.0, -1.0], [-1e308, 1e308], 1.0)
    assert got == pytest.approx(math.sqrt(2.0), rel=1e-15, abs=0)


def test_rkhs_norm_in_two_dimensions_with_one_tiny_coordinate_difference():
    """Centres (0, 1) and (1e-170, 1) at h = 1: the largest coordinate difference is 1e-170, so the
    small-tau form applies; the norm of (1, -1) is sqrt(2 - 2 e^(-u)) = sqrt(2 u) = 1e-170 with
    u = 1e-340 / 2 (mpmath). A span taken between different coordinates (1 instead of 1e-170) sends
    it to the plain form, where the squared distance 1e-340 underflows to 0 and the norm is 0.
    Kills rkhs_norm mutmut_53 and 55 (axis=None in the span)."""
    with mp.workdps(50):
        u = mp.mpf(1e-170) ** 2 / 2
        want = float(mp.sqrt(-2 * mp.expm1(-u)))
    got = functional.rkhs_norm([1.0, -1.0], [[0.0, 1.0], [1e-170, 1.0]], 1.0)
    assert math.isclose(got, want, rel_tol=1e-14)


def test_rkhs_norm_small_tau_form_against_the_closed_form():
    """At h = 1e300 the kernel is 1 - u to the last bit; a^T K a = (sum a)^2 - a^T u a with
    u_ij = |z_i - z_j|^2 / (2 h^2). For a = (1, -1, 0) at 0, 1, 3: sum a = 0, a^T u a = -2 u_12 =
    -1e-600, norm 1e-300 (the bracket r^2 - b^T w b is 1/9 with span 3). For a = (1, -1) at (0, 0)
    and (1, 1): norm sqrt(2 u_12) = sqrt(2) 1e-300 (bracket 2). Reference: these closed forms in
    mpmath. Kills rkhs_norm mutmut_70 (divided by the square root) and 86 (the bracket floored at 1
    instead of 0)."""
    with mp.workdps(50):
        h = mp.mpf(1e300)
        one = float(mp.sqrt(2 * (1 / (2 * h * h))))          # |z1 - z2|^2 = 1
        two = float(mp.sqrt(2 * (2 / (2 * h * h))))          # |z1 - z2|^2 = 2
    assert math.isclose(functional.rkhs_norm([1.0, -1.0, 0.0], [0.0, 1.0, 3.0], 1e300), one, rel_tol=1e-14)
    assert math.isclose(functional.rkhs_norm([1.0, -1.0], [[0.0, 0.0], [1.0, 1.0]], 1e300), two, rel_tol=1e-14)


def test_gaussian_kernel_under_a_callers_strict_errstate():
    """exp(-5000) underflows to 0; gaussian_kernel silences it. Kills gaussian_kernel mutmut_33
    (under=None: FloatingPointError under np.errstate(all="raise")). Reference: e^(-1/2) and 0."""
    with np.errstate(all="raise"):
        got = functional.gaussian_kernel([0.0], [1.0, 100.0], 1.0)
    assert got[0, 0] == pytest.approx(math.exp(-0.5), rel=1e-15, abs=0) and got[0, 1] == 0.0


def test_normalized_kernel_and_kde_where_the_constant_lifts_an_underflowed_term():
    """h = 1e-50, x = h sqrt(1500): exp(-u) = e^-750 underflows to 0, but the density
    e^-750 / (sqrt(2 pi) h) = 7.6e-277 is a normal float; only the scaled form (exp(a - u) 2^k) gets
    it. Reference: mpmath. Kills gaussian_kernel mutmut_42 (the sign of log c flipped, which sends
    h = 1e-50 to the plain form) and _log_norm mutmut_2 (log h subtracted: the guards of
    gaussian_kernel and kde then take the plain form)."""
    h = 1e-50
    x = h * math.sqrt(1500.0)
    want = float(_mp_density(x, h))
    assert math.isclose(functional.gaussian_kernel([0.0], [x], h, normalized=True)[0, 0], want, rel_tol=1e-12)
    assert math.isclose(functional.kde([0.0], [x], h)[0], want, rel_tol=1e-12)


@pytest.mark.parametrize("h", [9.253557273405503e-17, math.exp(-36.5 - _HALF_LOG_2PI)])
def test_normalized_kernel_where_the_constant_is_at_least_e36(h):
    """log c = -log (2 pi h^2)^(1/2) is 36.0 exactly in floats at h = 9.253557273405503e-17 (found by
    stepping h by ulps) and 36.5 at the second h. At u = 744, exp(-u) is a subnormal with a few
    significant bits, and the plain product c exp(-u) = 3e-308 is 22 % off; the scaled form gets the
    normal float. Reference: mpmath. Kills gaussian_kernel mutmut_52 (`log_c <= 36`) and 53
    (`log_c < 37`)."""
    x = h * math.sqrt(2.0 * 744.0)
    want = float(_mp_density(x, h))
    assert want > 2.2250738585072014e-308
    assert math.isclose(functional.gaussian_kernel([0.0], [x], h, normalized=True)[0, 0], want, rel_tol=1e-11)


def test_kde_scaled_form_under_a_callers_strict_errstate():
    """At h = 1e-300 kde uses the log-sum-exp form; the term of the point 4e-299 away, e^(-800),
    underflows, which it silences. The estimate at 0 is (phi_h(0) + phi_h(4e-299)) / 2 (mpmath).
    Kills _log_sum_exp_neg mutmut_13 (under=None: FloatingPointError under np.errstate(all="raise"))."""
    with np.errstate(all="raise"):
        got = functional.kde([0.0, 4e-299], [0.0], 1e-300)[0]
    want = float((_mp_density(0.0, 1e-300) + _mp_density(4e-299, 1e-300)) / 2)
    assert math.isclose(got, want, rel_tol=1e-13)


def test_rkhs_sensitivity_and_kde_difference_just_below_the_normal_range():
    """n = 1000, d = 4, log (2 pi h^2)^(d/2) = 703: n (2 pi h^2)^(d/2) = e^709.9 overflows, but the
    sensitivity sqrt(2) / (n (2 pi h^2)^(d/2)) = 6.9e-309 is representable (a subnormal with 50
    significant bits), as is the norm of a replaced record far away (the same value). The plain form
    returns 0. Reference: mpmath. Kills rkhs_sensitivity mutmut_30 and kde_difference_rkhs_norm
    mutmut_123 (log n - log (2 pi h^2)^(d/2) in the guard, which lets this h take the plain form)."""
    n, d = 1000, 4
    h = math.exp(703.0 / d - _HALF_LOG_2PI)
    with mp.workdps(50):
        want = float(mp.sqrt(2) / (n * (2 * mp.pi * mp.mpf(h) ** 2) ** 2))
    assert 0.0 < want < 2.2250738585072014e-308
    assert math.isclose(functional.rkhs_sensitivity(n, h, d), want, rel_tol=1e-12)
    got = functional.kde_difference_rkhs_norm([[0.0] * 4], [[1e90] * 4], n, h)
    assert got.shape == (1,) and math.isclose(got[0], want, rel_tol=1e-12)


def test_private_kde_checks_the_noise_scale_of_the_method_it_releases_with():
    """At a sensitivity of 1.84e307 the hrw calibration's sigma (9.88 per unit at epsilon 0.5, delta 1e-5)
    overflows while the classical one's (9.69) does not: private_kde with method="hrw" must refuse naming the
    bandwidth. Checked with the default method, it let the release through to gp_mechanism, which refused naming
    the sensitivity. Kills private_kde mutmut_73 (method dropped from the check)."""
    h = math.sqrt(math.sqrt(2) / (6 * math.pi)) / math.sqrt(1.84e307)    # sqrt(2) / (3 (2 pi h^2)) = 1.84e307
    assert functional.rkhs_sensitivity(3, h, 2) == pytest.approx(1.84e307, rel=1e-12, abs=0)
    with pytest.raises(ValueError, match=r"^bandwidth must keep the noise scale"):
        functional.private_kde([[0.0, 0], [1, 1], [2, 0]], [[0.0, 0], [1, 1]], 0.5, 1e-5, h,
                               np.random.default_rng(0), method="hrw")


# ---------------------------------------------------------------- the functions d14503d rewrote
def _mp_lscv_on_a_line(coords, d, h):
    """LSCV by direct summation at 50 digits for points that differ only in their first coordinate
    (the others 0): sum_ij phi_{sqrt2 h}(x_i - x_j) / n^2 - 2 / (n (n - 1)) sum_{i != j} phi_h(x_i - x_j),
    phi_s the N(0, s^2 I_d) density; returns the value and the sum of the two parts' magnitudes."""
    with mp.workdps(50):
        n, hm = len(coords), mp.mpf(h)
        c = [mp.mpf(float(v)) for v in coords]
        c4 = (4 * mp.pi * hm * hm) ** (-mp.mpf(d) / 2)
        c2 = (2 * mp.pi * hm * hm) ** (-mp.mpf(d) / 2)
        both = mp.fsum(mp.exp(-(c[i] - c[j]) ** 2 / (4 * hm * hm)) for i in range(n) for j in range(n)) * c4 / n**2
        loo = mp.fsum(mp.exp(-(c[i] - c[j]) ** 2 / (2 * hm * hm)) for i in range(n) for j in range(n) if i != j) \
            * 2 * c2 / (n * (n - 1))
        return both - loo, both + loo


@pytest.mark.parametrize(("coords", "h"), [
    ([0.0, 1e3], 1.0 / math.sqrt(4.0 * math.pi)),     # far apart: LSCV = (4 pi h^2)^(-d/2) / n, about 1/2
    # a pair whose e^-u is 2^-3500 / 4 (u = 2427.4): T's term is as large as 2^(-d/2) S, LSCV about 1/6
    ([0.0, math.sqrt(2.0 * (3500.0 * math.log(2.0) + math.log(4.0))) / math.sqrt(4.0 * math.pi), 1e3],
     1.0 / math.sqrt(4.0 * math.pi)),
])
def test_lscv_in_seven_thousand_dimensions_is_its_50_digit_value(coords, h):
    """In d = 7000 at h = 1/sqrt(4 pi) the parts of B = 2^(-d/2) S / n^2 - 2 T / (n (n-1)) are near
    2^-3500 (T's terms below 1e-1000) and lscv scales them by 2^p, p = -round(max(log_both, log_loo) / log 2);
    a p off by more than ~1050 bits leaves them 0 or inf. Kills lscv_132 (d/3 for d/2 in log_both: 0.0),
    lscv_134 (log 3 for log 2 there: OverflowError in the first case), lscv_149 (times log 2 for over it:
    0.0) and lscv_155 (over log 3: 0.0). Reference: direct summation of the LSCV formula at 50 digits
    (mpmath); the points differ in one coordinate, so each exponent is exact."""
    d = 7000
    x = np.zeros((len(coords), d))
    x[:, 0] = coords
    want, size = _mp_lscv_on_a_line(coords, d, h)
    got = functional.lscv(x, h)
    assert math.isfinite(got) and got != 0.0
    # the constant's logarithm is about 2400 here: its rounding moves the answer by up to ~1e-12 relative
    assert abs(mp.mpf(got) - want) <= 1e-9 * size, (got, mp.nstr(want, 17))


def test_lscv_where_its_two_parts_cancel_is_near_zero():
    """Two points at the distance where LSCV crosses 0 ((1 + y) / (2 sqrt 2) = 2 y^2, y = e^(-u/2), u = 1.3165),
    at h = 1e120 (the scaled form): over 41 consecutive distances around the root the scaled parts cancel
    exactly for one (b == 0.0, so lscv returns 0.0 there), and every answer must be within 1e-12 of the
    parts' size (about 4e-121) of the 50-digit value. Kills lscv_189 (1.0 for b == 0; the exact 0 is found
    with glibc's exp and log: elsewhere the 41 distances still bracket the root). Reference: direct
    summation of the LSCV formula at 50 digits (mpmath)."""
    h = 1e120
    y = (1.0 + math.sqrt(1.0 + 16.0 * math.sqrt(2.0))) / (8.0 * math.sqrt(2.0))
    s0 = math.sqrt(-4.0 * math.log(y)) * h
    s = s0
    for _ in range(20):
        s = math.nextafter(s, 0.0)
    for _ in range(41):
        want, size = _mp_lscv_on_a_line([0.0, s], 1, h)
        got = functional.lscv([0.0, s], h)
        assert abs(mp.mpf(got) - want) <= 1e-12 * size, (s, got, mp.nstr(want, 17))
        s = math.nextafter(s, math.inf)


@pytest.mark.parametrize("n, m, d, chunk", [(2, 10, 1, 6), (3, 7, 2, 5), (1, 5, 1, 1), (4, 9, 1, 100)])
def test_kde_computes_each_grid_row_once_in_blocks_of_at_most_chunk_entries(monkeypatch, n, m, d, chunk):
    """kde promises blocks "so the temporary array stays small": every grid row's exponents are formed once,
    in blocks of max(1, _CHUNK // (n d)) rows. Kills x_kde__mutmut_72 and x_kde__mutmut_74 (every block
    restarts at row 0) and x_kde__mutmut_73 (every block runs to the last row): their values are the same,
    but the work grows as m^2 / step and the last block holds the whole grid (at n = 2e6 and 200 grid points,
    a 200 x 2e6 array instead of 1 x 2e6). Reference: the row count m and the block bound, from the
    parameters; the values against a direct sum of Gaussian densities (math.exp per term)."""
    monkeypatch.setattr(functional, "_CHUNK", chunk)
    seen = []
    inner = functional._exponent

    def spy(x, y, h, **kw):
        seen.append(x.shape[0])
        return inner(x, y, h, **kw)

    monkeypatch.setattr(functional, "_exponent", spy)
    rng = np.random.default_rng(11)
    data, grid, h = rng.normal(size=(n, d)), rng.normal(size=(m, d)), 0.7
    got = functional.kde(data, grid, h)
    step = max(1, chunk // (n * d))
    assert sum(seen) == m and max(seen) <= step, seen
    for i in range(m):
        want = sum(math.exp(-sum((grid[i, k] - p[k]) ** 2 for k in range(d)) / (2 * h * h)) for p in data)
        want /= n * (2 * math.pi * h * h) ** (d / 2)
        assert math.isclose(got[i], want, rel_tol=1e-13)


@pytest.mark.parametrize("delta, span, h, d", [
    (1e-170, 1e-100, 10.0, 1),          # the pair's squared difference 1e-340 underflows to 0
    (1e-165, 1e-30, 1e71, 1),
    (5e-163, 1e-20, 1e81, 2),           # 2.5e-325: below the smallest subnormal
    (2e-200, 1e-60, 1e50, 3),
])
@mp.workdps(40)
def test_rkhs_norm_small_tau_keeps_a_pair_whose_squared_difference_underflows(delta, span, h, d):
    """f = c (K(., z0) - K(., z1)) with |z0 - z1| = delta, and a third centre with coefficient 0 (as a record
    shared by two neighbouring data sets) setting the span: tau = span / h < 1e-100, and the exponent w
    relative to span must be formed from differences divided by span (relative=True), as delta^2 itself
    underflows while (delta / span)^2 is a normal float. Closed form ||f|| = |c| sqrt(-2 expm1(-u)),
    u = delta^2 / (2 h^2), in mpmath. Kills x_rkhs_norm__mutmut_84, _88 and _89 (relative=None, dropped,
    False: the norm is 0)."""
    c = 1e150
    z = np.zeros((3, d))
    z[1, 0] = delta
    z[2, -1] = span
    u = mp.mpf(delta) ** 2 / (2 * mp.mpf(h) ** 2)
    want = abs(c) * mp.sqrt(-2 * mp.expm1(-u))
    got = functional.rkhs_norm([c, -c, 0.0], z, h)
    assert got > 0 and abs(mp.mpf(got) / want - 1) < 1e-14, (got, mp.nstr(want, 17))
