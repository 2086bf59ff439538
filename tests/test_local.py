"""Tests of dpnotes.local against independent computations.

Randomizers are checked by coupling seeds (the same draws reproduce every report) and by
frequencies; estimators and variances by enumerating every possible set of reports with
its exact probability; local privacy by enumerating the channel; the shuffled count's laws
and its exact privacy profile by brute force over every report vector, every data set and
every replace-one neighbour of small populations, and in 40-digit arithmetic (mpmath);
the Feldman-McMillan-Talwar bounds against the exact profile they must dominate.
"""

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy import stats
from scipy.linalg import hadamard

from dpnotes import finite, local, loss, mechanisms

EPS = 0.8                                  # asymmetric local epsilon used throughout (e^0.8 is not special)


# --------------------------------------------------------------------------- helpers
def krr_pq(eps, k):
    e = math.exp(eps)
    return e / (e + k - 1), 1 / (e + k - 1)


def count_law_by_enumeration(x, eps0):
    """Law of the number of 1-reports of randomized response on the bits x, by summing over all 2^n report vectors."""
    x = np.asarray(x)
    reports = finite.binary_datasets(x.size)
    prob = np.exp(mechanisms.randomized_response_log_pmf(reports, x, eps0))
    return np.bincount(reports.sum(axis=1), weights=prob, minlength=x.size + 1)


def exhaustive_delta(eps0, n, eps):
    """max over every data set, every replace-one neighbour and both orders of the hockey stick of the count's laws."""
    data = finite.binary_datasets(n)
    laws = np.array([count_law_by_enumeration(x, eps0) for x in data])
    pairs = finite.pairs_at_distance(data, 1)
    return max(max(loss.hockey_stick(laws[i], laws[j], eps), loss.hockey_stick(laws[j], laws[i], eps))
               for i, j in pairs)


# --------------------------------------------------------------------------- k-ary randomized response
@pytest.mark.parametrize("eps,k", [(EPS, 5), (2.3, 3), (0.3, 2), (40.0, 7)])
def test_krr_probabilities_closed_form(eps, k):
    p, q = local.krr_probabilities(eps, k)
    p_ref, q_ref = krr_pq(eps, k)
    assert math.isclose(p, p_ref, rel_tol=1e-14) and math.isclose(q, q_ref, rel_tol=1e-14)
    assert math.isclose(p + (k - 1) * q, 1.0, rel_tol=1e-14)


def test_krr_probabilities_rational_case():
    # e^eps = 3, k = 4: p = 3/6, q = 1/6 exactly
    p, q = local.krr_probabilities(math.log(3), 4)
    assert math.isclose(p, 0.5, rel_tol=1e-14) and math.isclose(q, 1 / 6, rel_tol=1e-14)


@pytest.mark.parametrize("eps,k", [(EPS, 4), (1.7, 3)])
def test_krr_is_exactly_epsilon_ldp(eps, k):
    p, q = local.krr_probabilities(eps, k)
    channel = np.where(np.eye(k, dtype=bool), p, q)           # channel[v, y] = Pr[report y | record v]
    pairs = np.array(list(itertools.combinations(range(k), 2)))
    assert math.isclose(finite.epsilon_over_pairs(channel, pairs), eps, rel_tol=1e-12)


def test_krr_randomize_coupled_draws():
    x = np.array([0, 4, 2, 2, 1, 3, 0])
    k = 5
    for size in (None, 6):
        got = local.krr_randomize(x, EPS, k, np.random.default_rng(11), size=size)
        rng = np.random.default_rng(11)
        shape = x.shape if size is None else (size,) + x.shape
        u = rng.random(shape)
        j = rng.integers(1, k, shape)
        p, _ = krr_pq(EPS, k)
        expected = np.where(u < p, x, (x + j) % k)
        assert got.shape == shape and np.array_equal(got, expected)


def test_krr_randomize_frequencies():
    k, runs = 4, 200_000
    reports = local.krr_randomize(np.array([2]), EPS, k, np.random.default_rng(3), size=runs)[:, 0]
    freq = np.bincount(reports, minlength=k) / runs
    p, q = krr_pq(EPS, k)
    target = np.array([q, q, p, q])
    sd = np.sqrt(target * (1 - target) / runs)
    assert np.all(np.abs(freq - target) < 5 * sd)              # 5 standard deviations: seeded


def test_krr_randomize_accepts_integral_floats_and_2d():
    x = np.array([[0.0, 1.0], [2.0, 1.0]])
    got = local.krr_randomize(x, 60.0, 3, np.random.default_rng(0))
    assert got.dtype == np.int64 and np.array_equal(got, x.astype(int))


def test_krr_estimate_matches_loop():
    k, n = 4, 50
    reports = local.krr_randomize(np.random.default_rng(5).integers(0, k, n), EPS, k, np.random.default_rng(6), size=3)
    got = local.krr_estimate(reports, EPS, k)
    p, q = krr_pq(EPS, k)
    for run in range(3):
        counts = np.array([(reports[run] == v).sum() for v in range(k)])
        assert np.allclose(got[run], (counts - n * q) / (p - q), rtol=1e-13, atol=1e-12)


def test_krr_estimate_hand_example():
    # e^eps = 3, k = 3: p = 3/5, q = 1/5; reports 0,0,1,2,0 -> C = (3,1,1), n q = 1, p - q = 2/5
    assert np.allclose(local.krr_estimate([0, 0, 1, 2, 0], math.log(3), 3), [5.0, 0.0, 0.0], atol=1e-12)


@pytest.mark.parametrize("eps", [math.log(3), EPS])
def test_krr_estimator_unbiased_with_exact_variance_by_enumeration(eps):
    k, x = 3, np.array([0, 2, 2, 1, 2])
    counts = np.bincount(x, minlength=k)
    p, q = krr_pq(eps, k)
    outputs = np.array(list(itertools.product(range(k), repeat=x.size)))          # all k^n report vectors
    prob = np.prod(np.where(outputs == x, p, q), axis=1)
    assert math.isclose(prob.sum(), 1.0, rel_tol=1e-12)
    est = local.krr_estimate(outputs, eps, k)
    mean = prob @ est
    var = prob @ (est - counts) ** 2
    assert np.allclose(mean, counts, rtol=0, atol=1e-10)
    assert np.allclose(var, local.krr_variance(counts, eps), rtol=1e-10, atol=0)


def test_krr_variance_rational_exact():
    # e^eps = 3, k = 3: p = 3/5, q = 1/5; Var = (n_v p(1-p) + (n - n_v) q(1-q)) / (p - q)^2 in fractions
    p, q = Fraction(3, 5), Fraction(1, 5)
    counts = [4, 0, 7]
    n = sum(counts)
    exact = [(c * p * (1 - p) + (n - c) * q * (1 - q)) / (p - q) ** 2 for c in counts]
    assert np.allclose(local.krr_variance(counts, math.log(3)), [float(v) for v in exact], rtol=1e-13)


def test_krr_variance_two_term_form():
    counts = np.array([10, 0, 3, 25])
    k, n = counts.size, counts.sum()
    p, q = krr_pq(EPS, k)
    two_term = n * q * (1 - q) / (p - q) ** 2 + counts * (1 - p - q) / (p - q)
    assert np.allclose(local.krr_variance(counts, EPS), two_term, rtol=1e-12)


# --------------------------------------------------------------------------- optimized unary encoding
def test_oue_probabilities():
    p, q = local.oue_probabilities(EPS)
    assert p == 0.5 and math.isclose(q, 1 / (math.exp(EPS) + 1), rel_tol=1e-14)


@pytest.mark.parametrize("eps", [EPS, 2.2])
def test_oue_is_exactly_epsilon_ldp(eps):
    k = 4
    q = 1 / (math.exp(eps) + 1)
    outputs = finite.binary_datasets(k)                       # all 2^k bit vectors
    # bit v of record v is 1 or 0 with probability 1/2 each; every other bit is 1 with probability q
    channel = np.array([np.prod(np.where(np.arange(k) == v, 0.5, np.where(outputs == 1, q, 1 - q)), axis=1)
                        for v in range(k)])
    assert np.allclose(channel.sum(axis=1), 1.0)
    pairs = np.array(list(itertools.combinations(range(k), 2)))
    assert math.isclose(finite.epsilon_over_pairs(channel, pairs), eps, rel_tol=1e-12)


def test_oue_randomize_coupled_draws():
    x = np.array([1, 0, 2, 2])
    k = 3
    for size in (None, 5):
        got = local.oue_randomize(x, EPS, k, np.random.default_rng(21), size=size)
        shape = (x.shape if size is None else (size,) + x.shape) + (k,)
        u = np.random.default_rng(21).random(shape)
        q = 1 / (math.exp(EPS) + 1)
        expected = (u < np.where(x[:, None] == np.arange(k), 0.5, q)).astype(np.int8)
        assert got.shape == shape and np.array_equal(got, expected)


def test_oue_estimate_hand_example():
    bits = [[1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]]        # q = 1/4 at log 3: C = (2, 1, 1)
    assert np.allclose(local.oue_estimate(bits, math.log(3)), [4.0, 0.0, 0.0], atol=1e-12)


@pytest.mark.parametrize("eps", [math.log(3), EPS])
def test_oue_estimator_unbiased_with_exact_variance_by_enumeration(eps):
    k, x = 3, np.array([2, 0, 2])
    counts = np.bincount(x, minlength=k)
    q = 1 / (math.exp(eps) + 1)
    outputs = finite.binary_datasets(x.size * k).reshape(-1, x.size, k)          # every n x k bit matrix
    bit_p = np.where(x[:, None] == np.arange(k), 0.5, q)
    prob = np.prod(np.where(outputs == 1, bit_p, 1 - bit_p), axis=(1, 2))
    assert math.isclose(prob.sum(), 1.0, rel_tol=1e-12)
    est = local.oue_estimate(outputs, eps)
    assert np.allclose(prob @ est, counts, rtol=0, atol=1e-10)
    assert np.allclose(prob @ (est - counts) ** 2, local.oue_variance(counts, eps), rtol=1e-10, atol=0)


def test_oue_variance_closed_form():
    counts = np.array([7, 0, 12, 1, 30])
    e = math.exp(EPS)
    closed = 4 * counts.sum() * e / (e - 1) ** 2 + counts
    assert np.allclose(local.oue_variance(counts, EPS), closed, rtol=1e-12)


def test_total_variances_are_data_free_and_cross_over():
    # exact totals: k-RR (k-1)(2e^eps + k - 2) n/(e^eps-1)^2, OUE (4(k-1)e^eps + (e^eps+1)^2) n/(e^eps-1)^2
    rng = np.random.default_rng(1)
    for k, eps in [(21, 1.0), (21, 3.0), (4, EPS)]:
        e = math.exp(eps)
        counts = rng.integers(0, 50, k)
        n = counts.sum()
        assert math.isclose(local.krr_variance(counts, eps).sum(), (k - 1) * (2 * e + k - 2) * n / (e - 1) ** 2, rel_tol=1e-12)
        assert math.isclose(local.oue_variance(counts, eps).sum(), (4 * (k - 1) * e + (e + 1) ** 2) * n / (e - 1) ** 2,
                            rel_tol=1e-12)
    counts = np.full(21, 10)
    assert local.oue_variance(counts, 1.0).sum() < local.krr_variance(counts, 1.0).sum()
    assert local.krr_variance(counts, 3.0).sum() < local.oue_variance(counts, 3.0).sum()


# --------------------------------------------------------------------------- bad input
# --------------------------------------------------------------------------- Hadamard response
def hr_channel(eps, k):
    """channel[v, j] = Pr[report j | category v], from scipy's dense Sylvester-Hadamard matrix."""
    K = 1
    while K <= k:
        K *= 2
    H = hadamard(K)
    e = math.exp(eps)
    return np.where(H[1:k + 1] == 1, 2 * e / (K * (1 + e)), 2 / (K * (1 + e)))


@pytest.mark.parametrize("eps,k", [(EPS, 3), (2.2, 5), (0.3, 2), (1.3, 8)])
def test_hr_is_exactly_epsilon_ldp_and_a_law(eps, k):
    ch = hr_channel(eps, k)
    K, p = local.hr_parameters(eps, k)
    assert ch.shape == (k, K) and K > k and K < 2 * (k + 1) and (K & (K - 1)) == 0
    assert np.allclose(ch.sum(axis=1), 1.0, rtol=1e-14)
    assert math.isclose(p, math.exp(eps) / (1 + math.exp(eps)), rel_tol=1e-14)
    pairs = np.array(list(itertools.combinations(range(k), 2)))
    assert math.isclose(finite.epsilon_over_pairs(ch, pairs), eps, rel_tol=1e-12)
    # a report of another category lands in C_v with probability exactly 1/2
    inside = hadamard(K)[1:k + 1] == 1
    for v in range(k):
        for w in range(k):
            assert math.isclose(ch[w, inside[v]].sum(), p if v == w else 0.5, rel_tol=1e-13)


def test_walsh_hadamard_matches_the_dense_matrix():
    rng = np.random.default_rng(3)
    for K in (2, 4, 16, 64):
        h = rng.integers(0, 50, (3, K))
        assert np.array_equal(local._walsh_hadamard(h), h @ hadamard(K).T)


def test_hr_randomize_coupled_draws():
    x = np.array([0, 4, 2, 2, 1, 3, 0])
    eps, k = 1.1, 5                                    # K = 8
    got = local.hr_randomize(x, eps, k, np.random.default_rng(12), size=40)
    rng = np.random.default_rng(12)
    K, p = 8, math.exp(eps) / (1 + math.exp(eps))
    want_in = rng.random((40, x.size)) < p
    j = rng.integers(0, K, (40, x.size))
    H = hadamard(K)
    expected = np.empty_like(j)
    for a in range(40):
        for i, v in enumerate(x):
            cand = j[a, i]
            if (H[v + 1, cand] == 1) != want_in[a, i]:
                low = (v + 1) & -(v + 1)               # the lowest bit of the row index
                cand ^= low
            assert (H[v + 1, cand] == 1) == want_in[a, i]
            expected[a, i] = cand
    assert np.array_equal(got, expected)


def test_hr_randomize_frequencies():
    eps, k, runs = EPS, 6, 200_000
    ch = hr_channel(eps, k)
    for v in (0, 3, 5):
        reports = local.hr_randomize([v], eps, k, np.random.default_rng(20 + v), size=runs)[:, 0]
        freq = np.bincount(reports, minlength=8) / runs
        assert np.all(np.abs(freq - ch[v]) < 5 * np.sqrt(ch[v] * (1 - ch[v]) / runs))


@pytest.mark.parametrize("eps", [math.log(3), EPS, 3.5])
def test_hr_estimator_unbiased_with_exact_variance_by_enumeration(eps):
    x, k = np.array([0, 2, 2]), 3                      # K = 4: 4^3 report vectors
    ch = hr_channel(eps, k)
    reports = np.array(list(itertools.product(range(4), repeat=x.size)))
    prob = np.prod(ch[x, reports], axis=1)
    assert math.isclose(prob.sum(), 1.0, rel_tol=1e-13)
    est = local.hr_estimate(reports, eps, k)
    counts = np.bincount(x, minlength=k)
    assert np.allclose(prob @ est, counts, atol=1e-10)
    assert np.allclose(prob @ (est - counts) ** 2, local.hr_variance(counts, eps), rtol=1e-10)


def test_hr_variance_closed_forms():
    counts, eps = np.array([7, 0, 3, 11]), 1.4
    n, e = counts.sum(), math.exp(1.4)
    p = e / (1 + e)
    by_definition = (counts * p * (1 - p) + (n - counts) / 4) / (p - 0.5) ** 2
    assert np.allclose(local.hr_variance(counts, eps), by_definition, rtol=1e-12)
    assert np.allclose(local.hr_variance(counts, eps), n / math.tanh(0.7) ** 2 - counts, rtol=1e-12)
    # a rare category: cosh^2(eps/2) times OUE's, whatever k
    rare = local.hr_variance([0, 20], eps)[0]
    assert math.isclose(rare, math.cosh(0.7) ** 2 * local.oue_variance([0, 20], eps)[0], rel_tol=1e-12)
    assert math.isclose(local.hr_variance([0, 5, 15], eps)[0], rare, rel_tol=1e-12)


def test_hr_estimate_batched_and_hand_example():
    e = 2 * math.atanh(0.5)                           # p - 1/2 = 1/4
    # C_0 = {0, 2}, C_1 = {0, 1}: counts 2 and 3 of 4 reports, (C - 2) / (1/4)
    assert np.allclose(local.hr_estimate([0, 0, 1, 3], e, 2), [0.0, 4.0], atol=1e-12)
    batch = local.hr_estimate([[0, 0, 1, 3], [2, 2, 2, 2]], e, 2)
    assert np.allclose(batch, [[0.0, 4.0], [8.0, -8.0]], atol=1e-12)
    reports = local.hr_randomize(np.arange(9) % 7, 0.9, 7, np.random.default_rng(5), size=6)
    assert np.allclose(local.hr_estimate(reports, 0.9, 7), [local.hr_estimate(r, 0.9, 7) for r in reports])


def test_hr_bad_inputs():
    with pytest.raises(ValueError, match=r"^reports must contain integers in \[0, 3\], got values from 0 to 4$"):
        local.hr_estimate([0, 4], 1.0, 3)
    with pytest.raises(ValueError, match=r"^reports must have a last axis with n >= 1 reports, got shape \(0,\)$"):
        local.hr_estimate([], 1.0, 3)
    with pytest.raises(ValueError, match=r"^x must contain integers in \[0, 2\], got values from 0 to 3$"):
        local.hr_randomize([0, 3], 1.0, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="^epsilon must be > 0, got 0$"):
        local.hr_parameters(0, 3)
    with pytest.raises(ValueError, match=r"^k must be an integer in \[2, 9223372036854775807\], got 1$"):
        local.hr_randomize([0], 1.0, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="^counts must be a 1-D histogram with k >= 2 entries"):
        local.hr_variance([3], 1.0)
    with pytest.raises(ValueError, match="^rng must be"):
        local.hr_randomize([0], 1.0, 3, 7)


def test_bad_inputs_raise():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="epsilon must be > 0, got 0"):
        local.krr_probabilities(0, 3)
    with pytest.raises(ValueError, match="epsilon must be > 0, got -1"):
        local.oue_probabilities(-1)
    with pytest.raises(ValueError, match=r"k must be an integer >= 2, got 1"):
        local.krr_probabilities(1.0, 1)
    with pytest.raises(ValueError, match=r"k must be an integer in \[2, 100000000\], got 2.5"):
        local.oue_randomize([0], 1.0, 2.5, rng)
    with pytest.raises(ValueError, match=r"x must contain integers in \[0, 2\], got values from 0 to 3"):
        local.krr_randomize([0, 3], 1.0, 3, rng)
    with pytest.raises(ValueError, match=r"x must contain integers in \[0, 2\], got values from -1 to 1"):
        local.oue_randomize([-1, 1], 1.0, 3, rng)
    with pytest.raises(ValueError, match=r"x must contain integers in \[0, 2\], got non-integer values"):
        local.krr_randomize([0.5], 1.0, 3, rng)
    with pytest.raises(ValueError, match=r"x must contain integers in \[0, 1\], got dtype"):
        local.krr_randomize(["a"], 1.0, 2, rng)
    with pytest.raises(ValueError, match=r"reports must contain integers in \[0, 2\]"):
        local.krr_estimate([0, 5], 1.0, 3)
    with pytest.raises(ValueError, match="reports must have a last axis with n >= 1"):
        local.krr_estimate(np.zeros((2, 0), int), 1.0, 3)
    with pytest.raises(ValueError, match="reports must have a last axis with n >= 1"):
        local.krr_estimate(1, 1.0, 3)
    with pytest.raises(ValueError, match="reports must contain only 0 and 1"):
        local.oue_estimate([[0, 2], [1, 0]], 1.0)
    with pytest.raises(ValueError, match=r"reports must have shape \(..., n, k\)"):
        local.oue_estimate([1, 0, 1], 1.0)
    with pytest.raises(ValueError, match=r"reports must have shape \(..., n, k\)"):
        local.oue_estimate([[1], [0]], 1.0)
    with pytest.raises(ValueError, match=r"reports must have shape \(..., n, k\)"):
        local.oue_estimate(np.zeros((0, 3)), 1.0)
    with pytest.raises(ValueError, match="counts must be non-negative integers"):
        local.krr_variance([1.5, 2], 1.0)
    with pytest.raises(ValueError, match="counts must be non-negative integers"):
        local.oue_variance([3, -1], 1.0)
    with pytest.raises(ValueError, match=r"counts must be a 1-D histogram with k >= 2 entries, got shape \(1,\)"):
        local.krr_variance([5], 1.0)
    with pytest.raises(ValueError, match=r"size must be an integer in \[1, 100000000\], got 0"):
        local.krr_randomize([0], 1.0, 2, rng, size=0)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        local.oue_randomize([0], 1.0, 2, 42)
    with pytest.raises(ValueError, match="epsilon0 must be > 0, got 0"):
        local.shuffled_rr_delta(0, 5, 0.1)
    with pytest.raises(ValueError, match="epsilon0 must be > 0, got -2"):
        local.fmt_epsilon(-2, 5000, 1e-6)
    with pytest.raises(ValueError, match=r"n must be an integer in \[2, 5000\], got 1"):
        local.shuffled_rr_epsilon(1.0, 1, 1e-6)
    with pytest.raises(ValueError, match=r"n must be an integer in \[2, 5000\], got 10.5"):
        local.shuffled_rr_delta(1.0, 10.5, 0.1)
    with pytest.raises(ValueError, match=r"n must be an integer in \[2, 2000\], got 1"):
        local.fmt_clone_delta(1.0, 1, 0.1)
    with pytest.raises(ValueError, match="epsilon must be >= 0, got -0.1"):
        local.shuffled_rr_delta(1.0, 5, [0.2, -0.1])
    with pytest.raises(ValueError, match="epsilon must be a real number >= 0"):
        local.fmt_clone_delta(1.0, 5, "x")
    with pytest.raises(ValueError, match="epsilon must be a real number >= 0"):
        local.shuffled_rr_delta(1.0, 5, [])
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 0"):
        local.shuffled_rr_epsilon(1.0, 5, 0.0)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 1"):
        local.fmt_epsilon0_max(100, 1.0)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 0"):
        local.fmt_clone_epsilon(1.0, 50, 0)
    with pytest.raises(ValueError, match=r"m must be an integer in \[0, 4\], got 5"):
        local.shuffled_rr_laws(1.0, 5, 5)
    with pytest.raises(ValueError, match=r"x must be a 1-D array of bits"):
        local.shuffled_rr_count([[0, 1]], 1.0, rng)
    with pytest.raises(ValueError, match=r"x must contain integers in \[0, 1\]"):
        local.shuffled_rr_count([0, 2], 1.0, rng)


# --------------------------------------------------------------------------- the shuffled count
@pytest.mark.parametrize("eps0", [EPS, 2.5])
def test_shuffled_rr_laws_match_enumeration(eps0):
    n = 6
    for m in range(n):
        x0 = np.array([0] + [1] * m + [0] * (n - 1 - m))
        x1 = x0.copy()
        x1[0] = 1
        law0, law1 = local.shuffled_rr_laws(eps0, n, m)
        assert np.allclose(law0, count_law_by_enumeration(x0, eps0), rtol=1e-12, atol=0)
        assert np.allclose(law1, count_law_by_enumeration(x1, eps0), rtol=1e-12, atol=0)


def test_shuffled_rr_laws_tails_in_40_digits():
    # large epsilon0: the extreme counts have probabilities far below 1e-100; log-space keeps their digits
    eps0, n, m = 9.0, 60, 17
    law0, law1 = local.shuffled_rr_laws(eps0, n, m)
    with mp.workdps(40):
        p = mp.e ** eps0 / (1 + mp.e ** eps0)
        q = 1 - p
        def binom(k, j, pr):
            return mp.binomial(k, j) * pr ** j * (1 - pr) ** (k - j) if 0 <= j <= k else mp.mpf(0)
        others = [mp.fsum(binom(m, j, p) * binom(n - 1 - m, s - j, q) for j in range(m + 1)) for s in range(n)]
        others = others + [mp.mpf(0)]
        ref0 = [q * (others[s - 1] if s else 0) + p * others[s] for s in range(n + 1)]
        ref1 = [p * (others[s - 1] if s else 0) + q * others[s] for s in range(n + 1)]
    ref0, ref1 = np.array([float(v) for v in ref0]), np.array([float(v) for v in ref1])
    assert ref0.min() < 1e-150                                  # the check does reach deep tails
    positive = ref0 > 1e-300
    assert np.allclose(law0[positive], ref0[positive], rtol=1e-11, atol=0)
    assert np.allclose(law1[ref1 > 1e-300], ref1[ref1 > 1e-300], rtol=1e-11, atol=0)


def test_bit_flip_symmetry_of_the_laws():
    eps0, n = 1.3, 9
    for m in range(n):
        law0, law1 = local.shuffled_rr_laws(eps0, n, m)
        mirror0, mirror1 = local.shuffled_rr_laws(eps0, n, n - 1 - m)
        assert np.allclose(law0, mirror1[::-1], rtol=1e-12) and np.allclose(law1, mirror0[::-1], rtol=1e-12)


@pytest.mark.parametrize("eps0", [0.4, EPS, 2.0])
def test_shuffled_rr_delta_matches_exhaustive_search_over_all_neighbours(eps0):
    eps_grid = np.array([0.0, 0.1, 0.35, 0.7 * eps0])
    for n in range(2, 8):
        got = local.shuffled_rr_delta(eps0, n, eps_grid)
        want = np.array([exhaustive_delta(eps0, n, e) for e in eps_grid])
        assert np.allclose(got, want, rtol=1e-10, atol=1e-15), (n, got, want)


def test_worst_case_data_set_is_not_always_the_all_equal_one():
    # the adversary must search every number m of other ones: here m = 0 is not the worst case
    eps0, n, eps = 2.0, 30, 1.0
    by_m = [max(loss.hockey_stick(*local.shuffled_rr_laws(eps0, n, m), eps),
                loss.hockey_stick(*local.shuffled_rr_laws(eps0, n, m)[::-1], eps)) for m in range(n)]
    worst = int(np.argmax(by_m))
    assert worst not in (0, n - 1) and by_m[worst] > 1.05 * by_m[0]
    assert math.isclose(local.shuffled_rr_delta(eps0, n, eps), max(by_m), rel_tol=1e-10)
    # for small epsilon every data set gives nearly the same delta, and the worst is inside
    small = [max(loss.hockey_stick(*local.shuffled_rr_laws(eps0, n, m), 0.05),
                 loss.hockey_stick(*local.shuffled_rr_laws(eps0, n, m)[::-1], 0.05)) for m in range(n)]
    assert min(small) > 0.95 * max(small) and int(np.argmax(small)) not in (0, 1, n - 2, n - 1)
    assert math.isclose(local.shuffled_rr_delta(eps0, n, 0.05), max(small), rel_tol=1e-10)


def test_shuffled_rr_delta_small_values_in_40_digits():
    # an epsilon where delta is about 4e-13, far below the laws' largest terms: its digits survive
    eps0, n, eps = 0.4, 50, 0.375
    got = local.shuffled_rr_delta(eps0, n, eps)
    with mp.workdps(40):
        p = mp.e ** eps0 / (1 + mp.e ** eps0)
        q = 1 - p
        best, e_eps = mp.mpf(0), mp.e ** eps
        for m in range(n):
            b1 = [mp.binomial(m, j) * p ** j * q ** (m - j) for j in range(m + 1)]                 # Bin(m, p)
            b2 = [mp.binomial(n - 1 - m, t) * q ** t * p ** (n - 1 - m - t) for t in range(n - m)]  # Bin(n-1-m, q)
            a = [mp.fsum(b1[j] * b2[s - j] for j in range(max(0, s - (n - 1 - m)), min(m, s) + 1))
                 for s in range(n)] + [mp.mpf(0)]
            law0 = [q * (a[s - 1] if s else 0) + p * a[s] for s in range(n + 1)]
            law1 = [p * (a[s - 1] if s else 0) + q * a[s] for s in range(n + 1)]
            for u, v in ((law0, law1), (law1, law0)):
                best = max(best, mp.fsum(max(mp.mpf(0), ui - e_eps * vi) for ui, vi in zip(u, v)))
    assert 1e-16 < float(best) < 1e-11
    assert math.isclose(got, float(best), rel_tol=1e-9)


def test_delta_profile_shape():
    eps0, n = 1.0, 25
    grid = np.linspace(0, eps0, 21)
    d = local.shuffled_rr_delta(eps0, n, grid)
    assert isinstance(local.shuffled_rr_delta(eps0, n, 0.3), float) and d.shape == grid.shape
    assert np.all(np.diff(d) < 0) or np.all(np.diff(d[:-1]) < 0)
    assert d[-1] < 1e-14 and d[0] < 1
    assert np.allclose(local.shuffled_rr_delta(eps0, n, grid.reshape(3, 7)), d.reshape(3, 7))
    # epsilon 0 is the total variation distance of the worst pair
    tv = max(0.5 * np.abs(np.subtract(*local.shuffled_rr_laws(eps0, n, m))).sum() for m in range(n))
    assert math.isclose(d[0], tv, rel_tol=1e-12)


def test_large_epsilon0_has_no_nan():
    d = local.shuffled_rr_delta(30.0, 40, [0.0, 5.0, 29.0])
    assert np.all(np.isfinite(d)) and d[0] > 0.99 and d[1] > 0.99


def test_shuffled_rr_epsilon_inverts_delta():
    for eps0, n, delta in [(1.0, 200, 1e-6), (2.5, 120, 1e-3), (0.3, 60, 0.005)]:
        e = local.shuffled_rr_epsilon(eps0, n, delta)
        assert 0 < e < eps0
        assert local.shuffled_rr_delta(eps0, n, e) <= delta < local.shuffled_rr_delta(eps0, n, e - 1e-9)
    # when even epsilon = 0 meets delta the answer is 0
    tv = local.shuffled_rr_delta(0.2, 50, 0.0)
    assert local.shuffled_rr_epsilon(0.2, 50, min(0.99, 1.5 * tv)) == 0.0
    # a delta below the rounding noise at epsilon0 still returns a value that satisfies it
    e = local.shuffled_rr_epsilon(1.0, 10, 1e-300)
    assert local.shuffled_rr_delta(1.0, 10, e) <= 1e-300 and abs(e - 1.0) < 1e-9


def test_shuffled_rr_count_coupled_and_law():
    x = np.array([1, 0, 0, 1, 1, 0, 0])
    got = local.shuffled_rr_count(x, EPS, np.random.default_rng(4), size=8)
    u = np.random.default_rng(4).random((8, x.size))
    p = math.exp(EPS) / (1 + math.exp(EPS))
    assert np.array_equal(got, np.where(u < p, x, 1 - x).sum(axis=1))
    assert isinstance(local.shuffled_rr_count(x, EPS, np.random.default_rng(4)), int)
    runs = 100_000
    counts = local.shuffled_rr_count(x, EPS, np.random.default_rng(9), size=runs)
    freq = np.bincount(counts, minlength=x.size + 1) / runs
    law = count_law_by_enumeration(x, EPS)
    assert np.all(np.abs(freq - law) < 5 * np.sqrt(law * (1 - law) / runs) + 1e-12)


# --------------------------------------------------------------------------- Feldman, McMillan, Talwar
def fmt_reference(eps0, n, delta):
    """The authors' reference code's closed form (``closedformanalysis``), in mpmath at 30 digits."""
    with mp.workdps(30):
        e0 = mp.e ** mp.mpf(eps0)
        spread = 8 * mp.sqrt(e0 * mp.log(4 / mp.mpf(delta))) / mp.sqrt(n) + 8 * e0 / n
        e1 = mp.log(1 + spread)
        return float(mp.log(1 + (1 - 1 / e0) / (1 + mp.e ** (-mp.mpf(eps0) - e1)) * spread))


def fmt_paper(eps0, n, delta):
    """Theorem 3.1 as the literature quotes it: prefactor (e^eps0 - 1)/(e^eps0 + 1)."""
    with mp.workdps(30):
        e0 = mp.e ** mp.mpf(eps0)
        spread = 8 * mp.sqrt(e0 * mp.log(4 / mp.mpf(delta))) / mp.sqrt(n) + 8 * e0 / n
        return float(mp.log(1 + (e0 - 1) / (e0 + 1) * spread))


def stronger_reference(eps0, n, delta):
    with mp.workdps(30):
        e0 = mp.e ** mp.mpf(eps0)
        spread = 4 * mp.sqrt(2 * mp.log(4 / mp.mpf(delta))) / mp.sqrt((e0 + 1) * n) + mp.mpf(4) / n
        return float(mp.log(1 + (e0 - 1) * spread))


@pytest.mark.parametrize("eps0,n,delta", [(1.0, 10_000, 1e-6), (0.25, 3000, 1e-8), (2.0, 20_000, 1e-3)])
def test_fmt_epsilon_formula(eps0, n, delta):
    assert math.isclose(local.fmt_epsilon(eps0, n, delta), fmt_reference(eps0, n, delta), rel_tol=1e-12)
    # the code's form is the larger: the book's choice is the conservative one
    assert local.fmt_epsilon(eps0, n, delta) > fmt_paper(eps0, n, delta) * (1 + 1e-6)
    assert math.isclose(local.fmt_stronger_epsilon(eps0, n, delta), stronger_reference(eps0, n, delta), rel_tol=1e-12)


def test_fmt_reproduces_the_number_in_the_authors_readme():
    # README of apple/ml-shuffling-amplification: n = 100000, eps0 = 4, delta = 1e-6 gives
    # "eps is at most 0.5378040242374512" by the closed form; the paper's form gives 0.5346
    assert math.isclose(local.fmt_epsilon(4.0, 100_000, 1e-6), 0.5378040242374512, rel_tol=1e-12)
    assert abs(fmt_paper(4.0, 100_000, 1e-6) - 0.5378) > 2e-3


def test_fmt_applicability_range():
    n, delta = 5000, 1e-5
    limit = local.fmt_epsilon0_max(n, delta)
    assert math.isclose(limit, math.log(n) - math.log(16 * math.log(4 / delta)), rel_tol=1e-13)
    assert math.isclose(16 * math.exp(limit) * math.log(4 / delta), n, rel_tol=1e-12)   # n >= 16 e^eps0 log(4/delta)
    assert limit < math.log(n / (16 * math.log(2 / delta)))                           # the smaller of the two ranges
    assert math.isclose(local.fmt_epsilon(limit, n, delta), fmt_reference(limit, n, delta), rel_tol=1e-12)
    with pytest.raises(ValueError, match=r"epsilon0 must be <= log\(n / \(16 log\(4/delta\)\)\) = 3.187 .*n = 5000, "
                                         r"delta = 1e-05\), got 3.19"):
        local.fmt_epsilon(3.19, n, delta)
    assert local.fmt_epsilon0_max(20, 1e-6) < 0


def test_fmt_stronger_applicability_range():
    n, delta = 5000, 1e-5
    limit = local.fmt_stronger_epsilon0_max(n, delta)
    # 2 n / (e^eps0 + 1) >= 16 log(2/delta), with equality at the limit
    assert math.isclose(2 * n / (math.exp(limit) + 1), 16 * math.log(2 / delta), rel_tol=1e-12)
    assert limit > local.fmt_epsilon0_max(n, delta)                   # twice the clones: a wider range
    assert math.isclose(local.fmt_stronger_epsilon(limit, n, delta), stronger_reference(limit, n, delta), rel_tol=1e-12)
    with pytest.raises(ValueError, match=r"epsilon0 must be <= log\(n / \(8 log\(2/delta\)\) - 1\) = 3.916 for "
                                         r"the stronger clone bound to apply \(n = 5000, delta = 1e-05\), got 3.92"):
        local.fmt_stronger_epsilon(3.92, n, delta)
    assert local.fmt_stronger_epsilon0_max(100, 1e-6) == -math.inf       # 100 <= 8 log(2e6): no epsilon0 at all
    with pytest.raises(ValueError, match="epsilon0 must be <="):
        local.fmt_stronger_epsilon(0.01, 100, 1e-6)


def test_fmt_stronger_bound_holds_and_is_below_the_older_one():
    # on randomized response the stronger clone pair is the clone pair with r = 2/(1 + e^eps0), computed
    # exactly by fmt_clone_delta: at the closed form's epsilon its delta (and the exact one) must be <= delta
    checked = 0
    for n in (60, 150, 400, 900):
        for delta in (0.1, 1e-3, 1e-6):
            for frac in (0.1, 0.5, 1.0):
                eps0 = frac * local.fmt_stronger_epsilon0_max(n, delta)
                if not eps0 > 0:
                    continue
                eps = local.fmt_stronger_epsilon(eps0, n, delta)
                r = 2 / (1 + math.exp(eps0))
                exact = local.shuffled_rr_delta(eps0, n, eps)
                clone = local.fmt_clone_delta(eps0, n, eps, clone_probability=r)
                # at eps = eps0 (the cap) both are 0 up to rounding, ~1e-33: 1e-15 absolute slack
                assert exact <= clone * (1 + 1e-9) + 1e-15 and clone <= delta
                if eps0 <= local.fmt_epsilon0_max(n, delta):
                    assert eps <= fmt_paper(eps0, n, delta) <= local.fmt_epsilon(eps0, n, delta)
                checked += 1
    assert checked >= 25


def test_fmt_bounds_never_below_the_exact_profile():
    # at every point where Theorem 3.1 applies, the exact delta at FMT's epsilon is within delta,
    # and the clone bound (which the theorem is derived from) also holds
    checked = 0
    for eps0 in (0.2, 0.6, 1.0, 1.6):
        for delta in (0.1, 1e-2, 1e-4):
            for n in (60, 150, 400):
                if eps0 > local.fmt_epsilon0_max(n, delta):
                    continue
                eps = local.fmt_epsilon(eps0, n, delta)
                exact = local.shuffled_rr_delta(eps0, n, eps)
                clone = local.fmt_clone_delta(eps0, n, eps)
                assert exact <= clone <= delta, (eps0, delta, n)
                checked += 1
    assert checked >= 12


def test_clone_delta_matches_direct_sum():
    eps0, n = 1.2, 30
    r = math.exp(-eps0)
    p = math.exp(eps0) / (1 + math.exp(eps0))
    for eps in (0.0, 0.3, 0.9):
        total = 0.0
        for c in range(n):
            a = stats.binom.pmf(np.arange(c + 1), c, 0.5)
            law0 = (1 - p) * np.append(0, a) + p * np.append(a, 0)
            law1 = p * np.append(0, a) + (1 - p) * np.append(a, 0)
            total += stats.binom.pmf(c, n - 1, r) * loss.hockey_stick(law0, law1, eps)
        assert math.isclose(local.fmt_clone_delta(eps0, n, eps), total, rel_tol=1e-10, abs_tol=1e-16)


def test_clone_bound_orders_exact_blanket_clone():
    for eps0, n in [(1.0, 300), (2.5, 150), (0.4, 80)]:
        grid = np.array([0.05, 0.2, 0.5]) * eps0
        exact = local.shuffled_rr_delta(eps0, n, grid)
        blanket = local.fmt_clone_delta(eps0, n, grid, clone_probability=2 / (1 + math.exp(eps0)))
        clone = local.fmt_clone_delta(eps0, n, grid)
        assert np.all(exact <= blanket * (1 + 1e-12)) and np.all(blanket < clone)
        e_exact = local.shuffled_rr_epsilon(eps0, n, 1e-4)
        e_clone = local.fmt_clone_epsilon(eps0, n, 1e-4)
        e_blanket = local.fmt_clone_epsilon(eps0, n, 1e-4, clone_probability=2 / (1 + math.exp(eps0)))
        assert e_exact <= e_blanket < e_clone < eps0
        assert local.fmt_clone_delta(eps0, n, e_clone) <= 1e-4 < local.fmt_clone_delta(eps0, n, e_clone - 1e-9)


def test_blanket_bound_is_tight_for_two_users():
    # n = 2: the single other user reports a fair coin with probability 2q, else their bit;
    # the blanket bound is attained, while for more users it is strictly loose somewhere
    for eps0 in (EPS, 2.0):
        grid = eps0 * np.array([0.0, 0.25, 0.6])
        blanket_r = 2 / (1 + math.exp(eps0))
        exact = local.shuffled_rr_delta(eps0, 2, grid)
        assert np.allclose(exact, local.fmt_clone_delta(eps0, 2, grid, clone_probability=blanket_r), rtol=1e-12)
        exact5 = local.shuffled_rr_delta(eps0, 5, grid)
        blanket5 = local.fmt_clone_delta(eps0, 5, grid, clone_probability=blanket_r)
        assert np.all(exact5 <= blanket5 * (1 + 1e-12)) and np.any(exact5 < 0.99 * blanket5)


def test_clone_probability_validation():
    blanket = 2 / (1 + math.exp(1.0))
    assert local.fmt_clone_delta(1.0, 20, 0.1, clone_probability=blanket) > 0
    with pytest.raises(ValueError, match=r"clone_probability must be in \(0, 0.53"):
        local.fmt_clone_delta(1.0, 20, 0.1, clone_probability=blanket + 1e-9)
    with pytest.raises(ValueError, match="clone_probability must be in"):
        local.fmt_clone_epsilon(1.0, 20, 1e-3, clone_probability=0)
    # the default is e^{-epsilon0}
    assert local.fmt_clone_delta(1.0, 20, 0.1) == local.fmt_clone_delta(1.0, 20, 0.1, clone_probability=math.exp(-1.0))


# --------------------------------------------------------------------------- every public function checks its own inputs
@pytest.mark.parametrize("call,message", [
    (lambda: local.shuffled_rr_laws(0, 5, 1), "epsilon0 must be > 0, got 0"),
    (lambda: local.shuffled_rr_laws(1.0, 1, 0), r"n must be an integer in \[2, 10000000\], got 1"),
    (lambda: local.shuffled_rr_laws(1.0, 2.5, 0), r"n must be an integer in \[2, 10000000\], got 2.5"),
    (lambda: local.shuffled_rr_epsilon(-1, 5, 1e-3), "epsilon0 must be > 0, got -1"),
    (lambda: local.shuffled_rr_count([0, 1], 0, np.random.default_rng(0)), "epsilon0 must be > 0, got 0"),
    (lambda: local.shuffled_rr_count([0, 1], 1.0, 42), "rng must be a numpy.random.Generator"),
    (lambda: local.krr_randomize([0, 1], 1.0, 2, 42), "rng must be a numpy.random.Generator"),
    (lambda: local.fmt_clone_delta(0, 5, 0.1), "epsilon0 must be > 0, got 0"),
    (lambda: local.fmt_clone_epsilon(0, 5, 1e-3), "epsilon0 must be > 0, got 0"),
    (lambda: local.fmt_clone_epsilon(1.0, 1, 1e-3), r"n must be an integer in \[2, 2000\], got 1"),
    (lambda: local.fmt_clone_epsilon(1.0, 7.5, 1e-3), r"n must be an integer in \[2, 2000\], got 7.5"),
    (lambda: local.fmt_epsilon0_max(1, 1e-3), "n must be an integer >= 2, got 1"),
    (lambda: local.fmt_epsilon0_max(99.5, 1e-3), "n must be an integer >= 2, got 99.5"),
    (lambda: local.shuffled_rr_delta(1.0, 5, True), "epsilon must be a real number >= 0"),
    (lambda: local.oue_estimate(np.zeros((3, 4, 1)), 1.0), r"^reports must have shape \(..., n, k\)"),
    (lambda: local.oue_estimate([[0, 2], [1, 0]], 1.0), "^reports must contain only 0 and 1$"),
])
def test_every_function_names_its_bad_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_smallest_valid_inputs_and_output_types():
    # n = 2 is allowed everywhere (and fmt_epsilon0_max is then negative: log(2 / (16 log 40)))
    assert math.isclose(local.fmt_epsilon0_max(2, 0.1), math.log(2 / (16 * math.log(40))), rel_tol=1e-13)
    assert 0 < local.fmt_clone_epsilon(1.0, 2, 0.1) <= 1.0
    assert isinstance(local.fmt_clone_delta(1.0, 20, 0.1), float)
    assert local.fmt_clone_delta(1.0, 20, [0.1, 0.2]).shape == (2,)
    assert local.oue_randomize([0, 2], 1.0, 3, np.random.default_rng(1)).dtype == np.int8
    # categories missing from the reports still get their (negative) estimate: p = 3/5, q = 1/5, C = (2, 1, 0)
    assert np.allclose(local.krr_estimate([0, 1, 0], math.log(3), 3), [3.5, 1.0, -1.5], rtol=1e-12)
    assert np.allclose(local.krr_estimate([[0, 1, 0], [0, 0, 0]], math.log(3), 3), [[3.5, 1.0, -1.5], [6.0, -1.5, -1.5]])


def test_walsh_hadamard_along_the_last_axis_of_any_shape():
    # the butterfly transforms along the last axis whatever the leading shape: a single vector
    # (no leading axes) and a stack of matrices (two leading axes), against scipy's dense matrix
    rng = np.random.default_rng(31)
    for K in (2, 8):
        h1 = rng.integers(-20, 50, K)
        assert np.array_equal(local._walsh_hadamard(h1), hadamard(K) @ h1)
        h3 = rng.integers(-20, 50, (2, 3, K))
        assert np.array_equal(local._walsh_hadamard(h3), h3 @ hadamard(K).T)


def test_counts_of_ragged_nesting_are_refused_by_name():
    # numpy's own error for a ragged nesting names nothing; the rule names the parameter and its shape
    for fn in (local.oue_variance, local.hr_variance):
        with pytest.raises(ValueError, match=r"^counts must be a 1-D histogram of non-negative integers, got \[\[1, 2\], \[3\]\]$"):
            fn([[1, 2], [3]], 1.0)


def test_fmt_stronger_epsilon0_max_at_the_edge_and_its_messages():
    # log(n / (8 log(2/delta)) - 1): with delta = 2/e, 8 log(2/delta) = 8 exactly, so n = 8 sits on the
    # edge (log 0 = -inf, no epsilon0 qualifies) and n = 9 gives log(9/8 - 1) = log(1/8)
    delta = 2 / math.e
    assert local.fmt_stronger_epsilon0_max(8, delta) == -math.inf
    assert math.isclose(local.fmt_stronger_epsilon0_max(9, delta), math.log(1 / 8), rel_tol=1e-13)
    with pytest.raises(ValueError, match=r"^n must be an integer >= 2, got 1$"):
        local.fmt_stronger_epsilon0_max(1, 1e-6)
    with pytest.raises(ValueError, match=r"^epsilon0 must be > 0, got -1$"):
        local.fmt_stronger_epsilon(-1, 10_000, 1e-6)


def test_fmt_clone_delta_returns_a_float_for_a_scalar_epsilon():
    # a scalar epsilon gives a Python float (not a 0-d array), equal to that entry of the array answer
    one = local.fmt_clone_delta(1.0, 20, 0.2)
    both = local.fmt_clone_delta(1.0, 20, [0.1, 0.2])
    assert type(one) is float and one == both[1] and 0.0 < one < 1.0


# --------------------------------------------------------------------------- extreme magnitudes
def _mp_krr_estimate(support, n, eps, k):
    """(C - n q)/(p - q) with 50 digits to spare after the cancellation (e^1e-300 - 1 needs 300 more)."""
    with mp.workdps(400):
        e = mp.exp(mp.mpf(eps))
        p, q = e / (e + k - 1), 1 / (e + k - 1)
        return [float((c - n * q) / (p - q)) for c in support]


def _mp_oue_estimate(support, n, eps):
    with mp.workdps(400):
        q = 1 / (1 + mp.exp(mp.mpf(eps)))
        return [float((c - n * q) / (mp.mpf(1) / 2 - q)) for c in support]


@pytest.mark.parametrize("eps", [1e-300, 1e-10, 1e-5])
def test_krr_and_oue_estimates_at_a_tiny_epsilon_do_not_cancel(eps):
    """C - n q cancelled: q rounds to 1/k, so a balanced histogram (C = n/k) gave 0 at 1e-300 and
    2.00000017 at 1e-10 instead of n/k = 2; the estimate is (k C - n)/(k (p - q)) + n/k (mpmath)."""
    assert local.krr_estimate([0, 1, 2, 0, 1, 2], eps, 3).tolist() == pytest.approx([2.0] * 3, rel=1e-13, abs=0)
    got = local.krr_estimate([0, 1, 1, 2, 2, 2], eps, 3)
    assert got.tolist() == pytest.approx(_mp_krr_estimate([1, 2, 3], 6, eps, 3), rel=1e-13, abs=0)
    assert local.oue_estimate([[1, 0], [0, 1]], eps).tolist() == pytest.approx([2.0, 2.0], rel=1e-13, abs=0)
    got = local.oue_estimate([[1, 0], [1, 1], [1, 0]], eps)
    assert got.tolist() == pytest.approx(_mp_oue_estimate([3, 1], 3, eps), rel=1e-13, abs=0)


def test_frequency_estimates_at_the_smallest_subnormal_epsilon():
    """epsilon = 5e-324: epsilon/2 rounds to 0, and hr_estimate gave 0/0 = nan ([nan, inf] on the
    reports below). The limit of T/tanh(eps/2) = 2T/eps: 0 where the transform T is 0, +-inf where the
    true estimate (about 4e323 T) exceeds the largest float."""
    tiny = 5e-324
    assert local.hr_estimate([0, 0, 1, 3], tiny, 2).tolist() == [0.0, math.inf]
    assert local.hr_estimate([0, 1, 2, 3], tiny, 2).tolist() == [0.0, 0.0]
    with mp.workdps(50):
        want = float(2 / mp.tanh(mp.mpf(1e-300) / 2))             # T = (0, 2)
    assert local.hr_estimate([0, 0, 1, 3], 1e-300, 2).tolist() == pytest.approx([0.0, want], rel=1e-15, abs=0)
    # (k C - n)/(k (p - q)) + n/k: exact n/k where k C = n; +-inf elsewhere
    assert local.krr_estimate([0, 1, 2, 0, 1, 2], tiny, 3).tolist() == [2.0, 2.0, 2.0]
    assert local.krr_estimate([0, 1, 1, 1], tiny, 2).tolist() == [-math.inf, math.inf]
    assert local.oue_estimate([[1, 0], [0, 1]], tiny).tolist() == [2.0, 2.0]


def test_variances_at_a_tiny_epsilon():
    """Var = n q(1-q)/(p-q)^2 + ... -> inf as epsilon -> 0, but 0 with no reports: all three gave 0/0 =
    nan for counts [0, 0] once (p - q)^2 underflowed (epsilon = 1e-300)."""
    for fn in (local.krr_variance, local.oue_variance, local.hr_variance):
        for eps in (5e-324, 1e-300):
            assert fn([0, 0], eps).tolist() == [0.0, 0.0]
            assert fn([3, 1], eps).tolist() == [math.inf, math.inf]
    # just above the overflow: HR's n/tanh^2(eps/2) - n_v at eps = 1e-150 (mpmath), finite
    with mp.workdps(50):
        want = [float(4 / mp.tanh(mp.mpf(1e-150) / 2) ** 2 - v) for v in (3, 1)]
    assert local.hr_variance([3, 1], 1e-150).tolist() == pytest.approx(want, rel=1e-14, abs=0)


def test_clone_bound_at_a_huge_epsilon0():
    """The default r = e^-eps0 underflows past 745 (log(0) raised "math domain error") and the blanket
    2/(1 + e^eps0) overflowed exp (OverflowError). With no clones left the bound is the local one,
    delta(eps) = (e^eps0 - e^eps)/(1 + e^eps0) of randomized response (mpmath)."""
    with mp.workdps(50):
        want = float((mp.exp(1000) - mp.exp(995)) / (1 + mp.exp(1000)))
    assert local.fmt_clone_delta(1000.0, 100, 995.0) == pytest.approx(want, rel=1e-12, abs=0)
    assert local.fmt_clone_delta(1e300, 100, [0.0, 0.5, 1e4]).tolist() == [1.0, 1.0, 1.0]
    # smallest eps with delta(eps) <= 1e-6: eps0 + log(1 - 1e-6 (1 + e^-eps0)), to brentq's 1e-13 relative
    e = local.fmt_clone_epsilon(1000.0, 500, 1e-6)
    assert e == pytest.approx(1000.0 + math.log1p(-1e-6), abs=1e-9)
    assert local.fmt_clone_delta(1000.0, 500, e) <= 1e-6
    assert local.fmt_clone_epsilon(1e300, 500, 1e-6) == 1e300
    # an explicit r cannot be below a blanket that rounds to 0: refused through both parameters
    with pytest.raises(ValueError, match=r"^clone_probability must be in \(0, 2/\(1 \+ e\^epsilon0\)\].*"
                                         r"got clone_probability = 0.1 at epsilon0 = 1e\+300$"):
        local.fmt_clone_delta(1e300, 100, 0.5, clone_probability=0.1)
    with pytest.raises(ValueError, match=r"epsilon0 > 745.8"):
        local.fmt_clone_epsilon(746.0, 100, 1e-6, clone_probability=1e-300)


@pytest.mark.parametrize("eps0", [709.5, 720.0, 740.0, 745.0, 745.5, 745.8])
def test_clone_blanket_is_two_over_one_plus_e_to_the_eps0_within_an_ulp(eps0):
    """Past epsilon0 = 709 the blanket 2/(1 + e^eps0) is a subnormal: the float just below it (mpmath)
    is accepted and the float after the one just above is refused. 2 exp(-eps0) reached 0 at 745.13,
    below the 745.8 the message states (5e-324 refused at 745.5, where 2/(1 + e^745.5) = 3.4e-324 is
    within an ulp); exp(log 2 - eps0) was 250 ulps off at 709.5 (the exponent rounded to 1e-13)."""
    with mp.workdps(50):
        true = 2 / (1 + mp.exp(mp.mpf(eps0)))
        below = float(true) if mp.mpf(float(true)) <= true else math.nextafter(float(true), 0.0)
        above = math.nextafter(below, math.inf) if mp.mpf(below) < true else below
    assert above > 0.0
    if below > 0.0:
        assert 0.0 <= local.fmt_clone_delta(eps0, 2, 0.5, clone_probability=below) <= 1.0
    with pytest.raises(ValueError, match=r"^clone_probability must be in \(0, "):
        local.fmt_clone_delta(eps0, 2, 0.5, clone_probability=math.nextafter(above, math.inf))
    if eps0 == 745.0:          # 2/(1 + e^745) = 5.6e-324, nearest 4.9e-324: 1e-323 (9.9e-324, the float above) out
        with pytest.raises(ValueError, match=r"^clone_probability must be in \(0, "):
            local.fmt_clone_delta(745.0, 2, 0.5, clone_probability=1e-323)


def test_randomizers_take_every_int64_category_and_refuse_more_by_name():
    """k = 2**63 raised numpy's OverflowError (krr) or "high is out of bounds for int64" (hr), and
    krr_probabilities(1.0, 10**400) "int too large to convert to float"; x = 2.0**63 passed the range
    check for k = 2**63 - 1 (k - 1 rounded to a float) and was cast to -2**63. At k = 2**63 - 1, x + J
    overflowed int64: the replacement (x + J) % k is checked against Python's exact integers on the
    same draws (U then J, as documented)."""
    k = 2**63 - 1
    for f in (local.krr_randomize, local.hr_randomize):
        with pytest.raises(ValueError, match=r"^k must be an integer in \[2, 9223372036854775807\], got 9223372036854775808$"):
            f([0, 1], 1.0, 2**63, np.random.default_rng(0))
        with pytest.raises(ValueError, match=r"^x must contain integers in \[0, 9223372036854775806\]"):
            f(np.array([2.0**63]), 1.0, k, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^k must be an integer in \[2, 10\*\*300\] .*got an integer of 401 digits$"):
        local.krr_probabilities(1.0, 10**400)
    with mp.workdps(30):
        e = mp.e
        want = (float(e / (e + mp.mpf(10) ** 300 - 1)), float(1 / (e + mp.mpf(10) ** 300 - 1)))
    assert local.krr_probabilities(1.0, 10**300) == pytest.approx(want, rel=1e-15, abs=0)
    x = np.array([k - 1, k - 2, 0, 2**62], dtype=np.int64)
    eps = 1e-9
    p, _ = local.krr_probabilities(eps, k)
    rng = np.random.default_rng(3)
    u, j = rng.random((50, 4)), rng.integers(1, k, size=(50, 4))
    want = [[int(x[c]) if u[r, c] < p else (int(x[c]) + int(j[r, c])) % k for c in range(4)] for r in range(50)]
    got = local.krr_randomize(x, eps, k, np.random.default_rng(3), size=50)
    assert got.dtype == np.int64 and got.tolist() == want
    assert not (got == x).any()                       # p = 1e-19: every report is another category
    # Hadamard response: K = 2**63, a report in C_v (an even popcount of (v + 1) & j) exactly when U < p
    big, p_hr = local.hr_parameters(eps, k)
    assert big == 2**63
    got = local.hr_randomize(x, eps, k, np.random.default_rng(4), size=50)
    u = np.random.default_rng(4).random((50, 4))
    assert all(0 <= int(v) < big for v in got.ravel())
    assert all((((int(x[c]) + 1) & int(got[r, c])).bit_count() % 2 == 0) == (u[r, c] < p_hr)
               for r in range(50) for c in range(4))


@pytest.mark.parametrize("delta", [5e-324, 1e-310, 4e-308])
def test_fmt_bounds_at_a_subnormal_delta(delta):
    """4 / delta and 2 / delta overflowed to inf below delta = 2.2e-308: the largest epsilon0 came out
    -inf and every epsilon0 was refused. The limits against 50-digit mpmath; the bounds finite, and
    larger than at delta = 1e-300 (a smaller delta costs more epsilon)."""
    n = 10**6
    with mp.workdps(50):
        d = mp.mpf(delta)
        first = mp.log(n / (16 * mp.log(4 / d)))
        stronger = mp.log(n / (8 * mp.log(2 / d)) - 1)
    assert local.fmt_epsilon0_max(n, delta) == pytest.approx(float(first), rel=1e-14, abs=0)
    assert local.fmt_stronger_epsilon0_max(n, delta) == pytest.approx(float(stronger), rel=1e-14, abs=0)
    for bound in (local.fmt_epsilon, local.fmt_stronger_epsilon):
        assert 0 < bound(0.5, 10**6, 1e-300) < bound(0.5, 10**6, delta) < 0.5


def test_huge_sizes_and_counts_are_refused_by_name():
    """At 2**31 these built arrays of 16 GiB or more (MemoryError; hr_estimate: OverflowError at
    2**62). Each cap is the message's range; the exact tables are capped by their time."""
    rng = np.random.default_rng(0)
    cases = [
        (lambda v: local.krr_randomize([0, 3], 1.0, 4, rng, size=v), "size", 1, 10**8),
        (lambda v: local.oue_randomize([0], 1.0, v, rng), "k", 2, 10**8),
        (lambda v: local.krr_estimate([0, 1], 1.0, v), "k", 2, 10**8),
        (lambda v: local.hr_estimate([0, 1], 1.0, v), "k", 2, 10**7),
        (lambda v: local.shuffled_rr_count([1, 0], 1.0, rng, size=v), "size", 1, 10**8),
        (lambda v: local.shuffled_rr_laws(1.0, v, 1), "n", 2, 10**7),
        (lambda v: local.shuffled_rr_delta(1.0, v, 0.5), "n", 2, 5000),
        (lambda v: local.shuffled_rr_epsilon(1.0, v, 1e-6), "n", 2, 5000),
        (lambda v: local.fmt_clone_delta(1.0, v, 0.5), "n", 2, 2000),
        (lambda v: local.fmt_clone_epsilon(1.0, v, 1e-6), "n", 2, 2000),
    ]
    for call, name, low, high in cases:
        for value in (2**31, 2**62):
            with pytest.raises(ValueError) as info:
                call(value)
            assert str(info.value) == f"{name} must be an integer in [{low}, {high}], got {value}"
    p, q = local.shuffled_rr_laws(1.0, 10**5, 1)          # far below the cap, still exact laws
    assert p.sum() == pytest.approx(1.0) and q.sum() == pytest.approx(1.0)
