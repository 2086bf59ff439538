"""Tests for the gaps the mutation run of dpnotes.selection found (issue 22).

Each test names the mutants it kills (``mutmut show dpnotes.selection.<name>``). Expected values
come from closed forms integrated by sympy, never from the module's own output.
"""

import warnings

import numpy as np
import sympy as sp
from scipy import integrate

from dpnotes import selection


def laplace_win_of_a_pair_b_below_the_top(b):
    """Pr[one of two candidates at offset -b wins] against a third at offset 0, Laplace(1) noise,
    by sympy: the integral of f(w + b) F(w) F(w + b) over the three pieces between the kinks."""
    w, b, h = sp.Symbol("w", real=True), sp.Integer(b), sp.Rational(1, 2)
    pieces = [(sp.exp(w + b) * h * sp.exp(w) * h * sp.exp(w + b) * h, -sp.oo, -b),
              (sp.exp(-(w + b)) * h * sp.exp(w) * h * (1 - sp.exp(-(w + b)) * h), -b, 0),
              (sp.exp(-(w + b)) * h * (1 - sp.exp(-w) * h) * (1 - sp.exp(-(w + b)) * h), 0, sp.oo)]
    return sum(sp.integrate(g, (w, lo, hi)) for g, lo, hi in pieces)   # (1 + (6b + 7) e^b) e^(-2b) / 24


def test_kinks_a_hair_apart_far_below_a_sure_winner_are_merged_silently():
    """Utilities 0, -100 and -100 + 3e-14 (Laplace noise, epsilon 2, sensitivity 1): the offsets
    are 0, -100 and -100 + 3e-14, so two kinks of the integrand lie 3e-14 apart, about two ulps of
    100. For the sure winner the peak is the kink at 0 and the integrand falls with log-slope 1
    on both sides, so the stepping-out ends at left = -128 and right = 128: the merging threshold
    1e-12 (right - left) = 2.56e-10 merges the pair, and quad never sees the 3e-14 piece (over
    which it warns "extremely bad integrand behavior").

    Kills x__log_win_probability__mutmut_117 (threshold 1e-12 / (right - left) = 3.9e-15 < 3e-14:
    not merged, quad warns) and x__log_win_probability__mutmut_119 (1e-12 (right + left) = 0: not
    merged, quad warns). The law agrees to 1e-9 relative (the tolerance of the regression test
    of the hair-apart kinks in test_selection.py) with the closed form for a pair exactly at
    -100 (moving one by 3e-14 changes the probabilities by a relative O(3e-14)). mpmath's
    tanh-sinh quadrature is no independent route here: on the flat stretch (-100, 0) of the
    integrand it moved in the 6th digit with the breakpoints."""
    u, eps, sens = [0.0, -100.0, -100.0 + 3e-14], 2.0, 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", integrate.IntegrationWarning)
        got = selection.report_noisy_max_probabilities(u, eps, sens)
    p = laplace_win_of_a_pair_b_below_the_top(100)                # offsets eps (u - 0) / 2 = -100
    expected = [float(1 - 2 * p), float(p), float(p)]
    assert np.allclose(got, expected, rtol=1e-9, atol=0), (got, expected)
