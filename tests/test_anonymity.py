"""Tests of dpnotes.anonymity: hand-computed small cases, closed forms, scipy cross-checks, bad inputs."""

from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import wasserstein_distance

from dpnotes import anonymity as an

QI1 = ["zip", "age", "nationality"]
QI2 = ["zip", "age"]


def test_equivalence_classes_figure1_left():
    classes = an.equivalence_classes(an.FIGURE1_LEFT, QI1)
    assert [c.tolist() for c in classes] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_k_anonymity_of_source_tables():
    assert an.k_anonymity(an.FIGURE1_LEFT, QI1) == 4
    assert an.k_anonymity(an.FIGURE1_RIGHT, QI1) == 6
    assert an.k_anonymity(an.FIGURE2, QI2) == 3
    # a single column that identifies everyone gives 1-anonymity
    assert an.k_anonymity({"id": [1, 2, 3]}, ["id"]) == 1


def test_l_diversity_hand_counts():
    # figure 1 left: last class is all cancer
    assert an.distinct_l_diversity(an.FIGURE1_LEFT, QI1, "condition") == 1
    # figure 1 right: {AIDS, TB, Flu, Cancer} and {Cancer, TB, Viral}
    assert an.distinct_l_diversity(an.FIGURE1_RIGHT, QI1, "condition") == 3
    assert an.distinct_l_diversity(an.FIGURE2, QI2, "disease") == 3


def test_entropy_l_diversity_closed_form():
    # class counts (3, 1, 2) of six: exp(H) by hand
    p = np.array([3, 1, 2]) / 6
    expected = np.exp(-(p * np.log(p)).sum())
    assert an.entropy_l_diversity(an.FIGURE1_RIGHT, QI1, "condition") == pytest.approx(expected, rel=1e-12, abs=0)
    # uniform over l values gives exactly l; a homogeneous class gives 1
    assert an.entropy_l_diversity({"a": [0] * 4, "s": list("wxyz")}, ["a"], "s") == pytest.approx(4)
    assert an.entropy_l_diversity(an.FIGURE1_LEFT, QI1, "condition") == pytest.approx(1.0)


def test_entropy_never_exceeds_distinct():
    rng = np.random.default_rng(0)
    for _ in range(20):
        t = {"a": rng.integers(0, 3, 30).tolist(), "s": rng.integers(0, 5, 30).tolist()}
        assert an.entropy_l_diversity(t, ["a"], "s") <= an.distinct_l_diversity(t, ["a"], "s") + 1e-12


def test_class_distributions_exact():
    P, q, dom = an.class_distributions(an.FIGURE2, QI2, "salary", an.SALARY_ORDER)
    assert dom == an.SALARY_ORDER
    assert np.allclose(q, 1 / 9)
    assert np.allclose(P[0], [1 / 3, 1 / 3, 1 / 3, 0, 0, 0, 0, 0, 0])


def test_emd_ordered_matches_hand_computation_and_scipy():
    # Li et al. (2007): class {3K, 4K, 5K} against the uniform salary distribution: 27/9 / 8 = 3/8
    P, q, _ = an.class_distributions(an.FIGURE2, QI2, "salary", an.SALARY_ORDER)
    assert an.emd_ordered(P[0], q) == pytest.approx(float(Fraction(3, 8)), abs=1e-12)
    pos = np.arange(9)
    for p in P:
        w = wasserstein_distance(pos, pos, p, q) / 8
        assert an.emd_ordered(p, q) == pytest.approx(w, abs=1e-12)
        assert an.emd_lp(p, q, an.ordered_distance_matrix(9)) == pytest.approx(w, abs=1e-9)


def test_emd_equal_is_total_variation_and_lp():
    rng = np.random.default_rng(1)
    for m in (2, 3, 6):
        p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
        tv = 0.5 * np.abs(p - q).sum()
        assert an.emd_equal(p, q) == pytest.approx(tv, abs=1e-12)
        assert an.emd_lp(p, q, an.equal_distance_matrix(m)) == pytest.approx(tv, abs=1e-9)


def test_emd_source_examples():
    d = an.ordered_distance_matrix(2)
    assert an.emd_lp([0.01, 0.99], [0.11, 0.89], d) == pytest.approx(0.1, abs=1e-12)
    assert an.emd_lp([0.4, 0.6], [0.5, 0.5], d) == pytest.approx(0.1, abs=1e-12)


def test_emd_lp_general_metric_by_hand():
    # three points on a path 0 - 1 - 2 with unequal edge lengths 1 and 3: moving mass 1/2 from 0 to 2 costs 2
    d = np.array([[0, 1, 4], [1, 0, 3], [4, 3, 0]], dtype=float)
    assert an.emd_lp([0.5, 0.5, 0], [0, 0.5, 0.5], d) == pytest.approx(2.0, abs=1e-9)
    assert an.emd_lp([0.2, 0.3, 0.5], [0.2, 0.3, 0.5], d) == pytest.approx(0.0, abs=1e-12)


def test_t_closeness_of_figure2():
    assert an.t_closeness(an.FIGURE2, QI2, "salary", domain=an.SALARY_ORDER) == pytest.approx(0.375)
    assert an.t_closeness(an.FIGURE2, QI2, "disease", distance="equal") == pytest.approx(4 / 9)
    d = an.equal_distance_matrix(6)
    assert an.t_closeness(an.FIGURE2, QI2, "disease", distance=d) == pytest.approx(4 / 9, abs=1e-9)


def test_generalizes_patterns():
    assert an.generalizes("130**", 13053) and not an.generalizes("130**", 14053)
    assert an.generalizes("3*", 31) and not an.generalizes("3*", 41) and not an.generalizes("3*", 3)
    assert an.generalizes("<30", 29) and not an.generalizes("<30", 30)
    assert an.generalizes("≥ 40", 40) and an.generalizes(">=40", 41) and not an.generalizes(">40", 40)
    assert an.generalizes("*", "anything") and an.generalizes("F", "F") and not an.generalizes("F", "M")


def test_attacker_posterior_homogeneity_and_background():
    post = an.attacker_posterior(an.FIGURE1_LEFT, ["zip", "age"], "condition", {"zip": 13068, "age": 22})
    assert post == pytest.approx({"AIDS": 0.25, "Heart Disease": 0.25, "Viral Infection": 0.5})
    post = an.attacker_posterior(
        an.FIGURE1_LEFT, ["zip", "age"], "condition", {"zip": 13068, "age": 22}, exclude=["AIDS", "Heart Disease"]
    )
    assert post == {"Viral Infection": 1.0}


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: an.equivalence_classes({}, ["a"]), "^table must be a non-empty mapping of column name to values, got dict$"),
        (lambda: an.equivalence_classes([[1, 2]], ["a"]), "^table must be a non-empty mapping .* got list$"),
        (lambda: an.equivalence_classes({"a": [1, 2], "b": [1]}, ["a"]),
         r"^table columns must be non-empty and of equal length, got lengths \[1, 2\]$"),
        (lambda: an.equivalence_classes({"a": []}, ["a"]), r"^table columns must be non-empty .* got lengths \[0\]$"),
        (lambda: an.k_anonymity({"a": [1]}, ["zz"]),
         r"^quasi_identifiers must be columns of the table \['a'\], got unknown \['zz'\]$"),
        (lambda: an.k_anonymity({"a": [1]}, []), r"^quasi_identifiers must name at least one column, got \[\]$"),
        (lambda: an.class_distributions({"a": [1], "s": [1]}, ["a"], "t"), "^sensitive must be columns of the table"),
        (lambda: an.class_distributions({"a": [1, 1], "s": [5, 7]}, ["a"], "s", domain=[1, 5]),
         r"^domain must contain every value of the sensitive column, got missing \['7'\]$"),
        (lambda: an.distinct_l_diversity({"a": [1]}, ["a"], "zz"), "^sensitive must be columns"),
        (lambda: an.entropy_l_diversity({"a": [1]}, ["a"], "zz"), "^sensitive must be columns"),
        (lambda: an.ordered_distance_matrix(1), "^m must be"),
        (lambda: an.equal_distance_matrix(1.5), "^m must be"),
        (lambda: an.emd_lp([0.5, 0.6], [0.5, 0.5], np.zeros((2, 2))), "p must sum to 1"),
        (lambda: an.emd_lp([0.5, 0.5], [1.0], np.zeros((2, 2))), "same length"),
        (lambda: an.emd_lp([0.5, 0.5], [0.5, 0.5], -np.ones((2, 2))),
         r"^distance must be a finite non-negative 2x2 matrix, got shape \(2, 2\)$"),
        (lambda: an.emd_lp([0.5, 0.5], [0.5, 0.5], np.ones((3, 3))), r"^distance must be .* got shape \(3, 3\)$"),
        (lambda: an.emd_lp([0.5, 0.5], [0.5, 0.5], [[0, np.inf], [1, 0]]), "^distance must be a finite"),
        (lambda: an.emd_ordered([1.0], [1.0]), "^p must have at least 2 values for the ordered distance, got 1$"),
        (lambda: an.emd_equal([-0.5, 1.5], [0.5, 0.5]), "p must have entries >= 0"),
        (lambda: an.t_closeness(an.FIGURE2, QI2, "salary", distance="cosine"),
         "^distance must be 'ordered', 'equal' or a matrix, got 'cosine'$"),
        (lambda: an.generalizes("<30", "young"), "^value must be a number to compare with '<30', got 'young'$"),
        (lambda: an.attacker_posterior(an.FIGURE2, QI2, "salary", {"zip": 47677}),
         r"^target must give a value for each quasi-identifier \['zip', 'age'\], got \{'zip': 47677\}$"),
        (lambda: an.attacker_posterior(an.FIGURE2, QI2, "salary", [47677, 20]), "^target must give a value"),
        (lambda: an.attacker_posterior(an.FIGURE2, ["zz"], "salary", {"zz": 1}), "^quasi_identifiers must be columns"),
        (lambda: an.attacker_posterior(an.FIGURE2, QI2, "wage", {"zip": 47677, "age": 20}), "^sensitive must be columns"),
        (lambda: an.equal_distance_matrix(1), r"^m must be an integer in \[2, 10000\], got 1$"),
        (lambda: an.emd_equal([0.5, 0.6], [0.5, 0.5]), "p must sum to 1"),
        (lambda: an.emd_ordered([0.5, 0.5], [0.5, 0.5 + 5e-8]), "q must sum to 1"),
        (lambda: an.emd_lp([0.5, 0.5 + 5e-8], [0.5, 0.5], np.zeros((2, 2))), "p must sum to 1"),
        (lambda: an.attacker_posterior(an.FIGURE2, QI2, "salary", {"zip": 10000, "age": 20}),
         r"^target must match at least one row of the table, got \{'zip': 10000, 'age': 20\}$"),
        (lambda: an.attacker_posterior(an.FIGURE1_LEFT, ["age"], "condition", {"age": 31}, exclude="Cancer"),
         r"^exclude must leave at least one possible value, got \['Cancer'\]$"),
        (lambda: an.hierarchy_distance_matrix({"a": ("r",)}), "^hierarchy must map at least 2 values to their ancestors"),
        (lambda: an.hierarchy_distance_matrix(["a", "b"]), "^hierarchy must map"),
        (lambda: an.hierarchy_distance_matrix({"a": ("r",), "b": ("r",)}, ["a", "z"]),
         r"^domain must only hold values of the hierarchy, got unknown \['z'\]$"),
        (lambda: an.hierarchy_distance_matrix({"a": ("p", "r"), "b": ("r",)}),
         "^hierarchy must give every value 2 ancestors ending at one root$"),
        (lambda: an.hierarchy_distance_matrix({"a": ("r",), "b": ("s",)}), "one root$"),
        (lambda: an.hierarchy_distance_matrix({"a": (), "b": ()}), "^hierarchy must give every value some ancestors"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------------------
# asymmetric cases: classes of unequal size and diversity, so min and max differ
# ---------------------------------------------------------------------------

#: three classes of sizes 2, 10, 3; distinct values 2, 3, 1; the 10-row class is skewed (8, 1, 1)
UNEQUAL = {
    "g": ["a"] * 2 + ["b"] * 10 + ["c"] * 3,
    "s": ["x", "y"] + ["x"] * 8 + ["y", "z"] + ["z", "z", "z"],
}


def test_k_anonymity_is_the_smallest_class():
    assert an.k_anonymity(UNEQUAL, ["g"]) == 2
    assert an.k_anonymity(an.FIGURE2, ["zip"]) == 3          # zip alone: classes of 6 (476**) and 3 (4790*)
    assert an.k_anonymity({"g": [1, 1, 1, 2]}, "g") == 1      # a single column name is accepted


def test_l_diversity_on_unequal_classes():
    assert an.distinct_l_diversity(UNEQUAL, ["g"], "s") == 1
    no_c = {k: v[:12] for k, v in UNEQUAL.items()}            # drop the homogeneous class: distinct 2 and 3
    assert an.distinct_l_diversity(no_c, ["g"], "s") == 2
    # entropy: class a is uniform on 2 values (exp H = 2), class b has counts (8, 1, 1): exp H < 2
    p = np.array([8, 1, 1]) / 10
    eh_b = float(np.exp(-(p * np.log(p)).sum()))
    assert eh_b < 2
    assert an.entropy_l_diversity(no_c, ["g"], "s") == pytest.approx(eh_b, rel=1e-12, abs=0)
    # the class with fewest distinct values (a) is not the one with least entropy (b): still entropy <= distinct
    assert an.entropy_l_diversity(no_c, ["g"], "s") <= an.distinct_l_diversity(no_c, ["g"], "s")


def test_exp_entropy_never_exceeds_support_size():
    # the reason entropy l <= distinct l: H(P) <= log |supp P|, with equality only for the uniform distribution
    rng = np.random.default_rng(4)
    for m in (2, 3, 7):
        for _ in range(20):
            counts = rng.integers(1, 20, m).tolist()
            t = {"a": [0] * sum(counts), "s": [v for v, c in enumerate(counts) for _ in range(c)]}
            assert an.entropy_l_diversity(t, ["a"], "s") <= m + 1e-12
        t = {"a": [0] * (3 * m), "s": list(range(m)) * 3}
        assert an.entropy_l_diversity(t, ["a"], "s") == pytest.approx(m, rel=1e-12, abs=0)


def test_hierarchy_distance_by_hand():
    # an unbalanced tree of height 3: a, b siblings; c a cousin; d meets them only at the root
    tree = {"a": ("p", "g", "r"), "b": ("p", "g", "r"), "c": ("p2", "g", "r"), "d": ("p3", "g2", "r")}
    D = an.hierarchy_distance_matrix(tree, ["d", "a", "c", "b"])
    expected = np.array([[0, 3, 3, 3], [3, 0, 2, 1], [3, 2, 0, 2], [3, 1, 2, 0]]) / 3
    assert np.allclose(D, expected, rtol=0, atol=1e-15)
    assert np.allclose(an.hierarchy_distance_matrix(tree), an.hierarchy_distance_matrix(tree, list(tree)))
    # height 1 (every value a child of the root): the equal distance; two values are enough
    assert an.hierarchy_distance_matrix({"a": ("r",), "b": ("r",)}).tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_disease_hierarchy_is_a_metric_of_height_three():
    D = an.hierarchy_distance_matrix(an.DISEASE_HIERARCHY, an.DISEASE_ORDER)
    assert {len(path) for path in an.DISEASE_HIERARCHY.values()} == {3}
    assert sorted(set(np.round(D, 12).ravel())) == [0.0, round(1 / 3, 12), 1.0]
    assert np.allclose(D, D.T) and np.all(np.diag(D) == 0) and np.all(D[~np.eye(6, dtype=bool)] > 0)
    assert np.all(D[:, None, :] <= D[:, :, None] + D[None, :, :] + 1e-15)    # d(i,k) <= d(i,j) + d(j,k)


def test_tree_emd_of_figure2_in_exact_rationals():
    # on a tree every edge (length 1/(2H) = 1/6 here) carries the net mass below it: an independent closed form
    P, q, dom = an.class_distributions(an.FIGURE2, QI2, "disease", an.DISEASE_ORDER)
    D = an.hierarchy_distance_matrix(an.DISEASE_HIERARCHY, dom)
    q_exact = [Fraction(an.FIGURE2["disease"].count(v), 9) for v in dom]
    for j, p in enumerate(P):
        rows = range(3 * j, 3 * j + 3)
        p_exact = [Fraction(sum(an.FIGURE2["disease"][i] == v for i in rows), 3) for v in dom]
        diff = [a - b for a, b in zip(p_exact, q_exact)]
        work = Fraction(0)
        for level in range(-1, 3):                  # leaves (-1), then each ancestor level
            nodes = {}
            for v, dv in zip(dom, diff):
                key = v if level < 0 else an.DISEASE_HIERARCHY[v][level]
                nodes[key] = nodes.get(key, 0) + dv
            if level < 2:                           # the root has no edge above it
                work += sum(abs(x) for x in nodes.values()) / 6
        assert an.emd_lp(p, q, D) == pytest.approx(float(work), abs=1e-9)
    assert [round(an.emd_lp(p, q, D) * 27, 9) for p in P] == [12, 8, 8]


def test_emd_lp_uses_shortest_paths_when_the_distance_is_not_a_metric():
    # d(0, 2) = 5 breaks the triangle inequality (1 + 1 < 5): the program routes the mass through value 1
    d = np.array([[0, 1, 5], [1, 0, 1], [5, 1, 0]], dtype=float)
    assert an.emd_lp([1, 0, 0], [0, 0, 1], d) == pytest.approx(2.0, abs=1e-9)
    # an asymmetric ground distance gives an asymmetric "distance"
    d_asym = np.array([[0, 1], [3, 0]], dtype=float)
    assert an.emd_lp([1, 0], [0, 1], d_asym) == pytest.approx(1.0, abs=1e-9)
    assert an.emd_lp([0, 1], [1, 0], d_asym) == pytest.approx(3.0, abs=1e-9)


def test_t_closeness_with_a_hierarchy():
    D = an.hierarchy_distance_matrix(an.DISEASE_HIERARCHY, an.DISEASE_ORDER)
    t = an.t_closeness(an.FIGURE2, QI2, "disease", distance=D, domain=an.DISEASE_ORDER)
    assert t == pytest.approx(4 / 9, abs=1e-9)                 # set by the first class (stomach only)
    # the maximum over classes, not the minimum: the other two classes sit at 8/27
    assert t > 8 / 27 + 0.1


def test_generalizes_all_comparisons():
    assert an.generalizes("<=30", 30) and not an.generalizes("<=30", 31)
    assert an.generalizes("≤ 30", 30) and not an.generalizes("≤30", 30.5)
    assert an.generalizes(">=40", 40) and not an.generalizes(">=40", 39)
    assert an.generalizes(">40", 41) and an.generalizes("<30", 29.5)
    assert not an.generalizes("130**", 1305) and not an.generalizes("130**", 130531)   # wrong number of digits


def test_attacker_posterior_exclude_forms():
    target = {"zip": 13068, "age": 22}
    # a single value, a set and a list all work; a value not in the class changes nothing
    assert an.attacker_posterior(an.FIGURE1_LEFT, ["zip", "age"], "condition", target, exclude="AIDS") == \
        pytest.approx({"Heart Disease": 1 / 3, "Viral Infection": 2 / 3})
    assert an.attacker_posterior(an.FIGURE1_LEFT, ["zip", "age"], "condition", target, exclude={"AIDS"}) == \
        pytest.approx({"Heart Disease": 1 / 3, "Viral Infection": 2 / 3})
    assert an.attacker_posterior(an.FIGURE1_LEFT, ["zip", "age"], "condition", target, exclude=["Cancer"]) == \
        pytest.approx({"AIDS": 0.25, "Heart Disease": 0.25, "Viral Infection": 0.5})
    # a non-string, non-sequence value (here a number in a numeric column) is one excluded value
    sal = an.attacker_posterior(an.FIGURE2, QI2, "salary", {"zip": 47677, "age": 29}, exclude=4)
    assert sal == pytest.approx({3: 0.5, 5: 0.5})


def test_emd_ordered_on_two_values():
    assert an.emd_ordered([0.4, 0.6], [0.5, 0.5]) == pytest.approx(0.1, abs=1e-12)
    assert an.emd_ordered([0.3, 0.3, 0.4], [0.1, 0.2, 0.7]) == pytest.approx((0.2 + 0.3) / 2, abs=1e-12)


def test_probability_vectors_are_accepted_within_1e_8():
    # sums off by 5e-9 (rounding in a published table) are accepted by all three EMDs, off by 5e-8 are not (above)
    p, q = [0.5, 0.5 + 5e-9], [0.25, 0.75]
    assert an.emd_equal(p, q) == pytest.approx(0.25, abs=1e-8)
    assert an.emd_ordered(p, q) == pytest.approx(0.25, abs=1e-8)
    assert an.emd_lp(p, q, an.equal_distance_matrix(2)) == pytest.approx(0.25, abs=1e-8)


def test_emd_lp_accepts_exact_rational_distances():
    d = [[Fraction(0), Fraction(1, 3)], [Fraction(1, 3), Fraction(0)]]
    assert an.emd_lp([1, 0], [0, 1], d) == pytest.approx(1 / 3, abs=1e-12)


def test_class_distributions_keep_domain_values_absent_from_the_table():
    P, q, dom = an.class_distributions({"a": [1, 1, 2], "s": [5, 3, 5]}, ["a"], "s", domain=[3, 5, 9])
    assert dom == [3, 5, 9]
    assert q.tolist() == pytest.approx([1 / 3, 2 / 3, 0]) and P.shape == (2, 3)
    assert np.allclose(P, [[0.5, 0.5, 0], [0, 1, 0]], rtol=0, atol=1e-15)


def test_generalizes_ignores_spaces_and_keeps_the_whole_stem():
    assert an.generalizes(" * ", "x") and an.generalizes("F ", "F")
    assert an.generalizes("K8X**", "K8X12") and not an.generalizes("K8X**", "K8Y12")


@pytest.mark.parametrize("matrix", [an.ordered_distance_matrix, an.equal_distance_matrix])
def test_distance_matrices_refuse_a_domain_past_10_000_values(matrix, raises_exactly):
    """An m-by-m matrix of floats: at m = 2**31 numpy asked for 16 GiB or more (MemoryError), at
    2**62 it said "array is too big". m is capped at 10**4 (800 MB), by name."""
    with raises_exactly("m must be an integer in [2, 10000], got 10001"):
        matrix(10_001)
    with raises_exactly(f"m must be an integer in [2, 10000], got {2**62}"):
        matrix(2**62)
    assert matrix(3).shape == (3, 3)
