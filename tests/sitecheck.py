"""Checks of a built website: internal links and images statically, math in a browser.

Used by ``tests/test_site.py`` on the built book and by ``scripts/bench.py``.
Nothing here reaches the network: pages are served from a local folder on
127.0.0.1, MathJax (which the site loads from a CDN) is answered from a local copy,
and every other outside request is refused.
"""

from __future__ import annotations

import contextlib
import functools
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
# Where the site asks for MathJax 3; answered from DPNOTES_MATHJAX_DIR (an npm mathjax@3 es5/ folder).
MATHJAX_URL = re.compile(r"^https?://[^/]+/npm/mathjax@3[^/]*/es5/(?P<path>.*)$")


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


@contextlib.contextmanager
def offline_browser(site: Path, *, chromium: str, mathjax_dir: Path, viewport: dict | None = None):
    """Serve ``site`` on 127.0.0.1 and open headless Chromium on it, offline.

    Yields ``(base_url, context)``. Requests to the site pass; requests for MathJax 3 on
    its CDN are answered from ``mathjax_dir`` (an npm ``mathjax@3`` ``es5/`` folder);
    every other request is refused, since the network is not ours to use.
    """
    from playwright.sync_api import sync_playwright

    with serve(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        context = browser.new_context(viewport=viewport) if viewport else browser.new_context()

        def route(r):
            url = r.request.url
            if url.startswith(base):
                return r.continue_()
            m = MATHJAX_URL.match(url)
            if m:
                local = Path(mathjax_dir) / m.group("path").split("?")[0]
                if local.is_file():
                    return r.fulfill(path=str(local))
                return r.fulfill(status=404, body="not in local MathJax copy")
            return r.abort()

        context.route("**/*", route)
        try:
            yield base, context
        finally:
            context.close()
            browser.close()


def browser_check(site: Path, pages: list[Path] | None = None, *, chromium: str, mathjax_dir: Path,
                  timeout_ms: int = 30_000) -> dict[str, list[str]]:
    """Load every page in headless Chromium and return ``{page: [problems]}`` (empty lists when fine).

    A page has a problem when it does not load with HTTP 200, when one of its own
    requests fails or returns an HTTP error, when an image does not load, when a
    math element was not typeset by MathJax or MathJax reported an error, or when
    a literal ``$`` is left in its rendered text outside code (math that MyST did
    not parse, which ``-W`` does not catch).
    """
    site = Path(site).resolve()
    pages = html_pages(site) if pages is None else pages
    results: dict[str, list[str]] = {}
    with offline_browser(site, chromium=chromium, mathjax_dir=mathjax_dir) as (base, context):
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

            def on_response(resp, bad=bad_responses):
                if resp.status >= 400 and (resp.url.startswith(base) or MATHJAX_URL.match(resp.url)):
                    bad.append(f"HTTP {resp.status} for {resp.url}")

            def on_failed(req, bad=bad_responses):
                if req.url.startswith(base):
                    bad.append(f"request failed: {req.url} ({req.failure})")

            # a fresh tab per page, so that requests cut off by one page's unloading are
            # never blamed on the next
            page = context.new_page()
            page.on("response", on_response)
            page.on("requestfailed", on_failed)
            try:
                resp = page.goto(base + rel, wait_until="load", timeout=timeout_ms)
                if resp is None or resp.status != 200:
                    problems.append(f"page load: HTTP {None if resp is None else resp.status}")
                info = page.evaluate(_PAGE_PROBE)
            except Exception as exc:  # a crash or timeout is a problem of the page, reported as such
                problems.append(f"could not check page: {exc!r}"[:300])
                info = None
            finally:
                page.remove_listener("response", on_response)
                page.remove_listener("requestfailed", on_failed)
                page.close()
            problems += bad_responses
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
            results[rel] = problems
    return results
