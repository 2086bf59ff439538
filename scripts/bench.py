"""Timing report: cold make book, each notebook's execution, make test, dpnotes benchmarks, mutation scores.

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

# Targets of issue 24 on a 2-core machine (measured here, never asserted in a test).
TARGET_BOOK = 45.0    # cold make book, seconds
TARGET_TEST = 300.0   # make test, seconds
TARGET_PAGE = 10.0    # one notebook's execution, seconds


def timed(cmd: list[str], **kw) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)
    return time.perf_counter() - t0, res


def verdict(ok: bool, secs: float, target: float) -> str:
    if not ok:
        return "FAILED"
    return "ok" if secs <= target else "over target"


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

    # 1. cold `make book`: no execution cache, chapters executed in parallel, then rendered
    shutil.rmtree(OUT, ignore_errors=True)
    secs, res = timed([sys.executable, "scripts/book.py", "html", "--path-output", str(OUT)])
    report.append(table("Cold build (make book)", ("what", "seconds", "target", "status"),
                        [("scripts/book.py html: parallel execution, then jupyter-book build -W -n",
                          f"{secs:.1f}", f"<= {TARGET_BOOK:.0f}", verdict(res.returncode == 0, secs, TARGET_BOOK))]))

    # 2. each notebook's execution time, as recorded in the build's execution cache
    from jupyter_cache import get_cache

    rows = []
    cache_dir = OUT / "_build" / ".jupyter_cache"
    if cache_dir.exists():
        for rec in get_cache(str(cache_dir)).list_cache_records():
            rows.append((Path(rec.uri).relative_to(ROOT), rec.data.get("execution_seconds", float("nan"))))
    rows.sort(key=lambda r: -r[1])
    report.append(table(f"Notebook execution (cold build; target: each <= {TARGET_PAGE:.0f} s)",
                        ("notebook", "seconds", "status"),
                        [(str(p), f"{s:.2f}", "ok" if s <= TARGET_PAGE else "OVER") for p, s in rows]
                        + [("**total**", f"{sum(s for _, s in rows):.1f}", "")]))

    # 3. `make test` as a user runs it
    if not args.skip_tests:
        secs, res = timed(["make", "test"])
        last = [ln for ln in res.stdout.splitlines() if " passed" in ln or " failed" in ln]
        rows = [("make test (prerequisites; units, doctests and notebooks, with the site, a page of each kind in the browser and Binder beside them)",
                 f"{secs:.1f}", f"<= {TARGET_TEST:.0f}", verdict(res.returncode == 0, secs, TARGET_TEST),
                 " / ".join(ln.strip("= ") for ln in last))]
        report.append(table("Test suite", ("what", "seconds", "target", "status", "pytest summaries"), rows))

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
