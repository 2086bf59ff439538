"""Unit tests of dpnotes.divergences."""

import itertools
import math

import numpy as np
import pytest

from dpnotes import divergences as div


def _sup_over_events(p, q):
    """Brute force: the largest log P(S)/Q(S) over every event S with P(S) > 0."""
    best = -math.inf
    m = len(p)
    for r in range(1, m + 1):
        for s in itertools.combinations(range(m), r):
            ps, qs = sum(p[i] for i in s), sum(q[i] for i in s)
            if ps > 0:
                best = max(best, math.inf if qs == 0 else math.log(ps / qs))
    return best


def test_max_divergence_equals_sup_over_events_on_random_pairs():
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = rng.integers(2, 7)
        p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
        assert div.max_divergence(p, q) == pytest.approx(_sup_over_events(p, q), abs=1e-12)


def test_max_divergence_support_cases():
    assert div.max_divergence([0.5, 0.5, 0.0], [0.25, 0.25, 0.5]) == pytest.approx(math.log(2))
    assert div.max_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert div.max_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(math.log(2))


def test_pure_epsilon_is_symmetric_and_zero_iff_equal():
    assert div.pure_epsilon([0.2, 0.8], [0.2, 0.8]) == 0.0
    a = div.pure_epsilon([0.2, 0.8], [0.4, 0.6])
    assert a == div.pure_epsilon([0.4, 0.6], [0.2, 0.8]) == pytest.approx(math.log(2))


@pytest.mark.parametrize(
    "p, q, match",
    [
        ([0.5, 0.6], [0.5, 0.5], "p must sum to 1"),
        ([0.5, 0.5], [1.5, -0.5], "q must have entries >= 0"),
        ([0.5, 0.5], [1.0], "same length"),
        ([], [], "non-empty"),
    ],
)
def test_bad_inputs(p, q, match):
    with pytest.raises(ValueError, match=match):
        div.max_divergence(p, q)


# ---------------------------------------------------------------------------
# approximate max, KL and Renyi divergences; closed forms of the Laplace and Gaussian pairs
# ---------------------------------------------------------------------------
import sympy as sp
from scipy import integrate, stats


def _approx_sup_over_events(p, q, delta):
    best = -math.inf
    for r in range(1, len(p) + 1):
        for s in itertools.combinations(range(len(p)), r):
            ps, qs = sum(p[i] for i in s), sum(q[i] for i in s)
            if ps > delta:
                best = max(best, math.inf if qs == 0 else math.log((ps - delta) / qs))
    return best


def test_approx_max_divergence_equals_brute_force():
    rng = np.random.default_rng(11)
    for _ in range(300):
        m = rng.integers(2, 7)
        p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
        d = rng.choice([0.0, 0.01, 0.1, 0.3])
        assert div.approx_max_divergence(p, q, d) == pytest.approx(_approx_sup_over_events(p, q, d), abs=1e-12)
    assert div.approx_max_divergence([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], 0.4) == math.inf
    assert div.approx_max_divergence([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], 0.5) == pytest.approx(0.0)
    assert div.approx_max_divergence([0.3, 0.7], [0.5, 0.5], 0.0) == pytest.approx(div.max_divergence([0.3, 0.7], [0.5, 0.5]))


def test_kl_and_renyi_known_values_and_limits():
    p, q = [0.2, 0.5, 0.3], [0.4, 0.4, 0.2]
    kl = sum(a * math.log(a / b) for a, b in zip(p, q))
    assert div.kl_divergence(p, q) == pytest.approx(kl, rel=1e-14, abs=0)
    assert div.kl_divergence(p, p) == 0.0
    assert div.kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    r2 = math.log(sum(a * a / b for a, b in zip(p, q)))
    assert div.renyi_divergence(p, q, 2) == pytest.approx(r2, rel=1e-13, abs=0)
    assert div.renyi_divergence(p, q, 1 + 1e-7) == pytest.approx(kl, rel=1e-5, abs=0)
    assert div.renyi_divergence(p, q, 1) == pytest.approx(kl)
    assert div.renyi_divergence(p, q, 400) == pytest.approx(div.max_divergence(p, q), rel=1e-2, abs=0)
    assert div.renyi_divergence(p, q, math.inf) == div.max_divergence(p, q)
    # monotone in alpha
    vals = [div.renyi_divergence(p, q, a) for a in (0.5, 0.9, 1, 2, 5, 20)]
    assert np.all(np.diff(vals) >= -1e-12)


def test_gibbs_inequality_on_random_pairs():
    rng = np.random.default_rng(2)
    for _ in range(200):
        p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
        assert div.kl_divergence(p, q) > 0


def test_laplace_closed_forms_against_quadrature_and_sympy():
    for eps in (0.1, 1.0, 3.0):
        dens = lambda y: stats.laplace.pdf(y, scale=1.0)
        loss = lambda y: stats.laplace.logpdf(y, scale=1.0) - stats.laplace.logpdf(y, loc=eps, scale=1.0)
        kl = integrate.quad(lambda y: dens(y) * loss(y), -40, 40, points=[0, eps])[0]
        assert div.laplace_kl(eps) == pytest.approx(kl, rel=1e-9, abs=0)
        for a in (1.5, 2.0, 10.0):
            mom = integrate.quad(lambda y: np.exp(a * stats.laplace.logpdf(y) + (1 - a) * stats.laplace.logpdf(y, loc=eps)),
                                 -60, 60, points=[0, eps])[0]
            assert div.laplace_renyi(a, eps) == pytest.approx(math.log(mom) / (a - 1), rel=1e-8, abs=0)
    y, e = sp.symbols("y varepsilon", positive=True)
    # KL integral in closed form (b = 1, Delta = eps): the loss |y - eps| - |y| is eps, eps - 2y, -eps on the three pieces
    expr = sp.integrate((sp.exp(y) / 2) * e, (y, -sp.oo, 0)) + \
        sp.integrate((sp.exp(-y) / 2) * (e - 2 * y), (y, 0, e)) + sp.integrate((sp.exp(-y) / 2) * (-e), (y, e, sp.oo))
    assert sp.simplify(expr - (e + sp.exp(-e) - 1)) == 0


def test_gaussian_closed_forms_against_quadrature():
    for mu in (0.3, 1.0, 2.5):
        kl = integrate.quad(lambda y: stats.norm.pdf(y) * (stats.norm.logpdf(y) - stats.norm.logpdf(y, loc=mu)), -30, 30)[0]
        assert div.gaussian_kl(mu) == pytest.approx(kl, rel=1e-9, abs=0)
        for a in (0.5, 2.0, 7.0):
            mom = integrate.quad(lambda y: np.exp(a * stats.norm.logpdf(y) + (1 - a) * stats.norm.logpdf(y, loc=mu)), -40, 40)[0]
            assert div.gaussian_renyi(a, mu) == pytest.approx(math.log(mom) / (a - 1), rel=1e-8, abs=0)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: div.approx_max_divergence([0.5, 0.5], [0.5, 0.5], 1.0), r"delta must be in \[0, 1\)"),
        (lambda: div.kl_divergence([0.5, 0.6], [0.5, 0.5]), "p must sum to 1"),
        (lambda: div.renyi_divergence([0.5, 0.5], [0.5, 0.5], 0.0), "alpha must be > 0"),
        (lambda: div.renyi_divergence([0.5, 0.5], [0.5, 0.5], -2.0), "alpha must be > 0"),
        (lambda: div.laplace_kl(0.0), "epsilon must be > 0"),
        (lambda: div.laplace_renyi(1.0, 1.0), "alpha must be > 1"),
        (lambda: div.gaussian_kl(-1.0), "mu must be > 0"),
        (lambda: div.gaussian_renyi(0.0, 1.0), "alpha must be > 0"),
    ],
)
def test_new_functions_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_approx_max_divergence_counts_events_just_above_delta():
    # the best event {0} has P(S) = 0.31, only just above delta = 0.3: log((0.31 - 0.3) / 0.01) = 0,
    # while the only other candidate {0, 1} gives log(0.7) < 0
    assert div.approx_max_divergence([0.31, 0.69], [0.01, 0.99], 0.3) == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------------------
# orders below 1 when q vanishes on part of p's support; events just above delta
# ---------------------------------------------------------------------------
import mpmath as mp


def _renyi_mp(p, q, alpha):
    """Renyi divergence by a direct 40-digit sum over the outcomes (0^x = 0 for x > 0; inf for alpha > 1
    when q vanishes where p does not)."""
    with mp.workdps(40):
        a = mp.mpf(alpha)
        total = mp.mpf(0)
        for pi, qi in zip(p, q):
            if pi == 0:
                continue
            if qi == 0:
                if a > 1:
                    return math.inf
                continue
            total += mp.mpf(pi) ** a * mp.mpf(qi) ** (1 - a)
        return math.inf if total == 0 else float(mp.log(total) / (a - 1))


def test_renyi_below_one_is_finite_when_q_vanishes_on_part_of_the_support():
    # p = (1/2, 1/2), q = (1, 0): sum p^a q^(1-a) = 2^-a, so D_a = a log 2 / (1 - a); at a = 1/2 it is log 2
    assert div.renyi_divergence([0.5, 0.5], [1.0, 0.0], 0.5) == pytest.approx(math.log(2), rel=1e-14, abs=0)
    for a in (0.2, 0.75):
        assert div.renyi_divergence([0.5, 0.5], [1.0, 0.0], a) == pytest.approx(a * math.log(2) / (1 - a), rel=1e-13, abs=0)
    # the same pair at orders >= 1 is infinite; disjoint supports are infinite at every order
    for a in (1.0, 1.5, math.inf):
        assert div.renyi_divergence([0.5, 0.5], [1.0, 0.0], a) == math.inf
    assert div.renyi_divergence([1.0, 0.0], [0.0, 1.0], 0.3) == math.inf
    # ... and the other direction, q vanishing only off p's support, is finite at every order (asymmetric)
    assert div.renyi_divergence([1.0, 0.0], [0.5, 0.5], 3.0) == pytest.approx(math.log(2), rel=1e-13, abs=0)


def test_renyi_against_high_precision_sums_with_zeros_and_skew_symmetry():
    rng = np.random.default_rng(17)
    for _ in range(60):
        m = rng.integers(3, 7)
        p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
        p[rng.integers(m)] = 0.0          # holes in either support (possibly the same outcome)
        q[rng.integers(m)] = 0.0
        p, q = p / p.sum(), q / q.sum()
        for a in (0.1, 0.45, 0.9, 1.7, 6.0):
            want = _renyi_mp(p, q, a)
            got = div.renyi_divergence(p, q, a)
            assert got == want if math.isinf(want) else got == pytest.approx(want, rel=1e-10, abs=1e-14)
        # skew symmetry (1 - a) D_a(P||Q) = a D_{1-a}(Q||P) for a in (0, 1)
        for a in (0.2, 0.65):
            lhs, rhs = (1 - a) * div.renyi_divergence(p, q, a), a * div.renyi_divergence(q, p, 1 - a)
            assert lhs == rhs if math.isinf(lhs) else lhs == pytest.approx(rhs, rel=1e-10, abs=1e-14)


def test_approx_max_divergence_counts_an_event_a_hair_above_delta():
    # {0} has P = delta + 1e-9 and Q = 1e-12: it gives log(1e-9 / 1e-12) = log 1000, far above the other
    # events; any slack larger than 1e-9 in "P(S) > delta" would skip it
    from fractions import Fraction
    d = Fraction(1, 5)
    p = [d + Fraction(1, 10**9), 1 - d - Fraction(1, 10**9)]
    q = [Fraction(1, 10**12), 1 - Fraction(1, 10**12)]
    exact = max(math.log((ps - d) / qs) for ps, qs in ((p[0], q[0]), (p[1], q[1]), (sum(p), sum(q))) if ps > d)
    assert exact == pytest.approx(math.log(1000), rel=1e-12, abs=0)
    got = div.approx_max_divergence([float(x) for x in p], [float(x) for x in q], float(d))
    assert got == pytest.approx(exact, rel=1e-6, abs=0)
    # the same pair with delta a hair above P({0}): that event drops out, only {1} and {0, 1} remain
    got_above = div.approx_max_divergence([float(x) for x in p], [float(x) for x in q], float(d) + 2e-9)
    assert got_above == pytest.approx(math.log((1 - float(d) - 2e-9) / 1.0), rel=1e-9)


def test_approx_max_divergence_is_asymmetric_and_decreases_in_delta():
    p, q = [0.6, 0.3, 0.1], [0.2, 0.3, 0.5]
    # brute force over the 7 events, both directions
    assert div.approx_max_divergence(p, q, 0.15) == pytest.approx(math.log(0.45 / 0.2), rel=1e-12, abs=0)
    assert div.approx_max_divergence(q, p, 0.15) == pytest.approx(math.log(0.35 / 0.1), rel=1e-12, abs=0)
    vals = [div.approx_max_divergence(p, q, d) for d in (0.0, 0.1, 0.3, 0.5, 0.59)]
    assert np.all(np.diff(vals) < 0)
    assert div.approx_max_divergence(p, q, 0.0) == pytest.approx(math.log(3), rel=1e-12, abs=0)


import warnings


def test_outcomes_impossible_under_both_laws_change_nothing():
    # an outcome with p = q = 0 must neither make a divergence infinite nor produce warnings or errors
    p, q = [0.5, 0.5, 0.0], [0.25, 0.75, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # no division-by-zero or invalid-value warnings
        assert div.max_divergence(p, q) == pytest.approx(math.log(2))
        assert div.max_divergence([1.0, 0.0], [1.0, 0.0]) == 0.0
        assert div.max_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
        assert div.approx_max_divergence(p, q, 0.1) == pytest.approx(math.log(0.4 / 0.25))
        for a in (0.5, 2.0):
            want = math.log(0.5**a * 0.25 ** (1 - a) + 0.5**a * 0.75 ** (1 - a)) / (a - 1)
            assert div.renyi_divergence(p, q, a) == pytest.approx(want, rel=1e-13, abs=0)
        assert div.renyi_divergence([0.5, 0.5, 0.0], [0.5, 0.5, 0.0], 3.0) == pytest.approx(0.0, abs=1e-15)
        # supports that differ: infinite or finite, but silently
        assert div.approx_max_divergence([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], 0.4) == math.inf
        assert div.renyi_divergence([0.5, 0.5], [1.0, 0.0], 0.5) == pytest.approx(math.log(2))
        assert div.renyi_divergence([0.0, 1.0, 0.0], [0.3, 0.0, 0.7], 0.5) == math.inf
        assert div.renyi_divergence([0.5, 0.5, 0.0], [0.5, 0.25, 0.25], 0.5) == pytest.approx(
            -2 * math.log(0.5 + math.sqrt(0.125)))


def test_approx_max_divergence_with_delta_at_the_top_of_its_range():
    # delta = 1 - 2^-53 leaves no event with P(S) > delta (up to the 1e-15 guard): the supremum is empty
    assert div.approx_max_divergence([0.3, 0.7], [0.5, 0.5], 1.0 - 2.0**-53) == -math.inf


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: div.gaussian_renyi(2.0, -1.0), "mu must be > 0, got -1"),
        (lambda: div.gaussian_renyi(-2.0, 1.0), "alpha must be > 0, got -2"),
        (lambda: div.laplace_renyi(2.0, 0.0), "epsilon must be > 0, got 0"),
        (lambda: div.renyi_divergence([0.5, 0.5], [0.5, 0.5], math.nan), "alpha must be a real number, got nan"),
    ],
)
def test_more_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("alpha, eps", [(1 + 1e-9, 1e-6), (1.001, 0.0009118819655545162), (1.5, 1e-8),
                                        (30.0, 0.02), (1.0001, 0.9), (1.000000001, 30.0), (1 + 1e-12, 3.0)])
def test_laplace_renyi_keeps_its_digits_near_order_one_and_small_epsilon(alpha, eps):
    """Regression (found by tests/test_props_divergences.py): the logaddexp form lost
    log10(1/((alpha - 1) eps^2)) digits and gave -2e-9 for the true 5e-13 at alpha = 1 + 1e-9, eps = 1e-6.
    Reference: the closed form at 50 digits."""
    with mp.workdps(50):
        a, e = mp.mpf(alpha), mp.mpf(eps)
        ref = mp.log(a / (2 * a - 1) * mp.e ** ((a - 1) * e) + (a - 1) / (2 * a - 1) * mp.e ** (-a * e)) / (a - 1)
    assert div.laplace_renyi(alpha, eps) == pytest.approx(float(ref), rel=1e-13, abs=0)


def test_renyi_divergence_of_a_law_with_itself_is_zero_near_order_one():
    """Regression (found by tests/test_props_divergences.py): sum p = 1 + 2e-16 in floats, and the log of
    the sum divided by alpha - 1 = 1e-6 gave -1.1e-10, a negative divergence."""
    w = np.array([0.7214883401940817, 0.5253543224757259, 0.31024187555895566])
    p = w / w.sum()
    for a in (1 + 1e-6, 1 - 1e-6, 1 + 1e-12, 1.3):
        assert div.renyi_divergence(p, p, a) == 0.0
    # order below 1 with almost all of P where q = 0: the sum is tiny, no log1p of a number near -1
    assert div.renyi_divergence([0.0, 1e-300, 1.0], [0.0, 1.0, 0.0], 0.999999) == pytest.approx(
        0.999999 * math.log(1e-300) / (0.999999 - 1), rel=1e-12)


def test_approx_max_divergence_at_delta_zero_counts_a_tiny_event():
    """Regression (found by tests/test_props_divergences.py): a fixed slack of 1e-15 in P(S) > delta dropped
    an event of mass 1e-300 that q never produces, so the divergence came out 0 instead of inf."""
    p, q = [0.0, 1e-300, 1.0 - 1e-300], [0.0, 0.0, 1.0]
    assert div.approx_max_divergence(p, q, 0.0) == math.inf == div.max_divergence(p, q)


@pytest.mark.parametrize("eps", [1.522997974471263e-08, 1e-4, 0.3, 0.999, 1.0, 7.0])
def test_laplace_kl_keeps_its_digits_for_small_epsilon(eps):
    """Regression (found by tests/test_props_divergences.py, thorough profile): eps + expm1(-eps) cancels
    to eps^2/2 and lost log10(2/eps) digits (3e-8 relative at eps = 1.5e-8). Reference: 50 digits."""
    with mp.workdps(50):
        ref = float(mp.mpf(eps) - 1 + mp.e ** (-mp.mpf(eps)))
    assert div.laplace_kl(eps) == pytest.approx(ref, rel=1e-15, abs=0)


def test_expm1mx_is_exact_to_rounding_on_both_sides_of_its_branch_and_elementwise():
    """The private e^x - 1 - x that laplace_kl, laplace_renyi and the subsampled RDP quadrature share:
    within 4 ulps of 40-digit mpmath for |x| from 1e-300 to 700, both signs, on both sides of the
    series' branch at |x| = 1 (0.999 and 1.001 asymmetric in sign too), called on an array and on scalars."""
    mp.mp.dps = 40
    mags = np.concatenate([np.logspace(-300, -1, 60), np.linspace(0.05, 0.999, 40), [0.9999999, 1.0, 1.001],
                           np.linspace(1.01, 5.0, 20), [30.0, 700.0]])
    xs = np.concatenate([mags, -mags, [-1e300]])
    got = div._expm1mx(xs)
    assert got.shape == xs.shape
    for x, g in zip(xs, got):
        m = mp.mpf(float(x))
        # the series in mpmath where 40 digits of expm1(x) cannot resolve its x^2/2 (x^2/2 underflows
        # a double below |x| ~ 1e-162: then the answer is within a subnormal of 0)
        ref = m * m / 2 * (1 + m / 3 * (1 + m / 4 * (1 + m / 5))) if abs(x) < 1e-6 else mp.expm1(m) - m
        assert abs(mp.mpf(float(g)) - ref) <= 4 * 2.0**-53 * abs(ref) + 2.0**-1074, (x, g, ref)
        assert float(div._expm1mx(float(x))) == g          # scalar and array calls agree to the bit
    assert div._expm1mx(0.0) == 0.0 and div._expm1mx(-0.0) == 0.0
