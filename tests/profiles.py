"""Two sizes for every search-type test: a fast profile for ``make test`` and a thorough one for ``make verify``.

One environment variable chooses both the Hypothesis profile (how many examples a property
test draws) and the size of the book's own randomized searches (fuzzers, seeded sweeps):

    DPNOTES_PROFILE=fast      (default)  make test
    DPNOTES_PROFILE=thorough             make verify

A test that searches asks ``size(fast=..., thorough=...)`` for its number of trials, so the two
profiles run the same code and differ only in how far they look.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("DPNOTES_PROFILE", "fast")
if PROFILE not in ("fast", "thorough"):
    raise ValueError(f"DPNOTES_PROFILE must be 'fast' or 'thorough', got {PROFILE!r}")
THOROUGH = PROFILE == "thorough"

# deadline=None: timing is measured in benchmarks/, never asserted in a test (and a loaded
# 2-core machine would make any deadline flaky). derandomize: make test draws the same examples
# on every run, so a red suite is reproducible.
# 25 examples in the fast profile (40 until 2026-11-27: the 257 property tests' 43 CPU seconds
# were the largest share of make test that make verify also covers, at 1000).
settings.register_profile(
    "fast", max_examples=25, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# The thorough profile is derandomized too, so that make verify (and CI) gives the same verdict
# on every run; DPNOTES_SEARCH=new draws fresh examples (a search for new counterexamples, whose
# failures print the blob that reproduces them).
# 300 examples in the thorough profile, twelve times the fast one (1000 until 2026-11-27: make verify
# took 26 min against its 20-minute target, the thorough unit tests 2219 CPU seconds of it and
# Hypothesis about 700 of those, beside the site's checks, which share the two cores). A search for
# new counterexamples beyond it: DPNOTES_SEARCH=new (fresh examples each run).
settings.register_profile(
    "thorough", max_examples=300, deadline=None, print_blob=True,
    derandomize=os.environ.get("DPNOTES_SEARCH") != "new",
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(PROFILE)


def size(fast: int, thorough: int) -> int:
    """The number of trials of a randomized search under the current profile."""
    return thorough if THOROUGH else fast
