"""Tests of dpnotes.attacks written to kill the survivors of its mutation run (issue 22).

Each test names the mutants it kills (``mutmut show dpnotes.attacks.<name>``). Most pin a
documented range of a parameter at both ends, or the exact error a reader sees for bad input
(the parameter, the rule and the value); the others check a result against a count or a value
derived by hand from the definitions (how many one-person blocks there are, the rounding of
``q . d + e`` in float64), never against the module's own output.
"""

import re
from fractions import Fraction

import numpy as np
import pytest

from dpnotes import attacks as at

B = at.BlockStatistic
ONE_PERSON = (B("T", "total", 1, None, None),)     # a table that only says "one person lives here"


def full(message):
    """A `match` pattern for exactly this message."""
    return "^" + re.escape(message) + "$"


# ---------------------------------------------------------------- ragged and mistyped inputs
def test_ragged_inputs_are_named_with_their_rule_and_value():
    # kills _bits mutmut_4, _10, _11, _12, _queries mutmut_4, _10, _11, _12, _answers mutmut_4
    # (the rule in the message) and _asarray mutmut_3 (the value in the message)
    with pytest.raises(ValueError, match=full("d must be a non-empty 1-D vector of 0/1 bits, got [[0], [0, 1]]")):
        at.bounded_noise_answers([[0], [0, 1]], [[1, 1]], 1, kind="decoy")
    with pytest.raises(ValueError, match=full("queries must be a non-empty 2-D 0/1 matrix (one query per row), "
                                              "got [[1, 0], [1]]")):
        at.exponential_attack([[1, 0], [1]], [1.0, 1.0], 1)
    with pytest.raises(ValueError, match=full("answers must be 2 finite numbers, one per query, got [[1.0], [1.0, 2.0]]")):
        at.exponential_attack([[1, 0], [0, 1]], [[1.0], [1.0, 2.0]], 1)


def test_answers_must_be_real_numbers_not_strings_bools_or_durations():
    # kills _answers mutmut_23 (the value in the message), _15 (`or` lets every object through:
    # a bool or a numeric string inside an object array became a number) and _10 (`or` converts any
    # array whose items are numbers.Real: numpy's timedelta64 is one, and became a float)
    with pytest.raises(ValueError, match=full("answers must be 1 finite numbers, one per query, got ['1']")):
        at.exponential_attack([[1, 0]], ["1"], 1)
    Q = [[1, 0], [0, 1]]
    for bad in ([Fraction(1), True], [Fraction(1), "1"], np.array([1, 0], dtype="m8[s]")):
        with pytest.raises(ValueError, match="^answers must be 2 finite numbers, one per query, got "):
            at.exponential_attack(Q, bad, 0)
    # exact rationals in an object array are answers: the candidate [1, 0] fits both exactly
    assert at.exponential_attack(Q, [Fraction(1), Fraction(0)], 0).tolist() == [[1, 0]]


def test_table_rows_with_a_negative_count_median_or_mean_are_refused_by_name():
    # kills _check_statistics mutmut_36 (name None), _38 and _41 (no lower bound on a count), _52 (name None)
    total = B("T", "total", 3, None, None)
    with pytest.raises(ValueError, match=full("statistics row F: count must be an integer >= 0, got -1")):
        at.census_block_solutions([total, B("F", "female", -1, None, None, sex="F")])
    for field, row in (("median", B("F", "female", 1, -1, None, sex="F")), ("mean", B("F", "female", 1, None, -2, sex="F"))):
        with pytest.raises(ValueError, match=full(f"statistics row F: {field} must be >= 0, got {-1 if field == 'median' else -2}")):
            at.census_block_solutions([total, row])


# ---------------------------------------------------------------- the order-statistic rows
def test_an_order_statistic_below_age_zero_is_infeasible_and_at_zero_is_not():
    # kills _order_statistic_rows mutmut_21 .. _25 (the row that makes "the k-th smallest age is <= -1"
    # infeasible). No published median reaches that branch (medians are >= 0), so it is tested directly.
    for high, feasible in ((-1, False), (-3, False), (0, True)):
        prog = at._Program()
        C = prog.new(3, ub=5)                 # C(0), C(1), C(2): cumulative counts, free in [0, 5]
        at._order_statistic_rows(prog, C, 2, 0, high)
        assert (prog.solve() is not None) == feasible, high
    # with no variable at all the row alone decides (a block of 0 people)
    prog = at._Program()
    at._order_statistic_rows(prog, np.arange(0), 1, 0, -1)
    assert prog.solve() is None


# ---------------------------------------------------------------- defaults and ranges of the census solver
def test_age_triples_and_the_census_solver_stop_at_age_125_by_default():
    # kills age_triples mutmut_1 and census_block_solutions mutmut_1 (default age_max 126)
    assert at.age_triples(125, 125).tolist() == [[125, 125, 125]]            # (124, 125, 126) needs age 126
    assert at.age_triples(125, 125, age_max=126).tolist() == [[124, 125, 126], [125, 125, 125]]
    aged_126 = (B("T", "total", 1, 126, 126),)
    assert at.census_block_solutions(aged_126) == []
    assert len(at.census_block_solutions(aged_126, age_max=126)) == 8      # 2 sexes x 2 races x married or not


def test_census_solver_stops_at_50_solutions_by_default():
    # kills census_block_solutions mutmut_5 (default 51). One person aged 0..12, adult at 12:
    # 12 ages x 2 sexes x 2 races single, plus 2 x 2 x 2 at age 12 (single or married) = 56 blocks
    every = at.census_block_solutions(ONE_PERSON, age_max=12, adult_age=12, max_solutions=100)
    assert len(every) == 12 * 4 + 8 == 56 and len(set(every)) == 56
    first = at.census_block_solutions(ONE_PERSON, age_max=12, adult_age=12)
    assert len(first) == 50 and set(first) < set(every)


def test_census_solver_ranges_of_age_max_and_adult_age_at_both_ends():
    # kills census_block_solutions mutmut_12, _16, _20 (age_max above 200 let through), _19 (age_max 1
    # refused), _25, _29 (adult_age above age_max let through), _32 (adult_age 0 refused)
    # age_max 1, adult at 1: 4 (sex, race) cells at age 0 (single), 8 at age 1
    assert len(at.census_block_solutions(ONE_PERSON, age_max=1, adult_age=1)) == 4 + 8
    # adult_age 0: everyone is an adult and may be married, 2 ages x 8 cells
    assert len(at.census_block_solutions(ONE_PERSON, age_max=1, adult_age=0)) == 16
    with pytest.raises(ValueError, match=full("age_max must be an integer in [1, 200], got 201")):
        at.census_block_solutions(ONE_PERSON, age_max=201, adult_age=1)
    with pytest.raises(ValueError, match=full("adult_age must be an integer in [0, 125], got 126")):
        at.census_block_solutions(adult_age=126)
    with pytest.raises(ValueError, match=full("adult_age must be an integer in [0, 1], got 2")):
        at.census_block_solutions(ONE_PERSON, age_max=1, adult_age=2)


def test_census_solver_ranges_of_decimals_and_suppressed():
    # kills census_block_solutions mutmut_37, _41 (decimals -1 let through), _38, _42, _46 (decimals 7
    # let through), _59, _65, _66 (the name of suppressed), _61, _64 (a negative suppressed count let
    # through), _73 (a suppressed count pinned to one value, low == high, refused)
    assert len(at.census_block_solutions(ONE_PERSON, age_max=1, adult_age=1, decimals=6)) == 12
    for bad in (-1, 7):
        with pytest.raises(ValueError, match=full(f"decimals must be an integer in [0, 6], got {bad}")):
            at.census_block_solutions(ONE_PERSON, age_max=1, adult_age=1, decimals=bad)
    with pytest.raises(ValueError, match=full("suppressed must be an integer >= 0, got -1")):
        at.census_block_solutions(ONE_PERSON, age_max=1, adult_age=1, suppressed=(-1, 2))
    # "(D)" read as "exactly two": two people, both women. The female cells at ages 0..1, adult at 1:
    # 2 races at age 0 (single) and 4 at age 1, 6 cells; two women in them: C(6 + 1, 2) = 21 multisets
    two = (B("T", "total", 2, None, None), B("F", "female", None, None, None, sex="F"))
    sols = at.census_block_solutions(two, age_max=1, adult_age=1, suppressed=(2, 2), max_solutions=100)
    assert len(sols) == 21 and all(r[1] == "F" for s in sols for r in s)
    none = at.census_block_solutions(two, age_max=1, adult_age=1, suppressed=(0, 0), max_solutions=100)
    assert len(none) == 21 and all(r[1] == "M" for s in none for r in s)


# ---------------------------------------------------------------- publish_block's ranges and records
def test_publish_block_ranges_of_adult_age_and_decimals_at_both_ends():
    # kills publish_block mutmut_17, _20 (adult_age -1 let through), _23 (adult_age 0 refused),
    # _28, _32 (decimals -1 let through), _29, _33, _37 (decimals 16 let through)
    block = [(8, "F", "B", False), (18, "M", "W", False), (24, "F", "W", False), (30, "M", "W", True),
             (36, "F", "B", True), (66, "F", "B", True), (84, "M", "B", True)]
    # adult_age 0: the 8-year-old is a single adult too; singles 8, 18, 24: median 18, mean 50/3 -> 16.7
    rows = dict((r[0], r[1:]) for r in at.publish_block(block, adult_age=0))
    assert rows["3A"] == (3, 18, 16.7)
    # 15 decimals: the mean of 4A, 110/3, rounds to 36.666666666666667
    rows = dict((r[0], r[1:]) for r in at.publish_block(block, decimals=15))
    assert rows["4A"] == (3, 36, float(Fraction(36_666_666_666_666_667, 10**15)))
    with pytest.raises(ValueError, match=full("adult_age must be an integer >= 0, got -1")):
        at.publish_block(block, adult_age=-1)
    for bad in (-1, 16):
        with pytest.raises(ValueError, match=full(f"decimals must be an integer in [0, 15], got {bad}")):
            at.publish_block(block, decimals=bad)


@pytest.mark.parametrize("record", [(-1, "F", "B", False), (True, "F", "B", False), (3.5, "F", "B", False),
                                    (3, "F", "B"), "3FBx"])
def test_publish_block_refuses_a_malformed_record_by_name(record):
    # kills publish_block mutmut_45, _47, _48 (a negative age let through), _46 (a bool age let through)
    # and _55 (the message); a 4-character string is a sequence of length 4 with a non-integer age
    with pytest.raises(ValueError, match=full("records must be (age, sex, race, married) with an integer age >= 0, "
                                              f"got {record!r}")):
        at.publish_block([(30, "M", "W", True), record])


# ---------------------------------------------------------------- bounded noise, exactly
def test_uniform_answers_are_the_rounded_sums_even_at_the_bound():
    # kills bounded_noise_answers mutmut_38 (every answer stepped toward the truth), _40 (|out + exact|
    # tested) and _41 (an answer exactly at the bound stepped back). With exact answers 1 and
    # E = 2^-52 (one unit in the last place above 1), 1 + e for |e| <= E rounds to one of
    # 1 - 2^-52, 1 - 2^-53, 1, 1 + 2^-52: never past the bound, so the answer is fl(1 + e) itself,
    # and about a third of the draws round onto the bound exactly.
    n, E = 64, 2.0**-52
    d, Q = np.ones(n, dtype=int), np.eye(n, dtype=int)
    out = at.bounded_noise_answers(d, Q, E, rng=np.random.default_rng(5))
    expected = 1.0 + np.random.default_rng(5).uniform(-E, E, size=n)
    assert np.array_equal(out, expected)
    assert np.all(np.abs(out - 1.0) <= E) and np.sum(np.abs(out - 1.0) == E) >= 5


# ---------------------------------------------------------------- the exponential attack keeps the truth
@pytest.mark.parametrize("E, noise", [(0.3, (0.1, 0.2)), (2.0**20 - 0.9, (2.0**20 - 0.9,))])
def test_exponential_attack_keeps_the_truth_when_answers_at_the_bound_are_rounded(E, noise):
    # kills exponential_attack mutmut_38 (tolerance 1e-9 / E instead of 1e-9 * E). Theorem 1 needs the true
    # database among the survivors when every answer is within E of the truth; answers computed as
    # q . d + e in float64 with e = E can land past E by rounding: by 2.8e-16 for (q . d + 0.1) + 0.2
    # against E = 0.3, and by 2^-33 = 1.2e-10 for E = 2^20 - 0.9, where q . d + E crosses 2^20 and the
    # unit in its last place doubles. The slack the attack allows, 1e-9 * max(1, E), covers both.
    d = np.array([1, 0, 1])
    Q = at.all_subset_queries(3)
    a = (Q @ d).astype(float)
    for e in noise:
        a = a + e
    assert np.max(np.abs(Q @ d - a)) > E                     # the rounding really passes the bound
    assert d.tolist() in at.exponential_attack(Q, a, E).tolist()


# ---------------------------------------------------------------- a group is every filter at once
def test_block_statistic_members_are_the_records_matching_every_filter():
    # kills BlockStatistic.members mutmut_18, _27, _31 (`ok = ...` for `ok &= ...`: a later filter dropped
    # the earlier ones). The rows of table 1 use one filter kind at a time (or sex and race), so these
    # rows combine them; the expected members are listed from the definition, record by record.
    recs = [(8, "F", "B", False), (18, "M", "W", False), (24, "F", "W", False), (30, "M", "W", True),
            (36, "F", "B", True), (66, "F", "B", True), (84, "M", "B", True), (17, "F", "W", True)]
    age, sex, race, married = (np.array(col) for col in zip(*recs))
    rows = [B("x", "White adult women", None, None, None, sex="F", race="W", adult=True),
            B("x", "married Black people aged 30 to 70", None, None, None, race="B", married=True, min_age=30, max_age=70),
            B("x", "men aged 18 or over", None, None, None, sex="M", min_age=18),
            B("x", "women under 30", None, None, None, sex="F", max_age=29),
            B("x", "adults aged 40 to 80", None, None, None, adult=True, min_age=40, max_age=80)]
    for row in rows:
        expected = [a >= 18 if row.adult else True for (a, s, r, m) in recs]
        expected = [e and (row.sex is None or s == row.sex) and (row.race is None or r == row.race)
                    and (row.married is None or m == row.married)
                    and (row.min_age is None or a >= row.min_age) and (row.max_age is None or a <= row.max_age)
                    for e, (a, s, r, m) in zip(expected, recs)]
        assert row.members(age, sex, race, married, 18).tolist() == expected, row.group
    # and by hand, for the first two: the 24-year-old White woman only; the Black women of 36 and 66
    assert rows[0].members(age, sex, race, married, 18).tolist() == [False, False, True] + [False] * 5
    assert np.nonzero(rows[1].members(age, sex, race, married, 18))[0].tolist() == [4, 5]
