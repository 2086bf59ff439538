"""Timing of dpnotes.composition (one ``name<TAB>seconds_per_call[<TAB>note]`` line per measurement).

Run from the book root:  .venv/bin/python benchmarks/bench_composition.py
The figure reported is the best of several repeats of a timeit loop (the least
disturbed run), divided by the number of calls in the loop.

The exact (Kairouz-Oh-Viswanath) optimal composition is also timed side by side with Google's
dp-accounting ``pld.accountant.advanced_composition`` (same theorem), in one process and
interleaved round by round, when it is importable (``nan`` and "not installed" otherwise). The
peer answers at the breakpoints (k - 2i) eps only, summing binom(k, l) e^{eps (k - l)} in plain
floats (OverflowError once that passes 1e308); each note gives the answer's relative distance to
the exact epsilon' found in 40-digit mpmath.
"""

import logging
import math
import timeit
import warnings

import mpmath as mp

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


# (eps, k, delta) for optimal composition against the peer; the last one overflows the peer's floats
KOV_POINTS = [(0.1, 100, 1e-5), (0.5, 50, 1e-6), (0.1, 200, 1e-6), (0.01, 500, 1e-6), (0.1, 1000, 1e-6)]


def mp_optimal(eps: float, k: int, delta: float) -> mp.mpf:
    """The exact smallest eps' of k-fold eps-DP composition at 40 digits, independent of dpnotes' method:
    on the piece [(k - 2m) eps, (k - 2m + 2) eps) the profile is A_m - e^{eps'} B_m with A_m = sum_{l<m} a_l,
    B_m = sum_{l<m} a_l e^{-(k - 2l) eps}, a_l = C(k, l) p^(k-l) (1-p)^l; find the piece, solve for eps'."""
    with mp.workdps(40):
        e, target = mp.mpf(eps), mp.mpf(delta)
        p, q = mp.e ** e / (1 + mp.e ** e), 1 / (1 + mp.e ** e)
        big_a = big_b = mp.mpf(0)
        for m in range(1, (k + 1) // 2 + 1):
            a_l = mp.binomial(k, m - 1) * p ** (k - m + 1) * q ** (m - 1)
            big_a += a_l
            big_b += a_l * mp.e ** (-(k - 2 * (m - 1)) * e)
            lower = max((k - 2 * m) * e, mp.mpf(0))
            if big_a - mp.e ** lower * big_b >= target:
                return mp.log((big_a - target) / big_b)
        return mp.mpf(0)


def compare_kov(rounds: int = 5) -> None:
    try:
        from dp_accounting.pld import accountant as peer_accountant
        from dp_accounting.pld import common as peer_common
    except ImportError:
        for eps, k, delta in KOV_POINTS:
            print(f"optimal composition (eps={eps:g}, k={k}, delta={delta:g}): dp_accounting\tnan\tnot installed")
        return
    logging.getLogger().setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)   # the peer's, before it raises
    for eps, k, delta in KOV_POINTS:
        name = f"optimal composition (eps={eps:g}, k={k}, delta={delta:g})"
        params = peer_common.DifferentialPrivacyParameters(eps, 0.0)
        calls = {"dpnotes": lambda: optimal(eps, k, delta),
                 "dp_accounting": lambda: peer_accountant.advanced_composition(params, k, delta)}
        answers, best, number = {}, {}, {}
        for name_i, fn in list(calls.items()):
            try:
                answers[name_i] = fn()
            except OverflowError as exc:                      # the peer's plain-float sums
                answers[name_i] = f"raises OverflowError ({exc})"
                del calls[name_i]
                continue
            best[name_i] = math.inf
            number[name_i] = max(1, int(0.02 / max(timeit.timeit(fn, number=1), 1e-7)))
        for _ in range(rounds):                               # interleaved: load hits both alike
            for name_i, fn in calls.items():
                best[name_i] = min(best[name_i], timeit.timeit(fn, number=number[name_i]) / number[name_i])
        exact = mp_optimal(eps, k, delta)
        for name_i in ("dpnotes", "dp_accounting"):
            if name_i not in best:
                print(f"{name}: {name_i}\tnan\t{answers[name_i]}")
                continue
            note = f"eps' = {answers[name_i]:.10g}, rel. distance to exact {float((answers[name_i] - exact) / exact):+.1e}"
            if name_i == "dpnotes" and "dp_accounting" in best:
                note += f"; dp_accounting takes {best['dp_accounting'] / best['dpnotes']:.3g}x this time"
            print(f"{name}: {name_i}\t{best[name_i]:.3e}\t{note}")


def main(number: int = 200, repeat: int = 7) -> None:
    for name, fn in CASES:
        fn()  # warm-up
        best = min(timeit.repeat(fn, number=number, repeat=repeat)) / number
        print(f"{name}\t{best:.3e}")
    for name, fn, note in SLOW_CASES:
        fn()
        best = min(timeit.repeat(fn, number=3, repeat=3)) / 3
        print(f"{name}\t{best:.3e}\t{note}")
    compare_kov()


if __name__ == "__main__":
    main()
