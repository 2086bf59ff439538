"""Property tests of dpnotes.local over its whole documented domain (Hypothesis).

Frequency oracles: for any epsilon and any small data set, the estimators' exact mean and
variance, computed from the exact law of the reports by enumerating every possible report
vector, equal the true counts and the variance functions; the report probabilities have
ratio exactly ``e^epsilon`` and sum to one; samplers equal their documented recipe on the
same seed. Shuffled randomized response: the laws sum to one and keep every ratio within
``e^epsilon0``; the exact profile is a non-increasing function of epsilon, 0 from epsilon0 on,
non-increasing in ``n`` (one more person is post-processing noise) and non-decreasing in
epsilon0 (randomized response at a smaller epsilon0 is a post-processing of that at a larger);
the bounds are ordered, exact <= clone <= Feldman, McMillan and Talwar's closed form <=
epsilon0 (the last one was broken: see ``test_fmt_epsilon_is_never_vacuous``), and their 2023
closed form is never vacuous, is monotone and lies below the 2021 one. Hadamard response: the
estimator's exact mean and variance by enumeration, the report law's ratio and overlaps, the
sampler's recipe on any seed.

Tolerances: the profiles are sums of positive terms, accurate to about ``1e-13`` relative;
order relations get ``1e-12`` relative slack plus ``1e-15`` absolute: a privacy loss that equals
epsilon0 in exact arithmetic can be computed ``1e-16`` above it, and then contributes a
``delta`` of that order where the exact value is 0.
"""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import profiles
from dpnotes import local

# log-uniform: tiny and large values are drawn as often as those near 1
LOG_EPS = st.floats(-12.0, math.log10(700.0)).map(lambda x: 10.0**x)
WIDE_EPS = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)
N_USERS = st.integers(2, profiles.size(fast=60, thorough=300))


def le(a, b):
    """a <= b up to the rounding of sums of positive terms."""
    return a <= b * (1 + 1e-12) + 1e-15


# --------------------------------------------------------------------------- k-RR and OUE
@given(eps=WIDE_EPS, k=st.integers(2, 10**9))
def test_krr_probabilities_are_a_law_with_ratio_e_eps(eps, k):
    p, q = local.krr_probabilities(eps, k)
    assert 0 <= q <= p <= 1 and (q < p or eps < 1e-15)        # p == q once e^eps rounds to 1
    assert math.isclose(p + (k - 1) * q, 1.0, rel_tol=1e-12)
    if q > 1e-300:
        # log(p/q) = eps, up to a few roundings in p, q and this check (absolute, a few 1e-16)
        assert math.isclose(math.log(p / q), eps, rel_tol=1e-12, abs_tol=1e-15)
    p2, _ = local.krr_probabilities(eps, k + 1)
    p3, _ = local.krr_probabilities(eps * 1.5, k)
    assert p2 <= p <= p3


@given(eps=WIDE_EPS)
def test_oue_probabilities_have_ratio_e_eps(eps):
    p, q = local.oue_probabilities(eps)
    assert p == 0.5 and 0 <= q <= 0.5 and (q < 0.5 or eps < 1e-15)
    if q > 1e-300:
        assert math.isclose(math.log(p * (1 - q) / (q * (1 - p))), eps, rel_tol=1e-12, abs_tol=1e-15)


def _krr_report_law(x, eps, k):
    """Every report vector of k-RR on x, with its exact probability."""
    p, q = local.krr_probabilities(eps, k)
    reports = np.array(list(itertools.product(range(k), repeat=len(x))))
    prob = np.prod(np.where(reports == np.array(x), p, q), axis=1)
    return reports, prob


@given(x=st.lists(st.integers(0, 3), min_size=1, max_size=3), extra=st.integers(0, 1), eps=st.floats(0.05, 12.0))
def test_krr_estimate_is_unbiased_with_the_stated_variance(x, extra, eps):
    """Exact mean and variance of the estimator over every report vector (k^n of them)."""
    k = max(x) + 1 + extra
    assume(k >= 2)                                  # x = [0, 0] with no extra category: k = 1
    reports, prob = _krr_report_law(x, eps, k)
    assert math.isclose(prob.sum(), 1.0, rel_tol=1e-12)
    est = local.krr_estimate(reports, eps, k)                     # one row of estimates per report vector
    counts = np.bincount(x, minlength=k)
    mean = prob @ est
    scale = np.abs(est).max()
    assert np.allclose(mean, counts, rtol=0, atol=1e-11 * scale)
    var = prob @ (est - counts) ** 2
    assert np.allclose(var, local.krr_variance(counts, eps), rtol=1e-9, atol=1e-11 * scale**2)


@given(x=st.lists(st.integers(0, 2), min_size=1, max_size=3), extra=st.integers(0, 1), eps=st.floats(0.05, 12.0))
def test_oue_estimate_is_unbiased_with_the_stated_variance(x, extra, eps):
    k = max(x) + 1 + extra
    assume(k >= 2)
    p, q = local.oue_probabilities(eps)
    n = len(x)
    bits = np.array(list(itertools.product((0, 1), repeat=n * k))).reshape(-1, n, k)     # 2^(n k) reports
    own = np.arange(k)[None, :] == np.array(x)[:, None]
    prob = np.prod(np.where(own, np.where(bits == 1, p, 1 - p), np.where(bits == 1, q, 1 - q)), axis=(1, 2))
    assert math.isclose(prob.sum(), 1.0, rel_tol=1e-12)
    est = local.oue_estimate(bits, eps)
    counts = np.bincount(x, minlength=k)
    scale = np.abs(est).max()
    assert np.allclose(prob @ est, counts, rtol=0, atol=1e-11 * scale)
    assert np.allclose(prob @ (est - counts) ** 2, local.oue_variance(counts, eps), rtol=1e-9,
                       atol=1e-11 * scale**2)


@given(counts=st.lists(st.integers(0, 10**6), min_size=2, max_size=8), eps=st.floats(1e-3, 50.0),
       grow=st.floats(1.01, 10.0))
def test_variances_are_positive_and_fall_as_epsilon_grows(counts, eps, grow):
    """Var = n q(1-q)/(p-q)^2 + n_v (1-p-q)/(p-q) for k-RR and 4 n e^eps/(e^eps - 1)^2 + n_v for
    OUE: both terms fall with epsilon."""
    assume(sum(counts) > 0)
    for var in (local.krr_variance, local.oue_variance):
        v, w = var(counts, eps), var(counts, eps * grow)
        assert np.all(v >= 0) and np.all(w <= v * (1 + 1e-12)), var.__name__
        assert np.all(np.diff(v[np.argsort(counts, kind="stable")]) >= -1e-9 * v.max())   # larger n_v: not smaller


@given(x=st.lists(st.integers(0, 6), min_size=1, max_size=20), eps=WIDE_EPS, size=st.none() | st.integers(1, 5),
       seed=st.integers(0, 2**32 - 1))
def test_randomizers_follow_their_recipes(x, eps, size, seed):
    k = max(x) + 2
    arr = np.array(x)
    shape = arr.shape if size is None else (size,) + arr.shape
    rng = np.random.default_rng(seed)
    p, _ = local.krr_probabilities(eps, k)
    keep = rng.random(shape) < p
    expected = np.where(keep, arr, (arr + rng.integers(1, k, size=shape)) % k)
    assert np.array_equal(local.krr_randomize(x, eps, k, np.random.default_rng(seed), size=size), expected)
    rng = np.random.default_rng(seed)
    _, q = local.oue_probabilities(eps)
    u = rng.random(shape + (k,))
    bits = (u < np.where(arr[..., None] == np.arange(k), 0.5, q)).astype(np.int8)
    assert np.array_equal(local.oue_randomize(x, eps, k, np.random.default_rng(seed), size=size), bits)
    b = arr % 2
    rng = np.random.default_rng(seed)
    pr = math.exp(eps) / (1 + math.exp(eps)) if eps < 700 else 1.0
    u = rng.random(shape)
    count = np.where(u < pr, b, 1 - b).sum(axis=-1)
    got = local.shuffled_rr_count(b, eps, np.random.default_rng(seed), size=size)
    # p computed two ways may differ in its last bit: only a draw within 1e-15 of p can tell
    clear = np.all(np.abs(u - pr) > 1e-15, axis=-1)
    assert np.array_equal(np.asarray(got)[clear], np.asarray(count)[clear])


@given(eps=LOG_EPS, counts=st.lists(st.integers(0, 50), min_size=2, max_size=5),
       data=st.data())
def test_estimates_and_variances_match_mpmath_to_full_precision(eps, counts, data):
    """Regression: p - q was formed by subtraction (at epsilon = 1e-10 the estimates were off by
    1e-6 relative), 1 - p too (0 for large epsilon, so a variance vanished), and OUE's q by
    1 / (1 + exp(epsilon)), which raised OverflowError from epsilon = 710."""
    k = len(counts)
    assume(sum(counts) > 0)
    reports = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=20)))
    n = reports.size
    with mp.workdps(40 + int(eps / 2)):             # 1 - p loses eps / log(10) digits: keep 40 more
        e = mp.exp(mp.mpf(eps))
        p, q = e / (e + k - 1), 1 / (e + k - 1)
        c = np.bincount(reports, minlength=k)
        est = [float((int(c[v]) - n * q) / (p - q)) for v in range(k)]
        # C_v - n q cancels when C_v is close to n q: an error of one unit in the last place of q
        # is n q 2^-53 / (p - q) in the estimate, whatever the method; 1e-14 n / (p - q) allows it
        est_tol = float(1e-14 * n / (p - q))
        tot = sum(counts)
        var = [float((nv * p * (1 - p) + (tot - nv) * q * (1 - q)) / (p - q) ** 2) for nv in counts]
        q_oue = 1 / (1 + e)
        var_oue = [float((mp.mpf(nv) / 4 + (tot - nv) * q_oue * (1 - q_oue)) / (mp.mpf(1) / 2 - q_oue) ** 2)
                   for nv in counts]
        bits = np.eye(k, dtype=int)[reports]
        est_oue = [float((int(bits[:, v].sum()) - n * q_oue) / (mp.mpf(1) / 2 - q_oue)) for v in range(k)]
        est_oue_tol = float(1e-14 * n / (mp.mpf(1) / 2 - q_oue))
    assert np.allclose(local.krr_estimate(reports, eps, k), est, rtol=1e-12, atol=est_tol)
    assert np.allclose(local.krr_variance(counts, eps), var, rtol=1e-12, atol=0)
    assert np.allclose(local.oue_variance(counts, eps), var_oue, rtol=1e-12, atol=0)
    assert np.allclose(local.oue_estimate(bits, eps), est_oue, rtol=1e-12, atol=est_oue_tol)


# --------------------------------------------------------------------------- shuffled randomized response
@given(eps0=st.floats(1e-3, 40.0), n=N_USERS, data=st.data())
def test_shuffled_laws_are_distributions_within_e_eps0(eps0, n, data):
    m = data.draw(st.integers(0, n - 1))
    law0, law1 = local.shuffled_rr_laws(eps0, n, m)
    for law in (law0, law1):
        assert law.shape == (n + 1,) and np.all(law >= 0) and math.isclose(law.sum(), 1.0, rel_tol=1e-12)
    ok = (law0 > 1e-280) & (law1 > 1e-280)
    ratio = np.log(law1[ok]) - np.log(law0[ok])
    assert np.all(np.abs(ratio) <= eps0 * (1 + 1e-9) + 1e-12)
    # bit-flip symmetry: m other ones <-> n - 1 - m other ones, counts reflected, laws swapped
    flip0, flip1 = local.shuffled_rr_laws(eps0, n, n - 1 - m)
    assert np.allclose(flip1[::-1], law0, rtol=1e-9, atol=1e-300)
    # mean count: user 1 reports 1 w.p. q (bit 0); the others contribute m p + (n - 1 - m) q
    p = 1 / (1 + math.exp(-eps0))
    q = 1 - p
    assert math.isclose(law0 @ np.arange(n + 1), q + m * p + (n - 1 - m) * q, rel_tol=1e-9, abs_tol=1e-9)


@given(eps0=st.floats(1e-2, 10.0), n=N_USERS, e1=st.floats(0.0, 1.0), e2=st.floats(0.0, 1.0))
def test_shuffled_profile_is_monotone_and_vanishes_at_epsilon0(eps0, n, e1, e2):
    lo, hi = sorted((e1 * eps0, e2 * eps0))
    d_lo, d_hi = local.shuffled_rr_delta(eps0, n, [lo, hi])
    assert 0 <= d_hi and le(d_hi, d_lo) and d_lo <= 1
    assert local.shuffled_rr_delta(eps0, n, eps0 * (1 + 1e-9)) <= 1e-15
    assert local.shuffled_rr_delta(eps0, n, eps0 * 2 + 1) == 0.0


@given(eps0=st.floats(1e-2, 6.0), n=st.integers(2, 40), eps=st.floats(0.0, 1.0), shrink=st.floats(0.1, 1.0))
def test_shuffled_profile_falls_with_more_people_and_less_local_privacy_loss(eps0, n, eps, shrink):
    """One more person: the count is the old count plus an independent report (post-processing).
    Smaller epsilon0: each report is the larger one's passed through a flip (post-processing)."""
    e = eps * eps0 * shrink
    d = local.shuffled_rr_delta(eps0, n, e)
    assert le(local.shuffled_rr_delta(eps0, n + 1, e), d)
    assert le(local.shuffled_rr_delta(eps0 * shrink, n, e), d)


@given(eps0=st.floats(0.05, 8.0), n=N_USERS, delta=st.floats(1e-12, 0.9))
def test_shuffled_epsilon_is_the_smallest_with_delta_below(eps0, n, delta):
    e = local.shuffled_rr_epsilon(eps0, n, delta)
    assert 0 <= e <= eps0 * (1 + 1e-12) + 1e-12
    assert local.shuffled_rr_delta(eps0, n, e) <= delta
    if e > 1e-9:
        assert local.shuffled_rr_delta(eps0, n, e * (1 - 1e-9) - 1e-12) > delta


@given(eps0=st.floats(0.05, 4.0), n=st.integers(2, 50), delta=st.floats(1e-10, 0.5), grow=st.floats(1.0, 10.0))
def test_shuffled_epsilon_is_monotone_in_every_argument(eps0, n, delta, grow):
    e = local.shuffled_rr_epsilon(eps0, n, delta)
    slack = 1e-11
    assert local.shuffled_rr_epsilon(eps0, n, min(delta * grow, 0.99)) <= e + slack
    assert local.shuffled_rr_epsilon(eps0, n + 1, delta) <= e + slack
    assert local.shuffled_rr_epsilon(eps0 / grow, n, delta) <= e + slack


@given(eps0=st.floats(0.02, 6.0), n=N_USERS, eps=st.floats(0.0, 1.0), r=st.floats(0.01, 1.0))
def test_clone_bounds_sit_above_the_exact_profile_and_fall_with_the_clone_probability(eps0, n, eps, r):
    e = eps * eps0
    exact = local.shuffled_rr_delta(eps0, n, e)
    blanket = 2 / (1 + math.exp(eps0))
    small, large = sorted((r * blanket, blanket))
    assume(small > 0)
    d_small = local.fmt_clone_delta(eps0, n, e, clone_probability=small)
    d_large = local.fmt_clone_delta(eps0, n, e, clone_probability=large)
    assert le(exact, d_large) and le(d_large, d_small) and d_small <= 1
    assert le(local.fmt_clone_delta(eps0, n, min(e * 1.5 + 0.01, 2 * eps0)), local.fmt_clone_delta(eps0, n, e))


@given(n=st.integers(2, 10**12), delta=st.floats(1e-300, 0.999), data=st.data())
def test_fmt_epsilon_is_never_vacuous_and_is_monotone(n, delta, data):
    """Regression: near the lower end of the theorem's range the display exceeds epsilon0 (e.g.
    0.130 at epsilon0 = 0.1, n = 25, delta = 1/2); the shuffled output is epsilon0-DP anyway."""
    limit = local.fmt_epsilon0_max(n, delta)
    assume(limit > 1e-6)
    eps0 = data.draw(st.floats(1e-6, limit)) if limit > 1e-6 else limit
    e = local.fmt_epsilon(eps0, n, delta)
    assert 0 < e <= eps0
    assert local.fmt_epsilon(eps0, n + n // 3 + 1, delta) <= e                 # more people
    assert local.fmt_epsilon(eps0, n, min(delta * 2, 0.999)) <= e or delta * 2 > 0.999
    assert local.fmt_epsilon(eps0 / 2, n, delta) <= e                          # less local privacy loss
    assert local.fmt_epsilon0_max(n + 1, delta) >= limit
    assert local.fmt_epsilon0_max(n, min(delta * 2, 0.999)) >= limit


def test_fmt_epsilon_at_the_range_limit_is_epsilon0():
    assert local.fmt_epsilon(0.1, 37, 0.5) == 0.1
    e0 = math.exp(0.1)
    spread = 8 * math.sqrt(e0 * math.log(8) / 37) + 8 * e0 / 37
    display = math.log1p((1 - 1 / e0) / (1 + math.exp(-0.1) / (1 + spread)) * spread)
    assert display > 0.1                                # what the uncapped display would return
    assert local.fmt_stronger_epsilon(0.1, 37, 0.5) == 0.1          # the same cap for the stronger bound
    assert math.log1p(math.expm1(0.1) * (4 * math.sqrt(2 * math.log(8) / ((e0 + 1) * 37)) + 4 / 37)) > 0.1
    # and for a huge number of people the closed forms work without overflow
    with mp.workdps(30):
        ratio = mp.exp(900) / mp.mpf(10) ** 400
        spread = 8 * mp.sqrt(ratio * mp.log(4 / mp.mpf(1e-9))) + 8 * ratio
        expected = mp.log1p((1 - mp.exp(-900)) / (1 + mp.exp(-900) / (1 + spread)) * spread)
        strong = mp.log1p(mp.expm1(900) * (4 * mp.sqrt(2 * mp.log(4 / mp.mpf(1e-9)) / ((mp.exp(900) + 1) * mp.mpf(10) ** 400))
                                          + 4 / mp.mpf(10) ** 400))
    assert math.isclose(local.fmt_epsilon(900.0, 10**400, 1e-9), float(expected), rel_tol=1e-12)
    assert math.isclose(local.fmt_stronger_epsilon(900.0, 10**400, 1e-9), float(strong), rel_tol=1e-12)


@given(n=st.integers(2, 10**12), delta=st.floats(1e-300, 0.999), data=st.data())
def test_fmt_stronger_epsilon_is_never_vacuous_monotone_and_below_fmt(n, delta, data):
    limit = local.fmt_stronger_epsilon0_max(n, delta)
    assume(limit > 1e-6)
    eps0 = data.draw(st.floats(1e-6, limit))
    e = local.fmt_stronger_epsilon(eps0, n, delta)
    assert 0 < e <= eps0
    assert local.fmt_stronger_epsilon(eps0, n + n // 3 + 1, delta) <= e       # more people
    assert local.fmt_stronger_epsilon(eps0 / 2, n, delta) <= e                # less local privacy loss
    assert local.fmt_stronger_epsilon0_max(n + 1, delta) >= limit
    assert local.fmt_stronger_epsilon0_max(n, delta) >= local.fmt_epsilon0_max(n, delta)
    if eps0 <= local.fmt_epsilon0_max(n, delta):                              # both apply: the stronger is smaller
        assert e <= local.fmt_epsilon(eps0, n, delta) * (1 + 1e-12)


@given(n=st.integers(25, profiles.size(fast=120, thorough=600)), delta=st.floats(1e-6, 0.5), data=st.data())
def test_exact_below_clone_below_fmt(n, delta, data):
    """Feldman, McMillan and Talwar's bound holds for randomized response, and is proved through
    the clone pair: at their epsilon, the exact and the clone delta are at most delta."""
    limit = local.fmt_epsilon0_max(n, delta)
    assume(limit > 0.02)
    eps0 = data.draw(st.floats(0.02, min(limit, 3.0)))
    e = local.fmt_epsilon(eps0, n, delta)
    clone = local.fmt_clone_delta(eps0, n, e)
    assert le(local.shuffled_rr_delta(eps0, n, e), clone) and le(clone, delta)   # at e = eps0 both are 0
    assert local.shuffled_rr_epsilon(eps0, n, delta) <= local.fmt_clone_epsilon(eps0, n, delta) + 1e-12 <= e + 2e-12


# --------------------------------------------------------------------------- bad input
RNG = np.random.default_rng(0)
SCALAR_BAD = [math.nan, math.inf, -math.inf, None, "1.0", [1.0, 2.0], True]
ARRAY_BAD = ["abc", None, [1.0, "a"], [math.nan, 1.0], [[1, 0], [1]], [True, False]]
CALLS = {
    "krr_probabilities": (local.krr_probabilities, dict(epsilon=1.0, k=3)),
    "krr_randomize": (local.krr_randomize, dict(x=[0, 1], epsilon=1.0, k=3, rng=RNG, size=2)),
    "krr_estimate": (local.krr_estimate, dict(reports=[0, 1], epsilon=1.0, k=3)),
    "krr_variance": (local.krr_variance, dict(counts=[1, 2], epsilon=1.0)),
    "oue_probabilities": (local.oue_probabilities, dict(epsilon=1.0)),
    "oue_randomize": (local.oue_randomize, dict(x=[0, 1], epsilon=1.0, k=3, rng=RNG, size=2)),
    "oue_estimate": (local.oue_estimate, dict(reports=[[0, 1], [1, 0]], epsilon=1.0)),
    "oue_variance": (local.oue_variance, dict(counts=[1, 2], epsilon=1.0)),
    "shuffled_rr_count": (local.shuffled_rr_count, dict(x=[0, 1], epsilon0=1.0, rng=RNG, size=2)),
    "shuffled_rr_laws": (local.shuffled_rr_laws, dict(epsilon0=1.0, n=3, m=1)),
    "shuffled_rr_delta": (local.shuffled_rr_delta, dict(epsilon0=1.0, n=3, epsilon=0.5)),
    "shuffled_rr_epsilon": (local.shuffled_rr_epsilon, dict(epsilon0=1.0, n=3, delta=0.1)),
    "fmt_epsilon0_max": (local.fmt_epsilon0_max, dict(n=10_000, delta=1e-6)),
    "fmt_epsilon": (local.fmt_epsilon, dict(epsilon0=1.0, n=10_000, delta=1e-6)),
    "fmt_clone_delta": (local.fmt_clone_delta, dict(epsilon0=1.0, n=10, epsilon=0.5, clone_probability=0.2)),
    "fmt_clone_epsilon": (local.fmt_clone_epsilon, dict(epsilon0=1.0, n=10, delta=0.1, clone_probability=0.2)),
}
ARRAYS = {"x", "reports", "counts", "epsilon"}
OPTIONAL = {"size", "clone_probability"}
CASES = [(name, param, bad) for name, (_, kwargs) in CALLS.items() for param in kwargs if param != "rng"
         for bad in (ARRAY_BAD if param in ARRAYS else SCALAR_BAD) if not (bad is None and param in OPTIONAL)]


@pytest.mark.parametrize("name, param, bad", CASES, ids=[f"{n}-{p}-{b!r}" for n, p, b in CASES])
def test_every_numeric_parameter_rejects_bad_values_by_name(name, param, bad):
    fn, kwargs = CALLS[name]
    fn(**kwargs)
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        fn(**{**kwargs, param: bad})


# --------------------------------------------------------------------------- Hadamard response
def _hr_channel(eps, k):
    """Pr[report j | category v] from the definition: row v + 1 of the Sylvester matrix, popcount parity."""
    K = 1 << k.bit_length()
    j = np.arange(K)
    inside = np.array([[bin((v + 1) & jj).count("1") % 2 == 0 for jj in j] for v in range(k)])
    p = 1 / (1 + math.exp(-eps))
    return np.where(inside, p, 1 - p) / (K / 2), inside


@given(x=st.lists(st.integers(0, 4), min_size=1, max_size=3), extra=st.integers(0, 3), eps=st.floats(0.05, 30.0))
def test_hr_estimate_is_unbiased_with_the_stated_variance(x, extra, eps):
    """Exact mean and variance of the estimator over every report vector (K^n of them, K <= 8)."""
    k = max(x) + 1 + extra
    assume(k >= 2)
    ch, _ = _hr_channel(eps, k)
    K = ch.shape[1]
    assert np.allclose(ch.sum(axis=1), 1.0, rtol=1e-13)
    reports = np.array(list(itertools.product(range(K), repeat=len(x))))
    prob = np.prod(ch[np.array(x), reports], axis=1)
    est = local.hr_estimate(reports, eps, k)
    counts = np.bincount(x, minlength=k)
    scale = np.abs(est).max()
    assert np.allclose(prob @ est, counts, rtol=0, atol=1e-11 * scale)
    assert np.allclose(prob @ (est - counts) ** 2, local.hr_variance(counts, eps), rtol=1e-9, atol=1e-11 * scale**2)


@given(eps=WIDE_EPS, k=st.integers(2, 40))
def test_hr_report_law_has_ratio_e_eps_and_half_overlaps(eps, k):
    ch, inside = _hr_channel(min(eps, 700.0), k)
    K, p = local.hr_parameters(eps, k)
    assert K == ch.shape[1] and k < K <= 2 * k and 0.5 <= p <= 1
    assert np.all(inside.sum(axis=1) == K // 2)
    # two categories share exactly a quarter of the reports: Pr[C_v | w] = 1/2 for w != v
    overlap = inside.astype(int) @ inside.T.astype(int)
    assert np.all(overlap[~np.eye(k, dtype=bool)] == K // 4)
    assert math.isclose(p, 1 / (1 + math.exp(-eps)), rel_tol=1e-15)
    if eps < 30:
        # the outside probability is 1 - p, formed by a subtraction whose relative rounding is about
        # 2^-53 (1 + e^eps): the log-ratio is eps up to that (at eps = 13, 2e-11 is seen)
        tol = 4 * 2.0**-53 * (1 + math.exp(eps))
        assert math.isclose(math.log(p / (1 - p)), eps, rel_tol=1e-12, abs_tol=tol)


@given(x=st.lists(st.integers(0, 9), min_size=1, max_size=20), eps=WIDE_EPS, size=st.none() | st.integers(1, 5),
       seed=st.integers(0, 2**32 - 1))
def test_hr_randomize_follows_its_recipe(x, eps, size, seed):
    k = max(x) + 2
    K, p = local.hr_parameters(eps, k)
    arr = np.array(x)
    shape = arr.shape if size is None else (size,) + arr.shape
    rng = np.random.default_rng(seed)
    want_in = rng.random(shape) < p
    j = rng.integers(0, K, size=shape)
    row = np.broadcast_to(arr + 1, shape)
    parity = np.vectorize(lambda a: bin(int(a)).count("1") % 2)
    flip = (parity(j & row) == 0) != want_in
    low = np.vectorize(lambda r: r & -r)(row)
    expected = np.where(flip, j ^ low, j)
    got = local.hr_randomize(x, eps, k, np.random.default_rng(seed), size=size)
    assert np.array_equal(got, expected)
    assert np.all((parity(got & row) == 0) == want_in)        # the report lies on the chosen side


@given(counts=st.lists(st.integers(0, 10**6), min_size=2, max_size=8), eps=st.floats(1e-3, 50.0),
       grow=st.floats(1.01, 10.0))
def test_hr_variance_positive_falling_in_epsilon_and_above_oue(counts, eps, grow):
    assume(sum(counts) > 0)
    v, w = local.hr_variance(counts, eps), local.hr_variance(counts, eps * grow)
    assert np.all(v > 0) and np.all(w <= v * (1 + 1e-12))
    # rare categories: exactly cosh^2(eps/2) times OUE's, so never better
    rare = local.hr_variance(counts + [0], eps)[-1]
    assert math.isclose(rare, math.cosh(eps / 2) ** 2 * local.oue_variance(counts + [0], eps)[-1], rel_tol=1e-10)
