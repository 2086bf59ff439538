"""Differential tests of the Gaussian mechanism's calibration and profile against Google's dp-accounting.

Peers: ``dp_accounting.gaussian_mechanism`` (exact analytic Gaussian, Balle and Wang's method) and the
privacy loss distribution (PLD) accountant ``dp_accounting.pld``. Where the two libraries disagree, a
third, independent route decides: the profile Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) at 50
digits (mpmath). Where the peer itself goes wrong, the test shows it and pins it (``test_peer_*``), so a
peer release that fixes it is noticed.

Tolerances, and why:

* sigma and epsilon against the analytic-Gaussian peer, 1e-10 relative, on the grid where the peer is
  accurate (mu = 1/sigma >= 1e-3): the peer's root finder stops at an absolute 1e-12 and its profile,
  a difference of two logs (log1p(-exp(y - x))), loses digits as mu -> 0; observed at most 5e-11 there
  (2e-10 at sigma = 1e4, where the exact profile of the peer's epsilon is 4e-8 off delta and ours 1e-13).
* the PLD accountant's pessimistic and optimistic estimates must bracket the exact profile (up to 1e-12
  for their floating-point sums): that is what they promise; their gap is the discretization error.
  Asserted for delta >= 1e-6: after many FFT compositions the peer's tail has a noise floor of about
  1e-11, and below it the "pessimistic" estimate is neither pessimistic nor positive (pinned below).
"""

from __future__ import annotations

import logging
import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import gaussian_mechanism as peer_gaussian
from dp_accounting.pld import privacy_loss_distribution as peer_pld

import profiles
from dpnotes import loss
from dpnotes import mechanisms as mech

logging.getLogger().setLevel(logging.ERROR)        # dp-accounting logs a warning per optimistic PLD


def mp_delta(eps, mu):
    """The exact Gaussian profile at 50 digits (Balle and Wang 2018, Theorem 8)."""
    with mp.workdps(50):
        m, e = mp.mpf(mu), mp.mpf(eps)
        return mp.ncdf(m / 2 - e / m) - mp.e ** e * mp.ncdf(-m / 2 - e / m)


EPS_GRID = [1e-2, 0.1, 1.0, 10.0, 50.0]
DELTA_GRID = [1e-300, 1e-100, 1e-12, 1e-5, 0.3]


@pytest.mark.parametrize("eps", EPS_GRID)
@pytest.mark.parametrize("delta", DELTA_GRID)
def test_analytic_sigma_agrees_with_dp_accounting(eps, delta):
    ours = mech.gaussian_sigma(eps, delta, method="analytic")
    peer = peer_gaussian.get_sigma_gaussian(eps, delta)
    assert ours == pytest.approx(peer, rel=1e-10, abs=0)
    # and ours is the exact root (the independent judge, at 50 digits)
    assert float(mp_delta(eps, 1 / ours)) == pytest.approx(delta, rel=1e-11, abs=0)


@pytest.mark.parametrize("eps, delta, peer_excess", [(1e-8, 1e-300, 0.02), (1e-8, 1e-100, 5e-4), (1e-6, 1e-300, 1e-5)])
def test_peer_analytic_sigma_is_too_small_at_tiny_epsilon(eps, delta, peer_excess):
    """dp-accounting 0.6 (get_sigma_gaussian): for eps = 1e-8 and delta = 1e-300 its sigma is 1.7e-5 too
    small, and the exact profile of that sigma exceeds delta by 2.3 % (by 0.08 % at delta = 1e-100): its
    difference of two logs loses the digits that separate them when mu is ~1e-9. Ours is exact there."""
    peer = peer_gaussian.get_sigma_gaussian(eps, delta)
    ours = mech.gaussian_sigma(eps, delta, method="analytic")
    assert float(mp_delta(eps, 1 / peer)) > delta * (1 + peer_excess)            # the peer breaks delta
    assert float(mp_delta(eps, 1 / ours)) == pytest.approx(delta, rel=1e-10, abs=0)


SIGMA_GRID = [0.01, 0.3, 1.0, 10.0, 100.0, 1e3]     # beyond, the peer drifts (next test)


@pytest.mark.parametrize("sigma", SIGMA_GRID)
@pytest.mark.parametrize("delta", DELTA_GRID)
def test_gaussian_epsilon_agrees_with_dp_accounting(sigma, delta):
    ours = loss.gaussian_epsilon(delta, 1 / sigma)
    peer = peer_gaussian.get_epsilon_gaussian(sigma, delta)
    if ours == 0.0:                              # total variation already below delta
        assert peer == 0.0 and loss.gaussian_delta(0.0, 1 / sigma) <= delta
        return
    assert ours == pytest.approx(peer, rel=1e-10, abs=0)
    assert float(mp_delta(ours, 1 / sigma)) == pytest.approx(delta, rel=1e-11, abs=0)


@pytest.mark.filterwarnings("ignore:divide by zero encountered in log1p:RuntimeWarning")   # the peer's own log1p(-1)
def test_peer_gaussian_epsilon_drifts_at_large_sigma():
    """At sigma = 1e7, delta = 1e-300 the peer's epsilon is 6.6e-8 (relative) too large: the exact profile
    there is 0.99991 delta. (Conservative, so not unsafe; but not the exact epsilon it is documented as.)"""
    peer = peer_gaussian.get_epsilon_gaussian(1e7, 1e-300)
    ours = loss.gaussian_epsilon(1e-300, 1e-7)
    assert float(mp_delta(peer, 1e-7)) < 1e-300 * (1 - 5e-5)
    assert float(mp_delta(ours, 1e-7)) == pytest.approx(1e-300, rel=1e-9, abs=0)
    assert peer / ours - 1 > 5e-8


# ---------------------------------------------------------------- PLD accountant
# (sigma, k): k-fold composition of the Gaussian mechanism is the Gaussian with mu = sqrt(k)/sigma,
# the exact answer the PLD accountant approximates by discretizing the loss (interval 1e-4)
PLD_GRID = [(1.0, 1), (0.5, 1), (2.0, 10), (5.0, 1000), (20.0, 10**4), (3.0, 100), (100.0, 10**5)]


@pytest.mark.parametrize("sigma, k", PLD_GRID[: profiles.size(fast=5, thorough=len(PLD_GRID))])
def test_pld_accountant_brackets_the_exact_composed_gaussian(sigma, k):
    pes = peer_pld.from_gaussian_mechanism(sigma, pessimistic_estimate=True, value_discretization_interval=1e-4)
    opt = peer_pld.from_gaussian_mechanism(sigma, pessimistic_estimate=False, value_discretization_interval=1e-4,
                                           use_connect_dots=False)
    if k > 1:
        pes, opt = pes.self_compose(k), opt.self_compose(k)
    mu = math.sqrt(k) / sigma
    for eps in (0.0, 0.1, 0.5, 1.0, 2.0, 5.0):
        exact = loss.gaussian_delta(eps, mu)
        assert opt.get_delta_for_epsilon(eps) <= exact + 1e-12
        assert exact <= pes.get_delta_for_epsilon(eps) + 1e-12
    for delta in (1e-6, 1e-3):            # below 1e-6 the peer's FFT noise floor shows (pinned below)
        exact = loss.gaussian_epsilon(delta, mu)
        assert opt.get_epsilon_for_delta(delta) <= exact + 1e-9
        assert exact <= pes.get_epsilon_for_delta(delta) + 1e-9


def test_peer_pld_reports_a_delta_above_one():
    """The pessimistic PLD of the Gaussian with sigma = 5 composed 10^4 times (mu = 20) reports
    delta(0) = 1.00000024 (1.000256 at sigma = 50, k = 10^6 with interval 1e-4): a probability above one.
    The exact profile is 1 - 2 Phi(-10) = 1 - 1.5e-23, which rounds to 1.0."""
    pes = peer_pld.from_gaussian_mechanism(5.0, pessimistic_estimate=True,
                                           value_discretization_interval=1e-3).self_compose(10**4)
    assert pes.get_delta_for_epsilon(0.0) > 1.0 + 1e-7
    assert loss.gaussian_delta(0.0, 20.0) == 1.0


def test_peer_composed_pld_is_not_an_upper_bound_deep_in_the_tail():
    """The Gaussian with sigma = 100 composed 10^5 times (mu = 3.16), pessimistic PLD with interval 1e-4:
    at delta = 1e-12 the peer answers eps = 26.01, where the exact profile (50-digit mpmath) is 4.8e-12,
    and at the exact eps = 26.72 it reports a negative delta (-2.6e-12). One step (k = 1) is fine: the
    FFT composition's rounding, about 1e-16 of the total mass per bin, accumulates to a floor near 1e-11."""
    pes = peer_pld.from_gaussian_mechanism(100.0, pessimistic_estimate=True,
                                           value_discretization_interval=1e-4).self_compose(10**5)
    mu = math.sqrt(10**5) / 100.0
    exact = loss.gaussian_epsilon(1e-12, mu)
    peer = pes.get_epsilon_for_delta(1e-12)
    assert peer < 0.98 * exact
    assert float(mp_delta(peer, mu)) > 4 * 1e-12
    assert pes.get_delta_for_epsilon(exact) < 0.0
    assert float(mp_delta(exact, mu)) == pytest.approx(1e-12, rel=1e-11, abs=0)
