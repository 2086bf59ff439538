"""Timing of the Gaussian calibrations in dpnotes.mechanisms.

Prints one ``name<TAB>seconds_per_call`` line per measurement (best of several
repeats of many calls, the least noisy estimate of the cost of one call).
The issue's target: ``gaussian_sigma(1.0, 1e-6, method="analytic")`` in at most
0.3 ms per call.

Run from the book root:  .venv/bin/python benchmarks/bench_mechanisms.py
"""

from __future__ import annotations

import timeit

import numpy as np

from dpnotes import loss, mechanisms

_MU_1000 = np.logspace(-6, 1, 1000)
_EPS_1000 = np.linspace(0.0, 5.0, 1000)

CASES = [
    ("gaussian_sigma_analytic_eps1_delta1e-6", lambda: mechanisms.gaussian_sigma(1.0, 1e-6, method="analytic")),
    ("gaussian_sigma_analytic_eps0.01_delta1e-12", lambda: mechanisms.gaussian_sigma(0.01, 1e-12, method="analytic")),
    ("gaussian_sigma_analytic_eps10_delta1e-2", lambda: mechanisms.gaussian_sigma(10.0, 1e-2, method="analytic")),
    ("gaussian_sigma_classical_eps1_delta1e-6", lambda: mechanisms.gaussian_sigma(1.0, 1e-6, method="classical")),
    ("gaussian_delta_scalar", lambda: loss.gaussian_delta(1.0, 0.5)),
    # the cancellation-free integral branch (Phi(a) / delta > 1e6) and a mixed vector of 1000 points
    ("gaussian_delta_scalar_cancelling", lambda: loss.gaussian_delta(2e-5, 1e-6)),
    ("gaussian_delta_vector_1000_mixed", lambda: loss.gaussian_delta(_EPS_1000, _MU_1000)),
    ("gaussian_sigma_analytic_eps1e-4_delta1e-6", lambda: mechanisms.gaussian_sigma(1e-4, 1e-6, method="analytic")),
]


def seconds_per_call(func, number: int = 200, repeat: int = 5) -> float:
    func()  # warm up (imports of scipy submodules happen on first call)
    return min(timeit.repeat(func, number=number, repeat=repeat)) / number


def main() -> None:
    for name, func in CASES:
        print(f"{name}\t{seconds_per_call(func):.3e}")


if __name__ == "__main__":
    main()
