"""High-precision references computed once, stored beside the tests, and checked again by ``make verify``.

A test whose reference is an mpmath computation of many seconds asks for it through a store::

    STORE = References("discrete")                       # tests/discrete_mp_references.json
    want = STORE.get(["tails", sigma, sens, eps], lambda: float(mp_tail(...)))

``make test`` (the fast profile) reads a stored value; a key not stored yet is computed (so a changed
input is never read from a stale entry: the key holds every input of the computation).
``make verify`` (the thorough profile) computes every reference again and checks it against the
stored value to ``rel``/``abs``. ``DPNOTES_STORE_MP=1`` writes every value a run computed back to the
file (run the tests once with it after adding a reference, under the thorough profile to refresh all).
"""

from __future__ import annotations

import atexit
import json
import os
from pathlib import Path

import pytest

from profiles import THOROUGH

HERE = Path(__file__).parent


class References:
    """The stored references of one test file: ``tests/<name>_mp_references.json``."""

    def __init__(self, name: str, rel: float = 1e-12, abs: float = 1e-12):
        self.path = HERE / f"{name}_mp_references.json"
        self.stored = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.computed: dict[str, float] = {}
        self.rel, self.abs = rel, abs
        atexit.register(self._write)

    def get(self, key_parts, compute):
        """The stored value of ``key_parts`` (a JSON-able list of every input), or ``compute()``."""
        key = json.dumps(key_parts)
        if key in self.stored and not THOROUGH:
            return self.stored[key]
        value = compute()
        if key in self.stored:          # make verify: the stored reference is what mpmath computes
            assert value == pytest.approx(self.stored[key], rel=self.rel, abs=self.abs), key
        self.computed[key] = value
        return value

    def _write(self):
        if os.environ.get("DPNOTES_STORE_MP") == "1" and self.computed:
            merged = dict(sorted({**self.stored, **self.computed}.items()))
            self.path.write_text(json.dumps(merged, indent=0) + "\n")
