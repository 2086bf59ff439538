"""Unit tests of dpnotes.finite."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from dpnotes import finite, mechanisms


def test_binary_datasets_are_all_distinct_bit_vectors():
    d = finite.binary_datasets(4)
    assert d.shape == (16, 4)
    assert {tuple(r) for r in d} == set(itertools.product((0, 1), repeat=4))


@pytest.mark.parametrize("n, k", [(3, 1), (4, 2), (5, 3), (4, 4)])
def test_pairs_at_distance_count(n, k):
    # unordered pairs at Hamming distance k: 2^n * C(n, k) / 2
    pairs = finite.pairs_at_distance(finite.binary_datasets(n), k)
    assert len(pairs) == 2**n * math.comb(n, k) // 2
    d = finite.binary_datasets(n)
    assert all((d[i] != d[j]).sum() == k for i, j in pairs)


def test_epsilon_over_pairs_matches_exact_fractions():
    # record-wise RR with p = 2/3 (eps = log 2) on 2 records, computed independently with fractions
    p = Fraction(2, 3)
    outs = list(itertools.product((0, 1), repeat=2))
    exact = max(
        max(a / b, b / a)
        for x in outs for x2 in outs if sum(u != v for u, v in zip(x, x2)) == 1
        for y in outs
        for a, b in [(math.prod(p if yi == xi else 1 - p for yi, xi in zip(y, x)),
                      math.prod(p if yi == xi else 1 - p for yi, xi in zip(y, x2)))]
    )
    d = finite.binary_datasets(2)
    table = np.exp([mechanisms.randomized_response_log_pmf(d, x, math.log(2)) for x in d])
    assert finite.epsilon_over_pairs(table, finite.pairs_at_distance(d, 1)) == pytest.approx(math.log(exact))
    assert exact == 2


def test_epsilon_over_pairs_on_an_asymmetric_channel():
    # rows [0.99, 0.01] and [0.5, 0.5]: the largest ratio is 0.5/0.01 = 50, reached on the
    # *second* row of the pair, in the output where the first row is small
    table = [[0.99, 0.01], [0.5, 0.5]]
    exact = max(Fraction(99, 100) / Fraction(1, 2), Fraction(1, 2) / Fraction(1, 100))
    assert exact == 50
    assert finite.epsilon_over_pairs(table, [(0, 1)]) == pytest.approx(math.log(50), rel=1e-14, abs=0)
    assert finite.epsilon_over_pairs(table, [(1, 0)]) == pytest.approx(math.log(50), rel=1e-14, abs=0)


def test_epsilon_over_pairs_only_uses_the_given_pairs():
    # rows 0 and 1 are close (log 1.25), row 2 is far from both: which pairs are given matters
    table = [[0.5, 0.5], [0.4, 0.6], [0.1, 0.9]]
    assert finite.epsilon_over_pairs(table, [(0, 1)]) == pytest.approx(math.log(1.25), rel=1e-14, abs=0)
    assert finite.epsilon_over_pairs(table, [(1, 2)]) == pytest.approx(math.log(4), rel=1e-14, abs=0)
    assert finite.epsilon_over_pairs(table, [(0, 1), (0, 2)]) == pytest.approx(math.log(5), rel=1e-14, abs=0)


def test_epsilon_by_distance_on_an_asymmetric_mechanism():
    # n = 2 bits; the output law depends on the number of ones c only, and asymmetrically:
    # Pr[out = 1] = 1/100, 1/10, 1/2 for c = 0, 1, 2 (exact ratios by hand, in fractions)
    d = finite.binary_datasets(2)
    p1 = {0: Fraction(1, 100), 1: Fraction(1, 10), 2: Fraction(1, 2)}
    table = [[float(1 - p1[int(c)]), float(p1[int(c)])] for c in d.sum(axis=1)]
    def eps(c, c2):
        return max(max(a / b, b / a) for a, b in [(p1[c], p1[c2]), (1 - p1[c], 1 - p1[c2])])
    expect = [max(eps(0, 1), eps(1, 2)), eps(0, 2)]
    assert expect == [10, 50]
    assert finite.epsilon_by_distance(table, d) == pytest.approx(np.log(np.array(expect, dtype=float)), rel=1e-14, abs=0)


def test_epsilon_over_pairs_infinite_on_disjoint_support():
    assert finite.epsilon_over_pairs([[1.0, 0.0], [0.5, 0.5]], [(0, 1)]) == math.inf


def test_epsilon_by_distance_of_a_data_independent_mechanism_is_zero():
    d = finite.binary_datasets(3)
    table = np.full((8, 3), 1 / 3)
    assert np.all(finite.epsilon_by_distance(table, d) == 0.0)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: finite.binary_datasets(0), r"n must be an integer in \[1, 16\]"),
        (lambda: finite.binary_datasets(17), r"n must be an integer in \[1, 16\]"),
        (lambda: finite.pairs_at_distance(np.zeros(3), 1), "datasets must be a 2-D array"),
        (lambda: finite.pairs_at_distance(finite.binary_datasets(2), 3), r"k must be an integer in \[1, 2\]"),
        (lambda: finite.epsilon_over_pairs([[0.5, 0.6], [0.5, 0.5]], [(0, 1)]), "rows that each sum to 1"),
        (lambda: finite.epsilon_over_pairs([[1.0], [1.0]], [(0, 2)]), "pairs must index rows"),
        (lambda: finite.epsilon_over_pairs([[1.0], [1.0]], []), "at least one pair"),
        (lambda: finite.epsilon_by_distance(np.full((4, 2), 0.5), finite.binary_datasets(3)), "one row per row"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: finite.epsilon_over_pairs([0.5, 0.5], [(0, 1)]), "table must be 2-D (data sets x outputs), got shape (2,)"),
        (lambda: finite.epsilon_over_pairs([[1.5, -0.5], [0.5, 0.5]], [(0, 1)]), "table must have non-negative rows that each sum to 1"),
        (lambda: finite.epsilon_over_pairs([[0.5, 0.5 + 3e-9], [0.5, 0.5]], [(0, 1)]),
         "table must have non-negative rows that each sum to 1"),
        (lambda: finite.epsilon_over_pairs([[1.0], [1.0]], []), "pairs must contain at least one pair"),
        (lambda: finite.epsilon_over_pairs(np.full((2, 3), 1 / 3), [(0, 2)]), "pairs must index rows 0..1 of table"),
        (lambda: finite.epsilon_over_pairs(np.full((2, 3), 1 / 3), [(-1, 0)]), "pairs must index rows 0..1 of table"),
        (lambda: finite.epsilon_by_distance(np.full((4, 2), 0.5), finite.binary_datasets(3)),
         "datasets must have one row per row of table (4), got shape (8, 3)"),
        (lambda: finite.pairs_at_distance(np.zeros(3), 1), "datasets must be a 2-D array (one data set per row), got shape (3,)"),
    ],
)
def test_bad_inputs_exact_messages(call, message, raises_exactly):
    with raises_exactly(message):
        call()


def test_rows_summing_to_one_within_1e9_are_accepted():
    assert finite.epsilon_over_pairs([[0.5, 0.5 + 5e-10], [0.5, 0.5]], [(0, 1)]) == pytest.approx(1e-9, rel=1e-3, abs=0)


def test_epsilon_over_pairs_with_outputs_impossible_under_both():
    # an output neither row can produce must be ignored, not give inf or log(0) - log(0) = nan
    table = [[0.5, 0.5, 0.0], [0.4, 0.6, 0.0]]
    assert finite.epsilon_over_pairs(table, [(0, 1)]) == pytest.approx(math.log(1.25), rel=1e-14, abs=0)
    assert finite.epsilon_over_pairs(table, [(1, 0)]) == pytest.approx(math.log(1.25), rel=1e-14, abs=0)


def test_epsilon_over_pairs_takes_exact_rationals_and_float_index_arrays():
    table = [[Fraction(99, 100), Fraction(1, 100)], [Fraction(1, 2), Fraction(1, 2)]]
    assert finite.epsilon_over_pairs(table, np.array([[0.0, 1.0]])) == pytest.approx(math.log(50), rel=1e-14, abs=0)


def test_no_numpy_warnings_on_zero_probabilities():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert finite.epsilon_over_pairs([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]], [(0, 1)]) > 0
        assert finite.epsilon_over_pairs([[1.0, 0.0], [0.5, 0.5]], [(0, 1)]) == math.inf
