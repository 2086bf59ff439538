"""A fingerprint of the accountant's code, stored beside every measurement the tests compare with it.

``chapters/learning/accountant-box.json`` and the delta corners of ``accountant-truth.json`` hold
values computed by ``dpnotes.subsampling`` (with ``loss`` and ``divergences``, which it calls). Only
``make verify`` recomputes the slow ones, so a change to that code could leave them stale until CI
(it did twice, 2026-11-27 and 2026-11-28). Each file therefore records the fingerprint of the code
that measured it, and ``make test`` fails as soon as the code differs (tests/test_accountant_box.py);
``make stored`` then recomputes every stored value with the current code and stamps the files
only if all of them still agree (scripts/stamp_stored.py).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the modules whose arithmetic the stored values depend on (subsampling imports from the other two)
SOURCES = ("dpnotes/subsampling.py", "dpnotes/loss.py", "dpnotes/divergences.py")
STORED = ("chapters/learning/accountant-box.json", "chapters/learning/accountant-truth.json")


def fingerprint() -> str:
    """The SHA-256 of the accountant's source files, in a fixed order (line endings as checked out)."""
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0")
    return digest.hexdigest()
