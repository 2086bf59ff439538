"""Unit tests of dpnotes.flawed: the published (and broken) mechanisms are implemented as
published. Noise is checked exactly by recomputing it from the same seed; output laws
against exact probabilities computed independently (dpnotes.svt's quadrature, mpmath,
scipy.stats, closed forms)."""

import math
import re
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, stats

from dpnotes import flawed, svt


def lap_from_seed(rng, scale, shape):
    """The documented recipe: scale * sign * E, E drawn first, then the signs as bits of bytes."""
    e = rng.standard_exponential(shape)
    n = int(np.prod(shape))
    raw = np.frombuffer(rng.bytes((n + 7) // 8), dtype=np.uint8)
    sign = np.array([1.0 - 2.0 * ((byte >> (7 - j)) & 1) for byte in raw for j in range(8)][:n])
    return scale * e * sign.reshape(shape)


# ----------------------------------------------------------------- Laplace noise
def test_laplace_noise_coupled_and_distributed():
    z = flawed.laplace_noise(1.7, (400, 3), np.random.default_rng(11))
    np.testing.assert_array_equal(z, lap_from_seed(np.random.default_rng(11), 1.7, (400, 3)))
    big = flawed.laplace_noise(0.6, 200_000, np.random.default_rng(12))
    assert stats.kstest(big, stats.laplace(scale=0.6).cdf).pvalue > 1e-3
    assert stats.kstest(big, stats.laplace(scale=0.6 * 1.05).cdf).pvalue < 1e-6   # scale matters


def test_laplace_noise_rejects():
    with pytest.raises(ValueError, match="scale"):
        flawed.laplace_noise(0.0, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        flawed.laplace_noise(1.0, 3, 0)


# ----------------------------------------------------------------- Lyu et al.'s six algorithms
def test_noise_scales_follow_the_published_budget_split():
    eps, c = 0.3, 3
    e1, e2 = eps / 2, eps - eps / 2            # Algorithms 1, 2, 3, 5, 6
    f1, f2 = eps / 4, eps - eps / 4            # Algorithm 4
    expect = {1: (1 / e1, 2 * c / e2), 2: (c / e1, 2 * c / e1), 3: (1 / e1, c / e2),
              4: (1 / f1, 1 / f2), 5: (1 / e1, 0.0), 6: (1 / e1, 1 / e2)}
    for alg, (bt, bq) in expect.items():
        got = flawed.lyu_noise_scales(alg, eps, c)
        assert got == pytest.approx((bt, bq), rel=1e-12, abs=0), alg


def test_algorithm_5_is_exactly_a_comparison_with_a_noisy_threshold():
    answers, T, eps = np.array([0.3, -1.0, 2.5, 0.9]), 0.4, 0.7
    out = flawed.sparse_vector_variant(answers, T, eps, 1000, rng=np.random.default_rng(3), algorithm=5)
    rho = lap_from_seed(np.random.default_rng(3), 2 / eps, 1000)
    np.testing.assert_array_equal(out, (answers >= T + rho[:, None]).astype(np.int8))


def test_algorithm_6_is_exactly_noisy_answers_against_a_noisy_threshold():
    answers, T, eps = np.array([0.3, -1.0, 2.5]), -0.2, 0.7
    out = flawed.sparse_vector_variant(answers, T, eps, 500, rng=np.random.default_rng(4), algorithm=6)
    rng = np.random.default_rng(4)
    rho = lap_from_seed(rng, 2 / eps, 500)
    nu = lap_from_seed(rng, 2 / eps, (500, 3))
    np.testing.assert_array_equal(out, (answers + nu >= T + rho[:, None]).astype(np.int8))


def test_algorithm_3_releases_the_noisy_answer_exactly():
    answers, T, eps = np.array([1.5]), 0.5, 0.4
    out = flawed.sparse_vector_variant(answers, T, eps, 800, rng=np.random.default_rng(5), algorithm=3, c=2)
    rng = np.random.default_rng(5)
    rho = lap_from_seed(rng, 2 / eps, 800)
    nu = lap_from_seed(rng, 2 * 2 / eps, 800)          # query noise Lap(2c/eps), c = 2
    noisy = answers[0] + nu
    np.testing.assert_array_equal(out[:, 0], np.where(noisy >= T + rho, noisy, -np.inf))


def o_of(patterns):
    """The number of bottoms before the first top (k if none)."""
    top = patterns == 1
    return np.where(top.any(axis=1), top.argmax(axis=1), patterns.shape[1])


@pytest.mark.parametrize("alg", [1, 2, 4])
def test_cutoff_one_variants_match_the_exact_above_threshold_law(alg):
    """With c = 1, Algorithms 1, 2 and 4 are AboveThreshold with their own noise scales;
    dpnotes.svt computes that law exactly by quadrature."""
    answers, T, eps, n = np.array([0.5, -1.0, 2.0, 0.0]), 0.7, 0.9, 200_000
    out = flawed.sparse_vector_variant(answers, T, eps, n, rng=np.random.default_rng(alg), algorithm=alg)
    bt, bq = flawed.lyu_noise_scales(alg, eps)
    exact = np.exp(svt.output_log_probabilities(answers, T, eps, threshold_scale=bt, query_scale=bq))
    freq = np.bincount(o_of(out), minlength=5) / n
    assert np.all(np.abs(freq - exact) < 5 * np.sqrt(exact * (1 - exact) / n))
    # after the top nothing is answered
    o = o_of(out)
    for row, k in zip(out[:50], o[:50]):
        assert np.all(row[:k] == 0) and (k == 4 or (row[k] == 1 and np.all(row[k + 1:] == -1)))


def test_algorithm_2_redraws_its_threshold_after_a_top():
    """Two queries, c = 2: Pr[top, top] = P1 * P2 with an independent fresh threshold for the
    second query (one-dimensional integrals with scipy.stats); with the same threshold it would
    be larger (both tops favour a low threshold)."""
    q, T, eps, n = np.array([0.5, 1.0]), 0.8, 1.0, 300_000
    bt, bq = flawed.lyu_noise_scales(2, eps, 2)
    rho, nu = stats.laplace(scale=bt), stats.laplace(scale=bq)

    def p_top(f):
        return integrate.quad(lambda r: rho.pdf(r) * nu.sf(T + r - f), -np.inf, np.inf, limit=200)[0]

    fresh = p_top(q[0]) * p_top(q[1])
    same = integrate.quad(lambda r: rho.pdf(r) * nu.sf(T + r - q[0]) * nu.sf(T + r - q[1]), -np.inf, np.inf)[0]
    out = flawed.sparse_vector_variant(q, T, eps, n, rng=np.random.default_rng(9), algorithm=2, c=2)
    freq = np.mean(np.all(out == 1, axis=1))
    assert abs(freq - fresh) < 5 * math.sqrt(fresh / n)
    assert abs(freq - same) > 10 * math.sqrt(same / n)


def reference_loop(answers, T, eps, size, seed, alg, c):
    """Algorithms 1-4 written run by run from the published pseudocode, drawing the same numbers
    in the same order as dpnotes (threshold noise for all runs first, then query by query the
    noise of the runs still going)."""
    bt, bq = flawed.lyu_noise_scales(alg, eps, c)
    rng = np.random.default_rng(seed)
    rho = lap_from_seed(rng, bt, size)
    k = len(answers)
    out = [[None] * k for _ in range(size)]
    count = [0] * size
    for i in range(k):
        going = [r for r in range(size) if count[r] < c]
        if not going:
            break
        nu = lap_from_seed(rng, bq, len(going))
        hits = []
        for r, z in zip(going, nu):
            noisy = answers[i] + z
            if noisy >= T + rho[r]:
                out[r][i] = noisy if alg == 3 else 1
                count[r] += 1
                hits.append(r)
            else:
                out[r][i] = -np.inf if alg == 3 else 0
        if alg == 2 and hits:                     # Sparse: a fresh threshold after each top
            rho[hits] = lap_from_seed(rng, bt, len(hits))
    fill = np.nan if alg == 3 else -1
    return np.array([[fill if v is None else v for v in row] for row in out], dtype=float)


@pytest.mark.parametrize("alg,c", [(1, 1), (3, 1), (4, 1), (1, 2), (2, 2), (2, 3), (3, 3), (4, 2)])
def test_cutoff_variants_equal_a_run_by_run_implementation(alg, c):
    answers = np.array([0.4, -0.7, 1.3, 0.2, -0.1])
    got = flawed.sparse_vector_variant(answers, 0.3, 0.8, 300, rng=np.random.default_rng(alg + 10 * c),
                                       algorithm=alg, c=c)
    ref = reference_loop(answers, 0.3, 0.8, 300, alg + 10 * c, alg, c)
    np.testing.assert_array_equal(np.asarray(got, dtype=float), ref)


def test_cutoff_c_stops_after_c_tops():
    out = flawed.sparse_vector_variant(np.full(8, 100.0), 0.0, 1.0, 20, rng=np.random.default_rng(1),
                                       algorithm=1, c=3)
    assert np.all(out[:, :3] == 1) and np.all(out[:, 3:] == -1)
    out3 = flawed.sparse_vector_variant(np.full(4, 100.0), 0.0, 1.0, 5, rng=np.random.default_rng(1),
                                        algorithm=3, c=2)
    assert np.all(np.isfinite(out3[:, :2])) and np.all(np.isnan(out3[:, 2:]))
    # no query reached: all bottoms, and the next answers are still asked
    low = flawed.sparse_vector_variant(np.full(3, -1e6), 0.0, 1.0, 5, rng=np.random.default_rng(1), algorithm=4)
    assert np.all(low == 0)


@pytest.mark.parametrize("kw,match", [
    (dict(algorithm=7), "algorithm"), (dict(algorithm=0), "algorithm"),
    (dict(algorithm=1, c=0), "c must be"), (dict(algorithm=1, size=0), "size"),
])
def test_sparse_vector_variant_rejects(kw, match):
    args = dict(algorithm=1, size=3)
    args.update(kw)
    size = args.pop("size")
    with pytest.raises(ValueError, match=match):
        flawed.sparse_vector_variant([0.0], 0.0, 1.0, size, rng=np.random.default_rng(0), **args)
    with pytest.raises(ValueError, match="answers"):
        flawed.sparse_vector_variant([np.nan], 0.0, 1.0, 3, rng=np.random.default_rng(0), algorithm=1)


def test_lyu_privacy():
    assert flawed.lyu_privacy(1, 0.3) == 0.3 and flawed.lyu_privacy(2, 0.3, c=5) == 0.3
    assert flawed.lyu_privacy(4, 0.3, c=2) == pytest.approx((1 + 12) / 4 * 0.3, rel=1e-14, abs=0)
    assert all(math.isinf(flawed.lyu_privacy(a, 0.3)) for a in (3, 5, 6))


def test_algorithm_4_bound_is_attained_in_the_limit():
    """The family of the sparse-vector page (earlier queries up by 1, the last down by 1),
    computed exactly with dpnotes.svt, approaches 7 eps / 4 from below (c = 1)."""
    eps = 0.4
    bt, bq = flawed.lyu_noise_scales(4, eps)
    m = 14
    x = np.append(np.full(m, 40.0), -40.0)
    loss = svt.max_log_ratio(x, np.append(np.full(m, 41.0), -41.0), 0.0, eps, threshold_scale=bt, query_scale=bq)
    assert flawed.lyu_privacy(4, eps) - 0.02 < loss <= flawed.lyu_privacy(4, eps) + 1e-9


# ----------------------------------------------------------------- exact pattern laws (no cut-off)
def test_pattern_probabilities_sum_to_one_and_match_sampling():
    answers, T, eps = np.array([0.5, -0.3, 1.2]), 0.2, 0.8
    pats = np.array([[(i >> j) & 1 for j in range(3)] for i in range(8)])
    for alg in (5, 6):
        lp = flawed.no_cutoff_pattern_log_probabilities(answers, T, eps, pats, algorithm=alg)
        assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-9)
        out = flawed.sparse_vector_variant(answers, T, eps, 200_000, rng=np.random.default_rng(alg), algorithm=alg)
        code = out @ (1 << np.arange(3))
        freq = np.bincount(code, minlength=8) / 200_000
        p = np.exp(lp)
        assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / 200_000) + 1e-12)


def test_pattern_probability_matches_mpmath():
    answers, T, eps = [0.5, -0.3], 0.2, 0.8
    bt, bq = mp.mpf(2) / eps, mp.mpf(2) / eps
    mp.mp.dps = 30

    def cdf(u, b):
        return mp.exp(u / b) / 2 if u < 0 else 1 - mp.exp(-u / b) / 2

    f = lambda u: mp.exp(-abs(u - T) / bt) / (2 * bt) * (1 - cdf(u - answers[0], bq)) * cdf(u - answers[1], bq)
    ref = mp.quad(f, [-mp.inf, -0.3, 0.2, 0.5, mp.inf])
    lp = flawed.no_cutoff_pattern_log_probabilities(answers, T, eps, [[1, 0]], algorithm=6)
    assert math.exp(lp[0]) == pytest.approx(float(ref), rel=1e-8, abs=0)


def test_algorithm_5_counterexample_is_infinite():
    # x = (1, 0), x' = (0, 1): the pattern (top, bottom) is possible on x only
    lx = flawed.no_cutoff_pattern_log_probabilities([1.0, 0.0], 1.0, 0.1, [[1, 0]], algorithm=5)
    lxp = flawed.no_cutoff_pattern_log_probabilities([0.0, 1.0], 1.0, 0.1, [[1, 0]], algorithm=5)
    assert np.isneginf(lxp[0])
    # Pr = Pr[0 < T + rho <= 1] with rho ~ Lap(20)
    assert math.exp(lx[0]) == pytest.approx(stats.laplace.cdf(0, scale=20) - stats.laplace.cdf(-1, scale=20), rel=1e-12, abs=0)


def test_pattern_probabilities_reject():
    with pytest.raises(ValueError, match="patterns"):
        flawed.no_cutoff_pattern_log_probabilities([0.0, 1.0], 0.0, 1.0, [[1, 2]], algorithm=6)
    with pytest.raises(ValueError, match="algorithm"):
        flawed.no_cutoff_pattern_log_probabilities([0.0], 0.0, 1.0, [[1]], algorithm=4)


# ----------------------------------------------------------------- report noisy max
def test_noisy_max_exact_by_coupling():
    a, eps = np.array([0.0, 2.0, -1.0, 1.5]), 0.6
    idx = flawed.noisy_max(a, eps, 300, rng=np.random.default_rng(2))
    val = flawed.noisy_max(a, eps, 300, rng=np.random.default_rng(2), release="value")
    z = a[:, None] + lap_from_seed(np.random.default_rng(2), 2 / eps, (4, 300))     # answer by answer
    np.testing.assert_array_equal(idx, z.argmax(axis=0))
    np.testing.assert_array_equal(val, z.max(axis=0))
    ve = flawed.noisy_max(a, eps, 300, rng=np.random.default_rng(2), noise="exponential", release="value")
    ze = a[:, None] + (2 / eps) * np.random.default_rng(2).standard_exponential((4, 300))
    np.testing.assert_array_equal(ve, ze.max(axis=0))


def test_noisy_max_rejects():
    with pytest.raises(ValueError, match="noise"):
        flawed.noisy_max([0.0], 1.0, 2, rng=np.random.default_rng(0), noise="gauss")
    with pytest.raises(ValueError, match="release"):
        flawed.noisy_max([0.0], 1.0, 2, rng=np.random.default_rng(0), release="both")
    with pytest.raises(ValueError, match="epsilon"):
        flawed.noisy_max([0.0], 0.0, 2, rng=np.random.default_rng(0))


def independent_max_density(y, a, scale, noise):
    """Density of the maximum by numerical differentiation of prod_i F(y - a_i) (scipy.stats)."""
    dist = stats.laplace(scale=scale) if noise == "laplace" else stats.expon(scale=scale)
    cdf = lambda t: np.prod(dist.cdf(t[:, None] - np.asarray(a)[None, :]), axis=1)
    h = 1e-5
    return (cdf(y + h) - cdf(y - h)) / (2 * h)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_max_value_density(noise):
    a, eps = [0.0, 1.0, -2.0], 0.5
    y = np.linspace(-15, 25, 81) + 0.013
    got = np.exp(flawed.noisy_max_value_log_density(y, a, eps, noise=noise))
    np.testing.assert_allclose(got, independent_max_density(y, a, 2 / eps, noise), rtol=1e-5, atol=1e-10)
    dens = lambda t: math.exp(flawed.noisy_max_value_log_density([t], a, eps, noise=noise)[0])  # noqa: E731
    edges = [-np.inf, -2.0, 0.0, 1.0, np.inf]
    total = sum(integrate.quad(dens, lo, hi, limit=200)[0] for lo, hi in zip(edges[:-1], edges[1:]))
    assert total == pytest.approx(1.0, abs=1e-7)


def test_noisy_max_value_epsilon_laplace_is_attained_and_not_exceeded():
    n, eps = 5, 0.3
    b = 2 / eps
    x, xp = np.zeros(n), np.ones(n)
    y = np.linspace(-60, 60, 601)
    r = flawed.noisy_max_value_log_density(y, x, eps) - flawed.noisy_max_value_log_density(y, xp, eps)
    assert np.max(r) == pytest.approx(n / b, abs=1e-9)                 # attained below both
    assert flawed.noisy_max_value_epsilon(n, eps) == pytest.approx(n / b, rel=1e-14, abs=0)
    rng = np.random.default_rng(0)
    for _ in range(20):                                               # random neighbouring pairs
        a = rng.uniform(-5, 5, n)
        ap = a + rng.uniform(-1, 1, n)
        rr = np.abs(flawed.noisy_max_value_log_density(y, a, eps) - flawed.noisy_max_value_log_density(y, ap, eps))
        assert np.max(rr) <= n / b + 1e-9


def test_noisy_max_value_epsilon_rejects():
    with pytest.raises(ValueError, match="noise"):
        flawed.noisy_max_value_epsilon(3, 1.0, noise="cauchy")
    with pytest.raises(ValueError, match="noise"):
        flawed.noisy_max_value_log_density([0.0], [0.0], 1.0, noise="cauchy")
    assert math.isinf(flawed.noisy_max_value_epsilon(2, 1.0, noise="exponential"))


# ----------------------------------------------------------------- the rare leak
def test_rare_leak_exact_by_coupling():
    out = flawed.laplace_with_rare_leak(2.5, 0.8, 5000, rng=np.random.default_rng(6), leak_probability=0.01)
    rng = np.random.default_rng(6)
    expect = 2.5 + lap_from_seed(rng, 1 / 0.8, 5000)
    expect[rng.random(5000) < 0.01] = 2.5
    np.testing.assert_array_equal(out, expect)
    assert 20 < np.sum(out == 2.5) < 90


def test_rare_leak_rejects():
    with pytest.raises(ValueError, match="leak_probability"):
        flawed.laplace_with_rare_leak(0.0, 1.0, 3, rng=np.random.default_rng(0), leak_probability=1.5)


def test_dpsniper_cases_carry_the_larger_published_bound():
    """Each case's DP-Sniper number is the larger of its two classifiers' bounds in the published logs."""
    import json
    from pathlib import Path

    pub = json.loads((Path(__file__).resolve().parents[1] / "chapters" / "auditing" / "published-bounds.json").read_text())
    keys = ["SparseVectorTechnique3", "SparseVectorTechnique4", "SparseVectorTechnique5", "SparseVectorTechnique6",
            "ReportNoisyMax3", "ReportNoisyMax4"]
    for case, key in zip(flawed.dpsniper_cases(), keys):
        src = pub["mechanisms"][key]
        assert case.dpsniper == max(src["dpsniper_reg"]["eps_lcb"], src["dpsniper_mlp"]["eps_lcb"]), case.name


# ----------------------------------------------------------------- DP-Sniper's six rows, as documented
DPSNIPER_ALGORITHMS = {"Lyu et al. Algorithm 3": 3, "Lyu et al. Algorithm 4": 4, "Lyu et al. Algorithm 5": 5,
                       "Lyu et al. Algorithm 6": 6}
DPSNIPER_NOISES = {"noisy max value, Laplace noise": "laplace", "noisy max value, exponential noise": "exponential"}


def test_dpsniper_cases_run_the_documented_setting():
    """The docstring's setting, row by row: DP-Sniper's order and names (the auditing chapter looks the
    rows up by name), claimed 0.1, Lyu et al.'s algorithms on ten queries with T = 1 and c = 1, report
    noisy max over five queries releasing the value; each mechanism is compared, on the same seed and
    on both inputs, with the documented call. 3000 runs: a threshold moved by 1 or c = 2 instead of 1
    changes some of them (noise scales 20 to 40)."""
    cases = flawed.dpsniper_cases()
    assert [c.name for c in cases] == [*DPSNIPER_ALGORITHMS, *DPSNIPER_NOISES]
    for case in cases:
        assert case.claimed == 0.1, case.name
        assert isinstance(case.n_samples, int) and case.n_samples >= 1, case.name
        k = 10 if case.name in DPSNIPER_ALGORITHMS else 5
        assert case.x.shape == case.x_prime.shape == (k,), case.name
        assert 0 < np.max(np.abs(case.x - case.x_prime)) <= 1, case.name           # distinct neighbours
        for data in (case.x, case.x_prime):
            got = case.mechanism(data, 3000, np.random.default_rng(7))
            if case.name in DPSNIPER_ALGORITHMS:
                alg = DPSNIPER_ALGORITHMS[case.name]
                want = flawed.sparse_vector_variant(data, 1.0, 0.1, 3000, rng=np.random.default_rng(7), algorithm=alg, c=1)
                assert case.true_epsilon == flawed.lyu_privacy(alg, 0.1)
            else:
                noise = DPSNIPER_NOISES[case.name]
                want = flawed.noisy_max(data, 0.1, 3000, rng=np.random.default_rng(7), noise=noise, release="value")
                assert case.true_epsilon == flawed.noisy_max_value_epsilon(5, 0.1, noise=noise)
            np.testing.assert_array_equal(got, want, err_msg=case.name)
    assert cases[1].true_epsilon == pytest.approx(0.175, rel=1e-14, abs=0)          # (1 + 6) / 4 * 0.1
    assert cases[4].true_epsilon == pytest.approx(0.25, rel=1e-14, abs=0)           # 5 * 0.1 / 2


def alg3_first_top_log_density(answers, i, v, T=1.0, b=20.0):
    """Log-density of Algorithm 3 (c = 1, eps = 0.1: both scales 2/eps = 20) releasing the value v at
    query i after bottoms on all earlier ones: p_nu(v - f_i) * int_{rho <= v - T} p_rho(rho)
    prod_{j < i} F_nu(T + rho - f_j) d rho, by scipy quad on the Laplace laws of scipy.stats."""
    lap = stats.laplace(scale=b)
    inner = integrate.quad(lambda r: lap.pdf(r) * np.prod(lap.cdf(T + r - np.asarray(answers[:i]))),
                           -np.inf, v - T, limit=200, epsabs=0.0, epsrel=1e-11)[0]
    return lap.logpdf(v - answers[i]) + math.log(inner)


def test_dpsniper_pairs_witness_the_violations():
    """Each pair shows its mechanism's claim of 0.1 false, by an exact computation independent of the
    sampler: Algorithm 3 by one output's density ratio (quad); Algorithm 4 by dpnotes.svt's exact
    AboveThreshold law with its scales, within lyu_privacy; Algorithms 5 and 6 by the pattern law
    (5: a pattern possible on x only); the Laplace maximum attains n eps / 2 and the exponential one
    has an output impossible on x'. Algorithm 3's certificate: below every threshold that matters
    (v = -100, rho <= -101) each of the nine bottoms' probabilities is an exponential left tail, so
    moving its answer by 1 changes it by e^(1/20), and the released answer's density by e^(-1/20):
    log-ratio 9/20 - 1/20 = 0.4."""
    cases = {c.name: c for c in flawed.dpsniper_cases()}
    c3 = cases["Lyu et al. Algorithm 3"]
    r3 = alg3_first_top_log_density(c3.x, 9, -100.0) - alg3_first_top_log_density(c3.x_prime, 9, -100.0)
    assert r3 == pytest.approx(0.4, rel=1e-6, abs=0) and r3 > c3.claimed
    c4 = cases["Lyu et al. Algorithm 4"]
    bt, bq = flawed.lyu_noise_scales(4, 0.1)
    loss4 = svt.max_log_ratio(c4.x, c4.x_prime, 1.0, 0.1, threshold_scale=bt, query_scale=bq)
    assert c4.claimed < loss4 <= c4.true_epsilon + 1e-9
    c5, c6 = cases["Lyu et al. Algorithm 5"], cases["Lyu et al. Algorithm 6"]
    pats = np.array([[(i >> j) & 1 for j in range(10)] for i in range(2**10)])
    l5x = flawed.no_cutoff_pattern_log_probabilities(c5.x, 1.0, 0.1, pats, algorithm=5)
    l5xp = flawed.no_cutoff_pattern_log_probabilities(c5.x_prime, 1.0, 0.1, pats, algorithm=5)
    assert np.any(np.isfinite(l5x) & np.isneginf(l5xp))
    top_first = np.r_[np.ones(5), np.zeros(5)][None, :]                       # tops where x is larger
    l6 = [flawed.no_cutoff_pattern_log_probabilities(a, 1.0, 0.1, top_first, algorithm=6)[0] for a in (c6.x, c6.x_prime)]
    assert l6[0] - l6[1] > c6.claimed
    cl = cases["noisy max value, Laplace noise"]
    y = np.linspace(-150.0, 150.0, 601)
    lr = flawed.noisy_max_value_log_density(y, cl.x, 0.1) - flawed.noisy_max_value_log_density(y, cl.x_prime, 0.1)
    assert np.max(np.abs(lr)) == pytest.approx(cl.true_epsilon, rel=1e-9, abs=0)
    ce = cases["noisy max value, exponential noise"]
    y0 = [np.max(ce.x) + 0.5]
    assert np.isfinite(flawed.noisy_max_value_log_density(y0, ce.x, 0.1, noise="exponential")[0])
    assert np.isneginf(flawed.noisy_max_value_log_density(y0, ce.x_prime, 0.1, noise="exponential")[0])


# ----------------------------------------------------------------- messages of bad input (name, range, value)
def test_pattern_probabilities_state_the_allowed_values_and_take_boolean_patterns():
    with pytest.raises(ValueError, match=r"^algorithm must be an integer in \[5, 6\], got 7$"):
        flawed.no_cutoff_pattern_log_probabilities([0.0], 0.0, 1.0, [[1]], algorithm=7)
    with pytest.raises(ValueError, match=r"^patterns must be 0/1 rows of length 2, got \['a'\]$"):
        flawed.no_cutoff_pattern_log_probabilities([0.0, 1.0], 0.0, 1.0, ["a"], algorithm=6)
    # booleans are 0/1 patterns too (True for a top), for both algorithms
    for alg in (5, 6):
        as_bool = flawed.no_cutoff_pattern_log_probabilities([0.5, -0.3], 0.2, 0.8, [[True, False], [False, False]],
                                                             algorithm=alg)
        as_int = flawed.no_cutoff_pattern_log_probabilities([0.5, -0.3], 0.2, 0.8, [[1, 0], [0, 0]], algorithm=alg)
        np.testing.assert_array_equal(as_bool, as_int)


@pytest.mark.parametrize("size", [0, -2])
def test_samplers_reject_a_size_below_one(size):
    """size 0 would otherwise return an empty array (and -2 fail inside numpy, naming shape)."""
    with pytest.raises(ValueError, match=rf"^size must be an integer in \[1, 100000000\], got {size}$"):
        flawed.noisy_max([0.0, 1.0], 1.0, size, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=rf"^size must be an integer in \[1, 100000000\], got {size}$"):
        flawed.laplace_with_rare_leak(0.0, 1.0, size, rng=np.random.default_rng(0), leak_probability=0.1)


@pytest.mark.parametrize("bad", [3, None, np.random.RandomState(0)])
def test_samplers_reject_a_non_generator_rng_by_name(bad):
    with pytest.raises(ValueError, match=r"^rng must be a numpy\.random\.Generator"):
        flawed.laplace_noise(1.0, 3, bad)
    with pytest.raises(ValueError, match=r"^rng must be a numpy\.random\.Generator"):
        flawed.sparse_vector_variant([0.0, 1.0], 0.0, 1.0, 2, rng=bad, algorithm=1)
    with pytest.raises(ValueError, match=r"^rng must be a numpy\.random\.Generator"):
        flawed.noisy_max([0.0, 1.0], 1.0, 2, rng=bad)
    with pytest.raises(ValueError, match=r"^rng must be a numpy\.random\.Generator"):
        flawed.laplace_with_rare_leak(0.0, 1.0, 2, rng=bad, leak_probability=0.1)


def test_value_density_messages_state_the_rule_and_the_value():
    with pytest.raises(ValueError, match=r"^y must be a real number or an array of them, got 'abc'$"):
        flawed.noisy_max_value_log_density("abc", [0.0], 1.0)
    with pytest.raises(ValueError, match=r"^y must be finite, got \[nan, 1\.0\]$"):
        flawed.noisy_max_value_log_density([np.nan, 1.0], [0.0], 1.0)


@pytest.mark.parametrize("kw,match", [
    (dict(algorithm=0), r"^algorithm must be an integer in \[1, 6\], got 0$"),
    (dict(algorithm=7), r"^algorithm must be an integer in \[1, 6\], got 7$"),
    (dict(algorithm=4, c=0), r"^c must be an integer >= 1, got 0$"),
])
def test_lyu_privacy_rejects(kw, match):
    with pytest.raises(ValueError, match=match):
        flawed.lyu_privacy(epsilon=0.3, **kw)


@pytest.mark.parametrize("eps,c", [(0.3, 5), (0.7, 1), (0.7, 3), (0.1, 2)])
def test_lyu_privacy_of_algorithm_4_is_the_decimal_value(eps, c):
    """(1 + 6c) / 4 * eps computed in floating point is one ulp off the decimal at these
    (e.g. 2.3249999999999997 for 2.325); the function rounds that error away: the result is the
    double nearest the exact rational value (fractions)."""
    exact = float(Fraction(1 + 6 * c, 4) * Fraction(str(eps)))
    assert flawed.lyu_privacy(4, eps, c) == exact


def tie_seed(b_rho, b_nu):
    """A seed whose first threshold noise rho and first query noise nu (drawn in this order) have
    the same sign and a ratio in [1/2, 2], so that T = nu - rho is exact (Sterbenz) and
    T + rho == nu: answer 0 then ties with the noisy threshold exactly."""
    for seed in range(1000):
        rng = np.random.default_rng(seed)
        rho, nu = lap_from_seed(rng, b_rho, 1)[0], lap_from_seed(rng, b_nu, 1)[0]
        if rho != 0 and 0.5 <= nu / rho <= 2:
            return seed, nu - rho, rho, nu
    raise AssertionError("no seed found")


@pytest.mark.parametrize("alg,c", [(1, 1), (2, 1), (3, 1), (4, 1), (1, 2), (3, 2), (5, 1), (6, 1)])
def test_a_tie_with_the_noisy_threshold_is_a_top(alg, c):
    """Published rule: above when f_i + nu_i >= T + rho (ties are tops), in the c = 1 path, the
    general loop (c = 2) and the no-cut-off algorithms alike."""
    b_rho, b_nu = flawed.lyu_noise_scales(alg, 0.8, c)
    seed, T, rho, nu = tie_seed(b_rho, b_nu if alg != 5 else b_rho)
    if alg == 5:                                 # no query noise: the answer 0 itself ties with T + rho
        T, nu = -rho, 0.0
    assert T + rho == nu                         # the tie is exact
    out = flawed.sparse_vector_variant([0.0], T, 0.8, 1, rng=np.random.default_rng(seed), algorithm=alg, c=c)
    assert out.tolist() == [[nu if alg == 3 else 1]]


@pytest.mark.parametrize("bad", [0, 7, 2.5, None])
def test_sparse_vector_variant_states_the_algorithms_range(bad):
    with pytest.raises(ValueError, match=rf"^algorithm must be an integer in \[1, 6\], got {re.escape(repr(bad))}$"):
        flawed.sparse_vector_variant([0.0, 1.0], 0.0, 1.0, 2, rng=np.random.default_rng(0), algorithm=bad)


def mp_pattern_probability(answers, T, eps, pattern):
    """Pr[pattern] of Algorithm 6 (both scales 2/eps) by mpmath quadrature at 30 digits, split at the kinks."""
    b = mp.mpf(2) / mp.mpf(eps)

    def cdf(t):
        return mp.exp(t / b) / 2 if t < 0 else 1 - mp.exp(-t / b) / 2

    def f(u):
        p = mp.exp(-abs(u - T) / b) / (2 * b)
        for a, top in zip(answers, pattern):
            p *= (1 - cdf(u - a)) if top else cdf(u - a)
        return p

    with mp.workdps(30):
        return mp.quad(f, [-mp.inf, *sorted(set([*answers, T])), mp.inf])


def test_pattern_probability_keeps_its_relative_tolerance_on_small_probabilities():
    """A pattern of probability ~6e-6 (answers 20 apart, eps = 1): the documented relative tolerance
    1e-10 must hold, so no absolute tolerance may stop quad early (scipy's default epsabs 1.5e-8
    gives 8e-8 relative here). Checked to 1e-9 against mpmath."""
    answers, pattern = [10.0, -10.0, 0.0], [0, 1, 1]
    lp = flawed.no_cutoff_pattern_log_probabilities(answers, 0.0, 1.0, [pattern], algorithm=6)[0]
    ref = mp_pattern_probability(answers, 0.0, 1.0, pattern)
    assert math.exp(lp) == pytest.approx(float(ref), rel=1e-9, abs=0.0)   # no absolute floor: the value is 6e-6


def test_pattern_probability_below_the_double_range_is_not_an_error():
    """Answers 6000 apart at eps = 1: the pattern (bottom on the high one, top on the low one) has
    probability about e^-1500, below the smallest double; the result is -inf or at most log of the
    smallest normal double (-708), without a math domain error."""
    for alg in (5, 6):
        lp = flawed.no_cutoff_pattern_log_probabilities([3000.0, -3000.0], 0.0, 1.0, [[0, 1]], algorithm=alg)
        assert lp[0] <= math.log(np.finfo(float).tiny)


@pytest.mark.parametrize("alg,c", [(1, 1), (1, 2), (2, 3), (4, 2), (5, 1), (6, 1)])
def test_symbol_codes_are_int8(alg, c):
    out = flawed.sparse_vector_variant([0.3, -0.2, 1.5], 0.1, 0.9, 40, rng=np.random.default_rng(alg), algorithm=alg, c=c)
    assert out.dtype == np.int8 and out.shape == (40, 3)


@pytest.mark.parametrize("shape,got", [((2, -1), "-1"), ((2, 1.5), "1.5"), (-1, "-1"), (2.5, "2.5"), (True, "True"),
                                       ([2, 3], None)])
def test_laplace_noise_rejects_a_bad_shape_by_name(shape, got):
    rule = (r"an integer in \[0, 100000000\] or a tuple of them, got \[2, 3\]" if got is None
            else rf"an integer in \[0, 100000000\], got {re.escape(got)}")
    with pytest.raises(ValueError, match=rf"^shape must be {rule}$"):
        flawed.laplace_noise(1.0, shape, np.random.default_rng(0))


@pytest.mark.parametrize("shape", [0, (0,), (3, 0), (0, 2), np.int64(0), 4, np.int64(4), 4.0, (np.int64(2), 3)])
def test_laplace_noise_takes_integers_of_any_type_and_empty_shapes(shape):
    """numpy integers and integral floats are shapes too (they take the checked path, not the int fast path)."""
    z = flawed.laplace_noise(1.5, shape, np.random.default_rng(0))
    assert z.shape == np.empty(np.array(shape, dtype=int).tolist()).shape and z.dtype == np.float64


@pytest.mark.parametrize("kw,match", [
    (dict(algorithm=0), r"^algorithm must be an integer in \[1, 6\], got 0$"),
    (dict(algorithm=7), r"^algorithm must be an integer in \[1, 6\], got 7$"),
    (dict(algorithm=2.5), r"^algorithm must be an integer in \[1, 6\], got 2\.5$"),
    (dict(algorithm=1, c=0), r"^c must be an integer >= 1, got 0$"),
    (dict(algorithm=2, c=-1), r"^c must be an integer >= 1, got -1$"),
])
def test_lyu_noise_scales_rejects(kw, match):
    with pytest.raises(ValueError, match=match):
        flawed.lyu_noise_scales(epsilon=0.3, **kw)


@pytest.mark.parametrize("n", [0, -3])
def test_noisy_max_value_epsilon_rejects_no_answers(n):
    with pytest.raises(ValueError, match=rf"^n_answers must be an integer >= 1, got {n}$"):
        flawed.noisy_max_value_epsilon(n, 0.3)


def test_real_inputs_may_be_fractions_but_not_mixed_with_non_numbers():
    """An object array (Fractions) converts entry by entry when every entry is a real number and not a
    bool; None, strings and bools among them are rejected with the parameter's message."""
    got = flawed.noisy_max_value_log_density([Fraction(1, 2), 2], [Fraction(1, 2), Fraction(-3, 4)], 0.7)
    want = flawed.noisy_max_value_log_density([0.5, 2.0], [0.5, -0.75], 0.7)
    np.testing.assert_array_equal(got, want)
    rule = r"answers must be a non-empty 1-D sequence of finite numbers"
    with pytest.raises(ValueError, match=rf"^{rule}, got \[Fraction\(1, 2\), 'a'\]$"):
        flawed.noisy_max([Fraction(1, 2), "a"], 1.0, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=rf"^{rule}, got \[Fraction\(1, 2\), True\]$"):
        flawed.noisy_max([Fraction(1, 2), True], 1.0, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^y must be a real number or an array of them, got \[1\.0, None\]$"):
        flawed.noisy_max_value_log_density([1.0, None], [0.0], 1.0)


@pytest.mark.parametrize("bad,shown", [([], r"\[\]"), ([[1.0, 2.0]], r"\[\[1\.0, 2\.0\]\]"), ([0.5, np.inf], r"\[0\.5, inf\]")])
def test_answers_message_states_the_rule_and_the_value(bad, shown):
    with pytest.raises(ValueError, match=rf"^answers must be a non-empty 1-D sequence of finite numbers, got {shown}$"):
        flawed.sparse_vector_variant(bad, 0.0, 1.0, 2, rng=np.random.default_rng(0), algorithm=1)


# ----------------------------------------------------------------- extreme magnitudes
def _noisy_max_index_law(units):
    """P(argmax_i (u_i + L_i) = i) for independent Laplace(1) L_i, by quadrature (scipy.stats)."""
    lap = stats.laplace()
    out = []
    for i, ui in enumerate(units):
        others = [uj for j, uj in enumerate(units) if j != i]
        f = lambda x: lap.pdf(x - ui) * np.prod([lap.cdf(x - uj) for uj in others])   # noqa: E731
        pts = sorted(set(units))
        out.append(integrate.quad(f, -60, 60, points=pts, epsabs=1e-13, limit=200)[0])
    return np.array(out)


def _within(counts, probs, n, sigmas=5.0):
    return np.all(np.abs(counts - n * probs) <= sigmas * np.sqrt(n * probs * (1 - probs)) + 1)


@pytest.mark.parametrize("answers, eps, units", [
    ([0.0, 2e307, -2e307], 1e-307, [0.0, 1.0, -1.0]),       # the noise scale 2e307 is past 1e306
    ([0.0, 10.0, 3.0], 5e-324, [0.0, 0.0, 0.0]),             # 2/eps = inf: the uniform limit
])
def test_noisy_max_index_at_a_noise_scale_beyond_the_floats(answers, eps, units):
    # the noise scale 2/epsilon overflowed (inf at 5e-324) and laplace_noise refused it as 'scale'
    n = 60_000
    idx = flawed.noisy_max(answers, eps, n, rng=np.random.default_rng(4))
    assert _within(np.bincount(idx, minlength=3), _noisy_max_index_law(units), n)
    ide = flawed.noisy_max(answers, eps, n, rng=np.random.default_rng(4), noise="exponential")
    if units == [0.0, 0.0, 0.0]:
        assert _within(np.bincount(ide, minlength=3), np.full(3, 1 / 3), n)


def test_noisy_max_value_refuses_a_noise_scale_beyond_1e306():
    with pytest.raises(ValueError, match=r"epsilon must be >= 2e-306 with release='value'.*got 5e-324"):
        flawed.noisy_max([0.0, 1.0], 5e-324, 3, rng=np.random.default_rng(0), release="value")
    val = flawed.noisy_max([0.0, 1.0], 2e-306, 1000, rng=np.random.default_rng(0), release="value")
    assert np.all(np.isfinite(val)) and np.median(np.abs(val)) > 1e305


def test_laplace_with_rare_leak_at_tiny_epsilon():
    with pytest.raises(ValueError, match=r"epsilon must be >= 1e-306 .*got 5e-324"):
        flawed.laplace_with_rare_leak(3.0, 5e-324, 3, rng=np.random.default_rng(0), leak_probability=0.1)
    for eps in (1e-300, 1e-306):
        out = flawed.laplace_with_rare_leak(3.0, eps, 20_000, rng=np.random.default_rng(1), leak_probability=0.0)
        # 3 + Lap(1/eps): every release finite, E|X - 3| = 1/eps
        assert np.all(np.isfinite(out)) and abs(np.mean(np.abs(out - 3.0) * eps) - 1.0) < 0.05


@pytest.mark.parametrize("algorithm", [1, 2, 4])
def test_sparse_vector_at_epsilon_5e_324_is_the_limit_law(algorithm):
    # answers * eps -> 0: AboveThreshold on equal answers with the algorithm's scales (in units of
    # 1/eps); the law of the first top from dpnotes.svt's quadrature. It raised 'scale must be finite'
    b_rho, b_nu = flawed.lyu_noise_scales(algorithm, 1.0, 1)
    probs = np.exp(svt.output_log_probabilities([0.0, 0.0], 0.0, 1.0, threshold_scale=b_rho, query_scale=b_nu))
    n = 40_000
    out = flawed.sparse_vector_variant([-5.0, 5.0], 0.0, 5e-324, n, rng=np.random.default_rng(2), algorithm=algorithm)
    bottoms = np.where(out[:, 0] == 1, 0, np.where(out[:, 1] == 1, 1, 2))
    assert _within(np.bincount(bottoms, minlength=3), probs, n)


@pytest.mark.parametrize("algorithm, c", [(1, 2), (2, 1), (4, 1), (5, 1), (6, 1)])
def test_sparse_vector_beyond_scale_1e306_is_the_same_comparisons_in_units_of_one_over_epsilon(algorithm, c):
    # exactly the algorithm run at epsilon = 1 on answers and threshold times epsilon (same draws)
    answers, threshold, eps = np.array([-3e306, 2e306, 0.0, 5e306]), 1e306, 1e-306
    got = flawed.sparse_vector_variant(answers, threshold, eps, 50, rng=np.random.default_rng(3),
                                       algorithm=algorithm, c=c)
    want = flawed.sparse_vector_variant(answers * eps, threshold * eps, 1.0, 50, rng=np.random.default_rng(3),
                                        algorithm=algorithm, c=c)
    np.testing.assert_array_equal(got, want)
    assert len(np.unique(got, axis=0)) > 1


def test_sparse_vector_algorithm_3_refuses_a_noise_scale_beyond_1e306():
    with pytest.raises(ValueError, match=r"epsilon must be >= 4e-306 for algorithm 3 with c = 2.*got 5e-324"):
        flawed.sparse_vector_variant([0.0], 0.0, 5e-324, 2, rng=np.random.default_rng(0), algorithm=3, c=2)
    out = flawed.sparse_vector_variant([0.0, 0.0], 0.0, 2e-306, 200, rng=np.random.default_rng(0), algorithm=3)
    tops = out[np.isfinite(out)]
    assert tops.size and np.median(np.abs(tops)) > 1e305


# ----------------------------------------------------------------- siblings at extreme magnitudes
def test_lyu_privacy_of_algorithm_4_at_a_tiny_epsilon_is_not_zero():
    # round(7/4 * eps, 15) made every epsilon below 5e-16 a privacy parameter of 0.0 (a 0-DP claim)
    assert flawed.lyu_privacy(4, 1e-20) == pytest.approx(1.75e-20, rel=1e-15, abs=0)
    assert flawed.lyu_privacy(4, 5e-324) == 1e-323                      # 7/4 of the smallest subnormal, rounded
    assert flawed.lyu_privacy(4, 1e300, c=3) == pytest.approx(4.75e300, rel=1e-15, abs=0)
    assert flawed.lyu_privacy(4, 0.1) == 0.175


def _mp_max_value_log_density(y, answers, eps, noise):
    with mp.workdps(50):
        eps, b = mp.mpf(eps), 2 / mp.mpf(eps)
        if noise == "laplace":
            pdf = lambda u: mp.exp(-abs(u) / b) / (2 * b)                                # noqa: E731
            cdf = lambda u: mp.exp(u / b) / 2 if u < 0 else 1 - mp.exp(-u / b) / 2      # noqa: E731
        else:
            pdf = lambda u: mp.exp(-u / b) / b if u >= 0 else mp.mpf(0)                 # noqa: E731
            cdf = lambda u: -mp.expm1(-u / b) if u > 0 else mp.mpf(0)                   # noqa: E731
        y, f = mp.mpf(y), [mp.mpf(a) for a in answers]
        total = mp.fsum(pdf(y - fi) * mp.fprod([cdf(y - fj) for j, fj in enumerate(f) if j != i])
                        for i, fi in enumerate(f))
        return float(mp.log(total))


@pytest.mark.parametrize("y, eps, noise", [(0.0, 5e-324, "laplace"), (0.0, 1e-300, "laplace"),
                                           (2.0, 5e-324, "exponential"), (2.0, 1e-300, "exponential"),
                                           (0.0, 1e300, "laplace"), (2.0, 1e300, "exponential")])
def test_noisy_max_value_log_density_at_extreme_epsilons(y, eps, noise):
    # scipy's laws of scale 2/epsilon gave -inf: scale inf at 5e-324, and log 0 for -5e299 at 1e300
    got = flawed.noisy_max_value_log_density([y], [0.0, 1.0], eps, noise=noise)[0]
    assert got == pytest.approx(_mp_max_value_log_density(y, [0.0, 1.0], eps, noise), rel=1e-13, abs=0)


def _mp_no_cutoff_log_probability(answers, threshold, eps, pattern):
    """Algorithm 6 in units of the noise scale, at 50 digits: int e^{-|s|}/2 prod S or F (s - g_i) ds."""
    with mp.workdps(50):
        g = [(mp.mpf(f) - mp.mpf(threshold)) * mp.mpf(eps) / 2 for f in answers]
        cdf = lambda u: mp.exp(u) / 2 if u < 0 else 1 - mp.exp(-u) / 2                 # noqa: E731
        sf = lambda u: mp.exp(-u) / 2 if u >= 0 else 1 - mp.exp(u) / 2                  # noqa: E731
        f = lambda s: mp.exp(-abs(s)) / 2 * mp.fprod(sf(s - gi) if a else cdf(s - gi)
                                                      for gi, a in zip(g, pattern))
        kinks = sorted({mp.mpf(0), *g})
        grid = [kinks[0] - 100 + 10 * j for j in range(int((kinks[-1] - kinks[0] + 200) / 10) + 1)]
        # mpmath's quad stops at an absolute error of 1e-50: an integrand of size e^-500 is scaled up
        top = max(f(t) for t in kinks)
        return float(mp.log(mp.quad(lambda s: f(s) / top, [-mp.inf, *sorted(set(grid) | set(kinks)), mp.inf]))
                     + mp.log(top))


@pytest.mark.parametrize("answers, eps", [([0.0, 1.0], 1000.0), ([0.0, -1.0], 1000.0), ([0.5, -0.3], 0.8),
                                          ([0.0, 1.0], 5e-324), ([0.0, 1.0], 1e-300)])
def test_algorithm_6_log_probabilities_at_extreme_epsilons(answers, eps):
    # at 5e-324 every pattern was -inf (impossible), and quad warned at 1e-300; at eps = 1000 a
    # pattern of probability e^-495 was -inf
    pats = [[0, 1], [1, 1], [0, 0], [1, 0]]
    got = flawed.no_cutoff_pattern_log_probabilities(answers, 0.0, eps, pats, algorithm=6)
    want = [_mp_no_cutoff_log_probability(answers, 0.0, eps, p) for p in pats]
    assert got == pytest.approx(want, rel=1e-9, abs=0)
    if eps < 1e-200:                         # the limit: the orderings of three i.i.d. draws
        assert np.exp(got) == pytest.approx([1 / 6, 1 / 3, 1 / 3, 1 / 6], rel=1e-9, abs=0)


def test_algorithm_6_refuses_a_log_probability_below_minus_1e4():
    for kwargs in ({"epsilon": 1e300}, {"threshold": 1e300}):
        args = dict(answers=[0.0, 1.0], threshold=0.0, epsilon=1.0, patterns=[[0, 0], [1, 1]], algorithm=6) | kwargs
        name = next(iter(kwargs))
        with pytest.raises(ValueError, match=rf"{name} = .*log-probability is about -.*below -1e4"):
            flawed.no_cutoff_pattern_log_probabilities(**args)


@pytest.mark.parametrize("eps", [5e-324, 1e-300, 1e300])
def test_algorithm_5_log_probabilities_closed_form_at_extreme_epsilons(eps):
    # Pr[pattern] = Pr[rho in (max f over bottoms, min f over tops] - T], rho ~ Lap(2/eps), at 50 digits;
    # scipy's Laplace of scale inf gave -inf for every pattern at 5e-324
    def mp_log_mass(lo, hi):
        with mp.workdps(400):                       # F(0.5/b) - F(-0.5/b) = 1/(4e323) at 5e-324
            b = 2 / mp.mpf(eps)
            cdf = lambda u: mp.exp(u / b) / 2 if u < 0 else 1 - mp.exp(-u / b) / 2      # noqa: E731
            sf = lambda u: mp.exp(-u / b) / 2 if u >= 0 else 1 - mp.exp(u / b) / 2      # noqa: E731
            lo, hi = mp.mpf(lo), mp.mpf(hi)
            return float(mp.log(sf(lo) - sf(hi) if lo >= 0 else cdf(hi) - cdf(lo)))

    answers, pats = [0.0, 1.0, 3.0], [[0, 1, 1], [0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 0, 1]]
    got = flawed.no_cutoff_pattern_log_probabilities(answers, 0.5, eps, pats, algorithm=5)
    want = [mp_log_mass(-0.5, 0.5), mp_log_mass(0.5, 2.5), mp_log_mass(-mp.inf, -0.5), mp_log_mass(2.5, mp.inf)]
    assert got[:4] == pytest.approx(want, rel=1e-12, abs=0) and got[4] == -math.inf


def test_samplers_cap_their_draws_at_1e8(raises_exactly):
    """size or shape = 2**31 asked numpy for 16 GiB or more (MemoryError), 2**62 for more than it
    can index ("array is too big"). Every sampler now refuses more than 10**8 draws by name."""
    rng = np.random.default_rng(0)
    with raises_exactly(f"shape must be an integer in [0, 100000000], got {2**31}"):
        flawed.laplace_noise(1.0, 2**31, rng)
    with raises_exactly("shape must have at most 100000000 entries in all, got (10001, 10000)"):
        flawed.laplace_noise(1.0, (10_001, 10_000), rng)
    with raises_exactly(f"size must be an integer in [1, 100000000], got {2**62}"):
        flawed.noisy_max([0.0, 1.0], 1.0, 2**62, rng=rng)
    with raises_exactly(f"size must be an integer in [1, 100000000], got {2**31}"):
        flawed.laplace_with_rare_leak(3.0, 1.0, 2**31, rng=rng, leak_probability=1e-3)
    with raises_exactly(f"size must be an integer in [1, 100000000], got {2**31}"):
        flawed.sparse_vector_variant([0.0, 1.0], 0.0, 1.0, 2**31, rng=rng, algorithm=1)
    assert flawed.laplace_noise(1.0, (2, 3), rng).shape == (2, 3)
