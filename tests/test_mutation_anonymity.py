"""Tests that kill the surviving mutants of ``dpnotes.anonymity`` (``make mutation``).

Written for the survivors of the 2026-11-26 run; each kill was checked by applying the mutant's diff to
``dpnotes/anonymity.py`` and watching the test fail. The expected messages are the ones
``_real_array``'s docstring states: the parameter's name and the values given.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpnotes import anonymity as an


@pytest.mark.parametrize("p, shown", [
    ([Fraction(0), True], "[Fraction(0, 1), True]"),          # a valid law if True were read as 1
    ([Fraction(1, 2), "x"], "[Fraction(1, 2), 'x']"),
    ([Fraction(1, 2), None], "[Fraction(1, 2), None]"),
])
def test_a_bool_string_or_none_among_fractions_is_refused_by_name(p, shown, raises_exactly):
    """Kills _real_array mutmut_10 ('and not bool' -> 'or not bool': the object array of Fractions and a
    bool became [0., 1.], a law the EMD then accepted; with a string numpy's own message came out) and
    mutmut_20 (the message showed None instead of the values)."""
    with raises_exactly(f"p must be an array of real numbers, got {shown}"):
        an.emd_ordered(p, [0.5, 0.5])
    with raises_exactly(f"q must be an array of real numbers, got {shown}"):
        an.emd_equal([0.5, 0.5], p)


def test_fractions_are_accepted_as_real_numbers():
    # the same object-array route with only Fractions: converted, exact value |1/4 - 1/2| / (m - 1) = 1/4
    assert an.emd_ordered([Fraction(1, 4), Fraction(3, 4)], [0.5, 0.5]) == 0.25
    # equal distance, m = 3: half the L1 distance, (0.2 + 0.1 + 0.1) / 2 = 0.2
    assert an.emd_equal([Fraction(1, 2), Fraction(3, 10), Fraction(1, 5)], [0.3, 0.4, 0.3]) == pytest.approx(0.2, rel=1e-15, abs=0)
