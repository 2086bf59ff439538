"""Property tests of dpnotes.flawed over its documented domain (Hypothesis).

Samplers: ``laplace_noise``, the six sparse-vector variants, report noisy max and the leaky
Laplace mechanism equal their written recipes on the same seed, for any scale, answers,
threshold, cut-off and number of runs. Exact laws: the no-cut-off pattern probabilities sum to
one; the density of the released maximum integrates to one and is the derivative of its
distribution function (finite differences of the product of the noise CDFs). Privacy functions
against brute force, at epsilon drawn log-uniformly (never only at 1): the Laplace noisy-max
value's log-ratio, computed on a grid of outputs for random neighbours, never exceeds
``noisy_max_value_epsilon`` and reaches it when every answer moves up by one; exponential
noise makes some output impossible on one side (infinite); AboveThreshold with the scales of
Lyu et al.'s Algorithms 1 and 4 (cut-off 1), computed exactly with dpnotes.svt, stays within
``lyu_privacy``. All of these grow with epsilon.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import profiles
from dpnotes import flawed, svt

SEED = st.integers(0, 2**32 - 1)
LOG_EPS = st.floats(math.log10(0.01), math.log10(10.0)).map(lambda x: 10.0**x)
ANSWERS = st.lists(st.floats(-5.0, 5.0), min_size=1, max_size=6).map(np.array)


def recipe_laplace(rng, scale, shape):
    """Exp(1) draws, then one byte per eight values whose bits (most significant first) are signs."""
    e = rng.standard_exponential(shape)
    n = int(np.prod(shape))
    signs = np.unpackbits(np.frombuffer(rng.bytes(-(-n // 8)), dtype=np.uint8), count=n).reshape(np.shape(e))
    return np.where(signs == 1, -e, e) * scale


@given(scale=st.floats(1e-300, 1e300), shape=st.integers(0, 40) | st.tuples(st.integers(0, 5), st.integers(0, 9)),
       seed=SEED)
def test_laplace_noise_is_a_signed_exponential(scale, shape, seed):
    got = flawed.laplace_noise(scale, shape, np.random.default_rng(seed))
    want = recipe_laplace(np.random.default_rng(seed), scale, shape)
    assert got.shape == np.shape(want) and np.array_equal(got, want)


@given(alg=st.integers(1, 6), eps=LOG_EPS, c=st.integers(1, 5), grow=st.floats(1.0, 10.0))
def test_noise_scales_and_privacy_are_monotone(alg, eps, c, grow):
    b_rho, b_nu = flawed.lyu_noise_scales(alg, eps, c)
    b2_rho, b2_nu = flawed.lyu_noise_scales(alg, eps * grow, c)
    assert b2_rho <= b_rho and b2_nu <= b_nu                 # a larger budget, less noise
    assert math.isclose(b2_rho * eps * grow, b_rho * eps, rel_tol=1e-12)   # scales are proportional to 1/eps
    priv = flawed.lyu_privacy(alg, eps, c)
    assert priv >= eps and flawed.lyu_privacy(alg, eps * grow, c) >= priv
    assert flawed.lyu_privacy(alg, eps, c + 1) >= priv
    assert flawed.noisy_max_value_epsilon(c, eps * grow) >= flawed.noisy_max_value_epsilon(c, eps)


def reference_variant(answers, threshold, eps, size, seed, alg, c):
    """The variants written run by run; the random numbers are drawn in the order the module
    documents (the threshold noise of every run, then query by query the query noise of the runs
    still going, then for Algorithm 2 fresh threshold noise for the runs that just had a top; with
    c = 1 no run goes on after a top, and the module skips that unused draw)."""
    rng = np.random.default_rng(seed)
    b_rho, b_nu = flawed.lyu_noise_scales(alg, eps, c)
    k = answers.size
    rho = recipe_laplace(rng, b_rho, size)
    if alg in (5, 6):
        nu = 0.0 if alg == 5 else recipe_laplace(rng, b_nu, (size, k))
        return (answers + nu >= threshold + rho[:, None]).astype(float)
    out = np.full((size, k), np.nan if alg == 3 else -1.0)
    tops = np.zeros(size, dtype=int)
    for i in range(k):
        going = [r for r in range(size) if tops[r] < c]
        if not going:
            break
        noise = recipe_laplace(rng, b_nu, len(going))
        hits = []
        for r, z in zip(going, noise):
            value = answers[i] + z
            above = value >= threshold + rho[r]
            out[r, i] = (value if above else -np.inf) if alg == 3 else float(above)
            if above:
                tops[r] += 1
                hits.append(r)
        if alg == 2 and hits and c > 1:
            rho[hits] = recipe_laplace(rng, b_rho, len(hits))
    return out


@given(answers=ANSWERS, threshold=st.floats(-5.0, 5.0), eps=LOG_EPS, size=st.integers(1, 30), seed=SEED,
       alg=st.integers(1, 6), c=st.integers(1, 3))
def test_sparse_vector_variants_follow_the_published_pseudocode(answers, threshold, eps, size, seed, alg, c):
    got = flawed.sparse_vector_variant(answers, threshold, eps, size, rng=np.random.default_rng(seed),
                                       algorithm=alg, c=c)
    want = reference_variant(answers, threshold, eps, size, seed, alg, c)
    np.testing.assert_array_equal(np.asarray(got, dtype=float), want)


@given(answers=ANSWERS, eps=LOG_EPS, size=st.integers(1, 50), seed=SEED, noise=st.sampled_from(["laplace", "exponential"]))
def test_noisy_max_index_and_value_come_from_the_same_noisy_answers(answers, eps, size, seed, noise):
    rng = np.random.default_rng(seed)
    shape = (answers.size, size)
    z = recipe_laplace(rng, 2 / eps, shape) if noise == "laplace" else rng.standard_exponential(shape) * (2 / eps)
    noisy = answers[:, None] + z
    idx = flawed.noisy_max(answers, eps, size, rng=np.random.default_rng(seed), noise=noise)
    val = flawed.noisy_max(answers, eps, size, rng=np.random.default_rng(seed), noise=noise, release="value")
    assert np.array_equal(idx, np.argmax(noisy, axis=0)) and np.array_equal(val, noisy.max(axis=0))
    assert np.array_equal(val, noisy[idx, np.arange(size)])


@given(value=st.floats(-1e6, 1e6), eps=LOG_EPS, size=st.integers(1, 50), leak=st.floats(0.0, 1.0), seed=SEED)
def test_rare_leak_releases_the_value_exactly_on_its_event(value, eps, size, leak, seed):
    rng = np.random.default_rng(seed)
    want = value + recipe_laplace(rng, 1 / eps, size)
    want[rng.random(size) < leak] = value
    got = flawed.laplace_with_rare_leak(value, eps, size, rng=np.random.default_rng(seed), leak_probability=leak)
    assert np.array_equal(got, want)


# --------------------------------------------------------------------------- exact laws
@settings(max_examples=profiles.size(fast=10, thorough=200))
@given(answers=st.lists(st.floats(-3.0, 3.0), min_size=1, max_size=3).map(np.array), threshold=st.floats(-3.0, 3.0),
       eps=LOG_EPS, alg=st.sampled_from([5, 6]))
def test_no_cutoff_pattern_laws_sum_to_one(answers, threshold, eps, alg):
    k = answers.size
    patterns = (np.arange(2**k)[:, None] >> np.arange(k)) & 1
    lp = flawed.no_cutoff_pattern_log_probabilities(answers, threshold, eps, patterns, algorithm=alg)
    assert math.isclose(np.exp(lp).sum(), 1.0, rel_tol=1e-8)


@settings(max_examples=profiles.size(fast=6, thorough=60))          # quad calls the density point by point
@given(answers=st.lists(st.floats(-3.0, 3.0), min_size=1, max_size=4).map(np.array), eps=LOG_EPS,
       noise=st.sampled_from(["laplace", "exponential"]))
def test_value_density_integrates_to_one_and_is_the_cdf_derivative(answers, eps, noise):
    b = 2 / eps
    dist = stats.laplace(scale=b) if noise == "laplace" else stats.expon(scale=b)

    def cdf(y):
        return np.prod(dist.cdf(np.subtract.outer(np.atleast_1d(y), answers)), axis=-1)

    lo = answers.min() - 40 * b if noise == "laplace" else answers.max()
    pts = sorted(set(answers.tolist()))
    total = sum(integrate.quad(lambda y: math.exp(flawed.noisy_max_value_log_density(y, answers, eps, noise=noise)[0]),
                               a, z, limit=200, epsabs=0, epsrel=1e-10)[0]
                for a, z in zip([lo, *pts], [*pts, answers.max() + 60 * b]) if z > a)
    assert math.isclose(total, 1.0, rel_tol=1e-7)
    # away from the kinks: central differences of the CDF, step h = b * 1e-5 (error O(h^2))
    ys = np.linspace(answers.min() - 3 * b, answers.max() + 3 * b, 25)
    ys = ys[np.min(np.abs(np.subtract.outer(ys, answers)), axis=1) > 1e-3 * b]
    h = b * 1e-5
    numeric = (cdf(ys + h) - cdf(ys - h)) / (2 * h)
    dens = np.exp(flawed.noisy_max_value_log_density(ys, answers, eps, noise=noise))
    assert np.allclose(dens, numeric, rtol=1e-5, atol=1e-9 / b)


# --------------------------------------------------------------------------- privacy against brute force
@given(answers=st.lists(st.floats(-3.0, 3.0), min_size=1, max_size=5).map(np.array), eps=LOG_EPS, data=st.data())
def test_noisy_max_value_epsilon_is_the_largest_log_ratio(answers, eps, data):
    """On a grid of outputs reaching far below every answer, random neighbours never exceed
    n eps / 2, and moving every answer up by one reaches it (to 1e-9) below all of them."""
    n = answers.size
    claim = flawed.noisy_max_value_epsilon(n, eps)
    assert math.isclose(claim, n * eps / 2, rel_tol=1e-15)
    move = np.array(data.draw(st.lists(st.floats(-1.0, 1.0), min_size=n, max_size=n)))
    b = 2 / eps
    ys = np.linspace(answers.min() - 2 - 30 * b, answers.max() + 2 + 30 * b, 4001)
    la = flawed.noisy_max_value_log_density(ys, answers, eps)
    lb = flawed.noisy_max_value_log_density(ys, answers + move, eps)
    assert np.max(np.abs(la - lb)) <= claim * (1 + 1e-9) + 1e-12
    up = flawed.noisy_max_value_log_density(ys, answers + 1, eps)
    assert np.max(np.abs(la - up)) == pytest.approx(claim, rel=1e-9, abs=0)


@given(answers=st.lists(st.floats(-3.0, 3.0), min_size=1, max_size=4).map(np.array), eps=LOG_EPS)
def test_exponential_noise_makes_some_value_impossible_on_a_neighbour(answers, eps):
    """Every answer up by one: outputs in [max f, max f + 1) have density 0 on the neighbour."""
    assert math.isinf(flawed.noisy_max_value_epsilon(answers.size, eps, noise="exponential"))
    y = answers.max() + 0.5
    here = flawed.noisy_max_value_log_density(y, answers, eps, noise="exponential")[0]
    there = flawed.noisy_max_value_log_density(y, answers + 1, eps, noise="exponential")[0]
    assert np.isfinite(here) and there == -np.inf


@settings(max_examples=profiles.size(fast=15, thorough=300))
@given(k=st.integers(1, 4), eps=LOG_EPS, alg=st.sampled_from([1, 4]), data=st.data())
def test_cutoff_one_variants_stay_within_lyu_privacy(k, eps, alg, data):
    """Algorithms 1 and 4 with c = 1 are AboveThreshold with their own noise scales, whose exact
    output law dpnotes.svt computes: on drawn neighbours the log-ratio is at most lyu_privacy."""
    b_rho, b_nu = flawed.lyu_noise_scales(alg, eps, 1)
    x = np.array(data.draw(st.lists(st.floats(-4 * b_rho, 4 * b_rho), min_size=k, max_size=k)))
    move = np.array(data.draw(st.lists(st.floats(-1.0, 1.0), min_size=k, max_size=k)))
    ratio = svt.max_log_ratio(x, x + move, 0.0, eps, threshold_scale=b_rho, query_scale=b_nu)
    assert ratio <= flawed.lyu_privacy(alg, eps, 1) * (1 + 1e-7) + 1e-10


def test_algorithm_4_exceeds_its_claim_at_several_epsilons():
    """And the claim eps is false for Algorithm 4 at every epsilon tried (the page's family:
    earlier queries up by one, the last one down by one)."""
    for eps in (0.05, 0.4, 2.0):
        b_rho, b_nu = flawed.lyu_noise_scales(4, eps)
        m = 10
        x = np.append(np.full(m, 100 * b_nu), -100 * b_nu)
        ratio = svt.max_log_ratio(x, x + np.append(np.ones(m), -1.0), 0.0, eps, threshold_scale=b_rho, query_scale=b_nu)
        assert eps < ratio <= flawed.lyu_privacy(4, eps) * (1 + 1e-7), eps


def test_reference_cases_are_broken_and_their_bounds_are_sound():
    for case in flawed.dpsniper_cases():
        assert case.true_epsilon > case.claimed                  # each is a broken claim
        assert case.dpsniper <= case.true_epsilon                # a lower bound cannot pass the truth


# --------------------------------------------------------------------------- bad input
RNG = np.random.default_rng(0)
SCALAR_BAD = [math.nan, math.inf, None, "1", [1.0, 2.0], True]
ARRAY_BAD = ["abc", None, [1.0, "a"], [math.nan, 1.0], [[1.0], [2.0, 3.0]], [True, False]]
CALLS = {
    "laplace_noise": (flawed.laplace_noise, dict(scale=1.0, shape=3, rng=RNG)),
    "lyu_noise_scales": (flawed.lyu_noise_scales, dict(algorithm=1, epsilon=1.0, c=1)),
    "sparse_vector_variant": (flawed.sparse_vector_variant,
                              dict(answers=[0.0, 1.0], threshold=0.0, epsilon=1.0, size=2, rng=RNG, algorithm=1, c=1)),
    "lyu_privacy": (flawed.lyu_privacy, dict(algorithm=1, epsilon=1.0, c=1)),
    "no_cutoff_pattern_log_probabilities": (flawed.no_cutoff_pattern_log_probabilities,
                                            dict(answers=[0.0, 1.0], threshold=0.0, epsilon=1.0, patterns=[[1, 0]],
                                                 algorithm=6)),
    "noisy_max": (flawed.noisy_max, dict(answers=[0.0, 1.0], epsilon=1.0, size=2, rng=RNG)),
    "noisy_max_value_log_density": (flawed.noisy_max_value_log_density, dict(y=[0.0, 1.0], answers=[0.0, 1.0],
                                                                             epsilon=1.0)),
    "noisy_max_value_epsilon": (flawed.noisy_max_value_epsilon, dict(n_answers=3, epsilon=1.0)),
    "laplace_with_rare_leak": (flawed.laplace_with_rare_leak,
                               dict(value=1.0, epsilon=1.0, size=3, rng=RNG, leak_probability=0.1)),
}
ARRAYS = {"answers", "patterns", "y"}
CASES = [(name, param, bad) for name, (_, kwargs) in CALLS.items() for param in kwargs if param != "rng"
         for bad in (ARRAY_BAD if param in ARRAYS else SCALAR_BAD)
         if not (param == "shape" and isinstance(bad, list)) and not (param == "patterns" and bad == [True, False])]


@pytest.mark.parametrize("name, param, bad", CASES, ids=[f"{n}-{p}-{b!r}" for n, p, b in CASES])
def test_every_numeric_parameter_rejects_bad_values_by_name(name, param, bad):
    fn, kwargs = CALLS[name]
    fn(**kwargs)
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        fn(**{**kwargs, param: bad})
