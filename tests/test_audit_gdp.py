"""Unit tests of the Gaussian-DP and trade-off-curve section of dpnotes.audit (issue 23).

Independent routes: Clopper-Pearson bounds by bisection on the exact binomial tail (mpmath, as in
test_audit.py), the Gaussian quantile from mpmath's erfinv, the mu bound as the root of the defining
equation G_mu(alpha) = beta (scipy's normal law and Brent's method, not the closed form), the
epsilon bound by bisection on the region boundary of dpnotes.tradeoff, the Gaussian epsilon(delta)
from the closed-form profile in mpmath, and the exceedance probability of nested tests by brute-force
enumeration of the multinomial cell counts. Soundness: exact sums over all count outcomes, and
seeded simulations of the Gaussian mechanism scored with a binomial test whose power is shown on a
broken auditor.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize, stats

import profiles
from dpnotes import audit, loss, tradeoff

SIGNIFICANCE = 1e-3


# ----------------------------------------------------------------- independent references
def mp_binom_cdf(k, n, p):
    mp.mp.dps = 40
    p = mp.mpf(p)
    return mp.fsum(mp.binomial(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def mp_cp_upper(k, n, level):
    """The p with Pr[Bin(n, p) <= k] = level, by bisection on the exact tail (n <= 200); for larger n by
    Brent's method on scipy's binomial CDF (still another route than the beta quantile dpnotes uses)."""
    if k == n:
        return 1.0
    if n > 200:
        return optimize.brentq(lambda p: stats.binom.cdf(k, n, p) - level, k / n, 1.0, xtol=1e-300, rtol=1e-14)
    lo, hi = mp.mpf(k) / n, mp.mpf(1)
    for _ in range(80):
        mid = (lo + hi) / 2
        if mp_binom_cdf(k, n, mid) > level:
            lo = mid
        else:
            hi = mid
    return float((lo + hi) / 2)


def mp_norm_isf(a):
    """Phi^{-1}(1 - a) = -sqrt(2) erfinv(2a - 1), with 40 digits beyond those that 2a - 1 must keep."""
    mp.mp.dps = 40 + int(max(0.0, -math.log10(a)))
    return float(-mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1))


def mu_by_root(a_bar, b_bar):
    """Smallest mu >= 0 with G_mu(a_bar) <= b_bar: Brent's method on the defining equation."""
    g = lambda mu: stats.norm.cdf(stats.norm.isf(a_bar) - mu) - b_bar     # decreasing in mu
    if g(0.0) <= 0:
        return 0.0
    hi = 1.0
    while g(hi) > 0:
        hi *= 2
    return optimize.brentq(g, 0.0, hi, xtol=1e-14, rtol=1e-14)


def eps_by_bisection(a_bar, b_bar, delta):
    """Largest epsilon rejected by the corner: beta-bar below tradeoff.region_lower_boundary."""
    below = lambda e: b_bar < tradeoff.region_lower_boundary(a_bar, e, delta)
    if not below(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while below(hi):
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if below(mid) else (lo, mid)
    return lo


def mp_gaussian_epsilon(delta, mu):
    """Root of Phi(mu/2 - e/mu) - e^e Phi(-mu/2 - e/mu) = delta, at 40 digits (bisection)."""
    mp.mp.dps = 40
    mu = mp.mpf(mu)
    f = lambda e: mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu) - delta
    if f(0) <= 0:
        return 0.0
    lo, hi = mp.mpf(0), mp.mpf(1)
    while f(hi) > 0:
        hi *= 2
    for _ in range(120):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return float(lo)


counts = st.integers(min_value=1, max_value=300).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(0, n)))


# ----------------------------------------------------------------- gdp_mu_from_errors
@pytest.mark.parametrize("a,b", [(0.3, 0.2), (1e-3, 0.6), (1e-12, 0.9), (0.45, 0.5), (0.7, 0.1), (1e-200, 1e-150)])
def test_mu_from_errors_matches_mpmath_quantiles(a, b):
    assert audit.gdp_mu_from_errors(a, b) == pytest.approx(mp_norm_isf(a) + mp_norm_isf(b), rel=1e-12, abs=1e-13)


@given(st.floats(0.05, 8.0), st.floats(-6.0, 6.0))
def test_every_threshold_of_the_gaussian_pair_lies_on_its_curve(mu, t):
    a, b = stats.norm.sf(t), stats.norm.cdf(t - mu)
    assert audit.gdp_mu_from_errors(a, b) == pytest.approx(mu, abs=1e-8)


@given(st.floats(1e-9, 1 - 1e-9), st.floats(1e-9, 1 - 1e-9), st.floats(1e-6, 0.5))
def test_mu_from_errors_is_symmetric_and_decreasing(a, b, step):
    m = audit.gdp_mu_from_errors(a, b)
    assert m == audit.gdp_mu_from_errors(b, a)
    if a + step < 1:
        assert audit.gdp_mu_from_errors(a + step, b) < m
    if b + step < 1:
        assert audit.gdp_mu_from_errors(a, b + step) < m


def test_mu_from_errors_edges_and_vectors():
    assert audit.gdp_mu_from_errors(0.0, 0.4) == math.inf and audit.gdp_mu_from_errors(1.0, 0.4) == -math.inf
    assert audit.gdp_mu_from_errors(0.5, 0.5) == 0.0 and math.copysign(1, audit.gdp_mu_from_errors(0.5, 0.5)) == 1
    out = audit.gdp_mu_from_errors([0.1, 0.2], [[0.3], [0.4]])
    assert out.shape == (2, 2) and out[1, 0] == pytest.approx(mp_norm_isf(0.1) + mp_norm_isf(0.4), rel=1e-12, abs=0)


@pytest.mark.parametrize("a,b,word", [(-0.1, 0.5, "alpha"), (0.5, 1.5, "beta"), (math.nan, 0.5, "alpha"),
                                      (True, 0.5, "alpha"), ("x", 0.5, "alpha"), (0.0, 1.0, "0 and 1"),
                                      (1.0, 0.0, "0 and 1"), ([0.1, 0.2], [0.1, 0.2, 0.3], "broadcast")])
def test_mu_from_errors_rejects_bad_input(a, b, word):
    with pytest.raises(ValueError, match=word):
        audit.gdp_mu_from_errors(a, b)


# ----------------------------------------------------------------- simultaneous_error_bounds
@pytest.mark.parametrize("fp,fn,n0,n1,conf", [([0, 7, 19], [30, 12, 2], 40, 35, 0.9), (5, 60, 80, 80, 0.95),
                                              ([3, 3], [50, 50], 50, 50, 0.5)])
def test_box_is_clopper_pearson_at_the_bonferroni_level(fp, fn, n0, n1, conf):
    p_bar, q_bar = audit.simultaneous_error_bounds(fp, n0, fn, n1, confidence=conf)
    fp, fn = np.atleast_1d(fp), np.atleast_1d(fn)
    level = (1 - conf) / (2 * fp.size)
    assert p_bar == pytest.approx([mp_cp_upper(int(k), n0, level) for k in fp], rel=1e-9)
    assert q_bar == pytest.approx([mp_cp_upper(int(k), n1, level) for k in fn], rel=1e-9)


@pytest.mark.parametrize("kwargs,word", [
    (dict(false_positives=[1, 2], false_negatives=[3]), "same length"),
    (dict(false_positives=[[1, 2]], false_negatives=[[3, 4]]), "1-D"),
    (dict(false_positives=[], false_negatives=[]), "non-empty"),
    (dict(false_positives=1.5), "integers"),
    (dict(false_positives=11), r"\[0, n_negatives\]"),
    (dict(false_negatives=-1), r"\[0, n_positives\]"),
    (dict(false_negatives=[1, math.nan]), "finite"),
    (dict(false_positives=True), "false_positives"),
    (dict(n_negatives=0), "n_negatives"),
    (dict(n_positives=2.5), "n_positives"),
    (dict(confidence=1.0), "confidence"),
    (dict(confidence=0.0), "confidence"),
])
def test_box_rejects_bad_input(kwargs, word):
    args = dict(false_positives=1, n_negatives=10, false_negatives=2, n_positives=10, confidence=0.9)
    if "false_positives" in kwargs and "false_negatives" not in kwargs and np.ndim(kwargs["false_positives"]) == 1:
        args["false_negatives"] = [2] * len(kwargs["false_positives"])
    args.update(kwargs)
    for f in (audit.simultaneous_error_bounds, audit.gdp_mu_lower_bound, audit.tradeoff_epsilon_lower_bound):
        with pytest.raises(ValueError, match=word):
            f(**args)


# ----------------------------------------------------------------- gdp_mu_lower_bound
@pytest.mark.parametrize("fp,n0,fn,n1,conf", [(10, 60, 20, 60, 0.8), (0, 50, 3, 70, 0.95), (30, 200, 160, 200, 0.9),
                                              ([4, 11, 25], 90, [51, 30, 15], 80, 0.9), (45, 60, 40, 60, 0.95)])
def test_mu_bound_is_the_root_of_the_defining_equation(fp, n0, fn, n1, conf):
    fpa, fna = np.atleast_1d(fp), np.atleast_1d(fn)
    level = (1 - conf) / (2 * fpa.size)
    want = max(mu_by_root(mp_cp_upper(int(a), n0, level), mp_cp_upper(int(b), n1, level)) for a, b in zip(fpa, fna))
    assert audit.gdp_mu_lower_bound(fp, n0, fn, n1, confidence=conf) == pytest.approx(want, abs=1e-8)


@given(counts, st.floats(0.5, 0.99))
def test_mu_bound_is_monotone_in_the_counts_and_the_confidence(c, conf):
    n, fp, fn = c
    mu = audit.gdp_mu_lower_bound(fp, n, fn, n, confidence=conf)
    assert mu >= 0
    if fp < n:
        assert audit.gdp_mu_lower_bound(fp + 1, n, fn, n, confidence=conf) <= mu
    if fn < n:
        assert audit.gdp_mu_lower_bound(fp, n, fn + 1, n, confidence=conf) <= mu
    assert audit.gdp_mu_lower_bound(fp, n, fn, n, confidence=min(0.999, conf + 0.005)) <= mu
    # a test read backwards earns nothing it did not earn forwards: no |mu|
    if fp + fn >= n:
        assert mu == 0.0


def test_mu_bound_does_not_take_the_absolute_value_of_a_backward_test():
    # counts far worse than a coin: the forward test proves nothing, the backward one (passed as its own test) does
    assert audit.gdp_mu_lower_bound(900, 1000, 950, 1000) == 0.0
    both = audit.gdp_mu_lower_bound([900, 100], 1000, [950, 50], 1000)
    assert both == pytest.approx(mu_by_root(mp_cp_upper(100, 1000, 0.05 / 4), mp_cp_upper(50, 1000, 0.05 / 4)), abs=1e-8)


@pytest.mark.parametrize("mu0,t,n,conf", [(0.8, 0.3, 40, 0.8), (1.5, 1.1, 60, 0.9), (0.27, -0.2, 60, 0.8)])
def test_mu_bound_is_sound_summed_over_every_outcome(mu0, t, n, conf):
    """Exactly: Pr[mu-hat > mu0] over all (n+1)^2 count pairs of the Gaussian pair's threshold test."""
    k = np.arange(n + 1)
    pmf0 = stats.binom.pmf(k, n, stats.norm.sf(t))
    pmf1 = stats.binom.pmf(k, n, stats.norm.cdf(t - mu0))
    over = np.array([[audit.gdp_mu_lower_bound(a, n, b, n, confidence=conf) > mu0 for b in k] for a in k])
    assert pmf0 @ over @ pmf1 <= 1 - conf


def _simulate(rng, mu0, thresholds, n):
    x = np.sort(rng.standard_normal(n))
    xp = np.sort(rng.standard_normal(n) + mu0)
    fp = n - np.searchsorted(x, thresholds, side="right")        # runs on x above t
    fn = np.searchsorted(xp, thresholds, side="right")           # runs on x' at or below t
    return fp, fn


def _rate_passes(over: int, trials: int, promised: float) -> bool:
    return stats.binomtest(over, trials, promised, alternative="greater").pvalue > SIGNIFICANCE


def test_mu_bound_is_sound_on_seeded_gaussian_mechanisms_and_the_check_has_power():
    """Seeded exact samples of the Gaussian mechanism (random mu0, three thresholds on shared runs, 80%);
    the same harness rejects the plug-in estimate, which has no confidence."""
    trials = profiles.size(fast=300, thorough=4000)
    rng = np.random.default_rng(20231)
    over = over_plugin = 0
    for _ in range(trials):
        mu0 = rng.uniform(0.1, 2.0)
        ts = np.sort(rng.uniform(-1.0, mu0 + 1.0, 3))
        fp, fn = _simulate(rng, mu0, ts, 500)
        over += audit.gdp_mu_lower_bound(fp, 500, fn, 500, confidence=0.8) > mu0
        with np.errstate(divide="ignore"):
            over_plugin += np.max(audit.gdp_mu_from_errors(fp / 500, fn / 500)) > mu0
    assert _rate_passes(over, trials, 0.2)
    assert not _rate_passes(over_plugin, trials, 0.2)


# ----------------------------------------------------------------- gdp_epsilon_lower_bound
@pytest.mark.parametrize("fp,fn,n,delta", [(25, 30, 100, 1e-5), (5, 70, 120, 1e-3), (100, 20, 400, 0.05)])
def test_gdp_epsilon_is_the_gaussian_profile_at_mu_hat(fp, fn, n, delta):
    mu = audit.gdp_mu_lower_bound(fp, n, fn, n)
    assert mu > 0
    assert audit.gdp_epsilon_lower_bound(fp, n, fn, n, delta) == pytest.approx(mp_gaussian_epsilon(delta, mu), rel=1e-9, abs=0)


@given(counts, st.floats(1e-9, 0.5))
def test_gdp_epsilon_is_monotone_and_zero_without_evidence(c, delta):
    n, fp, fn = c
    e = audit.gdp_epsilon_lower_bound(fp, n, fn, n, delta)
    assert e >= 0
    assert audit.gdp_epsilon_lower_bound(fp, n, fn, n, min(0.9, 2 * delta)) <= e
    if fp < n:
        assert audit.gdp_epsilon_lower_bound(fp + 1, n, fn, n, delta) <= e
    if audit.gdp_mu_lower_bound(fp, n, fn, n) == 0:
        assert e == 0


def test_gdp_epsilon_overclaims_for_randomized_response_as_documented():
    """The documented failure: a curve that is not Gaussian. RR with epsilon 0.6 is 0.6-DP at every delta."""
    p = 1 / (1 + math.exp(0.6))
    k = round(100_000 * p)
    assert audit.gdp_epsilon_lower_bound(k, 100_000, k, 100_000, 1e-5) > 5 * 0.6
    assert audit.epsilon_lower_bound(k, 100_000, k, 100_000, delta=1e-5) < 0.6


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-3, math.nan, "0.1"])
def test_gdp_epsilon_rejects_bad_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        audit.gdp_epsilon_lower_bound(10, 100, 10, 100, delta)


# ----------------------------------------------------------------- tradeoff_epsilon_lower_bound
@given(counts, counts, st.sampled_from([0.0, 1e-6, 1e-3, 0.1]), st.floats(0.5, 0.99))
def test_one_test_is_epsilon_lower_bound(c0, c1, delta, conf):
    (n0, fp, _), (n1, _, fn) = c0, c1
    fn = min(fn, n1)
    assert audit.tradeoff_epsilon_lower_bound(fp, n0, fn, n1, delta=delta, confidence=conf) == \
        audit.epsilon_lower_bound(fp, n0, fn, n1, delta=delta, confidence=conf)


@pytest.mark.parametrize("fp,fn,n0,n1,deltas", [([3, 9, 20], [40, 25, 10], 50, 60, [0.0, 0.01, 0.2]),
                                                ([0, 1], [70, 30], 80, 80, [1e-4]),
                                                ([12, 30, 45, 55], [20, 9, 4, 1], 60, 60, [0.0, 0.05])])
def test_curve_bound_against_bisection_on_the_region_boundary(fp, fn, n0, n1, deltas):
    level = 0.05 / (2 * len(fp))
    corners = [(mp_cp_upper(a, n0, level), mp_cp_upper(b, n1, level)) for a, b in zip(fp, fn)]
    got = audit.tradeoff_epsilon_lower_bound(fp, n0, fn, n1, delta=deltas)
    for d, g in zip(deltas, got):
        assert g == pytest.approx(max(eps_by_bisection(a, b, d) for a, b in corners), abs=1e-9)


@given(st.integers(20, 200).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.integers(0, n), min_size=2, max_size=6),
                                                        st.lists(st.integers(0, n), min_size=6, max_size=6))))
def test_curve_bound_is_monotone_and_one_event_covers_every_delta(c):
    n, fp, fn_all = c
    fn = fn_all[: len(fp)]
    deltas = np.array([0.0, 1e-6, 1e-3, 0.05, 0.3])
    b = audit.tradeoff_epsilon_lower_bound(fp, n, fn, n, delta=deltas)
    assert np.all(np.diff(b) <= 1e-12) and np.all(b >= 0)           # non-increasing in delta
    assert np.array_equal(b, [audit.tradeoff_epsilon_lower_bound(fp, n, fn, n, delta=d) for d in deltas])
    worse = list(fp)
    if worse[0] < n:
        worse[0] += 1
        assert np.all(audit.tradeoff_epsilon_lower_bound(worse, n, fn, n, delta=deltas) <= b + 1e-12)


@pytest.mark.parametrize("delta", [[0.1, 1.0], -0.1, [math.nan], "x"])
def test_curve_bound_rejects_bad_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        audit.tradeoff_epsilon_lower_bound([1, 2], 10, [3, 4], 10, delta=delta)


# ----------------------------------------------------------------- nested_tests_exceedance
def brute_force_exceedance(cdf_x, cdf_xp, n0, n1, point_exceeds):
    """Enumerate every way of putting the runs into the k + 1 cells (multinomial), for both inputs."""
    def cells(cdf, n):
        probs = np.diff(np.concatenate([[0.0], cdf, [1.0]]))
        out = []
        for comp in itertools.product(range(n + 1), repeat=probs.size - 1):
            if sum(comp) <= n:
                full = (*comp, n - sum(comp))
                out.append((np.cumsum(full)[:-1], stats.multinomial.pmf(full, n, probs)))
        return out
    total = 0.0
    for a, pa in cells(np.asarray(cdf_x, float), n0):
        for b, pb in cells(np.asarray(cdf_xp, float), n1):
            fp, fn = n0 - a, b
            if any(point_exceeds(np.array([[f0]]), np.array([[f1]]))[0, 0] for f0, f1 in zip(fp, fn)):
                total += pa * pb
    return total


@pytest.mark.parametrize("cdf_x,cdf_xp,n0,n1", [([0.2, 0.5, 0.9], [0.05, 0.3, 0.6], 6, 5),
                                                ([0.5, 0.5, 0.7], [0.1, 0.4, 1.0], 5, 7),
                                                ([0.3], [0.6], 9, 4)])
def test_exceedance_matches_brute_force_enumeration(cdf_x, cdf_xp, n0, n1):
    rule = lambda fp, fn: (2 * fp + 3 * fn <= 6) | (fp == 0)              # an asymmetric rule
    got = audit.nested_tests_exceedance(cdf_x, cdf_xp, n0, n1, rule)
    assert got == pytest.approx(brute_force_exceedance(cdf_x, cdf_xp, n0, n1, rule), abs=1e-13)


def test_exceedance_of_the_curve_bound_on_the_laplace_mechanism():
    """Laplace with epsilon 0.7: every threshold t <= 0 or t >= 1 is a test on the region's boundary. The
    corrected bound exceeds the truth with probability below 1 - c; the probability grows with the number of
    thresholds when each is bounded as if alone, and is never below the one-test value."""
    eps, n, conf = 0.7, 60, 0.8
    ts = np.array([-3.0, -1.5, 0.0, 1.0, 2.0, 3.5])
    fx, fxp = stats.laplace.cdf(ts, scale=1 / eps), stats.laplace.cdf(ts - 1, scale=1 / eps)

    def rule(level):
        cp = audit.clopper_pearson_upper(np.arange(n + 1), n, level)
        return lambda fp, fn: audit._bound_from_upper(cp[fp], cp[fn], 0.0) > eps + 1e-12

    corrected = audit.nested_tests_exceedance(fx, fxp, n, n, rule((1 - conf) / (2 * ts.size)))
    alone = [audit.nested_tests_exceedance(fx[:j], fxp[:j], n, n, rule((1 - conf) / 2)) for j in (1, 3, 6)]
    assert corrected <= 1 - conf
    assert alone[0] < alone[1] < alone[2] and corrected < alone[2]


@pytest.mark.parametrize("kwargs,word", [
    (dict(cdf_x=[0.5, 0.4]), "non-decreasing"), (dict(cdf_x=[1.2]), "cdf_x"), (dict(cdf_x_prime=[]), "cdf_x_prime"),
    (dict(cdf_x=[0.1, 0.2]), "same length"), (dict(n_negatives=0), "n_negatives"),
    (dict(n_positives=3000), "n_positives"), (dict(point_exceeds=lambda fp, fn: fp + fn), "bool"),
    (dict(point_exceeds=lambda fp, fn: fp > 1), "shape"),
])
def test_exceedance_rejects_bad_input(kwargs, word):
    args = dict(cdf_x=[0.5], cdf_x_prime=[0.5], n_negatives=5, n_positives=5, point_exceeds=lambda fp, fn: fp + fn < 3)
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        audit.nested_tests_exceedance(**args)
