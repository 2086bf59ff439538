r"""Differential privacy for functions: Gaussian kernels, Gaussian-process noise, private KDE.

The chapters "function-space" and "rkhs-kde" follow :cite:`hall2013differential`.
A function :math:`f_D` computed from a data set is released as

.. math:: \tilde f_D = f_D + \sigma\, G, \qquad G \sim \mathrm{GP}(0, K),

with :math:`\sigma = \Delta\, c(\delta)/\varepsilon` from
:func:`dpnotes.mechanisms.gaussian_sigma`. For every finite set of points
:math:`x_1, \dots, x_m` the released vector is the finite-dimensional Gaussian
mechanism with covariance the Gram matrix :math:`M = (K(x_i, x_j))`, so the
sensitivity that matters is the Mahalanobis norm
:math:`\lVert M^{-1/2} (f_D - f_{D'})(x_{1:m}) \rVert_2`, which is at most the RKHS
norm :math:`\lVert f_D - f_{D'} \rVert_{H_K}`.

Kernel used throughout: the *unnormalised* Gaussian kernel

.. math:: K_h(x, y) = \exp\bigl(-\lVert x - y \rVert_2^2 / (2 h^2)\bigr),

whose RKHS is the one in which the KDE sensitivity :func:`rkhs_sensitivity` is
computed. The noise process must use this same kernel, with the same bandwidth.

Points are arrays of shape ``(m,)`` (one dimension) or ``(m, d)``.
Neighbouring data sets differ by replacing one record (package convention).
"""

from __future__ import annotations

import math
import numbers
import reprlib
import sys

import numpy as np
from scipy import linalg
from scipy.spatial.distance import cdist
from scipy.special import expit, logsumexp
from scipy.stats import norm

from ._validate import MAX_ENTRIES, check_delta, check_integer, check_positive, check_rng
from .mechanisms import gaussian_sigma

__all__ = [
    "as_points",
    "gaussian_kernel",
    "mahalanobis_norm",
    "rkhs_norm",
    "gp_cholesky",
    "sample_gp",
    "kde",
    "kde_difference_rkhs_norm",
    "rkhs_sensitivity",
    "gp_mechanism",
    "private_kde",
    "gp_conditional",
    "gp_extend",
    "normal_reference_bandwidth",
    "normal_kde_mise",
    "kde_ise_normal",
    "lscv",
    "lscv_sensitivity",
    "sobolev_kde_sensitivity",
    "erm_sensitivity",
    "kernel_logistic_regression",
]

#: Elements of the largest temporary array (points x data) that :func:`kde` builds at once.
_CHUNK = 2_000_000


def as_points(name: str, x, d: int | None = None) -> np.ndarray:
    """Return ``x`` as a finite float array of shape ``(m, d)``.

    A 1-D array of length ``m`` is read as ``m`` points of dimension 1. If ``d`` is
    given, the dimension must equal it.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    x : array_like, shape (m,) or (m, d)
        The points.
    d : int, optional
        The required dimension, ``>= 1``.

    Returns
    -------
    ndarray of shape (m, d)
        A float copy of ``x``.

    Raises
    ------
    ValueError
        If ``x`` is not a non-empty array of finite real numbers of one of those shapes, or its
        dimension is not ``d``.

    Examples
    --------
    >>> as_points("grid", [0.0, 1.0]).shape
    (2, 1)
    >>> as_points("grid", [[0.0, 1.0]], d=1)
    Traceback (most recent call last):
    ...
    ValueError: grid must have points of dimension 1, got shape (1, 2)
    """
    if d is not None:
        d = check_integer("d", d, low=1)
    arr = _real_array(name, x)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have shape (m,) or (m, d) with m, d >= 1, got shape {np.shape(x)}")
    if d is not None and arr.shape[1] != d:
        raise ValueError(f"{name} must have points of dimension {d}, got shape {np.shape(x)}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must have finite entries")
    return arr


def _real_array(name: str, values, *, finite: bool = False) -> np.ndarray:
    """``values`` as a float array if every entry is a real number (not a bool, a string or None),
    and finite if asked; otherwise a ValueError that names the parameter (numpy's conversion
    answers a string with "could not convert string to float" and accepts ``True``)."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):             # a ragged nesting of sequences
        arr = None
    if arr is not None and arr.dtype.kind == "O":
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in arr.ravel()):
            arr = arr.astype(float)
    if arr is None or arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be an array of real numbers, got {reprlib.repr(values)}")
    arr = arr.astype(float)
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must have finite entries, got {reprlib.repr(values)}")
    return arr


def _sqdist(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``x`` and ``y``, shape ``(len(x), len(y))``.

    From the coordinate differences (:func:`scipy.spatial.distance.cdist`), never as
    ``|x|^2 + |y|^2 - 2 x.y``: that expansion cancels for close points far from the origin
    (at (1000, 1000) and 1e-4 away it was 2 % off, and the kernel at h = 1e-4 1 % off) and left
    K(x, x) below 1.
    """
    if x.shape[1] == 1:  # exact and fast in one dimension
        return (x[:, 0][:, None] - y[:, 0][None, :]) ** 2
    return cdist(x, y, "sqeuclidean")


#: Bandwidths in this range keep the plain formulas: ``2 h^2`` is a normal float there, and a squared
#: coordinate difference that under- or overflows moves the kernel's exponent by less than 1e-100 or
#: leaves it ``inf`` (where the kernel is 0). Outside it :func:`_exponent` divides the differences by
#: ``h`` first and a normalising constant ``(2 pi h^2)^(-d/2)`` is applied as ``exp(a) 2^k``
#: (:func:`_inv_norm_parts`, :func:`_exp2`), so that it over- or underflows only in the result.
_PLAIN_H = (1e-100, 1e100)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _plain(h: float) -> bool:
    return _PLAIN_H[0] <= h <= _PLAIN_H[1]


def _exponent(x: np.ndarray, y: np.ndarray, h: float, *, relative: bool = False) -> np.ndarray:
    """The kernel's exponent ``||x - y||^2 / (2 h^2)`` between the rows of ``x`` and ``y``, shape
    ``(len(x), len(y))``, ``inf`` where it overflows (the kernel is then 0).

    Outside ``_PLAIN_H`` the squared distance over ``2 h^2`` fails: ``2 h^2`` underflows to 0 below
    ``h = 1.5e-154`` (0 / 0 = nan on the diagonal, where the kernel is 1) and overflows above
    ``9e153`` (every exponent 0, the kernel 1 at any distance); there each coordinate difference is
    divided by ``h`` before it is squared (a difference that overflows is formed from the halved
    points). With ``relative``, so at every ``h``: the exponent keeps its relative accuracy down to
    about 1e-300 (the plain squared distance underflows below 1e-162 whatever ``h``, which moves
    ``exp(-u)`` by less than 1e-100 but is all of ``expm1(-u)``: :func:`rkhs_norm`).
    """
    with np.errstate(over="ignore", under="ignore"):
        if _plain(h) and not relative:
            return _sqdist(x, y) / (2.0 * h * h)
        t = x[:, None, :] - y[None, :, :]
        wide = np.isinf(t)
        t /= h
        if wide.any():
            t[wide] = ((x[:, None, :] / 2.0 - y[None, :, :] / 2.0)[wide] / h) * 2.0
        return (t * t).sum(axis=2) / 2.0


def _log_norm(h: float, d: int) -> float:
    """``log (2 pi h^2)^(d/2)``, the logarithm of the Gaussian density's normalising constant."""
    return d * (_HALF_LOG_2PI + math.log(h))


def _inv_norm_parts(h: float, d: int) -> tuple[float, int]:
    """``(a, k)`` with ``(2 pi h^2)^(-d/2) = exp(a) 2^k``: for ``h = m 2^e`` (``m`` in [1/2, 1)),
    ``a = -d log(sqrt(2 pi) m)`` and ``k = -d e``, so that the power of two, which carries the
    constant's over- or underflow, is applied exactly (:func:`_exp2`)."""
    m, e = math.frexp(h)
    return -d * (_HALF_LOG_2PI + math.log(m)), -d * e


#: ln 2 in two parts (fdlibm): q * _LN2_HI is exact for integers |q| < 2^20
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


def _exp2(z, k):
    """``exp(z) 2^k`` for a float or array ``z`` (``-inf`` gives 0) and an integer ``k``: brought
    into the float range at the end (``inf`` or 0 beyond it), never lost to an intermediate
    ``exp(z)`` that over- or underflows. ``z = q ln2 + r`` with ``|r| <= ln2 / 2``, then
    ``ldexp(exp(r), q + k)``; the relative error is that of ``z`` itself plus a few ulps (a
    subnormal result is rounded twice), for ``|z| <= 1.45e6`` (beyond it ``r`` is not reduced: 0 or ``inf``
    unless ``k`` nearly cancels ``z``, which no caller's constant does)."""
    z = np.asarray(z, dtype=float)
    fin = np.isfinite(z)
    # |q| < 2^21: q * _LN2_HI (32 significant bits) is exact, so r keeps z's accuracy. The clip was at |z| = 1e5,
    # where kde in 500 dimensions at h = 1e-90 needs z = -1.03e5 against k = 148,600 (it answered 0 for 953)
    q = np.where(fin, np.rint(np.clip(np.where(fin, z, 0.0), -1.45e6, 1.45e6) / _LN2_HI), 0.0)
    r = (np.where(fin, z, 0.0) - q * _LN2_HI) - q * _LN2_LO
    power = np.clip(q + float(k), -3000.0, 3000.0).astype(np.int64)   # beyond +-2^1100: inf or 0 anyway
    with np.errstate(over="ignore", under="ignore"):
        out = np.where(fin, np.ldexp(np.exp(r), power), np.exp(z))
    return out if out.ndim else float(out)


#: Exponents beyond which ``exp(-u)`` (below 2e-300) is computed with its constant by :func:`_exp2`: such a
#: term may have underflowed to a subnormal, whose few bits a constant above 1 would lift into the normal range
_DEEP = 690.0


def _log_sum_exp_neg(u: np.ndarray) -> np.ndarray:
    """``log sum_j exp(-u_ij)`` for each row of ``u >= 0``, ``-inf`` for a row of ``inf``; no term
    underflows (the largest is factored out)."""
    low = u.min(axis=1)
    out = np.full(u.shape[0], -np.inf)
    fin = np.isfinite(low)
    with np.errstate(under="ignore"):
        out[fin] = np.log(np.exp(low[fin, None] - u[fin]).sum(axis=1)) - low[fin]
    return out


def gaussian_kernel(x, y, bandwidth, *, normalized: bool = False) -> np.ndarray:
    r"""Gram matrix of the Gaussian kernel between two sets of points.

    :math:`K_h(x, y) = \exp(-\lVert x-y\rVert^2/(2h^2))`, or, with ``normalized=True``,
    the density :math:`(2\pi h^2)^{-d/2} K_h(x, y)` of :math:`N(y, h^2 I_d)` at :math:`x`.

    Parameters
    ----------
    x, y : array_like, shape (m,) or (m, d), and (k,) or (k, d)
        Points.
    bandwidth : float
        :math:`h > 0`. Every positive float is supported: as :math:`h \to 0` the kernel is 1
        where :math:`x = y` and 0 elsewhere, as :math:`h \to \infty` it is 1.
    normalized : bool
        Multiply by :math:`(2\pi h^2)^{-d/2}` (then ``inf`` where the density exceeds the float
        range, e.g. at :math:`x = y` for :math:`h = 5\cdot10^{-324}`).

    Returns
    -------
    numpy.ndarray, shape (m, k)

    Raises
    ------
    ValueError
        If ``x`` or ``y`` is malformed or ``bandwidth`` is not a finite float ``> 0``.

    Examples
    --------
    >>> gaussian_kernel([0.0], [0.0, 2.0], 2.0).round(6).tolist()
    [[1.0, 0.606531]]
    """
    h = check_positive("bandwidth", bandwidth)
    x = as_points("x", x)
    y = as_points("y", y, d=x.shape[1])
    u = _exponent(x, y, h)
    with np.errstate(under="ignore"):
        k = np.exp(-u)
    if normalized:
        d = x.shape[1]
        log_c = -_log_norm(h, d)
        a, e = _inv_norm_parts(h, d)
        if _plain(h) and -700.0 < log_c < 700.0:
            k *= (2.0 * math.pi * h * h) ** (-d / 2.0)
            # a term below 1e-300 may have underflowed to a subnormal of few bits, which the constant
            # would lift above 2e-308 (1.93e-308 for 2.85e-308 at h = 1e-16): those in exp(a) 2^k
            deep = u > _DEEP
            if deep.any():
                k[deep] = _exp2(a - u[deep], e)
        else:   # the constant over- or underflows
            k = _exp2(a - u, e)
    return k


def mahalanobis_norm(v, gram) -> float:
    r"""The Mahalanobis norm :math:`\lVert M^{-1/2} v \rVert_2 = \sqrt{v^\top M^{-1} v}`.

    Any square root of :math:`M` gives the same value, so the norm is computed by
    a Cholesky solve (no matrix square root is formed).

    Parameters
    ----------
    v : array_like, shape (m,)
        The vector.
    gram : array_like, shape (m, m)
        Symmetric positive definite :math:`M`.

    Returns
    -------
    float
        :math:`\sqrt{v^\top M^{-1} v}`.

    Raises
    ------
    ValueError
        If ``v`` or ``gram`` has a non-finite entry, their shapes do not match, or ``gram`` is
        not positive definite.

    Examples
    --------
    >>> mahalanobis_norm([3.0, 4.0], [[1.0, 0.0], [0.0, 4.0]])
    3.605551275463989
    """
    v = _real_array("v", v, finite=True)
    m = _real_array("gram", gram, finite=True)
    if v.ndim != 1 or m.shape != (v.size, v.size):
        raise ValueError(f"gram must have shape ({v.size}, {v.size}) to match v, got shape {m.shape}")
    try:
        c = linalg.cho_factor(m, lower=True)
    except linalg.LinAlgError:
        raise ValueError("gram must be positive definite (Cholesky failed)") from None
    return float(math.sqrt(max(v @ linalg.cho_solve(c, v), 0.0)))


def rkhs_norm(coef, centers, bandwidth) -> float:
    r"""RKHS norm of :math:`f = \sum_j a_j K_h(\cdot, z_j)`: :math:`\sqrt{a^\top K a}`.

    This is exact (the reproducing property gives
    :math:`\langle K(\cdot, z_i), K(\cdot, z_j)\rangle_H = K(z_i, z_j)`).

    Parameters
    ----------
    coef : array_like, shape (k,)
        The coefficients :math:`a_j`.
    centers : array_like, shape (k,) or (k, d)
        The centres :math:`z_j`.
    bandwidth : float
        :math:`h > 0` of the kernel, every positive float (as :math:`h \to 0` the norm tends to
        the Euclidean norm of the coefficients summed per distinct centre).

    Returns
    -------
    float
        :math:`\lVert f\rVert_{H_{K_h}}`.

    Raises
    ------
    ValueError
        If ``coef`` does not have one finite entry per centre, ``centers`` is malformed or
        ``bandwidth <= 0``.

    Examples
    --------
    >>> round(rkhs_norm([1.0, -1.0], [0.0, 100.0], 1.0) ** 2, 12)  # far apart: 1 + 1
    2.0
    """
    a = _real_array("coef", coef, finite=True)
    z = as_points("centers", centers)
    if a.ndim != 1 or a.size != z.shape[0]:
        raise ValueError(f"coef must have one entry per centre ({z.shape[0]}), got shape {a.shape}")
    h = check_positive("bandwidth", bandwidth)
    top = float(np.abs(a).max())
    if top == 0.0:
        return 0.0
    # a^T K a = top^2 ((sum b)^2 + b^T (K - 1 1^T) b), b = a / top, with K - 1 = expm1(-u): the
    # plain a^T K a cancels where the kernel is near 1 (it gave 0 for 1e-8 with centres 1e-8 apart
    # at h = 1) and over- or underflowed with the coefficients
    b = a / top
    # the sum exactly rounded (math.fsum): b.sum() cancels when the coefficients nearly sum to 0,
    # as a difference of two functions' coefficients does (it gave 9.4e183 for 3.2e183 there)
    s = math.fsum(a) / top
    with np.errstate(over="ignore", under="ignore"):
        span = float((z.max(axis=0) - z.min(axis=0)).max())    # the largest coordinate difference
        tau = span / h
    if 0.0 < tau < 1e-100:
        # every pair within 1e-100 h: K - 1 = -u to the last bit, u = tau^2 w with
        # w = |z_i - z_j|^2 / (2 span^2) <= d / 2, and q = tau^2 ((s / tau)^2 - b^T w b) is formed
        # relative to tau^2, as u itself underflows (centres 3 apart at h = 1e300 gave 0 for 3e-300)
        r = s / tau
        if abs(r) > 1e100:                                      # b^T w b is below 1e-200 r^2
            return top * abs(s)
        return top * tau * math.sqrt(max(r * r - float(b @ _exponent(z, z, span, relative=True) @ b), 0.0))
    # the exponent from differences divided by h: squared first, centres 2e-170 apart underflowed to
    # 0 at h = 1e-70, and the norm was 0 for 2e-100
    q = s * s + float(b @ np.expm1(-_exponent(z, z, h, relative=True)) @ b)
    return top * math.sqrt(max(q, 0.0))


def gp_cholesky(points, bandwidth, *, jitter: float = 1e-10, max_jitter: float = 1e-4):
    r"""Lower Cholesky factor of :math:`M + \tau I`, :math:`M` the Gaussian-kernel Gram matrix.

    Gram matrices of the Gaussian kernel on a fine grid are positive definite in
    exact arithmetic but numerically singular (their eigenvalues decay faster
    than exponentially), so Cholesky needs a *jitter* :math:`\tau`. It starts at
    ``jitter`` and is multiplied by 10 until the factorisation succeeds (at most
    ``max_jitter``). The jitter is safe for privacy: noise with covariance
    :math:`M + \tau I \succeq M` has Mahalanobis sensitivity
    :math:`\lVert (M+\tau I)^{-1/2} v\rVert \le \lVert M^{-1/2} v \rVert`, i.e. it
    is the exact GP noise plus independent white noise of variance :math:`\tau`.

    Parameters
    ----------
    points : array_like, shape (m,) or (m, d)
        The points.
    bandwidth : float
        :math:`h > 0` of the kernel.
    jitter, max_jitter : float
        The first and the largest jitter tried, ``> 0``.

    Returns
    -------
    L : ndarray of shape (m, m)
        The lower Cholesky factor.
    tau : float
        The jitter used.

    Raises
    ------
    ValueError
        If ``points`` is malformed, ``bandwidth``, ``jitter`` or ``max_jitter`` is not ``> 0``,
        or the factorisation fails up to ``max_jitter``.

    Examples
    --------
    >>> L, tau = gp_cholesky([0.0, 1.0], 1.0)
    >>> np.allclose(L @ L.T, gaussian_kernel([0.0, 1.0], [0.0, 1.0], 1.0) + tau * np.eye(2))
    True
    """
    pts = as_points("points", points)
    return _jittered_cholesky(gaussian_kernel(pts, pts, bandwidth), jitter, max_jitter)


def _jittered_cholesky(m: np.ndarray, jitter, max_jitter) -> tuple[np.ndarray, float]:
    """Cholesky of ``m + tau I``, ``tau`` from ``jitter`` up by factors of 10 to ``max_jitter``."""
    tau = check_positive("jitter", jitter)
    cap = check_positive("max_jitter", max_jitter)
    eye = np.eye(m.shape[0])
    while True:
        try:
            return linalg.cholesky(m + tau * eye, lower=True), tau
        except linalg.LinAlgError:
            if tau * 10.0 > cap:
                raise ValueError(f"jitter must be raised: Cholesky failed up to {tau!r}") from None
            tau *= 10.0


def sample_gp(points, bandwidth, rng, size: int = 1, *, jitter: float = 1e-10) -> np.ndarray:
    r"""Draw ``size`` sample paths of :math:`\mathrm{GP}(0, K_h)` at the given points.

    A GP restricted to finitely many points is :math:`N(0, M)`; a draw is
    :math:`L z` with :math:`L L^\top = M + \tau I` (see :func:`gp_cholesky`) and
    :math:`z` standard normal; all paths come from one matrix product.

    Parameters
    ----------
    points : array_like, shape (m,) or (m, d)
        The points.
    bandwidth : float
        :math:`h > 0` of the kernel.
    rng : numpy.random.Generator
        The source of the normal draws (``m * size`` of them, as one ``(m, size)`` array).
    size : int
        Number of paths, in ``[1, 10**8]`` (an m-by-size array of normal draws: 800 MB for
        one point at the cap).
    jitter : float
        Starting jitter of :func:`gp_cholesky`.

    Returns
    -------
    numpy.ndarray, shape (size, m)
        One path per row.

    Raises
    ------
    ValueError
        If a parameter is out of range or malformed, or the factorisation fails.

    Examples
    --------
    >>> g = sample_gp(np.linspace(0, 1, 5), 0.3, np.random.default_rng(0), size=2)
    >>> g.shape
    (2, 5)
    """
    rng = check_rng("rng", rng)
    size = check_integer("size", size, low=1, high=MAX_ENTRIES)
    lower, _ = gp_cholesky(points, bandwidth, jitter=jitter)
    z = rng.standard_normal((lower.shape[0], size))
    return (lower @ z).T


def kde(data, grid, bandwidth) -> np.ndarray:
    r"""Gaussian kernel density estimate on a grid.

    :math:`f_D(x) = \frac{1}{n (2\pi h^2)^{d/2}} \sum_{i=1}^n \exp(-\lVert x - x_i\rVert^2/(2h^2))`,
    evaluated in blocks so the temporary array stays small.

    Parameters
    ----------
    data : array_like, shape (n,) or (n, d)
    grid : array_like, shape (m,) or (m, d)
    bandwidth : float
        :math:`h > 0`, every positive float: as :math:`h \to 0` the estimate tends to 0 away from
        the data and to :math:`\infty` on a data point (``inf`` where it exceeds the float range).

    Returns
    -------
    numpy.ndarray, shape (m,)

    Raises
    ------
    ValueError
        If ``data`` or ``grid`` is malformed or ``bandwidth`` is not a finite float ``> 0``.

    Examples
    --------
    >>> round(float(kde([0.0], [0.0], 1.0)[0]), 6)  # 1/sqrt(2 pi)
    0.398942
    """
    h = check_positive("bandwidth", bandwidth)
    x = as_points("data", data)
    g = as_points("grid", grid, d=x.shape[1])
    n, d = x.shape
    log_norm = math.log(n) + _log_norm(h, d)
    # the plain sum, unless the constant (2 pi h^2)^(-d/2) overflows or underflows: then in
    # logarithms (at h = 1e-300 the plain sum gave nan, 0 / 0, and at h = 1e300 it gave 0 for
    # 4e-301); so also a point whose every term is below 1e-300 (deep): a term that underflowed to a
    # subnormal keeps few bits, which the constant would lift (1.9e-308 for 2.9e-308 at h = 1e-16)
    plain = _plain(h) and _log_norm(h, d) > -700.0 and log_norm < 700.0
    out = np.empty(g.shape[0])
    deep = np.zeros(g.shape[0], dtype=bool)
    step = max(1, _CHUNK // (n * d))
    for start in range(0, g.shape[0], step):
        rows = slice(start, start + step)
        u = _exponent(g[rows], x, h)
        if plain:
            # the block's sums in a local array: a write through out[rows][...] reaches out only while rows is a slice
            block_deep = u.min(axis=1) > _DEEP
            with np.errstate(under="ignore"):
                block = np.exp(-u).sum(axis=1)
            if block_deep.any():
                block[block_deep] = _log_sum_exp_neg(u[block_deep])
            deep[rows], out[rows] = block_deep, block
        else:
            out[rows] = _log_sum_exp_neg(u)
    a, e = _inv_norm_parts(h, d)
    if plain:
        res = np.empty_like(out)
        res[~deep] = out[~deep] / (n * (2.0 * math.pi * h * h) ** (d / 2.0))
        res[deep] = _exp2(out[deep] - math.log(n) + a, e)          # out is a logarithm there
        return res
    return _exp2(out - math.log(n) + a, e)


def kde_difference_rkhs_norm(x, x_prime, n, bandwidth) -> np.ndarray:
    r"""Exact :math:`\lVert f_D - f_{D'}\rVert_{H}` when record ``x`` is replaced by ``x_prime``.

    :math:`f_D - f_{D'} = c\,(K_h(\cdot, x) - K_h(\cdot, x'))` with
    :math:`c = 1/(n (2\pi h^2)^{d/2})`, so by the reproducing property the norm in the
    RKHS of the unnormalised kernel :math:`K_h` is
    :math:`c\sqrt{2 - 2\exp(-\lVert x-x'\rVert^2/(2h^2))}`.

    Parameters
    ----------
    x, x_prime : float or array_like
        Single points or rows of points of the same shape, paired row by row.
    n : int
        Size of the data set, ``>= 1``.
    bandwidth : float
        :math:`h > 0`, every positive float (``inf`` where the norm exceeds the float range, as
        for distinct records at :math:`h = 5\cdot10^{-324}`).

    Returns
    -------
    ndarray of shape (k,)
        The norm for each pair (``k = 1`` for two numbers).

    Raises
    ------
    ValueError
        If the points are malformed or of different shapes, ``n < 1`` or ``bandwidth <= 0``.

    Examples
    --------
    >>> float(kde_difference_rkhs_norm(0.0, 0.0, 10, 1.0)[0])
    0.0
    """
    n = check_integer("n", n, low=1)
    h = check_positive("bandwidth", bandwidth)
    # as_points converts to float itself and names the parameter if that fails
    a = as_points("x", np.atleast_1d(_real_array("x", x)))
    b = as_points("x_prime", np.atleast_1d(_real_array("x_prime", x_prime)), d=a.shape[1])
    if a.shape != b.shape:
        raise ValueError(f"x_prime must have the shape of x {a.shape}, got shape {b.shape}")
    d = a.shape[1]
    # c sqrt(2 - 2 exp(-u)), u = r^2 / (2 h^2), written as c (r / h) sqrt(g(u)) with
    # g(u) = -expm1(-u) / u (g(0) = 1): the subtraction lost every digit for records 1e-8 apart,
    # and r^2 underflows to 0 below r = 1e-162; r itself is scaled by the largest coordinate
    # difference so that it does not underflow either (nor overflow: a difference beyond the
    # float range, e.g. from -1e308 to 1e308, is r = inf)
    with np.errstate(over="ignore", under="ignore"):
        diff = np.abs(a - b)
        top = diff.max(axis=1)
        finite = np.isfinite(top)
        r = np.full(top.shape, np.inf)
        r[finite] = top[finite] * np.sqrt(((diff[finite] / np.where(top[finite] > 0, top[finite], 1.0)[:, None]) ** 2)
                                          .sum(axis=1))
        u = (r / h) ** 2 / 2.0                      # inf for records beyond 1e154 h apart: then sqrt(2)
    out = np.sqrt(-2.0 * np.expm1(-u))
    small = u < 1.0
    g = np.ones(int(small.sum()))
    nonzero = u[small] > 0
    g[nonzero] = -np.expm1(-u[small][nonzero]) / u[small][nonzero]
    out[small] = (r[small] / h) * np.sqrt(g)
    # times c = 1 / (n (2 pi h^2)^(d/2)): plain where the constant is a normal float, else in
    # logarithms (below h = 1.5e-154 the plain constant divided by 0, above 1e154 it was 0)
    log_norm = math.log(n) + _log_norm(h, d)
    if _plain(h) and abs(log_norm) < 700.0:
        return 1.0 / (n * (2.0 * math.pi * h * h) ** (d / 2.0)) * out
    a, e = _inv_norm_parts(h, d)
    with np.errstate(divide="ignore"):
        return _exp2(np.log(out) - math.log(n) + a, e)      # 0 for equal records (log 0 = -inf)


def rkhs_sensitivity(n, bandwidth, d: int = 1) -> float:
    r"""RKHS sensitivity of the Gaussian KDE: :math:`\Delta = \sqrt{2}/(n (2\pi h^2)^{d/2})`.

    The supremum over one replaced record of :func:`kde_difference_rkhs_norm`,
    approached as the two records move apart (:cite:`hall2013differential`,
    Section 4.1). It is measured in the RKHS of the *unnormalised* kernel
    :math:`K_h(x,y) = \exp(-\lVert x-y\rVert^2/(2h^2))` with the KDE's own ``h``,
    so the noise must be :math:`\mathrm{GP}(0, K_h)`.

    Parameters
    ----------
    n : int
        Size of the data set, ``>= 1``.
    bandwidth : float
        :math:`h > 0`, every positive float: :math:`\Delta` is ``inf`` where it exceeds the float
        range (:math:`h` below about :math:`(\sqrt2/(1.8\cdot10^{308} n))^{1/d}/\sqrt{2\pi}`, e.g.
        :math:`h = 5\cdot10^{-324}`) and 0 where it falls below it.
    d : int
        Dimension of the data, ``>= 1``.

    Returns
    -------
    float
        :math:`\Delta`.

    Raises
    ------
    ValueError
        If ``n`` or ``d`` is not an integer ``>= 1`` or ``bandwidth`` is not a finite float ``> 0``.

    Examples
    --------
    >>> round(rkhs_sensitivity(1, 1 / math.sqrt(2 * math.pi)), 12) == round(math.sqrt(2), 12)
    True
    """
    n = check_integer("n", n, low=1)
    h = check_positive("bandwidth", bandwidth)
    d = check_integer("d", d, low=1)
    log_norm = math.log(n) + _log_norm(h, d)
    if _plain(h) and abs(log_norm) < 700.0:
        return math.sqrt(2.0) / (n * (2.0 * math.pi * h * h) ** (d / 2.0))
    a, e = _inv_norm_parts(h, d)                    # the plain form divided by 0 below h = 1.5e-154
    return _exp2(0.5 * math.log(2.0) - math.log(n) + a, e)


def _check_release_bandwidth(h: float, n: int, d: int) -> float:
    """``h`` if the RKHS sensitivity :func:`rkhs_sensitivity` ``(n, h, d)`` is a normal float, else
    a ValueError naming the bandwidth and that range of it.

    Beyond it the release cannot be computed: above ``1.8e308`` the sensitivity is ``inf`` (and
    :func:`dpnotes.mechanisms.gaussian_sigma` refuses it), below ``2.2e-308`` it is 0 or a subnormal
    float, a noise scale without precision (at ``h = 1e300`` the old code released with a
    sensitivity of 0 and stopped at "sensitivity must be > 0"). ``log Delta = log(sqrt(2) / n)
    - d log(sqrt(2 pi) h)``; the bounds are rounded inward to four digits.
    """
    def bound(limit):
        return math.exp((0.5 * math.log(2.0) - math.log(n) - math.log(limit)) / d - _HALF_LOG_2PI)

    lo = float(f"{bound(sys.float_info.max) * (1.0 + 1e-3):.3e}")
    hi = float(f"{bound(sys.float_info.min) * (1.0 - 1e-3):.3e}")
    if not lo <= h <= hi:
        raise ValueError(f"bandwidth must be in [{lo:.4g}, {hi:.4g}] for n = {n} and d = {d} (beyond, the RKHS "
                         f"sensitivity sqrt(2) / (n (2 pi h^2)^(d/2)) leaves the normal float range), got {h!r}")
    return h


def gp_mechanism(values, points, sensitivity, epsilon, delta, bandwidth, rng, *, method: str = "hrw",
                 jitter: float = 1e-10) -> np.ndarray:
    r"""Release the values of a function at ``points`` with Gaussian-process noise.

    :math:`f(x_i) + \sigma G(x_i)`, :math:`G \sim \mathrm{GP}(0, K_h)`, with
    :math:`\sigma` = :func:`dpnotes.mechanisms.gaussian_sigma` ``(epsilon, delta,
    sensitivity, method)``. It is :math:`(\varepsilon,\delta)`-DP when ``sensitivity``
    bounds :math:`\lVert f_D - f_{D'}\rVert_{H_{K_h}}` over neighbours (RKHS norm of the
    kernel with *this* bandwidth; :cite:`hall2013differential`, Corollary 9) and the
    calibration is valid for ``epsilon`` (``"hrw"`` and ``"classical"``: :math:`\varepsilon\le1`;
    ``"analytic"``: every :math:`\varepsilon`). The noise is
    :math:`\sigma L z` with :math:`L` from :func:`gp_cholesky` and :math:`z` the next
    ``m`` standard normal draws of ``rng`` (what the tests couple to).

    Parameters
    ----------
    values : array_like, shape (m,)
        :math:`f_D` at the points.
    points : array_like, shape (m,) or (m, d)
        The points.
    sensitivity : float
        RKHS sensitivity :math:`\Delta > 0`.
    epsilon, delta : float
        Privacy parameters, ``epsilon > 0``, ``0 < delta < 1``.
    bandwidth : float
        :math:`h` of the noise kernel :math:`K_h`.
    rng : numpy.random.Generator
        The source of the noise.
    method : {"hrw", "classical", "analytic"}
        The calibration of :func:`dpnotes.mechanisms.gaussian_sigma`.
    jitter : float
        Starting jitter of :func:`gp_cholesky`.

    Returns
    -------
    ndarray of shape (m,)
        The released values.

    Raises
    ------
    ValueError
        If ``values`` does not have one finite entry per point, a parameter is out of range, or the
        noise scale ``sigma`` overflows (a sensitivity near the largest float).

    Examples
    --------
    >>> out = gp_mechanism([0.0, 1.0], [0.0, 0.5], 0.1, 1.0, 1e-3, 0.3, np.random.default_rng(0))
    >>> out.shape
    (2,)
    """
    pts = as_points("points", points)
    v = _real_array("values", values, finite=True)
    if v.shape != (pts.shape[0],):
        raise ValueError(f"values must have one entry per point ({pts.shape[0]}), got shape {v.shape}")
    sigma = gaussian_sigma(epsilon, delta, sensitivity, method=method)
    if not math.isfinite(sigma):
        # a sensitivity near the largest float times the calibration's factor: the release would be +-inf
        # (private_kde at the low end of its bandwidth range, 2.045e-155 for n = 3, d = 2, released [inf, -inf])
        raise ValueError(f"sensitivity must keep the noise scale sigma = sensitivity * c(epsilon, delta) finite "
                         f"(below 1.8e308), got sensitivity {sensitivity!r} with epsilon {epsilon!r}, delta {delta!r}")
    rng = check_rng("rng", rng)
    return v + sigma * sample_gp(pts, bandwidth, rng, size=1, jitter=jitter)[0]


def private_kde(data, grid, epsilon, delta, bandwidth, rng, *, method: str = "hrw", jitter: float = 1e-10):
    r"""Release a Gaussian KDE on a grid with Gaussian-process noise.

    :math:`\tilde f_D = f_D + \sigma G` on the grid, :math:`G\sim\mathrm{GP}(0, K_h)`,
    :math:`\sigma` = :func:`dpnotes.mechanisms.gaussian_sigma` with sensitivity
    :func:`rkhs_sensitivity`; (epsilon, delta)-DP for the replace-one relation on
    every finite set of evaluation points (:cite:`hall2013differential`,
    Corollary 9 and Section 4.1). The bandwidth must not depend on the data
    (or must be chosen privately). The ``"hrw"`` calibration is proved for
    :math:`\varepsilon \le 1` (the chapter shows where it fails).

    Parameters
    ----------
    data : array_like, shape (n,) or (n, d)
    grid : array_like, shape (m,) or (m, d)
    epsilon, delta : float
        Privacy parameters, ``epsilon > 0``, ``0 < delta < 1``.
    bandwidth : float
        :math:`h > 0`, used by both the KDE and the noise kernel, in the range
        :math:`[h_-, h_+]` where the sensitivity :math:`\Delta = \sqrt2/(n (2\pi h^2)^{d/2})` is a
        normal float: :math:`h_-` and :math:`h_+` solve :math:`\Delta = 1.8\cdot10^{308}` and
        :math:`\Delta = 2.2\cdot10^{-308}`, rounded inward to four digits (for :math:`n = 2`,
        :math:`d = 1`: :math:`[1.571\cdot10^{-309}, 1.267\cdot10^{307}]`). Beyond, :math:`\Delta`
        is ``inf`` or has lost its precision (0 or subnormal), and so would the noise.
    rng : numpy.random.Generator
    method : str
        Calibration passed to :func:`dpnotes.mechanisms.gaussian_sigma`.
    jitter : float
        Starting jitter of :func:`gp_cholesky` (only ever increases the noise).

    Returns
    -------
    numpy.ndarray, shape (m,)
        The released values on the grid.

    Raises
    ------
    ValueError
        If a parameter is out of range or malformed, among them a ``bandwidth`` outside
        :math:`[h_-, h_+]` (the message states the range for the given ``n`` and ``d``), or one so close to
        :math:`h_-` that the noise scale :math:`\sigma` overflows for the given ``epsilon`` and ``delta``.

    Examples
    --------
    >>> out = private_kde([0.1, 0.5], np.linspace(-1, 1, 7), 1.0, 1e-3, 0.5, np.random.default_rng(0))
    >>> out.shape
    (7,)
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_delta("delta", delta)
    h = check_positive("bandwidth", bandwidth)
    rng = check_rng("rng", rng)
    x = as_points("data", data)
    g = as_points("grid", grid, d=x.shape[1])
    n, d = x.shape
    h = _check_release_bandwidth(h, n, d)
    sensitivity = rkhs_sensitivity(n, h, d)
    if not math.isfinite(gaussian_sigma(epsilon, delta, sensitivity, method=method)):
        raise ValueError(f"bandwidth must keep the noise scale sigma = rkhs_sensitivity(n, h, d) * c(epsilon, delta) "
                         f"finite (below 1.8e308; a larger bandwidth or epsilon), got {h!r} with n = {n}, d = {d}, "
                         f"epsilon = {epsilon!r}, delta = {delta!r}")
    return gp_mechanism(kde(x, g, h), g, sensitivity, epsilon, delta, h, rng, method=method, jitter=jitter)


def gp_conditional(points, values, new_points, bandwidth, *, jitter: float = 1e-10):
    r"""Conditional law of :math:`G(\text{new points})` given :math:`G(\text{points}) = \text{values}`.

    For :math:`G \sim \mathrm{GP}(0, K_h)` the pair is jointly normal, so the conditional law
    is :math:`N(m, C)` with :math:`m = K_{*g} (M + \tau I)^{-1} v` and
    :math:`C = K_{**} - K_{*g} (M + \tau I)^{-1} K_{g*}`, where :math:`M + \tau I` is the
    jittered Gram matrix of :func:`gp_cholesky` (the covariance :func:`sample_gp` used for the
    values) :cite:`rasmussen2006gaussian`. Drawing from it after :func:`sample_gp` gives the
    values at the union of the points the joint law of :func:`sample_gp` on the union (with
    jitter on the old points only), see :func:`gp_extend`.

    Parameters
    ----------
    points : array_like, shape (m,) or (m, d)
    values : array_like, shape (m,) or (m, r)
        :math:`G` at ``points``; with ``r`` columns, ``r`` conditional means are returned
        (the mean is linear in the values: ``values = np.eye(m)`` gives the matrix of the map).
    new_points : array_like, shape (k,) or (k, d)
    bandwidth : float
    jitter : float
        Starting jitter of :func:`gp_cholesky`.

    Returns
    -------
    (mean, cov) : numpy.ndarray of shapes (k,) or (k, r), and (k, k)

    Examples
    --------
    >>> mean, cov = gp_conditional([0.0], [2.0], [0.0, 50.0], 1.0)
    >>> mean.round(6).tolist(), cov.round(6).tolist()   # at the same point: known; far away: prior
    ([2.0, 0.0], [[0.0, 0.0], [0.0, 1.0]])
    """
    old = as_points("points", points)
    new = as_points("new_points", new_points, d=old.shape[1])
    v = _real_array("values", values, finite=True)
    if v.ndim not in (1, 2) or v.shape[0] != old.shape[0]:
        raise ValueError(f"values must have one entry (or row) per point ({old.shape[0]}), got shape {v.shape}")
    lower, _ = gp_cholesky(old, bandwidth, jitter=jitter)
    cross = gaussian_kernel(old, new, bandwidth)  # K_{g*}
    w = linalg.solve_triangular(lower, cross, lower=True)  # L^{-1} K_{g*}
    mean = w.T @ linalg.solve_triangular(lower, v, lower=True)
    cov = gaussian_kernel(new, new, bandwidth) - w.T @ w
    return mean, (cov + cov.T) / 2.0


def gp_extend(points, values, new_points, bandwidth, rng, *, jitter: float = 1e-10) -> np.ndarray:
    r"""Draw :math:`G(\text{new points})` from its law given :math:`G(\text{points}) = \text{values}`.

    Returns :math:`m + L_C z` with :math:`(m, C)` from :func:`gp_conditional`, :math:`L_C` the
    lower Cholesky factor of :math:`C + \tau' I` (jitter grown as in :func:`gp_cholesky`;
    :math:`C` is singular when a new point repeats an old one) and :math:`z` the next
    ``k`` standard normal draws of ``rng``.

    This is how a curator extends a GP release to new points: with
    ``values`` the noise :math:`G` already used on the grid, the values on the grid and the new
    points together are one draw of the GP mechanism on the union, private by the same
    sensitivity (no extra budget). Drawing *fresh* independent noise at the new points instead
    would be a second release.

    Parameters
    ----------
    points, values, new_points, bandwidth, jitter
        As in :func:`gp_conditional` (``values`` a vector).
    rng : numpy.random.Generator
        The source of the normal draws.

    Returns
    -------
    ndarray of shape (k,)
        :math:`G` at ``new_points``.

    Raises
    ------
    ValueError
        As :func:`gp_conditional`, or if ``rng`` is not a Generator.

    Examples
    --------
    >>> g = gp_extend([0.0, 1.0], [0.5, -0.5], [0.5], 1.0, np.random.default_rng(0))
    >>> g.shape
    (1,)
    """
    rng = check_rng("rng", rng)
    mean, cov = gp_conditional(points, values, new_points, bandwidth, jitter=jitter)
    lower, _ = _jittered_cholesky(cov, jitter, 1e-4)
    return mean + lower @ rng.standard_normal(cov.shape[0])


def normal_reference_bandwidth(data, *, scale: str = "iqr") -> np.ndarray:
    r"""Normal-reference ("rule of thumb") bandwidth for each coordinate.

    :math:`h_j = \bigl(4/((d+2)n)\bigr)^{1/(d+4)} s_j`, the minimiser of the
    asymptotic MISE of a Gaussian-kernel KDE when the data are
    :math:`N(0, \mathrm{diag}(s_j^2))` (Silverman 1986, eq. 4.14); :math:`s_j` is
    the sample standard deviation (``scale="sd"``) or the interquartile range
    divided by :math:`2\Phi^{-1}(3/4) \approx 1.349` (``scale="iqr"``).
    It is a function of the data: using it in a private release costs privacy. It returns one
    bandwidth per coordinate, while :func:`private_kde` takes one :math:`h`: to use the
    :math:`h_j`, divide coordinate :math:`j` of the data and the grid by :math:`h_j`, release
    with ``bandwidth=1`` and divide the result by :math:`\prod_j h_j` (the RKHS sensitivity is then
    :math:`\sqrt2/(n(2\pi)^{d/2}\prod_j h_j)`; chapter "rkhs-kde").

    Parameters
    ----------
    data : array_like, shape (n,) or (n, d)
        At least 2 points.
    scale : {"iqr", "sd"}
        The estimate of each coordinate's spread.

    Returns
    -------
    ndarray of shape (d,)
        One bandwidth per coordinate.

    Raises
    ------
    ValueError
        If ``data`` is malformed or has fewer than 2 points, or ``scale`` is unknown.

    Examples
    --------
    >>> x = np.array([-1.0, 1.0] * 50)
    >>> h = float(normal_reference_bandwidth(x, scale="sd")[0])
    >>> math.isclose(h, (4 / 300) ** 0.2 * math.sqrt(100 / 99))  # sd = sqrt(100/99)
    True
    """
    x = as_points("data", data)
    n, d = x.shape
    if n < 2:
        raise ValueError(f"data must have at least 2 points, got {n}")
    if scale == "iqr":
        q75, q25 = np.percentile(x, [75, 25], axis=0)
        s = (q75 - q25) / (2.0 * norm.ppf(0.75))
    elif scale == "sd":
        s = x.std(axis=0, ddof=1)
    else:
        raise ValueError(f"scale must be one of 'iqr', 'sd', got {scale!r}")
    return (4.0 / ((d + 2.0) * n)) ** (1.0 / (d + 4.0)) * s


def normal_kde_mise(n, bandwidth) -> float:
    r"""Exact mean integrated squared error of the Gaussian KDE for :math:`N(0,1)` data.

    With :math:`\phi_s` the :math:`N(0,s^2)` density and :math:`s=\sqrt{1+h^2}`,
    :math:`E f_D = \phi_s`, and integrating bias squared and variance over the line
    gives (Marron and Wand 1992)

    .. math::
        \frac{1}{2\sqrt\pi}\Bigl(\frac{1}{nh} + \bigl(1-\tfrac1n\bigr)\frac{1}{s} + 1
        - \frac{2\sqrt2}{\sqrt{2+h^2}}\Bigr).

    Parameters
    ----------
    n : int
        Sample size, ``>= 1``.
    bandwidth : float
        :math:`h > 0`.

    Returns
    -------
    float
        The MISE.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``bandwidth <= 0``.

    Examples
    --------
    >>> round(normal_kde_mise(1, 1.0) * 2 * math.sqrt(math.pi), 6)  # 1 + 1 - 2 sqrt(2/3)
    0.367007
    """
    n = check_integer("n", n, low=1)
    h = check_positive("bandwidth", bandwidth)
    s = math.sqrt(1.0 + h * h)
    return (1.0 / (n * h) + (1.0 - 1.0 / n) / s + 1.0 - 2.0 * math.sqrt(2.0) / math.sqrt(2.0 + h * h)) / (
        2.0 * math.sqrt(math.pi)
    )


def kde_ise_normal(n, bandwidth, grid, rng, *, reps: int = 10, epsilon=None, delta=None, method: str = "hrw"):
    r"""Integrated squared errors of the KDE (and of its private release) for :math:`N(0,1)` data.

    For each of ``reps`` seeded samples of size ``n`` the KDE is computed on ``grid``
    (1-D, increasing) and :math:`\int_T (f_D - \phi)^2` is taken by the trapezoid rule
    over :math:`T = [\text{grid}_0, \text{grid}_{-1}]`. If ``epsilon`` and ``delta`` are
    given, the same KDEs plus the noise of :func:`private_kde` are scored too.

    Parameters
    ----------
    n : int
        Sample size, in ``[1, 10**8]`` (each sample is an array of n floats: 800 MB at the cap).
    bandwidth : float
        :math:`h > 0`.
    grid : array_like, shape (m,)
        Increasing, at least 2 points.
    rng : numpy.random.Generator
        The source of the samples (then of the noise).
    reps : int
        Number of samples, in ``[1, 10**5]`` (a KDE per sample, one after another: about 6 s
        for small ``n`` at the cap).
    epsilon, delta : float, optional
        Privacy parameters of the release; both ``None`` for the KDE only. With them,
        ``bandwidth`` must be in the range of :func:`private_kde` (for ``d = 1``).
    method : str
        Calibration passed to :func:`dpnotes.mechanisms.gaussian_sigma`.

    Returns
    -------
    ise : ndarray of shape (reps,)
        The integrated squared error of each KDE.
    ise_private : ndarray of shape (reps,) or None
        That of each release, ``None`` without ``epsilon`` and ``delta``.

    Raises
    ------
    ValueError
        If a parameter is out of range or ``grid`` is not increasing, among them, for the release,
        a ``bandwidth`` outside the range of :func:`private_kde`.

    Examples
    --------
    >>> ise, _ = kde_ise_normal(50, 0.5, np.linspace(-5, 5, 101), np.random.default_rng(0), reps=3)
    >>> ise.shape
    (3,)
    """
    n = check_integer("n", n, low=1, high=MAX_ENTRIES)
    h = check_positive("bandwidth", bandwidth)
    rng = check_rng("rng", rng)
    reps = check_integer("reps", reps, low=1, high=10**5)
    g = as_points("grid", grid, d=1)[:, 0]
    if g.size < 2 or np.any(np.diff(g) <= 0):
        raise ValueError("grid must be increasing with at least 2 points")
    truth = norm.pdf(g)
    est = np.stack([kde(rng.standard_normal(n), g, h) for _ in range(reps)])
    ise = np.trapezoid((est - truth) ** 2, g, axis=1)
    if epsilon is None and delta is None:
        return ise, None
    sigma = gaussian_sigma(epsilon, delta, rkhs_sensitivity(n, _check_release_bandwidth(h, n, 1), 1), method=method)
    noisy = est + sigma * sample_gp(g[:, None], h, rng, size=reps)
    return ise, np.trapezoid((noisy - truth) ** 2, g, axis=1)


def lscv(data, bandwidth) -> float:
    r"""Least-squares (leave-one-out) cross-validation score of the Gaussian KDE.

    :math:`\mathrm{LSCV}(h) = \int f_D^2 - \frac{2}{n}\sum_i f_{D,-i}(x_i)`, an unbiased estimate of
    :math:`\mathrm{MISE}(h) - \int f^2`; with :math:`\phi_s` the :math:`N(0, s^2 I_d)` density,
    :math:`\int f_D^2 = n^{-2}\sum_{i,j}\phi_{\sqrt2 h}(x_i-x_j)` and
    :math:`f_{D,-i}(x_i) = (n-1)^{-1}\sum_{j\ne i}\phi_h(x_i - x_j)`.

    Parameters
    ----------
    data : array_like, shape (n,) or (n, d)
        At least 2 points.
    bandwidth : float
        :math:`h > 0`, every positive float (``+-inf`` where the score exceeds the float range,
        as it does for :math:`h = 5\cdot10^{-324}`: it grows as :math:`h^{-d}` when :math:`h \to 0`).

    Returns
    -------
    float
        :math:`\mathrm{LSCV}(h)`.

    Raises
    ------
    ValueError
        If ``data`` is malformed or has fewer than 2 points, or ``bandwidth <= 0``.

    Examples
    --------
    >>> round(lscv([0.0, 100.0], 1.0) * 4 * math.sqrt(math.pi), 12)  # far apart: 2 phi_{sqrt2}(0)/4
    1.0
    """
    h = check_positive("bandwidth", bandwidth)
    x = as_points("data", data)
    n, d = x.shape
    if n < 2:
        raise ValueError(f"data must have at least 2 points, got {n}")
    log_norm = _log_norm(h, d)              # log (2 pi h^2)^(d/2); that of (4 pi h^2)^(d/2) adds d/2 log 2
    if _plain(h) and abs(log_norm) < 600.0 and abs(log_norm + d / 2.0 * math.log(2.0)) < 600.0:
        with np.errstate(over="ignore", under="ignore"):         # a square beyond 1e308: the term is 0
            d2 = _sqdist(x, x)
            both = np.exp(-d2 / (4.0 * h * h)).sum() / (4.0 * math.pi * h * h) ** (d / 2.0) / n**2
            k = np.exp(-d2 / (2.0 * h * h))
        np.fill_diagonal(k, 0.0)      # the pairs i != j: k.sum() - n cancelled (e^-40 terms lost at d = 100)
        loo = k.sum() / (2.0 * math.pi * h * h) ** (d / 2.0) / (n - 1)
        return float(both - 2.0 * loo / n)
    # LSCV = (2 pi h^2)^(-d/2) B with B = 2^(-d/2) S / n^2 - 2 T / (n (n-1)), S = sum_ij e^(-u_ij / 2),
    # T = sum_(i != j) e^(-u_ij), u = |x_i - x_j|^2 / (2 h^2): the constant overflows below h = 1e-154
    # (the plain form gave nan, 0 / 0, at h = 1e-300) and is applied as exp(a) 2^k. B is formed times
    # 2^p, p chosen from the logarithms of its two parts so that the larger is near 1, each term of T
    # scaled exactly (_exp2): 2^(-d/2) is subnormal from d = 2045 and 0 from 2150, and so are the
    # terms of T that matter beside it (two points 1e3 apart in 2200 dimensions, h = 1 / sqrt(4 pi):
    # 0 for 0.5)
    u = _exponent(x, x, h)
    np.fill_diagonal(u, np.inf)                 # T's terms: the pairs i != j
    with np.errstate(under="ignore", divide="ignore"):
        s_part = (n + np.exp(-u / 2.0).sum()) / n**2                  # S / n^2 >= 1 / n: no underflow
        log_both = math.log(s_part) - d / 2.0 * math.log(2.0)
        log_loo = math.log(2.0 / (n * (n - 1))) + float(logsumexp(-u))
    p = -round(max(log_both, log_loo) / math.log(2.0))
    j = d // 2
    both = math.ldexp(s_part, p - j) * (math.sqrt(0.5) if d % 2 else 1.0)   # 2^(p - d/2) S / n^2
    b = both - 2.0 / (n * (n - 1)) * float(_exp2(-u, p).sum())
    if b == 0.0:
        return 0.0
    a, e = _inv_norm_parts(h, d)
    return math.copysign(_exp2(math.log(abs(b)) + a, e - p), b)


def lscv_sensitivity(n, bandwidth, d: int = 1, *, sharp: bool = False) -> float:
    r"""How much :func:`lscv` can change when one record is replaced.

    Only the terms that involve the replaced record :math:`x_n` change, so
    :math:`\mathrm{LSCV} = \text{const} + \sum_{i<n} \psi(\lVert x_i - x_n\rVert)` with

    .. math:: \psi(t) = a\, e^{-t^2/(4h^2)} - b\, e^{-t^2/(2h^2)},\qquad
              a = \frac{2}{n^2}\phi_{\sqrt2 h}(0),\quad b = \frac{4}{n(n-1)}\phi_h(0),

    :math:`\phi_s(0) = (2\pi s^2)^{-d/2}`. With ``sharp=False`` the bound adds the ranges of the
    two parts, :math:`(n-1)(a + b) = \frac{2(n-1)}{n^2}\phi_{\sqrt2 h}(0) + \frac4n\phi_h(0)`
    (triangle inequality); each part alone is attained (the ``a`` part when a record leaves a tight
    cluster with the ``b`` terms left out, and vice versa). With ``sharp=True`` it returns the
    exact sensitivity :math:`(n-1)(\max\psi - \min\psi) = (n-1)\bigl(b - a + a^2/(4b)\bigr)`:
    with :math:`u = e^{-t^2/(4h^2)} \in (0, 1]`, :math:`\psi = a u - b u^2` has its minimum
    :math:`a - b` at :math:`u = 1` and its maximum :math:`a^2/(4b)` at :math:`u = a/(2b) < 1`, and
    both are reached at once by :math:`n-1` coincident records and :math:`x_n` moved from the
    cluster to distance :math:`2h\sqrt{\log(2b/a)}`. Both are of order :math:`1/(n h^d)`.

    Parameters
    ----------
    n : int
        Size of the data set, ``>= 2``.
    bandwidth : float
        :math:`h > 0`, every positive float (``inf`` where the bound exceeds the float range, e.g.
        at :math:`h = 5\cdot10^{-324}`; 0 where it falls below it).
    d : int
        Dimension of the data, ``>= 1``.
    sharp : bool
        The exact sensitivity instead of the triangle-inequality bound.

    Returns
    -------
    float
        The bound (or the exact sensitivity).

    Raises
    ------
    ValueError
        If ``n < 2``, ``d < 1`` or ``bandwidth <= 0``.

    Examples
    --------
    >>> math.isclose(lscv_sensitivity(10, 1.0), 0.18 / (2 * math.sqrt(math.pi)) + 0.4 / math.sqrt(2 * math.pi))
    True
    >>> lscv_sensitivity(10, 1.0, sharp=True) < lscv_sensitivity(10, 1.0)
    True
    """
    n = check_integer("n", n, low=2)
    h = check_positive("bandwidth", bandwidth)
    d = check_integer("d", d, low=1)
    # a = 2r b with r = 2^(-d/2) (n-1) / (4n), so (n-1)(a + b) = (4/n)(1 + 2r) c and
    # (n-1)(b - a + a^2 / (4b)) = (4/n)(1 - r)^2 c, c = (2 pi h^2)^(-d/2): a^2 underflowed to a
    # subnormal (3.5e-314 at n = 26, h = 1e38, d = 4: 3e-12 off), and c raised 0.0 to a negative
    # power below h = 1.5e-154; beyond 1e-100 <= h <= 1e100 c is applied as exp(a') 2^k
    r = 2.0 ** (-d / 2.0) * (n - 1) / (4.0 * n)
    k = 4.0 / n * ((1.0 - r) ** 2 if sharp else 1.0 + 2.0 * r)
    if _plain(h) and abs(_log_norm(h, d)) < 600.0:
        return k * (2.0 * math.pi * h * h) ** (-d / 2.0)
    a, e = _inv_norm_parts(h, d)
    return _exp2(math.log(k) + a, e)


def sobolev_kde_sensitivity(n, bandwidth) -> float:
    r"""Sensitivity of the 1-D Gaussian KDE in the Sobolev norm :math:`\lVert f\rVert^2 = \int f^2 + \int f'^2`.

    That norm is the RKHS norm of :math:`K(x,y) = \tfrac12 e^{-|x-y|}` (Fourier transform
    :math:`1/(1+\omega^2)`), whose GP is the stationary Ornstein–Uhlenbeck process
    (:cite:`hall2013differential`, section 4). With :math:`s = \sqrt2 h` and
    :math:`u = x_n - x_n'`, :math:`f_D - f_{D'} = (\phi_h(\cdot - x_n) - \phi_h(\cdot - x_n'))/n` has
    squared norm :math:`\frac{2}{n^2}\bigl(g(0) - g(u)\bigr)`, :math:`g(u) = \phi_s(u)(1 + 1/s^2 - u^2/s^4)`
    (the cross terms are :math:`\phi_h * \phi_h = \phi_s` and :math:`-\phi_s''`). :math:`g` is
    negative for :math:`u^2 > s^2(s^2+1)` and smallest at :math:`u^2 = s^2(s^2 + 3)`, so the supremum
    is reached at that finite distance, not as the records move apart:

    .. math:: \Delta^2 = \frac{2\phi_s(0)}{n^2}\Bigl(1 + \frac{1}{s^2} + \frac{2}{s^2} e^{-(s^2+3)/2}\Bigr).

    Parameters
    ----------
    n : int
        Size of the data set, ``>= 1``.
    bandwidth : float
        :math:`h > 0` of the KDE, every positive float (:math:`\Delta` grows as :math:`h^{-3/2}`
        when :math:`h \to 0` and is ``inf`` where it exceeds the float range, below about
        :math:`h = 2.3\cdot10^{-206}/n^{2/3}`).

    Returns
    -------
    float
        :math:`\Delta`.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``bandwidth`` is not a finite float ``> 0``.

    Examples
    --------
    >>> far = math.sqrt(2 * (1 / (2 * math.sqrt(math.pi)) + 1 / (4 * math.sqrt(math.pi)))) / 10  # h = 1, far apart
    >>> sobolev_kde_sensitivity(10, 1.0) > far
    True
    """
    n = check_integer("n", n, low=1)
    h = check_positive("bandwidth", bandwidth)
    s2 = 2.0 * h * h
    if _plain(h):
        phi0 = 1.0 / math.sqrt(2.0 * math.pi * s2)
        return math.sqrt(2.0 * phi0 * (1.0 + 1.0 / s2 + 2.0 / s2 * math.exp(-(s2 + 3.0) / 2.0))) / n
    # beyond, s^2 = 2 h^2 under- or overflows (1 / s^2 divided by 0 at h = 1e-300; at h = 1e300
    # phi_s(0) was 0 and Delta 0 for 2.4e-152). With q = 1 + 2 e^(-(s^2+3)/2) and h = m 4^j
    # (m in [1/2, 2)), Delta = sqrt(2 / sqrt(4 pi)) h^(-1/2) sqrt(1 + q / s^2) / n is
    # exp(c - log(m) / 2 + log(q + s^2) / 2 - log(2) / 2 - log(m)) 2^(-3j) for h < 1 and
    # exp(c - log(m) / 2 + log1p(q / s^2) / 2) 2^(-j) for h > 1, c = log(2 / sqrt(4 pi)) / 2 - log n
    mant, e = math.frexp(h)
    j, odd = divmod(e, 2)
    m = mant * 2.0 if odd else mant
    q = 1.0 + 2.0 * math.exp(-(s2 + 3.0) / 2.0)
    c = 0.5 * math.log(2.0 / math.sqrt(4.0 * math.pi)) - math.log(n) - 0.5 * math.log(m)
    if h < 1.0:
        return _exp2(c + 0.5 * math.log(q + s2) - 0.5 * math.log(2.0) - math.log(m), -3 * j)
    return _exp2(c + 0.5 * math.log1p(q / s2), -j)


def erm_sensitivity(n, lam, *, lipschitz: float = 1.0, kappa: float = 1.0) -> float:
    r"""RKHS sensitivity of a regularised empirical risk minimiser: :math:`L\kappa/(\lambda n)`.

    For :math:`f_D = \arg\min_{f \in H} \frac1n\sum_i \ell(y_i, f(x_i)) + \lambda\lVert f\rVert_H^2`
    with :math:`\ell` convex and :math:`L`-Lipschitz in its second argument and
    :math:`K(x,x) \le \kappa^2`, replacing one record moves :math:`f_D` by at most
    :math:`L\kappa/(\lambda n)` in :math:`H` (strong convexity, as in the stability argument of
    Bousquet and Elisseeff; the chapter "rkhs-kde" proves it; :cite:`hall2013differential`, section 4).

    Parameters
    ----------
    n : int
        Size of the data set, ``>= 1``.
    lam : float
        The regularisation :math:`\lambda > 0`.
    lipschitz : float
        :math:`L > 0`.
    kappa : float
        :math:`\kappa > 0`.

    Returns
    -------
    float
        :math:`L\kappa/(\lambda n)`.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``lam``, ``lipschitz`` or ``kappa`` is not ``> 0``.

    Examples
    --------
    >>> erm_sensitivity(100, 0.05)
    0.2
    >>> erm_sensitivity(100, 0.05, lipschitz=2.0, kappa=0.5)
    0.2
    """
    n = check_integer("n", n, low=1)
    lam = check_positive("lam", lam)
    lipschitz = check_positive("lipschitz", lipschitz)
    kappa = check_positive("kappa", kappa)
    return lipschitz * kappa / (lam * n)


def kernel_logistic_regression(data, labels, bandwidth, lam, *, tol: float = 1e-12, max_iter: int = 100) -> np.ndarray:
    r"""Coefficients :math:`\alpha` of the regularised kernel logistic regression :math:`f_D = \sum_j \alpha_j K_h(\cdot, x_j)`.

    :math:`f_D` minimises :math:`\frac1n\sum_i \log(1 + e^{-y_i f(x_i)}) + \lambda\lVert f\rVert^2_{H_{K_h}}`
    (labels :math:`y_i = \pm 1`); by the representer theorem it has this form, and setting the
    gradient to zero gives :math:`r(\alpha) = 2\lambda n\,\alpha + g = 0` with
    :math:`g_i = -y_i\,\mathrm{expit}(-y_i f(x_i))`. It is solved by Newton's method on :math:`r`
    (Jacobian :math:`2\lambda n I + \mathrm{diag}(w) K`, :math:`w_i = \mathrm{expit}(m_i)\mathrm{expit}(-m_i)`,
    :math:`m_i = y_i f(x_i)`), which converges in a few steps; scipy has no kernel logistic
    regression, hence the hand-written solver. The logistic loss is 1-Lipschitz and
    :math:`K_h(x,x) = 1`, so :func:`erm_sensitivity` ``(n, lam)`` is the RKHS sensitivity.

    Parameters
    ----------
    data : array_like, shape (n,) or (n, d)
        The points :math:`x_i`.
    labels : array_like, shape (n,)
        The labels, each ``-1`` or ``1``.
    bandwidth : float
        :math:`h > 0` of the kernel.
    lam : float
        The regularisation :math:`\lambda > 0`.
    tol : float
        Newton stops when :math:`\max_i |r_i| <` ``tol``, ``> 0``.
    max_iter : int
        Most Newton steps, ``>= 1``.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The coefficients :math:`\alpha`.

    Raises
    ------
    ValueError
        If the data or labels are malformed, a parameter is out of range, or Newton has not
        reached ``tol`` after ``max_iter`` steps.

    Examples
    --------
    >>> alpha = kernel_logistic_regression([-1.0, 1.0], [-1, 1], 1.0, 0.1)
    >>> bool(alpha[1] > 0 > alpha[0]) and math.isclose(alpha[0], -alpha[1])
    True
    """
    x = as_points("data", data)
    y = _real_array("labels", labels)
    n = x.shape[0]
    if y.shape != (n,) or not np.all(np.abs(y) == 1.0):
        raise ValueError(f"labels must be {n} values in {{-1, 1}}, got {np.asarray(labels)!r}")
    lam = check_positive("lam", lam)
    tol = check_positive("tol", tol)
    max_iter = check_integer("max_iter", max_iter, low=1)
    gram = gaussian_kernel(x, x, bandwidth)
    alpha = np.zeros(n)
    for _ in range(max_iter):
        margin = y * (gram @ alpha)
        resid = 2.0 * lam * n * alpha - y * expit(-margin)
        if np.abs(resid).max() < tol:
            return alpha
        jac = 2.0 * lam * n * np.eye(n) + (expit(margin) * expit(-margin))[:, None] * gram
        alpha = alpha - np.linalg.solve(jac, resid)
    raise ValueError(f"max_iter must be raised: Newton did not reach tol {tol!r} in {max_iter} steps")
