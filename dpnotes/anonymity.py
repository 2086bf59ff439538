"""Syntactic anonymity: equivalence classes, k-anonymity, l-diversity, t-closeness and the EMD.

A *table* here is a mapping from column names to equal-length sequences (a
column-oriented table, so the module needs no data-frame library). The
*quasi-identifiers* are the columns an attacker can link to outside data (zip
code, age, ...); the *sensitive* column is the one to protect (a disease, a
salary). Records that agree on every quasi-identifier form an *equivalence
class* (Sweeney 2002; Machanavajjhala et al. 2007; Li, Li and
Venkatasubramanian 2007).

The tables of source 001, section 1.1 (its figures 1 and 2) are provided as
:data:`FIGURE1_LEFT`, :data:`FIGURE1_RIGHT` and :data:`FIGURE2`.

>>> k_anonymity(FIGURE1_LEFT, ["zip", "age", "nationality"])
4
>>> distinct_l_diversity(FIGURE2, ["zip", "age"], "disease")
3
"""

from __future__ import annotations

import numbers
import reprlib
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
from scipy.optimize import linprog
from scipy.special import entr

from ._validate import check_distribution_pair, check_integer

__all__ = [
    "FIGURE1_LEFT",
    "FIGURE1_RIGHT",
    "FIGURE2",
    "SALARY_ORDER",
    "DISEASE_ORDER",
    "DISEASE_HIERARCHY",
    "equivalence_classes",
    "k_anonymity",
    "class_distributions",
    "distinct_l_diversity",
    "entropy_l_diversity",
    "ordered_distance_matrix",
    "equal_distance_matrix",
    "hierarchy_distance_matrix",
    "emd_lp",
    "emd_ordered",
    "emd_equal",
    "t_closeness",
    "generalizes",
    "attacker_posterior",
]

#: A 4-anonymous table of medical records (source 001, figure 1, left).
#:
#: :meta hide-value:
FIGURE1_LEFT = {
    "zip": ["130**"] * 12,
    "age": ["<30"] * 4 + [">40"] * 4 + ["3*"] * 4,
    "nationality": ["*"] * 12,
    "condition": [
        "AIDS", "Heart Disease", "Viral Infection", "Viral Infection",
        "Cancer", "Heart Disease", "Viral Infection", "Viral Infection",
        "Cancer", "Cancer", "Cancer", "Cancer",
    ],
}

#: A 6-anonymous version of a medical table (source 001, figure 1, right).
#:
#: :meta hide-value:
FIGURE1_RIGHT = {
    "zip": ["130**"] * 12,
    "age": ["<35"] * 6 + [">35"] * 6,
    "nationality": ["*"] * 12,
    "condition": [
        "AIDS", "Tuberculosis", "Flu", "Tuberculosis", "Cancer", "Cancer",
        "Cancer", "Cancer", "Cancer", "Tuberculosis", "Viral Infection", "Viral Infection",
    ],
}

#: A 3-diverse table with two sensitive columns, salary in K and disease (source 001, figure 2).
#:
#: :meta hide-value:
FIGURE2 = {
    "zip": ["476**", "476**", "476**", "4790*", "4790*", "4790*", "476**", "476**", "476**"],
    "age": ["2*", "2*", "2*", ">=40", ">=40", ">=40", "3*", "3*", "3*"],
    "salary": [3, 4, 5, 6, 11, 8, 7, 9, 10],
    "disease": [
        "gastric ulcer", "gastritis", "stomach cancer",
        "gastritis", "flu", "bronchitis",
        "bronchitis", "pneumonia", "stomach cancer",
    ],
}

#: The salary domain of :data:`FIGURE2` in increasing order (the order of the ordered distance).
SALARY_ORDER = [3, 4, 5, 6, 7, 8, 9, 10, 11]

#: The disease domain of :data:`FIGURE2`, three stomach diseases and then three respiratory ones.
DISEASE_ORDER = ["gastric ulcer", "gastritis", "stomach cancer", "flu", "bronchitis", "pneumonia"]

#: Li et al. (2007)'s disease hierarchy (their figure), restricted to :data:`DISEASE_ORDER`, giving each
#: disease's ancestors from its parent up to the root. The tree has height 3 (leaves, two groups of diseases, two
#: systems, the root); their hierarchy also holds colon and vascular lung diseases, which leave the
#: height unchanged.
#:
#: :meta hide-value:
DISEASE_HIERARCHY = {
    **{d: ("stomach diseases", "digestive system diseases", "respiratory & digestive system diseases")
       for d in ("gastric ulcer", "gastritis", "stomach cancer")},
    **{d: ("respiratory infections", "respiratory system diseases", "respiratory & digestive system diseases")
       for d in ("flu", "bronchitis", "pneumonia")},
}


def _real_array(name: str, values) -> np.ndarray:
    """``values`` as a float array if every entry is a real number (ints, floats, Fractions; not a
    bool, a string or None); otherwise a ValueError that names the parameter (numpy's conversion
    answers a string with "could not convert string to float" and accepts ``True``)."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):             # a ragged nesting of sequences
        arr = None
    if arr is not None and arr.dtype.kind == "O":
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in arr.ravel()):
            arr = arr.astype(float)
    if arr is None or arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be an array of real numbers, got {reprlib.repr(values)}")
    return arr.astype(float)


def _pair(p, q):
    """Two probability vectors over the same values (each entry >= 0, sums 1 within 1e-8)."""
    return check_distribution_pair(_real_array("p", p), _real_array("q", q), atol=1e-8)


def _table(table) -> dict[str, list]:
    if not isinstance(table, Mapping) or len(table) == 0:
        raise ValueError(f"table must be a non-empty mapping of column name to values, got {type(table).__name__}")
    lengths = {len(v) for v in table.values()}
    if len(lengths) != 1 or 0 in lengths:
        raise ValueError(f"table columns must be non-empty and of equal length, got lengths {sorted(lengths)}")
    return {k: list(v) for k, v in table.items()}


def _columns(table: dict, name: str, columns) -> list[str]:
    if isinstance(columns, str):
        columns = [columns]
    columns = list(columns)
    if not columns:
        raise ValueError(f"{name} must name at least one column, got []")
    missing = [c for c in columns if c not in table]
    if missing:
        raise ValueError(f"{name} must be columns of the table {sorted(table)}, got unknown {missing}")
    return columns


def equivalence_classes(table, quasi_identifiers) -> list[np.ndarray]:
    """Row indices of each equivalence class, classes in order of first appearance.

    Two rows are in the same class when they agree on every quasi-identifier.

    Parameters
    ----------
    table : mapping
        Column name -> sequence of values, all columns of the same non-zero length.
    quasi_identifiers : str or sequence of str
        The columns an attacker can link to outside data.

    Returns
    -------
    list of ndarray
        The row indices of each class, in increasing order.

    Raises
    ------
    ValueError
        If ``table`` is not a non-empty table of equal-length columns, or
        ``quasi_identifiers`` names no column or an unknown one.

    Examples
    --------
    >>> [c.tolist() for c in equivalence_classes({"a": [1, 2, 1], "s": [0, 0, 1]}, ["a"])]
    [[0, 2], [1]]
    """
    t = _table(table)
    qis = _columns(t, "quasi_identifiers", quasi_identifiers)
    keys = list(zip(*(t[c] for c in qis)))
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    return [np.array(rows) for rows in groups.values()]


def k_anonymity(table, quasi_identifiers) -> int:
    """The largest ``k`` for which the table is k-anonymous: the size of its smallest equivalence class.

    Definition (Sweeney 2002): every record shares its quasi-identifiers with at
    least ``k - 1`` other records.

    Parameters
    ----------
    table, quasi_identifiers
        As in :func:`equivalence_classes`.

    Returns
    -------
    int
        The size of the smallest equivalence class.

    Raises
    ------
    ValueError
        As :func:`equivalence_classes`.

    Examples
    --------
    >>> k_anonymity(FIGURE1_RIGHT, ["zip", "age", "nationality"])
    6
    """
    return int(min(len(c) for c in equivalence_classes(table, quasi_identifiers)))


def class_distributions(table, quasi_identifiers, sensitive, domain=None):
    """Distribution of the sensitive column in each class and in the whole table.

    Parameters
    ----------
    table, quasi_identifiers
        As in :func:`equivalence_classes`.
    sensitive : str
        The sensitive column.
    domain : sequence, optional
        The sensitive values in the order to use (the order matters for the
        ordered distance); default: sorted distinct values of the column.

    Returns
    -------
    P : ndarray of shape (classes, m)
        ``P[j]`` is the distribution of the sensitive value in class ``j``
        (classes in the order of :func:`equivalence_classes`).
    q : ndarray of shape (m,)
        The distribution of the sensitive value over the whole table.
    domain : list
        The ``m`` sensitive values, in the order of the columns of ``P`` and ``q``.

    Raises
    ------
    ValueError
        If a column is unknown, or ``domain`` misses a value of the sensitive column.

    Examples
    --------
    >>> P, q, dom = class_distributions({"a": [1, 1, 2], "s": ["x", "y", "x"]}, ["a"], "s")
    >>> P.tolist(), q.round(3).tolist(), dom
    ([[0.5, 0.5], [1.0, 0.0]], [0.667, 0.333], ['x', 'y'])
    """
    t = _table(table)
    (sens,) = _columns(t, "sensitive", [sensitive])
    values = t[sens]
    if domain is None:
        domain = sorted(set(values))
    domain = list(domain)
    index = {v: i for i, v in enumerate(domain)}
    unknown = sorted({str(v) for v in values if v not in index})
    if unknown:
        raise ValueError(f"domain must contain every value of the sensitive column, got missing {unknown}")
    codes = np.array([index[v] for v in values])
    m = len(domain)
    classes = equivalence_classes(t, quasi_identifiers)
    P = np.array([np.bincount(codes[c], minlength=m) / len(c) for c in classes])
    q = np.bincount(codes, minlength=m) / len(codes)
    return P, q, domain


def distinct_l_diversity(table, quasi_identifiers, sensitive) -> int:
    """The largest ``l`` for which the table is distinct l-diverse.

    Each class must hold at least ``l`` distinct sensitive values
    (Machanavajjhala et al. 2007); the function returns the minimum over classes.

    Parameters
    ----------
    table, quasi_identifiers
        As in :func:`equivalence_classes`.
    sensitive : str
        The sensitive column.

    Returns
    -------
    int
        The smallest number of distinct sensitive values in a class.

    Raises
    ------
    ValueError
        If a column is unknown or the table is malformed.

    Examples
    --------
    >>> distinct_l_diversity(FIGURE1_LEFT, ["zip", "age", "nationality"], "condition")
    1
    """
    P, _, _ = class_distributions(table, quasi_identifiers, sensitive)
    return int((P > 0).sum(axis=1).min())


def entropy_l_diversity(table, quasi_identifiers, sensitive) -> float:
    """The largest ``l`` for which the table is entropy l-diverse: ``min_j exp(H(P_j))``.

    A class is entropy l-diverse when the entropy of its sensitive values is at
    least ``log l`` (natural log; Machanavajjhala et al. 2007, definition 4.1).
    A class with ``l`` equally frequent values reaches exactly ``l``; skew lowers it.

    Parameters
    ----------
    table, quasi_identifiers
        As in :func:`equivalence_classes`.
    sensitive : str
        The sensitive column.

    Returns
    -------
    float
        ``min_j exp(H(P_j))``, at least 1.

    Raises
    ------
    ValueError
        If a column is unknown or the table is malformed.

    Examples
    --------
    >>> round(entropy_l_diversity({"a": [0, 0], "s": ["x", "y"]}, ["a"], "s"), 6)
    2.0
    """
    P, _, _ = class_distributions(table, quasi_identifiers, sensitive)
    return float(np.exp(entr(P).sum(axis=1)).min())  # entr(x) = -x log x, with entr(0) = 0


# the largest domain of a ground-distance matrix: its m * m floats take 800 MB
_MAX_DOMAIN = 10**4


def ordered_distance_matrix(m) -> np.ndarray:
    """Ground distance ``|i - j| / (m - 1)`` between the ``m`` values of an ordered domain (Li et al. 2007).

    Parameters
    ----------
    m : int
        Number of values, in ``[2, 10**4]`` (an m-by-m array of floats is built: 800 MB at the cap).

    Returns
    -------
    ndarray of shape (m, m)
        The distances, 0 on the diagonal and 1 between the two ends.

    Raises
    ------
    ValueError
        If ``m`` is not an integer in ``[2, 10**4]``.

    Examples
    --------
    >>> ordered_distance_matrix(3).tolist()
    [[0.0, 0.5, 1.0], [0.5, 0.0, 0.5], [1.0, 0.5, 0.0]]
    """
    m = check_integer("m", m, low=2, high=_MAX_DOMAIN)
    i = np.arange(m)
    return np.abs(i[:, None] - i[None, :]) / (m - 1)


def equal_distance_matrix(m) -> np.ndarray:
    """Ground distance 1 between any two different values of a categorical domain.

    Parameters
    ----------
    m : int
        Number of values, in ``[2, 10**4]`` (an m-by-m array of floats is built: 800 MB at the cap).

    Returns
    -------
    ndarray of shape (m, m)
        ``1 - I``: 0 on the diagonal, 1 elsewhere.

    Raises
    ------
    ValueError
        If ``m`` is not an integer in ``[2, 10**4]``.

    Examples
    --------
    >>> equal_distance_matrix(2).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    m = check_integer("m", m, low=2, high=_MAX_DOMAIN)
    return 1.0 - np.eye(m)


def hierarchy_distance_matrix(hierarchy, domain=None) -> np.ndarray:
    """Hierarchical ground distance of Li et al. (2007): ``level(v_i, v_j) / H``.

    ``hierarchy`` maps each value to its ancestors, from its parent up to the
    root, all of the same length ``H`` (the height of the tree). Two values
    are at distance ``l / H`` when their lowest common ancestor sits ``l``
    levels above the leaves: siblings at ``1 / H``, values that meet only at
    the root at 1. This is a metric (an ultrametric, in fact).

    Parameters
    ----------
    hierarchy : mapping
        Value -> sequence of ancestors (parent first, root last).
    domain : sequence, optional
        The values in the order to use; default: the order of ``hierarchy``.

    Returns
    -------
    ndarray of shape (m, m)
        The distance ``l / H`` between the ``m`` values of ``domain``.

    Raises
    ------
    ValueError
        If ``hierarchy`` maps fewer than 2 values, ``domain`` holds a value it does not map,
        or the ancestor paths differ in length or do not end at one root.

    Examples
    --------
    >>> tree = {"a": ("x", "r"), "b": ("x", "r"), "c": ("y", "r")}
    >>> hierarchy_distance_matrix(tree).tolist()
    [[0.0, 0.5, 1.0], [0.5, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    if not isinstance(hierarchy, Mapping) or len(hierarchy) < 2:
        raise ValueError(f"hierarchy must map at least 2 values to their ancestors, got {hierarchy!r}")
    domain = list(hierarchy) if domain is None else list(domain)
    missing = sorted(str(v) for v in domain if v not in hierarchy)
    if missing:
        raise ValueError(f"domain must only hold values of the hierarchy, got unknown {missing}")
    paths = [tuple(hierarchy[v]) for v in domain]
    height = len(paths[0])
    if height == 0 or any(len(path) != height for path in paths) or len({path[-1] for path in paths}) != 1:
        raise ValueError(f"hierarchy must give every value {height or 'some'} ancestors ending at one root")
    m = len(domain)
    level = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if domain[i] != domain[j]:
                # the first level (1-based) at which the two paths meet
                level[i, j] = 1 + next(k for k in range(height) if paths[i][k] == paths[j][k])
    return level / height


def emd_lp(p, q, distance) -> float:
    """Earth Mover's Distance as the transportation linear program, solved by HiGHS.

    Minimise ``sum_ij d_ij f_ij`` over flows ``f_ij >= 0`` subject to the
    net-flow balance ``p_i - sum_j f_ij + sum_j f_ji = q_i`` (the formulation of
    Li et al. 2007 and source 001, section 1.1). The diagonal flows ``f_ii`` cost
    nothing and cancel in the balance, so they are left out. Written by hand
    because no scipy function takes a general ground-distance matrix; for the
    line metric use :func:`scipy.stats.wasserstein_distance` instead.

    The EMD is a distance between distributions when ``distance`` is a metric.
    Mass may pass through intermediate values in this program, so a
    ``distance`` that breaks the triangle inequality is silently replaced by
    its shortest-path distance. Several flows can reach the minimum; the
    function returns the minimum work, not a flow, accurate to about
    :math:`10^{-10}` times the mass moved (HiGHS's tolerances; the closed forms
    :func:`emd_ordered` and :func:`emd_equal` are exact up to rounding).

    Parameters
    ----------
    p, q : array_like
        Probability vectors of the same length ``m``.
    distance : array_like
        ``m x m`` ground distances (non-negative; a metric for the EMD to be one).

    Returns
    -------
    float
        The minimum work of moving ``p`` to ``q``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector (entries ``>= 0`` summing to 1 within
        ``1e-8``), their lengths differ, or ``distance`` is not a finite non-negative
        ``m x m`` matrix.

    Examples
    --------
    >>> round(emd_lp([0.01, 0.99], [0.11, 0.89], equal_distance_matrix(2)), 12)
    0.1
    """
    p, q = _pair(p, q)
    m = p.size
    d = _real_array("distance", distance)
    if d.shape != (m, m) or not np.all(np.isfinite(d)) or np.any(d < 0):
        raise ValueError(f"distance must be a finite non-negative {m}x{m} matrix, got shape {d.shape}")
    off = ~np.eye(m, dtype=bool)
    rows, cols = np.nonzero(off)            # variable k is the flow rows[k] -> cols[k]
    A = np.zeros((m, rows.size))
    A[rows, np.arange(rows.size)] -= 1.0    # flow leaving i
    A[cols, np.arange(rows.size)] += 1.0    # flow arriving at j
    moved = 0.5 * float(np.abs(q - p).sum())   # the mass that must move
    if moved == 0.0:
        return 0.0
    # HiGHS works to absolute feasibility tolerances, 1e-7 by default: on q - p itself a
    # difference of 6e-8 was moved for free by a flow of -6e-8 (the EMD came out negative) and a
    # mass of 1e-8 was left where it was. The program is solved for one unit of mass to move and
    # scaled back, at HiGHS's smallest tolerances (1e-10), and without the last balance row,
    # which the others imply (it would only add the inputs' rounding imbalance as an
    # infeasibility): measured against exact rational arithmetic, within 1e-10 of the mass moved.
    res = linprog(d[rows, cols], A_eq=A[:-1], b_eq=(q - p)[:-1] / moved, bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:  # pragma: no cover - balanced problems are always feasible
        raise RuntimeError(f"EMD linear program failed: {res.message}")
    return max(float(res.fun), 0.0) * moved


def emd_ordered(p, q) -> float:
    """EMD under the ordered distance, in closed form: ``sum_i |sum_{j<=i} (p_j - q_j)| / (m - 1)``.

    On a line every unit of surplus left of position ``i`` must cross the gap
    between ``i`` and ``i + 1``, which gives the cumulative-sum formula
    (Li et al. 2007, section 4.2).

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same ``m >= 2`` ordered values.

    Returns
    -------
    float
        The EMD, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector, their lengths differ, or ``m < 2``.

    Examples
    --------
    >>> emd_ordered([1, 0, 0], [0, 0, 1])
    1.0
    """
    p, q = _pair(p, q)
    if p.size < 2:
        raise ValueError(f"p must have at least 2 values for the ordered distance, got {p.size}")
    return float(np.abs(np.cumsum(p - q)[:-1]).sum() / (p.size - 1))


def emd_equal(p, q) -> float:
    """EMD under the equal distance: the total variation distance ``sum_i |p_i - q_i| / 2``.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same values.

    Returns
    -------
    float
        The EMD, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector or their lengths differ.

    Examples
    --------
    >>> round(emd_equal([0.4, 0.6], [0.5, 0.5]), 12)
    0.1
    """
    p, q = _pair(p, q)
    return float(0.5 * np.abs(p - q).sum())


def t_closeness(table, quasi_identifiers, sensitive, *, distance="ordered", domain=None) -> float:
    """The smallest ``t`` for which the table is t-close: ``max_j EMD(P_j, q)``.

    Each class's distribution ``P_j`` of the sensitive value is compared with
    the distribution ``q`` over the whole table (Li et al. 2007).

    Parameters
    ----------
    table, quasi_identifiers
        As in :func:`equivalence_classes`.
    sensitive : str
        The sensitive column.
    distance : {"ordered", "equal"} or array_like
        ``"ordered"`` for numeric attributes (closed form), ``"equal"`` for
        categorical ones (closed form), or an ``m x m`` ground-distance matrix
        (solved as a linear program with :func:`emd_lp`).
    domain : sequence, optional
        Order of the sensitive values (see :func:`class_distributions`).

    Returns
    -------
    float
        The largest EMD between a class's distribution and the table's.

    Raises
    ------
    ValueError
        If a column is unknown, ``distance`` is another string, or a matrix of the wrong shape.

    Examples
    --------
    >>> t_closeness(FIGURE2, ["zip", "age"], "salary", distance="ordered")
    0.375
    """
    P, q, _ = class_distributions(table, quasi_identifiers, sensitive, domain)
    if isinstance(distance, str):
        if distance == "ordered":
            f = emd_ordered
        elif distance == "equal":
            f = emd_equal
        else:
            raise ValueError(f"distance must be 'ordered', 'equal' or a matrix, got {distance!r}")
        return float(max(f(p, q) for p in P))
    return float(max(emd_lp(p, q, distance) for p in P))


def generalizes(pattern, value) -> bool:
    """Whether a generalised cell (``"130**"``, ``"3*"``, ``"<30"``, ``">=40"``, ``"*"``) covers ``value``.

    Digits followed by ``*`` match values with those leading digits; ``<a``,
    ``>a``, ``<=a``, ``>=a`` compare numbers; ``*`` matches anything; any other
    pattern must equal the value.

    Parameters
    ----------
    pattern : str or number
        The generalised cell (``≥`` and ``≤`` are read as ``>=`` and ``<=``).
    value
        The true value.

    Returns
    -------
    bool
        Whether ``pattern`` covers ``value``.

    Raises
    ------
    ValueError
        If ``pattern`` compares numbers and ``value`` is not one.

    Examples
    --------
    >>> generalizes("130**", 13053), generalizes("3*", 31), generalizes(">40", 40)
    (True, True, False)
    """
    pat = str(pattern).replace("≥", ">=").replace("≤", "<=").replace(" ", "")
    if pat == "*":
        return True
    for op in ("<=", ">=", "<", ">"):
        if pat.startswith(op):
            try:
                bound, x = float(pat[len(op):]), float(value)
            except ValueError:
                raise ValueError(f"value must be a number to compare with {pattern!r}, got {value!r}") from None
            return {"<=": x <= bound, ">=": x >= bound, "<": x < bound, ">": x > bound}[op]
    if pat.endswith("*"):
        stem = pat.rstrip("*")
        text = str(value)
        return len(text) == len(pat) and text.startswith(stem)
    return pat == str(value)


def attacker_posterior(table, quasi_identifiers, sensitive, target, *, exclude=()) -> dict:
    """An attacker's belief about a target's sensitive value after linking on quasi-identifiers.

    The attacker knows the target's true quasi-identifier values (``target``,
    a mapping column -> value), finds the rows whose generalised cells cover
    them (:func:`generalizes`), and, with a uniform prior over those rows,
    believes each sensitive value in proportion to its count there. Background
    knowledge that rules values out (``exclude``) renormalises the rest.

    Parameters
    ----------
    table, quasi_identifiers
        As in :func:`equivalence_classes`.
    sensitive : str
        The sensitive column.
    target : mapping
        Quasi-identifier column -> the target's true value, for every quasi-identifier.
    exclude : value or sequence of values, optional
        Sensitive values the attacker knows the target does not have.

    Returns
    -------
    dict
        Sensitive value -> posterior probability, in order of first appearance
        (values with probability 0 omitted).

    Raises
    ------
    ValueError
        If ``target`` does not give exactly the quasi-identifiers, matches no row, or
        ``exclude`` rules out every possible value.

    Examples
    --------
    >>> attacker_posterior(FIGURE1_LEFT, ["zip", "age"], "condition", {"zip": 13053, "age": 31})
    {'Cancer': 1.0}
    """
    t = _table(table)
    qis = _columns(t, "quasi_identifiers", quasi_identifiers)
    (sens,) = _columns(t, "sensitive", [sensitive])
    if not isinstance(target, Mapping) or set(target) != set(qis):
        raise ValueError(f"target must give a value for each quasi-identifier {qis}, got {target!r}")
    rows = [i for i in range(len(t[sens])) if all(generalizes(t[c][i], target[c]) for c in qis)]
    if not rows:
        raise ValueError(f"target must match at least one row of the table, got {dict(target)!r}")
    if isinstance(exclude, str) or not isinstance(exclude, Sequence | set | frozenset):
        exclude = [exclude]
    excluded = set(exclude)
    kept = [t[sens][i] for i in rows if t[sens][i] not in excluded]
    if not kept:
        raise ValueError(f"exclude must leave at least one possible value, got {sorted(map(str, excluded))}")
    return {v: c / len(kept) for v, c in Counter(kept).items()}
