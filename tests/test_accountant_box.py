"""The accountant's box, as measured by ``benchmarks/bench_subsampling.py --write``, is current and complete.

The accounting page shows the slow corner of the box (issue 22) from
``chapters/learning/accountant-box.json``: each point's epsilon, time and difference from a
five times finer mesh. The times belong to the machine that measured them; the epsilons belong
to the code. This file makes sure the stored epsilons are what the current code computes (a
change to the accountant that is not followed by a new ``--write`` fails here), and that the
grid reaches the corners of the box the page talks about.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from accountant_code import STORED, ROOT, fingerprint
from dpnotes import subsampling as sub
from profiles import THOROUGH

BOX = Path(__file__).resolve().parents[1] / "chapters" / "learning" / "accountant-box.json"
DATA = json.loads(BOX.read_text())
POINTS = DATA["points"]


@pytest.mark.parametrize("name", STORED)
def test_the_stored_measurements_belong_to_the_current_accountant(name):
    """Fast and complete where recomputing is slow: any change to the accountant's code (tests/accountant_code.py)
    since a stored file was measured fails here, in make test, not only in make verify's recomputation."""
    assert json.loads((ROOT / name).read_text()).get("accountant_fingerprint") == fingerprint(), (
        f"{name} was measured by other accountant code: run make stored (recomputes every stored value with this "
        "code, then stamps the files if they all agree)")


def test_the_grid_reaches_the_corners_of_the_box():
    """q from 1e-6, sigma from 0.4 to 100, T up to 1e6, delta from 1e-12 to 0.1, both relations."""
    assert min(p["q"] for p in POINTS) == 1e-6
    assert {min(p["sigma"] for p in POINTS), max(p["sigma"] for p in POINTS)} == {0.4, 100.0}
    assert max(p["steps"] for p in POINTS) == 1_000_000
    assert {min(p["delta"] for p in POINTS), max(p["delta"] for p in POINTS)} == {1e-12, 0.1}
    assert {p["relation"] for p in POINTS} == set(sub.RELATIONS)
    # the hardest corner itself (smallest q and sigma, most steps, smallest delta) is measured
    assert any(p["q"] == 1e-6 and p["sigma"] == 0.4 and p["steps"] == 1_000_000 and p["delta"] == 1e-12
               for p in POINTS)


def test_every_point_has_a_time_and_an_error():
    for p in POINTS:
        assert p["seconds"] > 0 and p["cpu_seconds"] >= 0, p
        assert math.isfinite(p["rel_diff"]), p
        assert p["epsilon"] >= 0, p


# Recomputing every point takes minutes: the fast profile (make test) recomputes every fourth of
# the points that took under 0.2 s, which is enough to see any change to the accountant's
# arithmetic; the thorough profile (make verify) recomputes all of them, the slow corner included.
CHECKED = POINTS if THOROUGH else [p for p in POINTS if p["cpu_seconds"] < 0.2][::4]


@pytest.mark.parametrize("point", CHECKED,
                         ids=[f"{p['q']:g}-{p['sigma']:g}-{p['steps']}-{p['delta']:g}-{p['relation']}" for p in CHECKED])
def test_stored_epsilon_is_what_the_code_computes(point):
    eps = sub.subsampled_gaussian_epsilon(point["q"], point["sigma"], point["steps"], point["delta"],
                                          relation=point["relation"])
    # the accountant is deterministic; 1e-9 leaves room for the FFT library's thread count
    assert eps == pytest.approx(point["epsilon"], rel=1e-9, abs=1e-12), \
        "chapters/learning/accountant-box.json is stale: rerun benchmarks/bench_subsampling.py --write"


def test_the_few_step_points_off_the_grid_are_measured():
    """The nearly discrete region (q = 1e-6, sigma = 0.4, two to ten steps, delta near 1e-6), slower than the grid's
    corner and capped, is measured in both relations (the accounting page shows it: benchmarks/bench_subsampling.py
    EXTRA); every point says whether it is on the grid."""
    assert all(isinstance(p["on_grid"], bool) for p in POINTS)
    added = {(p["q"], p["sigma"], p["steps"], p["delta"], p["relation"]) for p in POINTS if not p["on_grid"]}
    for relation in sub.RELATIONS:
        for point in ((1e-6, 0.4, 2, 1e-6), (1e-6, 0.4, 2, 1e-7), (1e-6, 0.4, 10, 10**-5.5)):
            assert (*point, relation) in added
