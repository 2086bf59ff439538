"""Differential tests of composition and conversions against Google's dp-accounting and mpmath.

Peers: the RDP accountant (``dp_accounting.rdp.RdpAccountant``, the improved RDP-to-DP conversion of
Canonne, Kamath and Steinke), the optimal composition of Kairouz, Oh and Viswanath
(``dp_accounting.pld.accountant.advanced_composition``, which answers at the breakpoints only), and the
PLD accountant for k-fold composition of an (eps, delta)-DP pair (``from_privacy_parameters``), up to
k = 10^6, delta = 1e-12, eps = 1e-4. Where the peer goes wrong, a 30-digit mpmath sum decides, and the
test pins the peer's error (``test_peer_*``).

Tolerances, and why:

* RDP: 1e-13 relative. Both compute the same closed form at the same orders (orders > 1.01: the peer
  skips 1.01 and below, pinned below); the only difference is rounding.
* optimal composition against the peer's breakpoints: none. The peer returns the smallest breakpoint
  (k - 2i) eps whose delta meets the target; the exact epsilon lies in the gap (peer - 2 eps, peer].
* PLD: the pessimistic estimate must not be below the exact epsilon (it is an upper bound); 1e-9
  relative for the exact one's documented accuracy at k = 10^6.
"""

from __future__ import annotations

import logging
import math

import dp_accounting as dpa
import mpmath as mp
import numpy as np
import pytest
from dp_accounting.pld import accountant as peer_accountant
from dp_accounting.pld import common as peer_common
from dp_accounting.pld import privacy_loss_distribution as peer_pld
from dp_accounting.rdp import rdp_privacy_accountant as peer_rdp
from scipy import optimize

import profiles
from dpnotes import composition as comp
from dpnotes import divergences, loss

logging.getLogger().setLevel(logging.ERROR)

ORDERS = np.concatenate([np.linspace(1.02, 8, 50), np.arange(8.5, 64, 0.5), np.geomspace(64, 1e4, 40)])


# ---------------------------------------------------------------- RDP
@pytest.mark.parametrize("sigma, k, delta", [(1.0, 1, 1e-5), (0.7, 1000, 1e-12), (5.0, 10**6, 1e-12),
                                             (50.0, 10**6, 1e-5), (1e3, 10**6, 1e-12), (0.3, 10, 0.1)])
def test_rdp_to_dp_agrees_with_the_rdp_accountant(sigma, k, delta):
    acc = peer_rdp.RdpAccountant(list(ORDERS))
    acc.compose(dpa.GaussianDpEvent(sigma), k)
    curve = k * np.array([divergences.gaussian_renyi(a, 1 / sigma) for a in ORDERS])
    ours = comp.rdp_to_dp(ORDERS, curve, delta)
    assert ours == pytest.approx(acc.get_epsilon(delta), rel=1e-13, abs=0)
    # both are sound: never below the exact epsilon of the k-fold Gaussian (mu = sqrt(k)/sigma)
    assert loss.gaussian_epsilon(delta, math.sqrt(k) / sigma) <= ours


def test_gaussian_renyi_agrees_with_the_peers_gaussian_rdp():
    acc = peer_rdp.RdpAccountant(list(ORDERS))
    acc.compose(dpa.GaussianDpEvent(1.7), 3)
    assert np.allclose(acc._rdp, 3 * np.array([divergences.gaussian_renyi(a, 1 / 1.7) for a in ORDERS]),
                       rtol=1e-14, atol=0)


def test_peer_rdp_accountant_ignores_orders_up_to_1_01():
    """dp-accounting 0.6 uses an order only if it is > 1.01 ("not numerically stable as alpha -> 1"):
    with 1.01 alone it answers inf. At 1.01 the improved conversion is a sum of three well-conditioned
    terms; ours uses it, and the value is valid (above the exact epsilon of the Gaussian)."""
    acc = peer_rdp.RdpAccountant([1.01])
    acc.compose(dpa.GaussianDpEvent(5.0), 10**6)
    assert acc.get_epsilon(1e-12) == math.inf
    ours = comp.rdp_to_dp([1.01], [10**6 * 1.01 / 50], 1e-12)
    assert math.isfinite(ours) and loss.gaussian_epsilon(1e-12, 200.0) <= ours


@pytest.mark.parametrize("rho, delta", [(1e-6, 1e-12), (0.01, 1e-5), (0.5, 1e-300), (30.0, 0.3), (1e4, 1e-12)])
def test_zcdp_to_dp_is_the_best_real_order_of_the_classic_conversion(rho, delta):
    """Independent route: minimize rho a + log(1/delta)/(a - 1) over real a > 1 numerically (scipy,
    bounded Brent on log(a - 1), xatol 1e-12: the minimum is flat, so the value agrees to 1e-12)."""
    f = lambda t: rho * (1 + math.exp(t)) + math.log(1 / delta) / math.exp(t)   # noqa: E731  a = 1 + e^t
    best = optimize.minimize_scalar(f, bounds=(-40, 40), method="bounded", options={"xatol": 1e-12})
    assert comp.zcdp_to_dp(rho, delta) == pytest.approx(best.fun, rel=1e-12, abs=0)


# ---------------------------------------------------------------- optimal composition
OPT_GRID = [(0.1, 10, 0.0, 1e-5), (0.5, 50, 1e-6, 1e-4), (1.0, 100, 0.0, 1e-6), (0.01, 1000, 0.0, 1e-6),
            (1e-4, 500, 0.0, 1e-12), (2.0, 30, 1e-3, 0.05), (0.3, 7, 0.0, 0.2)]


@pytest.mark.parametrize("eps, k, d0, total", OPT_GRID)
def test_optimal_lies_in_the_breakpoint_gap_of_the_peer(eps, k, d0, total):
    peer = peer_accountant.advanced_composition(peer_common.DifferentialPrivacyParameters(eps, d0), k, total)
    ours = comp.optimal(eps, k, total, d0)
    assert peer - 2 * eps < ours <= peer * (1 + 1e-12)


def test_peer_optimal_composition_overflows_past_k_eps_709():
    """The peer sums binom(k, l) e^{eps (k - l)} in plain floats: at eps = 1, k = 800 that is e^800,
    an OverflowError. Ours works in log space (and the answer obeys the breakpoint bracket of k = 700)."""
    with pytest.raises(OverflowError):
        peer_accountant.advanced_composition(peer_common.DifferentialPrivacyParameters(1.0, 0.0), 800, 1e-5)
    ours = comp.optimal(1.0, 800, 1e-5)
    assert 0 < ours < 800 and comp.optimal_delta(1.0, 800, ours) <= 1e-5 * (1 + 1e-9)


def _mp_optimal_delta(eps, k, eps_prime):
    """The exact profile of k-fold randomized response at 30 digits, summed term by term (ratio recursion)
    over l >= l0 = mode - 20 sqrt(k) (more than 40 standard deviations): by Hoeffding the masses below l0
    sum to less than exp(-2 (20 sqrt(k))^2 / k) = e^-800, far below the 30 digits kept."""
    with mp.workdps(30):
        e, ep = mp.mpf(eps), mp.mpf(eps_prime)
        p, q = mp.e ** e / (1 + mp.e ** e), 1 / (1 + mp.e ** e)
        l0 = max(0, int(k * q) - 20 * math.isqrt(k) - 1)
        total, a = mp.mpf(0), mp.binomial(k, l0) * p ** (k - l0) * q**l0
        for l in range(l0, k + 1):
            loss_l = (k - 2 * l) * e
            if loss_l <= ep:
                break
            total += a * (1 - mp.e ** (ep - loss_l))
            a = a * (k - l) / (l + 1) * q / p
        return total


PLD_OPT_GRID = [(0.1, 1000, 1e-9, 1e-5), (1e-3, 10**5, 0.0, 1e-6), (0.05, 10**4, 0.0, 1e-12)]


@pytest.mark.parametrize("eps, k, d0, total", PLD_OPT_GRID[: profiles.size(fast=2, thorough=len(PLD_OPT_GRID))])
def test_pld_accountant_is_above_the_exact_optimal_composition(eps, k, d0, total):
    pld = peer_pld.from_privacy_parameters(peer_common.DifferentialPrivacyParameters(eps, d0),
                                           value_discretization_interval=1e-4).self_compose(k)
    peer = pld.get_epsilon_for_delta(total)
    ours = comp.optimal(eps, k, total, d0)
    assert ours <= peer * (1 + 1e-9)
    assert peer - ours < 0.01 * ours                    # and close: the discretization costs < 1 % here


def test_peer_pld_underreports_epsilon_at_a_million_steps():
    """eps = 1e-4, k = 10^6, delta = 1e-12: dp-accounting's pessimistic PLD (interval 1e-4) answers
    eps' = 0.6115, where the exact profile (30-digit mpmath sum) is 1.02e-11, ten times the target: the
    peer's bound is not an upper bound there. Ours, 0.64701, meets delta to its documented 1e-16 k log k
    (1.1e-9 here; 1e-8 asserted)."""
    pld = peer_pld.from_privacy_parameters(peer_common.DifferentialPrivacyParameters(1e-4, 0.0),
                                           value_discretization_interval=1e-4).self_compose(10**6)
    peer = pld.get_epsilon_for_delta(1e-12)
    ours = comp.optimal(1e-4, 10**6, 1e-12)
    assert peer < 0.62 < 0.647 < ours < 0.6471
    assert _mp_optimal_delta(1e-4, 10**6, peer) > 10 * 1e-12
    assert float(_mp_optimal_delta(1e-4, 10**6, ours)) == pytest.approx(1e-12, rel=1e-8, abs=0)
    assert comp.optimal_delta(1e-4, 10**6, peer) == pytest.approx(float(_mp_optimal_delta(1e-4, 10**6, peer)),
                                                                   rel=2e-9, abs=0)
