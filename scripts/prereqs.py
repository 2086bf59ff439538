"""Check, before anything slow, that this machine has what ``make test`` needs beyond Python.

    python3 scripts/prereqs.py          (make test and make pdf run it first)

Prints one line saying what is missing and how to get it, and exits non-zero; prints
nothing and exits 0 when all is there. Standard library only: it runs before the virtual
environment exists.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import sitecheck  # noqa: E402  (stdlib-only at import)


def missing() -> list[tuple[str, str, str]]:
    """(what, Debian package, how to get it elsewhere) for each missing prerequisite."""
    out = []
    if sitecheck.find_chromium() is None:
        out.append(("headless Chromium", "chromium",
                    "pip install playwright && playwright install chromium"))
    if shutil.which("npm") is None:
        out.append(("npm", "npm", "Node.js from https://nodejs.org"))
    if shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None:
        out.append(("pdftotext/pdfinfo", "poppler-utils", "poppler's utilities from your package manager"))
    fc = shutil.which("fc-list")
    if fc is None or not subprocess.run([fc, ":lang=zh"], capture_output=True, text=True).stdout.strip():
        out.append(("a Chinese/Korean font", "fonts-noto-cjk", "Noto Sans CJK from https://fonts.google.com"))
    return out


def main() -> int:
    need = missing()
    if not need:
        return 0
    what = ", ".join(w for w, _, _ in need)
    debian = " ".join(p for _, p, _ in need)
    other = "; ".join(f"{w}: {o}" for w, _, o in need)
    print(f"make test needs {what}: on Debian/Ubuntu run `sudo apt-get install {debian}` "
          f"(or `bash .ci/run`, which installs them); elsewhere {other}.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
