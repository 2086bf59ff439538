"""Build the website (make book) or the PDF edition (make pdf), executing the chapters in parallel.

    .venv/bin/python scripts/book.py html   [--path-output DIR] [--jobs N]
    .venv/bin/python scripts/book.py pdf    [--path-output DIR] [--jobs N]

Both execute, ``--jobs`` at a time (default: one per core), the chapters that the Jupyter
cache of the build lacks, and meanwhile run ``jupyter-book build . -W -n --keep-going``, which
finds every notebook already executed and only renders the pages (Jupyter Book itself executes
notebooks one after another). The build reads the other pages first and then each chapter as
soon as it is executed (``DPNOTES_EXECUTING``, ``_ext/dpnotes_build.py``), so that reading the
pages overlaps executing the chapters. A notebook that fails is left to the build, which
executes it again and reports the error with its traceback.

``pdf`` builds the single-page HTML edition and prints it with headless Chromium to
``_build/pdf/dpnotes.pdf`` (see ``tests/pdfbook.py`` for why this route), copies it into
the website (``_build/html/dpnotes.pdf``, which the start page links) when that exists, and
checks it: every chapter title present, no unresolved reference, Chinese and Korean drawn
with a font that has their glyphs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "_ext"))
import nbcache  # noqa: E402
from dpnotes_build import execution_marker  # noqa: E402

JB = Path(sys.executable).with_name("jupyter-book")


def jupyter_book(builder: str, out: Path, env: dict | None = None) -> int:
    cmd = [str(JB), "build", str(ROOT), "-W", "-n", "--keep-going", "--builder", builder]
    if out != ROOT:
        cmd += ["--path-output", str(out)]
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


def execute_and_build(builder: str, out: Path, jobs: int | None) -> int:
    """Execute the chapters the cache lacks while ``jupyter-book`` builds with ``builder``.

    The chapters to execute are listed, in the order the kernels take them, in
    ``_build/.executing/todo.json``; each gets a marker file when it is cached (or has failed).
    The build, told where by ``DPNOTES_EXECUTING``, reads every other page first and waits for a
    chapter's marker before reading it (``_ext/dpnotes_build.py``)."""
    build = out / "_build"
    cache = build / ".jupyter_cache"
    todo = nbcache.uncached(cache, nbcache.toc_notebooks())
    if not todo:
        return jupyter_book(builder, out)
    status = build / ".executing"
    shutil.rmtree(status, ignore_errors=True)
    status.mkdir(parents=True)
    docnames = [p.resolve().relative_to(ROOT).with_suffix("").as_posix() for p in todo]
    (status / "todo.json").write_text(json.dumps(docnames))
    by_path = dict(zip(map(str, todo), docnames))
    # a daemon thread, as nbcache's own: Ctrl-C ends the build at once
    executor = threading.Thread(target=nbcache.execute, args=(cache, todo), daemon=True,
                                kwargs={"jobs": jobs, "done": lambda p: execution_marker(status, by_path[str(p)]).touch()})
    executor.start()
    rc = jupyter_book(builder, out, {**os.environ, "DPNOTES_EXECUTING": str(status)})
    executor.join()
    shutil.rmtree(status, ignore_errors=True)
    return rc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target", choices=["html", "pdf"])
    ap.add_argument("--path-output", type=Path, default=ROOT, help="folder that receives _build/ (default: the book)")
    ap.add_argument("--jobs", type=int, default=None, help="notebooks executed at once (default: cores)")
    args = ap.parse_args()
    out = args.path_output.resolve()
    build = out / "_build"
    t0 = time.perf_counter()
    if args.target == "html":
        rc = execute_and_build("html", out, args.jobs)
        print(f"\nbuilt in {time.perf_counter() - t0:.0f} s")
        return rc
    rc = execute_and_build("singlehtml", out, args.jobs)
    if rc != 0:
        return rc
    import pdfbook
    import sitecheck

    chromium = sitecheck.find_chromium()
    if chromium is None:
        print("make pdf needs headless Chromium (python3 scripts/prereqs.py says how)")
        return 1
    pdf = build / "pdf" / "dpnotes.pdf"
    pdfbook.print_pdf(build / "singlehtml", pdf, chromium=chromium)
    problems = pdfbook.check_pdf(pdf, build / "html" if (build / "html").exists() else build / "singlehtml")
    if (build / "html").exists():
        shutil.copy2(pdf, build / "html" / "dpnotes.pdf")
    print(f"\n{pdf} ({pdfbook.pdf_pages(pdf)} pages) in {time.perf_counter() - t0:.0f} s")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
