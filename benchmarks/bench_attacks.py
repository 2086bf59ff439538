"""Timings of dpnotes.attacks: the LP (Dinur–Nissim) attack and the census block solve.

Run from the book root: ``.venv/bin/python benchmarks/bench_attacks.py``. Prints one
``name<TAB>seconds`` line per measurement: the best of ``repeat`` runs, timed with :mod:`timeit`.
"""

from __future__ import annotations

import timeit

import numpy as np

from dpnotes import attacks


def lp_case(n, alpha=0.1, seed=0, bounded=False):
    """An LP attack on ``n`` bits with ``2n`` random queries and uniform noise ``alpha * sqrt(n)``.

    ``bounded=True`` solves the theorem's program (the noise bound is given), otherwise LP decoding.
    """
    rng = np.random.default_rng(seed)
    d = rng.integers(0, 2, n)
    Q = attacks.random_subset_queries(2 * n, n, rng=rng)
    E = alpha * np.sqrt(n)
    a = attacks.bounded_noise_answers(d, Q, E, rng=rng)
    return lambda: attacks.lp_attack(Q, a, bound=E if bounded else None)


def exponential_case(n, E, kind):
    """The exponential attack on ``n`` bits (all ``2^n`` queries) with noise ``E`` of the given kind."""
    Q = attacks.all_subset_queries(n)
    a = attacks.bounded_noise_answers(np.arange(n) % 2, Q, E, kind=kind, rng=np.random.default_rng(0))
    return lambda: attacks.exponential_attack(Q, a, E)


def main(repeat=3):
    cases = {
        "lp_attack_n200_m400": lp_case(200),
        "lp_attack_bounded_n200_m400": lp_case(200, bounded=True),
        "lp_attack_n500_m1000": lp_case(500),
        "census_block_solutions_table1": lambda: attacks.census_block_solutions(),
        "census_block_solutions_minors_can_marry": lambda: attacks.census_block_solutions(minors_can_marry=True),
        "exponential_attack_n12_uniform_E3": exponential_case(12, 3, "uniform"),
        "exponential_attack_n12_decoy_E3": exponential_case(12, 3, "decoy"),
    }
    for name, fn in cases.items():
        best = min(timeit.repeat(fn, number=1, repeat=repeat))
        print(f"{name}\t{best:.3f}", flush=True)


if __name__ == "__main__":
    main()
