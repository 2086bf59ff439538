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
    assert an.entropy_l_diversity(an.FIGURE1_RIGHT, QI1, "condition") == pytest.approx(expected, rel=1e-12)
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
        (lambda: an.equivalence_classes({}, ["a"]), "table"),
        (lambda: an.equivalence_classes({"a": [1, 2], "b": [1]}, ["a"]), "table"),
        (lambda: an.k_anonymity({"a": [1]}, ["zz"]), "quasi_identifiers"),
        (lambda: an.k_anonymity({"a": [1]}, []), "quasi_identifiers"),
        (lambda: an.class_distributions({"a": [1], "s": [1]}, ["a"], "t"), "sensitive"),
        (lambda: an.class_distributions({"a": [1], "s": [5]}, ["a"], "s", domain=[1, 2]), "domain"),
        (lambda: an.distinct_l_diversity({"a": [1]}, ["a"], "zz"), "sensitive"),
        (lambda: an.entropy_l_diversity({"a": [1]}, ["a"], "zz"), "sensitive"),
        (lambda: an.ordered_distance_matrix(1), "m"),
        (lambda: an.equal_distance_matrix(1.5), "m"),
        (lambda: an.emd_lp([0.5, 0.6], [0.5, 0.5], np.zeros((2, 2))), "p must sum to 1"),
        (lambda: an.emd_lp([0.5, 0.5], [1.0], np.zeros((2, 2))), "same length"),
        (lambda: an.emd_lp([0.5, 0.5], [0.5, 0.5], -np.ones((2, 2))), "distance"),
        (lambda: an.emd_ordered([1.0], [1.0]), "at least 2"),
        (lambda: an.emd_equal([-0.5, 1.5], [0.5, 0.5]), "p must have entries >= 0"),
        (lambda: an.t_closeness(an.FIGURE2, QI2, "salary", distance="cosine"), "distance"),
        (lambda: an.generalizes("<30", "young"), "value"),
        (lambda: an.attacker_posterior(an.FIGURE2, QI2, "salary", {"zip": 47677}), "target"),
        (lambda: an.attacker_posterior(an.FIGURE2, QI2, "salary", {"zip": 10000, "age": 20}), "target"),
        (lambda: an.attacker_posterior(an.FIGURE1_LEFT, ["age"], "condition", {"age": 31}, exclude="Cancer"), "exclude"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
