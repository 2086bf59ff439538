"""Tests that kill the surviving mutants of ``dpnotes.concentration`` (``make mutation``).

A nan among the inputs is reported by the function's own message, which names the parameter
and its rule (the first, permissive array check lets it through to that message).
"""

from __future__ import annotations

from dpnotes import concentration


def test_nan_is_reported_with_the_parameters_rule(raises_exactly):
    # kills _float_array mutmut_4, 9, 12 (nan refused by the generic array check first)
    nan = float("nan")
    with raises_exactly("t must be >= 0, got nan"):
        concentration.azuma_bound(nan, [1.0, 2.0])
    with raises_exactly("c must be a non-empty 1-D array of finite values > 0, got [1.0, nan]"):
        concentration.azuma_bound(1.0, [1.0, nan])
