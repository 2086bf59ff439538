r"""The census block of Part I released as the 2020 Census was, attacked again, and accounted for exactly.

The U.S. Census Bureau answered the reconstruction attack of Garfinkel, Abowd and Martindale
(the attack of :mod:`dpnotes.attacks`) with the *TopDown algorithm* of the 2020 Census
:cite:`abowd2022topdown`. This module is that algorithm in miniature, for the one block of seven
people of source 001's table 1:

1. **Measurements.** Count queries on the histogram of records, in the encoding of
   :func:`dpnotes.attacks.census_block_solutions` (one cell per age, sex, race and marital
   status): the whole histogram (TopDown's *detailed* query) and the count of every group of the
   table. Each is answered with the exact discrete Gaussian sampler of :mod:`dpnotes.discrete`
   under a share of a :math:`\rho`-zCDP budget (:func:`budget_split`, :func:`measure_block`).
2. **Invariant.** The block's total population is released exactly, as a matter of policy.
3. **Post-processing.** A non-negative least-squares fit of the measurements that keeps the
   invariant (:func:`least_squares_histogram`), then an integer program that rounds it to a
   table of people (:func:`round_histogram`): TopDown's two optimization stages.
4. **Tabulation and attack.** The protected records are tabulated in the format of the source's
   table (:func:`published_table`) and attacked with Part I's reconstruction, unchanged
   (:func:`reconstruction_study`).

For the accounting, :func:`composition_delta` and :func:`composition_epsilon` give the exact
privacy profile of a composition of discrete Gaussian mechanisms, :func:`zcdp_epsilon_cks` the
conversion from zCDP the Bureau used, and ``BUREAU_*`` the production parameters of the
redistricting data (persons), read from the Bureau's released production code.

Neighbours differ in one record (replace-one), the book's convention and the Bureau's
("bounded" DP): a replaced record moves two cells of the histogram by one each, and moves each
group count by at most one.

>>> q = block_queries()
>>> truth = attacks.census_block_solutions()[0]
>>> release = release_block(truth, math.inf, rng=np.random.default_rng(0), queries=q)
>>> release.records == truth                      # no noise: the block itself
True
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp, minimize
from scipy.special import logsumexp

from . import attacks
from ._validate import check_array, check_in_range, check_integer, check_positive, check_rng
from .attacks import CENSUS_TABLE1, BlockStatistic
from .composition import rdp_to_dp
from .discrete import discrete_gaussian_mechanism, discrete_gaussian_pmf
from .loss import _least_root

__all__ = [
    "BUREAU_PERSONS_GLOBAL_SCALE",
    "BUREAU_PERSONS_RHO",
    "BUREAU_DELTA",
    "BUREAU_GEOLEVEL_SHARES",
    "BUREAU_PERSONS_STRATEGY",
    "BUREAU_PERSONS_QUERY_SHARES",
    "BlockQueries",
    "Budget",
    "Measurement",
    "BlockRelease",
    "Study",
    "block_queries",
    "records_to_histogram",
    "histogram_to_records",
    "budget_split",
    "measure_block",
    "least_squares_histogram",
    "round_histogram",
    "release_block",
    "published_table",
    "people_recovered",
    "reconstruction_study",
    "max_groups_moved",
    "release_sigmas",
    "composition_delta",
    "composition_epsilon",
    "zcdp_epsilon_cks",
]

# ---------------------------------------------------------------------------
# The Bureau's production parameters (redistricting data, persons)
# ---------------------------------------------------------------------------

#: ``[budget] global_scale`` of ``configs/production/pl94/person_default.ini`` in the Bureau's
#: release of the redistricting production code (:cite:`census2021dasproduction`).
BUREAU_PERSONS_GLOBAL_SCALE = Fraction(339, 542)
#: The persons' total zCDP budget, ``1 / global_scale**2`` (``programs/engine/budget.py``), about 2.56.
BUREAU_PERSONS_RHO = 1 / BUREAU_PERSONS_GLOBAL_SCALE**2
#: The delta of the reported epsilon (``approx_dp_delta`` of ``configs/production/prod_default.ini``).
BUREAU_DELTA = 1e-10
#: ``geolevel_budget_prop`` of ``configs/production/pl94/person_US.ini``, top down.
#:
#: :meta hide-value:
BUREAU_GEOLEVEL_SHARES = {
    "US": Fraction(104, 4099), "State": Fraction(1440, 4099), "County": Fraction(447, 4099),
    "Tract": Fraction(687, 4099), "Block_Group": Fraction(1256, 4099), "Block": Fraction(165, 4099),
}
#: ``[budget] strategy`` of ``person_US.ini``, the class of ``programs/strategies/strategies.py`` that
#: sets the queries measured at each geographic level and each one's share of that level's budget.
BUREAU_PERSONS_STRATEGY = "ProductionCandidate20210527US_mult8_add02_dsepJune3"
_QUERY_NAMES = ("total", "cenrace", "hispanic", "votingage", "hhinstlevels", "hhgq", "hispanic * cenrace",
                "votingage * cenrace", "votingage * hispanic", "votingage * hispanic * cenrace", "detailed")


def _shares(level, *fractions):
    names = _QUERY_NAMES[1:] if level == "US" else _QUERY_NAMES     # the nation measures no total
    return dict(zip(names, (Fraction(n, d) for n, d in fractions), strict=True))


#: The query shares of :data:`BUREAU_PERSONS_STRATEGY`, level by level, copied from
#: ``strategies.py`` (:cite:`census2021dasproduction`). Every query is a marginal of the
#: histogram ``hhgq x votingage x hispanic x cenrace`` of each geographic unit; query ``q`` at
#: level ``g`` spends :math:`\rho_{g,q} = \rho \cdot` ``BUREAU_GEOLEVEL_SHARES[g]`` :math:`\cdot`
#: ``BUREAU_PERSONS_QUERY_SHARES[g][q]`` with noise :math:`\sigma^2 = 1/\rho_{g,q}`
#: (``programs/engine/engine_utils.py``, ``primitives.py``).
#:
#: :meta hide-value:
BUREAU_PERSONS_QUERY_SHARES = {
    "US": _shares("US", (52, 4097), (26, 4097), (26, 4097), (26, 4097), (26, 4097), (130, 4097), (130, 4097),
                  (26, 4097), (26, 241), (189, 241)),
    "State": _shares("State", (3773, 4097), (6, 4097), (6, 4097), (6, 4097), (6, 4097), (6, 4097), (12, 4097),
                     (12, 4097), (6, 4097), (2, 241), (230, 4097)),
    "County": _shares("County", (3126, 4097), (10, 4097), (10, 4097), (10, 4097), (10, 4097), (10, 4097),
                      (28, 4097), (28, 4097), (10, 4097), (101, 4097), (754, 4097)),
    "Tract": _shares("Tract", (1567, 4102), (4, 2051), (5, 4102), (5, 4102), (5, 4102), (5, 4102), (1933, 4102),
                     (10, 2051), (5, 4102), (67, 4102), (241, 2051)),
    "Block_Group": _shares("Block_Group", (1705, 4099), (3, 4099), (3, 4099), (3, 4099), (3, 4099), (3, 4099),
                           (1055, 4099), (9, 4099), (3, 4099), (24, 4099), (1288, 4099)),
    "Block": _shares("Block", (5, 4097), (9, 4097), (5, 4097), (5, 4097), (5, 4097), (5, 4097), (21, 4097),
                     (21, 4097), (5, 4097), (71, 4097), (3945, 4097)),
}

# ---------------------------------------------------------------------------
# The queries
# ---------------------------------------------------------------------------


def _is_total(stat: BlockStatistic) -> bool:
    """Whether a row of the table has no filter, so counts everybody (the test of attacks._check_statistics)."""
    return stat == BlockStatistic(stat.label, stat.group, stat.count, stat.median, stat.mean)


@dataclass(frozen=True, eq=False)
class BlockQueries:
    """The cells of the histogram of records and the group-count queries on it.

    ``cells`` are four aligned arrays (age, sex, race, married) listing every possible record:
    the cells of :func:`dpnotes.attacks.census_block_solutions` without the married minors
    (Part I's assumption 4; TopDown calls such impossible cells *structural zeros*).
    ``membership[k, c]`` says whether cell ``c`` is in the group of ``groups[k]``. The row
    ``total`` counts everybody; it is the invariant, released exactly, and is not a query.

    Attributes
    ----------
    statistics : tuple of BlockStatistic
        The rows of the table, the total included.
    total : BlockStatistic
        The row with no filter.
    groups : tuple of BlockStatistic
        The other rows, whose counts are the queries.
    cells : tuple of four ndarray
        Age, sex, race and married of every possible record.
    membership : ndarray of bool, shape (len(groups), n_cells)
        Which cells each group contains.
    age_max, adult_age : int
        The ages of the cells are ``0..age_max``; adults are aged ``adult_age`` or more.
    """

    statistics: tuple
    total: BlockStatistic
    groups: tuple
    cells: tuple
    membership: np.ndarray
    age_max: int
    adult_age: int

    @property
    def n_cells(self) -> int:
        """The number of cells of the histogram (an int)."""
        return int(self.cells[0].size)

    @cached_property
    def index(self) -> dict:
        """The cell index of each record ``(age, sex, race, married)`` (a dict)."""
        return {rec: i for i, rec in enumerate(zip(*(col.tolist() for col in self.cells)))}


def block_queries(statistics=CENSUS_TABLE1, *, age_max=125, adult_age=18) -> BlockQueries:
    """The histogram cells and count queries of a block table (by default source 001's table 1).

    Parameters
    ----------
    statistics : sequence of BlockStatistic
        The table; one row must have no filter (the total population, the invariant).
    age_max, adult_age : int
        Ages are ``0..age_max``; people aged ``adult_age`` or more are adults, and nobody
        younger is married (the assumptions of :func:`dpnotes.attacks.census_block_solutions`).

    Returns
    -------
    BlockQueries

    Raises
    ------
    ValueError
        If the table has no total row or the ages are out of range.

    Examples
    --------
    >>> q = block_queries()
    >>> q.n_cells, len(q.groups), q.total.label            # 126 ages x 8 - 18 x 4 married minors
    (936, 13, '1A')
    """
    stats = tuple(statistics)
    if not stats or not all(isinstance(s, BlockStatistic) for s in stats):
        raise ValueError("statistics must be a non-empty sequence of BlockStatistic")
    totals = [s for s in stats if _is_total(s)]
    if not totals:
        raise ValueError("statistics must include the total population (a row with no filter)")
    age_max = check_integer("age_max", age_max, low=1, high=200)
    adult_age = check_integer("adult_age", adult_age, low=0, high=age_max)
    age, sex, race, married = attacks._block_cells(age_max)
    keep = ~((age < adult_age) & married)                      # structural zeros: married minors
    cells = tuple(col[keep] for col in (age, sex, race, married))
    groups = tuple(s for s in stats if s is not totals[0])
    membership = np.array([s.members(*cells, adult_age) for s in groups], dtype=bool).reshape(len(groups), cells[0].size)
    return BlockQueries(stats, totals[0], groups, cells, membership, age_max, adult_age)


def _queries(queries) -> BlockQueries:
    if queries is None:
        return block_queries()
    if not isinstance(queries, BlockQueries):
        raise ValueError(f"queries must be a BlockQueries (from block_queries()), got {type(queries).__name__}")
    return queries


def records_to_histogram(records, queries=None) -> np.ndarray:
    """The histogram of a block: how many of ``records`` fall in each cell.

    Parameters
    ----------
    records : sequence of (age, sex, race, married)
    queries : BlockQueries, optional
        Default :func:`block_queries` ``()``.

    Returns
    -------
    numpy.ndarray
        int64 counts, one per cell.

    Raises
    ------
    ValueError
        If a record is not a cell (an age out of range, a married minor, an unknown category).

    Examples
    --------
    >>> q = block_queries()
    >>> h = records_to_histogram([(30, "M", "W", True), (30, "M", "W", True)], q)
    >>> int(h.sum()), int(h.max())
    (2, 2)
    """
    q = _queries(queries)
    h = np.zeros(q.n_cells, dtype=np.int64)
    for rec in records:
        try:
            key = (int(rec[0]), str(rec[1]), str(rec[2]), bool(rec[3]))
            h[q.index[key]] += 1
        except (KeyError, TypeError, IndexError, ValueError):
            raise ValueError(f"records must be (age, sex, race, married) cells of the histogram, got {rec!r}") from None
    return h


def histogram_to_records(histogram, queries=None) -> tuple:
    """The records of a histogram, as a tuple sorted like the solutions of the attack.

    Parameters
    ----------
    histogram : array_like of non-negative int
        One count per cell of ``queries``.
    queries : BlockQueries, optional

    Returns
    -------
    tuple of (age, sex, race, married)

    Raises
    ------
    ValueError
        If the histogram has the wrong length or a negative or non-integer count.

    Examples
    --------
    >>> q = block_queries()
    >>> recs = ((8, "F", "B", False), (30, "M", "W", True))
    >>> histogram_to_records(records_to_histogram(recs, q), q) == recs
    True
    """
    q = _queries(queries)
    h = np.asarray(histogram)
    if h.shape != (q.n_cells,) or h.dtype.kind not in "iuf":
        raise ValueError(f"histogram must be {q.n_cells} counts, got shape {h.shape}")
    if not np.all(np.isfinite(h)) or np.any(h < 0) or np.any(h != np.round(h)):
        raise ValueError("histogram must hold non-negative integer counts")
    recs = [tuple(col[c].item() for col in q.cells) for c in np.nonzero(h)[0] for _ in range(int(h[c]))]
    return tuple(sorted(recs, key=attacks._key))


# ---------------------------------------------------------------------------
# The budget and the noisy measurements
# ---------------------------------------------------------------------------


def _smallest_sigma(variance: Fraction) -> float:
    """The smallest double ``s`` with ``s**2 >= variance`` (exactly), so the budget is never exceeded.

    The first guess is an integer square root of ``variance`` scaled to about 110 bits, not
    ``math.sqrt(float(variance))``: the variance of a subnormal budget passes the largest double
    (rho = 5e-324 raised "integer division result too large for a float"), its root does not.
    """
    p, q = variance.numerator, variance.denominator
    e = (110 - p.bit_length() + q.bit_length()) // 2          # p 4^e / q is about 2^110
    n = (p << (2 * e)) // q if e >= 0 else p // (q << (-2 * e))
    s = math.ldexp(float(math.isqrt(n)), -e)
    while Fraction(s) ** 2 < variance:
        s = math.nextafter(s, math.inf)
    while s > 0 and Fraction(math.nextafter(s, 0.0)) ** 2 >= variance:
        s = math.nextafter(s, 0.0)
    return s


@dataclass(frozen=True)
class Budget:
    r"""How a :math:`\rho`-zCDP budget is split across the queries, and the noise it buys.

    ``rho_detailed`` goes to the histogram (:math:`\ell_2` sensitivity :math:`\sqrt 2`: a
    replaced record moves two cells by one) and ``rho_group`` to each of ``n_groups`` group
    counts (sensitivity 1); :math:`\sigma^2 = \Delta^2/(2\rho)` for each. ``rho = inf`` means
    no noise (``sigma = 0``).

    Attributes
    ----------
    rho : float
        The whole budget.
    detailed_share : float
        The share of ``rho`` spent on the histogram.
    n_groups : int
        Number of group counts.
    rho_detailed, rho_group : float
        The budget of the histogram and of each group count.
    sigma_detailed, sigma_group : float
        The discrete Gaussian noise scales they buy.
    """

    rho: float
    detailed_share: float
    n_groups: int
    rho_detailed: float
    rho_group: float
    sigma_detailed: float
    sigma_group: float

    @property
    def shares(self) -> np.ndarray:
        """The per-query budgets, the histogram's first and then one per group count (an array)."""
        return np.array([self.rho_detailed] + [self.rho_group] * self.n_groups)


def budget_split(rho, n_groups, *, detailed_share=0.5) -> Budget:
    r"""Split a :math:`\rho`-zCDP budget: ``detailed_share`` to the histogram, the rest equally to the group counts.

    The discrete Gaussian mechanism with :math:`\mathcal N_{\mathbb Z}(0,\sigma^2)` noise on each
    coordinate of an integer vector query of :math:`\ell_2` sensitivity :math:`\Delta` is
    :math:`\Delta^2/(2\sigma^2)`-zCDP (:cite:`canonne2020discrete` Theorem 14), and zCDP budgets
    add under composition (:cite:`bun2016concentrated` Lemma 2.3). So the histogram
    (:math:`\Delta^2 = 2`) gets :math:`\sigma^2 = 1/\rho_{\mathrm{detailed}}` and each count
    (:math:`\Delta = 1`) :math:`\sigma^2 = 1/(2\rho_{\mathrm{group}})`, each :math:`\sigma`
    rounded up to a double, so that the release is :math:`\rho`-zCDP.

    Parameters
    ----------
    rho : float
        ``> 0``, of any size (at 5e-324 ``sigma_detailed`` is 6.4e161); ``math.inf`` for a release
        without noise.
    n_groups : int
        Number of group counts, ``>= 1``.
    detailed_share : float
        In ``(0, 1)``.

    Returns
    -------
    Budget

    Raises
    ------
    ValueError
        For a parameter out of range.

    Examples
    --------
    >>> b = budget_split(2.0, 4, detailed_share=0.5)
    >>> b.rho_detailed, b.rho_group, float(b.shares.sum())
    (1.0, 0.25, 2.0)
    >>> b.sigma_detailed, b.sigma_group                    # 1/rho_detailed = 1, 1/(2 rho_group) = 2
    (1.0, 1.4142135623730951)
    """
    rho = check_positive("rho", rho) if not (isinstance(rho, (int, float)) and rho == math.inf) else math.inf
    n_groups = check_integer("n_groups", n_groups, low=1)
    share = check_in_range("detailed_share", detailed_share, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    if math.isinf(rho):
        return Budget(math.inf, share, n_groups, math.inf, math.inf, 0.0, 0.0)
    # The split is exact (Fractions), so that 1/sigma_d^2 + n_groups/(2 sigma_g^2) <= rho holds exactly;
    # splitting in floating point overspent rho by an ulp in about 2% of random cases.
    rho_d = Fraction(rho) * Fraction(share)
    rho_g = (Fraction(rho) - rho_d) / n_groups
    sigma_d = _smallest_sigma(1 / rho_d)
    sigma_g = _smallest_sigma(1 / (2 * rho_g))
    return Budget(rho, share, n_groups, float(rho_d), float(rho_g), sigma_d, sigma_g)


@dataclass(frozen=True)
class Measurement:
    """The noisy measurements of a block: the histogram, the group counts, and the exact total.

    Attributes
    ----------
    detailed : ndarray of int64
        The noisy histogram, one count per cell.
    groups : ndarray of int64
        The noisy group counts.
    total : int
        The true number of people (the invariant).
    budget : Budget
        The budget and noise scales used.
    """

    detailed: np.ndarray
    groups: np.ndarray
    total: int
    budget: Budget


# discrete_gaussian_mechanism's largest sigma (value + noise fits in int64 but with probability e^-128)
_MAX_RELEASE_SIGMA = 2**58


def _release_budget(rho, n_groups: int, detailed_share) -> Budget:
    """:func:`budget_split`, refused by the parameters that made a noise scale too large to release.

    The discrete Gaussian release is int64, so each sigma must be <= 2**58
    (:func:`dpnotes.discrete.discrete_gaussian_mechanism`): sigma_detailed^2 = 1/(rho * share) and
    sigma_group^2 = n_groups/(2 rho (1 - share)). At rho = 1e-300 the mechanism refused sigma
    = 1.4e150 after the fact, by "value + noise" and naming neither rho nor detailed_share.
    """
    budget = budget_split(rho, n_groups, detailed_share=detailed_share)
    if max(budget.sigma_detailed, budget.sigma_group) > _MAX_RELEASE_SIGMA:
        raise ValueError(
            f"rho * detailed_share must be >= 2**-116 (1.2e-35) and rho * (1 - detailed_share) >= "
            f"{n_groups} * 2**-117 (one share per group count) for the noise scales to stay <= 2**58, so "
            f"that value + noise fits in int64; got rho = {budget.rho!r}, detailed_share = "
            f"{budget.detailed_share!r} (sigma_detailed = {budget.sigma_detailed:.3g}, sigma_group = "
            f"{budget.sigma_group:.3g})")
    return budget


def measure_block(records, rho, *, rng, queries=None, detailed_share=0.5) -> Measurement:
    r"""TopDown's measurements of one block: every count query answered with exact discrete Gaussian noise.

    The histogram of ``records`` gets independent :math:`\mathcal N_{\mathbb Z}(0,\sigma_d^2)`
    noise on every cell, then each group count :math:`\mathcal N_{\mathbb Z}(0,\sigma_g^2)` noise,
    both from :func:`dpnotes.discrete.discrete_gaussian_mechanism` (exact sampling, histogram
    first, from the same ``rng``), with the scales of :func:`budget_split`. The release is
    :math:`\rho`-zCDP for replace-one neighbours (:cite:`canonne2020discrete` Theorem 14,
    :cite:`bun2016concentrated` Lemma 2.3). The total population is returned exactly: the
    invariant, which that guarantee does not cover.

    Parameters
    ----------
    records : sequence of (age, sex, race, married)
        The confidential block.
    rho : float
        The zCDP budget, ``> 0``, or ``math.inf`` for exact measurements. The noisy counts are
        int64, so the noise scales must stay <= ``2**58``: ``rho * detailed_share >= 2**-116``
        (1.2e-35) and ``rho * (1 - detailed_share) >= n_groups * 2**-117`` (``n_groups`` = 13 for
        :func:`block_queries`).
    rng : numpy.random.Generator
    queries : BlockQueries, optional
    detailed_share : float
        Share of ``rho`` for the histogram, in ``(0, 1)`` (and within the bounds above).

    Returns
    -------
    Measurement

    Raises
    ------
    ValueError
        For a bad parameter or a record that is not a cell; for a ``rho`` or ``detailed_share`` that
        makes a noise scale too large for an int64 release (the message names both and the bounds).

    Examples
    --------
    >>> q = block_queries()
    >>> truth = attacks.census_block_solutions()[0]
    >>> m = measure_block(truth, 1.0, rng=np.random.default_rng(0), queries=q)
    >>> m.detailed.shape, m.groups.shape, m.total
    ((936,), (13,), 7)
    """
    q = _queries(queries)
    h = records_to_histogram(records, q)
    budget = _release_budget(rho, len(q.groups), detailed_share)
    rng = check_rng("rng", rng)
    counts = q.membership.astype(np.int64) @ h
    if math.isinf(budget.rho):
        return Measurement(h.copy(), counts, int(h.sum()), budget)
    noisy_h = discrete_gaussian_mechanism(h, budget.sigma_detailed, rng=rng)
    noisy_counts = discrete_gaussian_mechanism(counts, budget.sigma_group, rng=rng)
    return Measurement(noisy_h, noisy_counts, int(h.sum()), budget)


# ---------------------------------------------------------------------------
# Post-processing: least squares, then an integer program
# ---------------------------------------------------------------------------


def _simplex_shift(y: np.ndarray, total: float) -> float:
    """The theta with sum(max(0, y + theta)) = total (> 0): the Euclidean projection onto the simplex.

    The sorted-prefix rule of Held, Wolfe and Crowder (1974); see Duchi et al. (2008), Figure 1.
    """
    s = np.sort(y)[::-1]
    css = np.cumsum(s)
    k = np.arange(1, s.size + 1)
    j = np.nonzero(s + (total - css) / k > 0)[0][-1]
    return float((total - css[j]) / (j + 1))


def least_squares_histogram(measurement, queries=None, *, tol=1e-9) -> np.ndarray:
    r"""TopDown's first stage: the non-negative weighted least-squares histogram that keeps the invariant.

    Solves

    .. math:: \min_{h \ge 0,\ \mathbf 1^\top h = N}\ w_d \lVert h - y_d\rVert^2
              + w_g \sum_k (g_k^\top h - y_k)^2,

    with :math:`y_d` the noisy histogram, :math:`y_k` the noisy group counts, :math:`g_k` the
    0/1 rows of the groups and the weights :math:`w = 1/\sigma^2` of the noise (TopDown weights
    by the discrete Gaussian's variance, which is :math:`\sigma^2` to within :math:`3\times10^{-7}` for
    :math:`\sigma \ge 1` but vanishes like :math:`e^{-1/(2\sigma^2)}` for small :math:`\sigma`,
    where it would make the problem badly scaled). The problem is strongly convex. Divided by
    :math:`w_d`, its Lagrange dual in the multipliers :math:`u` of :math:`t = Gh` and
    :math:`\lambda` of the total is smooth and concave, with the primal solution
    :math:`h_c = \max\big(0,\ y_{d,c} + \lambda - (G^\top u)_c\big)` and gradient
    :math:`(Gh - y - u/r,\ N - \mathbf 1^\top h)`, :math:`r = w_g/w_d`. It is maximized with
    :func:`scipy.optimize.minimize` (``trust-exact``, with the exact piecewise Hessian), from the
    projection of :math:`y_d` onto the simplex. (No scipy routine solves a least-squares problem
    with bounds *and* an equality constraint, hence the dual.)

    Parameters
    ----------
    measurement : Measurement
    queries : BlockQueries, optional
        The queries ``measurement`` was taken with.
    tol : float
        Largest accepted dual gradient (in people); a larger one raises ``RuntimeError``. At least
        ``2**-45 * max(1, total) + 2**-53 * largest |noisy count|`` (2e-13 for a block of 7 people
        at rho = 1): the gradient is a sum of rounded counts, which the solver gets to 15 to 40
        rounding units of the total and about one of the largest count, not below. (The default
        ``1e-9`` is accepted up to 35 000 people; noisy counts past about 1e6, from rho below
        1e-10, can keep the solver from converging at all.)

    Returns
    -------
    numpy.ndarray
        The float histogram, ``>= 0``, summing to the total.

    Raises
    ------
    ValueError
        If the measurement does not fit the queries, or ``tol`` is below its floor (the message
        gives it).
    RuntimeError
        If the solver stops with a dual gradient above ``tol``.

    Examples
    --------
    >>> q = block_queries()
    >>> truth = attacks.census_block_solutions()[0]
    >>> m = measure_block(truth, 1.0, rng=np.random.default_rng(1), queries=q)
    >>> x = least_squares_histogram(m, q)
    >>> bool(x.min() >= 0), round(float(x.sum()), 9)
    (True, 7.0)
    """
    q = _queries(queries)
    if not isinstance(measurement, Measurement):
        raise ValueError(f"measurement must be a Measurement (from measure_block), got {type(measurement).__name__}")
    if measurement.detailed.shape != (q.n_cells,) or measurement.groups.shape != (len(q.groups),):
        raise ValueError("measurement must have one count per cell and one per group of queries")
    tol = check_positive("tol", tol)
    b, total = measurement.budget, measurement.total
    yd = measurement.detailed.astype(float)
    if total == 0:
        return np.zeros(q.n_cells)
    if b.sigma_detailed == 0.0:                       # exact measurements: the histogram itself
        if np.any(yd < 0) or yd.sum() != total:
            raise ValueError("an exact measurement must be a histogram with the invariant total")
        return yd
    yg = measurement.groups.astype(float)
    # The dual gradient is a sum of rounded counts: the solver got it to 15 to 40 rounding units of the
    # total (6e-14 at 7 people, 2e-10 at 60 000), and never below about one rounding unit of the largest
    # noisy count (1.2e-10 at counts of 9e5); not to 1e-300, which raised RuntimeError whatever the data.
    # The floor: 128 units of the total (3 times the worst seen), half a unit of the largest count.
    largest = max(float(np.abs(yd).max()), float(np.abs(yg).max(initial=0.0)))
    floor = 2.0**-45 * max(1.0, float(total)) + 2.0**-53 * largest
    if tol < floor:
        raise ValueError(f"tol must be >= 2**-45 * max(1, total) + 2**-53 * largest |noisy count| = {floor:.3g} "
                         f"for this measurement (the dual gradient is rounded at about that size), got {tol!r}")
    G = q.membership.astype(float)
    r = b.sigma_detailed**2 / b.sigma_group**2          # w_g / w_d: the objective divided by w_d
    k = len(q.groups)

    def primal(z):
        return np.maximum(0.0, yd + z[k] - G.T @ z[:k])

    def neg_dual(z):
        u, lam = z[:k], z[k]
        h = primal(z)
        value = (0.5 * np.sum((h - yd) ** 2) + np.sum((G.T @ u - lam) * h)
                 - np.sum(u * yg + u * u / (2 * r)) + lam * total)
        grad = np.concatenate([G @ h - yg - u / r, [total - h.sum()]])
        return -value, -grad

    def neg_dual_hessian(z):
        active = primal(z) > 0
        B = np.vstack([G[:, active], -np.ones(active.sum())])
        H = B @ B.T
        H[np.arange(k), np.arange(k)] += 1 / r
        return H

    z0 = np.zeros(k + 1)
    z0[k] = _simplex_shift(yd, total)
    res = minimize(neg_dual, z0, jac=True, hess=neg_dual_hessian, method="trust-exact",
                   options={"gtol": tol / 10, "maxiter": 500})
    h = primal(res.x)
    gap = float(np.max(np.abs(neg_dual(res.x)[1])))
    if gap > tol:
        raise RuntimeError(f"least squares did not converge (dual gradient {gap:.2e} > tol {tol:.2e}): {res.message}")
    return h


def round_histogram(x, queries=None, *, total=None) -> np.ndarray:
    r"""TopDown's second stage: round a least-squares histogram to a table of people with an integer program.

    Each cell becomes the floor of :math:`x_c` plus :math:`b_c \in \{0, 1\}` (only cells with a
    fractional :math:`x_c` can go up; :math:`x_c` within :math:`10^{-9}` of an integer counts as
    that integer), as in TopDown's rounder (``programs/optimization/optimizer.py`` of
    :cite:`census2021dasproduction`). The program keeps the invariant,
    :math:`\sum_c h_c = N`, and minimizes the :math:`L_1` distance to :math:`x` of the cells and
    of the group counts, :math:`\sum_c |h_c - x_c| + \sum_k |g_k^\top h - g_k^\top x|`, solved by
    HiGHS (:func:`scipy.optimize.milp`). It is always feasible: the floors sum to at most
    :math:`N` and the ceilings to at least :math:`N`.

    Cells that belong to the same groups (an *atom*) change the group terms alike, so an optimum
    rounds up, in each atom, the cells with the largest fractional parts (swapping a chosen cell
    for a cheaper one of its atom changes nothing else). The program therefore has one integer
    variable per atom, the number of its cells rounded up, and the cells' costs enter in
    increasing order through continuous variables, which the optimum fills cheapest first: a
    few dozen integer variables instead of one per cell, and no interchangeable ones.

    Parameters
    ----------
    x : array_like
        Non-negative float histogram.
    queries : BlockQueries, optional
    total : int, optional
        The invariant :math:`N`; default ``round(sum(x))``, which must be within ``1e-6`` of
        ``sum(x)``.

    Returns
    -------
    numpy.ndarray
        int64 histogram, ``>= 0``, summing to ``total``, each cell the floor or the ceiling of ``x``.

    Raises
    ------
    ValueError
        If ``x`` is negative, of the wrong length, or does not sum to ``total``.

    Examples
    --------
    >>> q = block_queries()
    >>> x = np.zeros(q.n_cells); x[:3] = [0.6, 0.7, 0.7]         # two people in three half-cells
    >>> h = round_histogram(x, q)
    >>> int(h.sum()), h[:3].tolist()
    (2, [0, 1, 1])
    """
    q = _queries(queries)
    x = check_array("x", x, allow_inf=True, allow_nan=True, allow_empty=True)
    if x.shape != (q.n_cells,) or not np.all(np.isfinite(x)) or np.any(x < -1e-12):
        raise ValueError(f"x must be {q.n_cells} non-negative finite numbers")
    n = int(round(x.sum())) if total is None else check_integer("total", total, low=0)
    if abs(x.sum() - n) > 1e-6:
        raise ValueError(f"x must sum to total = {n}, got {float(x.sum())!r}")
    near = np.abs(x - np.round(x)) <= 1e-9
    xs = np.where(near, np.round(x), np.maximum(x, 0.0))
    floor = np.floor(xs)
    free = np.nonzero(xs > floor)[0]
    need = n - int(floor.sum())
    if need == 0 or free.size == 0:
        if need != 0:
            raise ValueError(f"x must sum to total = {n}")
        return floor.astype(np.int64)
    G = q.membership.astype(float)
    k = G.shape[0]
    cost = 1 - 2 * (xs[free] - floor[free])          # |floor + b - x| = frac + (1 - 2 frac) b
    # Cells with the same groups are interchangeable for the group terms: an atom a takes its n_a
    # cheapest cells. Variables: n_a (integer), z_aj in [0, 1] (the atom's cells, cheapest first,
    # so the program fills them in order and needs no 0/1 variables), e_k >= |group deviation k|.
    patterns, atom = np.unique(G[:, free].T, axis=0, return_inverse=True)
    atom = atom.ravel()
    order = np.lexsort((cost, atom))                 # by atom, then by cost
    n_atoms, m = patterns.shape[0], free.size
    gap = G @ floor - G @ x                          # group counts of the floor minus those of x
    c = np.concatenate([np.zeros(n_atoms), cost[order], np.ones(k)])
    fill = np.zeros((n_atoms, n_atoms + m + k))
    fill[np.arange(n_atoms), np.arange(n_atoms)] = -1.0
    fill[atom[order], n_atoms + np.arange(m)] = 1.0  # sum_j z_aj - n_a = 0
    groups_plus = np.hstack([patterns.T, np.zeros((k, m)), -np.eye(k)])
    groups_minus = np.hstack([-patterns.T, np.zeros((k, m)), -np.eye(k)])
    total_row = np.concatenate([np.ones(n_atoms), np.zeros(m + k)])[None, :]
    A = np.vstack([fill, groups_plus, groups_minus, total_row])
    lo = np.concatenate([np.zeros(n_atoms), np.full(2 * k, -np.inf), [need]])
    hi = np.concatenate([np.zeros(n_atoms), -gap, gap, [need]])
    size = np.bincount(atom, minlength=n_atoms).astype(float)
    problem = dict(c=c, constraints=LinearConstraint(A, lo, hi),
                   integrality=np.concatenate([np.ones(n_atoms), np.zeros(m + k)]),
                   bounds=Bounds(np.zeros(n_atoms + m + k), np.concatenate([size, np.ones(m), np.full(k, np.inf)])))
    res = milp(**problem)
    if res.x is None:                                 # HiGHS's presolve restarts can end in "Solve error": without it
        res = milp(**problem, options={"presolve": False})
    if res.x is None:                                 # cannot happen: need <= m, see the docstring
        raise RuntimeError(f"rounding failed: {res.message}")
    take = np.round(res.x[:n_atoms]).astype(int)
    rank = np.empty(m, dtype=int)                    # position of each free cell among its atom's, cheapest first
    starts = np.concatenate([[0], np.cumsum(np.bincount(atom, minlength=n_atoms))[:-1]])
    rank[order] = np.arange(m) - starts[atom[order]]
    h = floor.copy()
    h[free[rank < take[atom]]] += 1
    return h.astype(np.int64)


@dataclass(frozen=True)
class BlockRelease:
    """One protected release: the measurements, the least-squares and integer histograms, the records.

    Attributes
    ----------
    measurement : Measurement
        The noisy measurements.
    least_squares : ndarray of float
        The non-negative histogram closest to them (:func:`least_squares_histogram`).
    histogram : ndarray of int64
        Its rounding to integers with the true total (:func:`round_histogram`).
    records : tuple
        The protected records, ``(age, sex, race, married)`` each.
    """

    measurement: Measurement
    least_squares: np.ndarray
    histogram: np.ndarray
    records: tuple


def release_block(records, rho, *, rng, queries=None, detailed_share=0.5) -> BlockRelease:
    r"""The whole miniature TopDown: measure (:func:`measure_block`), fit, round, and list the protected records.

    Everything after the measurements is post-processing of them and of the invariant, so the
    protected records are :math:`\rho`-zCDP like the measurements (post-processing,
    :cite:`bun2016concentrated` Lemma 1.8).

    Parameters
    ----------
    records : sequence of (age, sex, race, married)
    rho : float
        ``> 0`` or ``math.inf`` (no noise); with ``detailed_share``, within the bounds of
        :func:`measure_block` (``rho * detailed_share >= 2**-116`` and
        ``rho * (1 - detailed_share) >= n_groups * 2**-117``: the int64 release).
    rng : numpy.random.Generator
    queries : BlockQueries, optional
    detailed_share : float
        In ``(0, 1)``.

    Returns
    -------
    BlockRelease

    Raises
    ------
    ValueError
        For a bad parameter, ``rho`` and ``detailed_share`` out of those bounds included.

    Examples
    --------
    >>> truth = attacks.census_block_solutions()[0]
    >>> r = release_block(truth, 2.0, rng=np.random.default_rng(3))
    >>> len(r.records), int(r.histogram.sum())
    (7, 7)
    """
    q = _queries(queries)
    m = measure_block(records, rho, rng=rng, queries=q, detailed_share=detailed_share)
    x = least_squares_histogram(m, q)
    h = round_histogram(x, q, total=m.total)
    return BlockRelease(m, x, h, histogram_to_records(h, q))


def published_table(records, queries=None, *, threshold=3) -> tuple:
    """The table published from protected records: counts, medians and means of each group.

    Tabulated with :func:`dpnotes.attacks.publish_block` (means and medians to one decimal,
    groups of fewer than ``threshold`` people suppressed, as in source 001's table 1) and
    returned as ``BlockStatistic`` rows, the input of Part I's attack.

    Parameters
    ----------
    records : sequence of (age, sex, race, married)
    queries : BlockQueries, optional
    threshold : int
        ``>= 1``; ``1`` suppresses only empty groups.

    Returns
    -------
    tuple of BlockStatistic

    Raises
    ------
    ValueError
        For empty records or a bad threshold.

    Examples
    --------
    >>> truth = attacks.census_block_solutions()[0]
    >>> published_table(truth) == attacks.CENSUS_TABLE1
    True
    """
    q = _queries(queries)
    rows = attacks.publish_block(records, q.statistics, adult_age=q.adult_age, threshold=threshold)
    return tuple(dataclasses.replace(s, count=c, median=med, mean=mean)
                 for s, (_, c, med, mean) in zip(q.statistics, rows))


def people_recovered(solution, truth) -> int:
    """How many people of ``truth`` a reconstruction got exactly right (all attributes; a multiset intersection).

    Parameters
    ----------
    solution, truth : sequence of records
        Two blocks, each record a sequence such as ``(age, sex, race, married)``.

    Returns
    -------
    int
        The size of the multiset intersection.

    Examples
    --------
    >>> people_recovered([(8, "F", "B", False), (30, "M", "W", True)], [(30, "M", "W", True), (31, "M", "W", True)])
    1
    """
    return sum((Counter(map(tuple, solution)) & Counter(map(tuple, truth))).values())


@dataclass(frozen=True)
class Study:
    """Results of :func:`reconstruction_study`, indexed ``[rho, seed]`` (``[rho, seed, row]`` for counts).

    ``in_release``: people of the block that appear in the protected records;
    ``n_solutions``: blocks Part I's attack finds from the published table (capped at
    ``max_solutions``; ``-1`` where the attack was not run); ``recovered``: people the attack
    gets right, averaged over its solutions (an attacker who picks one at random; ``nan`` where
    not run); ``count_error``: protected minus true count of each row of the table (no suppression).

    Attributes
    ----------
    rhos, seeds : ndarray
        The budgets and the seeds, in the order of the indices.
    in_release : ndarray of int, shape (len(rhos), len(seeds))
        People of the block found in the protected records.
    n_solutions : ndarray of int, shape (len(rhos), len(seeds))
        Solutions of the attack (``-1``: not run).
    recovered : ndarray of float, shape (len(rhos), len(seeds))
        People the attack gets right, averaged over its solutions (``nan``: not run).
    count_error : ndarray of int, shape (len(rhos), len(seeds), rows)
        Protected minus true count of each row of the table.
    true_counts : ndarray of int
        The true count of each row.
    """

    rhos: np.ndarray
    seeds: np.ndarray
    in_release: np.ndarray
    n_solutions: np.ndarray
    recovered: np.ndarray
    count_error: np.ndarray
    true_counts: np.ndarray


def reconstruction_study(records, rhos, seeds, *, attack_seeds=None, queries=None, detailed_share=0.5,
                         threshold=3, max_solutions=20) -> Study:
    """Release a block at each budget with each seed, tabulate, and attack the table with Part I's reconstruction.

    Release ``(rho, seed)`` uses ``numpy.random.default_rng(seed)`` (the same seeds at every
    ``rho``). Part I's attack (:func:`dpnotes.attacks.census_block_solutions` on
    :func:`published_table`, with its default assumptions) runs for the seeds in
    ``attack_seeds`` (default: all); a table seen before is not solved again.

    Parameters
    ----------
    records : sequence of (age, sex, race, married)
    rhos : array_like of float
        Budgets, each ``> 0`` or ``math.inf``.
    seeds : array_like of int
    attack_seeds : array_like of int, optional
        A subset of ``seeds``.
    queries, detailed_share, threshold
        As in :func:`release_block` and :func:`published_table`; ``threshold`` also at most the
        number of records when a seed is attacked (a larger one suppresses the count of the
        whole block, the row the attack starts from).
    max_solutions : int
        Cap on the solutions the attack lists.

    Returns
    -------
    Study

    Raises
    ------
    ValueError
        For a bad parameter.

    Examples
    --------
    >>> truth = attacks.census_block_solutions()[0]
    >>> s = reconstruction_study(truth, [math.inf], [0])
    >>> int(s.in_release[0, 0]), int(s.n_solutions[0, 0]), float(s.recovered[0, 0])
    (7, 1, 7.0)
    """
    q = _queries(queries)
    rhos = np.atleast_1d(check_array("rhos", rhos, low=0.0, low_inclusive=False, allow_inf=True,
                                     allow_empty=True))
    seeds = np.atleast_1d(np.asarray(seeds))
    if rhos.ndim != 1 or rhos.size == 0 or seeds.ndim != 1 or seeds.size == 0:
        raise ValueError("rhos and seeds must be non-empty 1-D sequences")
    seeds = np.array([check_integer("seeds", s, low=0) for s in seeds.tolist()])
    attack_set = set(seeds.tolist()) if attack_seeds is None else {check_integer("attack_seeds", s, low=0)
                                                                   for s in np.atleast_1d(attack_seeds).tolist()}
    if not attack_set <= set(seeds.tolist()):
        raise ValueError("attack_seeds must be a subset of seeds")
    max_solutions = check_integer("max_solutions", max_solutions, low=1)
    truth = tuple(sorted((tuple(r) for r in records), key=attacks._key))
    # an attacked table needs the count of the whole block: a threshold above it suppresses that row
    threshold = check_integer("threshold", threshold, low=1, high=max(len(truth), 1) if attack_set else None)
    rows = q.statistics
    member = np.array([s.members(*q.cells, q.adult_age) for s in rows], dtype=np.int64)
    true_counts = member @ records_to_histogram(truth, q)
    shape = (rhos.size, seeds.size)
    in_release = np.zeros(shape, dtype=np.int64)
    n_solutions = np.full(shape, -1, dtype=np.int64)
    recovered = np.full(shape, np.nan)
    count_error = np.zeros(shape + (len(rows),), dtype=np.int64)
    solved = {}
    for i, rho in enumerate(rhos):
        for j, seed in enumerate(seeds):
            rel = release_block(truth, float(rho), rng=np.random.default_rng(int(seed)), queries=q,
                                detailed_share=detailed_share)
            in_release[i, j] = people_recovered(rel.records, truth)
            count_error[i, j] = member @ rel.histogram - true_counts
            if int(seed) not in attack_set:
                continue
            table = published_table(rel.records, q, threshold=threshold)
            if table not in solved:
                # "(D)" reads as the counts the threshold suppresses: the attack assumed (0, 2), the default
                # threshold's, and at threshold = 7 the unprotected block's own table had no solution (a count of 5
                # suppressed by 7 was excluded), with numpy's "mean of empty slice" warning
                sols = attacks.census_block_solutions(table, age_max=q.age_max, adult_age=q.adult_age,
                                                      suppressed=(0, threshold - 1), max_solutions=max_solutions)
                solved[table] = (len(sols), float(np.mean([people_recovered(s, truth) for s in sols]))
                                 if sols else math.nan)
            n_solutions[i, j], recovered[i, j] = solved[table]
    return Study(rhos, seeds, in_release, n_solutions, recovered, count_error, true_counts)


# ---------------------------------------------------------------------------
# Exact accounting
# ---------------------------------------------------------------------------


def max_groups_moved(queries=None) -> int:
    """The most group counts that one replaced record can move: the worst neighbouring blocks.

    Replacing a record of cell ``c`` by one of cell ``c'`` moves the count of every group that
    contains exactly one of them; the largest number over all pairs of cells, computed over the
    distinct membership patterns.

    Parameters
    ----------
    queries : BlockQueries, optional
        Default :func:`block_queries` ``()``.

    Returns
    -------
    int
        The largest number of group counts that differ between two neighbouring blocks.

    Raises
    ------
    ValueError
        If ``queries`` is not a :class:`BlockQueries`.

    Examples
    --------
    >>> max_groups_moved(), len(block_queries().groups)
    (10, 13)
    """
    q = _queries(queries)
    patterns = np.unique(q.membership.T, axis=0).astype(np.int64)
    moved = (patterns[:, None, :] != patterns[None, :, :]).sum(axis=2)
    return int(moved.max())


def release_sigmas(budget, groups_moved) -> np.ndarray:
    """The noise scales of the coordinates that move between the worst neighbouring blocks.

    Two cells of the histogram (``sigma_detailed`` each) and ``groups_moved`` group counts
    (``sigma_group`` each), each moved by one. With ``groups_moved = budget.n_groups`` this is
    the composition the zCDP accounting charges for (every query at its own worst case at
    once); :func:`max_groups_moved` gives the true worst case.

    Parameters
    ----------
    budget : Budget
        A finite budget, from :func:`budget_split`.
    groups_moved : int
        In ``[0, budget.n_groups]``.

    Returns
    -------
    ndarray of shape (2 + groups_moved,)
        ``sigma_detailed`` twice, then ``sigma_group`` ``groups_moved`` times.

    Raises
    ------
    ValueError
        If ``budget`` is not a finite :class:`Budget` or ``groups_moved`` is out of range.

    Examples
    --------
    >>> release_sigmas(budget_split(2.0, 4), 3).tolist()
    [1.0, 1.0, 1.4142135623730951, 1.4142135623730951, 1.4142135623730951]
    """
    if not isinstance(budget, Budget) or math.isinf(budget.rho):
        raise ValueError("budget must be a finite Budget (from budget_split)")
    groups_moved = check_integer("groups_moved", groups_moved, low=0, high=budget.n_groups)
    return np.array([budget.sigma_detailed] * 2 + [budget.sigma_group] * groups_moved)


def _sum_law(sigma: float, m: int, cut_max: float, log_cut_max: float | None = None
             ) -> tuple[np.ndarray, np.ndarray, float]:
    """Support and pmf of the sum of m iid N_Z(0, sigma^2), each truncated to |y| <= T; and the mass cut off.

    T is the smallest (from a Gaussian-tail guess up) with m Pr[|Y| > T] <= cut_max, where
    Pr[|Y| > T] <= 2 p(T+1) / (1 - e^{-(2T+3)/(2 sigma^2)}): the ratio p(y+1)/p(y) is
    e^{-(2y+1)/(2 sigma^2)}, at most that of the first term left out, so the tail is below a
    geometric series. Compared in logs (``log_cut_max``, if given, is log(cut_max)): at
    tail = 5e-324 a share of it underflowed to 0 (log(m / 0) raised ZeroDivisionError) and
    p(T+1) underflows before the bound is met.
    """
    if log_cut_max is None:
        log_cut_max = math.log(cut_max)
    log_p0 = math.log(discrete_gaussian_pmf(0, sigma))       # -log Z: p(0) = 1/Z never underflows

    def log_cut(T):
        return (math.log(2.0) + log_p0 - (T + 1) ** 2 / (2 * sigma * sigma)
                - math.log(-math.expm1(-(2 * T + 3) / (2 * sigma * sigma))))

    log_m = math.log(m)
    T = max(1, int(sigma * math.sqrt(2 * (log_m - log_cut_max))))
    while log_m + log_cut(T) > log_cut_max:
        T += 1
    p = discrete_gaussian_pmf(np.arange(-T, T + 1), sigma)
    law = np.ones(1)
    for _ in range(m):
        law = np.convolve(law, p)
    return np.arange(-m * T, m * T + 1), law, math.exp(log_m + log_cut(T))


def _loss_atoms(sigmas, tail):
    """Privacy-loss values and probabilities of the composition (under P), and the truncated mass."""
    sig = np.asarray(sigmas, dtype=float)
    loss, prob, cut = np.zeros(1), np.ones(1), 0.0
    for s in np.unique(sig):
        m = int(np.count_nonzero(sig == s))
        log_share = math.log(tail) + math.log(m) - math.log(sig.size)    # tail * m / n: 0 at tail = 5e-324
        support, law, c = _sum_law(float(s), m, math.exp(log_share), log_share)
        keep = law > 0
        block = (m - 2 * support[keep]) / (2 * s * s)        # sum over the m coordinates of (1 - 2y)/(2 s^2)
        loss = (loss[:, None] + block[None, :]).ravel()
        prob = (prob[:, None] * law[keep][None, :]).ravel()
        loss, prob = loss[prob > 0], prob[prob > 0]          # products that underflow weigh nothing
        cut += c
    return loss, prob, cut


def _check_sigmas(sigmas) -> np.ndarray:
    try:
        sig = np.atleast_1d(np.asarray(sigmas, dtype=float))
    except (TypeError, ValueError):
        raise ValueError(f"sigmas must be positive numbers, got {sigmas!r}") from None
    if sig.ndim != 1 or sig.size == 0 or not np.all(np.isfinite(sig)) or np.any(sig <= 0):
        raise ValueError(f"sigmas must be a non-empty 1-D array of positive finite numbers, got {sigmas!r}")
    if np.unique(sig).size > 3:
        raise ValueError("sigmas must hold at most 3 distinct values (the atoms multiply)")
    return sig


def composition_delta(epsilon, sigmas, *, tail=1e-30):
    r"""Exact privacy profile of a composition of discrete Gaussian mechanisms, each moved by one.

    For :math:`P = \bigotimes_i \mathcal N_{\mathbb Z}(0,\sigma_i^2)` and
    :math:`Q = \bigotimes_i \mathcal N_{\mathbb Z}(1,\sigma_i^2)` the privacy loss is
    :math:`L = \sum_i (1 - 2Y_i)/(2\sigma_i^2)`, :math:`Y \sim P`, a sum of independent
    lattice variables, and :math:`\delta(\varepsilon) = H_{e^\varepsilon}(P\Vert Q) =
    \mathbb E_P[(1 - e^{\varepsilon - L})_+]` (the hockey-stick divergence as an expectation of
    the loss). Coordinates with equal :math:`\sigma` are summed first (their sum is an integer,
    its law a convolution); the distinct sums are then combined atom by atom. Each :math:`Y_i`
    is truncated where the mass left out is below ``tail`` in total, so the value returned is
    within ``tail`` below the exact one. (The composition of *unequal* discrete Gaussians is not
    a lattice that a library convolves exactly; ``dp_accounting`` discretizes it, and is the
    tests' independent check.)

    Parameters
    ----------
    epsilon : float or array_like
        ``>= 0``.
    sigmas : array_like
        One :math:`\sigma_i > 0` per coordinate; at most three distinct values.
    tail : float
        In ``(0, 1e-6]``.

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ValueError
        For a bad parameter.

    Examples
    --------
    >>> from dpnotes.discrete import discrete_gaussian_delta
    >>> abs(composition_delta(0.5, [2.0]) - discrete_gaussian_delta(2.0, 0.5)) < 1e-15
    True
    """
    sig = _check_sigmas(sigmas)
    tail = check_in_range("tail", tail, 0.0, 1e-6, low_inclusive=False)
    eps = check_array("epsilon", epsilon, allow_inf=True, allow_nan=True, allow_empty=True)
    if not np.all(np.isfinite(eps)) or np.any(eps < 0):
        raise ValueError(f"epsilon must be >= 0 and finite, got {epsilon!r}")
    out = _profile(sig, tail)(eps.ravel()).reshape(eps.shape)
    return float(out) if eps.ndim == 0 else out


def _profile(sig: np.ndarray, tail: float):
    """delta(epsilon) of the composition as a vectorized function: the atoms sorted once by loss, then for each epsilon
    the sum over the atoms above it of p (1 - e^{epsilon - L}), each term from expm1 and positive: nothing cancels,
    and nothing overflows or underflows that matters (e^{epsilon - L} <= 1). The earlier form, Pr[L > eps] - e^eps
    E[e^{-L}; L > eps] by cumulative sums, lost e^{-L} below the doubles from L ~ 745 and overflowed e^eps past 709.78
    (composition_delta(720, [0.05, 0.07]) was nan for 6.7e-132), and cancelled where delta is small beside the mass.
    One dot product per epsilon: at most 1e5 atoms, about a millisecond each."""
    loss, prob, _ = _loss_atoms(sig, tail)
    order = np.argsort(loss)[::-1]
    loss, prob = loss[order], prob[order]

    def delta(eps: np.ndarray) -> np.ndarray:
        above = np.searchsorted(-loss, -eps, side="left")          # the number of atoms with loss > epsilon
        return np.array([float(np.dot(prob[:k], -np.expm1(e - loss[:k]))) for e, k in zip(eps, above)])
    return delta


def composition_epsilon(delta, sigmas, *, tail=1e-30) -> float:
    r"""The smallest :math:`\varepsilon` with :func:`composition_delta` :math:`\le` ``delta`` (by Brent's method).

    Parameters
    ----------
    delta : float
        In ``(0, 1)``.
    sigmas : array_like
    tail : float

    Returns
    -------
    float
        ``0.0`` if ``delta`` is already reached at :math:`\varepsilon = 0`.

    Raises
    ------
    ValueError
        For a bad parameter.

    Examples
    --------
    >>> e = composition_epsilon(1e-6, [3.0, 3.0])
    >>> abs(composition_delta(e, [3.0, 3.0]) - 1e-6) < 1e-15
    True
    """
    delta = check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    sig = _check_sigmas(sigmas)
    tail = check_in_range("tail", tail, 0.0, 1e-6, low_inclusive=False)
    if delta > 0.5:
        return _composition_epsilon_near_one(sig, tail, delta)
    profile = _profile(sig, tail)
    # the least epsilon where the profile is at most delta (_least_root: relative tolerance, then moved up to where
    # the profile is at most delta): brentq's absolute 1e-13 returned 0 for a root of 1.1e-16 and roots up to 1e-13
    # below the crossing (6e-4 of 1.7e-13 at sigma = 5), where the profile is above delta (found by a reviewer)
    return float(_least_root(lambda e: delta - float(profile(np.array([e]))[0])))


def _composition_epsilon_near_one(sig: np.ndarray, tail: float, delta: float) -> float:
    """:func:`composition_epsilon` for ``delta > 1/2``: the least epsilon with log(1 - delta(epsilon)) >= log(1 - delta),
    where 1 - delta(epsilon) = sum over the atoms of p e^{min(0, epsilon - L)}, positive terms (the mass the truncation
    left out only lowers it, so the answer stays on the safe side). From delta itself, a sum near 1 good to an ulp,
    1 - delta kept 1e-16 absolute: at sigma = 0.1, delta = 1 - 1e-12 the answer's exact 1 - delta(epsilon) was 5e-5
    of itself short (the profile above delta there). Atoms below e^-60 / n of the target are dropped: they move
    1 - delta by less than e^-60 of itself."""
    loss, prob, _ = _loss_atoms(sig, tail)
    target = math.log1p(-delta)
    with np.errstate(divide="ignore"):
        log_prob = np.log(prob)
    keep = log_prob >= target - 60.0 - math.log(prob.size)
    log_prob, loss = log_prob[keep], loss[keep]

    def gap(e: float) -> float:                 # increases with e; log(1 - dropped) > log(1 - delta) at the top loss
        return float(logsumexp(log_prob + np.minimum(e - loss, 0.0))) - target

    return float(_least_root(gap))


#: Orders for the CKS conversion: 1 + 10^-4 ... 1 + 10^5, about 2e-4 apart on a log scale.
_ORDERS = 1.0 + np.geomspace(1e-4, 1e5, 100_001)


def zcdp_epsilon_cks(rho, delta) -> float:
    r"""Convert :math:`\rho`-zCDP to :math:`(\varepsilon,\delta)`-DP the way the Census Bureau did.

    :cite:`canonne2020discrete` Corollary 13: :math:`\rho`-zCDP is :math:`(\alpha,\alpha\rho)`-RDP
    for every :math:`\alpha>1`, hence :math:`(\varepsilon,\delta)`-DP with
    :math:`\delta = \frac{e^{(\alpha-1)(\alpha\rho-\varepsilon)}}{\alpha-1}(1-\frac1\alpha)^\alpha`
    at any order; the best order is taken. The Bureau's ``programs/engine/curve.py`` does this by
    bisection on the derivative in :math:`\alpha` (:cite:`census2021dasproduction`); here it is
    :func:`dpnotes.composition.rdp_to_dp` (``"improved"``, the same bound solved for
    :math:`\varepsilon`) at 100 001 orders from :math:`1 + 10^{-4}` to :math:`1 + 10^{5}`,
    relative spacing :math:`2\times10^{-4}` (the minimum is flat, so this is within
    :math:`10^{-6}` of the infimum for :math:`10^{-3} \le \rho \le 10^{3}`).

    Parameters
    ----------
    rho : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For a parameter out of range.

    Examples
    --------
    >>> round(zcdp_epsilon_cks(float(BUREAU_PERSONS_RHO), BUREAU_DELTA), 2)
    17.14
    """
    rho = check_positive("rho", rho)
    delta = check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    return rdp_to_dp(_ORDERS, _ORDERS * rho, delta, method="improved")
