"""Checks of a built website: internal links, images and figures' alt text statically; math,
outside requests, accessibility (axe-core) and the phone layout in a browser.

Used by ``tests/test_site.py`` on the built book, ``tests/pdfbook.py`` and ``scripts/``.
Nothing here reaches the network: pages are served from a local folder on 127.0.0.1 and
every request to another host is refused, and reported: the site serves its own MathJax,
so a page that asks a CDN, a font service or an analytics host for anything fails.
"""

from __future__ import annotations

import contextlib
import functools
import html
import http.server
import os
import re
import shutil
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


# ------------------------------------------------------------------ static checks
class _Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refs: list[tuple[str, str]] = []  # (tag.attr, url)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for tag_name, attr in (("a", "href"), ("img", "src"), ("link", "href"), ("script", "src")):
            if tag == tag_name and a.get(attr):
                self.refs.append((f"{tag}.{attr}", a[attr]))


@functools.lru_cache(maxsize=None)
def _parse(path: Path) -> _Collector:
    c = _Collector()
    c.feed(path.read_text(encoding="utf-8", errors="replace"))
    return c


def html_pages(root: Path) -> list[Path]:
    """Every HTML page of a built site, excluding Sphinx's generated search/index pages' assets."""
    root = Path(root)
    return sorted(p for p in root.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


def is_internal(url: str) -> bool:
    parts = urlsplit(url)
    return not parts.scheme and not parts.netloc and not url.startswith(("mailto:", "javascript:", "data:"))


def check_links(root: Path) -> list[str]:
    """Problems with internal links, images, stylesheets and scripts of every page.

    A reference is broken when its file does not exist in the site or, for a link
    with a fragment to an HTML page, when no element of that page has that id.
    """
    root = Path(root).resolve()
    _parse.cache_clear()
    problems = []
    for page in html_pages(root):
        for kind, url in _parse(page).refs:
            if not is_internal(url):
                continue
            parts = urlsplit(url)
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            rel = page.relative_to(root)
            if not target.exists():
                problems.append(f"{rel}: {kind} {url!r} -> missing file")
                continue
            if parts.fragment and target.suffix == ".html":
                frag = unquote(parts.fragment)
                if frag not in _parse(target).ids:
                    problems.append(f"{rel}: {kind} {url!r} -> no element with id {frag!r}")
    return problems


_REFRESH = re.compile(r"""<meta[^>]+http-equiv=["']?refresh["']?[^>]*content=["'][^"']*url=([^"'>\s]+)""", re.I)


def redirect_target(path: Path) -> str | None:
    """The target of a page that only redirects (meta refresh and no main content), else None."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    m = _REFRESH.search(text)
    if m and "<main" not in text:
        return m.group(1)
    return None


# ------------------------------------------------------------------ one builder at a time
@contextlib.contextmanager
def exclusive(out: Path):
    """One process at a time rebuilds ``out`` (a lock file beside it): a second ``make test`` in the
    same checkout waits here instead of deleting the first one's site build under it, and the Binder
    test waits for the environment ``make test`` builds in the background."""
    import fcntl

    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# ------------------------------------------------------------------ serving
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """Serve ``directory`` on 127.0.0.1 (a free port); yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# ------------------------------------------------------------------ browser checks
def find_chromium() -> str | None:
    """Chromium to drive: ``$DPNOTES_CHROMIUM``, one on ``PATH``, or one that Playwright installed."""
    env = os.environ.get("DPNOTES_CHROMIUM")
    if env:
        return env
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    # `playwright install chromium` puts it here (or under $PLAYWRIGHT_BROWSERS_PATH)
    cache = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    for exe in sorted(cache.glob("chromium-*/chrome-linux*/chrome"), reverse=True):
        if os.access(exe, os.X_OK):
            return str(exe)
    return None


def find_mathjax() -> Path | None:
    """The npm ``mathjax@3`` ``es5/`` folder the book build copies into the site (for throw-away books)."""
    env = os.environ.get("DPNOTES_MATHJAX_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[1] / ".cache/mathjax/node_modules/mathjax/es5")
    for c in candidates:
        if (c / "tex-mml-chtml.js").exists():
            return c
    return None


_PAGE_PROBE = r"""
async () => {
  const out = {math: 0, typeset: 0, untypeset: [], merror: 0, dollars: [], images: [], mathjax: false};
  const maths = Array.from(document.querySelectorAll('.math'));
  out.math = maths.length;
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    out.mathjax = true;
    await MathJax.startup.promise;
    if (MathJax.typesetPromise) { await MathJax.typesetPromise(); }
  }
  for (const m of maths) {
    if (m.querySelector('mjx-container') || m.tagName.toLowerCase() === 'mjx-container') out.typeset += 1;
    else out.untypeset.push(m.textContent.slice(0, 80));
  }
  out.merror = document.querySelectorAll('mjx-merror, merror, .MathJax_Error').length;
  const main = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const skip = node.parentElement && node.parentElement.closest(
        'pre, code, script, style, mjx-container, .math, .highlight, .cell_output, .output, textarea');
      return skip ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
    }
  });
  while (walker.nextNode()) {
    const t = walker.currentNode.textContent;
    if (t.includes('$')) out.dollars.push(t.trim().slice(0, 120));
  }
  for (const img of document.images) {
    if (!img.complete || img.naturalWidth === 0) out.images.push(img.getAttribute('src'));
  }
  return out;
}
"""


def find_axe() -> Path | None:
    """axe-core's ``axe.min.js``: ``$DPNOTES_AXE`` or the copy ``make test`` installs into .cache/axe."""
    env = os.environ.get("DPNOTES_AXE")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[1] / ".cache/axe/node_modules/axe-core/axe.min.js")
    for c in candidates:
        if c.is_file():
            return c
    return None


# The width of a phone (an iPhone 12-15 in CSS pixels), at which no page may scroll sideways.
PHONE = {"width": 390, "height": 844}
# axe-core impacts that fail a page; "moderate" and "minor" ones are listed in the report.
FAILING_IMPACTS = ("critical", "serious")

_AXE_RUN = """
async () => {
  const r = await axe.run(document, {resultTypes: ['violations'], noHtml: true});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
                                 targets: v.nodes.slice(0, 4).map(n => n.target.join(' '))}));
}
"""

# Elements of the article that stick out of the viewport sideways and are not inside a box that
# scrolls (overflow-x auto or scroll): each one makes the page scroll, or is cut off. Only the
# outermost of nested offenders is named.
_OVERFLOW_PROBE = r"""
(vw) => {
  const root = document.querySelector('main') || document.body;
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  // 4 px of slack: an icon's edge a pixel or two past the screen hides nothing a reader needs
  const fits = (r) => r.right <= vw + 4 && r.left >= -4;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.classList.length ? '.' + [...el.classList].slice(0, 2).join('.') : '');
  const offenders = [];
  const seen = new Set();
  // a formula is judged as a whole: the thousands of elements inside MathJax's output are skipped
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, {acceptNode: (n) =>
      n.parentElement && n.parentElement.closest('mjx-container') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  while (walker.nextNode()) {
    const el = walker.currentNode;
    const r = el.getBoundingClientRect();
    if ((r.width === 0 && r.height === 0) || fits(r)) continue;
    // not drawn: hidden (the off-canvas sidebars)
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    let a = el.parentElement, inside = false;
    for (; a && a !== document.body; a = a.parentElement) {
      if (seen.has(a) || (scrolls(a) && fits(a.getBoundingClientRect()))) { inside = true; break; }
    }
    seen.add(el);
    if (inside) continue;
    const path = [];
    for (let e = el; e && e !== root && path.length < 4; e = e.parentElement) path.unshift(name(e));
    offenders.push(`${path.join(' > ')} (${Math.round(r.left)}..${Math.round(r.right)} px): ` +
                   (el.textContent || '').trim().slice(0, 60));
  }
  return {scrollWidth: document.documentElement.scrollWidth, offenders: offenders.slice(0, 5)};
}
"""

# The launch buttons' links (Binder, Colab, the repository): the only outside addresses a page
# may name, and only as links the reader follows, never as a request the page makes by itself.
_LAUNCH_LINKS = """
() => [...document.querySelectorAll('.dropdown-launch-buttons a[href], .dropdown-source-buttons a[href]')]
        .map(a => a.href)
"""


@contextlib.contextmanager
def offline_browser(site: Path, *, chromium: str, viewport: dict | None = None):
    """Serve ``site`` on 127.0.0.1 and open headless Chromium on it, with no network.

    Yields ``(base_url, context)``. Requests to the site pass; every other request is refused
    (the site must need none: it serves its own MathJax). ``browser_check`` reports them.
    """
    from playwright.sync_api import sync_playwright

    with serve(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        context = browser.new_context(viewport=viewport) if viewport else browser.new_context()
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
        try:
            yield base, context
        finally:
            context.close()
            browser.close()


def is_outside(url: str, base: str) -> bool:
    """A request that leaves the site's host (``data:`` and ``blob:`` URLs stay in the page)."""
    return not url.startswith(base) and urlsplit(url).scheme in ("http", "https", "ws", "wss", "ftp")


def _check_share(site: Path, pages: list[Path], chromium: str, axe: Path | None, timeout_ms: int):
    """One worker's share of ``browser_check``: its results and its lesser axe-core findings."""
    findings: dict = {}
    return browser_check(site, pages, chromium=chromium, axe=axe, timeout_ms=timeout_ms, findings=findings), findings


def browser_check(site: Path, pages: list[Path] | None = None, *, chromium: str, axe: Path | None = None,
                  timeout_ms: int = 30_000, findings: dict | None = None, workers: int = 1) -> dict[str, list[str]]:
    """Load every page in headless Chromium and return ``{page: [problems]}`` (empty lists when fine).

    With ``workers`` > 1 the pages are shared (round robin, as long and short pages alternate)
    among that many processes, each with its own server and browser.

    A page has a problem when it does not load with HTTP 200; when one of its own requests
    fails or returns an HTTP error; when it requests anything from another host (a CDN, fonts,
    analytics: the launch buttons' targets are links, allowed but never requested at load);
    when an image does not load; when a math element was not typeset by MathJax or MathJax
    reported an error; when a literal ``$`` is left in its rendered text outside code (math
    that MyST did not parse, which ``-W`` does not catch); at the width of a phone (390 px),
    when anything outside a box that scrolls sticks out sideways; and, with ``axe`` (the path
    of axe-core's ``axe.min.js``), when axe-core finds a violation of impact "serious" or
    "critical". Its other violations go to ``findings`` (``{page: [violation]}``), if given.
    """
    site = Path(site).resolve()
    pages = html_pages(site) if pages is None else pages
    results: dict[str, list[str]] = {}
    if workers > 1 and len(pages) > 1:
        import concurrent.futures
        import multiprocessing

        shares = [pages[i::workers] for i in range(min(workers, len(pages)))]
        with concurrent.futures.ProcessPoolExecutor(len(shares), mp_context=multiprocessing.get_context("spawn")) as pool:
            done = [pool.submit(_check_share, site, share, chromium, axe, timeout_ms) for share in shares]
            for future in done:
                part, lesser = future.result()
                results.update(part)
                if findings is not None:
                    findings.update(lesser)
        return {page: results[page] for page in sorted(results)}
    with offline_browser(site, chromium=chromium) as (base, context):
        for path in pages:
            rel = str(path.relative_to(site))
            target = redirect_target(path)
            if target is not None:
                # a redirect stub (Sphinx writes index.html -> intro.html): check where it points
                dest = (path.parent / target.split("#")[0]).resolve()
                results[rel] = [] if dest.exists() else [f"redirect to missing page {target!r}"]
                continue
            problems: list[str] = []
            bad_responses: list[str] = []
            outside: list[str] = []

            def on_request(req, outside=outside):
                if is_outside(req.url, base):
                    outside.append(req.url)

            def on_response(resp, bad=bad_responses):
                if resp.status >= 400 and resp.url.startswith(base):
                    bad.append(f"HTTP {resp.status} for {resp.url}")

            def on_failed(req, bad=bad_responses):
                if req.url.startswith(base):
                    bad.append(f"request failed: {req.url} ({req.failure})")

            # a fresh tab per page, so that requests cut off by one page's unloading are
            # never blamed on the next
            page = context.new_page()
            page.on("request", on_request)
            page.on("response", on_response)
            page.on("requestfailed", on_failed)
            info = violations = overflow = None
            launch: list[str] = []
            try:
                resp = page.goto(base + rel, wait_until="load", timeout=timeout_ms)
                if resp is None or resp.status != 200:
                    problems.append(f"page load: HTTP {None if resp is None else resp.status}")
                info = page.evaluate(_PAGE_PROBE)
                launch = page.evaluate(_LAUNCH_LINKS)
                if axe is not None:
                    page.add_script_tag(path=str(axe))
                    violations = page.evaluate(_AXE_RUN)
                # the theme animates its sidebars off screen when the window narrows: measure the
                # layout the phone shows, not a frame of that animation
                page.add_style_tag(content="*, *::before, *::after { transition: none !important; "
                                           "animation: none !important; }")
                page.set_viewport_size(PHONE)
                page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
                overflow = page.evaluate(_OVERFLOW_PROBE, PHONE["width"])
            except Exception as exc:  # a crash or timeout is a problem of the page, reported as such
                problems.append(f"could not check page: {exc!r}"[:300])
            finally:
                page.remove_listener("request", on_request)
                page.remove_listener("response", on_response)
                page.remove_listener("requestfailed", on_failed)
                page.close()
            problems += bad_responses
            for url in dict.fromkeys(outside):
                if url not in launch:
                    problems.append(f"request to another host: {url}")
            if info is not None:
                if info["math"] and not info["mathjax"]:
                    problems.append("page has math but MathJax did not load")
                if info["untypeset"]:
                    problems.append(f"{len(info['untypeset'])} math element(s) not typeset, e.g. {info['untypeset'][0]!r}")
                if info["merror"]:
                    problems.append(f"{info['merror']} MathJax error(s)")
                for text in info["dollars"][:5]:
                    problems.append(f"stray '$' in rendered text: {text!r}")
                for src in info["images"]:
                    problems.append(f"image did not load: {src}")
            for v in violations or []:
                if v["impact"] in FAILING_IMPACTS:
                    problems.append(f"accessibility ({v['impact']}): {v['id']}: {v['help']}, {v['count']} element(s), "
                                    f"e.g. {'; '.join(v['targets'][:2])}")
                elif findings is not None:
                    findings.setdefault(rel, []).append(v)
            if overflow is not None:
                if overflow["offenders"] or overflow["scrollWidth"] > PHONE["width"] + 1:
                    problems.append(f"scrolls sideways at {PHONE['width']} px (page {overflow['scrollWidth']} px wide): "
                                    + ("; ".join(overflow["offenders"]) or "no element of the article named"))
            results[rel] = problems
    return results


def a11y_report(findings: dict, pages: int) -> str:
    """The non-failing axe-core findings as Markdown: one section per rule, with its pages."""
    by_rule: dict[str, dict] = {}
    for page, violations in sorted(findings.items()):
        for v in violations:
            rule = by_rule.setdefault(v["id"], {"impact": v["impact"], "help": v["help"], "pages": []})
            rule["pages"].append(f"{page} ({v['count']}: {'; '.join(v['targets'][:2])})")
    lines = ["# Accessibility report (axe-core)", "",
             f"{pages} pages checked. Violations of impact {' or '.join(FAILING_IMPACTS)} fail the browser check; "
             "these are the others.", ""]
    if not by_rule:
        lines.append("None.")
    for rule_id, rule in sorted(by_rule.items()):
        lines += [f"## {rule_id} ({rule['impact']}): {rule['help']}", ""] + [f"- {p}" for p in rule["pages"]] + [""]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ figures' alt text
_FILE_LIKE = re.compile(r"(^|/)[^/\s]+\.(png|jpe?g|gif|svg|webp|pdf)$|[0-9a-f]{16,}|^\.{0,2}/", re.I)
MIN_ALT_WORDS = 6


class _Images(HTMLParser):
    """The images of a page's article (its content, not the theme's icons and logos)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.article = 0                                  # depth of <article> elements open
        self.figures: list[str] = []
        self.images: list[tuple[str | None, dict]] = []   # (enclosing figure's id, attributes)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article":
            self.article += 1
        elif tag == "figure":
            self.figures.append(a.get("id") or "")
        elif tag == "img" and self.article:
            self.images.append((self.figures[-1] if self.figures else None, a))

    def handle_endtag(self, tag):
        if tag == "figure" and self.figures:
            self.figures.pop()
        elif tag == "article" and self.article:
            self.article -= 1


def alt_text_problems(alt: str | None) -> str | None:
    """Why an ``alt`` text tells a listener nothing (``None`` when it is a description)."""
    if alt is None or not alt.strip():
        return "no alt text"
    if _FILE_LIKE.search(alt.strip()):
        return f"alt text is a file name: {alt[:80]!r}"
    if len(alt.split()) < MIN_ALT_WORDS:
        return f"alt text too short to say what the figure shows: {alt!r}"
    return None


def check_alt_text(root: Path, under: str = "chapters") -> list[str]:
    """Every image in the article of the pages under ``under`` has alt text that says what it shows:
    not empty, not a file name, path or hash (what Sphinx writes when none is given), and at
    least a short sentence. Names each page and figure (by its label) that lacks it."""
    root = Path(root)
    problems = []
    for page in html_pages(root / under):
        parser = _Images()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        for n, (figure, attrs) in enumerate(parser.images, start=1):
            why = alt_text_problems(attrs.get("alt"))
            if why:
                where = f"figure {figure!r}" if figure else f"image {n} (not in a figure)"
                problems.append(f"{page.relative_to(root)}: {where}, {attrs.get('src', '?')}: {why}")
    return problems


_STDERR = re.compile(r'<div class="output (stderr|traceback)[^"]*"[^>]*>(.*?)</div>', re.S)


def check_cell_stderr(root: Path, under: str = "chapters") -> list[str]:
    """No code cell of a page under ``under`` shows a reader a warning or an error: a cell that writes to
    stderr (a ``RuntimeWarning`` from a division by zero, a deprecation) is output the prose does not
    explain, and usually a computation done on values it then throws away. Names the page and the
    first line of each such output."""
    root = Path(root)
    problems = []
    for page in html_pages(root / under):
        for kind, body in _STDERR.findall(page.read_text(encoding="utf-8", errors="replace")):
            text = html.unescape(re.sub(r"<[^>]+>", "", body)).strip()
            first = text.splitlines()[0] if text else "(empty)"
            problems.append(f"{page.relative_to(root)}: {kind} output: {first[:200]}")
    return problems
