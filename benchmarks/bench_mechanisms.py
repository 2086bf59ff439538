"""Timing of the Gaussian calibrations in dpnotes.mechanisms, side by side with the peers.

Prints one ``name<TAB>seconds_per_call[<TAB>note]`` line per measurement: the best of several
repeats of a loop of many calls, divided by the number of calls (the least disturbed estimate of
the cost of one call).

Peers of the analytic calibration (Balle and Wang 2018), timed in the same process and
interleaved round by round with dpnotes, so that load from other processes affects all alike:

* autodp's ``ana_gaussian_mech`` (Balle and Wang's own doubling and bisection, stopped when
  ``|delta(sigma) - delta| <= 1e-12``, an absolute tolerance);
* Google's dp-accounting ``get_sigma_gaussian`` (brentq on its log profile, ``xtol=1e-12``).

A peer that is not installed prints ``nan`` as its time and the note "not installed" (autodp is
not a dependency of the book: ``pip install autodp`` to compare). Each line's note gives that
implementation's accuracy at the point: the relative error of its sigma against the root of the
exact profile found by a 50-digit mpmath bisection, and ``delta(sigma)/delta - 1`` for the exact
(50-digit) profile at its sigma: above 0 means the sigma is too small, the mechanism is not
(eps, delta)-DP.

Issue 24's target: dpnotes' analytic calibration ahead of every peer at equal accuracy.

Run from the book root:  .venv/bin/python benchmarks/bench_mechanisms.py
With ``--accuracy-grid``: only the accuracy of the three implementations on the grid eps in
{1e-6, ..., 50} x delta in {1e-300, ..., 0.5} (49 points, one line each, then the worst of each).
"""

from __future__ import annotations

import argparse
import math
import timeit

import mpmath as mp
import numpy as np

from dpnotes import loss, mechanisms

_MU_1000 = np.logspace(-6, 1, 1000)
_EPS_1000 = np.linspace(0.0, 5.0, 1000)

CASES = [
    ("gaussian_sigma_analytic_eps1_delta1e-6", lambda: mechanisms.gaussian_sigma(1.0, 1e-6, method="analytic")),
    ("gaussian_sigma_analytic_eps0.01_delta1e-12", lambda: mechanisms.gaussian_sigma(0.01, 1e-12, method="analytic")),
    ("gaussian_sigma_analytic_eps10_delta1e-2", lambda: mechanisms.gaussian_sigma(10.0, 1e-2, method="analytic")),
    ("gaussian_sigma_classical_eps1_delta1e-6", lambda: mechanisms.gaussian_sigma(1.0, 1e-6, method="classical")),
    ("gaussian_delta_scalar", lambda: loss.gaussian_delta(1.0, 0.5)),
    # the cancellation-free integral branch (Phi(a) / delta > 1e6) and a mixed vector of 1000 points
    ("gaussian_delta_scalar_cancelling", lambda: loss.gaussian_delta(2e-5, 1e-6)),
    ("gaussian_delta_vector_1000_mixed", lambda: loss.gaussian_delta(_EPS_1000, _MU_1000)),
    ("gaussian_sigma_analytic_eps1e-4_delta1e-6", lambda: mechanisms.gaussian_sigma(1e-4, 1e-6, method="analytic")),
    ("gaussian_epsilon_delta1e-5_mu0.5", lambda: loss.gaussian_epsilon(1e-5, 0.5)),
]

# (eps, delta) for the side-by-side comparison: the point first, then small and large eps,
# tiny delta (where the peers' plain-float profiles lose their digits) and delta = 1/2
PEER_POINTS = [(1.0, 1e-6), (0.1, 1e-5), (1e-4, 1e-6), (10.0, 1e-2), (0.01, 1e-12), (1.0, 1e-100),
               (1.0, 1e-300), (50.0, 0.5)]


def seconds_per_call(func, number: int = 200, repeat: int = 5) -> float:
    func()  # warm up (imports of scipy submodules happen on first call)
    return min(timeit.repeat(func, number=number, repeat=repeat)) / number


def _peers() -> dict:
    """name -> sigma(eps, delta) for sensitivity 1, or the reason it is missing (a string)."""
    impls: dict = {"dpnotes": lambda e, d: mechanisms.gaussian_sigma(e, d, method="analytic")}
    try:
        # autodp 0.2.3: importing privacy_calibrator first is a circular import; rdp_acct first works
        import autodp.rdp_acct  # noqa: F401
        from autodp.privacy_calibrator import ana_gaussian_mech

        impls["autodp"] = lambda e, d: ana_gaussian_mech(e, d)["sigma"]
    except ImportError:
        impls["autodp"] = "not installed"
    try:
        from dp_accounting.gaussian_mechanism import get_sigma_gaussian

        impls["dp_accounting"] = get_sigma_gaussian
    except ImportError:
        impls["dp_accounting"] = "not installed"
    return impls


def _mp_profile(eps, sigma):
    return mp.ncdf(1 / (2 * sigma) - eps * sigma) - mp.e ** eps * mp.ncdf(-1 / (2 * sigma) - eps * sigma)


def mp_sigma(eps: float, delta: float) -> mp.mpf:
    """The exact analytic sigma at 50 digits: bisection on log(sigma) over [1e-3, 1e12] (64 halvings:
    a bracket of 2e-18 relative), independent of every implementation timed here."""
    with mp.workdps(50):
        e, d = mp.mpf(eps), mp.mpf(delta)
        lo, hi = mp.log(mp.mpf("1e-3")), mp.log(mp.mpf("1e12"))
        for _ in range(64):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _mp_profile(e, mp.e ** mid) > d else (lo, mid)
        return mp.e ** ((lo + hi) / 2)


def accuracy(eps: float, delta: float, sigma: float, ref) -> str:
    if not (isinstance(sigma, float) and math.isfinite(sigma) and sigma > 0):
        return f"returned {sigma!r}"
    with mp.workdps(50):
        rel = float((mp.mpf(sigma) - ref) / ref)
        excess = float(_mp_profile(mp.mpf(eps), mp.mpf(sigma)) / mp.mpf(delta) - 1)
    return f"sigma rel. error {rel:+.1e}, delta(sigma)/delta - 1 = {excess:+.1e}"


def compare_peers(rounds: int = 7) -> None:
    impls = _peers()
    live = {k: f for k, f in impls.items() if callable(f)}
    for eps, delta in PEER_POINTS:
        name = f"gaussian_sigma analytic (eps={eps:g}, delta={delta:g})"
        best = dict.fromkeys(live, math.inf)
        calls = {k: (lambda f=f: f(eps, delta)) for k, f in live.items()}
        number = {}
        for k, fn in calls.items():
            fn()                                                  # warm up, and size the loop to ~20 ms
            number[k] = max(3, int(0.02 / max(timeit.timeit(fn, number=1), 1e-7)))
        for _ in range(rounds):                                   # interleaved: load hits all alike
            for k, fn in calls.items():
                best[k] = min(best[k], timeit.timeit(fn, number=number[k]) / number[k])
        ref = mp_sigma(eps, delta)
        for k, f in impls.items():
            if not callable(f):
                print(f"{name}: {k}\tnan\t{f}")
                continue
            note = accuracy(eps, delta, float(f(eps, delta)), ref)
            if k == "dpnotes":
                others = [f"{o} takes {best[o] / best[k]:.2g}x this time" for o in live if o != k]
                note += "; " + ", ".join(others) if others else ""
            print(f"{name}: {k}\t{best[k]:.3e}\t{note}")


GRID_EPS = [1e-6, 1e-4, 1e-2, 0.1, 1.0, 10.0, 50.0]
GRID_DELTA = [1e-300, 1e-100, 1e-12, 1e-6, 1e-3, 0.1, 0.5]


def accuracy_grid() -> None:
    """Each implementation's sigma on the grid against the 50-digit root: relative error, and the exact
    delta(sigma)/delta - 1 (> 0: the sigma is too small for (eps, delta)-DP)."""
    impls = {k: f for k, f in _peers().items() if callable(f)}
    worst = {k: [0.0, -math.inf, 0] for k in impls}         # max |rel. error|, max excess, count excess > 1e-12
    for eps in GRID_EPS:
        for delta in GRID_DELTA:
            ref = mp_sigma(eps, delta)
            cells = []
            for k, f in impls.items():
                try:
                    sigma = float(f(eps, delta))
                except Exception as exc:                      # a peer's failure is part of the report
                    cells.append(f"{k}: {type(exc).__name__}")
                    worst[k][2] += 1
                    continue
                with mp.workdps(50):
                    rel = float((mp.mpf(sigma) - ref) / ref)
                    excess = float(_mp_profile(mp.mpf(eps), mp.mpf(sigma)) / mp.mpf(delta) - 1)
                worst[k][0] = max(worst[k][0], abs(rel))
                worst[k][1] = max(worst[k][1], excess)
                worst[k][2] += excess > 1e-12
                cells.append(f"{k}: {rel:+.1e} / {excess:+.1e}")
            print(f"eps={eps:g} delta={delta:g}  " + "  ".join(cells))
    for k, (rel, excess, bad) in worst.items():
        print(f"{k}: max |sigma rel. error| {rel:.1e}, max delta(sigma)/delta - 1 {excess:+.1e}, "
              f"points with delta(sigma) > delta (1 + 1e-12) or an error: {bad} of {len(GRID_EPS) * len(GRID_DELTA)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--accuracy-grid", action="store_true", help="only the accuracy of the peers on a grid")
    if ap.parse_args().accuracy_grid:
        accuracy_grid()
        return
    for name, func in CASES:
        print(f"{name}\t{seconds_per_call(func):.3e}")
    compare_peers()


if __name__ == "__main__":
    main()
