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
