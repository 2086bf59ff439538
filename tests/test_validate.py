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
