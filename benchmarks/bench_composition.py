"""Timing of dpnotes.composition (one ``name<TAB>seconds_per_call[<TAB>note]`` line per measurement).

Run from the book root:  .venv/bin/python benchmarks/bench_composition.py
The figure reported is the best of several repeats of a timeit loop (the least
disturbed run), divided by the number of calls in the loop.
"""

import timeit

from dpnotes.composition import optimal, optimal_delta, optimal_delta_heterogeneous

CASES = [
    ("optimal(0.1, 10_000, 1e-6)", lambda: optimal(0.1, 10_000, 1e-6)),
    ("optimal(0.001, 100_000, 1e-6)", lambda: optimal(0.001, 100_000, 1e-6)),
    ("optimal(5, 100_000, 1e-6)", lambda: optimal(5.0, 100_000, 1e-6)),
    ("optimal_delta(0.1, 10_000, 100.0)", lambda: optimal_delta(0.1, 10_000, 100.0)),
    ("optimal(0.1, 1000, 1e-6, step_delta=1e-9)", lambda: optimal(0.1, 1000, 1e-6, step_delta=1e-9)),
]

# exact enumeration over 2^k subsets (the heterogeneous problem is #P-complete): fewer loops
SLOW_CASES = [
    (f"optimal_delta_heterogeneous(k={k}, one eps')", lambda k=k: optimal_delta_heterogeneous(
        [0.01 * (i + 1) for i in range(k)], 0.5), "2^k subsets")
    for k in (10, 16, 20)
]


def main(number: int = 200, repeat: int = 7) -> None:
    for name, fn in CASES:
        fn()  # warm-up
        best = min(timeit.repeat(fn, number=number, repeat=repeat)) / number
        print(f"{name}\t{best:.3e}")
    for name, fn, note in SLOW_CASES:
        fn()
        best = min(timeit.repeat(fn, number=3, repeat=3)) / 3
        print(f"{name}\t{best:.3e}\t{note}")


if __name__ == "__main__":
    main()
