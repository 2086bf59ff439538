"""Timings of dpnotes.attacks: the LP (Dinur–Nissim) attack and the census block solve.

Run from the book root: ``.venv/bin/python benchmarks/bench_attacks.py``. Prints one
``name<TAB>seconds`` line per measurement: the best of ``repeat`` runs, timed with :mod:`timeit`.
"""

from __future__ import annotations

import timeit

import numpy as np

from dpnotes import attacks


def lp_case(n, alpha=0.1, seed=0):
    """An LP attack on ``n`` bits with ``2n`` random queries and uniform noise ``alpha * sqrt(n)``."""
    rng = np.random.default_rng(seed)
    d = rng.integers(0, 2, n)
    Q = attacks.random_subset_queries(2 * n, n, rng=rng)
    a = attacks.bounded_noise_answers(d, Q, alpha * np.sqrt(n), rng=rng)
    return lambda: attacks.lp_attack(Q, a)


def main(repeat=3):
    cases = {
        "lp_attack_n500_m1000": lp_case(500),
        "lp_attack_n1000_m2000": lp_case(1000),
        "census_block_solutions_table1": lambda: attacks.census_block_solutions(),
        "exponential_attack_n12": (lambda Q: lambda: attacks.exponential_attack(Q, Q @ (np.arange(12) % 2), 1.0))(
            attacks.all_subset_queries(12)
        ),
    }
    for name, fn in cases.items():
        best = min(timeit.repeat(fn, number=1, repeat=repeat))
        print(f"{name}\t{best:.3f}", flush=True)


if __name__ == "__main__":
    main()
