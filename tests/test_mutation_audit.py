"""Tests for the gaps the first mutation run of dpnotes.audit found (issue 22).

Each test names the mutants it kills (``mutmut show dpnotes.audit.<name>``). Expected values
come from the definitions, never from the module's own output: error counts of deterministic
"mechanisms" counted by hand, Clopper--Pearson bounds from ``scipy.stats.beta`` quantiles, the
exact messages of bad input (the parameter, the rule and the value).
"""

import math
import re
import threading

import numpy as np
import pytest
from scipy import stats

from dpnotes import audit


def full(message):
    """A `match` pattern for exactly this message."""
    return "^" + re.escape(message) + "$"


def by_hand(fp, n0, fn, n1, delta, confidence):
    """epsilon_lower_bound's formula from scipy's Beta quantiles (level (1 - c)/2 per rate)."""
    a = (1 - confidence) / 2
    p = 1.0 if fp == n0 else stats.beta.ppf(1 - a, fp + 1, n0 - fp)
    q = 1.0 if fn == n1 else stats.beta.ppf(1 - a, fn + 1, n1 - fn)
    terms = [0.0]
    if 1 - delta - q > 0:
        terms.append(math.log((1 - delta - q) / p))
    if 1 - delta - p > 0:
        terms.append(math.log((1 - delta - p) / q))
    return max(terms)


# ---------------------------------------------------------------- audit_test
def cycle(data, size, rng):
    """A deterministic 'mechanism': the outputs 0..9 in turn, shifted by the input."""
    return (np.arange(size) % 10 + data).astype(float)


ABOVE = audit.ThresholdTest(lambda y: y[:, 0], 6.5, "y > 6.5")


def test_audit_test_counts_by_hand_and_passes_delta_and_confidence_through():
    # kills audit_test mutmut_49 (delta dropped), _50 (confidence dropped), _52 .. _58 (a field of
    # the result replaced by None). Runs on x = 0 give 0..9, of which 7, 8, 9 are above 6.5: 300
    # false positives in 1000; runs on x' = 3 give 3..12, of which 3, 4, 5, 6 are not: 400 false
    # negatives. Asymmetric counts, delta and confidence away from their defaults.
    res = audit.audit_test(cycle, 0, 3, ABOVE, n_samples=1000, rng=np.random.default_rng(0),
                           confidence=0.8, delta=0.03)
    assert (res.false_positives, res.n_negatives, res.false_negatives, res.n_positives) == (300, 1000, 400, 1000)
    assert res.test is ABOVE and res.confidence == 0.8 and res.delta == 0.03
    assert res.n_select == 0 and res.candidates == {}
    assert res.epsilon == pytest.approx(by_hand(300, 1000, 400, 1000, 0.03, 0.8), rel=1e-9)
    # the defaults are confidence 0.95 and delta 0
    res = audit.audit_test(cycle, 0, 3, ABOVE, n_samples=1000, rng=np.random.default_rng(0))
    assert (res.confidence, res.delta) == (0.95, 0.0)
    assert res.epsilon == pytest.approx(by_hand(300, 1000, 400, 1000, 0.0, 0.95), rel=1e-9)


def test_audit_test_takes_one_run_and_refuses_a_fraction_with_the_rule():
    # kills audit_test mutmut_22 (n_samples >= 2: one run per input is allowed), _16 and _19 (no
    # lower bound in audit_test's own check: count_errors would still refuse 0, but 2.5 is named
    # with the rule ">= 1" only by audit_test's check)
    res = audit.audit_test(cycle, 0, 3, ABOVE, n_samples=1, rng=np.random.default_rng(0))
    assert (res.false_positives, res.false_negatives, res.n_negatives) == (0, 1, 1)      # outputs 0 and 3
    for bad in (2.5, 0, -4):
        with pytest.raises(ValueError, match=full(f"n_samples must be an integer >= 1, got {bad}")):
            audit.audit_test(cycle, 0, 3, ABOVE, n_samples=bad, rng=np.random.default_rng(0))


def test_audit_test_calls_the_mechanism_from_the_callers_thread_unless_told():
    # kills audit_test mutmut_3 (default n_jobs=2) and _37 (n_jobs not passed on to count_errors).
    # The counts do not depend on n_jobs, but where the mechanism runs does: by default (n_jobs=1)
    # only in the calling thread, so a mechanism that is not thread-safe is safe; with n_jobs=2 in
    # worker threads.
    def recording(seen):
        def mech(data, size, rng):
            seen.add(threading.get_ident())
            return cycle(data, size, rng)
        return mech
    main, seen = threading.get_ident(), set()
    a = audit.audit_test(recording(seen), 0, 3, ABOVE, n_samples=1000, rng=np.random.default_rng(0))
    assert seen == {main}
    seen.clear()
    b = audit.audit_test(recording(seen), 0, 3, ABOVE, n_samples=1000, rng=np.random.default_rng(0), n_jobs=2)
    # the width probe runs in the caller's thread; the counted runs in the pool's
    assert main in seen and len(seen) >= 2
    assert (a.false_positives, a.false_negatives) == (b.false_positives, b.false_negatives) == (300, 400)
