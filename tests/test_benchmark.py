"""Tests of dpnotes.benchmark: DP-Sniper's twenty mechanisms and its floating-point pair.

The mechanisms are checked against their exact laws (enumeration, closed forms, quadrature) and
by coupled seeds; RAPPOR's hash against the reference vectors of MurmurHash3; and every row of
the auditing benchmark is recomputed at a fiftieth of its size and compared with the cache
that ``benchmarks/bench_audit.py --write-cache`` (``make bench``) wrote, so ``make test`` runs
every row.
"""

from __future__ import annotations

import importlib.util
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

from dpnotes import audit, benchmark, flawed

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_audit", ROOT / "benchmarks" / "bench_audit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ----------------------------------------------------------------- RAPPOR
# Reference vectors of MurmurHash3 x86_32 (the SMHasher suite's and the mmh3 package's values).
MURMUR = [(b"", 0, 0x0), (b"", 1, 0x514E28B7), (b"", 0xFFFFFFFF, 0x81F16F39), (b"\0\0\0\0", 0, 0x2362F9DE),
          (b"aaaa", 0x9747B28C, 0x5A97808A), (b"abc", 0, 0xB3DD93FA), (b"Hello, world!", 0x9747B28C, 0x24884CBA),
          (b"The quick brown fox jumps over the lazy dog", 0x9747B28C, 0x2FA826CD)]


@pytest.mark.parametrize("data,seed,want", MURMUR)
def test_murmur3_reference_vectors(data, seed, want):
    got = benchmark.murmur3_32(data, seed)
    assert got & 0xFFFFFFFF == want
    assert -(2**31) <= got < 2**31                      # signed, as mmh3.hash returns it


def test_rappor_bits_are_the_hash_positions():
    """mmh3.hash(str(v), seed=i) % 20 for i < 4 (values from the mmh3 package): 0 -> 11, 11, 18, 0 and
    1 -> 3, 10, 13, 3, so each sets three bits; 4 and 5 set four each, all different."""
    assert np.flatnonzero(benchmark.rappor_bits(0)).tolist() == [0, 11, 18]
    assert np.flatnonzero(benchmark.rappor_bits(1)).tolist() == [3, 10, 13]
    a, b = benchmark.rappor_bits(4), benchmark.rappor_bits(5)
    assert a.sum() == b.sum() == 4 and not np.any(a & b)


def brute_force_pair_epsilon(a, b, qs, ps):
    """The largest |log ratio| over every report of the bits where the filters a and b differ (the
    other bits have equal laws), a bit of filter 1 reported as 1 with probability qs, of filter 0 ps."""
    diff = np.flatnonzero(a ^ b)
    best = 0.0
    for mask in range(2 ** diff.size):
        report = np.array([(mask >> i) & 1 for i in range(diff.size)], dtype=bool)
        pa = np.where(a[diff], np.where(report, qs, 1 - qs), np.where(report, ps, 1 - ps))
        pb = np.where(b[diff], np.where(report, qs, 1 - qs), np.where(report, ps, 1 - ps))
        with np.errstate(divide="ignore"):
            best = max(best, abs(float(np.sum(np.log(pa) - np.log(pb)))))
    return best


def test_rappor_pair_epsilon_by_brute_force():
    """Enumerate the 2**k reports of the differing bits (the others have equal laws) and take the
    largest |log ratio|; also at a p*, q* with p* + q* != 1, where the two directions differ."""
    # q < p as well (p* > q*: a reported 0 is then the evidence for a filter's 1)
    for value, value_prime, args in ((0, 1, (0.95,)), (4, 5, (0.75, 0.45, 0.55)), (0, 2, (0.3, 0.2, 0.9)), (1, 2, (0.5,)),
                                     (0, 2, (0.3, 0.9, 0.2)), (1, 2, (0.5, 0.6, 0.4)), (4, 5, (0.1, 0.7, 0.05))):
        qs, ps = benchmark.rappor_bit_probabilities(*args)
        best = brute_force_pair_epsilon(benchmark.rappor_bits(value), benchmark.rappor_bits(value_prime), qs, ps)
        assert benchmark.rappor_pair_epsilon(value, value_prime, *args) == pytest.approx(best, rel=1e-12, abs=0)


def test_rappor_pair_epsilon_at_degenerate_probabilities():
    """p* = q*: the report does not depend on the value (0, not inf); one of them 0 or 1 and the
    other not: a differing bit can be impossible under one value (inf); equal filters: 0."""
    assert benchmark.rappor_pair_epsilon(0, 1, 0.0, 0.0, 0.0) == 0.0
    assert benchmark.rappor_pair_epsilon(0, 1, 0.0, 0.3, 0.3) == 0.0
    assert benchmark.rappor_pair_epsilon(0, 1, 0.0, 0.0, 0.5) == math.inf      # p* = 0 < q*
    assert benchmark.rappor_pair_epsilon(0, 1, 0.0, 0.5, 1.0) == math.inf      # q* = 1 > p*
    assert benchmark.rappor_pair_epsilon(0, 1, 0.0, 1.0, 0.5) == math.inf      # p* = 1 > q*
    assert benchmark.rappor_pair_epsilon(3, 3, 0.5, 0.0, 1.0) == 0.0


def test_geometric_sample_refuses_epsilon_from_2e():
    """k = ceil(ln(2/eps)) < 0 from eps = 2e on: the table would not be one of integers."""
    assert benchmark.geometric_sample_law(1, 5.4, 3)[0] > 0          # just below 2e: k = 0
    for bad in (2 * math.e, 6.0, 100.0):
        with pytest.raises(ValueError, match=r"epsilon must be in \(0, 5\.436"):
            benchmark.geometric_sample_cdf(1, bad, 3)
        with pytest.raises(ValueError, match="epsilon"):
            benchmark.geometric_sample_law(1, bad, 3)


def test_rappor_mechanism_draws_its_law():
    """Coupled seeds: the release is the permanent response (u < f/2: 1, u < f: 0, else the bit)
    then, for RAPPOR, 1 with probability q or p; and the bit frequencies match q*, p*."""
    mech = benchmark.benchmark_cases()[14].mechanism
    out = mech(np.array([4.0]), 1000, np.random.default_rng(3))
    r = np.random.default_rng(3)
    u = r.random((1000, 20))
    bits = benchmark.rappor_bits(4)
    perm = np.where(u < 0.75, u < 0.375, bits)
    want = r.random((1000, 20)) < np.where(perm, 0.55, 0.45)
    assert np.array_equal(out, want.astype(np.int8))
    n = 200_000
    out = mech(np.array([4.0]), n, np.random.default_rng(4))
    qs, ps = benchmark.rappor_bit_probabilities(0.75, 0.45, 0.55)
    freq = out.mean(axis=0)
    sd = math.sqrt(0.25 / n)
    assert np.all(np.abs(freq[bits] - qs) < 5 * sd) and np.all(np.abs(freq[~bits] - ps) < 5 * sd)


def test_rappor_rejects():
    with pytest.raises(ValueError, match="data must be bytes"):
        benchmark.murmur3_32("abc")
    with pytest.raises(ValueError, match="p and q"):
        benchmark.rappor_bit_probabilities(0.5, 0.3)
    with pytest.raises(ValueError, match="f"):
        benchmark.rappor_bit_probabilities(1.5)


# ----------------------------------------------------------------- truncated geometric
def test_geometric_law_by_enumeration():
    """Every U in 1..d once: the sampler's counts are the law times d, exactly."""
    class EveryInteger:
        def integers(self, low, high, size):
            return np.arange(low, high)

    for c in range(6):
        cdf = benchmark.geometric_sample_cdf(c)
        out = benchmark._geometric(np.array([float(c)]), cdf[-1], EveryInteger())
        law = benchmark.geometric_sample_law(c)
        assert np.bincount(out, minlength=6).tolist() == [int(p * cdf[-1]) for p in law]
        assert sum(law) == 1


def test_geometric_is_ln_9_over_8_private_and_tight():
    """Balcer and Vadhan's GeoSample with k = ceil(ln 20) = 3 is ln(1 + 2**-3)-DP, reached by every adjacent pair."""
    for c in range(5):
        a, b = benchmark.geometric_sample_law(c), benchmark.geometric_sample_law(c + 1)
        ratios = [p / q for p, q in zip(a, b)]
        assert max(max(ratios), max(1 / r for r in ratios)) == Fraction(9, 8)
    with pytest.raises(ValueError, match="count"):
        benchmark.geometric_sample_cdf(6)


# ----------------------------------------------------------------- report noisy max
@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_index_law_against_sampling(noise):
    answers = np.array([1.0, 0.0, 2.0, 2.0, -3.0])
    law = benchmark.noisy_max_index_law(answers, 0.1, noise=noise)
    assert abs(law.sum() - 1) < 1e-9 and law[2] == pytest.approx(law[3], rel=1e-9, abs=0)
    n = 400_000
    freq = np.bincount(flawed.noisy_max(answers, 0.1, n, rng=np.random.default_rng(1), noise=noise), minlength=5) / n
    assert np.all(np.abs(freq - law) < 5 * np.sqrt(law * (1 - law) / n))


def test_index_law_two_answers_closed_form():
    """Two answers f1 > f2 with exponential noise of scale b: Pr[index 2] = exp(-(f1 - f2)/b) / 2."""
    law = benchmark.noisy_max_index_law([1.0, 0.0], 0.1, noise="exponential")
    assert law[1] == pytest.approx(0.5 * math.exp(-1 / 20), rel=1e-10, abs=0)


# ----------------------------------------------------------------- the other mechanisms
def test_snapped_outputs_and_noise_by_coupled_seeds():
    """Laplace rows release value + Lap(scale) rounded to multiples of 2**-20; PrefixSum the cumulative sums."""
    cases = {c.key: c for c in benchmark.benchmark_cases()}
    out = cases["LaplaceMechanism"].mechanism(np.zeros(1), 1000, np.random.default_rng(2))
    z = flawed.laplace_noise(10.0, 1000, np.random.default_rng(2))
    assert np.array_equal(out, np.round(z * 2**20) / 2**20) and np.all(out * 2**20 == np.rint(out * 2**20))
    out = cases["PrefixSum"].mechanism(np.arange(10.0), 500, np.random.default_rng(2))
    z = flawed.laplace_noise(10.0, (500, 10), np.random.default_rng(2))
    assert np.allclose(out, np.cumsum(np.arange(10.0) + z, axis=1), atol=2**-20)
    out = cases["LaplaceParallel"].mechanism(np.ones(1), 500, np.random.default_rng(2))
    assert out.shape == (500, 20) and abs(np.median(np.abs(out - 1)) - 200 * math.log(2)) < 30


def test_algorithm_3_rows_snap_by_coupled_seeds():
    """SVT3 and SVT34Parallel release Algorithm 3's values rounded to multiples of 2**-20 (written
    into arrays stored by columns) and SVT34Parallel Algorithm 4's codes beside them, unchanged."""
    cases = {c.key: c for c in benchmark.benchmark_cases()}
    x = np.r_[np.full(5, 2.0), np.zeros(4), -3.0]
    out = cases["SparseVectorTechnique3"].mechanism(x, 800, np.random.default_rng(4))
    ref = flawed.sparse_vector_variant(x, 1.0, 0.1, 800, rng=np.random.default_rng(4), algorithm=3, c=1)
    assert np.array_equal(out, np.round(ref * 2**20) / 2**20, equal_nan=True) and not np.array_equal(out, ref, equal_nan=True)
    out = cases["SVT34Parallel"].mechanism(x, 800, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    a3 = flawed.sparse_vector_variant(x, 1.0, 0.1, 800, rng=rng, algorithm=3, c=2)
    a4 = flawed.sparse_vector_variant(x, 1.0, 0.1, 800, rng=rng, algorithm=4, c=2)
    assert out.shape == (800, 20) and np.array_equal(out[:, 10:], a4)
    assert np.array_equal(out[:, :10], np.round(a3 * 2**20) / 2**20, equal_nan=True)


def test_numerical_svt_codes_and_cutoff():
    cases = {c.key: c for c in benchmark.benchmark_cases()}
    out = cases["NumericalSVT"].mechanism(np.r_[np.full(3, 5000.0), np.zeros(7)], 2000, np.random.default_rng(0))
    tops = np.isfinite(out)
    assert np.all(tops.sum(axis=1) <= 2)
    assert np.all(np.isnan(out[:, 2:]))                            # two certain tops, then the halt
    assert abs(np.mean(out[:, 0]) - 5000) < 5 and abs(np.std(out[:, 0]) - 60 * math.sqrt(2)) < 8   # Lap(3c/eps)


def test_snapping_mechanism_outputs():
    snap = benchmark.floating_point_cases()[1].mechanism
    out = snap(np.zeros(1), 100_000, np.random.default_rng(0))
    inside = np.abs(out) < 100
    assert np.all(out[inside] % 16 == 0) and set(np.unique(out[~inside])) <= {-100.0, 100.0}


def test_pair_epsilons_are_exact():
    cases = {c.key: c for c in benchmark.benchmark_cases()}
    assert cases["TruncatedGeometricMechanism"].true_epsilon == pytest.approx(math.log(9 / 8), rel=1e-15, abs=0)
    assert cases["OneTimeRappor"].true_epsilon == pytest.approx(8 * math.log(0.525 / 0.475), rel=1e-12, abs=0)
    assert cases["Rappor"].true_epsilon == pytest.approx(8 * math.log(0.5125 / 0.4875), rel=1e-12, abs=0)
    # report noisy max with exponential noise on DP-Sniper's pair: exactly eps at the first index
    assert cases["ReportNoisyMax2"].true_epsilon == pytest.approx(0.1, rel=1e-9, abs=0)
    for c in cases.values():
        assert len(c.x) == len(c.x_prime) and np.max(np.abs(c.x - c.x_prime)) <= 1
        assert np.all(np.abs(c.x) <= 10) and np.all(np.abs(c.x_prime) <= 10)     # DP-Sniper's domain


# ----------------------------------------------------------------- the new scores keep the per-row property
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bits_and_median_scores_are_per_row(dtype):
    rng = np.random.default_rng(9)
    fx = rng.laplace(0, 10, (4000, 1)).astype(dtype)
    fxp = rng.laplace(1, 10, (4000, 1)).astype(dtype)
    batch = np.r_[rng.laplace(0, 10, 300), [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324]].astype(dtype)[:, None]
    for k in audit._BITS:
        s = audit._BitsScore(fx, fxp, k)
        whole = s(batch)
        assert all(whole[i] == s(batch[i:i + 1])[0] for i in range(batch.shape[0]))
    wide = rng.laplace(0, 1, (500, 6)).astype(dtype)
    wide[::7, 2] = np.nan
    m = audit._AboveMedianScore(wide[:250], wide[250:])
    whole = m(wide)
    assert all(whole[i] == m(np.asfortranarray(wide[i:i + 1]))[0] for i in range(wide.shape[0]))


def test_bits_score_finds_a_last_bit_leak():
    """Outputs in [1, 2) whose last mantissa bit is 1 with probability 0.6 on x and 0.4 on x' (the
    rest uniform): only the bits score sees it, and the audit's bound is near log(1.5)."""
    def mech(data, size, rng):
        mant = rng.integers(0, 2**52, size, dtype=np.uint64) & ~np.uint64(1)
        last = (rng.random(size) < (0.6 if data == 0 else 0.4)).astype(np.uint64)
        return ((np.uint64(1023) << np.uint64(52)) | mant | last).view(np.float64)

    blind = audit.audit_pair(mech, 0, 1, n_samples=200_000, rng=np.random.default_rng(0), float_bits=False)
    assert blind.epsilon < 0.1                                                  # off: blind
    res = audit.audit_pair(mech, 0, 1, n_samples=200_000, rng=np.random.default_rng(0))   # on by default
    assert "last" in res.test.description and 0.3 < res.epsilon <= math.log(1.5)


# ----------------------------------------------------------------- the table
def test_every_row_at_a_fiftieth_is_what_the_cache_says():
    """Every row of the benchmark recomputed (at a fiftieth of its runs, seed 2021) is what the
    small cache that make bench wrote beside the full one says, every row in both profiles (8 s):
    make test once checked every other row, so a change to the auditor that moved only a skipped
    row would have passed make test and failed only make verify, the way the accountant's stored
    values did twice (tests/accountant_code.py)."""
    bench = _bench()
    stored = json.loads(bench.CACHE_SMALL.read_text())
    cases = bench.cases()
    assert [r["key"] for r in stored["rows"]] == [c.key for c in cases]
    assert stored["confidence"] == bench.CONFIDENCE and stored["seed"] == bench.SEED
    for case, row in zip(cases, stored["rows"]):
        new = bench.run_row(case, bench.small_size(case))
        # Counts, sizes, names and the test's description are compared exactly; real numbers to the
        # accuracy of the computation that makes them, not to the last bit, which depends on the
        # CPU's floating-point kernels (glibc and OpenBLAS pick fused multiply-add variants where the
        # CPU has them). The score threshold comes out of a numerical fit (the logistic score's
        # L-BFGS): the cache written on one machine and a rerun on an AMD EPYC differed by up to
        # 1.4e-7 relative (SVT34Parallel); a threshold that moved enough to change a count fails on
        # the counts. The true epsilon is a quadrature to 1e-11 per piece, the bound a beta quantile.
        assert new.keys() == row.keys(), case.key
        for key, value in row.items():
            if key == "threshold":
                assert new[key] == pytest.approx(value, rel=1e-5, abs=1e-9), (case.key, key)
            elif isinstance(value, float):
                assert new[key] == pytest.approx(value, rel=1e-10, abs=1e-300), (case.key, key)
            else:
                assert new[key] == value and type(new[key]) is type(value), (case.key, key)


def test_full_table_is_sound_and_cites_the_logs():
    """The full table never passes a finite true epsilon, and its rows are the cases' configurations;
    the published bounds file names its repository, commit and a log for every number."""
    bench = _bench()
    table = json.loads(bench.CACHE.read_text())
    cases = {c.key: c for c in bench.cases()}
    for row in table["rows"]:
        c = cases[row["key"]]
        assert row["n_samples"] == c.n_samples and row["x"] == c.x.tolist() and row["x_prime"] == c.x_prime.tolist()
        if row["true_epsilon"] is not None:
            assert row["epsilon"] <= row["true_epsilon"], row["key"]
    pub = json.loads((ROOT / "chapters" / "auditing" / "published-bounds.json").read_text())
    assert len(pub["commit"]) == 40 and pub["repository"].endswith("eth-sri/dp-sniper")
    assert set(pub["mechanisms"]) == set(cases)
    for mech, sources in pub["mechanisms"].items():
        assert {"dpsniper_reg", "dpsniper_mlp"} <= set(sources) or mech.startswith("floating"), mech
        for rec in sources.values():
            assert rec["log"].startswith("eval_sp2021/reference-results/") and rec["eps_lcb"] > 0


# ----------------------------------------------------------------- NumericalSVT's exact law
def test_numerical_svt_pattern_law_matches_the_sampler():
    """The exact pattern law (quad_vec over the threshold noise) against the sampler's pattern
    frequencies on 200 000 runs: a chi-square test at the 0.1% level (patterns with an expected
    count below 5 pooled), on an asymmetric pair of answers."""
    x = np.r_[np.ones(3), -2.0, np.zeros(2), 3.0, np.zeros(3)]
    pats, law = benchmark.numerical_svt_pattern_law(x)
    assert abs(law.sum() - 1) < 1e-9 and np.all(law > 0)
    c = {c.key: c for c in benchmark.benchmark_cases()}["NumericalSVT"]
    out = c.mechanism(x, 200_000, np.random.default_rng(11))
    index = {p: i for i, p in enumerate(pats)}
    seen = np.bincount([index[tuple(np.flatnonzero(np.isfinite(r)))] for r in out], minlength=len(pats))
    expected = law * out.shape[0]
    small = expected < 5
    obs, exp = seen[~small], expected[~small]
    if small.any():
        obs, exp = np.r_[obs, seen[small].sum()], np.r_[exp, expected[small].sum()]
    assert stats.chisquare(obs, exp).pvalue > 1e-3


def test_numerical_svt_pattern_law_against_plain_quadrature():
    """Two patterns recomputed with scipy.integrate.quad and scipy.stats' Laplace law (an
    independent implementation of the same integral; relative tolerance 1e-8)."""
    x = np.array([0.5, -1.0, 2.0, 0.0])
    pats, law = benchmark.numerical_svt_pattern_law(x)
    rho, nu = stats.laplace(scale=30.0), stats.laplace(scale=120.0)
    for pat in [(), (1, 3), (2,)]:
        last = pat[-1] if len(pat) == 2 else 3
        def f(r, pat=pat, last=last):
            v = rho.pdf(r)
            for i in range(last + 1):
                v *= (1 - nu.cdf(1 + r - x[i])) if i in pat else nu.cdf(1 + r - x[i])
            return v
        ref = sum(integrate.quad(f, a, b, epsrel=1e-12, epsabs=0, limit=200)[0]
                  for a, b in [(-np.inf, -3.0), (-3.0, 0.0), (0.0, 2.0), (2.0, np.inf)])
        assert law[pats.index(pat)] == pytest.approx(ref, rel=1e-8, abs=0)


def test_numerical_svt_pair_epsilon_is_within_its_proofs():
    """NumericalSVT is 0.1-DP (Wang et al.); when every answer moves up by one the comparisons
    cancel against a shifted threshold, and the pair costs at most 1/30 (threshold) + 2/60 (two
    released values); the book's pair, which moves half the answers each way, costs more."""
    shift = benchmark.numerical_svt_pair_epsilon(np.zeros(10), np.ones(10))
    assert 0.05 < shift <= 1 / 30 + 2 / 60
    c = {c.key: c for c in benchmark.benchmark_cases()}["NumericalSVT"]
    assert shift < c.true_epsilon <= 0.1
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = rng.uniform(-10, 10, 10)
        xp = np.clip(x + rng.choice([-1.0, 1.0], 10), -10, 10)
        assert 0 < benchmark.numerical_svt_pair_epsilon(x, xp) <= 0.1 + 1e-9


def test_numerical_svt_functions_reject_bad_input():
    """Each bad argument raises a ValueError naming it."""
    law = benchmark.numerical_svt_pattern_law
    for kwargs, name in [({"epsilon": 0.0}, "epsilon"), ({"epsilon": -0.1}, "epsilon"), ({"c": 0}, "c"),
                         ({"c": 1.5}, "c"), ({"threshold": math.inf}, "threshold")]:
        with pytest.raises(ValueError, match=name):
            law(np.zeros(3), **kwargs)
    for answers in ([], [0.0, math.nan], np.zeros((2, 2))):
        with pytest.raises(ValueError, match="answers"):
            law(answers)
    with pytest.raises(ValueError, match="x and x_prime"):
        benchmark.numerical_svt_pair_epsilon(np.zeros(3), np.ones(4))
    with pytest.raises(ValueError, match="epsilon"):
        benchmark.numerical_svt_pair_epsilon(np.zeros(3), np.ones(3), epsilon=0.0)


# ----------------------------------------------------------------- extreme magnitudes
def test_geometric_sample_at_the_smallest_subnormal_epsilon():
    # 2 / 5e-324 overflowed and ceil(log(inf)) raised OverflowError; k = ceil(ln(2 / eps)) = 746
    import mpmath as mp

    with mp.workdps(30):
        k = int(mp.ceil(mp.log(2 / mp.mpf(5e-324))))
    assert k == 746
    cdf = benchmark.geometric_sample_cdf(1, 5e-324, 2)
    d = (2 ** (k + 1) + 1) * (2**k + 1)
    assert cdf == [2**k * (2**k + 1), d - 2**k * (2**k + 1), d]     # Balcer and Vadhan, n = 2, c = 1
    law = [benchmark.geometric_sample_law(c, 5e-324, 2) for c in range(3)]
    assert all(sum(p) == 1 for p in law)
    # ln(1 + 2^-k)-DP, reached by adjacent counts (as at epsilon = 0.1 with k = 3)
    assert max(max(p / q, q / p) for c in range(2) for p, q in zip(law[c], law[c + 1])) == 1 + Fraction(1, 2**k)


def _svt_law_reference(g, c, pattern, k):
    """A pattern's probability in units of the threshold noise, by scipy.integrate.quad and
    scipy.stats (independent of the module): int e^{-|s|}/2 prod F(s/(2c) - g_i) ... ds."""
    lap = stats.laplace()
    last = pattern[-1] if len(pattern) == c else k - 1

    def f(s):
        v = lap.pdf(s)
        for i in range(last + 1):
            u = s / (2 * c) - g[i]
            v *= lap.sf(u) if i in pattern else lap.cdf(u)
        return v

    pts = sorted({0.0, *[2 * c * gi for gi in g]})
    return integrate.quad(f, -60, 60, points=pts, epsabs=0, epsrel=1e-12, limit=400)[0]


@pytest.mark.parametrize("epsilon", [1e-300, 5e-324])
def test_numerical_svt_pattern_law_at_a_tiny_epsilon_is_the_equal_answers_limit(epsilon):
    # every offset (f_i - T) eps / (6c) is 0: the law of answers at the threshold. The quadrature
    # ran over a noise scale of 3e300 and did not end (10 s)
    pats, law = benchmark.numerical_svt_pattern_law([0.0, 1.0, 0.0], epsilon=epsilon, c=2, threshold=1.0)
    ref = [_svt_law_reference([0.0, 0.0, 0.0], 2, p, 3) for p in pats]
    assert law == pytest.approx(ref, rel=1e-9, abs=0)
    # no top: int e^{-|s|}/2 F(s/4)^3 ds = 3/20 exactly (mpmath at 30 digits: 0.15)
    assert law[pats.index(())] == pytest.approx(0.15, rel=1e-9, abs=0)


def test_numerical_svt_pattern_law_at_a_huge_threshold_or_epsilon():
    pats, law = benchmark.numerical_svt_pattern_law([0.0, 1.0, 0.0], threshold=1e300)
    assert law[pats.index(())] == pytest.approx(1.0, rel=1e-12, abs=0) and np.all(np.delete(law, pats.index(())) == 0.0)
    pats, law = benchmark.numerical_svt_pattern_law([0.0, 1.0, 0.0], threshold=-1e300)    # every query a top
    assert law[pats.index((0, 1))] == pytest.approx(1.0, rel=1e-12, abs=0) and law.sum() == pytest.approx(1.0, rel=1e-12, abs=0)
    # epsilon = 1e300: answers 0 are bottoms surely; the answer at the threshold is a top with
    # probability 1/2 (a symmetric comparison): () and (1,) have 1/2 each
    pats, law = benchmark.numerical_svt_pattern_law([0.0, 1.0, 0.0], epsilon=1e300, c=2, threshold=1.0)
    want = np.zeros(len(pats))
    want[[pats.index(()), pats.index((1,))]] = 0.5
    assert np.allclose(law, want, rtol=1e-10, atol=0)


@pytest.mark.parametrize("threshold", [1e-300, -5e-324, 40.0])
def test_numerical_svt_pattern_law_at_small_and_far_thresholds(threshold):
    # a kink at s = -1.7e-301 next to the one at 0 held the quadrature (no answer in 10 s)
    x, eps, c = np.array([0.0, 1.0, 0.0]), 0.5, 2
    pats, law = benchmark.numerical_svt_pattern_law(x, epsilon=eps, c=c, threshold=threshold)
    g = (x - threshold) * eps / (6 * c)
    assert law == pytest.approx([_svt_law_reference(g, c, p, 3) for p in pats], rel=1e-8, abs=0)


def test_numerical_svt_pair_epsilon_refuses_patterns_below_the_float_range():
    for kwargs, name in (({"threshold": 1e300}, "threshold"), ({"epsilon": 1e300}, "epsilon"),
                         ({"threshold": -1e300}, "threshold")):
        with pytest.raises(ValueError, match=rf"{name} = .*probability is below e\^-700"):
            benchmark.numerical_svt_pair_epsilon([0.0, 1.0], [1.0, 0.0], c=1, **{"epsilon": 0.5, "threshold": 0.5,
                                                                                **kwargs})
    # at a tiny epsilon it answers, within the theorem's bound and the method's 1e-10
    for eps in (1e-300, 5e-324):
        got = benchmark.numerical_svt_pair_epsilon([0.0, 1.0], [1.0, 0.0], epsilon=eps, c=1, threshold=0.5)
        assert 0.0 <= got <= eps + 1e-10


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_index_law_at_extreme_epsilons(noise):
    # the quadrature ran in units of the answers: the law was [0, 0] at epsilon = 1e300 and 5e-324
    assert np.allclose(benchmark.noisy_max_index_law([0.0, 1.0], 1e300, noise=noise), [0.0, 1.0], rtol=1e-12, atol=0)
    for eps in (1e-300, 5e-324):                          # the noise swamps the answers: uniform
        assert np.allclose(benchmark.noisy_max_index_law([0.0, 1.0], eps, noise=noise), 0.5, rtol=1e-12, atol=0)
    law = benchmark.noisy_max_index_law([0.0, 1e308, -1e308], 5e-324, noise=noise)
    assert np.allclose(law, 1 / 3, rtol=1e-12, atol=0)


def test_index_law_closed_forms_at_a_noise_scale_of_1e300():
    # answers 1e300 apart with noise scale 1e300 (epsilon = 2e-300): one scale apart. Exponential:
    # Pr[lower] = e^{-1}/2; Laplace: Pr[L_0 - L_1 > 1] = (2 + 1) e^{-1} / 4
    law = benchmark.noisy_max_index_law([1e300, 0.0], 2e-300, noise="exponential")
    assert law[1] == pytest.approx(0.5 * math.exp(-1), rel=1e-10, abs=0)
    law = benchmark.noisy_max_index_law([1e300, 0.0], 2e-300)
    assert law[1] == pytest.approx(3 * math.exp(-1) / 4, rel=1e-10, abs=0) and law.sum() == pytest.approx(1, rel=1e-10)


def test_geometric_sample_and_rappor_cap_their_sizes(raises_exactly):
    """geometric_sample_cdf(n=2**31) computed huge integers for minutes (90 s at n = 10**4), and
    rappor_bits looped 2**31 hashes or built a 2**62-bit filter. Capped by name; exact at the cap."""
    with raises_exactly(f"n must be an integer in [1, 2000], got {2**31}"):
        benchmark.geometric_sample_cdf(1, 0.1, 2**31)
    with raises_exactly("n must be an integer in [1, 2000], got 2001"):
        benchmark.geometric_sample_law(1, 0.1, 2001)
    law = benchmark.geometric_sample_law(1, 0.1, 2000)
    assert len(law) == 2001 and sum(law) == 1
    with raises_exactly(f"n_hashes must be an integer in [1, 100000], got {2**31}"):
        benchmark.rappor_bits(3, n_hashes=2**31)
    with raises_exactly(f"filter_size must be an integer in [1, 100000000], got {2**62}"):
        benchmark.rappor_pair_epsilon(0, 1, 0.75, 0.45, 0.55, filter_size=2**62)
    assert 1 <= benchmark.rappor_bits(3, n_hashes=10**5, filter_size=8).sum() <= 8
