"""Timings of dpnotes.audit: the runner's throughput and each row of the DP-Sniper comparison.

Run from the book root: ``.venv/bin/python benchmarks/bench_audit.py``. Prints one
``name<TAB>seconds<TAB>note`` line per measurement (wall-clock seconds; the note gives the
CPU seconds and the load average, since the machine may be shared).

``--write-cache`` also writes the audited bounds of the comparison to
``chapters/auditing/dpsniper-table.json``, which the chapter reads (the audits take longer
than a page may) and ``tests/test_flawed.py`` recomputes, so ``make test`` runs them.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import timeit
from pathlib import Path

import numpy as np

from dpnotes import audit, flawed, mechanisms

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "chapters" / "auditing" / "dpsniper-table.json"
CONFIDENCE = 0.95
N_JOBS = 2


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def note(cpu):
    return f"cpu {cpu:.1f}s, load {os.getloadavg()[0]:.1f}"


def run_case(case):
    """Audit one reference case as the chapter reports it (seeded, two threads)."""
    res = audit.audit_pair(case.mechanism, case.x, case.x_prime, n_samples=case.n_samples,
                           rng=np.random.default_rng(2021), confidence=CONFIDENCE, n_jobs=N_JOBS)
    return {
        "name": case.name, "claimed": case.claimed, "dpsniper": case.dpsniper,
        "true_epsilon": None if np.isinf(case.true_epsilon) else case.true_epsilon,
        "x": case.x.tolist(), "x_prime": case.x_prime.tolist(), "n_samples": case.n_samples,
        "epsilon": res.epsilon, "confidence": res.confidence, "n_select": res.n_select,
        "false_positives": res.false_positives, "false_negatives": res.false_negatives,
        "n_counted": res.n_negatives, "test": res.test.description,
        "threshold": float(res.test.threshold), "below": bool(res.test.below),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write-cache", action="store_true", help="write chapters/auditing/dpsniper-table.json")
    ap.add_argument("--skip-table", action="store_true", help="throughput only")
    args = ap.parse_args()

    # throughput: Laplace mechanism, counting a fixed test (mechanism runs per second)
    lap = lambda v, size, rng: mechanisms.laplace_mechanism(np.full(size, float(v)), 0.5, rng)  # noqa: E731
    test = audit.ThresholdTest(lambda y: y[:, 0], 1.0, "y > 1")
    n = 4_000_000
    _, wall, cpu = timed(lambda: audit.count_errors(lap, 0.0, 1.0, test, n_samples=n, rng=np.random.default_rng(0)))
    print(f"count_errors_laplace_runs_per_second\t{wall:.3f}\t{2 * n / wall:.3g} runs/s; {note(cpu)}")
    _, wall, cpu = timed(lambda: audit.audit_pair(lap, 0.0, 1.0, n_samples=n, rng=np.random.default_rng(0)))
    print(f"audit_pair_laplace_runs_per_second\t{wall:.3f}\t{2 * n / wall:.3g} runs/s; {note(cpu)}")
    rr10 = lambda b, size, rng: mechanisms.randomized_response(np.full((size, 10), b), 0.3, rng)  # noqa: E731
    n = 1_000_000
    _, wall, cpu = timed(lambda: audit.audit_pair(rr10, 0, 1, n_samples=n, rng=np.random.default_rng(0)))
    print(f"audit_pair_10_bit_patterns_runs_per_second\t{wall:.3f}\t{2 * n / wall:.3g} runs/s; {note(cpu)}")
    # the chosen tests alone: each DP-Sniper row's test (chosen on 200 000 selection runs)
    # applied to 100 000 fresh outputs, best of 7 (the discretizer's and scores' share of a row,
    # without the mechanism's; the minimum is what a loaded machine disturbs least)
    for case in flawed.dpsniper_cases():
        rng = np.random.default_rng(2021)
        sel_x = audit._run(case.mechanism, case.x, 200_000, rng)
        sel_xp = audit._run(case.mechanism, case.x_prime, 200_000, rng)
        chunk = audit._run(case.mechanism, case.x, 100_000, rng)
        test, _ = audit._select_test(sel_x, sel_xp, case.n_samples, 0.0, (1 - CONFIDENCE) / 2, rng)
        best = min(timeit.repeat(lambda: test(chunk), number=5, repeat=7)) / 5
        print(f"test_apply {case.name}\t{best:.5f}\t{1e5 / best:.3g} outputs/s; {test.description}", flush=True)
    if args.skip_table:
        return
    rows = []
    for case in flawed.dpsniper_cases():
        row, wall, cpu = timed(lambda case=case: run_case(case))
        rows.append(row)
        print(f"dpsniper_row {case.name}\t{wall:.3f}\tbound {row['epsilon']:.4f} vs DP-Sniper "
              f"{case.dpsniper:.4f}, n={case.n_samples:.2g}; {note(cpu)}", flush=True)
    if args.write_cache:
        CACHE.write_text(json.dumps({"confidence": CONFIDENCE, "seed": 2021, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
