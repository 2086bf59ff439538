r"""The auditing benchmark of DP-Sniper and StatDP: twenty mechanisms and a floating-point experiment.

Bichsel et al. (:cite:`bichsel2021dpsniper`) evaluated their auditor DP-Sniper, and StatDP
(:cite:`ding2018detecting`) through a wrapper, on twenty mechanisms, each run at the
configuration of their evaluation script (``dpsniper/experiments/exp_default.py`` of their
repository; the mechanisms' classes in ``dpsniper/mechanisms``). This module holds the book's own
vectorized versions of all twenty, each as ``mechanism(data, size, rng)`` (what
:func:`dpnotes.audit.audit_pair` runs), with the input pair the book audits it on and the
exact :math:`\varepsilon` of that pair where the book can compute it
(:func:`benchmark_cases`), and the two mechanisms of their floating-point experiment
(:func:`floating_point_cases`).

Continuous outputs of the twenty are rounded to multiples of :math:`2^{-20}`: rounding is
post-processing, so it cannot raise the :math:`\varepsilon` of the real-valued algorithm, and it
erases the low-order bits of the floating-point result, where the floating-point leak of the
twenty-first experiment lives (without it, the book's auditor would catch every Laplace row
through that leak and not through the algorithm). The floating-point experiment releases
numpy's Laplace sample unrounded.

The broken mechanisms reuse :mod:`dpnotes.flawed` (Lyu et al.'s sparse-vector variants, report
noisy max); the others are written here, since the book's correct versions elsewhere use other
configurations (RAPPOR's Bloom filter, the truncated geometric sampler of Balcer and Vadhan,
NumericalSVT's noise split). Nothing here should be used to protect data.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import partial
from typing import NamedTuple

import numpy as np
from scipy import integrate, stats

from . import flawed
from ._validate import MAX_ENTRIES, check_array, check_in_range, check_integer, check_positive, check_real, check_rng

__all__ = [
    "GRID",
    "murmur3_32",
    "rappor_bits",
    "rappor_bit_probabilities",
    "rappor_pair_epsilon",
    "geometric_sample_cdf",
    "geometric_sample_law",
    "noisy_max_index_law",
    "numerical_svt_pattern_law",
    "numerical_svt_pair_epsilon",
    "BenchmarkCase",
    "benchmark_cases",
    "floating_point_cases",
]

#: Continuous outputs are rounded to multiples of this (see the module docstring).
GRID = 2.0**-20

_LOG2 = math.log(2.0)


def _snap(y: np.ndarray) -> np.ndarray:
    """Round to the nearest multiple of GRID (exact: scaling by a power of two is exact)."""
    return np.ldexp(np.rint(np.ldexp(y, 20)), -20)


# --------------------------------------------------------------------------- RAPPOR
def murmur3_32(data: bytes, seed: int = 0) -> int:
    r"""MurmurHash3's 32-bit x86 hash of ``data`` as a signed integer (Appleby's reference algorithm).

    RAPPOR's Bloom filter in DP-Sniper's benchmark places a value's bits with this hash of its
    decimal string (the ``mmh3`` package, which returns the signed value). Written here (a few
    lines of integer arithmetic) so the book needs no hashing package; the tests check it on
    the reference vectors of the algorithm.

    Parameters
    ----------
    data : bytes or bytearray
        The bytes to hash, of any length (empty included).
    seed : int
        The hash's seed, in ``[0, 2**32 - 1]``.

    Returns
    -------
    int
        The 32-bit hash read as a signed integer, in ``[-2**31, 2**31 - 1]`` (``h & 0xFFFFFFFF``
        gives the unsigned value).

    Raises
    ------
    ValueError
        If ``data`` is not ``bytes`` or ``bytearray``, or ``seed`` is not an integer in
        ``[0, 2**32 - 1]``.

    Examples
    --------
    >>> hex(murmur3_32(b"The quick brown fox jumps over the lazy dog", 0x9747B28C) & 0xFFFFFFFF)
    '0x2fa826cd'
    """
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"data must be bytes, got {type(data).__name__}")
    seed = check_integer("seed", seed, low=0, high=2**32 - 1)
    c1, c2, mask = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF
    h = seed
    n = len(data)

    def mix(k):
        k = (k * c1) & mask
        k = ((k << 15) | (k >> 17)) & mask
        return (k * c2) & mask

    for i in range(0, n - n % 4, 4):
        h ^= mix(int.from_bytes(data[i:i + 4], "little"))
        h = ((h << 13) | (h >> 19)) & mask
        h = (h * 5 + 0xE6546B64) & mask
    tail = data[n - n % 4:]
    if tail:
        h ^= mix(int.from_bytes(tail, "little"))
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h - 2**32 if h >= 2**31 else h


def rappor_bits(value: int, *, n_hashes: int = 4, filter_size: int = 20) -> np.ndarray:
    r"""The Bloom filter of ``value``: bit :math:`h_i(v) \bmod m` set for each of the ``n_hashes`` hashes.

    :math:`h_i` is :func:`murmur3_32` of the decimal string of ``value`` with seed :math:`i`, and
    the remainder is Python's (non-negative), as in DP-Sniper's benchmark. Hashes may collide, so
    a value can set fewer than ``n_hashes`` bits.

    Parameters
    ----------
    value : int
        The value to encode, any integer (negative ones included; ``3.0`` counts as ``3``).
    n_hashes : int
        Hash functions of the filter, in ``[1, 10**5]`` (one Python hash each: a quarter of a
        second at the cap).
    filter_size : int
        Bits :math:`m` of the filter, in ``[1, 10**8]`` (an array of that many bools: 100 MB).

    Returns
    -------
    numpy.ndarray of bool
        The filter, shape ``(filter_size,)``, with between 1 and ``n_hashes`` bits set.

    Raises
    ------
    ValueError
        If ``value`` is not an integer, or ``n_hashes`` or ``filter_size`` is not an integer in its range.

    Examples
    --------
    >>> np.flatnonzero(rappor_bits(0)).tolist(), np.flatnonzero(rappor_bits(1)).tolist()
    ([0, 11, 18], [3, 10, 13])
    """
    value = check_integer("value", value)
    n_hashes = check_integer("n_hashes", n_hashes, low=1, high=10**5)
    filter_size = check_integer("filter_size", filter_size, low=1, high=MAX_ENTRIES)
    bits = np.zeros(filter_size, dtype=bool)
    for i in range(n_hashes):
        bits[murmur3_32(str(value).encode(), i) % filter_size] = True
    return bits


def rappor_bit_probabilities(f, p=None, q=None) -> tuple[float, float]:
    r"""Probability that a reported bit is 1 when the true Bloom bit is 1, and when it is 0.

    The permanent randomized response keeps a bit with probability :math:`1 - f` and otherwise
    sets it to 1 or 0 with probability 1/2 each; the instantaneous one reports 1 with
    probability ``q`` for a permanent 1 and ``p`` for a permanent 0
    (:cite:`erlingsson2014rappor`). So :math:`q^* = (1 - f/2) q + (f/2) p` and
    :math:`p^* = (f/2) q + (1 - f/2) p`; without the instantaneous step (one-time RAPPOR,
    ``p = q = None``) they are :math:`1 - f/2` and :math:`f/2`.

    Parameters
    ----------
    f : float
        The permanent randomized response's probability of replacing a bit, in ``[0, 1]``.
    p, q : float or None
        The instantaneous randomized response's probabilities of reporting 1 for a permanent 0
        and for a permanent 1, each in ``[0, 1]``; both ``None`` (the default) for one-time RAPPOR.

    Returns
    -------
    q_star, p_star : float
        :math:`q^*` and :math:`p^*`, each in ``[0, 1]`` (rounded to 15 decimals when ``p`` and
        ``q`` are given, so that values such as 0.5125 come out exactly as written).

    Raises
    ------
    ValueError
        If ``f`` is not in ``[0, 1]``, only one of ``p`` and ``q`` is given, or a given one is
        not in ``[0, 1]``.

    Examples
    --------
    >>> rappor_bit_probabilities(0.75, 0.45, 0.55)
    (0.5125, 0.4875)
    """
    f = check_in_range("f", f, 0.0, 1.0)
    if (p is None) != (q is None):
        raise ValueError(f"p and q must both be given or both be None, got p={p!r}, q={q!r}")
    if p is None:
        return 1.0 - f / 2, f / 2
    p = check_in_range("p", p, 0.0, 1.0)
    q = check_in_range("q", q, 0.0, 1.0)
    return round((1 - f / 2) * q + f / 2 * p, 15), round(f / 2 * q + (1 - f / 2) * p, 15)


def rappor_pair_epsilon(value, value_prime, f, p=None, q=None, *, n_hashes=4, filter_size=20) -> float:
    r"""The exact :math:`\varepsilon` of one RAPPOR report on two values.

    The reported bits are independent given the value, and only the :math:`m` bits where the
    two Bloom filters differ have different laws (:func:`rappor_bit_probabilities`), so the
    log-ratio of a report is a sum over these bits: a bit set for one value only adds
    :math:`\log(q^*/p^*)` when reported 1 and :math:`-\log((1-p^*)/(1-q^*))` when reported 0.
    The largest sum is reached by the report that shows every such bit as one value's filter has
    it.

    Parameters
    ----------
    value, value_prime : int
        The two values, any integers.
    f, p, q
        The randomized responses' parameters, as in :func:`rappor_bit_probabilities`.
    n_hashes, filter_size : int
        The Bloom filter's, as in :func:`rappor_bits`: ``n_hashes`` in ``[1, 10**5]``,
        ``filter_size`` in ``[1, 10**8]``.

    Returns
    -------
    float
        The supremum over reports of the log-ratio of their probabilities under the two values:
        always ``>= 0``; ``0.0`` when the two filters are equal or :math:`p^* = q^*` (the
        report does not depend on the value, as with ``f = p = q = 0``), ``inf`` when they
        differ and one of :math:`p^*, q^*` is 0 or 1 while the other is not (a differing bit
        can then tell the values apart). Any order of ``p`` and ``q`` is allowed.

    Raises
    ------
    ValueError
        If ``value`` or ``value_prime`` is not an integer, or on a bad argument of
        :func:`rappor_bit_probabilities` or :func:`rappor_bits`.

    Examples
    --------
    >>> round(rappor_pair_epsilon(0, 1, 0.95), 4)       # one-time RAPPOR: 6 differing bits
    0.6005
    """
    value, value_prime = check_integer("value", value), check_integer("value_prime", value_prime)
    qs, ps = rappor_bit_probabilities(f, p, q)
    a = rappor_bits(value, n_hashes=n_hashes, filter_size=filter_size)
    b = rappor_bits(value_prime, n_hashes=n_hashes, filter_size=filter_size)
    only_a, only_b = int(np.count_nonzero(a & ~b)), int(np.count_nonzero(b & ~a))
    if only_a + only_b == 0 or qs == ps:
        return 0.0

    def log_ratio(x, y):                 # log(x / y) for probabilities, not both zero
        return math.inf if y == 0.0 else -math.inf if x == 0.0 else math.log(x / y)

    # a bit set in a's filter only is 1 with probability q* under a and p* under b; its best
    # report for the ratio a/b is whichever of 1 and 0 has the larger ratio (both >= 0 in the max)
    up = max(log_ratio(qs, ps), log_ratio(1 - qs, 1 - ps))
    down = max(log_ratio(ps, qs), log_ratio(1 - ps, 1 - qs))

    def total(n_up, n_down):
        return (n_up * up if n_up else 0.0) + (n_down * down if n_down else 0.0)

    return max(total(only_a, only_b), total(only_b, only_a))


def _rappor(value, size, rng, *, f, p=None, q=None):
    bits = rappor_bits(int(np.asarray(value).reshape(-1)[0]))
    u = rng.random((size, bits.size))
    # permanent randomized response: 1 below f/2, 0 in [f/2, f), the true bit above
    perm = np.where(u < f, u < f / 2, bits[None, :])
    if p is None:
        return perm.astype(np.int8)
    return (rng.random((size, bits.size)) < np.where(perm, q, p)).astype(np.int8)


# --------------------------------------------------------------------------- truncated geometric
def _geo_k(epsilon) -> int:
    # DP-Sniper's configuration takes the natural logarithm here (Balcer and Vadhan write log2).
    # 2 / epsilon overflows below epsilon = 1.1e-308 (ceil(log(inf)) raised OverflowError at 5e-324):
    # there the log of the quotient is the difference of logs (k = 746 at 5e-324)
    two_over = 2.0 / epsilon
    return math.ceil(math.log(two_over) if two_over < math.inf else math.log(2.0) - math.log(epsilon))


def geometric_sample_cdf(count, epsilon=0.1, n=5) -> list[int]:
    r"""The integer table :math:`F(0), \dots, F(n)` of GeoSample (:cite:`balcer2018differential` Algorithm 4.8).

    With :math:`k = \lceil \ln(2/\varepsilon) \rceil` (the natural logarithm, as in DP-Sniper's
    configuration) and :math:`d = (2^{k+1}+1)(2^k+1)^{n-1}`,
    :math:`F(z) = 2^{k(c-z)}(2^k+1)^{n-(c-z)}` for :math:`z < c`,
    :math:`F(z) = d - 2^{k(z-c+1)}(2^k+1)^{n-1-(z-c)}` for :math:`c \le z < n`, and
    :math:`F(n) = d`; the sampler draws :math:`U` uniform on :math:`\{1, \dots, d\}` and releases
    the smallest :math:`z` with :math:`F(z) \ge U`. Exact integers.

    Parameters
    ----------
    count : int
        The true count :math:`c`, in ``[0, n]``.
    epsilon : float
        The privacy parameter, in ``(0, 2e)``: there :math:`k \ge 0` and the table is one of
        integers (from :math:`2e` on, :math:`k < 0`; Balcer and Vadhan's sampler is meant for
        small :math:`\varepsilon`). Down to the smallest subnormal (``k = 746`` at ``5e-324``; the
        integers have about ``k n`` bits).
    n : int
        The largest count, in ``[1, 2000]``; the outputs are ``0 .. n`` (``n + 1`` integers of
        about ``k n`` bits are computed: 0.05 s at ``n = 3000``, 90 s at ``10**4``).

    Returns
    -------
    list of int
        :math:`F(0), \dots, F(n)`, ``n + 1`` increasing positive integers, the last :math:`d`.

    Raises
    ------
    ValueError
        If ``epsilon`` is not in ``(0, 2e)``, ``n`` is not an integer in ``[1, 2000]`` or ``count``
        not an integer in ``[0, n]``.

    Examples
    --------
    >>> geometric_sample_cdf(1)          # F(0) = 2**3 * 9**4, d = 17 * 9**4
    [52488, 59049, 64881, 70065, 74673, 111537]
    """
    epsilon = check_in_range("epsilon", epsilon, 0.0, 2 * math.e, low_inclusive=False, high_inclusive=False)
    n = check_integer("n", n, low=1, high=2000)
    c = check_integer("count", count, low=0, high=n)
    k = _geo_k(epsilon)
    d = (2 ** (k + 1) + 1) * (2**k + 1) ** (n - 1)
    out = []
    for z in range(n):
        if z < c:
            out.append(2 ** (k * (c - z)) * (2**k + 1) ** (n - (c - z)))
        else:
            out.append(d - 2 ** (k * (z - c + 1)) * (2**k + 1) ** (n - 1 - (z - c)))
    out.append(d)
    return out


def geometric_sample_law(count, epsilon=0.1, n=5) -> list[Fraction]:
    r"""The exact law of GeoSample's output ``0 .. n`` (differences of :func:`geometric_sample_cdf` over ``d``).

    Parameters
    ----------
    count, epsilon, n
        As in :func:`geometric_sample_cdf`: ``count`` in ``[0, n]``, ``epsilon`` in
        ``(0, 2e)``, ``n`` in ``[1, 2000]``.

    Returns
    -------
    list of fractions.Fraction
        :math:`\Pr[z]` for :math:`z = 0, \dots, n`, exact and positive, summing to exactly 1.

    Raises
    ------
    ValueError
        On a bad argument, as :func:`geometric_sample_cdf` raises.

    Examples
    --------
    >>> law = geometric_sample_law(1)
    >>> sum(law) == 1, law[0] == Fraction(52488, 111537)
    (True, True)
    """
    cdf = geometric_sample_cdf(count, epsilon, n)
    return [Fraction(b - a, cdf[-1]) for a, b in zip([0, *cdf[:-1]], cdf)]


def _geometric(data, size, rng, *, epsilon=0.1, n=5):
    cdf = np.asarray(geometric_sample_cdf(int(np.asarray(data).reshape(-1)[0]), epsilon, n))
    return np.searchsorted(cdf, rng.integers(1, cdf[-1] + 1, size), side="left")


# --------------------------------------------------------------------------- report noisy max
def noisy_max_index_law(answers, epsilon, *, noise="laplace") -> np.ndarray:
    r"""Exact law of the index that report noisy max releases (noise of scale :math:`2/\varepsilon`).

    :math:`\Pr[i] = \int p(y - f_i) \prod_{j \ne i} F(y - f_j)\,dy` with :math:`p, F` the noise's
    density and distribution function, by :func:`scipy.integrate.quad` between the kinks
    (relative tolerance ``1e-11``), in units of the noise scale centred on :math:`f_i`:
    :math:`\int p_1(t) \prod_{j \ne i} F_1(t + (f_i - f_j)\varepsilon/2)\,dt`, so that any finite
    ``epsilon`` works (``[0, 1]`` for the answers ``[0, 1]`` at ``1e300``, ``[1/2, 1/2]`` at ``5e-324``).

    Parameters
    ----------
    answers : array_like
        The query answers :math:`f_i`, a non-empty 1-D sequence of finite numbers.
    epsilon : float
        The privacy parameter, finite and ``> 0`` (any such float); the noise's scale is
        :math:`2/\varepsilon`.
    noise : {"laplace", "exponential"}
        The noise added to each answer: Laplace, or exponential (one-sided, ``>= 0``).

    Returns
    -------
    numpy.ndarray
        :math:`\Pr[i]` for each index, shape ``(len(answers),)``; they sum to one up to the
        integration's tolerance.

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, ``epsilon`` is not
        finite and ``> 0``, or ``noise`` is neither ``"laplace"`` nor ``"exponential"``.

    Examples
    --------
    >>> law = noisy_max_index_law([0.0, 0.0], 1.0)
    >>> bool(np.allclose(law, 0.5))
    True
    """
    answers = flawed._answers(answers)
    epsilon = check_positive("epsilon", epsilon)
    if noise == "laplace":
        dist = stats.laplace()
    elif noise == "exponential":
        dist = stats.expon()
    else:
        raise ValueError(f"noise must be 'laplace' or 'exponential', got {noise!r}")
    # In units of the noise scale 2/epsilon, centred on answer i: y = f_i + (2/epsilon) t, and
    # answer j's factor is F(t + d_ij), d_ij = (f_i - f_j) epsilon / 2 (the law was [0, 0] at
    # epsilon = 1e300 and 5e-324, scipy's quad lost in a scale of 2e-300 or inf). The integrand is
    # below the density p(t), zero in floating point beyond |t| = 745: the kinks t = 0 and t = -d_ij
    # are breakpoints where they lie inside (-750, 750) (beyond, the factor is 0 or 1 to the last bit
    # wherever p(t) is not 0). Infinite outer pieces, as quad integrates an exponential tail best.
    out = np.empty(answers.size)
    for i in range(answers.size):
        others = np.delete(answers, i)
        with np.errstate(over="ignore"):      # an overflowed difference: a factor of exactly 0 or 1
            d = (answers[i] - others) * epsilon / 2.0
            d = np.where(np.isfinite(d), d, ((answers[i] / 2.0 - others / 2.0) * epsilon) / 1.0)

        def integrand(t, d=d):
            return float(dist.pdf(t) * np.prod(dist.cdf(t + d)))

        lo = 0.0 if noise == "exponential" else -np.inf
        pts = np.unique(np.r_[0.0, -d])          # the density's own kink, and each other answer's
        edges = [lo, *[t for t in pts.tolist() if max(lo, -_INDEX_T) < t < _INDEX_T], np.inf]
        out[i] = sum(integrate.quad(integrand, a, b, epsabs=0.0, epsrel=1e-11, limit=200)[0]
                     for a, b in zip(edges[:-1], edges[1:]) if b > a)
    return out


# the noise density in units of its scale, e^{-|t|}/2 or e^{-t}, is zero in floating point from 745.2
_INDEX_T = 750.0


# --------------------------------------------------------------------------- the rest
def _laplace(data, size, rng, *, scale):
    return _snap(float(np.asarray(data).reshape(-1)[0]) + flawed.laplace_noise(scale, size, rng))


def _histogram(data, size, rng, *, scale):
    data = np.asarray(data, dtype=float)
    return _snap(data[None, :] + flawed.laplace_noise(scale, (size, data.size), rng))


def _laplace_parallel(data, size, rng, *, scale, copies):
    return _snap(float(np.asarray(data).reshape(-1)[0]) + flawed.laplace_noise(scale, (size, copies), rng))


def _prefix_sum(data, size, rng, *, scale):
    data = np.asarray(data, dtype=float)
    return _snap(np.cumsum(data[None, :] + flawed.laplace_noise(scale, (size, data.size), rng), axis=1))


def _noisy_max(data, size, rng, *, noise, release):
    out = flawed.noisy_max(data, 0.1, size, rng=rng, noise=noise, release=release)
    return _snap(out) if release == "value" else out


def _svt(data, size, rng, *, algorithm, threshold, c=1, release="pattern"):
    r"""Lyu et al.'s Algorithm ``algorithm`` at claimed 0.1 (:func:`dpnotes.flawed.sparse_vector_variant`).

    ``release="index"`` (``c = 1``, Algorithms 1, 2 and 4) releases, instead of the pattern of
    codes, the position of the first top (``k``: none), one int8 per run, drawn without query
    noise (``flawed._first_top_index``): with one top the pattern is
    :math:`\bot^j \top` followed by unanswered queries, or :math:`\bot^k`, so it and the
    position are functions of each other, and the audit of one is the audit of the other."""
    if release == "index":
        b_rho, b_nu = flawed.lyu_noise_scales(algorithm, 0.1, c)
        flawed._check_first_top("release 'index'", c, algorithm)
        return flawed._first_top_index(flawed._answers(data), threshold, b_rho, b_nu, size, rng)
    out = flawed.sparse_vector_variant(data, threshold, 0.1, size, rng=rng, algorithm=algorithm, c=c)
    return _snap_into(out, np.empty(out.shape, order="F")) if algorithm == 3 else out


def _svt34(data, size, rng, *, c=2, threshold=1.0):
    a3 = flawed.sparse_vector_variant(data, threshold, 0.1, size, rng=rng, algorithm=3, c=c)
    a4 = flawed.sparse_vector_variant(data, threshold, 0.1, size, rng=rng, algorithm=4, c=c)
    out = np.empty((size, a3.shape[1] + a4.shape[1]), order="F")
    _snap_into(a3, out[:, :a3.shape[1]])
    out[:, a3.shape[1]:] = a4
    return out


def _numerical_svt(data, size, rng, *, epsilon=0.1, c=2, threshold=1.0):
    r"""NumericalSVT (Wang et al. 2019) as DP-Sniper runs it: threshold noise Lap(3/eps), comparison
    noise Lap(6c/eps), a top releases the answer plus fresh Lap(3c/eps); -inf for a bottom, nan
    after the c-th top."""
    answers = np.asarray(data, dtype=float)
    k = answers.size
    out = np.full((size, k), np.nan, order="F")      # by columns: written and scored column-wise
    rho = threshold + flawed.laplace_noise(3.0 / epsilon, size, rng)
    count = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    for i in range(k):
        if active.size == 0:
            break
        above = answers[i] + flawed.laplace_noise(6.0 * c / epsilon, active.size, rng) >= rho[active]
        hit = active[above]
        out[active[~above], i] = -np.inf
        out[hit, i] = _snap(answers[i] + flawed.laplace_noise(3.0 * c / epsilon, hit.size, rng))
        count[hit] += 1
        active = active[count[active] < c]
    return out


def numerical_svt_pattern_law(answers, *, epsilon=0.1, c=2, threshold=1.0) -> tuple[list, np.ndarray]:
    r"""Exact law of the pattern of tops of NumericalSVT (as :func:`benchmark_cases` runs it).

    NumericalSVT (:cite:`wang2019proving`, in DP-Sniper's configuration) draws a threshold noise
    :math:`\rho \sim \mathrm{Lap}(3/\varepsilon)` and a comparison noise
    :math:`\nu_i \sim \mathrm{Lap}(6c/\varepsilon)` per query. Given :math:`\rho = r` the
    comparisons are independent, so a pattern with tops at the positions
    :math:`t_1 < \dots < t_m` (all the queries up to the last asked one, :math:`t_c` when
    :math:`m = c` and :math:`k` otherwise, are bottoms or tops) has probability

    .. math:: \int p_\rho(r) \prod_{i \text{ bottom}} F_\nu(T + r - f_i) \prod_{i \text{ top}}
              \bigl(1 - F_\nu(T + r - f_i)\bigr)\,dr.

    It is computed in units of the noise: with :math:`r = (3/\varepsilon) s` and
    :math:`g_i = (f_i - T)\,\varepsilon/(6c)`, the integrand is
    :math:`\tfrac12 e^{-|s|} \prod F(s/(2c) - g_i) \cdots` (:math:`F` the standard Laplace
    distribution function), whatever the size of :math:`\varepsilon` and :math:`T` (in the units
    of :math:`r`, the quadrature ran over ranges of ``1e300`` and did not end). That integrand is
    below :math:`\tfrac12 e^{-|s|}`, zero in floating point beyond :math:`|s| = 745`, so the
    integral runs over :math:`[-750, 750]`, with the kinks :math:`s = 0` and :math:`s = 2c g_i`
    (clipped to that range) as breakpoints: one :func:`scipy.integrate.quad_vec` for all patterns,
    each pattern's integrand divided by its largest value at the breakpoints (so that a pattern
    of small probability is integrated to the same relative tolerance, ``1e-10``, as the others).
    There are :math:`\sum_{m \le c} \binom{k}{m}` patterns.

    Parameters
    ----------
    answers : array_like
        The :math:`k` query answers :math:`f_i`, finite.
    epsilon : float
        The privacy parameter, ``> 0`` (any finite float).
    c : int
        Tops before the mechanism halts, ``>= 1``.
    threshold : float
        The threshold :math:`T`, finite.

    Returns
    -------
    patterns : list of tuple
        Each pattern as the tuple of its top positions.
    law : numpy.ndarray
        Their probabilities, in the same order (they sum to one); ``0.0`` for a pattern whose
        probability is below the float range (a top far below the threshold in units of the
        comparison noise, as at ``threshold = 1e300``).

    Raises
    ------
    ValueError
        If ``answers`` is not a non-empty 1-D sequence of finite numbers, ``epsilon <= 0``,
        ``c < 1`` or ``threshold`` is not finite.

    Examples
    --------
    >>> pats, law = numerical_svt_pattern_law(np.zeros(3))
    >>> len(pats), bool(abs(law.sum() - 1) < 1e-9)
    (7, True)
    """
    pats, log_law = _numerical_svt_log_law(answers, epsilon, c, threshold)
    return pats, np.exp(log_law)


# the integrand of the pattern law, in units of the threshold noise, is below e^{-|s|}/2: zero in
# floating point from |s| = 745.2 on
_SVT_S = 750.0


def _numerical_svt_log_law(answers, epsilon, c, threshold) -> tuple[list, np.ndarray]:
    """The patterns and the natural logs of their probabilities (see :func:`numerical_svt_pattern_law`)."""
    answers = flawed._answers(answers)
    epsilon = check_positive("epsilon", epsilon)
    c = check_integer("c", c, low=1)
    threshold = check_real("threshold", threshold)
    k = answers.size
    pats = [p for m in range(min(c, k) + 1) for p in itertools.combinations(range(k), m)]
    # per pattern: which queries are bottoms (asked, not top) and which are tops
    last = np.array([p[-1] if len(p) == c else k - 1 for p in pats])
    top = np.zeros((len(pats), k), dtype=bool)
    for i, p in enumerate(pats):
        top[i, list(p)] = True
    bottom = (np.arange(k)[None, :] <= last[:, None]) & ~top
    # g_i: the answer's offset above the threshold in units of the comparison noise 6c/epsilon;
    # f - T overflows only for answers and threshold of opposite signs beyond 9e307 (halves then).
    # Beyond +-1e290 a g changes nothing representable: clipped there, so that sums stay finite
    diff = answers - threshold
    with np.errstate(over="ignore", under="ignore"):
        g = np.where(np.isfinite(diff), (diff * epsilon) / (6.0 * c),
                     ((answers / 2.0 - threshold / 2.0) * epsilon) / (3.0 * c))
    g = np.clip(g, -1e290, 1e290)
    kappa = 1.0 / (2.0 * c)                     # the threshold noise's scale over the comparison noise's

    def log_integrand(s):
        # log of e^{-|s|}/2 times each answer's Laplace probability, in closed form (scipy.stats'
        # per-call overhead would dominate quad_vec's calls; the tests compare with scipy.stats)
        u = kappa * s - g
        tail = np.log1p(-0.5 * np.exp(-np.abs(u)))
        log_f = np.where(u < 0, u - _LOG2, tail)
        log_s = np.where(u > 0, -u - _LOG2, tail)
        return -abs(s) - _LOG2 + bottom @ log_f + top @ log_s

    kinks = np.unique(np.clip(np.r_[0.0, g / kappa], -_SVT_S, _SVT_S))
    inner = kinks[(kinks > -_SVT_S) & (kinks < _SVT_S)]
    # each pattern's log-integrand is concave, and between breakpoints a linear function plus
    # terms in [-log 2, 0]: its largest value at the breakpoints is within k log 2 of its maximum
    scale = np.max([log_integrand(t) for t in np.r_[-_SVT_S, inner, _SVT_S]], axis=0)
    integral = integrate.quad_vec(lambda s: np.exp(log_integrand(s) - scale), -_SVT_S, _SVT_S,
                                  points=inner.tolist() or None, epsabs=0.0, epsrel=1e-10)[0]
    with np.errstate(divide="ignore"):      # a pattern of probability 0 in floating point: log 0
        return pats, scale + np.log(integral)


def numerical_svt_pair_epsilon(x, x_prime, *, epsilon=0.1, c=2, threshold=1.0) -> float:
    r"""The exact :math:`\varepsilon` of NumericalSVT on two query vectors (:func:`numerical_svt_pattern_law`).

    The released values are the answers plus fresh :math:`\mathrm{Lap}(3c/\varepsilon)` noise,
    independent of the pattern, so an output's log-ratio is the pattern's plus, for each top
    :math:`i`, :math:`(|v - f_i| - |v - f'_i|)/(3c/\varepsilon)`, whose largest value is
    :math:`|f_i - f'_i|/(3c/\varepsilon)` (with either sign, on a set of positive probability).
    The supremum over outputs is the largest over patterns of the pattern's log-ratio plus the
    tops' shifts in the same direction. NumericalSVT is :math:`\varepsilon`-DP when every answer
    moves by at most one (:cite:`wang2019proving`), so the result is at most ``epsilon`` there.
    The log-ratios are differences of the patterns' log-probabilities, each to about ``1e-10``
    relative, so the result is accurate to about ``1e-10`` absolute (relatively less for an
    ``epsilon`` below ``1e-8``, where the result is of the order of ``epsilon``).

    Parameters
    ----------
    x, x_prime : array_like
        The two answer vectors, of the same length, finite.
    epsilon, c, threshold
        As in :func:`numerical_svt_pattern_law`, with one more condition on ``threshold`` and
        ``epsilon`` together: every pattern's probability must be at least :math:`e^{-700}`
        (``1e-304``) under ``x`` and under ``x_prime``, so that its log is a difference of
        float64 logs. It holds when :math:`\sum_i |f_i - T|\,\varepsilon/(6c) \le 690 - 1.2k`
        for both vectors (answers within a few hundred comparison-noise scales of the threshold);
        it fails at ``threshold = 1e300`` or ``epsilon = 1e300`` (a top that far below the
        threshold has probability :math:`e^{-10^{298}}`).

    Returns
    -------
    float
        The supremum over outputs :math:`y` of :math:`|\ln(p_{x'}(y) / p_x(y))|`.

    Raises
    ------
    ValueError
        If ``x`` and ``x_prime`` differ in shape, if a pattern's probability is below
        :math:`e^{-700}` (``threshold`` or ``epsilon`` too large for the answers, see above), or
        on a bad argument of :func:`numerical_svt_pattern_law`.

    Examples
    --------
    >>> round(numerical_svt_pair_epsilon(np.zeros(2), np.ones(2)), 4)
    0.0459
    """
    x = check_array("x", x, ndim=1)
    x_prime = check_array("x_prime", x_prime, ndim=1)
    if x.shape != x_prime.shape:
        raise ValueError(f"x and x_prime must have the same shape, got {x.shape} and {x_prime.shape}")
    pats, a = _numerical_svt_log_law(x, epsilon, c, threshold)
    _, b = _numerical_svt_log_law(x_prime, epsilon, c, threshold)
    epsilon, c = float(epsilon), int(c)
    if min(a.min(), b.min()) < -700.0:
        raise ValueError(
            f"threshold = {float(threshold)!r} and epsilon = {epsilon!r} put the answers too far from the threshold "
            f"in units of the comparison noise 6c/epsilon: a pattern's probability is below e^-700 "
            f"(e^{min(a.min(), b.min()):.4g} or less), and its log-ratio cannot be formed in float64 (every pattern's probability must be "
            f">= e^-700; sum |answer - threshold| * epsilon / (6c) <= 690 - 1.2k suffices)")
    shift = np.abs(np.asarray(x, dtype=float) - np.asarray(x_prime, dtype=float)) * epsilon / (3.0 * c)
    values = np.array([shift[list(p)].sum() for p in pats])
    lr = b - a
    return float(max(np.max(lr + values), np.max(-lr + values)))


def _numpy_laplace(data, size, rng, *, scale):
    # numpy's own sampler, unrounded: the floating-point experiment
    return rng.laplace(float(np.asarray(data).reshape(-1)[0]), scale, size)


def _snap_into(y: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:func:`_snap` written into ``out`` (the same three exact steps): lets a mechanism store its
    output by columns (``order="F"``), which the audit's column-wise scores read without a copy."""
    np.ldexp(y, 20, out=out)
    np.rint(out, out=out)
    np.ldexp(out, -20, out=out)
    return out


def _snapping(data, size, rng, *, epsilon=0.1, bound=100.0):
    r"""Mironov's snapping mechanism as DP-Sniper configures it: clamp to [-B, B], add
    sign * lambda * ln(U) with lambda = (1 + B 2^-49)/eps in floating point, round to the nearest
    multiple of Lambda (the smallest power of two >= lambda), clamp again."""
    lam = (1.0 + bound * 2.0**-49) / epsilon
    big = 2.0 ** math.ceil(math.log2(lam))
    loc = min(bound, max(-bound, float(np.asarray(data).reshape(-1)[0])))
    sign = 1.0 - 2.0 * rng.integers(0, 2, size)
    u = rng.random(size)
    u[u == 0.0] = 1.0           # ln(0): numpy's random() is in [0, 1); the law of U on (0, 1]
    y = loc + sign * lam * np.log(u)
    return np.clip(np.rint(y / big) * big, -bound, bound)


class BenchmarkCase(NamedTuple):
    r"""One row of the benchmark, as the book audits it.

    Built by :func:`benchmark_cases` and :func:`floating_point_cases`; the fields are not validated.

    Attributes
    ----------
    key : str
        DP-Sniper's class name of the mechanism (the key of its row in ``published-bounds.json``).
    name : str
        The name the book's tables show.
    mechanism : callable
        ``mechanism(data, size, rng) -> array`` of ``size`` outputs, as
        :func:`dpnotes.audit.audit_pair` runs it.
    x, x_prime : numpy.ndarray
        The pair of inputs the book audits the mechanism on.
    claimed : float
        The :math:`\varepsilon` the benchmark runs the mechanism at (and claims for it).
    true_epsilon : float
        The exact :math:`\varepsilon` of the pair: ``inf`` where it is infinite or unbounded in
        the number of queries, ``nan`` where the book does not compute it.
    n_samples : int
        Runs per input of the book's full-size audit.
    n_select : int or None
        Runs per input that choose the test; ``None`` (the default) for
        :func:`dpnotes.audit.audit_pair`'s own choice.
    """

    key: str                    # DP-Sniper's class name (the key of published-bounds.json)
    name: str
    mechanism: object           # mechanism(data, size, rng)
    x: np.ndarray
    x_prime: np.ndarray
    claimed: float              # the epsilon the benchmark runs it at
    true_epsilon: float         # exact epsilon of the pair (inf: unbounded; nan: not computed)
    n_samples: int              # runs per input of the book's audit (full size)
    n_select: int | None = None  # runs per input that choose the test (None: audit_pair's default)


def benchmark_cases() -> list[BenchmarkCase]:
    r"""The twenty mechanisms of DP-Sniper's evaluation, in its configuration, with the book's pairs.

    All are run at :math:`\varepsilon = 0.1` as DP-Sniper's ``exp_default.py`` runs them
    (LaplaceParallel: twenty copies at 0.005 each). Pairs are neighbours in the benchmark's
    sense (one entry differs by at most one for the histograms, every entry by at most one for
    query vectors, any two values of the domain for RAPPOR's single value) within its input
    domain. ``true_epsilon`` is the exact :math:`\varepsilon` of the pair for the real-valued
    mechanism (see the auditing benchmark page for each derivation); ``inf`` where it is
    unbounded in the number of queries or infinite, ``nan`` where the book does not compute it
    (then only the mechanism's proved bound is known). Algorithm 4's row (cut-off 1) releases the
    position of the first top, a one-to-one code of the pattern, drawn from the threshold noise
    and one uniform without query noise, so that its half a billion runs per input fit in seconds.

    Returns
    -------
    list of BenchmarkCase
        The twenty rows, in the order of DP-Sniper's evaluation table.

    Examples
    --------
    >>> cases = benchmark_cases()
    >>> len(cases), cases[0].key
    (20, 'LaplaceMechanism')
    """
    svt = lambda alg, t=1.0, c=1: partial(_svt, algorithm=alg, threshold=t, c=c)   # noqa: E731
    x_shape = np.r_[np.ones(5), np.zeros(5)]
    sd_x, sd_xp = np.ones(10), np.r_[np.full(5, 2.0), np.zeros(5)]
    rnm_x, rnm_xp = np.ones(5), np.r_[0.0, np.full(4, 2.0)]
    at_x, at_xp = np.r_[np.zeros(9), 10.0], np.r_[np.ones(9), 9.0]
    half_x, half_xp = np.r_[np.ones(5), np.zeros(5)], np.r_[np.zeros(5), np.ones(5)]
    a4_x, a4_xp = np.r_[np.full(8, 3.0), 5.0, 0.0], np.r_[np.full(8, 4.0), 4.0, 0.0]
    return [
        BenchmarkCase("LaplaceMechanism", "Laplace", partial(_laplace, scale=10.0), np.zeros(1), np.ones(1),
                      0.1, 0.1, 8_000_000),
        BenchmarkCase("TruncatedGeometricMechanism", "truncated geometric", _geometric, np.array([1.0]),
                      np.array([2.0]), math.log1p(2.0 ** -_geo_k(0.1)), _geometric_pair_epsilon(1, 2), 80_000_000),
        BenchmarkCase("NoisyHist1", "NoisyHist1", partial(_histogram, scale=10.0), np.ones(5),
                      np.r_[2.0, np.ones(4)], 0.1, 0.1, 4_000_000),
        BenchmarkCase("NoisyHist2", "NoisyHist2", partial(_histogram, scale=0.1), np.ones(5),
                      np.r_[2.0, np.ones(4)], 0.1, 10.0, 4_000_000),
        BenchmarkCase("ReportNoisyMax1", "ReportNoisyMax1 (Laplace, index)",
                      partial(_noisy_max, noise="laplace", release="index"), rnm_x, rnm_xp,
                      0.1, _index_pair_epsilon(rnm_x, rnm_xp, "laplace"), 40_000_000),
        BenchmarkCase("ReportNoisyMax2", "ReportNoisyMax2 (exponential, index)",
                      partial(_noisy_max, noise="exponential", release="index"), rnm_x, rnm_xp,
                      0.1, _index_pair_epsilon(rnm_x, rnm_xp, "exponential"), 40_000_000),
        BenchmarkCase("ReportNoisyMax3", "ReportNoisyMax3 (Laplace, value)",
                      partial(_noisy_max, noise="laplace", release="value"), np.zeros(5), np.ones(5),
                      0.1, flawed.noisy_max_value_epsilon(5, 0.1), 10_000_000),
        BenchmarkCase("ReportNoisyMax4", "ReportNoisyMax4 (exponential, value)",
                      partial(_noisy_max, noise="exponential", release="value"), np.zeros(5), np.ones(5),
                      0.1, math.inf, 10_000_000),
        BenchmarkCase("SparseVectorTechnique1", "SVT1 (Lyu et al. Alg. 1)", svt(1, 0.5), at_x, at_xp,
                      0.1, _above_threshold_pair_epsilon(at_x, at_xp, 0.5, 20.0, 40.0), 24_000_000, 4_000_000),
        BenchmarkCase("SparseVectorTechnique2", "SVT2 (Lyu et al. Alg. 2)", svt(2, 1.0), at_x, at_xp,
                      0.1, _above_threshold_pair_epsilon(at_x, at_xp, 1.0, 20.0, 40.0), 24_000_000, 4_000_000),
        BenchmarkCase("SparseVectorTechnique3", "SVT3 (Lyu et al. Alg. 3)", svt(3), np.zeros(10),
                      np.r_[np.ones(9), -1.0], 0.1, 0.5, 8_000_000, 2_000_000),
        BenchmarkCase("SparseVectorTechnique4", "SVT4 (Lyu et al. Alg. 4)",
                      partial(_svt, algorithm=4, threshold=1.0, release="index"), a4_x, a4_xp,
                      0.1, _above_threshold_pair_epsilon(a4_x, a4_xp, 1.0, 40.0, 40.0 / 3.0), 620_000_000),
        BenchmarkCase("SparseVectorTechnique5", "SVT5 (Lyu et al. Alg. 5)", svt(5), sd_x, sd_xp,
                      0.1, math.inf, 135_000_000),
        BenchmarkCase("SparseVectorTechnique6", "SVT6 (Lyu et al. Alg. 6)", svt(6), x_shape,
                      x_shape[::-1].copy(), 0.1, math.nan, 20_000_000),
        BenchmarkCase("Rappor", "RAPPOR", partial(_rappor, f=0.75, p=0.45, q=0.55), np.array([4.0]),
                      np.array([5.0]), rappor_pair_epsilon(4, 5, 0.75, 0.45, 0.55), rappor_pair_epsilon(4, 5, 0.75, 0.45, 0.55),
                      4_000_000),
        BenchmarkCase("OneTimeRappor", "one-time RAPPOR", partial(_rappor, f=0.95), np.array([4.0]),
                      np.array([5.0]), rappor_pair_epsilon(4, 5, 0.95), rappor_pair_epsilon(4, 5, 0.95), 4_000_000),
        BenchmarkCase("LaplaceParallel", "LaplaceParallel (20 copies)",
                      partial(_laplace_parallel, scale=200.0, copies=20), np.zeros(1), np.ones(1),
                      0.1, 0.1, 8_000_000),
        BenchmarkCase("SVT34Parallel", "SVT34Parallel (Alg. 3 and 4, c = 2)", _svt34, sd_x, sd_xp,
                      0.1, math.inf, 4_600_000, 800_000),
        BenchmarkCase("PrefixSum", "PrefixSum", partial(_prefix_sum, scale=10.0), np.zeros(10), np.ones(10),
                      0.1, 1.0, 4_000_000),
        BenchmarkCase("NumericalSVT", "NumericalSVT (c = 2)", _numerical_svt, half_x, half_xp,
                      0.1, numerical_svt_pair_epsilon(half_x, half_xp), 6_000_000, 1_500_000),
    ]


def _index_pair_epsilon(x, x_prime, noise) -> float:
    a, b = noisy_max_index_law(x, 0.1, noise=noise), noisy_max_index_law(x_prime, 0.1, noise=noise)
    return float(np.max(np.abs(np.log(a) - np.log(b))))


def _above_threshold_pair_epsilon(x, x_prime, threshold, threshold_scale, query_scale) -> float:
    from . import svt
    a, b = (svt.output_log_probabilities(v, threshold, 0.1, threshold_scale=threshold_scale, query_scale=query_scale)
            for v in (x, x_prime))
    return float(np.max(np.abs(a - b)))


def _geometric_pair_epsilon(c, c_prime, epsilon=0.1, n=5) -> float:
    a, b = geometric_sample_law(c, epsilon, n), geometric_sample_law(c_prime, epsilon, n)
    return max(abs(math.log(p / q)) for p, q in zip(a, b))


def floating_point_cases() -> list[BenchmarkCase]:
    r"""DP-Sniper's floating-point experiment: numpy's Laplace sampler and Mironov's snapping mechanism.

    Both at claimed :math:`\varepsilon = 0.1` on the inputs 0 and 1: numpy's
    :meth:`numpy.random.Generator.laplace` with scale 10, unrounded (its true :math:`\varepsilon`
    in floating point is infinite: some outputs are reachable from one input only), and the
    snapping mechanism with bound :math:`B = 100` (:cite:`mironov2012significance`), whose
    outputs are multiples of :math:`\Lambda = 16` in :math:`[-B, B]`.

    Returns
    -------
    list of BenchmarkCase
        Two rows: numpy's sampler (``true_epsilon`` infinite) and the snapping mechanism
        (``true_epsilon`` 0.1).

    Examples
    --------
    >>> [c.key for c in floating_point_cases()]
    ['floating_point', 'floating_fixed']
    """
    return [
        BenchmarkCase("floating_point", "numpy's Laplace sampler, 64 bits", partial(_numpy_laplace, scale=10.0),
                      np.zeros(1), np.ones(1), 0.1, math.inf, 2_000_000),
        BenchmarkCase("floating_fixed", "snapping mechanism (B = 100)", _snapping, np.zeros(1), np.ones(1),
                      0.1, 0.1, 60_000_000),
    ]
