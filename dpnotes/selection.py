r"""Private selection: the exponential mechanism, report noisy max and permute-and-flip.

A *selection* mechanism receives a utility (score) for every candidate of a finite
range :math:`\mathcal R = \{0, \dots, m-1\}`, computed from the data set, and releases
one candidate, favouring high utilities. Only the index is released, never a score.
Utilities are given as the vector ``utilities[r]`` :math:`= u(x, r)`; their
*sensitivity* is :math:`\Delta = \max_{x \simeq x'} \max_r |u(x, r) - u(x', r)|` over
the book's replace-one neighbours (:mod:`dpnotes`).

Every mechanism here is :math:`\varepsilon`-DP for any utility of sensitivity
:math:`\Delta`, whatever the neighbouring relation :math:`\Delta` is computed for:

* the exponential mechanism (:cite:`mcsherry2007mechanism`;
  :cite:`dwork2014algorithmic` Definition 3.4, Theorem 3.10) outputs :math:`r` with
  probability proportional to :math:`\exp(\varepsilon u(x, r) / (2\Delta))`;
* report noisy max adds independent noise of scale :math:`2\Delta/\varepsilon` to every
  utility and releases the index of the largest noisy value. With Gumbel noise its law
  *is* the exponential mechanism's; with exponential noise it is permute-and-flip
  (:cite:`ding2021permute`); with Laplace noise it is :math:`\varepsilon`-DP because the
  threshold a candidate's noise must beat moves by at most :math:`2\Delta`.
* permute-and-flip (:cite:`mckenna2020permute`) visits the candidates in a uniformly
  random order and stops at candidate :math:`r` with probability
  :math:`\exp(\varepsilon (u_r - u^*) / (2\Delta))`, :math:`u^* = \max_s u_s`.

Utilities that are *monotone* (on every neighbouring pair all utilities move in the same
direction, as counts do when a record is added) allow half the noise
(:cite:`dwork2014algorithmic` Claim 3.9 and the remark after Theorem 3.10): that
mechanism at :math:`\varepsilon` is the one here called with ``2 * epsilon``. Counts are
*not* monotone under replace-one (one count goes up, another down), so for the book's
relation the factor 2 is not available for them.

Exact output laws: :func:`exponential_mechanism_probabilities` (closed form, log space),
:func:`permute_and_flip_probabilities` (a one-dimensional polynomial integral, done
exactly by Gauss-Legendre quadrature) and :func:`report_noisy_max_probabilities`
(numerical quadrature of the law of the argmax, for any of the three noises).
The samplers take ``size`` for many independent runs at once.
"""

from __future__ import annotations

import math
import numbers
import reprlib

import numpy as np
from scipy import integrate, optimize
from scipy.special import logsumexp, roots_legendre

from ._validate import MAX_ENTRIES, check_in_range, check_integer, check_nonnegative, check_positive, check_rng

__all__ = [
    "exponential_mechanism_probabilities",
    "exponential_mechanism",
    "report_noisy_max",
    "report_noisy_max_probabilities",
    "permute_and_flip",
    "permute_and_flip_probabilities",
    "accuracy_gap",
    "quantile_utility",
    "median_utility",
]

NOISES = ("laplace", "exponential", "gumbel")
_CHUNK = 2_000_000          # largest number of noise draws held in memory at once


# --------------------------------------------------------------------------- validation
def _real_array(name: str, values) -> np.ndarray:
    """``values`` as a float array if every entry is a real number (not a bool, a string or None).

    A local helper: numpy's own conversion would accept ``True`` and answer a string with
    "could not convert string to float", which does not name the parameter. Exact numbers
    (:class:`fractions.Fraction`) are accepted and converted.
    """
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):             # a ragged nesting of sequences
        arr = None
    if arr is not None and arr.dtype.kind == "O":
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in arr.ravel()):
            arr = arr.astype(float)
    if arr is None or arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be an array of real numbers, got {reprlib.repr(values)}")
    return arr.astype(float)


def _utilities(utilities) -> np.ndarray:
    u = _real_array("utilities", utilities)
    if u.ndim != 1 or u.size == 0:
        raise ValueError(f"utilities must be a non-empty 1-D sequence, got shape {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError(f"utilities must be finite, got {u.tolist()}")
    return u


def _scale(epsilon, sensitivity) -> float:
    """The noise scale 2*Delta/epsilon shared by every mechanism of the module."""
    epsilon = check_positive("epsilon", epsilon)
    sensitivity = check_positive("sensitivity", sensitivity)
    return 2.0 * sensitivity / epsilon


def _logits(u: np.ndarray, epsilon, sensitivity) -> np.ndarray:
    r"""The shifted logits :math:`\varepsilon (u_r - u^*) / (2\Delta) \le 0`, :math:`u^* = \max_s u_s`.

    Every mechanism of the module depends on the utilities only through these (its law is
    invariant to adding a constant to every utility). The shift comes first, so a utility of
    ``1e20`` keeps the differences that matter, and the product is formed from the binary
    mantissas and exponents of the gap, ``epsilon`` and ``sensitivity`` (:func:`numpy.frexp`),
    so no intermediate over- or underflows whatever finite parameters are given: a logit below
    the most negative double is ``-inf`` (probability 0), and the best candidates have 0.
    """
    epsilon = check_positive("epsilon", epsilon)
    sensitivity = check_positive("sensitivity", sensitivity)
    top = u.max()
    with np.errstate(over="ignore"):
        gap = top - u                          # >= 0, rounded once; inf only beyond the largest double
    if np.isinf(gap).any():                    # halving is exact for such large numbers
        mant, expo = np.frexp(top * 0.5 - u * 0.5)
        expo = expo + 1
    else:
        mant, expo = np.frexp(gap)
    m_eps, e_eps = math.frexp(epsilon)
    m_sen, e_sen = math.frexp(sensitivity)
    with np.errstate(over="ignore", under="ignore"):
        return -np.ldexp(mant * (m_eps / m_sen), expo + (e_eps - e_sen - 1))


def _size(size) -> int:
    return 1 if size is None else check_integer("size", size, low=1, high=MAX_ENTRIES)


def _noise(noise) -> str:
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {', '.join(repr(n) for n in NOISES)}, got {noise!r}")
    return noise


def _finish(idx: np.ndarray, size):
    return int(idx[0]) if size is None else idx


# --------------------------------------------------------------------------- exponential mechanism
def exponential_mechanism_probabilities(utilities, epsilon, sensitivity=1.0) -> np.ndarray:
    r"""Exact output law of the exponential mechanism: :math:`p_r \propto \exp(\varepsilon u_r / (2\Delta))`.

    :math:`\varepsilon`-DP for utilities of sensitivity :math:`\Delta`
    (:cite:`dwork2014algorithmic` Theorem 3.10). Computed in log space with
    :func:`scipy.special.logsumexp` from the utilities' gaps to the largest, so it is invariant to
    adding a constant to every utility and nothing overflows for any finite utilities
    (``1e300`` included), ``epsilon`` and ``sensitivity``.

    Parameters
    ----------
    utilities : array_like, shape (m,)
        Finite utilities :math:`u(x, r)` of the ``m`` candidates.
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float
        Sensitivity :math:`\Delta` of the utility, ``> 0``.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The probability of each candidate.

    Raises
    ------
    ValueError
        If ``utilities`` is not a non-empty 1-D array of finite numbers, or ``epsilon`` or
        ``sensitivity`` is not ``> 0`` and finite.

    Examples
    --------
    >>> p = exponential_mechanism_probabilities([0.0, 2.0], epsilon=1.0)
    >>> bool(np.isclose(p[1] / p[0], np.e))
    True
    >>> exponential_mechanism_probabilities([1000.0, 1000.0], 2.0).tolist()
    [0.5, 0.5]
    """
    logits = _logits(_utilities(utilities), epsilon, sensitivity)   # the shift first: see _logits
    return np.exp(logits - logsumexp(logits))


def exponential_mechanism(utilities, epsilon, sensitivity=1.0, *, rng, size=None):
    r"""Sample the exponential mechanism (:cite:`mcsherry2007mechanism`).

    Draws by inversion of the cumulative law of
    :func:`exponential_mechanism_probabilities`: with :math:`V` uniform on
    :math:`[0, 1)`, the output is the number of cumulative probabilities
    :math:`\le V`.

    Parameters
    ----------
    utilities, epsilon, sensitivity
        As in :func:`exponential_mechanism_probabilities`.
    rng : numpy.random.Generator
        The generator of the draws.
    size : int, optional
        Number of independent runs, in ``[1, 10**8]`` (arrays of that many draws are built:
        800 MB each at the cap); ``None`` (default) for one run.

    Returns
    -------
    int or numpy.ndarray of int
        The index of the selected candidate (an array of ``size`` indices if
        ``size`` is given).

    Raises
    ------
    ValueError
        If ``utilities`` is not a non-empty 1-D array of finite numbers, or ``epsilon`` or
        ``sensitivity`` is not ``> 0`` and finite, ``rng`` is not a :class:`numpy.random.Generator` or ``size`` is not an integer in ``[1, 10**8]``.

    Examples
    --------
    >>> exponential_mechanism([0.0, 50.0, 0.0], 1.0, rng=np.random.default_rng(0))
    1
    >>> exponential_mechanism([0.0, 0.0], 1.0, rng=np.random.default_rng(0), size=4).shape
    (4,)
    """
    p = exponential_mechanism_probabilities(utilities, epsilon, sensitivity)
    rng = check_rng("rng", rng)
    n = _size(size)
    cdf = np.cumsum(p)
    idx = np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right")
    return _finish(np.minimum(idx, p.size - 1), size)


# --------------------------------------------------------------------------- report noisy max
def report_noisy_max(utilities, epsilon, sensitivity=1.0, noise="laplace", *, rng, size=None):
    r"""Report noisy max: the index of the largest :math:`u_r + (2\Delta/\varepsilon) Z_r`.

    The :math:`Z_r` are independent standard draws of ``noise``: Laplace
    (``rng.laplace(0, 1)``), exponential (``rng.standard_exponential()``) or Gumbel
    (``rng.gumbel(0, 1)``). The index is computed as that of the largest
    :math:`a_r + Z_r`, :math:`a_r = \varepsilon(u_r - u^*)/(2\Delta)` (:math:`u^* = \max_s u_s`),
    the same in exact arithmetic; in floating point :math:`u_r + (2\Delta/\varepsilon) Z_r` would
    let large utilities absorb the noise (at :math:`u_r = 10^{20}` a tie would always go to the
    first candidate). The scale :math:`2\Delta/\varepsilon` makes every variant
    :math:`\varepsilon`-DP for utilities of sensitivity :math:`\Delta` under any
    neighbouring relation; for monotone utilities (counts under add/remove,
    :cite:`dwork2014algorithmic` Claim 3.9) scale :math:`\Delta/\varepsilon` suffices,
    which is this function called with ``2 * epsilon``. With Gumbel noise the law is that
    of the exponential mechanism, with exponential noise that of permute-and-flip
    (:cite:`ding2021permute`).

    Parameters
    ----------
    utilities, epsilon, sensitivity
        As in :func:`exponential_mechanism_probabilities`.
    noise : {"laplace", "exponential", "gumbel"}
        The law of the standard noise :math:`Z_r`.
    rng : numpy.random.Generator
        The generator of the draws.
    size : int, optional
        Number of independent runs, in ``[1, 10**8]`` (arrays of that many draws are built:
        800 MB each at the cap); ``None`` (default) for one run.

    Returns
    -------
    int or numpy.ndarray of int
        The index of the largest noisy utility (one per run).

    Raises
    ------
    ValueError
        If ``utilities`` is not a non-empty 1-D array of finite numbers, or ``epsilon`` or
        ``sensitivity`` is not ``> 0`` and finite, ``noise`` is not one of the three names, ``rng`` is not a
        :class:`numpy.random.Generator` or ``size`` is not an integer in ``[1, 10**8]``.

    Examples
    --------
    >>> report_noisy_max([0.0, 40.0, 0.0], 1.0, rng=np.random.default_rng(0))
    1
    >>> report_noisy_max([0.0, 1.0], 1.0, noise="gumbel", rng=np.random.default_rng(0), size=3).shape
    (3,)
    """
    a = _logits(_utilities(utilities), epsilon, sensitivity)
    noise = _noise(noise)
    rng = check_rng("rng", rng)
    n = _size(size)
    draw = {
        "laplace": lambda shape: rng.laplace(0.0, 1.0, shape),
        "exponential": rng.standard_exponential,
        "gumbel": lambda shape: rng.gumbel(0.0, 1.0, shape),
    }[noise]
    idx = np.empty(n, dtype=np.int64)
    block = max(1, _CHUNK // a.size)
    for start in range(0, n, block):
        rows = min(block, n - start)
        idx[start:start + rows] = np.argmax(a + draw((rows, a.size)), axis=1)
    return _finish(idx, size)


# Standard (scale 1) noise laws as (log density, log CDF) of a float. Written with
# :mod:`math` rather than scipy.stats because scipy.integrate.quad calls the integrand
# one point at a time and the scipy.stats call overhead would dominate;
# tests/test_selection.py compares them with scipy.stats.
def _laplace_logpdf(z):
    return -abs(z) - math.log(2.0)


def _laplace_logcdf(z):
    return z - math.log(2.0) if z < 0 else math.log1p(-0.5 * math.exp(-z))


def _exponential_logpdf(z):
    return -z if z >= 0 else -math.inf


_LOG2 = math.log(2.0)


def _exponential_logcdf(z):
    # log(1 - e^-z): through expm1 below log 2, through log1p above (log(-expm1(-z)) was 0.0 for -4.2e-18 at z = 40)
    if z <= 0:
        return -math.inf
    return math.log(-math.expm1(-z)) if z < _LOG2 else math.log1p(-math.exp(-z))


def _gumbel_logpdf(z):
    return -z - math.exp(-z) if z > -700 else -math.inf


def _gumbel_logcdf(z):
    return -math.exp(-z) if z > -700 else -math.inf


_LAWS = {
    "laplace": (_laplace_logpdf, _laplace_logcdf),
    "exponential": (_exponential_logpdf, _exponential_logcdf),
    "gumbel": (_gumbel_logpdf, _gumbel_logcdf),
}


def _log_win_probability(a, r, noise) -> float:
    """log Pr[candidate r has the largest a_s + Z_s], Z_s i.i.d. standard ``noise``.

    The winning value w = a_r + Z_r has density f(w - a_r) and beats every other
    candidate with probability prod_s F(w - a_s), so the answer is the integral over w
    of f(w - a_r) prod_{s != r} F(w - a_s). The ``a`` are the shifted logits of ``_logits``
    (the largest is 0; -inf never wins and beats nobody). The integrand is log-concave
    (Laplace, exponential and Gumbel densities and CDFs are) and smooth between the kinks at
    the a_s. Its maximum c is found first (right of a_r: left of it every factor increases
    with w); then, by log-concavity, the integrand is below exp(c - 80) outside the interval
    [L, R] found by stepping out from the peak in doubling steps, and decays at least
    exponentially beyond, so what lies outside is of relative order e^-80. The integral over
    [L, R], divided by exp(c), is computed piece by piece between the kinks with
    scipy.integrate.quad. (Before
    the interval was cut to [L, R], quad over [0, inf) missed a peak at w = 5e5 and answered
    1/2 for a sure winner.)
    """
    a_r = float(a[r])
    if a_r < -800.0:
        # Pr[r wins] <= Pr[Z_r - Z_s > -a_r] for a best candidate s (a_s = 0), which is at most
        # (1 - a_r) e^{a_r} for the three noises: below e^{-793}, 0 in double precision
        return -math.inf
    logpdf, logcdf = _LAWS[noise]
    live = a[np.isfinite(a)]
    others = np.delete(a, r)
    others = others[np.isfinite(others)].tolist()

    def log_f(w):
        return logpdf(w - a_r) + sum(logcdf(w - s) for s in others)

    top = float(live.max())
    # left of `floor` the integrand is 0 (exponential noise: every Z >= 0) or below exp(-e^700)
    # (Gumbel: the log CDF is taken as -inf below -700); for Laplace noise it is positive everywhere
    floor = {"laplace": -math.inf, "exponential": top, "gumbel": top - 700.0}[noise]
    lo = max(a_r, floor)
    hi = top + 50.0 + math.log(a.size)
    found = optimize.minimize_scalar(lambda w: -log_f(w), bounds=(lo, hi), method="bounded",
                                     options={"xatol": 1e-10}).x
    tries = [found, *(x for x in live.tolist() if lo < x < hi), lo + 1e-9 * (1.0 + abs(lo))]
    c, peak = max((log_f(x), x) for x in tries)
    if c == -math.inf:                                  # pragma: no cover - the interior is finite
        return -math.inf
    cut = c - 80.0
    step = 1.0
    while peak - step > floor and log_f(peak - step) >= cut:
        step *= 2.0
    left = max(peak - step, floor)
    step = 1.0
    while log_f(peak + step) >= cut:
        step *= 2.0
    right = peak + step
    edges = sorted({left, right, *(x for x in [*live.tolist(), peak] if left < x < right)})
    # kinks closer than 1e-12 of the interval are one kink: quad over a piece as narrow as 1e-306
    # (utilities 0 and 2e-306) warns of "extremely bad integrand behavior"; such a piece holds at
    # most its width of the integral (the integrand, divided by exp(c), is at most about 1)
    keep = [left]
    for x in edges[1:]:
        if x - keep[-1] > 1e-12 * (right - left):
            keep.append(x)
    keep[-1] = right                                    # (right - left >= 1: left stays)
    edges = keep
    total = 0.0
    for lo_piece, hi_piece in zip(edges[:-1], edges[1:]):
        val, _ = integrate.quad(lambda w: math.exp(log_f(w) - c), lo_piece, hi_piece,
                                epsabs=0.0, epsrel=1e-12, limit=200)
        total += val
    return c + math.log(total)


def report_noisy_max_probabilities(utilities, epsilon, sensitivity=1.0, noise="laplace") -> np.ndarray:
    r"""Output law of :func:`report_noisy_max`, by numerical quadrature.

    .. math::

        \Pr[\text{output } r] = \int f(w - a_r) \prod_{s \ne r} F(w - a_s)\,dw,
        \qquad a_s = \frac{\varepsilon (u_s - u^*)}{2\Delta},

    with :math:`f, F` the standard density and CDF of ``noise``. Each integral is
    computed with :func:`scipy.integrate.quad` (relative tolerance :math:`10^{-12}`)
    between the kinks of the integrand. One quadrature per candidate: meant for small
    ranges that check a theorem (for Gumbel noise the exact answer is
    :func:`exponential_mechanism_probabilities`, for exponential noise
    :func:`permute_and_flip_probabilities`; :cite:`dwork2014algorithmic` Claim 3.9 for the privacy
    of the Laplace variant, :cite:`ding2021permute` for the other two).

    Parameters
    ----------
    utilities, epsilon, sensitivity, noise
        As in :func:`report_noisy_max`.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The probability of each candidate.

    Raises
    ------
    ValueError
        If ``utilities`` is not a non-empty 1-D array of finite numbers, or ``epsilon`` or
        ``sensitivity`` is not ``> 0`` and finite, or ``noise`` is not one of the three names.

    Examples
    --------
    >>> p = report_noisy_max_probabilities([0.0, 0.0, 0.0], 1.0)
    >>> np.round(p, 12).tolist()
    [0.333333333333, 0.333333333333, 0.333333333333]
    """
    a = _logits(_utilities(utilities), epsilon, sensitivity)
    noise = _noise(noise)
    if a.size == 1:
        return np.ones(1)
    return np.exp([_log_win_probability(a, r, noise) for r in range(a.size)])


# --------------------------------------------------------------------------- permute-and-flip
def _flip_probabilities(u: np.ndarray, epsilon, sensitivity) -> np.ndarray:
    return np.exp(_logits(u, epsilon, sensitivity))


def permute_and_flip(utilities, epsilon, sensitivity=1.0, *, rng, size=None):
    r"""Sample permute-and-flip (:cite:`mckenna2020permute`, Algorithm 1).

    Visit the candidates in a uniformly random order; at candidate :math:`r` flip a
    coin with heads probability :math:`q_r = \exp(\varepsilon(u_r - u^*)/(2\Delta))`
    and output :math:`r` on heads. A best candidate has :math:`q_r = 1`, so the walk
    always stops. Vectorized: every run draws all its coins and a uniform random key
    per candidate (sorting the keys is a uniform random order) and outputs the
    candidate with heads and the smallest key, which is the first heads in that order.

    Parameters
    ----------
    utilities, epsilon, sensitivity
        As in :func:`exponential_mechanism_probabilities`.
    rng : numpy.random.Generator
        The generator of the draws.
    size : int, optional
        Number of independent runs, in ``[1, 10**8]`` (arrays of that many draws are built:
        800 MB each at the cap); ``None`` (default) for one run.

    Returns
    -------
    int or numpy.ndarray of int
        The selected candidate (one per run).

    Raises
    ------
    ValueError
        If ``utilities`` is not a non-empty 1-D array of finite numbers, or ``epsilon`` or
        ``sensitivity`` is not ``> 0`` and finite, ``rng`` is not a :class:`numpy.random.Generator` or ``size`` is not an integer in ``[1, 10**8]``.

    Examples
    --------
    >>> permute_and_flip([0.0, 60.0, 0.0], 1.0, rng=np.random.default_rng(0))
    1
    """
    u = _utilities(utilities)
    q = _flip_probabilities(u, epsilon, sensitivity)
    rng = check_rng("rng", rng)
    n = _size(size)
    idx = np.empty(n, dtype=np.int64)
    block = max(1, _CHUNK // u.size)
    for start in range(0, n, block):
        rows = min(block, n - start)
        heads = rng.random((rows, u.size)) < q
        keys = np.where(heads, rng.random((rows, u.size)), np.inf)
        idx[start:start + rows] = np.argmin(keys, axis=1)
    return _finish(idx, size)


def permute_and_flip_probabilities(utilities, epsilon, sensitivity=1.0) -> np.ndarray:
    r"""Exact output law of permute-and-flip: :math:`q_r \int_0^1 \prod_{s \ne r}(1 - t q_s)\,dt`.

    Give every candidate an independent uniform arrival time (sorting the times is a
    uniform random order). Given :math:`r`'s time :math:`t`, each other candidate
    :math:`s` independently either comes later (probability :math:`1 - t`) or comes
    earlier and flips tails (probability :math:`t(1 - q_s)`): it lets the walk reach
    :math:`r` with probability :math:`1 - t q_s`. Hence
    :math:`\Pr[r] = q_r \int_0^1 \prod_{s \ne r} (1 - t q_s)\,dt`. The integrand is a
    polynomial of degree :math:`m - 1`, so Gauss-Legendre quadrature with
    :math:`\lfloor m/2 \rfloor + 1` nodes is exact (up to rounding). The mechanism is
    :cite:`mckenna2020permute`'s; this closed form of its law is derived here.

    Parameters
    ----------
    utilities, epsilon, sensitivity
        As in :func:`exponential_mechanism_probabilities`.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The probability of each candidate.

    Raises
    ------
    ValueError
        If ``utilities`` is not a non-empty 1-D array of finite numbers, or ``epsilon`` or
        ``sensitivity`` is not ``> 0`` and finite.

    Examples
    --------
    >>> p = permute_and_flip_probabilities([0.0, 2.0], epsilon=1.0)   # q = (1/e, 1)
    >>> bool(np.isclose(p[0], np.exp(-1) / 2))
    True
    """
    u = _utilities(utilities)
    q = _flip_probabilities(u, epsilon, sensitivity)
    t, w = roots_legendre(u.size // 2 + 1)
    t, w = (t + 1.0) / 2.0, w / 2.0                   # nodes and weights on [0, 1]
    log_terms = np.log1p(-np.outer(t, q))             # t < 1, so every term is finite
    others = log_terms.sum(axis=1, keepdims=True) - log_terms
    return q * (w[:, None] * np.exp(others)).sum(axis=0)


# --------------------------------------------------------------------------- accuracy and utilities
def accuracy_gap(n_outputs, epsilon, t, sensitivity=1.0) -> float:
    r"""The utility gap :math:`(2\Delta/\varepsilon)(\log|\mathcal R| + t)` of the exponential mechanism.

    With probability at least :math:`1 - e^{-t}` the exponential mechanism outputs a
    candidate whose utility is above :math:`\mathrm{OPT}` minus this gap
    (:cite:`dwork2014algorithmic` Theorem 3.11 and Corollary 3.12).

    Parameters
    ----------
    n_outputs : int
        Number of candidates :math:`|\mathcal R|`, ``>= 1``.
    epsilon : float
        Privacy parameter, ``> 0``.
    t : float
        Confidence parameter, ``>= 0`` (failure probability :math:`e^{-t}`).
    sensitivity : float
        :math:`\Delta`, ``> 0``.

    Returns
    -------
    float
        The gap, in the units of the utility.

    Raises
    ------
    ValueError
        If ``n_outputs`` is not an integer ``>= 1``, ``epsilon`` or ``sensitivity`` is not ``> 0``
        and finite, or ``t`` is not ``>= 0`` and finite.

    Examples
    --------
    >>> round(accuracy_gap(100, 0.5, 3.0, sensitivity=2.0), 6)   # 8 (ln 100 + 3)
    60.841361
    """
    n_outputs = check_integer("n_outputs", n_outputs, low=1)
    scale = _scale(epsilon, sensitivity)
    t = check_nonnegative("t", t)
    return scale * (math.log(n_outputs) + t)


def quantile_utility(data, candidates, alpha) -> np.ndarray:
    r"""Utility of each candidate as an :math:`\alpha`-quantile: :math:`-|\operatorname{rank}(r) - \alpha n|`.

    :math:`\operatorname{rank}(r) = \#\{i : x_i < r\} + \#\{i : x_i = r\}/2` is the *mid-rank*,
    which counts records tied with :math:`r` as half below and half above it (with
    :math:`\#\{i : x_i \le r\}` instead, a candidate tied with many records looks worse than
    its lower neighbour). Under replace-one neighbours :math:`n` is fixed and replacing one
    record changes the mid-rank by at most 1 (a record moving from below :math:`r` to above
    it), so the utility has sensitivity 1, attained by that move. It is the utility the exponential
    mechanism (:cite:`mcsherry2007mechanism`) is given to select a quantile.

    Parameters
    ----------
    data : array_like, shape (n,) or (k, n)
        Finite records; a 2-D array holds one data set per row.
    candidates : array_like, shape (m,)
        Finite candidate values (a public grid).
    alpha : float
        The quantile, in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray, shape (m,) or (k, m)
        The utility of each candidate (for each data set), ``<= 0``.

    Raises
    ------
    ValueError
        If ``data`` is not a finite non-empty 1-D or 2-D array, ``candidates`` is not a finite
        non-empty 1-D array, or ``alpha`` is not in ``[0, 1]``.

    Examples
    --------
    >>> quantile_utility([1.0, 2.0, 2.0, 10.0], [0.0, 2.0, 3.0, 10.0], 0.25).tolist()
    [-1.0, -1.0, -2.0, -2.5]
    """
    x = _real_array("data", data)
    c = _real_array("candidates", candidates)
    if x.ndim not in (1, 2) or x.shape[-1] == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"data must be a finite non-empty 1-D or 2-D array, got shape {x.shape}")
    if c.ndim != 1 or c.size == 0 or not np.all(np.isfinite(c)):
        raise ValueError(f"candidates must be a finite non-empty 1-D array, got shape {c.shape}")
    alpha = check_in_range("alpha", alpha, 0.0, 1.0)
    n = x.shape[-1]
    below = (x[..., :, None] < c).sum(axis=-2)
    above = (x[..., :, None] > c).sum(axis=-2)
    return 0.0 - np.abs((n + below - above) / 2.0 - alpha * n)      # 0.0 - : no negative zeros


def median_utility(data, candidates) -> np.ndarray:
    r"""Utility of each candidate as a median: :math:`-|\#\{i : x_i < r\} - \#\{i : x_i > r\}| / 2`.

    This is :func:`quantile_utility` with :math:`\alpha = 1/2`: :math:`-|\operatorname{rank}(r) - n/2|`
    with the mid-rank. It is 0 at an exact median and has sensitivity 1 under replace-one.

    Parameters
    ----------
    data : array_like, shape (n,) or (k, n)
        Finite records; a 2-D array holds one data set per row.
    candidates : array_like, shape (m,)
        Finite candidate values (a public grid).

    Returns
    -------
    numpy.ndarray, shape (m,) or (k, m)
        The utility of each candidate (for each data set), ``<= 0``.

    Raises
    ------
    ValueError
        As :func:`quantile_utility`.

    Examples
    --------
    >>> median_utility([1.0, 2.0, 2.0, 10.0], [0.0, 2.0, 3.0, 10.0]).tolist()
    [-2.0, 0.0, -1.0, -1.5]
    """
    return quantile_utility(data, candidates, 0.5)
