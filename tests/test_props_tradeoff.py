"""Property tests of dpnotes.tradeoff (the hypothesis-testing view) over its documented domain.

The properties tie the three views together for arbitrary discrete pairs: every deterministic test's
errors lie on or above the Neyman-Pearson curve (whose vertices are themselves achieved), every test
of an (eps, delta)-indistinguishable pair (delta the exact hockey-stick divergence) lies in the privacy
region, and the region's lower boundary is a symmetric, convex, non-increasing trade-off function.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import profiles
from dpnotes import loss, tradeoff

U = np.finfo(float).eps
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")   # valid input must not make numpy warn


def logu(lo, hi):
    return st.one_of(st.sampled_from([lo, hi]), st.floats(math.log(lo), math.log(hi)).map(math.exp)).map(
        lambda x: min(max(x, lo), hi))


@st.composite
def pairs(draw, max_m=7):
    m = draw(st.integers(1, max_m))
    mass = st.one_of(st.just(0.0), st.floats(1e-300, 1.0), logu(1e-300, 1.0))
    p = np.array(draw(st.lists(mass, min_size=m, max_size=m)))
    q = np.array(draw(st.lists(mass, min_size=m, max_size=m)))
    assume(p.sum() > 0 and q.sum() > 0)
    return p / p.sum(), q / q.sum()


@settings(max_examples=profiles.size(fast=40, thorough=500))
@given(pq=pairs())
def test_every_test_lies_on_or_above_the_neyman_pearson_curve(pq):
    p, q = pq
    errs = tradeoff.error_pairs(p, q)
    a, b = tradeoff.optimal_tradeoff(p, q)
    assert a[0] == 0.0 and b[0] == 1.0 and a[-1] == pytest.approx(1.0, abs=8 * U) and b[-1] == pytest.approx(0.0, abs=8 * U)
    assert np.all(np.diff(a) >= 0) and np.all(np.diff(b) <= 0)
    assert np.all((errs >= 0) & (errs <= 1))
    curve = np.interp(errs[:, 0], a, b)
    assert np.all(errs[:, 1] >= curve - 16 * U)
    # every vertex is a deterministic test (reject the outcomes with the largest ratios q/p)
    for x, y in zip(a, b):
        assert np.min(np.abs(errs[:, 0] - x) + np.abs(errs[:, 1] - y)) <= 16 * U


@settings(max_examples=profiles.size(fast=40, thorough=300))
@given(pq=pairs(), eps=st.one_of(st.just(0.0), logu(1e-6, 20.0)))
def test_every_test_of_an_eps_delta_pair_lies_in_the_privacy_region(pq, eps):
    """With delta the larger hockey-stick divergence of the pair at eps (Kairouz-Oh-Viswanath,
    Theorem 2.1): all error pairs are in the region, and on the region's boundary somewhere (tight)."""
    p, q = pq
    delta = max(loss.hockey_stick(p, q, eps), loss.hockey_stick(q, p, eps))
    assume(delta < 1.0 - 1e-9)
    errs = tradeoff.error_pairs(p, q)
    assert tradeoff.in_privacy_region(errs[:, 0], errs[:, 1], eps, delta, tol=32 * U).all()
    bound = tradeoff.region_lower_boundary(errs[:, 0], eps, delta)
    assert np.all(errs[:, 1] >= bound - 32 * U)
    # tight: with a slightly smaller delta some test leaves the region (unless delta is 0 already)
    if delta > 1e-9:
        assert not tradeoff.in_privacy_region(errs[:, 0], errs[:, 1], eps, delta * (1 - 1e-6) - 1e-12, tol=0).all()


@given(eps=st.one_of(st.just(0.0), logu(1e-8, 50.0)), delta=st.one_of(st.just(0.0), logu(1e-12, 0.999)),
       alpha=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_region_lower_boundary_is_a_symmetric_convex_tradeoff_function(eps, delta, alpha):
    a = np.sort(np.array(alpha))
    f = tradeoff.region_lower_boundary(a, eps, delta)
    assert f.shape == a.shape and np.all((f >= 0) & (f <= 1))
    assert np.all(np.diff(f) <= 4 * U)                             # non-increasing
    # f(alpha) <= 1 - alpha (no test is better than... a coin), f(0) = 1 - delta
    assert np.all(f <= 1 - a + 4 * U)
    assert tradeoff.region_lower_boundary([0.0], eps, delta)[0] == pytest.approx(1 - delta, abs=4 * U)
    # symmetric: the region is closed under swapping the two errors, so f(f(alpha)) <= alpha ...
    ff = tradeoff.region_lower_boundary(np.clip(f, 0, 1), eps, delta)
    assert np.all(ff <= a + 1e-12)
    # ... and convex: the midpoint lies on or below the chord
    mid = tradeoff.region_lower_boundary((a[:-1] + a[1:]) / 2, eps, delta)
    assert np.all(mid <= (f[:-1] + f[1:]) / 2 + 1e-12)
    # the boundary is in the region, and a point 1e-6 below it (where it is above 1e-6) is not
    assert tradeoff.in_privacy_region(a, f, eps, delta, tol=1e-12).all()
    inside = f > 1e-6
    if inside.any():
        assert not tradeoff.in_privacy_region(a[inside], f[inside] - 1e-6, eps, delta, tol=0).any()


@given(eps=logu(1e-8, 50.0), delta=logu(1e-12, 0.9), alpha=st.floats(0.0, 1.0), g=st.floats(1.0, 5.0))
def test_region_lower_boundary_falls_with_epsilon_and_delta(eps, delta, alpha, g):
    f = tradeoff.region_lower_boundary([alpha], eps, delta)[0]
    assert tradeoff.region_lower_boundary([alpha], eps * g, delta)[0] <= f + 4 * U
    assert tradeoff.region_lower_boundary([alpha], eps, min(delta * g, 0.999))[0] <= f + 4 * U
