"""Property tests of dpnotes.discrete over its whole documented domain (Hypothesis).

Exact samplers: for rational parameters, the law found by following every bit string
(``exact_output_law``) is a sub-distribution that, with the unresolved mass, sums to one exactly,
is symmetric exactly, and brackets the closed-form pmf (mpmath); seeded goodness of fit over scales
from 0.1 to 1e4; the mechanisms add exactly the samplers' draws (same seed), never wrap around in
int64 (they did). Pmfs sum to one and match brute-force normalizers. Privacy profiles: within
[0, 1], non-increasing in epsilon, non-decreasing in the sensitivity, equal to a brute-force
hockey-stick sum, zero from Delta/t on for the discrete Laplace and below the zCDP bound for the
discrete Gaussian (CKS: rho = Delta^2 / (2 sigma^2)). The discrete Laplace profile falls as the
scale grows (a theorem: the discrete Laplace law of a larger scale is that of a smaller one
convolved with a probability law, so a post-processing); the discrete Gaussian's does *not*
always (``test_discrete_gaussian_profile_is_not_monotone_in_sigma``). Floating point: the
rounding model is monotone, idempotent and within half a unit in the last place; the textbook
sampler is monotone in its uniform draw and every output it produces is recognized by
``textbook_laplace_can_output``; the snapping mechanism's exact law meets
``snapping_epsilon`` on every neighbouring pair drawn, and its outputs lie on its grid.
"""

import math
import random
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import profiles
from dpnotes import discrete as dsc

SEED = st.integers(0, 2**32 - 1)
RATIONAL = st.builds(Fraction, st.integers(1, 40), st.integers(1, 12))
LOG_SIGMA = st.floats(math.log10(0.1), 4.0).map(lambda x: 10.0**x)       # 0.1 .. 1e4, log-uniform
# the enumerations of exact_output_law double with every bit: keep them short in the fast profile
ENUM = settings(max_examples=profiles.size(fast=8, thorough=60))
MAX_BITS = profiles.size(fast=11, thorough=13)


def mpq(q: Fraction):
    return mp.mpf(q.numerator) / q.denominator


def brute_gaussian(sigma):
    """The pmf of N_Z(0, sigma^2) on |y| <= 40 sigma + 40, normalized by a direct sum (math.fsum)."""
    m = int(40 * sigma) + 40
    y = np.arange(-m, m + 1)
    w = np.exp(-(y * y) / (2.0 * sigma * sigma))
    return y, w / math.fsum(w)


# --------------------------------------------------------------------------- exact samplers, by enumeration
@ENUM
@given(gamma=st.builds(Fraction, st.integers(0, 30), st.integers(1, 8)))
def test_bernoulli_exp_law_brackets_exp_minus_gamma(gamma):
    law, rest = dsc.exact_output_law(lambda src: dsc.bernoulli_exp(gamma, src), MAX_BITS)
    assert sum(law.values()) + rest == 1 and set(law) <= {0, 1}
    target = mp.exp(-mpq(gamma))
    assert mpq(law.get(1, Fraction(0))) <= target <= mpq(law.get(1, Fraction(0)) + rest)
    assert mpq(law.get(0, Fraction(0))) <= 1 - target <= mpq(law.get(0, Fraction(0)) + rest)


@ENUM
@given(scale=RATIONAL.filter(lambda t: Fraction(1, 4) <= t <= 6))
def test_discrete_laplace_law_brackets_the_pmf(scale):
    law, rest = dsc.exact_output_law(lambda src: dsc.sample_discrete_laplace(scale, src), MAX_BITS)
    assert sum(law.values()) + rest == 1
    r = mp.exp(-1 / mpq(scale))
    for y, prob in law.items():
        pmf = (1 - r) / (1 + r) * r ** abs(y)
        assert mpq(prob) <= pmf <= mpq(prob + rest), y
        assert law.get(-y) == prob            # the sign is the last bit read: exactly symmetric


@ENUM
@given(sigma=RATIONAL.filter(lambda s: Fraction(1, 4) <= s <= 3))
def test_discrete_gaussian_law_brackets_the_pmf(sigma):
    law, rest = dsc.exact_output_law(lambda src: dsc.sample_discrete_gaussian(sigma, src), MAX_BITS)
    assert sum(law.values()) + rest == 1
    s = mpq(sigma)
    z = mp.fsum(mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) for y in range(-60, 61))
    for y, prob in law.items():
        pmf = mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) / z
        assert mpq(prob) <= pmf <= mpq(prob + rest), y
        assert law.get(-y) == prob


def _chi2(draws, pmf_of, sigma):
    """Chi-square goodness of fit on about 12 bins of width ~sigma/2 and the two tails."""
    width = max(1, int(sigma / 2))
    edges = np.arange(-6, 7) * width                     # bins (edges[i], edges[i+1]]
    ys = np.arange(edges[0] - 40 * width - 40, edges[-1] + 40 * width + 41)
    p = pmf_of(ys)
    binned = [p[ys <= edges[0]].sum()] + [p[(ys > a) & (ys <= b)].sum() for a, b in zip(edges[:-1], edges[1:])] \
        + [p[ys > edges[-1]].sum()]
    counts = [np.sum(draws <= edges[0])] + [np.sum((draws > a) & (draws <= b)) for a, b in zip(edges[:-1], edges[1:])] \
        + [np.sum(draws > edges[-1])]
    exp = np.array(binned) / np.sum(binned) * draws.size
    keep = exp > 5                                       # pool the bins expected to hold fewer draws
    counts = np.array(counts)
    obs, exp_kept = counts[keep], exp[keep]
    rest, rest_obs = exp[~keep].sum(), counts[~keep].sum()
    if rest >= 5:
        obs, exp_kept = np.r_[obs, rest_obs], np.r_[exp_kept, rest]
    elif rest_obs:                                       # fewer than 5 expected: fold into the largest bin
        i = np.argmax(exp_kept)
        obs, exp_kept = obs.copy(), exp_kept.copy()
        obs[i] += rest_obs
        exp_kept[i] += rest
    if obs.size == 1:             # one bin (sigma = 0.1: all mass at 0): the tail count is Poisson(rest)
        return float(stats.poisson.sf(rest_obs - 1, rest)) if rest > 0 else float(rest_obs == 0)
    return stats.chisquare(obs, exp_kept * obs.sum() / exp_kept.sum()).pvalue


@settings(max_examples=profiles.size(fast=6, thorough=40))
@given(sigma=LOG_SIGMA, seed=SEED)
def test_samplers_fit_their_pmfs_from_sigma_0_1_to_1e4(sigma, seed):
    """Seeded goodness of fit; p-value threshold 1e-6 (a false alarm once in a million runs)."""
    n = profiles.size(fast=1500, thorough=4000)
    rng = random.Random(seed)
    sigma = Fraction(sigma).limit_denominator(1000)
    draws = np.array([dsc.sample_discrete_gaussian(sigma, rng) for _ in range(n)])
    ys_b, p_b = brute_gaussian(float(sigma))
    table = dict(zip(ys_b.tolist(), p_b.tolist()))
    assert _chi2(draws, lambda ys: np.array([table.get(int(y), 0.0) for y in ys]), float(sigma)) > 1e-6
    draws = np.array([dsc.sample_discrete_laplace(sigma, rng) for _ in range(n)])
    r = math.exp(-1 / float(sigma))
    assert _chi2(draws, lambda ys: (1 - r) / (1 + r) * r ** np.abs(ys), float(sigma)) > 1e-6


@given(values=st.lists(st.integers(-(2**62), 2**62), min_size=0, max_size=6), scale=RATIONAL, seed=SEED,
       numpy_rng=st.booleans())
def test_mechanisms_add_exactly_the_samplers_draws(values, scale, seed, numpy_rng):
    """Vectorized equals scalar under the same seed: the noise is the sequence of sampler draws."""
    def rng():
        return np.random.default_rng(seed) if numpy_rng else random.Random(seed)
    for mech, sampler in ((dsc.discrete_laplace_mechanism, dsc.sample_discrete_laplace),
                          (dsc.discrete_gaussian_mechanism, dsc.sample_discrete_gaussian)):
        out = mech(values, scale, rng=rng())
        src = rng()
        if numpy_rng:                                  # the mechanism seeds one random.Random from 128 bits
            src = random.Random(int.from_bytes(src.bytes(16), "little"))
        draws = [sampler(scale, src) for _ in values]
        assert out.dtype == np.int64 and out.tolist() == [v + d for v, d in zip(values, draws)]


@given(value=st.integers(2**63 - 2**12, 2**63 - 1) | st.integers(-(2**63), -(2**63) + 2**12), seed=SEED)
def test_mechanisms_never_wrap_around_int64(value, seed):
    """Regression: value + noise was added in int64 and wrapped around silently near 2**63.
    Either the release equals value + the draws in exact integers, or a ValueError says it does
    not fit; never a wrapped number."""
    scale = 2**12
    try:
        out = dsc.discrete_laplace_mechanism([value] * 8, scale, rng=random.Random(seed))
    except ValueError as err:
        assert "does not fit in int64" in str(err)
        src = random.Random(seed)
        exact = [value + dsc.sample_discrete_laplace(scale, src) for _ in range(8)]
        assert any(not -(2**63) <= x < 2**63 for x in exact)
        return
    src = random.Random(seed)
    assert out.tolist() == [value + dsc.sample_discrete_laplace(scale, src) for _ in range(8)]


def test_mechanisms_reject_values_beyond_int64():
    for value in (2**63, [0, -(2**63) - 1], np.uint64(2**64 - 1), 1e19, [[1, 2], [3]]):
        with pytest.raises(ValueError, match="value must be integers"):
            dsc.discrete_gaussian_mechanism(value, 2, rng=random.Random(0))


# --------------------------------------------------------------------------- pmfs
@settings(max_examples=profiles.size(fast=15, thorough=100))        # up to 8e5 terms each
@given(sigma=st.floats(math.log10(0.05), 4.0).map(lambda x: 10.0**x))
def test_discrete_gaussian_pmf_matches_a_direct_sum_and_sums_to_one(sigma):
    ys, brute = brute_gaussian(sigma)
    got = dsc.discrete_gaussian_pmf(ys, sigma)
    assert np.allclose(got, brute, rtol=1e-13, atol=1e-300)
    assert math.isclose(math.fsum(got), 1.0, rel_tol=1e-13)
    assert np.array_equal(got, got[::-1])                           # symmetric
    half = got[ys >= 0]
    assert np.all(np.diff(half) <= 0)                               # decreasing in |y|


@settings(max_examples=profiles.size(fast=15, thorough=100))
@given(scale=st.floats(math.log10(0.05), 4.0).map(lambda x: 10.0**x))
def test_discrete_laplace_pmf_is_its_closed_form_and_sums_to_one(scale):
    m = int(60 * scale) + 60
    ys = np.arange(-m, m + 1)
    got = dsc.discrete_laplace_pmf(ys, scale)
    assert math.isclose(math.fsum(got), 1.0, rel_tol=1e-12)
    with mp.workdps(30):
        r = mp.exp(-1 / mp.mpf(scale))
        for y in (0, 1, 7, int(scale) + 3):
            assert math.isclose(dsc.discrete_laplace_pmf(y, scale), float((1 - r) / (1 + r) * r**y), rel_tol=1e-13)
    nonzero = got[ys >= 0][got[ys >= 0] > 1e-300]
    assert np.allclose(nonzero[:-1] / nonzero[1:], math.exp(1 / scale), rtol=1e-12)


# --------------------------------------------------------------------------- privacy profiles
def brute_profile(pmf_values, ys, eps, k):
    """max over shifts 1..k of sum_y (p(y) - e^eps p(y - shift))_+, with p given on the range ys."""
    table = dict(zip(ys.tolist(), pmf_values.tolist()))
    best = 0.0
    for shift in range(1, k + 1):
        terms = [table[y] - math.exp(eps) * table.get(y - shift, 0.0) for y in ys.tolist()]
        best = max(best, math.fsum(t for t in terms if t > 0))
    return best


@given(sigma=st.floats(math.log10(0.1), math.log10(300.0)).map(lambda x: 10.0**x), eps=st.floats(0.0, 8.0),
       k=st.integers(1, 3))
def test_discrete_gaussian_profile_is_the_hockey_stick_sum(sigma, eps, k):
    ys, p = brute_gaussian(sigma)
    expected = brute_profile(p, ys, eps, k)
    got = dsc.discrete_gaussian_delta(sigma, eps, k)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-15)


@given(scale=st.floats(math.log10(0.1), math.log10(300.0)).map(lambda x: 10.0**x), eps=st.floats(0.0, 8.0),
       k=st.integers(1, 3))
def test_discrete_laplace_profile_is_the_hockey_stick_sum(scale, eps, k):
    m = int(60 * scale) + 60
    ys = np.arange(-m, m + 1)
    r = math.exp(-1 / scale)
    p = (1 - r) / (1 + r) * r ** np.abs(ys).astype(float)
    got = dsc.discrete_laplace_delta(scale, eps, k)
    assert got == pytest.approx(brute_profile(p, ys, eps, k), rel=1e-9, abs=1e-15)
    if eps >= k / scale:
        assert got == 0.0                                   # pure Delta/t-DP


@given(sigma=LOG_SIGMA, e1=st.floats(0.0, 20.0), e2=st.floats(0.0, 20.0), k=st.integers(1, 4))
def test_profiles_are_monotone_in_epsilon_and_sensitivity(sigma, e1, e2, k):
    lo, hi = sorted((e1, e2))
    for profile in (dsc.discrete_gaussian_delta, dsc.discrete_laplace_delta):
        d_lo, d_hi = profile(sigma, [lo, hi], k)
        assert 0.0 <= d_hi <= d_lo * (1 + 1e-12) + 1e-300 and d_lo <= 1.0, profile.__name__
        assert profile(sigma, lo, k + 1) >= d_lo * (1 - 1e-12), profile.__name__


def test_profiles_never_exceed_one():
    """Regression (found by the thorough profile): at sigma = 0.151, epsilon = 0, shift 3 the sum of
    pmf values came to 1.0000000000000002."""
    assert dsc.discrete_gaussian_delta(0.15124725453106233, 0.0, 3) == 1.0
    assert dsc.discrete_laplace_delta(0.01, [0.0, 1.0], 3).tolist() == [1.0, 1.0]
    # found by a scan of scales (mutation testing): the discrete Laplace sum came to 1.0000000000000002
    # at scale 0.0625, shift 5 (1/(1 + r) plus middle terms near r = e^-16); the two laws overlap by
    # about 2 r^3 = 2e-21, so the true value rounds to 1.0
    assert dsc.discrete_laplace_delta(0.062490428135251644, 0.0, 6) <= 1.0


@given(scale=LOG_SIGMA, grow=st.floats(1.0, 10.0), eps=st.floats(0.0, 5.0), k=st.integers(1, 3))
def test_discrete_laplace_profile_falls_as_the_scale_grows(scale, grow, eps, k):
    """With r = e^-1/t < r' the characteristic functions' ratio phi_r' / phi_r is
    b/d + (r' - r)(1 - r r')/r' * (...)/(c - d cos w), a point mass plus a two-sided geometric:
    the law of scale t' is that of scale t convolved with a probability law, a post-processing."""
    assert dsc.discrete_laplace_delta(scale * grow, eps, k) <= dsc.discrete_laplace_delta(scale, eps, k) * (1 + 1e-12) + 1e-300


def test_discrete_gaussian_profile_is_not_monotone_in_sigma():
    """Discrete Gaussians are not closed under convolution, and the set {y < c} gains whole points
    as sigma moves: delta(3) grows by 16 % from sigma = 1.958 to 1.984 (checked in 30 digits)."""
    s1, s2 = 1.957971262772069, 1.9841445380858032
    d1, d2 = dsc.discrete_gaussian_delta(s1, 3.0), dsc.discrete_gaussian_delta(s2, 3.0)
    with mp.workdps(30):
        def brute(s):
            s = mp.mpf(s)
            z = mp.fsum(mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) for y in range(-120, 121))
            return mp.fsum(max(mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) / z
                               - mp.e**3 * mp.exp(-mp.mpf(y - 1) ** 2 / (2 * s * s)) / z, 0) for y in range(-120, 122))
        assert math.isclose(d1, float(brute(s1)), rel_tol=1e-9) and math.isclose(d2, float(brute(s2)), rel_tol=1e-9)
    assert d2 > 1.15 * d1


@given(sigma=LOG_SIGMA, k=st.integers(1, 5), over=st.floats(0.0, 30.0))
def test_discrete_gaussian_profile_is_below_its_zcdp_bound(sigma, k, over):
    """CKS: the discrete Gaussian mechanism is rho-zCDP, rho = Delta^2 / (2 sigma^2), and rho-zCDP
    gives delta(eps) <= exp(-(eps - rho)^2 / (4 rho)) for eps >= rho (Bun and Steinke, Prop. 1.3)."""
    rho = k * k / (2 * sigma * sigma)
    eps = rho + over * math.sqrt(rho)
    assert dsc.discrete_gaussian_delta(sigma, eps, k) <= math.exp(-(eps - rho) ** 2 / (4 * rho)) * (1 + 1e-9)


def test_discrete_gaussian_profile_of_a_huge_sigma_sums_in_bounded_blocks():
    """Regression: the blocks of the sum grew to 4 sigma + 1 terms at once (3 GB at sigma = 1e8);
    they are now capped at 2^20 terms. The value at epsilon = 0 is Pr[Y = 0] ~ 1/(sigma sqrt(2 pi))."""
    sigma = 3e6
    assert dsc.discrete_gaussian_delta(sigma, 0.0) == pytest.approx(1 / (sigma * math.sqrt(2 * math.pi)), rel=1e-9)


# --------------------------------------------------------------------------- floating-point model
DOUBLES = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)


@given(x=DOUBLES, y=DOUBLES, p=st.integers(1, 53))
def test_round_to_precision_is_monotone_idempotent_and_within_half_an_ulp(x, y, p):
    rx, ry = dsc.round_to_precision(x, p), dsc.round_to_precision(y, p)
    assert dsc.round_to_precision(rx, p) == rx
    if x <= y:
        assert rx <= ry
    assert abs(Fraction(rx) - Fraction(x)) <= abs(Fraction(x)) * Fraction(1, 2**p)
    if p == 53:
        assert rx == x
    if rx != 0:
        m, _ = math.frexp(rx)
        assert (Fraction(m) * 2**p).denominator == 1              # at most p significant bits


@given(value=st.floats(-100.0, 100.0), scale=st.floats(0.01, 100.0), p=st.sampled_from([6, 9, 12, 53]),
       k1=st.integers(1, 2**53 - 1), k2=st.integers(1, 2**53 - 1))
def test_textbook_sampler_is_monotone_in_u_and_its_outputs_are_recognized(value, scale, p, k1, k2):
    """Every operation of the sampler is monotone and rounding is monotone, so the output is a
    non-decreasing function of U; and an output it produced is one it can output."""
    grid = 2**p
    u = np.array(sorted(((k1 % (grid - 1)) + 1, (k2 % (grid - 1)) + 1))) / grid
    value, scale = dsc.round_to_precision(value, p), dsc.round_to_precision(scale, p)
    assume(scale > 0)
    out = dsc.textbook_laplace_float(value, scale, u, precision=p)
    assert out[0] <= out[1]
    assert np.all(dsc.textbook_laplace_can_output(out, value, scale, precision=p))


@settings(max_examples=profiles.size(fast=10, thorough=150))
@given(p=st.integers(4, 10), value=st.floats(-5.0, 5.0), scale=st.floats(0.1, 10.0))
def test_textbook_law_is_a_distribution_on_what_the_sampler_outputs(p, value, scale):
    try:
        ys, probs = dsc.textbook_laplace_law(value, scale, p)
    except RuntimeError:             # a log within reach of a double-rounding boundary: documented refusal
        return
    assert np.all(np.diff(ys) > 0) and np.all(probs > 0) and math.isclose(probs.sum(), 1.0, rel_tol=1e-12)
    counts = np.round(probs * (2**p - 1))
    assert np.allclose(probs * (2**p - 1), counts, rtol=1e-9)              # multiples of 1/(2^p - 1)
    every = dsc.textbook_laplace_float(dsc.round_to_precision(value, p), dsc.round_to_precision(scale, p),
                                       np.arange(1, 2**p) / 2**p, precision=p)
    assert np.array_equal(np.unique(every), ys)


@given(lam=st.floats(0.05, 20.0), frac=st.floats(0.0, 1.0), p=st.integers(8, 26) | st.just(53), grow=st.floats(1.0, 4.0))
def test_snapping_epsilon_is_monotone(lam, frac, p, grow):
    top = 2.0 ** (p - 7)
    bound = lam * (1 + frac * (top - 1))
    assume(lam < bound < top * lam and lam * grow < bound)
    e = dsc.snapping_epsilon(lam, bound, p)
    assert e >= 1 / lam                    # (equal when 12 B 2^-p rounds away next to 1, at p = 53)
    assert dsc.snapping_epsilon(lam * grow, bound, p) <= e                      # more noise
    if bound * grow < top * lam:
        assert dsc.snapping_epsilon(lam, bound * grow, p) >= e                  # a wider clamp
    if p < 53:
        assert dsc.snapping_epsilon(lam, bound, 53 if p == 26 else p + 1) <= e   # more precision


@settings(max_examples=profiles.size(fast=12, thorough=200))
@given(p=st.integers(8, 11), lam=st.floats(0.3, 4.0), frac=st.floats(0.05, 0.95), k=st.integers(-10**4, 10**4),
       j=st.integers(-16, 16))
def test_snapping_law_meets_its_guarantee_on_drawn_neighbours(p, lam, frac, k, j):
    """Mironov's Theorem 1, in the p-bit model: inputs f and g = f + j/16 (|f - g| <= 1), both on
    the 1/16 grid and so exact at p bits, have laws whose log-ratio is at most snapping_epsilon."""
    lam = dsc.round_to_precision(lam, p)
    top = 2.0 ** (p - 7)
    bound = dsc.round_to_precision(lam * (1 + frac * (top - 1)), p)
    assume(lam < bound < top * lam)
    f = (k % int(16 * (bound + 2))) / 16 * (1 if k >= 0 else -1)
    g = f + j / 16
    assume(max(abs(f), abs(g)) < 2.0 ** (p - 4))
    ya, pa = dsc.snapping_law(f, lam, bound, p)
    yb, pb = dsc.snapping_law(g, lam, bound, p)
    assert math.isclose(pa.sum(), 1.0, rel_tol=1e-12) and math.isclose(pb.sum(), 1.0, rel_tol=1e-12)
    assert np.array_equal(ya, yb)
    assert np.max(np.abs(np.log(pa / pb))) <= dsc.snapping_epsilon(lam, bound, p) * (1 + 1e-12)
    big_lambda = 2.0 ** math.ceil(math.log2(lam))
    on_grid = (ya % big_lambda == 0) | (np.abs(ya) == bound)
    assert np.all(on_grid) and np.all(np.abs(ya) <= bound)


@given(value=st.floats(-1e6, 1e6), lam=st.floats(0.01, 100.0), frac=st.floats(0.0, 1.0), seed=SEED)
def test_snapping_mechanism_outputs_lie_on_its_grid(value, lam, frac, seed):
    bound = lam * (1 + frac * 1000)
    assume(lam < bound)
    out = dsc.snapping_mechanism(value, lam, bound, np.random.default_rng(seed), size=200)
    big_lambda = 2.0 ** math.ceil(math.log2(lam))
    assert np.all((out % big_lambda == 0) | (np.abs(out) == bound)) and np.all(np.abs(out) <= bound)


# --------------------------------------------------------------------------- bad input
RNG = random.Random(0)
SCALAR_BAD = [math.nan, math.inf, -math.inf, None, "1.0", [1.0, 2.0], True]
ARRAY_BAD = ["abc", None, [1.0, "a"], [math.nan, 1.0], [math.inf, 1.0], [[1.0], [2.0, 3.0]], [True, False]]
CALLS = {
    "bernoulli_exp": (dsc.bernoulli_exp, dict(gamma=0.5, rng=RNG)),
    "sample_discrete_laplace": (dsc.sample_discrete_laplace, dict(scale=2, rng=RNG)),
    "sample_discrete_gaussian": (dsc.sample_discrete_gaussian, dict(sigma=2, rng=RNG)),
    "discrete_laplace_mechanism": (dsc.discrete_laplace_mechanism, dict(value=[3, 4], scale=2, size=2, rng=RNG)),
    "discrete_gaussian_mechanism": (dsc.discrete_gaussian_mechanism, dict(value=[3, 4], sigma=2, size=2, rng=RNG)),
    "discrete_laplace_pmf": (dsc.discrete_laplace_pmf, dict(x=[1, 2], scale=2.0)),
    "discrete_gaussian_pmf": (dsc.discrete_gaussian_pmf, dict(x=[1, 2], sigma=2.0)),
    "discrete_laplace_delta": (dsc.discrete_laplace_delta, dict(scale=2.0, epsilon=[0.3, 0.4], sensitivity=1)),
    "discrete_gaussian_delta": (dsc.discrete_gaussian_delta, dict(sigma=2.0, epsilon=[0.3, 0.4], sensitivity=1)),
    "round_to_precision": (dsc.round_to_precision, dict(x=[0.1, 0.2], precision=10)),
    "textbook_laplace_float": (dsc.textbook_laplace_float, dict(value=0.0, scale=1.0, u=[0.25, 0.5], precision=53)),
    "textbook_laplace_can_output": (dsc.textbook_laplace_can_output,
                                    dict(y=[0.1, 0.2], value=0.0, scale=1.0, precision=53, search=8)),
    "textbook_laplace_law": (dsc.textbook_laplace_law, dict(value=0.0, scale=2.0, precision=4)),
    "snapping_epsilon": (dsc.snapping_epsilon, dict(scale=2.5, bound=40.0, precision=12)),
    "snapping_mechanism": (dsc.snapping_mechanism,
                           dict(value=1.0, scale=2.5, bound=40.0, rng=np.random.default_rng(0), size=2)),
    "snapping_law": (dsc.snapping_law, dict(value=0.0, scale=2.5, bound=40.0, precision=12)),
    "exact_output_law": (dsc.exact_output_law, dict(sampler=lambda src: src.getrandbits(1), max_bits=3)),
}
ARRAYS = {"value": ("discrete_laplace_mechanism", "discrete_gaussian_mechanism"), "x": None, "epsilon": None,
          "u": None, "y": None}
OPTIONAL = {"size"}


def _bad_values(name, param):
    arrays = ARRAYS.get(param, ())
    if param in ARRAYS and (arrays is None or name in arrays):
        return ARRAY_BAD
    return SCALAR_BAD


CASES = [(name, param, bad) for name, (_, kwargs) in CALLS.items() for param in kwargs if param not in ("rng", "sampler")
         for bad in _bad_values(name, param)
         if not (bad is None and param in OPTIONAL)
         and not (param == "size" and isinstance(bad, list) and name != "snapping_mechanism")]   # a shape


@pytest.mark.parametrize("name, param, bad", CASES, ids=[f"{n}-{p}-{b!r}" for n, p, b in CASES])
def test_every_numeric_parameter_rejects_bad_values_by_name(name, param, bad):
    fn, kwargs = CALLS[name]
    fn(**kwargs)
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        fn(**{**kwargs, param: bad})
