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


# ---------------------------------------------------------------- expected_lower_bound
N = 10_000


def planned(p, q, n=N):
    """expected_lower_bound with every warning an error (outputs of mass 0 must not warn)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return audit.expected_lower_bound(p, q, n)


def test_expected_lower_bound_best_set_of_two_outputs_in_ratio_order():
    # kills expected_lower_bound mutmut_118 (argmax of nothing: always the first set). Ratios
    # 2.5, 3.25, 1/7: the sets in ratio order are {1}, {1, 0}, all. {1} (errs on 2000 and 3500 of
    # 10 000) reaches about log(0.65 / 0.2) = 1.18; {1, 0} (3000 and 1000 errors) reads the rare
    # output 2 from the other side, log(0.7 / 0.1) = 1.95, and wins.
    b, S = planned([0.1, 0.2, 0.7], [0.25, 0.65, 0.1])
    assert S.tolist() == [True, True, False]
    assert b == pytest.approx(by_hand(3000, N, 1000, N, 0.0, 0.95), rel=1e-6)


def test_expected_lower_bound_puts_an_output_only_x_prime_gives_first():
    # kills expected_lower_bound mutmut_81 and _84 (an output that only x' gives scored as ratio 1
    # instead of infinity). Output 1 has mass 0.1 on x' and none on x: alone it is a test that never
    # errs on x and errs on 9000 of 10 000 runs on x'; the bound log((1 - q_bar) / p_bar) with p_bar
    # = 1 - 0.025**(1/10 000) is about 5.5, far above any set of the ratios 1.4 and 0.4 (log 2.5).
    b, S = planned([0.5, 0.0, 0.5], [0.7, 0.1, 0.2])
    assert S.tolist() == [False, True, False]
    assert b == pytest.approx(by_hand(0, N, 9000, N, 0.0, 0.95), rel=1e-6) and b > 5


def test_expected_lower_bound_leaves_an_output_only_x_gives_out():
    # kills expected_lower_bound mutmut_82 (an output that only x gives scored as ratio 1 instead of
    # 0): S = everything but output 0 never errs on x' and errs on 8000 runs on x; the bound
    # log((1 - p_bar) / q_bar) is about 6.3.
    b, S = planned([0.2, 0.5, 0.3], [0.0, 0.5, 0.5])
    assert S.tolist() == [False, True, True]
    assert b == pytest.approx(by_hand(8000, N, 0, N, 0.0, 0.95), rel=1e-6) and b > 6


def test_expected_lower_bound_an_output_neither_law_gives_is_neutral_and_silent():
    # kills expected_lower_bound mutmut_62 .. _65 (log 0 and -inf - -inf warn), _76 (its ratio None:
    # TypeError) and _86 (its ratio e instead of 1: it joins S). Log-ratios 0.405, (none), 0.916,
    # -2.3: the best set {2, 0} errs on 5000 runs on x and 500 on x', log(0.5 / 0.05) = 2.3; the
    # output of mass 0 changes no count and stays out of S.
    b, S = planned([0.3, 0.0, 0.2, 0.5], [0.45, 0.0, 0.5, 0.05])
    assert S.tolist() == [True, False, True, False]
    assert b == pytest.approx(by_hand(5000, N, 500, N, 0.0, 0.95), rel=1e-6)
