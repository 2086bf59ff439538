"""The epsilon that dp_sgd reports, against computations that share no code with dpnotes.

Issue 22: every earlier test ran with clip norm C = 1, so an accountant called with sigma * C
instead of sigma passed. Here C is never 1 (0.37 and 2.9, one on each side of 1), and the
reported epsilon is compared with

- the closed-form Gaussian mechanism (q = 1, one step: Balle and Wang's exact delta(eps) of
  N(0, sigma^2) against N(1, sigma^2), solved for eps by brentq);
- Google's dp_accounting PLD accountant (Poisson-sampled Gaussian, add/remove), an
  independent implementation of the same pair;
- a Renyi-DP upper bound written here from the binomial sum of Mironov et al. (2019),
  which any correct accountant must not exceed.
"""

import math
import re

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import gammaln, logsumexp

from dpnotes import sgd

RNG = np.random.default_rng(7)
X = RNG.normal(size=(60, 3)) * np.array([0.5, 2.0, 4.0])
Y = (RNG.random(60) < 0.6).astype(float)


def run(clip_norm, sigma, q, epochs, delta, **kw):
    return sgd.dp_sgd(X, Y, clip_norm=clip_norm, noise_multiplier=sigma, sampling_probability=q, epochs=epochs,
                      learning_rate=0.2, rng=np.random.default_rng(0), delta=delta, **kw)


def gaussian_exact_epsilon(sigma, delta):
    """Exact eps of N(0, sigma^2) vs N(1, sigma^2) at delta: delta(eps) = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s)."""
    def excess(eps):
        return (stats.norm.cdf(0.5 / sigma - eps * sigma)
                - math.exp(eps) * stats.norm.cdf(-0.5 / sigma - eps * sigma) - delta)
    return optimize.brentq(excess, 0.0, 100.0, xtol=1e-14, rtol=1e-14)


def rdp_upper(q, sigma, steps, delta, orders=range(2, 200)):
    """Sound upper bound: RDP of the subsampled Gaussian at integer orders (binomial sum), composed, converted."""
    best = math.inf
    for a in orders:
        k = np.arange(a + 1)
        terms = (gammaln(a + 1) - gammaln(k + 1) - gammaln(a - k + 1) + (a - k) * math.log1p(-q)
                 + k * math.log(q) + (k * k - k) / (2 * sigma**2))
        best = min(best, (steps * logsumexp(terms) + math.log(1 / delta)) / (a - 1))
    return best


@pytest.mark.parametrize("clip_norm", [0.37, 2.9])
def test_one_full_batch_step_reports_the_exact_gaussian_epsilon(clip_norm):
    # q = 1, one step: the mechanism is the Gaussian mechanism with noise sigma*C on a sum of
    # sensitivity C, so its epsilon depends on sigma alone. Tolerance: the accountant is a
    # documented upper bound within a relative 1e-4 of the truth.
    sigma, delta = 0.8, 1e-5
    eps = run(clip_norm, sigma, 1.0, 1, delta).epsilons[0]
    exact = gaussian_exact_epsilon(sigma, delta)
    assert exact * (1 - 1e-12) <= eps <= exact * (1 + 1e-4)
    # the bug of issue 22 would report the epsilon of noise multiplier sigma * C
    assert not math.isclose(eps, gaussian_exact_epsilon(sigma * clip_norm, delta), rel_tol=1e-2)


@pytest.mark.parametrize("clip_norm, sigma, q, epochs", [(0.37, 0.9, 0.2, 3), (2.9, 1.6, 0.05, 2)])
def test_reported_epsilons_match_dp_accounting_and_stay_below_the_rdp_bound(clip_norm, sigma, q, epochs):
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.privacy_accountant import NeighboringRelation

    delta = 1e-6
    result = run(clip_norm, sigma, q, epochs, delta)
    steps_per_epoch = round(1 / q)
    h = 1e-3                                 # dp_accounting's grid: coarse enough to take well under a second
    for epoch, eps in enumerate(result.epsilons, start=1):
        steps = epoch * steps_per_epoch
        acc = pld_privacy_accountant.PLDAccountant(NeighboringRelation.ADD_OR_REMOVE_ONE,
                                                   value_discretization_interval=h)
        acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)
        theirs = acc.get_epsilon(delta)
        # both are upper bounds; dp_accounting's pessimistic rounding adds at most h per step to
        # the loss, dpnotes is within a relative 1e-4 of the truth
        assert theirs - steps * h - 1e-9 <= eps <= theirs * (1 + 1e-4)
        assert eps <= rdp_upper(q, sigma, steps, delta)
    assert np.all(np.diff(result.epsilons) > 0)


@pytest.mark.parametrize("clip_norm", [0.3, 1.0, 2.5])
def test_the_accountant_is_called_with_sigma_never_sigma_times_c(clip_norm):
    calls = []

    def fake(q, sigma, steps, delta):
        calls.append((q, sigma, steps, delta))
        return 0.5

    run(clip_norm, 1.3, 0.5, 2, 3e-6, accountant=fake)
    assert calls == [(0.5, 1.3, 2, 3e-6), (0.5, 1.3, 4, 3e-6)]


def test_epsilon_does_not_depend_on_the_clip_norm():
    # the accountant never sees C: runs that differ only in C report the same epsilons
    a = run(0.05, 1.2, 0.25, 2, 1e-5).epsilons
    b = run(40.0, 1.2, 0.25, 2, 1e-5).epsilons
    assert np.array_equal(a, b)


@pytest.mark.parametrize("answer", [-0.1, -1e-300, float("nan"), "1.0", None, [1.0], True])
def test_a_bad_accountant_answer_is_refused(answer):
    with pytest.raises(ValueError, match=r"^accountant must return a number >= 0 \(inf allowed\), got "
                                         + re.escape(repr(answer)) + "$"):
        run(1.0, 1.0, 0.5, 1, 1e-5, accountant=lambda *a: answer)


@pytest.mark.parametrize("answer", [0.0, 1e-300, 2, np.float64(0.25), math.inf])
def test_every_number_from_zero_to_inf_is_a_valid_accountant_answer(answer):
    assert run(1.0, 1.0, 0.5, 1, 1e-5, accountant=lambda *a: answer).epsilons.tolist() == [float(answer)]
