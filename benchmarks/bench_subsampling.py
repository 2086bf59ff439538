"""Time and accuracy of dpnotes.subsampling's PLD accountant over its box (``name<TAB>seconds[<TAB>note]`` lines).

Run from the book root:  .venv/bin/python benchmarks/bench_subsampling.py [--full] [--write]

The box of issue 22: q in [1e-6, 1], sigma in [0.4, 100], T up to 1e6, delta in [1e-12, 0.1]
(both neighbouring relations). A grid of its corners and middles is run; for each point the
time of one call (best of two; the first call of the process is a warm-up) and the relative
difference from a reference: the exact value where one exists (q = 1: the Gaussian; T = 1:
the one-step profile), else the same accountant with a 25 times smaller error target (a mesh
5 times finer) when that finer run is not coarsened by the FFT size cap. The report ends with
the worst time and the worst error over the box, and the points over 1 s or over 1e-4.
Speed targets are for a quiet 2-core machine: the load average is printed with the results, and
the CPU time of the process (the FFT's two threads included), which a loaded machine does not inflate.

``--write`` also stores every point (value, times, difference, mesh) in
``chapters/learning/accountant-box.json``, which the accounting page reads to show the slow
corner with its measured time and error; ``tests/test_accountant_box.py`` recomputes the stored
values with the current code, so the file cannot silently go stale.
"""

import itertools
import json
import os
import platform
import sys
import time
from pathlib import Path

from dpnotes import subsampling as sub

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from accountant_code import fingerprint            # noqa: E402  (stamps what --write stores)

BOX_JSON = Path(__file__).resolve().parents[1] / "chapters" / "learning" / "accountant-box.json"
FULL = "--full" in sys.argv       # make bench runs the corners and middles; --full a finer grid
QS = [1e-6, 1e-4, 1e-2, 0.3, 1.0] if FULL else [1e-6, 1e-3, 0.3]
SIGMAS = [0.4, 1.0, 10.0, 100.0] if FULL else [0.4, 3.0, 100.0]
STEPS = [1, 10, 1000, 100_000, 1_000_000] if FULL else [2, 1000, 1_000_000]
DELTAS = [1e-12, 1e-5, 0.1]
# Off the grid, inside the box: the nearly discrete region of a few steps at the smallest q and sigma, where
# the composed loss is almost all at 0 and the mesh meets its cell cap (found by reviewers of the accountant,
# 2026-11-28: 1.5 to 3 s a call, slower than the grid's corner); measured so that the page shows them.
EXTRA = [(1e-6, 0.4, 2, 1e-6), (1e-6, 0.4, 2, 1e-7), (1e-6, 0.4, 10, 10**-5.5)]


def _timed(fn):
    """(value, wall seconds, CPU seconds of this process, all threads), best of two."""
    best, cpu, value = float("inf"), float("inf"), None
    for _ in range(2):
        t0, c0 = time.perf_counter(), time.process_time()
        value = fn()
        best, cpu = min(best, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return value, best, cpu


def _reference(q, sigma, steps, delta, relation):
    target = sub._TARGET
    sub._TARGET = target / 25
    try:
        value = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
        coarsened = sub._LAST.get("coarsened", False)
    finally:
        sub._TARGET = target
    return value, coarsened


def main() -> None:
    sub.subsampled_gaussian_epsilon(0.01, 1.0, 100, 1e-5)        # warm-up (imports)
    rows, points = [], []
    grid = list(itertools.product(sub.RELATIONS, QS, SIGMAS, STEPS, DELTAS))
    for i, (relation, q, sigma, steps, delta) in enumerate(grid + [(r, *x) for r in sub.RELATIONS for x in EXTRA]):
        sub._LAST.clear()
        eps, sec, cpu = _timed(lambda: sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation))
        note = f"h={sub._LAST.get('h', float('nan')):.2g} fft={sub._LAST.get('n', 0)}" \
            + (" COARSENED by the FFT cap" if sub._LAST.get("coarsened") else "")
        if q == 1.0 or steps == 1:
            err, ref_note = 0.0, "exact"
        else:
            ref, coarsened = _reference(q, sigma, steps, delta, relation)
            err = (eps / ref - 1) if ref > 0 else (0.0 if eps == 0 else float("inf"))
            ref_note = "reference coarsened by the FFT cap" if coarsened else "reference: mesh 5x finer"
        name = f"subsampled_gaussian_epsilon({q:g}, {sigma:g}, {steps}, {delta:g}, {relation})"
        print(f"{name}\t{sec:.3e}\tcpu={cpu:.3g}s epsilon={eps:.7g} rel.diff={err:+.1e} ({ref_note}) {note}",
              flush=True)
        rows.append((sec, err, name, cpu))
        points.append(dict(q=q, sigma=sigma, steps=steps, delta=delta, relation=relation, epsilon=eps,
                           seconds=sec, cpu_seconds=cpu, rel_diff=err, reference=ref_note,
                           coarsened=bool(sub._LAST.get("coarsened", False)), on_grid=i < len(grid)))
    worst_t = max(rows)
    worst_c = max(rows, key=lambda r: r[3])
    worst_e = max(rows, key=lambda r: abs(r[1]))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"worst time over the box: {worst_t[2]}\t{worst_t[0]:.3e}\tload average {load:.1f}")
    print(f"worst CPU time over the box (a quiet machine's wall time, about): {worst_c[2]}\t{worst_c[3]:.3e}")
    print(f"worst relative difference over the box: {worst_e[2]}\t{worst_e[0]:.3e}\trel.diff={worst_e[1]:+.1e}")
    print(f"points over 1 s: {sum(r[0] > 1 for r in rows)} of {len(rows)}\t{sum(r[0] for r in rows):.3e}\t"
          f"points over 1e-4: {sum(abs(r[1]) > 1e-4 for r in rows)}")
    if "--write" in sys.argv:
        BOX_JSON.write_text(json.dumps(dict(
            date=time.strftime("%Y-%m-%d"), machine=f"{platform.machine()}, {os.cpu_count()} cores",
            load_average=round(load, 2), grid="full" if FULL else "corners and middles",
            points=points, accountant_fingerprint=fingerprint()), indent=1) + "\n")
        print(f"written to {BOX_JSON}")


if __name__ == "__main__":
    main()
