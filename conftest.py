"""pytest collection of the book's MyST Markdown notebooks through nbval.

nbval only collects ``.ipynb`` files. The chapters are MyST Markdown notebooks
(``.md`` with a jupytext front matter), so this hook hands nbval the notebook
that myst-nb (the book's build) reads from the ``.md`` file, in memory. Each code cell becomes a
test; a failing ``assert`` in a cell fails that test. Since ``.md`` files carry
no stored outputs, the assertions in the cells *are* the tests.

A failing cell's report also names the line of the ``.md`` file where that
code cell starts, so a contributor can jump to it.

The notebooks of one pytest worker run in one kernel, put back to a fresh kernel's state before
each (``DPNOTES_KERNEL_PER_NOTEBOOK=1``: a kernel per notebook).

A notebook whose cells all pass is *staged* with the outputs nbval received
(``tests/nbcache.py``), so that the site build of ``make test`` reuses this
execution instead of running every notebook a second time.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import sys
import time
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))
import nbcache  # noqa: E402
import profiles  # noqa: E402,F401  (loads the Hypothesis profile: fast, or thorough under make verify)

# nbval waits 5 s for a cell's outputs after the kernel replies, then fails the cell:
# too short on a loaded machine (see _ext/dpnotes_build.py for the same trap in the build).
OUTPUT_TIMEOUT = 120
_CODE_CELL = re.compile(r"^(`{3,}|~{3,})\{code-cell\}")


def code_cell_lines(text: str) -> list[int]:
    """1-based line numbers of the ``{code-cell}`` fences of a MyST notebook, in order."""
    return [i for i, line in enumerate(text.splitlines(), start=1) if _CODE_CELL.match(line)]


def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    if not (getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False)):
        return None
    if file_path.suffix != ".md" or "_build" in file_path.parts:
        return None
    if not nbcache.is_myst_notebook(file_path):
        return None
    return MystNotebookFile.from_parent(parent, path=file_path)


def _make_file_class():
    import nbval.plugin as nbval_plugin

    class MystNotebookFile(nbval_plugin.IPyNbFile):
        """An nbval notebook collector that reads a MyST Markdown notebook as the book's build does."""

        def collect(self):
            text = Path(self.path).read_text(encoding="utf-8")
            nb = nbcache.read_notebook(Path(self.path))
            lines = code_cell_lines(text)
            self.executed = {"nb": nb, "outputs": {}, "seconds": 0.0, "failed": False, "cells": 0}
            real = nbval_plugin.nbformat
            nbval_plugin.nbformat = types.SimpleNamespace(read=lambda *a, **k: nb)
            try:
                for i, item in enumerate(super().collect()):
                    item.md_line = lines[i] if i < len(lines) else None
                    item.output_timeout = OUTPUT_TIMEOUT
                    self.executed["cells"] += 1
                    yield item
            finally:
                nbval_plugin.nbformat = real

        def setup(self):
            t0 = time.perf_counter()
            kernel = _SHARED.get("kernel")
            if os.environ.get("DPNOTES_KERNEL_PER_NOTEBOOK"):
                super().setup()
                self.executed["seconds"] += time.perf_counter() - t0
                return
            if kernel is not None and kernel.is_alive():
                self.kernel = kernel
                self.setup_sanitize_files()
            else:
                super().setup()
                _SHARED["kernel"] = self.kernel
            # every notebook starts from the fresh kernel's state, the first one included (which
            # records that state): the reset the book's build uses between notebooks
            _run_fresh_cell(self.kernel, str(Path(self.path).parent))
            self.executed["seconds"] += time.perf_counter() - t0

        def teardown(self):
            # the kernel stays for the next notebook on this worker, unless this one timed out or
            # left it dead: then the next notebook starts a kernel of its own
            if (os.environ.get("DPNOTES_KERNEL_PER_NOTEBOOK") or self.timed_out
                    or not (self.kernel is not None and self.kernel.is_alive())):
                _SHARED.pop("kernel", None)
                super().teardown()

    return MystNotebookFile


# One kernel per pytest worker, reused from notebook to notebook: starting a kernel and importing
# numpy, scipy, matplotlib and sympy cost about two seconds of each chapter (29 of them), which
# make book already saves the same way (tests/nbcache.py). Before each notebook the kernel runs
# nbcache's reset (the user namespace, figures, rcParams, numpy's print and error settings, the
# random states, mpmath's precision, warning filters, sys.path, the environment and the working
# directory put back as a fresh kernel has them); tests/test_harness.py checks that reset.
# DPNOTES_KERNEL_PER_NOTEBOOK=1 gives each notebook a kernel of its own instead: the strict check
# that no page leans on state the reset does not cover (a module-level cache of dpnotes, say).
_SHARED: dict = {}
FRESH_TIMEOUT = 120


def _run_fresh_cell(kernel, cwd: str) -> None:
    msg_id = kernel.execute_cell_input(nbcache._FRESH_CELL.format(cwd=cwd), allow_stdin=False)
    while True:
        reply = kernel.get_message(stream="shell", timeout=FRESH_TIMEOUT)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    kernel.await_idle(msg_id, FRESH_TIMEOUT)
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"the reset before a notebook failed: {reply['content'].get('evalue')}")


def pytest_sessionfinish(session, exitstatus):
    kernel = _SHARED.pop("kernel", None)
    if kernel is not None and kernel.is_alive():
        kernel.stop()


MystNotebookFile = _make_file_class()


def _record_execution(item, report) -> None:
    """Keep a passing cell's outputs; stage the notebook once all its cells have passed."""
    state = getattr(item.parent, "executed", None)
    if state is None or report.when != "call":
        return
    state["seconds"] += report.duration
    if not report.passed or state["failed"] or item.test_outputs is None:
        state["failed"] = True
        return
    state["outputs"][item.cell_num] = item.test_outputs
    if len(state["outputs"]) == state["cells"] and Path(item.parent.path).resolve().is_relative_to(ROOT):
        nb = nbcache.with_outputs(state["nb"], state["outputs"])
        nbcache.stage(Path(item.parent.path), nb, state["seconds"])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    _record_execution(item, report)
    line = getattr(item, "md_line", None)
    if report.failed and line is not None:
        path = Path(item.path)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        report.sections.append(("MyST source", f"the failing code cell starts at {shown}:{line}"))


@pytest.fixture
def raises_exactly():
    """``with raises_exactly("epsilon must be > 0, got -1"): f(-1)``: the call raises a ``ValueError``
    whose message is exactly that text (``pytest.raises(match=...)`` alone accepts any message that
    merely contains a regex, so a message that lost its range or value would still pass)."""

    def expect(message: str, exception: type[BaseException] = ValueError):
        return pytest.raises(exception, match="^" + re.escape(message) + "$")

    return expect


def pytest_collection_modifyitems(config, items):
    """Under mutmut, ``mutants/dpnotes/`` holds a copy of a function for every one of its mutants,
    each with the function's docstring, so ``--doctest-modules`` collected each doctest once per
    mutant: 6,767 of the 7,798 tests of a run, 402 of its 495 seconds. They only repeat the real
    function's doctest (which calls the function by its public name), so they are dropped."""
    items[:] = [item for item in items if "__mutmut_" not in item.nodeid]
    if "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", ""):
        items[:] = fastest_first(items, _mutmut_durations())


def fastest_first(items: list, durations: dict[str, float]) -> list:
    """The items ordered by their recorded duration, shortest first, ties in their given order;
    an item with no record goes last.

    mutmut runs each mutant's tests with ``-x`` (stop at the first failure) but in the order of a
    Python set, so a mutant that one 0.05 s test kills could wait behind 100 s of slower tests that
    call the same function (the accountant's mutants have 80 such tests). Fastest first, a killed
    mutant costs about its cheapest killing test; a survivor still runs them all."""
    return sorted(items, key=lambda item: durations.get(item.nodeid, math.inf))


def _mutmut_durations() -> dict[str, float]:
    """The test durations mutmut recorded (``mutants/mutmut-stats.json``; this file is copied there)."""
    global _DURATIONS
    if _DURATIONS is None:
        try:
            _DURATIONS = json.loads((ROOT / "mutmut-stats.json").read_text())["duration_by_test"]
        except (OSError, ValueError, KeyError):
            _DURATIONS = {}
    return _DURATIONS


_DURATIONS: dict[str, float] | None = None


# Under a mutant, a test that runs past MUTANT_TIME_FACTOR times its recorded duration plus
# MUTANT_TIME_SLACK seconds is stopped and fails, so the mutant counts as killed, as mutmut's own
# timeout would count it. mutmut waits 2 x 15 times the estimated time of all the mutant's tests
# before it stops one: a discrete mutant that turns a rejection loop infinite held a worker for
# about 25 minutes, and 73 of them were left unchecked. The loop shows in its first test, which is
# usually one of the fast ones (fastest_first).
MUTANT_TIME_FACTOR, MUTANT_TIME_SLACK = 10.0, 10.0


class MutantTimeout(BaseException):
    """Raised in a test that ran past its limit under a mutant. A BaseException, so that neither a
    test's ``except Exception`` nor Hypothesis (which shrinks on Exception) swallows or repeats it."""


def mutant_time_limit(nodeid: str) -> float | None:
    """Seconds a test may run under a mutant, or None: not under a mutant, or no recorded duration."""
    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return None
    recorded = _mutmut_durations().get(nodeid)
    return None if recorded is None else MUTANT_TIME_FACTOR * recorded + MUTANT_TIME_SLACK


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = mutant_time_limit(item.nodeid)
    if limit is None:
        yield
        return

    def stop(signum, frame):
        raise MutantTimeout(f"{item.nodeid} ran past {limit:.1f} s under {os.environ['MUTANT_UNDER_TEST']} "
                            f"({MUTANT_TIME_FACTOR:g} x its recorded duration + {MUTANT_TIME_SLACK:g} s)")

    old = signal.signal(signal.SIGALRM, stop)
    # then again every second, should something catch the first one
    signal.setitimer(signal.ITIMER_REAL, limit, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
