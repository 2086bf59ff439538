"""Binder, end to end: a chapter runs as a notebook in the environment ``binder/`` describes.

What Binder (repo2docker) does with this repository: install ``binder/requirements.txt``
from the repository's root (its ``-e .`` line installs ``dpnotes``), run ``binder/postBuild``,
start JupyterLab. This test does the same in a fresh virtual environment that has nothing
but those requirements (not the book's toolchain), with Jupyter's configuration kept in
that environment; then it opens a chapter's ``.md`` file in JupyterLab in headless
Chromium, checks that it opens *as a notebook* (the jupytext viewer ``postBuild`` sets),
runs all cells, and checks that every code cell ran and none printed a traceback.

The environment is kept in ``.cache/binder-env`` and rebuilt when ``binder/`` or
``pyproject.toml`` changes. JupyterLab serves a copy of ``chapters/`` and ``data/``: it
saves what it opens (jupytext would rewrite the chapter's front matter).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import sitecheck

ROOT = Path(__file__).resolve().parents[1]
ENV = ROOT / ".cache" / "binder-env"
CHAPTER = "chapters/definition/definition.md"

pytestmark = [pytest.mark.site, pytest.mark.binder]


def _binder_hash() -> str:
    h = hashlib.sha256()
    for p in sorted((ROOT / "binder").iterdir()) + [ROOT / "pyproject.toml"]:
        h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()[:16]


def _jupyter_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "JUPYTER"))}
    env["PATH"] = f"{ENV / 'venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["JUPYTER_CONFIG_DIR"] = str(ENV / "config")
    env["JUPYTER_DATA_DIR"] = str(ENV / "data")
    env["JUPYTER_RUNTIME_DIR"] = str(ENV / "runtime")
    env["IPYTHONDIR"] = str(ENV / "ipython")
    env["MPLCONFIGDIR"] = str(ENV / "mpl")
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    return env


def _run(cmd, env, **kw):
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} failed:\n{(res.stdout + res.stderr)[-3000:]}", pytrace=False)
    return res


def ensure_env() -> dict:
    """Build the environment unless the stamp says it is current; the Jupyter environment variables.

    One builder at a time (``sitecheck.exclusive``, a lock beside the folder): ``make test``
    starts this in the background before pass 1 (``python tests/test_binder.py``), since pip spends
    most of its minute waiting on the package index, not on a core; the fixture then waits for that
    build, or does it itself if it failed."""
    with sitecheck.exclusive(ENV):
        stamp = ENV / "stamp"
        env = _jupyter_env()
        if not (stamp.exists() and stamp.read_text() == _binder_hash()):
            shutil.rmtree(ENV, ignore_errors=True)
            ENV.mkdir(parents=True)
            _run([sys.executable, "-m", "venv", str(ENV / "venv")], env)
            # no bytecode compiled at install: what JupyterLab and the kernel import is compiled then
            _run([str(ENV / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-compile", "-r",
                  "binder/requirements.txt"], env, timeout=1800)
            _run(["bash", "binder/postBuild"], env, timeout=600)
            stamp.write_text(_binder_hash())
    return env


@pytest.fixture(scope="module")
def binder_env() -> dict:
    """A virtual environment built from binder/ as repo2docker builds it (cached)."""
    return ensure_env()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _copy_of_the_book() -> Path:
    """The folders a reader opens in Binder, copied, so that JupyterLab's saving cannot touch the book."""
    repo = ENV / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    for name in ("chapters", "data"):
        shutil.copytree(ROOT / name, repo / name)
    return repo


@contextlib.contextmanager
def jupyter_lab(env: dict):
    port, token = _free_port(), secrets.token_hex(16)
    repo = _copy_of_the_book()
    # a reader's Binder starts with no saved layout; one left by an earlier run (say, one stopped
    # while a cell was running) would be restored here and could change what this run sees
    shutil.rmtree(ENV / "config" / "lab" / "workspaces", ignore_errors=True)
    log = open(ENV / "jupyterlab.log", "w")
    proc = subprocess.Popen(
        [str(ENV / "venv" / "bin" / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={repo}", "--ServerApp.open_browser=False",
         "--LabApp.news_url=None", "--allow-root", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         # window.jupyterapp: the test drives JupyterLab by its command registry and reads its notebook model
         "--LabApp.expose_app_in_browser=True"],
        cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail("JupyterLab did not start:\n" + (ENV / "jupyterlab.log").read_text()[-3000:],
                            pytrace=False)
            time.sleep(0.5)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_postbuild_makes_markdown_open_as_notebooks(binder_env):
    overrides = ENV / "config" / "labconfig" / "default_setting_overrides.json"
    assert overrides.exists(), "binder/postBuild wrote no JupyterLab setting"
    settings = json.loads(overrides.read_text())
    viewers = settings["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers.get("markdown") == "Jupytext Notebook", viewers
    assert settings["@jupyterlab/notebook-extension:tracker"]["autoStartDefaultKernel"] is True


# JupyterLab is driven through its own objects (``window.jupyterapp``, exposed by
# --LabApp.expose_app_in_browser), never through what it draws: JupyterLab 4 renders a long
# notebook's cells only near the viewport, so counting execution prompts in the page missed
# cells that had run, and a run that had finished looked unfinished until the timeout (seen
# under load: "Run All Cells" never finished, with the screenshot showing every cell run).
_NOTEBOOK_READY = """
() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
        const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
        return !!(w && w.content && w.content.model && w.context && w.context.isReady
                  && w.sessionContext.isReady && k && k.status === 'idle'); }
"""
# every code cell of the model: its execution count and its error outputs; and the kernel's state
_CELLS = """
() => { const w = window.jupyterapp.shell.currentWidget, cells = w.content.model.cells, out = [];
        for (let i = 0; i < cells.length; i++) {
          const c = cells.get(i);
          if (c.type !== 'code') continue;
          const errors = [];
          for (let j = 0; j < c.outputs.length; j++) {
            const o = c.outputs.get(j).toJSON();
            if (o.output_type === 'error') errors.push(`${o.ename}: ${o.evalue}\\n${(o.traceback || []).join('\\n')}`);
          }
          out.push({index: i, count: c.executionCount, errors: errors,
                    source: c.sharedModel.getSource().split('\\n')[0].slice(0, 80)});
        }
        const k = w.sessionContext.session && w.sessionContext.session.kernel;
        return {cells: out, kernel: k ? k.status : 'none',
                rendered_prompts: document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt').length}; }
"""
_RUN_ALL = """
async () => { const app = window.jupyterapp, w = app.shell.currentWidget;
              app.shell.activateById(w.id);
              if (!app.commands.isEnabled('notebook:run-all-cells')) return 'notebook:run-all-cells is not enabled';
              app.commands.execute('notebook:run-all-cells');  // not awaited: the test polls the model
              return null; }
"""
# done: every code cell has run and the kernel is idle again, or a cell failed (Run All stops there)
_DONE = """
(n) => { const w = window.jupyterapp.shell.currentWidget, cells = w.content.model.cells;
         let code = 0, ran = 0, failed = false;
         for (let i = 0; i < cells.length; i++) {
           const c = cells.get(i);
           if (c.type !== 'code') continue;
           code += 1;
           if (c.executionCount !== null) ran += 1;
           for (let j = 0; j < c.outputs.length; j++) if (c.outputs.get(j).type === 'error') failed = true;
         }
         const k = w.sessionContext.session && w.sessionContext.session.kernel;
         return failed || (code === n && ran === n && k && k.status === 'idle'); }
"""


def _diagnosis(page, what: str) -> str:
    """Which cells ran, the kernel's state and the end of JupyterLab's log, for a failure message."""
    lines = [what]
    try:
        state = page.evaluate(_CELLS)
        ran = [c for c in state["cells"] if c["count"] is not None]
        lines.append(f"kernel {state['kernel']}; {len(ran)} of {len(state['cells'])} code cells ran "
                     f"({state['rendered_prompts']} drawn on screen); cells (notebook index: count, first line):")
        lines += [f"  [{c['index']}] {c['count']}: {c['source']}" + (" ERROR" if c["errors"] else "")
                  for c in state["cells"]]
    except Exception as exc:  # the page itself may be the problem
        lines.append(f"(the notebook's state could not be read: {exc!r})"[:300])
    page.screenshot(path=str(ENV / "failure.png"), full_page=True)
    log = (ENV / "jupyterlab.log").read_text(errors="replace").splitlines()
    lines += [f"screenshot: {ENV / 'failure.png'}", f"JupyterLab log ({ENV / 'jupyterlab.log'}), last 40 lines:"]
    lines += log[-40:]
    return "\n".join(lines)


def test_a_chapter_runs_as_a_notebook_in_jupyterlab(binder_env):
    chromium = sitecheck.find_chromium()
    assert chromium, "this test needs headless Chromium (see make prereqs)"
    from playwright.sync_api import sync_playwright

    before = (ROOT / CHAPTER).read_bytes()
    n_code_cells = sum(1 for line in (ROOT / CHAPTER).read_text().splitlines()
                       if re.match(r"^(`{3,}|~{3,})\{code-cell\}", line))
    with jupyter_lab(binder_env) as (base, token), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=sitecheck.CHROMIUM_FLAGS)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
        page = ctx.new_page()
        step, failure = "opening the chapter", None
        try:
            page.goto(f"{base}/lab/tree/{CHAPTER}?token={token}", timeout=180_000)
            # opened by the jupytext viewer as a notebook, not as a Markdown text file
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=180_000)
            step = "waiting for the notebook's kernel to start and be idle"
            # the kernel starts by itself (postBuild): a reader is not asked to pick one
            page.wait_for_function(_NOTEBOOK_READY, timeout=180_000)
            assert page.query_selector(".jp-Dialog") is None, "JupyterLab asks the reader to select a kernel"
            step = "looking at the Markdown cells"
            # MyST Markdown is rendered (jupyterlab-myst), not shown as raw directives
            page.wait_for_selector(".jp-MarkdownCell .jp-RenderedMarkdown, .jp-MarkdownCell .myst", timeout=60_000)
            raw = page.eval_on_selector_all(".jp-MarkdownCell", "els => els.map(e => e.innerText)"
                                            ".filter(t => t.includes(':::{admonition}'))")
            assert not raw, f"MyST directives shown as raw text in JupyterLab: {raw[0][:200]!r}"
            step = "running all cells (notebook:run-all-cells)"
            refused = page.evaluate(_RUN_ALL)
            assert refused is None, refused
            page.wait_for_function(_DONE, arg=n_code_cells, timeout=300_000, polling=500)
            state = page.evaluate(_CELLS)
        except Exception as exc:
            failure = _diagnosis(page, f"{step} failed: {exc}"[:2000])
        finally:
            browser.close()
    if failure:
        pytest.fail(failure, pytrace=False)
    assert (ROOT / CHAPTER).read_bytes() == before, "JupyterLab changed the book's own chapter file"
    errors = [e for c in state["cells"] for e in c["errors"]]
    assert not errors, f"a cell of {CHAPTER} failed in the Binder environment:\n{errors[0][-3000:]}"
    counts = [c["count"] for c in state["cells"]]
    assert len(counts) == n_code_cells, (len(counts), n_code_cells)
    assert counts == list(range(1, n_code_cells + 1)), f"cells that did not run in order: {counts}"


if __name__ == "__main__":
    ensure_env()
