"""Property-based tests of dpnotes.subsampling over its whole documented domain (Hypothesis).

Every public numeric function of the module: the properties that the theorems make hold
everywhere (monotonicity, the order of the bounds, round trips, limits), and a ValueError that
names the parameter outside the domain. The accountant's box is q in [1e-6, 1], sigma in
[0.4, 100], T in [1, 1e6], delta in [1e-12, 0.1]; draws include its corners.

Tolerances. The PLD accountant returns an upper bound within a relative 1e-4 of the true
epsilon (tested against independent values in test_subsampling.py and the peers file). So
a property of the true epsilon, f(x) <= f(x'), holds for the computed values up to that
factor: ours(x) <= true(x)(1 + 1e-4) <= true(x')(1 + 1e-4) <= ours(x')(1 + 1e-4). That
1e-4 is the slack used below, and only there.

Sizes: the fast profile (make test) draws a handful of accountant calls per property (each
call is up to a second); the thorough profile (make verify) draws a hundred or more.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpnotes import subsampling as sub
from dpnotes.loss import gaussian_delta, gaussian_epsilon
from profiles import THOROUGH, size

ACC = 1e-4          # the accountant's promised relative accuracy (an upper bound)
COARSE = 2e-2       # where the FFT size cap coarsened the mesh, only the upper bound is promised;
                    # the slack there is what make bench measures in that corner (below 1e-3)


def slack():
    """ACC, or COARSE if the last accountant call had its mesh coarsened by the FFT size cap."""
    return COARSE if sub._LAST.get("coarsened") else ACC


def log_uniform(lo, hi, extremes=()):
    """Floats spread evenly in log scale over [lo, hi], with the ends and ``extremes`` drawn often."""
    return st.one_of(st.sampled_from((lo, hi) + tuple(extremes)),
                     st.floats(math.log10(lo), math.log10(hi)).map(lambda x: float(10.0**x)))


Q = log_uniform(1e-6, 1.0, (0.5,)).map(lambda q: min(q, 1.0))
Q_SUB = log_uniform(1e-6, 0.999)
SIGMA = log_uniform(0.4, 100.0, (1.0,))
STEPS = st.one_of(st.sampled_from([1, 2, 1_000_000]), st.integers(1, 6).map(lambda k: int(10**k)),
                  st.floats(0.0, 6.0).map(lambda x: max(1, int(round(10.0**x)))))
DELTA = log_uniform(1e-12, 0.1, (1e-5,))
RELATION = st.sampled_from(sub.RELATIONS)
EPS = st.floats(-3.0, 20.0)

# a PLD example costs about a second (two accountant calls). 80 instead of 120 per property was tried
# for make verify's time (2026-11-27): Hypothesis then drew other examples, and two of them failed the
# round trip in the huge-epsilon corner (test_the_corner_at_a_tiny_delta_is_far_from_tight_an_open_finding).
# 60 since 2026-11-27 (make verify at 26 min against 20; these properties were 408 of its 2219 CPU
# seconds): the corner's round trip is held to ROUND_TRIP_CORNER, and the examples 60 draws pass.
pld = settings(max_examples=size(fast=4, thorough=60))
cheap = settings(max_examples=size(fast=40, thorough=300))


# ---------------------------------------------------------------- amplification theorems
@cheap
@given(eps=st.floats(0.0, 30.0), q=Q, q2=Q, delta=st.floats(0.0, 0.999))
def test_amplify_poisson_monotone_below_the_base_and_inverted_by_its_formula(eps, q, q2, delta):
    e, d = sub.amplify_poisson(eps, q, delta)
    assert 0 <= e <= eps + 1e-12 and d == pytest.approx(q * delta)
    lo, hi = sorted((q, q2))
    assert sub.amplify_poisson(eps, lo)[0] <= sub.amplify_poisson(eps, hi)[0] + 1e-12
    if e > 1e-300:      # round trip: eps = log(1 + (e^eps' - 1) / q)
        assert math.log1p(math.expm1(e) / q) == pytest.approx(eps, rel=1e-9, abs=1e-12)


@cheap
@given(eps=st.floats(1e-6, 20.0), q=Q)
def test_amplify_replace_one_between_add_remove_and_twice_it(eps, q):
    ar = sub.amplify_poisson(eps, q)[0]
    rep = sub.amplify_poisson_replace_one(eps, q)
    assert ar * (1 - 1e-12) <= rep <= 2 * ar * (1 + 1e-12)
    assert rep <= 2 * eps * (1 + 1e-12)


@cheap
@given(eps=st.floats(1e-3, 10.0))
def test_amplify_replace_one_over_add_remove_tends_to_one_plus_e_minus_eps(eps):
    # as q -> 0 both are linear in q: q (e^eps - 1) and q (e^eps - e^-eps), ratio 1 + e^-eps
    q = 1e-9
    ratio = sub.amplify_poisson_replace_one(eps, q) / sub.amplify_poisson(eps, q)[0]
    assert ratio == pytest.approx(1 + math.exp(-eps), rel=1e-6, abs=0)


@cheap
@given(eps=st.floats(0.0, 20.0), n=st.integers(1, 10_000), data=st.data())
def test_amplify_without_replacement_monotone_in_the_sampled_fraction(eps, n, data):
    m1, m2 = sorted(data.draw(st.lists(st.integers(1, n), min_size=2, max_size=2)))
    e1, e2 = sub.amplify_without_replacement(eps, m1, n)[0], sub.amplify_without_replacement(eps, m2, n)[0]
    assert 0 <= e1 <= e2 + 1e-12 <= eps + 2e-12


# ---------------------------------------------------------------- one-step profile
@cheap
@given(q=Q, sigma=SIGMA, e1=EPS, e2=EPS, relation=RELATION, direction=st.sampled_from(sub.DIRECTIONS))
def test_profile_is_a_privacy_profile(q, sigma, e1, e2, relation, direction):
    lo, hi = sorted((e1, e2))
    d_lo, d_hi = (sub.subsampled_gaussian_profile(q, sigma, e, direction, relation=relation) for e in (lo, hi))
    assert 0.0 <= d_hi <= d_lo + 1e-15 <= 1.0 + 1e-15                 # in [0, 1], non-increasing
    # at least 1 - e^eps, to a rounding unit (the profile takes it from numpy's expm1, which may differ from
    # math.expm1 in the last bit)
    assert d_lo >= -math.expm1(lo) * (1 - 2.0**-52)
    # convex in t = e^eps: the chord lies above the curve at the midpoint in t
    mid = math.log((math.exp(lo) + math.exp(hi)) / 2)
    d_mid = sub.subsampled_gaussian_profile(q, sigma, mid, direction, relation=relation)
    assert d_mid <= (d_lo + d_hi) / 2 + 1e-13


@cheap
@given(q=Q, sigma=SIGMA, eps=EPS)
def test_profile_duality_between_the_directions(q, sigma, eps):
    # H_t(P||Q) = 1 - t + t H_{1/t}(Q||P): the add profile from the remove profile, and the
    # replace-one pair is its own dual (y -> -y swaps its two laws)
    t = math.exp(eps)
    add = sub.subsampled_gaussian_profile(q, sigma, eps, "add")
    rem = sub.subsampled_gaussian_profile(q, sigma, -eps, "remove")
    assert add == pytest.approx(1 - t + t * rem, rel=1e-9, abs=1e-13 * max(1.0, t))
    rep = sub.subsampled_gaussian_profile(q, sigma, eps, relation="replace_one")
    rep_dual = sub.subsampled_gaussian_profile(q, sigma, -eps, relation="replace_one")
    assert rep == pytest.approx(1 - t + t * rep_dual, rel=1e-9, abs=1e-13 * max(1.0, t))


@cheap
@given(sigma=SIGMA, eps=st.floats(0.0, 20.0))
def test_profile_q1_is_the_gaussian_mechanism(sigma, eps):
    # two closed forms of the same value; far in the tail (values down to 1e-290) their round-off
    # grows like machine epsilon times a^2, a = mu/2 - eps/mu up to ~40 here: 1e-9 relative
    assert sub.subsampled_gaussian_profile(1.0, sigma, eps) == pytest.approx(
        float(gaussian_delta(eps, 1 / sigma)), rel=1e-9, abs=1e-300)
    assert sub.subsampled_gaussian_profile(1.0, sigma, eps, relation="replace_one") == pytest.approx(
        float(gaussian_delta(eps, 2 / sigma)), rel=1e-9, abs=1e-300)


@cheap
@given(q=Q, q2=Q, sigma=SIGMA, s2=SIGMA, eps=st.floats(0.0, 10.0), relation=RELATION)
def test_profile_rises_with_q_falls_with_sigma_and_replace_one_dominates(q, q2, sigma, s2, eps, relation):
    (qa, qb), (sa, sb) = sorted((q, q2)), sorted((sigma, s2))
    f = lambda qq, ss: sub.subsampled_gaussian_profile(qq, ss, eps, relation=relation)      # noqa: E731
    assert f(qa, sigma) <= f(qb, sigma) * (1 + 1e-9) + 1e-300
    assert f(q, sb) <= f(q, sa) * (1 + 1e-9) + 1e-300
    both = max(sub.subsampled_gaussian_profile(q, sigma, eps, d) for d in sub.DIRECTIONS)
    assert both <= sub.subsampled_gaussian_profile(q, sigma, eps, relation="replace_one") * (1 + 1e-9) + 1e-300


# ---------------------------------------------------------------- Renyi DP
ORDER = st.one_of(st.integers(2, 64).map(float), st.floats(1.01, 40.0))


@cheap
@given(q=Q, sigma=SIGMA, a1=ORDER, a2=ORDER)
def test_rdp_nonnegative_increasing_in_the_order_and_below_no_sampling(q, sigma, a1, a2):
    lo, hi = sorted((a1, a2))
    r_lo, r_hi = sub.subsampled_gaussian_rdp(q, sigma, [lo, hi])
    # 1e-11 relative: the series' near order 1 at sigma < 1 (about 2^-52 / (alpha - 1) absolute, a few ulps of A: the
    # two orders' errors seldom reverse them; the test below allows that error in full); where A is within rounding of 1
    # A - 1 is a quadrature of non-negative terms (the series there, 0.8 % off at (0.9, 2^27, 1000.5), needed
    # + 1e-15 absolute: rho = 1e-16 at q = 1e-6, sigma = 100 was resolved to a few per cent)
    assert 0 <= r_lo <= r_hi * (1 + 1e-11)
    assert r_hi <= hi / (2 * sigma**2) * (1 + 1e-9)                    # q = 1 is the worst


# the whole documented range of orders, (1, MAX_ORDER], integer and fractional, with its ends; sigma up to 1e5
# (so that every route of a fractional order is reached: the quadrature needs alpha <= 6 sigma)
ANY_ORDER = st.one_of(st.sampled_from((1.0 + 2.0**-40, float(sub.MAX_ORDER), sub.MAX_ORDER - 0.5)),
                      log_uniform(1.0001, float(sub.MAX_ORDER)),
                      log_uniform(2.0, float(sub.MAX_ORDER)).map(math.floor).map(float))


@settings(max_examples=size(fast=12, thorough=200))
@given(q=Q, sigma=log_uniform(0.4, 1e5, (1.0,)), a1=ANY_ORDER, a2=ANY_ORDER)
def test_rdp_increasing_in_the_order_over_every_order_it_accepts(q, sigma, a1, a2):
    """Renyi divergence cannot fall with the order, over the whole range (1, MAX_ORDER]: between two drawn orders,
    and between a fractional order and the integers around it, where a route's error shows first. Before the chord
    check (_log_a_bracketed), MTZ's series for fractional orders above about 1000 fell below rho at the integer order
    under them (2.316e-15 against 2.685e-15 at (alpha, q, sigma) = (201787.07, 3.6e-6, 22152.6); 7 of 120
    random points from 100 to 1e6) and returned 0 from about 2e6 (at 5e6 + 0.5, q = 0.5, sigma = 1e5, where
    rho = 6.25e-5). Each value may be off by its documented accuracy, 4 * 2^-52 / (alpha - 1) absolute (a few
    rounding units of A; what orders near 1 at sigma < 1 keep: 1e-3 at alpha = 1 + 2^-40), and 1e-11 relative."""
    err = lambda a: 4 * 2.0**-52 / (a - 1)                             # noqa: E731
    lo, hi = sorted((a1, a2))
    r_lo, r_hi = sub.subsampled_gaussian_rdp(q, sigma, [lo, hi])
    assert 0 <= r_lo <= r_hi * (1 + 1e-11) + err(lo) + err(hi)
    assert r_hi <= hi / (2 * sigma**2) * (1 + 1e-9) + err(hi)          # q = 1 is the worst
    if not hi.is_integer():
        below, above = sub.subsampled_gaussian_rdp(q, sigma, [max(math.floor(hi), 2.0), math.ceil(hi)])
        if hi > 2:
            assert below <= r_hi * (1 + 1e-11) + err(hi)
        assert r_hi <= above * (1 + 1e-11) + err(hi)


@cheap
@given(q=Q, q2=Q, sigma=SIGMA, s2=SIGMA, alpha=ORDER)
def test_rdp_rises_with_q_and_falls_with_sigma(q, q2, sigma, s2, alpha):
    (qa, qb), (sa, sb) = sorted((q, q2)), sorted((sigma, s2))
    assert sub.subsampled_gaussian_rdp(qa, sigma, alpha) <= sub.subsampled_gaussian_rdp(qb, sigma, alpha) * (1 + 1e-9)
    assert sub.subsampled_gaussian_rdp(q, sb, alpha) <= sub.subsampled_gaussian_rdp(q, sa, alpha) * (1 + 1e-9)


@settings(max_examples=size(fast=10, thorough=300))      # fractional orders: a series per order
@given(q=Q, sigma=SIGMA, steps=STEPS, delta=DELTA, d2=DELTA)
def test_rdp_epsilon_monotone_in_steps_and_delta(q, sigma, steps, delta, d2):
    lo, hi = sorted((delta, d2))
    e = sub.subsampled_gaussian_rdp_epsilon
    assert e(q, sigma, steps, hi) <= e(q, sigma, steps, lo) + 1e-12
    assert e(q, sigma, steps, delta) <= e(q, sigma, 2 * steps, delta) + 1e-12


# ---------------------------------------------------------------- Gaussian-DP central limit
@cheap
@given(q=Q, sigma=SIGMA, steps=STEPS, delta=DELTA)
def test_clt_mu_and_epsilon(q, sigma, steps, delta):
    mu = sub.clt_gdp_mu(q, sigma, steps)
    assert mu == pytest.approx(q * math.sqrt(steps * math.expm1(sigma**-2)), rel=1e-12)
    assert sub.clt_gdp_mu(q, sigma, 2 * steps) > mu
    e = sub.clt_gdp_epsilon(q, sigma, steps, delta)
    assert e >= 0 and (e == 0 or float(gaussian_delta(e, mu)) == pytest.approx(delta, rel=1e-6, abs=0))


# ---------------------------------------------------------------- shuffled batches (a lower bound)
@settings(max_examples=size(fast=15, thorough=300))
@given(batches=st.integers(1, 10_000), sigma=SIGMA, epochs=st.integers(1, 30), delta=DELTA)
def test_shuffle_lower_bound_is_below_no_sampling(batches, sigma, epochs, delta):
    # a lower bound on the shuffled epsilon; the mechanism is no worse than releasing the
    # target's spike (2 against 1) in the clear every epoch: the Gaussian with mu = sqrt(epochs) / sigma
    lb = sub.shuffle_epsilon_lower_bound(batches, sigma, epochs, delta)
    assert 0.0 <= lb <= gaussian_epsilon(delta, math.sqrt(epochs) / sigma) * (1 + 1e-9) + 1e-12


# ---------------------------------------------------------------- the PLD accountant
@pld
@given(q=Q_SUB, sigma=SIGMA, steps=STEPS, delta=DELTA, relation=RELATION)
def test_pld_between_one_step_and_rdp_and_below_no_sampling(q, sigma, steps, delta, relation):
    e = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
    # T steps are at least as revealing as one (its exact value) ...
    assert e >= sub.subsampled_gaussian_epsilon(q, sigma, 1, delta, relation=relation) * (1 - 1e-12)
    # ... and no more than T steps without sampling (the Gaussian, mu = sqrt(T) / sigma, twice for replace-one)
    mu = (2.0 if relation == "replace_one" else 1.0) * math.sqrt(steps) / sigma
    assert e <= gaussian_epsilon(delta, mu) * (1 + ACC) + 1e-12
    if relation == "add_remove":    # the moments accountant is an upper bound of the same epsilon
        assert e <= sub.subsampled_gaussian_rdp_epsilon(q, sigma, steps, delta) * (1 + ACC) + 1e-12


@pld
@given(q=Q_SUB, sigma=SIGMA, steps=STEPS, delta=DELTA, data=st.data())
def test_pld_monotone_in_every_argument(q, sigma, steps, delta, data):
    # epsilon falls with sigma and rises with q, T and 1/delta; one argument moved at a time
    e = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta)
    acc = slack()
    which = data.draw(st.sampled_from(["q", "sigma", "steps", "delta"]))
    k = data.draw(st.floats(1.05, 10.0))
    if which == "q":
        assume(q * k <= 1)
        bigger = sub.subsampled_gaussian_epsilon(q * k, sigma, steps, delta)
    elif which == "sigma":
        assume(sigma / k >= 0.4)
        bigger = sub.subsampled_gaussian_epsilon(q, sigma / k, steps, delta)
    elif which == "steps":
        assume(steps * k <= 1_000_000)
        bigger = sub.subsampled_gaussian_epsilon(q, sigma, int(math.ceil(steps * k)), delta)
    else:
        assume(delta / k >= 1e-12)
        bigger = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta / k)
    assert e <= bigger * (1 + max(acc, slack())) + 1e-12


@pld
@given(q=Q_SUB, sigma=SIGMA, steps=STEPS, delta=DELTA)
def test_pld_replace_one_is_at_least_add_remove(q, sigma, steps, delta):
    # replace-one includes replacing a gradient by 0, i.e. the remove pair (checked on the
    # profiles above), so its epsilon is at least the add/remove one
    ar = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta)
    acc = slack()
    rep = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation="replace_one")
    assert ar <= rep * (1 + max(acc, slack())) + 1e-12


# The huge-epsilon corner: with q near 1 and sigma near 0.4, epsilon is 1e5 to 3e6 and delta
# moves by a factor 2 to 5 when epsilon moves by a relative 1e-4 there, so the delta side needs a far
# finer mesh than its error model, read off a coarse pass, asks for. make verify (2026-11-25) found
# delta(epsilon(delta)) 4 % above delta at (0.999, 0.4, 1e5, 0.1, replace-one) and 33 times at
# (0.999, 0.4, 1e6, 1e-12, add/remove); the a posteriori halving now goes on while it moves the
# value by more than 10 %, which brings both within 2 % of the true delta
# (tests/test_subsampling_inversion.py checks them against it). make verify (2026-11-27) found the
# corner wider, wherever the Gaussian part's mu^2 = T / sigma^2 is 5e5 or more: delta(epsilon(delta))
# 4.7 % above delta at (0.999, 1.0, 1e6, 0.1, add/remove), 6.0 % above the true delta there, and at a
# tiny delta 8.1 times the true delta at (0.999, 1.0, 1e6, 1e-8, replace-one): the error model's scale
# e(eps) / delta was read off the coarse pass only, whose delta there is thousands of times the true one.
# The fine pass now re-reads it when the fine delta moves by more than 5 %, which brings all five stored
# corners within 1.7 % of the true delta (tests/test_subsampling_inversion.py). In the corner the round
# trip is searched with that accuracy, ROUND_TRIP_CORNER.
ROUND_TRIP_CORNER = 2.5e-2


def in_the_corner(q, sigma, steps):
    return q > 0.99 and steps >= 100_000 and (sigma < 0.5 or steps / sigma**2 >= 5e5)


# Open finding (make verify, 2026-11-26): where the composed loss is nearly discrete (a rate times
# steps below 1e-3: mostly no record sampled, rarely one large loss) and the FFT size cap coarsens the
# delta side's mesh, delta(epsilon(delta)) is 2.5 % (add/remove) and 9 % (replace-one) above delta at
# q = 1e-6, sigma = 0.4, T = 10, delta = 10^-5.5: still an upper bound, but looser than COARSE. The
# round trip is searched there with NEARLY_DISCRETE, and the point is pinned below at COARSE.
NEARLY_DISCRETE = 0.1


def nearly_discrete(q, steps):
    return q * steps < 1e-3


# The open finding, pinned at the values subsampled_gaussian_delta's docstring states (2.5 % and
# 9 %): a fix that tightens the delta side fails this test, which then moves to COARSE (and the
# docstring and NEARLY_DISCRETE with it); a change that loosens it further fails it too.
# (add/remove's epsilon takes 7 s here, the slowest test of make test: it is checked under make verify)
@pytest.mark.parametrize("relation, band", [("replace_one", (1.08, 1.10))] + ([("add_remove", (1.02, 1.03))] if THOROUGH else []))
def test_pld_round_trip_at_a_nearly_discrete_loss(relation, band):
    q, sigma, steps, delta = 1e-6, 0.4, 10, 10.0 ** (-5.5)
    e = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
    d = sub.subsampled_gaussian_delta(q, sigma, steps, e, relation=relation)
    assert sub._LAST.get("coarsened") and nearly_discrete(q, steps)
    assert delta * band[0] <= d <= delta * band[1] <= delta * (1 + NEARLY_DISCRETE)
    assert d > delta * (1 + COARSE)            # what is promised where the mesh is capped does not hold here


@pytest.mark.parametrize("q, sigma, steps, delta, relation",
                         [(0.999, 0.4, 100_000, 0.1, "replace_one"), (0.999, 0.4, 1_000_000, 1e-12, "add_remove"),
                          (0.999, 1.0, 1_000_000, 1e-8, "replace_one")])
def test_pld_round_trip_in_the_huge_epsilon_corner(q, sigma, steps, delta, relation):
    assert in_the_corner(q, sigma, steps)
    e = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
    assert sub.subsampled_gaussian_delta(q, sigma, steps, e, relation=relation) <= delta * (1 + ROUND_TRIP_CORNER)


@pld
@given(q=Q_SUB, sigma=SIGMA, steps=STEPS, delta=DELTA, relation=RELATION)
def test_pld_round_trip_epsilon_delta(q, sigma, steps, delta, relation):
    # e = eps(delta) >= true eps, so the true delta(e) <= delta, and our delta(e) is within
    # its own accuracy (1e-3 here) above it; e (1 - 2e-4) is below the true eps (ours is within
    # 1e-4 above it), so delta there is above delta even for the true profile
    e = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
    acc = slack()
    d = sub.subsampled_gaussian_delta(q, sigma, steps, e, relation=relation)
    acc = max(acc, slack())
    if in_the_corner(q, sigma, steps):
        tol = ROUND_TRIP_CORNER
    elif acc == ACC:
        tol = 1e-3
    else:
        tol = NEARLY_DISCRETE if nearly_discrete(q, steps) else COARSE
    assert d <= delta * (1 + tol)
    if e > 1e-9:
        assert sub.subsampled_gaussian_delta(q, sigma, steps, e * (1 - 2 * acc) - 1e-12, relation=relation) >= delta


@pld
@given(q=Q, sigma=SIGMA, steps=st.integers(1, 50), e1=st.floats(-2.0, 10.0), e2=st.floats(-2.0, 10.0),
       relation=RELATION)
def test_pld_delta_is_a_privacy_profile(q, sigma, steps, e1, e2, relation):
    # delta(eps) of T steps, negative eps included: at least 1 - e^eps, non-increasing (up to the
    # accountant's accuracy in delta, 1e-3 here), and at least the one-step value
    lo, hi = sorted((e1, e2))
    d_lo = sub.subsampled_gaussian_delta(q, sigma, steps, lo, relation=relation)
    d_hi = sub.subsampled_gaussian_delta(q, sigma, steps, hi, relation=relation)
    assert d_lo >= -math.expm1(lo) - 1e-12
    assert d_hi <= d_lo * (1 + 1e-3) + 1e-15
    assert d_lo >= sub.subsampled_gaussian_delta(q, sigma, 1, lo, relation=relation) * (1 - 1e-9) - 1e-15


@cheap
@given(sigma=SIGMA, steps=STEPS, delta=DELTA, relation=RELATION)
def test_pld_q1_is_the_gaussian_mechanism(sigma, steps, delta, relation):
    mu = (2.0 if relation == "replace_one" else 1.0) * math.sqrt(steps) / sigma
    exact = gaussian_epsilon(delta, mu)
    got = sub.subsampled_gaussian_epsilon(1.0, sigma, steps, delta, relation=relation)
    assert exact <= got <= exact * (1 + 1e-12) + 1e-300
    assert float(gaussian_delta(got, mu)) <= delta


@cheap
@given(q=Q_SUB, sigma=SIGMA, delta=DELTA, relation=RELATION)
def test_pld_one_step_is_the_one_step_profile(q, sigma, delta, relation):
    e = sub.subsampled_gaussian_epsilon(q, sigma, 1, delta, relation=relation)
    worst = lambda x: max(sub.subsampled_gaussian_profile(q, sigma, x, d, relation=relation)   # noqa: E731
                          for d in sub.DIRECTIONS)
    assert worst(e) <= delta
    if e > 0:     # the root is the smallest such epsilon, to the profile's own accuracy at tiny delta
        assert worst(e * (1 - 1e-7)) > delta
    assert sub.subsampled_gaussian_delta(q, sigma, 1, e, relation=relation) == worst(e)


# ---------------------------------------------------------------- bad input
BAD_Q = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0, exclude_min=True), st.just(math.nan))
BAD_SIGMA = st.one_of(st.floats(max_value=0.0), st.just(math.nan), st.just(math.inf))
BAD_STEPS = st.one_of(st.integers(max_value=0), st.floats(0.5, 1e6).filter(lambda x: not float(x).is_integer()))
BAD_DELTA = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(math.nan))


@cheap
@given(bad=BAD_Q)
def test_bad_sampling_probability_is_named(bad):
    for call in (lambda: sub.subsampled_gaussian_epsilon(bad, 1.0, 10, 1e-5),
                 lambda: sub.subsampled_gaussian_delta(bad, 1.0, 10, 1.0),
                 lambda: sub.subsampled_gaussian_profile(bad, 1.0, 1.0),
                 lambda: sub.subsampled_gaussian_rdp(bad, 1.0, 2.0),
                 lambda: sub.amplify_poisson(1.0, bad), lambda: sub.clt_gdp_mu(bad, 1.0, 10)):
        with pytest.raises(ValueError, match="sampling_probability must be"):
            call()


@cheap
@given(bad=BAD_SIGMA)
def test_bad_noise_multiplier_is_named(bad):
    for call in (lambda: sub.subsampled_gaussian_epsilon(0.1, bad, 10, 1e-5),
                 lambda: sub.subsampled_gaussian_delta(0.1, bad, 10, 1.0),
                 lambda: sub.subsampled_gaussian_profile(0.1, bad, 1.0),
                 lambda: sub.subsampled_gaussian_rdp(0.1, bad, 2.0),
                 lambda: sub.clt_gdp_epsilon(0.1, bad, 10, 1e-5),
                 lambda: sub.shuffle_epsilon_lower_bound(10, bad, 1, 1e-5)):
        with pytest.raises(ValueError, match="noise_multiplier must be"):
            call()


@cheap
@given(bad=BAD_STEPS)
def test_bad_steps_is_named(bad):
    for call in (lambda: sub.subsampled_gaussian_epsilon(0.1, 1.0, bad, 1e-5),
                 lambda: sub.subsampled_gaussian_delta(0.1, 1.0, bad, 1.0),
                 lambda: sub.subsampled_gaussian_rdp_epsilon(0.1, 1.0, bad, 1e-5),
                 lambda: sub.clt_gdp_mu(0.1, 1.0, bad)):
        with pytest.raises(ValueError, match=r"steps must be an integer (>= 1|in \[1, 1000000\])"):
            call()


@cheap
@given(bad=BAD_DELTA)
def test_bad_delta_is_named(bad):
    for call in (lambda: sub.subsampled_gaussian_epsilon(0.1, 1.0, 10, bad),
                 lambda: sub.subsampled_gaussian_rdp_epsilon(0.1, 1.0, 10, bad),
                 lambda: sub.clt_gdp_epsilon(0.1, 1.0, 10, bad),
                 lambda: sub.shuffle_epsilon_lower_bound(10, 1.0, 1, bad)):
        with pytest.raises(ValueError, match="delta must be"):
            call()


@cheap
@given(relation=st.text(max_size=12).filter(lambda r: r not in sub.RELATIONS))
def test_bad_relation_is_named(relation):
    for call in (lambda: sub.subsampled_gaussian_epsilon(0.1, 1.0, 10, 1e-5, relation=relation),
                 lambda: sub.subsampled_gaussian_delta(0.1, 1.0, 10, 1.0, relation=relation),
                 lambda: sub.subsampled_gaussian_profile(0.1, 1.0, 1.0, relation=relation)):
        with pytest.raises(ValueError, match="relation must be one of 'add_remove', 'replace_one'"):
            call()
