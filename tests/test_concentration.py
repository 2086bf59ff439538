"""Unit tests of dpnotes.concentration."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpnotes import concentration as conc


def test_azuma_closed_form_and_vectorized():
    assert conc.azuma_bound(3.0, [0.5] * 8) == pytest.approx(math.exp(-9 / (2 * 8 * 0.25)))
    t = np.array([0.0, 1.0, 2.0])
    out = conc.azuma_bound(t, [1.0, 2.0])
    assert out.shape == (3,) and out[0] == 1.0 and out[2] == pytest.approx(math.exp(-4 / 10))


def test_azuma_holds_for_exact_rr_loss_tail():
    # k independent randomized-response steps: the loss tail is an exact binomial sum
    for eps, k in [(0.3, 40), (1.0, 15), (0.05, 400)]:
        p = 1 / (1 + math.exp(-eps))
        beta = eps * math.tanh(eps / 2)
        ones = np.arange(k + 1)
        loss, pmf = eps * (2 * ones - k), stats.binom.pmf(ones, k, p)
        for t in np.linspace(0, 3 * eps * math.sqrt(k), 15):
            exact = pmf[loss >= k * beta + t - 1e-12].sum()
            assert exact <= conc.azuma_bound(t, [eps] * k) + 1e-15


def test_azuma_holds_for_an_adaptive_martingale_exactly():
    # enumerate every path of the adaptive strategy of rr_loss_paths (k = 10) and its exact probability
    eps, k = 0.8, 10
    tail = {}
    for reports in itertools.product((0, 1), repeat=k):
        prob, e, loss, comp = 1.0, eps, 0.0, 0.0
        for r in reports:
            keep = 1 / (1 + math.exp(-e))
            prob *= keep if r == 1 else 1 - keep
            loss += e if r == 1 else -e
            comp += e * math.tanh(e / 2)
            e = eps if r == 1 else eps / 2
        tail[reports] = (prob, loss, comp)
    assert sum(v[0] for v in tail.values()) == pytest.approx(1.0)
    for t in (0.5, 1.0, 2.0, 3.0, 4.0):
        beta_sum = k * eps * math.tanh(eps / 2)            # deterministic bound on the compensator
        exact = sum(pr for pr, loss, _ in tail.values() if loss >= beta_sum + t)
        assert exact <= conc.azuma_bound(t, [eps] * k)


def test_hoeffding_both_tails_exact_binomial():
    for n, p in [(20, 0.5), (50, 0.2), (200, 0.9)]:
        for tau in np.linspace(0.5, n / 4, 10):
            upper = stats.binom.sf(math.ceil(n * p + tau) - 1, n, p)
            lower = stats.binom.cdf(math.floor(n * p - tau), n, p)
            bound = conc.hoeffding_bound(tau, n, 0, 1)
            assert upper <= bound + 1e-15 and lower <= bound + 1e-15
    assert conc.hoeffding_bound(2.0, 4, -1.0, 1.0) == pytest.approx(math.exp(-2 * 4 / (4 * 4)))


def test_rr_loss_paths_moments():
    rng = np.random.default_rng(1)
    eps, k, n = 0.4, 30, 40_000
    loss, comp = conc.rr_loss_paths(eps, k, n, rng)
    p = 1 / (1 + math.exp(-eps))
    mean, var = k * eps * (2 * p - 1), k * (2 * eps) ** 2 * p * (1 - p)
    assert abs(loss.mean() - mean) < 5 * math.sqrt(var / n)       # 5 standard errors
    assert np.allclose(comp, k * eps * math.tanh(eps / 2))
    loss_a, comp_a = conc.rr_loss_paths(eps, k, n, rng, adaptive=True)
    assert np.all(np.abs(loss_a) <= k * eps + 1e-9)
    assert np.all(comp_a <= k * eps * math.tanh(eps / 2) + 1e-12) and np.all(comp_a > 0)
    # martingale: loss - compensator has mean zero
    assert abs((loss_a - comp_a).mean()) < 5 * math.sqrt(k * (2 * eps) ** 2 / n)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: conc.azuma_bound(-1.0, [1.0]), "t must be >= 0"),
        (lambda: conc.azuma_bound(1.0, []), "c must be a non-empty"),
        (lambda: conc.azuma_bound(1.0, [1.0, 0.0]), "c must be a non-empty"),
        (lambda: conc.hoeffding_bound(1.0, 0, 0, 1), "n must be an integer >= 1"),
        (lambda: conc.hoeffding_bound(1.0, 3, 1, 1), "b must be > 1"),
        (lambda: conc.hoeffding_bound(-1.0, 3, 0, 1), "tau must be >= 0"),
        (lambda: conc.rr_loss_paths(0.0, 3, 10, np.random.default_rng(0)), "epsilon must be > 0"),
        (lambda: conc.rr_loss_paths(0.1, 0, 10, np.random.default_rng(0)), "k must be an integer >= 1"),
        (lambda: conc.rr_loss_paths(0.1, 3, 10, 42), "rng must be a numpy.random.Generator"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
