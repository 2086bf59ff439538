"""Property tests of dpnotes.concentration over the whole documented domain (Hypothesis).

The bounds must hold for the exact laws they are applied to: the privacy loss of k randomized
responses is eps (2B - k) with B ~ Binomial(k, e^eps/(1+e^eps)), whose exact tail (scipy.stats.binom)
must lie below Azuma's and Hoeffding's bounds for every eps, k and deviation. Both bounds are one
formula seen twice (steps in [-c, c] are summands in an interval of length 2c), which is checked too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpnotes import concentration as conc
from dpnotes.mechanisms import rr_keep_probability

U = np.finfo(float).eps
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")   # valid input must not make numpy warn


def logu(lo, hi):
    return st.one_of(st.sampled_from([lo, hi]), st.floats(math.log(lo), math.log(hi)).map(math.exp)).map(
        lambda x: min(max(x, lo), hi))


@given(eps=logu(1e-4, 20.0), k=st.integers(1, 10**6), t=st.floats(0.0, 1.0))
def test_azuma_and_hoeffding_bound_the_exact_tail_of_the_rr_privacy_loss(eps, k, t):
    """Pr[L - E[L] >= tau] for L = eps (2B - k): the exact binomial tail (scipy) is below both bounds.
    tau = t * (the largest possible deviation); tolerance 1e-12 relative for the binomial tail."""
    p = rr_keep_probability(eps)
    mean = k * eps * math.tanh(eps / 2)                # E[L] = k eps (2p - 1)
    tau = t * (k * eps - mean)
    # L >= mean + tau  <=>  B >= (k + (mean + tau)/eps)/2
    b_min = math.ceil((k + (mean + tau) / eps) / 2 - 1e-9)
    exact = float(stats.binom.sf(b_min - 1, k, p))
    az = conc.azuma_bound(tau, np.full(min(k, 10**6), eps)) if k <= 10**5 else math.exp(-tau * tau / (2 * k * eps * eps))
    ho = conc.hoeffding_bound(tau, k, -eps, eps)
    assert exact <= ho * (1 + 1e-12) + 1e-300
    assert az == pytest.approx(ho, rel=1e-12, abs=0)


@given(t=st.lists(st.floats(0.0, 1e6), min_size=1, max_size=5), c=st.lists(logu(1e-6, 1e3), min_size=1, max_size=50))
def test_azuma_is_a_tail_bound_shape(t, c):
    """In (0, 1]; 1 at t = 0; non-increasing in t; non-decreasing in every c_i; vectorized over t."""
    c = np.array(c)
    out = conc.azuma_bound(np.array(t), c)
    assert out.shape == (len(t),) and np.all((out >= 0) & (out <= 1))
    order = np.argsort(t)
    assert np.all(np.diff(out[order]) <= 0)
    assert conc.azuma_bound(0.0, c) == 1.0
    assert np.all(conc.azuma_bound(np.array(t), c * 1.5) >= out)
    for ti, oi in zip(t, out):
        assert conc.azuma_bound(ti, c) == oi


@given(tau=st.floats(0.0, 1e6), n=st.integers(1, 10**9), a=st.floats(-1e6, 1e6), width=logu(1e-6, 1e6))
def test_hoeffding_depends_only_on_the_width_and_is_monotone(tau, n, a, width):
    b = a + width
    h = conc.hoeffding_bound(tau, n, a, b)
    assert 0.0 <= h <= 1.0
    assert h == pytest.approx(conc.hoeffding_bound(tau, n, 0.0, b - a), rel=1e-9, abs=0)   # b - a rounds once
    assert conc.hoeffding_bound(tau, n + 1, a, b) >= h
    assert conc.hoeffding_bound(tau * 1.5 + 1.0, n, a, b) <= h


@given(eps=logu(1e-4, 30.0), k=st.integers(1, 200), n=st.integers(1, 50), seed=st.integers(0, 2**32 - 1))
def test_rr_loss_paths_are_coupled_to_the_uniforms(eps, k, n, seed):
    """Non-adaptive: step i is +eps exactly when the i-th uniform of the same seed is below p."""
    loss, comp = conc.rr_loss_paths(eps, k, n, np.random.default_rng(seed))
    u = np.random.default_rng(seed).random((n, k))
    steps = np.where(u < rr_keep_probability(eps), eps, -eps)
    assert np.array_equal(loss, steps.sum(axis=1))
    assert np.all(comp == k * eps * math.tanh(eps / 2))
    assert np.all(np.abs(loss) <= k * eps * (1 + 1e-12))


@given(eps=logu(1e-4, 30.0), k=st.integers(1, 60), n=st.integers(1, 30), seed=st.integers(0, 2**32 - 1))
def test_adaptive_rr_loss_paths_step_sizes_and_compensator(eps, k, n, seed):
    """Adaptive: each step is +-eps_i with eps_i = eps after a 1 (and first), eps/2 after a 0; the
    compensator adds eps_i tanh(eps_i/2). Replayed step by step on the same uniforms."""
    loss, comp = conc.rr_loss_paths(eps, k, n, np.random.default_rng(seed), adaptive=True)
    u = np.random.default_rng(seed).random((n, k))
    for row in range(n):
        e_i, total, mean = eps, 0.0, 0.0
        for i in range(k):
            one = u[row, i] < 1.0 / (1.0 + math.exp(-e_i))
            total += e_i if one else -e_i
            mean += e_i * math.tanh(e_i / 2)
            e_i = eps if one else eps / 2
        assert loss[row] == pytest.approx(total, rel=1e-12, abs=1e-12 * k * eps)
        assert comp[row] == pytest.approx(mean, rel=1e-12, abs=0)
