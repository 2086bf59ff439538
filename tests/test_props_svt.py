"""Property tests of dpnotes.svt over the documented domain (Hypothesis).

The exact laws are integrals (quad), so their searches are small in the fast profile and larger in
the thorough one. Properties: the exact output laws are laws (sum to one); AboveThreshold and Sparse
are eps-DP on every pair of neighbouring answer streams (Theorems 3.23 and 3.25, the book's claim);
the accuracy theorem's alpha meets its beta on the hardest stream for every k up to a million; the
samplers are the algorithm on the noise of their seed (coupling); the budget and accuracy formulas
are monotone and agree where they must (c = 1 is AboveThreshold; the advanced per-query epsilon
round-trips through composition.advanced).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate

import profiles
from dpnotes import composition, svt

U = np.finfo(float).eps
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")   # valid input must not make numpy warn


def logu(lo, hi):
    return st.one_of(st.sampled_from([lo, hi]), st.floats(math.log(lo), math.log(hi)).map(math.exp)).map(
        lambda x: min(max(x, lo), hi))


EPS = logu(1e-3, 20.0)
SLOW = settings(max_examples=profiles.size(fast=8, thorough=80))


@st.composite
def neighbours(draw, max_k=3):
    """Answers on D within 20/eps of the threshold 0, and answers on D' within 1 of them."""
    eps = draw(logu(0.05, 10.0))
    k = draw(st.integers(1, max_k))
    a = np.array(draw(st.lists(st.floats(-20 / eps, 20 / eps), min_size=k, max_size=k)))
    d = np.array(draw(st.lists(st.floats(-1.0, 1.0), min_size=k, max_size=k)))
    return eps, a, a + d


# ---------------------------------------------------------------- exact laws and privacy
@SLOW
@given(nb=neighbours(), threshold=st.floats(-5.0, 5.0))
def test_above_threshold_law_sums_to_one_and_is_eps_dp(nb, threshold):
    """Each probability is a quad integral with relative tolerance 1e-11: the law sums to one within
    1e-9, and the largest log-ratio on neighbours is at most eps up to 1e-9 (Theorem 3.23)."""
    eps, a, b = nb
    lp = svt.output_log_probabilities(a, threshold, eps)
    assert lp.shape == (a.size + 1,) and math.fsum(np.exp(lp)) == pytest.approx(1.0, abs=1e-9)
    assert svt.max_log_ratio(a, b, threshold, eps) <= eps * (1 + 1e-9) + 1e-9


@SLOW
@given(nb=neighbours(max_k=3), c=st.integers(1, 2), refresh=st.just(True))
def test_sparse_law_sums_to_one_and_is_eps_dp(nb, c, refresh):
    eps, a, b = nb
    outs, lp = svt.sparse_output_log_probabilities(a, 0.0, eps, c, refresh=refresh)
    assert math.fsum(np.exp(lp)) == pytest.approx(1.0, abs=1e-9)
    assert len({tuple(r) for r in outs}) == len(outs)
    assert svt.sparse_max_log_ratio(a, b, 0.0, eps, c, refresh=refresh) <= eps * (1 + 1e-9) + 1e-9


@settings(max_examples=profiles.size(fast=10, thorough=100))
@given(nb=neighbours(), threshold=st.floats(-5.0, 5.0), e=st.integers(-900, 900))
def test_laws_and_ratios_are_the_same_at_every_scale_of_the_float_range(nb, threshold, e):
    """Multiplying the answers, the threshold and both noise scales by 2^e (exact in floating point) leaves
    AboveThreshold's law unchanged: from 2^-900 (scales near 1e-271) to 2^900 the exact law sums to one and
    equals the unscaled one to 1e-9, and so do the log-ratios on neighbours (for e <= 0, where the scaled
    neighbours are still within 1). The integrator before works in absolute positions and failed both."""
    eps, a, b = nb
    s = 2.0 ** e
    kw = dict(threshold_scale=2.0 / eps, query_scale=4.0 / eps)
    scaled = dict(threshold_scale=2.0 / eps * s, query_scale=4.0 / eps * s)
    lp = svt.output_log_probabilities(a, threshold, eps, **kw)
    ls = svt.output_log_probabilities(a * s, threshold * s, eps, **scaled)
    assert math.fsum(np.exp(ls)) == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(ls, lp, rtol=0, atol=1e-9)
    if e <= 0:
        r = svt.max_log_ratio(a, b, threshold, eps, **kw)
        assert svt.max_log_ratio(a * s, b * s, threshold * s, eps, **scaled) == pytest.approx(r, abs=1e-9)


@settings(max_examples=profiles.size(fast=4, thorough=20))        # a quadrature of quadratures
@given(answers=st.lists(st.floats(-10.0, 10.0), min_size=1, max_size=2), eps=logu(0.1, 5.0))
def test_reused_noise_density_integrates_to_the_probability_of_its_pattern(answers, eps):
    """The density of "bottom for all but the last, then the last released as the noisy answer v that was
    compared" (value_scale=None), integrated over v, is Pr[bottom^(k-1) top] of AboveThreshold: the
    two exact computations (one with the upper limit t < v, one without) agree. Nested quadratures with
    relative tolerances 1e-11 (inner) and 1e-9 (outer): 1e-7."""
    a = np.array(answers)
    b_t, b_q = 2 / eps, 4 / eps
    p = math.exp(svt.output_log_probabilities(a, 0.0, eps)[a.size - 1])
    dens = lambda v: math.exp(svt.numeric_log_density(a, 0.0, v, threshold_scale=b_t, query_scale=b_q))  # noqa: E731
    pts = sorted({a[-1], 0.0})
    total = sum(integrate.quad(dens, lo, hi, epsabs=0, epsrel=1e-9, limit=200)[0]
                for lo, hi in zip([-math.inf, *pts], [*pts, math.inf]))
    assert total == pytest.approx(p, rel=1e-7, abs=0)


# ---------------------------------------------------------------- accuracy
@settings(max_examples=profiles.size(fast=15, thorough=150))
@given(k=st.one_of(st.sampled_from([1, 10**6]), logu(1.0, 1e6).map(lambda x: int(round(x)))),
       eps=EPS, beta=logu(1e-9, 0.9))
def test_theorem_alpha_meets_beta_on_the_hardest_stream(k, eps, beta):
    """Theorem 3.24: with alpha = 8 (log k + log(2/beta))/eps, the exact failure probability on the
    hardest stream allowed is at most beta. The failure probability is one minus a success probability
    integrated to 1e-11 relative: it is known to 1e-11 absolute (documented), the tolerance here."""
    alpha = svt.accuracy_alpha(k, eps, beta)
    fail = svt.accuracy_failure_probability(k, eps, alpha)
    assert 0.0 <= fail <= beta + 1e-11


@given(k=st.integers(1, 10**9), eps=EPS, beta=logu(1e-12, 0.99), f=st.floats(1.0, 10.0))
def test_accuracy_alpha_is_monotone_and_scales_with_one_over_epsilon(k, eps, beta, f):
    a = svt.accuracy_alpha(k, eps, beta)
    assert a > 0
    assert svt.accuracy_alpha(k, eps * f, beta) == pytest.approx(a / f, rel=4 * U, abs=0)
    assert svt.accuracy_alpha(k + 1, eps, beta) >= a
    assert svt.accuracy_alpha(k, eps, min(beta * f, 0.99)) <= a


@given(k=st.integers(1, 10**9), eps=EPS, beta=logu(1e-12, 0.99), c=st.integers(1, 1000),
       delta=st.one_of(st.just(0.0), logu(1e-12, 0.5)))
def test_sparse_and_numeric_sparse_alphas(k, eps, beta, c, delta):
    """c = 1 without delta is AboveThreshold's alpha; more tops cost more; NumericSparse's alpha is at
    least the alpha of its own Sparse part; its budget split spends eps1 + eps2/2 = eps."""
    assert svt.sparse_alpha(k, eps, beta, 1) == pytest.approx(svt.accuracy_alpha(k, eps, beta), rel=4 * U, abs=0)
    s = svt.sparse_alpha(k, eps, beta, c, delta)
    assert svt.sparse_alpha(k, eps, beta, c + 1, delta) >= s
    e1, e2 = svt.numeric_sparse_epsilons(eps, delta)
    assert e1 + e2 / 2 == pytest.approx(eps, rel=4 * U, abs=0)
    assert svt.numeric_sparse_alpha(k, eps, beta, c, delta) >= svt.sparse_alpha(k, e1, beta / 2, c, delta / 2)


@given(eps=logu(1e-4, 50.0), k=st.one_of(st.sampled_from([1, 10**6]), logu(1.0, 1e6).map(lambda x: int(round(x)))),
       dprime=logu(1e-12, 0.5))
def test_advanced_per_query_epsilon_round_trips_through_advanced_composition(eps, k, dprime):
    """advanced(e0, k, d')[0] = eps: brentq's relative tolerance 1e-13 on e0, and the total grows at
    most (1 + e0) times as fast as e0, so 1e-12 relative on the total."""
    e0 = svt.advanced_per_query_epsilon(eps, k, dprime)
    assert 0 < e0 < eps
    assert composition.advanced(e0, k, dprime)[0] == pytest.approx(eps, rel=1e-12, abs=0)
    assert svt.laplace_alpha(k, eps, 0.1, method="advanced", delta_prime=dprime) == pytest.approx(
        math.log(k / 0.1) / e0, rel=1e-15, abs=0)
    assert svt.laplace_alpha(k, eps, 0.1) == pytest.approx(math.log(k / 0.1) * k / eps, rel=4 * U, abs=0)


@given(answers=st.lists(st.floats(-10.0, 10.0), min_size=1, max_size=6), threshold=st.floats(-5.0, 5.0),
       alpha=logu(1e-3, 10.0), data=st.data())
def test_is_accurate_is_definition_3_9(answers, threshold, alpha, data):
    k = len(answers)
    outs = data.draw(st.lists(st.integers(0, k), min_size=1, max_size=5))
    got = svt.is_accurate(answers, threshold, alpha, outs)
    for o, g in zip(outs, got):
        halted_early = o < k - 1
        bottoms_ok = all(f <= threshold + alpha for f in answers[:o])
        top_ok = o == k or answers[o] >= threshold - alpha
        assert bool(g) == (not halted_early and bottoms_ok and top_ok)


# ---------------------------------------------------------------- samplers (coupled seeds)
@given(answers=st.lists(st.floats(-50.0, 50.0), min_size=1, max_size=6), threshold=st.floats(-20.0, 20.0),
       eps=EPS, size=st.integers(100, 400), seed=st.integers(0, 2**32 - 1))
def test_sample_outputs_is_algorithm_1_on_the_noise_of_its_seed(answers, threshold, eps, size, seed):
    """Hundreds of runs per example, so that a noise scale off by 10 % flips some comparison (with a
    handful of runs a search could pass a wrong scale: measured by planting 0.9 x the query noise)."""
    a = np.array(answers)
    got = svt.sample_outputs(a, threshold, eps, size, rng=np.random.default_rng(seed))
    z = np.random.default_rng(seed)
    t_hat = threshold + z.laplace(0.0, 2 / eps, size)             # documented order: thresholds, then queries
    noisy = a + z.laplace(0.0, 4 / eps, (size, a.size))
    for run in range(size):
        above = np.flatnonzero(noisy[run] >= t_hat[run])
        assert got[run] == (above[0] if above.size else a.size)

