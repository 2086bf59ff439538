"""Tests that kill the surviving mutants of ``dpnotes.tradeoff`` (``make mutation``).

Error rates are sums of probabilities and can round just above 1 (1.0000000000000002); the
functions clip them to [0, 1], since an error rate never leaves it.
"""

from __future__ import annotations

import numpy as np

from dpnotes import tradeoff

# a law whose accepted mass, as error_pairs sums it for some region, rounds above 1 (found by a
# seeded search with the clip taken out, p uniform)
Q_ROUNDS_UP = np.array([0.03605126204482593, 0.26209300848622735, 0.3696141393838555, 0.08221552010674607,
                        0.25002606997834526])


def test_error_pairs_keep_beta_at_most_one():
    # kills error_pairs mutmut_32 and 37 (beta's upper clip dropped or at 2)
    pairs = tradeoff.error_pairs(np.full(5, 0.2), Q_ROUNDS_UP)
    assert pairs[:, 1].max() == 1.0 and pairs.min() >= 0.0
    assert np.any(pairs[:, 1] == 1.0)                   # the clipped value is there, at 1 exactly


def test_in_privacy_region_of_no_points():
    # kills in_privacy_region mutmut_30, 33, 36, 40, 43, 46 (empty alpha or beta refused)
    got = tradeoff.in_privacy_region([], [], 0.5)
    assert got.shape == (0,) and got.dtype == bool
