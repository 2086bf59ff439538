"""Tests for the census survivors of the mutation run of 2026-11-27 (issue 22), each against the mathematics:
the truncation bound of a sum of discrete Gaussians against its tail summed in mpmath, the composition at the least
tail against a brute-force hockey-stick sum over the product lattice, and composition_epsilon near 0 against the
closed-form root log((P_+ - delta) / Q_+). Written by a helper explaining the survivors; the same helper found the
profile's overflow past epsilon = 709.78 (tests/test_census.py::test_composition_profile_past_the_exponent_range_of_the_doubles).
"""

import math

import mpmath as mp
import numpy as np
import pytest

from dpnotes import census


def _exact_tail_and_ratio(sigma, m, T):
    """m Pr[|Y| > T] for Y ~ N_Z(0, sigma^2) and r = e^{-(2T+3)/(2 sigma^2)}, summed in mpmath at 50 digits."""
    with mp.workdps(50):
        s2 = 2 * mp.mpf(sigma) ** 2
        K = T + 60 + int(40 * sigma)                      # terms beyond K are below e^{-1800}
        Z = 1 + 2 * mp.fsum(mp.exp(-mp.mpf(y) ** 2 / s2) for y in range(1, K + T))
        tail = 2 * m * mp.fsum(mp.exp(-mp.mpf(y) ** 2 / s2) for y in range(T + 1, T + K)) / Z
        return tail, mp.exp(-(2 * T + 3) / s2)


@pytest.mark.parametrize("sigma, m, cut_max", [(0.8, 2, 1e-12), (2.5, 5, 1e-12), (6.5, 2, 1e-20), (1.7, 4, 3e-9)])
def test_sum_law_mass_bound_is_the_geometric_series_bound(sigma, m, cut_max):
    """_sum_law's third output is the documented bound m 2 p(T+1) / (1 - r), r = e^{-(2T+3)/(2 sigma^2)}, on the
    mass it cuts off. Mathematics brackets it: the true cut t = m 2 sum_{k>=1} p(T+k) is at least m 2 p(T+1)(1 + r)
    (the next term is p(T+1) r), so t <= bound <= t / (1 - r^2). Reference t: mpmath at 50 digits. Tolerance 1e-12
    relative (the bound is a few float operations on logs; measured within 1e-14). A bound 1.5 times too large
    (log 3 for log 2) or with r^{2/3} for r (3 sigma^2 for 2 sigma^2) leaves the bracket by 8e-4 or more here.
    Kills _sum_law mutmut_15, 35"""
    support, law, bound = census._sum_law(sigma, m, cut_max)
    T = int(support[-1]) // m
    t, r = _exact_tail_and_ratio(sigma, m, T)
    ratio = mp.mpf(bound) / t
    assert 1 - 1e-12 <= ratio <= (1 + 1e-12) / (1 - r * r)


def test_composition_at_the_least_tail_with_a_sigma_of_its_own():
    """tail = 5e-324 (in the documented range (0, 1e-6]) with a sigma that is one coordinate of three: its share
    tail * 1/3 is below the least double, so it must be passed to _sum_law as a log, never as exp(log share) (= 0,
    whose log raises "math domain error"). Reference: the hockey-stick sum E_P[(1 - e^{eps - L})_+] by brute force
    over the product lattice of the three coordinates (|y| <= 30 and 80: the rest weighs below e^{-400}), relative
    1e-9 as the module's other brute-force test (the float sums of ~1.6e6 terms round to about 1e-13).
    Kills _loss_atoms mutmut_27, 31"""
    from dpnotes.discrete import discrete_gaussian_pmf

    s1, s2 = 0.7, 1.9
    y1, y2 = np.arange(-30, 32), np.arange(-80, 82)
    p1, q1 = discrete_gaussian_pmf(y1, s1), discrete_gaussian_pmf(y1 - 1, s1)
    p2, q2 = discrete_gaussian_pmf(y2, s2), discrete_gaussian_pmf(y2 - 1, s2)
    p = p1[:, None, None] * p2[None, :, None] * p2[None, None, :]
    q = q1[:, None, None] * q2[None, :, None] * q2[None, None, :]
    eps = np.array([0.0, 0.9, 4.0])
    got = census.composition_delta(eps, [s1, s2, s2], tail=5e-324)
    for e, g in zip(eps, got):
        ref = np.maximum(p - math.exp(e) * q, 0.0).sum()
        assert math.isclose(g, ref, rel_tol=1e-9)


def _exact_root_near_zero(sigma, delta):
    """The epsilon where the one-coordinate profile equals delta, when that epsilon is below the least positive loss
    1/(2 sigma^2): there L > eps iff L > 0 iff y <= 0, so delta(eps) = P_+ - e^eps Q_+ with P_+ = Pr[Y <= 0] and
    Q_+ = Pr[Y <= -1] (Y ~ N_Z(0, sigma^2)), and eps = log((P_+ - delta) / Q_+). mpmath at 50 digits."""
    with mp.workdps(50):
        s2 = 2 * mp.mpf(sigma) ** 2
        K = int(60 + 40 * sigma)
        w = {y: mp.exp(-mp.mpf(y) ** 2 / s2) for y in range(-K, K + 1)}
        Z = mp.fsum(w.values())
        P = mp.fsum(w[y] for y in range(-K, 1)) / Z
        Q = mp.fsum(w[y] for y in range(-K, 0)) / Z
        root = mp.log((P - mp.mpf(delta)) / Q)
        assert 0 < root < 1 / s2
        return float(root), float(Q)


@pytest.mark.parametrize("sigma, k", [(1.3, 12.0), (3.7, 11.5), (5.0, 11.5), (9.5, 11.0), (0.8, 12.5), (2.2, 10.0)])
def test_composition_epsilon_of_a_root_near_zero_is_the_exact_root(sigma, k):
    """delta = delta(0) (1 - 10^-k): the root is 1e-13 .. 5e-11, where an absolute tolerance of brentq (its default
    xtol 2e-12) is larger than the root's own resolution. Reference: the closed form log((P_+ - delta)/Q_+) (see
    _exact_root_near_zero), mpmath. Tolerance: the computed profile is off by a few ulps of delta(0) (a cumulative
    sum over the atoms; measured up to about 13 ulps / Q_+ in epsilon with the cumulative sums it replaced), whose slope there is -Q_+ e^eps, and exp(eps) rounds to
    2^-52: so 32 ulp(delta(0)) / Q_+ + 8 eps 2^-52. An answer within brentq's absolute 2e-12 instead is off by
    about 3e-13 .. 5e-13 here (400 to 3700 times the profile's rounding).
    Kills composition_epsilon mutmut_75"""
    tv = census.composition_delta(0.0, [sigma])
    delta = tv * (1 - 10.0 ** -k)
    root, q_plus = _exact_root_near_zero(sigma, delta)
    got = census.composition_epsilon(delta, [sigma])
    assert abs(got - root) <= 32 * math.ulp(tv) / q_plus + 8 * root * 2.0 ** -52
