"""Differential tests of dpnotes.subsampling against Google's dp-accounting (test-only dependency).

dp-accounting's PLD accountant discretizes the same pairs by connect-the-dots (pessimistic)
on a fixed mesh h and composes by FFT: it converges to the true epsilon from above as h^2
(checked below on its own values). Its converged value is estimated by Richardson
extrapolation from h and h/2, conv = e(h/2) - (e(h) - e(h/2)) / 3; the extrapolation's own
uncertainty is a fraction of e(h) - e(h/2), and each tolerance below adds a tenth of it.

Tolerances: ours is an upper bound within a relative 1e-4 of the true epsilon, so
conv (1 - slack) <= ours <= conv (1 + 1e-4 + slack), slack = 0.1 (e(h) - e(h/2)) / conv.
RDP: both compute the same series, relative 1e-8.

The training-scale cases of issue 22 need dp-accounting at meshes of 5e-6 with 1e5 to 1e6
steps (20 s to 5 min each), so the fast profile compares with its values measured on this
machine (the command is in _measured) and the thorough profile (make verify) measures them again.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from dpnotes import subsampling as sub
from profiles import THOROUGH

from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.privacy_accountant import NeighboringRelation
from dp_accounting.rdp import rdp_privacy_accountant

# the true epsilon at the training-scale cases, by Laplace inversion (benchmarks/truth_subsampling.py)
TRUE = {(p["q"], p["sigma"], p["steps"], p["delta"]): p["true_epsilon"] for p in json.loads(
    (Path(__file__).resolve().parents[1] / "chapters" / "learning" / "accountant-truth.json").read_text())["points"]
    if p["kind"] == "training"}
RELATION = {"add_remove": NeighboringRelation.ADD_OR_REMOVE_ONE, "replace_one": NeighboringRelation.REPLACE_ONE}


def _measured(q, sigma, steps, delta, h, relation="add_remove"):
    """dp-accounting's pessimistic PLD epsilon at mesh ``h``."""
    acc = pld_privacy_accountant.PLDAccountant(RELATION[relation], value_discretization_interval=h)
    acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)
    return acc.get_epsilon(delta)


def _richardson(e_h, e_h2):
    return e_h2 - (e_h - e_h2) / 3, 0.1 * abs(e_h - e_h2)


# ---------------------------------------------------------------- training scale (issue 22)
# dp-accounting at h and h/2, measured with _measured(...) on this machine (2026-11, dp-accounting 0.4.4)
TRAINING = [
    # q, sigma, T, delta, h, e(h), e(h/2), the old accountant's value (issue 22), RDP
    (1e-4, 0.8, 100_000, 1e-5, 1e-5, 0.2057412214925561, 0.20570637088798596, 4.82, 0.839),
    (1e-4, 1.0, 100_000, 1e-5, 1e-5, 0.131940147817439, 0.13188925020410147, 1.018, 0.482),
    (5e-5, 0.7, 1_000_000, 1e-5, 1e-5, 0.4591782646421313, 0.4589967110585405, None, None),
]


@pytest.mark.parametrize("q, sigma, steps, delta, h, e_h, e_h2, old, rdp", TRAINING)
def test_training_scale_within_1e_4_of_the_converged_pld(q, sigma, steps, delta, h, e_h, e_h2, old, rdp):
    if THOROUGH:        # measure the peer again instead of trusting the stored values
        e_h, e_h2 = _measured(q, sigma, steps, delta, h), _measured(q, sigma, steps, delta, h / 2)
    conv, unc = _richardson(e_h, e_h2)
    ours = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta)
    assert conv - unc <= ours <= conv * (1 + 1e-4) + unc
    true = TRUE[(q, sigma, steps, delta)]                # and against the truth, which needs no extrapolation
    assert true <= ours <= true * (1 + 1e-4)
    assert ours < sub.subsampled_gaussian_rdp_epsilon(q, sigma, steps, delta)
    if old is not None:
        assert ours < rdp < old          # the old value was above even the moments accountant


def test_the_peer_converges_as_h_squared_on_the_stored_values():
    # 2e-5, 1e-5, 5e-6 for the third case: successive differences shrink by ~4 (h^2), which is
    # what makes the Richardson estimate valid; e(2e-5) measured with _measured as above
    e = [0.45988711048966585, 0.4591782646421313, 0.4589967110585405]
    assert 3.5 < (e[0] - e[1]) / (e[1] - e[2]) < 4.5
    conv_a, _ = _richardson(e[0], e[1])
    conv_b, _ = _richardson(e[1], e[2])
    assert abs(conv_a / conv_b - 1) < 2e-5


# ---------------------------------------------------------------- a grid that reaches the box's edges
GRID = [
    (0.3, 0.8, 2, 1e-4), (0.05, 2.0, 50, 1e-6), (0.01, 1.0, 1000, 1e-5), (0.1, 5.0, 300, 1e-8),
    (1e-3, 1.5, 1000, 1e-12), (0.5, 0.6, 20, 0.1), (0.9, 0.4, 10, 1e-3), (1e-3, 100.0, 1000, 1e-6),
]
# Three thorough points were pinned here as open findings (make verify, 2026-11-25), where
# dp-accounting's value extrapolated from two meshes lay above the book's accountant. The
# independent route of test_subsampling_inversion.py (Laplace inversion, no discretization)
# settled them: the book's accountant is above the true epsilon by 1.1e-5, 1.4e-5 and 1.6e-5
# relative; the peer was pre-asymptotic at (1e-4, 0.5, 1e5, 1e-9) and then, at meshes under
# 1e-5, fell below the truth (pinned there); at (0.7, 1.0, 1000, 0.05) replace-one it stays at
# 859.78 against the true 858.80 at every mesh tried; at (1e-5, 1.0, 1e6, 1e-6) it gives 0.15 to
# 0.21 against 0.0452. They are compared with the truth there, not with the peer here.
GRID_THOROUGH = [(1e-6, 3.0, 1000, 1e-12), (2e-3, 0.4, 1000, 1e-5), (0.02, 20.0, 10_000, 1e-10)]


@pytest.mark.parametrize("relation", sub.RELATIONS)
@pytest.mark.parametrize("q, sigma, steps, delta", GRID + (GRID_THOROUGH if THOROUGH else []))
def test_agrees_with_dp_accounting_pld(q, sigma, steps, delta, relation):
    ours = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
    # the peer converges as h^2 only once h is small against the loss's scale: 4e-3 of epsilon,
    # and at most 2.5e-3 (at epsilon ~ 10, a mesh of 0.04 is still pre-asymptotic)
    h = max(min(ours * 4e-3, 2.5e-3), 1e-7)
    conv, unc = _richardson(_measured(q, sigma, steps, delta, h, relation),
                            _measured(q, sigma, steps, delta, h / 2, relation))
    assert conv - unc <= ours <= conv * (1 + 1e-4) + unc


# ---------------------------------------------------------------- where the peer goes wrong
def test_the_peers_failure_at_a_fine_mesh_is_pinned():
    # reported in issue 22: dp-accounting's pessimistic PLD for q = 5e-5, sigma = 0.7, T = 1e6,
    # delta = 1e-5 gives 0.4599, 0.4592, 0.4590 at meshes 2e-5, 1e-5, 5e-6 and then 9.33 at
    # 2.5e-6 (measured here: 9.326418565550334, 5 minutes). The finer mesh must only move it
    # down; the jump is the peer's, not the mechanism's: ours stays within 1e-4 of the
    # converged 0.45894, and so does the peer at the coarser meshes.
    # (ours at the same point: test_training_scale_within_1e_4_of_the_converged_pld)
    measured = 9.326418565550334 if not THOROUGH else _measured(5e-5, 0.7, 1_000_000, 1e-5, 2.5e-6)
    conv, _ = _richardson(0.4591782646421313, 0.4589967110585405)
    assert measured > 20 * conv                       # the peer's value is wrong by a factor 20


# ---------------------------------------------------------------- Renyi DP
@pytest.mark.parametrize("q, sigma", [(1e-6, 0.4), (1e-3, 1.1), (0.05, 0.6), (0.3, 3.0), (0.99, 100.0), (1.0, 0.7)])
def test_rdp_agrees_with_dp_accounting_at_integer_orders_and_bounds_its_fractional_ones(q, sigma):
    # integer orders: the same finite binomial sum, to 1e-10. Fractional orders: dp-accounting's
    # series is conservative and loses accuracy near order 1 (up to a few per cent, or inf); ours is
    # checked against quadrature in test_subsampling.py and below; here: never above theirs.
    ints = np.array([2.0, 3.0, 8.0, 16.0, 32.0, 64.0])
    theirs = rdp_privacy_accountant._compute_rdp_poisson_subsampled_gaussian(q, sigma, ints)
    assert np.allclose(sub.subsampled_gaussian_rdp(q, sigma, ints), theirs, rtol=1e-10, atol=1e-300)
    fracs = np.array([1.25, 1.5, 4.75, 10.5])
    theirs = rdp_privacy_accountant._compute_rdp_poisson_subsampled_gaussian(q, sigma, fracs)
    assert np.all(sub.subsampled_gaussian_rdp(q, sigma, fracs) <= theirs * (1 + 1e-8))
    # the (epsilon, delta) conversion over integer orders: both use the "improved" conversion
    acc = rdp_privacy_accountant.RdpAccountant(list(ints))
    acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), 1000)
    assert sub.subsampled_gaussian_rdp_epsilon(q, sigma, 1000, 1e-6, orders=ints) == pytest.approx(
        acc.get_epsilon(1e-6), rel=1e-6)


@pytest.mark.parametrize("q, sigma, alpha, off", [(1e-6, 0.4, 1.25, 0.03), (1e-6, 0.4, 1.5, 0.02),
                                                  (0.99, 100.0, 1.25, 0.004), (0.05, 0.6, 1.25, None)])
def test_the_peers_fractional_order_rdp_near_one_is_pinned(q, sigma, alpha, off):
    # dp-accounting's fractional-order series near order 1: 3.8 % too high at q = 1e-6,
    # sigma = 0.4, alpha = 1.25 (3.26498586e-10 against 3.14492783e-10), inf at q = 0.05,
    # sigma = 0.6. The truth, by 30-digit mpmath quadrature of (1/(alpha-1)) log E_P[(Q/P)^alpha],
    # sides with ours to 1e-8.
    import mpmath as mp

    mp.mp.dps = 30
    qm, s, a = mp.mpf(q), mp.mpf(sigma), mp.mpf(alpha)
    f = lambda y: mp.npdf(y, 0, s) * ((1 - qm) + qm * mp.exp((2 * y - 1) / (2 * s**2))) ** a   # noqa: E731
    pts = [-40 * s, -5 * s, 0, 0.5, 1, 1 + 5 * s, 1 + 5 * a * s + 5, 1 + 40 * s + 10 * a]
    exact = float(mp.log(mp.quad(f, pts, maxdegree=10)) / (a - 1))
    assert sub.subsampled_gaussian_rdp(q, sigma, alpha) == pytest.approx(exact, rel=1e-8, abs=0)
    theirs = float(rdp_privacy_accountant._compute_rdp_poisson_subsampled_gaussian(q, sigma, [alpha])[0])
    if off is None:
        assert theirs == np.inf
    else:
        assert exact * (1 + off) < theirs < exact * (1 + 2 * off)
