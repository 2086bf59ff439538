"""Unit tests of dpnotes.census.

Independent references: group counts and tables recomputed record by record in plain Python;
the noise by coupled seeds (the same draws from dpnotes.discrete directly); the least-squares
stage by its KKT conditions and by SLSQP on a small block; the rounding stage by enumerating
every choice on small blocks; the worst neighbouring pair by all pairs of cells; the privacy
profile by a brute-force double sum, by dpnotes.discrete's one-dimensional profile, and by
Google's dp_accounting; the Bureau's conversion by their bisection on the derivative in the
order, re-derived here. Hypothesis properties are in tests/test_props_census.py.
"""

import dataclasses
import itertools
import math
import re
import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy.optimize import brentq, minimize

from dpnotes import attacks
from dpnotes import census as cs
from dpnotes import composition as comp
from dpnotes import discrete as dsc
from dpnotes import loss

Q = cs.block_queries()
TRUTH = attacks.census_block_solutions()[0]
SMALL = cs.block_queries(age_max=3, adult_age=2)       # 4 ages: 4 * 8 - 2 * 4 = 24 cells


def group_count(stat, records, adult_age=18):
    """How many records a row of the table counts, by its filters, one record at a time."""
    n = 0
    for age, sex, race, married in records:
        ok = (stat.sex in (None, sex) and stat.race in (None, race) and (not stat.adult or age >= adult_age)
              and stat.married in (None, married) and (stat.min_age is None or age >= stat.min_age)
              and (stat.max_age is None or age <= stat.max_age))
        n += ok
    return n


def dg_variance(sigma):
    """Variance of N_Z(0, sigma^2) by a sum over |y| <= 20 sigma + 20 (the rest is below 1e-80)."""
    y = np.arange(-int(20 * sigma) - 20, int(20 * sigma) + 21)
    return float(np.sum(y * y * dsc.discrete_gaussian_pmf(y, sigma)))


def measurement(q, detailed, groups, total, rho=1.0, share=0.5):
    return cs.Measurement(np.asarray(detailed, dtype=np.int64), np.asarray(groups, dtype=np.int64), total,
                          cs.budget_split(rho, len(q.groups), detailed_share=share))


# ---------------------------------------------------------------- queries and histograms
def test_block_queries_cells_and_groups():
    assert Q.n_cells == 126 * 8 - 18 * 4                 # married minors are structural zeros
    assert not np.any((Q.cells[0] < 18) & Q.cells[3])
    assert Q.total.label == "1A" and [g.label for g in Q.groups] == [s.label for s in attacks.CENSUS_TABLE1[1:]]
    recs = list(zip(*(c.tolist() for c in Q.cells)))
    for k, g in enumerate(Q.groups):                     # membership, record by record
        assert Q.membership[k].tolist() == [group_count(g, [r]) == 1 for r in recs]


def test_block_queries_bad_input():
    with pytest.raises(ValueError, match="total population"):
        cs.block_queries(attacks.CENSUS_TABLE1[1:])
    with pytest.raises(ValueError, match="BlockStatistic"):
        cs.block_queries([("1A", 7)])
    with pytest.raises(ValueError, match="age_max"):
        cs.block_queries(age_max=0)
    with pytest.raises(ValueError, match="adult_age"):
        cs.block_queries(age_max=10, adult_age=11)
    with pytest.raises(ValueError, match="queries must be a BlockQueries"):
        cs.records_to_histogram(TRUTH, queries="table 1")


def test_histogram_round_trip_and_bad_records():
    h = cs.records_to_histogram(TRUTH, Q)
    assert h.sum() == 7 and cs.histogram_to_records(h, Q) == TRUTH
    for bad in [(8, "F", "B", True), (126, "F", "B", False), (30, "F", "A", False), (30, "F")]:
        with pytest.raises(ValueError, match="records must be"):
            cs.records_to_histogram([bad], Q)
    with pytest.raises(ValueError, match="histogram must be 936"):
        cs.histogram_to_records(np.zeros(10, dtype=int), Q)
    with pytest.raises(ValueError, match="non-negative integer"):
        cs.histogram_to_records(-np.eye(1, Q.n_cells, 3)[0], Q)
    with pytest.raises(ValueError, match="non-negative integer"):
        cs.histogram_to_records(0.5 * np.eye(1, Q.n_cells, 3)[0], Q)


# ---------------------------------------------------------------- budget
def test_budget_split_values_and_sigmas():
    b = cs.budget_split(3.0, 13, detailed_share=0.25)
    assert (b.rho, b.detailed_share, b.n_groups) == (3.0, 0.25, 13)
    assert b.rho_detailed == 0.75 and math.isclose(b.rho_group, 2.25 / 13, rel_tol=1e-15)
    assert math.isclose(math.fsum(b.shares), 3.0, rel_tol=1e-15) and b.shares.size == 14
    # sigma^2 = Delta^2 / (2 rho): Delta^2 = 2 for the histogram, 1 for a count; the smallest such double
    for sigma, var in ((b.sigma_detailed, 1 / Fraction(3, 4)), (b.sigma_group, 1 / (2 * Fraction(9, 52)))):
        assert Fraction(sigma) ** 2 >= var > Fraction(math.nextafter(sigma, 0)) ** 2
    assert math.isclose(b.sigma_detailed, math.sqrt(1 / 0.75), rel_tol=1e-15)
    inf = cs.budget_split(math.inf, 13)
    assert inf.sigma_detailed == inf.sigma_group == 0.0 and math.isinf(inf.rho_group)


@pytest.mark.parametrize("rho, k, share", [(3.0, 3, 0.1), (7.0, 13, 0.3), (float(cs.BUREAU_PERSONS_RHO), 13, 0.5)])
def test_budget_split_never_spends_more_than_rho(rho, k, share):
    # the first two overspent by an ulp when the split was done in floating point
    b = cs.budget_split(rho, k, detailed_share=share)
    assert 1 / Fraction(b.sigma_detailed) ** 2 + k / (2 * Fraction(b.sigma_group) ** 2) <= Fraction(rho)


@pytest.mark.parametrize("kwargs, match", [
    ({"rho": 0.0, "n_groups": 3}, "rho must be > 0"), ({"rho": -1.0, "n_groups": 3}, "rho must be > 0"),
    ({"rho": float("nan"), "n_groups": 3}, "rho"), ({"rho": 1.0, "n_groups": 0}, "n_groups"),
    ({"rho": 1.0, "n_groups": 3, "detailed_share": 1.0}, "detailed_share"),
    ({"rho": 1.0, "n_groups": 3, "detailed_share": 0.0}, "detailed_share")])
def test_budget_split_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cs.budget_split(**kwargs)


# ---------------------------------------------------------------- measurements: noise exact by coupled seeds
@pytest.mark.parametrize("rho, share", [(0.7, 0.5), (5.0, 0.9), (2.556, 0.2)])
def test_measure_block_noise_is_exactly_the_discrete_gaussian_draws(rho, share):
    m = cs.measure_block(TRUTH, rho, rng=np.random.default_rng(11), queries=Q, detailed_share=share)
    h = cs.records_to_histogram(TRUTH, Q)
    counts = np.array([group_count(g, TRUTH) for g in Q.groups])
    b = cs.budget_split(rho, 13, detailed_share=share)
    rng = np.random.default_rng(11)
    noise_h = dsc.discrete_gaussian_mechanism(np.zeros(Q.n_cells, dtype=np.int64), b.sigma_detailed, rng=rng)
    noise_g = dsc.discrete_gaussian_mechanism(np.zeros(13, dtype=np.int64), b.sigma_group, rng=rng)
    assert np.array_equal(m.detailed - h, noise_h) and np.array_equal(m.groups - counts, noise_g)
    assert m.total == 7 and m.budget == b
    assert np.any(noise_h != 0) and np.any(noise_g != 0)


def test_measure_block_without_noise_is_the_truth():
    m = cs.measure_block(TRUTH, math.inf, rng=np.random.default_rng(0), queries=Q)
    assert np.array_equal(m.detailed, cs.records_to_histogram(TRUTH, Q))
    assert m.groups.tolist() == [group_count(g, TRUTH) for g in Q.groups] == [4, 3, 4, 3, 2, 4, 3, 1, 2, 1, 0, 1, 2]


def test_measure_block_noise_scale_seeded():
    # the empirical variance of many cells' noise matches the discrete Gaussian's (within 5 standard errors)
    m = cs.measure_block(TRUTH, 0.5, rng=np.random.default_rng(3), queries=Q)
    noise = m.detailed - cs.records_to_histogram(TRUTH, Q)
    var = dg_variance(m.budget.sigma_detailed)
    assert abs(noise.var() - var) < 5 * var * math.sqrt(2 / noise.size)


def test_measure_block_bad_input():
    with pytest.raises(ValueError, match=r"^rng must be a numpy.random.Generator"):
        cs.measure_block(TRUTH, 1.0, rng=3, queries=Q)
    with pytest.raises(ValueError, match="rho"):
        cs.measure_block(TRUTH, -1.0, rng=np.random.default_rng(0), queries=Q)


# ---------------------------------------------------------------- least squares
def kkt_violation(x, m, q):
    """How far x is from the KKT conditions of the weighted least squares on the simplex (in people)."""
    wd, wg = 1 / m.budget.sigma_detailed**2, 1 / m.budget.sigma_group**2
    G = q.membership.astype(float)
    grad = wd * (x - m.detailed) + wg * G.T @ (G @ x - m.groups)
    on = x > 1e-9
    lam = grad[on].mean()
    return max(np.abs(grad[on] - lam).max() / wd, max(0.0, (lam - grad[~on]).max(initial=0.0)) / wd,
               abs(x.sum() - m.total), -min(0.0, x.min()))


@pytest.mark.parametrize("rho, seed", [(0.05, 0), (1.0, 1), (2.556, 2), (30.0, 3), (400.0, 4)])
def test_least_squares_meets_kkt(rho, seed):
    m = cs.measure_block(TRUTH, rho, rng=np.random.default_rng(seed), queries=Q)
    x = cs.least_squares_histogram(m, Q)
    assert kkt_violation(x, m, Q) < 1e-7


def test_least_squares_matches_slsqp_on_a_small_block():
    rng = np.random.default_rng(5)
    k = len(SMALL.groups)
    G = SMALL.membership.astype(float)
    for trial in range(6):
        m = measurement(SMALL, rng.integers(-2, 3, SMALL.n_cells), rng.integers(-1, 5, k), int(rng.integers(1, 6)),
                        rho=float(rng.choice([0.3, 2.0, 9.0])), share=float(rng.choice([0.2, 0.5, 0.8])))
        x = cs.least_squares_histogram(m, SMALL)
        wd, wg = 1 / m.budget.sigma_detailed**2, 1 / m.budget.sigma_group**2
        f = lambda h: wd * np.sum((h - m.detailed) ** 2) + wg * np.sum((G @ h - m.groups) ** 2)
        ref = minimize(f, np.full(SMALL.n_cells, m.total / SMALL.n_cells), method="SLSQP",
                       bounds=[(0, None)] * SMALL.n_cells,
                       constraints=[{"type": "eq", "fun": lambda h: h.sum() - m.total}],
                       options={"ftol": 1e-14, "maxiter": 1000})
        assert ref.success and f(x) <= f(ref.x) + 1e-7 and np.allclose(x, ref.x, atol=1e-5), trial


def test_least_squares_exact_and_empty():
    exact = cs.measure_block(TRUTH, math.inf, rng=np.random.default_rng(0), queries=Q)
    assert np.array_equal(cs.least_squares_histogram(exact, Q), cs.records_to_histogram(TRUTH, Q))
    empty = measurement(Q, np.zeros(Q.n_cells), np.zeros(13), 0)
    assert np.array_equal(cs.least_squares_histogram(empty, Q), np.zeros(Q.n_cells))


def test_least_squares_bad_input():
    m = cs.measure_block(TRUTH, 1.0, rng=np.random.default_rng(0), queries=Q)
    with pytest.raises(ValueError, match="measurement must be a Measurement"):
        cs.least_squares_histogram(m.detailed, Q)
    with pytest.raises(ValueError, match="one count per cell"):
        cs.least_squares_histogram(m, SMALL)
    with pytest.raises(ValueError, match="tol"):
        cs.least_squares_histogram(m, Q, tol=0.0)
    broken = dataclasses.replace(cs.measure_block(TRUTH, math.inf, rng=np.random.default_rng(0), queries=Q), total=6)
    with pytest.raises(ValueError, match="invariant total"):
        cs.least_squares_histogram(broken, Q)


# ---------------------------------------------------------------- rounding
def brute_force_rounding(x, q, n):
    """The smallest L1 objective over every way to round each fractional cell down or up, with the right total."""
    G = q.membership.astype(float)
    floor = np.floor(x)
    free = np.nonzero(x > floor)[0]
    best = math.inf
    for up in itertools.combinations(free, n - int(floor.sum())):
        h = floor.copy()
        h[list(up)] += 1
        best = min(best, np.abs(h - x).sum() + np.abs(G @ h - G @ x).sum())
    return best


def test_round_histogram_is_optimal_on_small_blocks():
    rng = np.random.default_rng(9)
    G = SMALL.membership.astype(float)
    for trial in range(25):
        n = int(rng.integers(1, 6))
        x = rng.dirichlet(np.full(SMALL.n_cells, 0.3)) * n
        x[rng.random(SMALL.n_cells) < 0.5] = 0.0
        x *= n / x.sum()
        h = cs.round_histogram(x, SMALL, total=n)
        assert h.dtype == np.int64 and h.sum() == n and np.all(h >= np.floor(x)) and np.all(h <= np.ceil(x))
        value = np.abs(h - x).sum() + np.abs(G @ h - G @ x).sum()
        assert value <= brute_force_rounding(x, SMALL, n) + 1e-9, trial


def test_round_histogram_integers_and_bad_input():
    x = np.zeros(Q.n_cells)
    x[[3, 9]] = [2.0, 1.0 - 1e-12]                      # integers up to 1e-9 stay as they are
    assert cs.round_histogram(x, Q).tolist() == np.where(np.arange(Q.n_cells) == 3, 2,
                                                         np.where(np.arange(Q.n_cells) == 9, 1, 0)).tolist()
    with pytest.raises(ValueError, match="non-negative"):
        cs.round_histogram(-x, Q)
    with pytest.raises(ValueError, match="936"):
        cs.round_histogram(x[:5], Q)
    with pytest.raises(ValueError, match="sum to total"):
        cs.round_histogram(x, Q, total=4)
    with pytest.raises(ValueError, match="total"):
        cs.round_histogram(x, Q, total=-1)


# ---------------------------------------------------------------- release, table, attack
def test_release_without_noise_reproduces_the_block_and_the_attack():
    rel = cs.release_block(TRUTH, math.inf, rng=np.random.default_rng(0), queries=Q)
    assert rel.records == TRUTH
    table = cs.published_table(rel.records, Q)
    assert table == attacks.CENSUS_TABLE1
    assert attacks.census_block_solutions(table) == [TRUTH]


def test_published_table_matches_a_plain_count():
    rel = cs.release_block(TRUTH, 1.5, rng=np.random.default_rng(4), queries=Q)
    table = cs.published_table(rel.records, Q, threshold=1)
    for row in table:
        n = group_count(row, rel.records)
        assert row.count == (n if n >= 1 else None)
    with pytest.raises(ValueError, match="threshold"):
        cs.published_table(rel.records, Q, threshold=0)


def test_people_recovered_counts_a_multiset_intersection():
    a = [(30, "M", "W", True)] * 2 + [(8, "F", "B", False)]
    assert cs.people_recovered(a, [(30, "M", "W", True)] * 3) == 2
    assert cs.people_recovered(a, a) == 3 and cs.people_recovered(a, []) == 0


def test_reconstruction_study_shapes_and_the_unprotected_limit():
    s = cs.reconstruction_study(TRUTH, [math.inf, 0.05], [0, 1], attack_seeds=[1], queries=Q, max_solutions=2)
    assert s.in_release.shape == s.n_solutions.shape == (2, 2) and s.count_error.shape == (2, 2, 14)
    assert s.in_release[0].tolist() == [7, 7] and s.n_solutions[0].tolist() == [-1, 1] and s.recovered[0, 1] == 7
    assert np.isnan(s.recovered[:, 0]).all() and np.all(s.count_error[0] == 0)
    assert np.all(s.count_error[:, :, 0] == 0)            # the total is invariant
    assert s.true_counts.tolist() == [group_count(r, TRUTH) for r in attacks.CENSUS_TABLE1]
    # each attacked release: its own records are a solution; with one solution the attack recovers them
    assert 1 <= s.n_solutions[1, 1] <= 2
    if s.n_solutions[1, 1] == 1:
        assert s.recovered[1, 1] == s.in_release[1, 1]


def test_reconstruction_study_averages_over_the_solutions():
    # three single White men with median 30 and mean 44: the attack finds every {A, 30, 102 - A}, A = 18..30
    BS = attacks.BlockStatistic
    stats = (BS("T", "total", 3, 30, 44), BS("2B", "male", 3, 30, 44, sex="M"), BS("2D", "White", 3, 30, 44, race="W"),
             BS("3A", "single adults", 3, 30, 44, adult=True, married=False))
    q = cs.block_queries(stats, age_max=90)
    truth = ((20, "M", "W", False), (30, "M", "W", False), (82, "M", "W", False))
    s = cs.reconstruction_study(truth, [math.inf], [0], queries=q, max_solutions=20)
    # 13 solutions: the block itself (3 people right) and 12 others that share only the man of 30
    assert s.n_solutions[0, 0] == 13 and math.isclose(s.recovered[0, 0], (3 + 12 * 1) / 13)


def test_reconstruction_study_bad_input():
    with pytest.raises(ValueError, match="attack_seeds"):
        cs.reconstruction_study(TRUTH, [1.0], [0], attack_seeds=[1])
    with pytest.raises(ValueError, match="seeds"):
        cs.reconstruction_study(TRUTH, [1.0], [-1])
    with pytest.raises(ValueError, match="non-empty"):
        cs.reconstruction_study(TRUTH, [], [0])
    with pytest.raises(ValueError, match="max_solutions"):
        cs.reconstruction_study(TRUTH, [1.0], [0], max_solutions=0)


# ---------------------------------------------------------------- accounting
def test_max_groups_moved_by_all_pairs_of_cells():
    M = Q.membership.astype(np.int64)
    moved = max(int(np.abs(M[:, [c]] - M).sum(axis=0).max()) for c in range(Q.n_cells))
    assert cs.max_groups_moved(Q) == moved == 10
    assert cs.max_groups_moved(SMALL) <= len(SMALL.groups)


def test_release_sigmas_and_bad_input():
    b = cs.budget_split(1.0, 13)
    s = cs.release_sigmas(b, 13)
    assert s.size == 15 and math.isclose(np.sum(1 / s**2) / 2, 1.0, rel_tol=1e-12)   # mu^2 / 2 = rho
    with pytest.raises(ValueError, match="groups_moved"):
        cs.release_sigmas(b, 14)
    with pytest.raises(ValueError, match="finite Budget"):
        cs.release_sigmas(cs.budget_split(math.inf, 13), 1)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.5, 17.0])
def test_composition_delta_of_one_coordinate_is_the_discrete_gaussian_profile(sigma):
    eps = np.array([0.0, 0.1, 0.7, 2.0, 1 / (2 * sigma**2) + 0.3])
    got = cs.composition_delta(eps, [sigma])
    ref = dsc.discrete_gaussian_delta(sigma, eps)
    # equal to 1e-10 relative, except that mass beyond the truncation (below tail = 1e-30) is left out
    assert np.all(got <= ref * (1 + 1e-10)) and np.all(got >= ref * (1 - 1e-10) - 1e-30)
    assert np.allclose(got[ref > 1e-20], ref[ref > 1e-20], rtol=1e-10, atol=0)


def test_composition_delta_brute_force_two_unequal_coordinates():
    s1, s2 = 0.7, 1.9
    y1, y2 = np.arange(-30, 32), np.arange(-80, 82)
    p = np.outer(dsc.discrete_gaussian_pmf(y1, s1), dsc.discrete_gaussian_pmf(y2, s2))
    qq = np.outer(dsc.discrete_gaussian_pmf(y1 - 1, s1), dsc.discrete_gaussian_pmf(y2 - 1, s2))
    for eps in (0.0, 0.4, 1.3, 3.0, 6.0):
        ref = np.maximum(p - math.exp(eps) * qq, 0).sum()
        assert math.isclose(cs.composition_delta(eps, [s1, s2]), ref, rel_tol=1e-9)


@pytest.mark.parametrize("rho, share, moved", [(2.0, 0.6, 13), (float(cs.BUREAU_PERSONS_RHO), 0.5, 13),
                                               (float(cs.BUREAU_PERSONS_RHO), 0.5, 10)])
def test_composition_delta_against_dp_accounting(rho, share, moved):
    from dp_accounting.pld import privacy_loss_distribution as pld

    sigmas = cs.release_sigmas(cs.budget_split(rho, 13, detailed_share=share), moved)
    acc = None
    for s in sigmas:
        one = pld.from_discrete_gaussian_mechanism(float(s), sensitivity=1, value_discretization_interval=1e-4)
        acc = one if acc is None else acc.compose(one)
    for eps in (0.5, 4.0, 9.0):
        ours, theirs = cs.composition_delta(eps, sigmas), acc.get_delta_for_epsilon(eps)
        # dp_accounting rounds each loss up to a 1e-4 grid (pessimistic): never below ours, and within
        # the delta of an epsilon (number of coordinates) x 1e-4 smaller
        assert ours <= theirs <= cs.composition_delta(eps - sigmas.size * 1e-4, sigmas) + 1e-15
    e_ours, e_theirs = cs.composition_epsilon(1e-10, sigmas), acc.get_epsilon_for_delta(1e-10)
    assert e_ours <= e_theirs <= e_ours + sigmas.size * 1e-4


def test_composition_delta_extremes_and_epsilon_round_trip():
    assert cs.composition_delta(0.0, [0.05]) == pytest.approx(1.0, abs=1e-12)      # tiny noise: no privacy
    assert cs.composition_delta(5.0, [60.0] * 3) == 0.0 or cs.composition_delta(5.0, [60.0] * 3) < 1e-30
    big = cs.composition_delta(0.0, [60.0, 60.0])                                 # huge noise: TV distance small
    assert 0 < big < 0.02
    for d in (1e-12, 1e-6, 0.1):
        e = cs.composition_epsilon(d, [0.9, 0.9, 2.2, 2.2, 2.2])
        assert math.isclose(cs.composition_delta(e, [0.9, 0.9, 2.2, 2.2, 2.2]), d, rel_tol=1e-8)
    assert cs.composition_epsilon(0.999, [3.0]) == 0.0


@pytest.mark.parametrize("call, match", [
    (lambda: cs.composition_delta(-0.1, [1.0]), "epsilon"), (lambda: cs.composition_delta(1.0, [0.0]), "sigmas"),
    (lambda: cs.composition_delta(1.0, []), "sigmas"), (lambda: cs.composition_delta(1.0, [1, 2, 3, 4]), "3 distinct"),
    (lambda: cs.composition_delta(1.0, [1.0], tail=0.1), "tail"), (lambda: cs.composition_epsilon(0.0, [1.0]), "delta"),
    (lambda: cs.composition_delta(1.0, "ab"), "sigmas")])
def test_accounting_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def bureau_bisection(rho, delta):
    """The Bureau's curve.py method, re-derived: log delta(eps) = min_a g(a), minimized where g'(a) = 0."""
    def log_delta(eps):
        g = lambda a: (a - 1) * (a * rho - eps) + a * math.log1p(-1 / a) - math.log(a - 1)
        dg = lambda a: (2 * a - 1) * rho - eps + math.log1p(-1 / a)
        a = brentq(dg, 1 + 1e-12, 1e7)
        return g(a)
    return brentq(lambda e: log_delta(e) - math.log(delta), rho, rho + 10 * math.sqrt(rho * math.log(1 / delta)) + 10,
                  xtol=1e-13)


@pytest.mark.parametrize("rho, delta", [(float(cs.BUREAU_PERSONS_RHO), 1e-10), (0.07, 1e-10), (0.01, 1e-5),
                                        (1.0, 0.3), (50.0, 1e-12), (1e-3, 1e-3)])
def test_zcdp_epsilon_cks_is_the_bureaus_conversion(rho, delta):
    ours = cs.zcdp_epsilon_cks(rho, delta)
    ref = bureau_bisection(rho, delta)
    # a grid of orders can only overshoot the infimum; relative spacing 2e-4 puts it within 1e-7 (relative)
    assert ref - 1e-9 <= ours <= ref * (1 + 1e-7) + 1e-12
    assert ours < comp.zcdp_to_dp(rho, delta)                 # tighter than Bun and Steinke's conversion


def test_bureau_constants_from_the_production_configuration():
    assert cs.BUREAU_PERSONS_RHO == Fraction(542, 339) ** 2 and cs.BUREAU_DELTA == 1e-10
    assert sum(cs.BUREAU_GEOLEVEL_SHARES.values()) == 1
    assert list(cs.BUREAU_GEOLEVEL_SHARES) == ["US", "State", "County", "Tract", "Block_Group", "Block"]
    # the strategy: each level's query shares add up to 1 (a transcription typo would break this)
    shares = cs.BUREAU_PERSONS_QUERY_SHARES
    assert list(shares) == list(cs.BUREAU_GEOLEVEL_SHARES) and all(sum(v.values()) == 1 for v in shares.values())
    assert [len(v) for v in shares.values()] == [10, 11, 11, 11, 11, 11] and "total" not in shares["US"]
    assert shares["Block"]["detailed"] == Fraction(3945, 4097) and shares["State"]["total"] == Fraction(3773, 4097)
    rho_q = [cs.BUREAU_PERSONS_RHO * cs.BUREAU_GEOLEVEL_SHARES[g] * s for g in shares for s in shares[g].values()]
    assert sum(rho_q) == cs.BUREAU_PERSONS_RHO and min(rho_q) > 0


def test_exact_accounting_is_below_the_conversion():
    # Gaussian-equivalent exact epsilon <= the Bureau's conversion of the same rho (zCDP is a valid bound)
    for rho in (0.05, 1.0, float(cs.BUREAU_PERSONS_RHO), 20.0):
        mu = math.sqrt(2 * rho)
        assert loss.gaussian_epsilon(1e-10, mu) < cs.zcdp_epsilon_cks(rho, 1e-10)
        sig = cs.release_sigmas(cs.budget_split(rho, 13), 13)
        assert cs.composition_epsilon(1e-10, sig) < cs.zcdp_epsilon_cks(rho, 1e-10)


def test_round_histogram_keeps_the_total_when_rounding_up_costs():
    # three cells at 1/3: every cell that goes up raises the L1 distance of its own cell and of the groups
    # it alone is in by 1/3 each, and lowers only the shared groups' distance, so rounding up costs more
    # than it saves; only the invariant (one person) forces it, and the optimum rounds up exactly one
    cells = [(30, "M", "W", False), (2, "M", "B", False), (70, "F", "B", True)]
    idx = [Q.index[c] for c in cells]
    x = np.zeros(Q.n_cells)
    x[idx] = 1 / 3
    G = Q.membership.astype(float)
    h = cs.round_histogram(x, Q, total=1)
    assert h.sum() == 1 and h[idx].sum() == 1
    assert np.abs(h - x).sum() + np.abs(G @ h - G @ x).sum() <= brute_force_rounding(x, Q, 1) + 1e-12
    zero = np.zeros(Q.n_cells)                           # ... and costs more than leaving everything down
    assert np.abs(h - x).sum() + np.abs(G @ h - G @ x).sum() > np.abs(zero - x).sum() + np.abs(G @ zero - G @ x).sum()


def test_reconstruction_study_count_error_is_protected_minus_true():
    s = cs.reconstruction_study(TRUTH, [0.5, 3.0], [4, 6], attack_seeds=[], queries=Q)
    for i, rho in enumerate([0.5, 3.0]):
        for j, seed in enumerate([4, 6]):
            rel = cs.release_block(TRUTH, rho, rng=np.random.default_rng(seed), queries=Q)
            want = [group_count(r, rel.records) - group_count(r, TRUTH) for r in attacks.CENSUS_TABLE1]
            assert s.count_error[i, j].tolist() == want
            assert s.in_release[i, j] == len(set(rel.records) & set(TRUTH))   # TRUTH has no repeated record
    assert np.any(s.count_error > 0) and np.any(s.count_error < 0)           # the sign is exercised


@pytest.mark.parametrize("sigma", [0.6, 1.0, 3.0, 17.0])
def test_composition_delta_keeps_the_far_tail(sigma):
    # at these epsilon only outcomes 8 to 10 sigma out count (delta between 1e-31 and 1e-13): a truncation
    # coarser than the documented 1e-30 of mass (say 1e-10) returns 0 here. Tolerance: relative 1e-6
    # plus the documented 1e-30 (the cumulative sums cancel to about 1e-32 absolute)
    eps = np.array([(1 + 2 * t * sigma) / (2 * sigma**2) for t in (8.0, 9.0, 10.0)])
    ref = dsc.discrete_gaussian_delta(sigma, eps)
    assert np.all((ref > 1e-31) & (ref < 1e-13))
    got = cs.composition_delta(eps, [sigma])
    assert np.all(got <= ref * (1 + 1e-6)) and np.all(got >= ref * (1 - 1e-6) - 1e-30)


# ---------------------------------------------------------------- gaps found by mutation testing (make mutation)
def test_shares_name_the_queries_of_each_level_in_order():
    # the helper behind BUREAU_PERSONS_QUERY_SHARES, called here (the constant is built once at import).
    # Distinct fractions show which name gets which share: strategies.py lists the queries in the order
    # total, cenrace, ..., detailed, and the nation (US) has no total
    names = ["total", "cenrace", "hispanic", "votingage", "hhinstlevels", "hhgq", "hispanic * cenrace",
             "votingage * cenrace", "votingage * hispanic", "votingage * hispanic * cenrace", "detailed"]
    state = cs._shares("State", *[(i, 66) for i in range(1, 12)])
    assert list(state.items()) == [(n, Fraction(i, 66)) for i, n in enumerate(names, start=1)]
    assert all(type(v) is Fraction for v in state.values())
    us = cs._shares("US", *[(i, 55) for i in range(1, 11)])
    assert list(us.items()) == [(n, Fraction(i, 55)) for i, n in enumerate(names[1:], start=1)]
    with pytest.raises(ValueError):                       # one share too many for the nation: refused
        cs._shares("US", *[(1, 66)] * 11)
    with pytest.raises(ValueError):                       # one too few for a state
        cs._shares("State", *[(1, 55)] * 10)


def test_max_groups_moved_of_a_small_table_by_all_pairs_of_cells():
    # not the default queries (10): the small table's own worst pair, recounted cell pair by cell pair
    M = SMALL.membership.astype(np.int64)
    moved = max(int(np.abs(M[:, [c]] - M).sum(axis=0).max()) for c in range(SMALL.n_cells))
    assert cs.max_groups_moved(SMALL) == moved
    assert moved != cs.max_groups_moved(Q)


def test_release_sigmas_with_no_group_moved_and_negative_counts():
    b = cs.budget_split(3.0, 4, detailed_share=0.25)
    assert cs.release_sigmas(b, 0).tolist() == [b.sigma_detailed] * 2          # only the two cells move
    assert cs.release_sigmas(b, 4).tolist() == [b.sigma_detailed] * 2 + [b.sigma_group] * 4
    with pytest.raises(ValueError, match="^groups_moved must be"):
        cs.release_sigmas(b, -1)
    with pytest.raises(ValueError, match=r"^budget must be a finite Budget \(from budget_split\)$"):
        cs.release_sigmas(cs.budget_split(math.inf, 4), 1)
    with pytest.raises(ValueError, match=r"^budget must be a finite Budget \(from budget_split\)$"):
        cs.release_sigmas("rho = 3", 1)


@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5, -0.1])
def test_epsilon_conversions_refuse_delta_outside_the_open_unit_interval(delta):
    # composition_epsilon(1, ...) would otherwise return 0.0 (delta(0) <= 1 always)
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\)"):
        cs.composition_epsilon(delta, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\)"):
        cs.zcdp_epsilon_cks(0.5, delta)


def test_max_groups_moved_counts_repeated_rows_twice():
    # a table may publish the same group under two labels: a replaced record then moves both counts.
    # Male, male again, White: a White man replaced by a Black woman moves all three
    BS = attacks.BlockStatistic
    stats = (BS("T", "total", 3, None, None), BS("M1", "male", 1, None, None, sex="M"),
             BS("M2", "men again", 1, None, None, sex="M"), BS("W", "White", 1, None, None, race="W"))
    q = cs.block_queries(stats, age_max=3, adult_age=2)
    M = q.membership.astype(np.int64)
    moved = max(int(np.abs(M[:, [c]] - M).sum(axis=0).max()) for c in range(q.n_cells))
    assert cs.max_groups_moved(q) == moved == 3


def test_composition_delta_epsilon_checks_and_empty_input():
    for bad in (math.inf, math.nan, [0.5, math.inf]):     # refused with this function's own message
        with pytest.raises(ValueError, match=r"^epsilon must be >= 0 and finite"):
            cs.composition_delta(bad, [1.0, 2.0])
    out = cs.composition_delta([], [1.0, 2.0])            # an empty array of epsilons gives an empty array
    assert isinstance(out, np.ndarray) and out.shape == (0,)


@pytest.mark.parametrize("tail", [0.0, -1e-30, 0.1, 2e-6])
def test_accounting_refuses_a_tail_outside_its_range(tail):
    # tail = 0 would divide by zero in the truncation; a tail above 1e-6 is coarser than documented
    with pytest.raises(ValueError, match="^tail must be"):
        cs.composition_delta(1.0, [1.0, 2.0], tail=tail)
    with pytest.raises(ValueError, match="^tail must be"):
        cs.composition_epsilon(1e-6, [1.0, 2.0], tail=tail)


def test_composition_epsilon_below_one():
    # a target reached between epsilon = 0 and 1: one coordinate of sigma = 5, delta = 0.01; the reference
    # solves dpnotes.discrete's one-dimensional profile (a separate formula) with scipy's brentq
    ref = brentq(lambda e: dsc.discrete_gaussian_delta(5.0, e) - 0.01, 0.0, 1.0, xtol=1e-14)
    got = cs.composition_epsilon(0.01, [5.0])
    assert 0.1 < ref < 0.9 and math.isclose(got, ref, rel_tol=1e-9)


def true_two_sided_tail(T, sigma):
    """Pr[|Y| > T] for Y ~ N_Z(0, sigma^2), by direct summation of the pmf (the rest is below 1e-80)."""
    y = np.arange(T + 1, T + 61 + int(40 * sigma))
    return 2 * math.fsum(dsc.discrete_gaussian_pmf(y, sigma).tolist())


@pytest.mark.parametrize("sigma, m, cut_max", [(0.1, 1, 1e-30), (0.5, 13, 1e-30), (0.5, 13, 1e-12), (0.9, 2, 1e-6),
                                               (2.5, 5, 1e-12), (17.0, 2, 1e-6)])
def test_sum_law_truncation_is_sound_and_tight(sigma, m, cut_max):
    # _sum_law keeps |y| <= T per coordinate: the mass it leaves out, m Pr[|Y| > T] summed directly, must
    # be within cut_max (composition_delta's documented error), and T must not be needlessly large
    support, law, bound = cs._sum_law(sigma, m, cut_max)
    T = int(support[-1]) // m
    assert support.tolist() == list(range(-m * T, m * T + 1))
    left_out = m * true_two_sided_tail(T, sigma)
    assert left_out <= bound * (1 + 1e-9) and bound <= cut_max
    t_min = 1                                            # the smallest sound T (T >= 1 by design)
    while m * true_two_sided_tail(t_min, sigma) > cut_max:
        t_min += 1
    assert t_min <= T <= 1.1 * t_min + 1
    if sigma <= 1.0:                                     # small noise: exactly the smallest (the guess, then
        assert T == t_min                                # one step up at sigma = 0.5, m = 13, 1e-30)
    # the law of the sum: the truncated pmf convolved m times, checked for m = 2 by the double sum
    p = dsc.discrete_gaussian_pmf(np.arange(-T, T + 1), sigma)
    assert math.isclose(law.sum(), p.sum() ** m, rel_tol=1e-12)
    if m == 2:
        two = [math.fsum(p[i] * p[s - i] for i in range(2 * T + 1) if 0 <= s - i <= 2 * T) for s in range(4 * T + 1)]
        assert np.allclose(law, two, rtol=1e-12, atol=0)


def test_composition_delta_at_the_largest_loss_of_a_tiny_noise():
    # sigma = 0.1: the losses are (1 - 2y) / 0.02, i.e. 150, 50, -50 for y = -1, 0, 1; at epsilon = 100 only
    # the top atom (y = -1, mass about 2e-22) counts. Reference: dpnotes.discrete's profile; relative 1e-10
    ref = dsc.discrete_gaussian_delta(0.1, 100.0)
    assert 1e-23 < ref < 1e-21
    assert math.isclose(cs.composition_delta(100.0, [0.1]), ref, rel_tol=1e-10)


def test_composition_delta_with_a_coarse_tail_stays_within_it():
    # the documented error: at most tail below the exact value (here the value at the default 1e-30,
    # itself checked against brute force, dp_accounting and dpnotes.discrete above); the mass left out is
    # shared between the distinct sigmas, so with tail 1e-6 the error is visible but bounded
    sig = [0.8] * 5 + [2.0] * 3
    for eps in (0.5, 2.0, 4.0):
        fine, coarse = cs.composition_delta(eps, sig), cs.composition_delta(eps, sig, tail=1e-6)
        assert fine - 1e-6 <= coarse <= fine * (1 + 1e-12)
    with pytest.raises(ValueError, match=r"^sigmas must hold at most 3 distinct values \(the atoms multiply\)$"):
        cs.composition_delta(1.0, [1.0, 2.0, 3.0, 4.0])


def test_reconstruction_study_input_checks_and_own_queries():
    with pytest.raises(ValueError, match=r"^rhos and seeds must be non-empty 1-D sequences$"):
        cs.reconstruction_study(TRUTH, [1.0], [])
    with pytest.raises(ValueError, match=r"^rhos and seeds must be non-empty 1-D sequences$"):
        cs.reconstruction_study(TRUTH, [1.0], [[0, 1]])
    with pytest.raises(ValueError, match=r"^rhos must have entries > 0"):        # before any release is made
        cs.reconstruction_study(TRUTH, [2.0, 0.0], [0])
    # the study tabulates the rows of the queries it is given, not table 1's 14
    BS = attacks.BlockStatistic
    stats = (BS("T", "total", 2, None, None), BS("F", "female", 1, None, None, sex="F"),
             BS("W", "White", 1, None, None, race="W"))
    q = cs.block_queries(stats, age_max=40)
    truth = ((20, "F", "B", False), (35, "M", "W", True))
    s = cs.reconstruction_study(truth, [math.inf], [0], attack_seeds=[], queries=q)
    assert s.count_error.shape == (1, 1, 3) and s.true_counts.tolist() == [2, 1, 1]


def test_reconstruction_study_checks_its_own_parameters_and_types():
    with pytest.raises(ValueError, match=r"^attack_seeds must be an integer >= 0, got -1$"):
        cs.reconstruction_study(TRUTH, [1.0], [0], attack_seeds=[-1])
    with pytest.raises(ValueError, match=r"^attack_seeds must be a subset of seeds$"):
        cs.reconstruction_study(TRUTH, [1.0], [0], attack_seeds=[3])
    with pytest.raises(ValueError, match=r"^max_solutions must be an integer >= 1, got 0$"):   # even with no attack
        cs.reconstruction_study(TRUTH, [1.0], [0], attack_seeds=[], max_solutions=0)
    s = cs.reconstruction_study(TRUTH, [math.inf], [0], queries=Q, max_solutions=1)           # the smallest cap
    assert s.n_solutions.tolist() == [[1]] and s.recovered.tolist() == [[7.0]]
    # the documented integer arrays (counts of people and of solutions)
    assert s.in_release.dtype == s.n_solutions.dtype == s.count_error.dtype == np.int64


def test_reconstruction_study_attacks_with_the_queries_ages():
    # three single White men, median and mean 30, and a row "26 or over: 2" that table 1 does not have.
    # The attack must use the study's own rows, age_max and adult_age; the expected solutions are the sorted
    # age triples that meet every row, enumerated directly
    BS = attacks.BlockStatistic
    stats = (BS("T", "total", 3, 30, 30), BS("2B", "male", 3, 30, 30, sex="M"), BS("2D", "White", 3, 30, 30, race="W"),
             BS("3A", "single adults", 3, 30, 30, adult=True, married=False),
             BS("O", "26 or over", 2, None, None, min_age=26))
    truth = ((25, "M", "W", False), (30, "M", "W", False), (35, "M", "W", False))

    def triples(age_max, adult_age):
        return [t for t in itertools.combinations_with_replacement(range(age_max + 1), 3)
                if t[1] == 30 and sum(t) == 90 and t[0] >= adult_age and sum(a >= 26 for a in t) == 2]

    for age_max, adult_age, cap in ((36, 22, 20), (40, 23, 20), (40, 23, 2)):
        ages = triples(age_max, adult_age)
        # age_max binds in the first case (24 + 36 = 60), adult_age in the second
        assert [t[0] for t in ages] == ([24, 25] if age_max == 36 else [23, 24, 25])
        q = cs.block_queries(stats, age_max=age_max, adult_age=adult_age)
        s = cs.reconstruction_study(truth, [math.inf], [7], queries=q, max_solutions=cap)
        assert s.rhos.tolist() == [math.inf] and s.seeds.tolist() == [7]
        assert s.n_solutions[0, 0] == min(len(ages), cap)
        if cap >= len(ages):          # the truth (3 people right) and the others, which share only the man of 30
            assert math.isclose(s.recovered[0, 0], (3 + (len(ages) - 1)) / len(ages))


def test_published_table_uses_the_queries_rows_and_adult_age():
    # adult_age 21: the single 19-year-old is not a single adult here (he would be under table 1's 18)
    BS = attacks.BlockStatistic
    stats = (BS("T", "total", 3, None, None), BS("A", "single adults", 1, None, None, adult=True, married=False),
             BS("F", "female", 1, None, None, sex="F"))
    q = cs.block_queries(stats, age_max=40, adult_age=21)
    recs = [(19, "M", "W", False), (25, "M", "B", False), (33, "F", "B", True)]
    table = cs.published_table(recs, q, threshold=1)
    assert [r.label for r in table] == ["T", "A", "F"]
    assert [r.count for r in table] == [group_count(s, recs, adult_age=21) for s in stats] == [3, 1, 1]


def test_block_queries_limits_and_messages():
    # the extreme ages allowed: age_max 1 to 200, adult_age 0 (nobody is a minor) to age_max
    assert cs.block_queries(age_max=1, adult_age=1).n_cells == 2 * 8 - 1 * 4
    assert cs.block_queries(age_max=3, adult_age=0).n_cells == 4 * 8
    assert cs.block_queries(age_max=200).n_cells == 201 * 8 - 18 * 4
    with pytest.raises(ValueError, match=r"^age_max must be an integer in \[1, 200\], got 201$"):
        cs.block_queries(age_max=201)
    with pytest.raises(ValueError, match=r"^adult_age must be an integer in \[0, 125\], got -1$"):
        cs.block_queries(adult_age=-1)
    with pytest.raises(ValueError, match=r"^statistics must be a non-empty sequence of BlockStatistic$"):
        cs.block_queries([])
    with pytest.raises(ValueError, match=r"^statistics must include the total population \(a row with no filter\)$"):
        cs.block_queries(attacks.CENSUS_TABLE1[1:])


def test_block_queries_of_a_table_with_only_the_total():
    # no group counts: an empty membership matrix with one column per cell (numpy's reshape(0, -1) used to
    # refuse the empty array), and no group moves between neighbours
    q = cs.block_queries(attacks.CENSUS_TABLE1[:1])
    assert q.groups == () and q.membership.shape == (0, 936) and q.membership.dtype == bool
    assert cs.max_groups_moved(q) == 0


def test_simplex_shift_is_the_projection_onto_the_simplex():
    # theta solves sum(max(0, y + theta)) = total: checked by the sum itself, and against a bisection on
    # that (monotone) sum, on unsorted, asymmetric inputs
    rng = np.random.default_rng(2)
    for trial in range(20):
        y = rng.normal(0, 3, int(rng.integers(1, 40))).round(int(rng.integers(0, 3)))
        total = float(rng.choice([0.5, 3.0, 7.0, 40.0]))
        theta = cs._simplex_shift(y, total)
        assert math.isclose(np.maximum(0.0, y + theta).sum(), total, rel_tol=1e-12), trial
        ref = brentq(lambda t: np.maximum(0.0, y + t).sum() - total, -y.max(), total - y.min(), xtol=1e-14)
        assert math.isclose(theta, ref, rel_tol=1e-9, abs_tol=1e-12), trial


def test_release_block_keeps_each_stage():
    # the release is the measurement (same seed), its least-squares fit and the rounding of that fit
    rel = cs.release_block(TRUTH, 1.3, rng=np.random.default_rng(21), queries=Q, detailed_share=0.35)
    m = cs.measure_block(TRUTH, 1.3, rng=np.random.default_rng(21), queries=Q, detailed_share=0.35)
    assert np.array_equal(rel.measurement.detailed, m.detailed) and np.array_equal(rel.measurement.groups, m.groups)
    assert rel.measurement.budget == m.budget and rel.measurement.total == 7
    x = cs.least_squares_histogram(m, Q)
    assert np.array_equal(rel.least_squares, x)
    assert np.array_equal(rel.histogram, cs.round_histogram(x, Q, total=7))
    assert rel.records == cs.histogram_to_records(rel.histogram, Q)


def test_round_histogram_input_edges():
    msg = r"^x must be 936 non-negative finite numbers$"
    for bad in (np.inf, np.nan, -0.5):                      # refused with the function's own message
        x = np.zeros(Q.n_cells)
        x[[4, 7]] = [bad, 1.0]
        with pytest.raises(ValueError, match=msg):
            cs.round_histogram(x, Q)
    with pytest.raises(ValueError, match=msg):
        cs.round_histogram([], Q)
    # rounding error below 1e-12 is tolerated, 2e-12 is not
    x = np.zeros(Q.n_cells)
    x[[4, 7]] = [-1e-12, 1.0]
    assert cs.round_histogram(x, Q, total=1)[[4, 7]].tolist() == [0, 1]
    x[4] = -2e-12
    with pytest.raises(ValueError, match=msg):
        cs.round_histogram(x, Q, total=1)
    # the sum may miss the total by 1e-6 (here exactly: one cell of 1e-6, total 0), not by 0.5
    x = np.zeros(Q.n_cells)
    x[5] = 1e-6
    assert not cs.round_histogram(x, Q, total=0).any()
    x[5] = 2.5
    with pytest.raises(ValueError, match=r"^x must sum to total = 2, got 2\.5$"):
        cs.round_histogram(x, Q, total=2)
    with pytest.raises(ValueError, match=r"^total must be an integer >= 0, got -1$"):
        cs.round_histogram(np.zeros(Q.n_cells), Q, total=-1)


def test_round_histogram_with_a_single_fractional_cell():
    # one cell 5e-7 below 1 (beyond the 1e-9 snap, within the 1e-6 sum tolerance): it alone must go up
    x = np.zeros(Q.n_cells)
    x[[3, 8]] = [2.0, 1 - 5e-7]
    h = cs.round_histogram(x, Q, total=3)
    assert h[[3, 8]].tolist() == [2, 1] and h.sum() == 3


def test_round_histogram_solves_once_and_falls_back_without_presolve(monkeypatch):
    # HiGHS's presolve can end in "Solve error" (no x); round_histogram then solves again without presolve.
    # A spy on scipy's milp: one call when the first solve succeeds, and on a simulated failure a second call
    # with presolve off whose answer is used
    from scipy.optimize import milp as real_milp
    calls = []

    def spy(fail_first):
        def milp(**kwargs):
            calls.append(kwargs.get("options"))
            if fail_first and len(calls) == 1:
                return type("Failed", (), {"x": None, "message": "Solve error"})()
            return real_milp(**kwargs)
        return milp

    x = np.zeros(Q.n_cells)
    x[[3, 9, 40]] = [0.6, 0.7, 0.7]
    want = cs.round_histogram(x, Q)
    monkeypatch.setattr(cs, "milp", spy(fail_first=False))
    assert np.array_equal(cs.round_histogram(x, Q), want) and calls == [None]
    calls.clear()
    monkeypatch.setattr(cs, "milp", spy(fail_first=True))
    assert np.array_equal(cs.round_histogram(x, Q), want) and calls == [None, {"presolve": False}]


def test_records_to_histogram_counts_are_int64():
    h = cs.records_to_histogram(TRUTH + TRUTH[:2], Q)
    assert h.dtype == np.int64 and h.sum() == 9 and h.max() == 2


def test_smallest_sigma_is_exact_for_any_variance():
    # the smallest double s with s^2 >= v, checked in exact rational arithmetic, for variances below and
    # above 1 and 4, and some whose float square root rounds down
    rng = np.random.default_rng(8)
    vs = [Fraction(2), Fraction(1, 3), Fraction(10, 3), Fraction(7, 2), Fraction(1000, 7), Fraction(9, 4)]
    vs += [Fraction(int(a), int(b)) for a, b in rng.integers(1, 10**6, size=(40, 2))]
    assert any(Fraction(math.sqrt(float(v))) ** 2 < v for v in vs)      # the upward loop is needed somewhere
    for v in vs:
        s = cs._smallest_sigma(v)
        assert Fraction(s) ** 2 >= v > Fraction(math.nextafter(s, 0.0)) ** 2, v


def test_least_squares_messages_and_exact_measurement_checks():
    m = cs.measure_block(TRUTH, 1.0, rng=np.random.default_rng(0), queries=Q)
    with pytest.raises(ValueError, match=r"^measurement must be a Measurement \(from measure_block\), got ndarray$"):
        cs.least_squares_histogram(m.detailed, Q)
    with pytest.raises(ValueError, match=r"^measurement must have one count per cell and one per group of queries$"):
        cs.least_squares_histogram(m, SMALL)
    # an exact measurement with the right total but a negative cell is not a histogram
    exact = cs.measure_block(TRUTH, math.inf, rng=np.random.default_rng(0), queries=Q)
    detailed = exact.detailed.copy()
    detailed[[0, 1]] += [-1, 1]
    with pytest.raises(ValueError, match=r"^an exact measurement must be a histogram with the invariant total$"):
        cs.least_squares_histogram(dataclasses.replace(exact, detailed=detailed), Q)


def test_least_squares_refuses_a_tolerance_below_the_rounding_of_its_gradient():
    # a dual gradient of 1e-300 people is below double precision: it raised RuntimeError ('did not
    # converge', whatever the data); it is now refused up front, by name, with the floor for this
    # measurement: 2**-45 * max(1, total) + 2**-53 * largest |noisy count|, computed here independently
    m = cs.measure_block(TRUTH, 1.0, rng=np.random.default_rng(0), queries=Q)
    largest = max(int(np.abs(m.detailed).max()), int(np.abs(m.groups).max()))
    floor = float(Fraction(7, 2**45) + Fraction(largest, 2**53))
    for tol in (1e-300, 5e-324, math.nextafter(floor, 0.0) * 0.999):
        with pytest.raises(ValueError, match=rf"^tol must be >= 2\*\*-45 \* max\(1, total\) \+ 2\*\*-53 \* "
                                             rf"largest \|noisy count\| = {floor:.3g} for this measurement"):
            cs.least_squares_histogram(m, Q, tol=tol)
    x = cs.least_squares_histogram(m, Q, tol=floor)          # the floor itself is reached
    assert x.min() >= 0 and abs(x.sum() - 7) < 1e-12
    with pytest.raises(ValueError, match=r"^queries must be a BlockQueries \(from block_queries\(\)\), got str$"):
        cs.least_squares_histogram(m, "table 1")


def test_least_squares_still_reports_a_solver_that_stops_short():
    # at rho = 1e-11 the noisy counts reach 2e6 and trust-exact stops at its iteration limit with a
    # dual gradient of 2.6e5 people: a tolerance above the floor that is not met is a RuntimeError
    m = cs.measure_block(TRUTH, 1e-11, rng=np.random.default_rng(0), queries=Q)
    with pytest.raises(RuntimeError, match=r"^least squares did not converge \(dual gradient .* > tol 1\.00e-09\)"):
        cs.least_squares_histogram(m, Q)
    with pytest.raises(ValueError, match=r"^queries must be a BlockQueries \(from block_queries\(\)\), got str$"):
        cs.least_squares_histogram(m, "table 1")


def test_budget_split_without_noise_keeps_every_field():
    b = cs.budget_split(math.inf, 13, detailed_share=0.3)
    assert (b.rho, b.detailed_share, b.n_groups, b.rho_detailed, b.rho_group, b.sigma_detailed, b.sigma_group) == \
        (math.inf, 0.3, 13, math.inf, math.inf, 0.0, 0.0)
    assert b.shares.tolist() == [math.inf] * 14


# ---------------------------------------------------------------------------- extreme magnitudes
@pytest.mark.parametrize("rho, share", [(5e-324, 0.5), (2.0, 5e-324), (1e-300, 0.5), (1e300, 0.5)])
def test_budget_split_at_extreme_budgets_buys_the_exact_scales(rho, share):
    """math.sqrt(float(1/rho_d)) raised "integer division result too large for a float" once the variance
    passed 1.8e308 (rho_d = 2.5e-324). The scales are representable (6.4e161 at rho = 5e-324): each is
    the smallest double whose square reaches the variance, checked in exact rationals, and near
    1/sqrt(rho_d) by mpmath."""
    import mpmath

    b = cs.budget_split(rho, 4, detailed_share=share)
    rho_d = Fraction(rho) * Fraction(share)
    rho_g = (Fraction(rho) - rho_d) / 4
    for sigma, variance in ((b.sigma_detailed, 1 / rho_d), (b.sigma_group, 1 / (2 * rho_g))):
        assert Fraction(sigma) ** 2 >= variance > Fraction(math.nextafter(sigma, 0.0)) ** 2
        with mpmath.workdps(50):
            want = mpmath.sqrt(mpmath.mpf(variance.numerator) / variance.denominator)
        assert sigma == pytest.approx(float(want), rel=1e-15, abs=0)


@pytest.mark.parametrize("rho, share", [(1e-300, 0.5), (5e-324, 0.5), (1.0, 1e-300), (1.0, 5e-324),
                                        (2.0**-110, math.nextafter(2.0**-6, 0.0)), (2.0**-115, 0.5)])
def test_measure_and_release_refuse_a_budget_whose_noise_cannot_be_int64(rho, share):
    """The noise scale 1/sqrt(rho * share) (1.4e150 at rho = 1e-300) is a double, but no int64 holds
    value + noise: discrete_gaussian_mechanism refused it as 'value + noise does not fit in int64',
    naming neither rho nor detailed_share (and at 5e-324 budget_split raised OverflowError). The
    bounds: sigma_detailed <= 2**58 iff rho * share >= 2**-116, sigma_group <= 2**58 iff
    rho * (1 - share) >= 13 * 2**-117."""
    msg = (r"^rho \* detailed_share must be >= 2\*\*-116 \(1\.2e-35\) and rho \* \(1 - detailed_share\) >= 13 "
           r"\* 2\*\*-117 \(one share per group count\) for the noise scales to stay <= 2\*\*58, so that value "
           rf"\+ noise fits in int64; got rho = {re.escape(repr(rho))}, detailed_share = {re.escape(repr(share))} ")
    with pytest.raises(ValueError, match=msg):
        cs.measure_block(TRUTH, rho, rng=np.random.default_rng(0), queries=Q, detailed_share=share)
    with pytest.raises(ValueError, match=msg):
        cs.release_block(TRUTH, rho, rng=np.random.default_rng(0), queries=Q, detailed_share=share)


def test_measure_block_at_the_largest_releasable_scale():
    """rho * share = 2**-116 exactly: sigma_detailed = 2**58, the largest the int64 release takes."""
    m = cs.measure_block(TRUTH, 2.0**-110, rng=np.random.default_rng(0), queries=Q, detailed_share=2.0**-6)
    assert m.budget.sigma_detailed == 2.0**58 and m.detailed.dtype == np.int64
    assert np.abs(m.detailed).max() > 2**50                  # noise of that size, in int64


@pytest.mark.parametrize("tail", [1e-300, 5e-324])
def test_composition_at_the_smallest_tails(tail):
    """tail / n * m underflowed to 0 at tail = 5e-324 and log(m / 0) raised ZeroDivisionError; the cut is
    now compared in logs. One sigma: the discrete Gaussian's own profile (summed by dpnotes.discrete,
    another algorithm). Two: within the tail of the profile at tail = 1e-30 (the more mass kept, the
    larger), and composition_epsilon inverts it."""
    from dpnotes.discrete import discrete_gaussian_delta

    eps = np.array([0.0, 0.5, 2.0])
    assert cs.composition_delta(eps, [2.0], tail=tail) == pytest.approx(discrete_gaussian_delta(2.0, eps), rel=1e-13, abs=0)
    coarse = cs.composition_delta(eps, [2.0, 3.0], tail=1e-30)
    fine = cs.composition_delta(eps, [2.0, 3.0], tail=tail)
    assert np.all(fine >= coarse - 1e-16) and np.all(fine <= coarse + 1e-30 + 1e-16)
    e = cs.composition_epsilon(1e-6, [3.0, 3.0], tail=tail)
    assert cs.composition_delta(e, [3.0, 3.0], tail=tail) == pytest.approx(1e-6, rel=1e-9, abs=0)


def test_reconstruction_study_refuses_a_threshold_above_the_population(raises_exactly):
    """threshold = 2**31 suppressed the count of the whole block and the attack raised "statistics
    must include the count of the whole population", naming none of the study's parameters."""
    truth = attacks.census_block_solutions()[0]
    with raises_exactly(f"threshold must be an integer in [1, {len(truth)}], got {2**31}"):
        cs.reconstruction_study(truth, rhos=[math.inf], seeds=[0], attack_seeds=[0], threshold=2**31)


@pytest.mark.parametrize("sigmas", [[1.0], [5.0], [3.0, 3.0]])
def test_composition_epsilon_is_on_the_safe_side_of_its_root(sigmas):
    """The smallest epsilon with composition_delta <= delta: brentq's absolute xtol of 1e-13 returned 0 for a delta one
    double below delta(0) (a root of about 1e-16) and roots up to 1e-13 below the crossing (6e-4 of the root at
    delta(0)(1 - 1e-12), sigma = 5; at delta = 1e-3, [3, 3] the profile at the answer was 1e-3 + 2.5e-17), all where
    the profile is above delta (found by a reviewer of the root finders). Checked by the definition: the profile at
    the answer is at most delta, and above it a relative 1e-9 lower (the answer is the root, not far above it)."""
    tv = cs.composition_delta(0.0, sigmas)
    for delta in (math.nextafter(tv, 0.0), tv * (1 - 1e-12), 1e-3, 0.37 * tv):
        e = cs.composition_epsilon(delta, sigmas)
        assert e > 0.0 and cs.composition_delta(e, sigmas) <= delta
        if delta < tv / 2:                      # a root well above the profile's rounding steps near 0
            assert cs.composition_delta(e * (1 - 1e-9), sigmas) > delta


def _mp_composition_delta(eps, sigmas, reach=4):
    """delta(eps) = sum over the lattice y in [-reach, reach]^k of P(y) (1 - e^{eps - L(y)})_+, L(y) = sum (1 - 2 y_i) /
    (2 sigma_i^2), each P the discrete Gaussian N_Z(0, sigma_i^2) normalised over the integers, in mpmath at 60 digits
    (for sigma <= 0.1 the terms past |y| = reach are below e^{-reach^2 / (2 sigma^2)} = e^-800 of the sum)."""
    with mp.workdps(60):
        laws = []
        for s in sigmas:
            w = {y: mp.exp(-mp.mpf(y) ** 2 / (2 * mp.mpf(s) ** 2)) for y in range(-reach, reach + 1)}
            z = mp.nsum(lambda t: mp.exp(-t ** 2 / (2 * mp.mpf(s) ** 2)), [-mp.inf, mp.inf])
            laws.append({y: v / z for y, v in w.items()})
        total = mp.mpf(0)
        for ys in itertools.product(range(-reach, reach + 1), repeat=len(sigmas)):
            loss = sum((1 - 2 * mp.mpf(y)) / (2 * mp.mpf(s) ** 2) for y, s in zip(ys, sigmas))
            if loss > eps:
                total += mp.fprod(law[y] for law, y in zip(laws, ys)) * -mp.expm1(mp.mpf(eps) - loss)
        return total


def test_composition_profile_past_the_exponent_range_of_the_doubles():
    """Losses above ~745 (sigmas below ~0.1): E[e^{-L}; L > eps] was summed in doubles, where e^{-906} is 0, and multiplied
    by e^eps, which overflows past eps = 709.78: composition_delta(720, [0.05, 0.07]) was nan (inf * 0) for 6.7e-132,
    composition_epsilon(1e-300, same) raised brentq's "function value is NaN", composition_delta(700, same) was
    1.38e-87 for 1.20e-87 (the term e^{eps - L} lost: above the exact value, which the docstring rules out) and
    composition_delta(1024, [0.05]) warned of an overflow. Found by a helper explaining mutation survivors.
    Reference: the hockey-stick sum over the lattice in mpmath; tolerance 1e-13 relative (the cumulative sums' rounding
    over a few atoms: measured 4e-15). The truncation (tail 1e-30) leaves out no atom here: those past |y| = 1 weigh
    e^-800 of the rest, below the doubles."""
    sig = [0.05, 0.07]
    for eps in (0.0, 3.0, 300.0, 650.0, 700.0, 710.0, 720.0, 900.0):
        got = cs.composition_delta(eps, sig)
        ref = _mp_composition_delta(eps, sig)
        assert abs(mp.mpf(got) - ref) <= 1e-13 * ref + 1e-300, (eps, got, ref)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cs.composition_delta(1024.0, [0.05]) == 0.0
        assert cs.composition_delta(906.2, sig) == 0.0          # above the largest loss, 906.122...
        # the roots: just below the loss of the atom that carries the last mass above delta
        for delta, atom_loss in ((1e-300, 3 / (2 * 0.05**2) + 3 / (2 * 0.07**2)),      # y = (-1, -1): 906.12
                                 (1e-100, 3 / (2 * 0.05**2) + 1 / (2 * 0.07**2))):     # y = (-1, 0): 702.04
            e = cs.composition_epsilon(delta, sig)
            assert cs.composition_delta(e, sig) <= delta
            assert e == pytest.approx(atom_loss, rel=1e-14), (delta, e, atom_loss)


@pytest.mark.parametrize("sigma, delta", [(0.1, 1 - 1e-6), (0.1, 1 - 1e-12), (0.05, 1 - 1e-9), (0.2, 1 - 1e-4)])
def test_composition_epsilon_near_delta_one_keeps_the_digits_of_one_minus_delta(sigma, delta):
    """Above delta = 1/2 the root is sought on log(1 - delta(eps)) = log sum p e^{min(0, eps - L)}, positive terms; from
    delta itself (a sum near 1, good to an ulp) 1 - delta kept only 1e-16 absolute: at (0.1, 1 - 1e-12) the answer's
    exact 1 - delta(eps) was 5e-5 of itself short of 1 - delta (the profile above delta there). Reference: the
    discrete Gaussian's lattice sum in mpmath at 60 digits; tolerance a few rounding units of the float sum
    (1e-14 relative, measured 2.5e-15) on the unsafe side, 1e-12 on the other."""
    eps = cs.composition_epsilon(delta, [sigma])
    with mp.workdps(60):
        s = mp.mpf(sigma)
        z = mp.nsum(lambda t: mp.exp(-t**2 / (2 * s * s)), [-mp.inf, mp.inf])
        kept = mp.fsum(mp.exp(-mp.mpf(y)**2 / (2 * s * s)) / z * mp.exp(min(0, mp.mpf(eps) - (1 - 2 * mp.mpf(y)) / (2 * s * s)))
                       for y in range(-60, 61))
        ratio = kept / (1 - mp.mpf(delta))
        assert 1 - 1e-14 <= ratio <= 1 + 1e-12, (eps, float(ratio - 1))


def test_reconstruction_study_reads_suppressed_rows_by_its_own_threshold():
    """The study tabulates with its ``threshold`` and must read "(D)" the same way: the attack assumed (0, 2), the
    default threshold's range, so at threshold 5 or 7 the unprotected block's own table had no solution (a group of 4
    suppressed was excluded) and numpy warned of a mean of an empty slice (found while explaining mutation
    survivors). At rho = inf the true block is consistent with its table, so there is at least one solution, and
    dropping the threshold from the tabulation (the default 3 publishes more rows) changes the count: 1 at
    threshold 3, 2 (the cap) at 5 and 7."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        counts = {th: int(cs.reconstruction_study(TRUTH, [math.inf], [0], queries=Q, threshold=th,
                                                  max_solutions=2).n_solutions[0, 0]) for th in (1, 3, 5, len(TRUTH))}
    assert counts == {1: 1, 3: 1, 5: 2, len(TRUTH): 2}


def test_least_squares_floor_for_a_single_person():
    """For a block of one person least_squares_histogram's floor is 2**-45 * max(1, total) + 2**-53 * largest |noisy
    count| with max(1, 1) = 1 (a mutation survivor took max(2, total)); computed independently in rationals, the floor
    itself is reached and a tolerance below it is refused."""
    one = TRUTH[:1]
    m1 = cs.measure_block(one, 0.5, rng=np.random.default_rng(4), queries=Q)
    largest = max(int(np.abs(m1.detailed).max()), int(np.abs(m1.groups).max()))
    floor = float(Fraction(1, 2**45) + Fraction(largest, 2**53))
    x1 = cs.least_squares_histogram(m1, Q, tol=floor)
    assert x1.min() >= 0 and abs(x1.sum() - 1) < 1e-12
    with pytest.raises(ValueError, match=r"^tol must be >= 2\*\*-45"):
        cs.least_squares_histogram(m1, Q, tol=math.nextafter(floor, 0.0) * 0.999)


def test_reconstruction_study_of_one_person_refuses_a_threshold_of_two(raises_exactly):
    """The threshold of an attacked study is at most the block's size, so that the total row is published; for one
    person that is 1 (a mutation survivor allowed max(1, 2) = 2, which suppresses the total the attack needs)."""
    with raises_exactly("threshold must be an integer in [1, 1], got 2"):
        cs.reconstruction_study(TRUTH[:1], [math.inf], [0], queries=Q, threshold=2)
    s = cs.reconstruction_study(TRUTH[:1], [math.inf], [0], queries=Q, threshold=1, max_solutions=2)
    assert s.n_solutions[0, 0] >= 1
