"""Property tests of dpnotes.finite (exact epsilon by enumeration) over its documented domain.

Tables are drawn as arbitrary mechanisms on the 2^n binary data sets (n <= 4), with masses down
to 1e-300 and exact zeros. The properties: the enumeration of data sets and pairs is complete and
exact (counts C(n, k) 2^(n-1)), epsilon over pairs is the largest pure_epsilon of a pair, group
privacy eps_k <= k eps_1 holds for every mechanism, with equality for record-wise randomized response.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import profiles
from dpnotes import divergences, finite
from dpnotes.mechanisms import randomized_response_log_pmf

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")   # valid input must not make numpy warn


@given(n=st.integers(1, 12), k=st.integers(1, 12))
def test_datasets_and_pairs_are_complete_and_exact(n, k):
    assume(k <= n)
    d = finite.binary_datasets(n)
    assert d.shape == (2**n, n) and len({tuple(r) for r in d}) == 2**n
    pairs = finite.pairs_at_distance(d, k)
    assert len(pairs) == math.comb(n, k) * 2 ** (n - 1)          # 2^n data sets, C(n, k) partners, each pair twice
    assert np.all(pairs[:, 0] < pairs[:, 1])
    assert np.all((d[pairs[:, 0]] != d[pairs[:, 1]]).sum(axis=1) == k)


@st.composite
def tables(draw, n):
    rows, cols = 2**n, draw(st.integers(1, 5))
    mass = st.one_of(st.just(0.0), st.floats(1e-300, 1.0), st.floats(1e-3, 1.0))
    t = np.array(draw(st.lists(st.lists(mass, min_size=cols, max_size=cols), min_size=rows, max_size=rows)))
    assume(np.all(t.sum(axis=1) > 0))
    return t / t.sum(axis=1, keepdims=True)


@settings(max_examples=profiles.size(fast=40, thorough=400))
@given(data=st.data(), n=st.integers(1, 4))
def test_epsilon_over_pairs_is_the_largest_pure_epsilon_and_obeys_group_privacy(data, n):
    t = data.draw(tables(n))
    d = finite.binary_datasets(n)
    by_k = finite.epsilon_by_distance(t, d)
    for k in range(1, n + 1):
        pairs = finite.pairs_at_distance(d, k)
        ref = max(divergences.pure_epsilon(t[i], t[j]) for i, j in pairs)
        assert by_k[k - 1] == pytest.approx(ref, rel=1e-12, abs=0) or by_k[k - 1] == ref == math.inf
        assert finite.epsilon_over_pairs(t, pairs) == by_k[k - 1]
        # group privacy: a path of k neighbours joins any two data sets at distance k
        assert by_k[k - 1] <= k * by_k[0] * (1 + 1e-12) or by_k[0] == math.inf
    # the pair's order does not matter
    pairs = finite.pairs_at_distance(d, 1)
    assert finite.epsilon_over_pairs(t, pairs[:, ::-1]) == by_k[0]


@given(n=st.integers(1, 5), eps=st.floats(1e-6, 30.0))
def test_record_wise_randomized_response_meets_group_privacy_with_equality(n, eps):
    d = finite.binary_datasets(n)
    table = np.exp([randomized_response_log_pmf(d, x, eps) for x in d])
    by_k = finite.epsilon_by_distance(table, d)
    # eps per differing record; the table holds rounded probabilities (relative U each), so a log
    # ratio of two entries is exact up to 2U plus the rounding of exp: 8U absolute per record
    assert by_k == pytest.approx(eps * np.arange(1, n + 1), rel=1e-12, abs=8 * np.finfo(float).eps * n)
