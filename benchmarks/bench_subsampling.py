"""Timing of dpnotes.subsampling.subsampled_gaussian_epsilon (``name<TAB>seconds[<TAB>note]`` lines).

Run from the book root:  .venv/bin/python benchmarks/bench_subsampling.py

If Google's ``dp-accounting`` package is importable (it is *not* a requirement of
the book: it pins an old ``attrs``), its PLD accountant is timed on the same input
at equal accuracy: its ``value_discretization_interval`` is halved until its
epsilon is within a relative 1e-4 of ours, and the time of that run is reported
with the ratio. A separate interpreter that has it can be named with
``DP_ACCOUNTING_PYTHON=/path/to/python``; otherwise the line is skipped.
"""

import json
import os
import subprocess
import sys
import time

from dpnotes.subsampling import subsampled_gaussian_epsilon

CASES = [(0.01, 1.0, 10_000, 1e-5), (0.001, 0.8, 10_000, 1e-5), (0.004, 1.1, 10_000, 1e-6)]

_DPACC = r"""
import json, sys, time
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
q, sigma, steps, delta, target = json.loads(sys.argv[1])
h = 1e-2
while True:
    t0 = time.perf_counter()
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=h)
    acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)
    eps = acc.get_epsilon(delta)
    dt = time.perf_counter() - t0
    if abs(eps - target) <= 1e-4 * target or h < 1e-6:
        print(json.dumps([eps, dt, h]))
        break
    h /= 2
"""


def _best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return value, min(times)


def _dp_accounting(args):
    try:
        import dp_accounting  # noqa: F401
        python = sys.executable
    except ImportError:
        python = os.environ.get("DP_ACCOUNTING_PYTHON")
        if not python:
            return None
    out = subprocess.run([python, "-c", _DPACC, json.dumps(args)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    subsampled_gaussian_epsilon(0.01, 1.0, 100, 1e-5)     # warm-up (imports)
    for q, sigma, steps, delta in CASES:
        name = f"subsampled_gaussian_epsilon({q}, {sigma}, {steps}, {delta})"
        eps, sec = _best(lambda: subsampled_gaussian_epsilon(q, sigma, steps, delta))
        print(f"{name}\t{sec:.3e}\tepsilon={eps:.6f}")
        theirs = _dp_accounting([q, sigma, steps, delta, eps])
        if theirs is None:
            print(f"dp_accounting PLD {name[len('subsampled_gaussian_epsilon'):]}\tskipped\tdp-accounting not importable")
        else:
            e2, s2, h = theirs
            print(f"dp_accounting PLD {name[len('subsampled_gaussian_epsilon'):]}\t{s2:.3e}\t"
                  f"epsilon={e2:.6f} at interval {h:.2e}; ratio theirs/ours = {s2 / sec:.1f}")


if __name__ == "__main__":
    main()
