"""Hypothesis properties of dpnotes.census over the documented domains.

The post-processed table is a non-negative integer histogram that keeps the invariant, whatever
the noisy measurements; the zero-noise limit gives back the block, its statistics and Part I's
reconstruction; the budget split sums to rho with the smallest noise that respects it; and the
exact privacy profile is monotone, grows with every added mechanism, and never exceeds what the
zCDP conversion allows. Sizes follow tests/profiles.py (fast for make test, thorough for make verify).
"""

import math
from fractions import Fraction

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import profiles
from dpnotes import attacks
from dpnotes import census as cs
from dpnotes import composition as comp

Q = cs.block_queries()
SMALL = cs.block_queries(age_max=3, adult_age=2)
CELLS = list(zip(*(c.tolist() for c in Q.cells)))

rhos = st.floats(1e-3, 1e3)
shares = st.floats(0.02, 0.98)


@given(rho=st.floats(1e-6, 1e6), k=st.integers(1, 40), share=shares)
def test_budget_split_sums_to_rho_with_the_least_noise(rho, k, share):
    b = cs.budget_split(rho, k, detailed_share=share)
    assert math.isclose(math.fsum(b.shares), rho, rel_tol=1e-14)
    assert b.rho_detailed > 0 and b.rho_group > 0
    rho_d = Fraction(rho) * Fraction(share)                    # the split in exact arithmetic
    rho_g = (Fraction(rho) - rho_d) / k
    for sigma, var in ((b.sigma_detailed, 1 / rho_d), (b.sigma_group, 1 / (2 * rho_g))):
        assert Fraction(sigma) ** 2 >= var > Fraction(math.nextafter(sigma, 0)) ** 2
    # the zCDP the noise buys (Delta^2 / (2 sigma^2) per query, added up) never exceeds rho, exactly
    assert 1 / Fraction(b.sigma_detailed) ** 2 + k / (2 * Fraction(b.sigma_group) ** 2) <= Fraction(rho)


@st.composite
def measurements(draw, q):
    """A measurement of any block under any budget: noisy counts that may be negative or inconsistent."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    b = cs.budget_split(draw(rhos), len(q.groups), detailed_share=draw(shares))
    total = draw(st.integers(0, 9))
    scale = draw(st.sampled_from([0.5, 2.0, 8.0]))
    detailed = np.round(rng.normal(0, scale, q.n_cells)).astype(np.int64)
    groups = np.round(rng.normal(total / 2, scale, len(q.groups))).astype(np.int64)
    return cs.Measurement(detailed, groups, total, b)


def check_table(h, x, total):
    assert h.dtype == np.int64 and np.all(h >= 0) and h.sum() == total
    assert np.all(h >= np.floor(x + 1e-9)) and np.all(h <= np.ceil(x - 1e-9))


@given(m=measurements(SMALL))
def test_post_processing_gives_a_consistent_table_small(m):
    x = cs.least_squares_histogram(m, SMALL)
    assert np.all(x >= 0) and abs(x.sum() - m.total) < 1e-8
    check_table(cs.round_histogram(x, SMALL, total=m.total), x, m.total)


@settings(max_examples=profiles.size(fast=15, thorough=200))
@given(m=measurements(Q))
def test_post_processing_gives_a_consistent_table_full(m):
    x = cs.least_squares_histogram(m, Q)
    h = cs.round_histogram(x, Q, total=m.total)
    check_table(h, x, m.total)
    recs = cs.histogram_to_records(h, Q)
    assert len(recs) == m.total and all(not (a < 18 and married) for a, _, _, married in recs)


blocks = st.lists(st.sampled_from(CELLS), min_size=1, max_size=9)


@given(records=blocks, seed=st.integers(0, 2**32 - 1))
def test_zero_noise_limit_reproduces_the_block_and_its_statistics(records, seed):
    truth = tuple(sorted(records, key=attacks._key))
    rel = cs.release_block(records, math.inf, rng=np.random.default_rng(seed), queries=Q)
    assert rel.records == truth
    table = cs.published_table(rel.records, Q)
    assert [(s.label, s.count, s.median, s.mean) for s in table] == [tuple(r) for r in attacks.publish_block(truth)]


@settings(max_examples=profiles.size(fast=10, thorough=100))
@given(records=blocks, seed=st.integers(0, 2**32 - 1))
def test_zero_noise_limit_gives_the_attack_the_unprotected_table(records, seed):
    # Part I's attack is a function of the table alone, so the same table means the same reconstruction
    # (run on table 1 in tests/test_census.py)
    released = cs.release_block(records, math.inf, rng=np.random.default_rng(seed), queries=Q).records
    assert cs.published_table(released, Q, threshold=1) == cs.published_table(records, Q, threshold=1)


sigma_lists = st.lists(st.sampled_from([0.4, 0.9, 5.5]), min_size=1, max_size=5)


@given(sigmas=sigma_lists, e1=st.floats(0, 12), e2=st.floats(0, 12))
def test_composition_delta_is_a_profile(sigmas, e1, e2):
    lo, hi = sorted((e1, e2))
    d_lo, d_hi = cs.composition_delta(lo, sigmas), cs.composition_delta(hi, sigmas)
    assert 0 <= d_hi <= d_lo + 1e-15 <= 1 + 1e-12
    assert math.isclose(d_lo, cs.composition_delta(lo, sigmas[::-1]), rel_tol=1e-9, abs_tol=1e-30)


@given(sigmas=sigma_lists, extra=st.sampled_from([0.4, 0.9, 5.5]), eps=st.floats(0, 10))
def test_composition_delta_grows_with_each_mechanism(sigmas, extra, eps):
    # dropping a coordinate is post-processing, so it cannot raise delta (equal up to the 1e-30 truncation)
    assert cs.composition_delta(eps, sigmas) <= cs.composition_delta(eps, sigmas + [extra]) * (1 + 1e-9) + 1e-30


@given(sigmas=sigma_lists, log_delta=st.floats(-12, -1))
def test_exact_epsilon_never_exceeds_the_zcdp_conversion(sigmas, log_delta):
    delta = 10.0**log_delta
    rho = sum(1 / (2 * s * s) for s in sigmas)
    exact = cs.composition_epsilon(delta, sigmas)
    assert exact <= cs.zcdp_epsilon_cks(rho, delta) + 1e-9 <= comp.zcdp_to_dp(rho, delta) + 1e-9


@given(r1=rhos, r2=rhos, log_delta=st.floats(-14, -0.5))
def test_cks_conversion_is_monotone_in_rho(r1, r2, log_delta):
    assume(abs(r1 - r2) > 1e-9 * max(r1, r2))
    lo, hi = sorted((r1, r2))
    assert cs.zcdp_epsilon_cks(lo, 10.0**log_delta) <= cs.zcdp_epsilon_cks(hi, 10.0**log_delta)
