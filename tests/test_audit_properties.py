"""Properties of every public numeric function of dpnotes.audit over its whole documented domain
(Hypothesis), and bad input rejected with a ValueError that names the parameter.

The independent references are scipy's binomial law (the Clopper--Pearson bound is computed
from the beta quantile; here it is checked against the binomial CDF it must invert) and exact
sums over every binomial outcome (the probability that a bound exceeds the truth, which the
confidence promises to keep below ``1 - confidence``).
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import special, stats

import profiles
from dpnotes import audit

alphas = st.floats(1e-12, 0.999, exclude_min=False)
confidences = st.floats(0.5, 0.999)
deltas = st.one_of(st.just(0.0), st.floats(1e-9, 0.2))


@st.composite
def count_and_trials(draw, max_n=10**9):
    n = draw(st.one_of(st.integers(1, 200), st.integers(1, max_n)))
    k = draw(st.integers(0, n))
    return k, n


# ----------------------------------------------------------------- Clopper-Pearson
@given(count_and_trials(), alphas)
def test_clopper_pearson_inverts_the_binomial_cdf(kn, alpha):
    """For k < n the bound is the p with Pr[Bin(n, p) <= k] = alpha (checked with scipy's binomial
    CDF, a different route from the beta quantile); k = n gives 1; and it lies in [k/n, 1] for
    alpha <= 1/2.
    Tolerance: the CDF at the bound within 1e-6 relative of alpha, or else the root bracketed
    within 8 ulps of the bound (near p = 1 the float p itself holds 1 - p to a few digits only,
    so no CDF evaluated at it can be closer)."""
    k, n = kn
    u = audit.clopper_pearson_upper(k, n, alpha)
    assert 0.0 < u <= 1.0
    if alpha <= 0.5:                  # the bound is then at least the beta median, >= k/n
        assert k / n <= u
    if k == n:
        assert u == 1.0
    elif u < 1.0:
        cdf = stats.binom.cdf(k, n, u)
        if cdf != pytest.approx(alpha, rel=1e-6, abs=1e-300):
            ulp = np.spacing(u)
            assert stats.binom.cdf(k, n, u - 8 * ulp) >= alpha >= stats.binom.cdf(k, n, min(1.0, u + 8 * ulp))


@given(count_and_trials(max_n=10**7), alphas)
def test_clopper_pearson_is_monotone_in_k_and_n(kn, alpha):
    """More errors, a higher bound; more trials with the same errors, a lower one. Strictly where
    the bound is far enough from 1 for the step to exceed float spacing (1 - u > 1e-6 and
    n <= 1e6); near 1 neighbours may round to the same float (at alpha = 1e-12, k = n = 18014
    the bound for n + 1 trials is 1 - 5.6e-17, which is 1.0 in float64)."""
    k, n = kn
    u = audit.clopper_pearson_upper(k, n, alpha)
    strict = 1 - u > 1e-6 and n <= 10**6
    if k < n:
        up = audit.clopper_pearson_upper(k + 1, n, alpha)
        assert up > u if strict else up >= u
    more = audit.clopper_pearson_upper(k, n + 1, alpha)
    assert more < u if strict else more <= u


@given(count_and_trials(max_n=10**7), alphas, alphas)
def test_clopper_pearson_is_monotone_in_confidence(kn, a1, a2):
    """A smaller alpha (more confidence) never gives a lower bound. Tolerance 1e-12 relative: two
    alphas a hair apart give bounds equal up to the quantile's rounding."""
    k, n = kn
    lo_a, hi_a = sorted((a1, a2))
    assert audit.clopper_pearson_upper(k, n, lo_a) >= audit.clopper_pearson_upper(k, n, hi_a) * (1 - 1e-12)


@given(st.lists(count_and_trials(max_n=10**6), min_size=1, max_size=8), alphas)
def test_clopper_pearson_vector_equals_scalars(pairs, alpha):
    ks, ns = zip(*pairs)
    vec = audit.clopper_pearson_upper(list(ks), np.array(ns), alpha)
    assert vec.shape == (len(ks),)
    assert vec.tolist() == [audit.clopper_pearson_upper(k, n, alpha) for k, n in pairs]


# ----------------------------------------------------------------- the epsilon bound
@st.composite
def error_counts(draw, max_n=10**6):
    n0 = draw(st.one_of(st.integers(1, 300), st.integers(1, max_n)))
    n1 = draw(st.one_of(st.integers(1, 300), st.integers(1, max_n)))
    return draw(st.integers(0, n0)), n0, draw(st.integers(0, n1)), n1


def plug_in(fp, n0, fn, n1, delta):
    """The bound of the formula applied to the observed rates themselves (no confidence)."""
    p, q = fp / n0, fn / n1
    terms = [0.0]
    if 1 - delta - q > 0:
        terms.append(math.inf if p == 0 else math.log((1 - delta - q) / p))
    if 1 - delta - p > 0:
        terms.append(math.inf if q == 0 else math.log((1 - delta - p) / q))
    return max(terms)


@given(error_counts(), deltas, confidences)
def test_bound_is_below_the_rates_it_saw(counts, delta, conf):
    """Each Clopper--Pearson bound is >= its observed rate, so the bound is <= the plug-in
    log-ratio of the counts, and >= 0."""
    b = audit.epsilon_lower_bound(*counts, delta=delta, confidence=conf)
    assert 0.0 <= b <= plug_in(*counts, delta) + 1e-12


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.integers(1, 10**6), st.integers(1, 10**6),
       st.integers(0, 10**6), st.integers(0, 10**6), deltas, confidences)
def test_bound_is_below_what_the_exact_error_rates_give(p, q, n0, n1, extra0, extra1, delta, conf):
    """If the counts are at or above their expectations under true rates (p, q), the bound is at
    most the epsilon those exact rates give, max(log((1-delta-q)/p), log((1-delta-p)/q)): the
    privacy region, read at the true rates, caps it."""
    fp = min(n0, math.ceil(p * n0) + extra0 % (n0 + 1))
    fn = min(n1, math.ceil(q * n1) + extra1 % (n1 + 1))
    assume(fp / n0 >= p and fn / n1 >= q)
    exact = [0.0]
    with np.errstate(divide="ignore"):
        if 1 - delta - q > 0:
            exact.append(math.inf if p == 0 else math.log((1 - delta - q) / p))
        if 1 - delta - p > 0:
            exact.append(math.inf if q == 0 else math.log((1 - delta - p) / q))
    assert audit.epsilon_lower_bound(fp, n0, fn, n1, delta=delta, confidence=conf) <= max(exact) + 1e-12


@given(error_counts(), deltas, confidences, st.sampled_from(["fp", "fn", "n0", "n1", "delta", "confidence"]))
def test_bound_is_monotone_in_each_argument(counts, delta, conf, which):
    """More errors or more delta or more confidence: a bound no higher; more runs with the same
    errors: no lower. Tolerance 1e-12 absolute (the beta quantile's rounding)."""
    fp, n0, fn, n1 = counts
    base = audit.epsilon_lower_bound(fp, n0, fn, n1, delta=delta, confidence=conf)
    if which == "fp" and fp < n0:
        assert audit.epsilon_lower_bound(fp + 1, n0, fn, n1, delta=delta, confidence=conf) <= base + 1e-12
    if which == "fn" and fn < n1:
        assert audit.epsilon_lower_bound(fp, n0, fn + 1, n1, delta=delta, confidence=conf) <= base + 1e-12
    if which == "n0":
        assert audit.epsilon_lower_bound(fp, n0 + 7, fn, n1, delta=delta, confidence=conf) >= base - 1e-12
    if which == "n1":
        assert audit.epsilon_lower_bound(fp, n0, fn, n1 + 7, delta=delta, confidence=conf) >= base - 1e-12
    if which == "delta":
        assert audit.epsilon_lower_bound(fp, n0, fn, n1, delta=min(0.999, delta + 0.01), confidence=conf) <= base + 1e-12
    if which == "confidence":
        assert audit.epsilon_lower_bound(fp, n0, fn, n1, delta=delta, confidence=min(0.9999, conf + 0.01)) <= base + 1e-12


@given(error_counts(), deltas, confidences)
def test_bound_is_symmetric_in_the_two_inputs(counts, delta, conf):
    fp, n0, fn, n1 = counts
    assert (audit.epsilon_lower_bound(fp, n0, fn, n1, delta=delta, confidence=conf)
            == audit.epsilon_lower_bound(fn, n1, fp, n0, delta=delta, confidence=conf))


@given(st.floats(0.01, 3.0), deltas, st.floats(0.5, 0.99), st.integers(1, 120), st.integers(1, 120),
       st.floats(0.0, 1.0), st.booleans())
def test_bound_exceeds_epsilon_with_probability_at_most_one_minus_confidence(eps, delta, conf, n0, n1, t, swap):
    """Exact, over every pair of binomial outcomes: a test whose error rates (p, q) lie on the
    boundary of the (eps, delta) privacy region (the worst case; any (eps, delta)-DP mechanism
    has its tests' rates inside it) gives a bound above eps with probability <= 1 - confidence.
    Tolerance 1e-12 on the probability (float summation of at most 121**2 terms)."""
    corner = (1 - delta) / (1 + math.exp(eps))
    p = corner + t * (1 - delta - corner)             # along p + e^eps q = 1 - delta, from the corner
    q = max((1 - delta - p) / math.exp(eps), 0.0)      # at t = 1 rounding can leave q = -1e-17 (binom: nan)
    if swap:
        p, q = q, p
    k0, k1 = np.arange(n0 + 1), np.arange(n1 + 1)
    alpha = (1 - conf) / 2
    p_bar = audit.clopper_pearson_upper(k0, n0, alpha)
    q_bar = audit.clopper_pearson_upper(k1, n1, alpha)
    bound = audit._bound_from_upper(p_bar[:, None], q_bar[None, :], delta)
    exceed = stats.binom.pmf(k0, n0, p) @ (bound > eps) @ stats.binom.pmf(k1, n1, q)
    assert exceed <= 1 - conf + 1e-12
    # the function agrees with the vectorized formula used here, at one outcome
    i, j = n0 // 3, n1 // 2
    assert audit.epsilon_lower_bound(i, n0, j, n1, delta=delta, confidence=conf) == float(bound[i, j])


# ----------------------------------------------------------------- planning
@st.composite
def law_pairs(draw):
    k = draw(st.integers(1, 8))
    w = draw(st.lists(st.integers(0, 1000), min_size=k, max_size=k))
    v = draw(st.lists(st.integers(0, 1000), min_size=k, max_size=k))
    assume(sum(w) > 0 and sum(v) > 0)
    return np.array(w) / sum(w), np.array(v) / sum(v)


@given(law_pairs(), st.integers(1, 10**7), deltas, confidences)
def test_planned_bound_is_below_the_laws_epsilon(laws, n, delta, conf):
    """The planned bound uses Clopper--Pearson bounds of the best set's expected counts, so it is
    at most the exact epsilon(delta) of the two laws (the largest (P(S) - delta)/Q(S) over sets,
    both ways); and it is the formula applied to the set it returns."""
    p, q = laws
    b, mask = audit.expected_lower_bound(p, q, n, delta=delta, confidence=conf)
    eps = 0.0
    for a_, b_ in ((p, q), (q, p)):
        with np.errstate(divide="ignore", invalid="ignore"):   # 0/0: an output of neither law
            order = np.argsort(-(a_ / np.where(b_ > 0, b_, 0.0)), kind="stable")
        pa, qb = np.cumsum(a_[order]), np.cumsum(b_[order])
        for x, y in zip(pa, qb):
            if x - delta > 0:
                eps = max(eps, math.inf if y == 0 else math.log((x - delta) / y))
    assert b <= eps + 1e-9
    alpha = (1 - conf) / 2
    a_rate, b_rate = p[mask].sum(), q[mask].sum()
    p_bar = audit.clopper_pearson_upper(min(a_rate * n, n), n, alpha)
    q_bar = audit.clopper_pearson_upper(min((1 - b_rate) * n, n), n, alpha) if (1 - b_rate) * n > 1e-9 else \
        audit.clopper_pearson_upper(0, n, alpha)
    assert b == pytest.approx(float(audit._bound_from_upper(p_bar, q_bar, delta)), rel=1e-6, abs=1e-9)


# ----------------------------------------------------------------- one run
@st.composite
def one_run_counts(draw):
    m = draw(st.integers(1, 5000))
    r = draw(st.integers(0, min(m, 400)))
    v = draw(st.integers(0, r))
    return m, r, v


@given(one_run_counts(), st.floats(0.0, 8.0), st.one_of(st.just(0.0), st.floats(1e-9, 1e-2)))
def test_one_run_p_value_is_a_probability_monotone_in_each_argument(counts, eps, delta):
    """In [0, 1]; 1 when nothing is right; non-decreasing in epsilon and delta, non-increasing in
    the number right; at delta = 0 the binomial tail itself. Tolerance 1e-12 (scipy's tails)."""
    m, r, v = counts
    p = audit.one_run_p_value(m, r, v, eps, delta)
    assert 0.0 <= p <= 1.0
    if v == 0:
        assert p == 1.0
    assert audit.one_run_p_value(m, r, v, eps + 0.05, delta) >= p - 1e-12
    assert audit.one_run_p_value(m, r, v, eps, delta * 2 + 1e-6) >= p - 1e-12
    if v < r:
        assert audit.one_run_p_value(m, r, v + 1, eps, delta) <= p + 1e-12
    if delta == 0.0:
        assert p == pytest.approx(min(1.0, float(stats.binom.sf(v - 1, r, special.expit(eps)))), rel=1e-12, abs=1e-300)


@given(one_run_counts(), st.one_of(st.just(0.0), st.floats(1e-9, 1e-3)), confidences)
def test_one_run_epsilon_round_trip(counts, delta, conf):
    """The bound's p-value is at most 1 - confidence, and a slightly larger epsilon's is above it
    (the bound is the crossing, not somewhere below it); 0 when even epsilon = 0 is not rejected."""
    m, r, v = counts
    e = audit.one_run_epsilon(m, r, v, delta=delta, confidence=conf)
    level = 1 - conf
    assert e >= 0.0
    if e == 0.0:
        assert audit.one_run_p_value(m, r, v, 0.0, delta) >= level * (1 - 1e-9)
    else:
        assert audit.one_run_p_value(m, r, v, e, delta) <= level
        assert audit.one_run_p_value(m, r, v, e * (1 + 1e-6) + 1e-9, delta) > level


@given(one_run_counts(), st.one_of(st.just(0.0), st.floats(1e-9, 1e-3)), confidences,
       st.sampled_from(["v", "delta", "confidence"]))
def test_one_run_epsilon_is_monotone(counts, delta, conf, which):
    """More right guesses, a bound no lower; more delta or more confidence, no higher. Tolerance
    1e-9 (the root finder's)."""
    m, r, v = counts
    e = audit.one_run_epsilon(m, r, v, delta=delta, confidence=conf)
    if which == "v" and v < r:
        assert audit.one_run_epsilon(m, r, v + 1, delta=delta, confidence=conf) >= e - 1e-9
    if which == "delta":
        assert audit.one_run_epsilon(m, r, v, delta=delta * 3 + 1e-7, confidence=conf) <= e + 1e-9
    if which == "confidence":
        assert audit.one_run_epsilon(m, r, v, delta=delta, confidence=min(0.9999, conf + 0.02)) <= e + 1e-9


@settings(max_examples=profiles.size(fast=15, thorough=150))     # up to 301 root findings each
@given(st.floats(0.05, 3.0), st.integers(1, 300), st.floats(0.5, 0.99))
def test_one_run_epsilon_is_sound_exactly_in_the_tight_case(eps, r, conf):
    """Randomized response per canary makes the number right exactly Binomial(r, e^eps/(1+e^eps));
    summed over every outcome, the bound exceeds eps with probability <= 1 - confidence."""
    v = np.arange(r + 1)
    bounds = np.array([audit.one_run_epsilon(10 * r, r, int(x), confidence=conf) for x in v])
    exceed = float(stats.binom.pmf(v, r, special.expit(eps)) @ (bounds > eps))
    assert exceed <= 1 - conf + 1e-12


@given(st.lists(st.one_of(st.floats(-1e300, 1e300), st.just(math.inf), st.just(-math.inf), st.integers(-3, 3)),
                min_size=1, max_size=60), st.data())
def test_one_run_guesses_take_the_extremes(scores, data):
    n = len(scores)
    kp = data.draw(st.integers(0, n))
    kn = data.draw(st.integers(0, n - kp))
    g = audit.one_run_guesses(scores, kp, kn)
    s = np.asarray(scores, dtype=float)
    assert g.dtype == np.int8 and (g == 1).sum() == kp and (g == -1).sum() == kn
    if kp and (g == 0).any():
        assert s[g == 1].min() >= s[g == 0].max()
    if kn and (g == 0).any():
        assert s[g == -1].max() <= s[g == 0].min()
    if kp and kn:
        assert s[g == 1].min() >= s[g == -1].max()


# ----------------------------------------------------------------- bad input
BAD = [math.nan, math.inf, -math.inf, None, "3", [1], True]

CALLS = {
    # name: (function, keyword arguments that are valid, the parameters to break)
    "clopper_pearson_upper": (audit.clopper_pearson_upper, dict(k=3, n=10, alpha=0.05), ["k", "n", "alpha"]),
    "epsilon_lower_bound": (audit.epsilon_lower_bound,
                            dict(false_positives=3, n_negatives=100, false_negatives=40, n_positives=100,
                                 delta=0.0, confidence=0.95),
                            ["false_positives", "n_negatives", "false_negatives", "n_positives", "delta", "confidence"]),
    "expected_lower_bound": (audit.expected_lower_bound,
                             dict(p=[0.7, 0.3], p_prime=[0.3, 0.7], n_samples=1000, delta=0.0, confidence=0.95),
                             ["p", "p_prime", "n_samples", "delta", "confidence"]),
    "one_run_p_value": (audit.one_run_p_value, dict(n_canaries=100, n_guesses=20, n_correct=15, epsilon=1.0, delta=0.0),
                        ["n_canaries", "n_guesses", "n_correct", "epsilon", "delta"]),
    "one_run_epsilon": (audit.one_run_epsilon, dict(n_canaries=100, n_guesses=20, n_correct=15, delta=0.0, confidence=0.9),
                        ["n_canaries", "n_guesses", "n_correct", "delta", "confidence"]),
    "one_run_guesses": (audit.one_run_guesses, dict(scores=[0.1, 0.5, 0.3], n_positive=1, n_negative=1),
                        ["scores", "n_positive", "n_negative"]),
    "audit_pair": (audit.audit_pair,
                   dict(mechanism=lambda d, size, rng: rng.random(size) < 0.5, x=0, x_prime=1, n_samples=1000,
                        rng=np.random.default_rng(0), confidence=0.95, delta=0.0, n_select=500, n_jobs=1),
                   ["n_samples", "rng", "confidence", "delta", "n_select", "n_jobs"]),
    "count_errors": (audit.count_errors,
                     dict(mechanism=lambda d, size, rng: rng.random(size), x=0, x_prime=1,
                          test=audit.ThresholdTest(lambda y: y[:, 0], 0.5, "y > 1/2"), n_samples=100,
                          rng=np.random.default_rng(0), n_jobs=1),
                     ["n_samples", "rng", "n_jobs"]),
    "one_run_audit": (audit.one_run_audit,
                      dict(run=lambda inc, rng: inc + rng.standard_normal(inc.size), n_canaries=100, n_positive=5,
                           n_negative=5, rng=np.random.default_rng(0), delta=0.0, confidence=0.9),
                      ["n_canaries", "n_positive", "n_negative", "rng", "delta", "confidence"]),
}
CASES = [(f, param, bad) for f, (_, _, params) in CALLS.items() for param in params for bad in BAD]


# The few "bad" values that are valid for a parameter, and what happens instead.
VALID = {
    ("clopper_pearson_upper", "k", "[1]"): "an array of one count",
    ("clopper_pearson_upper", "n", "[1]"): "0 <= k <= n",           # valid array; k = 3 > n = 1 is not
    ("one_run_guesses", "scores", "[1]"): "n_negative",             # one score cannot take two guesses
    ("audit_pair", "n_select", "None"): "the default",
}


@pytest.mark.parametrize("fname,param,bad", CASES, ids=[f"{f}-{p}-{b!r}" for f, p, b in CASES])
def test_bad_input_is_refused_with_the_parameters_name(fname, param, bad):
    func, kwargs, _ = CALLS[fname]
    kwargs = dict(kwargs, **{param: bad})
    instead = VALID.get((fname, param, repr(bad)))
    if instead in ("an array of one count", "the default"):
        func(**kwargs)
    elif instead:
        with pytest.raises(ValueError, match=instead):
            func(**kwargs)
    else:
        with pytest.raises(ValueError, match=rf"\b{param}\b"):
            func(**kwargs)


def test_clopper_pearson_refuses_bad_entries_of_arrays():
    for bad in ([1, None], [1, math.nan], [1, "2"], np.array([True, False]), [[1, 2], [3]]):
        with pytest.raises(ValueError, match=r"^k "):
            audit.clopper_pearson_upper(bad, 10, 0.05)
    with pytest.raises(ValueError, match="broadcast"):
        audit.clopper_pearson_upper([1, 2, 3], [10, 10], 0.05)


def test_one_run_audit_refuses_nan_scores():
    with pytest.raises(ValueError, match="run must return scores that are not nan"):
        audit.one_run_audit(lambda inc, rng: np.where(inc, np.nan, 0.0), 10, n_positive=1, n_negative=1,
                            rng=np.random.default_rng(0))


def test_threshold_test_refuses_a_nan_threshold_and_a_bad_score():
    with pytest.raises(ValueError, match="threshold"):
        audit.ThresholdTest(lambda y: y[:, 0], math.nan, "nan")
    with pytest.raises(ValueError, match="score"):
        audit.ThresholdTest(3.0, 0.5, "not callable")
    with pytest.raises(ValueError, match="below"):
        audit.ThresholdTest(lambda y: y[:, 0], 0.5, "x", below="yes")
    assert audit.ThresholdTest(lambda y: y[:, 0], math.inf, "never")(np.array([1e308])).tolist() == [False]


def test_count_errors_refuses_a_test_without_one_verdict_per_output_and_a_changing_width():
    mech = lambda d, size, rng: rng.random(size)            # noqa: E731
    bad_test = audit.ThresholdTest(lambda y: y.ravel()[:1], 0.5, "one verdict only")
    with pytest.raises(ValueError, match="test must return one bool per output"):
        audit.count_errors(mech, 0, 1, bad_test, n_samples=10, rng=np.random.default_rng(0))
    grows = lambda d, size, rng: np.zeros((size, 1 if size == 1 else 2))    # noqa: E731
    ok_test = audit.ThresholdTest(lambda y: y[:, 0], 0.5, "y > 1/2")
    with pytest.raises(ValueError, match="same width in every call"):
        audit.count_errors(grows, 0, 1, ok_test, n_samples=10, rng=np.random.default_rng(0))
