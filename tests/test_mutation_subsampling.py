"""Tests for the gaps the first mutation run of dpnotes.subsampling found (issue 22).

Each value is checked against the mathematics, never against the code's own output:
mpmath at 50 digits for the replace-one amplification, the Gaussian mechanism
(mu = 1 / sigma) for one shuffled batch, and a direct maximization over a much finer
threshold grid of the exact max-test probabilities for several batches and epochs.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from dpnotes import subsampling as sub
from dpnotes.loss import gaussian_epsilon


# ---------------------------------------------------------------- replace-one amplification
def _replace_one_exact(eps, q):
    """log((1 + q(e^eps - 1)) / (1 + q(e^-eps - 1))) at 50 digits."""
    with mp.workdps(50):
        eps, q = mp.mpf(eps), mp.mpf(q)
        return float(mp.log((1 + q * mp.expm1(eps)) / (1 + q * mp.expm1(-eps))))


@pytest.mark.parametrize("q", [1e-12, 1e-6, 0.01, 0.3, 0.5, 0.6, 0.9, 0.999, 1.0])
def test_amplify_poisson_replace_one_to_a_few_ulps_of_mpmath(q):
    # both branches of the denominator: log1p(x) for x = q(e^-eps - 1) > -1/2 and the
    # logaddexp form below (q >= 1/2 and a large eps); tiny q and eps check that the
    # result, about 2 q eps, keeps its relative digits. Tolerance 1e-13 relative: the
    # formula is a difference of two logarithms, each to about an ulp (measured 2.2e-16).
    for eps in (1e-9, 1e-4, 0.3, 0.7, 2.0, 5.0, 12.0, 30.0):
        exact = _replace_one_exact(eps, q)
        assert sub.amplify_poisson_replace_one(eps, q) == pytest.approx(exact, rel=1e-13, abs=0.0), (eps, q)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: sub.amplify_poisson_replace_one(-0.5, 0.3), "epsilon must be >= 0, got -0.5"),
        (lambda: sub.amplify_without_replacement(-0.5, 2, 4), "epsilon must be >= 0, got -0.5"),
        (lambda: sub.amplify_without_replacement(1.0, 1, 0), "population_size must be an integer >= 1, got 0"),
        (lambda: sub.amplify_without_replacement(1.0, 1, -3), "population_size must be an integer >= 1, got -3"),
    ],
)
def test_amplification_bad_inputs_name_the_parameter_and_its_range(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------- shuffled batches
@pytest.mark.parametrize("sigma, delta", [(0.1, 0.5), (0.3, 0.3), (0.6, 1e-6), (1.7, 1e-6), (4.0, 0.2)])
def test_shuffle_one_batch_reaches_the_gaussian_epsilon(sigma, delta):
    # one batch, one epoch: spike 2 against spike 1 at a known place, the Gaussian mechanism with
    # mu = 1 / sigma, for which the threshold tests are the Neyman-Pearson tests: their best
    # epsilon is the exact one. The grid of thresholds (spacing 0.004 sigma, the error quadratic in
    # the offset) gets within 1e-5 relative of it (measured 3e-6 at delta = 0.3), and never above.
    # A large delta with a small sigma needs thresholds below 2 (a spike of 2 must pass with
    # probability > delta), a small delta thresholds far above.
    exact = gaussian_epsilon(delta, 1 / sigma)
    lb = sub.shuffle_epsilon_lower_bound(1, sigma, 1, delta)
    assert exact * (1 - 1e-5) <= lb <= exact * (1 + 1e-12)


def _max_test_reference(batches, sigma, epochs, delta):
    """The best threshold test over a grid 100 times finer and 1.5 times wider than the function's:
    P(max > tau) = 1 - Phi((tau - s)/sigma) Phi(tau/sigma)^(T-1) for the spike s (2 present, 1 removed),
    "at least k of the epochs" by the binomial law."""
    tau = 1.5 + sigma * np.linspace(-8.0, 16.0, 600_001)
    rest = (batches - 1) * stats.norm.logcdf(tau / sigma)
    p_in = -np.expm1(stats.norm.logcdf((tau - 2.0) / sigma) + rest)
    p_out = -np.expm1(stats.norm.logcdf((tau - 1.0) / sigma) + rest)
    best = 0.0
    for k in range(1, epochs + 1):
        a, b = stats.binom.sf(k - 1, epochs, p_in), stats.binom.sf(k - 1, epochs, p_out)
        ok = (a > delta) & (b > 0)
        if np.any(ok):
            best = max(best, float(np.max(np.log((a[ok] - delta) / b[ok]))))
    return best


@pytest.mark.parametrize("batches, sigma, epochs, delta", [(5, 0.9, 1, 1e-3), (5, 0.6, 3, 1e-4), (20, 1.7, 2, 1e-3)])
def test_shuffle_several_batches_is_the_best_threshold_test(batches, sigma, epochs, delta):
    # sigma != 1 and T > 1, so that the batches without the spike matter (Phi(tau / sigma)^(T-1));
    # the function's coarser grid gets within 1e-4 relative of the finer grid's best (measured
    # 1.3e-6) and cannot beat the supremum over thresholds (1e-9: the finer grid's own offset).
    ref = _max_test_reference(batches, sigma, epochs, delta)
    lb = sub.shuffle_epsilon_lower_bound(batches, sigma, epochs, delta)
    assert ref * (1 - 1e-4) <= lb <= ref * (1 + 1e-9)


@pytest.mark.parametrize("sigma", [0.015, 0.018, 0.02])
def test_shuffle_bound_stays_finite_where_the_removed_spike_almost_never_passes(sigma):
    # A real bug, found by the mutation run: at sigma = 0.012 to 0.018 the removed spike's pass
    # probability b is subnormal or 0 above some threshold while the present spike passes almost
    # surely, and (a - delta) / b overflowed: the "lower bound" was inf. A lower bound can never
    # exceed the Gaussian mechanism's epsilon (mu = 1 / sigma: one batch, the position known), and
    # the test at the lowest threshold of the grid with a normal b gives a positive one.
    lb = sub.shuffle_epsilon_lower_bound(1, sigma, 1, 1e-5)
    assert math.isfinite(lb)
    assert 0.0 < lb <= gaussian_epsilon(1e-5, 1 / sigma)


def test_the_shuffle_lower_bound_is_computed_without_warnings():
    """The smallest normal double is read as ``np.finfo(float).tiny``; ``np.finfo(None)`` gives the same number
    but warns (deprecated since NumPy 1.25, an error in a future NumPy). Kills shuffle_epsilon_lower_bound
    mutmut_91."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lb = sub.shuffle_epsilon_lower_bound(2, 0.8, 3, 1e-5)
    assert lb >= 0.0 and math.isfinite(lb)
