"""Unit tests of dpnotes.svt (AboveThreshold, its exact output law, accuracy, Sparse)."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from dpnotes import composition, svt


# ----------------------------------------------------------------- independent reference
def mp_output_probability(answers, threshold, epsilon, o, b_q=None, dps=30):
    """Pr[output with o bottoms] by mpmath quadrature at 30 digits, written from the
    definition independently of dpnotes (own Laplace CDF, own breakpoints)."""
    mp.mp.dps = dps
    b_t = mp.mpf(2) / epsilon
    b_q = mp.mpf(4) / epsilon if b_q is None else mp.mpf(b_q)

    def cdf(u):
        return mp.exp(u / b_q) / 2 if u < 0 else 1 - mp.exp(-u / b_q) / 2

    def integrand(t):
        val = mp.exp(-abs(t - threshold) / b_t) / (2 * b_t)
        for f in answers[:o]:
            val *= cdf(t - f)
        if o < len(answers):
            val *= 1 - cdf(t - answers[o])
        return val

    pts = sorted({mp.mpf(threshold), *[mp.mpf(a) for a in answers[: o + 1]]})
    return float(mp.quad(integrand, [-mp.inf, *pts, mp.inf]))


# ----------------------------------------------------------------- exact law
def test_log_cdf_matches_scipy():
    u = np.linspace(-30, 30, 121)
    for b in (0.5, 4.0):
        ours = np.array([svt._log_cdf(x, b) for x in u])
        np.testing.assert_allclose(ours, stats.laplace.logcdf(u, scale=b), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("answers", [[0.0], [1.5, -2.0], [3.0, 3.0, -1.0], [10.0, -5.0, 0.3]])
def test_output_probabilities_match_mpmath(answers):
    lp = svt.output_log_probabilities(answers, 0.5, 0.7)
    for o in range(len(answers) + 1):
        ref = mp_output_probability(answers, 0.5, 0.7, o)
        assert math.exp(lp[o]) == pytest.approx(ref, rel=1e-9)


def test_output_probabilities_small_scale_variant_match_mpmath():
    lp = svt.output_log_probabilities([2.0, -1.0], 0.0, 1.0, query_scale=2.0)
    for o in range(3):
        assert math.exp(lp[o]) == pytest.approx(mp_output_probability([2.0, -1.0], 0.0, 1.0, o, b_q=2.0), rel=1e-9)


def test_single_query_closed_form():
    # Pr[f + nu >= T + eta] with f = T: by symmetry of nu - eta, exactly 1/2.
    assert math.exp(svt.output_log_probabilities([4.0], 4.0, 0.3)[0]) == pytest.approx(0.5, abs=1e-12)


def test_probabilities_sum_to_one():
    rng = np.random.default_rng(5)
    for _ in range(5):
        answers = rng.normal(0, 6, size=4)
        p = np.exp(svt.output_log_probabilities(answers, 0.0, 1.3))
        assert p.sum() == pytest.approx(1.0, abs=1e-9)


def test_deep_tail_probability_is_accurate():
    # a probability of order 1e-26 keeps full relative accuracy
    answers = [-40.0, 60.0]
    lp = svt.output_log_probabilities(answers, 0.0, 2.0)
    assert math.exp(lp[0]) == pytest.approx(mp_output_probability(answers, 0.0, 2.0, 0), rel=1e-8)


# ----------------------------------------------------------------- samplers
def test_sampler_matches_exact_law():
    answers = [1.0, -2.0, 0.5, 3.0]
    n = 200_000
    o = svt.sample_outputs(answers, 0.0, 1.0, n, rng=np.random.default_rng(11))
    freq = np.bincount(o, minlength=5) / n
    p = np.array([mp_output_probability(answers, 0.0, 1.0, j) for j in range(5)])
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) < 5 * se)      # 5 standard errors: false alarm < 1e-5


def test_single_run_matches_exact_law():
    answers = [0.0, 2.0, -1.0]
    n = 20_000
    rng = np.random.default_rng(3)
    outs = [svt.above_threshold(answers, 1.0, 1.0, rng=rng) for _ in range(n)]
    # number of bottoms: the length minus one if the run ended with a top
    o = np.array([len(a) - 1 if a[-1] else len(a) for a in outs])
    assert all(a[:-1].sum() == 0 for a in outs)    # only the last answer can be a top
    freq = np.bincount(o, minlength=4) / n
    p = np.array([mp_output_probability(answers, 1.0, 1.0, j) for j in range(4)])
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / n))


def test_stream_without_top_returns_all_bottoms():
    out = svt.above_threshold([-1e6] * 5, 0.0, 1.0, rng=np.random.default_rng(0))
    assert out.tolist() == [False] * 5


# ----------------------------------------------------------------- privacy
def test_privacy_structured_family_tight_and_smaller_noise_breaks():
    # m queries far above T on D, one more on D' ; the last query lower by 1 on D'
    for m in (1, 3, 10):
        a = np.append(np.full(m, 12.0), -10.0)
        b = np.append(np.full(m, 13.0), -11.0)
        assert svt.max_log_ratio(a, b, 0.0, 1.0) <= 1.0 + 1e-9
    # the limit is attained: the proof's e^eps is tight (region t < max(T, f_k) has mass ~e^-30)
    a = np.append(np.full(10, 12.0), -10.0)
    b = np.append(np.full(10, 13.0), -11.0)
    assert svt.max_log_ratio(a, b, 0.0, 1.0) > 1.0 - 1e-6
    # with query noise 2/eps the ratio tends to e^{1.5 eps}
    assert svt.max_log_ratio(a, b, 0.0, 1.0, query_scale=2.0) == pytest.approx(1.5, abs=1e-6)


def test_privacy_family_log_ratio_matches_mpmath():
    # the page's adversarial family near the bound: the log-ratio agrees with 30-digit quadrature
    # far below the 1e-9 tolerance the page uses for "<= epsilon"
    m = 6
    a, b = [12.0] * m + [-10.0], [13.0] * m + [-11.0]
    ref = max(abs(math.log(mp_output_probability(a, 0.0, 1.0, o)) - math.log(mp_output_probability(b, 0.0, 1.0, o)))
              for o in range(m + 2))
    assert svt.max_log_ratio(a, b, 0.0, 1.0) == pytest.approx(ref, abs=1e-11)
    assert 1.0 - 1e-4 < ref < 1.0


def test_privacy_random_neighbours():
    rng = np.random.default_rng(8)
    for _ in range(20):
        a = rng.uniform(-10, 10, size=3)
        b = a + rng.uniform(-1, 1, size=3)
        assert svt.max_log_ratio(a, b, 0.0, 1.0) <= 1.0 + 1e-9


def test_search_finds_no_violation_and_finds_one_with_small_noise():
    r, a, b = svt.search_worst_case(2, 1.0, rng=np.random.default_rng(2), n_starts=2, maxfev=120)
    assert r <= 1.0 + 1e-9 and np.max(np.abs(a - b)) <= 1.0
    r, a, b = svt.search_worst_case(3, 1.0, rng=np.random.default_rng(3), n_starts=3, maxfev=150, spread=12.0)
    assert r <= 1.0 + 1e-9 and np.max(np.abs(a - b)) <= 1.0
    r, a, b = svt.search_worst_case(3, 1.0, rng=np.random.default_rng(3), n_starts=3, maxfev=150,
                                    spread=12.0, query_scale=2.0)
    assert r > 1.1


# ----------------------------------------------------------------- accuracy
def test_accuracy_alpha_value():
    # hand value: k = 10, eps = 2, beta = 0.1 -> 4 (log 10 + log 20) = 4 log 200
    assert svt.accuracy_alpha(10, 2.0, 0.1) == pytest.approx(4 * math.log(200))


def test_is_accurate_hand_cases():
    answers = [-5.0, 0.0, 5.0]          # T = 0, alpha = 1
    # o=0: top on -5 (< T - alpha) and halted early; o=1: halted early; o=2: top on 5 ok;
    # o=3: bottom on 5 > T + alpha
    assert svt.is_accurate(answers, 0.0, 1.0, [0, 1, 2, 3]).tolist() == [False, False, True, False]
    assert svt.is_accurate([-5.0, 0.0, 0.5], 0.0, 1.0, [3]).tolist() == [True]


def test_failure_probability_simulation_agrees_with_exact():
    k, eps = 50, 1.0
    alpha = 0.3 * svt.accuracy_alpha(k, eps, 0.05)
    p = svt.accuracy_failure_probability(k, eps, alpha)
    n = 40_000
    est = svt.simulate_accuracy_failure(k, eps, alpha, n, rng=np.random.default_rng(4))
    assert abs(est - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_failure_probability_single_query_closed_form():
    # k = 1: failure = Pr[f + nu < T + eta] with f = T + alpha = Pr[nu - eta < -alpha];
    # integrate the Laplace(2/eps) density against the Laplace(4/eps) CDF with scipy.stats.
    from scipy import integrate
    eps, alpha = 1.0, 3.0
    ref = integrate.quad(lambda e: stats.laplace.pdf(e, scale=2 / eps) * stats.laplace.cdf(e - alpha, scale=4 / eps),
                         -np.inf, np.inf, points=None, epsabs=1e-13)[0]
    assert svt.accuracy_failure_probability(1, eps, alpha) == pytest.approx(ref, rel=1e-7)


def test_theorem_alpha_meets_beta_and_sources_alpha_does_not():
    for k in (10, 200):
        assert svt.accuracy_failure_probability(k, 1.0, svt.accuracy_alpha(k, 1.0, 0.05)) <= 0.05
        alpha_src = (4 * math.log(2 / 0.05) + math.log(k)) / 1.0
        assert svt.accuracy_failure_probability(k, 1.0, alpha_src) > 0.05


# ----------------------------------------------------------------- comparison
def test_laplace_alpha_basic_and_advanced():
    assert svt.laplace_alpha(10, 2.0, 0.1) == pytest.approx(5 * math.log(100))
    e0 = svt.advanced_per_query_epsilon(1.0, 200, 1e-6)
    assert composition.advanced(e0, 200, 1e-6)[0] == pytest.approx(1.0, rel=1e-10)
    alpha = svt.laplace_alpha(200, 1.0, 0.05, method="advanced", delta_prime=1e-6)
    # exact probability that some of the 200 Laplace(1/e0) errors reaches alpha is <= beta
    assert -math.expm1(200 * math.log1p(-math.exp(-alpha * e0))) <= 0.05
    assert alpha == pytest.approx(math.log(200 / 0.05) / e0)


# ----------------------------------------------------------------- Sparse
def test_sparse_with_c_1_is_above_threshold():
    answers = [1.0, -2.0, 0.5]
    n = 20_000
    rng = np.random.default_rng(6)
    outs = [svt.sparse(answers, 0.0, 1.0, 1, rng=rng) for _ in range(n)]
    o = np.array([len(a) - 1 if a[-1] else len(a) for a in outs])
    freq = np.bincount(o, minlength=4) / n
    p = np.array([mp_output_probability(answers, 0.0, 1.0, j) for j in range(4)])
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / n))


def _sparse_outputs(k, c):
    """All outputs Sparse can give on k queries: halted at the c-th top, or the stream ended."""
    import itertools
    outs = []
    for n in range(1, k + 1):
        for seq in itertools.product([False, True], repeat=n):
            tops = sum(seq)
            if (n < k and tops == c and seq[-1]) or (n == k and (tops < c or (tops == c and seq[-1]))):
                outs.append(seq)
    return outs


def _sparse_output_probability(answers, threshold, sigma, out):
    """Sparse restarts with a fresh threshold after each top, so an output's probability is the
    product of AboveThreshold probabilities of its segments (threshold Lap(sigma), queries
    Lap(2 sigma), i.e. AboveThreshold with epsilon 2 / sigma), each from mpmath."""
    p, start = 1.0, 0
    for i, top in enumerate(out):
        if top:
            p *= mp_output_probability(answers[start:i + 1], threshold, 2.0 / sigma, i - start)
            start = i + 1
    if start < len(out):                      # trailing bottoms: the stream ended
        p *= mp_output_probability(answers[start:], threshold, 2.0 / sigma, len(answers) - start)
    return p


@pytest.mark.parametrize("delta, sigma", [(0.0, 2 * 2 / 1.0), (1e-3, math.sqrt(32 * 2 * math.log(1e3)) / 1.0)])
def test_sparse_matches_exact_law_of_its_segments(delta, sigma):
    # c = 2, epsilon = 1; sigma written from Algorithm 2 of Dwork and Roth, not from dpnotes
    # answers a few noise scales apart, so that a wrong sigma changes the law visibly
    answers, c, n = (sigma * np.array([1.0, -1.0, 0.5, 2.0])).tolist(), 2, 20_000
    outs = _sparse_outputs(len(answers), c)
    p = np.array([_sparse_output_probability(answers, 0.0, sigma, o) for o in outs])
    assert p.sum() == pytest.approx(1.0, abs=1e-9)
    rng = np.random.default_rng(12)
    index = {o: j for j, o in enumerate(outs)}
    counts = np.zeros(len(outs))
    for _ in range(n):
        counts[index[tuple(svt.sparse(answers, 0.0, 1.0, c, rng=rng, delta=delta).tolist())]] += 1
    freq = counts / n
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / n))   # 5 standard errors per output


def test_sparse_halts_after_c_tops():
    out = svt.sparse([1e6, -1e6, 1e6, 1e6, 1e6], 0.0, 1.0, 3, rng=np.random.default_rng(0), delta=1e-6)
    assert out.tolist() == [True, False, True, True]


def test_sparse_alpha_values():
    assert svt.sparse_alpha(100, 1.0, 0.1, 4) == pytest.approx(32 * (math.log(100) + math.log(80)))
    eps0 = 1.0 / math.sqrt(8 * 4 * math.log(1e6))
    assert svt.sparse_alpha(100, 1.0, 0.1, 4, delta=1e-6) == pytest.approx(8 * (math.log(100) + math.log(80)) / eps0)


# ----------------------------------------------------------------- bad inputs
RNG = np.random.default_rng(0)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: svt.above_threshold([1.0], 0.0, 0.0, rng=RNG), "epsilon must be > 0"),
        (lambda: svt.above_threshold([], 0.0, 1.0, rng=RNG), "answers must be a non-empty"),
        (lambda: svt.above_threshold([np.nan], 0.0, 1.0, rng=RNG), "answers must have finite"),
        (lambda: svt.above_threshold([1.0], np.inf, 1.0, rng=RNG), "threshold must be finite"),
        (lambda: svt.above_threshold([1.0], 0.0, 1.0, rng=1), "rng must be a numpy.random.Generator"),
        (lambda: svt.sample_outputs([1.0], 0.0, 1.0, 0, rng=RNG), "size must be an integer >= 1"),
        (lambda: svt.sample_outputs([1.0], 0.0, 1.0, 5, rng=RNG, query_scale=-1), "query_scale must be > 0"),
        (lambda: svt.output_log_probabilities([[1.0]], 0.0, 1.0), "answers must be a non-empty 1-D"),
        (lambda: svt.output_log_probabilities([1.0], 0.0, 1.0, threshold_scale=0), "threshold_scale must be > 0"),
        (lambda: svt.max_log_ratio([0.0], [1.5], 0.0, 1.0), "differ by at most 1"),
        (lambda: svt.max_log_ratio([0.0], [0.5, 1.0], 0.0, 1.0), "answers_prime must have the same length"),
        (lambda: svt.search_worst_case(0, 1.0, rng=RNG), "k must be an integer in"),
        (lambda: svt.search_worst_case(2, 1.0, rng=RNG, spread=-1), "spread must be > 0"),
        (lambda: svt.search_worst_case(2, 1.0, rng=RNG, maxfev=0), "maxfev must be an integer >= 1"),
        (lambda: svt.accuracy_alpha(10, 1.0, 1.0), r"beta must be in \(0, 1\)"),
        (lambda: svt.accuracy_alpha(0, 1.0, 0.1), "k must be an integer >= 1"),
        (lambda: svt.is_accurate([1.0], 0.0, 1.0, [2]), "outputs must be integers"),
        (lambda: svt.is_accurate([1.0], 0.0, 0.0, [0]), "alpha must be > 0"),
        (lambda: svt.accuracy_failure_probability(5, 1.0, -1.0), "alpha must be > 0"),
        (lambda: svt.simulate_accuracy_failure(5, 1.0, 1.0, 0, rng=RNG), "n_runs must be an integer >= 1"),
        (lambda: svt.advanced_per_query_epsilon(1.0, 10, 0.0), r"delta_prime must be in \(0, 1\)"),
        (lambda: svt.laplace_alpha(10, 1.0, 0.1, method="advanced"), "delta_prime must be given"),
        (lambda: svt.laplace_alpha(10, 1.0, 0.1, method="fancy"), "method must be"),
        (lambda: svt.sparse([1.0], 0.0, 1.0, 0, rng=RNG), "c must be an integer >= 1"),
        (lambda: svt.sparse([1.0], 0.0, 1.0, 1, rng=RNG, delta=1.0), r"delta must be in \[0, 1\)"),
        (lambda: svt.sparse_alpha(10, 1.0, 0.1, 2, delta=-0.1), r"delta must be in \[0, 1\)"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_many_equal_answers_match_mpmath():
    # 200 answers at the threshold: the integrand's peak lies far from every kink
    answers = [0.0] * 200
    lp = svt.output_log_probabilities(answers, 0.0, 1.0)
    assert math.exp(lp[-1]) == pytest.approx(mp_output_probability(answers, 0.0, 1.0, 200), rel=1e-9)
    assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-9)
