"""Time the heavy parts of dpnotes.functional.

Prints one ``name<TAB>seconds`` line per measurement (best of a few repeats):
GP sampling on a 500-point grid, private_kde on 10**4 points with a 512-point grid, conditioning
the GP on 200 grid values, kernel logistic regression on 272 points, and the LSCV score.
Run: ``.venv/bin/python benchmarks/bench_functional.py``.
"""

from __future__ import annotations

import timeit

import numpy as np

from dpnotes import functional as fn


def main() -> None:
    rng = np.random.default_rng(0)
    grid500 = np.linspace(0.0, 1.0, 500)
    data = rng.standard_normal(10**4)
    grid512 = np.linspace(-4.0, 4.0, 512)
    grid200 = np.linspace(0.0, 1.0, 200)
    vals200 = fn.sample_gp(grid200, 0.1, rng)[0]
    new50 = rng.uniform(0.0, 1.0, 50)
    x272 = rng.uniform(1.5, 5.5, 272)
    y272 = np.where(x272 + rng.normal(size=272) > 3.5, 1.0, -1.0)
    cases = {
        "sample_gp_500pts_1path": lambda: fn.sample_gp(grid500, 0.1, rng, size=1),
        "sample_gp_500pts_1000paths": lambda: fn.sample_gp(grid500, 0.1, rng, size=1000),
        "kde_1e4pts_512grid": lambda: fn.kde(data, grid512, 0.2),
        "private_kde_1e4pts_512grid": lambda: fn.private_kde(data, grid512, 1.0, 1e-5, 0.2, rng),
        "gp_extend_200grid_50new": lambda: fn.gp_extend(grid200, vals200, new50, 0.1, rng),
        "kernel_logistic_regression_272pts": lambda: fn.kernel_logistic_regression(x272, y272, 0.5, 0.03),
        "lscv_1000pts": lambda: fn.lscv(data[:1000], 0.3),
    }
    for name, func in cases.items():
        print(f"{name}\t{min(timeit.repeat(func, number=1, repeat=5)):.4f}")


if __name__ == "__main__":
    main()
