"""Execute each chapter once: notebooks run by the tests (nbval) or in parallel, reused by the site build.

The book's pages are MyST notebooks. ``make test`` runs every one of them through nbval (each
code cell a test) and then builds the site, which would execute every notebook a second time.
Instead, ``conftest.py`` *stages* each notebook that nbval ran without a failure, with the
outputs nbval received from the kernel, and the site build starts from a Jupyter cache seeded
with the staged notebooks (``seed_cache``), and ``execute_missing`` runs in parallel the
notebooks the cache still lacks. ``make book`` (``scripts/book.py``) lists those with
``uncached`` and runs them with ``execute`` while Sphinx reads the other pages.

A staged notebook is reused only if

* its code cells are unchanged: the Jupyter cache matches a notebook by a hash of its code
  cells and kernelspec, exactly as the build looks notebooks up, and
* nothing else its outputs depend on has changed since it ran: the staging records a
  fingerprint of ``dpnotes/``, ``data/``, the pages' ``.json`` data files, ``requirements.txt`` and
  ``pyproject.toml``.

Otherwise the build executes the notebook itself, as it always did.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGE = ROOT / "_build" / "executed"
EXECUTION_TIMEOUT = 600  # seconds per cell, as generous as the build's own setting

# One BLAS thread per kernel. The build already runs one kernel per core, and two kernels whose
# OpenBLAS each start a thread per core spin against each other: on 2 cores the cold build's
# execution took 41.2 s with the default and 31.6 s with one thread. It also makes the figures the
# same on every machine: the rkhs-kde and function-space images differed in their pixels between
# the two settings (a matrix product sums in another order with another thread count). A value
# the user exported is kept.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def kernel_env() -> dict[str, str]:
    """The environment a chapter's kernel starts with: ours, with :data:`BLAS_THREADS` as defaults."""
    return {**BLAS_THREADS, **os.environ}


def fingerprint(root: Path = ROOT) -> str:
    """A hash of everything besides a notebook's own cells that its outputs depend on."""
    h = hashlib.sha256()
    # the data files pages read beside themselves (the accountant's box and truths, the auditing
    # tables) count too: a rerun benchmark must re-execute the page that shows it
    files = sorted([*root.glob("dpnotes/**/*.py"), *(p for p in root.glob("data/**/*") if p.is_file()),
                    *root.glob("chapters/**/*.json"), root / "requirements.txt", root / "pyproject.toml"])
    for path in files:
        if path.exists():
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def read_notebook(path: Path):
    """Read a MyST notebook exactly as the book's build (myst-nb) reads it."""
    from myst_nb.core.read import myst_nb_reader_plugin

    return myst_nb_reader_plugin(str(path))


def is_myst_notebook(path: Path) -> bool:
    from myst_nb.core.read import is_myst_markdown_notebook

    return is_myst_markdown_notebook(Path(path).read_text(encoding="utf-8"))


def toc_notebooks(root: Path = ROOT) -> list[Path]:
    """The MyST notebooks of the book, in the order of ``_toc.yml``."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                files.append(e["file"])
            walk(e.get("sections"))
            walk(e.get("chapters"))

    walk(toc.get("parts"))
    walk(toc.get("chapters"))
    paths = [root / f"{f}.md" for f in files]
    return [p for p in paths if p.exists() and is_myst_notebook(p)]


def _staged_paths(path: Path, root: Path) -> tuple[Path, Path]:
    rel = Path(path).resolve().relative_to(root)
    base = STAGE if root == ROOT else root / "_build" / "executed"
    return base / rel.with_suffix(".ipynb"), base / rel.with_suffix(".json")


def stage(path: Path, nb, seconds: float, root: Path = ROOT) -> Path:
    """Keep an executed notebook (a copy of ``read_notebook(path)`` with outputs) for the site build."""
    import nbformat

    out, meta = _staged_paths(path, root)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(out))
    meta.write_text(json.dumps({"fingerprint": fingerprint(root), "seconds": seconds,
                                "source": str(Path(path).resolve().relative_to(root))}))
    return out


def staged(path: Path, current: str, root: Path = ROOT) -> bool:
    """Whether nbval kept an execution of the notebook at ``path`` made with the dpnotes whose
    :func:`fingerprint` is ``current`` (a record still being written counts as absent)."""
    out, meta = _staged_paths(path, root)
    try:
        return out.exists() and json.loads(meta.read_text()).get("fingerprint") == current
    except (OSError, ValueError):
        return False


def wait_for_staged(paths: list[Path], until: Path, root: Path = ROOT, poll: float = 2.0) -> list[Path]:
    """Wait until every notebook of ``paths`` is :func:`staged` or the file ``until`` exists; return
    the notebooks still missing (the build executes those itself).

    make test starts the site pass beside pass 1, which runs the chapters first: the build waits
    for their executions instead of running them a second time, and pass 1 touches ``until`` when
    it ends, so a chapter that failed (and was not kept) does not hold the build forever."""
    current = fingerprint(root)
    while True:
        missing = [p for p in paths if not staged(p, current, root)]
        if not missing or until.exists():
            return missing
        time.sleep(poll)


def with_outputs(nb, outputs_by_cell: dict[int, list]) -> object:
    """A copy of ``nb`` whose i-th code cell carries ``outputs_by_cell[i]``."""
    import nbformat

    nb = copy.deepcopy(nb)
    for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        cell.outputs = [nbformat.from_dict(dict(o)) for o in outputs_by_cell.get(i, [])]
    return number_cells(nb)


def number_cells(nb):
    """Execution counts 1, 2, ... on the code cells (and their results), as one kernel per notebook gives."""
    number = 0
    for cell in nb.cells:
        if cell.cell_type == "code":
            number += 1
            cell.execution_count = number
            for out in cell.outputs:
                if "execution_count" in out:
                    out.execution_count = number
    return nb


def seed_cache(cache_dir: Path, root: Path = ROOT) -> list[str]:
    """Put every valid staged notebook into the Jupyter cache at ``cache_dir``; return their sources."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    base = STAGE if root == ROOT else root / "_build" / "executed"
    if not base.exists():
        return []
    current = fingerprint(root)
    cache = get_cache(str(cache_dir))
    seeded = []
    for meta_path in sorted(base.rglob("*.json")):
        meta = json.loads(meta_path.read_text())
        source = root / meta["source"]
        nb_path = meta_path.with_suffix(".ipynb")
        if meta.get("fingerprint") != current or not source.exists() or not nb_path.exists():
            continue
        nb = nbformat.read(str(nb_path), as_version=4)
        cache.cache_notebook_bundle(CacheBundleIn(nb, str(source), data={"execution_seconds": meta["seconds"]}),
                                    check_validity=False, overwrite=True)
        seeded.append(meta["source"])
    return seeded


# A reused kernel runs this first, before each notebook: the user namespace and the global
# state a page could change (figures, matplotlib's rcParams, numpy's print and error
# settings, the global random states, mpmath's precision, warning filters and the registries
# of warnings already shown, sys.path, the environment, the working directory) are put back
# as they were when the kernel was fresh, after importing pyplot as every chapter does.
_FRESH_CELL = """\
%reset -f
def _dpnotes_fresh(cwd):
    import os, random, sys, types, warnings
    import matplotlib, matplotlib.pyplot, mpmath, numpy
    state = sys.modules.get("_dpnotes_fresh_state")
    if state is None:
        state = types.ModuleType("_dpnotes_fresh_state")
        state.rc = dict(matplotlib.rcParams)
        state.printoptions, state.err = numpy.get_printoptions(), numpy.geterr()
        state.np_random, state.random = numpy.random.get_state(), random.getstate()
        state.prec, state.filters = mpmath.mp.prec, list(warnings.filters)
        state.path, state.environ = list(sys.path), dict(os.environ)
        sys.modules["_dpnotes_fresh_state"] = state
    matplotlib.pyplot.close("all")
    dict.update(matplotlib.rcParams, state.rc)
    numpy.set_printoptions(**state.printoptions)
    numpy.seterr(**state.err)
    numpy.random.set_state(state.np_random)
    random.setstate(state.random)
    mpmath.mp.prec = state.prec
    warnings.filters[:] = state.filters
    warnings._filters_mutated()
    sys.path[:] = state.path
    os.environ.clear()
    os.environ.update(state.environ)
    os.chdir(cwd)
_dpnotes_fresh({cwd!r})
del _dpnotes_fresh
"""


class _Kernel:
    """One kernel that executes notebooks one after another, reset in between (``_FRESH_CELL``).

    Starting a kernel and importing numpy, scipy.stats, matplotlib and sympy cost about two
    seconds of a chapter's five; a kernel per worker instead of per notebook saves a third
    of the cold build. ``make test`` reuses nbval's kernel the same way (``conftest.py``), with
    this reset; ``DPNOTES_KERNEL_PER_NOTEBOOK=1`` gives every chapter a kernel of its own there."""

    def __init__(self, timeout: int):
        self.timeout, self.km, self.kc = timeout, None, None

    def execute(self, path: str) -> tuple[object, float, str | None]:
        import nbformat
        from nbclient import NotebookClient

        configure_nbclient()
        nb = read_notebook(Path(path))
        cwd = str(Path(path).parent)
        run = copy.deepcopy(nb)
        run.cells.insert(0, nbformat.v4.new_code_cell(_FRESH_CELL.format(cwd=cwd)))
        if self.km is None:                    # ours, not the client's: it outlives the notebook
            from jupyter_client.manager import AsyncKernelManager

            self.km = AsyncKernelManager(kernel_name=nb.metadata.get("kernelspec", {}).get("name", "python3"))
        client = NotebookClient(run, km=self.km, timeout=self.timeout, allow_errors=False, record_timing=False,
                                resources={"metadata": {"path": cwd}})
        client.kc = self.kc
        t0 = time.perf_counter()
        err = None
        try:
            client.execute(cwd=cwd, env=kernel_env())
        except Exception as exc:  # noqa: BLE001 - reported to the caller, the build shows the traceback
            err = f"{type(exc).__name__}: {exc}"
        self.kc = client.kc
        secs = time.perf_counter() - t0
        run.cells.pop(0)
        nb.metadata = run.metadata
        nb.cells = run.cells
        return number_cells(nb), secs, err

    def shutdown(self) -> None:
        if self.km is not None and self.km.has_kernel:
            from jupyter_core.utils import run_sync

            if self.kc is not None:
                self.kc.stop_channels()
            run_sync(self.km.shutdown_kernel)(now=True)


def uncached(cache_dir: Path, paths: list[Path]) -> list[Path]:
    """The notebooks of ``paths`` (in their order) whose current source the Jupyter cache lacks."""
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_dir))
    todo = []
    for p in paths:
        try:
            cache.match_cache_notebook(read_notebook(p))
        except KeyError:
            todo.append(Path(p))
    return todo


def execute_missing(cache_dir: Path, paths: list[Path], jobs: int | None = None,
                    timeout: int = EXECUTION_TIMEOUT, log=print, done=None) -> dict[str, str | None]:
    """Execute, ``jobs`` at a time, the notebooks of ``paths`` that the cache lacks, and cache them
    (:func:`execute` on :func:`uncached`)."""
    return execute(cache_dir, uncached(cache_dir, paths), jobs, timeout, log, done)


def execute(cache_dir: Path, paths: list[Path], jobs: int | None = None,
            timeout: int = EXECUTION_TIMEOUT, log=print, done=None) -> dict[str, str | None]:
    """Execute the notebooks ``paths``, ``jobs`` at a time, and cache them.

    Each of ``jobs`` threads drives one kernel (:class:`_Kernel`) through the notebooks it takes
    from a shared queue, in the order of ``paths``. A notebook whose execution fails is not
    cached: the book's build then executes it again and reports the error with its traceback.
    ``done(path)``, if given, is called when a notebook is cached or has failed (and for every
    notebook not executed, should this end early). Returns ``{path: error or None}``.
    """
    import queue
    import threading

    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(cache_dir))
    todo = [str(p) for p in paths]
    jobs = jobs or os.cpu_count() or 2
    results: dict[str, str | None] = {}
    if not todo:
        return results
    log(f"executing {len(todo)} notebook(s), {jobs} at a time")
    t0 = time.perf_counter()
    pending: queue.Queue = queue.Queue()
    for path in todo:                          # source order, as a reader expects in the log
        pending.put(path)
    lock = threading.Lock()

    def worker():
        kernel = _Kernel(timeout)
        try:
            while True:
                try:
                    path = pending.get_nowait()
                except queue.Empty:
                    return
                nb, secs, err = kernel.execute(path)
                if err is not None:            # a fresh kernel for whatever comes next
                    kernel.shutdown()
                    kernel = _Kernel(timeout)
                with lock:
                    rel = os.path.relpath(path, ROOT)
                    results[path] = err
                    if err is None:
                        cache.cache_notebook_bundle(CacheBundleIn(nb, path, data={"execution_seconds": secs}),
                                                    check_validity=False, overwrite=True)
                        log(f"  {rel}: {secs:.1f} s")
                    else:
                        log(f"  {rel}: FAILED ({err.splitlines()[0][:200]}); the build will report it")
                if done is not None:
                    done(path)
        finally:
            kernel.shutdown()

    # daemon threads: Ctrl-C ends the build at once (an orphaned kernel exits with its parent)
    threads = [threading.Thread(target=worker, name=f"nbexec-{i}", daemon=True) for i in range(min(jobs, len(todo)))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        if done is not None:               # whatever was not executed: a waiting build goes on
            for path in set(todo) - set(results):
                done(path)
    log(f"executed in {time.perf_counter() - t0:.1f} s")
    return results


def configure_nbclient() -> None:
    """The build's robust execution settings (see ``_ext/dpnotes_build.py``), for executions run here."""
    import sys

    sys.path.insert(0, str(ROOT / "_ext"))
    from dpnotes_build import configure_nbclient as configure

    configure()
