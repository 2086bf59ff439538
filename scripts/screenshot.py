"""Take full-page screenshots of built pages, offline, as a reader's browser shows them.

    .venv/bin/python scripts/screenshot.py _build/html chapters/definition/definition.html out.png [--width 1200]

The site is served on 127.0.0.1 with no network (it serves its own MathJax).
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
    chromium = sitecheck.find_chromium()
    viewport = {"width": args.width, "height": args.height}
    with sitecheck.offline_browser(args.site, chromium=chromium, viewport=viewport) as (base, ctx):
        page = ctx.new_page()
        page.goto(base + args.page)
        page.evaluate("async () => { if (window.MathJax) await MathJax.startup.promise; }")
        page.screenshot(path=str(args.out), full_page=args.full)

if __name__ == "__main__":
    main()
