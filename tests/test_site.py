"""The book builds warning-free with ``-W -n``, and the built site works in a browser.

The build goes to ``_build/test-site`` from scratch on every run (no execution
cache), so a stale cached notebook cannot hide a broken one.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sitecheck

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "test-site"
JB = Path(sys.executable).with_name("jupyter-book")

pytestmark = pytest.mark.site


def build(source: Path, out: Path) -> subprocess.CompletedProcess:
    shutil.rmtree(out, ignore_errors=True)
    return subprocess.run(
        [str(JB), "build", str(source), "-W", "-n", "--keep-going", "--path-output", str(out)],
        capture_output=True, text=True, cwd=source, timeout=1800,
    )


@pytest.fixture(scope="session")
def site() -> Path:
    result = build(ROOT, OUT)
    log = result.stdout + result.stderr
    (OUT / "build.log").parent.mkdir(parents=True, exist_ok=True)
    (OUT / "build.log").write_text(log)
    # Sphinx's own warnings ("path:line: WARNING: ..."); not a kernel's "[IPKernelApp] WARNING | ..."
    warnings = [line for line in log.splitlines() if re.search(r"\b(WARNING|ERROR|CRITICAL):", line)]
    if result.returncode != 0 or warnings:
        pytest.fail("jupyter-book build -W -n failed:\n" + "\n".join(warnings[-60:] or log.splitlines()[-60:]),
                    pytrace=False)
    return OUT / "_build" / "html"


@pytest.fixture(scope="session")
def browser_tools():
    chromium = sitecheck.find_chromium()
    mathjax = sitecheck.find_mathjax()
    missing = []
    if chromium is None:
        missing.append("headless Chromium (Debian: apt-get install chromium; or set DPNOTES_CHROMIUM)")
    if mathjax is None:
        missing.append("a local MathJax 3 (make test installs it into .cache/mathjax; or set DPNOTES_MATHJAX_DIR)")
    if missing:
        pytest.fail("the browser check needs " + " and ".join(missing), pytrace=False)
    return chromium, mathjax


def test_book_builds_without_warnings(site):
    assert (site / "intro.html").exists()
    assert (site / "chapters" / "definition" / "definition.html").exists()


def test_every_page_of_the_toc_was_built(site):
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for e in entries:
            if "file" in e:
                files.append(e["file"])
            walk(e.get("sections", []))
            walk(e.get("chapters", []))

    walk(toc["parts"])
    missing = [f for f in files if not (site / f"{f}.html").exists()]
    assert not missing, f"pages in _toc.yml that were not built: {missing}"


def test_internal_links_and_images_resolve(site):
    problems = sitecheck.check_links(site)
    assert not problems, "broken internal references:\n" + "\n".join(problems[:50])


def test_pages_load_and_math_renders_in_browser(site, browser_tools):
    chromium, mathjax = browser_tools
    results = sitecheck.browser_check(site, chromium=chromium, mathjax_dir=mathjax)
    assert len(results) >= 5
    bad = {page: probs for page, probs in results.items() if probs}
    assert not bad, "pages with problems:\n" + "\n".join(f"{p}: {'; '.join(v)}" for p, v in bad.items())


def test_chapter_math_is_typeset(site, browser_tools):
    """The definition chapter has math, and MathJax typesets every piece of it (guards the probe itself)."""
    chromium, mathjax = browser_tools
    page = site / "chapters" / "definition" / "definition.html"
    with sitecheck.offline_browser(site, chromium=chromium, mathjax_dir=mathjax) as (base, ctx):
        p = ctx.new_page()
        p.goto(base + str(page.relative_to(site)))
        info = p.evaluate(sitecheck._PAGE_PROBE)
    assert info["math"] >= 20 and info["typeset"] == info["math"], info
