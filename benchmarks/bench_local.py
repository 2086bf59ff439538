"""Timings of dpnotes.local: the vectorized randomizers and the exact shuffle-model profile.

Run from the book root: ``.venv/bin/python benchmarks/bench_local.py``. Prints one
``name<TAB>seconds[<TAB>note]`` line per measurement (best of three runs). The exact profile
caches its table of laws per ``(epsilon0, n)``: "cold" timings clear the cache first.
"""

from __future__ import annotations

import timeit

import numpy as np

from dpnotes import local


def cold():
    local._shuffled_rr_table.cache_clear()
    local._clone_table.cache_clear()


def main():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 21, 21_638)                      # the size of the book's survey
    cases = [
        ("krr_randomize_k21_n21638", lambda: local.krr_randomize(x, 1.0, 21, rng), None, ""),
        ("oue_randomize_k21_n21638", lambda: local.oue_randomize(x, 1.0, 21, rng), None, ""),
        ("krr_estimate_k21_n2000_x20runs", lambda: local.krr_estimate(
            local.krr_randomize(x[:2000], 1.0, 21, rng, size=20), 1.0, 21), None, ""),
        ("shuffled_rr_delta_n1000_cold", lambda: local.shuffled_rr_delta(1.0, 1000, 0.2), cold,
         "goal <= 1 s (table of laws built once per (epsilon0, n))"),
        ("shuffled_rr_delta_n1000_cached", lambda: local.shuffled_rr_delta(1.0, 1000, 0.2), None, "one epsilon"),
        ("shuffled_rr_epsilon_n1000_cold", lambda: local.shuffled_rr_epsilon(1.0, 1000, 1e-6), cold, "delta = 1e-6"),
        ("shuffled_rr_delta_n2000_cold", lambda: local.shuffled_rr_delta(1.0, 2000, 0.2), cold, "O(n^3)"),
        ("fmt_clone_epsilon_n1000_cold", lambda: local.fmt_clone_epsilon(1.0, 1000, 1e-6), cold, "delta = 1e-6"),
    ]
    for name, fn, setup, note in cases:
        line = f"{name}\t{min(timeit.repeat(fn, setup=setup or 'pass', number=1, repeat=3)):.4f}"
        print(line + (f"\t{note}" if note else ""), flush=True)


if __name__ == "__main__":
    main()
