"""Tests of dpnotes.benchmark written to kill the survivors of its mutation run (issue 22).

Each test names the mutants it kills (``mutmut show dpnotes.benchmark.<name>``). Most pin the
exact error a reader sees for bad input (the parameter, its rule and the value) or a documented
range at both ends; the others check a result against a value derived by hand from the
definitions (GeoSample's table for n = 1, the snapping mechanism's lambda), never against the
module's own output.
"""

import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from dpnotes import benchmark, flawed
from test_benchmark import brute_force_pair_epsilon   # every report of the differing bits, enumerated

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cases():
    """The benchmark's rows by key (built once per test run: their exact epsilons take a second)."""
    return {c.key: c for c in benchmark.benchmark_cases() + benchmark.floating_point_cases()}


def full(message):
    """A `match` pattern for exactly this message."""
    return "^" + re.escape(message) + "$"


# ---------------------------------------------------------------- bad input, named exactly
@pytest.mark.parametrize("call,message", [
    (lambda: benchmark.murmur3_32("abc"), "data must be bytes, got str"),
    (lambda: benchmark.murmur3_32(b"a", -1), "seed must be an integer in [0, 4294967295], got -1"),
    (lambda: benchmark.murmur3_32(b"a", 2**32), "seed must be an integer in [0, 4294967295], got 4294967296"),
    (lambda: benchmark.rappor_bits(1.5), "value must be an integer, got 1.5"),
    (lambda: benchmark.rappor_bits(1, n_hashes=0), "n_hashes must be an integer in [1, 100000], got 0"),
    (lambda: benchmark.rappor_bits(1, filter_size=0), "filter_size must be an integer in [1, 100000000], got 0"),
    (lambda: benchmark.rappor_bit_probabilities(1.5), "f must be in [0, 1], got 1.5"),
    (lambda: benchmark.rappor_bit_probabilities(0.5, 0.3),
     "p and q must both be given or both be None, got p=0.3, q=None"),
    (lambda: benchmark.rappor_bit_probabilities(0.5, None, 0.3),
     "p and q must both be given or both be None, got p=None, q=0.3"),
    (lambda: benchmark.rappor_bit_probabilities(0.5, 1.3, 0.3), "p must be in [0, 1], got 1.3"),
    (lambda: benchmark.rappor_bit_probabilities(0.5, 0.3, -0.3), "q must be in [0, 1], got -0.3"),
    (lambda: benchmark.rappor_pair_epsilon(1.5, 2, 0.5), "value must be an integer, got 1.5"),
    (lambda: benchmark.rappor_pair_epsilon(1, 2.5, 0.5), "value_prime must be an integer, got 2.5"),
    (lambda: benchmark.geometric_sample_cdf(1, 0.0, 3), "epsilon must be in (0, 5.43656365691809), got 0"),
    (lambda: benchmark.geometric_sample_cdf(1, 0.1, 0), "n must be an integer in [1, 2000], got 0"),
    (lambda: benchmark.geometric_sample_cdf(4, 0.1, 3), "count must be an integer in [0, 3], got 4"),
    (lambda: benchmark.geometric_sample_cdf(-1, 0.1, 3), "count must be an integer in [0, 3], got -1"),
    (lambda: benchmark.noisy_max_index_law([1.0, 2.0], 0.1, noise="gauss"),
     "noise must be 'laplace' or 'exponential', got 'gauss'"),
    (lambda: benchmark.noisy_max_index_law([1.0, 2.0], 0.0), "epsilon must be > 0, got 0"),
    (lambda: benchmark._svt(np.zeros(3), 5, np.random.default_rng(0), algorithm=4, threshold=1.0, c=2,
                            release="index"),
     "release 'index' needs c = 1 and algorithm 1, 2 or 4, got c=2, algorithm=4"),
    (lambda: benchmark.numerical_svt_pair_epsilon(np.zeros(3), np.zeros(4)),
     "x and x_prime must have the same shape, got (3,) and (4,)"),
    (lambda: benchmark.numerical_svt_pair_epsilon(np.zeros((2, 2)), np.zeros(4)),
     "x must be a 1-D array, got shape (2, 2)"),
    (lambda: benchmark.numerical_svt_pair_epsilon(np.zeros(2), np.zeros((2, 1))),
     "x_prime must be a 1-D array, got shape (2, 1)"),
    (lambda: benchmark.numerical_svt_pattern_law(np.zeros(2), epsilon=0.0), "epsilon must be > 0, got 0"),
    (lambda: benchmark.numerical_svt_pattern_law(np.zeros(2), c=0), "c must be an integer >= 1, got 0"),
])
def test_bad_input_is_named_with_its_rule_and_value(call, message):
    # kills the mutants of the names and messages (XX-wrapped or None) and of the bounds passed
    # to the checks (low=2 for n_hashes, high=n + 1 for count...)
    with pytest.raises(ValueError, match=full(message)):
        call()


# ---------------------------------------------------------------- documented ranges, both ends
def test_smallest_filter_and_one_hash_are_allowed():
    # n_hashes >= 1 and filter_size >= 1: a one-bit filter has its only bit set, and one hash sets one bit
    assert benchmark.rappor_bits(7, n_hashes=1, filter_size=1).tolist() == [True]
    # the hashes of "0" with seeds 0..3 fall on 11, 11, 18, 0 (mmh3's values, test_benchmark.py):
    # one hash sets bit 11 only, two still only 11 (a collision), three add 18
    assert np.flatnonzero(benchmark.rappor_bits(0, n_hashes=1)).tolist() == [11]
    assert np.flatnonzero(benchmark.rappor_bits(0, n_hashes=2)).tolist() == [11]
    assert np.flatnonzero(benchmark.rappor_bits(0, n_hashes=3)).tolist() == [11, 18]


def test_geometric_table_for_one_count_by_hand():
    """n = 1 (the smallest), eps = 0.1: k = ceil(ln 20) = 3, d = (2**4 + 1) * 9**0 = 17;
    count 0: F(0) = d - 2**3 = 9; count 1 = n (the largest): F(0) = 2**3 * 9**0 = 8."""
    assert benchmark.geometric_sample_cdf(0, 0.1, 1) == [9, 17]
    assert benchmark.geometric_sample_cdf(1, 0.1, 1) == [8, 17]
    # just below 2e, k = ceil(ln(2 / 5.4)) = 0: d = 3 * 2**(n - 1) = 12, F(z < c) = 2**(n - c + z),
    # F(z >= c) = d - 2**(n - 1 - z + c)
    assert benchmark.geometric_sample_cdf(2, 5.4, 3) == [2, 4, 8, 12]


def test_one_time_rappor_probabilities_away_from_a_half():
    # q* = 1 - f/2, p* = f/2; with the instantaneous step q* = (1 - f/2) q + (f/2) p, p* = (f/2) q + (1 - f/2) p
    assert benchmark.rappor_bit_probabilities(0.3) == pytest.approx((0.85, 0.15), abs=1e-15)
    assert benchmark.rappor_bit_probabilities(0.2, 0.1, 0.7) == pytest.approx((0.64, 0.16), abs=1e-15)


# ---------------------------------------------------------------- the table's configuration
def test_full_table_ran_each_row_with_the_selection_size_of_its_case():
    # kills the mutants of n_select in benchmark_cases (the small table always lets audit_pair
    # choose, so only the full one shows it): the full table is the cases' configuration. The
    # cases are built here, not taken from the module's fixture: mutmut runs against a mutant of
    # benchmark_cases only the tests that called it, and a module-scoped fixture's call counts for
    # the first test that used it only (this test, under the fixture, let x_benchmark_cases__mutmut_388,
    # SVT1's n_select None, survive)
    cases = {c.key: c for c in benchmark.benchmark_cases() + benchmark.floating_point_cases()}
    table = json.loads((ROOT / "chapters" / "auditing" / "benchmark-table.json").read_text())
    chosen = {r["key"]: r["n_select"] for r in table["rows"] if cases[r["key"]].n_select is not None}
    assert chosen == {c.key: c.n_select for c in cases.values() if c.n_select is not None}
    assert set(chosen) == {"SparseVectorTechnique1", "SparseVectorTechnique2", "SparseVectorTechnique3",
                           "SVT34Parallel", "NumericalSVT"}


# ---------------------------------------------------------------- the snapping mechanism
def test_snapping_lambda_by_coupled_seeds_at_a_large_bound():
    """lambda = (1 + B 2**-49) / eps: at B = 100 the correction is 2e-13 and moves no output, so take
    B = 2**45 (lambda = 1.0625 / eps) at eps = 0.5: lambda = 2.125, Lambda = 4; outputs are
    clamp(rint((x + s lambda ln U) / 4) * 4) with s = 1 - 2 * coin, the coins drawn before U."""
    bound, eps, size = 2.0**45, 0.5, 5000
    out = benchmark._snapping(np.array([3.0]), size, np.random.default_rng(8), epsilon=eps, bound=bound)
    rng = np.random.default_rng(8)
    s = 1.0 - 2.0 * rng.integers(0, 2, size)
    u = rng.random(size)
    want = np.rint((3.0 + s * 2.125 * np.log(u)) / 4.0) * 4.0
    assert np.array_equal(out, want)


def test_snapping_counts_a_zero_draw_as_one_and_clamps_its_input():
    """U = 0 (numpy's random() is in [0, 1)) is taken as U = 1, so the noise is 0 and the output is
    the snapped input; an input outside [-B, B] is clamped first. B = 2**45, eps = 0.5: Lambda = 4."""
    class Draws:                                  # coins 0 (sign +1), then the given uniforms
        def __init__(self, u):
            self.u = np.asarray(u, dtype=float)

        def integers(self, low, high, size):
            return np.zeros(size, dtype=np.int64)

        def random(self, size):
            return self.u.copy()

    snap = benchmark._snapping
    # U = 0 -> ln 1 = 0: 1.9 rounds to 0 (were it U = 2, 1.9 + 2.125 ln 2 = 3.37 would round to 4)
    assert snap(np.array([1.9]), 2, Draws([0.0, 0.0]), epsilon=0.5, bound=2.0**45).tolist() == [0.0, 0.0]
    # U = e**-1: y = loc - 2.125; loc = +-2**45 for inputs beyond the bound (2**45 - 2.125 rounds to 2**45 - 4)
    e1 = math.exp(-1.0)
    for x, want in ((2.0**46, 2.0**45 - 4), (-(2.0**46), -(2.0**45)), (10.0, 8.0)):
        assert snap(np.array([x]), 1, Draws([e1]), epsilon=0.5, bound=2.0**45).tolist() == [want], x


# ---------------------------------------------------------------- report noisy max rows
def test_index_rows_release_flawed_indices_unchanged(cases):
    # kills _noisy_max mutmut_16 (the index snapped as if it were a value: the same numbers, but
    # floats instead of the integer indices flawed.noisy_max releases); by coupled seeds
    x = np.array([1.0, 0.0, 3.0, 2.0, 3.0])
    for key, noise in (("ReportNoisyMax1", "laplace"), ("ReportNoisyMax2", "exponential")):
        out = cases[key].mechanism(x, 300, np.random.default_rng(5))
        ref = flawed.noisy_max(x, 0.1, 300, rng=np.random.default_rng(5), noise=noise, release="index")
        assert out.dtype.kind == "i" and np.array_equal(out, ref)
    for key, noise in (("ReportNoisyMax3", "laplace"), ("ReportNoisyMax4", "exponential")):
        out = cases[key].mechanism(x, 300, np.random.default_rng(5))
        ref = flawed.noisy_max(x, 0.1, 300, rng=np.random.default_rng(5), noise=noise, release="value")
        assert np.array_equal(out, np.round(ref * 2**20) / 2**20) and not np.array_equal(out, ref)


# ---------------------------------------------------------------- one-value mechanisms
def test_one_value_mechanisms_take_a_scalar_as_a_one_value_array(cases):
    # kills the reshape(None) mutants of the one-value mechanisms (_numpy_laplace mutmut_8...):
    # audit_pair(mechanism, 0, 1, ...) hands them a 0-d value, the benchmark's pairs a shape (1,)
    # array; by coupled seeds both give the same outputs
    one_value = [c for c in cases.values() if c.x.shape == (1,)]
    assert {c.key for c in one_value} == {"LaplaceMechanism", "TruncatedGeometricMechanism", "Rappor",
                                          "OneTimeRappor", "LaplaceParallel", "floating_point", "floating_fixed"}
    for c in one_value:
        v = float(c.x_prime[0])
        a = c.mechanism(np.float64(v), 50, np.random.default_rng(6))
        b = c.mechanism(np.array([v]), 50, np.random.default_rng(6))
        assert np.array_equal(a, b), c.key


def test_geometric_mechanism_by_enumeration_at_eps_1_and_n_2():
    """Every U in 1..d once (as test_benchmark's enumeration), at eps = 1 and n = 2 instead of the
    benchmark's 0.1 and 5: k = ceil(ln 2) = 1, d = (2**2 + 1) * 3 = 15, and the tables by hand
    F = [15 - 2*3, 15 - 4, 15] = [9, 11, 15] (count 0), [2*3, 15 - 2*3, 15] = [6, 9, 15] (count 1),
    [4, 2*3, 15] = [4, 6, 15] (count 2): counts 9, 2, 4 / 6, 3, 6 / 4, 2, 9 (mirror images)."""
    # kills _geometric mutmut_10 (n not passed on: the table of n = 5)
    class EveryInteger:
        def integers(self, low, high, size):
            return np.arange(low, high)

    for count, want in ((0, [9, 2, 4]), (1, [6, 3, 6]), (2, [4, 2, 9])):
        out = benchmark._geometric(np.array([float(count)]), 15, EveryInteger(), epsilon=1.0, n=2)
        assert np.bincount(out, minlength=3).tolist() == want


def test_one_time_rappor_by_coupled_seeds(cases):
    """One-time RAPPOR (f = 0.95, no instantaneous step) releases the permanent response as 0/1
    integers: 1 below f/2 = 0.475, 0 in [0.475, 0.95), value 5's Bloom bit above."""
    mech = cases["OneTimeRappor"].mechanism
    out = mech(np.array([5.0]), 2000, np.random.default_rng(12))
    u = np.random.default_rng(12).random((2000, 20))
    bits = benchmark.rappor_bits(5)
    want = np.where(u < 0.475, 1, np.where(u < 0.95, 0, bits.astype(int)))
    assert np.array_equal(out, want)


def test_rappor_reports_are_stored_one_byte_per_bit(cases):
    # kills _rappor mutmut_23 and _24 (astype(None): the same 0/1 values as float64): the full-size
    # audit holds 4 million 20-bit reports per input, 80 MB as int8 and 640 MB as float64
    for key in ("Rappor", "OneTimeRappor"):
        out = cases[key].mechanism(np.array([4.0]), 10, np.random.default_rng(0))
        assert out.dtype == np.int8 and out.shape == (10, 20), key


# ---------------------------------------------------------------- outputs stored by columns
def test_column_scored_rows_store_their_outputs_by_columns(cases):
    # _snap_into's docstring: SVT3, SVT34Parallel and NumericalSVT write their outputs by columns
    # (order "F") so that the audit's column-wise scores read them without a copy
    for key in ("SparseVectorTechnique3", "SVT34Parallel", "NumericalSVT"):
        out = cases[key].mechanism(cases[key].x, 40, np.random.default_rng(1))
        assert out.shape[0] == 40 and out.flags.f_contiguous and not out.flags.c_contiguous, key


# ---------------------------------------------------------------- NumericalSVT's codes
def test_numerical_svt_codes_row_by_row(cases):
    """Each run: -inf for a bottom, a finite multiple of 2**-20 for a top, nan for every query after
    the second top and only there; a run with fewer than two tops answers every query. Answers
    5000 at positions 1 and 6 are certain tops (noise scales 30 and 120), -5000 certain bottoms."""
    mech = cases["NumericalSVT"].mechanism
    x = np.r_[-5000.0, 5000.0, 0.0, 1.0, -1.0, 2.0, 5000.0, 0.0]
    out = mech(x, 3000, np.random.default_rng(13))
    for row in out:
        tops = np.flatnonzero(np.isfinite(row))
        cut = tops[1] + 1 if tops.size == 2 else row.size
        assert tops.size <= 2 and np.all(np.isnan(row[cut:]))
        asked = row[:cut]
        assert np.all(np.isfinite(asked) | (asked == -np.inf))
        assert np.all(np.ldexp(row[tops], 20) == np.rint(np.ldexp(row[tops], 20)))
    assert np.all(out[:, 0] == -np.inf) and np.all(np.isfinite(out[:, 1]))
    assert np.isin(np.isfinite(out[:, 2:6]).sum(axis=1), (0, 1)).all()   # one top more among the middle four at most
    # the middle four (0, 1, -1, 2 against threshold 1, noise 120) give a top in some runs and none in others
    middle = np.isfinite(out[:, 2:6]).any(axis=1)
    assert 0 < middle.mean() < 1
    assert np.all(np.isfinite(out[~middle, 6])) and np.all(np.isnan(out[middle, 6:]))


def test_numerical_svt_answers_every_query_of_a_single_run():
    # kills _numerical_svt mutmut_38 (the loop stopped while one run was still active, leaving its
    # queries nan): one run on a certain bottom, two certain tops, then nan after the cut-off
    mech = benchmark._numerical_svt
    out = mech(np.array([-5000.0, 5000.0, 5000.0, 0.0]), 1, np.random.default_rng(14))
    assert out.shape == (1, 4) and out[0, 0] == -np.inf and np.all(np.isfinite(out[0, 1:3])) and np.isnan(out[0, 3])
    assert abs(out[0, 1] - 5000) < 2000                           # 5000 + Lap(60)


def test_svt_rows_pass_their_cut_off_on():
    # kills _svt mutmut_50 (c not passed to flawed.sparse_vector_variant: the benchmark's rows all
    # have c = 1, its default): by coupled seeds, Algorithm 1 with cut-off 2 is flawed's
    x = np.r_[np.full(3, 2.0), np.zeros(3), 3.0]

    def flawed_run(alg, c):
        ref = flawed.sparse_vector_variant(x, 1.0, 0.1, 400, rng=np.random.default_rng(15), algorithm=alg, c=c)
        return np.round(ref * 2**20) / 2**20 if alg == 3 else ref      # Algorithm 3's values snapped

    for alg in (1, 3):
        out = benchmark._svt(x, 400, np.random.default_rng(15), algorithm=alg, threshold=1.0, c=2)
        assert np.array_equal(out, flawed_run(alg, 2), equal_nan=True), alg
        assert not np.array_equal(out, flawed_run(alg, 1), equal_nan=True), alg     # the cut-off shows


# ---------------------------------------------------------------- MurmurHash3: default seed, both ends of the range
MASK = 0xFFFFFFFF


def _preimage(target, seed=0):
    """Four bytes whose MurmurHash3 (x86, 32 bits) with ``seed`` is ``target``, by running each step
    of the algorithm backwards (every step is a bijection on 32-bit words): the finalizer's
    xor-shifts and products, the length, the block's rotation and products."""
    def unxorshift(h, s):                       # x ^ (x >> s) = h, solved for x by iteration
        x = h
        for _ in range(32 // s + 1):
            x = h ^ (x >> s)
        return x

    def rotr(x, r):
        return ((x >> r) | (x << (32 - r))) & MASK

    h = unxorshift(target, 16)
    h = unxorshift((h * pow(0xC2B2AE35, -1, 2**32)) & MASK, 13)
    h = unxorshift((h * pow(0x85EBCA6B, -1, 2**32)) & MASK, 16)
    h ^= 4                                      # the length
    h = rotr(((h - 0xE6546B64) * pow(5, -1, 2**32)) & MASK, 13) ^ seed
    k = rotr((h * pow(0x1B873593, -1, 2**32)) & MASK, 15)
    return ((k * pow(0xCC9E2D51, -1, 2**32)) & MASK).to_bytes(4, "little")


def test_murmur3_default_seed_is_zero():
    # kills murmur3_32 mutmut_1 (default seed 1; every caller in the book passes a seed): the
    # reference vectors of seed 0 (test_benchmark.MURMUR) without naming the seed
    assert benchmark.murmur3_32(b"") == 0
    assert benchmark.murmur3_32(b"abc") & MASK == 0xB3DD93FA


@pytest.mark.parametrize("seed", [0, 0x9747B28C])
def test_murmur3_reaches_both_ends_of_its_signed_range(seed):
    # the documented range [-2**31, 2**31 - 1] at both ends, on inputs built by inverting the hash:
    # kills murmur3_32 mutmut_116 (h > 2**31 instead of >=: 0x80000000 would come out as +2**31)
    low, high = _preimage(0x80000000, seed), _preimage(0x7FFFFFFF, seed)
    assert benchmark.murmur3_32(low, seed) == -(2**31)
    assert benchmark.murmur3_32(high, seed) == 2**31 - 1


# ---------------------------------------------------------------- RAPPOR: rounding, keyword filters, one differing bit
def test_rappor_probabilities_come_out_as_written():
    """f = 0.1, p = 0.35, q = 0.6: q* = 0.95 * 0.6 + 0.05 * 0.35 = 0.5875 and
    p* = 0.05 * 0.6 + 0.95 * 0.35 = 0.3625 exactly (in rationals); float arithmetic gives
    0.5874999999999999 and 0.36249999999999993, which the documented rounding to 15 decimals
    returns as written (16 decimals would not)."""
    # kills rappor_bit_probabilities mutmut_64 and _78 (round(..., 16))
    f, p, q = Fraction("0.1"), Fraction("0.35"), Fraction("0.6")
    want = (float((1 - f / 2) * q + f / 2 * p), float(f / 2 * q + (1 - f / 2) * p))
    assert want == (0.5875, 0.3625)
    assert benchmark.rappor_bit_probabilities(0.1, 0.35, 0.6) == want


def test_rappor_pair_epsilon_with_a_small_filter():
    """Three hashes into six bits (not the defaults 4 and 20): 0 sets bits 0, 3, 5 and 8 sets 0, 3,
    so one bit differs, set for 0 only; 5 differs from 0 in two bits one way and one the other."""
    # kills rappor_pair_epsilon mutmut_28, _29, _35, _36 (n_hashes or filter_size not passed on for
    # one of the two filters), _49 (a single differing bit taken for none), _101 and _105 (1.0
    # instead of 0.0 for an empty side)
    small = {"n_hashes": 3, "filter_size": 6}
    f0, f8, f5 = (benchmark.rappor_bits(v, **small) for v in (0, 8, 5))
    assert np.flatnonzero(f0).tolist() == [0, 3, 5] and np.flatnonzero(f8).tolist() == [0, 3]
    assert (f0 & ~f5).sum() == 2 and (f5 & ~f0).sum() == 1
    # f = 0.2, p = 0.1, q = 0.7: q* = 0.64, p* = 0.16; one bit: reported 1 gives log(0.64 / 0.16) = log 4,
    # reported 0 gives |log(0.36 / 0.84)| = log(7 / 3); the larger, in either order of the pair
    for v, w in ((0, 8), (8, 0)):
        assert benchmark.rappor_pair_epsilon(v, w, 0.2, 0.1, 0.7, **small) == pytest.approx(math.log(4), rel=1e-14, abs=0)
    qs, ps = benchmark.rappor_bit_probabilities(0.2, 0.1, 0.7)
    for v, w in ((0, 5), (5, 0)):
        assert benchmark.rappor_pair_epsilon(v, w, 0.2, 0.1, 0.7, **small) == pytest.approx(
            brute_force_pair_epsilon(benchmark.rappor_bits(v, **small), benchmark.rappor_bits(w, **small), qs, ps),
            rel=1e-12)


@pytest.mark.parametrize("p,q", [(0.0, 0.5), (0.5, 0.0)])
def test_rappor_pair_epsilon_is_infinite_for_a_bit_impossible_under_one_value(p, q):
    """f = 0 and p* = 0 < q* (or q* = 0 < p*): the single differing bit of 0 and 8 (three hashes, six
    bits) is reported 1 (or 0) with positive probability under one value and never under the
    other, in either order of the pair; the empty side must add nothing, not 0 * inf."""
    # kills rappor_pair_epsilon mutmut_99 and _103 (n * inf computed for n = 0: nan)
    for v, w in ((0, 8), (8, 0)):
        assert benchmark.rappor_pair_epsilon(v, w, 0.0, p, q, n_hashes=3, filter_size=6) == math.inf


# ---------------------------------------------------------------- NumericalSVT's exact law away from its defaults
def test_numerical_svt_threshold_is_named_exactly():
    # kills numerical_svt_pattern_law mutmut_28 ("XXthresholdXX", which a search for "threshold" finds)
    with pytest.raises(ValueError, match=full("threshold must be finite, got inf")):
        benchmark.numerical_svt_pattern_law(np.zeros(2), threshold=math.inf)


def _pattern_probability(x, pat, epsilon, c, threshold):
    """Pr[pattern] by scipy.integrate.quad over the threshold noise with scipy.stats' Laplace laws
    (the docstring's integral written out: every asked query is a bottom or a top; the last asked
    is the c-th top, or the last query when there are fewer tops)."""
    from scipy import integrate, stats
    rho, nu = stats.laplace(scale=3.0 / epsilon), stats.laplace(scale=6.0 * c / epsilon)
    last = pat[-1] if len(pat) == c else len(x) - 1

    def f(r):
        v = rho.pdf(r)
        for i in range(last + 1):
            v *= nu.sf(threshold + r - x[i]) if i in pat else nu.cdf(threshold + r - x[i])
        return v

    cuts = sorted({0.0, *(float(a) - threshold for a in x)})
    edges = [-np.inf, *cuts, np.inf]
    return sum(integrate.quad(f, a, b, epsrel=1e-12, epsabs=0, limit=200)[0] for a, b in zip(edges[:-1], edges[1:]))


@pytest.mark.parametrize("c,pats", [(3, [(0, 1, 3), (1, 2, 4), (0, 4), ()]), (1, [(2,), ()])])
def test_numerical_svt_pattern_law_at_other_cut_offs(c, pats):
    """c = 3 and c = 1 (the benchmark runs c = 2), at epsilon = 0.5 and threshold -0.5, against plain
    quadrature (relative tolerance 1e-8, as test_benchmark's check at the defaults): with c = 3,
    the pattern (0, 1, 3) has its bottom 2 between the second and the last top."""
    # kills numerical_svt_pattern_law mutmut_54 (p[+1] for the last top: the same as p[-1] only when c = 2)
    x = np.array([0.5, -1.0, 2.0, 0.0, 1.5])
    got_pats, law = benchmark.numerical_svt_pattern_law(x, epsilon=0.5, c=c, threshold=-0.5)
    assert len(got_pats) == sum(math.comb(5, m) for m in range(c + 1))
    assert law.sum() == pytest.approx(1.0, abs=1e-9)
    for pat in pats:
        assert law[got_pats.index(pat)] == pytest.approx(_pattern_probability(x, pat, 0.5, c, -0.5), rel=1e-8, abs=0), pat


def test_numerical_svt_pair_epsilon_of_one_query():
    """One query: the patterns are "bottom" and "top", Pr[top] = P(f + nu >= T + rho), and a top
    releases f + Lap(3c/eps), worth |f - f'| / (3c/eps) more; so eps = max(|log of the bottoms'
    ratio|, +-log of the tops' ratio + that shift). At c = 1 and 3, epsilon = 0.5, threshold 0.3,
    in both orders of the pair."""
    # kills numerical_svt_pair_epsilon's mutants that drop epsilon, c or threshold for one of the two
    # laws (mutmut_32 to _34, _41 to _43: the benchmark only calls it at the defaults) and _75
    # (the direction x' over x left out)
    for c in (1, 3):
        top = {f: _pattern_probability(np.array([f]), (0,), 0.5, c, 0.3) for f in (0.2, 1.2)}
        shift = 1.0 / (3.0 * c / 0.5)
        for f, fp in ((0.2, 1.2), (1.2, 0.2)):
            lt, lb = math.log(top[fp] / top[f]), math.log((1 - top[fp]) / (1 - top[f]))
            want = max(abs(lb), lt + shift, -lt + shift)
            got = benchmark.numerical_svt_pair_epsilon([f], [fp], epsilon=0.5, c=c, threshold=0.3)
            assert got == pytest.approx(want, rel=1e-8, abs=0), (c, f)


def test_numerical_svt_pair_epsilon_is_invariant_under_scaling():
    """Multiplying the answers and the threshold by s and dividing epsilon by s multiplies every noise
    by s: the same law of patterns, and the same shifts |f - f'| / (3c/eps). c = 3, s = 4."""
    x, xp = np.array([0.0, 1.0, -1.0, 0.5]), np.array([1.0, 0.0, -0.5, 1.5])
    base = benchmark.numerical_svt_pair_epsilon(x, xp, epsilon=0.2, c=3, threshold=0.5)
    scaled = benchmark.numerical_svt_pair_epsilon(4 * x, 4 * xp, epsilon=0.05, c=3, threshold=2.0)
    assert 0 < base <= 0.2 + 1e-9 and scaled == pytest.approx(base, rel=1e-7, abs=0)


def test_laplace_parallel_row_by_coupled_seeds():
    """LaplaceParallel releases 20 copies of the input plus Lap(200) (eps = 0.005 each, 0.1 in all),
    rounded to multiples of 2**-20; by coupled seeds, exactly. The row's audit cannot tell 200 from
    201 at a fiftieth of its runs, and test_benchmark's median check allows +-30."""
    # kills x_benchmark_cases__mutmut_758 (scale 201)
    case = {c.key: c for c in benchmark.benchmark_cases()}["LaplaceParallel"]
    out = case.mechanism(np.array([1.0]), 400, np.random.default_rng(21))
    z = flawed.laplace_noise(200.0, (400, 20), np.random.default_rng(21))
    assert out.shape == (400, 20) and np.array_equal(out, np.round((1.0 + z) * 2**20) / 2**20)


@pytest.mark.parametrize("epsilon", [0.3, 1.7])
def test_geometric_pair_epsilon_of_neighbouring_counts_at_other_sizes(epsilon):
    """GeoSample is the geometric mechanism with alpha = 2**k / (2**k + 1), truncated to 0..n (Balcer
    and Vadhan): the laws of two neighbouring counts differ by a factor at most 1 / alpha = 1 + 2**-k,
    reached at the end the counts move away from, so the pair's epsilon is ln(1 + 2**-k) for every
    n >= 1 and count. At eps = 0.3 (k = 2) and 1.7 (k = 1), n = 1, 2, 3 and 8 (the row uses n = 5)."""
    # kills x__geometric_pair_epsilon__mutmut_9 and _15 (n dropped from one of the two laws: the
    # benchmark only calls the helper at n = 5, the laws' default)
    k = math.ceil(math.log(2.0 / epsilon))
    assert k == {0.3: 2, 1.7: 1}[epsilon]
    for n in (1, 2, 3, 8):
        for c in range(n):
            got = benchmark._geometric_pair_epsilon(c, c + 1, epsilon, n)
            assert got == pytest.approx(math.log1p(2.0**-k), rel=1e-12, abs=0), (n, c)


def _index_law_mpmath(answers, noise, scale):
    """Pr[report noisy max releases i], noise of scale ``scale``, by mpmath at 30 digits: the density of
    answer i's noisy value times the others' distribution functions, split at the answers (kinks)."""
    import mpmath as mp
    with mp.workdps(30):
        return _index_law_mpmath_at_working_precision(mp, answers, noise, scale)


def _index_law_mpmath_at_working_precision(mp, answers, noise, scale):
    b = mp.mpf(scale)
    f = [mp.mpf(v) for v in answers]
    if noise == "laplace":
        pdf = lambda u: mp.exp(-abs(u) / b) / (2 * b)                                   # noqa: E731
        cdf = lambda u: mp.exp(u / b) / 2 if u < 0 else 1 - mp.exp(-u / b) / 2          # noqa: E731
    else:
        pdf = lambda u: mp.exp(-u / b) / b if u >= 0 else mp.mpf(0)                     # noqa: E731
        cdf = lambda u: 1 - mp.exp(-u / b) if u >= 0 else mp.mpf(0)                     # noqa: E731
    out = []
    for i, fi in enumerate(f):
        def g(y, i=i, fi=fi):
            return pdf(y - fi) * mp.fprod(cdf(y - fj) for j, fj in enumerate(f) if j != i)
        lo = fi if noise == "exponential" else -mp.inf
        out.append(mp.quad(g, [lo, *sorted({v for v in f if v > lo}), mp.inf]))
    return out


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_index_pair_epsilon_on_an_asymmetric_pair(noise):
    """The exact epsilon of report noisy max's index (eps = 0.1: noise scale 20) on the pair
    (1, 0, 2.5), (0, 1, 2): max_i |ln Pr_x[i] - ln Pr_x'[i]| with both laws by mpmath (tolerance 1e-9
    relative, the laws' quadrature being at 1e-11). The rows' x = (1, 1, 1, 1, 1) has the uniform law
    under either noise, so they cannot tell which noise x's law was computed with; this pair can."""
    # kills x__index_pair_epsilon__mutmut_7 (noise dropped for x: its law always under Laplace noise)
    import mpmath as mp
    x, xp = [1.0, 0.0, 2.5], [0.0, 1.0, 2.0]
    with mp.workdps(30):
        a, b = _index_law_mpmath(x, noise, 20), _index_law_mpmath(xp, noise, 20)
        assert abs(mp.fsum(a) - 1) < 1e-20 and abs(mp.fsum(b) - 1) < 1e-20
        want = float(max(abs(mp.log(p) - mp.log(q)) for p, q in zip(a, b)))
    assert benchmark._index_pair_epsilon(np.array(x), np.array(xp), noise) == pytest.approx(want, rel=1e-9, abs=0)
