"""A limit on this process's CPU time for a test's call, shared by the tests that must not hang.

A call that loops forever on a bad value, or on a mutant, should fail its test rather than hold the
run. The limit counts this process's CPU time (ITIMER_PROF), not the clock: a call that spins is
stopped, while one that waits for a core on a loaded machine is not (a fresh clone's make test
stopped the accountant after 10 s of the clock while two other jobs held the cores). The
conftest's per-mutant limit uses ITIMER_REAL, which this leaves alone.
"""
from __future__ import annotations

import contextlib
import signal


class CPUTimeExceeded(Exception):
    """Raised inside the limited block when its CPU time runs out."""


@contextlib.contextmanager
def cpu_seconds(seconds: float, what: str = "the call"):
    """Run the block with a limit of ``seconds`` of CPU time; past it, raise CPUTimeExceeded."""
    if not seconds > 0:
        raise ValueError(f"seconds must be > 0, got {seconds!r}")

    def stop(signum, frame):
        raise CPUTimeExceeded(f"{what} still running after {seconds} s of CPU")

    old = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
