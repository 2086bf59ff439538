"""Timing report: cold build, each notebook's execution, the test suite, and dpnotes benchmarks.

    make bench            (or: .venv/bin/python scripts/bench.py [--skip-tests])

Prints one Markdown table per measurement group and writes them to _build/bench.md, so that
later changes can be compared with this run. Times are wall-clock seconds on this machine;
speed is measured here, never asserted in a timed test.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
OUT = ROOT / "_build" / "bench"


def timed(cmd: list[str], **kw) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)
    return time.perf_counter() - t0, res


def table(title: str, header: tuple[str, ...], rows: list[tuple]) -> str:
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-tests", action="store_true", help="do not time the test suite")
    args = ap.parse_args()
    report = [f"## dpnotes timing report ({time.strftime('%Y-%m-%d %H:%M')}, "
              f"{platform.node()}, Python {platform.python_version()})\n"]

    # 1. cold build: no execution cache
    shutil.rmtree(OUT, ignore_errors=True)
    secs, res = timed([str(BIN / "jupyter-book"), "build", ".", "-W", "-n", "--keep-going",
                       "--path-output", str(OUT)])
    report.append(table("Cold build", ("what", "seconds", "status"),
                        [("jupyter-book build -W -n (all notebooks executed)", f"{secs:.1f}",
                          "ok" if res.returncode == 0 else "FAILED")]))

    # 2. each notebook's execution time, as recorded by the build's execution cache
    from jupyter_cache import get_cache

    rows = []
    cache_dir = OUT / "_build" / ".jupyter_cache"
    if cache_dir.exists():
        for rec in get_cache(str(cache_dir)).list_cache_records():
            rows.append((Path(rec.uri).relative_to(ROOT), rec.data.get("execution_seconds", float("nan"))))
    rows.sort(key=lambda r: -r[1])
    report.append(table("Notebook execution (cold build)", ("notebook", "seconds"),
                        [(str(p), f"{s:.2f}") for p, s in rows]
                        + [("**total**", f"{sum(s for _, s in rows):.1f}")]))

    # 3. the test suite, in its two halves
    if not args.skip_tests:
        rows = []
        for label, marker in (("units, doctests, notebooks", "not site"), ("site build and browser", "site")):
            secs, res = timed([sys.executable, "-m", "pytest", "-q", "-m", marker])
            last = (res.stdout.strip().splitlines() or ["?"])[-1]
            rows.append((label, f"{secs:.1f}", last.strip("= ")))
        report.append(table("Test suite", ("part", "seconds", "pytest summary"), rows))

    # 4. micro-benchmarks of dpnotes (benchmarks/bench_*.py print "name<TAB>seconds" lines)
    rows = []
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        secs, res = timed([sys.executable, str(script)])
        if res.returncode != 0:
            rows.append((script.name, "FAILED", res.stderr.strip().splitlines()[-1:] or ""))
            continue
        for line in res.stdout.splitlines():
            parts = line.split("\t")
            if len(parts) >= 2:
                try:
                    value = float(parts[1])
                except ValueError:
                    continue
                rows.append((f"{script.stem}: {parts[0]}", f"{value * 1e3:.4g} ms", " ".join(parts[2:])))
    report.append(table("dpnotes benchmarks (best of repeats, per call)", ("benchmark", "time", "note"), rows))

    # 5. mutation scores, from the last `make mutation` (too slow to run here: about an hour)
    mut = ROOT / "benchmarks" / "mutation-report.md"
    if mut.exists():
        lines = mut.read_text().splitlines()
        start = next(i for i, ln in enumerate(lines) if ln.startswith("| module |"))
        end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
        report.append("### Mutation scores (from benchmarks/mutation-report.md; rerun with make mutation)\n\n"
                      + lines[2] + "\n\n" + "\n".join(lines[start:end]) + "\n")

    text = "\n".join(report)
    print(text)
    (ROOT / "_build").mkdir(exist_ok=True)
    (ROOT / "_build" / "bench.md").write_text(text)
    print(f"written to {ROOT / '_build' / 'bench.md'}")


if __name__ == "__main__":
    main()
