"""Which surviving mutants change an answer of the public API? A scan for ``make mutation``'s survivors.

    .venv/bin/python scripts/mutation_scan.py svt                 (every survivor of svt in mutants/)
    .venv/bin/python scripts/mutation_scan.py svt NAME ...        (these mutants, e.g. x__log_part__mutmut_97)

mutmut (``scripts/mutation.py``) keeps every mutant of a module in ``mutants/dpnotes/<module>.py``, each
selected at call time by the environment variable ``MUTANT_UNDER_TEST``. This script imports that copy
once, runs a battery of calls of the module's public API with no mutant (the original), records which
of the module's functions each call reaches, and then, for each surviving mutant, repeats the calls
that reach its function and compares the answers with the original's (relative 1e-9, absolute 1e-12,
the same infinities, nans and exception types). It prints one JSON line per mutant:
``{"mutant", "ran": calls that reach it, "diff": null or the first call whose answer changed}``.

A mutant with a ``diff`` changes behaviour that no test checks: write the test (against an independent
reference, not the original's answer) and run the mutant against it. A mutant with ``"diff": null``
and ``ran`` > 0 changed nothing the battery can see (often a hint to an integrator or a root finder:
equivalent within its tolerance); ``ran`` = 0 means the battery never reaches the function.
Batteries exist for: svt (2026-11-27: it found 26 of svt's survivors that changed answers).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# mutmut's folder; DPNOTES_MUTANTS names another (a worktree that runs the mutation tests, say)
MUTANTS = Path(os.environ.get("DPNOTES_MUTANTS", ROOT / "mutants"))


def svt_calls():
    """About 1,000 calls: laws, ratios and densities on random streams (ties, spreads of 1000, scales
    1000 times apart, 2e-300) and the alphas and per-query epsilons from 1e-305 to 1e300."""
    rng = np.random.default_rng(12345)
    out = []
    scales = [(1.0, 1e-3), (1e3, 1.0), (3.0, 0.05), (2.0, 4.0), (0.5, 0.5), (1e-3, 1.0), (1.0, 0.1), (2e-300, 4e-300),
              (1e-6, 1e3), (40.0, 1.0)]
    for i in range(40):
        k = int(rng.integers(1, 7))
        ans = rng.uniform(-5, 5, k)
        if i % 3 == 0:
            ans = np.round(ans)
        if i % 7 == 0:
            ans = ans * 1000
        T = float(rng.uniform(-3, 3)) if i % 5 else float(np.round(rng.uniform(-3, 3)))
        b_t, b_q = scales[i % len(scales)]
        out.append(("olp", (ans.tolist(), T, 1.0), dict(threshold_scale=b_t, query_scale=b_q)))
        d = rng.uniform(-1, 1, k)
        if i % 4 == 0:
            d = np.sign(d)
        out.append(("mlr", (ans.tolist(), (ans + d).tolist(), T, 1.0), dict(threshold_scale=b_t, query_scale=b_q)))
        if k <= 4:
            c = int(rng.integers(1, 3))
            for refresh in (False, True):
                out.append(("sop", (ans.tolist(), T, 1.0, c), dict(threshold_scale=b_t, query_scale=b_q, refresh=refresh)))
                out.append(("smlr", (ans.tolist(), (ans + d).tolist(), T, 1.0, c),
                            dict(threshold_scale=b_t, query_scale=b_q, refresh=refresh)))
        v = float(rng.uniform(-4, 4))
        out.append(("nld", (ans.tolist(), T, v), dict(threshold_scale=b_t, query_scale=b_q)))
    # special shapes
    out += [("olp", ([10.0] * 12 + [12.0], 0.0, 1.0), dict(threshold_scale=1.0, query_scale=0.3)),
            ("olp", ([0.0, 5000.0, 5000.0, 5000.0], 100.0, 1.0), dict(threshold_scale=10.0, query_scale=1.0)),
            ("olp", ([0.0] * 4, 0.0, 1.0), {}),
            ("olp", ([0.0, 1.0, 2.0], 0.5, 1e-300), {}),
            ("olp", ([0.0, 1.0, 2.0], 0.5, 1e300), {}),
            ("olp", ([0.0, 1.0, 2.0], 1e300, 1.0), {}),
            ("olp", ([1e300, -1e300, 0.0], 0.0, 1.0), {}),
            ("mlr", ([0.0, 1.0], [1.0, 0.0], 0.0, 1e300), {}),
            ("mlr", ([0.0, 1.0, 2.0], [1.0, 0.0, 2.5], 0.5, 1e-300), {}),
            ("mlr", ([5.0] * 4, [4.0, 4.0, 6.0, 4.0], 0.0, 1.0), dict(threshold_scale=2.0, query_scale=4.0)),
            ("nld", ([0.0, 1.0, -1.0, 0.5], 0.3, -3.0), dict(threshold_scale=2.0, query_scale=4.0)),
            ("nld", ([0.0, 1.0, -1.0, 0.5], 0.3, 2.0), dict(threshold_scale=2.0, query_scale=4.0, value_scale=0.3)),
            ("nld", ([0.0, 1.0, -1.0, 0.5], 0.3, 0.0), dict(threshold_scale=2.0, query_scale=4.0))]
    for k, eps, alpha, bt, bq in [(5, 1.0, 3.0, None, None), (20, 0.5, 10.0, None, None), (3, 2.0, 0.5, 1.0, 2.0),
                                  (50, 1e-3, 1e4, None, None), (2, 1e3, 0.01, None, None)]:
        out.append(("afp", (k, eps, alpha), dict(threshold_scale=bt, query_scale=bq)))
    for k in (1, 3, 10, 1000, 10**6):
        for eps in (1e-305, 1e-3, 0.7, 1.0, 1.3, 50.0, 1e300):
            for beta in (0.01, 0.5, 0.99):
                out.append(("aa", (k, eps, beta), {}))
                out.append(("la", (k, eps, beta), {}))
                for dp in (1e-9, 1e-3, 0.5):
                    out.append(("la", (k, eps, beta), dict(method="advanced", delta_prime=dp)))
                    out.append(("apq", (eps, k, dp), {}))
                for c in (1, 2, 5):
                    if c <= k:
                        for delta in (0.0, 1e-12, 1e-6, 0.5):
                            out.append(("sa", (k, eps, beta, c, delta), {}))
                            out.append(("nsa", (k, eps, beta, c, delta), {}))
        for delta in (0.0, 1e-9, 0.3):
            out.append(("nse", (1.0 if k == 1 else k / 10, delta), {}))
    return [("svt",) + c for c in out]




SVT_FUN = {"olp": "output_log_probabilities", "mlr": "max_log_ratio", "sop": "sparse_output_log_probabilities",
       "smlr": "sparse_max_log_ratio", "nld": "numeric_log_density", "afp": "accuracy_failure_probability",
       "aa": "accuracy_alpha", "la": "laplace_alpha", "apq": "advanced_per_query_epsilon", "sa": "sparse_alpha",
       "nsa": "numeric_sparse_alpha", "nse": "numeric_sparse_epsilons"}



BATTERIES = {"svt": (svt_calls, SVT_FUN)}


class _Timeout(Exception):
    pass


def _alarm(*_):
    raise _Timeout


def _call(module, fun, cfg, limit=20.0):
    _, name, args, kw = cfg
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return ("ok", np.asarray(getattr(module, fun[name])(*args, **kw), dtype=float).ravel())
    except _Timeout:
        return ("timeout", None)
    except Exception as e:  # noqa: BLE001 - an exception is an answer too
        return ("err", type(e).__name__)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _same(a, b) -> bool:
    if a[0] != b[0] or a[0] != "ok":
        return a == b
    x, y = a[1], b[1]
    if x.shape != y.shape:
        return False
    fx, fy = np.isfinite(x), np.isfinite(y)
    if not np.array_equal(fx, fy) or not np.array_equal(x[~fx], y[~fy], equal_nan=True):
        return False
    return bool(np.allclose(x[fx], y[fy], rtol=1e-9, atol=1e-12))


def survivors(module: str) -> list[str]:
    meta = json.loads((MUTANTS / "dpnotes" / f"{module}.py.meta").read_text())["exit_code_by_key"]
    return sorted(k.split(".", 2)[2] for k, v in meta.items() if v == 0)


def main(argv: list[str]) -> None:
    module, names = argv[0], argv[1:]
    if module not in BATTERIES:
        raise SystemExit(f"no battery for {module!r} (there are: {', '.join(BATTERIES)})")
    calls, fun = BATTERIES[module]
    names = names or survivors(module)
    sys.path.insert(0, str(MUTANTS))
    os.chdir(MUTANTS)
    os.environ["MUTANT_UNDER_TEST"] = ""
    import importlib

    mod = importlib.import_module(f"dpnotes.{module}")
    assert Path(mod.__file__).is_relative_to(MUTANTS), mod.__file__
    signal.signal(signal.SIGALRM, _alarm)
    cfgs, base, reached = calls(), [], []
    for cfg in cfgs:
        seen: set[str] = set()

        def profile(frame, event, arg, seen=seen):
            if event == "call" and frame.f_code.co_name.endswith("__mutmut_orig"):
                seen.add(frame.f_code.co_name[: -len("__mutmut_orig")])
        sys.setprofile(profile)
        base.append(_call(mod, fun, cfg, 60.0))
        sys.setprofile(None)
        reached.append(seen)
    for m in names:
        os.environ["MUTANT_UNDER_TEST"] = f"dpnotes.{module}.{m}"
        target, ran, diff = m.rsplit("__mutmut_", 1)[0], 0, None
        for cfg, b, seen in zip(cfgs, base, reached):
            if target not in seen:
                continue
            ran += 1
            r = _call(mod, fun, cfg)
            if not _same(r, b):
                diff = {"call": [fun[cfg[1]], cfg[2], cfg[3]], "original": str(b[1])[:200], "mutant": str(r[1])[:200]}
                break
        print(json.dumps({"mutant": m, "ran": ran, "diff": diff}, default=str), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
