"""Tests for the gaps the first mutation run of dpnotes.audit found (issue 22).

Each test names the mutants it kills (``mutmut show dpnotes.audit.<name>``). Expected values
come from the definitions, never from the module's own output: error counts of deterministic
"mechanisms" counted by hand, Clopper--Pearson bounds from mpmath (``test_audit.by_hand``), the
exact messages of bad input (the parameter, the rule and the value).
"""

import math
import re
import threading
import warnings

import mpmath
import numpy as np
import pytest
from scipy import stats

from cpu_limit import cpu_seconds
from dpnotes import audit
from test_audit import by_hand   # the bound written out from mpmath Clopper-Pearson bounds
from test_audit import mp_one_run_complement, mp_one_run_epsilon   # the one-run bound at 50 digits
from test_audit_rows import _assert_row_by_row   # a row's verdict is its own, in any batch


def full(message):
    """A `match` pattern for exactly this message."""
    return "^" + re.escape(message) + "$"


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
    assert res.epsilon == pytest.approx(by_hand(300, 1000, 400, 1000, 0.03, 0.8), rel=1e-9, abs=0)
    # the defaults are confidence 0.95 and delta 0
    res = audit.audit_test(cycle, 0, 3, ABOVE, n_samples=1000, rng=np.random.default_rng(0))
    assert (res.confidence, res.delta) == (0.95, 0.0)
    assert res.epsilon == pytest.approx(by_hand(300, 1000, 400, 1000, 0.0, 0.95), rel=1e-9, abs=0)


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
    # kills audit_test mutmut_37 (n_jobs not passed on to count_errors); mutmut_3 (default n_jobs=2)
    # survived it on Linux, where the workers are forked processes whose calls this set never
    # sees: test_audit_test_runs_the_mechanism_in_this_process_unless_told kills it.
    # The counts do not depend on n_jobs, but where the mechanism runs does: by default (n_jobs=1)
    # only in the calling thread, so a mechanism that is not thread-safe is safe; with n_jobs=2 in
    # worker threads (here forced: on Linux they would be processes, whose calls this set
    # would not see; tests/test_audit.py checks those).
    def recording(seen):
        def mech(data, size, rng):
            seen.add(threading.get_ident())
            return cycle(data, size, rng)
        return mech
    main, seen = threading.get_ident(), set()
    a = audit.audit_test(recording(seen), 0, 3, ABOVE, n_samples=1000, rng=np.random.default_rng(0))
    assert seen == {main}
    seen.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(audit, "_FORK", False)
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
    assert b == pytest.approx(by_hand(3000, N, 1000, N, 0.0, 0.95), rel=1e-6, abs=0)


def test_expected_lower_bound_puts_an_output_only_x_prime_gives_first():
    # kills expected_lower_bound mutmut_81 and _84 (an output that only x' gives scored as ratio 1
    # instead of infinity). Output 1 has mass 0.1 on x' and none on x: alone it is a test that never
    # errs on x and errs on 9000 of 10 000 runs on x'; the bound log((1 - q_bar) / p_bar) with p_bar
    # = 1 - 0.025**(1/10 000) is about 5.5, far above any set of the ratios 1.4 and 0.4 (log 2.5).
    b, S = planned([0.5, 0.0, 0.5], [0.7, 0.1, 0.2])
    assert S.tolist() == [False, True, False]
    assert b == pytest.approx(by_hand(0, N, 9000, N, 0.0, 0.95), rel=1e-6, abs=0) and b > 5


def test_expected_lower_bound_leaves_an_output_only_x_gives_out():
    # kills expected_lower_bound mutmut_82 (an output that only x gives scored as ratio 1 instead of
    # 0): S = everything but output 0 never errs on x' and errs on 8000 runs on x; the bound
    # log((1 - p_bar) / q_bar) is about 6.3.
    b, S = planned([0.2, 0.5, 0.3], [0.0, 0.5, 0.5])
    assert S.tolist() == [False, True, True]
    assert b == pytest.approx(by_hand(8000, N, 0, N, 0.0, 0.95), rel=1e-6, abs=0) and b > 6


def test_expected_lower_bound_an_output_neither_law_gives_is_neutral_and_silent():
    # kills expected_lower_bound mutmut_62 .. _65 (log 0 and -inf - -inf warn), _76 (its ratio None:
    # TypeError) and _86 (its ratio e instead of 1: it joins S). Log-ratios 0.405, (none), 0.916,
    # -2.3: the best set {2, 0} errs on 5000 runs on x and 500 on x', log(0.5 / 0.05) = 2.3; the
    # output of mass 0 changes no count and stays out of S.
    b, S = planned([0.3, 0.0, 0.2, 0.5], [0.45, 0.0, 0.5, 0.05])
    assert S.tolist() == [True, False, True, False]
    assert b == pytest.approx(by_hand(5000, N, 500, N, 0.0, 0.95), rel=1e-6, abs=0)


# ---------------------------------------------------------------- gdp_epsilon_lower_bound
@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5, -0.2])
def test_gdp_epsilon_refuses_delta_outside_the_open_interval_even_without_evidence(delta):
    # kills gdp_epsilon_lower_bound mutmut_12 .. _14 and _18 .. _20 (delta 0, 1 or above 1 let
    # through). With counts no better than a coin mu_hat = 0 and the function returns 0 without
    # calling gaussian_epsilon, so its own check of delta is the only one: the open interval (0, 1).
    with pytest.raises(ValueError, match=full(f"delta must be in (0, 1), got {delta:g}")):
        audit.gdp_epsilon_lower_bound(500, 1000, 600, 1000, delta)
    assert audit.gdp_epsilon_lower_bound(500, 1000, 600, 1000, 0.3) == 0.0


# ---------------------------------------------------------------- nested_tests_exceedance
def enumerate_exceedance(cdf_x, cdf_xp, n0, n1, rule):
    """Pr[some threshold's counts satisfy rule], by putting every run into a cell one by one
    (cell i: between thresholds i - 1 and i; cell k: above the last), every assignment weighted."""
    import itertools
    k = len(cdf_x)
    px, pxp = np.diff([0.0, *cdf_x, 1.0]), np.diff([0.0, *cdf_xp, 1.0])
    total = 0.0
    for cx in itertools.product(range(k + 1), repeat=n0):
        wx = math.prod(px[c] for c in cx)
        for cxp in itertools.product(range(k + 1), repeat=n1):
            w = wx * math.prod(pxp[c] for c in cxp)
            if w and any(rule(np.array([[n0 - sum(c <= j for c in cx)]]), np.array([[sum(c <= j for c in cxp)]]))[0, 0]
                         for j in range(k)):
                total += w
    return total


def silent_exceedance(*args):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return audit.nested_tests_exceedance(*args)


def test_exceedance_takes_cdf_values_of_zero():
    # kills nested_tests_exceedance mutmut_20 (a CDF value 0 refused: [0, 1] is the documented range).
    # cdf_x = 0 at the threshold: every run on x lies above it, FP = n0 surely; FN ~ Bin(4, 0.4).
    rule = lambda fp, fn: (fn <= 1) & (fp >= 3)
    assert silent_exceedance([0.0], [0.4], 3, 4, rule) == pytest.approx(stats.binom.cdf(1, 4, 0.4), rel=1e-12, abs=0)


def test_exceedance_with_a_cdf_that_reaches_one_early_is_exact_and_silent():
    # kills nested_tests_exceedance mutmut_92, _95 and _96 (after a CDF reaches 1 the conditional
    # mass of the next cell is 0/0: the code's guard must take it as 0 without a warning), checked
    # against an enumeration of every assignment of runs to cells; the rule is asymmetric
    cdf_x, cdf_xp = [0.3, 1.0, 1.0], [0.1, 0.5, 1.0]
    rule = lambda fp, fn: ((fp == 0) | (fp >= 2)) & (fn == 0)
    got = silent_exceedance(cdf_x, cdf_xp, 3, 2, rule)
    assert got == pytest.approx(enumerate_exceedance(cdf_x, cdf_xp, 3, 2, rule), abs=1e-13)
    assert 0.01 < got < 0.99


def test_exceedance_refuses_bad_input_with_the_rule_and_the_value():
    # kills nested_tests_exceedance mutmut_13 (a 2-D or empty CDF let through), _34 (the lengths in
    # the message), _40 and _44 (no upper limit 2000 on n_negatives), _85 .. _88 (the message of a
    # bad point_exceeds)
    ok = lambda fp, fn: fp + fn < 3
    args = dict(cdf_x=[0.5], cdf_x_prime=[0.5], n_negatives=5, n_positives=5, point_exceeds=ok)
    cases = [
        (dict(cdf_x=[[0.5]]), "cdf_x must be a non-empty 1-D non-decreasing array in [0, 1], got [[0.5]]"),
        (dict(cdf_x_prime=[]), "cdf_x_prime must be a non-empty 1-D non-decreasing array in [0, 1], got []"),
        (dict(cdf_x=[0.1, 0.2]), "cdf_x and cdf_x_prime must have the same length, got 2 and 1"),
        (dict(n_negatives=2001), "n_negatives must be an integer in [1, 2000], got 2001"),
        (dict(n_positives=2001), "n_positives must be an integer in [1, 2000], got 2001"),
        (dict(n_negatives=0), "n_negatives must be an integer in [1, 2000], got 0"),
        (dict(n_positives=3, point_exceeds=lambda fp, fn: fp + fn),
         "point_exceeds must return a bool array of shape (6, 4), got int64 of shape (6, 4)"),
        (dict(point_exceeds=lambda fp, fn: fp > 1), "point_exceeds must return a bool array of shape (6, 6), "
                                                    "got bool of shape (6, 1)"),
    ]
    for change, message in cases:
        with pytest.raises(ValueError, match=full(message)):
            audit.nested_tests_exceedance(**dict(args, **change))
    # the largest allowed run counts are accepted
    assert 0.0 <= audit.nested_tests_exceedance([0.5], [0.5], 2000, 1, ok) <= 1.0


# ---------------------------------------------------------------- gdp_mu_from_errors
def test_mu_from_errors_names_the_bad_rate_and_its_value():
    # kills gdp_mu_from_errors mutmut_15, _17 (the rate's name), _26 .. _30 (the value shown is the
    # bad rate's, not the other one's) and _50 (the message of 0 and 1 together)
    cases = [((1.5, 0.2), "alpha must be in [0, 1], got 1.5"),
             ((0.2, -0.25), "beta must be in [0, 1], got -0.25"),
             (([0.2, 1.5], 0.3), "alpha must be in [0, 1], got [0.2, 1.5]"),
             ((0.3, [0.5, 2.0]), "beta must be in [0, 1], got [0.5, 2.0]"),
             (([0.0, 0.5], [1.0, 0.5]), "alpha and beta must not be 0 and 1 together: -inf + inf has no value")]
    for args, message in cases:
        with pytest.raises(ValueError, match=full(message)):
            audit.gdp_mu_from_errors(*args)


def test_mu_from_errors_of_two_numbers_is_a_float():
    # kills gdp_mu_from_errors mutmut_58 (a 0-d array instead of a float). mu through (0.1, 0.3):
    # Phi^{-1}(0.9) + Phi^{-1}(0.7) from scipy.stats.norm
    mu = audit.gdp_mu_from_errors(0.1, 0.3)
    assert type(mu) is float
    assert mu == pytest.approx(stats.norm.isf(0.1) + stats.norm.isf(0.3), rel=1e-12, abs=0)
    assert audit.gdp_mu_from_errors([0.1], 0.3).shape == (1,)


# ---------------------------------------------------------------- one_run_audit
def test_one_run_audit_checks_its_counts_before_it_runs():
    # kills one_run_audit mutmut_6, _9 (n_canaries without its lower bound: 0 was reported as a bad
    # n_positive), _16, _20, _28 (no lower bound 0 on the guesses: a fraction is named with the rule
    # "<= m" only), _17, _21, _29 (no upper bound: too many guesses reached the run, which can be a
    # whole training, before one_run_guesses refused them)
    calls = []

    def run(included, rng):
        calls.append(included.size)
        return included + rng.standard_normal(included.size)

    cases = [(dict(n_canaries=0, n_positive=0, n_negative=0), "n_canaries must be an integer in [1, 100000000], got 0"),
             (dict(n_positive=2.5), "n_positive must be an integer in [0, 10], got 2.5"),
             (dict(n_positive=11), "n_positive must be an integer in [0, 10], got 11"),
             (dict(n_negative=2.5), "n_negative must be an integer in [0, 7], got 2.5"),
             (dict(n_negative=8), "n_negative must be an integer in [0, 7], got 8")]
    for change, message in cases:
        kwargs = dict(dict(n_canaries=10, n_positive=3, n_negative=2), **change)
        with pytest.raises(ValueError, match=full(message)):
            audit.one_run_audit(run, rng=np.random.default_rng(0), **kwargs)
    assert calls == []


def test_one_run_audit_with_a_single_canary():
    # kills one_run_audit mutmut_12 (n_canaries >= 2). One canary, one positive guess: the canary's
    # score is its inclusion (1 or 0) plus nothing, so the guess is right exactly when it is included.
    for seed in range(6):
        rng = np.random.default_rng(seed)
        included = bool(np.random.default_rng(seed).random(1)[0] < 0.5)     # the draw one_run_audit makes
        res = audit.one_run_audit(lambda inc, rng: inc.astype(float), 1, n_positive=1, n_negative=0, rng=rng)
        assert (res.n_canaries, res.n_guesses, res.n_correct) == (1, 1, int(included))


def test_one_run_audit_passes_delta_and_confidence_to_the_bound():
    # kills one_run_audit mutmut_103 (delta dropped) and _104 (confidence dropped). Scores that are
    # the inclusion itself: all 100 guesses right, and at delta = 0 the bound is the epsilon with
    # (e^eps / (1 + e^eps))**100 = 1 - confidence, log(c / (1 - c)) for c = 0.2**(1/100).
    perfect = lambda inc, rng: inc.astype(float)
    res = audit.one_run_audit(perfect, 1000, n_positive=50, n_negative=50, rng=np.random.default_rng(1),
                              confidence=0.8)
    c = 0.2 ** (1 / 100)
    assert (res.n_correct, res.confidence, res.delta) == (100, 0.8, 0.0)
    assert res.epsilon == pytest.approx(math.log(c / (1 - c)), rel=1e-9)
    # delta > 0 lowers it (the p-value of every epsilon grows): by the amount one_run_epsilon gives
    res_d = audit.one_run_audit(perfect, 1000, n_positive=50, n_negative=50, rng=np.random.default_rng(1),
                                confidence=0.8, delta=1e-3)
    assert res_d.delta == 1e-3 and res_d.epsilon < res.epsilon - 0.1
    assert res_d.epsilon == audit.one_run_epsilon(1000, 100, 100, delta=1e-3, confidence=0.8)


def test_one_run_audit_takes_scores_of_any_real_dtype():
    # kills one_run_audit mutmut_60 and _62 (the scores not converted to float: a run that returns
    # its verdicts as bools, or as a list of ints, was refused by one_run_guesses). Verdicts that are
    # the inclusion itself: with at least 5 canaries of each kind every one of the 10 guesses is right.
    for score in (lambda inc, rng: inc.copy(), lambda inc, rng: [int(v) for v in inc]):
        res = audit.one_run_audit(score, 40, n_positive=5, n_negative=5, rng=np.random.default_rng(2))
        assert (res.n_guesses, res.n_correct) == (10, 10)


# ---------------------------------------------------------------- one_run_guesses
def test_one_run_guesses_names_its_counts_with_their_range():
    # kills one_run_guesses mutmut_17, _18, _21, _22 (n_positive without a lower or an upper bound:
    # the rule in the message, or a wrong n_positive blamed on n_negative), _29 and _33 (the same
    # for n_negative)
    scores = [0.3, 2.0, -1.0, 0.1]
    cases = [((2.5, 0), "n_positive must be an integer in [0, 4], got 2.5"),
             ((-1, 0), "n_positive must be an integer in [0, 4], got -1"),
             ((5, 0), "n_positive must be an integer in [0, 4], got 5"),
             ((1, 2.5), "n_negative must be an integer in [0, 3], got 2.5"),
             ((1, -1), "n_negative must be an integer in [0, 3], got -1"),
             ((1, 4), "n_negative must be an integer in [0, 3], got 4")]
    for (kp, kn), message in cases:
        with pytest.raises(ValueError, match=full(message)):
            audit.one_run_guesses(scores, kp, kn)


def test_one_run_guesses_break_ties_by_position_in_long_arrays():
    # kills one_run_guesses mutmut_41 and _43 (numpy's default sort, not stable: on 200 scores of
    # three values it reorders ties). The documented rule, ranked by (score, position) with Python's
    # own stable sort: -1 for the kn first, +1 for the kp last.
    s = np.random.default_rng(0).integers(0, 3, 200).astype(float)
    kp, kn = 37, 51
    ranked = sorted(range(s.size), key=lambda i: (s[i], i))
    expect = np.zeros(s.size, dtype=int)
    expect[ranked[:kn]] = -1
    expect[ranked[s.size - kp:]] = 1
    np.testing.assert_array_equal(audit.one_run_guesses(s, kp, kn), expect)


# ---------------------------------------------------------------- one_run_epsilon, one_run_p_value
COUNT_CASES = [((0, 0, 0), "n_canaries must be an integer >= 1, got 0"),
               ((-3, 0, 0), "n_canaries must be an integer >= 1, got -3"),
               ((2.5, 0, 0), "n_canaries must be an integer >= 1, got 2.5"),
               ((10, -1, 0), "n_guesses must be an integer in [0, 10], got -1"),
               ((10, 2.5, 0), "n_guesses must be an integer in [0, 10], got 2.5"),
               ((10, 11, 3), "n_guesses must be an integer in [0, 10], got 11"),
               ((10, 5, -1), "n_correct must be an integer in [0, 5], got -1"),
               ((10, 5, 1.5), "n_correct must be an integer in [0, 5], got 1.5"),
               ((10, 5, 6), "n_correct must be an integer in [0, 5], got 6")]


@pytest.mark.parametrize("counts,message", COUNT_CASES)
def test_one_run_bounds_name_their_counts_with_the_range(counts, message):
    # kills one_run_epsilon mutmut_6, _9 (n_canaries without its lower bound), _16, _17, _20 (n_guesses
    # without a bound: the rule in the message, or too many guesses let through), and the same
    # mutants of one_run_p_value
    with pytest.raises(ValueError, match=full(message)):
        audit.one_run_epsilon(*counts)
    with pytest.raises(ValueError, match=full(message)):
        audit.one_run_p_value(*counts, 1.0)


def test_one_run_p_value_names_epsilon_and_delta():
    for kwargs, message in ((dict(epsilon=-0.5), "epsilon must be >= 0, got -0.5"),
                            (dict(epsilon=math.inf), "epsilon must be finite, got inf"),
                            (dict(epsilon=1.0, delta=1.0), "delta must be in [0, 1), got 1")):
        with pytest.raises(ValueError, match=full(message)):
            audit.one_run_p_value(10, 5, 3, **kwargs)


# ---------------------------------------------------------------- simultaneous_error_bounds
@pytest.mark.parametrize("kwargs,message", [
    (dict(n_negatives=0), "n_negatives must be an integer >= 1, got 0"),
    (dict(n_negatives=2.5), "n_negatives must be an integer >= 1, got 2.5"),
    (dict(n_positives=0), "n_positives must be an integer >= 1, got 0"),
    (dict(n_positives=-7), "n_positives must be an integer >= 1, got -7"),
])
def test_box_names_a_number_of_runs_below_one(kwargs, message):
    # kills _box mutmut_4, _7, _14, _17 (no lower bound 1 on the runs: 0 runs was refused later,
    # as a bad count or by clopper_pearson_upper, without naming the parameter's rule)
    args = dict(dict(false_positives=0, n_negatives=10, false_negatives=0, n_positives=10), **kwargs)
    with pytest.raises(ValueError, match=full(message)):
        audit.simultaneous_error_bounds(**args)


# ---------------------------------------------------------------- every other message, exactly
def _mech(out):
    return lambda d, size, rng: out(d, size)


MESSAGES = [
    # the counts of epsilon_lower_bound (_count) and its run counts
    (lambda: audit.epsilon_lower_bound(-1, 10, 0, 10), "false_positives must be a non-negative integer, got -1"),
    (lambda: audit.epsilon_lower_bound(2.5, 10, 0, 10), "false_positives must be a non-negative integer, got 2.5"),
    (lambda: audit.epsilon_lower_bound(True, 10, 0, 10), "false_positives must be a non-negative integer, got True"),
    (lambda: audit.epsilon_lower_bound(0, 10, "3", 10), "false_negatives must be a non-negative integer, got '3'"),
    (lambda: audit.epsilon_lower_bound(0, 10, math.inf, 10), "false_negatives must be a non-negative integer, got inf"),
    (lambda: audit.epsilon_lower_bound(11, 10, 0, 10), "false_positives must be <= n_negatives = 10, got 11"),
    (lambda: audit.epsilon_lower_bound(0, 10, 12.0, 10), "false_negatives must be <= n_positives = 10, got 12"),
    (lambda: audit.epsilon_lower_bound(0, 0, 0, 10), "n_negatives must be >= 1, got 0"),
    (lambda: audit.epsilon_lower_bound(0, 10, 0, 0.0), "n_positives must be >= 1, got 0"),
    (lambda: audit.epsilon_lower_bound(0, 10.5, 0, 10), "n_negatives must be a non-negative integer, got 10.5"),
    (lambda: audit.epsilon_lower_bound(0, 10, 0, -5), "n_positives must be a non-negative integer, got -5"),
    (lambda: audit.epsilon_lower_bound(1, 10, 1, 10, confidence=1.0), "confidence must be in (0, 1), got 1"),
    (lambda: audit.epsilon_lower_bound(1, 10, 1, 10, delta=1.0), "delta must be in [0, 1), got 1"),
    # clopper_pearson_upper and _real_array
    (lambda: audit.clopper_pearson_upper("a", 10, 0.05), "k must be a number or an array of numbers, got 'a'"),
    (lambda: audit.clopper_pearson_upper([[1, 2], [3]], 10, 0.05),
     "k must be a number or an array of numbers, got [[1, 2], [3]]"),
    (lambda: audit.clopper_pearson_upper(1, [10, None], 0.05), "n must be a number or an array of numbers, got [10, None]"),
    (lambda: audit.clopper_pearson_upper([1, math.inf], 10, 0.05), "k must be finite, got [1, inf]"),
    (lambda: audit.clopper_pearson_upper(1, math.nan, 0.05), "n must be finite, got nan"),
    (lambda: audit.one_run_guesses([math.nan, 1.0], 0, 0), "scores must be a number (not nan), got [nan, 1.0]"),
    (lambda: audit.one_run_guesses([[1.0]], 0, 0), "scores must be 1-D, got shape (1, 1)"),
    (lambda: audit.clopper_pearson_upper([1, 2, 3], [10, 10], 0.05), "k and n must have shapes that broadcast, got (3,) and (2,)"),
    (lambda: audit.clopper_pearson_upper(11, 10, 0.05), "k and n must satisfy 0 <= k <= n and n >= 1, got k=11, n=10"),
    (lambda: audit.clopper_pearson_upper(0, [5, 0.5], 0.05),
     "k and n must satisfy 0 <= k <= n and n >= 1, got k=0, n=[5, 0.5]"),
    (lambda: audit.clopper_pearson_upper(1, 10, 0.0), "alpha must be in (0, 1), got 0"),
    # expected_lower_bound
    (lambda: audit.expected_lower_bound([1.0], [0.5, 0.5], 10), "p and p_prime must be 1-D of the same length, got shapes (1,) and (2,)"),
    (lambda: audit.expected_lower_bound([[1.0]], [[1.0]], 10),
     "p and p_prime must be 1-D of the same length, got shapes (1, 1) and (1, 1)"),
    (lambda: audit.expected_lower_bound([], [], 10), "p and p_prime must be 1-D of the same length, got shapes (0,) and (0,)"),
    (lambda: audit.expected_lower_bound([0.5, 0.6], [0.5, 0.5], 10),
     "p must be a probability vector (entries >= 0 summing to 1), got [0.5, 0.6]"),
    (lambda: audit.expected_lower_bound([0.5, 0.5], [1.5, -0.5], 10),
     "p_prime must be a probability vector (entries >= 0 summing to 1), got [1.5, -0.5]"),
    (lambda: audit.expected_lower_bound([1.0], [1.0], 0), "n_samples must be an integer >= 1, got 0"),
    (lambda: audit.expected_lower_bound([1.0], [1.0], 5, confidence=0.0), "confidence must be in (0, 1), got 0"),
    (lambda: audit.expected_lower_bound([1.0], [1.0], 5, delta=-0.5), "delta must be in [0, 1), got -0.5"),
    # ThresholdTest
    (lambda: audit.ThresholdTest(3.0, 0.5, "x"), "score must be callable, got 3.0"),
    (lambda: audit.ThresholdTest(abs, math.nan, "x"), "threshold must be a real number, got nan"),
    (lambda: audit.ThresholdTest(abs, 0.5, "x", below="yes"), "below must be True or False, got 'yes'"),
    # what a mechanism, a test or a run returns
    (lambda: audit.audit_pair(_mech(lambda d, s: np.zeros(s + 1)), 0, 1, n_samples=1000, rng=np.random.default_rng(0)),
     "mechanism must return an array of shape (2,) or (2, d), got shape (3,)"),
    (lambda: audit.audit_pair(_mech(lambda d, s: np.zeros((s, 1, 1))), 0, 1, n_samples=1000, rng=np.random.default_rng(0)),
     "mechanism must return an array of shape (2,) or (2, d), got shape (2, 1, 1)"),
    (lambda: audit.audit_pair(_mech(lambda d, s: np.full(s, "a")), 0, 1, n_samples=1000, rng=np.random.default_rng(0)),
     "mechanism must return numbers (bool, int or float), got dtype <U1"),
    (lambda: audit.audit_pair(_mech(lambda d, s: np.zeros((s, 1 + d))), 0, 1, n_samples=1000, rng=np.random.default_rng(0)),
     "mechanism must return outputs of the same width on both inputs and in every call, got 1, 1 and 2"),
    (lambda: audit.audit_pair(_mech(lambda d, s: np.zeros(s)), 0, 1, n_samples=1000, rng=np.random.default_rng(0),
                              float_bits=1), "float_bits must be True or False, got 1"),
    (lambda: audit.audit_pair(_mech(lambda d, s: np.zeros(s)), 0, 1, n_samples=1000, rng=np.random.default_rng(0),
                              n_select=1000), "n_select must be an integer in [2, 999], got 1000"),
    (lambda: audit.audit_pair(_mech(lambda d, s: np.zeros(s)), 0, 1, n_samples=99, rng=np.random.default_rng(0)),
     "n_samples must be an integer in [100, 1000000000], got 99"),
    (lambda: audit.count_errors(_mech(lambda d, s: np.zeros((s, 1 if s == 1 else 2))), 0, 1,
                                audit.ThresholdTest(lambda y: y[:, 0], 0.5, "t"), n_samples=10, rng=np.random.default_rng(0)),
     "mechanism must return outputs of the same width in every call, got 1 and 2"),
    (lambda: audit.count_errors(_mech(lambda d, s: np.zeros(s)), 0, 1, audit.ThresholdTest(lambda y: y.ravel()[:1], 0.5, "t"),
                                n_samples=10, rng=np.random.default_rng(0)),
     "test must return one bool per output, shape (10,), got bool of shape (1,)"),
    (lambda: audit.count_errors(_mech(lambda d, s: np.zeros(s)), 0, 1, lambda y: y[:, 0], n_samples=10,
                                rng=np.random.default_rng(0)),
     "test must return one bool per output, shape (10,), got float64 of shape (10,)"),
    (lambda: audit.count_errors(_mech(lambda d, s: np.zeros(s)), 0, 1, abs, n_samples=10, rng=np.random.default_rng(0),
                                n_jobs=0), "n_jobs must be an integer >= 1, got 0"),
    # audit_pair refuses n_jobs < 1 by name (its own check first; count_errors', after the selection runs, says the same)
    (lambda: audit.audit_pair(_mech(lambda d, s: np.zeros(s)), 0, 1, n_samples=1000, rng=np.random.default_rng(0),
                              n_jobs=0), "n_jobs must be an integer >= 1, got 0"),
    (lambda: audit.audit_pair(_mech(lambda d, s: np.zeros(s)), 0, 1, n_samples=1000, rng=np.random.default_rng(0),
                              n_jobs=-2), "n_jobs must be an integer >= 1, got -2"),
    (lambda: audit.one_run_audit(lambda inc, rng: np.where(inc, np.nan, 0.0), 10, n_positive=1, n_negative=1,
                                 rng=np.random.default_rng(0)), "run must return scores that are not nan, got 3 nan"),
    (lambda: audit.one_run_audit(lambda inc, rng: np.zeros(3), 10, n_positive=1, n_negative=1, rng=np.random.default_rng(0)),
     "run must return one score per canary, shape (10,), got (3,)"),
    # the box of several tests
    (lambda: audit.gdp_mu_lower_bound([1, 2], 10, [1], 10),
     "false_positives and false_negatives must have the same length (one pair per test), got 2 and 1"),
    (lambda: audit.simultaneous_error_bounds([], 10, [], 10),
     "false_positives must be a count or a non-empty 1-D array of counts, got shape (0,)"),
    (lambda: audit.simultaneous_error_bounds(1, 10, [[1]], 10),
     "false_negatives must be a count or a non-empty 1-D array of counts, got shape (1, 1)"),
    (lambda: audit.tradeoff_epsilon_lower_bound(1, 10, 1, 10, delta=1.0), "delta must be in [0, 1), got 1.0"),
    (lambda: audit.tradeoff_epsilon_lower_bound(1, 10, 1, 10, delta=[0.1, -0.5]), "delta must be in [0, 1), got [0.1, -0.5]"),
    # a test called on outputs of no accepted shape (no run count to state: the resumed run of 2026-11-28)
    (lambda: ABOVE(np.zeros((2, 2, 2))), "mechanism must return an array of shape (size,) or (size, d), got shape (2, 2, 2)"),
]


@pytest.mark.parametrize("call,message", MESSAGES, ids=[m for _, m in MESSAGES])
def test_bad_input_message_exactly(call, message):
    # kills the mutants of the messages of bad input (a changed word, a dropped value) and of
    # the checks behind them (a bound dropped lets the value reach a later check with another message)
    with pytest.raises(ValueError, match=full(message)):
        call()


def test_a_count_out_of_its_range_in_an_array_is_named_with_the_range():
    # the value is printed as a number, not numpy's repr (np.float64(11.0) under numpy 2)
    for fp, fn, name, total, got in (([1, 11], [0, 0], "false_positives", "n_negatives", "11.0"),
                                     ([1, 2], [0, 2.5], "false_negatives", "n_positives", "2.5")):
        with pytest.raises(ValueError, match="^" + re.escape(f"{name} must hold integers in [0, {total}] = [0, 10], "
                                                            f"got {got}") + "$"):
            audit.simultaneous_error_bounds(fp, 10, fn, 10)


# ---------------------------------------------------------------- the scores' tables
def test_look_up_reads_every_cell_the_first_included_and_zero_elsewhere():
    # kills _look_up mutmut_12 (positions clipped to 1: the key of the first cell read as unseen)
    cells, values = np.array([2.0, 5.0, 9.0]), np.array([0.7, -1.2, 0.4])
    keys = np.array([9.0, 2.0, 5.0, 3.0, 1.0, 10.0, 2.0])
    np.testing.assert_array_equal(audit._look_up(cells, values, keys), [0.4, 0.7, -1.2, 0.0, 0.0, 0.0, 0.7])


def test_keys_of_columns_with_different_ranges_and_a_value_outside():
    # kills _Discretizer._in_range mutmut_10 (a batch called in range when only its minima or only its
    # maxima are: the weighted sum then keys a value outside the fitted range as another, fitted row).
    # Two columns of small integers 100 apart (too far for one shared range): {0, 1} and {100, 101}.
    fit = np.array([[0, 100], [1, 101], [0, 101], [1, 100]] * 50, dtype=float)
    disc = audit._Discretizer(fit, 8)
    assert disc.fast == [0, 1] and not disc.shared_range and disc.batch_sum
    # one batch whose minima are in range (a value above it), one whose maxima are (a value below it)
    for rows in (np.array([[5, 100], [0, 101], [1, 100], [1, 101]], dtype=float),
                 np.array([[0, 99], [1, 100], [0, 101], [1, 101]], dtype=float)):
        # the reference: each column's own code of each value, in mixed radix (no fast path)
        expect = sum(c.codes(rows[:, j]) * disc.radix[j] for j, c in enumerate(disc.columns))
        np.testing.assert_array_equal(disc.keys(rows), expect)
        # and the fitted rows have keys the row outside the range does not share
        assert disc.keys(rows[:1])[0] not in set(disc.keys(rows[1:]))


def test_adjacent_differences_of_infinities_and_huge_values_are_silent():
    # kills _adjacent_differences mutmut_3 .. _6 (inf - inf and an overflowing difference warn):
    # outputs with -inf symbols or values near 1e308 are legitimate, their differences nan and -inf
    import warnings
    rows = np.array([[-np.inf, -np.inf, 2.0], [1e308, -1e308, -1e308]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = audit._adjacent_differences(rows)
    np.testing.assert_array_equal(got, [[-np.inf, np.nan, np.inf], [1e308, -np.inf, 0.0]])


def test_pattern_score_groups_discrete_and_continuous_columns():
    # kills _PatternScore.__init__ mutmut_19 (a column of a few spread-out values, not consecutive
    # integers, counted as continuous), _31 (the "split" groups both the discrete ones) and _37, _38
    # (groups="discrete" adding the bins of the continuous values). Column 0 takes the values 0 and 5
    # only (no continuous values: discrete, though not a run of consecutive integers); column 1 is
    # Gaussian.
    rng = np.random.default_rng(7)
    def draw(p5, shift, n):
        return np.column_stack([np.where(rng.random(n) < p5, 5.0, 0.0), rng.normal(shift, 1.0, n)])
    fx, fxp = draw(0.3, 0.0, 4000), draw(0.6, 1.0, 4000)
    joint = audit._PatternScore(fx, fxp, 2)
    assert joint.n_discrete == 1
    assert audit._PatternScore(fx, fxp, 2, groups="split").groups == [[0], [1]]
    only = audit._PatternScore(fx, fxp, 2, groups="discrete")
    assert only.groups == [[0]]
    # the discrete pattern alone: the continuous value changes nothing
    a, b = only(np.array([[5.0, -3.0], [5.0, 3.0]]))
    assert a == b and a == pytest.approx(math.log(0.6 / 0.3), abs=0.1)
    a, b = joint(np.array([[5.0, -3.0], [5.0, 3.0]]))
    assert b - a > 0.5                     # the joint score reads the value's bin as well


def test_pattern_score_declines_patterns_whose_keys_would_pass_2_53():
    # kills _PatternScore.__init__ mutmut_40 (ok whenever there is a group), _47 (limit 2 * 53) and _48
    # (limit 3**53). Columns of the integers 0..5 have radix 8 (six values, a spare code, one above):
    # three columns give 512 patterns, twenty give 8**20 = 2**60, beyond exact float64 integers.
    rng = np.random.default_rng(8)
    for d, ok in ((3, True), (20, False)):
        fx, fxp = rng.integers(0, 6, (3000, d)), rng.integers(0, 6, (3000, d))
        assert audit._PatternScore(fx, fxp, 2).ok is ok


def test_pattern_score_discrete_alone_reads_a_discrete_column_after_a_continuous_one():
    # kills _PatternScore.__call__ mutmut_16 (break instead of continue at a column in no group: with
    # groups="discrete" the continuous columns are in none, and every discrete column after the first
    # continuous one was dropped from the key). Column 0 is Gaussian, column 1 takes 0 and 5 only. The
    # expected score of a row is the smoothed log-ratio of its column-1 value among the fitted runs,
    # counted here: log((c' + 1/2) / (n' + 1/2)) - log((c + 1/2) / (n + 1/2)).
    rng = np.random.default_rng(11)
    def draw(p5, shift, n):
        return np.column_stack([rng.normal(shift, 1.0, n), np.where(rng.random(n) < p5, 5.0, 0.0)])
    fx, fxp = draw(0.3, 0.0, 3000), draw(0.7, 1.0, 2000)
    only = audit._PatternScore(fx, fxp, 2, groups="discrete")
    assert only.groups == [[1]]

    def smoothed(v):
        cx, cxp = np.sum(fx[:, 1] == v), np.sum(fxp[:, 1] == v)
        return math.log((cxp + 0.5) / (fxp.shape[0] + 0.5)) - math.log((cx + 0.5) / (fx.shape[0] + 0.5))
    rows = np.array([[-3.0, 5.0], [3.0, 5.0], [0.2, 0.0], [-1.0, 0.0]])
    got = only(rows)
    np.testing.assert_allclose(got, [smoothed(5.0)] * 2 + [smoothed(0.0)] * 2, rtol=1e-12)
    assert got[0] > 0.5 > 0 > -0.5 > got[2]    # log(0.7 / 0.3) = 0.85 and log(0.3 / 0.7) in law


def test_pattern_score_of_discrete_columns_is_the_joint_patterns_log_ratio():
    # kills _PatternScore.__call__ mutmut_24 (a group's key set to its last column's part instead of
    # summed over its columns) and __init__ mutmut_108 (a column's key part divided by its radix),
    # _109 and _110 (the radix of the third column that of the second alone, or divided by it, not
    # their product: patterns collide) and _100 (a value above a column's range of consecutive integers read as its top
    # value). On x the columns are uniform on {0, 1, 2}, uniform on {0, 1, 2} and a fair bit, all
    # independent; on x' the second repeats the first with probability 0.8 and the bit is 1 with
    # probability 0.3. Each row's score is the smoothed log-ratio of how often the fitted runs show
    # exactly that row, counted here; a row never seen (a value 7 or 3 above a column's range)
    # scores 0.
    rng = np.random.default_rng(12)
    fx = np.column_stack([rng.integers(0, 3, (3000, 2)), rng.random(3000) < 0.5]).astype(float)
    a = rng.integers(0, 3, 2500)
    fxp = np.column_stack([a, np.where(rng.random(2500) < 0.8, a, rng.integers(0, 3, 2500)),
                           rng.random(2500) < 0.3]).astype(float)
    joint = audit._PatternScore(fx, fxp, 2)
    assert joint.ok and joint.groups == [[0, 1, 2]]

    def smoothed(row):
        cx, cxp = np.all(fx == row, axis=1).sum(), np.all(fxp == row, axis=1).sum()
        return math.log((cxp + 0.5) / (fxp.shape[0] + 0.5)) - math.log((cx + 0.5) / (fx.shape[0] + 0.5))
    seen = np.array([[i, j, k] for i in range(3) for j in range(3) for k in range(2)], dtype=float)
    unseen = np.array([[7.0, 1.0, 0.0], [2.0, 3.0, 1.0], [1.0, 1.0, 2.0]])
    np.testing.assert_allclose(joint(np.vstack([seen, unseen])), [smoothed(r) for r in seen] + [0.0] * 3,
                               rtol=1e-12, atol=1e-15)
    # the diagonal of the first two columns is likelier on x', the rest on x: both columns decide
    got = joint(seen[seen[:, 2] == 0]).reshape(3, 3)
    assert np.all(np.diag(got) > 0.5) and np.all(got[~np.eye(3, dtype=bool)] < -0.5)


def test_pattern_score_limit_2_53_from_both_sides():
    # kills _PatternScore.__init__ mutmut_49 (limit 2**54). Seventeen columns of the integers 0..5
    # (radix 8 each: 2**51) and one more: the integers 0..3 (radix 6, 1.5 * 2**53 in all: declined)
    # or a constant (radix 3, 0.75 * 2**53: taken). The boundary 2**53 itself is left alone (see
    # the reason of mutmut_46).
    rng = np.random.default_rng(9)
    base = lambda: rng.integers(0, 6, (2000, 17))
    for last, ok in ((lambda: rng.integers(0, 4, (2000, 1)), False), (lambda: np.zeros((2000, 1), dtype=int), True)):
        fx, fxp = np.hstack([base(), last()]), np.hstack([base(), last()])
        assert audit._PatternScore(fx, fxp, 2).ok is ok


@pytest.mark.parametrize("x_low", [True, False])
def test_pattern_score_bins_of_a_column_whose_values_part_by_input(x_low):
    # kills _PatternScore.__init__ mutmut_130 and _134 (a bin count without minlength: when no run of
    # one input falls in the top bin its counts are one short, and numpy broadcast the first bin's
    # count over both). One continuous column, U(0, 1) on one input and U(10, 11) on the other, 2000
    # runs each: the one edge (the pooled median) lies between them, every run of x in one bin and
    # every run of x' in the other. The pattern part is 0 (every row continuous), so a row's score is
    # its bin's smoothed log-ratio: +-log((2000 + 1/2) / (1/2)) = +-log(4001).
    rng = np.random.default_rng(13)
    low, high = rng.random((2000, 1)), 10 + rng.random((2000, 1))
    fx, fxp = (low, high) if x_low else (high, low)
    pat = audit._PatternScore(fx, fxp, 2)
    assert pat.ok and pat.n_cells == 1
    sign = 1 if x_low else -1
    np.testing.assert_allclose(pat(np.array([[0.5], [10.5], [-3.0], [50.0]])),
                               sign * math.log(4001) * np.array([-1, 1, -1, 1]), rtol=1e-12)


def test_pattern_score_of_many_continuous_columns_is_taken():
    # kills _PatternScore._radix mutmut_3 and _6 (a continuous column's radix its code count, bins
    # included, or its symbols + 2, instead of its symbols + 1): the pattern of continuous columns
    # needs one key per column symbol only, so 60 Gaussian columns (radix 1 each) make one pattern and
    # the score is taken; radix 3 or 2 each (3**60, 2**60 > 2**53) declined the naive-Bayes score of
    # every output of more than 33 or 52 noisy answers.
    rng = np.random.default_rng(14)
    pat = audit._PatternScore(rng.normal(0, 1, (1000, 60)), rng.normal(0.3, 1, (1000, 60)), 2)
    assert pat.ok and pat.n_cells == 1 and pat.n_discrete == 0


def test_pattern_score_counts_runs_beyond_the_code_rows_under_their_own_pattern(monkeypatch):
    # kills _PatternScore._pattern mutmut_9 (a column of consecutive integers keyed like the others,
    # min(code, atoms): a value above the range the codes were learned on merged with the top value).
    # The codes are learned on the first _CODE_ROWS runs of each input (200 000; 300 here), the
    # frequencies on all: x gives 0, 1, 2 in turn; x' too, and then 100 runs of the value 3, beyond
    # the code rows. The value 3 keeps its own pattern (never seen on x) and 2 its own counts.
    monkeypatch.setattr(audit, "_CODE_ROWS", 300)
    fx = (np.arange(600) % 3).astype(float)[:, None]
    fxp = np.concatenate([np.arange(300) % 3, np.full(100, 3)]).astype(float)[:, None]
    pat = audit._PatternScore(fx, fxp, 2)
    assert pat.columns[0].fast and pat.columns[0].atoms.tolist() == [0.0, 1.0, 2.0]
    ratio = lambda cxp, cx: math.log((cxp + 0.5) / 400.5) - math.log((cx + 0.5) / 600.5)
    np.testing.assert_allclose(pat(np.array([[2.0], [3.0], [0.0]])), [ratio(100, 200), ratio(100, 0), ratio(100, 200)],
                               rtol=1e-12)


def test_column_score_reads_its_column_with_nan_as_zero():
    # kills _ColumnScore.__call__ mutmut_7 (nan scored 1 instead of 0: a nan output, a symbol such as
    # a refusal, would share its thresholds with the value 1 instead of 0). Column 1 of two; the
    # infinities become the largest finite doubles (numpy.nan_to_num), so thresholds order them.
    rows = np.array([[7.0, 2.5], [7.0, np.nan], [7.0, -np.inf], [7.0, np.inf], [7.0, 1.0]])
    big = np.finfo(float).max
    np.testing.assert_array_equal(audit._ColumnScore(1)(rows), [2.5, 0.0, -big, big, 1.0])


def _logistic_of_atoms_and(rest):
    """A fitted _LogisticScore of one column: 297 runs of the atoms 0 and 1 and three other values."""
    col = np.concatenate([np.arange(300 - rest.size) % 2, rest])[:, None]
    return audit._LogisticScore(col[:150], col[150:], np.random.default_rng(0))


def test_logistic_features_standardize_only_values_that_are_no_atom_and_clip_them_silently():
    # kills _LogisticScore._columns mutmut_26 (is_atom = hit: only the last atom, 1, counted as an atom)
    # and _27 (is_atom &= hit: no atom counted), whose atoms get a standardized value (0 - mu) / sd
    # instead of 0; _88 and _89 (clipped to [-51, 50] or [-50, 51] instead of [-50, 50]); _50 and _52
    # (the overflow of (1e308 - mu) / sd no longer silenced: a RuntimeWarning, an error here).
    # The other values 5, 5.25, 5.75: mean 16/3, population sd sqrt(14) / 12 by hand, so 5.25 and
    # 5.75 and a new 7.5 standardize to -1, 5 and 26 over sqrt(14); atoms, nan and inf to 0;
    # +-1e308 overflow (sd < 1) and are clipped to +-50. Features: intercept, 2 atoms, 3 symbols,
    # then z (column 6) and z**2 (7), 2 + 3 row counts, and the row sums of z (13) and z**2 (14).
    import warnings
    score = _logistic_of_atoms_and(np.array([5.0, 5.25, 5.75]))
    rows = np.array([0.0, 1.0, 5.25, 5.75, np.nan, np.inf, 1e308, -1e308, 7.5])[:, None]
    r14 = math.sqrt(14)
    z = [0, 0, -1 / r14, 5 / r14, 0, 0, 50, -50, 26 / r14]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        feats = score._features(rows)
    np.testing.assert_allclose(feats[:, 6], z, rtol=1e-13, atol=0)
    np.testing.assert_allclose(feats[:, 7], np.square(z), rtol=1e-13, atol=0)
    np.testing.assert_allclose(feats[:, 13], z, rtol=1e-13, atol=0)       # one column: the row sums
    np.testing.assert_allclose(feats[:, 14], np.square(z), rtol=1e-13, atol=0)


def test_logistic_features_standardize_huge_values_by_their_scale():
    # kills _LogisticScore._columns mutmut_75 and _76 (values near 1e308 standardized without the
    # division by their scale) and _78 (multiplied by it), which give +-50 (the clip) instead.
    # The other values 1e308, 9e307, -1e308, 5e307: their plain sum overflows, so they are scaled by
    # 1e308 to 1, 0.9, -1, 0.5 (mean 0.35, population sd sqrt(0.6425) by hand); 1e308, -1e308 and a
    # new 2e307 standardize to 0.65, -1.35 and -0.15 over sqrt(0.6425).
    score = _logistic_of_atoms_and(np.array([1e308, 9e307, -1e308, 5e307]))
    assert score.spec[0][1] == 1e308
    rows = np.array([1e308, -1e308, 2e307, 0.0])[:, None]
    sd = math.sqrt(0.6425)
    np.testing.assert_allclose(score._features(rows)[:, 6], [0.65 / sd, -1.35 / sd, -0.15 / sd, 0.0],
                               rtol=1e-12, atol=0)


def test_logistic_score_of_a_failed_fit_scores_every_output_alike(monkeypatch):
    # kills _LogisticScore.__init__ mutmut_175 (the non-finite weights of a failed fit kept: every
    # score nan, which no threshold orders), _178 (np.zeros(None)) and _179 (X.shape[2]). A fit
    # whose weights come back nan (the optimizer replaced) gives 15 zero weights and the score 0.
    from types import SimpleNamespace
    monkeypatch.setattr(audit.optimize, "minimize",
                        lambda loss, x0, **kw: SimpleNamespace(x=np.full(x0.shape, np.nan)))
    score = _logistic_of_atoms_and(np.array([5.0, 5.25, 5.75]))
    np.testing.assert_array_equal(score.w, np.zeros(15))
    np.testing.assert_array_equal(score(np.array([0.0, 1.0, 5.25, np.nan, 9.0])[:, None]), np.zeros(5))


def test_above_median_counts_values_strictly_above():
    # kills _AboveMedianScore.__call__ mutmut_8 (>= instead of >: a value equal to its column's median
    # counted as above). Pooled fitted runs: column 0 is 1..5 (median 3), column 1 is 10, 20, 40, 70, nan
    # (nanmedian 30, between two values).
    fx = np.array([[1.0, 10.0], [2.0, 40.0], [3.0, np.nan]])
    fxp = np.array([[4.0, 20.0], [5.0, 70.0]])
    score = audit._AboveMedianScore(fx, fxp)
    rows = np.array([[3.0, 30.0], [3.5, 30.0], [3.0, 31.0], [9.0, np.nan], [-1.0, 25.0]])
    np.testing.assert_array_equal(score(rows), [0, 1, 1, 1, 0])


def test_location_scale_standardizes_two_values_and_huge_ones_silently():
    # kills _location_scale mutmut_1 and _2 (two values left unstandardized: (1, 0, 1) returned for
    # them), _20 (a finite mean with an infinite sd left unscaled) and _6 .. _9 (the overflow of the plain mean and standard deviation of values near 1e308,
    # and the inf - inf of a sum of +-1e308, warn). Population mean and standard deviation, by hand.
    import warnings
    assert audit._location_scale(np.array([3.0, 8.0])) == (1.0, 5.5, 2.5)
    assert audit._location_scale(np.array([4.0, 4.0])) == (1.0, 4.0, 1.0)       # no spread: sd 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # overflow of the sum: scaled by the largest magnitude to 1, 1, -1, 0.5
        scale, mu, sd = audit._location_scale(np.array([1e308, 1e308, -1e308, 5e307]))
        assert (scale, mu) == (1e308, 0.375) and sd == pytest.approx(math.sqrt((2 * 0.625**2 + 1.375**2 + 0.125**2) / 4), rel=1e-15)
        # inf - inf in numpy's pairwise sum: scaled to +-1, mean 0, sd 1
        assert audit._location_scale(np.array([1e308, -1e308] * 8)) == (1e308, 0.0, 1.0)
        # a finite mean (0) but a standard deviation that overflows is rescaled too (mutmut_20: only
        # when both overflow): scaled to -1, 1, 0.5, -0.5, mean 0 and sd sqrt(5/8)
        assert audit._location_scale(np.array([-1e308, 1e308, 5e307, -5e307])) == (1e308, 0.0, math.sqrt(5 / 8))


@pytest.mark.parametrize("n_x,n_xp,repeats,atoms", [(600, 500, {7.0: 5, 9.0: 4}, [7.0]),
                                                      (600, 400, {7.0: 5, 9.0: 4}, [7.0]),
                                                      (150, 150, {7.0: 2, -3.0: 1}, [7.0]),
                                                      (150, 150, {v - 3.0: 3 for v in range(25)},
                                                       [v - 3.0 for v in range(20)])])
def test_logistic_score_atoms_are_values_seen_at_least_n_over_200_times(n_x, n_xp, repeats, atoms):
    # kills _LogisticScore.__init__ mutmut_16 (> instead of >=), _22 (n / 200 instead of n // 200), _24
    # (n // 201), _21 (at least 3 times instead of 2) and _25 (21 atoms). A column's atoms (values with
    # an indicator feature) are the finite values seen at least max(2, n // 200) times among the n
    # pooled runs, the 20 smallest of them: 5 times of 1100 or 1000 (1100 // 200 = 1000 // 200 = 5;
    # not 4 times), 2 times of 300 (the floor 2; not once). The other values are Gaussian (no repeats).
    rng = np.random.default_rng(15)
    special = np.concatenate([np.full(k, v) for v, k in repeats.items()])
    col = np.concatenate([special, rng.normal(0, 1, n_x + n_xp - special.size)])
    rng.shuffle(col)
    score = audit._LogisticScore(col[:n_x, None], col[n_x:, None], np.random.default_rng(0))
    assert score.spec[0][0].tolist() == atoms
    # the row-level counts are of the 10 smallest atoms of all columns (mutmut_41: 11)
    assert score.shared.tolist() == atoms[:10]


@pytest.mark.parametrize("n_rest,has_rest", [(0, False), (1, False), (2, True), (3, True)])
def test_logistic_score_standardizes_a_column_with_at_least_two_other_values(n_rest, has_rest):
    # kills _LogisticScore.__init__ mutmut_36 (a rest of one value standardized) and _37 (a rest of
    # two values not). 300 runs of the atoms 0 and 1 and n_rest other values: the standardized value
    # and its square are features (two more) exactly when at least two values are not atoms. One
    # column: the intercept, 2 atom indicators, 3 symbol indicators, then 2 + 3 row counts (shared
    # atoms and symbols) and the row sums of z and z**2: 13 features.
    rest = 5.0 + np.arange(n_rest)
    col = np.concatenate([np.arange(300 - n_rest) % 2, rest])[:, None]
    score = audit._LogisticScore(col[:150], col[150:], np.random.default_rng(0))
    assert score.spec[0][0].tolist() == [0.0, 1.0] and score.spec[0][4] is has_rest
    assert score._features(col[:4]).shape == (4, 13 + 2 * has_rest)


# ---------------------------------------------------------------- the workers of count_errors
def test_install_job_then_call_job_in_this_process():
    """kills _install_job mutmut_1 (the job not installed) and _call_job mutmut_1 (called with
    None instead of the task's index). Forked workers run these two, where mutmut sees no test
    calling them ("no tests"); here they run in this process: the installed job answers for
    each index, and numpy's global generator is reseeded (it no longer repeats a seeded stream)."""
    saved = audit._JOB
    try:
        np.random.seed(7)
        first = np.random.random()
        np.random.seed(7)
        audit._install_job(lambda i: (i - 3) ** 3)
        assert np.random.random() != first
        assert [audit._call_job(i) for i in (5, 1, 3)] == [8, -8, 0]
    finally:
        audit._JOB = saved


def test_audit_test_runs_the_mechanism_in_this_process_unless_told(tmp_path):
    """kills audit_test mutmut_3 (default n_jobs=2). The counts do not depend on n_jobs, but where
    the mechanism runs does: by default only in the calling process (a mechanism with side
    effects or unpicklable state is safe). test_audit_test_calls_the_mechanism_from_the_callers_thread_unless_told
    records thread ids, which a forked worker's calls never add to the parent's set; here each call
    writes its process id to a file. With n_jobs=2 (1000 runs per input: one chunk per input, two
    tasks) the counted runs are made in other processes (on Linux)."""
    import os

    log = tmp_path / "pids"

    def mech(data, size, rng):
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        return cycle(data, size, rng)

    a = audit.audit_test(mech, 0, 3, ABOVE, n_samples=1000, rng=np.random.default_rng(0))
    assert set(log.read_text().split()) == {str(os.getpid())}
    log.unlink()
    b = audit.audit_test(mech, 0, 3, ABOVE, n_samples=1000, rng=np.random.default_rng(0), n_jobs=2)
    assert (set(log.read_text().split()) != {str(os.getpid())}) == audit._FORK
    assert (a.false_positives, a.false_negatives) == (b.false_positives, b.false_negatives) == (300, 400)


def test_audit_pair_counts_in_other_processes_when_told(tmp_path):
    """audit_pair passes n_jobs to its counting (kills audit_pair mutmut_148, n_jobs dropped from the call
    of count_errors: the counts do not depend on n_jobs, so only where the mechanism runs shows it). Each
    call writes its process id to a file. With the default n_jobs=1 every run, the selection's and the
    count's, is made in this process; with n_jobs=2 the counted runs are made in other processes (on
    Linux: audit._FORK), and the result is the same as with n_jobs=1 (the counts' chunks have their own
    generators). The probe's and the selection's runs stay in this process either way."""
    import os

    log = tmp_path / "pids"

    def mech(data, size, rng):
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        return cycle(data, size, rng)

    a = audit.audit_pair(mech, 0, 3, n_samples=1000, rng=np.random.default_rng(5))
    assert set(log.read_text().split()) == {str(os.getpid())}
    log.unlink()
    b = audit.audit_pair(mech, 0, 3, n_samples=1000, rng=np.random.default_rng(5), n_jobs=2)
    pids = log.read_text().split()
    assert pids[:3] == [str(os.getpid())] * 3                  # the probe and the two selections, here
    assert (set(pids) != {str(os.getpid())}) == audit._FORK
    assert (a.false_positives, a.false_negatives, a.epsilon) == (b.false_positives, b.false_negatives, b.epsilon)


# ---------------------------------------------------------------- one_run_epsilon below _SMALL_CONFIDENCE (the full run
# of 2026-11-28: _one_run_log_complement's cases one right guess and a p-value clipped at 1)

def _within_cpu_seconds(seconds, fn, *args, **kwargs):
    """fn(*args, **kwargs) with a limit of `seconds` of CPU time (tests/cpu_limit.py): a loop that never
    ends fails here instead of holding the run. Warnings keep their filters (the overflow stays an error)."""
    with cpu_seconds(seconds, f"{fn.__name__}{args}"):
        return fn(*args, **kwargs)


@pytest.mark.parametrize("m, r, v, confidence", [(50, 12, 1, 1e-6), (50, 12, 3, 1e-6), (700, 30, 4, 1e-40)])
def test_one_run_epsilon_at_a_tiny_confidence_counts_the_all_wrong_outcome(m, r, v, confidence):
    """Below _SMALL_CONFIDENCE the bound is where Pr[W < v] (delta = 0) falls to the confidence; Pr[W < v]
    includes W = 0, the term (1 - q)^r, which with few right guesses (v = 1: it is all of Pr[W < 1]; v = 3
    of 12: 2 % of it at the crossing) is not negligible. Reference: the crossing by bisection of the
    50-digit complement (test_audit's mp_one_run_epsilon; tolerance rel 1e-9 as test_one_run_epsilon_at_a_tiny_confidence_is_the_crossing:
    the root is found to about 1e-12, then stepped down), and at the returned epsilon the complement must
    still be >= confidence (a sound bound; 1e-9 slack for the rounding of the double log-sum).
    For v = 1 the crossing has a closed form too: (1/(1+e^eps))^r = confidence, eps = log(confidence^(-1/r) - 1).
    Kills _one_run_log_complement mutmut_36 (log Pr[1 <= W < v] instead of log Pr[W < v]: IndexError at
    v = 1, 5e-5 relative too low at v = 3)."""
    e = audit.one_run_epsilon(m, r, v, confidence=confidence)
    assert e == pytest.approx(mp_one_run_epsilon(m, r, v, 0.0, confidence), rel=1e-9, abs=0)
    assert mp_one_run_complement(m, r, v, e, 0.0) >= confidence * (1 - 1e-9)
    if v == 1:
        with mpmath.workdps(50):
            closed = float(mpmath.log(mpmath.mpf(confidence) ** (-mpmath.mpf(1) / r) - 1))
        assert e == pytest.approx(closed, rel=1e-9, abs=0)


@pytest.mark.parametrize("m, r, delta", [(4, 3, 0.125), (5, 4, 0.15), (10, 7, 0.05)])
def test_one_run_epsilon_at_a_tiny_confidence_when_the_p_value_is_one(m, r, delta):
    """One guess right (v = 1) with 2 m delta >= 1: the theorem's bound is Pr[W >= 1] + 2 m delta Pr[W = 0]
    (the max over i has the single i = 1), which is >= Pr[W >= 1] + Pr[W = 0] = 1 at every epsilon, so no
    epsilon is ever rejected and the bound is exactly 0 (the documented 'when even epsilon = 0 is not
    rejected'), whatever the confidence. (4, 3, 0.125) and (10, 7, 0.05) give 2 m delta = 1 exactly (the
    complement's t = 1 to the last bit), (5, 4, 0.15) gives 1.5. The 50-digit complement at 0 confirms
    the p-value is 1 (complement <= 0). The call is given 3 s of CPU (it takes milliseconds): a mutant
    that calls this p-value < 1 never finds the top of its bracket.
    Kills _one_run_log_complement mutmut_57, 61, 62 (log1p(-t) at t >= 1: ValueError 'math domain error')
    and 63 (+inf for the log of a zero complement: every epsilon looks rejected and the bracket doubles
    hi to inf, where numpy's overflow RuntimeWarning is an error under the project's filterwarnings;
    without that filter it loops forever and the CPU limit stops it)."""
    assert mp_one_run_complement(m, r, 1, 0.0, delta) <= 0
    for confidence in (1e-5, 1e-300):
        assert _within_cpu_seconds(3.0, audit.one_run_epsilon, m, r, 1, delta=delta, confidence=confidence) == 0.0


def test_one_run_epsilon_at_a_tiny_confidence_where_delta_clips_the_p_value():
    """9 of 10 right among m = 1000 canaries at delta = 1e-3 (2 m delta = 2): for large epsilon the theorem's
    p-value is clipped at 1 (the delta term 2 m delta Pr[W = 8] exceeds Pr[W < 9]), so the complement falls
    to 0 at a finite epsilon and the bound at confidence 1e-6 is the finite crossing of the complement
    with 1e-6. Reference: 50-digit bisection (rel 1e-9, as the other tiny-confidence tests); the returned
    epsilon must be rejected by the theorem (complement >= confidence, 1e-9 slack), and epsilon 1 % higher
    must not. The call is given 3 s of CPU (it takes milliseconds).
    Kills _one_run_log_complement mutmut_63 (+inf for the log of a zero complement: the clipped epsilons
    look rejected and the bracket doubles hi to inf, an overflow RuntimeWarning (an error under the
    project's filterwarnings) or, without it, a loop the CPU limit stops) (57 and 62 too: ValueError)."""
    m, r, v, delta, confidence = 1000, 10, 9, 1e-3, 1e-6
    e = _within_cpu_seconds(3.0, audit.one_run_epsilon, m, r, v, delta=delta, confidence=confidence)
    assert e == pytest.approx(mp_one_run_epsilon(m, r, v, delta, confidence), rel=1e-9, abs=0)
    assert mp_one_run_complement(m, r, v, e, delta) >= confidence * (1 - 1e-9)
    assert mp_one_run_complement(m, r, v, 1.01 * e, delta) < confidence


# ---------------------------------------------------------------- the full run of 2026-11-28: _Column.codes (exact codes
# below the range, for non-integers and an unseen nan) and _n_select's cap
def test_fast_column_codes_keep_values_below_the_range_and_non_integers_apart_from_the_atoms():
    """A fast column (consecutive integers lo..hi seen in fitting) codes a value v as
    v - lo + 1 for the atoms, 0 for a value below lo or a non-integer (nan included) and
    span + 1 above hi (the comment of ``_Column.codes``). Codes are exact: a value that is no
    atom must never share an atom's code, else the cell score merges it with that atom and the
    audit's cells are no longer the outputs' exact values. Fitted on the asymmetric range
    -2..4 (lo != 0, 1); probed with int64 and float64 columns and through the discretizer's
    keys (a batch partly out of range takes the row-by-row codes). Reference: the arithmetic
    of the documented code, exact in integers (tolerance 0).
    Kills _Column.codes mutmut_16, 25"""
    rng = np.random.default_rng(3)
    fit = rng.integers(-2, 5, size=500).astype(np.float64)
    fit[:7] = np.arange(-2, 5)
    col = audit._Column(fit, 8)
    assert col.fast and col.atoms.tolist() == list(range(-2, 5))
    below = np.array([-3, -7, -2**40], dtype=np.int64)
    inside = np.arange(-2, 5, dtype=np.int64)
    np.testing.assert_array_equal(col.codes(below), [0, 0, 0])
    np.testing.assert_array_equal(col.codes(inside), np.arange(1, 8))
    np.testing.assert_array_equal(col.codes(np.array([5, 9], dtype=np.int64)), [8, 8])
    # non-integers between and around the atoms, and nan: code 0, never an atom's
    frac = np.array([-2.5, -1.75, 0.5, 3.25, np.nan, -2.0 + 2**-40])
    np.testing.assert_array_equal(col.codes(frac), np.zeros(frac.size))
    assert not set(col.codes(np.concatenate([below.astype(float), frac]))) & set(col.codes(inside.astype(float)))
    # through the keys: a batch with one out-of-range row is coded row by row
    disc = audit._Discretizer(fit[:, None], 8)
    rows = np.array([[-2.0], [-3.0], [-1.5], [4.0], [5.0]])
    keys = disc.keys(rows)
    assert len(set(keys[[0, 1, 3, 4]].tolist())) == 4        # -3 is not -2; 5 is not 4
    assert len(set(keys[[0, 2]].tolist())) == 2              # -1.5 is not -2
    np.testing.assert_array_equal(keys, [disc.keys(rows[i:i + 1])[0] for i in range(rows.shape[0])])


def test_unseen_nan_falls_in_the_end_bin_and_never_shares_an_atom_or_symbol_code():
    """``_Column.codes``: nan never seen in fitting falls in the end bin (code atoms + symbols +
    edges, the bin of values above the last edge, as ``searchsorted`` puts nan last for more than
    three edges). Built with an atom (7.0, seen 5 times among 100 distinct continuous values),
    the symbols +inf and -inf seen, no nan, and n_bins = 2 (one edge, the comparison branch
    for <= 3 edges): a = 1, s = 2, E = 1, so an unseen nan must get code 4, the code of a value
    above the edge (1e300), and differ from the atom's code 0 and the symbols' 1 and 2. Also
    with n_bins = 4 (three edges) and one symbol. Reference: the documented layout of the
    codes, exact integers (tolerance 0).
    Kills _Column.codes mutmut_49"""
    rng = np.random.default_rng(11)
    cont = rng.normal(3.0, 2.0, size=100)
    fit = np.concatenate([cont, [7.0] * 5, [np.inf, -np.inf]])
    col = audit._Column(fit, 2)
    a, s, e = col.atoms.size, len(col.specials), col.edges.size
    assert (a, s, e) == (1, 2, 1) and "nan" not in col.specials
    codes = col.codes(np.array([np.nan, 7.0, np.inf, -np.inf, 1e300, -1e300]))
    assert codes[0] == a + s + e == codes[4] == 4
    np.testing.assert_array_equal(codes[1:4], [0, 1, 2])
    assert codes[5] == a + s
    # three edges, one symbol (+inf): end bin a + 1 + 3
    fit3 = np.concatenate([cont, [7.0] * 5, [-1.5] * 4, [np.inf]])
    col3 = audit._Column(fit3, 4)
    a3, s3, e3 = col3.atoms.size, len(col3.specials), col3.edges.size
    assert (a3, s3, e3) == (2, 1, 3)
    c3 = col3.codes(np.array([np.nan, 1e300, -1.5, 7.0, np.inf]))
    assert c3[0] == c3[1] == a3 + s3 + e3
    assert c3[0] not in c3[2:].tolist()


def test_n_select_caps_selection_at_two_million_runs_and_ten_million_numbers():
    """``audit_pair``'s docstring: the default ``n_select`` is a tenth of the runs, at least
    100 000, at most half, at most two million runs and at most ten million numbers (runs x d),
    and at least 2. Expected values by that rule in integers: n = 4e7, d = 1 -> 2e6 (a tenth
    would be 4e6); n = 1e6, d = 200 -> 1e7 // 200 = 50 000 (the floor of 100 000 would exceed
    ten million numbers); n = 3e6, d = 37 -> 1e7 // 37 = 270 270; n = 10**6, d = 6e6 -> 2.
    Exact (tolerance 0); d = 11 divides 10 000 001, so a cap of ten million and one numbers gives 909 091.
    Kills _n_select mutmut_7 (and _25, _27, _33: caps of 2 000 001 runs, 10 000 001 numbers, a floor of 3)"""
    assert audit._n_select(40_000_000, 1) == 2_000_000
    assert audit._n_select(1_000_000, 200) == 50_000
    assert audit._n_select(3_000_000, 37) == 10_000_000 // 37
    assert audit._n_select(1_000_000, 6_000_000) == 2
    assert audit._n_select(40_000_000, 11) == 909_090          # 10 000 000 // 11; 10 000 001 = 11 x 909 091
    # where the cap does not bind: the tenth, the floor, the half
    assert audit._n_select(5_000_000, 3) == 500_000
    assert audit._n_select(400_000, 1) == 100_000
    assert audit._n_select(50_000, 1) == 25_000


# ---------------------------------------------------------------- the resumed run of 2026-11-28: the candidate thresholds
def test_candidate_thresholds_keep_every_distinct_score_up_to_the_cap_and_the_extremes_above_it():
    """``_candidate_thresholds`` tries every distinct pooled score when there are at most
    ``max_candidates`` (3000) of them, and above that pooled order statistics dense in both tails,
    the smallest and the largest score included (its docstring: rare, extreme outputs often carry the
    largest ratios; the cut at the minimum, with its complement, isolates the lowest output alone).
    Exactly 3000 distinct values (each twice, split unevenly between the inputs): all 3000 come back.
    20 001 distinct continuous scores: the pooled minimum and maximum are among the candidates, and
    there are at most 3000. Reference: the scores themselves (exact; tolerance 0).
    Kills _candidate_thresholds mutmut_7 (``<`` at the cap: the 3000 values subsampled to 1571)
    and mutmut_36 (the even grid starting at rank 1: the minimum is no candidate)."""
    rng = np.random.default_rng(11)
    values = rng.permutation(np.arange(3000) * 0.37 - 400.0)
    pooled = np.repeat(values, 2)
    sx, sxp = pooled[:3500], pooled[3500:]
    np.testing.assert_array_equal(audit._candidate_thresholds(sx, sxp), np.sort(values))
    sx, sxp = rng.normal(2.0, 3.0, 12_000), rng.laplace(-1.0, 0.5, 8_001)
    ts = audit._candidate_thresholds(sx, sxp)
    assert ts.size <= 3000
    lo, hi = min(sx.min(), sxp.min()), max(sx.max(), sxp.max())
    assert ts[0] == lo and ts[-1] == hi
    assert np.all(np.diff(ts) > 0)


def _kinds(result):
    """The kinds of score an audit tried: its candidates' names without their data-dependent counts."""
    return {re.sub(r" \(\d+ patterns\)$", "", re.sub(r" of \d+ output cells", " of output cells", name))
            for name in result.candidates}


def _columns(kinds):
    """A mechanism whose output has one column per letter: 'c' continuous (normal, mean the input),
    'd' discrete (0, 1 or 2 plus the input)."""
    def mechanism(data, size, rng):
        return np.column_stack([rng.normal(data, 1.0, size) if k == "c" else rng.integers(0, 3, size) + data
                                for k in kinds]).astype(float)
    return mechanism


CELLS, MEDIAN, LOGISTIC = "likelihood ratio of output cells", "number of columns above their median", "logistic-regression score"
COLUMNS = "naive-Bayes likelihood ratio of the columns"
SPLIT = "naive-Bayes likelihood ratio of discrete and continuous columns apart"
DIFFS = "naive-Bayes likelihood ratio of adjacent differences"


@pytest.mark.parametrize("kinds, expected", [
    ("dc", {CELLS, MEDIAN, COLUMNS, SPLIT, LOGISTIC}),
    ("cdc", {CELLS, MEDIAN, COLUMNS, SPLIT, LOGISTIC}),
    ("ccc", {CELLS, MEDIAN, COLUMNS, DIFFS, LOGISTIC}),
    ("ddd", {CELLS}),
])
def test_the_scores_tried_follow_the_kinds_of_columns(kinds, expected):
    """Which scores ``_select_test`` tries for a vector output, by the rules its comments state: when
    some column is continuous (binned cells), the number of columns above their median and naive-Bayes
    scores of the columns; of discrete and continuous columns as independent parts when both kinds stand
    side by side (one discrete column of two, one of three); of adjacent differences when every column is
    continuous; a logistic regression for continuous parts; and for a few exact cells (every column
    discrete: 46 of the 64 possible cells seen) the cells' likelihood ratio alone, which orders them as well as any score
    could. Two columns (d = 2, the smallest vector) and three. Reference: those rules (exact set of names).
    Kills _select_test mutmut_60 (d > 2: no median or naive-Bayes scores for two columns), _62 (the
    branch also for exact cells), _87 (no split with one discrete column), _88 (a split with none), _95
    and _96 (the split score's name)."""
    res = audit.audit_pair(_columns(kinds), 0, 1, n_samples=4000, rng=np.random.default_rng(1))
    assert _kinds(res) == expected


@pytest.mark.parametrize("n_samples, n_bins", [(1000, 4), (3000, 4), (40_000, 12)])
def test_a_continuous_output_gets_root_half_over_eight_quantile_bins(n_samples, n_bins):
    """One continuous output (Laplace, no value repeats): its cells are quantile bins, as many as
    ``int(clip(sqrt(half) / 8, 4, 200))`` with half the selection runs per input fitting the score
    (``_select_test``). By default n_select is half of n_samples here (below 200 000 runs), so half =
    n_samples / 4: 250 -> sqrt 15.8 / 8 = 1.98 -> the floor of 4; 750 -> 3.42 -> 4; 10 000 -> 12.5 ->
    12. Reference: that rule in integers (isqrt), the candidate's name stating its number of
    cells. Kills _select_test mutmut_23 (no floor: 1 and 3 cells), _28 (sqrt(half) * 8) and _31 (a
    floor of 5)."""
    half = n_samples // 4
    assert max(4, min(200, math.isqrt(half) // 8)) == n_bins      # floor(floor(sqrt(h)) / 8) = floor(sqrt(h) / 8)
    res = audit.audit_pair(lambda d, size, rng: rng.laplace(d, 1.0, size), 0, 1, n_samples=n_samples,
                           rng=np.random.default_rng(4))
    assert res.n_select == n_samples // 2
    assert f"likelihood ratio of {n_bins} output cells" in res.candidates


@pytest.mark.parametrize("n, d, sizes", [
    (250_001, 1, [100_000, 100_000, 50_001]),      # the cap of 100 000 runs
    (300_000, 7, [71_428] * 4 + [14_288]),          # half a million numbers: 500 000 // 7 runs
    (5_000, 600, [1000] * 5),                       # the floor of 1000 runs (600 000 numbers each)
    (999, 1, [999]),
])
def test_count_errors_chunks_hold_half_a_million_numbers_within_1000_to_100_000_runs(n, d, sizes):
    """``_chunks``: runs per chunk = min(100 000, max(1000, 500 000 // d)), the last chunk the rest.
    Reference: that rule in integers (the sizes sum to n). Kills _chunks mutmut_11 (a floor of 1001:
    at d = 600 chunks of 1001 runs)."""
    assert sum(sizes) == n
    assert audit._chunks(n, d) == sizes


@pytest.mark.parametrize("values, kinds", [(8, {"likelihood ratio of 64 output cells"}),
                                           (9, {"likelihood ratio of 81 output cells", LOGISTIC})])
def test_a_logistic_score_is_learned_beyond_64_exact_cells(values, kinds):
    """Two discrete columns of 8 (or 9) values each, every pair seen in fitting: 64 exact cells are
    few enough to be ordered by their own estimated ratios (``_FEW_CELLS`` = 64: no learned score),
    81 are not (a logistic regression is tried too). The inputs differ in the first column's law
    (uniform, or its top value twice as likely). Reference: the rule ``n_cells > _FEW_CELLS`` of
    ``_select_test`` at its edge. Kills _select_test mutmut_114 (``>=``: a logistic score at 64 cells)."""
    assert audit._FEW_CELLS == 64

    def mechanism(data, size, rng):
        p = np.full(values, 1.0)
        p[-1] += data
        first = rng.choice(values, size, p=p / p.sum())
        return np.column_stack([first, rng.integers(0, values, size)]).astype(float)

    res = audit.audit_pair(mechanism, 0, 1, n_samples=8000, rng=np.random.default_rng(6))
    assert set(res.candidates) == kinds


@pytest.mark.parametrize("n", [1000, 10**6])
def test_expected_lower_bound_is_not_moved_by_a_law_summing_to_one_plus_rounding(n):
    """p' = [1 + 5e-10, 0] sums to 1 within the accepted 1e-9: the partial sums of p' then pass 1, and
    the expected miss count (1 - 1.0000000005) n is slightly negative; as a count it is 0, so the plan
    is that of the exact law [1, 0] (the rare output 1, given by x only, read with no misses). Reference:
    the exact law's bound (tolerance 1e-12 relative: the two computations are the same after the clip).
    Kills _planned_bounds mutmut_15 (the miss count not clipped at 0: the bound 2.9e-4 higher at n = 1e6,
    a count of -0.0005 read as fewer than none)."""
    exact, mask = audit.expected_lower_bound([0.7, 0.3], [1.0, 0.0], n)
    rounded, mask_r = audit.expected_lower_bound([0.7, 0.3], [1.0 + 5e-10, 0.0], n)
    assert rounded == pytest.approx(exact, rel=1e-12, abs=0)
    assert mask.tolist() == mask_r.tolist() == [True, False]


@pytest.mark.parametrize("shift, below", [(1.0, False), (-1.0, True)])
def test_the_chosen_test_describes_its_direction(shift, below):
    """The chosen test's description names its score, its direction and its threshold:
    '<name> > t' for S = {score > t}, '<name> <= t' for the complement (``ThresholdTest.below``).
    A Laplace output audited against a shift up (S: large outputs) and a shift down (S: small
    outputs, the complement of a threshold set of the output), without the floating-point bit scores
    (with them, the low bits of the shifted doubles win here: epsilon 5.0, the attack of the floating-point
    chapter). Reference: the test's own fields
    (name among the candidates, below, threshold to 6 significant digits).
    Kills _select_test mutmut_157 ('>' written for a complement) and _159 (its symbol garbled)."""
    res = audit.audit_pair(lambda d, size, rng: rng.laplace(d, 1.0, size), 0.0, shift, n_samples=4000,
                           rng=np.random.default_rng(8), float_bits=False)
    assert res.test.below is below
    name, symbol, t = res.test.description.rsplit(" ", 2)
    assert name in res.candidates
    assert symbol == ("<=" if below else ">")
    assert t == f"{res.test.threshold:.6g}"


def _alternating(low, high, d):
    """A mechanism of d integer columns drawn uniformly from the ranges low and high in turn
    (x' = 1 makes the first column's top value twice as likely)."""
    def mechanism(data, size, rng):
        cols = []
        for j in range(d):
            lo, hi = (low, high)[j % 2]
            p = np.ones(hi - lo + 1)
            p[-1] += data if j == 0 else 0
            cols.append(lo + rng.choice(hi - lo + 1, size, p=p / p.sum()))
        return np.column_stack(cols).astype(float)
    return mechanism


@pytest.mark.parametrize("low, high, d", [((0, 1), (63, 64), 9), ((-1000, -998), (0, 2), 6)])
def test_far_apart_small_ranges_keep_their_own_codes(low, high, d):
    """Columns of consecutive small integers share one range of codes only when that range is
    narrow (``hi - lo < 64``): columns of {0, 1} beside {63, 64} (a shared range of 65 values) and of
    {-1000 .. -998} beside {0 .. 2} keep codes of their own (4 and 5 per column with the spare and
    end codes), so nine or six columns make 4**9 and 5**6 cells, far below 2**53, and the cells' score
    is tried. Shared ranges of 65 and 1003 codes per column would need 67**9 and 1005**6 >= 2**53 and
    the cells would be refused. Reference: those radix products in integers.
    Kills _Discretizer.__init__ mutmut_17 (hi + lo < 64), _18 (<= 64) and _19 (< 65)."""
    assert 67**9 >= 2**53 and 1005**6 >= 2**53
    res = audit.audit_pair(_alternating(low, high, d), 0, 1, n_samples=6000, rng=np.random.default_rng(9))
    assert CELLS in _kinds(res)


def _half_integers(values):
    """Nine columns of ``values`` half-integers 0, 0.5, ... each (not consecutive integers, so no fast
    codes); x' = 1 halves the first column's range."""
    def mechanism(data, size, rng):
        out = rng.integers(0, values, (size, 9)) * 0.5
        out[:, 0] = rng.integers(0, values - 29 * data, size) * 0.5
        return out
    return mechanism


@pytest.mark.parametrize("values, kept", [(57, True), (58, False)])
def test_the_cells_radix_is_checked_against_2_to_the_53(values, kept):
    """Nine columns of ``values`` half-integers: each column's cell code takes values + 2 values (its
    atoms, a spare and the end code), so 57 values make 59**9 < 2**53 cells (the cells' score is tried)
    and 58 make 60**9 >= 2**53 (refused). The naive-Bayes patterns need one code fewer per column
    (58 atoms and one for the rest: 59**9 < 2**53) and are kept. Every column is discrete, so with 58
    values the scores tried are exactly the median count, the columns' naive-Bayes pattern and the
    logistic regression: a split into discrete and continuous parts would be the same pattern again
    under another name (the split's empty group is dropped). Reference: the radix products in integers
    and the rule of ``_select_test`` (split only when 0 < discrete columns < d).
    Kills _Discretizer.__init__ mutmut_25 (the radix started at 2: the 57-value case refused) and
    _select_test mutmut_89 (``<= d``: the joint pattern tried twice)."""
    assert 59**9 < 2**53 <= 60**9
    res = audit.audit_pair(_half_integers(values), 0, 1, n_samples=4000, rng=np.random.default_rng(2))
    if kept:
        assert CELLS in _kinds(res)
    else:
        assert _kinds(res) == {MEDIAN, COLUMNS, LOGISTIC}


# ---------------------------------------------------------------- _exact_parts: value = hi + res exactly
def test_exact_parts_split_every_integer_exactly_and_only_beyond_2_53():
    """``_exact_parts``: each value as ``hi + res`` exactly, ``hi`` the float64 nearest to it, ``res``
    the rest (Knuth's TwoSum of the two 32-bit halves); ``res`` is None for a column with no integer
    beyond 2**53 in magnitude (the docstring's examples: 2**53 + 1 as int64 gives (2**53, 1.0)).
    Reference: Python's integers (exact) and float(v), which rounds to nearest, ties to even.
    Kills _exact_parts mutmut_31 (the rest's sign flipped: 2**53 + 1 read as (2**53, -1), i.e. 2**53 - 1),
    _10 and _15 (a column reaching exactly +-2**53 split anyway) and _11, _16 (every int64 column split)."""
    i64 = np.iinfo(np.int64)
    values = [2**53 + 1, -(2**53) - 3, 2**62 + 12345, 2**63 - 1, -(2**63), 2**53 + 2, -(2**60) - 1, 7, -1]
    hi, res = audit._exact_parts(np.array(values, dtype=np.int64))
    assert res is not None
    for v, h, r in zip(values, hi, res):
        assert h == float(v) and int(h) + int(r) == v, (v, h, r)
    u = [2**64 - 1, 2**63 + 1, 2**53 + 1, 0]
    hi, res = audit._exact_parts(np.array(u, dtype=np.uint64))
    assert [int(h) + int(r) for h, r in zip(hi, res)] == u
    for inside in ([2**53, -(2**53), 5], [i64.max >> 11, -(i64.max >> 11)], [3, -4, 0]):
        hi, res = audit._exact_parts(np.array(inside, dtype=np.int64))
        assert res is None and hi.tolist() == [float(v) for v in inside]


# ---------------------------------------------------------------- _Column: atoms, symbols and bins by their rule
INNER_8 = np.linspace(0, 1, 9)[1:-1]       # the 7 inner quantile levels of 8 bins (n_bins = 8)


def _column_of(counts, rng):
    """A column in random order holding the half-integer value 0.5 i + 0.25 counts[i] times."""
    values = np.arange(len(counts)) * 0.5 + 0.25
    return rng.permutation(np.repeat(values, counts)), values


def test_column_atoms_follow_their_rule():
    """``_Column``: up to 64 distinct finite values are all atoms; beyond 64, the atoms are the values
    seen at least max(3, n // 20 000) times, at most the 256 most frequent, ties kept in the order of
    the values (a stable sort: the same atoms on every machine and numpy build). Reference: that rule,
    applied by hand to counts chosen at its edges (exact).
    Kills _Column.__init__ mutmut_37 (>= 64: 64 values subsampled), _38 (> 65), _41 (count > 3),
    _46 (a floor of 4), _47 (n / 20 000: a count of 5 dropped at n = 110 000), _48 (n // 20 001: a
    count of 4 kept at n = 100 000), _52 and _54 (an unstable sort: other values among ties) and
    _55 (the least frequent kept)."""
    rng = np.random.default_rng(12)
    col, values = _column_of([1, 2] * 32, rng)                          # 64 distinct, seen once or twice
    np.testing.assert_array_equal(audit._Column(col, 8).atoms, values)
    col, values = _column_of([1, 3, 2] * 21 + [3, 3], rng)              # 65 distinct: the rule applies
    counts = np.array([1, 3, 2] * 21 + [3, 3])
    np.testing.assert_array_equal(audit._Column(col, 8).atoms, values[counts >= 3])
    for n, counts in ((100_000, [4, 5] * 40), (110_000, [5, 6] * 40)):
        col, values = _column_of(counts, rng)
        filler = rng.normal(1e6, 1.0, n - col.size)                      # distinct values, seen once
        c = audit._Column(np.concatenate([col, filler]), 8)
        floor = max(3, n // 20_000)
        assert floor == 5
        np.testing.assert_array_equal(c.atoms, values[np.array(counts) >= floor])
    counts = np.array([3] * 150 + [4] * 100 + [3] * 150 + [9] * 10)     # 410 repeating values
    col, values = _column_of(counts, rng)
    top = np.sort(np.argsort(-counts, kind="stable")[:256])            # 10 nines, 100 fours, 146 threes
    assert (counts[top] == 3).sum() == 146 and top[145] == 145
    np.testing.assert_array_equal(audit._Column(col, 8).atoms, values[top])


def test_column_bins_are_quantiles_of_the_finite_rest():
    """The continuous rest of a column (finite values that are no atom) is cut at its quantiles
    (n_bins - 1 inner edges); nan and +-inf are symbols of their own, never part of the quantiles.
    Reference: np.quantile of the finite normal values alone (exact: the same computation).
    Kills _Column.__init__ mutmut_12 (nan | (pinf & ninf): the infinities among the 'finite' values,
    moving every edge)."""
    rng = np.random.default_rng(13)
    normal = rng.normal(0.0, 1.0, 1000)
    col = rng.permutation(np.concatenate([normal, [np.inf] * 2, [-np.inf] * 3, [np.nan] * 4]))
    c = audit._Column(col, 8)
    assert c.atoms.size == 0 and c.specials == ["nan", "+inf", "-inf"]
    np.testing.assert_array_equal(c.edges, np.quantile(normal, INNER_8))


def test_integers_that_round_to_an_atom_are_binned_with_the_rest():
    """An int64 column: 2**60 seen 100 times (an atom) and 200 other integers 2**60 + floor(3k / 2),
    k = 1 .. 200, seen once (more than 64 distinct values, so those are no atoms). The 85 below
    2**60 + 128 (half the spacing of doubles there) round to the double 2**60 but are other numbers, so
    they belong to the continuous rest, and the bins are the quantiles of the rest's nearest doubles,
    those included. Reference: np.quantile of float(v) over every value but the atom (exact: the same
    computation). Kills _Column.__init__ mutmut_79 (the rest ignored when matching atoms: the 85 taken
    for the atom and left out of the quantiles)."""
    rng = np.random.default_rng(14)
    rest = 2**60 + np.arange(1, 201, dtype=np.int64) * 3 // 2
    col = rng.permutation(np.concatenate([np.full(100, 2**60, dtype=np.int64), rest]))
    c = audit._Column(col, 8)
    np.testing.assert_array_equal(c.atoms, [2.0**60])
    assert (rest.astype(np.float64) == 2.0**60).sum() == 85
    expected = np.unique(np.quantile(rest.astype(np.float64), INNER_8))
    np.testing.assert_array_equal(c.edges, expected)


# ---------------------------------------------------------------- _Discretizer: its fast paths give exactly the row-by-row keys
# (the resumed run of 2026-11-28; helper D1)


def _row_by_row_keys(disc, batch):
    """The reference key of every row, as Python integers: each column's own code of the row
    (``_Column.codes``, one value at a time) in mixed radix, the radices being the products of
    the column sizes in exact integer arithmetic. This is the key the discretizer documents; its
    fast paths must give exactly this."""
    keys = []
    for row in batch:
        key, radix = 0, 1
        for j, c in enumerate(disc.columns):
            key += int(c.codes(row[None, j])[0]) * radix
            radix *= c.size
        keys.append(key)
    return keys


def _non_integer_columns(sizes, n):
    """Columns of non-integer atoms (never a fast column): ``size - 2`` distinct values each."""
    return [(np.arange(n) % (s - 2)) + 0.5 for s in sizes]


def _assert_exact_and_row_alone(disc, batch, keys_ref):
    """Keys of the batch equal the reference; test_audit_rows' check that each row's key is its own
    (alone, permuted, chunked, in another memory layout); and each row's key is the same beside a row
    that is not an integer (which sends a batch to the row-by-row codes)."""
    assert [int(k) for k in disc.keys(batch)] == keys_ref
    _assert_row_by_row("keys", disc.keys, batch, np.random.default_rng(0))
    odd = batch[:1].copy()
    odd[0, -1] += 0.5
    for i in range(batch.shape[0]):
        assert int(disc.keys(np.vstack([batch[i:i + 1], odd]))[0]) == keys_ref[i]


def test_discretizer_weighted_sum_is_taken_only_where_its_products_are_exact():
    """Issue-22 class: the batch weighted sum must give the row-by-row key exactly. Here one
    column of consecutive integers 31..92 (span 62, size 64) sits on top of eight non-integer
    columns whose sizes multiply to the odd radix r = 65**7 * 25 = 1.2255e14; the product
    v * r is odd and above 2**53 for odd v >= 75, so it is not a float64 (measured: off by 1).
    The true partial sum reaches 92 r = 1.13e16 > 2**53 (the original's bound 122 r = 1.66 *
    2**53 refuses the fast path); a bound that forgets the top value (max(|lo|, |lo - span - 1|)
    = 32 instead of 92: reach 62 r < 2**53) or is loosened to 2**54 takes it and returns keys
    1 off the reference. Reference: exact integer mixed radix of the row-by-row codes
    (tolerance 0: keys are integers below 2**53). Kills _Discretizer.__init__ mutmut_74, 94"""
    n = 63
    cols = _non_integer_columns([65] * 7 + [25], n) + [31.0 + np.arange(n) % 62]
    rows = np.column_stack(cols)
    disc = audit._Discretizer(rows, 8)
    assert disc.ok
    r = math.prod(c.size for c in disc.columns[:-1])
    assert r == 65**7 * 25 and r % 2 == 1 and 75 * r > 2**53
    _assert_exact_and_row_alone(disc, rows, _row_by_row_keys(disc, rows))


def test_discretizer_constant_of_the_weighted_sum_is_exact():
    """The fast path adds the constant C = sum_j (1 - lo_j) r_j to the weighted sum; C must be
    exact too. Columns: values {62, 63} (size 4, radix 1), 31 columns constant -1 and one
    constant -2 (size 3 each; their offsets differ by 64 or more, so they keep their own ranges).
    Then C = 16 * 3**31 - 65 = 9.88e15 > 2**53 is odd, not a float64. The rows' keys, by
    hand: codes 1 or 2, then 1 in every other column: 6 * 3**31 - 1 and 6 * 3**31 (exact
    integers, tolerance 0). The original's bound (reach 1.78 * 2**53) refuses the fast path; a
    bound with |1 + lo| for |1 - lo| (reach 0.96 * 2**53) or loosened to 2**54 takes it and
    returns keys off by 1. Kills _Discretizer.__init__ mutmut_77, 94"""
    rows = np.column_stack([np.array([62.0, 63.0])] + [np.full(2, -1.0)] * 31 + [np.full(2, -2.0)])
    disc = audit._Discretizer(rows, 8)
    assert disc.ok
    ref = [6 * 3**31 - 1, 6 * 3**31]
    assert _row_by_row_keys(disc, rows) == ref
    _assert_exact_and_row_alone(disc, rows, ref)


def test_discretizer_key_of_a_value_above_the_fitted_range_is_the_same_in_any_batch():
    """Two columns of integers 0..2 (size 5: codes 1..3, 0 below, 4 above the range; radix 1, 5).
    The row (4, 0), above the range, has the key 4 + 1 * 5 = 9 (by hand), alone or beside any
    row, and differs from the key 0 + 2 * 5 = 10 of (-1, 1). A range check loosened by two at
    the top sends (4, 0) alone through the weighted sum: code 5, key 10, a collision with
    (-1, 1) and a key that depends on the batch. Exact integers, tolerance 0.
    Kills _Discretizer.keys mutmut_18"""
    rng = np.random.default_rng(11)
    rows = rng.integers(0, 3, (40, 2)).astype(float)
    rows[:3] = [[0, 0], [1, 1], [2, 2]]
    disc = audit._Discretizer(rows, 8)
    batch = np.array([[4.0, 0.0], [-1.0, 1.0], [3.0, 0.0], [2.0, 2.0]])
    ref = [4 + 1 * 5, 0 + 2 * 5, 4 + 1 * 5, 3 + 3 * 5]
    assert _row_by_row_keys(disc, batch) == ref
    _assert_exact_and_row_alone(disc, batch, ref)


def test_discretizer_and_cell_score_of_an_empty_batch_are_empty():
    """Keys are a row-by-row map, so a batch of no rows has no keys (an empty float array) and the
    cell score of no rows is empty, whether the fitted columns take the weighted-sum path
    (small integers) or not. A check of the batch's width instead of its length reduces an empty
    array (ValueError). Kills _Discretizer.keys mutmut_11"""
    rng = np.random.default_rng(12)
    x = rng.integers(-1, 3, (60, 3)).astype(float)
    disc = audit._Discretizer(x, 8)
    assert disc.batch_sum
    k = disc.keys(x[:0])
    assert k.shape == (0,) and k.dtype == np.float64
    score = audit._CellScore(x[:30], x[30:], 8)
    assert score(x[:0]).shape == (0,)
    wide = rng.normal(size=(60, 2))
    assert audit._Discretizer(wide, 8).keys(wide[:0]).shape == (0,)


def test_audit_pair_of_outputs_with_no_columns_bounds_epsilon_by_zero():
    """A mechanism whose outputs are vectors of width 0 (shape (size, 0)) releases nothing: both
    inputs give the same (empty) output, every test has p + q = 1, and the lower bound is 0
    exactly. The discretizer of a width-0 output has no columns and one cell; it must not
    look up the shared range of fast columns it does not have (IndexError).
    Kills _Discretizer.__init__ mutmut_96"""
    def mechanism(data, size, rng):
        return np.zeros((size, 0))

    result = audit.audit_pair(mechanism, 0, 1, n_samples=2000, rng=np.random.default_rng(13))
    assert result.epsilon == 0.0
    disc = audit._Discretizer(np.zeros((5, 0)), 8)
    assert disc.ok and np.array_equal(disc.keys(np.zeros((3, 0))), np.zeros(3))


@pytest.mark.parametrize("k, built", [(17, True), (18, False)])
def test_cell_score_dense_table_stays_within_its_budget(k, built):
    """The dense table of a cell score holds span**k rows of k numbers; it is built only when
    span**k * k <= 4e6. Seventeen binary columns (a pattern of yes/no answers, as the sparse vector
    technique releases) need 2**17 * 17 = 2.2e6: a table; eighteen need 2**18 * 18 = 4.7e6 > 4e6:
    none (a table would cost 38 MB of rows here, and for 25 queries 2**25 * 25 * 8 B = 6.7 GB).
    The scores are the same with or without it (the table holds the search's own scores). Reference:
    the budget in integers. Kills _Discretizer.__init__ mutmut_108, 109 (budgets loosened to
    span**k / k or span * k * k build the table for 18)."""
    assert (2**k * k <= 4_000_000) is built
    rng = np.random.default_rng(14)
    x = rng.integers(0, 2, (400, k)).astype(float)
    score = audit._CellScore(x[:200], x[200:], 8)
    assert (score.disc.dense_radix is not None) is built
    s = score(x)
    assert s.shape == (400,) and np.all(np.isfinite(s))


@pytest.mark.parametrize("n_rest", [4, 15, 16, 40])
def test_a_small_continuous_rest_is_cut_at_its_median(n_rest):
    """The continuous rest of a column is cut at its n_bins - 1 inner quantiles when it holds at least
    2 n_bins values, else at its median alone (a few values cannot place finer edges). A column of 66
    values seen 3 times each (atoms) and n_rest values seen once; n_bins = 8, so 15 values get one edge
    and 16 get seven. Reference: np.median / np.quantile of the rest (exact: the same computation).
    Kills _Column.__init__ mutmut_90 and _105 (quantiles for any rest) and _104 (> 2 n_bins: 16 values
    cut at the median)."""
    rng = np.random.default_rng(15)
    atoms = np.arange(66) * 0.5 + 0.25
    rest = 1000.0 + rng.normal(0.0, 1.0, n_rest)
    col = rng.permutation(np.concatenate([np.repeat(atoms, 3), rest]))
    c = audit._Column(col, 8)
    np.testing.assert_array_equal(c.atoms, atoms)
    qs = INNER_8 if n_rest >= 16 else [0.5]
    np.testing.assert_array_equal(c.edges, np.unique(np.quantile(rest, qs)))
    assert c.edges.size == (7 if n_rest >= 16 else 1)


def test_bins_of_values_near_the_largest_double_are_finite():
    """Quantile edges interpolate between neighbouring values, and between -1.7e308 and +1.7e308 the
    interpolation overflows (inf, or nan). The column then takes the lower order statistic at each
    quantile instead: finite edges, computed without a floating-point warning (the project turns
    RuntimeWarnings from dpnotes into errors; numpy's own are made errors here). A column of 66 atoms
    (three times each) and a continuous rest of 21 values near -1.7e308 and 20 near +1.7e308: the
    median is the 21st value, whose gap to the next is infinite in floating point (inf times a
    fraction 0: nan, an invalid operation). Reference: np.quantile(rest, qs, method='lower') (exact:
    the same order statistics), after checking that the linear quantiles fail here.
    Kills _Column.__init__ mutmut_108 to _111 (the overflow or invalid warning no longer silenced: an
    error) and _124 to _132 (the fallback dropped, broken or computed by another rule)."""
    rng = np.random.default_rng(16)
    atoms = np.arange(66) * 0.5 + 0.25
    rest = np.concatenate([-1.7e308 * (1 - 1e-6 * np.arange(21)), 1.7e308 * (1 - 1e-6 * np.arange(20))])
    qs = INNER_8
    with np.errstate(all="ignore"):
        assert not np.all(np.isfinite(np.quantile(rest, qs)))
    col = rng.permutation(np.concatenate([np.repeat(atoms, 3), rest]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = audit._Column(col, 8)
    np.testing.assert_array_equal(c.atoms, atoms)
    np.testing.assert_array_equal(c.edges, np.unique(np.quantile(rest, qs, method="lower")))
    assert np.all(np.isfinite(c.edges))


@pytest.mark.parametrize("values, fast", [
    ([7.0], True),                                   # one value: consecutive integers 7 .. 7
    (np.arange(-30.0, 34.0), True),                  # 64 consecutive integers
    (np.arange(-30.0, 35.0), False),                 # 65: too many for fast codes
    ([2.0**50 - 1, 2.0**50], True),                  # at the magnitude limit _FAST_MAX = 2**50
    ([2.0**50, 2.0**50 + 1], False),                 # beyond it
    ([-(2.0**50), 1 - 2.0**50], True),
    ([0.0, 2.0], False),                             # not consecutive
    ([0.5, 1.5], False),                             # not integers
])
def test_fast_codes_are_for_1_to_64_consecutive_integers_within_2_to_the_50(values, fast):
    """A column takes the fast codes (value - lo + 1, exact arithmetic on the raw values) when its
    values are 1 to 64 consecutive integers, with no symbol and no bin, none beyond _FAST_MAX = 2**50
    in magnitude. Each value seen three times. Reference: that rule (``_Column.fast``), at each edge.
    Kills _Column.__init__ mutmut_146 (a single value not fast), _148 (64 values not fast), _149 (65
    fast) and _169 (a value of magnitude 2**50 not fast)."""
    assert audit._FAST_MAX == 2.0**50
    c = audit._Column(np.repeat(np.asarray(values, dtype=np.float64), 3), 8)
    assert bool(c.fast) is fast


@pytest.mark.parametrize("threshold", [3, np.int64(-2), np.float32(0.1), 2.5, np.float64(np.inf)])
def test_threshold_test_stores_its_threshold_as_a_python_float(threshold):
    """``ThresholdTest`` validates its threshold (a real number or +-inf) and keeps it as a Python float,
    the same value: an int, a numpy integer or a float32 come back as float(threshold), so the test's
    comparisons and its printed form do not depend on the type it was given. Reference: float() (exact).
    Kills ThresholdTest.__post_init__ mutmut_10 and _11 (the checked value stored under another name:
    the threshold kept as given)."""
    t = audit.ThresholdTest(lambda y: y[:, 0], threshold, "a test")
    assert type(t.threshold) is float and t.threshold == float(threshold)


def test_clopper_pearson_upper_of_scalars_is_a_python_float():
    """``clopper_pearson_upper`` returns a float for scalar k and n and an array when either is one
    (its Returns section). Reference: the closed form at k = 0, 1 - alpha**(1/n), and at k = n, 1
    (rel 1e-12: beta's isf at the root of a monotone function). Kills clopper_pearson_upper mutmut_77
    (a 0-d array returned for scalars)."""
    b = audit.clopper_pearson_upper(0, 40, 0.05)
    assert type(b) is float and b == pytest.approx(1 - 0.05 ** (1 / 40), rel=1e-12)
    assert audit.clopper_pearson_upper(np.int64(9), 9.0, 0.2) == 1.0
    assert type(audit.clopper_pearson_upper(np.int64(9), 9.0, 0.2)) is float
    arr = audit.clopper_pearson_upper([0, 40], 40, 0.05)
    assert isinstance(arr, np.ndarray) and arr.shape == (2,) and arr[1] == 1.0
