"""The test harness can fail: a wrong claim in a notebook, a broken reference,
unrendered math and a broken link are each caught.

These tests build throw-away notebooks and books in temporary folders.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import pytest

import sitecheck

ROOT = Path(__file__).resolve().parents[1]
JB = Path(sys.executable).with_name("jupyter-book")

FRONT = textwrap.dedent("""\
    ---
    jupytext:
      text_representation:
        extension: .md
        format_name: myst
        format_version: 0.13
    kernelspec:
      display_name: Python 3
      language: python
      name: python3
    ---
    """)


def run_pytest(path: Path, *more: Path) -> subprocess.CompletedProcess:
    # the root conftest.py is loaded as a plugin, since the notebook lies outside the repository
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "--nbval-lax", "--nbval-current-env",
         "-p", "no:cacheprovider", "--rootdir", str(path.parent), str(path), *map(str, more)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )


def test_a_false_claim_in_a_notebook_fails_and_names_its_line(tmp_path):
    nb = tmp_path / "wrong.md"
    nb.write_text(FRONT + "\n# A page\n\n```{code-cell} ipython3\nimport math\n```\n\nText.\n\n"
                  "```{code-cell} ipython3\nassert math.exp(math.log(3)) == 4, 'e^(log 3) is 3, not 4'\n```\n")
    result = run_pytest(nb)
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert "1 failed, 1 passed" in out, out
    assert "e^(log 3) is 3, not 4" in out
    fence = nb.read_text().splitlines().index("assert math.exp(math.log(3)) == 4, 'e^(log 3) is 3, not 4'")
    assert f"wrong.md:{fence}" in out  # 1-based line of the fence = 0-based index of the line after it


def test_a_true_claim_passes(tmp_path):
    nb = tmp_path / "right.md"
    nb.write_text(FRONT + "\n# A page\n\n```{code-cell} ipython3\nimport math\nassert abs(math.exp(math.log(3)) - 3) < 1e-12\n```\n")
    result = run_pytest(nb)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def _tiny_book(tmp_path: Path, page: str, *, own_mathjax: bool = True) -> Path:
    """A one-page book; with ``own_mathjax`` it serves MathJax itself as the book does (the book's
    extension and setting), else it keeps Sphinx's default, MathJax from a CDN."""
    mathjax = sitecheck.find_mathjax()
    assert mathjax, "the tiny book needs the local MathJax (make test installs it into .cache/mathjax)"
    (tmp_path / "_config.yml").write_text(textwrap.dedent(f"""\
        title: tiny
        only_build_toc_files: true
        execute:
          execute_notebooks: "off"
        parse:
          myst_enable_extensions: [amsmath, dollarmath, colon_fence]
        sphinx:
          extra_extensions: [sphinx_proof]
        """) + (textwrap.indent(textwrap.dedent(f"""\
        local_extensions:
          dpnotes_build: {ROOT / '_ext'}
        config:
          mathjax_path: mathjax/tex-mml-chtml.js
          dpnotes_mathjax_dir: {mathjax}
        """), "  ") if own_mathjax else ""))
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: index\n")
    (tmp_path / "index.md").write_text(page)
    return tmp_path


def _build(book: Path):
    return subprocess.run([str(JB), "build", str(book), "-W", "-n", "--keep-going"],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.site
def test_a_broken_reference_fails_the_build(tmp_path):
    book = _tiny_book(tmp_path, "# Tiny\n\nSee {prf:ref}`thm-that-does-not-exist`.\n")
    result = _build(book)
    assert result.returncode != 0
    assert "thm-that-does-not-exist" in result.stdout + result.stderr


@pytest.mark.site
def test_unparsed_math_passes_w_but_is_caught_in_the_browser(tmp_path):
    # No blank line before $$: MyST leaves the dollars as text and -W says nothing.
    page = "# Tiny\n\nInline $a^2$ is fine.\nBut this display\n$$\nx^2\n$$\nis not.\n"
    book = _tiny_book(tmp_path, page)
    result = _build(book)
    assert result.returncode == 0, result.stdout[-2000:]
    chromium = sitecheck.find_chromium()
    assert chromium, "the browser check needs chromium (see make prereqs)"
    site = book / "_build" / "html"
    results = sitecheck.browser_check(site, [site / "index.html"], chromium=chromium)
    problems = results["index.html"]
    assert any("stray '$'" in p for p in problems), problems
    assert not any("not typeset" in p for p in problems), problems  # the inline math did render
    assert all("stray '$'" in p for p in problems), problems  # nothing else: MathJax came from the book itself


@pytest.mark.site
def test_a_page_that_loads_mathjax_from_a_cdn_fails_the_browser_check(tmp_path):
    """What the book did before it served MathJax itself: offline the math stays raw LaTeX,
    online every reader's page view goes to a third party. Both are reported."""
    book = _tiny_book(tmp_path, "# Tiny\n\nInline $a^2$.\n", own_mathjax=False)
    result = _build(book)
    assert result.returncode == 0, result.stdout[-2000:]
    site = book / "_build" / "html"
    problems = sitecheck.browser_check(site, [site / "index.html"], chromium=sitecheck.find_chromium())["index.html"]
    assert any(p.startswith("request to another host: https://cdn.jsdelivr.net/npm/mathjax@3") for p in problems), problems
    assert "page has math but MathJax did not load" in problems, problems
    assert not (site / "_static" / "mathjax").exists()


@pytest.mark.site
def test_accessibility_and_phone_width_problems_are_caught(tmp_path):
    """axe-core's serious and critical findings fail a page and its lesser ones are only listed;
    at 390 px a wide element fails a page unless it sits in a box that scrolls."""
    chromium, axe = sitecheck.find_chromium(), sitecheck.find_axe()
    assert chromium and axe, "needs chromium and axe-core (make test installs it into .cache/axe)"
    good = ('<!DOCTYPE html><html lang="en"><head><title>t</title><meta name="viewport" '
            'content="width=device-width, initial-scale=1"></head><body><main><h1>Fine</h1>'
            '<div style="overflow-x: auto" tabindex="0"><pre>{}</pre></div>'
            '<img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" alt="A one-pixel image, shown here to test alt text">'
            '</main></body></html>').format("x" * 400)
    bad = ('<!DOCTYPE html><html lang="en"><head><title>t</title><meta name="viewport" '
           'content="width=device-width, initial-scale=1"></head><body><main><h1>Bad</h1>'
           '<p style="color:#bbb;background:#fff">pale text</p><div style="width:900px">too wide</div>'
           '<img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="><h4>skipped heading levels</h4></main></body></html>')
    (tmp_path / "good.html").write_text(good)
    (tmp_path / "bad.html").write_text(bad)
    findings: dict = {}
    results = sitecheck.browser_check(tmp_path, chromium=chromium, axe=axe, findings=findings)
    assert results["good.html"] == [], results["good.html"]
    problems = "\n".join(results["bad.html"])
    assert "accessibility (critical): image-alt" in problems, problems
    assert "accessibility (serious): color-contrast" in problems, problems
    assert "scrolls sideways at 390 px" in problems and "div" in problems and "too wide" in problems, problems
    assert [v["id"] for v in findings["bad.html"]] == ["heading-order"], findings  # moderate: listed only
    report = sitecheck.a11y_report(findings, 2)
    assert "## heading-order (moderate)" in report and "bad.html" in report


def test_alt_text_check_names_each_figure_without_a_description(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "p.html").write_text(
        '<header><img alt="Binder logo" src="logo_binder.svg"></header><article class="bd-article">'
        '<figure id="fig-a"><img alt="../../_images/95314c5a0b1c2d3e4f5a6b7c.png" src="../../_images/95314c5a.png"></figure>'
        '<figure id="fig-b"><img src="b.png"></figure><figure id="fig-c"><img alt="A plot" src="c.png"></figure>'
        '<figure id="fig-d"><img alt="Three curves of delta against epsilon, falling from 1 to 0.02." src="d.png">'
        '</figure><img alt="" src="e.png"></article>')
    problems = sitecheck.check_alt_text(tmp_path)
    assert len(problems) == 4, problems
    assert problems[0].startswith("chapters/p.html: figure 'fig-a'") and "file name" in problems[0]
    assert "figure 'fig-b'" in problems[1] and "no alt text" in problems[1]
    assert "figure 'fig-c'" in problems[2] and "too short" in problems[2]
    assert "image 5 (not in a figure)" in problems[3]


def test_stderr_check_names_each_page_that_shows_a_warning(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "ok.html").write_text(
        '<div class="output stream highlight-myst-ansi notranslate"><pre>0.25</pre></div>')
    (tmp_path / "chapters" / "warn.html").write_text(
        '<div class="output stream highlight-myst-ansi notranslate"><pre>1</pre></div>'
        '<div class="output stderr highlight-myst-ansi notranslate"><div class="highlight"><pre><span></span>'
        '/tmp/ipykernel_1/2.py:8: RuntimeWarning: divide by zero &amp; more\n  x = a / b</pre></div>'
        '<div class="output traceback highlight-ipythontb notranslate"><pre>ValueError: sigma</pre></div>')
    problems = sitecheck.check_cell_stderr(tmp_path)
    assert problems == ["chapters/warn.html: stderr output: /tmp/ipykernel_1/2.py:8: RuntimeWarning: divide by "
                        "zero & more", "chapters/warn.html: traceback output: ValueError: sigma"], problems


def test_link_checker_reports_missing_files_and_fragments(tmp_path):
    (tmp_path / "a.html").write_text('<p id="top"><a href="b.html#nowhere">x</a> <a href="c.html">y</a>'
                                     '<a href="#top">z</a> <img src="fig.png"> <a href="https://example.org/">ext</a></p>')
    (tmp_path / "b.html").write_text('<h1 id="here">b</h1>')
    problems = sitecheck.check_links(tmp_path)
    assert any("b.html#nowhere" in p and "no element with id 'nowhere'" in p for p in problems)
    assert any("c.html" in p and "missing file" in p for p in problems)
    assert any("fig.png" in p for p in problems)
    assert not any("#top" in p or "example.org" in p for p in problems)
    assert len(problems) == 3


@pytest.mark.site
def test_redirect_stub_is_followed_statically(tmp_path):
    (tmp_path / "index.html").write_text('<html><head><meta http-equiv="Refresh" content="0; url=gone.html" />'
                                         '</head></html>')
    assert sitecheck.redirect_target(tmp_path / "index.html") == "gone.html"
    chromium = sitecheck.find_chromium()
    assert chromium, "the browser check needs chromium (see make prereqs)"
    results = sitecheck.browser_check(tmp_path, chromium=chromium)
    assert results == {"index.html": ["redirect to missing page 'gone.html'"]}
    (tmp_path / "gone.html").write_text("<html><body><main><p>here</p></main></body></html>")
    results = sitecheck.browser_check(tmp_path, chromium=chromium, workers=2)  # shared between two browsers
    assert results == {"gone.html": [], "index.html": []}


def test_a_failed_build_reports_each_warning_with_its_traceback(tmp_path):
    import test_site

    log = ("reading sources... [ 50%] chapters/x\n"
           "/book/chapters/x.md: WARNING: Executing notebook failed: CellTimeoutError [mystnb.exec]\n"
           "Traceback (most recent call last):\n  File \"nbclient/client.py\", line 1, in run\n"
           "nbclient.exceptions.CellTimeoutError: Timeout waiting for IOPub output\n"
           "/book/chapters/y.md:12: WARNING: glue target not found: 'recon-n' [mystnb.glue]\n"
           "writing output... [100%] intro\n")
    text = test_site.build_problems(log, tmp_path)
    assert "Executing notebook failed" in text and "Timeout waiting for IOPub output" in text
    assert "glue target not found" in text
    assert "writing output" not in text and "reading sources" not in text


def test_staged_notebooks_are_reused_only_while_nothing_they_depend_on_changed(tmp_path):
    import nbcache

    (tmp_path / "dpnotes").mkdir()
    (tmp_path / "dpnotes" / "m.py").write_text("X = 1\n")
    (tmp_path / "requirements.txt").write_text("numpy\n")
    (tmp_path / "pyproject.toml").write_text("")
    page = tmp_path / "page.md"
    page.write_text(FRONT + "\n# A page\n\n```{code-cell} ipython3\nprint(1)\n```\n")
    nb = nbcache.read_notebook(page)
    staged = nbcache.with_outputs(nb, {0: [{"output_type": "stream", "name": "stdout", "text": "1\n"}]})
    nbcache.stage(page, staged, 0.5, root=tmp_path)
    assert nbcache.seed_cache(tmp_path / "cache1", root=tmp_path) == ["page.md"]
    (tmp_path / "dpnotes" / "m.py").write_text("X = 2\n")  # the package changed since nbval ran
    assert nbcache.seed_cache(tmp_path / "cache2", root=tmp_path) == []
    nbcache.stage(page, staged, 0.5, root=tmp_path)
    assert nbcache.seed_cache(tmp_path / "cache3", root=tmp_path) == ["page.md"]
    (tmp_path / "chapters" / "part").mkdir(parents=True)      # a data file a page reads, rewritten
    (tmp_path / "chapters" / "part" / "table.json").write_text("{}\n")
    assert nbcache.seed_cache(tmp_path / "cache4", root=tmp_path) == []


def test_the_site_build_waits_for_every_chapter_or_for_the_end_of_pass_1(tmp_path):
    """make test starts the site beside the unit tests: its build waits until nbval has kept every
    chapter (with the current dpnotes), and stops waiting when pass 1 ends, naming the chapters
    that never came (a failed one), which the build then executes itself."""
    import threading

    import nbcache

    (tmp_path / "dpnotes").mkdir()
    (tmp_path / "dpnotes" / "m.py").write_text("X = 1\n")
    pages = []
    for name in ("a", "b"):
        page = tmp_path / f"{name}.md"
        page.write_text(FRONT + f"\n# {name}\n\n```{{code-cell}} ipython3\nprint(1)\n```\n")
        pages.append(page)
    nb = nbcache.read_notebook(pages[0])
    done = tmp_path / "pass1.done"
    current = nbcache.fingerprint(tmp_path)
    assert not any(nbcache.staged(p, current, tmp_path) for p in pages)

    def stage_later(page, after):
        threading.Timer(after, nbcache.stage, (page, nb, 0.1), {"root": tmp_path}).start()

    t0 = time.perf_counter()                      # before the timers start: the second record comes
    stage_later(pages[0], 0.05)                   # 0.3 s or more after t0 (a fresh clone's run once
    stage_later(pages[1], 0.3)                    # measured 0.297 s from a t0 taken after them)
    assert nbcache.wait_for_staged(pages, done, tmp_path, poll=0.01) == []
    assert time.perf_counter() - t0 >= 0.25       # it waited for the second one, not only the first
    # a record being written (unreadable) or made with another dpnotes counts as absent
    _, meta = nbcache._staged_paths(pages[1], tmp_path)
    meta.write_text('{"fingerp')
    assert not nbcache.staged(pages[1], current, tmp_path) and nbcache.staged(pages[0], current, tmp_path)
    (tmp_path / "dpnotes" / "m.py").write_text("X = 2\n")
    assert not nbcache.staged(pages[0], nbcache.fingerprint(tmp_path), tmp_path)
    # pass 1 ended: no more waiting, and the missing chapters are named
    threading.Timer(0.2, done.touch).start()
    assert nbcache.wait_for_staged(pages, done, tmp_path, poll=0.01) == pages


def test_a_reused_kernel_starts_each_notebook_as_a_fresh_one_would(tmp_path, monkeypatch):
    """make book runs many notebooks in one kernel; whatever a page changes must not reach the
    next page: its names, numpy's print options, mpmath's precision, rcParams, warning
    filters and the warnings already shown, the working directory. The kernel uses one BLAS
    thread unless the user set a number (one kernel per core already runs)."""
    import nbcache

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert nbcache.kernel_env()["OPENBLAS_NUM_THREADS"] == "1" and nbcache.kernel_env()["OMP_NUM_THREADS"] == "3"

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    # a UserWarning is shown once per place of the code that issues it: here, one module line
    (tmp_path / "a" / "warner.py").write_text("import warnings\n\ndef warn():\n    warnings.warn('shown once per place')\n")
    warn = tmp_path / "a" / "warn.md"
    warn.write_text(FRONT + "\n```{code-cell} ipython3\nimport warner\nwarner.warn()\n```\n")
    first = tmp_path / "a" / "first.md"
    first.write_text(FRONT + textwrap.dedent("""
        ```{code-cell} ipython3
        import os, warnings
        import matplotlib, mpmath, numpy as np
        leaked = 1
        np.set_printoptions(precision=2)
        mpmath.mp.dps = 50
        matplotlib.rcParams["lines.linewidth"] = 9.0
        ```
        ```{code-cell} ipython3
        warnings.simplefilter("ignore")
        os.chdir("..")
        ```
        """))
    second = tmp_path / "b" / "second.md"
    second.write_text(FRONT + textwrap.dedent("""
        ```{code-cell} ipython3
        import os, warnings
        import matplotlib, mpmath, numpy as np
        assert "leaked" not in globals()
        assert np.get_printoptions()["precision"] == 8 and mpmath.mp.dps == 15
        assert matplotlib.rcParams["lines.linewidth"] == 1.5
        assert os.path.basename(os.getcwd()) == "b"
        assert ("ignore", None, Warning, None, 0) not in warnings.filters
        assert os.environ["OPENBLAS_NUM_THREADS"] == "1" and os.environ["OMP_NUM_THREADS"] == "3"
        ```
        """))
    kernel = nbcache._Kernel(timeout=60)
    try:
        runs = [kernel.execute(str(page)) for page in (warn, warn, first, second)]
    finally:
        kernel.shutdown()
    assert [err for _, _, err in runs] == [None] * 4, [err for _, _, err in runs]
    for nb, _, _ in runs[:2]:       # shown on the second run too: the record of shown warnings was reset
        assert "shown once per place" in str(nb.cells[-1].outputs)
    assert [c.execution_count for c in runs[2][0].cells if c.cell_type == "code"] == [1, 2]
    assert kernel.km is not None and not kernel.km.has_kernel


def test_nbval_reuses_one_kernel_and_resets_it_between_notebooks(tmp_path):
    """make test runs the chapters through nbval in one kernel per worker (conftest.py): the second
    notebook sees the same kernel process but none of the first one's names, settings or working
    directory, even after a notebook that failed. (A kernel that dies is not restarted: nbval waits
    for its reply as it did with a kernel per notebook.)"""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    pid = tmp_path / "pid.txt"
    first = tmp_path / "a" / "first.md"
    first.write_text(FRONT + textwrap.dedent(f"""
        ```{{code-cell}} ipython3
        import os
        import numpy as np
        leaked = 1
        np.set_printoptions(precision=2)
        os.chdir("..")
        open({str(pid)!r}, "w").write(str(os.getpid()))
        ```
        """))
    second = tmp_path / "b" / "second.md"
    second.write_text(FRONT + textwrap.dedent(f"""
        ```{{code-cell}} ipython3
        import os
        import numpy as np
        assert "leaked" not in globals()
        assert np.get_printoptions()["precision"] == 8
        assert os.path.basename(os.getcwd()) == "b"
        assert open({str(pid)!r}).read() == str(os.getpid()), "a new kernel was started"
        ```
        """))
    fails = tmp_path / "b" / "third.md"
    fails.write_text(FRONT + "\n```{code-cell} ipython3\nleaked_too = 2\nassert False, 'a failing page'\n```\n")
    after = tmp_path / "b" / "fourth.md"
    after.write_text(FRONT + textwrap.dedent(f"""
        ```{{code-cell}} ipython3
        import os
        assert "leaked_too" not in globals()
        assert open({str(pid)!r}).read() == str(os.getpid())
        ```
        """))
    result = run_pytest(first, second, fails, after)
    out = result.stdout + result.stderr
    assert "1 failed, 3 passed" in out and "a failing page" in out, out


def test_the_book_build_waits_for_late_outputs_instead_of_dropping_them():
    import yaml

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert cfg["sphinx"]["local_extensions"]["dpnotes_build"] == "_ext/"
    sys.path.insert(0, str(ROOT / "_ext"))
    import dpnotes_build
    from nbclient import NotebookClient

    dpnotes_build.configure_nbclient()
    client = NotebookClient(nb=None)
    assert client.iopub_timeout >= 60 and client.raise_on_iopub_timeout and client.startup_timeout >= 300


def test_prerequisites_are_named_in_one_line_with_how_to_get_them(tmp_path):
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}  # nothing on PATH: no chromium, npm, poppler, fonts
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "prereqs.py")], capture_output=True, text=True,
                         env=env, timeout=60)
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "apt-get install chromium npm poppler-utils fonts-noto-cjk" in lines[0]
    assert "playwright install chromium" in lines[0]


def test_sidebar_toggles_are_named_after_their_page():
    """The theme's expand/collapse toggles hold only an icon; the book's extension names each one,
    whether the theme hands over the navigation as HTML text or as a BeautifulSoup tree."""
    sys.path.insert(0, str(ROOT / "_ext"))
    import dpnotes_build
    from bs4 import BeautifulSoup

    nav = ('<li class="toctree-l1 has-children"><a class="reference internal" href="e.html">Errata &amp; more</a>'
           '<details><summary><span class="toctree-toggle" role="presentation"><i></i></span></summary><ul></ul>'
           '</details></li><li><a class="reference internal" href="x.html">Plain</a></li>')
    text = dpnotes_build.label_toggles(nav)
    assert '<summary aria-label="Sections of Errata &amp; more">' in text and text.count("aria-label") == 1
    soup = dpnotes_build.label_toggles(BeautifulSoup(nav, "html.parser"))
    assert [s["aria-label"] for s in soup.select("summary")] == ["Sections of Errata & more"]


def _build_extension():
    sys.path.insert(0, str(ROOT / "_ext"))
    import dpnotes_build

    return dpnotes_build


def test_the_build_reads_other_pages_first_then_chapters_as_they_are_executed(tmp_path, monkeypatch):
    """make book reads the pages while the chapters are executed (_ext/dpnotes_build.py, item 7):
    the chapters being executed are read last, in the kernels' order, each once its marker
    exists; without DPNOTES_EXECUTING nothing changes."""
    import json
    import threading
    import time

    ext = _build_extension()
    docs = ["chapters/a/x", "chapters/b/api", "intro", "chapters/a/y", "chapters/c/z"]
    unchanged = list(docs)
    monkeypatch.delenv("DPNOTES_EXECUTING", raising=False)
    ext._read_executed_last(None, None, docs)
    assert docs == unchanged
    t0 = time.monotonic()
    ext._wait_for_execution(None, "chapters/c/z", [""])
    assert time.monotonic() - t0 < 2.0          # at once (a chapter without its marker waits)
    (tmp_path / "todo.json").write_text(json.dumps(["chapters/c/z", "chapters/a/x"]))
    monkeypatch.setenv("DPNOTES_EXECUTING", str(tmp_path))
    ext._read_executed_last(None, None, docs)
    assert docs == ["chapters/b/api", "intro", "chapters/a/y", "chapters/c/z", "chapters/a/x"]
    # a page not being executed is read at once; a chapter waits for its marker
    t0 = time.monotonic()
    ext._wait_for_execution(None, "intro", [""])
    assert time.monotonic() - t0 < 2.0          # at once (a chapter without its marker waits)
    marker = ext.execution_marker(tmp_path, "chapters/c/z")
    t0 = time.monotonic()                        # before the timer: the marker comes 0.4 s or more after
    threading.Timer(0.4, marker.touch).start()
    ext._wait_for_execution(None, "chapters/c/z", [""])
    assert 0.35 < time.monotonic() - t0 < 5 and marker.exists()


def test_make_book_executes_while_it_builds(tmp_path, monkeypatch):
    """scripts/book.py: the chapters the cache lacks are listed in execution order, the build runs
    at the same time with DPNOTES_EXECUTING, each chapter gets its marker when executed, and the
    folder is gone afterwards. Kernels and the build replaced by stand-ins that record what they see."""
    import json

    sys.path.insert(0, str(ROOT / "scripts"))
    import book

    ext = _build_extension()
    monkeypatch.setattr(ext, "EXECUTION_WAIT", 3)
    chapters = [ROOT / "chapters" / "why-dp" / "anonymization.md", ROOT / "chapters" / "definition" / "definition.md"]
    seen = {}

    def execute(cache, todo, jobs=None, done=None):
        for p in todo:
            done(p)

    def build(builder, out, env=None):
        folder = Path(env["DPNOTES_EXECUTING"])
        seen["todo"], seen["builder"], seen["folder"] = json.loads((folder / "todo.json").read_text()), builder, folder
        with monkeypatch.context() as m:          # as the extension in the build's process
            m.setenv("DPNOTES_EXECUTING", str(folder))
            for name in seen["todo"]:
                ext._wait_for_execution(None, name, [""])
                seen.setdefault("marked", []).append(ext.execution_marker(folder, name).exists())
        return 7

    monkeypatch.setattr(book.nbcache, "uncached", lambda cache, paths: chapters)
    monkeypatch.setattr(book.nbcache, "execute", execute)
    monkeypatch.setattr(book, "jupyter_book", build)
    assert book.execute_and_build("html", tmp_path, jobs=1) == 7
    assert seen["todo"] == ["chapters/why-dp/anonymization", "chapters/definition/definition"]
    assert seen["marked"] == [True, True] and seen["builder"] == "html" and not seen["folder"].exists()
    # nothing to execute: the build alone, without the variable
    monkeypatch.setattr(book.nbcache, "uncached", lambda cache, paths: [])
    monkeypatch.setattr(book, "jupyter_book", lambda builder, out, env=None: 0 if env is None else 1)
    assert book.execute_and_build("html", tmp_path, jobs=1) == 0


def test_execute_missing_marks_every_notebook_done_even_a_failed_one(tmp_path, monkeypatch):
    """nbcache.execute_missing calls done(path) for each notebook it executes, cached or failed
    (a build waiting for it must go on and report the failure), and only the good one is cached.
    Kernels replaced by a stand-in."""
    import nbcache

    pages = []
    for name in ("good", "bad"):
        page = tmp_path / f"{name}.md"
        page.write_text(FRONT + f"\n# {name}\n\n```{{code-cell}} ipython3\n{name} = 1\n```\n")
        pages.append(page)

    class Kernel:
        def __init__(self, timeout):
            pass

        def execute(self, path):
            return nbcache.read_notebook(Path(path)), 0.1, (None if "good" in path else "RuntimeError: boom")

        def shutdown(self):
            pass

    monkeypatch.setattr(nbcache, "_Kernel", Kernel)
    marked = []
    cache = tmp_path / "cache"
    results = nbcache.execute_missing(cache, pages, jobs=2, log=lambda *a: None, done=marked.append)
    assert sorted(marked) == sorted(map(str, pages)) and results == {str(pages[0]): None, str(pages[1]): "RuntimeError: boom"}
    assert nbcache.uncached(cache, pages) == [pages[1]]


def test_under_mutmut_the_fastest_tests_run_first(monkeypatch):
    """mutmut stops a mutant's run at its first failing test; the conftest orders its tests so the
    cheapest go first (slowest last, unrecorded after them, ties kept in their order), and leaves the
    order alone outside a mutant's run."""
    import conftest

    items = [types.SimpleNamespace(nodeid=n) for n in ["slow", "new", "fast", "tie_a", "tie_b",
                                                      "t.py::f__mutmut_3"]]
    durations = {"slow": 9.0, "fast": 0.01, "tie_a": 0.5, "tie_b": 0.5}
    monkeypatch.setattr(conftest, "_DURATIONS", durations)
    order = [i.nodeid for i in conftest.fastest_first(items[:5], durations)]
    assert order == ["fast", "tie_a", "tie_b", "slow", "new"]

    monkeypatch.setenv("MUTANT_UNDER_TEST", "dpnotes.loss.x_f__mutmut_7")
    run = list(items)
    conftest.pytest_collection_modifyitems(None, run)
    assert [i.nodeid for i in run] == order          # a mutant's copies of a doctest dropped, then sorted
    for value in ("stats", "fail", ""):              # mutmut's stats and forced-fail runs keep the order
        monkeypatch.setenv("MUTANT_UNDER_TEST", value)
        run = list(items)
        conftest.pytest_collection_modifyitems(None, run)
        assert [i.nodeid for i in run] == [i.nodeid for i in items[:5]]


def test_the_build_tunes_the_garbage_collector_and_looks_up_each_bibliography_plugin_once(monkeypatch):
    """_ext/dpnotes_build.py items 8 and 9: the collector's thresholds raised and what is alive frozen
    when the extension starts and again once every page is read; and pybtex's per-citation lookup
    answered from its run-time registry, with the same class the entry point gives."""
    import gc

    import pybtex.plugin
    from importlib.metadata import entry_points

    dpnotes_build = _build_extension()
    calls = []
    monkeypatch.setattr(gc, "set_threshold", lambda *a: calls.append(("threshold", a)))
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(("freeze",)))
    monkeypatch.setattr(dpnotes_build, "register_pybtex_plugins", lambda: calls.append(("pybtex",)))
    monkeypatch.setattr(dpnotes_build, "configure_nbclient", lambda: None)
    events = {}
    app = types.SimpleNamespace(connect=lambda event, f, priority=500: events.setdefault(event, []).append(f),
                                add_directive_to_domain=lambda *a, **k: None,
                                add_config_value=lambda *a, **k: None)
    dpnotes_build.setup(app)
    assert calls == [("threshold", (100_000, 50, 100)), ("freeze",), ("pybtex",)]
    assert dpnotes_build.GC_THRESHOLDS[0] > 700                       # above Python's default
    for f in events["env-updated"]:
        f(app, None)
    assert calls[-1] == ("freeze",)

    monkeypatch.undo()                                                  # the real gc, and register below
    monkeypatch.setattr(pybtex.plugin, "_RUNTIME_PLUGINS", {})
    dpnotes_build.register_pybtex_plugins()
    (installed,) = entry_points(group="pybtex.backends", name="plaintext")
    assert pybtex.plugin._RUNTIME_PLUGINS["pybtex.backends"]["plaintext"] is installed.load()
    monkeypatch.setattr(pybtex.plugin, "entry_points", lambda **k: pytest.fail("entry points scanned"))
    assert pybtex.plugin.find_plugin("pybtex.backends", "plaintext") is installed.load()


def test_pdf_check_reads_chapter_titles_from_the_website_or_the_single_page_build(tmp_path):
    """check_pdf compares the PDF with every document's title. ``scripts/book.py pdf`` without a website
    build hands it the single-page build, where documents are inlined under ``document-`` anchors with
    numbered lower headings; the titles read there must be the website's (it used to crash on the missing
    per-page files, and a reading that found no title would have checked nothing)."""
    import pdfbook

    (tmp_path / "_toc.yml").write_text("root: intro\nparts:\n- caption: P\n  chapters:\n  - file: a/one\n"
                                       "    sections:\n    - file: a/two\n")
    site = tmp_path / "html"
    (site / "a").mkdir(parents=True)
    (site / "a" / "one.html").write_text('<h1>First <em>page</em><a class="headerlink">#</a></h1><h1>x</h1>')
    (site / "a" / "two.html").write_text("<h1>Second\n page</h1>")
    single = tmp_path / "singlehtml"
    single.mkdir()
    (single / "intro.html").write_text(
        '<h1>Intro</h1><span id="document-a/one"></span><section><h2><span class="section-number">1. </span>'
        'First <em>page</em><a class="headerlink">#</a></h2><h3>A section</h3></section>'
        '<span id="document-a/two"></span><h3><span class="section-number">1.1. </span>Second\n page</h3>')
    expected = {"a/one": "First page", "a/two": "Second page"}
    assert pdfbook.chapter_titles(site, tmp_path) == expected
    assert pdfbook.chapter_titles(single, tmp_path) == expected
    (single / "intro.html").write_text('<h1>Intro</h1><span id="document-a/one"></span><h2>First page</h2>')
    assert pdfbook.chapter_titles(single, tmp_path) == {"a/one": "First page"}   # a/two absent: no title


def test_mutation_verdicts_are_saved_with_the_project_and_restored_on_a_new_machine(tmp_path, monkeypatch):
    """mutants/ is scratch (ignored by git, absent from a clean clone), and the slow modules take more than
    a session: scripts/mutation.py keeps each module's verdicts in benchmarks/mutation-results/ and writes
    mutmut's meta file back from them, function hashes included, so mutmut rechecks only what changed."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "scripts" / "mutation.py")
    mutation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutation)
    for name, path in [("ROOT", tmp_path), ("RESULTS", tmp_path / "benchmarks" / "mutation-results")]:
        monkeypatch.setattr(mutation, name, path)
    meta = tmp_path / "mutants" / "dpnotes" / "svt.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {"dpnotes.svt.x_f__mutmut_2": 0, "dpnotes.svt.x_f__mutmut_1": 1, "dpnotes.svt.x_f__mutmut_3": None,
             "dpnotes.svt.xǁCǁm__mutmut_1": 24, "dpnotes.svt.xǁCǁm__mutmut_2": 1}
    hashes = {"x_f": "ab12", "xǁCǁm": "cd34"}
    meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": hashes,
                                "type_check_error_by_key": {}, "durations_by_key": {"k": 1.0},
                                "estimated_durations_by_key": {}}))
    mutation.save_results("svt", wall=125.4, stopped=True)
    saved_path = tmp_path / "benchmarks" / "mutation-results" / "svt.json"
    saved = json.loads(saved_path.read_text(encoding="utf-8"))
    assert saved["exit_codes"] == {"x_f": [1, 0, None], "xǁCǁm": [24, 1]}
    assert saved["hash_by_function"] == hashes and saved["wall_seconds"] == 125 and saved["stopped_at_budget"]
    assert len(saved_path.read_text(encoding="utf-8").splitlines()) == 8      # a line per field, per function
    assert not mutation.restore_results("svt")                                 # mutmut's own meta is kept

    meta.unlink()
    (tmp_path / "mutants" / "dpnotes" / "svt.py").write_text("# a stale mutated copy")
    assert mutation.restore_results("svt")
    back = json.loads(meta.read_text())
    assert back["exit_code_by_key"] == codes and back["hash_by_function_name"] == hashes
    assert not (tmp_path / "mutants" / "dpnotes" / "svt.py").exists()   # made again, so hashes are compared
    assert mutation.statuses("svt")["dpnotes.svt.x_f__mutmut_3"] == "not checked"

    # the date moves only when a mutant was checked, not when mutmut rewrites the file
    saved["run_on"] = "2026-01-02"
    saved_path.write_text(json.dumps(saved), encoding="utf-8")
    mutation.save_results("svt")
    kept = json.loads(saved_path.read_text(encoding="utf-8"))
    assert kept["run_on"] == "2026-01-02" and kept["wall_seconds"] == 125 and kept["stopped_at_budget"]
    meta.write_text(json.dumps({**back, "exit_code_by_key": {**codes, "dpnotes.svt.x_f__mutmut_3": 1}}))
    mutation.save_results("svt")
    assert json.loads(saved_path.read_text(encoding="utf-8"))["run_on"] != "2026-01-02"

    meta.write_text(json.dumps({**back, "exit_code_by_key": {"dpnotes.svt.x_f__mutmut_2": 0}}))
    with pytest.raises(SystemExit, match="not numbered 1..1"):
        mutation.save_results("svt")


def test_under_mutmut_a_test_that_runs_far_past_its_recorded_time_is_stopped(monkeypatch):
    """A mutant that makes a loop endless fails the first test that runs MUTANT_TIME_FACTOR times its recorded
    duration plus MUTANT_TIME_SLACK seconds, instead of holding a worker for mutmut's 30-fold limit; outside a
    mutant's run, and for a test with no recorded duration, nothing is timed."""
    import time

    import conftest

    monkeypatch.setattr(conftest, "_DURATIONS", {"t.py::loops": 0.01, "t.py::quick": 0.01})
    monkeypatch.setattr(conftest, "MUTANT_TIME_FACTOR", 5.0)
    monkeypatch.setattr(conftest, "MUTANT_TIME_SLACK", 0.2)
    for value in ("", "stats", "fail"):
        monkeypatch.setenv("MUTANT_UNDER_TEST", value)
        assert conftest.mutant_time_limit("t.py::loops") is None
    monkeypatch.setenv("MUTANT_UNDER_TEST", "dpnotes.discrete.x_f__mutmut_3")
    assert conftest.mutant_time_limit("t.py::loops") == pytest.approx(0.25)
    assert conftest.mutant_time_limit("t.py::unrecorded") is None

    t0 = time.perf_counter()                     # before the hook arms its 0.2 s limit
    hook = conftest.pytest_runtest_call(types.SimpleNamespace(nodeid="t.py::loops"))
    next(hook)
    with pytest.raises(conftest.MutantTimeout, match=r"^t\.py::loops ran past 0\.2 s under dpnotes\.discrete\."):
        while True:                                  # an endless loop that would catch an Exception
            try:
                time.sleep(0.01)
            except Exception:
                pass
    assert 0.2 < time.perf_counter() - t0 < 2.0
    with pytest.raises(StopIteration):
        next(hook)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)        # disarmed, handler given back
    assert signal.getsignal(signal.SIGALRM) is not None

    quick = conftest.pytest_runtest_call(types.SimpleNamespace(nodeid="t.py::quick"))
    next(quick)
    time.sleep(0.05)                                  # inside its limit: nothing happens
    with pytest.raises(StopIteration):
        next(quick)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_resumed_mutation_run_adds_its_time_to_the_stopped_one(tmp_path, monkeypatch):
    """The saved results are the one record of a run: a run stopped at its budget records its wall time
    and that it stopped; --resume checks only the unchecked mutants and adds its time to the stopped
    run's; a fresh run (or a resume of a run that was not stopped) starts the count again."""
    import importlib.util
    import subprocess as sp

    spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "scripts" / "mutation.py")
    mutation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutation)
    for name, path in [("ROOT", tmp_path), ("RESULTS", tmp_path / "benchmarks" / "mutation-results")]:
        monkeypatch.setattr(mutation, name, path)
    (tmp_path / "pyproject.toml").write_text('[tool.mutmut]\nalso_copy = []\n')
    meta = tmp_path / "mutants" / "dpnotes" / "svt.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {"dpnotes.svt.x_f__mutmut_1": 1, "dpnotes.svt.x_f__mutmut_2": None},
                                "hash_by_function_name": {"x_f": "ab12"}, "type_check_error_by_key": {},
                                "durations_by_key": {}, "estimated_durations_by_key": {}}))
    calls, clock = [], [1000.0]

    class FakeMutmut:                      # a mutmut run that takes `took` seconds, or hits the budget
        pid = 0

        def __init__(self, cmd, **kwargs):
            calls.append(cmd[4:])          # after "mutmut run --max-children 2": the mutants asked for
            self.stopped = False

        def wait(self, timeout=None):
            if self.stopped:               # the wait after the budget's kill
                return -15
            if timeout is not None and took > timeout:
                clock[0] += timeout
                self.stopped = True
                raise sp.TimeoutExpired("mutmut", timeout)
            clock[0] += took
            return 0

    monkeypatch.setattr(mutation.subprocess, "Popen", FakeMutmut)
    monkeypatch.setattr(mutation.os, "killpg", lambda pid, sig: None)
    monkeypatch.setattr(mutation.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(mutation, "refresh_mutants", lambda m: None)
    saved = lambda: json.loads((tmp_path / "benchmarks" / "mutation-results" / "svt.json").read_text())  # noqa: E731

    took = 500.0
    mutation.run(["svt"], 2, budget=300.0)
    assert calls[-1] == ["dpnotes.svt.*"] and saved()["wall_seconds"] == 300 and saved()["stopped_at_budget"]
    took = 120.0
    mutation.run(["svt"], 2, budget=300.0, resume=True)
    assert calls[-1] == ["dpnotes.svt.x_f__mutmut_2"]                     # only what the stopped run left
    assert saved()["wall_seconds"] == 420 and not saved()["stopped_at_budget"]
    mutation.run(["svt"], 2, budget=300.0, resume=True)                  # the last run was not stopped
    assert saved()["wall_seconds"] == 120
    mutation.run(["svt"], 2, budget=300.0)
    assert calls[-1] == ["dpnotes.svt.*"] and saved()["wall_seconds"] == 120
    assert not (tmp_path / "mutants" / "durations.json").exists() and not (tmp_path / "mutants" / "stopped.json").exists()
