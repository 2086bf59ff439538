"""Bad input everywhere: every public function of dpnotes, every numeric parameter, every bad value.

The walker finds every public callable of every module (``__all__``, modules found with
``pkgutil``) and calls it once per (numeric parameter, bad value), the other arguments held
at a valid baseline from ``REGISTRY``. Bad values: ``nan``, ``inf``, ``-inf``, ``None``, a
string, an empty list, a list where a scalar is expected and a bool; for an array parameter, the same as a
whole plus the baseline with one entry replaced by ``nan``, ``inf`` or a string. Each call
must raise a :class:`ValueError` whose message names the parameter (the package's promise,
``dpnotes/__init__.py``), unless the behaviour is documented:

* ``None`` for a parameter whose default is ``None`` (it selects the default);
* a list for a parameter documented as vectorized (``VECTORIZED``);
* an empty list for an array (or vectorized) parameter, answered by an empty array;
* the few values listed in ``DOCUMENTED`` with the docstring that allows them.

Which parameters are numeric comes from the baseline: an int or float baseline is a numeric
scalar, a list/tuple/array of numbers is a numeric array (``NOT_NUMERIC`` excludes a few whose
entries are arbitrary record values). A new public function fails
``test_every_public_callable_is_registered`` until it has a baseline here or a reason in
``NO_NUMERIC_PARAMETER``. There is no list of tolerated gaps: every failure fails its test.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import math
import pkgutil
import random
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

import dpnotes
from cpu_limit import CPUTimeExceeded, cpu_seconds

RNG = "<numpy Generator>"          # replaced by numpy.random.default_rng(0) at each call
PYRNG = "<random.Random>"          # replaced by random.Random(0) at each call
TIMEOUT = 30                       # seconds; a call that hangs on a bad value is a failure too

_census = importlib.import_module("dpnotes.census")
_CENSUS_QUERIES = _census.block_queries()
_CENSUS_TRUTH = importlib.import_module("dpnotes.attacks").census_block_solutions()[0]
_CENSUS_HALF_CELLS = [0.6, 0.7, 0.7] + [0.0] * (_CENSUS_QUERIES.n_cells - 3)
_rr = lambda data, size, rng: dpnotes.mechanisms.randomized_response(np.full(size, data), 1.0, rng)  # noqa: E731

# ----------------------------------------------------------------------------------- the registry
# function -> keyword arguments of a valid call (small and fast: each is called ~40 times)
REGISTRY: dict[str, dict] = {
    # anonymity
    "anonymity.equivalence_classes": dict(table={"a": [1, 2, 1], "s": [0, 0, 1]}, quasi_identifiers=["a"]),
    "anonymity.k_anonymity": dict(table={"a": [1, 2, 1], "s": [0, 0, 1]}, quasi_identifiers=["a"]),
    "anonymity.class_distributions": dict(table={"a": [1, 1, 2], "s": ["x", "y", "x"]}, quasi_identifiers=["a"],
                                          sensitive="s"),
    "anonymity.distinct_l_diversity": dict(table={"a": [1, 1, 2], "s": ["x", "y", "x"]}, quasi_identifiers=["a"],
                                           sensitive="s"),
    "anonymity.entropy_l_diversity": dict(table={"a": [0, 0], "s": ["x", "y"]}, quasi_identifiers=["a"], sensitive="s"),
    "anonymity.ordered_distance_matrix": dict(m=3),
    "anonymity.equal_distance_matrix": dict(m=3),
    "anonymity.hierarchy_distance_matrix": dict(hierarchy={"a": ("x", "r"), "b": ("x", "r"), "c": ("y", "r")}),
    "anonymity.emd_lp": dict(p=[0.25, 0.75], q=[0.5, 0.5], distance=[[0.0, 1.0], [1.0, 0.0]]),
    "anonymity.emd_ordered": dict(p=[0.25, 0.25, 0.5], q=[0.5, 0.25, 0.25]),
    "anonymity.emd_equal": dict(p=[0.4, 0.6], q=[0.5, 0.5]),
    "anonymity.t_closeness": dict(table={"a": [1, 1, 2, 2], "s": [1, 2, 3, 1]}, quasi_identifiers=["a"], sensitive="s"),
    "anonymity.generalizes": dict(pattern="3*", value=31),
    "anonymity.attacker_posterior": dict(table={"a": [1, 1, 2], "s": ["x", "y", "x"]}, quasi_identifiers=["a"],
                                         sensitive="s", target={"a": 1}),
    # attacks
    "attacks.age_triples": dict(median=2, mean=2, age_max=3),
    "attacks.census_block_solutions": dict(age_max=125, adult_age=18, decimals=1, max_solutions=5),
    "attacks.publish_block": dict(records=[(8, "F", "B", False), (18, "M", "W", False), (24, "F", "W", False),
                                           (30, "M", "W", True), (36, "F", "B", True), (66, "F", "B", True),
                                           (84, "M", "B", True)], adult_age=18, decimals=1, threshold=3),
    "attacks.all_subset_queries": dict(n=2),
    "attacks.random_subset_queries": dict(m=2, n=3, rng=RNG),
    "attacks.bounded_noise_answers": dict(d=[1, 0, 1, 0], queries=[[1, 1, 1, 1], [1, 0, 0, 0]], bound=1.0, rng=RNG),
    "attacks.exponential_attack": dict(queries=[[1, 0], [0, 1], [1, 1]], answers=[0.4, 1.4, 1.4], bound=0.5),
    "attacks.lp_attack": dict(queries=[[1, 0], [0, 1], [1, 1]], answers=[0.1, 1.1, 0.9], bound=0.5),
    "attacks.laplace_answers": dict(d=[1, 0], queries=[[1, 1], [0, 1]], epsilon=1.0, rng=RNG),
    "attacks.gaussian_answers": dict(d=[1, 0], queries=[[1, 1], [0, 1]], epsilon=1.0, delta=1e-5, rng=RNG),
    # audit
    "audit.clopper_pearson_upper": dict(k=3, n=100, alpha=0.05),
    "audit.epsilon_lower_bound": dict(false_positives=250, n_negatives=1000, false_negatives=250, n_positives=1000,
                                      delta=0.0, confidence=0.95),
    "audit.expected_lower_bound": dict(p=[0.75, 0.25], p_prime=[0.25, 0.75], n_samples=1000, delta=0.0,
                                       confidence=0.95),
    "audit.count_errors": dict(mechanism=_rr, x=0, x_prime=1, test="<test>", n_samples=200, rng=RNG),
    "audit.audit_test": dict(mechanism=_rr, x=0, x_prime=1, test="<test>", n_samples=200, rng=RNG,
                             confidence=0.95, delta=0.0),
    "audit.audit_pair": dict(mechanism=_rr, x=0, x_prime=1, n_samples=200, rng=RNG, confidence=0.95, delta=0.0),
    "audit.one_run_p_value": dict(n_canaries=100, n_guesses=10, n_correct=8, epsilon=1.0, delta=0.0),
    "audit.one_run_epsilon": dict(n_canaries=100, n_guesses=10, n_correct=8, delta=0.0, confidence=0.95),
    "audit.one_run_guesses": dict(scores=[0.3, 2.0, -1.0, 0.1], n_positive=1, n_negative=1),
    "audit.one_run_audit": dict(run=lambda inc, rng: inc + 0.5 * rng.standard_normal(inc.size), n_canaries=40,
                                n_positive=5, n_negative=5, rng=RNG, delta=0.0, confidence=0.95),
    "audit.gdp_mu_from_errors": dict(alpha=0.2, beta=0.3),
    "audit.gdp_mu_lower_bound": dict(false_positives=200, n_negatives=1000, false_negatives=300, n_positives=1000,
                                     confidence=0.95),
    "audit.gdp_epsilon_lower_bound": dict(false_positives=200, n_negatives=1000, false_negatives=300,
                                          n_positives=1000, delta=1e-5, confidence=0.95),
    "audit.simultaneous_error_bounds": dict(false_positives=[30, 80], n_negatives=1000, false_negatives=[600, 450],
                                            n_positives=1000, confidence=0.95),
    "audit.tradeoff_epsilon_lower_bound": dict(false_positives=[30, 80], n_negatives=1000,
                                               false_negatives=[600, 450], n_positives=1000, delta=0.0,
                                               confidence=0.95),
    "audit.nested_tests_exceedance": dict(cdf_x=[0.6], cdf_x_prime=[0.3], n_negatives=10, n_positives=10,
                                          point_exceeds=lambda fp, fn: fp + fn <= 5),
    # benchmark
    "benchmark.geometric_sample_cdf": dict(count=1, epsilon=0.1, n=5),
    "benchmark.geometric_sample_law": dict(count=1, epsilon=0.1, n=5),
    "benchmark.murmur3_32": dict(data=b"abc", seed=7),
    "benchmark.noisy_max_index_law": dict(answers=[0.0, 1.0], epsilon=1.0),
    "benchmark.numerical_svt_pattern_law": dict(answers=[0.0, 1.0, 0.0], epsilon=0.5, c=2, threshold=1.0),
    "benchmark.numerical_svt_pair_epsilon": dict(x=[0.0, 1.0], x_prime=[1.0, 0.0], epsilon=0.5, c=1, threshold=0.5),
    "benchmark.rappor_bit_probabilities": dict(f=0.75, p=0.45, q=0.55),
    "benchmark.rappor_bits": dict(value=3, n_hashes=2, filter_size=8),
    "benchmark.rappor_pair_epsilon": dict(value=0, value_prime=1, f=0.75, p=0.45, q=0.55, n_hashes=2,
                                          filter_size=8),
    # census
    "census.block_queries": dict(age_max=30, adult_age=18),
    "census.budget_split": dict(rho=2.0, n_groups=4, detailed_share=0.5),
    "census.release_sigmas": dict(budget=_census.budget_split(2.0, 4), groups_moved=3),
    "census.composition_delta": dict(epsilon=0.5, sigmas=[2.0, 3.0], tail=1e-30),
    "census.composition_epsilon": dict(delta=1e-6, sigmas=[3.0, 3.0], tail=1e-30),
    "census.zcdp_epsilon_cks": dict(rho=0.5, delta=1e-6),
    "census.max_groups_moved": dict(queries=_CENSUS_QUERIES),
    "census.records_to_histogram": dict(records=_CENSUS_TRUTH[:2], queries=_CENSUS_QUERIES),
    "census.histogram_to_records": dict(histogram=_census.records_to_histogram(_CENSUS_TRUTH[:2], _CENSUS_QUERIES),
                                        queries=_CENSUS_QUERIES),
    "census.round_histogram": dict(x=_CENSUS_HALF_CELLS, queries=_CENSUS_QUERIES, total=2),
    "census.published_table": dict(records=_CENSUS_TRUTH, queries=_CENSUS_QUERIES, threshold=3),
    "census.measure_block": dict(records=_CENSUS_TRUTH, rho=1.0, rng=RNG, queries=_CENSUS_QUERIES,
                                 detailed_share=0.5),
    "census.least_squares_histogram": dict(measurement=_census.measure_block(
        _CENSUS_TRUTH, 1.0, rng=np.random.default_rng(0), queries=_CENSUS_QUERIES), queries=_CENSUS_QUERIES,
        tol=1e-9),
    "census.release_block": dict(records=_CENSUS_TRUTH, rho=1.0, rng=RNG, queries=_CENSUS_QUERIES,
                                 detailed_share=0.5),
    "census.people_recovered": dict(solution=_CENSUS_TRUTH[:2], truth=_CENSUS_TRUTH[1:3]),
    "census.reconstruction_study": dict(records=_CENSUS_TRUTH, rhos=[math.inf], seeds=[0], attack_seeds=[0],
                                        queries=_CENSUS_QUERIES, detailed_share=0.5, threshold=3, max_solutions=2),
    # composition
    "composition.basic": dict(epsilon=0.5, k=4, delta=0.125),
    "composition.advanced": dict(epsilon=0.1, k=100, delta_prime=1e-6, delta=1e-7),
    "composition.advanced_reduction": dict(epsilon=0.1, k=100, delta_prime=1e-6, delta=1e-7),
    "composition.advanced_heterogeneous": dict(epsilons=[0.1, 0.2], delta_prime=1e-6, deltas=[0.0, 1e-7]),
    "composition.optimal": dict(epsilon=0.5, k=10, delta=1e-5, step_delta=1e-7),
    "composition.optimal_delta": dict(epsilon=0.5, k=10, epsilon_prime=1.5, step_delta=1e-7),
    "composition.optimal_delta_heterogeneous": dict(epsilons=[0.5, 0.7], epsilon_prime=0.3, deltas=[0.0, 1e-6]),
    "composition.uv_pair": dict(epsilon=0.5, delta=0.1),
    "composition.rr_reduction_channel": dict(p=[0.5, 0.3, 0.2], q=[0.3, 0.4, 0.3], epsilon=0.7, delta=0.0),
    "composition.rdp_to_dp": dict(alpha=[2.0, 8.0], rdp=[0.5, 2.0], delta=1e-5),
    "composition.zcdp_to_dp": dict(rho=0.5, delta=1e-5),
    # concentration
    "concentration.azuma_bound": dict(t=2.0, c=[1.0, 0.5]),
    "concentration.hoeffding_bound": dict(tau=5.0, n=20, a=-1.0, b=1.5),
    "concentration.rr_loss_paths": dict(epsilon=0.5, k=4, n_paths=3, rng=RNG),
    # discrete
    "discrete.exact_output_law": dict(sampler=lambda src: src.getrandbits(1), max_bits=4),
    "discrete.bernoulli_exp": dict(gamma=0.5, rng=PYRNG),
    "discrete.sample_discrete_laplace": dict(scale=1.5, rng=PYRNG),
    "discrete.sample_discrete_gaussian": dict(sigma=3.0, rng=PYRNG),
    "discrete.discrete_laplace_mechanism": dict(value=10, scale=2.0, size=3, rng=PYRNG),
    "discrete.discrete_gaussian_mechanism": dict(value=[0, 100], sigma=10.0, size=2, rng=RNG),
    "discrete.discrete_laplace_pmf": dict(x=[0, 1], scale=1.5),
    "discrete.discrete_gaussian_pmf": dict(x=[-2, 2], sigma=0.5),
    "discrete.discrete_laplace_delta": dict(scale=2.0, epsilon=0.25, sensitivity=1),
    "discrete.discrete_gaussian_delta": dict(sigma=2.0, epsilon=[0.0, 1.0], sensitivity=1),
    "discrete.round_to_precision": dict(x=[1.0, 0.1], precision=10),
    "discrete.textbook_laplace_float": dict(value=0.0, scale=1.0, u=[0.25, 0.75], precision=53),
    "discrete.textbook_laplace_can_output": dict(y=-0.5, value=0.0, scale=2.0, precision=53, search=8),
    "discrete.textbook_laplace_law": dict(value=0.0, scale=2.0, precision=4),
    "discrete.snapping_epsilon": dict(scale=2.5, bound=40.0, precision=12),
    "discrete.snapping_mechanism": dict(value=3.3, scale=2.5, bound=40.0, rng=RNG, size=3),
    "discrete.snapping_law": dict(value=0.0, scale=2.5, bound=4.0, precision=8),
    "discrete.full_precision_uniform": dict(rng=RNG, size=3),
    # divergences
    "divergences.max_divergence": dict(p=[0.75, 0.25], q=[0.25, 0.75]),
    "divergences.pure_epsilon": dict(p=[0.75, 0.25], q=[0.25, 0.75]),
    "divergences.approx_max_divergence": dict(p=[0.75, 0.25], q=[0.25, 0.75], delta=0.25),
    "divergences.kl_divergence": dict(p=[0.75, 0.25], q=[0.25, 0.75]),
    "divergences.renyi_divergence": dict(p=[0.5, 0.5], q=[0.25, 0.75], alpha=2.0),
    "divergences.laplace_kl": dict(epsilon=1.0),
    "divergences.laplace_renyi": dict(alpha=2.0, epsilon=1.0),
    "divergences.gaussian_kl": dict(mu=2.0),
    "divergences.gaussian_renyi": dict(alpha=3.0, mu=1.0),
    # finite
    "finite.binary_datasets": dict(n=2),
    "finite.pairs_at_distance": dict(datasets=[[0, 0], [1, 0], [0, 1], [1, 1]], k=1),
    "finite.epsilon_over_pairs": dict(table=[[0.75, 0.25], [0.25, 0.75]], pairs=[[0, 1]]),
    "finite.epsilon_by_distance": dict(table=[[0.75, 0.25], [0.25, 0.75]], datasets=[[0], [1]]),
    # flawed
    "flawed.laplace_noise": dict(scale=2.0, shape=3, rng=RNG),
    "flawed.lyu_noise_scales": dict(algorithm=4, epsilon=0.5, c=1),
    "flawed.sparse_vector_variant": dict(answers=[-5.0, 5.0], threshold=0.0, epsilon=1.0, size=2, rng=RNG,
                                         algorithm=1, c=1),
    "flawed.lyu_privacy": dict(algorithm=4, epsilon=0.1, c=1),
    "flawed.no_cutoff_pattern_log_probabilities": dict(answers=[0.0, 1.0], threshold=0.0, epsilon=1.0,
                                                       patterns=[[1, 0]], algorithm=5),
    "flawed.noisy_max": dict(answers=[0.0, 10.0, 3.0], epsilon=1.0, size=3, rng=RNG),
    "flawed.noisy_max_value_log_density": dict(y=[0.0], answers=[0.0, 1.0], epsilon=2.0),
    "flawed.noisy_max_value_epsilon": dict(n_answers=5, epsilon=0.1),
    "flawed.laplace_with_rare_leak": dict(value=3.0, epsilon=1.0, size=10, rng=RNG, leak_probability=1e-3),
    # functional
    "functional.as_points": dict(name="grid", x=[0.0, 1.0], d=1),
    "functional.gaussian_kernel": dict(x=[0.0], y=[0.0, 2.0], bandwidth=2.0),
    "functional.mahalanobis_norm": dict(v=[3.0, 4.0], gram=[[1.0, 0.0], [0.0, 4.0]]),
    "functional.rkhs_norm": dict(coef=[1.0, -1.0], centers=[0.0, 3.0], bandwidth=1.0),
    "functional.gp_cholesky": dict(points=[0.0, 1.0], bandwidth=1.0, jitter=1e-10, max_jitter=1e-4),
    "functional.sample_gp": dict(points=[0.0, 0.5, 1.0], bandwidth=0.3, rng=RNG, size=2, jitter=1e-10),
    "functional.kde": dict(data=[0.0, 1.0], grid=[0.0, 0.5], bandwidth=1.0),
    "functional.kde_difference_rkhs_norm": dict(x=0.0, x_prime=1.0, n=10, bandwidth=1.0),
    "functional.rkhs_sensitivity": dict(n=10, bandwidth=0.5, d=1),
    "functional.gp_mechanism": dict(values=[0.0, 1.0], points=[0.0, 0.5], sensitivity=0.1, epsilon=1.0, delta=1e-3,
                                    bandwidth=0.3, rng=RNG, jitter=1e-10),
    "functional.private_kde": dict(data=[0.1, 0.5], grid=[-1.0, 0.0, 1.0], epsilon=1.0, delta=1e-3, bandwidth=0.5,
                                   rng=RNG, jitter=1e-10),
    "functional.gp_conditional": dict(points=[0.0], values=[2.0], new_points=[0.0, 5.0], bandwidth=1.0,
                                      jitter=1e-10),
    "functional.gp_extend": dict(points=[0.0, 1.0], values=[0.5, -0.5], new_points=[0.5], bandwidth=1.0, rng=RNG,
                                 jitter=1e-10),
    "functional.normal_reference_bandwidth": dict(data=[-1.0, 1.0, 0.5, 2.0, -0.3]),
    "functional.normal_kde_mise": dict(n=10, bandwidth=1.0),
    "functional.kde_ise_normal": dict(n=20, bandwidth=0.5, grid=[-1.0, 0.0, 1.0], rng=RNG, reps=2),
    "functional.lscv": dict(data=[0.0, 1.0, 3.0], bandwidth=1.0),
    "functional.lscv_sensitivity": dict(n=10, bandwidth=1.0, d=1),
    "functional.sobolev_kde_sensitivity": dict(n=10, bandwidth=1.0),
    "functional.erm_sensitivity": dict(n=100, lam=0.05, lipschitz=2.0, kappa=0.5),
    "functional.kernel_logistic_regression": dict(data=[-1.0, 1.0], labels=[-1, 1], bandwidth=1.0, lam=0.1,
                                                  tol=1e-12, max_iter=100),
    # local
    "local.krr_probabilities": dict(epsilon=1.0, k=5),
    "local.krr_randomize": dict(x=[0, 3, 2], epsilon=1.0, k=4, rng=RNG, size=2),
    "local.krr_estimate": dict(reports=[0, 0, 1, 2, 0], epsilon=1.0, k=3),
    "local.krr_variance": dict(counts=[3, 1], epsilon=1.0),
    "local.oue_probabilities": dict(epsilon=1.0),
    "local.oue_randomize": dict(x=[2, 0], epsilon=1.0, k=3, rng=RNG, size=2),
    "local.oue_estimate": dict(reports=[[1, 0, 0], [1, 1, 0], [0, 0, 1]], epsilon=1.0),
    "local.oue_variance": dict(counts=[3, 1], epsilon=1.0),
    "local.shuffled_rr_count": dict(x=[1, 0, 1, 1], epsilon0=1.0, rng=RNG, size=2),
    "local.shuffled_rr_laws": dict(epsilon0=1.0, n=3, m=1),
    "local.shuffled_rr_delta": dict(epsilon0=1.0, n=10, epsilon=0.5),
    "local.shuffled_rr_epsilon": dict(epsilon0=2.0, n=50, delta=1e-6),
    "local.fmt_epsilon0_max": dict(n=10_000, delta=1e-6),
    "local.fmt_epsilon": dict(epsilon0=1.0, n=10_000, delta=1e-6),
    "local.fmt_clone_delta": dict(epsilon0=1.0, n=100, epsilon=0.5, clone_probability=0.1),
    "local.fmt_clone_epsilon": dict(epsilon0=1.0, n=500, delta=1e-6, clone_probability=0.1),
    "local.fmt_stronger_epsilon0_max": dict(n=10_000, delta=1e-6),
    "local.fmt_stronger_epsilon": dict(epsilon0=1.0, n=10_000, delta=1e-6),
    "local.hr_parameters": dict(epsilon=1.0, k=3),
    "local.hr_randomize": dict(x=[0, 2, 2], epsilon=1.0, k=3, rng=RNG, size=2),
    "local.hr_estimate": dict(reports=[0, 0, 1, 3], epsilon=1.0, k=2),
    "local.hr_variance": dict(counts=[3, 1], epsilon=1.0),
    # loss
    "loss.privacy_loss": dict(p=[0.75, 0.25], q=[0.25, 0.75]),
    "loss.hockey_stick": dict(p=[0.75, 0.25], q=[0.25, 0.75], epsilon=0.5),
    "loss.hockey_stick_from_loss": dict(loss=[1.0, -0.5], prob=[0.25, 0.75], epsilon=0.5),
    "loss.loss_tail": dict(loss=[1.0, -0.5], prob=[0.25, 0.75], epsilon=0.5),
    "loss.tail_bound_from_dp": dict(epsilon=1.0, delta=1e-6, epsilon_prime=1.5),
    "loss.rr_delta": dict(epsilon=0.5, epsilon_rr=1.0),
    "loss.laplace_delta": dict(epsilon=0.5, mu=1.0),
    "loss.laplace_loss_cdf": dict(ell=0.5, mu=1.0),
    "loss.laplace_loss_tail": dict(epsilon=0.5, mu=1.0),
    "loss.gaussian_delta": dict(epsilon=0.5, mu=1.0),
    "loss.gaussian_epsilon": dict(delta=1e-5, mu=0.5),
    "loss.gaussian_loss": dict(mu=2.0),
    "loss.gaussian_loss_tail": dict(epsilon=0.5, mu=1.0),
    "loss.gaussian_test_power": dict(gamma=0.3, mu=1.0),
    # mechanisms
    "mechanisms.rr_keep_probability": dict(epsilon=0.7),
    "mechanisms.rr_epsilon": dict(keep_probability=0.7),
    "mechanisms.rr_matrix": dict(epsilon=0.7),
    "mechanisms.randomized_response": dict(x=[0, 1, 1], epsilon=0.7, rng=RNG),
    "mechanisms.randomized_response_log_pmf": dict(y=[1, 0], x=[1, 1], epsilon=0.7),
    "mechanisms.gaussian_sigma": dict(epsilon=0.7, delta=1e-5, sensitivity=2.0),
    "mechanisms.publish_each": dict(x=[3, 1, 4], delta=0.1, rng=RNG),
    "mechanisms.publish_any_probability": dict(n=3, delta=0.1),
    "mechanisms.replace_one_neighbours": dict(x=(0, 1), domain=(0, 1)),
    "mechanisms.sensitivity": dict(query=sum, n=2, domain=(0, 1)),
    "mechanisms.mahalanobis_sensitivity": dict(differences=[[2.0, 0.0], [0.0, 1.0]], cov=[[4.0, 0.0], [0.0, 1.0]]),
    "mechanisms.laplace_scale": dict(epsilon=0.5, sensitivity=2.0),
    "mechanisms.laplace_epsilon": dict(scale=4.0, sensitivity=2.0),
    "mechanisms.laplace_mechanism": dict(value=[10.0, 20.0], epsilon=0.5, rng=RNG, sensitivity=2.0),
    "mechanisms.gaussian_mechanism": dict(value=[0.0, 1.0], sigma=1.5, rng=RNG, cov=[[2.0, 0.5], [0.5, 1.0]]),
    # plotting
    "plotting.figure": dict(ncols=1, width=4.0, height=3.0),
    # selection
    "selection.exponential_mechanism_probabilities": dict(utilities=[0.0, 2.0], epsilon=1.0, sensitivity=1.0),
    "selection.exponential_mechanism": dict(utilities=[0.0, 2.0], epsilon=1.0, sensitivity=1.0, rng=RNG, size=2),
    "selection.report_noisy_max": dict(utilities=[0.0, 2.0], epsilon=1.0, sensitivity=1.0, rng=RNG, size=2),
    "selection.report_noisy_max_probabilities": dict(utilities=[0.0, 2.0, 1.0], epsilon=1.0, sensitivity=1.0),
    "selection.permute_and_flip": dict(utilities=[0.0, 2.0], epsilon=1.0, sensitivity=1.0, rng=RNG, size=2),
    "selection.permute_and_flip_probabilities": dict(utilities=[0.0, 2.0], epsilon=1.0, sensitivity=1.0),
    "selection.accuracy_gap": dict(n_outputs=100, epsilon=0.5, t=3.0, sensitivity=2.0),
    "selection.quantile_utility": dict(data=[1.0, 2.0, 2.0, 10.0], candidates=[0.0, 2.0, 3.0], alpha=0.25),
    "selection.median_utility": dict(data=[1.0, 2.0, 2.0, 10.0], candidates=[0.0, 2.0, 3.0]),
    # sgd
    "sgd.logistic_loss": dict(weights=[0.1, 0.2], features=[[1.0], [2.0]], labels=[0, 1]),
    "sgd.per_example_gradients": dict(weights=[0.1, 0.2], features=[[2.0], [-1.0]], labels=[1, 0]),
    "sgd.clip_gradients": dict(gradients=[[3.0, 4.0], [0.3, 0.4]], clip_norm=1.0),
    "sgd.noisy_clipped_sum": dict(gradients=[[3.0, 4.0], [0.3, 0.4]], clip_norm=1.0, noise_multiplier=0.5, rng=RNG),
    "sgd.poisson_batch": dict(n=10, sampling_probability=0.3, rng=RNG),
    "sgd.dp_sgd": dict(features=[[1.0], [-1.0], [2.0], [-2.0]], labels=[1, 0, 1, 0], clip_norm=1.0,
                       noise_multiplier=1.0, sampling_probability=0.5, epochs=1, learning_rate=0.5, rng=RNG,
                       delta=1e-5, accountant=lambda q, sigma, steps, delta: steps * q / sigma,
                       initial_weights=[0.0, 0.0], expected_batch_size=2.0),
    "sgd.accuracy": dict(weights=[1.0, 0.0], features=[[2.0], [-1.0], [0.5]], labels=[1, 0, 0]),
    # subsampling
    "subsampling.amplify_poisson": dict(epsilon=1.0, sampling_probability=0.25, delta=1e-6),
    "subsampling.amplify_poisson_replace_one": dict(epsilon=1.0, sampling_probability=0.25),
    "subsampling.amplify_without_replacement": dict(epsilon=1.0, sample_size=10, population_size=40, delta=1e-6),
    "subsampling.subsampled_gaussian_profile": dict(sampling_probability=0.5, noise_multiplier=2.0, epsilon=0.3),
    "subsampling.subsampled_gaussian_rdp": dict(sampling_probability=0.1, noise_multiplier=1.0, orders=[2.0, 3.5]),
    "subsampling.subsampled_gaussian_rdp_epsilon": dict(sampling_probability=0.1, noise_multiplier=2.0, steps=4,
                                                        delta=1e-5, orders=[3.0, 8.0]),
    "subsampling.subsampled_gaussian_delta": dict(sampling_probability=0.1, noise_multiplier=2.0, steps=4,
                                                  epsilon=1.0),
    "subsampling.subsampled_gaussian_epsilon": dict(sampling_probability=0.1, noise_multiplier=2.0, steps=4,
                                                    delta=1e-5),
    "subsampling.clt_gdp_mu": dict(sampling_probability=0.01, noise_multiplier=1.0, steps=100),
    "subsampling.clt_gdp_epsilon": dict(sampling_probability=0.02, noise_multiplier=1.5, steps=100, delta=1e-5),
    "subsampling.shuffle_epsilon_lower_bound": dict(batches=2, noise_multiplier=0.8, epochs=1, delta=1e-5),
    # svt
    "svt.above_threshold": dict(answers=[-5.0, 5.0], threshold=0.5, epsilon=1.0, rng=RNG, threshold_scale=2.0,
                                query_scale=4.0),
    "svt.sample_outputs": dict(answers=[-5.0, 5.0], threshold=0.5, epsilon=1.0, size=3, rng=RNG,
                               threshold_scale=2.0, query_scale=4.0),
    "svt.output_log_probabilities": dict(answers=[0.0, 1.0], threshold=0.5, epsilon=1.0, threshold_scale=2.0,
                                         query_scale=4.0),
    "svt.max_log_ratio": dict(answers=[0.0], answers_prime=[1.0], threshold=0.5, epsilon=1.0, threshold_scale=2.0,
                              query_scale=4.0),
    "svt.search_worst_case": dict(k=1, epsilon=1.0, rng=RNG, n_starts=1, maxfev=3, spread=4.0,
                                  threshold_scale=2.0, query_scale=4.0),
    "svt.accuracy_alpha": dict(k=10, epsilon=1.0, beta=0.1),
    "svt.is_accurate": dict(answers=[-10.0, 10.0], threshold=0.5, alpha=1.0, outputs=[0, 1, 2]),
    "svt.accuracy_failure_probability": dict(k=2, epsilon=1.0, alpha=20.0, threshold_scale=2.0, query_scale=4.0),
    "svt.simulate_accuracy_failure": dict(k=3, epsilon=1.0, alpha=20.0, n_runs=10, rng=RNG),
    "svt.advanced_per_query_epsilon": dict(epsilon=1.0, k=100, delta_prime=1e-6),
    "svt.laplace_alpha": dict(k=10, epsilon=1.0, beta=0.1, method="advanced", delta_prime=1e-6),
    "svt.sparse": dict(answers=[5.0, -5.0, 5.0], threshold=0.5, epsilon=1.0, c=2, rng=RNG, delta=1e-6),
    "svt.sparse_alpha": dict(k=10, epsilon=1.0, beta=0.1, c=2, delta=1e-6),
    "svt.sample_sparse": dict(answers=[5.0, -5.0, 5.0], threshold=0.5, epsilon=1.0, c=2, size=3, rng=RNG,
                              delta=1e-6, threshold_scale=2.0, query_scale=4.0),
    "svt.sparse_output_log_probabilities": dict(answers=[0.0, 3.0], threshold=0.5, epsilon=1.0, c=1, delta=1e-6,
                                                threshold_scale=2.0, query_scale=4.0),
    "svt.sparse_max_log_ratio": dict(answers=[0.0, 2.0], answers_prime=[1.0, 1.0], threshold=0.5, epsilon=1.0, c=1,
                                     delta=1e-6, threshold_scale=2.0, query_scale=4.0),
    "svt.numeric_sparse_epsilons": dict(epsilon=0.9, delta=1e-6),
    "svt.numeric_sparse": dict(answers=[5.0, -5.0, 8.0], threshold=0.5, epsilon=1.0, c=2, rng=RNG, delta=1e-6),
    "svt.numeric_sparse_alpha": dict(k=10, epsilon=1.0, beta=0.1, c=2, delta=1e-6),
    "svt.numeric_log_density": dict(answers=[0.0, 0.5], threshold=0.5, value=1.0, threshold_scale=2.0,
                                    query_scale=4.0, value_scale=9.0),
    # tradeoff
    "tradeoff.error_pairs": dict(p=[0.75, 0.25], q=[0.25, 0.75]),
    "tradeoff.optimal_tradeoff": dict(p=[0.75, 0.25], q=[0.25, 0.75]),
    "tradeoff.region_lower_boundary": dict(alpha=[0.0, 0.25, 1.0], epsilon=0.7, delta=0.01),
    "tradeoff.in_privacy_region": dict(alpha=[0.25, 0.1], beta=[0.25, 0.1], epsilon=0.7, delta=0.01, tol=1e-12),
}

# Public callables with no numeric parameter to walk, and why.
NO_NUMERIC_PARAMETER = {
    "attacks.BlockStatistic": "a record of the published table (a dataclass); its numbers are checked where "
                              "census_block_solutions and publish_block use them",
    "audit.ThresholdTest": "a frozen record of a test (a dataclass); threshold is checked by the audit functions",
    "audit.AuditResult": "a record returned by the auditor (a dataclass), not built by callers",
    "audit.OneRunResult": "a record returned by one_run_audit (a dataclass), not built by callers",
    "benchmark.BenchmarkCase": "a record of a benchmark case (a dataclass), built only by benchmark_cases and "
                               "floating_point_cases",
    "benchmark.benchmark_cases": "takes no argument",
    "benchmark.floating_point_cases": "takes no argument",
    "census.BlockQueries": "a record returned by block_queries (a dataclass), not built by callers",
    "census.BlockRelease": "a record returned by release_block (a dataclass), not built by callers",
    "census.Budget": "a record returned by budget_split (a dataclass), not built by callers",
    "census.Measurement": "a record returned by measure_block (a dataclass), not built by callers",
    "census.Study": "a record returned by reconstruction_study (a dataclass), not built by callers",
    "discrete.BitSource": "takes a string of bits, no number",
    "discrete.BitsExhausted": "an exception class",
    "flawed.ReferenceCase": "a record of a benchmark case (a named tuple), built only by dpnotes_cases",
    "flawed.dpsniper_cases": "takes no argument",
    "plotting.use_style": "takes no argument",
    "sgd.DPSGDResult": "a record returned by dp_sgd (a dataclass), not built by callers",
}

# Array parameters whose entries are arbitrary record values, not numbers to be checked.
NOT_NUMERIC = {
    ("mechanisms.replace_one_neighbours", "x"): "a data set of records of any hashable type",
    ("mechanisms.replace_one_neighbours", "domain"): "record values of any hashable type",
    ("mechanisms.sensitivity", "domain"): "record values of any type the query accepts",
    ("mechanisms.publish_each", "x"): "records of any type (they are shown or masked, never computed with)",
    ("audit.count_errors", "x"): "the data set handed to the caller's mechanism, of any type",
    ("audit.count_errors", "x_prime"): "the data set handed to the caller's mechanism, of any type",
    ("audit.audit_test", "x"): "the data set handed to the caller's mechanism, of any type",
    ("audit.audit_test", "x_prime"): "the data set handed to the caller's mechanism, of any type",
    ("audit.audit_pair", "x"): "the data set handed to the caller's mechanism, of any type",
    ("audit.audit_pair", "x_prime"): "the data set handed to the caller's mechanism, of any type",
    ("anonymity.generalizes", "value"): "a record value of any type, compared with a pattern",
    ("attacks.publish_block", "records"): "tuples of (age, sex, race, married); checked as records",
}

# Scalar parameters documented as vectorized ("float or array_like"): a list is an answer, not an error.
VECTORIZED = {
    ("loss.hockey_stick", "epsilon"), ("loss.hockey_stick_from_loss", "epsilon"), ("loss.loss_tail", "epsilon"),
    ("loss.tail_bound_from_dp", "epsilon_prime"), ("loss.rr_delta", "epsilon"), ("loss.laplace_delta", "epsilon"),
    ("loss.laplace_loss_cdf", "ell"), ("loss.laplace_loss_tail", "epsilon"), ("loss.gaussian_delta", "epsilon"),
    ("loss.gaussian_delta", "mu"), ("loss.gaussian_loss_tail", "epsilon"), ("loss.gaussian_test_power", "gamma"),
    ("composition.optimal_delta", "epsilon_prime"), ("composition.optimal_delta_heterogeneous", "epsilon_prime"),
    ("concentration.azuma_bound", "t"), ("concentration.hoeffding_bound", "tau"),
    ("mechanisms.laplace_mechanism", "value"), ("mechanisms.gaussian_mechanism", "value"),
    ("tradeoff.region_lower_boundary", "alpha"),
    ("tradeoff.in_privacy_region", "alpha"), ("tradeoff.in_privacy_region", "beta"),
    ("discrete.discrete_laplace_pmf", "x"), ("discrete.discrete_gaussian_pmf", "x"),
    ("discrete.discrete_laplace_mechanism", "value"), ("discrete.discrete_gaussian_mechanism", "value"),
    ("discrete.discrete_laplace_delta", "epsilon"), ("discrete.discrete_gaussian_delta", "epsilon"),
    ("discrete.round_to_precision", "x"), ("discrete.textbook_laplace_float", "u"),
    ("discrete.textbook_laplace_can_output", "y"), ("discrete.snapping_mechanism", "value"),
    ("subsampling.subsampled_gaussian_profile", "epsilon"), ("subsampling.subsampled_gaussian_rdp", "orders"),
    ("local.shuffled_rr_delta", "epsilon"), ("local.fmt_clone_delta", "epsilon"),
    ("audit.clopper_pearson_upper", "k"), ("audit.clopper_pearson_upper", "n"),
    ("functional.kde_difference_rkhs_norm", "x"), ("functional.kde_difference_rkhs_norm", "x_prime"),
    ("svt.is_accurate", "outputs"), ("flawed.noisy_max_value_log_density", "y"),
    ("audit.gdp_mu_from_errors", "alpha"), ("audit.gdp_mu_from_errors", "beta"),
    ("audit.gdp_mu_lower_bound", "false_positives"), ("audit.gdp_mu_lower_bound", "false_negatives"),
    ("audit.gdp_epsilon_lower_bound", "false_positives"), ("audit.gdp_epsilon_lower_bound", "false_negatives"),
    ("audit.tradeoff_epsilon_lower_bound", "delta"), ("census.composition_delta", "epsilon"),
}

# Other bad values whose acceptance is documented: (function, parameter, label) -> the documentation.
DOCUMENTED = {
    ("divergences.renyi_divergence", "alpha", "inf"): "alpha = inf gives the max divergence (docstring)",
    ("loss.hockey_stick_from_loss", "loss", "entry inf"): "loss values may be inf (docstring: 'inf allowed')",
    ("loss.loss_tail", "loss", "entry inf"): "loss values may be inf (docstring: 'inf allowed')",
    ("loss.hockey_stick_from_loss", "loss", "inf"): "loss values may be inf; a scalar broadcasts against prob",
    ("loss.loss_tail", "loss", "inf"): "loss values may be inf; a scalar broadcasts against prob",
    ("loss.hockey_stick_from_loss", "loss", "-inf"): "loss values may be -inf (an outcome only Q produces)",
    ("loss.loss_tail", "loss", "-inf"): "loss values may be -inf (an outcome only Q produces)",
    ("attacks.census_block_solutions", "decimals", "None"): "docstring: 'None means they are exact'",
    ("discrete.discrete_laplace_mechanism", "size", "list"): "docstring: 'size : int or tuple' (an output shape)",
    ("discrete.discrete_gaussian_mechanism", "size", "list"): "docstring: 'size : int or tuple' (an output shape)",
    ("discrete.discrete_laplace_mechanism", "size", "empty"): "size=() or [] is numpy's shape of a scalar draw",
    ("discrete.discrete_gaussian_mechanism", "size", "empty"): "size=() or [] is numpy's shape of a scalar draw",
    ("local.shuffled_rr_count", "x", "empty"): "no users: the counts of nothing, [0, 0] (docstring: 'shape (n,)')",
    ("census.reconstruction_study", "attack_seeds", "empty"): "docstring: 'A subset of seeds' (none attacked)",
    ("attacks.publish_block", "decimals", "None"): "docstring: 'None keeps them exact'",
    ("audit.one_run_guesses", "scores", "entry inf"): "docstring: '+-inf allowed, nan not (it has no rank)'",
    ("census.budget_split", "rho", "inf"): "docstring: 'math.inf for a release without noise'",
    ("census.measure_block", "rho", "inf"): "docstring: 'or math.inf for exact measurements'",
    ("census.release_block", "rho", "inf"): "docstring: '> 0 or math.inf (no noise)'",
    ("census.reconstruction_study", "rhos", "inf"): "docstring: 'Budgets, each > 0 or math.inf'",
    ("census.reconstruction_study", "rhos", "entry inf"): "docstring: 'Budgets, each > 0 or math.inf'",
}

# Parameters whose messages name something else on purpose: (function, parameter) -> the name used.
NAMED_AS = {
    ("functional.as_points", "x"): "grid",       # as_points names its caller's parameter, given as `name`
}
# The same for one bad value: an empty array is refused through the parameter it contradicts.
NAMED_AS_FOR = {
    ("mechanisms.gaussian_mechanism", "value", "empty"): "cov",        # 'cov must be a (0, 0) matrix'
    ("audit.one_run_guesses", "scores", "empty"): "n_positive",        # 'n_positive must be ... in [0, 0]'
}


# ----------------------------------------------------------------------------------- the walker
def public_callables():
    out = {}
    for info in pkgutil.iter_modules(dpnotes.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"dpnotes.{info.name}")
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if callable(obj):
                out[f"{info.name}.{name}"] = obj
    return out


CALLABLES = public_callables()


def _is_number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating, Fraction)) and not isinstance(x, (bool, np.bool_))


def _is_numeric_array(x) -> bool:
    if isinstance(x, np.ndarray):
        return np.issubdtype(x.dtype, np.number)
    if isinstance(x, (list, tuple)) and x:
        return all(_is_number(v) or _is_numeric_array(v) for v in x)
    return False


def _replace_first(x, value):
    """A copy of the nested list ``x`` with its first scalar entry replaced by ``value``."""
    x = x.tolist() if isinstance(x, np.ndarray) else list(x)
    x[0] = _replace_first(x[0], value) if isinstance(x[0], (list, tuple, np.ndarray)) else value
    return x


def bad_values(baseline):
    """(label, value) pairs to try for a parameter with this baseline; empty if it is not numeric."""
    common = [("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf), ("None", None), ("str", "a"),
              ("empty", [])]
    if _is_number(baseline):
        return common + [("list", [baseline]), ("bool", True)]
    if _is_numeric_array(baseline):
        return common + [("entry nan", _replace_first(baseline, math.nan)),
                         ("entry inf", _replace_first(baseline, math.inf)),
                         ("entry str", _replace_first(baseline, "a"))]
    return []


def _is_empty_array(x) -> bool:
    return isinstance(x, np.ndarray) and x.size == 0


def _materialize(kwargs):
    out = {}
    for k, v in kwargs.items():
        if isinstance(v, str) and v == RNG:
            v = np.random.default_rng(0)
        elif isinstance(v, str) and v == PYRNG:
            v = random.Random(0)
        elif isinstance(v, str) and v == "<test>":
            from dpnotes.audit import ThresholdTest

            v = ThresholdTest(lambda y: y[:, 0], 0.5, "report 1")
        out[k] = v
    return out


def call(fn, kwargs):
    """Run ``fn(**kwargs)`` (exhausting a generator) with warnings silenced and a limit of TIMEOUT
    seconds of this process's CPU time (tests/cpu_limit.py: a call that spins is stopped, one that
    waits for a core on a loaded machine is not)."""
    try:
        with cpu_seconds(TIMEOUT, fn.__name__), warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = fn(**_materialize(kwargs))
            if inspect.isgenerator(out):
                out = list(out)
            return out
    finally:
        if "plotting" in getattr(fn, "__module__", ""):
            import matplotlib.pyplot as plt

            plt.close("all")


_NUMPY_REPR = re.compile(r"\bnp\.(float|int|uint|bool|complex)\w*\(")


def _names(message: str, param: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(param)}(?![A-Za-z0-9_])", message) is not None


def outcome(name, param, label, value) -> str | None:
    """None if the function handles this bad value as promised, else what happened."""
    fn = CALLABLES[name]
    kwargs = dict(REGISTRY[name], **{param: value})
    try:
        result = call(fn, kwargs)
    except ValueError as exc:
        named = NAMED_AS_FOR.get((name, param, label), NAMED_AS.get((name, param), param))
        if not _names(str(exc), named):
            return f"ValueError not naming {named}: {exc}"
        # the bad values are plain Python ones: a numpy repr in the message is a value the function
        # computed, printed as np.float64(11.0) instead of 11.0 (found in three messages so far)
        if _NUMPY_REPR.search(str(exc)):
            return f"ValueError printing numpy's repr of a number: {exc}"
        return None
    except CPUTimeExceeded:
        return f"no answer within {TIMEOUT} CPU s"
    except Exception as exc:  # noqa: BLE001 - any other exception is the finding
        return f"{type(exc).__name__}: {str(exc)[:120]}"
    default = inspect.signature(fn).parameters[param].default
    if label == "None" and default is None:
        return None
    if label == "list" and (name, param) in VECTORIZED:
        return None
    # an empty array where arrays are taken: one answer per entry, none (numpy's vectorization);
    # a scalar parameter that takes no list must refuse it by name, as above
    if label == "empty" and _is_empty_array(result) and (_is_numeric_array(REGISTRY[name][param])
                                                         or (name, param) in VECTORIZED):
        return None
    if (name, param, label) in DOCUMENTED:
        return None
    text = repr(result)
    return f"accepted, returned {text[:80]}"


def numeric_parameters(name):
    return [(p, v) for p, v in REGISTRY[name].items() if (name, p) not in NOT_NUMERIC and bad_values(v)]


def failures(name) -> dict[tuple[str, str], str]:
    found = {}
    for param, baseline in numeric_parameters(name):
        for label, value in bad_values(baseline):
            what = outcome(name, param, label, value)
            if what is not None:
                found[(param, label)] = what
    return found


# ----------------------------------------------------------------------------------- the tests
def test_every_public_callable_is_registered():
    missing = sorted(set(CALLABLES) - set(REGISTRY) - set(NO_NUMERIC_PARAMETER))
    assert not missing, f"public callables with no baseline in REGISTRY nor a reason in NO_NUMERIC_PARAMETER: {missing}"
    stale = sorted((set(REGISTRY) | set(NO_NUMERIC_PARAMETER)) - set(CALLABLES))
    assert not stale, f"registered names that are not public callables (any more): {stale}"
    both = sorted(set(REGISTRY) & set(NO_NUMERIC_PARAMETER))
    assert not both, f"registered twice: {both}"


def test_registry_tables_name_real_parameters():
    for name, kwargs in REGISTRY.items():
        params = inspect.signature(CALLABLES[name]).parameters
        assert set(kwargs) <= set(params), f"{name}: {set(kwargs) - set(params)} are not parameters"
    assert set(NAN_BY_DESIGN) <= set(REGISTRY)
    for name, param in set(HUGE_BY_DESIGN) | set(HUGE_NAMED_AS):
        assert name in REGISTRY and param in REGISTRY[name], (name, param)
    for table in (NOT_NUMERIC, VECTORIZED, NAMED_AS, {k[:2] for k in DOCUMENTED}, {k[:2] for k in NAMED_AS_FOR}):
        for name, param in table:
            assert name in REGISTRY and param in REGISTRY[name], (name, param)


def test_no_numeric_parameter_is_true():
    """A callable excused as taking no numeric parameter really has none with a numeric default."""
    for name in NO_NUMERIC_PARAMETER:
        obj = CALLABLES[name]
        try:
            params = inspect.signature(obj).parameters.values()
        except (TypeError, ValueError):
            continue
        if name in ("flawed.dpsniper_cases", "plotting.use_style"):
            assert not params, name


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_baseline_is_a_valid_call(name):
    call(CALLABLES[name], REGISTRY[name])


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_bad_input(name):
    found = failures(name)
    assert not found, f"{name}: bad input not refused with a ValueError naming the parameter:\n" + "\n".join(
        f"  {p} = <{label}>: {v}" for (p, label), v in sorted(found.items()))


def _same(a, b) -> bool:
    """The same answer: equal values and dtypes, field by field (objects without a value, such as a
    frozen scipy distribution or a score function, only by type)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (float, np.floating)):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (int, str, bool, np.integer, np.bool_, Fraction)) or a is None:
        return a == b
    return True


def other_spellings(baseline):
    """The same number spelled otherwise: a numpy scalar (float32 too, where it is the same number), and a whole
    float for an int."""
    if isinstance(baseline, bool) or not _is_number(baseline):
        return []
    if isinstance(baseline, int):
        return [("numpy int64", np.int64(baseline)), ("whole float", float(baseline))]
    if isinstance(baseline, float):
        # float32 where it holds the same number: an answer computed in float32 (local.hr_parameters' p, 2.6e-8
        # off) or refused by Fraction() (discrete's exact samplers: a bare TypeError) was found this way
        same32 = [("numpy float32", np.float32(baseline))] if float(np.float32(baseline)) == baseline else []
        return [("numpy float64", np.float64(baseline))] + same32
    return []


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_number_spelled_otherwise_gives_the_same_answer(name):
    """np.int64(3), 3.0 and 3 are one number: each gives the baseline's answer, dtype included (or,
    for the whole float, a refusal naming the parameter). Found: local's k-ary randomized response
    returned float categories for k = 3.0, and Hadamard response's estimate raised TypeError."""
    fn = CALLABLES[name]
    expected = call(fn, REGISTRY[name])
    found = {}
    for param, baseline in numeric_parameters(name):
        for label, value in other_spellings(baseline):
            try:
                got = call(fn, dict(REGISTRY[name], **{param: value}))
            except ValueError as exc:
                if label != "whole float" or not _names(str(exc), param):
                    found[(param, label)] = f"ValueError: {exc}"
                continue
            except Exception as exc:  # noqa: BLE001 - the finding
                found[(param, label)] = f"{type(exc).__name__}: {exc}"
                continue
            if not _same(got, expected):
                found[(param, label)] = f"returned {got!r:.80} instead of {expected!r:.80}"
    assert not found, f"{name}:\n" + "\n".join(f"  {p} as {label}: {v}" for (p, label), v in sorted(found.items()))


EXTREMES = [("1e300", 1e300), ("-1e300", -1e300), ("1e-300", 1e-300), ("-1e-300", -1e-300),
            ("5e-324", 5e-324), ("-5e-324", -5e-324)]
EXTREME_TIMEOUT = 10           # seconds per call
# Functions whose answer holds nan by design, with the docstring that says so (nan is not checked there).
NAN_BY_DESIGN = {
    "svt.numeric_sparse": "docstring: 'the released value for a top, nan for a bottom'",
}


def _has_nan(x, depth=0) -> bool:
    if depth > 4:
        return False
    if isinstance(x, (float, np.floating)):
        return math.isnan(x)
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fc" and bool(np.isnan(x).any())
    if isinstance(x, (tuple, list)):
        return any(_has_nan(v, depth + 1) for v in x)
    if isinstance(x, dict):
        return any(_has_nan(v, depth + 1) for v in x.values())
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return any(_has_nan(getattr(x, f.name), depth + 1) for f in dataclasses.fields(x))
    return False


def extreme_outcome(name, param, value, options=None) -> str | None:
    """None if ``value`` (a float of extreme magnitude) gets an answer without nan, or a ValueError
    naming the parameter; else what happened. ``options`` overrides other arguments of the baseline."""
    global TIMEOUT
    saved, TIMEOUT = TIMEOUT, EXTREME_TIMEOUT
    try:
        result = call(CALLABLES[name], dict(REGISTRY[name], **(options or {}), **{param: value}))
    except ValueError as exc:
        named = NAMED_AS.get((name, param), param)
        return None if _names(str(exc), named) else f"ValueError not naming {named}: {str(exc)[:150]}"
    except CPUTimeExceeded:
        return f"no answer within {EXTREME_TIMEOUT} CPU s"
    except Exception as exc:  # noqa: BLE001 - the finding
        return f"{type(exc).__name__}: {str(exc)[:150]}"
    finally:
        TIMEOUT = saved
    return f"nan in the answer {result!r:.100}" if _has_nan(result) and name not in NAN_BY_DESIGN else None


_OPTIONS = re.compile(r"^\s*(\w+)\s*:\s*\{([^}]*)\}", re.M)


def enumerated_options(name) -> dict[str, list[str]]:
    """The string options a function's docstring enumerates (``method : {"classical", "analytic"}``)."""
    doc = inspect.getdoc(CALLABLES[name]) or ""
    found = {}
    for param, spec in _OPTIONS.findall(doc):
        values = [a or b for a, b in re.findall(r'"([^"]*)"|\'([^\']*)\'', spec)]
        if values and param in inspect.signature(CALLABLES[name]).parameters:
            found[param] = values
    return found


def option_variants(name) -> list[tuple[str, dict]]:
    """The baseline call, then the baseline with each other enumerated option value, one option at a
    time: a method the baseline does not take is walked too."""
    variants = [("baseline", {})]
    for param, values in enumerated_options(name).items():
        default = REGISTRY[name].get(param, inspect.signature(CALLABLES[name]).parameters[param].default)
        variants += [(f"{param}={v!r}", {param: v}) for v in values if v != default]
    return variants


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_extreme_magnitudes(name):
    """Every float parameter at +-1e300, +-1e-300 and +-5e-324 (the smallest subnormal): an answer
    with no nan (the right one: inf or 0 where that is the limit), or a ValueError that names the
    parameter (and its docstring states the range), within EXTREME_TIMEOUT. Not an OverflowError,
    a ZeroDivisionError, scipy's complaint about a bracket or an error naming an inner variable.
    Repeated with every option value the docstring enumerates (``method``, ``relation``,
    ``noise``, ...), one at a time."""
    found = {}
    for variant, options in option_variants(name):
        for param, baseline in numeric_parameters(name):
            if not isinstance(baseline, float):
                continue
            for label, value in EXTREMES:
                what = extreme_outcome(name, param, value, options)
                if what is not None:
                    found[(variant, param, label)] = what
    assert not found, f"{name}:\n" + "\n".join(f"  {o}, {p} = {label}: {v}"
                                                for (o, p, label), v in sorted(found.items()))


HUGE = [("2**62", 2**62), ("2**31", 2**31), ("-2**62", -2**62)]
# Integer parameters whose refusal of a huge value states a relation to another argument instead
# of a range of their own, by design, with the reason (the message must still name the parameter).
HUGE_BY_DESIGN: dict[tuple[str, str], str] = {
    ("census.round_histogram", "total"): "total must equal the sum of x ('x must sum to total = ...')",
    ("functional.as_points", "d"): "d is the dimension the caller expects of the points: a huge one is refused as "
                                   "'grid must have points of dimension 2147483648, got shape (2,)'",
}
# ... and the parameter such a refusal names instead (as_points names its caller's points, `name`).
HUGE_NAMED_AS = {("functional.as_points", "d"): "grid"}
# The walk runs under an address-space limit this far above the process's own size: a function that
# builds an array of 2**31 floats (16 GiB) then fails with MemoryError at once (the finding) instead
# of taking the machine's memory. No fix needs more: every cap below keeps an array under 1 GiB.
HUGE_MEMORY_HEADROOM = 3 * 2**30     # bytes
# A refusal states the range it enforces: check_integer's "an integer in [1, 100000000]" or ">= 0",
# check_in_range's "must be <= 1e+06", or a comparison spelled out.
_RANGE = re.compile(r"(>=|<=|>|<|\bin [\[(]|\bat (most|least)\b|\bbetween\b|\b(non-negative|positive)\b)")
_ARRAY_TOO_BIG = re.compile(r"array is too big|Maximum allowed size exceeded|Unable to allocate", re.I)


@contextlib.contextmanager
def address_space_limit(headroom: int):
    """Lower the soft RLIMIT_AS to the process's present size plus ``headroom`` bytes, restoring it
    after (a no-op where ``resource`` or /proc is missing)."""
    try:
        import resource

        with open("/proc/self/status") as status:
            size = int(re.search(r"VmSize:\s*(\d+) kB", status.read()).group(1)) * 1024
        old = resource.getrlimit(resource.RLIMIT_AS)
        hard = old[1]
        new = size + headroom if hard == resource.RLIM_INFINITY else min(size + headroom, hard)
        resource.setrlimit(resource.RLIMIT_AS, (new, hard))
    except (ImportError, OSError, AttributeError, ValueError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, old)


def int_parameters(name):
    """The numeric parameters whose baseline is a Python int (not a bool)."""
    return [(p, v) for p, v in numeric_parameters(name) if type(v) is int]


def huge_outcome(name, param, value) -> str | None:
    """None if ``value`` (a huge integer) gets an answer without nan, or a ValueError naming the
    parameter and stating its range, within EXTREME_TIMEOUT; else what happened."""
    global TIMEOUT
    saved, TIMEOUT = TIMEOUT, EXTREME_TIMEOUT
    try:
        result = call(CALLABLES[name], dict(REGISTRY[name], **{param: value}))
    except ValueError as exc:
        named = HUGE_NAMED_AS.get((name, param), NAMED_AS.get((name, param), param))
        if _ARRAY_TOO_BIG.search(str(exc)):
            return f"ValueError from numpy's allocation: {str(exc)[:150]}"
        if not (_names(str(exc), named) or _names(str(exc), param)):
            return f"ValueError not naming {named}: {str(exc)[:150]}"
        if not _RANGE.search(str(exc)) and (name, param) not in HUGE_BY_DESIGN:
            return f"ValueError stating no range: {str(exc)[:150]}"
        return None
    except CPUTimeExceeded:
        return f"no answer within {EXTREME_TIMEOUT} s"
    except Exception as exc:  # noqa: BLE001 - the finding (MemoryError, OverflowError, TypeError, ...)
        return f"{type(exc).__name__}: {str(exc)[:150]}"
    finally:
        TIMEOUT = saved
    return f"nan in the answer {result!r:.100}" if _has_nan(result) and name not in NAN_BY_DESIGN else None


def huge_failures(name) -> dict[tuple[str, str], str]:
    found = {}
    with address_space_limit(HUGE_MEMORY_HEADROOM):
        for param, _ in int_parameters(name):
            for label, value in HUGE:
                what = huge_outcome(name, param, value)
                if what is not None:
                    found[(param, label)] = what
    return found


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_huge_integers(name):
    """Every parameter whose baseline is a Python int (a size, a count, a number of steps or
    queries, n, k, ...) at 2**62, 2**31 and -2**62, one at a time: an answer with no nan, or a
    ValueError that names the parameter and states its range (a function that builds an array of
    n entries or loops n times caps n, and says so in its docstring), within EXTREME_TIMEOUT. Not
    a MemoryError, numpy's "array is too big", an OverflowError, a TypeError, a timeout or an
    error naming an inner variable. The walk runs under an address-space limit
    (HUGE_MEMORY_HEADROOM), so a 16 GiB array fails at once rather than filling the machine."""
    found = huge_failures(name)
    assert not found, f"{name}:\n" + "\n".join(f"  {p} = {label}: {v}" for (p, label), v in sorted(found.items()))


def test_enumerated_options_are_read_from_the_docstrings():
    assert enumerated_options("mechanisms.gaussian_sigma") == {"method": ["classical", "hrw", "analytic"]}
    assert enumerated_options("flawed.noisy_max") == {"noise": ["laplace", "exponential"], "release": ["index", "value"]}
    assert set(enumerated_options("subsampling.subsampled_gaussian_profile")) == {"direction", "relation"}


def test_a_call_that_spins_is_stopped_and_one_that_waits_is_not():
    """The time limit counts CPU seconds: an endless loop is stopped; a call that only waits (for a
    core, on a loaded machine; here a sleep) runs on."""
    import time

    global TIMEOUT
    saved, TIMEOUT = TIMEOUT, 0.2
    try:
        with pytest.raises(CPUTimeExceeded):
            call(lambda: [0 for _ in iter(int, 1)], {})
        assert call(lambda: time.sleep(0.4) or "done", {}) == "done"
    finally:
        TIMEOUT = saved


def test_the_walker_can_fail():
    """A function that lets nan through, or names the wrong parameter, is caught."""
    def sloppy(epsilon, delta):
        return float(epsilon) + float(delta)

    def misnamed(epsilon):
        if not epsilon > 0:
            raise ValueError("eps must be > 0")
        return epsilon

    def numpy_repr(epsilon):
        arr = np.asarray(epsilon, dtype=float) if not isinstance(epsilon, str) else np.array([np.nan])
        if not np.all(arr > 0):
            raise ValueError(f"epsilon must be > 0, got {np.min(arr)!r}")
        return epsilon

    def largest(values):          # checks its entries, but not that there is one
        arr = np.asarray(values, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise ValueError("values must be finite")
        return arr[np.argmax(arr)]

    def uncapped(n):              # checks n is a positive integer, but builds n floats of any n
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be an integer >= 1, got {n!r}")
        return float(np.zeros(n).sum())

    CALLABLES["_test.uncapped"], REGISTRY["_test.uncapped"] = uncapped, dict(n=3)
    CALLABLES["_test.sloppy"], REGISTRY["_test.sloppy"] = sloppy, dict(epsilon=1.0, delta=0.5)
    CALLABLES["_test.largest"], REGISTRY["_test.largest"] = largest, dict(values=[1.0, 2.0])
    CALLABLES["_test.misnamed"], REGISTRY["_test.misnamed"] = misnamed, dict(epsilon=1.0)
    CALLABLES["_test.numpy_repr"], REGISTRY["_test.numpy_repr"] = numpy_repr, dict(epsilon=1.0)
    try:
        found = failures("_test.sloppy")
        assert found[("epsilon", "nan")].startswith("accepted")
        assert found[("delta", "str")].startswith("ValueError not naming delta")
        assert found[("epsilon", "None")].startswith("TypeError")
        assert failures("_test.misnamed")[("epsilon", "nan")].startswith("ValueError not naming epsilon")
        assert failures("_test.numpy_repr")[("epsilon", "nan")].startswith("ValueError printing numpy's repr")
        assert failures("_test.largest")[("values", "empty")] == (
            "ValueError not naming values: attempt to get argmax of an empty sequence")
        assert ("epsilon", "empty") in failures("_test.misnamed")      # a scalar must refuse [] too
        huge = huge_failures("_test.uncapped")        # 2**31 floats pass the address-space limit
        assert huge[("n", "2**31")].startswith(("MemoryError", "ValueError from numpy's allocation")), huge
        assert huge[("n", "2**62")].startswith(("MemoryError", "ValueError from numpy's allocation")), huge
        assert ("n", "-2**62") not in huge                # refused by name, with its range
    finally:
        for key in ("_test.sloppy", "_test.misnamed", "_test.numpy_repr", "_test.largest", "_test.uncapped"):
            CALLABLES.pop(key)
            REGISTRY.pop(key)
