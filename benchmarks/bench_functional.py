"""Time the heavy parts of dpnotes.functional.

Prints one ``name<TAB>seconds`` line per measurement (best of a few repeats):
GP sampling on a 500-point grid, and private_kde on 10**4 points with a 512-point grid.
Run: ``.venv/bin/python benchmarks/bench_functional.py``.
"""

from __future__ import annotations

import time

import numpy as np

from dpnotes import functional as fn


def best_of(func, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    grid500 = np.linspace(0.0, 1.0, 500)
    data = rng.standard_normal(10**4)
    grid512 = np.linspace(-4.0, 4.0, 512)
    cases = {
        "sample_gp_500pts_1path": lambda: fn.sample_gp(grid500, 0.1, rng, size=1),
        "sample_gp_500pts_1000paths": lambda: fn.sample_gp(grid500, 0.1, rng, size=1000),
        "kde_1e4pts_512grid": lambda: fn.kde(data, grid512, 0.2),
        "private_kde_1e4pts_512grid": lambda: fn.private_kde(data, grid512, 1.0, 1e-5, 0.2, rng),
    }
    for name, func in cases.items():
        print(f"{name}\t{best_of(func):.4f}")


if __name__ == "__main__":
    main()
