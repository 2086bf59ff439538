"""Take full-page screenshots of built pages, offline, as a reader's browser shows them.

    .venv/bin/python scripts/screenshot.py _build/html chapters/definition/definition.html out.png [--width 1200]

MathJax is answered from the local copy that ``make test`` installs (.cache/mathjax).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import sitecheck  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("page")
    ap.add_argument("out", type=Path)
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--full", action="store_true", help="whole page, not just the first screen")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    chromium, mathjax = sitecheck.find_chromium(), sitecheck.find_mathjax()
    with sitecheck.serve(args.site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=sitecheck.CHROMIUM_FLAGS)
        ctx = browser.new_context(viewport={"width": args.width, "height": args.height})

        def route(r):
            m = sitecheck.MATHJAX_URL.match(r.request.url)
            if m:
                return r.fulfill(path=str(mathjax / m["path"]))
            return r.continue_() if r.request.url.startswith(base) else r.abort()

        ctx.route("**/*", route)
        page = ctx.new_page()
        page.goto(base + args.page)
        page.evaluate("async () => { if (window.MathJax) await MathJax.startup.promise; }")
        page.screenshot(path=str(args.out), full_page=args.full)
        browser.close()


if __name__ == "__main__":
    main()
