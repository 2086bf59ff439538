"""Unit tests of dpnotes.tradeoff."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from dpnotes import loss, tradeoff


def test_error_pairs_by_hand():
    # outcomes 0, 1, 2; region {1, 2}: alpha = p1 + p2, beta = q0
    p, q = [0.5, 0.3, 0.2], [0.1, 0.3, 0.6]
    pairs = tradeoff.error_pairs(p, q)
    assert pairs.shape == (8, 2)
    region_12 = 0b110
    assert pairs[region_12] == pytest.approx([0.5, 0.1])
    assert pairs[0] == pytest.approx([0.0, 1.0]) and pairs[7] == pytest.approx([1.0, 0.0])


def test_optimal_tradeoff_is_the_lower_envelope_of_all_tests():
    """Neyman-Pearson: no deterministic test lies below the piecewise-linear optimal curve,
    and every vertex is attained by some deterministic test."""
    rng = np.random.default_rng(0)
    for _ in range(100):
        m = rng.integers(2, 7)
        p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
        a, b = tradeoff.optimal_tradeoff(p, q)
        assert np.all(np.diff(a) >= 0) and np.all(np.diff(b) <= 0)
        pairs = tradeoff.error_pairs(p, q)
        assert np.all(pairs[:, 1] >= np.interp(pairs[:, 0], a, b) - 1e-12)
        for va, vb in zip(a, b):
            assert np.min(np.hypot(pairs[:, 0] - va, pairs[:, 1] - vb)) < 1e-12


def test_optimal_tradeoff_handles_ties_and_disjoint_support():
    a, b = tradeoff.optimal_tradeoff([0.5, 0.5, 0.0], [0.0, 0.0, 1.0])
    assert a.tolist() == [0.0, 0.0, 1.0] and b.tolist() == [1.0, 0.0, 0.0]
    a, b = tradeoff.optimal_tradeoff([0.25, 0.25, 0.5], [0.25, 0.25, 0.5])  # identical: diagonal
    assert a.tolist() == [0.0, 1.0] and b.tolist() == [1.0, 0.0]


def test_region_boundary_closed_form_points():
    eps = math.log(3)
    # corner at alpha = beta = 1/(1+e^eps) = 1/4
    assert tradeoff.region_lower_boundary([0.25], eps)[0] == pytest.approx(0.25)
    assert tradeoff.region_lower_boundary([0.0, 1.0], eps).tolist() == pytest.approx([1.0, 0.0])
    # with delta the intercepts move to 1 - delta
    assert tradeoff.region_lower_boundary([0.0], eps, 0.1)[0] == pytest.approx(0.9)
    # eps = 0: the diagonal
    grid = np.linspace(0, 1, 11)
    assert np.allclose(tradeoff.region_lower_boundary(grid, 0.0), 1 - grid)


@pytest.mark.parametrize("eps, delta", [(math.log(3), 0.1), (math.log(2), 0.25), (2.0, 1e-3)])
def test_region_boundary_with_delta_in_both_constraints(eps, delta):
    """beta_min = max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)), checked in exact
    rationals at points where each of the three pieces is the binding one."""
    e = Fraction(math.exp(eps))
    d = Fraction(delta)
    corner = (1 - d) / (1 + e)                     # where the two lines cross
    for alpha in (Fraction(0), corner / 2, corner, (corner + 1 - d) / 2, 1 - d, Fraction(1)):
        want = max(Fraction(0), 1 - d - e * alpha, (1 - d - alpha) / e)
        got = tradeoff.region_lower_boundary([float(alpha)], eps, delta)[0]
        assert got == pytest.approx(float(want), abs=1e-14)
    # right of the corner only the second line binds, and it moves with delta
    a_right = float((corner + 1 - d) / 2)
    assert tradeoff.region_lower_boundary([a_right], eps, delta)[0] > 0
    assert (tradeoff.region_lower_boundary([a_right], eps, delta)[0]
            < tradeoff.region_lower_boundary([a_right], eps, 0.0)[0])


def kov_extremal(eps, delta):
    """The (eps, delta) mechanism of Kairouz, Oh and Viswanath (2015) on four outputs."""
    e = math.exp(eps)
    p = [delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e), 0.0]
    return p, p[::-1]


@pytest.mark.parametrize("eps, delta", [(math.log(3), 0.1), (0.5, 0.02), (2.0, 0.3)])
def test_region_boundary_is_the_lower_envelope_of_an_extremal_mechanism(eps, delta):
    """Independent of the formula: the smallest beta over all *randomized* tests at each alpha,
    by linear programming over the rejection probabilities phi in [0, 1]^4."""
    from scipy.optimize import linprog

    p, q = kov_extremal(eps, delta)
    for alpha in np.linspace(0, 1, 23):
        # minimise beta = 1 - q.phi subject to p.phi = alpha
        res = linprog(-np.array(q), A_eq=[p], b_eq=[alpha], bounds=[(0, 1)] * 4, method="highs")
        assert res.status == 0
        assert 1 + res.fun == pytest.approx(tradeoff.region_lower_boundary([alpha], eps, delta)[0], abs=1e-9)


def test_in_privacy_region_delta_enters_both_inequalities():
    eps, delta = math.log(2), 0.15
    # alpha + e^eps beta = 0.9 >= 1 - delta = 0.85 only thanks to delta (second inequality)
    assert tradeoff.in_privacy_region([0.6], [0.15], eps, delta)[0]
    assert not tradeoff.in_privacy_region([0.6], [0.15], eps, 0.0)[0]
    # e^eps alpha + beta = 0.9 >= 0.85 only thanks to delta (first inequality)
    assert tradeoff.in_privacy_region([0.15], [0.6], eps, delta)[0]
    assert not tradeoff.in_privacy_region([0.15], [0.6], eps, 0.0)[0]
    # and each inequality can fail alone, with delta
    assert not tradeoff.in_privacy_region([0.6], [0.1], eps, delta)[0]     # 0.6 + 0.2 < 0.85
    assert not tradeoff.in_privacy_region([0.1], [0.6], eps, delta)[0]     # 0.2 + 0.6 < 0.85
    # tol is a one-sided allowance for rounding: a point 1e-13 below a line passes, 1e-9 does not
    assert tradeoff.in_privacy_region([0.6], [0.125 - 1e-13], eps, delta)[0]
    assert not tradeoff.in_privacy_region([0.6], [0.125 - 1e-9], eps, delta)[0]
    assert not tradeoff.in_privacy_region([0.6], [0.125 - 1e-13], eps, delta, tol=0.0)[0]


def test_in_privacy_region_both_inequalities_matter():
    eps = math.log(2)
    assert tradeoff.in_privacy_region([0.4], [0.3], eps)[0]          # 0.8+0.3 >= 1, 0.4+0.6 >= 1
    assert not tradeoff.in_privacy_region([0.1], [0.7], eps)[0]      # 0.2+0.7 < 1
    assert not tradeoff.in_privacy_region([0.7], [0.1], eps)[0]      # 0.7+0.2 < 1


def test_region_contains_exactly_the_tests_of_an_eps_dp_pair():
    rng = np.random.default_rng(1)
    for _ in range(50):
        p, q = rng.dirichlet(np.ones(4), size=2)
        eps = max(abs(math.log(x / y)) for x, y in zip(p, q))
        pairs = np.vstack([tradeoff.error_pairs(p, q), tradeoff.error_pairs(q, p)])
        assert tradeoff.in_privacy_region(pairs[:, 0], pairs[:, 1], eps).all()
        assert not tradeoff.in_privacy_region(pairs[:, 0], pairs[:, 1], 0.99 * eps, tol=0).all()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: tradeoff.error_pairs([0.5, 0.5], [1.0]), "same length"),
        (lambda: tradeoff.error_pairs(np.full(21, 1 / 21), np.full(21, 1 / 21)), "at most 20 outcomes"),
        (lambda: tradeoff.optimal_tradeoff([0.5, 0.6], [0.5, 0.5]), "p must sum to 1"),
        (lambda: tradeoff.region_lower_boundary([0.5], -1.0), "epsilon must be >= 0"),
        (lambda: tradeoff.region_lower_boundary([0.5], 1.0, 1.0), r"delta must be in \[0, 1\)"),
        (lambda: tradeoff.region_lower_boundary([1.5], 1.0), r"alpha must have entries in \[0, 1\], got 1.5"),
        (lambda: tradeoff.in_privacy_region([0.1, 0.2], [0.1], 1.0), "same shape"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: tradeoff.in_privacy_region([0.5], [0.5], -1.0), "epsilon must be >= 0, got -1"),
        (lambda: tradeoff.in_privacy_region([0.5], [0.5], 1.0, 1.5), "delta must be in [0, 1), got 1.5"),
        (lambda: tradeoff.region_lower_boundary([0.5], -0.5), "epsilon must be >= 0, got -0.5"),
        (lambda: tradeoff.region_lower_boundary([0.5], 1.0, -0.1), "delta must be in [0, 1), got -0.1"),
        (lambda: tradeoff.region_lower_boundary([np.nan], 1.0), "alpha must have finite entries, got nan"),
        (lambda: tradeoff.region_lower_boundary([-0.1], 1.0), "alpha must have entries in [0, 1], got -0.1"),
        # issue 22: a string used to surface as numpy's "could not convert string to float"
        (lambda: tradeoff.region_lower_boundary("a", 1.0),
         "alpha must be a real number or an array of real numbers, got 'a'"),
        (lambda: tradeoff.in_privacy_region([0.5], ["b"], 1.0), "beta must be a real number or an array of real numbers, got ['b']"),
        (lambda: tradeoff.in_privacy_region([0.5], [np.inf], 1.0), "beta must have finite entries, got inf"),
        (lambda: tradeoff.in_privacy_region([0.5], [0.5], 1.0, tol=-1e-3), "tol must be >= 0, got -0.001"),
        (lambda: tradeoff.in_privacy_region([0.1, 0.2], [0.1], 1.0), "alpha and beta must have the same shape, got (2,) and (1,)"),
    ],
)
def test_bad_inputs_exact_messages(call, message, raises_exactly):
    with raises_exactly(message):
        call()


def test_in_privacy_region_on_the_lines_with_no_tolerance():
    # eps = 0 (e^eps = 1 exactly): alpha + beta = 1 is on both lines and belongs to the region
    assert tradeoff.in_privacy_region([0.25, 0.75], [0.75, 0.25], 0.0, tol=0.0).tolist() == [True, True]
    # with delta = 0.25 the lines move to alpha + beta = 0.75, exactly representable
    assert tradeoff.in_privacy_region([0.25, 0.5], [0.5, 0.25], 0.0, 0.25, tol=0.0).tolist() == [True, True]
    assert not tradeoff.in_privacy_region([0.25], [0.25], 0.0, 0.25, tol=0.0)[0]


def test_region_functions_take_exact_rationals_and_return_floats():
    alpha = [Fraction(1, 4), Fraction(1, 2)]
    beta_min = tradeoff.region_lower_boundary(alpha, math.log(3))
    assert beta_min.dtype == float and beta_min == pytest.approx([0.25, 1 / 6], rel=1e-14, abs=0)
    inside = tradeoff.in_privacy_region(alpha, [Fraction(1, 4), Fraction(1, 6)], math.log(3))
    assert inside.dtype == bool and inside.tolist() == [True, True]


def test_optimal_tradeoff_ignores_outcomes_neither_law_produces():
    a, b = tradeoff.optimal_tradeoff([0.5, 0.5, 0.0], [0.5, 0.5, 0.0])
    assert a.tolist() == [0.0, 1.0] and b.tolist() == [1.0, 0.0]
    a, b = tradeoff.optimal_tradeoff([0.0, 0.75, 0.25], [0.0, 0.25, 0.75])
    assert a.tolist() == [0.0, 0.25, 1.0] and b.tolist() == [1.0, 0.25, 0.0]


def test_tradeoff_end_points_are_exact_despite_rounding():
    # in floats 0.2 + 0.4 + 0.3 + 0.1 = 1.0000000000000002: the curve must still end at exactly
    # (1, 0), and every test's errors must stay in [0, 1]
    p1, q1 = [0.2, 0.4, 0.3, 0.1], [0.4, 0.4, 0.15, 0.05]     # ratio order = index order: cumsum(p) > 1
    p2, q2 = [0.1, 0.3, 0.4, 0.2], [0.2, 0.4, 0.3, 0.1]       # ratio order = index order: cumsum(q) > 1
    assert np.cumsum(p1)[-1] > 1.0 and np.cumsum(q2)[-1] > 1.0
    for p, q in [(p1, q1), (p2, q2)]:
        a, b = tradeoff.optimal_tradeoff(p, q)
        assert a[0] == 0.0 and b[0] == 1.0 and a[-1] == 1.0 and b[-1] == 0.0
        pairs = tradeoff.error_pairs(p, q)
        assert pairs.min() >= 0.0 and pairs.max() <= 1.0
    q3 = [0.2, 0.05, 0.4, 0.25, 0.1]                           # here the rejection sums exceed 1
    regions = (np.arange(32)[:, None] >> np.arange(5)[None, :]) & 1
    assert (regions @ np.array(q3)).max() > 1.0
    assert tradeoff.error_pairs(q3[::-1], q3)[:, 1].min() == 0.0


def test_no_numpy_warnings_on_zero_probabilities():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tradeoff.optimal_tradeoff([0.0, 0.5, 0.5], [0.5, 0.0, 0.5])


def test_optimal_tradeoff_rejects_outcomes_only_the_alternative_produces_first():
    # outcome 2 has p = 0 < q: likelihood ratio +inf, so the best tests reject on it first
    a, b = tradeoff.optimal_tradeoff([0.5, 0.5, 0.0], [0.9, 0.0, 0.1])
    assert a.tolist() == [0.0, 0.0, 0.5, 1.0]
    assert b == pytest.approx([1.0, 0.9, 0.0, 0.0], abs=1e-15)
    pairs = tradeoff.error_pairs([0.5, 0.5, 0.0], [0.9, 0.0, 0.1])
    assert np.all(pairs[:, 1] >= np.interp(pairs[:, 0], a, b) - 1e-15)



def test_error_pairs_accepts_exactly_up_to_the_maximum_number_of_outcomes(monkeypatch):
    # the docstring promises m <= 20 (m = 21 is refused in test_bad_inputs). Enumerating 2^20
    # regions takes seconds, so the boundary is checked with the limit lowered to 3: m = 3 must
    # enumerate, m = 4 must be refused. Independent check of the m = 3 result: with uniform laws a
    # region with r outcomes has alpha = r/3 and beta = 1 - r/3, and C(3, r) regions have r outcomes.
    monkeypatch.setattr(tradeoff, "_MAX_OUTCOMES", 3)
    u = np.full(3, 1 / 3)
    pairs = tradeoff.error_pairs(u, u)
    r = np.rint(pairs[:, 0] * 3).astype(int)
    assert np.bincount(r).tolist() == [math.comb(3, k) for k in range(4)]
    assert np.allclose(pairs[:, 1], 1 - r / 3, atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match="^p must have at most 3 outcomes for enumeration, got 4$"):
        tradeoff.error_pairs(np.full(4, 0.25), np.full(4, 0.25))


def test_error_pairs_are_rates_in_the_unit_interval_after_rounding():
    """Regression (found by tests/test_props_tradeoff.py, thorough profile): p = w / w.sum() sums to
    1.0000000000000002 in floats, and the test that rejects everything had that false-positive rate, which
    region_lower_boundary then refused as outside [0, 1]."""
    w = np.array([0.7214883401940817, 0.5253543224757259, 0.31024187555895566])
    p = w / w.sum()
    assert p.sum() > 1.0
    errs = tradeoff.error_pairs(p, [0.0, 0.0, 1.0])
    assert errs.min() >= 0.0 and errs.max() <= 1.0
    assert errs[-1].tolist() == [1.0, 0.0]
    assert tradeoff.region_lower_boundary(errs[:, 0], 0.5).shape == (8,)


def test_a_tiny_false_negative_rate_keeps_its_digits():
    """Regression (found by tests/test_props_tradeoff.py, thorough profile): beta was 1 - (mass rejected),
    which is 2.2e-16 for the true 2.3195e-16 here; at eps = 20 the DP inequality multiplies beta by e^20,
    and the pair's own tests fell outside its exact (eps, delta) region. Beta is now the mass kept."""
    p = np.array([0.0, 0.5, 0.0, 0.0, 0.5])
    q = np.array([0.0, 1.0, 0.0, 0.0, 2.3195228302435694e-16])
    q = q / q.sum()
    errs = tradeoff.error_pairs(p, q)
    rejects_1 = errs[2]                                   # the region {1}: alpha = p[1], beta = q[4]
    assert rejects_1[0] == 0.5 and rejects_1[1] == pytest.approx(q[4], rel=1e-15, abs=0)
    delta = max(loss.hockey_stick(p, q, 20.0), loss.hockey_stick(q, p, 20.0))
    assert tradeoff.in_privacy_region(errs[:, 0], errs[:, 1], 20.0, delta, tol=1e-15).all()
    a, b = tradeoff.optimal_tradeoff(p, q)
    assert b[1] == pytest.approx(q[4], rel=1e-15, abs=0)


def test_region_at_a_huge_epsilon_is_the_axes():
    """e^eps overflows past eps = 709.78, but the boundary has a limit: max(0, 1 - delta - e^eps alpha,
    e^-eps (1 - delta - alpha)) is 1 - delta at alpha = 0 and 0 for every alpha > 0 (it raised
    OverflowError: math range error at eps = 1e300)."""
    got = tradeoff.region_lower_boundary([0.0, 5e-324, 1e-300, 0.25, 1.0], 1e300, 0.01)
    assert got.tolist() == [0.99, 0.0, 0.0, 0.0, 0.0]
    assert not np.signbit(got).any()
    assert tradeoff.region_lower_boundary([0.0, 1.0], 1e300).tolist() == [1.0, 0.0]


def test_region_boundary_past_the_overflow_of_exp_keeps_a_tiny_alpha():
    """At eps = 710 (e^eps > 1.8e308) a subnormal alpha still moves the first line:
    1 - e^710 * 1e-310 = 0.97766..., by mpmath at 50 digits; and the second line at alpha = 0.5 is
    e^-710 / 2 = 2.238e-309, a subnormal, not 0."""
    import mpmath

    with mpmath.workdps(50):
        want = float(1 - mpmath.exp(710) * mpmath.mpf(1e-310))
        want_sub = float(1 - mpmath.exp(710) * mpmath.mpf(5e-324))
        want_half = float(mpmath.exp(-710) / 2)
    got = tradeoff.region_lower_boundary([1e-310, 5e-324, 0.5], 710.0)
    assert got[0] == pytest.approx(want, rel=1e-13, abs=0)
    assert got[1] == pytest.approx(want_sub, rel=1e-13, abs=0)
    assert got[2] == pytest.approx(want_half, rel=1e-6, abs=0)       # a subnormal keeps ~15 bits here


def test_in_privacy_region_at_a_huge_epsilon():
    """At eps = 1e300 the region is everything except beta < 1 - delta on alpha = 0 (and alpha < 1 - delta
    on beta = 0): e^eps * 0 is 0, not nan (it raised OverflowError: math range error)."""
    alpha = [0.0, 0.0, 0.0, 5e-324, 1e-300, 0.25, 0.98, 0.99]
    beta = [0.99, 0.98, 1.0, 5e-324, 0.0, 0.25, 0.0, 0.0]
    got = tradeoff.in_privacy_region(alpha, beta, 1e300, 0.01, tol=0.0)
    assert got.tolist() == [True, False, True, True, False, True, False, True]
    assert tradeoff.in_privacy_region([0.0], [0.0], 1e300).tolist() == [False]
