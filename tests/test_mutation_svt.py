"""Tests for the gaps the mutation run of dpnotes.svt found (issue 22).

Each test names the mutants it kills (``mutmut show dpnotes.svt.<name>``). Expected values come
from dpnotes.composition's closed form of the advanced composition theorem, not from the root the
module finds.
"""

import warnings

import numpy as np

from dpnotes import composition, svt


def test_the_per_query_epsilon_is_found_without_warnings_and_spends_the_budget():
    """The root finder's tolerance is read from float64's machine epsilon; ``np.finfo(None)`` gives the same
    number but warns (deprecated since NumPy 1.25, an error in a future NumPy). Kills
    advanced_per_query_epsilon mutmut_62."""
    for epsilon, k, delta_prime in [(0.3, 7, 1e-5), (2.5, 1000, 0.01)]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            e0 = svt.advanced_per_query_epsilon(epsilon, k, delta_prime)
        spent = composition.advanced(e0, k, delta_prime)[0]
        assert abs(spent - epsilon) <= 1e-13 * epsilon


def test_infinite_and_nan_answers_get_the_modules_own_message(raises_exactly):
    """Query answers must be finite; the module's message lists them. ``check_array`` lets inf and
    nan through to that check (with ``allow_inf=False`` its own message, which does not list the
    answers, came first for inf). Kills _answers mutmut_4, _9 and _12."""
    for bad in ([1.0, float("inf")], [-float("inf"), 2.0], [float("nan"), 0.5]):
        with raises_exactly(f"answers must have finite entries, got {bad!r}"):
            svt.above_threshold(bad, 0.0, 1.0, rng=np.random.default_rng(0))
