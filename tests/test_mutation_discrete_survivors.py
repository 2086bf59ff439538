"""Tests that kill the surviving mutants of dpnotes.discrete found on 2026-11-27 (the rest are explained in
benchmarks/mutation-survivors.toml), each against an independent reference.

The discrete Gaussian's profile in its special regimes (the Euler-Maclaurin path from sigma = 1e6, the rescaled
continuous profile below mu = 1e-100, the exact step below sigma = 1e-150): a direct float sum of the profile's
positive terms taken relative to the term at the threshold (scale in mpmath, threshold in exact rationals), exact
rationals for the step, the continuous profile's closed form in mpmath. The shifted sum's blocks and tail bound:
sums of the pmf in mpmath at 30 digits and the closed form delta_k(0) = Pr[-k/2 <= Y < k/2]. Messages and caps:
the literal text.

Relative errors are checked as abs(got - want) <= rel * want, never with pytest.approx(x, rel=..., abs=0) alone:
approx keeps its default abs=1e-12, so every profile below 1e-12 (most of the large-sigma ones) passed whatever
the value.
"""

import math
import random
import re
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from dpnotes import discrete as dsc
from test_discrete import mp_gaussian_delta


def _direct_shift_delta(sigma, eps, k, chunk=1 << 20):
    """sum_{y < c} p(y) (1 - e^{-k (c - y) / sigma^2}), c = k/2 - sigma^2 eps / k, from the definition.

    c and the largest integer m below it in exact rationals; p(y) = e^{-y^2/(2 sigma^2)} / Z with
    Z = sigma sqrt(2 pi) (Poisson summation: off by 2 e^{-2 pi^2 sigma^2}, nil for sigma >= 1); the terms at
    y = m - j taken relative to p(m), as e^{-(j^2 - 2 m j)/(2 sigma^2)} (an integer numerator below 2^53, so
    each term is good to about 40 ulp), summed by math.fsum until they fall below e^-45 of p(m) past y = 0.
    Returns an mpmath number: p(m) itself may be below the float range."""
    c = Fraction(k, 2) - Fraction(sigma) ** 2 * Fraction(eps) / k
    m = math.ceil(c) - 1
    u0 = float(c - m)
    two_s2 = 2.0 * sigma * sigma
    rate = k / (sigma * sigma)
    parts, j0 = [], 0
    while True:
        j = np.arange(j0, j0 + chunk, dtype=np.float64)
        expo = (j * j - 2.0 * m * j) / two_s2
        parts.append(math.fsum(np.exp(-expo) * -np.expm1(-rate * (u0 + j))))
        j0 += chunk
        if m - j0 < 0 and expo[-1] > 45.0:
            break
    with mp.workdps(30):
        s = mp.mpf(sigma)
        p_m = mp.exp(-mp.mpf(m) ** 2 / (2 * s * s)) / (s * mp.sqrt(2 * mp.pi))
        return p_m * mp.mpf(math.fsum(parts))


def _close(got, want, rel):
    """abs(got - want) <= rel * want, with want an mpmath number (possibly below the float range)."""
    return abs(mp.mpf(got) - want) <= rel * want


def test_discrete_gaussian_delta_euler_maclaurin_matches_a_direct_sum_where_the_correction_is_largest():
    """Kills _dgauss_delta_large mutmut_27, 33-35, 38, 40, 44, 46, 47, 49, 54-56, 59-61, 64, 65, 69, 72,
    73, 75, 78, 79, 82, 89, 96-98, 105, 107-109 (and 32 with the shift 10^4).

    sigma = 1e6 is the smallest sigma on the Euler-Maclaurin path, where its correction is largest: relative
    (1 + z^2)/sigma^2 to the continuous profile, 1.4e-9 at z = c/sigma = -37 (the test of the path at
    z <= 37 with k = 1, 3 used pytest.approx, whose abs=1e-12 let every mutant through). Reference: the
    direct sum above. The code is within 2e-13 of it here; the mutants of the correction are off by 2.5e-12
    (df/13 instead of df/12) to 1e89."""
    sigma = 1e6
    for z in (20.0, 37.0):
        eps = z / sigma
        want = _direct_shift_delta(sigma, eps, 1)
        assert _close(dsc.discrete_gaussian_delta(sigma, eps), want, 1e-12)
    # sensitivity 3: the maximum over the shifts 1, 2, 3 (the smaller shifts are 0 in float here)
    eps = 30.0 * 3 / sigma
    want = max(_direct_shift_delta(sigma, eps, k) for k in (1, 2, 3))
    assert _close(dsc.discrete_gaussian_delta(sigma, eps, 3), want, 1e-12)
    # the largest allowed shift, one term of the profile at sensitivity 10^4 (the public call costs a
    # second): c = 5000 - 37 sigma, where the k/2 in c matters (mutmut_32 flips the sign of sigma^2 eps / k)
    want = _direct_shift_delta(sigma, 0.37, 10**4)
    assert _close(dsc._dgauss_delta_large(sigma, 0.37, 10**4), want, 1e-12)


def test_discrete_gaussian_delta_euler_maclaurin_with_the_threshold_just_above_an_integer():
    """Kills _dgauss_delta_large mutmut_90 (exp(-k / u0 / sigma^2) for exp(-k u0 / sigma^2) in f'(m)).

    With epsilon = 0.3 - 1 ulp, sigma = 1e6 and the shift 10^4, c = 5000 - sigma^2 eps / k rounds to one
    ulp (7.5e-9) above the integer -29995000, so u0 = c - m is that ulp and k / (u0 sigma^2) = 1.3: the
    mutant's factor is e^-1.3 instead of 1, 5.6e-11 relative on the answer. Reference: the direct sum."""
    sigma, k = 1e6, 10**4
    eps = math.nextafter(0.3, 0.0)
    want = _direct_shift_delta(sigma, eps, k)
    assert _close(dsc._dgauss_delta_large(sigma, eps, k), want, 1e-12)




def test_discrete_gaussian_delta_below_mu_1e_100_is_the_rescaled_continuous_profile():
    """Kills _dgauss_delta_large mutmut_6 (always 0), 7 (w >= 40 no longer cut: w = eps/mu = inf at
    eps = 1e300 reaches gaussian_delta(inf, ...), which refuses it), 8 (/ for *), 9 (mu R for mu/R) and
    15 (w / R for w R).

    sigma = 1e120, mu = k/sigma = 1e-120 and 3e-120, far below the rescaling point 1e-100: there the discrete
    profile is the continuous one to 1e-240 relative (Euler-Maclaurin corrections of order sigma^-2), and
    the continuous one is taken at 700 digits. eps sigma / k = 0, 0.5, 3: values 4e-121 to 4e-123."""
    sigma = 1e120
    for sens in (1, 3):
        eps = np.array([0.0, 0.5, 3.0]) * sens / sigma
        got = dsc.discrete_gaussian_delta(sigma, eps, sens)
        for g, e in zip(got, eps):
            want = max(mp_gaussian_delta(float(e), k / sigma) for k in range(1, sens + 1))
            assert abs(g - want) <= 1e-12 * want and want > 1e-124
    # eps / mu overflows to inf; every term is below y = -1e300 sigma: the profile is 0
    assert dsc.discrete_gaussian_delta(1e120, [1e300, 1.7e308]).tolist() == [0.0, 0.0]


def test_discrete_gaussian_delta_at_the_exact_step_is_plus_zero():
    """Kills _dgauss_delta_tiny mutmut_14 (gap > 0) and mutmut_15 (gap >= 1): at gap = 0 both fall through
    to -expm1(0.0) = -0.0, a profile value printed as '-0.0'.

    sigma = 2^-510 (below 1e-150, the exact-rational path): k^2/(2 sigma^2) = 2^1019 exactly, so at
    eps = 2^1019 the loss at y = 0 equals eps, the term (1 - e^0) is 0 and every other term is below
    e^{-2^1019}: delta is +0.0 (exact rational arithmetic of the threshold)."""
    sigma, step = 2.0**-510, 2.0**1019
    assert Fraction(1, 2) / Fraction(sigma) ** 2 == Fraction(step)          # the reference: the exact step
    got = dsc.discrete_gaussian_delta(sigma, step)
    assert got == 0.0 and math.copysign(1.0, got) == 1.0
    got = dsc.discrete_gaussian_delta(sigma, [step])
    assert got[0] == 0.0 and not np.signbit(got[0])


def test_dgauss_delta_tiny_is_a_probability():
    """Kills _dgauss_delta_tiny mutmut_19 (2.0 instead of 1.0 below the step; the public profile clips it
    to 1.0, so only the shift's own divergence shows it).

    Each shift's divergence is a total-variation-like sum of probabilities: at sigma = 1e-200 and eps = 0
    it is 1 - e^{-k^2/(2 sigma^2)} = 1.0 in float (closed form), and never above 1."""
    for k in (1, 2, 7):
        assert dsc._dgauss_delta_tiny(1e-200, 0.0, k) == 1.0
        assert dsc._dgauss_delta_tiny(1e-200, 1e300, k) == 1.0


def _mp_weights(sigma, ys):
    """exp(-y^2 / (2 sigma^2)) / Z for each y, Z summed directly over |y| <= 40 sigma + 20 (mpmath)."""
    s = mp.mpf(sigma)
    n = int(40 * sigma) + 20
    z = mp.fsum(mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) for y in range(-n, n + 1))
    return [mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) / z for y in ys]


def _mp_mass_between(sigma, lo, hi):
    """Pr[lo <= Y <= hi] for Y ~ N_Z(0, sigma^2), as 1 minus the two tails (mpmath, 30 digits)."""
    n = int(40 * sigma) + 20
    with mp.workdps(30):
        tails = _mp_weights(sigma, list(range(-n, lo)) + list(range(hi + 1, n + 1)))
        return 1 - mp.fsum(tails)


def test_dgauss_delta_when_a_block_ends_just_above_zero():
    """Kills _dgauss_delta_shift mutmut_95 (tail ratio exponent 2|y0| - 1) and mutmut_96 (2/|y0| + 1).

    At sigma = 100, epsilon = 0 and shift 803 the sum runs down from m = 401 in a first block of
    4 sigma + 1 = 401 terms, [1, 401], so the first tail bound is taken at y0 = 0: there 2|y0| - 1 = -1
    makes the bound negative (the sum stopped, leaving out every y <= 0) and 2/|y0| divides by zero.
    Reference: at epsilon = 0 the shift-k divergence is Pr[-k/2 <= Y < k/2], increasing in k, so
    delta = Pr[|Y| <= 401] (mpmath sum of the pmf); the mutants gave the shift-802 value, 1.3e-6 lower.
    """
    want = _mp_mass_between(100.0, -401, 401)
    got = dsc.discrete_gaussian_delta(100.0, 0.0, 803)
    assert abs(got - float(want)) <= 1e-12 * float(want)


def test_dgauss_delta_stops_only_on_the_bound_not_at_a_bound_of_one():
    """Kills _dgauss_delta_shift mutmut_106 (also stop when the tail bound equals 1.0).

    At sigma = 17.133053768879773 the bound p(y0) / (1 - e^{-(2|y0|+1)/(2 sigma^2)}) at y0 = -6
    rounds to exactly 1.0 (found by bisection on sigma, then a scan of neighbouring doubles); with
    epsilon = 0 and shift 128 the first block is [-5, 63] (69 = 4 sigma + 1 terms), ending at that
    y0, and the mutant returned the partial sum 0.626 for that shift. Reference: the divergence at
    epsilon = 0 for shifts up to 128 is Pr[-64 <= Y <= 63] (mpmath). (Should a libm round that
    bound differently, the test still passes on the original and merely stops killing the mutant.)
    """
    sigma = 17.133053768879773
    want = _mp_mass_between(sigma, -64, 63)
    got = dsc.discrete_gaussian_delta(sigma, 0.0, 128)
    assert abs(got - float(want)) <= 1e-12 * float(want)


def test_dgauss_delta_far_in_the_tail_at_a_small_sigma():
    """Kills _dgauss_delta_shift mutmut_12 (cut-off c >= -40 sigma + 1 instead of -40 sigma - 1).

    At sigma = 0.03 and epsilon = 1111.1 the threshold is c = 1/2 - sigma^2 epsilon = -0.49999, above
    -40 sigma - 1 = -2.2 but below -40 sigma + 1 = -0.2; the one term that counts is y = -1, with
    p(-1) = e^{-555.6} / Z, far above the underflow: the mutant answered 0.0. Reference: the
    hockey-stick sum over y of (p(y) - e^eps p(y - 1))_+ in mpmath, |y| <= 20.
    """
    sigma, eps = 0.03, 1111.1
    with mp.workdps(30):
        ys = list(range(-21, 21))
        p = dict(zip(ys, _mp_weights(sigma, ys)))
        e = mp.exp(mp.mpf(eps))
        want = mp.fsum(max(p[y] - e * p[y - 1], 0) for y in range(-20, 21))
    got = dsc.discrete_gaussian_delta(sigma, eps)
    assert float(want) > 1e-250
    assert abs(got - float(want)) <= 1e-9 * float(want)


def test_dgauss_delta_shift_below_its_cutoff_returns_no_bound_either():
    """Kills _dgauss_delta_shift mutmut_18 (bound 1.0 returned with the empty sum).

    With sigma = 2, shift 1 and epsilon = 20.6 the threshold is c = 1/2 - 4 epsilon = -81.9, below
    -40 sigma - 1 = -81: the exact sum (mpmath, every y <= -82 up to y = -400) is below 1e-340,
    0 in float, so the partial sum is 0.0 and its bound on what is left out must be within rtol of
    it, 0.0, as everywhere else (test_discrete_gaussian_delta_tail_bound_is_rigorous).
    """
    sigma, eps, k = 2.0, 20.6, 1
    log_z = dsc._dgauss_log_normalizer(sigma)
    with mp.workdps(30):
        s2 = mp.mpf(sigma) ** 2
        c = mp.mpf(k) / 2 - s2 * mp.mpf(eps) / k
        ys = list(range(-400, -81))
        exact = mp.fsum(w * (1 - mp.exp(k * (y - c) / s2)) for y, w in zip(ys, _mp_weights(sigma, ys)))
    assert 0 < exact < mp.mpf("1e-340")
    assert dsc._dgauss_delta_shift(sigma, log_z, eps, k) == (0.0, 0.0)


def test_exact_mechanisms_accept_exactly_a_million_entries():
    """Kills _integer_values mutmut_121 (cap refused at 10**6 entries, >= instead of >).

    The docstrings allow a size of at most 10**6 entries. A size of exactly 10**6 must pass the
    count check and reach the broadcast (here it fails there, cheaply, before any draw: value has
    shape (2,)), while 1001 x 1000 entries are refused by the count.
    """
    rng = random.Random(0)
    for size in (10**6, (1000, 1000)):
        shown = (10**6,) if size == 10**6 else size
        with pytest.raises(ValueError, match=re.escape(f"size must be a shape that value (2,) broadcasts to, got {shown}")):
            dsc.discrete_laplace_mechanism([1, 2], 1, size=size, rng=rng)
        with pytest.raises(ValueError, match=re.escape(f"size must be a shape that value (2,) broadcasts to, got {shown}")):
            dsc.discrete_gaussian_mechanism([1, 2], 1, size=size, rng=rng)
    with pytest.raises(ValueError, match=re.escape("size must have at most 1000000 entries in all, got (1001, 1000)")):
        dsc.discrete_laplace_mechanism([1, 2], 1, size=(1001, 1000), rng=rng)


@pytest.mark.parametrize("sigma, shown", [
    (2**59, "576460752303423488"),
    (Fraction(2**60 + 1, 3), "1152921504606846977/3"),
    (1e18, "1e+18"),
])
def test_gaussian_mechanism_names_a_too_large_sigma_exactly(sigma, shown):
    """Kills discrete_gaussian_mechanism mutmut_8 (every sigma shown as a float), mutmut_10
    (a rational sigma shown as None) and mutmut_15 ("python integers").

    A sigma above 2**58 is refused before any draw, naming it as given: an int or a Fraction in
    full (exact, as the function takes it), a float by its repr. Reference: the literal message.
    """
    message = (f"sigma must be <= 2**58 (2.9e17) for value + noise to fit in int64, got {shown} "
               "(add sample_discrete_gaussian draws to Python integers instead)")
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        dsc.discrete_gaussian_mechanism(0, sigma, rng=random.Random(0))


@pytest.mark.parametrize("sigma, eps, k", [(1e-8, 4999999999999999.0, 1), (3e-8, 555555555555555.6, 1),
                                           (1e-6, 500000000000.0, 1), (1e-150, 4.5e300, 3),
                                           (1.5e-150, 2.222222222222222e+299, 1)])
def test_dgauss_delta_where_epsilon_is_a_hair_from_the_step(sigma, eps, k):
    """eps near L0 = k^2/(2 sigma^2) at a small sigma: the threshold c = k/2 - sigma^2 eps / k cancels, and the
    terms' exponent k (y - c)/sigma^2 multiplied its rounding by k/sigma^2 (1e16 at sigma 1e-8): 0.426 for 0.5465,
    and 0.0 for 1.0 at sigma 1e-150, eps 4.5e300, k 3. Reference: only y = 0 counts here (every other term is below
    e^(-1/(2 sigma^2)) = e^(-5e11)), so delta = -expm1(eps - L0) for eps < L0 (and its worst shift is k itself),
    with the gap in exact rationals."""
    gap = Fraction(eps) - Fraction(k * k, 2) / Fraction(sigma) ** 2
    want = 0.0 if gap >= 0 else (1.0 if gap < -800 else -math.expm1(float(gap)))
    got = dsc.discrete_gaussian_delta(sigma, eps, k)
    assert abs(got - want) <= 1e-12 * want


@pytest.mark.parametrize("sigma, eps, k", [(0.05, 599.9999999999999, 1), (0.3, 150.0, 3), (0.3, 816.6666666666666, 7)])
def test_dgauss_delta_where_the_threshold_is_a_hair_from_minus_k(sigma, eps, k):
    """|c| = k in floats, c = k/2 - sigma^2 eps / k: the exact threshold lies a rounding above -k, so the term at
    y = -k is p(-k)(1 - e^(-k (c + k) / sigma^2)), tiny but not 0; in floats c is -k and the term vanished
    (0 for 6.1e-101 at sigma 0.05). Kills _dgauss_delta_shift mutmut_11 (|c| < k: the float threshold there).
    Reference: the terms y <= -k in mpmath with c exact (Fraction), Z summed over |y| <= 40."""
    c = Fraction(k, 2) - Fraction(sigma) ** 2 * Fraction(eps) / k
    with mp.workdps(60):
        s2 = mp.mpf(sigma) ** 2
        z = mp.fsum(mp.exp(-mp.mpf(y) ** 2 / (2 * s2)) for y in range(-40, 41))
        cm = mp.mpf(c.numerator) / c.denominator
        want = mp.fsum(mp.exp(-mp.mpf(y) ** 2 / (2 * s2)) / z * -mp.expm1(k * (y - cm) / s2)
                       for y in range(-40, math.ceil(c)) if y < cm)
        want = max(want, max(mp.fsum(mp.exp(-mp.mpf(y) ** 2 / (2 * s2)) / z * -mp.expm1(j * (y - (mp.mpf(j) / 2
                   - s2 * eps / j)) / s2) for y in range(-40, 41) if y < mp.mpf(j) / 2 - s2 * eps / j)
                   for j in range(1, k)) if k > 1 else 0)
    got = dsc.discrete_gaussian_delta(sigma, eps, k)
    assert abs(got - float(want)) <= 1e-9 * float(want)
