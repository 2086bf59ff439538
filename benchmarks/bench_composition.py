"""Timing of dpnotes.composition.optimal (one ``name<TAB>seconds_per_call`` line per measurement).

Run from the book root:  .venv/bin/python benchmarks/bench_composition.py
The figure reported is the best of several repeats of a timeit loop (the least
disturbed run), divided by the number of calls in the loop.
"""

import timeit

from dpnotes.composition import optimal, optimal_delta

CASES = [
    ("optimal(0.1, 10_000, 1e-6)", lambda: optimal(0.1, 10_000, 1e-6)),
    ("optimal(0.001, 100_000, 1e-6)", lambda: optimal(0.001, 100_000, 1e-6)),
    ("optimal(5, 100_000, 1e-6)", lambda: optimal(5.0, 100_000, 1e-6)),
    ("optimal_delta(0.1, 10_000, 100.0)", lambda: optimal_delta(0.1, 10_000, 100.0)),
]


def main(number: int = 200, repeat: int = 7) -> None:
    for name, fn in CASES:
        fn()  # warm-up
        best = min(timeit.repeat(fn, number=number, repeat=repeat)) / number
        print(f"{name}\t{best:.3e}")


if __name__ == "__main__":
    main()
