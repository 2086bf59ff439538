"""Tests that kill the surviving mutants of ``dpnotes.loss`` (``make mutation``).

Written for the survivors of the 2026-11-26 run; each kill was checked by applying the mutant's diff to
``dpnotes/loss.py`` and watching the test fail. ``gaussian_delta`` has two routes, a fast one for a
pair of plain numbers and an array one for everything else; these tests reach the array route with
inputs the rest of the suite sends only down the fast one. Reference values: the Gaussian profile
delta = Phi(a) - e^eps Phi(a - mu), a = mu/2 - eps/mu, in mpmath at 50 digits.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dpnotes import loss
from test_loss import mp_gaussian_delta        # 60-digit reference of delta(eps)


def test_gaussian_delta_with_a_plain_epsilon_and_an_array_of_mu():
    """Kills gaussian_delta mutmut_5 ('type(mu) not in' plain numbers: a plain epsilon with an array of mu
    was sent to the one-point route, which cannot take an array)."""
    mus = [1.0, 2.5, 0.3]
    want = [float(mp_gaussian_delta(0.5, m)) for m in mus]
    for mu in (np.array(mus), mus):
        got = loss.gaussian_delta(0.5, mu)
        assert isinstance(got, np.ndarray) and got.shape == (3,)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("eps, mu", [([0.5, 1.0], 0.0), (0.5, [1.0, 0.0]), (np.array([0.5]), np.array([0.0]))])
def test_gaussian_delta_refuses_mu_zero_on_the_array_route(eps, mu):
    """Kills gaussian_delta mutmut_46 and mutmut_50 (mu checked with a closed bound, mu >= 0, on the array
    route: mu = 0 went on to eps / 0)."""
    with pytest.raises(ValueError, match="^mu must be > 0, got 0$"):
        loss.gaussian_delta(eps, mu)


def test_gaussian_delta_is_zero_where_log_phi_underflows_in_an_array():
    """Kills gaussian_delta mutmut_68 (every entry taken as finite: -inf - (-inf) gave nan), mutmut_89 (None
    as the value where log Phi(a) = -inf: an object array holding None) and mutmut_95 (1 there instead of 0).

    At eps = 1e200, mu = 1e-50, a = -1e250 and log Phi(a) = -a^2/2 overflows to -inf: delta is 0 (its
    true value is below e^-1e499). The first entry is an ordinary point."""
    got = loss.gaussian_delta(np.array([0.5, 1e200]), np.array([1.0, 1e-50]))
    assert got.dtype == np.float64 and got.shape == (2,)
    assert got[0] == pytest.approx(float(mp_gaussian_delta(0.5, 1.0)), rel=1e-13, abs=0)
    assert got[1] == 0.0


@pytest.mark.parametrize("eps, mu", [(np.float32(0.5), 1.5), (Fraction(1, 2), 1.5), (0.5, np.float32(1.5)),
                                     (np.array(0.5), 1.5)])
def test_gaussian_delta_returns_a_float_for_scalars_of_other_types(eps, mu):
    """Kills gaussian_delta mutmut_113 (the array route's scalar flag replaced by None: a 0-d array came
    back for a scalar that is not a Python or numpy float64, e.g. np.float32 or a Fraction)."""
    got = loss.gaussian_delta(eps, mu)
    assert type(got) is float
    assert got == loss.gaussian_delta(0.5, 1.5) == pytest.approx(float(mp_gaussian_delta(0.5, 1.5)), rel=1e-13, abs=0)


def test_gaussian_epsilon_is_found_without_warnings():
    """The root finder's tolerance is read from float64's machine epsilon; ``np.finfo(None)`` gives the same
    number but warns (deprecated since NumPy 1.25, an error in a future NumPy). Kills gaussian_epsilon
    mutmut_59. The root is checked against the 60-digit delta."""
    import warnings

    for delta, mu in [(1e-5, 0.8), (0.02, 3.5)]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            eps = loss.gaussian_epsilon(delta, mu)
        assert abs(float(mp_gaussian_delta(eps, mu)) - delta) <= 1e-12 * delta
