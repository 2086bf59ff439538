"""The conditional sampler of the first top (``flawed._first_top_index``, ``method="conditional"``).

Lyu et al.'s Algorithms 1, 2 and 4 with cut-off 1 release a pattern fixed by the position of
the first top; the conditional sampler draws that position from the threshold noise and one
uniform, without query noise (the auditing benchmark's SVT4 row runs it half a billion times
per input). Checked three ways: exactly, by recomputing every run from the same seed with
scipy.stats' Laplace functions (an independent implementation of the same inverse
distribution function); in law, against the exact law of
:func:`dpnotes.svt.output_log_probabilities` at a size that sees a 1 % error in any cell; and
against the direct sampler, which draws every query's noise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpnotes import benchmark, flawed, svt

A4 = (40.0, 40.0 / 3.0)                 # Algorithm 4 at claimed 0.1: Lap(4/eps), Lap(4/(3 eps))


def _reference(answers, threshold, b_rho, b_nu, size, seed):
    """Each run recomputed from the sampler's own uniforms (same seed, same blocks) with
    scipy.stats: rho by Laplace's inverse distribution function, the bottoms' probabilities by
    its distribution function, the position as the number of S_j above V. Also says which runs
    have an S_j within 1e-12 of V, where the two implementations' rounding may disagree."""
    rng = np.random.default_rng(seed)
    out, close = [], []
    for start in range(0, size, flawed._SUB):
        n = min(flawed._SUB, size - start)
        w, v = rng.random((2, n))
        rho = stats.laplace.ppf(w, scale=b_rho)
        bottom = stats.laplace.cdf(threshold + rho[:, None] - np.asarray(answers)[None, :], scale=b_nu)
        survive = np.cumprod(bottom, axis=1)
        out.append(np.sum(survive > v[:, None], axis=1))
        close.append(np.any(np.abs(survive - v[:, None]) < 1e-12, axis=1))
    return np.concatenate(out), np.concatenate(close)


@pytest.mark.parametrize("answers,threshold,scales", [
    (np.r_[np.full(8, 3.0), 5.0, 0.0], 1.0, A4),                 # the benchmark's pair
    (np.r_[np.full(8, 4.0), 4.0, 0.0], 1.0, A4),
    (np.array([2.5, -30.0, 7.0, 0.0, 7.0, 90.0, -1.0]), -2.0, (3.0, 11.0)),   # asymmetric, distinct values
    # rho / b_nu and (f - T) / b_nu near 1000: e^(rho / b_nu) would overflow, so each answer
    # takes its own exponential (with one e^(rho / b_nu) for all, F would be 1 where it is not)
    (np.array([800.0, 1000.0, 950.0, 1200.0, 1500.0, 1490.0, 2000.0]), 0.0, (1000.0, 1.0)),
])
def test_first_top_by_coupled_seeds(answers, threshold, scales):
    """Run by run, across two blocks of _SUB runs: equal to the scipy recomputation except where
    an S_j lies within 1e-12 of V (rounding of two implementations; such runs are rare)."""
    size = flawed._SUB + 5000
    got = flawed._first_top_index(answers, threshold, *scales, size, np.random.default_rng(5))
    want, close = _reference(answers, threshold, *scales, size, 5)
    assert got.dtype == np.int8 and got.shape == (size,)
    assert np.all((got == want) | close) and np.count_nonzero(close) <= 2
    assert np.unique(got).size >= 5                                   # not a trivial law


def _cells_within(counts, law, n, tol=4.5):
    z = (counts - n * law) / np.sqrt(n * law * (1 - law))
    return float(np.max(np.abs(z)))


@pytest.mark.parametrize("answers", [np.r_[np.full(8, 3.0), 5.0, 0.0], np.r_[np.full(8, 4.0), 4.0, 0.0]])
def test_law_of_the_benchmark_pair_is_exact(answers):
    """7e7 runs: every cell within 4.5 standard deviations of the exact law (a false alarm among
    the 11 cells has probability below 1e-4). The smallest cell has probability above 0.0058,
    so a 1 % error in any cell moves its count by at least 0.01 sqrt(7e7 * 0.0058) = 6.4
    standard deviations, which the test sees with probability above 0.95."""
    n = 70_000_000
    law = np.exp(svt.output_log_probabilities(answers, 1.0, 0.1, threshold_scale=A4[0], query_scale=A4[1]))
    assert abs(law.sum() - 1) < 1e-9 and law.min() > 0.0058
    counts = np.zeros(answers.size + 1)
    rng = np.random.default_rng(17)
    for _ in range(7):
        counts += np.bincount(flawed._first_top_index(answers, 1.0, *A4, n // 7, rng), minlength=answers.size + 1)
    assert _cells_within(counts, law, n) < 4.5


def test_law_at_other_scales_and_threshold():
    """Algorithm 1's scales at eps = 0.8, a negative threshold and spread answers: 2e6 runs,
    every cell within 4.5 standard deviations of the exact law."""
    answers = np.array([1.5, -3.0, 4.0, 4.0, -0.5, 2.0])
    b_rho, b_nu = flawed.lyu_noise_scales(1, 0.8)
    law = np.exp(svt.output_log_probabilities(answers, -0.5, 0.8, threshold_scale=b_rho, query_scale=b_nu))
    n = 2_000_000
    counts = np.bincount(flawed._first_top_index(answers, -0.5, b_rho, b_nu, n, np.random.default_rng(3)),
                         minlength=answers.size + 1)
    assert _cells_within(counts, law, n) < 4.5


def test_conditional_against_the_direct_sampler():
    """The two methods of sparse_vector_variant on the same answers (Algorithms 4 and 2): the
    patterns are well formed and their frequencies agree (two-sample chi-square, p > 1e-3)."""
    answers = np.array([0.5, 3.0, -2.0, 3.0, 8.0, 1.0, 1.0, -4.0])
    for alg in (4, 2):
        runs = {m: flawed.sparse_vector_variant(answers, 1.0, 0.3, 400_000, rng=np.random.default_rng(8),
                                                algorithm=alg, method=m) for m in ("direct", "conditional")}
        cells = []
        for out in runs.values():
            assert out.dtype == np.int8 and out.shape == (400_000, answers.size)
            j = np.where((out == 1).any(axis=1), (out == 1).argmax(axis=1), answers.size)
            assert np.array_equal(out, flawed._pattern_table(answers.size)[j])      # one top, then -1
            cells.append(np.bincount(j, minlength=answers.size + 1))
        assert stats.chi2_contingency(np.array(cells)).pvalue > 1e-3


def test_conditional_pattern_is_the_index_written_out():
    """Same seed: method="conditional" is the pattern table's row at the sampled position, and the
    benchmark's SVT4 row releases that position."""
    x = np.r_[np.full(8, 3.0), 5.0, 0.0]
    j = flawed._first_top_index(x, 1.0, *A4, 1000, np.random.default_rng(2))
    out = flawed.sparse_vector_variant(x, 1.0, 0.1, 1000, rng=np.random.default_rng(2), algorithm=4, method="conditional")
    assert np.array_equal(out, flawed._pattern_table(10)[j])
    case = {c.key: c for c in benchmark.benchmark_cases()}["SparseVectorTechnique4"]
    assert np.array_equal(case.mechanism(x, 1000, np.random.default_rng(2)), j)


def test_extremes_and_many_queries():
    """Answers far above the threshold: the first query is a top; far below: none is. 200
    queries: positions beyond int8 are kept (int64)."""
    rng = np.random.default_rng(0)
    assert np.all(flawed._first_top_index(np.full(5, 1e6), 0.0, *A4, 1000, rng) == 0)
    assert np.all(flawed._first_top_index(np.full(5, -1e6), 0.0, *A4, 1000, rng) == 5)
    many = np.r_[np.full(199, -1e6), 1e6]
    j = flawed._first_top_index(many, 0.0, *A4, 100, rng)
    assert j.dtype == np.int64 and np.all(j == 199)
    # "no top" is position k: int8 holds it up to k = 127, and k = 128 needs int64
    for k, dtype in ((127, np.int8), (128, np.int64)):
        j = flawed._first_top_index(np.full(k, -1e6), 0.0, *A4, 100, rng)
        assert j.dtype == dtype and np.all(j == k)


def test_method_and_release_are_checked():
    with pytest.raises(ValueError, match="method must be 'direct' or 'conditional'"):
        flawed.sparse_vector_variant([0.0, 1.0], 0.0, 1.0, 2, rng=np.random.default_rng(0), algorithm=1, method="fast")
    for kw in ({"algorithm": 3}, {"algorithm": 5}, {"algorithm": 6}, {"algorithm": 4, "c": 2}, {"algorithm": 1, "c": 3}):
        with pytest.raises(ValueError, match="method 'conditional' needs c = 1"):
            flawed.sparse_vector_variant([0.0, 1.0], 0.0, 1.0, 2, rng=np.random.default_rng(0), method="conditional", **kw)
    with pytest.raises(ValueError, match="release 'index' needs c = 1"):
        benchmark._svt(np.zeros(3), 5, np.random.default_rng(0), algorithm=4, threshold=1.0, c=2, release="index")


def test_pattern_table_written_out():
    """The codes of a run by the position of its first top, written out for k = 3: 0 before the
    top, 1 at it, -1 after it (unanswered); the last row, no top, all 0 (as the direct sampler's)."""
    want = np.array([[1, -1, -1], [0, 1, -1], [0, 0, 1], [0, 0, 0]], dtype=np.int8)
    got = flawed._pattern_table(3)
    assert got.dtype == np.int8 and np.array_equal(got, want)
    # the direct sampler writes the same codes: each of its patterns is a row of the table
    direct = flawed.sparse_vector_variant([0.5, 2.0, -1.0], 0.5, 0.7, 20_000, rng=np.random.default_rng(4),
                                          algorithm=4)
    assert {tuple(r) for r in np.unique(direct, axis=0)} <= {tuple(r) for r in want}
    assert len(np.unique(direct, axis=0)) == 4


@pytest.mark.parametrize("algorithm", [1, 2, 4])
def test_conditional_method_for_each_algorithm_it_accepts(algorithm):
    """method="conditional" for Algorithms 1, 2 and 4 (c = 1): the pattern table's row at the position
    drawn from the same seed with that algorithm's noise scales (Algorithm 4's differ from 1's and 2's)."""
    x, eps = np.array([0.3, 2.5, -1.0, 2.5, 1.5]), 0.6
    j = flawed._first_top_index(x, 1.0, *flawed.lyu_noise_scales(algorithm, eps), 3000, np.random.default_rng(9))
    out = flawed.sparse_vector_variant(x, 1.0, eps, 3000, rng=np.random.default_rng(9), algorithm=algorithm,
                                       method="conditional")
    assert np.array_equal(out, flawed._pattern_table(x.size)[j])
