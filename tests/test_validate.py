"""Unit tests of the shared input validation (dpnotes._validate) and package hygiene."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from dpnotes import _validate as v


def test_messages_name_parameter_range_and_value():
    with pytest.raises(ValueError, match=r"^epsilon must be > 0, got -1$"):
        v.check_positive("epsilon", -1)
    with pytest.raises(ValueError, match=r"^delta must be in \[0, 1\), got 1$"):
        v.check_delta("delta", 1)
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1, got 0$"):
        v.check_integer("k", 0, low=1)
    with pytest.raises(ValueError, match=r"^x must be a real number, got 'a'$"):
        v.check_real("x", "a")


def test_accepts_and_converts():
    assert v.check_positive("epsilon", 2) == 2.0 and isinstance(v.check_positive("epsilon", 2), float)
    assert v.check_integer("k", 3.0) == 3 and isinstance(v.check_integer("k", np.int64(3)), int)
    assert v.check_probability("p", 1) == 1.0
    assert v.check_delta("delta", 0) == 0.0
    assert v.check_distribution("p", [0.25, 0.75]).tolist() == [0.25, 0.75]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, True, None, [1.0]])
def test_rejects_non_finite_and_non_numbers(bad):
    with pytest.raises(ValueError, match="epsilon"):
        v.check_positive("epsilon", bad)


def test_rng_must_be_a_generator():
    assert isinstance(v.check_rng("rng", np.random.default_rng(0)), np.random.Generator)
    for bad in (0, None, np.random.RandomState(0)):
        with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
            v.check_rng("rng", bad)


def test_distribution_errors():
    with pytest.raises(ValueError, match="p must have finite entries"):
        v.check_distribution("p", [0.5, math.nan])
    with pytest.raises(ValueError, match="non-empty 1-D"):
        v.check_distribution("p", [[0.5, 0.5]])


def test_importing_dpnotes_has_no_side_effects():
    """Import every module in a fresh interpreter: matplotlib's style must be untouched and no
    heavy plotting module imported (the style is applied only by plotting.use_style())."""
    code = (
        "import sys, importlib, pkgutil, matplotlib as mpl; before = dict(mpl.rcParams);"
        "import dpnotes;"
        "names = [m.name for m in pkgutil.iter_modules(dpnotes.__path__)];"
        "[importlib.import_module('dpnotes.' + n) for n in names];"
        "assert len(names) >= 10, names;"
        "assert dict(mpl.rcParams) == before, 'rcParams changed on import';"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported on import'"
    )
    # an explicit backend: reading rcParams["backend"] with the automatic one would itself import pyplot
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr


def test_distribution_pair():
    p, q = v.check_distribution_pair([0.25, 0.75], [0.5, 0.5])
    assert p.tolist() == [0.25, 0.75] and q.tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match="p and q must have the same length, got 2 and 3"):
        v.check_distribution_pair([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="q must sum to 1"):
        v.check_distribution_pair([0.5, 0.5], [0.5, 0.6])
    v.check_distribution_pair([0.5, 0.5 + 5e-9], [0.5, 0.5], atol=1e-8)  # looser tolerance on request
    with pytest.raises(ValueError, match="p must sum to 1"):
        v.check_distribution_pair([0.5, 0.5 + 5e-9], [0.5, 0.5])


# ---------------------------------------------------------------- check_array (issue 22: bad input everywhere)
@pytest.mark.parametrize(
    "value, kwargs, message",
    [
        ("a", {}, "x must be a real number or an array of real numbers, got 'a'"),
        (None, {}, "x must be a real number or an array of real numbers, got None"),
        (True, {}, "x must be a real number or an array of real numbers, got True"),
        (np.bool_(False), {}, "x must be a real number or an array of real numbers, got np.False_"),
        ([1.0, "2"], {}, "x must be a real number or an array of real numbers, got [1.0, '2']"),
        ([1.0, None], {}, "x must be a real number or an array of real numbers, got [1.0, None]"),
        ([1 + 2j], {}, "x must be a real number or an array of real numbers, got [(1+2j)]"),
        ([[1.0], [1.0, 2.0]], {}, "x must be a real number or an array of real numbers, got [[1.0], [1.0, 2.0]]"),
        ([1.0, math.nan], {}, "x must have finite entries, got nan"),
        ([1.0, -math.inf], {}, "x must have finite entries, got -inf"),
        ([1.0, math.nan], {"allow_inf": True}, "x must have entries that are not nan, got nan"),
        ([0.5, 1.5], {"low": 0, "high": 1}, "x must have entries in [0, 1], got 1.5"),
        ([0.5, 0.0], {"low": 0, "low_inclusive": False}, "x must have entries > 0, got 0"),
        ([0.5, 1.0], {"high": 1, "high_inclusive": False}, "x must have entries < 1, got 1"),
        ([[1.0]], {"ndim": 1}, "x must be a 1-D array, got shape (1, 1)"),
        (1.0, {"ndim": (1, 2)}, "x must be a 1-D array or a 2-D array, got shape ()"),
        ([], {}, "x must not be empty, got shape (0,)"),
        ([1, 2.5], {"integer": True}, "x must have integer entries, got 2.5"),
        ("x" * 100, {}, "x must be a real number or an array of real numbers, got '" + "x" * 56 + "..."),
    ],
)
def test_check_array_messages(value, kwargs, message):
    import re

    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        v.check_array("x", value, **kwargs)


def test_check_array_accepts_and_converts():
    from fractions import Fraction

    out = v.check_array("x", [Fraction(1, 2), 2, np.float32(0.25)])
    assert out.dtype == float and out.tolist() == [0.5, 2.0, 0.25]
    assert v.check_array("x", 3).shape == () and v.check_array("x", np.int8(3)).tolist() == 3.0
    assert v.check_array("x", [True, False]).tolist() == [1.0, 0.0]     # bool *entries* are 0/1 data
    assert v.check_array("x", [], allow_empty=True).shape == (0,)
    assert v.check_array("x", [[1, 2]], ndim=2).shape == (1, 2)
    assert v.check_array("x", [math.inf, -1.0], allow_inf=True).tolist() == [math.inf, -1.0]
    got = v.check_array("x", [math.nan, 1.0], allow_nan=True)
    assert math.isnan(got[0]) and got[1] == 1.0
    ints = v.check_array("x", [1.0, 2, np.int64(3)], integer=True)
    assert ints.dtype == np.int64 and ints.tolist() == [1, 2, 3]
    # range bounds are inclusive by default, on both ends
    assert v.check_array("x", [0.0, 1.0], low=0, high=1).tolist() == [0.0, 1.0]


def test_check_distribution_names_the_parameter_for_a_string():
    # issue 22: numpy's "could not convert string to float" named no parameter
    with pytest.raises(ValueError, match=r"^q must be a real number or an array of real numbers, got \['a', 0.5\]$"):
        v.check_distribution_pair([0.5, 0.5], ["a", 0.5])


# ------------------------------------------------ boundaries and exact messages (issue 22 item 5: mutation testing)
# Each case below is an edge a mutant of _validate moved: a strict bound taken as inclusive (or the
# reverse) on the fast path for floats and on the slow path for ints, the wording of each rule, and
# the cut-offs of _short and check_distribution. The messages follow the documented format
# "<name> must be <rule>, got <value>"; the values are chosen so that each side of a bound is hit.
def _raises_exactly(message, fn, *args, **kwargs):
    import re

    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        fn(*args, **kwargs)


def test_strict_and_inclusive_bounds_for_floats_and_ints():
    # floats take the fast path (low < value < high), ints the slow one: both must agree on the bounds
    for zero, one in ((0.0, 1.0), (0, 1)):
        _raises_exactly("epsilon must be > 0, got 0", v.check_positive, "epsilon", zero)
        _raises_exactly("delta must be in [0, 1), got 1", v.check_delta, "delta", one)
        assert v.check_nonnegative("sigma", zero) == 0.0
        assert v.check_delta("delta", zero) == 0.0
        assert v.check_probability("p", one) == 1.0 and v.check_probability("p", zero) == 0.0
    _raises_exactly("epsilon must be > 0, got -1", v.check_positive, "epsilon", -1.0)
    _raises_exactly("p must be in [0, 1], got 1.5", v.check_probability, "p", 1.5)
    _raises_exactly("p must be in [0, 1], got -0.25", v.check_probability, "p", -0.25)
    assert v.check_in_range("x", 0.75, 0.5, 1.0) == 0.75
    assert v.check_in_range("x", 2, 2, 3) == 2.0 and v.check_in_range("x", 3, 2, 3) == 3.0


def test_in_range_rule_wording_for_each_kind_of_interval():
    _raises_exactly("x must be <= 3, got 5", v.check_in_range, "x", 5, high=3)
    _raises_exactly("x must be < 3, got 3", v.check_in_range, "x", 3, high=3, high_inclusive=False)
    _raises_exactly("x must be >= 2, got 1", v.check_in_range, "x", 1, 2)
    _raises_exactly("x must be > 2, got 2", v.check_in_range, "x", 2, 2, low_inclusive=False)
    _raises_exactly("x must be in (0, 1], got 0", v.check_in_range, "x", 0, 0, 1, low_inclusive=False)
    _raises_exactly("x must be in [0, 1), got 2.5", v.check_in_range, "x", 2.5, 0, 1, high_inclusive=False)
    # an infinite value below a finite low bound is out of range (not merely "not finite")
    _raises_exactly("x must be >= 0, got -inf", v.check_nonnegative, "x", -math.inf)
    _raises_exactly("x must be <= 0, got inf", v.check_in_range, "x", math.inf, high=0)
    # inside an interval with an infinite bound, an infinite value is still refused
    _raises_exactly("x must be finite, got inf", v.check_in_range, "x", math.inf, 0)
    _raises_exactly("x must be finite, got inf", v.check_positive, "x", math.inf)
    _raises_exactly("x must be finite, got -inf", v.check_real, "x", -math.inf)
    assert v.check_real("x", -math.inf, allow_inf=True) == -math.inf
    _raises_exactly("x must be a real number, got nan", v.check_real, "x", math.nan)
    _raises_exactly("x must be a real number, got True", v.check_real, "x", True)


def test_integer_rule_wording_and_inclusive_bounds():
    _raises_exactly("k must be an integer in [1, 3], got 4", v.check_integer, "k", 4, low=1, high=3)
    _raises_exactly("k must be an integer in [1, 3], got 0", v.check_integer, "k", 0.0, low=1, high=3)
    _raises_exactly("k must be an integer <= 3, got 4", v.check_integer, "k", 4, high=3)
    _raises_exactly("k must be an integer, got inf", v.check_integer, "k", math.inf)
    _raises_exactly("k must be an integer, got nan", v.check_integer, "k", math.nan)
    _raises_exactly("k must be an integer, got '3'", v.check_integer, "k", "3")
    _raises_exactly("k must be an integer, got False", v.check_integer, "k", False)
    assert v.check_integer("k", 1, low=1, high=3) == 1 and v.check_integer("k", 3.0, low=1, high=3) == 3
    assert v.check_integer("k", -2, high=-2) == -2 and v.check_integer("k", 7, low=7) == 7


def test_short_keeps_sixty_characters_and_cuts_longer():
    # repr of 58 letters is 60 characters: shown whole; one more letter and it is cut to 57 + "..."
    _raises_exactly("x must be a real number or an array of real numbers, got '" + "y" * 58 + "'",
                    v.check_array, "x", "y" * 58)
    _raises_exactly("x must be a real number or an array of real numbers, got '" + "y" * 56 + "...",
                    v.check_array, "x", "y" * 59)


def test_check_array_rule_wording_and_nan_entries():
    _raises_exactly("x must have entries <= 1, got 2", v.check_array, "x", [0.5, 2.0], high=1)
    _raises_exactly("x must have entries >= 0, got -0.5", v.check_array, "x", [1.0, -0.5], low=0)
    _raises_exactly("x must have entries in (0, 1], got 0", v.check_array, "x", [0.5, 0.0], low=0, high=1,
                    low_inclusive=False)
    _raises_exactly("x must have entries in [0, 1), got 1", v.check_array, "x", [1.0, 0.5], low=0, high=1,
                    high_inclusive=False)
    _raises_exactly("x must be a scalar, got shape (2,)", v.check_array, "x", [1.0, 2.0], ndim=0)
    assert v.check_array("x", 2.0, ndim=0).shape == ()
    # nan entries allowed: they are not range-checked, but the first real entry out of range is named
    _raises_exactly("x must have entries <= 1, got 5", v.check_array, "x", [math.nan, 5.0], high=1, allow_nan=True)
    got = v.check_array("x", [math.nan, 0.5], low=0, high=1, allow_nan=True)
    assert math.isnan(got[0]) and got[1] == 0.5
    # with allow_nan an infinite entry is still refused unless allow_inf
    _raises_exactly("x must have finite entries, got inf", v.check_array, "x", [math.nan, math.inf], allow_nan=True)
    _raises_exactly("x must have entries that are not nan, got nan", v.check_array, "x", [math.inf, math.nan],
                    allow_inf=True)
    _raises_exactly("x must have integer entries, got -1.5", v.check_array, "x", [2.0, -1.5], integer=True)
    assert v.check_array("x", [-2.0, 0.0], integer=True).tolist() == [-2, 0]
    # a complex number inside an object array (with a Fraction) is refused, not truncated to its real part
    from fractions import Fraction

    _raises_exactly("x must be a real number or an array of real numbers, got [Fraction(1, 2), 1j]",
                    v.check_array, "x", [Fraction(1, 2), 1j])
    _raises_exactly("x must be a real number or an array of real numbers, got b'1'", v.check_array, "x", b"1")


def test_check_distribution_edges():
    _raises_exactly("p must be a non-empty 1-D probability vector, got shape (0,)", v.check_distribution, "p", [])
    # numpy 2 shows the minimum as np.float64(-0.5) (repr of a numpy scalar): either form is accepted here
    with pytest.raises(ValueError, match=r"^p must have entries >= 0, got min -0\.5$"):
        v.check_distribution("p", [1.5, -0.5])
    assert v.check_distribution("p", [0.0, 1.0]).tolist() == [0.0, 1.0]          # a zero entry is allowed
    # the sum may miss 1 by atol exactly (binary fractions, so the gap is exactly 0.25), not more
    assert v.check_distribution("p", [0.5, 0.75], atol=0.25).tolist() == [0.5, 0.75]
    _raises_exactly("p must sum to 1, got sum 1.5", v.check_distribution, "p", [0.5, 1.0], atol=0.25)
    # the default tolerance is 1e-9: a gap of 5e-9 is refused, 5e-10 accepted
    _raises_exactly("p must sum to 1, got sum 1", v.check_distribution, "p", [0.5, 0.5 + 5e-9])
    v.check_distribution("p", [0.5, 0.5 + 5e-10])
    _raises_exactly("p must sum to 1, got sum 0.875", v.check_distribution, "p", [0.5, 0.375])


def test_check_rng_message_names_the_type():
    _raises_exactly("rng must be a numpy.random.Generator (use numpy.random.default_rng(seed)), got int",
                    v.check_rng, "rng", 3)


def test_distribution_pair_passes_the_tolerance_to_q_too():
    # q off by 5e-9: refused at the default 1e-9, accepted when the caller loosens atol to 1e-8
    with pytest.raises(ValueError, match="q must sum to 1"):
        v.check_distribution_pair([0.5, 0.5], [0.5, 0.5 + 5e-9])
    p, q = v.check_distribution_pair([0.5, 0.5], [0.5, 0.5 + 5e-9], atol=1e-8)
    assert q.tolist() == [0.5, 0.5 + 5e-9]


def test_a_huge_value_is_shown_as_a_float_not_its_301_digits():
    """A whole number is shown as one while it is short (3, not 3.0); 1e300 was printed as the 301
    digits of its exact binary value."""
    _raises_exactly("delta must be in [0, 1), got 1e+300", v.check_delta, "delta", 1e300)
    _raises_exactly("delta must be in [0, 1), got -1e+300", v.check_delta, "delta", -1e300)
    _raises_exactly("delta must be in [0, 1), got 1000000000000000", v.check_delta, "delta", 1e15)
    _raises_exactly("delta must be in [0, 1), got 3", v.check_delta, "delta", 3)


def test_every_parameter_capped_at_max_entries_documents_that_cap():
    """A parameter refused above ``MAX_ENTRIES`` (``check_integer(name, ..., high=MAX_ENTRIES)``) states
    the same cap in its docstring entry, spelled ``10**k``: a change of the constant that left a
    docstring behind fails here (the refusal's message prints the constant itself)."""
    import importlib
    import inspect
    import pkgutil
    import re

    import dpnotes

    k = round(math.log10(v.MAX_ENTRIES))
    assert v.MAX_ENTRIES == 10**k
    found = []
    for info in pkgutil.iter_modules(dpnotes.__path__):
        mod = importlib.import_module(f"dpnotes.{info.name}")
        for fname, fn in vars(mod).items():
            if not inspect.isfunction(fn) or fn.__module__ != mod.__name__ or fname.startswith("_"):
                continue
            for param in re.findall(r'check_integer\("(\w+)", [^()]*\bhigh=MAX_ENTRIES\b', inspect.getsource(fn)):
                # an entry starts at the (dedented) docstring's left edge; its text is indented
                entry = re.search(rf"^(?:\w+, )*{param}(?:, \w+)* :.*?(?=^\S|\Z)", inspect.getdoc(fn) or "",
                                  re.M | re.S)
                assert entry, f"{info.name}.{fname}: no docstring entry for {param}"
                assert f"10**{k}" in entry.group(0), f"{info.name}.{fname}: {param}'s entry does not state 10**{k}"
                found.append(f"{fname}.{param}")
    assert len(found) >= 15, found        # the walk reached the capped parameters (21 in 2026-11)
