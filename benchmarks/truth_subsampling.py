"""The true epsilon at the accountant's hardest checked points, by an independent route; and dp-accounting there.

Run from the book root:  .venv/bin/python benchmarks/truth_subsampling.py [--write]   (about 10 minutes)

For each point, the epsilon at which delta(epsilon) of the composed Poisson-subsampled Gaussian
equals the target, computed by Laplace inversion of the loss's moment generating function
(tests/laplace_inversion.py: no discretization, no FFT, quadrature checked on two grids), and
Google's dp-accounting (pessimistic PLD) at the meshes listed. These are the points where the
tests once compared this book's accountant with dp-accounting's extrapolated value and found
it below: the inversion shows that the peer, not the book's accountant, was off.

``--write`` stores the results in ``chapters/learning/accountant-truth.json``; the accounting page
reads it and checks the book's accountant against the true values, and
``tests/test_subsampling_inversion.py`` recomputes the inversion there in its thorough profile.
"""

import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import laplace_inversion as li                      # noqa: E402
from test_subsampling_peers import _measured       # noqa: E402  (dp-accounting's PLD at a mesh)
from dpnotes import subsampling as sub              # noqa: E402

TRUTH_JSON = ROOT / "chapters" / "learning" / "accountant-truth.json"
# q, sigma, T, delta, relation, y range of the quadrature, dp-accounting meshes, kind: "disputed" (the
# points where the peer once disagreed; the accounting page shows them) or "training" (issue 22's
# training-scale cases, whose peer values at meshes of 1e-5 and 5e-6 are in test_subsampling_peers.py)
POINTS = [
    (1e-4, 0.5, 100_000, 1e-9, "add_remove", (-6.0, 14.0), [1.5625e-4, 3.90625e-5, 9.765625e-6, 4.8828125e-6],
     "disputed"),
    (0.7, 1.0, 1000, 0.05, "replace_one", (-13.0, 15.0), [5e-3, 2.5e-3], "disputed"),
    (1e-5, 1.0, 1_000_000, 1e-6, "add_remove", (-12.0, 14.0), [4e-4, 2e-4], "disputed"),
    (1e-4, 0.8, 100_000, 1e-5, "add_remove", (-10.0, 14.0), [], "training"),
    (1e-4, 1.0, 100_000, 1e-5, "add_remove", (-12.0, 14.0), [], "training"),
    (5e-5, 0.7, 1_000_000, 1e-5, "add_remove", (-9.0, 14.0), [], "training"),
]


def main():
    rows = []
    for q, sigma, steps, delta, relation, (lo, hi), meshes, kind in POINTS:
        t0 = time.perf_counter()
        ours = sub.subsampled_gaussian_epsilon(q, sigma, steps, delta, relation=relation)
        true = li.composed_epsilon(q, sigma, steps, delta, relation, lo, hi, ours * (1 - 2e-3), ours * (1 + 2e-3))
        secs = time.perf_counter() - t0
        peers = {repr(h): _measured(q, sigma, steps, delta, h, relation) for h in meshes}
        rows.append({"kind": kind, "q": q, "sigma": sigma, "steps": steps, "delta": delta, "relation": relation,
                     "y_range": [lo, hi], "true_epsilon": true, "inversion_seconds": round(secs, 1),
                     "dp_accounting": peers})
        print(f"{q:g}\t{sigma:g}\t{steps}\t{delta:g}\t{relation}\ttrue {true!r}\tours {ours!r} "
              f"({ours / true - 1:+.2e})\tpeer {peers}", flush=True)
    if "--write" in sys.argv:
        import dp_accounting
        TRUTH_JSON.write_text(json.dumps({
            "machine": platform.machine(), "python": platform.python_version(),
            "dp_accounting": dp_accounting.__version__ if hasattr(dp_accounting, "__version__") else "see requirements",
            "points": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
