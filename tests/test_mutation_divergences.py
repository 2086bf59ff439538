"""Tests that kill the surviving mutants of ``dpnotes.divergences`` (``make mutation``).

Written for the survivors of the 2026-11-26 run. Each test names the mutants it kills; each kill was
checked by applying the mutant's diff to ``dpnotes/divergences.py`` and watching the test fail.
Expected values come from exact rational arithmetic (``fractions``) or mpmath at 50 digits.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from dpnotes import divergences as div

ULP_HALF = 2.0**-53          # the spacing of doubles in [1/2, 1)


def test_approx_max_divergence_ignores_a_total_that_only_rounding_lifts_above_delta():
    """Kills approx_max_divergence mutmut_56 (rounding guard 2 U j P divided by j instead of multiplied).

    Ten masses whose exact sum, 1 - 1.4e-16, is at most delta = 1 - 2^-53, but whose running sum in
    doubles rounds to 1.0: no event has P(S) > delta, so the divergence is -inf (the docstring's case).
    The guard after j masses must cover the j roundings (2 U j P = 4.4e-15 here); divided by j instead,
    it is 4.4e-17, below the 1.1e-16 that rounding added, and the mutant returns log(2^-53) = -36.7.
    """
    p = [0.2071, 0.2016, 0.1546, 0.1396, 0.09498, 0.07605, 0.05413, 0.04096, 0.02324, 0.007739999999999858]
    q = [0.1] * 10                                  # equal q: the top sets are the prefixes of p (sorted)
    delta = 1.0 - ULP_HALF
    assert sum(Fraction(x) for x in p) <= Fraction(delta)          # no event is truly above delta ...
    assert np.cumsum(p)[-1] == 1.0 > delta                          # ... but the running sum says so
    assert div.approx_max_divergence(p, q, delta) == -math.inf


def test_approx_max_divergence_counts_a_single_outcome_three_ulps_above_delta():
    """Kills approx_max_divergence mutmut_58 (rounding guard 3 U j P instead of 2 U j P).

    The event {0} is one outcome, so its P(S) = 1/2 + 3 * 2^-53 carries no summation error and is truly
    above delta = 1/2. With Q(S) = 1e-20 it is the best event by far: D = log(3 * 2^-53 / 1e-20) = 10.41,
    exact in rationals. The guard of width 2 U P (2 ulps at 1/2) lets it through; a 3 U P guard (3 ulps)
    drops it, and the mutant returns log(1/2) from the whole space instead.
    """
    p0 = 0.5 + 3 * ULP_HALF
    p, q = [p0, 1.0 - p0], [1e-20, 1.0 - 1e-20]
    assert Fraction(p0) - Fraction(1, 2) == 3 * Fraction(ULP_HALF)       # exact: 3 ulps above delta
    want = math.log(3 * ULP_HALF) - math.log(1e-20)
    assert div.approx_max_divergence(p, q, 0.5) == pytest.approx(want, rel=1e-14, abs=0)


@pytest.mark.parametrize("eps", [1.0, 1.5, 1.9, 1.95, 1.999])
def test_laplace_kl_is_exact_to_a_few_ulps_between_one_and_two(eps):
    """Kills laplace_kl mutmut_9 (Taylor branch used up to eps < 2 instead of eps < 1).

    The 20-term series of e^x - 1 - x drops x^22/22! = 3.7e-15 at x = -2, a relative error above 1e-15
    of the divergence (1.13 there) for eps > 1.89; the closed form eps + expm1(-eps) has no cancellation
    for eps >= 1 and is exact to a few ulps. Reference: mpmath at 50 digits.
    """
    with mp.workdps(50):
        ref = float(mp.mpf(eps) - 1 + mp.e ** (-mp.mpf(eps)))
    assert div.laplace_kl(eps) == pytest.approx(ref, rel=1e-15, abs=0)
