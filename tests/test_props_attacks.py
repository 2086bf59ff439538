"""Property tests of dpnotes.attacks on random blocks, databases and query sets (Hypothesis).

Census: on a random block, the table ``publish_block`` releases equals the counts, medians and
means recomputed here with numpy; ``census_block_solutions`` on that table always lists the true
block (when the list is complete), and every block it lists reproduces the table. Dinur-Nissim:
exact answers reveal the database (exponential attack: only it survives; LP attack: recovered
whenever the query matrix has full column rank); with noise bounded by E every survivor of the
exponential attack is within 4E of the database (Theorem 1) and the bounded LP attack on all 2^n
queries within 8E (a feasible x has |q.(x - d)| <= 2E for every q; take q the set of positions
rounded up where d is 0, then the set rounded down where d is 1); the LP attack's error grows
with the noise on average; private answers add exactly the noise their docstring states.
"""

import dataclasses
import itertools
import math
from statistics import median

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import profiles
from dpnotes import attacks as at

SEED = st.integers(0, 2**32 - 1)
AGE_MAX = 30
ROWS = at.CENSUS_TABLE1          # the groups of source 001's table 1 (their numbers are replaced)


@st.composite
def blocks(draw, max_people=6):
    n = draw(st.integers(1, max_people))
    recs = []
    for _ in range(n):
        age = draw(st.integers(0, AGE_MAX))
        married = draw(st.booleans()) and age >= 18
        recs.append((age, draw(st.sampled_from(at.SEXES)), draw(st.sampled_from(at.RACES)), married))
    return tuple(sorted(recs))


def recompute(records, stat, threshold, decimals):
    """count, median and mean of the group, by hand."""
    ages = sorted(a for (a, s, r, m) in records
                  if (stat.sex is None or s == stat.sex) and (stat.race is None or r == stat.race)
                  and (not stat.adult or a >= 18) and (stat.married is None or m == stat.married)
                  and (stat.min_age is None or a >= stat.min_age) and (stat.max_age is None or a <= stat.max_age))
    if len(ages) < threshold:
        return (None, None, None)
    return (len(ages), round(median(ages), decimals), round(sum(ages) / len(ages), decimals))


@given(block=blocks(8), threshold=st.integers(1, 4), decimals=st.integers(0, 3))
def test_publish_block_is_the_groups_count_median_and_mean(block, threshold, decimals):
    table = at.publish_block(block, ROWS, decimals=decimals, threshold=threshold)
    for stat, (label, count, med, mean) in zip(ROWS, table):
        want = recompute(block, stat, threshold, decimals)
        assert label == stat.label and count == want[0]
        if count is not None:
            # here with round() of doubles, there of exact rationals: a mean of at most 8 integers
            # is a tie only when it is a dyadic rational, which a double holds exactly
            assert med == want[1] and mean == want[2]


@settings(max_examples=profiles.size(fast=5, thorough=60))        # about 0.5 s each
@given(block=blocks())
def test_census_solutions_contain_the_true_block_and_reproduce_the_table(block):
    table = at.publish_block(block, ROWS, decimals=1, threshold=3)
    stats = tuple(dataclasses.replace(stat, count=c, median=md, mean=mn) for stat, (_, c, md, mn) in zip(ROWS, table))
    assume(stats[0].count is not None)                   # the solver needs the total population
    cap = 20
    sols = at.census_block_solutions(stats, age_max=AGE_MAX, decimals=1, suppressed=(0, 2), max_solutions=cap)
    for sol in sols[:5]:                                 # sound: every block listed reproduces the table
        assert at.publish_block(sol, ROWS, decimals=1, threshold=3) == table
    if len(sols) < cap:                                  # complete: the truth is among them
        assert block in sols


# --------------------------------------------------------------------------- Dinur-Nissim
@st.composite
def databases(draw, lo=1, hi=8):
    n = draw(st.integers(lo, hi))
    return np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))


@given(d=databases(), bound=st.floats(0.0, 2.0), seed=SEED)
def test_exponential_attack_survivors_are_within_4E(d, bound, seed):
    Q = at.all_subset_queries(d.size)
    if bound == 0:
        assert at.exponential_attack(Q, Q @ d, 0.0).tolist() == [d.tolist()]
    answers = at.bounded_noise_answers(d, Q, bound, rng=np.random.default_rng(seed))
    assert np.all(np.abs(answers - Q @ d) <= bound)
    survivors = at.exponential_attack(Q, answers, bound)
    assert any(np.array_equal(s, d) for s in survivors)
    assert np.all(np.abs(survivors - d).sum(axis=1) <= 4 * bound)


def test_uniform_noise_never_passes_its_bound_after_rounding():
    """Regression (found by the thorough profile): bound 5.4e-16 on an answer of 1 gave an error
    of 5.6e-16, since 1 + e rounds to a multiple of 2.2e-16."""
    d, bound = np.array([0, 1]), 5.435849880802946e-16
    Q = at.all_subset_queries(2)
    for seed in range(50):
        answers = at.bounded_noise_answers(d, Q, bound, rng=np.random.default_rng(seed))
        assert np.all(np.abs(answers - Q @ d) <= bound)


@given(d=databases(2, 9), bound=st.integers(0, 2))
def test_decoy_answers_are_within_E_and_fool_the_attack_by_2E(d, bound):
    assume(bound <= min(d.sum(), d.size - d.sum()))
    Q = at.all_subset_queries(d.size)
    answers = at.bounded_noise_answers(d, Q, bound, kind="decoy")
    assert np.all(np.abs(answers - Q @ d) <= bound)
    decoy = at.exponential_attack(Q, answers, 0.0)           # the decoy, the only exact fit
    assert decoy.shape[0] == 1 and np.abs(decoy[0] - d).sum() == 2 * bound


@given(n=st.integers(1, 40), factor=st.integers(2, 6), seed=SEED, bounded=st.booleans())
def test_lp_attack_recovers_the_database_from_exact_answers(n, factor, seed, bounded):
    rng = np.random.default_rng(seed)
    d = rng.integers(0, 2, n)
    Q = at.random_subset_queries(factor * n, n, rng=rng)
    assert Q.shape == (factor * n, n) and set(np.unique(Q)) <= {0, 1}
    assume(np.linalg.matrix_rank(Q) == n)                   # then Qx = Qd has the one solution x = d
    assert np.array_equal(at.lp_attack(Q, Q @ d, bound=0.0 if bounded else None), d)


@settings(max_examples=profiles.size(fast=15, thorough=200))
@given(d=databases(2, 9), bound=st.floats(0.0, 1.5), seed=SEED)
def test_bounded_lp_attack_on_all_queries_errs_in_at_most_8E(d, bound, seed):
    Q = at.all_subset_queries(d.size)
    answers = at.bounded_noise_answers(d, Q, bound, rng=np.random.default_rng(seed))
    bits, x = at.lp_attack(Q, answers, bound=bound, return_fractional=True)
    assert np.all(np.abs(Q @ x - answers) <= bound + 1e-6)            # feasible (HiGHS tolerance)
    assert np.abs(bits - d).sum() <= 8 * bound + 1e-6


def test_lp_attack_error_grows_with_the_noise():
    """Mean Hamming error over seeds, n = 40 and m = 160 random queries, uniform noise of bound
    E: at E = 0 none, and more at each larger E (sqrt(n) = 6.3 is where the attack fails)."""
    n, m = 40, 160
    seeds = range(profiles.size(fast=4, thorough=30))
    means = []
    for bound in (0.0, 1.0, 4.0, 16.0):
        errors = []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            d = rng.integers(0, 2, n)
            Q = at.random_subset_queries(m, n, rng=rng)
            answers = at.bounded_noise_answers(d, Q, bound, rng=rng)
            errors.append(np.abs(at.lp_attack(Q, answers) - d).sum())
        means.append(np.mean(errors))
    assert means[0] == 0 and means[0] <= means[1] < means[2] < means[3]


@given(d=databases(1, 12), m=st.integers(1, 30), eps=st.floats(0.01, 10.0), delta=st.floats(1e-12, 0.5), seed=SEED)
def test_private_answers_add_exactly_their_noise(d, m, eps, delta, seed):
    Q = at.random_subset_queries(m, d.size, rng=np.random.default_rng(seed))
    sens = max(int(Q.sum(axis=0).max()), 1)
    got = at.laplace_answers(d, Q, eps, rng=np.random.default_rng(seed + 1))
    assert np.array_equal(got, Q @ d + np.random.default_rng(seed + 1).laplace(0.0, sens / eps, size=m))
    from dpnotes.mechanisms import gaussian_sigma
    sigma = gaussian_sigma(eps, delta, sensitivity=math.sqrt(sens), method="analytic")
    got = at.gaussian_answers(d, Q, eps, delta, rng=np.random.default_rng(seed + 2))
    assert np.array_equal(got, Q @ d + np.random.default_rng(seed + 2).normal(0.0, sigma, size=m))


@given(n=st.integers(1, 10))
def test_all_subset_queries_are_the_bits_of_0_to_2n(n):
    Q = at.all_subset_queries(n)
    assert Q.shape == (2**n, n)
    assert np.array_equal(Q @ (2 ** np.arange(n)), np.arange(2**n))


def test_a_block_of_nobody_has_one_solution():
    """Regression: with a total of 0 the program had no variable and scipy's milp raised."""
    assert at.census_block_solutions((at.BlockStatistic("T", "total", 0, None, None),), age_max=3, adult_age=2) == [()]
    assert at.census_block_solutions((at.BlockStatistic("T", "total", 0, None, None),
                                      at.BlockStatistic("F", "female", 1, None, None, sex="F")),
                                     age_max=3, adult_age=2) == []


@given(median_age=st.integers(0, 12), total=st.integers(0, 36), age_max=st.integers(0, 12))
def test_age_triples_are_every_triple_with_that_median_and_mean(median_age, total, age_max):
    mean = total / 3
    got = at.age_triples(median_age, mean, age_max=age_max)
    brute = sorted({tuple(sorted(t)) for t in itertools.product(range(age_max + 1), repeat=3)
                    if sorted(t)[1] == median_age and sum(t) == total})
    assert [tuple(r) for r in got.tolist()] == brute


# --------------------------------------------------------------------------- bad input
RNG = np.random.default_rng(0)
Q3 = at.all_subset_queries(3)
SCALAR_BAD = [math.nan, math.inf, None, "1", [1.0, 2.0], True]
ARRAY_BAD = ["abc", None, [[1, 0, 1], [1, 0]], [math.nan, 1.0, 0.0], True]
CALLS = {
    "age_triples": (at.age_triples, dict(median=2, mean=2, age_max=3)),
    "all_subset_queries": (at.all_subset_queries, dict(n=3)),
    "random_subset_queries": (at.random_subset_queries, dict(m=2, n=3, rng=RNG)),
    "bounded_noise_answers": (at.bounded_noise_answers, dict(d=[1, 0, 1], queries=Q3, bound=1.0, rng=RNG)),
    "exponential_attack": (at.exponential_attack, dict(queries=Q3, answers=Q3 @ [1, 0, 1], bound=0.0, chunk=4)),
    "lp_attack": (at.lp_attack, dict(queries=Q3, answers=Q3 @ [1, 0, 1], bound=0.5)),
    "laplace_answers": (at.laplace_answers, dict(d=[1, 0, 1], queries=Q3, epsilon=1.0, rng=RNG)),
    "gaussian_answers": (at.gaussian_answers, dict(d=[1, 0, 1], queries=Q3, epsilon=1.0, delta=1e-5, rng=RNG)),
    "publish_block": (at.publish_block, dict(records=[(8, "F", "B", False)], adult_age=18, decimals=1, threshold=1)),
    "census_block_solutions": (at.census_block_solutions,
                               dict(statistics=(at.BlockStatistic("T", "total", 1, None, None),), age_max=3,
                                    adult_age=2, decimals=1, max_solutions=1)),
}
ARRAYS = {"d", "queries", "answers"}
OPTIONAL = {("lp_attack", "bound"), ("publish_block", "decimals"), ("census_block_solutions", "decimals")}
CASES = [(name, param, bad) for name, (_, kwargs) in CALLS.items() for param in kwargs
         if param not in ("rng", "records", "statistics")
         for bad in (ARRAY_BAD if param in ARRAYS else SCALAR_BAD) if not (bad is None and (name, param) in OPTIONAL)]


@pytest.mark.parametrize("name, param, bad", CASES, ids=[f"{n}-{p}-{b!r}" for n, p, b in CASES])
def test_every_numeric_parameter_rejects_bad_values_by_name(name, param, bad):
    fn, kwargs = CALLS[name]
    fn(**kwargs)
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        fn(**{**kwargs, param: bad})
