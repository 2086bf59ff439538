"""Unit tests of dpnotes.svt: AboveThreshold, Sparse, NumericSparse, their exact laws and accuracy.

Noise is checked exactly by coupling seeds: a run's result equals the algorithm written
here from Dwork and Roth, fed with the scales of the book times the standard Laplace
draws of the same seed. Laws are checked against mpmath quadrature written from the
definition. No test runs at epsilon = 1 alone (2/eps = 2 eps there).
"""

import itertools
import math
import sys

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, stats

from dpnotes import composition, svt


# ----------------------------------------------------------------- independent references
def mp_pattern(below, above, threshold, b_t, b_q, upper=None, dps=15):
    """Integral of p(t) prod_below F(t - f) prod_above (1 - F(t - f)) over t < upper, by mpmath,
    written from the definition independently of dpnotes (own Laplace CDF, own breakpoints)."""
    mp.mp.dps = dps
    b_t, b_q = mp.mpf(b_t), mp.mpf(b_q)

    def cdf(u):
        return mp.exp(u / b_q) / 2 if u < 0 else 1 - mp.exp(-u / b_q) / 2

    def integrand(t):
        val = mp.exp(-abs(t - threshold) / b_t) / (2 * b_t)
        for f in below:
            val *= cdf(t - f)
        for f in above:
            val *= 1 - cdf(t - f)
        return val

    top = mp.inf if upper is None else mp.mpf(upper)
    pts = sorted({mp.mpf(x) for x in [threshold, *below, *above] if upper is None or x < upper})
    return float(mp.quad(integrand, [-mp.inf, *pts, top]))


def mp_output_probability(answers, threshold, epsilon, o, b_t=None, b_q=None):
    """Pr[AboveThreshold output with o bottoms], scales 2/eps and 4/eps unless given."""
    b_t = 2 / epsilon if b_t is None else b_t
    b_q = 4 / epsilon if b_q is None else b_q
    return mp_pattern(answers[:o], answers[o:o + 1], threshold, b_t, b_q)


def reference_above_threshold(answers, threshold, b_t, b_q, z_threshold, z_queries):
    """Algorithm 1 of Dwork and Roth on given standard Laplace draws: the number of bottoms."""
    t_hat = threshold + b_t * z_threshold
    for i, f in enumerate(answers):
        if f + b_q * z_queries[i] >= t_hat:
            return i
    return len(answers)


def reference_sparse(answers, threshold, b_t, b_q, c, z, refresh=True):
    """Algorithm 2 of Dwork and Roth on a stream z of standard Laplace draws, consumed in the
    order the book documents: a threshold draw per round (only the first without refresh),
    then one draw for every query of the stream. Returns the top positions, padded with k."""
    k, pos, tops, first = len(answers), 0, [], 0
    for j in range(c):
        if j == 0 or refresh:
            t_hat = threshold + b_t * z[pos]
            pos += 1
        row, pos = z[pos:pos + k], pos + k
        hit = next((i for i in range(first, k) if answers[i] + b_q * row[i] >= t_hat), k)
        tops.append(hit)
        first = hit + 1
    return tops


def std_laplace(seed, n):
    return np.random.default_rng(seed).laplace(0.0, 1.0, n)


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
        assert math.exp(lp[o]) == pytest.approx(mp_output_probability(answers, 0.5, 0.7, o), rel=1e-9, abs=0)


def test_output_probabilities_other_scales_match_mpmath():
    # both scales set and unequal to the defaults: each option changes the answer
    answers = [2.0, -1.0]
    lp = svt.output_log_probabilities(answers, 0.3, 2.5, threshold_scale=1.3, query_scale=0.6)
    for o in range(3):
        ref = mp_output_probability(answers, 0.3, 2.5, o, b_t=1.3, b_q=0.6)
        assert math.exp(lp[o]) == pytest.approx(ref, rel=1e-9, abs=0)


def test_single_query_closed_form():
    # Pr[f + nu >= T + eta] with f = T: by symmetry of nu - eta, exactly 1/2.
    assert math.exp(svt.output_log_probabilities([4.0], 4.0, 0.3)[0]) == pytest.approx(0.5, abs=1e-12)


def test_probabilities_sum_to_one():
    rng = np.random.default_rng(5)
    for _ in range(3):
        p = np.exp(svt.output_log_probabilities(rng.normal(0, 6, size=4), 0.0, 1.3))
        assert p.sum() == pytest.approx(1.0, abs=1e-9)


def test_deep_tail_probability_is_accurate():
    # a probability of order 1e-26 keeps full relative accuracy
    answers = [-40.0, 60.0]
    lp = svt.output_log_probabilities(answers, 0.0, 2.0)
    assert math.exp(lp[0]) == pytest.approx(mp_output_probability(answers, 0.0, 2.0, 0), rel=1e-8, abs=0)


def test_many_equal_answers_match_mpmath():
    # 60 answers at the threshold: the integrand's peak lies far from every kink
    answers = [0.0] * 60
    lp = svt.output_log_probabilities(answers, 0.0, 1.5)
    assert math.exp(lp[-1]) == pytest.approx(mp_output_probability(answers, 0.0, 1.5, 60), rel=1e-9, abs=0)
    assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-9)


def test_integral_with_upper_limit_matches_mpmath():
    # the integrand peaks beyond the upper limit, then before it
    for upper in (-3.0, 4.0):
        ours = math.exp(svt._pattern_log_probability([5.0, 5.0], [], 0.5, 2.0, 3.0, upper=upper))
        assert ours == pytest.approx(mp_pattern([5.0, 5.0], [], 0.5, 2.0, 3.0, upper=upper), rel=1e-9, abs=0)


# ----------------------------------------------------------------- noise, exactly (coupled seeds)
ANSWERS = [0.7, -0.4, 1.9, 0.2, -1.5]


@pytest.mark.parametrize("epsilon, threshold", [(0.5, 0.3), (3.0, -0.2)])
def test_above_threshold_noise_is_coupled(epsilon, threshold):
    # threshold noise (2/eps) Z_0 then query noise (4/eps) Z_i, from the same seed
    k, seen = len(ANSWERS), set()
    for seed in range(150):
        out = svt.above_threshold(ANSWERS, threshold, epsilon, rng=np.random.default_rng(seed))
        z = std_laplace(seed, k + 1)
        o = reference_above_threshold(ANSWERS, threshold, 2 / epsilon, 4 / epsilon, z[0], z[1:])
        expected = [False] * o + ([True] if o < k else [])
        assert out.dtype == bool and out.tolist() == expected
        seen.add(o)
    assert len(seen) >= 5                      # nearly every output occurred: the test is not trivial


def test_above_threshold_scale_options_are_coupled():
    for seed in range(60):
        out = svt.above_threshold(ANSWERS, 0.0, 0.8, rng=np.random.default_rng(seed),
                                  threshold_scale=0.3, query_scale=5.0)
        z = std_laplace(seed, len(ANSWERS) + 1)
        o = reference_above_threshold(ANSWERS, 0.0, 0.3, 5.0, z[0], z[1:])
        assert len(out) == min(o + 1, len(ANSWERS)) and out.sum() == (o < len(ANSWERS))


@pytest.mark.parametrize("epsilon, scales", [(0.5, {}), (2.5, {}), (0.8, dict(threshold_scale=0.4, query_scale=3.0))])
def test_sample_outputs_noise_is_coupled(epsilon, scales, monkeypatch):
    # the sampler draws n threshold noises, then an (n, k) block of query noises, per chunk
    monkeypatch.setattr(svt, "_CHUNK", 7 * len(ANSWERS))        # chunks of 7 runs: 3 chunks for 20 runs
    n, k = 20, len(ANSWERS)
    b_t = scales.get("threshold_scale", 2 / epsilon)
    b_q = scales.get("query_scale", 4 / epsilon)
    o = svt.sample_outputs(ANSWERS, 0.1, epsilon, n, rng=np.random.default_rng(9), **scales)
    z = std_laplace(9, n * (k + 1))
    expected, pos = [], 0
    for size in (7, 7, 6):
        zt, zq = z[pos:pos + size], z[pos + size:pos + size * (k + 1)].reshape(size, k)
        expected += [reference_above_threshold(ANSWERS, 0.1, b_t, b_q, zt[r], zq[r]) for r in range(size)]
        pos += size * (k + 1)
    assert o.tolist() == expected and len(set(expected)) > 2


def test_sample_outputs_chunk_smaller_than_a_run(monkeypatch):
    # a chunk never holds less than one run: one run per chunk, so the draws alternate
    monkeypatch.setattr(svt, "_CHUNK", 2)
    o = svt.sample_outputs(ANSWERS, 0.0, 0.5, 6, rng=np.random.default_rng(4))
    z = std_laplace(4, 6 * (len(ANSWERS) + 1)).reshape(6, len(ANSWERS) + 1)
    assert o.tolist() == [reference_above_threshold(ANSWERS, 0.0, 4.0, 8.0, r[0], r[1:]) for r in z]


def test_single_run_and_sampler_share_the_core():
    # same seed, one run: the same output from both
    for seed in range(40):
        out = svt.above_threshold(ANSWERS, 0.0, 0.6, rng=np.random.default_rng(seed))
        o = svt.sample_outputs(ANSWERS, 0.0, 0.6, 1, rng=np.random.default_rng(seed))[0]
        assert len(out) - bool(out[-1]) == o


def test_stream_without_top_returns_all_bottoms():
    out = svt.above_threshold([-1e6] * 5, 0.0, 1.0, rng=np.random.default_rng(0))
    assert out.tolist() == [False] * 5


def test_sampler_matches_exact_law():
    # statistical, on top of the coupling: frequencies within 5 standard errors (false alarm < 1e-5)
    answers, n = [1.0, -2.0, 0.5, 3.0], 40_000
    o = svt.sample_outputs(answers, 0.0, 0.6, n, rng=np.random.default_rng(11))
    freq = np.bincount(o, minlength=5) / n
    p = np.exp(svt.output_log_probabilities(answers, 0.0, 0.6))
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / n))


# ----------------------------------------------------------------- privacy
def family(m, epsilon, top_shift=-1.0, n_top=1):
    """m answers far above the threshold (larger by 1 on D'), then n_top far below (moved by top_shift)."""
    a = np.concatenate([np.full(m, 12.0 / epsilon), np.full(n_top, -10.0 / epsilon)])
    return a, a + np.concatenate([np.ones(m), np.full(n_top, top_shift)])


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_privacy_family_is_tight(epsilon):
    assert svt.max_log_ratio(*family(3, epsilon), 0.0, epsilon) <= epsilon * (1 + 1e-9)
    assert svt.max_log_ratio(*family(12, epsilon), 0.0, epsilon) == pytest.approx(epsilon, rel=1e-6, abs=0)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_family_reaches_the_worst_case_of_broken_variants(epsilon):
    # each limit is 1/b_t + 2/b_q, the sum of the bounds of Step 3 of the proof
    for kw, limit in [(dict(query_scale=2 / epsilon), 1.5), (dict(query_scale=3 / epsilon), 7 / 6),
                      (dict(threshold_scale=1 / epsilon), 1.5)]:
        assert svt.max_log_ratio(*family(12, epsilon), 0.0, epsilon, **kw) == pytest.approx(limit * epsilon, rel=1e-5, abs=0)


def test_privacy_family_log_ratio_matches_mpmath():
    # the family near the bound: agreement with mpmath far below the 1e-9 tolerance of the page
    a, b = family(4, 0.5)
    ref = max(abs(math.log(mp_output_probability(a, 0.0, 0.5, o, ) / mp_output_probability(b, 0.0, 0.5, o)))
              for o in range(6))
    assert svt.max_log_ratio(a, b, 0.0, 0.5) == pytest.approx(ref, abs=1e-11)


def test_privacy_random_neighbours():
    rng = np.random.default_rng(8)
    for _ in range(12):
        a = rng.uniform(-10, 10, size=3)
        assert svt.max_log_ratio(a, a + rng.uniform(-1, 1, size=3), 0.0, 0.8) <= 0.8 + 1e-9


def test_search_returns_its_value_and_finds_a_gross_violation():
    r, a, b = svt.search_worst_case(1, 0.7, rng=np.random.default_rng(2), n_starts=1, maxfev=30)
    assert r <= 0.7 + 1e-9 and np.max(np.abs(a - b)) <= 1 and np.max(np.abs(a)) <= 8 / 0.7
    assert svt.max_log_ratio(a, b, 0.0, 0.7) == pytest.approx(r, abs=1e-12)
    r2, a2, _ = svt.search_worst_case(1, 0.7, rng=np.random.default_rng(2), n_starts=2, maxfev=30, spread=3.0)
    r1, _, _ = svt.search_worst_case(1, 0.7, rng=np.random.default_rng(2), n_starts=1, maxfev=30, spread=3.0)
    assert np.max(np.abs(a2)) <= 3.0 and r2 >= r1 - 1e-12 and r1 != r      # same first start; spread matters
    # the documented default spread is 8/eps (at eps = 0.7, not 8 eps = 5.6): the same search, start for start
    r8, a8, b8 = svt.search_worst_case(1, 0.7, rng=np.random.default_rng(2), n_starts=1, maxfev=30, spread=8 / 0.7)
    assert r8 == r and np.array_equal(a8, a) and np.array_equal(b8, b)
    # both noises at scale 1/(4 eps): one query alone can cost 4 eps; the search sees more than eps
    small = dict(threshold_scale=0.25 / 0.7, query_scale=0.25 / 0.7)
    r3, _, _ = svt.search_worst_case(1, 0.7, rng=np.random.default_rng(2), n_starts=1, maxfev=30, **small)
    assert r3 > 0.7


def test_search_is_the_documented_nelder_mead():
    # rebuilt from the docstring: starts uniform in (-2, 2)^(2k), answers spread * tanh(y),
    # changes tanh(z), Nelder-Mead with the stated tolerances and budget; best of the starts
    from scipy import optimize
    k, eps, spread, maxfev = 2, 0.6, 5.0, 25
    rng = np.random.default_rng(7)

    def loss(x):
        q = spread * np.tanh(x[:k])
        return -svt.max_log_ratio(q, q + np.tanh(x[k:]), 0.0, eps)

    results = [optimize.minimize(loss, rng.uniform(-2.0, 2.0, 2 * k), method="Nelder-Mead",
                                 options={"xatol": 1e-6, "fatol": 1e-9, "maxfev": maxfev}) for _ in range(2)]
    best = min(results, key=lambda r: r.fun)
    r, a, b = svt.search_worst_case(k, eps, rng=np.random.default_rng(7), n_starts=2, maxfev=maxfev, spread=spread)
    assert r == -best.fun
    np.testing.assert_array_equal(a, spread * np.tanh(best.x[:k]))
    np.testing.assert_array_equal(b, a + np.tanh(best.x[k:]))


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
    # a top exactly at T - alpha and a bottom exactly at T + alpha are allowed
    assert svt.is_accurate([-1.0], 0.0, 1.0, [0]).tolist() == [True]
    assert svt.is_accurate([1.0, 3.0], 0.0, 1.0, [1]).tolist() == [True]


def test_is_accurate_of_no_runs_is_no_verdicts():
    # an empty list is read by numpy as floats; it used to reach the indexing and raise IndexError
    for none in ([], np.array([], dtype=np.int64), np.zeros((0,), dtype=float)):
        out = svt.is_accurate([-5.0, 0.0, 5.0], 0.0, 1.0, none)
        assert out.dtype == bool and out.shape == (0,)
    # the answers are still checked when there is no run
    with pytest.raises(ValueError, match="answers"):
        svt.is_accurate([], 0.0, 1.0, [])


def test_failure_probability_simulation_agrees_with_exact():
    k, eps = 50, 0.7
    alpha = 0.3 * svt.accuracy_alpha(k, eps, 0.05)
    p = svt.accuracy_failure_probability(k, eps, alpha)
    n = 20_000
    est = svt.simulate_accuracy_failure(k, eps, alpha, n, rng=np.random.default_rng(4))
    assert abs(est - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_failure_simulation_small_alpha_agrees_with_exact():
    # alpha small against the noise: the all-bottom output is frequent and must count as a failure
    p = svt.accuracy_failure_probability(2, 0.7, 0.5)
    est = svt.simulate_accuracy_failure(2, 0.7, 0.5, 4000, rng=np.random.default_rng(6))
    assert abs(est - p) < 5 * math.sqrt(p * (1 - p) / 4000)


@pytest.mark.parametrize("eps, scales", [(0.6, {}), (2.0, dict(threshold_scale=0.7, query_scale=1.9))])
def test_failure_probability_single_query_closed_form(eps, scales):
    # k = 1: failure = Pr[f + nu < T + eta] with f = T + alpha = Pr[nu - eta < -alpha];
    # integrate the threshold-noise density against the query-noise CDF with scipy.stats.
    alpha = 3.0
    b_t, b_q = scales.get("threshold_scale", 2 / eps), scales.get("query_scale", 4 / eps)
    ref = integrate.quad(lambda e: stats.laplace.pdf(e, scale=b_t) * stats.laplace.cdf(e - alpha, scale=b_q),
                         -np.inf, np.inf, epsabs=1e-13)[0]
    assert svt.accuracy_failure_probability(1, eps, alpha, **scales) == pytest.approx(ref, rel=1e-7, abs=0)


def test_failure_probability_hardest_stream_matches_mpmath():
    # k = 3: success needs the first two below and the last (just above T + alpha) above
    eps, alpha = 0.5, 6.0
    ref = mp_pattern([-alpha, -alpha], [alpha], 0.0, 2 / eps, 4 / eps)
    assert svt.accuracy_failure_probability(3, eps, alpha) == pytest.approx(1 - ref, rel=1e-8, abs=0)


def test_theorem_alpha_meets_beta_and_sources_alpha_does_not():
    for k in (10, 200):
        assert svt.accuracy_failure_probability(k, 1.0, svt.accuracy_alpha(k, 1.0, 0.05)) <= 0.05
        alpha_src = (4 * math.log(2 / 0.05) + math.log(k)) / 1.0
        assert svt.accuracy_failure_probability(k, 1.0, alpha_src) > 0.05


# ----------------------------------------------------------------- comparison
def test_laplace_alpha_basic_and_advanced():
    assert svt.laplace_alpha(10, 2.0, 0.1) == pytest.approx(5 * math.log(100))
    e0 = svt.advanced_per_query_epsilon(1.0, 200, 1e-6)
    assert composition.advanced(e0, 200, 1e-6)[0] == pytest.approx(1.0, rel=1e-12, abs=0)
    alpha = svt.laplace_alpha(200, 1.0, 0.05, method="advanced", delta_prime=1e-6)
    # exact probability that some of the 200 Laplace(1/e0) errors reaches alpha is <= beta
    assert -math.expm1(200 * math.log1p(-math.exp(-alpha * e0))) <= 0.05
    assert alpha == pytest.approx(math.log(200 / 0.05) / e0)


# ----------------------------------------------------------------- Sparse
def sparse_sigma(epsilon, c, delta):
    """sigma of Algorithm 2 of Dwork and Roth, written here from the book, not from dpnotes."""
    return 2 * c / epsilon if delta == 0 else math.sqrt(32 * c * math.log(1 / delta)) / epsilon


STREAM = [0.6, -0.3, 1.2, 0.1, -0.8, 0.9]


@pytest.mark.parametrize("epsilon, c, delta", [(0.5, 2, 0.0), (3.0, 3, 0.0), (0.8, 2, 1e-3)])
def test_sparse_noise_is_coupled(epsilon, c, delta):
    # the threshold is redrawn after each top, sigma carries its factor c, query noise is 2 sigma
    k, sigma, seen = len(STREAM), sparse_sigma(epsilon, c, delta), set()
    stream = (sigma * np.array(STREAM)).tolist()      # answers on the scale of the noise
    for seed in range(120):
        out = svt.sparse(stream, 0.2, epsilon, c, rng=np.random.default_rng(seed), delta=delta)
        tops = reference_sparse(stream, 0.2, sigma, 2 * sigma, c, std_laplace(seed, c * (k + 1)))
        hits = [t for t in tops if t < k]
        length = hits[-1] + 1 if len(hits) == c else k
        assert out.tolist() == [i in hits for i in range(length)]
        seen.add(len(hits))
    assert seen == set(range(c + 1))


@pytest.mark.parametrize("refresh, scales", [(True, {}), (False, dict(threshold_scale=0.9, query_scale=2.2))])
def test_sample_sparse_noise_is_coupled(refresh, scales):
    n, k, c, eps = 30, len(STREAM), 2, 0.7
    b_t = scales.get("threshold_scale", sparse_sigma(eps, c, 0))
    b_q = scales.get("query_scale", 2 * sparse_sigma(eps, c, 0))
    tops = svt.sample_sparse(STREAM, 0.0, eps, c, n, rng=np.random.default_rng(5), refresh=refresh, **scales)
    z = std_laplace(5, 2 * n * (k + 1))
    # layout of the draws: per round, n thresholds (first round only without refresh), then an (n, k) block
    rounds, pos = [], 0
    for j in range(c):
        zt = z[pos:pos + n] if (j == 0 or refresh) else zt
        pos += n if (j == 0 or refresh) else 0
        rounds.append((zt, z[pos:pos + n * k].reshape(n, k)))
        pos += n * k
    for r in range(n):
        stream = np.concatenate([np.concatenate([[zt[r]] if (j == 0 or refresh) else [], zq[r]])
                                 for j, (zt, zq) in enumerate(rounds)])
        assert tops[r].tolist() == reference_sparse(STREAM, 0.0, b_t, b_q, c, stream, refresh=refresh)
    assert len({tuple(t) for t in tops.tolist()}) > 3


def test_sparse_and_its_sampler_share_the_core():
    for seed in range(30):
        out = svt.sparse(STREAM, 0.0, 0.9, 2, rng=np.random.default_rng(seed))
        tops = svt.sample_sparse(STREAM, 0.0, 0.9, 2, 1, rng=np.random.default_rng(seed))[0]
        assert np.flatnonzero(out).tolist() == [t for t in tops if t < len(STREAM)]


def mp_sparse_probability(answers, threshold, b_t, b_q, tops, refresh):
    """Pr of a Sparse output from mpmath: the product of independent rounds (refresh) or a single
    integral over one threshold (no refresh)."""
    k = len(answers)
    hits = [t for t in tops if t < k]
    asked = hits[-1] + 1 if len(hits) == len(tops) else k
    if not refresh:
        below = [answers[i] for i in range(asked) if i not in hits]
        return mp_pattern(below, [answers[h] for h in hits], threshold, b_t, b_q)
    p, first = 1.0, 0
    for h in hits:
        p *= mp_pattern(answers[first:h], [answers[h]], threshold, b_t, b_q)
        first = h + 1
    if first < asked:
        p *= mp_pattern(answers[first:asked], [], threshold, b_t, b_q)
    return p


@pytest.mark.parametrize("c, delta, refresh, scales", [(2, 0.0, True, {}), (2, 1e-3, True, {}),
                                                       (2, 0.0, False, dict(threshold_scale=1.5, query_scale=2.5))])
def test_sparse_law_matches_mpmath(c, delta, refresh, scales):
    answers, eps = [1.0, -2.0, 3.0], 1.7
    sigma = sparse_sigma(eps, c, delta)
    b_t, b_q = scales.get("threshold_scale", sigma), scales.get("query_scale", 2 * sigma)
    outs, lp = svt.sparse_output_log_probabilities(answers, 0.0, eps, c, delta=delta, refresh=refresh, **scales)
    # every output once: 1 + 3 + 3 rows for k = 3, c = 2
    assert len({tuple(o) for o in outs.tolist()}) == len(outs) == 7
    for row, l in zip(outs.tolist(), lp):
        assert math.exp(l) == pytest.approx(mp_sparse_probability(answers, 0.0, b_t, b_q, row, refresh), rel=1e-8, abs=0)
    assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-9)


def test_sparse_sampler_matches_exact_law():
    answers, eps, c, n = [1.0, -2.0, 3.0, 0.5], 0.4, 2, 20_000
    outs, lp = svt.sparse_output_log_probabilities(answers, 0.0, eps, c)
    tops = svt.sample_sparse(answers, 0.0, eps, c, n, rng=np.random.default_rng(3))
    index = {tuple(o): j for j, o in enumerate(outs.tolist())}
    freq = np.bincount([index[tuple(t)] for t in tops.tolist()], minlength=len(outs)) / n
    p = np.exp(lp)
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / n))


def test_sparse_privacy_and_one_threshold_variant():
    eps, c = 0.5, 2
    a, b = family(4, eps, n_top=c)
    assert svt.sparse_max_log_ratio(a, b, 0.0, eps, c) <= eps * (1 + 1e-9)
    # Lyu et al.: one threshold Lap(1/eps1), queries Lap(2c/eps2): eps-DP, and the family attains it
    e1 = eps / (1 + (2 * c) ** (2 / 3))
    lyu = dict(threshold_scale=1 / e1, query_scale=2 * c / (eps - e1), refresh=False)
    assert 0.95 * eps < svt.sparse_max_log_ratio(a, b, 0.0, eps, c, **lyu) <= eps * (1 + 1e-9)
    # query noise c/eps2 on non-monotone neighbours: the loss tends to eps1 + 2 eps2 > eps
    half = dict(lyu, query_scale=c / (eps - e1))
    assert svt.sparse_max_log_ratio(a, b, 0.0, eps, c, **half) > eps + 0.5 * (eps - e1)


def test_sparse_max_log_ratio_passes_delta_and_refresh():
    # the default is Algorithm 2 (refresh); delta reaches the law
    a, b = [1.0, -2.0, 3.0], [2.0, -2.5, 2.0]
    la = svt.sparse_output_log_probabilities(a, 0.0, 0.8, 2, delta=1e-3)[1]
    lb = svt.sparse_output_log_probabilities(b, 0.0, 0.8, 2, delta=1e-3)[1]
    assert svt.sparse_max_log_ratio(a, b, 0.0, 0.8, 2, delta=1e-3) == pytest.approx(np.max(np.abs(la - lb)), rel=1e-12)
    assert svt.sparse_max_log_ratio(a, b, 0.0, 0.8, 2) != pytest.approx(np.max(np.abs(la - lb)), rel=1e-3)


def test_sparse_halts_after_c_tops():
    out = svt.sparse([1e6, -1e6, 1e6, 1e6, 1e6], 0.0, 1.0, 3, rng=np.random.default_rng(0), delta=1e-6)
    assert out.tolist() == [True, False, True, True]


def test_sparse_alpha_values():
    assert svt.sparse_alpha(100, 1.0, 0.1, 4) == pytest.approx(32 * (math.log(100) + math.log(80)))
    assert svt.sparse_alpha(100, 2.0, 0.1, 4) == pytest.approx(16 * (math.log(100) + math.log(80)))
    eps0 = 1.0 / math.sqrt(8 * 4 * math.log(1e6))
    assert svt.sparse_alpha(100, 1.0, 0.1, 4, delta=1e-6) == pytest.approx(8 * (math.log(100) + math.log(80)) / eps0)


# ----------------------------------------------------------------- NumericSparse
@pytest.mark.parametrize("epsilon, c, delta", [(0.5, 2, 0.0), (2.0, 3, 0.0), (0.9, 2, 1e-4)])
def test_numeric_sparse_noise_is_coupled(epsilon, c, delta):
    # Sparse at eps1 (and delta/2), then c fresh release noises sigma(eps2) * Z
    root = 8 if delta == 0 else math.sqrt(512)
    eps1, eps2 = root * epsilon / (root + 1), 2 * epsilon / (root + 1)
    log_term = None if delta == 0 else math.log(2 / delta)
    s1 = 2 * c / eps1 if delta == 0 else math.sqrt(32 * c * log_term) / eps1
    s2 = 2 * c / eps2 if delta == 0 else math.sqrt(32 * c * log_term) / eps2
    k, released = len(STREAM), 0
    stream = s1 * np.array(STREAM)                    # answers on the scale of the noise
    for seed in range(60):
        out = svt.numeric_sparse(stream, 0.2, epsilon, c, rng=np.random.default_rng(seed), delta=delta)
        z = std_laplace(seed, c * (k + 1) + c)
        tops = reference_sparse(stream, 0.2, s1, 2 * s1, c, z)
        hits = [t for t in tops if t < k]
        assert np.flatnonzero(~np.isnan(out)).tolist() == hits
        assert len(out) == (hits[-1] + 1 if len(hits) == c else k)
        noise = z[c * (k + 1):][:len(hits)]
        # released value - true value == sigma(eps2) * standard draw (to rounding of the scale)
        np.testing.assert_allclose(out[hits] - stream[hits], s2 * noise, rtol=1e-12, atol=1e-12)
        released += len(hits)
    assert released > 20


def test_numeric_sparse_epsilons_and_alpha():
    assert svt.numeric_sparse_epsilons(0.45) == pytest.approx((0.4, 0.1))
    r = math.sqrt(512)
    assert svt.numeric_sparse_epsilons(0.6, 1e-5) == pytest.approx((0.6 * r / (r + 1), 1.2 / (r + 1)))
    # delta = 0: Theorem 3.28's 9c(log k + log(4c/beta))/eps
    assert svt.numeric_sparse_alpha(50, 0.7, 0.1, 3) == pytest.approx(27 * (math.log(50) + math.log(120)) / 0.7)
    # delta > 0: the larger of the comparisons' and the released values' requirements
    eps, c, beta, delta = 0.5, 1, 0.05, 1e-6
    comp = (math.log(10) + math.log(4 * c / beta)) * math.sqrt(c * math.log(2 / delta)) * (r + 1) / eps
    vals = math.sqrt(32 * c * math.log(2 / delta)) * (r + 1) / (2 * eps) * math.log(2 * c / beta)
    assert vals > comp                                   # here the released values need more
    assert svt.numeric_sparse_alpha(10, eps, beta, c, delta) == pytest.approx(vals)
    # c = 2, k = 2: the values' term log(2c/beta) dominates again
    vals2 = math.sqrt(32 * 2 * math.log(2 / delta)) * (r + 1) / (2 * eps) * math.log(4 / beta)
    assert svt.numeric_sparse_alpha(2, eps, beta, 2, delta) == pytest.approx(vals2)
    assert svt.numeric_sparse_alpha(10 ** 6, eps, beta, c, delta) == pytest.approx(
        (math.log(10 ** 6) + math.log(4 * c / beta)) * math.sqrt(c * math.log(2 / delta)) * (r + 1) / eps)


def test_numeric_log_density_matches_mpmath():
    answers, b_t, b_q, b_v = [3.0, -1.0, 2.0], 1.5, 2.5, 4.0
    for value in (-2.0, 1.0):
        fresh = svt.numeric_log_density(answers, 0.4, value, threshold_scale=b_t, query_scale=b_q, value_scale=b_v)
        ref = mp_pattern(answers[:2], answers[2:], 0.4, b_t, b_q) * stats.laplace.pdf(value - 2.0, scale=b_v)
        assert math.exp(fresh) == pytest.approx(ref, rel=1e-8, abs=0)
        reused = svt.numeric_log_density(answers, 0.4, value, threshold_scale=b_t, query_scale=b_q)
        ref = mp_pattern(answers[:2], [], 0.4, b_t, b_q, upper=value) * stats.laplace.pdf(value - 2.0, scale=b_q)
        assert math.exp(reused) == pytest.approx(ref, rel=1e-8, abs=0)


def test_reused_noise_loss_grows_with_the_bottoms():
    # releasing the compared noisy answer pins the threshold below it: each bottom costs 1/b_q
    b_t, b_q = 2.0 / 0.4, 4.0 / 0.4
    for m in (4, 10):
        a = np.append(np.full(m, 30.0), 0.0)
        d = [svt.numeric_log_density(x, 0.0, 0.0, threshold_scale=b_t, query_scale=b_q) for x in (a, a + np.append(np.ones(m), 0))]
        assert d[0] - d[1] == pytest.approx(m / b_q, rel=1e-6, abs=0)


# ----------------------------------------------------------------- bad inputs
RNG = np.random.default_rng(0)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: svt.above_threshold([1.0], 0.0, 0.0, rng=RNG), "epsilon must be > 0"),
        (lambda: svt.above_threshold([], 0.0, 1.0, rng=RNG),
         r"^answers must be a non-empty 1-D sequence of query answers, got shape \(0,\)$"),
        (lambda: svt.above_threshold([np.nan], 0.0, 1.0, rng=RNG), r"^answers must have finite entries, got \[nan\]$"),
        (lambda: svt.above_threshold([1.0], np.inf, 1.0, rng=RNG), "threshold must be finite"),
        (lambda: svt.above_threshold([1.0], 0.0, 1.0, rng=1), "rng must be a numpy.random.Generator"),
        (lambda: svt.above_threshold([1.0], 0.0, 1.0, rng=RNG, query_scale=0), "query_scale must be > 0"),
        (lambda: svt.sample_outputs([1.0], 0.0, 1.0, 0, rng=RNG), r"size must be an integer in \[1, 10000000\]"),
        (lambda: svt.sample_outputs([1.0], 0.0, 1.0, 5, rng=RNG, query_scale=-1), "query_scale must be > 0"),
        (lambda: svt.sample_outputs([1.0], 0.0, 1.0, 5, rng=None), "rng must be"),
        (lambda: svt.sample_outputs([], 0.0, 1.0, 5, rng=RNG), r"^answers must be a non-empty 1-D"),
        (lambda: svt.sample_outputs([1.0], -np.inf, 1.0, 5, rng=RNG), r"^threshold must be finite"),
        (lambda: svt.sample_sparse([], 0.0, 1.0, 1, 5, rng=RNG), r"^answers must be a non-empty 1-D"),
        (lambda: svt.sample_sparse([1.0], np.inf, 1.0, 1, 5, rng=RNG), r"^threshold must be finite"),
        (lambda: svt.numeric_sparse([], 0.0, 1.0, 1, rng=RNG), r"^answers must be a non-empty 1-D"),
        (lambda: svt.output_log_probabilities([1.0], np.inf, 1.0), r"^threshold must be finite"),
        (lambda: svt.output_log_probabilities([[1.0]], 0.0, 1.0),
         r"^answers must be a non-empty 1-D sequence of query answers, got shape \(1, 1\)$"),
        (lambda: svt.output_log_probabilities([1.0], 0.0, 1.0, threshold_scale=0), "threshold_scale must be > 0"),
        (lambda: svt.max_log_ratio([0.0], [1.5], 0.0, 1.0),
         r"^answers and answers_prime must differ by at most 1 \(sensitivity 1\), got 1\.5$"),
        (lambda: svt.max_log_ratio([0.0], [0.5, 1.0], 0.0, 1.0),
         r"^answers_prime must have the same length as answers, got 2 and 1$"),
        (lambda: svt.max_log_ratio([0.0], [np.nan], 0.0, 1.0), "answers_prime must have finite"),
        (lambda: svt.search_worst_case(0, 1.0, rng=RNG), "k must be an integer in"),
        (lambda: svt.search_worst_case(7, 1.0, rng=RNG), r"k must be an integer in \[1, 6\]"),
        (lambda: svt.search_worst_case(2, 1.0, rng=RNG, spread=-1), "spread must be > 0"),
        (lambda: svt.search_worst_case(2, 1.0, rng=RNG, maxfev=0), "maxfev must be an integer >= 1"),
        (lambda: svt.search_worst_case(2, 1.0, rng=RNG, n_starts=0), r"n_starts must be an integer in \[1, 10000\]"),
        (lambda: svt.search_worst_case(2, -1.0, rng=RNG), "epsilon must be > 0"),
        (lambda: svt.search_worst_case(2, 1.0, rng=3), "rng must be"),
        (lambda: svt.accuracy_alpha(10, 1.0, 1.0), r"beta must be in \(0, 1\)"),
        (lambda: svt.accuracy_alpha(0, 1.0, 0.1), "k must be an integer >= 1"),
        (lambda: svt.accuracy_alpha(1, 0.0, 0.1), "epsilon must be > 0"),
        (lambda: svt.is_accurate([1.0], 0.0, 1.0, [2]), r"^outputs must be integers in \[0, 1\], got \[2\]$"),
        (lambda: svt.is_accurate([1.0], 0.0, 1.0, [-1]), "outputs must be integers"),
        (lambda: svt.is_accurate([1.0], 0.0, 1.0, [0.5]), "outputs must be integers"),
        (lambda: svt.is_accurate([1.0], 0.0, 0.0, [0]), "alpha must be > 0"),
        (lambda: svt.is_accurate([], 0.0, 1.0, [0]), r"^answers must be a non-empty 1-D"),
        (lambda: svt.sparse([1.0], np.inf, 1.0, 1, rng=RNG), r"^threshold must be finite"),
        (lambda: svt.is_accurate([1.0], np.nan, 1.0, [0]), "threshold must be"),
        (lambda: svt.accuracy_failure_probability(5, 1.0, -1.0), "alpha must be > 0"),
        (lambda: svt.accuracy_failure_probability(0, 1.0, 1.0), r"k must be an integer in \[1, 1000000\]"),
        (lambda: svt.accuracy_failure_probability(5, 0.0, 1.0), "epsilon must be > 0"),
        (lambda: svt.simulate_accuracy_failure(5, 1.0, 1.0, 0, rng=RNG), r"n_runs must be an integer in \[1, 10000000\]"),
        (lambda: svt.simulate_accuracy_failure(0, 1.0, 1.0, 5, rng=RNG), r"k must be an integer in \[1, 1000000\]"),
        (lambda: svt.simulate_accuracy_failure(5, 0.0, 1.0, 5, rng=RNG), "epsilon must be > 0"),
        (lambda: svt.simulate_accuracy_failure(5, 1.0, 0.0, 5, rng=RNG), "alpha must be > 0"),
        (lambda: svt.simulate_accuracy_failure(5, 1.0, 1.0, 5, rng=0), "rng must be"),
        (lambda: svt.advanced_per_query_epsilon(1.0, 10, 0.0), r"delta_prime must be in \(0, 1\)"),
        (lambda: svt.advanced_per_query_epsilon(0.0, 10, 0.1), "epsilon must be > 0"),
        (lambda: svt.advanced_per_query_epsilon(1.0, 0, 0.1), "k must be an integer >= 1"),
        (lambda: svt.laplace_alpha(10, 1.0, 0.1, method="advanced"),
         r"^delta_prime must be given for method='advanced', got None$"),
        (lambda: svt.laplace_alpha(10, 1.0, 0.1, method="fancy"), r"^method must be 'basic' or 'advanced', got 'fancy'$"),
        (lambda: svt.laplace_alpha(0, 1.0, 0.1), "k must be an integer >= 1"),
        (lambda: svt.laplace_alpha(10, 0.0, 0.1), "epsilon must be > 0"),
        (lambda: svt.laplace_alpha(10, 1.0, 0.0), r"beta must be in \(0, 1\)"),
        (lambda: svt.sparse([1.0], 0.0, 1.0, 0, rng=RNG), r"c must be an integer in \[1, 1000000\]"),
        (lambda: svt.sparse([1.0], 0.0, 1.0, 1, rng=RNG, delta=1.0), r"delta must be in \[0, 1\)"),
        (lambda: svt.sparse([1.0], 0.0, -1.0, 1, rng=RNG), "epsilon must be > 0"),
        (lambda: svt.sparse([1.0], 0.0, 1.0, 1, rng=None), "rng must be"),
        (lambda: svt.sparse([], 0.0, 1.0, 1, rng=RNG), "answers must be a non-empty"),
        (lambda: svt.sparse_alpha(10, 1.0, 0.1, 2, delta=-0.1), r"delta must be in \[0, 1\)"),
        (lambda: svt.sparse_alpha(10, 1.0, 0.1, 0), "c must be an integer >= 1"),
        (lambda: svt.sparse_alpha(0, 1.0, 0.1, 1), "k must be an integer >= 1"),
        (lambda: svt.sparse_alpha(10, 0.0, 0.1, 1), "epsilon must be > 0"),
        (lambda: svt.sparse_alpha(10, 1.0, 1.0, 1), r"beta must be in \(0, 1\)"),
        (lambda: svt.sample_sparse([1.0], 0.0, 1.0, 1, 0, rng=RNG), r"size must be an integer in \[1, 10000000\]"),
        (lambda: svt.sample_sparse([1.0], 0.0, 1.0, 0, 5, rng=RNG), r"c must be an integer in \[1, 1000000\]"),
        (lambda: svt.sample_sparse([1.0], 0.0, 1.0, 1, 5, rng=RNG, threshold_scale=-2), "threshold_scale must be > 0"),
        (lambda: svt.sample_sparse([1.0], 0.0, 1.0, 1, 5, rng=RNG, query_scale=0), "query_scale must be > 0"),
        (lambda: svt.sample_sparse([1.0], 0.0, 1.0, 1, 5, rng=RNG, delta=2.0), r"delta must be in \[0, 1\)"),
        (lambda: svt.sample_sparse([1.0], 0.0, 1.0, 1, 5, rng=5), "rng must be"),
        (lambda: svt.sparse_output_log_probabilities([0.0] * 13, 0.0, 1.0, 1),
         r"^answers must have at most 12 entries \(outputs are enumerated\), got 13$"),
        (lambda: svt.sparse_output_log_probabilities([0.0], 0.0, 1.0, 0), r"c must be an integer in \[1, 1000000\]"),
        (lambda: svt.sparse_output_log_probabilities([0.0], 0.0, 1.0, 1, delta=1.0), r"^delta must be in \[0, 1\)"),
        (lambda: svt.sparse_output_log_probabilities([0.0], np.inf, 1.0, 1), "threshold must be finite"),
        (lambda: svt.sparse_output_log_probabilities([], 0.0, 1.0, 1),
         r"^answers must be a non-empty 1-D sequence of query answers, got shape \(0,\)$"),
        (lambda: svt.sparse_output_log_probabilities([0.0, np.nan], 0.0, 1.0, 1), r"^answers must have finite entries"),
        (lambda: svt.sparse_max_log_ratio([0.0], [2.0], 0.0, 1.0, 1), "differ by at most 1"),
        (lambda: svt.numeric_sparse_epsilons(0.0), "epsilon must be > 0"),
        (lambda: svt.numeric_sparse_epsilons(1.0, 1.0), r"delta must be in \[0, 1\)"),
        (lambda: svt.numeric_sparse([1.0], 0.0, 1.0, 0, rng=RNG), r"c must be an integer in \[1, 1000000\]"),
        (lambda: svt.numeric_sparse([1.0], 0.0, 1.0, 1, rng=RNG, delta=-1.0), r"delta must be in \[0, 1\)"),
        (lambda: svt.numeric_sparse([1.0], 0.0, 0.0, 1, rng=RNG), "epsilon must be > 0"),
        (lambda: svt.numeric_sparse([1.0], 0.0, 1.0, 1, rng=None), "rng must be"),
        (lambda: svt.numeric_sparse([1.0], np.nan, 1.0, 1, rng=RNG), "threshold must be"),
        (lambda: svt.numeric_sparse_alpha(0, 1.0, 0.1, 1), "k must be an integer >= 1"),
        (lambda: svt.numeric_sparse_alpha(5, 1.0, 0.0, 1), r"beta must be in \(0, 1\)"),
        (lambda: svt.numeric_sparse_alpha(5, 1.0, 1.0, 1), r"beta must be in \(0, 1\), got 1"),
        (lambda: svt.numeric_sparse_alpha(5, 1.0, 0.1, 0), "c must be an integer >= 1"),
        (lambda: svt.numeric_log_density([0.0], 0.0, np.inf, threshold_scale=1.0, query_scale=1.0), "value must be"),
        (lambda: svt.numeric_log_density([0.0], np.inf, 0.0, threshold_scale=1.0, query_scale=1.0),
         r"^threshold must be finite"),
        (lambda: svt.numeric_log_density([0.0], 0.0, 0.0, threshold_scale=0.0, query_scale=1.0), "threshold_scale must be > 0"),
        (lambda: svt.numeric_log_density([0.0], 0.0, 0.0, threshold_scale=1.0, query_scale=-1.0), "query_scale must be > 0"),
        (lambda: svt.numeric_log_density([0.0], 0.0, 0.0, threshold_scale=1.0, query_scale=1.0, value_scale=0),
         "value_scale must be > 0"),
        (lambda: svt.numeric_log_density([], 0.0, 0.0, threshold_scale=1.0, query_scale=1.0), "answers must be"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_sparse_law_accepts_twelve_answers():
    outs, lp = svt.sparse_output_log_probabilities(np.linspace(-3, 3, 12), 0.0, 0.9, 1)
    assert len(outs) == 13 and np.exp(lp).sum() == pytest.approx(1.0, abs=1e-9)


def test_sparse_outputs_enumeration():
    # independent enumeration: all subsets of at most c positions
    k, c = 5, 3
    ours = {tuple(r) for r in svt._sparse_outputs(k, c).tolist()}
    ref = {tuple(list(s) + [k] * (c - len(s))) for j in range(c + 1) for s in itertools.combinations(range(k), j)}
    assert ours == ref and len(svt._sparse_outputs(k, c)) == len(ref)
    assert svt._sparse_outputs(2, 3).tolist() == [[2, 2, 2], [0, 2, 2], [1, 2, 2], [0, 1, 2]]


def test_neighbour_pairs_name_the_bad_argument_and_accept_a_gap_of_exactly_one():
    """max_log_ratio validates both answer vectors by name, and the sensitivity-1 check has a
    1e-12 tolerance: a gap of 1 + 1e-12 (float) passes, 1 + 1e-9 does not."""
    with pytest.raises(ValueError, match=r"^answers must be a non-empty 1-D sequence of query answers"):
        svt.max_log_ratio([], [0.0], 0.0, 0.7)
    with pytest.raises(ValueError, match=r"^answers_prime must have finite entries"):
        svt.max_log_ratio([0.0], [np.nan], 0.0, 0.7)
    edge = 1.0 + 1e-12
    value = svt.max_log_ratio([edge, 0.0], [0.0, 0.0], 0.0, 0.7)
    assert math.isfinite(value) and value > 0.0
    with pytest.raises(ValueError, match=r"^answers and answers_prime must differ by at most 1"):
        svt.max_log_ratio([1.0 + 1e-9, 0.0], [0.0, 0.0], 0.0, 0.7)


def test_advanced_per_query_epsilon_is_accurate_when_it_is_tiny():
    """Regression (found by tests/test_props_svt.py): brentq's absolute tolerance 1e-15 was a relative
    7e-8 of e0 = 1.35e-8 (eps = 1e-4, k = 1e6, delta' = 1e-12): the round trip missed eps by 6e-10."""
    e0 = svt.advanced_per_query_epsilon(1e-4, 10**6, 1e-12)
    assert composition.advanced(e0, 10**6, 1e-12)[0] == pytest.approx(1e-4, rel=1e-14, abs=0)


def test_accuracy_failure_probability_is_never_negative():
    """Regression (found by tests/test_props_svt.py, thorough profile): at k = 1, eps = 1, beta = 1e-9 the
    success probability integrates to 1 + 2e-16 and the failure probability came out -2.2e-16."""
    fail = svt.accuracy_failure_probability(1, 1.0, svt.accuracy_alpha(1, 1.0, 1e-9))
    assert 0.0 <= fail <= 1e-9 + 1e-11


# ----------------------------------------------------------------- extreme magnitudes: the exact laws
def laplace_diff_sf(d, b_t, b_q):
    """Pr[nu - eta >= d] for d >= 0, nu ~ Laplace(b_q), eta ~ Laplace(b_t), b_q != b_t: the closed form
    (b_q^2 e^(-d/b_q) - b_t^2 e^(-d/b_t)) / (2 (b_q^2 - b_t^2)), in mpmath (no underflow)."""
    d, b_t, b_q = mp.mpf(d), mp.mpf(b_t), mp.mpf(b_q)
    return (b_q ** 2 * mp.exp(-d / b_q) - b_t ** 2 * mp.exp(-d / b_t)) / (2 * (b_q ** 2 - b_t ** 2))


@pytest.mark.parametrize("threshold", [1e300, -1e300, 1e15])
def test_far_threshold_single_query_closed_form(threshold):
    """One query, the threshold far from it: Pr[top] = Pr[nu - eta >= T - f], the difference of two Laplace
    noises in closed form (mpmath, 60 digits). The old integrator searched for the peak over a window of
    width 1e300 and raised 'math domain error'."""
    mp.mp.dps = 60
    f, b_t, b_q = 0.25, 1.5, 4.5
    d = mp.mpf(threshold) - mp.mpf(f)
    tail = laplace_diff_sf(abs(d), b_t, b_q)             # the unlikely one of top and bottom
    top, bottom = (tail, 1 - tail) if d >= 0 else (1 - tail, tail)
    lp = svt.output_log_probabilities([f], threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
    for got, want in zip(lp, [mp.log(top), mp.log(bottom)]):
        assert got == pytest.approx(float(want), rel=1e-13, abs=1e-13)


def test_far_threshold_log_ratio_is_the_answers_shift_over_b_q():
    """Threshold 1e300 above the answers: both log-probabilities of a top are near -2e299 and equal as
    floats, yet their difference is exactly (f' - f)/b_q (the top's survival function is an exponential
    there); below them, the bottom's CDF is. The old code raised; a difference of the two floats gives 0."""
    b_t, b_q = 1.5, 4.5
    a, b = [0.0, 0.5], [1.0, -0.5]
    for threshold in (1e300, -1e300):
        assert svt.max_log_ratio(a, b, threshold, 1.0, threshold_scale=b_t, query_scale=b_q) == pytest.approx(
            1 / b_q, rel=1e-12)
        lp = svt.output_log_probabilities(a, threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
        lq = svt.output_log_probabilities(b, threshold, 1.0, threshold_scale=b_t, query_scale=b_q)
        assert np.max(np.abs(lp - lq)) < 1e-3       # the floats themselves cannot show it
    # Sparse, one round per output: the same
    r = svt.sparse_max_log_ratio([0.0, 2.0], [1.0, 1.0], 1e300, 1.0, 1, threshold_scale=b_t, query_scale=b_q)
    assert r == pytest.approx(1 / b_q, rel=1e-12, abs=0)


@pytest.mark.parametrize("b_t", [5e-324, 1e-300])
def test_threshold_without_noise_closed_form(b_t):
    """threshold_scale 1e-300 or 5e-324: the threshold is T itself (the error is of order b_t/b_q), and the
    queries are independent given it. The old integrator returned log-probabilities of +669 at 1e-300 and
    raised at 5e-324."""
    b_q, T = 4.5, 0.5
    sf = lambda x: 0.5 * math.exp(-x / b_q) if x >= 0 else 1 - 0.5 * math.exp(x / b_q)  # noqa: E731
    want = [math.log(sf(T - 0.0)), math.log((1 - sf(T - 0.0)) * sf(T - 1.0)),
            math.log((1 - sf(T - 0.0)) * (1 - sf(T - 1.0)))]
    lp = svt.output_log_probabilities([0.0, 1.0], T, 1.0, threshold_scale=b_t, query_scale=b_q)
    np.testing.assert_allclose(lp, want, rtol=1e-12)
    # and the largest log-ratio against [1, 0.5]: every output's ratio from the same closed form
    lq = [math.log(sf(T - 1.0)), math.log((1 - sf(T - 1.0)) * sf(T - 0.5)),
          math.log((1 - sf(T - 1.0)) * (1 - sf(T - 0.5)))]
    r = svt.max_log_ratio([0.0, 1.0], [1.0, 0.5], T, 1.0, threshold_scale=b_t, query_scale=b_q)
    assert r == pytest.approx(max(abs(x - y) for x, y in zip(want, lq)), rel=1e-12)


@pytest.mark.parametrize("b_q", [5e-324, 1e-300])
def test_queries_without_noise_closed_form(b_q):
    """query_scale 1e-300 or 5e-324: each comparison is the answer against the noisy threshold, so the law
    is the threshold's Laplace CDF between the answers. The old integrator returned nan or raised."""
    b_t, T = 2.0, 0.5
    cdf = lambda x: 0.5 * math.exp(x / b_t) if x < 0 else 1 - 0.5 * math.exp(-x / b_t)  # noqa: E731
    want = [math.log(cdf(0.0 - T)), math.log(cdf(1.0 - T) - cdf(0.0 - T)), math.log(1 - cdf(1.0 - T))]
    lp = svt.output_log_probabilities([0.0, 1.0], T, 1.0, threshold_scale=b_t, query_scale=b_q)
    np.testing.assert_allclose(lp, want, rtol=1e-12)
    r = svt.max_log_ratio([0.0], [1.0], T, 1.0, threshold_scale=b_t, query_scale=b_q)
    assert r == pytest.approx(math.log(cdf(1.0 - T) / cdf(0.0 - T)), rel=1e-12)   # the top; the bottom: the same


def test_queries_without_noise_sparse_ratio_of_an_almost_impossible_output():
    """query_scale 5e-324: on D' = [1, 1] the output 'bottom, then top' needs 1 + nu_1 < T_hat <= 1 + nu_2, of
    probability p_T(1) E[(nu_2 - nu_1)^+] = p_T(1) 3 b_q/4 to first order in b_q/b_t; on D = [0, 2] it is
    Pr[0 < T_hat <= 2]. The log-ratio, 745.38, is finite; the old code raised 'math domain error'."""
    b_t, b_q, T = 2.0, 5e-324, 0.5
    cdf = lambda x: 0.5 * math.exp(x / b_t) if x < 0 else 1 - 0.5 * math.exp(-x / b_t)  # noqa: E731
    p_d = cdf(2.0 - T) - cdf(0.0 - T)
    log_p_dprime = -abs(1.0 - T) / b_t - math.log(2 * b_t) + math.log(0.75) + math.log(b_q)
    r = svt.sparse_max_log_ratio([0.0, 2.0], [1.0, 1.0], T, 1.0, 1, threshold_scale=b_t, query_scale=b_q)
    assert r == pytest.approx(math.log(p_d) - log_p_dprime, rel=1e-12, abs=0)


def test_huge_threshold_scale_spreads_the_threshold():
    """threshold_scale 1e300: the threshold is below or above both answers with probability 1/2 each, and
    between them with probability p_T(0.5) E[(1 + nu_2 - nu_1)^+] (mpmath); the old integrator gave
    log-probabilities [-685.5, -690.2, -686.7], a law of total mass e^-685."""
    mp.mp.dps = 30
    b = mp.mpf(4)
    density = lambda z: mp.exp(-z / b) * (b + z) / (4 * b * b)  # noqa: E731  (nu_2 - nu_1, |z| = z)
    mean_plus = 1 + mp.quad(lambda z: (z - 1) * density(z), [1, mp.inf])
    lp = svt.output_log_probabilities([0.0, 1.0], 0.5, 1.0, threshold_scale=1e300, query_scale=4.0)
    np.testing.assert_allclose(lp, [math.log(0.5), float(mp.log(mean_plus / mp.mpf(2e300))), math.log(0.5)],
                               rtol=1e-12)


def test_failure_probability_at_extreme_alpha_and_threshold_scale():
    """alpha = 1e300: the hardest stream's answers are 1e300 from the threshold, success is certain up to
    e^(-2e299): the failure probability is 0 (the old code raised). threshold_scale 5e-324: the threshold is 0,
    so success is (1 - e^(-alpha/b_q)/2)^k (answers at -alpha below, the last at +alpha above)."""
    assert svt.accuracy_failure_probability(3, 1.0, 1e300) == 0.0
    k, alpha, b_q = 3, 7.0, 4.5
    want = -math.expm1(k * math.log1p(-0.5 * math.exp(-alpha / b_q)))
    got = svt.accuracy_failure_probability(k, 1.0, alpha, threshold_scale=5e-324, query_scale=b_q)
    assert got == pytest.approx(want, rel=1e-11, abs=0)


def test_numeric_log_density_far_threshold():
    """threshold 1e300 above the answers: the density of 'bottom, then the last released as v' is the
    value's Laplace density times Pr[bottom, top]; the top's probability is e^(-(T - f)/b_q) up to a
    constant, so the log-density is -(1e300)/b_q to float precision (the old code raised). The reused
    noise pins T_hat <= v: its log-density is about -(T - v)/b_t."""
    fresh = svt.numeric_log_density([0.0, 0.5], 1e300, 1.0, threshold_scale=2.0, query_scale=4.5, value_scale=9.0)
    assert fresh == pytest.approx(-1e300 / 4.5, rel=1e-15, abs=0)
    reused = svt.numeric_log_density([0.0, 0.5], 1e300, 1.0, threshold_scale=2.0, query_scale=4.5)
    assert reused == pytest.approx(-1e300 / 2.0, rel=1e-15, abs=0)


def test_search_worst_case_at_extreme_spread_and_scale():
    """spread 1e300 puts the answers near +-1e300, where a change of 1 is lost in rounding: the search
    reports what max_log_ratio says of the pair it returns (the old code raised 'math domain error');
    threshold_scale 5e-324 (no threshold noise) is searched like any other."""
    for kw in (dict(spread=1e300), dict(threshold_scale=5e-324, query_scale=4.0)):
        r, a, b = svt.search_worst_case(1, 1.0, rng=np.random.default_rng(3), n_starts=1, maxfev=20, **kw)
        assert math.isfinite(r)
        scales = {k: v for k, v in kw.items() if k != "spread"}
        assert svt.max_log_ratio(a, b, 0.0, 1.0, **scales) == r


# ----------------------------------------------------------------- extreme magnitudes: budgets and accuracy
def mp_per_query_epsilon(epsilon, k, delta_prime):
    """The root of e0 sqrt(2k log(1/delta')) + k e0 (e^e0 - 1) = epsilon, by mpmath at 50 digits (the root
    is near epsilon/sqrt(2k log(1/delta')) when small, near log(epsilon/k) when large)."""
    mp.mp.dps = 50
    eps, s = mp.mpf(epsilon), mp.sqrt(2 * k * mp.log(1 / mp.mpf(delta_prime)))
    g = lambda x: mp.exp(x) * (s + k * mp.expm1(mp.exp(x))) - eps  # noqa: E731  (x = log e0)
    lo, hi = mp.mpf(-1000), mp.mpf(10)
    for _ in range(250):                 # bisection on log e0: no starting point to choose
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if g(mid) < 0 else (lo, mid)
    return mp.exp(lo)


@pytest.mark.parametrize("epsilon, k, delta_prime", [(1e300, 100, 1e-6), (1e-300, 100, 1e-6), (1.0, 100, 5e-324),
                                                      (0.3, 1, 0.9), (1e-300, 7, 1 - 2 ** -52)])
def test_advanced_per_query_epsilon_at_extreme_magnitudes(epsilon, k, delta_prime):
    """Against a 50-digit bisection. The old code called brentq on [1e-300, epsilon] with composition.advanced,
    whose e^e0 overflowed at epsilon = 1e300 (OverflowError), whose log(1/delta') is log(inf) at delta' =
    5e-324, and whose bracket had no sign change at epsilon = 1e-300 or when the root exceeds epsilon
    (delta' = 0.9: e0 = 0.3446 for epsilon = 0.3)."""
    root = mp_per_query_epsilon(epsilon, k, delta_prime)
    assert svt.advanced_per_query_epsilon(epsilon, k, delta_prime) == pytest.approx(float(root), rel=1e-13, abs=0)
    alpha = svt.laplace_alpha(k, epsilon, 0.1, method="advanced", delta_prime=delta_prime)
    assert alpha == pytest.approx(float(mp.log(k / mp.mpf(0.1)) / root), rel=1e-13)


def test_budget_below_the_smallest_float():
    """epsilon = 5e-324: the per-query epsilon is 5e-324/52.6, below the smallest float: 0.0; the accuracy
    log(k/beta)/e0 is then beyond the largest float: inf, for both splits (the old code raised: no sign
    change in brentq's bracket, and epsilon/k = 0 divided). beta = 5e-324: log(k/beta) is log k + 744.44,
    not log(inf)."""
    assert float(mp_per_query_epsilon(5e-324, 100, 1e-6)) < 2.5e-324
    assert svt.advanced_per_query_epsilon(5e-324, 100, 1e-6) == 0.0
    assert svt.laplace_alpha(10, 5e-324, 0.1, method="advanced", delta_prime=1e-6) == math.inf
    assert svt.laplace_alpha(10, 5e-324, 0.1) == math.inf
    assert svt.laplace_alpha(10, 1.0, 5e-324) == pytest.approx(10 * (math.log(10) - math.log(5e-324)), rel=1e-15)


def test_accuracy_alphas_at_extreme_magnitudes():
    """Theorem 3.24/3.26/3.28's alphas with every log from its own argument (mpmath at 30 digits). The old
    code took log(2c/beta) of an overflowed quotient (inf at beta = 5e-324, for a finite alpha), log(1/delta)
    of 1/5e-324 = inf (ZeroDivisionError: eps0 = epsilon/inf), and divided by epsilon/c = 0 at 5e-324."""
    mp.mp.dps = 30
    k, c, beta, tiny = 10, 3, mp.mpf(0.1), mp.mpf(5e-324)
    want = 8 * (mp.log(k) + mp.log(2 / tiny)) / mp.mpf(0.7)
    assert svt.accuracy_alpha(k, 0.7, 5e-324) == pytest.approx(float(want), rel=1e-14, abs=0)
    want = 8 * (mp.log(k) + mp.log(2 * c / beta)) * mp.sqrt(8 * c * mp.log(1 / tiny)) / mp.mpf(0.7)
    assert svt.sparse_alpha(k, 0.7, 0.1, c, delta=5e-324) == pytest.approx(float(want), rel=1e-14, abs=0)
    want = 8 * (mp.log(k) + mp.log(2 * c / tiny)) * c / mp.mpf(0.7)
    assert svt.sparse_alpha(k, 0.7, 5e-324, c) == pytest.approx(float(want), rel=1e-14, abs=0)
    # alpha itself beyond the largest float: inf (8 (log 10 + log 60) c / 5e-324 = 1.1e325)
    for fn in (svt.accuracy_alpha, lambda *a: svt.sparse_alpha(*a, c, 1e-6),
               lambda *a: svt.numeric_sparse_alpha(*a, c)):
        assert fn(k, 5e-324, 0.1) == math.inf


def test_numeric_sparse_alpha_at_a_subnormal_delta():
    """delta = 5e-324 halves to 0.0, which the old code passed on as delta/2: the comparisons got the pure-DP
    calibration c/eps1 and the values 2c/eps2, far below Theorem 3.28's sqrt(32 c log(2/delta)) scales. The
    alpha is the larger of 8 (log k + log(4c/beta)) sqrt(8 c log(2/delta))/eps1 and sigma(eps2) log(2c/beta)."""
    mp.mp.dps = 30
    k, eps, beta, c, delta = 10, mp.mpf(1), mp.mpf(0.1), 2, mp.mpf(5e-324)
    root = mp.sqrt(512)
    eps1, eps2 = root * eps / (root + 1), 2 * eps / (root + 1)
    log2d = mp.log(2 / delta)
    comparisons = 8 * (mp.log(k) + mp.log(4 * c / beta)) * mp.sqrt(8 * c * log2d) / eps1
    values = mp.sqrt(32 * c * log2d) / eps2 * mp.log(2 * c / beta)
    assert svt.numeric_sparse_alpha(k, 1.0, 0.1, c, 5e-324) == pytest.approx(float(max(comparisons, values)), rel=1e-14)


def test_samplers_at_a_subnormal_delta_use_its_log():
    """delta = 5e-324: Sparse's sigma is sqrt(32 c log(1/delta))/eps with log(1/delta) = 744.44 (the old code
    took log(1/5e-324) = log(inf): infinite noise), and NumericSparse's release noise sigma(eps2) uses
    log(2/delta) = 745.13 (the old code halved delta to 0 and released with the pure-DP 2c/eps2, a noise 54
    times too small). Checked on the noise of the seed, as the coupling tests above."""
    c, eps, delta = 2, 0.9, 5e-324
    log1 = -math.log(delta)                           # log(1/delta), 1/delta overflowing
    sigma = math.sqrt(32 * c * log1) / eps
    stream = (sigma * np.array(STREAM)).tolist()
    for seed in range(40):
        out = svt.sparse(stream, 0.2, eps, c, rng=np.random.default_rng(seed), delta=delta)
        tops = reference_sparse(stream, 0.2, sigma, 2 * sigma, c, std_laplace(seed, c * (len(STREAM) + 1)))
        hits = [t for t in tops if t < len(STREAM)]
        assert out.tolist() == [i in hits for i in range(hits[-1] + 1 if len(hits) == c else len(STREAM))]
    root = math.sqrt(512)
    eps1, eps2 = root * eps / (root + 1), 2 * eps / (root + 1)
    log2 = math.log(2) - math.log(delta)
    s1, s2 = math.sqrt(32 * c * log2) / eps1, math.sqrt(32 * c * log2) / eps2
    k, released = len(STREAM), 0
    stream = s1 * np.array(STREAM)
    for seed in range(40):
        out = svt.numeric_sparse(stream, 0.2, eps, c, rng=np.random.default_rng(seed), delta=delta)
        z = std_laplace(seed, c * (k + 1) + c)
        hits = [t for t in reference_sparse(stream, 0.2, s1, 2 * s1, c, z) if t < k]
        assert np.flatnonzero(~np.isnan(out)).tolist() == hits
        np.testing.assert_allclose(out[hits] - stream[hits], s2 * z[c * (k + 1):][:len(hits)], rtol=1e-12)
        released += len(hits)
    assert released > 10


@pytest.mark.parametrize("call, least", [
    (lambda e: svt.above_threshold([1.0], 0.0, e, rng=RNG), 4 / (sys.float_info.max / 64)),
    (lambda e: svt.sample_outputs([1.0], 0.0, e, 3, rng=RNG), 4 / (sys.float_info.max / 64)),
    (lambda e: svt.simulate_accuracy_failure(2, e, 1.0, 3, rng=RNG), 4 / (sys.float_info.max / 64)),
    (lambda e: svt.sparse([1.0], 0.0, e, 3, rng=RNG), 12 / (sys.float_info.max / 64)),
    (lambda e: svt.sample_sparse([1.0], 0.0, e, 3, 2, rng=RNG), 12 / (sys.float_info.max / 64)),
    (lambda e: svt.numeric_sparse([1.0], 0.0, e, 3, rng=RNG), 27 / (sys.float_info.max / 64)),
])
def test_samplers_refuse_a_noise_beyond_the_floats(call, least):
    """A Laplace draw is at most 36.05 scales from 0; from a scale of max/64 = 2.81e306 on, draws overflow to
    +-inf and two of them compare as equal infinities: at epsilon = 5e-324 (scales inf) the old samplers
    reported a top at the first query 3/4 of the time where the truth is 1/2, and NumericSparse raised
    ZeroDivisionError. The least epsilon is the largest noise's numerator over 2.81e306 (4, 4c = 12 for the
    query noise of Sparse, and 9c = 27 for NumericSparse's release), named in the message; it samples."""
    with pytest.raises(ValueError, match=rf"^epsilon must be >= {least:.4g} to sample"):
        call(5e-324)
    with pytest.raises(ValueError, match="^epsilon must be >="):
        call(least * (1 - 1e-9))
    call(least * (1 + 1e-9))
    with pytest.raises(ValueError, match=r"^query_scale must be in \(0, 2.81e\+306\] to sample"):
        svt.sample_outputs([1.0], 0.0, 1.0, 3, rng=RNG, query_scale=1e307)


def test_laws_at_a_subnormal_epsilon_are_the_limit_laws():
    """epsilon = 5e-324: the default scales 2/eps and 4/eps overflow; the law, scale-free, is read in units of
    2^64, and the answers (0 and 1 against a noise of 8e323) coincide with the threshold: the law of answers at
    the threshold, which mpmath integrates at scales 2 and 4. The old code returned [-inf, -inf, -inf] and a
    log-ratio of nan; accuracy_failure_probability's hardest stream collapses the same way (43/48)."""
    want = [math.log(mp_output_probability([0.0, 0.0], 0.0, 1.0, o)) for o in range(3)]
    np.testing.assert_allclose(svt.output_log_probabilities([0.0, 1.0], 0.5, 5e-324), want, rtol=1e-10)
    assert svt.max_log_ratio([0.0, 1.0], [1.0, 0.5], 0.5, 5e-324) == 0.0
    success = mp_pattern([0.0, 0.0], [0.0], 0.0, 2.0, 4.0)
    assert svt.accuracy_failure_probability(3, 5e-324, 1.0) == pytest.approx(1 - success, rel=1e-10, abs=0)
    _, lp = svt.sparse_output_log_probabilities([0.0, 1.0], 0.5, 5e-324, 2)
    np.testing.assert_allclose(lp, svt.sparse_output_log_probabilities([0.0, 0.0], 0.0, 1.0, 2)[1], rtol=1e-12)
    # the search's default spread 8/epsilon is not a float there: refused by name (was 'answers must be finite')
    with pytest.raises(ValueError, match=r"^epsilon must be >= 4.45e-308 when spread is not given"):
        svt.search_worst_case(1, 5e-324, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^epsilon must be >= 2.225e-308 when threshold_scale = 5e-324 is given"):
        svt.output_log_probabilities([0.0], 0.5, 5e-324, threshold_scale=5e-324)


def test_sparse_output_below_the_floats_is_minus_inf():
    """Threshold -1e300 and both scales 1e-8: a bottom costs about -1e300/1e-8 = -1e308 in log-probability
    (moving the query's noise or the threshold's), and the output 'bottom, top, bottom, top' of Sparse
    (c = 2, two rounds) -2e308: below the floats, -inf. Adding the rounds with math.fsum raised OverflowError
    ('intermediate overflow in fsum'); the other outputs still make a law."""
    outs, lp = svt.sparse_output_log_probabilities([0.0, 1.0, 2.0, 3.0], -1e300, 1.0, 2, threshold_scale=1e-8,
                                                   query_scale=1e-8)
    rows = outs.tolist()
    assert lp[rows.index([1, 3])] == -math.inf
    assert lp[rows.index([0, 2])] == pytest.approx(-1e308, rel=1e-12, abs=0)          # one bottom: -(1 + 1e300)/1e-8
    assert math.fsum(np.exp(lp)) == pytest.approx(1.0, abs=1e-12)


def test_huge_counts_are_refused_by_name():
    """At 2**31 these allocated 16 GiB or more (MemoryError) or ran for minutes; each is capped."""
    rng = np.random.default_rng(0)
    cases = [
        (lambda v: svt.sample_outputs([-5.0, 5.0], 0.5, 1.0, v, rng=rng), "size", 10**7),
        (lambda v: svt.search_worst_case(1, 1.0, rng=rng, n_starts=v, maxfev=3), "n_starts", 10**4),
        (lambda v: svt.accuracy_failure_probability(v, 1.0, 20.0), "k", 10**6),
        (lambda v: svt.simulate_accuracy_failure(v, 1.0, 20.0, 10, rng=rng), "k", 10**6),
        (lambda v: svt.simulate_accuracy_failure(3, 1.0, 20.0, v, rng=rng), "n_runs", 10**7),
        (lambda v: svt.sparse([5.0, -5.0], 0.5, 1.0, v, rng=rng), "c", 10**6),
        (lambda v: svt.numeric_sparse([5.0, -5.0], 0.5, 1.0, v, rng=rng), "c", 10**6),
        (lambda v: svt.sample_sparse([5.0, -5.0], 0.5, 1.0, v, 3, rng=rng), "c", 10**6),
        (lambda v: svt.sample_sparse([5.0, -5.0], 0.5, 1.0, 2, v, rng=rng), "size", 10**7),
        (lambda v: svt.sparse_output_log_probabilities([0.0, 3.0], 0.5, 1.0, v), "c", 10**6),
        (lambda v: svt.sparse_max_log_ratio([0.0, 2.0], [1.0, 1.0], 0.5, 1.0, v), "c", 10**6),
    ]
    for call, name, high in cases:
        for value in (2**31, 2**62):
            with pytest.raises(ValueError) as info:
                call(value)
            assert str(info.value) == f"{name} must be an integer in [1, {high}], got {value}"
    assert 0.0 <= svt.accuracy_failure_probability(10**6, 1.0, 20.0) <= 1.0
