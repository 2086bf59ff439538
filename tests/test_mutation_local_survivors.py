"""Tests that kill the surviving mutants of dpnotes.local found on 2026-11-27 (the rest are explained in
benchmarks/mutation-survivors.toml), each against mpmath, a closed form or the documented messages.

hr_parameters' own check of k; the clone bound with an explicit clone probability past epsilon0 = 709, against
the closed form for two users, and its messages past 745.8; and the premise of the reasons for the randomizers'
and estimators' second checks (epsilon and k refused by name, k = 3.0 taken as 3).
"""

import math

import mpmath as mp
import numpy as np
import pytest

from dpnotes import local


def clone_delta_two_users(eps0, eps, r):
    """The clone bound for n = 2 users, in closed form (mpmath, 50 digits).

    C ~ Bin(1, r). With no clone (probability 1 - r) the pair is B0 ~ Bern(q) against B1 ~ Bern(p),
    whose divergence at eps in [0, eps0] is p - e^eps q = (e^eps0 - e^eps)/(1 + e^eps0) (both orders
    agree by symmetry). With one clone (probability r) the pair is B0 + A against B1 + A, A a fair coin:
    laws (p, 1, q)/2 and (q, 1, p)/2, divergence (p - e^eps q)/2. Together (1 - r/2)(e^eps0 - e^eps)/(1 + e^eps0).
    """
    with mp.workdps(50):
        e0, e, rr = mp.mpf(eps0), mp.mpf(eps), mp.mpf(r)
        return float((1 - rr / 2) * (mp.exp(e0) - mp.exp(e)) / (1 + mp.exp(e0)))


@pytest.mark.parametrize("k", [1, 0, -3, 1.0])
def test_hr_parameters_refuses_k_below_two(k):
    """hr_parameters validates k itself (through _hr): k = 1 gave (K, p) = (2, p) when _hr lost its lower bound.

    Kills x__hr__mutmut_11 (low=None) and x__hr__mutmut_14 (low dropped). Reference: the documented domain,
    k an integer >= 2 (hr_randomize and hr_estimate check k again on their own, hiding the gap)."""
    with pytest.raises(ValueError, match=r"^k must be an integer >= 2, got "):
        local.hr_parameters(1.0, k)


@pytest.mark.parametrize("eps0, eps, r", [(1.0, 0.2, 0.3), (3.0, 0.0, 0.05)])
def test_clone_delta_two_users_closed_form(eps0, eps, r):
    """The clone bound with a given r for n = 2 against its closed form (mpmath); the ordinary-range
    companion of test_clone_probability_explicit_past_709."""
    got = local.fmt_clone_delta(eps0, 2, eps, clone_probability=r)
    assert got == pytest.approx(clone_delta_two_users(eps0, eps, r), rel=1e-12, abs=0)


@pytest.mark.parametrize("eps0", [710.0, 720.0])
def test_clone_probability_explicit_past_709(eps0):
    """An explicit clone probability for 709 < epsilon0 < 745, where the blanket 2/(1 + e^eps0) is taken
    as 2 e^-eps0 (e^eps0 overflows from 709.78).

    Accepted inside the blanket, with the closed-form n = 2 bound (clone_delta_two_users, mpmath) at
    eps = eps0 - 1, where delta = 1 - 1/e: kills x__clone_probability__mutmut_20 (switch at 710: exp(710)
    raised OverflowError). Refused at 1.5 times the blanket (the mpmath value 2/(1 + e^eps0)): kills
    x__clone_probability__mutmut_22 (3 e^-eps0 accepted up to 1.5 blankets)."""
    with mp.workdps(50):
        blanket = 2 / (1 + mp.exp(eps0))
        inside, outside = float(blanket * mp.mpf("0.9")), float(blanket * mp.mpf("1.5"))
    got = local.fmt_clone_delta(eps0, 2, eps0 - 1.0, clone_probability=inside)
    assert got == pytest.approx(clone_delta_two_users(eps0, eps0 - 1.0, inside), rel=1e-12, abs=0)
    assert 0.0 < local.fmt_clone_epsilon(eps0, 2, 0.5, clone_probability=inside) <= eps0
    with pytest.raises(ValueError, match=r"^clone_probability must be in \(0, "):
        local.fmt_clone_delta(eps0, 2, 0.5, clone_probability=outside)
    with pytest.raises(ValueError, match=r"^clone_probability must be in \(0, "):
        local.fmt_clone_epsilon(eps0, 2, 0.5, clone_probability=outside)


@pytest.mark.parametrize("value, message", [
    ("a", r"^clone_probability must be a real number, got 'a'$"),
    (float("nan"), r"^clone_probability must be a real number, got nan$"),
    (math.inf, r"^clone_probability must be finite, got inf$"),
])
def test_clone_probability_not_a_number_past_745(value, message):
    """Past epsilon0 = 745.8 the blanket rounds to 0 and a given clone probability is refused; a value
    that is not a finite real is refused first by the shared validator, whose message must name the
    parameter exactly (the wording of _validate.check_real).

    Kills x__clone_probability__mutmut_28 ("None must be ..."), _32 ("XXclone_probabilityXX must ...")
    and _33 ("CLONE_PROBABILITY must ...")."""
    with pytest.raises(ValueError, match=message):
        local.fmt_clone_delta(800.0, 10, 0.5, clone_probability=value)
    with pytest.raises(ValueError, match=message):
        local.fmt_clone_epsilon(1e300, 10, 1e-6, clone_probability=value)


def _rr(f):
    return lambda e, k: f([0, 1], e, k, np.random.default_rng(0))


CALLS = {
    "krr_randomize": _rr(local.krr_randomize),
    "hr_randomize": _rr(local.hr_randomize),
    "krr_estimate": lambda e, k: local.krr_estimate([0, 1], e, k),
    "hr_estimate": lambda e, k: local.hr_estimate([0, 1], e, k),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_local_revalidated_parameters_refused_by_name(name):
    """Kills none of group B (x_krr_randomize__mutmut_7/9/12/13/14, x_hr_randomize__mutmut_7/9/12/13/14,
    x_krr_estimate__mutmut_6/10/11, x_hr_estimate__mutmut_22/26/27 are equivalent). Reference: the documented
    Raises sections, i.e. the exact message of the validators in dpnotes/_validate.py for each parameter name,
    and the integer-valued float k = 3.0 accepted as the int 3 (same reports, same int64 dtype)."""
    call = CALLS[name]
    for eps, shown in ((0, "0"), (-1.5, "-1.5")):
        with pytest.raises(ValueError, match=f"^epsilon must be > 0, got {shown}$"):
            call(eps, 3)
    with pytest.raises(ValueError, match="^epsilon must be a real number, got nan$"):
        call(math.nan, 3)
    with pytest.raises(ValueError, match="^epsilon must be finite, got inf$"):
        call(math.inf, 3)
    for k, shown in ((1, "1"), (0, "0"), (-3, "-3")):
        with pytest.raises(ValueError, match=rf"^k must be an integer (>= 2|in \[2, \d+\]), got {shown}$"):
            call(1.0, k)
    with pytest.raises(ValueError, match=r"^k must be an integer (>= 2|in \[2, \d+\]), got 2.5$"):
        call(1.0, 2.5)
    a, b = call(1.0, 3), call(1.0, 3.0)
    assert a.dtype == b.dtype and np.array_equal(a, b)
    assert call(np.float64(1.0), np.int64(3)).dtype == a.dtype
