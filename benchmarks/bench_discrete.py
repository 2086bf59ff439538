"""Speed of exact discrete Gaussian sampling in pure Python (dpnotes.discrete).

Prints ``name<TAB>seconds_per_sample<TAB>note`` lines (best of several repeats), for
sigma in {1, 10, 1000}: the exact sampler with a Mersenne-Twister bit source
(``random.Random``, reproducible) and with operating-system entropy
(``random.SystemRandom``, what a deployment would use), and numpy's continuous Gaussian
for scale. The issue's target: at least 1e4 exact samples per second at sigma = 10.

When OpenDP is importable (it is *not* a dependency of the book: install it into a
scratch environment, e.g. ``python -m venv /tmp/odp && /tmp/odp/bin/pip install opendp numpy``,
then run this script with ``PYTHONPATH=.`` and that environment's python), its exact
discrete Gaussian (``make_gaussian`` on integers, Rust) is timed too and the ratio of
speeds reported.

Run from the book root:  .venv/bin/python benchmarks/bench_discrete.py
"""

from __future__ import annotations

import random
import time

import numpy as np

from dpnotes import discrete

SIGMAS = (1, 10, 1000)
N = 20_000


def seconds_per_sample(draw, n: int = N, repeat: int = 3) -> float:
    draw(100)  # warm up
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        draw(n)
        best = min(best, time.perf_counter() - t0)
    return best / n


def opendp_sampler(sigma):
    """A callable n -> n exact discrete Gaussian draws from OpenDP, or None if unavailable."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    meas = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=float(sigma))
    return lambda n: meas([0] * n)


def main() -> None:
    for sigma in SIGMAS:
        mt = random.Random(0)
        s_mt = seconds_per_sample(lambda n: discrete.discrete_gaussian_mechanism(0, sigma, size=n, rng=mt))
        print(f"discrete_gaussian_sigma{sigma}_random.Random\t{s_mt:.3e}\t{1 / s_mt:,.0f} samples/s")
        sys_rng = random.SystemRandom()
        s_sys = seconds_per_sample(lambda n: discrete.discrete_gaussian_mechanism(0, sigma, size=n, rng=sys_rng))
        print(f"discrete_gaussian_sigma{sigma}_SystemRandom\t{s_sys:.3e}\t{1 / s_sys:,.0f} samples/s")
        gen = np.random.default_rng(0)
        s_np = seconds_per_sample(lambda n: gen.normal(0.0, sigma, size=n), n=1_000_000)
        print(f"numpy_continuous_normal_sigma{sigma}\t{s_np:.3e}\t{1 / s_np:,.0f} samples/s "
              f"(exact/numpy speed ratio {s_np / s_mt:.2g})")
        odp = opendp_sampler(sigma)
        if odp is not None:
            s_odp = seconds_per_sample(odp)
            print(f"opendp_discrete_gaussian_sigma{sigma}\t{s_odp:.3e}\t{1 / s_odp:,.0f} samples/s "
                  f"(dpnotes random.Random / opendp speed ratio {s_odp / s_mt:.2g}, "
                  f"dpnotes SystemRandom / opendp {s_odp / s_sys:.2g})")


if __name__ == "__main__":
    main()
