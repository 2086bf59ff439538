"""Timing of the Gaussian calibrations in dpnotes.mechanisms.

Prints one ``name<TAB>seconds_per_call`` line per measurement (best of several
repeats of many calls, the least noisy estimate of the cost of one call).
The issue's target: ``gaussian_sigma(1.0, 1e-6, method="analytic")`` in at most
0.3 ms per call.

Run from the book root:  .venv/bin/python benchmarks/bench_mechanisms.py
"""

from __future__ import annotations

import timeit

from dpnotes import loss, mechanisms

CASES = [
    ("gaussian_sigma_analytic_eps1_delta1e-6", lambda: mechanisms.gaussian_sigma(1.0, 1e-6, method="analytic")),
    ("gaussian_sigma_analytic_eps0.01_delta1e-12", lambda: mechanisms.gaussian_sigma(0.01, 1e-12, method="analytic")),
    ("gaussian_sigma_analytic_eps10_delta1e-2", lambda: mechanisms.gaussian_sigma(10.0, 1e-2, method="analytic")),
    ("gaussian_sigma_classical_eps1_delta1e-6", lambda: mechanisms.gaussian_sigma(1.0, 1e-6, method="classical")),
    ("gaussian_delta_scalar", lambda: loss.gaussian_delta(1.0, 0.5)),
]


def seconds_per_call(func, number: int = 2000, repeat: int = 7) -> float:
    func()  # warm up (imports of scipy submodules happen on first call)
    return min(timeit.repeat(func, number=number, repeat=repeat)) / number


def main() -> None:
    for name, func in CASES:
        print(f"{name}\t{seconds_per_call(func):.3e}")


if __name__ == "__main__":
    main()
