"""Tests for the gaps the first mutation run of dpnotes.subsampling found (issue 22).

Each value is checked against the mathematics, never against the code's own output:
mpmath at 50 digits for the replace-one amplification, the Gaussian mechanism
(mu = 1 / sigma) for one shuffled batch, and a direct maximization over a much finer
threshold grid of the exact max-test probabilities for several batches and epochs.
The second pass (the full run of 2026-11-26) adds: the Gaussian mechanism's closed form at q = 1,
the profiles at 60 digits and at the ends of the loss, two steps integrated directly over the first
output, the Renyi conversion in closed form (q = 1), and the fallback's halving with the FFT made to fail.
"""

import math
import sys
import warnings

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from dpnotes import subsampling
from dpnotes import subsampling as sub
from dpnotes.composition import rdp_to_dp
from dpnotes.loss import gaussian_delta, gaussian_epsilon

from test_subsampling import _log_a_int_mp          # the mpmath integer-order log A, one copy


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


# ---------------------------------------------------------------- the one-step profile's interface
def test_profile_keeps_its_own_messages_and_shapes(raises_exactly):
    """nan is refused with the profile's own message (check_array lets it through to it), an empty array of
    epsilons gives an empty profile, a bad direction under replace-one is named, a scalar gives a float.
    Kills subsampled_gaussian_profile mutmut_13, _18, _23 (nan refused by check_array instead), _14, _19, _24
    (empty refused), _34 (the message lost) and _53 (a 0-d array instead of a float)."""
    with raises_exactly("epsilon must be finite, got nan"):
        sub.subsampled_gaussian_profile(0.3, 0.7, float("nan"))
    with raises_exactly("epsilon must be finite, got nan"):
        sub.subsampled_gaussian_profile(0.3, 0.7, float("nan"), relation="replace_one")
    with raises_exactly("direction must be one of 'remove', 'add', got 'both'"):
        sub.subsampled_gaussian_profile(0.3, 0.7, 0.4, "both", relation="replace_one")
    for relation in sub.RELATIONS:
        empty = sub.subsampled_gaussian_profile(0.3, 0.7, [], relation=relation)
        assert isinstance(empty, np.ndarray) and empty.shape == (0,)
        one = sub.subsampled_gaussian_profile(0.3, 0.7, 0.4, relation=relation)
        assert type(one) is float and 0.0 < one < 0.3      # a one-step delta is below q (the record's share)


# ---------------------------------------------------------------- q = 1: the Gaussian mechanism, exactly
def _gaussian_delta_mp(eps, mu):
    """Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) at 50 digits (Balle & Wang 2018, Theorem 8)."""
    with mp.workdps(50):
        eps, mu = mp.mpf(eps), mp.mpf(mu)
        return float(mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2))


@pytest.mark.parametrize("sigma, steps, eps, relation", [
    (3.0, 5, 1.5, "add_remove"),        # mu = sqrt(5) / 3
    (7.0, 2, 0.3, "replace_one"),       # sensitivity 2: mu = 2 sqrt(2) / 7
    (14.0, 2, 0.7, "add_remove"),       # 0 < eps < 1 with delta = 4e-14: the dual form would cancel
    (9.0, 3, -0.4, "replace_one"),      # a negative epsilon: the dual form
])
def test_delta_at_q1_is_the_gaussian_mechanism_to_the_last_digits(sigma, steps, eps, relation):
    """q = 1 is computed exactly: the Gaussian mechanism with mu = sqrt(T) / sigma (2 sqrt(T) / sigma under
    replace-one), to 1e-12 relative of the closed form at 50 digits (measured 4e-15). Kills
    subsampled_gaussian_delta mutmut_20 (q = 1 sent to the FFT accountant: 1e-6 relative off), _25 (replace-one
    accounted with sensitivity 1), _38 (the dual form's sign at a negative epsilon) and _31 (the dual form 1 - e^eps + e^eps delta(-eps) used for 0 <= eps < 1,
    which loses the digits of a small delta to cancellation)."""
    mu = (2.0 if relation == "replace_one" else 1.0) * math.sqrt(steps) / sigma
    exact = _gaussian_delta_mp(eps, mu)
    assert sub.subsampled_gaussian_delta(1.0, sigma, steps, eps, relation=relation) == pytest.approx(
        exact, rel=1e-12, abs=0.0)


# ---------------------------------------------------------------- the fallback where the FFT cannot reach delta
def _unreachable(monkeypatch):
    """Make every FFT accounting fail as it does far below its window (q = 1e-6, sigma = 100: 0.12 s a call);
    returns the list of the epsilons it was asked for."""
    tried = []

    def account(q, sigma, steps, relation, delta=None, epsilon=None):
        tried.append(epsilon)
        raise sub._Unreached("the tilted FFT did not reach the answer")

    monkeypatch.setattr(sub, "_account", account)
    return tried


def _rdp_conversion_q1(sigma, steps, eps):
    """min over the default orders of exp(-(alpha - 1)(eps - T alpha / (2 sigma^2))) (Mironov 2017,
    Proposition 3; the Gaussian mechanism's RDP is alpha / (2 sigma^2))."""
    a = sub.DEFAULT_ORDERS
    with np.errstate(over="ignore"):          # a huge exponent where eps < T rho: the bound is then above 1
        return float(np.min(np.exp(-(a - 1) * (eps - steps * a / (2 * sigma**2)))))


def _ladder(eps):
    """The epsilons the fallback may try: eps/2, eps/4, ... while above a millionth, then 0."""
    rungs, e = [], eps
    while e > 1e-6:
        e /= 2
        rungs.append(e)
    return rungs + [0.0]


@pytest.mark.parametrize("relation", sub.RELATIONS)
def test_delta_fallback_gives_up_after_trying_zero_once(monkeypatch, relation):
    """Where no epsilon is reached, the fallback tries 0 (the lowest rung, where delta is largest) once and
    gives up with the trivial bound delta <= 1 (replace-one: no Renyi bound; add/remove at q = 0.6,
    sigma = 0.5, epsilon = 0.3 the Renyi conversion exceeds 1 at every order): nothing higher can be reached.
    Fails for a bound of 2 or a Renyi bound capped at 2, for None returned, and for a search that walks the
    rungs (each failed FFT costs about 0.1 s)."""
    tried = _unreachable(monkeypatch)
    assert sub._delta_fallback(0.6, 0.5, 7, relation, 0.3) == 1.0
    assert tried == [0.0]


@pytest.mark.parametrize("relation", sub.RELATIONS)
@pytest.mark.parametrize("eps", [0.3, 1.7])
def test_delta_fallback_finds_the_highest_reached_rung_by_bisection(monkeypatch, relation, eps):
    """The FFT reaches every rung of the ladder eps/2, eps/4, ..., 0 below some first one (delta falls with
    epsilon); whichever that is, the fallback returns delta at it (the tightest bound the rungs give), after at
    most 1 + ceil(log2(rungs)) accountings, every one of them at a rung. A fake accountant reaches the rungs at
    or below a chosen one and answers a value that names the rung. Fails for halvings by another factor, a
    ladder stopped early or not ending at 0, a bisection that keeps the wrong half (or its lower end), and a
    linear walk (21 or more calls)."""
    rungs = _ladder(eps)
    tried = _unreachable(monkeypatch)
    assert sub._delta_fallback(0.6, 0.5, 7, relation, eps) == 1.0      # the Renyi bound is useless here
    for first in range(len(rungs)):
        tried.clear()

        def account(q, sigma, steps, rel, delta=None, epsilon=None, first=first):
            assert rel == relation and (q, sigma, steps) == (0.6, 0.5, 7)
            tried.append(epsilon)
            if epsilon > rungs[first]:
                raise sub._Unreached("the tilted FFT did not reach the answer")
            return 0.25 + epsilon / (4.0 * eps)             # in [0.25, 0.375): one value per rung

        monkeypatch.setattr(sub, "_account", account)
        assert sub._delta_fallback(0.6, 0.5, 7, relation, eps) == 0.25 + rungs[first] / (4.0 * eps), first
        assert set(tried) <= set(rungs)
        assert len(tried) <= 1 + math.ceil(math.log2(len(rungs))), (first, tried)


def test_delta_fallback_is_the_renyi_conversion_when_nothing_is_reached(monkeypatch):
    """At q = 1 the Renyi DP of a step is alpha / (2 sigma^2), so the fallback's add/remove bound is known in
    closed form; at sigma = 3, T = 5, epsilon = 4 it is about 4e-6 (order about 7.7), far below 1. Computed
    without an overflow warning where eps < T rho(alpha) makes the exponent huge (sigma = 0.5, epsilon = 0.3:
    the bound is 1). Kills _delta_fallback mutmut_29 (alpha + 1), _31 (epsilon + rho) and _15 (overflow not
    silenced: the RuntimeWarning is an error in the tests)."""
    _unreachable(monkeypatch)
    bound = _rdp_conversion_q1(3.0, 5, 4.0)
    assert 1e-7 < bound < 1e-4
    assert sub._delta_fallback(1.0, 3.0, 5, "add_remove", 4.0) == pytest.approx(bound, rel=1e-12, abs=0)
    assert _rdp_conversion_q1(0.5, 7, 0.3) > 1.0
    assert sub._delta_fallback(1.0, 0.5, 7, "add_remove", 0.3) == 1.0


@pytest.mark.parametrize("relation", sub.RELATIONS)
def test_delta_fallback_takes_the_accountant_at_half_epsilon(relation):
    """Called where the FFT does reach epsilon/2 (q = 1: the Gaussian mechanism, mu = sqrt(5)/3, or 2 sqrt(5)/3
    under replace-one), the fallback is the smaller of the Renyi bound (add/remove; about 0.98 here, useless) and
    delta(epsilon/2) of the same relation, to the accountant's 1e-4 and above it (an upper bound). Kills
    _delta_fallback mutmut_51 (epsilon/2 accounted without the relation: the replace-one pair, twice the
    sensitivity)."""
    sigma, steps, eps = 3.0, 5, 0.4
    mu = (2.0 if relation == "replace_one" else 1.0) * math.sqrt(steps) / sigma
    expected = _gaussian_delta_mp(eps / 2, mu)
    if relation == "add_remove":
        assert _rdp_conversion_q1(sigma, steps, eps) > 0.9
    got = sub._delta_fallback(1.0, sigma, steps, relation, eps)
    assert expected <= got <= expected * (1 + 1e-4)
    assert got >= _gaussian_delta_mp(eps, mu)            # still a bound on delta(epsilon)


# ---------------------------------------------------------------- the directions the FFT accountant composes
@pytest.mark.parametrize("relation, directions", [("add_remove", [-1, 1]), ("replace_one", [1])])
def test_the_accountant_composes_both_directions_under_add_remove_only(monkeypatch, relation, directions):
    """Under add/remove the two directions (remove: the pair (P, Q); add: its dual (Q, P)) are different
    laws, and the accountant answers the worse: it must compose both. On the 144 configurations tried
    (q 0.3 to 0.999, sigma 0.5 to 2, T 2 to 100, epsilon 0 to 1) the remove direction was never the smaller
    by more than its 2e-7 discretization error, so no answer tells the directions apart: the test counts
    the directions instead. Replace-one's pair is symmetric (y -> -y swaps its laws): one direction, one FFT.
    Fails for an accountant that composes one direction under add/remove, or both under replace-one."""
    seen = []

    class Recorded(sub._Guide):
        def __init__(self, pair, y_lo, y_hi, sign):
            seen.append(sign)
            super().__init__(pair, y_lo, y_hi, sign)

    monkeypatch.setattr(sub, "_Guide", Recorded)
    sub.subsampled_gaussian_epsilon(0.3, 1.0, 10, 1e-5, relation=relation)
    assert sorted(seen) == directions


# ---------------------------------------------------------------- one step: the exact epsilon
def _one_step_add_remove_mp(eps, q, sigma):
    """The worse direction's one-step profile at 60 digits: the optimal sets are half-lines at the output
    where the loss log(1 - q + q e^{(2y-1)/(2 sigma^2)}) equals eps (remove) or -eps (add)."""
    with mp.workdps(60):
        eps, q, s = mp.mpf(eps), mp.mpf(q), mp.mpf(sigma)
        y = s**2 * mp.log((mp.expm1(eps) + q) / q) + mp.mpf(1) / 2                 # remove: {y > y*}
        remove = q * mp.ncdf((1 - y) / s) + (1 - q) * mp.ncdf(-y / s) - mp.exp(eps) * mp.ncdf(-y / s)
        if mp.expm1(-eps) + q <= 0:                  # add: the loss is at most -log(1 - q) <= eps
            return remove
        y = s**2 * mp.log((mp.expm1(-eps) + q) / q) + mp.mpf(1) / 2                # add: {y < y'}
        add = mp.ncdf(y / s) - mp.exp(eps) * ((1 - q) * mp.ncdf(y / s) + q * mp.ncdf((y - 1) / s))
        return max(remove, add)


@pytest.mark.parametrize("q, sigma, delta", [(0.03, 0.8, 1e-5), (0.3, 2.5, 1e-3)])
def test_one_step_epsilon_is_the_profiles_root_without_warnings(q, sigma, delta):
    """One step is solved exactly: the profile (60 digits) at the answer is at most delta (up to the double
    profile's round-off, 1e-12 relative; measured 3.5e-15) and above it a relative 1e-9 lower. No warning on the way: ``np.finfo(None)`` is ``np.finfo(float64)`` but deprecated
    since NumPy 1.25. Kills _one_step_epsilon mutmut_40."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eps = sub.subsampled_gaussian_epsilon(q, sigma, 1, delta)
    assert _one_step_add_remove_mp(eps, q, sigma) <= delta * (1 + 1e-12)
    assert _one_step_add_remove_mp(eps * (1 - 1e-9), q, sigma) > delta


def test_one_step_epsilon_just_below_the_total_variation():
    """delta a relative 1e-11, 1e-12 and 1e-13 below the one-step total variation (q = 1e-5, sigma = 50; the
    inputs read off the profile at 0, the answers checked at 60 digits): the root is tiny against the bracket
    [0, 1] (1.6e-18 to 1.7e-20). The answers are upper bounds to the profile's accuracy: the exact profile
    there is at most delta plus a few rounding units of the larger of its two masses (each at most q; the
    double profile at 0 was 2.8e-10 relative above the exact total variation before the tails' common
    factor q was taken out of their difference, and the roots lay far above the exact ones)."""
    q, sigma = 1e-5, 50.0
    tv = sub.subsampled_gaussian_profile(q, sigma, 0.0)       # the worse direction: both are equal at 0
    for k in (1e-11, 1e-12, 1e-13):
        delta = tv * (1 - k)
        eps = sub.subsampled_gaussian_epsilon(q, sigma, 1, delta)
        assert 0.0 < eps < 1e-17
        assert _one_step_add_remove_mp(eps, q, sigma) <= delta + 4 * 2.0**-53 * q
        assert _one_step_add_remove_mp(eps * (1 - 1e-6), q, sigma) > delta


def test_replace_one_profile_is_never_negative_where_both_tails_agree_to_round_off():
    """A hockey-stick divergence is >= 0 and, for eps >= 0, at most the total variation, itself at most q.
    At q = 1e-12, sigma = 1e4 and eps from 1e-18 to 1e-13 the two tails agree to the last bits and their
    log-difference comes out positive by round-off at 18 of these 400 points (measured); it is clipped at 0.
    Kills _replace_profile mutmut_66 (clipped at 1 instead: -7e-18 and the like)."""
    eps = np.geomspace(1e-18, 1e-13, 400)
    d = sub.subsampled_gaussian_profile(1e-12, 1e4, eps, relation="replace_one")
    assert np.all(d >= 0.0)
    assert np.all(d <= 1e-12)


# ---------------------------------------------------------------- replace-one: small sigma and huge epsilon
def _replace_one_profile_mp(eps, q, sigma):
    """A(Y > y*) - e^eps B(Y > y*) at 60 digits, A = (1-q)N(0) + qN(1), B = (1-q)N(0) + qN(-1) (variance
    sigma^2), y* where the loss log(a/b) (increasing in y) equals eps, found by bisection."""
    with mp.workdps(60):
        q, s, eps = mp.mpf(q), mp.mpf(sigma), mp.mpf(eps)

        def log_dens(y, m):
            return mp.log((1 - q) * mp.exp(-y**2 / (2 * s**2)) + q * mp.exp(-(y - m) ** 2 / (2 * s**2)))

        lo, hi = mp.mpf(-1), mp.mpf(1)
        while log_dens(lo, 1) - log_dens(lo, -1) > eps:
            lo *= 2
        while log_dens(hi, 1) - log_dens(hi, -1) < eps:
            hi *= 2
        for _ in range(250):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if log_dens(mid, 1) - log_dens(mid, -1) < eps else (lo, mid)
        y = (lo + hi) / 2
        a = (1 - q) * mp.ncdf(-y / s) + q * mp.ncdf((1 - y) / s)
        b = (1 - q) * mp.ncdf(-y / s) + q * mp.ncdf((-1 - y) / s)
        return float(a - mp.exp(eps) * b)


@pytest.mark.parametrize("q, sigma, eps", [
    (0.3, 0.02, 0.5),          # c = exp(-1/(2 sigma^2)) underflows (sigma < 0.026): the profile was nan
    (0.3, 0.02, 40.0),
    (0.3, 0.02, -3.0),
    (0.3, 0.01, 5000.0),       # sinh(eps/2) overflows (|eps| > 1420): nan; the answer is about 0.148
    (0.7, 0.05, -1600.0),
    (1.0, 0.5, 1500.0),        # q = 1 with sinh overflowing: 0 * inf was nan
    (0.3, 0.7, 2.0),           # the ordinary case, unchanged
])
def test_replace_one_profile_at_small_sigma_and_huge_epsilon(q, sigma, eps):
    """A real bug, found while checking _replace_profile's survivors: the replace-one profile (and
    subsampled_gaussian_delta with one step) was nan for sigma below 0.026 at every epsilon and for |epsilon|
    above 1420, both documented inputs (sigma > 0, epsilon real). Checked against the profile at 60 digits
    to 1e-9 relative (the double profile subtracts two tails)."""
    exact = _replace_one_profile_mp(eps, q, sigma)
    got = sub.subsampled_gaussian_profile(q, sigma, eps, relation="replace_one")
    assert got == pytest.approx(exact, rel=1e-9, abs=1e-300)
    assert sub.subsampled_gaussian_delta(q, sigma, 1, eps, relation="replace_one") == pytest.approx(
        exact, rel=1e-9, abs=1e-300)


# ---------------------------------------------------------------- two steps at a negative epsilon
def _two_steps_direct(q, sigma, eps, relation):
    """delta_2(eps) = E_{y ~ A}[delta_1(eps - L(y))] for each direction's pair (A, B) (the composed hockey-stick
    divergence conditioned on the first output), by composite Gauss-Legendre in y; the worse direction."""
    x, w0 = np.polynomial.legendre.leggauss(48)
    edges = np.linspace(-1 - 12 * sigma, 1 + 12 * sigma, 801)
    mid, half = (edges[1:] + edges[:-1]) / 2, (edges[1:] - edges[:-1]) / 2
    y = (mid[:, None] + half[:, None] * x[None, :]).ravel()
    w = (half[:, None] * w0[None, :]).ravel()
    p = stats.norm.pdf(y, 0, sigma)
    present = (1 - q) * p + q * stats.norm.pdf(y, 1, sigma)
    if relation == "replace_one":
        other = (1 - q) * p + q * stats.norm.pdf(y, -1, sigma)
        one = sub.subsampled_gaussian_profile(q, sigma, eps - np.log(present / other), relation="replace_one")
        return float(np.sum(w * present * one))
    remove = float(np.sum(w * present * sub.subsampled_gaussian_profile(q, sigma, eps - np.log(present / p),
                                                                       "remove")))
    add = float(np.sum(w * p * sub.subsampled_gaussian_profile(q, sigma, eps - np.log(p / present), "add")))
    return max(remove, add)


@pytest.mark.parametrize("q, sigma, eps, relation", [(0.3, 0.8, -0.4, "replace_one"), (0.05, 0.6, -1.3, "add_remove"),
                                                     (0.2, 1.7, -0.15, "add_remove")])
def test_two_steps_at_a_negative_epsilon_against_direct_integration(q, sigma, eps, relation):
    """A negative epsilon is computed by duality from -epsilon: delta(eps) = 1 - e^eps + e^eps delta(-eps). Checked
    against the two-step divergence integrated directly over the first output (the one-step profile is exact at
    every real epsilon), to the accountant's 1e-4 relative and from above. Kills subsampled_gaussian_delta
    mutmut_60 to _76 (the duality's signs, arguments and relation)."""
    direct = _two_steps_direct(q, sigma, eps, relation)
    ours = sub.subsampled_gaussian_delta(q, sigma, 2, eps, relation=relation)
    assert direct * (1 - 1e-9) <= ours <= direct * (1 + 1e-4)
    assert ours > -math.expm1(eps)             # above 1 - e^eps: the pairs are not identical


# ---------------------------------------------------------------- add/remove profile: edges and round-off
@pytest.mark.parametrize("q", [0.3, 0.123, 0.001])
def test_add_remove_profile_at_the_ends_of_the_loss(q):
    """The remove loss log(1 - q + q e^{(2y-1)/(2 sigma^2)}) is above log(1 - q) everywhere, the add loss below
    -log(1 - q): at eps = log(1 - q) every output counts (delta = 1 - e^eps = q exactly), at eps = -log(1 - q)
    none does (delta = 0). At these q, (1 - q) e^{-log(1-q)} rounds to 1, so the half-line formula would take
    log1p(-1) (a division by zero: an error in the tests). Kills _profile mutmut_14 and _71 (the ends sent to
    the half-line formula)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        remove = sub.subsampled_gaussian_profile(q, 0.7, math.log1p(-q), "remove")
        add = sub.subsampled_gaussian_profile(q, 0.7, -math.log1p(-q), "add")
    assert remove == pytest.approx(q, rel=1e-12, abs=0) and add == 0.0


@pytest.mark.parametrize("q, sigma, direction", [(1e-3, 3e15, "remove"), (0.1, 1e16, "add")])
def test_add_remove_profile_is_never_negative_where_both_tails_agree_to_round_off(q, sigma, direction):
    """A hockey-stick divergence is >= 0 and at most q (a removal changes the output only with probability q).
    At a huge noise (documented: sigma > 0) and eps from 1e-40 to 1e-6 the two tails agree to the last bits, and
    their log-difference comes out positive by round-off at 1391 (remove) and 1414 (add) of these 2000 points
    (measured); it is clipped at 0. Kills _profile mutmut_66 and _120 (clipped at 1 instead: down to -6.8e-21 and
    -8e-22)."""
    eps = np.geomspace(1e-40, 1e-6, 2000)
    d = sub.subsampled_gaussian_profile(q, sigma, eps, direction)
    assert np.all(d >= 0.0)
    assert np.all(d <= q)


# ---------------------------------------------------------------- the composed law's epsilon, on laws known exactly
class _FlatGuide:
    """A stand-in for sub._Guide: the law itself (the composition only uses it to place its window)."""

    def __init__(self, idx, w, h):
        keep = w > 0
        self.loss, self.logw = idx[keep] * h, np.log(w[keep])


def _binomial_delta(eps, steps, p1, l0, l1, leak=0.0):
    """delta(eps) = sum_k P(K = k) (1 - e^{eps - L_k})_+ + P(some step leaks) for T steps of a loss l0 or l1
    (l1 with probability p1) that leaks (loss +inf) with probability ``leak``: K ~ Binomial(T, p1)."""
    k = np.arange(steps + 1)
    pk = stats.binom.pmf(k, steps, p1) * (1 - leak) ** steps
    lk = k * l1 + (steps - k) * l0
    # capped at 700: a loss far below eps adds 0 either way, without expm1's overflow warning
    tail = np.maximum(-np.expm1(np.minimum(eps - lk, 700.0)), 0.0)
    return float(np.sum(pk * tail)) - math.expm1(steps * math.log1p(-leak))


def test_composed_epsilon_with_a_leak_is_exact(raises_exactly):
    """Six steps of a loss -0.2 or 0.3 (probability 0.4) on the mesh 0.05, leaking with probability 0.004: the
    composed delta is piecewise of the form a - b e^eps between the losses, which the grid interpolation is exact
    for, so epsilon at delta(eps) is eps (1e-12 relative; measured 2.3e-14). The leak, 1 - 0.996^6 = 0.0238, is
    added to delta, and a delta below it is refused. Kills _Composed.epsilon mutmut_2 (the leak subtracted),
    _19 and _20 (the refusal missed: IndexError) and _21 (its message)."""
    h, steps, leak = 0.05, 6, 0.004
    idx, w = np.array([-4, 6]), np.array([0.6, 0.4]) * (1 - leak)
    comp = sub._Composed(idx, w, leak, steps, h, 0.0, _FlatGuide(idx, w, h))
    for eps in (0.07, 0.33, 0.61, 1.17):
        delta = _binomial_delta(eps, steps, 0.4, -0.2, 0.3, leak)
        assert comp.epsilon(delta) == pytest.approx(eps, rel=1e-12, abs=0)
    with raises_exactly("delta must be larger than the accountant's truncation error 0.0238, got 0.01"):
        comp.epsilon(0.01)


def test_composed_epsilon_at_the_bottom_of_the_window():
    """Six steps of a loss 0 or 0.3 (probability 0.4): the window starts at loss 0 exactly. A delta at or above
    delta(0) is epsilon 0; one between delta(h) and delta(0) has its epsilon in (0, h), exactly. Kills
    _Composed.epsilon mutmut_3 (the first cell skipped: 0 instead of 0.0253), _4 (delta == delta(0) exactly: no
    index above delta, IndexError), _5 and _6 (a window starting at 0 sent to a retilt)."""
    h, steps = 0.05, 6
    idx, w = np.array([0, 6]), np.array([0.6, 0.4])
    comp = sub._Composed(idx, w, 0.0, steps, h, 0.0, _FlatGuide(idx, w, h))
    d0, dh = _binomial_delta(0.0, steps, 0.4, 0.0, 0.3), _binomial_delta(h, steps, 0.4, 0.0, 0.3)
    assert comp.epsilon(d0 * 1.01) == 0.0
    assert comp.epsilon(float(comp.d[0] + comp.extra)) == 0.0      # delta(0) as the grid holds it
    eps = 0.0253
    assert 0 < eps < h and dh < _binomial_delta(eps, steps, 0.4, 0.0, 0.3) < d0
    assert comp.epsilon(_binomial_delta(eps, steps, 0.4, 0.0, 0.3)) == pytest.approx(eps, rel=1e-12, abs=0)


def test_composed_epsilon_below_the_accurate_window_asks_for_a_lower_tilt():
    """200 steps of a loss 0 or 0.3 (probability 0.4) tilted by lam = 1: the window is accurate only from e_min
    (11.5) up and starts at 9.2. An answer below the window's start (5) or between it and e_min (10.5) cannot be
    read off: the composition asks to be retilted at the lowest loss known to lie above the answer (the
    window's start, e_min), and reads an answer inside (15) exactly (1e-8: the untilting's round-off). Kills
    _Composed.epsilon mutmut_10 (the retilt aimed one cell above the window's start) and _42 (at None: _solve's
    next tilt then fails with a TypeError)."""
    h, steps = 0.05, 200
    idx, w = np.array([0, 6]), np.array([0.6, 0.4])
    comp = sub._Composed(idx, w, 0.0, steps, h, 1.0, _FlatGuide(idx, w, h))
    assert comp.loss[0] < 10.5 < comp.e_min < 15.0
    with pytest.raises(sub._Retilt) as below:
        comp.epsilon(_binomial_delta(5.0, steps, 0.4, 0.0, 0.3))
    assert below.value.loss == comp.loss[0]
    with pytest.raises(sub._Retilt) as between:
        comp.epsilon(_binomial_delta(10.5, steps, 0.4, 0.0, 0.3))
    assert between.value.loss == comp.e_min
    assert comp.epsilon(_binomial_delta(15.0, steps, 0.4, 0.0, 0.3)) == pytest.approx(15.0, rel=1e-8, abs=0)


# ---------------------------------------------------------------- Renyi orders and the exact epsilon = 0
@pytest.mark.parametrize("bad, shown", [(math.inf, "inf"), (math.nan, "nan")])
def test_rdp_epsilon_names_a_bad_order(raises_exactly, bad, shown):
    """An infinite or nan order is let through check_array to the range check of subsampled_gaussian_rdp, whose
    message names it. Kills subsampled_gaussian_rdp_epsilon mutmut_20, _21, _25, _26, _30, _31 (check_array's own
    message instead)."""
    with raises_exactly(f"orders must be in (1, 1000000], got {shown}"):
        sub.subsampled_gaussian_rdp_epsilon(0.1, 1.3, 10, 1e-5, orders=[2.0, bad])


def test_no_orders_is_refused_by_name(raises_exactly):
    """An empty list of orders has no minimum: numpy's "zero-size array to reduction operation minimum which has
    no identity" named no parameter (the helper's finding in the survivors of the mutation run); the sibling in
    composition.rdp_to_dp too."""
    with raises_exactly("orders must not be empty, got shape (0,)"):
        sub.subsampled_gaussian_rdp_epsilon(0.1, 1.3, 10, 1e-5, orders=[])
    with raises_exactly("alpha must not be empty (at least one order), got shape (0,)"):
        rdp_to_dp([], [], 1e-5)


def test_replace_one_epsilon_is_not_zero_where_only_add_remove_would_be():
    """q = 0.01, sigma = 2, two steps: the coupling bound 1 - (1 - TV_1)^2 decides epsilon = 0 exactly, with TV_1
    the one-step total variation of the relation accounted: q (2 Phi(1/(2 sigma)) - 1) under add/remove, smaller
    than the replace-one two-step delta(0) (integrated directly). A delta between them has a positive replace-one
    epsilon, an upper bound on the direct two-step delta. Kills subsampled_gaussian_epsilon mutmut_57 (the
    add/remove TV used for replace-one: 0 returned)."""
    q, sigma = 0.01, 2.0
    with mp.workdps(50):
        tv_add_remove = float(q * (2 * mp.ncdf(1 / (2 * mp.mpf(sigma))) - 1))
    bound_add_remove = -math.expm1(2 * math.log1p(-tv_add_remove))
    at_zero = _two_steps_direct(q, sigma, 0.0, "replace_one")
    assert bound_add_remove < at_zero
    delta = (bound_add_remove + at_zero) / 2
    eps = sub.subsampled_gaussian_epsilon(q, sigma, 2, delta, relation="replace_one")
    assert eps > 0
    assert _two_steps_direct(q, sigma, eps, "replace_one") <= delta


def test_amplification_without_replacement_refuses_a_ratio_below_the_doubles(raises_exactly):
    """n = 10**400 made m/n underflow to 0, read as "nothing is sampled": epsilon 0 for an amplified epsilon of
    about 79 (an under-reported privacy loss). Now population_size is capped at 10**300, where the answer is
    log(1 + 1e-300 (e^1000 - 1)) = 309.2244721017863 (mpmath, 50 digits)."""
    with mp.workdps(50):
        want = float(mp.log(1 + mp.mpf(10) ** -300 * mp.expm1(1000)))
    assert sub.amplify_without_replacement(1000.0, 1, 10**300)[0] == pytest.approx(want, rel=1e-14, abs=0)
    with raises_exactly("population_size must be <= 10**300 (so that sample_size / population_size "
                        "is a normal double), got an integer of 401 digits"):
        sub.amplify_without_replacement(1000.0, 1, 10**400)


# ---------------------------------------------------------------- the resumed run of 2026-11-27: replace-one tails, the CLT mu
def _clt_mu_mp(q, sigma, steps):
    """q sqrt(T (e^{1/sigma^2} - 1)) at 60 digits."""
    with mp.workdps(60):
        return float(mp.mpf(q) * mp.sqrt(steps * mp.expm1(1 / mp.mpf(sigma) ** 2)))


def test_replace_one_profile_below_sigma_1e_150_at_huge_epsilon():
    """Kills _replace_tail_points mutmut_116 (asinh of the clamped x instead of the asymptotic log 2|x| where x
    leaves the doubles): it gave -0.0 instead of q. Reference: the replace-one profile at 60 digits."""
    q, sigma, eps = 0.3, 0.999e-150, 2.831322139925939e299
    exact = _replace_one_profile_mp(eps, q, sigma)
    assert float(sub.subsampled_gaussian_profile(q, sigma, eps, relation="replace_one")) == pytest.approx(
        exact, rel=1e-9)


def test_replace_one_profile_above_sigma_1e_150_at_negative_epsilon():
    """Kills _replace_tail_points mutmut_124 (odds - log 2 sinh in the asymptotic root): 0.5 instead of 1.
    Reference: 1 - e^-50 <= H_{e^-50} <= 1, so H = 1 to 2e-22."""
    got = float(sub.subsampled_gaussian_profile(0.5, 2e150, -50.0, relation="replace_one"))
    assert got == pytest.approx(1.0, rel=1e-15, abs=0)


@pytest.mark.parametrize("steps", [10**308, 5 * 10**307])
def test_clt_mu_where_steps_times_expm1_overflows(steps):
    """Kills clt_gdp_mu mutmut_38 (- 0.5 log(1 - e^-u)) and mutmut_48 (1.5 log(1 - e^-u)): with T (e^u - 1)
    past the doubles at u = 2 the log form's last term is -0.073, not negligible. Reference: mpmath."""
    q, sigma = 1e-150, 1 / math.sqrt(2)
    assert sub.clt_gdp_mu(q, sigma, steps) == pytest.approx(_clt_mu_mp(q, sigma, steps), rel=1e-12, abs=0)


def test_clt_mu_just_below_the_largest_double_is_finite():
    """Kills clt_gdp_mu mutmut_56 (log_mu < log(max) instead of <=): at this q the log form lands exactly on
    log(sys.float_info.max), whose exp is the finite 1.7976931348622732e308, and mu (mpmath: 1.797693134862194e308)
    is a double; the mutant returned inf. Reference: mpmath."""
    q, sigma = 3.418646003509678e-18, 1 / math.sqrt(1500.0)
    got = sub.clt_gdp_mu(q, sigma, 1)
    assert math.isfinite(got)
    assert got == pytest.approx(_clt_mu_mp(q, sigma, 1), rel=1e-12, abs=0)


# ---------------------------------------------------------------- Renyi DP: survivors of the run of 2026-11-27 (a helper's
# group: mpmath quadratures of A = E_P[(Q/P)^alpha], closed-form brackets, the q = 1 Gaussian)
def _rho_tilted(alpha, q, sigma, dps=30):
    """rho(alpha) = log A / (alpha - 1), A = E_{y~P}[(Q/P)(y)^alpha], P = N(0, s^2), Q = (1-q) P + q N(1, s^2), by
    exponential tilting: (Q/P)(y) = 1 - q + q e^u with u = (2y - 1)/(2 s^2), and E_P[e^{alpha u}] = e^x with
    x = (alpha^2 - alpha)/(2 s^2) and tilted law N(alpha, s^2), so
    A = q^alpha e^x E_{y~N(alpha, s^2)}[(1 + c e^{-u})^alpha], c = (1-q)/q; the expectation is a quadrature of a
    smooth function (break points at the tilted mean, at y = s^2 log c + 1/2 where c e^{-u} = 1, and at 0)."""
    with mp.workdps(dps):
        a, q, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
        x = (a * a - a) / (2 * s * s)
        c = (1 - q) / q
        f = lambda y: mp.npdf(y, a, s) * mp.power(1 + c * mp.exp(-(2 * y - 1) / (2 * s * s)), a)  # noqa: E731
        ystar = s * s * mp.log(c) + mp.mpf(1) / 2
        pts = sorted({a - 12 * s, a, a + 12 * s, ystar - 12 * s, ystar, ystar + 12 * s, -12 * s, mp.mpf(0), 12 * s})
        t = mp.quad(f, [-mp.inf] + pts + [mp.inf])
        return (a * mp.log(q) + x + mp.log(t)) / (a - 1)


def _rho_large_sigma(alpha, q, sigma, dps=40, cuts=(-6, 0, 6)):
    """rho(alpha) for a large sigma: A - 1 = E_{z~N(0,1)}[(1 + q (e^u - 1))^alpha - 1], u = z/s - 1/(2 s^2),
    written with expm1/log1p so that A - 1 ~ 1e-17 keeps its digits; 40 digits cover the cancellation of the
    first-order term (alpha q z / s ~ 1e-8 against a result ~ 1e-17). ``cuts``: the quadrature's break points
    in z (more of them for a small sigma, where the integrand's mass moves out to |z| ~ 30)."""
    with mp.workdps(dps):
        a, q, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
        f = lambda z: mp.npdf(z) * mp.expm1(a * mp.log1p(q * mp.expm1(z / s - 1 / (2 * s * s))))  # noqa: E731
        return mp.log1p(mp.quad(f, [-mp.inf, *cuts, mp.inf])) / (a - 1)


def _sigma_for_lower(alpha, q, lower):
    """The sigma at which the lower bound (alpha log q + x)/(alpha - 1) of rho equals ``lower``."""
    x = lower * (alpha - 1) - alpha * math.log(q)
    return math.sqrt(alpha * (alpha - 1) / (2 * x))


@pytest.mark.parametrize("alpha, q, sigma", [
    (7.25, 1e-290, _sigma_for_lower(7.25, 1e-290, 2e13)),          # between 2^53 / |log q| and 2^53 |log q|
    (1000.5, 0.3, _sigma_for_lower(1000.5, 0.3, 4 * 2**53 * -math.log(0.3) / 999.5**2)),
    (2.5, 0.01, 0.05),
    (100.5, 0.87, 1.818),
    (2.5, 1e-10, 0.1),
])
def test_fractional_rdp_at_small_sigma_against_mpmath(alpha, q, sigma):
    """rho at a fractional order and a small sigma (rho from 15 to 4e10) against a 30-digit mpmath quadrature of
    the tilted integral (_rho_tilted). The upper bound log(1 - q + q e^x)/(alpha - 1) is off the true rho by about
    |log q| (the truth sits at the lower bound (alpha log q + x)/(alpha - 1) here), so it may be returned only once
    that is below an ulp of rho (the 2^53 |log q| threshold); elsewhere the series (rtol 1e-13) is used. Tolerance
    1e-13 relative: the series' own rtol (measured errors of the original: 2e-16 at most). The points sit where
    a threshold moved by a factor (alpha - 1)^2, 2^53 / |log q| in place of 2^53 |log q|, or 2 * 53 in place of
    2^53 would return the upper bound (errors 3e-11 to 1%), or where the large-sigma expansion alpha q^2/(2 sigma^2)
    would be taken at sigma = 0.1 (1e-18 for 86.6).
    Kills the mutants of _rdp_fractional that move its upper-bound switch or the second-order branch (the run of
    2026-11-27: mutmut_12, 18, 19, 35 of the function before its quadrature branch)."""
    ref = _rho_tilted(alpha, q, sigma)
    got = sub.subsampled_gaussian_rdp(q, sigma, alpha)
    assert float(abs(got - ref) / ref) < 1e-13


@pytest.mark.parametrize("alpha, q, x", [
    (1.0 + 2.0**-52, 0.3, 4.5),
    (1.0 + 2.0**-50, 0.8, 2.5),
    (1.0 + 2.0**-52, 1e-3, 21.0),
])
def test_fractional_rdp_next_to_order_one_is_bracketed(alpha, q, x):
    """At an order a few ulps above 1 with a small sigma (x = (alpha^2 - alpha)/(2 sigma^2) of 2.5 to 21), rho is
    ~1e16 and lies between log((1-q)^alpha + q^alpha e^x)/(alpha - 1) (superadditivity of t -> t^alpha for
    alpha >= 1: (a + b)^alpha >= a^alpha + b^alpha, with a = 1 - q, b = q e^u, and E_P[e^{alpha u}] = e^x) and
    log(1 - q + q e^x)/(alpha - 1) (Jensen: t^alpha is convex). Both in mpmath at 40 digits; here they differ by
    ~1e-16 relative, and the term log1p((1-q) e^-x / q) of the upper bound (2e-2 to 8e-7) moves rho by 1e-3 to
    1e-8 relative, so the bracket, widened by 1e-14 for rounding (measured: the original sits inside it),
    checks that term and the sign of log q. Kills the mutants of _rdp_fractional that change the upper bound (the
    run of 2026-11-27: mutmut_24, 25, 27, 29, 30 of the function before its quadrature branch)."""
    sigma = math.sqrt(alpha * (alpha - 1) / (2 * x))
    with mp.workdps(40):
        a, qq, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
        xx = (a * a - a) / (2 * s * s)
        lo = mp.log((1 - qq) ** a + qq ** a * mp.exp(xx)) / (a - 1)
        hi = mp.log(1 - qq + qq * mp.exp(xx)) / (a - 1)
        got = sub.subsampled_gaussian_rdp(q, sigma, alpha)
        assert lo * (1 - mp.mpf("1e-14")) <= got <= hi * (1 + mp.mpf("1e-14"))


@pytest.mark.parametrize("alpha, q, sigma", [
    (1.5, 0.6, 2.0**27),                 # sigma = 2^27 exactly, alpha q < 1
    (2.5, 0.5, 1.25 * 2.0**27),          # alpha q = 2^-27 sigma = 1.25 exactly
])
def test_fractional_rdp_keeps_its_digits_from_the_documented_sigma_on(alpha, q, sigma):
    """The docstring promises that fractional orders keep the digits of a tiny rho from sigma >= 2^27 max(1, alpha q)
    on; at the edge itself (sigma = 2^27, and alpha q = 2^-27 sigma) rho (~1e-17) is checked against a 40-digit
    quadrature (_rho_large_sigma) to 1e-13 relative (the expansion's error there is O((alpha q / sigma)^2) ~ 1e-16;
    measured 1e-16). The series would give 0 or a rounding unit (rho of 1e-17 off by 100% or more).
    Kills the mutants of _rdp_fractional that move the second-order branch's edges (the run of 2026-11-27:
    mutmut_36, 41 of the function before its quadrature branch)."""
    ref = _rho_large_sigma(alpha, q, sigma)
    got = sub.subsampled_gaussian_rdp(q, sigma, alpha)
    assert float(abs(got - ref) / ref) < 1e-13


def test_rdp_of_no_orders_is_an_empty_array_of_the_same_shape():
    """subsampled_gaussian_rdp is vectorized over the orders: an empty array of orders gives an empty float array
    of the same shape (as numpy's ufuncs do), not an error; the accountant that needs an order
    (subsampled_gaussian_rdp_epsilon) refuses no orders itself. Kills subsampled_gaussian_rdp mutmut_10, 15."""
    for orders in ([], np.empty((2, 0))):
        out = sub.subsampled_gaussian_rdp(0.13, 1.7, orders)
        assert isinstance(out, np.ndarray) and out.dtype == float and out.shape == np.shape(orders)


def test_rdp_epsilon_where_steps_times_rho_overflows_is_quiet_and_exact():
    """q = 1 is the Gaussian mechanism, rho(alpha) = alpha / (2 sigma^2); at sigma = 1e-153 that is 5e305 alpha,
    finite for every default order, and 2 steps overflow it to inf for the orders above 180. Those orders are
    dropped (an inf epsilon cannot be the minimum) without a RuntimeWarning (the tests run warning-free), and the
    answer is the smallest order's: T rho(1.05) = 1.05e306 plus the conversion's O(log(1/delta)) terms, which are
    1e-304 of it, so 1e-12 relative is rounding. Kills subsampled_gaussian_rdp_epsilon mutmut_30."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eps = sub.subsampled_gaussian_rdp_epsilon(1.0, 1e-153, 2, 1e-5)
    assert math.isclose(eps, 2 * 1.05 / (2 * 1e-153**2), rel_tol=1e-12)


# ---------------------------------------------------------------- survivors of the run of 2026-11-27 (a helper's group:
# the one-step profile, the accountant's entry points)
def _replace_one_loss_mp(y, q, sigma):
    """log(a/b)(y) at 60 digits, a = (1-q)N(0) + qN(1), b = (1-q)N(0) + qN(-1) (variance sigma^2); the
    exponents reach 1e302, which mpmath keeps (doubles would underflow every density)."""
    with mp.workdps(60):
        y, q, s = mp.mpf(y), mp.mpf(q), mp.mpf(sigma)

        def phi(m):
            return mp.exp(-(y - m) ** 2 / (2 * s**2))

        return mp.log((1 - q) * phi(0) + q * phi(1)) - mp.log((1 - q) * phi(0) + q * phi(-1))


def test_replace_one_profile_at_a_tiny_sigma_vanishes_once_the_threshold_passes_the_second_mean():
    """sigma = 1e-151 (below 1e-150, where the tail points are written y* = y0 + sigma^2 r, y0 = 1/2),
    q = 0.3, epsilon = c / sigma^2 for c = 0.75, 1, 1.4: the loss is increasing in y and at y_c = c + 0.4 it is
    still below epsilon (mpmath, 60 digits: L(y_c) / epsilon = 0.87, 0.90, 0.93), so {L > eps} lies inside
    {Y > y_c} and delta(eps) <= A(Y > y_c) = (1-q) Phi(-y_c/sigma) + q Phi((1-y_c)/sigma) < 1e-300 (mpmath:
    about 1e-488581292...), i.e. 0 in doubles; the bound is exact math, so the tolerance is none. At c = 0.3
    (threshold near y = 0.8, below the second mean) the profile is q up to rounding: delta >= A(S) - e^eps B(S)
    for S = {Y > 0.9}, which mpmath puts within 1e-300 of q; 4 ulps of q allowed. The mutant adds y0/sigma
    instead of subtracting it in the point (1 - y*)/sigma, moving A's second tail by 1/sigma = 1e151 standard
    deviations: it gave q = 0.3 at c = 0.75, 1 and 1.4. Kills _replace_tail_points mutmut_126."""
    q, s = 0.3, 1e-151
    for c in (0.75, 1.0, 1.4):
        eps, yc = c / s**2, c + 0.4
        assert _replace_one_loss_mp(yc, q, s) < eps
        with mp.workdps(60):
            bound = (1 - mp.mpf(q)) * mp.ncdf(-yc / mp.mpf(s)) + mp.mpf(q) * mp.ncdf((1 - yc) / mp.mpf(s))
        assert bound < mp.mpf("1e-300")
        assert 0.0 <= sub.subsampled_gaussian_profile(q, s, eps, relation="replace_one") <= float(bound)
    eps = 0.3 / s**2
    with mp.workdps(60):
        S, Q = mp.mpf(s), mp.mpf(q)
        a_mass = (1 - Q) * mp.ncdf(-0.9 / S) + Q * mp.ncdf(0.1 / S)
        b_mass = (1 - Q) * mp.ncdf(-0.9 / S) + Q * mp.ncdf(-1.9 / S)
        lower = a_mass - mp.exp(eps) * b_mass
    assert abs(lower - q) < mp.mpf("1e-300")
    assert sub.subsampled_gaussian_profile(q, s, eps, relation="replace_one") == pytest.approx(q, rel=4 * 2.0**-52,
                                                                                                abs=0)


def test_amplification_without_replacement_refuses_one_record_beyond_the_cap(raises_exactly):
    """population_size is documented as at most 10**300 (so that m/n is a normal double); one more record,
    10**300 + 1, must raise the documented ValueError (a documented error, exact message). The mutants moved
    the cap to 11**300 (about 10**312) or 10**301 and accepted it. Kills amplify_without_replacement
    mutmut_24, 25."""
    with raises_exactly("population_size must be <= 10**300 (so that sample_size / population_size "
                        "is a normal double), got an integer of 301 digits"):
        sub.amplify_without_replacement(1.0, 1, 10**300 + 1)
    assert sub.amplify_without_replacement(1.0, 1, 10**300)[0] == pytest.approx(1e-300 * math.expm1(1.0),
                                                                                 rel=1e-14, abs=0)


def test_gaussian_epsilon_one_ulp_below_the_total_variation_is_the_root():
    """q = 1 (the Gaussian mechanism, mu = sqrt(4) / 12), delta one ulp below the double total variation
    gaussian_delta(0, mu). The true root (mpmath, 60 digits, bisection on Phi(mu/2 - e/mu) - e^e Phi(-mu/2 - e/mu)
    = delta) is 4.8e-16; the answer is positive and at most 1e-15 (the profile's own accuracy, 1e-14 of delta, is
    1e-15 of epsilon here), with the documented profile at most delta there. It was 0 (loss.gaussian_epsilon's
    brentq on log delta took delta(0) and delta as one number), and a walk upwards one double at a time from a
    root of 7e-17 would need some 1e16 steps (the profile moves in steps of its own rounding): both found by a
    helper from the survivors mutmut_35 and mutmut_41 of the function's earlier walk."""
    sigma, steps = 12.0, 4
    mu = math.sqrt(steps) / sigma
    delta = math.nextafter(float(gaussian_delta(0.0, mu)), 0.0)
    with mp.workdps(60):
        m = mp.mpf(mu)
        root = mp.findroot(lambda e: mp.ncdf(m / 2 - e / m) - mp.exp(e) * mp.ncdf(-m / 2 - e / m) - delta,
                           (mp.mpf(0), mp.mpf("1e-10")), solver="bisect")
    assert 1e-16 < root < 1e-15
    eps = sub.subsampled_gaussian_epsilon(1.0, sigma, steps, delta)
    assert 0.0 < eps <= 1e-15 and gaussian_delta(eps, mu) <= delta


def test_gaussian_epsilon_near_delta_one_is_the_root():
    """q = 1, mu = sqrt(144) / 1.25 = 9.6, delta read off gaussian_delta at 0.3 (0.99999815740...; where delta is
    this close to 1 the profile is flat to the last bit over long runs of epsilon, 717323 ulps of epsilon wide in
    a helper's measurement). Reference: the root of the exact profile by mpmath (60 digits); tolerance: 4 ulps of
    delta divided by the profile's slope e^e Phi(-mu/2 - e/mu) at the root (the answer can only be as good as
    delta's last bit), plus 8 ulps of the root (measured: 6.5e-15 relative)."""
    sigma, steps = 1.25, 144
    mu = math.sqrt(steps) / sigma
    delta = float(gaussian_delta(0.3, mu))
    with mp.workdps(60):
        m = mp.mpf(mu)
        root = mp.findroot(lambda e: mp.ncdf(m / 2 - e / m) - mp.exp(e) * mp.ncdf(-m / 2 - e / m) - delta,
                           (mp.mpf(0.27), mp.mpf(0.33)), solver="bisect")
        slope = mp.exp(root) * mp.ncdf(-m / 2 - root / m)
        tol = float(4 * 2.0**-53 / slope + 8 * 2.0**-52 * root)
    assert abs(sub.subsampled_gaussian_epsilon(1.0, sigma, steps, delta) - float(root)) <= tol


# ---------------------------------------------------------------- helper A1 (2026-11-28): the coarse pass of _account that reads epsilon 0, pinned against the two-step total variation in mpmath
def _tv_two_steps(q, sigma):
    """Total variation between N(0, s^2)^2 and ((1-q) N(0, s^2) + q N(1, s^2))^2, by mpmath at 20 digits:
    TV = E_P[(L1 L2 - 1)_+], L(x) = 1 - q + q exp((2x - 1)/(2 s^2)) increasing in x; for fixed x1 the inner
    expectation over x2 > t(x1) is closed form, E_P[L2; x2 > t] = (1-q) Phi^c(t/s) + q Phi^c((t-1)/s)."""
    with mp.workdps(20):
        q, s = mp.mpf(q), mp.mpf(sigma)
        sf = lambda z: mp.ncdf(-z)

        def inner(x1):
            l1 = 1 - q + q * mp.exp((2 * x1 - 1) / (2 * s * s))
            r = 1 / l1 - (1 - q)
            if r <= 0:                       # every x2 makes L1 L2 > 1
                return l1 - 1
            t = s * s * mp.log(r / q) + mp.mpf(1) / 2
            return l1 * ((1 - q) * sf(t / s) + q * sf((t - 1) / s)) - sf(t / s)

        dens = lambda x: mp.npdf(x, 0, s)
        return float(mp.quad(lambda x: dens(x) * inner(x), [-mp.inf, 0.5, mp.inf]))


def test_epsilon_zero_decided_by_the_coarse_pass_two_steps():
    """epsilon(delta) of two subsampled Gaussian steps (q = 0.37, sigma = 4.3, add/remove) around delta = TV_2,
    the composed pair's total variation from mpmath (20 digits; quadrature error far below the margins): at
    delta = 1.15 TV_2 the true epsilon is 0, and the answer must be 0 (the connect-the-dots pair dominates the
    true one only by the mesh's relative 1e-4, far inside the 15 % margin); at 0.85 TV_2 the true epsilon is
    positive (delta(0) = TV_2 > delta), and an upper bound must be > 0. Both deltas lie below the coupling bound
    1 - (1 - TV_1)^2, so _account runs (checked here): its coarse pass reads epsilon 0 at the upper delta.
    Pins the coarse == 0 branch of _account (mutmut_225, 227, 234 keep its value; none killed by value)."""
    q, sigma = 0.37, 4.3
    tv2 = _tv_two_steps(q, sigma)
    tv1 = subsampling._one_step_profiles(q, sigma, "add_remove", 0.0)
    assert 1.15 * tv2 < -math.expm1(2 * math.log1p(-tv1))           # below the coupling bound: the FFT runs
    assert subsampling.subsampled_gaussian_epsilon(q, sigma, 2, 1.15 * tv2) == 0.0
    assert subsampling.subsampled_gaussian_epsilon(q, sigma, 2, 0.85 * tv2) > 0.0


# ---------------------------------------------------------------- helper A2 (2026-11-28): what _LAST records, the size cap met after the fine pass, a zero from the FFT kept
def _record_passes(monkeypatch):
    """Wrap _discretize and _Composed so every pass the accountant completes is logged."""
    log = []
    discretize, composed = subsampling._discretize, subsampling._Composed

    def rec_discretize(pair, h, y_lo, y_hi):
        disc = discretize(pair, h, y_lo, y_hi)
        log.append(("disc", h, disc[1].size))
        return disc

    class RecComposed(composed):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            log.append(("comp", self.h, self.n))

    monkeypatch.setattr(subsampling, "_discretize", rec_discretize)
    monkeypatch.setattr(subsampling, "_Composed", RecComposed)
    return log


@pytest.mark.parametrize("q, sigma, steps, delta, relation, refined", [
    (0.9, 8.0, 100_000, 1e-6, "replace_one", False),   # FFT of 655360 > 2^18 points: no a-posteriori halving
    (0.05, 8.0, 3, 1e-6, "replace_one", True),        # small FFT: the mesh is halved after the fine pass
])
def test_last_describes_the_pass_that_gave_the_answer(monkeypatch, q, sigma, steps, delta, relation, refined):
    """subsampling._LAST must hold the mesh h, the FFT length n and the one-step cell count of the
    last pass the accountant completed (the pass whose value is returned, or the finest one kept),
    as the benchmark prints them. Reference: the passes themselves, logged by wrapping _discretize
    and _Composed (exact equality: the same numbers, no arithmetic). The first configuration keeps
    its fine-pass mesh (the a-posteriori loop does not run above 2^18 FFT points), the second ends
    on an a-posteriori halving, so both of _account's updates of _LAST are checked.
    Kills _account mutmut_319, 321, 323, 325, 428, 429, 430, 431, 432, 433"""
    log = _record_passes(monkeypatch)
    eps = subsampling.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
    assert eps > 0
    last = subsampling._LAST
    comps = [e for e in log if e[0] == "comp"]
    discs = [e for e in log if e[0] == "disc"]
    _, h, n = comps[-1]
    assert discs[-1][1] == h
    assert isinstance(last["h"], float) and last["h"] == h > 0
    assert isinstance(last["n"], int) and last["n"] == n
    assert isinstance(last["cells"], int) and last["cells"] == discs[-1][2]
    assert last["coarsened"] is False
    # which of _account's two updates wrote last: an a-posteriori pass halves the mesh before it
    assert (comps[-2][1] == 2 * h) == refined


def test_a_size_cap_met_after_the_fine_pass_still_gives_a_sound_epsilon(monkeypatch):
    """When the a-posteriori halving of the mesh meets the size cap (_TooFine), the accountant must
    keep the finest value it has, not give up. In the documented box this happens at a nearly discrete
    loss: q = 1e-6, sigma = 0.4, T = 2, delta = 1e-6 (add/remove; the add direction's fine pass is
    coarsened by the 2^21-cell cap and its halving fails), which takes 9 s; here the one-step grid
    is capped at 2^14 cells so the same path is met in under 0.6 s at q = 1e-4, sigma = 0.5, T = 2,
    delta = 1e-5. Reference (no tolerance needed: the bounds are far apart): epsilon of T steps is at
    least that of one step at the same delta (the exact one-step profile, delta_T >= delta_1 since
    dropping a step is post-processing), and the PLD bound is below the RDP bound.
    Kills _account mutmut_416"""
    monkeypatch.setattr(subsampling, "_MAX_CELLS", 1 << 14)
    q, sigma, steps, delta = 1e-4, 0.5, 2, 1e-5
    eps = subsampling.subsampled_gaussian_epsilon(q, sigma, steps, delta)
    assert isinstance(eps, float)
    assert subsampling._LAST["coarsened"] is True       # the mesh really was capped: the path under test
    assert subsampling.subsampled_gaussian_epsilon(q, sigma, 1, delta) <= eps
    assert eps <= subsampling.subsampled_gaussian_rdp_epsilon(q, sigma, steps, delta)


def test_a_zero_epsilon_from_the_fft_is_final_and_not_chased_into_the_size_cap():
    """q = 0.05, sigma = 5, T = 20, add/remove, delta = 0.018: the coupling bound 1 - (1 - TV_1)^T
    (0.0767, from the exact one-step profile at 0) is above delta, so the FFT accountant answers;
    the composed total variation is below delta (the accountant's own delta at epsilon = 0,
    a sound upper bound, is 0.0179832), so the true epsilon is exactly 0 and the upper bound
    must be 0.0 (no tolerance: a zero is exact). Its fine pass reads 0 with the coarse pass above 0:
    the fine loop must stop there. Going on, the error model's target relative to epsilon = 0
    asks for a mesh of 1e-14, the FFT size cap coarsens it, and the accountant reports
    'coarsened' (which makes the property tests accept a 2e-2 error instead of 1e-4) after an
    FFT of 7e6 points (32 s instead of 0.5 s): the report must say the mesh was not capped.
    Kills _account mutmut_329"""
    q, sigma, steps, delta = 0.05, 5.0, 20, 0.018
    tv1 = subsampling.subsampled_gaussian_profile(q, sigma, 0.0)
    assert -math.expm1(steps * math.log1p(-float(tv1))) > delta      # the FFT runs (no shortcut)
    assert subsampling.subsampled_gaussian_epsilon(q, sigma, steps, delta) == 0.0
    assert subsampling._LAST["coarsened"] is False


# ---------------------------------------------------------------- helper B (2026-11-28): the remove profile where the odds of its threshold overflow; the accountant's least delta
def _remove_profile_mp(q, sigma, eps):
    """(delta, larger tail) of the "remove" pair (Q, P) at 60 digits: the half-line {y > y*},
    y* = sigma^2 log((e^eps - 1 + q) / q) + 1/2, delta = q Phi((1 - y*)/sigma) - (e^eps - 1 + q) Phi(-y*/sigma);
    also the largest |tail point| t, for the documented (1 + t^2) conditioning."""
    with mp.workdps(60):
        q, s, e = mp.mpf(q), mp.mpf(sigma), mp.mpf(eps)
        y = s**2 * mp.log((mp.exp(e) - 1 + q) / q) + mp.mpf(1) / 2
        big = q * mp.ncdf((1 - y) / s)
        delta = big - (mp.exp(e) - 1 + q) * mp.ncdf(-y / s)
        t = max(abs((1 - y) / s), abs(y / s))
        return delta, big, float(t)


@pytest.mark.parametrize("q, sigma, eps", [
    (3e-301, 0.0265, 18.0),     # expm1(18) / q overflows: the threshold's log-odds come from x - log q + log1p(...)
    (1e-300, 0.027, 20.0),
    (0.5, 0.03, 710.0),         # the same branch at a moderate q: e^710 itself overflows
])
def test_remove_profile_where_the_odds_of_the_threshold_overflow(q, sigma, eps):
    """The "remove" profile where (e^eps - 1) / q leaves the doubles, so that _log_odds_excess takes
    x - log q + log1p(-(1 - q) e^-x). At q = 3e-301 and eps = 18 the correction log1p(-(1-q) e^-18) = -1.5e-8 is
    far above an ulp of x - log q = 709, and sigma is chosen so that the threshold y* = sigma^2 x + 1/2 sits near
    the second mean (y* ~ 1), where the tails are not saturated and the profile (~1e-301, a normal double) depends
    on x. Reference: the closed form at 60 digits (mpmath); tolerance the documented accuracy, 4 rounding units of
    the larger tail q Phi((1 - y*)/sigma) times (1 + t^2), t the largest tail point (about 38 here: 1.3e-12
    relative); measured at most 2.5e-14 of it. The mutants changed the profile by 7e-11 to 6e-10 of it (the correction's sign,
    its factor 2 - q, log1p(+...)), or, with x + log q, to q itself. Kills _log_odds_excess mutmut_31, 32, 36, 38."""
    ref, big, t = _remove_profile_mp(q, sigma, eps)
    got = subsampling.subsampled_gaussian_profile(q, sigma, eps, "remove")
    assert big > 0 and ref > 0
    assert abs(got - ref) <= 4 * 2.0**-52 * (1 + t * t) * big, (got, ref)


def test_the_accountants_smallest_delta_is_the_one_its_message_names(monkeypatch, raises_exactly):
    """The FFT accountant refuses a delta whose tail cut 1e-7 delta / steps is not a normal double, with the
    message "delta must be in [least, 1)", least = 1e7 * 2.2250738585072014e-308 * steps. So least itself is
    accepted (1e-7 * least / steps is exactly the smallest normal double, checked here) and the double just below
    it is refused; at steps = 1000 a delta of 1e-299 (tail cut 1e-309, subnormal) is refused. The accountant itself
    is replaced by a stub (only the domain check is under test, and an FFT at delta = 1e-298 takes seconds); the
    total-variation shortcut does not apply (its bound, about 0.04 at q = 0.01, sigma = 1, is far above these
    deltas). Kills _check_pld_domain mutmut_8 (delta * steps), 10 (1.0000001 for 1e-7) and 11 (<= at the end of
    the range)."""
    monkeypatch.setattr(subsampling, "_account", lambda *args, **kwargs: 1.25)
    tiny = sys.float_info.min
    for steps in (2, 1000):
        least = 1e7 * tiny * steps
        assert 1e-7 * least / steps == tiny
        assert subsampling.subsampled_gaussian_epsilon(0.01, 1.0, steps, least) == 1.25
        below = float(np.nextafter(least, 0.0))
        with raises_exactly(f"delta must be in [{least!r}, 1) for the FFT accountant at steps = {steps} (its tails "
                            f"are cut at 1e-7 * delta / steps, a normal double), got {below!r}"):
            subsampling.subsampled_gaussian_epsilon(0.01, 1.0, steps, below)
    with raises_exactly("delta must be in [2.2250738585072014e-298, 1) for the FFT accountant at steps = 1000 (its "
                        "tails are cut at 1e-7 * delta / steps, a normal double), got 1e-299"):
        subsampling.subsampled_gaussian_epsilon(0.01, 1.0, 1000, 1e-299)



# ---------------------------------------------------------------- helper S: _epsilon_fallback, its call, _log_odds_excess, _Pair.truncation

def _one_step_delta(q, sigma, eps, relation):
    """The exact one-step profile (worse direction under add/remove), the route subsampled_gaussian_profile."""
    if relation == "replace_one":
        return float(subsampling.subsampled_gaussian_profile(q, sigma, eps, relation="replace_one"))
    return max(float(subsampling.subsampled_gaussian_profile(q, sigma, eps, d)) for d in ("remove", "add"))


_FALLBACK_POINTS = [(0.01, 1.0, 100, 1e-5), (0.5, 0.6, 3, 1e-6)]


def _check_fallback_value(got, q, sigma, steps, delta, relation):
    # a lower bound on any T-step epsilon: the exact one-step epsilon at delta (the composition has one step as its
    # marginal), through the exact one-step profile: delta_1(got) <= delta
    assert _one_step_delta(q, sigma, got, relation) <= delta * (1 + 1e-9), (got, relation)
    if relation == "add_remove":
        # documented: the smaller of basic composition and the RDP bound, so at most the RDP bound (an independent
        # upper bound: Mironov's conversion of the subsampled Gaussian's Renyi DP)
        assert got <= subsampling.subsampled_gaussian_rdp_epsilon(q, sigma, steps, delta) * (1 + 1e-12), got
    else:
        # documented: basic composition of the exact one-step replace-one epsilon at delta / T, i.e. each step is
        # (got / T, delta / T)-DP by the exact one-step replace-one profile
        assert _one_step_delta(q, sigma, got / steps, relation) <= (delta / steps) * (1 + 1e-9), got


@pytest.mark.parametrize("relation", subsampling.RELATIONS)
def test_epsilon_fallback_is_the_smaller_sound_bound(relation):
    """_epsilon_fallback (used where the tilted FFT cannot reach the answer) at two points where the RDP bound is far
    below basic composition under add/remove (1.22 against 58.0 at q = 0.01, sigma = 1, T = 100, delta = 1e-5; 15.1
    against 24.9 at q = 0.5, sigma = 0.6, T = 3, delta = 1e-6). Under add/remove the result must be at most the RDP
    bound (documented: the smaller of the two); under replace-one it is basic composition of the exact one-step
    replace-one epsilon at delta / T, so the exact one-step replace-one profile (subsampled_gaussian_profile, another
    route) at got / T must be at most delta / T (tolerance 1e-9 relative: got / T is T times a root rounded upwards,
    divided by T, an ulp or two; the mutants give 1.10 to 7.1 times delta / T). In both, the one-step profile at got is
    at most delta (a lower bound on any T-step epsilon). The add/remove one-step epsilon in its place (ignoring the
    relation) is too small for replace-one; a wrong relation test returns basic composition (58.0 > 1.22) under
    add/remove, or the add/remove RDP bound (15.1, below the replace-one accountant's 16.06) under replace-one.
    Kills _epsilon_fallback mutmut_5, 12, 13, 14"""
    for q, sigma, steps, delta in _FALLBACK_POINTS:
        got = subsampling._epsilon_fallback(q, sigma, steps, relation, delta)
        _check_fallback_value(got, q, sigma, steps, delta, relation)


@pytest.mark.parametrize("relation", subsampling.RELATIONS)
def test_epsilon_where_the_fft_fails_keeps_the_relation(monkeypatch, relation):
    """subsampled_gaussian_epsilon with the FFT made to fail (as it does near q = 1e-8, sigma = 0.4, a few steps):
    the fallback must be given the caller's relation. At q = 0.5, sigma = 0.6, T = 3, delta = 1e-6 the checks of
    test_epsilon_fallback_is_the_smaller_sound_bound must hold (at most the RDP bound 15.1 under add/remove; the exact
    one-step replace-one profile at got / T at most delta / T under replace-one, tolerance 1e-9 relative). Without
    the relation the fallback gives basic composition of the add/remove one-step epsilon: 24.9 > 15.1 under
    add/remove, and under replace-one a step epsilon at which the replace-one profile is 7.1 times delta / T.
    Kills subsampled_gaussian_epsilon mutmut_95"""
    def unreached(*args, **kwargs):
        raise subsampling._Unreached("the tilted FFT did not reach the answer")

    monkeypatch.setattr(subsampling, "_account", unreached)
    q, sigma, steps, delta = _FALLBACK_POINTS[1]
    got = subsampling.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
    _check_fallback_value(got, q, sigma, steps, delta, relation)


@pytest.mark.parametrize("q", [1e-6, 1e-4])
def test_add_profile_near_its_end_at_small_q(q):
    """The "add" profile for eps between about q/2 and -log(1 - q), its end, at small q: there expm1(-eps)/q is below
    -1/2 and the threshold is sigma^2 log1p(expm1(-eps)/q) + 1/2; the form log(e^-eps - (1 - q)) - log q (kept for
    q >= 1/2, where 1 - q is exact) loses the digits of e^-eps that the subtraction of 1 - q cancels (an ulp of 1 over
    q (1 + r)): 5e-11 relative at q = 1e-6, sigma = 0.4. Reference: the half-line's two masses at 60 digits;
    tolerance 8 rounding units of the larger term q + e^eps - 1 times (1 + t^2), t the threshold in standard
    deviations (the profile's documented accuracy; measured within 0.4 units on the original, 5400 units on the
    mutant). Kills _log_odds_excess mutmut_48"""
    def mp_add(q, sigma, eps):
        with mp.workdps(60):
            e, qq, s = mp.mpf(eps), mp.mpf(q), mp.mpf(sigma)
            y = s**2 * mp.log1p(mp.expm1(-e) / qq) + mp.mpf(1) / 2
            return float((1 - mp.exp(e) * (1 - qq)) * mp.ncdf(y / s) - mp.exp(e) * qq * mp.ncdf((y - 1) / s)), float(y / s)

    end = -math.log1p(-q)
    for sigma in (0.4, 1.3):
        for f in (0.6, 0.9, 0.99):
            eps = f * end
            got = float(subsampling.subsampled_gaussian_profile(q, sigma, eps, "add"))
            want, t = mp_add(q, sigma, eps)
            tol = 8 * 2.0**-52 * (q + math.expm1(eps)) * (1 + t * t)
            assert abs(got - want) <= tol, (q, sigma, eps, got, want)


@pytest.mark.parametrize("relation", subsampling.RELATIONS)
@pytest.mark.parametrize("ratio", [1.0, 0.5])
def test_delta_at_q_equal_to_the_truncation_tail(relation, ratio):
    """subsampled_gaussian_delta at T = 2 and q = 5e-20 or 2.5e-20: the truncation's tail 1e-7 * 1e-12 / T and half
    of it. There the normal quantile of the q-weighted component, z(q) = -ndtri(tail / (2 q)), is 0 (q = tail) or
    -inf (q = tail / 2: tail / (2 q) = 1); a truncation that divides by z(q), or that adds s z(q) where it should
    subtract it (or the reverse), put an end of the output line at 4e24 standard deviations or at infinity, and the
    discretization raised "repeats may not contain negative values". q is in the documented (0, 1], sigma = 1 in
    [0.1, 1e10], epsilon = 5 real. The answer must be a number between the exact one-step profile at epsilon (a lower
    bound; 0 here) and 1 - (1 - q)^T <= T q (the composed total variation, coupling the steps) plus the documented
    floor, the tails beyond the cut added whole (at most the tail of each of the two laws a step: 2 T tail = 2e-19);
    the original gives 5.0e-20 at both. Kills _Pair.truncation mutmut_35, 38, 53, 55"""
    steps = 2
    tail = 1e-7 * 1e-12 / steps
    q, sigma, eps = tail * ratio, 1.0, 5.0
    got = subsampling.subsampled_gaussian_delta(q, sigma, steps, eps, relation=relation)
    assert math.isfinite(got)
    assert _one_step_delta(q, sigma, eps, relation) <= got <= steps * q + 2 * steps * tail


def _mp_replace_one_step(q, sigma, eps, dps):
    """The replace-one one-step profile of the floats given, from its definition in mpmath: the half-line {y > y*}
    where log((1-q) phi(y) + q phi(y - 1)) - log((1-q) phi(y) + q phi(y + 1)) (unit variance scaled by sigma) equals
    eps, found by bisection; then A(y > y*) - e^eps B(y > y*)."""
    with mp.workdps(dps):
        q_, s, e = mp.mpf(q), mp.mpf(sigma), mp.mpf(eps)

        def dens(y, m):
            return mp.exp(-((y - m) / s) ** 2 / 2)

        def loss(y):
            return mp.log((1 - q_) * dens(y, 0) + q_ * dens(y, 1)) - mp.log((1 - q_) * dens(y, 0) + q_ * dens(y, -1))

        lo, hi = mp.mpf(-50), mp.mpf(50)
        for _ in range(mp.mp.prec + 20):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if loss(mid) < e else (lo, mid)
        t = (lo + hi) / 2
        tail_a = (1 - q_) * mp.ncdf(-t / s) + q_ * mp.ncdf((1 - t) / s)
        tail_b = (1 - q_) * mp.ncdf(-t / s) + q_ * mp.ncdf((-1 - t) / s)
        return tail_a - mp.exp(e) * tail_b


@pytest.mark.parametrize("q, sigma, eps", [(1e-310, 1.0, 1e-310), (1e-309, 2.0, 5e-310)])
def test_replace_one_profile_at_a_subnormal_q(q, sigma, eps):
    """q subnormal, where (1 - q) / q overflows and the log-odds of the common component is log1p(-q) - log q (about
    713): at eps of the size of q the profile is about q itself (3.3e-311 and 1.9e-310), a balance of the q terms
    against (1 - q) expm1(eps) Phi(m). Reference: the definition in mpmath at 420 digits (expm1(eps) ~ 1e-310 needs
    them). Tolerance 1e-9 relative: the answers are subnormal, with about 41 bits. Kills _replace_profile mutmut_26
    (log q added instead of subtracted: 5.6e-311 for 3.3e-311)."""
    got = sub.subsampled_gaussian_profile(q, sigma, eps, relation="replace_one")
    assert got == pytest.approx(float(_mp_replace_one_step(q, sigma, eps, 420)), rel=1e-9, abs=0)


# ---------------------------------------------------------------- survivors of run of 2026-11-28, a helper's group (_rdp_fractional's branch
# edges, _log_a_fractional's stopping rule)
_WIDE_CUTS = (-30, -12, -4, 0, 4, 12, 30)   # break points for a sigma below 1


@pytest.mark.parametrize("alpha, q, sigma", [
    (1.5, 1e-8, 1.0),        # sigma = 1 exactly: the quadrature's lower edge
    (7.5, 1e-9, 1.25),       # alpha = 6 sigma exactly (7.5 = 6 * 1.25 in floats): its upper edge
])
def test_fractional_rdp_keeps_its_digits_at_the_edges_of_the_quadrature_branch(alpha, q, sigma):
    """The docstring promises that fractional orders keep the digits of a tiny rho (1.3e-16 and 3.4e-18 here) where
    sigma >= 1 and alpha <= 6 sigma (A - 1 by Gauss-Hermite quadrature, a few ulps against mpmath); at the two
    edges themselves rho is checked against a 40-digit mpmath quadrature (_rho_large_sigma) to 1e-14 relative (a few ulps
    of the quadrature and log1p; measured 2.5e-16 and 2.3e-17). Excluding an edge (sigma > 1, sigma >= 2,
    alpha < 6 sigma) sends the point to the series, which resolves log A only to rounding units of A ~ 1:
    3.8e-7 and 2.4e-7 relative off.
    Kills _rdp_fractional mutmut_55, 56, 57."""
    ref = _rho_large_sigma(alpha, q, sigma, cuts=_WIDE_CUTS)
    got = sub.subsampled_gaussian_rdp(q, sigma, alpha)
    assert float(abs(got - ref) / ref) < 1e-14


@pytest.mark.parametrize("alpha, q, sigma", [(1.01, 0.1, 0.95), (1.25, 0.01, 0.6)])
def test_fractional_rdp_series_resolves_log_a_to_rounding_units_of_a(alpha, q, sigma):
    """At sigma < 1 fractional orders go to MTZ's series, which the docstring says resolves log A to rounding
    units of A (relative tolerance 1e-13 on log A, or the ulps of A): so rho = log A / (alpha - 1) is within
    4 * 2^-52 / (alpha - 1) (4 rounding units of A ~ 1) of a 40-digit mpmath quadrature (_rho_large_sigma), here 1e-11 and
    5e-12 relative (measured errors of the original: 1.2e-13 and 5e-14). The orders near 1 are where the series'
    terms decay slowest (like i^-(alpha+1)), so a looser stop is seen: a stop after the first block
    (rtol 1.0000000000001, 'or' for 'and'), a floor rtol / log A or rtol max(log A, 1) in place of rtol log A (log A is
    below 1 here), or overlapping blocks (start = size) give 2e-10 to 8e-8 relative.
    Kills _log_a_fractional mutmut_1, 129, 134, 138, 153."""
    ref = _rho_large_sigma(alpha, q, sigma, cuts=_WIDE_CUTS)
    got = sub.subsampled_gaussian_rdp(q, sigma, alpha)
    assert float(abs(got - ref)) < 4 * 2.0**-52 / (alpha - 1)


def test_fractional_rdp_at_a_large_order_lies_between_its_integer_neighbours():
    """Renyi divergence is non-decreasing in the order, so rho(1999.5) lies between rho(1999) and rho(2000), both
    from the exact binomial sum in 30-digit mpmath (test_subsampling._log_a_int_mp): 0.0295981 and 0.0296157, a bracket 6e-4 wide
    (relative), no tolerance needed (the original, 0.0296069, sits 3e-4 inside each end; the bracket is exact math).
    q = 0.25, sigma = 50 (alpha > 6 sigma, so the series): the series needs three blocks of terms here, and
    blocks that overlap (start = size: terms 512 to 767 counted twice) give 0.0299537, 1.1 % above the truth
    and above rho(2000). Kills _log_a_fractional mutmut_153."""
    lo = float(_log_a_int_mp(1999, 0.25, 50.0) / 1998)
    hi = float(_log_a_int_mp(2000, 0.25, 50.0) / 1999)
    got = sub.subsampled_gaussian_rdp(0.25, 50.0, 1999.5)
    assert lo <= got <= hi


# ---------------------------------------------------------------- survivors of the run of 2026-11-28, a helper's group (_last_true, _tilt_for,
# _Composed.delta: the PLD accountant's tilt search and the composed delta at its window's edges)
def test_last_true_finds_a_threshold_in_the_first_grid_cell():
    """pred(x) = x <= 1.3e-6 on [1e-6, 30]: true at the grid's first point (1e-6), false from its second
    (1e-6 * 3e7^(1/39) = 1.555e-6) on. The largest x with pred true is 1.3e-6 exactly; the bisection's documented
    precision is a factor 1 + 1e-3, so the answer is in [1.3e-6 / 1.001, 1.3e-6] (pred must hold there). Kills
    _last_true mutmut_14 (the grid's second point read for its first: returns lo = 1e-6, 23 % low)."""
    got = sub._last_true(lambda x: x <= 1.3e-6, 1e-6, 30.0)
    assert 1.3e-6 / 1.001 <= got <= 1.3e-6


def _tail_tilt_mp(p, steps, top, tail_cap=1e-4):
    """For the two-point law P(L = top) = p, P(L = 0) = 1 - p: the largest lam with
    steps * P_lam(L = top) <= tail_cap, P_lam(L = top) = p e^(lam top) / (1 - p + p e^(lam top)), at 50 digits:
    lam* = log(t (1 - p) / (p (1 - t))) / top, t = tail_cap / steps."""
    with mp.workdps(50):
        t = mp.mpf(tail_cap) / steps
        pm = mp.mpf(p)
        return float(mp.log(t * (1 - pm) / (pm * (1 - t))) / mp.mpf(top))


@pytest.mark.parametrize("p", [1e-5, 1e-4 / 3 * (1 - 3e-7)])
def test_tilt_for_counts_a_loss_of_exactly_two_epsilon_in_the_tail(p):
    """_tilt_for's documented tilt: the largest lam >= 0 with steps E_lam[L] <= eps and steps P_lam(L >= 2 eps)
    <= 1e-4. Three steps of a loss 0 or 0.7 (probability p) at eps = 0.35: the atom 0.7 is exactly 2 eps (0.35 * 2
    is exact in binary), so it is the tail; the mean condition (3 * 0.7 p_lam <= 0.35) binds only at p_lam = 1/6,
    far later. lam* = log(t (1 - p) / (p (1 - t))) / 0.7, t = 1e-4 / 3, at 50 digits. p = 1e-5: lam* = 1.71999; the
    answer must satisfy the condition (checked at 50 digits) and be within the bisection's factor 1.001 below lam*.
    p = (1e-4 / 3)(1 - 3e-7): lam* = 4.3e-7, below the search's start 1e-6, so the answer is 0 (no tilt);
    any tilt >= 1e-6 breaks the tail condition. Kills _tilt_for mutmut_7 (the tail as L > 2 eps: the atom
    escapes and the tilt runs to the mean condition's 14.1), mutmut_65 (the search run though the condition fails
    at its start: 1e-6 returned) and mutmut_75 (1.0 returned instead of 0)."""
    steps, eps = 3, 0.35
    loss, w = np.array([0.0, 0.7]), np.array([1 - p, p])
    star = _tail_tilt_mp(p, steps, 0.7)
    got = sub._tilt_for(loss, w, steps, eps)
    with mp.workdps(50):
        e = mp.exp(mp.mpf(got) * mp.mpf(0.7))
        tail = mp.mpf(p) * e / (1 - mp.mpf(p) + mp.mpf(p) * e)
        assert steps * tail <= mp.mpf("1e-4")
    if star > 1e-6:
        assert star / 1.001 <= got <= star
    else:
        assert 0 < star < 1e-6 and got == 0.0


def test_tilt_for_caps_a_law_bounded_above_at_thirty_whatever_the_unit_of_its_masses():
    """A law bounded above (losses -2 or -1, equally likely; 4 steps, eps = 0.5): the mean condition always holds
    (4 E_lam[L] <= -4 < 0.5) and the tail L >= 1 is empty, so the documented cap decides: lam = max(10 / sd, 30)
    with sd = sqrt(4 * 1/4) = 1, i.e. exactly 30 (every grid point true: _last_true returns its hi). A tilt depends on
    the law only, not on the unit of its masses: the same 30 for masses 0.5e-200 each (their logs near -461).
    Kills _tilt_for mutmut_37 (cap 31: returns 31.0) and mutmut_12 (p0 = exp(logw + max logw): the doubled logs, near -922,
    underflow to 0, and 0/0 raises the project's invalid-value warning; with warnings ignored the standard
    deviation is nan and the tilt 1e-6)."""
    loss = np.array([-2.0, -1.0])
    for scale in (1.0, 1e-200):
        w = np.array([0.5, 0.5]) * scale
        assert sub._tilt_for(loss, w, 4, 0.5) == 30.0


def test_composed_delta_just_above_the_window_is_the_leak():
    """Six steps of a loss -0.2 or 0.3 (probability 0.4) on the mesh 0.05, leaking (loss +inf) with probability
    0.004: the window holds every finite composed loss (at most 1.8), so above it delta is exactly the leak,
    1 - 0.996^6 (closed form, 1e-12 relative), at every epsilon past the window's last point, also in the first
    cell beyond it (loss[-1] + 1.5 h, where the cell index equals the window's size). Kills _Composed.delta
    mutmut_19 (j > size instead of >=: d[size] read, IndexError)."""
    h, steps, leak = 0.05, 6, 0.004
    idx, w = np.array([-4, 6]), np.array([0.6, 0.4]) * (1 - leak)
    comp = sub._Composed(idx, w, leak, steps, h, 0.0, _FlatGuide(idx, w, h))
    assert comp.loss[-1] >= 1.8
    exact = -math.expm1(steps * math.log1p(-leak))
    for eps in (comp.loss[-1] + 0.5 * h, comp.loss[-1] + 1.5 * h, comp.loss[-1] + 2.5 * h, comp.loss[-1] + 7.0):
        assert comp.delta(eps) == pytest.approx(exact, rel=1e-12, abs=0)


def test_composed_delta_below_the_accurate_window_asks_for_a_lower_tilt_at_its_start():
    """200 steps of a loss 0 or 0.3 (probability 0.4) tilted by lam = 5: the tilted law sits near loss 45, the
    untilting's round-off reaches down only log(1e-4 / 1e-13) / 5 = 4.1 from the peak, so the window starts at
    41.15, above e_min (30.2). A delta asked below the window (eps = 20, or between e_min and the start, 35)
    cannot be read off: the composition asks to be retilted at the lowest loss known to lie above the answer,
    the window's start (max(loss[0], e_min) = loss[0]), as _Composed.epsilon does. Kills _Composed.delta
    mutmut_18 (the retilt aimed one cell above the window's start, loss[1])."""
    h, steps = 0.05, 200
    idx, w = np.array([0, 6]), np.array([0.6, 0.4])
    comp = sub._Composed(idx, w, 0.0, steps, h, 5.0, _FlatGuide(idx, w, h))
    assert comp.e_min < 35.0 < comp.loss[0]
    for eps in (20.0, 35.0):
        with pytest.raises(sub._Retilt) as below:
            comp.delta(eps)
        assert below.value.loss == comp.loss[0]


# ---------------------------------------------------------------- survivors of the run of 2026-11-28, a helper's group
# (_Composed.__init__: the window's cover)
def test_composed_window_covers_epsilon_without_widening_to_the_support():
    """10^4 steps of a loss -1 (probability 1e-3) or +0.002 on the mesh 5e-4: the composed loss
    L = 20 - 1.002 K, K ~ Binomial(10^4, 1e-3), has its bulk (mean 9.98, sd 3.2) a few hundred
    thousand cells wide, but a support reaching down to -10^4 (2e7 cells). Asked for delta at
    epsilon = 5 (the window must cover 5 - 4h), the composition must keep its window around the
    bulk and read delta(5) off it: the exact binomial sum (scipy, 1e-9 relative: the FFT's
    round-off on masses of order 0.1 is ~1e-15, the folded mass below the window < 1e-16).
    A cover widened to 5 - 4/h = -7995 needs 1.6e7 > 2^23 FFT points (_TooFine; through the public
    accountant the mesh is then coarsened: subsampled_gaussian_delta(0.01, 0.8, 1e5, 40) moved by
    2.3e-4 relative, (0.01, 0.8, 1e6, 280) by 1.6e-2, beyond the promised 1e-4).
    Kills _Composed.__init__ mutmut_135."""
    h, steps, p = 5e-4, 10_000, 1e-3
    idx, w = np.array([-2000, 4]), np.array([p, 1 - p])
    comp = sub._Composed(idx, w, 0.0, steps, h, 0.0, _FlatGuide(idx, w, h), 1e-20, cover=5.0)
    exact = _binomial_delta(5.0, steps, 1 - p, -1.0, 0.002)
    assert 0.5 < exact < 1
    assert comp.delta(5.0) == pytest.approx(exact, rel=1e-9, abs=0)


def test_composed_window_holds_an_epsilon_below_the_bulk():
    """10^4 steps of a loss -1 (probability 1e-3) or +0.01 on the mesh 5e-4: L = 100 - 1.01 K,
    K ~ Binomial(10^4, 1e-3), has its bulk near 90 (sd 3.2) and all but 1e-16 of it above about 55.
    delta at epsilon = 2, far below that, must still be read off the window (``cover``: the window
    starts at 2 - 4h): the exact binomial sum is 1 - e^(2) E[e^-L; L > 2] = 1 - e^-80.6, 1.0 to
    double precision; 1e-9 relative: the composition's own round-off guard on the total mass
    (1 + 1e-9 + noise, noise = 2e-15 T of the peak; measured 1 + 4.9e-11, which the public function clips to 1). A window started at 2 + 4h does not hold epsilon and the
    composition asks for a lower tilt (_Retilt), although it is untilted already (through the public
    accountant: the _Unreached fallback, 5x to 25x slower, e.g. 0.04 s -> 1.0 s at
    subsampled_gaussian_delta(0.3, 0.7, 3000, 0.5, relation='replace_one')). Kills _Composed.__init__ mutmut_134."""
    h, steps, p = 5e-4, 10_000, 1e-3
    idx, w = np.array([-2000, 20]), np.array([p, 1 - p])
    comp = sub._Composed(idx, w, 0.0, steps, h, 0.0, _FlatGuide(idx, w, h), 1e-20, cover=2.0)
    assert comp.loss[0] <= 2.0 - 4 * h + 1e-9
    exact = _binomial_delta(2.0, steps, 1 - p, -1.0, 0.01)
    log_rest = mp.mpf(2) - 100 + steps * mp.log(1 + p * (mp.e ** mp.mpf("1.01") - 1))   # log e^2 E[e^-L], all K
    assert float(log_rest) < -80
    assert comp.delta(2.0) == pytest.approx(exact, rel=1e-9, abs=0)


@pytest.mark.parametrize("alpha, q, times", [(5000.5, 0.3, 1.5), (200000.25, 1e-3, 1e3)])
def test_large_fractional_order_at_a_tiny_sigma_is_its_lower_bound_to_the_last_digits(alpha, q, times):
    """Where the lower bound rho >= (alpha log q + x) / (alpha - 1), x = alpha (alpha - 1) / (2 sigma^2), exceeds
    2^53 |log q| (here 1.5 and 1000 times that), rho is known to the last digits (the upper bound differs by
    |log q| / (alpha - 1) plus a term below the doubles) and the upper bound is returned: within 1e-14 of the lower
    bound (and not below it but for the rounding of x, 1e-15). At large orders the other routes are looser: the convexity chord of the integer orders
    was 2.4e-7 above at such points (a threshold moved to 3^53 or 2^54 |log q| sent them there).
    Kills _rdp_fractional mutmut_21 and _22 (measured: 254 and 5 of 300 such points differ)."""
    sigma = _sigma_for_lower(alpha, q, times * 2.0**53 * -math.log(q))
    x = alpha * (alpha - 1) / (2 * sigma**2)
    lower = (alpha * math.log(q) + x) / (alpha - 1)
    got = sub.subsampled_gaussian_rdp(q, sigma, alpha)
    assert lower * (1 - 1e-15) <= got <= lower * (1 + 1e-14)        # 1e-15: the rounding of x and the sum


# ---------------------------------------------------------------- the resume of 2026-11-28 (second session):
# _Composed.__init__'s accurate window and its guard on the total mass
@pytest.mark.parametrize("p1, steps, lam, h, cells, bar", [(0.3, 400, 0.9, 0.01, 100, 1e-4),
                                                           (0.1, 1000, 0.3, 0.02, 50, 1e-8)])
def test_composed_delta_is_exact_wherever_a_tilted_window_answers(p1, steps, lam, h, cells, bar):
    """T steps of a loss 0 or cells * h (probability p1), composed tilted by lam: untilting multiplies the FFT's
    round-off at a loss l by e^{lam (l_peak - l)}, so the window keeps only the losses where that stays below 1e-4
    of the peak's untilted mass, and below it the composition asks to be retilted. Wherever it answers, delta is
    the exact binomial sum: not below it (1e-9 relative), and above it by at most ``bar`` relative (a delta is a
    probability: never above 1 here either). Measured on 300 epsilons from the window's start to its top (those
    with an exact delta >= 1e-12): 1.0e-13 and 3.9e-10 above. A window kept down to where the round-off is
    amplified to the peak's own mass (reach log(1.0001 / rel) / lam) answered 8.3e-7 above and above 1 at
    (0.1, 1000, 0.3); one kept whole for every tilt up to 1 (reach = inf for lam <= 1) 17 % above at
    (0.3, 400, 0.9) and 2.1e-6 at (0.1, 1000, 0.3). Kills _Composed.__init__ mutmut_297 and _299."""
    idx, w = np.array([0, cells]), np.array([1 - p1, p1])
    comp = sub._Composed(idx, w, 0.0, steps, h, lam, _FlatGuide(idx, w, h))
    assert comp.extra == 0.0                             # the window holds every composed loss
    answered = 0
    for eps in np.linspace(comp.loss[0] - 5.0, comp.loss[-1], 300):
        try:
            got = comp.delta(eps)
        except sub._Retilt:
            assert eps < comp.loss[0] or eps < comp.e_min
            continue
        exact = _binomial_delta(eps, steps, p1, 0.0, cells * h)
        if exact < 1e-12:
            continue
        answered += 1
        assert exact * (1 - 1e-9) <= got <= min(exact * (1 + bar), 1.0)
    assert answered >= 3


def test_composed_mass_a_little_above_one_is_refused():
    """A one-step law whose masses sum to 1 + 1e-11 (idx 0, 1, 2 on the mesh 0.01), composed 1000 times, has total
    mass (1 + 1e-11)^1000 = 1 + 1e-8: ten times the guard's 1e-9, far above its round-off allowance (2e-15 T of the
    tilted peak per cell, about 7e-11 over the 2001 cells). The law sums to more than one, so the composition must
    refuse it (test_subsampling checks a surplus of 1 % per step). Kills _Composed.__init__ mutmut_353 (a guard of
    2 + 1e-9) and _343 (the allowance rel / peak instead of rel * peak: 2.6e-7)."""
    idx, w, h = np.array([0, 1, 2]), np.array([0.3, 0.4, 0.3 + 1e-11]), 0.01
    with pytest.raises(AssertionError, match="composed mass"):
        sub._Composed(idx, w, 0.0, 1000, h, 0.0, _FlatGuide(idx, w, h))
    # and the same law summing to exactly one (in floats: 0.3 + 0.4 + 0.3) is composed
    w_ok = np.array([0.3, 0.4, 0.3])
    assert sub._Composed(idx, w_ok, 0.0, 1000, h, 0.0, _FlatGuide(idx, w_ok, h)).c.sum() == pytest.approx(1.0, abs=1e-9)


# (_Pair._mass, _panels' rule boundaries, _discounted_tail_sums' carry between blocks)
def _laws(q, relation):
    """The pair's two laws as (weight, mean) components of N(mean, s^2): A = (1-q) N(0) + q N(1) and
    B = (1-qb) N(0) + qb N(-1), qb = 0 for add/remove and q for replace-one."""
    qb = 0.0 if relation == "add_remove" else q
    return {"a": ((1 - q, 0.0), (q, 1.0)), "b": ((1 - qb, 0.0), (qb, -1.0))}


def _tail(parts, y, s, upper):
    """A mixture's mass above (upper) or below y, from scipy's normal tails."""
    f = stats.norm.sf if upper else stats.norm.cdf
    return sum(wt * f(y, loc, s) for wt, loc in parts)


@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
def test_pair_tail_masses_are_the_mixtures_normal_tails(relation):
    """The tail masses the discretization rounds onto its end cells: A = (1-q) N(0, s^2) + q N(1, s^2) and
    B = (1-qb) N(0, s^2) + qb N(-1, s^2) (qb = 0 for add/remove, q for replace-one) beyond y, each side, against
    scipy.stats.norm (1e-13 relative). An asymmetric q (0.3) and s (0.7), y on both sides of the means. Kills
    _Pair._mass mutmut_6 (ndtr(2z) for the lower side), _15 (B's mass taken from A's parameters), _20 (B's
    component at +1)."""
    q, s = 0.3, 0.7
    pair = sub._Pair(q, s, relation)
    for y in (-2.3, -0.4, 0.45, 1.9):
        for which, parts in _laws(q, relation).items():
            assert float(pair._mass(y, True, which)) == pytest.approx(_tail(parts, y, s, True), rel=1e-13)
            assert float(pair._mass(y, False, which)) == pytest.approx(_tail(parts, y, s, False), rel=1e-13)


@pytest.mark.parametrize("a, nodes", [(0.003984126734166103, 4), (0.047722557505166116, 8)])
def test_panel_exactly_at_a_rule_boundary_is_integrated_once(a, nodes):
    """_panels picks a 2-, 4- or 8-point Gauss-Legendre rule by the panel's relative width (width_rel < 0.004,
    [0.004, 0.05), >= 0.05). The interval [0, a] with s = 1 is one panel of width_rel = a (1 + a), and these two
    doubles (found by walking the doubles around the roots) make that exactly 0.004 and 0.05: such a panel must
    get exactly one rule, the higher one, whose weights sum to its width. With a boundary in both rules the
    panel was integrated twice (mass 2a: mutmut_52, _57), in neither, dropped (no nodes: mutmut_55, _59)."""
    assert a * (1 + a) in (0.004, 0.05)             # the premise, computed as _panels computes it
    cid, y, w = sub._panels(np.array([0.0, a]), 1.0, 0.25)
    assert cid.size == y.size == w.size == nodes and np.all(cid == 0)
    assert np.all((0.0 < y) & (y < a))
    assert float(w.sum()) == pytest.approx(a, rel=1e-14)
    assert float(np.dot(w, y**3)) == pytest.approx(a**4 / 4, rel=1e-13)     # exact for cubics (2 nodes on)


def test_discounted_tail_sums_carry_mass_across_blocks():
    """e[j] = sum_{k>j} c_k e^{-(k-j) h} is formed in blocks of S = 30 / h cells and carried from block to block
    by G[b] = F[b] + e^{-S h} G[b+1]. With mass only in the last of four blocks (n = 5000, h = 0.02, S = 1500),
    every e[j] in the first three comes from that carry alone: e^{-30} to e^{-100} of it, within the doubles.
    Against the definition (1e-12 relative). The existing check's cases have one block or a decay of e^{-40}
    per cell, where a wrong carry hides below 1e-12. Kills _discounted_tail_sums mutmut_72 (the carry subtracted)
    and _75 (carried from the block before instead of after)."""
    n, h = 5000, 0.02
    c = np.zeros(n)
    c[4600:] = np.random.default_rng(5).random(400)
    k = np.arange(n)
    want = np.array([np.sum(c[j + 1:] * np.exp(-(k[j + 1:] - j) * h)) for j in range(n)])
    assert want[0] > 0
    got = sub._discounted_tail_sums(c, h)
    assert np.allclose(got, want, rtol=1e-12, atol=0)


# (_discretize's tail bookkeeping)
@pytest.mark.parametrize("q, s, relation, h", [(0.3, 0.7, "add_remove", 0.05), (0.6, 1.3, "replace_one", 0.02),
                                               (0.02, 0.5, "add_remove", 0.01)])
def test_discretization_conserves_both_laws_with_heavy_tails(q, s, relation, h):
    """Truncated where each law keeps 1e-3 beyond (so the tails weigh), the one-step grid must still hold all of A:
    sum w + w_inf = 1, w_inf = A's mass above y_hi (scipy's normal tails, 1e-13); and all of B, through the dual
    direction: an A-mass split between a cell's ends l_k, l_k + h in the shares the grid uses carries exactly its
    B-mass (sum over the two ends of share e^{-l} = e^{-L}), A's tail below y_lo rounded up to l_{k0+1} carries
    a_t e^{-l_{k0+1}} of B's tail there (<= B's, since the tail's losses lie below l_{k0+1}), and the rest of B's tails
    is b_only, so sum w e^{-l} + b_only = 1 (1e-12: the quadrature's round-off). Kills _discretize mutmut_150 (A's lower
    tail at l_{k0+2}), _152 (B's upper tail subtracted), _158, _161, _162, _163 (the tail's B-mass at another loss)."""
    pair = sub._Pair(q, s, relation)
    y_lo, y_hi = pair.truncation(1e-3)
    k0, w, w_inf, b_only = sub._discretize(pair, h, y_lo, y_hi)
    laws = _laws(q, relation)
    a_hi = _tail(laws["a"], y_hi, s, True)
    assert np.all(w >= 0) and w_inf == pytest.approx(a_hi, rel=1e-13) and a_hi > 1e-6
    assert float(w.sum()) + w_inf == pytest.approx(1.0, abs=1e-12)
    b_lo = _tail(laws["b"], y_lo, s, False)
    assert b_lo > 1e-6                                   # B's lower tail weighs, beyond what A's rounding carries
    loss = (k0 + np.arange(w.size)) * h
    assert float(np.sum(w * np.exp(-loss))) + b_only == pytest.approx(1.0, abs=1e-12)


class _ScaledPair(sub._Pair):
    """A pair whose A-density is (1 + excess) times the true one: a one-step law of mass 1 + excess."""

    def __init__(self, excess, *args):
        super().__init__(*args)
        self.excess = excess

    def log_a(self, y):
        return super().log_a(y) + math.log1p(self.excess)


def test_discretization_refuses_a_density_that_integrates_above_one():
    """A pair whose A-density is scaled by 1 + 1e-6 (a bug of that size in the mixture's log-density) makes a
    one-step law of mass 1 + 1e-6, a thousand times the quadrature's 1e-9 allowance: the grid must refuse it, as
    the composition refuses a composed mass above 1. Kills _discretize mutmut_190 and _191 (a guard at 2 + 1e-9)."""
    pair = _ScaledPair(1e-6, 0.3, 0.7, "add_remove")
    y_lo, y_hi = pair.truncation(1e-12)
    with pytest.raises(AssertionError, match="one-step mass"):
        sub._discretize(pair, 0.05, y_lo, y_hi)
    sub._discretize(sub._Pair(0.3, 0.7, "add_remove"), 0.05, y_lo, y_hi)     # the true density passes


def test_discretization_renormalizes_an_excess_within_its_allowance():
    """A density scaled by 1 + 1e-10, inside the 1e-9 the one-step guard allows for the quadrature's round-off, is
    accepted and renormalized: the grid's A-mass sum w + w_inf is 1 to round-off (1e-14), not 1 + 1e-10, so that T
    compositions cannot compound it (T = 1e6 would make 1 + 1e-4). Kills _discretize mutmut_195 (w multiplied by
    the total instead of divided: 1 + 2e-10)."""
    pair = _ScaledPair(1e-10, 0.3, 0.7, "add_remove")
    y_lo, y_hi = pair.truncation(1e-12)
    k0, w, w_inf, b_only = sub._discretize(pair, 0.05, y_lo, y_hi)
    assert float(w.sum()) + w_inf == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("q", [0.3, 0.02])
def test_add_remove_inverse_is_minus_inf_at_and_below_the_loss_infimum(q):
    """For add/remove the loss L(y) = log(1 - q + q e^{(2y - 1) / (2 s^2)}) falls to its infimum log(1 - q) as
    y -> -inf and never reaches it: inverse() is documented -inf there and below (where the formula's logarithm is
    nan), and y with L(y) = l just above it (loss() round trip, 1e-9). Replace-one's loss has no infimum: inverse
    is finite everywhere. Kills _Pair.__init__ mutmut_10, _15, _16 (no infimum for add/remove: nan below it)
    and _Pair.inverse mutmut_19 (the infimum's test dropped), _26 (+inf instead of -inf)."""
    s = 0.7
    pair = sub._Pair(q, s, "add_remove")
    inf_loss = math.log1p(-q)
    below = pair.inverse(np.array([inf_loss - 2.0, inf_loss - 1e-9, inf_loss]))
    assert np.all(below == -np.inf)
    for l in (inf_loss + 1e-3, inf_loss / 2, 0.4):
        y = float(pair.inverse(np.array([l]))[0])
        assert math.isfinite(y) and float(pair.loss(y)) == pytest.approx(l, rel=1e-9)
    assert np.all(np.isfinite(sub._Pair(q, s, "replace_one").inverse(np.array([inf_loss - 2.0, -5.0]))))
