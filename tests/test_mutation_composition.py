"""Tests that kill the surviving mutants of ``dpnotes.composition`` (``make mutation``).

Written for the survivors of the 2026-11-26 run; each kill was checked by applying the mutant's diff to
``dpnotes/composition.py`` and watching the test fail. Reference: the privacy profile of the composed
randomized responses by enumeration of the 2^k outcomes in 40-digit mpmath.
"""

from __future__ import annotations

import itertools

import mpmath as mp
import pytest

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
