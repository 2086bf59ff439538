"""Tests for the surviving mutants of dpnotes.svt that a scan of the public API could not tell apart (issue 22).

The complete mutation run left 213 survivors in svt. Each was either shown harmless (the reasons in
benchmarks/mutation-survivors.toml) or is killed here, by a reference that does not run the module's
integrator: closed forms where one noise dwarfs the rest, rank probabilities of tied i.i.d. noises, the
closed form of the difference of two Laplace noises, Laplace's method where the scales vanish, and mpmath
quadrature of the integrand written from its definition (multiplicities as powers, so that hundreds of
equal answers, the only inputs that reach some of the integrator's branches, cost one factor). Each test
names the mutants it kills (``mutmut show dpnotes.svt.<name>``). The section "precision" holds the three
bugs this search found in the original (a log of a rounded reciprocal or quotient, positions more than
the largest float apart).
"""

import math
import sys
import warnings

import mpmath as mp
import numpy as np
import pytest

from dpnotes import svt
from mp_references import References
from test_mutation_svt_laws import mp_breakpoints

# the mpmath quadratures (about 6 CPU seconds) are stored; make verify computes them again (tests/mp_references.py)
STORE = References("svt_survivors")


# =========================================================================== group B: the law's slopes and ratios
def rank_log_probability(below, above):
    """log Pr that one noisy threshold lands above ``below`` noisy answers and below ``above`` of them when
    the threshold and every answer are equal and all noises are i.i.d. (equal scales): of the
    below + above + 1 exchangeable noises, the threshold's must come right after the ``below`` ones."""
    return math.log(math.factorial(below) * math.factorial(above) / math.factorial(below + above + 1))


def sparse_rank_log_probability(k, row, c, refresh):
    """The same for an output of Sparse (its top positions padded with k), round by round with refresh."""
    hits = [int(t) for t in row if t < k]
    asked = hits[-1] + 1 if len(hits) == c else k
    if not refresh:
        return rank_log_probability(asked - len(hits), len(hits))
    total, first = 0.0, 0
    for h in hits:
        total += rank_log_probability(h - first, 1)
        first = h + 1
    if first < asked:
        total += rank_log_probability(asked - first, 0)
    return total


@pytest.mark.parametrize("scale", [5e-324, 1e-300, 1e308, 1.797e308])
def test_ties_at_equal_scales_have_rank_probabilities(scale):
    """Three answers equal to the threshold, threshold and query noise of one scale: every output's
    probability is a rank probability of i.i.d. noises (1/((o+1)(o+2)) for AboveThreshold), at any scale.
    At 5e-324 and 1e-300 the slope's two terms are compared by their logs (tails b_t - side b_q below
    1e-290); at 1e308 tails * b_t overflows. Kills _Law._slope mutmut_33 (an overflowed numerator taken as
    finite), _66, _67, _69, _70, _71 and _74 (the sign of the slope, or twice it, in that branch)."""
    k, threshold = 3, 0.0
    answers = [threshold] * k
    kw = dict(threshold_scale=scale, query_scale=scale)
    got = svt.output_log_probabilities(answers, threshold, 1.0, **kw)
    want = [rank_log_probability(o, 1) for o in range(k)] + [rank_log_probability(k, 0)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
    for refresh in (True, False):
        outputs, got = svt.sparse_output_log_probabilities(answers, threshold, 1.0, 2, refresh=refresh, **kw)
        want = [sparse_rank_log_probability(k, row, 2, refresh) for row in outputs]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_ties_at_vanishing_unequal_scales_are_the_law_at_unit_scales():
    """Scales 2e-300 and 4e-300 with three answers on the threshold: the law does not change when positions
    and scales are multiplied by one number, so it is the law at scales 2 and 4 (mpmath); output 0 is
    also exactly 1/2 (the difference of two independent symmetric noises is symmetric). Here b_q exceeds
    |tails| b_t on the pieces whose slope is compared by logs. Kills _Law._slope mutmut_87."""
    answers, threshold = [0.0] * 3, 0.0
    got = svt.output_log_probabilities(answers, threshold, 1.0, threshold_scale=2e-300, query_scale=4e-300)
    assert got[0] == pytest.approx(math.log(0.5), abs=1e-9)
    want = [mp_log_pattern_counts({0.0: o}, {0.0: 1}, 0.0, 2.0, 4.0) for o in range(3)] + [mp_log_pattern_counts({0.0: 3}, {}, 0.0, 2.0, 4.0)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def mp_log_top(answer, threshold, b_t, b_q, dps=40):
    """log Pr[answer + Lap(b_q) >= threshold + Lap(b_t)] in closed form: the difference D of the query and
    threshold noises has Pr[D >= x] = (b_t^2 e^(-x/b_t) - b_q^2 e^(-x/b_q)) / (2 (b_t^2 - b_q^2)) for
    x >= 0 (b_t != b_q) and is symmetric."""
    with mp.workdps(dps):
        b_t, b_q = mp.mpf(b_t), mp.mpf(b_q)
        x = mp.mpf(threshold) - mp.mpf(answer)
        tail = (b_t ** 2 * mp.exp(-abs(x) / b_t) - b_q ** 2 * mp.exp(-abs(x) / b_q)) / (2 * (b_t ** 2 - b_q ** 2))
        return mp.log(tail if x >= 0 else 1 - tail), mp.log(1 - tail if x >= 0 else tail)


@pytest.mark.parametrize("answer, other", [(0.0, -0.5), (-0.5, 0.0)])
def test_log_ratio_with_an_answer_on_the_threshold_matches_the_closed_form(answer, other):
    """One answer, on the threshold on one data set and 0.5 below it on the other, with the query noise
    narrower than the threshold's (the largest value of the integrand sits on the answer, so the gap is
    read between the answer on the threshold and the moved one). Against the closed form of the two
    outputs' probabilities (mp_log_top). Kills _log_value_gap mutmut_21 (answer on the threshold on D) and
    mutmut_23 (on D')."""
    top1, bottom1 = mp_log_top(answer, 0.0, 4.0, 1.0)
    top2, bottom2 = mp_log_top(other, 0.0, 4.0, 1.0)
    want = float(max(abs(top1 - top2), abs(bottom1 - bottom2)))
    got = svt.max_log_ratio([answer], [other], 0.0, 1.0, threshold_scale=4.0, query_scale=1.0)
    assert got == pytest.approx(want, rel=1e-9, abs=0)


def test_log_ratio_far_below_a_huge_threshold_is_the_threshold_rate():
    """Threshold at 1e300, answers 0 and 1, threshold scale 10 and query scale 1: Pr[top] is
    b_t^2 e^(-(T - a)/b_t) / (2 (b_t^2 - b_q^2)) up to a relative e^(-9e299) (mp_log_top's closed form), so
    the top's log-ratio is |a - a'|/b_t = 0.1 exactly to the floats, and the bottom's is below 1e-300.
    Kills _log_value_gap mutmut_6 (the threshold's term taken from the two differences to a threshold at
    1e300, which cancel to 0)."""
    assert svt.max_log_ratio([0.0], [1.0], 1e300, 1.0, threshold_scale=10.0, query_scale=1.0) == pytest.approx(0.1, rel=1e-12, abs=0)


def mp_largest_deviation(below, above, threshold, b_t, b_q):
    """max over t of -|t - T|/b_t - sum_below max(0, v - t)/b_q - sum_above max(0, t - v)/b_q in mpmath (no
    overflow): concave and piecewise linear, so largest at a kink. By Laplace's method the log-probability
    of the pattern is this up to the log of a width of order the scales and k log 2 (under 2000 in size
    for scales between 5e-324 and 1e308)."""
    T, b_t, b_q = mp.mpf(threshold), mp.mpf(b_t), mp.mpf(b_q)
    below, above = [mp.mpf(v) for v in below], [mp.mpf(v) for v in above]

    def g(t):
        return (-abs(t - T) / b_t - sum(max(mp.mpf(0), v - t) for v in below) / b_q
                - sum(max(mp.mpf(0), t - v) for v in above) / b_q)
    return max(g(t) for t in [T, *below, *above])


def test_sparse_ratio_where_no_kink_is_finite_on_both_laws_is_inf():
    """Query scale 1e-310: on D' = (1.0, 0.7) the output "bottom, top" needs the noisy threshold in (1.0, 0.7],
    which costs 0.3/1e-310 = 3e309 nats, past the floats (its log-probability is -inf), while on D it is
    finite: the largest log-ratio is inf. Every kink of the pattern's law is then -inf on one of the two
    laws, so the ratio is read at their two largest kinks. Kills _pattern_log_ratio mutmut_56, _62 and _69
    (a pair with one -inf kink taken: inf - inf) and mutmut_73 (max of no pair raises)."""
    a, b, threshold, b_t, b_q = [0.0, 1.3], [1.0, 0.7], 0.4, 1.0, 1e-310
    with mp.workdps(30):
        dev_a = mp_largest_deviation(a[:1], a[1:], threshold, b_t, b_q)
        dev_b = mp_largest_deviation(b[:1], b[1:], threshold, b_t, b_q)
        assert dev_a - dev_b - 4000 > sys.float_info.max        # the log-ratio of this output overflows
    assert svt.sparse_max_log_ratio(a, b, threshold, 1.0, 2, refresh=True, threshold_scale=b_t, query_scale=b_q) == math.inf


def test_a_sure_output_has_log_probability_at_most_zero():
    """Answers -20 and 10, threshold 0 without noise (scale 5e-324), query scale 1e-100: the output "bottom,
    top" is sure up to e^(-1e101), so its log-probability is 0 (to the floats), and no log-probability
    may exceed 0 (the quadrature puts this one 1.1e-13 above 0 before the clamp). Kills
    _pattern_log_probability mutmut_17 (the clamp at 1 instead of 0)."""
    got = svt.output_log_probabilities([-20.0, 10.0], 0.0, 1.0, threshold_scale=5e-324, query_scale=1e-100)
    assert got.max() <= 0.0
    assert got[1] == pytest.approx(0.0, abs=1e-12)


def test_an_impossible_pattern_at_a_subnormal_query_scale_has_log_probability_minus_inf():
    """Answers 0 and -10, threshold at -1e300 with scale 1e308, query scale 5e-324 (1/b_q overflows, so the
    piece between the answers is read by the log of its slope): "bottom, top" needs the answer 0 below the
    noisy threshold and -10 above it, 10/5e-324 = 2e324 nats away, so its log-probability is below the
    floats (-inf), while the two others are decided by the threshold noise alone: bottom^2 needs it above
    1e300 (probability e^(-1e-8)/2, to a relative 1e-307), "top" the rest. Kills _Law._step mutmut_11 (log(b - a) subtracted: inf
    steps, and nan)."""
    answers, threshold, b_t, b_q = [0.0, -10.0], -1e300, 1e308, 5e-324
    with mp.workdps(30):
        assert mp_largest_deviation(answers[:1], answers[1:], threshold, b_t, b_q) + 2000 < -sys.float_info.max
    got = svt.output_log_probabilities(answers, threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
    assert got[1] == -math.inf
    np.testing.assert_allclose(got[[0, 2]], [math.log1p(-math.exp(-1e-8) / 2), math.log(0.5) - 1e-8], rtol=0, atol=1e-12)


# =========================================================================== group A: the integrator
# --------------------------------------------------------------------------- one noise dwarfs the rest
@pytest.mark.parametrize("epsilon, kw", [
    (1e-308, dict(threshold_scale=6e-305)),        # 4/epsilon overflows: positions in units of 2^64
    (3e-308, dict(threshold_scale=1.0)),           # 4/epsilon = 1.3e308 still a float: unit 1
    (1.0, dict(threshold_scale=1e-30, query_scale=1e300)),
])
def test_laws_whose_query_noise_dwarfs_the_rest_are_fair_coins(epsilon, kw):
    """Query noise of scale 1e300 or more, answers 0 and 1, threshold noise at most 1: each noisy answer lands
    on either side of the noisy threshold with probability 1/2 up to 1e-300, so Pr[bottom^o top] = 2^-(o+1) and
    Pr[bottom^k] = 2^-k. The first case needs the given threshold scale 6e-305 read in units of 2^64 (6e-305 *
    2^-64 is still the least subnormal, times 2^-65 or 3^-64 it is 0); the second needs unit 1 where 4/epsilon
    is a float (unit 2 overflows it to inf); the third has a slope 1/b_t so far above 1/b_q that the factors'
    rate c = b_t/b_q underflows to 0. Kills _law_scales mutmut_30, _32 and _33, and _log_part mutmut_26, _27 and
    _28 (a factor with c = 0 taken as falling: division by zero)."""
    got = svt.output_log_probabilities([0.0, 1.0], 0.0 if epsilon < 1 else 0.5, epsilon, **kw)
    assert got.tolist() == pytest.approx([math.log(0.5), math.log(0.25), math.log(0.25)], rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------- vanishing query scale
def test_sparse_ratio_at_a_vanishing_query_scale_is_its_largest_deviation():
    """Sparse (c = 1) with query_scale 1e-302 beside threshold_scale 1: the log-probability of each output is the
    largest log of its integrand up to the log of a width (below 2000 in size, Laplace's method), so the largest
    log-ratio is 1e302 to 1e-9. The rounds' terms over b_q are then beyond 1e300, where _add sums in floating
    point. Kills _add mutmut_8 (sum(None))."""
    a, b, threshold, b_t, b_q = [0.0, 1.0], [1.0, 0.0], 0.0, 1.0, 1e-302
    outputs = [([], [0]), ([0], [1]), ([0, 1], [])]           # top at query 1, at query 2, no top
    with mp.workdps(30):
        want = float(max(abs(mp_largest_deviation([a[i] for i in lo], [a[i] for i in hi], threshold, b_t, b_q)
                             - mp_largest_deviation([b[i] for i in lo], [b[i] for i in hi], threshold, b_t, b_q))
                         for lo, hi in outputs))
    got = svt.sparse_max_log_ratio(a, b, threshold, 1.0, 1, threshold_scale=b_t, query_scale=b_q)
    assert abs(got - want) <= 1e-9 * abs(want) + 2000.0, (got, want)


# --------------------------------------------------------------------------- many equal answers
def mp_log_pattern_counts(below, above, threshold, b_t, b_q, upper=None, dps=30):
    key = ["pattern", sorted(map(list, below.items())), sorted(map(list, above.items())), threshold, b_t, b_q, upper, dps]
    return STORE.get(key, lambda: _mp_log_pattern_counts(below, above, threshold, b_t, b_q, upper, dps))


def _mp_log_pattern_counts(below, above, threshold, b_t, b_q, upper=None, dps=30):
    """log of the integral over t < upper of p(t) prod F((t - v)/b_q)^n over ``below`` and prod (1 - F((t - v)
    /b_q))^n over ``above`` ({answer: multiplicity}), p the Laplace(threshold, b_t) density and F the standard
    Laplace CDF, by mpmath with breakpoints at every kink and 1, 4, 16, 64 scales from it."""
    with mp.workdps(dps):
        b_t, b_q, T = mp.mpf(b_t), mp.mpf(b_q), mp.mpf(threshold)
        lo = [(mp.mpf(v), n) for v, n in below.items()]
        hi = [(mp.mpf(v), n) for v, n in above.items()]

        def log_f(t):
            val = -abs(t - T) / b_t - mp.log(2 * b_t)
            for v, n in lo:
                u = (t - v) / b_q
                val += n * (u - mp.log(2) if u < 0 else mp.log(1 - mp.exp(-u) / 2))
            for v, n in hi:
                u = (t - v) / b_q
                val += n * (-u - mp.log(2) if u > 0 else mp.log(1 - mp.exp(u) / 2))
            return val

        pts, top = mp_breakpoints({T, *(v for v, _ in lo), *(v for v, _ in hi)}, b_t, b_q, upper)
        peak = max(log_f(p) for p in pts)
        return float(peak + mp.log(mp.quad(lambda t: mp.exp(log_f(t) - peak), [-mp.inf, *pts, top])))


MANY_EQUAL = [  # counts of the answers but the last, the last, threshold, value, b_t, b_q, value_scale
    ({2.0: 300}, 2.0, 0.0, 5.0, 2.0, 4.0, None),
    ({2.0: 100}, 3.2, -1.0, 6.5, 1000.0, 1.0, None),
    ({2.0: 100}, -3.7, -4.9, 0.0, 0.05, 1.0, 1.0),
    ({-2.0: 100}, 4.1, 0.0, -0.7, 0.05, 1.0, 1.0),
    ({10.0: 300, -2.76: 1}, 0.0, 10.0, 10.258, 1000.0, 1.0, None),
]


@pytest.mark.parametrize("counts, last, threshold, value, b_t, b_q, value_scale", MANY_EQUAL)
def test_density_with_hundreds_of_equal_answers_matches_mpmath(counts, last, threshold, value, b_t, b_q,
                                                               value_scale):
    """NumericSparse's density with 100 or 300 equal answers reported below (a factor of that multiplicity):
    its log falls by more than 55 within one scaled unit, the only case where _log_part's cut() halves its
    step, and its peak is sharp enough that a misplaced peak overflows exp. Against mpmath. Kills _log_part
    mutmut_82, _85 (the slope dh of the peak search), _187, _191, _197, _199 and _200 (cut's halving loop)."""
    answers = [v for v, n in counts.items() for _ in range(n)] + [last]
    got = svt.numeric_log_density(answers, threshold, value, threshold_scale=b_t, query_scale=b_q,
                                  value_scale=value_scale)
    if value_scale is None:          # the released value is the compared one: the integral stops at it
        log_noise = -abs(value - last) / b_q - math.log(2 * b_q)
        want = log_noise + mp_log_pattern_counts(counts, {}, threshold, b_t, b_q, upper=value)
    else:
        log_noise = -abs(value - last) / value_scale - math.log(2 * value_scale)
        want = log_noise + mp_log_pattern_counts(counts, {last: 1}, threshold, b_t, b_q)
    assert got == pytest.approx(want, rel=1e-10, abs=1e-10)


# --------------------------------------------------------------------------- near-equal kinks
def test_law_with_answers_1e_8_apart_matches_mpmath():
    """Answers in two pairs 5e-8 apart (query scale 0.3): the pieces between them are slivers under 1e-6 in the
    scaled variable, integrated by the midpoint rule. Against mpmath (20 digits) at 1e-11 (the original agrees to 2e-16).
    Kills _log_part mutmut_338 (the sliver read at a + (b + a)/2, 1.7e-9 off on the last output)."""
    answers, threshold, b_t, b_q = [3.0 - 3.4e-8, 3.0 + 5.1e-8, -4.9e-8, -1.9e-8], 0.0, 5.0, 0.3
    got = svt.output_log_probabilities(answers, threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
    want = [mp_log_pattern_counts({v: 1 for v in answers[:o]}, {answers[o]: 1} if o < len(answers) else {},
                                  threshold, b_t, b_q, dps=20) for o in range(len(answers) + 1)]
    assert got.tolist() == pytest.approx(want, rel=1e-11, abs=1e-12)


# =========================================================================== group C: calibration, the unit 2**-64, caps, the search
CAP = sys.float_info.max / 64.0           # the samplers' largest noise scale


def mp_per_query_root(eps, k, delta_prime):
    """The root e0 of e0 (s + k expm1(e0)) = eps, s = sqrt(2k log(1/delta')), by bisection in mpmath on
    [0, max(1, log1p(eps/k)) + 1], where the left side goes from 0 to above eps."""
    eps = mp.mpf(eps)
    s = mp.sqrt(2 * k * -mp.log(mp.mpf(delta_prime)))
    lo, hi = mp.mpf(0), max(mp.mpf(1), mp.log1p(eps / k)) + 1
    for _ in range(250):
        mid = (lo + hi) / 2
        if mid * (s + k * mp.expm1(mid)) < eps:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@pytest.mark.parametrize("eps, k, delta_prime", [
    (2.0, 1, 0.9),                                      # s = 0.46 < 1: epsilon * s is below the root
    (sys.float_info.max, 1, 0.5),                       # log1p(eps/k) (1 + 1e-12) passes 709.78
    (sys.float_info.max, 1, 5e-324),
    (math.sqrt(2e9 * -math.log(1 - 2**-53)) + 1e9 * math.expm1(1.0), 10**9, 1 - 2**-53),  # root 1e-14 below log1p(eps/k)
])
def test_per_query_epsilon_matches_mpmath_where_its_bracket_is_tight(eps, k, delta_prime):
    """advanced_per_query_epsilon above epsilon = 1, where the root is bracketed by min(eps/s,
    max(1, log1p(eps/k)) (1 + 1e-12), 709): to a few machine epsilons (its docstring), against a bisection
    in mpmath at 50 digits, at a delta' near 1 (s < 1), at the largest epsilon (e^hi must stay a float) and
    where the root is within 1e-14 of log1p(eps/k) (k = 1e9, delta' = 1 - 2**-53). Kills _per_query_epsilon
    mutmut_67 (eps * s for eps / s), _66 (the 709 cap dropped: OverflowError), _79 (cap 710), _68 and _76
    (the bracket end shrunk by 1e-12: the answer is off by 1e-12)."""
    with mp.workdps(50):
        want = mp_per_query_root(eps, k, delta_prime)
    assert svt.advanced_per_query_epsilon(eps, k, delta_prime) == pytest.approx(float(want), rel=1e-14, abs=0)


@pytest.mark.parametrize("k, eps, beta, c", [(1, 1e-300, 1e-3, 1), (1, 4e-301, 1e-6, 2)])
def test_numeric_sparse_alpha_at_an_epsilon_below_1e_300(k, eps, beta, c):
    """For delta = 0 NumericSparse's alpha is the comparisons' 9c (log k + log(4c/beta))/eps (the values'
    9c log(2c/beta)/eps is smaller); below eps2 = 1e-300 the values' term is formed over epsilon with
    (root + 1)/2 = 4.5, and with k = 1 and a small beta a wrong root there makes it the larger. Closed form
    in mpmath. Kills numeric_sparse_alpha mutmut_105 (root 9 for 8 when delta = 0)."""
    with mp.workdps(30):
        want = 9 * c * (mp.log(k) + mp.log(4 * c / mp.mpf(beta))) / mp.mpf(eps)
    assert svt.numeric_sparse_alpha(k, eps, beta, c) == pytest.approx(float(want), rel=1e-13, abs=0)


def test_log_ratio_with_a_subnormal_query_scale_is_the_threshold_noise_ratio():
    """One answer below the threshold, moved from -0.5 to -0.3, threshold scale 1, query scale 1e-320 (the
    query noise is nothing): Pr[top] = E[F_T(f + nu)] = e^(f/b_t)/2 / (1 - (b_q/b_t)^2), so the log-ratio of
    the top is (f - f')/b_t = 0.2 exactly, and that of the bottom log((1 - e^-0.5/2)/(1 - e^-0.3/2)) = 0.10.
    _ratio_value gets a = -0.2 and b = 0 here, and must not form a (b_q/b_t)/b_q, which loses digits where
    b_q/b_t is subnormal. Kills _ratio_value mutmut_4 and _5 (0.2001)."""
    with mp.workdps(30):
        top = mp.mpf(0.2)
        bottom = abs(mp.log((1 - mp.exp(mp.mpf(-0.5)) / 2) / (1 - mp.exp(mp.mpf(-0.3)) / 2)))
        want = max(top, bottom)
    got = svt.max_log_ratio([-0.5], [-0.3], 0.0, 1.0, threshold_scale=1.0, query_scale=1e-320)
    assert got == pytest.approx(float(want), rel=1e-12, abs=0)


def mp_difference_sf(x, b1, b2):
    """Pr[eta - nu > x] for independent Laplace(0, b1) and Laplace(0, b2), b1 != b2, x >= 0:
    (b1^2 e^(-x/b1) - b2^2 e^(-x/b2)) / (2 (b1^2 - b2^2))."""
    return (b1**2 * mp.exp(-x / b1) - b2**2 * mp.exp(-x / b2)) / (2 * (b1**2 - b2**2))


def test_laws_below_epsilon_2e_308_are_the_closed_form_of_one_answer():
    """epsilon = 2e-308: 4/epsilon overflows, so the laws read positions in units of 2**64. One answer
    1e308 = b_t above the threshold: Pr[top] = Pr[eta - nu <= f - T] for the threshold noise eta ~ Lap(2/eps)
    and the query noise nu ~ Lap(4/eps), a closed form (mp_difference_sf); and the failure probability of
    accuracy with alpha = 1e308 and k = 1 is Pr[eta - nu > alpha]. Kills output_log_probabilities mutmut_23
    and _24, sparse_output_log_probabilities mutmut_54 and _55 (positions divided by the unit instead of
    multiplied) and accuracy_failure_probability mutmut_48 (alpha divided by the unit)."""
    eps, f, T = 2e-308, 5e307, -5e307
    with mp.workdps(30):
        b_t, b_q = 2 / mp.mpf(eps), 4 / mp.mpf(eps)
        miss = mp_difference_sf(mp.mpf(f) - mp.mpf(T), b_t, b_q)
        top, bottom = float(mp.log(1 - miss)), float(mp.log(miss))
        fail = float(mp_difference_sf(mp.mpf(1e308), b_t, b_q))
    assert svt.output_log_probabilities([f], T, eps) == pytest.approx([top, bottom], rel=1e-10, abs=0)
    outs, lp = svt.sparse_output_log_probabilities([f], T, eps, 1)
    assert outs.tolist() == [[1], [0]]                  # no top, then the top on the first query
    assert lp == pytest.approx([bottom, top], rel=1e-10, abs=0)
    assert svt.accuracy_failure_probability(1, eps, 1e308) == pytest.approx(fail, rel=1e-10, abs=0)


@pytest.mark.parametrize("threshold", [-1e308, 1e289])
def test_log_ratios_below_epsilon_2e_308_match_mpmath(threshold):
    """epsilon = 1e-308 with query_scale = 1 given: the threshold scale 2/epsilon overflows, so positions are
    read in units of 2**64. Answers (1, 0) and (0, 1): the threshold noise (scale 2e308) is flat over the
    answers, so the largest log-ratio is the bottom-top output's, log(I(1)/I(-1)) with
    I(d) = int F(t - d)(1 - F(t)) dt, F the Laplace(0, 1) CDF (mpmath); the other outputs' are of order 1e-308.
    The threshold is far from the answers on either side. Kills max_log_ratio mutmut_23 and
    sparse_max_log_ratio mutmut_52, _53 and _54 (a position divided by the unit instead of multiplied)."""
    with mp.workdps(30):
        def F(u):
            return mp.exp(u) / 2 if u < 0 else 1 - mp.exp(-u) / 2

        def I(d):
            return mp.quad(lambda t: F(t - d) * (1 - F(t)), [-mp.inf, min(0, d), max(0, d), mp.inf])
        want = float(abs(mp.log(I(1) / I(-1))))
    a, b = [1.0, 0.0], [0.0, 1.0]
    assert svt.max_log_ratio(a, b, threshold, 1e-308, query_scale=1.0) == pytest.approx(want, rel=1e-12, abs=0)
    assert svt.sparse_max_log_ratio(a, b, threshold, 1e-308, 1, query_scale=1.0) == pytest.approx(want, rel=1e-12, abs=0)


def _epsilon_at_the_cap(numerator):
    """A float epsilon with numerator/epsilon == CAP exactly, among the neighbours of numerator/CAP."""
    e = numerator / CAP
    for _ in range(4):
        e = np.nextafter(e, 0.0)
    for _ in range(9):
        if numerator / e == CAP:
            return float(e)
        e = np.nextafter(e, math.inf)
    raise AssertionError(f"no epsilon puts {numerator}/epsilon at the cap")


def test_derived_noise_scales_at_the_cap_sample():
    """The samplers take noise scales up to the cap (float max / 64) inclusive: Sparse with c = 3 at the
    epsilon whose query scale 4c/epsilon = 12/epsilon is the cap exactly, and NumericSparse with c = 3 at the
    one whose release scale 9c/epsilon = 27/epsilon is (both exist as floats). Kills _sampling_scales
    mutmut_14 ('>=' for '>': the cap refused)."""
    eps = _epsilon_at_the_cap(12.0)
    tops = svt.sample_sparse([0.0, 1.0, 5.0], 0.0, eps, 3, 4, rng=np.random.default_rng(0))
    assert tops.shape == (4, 3) and np.all((0 <= tops) & (tops <= 3))
    out = svt.numeric_sparse([0.0, 1.0, 5.0], 0.0, _epsilon_at_the_cap(27.0), 3, rng=np.random.default_rng(0))
    assert out.shape == (3,) and not np.any(np.isinf(out))


def test_numeric_sparse_cap_is_the_release_scale_and_is_named():
    """With delta > 0 NumericSparse's release noise has scale sqrt(32 c log(2/delta)) (sqrt(512) + 1)/(2 eps)
    (eps2 = 2 eps/(sqrt(512) + 1)): an epsilon 0.02 % above the least one that keeps it at the cap samples
    (sqrt(513) in place of sqrt(512) moves the least 0.09 % up), and an epsilon below is refused with a
    message naming that scale. Kills numeric_sparse mutmut_57 (sqrt(513)), _67 and _68 (the name in the
    message altered)."""
    c, delta = 2, 1e-6
    least = math.sqrt(32 * c * math.log(2 / delta)) * (math.sqrt(512) + 1) / 2 / CAP
    out = svt.numeric_sparse([0.0, 1.0], 0.0, least * 1.0002, c, rng=np.random.default_rng(2), delta=delta)
    assert out.shape == (2,)
    with pytest.raises(ValueError, match=r"the release noise scale sigma\(epsilon_2\) = \d"):
        svt.numeric_sparse([0.0, 1.0], 0.0, least * 0.999, c, rng=np.random.default_rng(2), delta=delta)


def test_search_worst_case_passes_only_options_nelder_mead_knows():
    """scipy warns (OptimizeWarning) on a solver option it does not know and then uses its default (1e-4);
    the search sets xatol and fatol and runs warning-free. Kills search_worst_case mutmut_121, _122, _124
    and _125 (an option's name altered)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r, q, qp = svt.search_worst_case(1, 1.0, rng=np.random.default_rng(0), n_starts=1, maxfev=10)
    assert 0 <= r <= 1.0 + 1e-9 and np.all(np.abs(q - qp) <= 1)


def test_search_is_the_documented_nelder_mead_on_a_flat_objective():
    """The search rebuilt from its docstring (starts uniform in (-2, 2)^(2k), answers spread * tanh(y), changes
    tanh(z), scipy's Nelder-Mead with xatol 1e-6, fatol 1e-9 and the budget) on scales 1e12, where every
    log-ratio is below 1e-11: the values in a simplex agree to 1e-9 from the start, so xatol alone keeps
    Nelder-Mead going (here to the end of the budget). Kills search_worst_case mutmut_123 (xatol 1.000001: it
    stops at its first simplex, after 3 evaluations, at a smaller log-ratio)."""
    from scipy import optimize
    k, eps, maxfev = 1, 1.0, 200
    scales = dict(threshold_scale=1e12, query_scale=1e12)
    spread = 8 / eps
    x0 = np.random.default_rng(0).uniform(-2.0, 2.0, 2 * k)

    def loss(x):
        q = spread * np.tanh(x[:k])
        return -svt.max_log_ratio(q, q + np.tanh(x[k:]), 0.0, eps, **scales)

    best = optimize.minimize(loss, x0, method="Nelder-Mead", options={"xatol": 1e-6, "fatol": 1e-9, "maxfev": maxfev})
    r, a, b = svt.search_worst_case(k, eps, rng=np.random.default_rng(0), n_starts=1, maxfev=maxfev, **scales)
    assert r == -best.fun
    np.testing.assert_array_equal(a, spread * np.tanh(best.x[:k]))


# =========================================================================== group A: _log_part called directly
# _log_part(x0s, cs, ns, drift, log_kappa, end, log_end) is the log of
#     int_0^end exp(drift * kappa * z + sum_j n_j [psi(x0_j + c_j z) - psi(x0_j)]) dz,   psi(x) = log(2 - e^-x),
# with x0_j >= 0, |c_j| <= 1, n_j >= 1, kappa = exp(log_kappa) <= 1 (drift 0 and log_kappa -inf for a flat piece).
# As in _Law._part, every factor stays on its bulk side over the part (x0_j + c_j z >= 0 on [0, end]) and all |c_j|
# are equal. The reference is mpmath quadrature (30 digits) of that integral written from the docstring.

def mp_log_part(x0s, cs, ns, drift, kappa, end, dps=30):
    key = ["part", list(x0s), list(cs), list(ns), drift, kappa, end, dps]
    return STORE.get(key, lambda: _mp_log_part(x0s, cs, ns, drift, kappa, end, dps))


def _mp_log_part(x0s, cs, ns, drift, kappa, end, dps=30):
    """log of int_0^end exp(drift kappa z + sum n (psi(x0 + c z) - psi(x0))) dz with psi(x) = log(2 - e^-x),
    by mpmath (tanh-sinh) between breakpoints end*10^-k and end*(1 - 10^-k), k = 1..15, and tenths of end, so
    that a peak at either end as narrow as 1e-15 end is resolved (every x0 + c z stays >= 0: smooth)."""
    with mp.workdps(dps):
        def psi(x):
            return mp.log(2 - mp.exp(-x))
        terms = [(mp.mpf(x0), mp.mpf(c), n) for x0, c, n in zip(x0s, cs, ns)]

        def f(z):
            return mp.exp(drift * mp.mpf(kappa) * z + sum(n * (psi(x0 + c * z) - psi(x0)) for x0, c, n in terms))
        e = mp.mpf(end)
        pts = sorted({mp.mpf(0), e, *(e * mp.mpf(10) ** -k for k in range(1, 16)),
                      *(e - e * mp.mpf(10) ** -k for k in range(1, 16)), *(e * j / 10 for j in range(1, 10))})
        return float(mp.log(mp.quad(f, pts)))


# A part shorter than 1 (room < 1 in cut()) beside a falling factor of multiplicity in the hundreds whose
# kink lies beyond the part: h falls by less than 55 over the part but by more than 55 one unit away.
SHORT_STEEP_PARTS = [
    # x0s, cs, ns, drift, kappa, end
    ([0.5], [-1.0], [300], 0, 0.0, 0.1),                          # flat piece, kink at 0.5
    ([0.5, 3.0], [-1.0, 1.0], [300, 2], 1, 1.0, 0.1),             # rising exponential and a rising factor
    ([0.336], [-1.0], [275], 0, 0.0, 2.3e-7),                     # a sliver of a piece (found by group A)
    ([0.8, 0.8], [-1.0, -1.0], [120, 150], -1, 0.5, 0.15),        # two falling factors, falling exponential
]


@pytest.mark.parametrize("x0s, cs, ns, drift, kappa, end", SHORT_STEEP_PARTS)
def test_short_part_beside_a_steep_factor_matches_mpmath(x0s, cs, ns, drift, kappa, end):
    """The whole part lies within less than one unit, so cut() must not step past it. Kills _log_part
    mutmut_182 (step 1 even when room < 1: the halving from z = 1 stops beyond the part's end and quad
    integrates over [0, ~0.5] instead of [0, end]; -4.8828365 for -4.8828372 on the first case, -5.04 for
    -15.29 on the third). Reference: mpmath quadrature of the docstring's integral."""
    log_kappa = math.log(kappa) if kappa > 0 else -math.inf
    got = svt._log_part(x0s, cs, ns, drift, log_kappa, end, math.log(end))
    want = mp_log_part(x0s, cs, ns, drift, kappa, end)
    assert got == pytest.approx(want, rel=1e-10, abs=1e-12)


# A part whose integrand is a spike at one end: a factor of multiplicity in the millions with its argument
# near 1 there (slope n psi'(x) of about 4e5 or more), so exp(h) has fallen below the smallest float at every
# node of a 21-point Gauss-Kronrod rule on an interval of length 1 (or the whole part, if shorter).
SPIKE_PARTS = [
    # x0s, cs, ns, drift, kappa, end
    ([1.0], [-1.0], [2_000_000], 0, 0.0, 1.0),                   # flat piece, spike at z = 0 (kink at end)
    ([0.0], [1.0], [2_000_000], 1, 1.0, 1.0),                    # rising factor from its kink: spike at end
    ([0.0, 1.0], [1.0, -1.0], [3, 2_000_000], -1, 0.5, 1.0),     # spike at 0 beside a rising factor
    ([0.7], [-1.0], [1_500_000], 1, 0.25, 0.7),                  # a part shorter than 1 (room < 1)
]


@pytest.mark.parametrize("x0s, cs, ns, drift, kappa, end", SPIKE_PARTS)
def test_part_with_a_spike_at_one_end_matches_mpmath(x0s, cs, ns, drift, kappa, end):
    """The integrand falls from its largest value at one end of the part by about n psi'(x) per unit, n in the
    millions, so cut() must halve its step down to the spike's width (about 1e-6) before quad is called; on the
    whole first unit quad sees zeros only and returns 0. Kills _log_part mutmut_188 (the first probe on the
    side opposite the cut: outside the part, h there is above the floor, so the step stays at min(1, room)) and
    mutmut_198 (the halving probes the opposite side, above the floor, and stops at once): both give -inf for
    -13.0188 (first case). Reference: mpmath quadrature of the docstring's integral with breakpoints near both
    ends. The multiplicities are far beyond what the book's examples use: below about 4e5 / (min(1, end) psi'(x))
    quad still finds the spike and the mutants agree with the original to 1e-11."""
    log_kappa = math.log(kappa) if kappa > 0 else -math.inf
    got = svt._log_part(x0s, cs, ns, drift, log_kappa, end, math.log(end))
    want = mp_log_part(x0s, cs, ns, drift, kappa, end)
    assert got == pytest.approx(want, rel=1e-10, abs=1e-12)


# =========================================================================== precision: bugs the search found
def test_sparse_alpha_near_delta_one_matches_its_formula():
    """delta = 1 - 1e-12 (valid: [0, 1)): log(1/delta) = 1e-12 was read as the log of the rounded 1/delta,
    2.2e-16-absolute off, which moved sparse_alpha by 5.5e-5 relative. Against 8 (log k + log(2c/beta))
    sqrt(8 c log(1/delta)) / epsilon in mpmath, with delta the double 1 - 1e-12 exactly."""
    k, epsilon, beta, c, delta = 10, 1.0, 0.1, 2, 1 - 1e-12
    with mp.workdps(40):
        d = mp.mpf(delta)
        want = 8 * (mp.log(k) + mp.log(2 * c / mp.mpf(beta))) * mp.sqrt(8 * c * mp.log(1 / d)) / epsilon
    assert svt.sparse_alpha(k, epsilon, beta, c, delta) == pytest.approx(float(want), rel=1e-12, abs=0)


def test_laplace_alpha_near_beta_one_matches_its_formula():
    """One query and beta = 1 - 1e-12: log(k/beta) = 1e-12 was read as the log of the rounded quotient,
    1.1e-4 relative off. The basic bound is log(k/beta)/epsilon (k = 1), in mpmath."""
    beta = 1 - 1e-12
    with mp.workdps(40):
        want = -mp.log(mp.mpf(beta)) / mp.mpf(0.5)
    assert svt.laplace_alpha(1, 0.5, beta) == pytest.approx(float(want), rel=1e-12, abs=0)


@pytest.mark.parametrize("answer, threshold", [(1e308, -1e308), (-1e308, 1e308), (1.5e308, -1.7e308)])
def test_log_probabilities_of_positions_more_than_the_largest_float_apart(answer, threshold):
    """An answer and a threshold of opposite signs near the largest float: their distance overflows,
    but the log-probability of the unlikely output, about -|answer - threshold|/b_q (b_q = 4/epsilon:
    the threshold's and the query's Laplace tails, Pr[D >= x] ~ b_q^2 e^(-x/b_q) / (2 (b_q^2 - b_t^2))),
    is a float: -5e307 at 1e308 and -1e308, not -inf as the log-probabilities were (the docstring promises -inf
    only below the most negative float)."""
    got = svt.output_log_probabilities([answer], threshold, 1.0)
    with mp.workdps(30):
        x = abs(mp.mpf(answer) - mp.mpf(threshold))
        want = float(-x / 4 + mp.log(mp.mpf(16) / (2 * (16 - 4))))
    unlikely = 1 if answer > threshold else 0          # the answer reported on the far side of the threshold
    assert got[unlikely] == pytest.approx(want, rel=1e-12, abs=0)
    assert got[1 - unlikely] == 0.0


@pytest.mark.parametrize("b_t, b_q", [(2.0, 4.0), (1.5, 1.0)])
def test_max_log_ratio_is_accurate_in_absolute_terms_as_documented(b_t, b_q):
    """One answer moved by 0.8 s across a threshold, s from 1e-3 down to 1e-14 of the scales: the ratio
    (about 0.3 s) is computed from log-probabilities near log(1/2), so it is accurate to their rounding,
    about 1e-15 absolute (the largest error here is 2.3e-16), not to its own relative digits (1e-4 off at s = 1e-12), as
    the docstring says. Reference: the closed form of the two outputs' probabilities (mp_log_top)."""
    for s in (1e-3, 1e-6, 1e-9, 1e-12, 1e-14):
        a, b, threshold = 0.3 * s, -0.5 * s, 0.1 * s
        top1, bottom1 = mp_log_top(a, threshold, b_t, b_q)
        top2, bottom2 = mp_log_top(b, threshold, b_t, b_q)
        want = float(max(abs(top1 - top2), abs(bottom1 - bottom2)))
        got = svt.max_log_ratio([a], [b], threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
        assert abs(got - want) <= 1e-15, (s, got, want)


@pytest.mark.parametrize("unit", [5e-324, 1e-315, 1e-300])
def test_laws_at_subnormal_scales_are_the_laws_at_unit_scale(unit):
    """Answers 2 and -3 units from the threshold, both noise scales one unit: multiplying positions and
    scales by one number leaves the law unchanged, so every output's log-probability is the one at unit
    scale (mpmath). At unit = 5e-324 (one subnormal step) 1/b overflows and the steps between kinks are read
    by logs; halving the positions there first (as an overflow guard did for one commit) rounds -1.5 units to
    -2 and was 1.7e-3 relative off; at 1e-315 the same cost 1.3e-11."""
    got = svt.output_log_probabilities([2 * unit, -3 * unit], 0.0, 1.0, threshold_scale=unit, query_scale=unit)
    want = [mp_log_pattern_counts({}, {2.0: 1}, 0.0, 1.0, 1.0), mp_log_pattern_counts({2.0: 1}, {-3.0: 1}, 0.0, 1.0, 1.0),
            mp_log_pattern_counts({2.0: 1, -3.0: 1}, {}, 0.0, 1.0, 1.0)]
    assert got.tolist() == pytest.approx(want, rel=1e-11, abs=0)


@pytest.mark.parametrize("answer, threshold, scale", [(1e308, -1e308, 1e308), (1.5e308, -1.5e308, 1e308),
                                                      (-1.2e308, 1.2e308, 6e307)])
def test_laws_of_kinks_more_than_the_largest_float_apart_at_huge_scales(answer, threshold, scale):
    """The answer and the threshold more than the largest float apart, with scales of the same order, so that
    the step of the log-density between them is of order 1, not negligible: the law is the one at unit scale
    (positions and scales divided by ``scale``), in mpmath. The step is formed from halves of the positions
    there (their distance overflows), and its factor 2 matters."""
    got = svt.output_log_probabilities([answer], threshold, 1.0, threshold_scale=scale, query_scale=scale)
    a, t = answer / scale, threshold / scale
    want = [mp_log_pattern_counts({}, {a: 1}, t, 1.0, 1.0), mp_log_pattern_counts({a: 1}, {}, t, 1.0, 1.0)]
    assert got.tolist() == pytest.approx(want, rel=1e-11, abs=0)


@pytest.mark.parametrize("answer, threshold, scales", [(1e308, -1e308, (1e-310, 1.0)), (-1e308, 1e308, (1e-310, 1.0)),
                                                       (1e308, -1e308, (1e-310, 1e-310))])
def test_kinks_more_than_the_largest_float_apart_at_a_vanishing_scale(answer, threshold, scales):
    """A threshold scale of 1e-310 (1/b overflows: the infinite-rate branch of ``_Law._step``) with the answer
    and the threshold 2e308 apart (their distance overflows, so the step is formed from halves of the positions).
    The answer then lies about 2e308 query scales from the threshold, and Pr[answer's side flips] <= e^(-1e308)
    is 0 in doubles: the log-probabilities are exactly 0 for the side the answer is on and -inf for the other.
    Kills ``_Law._step`` mutmut_28 (log(None): TypeError) and _29 (log(b/2 + a/2) = log 0: ValueError)."""
    got = svt.output_log_probabilities([answer], threshold, 1.0, threshold_scale=scales[0], query_scale=scales[1])
    top = answer > threshold                     # index 0: the first answer is a top; index 1: no top
    assert got.tolist() == ([0.0, -math.inf] if top else [-math.inf, 0.0])
