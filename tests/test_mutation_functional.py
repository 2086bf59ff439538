"""Tests for the gaps the mutation run of dpnotes.functional found (issue 22).

Each test names the mutants it kills (``mutmut show dpnotes.functional.<name>``). Expected values
come from closed forms, never from the module's own output.
"""

import math
from fractions import Fraction

import numpy as np

from dpnotes import functional


def test_an_object_array_of_python_reals_is_converted_and_a_bool_in_it_is_refused(raises_exactly):
    """``_real_array`` converts an object array whose entries are all real numbers (Fractions and ints,
    as exact arithmetic produces them) and refuses one that holds a bool, naming the parameter and the
    value it got. Kills _real_array mutmut_7, 8, 9 (the object branch skipped), 11 (a bool let through),
    12 and 13 (Fractions refused) and 21 (the value left out of the message)."""
    # v = (1/2, 1), M = diag(2, 1): v^T M^-1 v = 1/8 + 1 = 9/8
    assert math.isclose(functional.mahalanobis_norm([Fraction(1, 2), 1], [[2, 0], [0, 1]]), math.sqrt(9 / 8),
                        rel_tol=1e-15)
    assert math.isclose(functional.mahalanobis_norm(np.array([Fraction(3, 4)], dtype=object), [[Fraction(1, 4)]]),
                        1.5, rel_tol=1e-15)                              # (3/4) / sqrt(1/4)
    with raises_exactly("v must be an array of real numbers, got [True, Fraction(1, 2)]"):
        functional.mahalanobis_norm([True, Fraction(1, 2)], [[2, 0], [0, 1]])
    with raises_exactly("v must be an array of real numbers, got [1, 'a']"):
        functional.mahalanobis_norm([1, "a"], [[2, 0], [0, 1]])


def test_a_non_finite_entry_is_refused_with_the_value_it_got(raises_exactly):
    """Kills _real_array mutmut_29 (the value left out of the message)."""
    with raises_exactly("v must have finite entries, got [1.0, nan]"):
        functional.mahalanobis_norm([1.0, math.nan], [[2, 0], [0, 1]])


def test_as_points_refuses_a_dimension_below_one(raises_exactly):
    """``d = 0`` is refused as a dimension, not reported as a shape mismatch with dimension 0.
    Kills as_points mutmut_5 and 8 (the lower bound of d dropped)."""
    with raises_exactly("d must be an integer >= 1, got 0"):
        functional.as_points("x", [[1.0]], d=0)


def test_the_rkhs_distance_of_records_1e_200_apart_holds_under_a_callers_strict_errstate():
    """A caller who runs with ``np.errstate(all="raise")`` gets the norm, not a FloatingPointError:
    u = (r / h)^2 / 2 underflows to 0 for records 1e-200 apart, and the function silences exactly
    that. Then the norm is c r / h (the small-u form, g(0) = 1), c = 1 / (n sqrt(2 pi) h) for d = 1.
    Kills kde_difference_rkhs_norm mutmut_88 and 90 (the underflow left to the caller's setting)."""
    n, h = 10, 2.0
    with np.errstate(all="raise"):
        out = functional.kde_difference_rkhs_norm(0.0, 1e-200, n, h)
    assert out.shape == (1,)
    assert math.isclose(out[0], 1e-200 / h / (n * math.sqrt(2 * math.pi) * h), rel_tol=1e-13)
