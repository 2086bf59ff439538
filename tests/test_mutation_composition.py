"""Tests that kill the surviving mutants of ``dpnotes.composition`` (``make mutation``).

Written for the survivors of the 2026-11-26 run; each kill was checked by applying the mutant's diff to
``dpnotes/composition.py`` and watching the test fail. Reference: the privacy profile of the composed
randomized responses by enumeration of the 2^k outcomes in 40-digit mpmath.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from dpnotes import composition
from dpnotes import composition as comp


def _hetero_delta_mp(epsilons, eps_prime) -> float:
    """delta(eps') = sum over outcomes S with loss > eps' of P(S) - e^eps' Q(S), at 40 digits."""
    with mp.workdps(40):
        eps = [mp.mpf(e) for e in epsilons]
        total = mp.mpf(0)
        for keep in itertools.product([0, 1], repeat=len(eps)):
            p = mp.mpf(1)
            q = mp.mpf(1)
            for e, kpt in zip(eps, keep):
                p *= (mp.e ** e if kpt else 1) / (1 + mp.e ** e)
                q *= (1 if kpt else mp.e ** e) / (1 + mp.e ** e)
            total += max(p - mp.e ** eps_prime * q, 0)
        return float(total)


@pytest.mark.parametrize("eps_prime", [0.0, 0.5])
def test_optimal_delta_heterogeneous_is_a_probability_when_the_masses_sum_above_one(eps_prime):
    """Kills optimal_delta_heterogeneous mutmut_67 (the clamp of the enumerated sum at 2 instead of 1).

    With large epsilons almost all of P lies where the loss exceeds eps', and the log-space sum of those
    masses rounds to 1 + 8e-15 (found on 18,000 of 20,000 random draws); delta is a probability, 1 - 1.3e-30
    here in exact arithmetic, so it must come out <= 1, also after the step deltas are mixed in."""
    eps = [34.0, 19.5, 35.5, 20.0, 23.5]
    want = _hetero_delta_mp(eps, eps_prime)
    got = comp.optimal_delta_heterogeneous(eps, eps_prime)
    assert got <= 1.0
    assert got == pytest.approx(want, rel=1e-14, abs=0)
    mixed = comp.optimal_delta_heterogeneous(eps, eps_prime, deltas=[1e-3] * 5)
    assert mixed <= 1.0
    assert mixed == pytest.approx(1 - (1 - 1e-3) ** 5 * (1 - want), rel=1e-14, abs=0)


# ---------------------------------------------------------------- helper P (2026-11-28): the closed form of optimal composition and the final check
def _mp_closed_form_root(eps: float, k: int, delta: float) -> float:
    """The least eps' >= 0 with delta_k(eps') <= delta for k-fold randomized response, at 50 digits, from all
    the masses: on the piece eps' in [(k-2m) eps, (k-2m+2) eps] the outcomes l < m have loss above eps', so
    delta(eps') = A_m - e^eps' B_m with A_m = sum_{l<m} a_l, B_m = sum_{l<m} a_l e^{-(k-2l) eps}, and the root on the
    first piece (from the top) whose left end is at or above delta is log((A_m - delta) / B_m)."""
    with mp.workdps(50):
        e = mp.mpf(eps)
        p = 1 / (1 + mp.exp(-e))
        q = 1 - p
        target = mp.mpf(delta)
        a_sum = b_sum = mp.mpf(0)
        for m in range(1, (k + 1) // 2 + 1):
            l = m - 1
            a_l = mp.binomial(k, l) * p ** (k - l) * q ** l
            a_sum += a_l
            b_sum += a_l * mp.exp(-(k - 2 * l) * e)
            left = max((k - 2 * m) * e, mp.mpf(0))
            if a_sum - mp.exp(left) * b_sum >= target:
                return float(max(mp.log((a_sum - target) / b_sum), mp.mpf(0)))
        return 0.0


@pytest.mark.parametrize("eps, k, delta", [(0.5, 400, 1e-6), (0.3, 150, 1e-30), (1.3, 25, 3e-4), (0.05, 2000, 2e-9)])
def test_optimal_closed_form_is_the_root_of_the_exact_profile(eps, k, delta):
    """The closed form of optimal (before the final step up to where optimal_delta meets delta) is the root itself:
    checked against the piecewise formula summed over all k + 1 masses in 50-digit mpmath. Tolerance 1e-9 relative,
    the agreement optimal documents; the window drops masses below delta e^-60 (an error < k e^-60 relative) and the
    log-binomials cost about 1e-16 k log k, both far below it. Points chosen so that the window starts at lo > 0
    (a_0 = p^k below delta e^-60 at k = 400, 2000), delta is below e^-60 (1e-30), and the root is beyond the first
    piece (j >= 1); asymmetric eps, k. The final step only moves a low root up to the crossing, so a wrong
    closed form showed only as a slower optimal. Kills _optimal_closed_form mutmut_17, 40, 41"""
    want = _mp_closed_form_root(eps, k, delta)
    assert want > 0.0
    assert composition._optimal_closed_form(eps, k, delta) == pytest.approx(want, rel=1e-9, abs=0)


def test_optimal_with_step_delta_is_on_the_safe_side_of_its_root():
    """optimal(eps, k, delta, step_delta) is the smallest eps' whose documented profile
    1 - (1 - d0)^k (1 - delta_k(eps')) = optimal_delta(eps, k, eps', d0) is at most delta; the float closed form can
    land 1 to 4 ulps below that crossing, and the final step must check the profile with the step delta (the pure
    randomized-response profile delta_k is smaller, so checking it accepts those unsafe roots). Checked by the
    definition on seeded random (eps, k, delta, d0) with delta above the catastrophe mass; exact, no tolerance.
    Kills optimal mutmut_74"""
    rng = np.random.default_rng(20261128)
    for _ in range(120):
        eps, k, delta = 10 ** rng.uniform(-3, 0.5), int(10 ** rng.uniform(0, 3)), 10 ** rng.uniform(-12, -0.5)
        d0 = 10 ** rng.uniform(-14, -3)
        e = composition.optimal(eps, k, delta, step_delta=d0)
        assert e == math.inf or composition.optimal_delta(eps, k, e, step_delta=d0) <= delta, (eps, k, delta, d0, e)
