"""Timings of dpnotes.selection: exact laws, quadrature laws and the vectorized samplers.

Run from the book root: ``.venv/bin/python benchmarks/bench_selection.py``. Prints one
``name<TAB>seconds`` line per measurement (best of three runs).
"""

from __future__ import annotations

import timeit

import numpy as np

from dpnotes import selection


def main():
    u81 = -np.abs(np.arange(81.0) - 46.0)             # a median-like utility over 81 candidates
    u5 = np.array([0.0, 1.0, 2.5, 2.0, -3.0])
    rng = np.random.default_rng(0)
    cases = {
        "exponential_mechanism_probabilities_m81": lambda: selection.exponential_mechanism_probabilities(u81, 1.0),
        "permute_and_flip_probabilities_m81": lambda: selection.permute_and_flip_probabilities(u81, 1.0),
        "permute_and_flip_probabilities_m1000": lambda: selection.permute_and_flip_probabilities(
            np.linspace(0.0, 50.0, 1000), 1.0),
        "report_noisy_max_probabilities_laplace_m5": lambda: selection.report_noisy_max_probabilities(u5, 1.0),
        "report_noisy_max_probabilities_gumbel_m5": lambda: selection.report_noisy_max_probabilities(
            u5, 1.0, noise="gumbel"),
        "report_noisy_max_probabilities_exponential_m5": lambda: selection.report_noisy_max_probabilities(
            u5, 1.0, noise="exponential"),
        "exponential_mechanism_m81_n100000": lambda: selection.exponential_mechanism(u81, 1.0, rng=rng, size=100_000),
        "report_noisy_max_laplace_m81_n100000": lambda: selection.report_noisy_max(u81, 1.0, rng=rng, size=100_000),
        "permute_and_flip_m81_n100000": lambda: selection.permute_and_flip(u81, 1.0, rng=rng, size=100_000),
    }
    for name, fn in cases.items():
        print(f"{name}\t{min(timeit.repeat(fn, number=1, repeat=3)):.4f}", flush=True)


if __name__ == "__main__":
    main()
