"""Tests of dpnotes.attacks: closed forms, brute-force enumerations, Theorem 1's bound, bad inputs."""

import itertools
from math import comb
from statistics import median

import numpy as np
import pytest

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


def test_laplace_answers_scale():
    # identity queries: sensitivity 1, so the noise is Laplace(1/epsilon) with E|noise| = sd|noise| = 1/epsilon
    rng = np.random.default_rng(7)
    n, eps = 4000, 2.0
    d = rng.integers(0, 2, n)
    noise = at.laplace_answers(d, np.eye(n, dtype=int), eps, rng=rng) - d
    assert abs(np.abs(noise).mean() - 1 / eps) < 5 / (eps * np.sqrt(n))
    # one record asked 4000 times: sensitivity 4000, so the scale is 4000/epsilon
    noise = at.laplace_answers([1], np.ones((n, 1), dtype=int), eps, rng=rng) - 1
    assert abs(np.abs(noise).mean() - n / eps) < 5 * n / (eps * np.sqrt(n))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: at.age_triples(30, 44, age_max=-1), "age_max"),
        (lambda: at.age_triples(-1, 44), "median"),
        (lambda: at.age_triples(30, float("nan")), "mean"),
        (lambda: at.census_block_solutions([]), "statistics"),
        (lambda: at.census_block_solutions(at.CENSUS_TABLE1[1:]), "whole population"),
        (lambda: at.census_block_solutions(age_max=0), "age_max"),
        (lambda: at.census_block_solutions(adult_age=-3), "adult_age"),
        (lambda: at.census_block_solutions(decimals=1.5), "decimals"),
        (lambda: at.census_block_solutions(suppressed=(2, 1)), "suppressed"),
        (lambda: at.census_block_solutions(suppressed=3), "suppressed"),
        (lambda: at.census_block_solutions(max_solutions=0), "max_solutions"),
        (lambda: at.census_block_solutions([at.BlockStatistic("T", "t", 3, None, None),
                                            at.BlockStatistic("F", "f", None, 3, None, sex="F")]), "count"),
        (lambda: at.publish_block([]), "records"),
        (lambda: at.publish_block(BLOCK, threshold=0), "threshold"),
        (lambda: at.all_subset_queries(0), "n"),
        (lambda: at.all_subset_queries(17), "n"),
        (lambda: at.random_subset_queries(0, 3, rng=np.random.default_rng(0)), "m"),
        (lambda: at.random_subset_queries(3, 3, rng=0), "rng"),
        (lambda: at.bounded_noise_answers([0, 2], [[1, 1]], 1, rng=np.random.default_rng(0)), "d"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1, 1]], 1, rng=np.random.default_rng(0)), "queries"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], -1, rng=np.random.default_rng(0)), "bound"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], 1, kind="gauss"), "kind"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], 2, kind="decoy"), "bound"),
        (lambda: at.bounded_noise_answers([0, 1], [[1, 1]], 1), "rng"),
        (lambda: at.exponential_attack([[1, 2]], [1.0], 1), "queries"),
        (lambda: at.exponential_attack([[1, 0]], [1.0, 2.0], 1), "answers"),
        (lambda: at.exponential_attack([[1, 0]], [1.0], -1), "bound"),
        (lambda: at.exponential_attack(np.ones((1, 17), dtype=int), [1.0], 1), "queries"),
        (lambda: at.lp_attack([[1, 0]], [np.inf]), "answers"),
        (lambda: at.lp_attack([[1, 0]], [1.0], bound=-1), "bound"),
        (lambda: at.lp_attack([[1, 0], [1, 0]], [0.0, 1.0], bound=0.1), "bound"),
        (lambda: at.laplace_answers([0, 1], [[1, 1]], 0, rng=np.random.default_rng(0)), "epsilon"),
        (lambda: at.laplace_answers([0, 1], [[1, 1]], 1, rng=None), "rng"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
