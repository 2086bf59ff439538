"""Tests of dpnotes.attacks: closed forms, brute-force enumerations, Theorem 1's bound, bad inputs."""

import itertools
from fractions import Fraction
from math import comb
from statistics import median

import numpy as np
import pytest
from scipy.stats import norm

from dpnotes import attacks as at

#: The block of Garfinkel, Abowd and Martindale (2019), derived by hand on the reconstruction page.
BLOCK = (
    (8, "F", "B", False),
    (18, "M", "W", False),
    (24, "F", "W", False),
    (30, "M", "W", True),
    (36, "F", "B", True),
    (66, "F", "B", True),
    (84, "M", "B", True),
)


def test_age_triples_closed_form():
    # sorted (a, 30, 102 - a) with 0 <= a <= 30: 31 multisets; 30 with distinct entries (6 orders) + one with a = 30 (3 orders)
    sols = at.age_triples(30, 44)
    assert sols.tolist() == [[a, 30, 102 - a] for a in range(31)]
    assert len(at.age_triples(30, 44, ordered=True)) == 30 * 6 + 3


def test_age_triples_against_itertools():
    for med, mean in [(3, 3), (2, 10 / 3), (4, 2)]:
        brute = sorted(
            t for t in itertools.combinations_with_replacement(range(8), 3) if t[1] == med and sum(t) * 3 == round(9 * mean)
        )
        assert [tuple(r) for r in at.age_triples(med, mean, age_max=7)] == brute


def test_census_block_unique_and_reproduces_table():
    sols = at.census_block_solutions()
    assert sols == [BLOCK]
    published = at.publish_block(BLOCK)
    for stat, (label, count, med, mean) in zip(at.CENSUS_TABLE1, published):
        assert label == stat.label
        assert (count, med, mean) == (stat.count, stat.median, stat.mean)


def test_census_assumptions_change_the_answer():
    assert at.census_block_solutions(suppressed=(1, 2)) == []  # nobody is under 5, so "(D)" must allow 0
    assert at.census_block_solutions(decimals=None) == []  # 36.7 * 3 is not an integer
    two = at.census_block_solutions(minors_can_marry=True)
    assert len(two) == 2 and {s[0][3] for s in two} == {False, True}
    assert all(s[1:] == BLOCK[1:] for s in two)


def _brute_force_block(stats, n, age_max, suppressed, adult_age=18):
    cells = [(a, s, r, m) for a in range(age_max + 1) for s in at.SEXES for r in at.RACES for m in (False, True)
             if m is False or a >= adult_age]
    found = []
    for recs in itertools.combinations_with_replacement(cells, n):
        ok = True
        for st in stats:
            ages = [a for (a, s, r, m) in recs if st.members(np.array([a]), [s], [r], [m], adult_age)[0]]
            if st.count is None:
                ok = suppressed[0] <= len(ages) <= suppressed[1]
            else:
                ok = len(ages) == st.count
                if ok and st.mean is not None:
                    ok = abs(sum(ages) / len(ages) - st.mean) <= 0.5 + 1e-12
                if ok and st.median is not None:
                    ok = abs(median(ages) - st.median) <= 0.5 + 1e-12
            if not ok:
                break
        if ok:
            found.append(tuple(sorted(recs)))
    return sorted(found)


def test_census_solver_matches_brute_force_on_a_small_block():
    stats = (
        at.BlockStatistic("T", "total", 3, 2, 2),
        at.BlockStatistic("F", "female", None, None, None, sex="F"),
        at.BlockStatistic("B", "Black", 2, 2, 2.5, race="B"),
        at.BlockStatistic("M", "married adults", None, None, None, adult=True, married=True),
    )
    expected = _brute_force_block(stats, 3, age_max=4, suppressed=(0, 1), adult_age=3)
    got = at.census_block_solutions(stats, age_max=4, adult_age=3, suppressed=(0, 1), decimals=0, max_solutions=10_000)
    assert got == expected and len(expected) > 1


def test_all_subset_queries():
    Q = at.all_subset_queries(4)
    assert Q.shape == (16, 4) and len({tuple(r) for r in Q}) == 16
    assert Q[11].tolist() == [1, 1, 0, 1]


def test_exponential_attack_matches_loop():
    rng = np.random.default_rng(3)
    n, E = 5, 1.0
    d = rng.integers(0, 2, n)
    Q = at.all_subset_queries(n)
    a = at.bounded_noise_answers(d, Q, E, kind="uniform", rng=rng)
    loop = [c for c in itertools.product((0, 1), repeat=n)
            if all(abs(np.dot(q, c) - aq) <= E for q, aq in zip(Q, a))]
    got = {tuple(c) for c in at.exponential_attack(Q, a, E)}
    assert got == set(loop)


@pytest.mark.parametrize("E", [1, 2])
def test_theorem1_bound_holds_and_is_attained_by_decoy(E):
    d = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 0])
    Q = at.all_subset_queries(d.size)
    a = at.bounded_noise_answers(d, Q, E, kind="decoy")
    assert np.abs(a - Q @ d).max() <= E
    dist = np.abs(at.exponential_attack(Q, a, E) - d).sum(axis=1)
    assert dist.max() == 4 * E  # never more (Theorem 1), and here exactly 4E


def test_lp_attack_exact_without_noise():
    rng = np.random.default_rng(5)
    d = rng.integers(0, 2, 60)
    Q = at.random_subset_queries(240, 60, rng=rng)
    assert np.array_equal(at.lp_attack(Q, Q @ d), d)
    assert np.array_equal(at.lp_attack(Q, Q @ d, bound=0.2), d)
    bits, x = at.lp_attack(Q, Q @ d, return_fractional=True)
    assert x.shape == (60,) and np.all((0 <= x) & (x <= 1))


def test_lp_attack_small_noise_mostly_right():
    rng = np.random.default_rng(6)
    n = 200
    d = rng.integers(0, 2, n)
    Q = at.random_subset_queries(4 * n, n, rng=rng)
    a = at.bounded_noise_answers(d, Q, 0.1 * np.sqrt(n), rng=rng)
    assert (at.lp_attack(Q, a) == d).mean() >= 0.95


def test_laplace_answers_noise_exact_by_coupled_seeds():
    # an asymmetric query matrix: column sums 3, 1, 2, so the L1 sensitivity is 3 (not 1, not m)
    Q = np.array([[1, 0, 1], [1, 1, 0], [1, 0, 1], [0, 0, 0]])
    d = np.array([1, 0, 1])
    eps = 0.5
    noise = at.laplace_answers(d, Q, eps, rng=np.random.default_rng(42)) - Q @ d
    assert np.allclose(noise, (3 / eps) * np.random.default_rng(42).laplace(0.0, 1.0, size=4), rtol=1e-13, atol=0)
    # a matrix no record is in: the scale falls back to 1 / epsilon
    noise0 = at.laplace_answers(d, np.zeros((2, 3), dtype=int), eps, rng=np.random.default_rng(1))
    assert np.allclose(noise0, (1 / eps) * np.random.default_rng(1).laplace(0.0, 1.0, size=2), rtol=1e-13, atol=0)


def _analytic_delta(sigma, sensitivity, eps):
    """delta(eps) of the Gaussian mechanism (Balle and Wang 2018, Theorem 8), with scipy's normal cdf."""
    a = sensitivity / (2 * sigma)
    b = eps * sigma / sensitivity
    return norm.cdf(a - b) - np.exp(eps) * norm.cdf(-a - b)


def test_gaussian_answers_noise_exact_and_calibrated():
    Q = np.array([[1, 0, 1], [1, 1, 0], [1, 0, 1], [1, 0, 0]])   # column sums 4, 1, 2: L2 sensitivity 2
    d = np.array([0, 1, 1])
    eps, delta = 0.7, 1e-4
    noise = at.gaussian_answers(d, Q, eps, delta, rng=np.random.default_rng(9)) - Q @ d
    z = np.random.default_rng(9).standard_normal(4)
    ratio = noise / z
    assert np.allclose(ratio, ratio[0], rtol=1e-12)               # one sigma times the standard draws
    sigma = ratio[0]
    # the smallest sigma with delta(eps) <= delta for sensitivity 2: equality, and a smaller sigma fails
    assert _analytic_delta(sigma, 2.0, eps) == pytest.approx(delta, rel=1e-6, abs=0)
    assert _analytic_delta(0.99 * sigma, 2.0, eps) > delta
    # the same epsilon and delta with sensitivity 1 would allow half the noise
    assert _analytic_delta(sigma / 2, 1.0, eps) == pytest.approx(delta, rel=1e-6, abs=0)


def test_uniform_noise_exact_by_coupled_seeds():
    rng = np.random.default_rng(3)
    d = rng.integers(0, 2, 7)
    Q = at.random_subset_queries(50, 7, rng=rng)
    E = 2.5
    noise = at.bounded_noise_answers(d, Q, E, rng=np.random.default_rng(11)) - Q @ d
    assert np.allclose(noise, np.random.default_rng(11).uniform(-E, E, size=50), rtol=0, atol=1e-12)
    assert noise.max() > 0.9 * E and noise.min() < -0.9 * E     # the noise really fills [-E, E]


def test_decoy_answers_are_exact_for_the_decoy():
    d = np.array([0, 1, 1, 0, 0, 1, 1, 1, 0])                     # ones at 1, 2, 5, 6, 7; zeros at 0, 3, 4, 8
    Q = at.all_subset_queries(9)
    a = at.bounded_noise_answers(d, Q, 2.7, kind="decoy")
    decoy = d.copy()
    decoy[[1, 2]] = 0                                             # the first floor(2.7) = 2 ones ...
    decoy[[0, 3]] = 1                                             # ... and the first 2 zeros
    assert np.array_equal(a, Q @ decoy)
    assert np.abs(a - Q @ d).max() == 2                           # off by at most floor(E) = 2


def test_lp_attack_rounds_at_one_half():
    # identity queries: each answer is one bit's value, so both LPs return x = answers exactly
    a = np.array([0.55, 0.45, 0.69, 0.2, 0.95, 0.31])
    Q = np.eye(6, dtype=int)
    for bound in (None, 0.0):
        bits, x = at.lp_attack(Q, a, bound=bound, return_fractional=True)
        assert np.allclose(x, a, atol=1e-7)
        assert bits.tolist() == [1, 0, 1, 0, 1, 0]
    # answers outside [0, 1] are clipped to the box
    bits, x = at.lp_attack(Q, [1.4, -0.3, 0.6, 0.1, 0.9, 0.2], return_fractional=True)
    assert np.allclose(x, [1, 0, 0.6, 0.1, 0.9, 0.2], atol=1e-7) and bits.tolist() == [1, 0, 1, 0, 1, 0]


def test_lp_attack_bounded_solution_is_feasible():
    rng = np.random.default_rng(12)
    n, E = 40, 1.5
    d = rng.integers(0, 2, n)
    Q = at.random_subset_queries(3 * n, n, rng=rng)
    a = at.bounded_noise_answers(d, Q, E, rng=rng)
    bits, x = at.lp_attack(Q, a, bound=E, return_fractional=True)
    assert np.all(np.abs(Q @ x - a) <= E + 1e-6) and np.all((x >= 0) & (x <= 1))
    assert np.array_equal(bits, (x >= 0.5).astype(int))
    # a bound below the noise makes the program infeasible
    with pytest.raises(ValueError, match="bound"):
        at.lp_attack(Q, a, bound=0.0)


def test_exponential_attack_chunk_does_not_change_the_answer():
    d = np.array([1, 0, 0, 1, 1, 0, 1, 0])
    Q = at.all_subset_queries(8)
    a = at.bounded_noise_answers(d, Q, 2, kind="decoy")
    ref = at.exponential_attack(Q, a, 2)
    for chunk in (1, 7, 1000):
        assert np.array_equal(at.exponential_attack(Q, a, 2, chunk=chunk), ref)
    assert len(ref) > 1


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: at.age_triples(30, 44, age_max=-1), "age_max"),
        (lambda: at.age_triples(-1, 44), "median"),
        (lambda: at.age_triples(30, float("nan")), "mean"),
        (lambda: at.census_block_solutions([]), "^statistics must be a non-empty sequence of BlockStatistic$"),
        (lambda: at.census_block_solutions(at.CENSUS_TABLE1[1:]),
         r"^statistics must include the count of the whole population \(a row with no filter\)$"),
        (lambda: at.census_block_solutions(age_max=0), "age_max"),
        (lambda: at.census_block_solutions(adult_age=-3), "adult_age"),
        (lambda: at.census_block_solutions(decimals=1.5), "decimals"),
        (lambda: at.census_block_solutions(suppressed=(2, 1)), r"^suppressed must be a pair \(low, high\) with low <= high, got \(2, 1\)$"),
        (lambda: at.census_block_solutions(suppressed=3), r"^suppressed must be a pair \(low, high\) of counts, got 3$"),
        (lambda: at.census_block_solutions(max_solutions=0), "max_solutions"),
        (lambda: at.census_block_solutions([at.BlockStatistic("T", "t", 3, None, None),
                                            at.BlockStatistic("F", "f", None, 3, None, sex="F")]),
         "^statistics row F must publish its count if it publishes a median or mean$"),
        (lambda: at.publish_block([]), r"^records must be a non-empty sequence of \(age, sex, race, married\)$"),
        (lambda: at.publish_block(BLOCK, threshold=0), "threshold"),
        (lambda: at.all_subset_queries(0), "n"),
        (lambda: at.all_subset_queries(17), "n"),
        (lambda: at.random_subset_queries(0, 3, rng=np.random.default_rng(0)), "m"),
        (lambda: at.random_subset_queries(3, 3, rng=0), "rng"),
        (lambda: at.bounded_noise_answers([0, 2], [[1, 1]], 1, rng=np.random.default_rng(0)), "^d must be a non-empty 1-D vector of 0/1 bits$"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1, 1]], 1, rng=np.random.default_rng(0)), r"^queries must have one column per record \(2\), got 3$"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], -1, rng=np.random.default_rng(0)), "bound"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], 1, kind="gauss"), "^kind must be 'uniform' or 'decoy', got 'gauss'$"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], 2, kind="decoy"), r"^bound must be <= min\(#ones, #zeros\) = 1 for a decoy, got 2.0$"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], 1), "rng"),
        (lambda: at.exponential_attack([[1, 2]], [1.0], 1), r"^queries must be a non-empty 2-D 0/1 matrix \(one query per row\)$"),
        (lambda: at.exponential_attack([[1, 0]], [1.0, 2.0], 1), r"^answers must be 1 finite numbers, one per query, got shape \(2,\)$"),
        (lambda: at.exponential_attack([[1, 0]], [1.0], -1), "bound"),
        (lambda: at.exponential_attack(np.ones((1, 17), dtype=int), [1.0], 1),
         "^queries must have at most 16 columns for the exponential attack, got 17$"),
        (lambda: at.lp_attack([[1, 0]], [np.inf]), "answers"),
        (lambda: at.lp_attack([[1, 0]], [1.0], bound=-1), "bound"),
        (lambda: at.lp_attack([[1, 0], [1, 0]], [0.0, 1.0], bound=0.1), r"^bound must leave the linear program feasible \(answers inconsistent\)"),
        (lambda: at.laplace_answers([0, 1], [[1, 1]], 0, rng=np.random.default_rng(0)), "epsilon"),
        (lambda: at.laplace_answers([0, 1], [[1, 1]], 1, rng=None), "rng"),
        (lambda: at.gaussian_answers([0, 1], [[1, 1]], 0, 1e-5, rng=np.random.default_rng(0)), "epsilon"),
        (lambda: at.gaussian_answers([0, 1], [[1, 1]], 1, 0, rng=np.random.default_rng(0)), "delta"),
        (lambda: at.gaussian_answers([0, 1], [[1, 1]], 1, 1e-5, rng=1), "rng"),
        (lambda: at.exponential_attack([[1, 0]], [1.0], 1, chunk=0), "chunk"),
        (lambda: at.census_block_solutions(suppressed=(0, 1, 2)), "suppressed"),
        (lambda: at.age_triples(30, 44, age_max=401), "^age_max must be"),
        (lambda: at.age_triples(-1, 44), "^median must be"),
        (lambda: at.age_triples(30, -44), "^mean must be"),
        (lambda: at.all_subset_queries(0), "^n must be"),
        (lambda: at.random_subset_queries(0, 3, rng=np.random.default_rng(0)), "^m must be"),
        (lambda: at.random_subset_queries(3, 0, rng=np.random.default_rng(0)), "^n must be"),
        (lambda: at.random_subset_queries(3, 3, rng=0), "^rng must be"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], -1, rng=np.random.default_rng(0)), "^bound must be"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], 1), "^rng must be"),
        (lambda: at.bounded_noise_answers([[0, 1]], [[1, 1]], 1, kind="decoy"), "^d must be a non-empty 1-D"),
        (lambda: at.bounded_noise_answers([0, 1], [1, 1], 1, kind="decoy"), "^queries must be a non-empty 2-D"),
        (lambda: at.exponential_attack([[1, 0]], [1.0], -1), "^bound must be"),
        (lambda: at.exponential_attack([[1, 0]], [1.0], 1, chunk=0), "^chunk must be"),
        (lambda: at.lp_attack([[1, 0]], [1.0], bound=-1), "^bound must be"),
        (lambda: at.laplace_answers([0, 1], [[1, 1]], 0, rng=np.random.default_rng(0)), "^epsilon must be"),
        (lambda: at.laplace_answers([0, 1], [[1, 1]], 1, rng=None), "^rng must be"),
        (lambda: at.laplace_answers([0, 1], [[1, 1, 0]], 1, rng=np.random.default_rng(0)), "^queries must have one column"),
        (lambda: at.gaussian_answers([0, 1], [[1, 1]], 1, 1e-5, rng=None), "^rng must be"),
        (lambda: at.gaussian_answers([0, 1], [[1, 1, 0]], 1, 1e-5, rng=np.random.default_rng(0)),
         "^queries must have one column"),
        (lambda: at.publish_block(BLOCK, threshold=0), "^threshold must be"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------------------
# the four steps of census_block_solutions, each on its own
# ---------------------------------------------------------------------------


def test_block_cells_lists_every_combination_once():
    age, sex, race, married = at._block_cells(3)
    assert len(age) == 4 * 2 * 2 * 2
    combos = set(zip(age.tolist(), sex.tolist(), race.tolist(), married.tolist()))
    assert combos == set(itertools.product(range(4), at.SEXES, at.RACES, (False, True)))


def _cap_of(caps, cells, record):
    age, sex, race, married = cells
    (i,) = np.nonzero((age == record[0]) & (sex == record[1]) & (race == record[2]) & (married == record[3]))[0]
    return int(caps[i])


def test_cell_caps_of_table1_by_hand():
    cells = at._block_cells(125)
    caps = at._cell_caps(at.CENSUS_TABLE1, cells, 7, adult_age=18, suppressed=(0, 2), minors_can_marry=False)
    # groups containing a married Black woman of 40: total 7, female 4, Black 4, married adults 4, 4A 3
    assert _cap_of(caps, cells, (40, "F", "B", True)) == 3
    # a married White man of 40 is in 4C, suppressed: at most 2
    assert _cap_of(caps, cells, (40, "M", "W", True)) == 2
    # a single Black woman of 40 is a single adult (3A, suppressed)
    assert _cap_of(caps, cells, (40, "F", "B", False)) == 2
    # a married 10-year-old: impossible unless minors may marry, then 5B (under 18, suppressed) caps at 2
    assert _cap_of(caps, cells, (10, "F", "B", True)) == 0
    caps_m = at._cell_caps(at.CENSUS_TABLE1, cells, 7, adult_age=18, suppressed=(0, 1), minors_can_marry=True)
    assert _cap_of(caps_m, cells, (10, "F", "B", True)) == 1           # the high end of "suppressed" counts
    # adult_age moves people between groups: at adult_age 12 a single 15-year-old is a single adult
    caps_a = at._cell_caps(at.CENSUS_TABLE1, cells, 7, adult_age=12, suppressed=(0, 2), minors_can_marry=False)
    assert _cap_of(caps_a, cells, (15, "F", "B", True)) == 2 and _cap_of(caps, cells, (15, "F", "B", True)) == 0


def test_round_interval_by_hand():
    # 36.7 over 3 people: one decimal pins the sum to 110; whole years allow 110..112; exact allows none
    assert at._round_interval(36.7, 3, 1) == (110, 110)
    assert at._round_interval(37, 3, 0) == (110, 112)       # 3 * [36.5, 37.5] = [109.5, 112.5]
    assert at._round_interval(36.7, 3, None) == (111, 110)  # 110.1: no whole sum (an empty interval)
    assert at._round_interval(33.5, 4, 1) == (134, 134)     # 4 * [33.45, 33.55] = [133.8, 134.2]
    assert at._round_interval(30, 2, 2) == (60, 60)         # 2 * [29.995, 30.005]


def _fixed_histogram_feasible(hist, count, median, decimals):
    """Is a histogram over ages 0..len(hist)-1 accepted by the median rows? (one cell per age)"""
    prog = at._Program()
    age_max = len(hist) - 1
    H = prog.new(len(hist), ub=count, integer=True)
    for c, h in enumerate(hist):
        prog.add({H[c]: 1.0}, h, h)
    at._median_rows(prog, H, np.arange(len(hist)), count, median, decimals, age_max)
    return prog.solve() is not None


# median 0 (odd and even counts) reaches the order statistic "the k-th smallest age is <= 0"
@pytest.mark.parametrize("count, median_value, decimals",
                         [(3, 2, 1), (4, 2.5, 1), (4, 2, 0), (4, 1.5, None), (3, 2.5, None), (3, 0, 1), (4, 0, 0)])
def test_median_rows_accept_exactly_the_right_medians(count, median_value, decimals):
    age_max = 4
    half = 0.5 * 10.0 ** -decimals if decimals is not None else 0.0
    for ages in itertools.combinations_with_replacement(range(age_max + 1), count):
        hist = np.bincount(ages, minlength=age_max + 1)
        expected = abs(median(ages) - median_value) <= half + 1e-12
        assert _fixed_histogram_feasible(hist, count, median_value, decimals) == expected, (ages, median_value)


def test_all_solutions_stops_at_max_solutions_and_is_complete():
    # letting minors marry leaves exactly two blocks (the 8-year-old single or married)
    one = at.census_block_solutions(minors_can_marry=True, max_solutions=1)
    both = at.census_block_solutions(minors_can_marry=True, max_solutions=3)
    assert len(one) == 1 and len(both) == 2 and set(one) < set(both)


def test_smallest_valid_inputs():
    assert at.all_subset_queries(1).tolist() == [[0], [1]]
    assert at.random_subset_queries(1, 1, rng=np.random.default_rng(0)).shape == (1, 1)
    assert at.age_triples(0, 0, age_max=0).tolist() == [[0, 0, 0]]
    assert at.lp_attack([[1]], [1.0]).tolist() == [1]                       # one bit, one query
    assert at.laplace_answers([1], [[1]], 1.0, rng=np.random.default_rng(0)).shape == (1,)
    # the decoy may flip every one and every zero (k = min(#ones, #zeros))
    assert at.bounded_noise_answers([1, 0], [[1, 0], [0, 1]], 1, kind="decoy").tolist() == [0, 1]
    # exactly 16 records is allowed for the exponential attack: C(16, 8) candidates have sum 8
    assert len(at.exponential_attack(np.ones((1, 16), dtype=int), [8.0], 0)) == comb(16, 8)


def test_age_triples_ordered_rows_are_lexicographic():
    rows = [tuple(r) for r in at.age_triples(30, 44, ordered=True)]
    assert rows == sorted(rows) and rows[0] == (0, 30, 102) and rows[-1] == (102, 30, 0)


def test_exponential_attack_uses_every_query():
    # the first query alone separates the two candidates that fit the second
    assert at.exponential_attack([[1, 0], [0, 1]], [1.0, 0.0], 0).tolist() == [[1, 0]]
    assert at.exponential_attack([[0, 1], [1, 0]], [0.0, 1.0], 0, chunk=1).tolist() == [[1, 0]]


def test_lp_attack_box_ties_and_types():
    # L1 decoding keeps x in the box: x1 <= 1, so the second query is fitted by x2 = 0.2
    bits, x = at.lp_attack([[1, 1], [1, 0]], [1.2, 1.2], return_fractional=True)
    assert np.allclose(x, [1.0, 0.2], atol=1e-7) and bits.tolist() == [1, 0]
    # a tie at exactly 1/2 rounds up; answers may be any real numbers, exact rationals included
    bits = at.lp_attack([[1]], [Fraction(1, 2)], bound=0)
    assert bits.tolist() == [1] and bits.dtype == np.int64


def test_gaussian_answers_sensitivity_of_one_query_per_record():
    # identity queries: every record is in one query, L2 sensitivity 1 (not the floor of the code, not 2)
    eps, delta = 1.0, 1e-5
    noise = at.gaussian_answers([1, 0, 1], np.eye(3, dtype=int), eps, delta, rng=np.random.default_rng(2)) - [1, 0, 1]
    sigma = noise[0] / np.random.default_rng(2).standard_normal(3)[0]
    assert _analytic_delta(sigma, 1.0, eps) == pytest.approx(delta, rel=1e-6, abs=0)


def test_publish_block_thresholds_lengths_and_exact_values():
    rows = at.publish_block(BLOCK)
    assert len(rows) == len(at.CENSUS_TABLE1) and rows[-1] == ("5C", None, None, None)
    everyone = at.publish_block(BLOCK, threshold=1)
    assert dict((r[0], r[1:]) for r in everyone)["4B"] == (1, 84, 84)     # a group of one is published
    exact = dict((r[0], r[1:]) for r in at.publish_block(BLOCK, decimals=None))
    assert exact["4A"] == (3, 36, 110 / 3)                                   # not rounded to 36.7


def test_census_uses_the_mean_of_a_group_of_one():
    stats = (
        at.BlockStatistic("T", "total", 2, None, None),
        at.BlockStatistic("F", "female", 1, None, 3, sex="F"),
        at.BlockStatistic("M", "male", 1, None, 1, sex="M"),
    )
    sols = at.census_block_solutions(stats, age_max=4, adult_age=4)
    ages = {tuple((r[0], r[1]) for r in s) for s in sols}
    assert ages == {((1, "M"), (3, "F"))} and len(sols) == 4              # two races each, both single


# ----------------------------------------------------------------------------------- extreme magnitudes
def _mp_analytic_sigma(eps, delta, sensitivity):
    """The analytic Gaussian calibration at 60 digits: the root mu of
    Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) = delta, sigma = sensitivity / mu (bisection)."""
    import mpmath

    with mpmath.workdps(60):
        eps, delta = mpmath.mpf(eps), mpmath.mpf(delta)

        def f(mu):
            b = -mu / 2 - eps / mu
            return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps + mpmath.log(mpmath.ncdf(b))) - delta

        lo, hi = mpmath.sqrt(2 * eps) / 2, 2 * mpmath.sqrt(2 * eps) + 100
        assert f(lo) < 0 < f(hi)
        for _ in range(400):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return float(sensitivity / lo)


@pytest.mark.parametrize("eps, delta", [(1e16, 1e-5), (1e16, 1e-300), (3e17, 0.5), (1e20, 5e-324), (1e20, 1e-5)])
def test_gaussian_answers_at_a_huge_epsilon_is_the_analytic_calibration(eps, delta):
    # gaussian_sigma overflowed in math.exp from eps ~ 6e18 (subnormal delta) and at 1e300 for delta = 1e-5
    Q = np.array([[1, 0, 1], [1, 1, 0], [1, 0, 1], [1, 0, 0]])   # column sums 4, 1, 2: L2 sensitivity 2
    noise = at.gaussian_answers([0, 0, 0], Q, eps, delta, rng=np.random.default_rng(9))
    sigma = noise / np.random.default_rng(9).standard_normal(4)
    exact = _mp_analytic_sigma(eps, delta, 2.0)
    assert np.allclose(sigma, exact, rtol=4e-16, atol=0)         # two ulps


@pytest.mark.parametrize("eps", [1e300, 1.7e308])
def test_gaussian_answers_at_the_top_of_the_float_range(eps):
    # the closed-form limit sigma = Delta / sqrt(2 eps) = 1 / sqrt(eps) for Delta = sqrt(2) (the root's
    # offset z = -4.3 is 1e-150 relative there); it raised OverflowError at 1e300
    noise = at.gaussian_answers([0, 0], [[1, 1], [0, 1]], eps, 1e-5, rng=np.random.default_rng(3))
    sigma = noise / np.random.default_rng(3).standard_normal(2)
    assert np.allclose(sigma, 1.0 / np.sqrt(eps), rtol=4e-16, atol=0)


def test_random_subset_queries_caps_m_and_n(raises_exactly):
    """m or n = 2**31 asked numpy for tens of GiB (MemoryError); each is capped at 10**8 by name."""
    rng = np.random.default_rng(0)
    with raises_exactly(f"m must be an integer in [1, 100000000], got {2**31}"):
        at.random_subset_queries(2**31, 3, rng=rng)
    with raises_exactly(f"n must be an integer in [1, 100000000], got {2**62}"):
        at.random_subset_queries(2, 2**62, rng=rng)
    assert at.random_subset_queries(2, 3, rng=rng).shape == (2, 3)
