"""Unit tests of dpnotes.discrete.

Independent references: exhaustive enumeration of bit strings (exact fractions), mpmath sums
of the pmfs straight from their definitions, exact rational rounding for the floating-point
model, numpy's own Laplace sampler (bit for bit), and seeded goodness-of-fit tests where only
sampling can tell.
"""

import ast
import inspect
import math
import random
import textwrap
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from mp_references import References
from profiles import THOROUGH
from dpnotes import discrete as dsc
from dpnotes import loss
from dpnotes import mechanisms as mech

MP_STORE = References("discrete")


# ---------------------------------------------------------------- helpers (independent of the module)
def mp_dgauss_pmf(sigma, ys):
    """pmf of N_Z(0, sigma^2) at ys from the definition, with a brute-force normalizer in mpmath."""
    s = mp.mpf(sigma)
    m = int(40 * sigma) + 40
    z = mp.fsum(mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) for y in range(-m, m + 1))
    return [mp.exp(-mp.mpf(int(y)) ** 2 / (2 * s * s)) / z for y in ys]


def mp_hockey_stick(pmf, eps, k, m):
    """sum_y (p(y) - e^eps p(y - k))_+ over |y| <= m, from a pmf callable on integers (mpmath)."""
    e = mp.exp(eps)
    return mp.fsum(max(pmf(y) - e * pmf(y - k), 0) for y in range(-m, m + k + 1))


def round_fraction(q: Fraction, p: int) -> Fraction:
    """Round a rational to p significant bits, ties to even, with integer arithmetic only."""
    if q == 0:
        return q
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while Fraction(2) ** e > q:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    scaled = q / Fraction(2) ** (e - p + 1)          # in [2^(p-1), 2^p)
    n, r = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * r
    if twice > scaled.denominator or (twice == scaled.denominator and n % 2 == 1):
        n += 1
    return sign * n * Fraction(2) ** (e - p + 1)


def mpq(q: Fraction):
    """A Fraction as an mpmath number (mpmath does not compare with Fraction)."""
    return mp.mpf(q.numerator) / q.denominator


def exact_log_rounded(x: Fraction, p: int) -> Fraction:
    with mp.workdps(60):
        sign, man, exp, _ = mp.log(mp.mpf(x.numerator) / x.denominator)._mpf_   # man_exp drops the sign
    return round_fraction((-1) ** sign * Fraction(man) * Fraction(2) ** exp, p)


# ---------------------------------------------------------------- random bits
def test_bit_source_reads_bits_in_order_and_records_them():
    src = dsc.BitSource("1_01 1")
    assert src.getrandbits(0) == 0
    assert src.getrandbits(3) == 0b101
    assert src.remaining == 1
    assert src.getrandbits(1) == 1
    assert src.reads == [(0, 0), (3, 5), (1, 1)]
    with pytest.raises(dsc.BitsExhausted, match="exhausted: 1 bits requested, 0 left"):
        src.getrandbits(1)


@pytest.mark.parametrize("bad", ["10a1", "2", 1011])
def test_bit_source_rejects_non_bits(bad):
    with pytest.raises(ValueError, match="bits must"):
        dsc.BitSource(bad)


def test_bit_source_rejects_negative_k():
    with pytest.raises(ValueError, match="k must be >= 0, got -1"):
        dsc.BitSource("1").getrandbits(-1)


@pytest.mark.parametrize("bad", [None, 42, np.random.RandomState(0)])
def test_samplers_reject_sources_without_bits(bad):
    with pytest.raises(ValueError, match="rng must have a getrandbits"):
        dsc.sample_discrete_gaussian(2, bad)


def test_uniform_below_by_rejection_is_uniform_and_reads_the_right_bits():
    # n = 5: three bits; the values 5, 6, 7 are rejected and three more bits read.
    for r in range(8):
        src = dsc.BitSource(format(r, "03b") + "011")
        assert dsc._uniform_below(5, src.getrandbits) == (r if r < 5 else 3)
        assert src.remaining == (3 if r < 5 else 0)
    # a power of two needs no rejection: n = 8 reads exactly 3 bits
    assert dsc._uniform_below(8, dsc.BitSource("111").getrandbits) == 7
    assert dsc._uniform_below(1, dsc.BitSource("").getrandbits) == 0
    law, rest = dsc.exact_output_law(lambda s: dsc._uniform_below(6, s.getrandbits), 15)
    assert set(law) == set(range(6)) and len(set(law.values())) == 1     # exactly uniform so far
    assert rest == Fraction(1, 4) ** 5                                     # 5 rejections in a row


def test_numpy_generator_is_accepted_and_seeded():
    a = dsc.discrete_gaussian_mechanism(0, 5, size=50, rng=np.random.default_rng(3))
    b = dsc.discrete_gaussian_mechanism(0, 5, size=50, rng=np.random.default_rng(3))
    c = dsc.discrete_gaussian_mechanism(0, 5, size=50, rng=np.random.default_rng(4))
    assert np.array_equal(a, b) and not np.array_equal(a, c)


# ---------------------------------------------------------------- exact laws of the samplers, by enumeration of bit strings
@pytest.mark.parametrize("gamma", [Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2, 7)])
def test_bernoulli_exp_has_probability_exp_minus_gamma(gamma):
    law, rest = dsc.exact_output_law(lambda s: dsc.bernoulli_exp(gamma, s), 17)
    target = mp.exp(-mp.mpf(gamma.numerator) / gamma.denominator)
    assert rest < Fraction(1, 50)
    one, zero, rest = mpq(law.get(1, Fraction(0))), mpq(law.get(0, Fraction(0))), mpq(rest)
    assert one <= target <= one + rest
    assert zero <= 1 - target <= zero + rest


def test_bernoulli_exp_zero_is_one_without_reading_bits():
    src = dsc.BitSource("")
    assert dsc.bernoulli_exp(0, src) == 1 and src.reads == []


def test_bernoulli_exp_float_gamma_is_used_exactly():
    # 0.75 is an exact binary float: the law is that of Fraction(3, 4)
    a, ra = dsc.exact_output_law(lambda s: dsc.bernoulli_exp(0.75, s), 14)
    b, rb = dsc.exact_output_law(lambda s: dsc.bernoulli_exp(Fraction(3, 4), s), 14)
    assert a == b and ra == rb


def test_bernoulli_exp_hand_trace():
    # gamma = 1/2. k = 1: uniform on {0, 1} (1 bit) '0' < 1 -> A_1 = 1; k = 2: uniform on
    # {0..3} (2 bits) '10' = 2, not < 1 -> A_2 = 0. K = 2 is even: output 0, 3 bits read.
    src = dsc.BitSource("0 10")
    assert dsc.bernoulli_exp(Fraction(1, 2), src) == 0 and src.reads == [(1, 0), (2, 2)]
    # '1' at once: A_1 = 0, K = 1 odd: output 1.
    assert dsc.bernoulli_exp(Fraction(1, 2), dsc.BitSource("1")) == 1


def test_discrete_laplace_hand_trace():
    # scale t = 2 (s = 1). Proposal 1: U = '1'; coin exp(-1/2): A_1 '0' -> 1, A_2 '10' -> 0,
    # K = 2 even -> reject. Proposal 2: U = '0', coin exp(0) = 1 (no bits). V: coin exp(-1):
    # A_1 uniform on {0} (0 bits) -> 1, A_2 '0' -> 1, A_3 uniform on {0,1,2}: '11' = 3 rejected,
    # '01' = 1 -> 0; K = 3 odd -> 1, so V >= 1; next coin: A_1 -> 1, A_2 '1' -> 0, K = 2 -> 0,
    # V = 1. X = U + t V = 2, Y = 2; sign bit '1': output -2. Twelve bits.
    bits = "1 0 10  0  0 11 01  1  1"
    src = dsc.BitSource(bits)
    assert dsc.sample_discrete_laplace(2, src) == -2
    assert src.remaining == 0
    assert src.reads == [(1, 1), (1, 0), (2, 2), (1, 0), (0, 0), (1, 0), (2, 3), (2, 1), (0, 0), (1, 1), (1, 1)]


def test_discrete_gaussian_hand_trace():
    # sigma = 1: t = 2, sigma^2 = 1/1, acceptance exponent (|y| 2 - 1)^2 / 8.
    # Proposal -2 (the twelve bits of the Laplace trace): gamma = 9/8 = 1 + 1/8.
    #   coin exp(-1): A_1 (0 bits) 1, A_2 '0' 1, A_3 '10' = 2 -> 0: K = 3 odd -> pass;
    #   coin exp(-1/8): A_1 uniform on {0..7} '000' = 0 < 1 -> 1, A_2 uniform on {0..15}
    #   '0101' = 5 -> 0: K = 2 even -> reject.
    # Proposal 0: U '0' (kept free), V: A_1 1, A_2 '1' -> 0: V = 0; sign '0': Y = 0.
    #   gamma = 1/8: A_1 '101' = 5 -> 0, K = 1 odd -> accept. Output 0.
    bits = "1 0 10 0 0 11 01 1 1" + " 0 10 000 0101" + " 0 1 0" + " 101"
    src = dsc.BitSource(bits)
    assert dsc.sample_discrete_gaussian(1, src) == 0
    assert src.remaining == 0
    # the same bits with the last acceptance coin flipped to '000' (A_1 = 1) would need more bits
    with pytest.raises(dsc.BitsExhausted):
        dsc.sample_discrete_gaussian(1, dsc.BitSource(bits[:-3] + "000"))


def test_discrete_laplace_law_by_enumeration_brackets_the_pmf():
    # Only a partial enumeration is affordable (rejection loops), but every output's
    # probability is bracketed: law(y) <= pmf(y) <= law(y) + unresolved.
    t = Fraction(3, 2)
    law, rest = dsc.exact_output_law(lambda s: dsc.sample_discrete_laplace(t, s), 14)
    r = mp.exp(-mp.mpf(2) / 3)
    for y, prob in law.items():
        pmf = (1 - r) / (1 + r) * r ** abs(y)
        assert mpq(prob) <= pmf <= mpq(prob + rest)
    # and the symmetric pair (+1, -1) has equal mass from the completed runs
    assert law[1] == law[-1]


# ---------------------------------------------------------------- samplers: distribution (seeded goodness of fit)
def chi2_pvalue(samples, pmf_values, support):
    """Chi-square goodness of fit on `support` plus the two pooled tails."""
    counts = np.array([(samples == y).sum() for y in support])
    low, high = (samples < support[0]).sum(), (samples > support[-1]).sum()
    inside = pmf_values.sum()
    tail = (1 - inside) / 2                              # both pmfs are symmetric
    obs = np.r_[counts, low, high]
    exp = np.r_[pmf_values, tail, tail] * samples.size
    return stats.chisquare(obs, exp).pvalue


@pytest.mark.parametrize("sigma", [Fraction(2, 3), 1, 3.5, 40])
def test_discrete_gaussian_goodness_of_fit(sigma):
    # Under a correct sampler the p-value is uniform: a fixed seed fails with probability
    # 1e-4; the same test rejects sigma off by 5% (test_goodness_of_fit_has_power).
    x = dsc.discrete_gaussian_mechanism(0, sigma, size=40_000, rng=random.Random(11))
    s = float(sigma)
    support = np.arange(-int(3 * s) - 1, int(3 * s) + 2)
    pmf = np.array([float(v) for v in mp_dgauss_pmf(s, support)])
    assert chi2_pvalue(x, pmf, support) > 1e-4


@pytest.mark.parametrize("scale", [Fraction(1, 3), 1, Fraction(5, 2), 9])
def test_discrete_laplace_goodness_of_fit(scale):
    x = dsc.discrete_laplace_mechanism(0, scale, size=40_000, rng=random.Random(12))
    t = mp.mpf(scale.numerator) / scale.denominator if isinstance(scale, Fraction) else mp.mpf(scale)
    r = mp.exp(-1 / t)
    support = np.arange(-int(4 * float(t)) - 1, int(4 * float(t)) + 2)
    pmf = np.array([float((1 - r) / (1 + r) * r ** abs(int(y))) for y in support])
    assert chi2_pvalue(x, pmf, support) > 1e-4


def test_goodness_of_fit_has_power():
    x = dsc.discrete_gaussian_mechanism(0, 3.5, size=40_000, rng=random.Random(11))
    support = np.arange(-11, 12)
    wrong = np.array([float(v) for v in mp_dgauss_pmf(3.5 * 0.95, support)])
    assert chi2_pvalue(x, wrong, support) < 1e-6


def test_discrete_gaussian_variance_below_sigma_squared_and_matches_sampler():
    # CKS: Var N_Z(0, s^2) <= s^2 (1 - 4 pi^2 s^2 / (e^{4 pi^2 s^2} - 1)) < s^2. Exact variance by
    # mpmath sums; the mean of x^2 (the mean is 0) within 5 SE, SE = sqrt((mu4 - var^2)/n).
    with mp.workdps(90):                        # the gap at sigma = 2 is ~1e-31 of sigma^2
        for s in (0.3, 0.5, 1.0, 2.0):
            ys = range(-60, 61)
            pmf = mp_dgauss_pmf(s, ys)
            var = mp.fsum(p * y * y for p, y in zip(pmf, ys))
            mu4 = mp.fsum(p * y**4 for p, y in zip(pmf, ys))
            c = 4 * mp.pi**2 * s * s
            assert var <= s * s * (1 - c / mp.expm1(c)) < s * s
            x = dsc.discrete_gaussian_mechanism(0, s, size=20_000, rng=random.Random(5))
            assert abs(np.mean(x * x) - float(var)) < 5 * math.sqrt(float(mu4 - var**2) / x.size)
            if s == 0.5:
                assert s * s - var > 0.03          # far below sigma^2 for small sigma


def test_mechanisms_add_exactly_the_samplers_draws():
    # coupling: the mechanism's noise is the sequence of sampler draws from the same seed
    rng_a, rng_b = random.Random(9), random.Random(9)
    out = dsc.discrete_gaussian_mechanism([3, -7, 100], Fraction(5, 2), rng=rng_a)
    draws = [dsc.sample_discrete_gaussian(Fraction(5, 2), rng_b) for _ in range(3)]
    assert out.tolist() == [3 + draws[0], -7 + draws[1], 100 + draws[2]]
    rng_a, rng_b = random.Random(2), random.Random(2)
    out = dsc.discrete_laplace_mechanism(5, 3, size=(2, 2), rng=rng_a)
    draws = [dsc.sample_discrete_laplace(3, rng_b) for _ in range(4)]
    assert out.shape == (2, 2) and out.ravel().tolist() == [5 + d for d in draws]


def test_mechanisms_scalar_and_broadcast_shapes():
    assert isinstance(dsc.discrete_gaussian_mechanism(4, 2, rng=random.Random(0)), int)
    assert isinstance(dsc.discrete_laplace_mechanism(4.0, 2, rng=random.Random(0)), int)
    out = dsc.discrete_gaussian_mechanism([0, 1000], 1, size=(3, 2), rng=random.Random(0))
    assert out.shape == (3, 2) and np.all(np.abs(out[:, 1] - 1000) < 10)
    assert dsc.discrete_laplace_mechanism(1, 1, size=0, rng=random.Random(0)).shape == (0,)


@pytest.mark.parametrize("value", [0.5, [1, 2.5], np.nan, "3", True])
def test_mechanisms_reject_non_integer_values(value):
    with pytest.raises(ValueError, match="value must be integers"):
        dsc.discrete_gaussian_mechanism(value, 1, rng=random.Random(0))


def test_mechanisms_reject_bad_size_and_missing_rng():
    with pytest.raises(ValueError, match="size must be a shape"):
        dsc.discrete_gaussian_mechanism([1, 2], 1, size=3, rng=random.Random(0))
    with pytest.raises(ValueError, match=r"size must be an integer in \[0, 1000000\]"):
        dsc.discrete_laplace_mechanism(1, 1, size=-1, rng=random.Random(0))
    with pytest.raises(ValueError, match="rng must have a getrandbits"):
        dsc.discrete_gaussian_mechanism(1, 1)


SAMPLING_PATH = ("_uniform_below", "_bernoulli_exp_unit", "_bernoulli_exp", "_discrete_laplace",
                 "_discrete_gaussian", "_gaussian_parameters", "_rational")


def test_sampling_path_has_no_floating_point_operations():
    # structural: no true division, no float literal, no math/numpy call in the sampling code
    # (the only conversion is Fraction(value), which is exact for a float)
    for name in SAMPLING_PATH:
        tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(dsc, name))))
        for node in ast.walk(tree):
            assert not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)), name
            assert not (isinstance(node, ast.Constant) and isinstance(node.value, float)), name
            assert not (isinstance(node, ast.Name) and node.id in ("math", "np", "float")), name


def test_samplers_work_beyond_the_range_of_doubles():
    # sigma = 10^400 and a scale of 10^-400 overflow / underflow a double; exact arithmetic
    # does not care, and the draws have the right size
    rng = random.Random(8)
    big = Fraction(10**400)
    draws = [dsc.sample_discrete_gaussian(big, rng) for _ in range(200)]
    assert all(isinstance(d, int) for d in draws)
    assert sum(abs(d) > 10**399 for d in draws) > 100        # Pr[|Y| > sigma / 10] ~ 0.92
    assert all(abs(d) < 6 * 10**400 for d in draws)
    assert [dsc.sample_discrete_laplace(Fraction(1, 10**400), rng) for _ in range(50)] == [0] * 50

@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True])
def test_samplers_reject_bad_parameters(bad):
    with pytest.raises(ValueError, match="sigma must be"):
        dsc.sample_discrete_gaussian(bad, random.Random(0))
    with pytest.raises(ValueError, match="scale must be"):
        dsc.sample_discrete_laplace(bad, random.Random(0))
    with pytest.raises(ValueError, match="sigma must be"):
        dsc.discrete_gaussian_mechanism(0, bad, rng=random.Random(0))
    with pytest.raises(ValueError, match="scale must be"):
        dsc.discrete_laplace_mechanism(0, bad, rng=random.Random(0))


def test_bernoulli_exp_rejects_negative_gamma():
    with pytest.raises(ValueError, match="gamma must be >= 0, got -0.5"):
        dsc.bernoulli_exp(-0.5, random.Random(0))
    with pytest.raises(ValueError, match="^gamma must be >= 0, got -1/3$"):
        dsc.bernoulli_exp(Fraction(-1, 3), random.Random(0))
    assert dsc.bernoulli_exp(Fraction(0), dsc.BitSource("")) == 1      # gamma = 0 is allowed


def test_exact_parameters_are_validated_exactly():
    for bad, shown in ((Fraction(0), "0"), (Fraction(-1, 3), "-1/3"), (-2, "-2"), (Fraction(-1, 10**400), None)):
        msg = f"^sigma must be > 0, got {shown}$" if shown else "^sigma must be > 0, got -1/1000"
        with pytest.raises(ValueError, match=msg):
            dsc.sample_discrete_gaussian(bad, random.Random(0))
        with pytest.raises(ValueError, match=msg.replace("sigma", "scale")):
            dsc.discrete_laplace_mechanism(0, bad, rng=random.Random(0))


def test_exact_output_law_checks_max_bits():
    with pytest.raises(ValueError, match="max_bits must be an integer in"):
        dsc.exact_output_law(lambda s: 0, -1)
    law, rest = dsc.exact_output_law(lambda s: s.getrandbits(2), 2)
    assert law == {v: Fraction(1, 4) for v in range(4)} and rest == 0
    law, rest = dsc.exact_output_law(lambda s: s.getrandbits(3), 2)     # needs more than allowed
    assert law == {} and rest == 1


# ---------------------------------------------------------------- pmfs
@pytest.mark.parametrize("sigma", [0.3, 0.99, 1.0, 1.01, 1.9, 2.5, 100.0])
def test_discrete_gaussian_pmf_matches_mpmath(sigma):
    ys = np.array([0, 1, -2, 3, int(2 * sigma) + 1])
    got = dsc.discrete_gaussian_pmf(ys, sigma)
    want = mp_dgauss_pmf(sigma, ys.tolist())
    for g, w in zip(got, want):
        assert abs(g - float(w)) <= 1e-13 * float(w)
    assert isinstance(dsc.discrete_gaussian_pmf(2, sigma), float)


def test_discrete_gaussian_pmf_sums_to_one():
    for sigma in (0.2, 0.7, 3.0):
        ys = np.arange(-int(40 * sigma) - 5, int(40 * sigma) + 6)
        assert dsc.discrete_gaussian_pmf(ys, sigma).sum() == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("scale", [0.4, 1.0, 3.7])
def test_discrete_laplace_pmf_matches_mpmath(scale):
    t = mp.mpf(scale)
    z = mp.fsum(mp.exp(-abs(y) / t) for y in range(-400, 401))
    for y in (0, 1, -3, 7):
        assert dsc.discrete_laplace_pmf(y, scale) == pytest.approx(float(mp.exp(-abs(y) / t) / z), rel=1e-13, abs=0)


def test_pmfs_reject_bad_input():
    with pytest.raises(ValueError, match="x must be integers"):
        dsc.discrete_gaussian_pmf([0, 0.5], 1.0)
    with pytest.raises(ValueError, match="x must be integers"):
        dsc.discrete_laplace_pmf(np.inf, 1.0)
    with pytest.raises(ValueError, match="sigma must be > 0, got 0"):
        dsc.discrete_gaussian_pmf(0, 0.0)
    with pytest.raises(ValueError, match="scale must be > 0, got -2"):
        dsc.discrete_laplace_pmf(0, -2)


# ---------------------------------------------------------------- privacy profiles
@pytest.mark.parametrize("sigma", [0.4, 1.3, 4.0])
@pytest.mark.parametrize("sensitivity", [1, 2, 3])
def test_discrete_gaussian_delta_matches_mpmath_brute_force(sigma, sensitivity):
    m = int(40 * sigma) + 10
    eps = np.array([0.0, 0.3, 2.0, 7.0])
    got = dsc.discrete_gaussian_delta(sigma, eps, sensitivity)
    with mp.workdps(30):
        ys = range(-m - sensitivity, m + sensitivity + 1)
        table = dict(zip(ys, mp_dgauss_pmf(sigma, ys)))
        for g, e in zip(got, eps):
            want = max(mp_hockey_stick(table.__getitem__, e, k, m) for k in range(1, sensitivity + 1))
            assert abs(g - float(want)) <= 1e-10 * float(want)


def test_discrete_gaussian_delta_large_sigma_matches_cks_theorem_7():
    # CKS Theorem 7: delta = P[Y > eps s^2/D - D/2] - e^eps P[Y > eps s^2/D + D/2], tails by mpmath
    sigma, sens = 60.0, 2
    ys = list(range(-int(40 * sigma), int(40 * sigma) + 1))
    pm = dict(zip(ys, mp_dgauss_pmf(sigma, ys)))
    for eps in (0.0, 0.01, 0.05):
        a = eps * sigma**2 / sens
        tail = lambda c: mp.fsum(p for y, p in pm.items() if y > c)  # noqa: E731
        want = tail(a - sens / 2) - mp.exp(eps) * tail(a + sens / 2)
        assert dsc.discrete_gaussian_delta(sigma, eps, sens) == pytest.approx(float(want), rel=1e-10, abs=0)


def _mp_tails_delta(sigma, sens, eps):
    """CKS Theorem 7 with both tails summed in mpmath (30 digits) over 12 sigma, whose remainder is below
    e^-72 of the tail, and the normalizer by Poisson summation (next term 2 e^{-2 pi^2 sigma^2}: nil)."""
    with mp.workdps(30):
        s = mp.mpf(sigma)
        z = s * mp.sqrt(2 * mp.pi)
        w = lambda y: mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) / z  # noqa: E731
        a = mp.mpf(eps) * sigma**2 / sens
        tail = lambda c: mp.fsum(w(y) for y in range(int(mp.floor(c)) + 1, int(c) + 12 * sigma))  # noqa: E731
        return float(tail(a - mp.mpf(sens) / 2) - mp.exp(eps) * tail(a + mp.mpf(sens) / 2))


def test_discrete_gaussian_delta_sigma_1000_matches_mpmath_tails():
    # the benchmark's largest sigma, where the sum has thousands of terms and c ~ 1e4; the mpmath sums
    # (5 CPU seconds) are stored, and make verify computes them again (tests/mp_references.py)
    sigma = 1000
    for sens in (1, 3):
        for eps in (0.0005, 0.002, 0.006):
            want = MP_STORE.get(["tails_delta", sigma, sens, eps], lambda: _mp_tails_delta(sigma, sens, eps))
            got = dsc.discrete_gaussian_delta(sigma, eps, sens)
            assert abs(got - want) <= 1e-10 * want


@pytest.mark.parametrize("sigma, eps, k", [(0.7, 0.1, 1), (2.5, 1.5, 2), (6.0, 0.05, 1), (6.0, 0.4, 3)])
def test_discrete_gaussian_delta_tail_bound_is_rigorous(sigma, eps, k):
    # small blocks and loose tolerances, so the stopping rule decides where the sum ends:
    # what it leaves out (exact value, mpmath, minus the partial sum) must be >= 0 and within
    # the returned bound, and the bound within rtol of the sum
    m = int(40 * sigma) + 10
    with mp.workdps(30):
        ys = range(-m - k, m + k + 1)
        table = dict(zip(ys, mp_dgauss_pmf(sigma, ys)))
        exact = mp_hockey_stick(table.__getitem__, eps, k, m)
        s = mp.mpf(sigma)
        log_z = float(mp.log(mp.fsum(mp.exp(-mp.mpf(y) ** 2 / (2 * s * s)) for y in range(-m, m + 1))))
    cut = 0
    for rtol in (1e-1, 1e-3, 1e-6, 1e-13):
        for first_step in (1, 3):
            total, bound = dsc._dgauss_delta_shift(sigma, log_z, eps, k, rtol=rtol, first_step=first_step)
            left_out = float(exact - mp.mpf(total))
            assert -1e-14 * total <= left_out <= bound + 1e-14 * total
            assert bound <= rtol * total
            cut += left_out > 1e-12 * total
    assert cut > 0          # some stop came early enough for the bound to matter

def test_discrete_gaussian_delta_identities():
    # at epsilon = 0 with shift 1 the divergence is P[Y <= 0] - P[Y <= -1] = pmf(0)
    for sigma in (0.5, 2.0, 30.0):
        assert dsc.discrete_gaussian_delta(sigma, 0.0) == pytest.approx(dsc.discrete_gaussian_pmf(0, sigma), rel=1e-12, abs=0)
    # decreasing in epsilon, increasing in the sensitivity, scalar in -> float out
    d = dsc.discrete_gaussian_delta(1.5, np.linspace(0, 6, 25))
    assert np.all(np.diff(d) < 0)
    assert dsc.discrete_gaussian_delta(1.5, 1.0, 2) > dsc.discrete_gaussian_delta(1.5, 1.0, 1)
    assert isinstance(dsc.discrete_gaussian_delta(1.5, 1.0), float)
    assert dsc.discrete_gaussian_delta(2.0, [[0.5, 1.0]]).shape == (1, 2)


def test_discrete_gaussian_delta_approaches_the_continuous_one_for_large_sigma():
    eps = np.array([0.0, 0.05, 0.2])
    ratio = dsc.discrete_gaussian_delta(50.0, eps, 3) / loss.gaussian_delta(eps, 3 / 50.0)
    assert np.all(np.abs(ratio - 1) < 0.02)


def test_discrete_gaussian_delta_tiny_tail_underflows_to_zero():
    assert dsc.discrete_gaussian_delta(1.0, 2000.0) == 0.0


@pytest.mark.parametrize("scale", [0.7, 2.0, 2.5])
@pytest.mark.parametrize("sensitivity", [1, 2, 3])
def test_discrete_laplace_delta_matches_brute_force(scale, sensitivity):
    t = mp.mpf(scale)
    r = mp.exp(-1 / t)
    pmf = lambda y: (1 - r) / (1 + r) * r ** abs(y)  # noqa: E731
    eps = np.array([0.0, 0.2, 0.9 * sensitivity / scale, sensitivity / scale, 3.0])
    got = dsc.discrete_laplace_delta(scale, eps, sensitivity)
    for g, e in zip(got, eps):
        want = max(mp_hockey_stick(pmf, e, k, 200) for k in range(1, sensitivity + 1))
        assert abs(g - float(want)) <= 1e-12 + 1e-10 * float(want)
    assert got[3] == 0.0 and got[2] > 0            # pure (sensitivity/scale)-DP, and no better


@pytest.mark.parametrize("func, first", [(dsc.discrete_gaussian_delta, "sigma"), (dsc.discrete_laplace_delta, "scale")])
def test_profiles_reject_bad_input(func, first):
    with pytest.raises(ValueError, match=f"{first} must be > 0, got 0"):
        func(0.0, 1.0)
    with pytest.raises(ValueError, match="epsilon must be >= 0, got -0.1"):
        func(1.0, [0.5, -0.1])
    with pytest.raises(ValueError, match="epsilon must be a real number"):
        func(1.0, "a")
    with pytest.raises(ValueError, match="epsilon must not be empty"):
        func(1.0, [])
    for bad in (0, 1.5, -2, True):
        with pytest.raises(ValueError, match=r"sensitivity must be an integer in \[1, "):
            func(1.0, 1.0, bad)


# ---------------------------------------------------------------- floating point: the textbook sampler
def test_round_to_precision_matches_exact_rational_rounding():
    rng = np.random.default_rng(0)
    xs = np.r_[rng.normal(size=200) * 10.0 ** rng.integers(-5, 5, 200), 1 + 2.0**-10, 1 + 3 * 2.0**-10, -2.5]
    for p in (3, 10, 24, 53):
        got = dsc.round_to_precision(xs, p)
        for x, g in zip(xs, got):
            assert Fraction(g) == round_fraction(Fraction(x), p)
    assert dsc.round_to_precision(1 + 2.0**-10, 10) == 1.0            # tie to even (down)
    assert dsc.round_to_precision(1 + 3 * 2.0**-10, 10) == 1 + 2.0**-8  # tie to even (up)
    with pytest.raises(ValueError, match="precision must be an integer in"):
        dsc.round_to_precision(1.0, 54)


@pytest.mark.parametrize("epsilon, value", [(0.3, 0.0), (2.0, 1.0), (0.7, -3.5)])
def test_textbook_sampler_is_numpys_laplace_bit_for_bit(epsilon, value):
    for seed in range(3):
        released = mech.laplace_mechanism(np.full(20_000, value), epsilon, np.random.default_rng(seed))
        u = np.random.default_rng(seed).random(20_000)
        model = dsc.textbook_laplace_float(value, 1 / epsilon, u)
        assert np.array_equal(released, model)


def test_textbook_model_matches_exact_rational_arithmetic():
    # every operation of the p-bit model, recomputed with Fractions and a 60-digit log
    p, b, f = 12, 1 / 0.3, 1.0
    bp, fp = round_fraction(Fraction(b), p), round_fraction(Fraction(f), p)
    ks = np.random.default_rng(1).integers(1, 2**p, 300)
    got = dsc.textbook_laplace_float(f, b, ks / 2.0**p, precision=p)
    for k, g in zip(ks, got):
        u = Fraction(int(k), 2**p)
        if u < Fraction(1, 2):
            noise = round_fraction(bp * exact_log_rounded(2 * u, p), p)
        else:
            w = round_fraction(round_fraction(2 - u, p) - u, p)
            noise = -round_fraction(bp * exact_log_rounded(w, p), p)
        assert Fraction(g) == round_fraction(fp + noise, p)


def test_textbook_sampler_rejects_bad_draws_and_precisions():
    with pytest.raises(ValueError, match=r"u must lie in \(0, 1\)"):
        dsc.textbook_laplace_float(0.0, 1.0, [0.5, 0.0])
    with pytest.raises(ValueError, match=r"u must lie in \(0, 1\)"):
        dsc.textbook_laplace_float(0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"grid of multiples of 2\*\*-8"):
        dsc.textbook_laplace_float(0.0, 1.0, 0.3, precision=8)
    with pytest.raises(ValueError, match="precision must be 53 or an integer in"):
        dsc.textbook_laplace_float(0.0, 1.0, 0.5, precision=30)
    with pytest.raises(ValueError, match="scale must be > 0"):
        dsc.textbook_laplace_float(0.0, -1.0, 0.5)


@pytest.mark.parametrize("p, scale", [(10, 1 / 0.3), (13, 2.0), (12, 0.7)])
def test_can_output_agrees_with_exhaustive_enumeration(p, scale):
    laws = {f: dsc.textbook_laplace_law(f, scale, p)[0] for f in (0.0, 1.0)}
    outputs = np.union1d(laws[0.0], laws[1.0])
    for f in (0.0, 1.0):
        want = np.isin(outputs, laws[f])
        assert np.array_equal(dsc.textbook_laplace_can_output(outputs, f, scale, precision=p), want)
    assert not np.all(np.isin(laws[0.0], laws[1.0]))      # the supports differ


@pytest.mark.parametrize("p, values, scale", [(8, (1.0 + 2**-12, 1.0), 1.0), (8, (5.01, 5.0), 3.0),
                                               (11, (0.3, -0.7), 1 / 0.3)])
def test_can_output_agrees_with_enumeration_at_values_off_the_grid(p, values, scale):
    """A value that is not a p-bit number: the sampler rounds it (down for 1 + 2**-12 at p = 8), and an output of
    its upper branch can lie between the rounded value and the value. Split at the value, those outputs were
    never tried: 1.0 on input 1 + 2**-12 (probability 2/255 by the enumeration) was reported impossible."""
    laws = {f: dsc.textbook_laplace_law(f, scale, p)[0] for f in values}
    outputs = np.union1d(*laws.values())
    for f in values:
        assert np.array_equal(dsc.textbook_laplace_can_output(outputs, f, scale, precision=p),
                              np.isin(outputs, laws[f]))


def test_can_output_in_double_precision_recognizes_real_releases():
    eps = 0.3
    y0 = mech.laplace_mechanism(np.zeros(3000), eps, np.random.default_rng(8))
    assert np.all(dsc.textbook_laplace_can_output(y0, 0.0, 1 / eps))
    revealing = ~dsc.textbook_laplace_can_output(y0, 1.0, 1 / eps)
    assert 0.7 < revealing.mean() < 0.9                  # most releases rule out f = 1
    # with search = 0 the estimate alone misses preimages: the search matters
    assert not np.all(dsc.textbook_laplace_can_output(y0, 0.0, 1 / eps, search=0))


def test_textbook_law_is_the_enumeration():
    ys, probs = dsc.textbook_laplace_law(0.5, 2.0, 8)
    ks = np.arange(1, 256)
    direct = dsc.textbook_laplace_float(0.5, 2.0, ks / 256, precision=8)
    for y, pr in zip(ys, probs):
        assert pr == np.sum(direct == y) / 255
    assert np.all(np.diff(ys) > 0)
    with pytest.raises(ValueError, match="precision must be an integer in"):
        dsc.textbook_laplace_law(0.0, 1.0, 25)


# ---------------------------------------------------------------- floating point: snapping
def ideal_snapping_law(f, lam, bound):
    """Exact-arithmetic snapping: Laplace(f, lam) rounded to multiples of Lambda (ties up), clamped."""
    big = 2.0 ** math.ceil(math.log2(lam))
    grid = np.arange(-bound, bound + big / 2, big)
    grid = grid[np.abs(grid) <= bound]
    cdf = lambda x: stats.laplace.cdf(x, loc=f, scale=lam)  # noqa: E731
    probs = cdf(grid + big / 2) - cdf(grid - big / 2)
    probs[0], probs[-1] = cdf(grid[0] + big / 2), 1 - cdf(grid[-1] - big / 2)
    return grid, probs


def test_snapping_law_is_close_to_the_ideal_mechanism():
    for f in (0.0, 3.3):
        ys, probs = dsc.snapping_law(f, 2.5, 40.0, 14)
        grid, ideal = ideal_snapping_law(f, 2.5, 40.0)
        assert np.array_equal(ys, grid)
        assert np.abs(probs - ideal).max() < 1e-3       # floating point moves a little mass
    # a bound close to the scale: the mass below the smallest enumerated binade (2^-E with
    # E = 9 here, ~1e-3) must land on the correct end of the clamp
    ys, probs = dsc.snapping_law(1.0, 2.5, 4.0, 14)
    grid, ideal = ideal_snapping_law(1.0, 2.5, 4.0)
    assert np.array_equal(ys, grid) and np.abs(probs - ideal).max() < 2e-4


@pytest.mark.parametrize("p, lam, bound", [(12, 2.5, 40.0), (11, 3.0, 40.0)])
def test_snapping_law_meets_its_guarantee_and_hides_the_input(p, lam, bound):
    pairs = [(0.0, 1.0), (0.3, 1.3), (-0.75, 0.25), (39.0, 40.0), (-40.0, -39.0), (39.5, 45.0)]
    worst = 0.0
    for f, g in pairs:
        f, g = dsc.round_to_precision(f, p), dsc.round_to_precision(g, p)
        ya, pa = dsc.snapping_law(f, lam, bound, p)
        yb, pb = dsc.snapping_law(g, lam, bound, p)
        assert np.array_equal(ya, yb)                    # same support: no output reveals the input
        worst = max(worst, np.max(np.abs(np.log(pa / pb))))
    assert worst <= dsc.snapping_epsilon(lam, bound, p)
    assert worst > 0.95 / lam                            # and the guarantee is nearly tight


def test_snapping_epsilon_formula_and_mironovs_double_precision_bound():
    lam, bound = 3.0, 1000.0
    assert dsc.snapping_epsilon(lam, bound, 20) == pytest.approx((1 + 12 * bound * 2.0**-20) / lam + 2 * 2.0**-20, rel=1e-15, abs=0)
    assert dsc.snapping_epsilon(lam, bound) <= 1 / lam + 2.0**-49 * bound / lam
    with pytest.raises(ValueError, match="bound must be in"):
        dsc.snapping_epsilon(3.0, 2.0)
    with pytest.raises(ValueError, match=r"bound must be in \(scale, 2\*\*5 \* scale\) = \(3.0, 96.0\), got 100.0"):
        dsc.snapping_epsilon(3.0, 100.0, precision=12)


def test_snapping_mechanism_coupled_with_its_draws():
    lam, bound, f = 2.5, 40.0, 3.3
    out = dsc.snapping_mechanism(f, lam, bound, np.random.default_rng(4), size=500)
    rng = np.random.default_rng(4)
    g = rng.geometric(0.5, size=500) - 1
    mant = rng.integers(0, 2**52, size=500)
    sign = rng.integers(0, 2, size=500)
    for o, gi, mi, si in zip(out, g, mant, sign):
        ustar = Fraction(2**52 + int(mi), 2**52) / 2 ** (1 + int(gi))
        noise = lam * math.log(float(ustar))             # doubles, as the mechanism computes
        z = f + noise if si == 1 else f - noise
        want = max(-bound, min(bound, math.floor(z / 4 + 0.5) * 4))
        assert o == want


def test_snapping_mechanism_distribution_matches_its_law():
    out = dsc.snapping_mechanism(3.3, 2.5, 40.0, np.random.default_rng(1), size=20_000)
    grid, ideal = ideal_snapping_law(3.3, 2.5, 40.0)
    counts = np.array([(out == y).sum() for y in grid])
    keep = ideal * out.size > 5
    obs = np.r_[counts[keep], counts[~keep].sum()]
    exp = np.r_[ideal[keep], ideal[~keep].sum()] * out.size
    assert stats.chisquare(obs, exp).pvalue > 1e-4
    assert isinstance(dsc.snapping_mechanism(0.0, 2.5, 40.0, np.random.default_rng(0)), float)


def test_snapping_rejects_bad_input():
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        dsc.snapping_mechanism(0.0, 2.5, 40.0, random.Random(0))
    with pytest.raises(ValueError, match=r"size must be an integer in \[1, 100000000\]"):
        dsc.snapping_mechanism(0.0, 2.5, 40.0, np.random.default_rng(0), size=0)
    with pytest.raises(ValueError, match="precision must be an integer in"):
        dsc.snapping_law(0.0, 2.5, 40.0, 20)
    with pytest.raises(ValueError, match="value must be finite"):
        dsc.snapping_law(np.inf, 2.5, 40.0, 12)


# ---------------------------------------------------------------- edge cases found by mutation testing
def test_near_midpoint_flags_doubles_close_to_a_p_bit_midpoint():
    p = 10
    for x in (1.3, -0.77, 5.5e-3, -123.456):
        a = dsc.round_to_precision(x, p)
        mid = a + math.copysign(2.0 ** (math.frexp(a)[1] - p - 1), a)  # halfway to the next p-bit number
        assert dsc._near_midpoint(mid, p) and not dsc._near_midpoint(a, p)
        up = down = mid
        for steps in range(1, 7):                                      # 1..6 units of a double
            up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
            assert dsc._near_midpoint([up, down], p).tolist() == [steps < 4] * 2


def test_textbook_law_refuses_when_double_rounding_could_matter(monkeypatch):
    seen = {}

    def always(logs, p):
        seen["logs"], seen["p"] = logs, p
        return np.ones(np.shape(logs), dtype=bool)

    monkeypatch.setattr(dsc, "_near_midpoint", always)
    with pytest.raises(RuntimeError, match="^a log lies too close to a rounding boundary of the model; use another precision$"):
        dsc.textbook_laplace_law(0.0, 2.0, 6)
    # the check sees the double logs of every draw, before rounding
    u = np.arange(1, 64) / 64
    w = np.where(u < 0.5, u + u, dsc.round_to_precision(dsc.round_to_precision(2 - u, 6) - u, 6))
    assert seen["p"] == 6 and np.array_equal(seen["logs"], [math.log(v) for v in w])


def test_textbook_functions_validate_value_scale_and_search():
    calls = (lambda value, scale: dsc.textbook_laplace_float(value, scale, 0.5),
             lambda value, scale: dsc.textbook_laplace_can_output(0.5, value, scale))
    for call in calls:
        with pytest.raises(ValueError, match="^value must be finite, got inf$"):
            call(np.inf, 1.0)
        with pytest.raises(ValueError, match="^scale must be > 0, got -1$"):
            call(0.0, -1.0)
    with pytest.raises(ValueError, match=r"^search must be an integer in \[0, 10000\], got -1$"):
        dsc.textbook_laplace_can_output(0.0, 0.0, 1.0, search=-1)
    with pytest.raises(ValueError, match="^value must be finite, got inf$"):
        dsc.textbook_laplace_law(np.inf, 1.0, 8)
    with pytest.raises(ValueError, match="^scale must be > 0, got 0$"):
        dsc.textbook_laplace_law(0.0, 0, 8)
    with pytest.raises(ValueError, match=r"^u must lie in \(0, 1\) \(numpy redraws U = 0\)$"):
        dsc.textbook_laplace_float(0.0, 1.0, -0.5)


def test_textbook_functions_scalar_and_exact_inputs():
    y = dsc.textbook_laplace_float(0.0, 3.0, 0.75)
    assert isinstance(y, float) and y == 3.0 * math.log(2)
    # exact rationals on the grid are accepted and give the same doubles
    ys = dsc.textbook_laplace_float(1.0, 3.0, [Fraction(3, 4), Fraction(1, 8)], precision=12)
    assert ys.tolist() == dsc.textbook_laplace_float(1.0, 3.0, [0.75, 0.125], precision=12).tolist()
    # a scalar output above the input (branch U >= 1/2 only) is recognized
    assert dsc.textbook_laplace_can_output(y, 0.0, 3.0) is True
    assert dsc.textbook_laplace_can_output(y, 1.0, 3.0) in (True, False)


def test_can_output_with_the_smallest_search_still_agrees_with_enumeration():
    # the preimage lies within one grid step of the estimate, so search = 1 suffices
    p, scale = 12, 1 / 0.3
    laws = {f: dsc.textbook_laplace_law(f, scale, p)[0] for f in (0.0, 1.0)}
    outputs = np.union1d(laws[0.0], laws[1.0])
    for f in (0.0, 1.0):
        got = dsc.textbook_laplace_can_output(outputs, f, scale, precision=p, search=1)
        assert np.array_equal(got, np.isin(outputs, laws[f]))


def test_discrete_laplace_delta_large_sensitivity_uses_every_middle_term():
    scale, sens = 1.5, 5
    t = mp.mpf(scale)
    r = mp.exp(-1 / t)
    pmf = lambda y: (1 - r) / (1 + r) * r ** abs(y)  # noqa: E731
    for e in (0.0, 0.5, 2.0):
        want = max(mp_hockey_stick(pmf, e, k, 200) for k in range(1, sens + 1))
        assert dsc.discrete_laplace_delta(scale, e, sens) == pytest.approx(float(want), rel=1e-12, abs=0)


def test_discrete_gaussian_pmf_of_large_integers():
    # x^2 must not overflow an integer type: 3e9 squared exceeds int64
    x, sigma = 3 * 10**9, 2e9
    # for sigma this large the normalizer is sigma sqrt(2 pi) to far below double precision
    # (Poisson summation: the next term is 2 exp(-2 pi^2 sigma^2)); a brute-force sum would
    # need 1e11 terms
    s = mp.mpf(sigma)
    want = mp.exp(-mp.mpf(x) ** 2 / (2 * s**2)) / (s * mp.sqrt(2 * mp.pi))
    assert dsc.discrete_gaussian_pmf([x], sigma)[0] == pytest.approx(float(want), rel=1e-12, abs=0)


def test_snapping_mechanism_single_release_is_coupled_and_validated():
    lam, bound, f = 2.5, 40.0, 3.3
    out = dsc.snapping_mechanism(f, lam, bound, np.random.default_rng(21))
    rng = np.random.default_rng(21)
    g = int(rng.geometric(0.5, size=1)[0]) - 1
    mant = int(rng.integers(0, 2**52, size=1)[0])
    sign = int(rng.integers(0, 2, size=1)[0])
    noise = lam * math.log(float(Fraction(2**52 + mant, 2**52) / 2 ** (1 + g)))
    z = f + noise if sign == 1 else f - noise
    assert out == max(-bound, min(bound, math.floor(z / 4 + 0.5) * 4))
    with pytest.raises(ValueError, match="^value must be a real number, got nan$"):
        dsc.snapping_mechanism(np.nan, lam, bound, np.random.default_rng(0))


def test_full_precision_uniform_law_and_grid():
    """U* has binade [2^-1-g, 2^-g) with probability 2^-1-g and is uniform inside it; about a third of
    the draws are not multiples of 2^-53 (sum over g >= 1 of 2^-(g+1) (1 - 2^-g) = 1/3), which
    rng.random() never produces."""
    n = 200_000
    u = dsc.full_precision_uniform(np.random.default_rng(17), size=n)
    assert np.all((u > 0) & (u < 1))
    _, expo = np.frexp(u)                          # u in [2^(expo-1), 2^expo)
    g = -expo
    for j in range(8):
        p = 2.0 ** -(j + 1)
        assert abs(np.mean(g == j) - p) < 5 * math.sqrt(p * (1 - p) / n)
    off = u * 2.0**53 != np.floor(u * 2.0**53)
    assert abs(off.mean() - 1 / 3) < 5 * math.sqrt(2 / 9 / n)
    in_quarter = (u >= 0.25) & (u < 0.5)           # spacing 2^-54 there: odd multiples are off the grid
    assert abs(off[in_quarter].mean() - 0.5) < 5 * math.sqrt(0.25 / in_quarter.sum())
    grid = np.random.default_rng(17).random(n)
    assert not np.any(grid * 2.0**53 != np.floor(grid * 2.0**53))      # rng.random(): on the grid, always


def test_full_precision_uniform_recipe_and_validation():
    rng = np.random.default_rng(5)
    g = rng.geometric(0.5, size=50) - 1
    m = rng.integers(0, 2**52, size=50)
    want = np.array([math.ldexp(1 + int(mm) / 2**52, -1 - int(gg)) for gg, mm in zip(g, m)])
    assert np.array_equal(dsc.full_precision_uniform(np.random.default_rng(5), size=50), want)
    assert isinstance(dsc.full_precision_uniform(np.random.default_rng(5)), float)
    with pytest.raises(ValueError, match="^rng must be"):
        dsc.full_precision_uniform(random.Random(0), size=3)
    with pytest.raises(ValueError, match=r"^size must be an integer in \[1, 100000000\], got 0$"):
        dsc.full_precision_uniform(np.random.default_rng(0), size=0)


def test_snapping_mechanism_draws_its_uniform_at_full_precision():
    """The snapping mechanism's releases are the formula applied to full_precision_uniform's draws and
    then the signs (coupled seeds), on the lattice of the power of two Lambda = 4 >= lambda = 2.5."""
    f, lam, bound, n = 3.3, 2.5, 40.0, 3000
    out = dsc.snapping_mechanism(f, lam, bound, np.random.default_rng(9), size=n)
    rng = np.random.default_rng(9)
    ustar = dsc.full_precision_uniform(rng, n)
    sign = np.where(rng.integers(0, 2, size=n) == 1, 1.0, -1.0)
    noisy = f + sign * np.array([lam * math.log(v) for v in ustar])
    assert np.array_equal(out, np.clip(np.floor(noisy / 4.0 + 0.5) * 4.0, -bound, bound))
    assert np.all(out % 4.0 == 0) and np.any(out % 2.5 != 0)      # the lattice of Lambda, not of lambda


def test_single_draws_read_exactly_one_draw_of_each_kind():
    """A scalar call (size=None) is the recipe applied to one geometric, one mantissa and (for the
    mechanism) one sign draw, and leaves the generator where that recipe leaves it: a scalar call
    that drew two of each and kept the first would change the mantissa (the second geometric draw
    comes before it) and the generator's next draw. lambda = 0.01 puts the lattice at 2^-6, fine
    enough that a changed mantissa moves the release."""
    lam, bound, f = 0.01, 3.0, -0.37
    for seed in range(20):
        ref = np.random.default_rng(seed)
        g = int(ref.geometric(0.5)) - 1
        mant = int(ref.integers(0, 2**52))
        ustar = math.ldexp(1 + mant / 2**52, -1 - g)
        rng = np.random.default_rng(seed)
        assert dsc.full_precision_uniform(rng) == ustar
        assert rng.random() == ref.random()
        ref = np.random.default_rng(seed)
        g = int(ref.geometric(0.5)) - 1
        mant = int(ref.integers(0, 2**52))
        sign = int(ref.integers(0, 2))
        noise = lam * math.log(math.ldexp(1 + mant / 2**52, -1 - g))
        z = f + noise if sign == 1 else f - noise
        rng = np.random.default_rng(seed)
        assert dsc.snapping_mechanism(f, lam, bound, rng) == max(-bound, min(bound, math.floor(z * 64 + 0.5) / 64))
        assert rng.random() == ref.random()


def test_textbook_law_at_the_smallest_precision_by_hand():
    """precision = 2 (the low end of the allowed range), value 1, scale 3, worked by hand with 2-bit
    numbers (1, 1.5, 2, 3, 4, 6, ...; ties to even): U = 1/4 gives log(1/2) -> -0.75, 3 * -0.75 ->
    -2, 1 - 2 = -1; U = 1/2 gives 2 - 1/2 - 1/2 = 1, log 1 = 0, release 1; U = 3/4 gives
    2 - 3/4 -> 1 (a tie, to even), 1 - 3/4 = 1/4, log(1/4) -> -1.5, 3 * -1.5 -> -4, 1 + 4 -> 4 (a tie)."""
    ys, probs = dsc.textbook_laplace_law(1.0, 3.0, 2)
    assert ys.tolist() == [-1.0, 1.0, 4.0]
    assert probs.tolist() == [1 / 3, 1 / 3, 1 / 3]
    with pytest.raises(ValueError, match="precision must be an integer in"):
        dsc.textbook_laplace_law(1.0, 3.0, 1)


def test_can_output_at_the_smallest_precision_by_hand():
    """precision = 2 with the default search of 8 draws either side: the window is wider than the
    grid {1/4, 1/2, 3/4}, so it must be clipped to each branch's draws. The releases of value 1,
    scale 3 are -1, 1 and 4 (worked by hand in the test above); -2, 0.5, 2 and 6 are 2-bit numbers
    it cannot release."""
    ys = [-2.0, -1.0, 0.5, 1.0, 2.0, 4.0, 6.0]
    assert dsc.textbook_laplace_can_output(ys, 1.0, 3.0, precision=2).tolist() == [
        False, True, False, True, False, True, False]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_textbook_sampler_names_the_range_of_u_for_nan_and_inf(bad):
    with pytest.raises(ValueError, match=r"^u must lie in \(0, 1\)"):
        dsc.textbook_laplace_float(0.0, 1.0, [0.5, bad])


@pytest.mark.parametrize("p", [53, 8])
def test_textbook_draw_one_half_takes_numpys_upper_branch(p):
    """numpy's Laplace sampler takes U = 1/2 in its upper branch, loc - scale * log(2 - U - U) =
    loc - scale * 0, which keeps the sign of a zero loc: -0.0 - 0.0 = -0.0 (the lower branch,
    loc + scale * log(U + U), would give -0.0 + 0.0 = +0.0). The model follows numpy to the bit."""
    out = dsc.textbook_laplace_float(-0.0, 2.5, [0.5, 0.5])
    out_p = dsc.textbook_laplace_float(-0.0, 2.5, [0.5], precision=p)
    assert np.all(out == 0) and np.all(np.signbit(out)) and np.signbit(out_p[0])
    assert not np.signbit(dsc.textbook_laplace_float(0.0, 2.5, 0.5, precision=p))
    assert dsc.textbook_laplace_float(1.25, 2.5, 0.5, precision=p) == 1.25


@pytest.mark.parametrize("p", [2, 3, 4])
def test_can_output_at_small_precisions_agrees_with_enumeration(p):
    """At p = 2..4 the default window (8 draws either side) is as wide as the grid itself, so every
    probe must stay inside each branch's draws, (0, 1/2) or [1/2, 1): the answers are those of the
    enumeration of all 2^p - 1 draws, over every p-bit number in [-20, 20] and the value itself."""
    f, b = 1.0, 3.0
    releases = set(dsc.textbook_laplace_float(f, b, np.arange(1, 2**p) / 2.0**p, precision=p).tolist())
    ys = np.unique(dsc.round_to_precision(np.linspace(-20.0, 20.0, 4001), p))
    assert f in ys and releases <= set(ys.tolist())
    got = dsc.textbook_laplace_can_output(ys, f, b, precision=p)
    assert got.tolist() == [y in releases for y in ys.tolist()]


@pytest.mark.parametrize("pmf, param", [(dsc.discrete_gaussian_pmf, 1.5), (dsc.discrete_laplace_pmf, 0.7)])
def test_pmfs_name_the_rejected_points(pmf, param):
    with pytest.raises(ValueError, match=r"^x must be integers, got \[1, 'a'\]$"):
        pmf([1, "a"], param)
    with pytest.raises(ValueError, match=r"^x must be integers, got \[2, 2\.5\]$"):
        pmf([2, 2.5], param)


def test_snapping_law_range_of_precision_and_large_weights():
    """precision 17 is refused (the enumeration's range is [8, 16]); bound = 20 lambda needs E = 62
    binades, whose weights 2^61 and sums pass int64, so they must be exact Python integers; and a
    small lambda = 0.3 (E from the rule lambda E log 2 >= 2B + Lambda + 1) still gives the ideal law
    up to the rounding of 16-bit arithmetic (atol 2e-3, far above that rounding, about 1e-4)."""
    with pytest.raises(ValueError, match="precision must be an integer in"):
        dsc.snapping_law(0.0, 2.5, 40.0, 17)
    ys, probs = dsc.snapping_law(1.0, 2.5, 50.0, precision=12)
    assert abs(probs.sum() - 1) < 1e-14 and ys.min() == -50.0 and ys.max() == 50.0
    assert np.all(ys[1:-1] % 4 == 0)
    ys, probs = dsc.snapping_law(0.3, 0.3, 2.0, precision=16)
    grid, ideal = ideal_snapping_law(0.3, 0.3, 2.0)
    assert np.array_equal(ys, grid) and np.max(np.abs(probs - ideal)) < 2e-3


@pytest.mark.parametrize("lam, bound, p", [(0.20205844216878963, 1.397742398675498, 10),
                                           (1.2112617445550506, 8.653242136072581, 10)])
def test_snapping_law_far_tail_at_the_top_of_the_range(lam, bound, p):
    """value = bound, bound not a multiple of Lambda: the releases near -bound need noise close to
    -2 bound, from the smallest binades of U*, so the enumeration must go deep enough (found by
    mutation testing: a shallower E lost the releases -1.25 and -1.0 in the first case). Each
    probability is compared with the exact-arithmetic law (Laplace cdf over each cell), relative
    tolerance 5% (p = 10 bits move a cell's edges by about lambda * 2^-9 relative)."""
    ys, probs = dsc.snapping_law(bound, lam, bound, p)
    big = 2.0 ** math.ceil(math.log2(lam))
    inner = np.arange(math.ceil(-bound / big), math.floor(bound / big) + 1) * big
    inner = inner[np.abs(inner) < bound]
    assert ys.tolist() == [-bound, *inner.tolist(), bound]
    cdf = lambda x: stats.laplace.cdf(x, loc=bound, scale=lam)  # noqa: E731
    ideal = np.r_[cdf(inner[0] - big / 2), cdf(inner + big / 2) - cdf(inner - big / 2), 1 - cdf(inner[-1] + big / 2)]
    assert np.allclose(probs, ideal, rtol=0.05, atol=0)


# ---------------------------------------------------------------- extreme magnitudes
def test_discrete_gaussian_pmf_at_a_vanishing_sigma_is_a_point_mass():
    """sigma^2 underflowed to 0: x^2/(2 sigma^2) was 0/0 = nan at x = 0 ([nan, nan] at 1e-300). The limit
    of e^{-x^2/(2 sigma^2)}/Z as sigma -> 0 is 1 at 0 and 0 elsewhere (Z = 1 + 2e^{-1/(2 sigma^2)} + ...)."""
    for sigma in (1e-300, 5e-324, 1e-160):
        assert dsc.discrete_gaussian_pmf([-2, 0, 2, 10**300], sigma).tolist() == [0.0, 1.0, 0.0, 0.0]
        assert dsc.discrete_gaussian_pmf(0, sigma) == 1.0


def test_discrete_gaussian_pmf_at_a_huge_sigma():
    """sigma**2 raised OverflowError (Numerical result out of range) past 1.3e154. For sigma >= 10 the
    normalizer is sigma sqrt(2 pi) in float (Poisson summation), so the pmf is phi(x/sigma)/sigma (mpmath)."""
    sigma = 1e300
    xs = [0, 10**300, -2 * 10**300, 2]
    with mp.workdps(50):
        s = mp.mpf(sigma)
        want = [float(mp.npdf(mp.mpf(x) / s) / s) for x in xs]
    # 1e-13: exp(-log Z) with log Z = 692 carries about 700 units of the last place (1.3e-14 measured); abs=0,
    # since approx's default abs=1e-12 accepted any value of these 1e-301 (0.0 too)
    assert dsc.discrete_gaussian_pmf(xs, sigma).tolist() == pytest.approx(want, rel=1e-13, abs=0)


def test_discrete_gaussian_delta_at_a_vanishing_sigma_is_a_step():
    """sigma^2 underflowed to 0 and the sum divided by it (ZeroDivisionError at 1e-300). The two laws are
    then point masses at 0 and k apart up to e^{-1/(2 sigma^2)}: delta = 1 - e^{eps - k^2/(2 sigma^2)}
    for eps < k^2/(2 sigma^2), 0 from there (every term has |y| >= 1)."""
    assert dsc.discrete_gaussian_delta(1e-300, [0.0, 1.0, 1e300]).tolist() == [1.0, 1.0, 1.0]
    assert dsc.discrete_gaussian_delta(5e-324, [0.0, 1.7e308], 3).tolist() == [1.0, 1.0]
    # sigma = 2^-510: k^2/(2 sigma^2) = 2^1019 (k = 1), 2^1021 (k = 2), the step exactly there
    sigma, step = 2.0**-510, 2.0**1019
    below = math.nextafter(step, 0.0)
    assert dsc.discrete_gaussian_delta(sigma, [below, step, 1.7e308]).tolist() == [1.0, 0.0, 0.0]
    assert dsc.discrete_gaussian_delta(sigma, [step, 2 * step, 4 * step], 2).tolist() == [1.0, 1.0, 0.0]


def mp_gaussian_delta(eps, mu, dps=700):
    """The continuous profile Phi(a) - e^eps Phi(a - mu), a = mu/2 - eps/mu, with digits to spare."""
    with mp.workdps(dps):
        eps, mu = mp.mpf(eps), mp.mpf(mu)
        a = mu / 2 - eps / mu
        return mp.ncdf(a) - mp.exp(eps) * mp.ncdf(a - mu)


def test_discrete_gaussian_delta_at_a_huge_sigma_is_the_continuous_one():
    """sigma = 1e300 raised OverflowError. There the discrete and continuous profiles agree to 1e-500
    relative (Z = sigma sqrt(2 pi) and Euler-Maclaurin corrections of relative size sigma^-2): each
    shift's profile is Phi(a) - e^eps Phi(a - mu), mu = k/sigma, at 700 digits."""
    sigma = 1e300
    eps = [0.0, 1e-300, 3e-300, 1e-299]
    for sens in (1, 2):
        got = dsc.discrete_gaussian_delta(sigma, eps, sens)
        want = [float(max(mp_gaussian_delta(e, k / sigma) for k in range(1, sens + 1))) for e in eps]
        assert got.tolist() == pytest.approx(want, rel=1e-12, abs=0)
        assert got[0] == pytest.approx(sens / (sigma * math.sqrt(2 * math.pi)), rel=1e-12, abs=0)
    # into the subnormals, and 0 once eps sigma is past about 40
    tiny = dsc.discrete_gaussian_delta(1.7e308, [0.0, 1.0])
    assert tiny[0] == pytest.approx(float(mp_gaussian_delta(0.0, 1 / 1.7e308)), rel=1e-6, abs=0) and tiny[1] == 0.0


@pytest.mark.parametrize("sigma", [1e6, 2.5e6])
def test_discrete_gaussian_delta_past_a_million_matches_the_direct_sum(sigma):
    """From sigma = 1e6 the sum over ~8 sigma integers is replaced by the continuous profile plus its
    Euler-Maclaurin correction (the continuous one alone is off by up to 6e-11 here, the corrected one
    by 2e-13); the direct sum, checked against mpmath at smaller sigma, is the reference."""
    log_z = dsc._dgauss_log_normalizer(sigma)
    for k in (1, 3):
        zs = np.array([0.0, 0.5, 3.0, 20.0, 37.0])
        eps = zs * k / sigma
        got = dsc.discrete_gaussian_delta(sigma, eps, k)
        direct = [max(dsc._dgauss_delta_shift(sigma, log_z, float(e), j)[0] for j in range(1, k + 1)) for e in eps]
        # abs=0: approx's default abs=1e-12 let any value below 1e-12 pass. 5e-12: at z = 37 (6e-308) the direct
        # sum's terms pass through subnormals (2e-12 off there); test_mutation_discrete_survivors.py holds the
        # path to 1e-12 against a sum taken relative to its largest term
        assert got.tolist() == pytest.approx(direct, rel=5e-12, abs=0)
        plain = [max(loss.gaussian_delta(float(e), j / sigma) for j in range(1, k + 1)) for e in eps]
        assert abs(plain[-1] / direct[-1] - 1) > 5e-12         # the correction is needed


def test_discrete_gaussian_delta_at_a_huge_epsilon_is_zero():
    """s2 * eps overflowed to inf: c = -inf and math.ceil raised OverflowError (eps = 1e300). Every term
    then lies below y = -40 sigma: the sum is under e^-800, 0 in float."""
    assert dsc.discrete_gaussian_delta(2.0, [1e10, 1e300, 1.7e308]).tolist() == [0.0, 0.0, 0.0]
    assert dsc.discrete_gaussian_delta(0.5, 1e300, 3) == 0.0


def test_discrete_gaussian_mechanism_refuses_a_sigma_whose_noise_cannot_be_int64():
    """At sigma = 1e300 the draw was made, then 'value + noise does not fit in int64' named neither
    sigma nor a range. Up to 2**58 the release fits but with probability below e^-128."""
    with pytest.raises(ValueError, match=r"^sigma must be <= 2\*\*58 \(2\.9e17\) for value \+ noise to fit in "
                                         r"int64, got 1e\+300 \(add sample_discrete_gaussian draws"):
        dsc.discrete_gaussian_mechanism([0, 100], 1e300, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^sigma must be <= 2\*\*58"):
        dsc.discrete_gaussian_mechanism(0, Fraction(2**58) + Fraction(1, 10**30), rng=random.Random(0))
    out = dsc.discrete_gaussian_mechanism([0, 100], 2**58, rng=random.Random(0))
    src = random.Random(0)
    assert out.dtype == np.int64 and out.tolist() == [v + dsc.sample_discrete_gaussian(2**58, src) for v in (0, 100)]


def test_discrete_laplace_pmf_and_profile_at_extreme_magnitudes_are_warning_free():
    """Right values, but numpy warned (overflow in divide / expm1), which the test configuration makes an
    error: the pmf at scale 5e-324 is the point mass at 0; the profile at eps = 1e300 is 0."""
    assert dsc.discrete_laplace_pmf([0, 1, -3], 5e-324).tolist() == [1.0, 0.0, 0.0]
    assert dsc.discrete_laplace_delta(2.0, [1e300, 1.7e308], 2).tolist() == [0.0, 0.0]


# ---------------------------------------------------------------- huge integer arguments
def test_exact_mechanisms_refuse_more_than_a_million_draws(raises_exactly):
    """size = 2**31 asked numpy for a 16 GiB array (MemoryError); 2**62 gave a broadcasting error
    stating no range. Each draw runs the exact sampler in Python (about 0.1 ms), so a call is
    capped at 10**6 draws, by name."""
    with raises_exactly(f"size must be an integer in [0, 1000000], got {2**31}"):
        dsc.discrete_laplace_mechanism(10, 2.0, size=2**31, rng=random.Random(0))
    with raises_exactly(f"size must be an integer in [0, 1000000], got {2**62}"):
        dsc.discrete_gaussian_mechanism([0, 100], 10.0, size=2**62, rng=random.Random(0))
    with raises_exactly("size must have at most 1000000 entries in all, got (1000, 1001)"):
        dsc.discrete_laplace_mechanism(0, 1.0, size=(1000, 1001), rng=random.Random(0))
    assert dsc.discrete_laplace_mechanism(0, 1.0, size=(2, 3), rng=random.Random(0)).shape == (2, 3)


@pytest.mark.parametrize("draw", [
    lambda size: dsc.full_precision_uniform(np.random.default_rng(0), size=size),
    lambda size: dsc.snapping_mechanism(3.3, 2.5, 40.0, np.random.default_rng(0), size=size),
])
def test_numpy_samplers_refuse_more_than_1e8_draws(draw, raises_exactly):
    """size = 2**31 was a 16 GiB MemoryError, 2**62 numpy's "array is too big"."""
    for size in (10**8 + 1, 2**62):
        with raises_exactly(f"size must be an integer in [1, 100000000], got {size}"):
            draw(size)
    assert draw(5).shape == (5,)


def test_profiles_cap_the_sensitivity(raises_exactly):
    """sensitivity = 2**31 looped over every shift for minutes; each profile caps it by the time
    it takes (Laplace: about a second at 1000, Gaussian: at 10**4), and answers at the cap."""
    with raises_exactly("sensitivity must be an integer in [1, 1000], got 1001"):
        dsc.discrete_laplace_delta(2.0, 0.25, sensitivity=1001)
    with raises_exactly(f"sensitivity must be an integer in [1, 10000], got {2**62}"):
        dsc.discrete_gaussian_delta(2.0, 1.0, sensitivity=2**62)
    if THOROUGH:  # at the cap (6 s under make test's load; make verify): epsilon past Delta/t is pure
        # DP, delta 0; below it, a probability
        assert dsc.discrete_laplace_delta(2.0, 1000 / 2.0, sensitivity=1000) == 0.0
        assert 0.0 < dsc.discrete_laplace_delta(2.0, 0.25, sensitivity=1000) <= 1.0
        assert dsc.discrete_gaussian_delta(2.0, 1.0, sensitivity=10**4) == pytest.approx(1.0, abs=1e-12)


def test_can_output_caps_its_search(raises_exactly):
    """search = 2**31 tried 4e9 grid points (minutes); capped at 10**4 (under a second)."""
    with raises_exactly(f"search must be an integer in [0, 10000], got {2**31}"):
        dsc.textbook_laplace_can_output(-0.5, 0.0, 2.0, search=2**31)
    assert bool(dsc.textbook_laplace_can_output(dsc.textbook_laplace_float(0.0, 2.0, 0.3125), 0.0, 2.0, search=10**4))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.longdouble])
def test_exact_samplers_take_numpy_floats_of_any_width_at_their_exact_value(dtype):
    """Fraction() refuses numpy floats other than float64 (a bare TypeError for float32, float16, longdouble):
    a parameter of such a dtype is its exact binary value, so 1.5 in any width draws what 1.5 draws on the same
    seed, and an invalid one gets the ValueError naming the parameter."""
    calls = {
        "sample_discrete_gaussian": lambda v, rng: dsc.sample_discrete_gaussian(v, rng=rng),
        "sample_discrete_laplace": lambda v, rng: dsc.sample_discrete_laplace(v, rng=rng),
        "bernoulli_exp": lambda v, rng: dsc.bernoulli_exp(v, rng=rng),
        "discrete_gaussian_mechanism": lambda v, rng: dsc.discrete_gaussian_mechanism(3, v, size=5, rng=rng).tolist(),
        "discrete_laplace_mechanism": lambda v, rng: dsc.discrete_laplace_mechanism(3, v, size=5, rng=rng).tolist(),
    }
    for name, call in calls.items():
        assert call(dtype(1.5), random.Random(4)) == call(1.5, random.Random(4)), name
    third = dtype(1) / dtype(3)      # in longdouble not a double: float() would round it
    assert dsc._rational("sigma", third) == Fraction(*third.as_integer_ratio())
    with pytest.raises(ValueError, match="^sigma must be > 0, got -1"):
        dsc.sample_discrete_gaussian(dtype(-1.0), rng=random.Random(0))
