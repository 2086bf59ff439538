"""Timings of dpnotes.svt: the exact output laws, the privacy search and the samplers.

Run from the book root: ``.venv/bin/python benchmarks/bench_svt.py``. Prints one
``name<TAB>seconds`` line per measurement (best of three runs).
"""

from __future__ import annotations

import timeit

import numpy as np

from dpnotes import svt


def main():
    answers4 = np.array([1.0, -2.0, 0.5, 3.0])
    family = (np.append(np.full(12, 12.0), -10.0), np.append(np.full(12, 13.0), -11.0))
    family_c2 = (np.append(np.full(6, 24.0), [-20.0, -20.0]), np.append(np.full(6, 25.0), [-21.0, -21.0]))
    stream200 = np.full(200, -50.0)
    stream200[[17, 90, 151]] = 50.0
    cases = {
        "output_log_probabilities_k4": lambda: svt.output_log_probabilities(answers4, 0.0, 1.0),
        "max_log_ratio_family_m12": lambda: svt.max_log_ratio(*family, 0.0, 1.0),
        "search_worst_case_k2": lambda: svt.search_worst_case(2, 1.0, rng=np.random.default_rng(2),
                                                              n_starts=2, maxfev=120),
        "accuracy_failure_probability_k1000": lambda: svt.accuracy_failure_probability(1000, 1.0, 40.0),
        "sample_outputs_k4_n200000": lambda: svt.sample_outputs(answers4, 0.0, 1.0, 200_000,
                                                               rng=np.random.default_rng(0)),
        "simulate_accuracy_failure_k100_n10000": lambda: svt.simulate_accuracy_failure(
            100, 1.0, 30.0, 10_000, rng=np.random.default_rng(0)),
        "above_threshold_loop_k3_n20000": lambda: [svt.above_threshold([0.0, 2.0, -1.0], 1.0, 1.0,
                                                                       rng=np.random.default_rng(i))
                                                   for i in range(20_000)],
        "sample_sparse_k200_c3_n4000": lambda: svt.sample_sparse(stream200, 0.0, 1.0, 3, 4000,
                                                                 rng=np.random.default_rng(0)),
        "sparse_output_log_probabilities_k4_c2": lambda: svt.sparse_output_log_probabilities(answers4, 0.0, 0.5, 2),
        "sparse_max_log_ratio_family_k8_c2_one_threshold": lambda: svt.sparse_max_log_ratio(
            *family_c2, 0.0, 0.5, 2, threshold_scale=6.3, query_scale=6.4, refresh=False),
        "numeric_sparse_loop_k200_c3_n1000": lambda: [svt.numeric_sparse(stream200, 0.0, 1.0, 3,
                                                                          rng=np.random.default_rng(i))
                                                      for i in range(1000)],
    }
    for name, fn in cases.items():
        print(f"{name}\t{min(timeit.repeat(fn, number=1, repeat=3)):.4f}", flush=True)


if __name__ == "__main__":
    main()
