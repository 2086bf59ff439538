"""Mutation testing of dpnotes: how many deliberately broken copies of each module the tests catch.

    make mutation                                  (every module with a goal, below)
    .venv/bin/python scripts/mutation.py svt loss  (some modules)
    .venv/bin/python scripts/mutation.py --report  (rewrite the report from the last run, run nothing)

mutmut (configured in ``[tool.mutmut]`` of pyproject.toml) copies ``dpnotes/`` into ``mutants/``,
makes many small changes to it ("mutants": ``*`` for ``/``, ``<`` for ``<=``, a dropped
argument...), and runs the unit tests and doctests against each. A mutant the tests pass is a
*survivor*: either a bug the tests would miss, or a change that does not alter behaviour.

This script runs mutmut on the chosen modules, then writes ``benchmarks/mutation-report.md``:
the score of each module (killed / checked) against the goal, and every survivor with the
reason it is harmless, read from ``benchmarks/mutation-survivors.toml``. A survivor without a
reason is listed as UNEXPLAINED. The exit status is non-zero when a module misses its goal or
has unexplained survivors, so the report is also a check.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REPORT = ROOT / "benchmarks" / "mutation-report.md"
REASONS = ROOT / "benchmarks" / "mutation-survivors.toml"

# The modules the project holds to a goal (fraction of checked mutants killed).
GOAL = 0.90
MODULES = ["mechanisms", "loss", "finite", "tradeoff", "divergences", "concentration",
           "composition", "svt", "functional", "anonymity"]

# mutmut's exit-code convention (mutmut.stats.status_by_exit_code), restated so the report
# can be written without importing mutmut.
KILLED = {"killed", "timeout", "caught by type check"}


def status_of(exit_code: int | None) -> str:
    if exit_code is None:
        return "not checked"
    return {1: "killed", 3: "killed", 2: "not checked", -24: "timeout", 24: "timeout", 36: "timeout",
            0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 35: "suspicious",
            37: "caught by type check", 152: "timeout", 255: "timeout",
            -11: "segfault", -9: "segfault"}.get(exit_code, "suspicious")


def mutmut_env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("MPLBACKEND", "Agg")
    return env


def run(modules: list[str], max_children: int) -> None:
    patterns = [f"dpnotes.{m}.*" for m in modules]
    cmd = [str(BIN / "mutmut"), "run", "--max-children", str(max_children), *patterns]
    print("running:", " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    # mutmut prints a line per mutant; keep only the summary on the terminal
    res = subprocess.run(cmd, cwd=ROOT, env=mutmut_env(), capture_output=True, text=True)
    (ROOT / "mutants").mkdir(exist_ok=True)
    (ROOT / "mutants" / "last-run.log").write_text(res.stdout + res.stderr)
    print(f"mutmut finished in {time.perf_counter() - t0:.0f} s (log: mutants/last-run.log)")
    if res.returncode != 0:
        print((res.stdout + res.stderr)[-3000:])
        raise SystemExit(f"mutmut run failed with exit status {res.returncode}")


def statuses(module: str) -> dict[str, str]:
    meta = ROOT / "mutants" / "dpnotes" / f"{module}.py.meta"
    if not meta.exists():
        return {}
    data = json.loads(meta.read_text())
    return {name: status_of(code) for name, code in data["exit_code_by_key"].items()}


def diff_of(name: str) -> str:
    """The changed lines of a mutant (``mutmut show``), without the diff header."""
    res = subprocess.run([str(BIN / "mutmut"), "show", name], cwd=ROOT, env=mutmut_env(),
                         capture_output=True, text=True)
    lines = [ln for ln in res.stdout.splitlines()
             if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    return " / ".join(ln.strip() for ln in lines)[:160]


def report(modules: list[str]) -> bool:
    reasons = tomllib.loads(REASONS.read_text()) if REASONS.exists() else {}
    rows, survivors, ok = [], [], True
    for m in modules:
        st = statuses(m)
        checked = {k: v for k, v in st.items() if v != "not checked"}
        if not checked:
            rows.append((m, len(st), "-", "-", "-", "not run"))
            continue
        killed = sum(v in KILLED for v in checked.values())
        left = sorted((k for k, v in checked.items() if v not in KILLED),
                      key=lambda k: (k.split("__mutmut_")[0], int(k.rsplit("_", 1)[1])))
        score = killed / len(checked)
        known = reasons.get(m, {})
        unexplained = [k for k in left if k.split(".", 2)[2] not in known]
        verdict = "ok" if score >= GOAL and not unexplained else "BELOW GOAL" if score < GOAL else "unexplained survivors"
        ok &= verdict == "ok"
        rows.append((m, len(checked), killed, len(left), f"{100 * score:.1f} %", verdict))
        for k in left:
            short = k.split(".", 2)[2]
            survivors.append((m, short, checked[k], diff_of(k), known.get(short, "UNEXPLAINED")))
    lines = [
        "# Mutation testing report",
        "",
        f"Written by `scripts/mutation.py` (`make mutation`) on {time.strftime('%Y-%m-%d')}: mutmut on the unit "
        f"tests and doctests. Goal: at least {100 * GOAL:.0f} % of the checked mutants of each module killed, and "
        "every survivor explained in `benchmarks/mutation-survivors.toml`.",
        "",
        "| module | mutants checked | killed | survived | score | verdict |",
        "|---|---|---|---|---|---|",
        *("| " + " | ".join(str(c) for c in r) + " |" for r in rows),
        "",
        "## Survivors and why they are harmless",
        "",
        "| module | mutant | status | change | reason |",
        "|---|---|---|---|---|",
        *(f"| {m} | `{n}` | {s} | `{d.replace('|', '¦')}` | {r} |" for m, n, s, d, r in survivors),
        "",
    ]
    REPORT.write_text("\n".join(lines))
    print("\n".join(lines[:8 + len(rows)]))
    print(f"report: {REPORT.relative_to(ROOT)}")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="*", help=f"modules of dpnotes (default: {' '.join(MODULES)})")
    ap.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--report", action="store_true", help="only rewrite the report from the last run")
    args = ap.parse_args()
    modules = args.modules or MODULES
    if not args.report:
        run(modules, args.max_children)
    # report on every module run so far, so that a partial run does not drop the others
    done = [m for m in MODULES + sorted(set(modules) - set(MODULES)) if statuses(m) or m in modules]
    sys.exit(0 if report(done) else 1)


if __name__ == "__main__":
    main()
