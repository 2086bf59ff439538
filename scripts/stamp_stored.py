"""Recompute every stored measurement of the accountant with the current code; stamp the files if all agree.

Run from the book root (``make stored``; 2 to 4 minutes on 2 cores):

    .venv/bin/python scripts/stamp_stored.py

Runs the thorough profile of the two tests that recompute the stored values (every point of
``accountant-box.json``; every delta corner of ``accountant-truth.json``, with its Laplace
inversion). If they pass, the fingerprint of the current accountant code (tests/accountant_code.py)
is written into both files, and ``make test``'s fingerprint check passes again. If they fail, the
files are left alone: rerun ``benchmarks/bench_subsampling.py --write`` (the box, on a quiet
machine) or ``benchmarks/truth_subsampling.py --corners --write`` (the corners), which stamp what
they write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from accountant_code import STORED, fingerprint    # noqa: E402

TESTS = ["tests/test_accountant_box.py::test_stored_epsilon_is_what_the_code_computes",
         "tests/test_subsampling_inversion.py::test_the_delta_side_at_a_huge_epsilon_against_the_inversion"]


def stamp(path: Path, code: str) -> None:
    """Write the fingerprint ``code`` into one stored file (its other contents unchanged)."""
    data = json.loads(path.read_text())
    data["accountant_fingerprint"] = code
    path.write_text(json.dumps(data, indent=1) + "\n")


def main() -> int:
    code = fingerprint()                # of the code the tests below import
    env = dict(os.environ, DPNOTES_PROFILE="thorough", OPENBLAS_NUM_THREADS="1")
    rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", *TESTS],
                         cwd=ROOT, env=env)
    if rc != 0:
        print("stored values differ from the current code: files not stamped; rerun "
              "benchmarks/bench_subsampling.py --write and/or benchmarks/truth_subsampling.py --corners --write")
        return rc
    if fingerprint() != code:
        print("the accountant's code changed while its stored values were checked: files not stamped; run again")
        return 1
    for name in STORED:
        stamp(ROOT / name, code)
        print(f"stamped {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
