"""Property tests of dpnotes.anonymity over random tables and distributions (Hypothesis).

Tables: the k, l and t measures do not depend on the order of the rows; the classes partition
the rows, k is the smallest class, entropy l <= distinct l <= the number of values, t lies in
[0, 1] and is 0 for a table with one class. EMD: each closed form equals the linear program on
its ground distance, the ordered one also scipy.stats.wasserstein_distance; on a metric ground
distance (ordered, equal, a hierarchy, Euclidean distances of random points) the EMD is a
metric on distributions: non-negative, zero exactly on equal distributions, symmetric, and it
satisfies the triangle inequality. Tolerance: the closed forms are exact up to rounding, and
``emd_lp`` was measured against exact rational arithmetic within 3e-11 of the mass moved (HiGHS's
smallest feasibility tolerances are 1e-10): comparisons allow 1e-9 times the largest ground
distance, absolute.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from scipy.spatial.distance import cdist

from dpnotes import anonymity as an

TOL = 1e-9


@st.composite
def tables(draw, max_rows=14):
    n = draw(st.integers(1, max_rows))
    col = lambda values: st.lists(st.sampled_from(values), min_size=n, max_size=n)   # noqa: E731
    return {"zip": draw(col(["130**", "148**", "476**"])), "age": draw(col(["<30", "3*", ">=40"])),
            "salary": draw(col([3, 4, 5, 6, 7])), "disease": draw(col(["flu", "ulcer", "cancer", "gastritis"]))}


@st.composite
def distributions(draw, m):
    w = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=m, max_size=m)))
    if w.sum() == 0:
        w[draw(st.integers(0, m - 1))] = 1.0
    return w / w.sum()


@st.composite
def three_distributions(draw):
    """Three distributions; the second is often the first moved by a tiny amount (1e-14 to 1),
    the regime where a solver's absolute tolerance shows."""
    m = draw(st.integers(2, 7))
    p, q, r = draw(distributions(m)), draw(distributions(m)), draw(distributions(m))
    if draw(st.booleans()):
        step = 10.0 ** draw(st.floats(-14.0, 0.0))
        q = np.abs(p + step * (q - p))
        q = q / q.sum()
    return m, p, q, r


def permuted(table, seed):
    order = np.random.default_rng(seed).permutation(len(next(iter(table.values()))))
    return {k: [v[i] for i in order] for k, v in table.items()}


# --------------------------------------------------------------------------- tables
@given(table=tables(), seed=st.integers(0, 1000), qis=st.sampled_from([["zip"], ["zip", "age"], ["age"]]))
def test_measures_do_not_depend_on_the_row_order(table, seed, qis):
    other = permuted(table, seed)
    assert an.k_anonymity(other, qis) == an.k_anonymity(table, qis)
    assert an.distinct_l_diversity(other, qis, "disease") == an.distinct_l_diversity(table, qis, "disease")
    assert math.isclose(an.entropy_l_diversity(other, qis, "disease"), an.entropy_l_diversity(table, qis, "disease"),
                        rel_tol=1e-12)
    for distance in ("ordered", "equal", an.ordered_distance_matrix(5)):
        assert math.isclose(an.t_closeness(other, qis, "salary", distance=distance, domain=[3, 4, 5, 6, 7]),
                            an.t_closeness(table, qis, "salary", distance=distance, domain=[3, 4, 5, 6, 7]),
                            rel_tol=0, abs_tol=TOL)


@given(table=tables(), qis=st.sampled_from([["zip"], ["zip", "age"], ["age"]]))
def test_classes_partition_the_rows_and_bound_k_and_l(table, qis):
    n = len(table["zip"])
    classes = an.equivalence_classes(table, qis)
    rows = np.sort(np.concatenate(classes))
    assert np.array_equal(rows, np.arange(n))
    for c in classes:                                  # same quasi-identifiers inside a class
        assert len({tuple(table[q][i] for q in qis) for i in c}) == 1
    k = an.k_anonymity(table, qis)
    assert k == min(len(c) for c in classes) and all(k <= len(c) for c in classes)
    distinct = an.distinct_l_diversity(table, qis, "disease")
    entropy = an.entropy_l_diversity(table, qis, "disease")
    assert 1 <= entropy <= distinct * (1 + 1e-12) and distinct <= min(len(set(table["disease"])), k)
    P, q, _ = an.class_distributions(table, qis, "disease")
    assert np.allclose(P.sum(axis=1), 1.0) and math.isclose(q.sum(), 1.0)
    # the whole table's distribution is the class distributions weighted by class size
    assert np.allclose(np.array([len(c) for c in classes]) @ P / n, q, atol=1e-12)


@given(table=tables(), qis=st.sampled_from([["zip"], ["zip", "age"]]))
def test_t_closeness_lies_in_the_unit_interval_and_is_zero_for_one_class(table, qis):
    for distance in ("ordered", "equal"):
        t = an.t_closeness(table, qis, "salary", distance=distance, domain=[3, 4, 5, 6, 7])
        assert -TOL <= t <= 1 + TOL
    one = {**table, "zip": ["*"] * len(table["zip"])}
    assert an.t_closeness(one, ["zip"], "salary", domain=[3, 4, 5, 6, 7]) == pytest.approx(0.0, abs=1e-12)


# --------------------------------------------------------------------------- EMD
@given(args=three_distributions())
def test_closed_forms_equal_the_linear_program_and_scipy(args):
    m, p, q, _ = args
    ordered = an.emd_ordered(p, q)
    assert math.isclose(ordered, an.emd_lp(p, q, an.ordered_distance_matrix(m)), rel_tol=0, abs_tol=TOL)
    scipy_w1 = stats.wasserstein_distance(np.arange(m), np.arange(m), p + 1e-300, q + 1e-300) / (m - 1)
    assert math.isclose(ordered, scipy_w1, rel_tol=1e-9, abs_tol=1e-12)
    equal = an.emd_equal(p, q)
    assert math.isclose(equal, an.emd_lp(p, q, an.equal_distance_matrix(m)), rel_tol=0, abs_tol=TOL)
    assert math.isclose(equal, 0.5 * np.abs(p - q).sum(), rel_tol=1e-12, abs_tol=1e-15)


def _metric(kind, m, seed):
    if kind == "ordered":
        return an.ordered_distance_matrix(m)
    if kind == "equal":
        return an.equal_distance_matrix(m)
    if kind == "hierarchy":
        rng = np.random.default_rng(seed)
        groups = rng.integers(0, 3, m)
        tree = {f"v{i}": (f"g{groups[i]}", f"s{groups[i] % 2}", "root") for i in range(m)}
        return an.hierarchy_distance_matrix(tree)
    points = np.random.default_rng(seed).normal(size=(m, 2))
    return cdist(points, points)


@given(args=three_distributions(), kind=st.sampled_from(["ordered", "equal", "hierarchy", "euclidean"]),
       seed=st.integers(0, 1000))
def test_emd_is_a_metric_on_distributions(args, kind, seed):
    m, p, q, r = args
    d = _metric(kind, m, seed)
    pq, qp = an.emd_lp(p, q, d), an.emd_lp(q, p, d)
    pr, rq = an.emd_lp(p, r, d), an.emd_lp(r, q, d)
    tol = TOL * max(1.0, d.max())
    assert pq >= 0 and math.isclose(pq, qp, rel_tol=0, abs_tol=tol)
    assert pq <= pr + rq + 3 * tol
    assert an.emd_lp(p, p, d) == 0.0
    if not np.allclose(p, q, atol=1e-6):            # zero only on equal distributions
        assert pq > 0
    # and it never exceeds the largest ground distance times the mass that must move
    assert pq <= d.max() * 0.5 * np.abs(p - q).sum() + tol


def test_emd_lp_is_exact_for_tiny_differences():
    """Regression: HiGHS's absolute tolerance (1e-7) let a flow of -6e-8 move a difference of 6e-8
    for free, and emd_lp([1 - d, d], [1, 0]) came out as -6e-8."""
    # 2**-40, not 1e-12: 1 - delta must be exact for delta to be the difference (1 - fl(1 - 1e-12) is
    # 9.99978e-13, which the old abs=1e-12 of approx hid)
    for delta in (5.960464477539063e-08, 2.0**-40):
        r = np.array([1 - delta, delta])
        for dist in (an.ordered_distance_matrix(2), 3.0 * an.equal_distance_matrix(2)):
            expected = dist[0, 1] * delta
            assert an.emd_lp(r, [1.0, 0.0], dist) == pytest.approx(expected, rel=1e-12, abs=0)
            assert an.emd_lp([1.0, 0.0], r, dist) == pytest.approx(expected, rel=1e-12, abs=0)
    # [1, 1e-300] cannot sum to 1 in floats (1 - 1e-300 rounds to 1): the mass that must move is not representable,
    # and the answer lies between 0 and the distance times 1e-300, never negative (it is 0: the imbalance is dropped)
    for dist in (an.ordered_distance_matrix(2), 3.0 * an.equal_distance_matrix(2)):
        for pair in (([1.0, 1e-300], [1.0, 0.0]), ([1.0, 0.0], [1.0, 1e-300])):
            assert 0.0 <= an.emd_lp(*pair, dist) <= dist[0, 1] * 1e-300
    # and a mass of 1e-8 among a unit of mass moved was left in place (0.25 for 0.2500000025)
    q = np.array([0.0, 1e-8, 0.0, 0.0, 1 - 1e-8])
    assert an.emd_lp(np.eye(5)[3], q, an.ordered_distance_matrix(5)) == pytest.approx(0.2500000025, abs=1e-12)


@given(m=st.integers(2, 9), seed=st.integers(0, 1000))
def test_ground_distances_are_metrics(m, seed):
    for d in (_metric(kind, m, seed) for kind in ("ordered", "equal", "hierarchy")):
        assert np.allclose(d, d.T) and np.all(np.diag(d) == 0) and np.all(d >= 0) and d.max() <= 1
        # triangle inequality (for the hierarchy even the ultrametric one)
        assert np.all(d[:, None, :] <= d[:, :, None] + d[None, :, :] + 1e-12)
    h = _metric("hierarchy", m, seed)
    assert np.all(h[:, None, :] <= np.maximum(h[:, :, None], h[None, :, :]) + 1e-12)


# --------------------------------------------------------------------------- generalization and the attacker
@given(value=st.integers(0, 10**6), keep=st.integers(0, 7), bound=st.integers(-10, 10**6))
def test_generalizes_patterns(value, keep, bound):
    text = str(value)
    stem = text[: min(keep, len(text))]
    assert an.generalizes("*", value) and an.generalizes(stem + "*" * (len(text) - len(stem)), value)
    assert not an.generalizes(stem + "*" * (len(text) - len(stem) + 1), value)     # one digit too many
    assert an.generalizes(f"<={bound}", value) == (value <= bound)
    assert an.generalizes(f">{bound}", value) == (value > bound)
    assert an.generalizes(f"≥{bound}", value) == (value >= bound)


@given(table=tables(), seed=st.integers(0, 1000), data=st.data())
def test_attacker_posterior_is_a_distribution_over_the_matching_rows(table, seed, data):
    zip_code = data.draw(st.sampled_from([13053, 14850, 47677]))
    age = data.draw(st.integers(18, 60))
    target = {"zip": zip_code, "age": age}
    rows = [i for i in range(len(table["zip"]))
            if an.generalizes(table["zip"][i], zip_code) and an.generalizes(table["age"][i], age)]
    if not rows:
        with pytest.raises(ValueError, match="target must match at least one row"):
            an.attacker_posterior(table, ["zip", "age"], "disease", target)
        return
    post = an.attacker_posterior(table, ["zip", "age"], "disease", target)
    assert math.isclose(sum(post.values()), 1.0) and set(post) == {table["disease"][i] for i in rows}
    other = an.attacker_posterior(permuted(table, seed), ["zip", "age"], "disease", target)
    assert other.keys() == post.keys() and all(math.isclose(other[v], post[v]) for v in post)


# --------------------------------------------------------------------------- bad input
SCALAR_BAD = [math.nan, math.inf, None, "3", [3, 4], True, 2.5]
ARRAY_BAD = ["abc", None, [0.5, "a"], [math.nan, 1.0], [[0.5], [0.25, 0.25]], [True, False]]
CALLS = {
    "ordered_distance_matrix": (an.ordered_distance_matrix, dict(m=3)),
    "equal_distance_matrix": (an.equal_distance_matrix, dict(m=3)),
    "emd_lp": (an.emd_lp, dict(p=[0.5, 0.5], q=[1.0, 0.0], distance=[[0.0, 1.0], [1.0, 0.0]])),
    "emd_ordered": (an.emd_ordered, dict(p=[0.5, 0.5], q=[1.0, 0.0])),
    "emd_equal": (an.emd_equal, dict(p=[0.5, 0.5], q=[1.0, 0.0])),
}
CASES = [(name, param, bad) for name, (_, kwargs) in CALLS.items() for param in kwargs
         for bad in (SCALAR_BAD if param == "m" else ARRAY_BAD)]


@pytest.mark.parametrize("name, param, bad", CASES, ids=[f"{n}-{p}-{b!r}" for n, p, b in CASES])
def test_every_numeric_parameter_rejects_bad_values_by_name(name, param, bad):
    fn, kwargs = CALLS[name]
    fn(**kwargs)
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        fn(**{**kwargs, param: bad})


def test_t_closeness_names_a_bad_distance_matrix():
    table = {"zip": ["1", "1", "2"], "n": [1, 2, 3]}
    for bad in ([[0, 1, "x"], [1, 0, 1], [1, 1, 0]], [[0, 1], [1, 0, 1]], [[0, math.nan, 1], [1, 0, 1], [1, 1, 0]]):
        with pytest.raises(ValueError, match=r"\bdistance\b"):
            an.t_closeness(table, ["zip"], "n", distance=bad)
