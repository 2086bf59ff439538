"""Reconstruction attacks: the census block puzzle and the Dinur–Nissim attacks.

Two kinds of attack on published statistics (source 001, section 1.2):

* **Census reconstruction** (Garfinkel, Abowd and Martindale 2019). A block's
  table of counts, medians and means (:data:`CENSUS_TABLE1`) is a system of
  constraints on the unknown records. Written over the *histogram* of records
  (how many people have each combination of age, sex, race and marital status),
  every count and every sum of ages is linear, and a median is linear once the
  order statistics are pinned by indicator variables. The whole system is an
  integer linear program: :func:`census_block_solutions` solves it with HiGHS
  (:func:`scipy.optimize.milp`) and lists **all** solutions with no-good cuts.
* **Dinur–Nissim** (Dinur and Nissim 2003; Dwork and Roth 2014, section 8.1).
  A database is a bit vector ``d``; a subset query ``q`` asks ``q . d``.
  :func:`exponential_attack` keeps every candidate consistent with all ``2^n``
  noisy answers (Theorem 1: each is within ``4E`` of ``d``);
  :func:`lp_attack` decodes ``O(n)`` random queries by linear programming and
  rounding (Theorem 2). :func:`laplace_answers` and :func:`gaussian_answers`
  are the differentially private answers that defeat it.

>>> d = np.array([1, 0, 1, 0, 1])
>>> Q = all_subset_queries(5)
>>> exponential_attack(Q, Q @ d, bound=0).tolist()
[[1, 0, 1, 0, 1]]
"""

from __future__ import annotations

import itertools
import math
import numbers
import reprlib
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import median as _median

import numpy as np
import scipy.sparse as sps
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from ._validate import MAX_ENTRIES, check_in_range, check_integer, check_nonnegative, check_positive, check_rng
from .mechanisms import gaussian_sigma

__all__ = [
    "BlockStatistic",
    "CENSUS_TABLE1",
    "SEXES",
    "RACES",
    "age_triples",
    "census_block_solutions",
    "publish_block",
    "all_subset_queries",
    "random_subset_queries",
    "bounded_noise_answers",
    "exponential_attack",
    "lp_attack",
    "laplace_answers",
    "gaussian_answers",
]

#: The values of the ``sex`` column of a census record (female, male).
SEXES = ("F", "M")
#: The values of the ``race`` column of a census record (Black or African American, White).
RACES = ("B", "W")


# ---------------------------------------------------------------------------
# The census puzzle
# ---------------------------------------------------------------------------


def age_triples(median, mean, *, age_max=125, ordered=False) -> np.ndarray:
    """All age triples in ``0..age_max`` with the given median and (exact) mean, by brute force.

    Every one of the ``(age_max + 1)^3`` ordered triples is tested at once
    (vectorized); this is the enumeration behind statistic 2B of source 001,
    table 1 (three men, median 30, mean 44).

    Parameters
    ----------
    median, mean : float
        The published median and mean; the sum of ages must equal ``3 * mean``.
    age_max : int
        Largest possible age.
    ordered : bool
        ``False`` (default): one sorted row ``a <= b <= c`` per multiset of
        ages; ``True``: every ordered triple.

    Returns
    -------
    numpy.ndarray
        Integer array of shape ``(N, 3)``, rows in lexicographic order.

    >>> age_triples(2, 2, age_max=3).tolist()
    [[1, 2, 3], [2, 2, 2]]
    """
    age_max = check_integer("age_max", age_max, low=0, high=400)
    median = check_nonnegative("median", median)
    mean = check_nonnegative("mean", mean)
    ages = np.arange(age_max + 1, dtype=np.int32)
    a, b, c = (x.ravel() for x in np.meshgrid(ages, ages, ages, indexing="ij"))
    total = a + b + c
    middle = total - np.maximum(np.maximum(a, b), c) - np.minimum(np.minimum(a, b), c)  # the median of three
    keep = (middle == median) & (np.abs(total - 3 * mean) <= 1e-9 * (1 + 3 * mean))
    out = np.stack([a[keep], b[keep], c[keep]], axis=1)
    if not ordered:
        out = np.unique(np.sort(out, axis=1), axis=0)
    return out.astype(int)


@dataclass(frozen=True)
class BlockStatistic:
    """One row of a published block table: a group, and its count, median and mean age.

    ``None`` in ``count``/``median``/``mean`` marks a suppressed cell ("(D)").
    The group is the set of people matching every given filter: ``sex``
    (``"F"``/``"M"``), ``race`` (``"B"``/``"W"``), ``adult`` (aged at least
    the adult age), ``married`` (``True``/``False``) and ``min_age``/``max_age``
    (inclusive).

    Attributes
    ----------
    label : str
        The row's label in the published table (``"1A"``, ``"2B"``, ...).
    group : str
        The group in words (``"female"``, ``"married adults"``).
    count : int or None
        Number of people in the group.
    median, mean : float or None
        Median and mean age of the group.
    sex, race : str or None
        Filters on sex and race; ``None`` for no filter.
    adult : bool
        Whether only adults count.
    married : bool or None
        Filter on marital status; ``None`` for no filter.
    min_age, max_age : int or None
        Inclusive bounds on age; ``None`` for no bound.
    """

    label: str
    group: str
    count: int | None
    median: float | None
    mean: float | None
    sex: str | None = None
    race: str | None = None
    adult: bool = False
    married: bool | None = None
    min_age: int | None = None
    max_age: int | None = None

    def members(self, age, sex, race, married, adult_age):
        """Which of the given records belong to the group.

        Parameters
        ----------
        age, sex, race, married : array_like
            The records' columns, aligned.
        adult_age : int
            People of this age or older are adults.

        Returns
        -------
        ndarray of bool
            ``True`` for the records in the group.
        """
        age = np.asarray(age)
        ok = np.ones(age.shape, dtype=bool)
        if self.sex is not None:
            ok &= np.asarray(sex) == self.sex
        if self.race is not None:
            ok &= np.asarray(race) == self.race
        if self.adult:
            ok &= age >= adult_age
        if self.married is not None:
            ok &= np.asarray(married) == self.married
        if self.min_age is not None:
            ok &= age >= self.min_age
        if self.max_age is not None:
            ok &= age <= self.max_age
        return ok


#: A fictional census block of 7 people (source 001, table 1, after Garfinkel, Abowd and Martindale 2019).
#:
#: :meta hide-value:
CENSUS_TABLE1 = (
    BlockStatistic("1A", "total population", 7, 30, 38),
    BlockStatistic("2A", "female", 4, 30, 33.5, sex="F"),
    BlockStatistic("2B", "male", 3, 30, 44, sex="M"),
    BlockStatistic("2C", "Black or African American", 4, 51, 48.5, race="B"),
    BlockStatistic("2D", "White", 3, 24, 24, race="W"),
    BlockStatistic("3A", "single adults", None, None, None, adult=True, married=False),
    BlockStatistic("3B", "married adults", 4, 51, 54, adult=True, married=True),
    BlockStatistic("4A", "Black or African American female", 3, 36, 36.7, sex="F", race="B"),
    BlockStatistic("4B", "Black or African American male", None, None, None, sex="M", race="B"),
    BlockStatistic("4C", "White male", None, None, None, sex="M", race="W"),
    BlockStatistic("4D", "White female", None, None, None, sex="F", race="W"),
    BlockStatistic("5A", "persons under 5 years", None, None, None, max_age=4),
    BlockStatistic("5B", "persons under 18 years", None, None, None, max_age=17),
    BlockStatistic("5C", "persons 64 years or over", None, None, None, min_age=64),
)


def _round_interval(value, count, decimals):
    """Integer bounds on ``count * x`` for every ``x`` that rounds to ``value`` (ties either way)."""
    v = Fraction(str(value))
    h = Fraction(0) if decimals is None else Fraction(1, 2 * 10**decimals)
    return math.ceil(count * (v - h)), math.floor(count * (v + h))


def _check_statistics(statistics):
    stats = tuple(statistics)
    if not stats or not all(isinstance(s, BlockStatistic) for s in stats):
        raise ValueError("statistics must be a non-empty sequence of BlockStatistic")
    totals = [s for s in stats if s.count is not None and s == BlockStatistic(s.label, s.group, s.count, s.median, s.mean)]
    if not totals:
        raise ValueError("statistics must include the count of the whole population (a row with no filter)")
    for s in stats:
        if s.count is None and (s.median is not None or s.mean is not None):
            raise ValueError(f"statistics row {s.label} must publish its count if it publishes a median or mean")
        if s.count is not None:
            check_integer(f"statistics row {s.label}: count", s.count, low=0)
        for field in ("median", "mean"):
            if getattr(s, field) is not None:
                check_nonnegative(f"statistics row {s.label}: {field}", getattr(s, field))
    return stats, int(totals[0].count)


def census_block_solutions(
    statistics=CENSUS_TABLE1,
    *,
    age_max=125,
    adult_age=18,
    suppressed=(0, 2),
    decimals=1,
    minors_can_marry=False,
    max_solutions=50,
):
    """Every block of records consistent with a published table, by integer programming (HiGHS).

    The unknown is the histogram ``h[a, s, r, m]``: how many people have age
    ``a``, sex ``s``, race ``r`` and marital status ``m``. The solve runs in
    four steps, each a function of its own:

    1. :func:`_block_cells` lists the cells of the histogram;
    2. :func:`_cell_caps` bounds how many people each cell can hold;
    3. :func:`_statistic_rows` writes each published row as linear
       constraints: its count and its sum of ages are linear in ``h``, and so
       is "the ``k``-th smallest age lies in ``[lo, hi]``", through the
       group's cumulative counts ``C(t)`` (people aged ``<= t``):
       ``C(lo - 1) <= k - 1`` and ``C(hi) >= k``. The median of an odd group
       is one such order statistic; for an even group, the sum of the two
       middle ages is written with 0/1 "staircase" variables
       ``Y(t) = [C(t) >= k]`` (:func:`_median_rows`);
    4. :func:`_all_solutions` solves, forbids the histogram found with a
       no-good cut, and solves again until the program is infeasible, so the
       list is complete.

    Parameters
    ----------
    statistics : sequence of BlockStatistic
        The published table; must contain the total population count.
    age_max : int
        Ages range over ``0..age_max``.
    adult_age : int
        People aged ``>= adult_age`` count as adults (rows with ``adult=True``).
    suppressed : (int, int)
        A suppressed count "(D)" lies in this closed range; ``(0, 2)`` reads
        "(D)" as "fewer than three people", ``(1, 2)`` as "one or two".
    decimals : int or None
        Published means and medians are the true values rounded to this many
        decimals (ties either way); ``None`` means they are exact. A published value
        with more decimals than that (the book's table read with ``decimals=0``, as an
        exercise of the reconstruction chapter does) is taken as the centre of an interval
        of width ``10**-decimals``: the true value is within half of it either way.
    minors_can_marry : bool
        If ``False``, everybody under ``adult_age`` is single.
    max_solutions : int
        Stop after this many solutions (the result then may be incomplete).

    Returns
    -------
    list of tuple
        Each solution is a tuple of records ``(age, sex, race, married)``
        sorted by age; ``[]`` if the table is inconsistent with the assumptions.

    >>> sols = census_block_solutions()
    >>> len(sols), [r[0] for r in sols[0]]
    (1, [8, 18, 24, 30, 36, 66, 84])
    """
    stats, n = _check_statistics(statistics)
    age_max = check_integer("age_max", age_max, low=1, high=200)
    adult_age = check_integer("adult_age", adult_age, low=0, high=age_max)
    if decimals is not None:
        decimals = check_integer("decimals", decimals, low=0, high=6)
    max_solutions = check_integer("max_solutions", max_solutions, low=1)
    try:
        suppressed = tuple(check_integer("suppressed", x, low=0) for x in suppressed)
    except TypeError:
        raise ValueError(f"suppressed must be a pair (low, high) of counts, got {suppressed!r}") from None
    if len(suppressed) != 2 or suppressed[0] > suppressed[1]:
        raise ValueError(f"suppressed must be a pair (low, high) with low <= high, got {suppressed!r}")

    cells = _block_cells(age_max)
    cap = _cell_caps(stats, cells, n, adult_age=adult_age, suppressed=suppressed, minors_can_marry=minors_can_marry)
    live = cap > 0  # a cell that must stay empty needs no variable
    cells, cap = tuple(col[live] for col in cells), cap[live]
    program = _Program()
    H = program.new(cap.size, ub=cap, integer=True)
    for s in stats:
        _statistic_rows(program, H, s, cells, adult_age=adult_age, suppressed=suppressed, decimals=decimals)
    return _all_solutions(program, H, cells, cap, max_solutions)


def _block_cells(age_max):
    """Step 1: the cells of the histogram, one per (age, sex, race, married), as four aligned arrays."""
    age, sex, race, married = zip(*itertools.product(range(age_max + 1), SEXES, RACES, (False, True)))
    return np.array(age), np.array(sex), np.array(race), np.array(married)


def _cell_caps(stats, cells, n, *, adult_age, suppressed, minors_can_marry):
    """Step 2: the most people each cell can hold.

    A cell holds at most the published count of every group that contains it
    (the high end of ``suppressed`` for a suppressed count), and nobody if it
    is a married minor and minors cannot marry. The caps bound the integer
    variables and make the no-good cuts of step 4 short.
    """
    age, married = cells[0], cells[3]
    cap = np.full(age.size, n)
    for s in stats:
        group = s.members(*cells, adult_age)
        cap[group] = np.minimum(cap[group], suppressed[1] if s.count is None else int(s.count))
    if not minors_can_marry:
        cap[(age < adult_age) & married] = 0
    return cap


class _Program:
    """A mixed-integer linear feasibility program under construction: variables, bounds, rows."""

    def __init__(self):
        self.ub, self.integer, self.rows, self.lo, self.hi = [], [], [], [], []

    def new(self, k, *, ub=np.inf, integer=False):
        """Add ``k`` variables with lower bound 0 and the given upper bound(s); return their indices."""
        start = len(self.ub)
        self.ub.extend(np.broadcast_to(np.asarray(ub, dtype=float), (k,)).tolist())
        self.integer.extend([int(integer)] * k)
        return np.arange(start, start + k)

    def add(self, coef, low, high):
        """Add the row ``low <= sum(coef[j] * x[j]) <= high`` (``coef`` maps variable index to coefficient)."""
        self.rows.append({int(j): float(v) for j, v in coef.items()})
        self.lo.append(low)
        self.hi.append(high)

    def solve(self):
        """A feasible point (HiGHS via :func:`scipy.optimize.milp`), or ``None`` if there is none."""
        if not self.ub:     # no variable (a block of 0 people): feasible iff every row admits 0
            return np.zeros(0) if all(lo <= 0 <= hi for lo, hi in zip(self.lo, self.hi)) else None
        r_idx = [i for i, row in enumerate(self.rows) for _ in row]
        c_idx = [j for row in self.rows for j in row]
        vals = [v for row in self.rows for v in row.values()]
        A = sps.csr_array((vals, (r_idx, c_idx)), shape=(len(self.rows), len(self.ub)))
        res = milp(np.zeros(len(self.ub)), constraints=LinearConstraint(A, self.lo, self.hi),
                   integrality=np.array(self.integer), bounds=Bounds(0, np.array(self.ub)))
        return res.x


def _statistic_rows(program, H, stat, cells, *, adult_age, suppressed, decimals):
    """Step 3: the constraints one published row puts on the histogram ``H``: count, sum of ages, median."""
    age = cells[0]
    group = np.nonzero(stat.members(*cells, adult_age))[0]
    if stat.count is None:
        program.add({H[c]: 1.0 for c in group}, *suppressed)
        return
    count = int(stat.count)
    program.add({H[c]: 1.0 for c in group}, count, count)
    if count == 0:
        return
    if stat.mean is not None:
        low, high = _round_interval(stat.mean, count, decimals)
        program.add({H[c]: float(age[c]) for c in group}, low, high)
    if stat.median is not None:
        _median_rows(program, H[group], age[group], count, stat.median, decimals, int(age.max()))


def _order_statistic_rows(program, C, k, low, high):
    """The ``k``-th smallest age lies in ``[low, high]``: ``C(low - 1) <= k - 1`` and ``C(high) >= k``."""
    if low >= 1:
        program.add({C[min(low, len(C)) - 1]: 1.0}, -np.inf, k - 1)
    if high < 0:
        program.add({}, 1, np.inf)  # no age is negative: infeasible
    else:
        program.add({C[min(high, len(C) - 1)]: 1.0}, k, np.inf)


def _median_rows(program, H, ages, count, median, decimals, age_max):
    """The published (rounded) median of a group of ``count`` people whose cells are ``H`` with ``ages``.

    ``C(t)`` counts the group's people aged ``<= t``. For an odd count the
    median is the ``k``-th smallest age, ``k = (count + 1) / 2``, an integer
    that must lie in the rounding interval. For an even count the two middle
    ages ``x_k``, ``x_{k+1}`` (``k = count / 2``) must sum into the rounding
    interval ``[lo, hi]`` of twice the median. Then ``x_k <= hi / 2`` and
    ``x_{k+1} >= lo / 2``; inside its range ``[a, b]`` each is written as
    ``b - sum_t Y(t)`` with 0/1 staircases ``Y(t) = [C(t) >= k]`` over
    ``a <= t < b``, forced by ``C(t) >= k Y(t)`` and
    ``C(t) <= k - 1 + (count - k + 1) Y(t)``.
    """
    A = age_max + 1
    C = program.new(A)
    for t in range(A):
        coef = {C[t]: 1.0, **{h: -1.0 for h in H[ages == t]}}
        if t > 0:
            coef[C[t - 1]] = -1.0
        program.add(coef, 0, 0)
    if count % 2:
        low, high = _round_interval(median, 1, decimals)
        _order_statistic_rows(program, C, (count + 1) // 2, low, high)
        return
    low, high = _round_interval(median, 2, decimals)
    k = count // 2
    ranges = {k: (max(0, low - age_max), min(age_max, high // 2)),
              k + 1: (max(0, -(-low // 2)), min(age_max, high))}
    total, offset = {}, 0
    for kk, (a, b) in ranges.items():
        _order_statistic_rows(program, C, kk, a, b)
        offset += b
        Y = program.new(max(b - a, 0), ub=1, integer=True)
        for i, t in enumerate(range(a, b)):
            program.add({C[t]: 1.0, Y[i]: -float(kk)}, 0, np.inf)
            program.add({C[t]: 1.0, Y[i]: -float(count - kk + 1)}, -np.inf, kk - 1)
            if i > 0:
                program.add({Y[i]: 1.0, Y[i - 1]: -1.0}, 0, np.inf)
        total.update({y: -1.0 for y in Y})
    program.add(total, low - offset, high - offset)


def _all_solutions(program, H, cells, cap, max_solutions):
    """Step 4: solve, forbid the histogram found, and solve again until nothing is left.

    The no-good cut for a solution ``h*`` uses one 0/1 variable ``b_c`` per
    cell of its support, forced to 1 when ``h_c >= h*_c`` (by
    ``h_c - (cap_c - h*_c + 1) b_c <= h*_c - 1``), and asks
    ``sum_c b_c <= |support| - 1``. Every solution has the same total, so a
    different histogram has ``h_c < h*_c`` somewhere on the support of ``h*``
    and passes the cut, while ``h*`` itself fails it.
    """
    solutions = []
    while len(solutions) < max_solutions:
        x = program.solve()
        if x is None:
            break
        h = np.round(x[H]).astype(int)
        support = np.nonzero(h)[0]
        b = program.new(support.size, ub=1, integer=True)
        for bc, c in zip(b, support):
            program.add({H[c]: 1.0, bc: -float(cap[c] - h[c] + 1)}, -np.inf, h[c] - 1)
        program.add({bc: 1.0 for bc in b}, -np.inf, support.size - 1)
        records = [tuple(col[c].item() for col in cells) for c in support for _ in range(h[c])]
        solutions.append(tuple(sorted(records, key=_key)))
    return sorted(solutions)


def _key(rec):
    a, s, r, m = rec
    return (int(a), str(s), str(r), bool(m))


def publish_block(records, statistics=CENSUS_TABLE1, *, adult_age=18, decimals=1, threshold=3):
    """The table a statistics office would publish for ``records``: what the reconstruction must match.

    For each row, the group's count, median and mean age (rounded to
    ``decimals``), or ``(None, None, None)`` when the group has fewer than
    ``threshold`` people. Computed directly with :func:`statistics.median`, so
    it checks :func:`census_block_solutions` independently.

    Parameters
    ----------
    records : sequence of (age, sex, race, married)
        The block's people; ages are integers ``>= 0``.
    statistics : sequence of BlockStatistic
        The rows to publish; default :data:`CENSUS_TABLE1`.
    adult_age : int
        People of this age or older are adults, ``>= 0``.
    decimals : int or None
        Medians and means are rounded to this many decimals, in ``[0, 15]``; ``None`` keeps
        them exact.
    threshold : int
        Groups smaller than this are suppressed, ``>= 1``.

    Returns
    -------
    list of tuple
        ``(label, count, median, mean)`` for each row of ``statistics``; medians and means
        are ints when whole.

    Raises
    ------
    ValueError
        If ``records`` is empty or holds a malformed record, or a parameter is out of range.

    Examples
    --------
    >>> recs = [(8, "F", "B", False), (18, "M", "W", False), (24, "F", "W", False), (30, "M", "W", True),
    ...         (36, "F", "B", True), (66, "F", "B", True), (84, "M", "B", True)]
    >>> publish_block(recs)[0]
    ('1A', 7, 30, 38)
    """
    threshold = check_integer("threshold", threshold, low=1)
    adult_age = check_integer("adult_age", adult_age, low=0)
    if decimals is not None:
        decimals = check_integer("decimals", decimals, low=0, high=15)
    recs = list(records)
    if not recs:
        raise ValueError("records must be a non-empty sequence of (age, sex, race, married)")
    for rec in recs:
        if not (isinstance(rec, Sequence) and len(rec) == 4 and isinstance(rec[0], numbers.Integral)
                and not isinstance(rec[0], bool) and rec[0] >= 0):
            raise ValueError(f"records must be (age, sex, race, married) with an integer age >= 0, got {rec!r}")
    age, sex, race, married = (np.array(col, dtype=object) for col in zip(*recs))
    age = age.astype(int)
    out = []
    for s in statistics:
        ages = sorted(age[s.members(age, sex, race, married.astype(bool), adult_age)].tolist())
        if len(ages) < threshold:
            out.append((s.label, None, None, None))
            continue

        def rnd(x):
            x = round(Fraction(x), decimals) if decimals is not None else Fraction(x)
            return int(x) if x.denominator == 1 else float(x)

        out.append((s.label, len(ages), rnd(Fraction(_median(ages))), rnd(Fraction(sum(ages), len(ages)))))
    return out


# ---------------------------------------------------------------------------
# Dinur–Nissim
# ---------------------------------------------------------------------------


def all_subset_queries(n) -> np.ndarray:
    """All ``2^n`` subset queries as rows of a 0/1 matrix; row ``i`` holds the bits of ``i``.

    Parameters
    ----------
    n : int
        Number of records, in ``[1, 16]``.

    Returns
    -------
    ndarray of shape (2**n, n)
        The queries, as int64 0/1 rows; bit ``j`` of ``i`` (least significant first) in column ``j``.

    Raises
    ------
    ValueError
        If ``n`` is not an integer in ``[1, 16]``.

    Examples
    --------
    >>> all_subset_queries(2).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    """
    n = check_integer("n", n, low=1, high=16)
    return ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.int64)


def random_subset_queries(m, n, *, rng) -> np.ndarray:
    """``m`` random subset queries on ``n`` records: each record is in each query with probability 1/2.

    Parameters
    ----------
    m, n : int
        Numbers of queries and records, each in ``[1, 10**8]`` (an m-by-n array of int64 is
        drawn: 800 MB when the other is 1).
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    ndarray of shape (m, n)
        int64 0/1 entries, drawn with ``rng.integers(0, 2)``.

    Raises
    ------
    ValueError
        If ``m`` or ``n`` is not an integer in ``[1, 10**8]``, or ``rng`` is not a Generator.

    Examples
    --------
    >>> random_subset_queries(2, 3, rng=np.random.default_rng(0)).shape
    (2, 3)
    """
    m = check_integer("m", m, low=1, high=MAX_ENTRIES)
    n = check_integer("n", n, low=1, high=MAX_ENTRIES)
    rng = check_rng("rng", rng)
    return rng.integers(0, 2, size=(m, n), dtype=np.int64)


def bounded_noise_answers(d, queries, bound, *, kind="uniform", rng=None) -> np.ndarray:
    """Answers ``q . d + e_q`` to subset queries with every ``|e_q| <= bound``.

    Parameters
    ----------
    d : array_like of 0/1
        The secret database.
    queries : array_like
        0/1 matrix, one query per row.
    bound : float
        The noise magnitude ``E``.
    kind : {"uniform", "decoy"}
        ``"uniform"``: independent noise uniform on ``[-E, E]`` (needs ``rng``).
        ``"decoy"``: an adversarial mechanism that answers truthfully about a
        decoy database with ``floor(E)`` of the ones of ``d`` turned to zeros
        and ``floor(E)`` zeros turned to ones (the first ones and zeros by
        index). Each answer is then off by at most ``floor(E)``, yet the decoy
        is ``2 floor(E)`` bits from ``d``.
    rng : numpy.random.Generator, optional
        The source of the uniform noise; needed for ``kind="uniform"``.

    Returns
    -------
    ndarray of shape (m,)
        One answer per query: floats for ``"uniform"``, integers for ``"decoy"``.

    Raises
    ------
    ValueError
        If ``d`` is not a 0/1 vector, ``queries`` not a 0/1 matrix with one column per record,
        ``bound < 0``, ``kind`` unknown, ``rng`` missing for ``"uniform"``, or ``bound`` larger
        than the number of ones or of zeros of ``d`` for ``"decoy"``.

    Examples
    --------
    >>> bounded_noise_answers([1, 0, 1, 0], [[1, 1, 1, 1], [1, 0, 0, 0]], 1, kind="decoy").tolist()
    [2, 0]
    """
    d = _bits(d)
    Q = _queries(queries, d.size)
    bound = check_nonnegative("bound", bound)
    if kind == "uniform":
        rng = check_rng("rng", rng)
        exact = Q @ d
        out = exact + rng.uniform(-bound, bound, size=Q.shape[0])
        # rounding the sum can pass the bound by part of a unit in the last place (bound 5e-16
        # on an answer of 1 gave an error of 5.6e-16): one step back toward the exact answer
        over = np.abs(out - exact) > bound
        out[over] = np.nextafter(out[over], exact[over])
        return out
    if kind == "decoy":
        k = int(math.floor(bound))
        ones, zeros = np.nonzero(d == 1)[0], np.nonzero(d == 0)[0]
        if k > min(ones.size, zeros.size):
            raise ValueError(f"bound must be <= min(#ones, #zeros) = {min(ones.size, zeros.size)} for a decoy, got {bound}")
        decoy = d.copy()
        decoy[ones[:k]] = 0
        decoy[zeros[:k]] = 1
        return Q @ decoy
    raise ValueError(f"kind must be 'uniform' or 'decoy', got {kind!r}")


def _asarray(name: str, x, rule: str) -> np.ndarray:
    """``np.asarray(x)``, or a ValueError that names the parameter (numpy's own message for a ragged
    nesting of sequences, "setting an array element with a sequence", does not)."""
    try:
        return np.asarray(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {rule}, got {reprlib.repr(x)}") from None


def _bits(d):
    arr = _asarray("d", d, "a non-empty 1-D vector of 0/1 bits")
    if arr.ndim != 1 or arr.size == 0 or not np.all((arr == 0) | (arr == 1)):
        raise ValueError("d must be a non-empty 1-D vector of 0/1 bits")
    return arr.astype(np.int64)


def _queries(queries, n=None):
    Q = _asarray("queries", queries, "a non-empty 2-D 0/1 matrix (one query per row)")
    if Q.ndim != 2 or Q.size == 0 or not np.all((Q == 0) | (Q == 1)):
        raise ValueError("queries must be a non-empty 2-D 0/1 matrix (one query per row)")
    if n is not None and Q.shape[1] != n:
        raise ValueError(f"queries must have one column per record ({n}), got {Q.shape[1]}")
    return Q.astype(np.int64)


def _answers(answers, m):
    a = _asarray("answers", answers, f"{m} finite numbers, one per query")
    if a.dtype.kind == "O" and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in a.ravel()):
        a = a.astype(float)                            # exact rationals are fine
    if a.dtype.kind not in "iuf":
        raise ValueError(f"answers must be {m} finite numbers, one per query, got {reprlib.repr(answers)}")
    a = a.astype(float)
    if a.shape != (m,) or not np.all(np.isfinite(a)):
        raise ValueError(f"answers must be {m} finite numbers, one per query, got shape {a.shape}")
    return a


def exponential_attack(queries, answers, bound, *, chunk=256) -> np.ndarray:
    """All candidate databases consistent with every noisy answer (Dinur–Nissim, Theorem 1).

    A candidate ``c in {0,1}^n`` survives when ``|q . c - a_q| <= bound`` for
    every query. Dwork and Roth (2014, Theorem 8.1): if the true answers were
    perturbed by at most ``bound`` and the queries include all ``2^n`` subsets,
    every survivor differs from the true database in at most ``4 * bound``
    positions. All ``2^n`` candidates are tested against ``chunk`` queries at a
    time (one matrix product), and only the survivors go on to the next
    queries, so ``n`` should stay small (``n <= 16``).

    Parameters
    ----------
    queries : array_like
        0/1 matrix, one query per row, ``n <= 16`` columns.
    answers : array_like
        One finite answer per query.
    bound : float
        The noise bound ``E``, ``>= 0``.
    chunk : int
        Queries tested at once, ``>= 1`` (speed only).

    Returns
    -------
    numpy.ndarray
        The surviving candidates as rows (0/1, shape ``(k, n)``), in the order
        of the integers whose bits they are; the source's attack outputs the
        first.

    Raises
    ------
    ValueError
        If ``queries`` is not a 0/1 matrix with at most 16 columns, ``answers`` are not one
        finite number per query, ``bound < 0`` or ``chunk < 1``.

    Examples
    --------
    >>> Q = all_subset_queries(3)
    >>> exponential_attack(Q, Q @ np.array([0, 1, 1]) + 0.4, bound=0.5).tolist()
    [[0, 1, 1]]
    """
    Q = _queries(queries)
    n = Q.shape[1]
    if n > 16:
        raise ValueError(f"queries must have at most 16 columns for the exponential attack, got {n}")
    a = _answers(answers, Q.shape[0])
    bound = check_nonnegative("bound", bound)
    chunk = check_integer("chunk", chunk, low=1)
    cands = all_subset_queries(n)
    alive = np.arange(cands.shape[0])
    tol = 1e-9 * max(1.0, bound)
    for start in range(0, Q.shape[0], chunk):
        block = Q[start : start + chunk].T.astype(np.float64)
        gap = np.abs(cands[alive].astype(np.float64) @ block - a[start : start + chunk])
        alive = alive[np.all(gap <= bound + tol, axis=1)]
    return cands[alive]


def lp_attack(queries, answers, *, bound=None, return_fractional=False):
    """Reconstruct a bit database from noisy subset-query answers by linear programming and rounding.

    With ``bound=None`` (default) the attack needs no knowledge of the noise:
    it minimises the total deviation ``sum_q |q . x - a_q|`` over
    ``x in [0, 1]^n`` (L1 decoding, Dwork, McSherry and Talwar 2007). With a
    ``bound`` ``E`` it looks for any ``x in [0,1]^n`` with
    ``|q . x - a_q| <= E`` for all ``q`` (the attack of Dinur and Nissim 2003,
    Dwork and Roth 2014, section 8.1). Either way ``x`` is rounded to the
    nearest bits. Solved with HiGHS via :func:`scipy.optimize.linprog`.

    Parameters
    ----------
    queries : array_like
        0/1 matrix, one query per row.
    answers : array_like
        One finite answer per query.
    bound : float, optional
        The noise bound ``E``, ``>= 0``; ``None`` for L1 decoding.
    return_fractional : bool
        Also return the LP solution before rounding.

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, numpy.ndarray)
        The rounded 0/1 vector, and the fractional LP solution if requested.

    Raises
    ------
    ValueError
        If ``queries`` is not a 0/1 matrix, ``answers`` are not one finite number per query,
        ``bound < 0``, or no ``x`` meets the bound (the answers are inconsistent with it).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> d = rng.integers(0, 2, 40)
    >>> Q = random_subset_queries(160, 40, rng=rng)
    >>> bool(np.all(lp_attack(Q, Q @ d) == d))
    True
    """
    Q = _queries(queries)
    m, n = Q.shape
    a = _answers(answers, m)
    Qs = sps.csr_array(Q.astype(float))
    if bound is None:
        # variables x (n), e+ (m), e- (m):  Qx - e+ + e- = a,  minimise sum(e+ + e-)
        A_eq = sps.hstack([Qs, -sps.eye_array(m), sps.eye_array(m)], format="csr")
        c = np.concatenate([np.zeros(n), np.ones(2 * m)])
        bounds = [(0, 1)] * n + [(0, None)] * (2 * m)
        res = linprog(c, A_eq=A_eq, b_eq=a, bounds=bounds, method="highs-ipm")
    else:
        bound = check_nonnegative("bound", bound)
        A_ub = sps.vstack([Qs, -Qs], format="csr")
        b_ub = np.concatenate([a + bound, bound - a])
        res = linprog(np.zeros(n), A_ub=A_ub, b_ub=b_ub, bounds=(0, 1), method="highs-ipm")
    if res.status != 0:
        raise ValueError(f"bound must leave the linear program feasible (answers inconsistent): {res.message}")
    x = np.clip(res.x[:n], 0.0, 1.0)
    bits = (x >= 0.5).astype(np.int64)
    return (bits, x) if return_fractional else bits


def laplace_answers(d, queries, epsilon, *, rng) -> np.ndarray:
    """Answer all queries at once with Laplace noise that makes the whole answer vector epsilon-DP.

    Changing one record's bit (the replace-one relation) changes the answer to
    every query that contains the record by 1, so the L1 sensitivity of the
    answer vector is the largest column sum of the query matrix, ``Delta``.
    Adding independent ``Laplace(Delta / epsilon)`` noise to each answer is
    then epsilon-DP (Dwork et al. 2006; Dwork and Roth 2014, Theorem 3.6).
    Noise drawn with ``rng.laplace``.

    Parameters
    ----------
    d : array_like of 0/1
        The secret database.
    queries : array_like
        0/1 matrix, one query per row and one column per record.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : numpy.random.Generator
        The source of the noise.

    Returns
    -------
    ndarray of shape (m,)
        The noisy answers ``Q d + Laplace(Delta / epsilon)``.

    Raises
    ------
    ValueError
        If ``d`` or ``queries`` is malformed, ``epsilon <= 0`` or ``rng`` is not a Generator.

    Examples
    --------
    >>> Q = np.array([[1, 1], [0, 1]])
    >>> laplace_answers([1, 0], Q, 1.0, rng=np.random.default_rng(0)).shape
    (2,)
    """
    d = _bits(d)
    Q = _queries(queries, d.size)
    epsilon = check_positive("epsilon", epsilon)
    rng = check_rng("rng", rng)
    sensitivity = max(int(Q.sum(axis=0).max()), 1)
    return Q @ d + rng.laplace(0.0, sensitivity / epsilon, size=Q.shape[0])


def gaussian_answers(d, queries, epsilon, delta, *, rng) -> np.ndarray:
    """Answer all queries at once with Gaussian noise that makes the whole answer vector (epsilon, delta)-DP.

    Changing one record's bit (the replace-one relation) changes the answer to
    every query that contains the record by 1, so the L2 sensitivity of the
    answer vector is ``Delta_2 = sqrt(c)``, where ``c`` is the largest column
    sum of the query matrix. Independent ``N(0, sigma^2)`` noise with the
    smallest ``sigma`` the analytic Gaussian mechanism allows for
    ``Delta_2`` (Balle and Wang 2018, via
    :func:`dpnotes.mechanisms.gaussian_sigma`) is then (epsilon, delta)-DP.
    For ``m`` random subset queries ``c`` is about ``m / 2``, so with
    ``m = O(n)`` queries the noise is of order ``sqrt(n)``: the scale at which
    the LP attack stops working. Noise drawn with ``rng.normal``.

    Parameters
    ----------
    d : array_like of 0/1
        The secret database.
    queries : array_like
        0/1 matrix, one query per row and one column per record.
    epsilon : float
        Privacy parameter, ``> 0`` (any finite float: from ``1e16`` on, where the analytic
        ``sigma`` is the root of the tail bound to a double's precision, that closed form is used).
    delta : float
        Privacy parameter, in ``(0, 1)``.
    rng : numpy.random.Generator
        The source of the noise.

    Returns
    -------
    ndarray of shape (m,)
        The noisy answers ``Q d + N(0, sigma^2)``; ``sigma`` is about ``sqrt(c / (2 epsilon))`` for a
        huge ``epsilon`` (``7.07e-151 sqrt(c)`` at ``1e300``).

    Raises
    ------
    ValueError
        If ``d`` or ``queries`` is malformed, ``epsilon`` or ``delta`` is out of range, or
        ``rng`` is not a Generator.

    Examples
    --------
    >>> Q = np.array([[1, 1], [0, 1]])
    >>> gaussian_answers([1, 0], Q, 1.0, 1e-5, rng=np.random.default_rng(0)).shape
    (2,)
    """
    d = _bits(d)
    Q = _queries(queries, d.size)
    rng = check_rng("rng", rng)
    sensitivity = math.sqrt(max(int(Q.sum(axis=0).max()), 1))
    epsilon = check_positive("epsilon", epsilon)
    delta = check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    if epsilon >= _HUGE_EPSILON:
        sigma = sensitivity / _tail_bound_mu(epsilon, delta)
    else:
        sigma = gaussian_sigma(epsilon, delta, sensitivity=sensitivity, method="analytic")
    return Q @ d + rng.normal(0.0, sigma, size=Q.shape[0])


# From this epsilon on, the analytic Gaussian calibration is the root of its tail bound to within
# 1/(2 epsilon) = 5e-17 relative, below a double's rounding (see _tail_bound_mu).
_HUGE_EPSILON = 1e16


def _tail_bound_mu(epsilon: float, delta: float) -> float:
    r"""The root :math:`\mu_0` of :math:`\Phi(\mu/2 - \varepsilon/\mu) = \delta`, for ``epsilon >= 1e16``.

    The analytic calibration solves :math:`f(\mu) = \Phi(a) - e^{\varepsilon}\Phi(b) = \delta`,
    :math:`a = \mu/2 - \varepsilon/\mu`, :math:`b = -\mu/2 - \varepsilon/\mu`, with
    :math:`f'(\mu) = \varphi(a)` (as :math:`e^{\varepsilon}\varphi(b) = \varphi(a)`). At :math:`\mu_0`,
    :math:`f = \delta - e^{\varepsilon}\Phi(b_0)`, and by Mills' ratio
    :math:`e^{\varepsilon}\Phi(b_0) \le \varphi(a_0)/|b_0|` with :math:`|b_0| \ge \sqrt{2\varepsilon}`:
    the root is :math:`\mu^* = \mu_0(1 + \theta)` with :math:`0 \le \theta \lesssim 1/(2\varepsilon)`,
    ``5e-17`` at ``epsilon = 1e16`` (measured: ``5.0e-7`` at ``1e6``, ``5.0e-13`` at ``1e12``), so
    :math:`1/\mu_0` is the smallest sigma to a double's precision (an ulp or two of rounding; the
    exact :math:`1/\mu_0` is never below the exact calibration).
    :func:`dpnotes.mechanisms.gaussian_sigma` overflowed in ``math.exp`` here (``epsilon = 1e300``,
    or ``6e18`` at a subnormal ``delta``). Formed without overflow up to ``epsilon = 1.8e308``.
    """
    from scipy.special import ndtri

    z = float(ndtri(delta))                        # |z| < 38.5
    if epsilon < 8e307:
        root = math.sqrt(z * z + 2.0 * epsilon)
    else:                                          # 2 eps overflows: one more rounding, of sqrt(2)
        root = math.sqrt(2.0) * math.sqrt(epsilon + 0.5 * z * z)
    # z + root cancels for z < 0; its product form 2 eps / (root - z) does not (halved: 2 eps overflows)
    return 2.0 * (epsilon / (root - z)) if z < 0.0 else z + root
