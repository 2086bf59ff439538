"""Tests that kill surviving mutants of ``dpnotes.loss`` in gaussian_epsilon's large-mu search and in
tail_bound_from_dp's messages, and pin the two bugs that search found in gaussian_epsilon (delta near 1, mu near 1e-300). References: the root of the Gaussian profile
delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) in mpmath (test_loss._mp_gaussian_epsilon, at
2 log10(mu) + 60 digits), the closed-form bound eps >= mu (mu/2 - z - 1) (Phi(z) = delta), and Python's repr.
"""

from __future__ import annotations

import math
import re
import sys
import warnings

import pytest

from dpnotes import loss
from test_loss import _mp_gaussian_epsilon


@pytest.mark.parametrize("mu", [1.7e308, sys.float_info.max])
def test_gaussian_epsilon_is_inf_up_to_the_largest_double_mu(mu):
    """At mu near the largest double, eps ~ mu^2 / 2 ~ 1e616 is beyond the doubles (reference: eps >= mu (mu/2 - z - 1)
    with z = Phi^{-1}(delta) >= -38.5, far above 1.8e308), so the answer is inf, not an error. Several deltas, because
    only those where rounding leaves gap(z) < 0 reach brentq, which evaluates the gap at its bracket end a = mu/2.
    Kills _gaussian_epsilon_large_mu mutmut_19 (erfcx at (mu + a)/sqrt 2: 1.5 mu overflows to inf, log(0) raises
    'math domain error') and mutmut_50 (xtol 2^-54 / (mu/2 - z) underflows to 0: brentq's 'xtol too small')."""
    for delta in (5e-324, 1e-300, 1e-20, 1e-5, 0.9, 0.999999):
        assert loss.gaussian_epsilon(delta, mu) == math.inf


@pytest.mark.parametrize("delta, mu", [(1e-12, 1e20), (0.99, 1e20), (1e-50, 1e20), (1e-50, 1e15),
                                       (1 - 2**-53, 1e15)])
def test_gaussian_epsilon_where_the_tail_bound_is_the_root(delta, mu):
    """At mu >= 1e15 the Mills-ratio term phi(a) R(mu - a), a relative |z| / mu of Phi(z), is lost in rounding: the
    gap at a = z is 0 or a rounding-level positive number and the root is z itself (no search). Kills
    _gaussian_epsilon_large_mu mutmut_33 (the shortcut only where gap(z) >= 1, i.e. never: brentq then refuses the
    bracket [z, mu/2] whose ends have the same sign, 'f(a) and f(b) must have different signs').
    Reference: the root of the profile in mpmath (test_loss._mp_gaussian_epsilon)."""
    assert loss.gaussian_epsilon(delta, mu) == pytest.approx(float(_mp_gaussian_epsilon(delta, mu)), rel=4e-16)


@pytest.mark.parametrize("delta", [0.9999999999999, 0.99999999999999, 1 - 2**-52, 0.5, 1e-12])
def test_gaussian_epsilon_at_the_branch_point_mu_1e6(delta):
    """mu = 1e6 = _LARGE_MU exactly is solved in a = mu/2 - eps/mu, where the eps-search's profile would need two terms
    of 5e11 to cancel; both searches now agree with the root there to a few ulps (the eps-search reads 1 - delta near
    delta = 1). Reference: the root in mpmath (test_loss)."""
    assert loss.gaussian_epsilon(delta, 1e6) == pytest.approx(float(_mp_gaussian_epsilon(delta, 1e6)), rel=4e-16)


def test_gaussian_epsilon_at_a_large_mu_is_found_without_warnings():
    """The large-mu search reads its relative tolerance from float64's machine epsilon; np.finfo(None) gives the same
    number but raises a DeprecationWarning (an error in a future NumPy). Kills _gaussian_epsilon_large_mu mutmut_60
    (as test_mutation_loss's test does for the eps-search). Reference: the root in mpmath (test_loss)."""
    for delta, mu in [(1e-5, 1e8), (0.5, 1e8), (0.9, 1e15)]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            eps = loss.gaussian_epsilon(delta, mu)
        assert eps == pytest.approx(float(_mp_gaussian_epsilon(delta, mu)), rel=4e-16)


@pytest.mark.parametrize("epsilon, shown", [(1e16, "1e+16"), (9999999999999998.0, "9999999999999998")])
def test_tail_bound_message_writes_epsilon_as_repr_does_from_1e16_on(epsilon, shown):
    """_number writes a whole float as an integer below 1e16 and as repr from there, where repr itself switches to
    exponent notation (reference: repr(1e16) == '1e+16', repr(9999999999999998.0) == '9999999999999998.0').
    Kills _number mutmut_7 (abs(x) <= 1e16: '10000000000000000' at 1e16)."""
    assert repr(1e16) == "1e+16" and repr(9999999999999998.0) == "9999999999999998.0"
    with pytest.raises(ValueError, match=re.escape(f"epsilon_prime must be > epsilon = {shown}, got 1") + "$"):
        loss.tail_bound_from_dp(epsilon, 0.1, 1.0)


@pytest.mark.parametrize("epsilon, epsilon_prime, message", [
    (0.0, -1.0, "epsilon_prime must be > epsilon = 0, got -1"),
    (1.0, [2.0, -3.5], "epsilon_prime must be > epsilon = 1, got -3.5"),
    (0.5, -1e300, "epsilon_prime must be > epsilon = 0.5, got -1e+300"),
])
def test_tail_bound_from_dp_names_the_pair_for_a_negative_epsilon_prime(epsilon, epsilon_prime, message):
    """A negative epsilon_prime breaks the documented condition epsilon_prime > epsilon (>= 0), and the message says
    so, as for any other epsilon_prime <= epsilon. Kills tail_bound_from_dp mutmut_24 (epsilon_prime validated with
    _array's default low bound 0: 'epsilon_prime must be >= 0, got -1', which at epsilon = 0 even suggests 0 is
    allowed). Reference: the docstring's Raises section."""
    with pytest.raises(ValueError, match=re.escape(message) + "$"):
        loss.tail_bound_from_dp(epsilon, 0.1, epsilon_prime)


@pytest.mark.parametrize("delta, mu", [(1 - 2**-53, 38.0), (0.999999999999, 999_000.0), (1 - 2**-53, 20.0),
                                       (1 - 1e-11, 30.0), (0.6, 2.0)])
def test_gaussian_epsilon_near_delta_one(delta, mu):
    """delta within 1e-11 of 1 and mu from 25 to 1e6: the tail bound's end of the bracket rounded to a profile above
    the target and brentq refused the bracket ('f(a) and f(b) must have different signs', at (1 - 2**-53, 38), whose
    root is 408.91); at (1 - 2**-53, 20) the answer was 1.3 % off. Now solved for 1 - delta (two positive terms).
    Reference: the root in mpmath (test_loss)."""
    assert loss.gaussian_epsilon(delta, mu) == pytest.approx(float(_mp_gaussian_epsilon(delta, mu)), rel=1e-15)


@pytest.mark.parametrize("mu", [1e-300, 1e-295, 1e-250])
@pytest.mark.parametrize("ratio", [0.1, 0.3])
def test_gaussian_epsilon_at_a_vanishing_mu(ratio, mu):
    """mu = 1e-300 and delta = ratio mu: the root is t mu with phi(t) - t Phi(-t) = ratio to a relative O(mu)
    (first order in mu of Phi(mu/2 - t) - e^(mu t) Phi(-mu/2 - t)). The search's absolute tolerance 1e-300 made
    it 10 % off at mu = 1e-300 (the tolerance is now relative only). 1e-12: the profile's own conditioning there."""
    import mpmath as mp
    with mp.workdps(40):
        t = mp.findroot(lambda t: mp.npdf(t) - t * mp.ncdf(-t) - ratio, 1)
    assert loss.gaussian_epsilon(ratio * mu, mu) == pytest.approx(float(t) * mu, rel=1e-12, abs=0)
