"""Tests for the gaps the mutation run of dpnotes.svt's new integrator found (the exact laws).

The survivors of ``_log_part``, ``_Law``, ``_log_value_gap``, ``_ratio_value`` and the alphas showed that the
laws were checked only at scales where the integrand's peak sits on a kink. Here every law is compared with
mpmath quadrature at 30 digits, written from the definition (own Laplace CDF, own breakpoints), on
configurations that reach the other branches: a query scale 1000 times below the threshold's (narrow
factors), the reverse, repeated answers above the threshold, a long piece, neighbours whose answers cross
the threshold, and the alphas at the magnitudes where their guarded branches are taken (closed forms in
mpmath). Each test names the mutants it kills (``mutmut show dpnotes.svt.<name>``).

The mpmath quadratures take about 40 CPU seconds in all, so ``make test`` reads them from
``svt_mp_references.json`` (beside this file) and ``make verify`` computes every one again and checks
it against the stored value, as the accountant's truths are kept (``tests/mp_references.py``).
"""

import functools
import itertools
import math
import sys

import mpmath as mp
import numpy as np
import pytest

from dpnotes import svt
from mp_references import References
from profiles import THOROUGH


STORE = References("svt")


def mp_log_pattern(below, above, threshold, b_t, b_q, upper=None, dps=20):
    key = [list(map(float, below)), list(map(float, above)), float(threshold), float(b_t), float(b_q),
           None if upper is None else float(upper), dps]
    return STORE.get(key, lambda: _mp_log_pattern(tuple(below), tuple(above), threshold, b_t, b_q, upper, dps))


@functools.lru_cache(maxsize=None)
def _mp_log_pattern(below, above, threshold, b_t, b_q, upper, dps):
    """log of the integral over t < upper of p(t) prod_below F(t - f) prod_above (1 - F(t - f)), p the
    Laplace(threshold, b_t) density and F the Laplace(0, b_q) CDF, by mpmath; breakpoints at every kink and
    at 1, 4, 16 and 64 scales from it, so that narrow features are not stepped over."""
    with mp.workdps(dps):
        b_t, b_q, T = mp.mpf(b_t), mp.mpf(b_q), mp.mpf(threshold)

        def cdf(u):
            return mp.exp(u / b_q) / 2 if u < 0 else 1 - mp.exp(-u / b_q) / 2

        def sf(u):              # 1 - F(u) written out: no cancellation where it is e^-1500
            return 1 - mp.exp(u / b_q) / 2 if u < 0 else mp.exp(-u / b_q) / 2

        def f(t):
            val = mp.exp(-abs(t - T) / b_t) / (2 * b_t)
            for v in below:
                val *= cdf(t - v)
            for v in above:
                val *= sf(t - v)
            return val

        pts, top = mp_breakpoints({mp.mpf(x) for x in [threshold, *below, *above]}, b_t, b_q, upper)
        return float(mp.log(mp.quad(f, [-mp.inf, *pts, top], maxdegree=7)))


def mp_breakpoints(kinks, b_t, b_q, upper):
    """Quadrature breakpoints for a pattern's integrand: every kink and 1, 4, 16 and 64 scales from it, below
    ``upper`` (None: no limit); returns them sorted, and the upper end of the integral."""
    pts = set(kinks)
    for k in kinks:
        for b in (b_t, b_q):
            for m in (1, 4, 16, 64):
                pts.update((k - m * b, k + m * b))
    top = mp.inf if upper is None else mp.mpf(upper)
    return sorted(p for p in pts if p < top), top


def mp_output_logs(answers, threshold, b_t, b_q):
    return [mp_log_pattern(answers[:o], answers[o:o + 1], threshold, b_t, b_q) for o in range(len(answers) + 1)]


C_SPARSE = 2


def mp_sparse_output_log(answers, threshold, b_t, b_q, tops, refresh, dps=30, c=C_SPARSE):
    """log Pr of the Sparse output with these top positions (c = len(tops) or the stream ended first)."""
    k = len(answers)
    asked = tops[-1] + 1 if len(tops) == c else k
    if not refresh:
        below = [answers[i] for i in range(asked) if i not in tops]
        return mp_log_pattern(below, [answers[i] for i in tops], threshold, b_t, b_q, dps=dps)
    total, first = 0.0, 0
    for h in tops:
        total += mp_log_pattern(answers[first:h], [answers[h]], threshold, b_t, b_q, dps=dps)
        first = h + 1
    if first < asked:
        total += mp_log_pattern(answers[first:asked], [], threshold, b_t, b_q, dps=dps)
    return total


def mp_sparse_max_log_ratio(a, b, threshold, b_t, b_q, refresh, dps=30, c=C_SPARSE):
    k = len(a)
    outs = [list(t) for j in range(c + 1) for t in itertools.combinations(range(k), j)]
    return max(abs(mp_sparse_output_log(a, threshold, b_t, b_q, t, refresh, dps, c)
                   - mp_sparse_output_log(b, threshold, b_t, b_q, t, refresh, dps, c)) for t in outs)


@pytest.mark.parametrize("b_t, b_q", [(1.0, 1e-3), (1e3, 1.0), (3.0, 0.05)])
def test_laws_with_scales_far_apart_match_mpmath(b_t, b_q):
    """Factors 1000 times narrower than the threshold's density (and the reverse): the integrand of a piece
    then has its peak inside a factor's window and an exponential between windows. Kills _log_part mutmut_29
    (falling factors' windows), _88 and _95 (the slope dh of the peak search), _268 (the exponential read at an
    inner point), _283 (a break instead of continue) and _Law.log_mass mutmut_70 (a long piece's left half
    integrated with direction 2)."""
    answers, threshold = [0.5, -1.0, 2.0, 0.0], 0.3
    ours = svt.output_log_probabilities(answers, threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
    want = mp_output_logs(answers, threshold, b_t, b_q)
    assert ours.tolist() == pytest.approx(want, rel=1e-10, abs=1e-10)


def test_law_of_repeated_answers_above_the_threshold_matches_mpmath():
    """Twelve equal answers far above the threshold, reported below (a factor of multiplicity 12 falling
    towards its kink), and a long piece between answers 5000 apart. Kills _log_part mutmut_29 and
    _Law.log_mass mutmut_70."""
    for answers, threshold, b_t, b_q in [([10.0] * 12 + [12.0], 0.0, 1.0, 0.3),
                                         ([0.0, 5000.0, 5000.0, 5000.0], 100.0, 10.0, 1.0)]:
        ours = svt.output_log_probabilities(answers, threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
        want = [mp_log_pattern(answers[:o], answers[o:o + 1], threshold, b_t, b_q) for o in (0, len(answers) - 1,
                                                                                             len(answers))]
        assert [ours[0], ours[-2], ours[-1]] == pytest.approx(want, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("value", [-3.0, 0.0, 2.0])
def test_reused_value_density_matches_mpmath(value):
    """The flawed NumericSparse's density: the integral stops at the released value (an upper limit below,
    at, and above some kinks). Kills _Law.__init__ mutmut_33 (the upper limit dropped from the kinks) and
    _Law.log_mass mutmut_24 (the right ray added although the integral stops at the upper limit)."""
    answers, threshold, b_t, b_q = [0.0, 1.0, -1.0, 0.5], 0.3, 2.0, 4.0
    ours = svt.numeric_log_density(answers, threshold, value, threshold_scale=b_t, query_scale=b_q)
    want = (-abs(value - answers[-1]) / b_q - math.log(2 * b_q)
            + mp_log_pattern(answers[:-1], [], threshold, b_t, b_q, upper=value))
    assert ours == pytest.approx(want, rel=1e-10, abs=1e-10)


RATIO_CASES = [  # answers on D, their changes to D', threshold, b_t, b_q
    ([0.0, 1.0, 2.0], [1.0, -1.0, 0.5], 0.5, 2.0, 4.0),
    ([0.0, 1.0, 2.0], [1.0, -1.0, 0.5], -30.0, 2.0, 4.0),
    ([0.0, 1.0, 2.0], [1.0, -1.0, 0.5], 0.5, 1e-3, 1.0),
    ([0.0, 1.0, 2.0], [1.0, -1.0, 0.5], 0.5, 1.0, 1e-1),
    ([0.0] * 4, [1.0, 1.0, 1.0, -1.0], 0.0, 2.0, 4.0),
] + ([  # make verify: about 2 s each (the Sparse patterns' mpmath enumeration)
    ([5.0] * 4, [-1.0, -1.0, 1.0, -1.0], 0.0, 2.0, 4.0),
    ([-1.0, 0.3, 0.6], [0.7, -0.9, 0.2], 0.0, 2.0, 2.0),
] if THOROUGH else [])


@pytest.mark.parametrize("answers, change, threshold, b_t, b_q", RATIO_CASES)
def test_log_ratios_match_mpmath(answers, change, threshold, b_t, b_q):
    """max_log_ratio and sparse_max_log_ratio (both variants) against differences of mpmath log-probabilities:
    neighbours that cross the threshold and each other, equal answers, equal scales. Kills _log_value_gap
    mutmut_19, _24, _25, _49, _57, _59 and _70 (the gap's cases), _ratio_value mutmut_8, _10 and _17 to _21,
    _sparse_log_ratio mutmut_18 and _sparse_patterns mutmut_7, _13, _14 and _31."""
    other = [x + d for x, d in zip(answers, change)]
    kw = dict(threshold_scale=b_t, query_scale=b_q)
    want = max(abs(x - y) for x, y in zip(mp_output_logs(answers, threshold, b_t, b_q),
                                          mp_output_logs(other, threshold, b_t, b_q)))
    assert svt.max_log_ratio(answers, other, threshold, 1.0, **kw) == pytest.approx(want, rel=1e-9, abs=1e-9)
    for refresh in (False, True):
        want = mp_sparse_max_log_ratio(answers, other, threshold, b_t, b_q, refresh, dps=20)
        got = svt.sparse_max_log_ratio(answers, other, threshold, 1.0, C_SPARSE, refresh=refresh, **kw)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_log_ratio_at_a_huge_epsilon_matches_mpmath():
    """epsilon = 1e300: scales 2e-300 and 4e-300, so tails b_t - side b_q is below 1e-290 and _Law._slope
    compares the two terms by their logs. Kills _Law._slope mutmut_52, _54, _55, _82, _83, _88, _90, _91, _99
    and _100, and _law_scales mutmut_18."""
    a, b = [0.0, 1.0], [1.0, 0.0]
    want = max(abs(x - y) for x, y in zip(mp_output_logs(a, 0.0, 2e-300, 4e-300), mp_output_logs(b, 0.0, 2e-300, 4e-300)))
    assert svt.max_log_ratio(a, b, 0.0, 1e300) == pytest.approx(want, rel=1e-9, abs=0)


def test_alphas_with_delta_match_their_closed_forms():
    """sparse_alpha's log(1/delta) and NumericSparse's log(2/delta) (Sparse at delta/2), and NumericSparse's
    alpha at epsilon = 1e-305, where eps2 is below 1e-300 and the values' term is formed over epsilon: the
    larger of 8 (log k + log(4c/beta)) sqrt(8c log(2/delta))/eps1 (or 9c(log k + log(4c/beta))/eps for
    delta = 0) and sigma(eps2) log(2c/beta). Kills _log_inverse mutmut_3, _numeric_numerator mutmut_12 and
    _13, and numeric_sparse_alpha mutmut_103, _104, _106, _107, _116 to _119 and _121."""
    with mp.workdps(30):
        k, c, beta, delta = 10, 2, mp.mpf(0.1), mp.mpf(1e-6)
        want = 8 * (mp.log(k) + mp.log(2 * c / beta)) * mp.sqrt(8 * c * mp.log(1 / delta))
        assert svt.sparse_alpha(k, 1.0, 0.1, c, 1e-6) == pytest.approx(float(want), rel=1e-13, abs=0)
        for k, eps, beta, c, delta in [(10, 1.0, 0.1, 2, 1e-6), (5, 1e-305, 0.1, 3, 1e-6), (5, 1e-305, 0.1, 3, 0.0),
                                       (3, 2.0, 0.99, 1, 0.99), (1, 1e-305, 0.1, 1, 1e-6)]:
            want = mp_numeric_sparse_alpha(k, eps, beta, c, delta)
            assert svt.numeric_sparse_alpha(k, eps, beta, c, delta) == pytest.approx(float(want), rel=1e-13, abs=0)


def mp_numeric_sparse_alpha(k, eps, beta, c, delta):
    """NumericSparse's alpha (Theorem 3.28) in mpmath at the working precision: 9c(log k + log(4c/beta))/eps
    for delta = 0, else the larger of 8 (log k + log(4c/beta)) sqrt(8c log(2/delta))/eps1 and
    sigma(eps2) log(2c/beta), with eps1 = sqrt(512) eps/(sqrt(512) + 1) and eps2 = 2 eps/(sqrt(512) + 1)."""
    e, b_ = mp.mpf(eps), mp.mpf(beta)
    if delta == 0:
        return 9 * c * (mp.log(k) + mp.log(4 * c / b_)) / e
    root = mp.sqrt(512)
    eps1, eps2 = root * e / (root + 1), 2 * e / (root + 1)
    log2d = mp.log(2 / mp.mpf(delta))
    comparisons = 8 * (mp.log(k) + mp.log(4 * c / b_)) * mp.sqrt(8 * c * log2d) / eps1
    values = mp.sqrt(32 * c * log2d) / eps2 * mp.log(2 * c / b_)
    return max(comparisons, values)


def test_per_query_epsilon_just_above_one_and_its_ratio():
    """The root of e0 sqrt(2k log(1/delta')) + k e0 (e^e0 - 1) = epsilon at epsilon = 1.001 (the branch in e0
    itself), and the second value epsilon/e0 that laplace_alpha uses where e0 underflows (mpmath, 50 digits).
    Kills _per_query_epsilon mutmut_82 (the bracket's lower end) and _94 (epsilon * e0 returned)."""
    with mp.workdps(50):
        for eps, k, dp in [(1.001, 50, 0.01), (100.0, 1000, 1e-9), (3.0, 2, 0.9)]:
            s = mp.sqrt(2 * k * -mp.log(mp.mpf(dp)))
            root = mp.findroot(lambda e0: e0 * (s + k * mp.expm1(e0)) - eps, mp.mpf(eps) / s * 0.5)
            e0, ratio = svt._per_query_epsilon(eps, k, dp)
            assert e0 == pytest.approx(float(root), rel=1e-14, abs=0)
            assert ratio == pytest.approx(float(eps / root), rel=1e-14, abs=0)
            assert svt.advanced_per_query_epsilon(eps, k, dp) == pytest.approx(float(root), rel=1e-14, abs=0)


# Configurations found by a scan of the survivors of the mutation run of 2026-11-27 (each surviving mutant
# run on about 250 random and extreme calls of the public API, compared with the original at 1e-9): these
# changed an answer while every test passed. Rounded to two decimals; each still tells the mutants apart.
SCAN_RATIO_CASES = [  # answers on D, on D', threshold, b_t, b_q
    ([-4.04, -0.58], [-3.65, -0.93], 2.32, 1000.0, 1.0),
    ([-0.25, -0.63, -3.57, -0.77, 2.64], [0.75, -1.63, -4.57, -1.77, 3.64], -1.0, 1.0, 1e-3),
    ([4.58, -1.7, -3.08, -3.63, 4.43, -3.36], [4.01, -0.98, -3.96, -3.87, 4.24, -2.41], 1.81, 1000.0, 1.0),
    ([0.0, 0.0, -2.0, -2.0, -2.0], [-0.03, -0.58, -2.01, -2.51, -1.32], -1.44, 1.0, 0.1),
    ([-4.18, -3.4, -1.6, -0.35, -2.34], [-4.8, -4.14, -2.42, -0.15, -1.63], 1.89, 3.0, 0.05),
]


@pytest.mark.parametrize("answers, other, threshold, b_t, b_q", SCAN_RATIO_CASES)
def test_log_ratios_the_scan_found_match_mpmath(answers, other, threshold, b_t, b_q):
    """max_log_ratio against differences of mpmath log-probabilities, on neighbours whose answers cross
    each other and the threshold with scales 1000 times apart. Kills _log_value_gap mutmut_14, _19, _25,
    _27, _49 and _56, and _ratio_value mutmut_8 and _21."""
    want = max(abs(x - y) for x, y in zip(mp_output_logs(answers, threshold, b_t, b_q),
                                          mp_output_logs(other, threshold, b_t, b_q)))
    got = svt.max_log_ratio(answers, other, threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_sparse_ratio_with_one_top_matches_mpmath():
    """Sparse with c = 1 and one threshold draw (refresh=False) against mpmath. Kills _sparse_patterns
    mutmut_7."""
    a, b, threshold, b_t, b_q = SCAN_RATIO_CASES[0]
    want = mp_sparse_max_log_ratio(a, b, threshold, b_t, b_q, False, dps=20, c=1)
    got = svt.sparse_max_log_ratio(a, b, threshold, 1.0, 1, threshold_scale=b_t, query_scale=b_q, refresh=False)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


def _largest_deviation(below, above, threshold, b_t, b_q):
    """max over t of -|t - T|/b_t - sum_below max(0, v - t)/b_q - sum_above max(0, t - v)/b_q: concave and
    piecewise linear, so its largest value is at one of its kinks (T and the answers)."""
    def g(t):
        return (-abs(t - threshold) / b_t - sum(max(0.0, v - t) for v in below) / b_q
                - sum(max(0.0, t - v) for v in above) / b_q)
    return max(g(t) for t in [threshold, *below, *above])


@pytest.mark.parametrize("answers, threshold", [([2.23, 2.32, 0.17, -3.23, 3.78, 3.8], 1.26),
                                                ([3621.56, -3217.01], 1.5)])
def test_laws_at_vanishing_scales_are_their_largest_deviation(answers, threshold):
    """Scales 2e-300 and 4e-300 (epsilon = 1e300 with the book's scales): the log-probability of each
    output is the largest value of the log of its integrand, -(cost of the cheapest threshold) of order
    1e300, up to the log of a width of order the scales and k log 2, below 2000 in size (Laplace's method).
    Kills _Law._slope mutmut_53, _57 to _63, _65, _72, _76, _79 to _81, _84, _86 and _98 (the slope's
    terms compared by their logs, where the rates 1/b overflow)."""
    b_t, b_q = 2e-300, 4e-300
    ours = svt.output_log_probabilities(answers, threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
    for o, got in enumerate(ours):
        want = _largest_deviation(answers[:o], answers[o:o + 1], threshold, b_t, b_q)
        assert abs(got - want) <= 1e-9 * abs(want) + 2000.0, (o, got, want)


@pytest.mark.parametrize("bad", [0.0, 1.0, -1e-300, 1.0 + 2**-52])
def test_advanced_laplace_alpha_refuses_a_delta_prime_outside_the_open_interval(bad):
    """laplace_alpha's advanced method needs 0 < delta' < 1 (log(1/delta') in the per-query epsilon):
    both ends refused by name, and values next to them accepted. Kills laplace_alpha mutmut_68, _69,
    _73, _74 and _75 (an end of the check made inclusive, or the check dropped)."""
    with pytest.raises(ValueError, match="delta_prime"):
        svt.laplace_alpha(10, 1.0, 0.1, method="advanced", delta_prime=bad)
    for good in (5e-324, 1.0 - 2**-53):
        assert 0 < svt.laplace_alpha(10, 1.0, 0.1, method="advanced", delta_prime=good) < math.inf


def test_sparse_ratio_enumerates_up_to_twelve_answers():
    """sparse_max_log_ratio enumerates the outputs: twelve answers are its documented limit, thirteen are
    refused by name. Kills sparse_max_log_ratio mutmut_8, _9 and _10."""
    a = [0.0] * 12
    assert svt.sparse_max_log_ratio(a, [1.0] + a[1:], 0.0, 1.0, 1, refresh=False) > 0
    with pytest.raises(ValueError, match="answers must have at most 12 entries"):
        svt.sparse_max_log_ratio(a + [0.0], a + [1.0], 0.0, 1.0, 1, refresh=False)


def test_a_given_noise_scale_at_the_cap_samples():
    """A threshold scale equal to the samplers' cap (float max / 64, where every Laplace draw is still a
    float) is allowed; the next float above is refused by name. Kills _sampling_scales mutmut_7."""
    cap = sys.float_info.max / 64.0
    out = svt.sample_outputs([0.0, 1.0], 0.0, 1.0, 5, rng=np.random.default_rng(1), threshold_scale=cap,
                             query_scale=1.0)
    assert out.shape == (5,) and np.all((0 <= out) & (out <= 2))
    with pytest.raises(ValueError, match="threshold_scale"):
        svt.sample_outputs([0.0, 1.0], 0.0, 1.0, 5, rng=np.random.default_rng(1),
                           threshold_scale=np.nextafter(cap, math.inf), query_scale=1.0)


@pytest.mark.parametrize("beta, delta", [(1e-300, 1e-6), (5e-324, 0.0), (3e-300, 0.3)])
def test_numeric_sparse_alpha_at_a_vanishing_beta_matches_its_closed_form(beta, delta):
    """beta/2 below 1e-300, where log(4c/beta) is formed as log(4c) - log(beta) (4c/beta overflows at the
    smallest beta): the same closed forms as above, in mpmath. Kills numeric_sparse_alpha mutmut_62, _64
    and _65."""
    k, eps, c = 7, 0.5, 3
    with mp.workdps(40):
        want = mp_numeric_sparse_alpha(k, eps, beta, c, delta)
    assert svt.numeric_sparse_alpha(k, eps, beta, c, delta) == pytest.approx(float(want), rel=1e-13, abs=0)


def test_numeric_sparse_samples_down_to_the_least_epsilon_its_release_noise_allows():
    """NumericSparse with delta > 0 releases values with noise of scale sqrt(32 c log(2/delta)) (sqrt(512) + 1)
    / (2 epsilon) (eps2 = 2 epsilon / (sqrt(512) + 1)), which must stay at most the samplers' cap (float max
    / 64): an epsilon 0.1 % above the least allowed samples, 0.1 % below is refused by name. Kills
    numeric_sparse mutmut_52 (sqrt(513) for sqrt(512) in the cap's check)."""
    c, delta = 2, 1e-6
    least = math.sqrt(32 * c * math.log(2 / delta)) * (math.sqrt(512) + 1) / 2 / (sys.float_info.max / 64)
    out = svt.numeric_sparse([0.0, 1.0], 0.0, least * 1.001, c, rng=np.random.default_rng(2), delta=delta)
    assert out.shape == (2,)
    with pytest.raises(ValueError, match="epsilon must be >="):
        svt.numeric_sparse([0.0, 1.0], 0.0, least * 0.999, c, rng=np.random.default_rng(2), delta=delta)
