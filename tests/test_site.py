"""The book builds warning-free with ``-W -n``, and the built site works in a browser.

Two depths. ``make test`` checks every page statically (links, anchors, images, alt text,
launch buttons, the site's own MathJax) and drives a browser over ``BROWSER_SAMPLE``, one page
of each kind the site has; ``make verify`` (``DPNOTES_SITE=full``, which CI runs on every
change) drives it over every page and prints and checks the PDF edition (tests marked
``pdf``). The browser check costs about 4 CPU seconds a page (MathJax and axe-core on tens of
thousands of elements), so all 62 pages and the PDF (about 3 CPU minutes) would take
``make test`` past its five minutes on two cores.

The build goes to ``_build/test-site`` from scratch on every run. Its execution cache
starts empty except for the notebooks that nbval executed in this same ``make test``
with the current ``dpnotes`` (``tests/nbcache.py``): each chapter is executed once, and
a notebook changed since, or one that failed, is executed by the build itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import nbcache
import sitecheck

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "test-site"
OUT_PDF = ROOT / "_build" / "test-site-pdf"     # the single-page build, built beside the site
JB = Path(sys.executable).with_name("jupyter-book")

pytestmark = pytest.mark.site

# One page of each kind, for make test's browser check (make verify checks every page): the start
# page and Sphinx's redirect stub; the chapters with the most formulas, the largest table and the
# most figures and outputs; an API reference page (autodoc, many formulas in docstrings); the
# glossary (Chinese and Korean); the bibliography; an errata page; and the generated index,
# search, module index and proof index.
BROWSER_SAMPLE = (
    "index.html",
    "intro.html",
    "chapters/definition/approximate-dp.html",
    "chapters/auditing/benchmark.html",
    "chapters/learning/accounting.html",
    "chapters/appendices/api/subsampling.html",
    "chapters/appendices/glossary.html",
    "chapters/appendices/bibliography.html",
    "chapters/appendices/errata/definition.html",
    "genindex.html",
    "search.html",
    "py-modindex.html",
    "prf-prf.html",
)


def full_site() -> bool:
    """make verify (and CI) set DPNOTES_SITE=full: the browser goes over every page."""
    return os.environ.get("DPNOTES_SITE", "sample") == "full"


def browser_pages(site: Path) -> list[Path] | None:
    """The pages the browser check visits: all (None) under DPNOTES_SITE=full, else the sample."""
    if full_site():
        return None
    pages = [site / rel for rel in BROWSER_SAMPLE]
    missing = [str(p.relative_to(site)) for p in pages if not p.exists()]
    assert not missing, f"BROWSER_SAMPLE names pages the build did not write: {missing}"
    return pages


def build(source: Path, out: Path, *, seed: bool = True, builder: str = "html") -> subprocess.CompletedProcess:
    shutil.rmtree(out, ignore_errors=True)
    if seed:
        cache = out / "_build" / ".jupyter_cache"
        nbcache.seed_cache(cache, source)
        # what nbval did not run (or ran before a change) is executed here, on every core
        nbcache.execute_missing(cache, nbcache.toc_notebooks(source))
    return subprocess.run(
        [str(JB), "build", str(source), "-W", "-n", "--keep-going", "--path-output", str(out),
         "--builder", builder],
        capture_output=True, text=True, cwd=source, timeout=3600,
    )


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Sphinx's own warnings ("path:line: WARNING: ..."); not a kernel's "[IPKernelApp] WARNING | ..."
_WARNING = re.compile(r"\b(WARNING|ERROR|CRITICAL):")


def build_problems(log: str, out: Path) -> str:
    """Every warning of a build log *with* the lines that continue it (a notebook's traceback
    follows its "Executing notebook failed" line), and the execution reports myst-nb wrote."""
    lines = _ANSI.sub("", log).splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if _WARNING.search(lines[i]):
            block = [lines[i]]
            i += 1
            # continuation lines: not a new Sphinx status line ("reading sources...", a path: message)
            while i < len(lines) and not _WARNING.search(lines[i]) and not re.match(
                    r"^(\S+\.(md|rst|ipynb)|reading |writing |copying |building |looking |pickling |"
                    r"checking |updating |waiting |generating |dumping |build |\[)", lines[i]):
                block.append(lines[i])
                i += 1
            blocks.append("\n".join(block[:40]))
        else:
            i += 1
    reports = sorted((out / "_build" / "html" / "reports").glob("**/*.log"))
    for r in reports:
        blocks.append(f"--- execution report {r.relative_to(out)} ---\n" + r.read_text()[-4000:])
    return "\n".join(blocks)


def check_build(result: subprocess.CompletedProcess, out: Path, what: str) -> None:
    log = result.stdout + result.stderr
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{what}.log").write_text(log)
    problems = build_problems(log, out)
    if result.returncode != 0 or problems:
        pytest.fail(f"jupyter-book build -W -n ({what}) failed (full log: {out / (what + '.log')}):\n"
                    + (problems[-12000:] or "\n".join(log.splitlines()[-60:])), pytrace=False)


class PdfJob(threading.Thread):
    """The single-page build (in its own folder, from the same staged executions) and its
    printing, run beside the site's build and browser checks (each is mostly one-core work,
    and the printing alone takes over a minute): started by ``site`` before it builds,
    awaited by ``pdf``. The printing runs in its own process (one Playwright per process)."""

    def __init__(self, pdf: Path):
        super().__init__(daemon=True)
        self.pdf, self.build = pdf, None
        self.printed: subprocess.CompletedProcess | None = None

    def run(self) -> None:
        self.build = build(ROOT, OUT_PDF, builder="singlehtml")
        if self.build.returncode != 0:
            return
        code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import pdfbook, sitecheck; "
                "pdfbook.print_pdf(Path(sys.argv[2]), Path(sys.argv[3]), chromium=sitecheck.find_chromium())")
        self.printed = subprocess.run(
            [sys.executable, "-c", code, str(ROOT / "tests"), str(OUT_PDF / "_build" / "singlehtml"), str(self.pdf)],
            capture_output=True, text=True, timeout=3600)


_PDF_JOB: PdfJob | None = None


@pytest.fixture(scope="session")
def site(request) -> Path:
    global _PDF_JOB
    import pdfbook

    # the PDF is printed only when a test that needs it was selected (make verify's `pdf` tests)
    wants_pdf = any("pdf" in item.fixturenames for item in request.session.items)
    with sitecheck.exclusive(OUT):  # held until the last site test is done with the build
        if wants_pdf and not pdfbook.missing_tools():
            _PDF_JOB = PdfJob(OUT_PDF / "_build" / "pdf" / "dpnotes.pdf")
            _PDF_JOB.start()
        after = os.environ.get("DPNOTES_SITE_AFTER")
        if after:  # make test: this pass runs beside pass 1, which executes the chapters first
            nbcache.wait_for_staged(nbcache.toc_notebooks(ROOT), Path(after))
        result = build(ROOT, OUT)
        check_build(result, OUT, "build")
        html = OUT / "_build" / "html"
        yield html
        if _PDF_JOB is not None:
            _PDF_JOB.join()  # never leave the printing running on a build that is about to change


@pytest.fixture(scope="session")
def browser_tools():
    chromium = sitecheck.find_chromium()
    axe = sitecheck.find_axe()
    missing = []
    if chromium is None:
        missing.append("headless Chromium (Debian: apt-get install chromium; or set DPNOTES_CHROMIUM)")
    if axe is None:
        missing.append("axe-core (make test installs it into .cache/axe; or set DPNOTES_AXE to its axe.min.js)")
    if missing:
        pytest.fail("the browser check needs " + " and ".join(missing), pytrace=False)
    return chromium, axe


@pytest.fixture(scope="session")
def pdf(site) -> Path:
    """The PDF edition, printed from a single-page build that reuses the site build's executions."""
    import pdfbook

    missing = pdfbook.missing_tools()
    if missing or _PDF_JOB is None:
        pytest.fail("the PDF check needs " + " and ".join(missing or ["the site build"]), pytrace=False)
    _PDF_JOB.join()
    check_build(_PDF_JOB.build, OUT_PDF, "singlehtml")
    printed = _PDF_JOB.printed
    if printed.returncode != 0:
        pytest.fail(f"printing the PDF failed:\n{(printed.stdout + printed.stderr)[-6000:]}", pytrace=False)
    # into the site, as make pdf does, where the start page links it
    shutil.copy2(_PDF_JOB.pdf, site / "dpnotes.pdf")
    shutil.copy2(_PDF_JOB.pdf.with_name(_PDF_JOB.pdf.name + ".json"), site / "dpnotes.pdf.json")
    return site / "dpnotes.pdf"


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


def test_live_code_is_configured(site):
    """Thebe's "Live Code" button is on every chapter, set to start the book's own Binder."""
    import yaml

    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"].split("github.com/")[1]
    for chapter in ("definition/definition", "composition/composition"):
        page = (site / "chapters" / f"{chapter}.html").read_text()
        assert 'onclick="initThebeSBT()"' in page, f"no Live Code (Thebe) button on {chapter}"
        config = re.search(r'<script type="text/x-thebe-config">(.*?)</script>', page, re.S)
        assert config, f"no Thebe configuration on {chapter}"
        assert re.search(r'repo:\s*"' + re.escape(repo) + '"', config.group(1)), config.group(1)
        assert f'path: "./chapters/{chapter.split("/")[0]}"' in config.group(1), config.group(1)


def test_launch_buttons_open_the_configured_repository(site):
    """The Binder button of every chapter, and the repository and issue buttons, name the repository
    and branch of _config.yml (the one setting, scripts/repository.py), and the Binder button opens
    that very chapter as a notebook."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import repository

    links = repository.links()
    pages = sorted((site / "chapters").rglob("*.html"))
    assert len(pages) >= 10
    for page in pages:
        html = page.read_text(encoding="utf-8")
        rel = page.relative_to(site).with_suffix(".md")
        if (ROOT / rel).exists() and "code-cell" in (ROOT / rel).read_text(encoding="utf-8"):
            binder = f'href="{links["binder"]}?urlpath=lab/tree/{rel.as_posix()}"'
            assert binder in html, f"{page.relative_to(site)}: no Binder button {binder}"
        assert f'href="{links["repository"]}"' in html, f"{page.relative_to(site)}: no repository button"
        assert f'href="{links["issues"]}/new?' in html, f"{page.relative_to(site)}: no issue button"
        # every launch or repository button (an <a class="btn ...">) names this repository; links in
        # the text (the bibliography's URL of a cited package, say) may name others
        buttons = set(re.findall(r'<a href="https://(?:github\.com|mybinder\.org/v2/gh)/([^/"]+/[^/"?]+)[^"]*"[^>]*'
                                 r'class="btn', html))
        assert buttons, f"{page.relative_to(site)}: no repository or launch button found"
        assert buttons <= {f"{repository.setting()['owner']}/{repository.setting()['name']}"}, buttons


def test_pages_work_offline_accessibly_and_at_phone_width(site, browser_tools, capsys):
    """Every page (make verify; a page of each kind in make test) in a browser with no network: it loads, requests nothing from another host,
    its math is typeset, axe-core finds nothing serious or critical, and at 390 px nothing but
    a table, code or a formula in its own scrolling box is wider than the screen. axe-core's
    lesser findings are written to _build/test-site/a11y-report.md."""
    chromium, axe = browser_tools
    findings: dict = {}
    pages = browser_pages(site)
    # one browser per core (up to 4): axe-core makes this the longest check of the site. In make
    # test it runs beside pass 1's tests, so a long page waits for the CPU: 90 s a step, not 30.
    results = sitecheck.browser_check(site, pages, chromium=chromium, axe=axe, findings=findings,
                                      workers=min(4, os.cpu_count() or 1), timeout_ms=90_000)
    expected = len(sitecheck.html_pages(site)) if pages is None else len(pages)
    assert len(results) == expected >= 5
    report = OUT / "a11y-report.md"
    report.write_text(sitecheck.a11y_report(findings, len(results)))
    with capsys.disabled():
        rules = sorted({v["id"] for vs in findings.values() for v in vs})
        depth = "every page" if pages is None else "one of each kind; DPNOTES_SITE=full checks every page"
        print(f"\naccessibility: {len(results)} pages ({depth}), no serious or critical violation allowed; "
              f"{sum(map(len, findings.values()))} lesser finding(s) ({', '.join(rules) or 'none'}) in {report}")
    bad = {page: probs for page, probs in results.items() if probs}
    assert not bad, "pages with problems:\n" + "\n".join(f"{p}: {'; '.join(v)}" for p, v in bad.items())


def test_the_site_serves_its_own_mathjax(site):
    """No page names a script, stylesheet or image on another host; MathJax is the site's own copy."""
    outside = set()
    for page in sitecheck.html_pages(site):
        for kind, url in sitecheck._parse(page).refs:
            if kind != "a.href" and not sitecheck.is_internal(url):
                outside.add(f"{page.relative_to(site)}: {kind} {url}")
    assert not outside, "\n".join(sorted(outside)[:20])
    page = (site / "chapters" / "definition" / "definition.html").read_text()
    assert re.search(r'<script defer="defer" src="\.\./\.\./_static/mathjax/tex-mml-chtml\.js(\?v=\w+)?"', page)
    mathjax = site / "_static" / "mathjax"
    assert (mathjax / "output" / "chtml" / "fonts" / "woff-v2").is_dir() and (mathjax / "LICENSE").is_file()
    assert not (mathjax / "latest.js").exists()  # it would load MathJax from a CDN
    # each page loads MathJax once, not every component the folder holds
    assert len(re.findall(r"<script[^>]+_static/mathjax/", page)) == 1


def test_a_page_opened_from_disk_works_offline(site, browser_tools):
    """The built site also works opened as files (file://, no server, no network): MathJax, its
    fonts included, load from the site's folder and every formula is typeset."""
    from playwright.sync_api import sync_playwright

    chromium, _ = browser_tools
    page_file = site / "chapters" / "definition" / "definition.html"
    outside: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=sitecheck.CHROMIUM_FLAGS)
        try:
            ctx = browser.new_context()
            ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
                      else (outside.append(r.request.url), r.abort()))
            page = ctx.new_page()
            page.goto(page_file.as_uri(), wait_until="load")
            info = page.evaluate(sitecheck._PAGE_PROBE)
            fonts = page.evaluate("() => [...document.fonts].filter(f => f.family.startsWith('MJX') "
                                  "&& f.status === 'loaded').length")
        finally:
            browser.close()
    assert not outside, outside
    assert info["mathjax"] and info["math"] >= 20 and info["typeset"] == info["math"] and not info["merror"], info
    assert fonts >= 1, "MathJax's fonts did not load from the site's folder"


def test_every_figure_has_alt_text(site):
    """A screen reader reads a figure's alt text: a sentence saying what it shows, not a file name."""
    problems = sitecheck.check_alt_text(site)
    assert not problems, f"{len(problems)} figure(s) without alt text:\n" + "\n".join(problems)


def test_saved_doctrees_hold_only_their_own_page(site):
    """Every node of every saved doctree points to that page's document. MyST parses an
    {eval-rst} block (the API pages' automodule) into a document of its own whose settings hold
    Sphinx's build environment; nodes left pointing to it made each API page's doctree carry a
    copy of the environment (0.7-0.9 MB each) and the build read it back (_ext/dpnotes_build.py,
    item 6)."""
    import pickle

    trees = sorted((site.parent / ".doctrees").rglob("*.doctree"))
    assert len(trees) > 50 and any("appendices/api" in t.as_posix() for t in trees)
    for tree in trees:
        doc = pickle.loads(tree.read_bytes())
        strays = sum(1 for node in doc.findall() if node.document is not doc)
        assert strays == 0, f"{tree.relative_to(site.parent)}: {strays} nodes point to another document"


def test_no_page_shows_a_warning(site):
    """A cell's stderr (a RuntimeWarning, a deprecation) is output the prose does not explain."""
    problems = sitecheck.check_cell_stderr(site)
    assert not problems, f"{len(problems)} cell output(s) on stderr:\n" + "\n".join(problems)


def test_chapter_math_is_typeset(site, browser_tools):
    """The definition chapter has math, and MathJax typesets every piece of it (guards the probe itself)."""
    chromium, _ = browser_tools
    page = site / "chapters" / "definition" / "definition.html"
    with sitecheck.offline_browser(site, chromium=chromium) as (base, ctx):
        p = ctx.new_page()
        p.goto(base + str(page.relative_to(site)))
        info = p.evaluate(sitecheck._PAGE_PROBE)
    assert info["math"] >= 20 and info["typeset"] == info["math"], info


# The start page links the PDF edition, which only make pdf and make verify print.
PDF_LINK = "intro.html: a.href 'dpnotes.pdf' -> missing file"


def test_internal_links_and_images_resolve(site):
    problems = sitecheck.check_links(site)
    if not (site / "dpnotes.pdf").exists():
        assert PDF_LINK in problems, "the start page no longer links the PDF edition"
        problems.remove(PDF_LINK)
    assert not problems, "broken internal references:\n" + "\n".join(problems[:50])


# Last: the PDF is printed beside the checks above and awaited here.
@pytest.mark.pdf
def test_the_start_page_links_the_printed_pdf(pdf, site):
    problems = sitecheck.check_links(site)
    assert not problems, "broken internal references:\n" + "\n".join(problems[:50])


@pytest.mark.pdf
def test_pdf_edition_has_every_chapter_and_no_broken_reference(pdf, site):
    import pdfbook

    problems = pdfbook.check_pdf(pdf, site)
    assert not problems, "\n".join(problems)
