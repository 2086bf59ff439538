"""Tests that kill the surviving mutants of ``dpnotes.finite`` (``make mutation``).

The input checks of ``finite`` look at an array's shape before its values, so that a malformed
array is reported by its shape whatever it holds, and they report an empty array by name with its
shape. Written for the mutants of a fresh run (2026-11-26); expected messages are the ones the
docstrings and the shape checks state.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from dpnotes import finite


def whole(message: str) -> str:
    return "^" + re.escape(message) + "$"


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_datasets_shape_is_checked_before_their_values(bad):
    # kills _datasets mutmut_4-6, 9-11, 14-16 (the first check made strict about nan or inf)
    with pytest.raises(ValueError, match=whole("datasets must be a 2-D array (one data set per row), got shape (3,)")):
        finite.pairs_at_distance(np.array([bad, 1.0, 0.0]), 1)
    with pytest.raises(ValueError, match="datasets"):                         # and the values after it
        finite.pairs_at_distance(np.array([[bad, 1.0], [0.0, 1.0]]), 1)


def test_datasets_empty_and_single():
    # kills _datasets mutmut_21, 22 (and the empty-array flag of the first check)
    with pytest.raises(ValueError, match=whole("datasets must not be empty, got shape (0, 3)")):
        finite.pairs_at_distance(np.empty((0, 3)), 1)
    got = finite.pairs_at_distance([[5.0]], 1)                              # one data set of one record: no pair
    assert got.shape == (0, 2)
    # an empty array of the wrong shape is reported by its shape (kills _datasets mutmut_6, 11, 16)
    with pytest.raises(ValueError, match=whole("datasets must be a 2-D array (one data set per row), got shape (0,)")):
        finite.pairs_at_distance(np.array([]), 1)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_table_shape_is_checked_before_its_values(bad):
    # kills _table mutmut_4-6, 9-11, 14-16
    with pytest.raises(ValueError, match=whole("table must be 2-D (data sets x outputs), got shape (3,)")):
        finite.epsilon_over_pairs(np.array([bad, 0.5, 0.5]), [(0, 1)])
    with pytest.raises(ValueError, match=whole("table must have non-negative rows that each sum to 1")):
        finite.epsilon_over_pairs(np.array([[bad, 0.5], [0.5, 0.5]]), [(0, 1)])


def test_table_empty_and_single():
    # kills _table mutmut_21, 22
    with pytest.raises(ValueError, match=whole("table must not be empty, got shape (0, 2)")):
        finite.epsilon_over_pairs(np.empty((0, 2)), [(0, 0)])
    assert finite.epsilon_over_pairs([[1.0]], [0, 0]) == 0.0                # one data set, one output
    # kills _table mutmut_6, 11, 16
    with pytest.raises(ValueError, match=whole("table must be 2-D (data sets x outputs), got shape (0,)")):
        finite.epsilon_over_pairs(np.array([]), [(0, 0)])


def test_pairs_shape():
    # kills epsilon_over_pairs mutmut_21, 22, 27, 28: one pair may be given flat; any other shape is refused
    t = [[0.5, 0.5], [0.25, 0.75], [0.1, 0.9]]
    assert finite.epsilon_over_pairs(t, [0, 1]) == finite.epsilon_over_pairs(t, [[0, 1]]) == pytest.approx(np.log(2))
    for bad in ([0, 1, 2], [[[0, 1]]], [[0, 1, 2]]):
        shape = np.shape(bad)
        with pytest.raises(ValueError, match=whole(f"pairs must be index pairs (i, j), shape (m, 2), got shape {shape}")):
            finite.epsilon_over_pairs(t, bad)
