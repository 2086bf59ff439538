r"""Local differential privacy: randomizers, frequency estimation, and amplification by shuffling.

In the *local model* every person randomizes their own record with a *local randomizer*
:math:`R` before it leaves their device; :math:`R` is :math:`\varepsilon`-locally DP when
:math:`\Pr[R(v) \in S] \le e^{\varepsilon} \Pr[R(v') \in S]` for all records :math:`v, v'`
and events :math:`S` (:cite:`kasiviswanathan2008what`, :cite:`duchi2013local`). Records
here are categories :math:`0, \dots, k-1`.

Frequency oracles (:cite:`wang2017locally`)
    *k-ary randomized response* (k-RR) reports the true category with probability
    :math:`p = e^{\varepsilon}/(e^{\varepsilon} + k - 1)` and each other category with
    probability :math:`q = 1/(e^{\varepsilon} + k - 1)`. *Optimized unary encoding* (OUE)
    one-hot encodes the category and reports every bit independently: the true category's
    bit is 1 with probability :math:`p = 1/2`, every other bit with probability
    :math:`q = 1/(e^{\varepsilon} + 1)`. In both, the count :math:`C_v` of reports that
    *support* category :math:`v` (equal to :math:`v`, or with bit :math:`v` set) gives the
    unbiased estimate :math:`\hat n_v = (C_v - nq)/(p - q)` of the true count :math:`n_v`,
    with exact variance
    :math:`\operatorname{Var}\hat n_v = \big(n_v p(1-p) + (n - n_v) q(1-q)\big)/(p-q)^2`
    for fixed data (the randomness is the randomizers' only). *Hadamard response*
    (:cite:`acharya2019hadamard`) reports one of :math:`K` values (the smallest power of two
    above :math:`k`): uniform on category :math:`v`'s half of them, the columns where row
    :math:`v + 1` of the Sylvester-Hadamard matrix is :math:`+1`, with probability
    :math:`e^{\varepsilon}/(1+e^{\varepsilon})`, uniform on the other half otherwise; its variance
    :math:`n/\tanh^2(\varepsilon/2) - n_v` does not grow with :math:`k`.

The shuffle model (:cite:`cheu2019distributed`, :cite:`erlingsson2019amplification`)
    A shuffler hides who sent which report. With binary randomized response
    (:math:`k = 2`, parameter :math:`\varepsilon_0`) the analyst then sees only the number
    of 1s. :func:`shuffled_rr_delta` computes the *exact* privacy profile
    :math:`\delta(\varepsilon)` of that count, worst case over the other users' bits and
    over the order of the neighbouring pair (the book's replace-one relation: one user's
    bit changes). :func:`fmt_epsilon` is the closed-form bound of Feldman, McMillan and
    Talwar (:cite:`feldman2021hiding`, Theorem 3.1, in the larger form their reference code
    computes), :func:`fmt_stronger_epsilon` their closed form for twice as many clones
    (:cite:`feldman2023stronger`), and :func:`fmt_clone_delta` evaluates exactly the pair of
    distributions their proofs reduce to ("clones"), a tighter bound.

Samplers take ``rng`` and an optional ``size`` (that many independent runs at once,
stacked on a new first axis).
"""

from __future__ import annotations

import functools
import math
import reprlib
import sys

import numpy as np
from scipy import optimize
from scipy.special import expit, gammaln

from ._validate import MAX_ENTRIES, check_in_range, check_integer, check_positive, check_real, check_rng

__all__ = [
    "krr_probabilities",
    "krr_randomize",
    "krr_estimate",
    "krr_variance",
    "oue_probabilities",
    "oue_randomize",
    "oue_estimate",
    "oue_variance",
    "hr_parameters",
    "hr_randomize",
    "hr_estimate",
    "hr_variance",
    "shuffled_rr_count",
    "shuffled_rr_laws",
    "shuffled_rr_delta",
    "shuffled_rr_epsilon",
    "fmt_epsilon0_max",
    "fmt_epsilon",
    "fmt_stronger_epsilon0_max",
    "fmt_stronger_epsilon",
    "fmt_clone_delta",
    "fmt_clone_epsilon",
]


# --------------------------------------------------------------------------- validation
def _array(name: str, x, rule: str) -> np.ndarray:
    """``np.asarray(x)``, or a ValueError that names the parameter if ``x`` is a ragged nesting of
    sequences (numpy's own message, "setting an array element with a sequence", does not)."""
    try:
        return np.asarray(x)
    except (TypeError, ValueError):
        raise ValueError(f"{rule}, got {reprlib.repr(x)}") from None


def _categories(name: str, x, k: int) -> np.ndarray:
    """Return ``x`` as an int64 array if every entry is an integer in [0, k - 1]."""
    rule = f"{name} must contain integers in [0, {k - 1}]"
    arr = _array(name, x, rule)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{rule}, got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
        raise ValueError(f"{rule}, got non-integer values")
    # compared as Python numbers, which compare a float with an int exactly: numpy rounded k - 1 to a
    # float, and x = 2.0**63 passed for k = 2**63 - 1 (then cast to int64 as -2**63)
    if arr.size and (arr.min().item() < 0 or arr.max().item() > k - 1):
        raise ValueError(f"{rule}, got values from {arr.min()} to {arr.max()}")
    return arr.astype(np.int64)


def _counts(counts) -> np.ndarray:
    """Return a histogram of true counts as a float array: 1-D, k >= 2 entries, non-negative integers."""
    arr = _array("counts", counts, "counts must be a 1-D histogram of non-negative integers")
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"counts must be a 1-D histogram with k >= 2 entries, got shape {arr.shape}")
    if arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr) & (arr == np.round(arr)) & (arr >= 0)):
        raise ValueError(f"counts must be non-negative integers, got {arr.tolist()}")
    return arr.astype(float)


def _size(size):
    return None if size is None else check_integer("size", size, low=1, high=MAX_ENTRIES)


def _shape(values: np.ndarray, size) -> tuple:
    return values.shape if size is None else (size,) + values.shape


def _epsilons(epsilon) -> tuple[np.ndarray, bool]:
    """Validate ``epsilon`` (scalar or array, every entry finite and >= 0); return (flat array, was_scalar)."""
    try:
        arr = None if np.asarray(epsilon).dtype == bool else np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.size == 0:
        raise ValueError(f"epsilon must be a real number >= 0 or a non-empty array of them, got {epsilon!r}")
    for extreme in (np.min(arr), np.max(arr)):        # nan propagates to both extremes
        check_in_range("epsilon", float(extreme), 0.0)
    return arr, arr.ndim == 0


def _open_delta(delta) -> float:
    return check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)


# below it tanh(epsilon / 2) = (epsilon / 2)(1 - epsilon^2 / 12 + ...) is epsilon / 2 to 1e-17, under an ulp
_TINY_EPSILON = 1e-8
#: the most categories a randomizer takes: its reports are int64 (k = 2**63 raised numpy's
#: OverflowError or "high is out of bounds for int64")
_MAX_REPORT_K = 2**63 - 1
#: the most categories of k-RR's probabilities, where k - 1 is a float (10**400 raised "int too large
#: to convert to float")
_MAX_K = 10**300


def _over_tanh_half(x: np.ndarray, epsilon: float) -> np.ndarray:
    """``x / tanh(epsilon / 2)`` for a validated ``epsilon > 0`` and exact (integer-valued) ``x``.

    Below ``_TINY_EPSILON`` it is ``2x / epsilon``: ``epsilon / 2`` rounds to 0 at the smallest
    subnormal (5e-324), where ``x / tanh`` gave 0/0 = nan, and loses digits for every subnormal.
    0 where ``x == 0``; +-inf where the true quotient exceeds the largest float.
    """
    with np.errstate(over="ignore"):
        if epsilon < _TINY_EPSILON:
            return (2.0 * x) / epsilon
        return x / math.tanh(epsilon / 2.0)


def _variance_ratio(numerator: np.ndarray, gap: float) -> np.ndarray:
    """``numerator / gap**2`` for a variance: ``numerator >= 0`` and ``gap`` a rounded positive quantity.

    Divided by ``gap`` twice (``gap**2`` underflows to 0 from 1e-162, well before the quotient
    overflows); 0 where the numerator is 0 (no reports: 0/0 gave nan at a tiny epsilon); +inf where
    the quotient exceeds the largest float, also where ``gap`` itself rounded to 0 (it is positive).
    """
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = numerator / gap / gap
    return np.where(numerator == 0, 0.0, ratio)


# --------------------------------------------------------------------------- k-ary randomized response
def krr_probabilities(epsilon, k) -> tuple[float, float]:
    r"""Report probabilities :math:`(p, q)` of :math:`k`-ary randomized response.

    The true category is reported with probability :math:`p = e^{\varepsilon}/(e^{\varepsilon}+k-1)`
    and each of the :math:`k-1` others with :math:`q = 1/(e^{\varepsilon}+k-1)`, so that
    :math:`p/q = e^{\varepsilon}`: k-RR is :math:`\varepsilon`-locally DP
    (:cite:`wang2017locally`, "direct encoding"). For :math:`k = 2` it is Warner's randomized response.

    Parameters
    ----------
    epsilon : float
        Local privacy parameter, ``> 0``.
    k : int
        Number of categories, in ``[2, 10**300]`` (``k - 1`` is taken as a float).

    Returns
    -------
    (float, float)
        ``(p, q)``, with ``p + (k - 1) * q == 1``.

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite or ``k`` is not an integer in ``[2, 10**300]``.

    Examples
    --------
    >>> krr_probabilities(math.log(3), 2)     # Warner's randomized response with p = 3/4
    (0.75, 0.25)
    >>> p, q = krr_probabilities(1.0, 5)
    >>> round(p / q, 12) == round(math.e, 12)
    True
    """
    p, q, _ = _krr(epsilon, k)
    return p, q


def _krr(epsilon, k) -> tuple[float, float, float]:
    """k-RR's p and q, and p - q = (1 - e^-eps) / (1 + (k - 1) e^-eps) computed with expm1, not by
    subtraction (which loses all digits as epsilon -> 0: at epsilon = 1e-10 the estimates were
    off by 1e-6 relative; at 1e-300, p == q and they were infinite)."""
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=2)
    if k > _MAX_K:
        raise ValueError(f"k must be an integer in [2, 10**300] (k - 1 is taken as a float), got an integer of "
                         f"{len(str(k))} digits")
    # divide through by e^epsilon: no overflow for large epsilon
    shrink = math.exp(-epsilon)
    denom = 1.0 + (k - 1) * shrink
    return 1.0 / denom, shrink / denom, -math.expm1(-epsilon) / denom


def krr_randomize(x, epsilon, k, rng, size=None) -> np.ndarray:
    r"""Apply :math:`k`-ary randomized response to every record of ``x``.

    Each record is kept with probability :math:`p` (:func:`krr_probabilities`); otherwise it
    is replaced by one of the :math:`k - 1` other categories, chosen uniformly. The draws:
    ``U = rng.random(shape)`` (keep when ``U < p``) then ``J = rng.integers(1, k, shape)``
    (the replacement is ``(x + J) % k``), with ``shape = x.shape`` or ``(size,) + x.shape``.
    Each report is :math:`\varepsilon`-locally DP (:cite:`wang2017locally`, direct encoding).

    Parameters
    ----------
    x : array_like of int
        True categories in ``[0, k - 1]`` (any shape).
    epsilon : float
        Local privacy parameter, ``> 0``.
    k : int
        Number of categories, in ``[2, 2**63 - 1]`` (the reports are int64).
    rng : numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent runs, in ``[1, 10**8]``; adds a leading axis of that length (the
        draws are arrays of size times the records' entries: 800 MB per record at the cap).

    Returns
    -------
    numpy.ndarray of int64
        The reports, shape ``x.shape`` (or ``(size,) + x.shape``).

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite, ``k`` is not an integer in ``[2, 2**63 - 1]``, an entry of ``x``
        is not an integer in ``[0, k - 1]``, ``rng`` is not a :class:`numpy.random.Generator` or
        ``size`` is not an integer in ``[1, 10**8]``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> krr_randomize([0, 3, 2, 2], 50.0, 4, rng).tolist()     # huge epsilon: truthful
    [0, 3, 2, 2]
    >>> krr_randomize([1, 0], 1.0, 3, rng, size=5).shape
    (5, 2)
    """
    k = check_integer("k", k, low=2, high=_MAX_REPORT_K)   # the int (3.0 is accepted as 3): the output's dtype
    p, _ = krr_probabilities(epsilon, k)
    values = _categories("x", x, k)
    rng = check_rng("rng", rng)
    shape = _shape(values, _size(size))
    keep = rng.random(shape) < p
    shift = rng.integers(1, k, size=shape)             # uniform on the k - 1 other categories
    # (x + J) % k as x + J - k, plus k where negative: x + J overflowed int64 past k = 2**62 and wrapped
    # (for x = 2**63 - 2 at k = 2**63 - 1, J = 2 reported x itself)
    moved = shift - (k - values)
    moved[moved < 0] += k
    return np.where(keep, values, moved)


def krr_estimate(reports, epsilon, k) -> np.ndarray:
    r"""Unbiased estimate of every category's count from k-RR reports: :math:`\hat n_v = (C_v - nq)/(p-q)`.

    :math:`C_v` is the number of reports equal to :math:`v`; since
    :math:`\mathbb E[C_v] = n_v p + (n - n_v) q`, the estimate is unbiased
    (:cite:`wang2017locally`, Theorem 2). Estimates can be negative.

    Parameters
    ----------
    reports : array_like of int, shape (..., n)
        Reports of :func:`krr_randomize` (the last axis holds one run's ``n >= 1`` reports).
    epsilon : float
        The local privacy parameter the reports were made with, ``> 0``.
    k : int
        Number of categories, in ``[2, 10**8]`` (the counts of every category are an array
        of k integers per run: 800 MB at the cap).

    Returns
    -------
    numpy.ndarray, shape (..., k)
        Estimated counts, computed without cancelling :math:`C_v - nq` at a tiny ``epsilon``
        (``+-inf`` where the true estimate exceeds the largest float).

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite, ``k`` is not an integer in ``[2, 10**8]``, or ``reports``
        has no reports or an entry that is not an integer in ``[0, k - 1]``.

    Examples
    --------
    >>> p, q = krr_probabilities(math.log(3), 3)     # p = 3/5, q = 1/5
    >>> krr_estimate([0, 0, 1, 2, 0], math.log(3), 3).round(6).tolist()
    [5.0, 0.0, 0.0]
    """
    _krr(epsilon, k)                          # validates epsilon and k
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=2, high=MAX_ENTRIES)
    r = _categories("reports", reports, k)
    if r.ndim == 0 or r.shape[-1] == 0:
        raise ValueError(f"reports must have a last axis with n >= 1 reports, got shape {r.shape}")
    n = r.shape[-1]
    flat = r.reshape(-1, n)
    rows = flat.shape[0]
    # one bincount for all runs: run i's categories are shifted to i*k, ..., i*k + k - 1
    support = np.bincount((flat + k * np.arange(rows)[:, None]).ravel(), minlength=rows * k)
    support = support.reshape(r.shape[:-1] + (k,))
    # (C - n q)/(p - q) = (k C - n)/(k (p - q)) + n/k, since n (1/k - q) = n (p - q)/k: the integer k C - n
    # is exact, where C - n q cancelled (at epsilon = 1e-300, q rounds to 1/k: C = n/k gave 0, not n/k)
    # k (p - q) = k (1 - e^-eps)/(1 + (k - 1) e^-eps), multiplied first: >= 5e-324, never 0
    k_gap = k * -math.expm1(-epsilon) / (1.0 + (k - 1) * math.exp(-epsilon))
    with np.errstate(over="ignore"):               # +-inf: the true estimate exceeds the largest float
        return (k * support - n) / k_gap + n / k


def krr_variance(counts, epsilon) -> np.ndarray:
    r"""Exact variance of every k-RR count estimate, for the true counts ``counts`` (fixed data).

    :math:`C_v` is a sum of independent Bernoulli variables, :math:`n_v` with mean :math:`p` and
    :math:`n - n_v` with mean :math:`q`, so

    .. math:: \operatorname{Var}\hat n_v = \frac{n_v p(1-p) + (n - n_v) q(1-q)}{(p-q)^2}
              = \frac{n q(1-q)}{(p-q)^2} + \frac{n_v (1 - p - q)}{p - q}

    (:cite:`wang2017locally`, Theorem 2 gives the first term, the variance when :math:`n_v = 0`).

    Parameters
    ----------
    counts : array_like of int, shape (k,)
        True count of each of the ``k >= 2`` categories (non-negative integers).
    epsilon : float
        Local privacy parameter, ``> 0``.

    Returns
    -------
    numpy.ndarray, shape (k,)
        :math:`\operatorname{Var}\hat n_v` for each category (``inf`` where it exceeds the largest
        float at a tiny ``epsilon``; 0 when there are no reports).

    Raises
    ------
    ValueError
        If ``counts`` is not a 1-D array of ``k >= 2`` non-negative integers or ``epsilon`` is
        not ``> 0`` and finite.

    Examples
    --------
    >>> krr_variance([3, 1], math.log(3)).round(12).tolist()     # k = 2: n p (1 - p) / (2p - 1)^2 for every v
    [3.0, 3.0]
    """
    c = _counts(counts)
    p, q, gap = _krr(epsilon, c.size)
    n = c.sum()
    # 1 - p = (k - 1) q: exact where the subtraction would give 0 (p rounds to 1 for large epsilon)
    return _variance_ratio(c * p * ((c.size - 1) * q) + (n - c) * q * (1 - q), gap)


# --------------------------------------------------------------------------- optimized unary encoding
def oue_probabilities(epsilon) -> tuple[float, float]:
    r"""Bit probabilities :math:`(p, q) = (1/2,\ 1/(e^{\varepsilon}+1))` of optimized unary encoding.

    A record :math:`v` is one-hot encoded; bit :math:`v` is reported as 1 with probability
    :math:`p`, every other bit with probability :math:`q`. Two records :math:`v \ne v'` change
    only bits :math:`v` and :math:`v'`, so the largest output ratio is
    :math:`\frac{p(1-q)}{q(1-p)} = e^{\varepsilon}`. Among all unary encodings with that ratio,
    :math:`p = 1/2` minimizes :math:`q(1-q)/(p-q)^2` (:cite:`wang2017locally`, Section 4.2).

    Parameters
    ----------
    epsilon : float
        Local privacy parameter, ``> 0``.

    Returns
    -------
    (float, float)
        ``(p, q)`` with ``p = 0.5``.

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite.

    Examples
    --------
    >>> oue_probabilities(math.log(3))
    (0.5, 0.25)
    """
    q, _, _ = _oue(epsilon)
    return 0.5, q


def _oue(epsilon) -> tuple[float, float, float]:
    """OUE's q = 1/(1 + e^eps), 1 - q and p - q = tanh(eps/2)/2, each without overflow (math.exp(710)
    raised OverflowError) or cancellation."""
    epsilon = check_positive("epsilon", epsilon)
    return float(expit(-epsilon)), float(expit(epsilon)), 0.5 * math.tanh(epsilon / 2.0)


def oue_randomize(x, epsilon, k, rng, size=None) -> np.ndarray:
    r"""Optimized unary encoding of every record of ``x``: a row of ``k`` noisy bits per record.

    The draws: ``U = rng.random(shape + (k,))``; bit ``v`` of a record ``x_i`` is
    ``U[..., i, v] < (1/2 if v == x_i else q)``. Each report is :math:`\varepsilon`-locally DP
    (:cite:`wang2017locally`, Section 4.2; see :func:`oue_probabilities`).

    Parameters
    ----------
    x : array_like of int
        True categories in ``[0, k - 1]`` (any shape).
    epsilon : float
        Local privacy parameter, ``> 0``.
    k : int
        Number of categories, in ``[2, 10**8]`` (k uniform draws per record: 800 MB for one
        record at the cap).
    rng : numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent runs, in ``[1, 10**8]``; adds a leading axis of that length (the
        draws are arrays of size times the records' entries: 800 MB per record at the cap).

    Returns
    -------
    numpy.ndarray of int8
        The reported bits, shape ``x.shape + (k,)`` (or ``(size,) + x.shape + (k,)``).

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite, ``k`` is not an integer in ``[2, 10**8]``, an entry of ``x``
        is not an integer in ``[0, k - 1]``, ``rng`` is not a :class:`numpy.random.Generator` or
        ``size`` is not an integer in ``[1, 10**8]``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> oue_randomize([2, 0], 1.0, 3, rng).shape
    (2, 3)
    """
    p, q = oue_probabilities(epsilon)
    k = check_integer("k", k, low=2, high=MAX_ENTRIES)
    values = _categories("x", x, k)
    rng = check_rng("rng", rng)
    shape = _shape(values, _size(size))
    u = rng.random(shape + (k,))
    own = values[..., None] == np.arange(k)
    return (u < np.where(own, p, q)).astype(np.int8)


def oue_estimate(reports, epsilon) -> np.ndarray:
    r"""Unbiased estimate of every category's count from OUE reports: :math:`\hat n_v = (C_v - nq)/(p-q)`.

    :math:`C_v` is the number of reports with bit :math:`v` set; since
    :math:`\mathbb E[C_v] = n_v p + (n - n_v) q`, the estimate is unbiased (the estimator of
    :cite:`wang2017locally` for pure protocols). Estimates can be negative.

    Parameters
    ----------
    reports : array_like of {0, 1}, shape (..., n, k)
        Reports of :func:`oue_randomize` (``n >= 1`` reports of ``k >= 2`` bits per run).
    epsilon : float
        The local privacy parameter the reports were made with, ``> 0``.

    Returns
    -------
    numpy.ndarray, shape (..., k)
        Estimated counts, computed without cancelling :math:`C_v - nq` at a tiny ``epsilon``
        (``+-inf`` where the true estimate exceeds the largest float).

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite, or ``reports`` is not an array of 0/1 bits of
        shape ``(..., n, k)`` with ``n >= 1`` and ``k >= 2``.

    Examples
    --------
    >>> bits = [[1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0]]     # q = 1/4 at epsilon = log 3
    >>> oue_estimate(bits, math.log(3)).round(12).tolist()
    [4.0, 0.0, 0.0]
    """
    epsilon = check_positive("epsilon", epsilon)
    bits = _array("reports", reports, "reports must be an array of 0/1 bits of shape (..., n, k)")
    if bits.ndim < 2 or bits.shape[-2] == 0 or bits.shape[-1] < 2:
        raise ValueError(f"reports must have shape (..., n, k) with n >= 1 and k >= 2, got shape {bits.shape}")
    if bits.dtype.kind not in "iufb" or not np.isin(bits, (0, 1)).all():
        raise ValueError("reports must contain only 0 and 1")
    n = bits.shape[-2]
    # (C - n q)/(1/2 - q) = (2C - n)/tanh(eps/2) + n, since 1/2 - q = tanh(eps/2)/2: the integer 2C - n is
    # exact, where C - n q cancelled (at epsilon = 1e-300, q rounds to 1/2: C = n/2 gave 0, not n)
    return _over_tanh_half(2 * bits.sum(axis=-2) - n, epsilon) + n


def oue_variance(counts, epsilon) -> np.ndarray:
    r"""Exact variance of every OUE count estimate, for the true counts ``counts`` (fixed data).

    Bit :math:`v` is set with probability :math:`p = 1/2` in the :math:`n_v` reports of category
    :math:`v` and :math:`q` in the others, so
    :math:`\operatorname{Var}\hat n_v = \big(n_v/4 + (n - n_v) q(1-q)\big)/(1/2 - q)^2
    = 4 n e^{\varepsilon}/(e^{\varepsilon}-1)^2 + n_v` (the first term is
    :cite:`wang2017locally`'s, whatever :math:`k`).

    Parameters
    ----------
    counts : array_like of int, shape (k,)
        True count of each of the ``k >= 2`` categories.
    epsilon : float
        Local privacy parameter, ``> 0``.

    Returns
    -------
    numpy.ndarray, shape (k,)
        :math:`\operatorname{Var}\hat n_v` for each category (``inf`` where it exceeds the largest
        float at a tiny ``epsilon``; 0 when there are no reports).

    Raises
    ------
    ValueError
        If ``counts`` is not a 1-D array of ``k >= 2`` non-negative integers or ``epsilon`` is
        not ``> 0`` and finite.

    Examples
    --------
    >>> oue_variance([3, 1], math.log(3)).round(12).tolist()     # 4 * 4 * 3 / 4 + n_v = 12 + n_v
    [15.0, 13.0]
    """
    c = _counts(counts)
    q, one_minus_q, gap = _oue(epsilon)
    n = c.sum()
    return _variance_ratio(c * 0.25 + (n - c) * q * one_minus_q, gap)


# --------------------------------------------------------------------------- Hadamard response
def _hr(epsilon, k) -> tuple[int, float, float]:
    """K (the smallest power of two > k), and tanh(eps/2), cosh(eps/2)^-2 for the estimate and variance."""
    epsilon = check_positive("epsilon", epsilon)
    k = check_integer("k", k, low=2)
    return 1 << k.bit_length(), math.tanh(epsilon / 2.0), 1.0 / math.cosh(min(epsilon / 2.0, 350.0)) ** 2


def _parity(a: np.ndarray) -> np.ndarray:
    """popcount(a) mod 2 for non-negative integers: 0 where the Sylvester-Hadamard entry is +1."""
    return np.bitwise_count(a) & 1


def hr_parameters(epsilon, k) -> tuple[int, float]:
    r"""Report space size :math:`K` and in-set probability :math:`p` of Hadamard response.

    :math:`K` is the smallest power of two larger than :math:`k`, and category :math:`v` owns the set
    :math:`C_v = \{j \in \{0,\dots,K-1\} : H_{v+1,j} = +1\}` of the :math:`K/2` columns where row
    :math:`v+1` of the Sylvester-Hadamard matrix :math:`H_{ij} = (-1)^{\mathrm{popcount}(i \,\&\, j)}`
    is :math:`+1`. A report falls in :math:`C_v` with probability
    :math:`p = e^{\varepsilon}/(1+e^{\varepsilon})` and is uniform within :math:`C_v` and within its
    complement (:cite:`acharya2019hadamard`, the scheme with one set per category).

    Parameters
    ----------
    epsilon : float
        Local privacy parameter, ``> 0``.
    k : int
        Number of categories, ``>= 2``.

    Returns
    -------
    (int, float)
        ``(K, p)``.

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite or ``k`` is not an integer ``>= 2``.

    Examples
    --------
    >>> hr_parameters(math.log(3), 3)          # K = 4 > 3, p = 3/4
    (4, 0.75)
    >>> hr_parameters(1.0, 4)[0]                # 4 is not > 4: K = 8
    8
    """
    K, _, _ = _hr(epsilon, k)                # validates epsilon: a real > 0
    return K, float(expit(float(epsilon)))   # in double (a float32 epsilon gave p in float32, 2.6e-8 off)


def hr_randomize(x, epsilon, k, rng, size=None) -> np.ndarray:
    r"""Hadamard response: each record :math:`v` becomes one integer in :math:`\{0, \dots, K-1\}`.

    With :math:`r = v + 1` and :math:`C_v` as in :func:`hr_parameters`, the report is uniform on
    :math:`C_v` with probability :math:`p = e^{\varepsilon}/(1+e^{\varepsilon})` and uniform on its
    complement otherwise, so every report has probability :math:`2e^{\varepsilon}/(K(1+e^{\varepsilon}))`
    or :math:`2/(K(1+e^{\varepsilon}))`: the ratio for two records is at most :math:`e^{\varepsilon}`.
    The draws: ``U = rng.random(shape)`` (in :math:`C_v` when ``U < p``), then
    ``J = rng.integers(0, K, shape)``; if ``J`` is on the wrong side, its lowest bit in common with
    :math:`r` is flipped (a bijection between :math:`C_v` and its complement, so the result is uniform
    on the chosen side). A report takes :math:`\log_2 K` bits, against :math:`k` for unary encoding
    (:cite:`acharya2019hadamard`).

    Parameters
    ----------
    x : array_like of int
        True categories in ``[0, k - 1]`` (any shape).
    epsilon : float
        Local privacy parameter, ``> 0``.
    k : int
        Number of categories, in ``[2, 2**63 - 1]`` (the reports are int64).
    rng : numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent runs, in ``[1, 10**8]``; adds a leading axis of that length (the
        draws are arrays of size times the records' entries: 800 MB per record at the cap).

    Returns
    -------
    numpy.ndarray of int64
        The reports, shape ``x.shape`` (or ``(size,) + x.shape``).

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite, ``k`` is not an integer in ``[2, 2**63 - 1]``, an entry of ``x``
        is not an integer in ``[0, k - 1]``, ``rng`` is not a :class:`numpy.random.Generator` or
        ``size`` is not an integer in ``[1, 10**8]``.

    Examples
    --------
    >>> reports = hr_randomize([0, 2, 2], 1.0, 3, np.random.default_rng(0), size=2)
    >>> reports.shape, bool(reports.min() >= 0 and reports.max() < 4)
    ((2, 3), True)
    """
    k = check_integer("k", k, low=2, high=_MAX_REPORT_K)
    K, p = hr_parameters(epsilon, k)
    values = _categories("x", x, k)
    rng = check_rng("rng", rng)
    shape = _shape(values, _size(size))
    want_in = rng.random(shape) < p
    j = rng.integers(0, K, size=shape)
    row = np.broadcast_to(values + 1, shape)
    wrong = (_parity(j & row) == 0) != want_in
    return np.where(wrong, j ^ (row & -row), j)


def _walsh_hadamard(h: np.ndarray) -> np.ndarray:
    """Sylvester-ordered Walsh-Hadamard transform along the last axis (length a power of two), in
    O(K log K) integer additions. scipy has only the dense matrix (scipy.linalg.hadamard, O(K^2)
    memory), hence this butterfly; the tests compare the two."""
    K = h.shape[-1]
    lead = h.shape[:-1]
    step = 1
    while step < K:
        h = h.reshape(lead + (K // (2 * step), 2, step))
        a, b = h[..., 0, :], h[..., 1, :]
        h = np.stack((a + b, a - b), axis=-2).reshape(lead + (K,))
        step *= 2
    return h


def hr_estimate(reports, epsilon, k) -> np.ndarray:
    r"""Unbiased estimate of every category's count from Hadamard-response reports.

    With :math:`C_v` the number of reports in the set of category :math:`v`,
    :math:`\mathbb E C_v = n_v p + (n - n_v)/2`: a report of another category :math:`w` lands in
    :math:`C_v` with probability exactly :math:`1/2`, because :math:`|C_v \cap C_w| = K/4` (two
    distinct rows of a Hadamard matrix other than the first agree on half the columns). So
    :math:`\hat n_v = (C_v - n/2)/(p - 1/2)`. All :math:`C_v` come at once from the Walsh-Hadamard
    transform :math:`T` of the histogram of reports: :math:`C_v = (n + T_{v+1})/2`, hence
    :math:`\hat n_v = T_{v+1}/\tanh(\varepsilon/2)` (the estimator of :cite:`acharya2019hadamard`).

    Parameters
    ----------
    reports : array_like of int, shape (..., n)
        Reports of :func:`hr_randomize` (the last axis holds one run's ``n >= 1`` reports).
    epsilon : float
        The local privacy parameter the reports were made with, ``> 0``.
    k : int
        Number of categories, in ``[2, 10**7]`` (each run's histogram of the ``K <= 2k + 2``
        Hadamard rows is transformed: arrays of K floats, 160 MB or more at the cap).

    Returns
    -------
    numpy.ndarray, shape (..., k)
        Estimated counts (they can be negative). At a tiny ``epsilon`` (down to the smallest
        subnormal) an estimate is ``+-inf`` where its true value, about :math:`2T_{v+1}/\varepsilon`,
        exceeds the largest float, and 0 where :math:`T_{v+1} = 0`.

    Raises
    ------
    ValueError
        If ``epsilon`` is not ``> 0`` and finite, ``k`` is not an integer in ``[2, 10**7]``, or ``reports``
        has no reports or an entry that is not an integer in ``[0, K - 1]``.

    Examples
    --------
    >>> e = 2 * math.atanh(0.5)                 # tanh(eps / 2) = 1/2: p - 1/2 = 1/4
    >>> hr_estimate([0, 0, 1, 3], e, 2).round(12).tolist()     # C_0 = {0, 2}, C_1 = {0, 1}
    [0.0, 4.0]
    """
    k = check_integer("k", k, low=2, high=10**7)     # the int: it slices the transform
    K, _, _ = _hr(epsilon, k)
    epsilon = check_positive("epsilon", epsilon)
    r = _categories("reports", reports, K)
    if r.ndim == 0 or r.shape[-1] == 0:
        raise ValueError(f"reports must have a last axis with n >= 1 reports, got shape {r.shape}")
    n = r.shape[-1]
    flat = r.reshape(-1, n)
    rows = flat.shape[0]
    hist = np.bincount((flat + K * np.arange(rows)[:, None]).ravel(), minlength=rows * K).reshape(rows, K)
    transform = _walsh_hadamard(hist)[:, 1:k + 1]           # integers: exact
    return _over_tanh_half(transform, epsilon).reshape(r.shape[:-1] + (k,))


def hr_variance(counts, epsilon) -> np.ndarray:
    r"""Exact variance of every Hadamard-response count estimate, for the true counts (fixed data).

    :math:`C_v` sums :math:`n_v` Bernoulli variables of mean :math:`p` and :math:`n - n_v` of mean
    :math:`1/2`, so, with :math:`p(1-p) = 1/(4\cosh^2(\varepsilon/2))` and
    :math:`p - 1/2 = \tanh(\varepsilon/2)/2`,

    .. math:: \operatorname{Var}\hat n_v = \frac{n_v p(1-p) + (n - n_v)/4}{(p - 1/2)^2}
              = \frac{n}{\tanh^2(\varepsilon/2)} - n_v ,

    whatever :math:`k`: :math:`\cosh^2(\varepsilon/2)` times OUE's variance for a rare category
    (the scheme of :cite:`acharya2019hadamard`; the variance is derived here).

    Parameters
    ----------
    counts : array_like of int, shape (k,)
        True count of each of the ``k >= 2`` categories.
    epsilon : float
        Local privacy parameter, ``> 0``.

    Returns
    -------
    numpy.ndarray, shape (k,)
        :math:`\operatorname{Var}\hat n_v` for each category (``inf`` where it exceeds the largest
        float at a tiny ``epsilon``; 0 when there are no reports).

    Raises
    ------
    ValueError
        If ``counts`` is not a 1-D array of ``k >= 2`` non-negative integers or ``epsilon`` is
        not ``> 0`` and finite.

    Examples
    --------
    >>> e = 2 * math.atanh(0.5)
    >>> hr_variance([3, 1], e).round(12).tolist()      # 4 / (1/4) - n_v
    [13.0, 15.0]
    """
    c = _counts(counts)
    _, tanh_half, sech2 = _hr(epsilon, c.size)
    n = c.sum()
    # (n_v sech^2 + n - n_v) / tanh^2: both terms positive, no cancellation for large epsilon
    return _variance_ratio(c * sech2 + (n - c), tanh_half)


# --------------------------------------------------------------------------- shuffled randomized response
def _log_rr(epsilon0: float) -> tuple[float, float]:
    """log p and log q of randomized response, p = e^eps0 / (1 + e^eps0), stable for any eps0."""
    return -float(np.logaddexp(0.0, -epsilon0)), -float(np.logaddexp(0.0, epsilon0))


def _log_binomial(m: int, log_p: float, log_q: float) -> np.ndarray:
    """log pmf of Bin(m, p) on 0..m from log p and log q (gammaln: no overflow of the binomial coefficient)."""
    x = np.arange(m + 1)
    return gammaln(m + 1) - gammaln(x + 1) - gammaln(m - x + 1) + x * log_p + (m - x) * log_q


def _log_convolve(la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """log of the convolution of two laws given by their logs.

    scipy has no log-space convolution. Each law is divided by its largest term, convolved in
    linear space (every term is positive, so the sums lose no relative precision) and the
    scale put back in the log. Only terms below about 1e-308 of the peak underflow to 0
    (log -inf); they change any probability computed here by less than n * 1e-300.
    """
    sa, sb = la.max(), lb.max()
    with np.errstate(divide="ignore"):
        return np.log(np.convolve(np.exp(la - sa), np.exp(lb - sb))) + (sa + sb)


def _count_log_laws(log_other: np.ndarray, log_p: float, log_q: float) -> tuple[np.ndarray, np.ndarray]:
    """Log-laws of (user 1's report) + A, where A has log-law ``log_other`` (last axis).

    User 1 with bit 0 reports 1 with probability q, with bit 1 with probability p.
    """
    pad = np.full(log_other.shape[:-1] + (1,), -np.inf)
    shifted = np.concatenate([pad, log_other], axis=-1)      # A = s - 1: user 1 reported 1
    same = np.concatenate([log_other, pad], axis=-1)         # A = s: user 1 reported 0
    return np.logaddexp(log_q + shifted, log_p + same), np.logaddexp(log_p + shifted, log_q + same)


class _Profile:
    r"""The hockey-stick divergences of many pairs of discrete laws, ready for any :math:`\varepsilon`.

    Row ``i`` of ``log_a`` and ``log_b`` holds the log-laws of one pair :math:`(A_i, B_i)`, and
    ``log_weight[i]`` a weight :math:`w_i`. Since
    :math:`\delta_{A\Vert B}(\varepsilon) = \sum_s a_s (1 - e^{\varepsilon - L_s})_+` with
    :math:`L = \log a - \log b`, only outcomes with :math:`L_s > \varepsilon` count: the outcomes with
    :math:`L_s > 0` are kept once, sorted by decreasing loss, so that each :math:`\varepsilon` costs
    only the outcomes above it. Outcomes with :math:`w_i a_s < 10^{-300}` are dropped (they change
    any sum by less than their number times :math:`10^{-300}`).
    """

    def __init__(self, log_a: np.ndarray, log_b: np.ndarray, log_weight: np.ndarray):
        with np.errstate(invalid="ignore"):
            loss = log_a - log_b                     # +inf where b = 0 < a; nan where both are 0
        log_mass = log_a + log_weight[:, None]
        keep = (loss > 0) & (log_mass > -690.0)
        rows = np.broadcast_to(np.arange(log_a.shape[0])[:, None], log_a.shape)[keep]
        loss, mass = loss[keep], np.exp(log_mass[keep])
        order = np.argsort(-loss, kind="stable")
        self.rows, self.loss, self.mass = rows[order], loss[order], mass[order]
        self.n_rows = log_a.shape[0]

    def by_row(self, epsilon: float) -> np.ndarray:
        """Weighted divergence of every pair: w_i * delta_{A_i || B_i}(epsilon)."""
        above = int(np.searchsorted(-self.loss, -epsilon, side="left"))    # outcomes with loss > epsilon
        with np.errstate(invalid="ignore"):                                 # inf - inf does not occur: loss > epsilon
            terms = self.mass[:above] * -np.expm1(epsilon - self.loss[:above])
        return np.bincount(self.rows[:above], weights=terms, minlength=self.n_rows)


def shuffled_rr_count(x, epsilon0, rng, size=None):
    r"""The shuffle model's output for binary randomized response: the number of reports equal to 1.

    Every user reports their bit through randomized response with parameter
    :math:`\varepsilon_0` (kept with probability :math:`p = e^{\varepsilon_0}/(1+e^{\varepsilon_0})`);
    the shuffler's output, a uniformly permuted list of bits, carries exactly the number of 1s.
    The draws: ``U = rng.random(shape)``, report ``x_i`` when ``U_i < p`` and ``1 - x_i`` otherwise.
    Shuffling amplifies the local guarantee (:cite:`erlingsson2019amplification`); the exact central
    guarantee of this count is :func:`shuffled_rr_delta`.

    Parameters
    ----------
    x : array_like of {0, 1}, shape (n,)
        The users' bits.
    epsilon0 : float
        Local privacy parameter, ``> 0``.
    rng : numpy.random.Generator
        Source of randomness.
    size : int, optional
        Number of independent runs, in ``[1, 10**8]`` (size-by-n uniform draws: 800 MB per user
        at the cap).

    Returns
    -------
    int or numpy.ndarray of int, shape (size,)
        The number of reports equal to 1 (one per run).

    Raises
    ------
    ValueError
        If ``epsilon0`` is not ``> 0`` and finite, ``x`` is not a 1-D array of bits, ``rng`` is not a
        :class:`numpy.random.Generator` or ``size`` is not an integer in ``[1, 10**8]``.

    Examples
    --------
    >>> shuffled_rr_count([1, 0, 1, 1], 50.0, np.random.default_rng(0))     # huge epsilon0: the true count
    3
    """
    epsilon0 = check_positive("epsilon0", epsilon0)
    bits = _categories("x", x, 2)
    if bits.ndim != 1:
        raise ValueError(f"x must be a 1-D array of bits, got shape {bits.shape}")
    rng = check_rng("rng", rng)
    size = _size(size)
    p = math.exp(_log_rr(epsilon0)[0])
    u = rng.random(_shape(bits, size))
    counts = np.where(u < p, bits, 1 - bits).sum(axis=-1)
    return int(counts) if size is None else counts


def shuffled_rr_laws(epsilon0, n, m) -> tuple[np.ndarray, np.ndarray]:
    r"""Exact laws of the shuffled count on two neighbouring data sets.

    ``n`` users, of whom user 1 has bit 0 (first law) or 1 (second law), and ``m`` of the other
    ``n - 1`` users have bit 1. The count is user 1's report plus
    :math:`A = \mathrm{Bin}(m, p) + \mathrm{Bin}(n-1-m, q)`; the binomial laws are computed in
    log space and convolved (``_log_convolve``). These are the laws whose divergence
    :func:`shuffled_rr_delta` maximizes (the exact analysis of the shuffled binary randomizer,
    against which :cite:`feldman2021hiding`'s bounds are compared).

    Parameters
    ----------
    epsilon0 : float
        Local privacy parameter, ``> 0``.
    n : int
        Number of users, in ``[2, 10**7]`` (laws of n + 1 counts are convolved: about 1.5 s
        at the cap).
    m : int
        Number of other users with bit 1, in ``[0, n - 1]``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The two probability vectors over the counts ``0, ..., n``.

    Raises
    ------
    ValueError
        If ``epsilon0`` is not ``> 0`` and finite, ``n`` is not an integer in ``[2, 10**7]`` or ``m`` is not an
        integer in ``[0, n - 1]``.

    Examples
    --------
    >>> law0, law1 = shuffled_rr_laws(math.log(3), 2, 0)   # other user: 1 w.p. 1/4
    >>> law0.round(12).tolist(), law1.round(12).tolist()
    ([0.5625, 0.375, 0.0625], [0.1875, 0.625, 0.1875])
    """
    epsilon0 = check_positive("epsilon0", epsilon0)
    n = check_integer("n", n, low=2, high=10**7)
    m = check_integer("m", m, low=0, high=n - 1)
    log_p, log_q = _log_rr(epsilon0)
    others = _log_convolve(_log_binomial(m, log_p, log_q), _log_binomial(n - 1 - m, log_q, log_p))
    log0, log1 = _count_log_laws(others, log_p, log_q)
    return np.exp(log0), np.exp(log1)


@functools.lru_cache(maxsize=4)
def _shuffled_rr_table(epsilon0: float, n: int) -> tuple[_Profile, _Profile]:
    """The pairs (P_m, Q_m) of count laws, user 1 holding 0 or 1, for m = 0, ..., (n - 1) // 2 other ones.

    Rows m > (n - 1)/2 are not needed: flipping every bit maps the data set with m other ones to
    the one with n - 1 - m, and the count s to n - s, so the pair of laws at n - 1 - m is the pair
    at m reflected and swapped, which has the same two hockey-stick divergences, swapped.
    Returns the profiles of both orders, P_m || Q_m and Q_m || P_m.
    """
    log_p, log_q = _log_rr(epsilon0)
    big = n - 1
    rows = np.array([_log_convolve(_log_binomial(m, log_p, log_q), _log_binomial(big - m, log_q, log_p))
                     for m in range(big // 2 + 1)])
    log0, log1 = _count_log_laws(rows, log_p, log_q)
    flat = np.zeros(rows.shape[0])
    return _Profile(log0, log1, flat), _Profile(log1, log0, flat)


def _worst_delta(table, epsilon: float) -> float:
    return float(max(profile.by_row(epsilon).max() for profile in table))


def shuffled_rr_delta(epsilon0, n, epsilon):
    r"""Exact privacy profile :math:`\delta(\varepsilon)` of shuffled binary randomized response.

    ``n`` users report their bit through randomized response with parameter
    :math:`\varepsilon_0`; the analyst sees only the number of 1s. Neighbouring data sets differ
    in one user's bit (replace-one), and a central guarantee must hold for every data set, so

    .. math:: \delta(\varepsilon) = \max_{m=0}^{n-1}\ \max\big(\delta_{P_m\Vert Q_m}(\varepsilon),
              \delta_{Q_m\Vert P_m}(\varepsilon)\big),

    where :math:`P_m, Q_m` are the laws of the count when the changing user holds 0 or 1 and
    :math:`m` others hold 1 (:func:`shuffled_rr_laws`; only the number of other 1s matters,
    since the count does not depend on who holds them). Rows :math:`m \le (n-1)/2` suffice by
    the bit-flip symmetry (:func:`_shuffled_rr_table`). The laws of every :math:`m` are built in
    :math:`O(n^3)` operations once per ``(epsilon0, n)`` and cached; each :math:`\varepsilon`
    then costs :math:`O(n^2)`. This is the exact value that the amplification bounds of
    :cite:`erlingsson2019amplification` and :cite:`feldman2021hiding` bound from above.

    Parameters
    ----------
    epsilon0 : float
        Local privacy parameter, ``> 0``.
    n : int
        Number of users, in ``[2, 5000]`` (the table of the exact profile takes about 0.8 s
        at ``n = 2000`` and grows faster than ``n^2``: several seconds at the cap).
    epsilon : float or array_like
        Central privacy parameter(s), ``>= 0``.

    Returns
    -------
    float or numpy.ndarray
        :math:`\delta(\varepsilon)`, same shape as ``epsilon``.

    Raises
    ------
    ValueError
        If ``epsilon0`` is not ``> 0`` and finite, ``n`` is not an integer in ``[2, 5000]``, or an
        ``epsilon`` is not a finite number ``>= 0`` (or is empty).

    Examples
    --------
    >>> bool(shuffled_rr_delta(1.0, 10, 1.0) < 1e-15)     # never worse than epsilon0 (0 up to rounding)
    True
    >>> round(shuffled_rr_delta(math.log(3), 2, 0.0), 12)   # total variation of the worst pair
    0.375
    """
    epsilon0 = check_positive("epsilon0", epsilon0)
    n = check_integer("n", n, low=2, high=5000)
    eps, scalar = _epsilons(epsilon)
    table = _shuffled_rr_table(epsilon0, n)
    out = np.minimum(np.array([_worst_delta(table, e) for e in eps.ravel()]).reshape(eps.shape), 1.0)   # rounding stays <= 1
    return float(out) if scalar else out


def _smallest_epsilon(delta_at, delta: float, epsilon0: float) -> float:
    """Smallest epsilon with delta_at(epsilon) <= delta, for a continuous non-increasing delta_at that
    vanishes above epsilon0; the value returned always satisfies the inequality."""
    if delta_at(0.0) <= delta:
        return 0.0
    # Every privacy loss is at most epsilon0 (post-processing of one randomized response), but
    # computed losses may exceed it by rounding (~1e-16): the bracket ends just above.
    upper = epsilon0 * (1.0 + 1e-12) + 1e-12
    root = optimize.brentq(lambda e: delta_at(e) - delta, 0.0, upper, xtol=1e-13, rtol=1e-13)
    for _ in range(100):                            # brentq may stop just below the crossing
        if delta_at(root) <= delta:
            return float(root)
        root += 1e-13 * max(1.0, root)
    return upper


def shuffled_rr_epsilon(epsilon0, n, delta) -> float:
    r"""The smallest central :math:`\varepsilon` with :math:`\delta(\varepsilon) \le` ``delta`` for shuffled randomized response.

    Inverts :func:`shuffled_rr_delta` (continuous and non-increasing, and 0 at
    :math:`\varepsilon_0`) with Brent's method (:func:`scipy.optimize.brentq`); the result is
    accurate to about ``1e-13`` and always satisfies the inequality. The exact counterpart of
    :func:`fmt_epsilon` (:cite:`feldman2021hiding`) for randomized response.

    Parameters
    ----------
    epsilon0 : float
        Local privacy parameter, ``> 0``.
    n : int
        Number of users, in ``[2, 5000]`` (the table of the exact profile takes about 0.8 s
        at ``n = 2000`` and grows faster than ``n^2``: several seconds at the cap).
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        The smallest :math:`\varepsilon \in [0, \varepsilon_0]` with :math:`\delta(\varepsilon) \le` ``delta``.

    Raises
    ------
    ValueError
        If ``epsilon0`` is not ``> 0`` and finite, ``n`` is not an integer in ``[2, 5000]`` or ``delta`` is
        not in ``(0, 1)``.

    Examples
    --------
    >>> e = shuffled_rr_epsilon(2.0, 200, 1e-6)
    >>> bool(e < 2.0 and shuffled_rr_delta(2.0, 200, e) <= 1e-6)
    True
    """
    epsilon0 = check_positive("epsilon0", epsilon0)
    n = check_integer("n", n, low=2, high=5000)
    delta = _open_delta(delta)
    table = _shuffled_rr_table(epsilon0, n)
    return _smallest_epsilon(lambda e: _worst_delta(table, e), delta, epsilon0)


# --------------------------------------------------------------------------- Feldman, McMillan, Talwar (2021)
def _log_over(c: float, delta: float) -> float:
    """log(c / delta) as log(c) - log(delta): the quotient overflows to inf below delta = c / 1.8e308
    (at delta = 5e-324 the largest epsilon0 came out -inf and every epsilon0 was refused)."""
    return math.log(c) - math.log(delta)


def fmt_epsilon0_max(n, delta) -> float:
    r"""The largest :math:`\varepsilon_0` for which :func:`fmt_epsilon` applies: :math:`\log\big(n / (16 \log(4/\delta))\big)`.

    :cite:`feldman2021hiding`, Theorem 3.1, is quoted (by the book until 2025 and by secondary
    sources) with the condition :math:`\varepsilon_0 \le \log(n / (16\log(2/\delta)))`; the authors'
    reference code (``closedformanalysis`` in ``apple/ml-shuffling-amplification``) refuses the
    closed form unless :math:`\varepsilon_0 \le \log(n / (16\log(4/\delta)))`, a smaller range. The
    book keeps the smaller one, :math:`n \ge 16\, e^{\varepsilon_0} \log(4/\delta)`: inside it both
    readings apply. The value is negative (no :math:`\varepsilon_0 > 0` qualifies) when
    :math:`n < 16\log(4/\delta)`.

    Parameters
    ----------
    n : int
        Number of users, ``>= 2``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        :math:`\log(n/(16\log(4/\delta)))`, negative when no :math:`\varepsilon_0` qualifies.

    Raises
    ------
    ValueError
        If ``n`` is not an integer ``>= 2`` or ``delta`` is not in ``(0, 1)``.

    Examples
    --------
    >>> round(fmt_epsilon0_max(10_000, 1e-6), 4)
    3.7163
    """
    n = check_integer("n", n, low=2)
    delta = _open_delta(delta)
    return math.log(n) - math.log(16.0 * _log_over(4.0, delta))      # math.log(n): any integer n


def _fmt_spread(epsilon0: float, n: int, delta: float) -> tuple[float, float]:
    """e^{eps1} - 1 = 8 sqrt(e^eps0 log(4/delta) / n) + 8 e^eps0 / n, and e^-eps0, without overflow
    (e^eps0 / n <= 1 / (16 log(4/delta)) inside the range)."""
    ratio = math.exp(epsilon0 - math.log(n))
    return 8.0 * math.sqrt(ratio * _log_over(4.0, delta)) + 8.0 * ratio, math.exp(-epsilon0)


def fmt_epsilon(epsilon0, n, delta) -> float:
    r"""Closed-form amplification bound of Feldman, McMillan and Talwar (:cite:`feldman2021hiding`, Theorem 3.1).

    Shuffling the reports of ``n`` users who each apply an :math:`\varepsilon_0`-locally DP
    randomizer gives an :math:`(\varepsilon, \delta)`-DP output (replace-one neighbours). With

    .. math:: e^{\varepsilon_1} - 1 = \frac{8\sqrt{e^{\varepsilon_0}\log(4/\delta)}}{\sqrt n} + \frac{8 e^{\varepsilon_0}}{n},

    the theorem as quoted in the literature reads
    :math:`\varepsilon = \log\big(1 + \frac{e^{\varepsilon_0}-1}{e^{\varepsilon_0}+1}(e^{\varepsilon_1} - 1)\big)`,
    while the authors' reference code (``closedformanalysis``, ``apple/ml-shuffling-amplification``,
    which reproduces the value its README prints) computes the larger

    .. math:: \varepsilon = \log\Big(1 + \frac{1 - e^{-\varepsilon_0}}{1 + e^{-\varepsilon_0 - \varepsilon_1}}\,(e^{\varepsilon_1} - 1)\Big).

    This function returns the larger (code) form, inside the smaller range of the two,
    :math:`\varepsilon_0 \le \log(n/(16\log(4/\delta)))` (:func:`fmt_epsilon0_max`); outside it a
    ``ValueError`` is raised. The shuffled output is also :math:`\varepsilon_0`-DP whatever
    :math:`n` (changing one person's record changes only that person's :math:`\varepsilon_0`-DP
    report, and shuffling is post-processing), and near the lower end of the range (small
    :math:`\varepsilon_0`, :math:`n` close to :math:`16 e^{\varepsilon_0}\log(4/\delta)`) the display
    exceeds :math:`\varepsilon_0`; the function returns the smaller of the two, so it never reports
    a vacuous amplification.

    Parameters
    ----------
    epsilon0 : float
        Local privacy parameter, ``> 0``.
    n : int
        Number of users, ``>= 2``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        The smaller of the display and :math:`\varepsilon_0`.

    Raises
    ------
    ValueError
        If ``epsilon0`` exceeds :func:`fmt_epsilon0_max` ``(n, delta)`` or a parameter is out of range.

    Examples
    --------
    >>> round(fmt_epsilon(1.0, 10_000, 1e-6), 4)
    0.2333
    >>> fmt_epsilon(0.1, 37, 0.5)                 # the display gives 0.154 > epsilon0 here
    0.1
    >>> fmt_epsilon(4.0, 10_000, 1e-6)
    Traceback (most recent call last):
    ...
    ValueError: epsilon0 must be <= log(n / (16 log(4/delta))) = 3.716 for Theorem 3.1 to apply (n = 10000, delta = 1e-06), got 4.0
    """
    epsilon0 = check_positive("epsilon0", epsilon0)
    limit = fmt_epsilon0_max(n, delta)
    n, delta = check_integer("n", n), float(delta)
    if epsilon0 > limit:
        raise ValueError(f"epsilon0 must be <= log(n / (16 log(4/delta))) = {limit:.4g} for Theorem 3.1 "
                         f"to apply (n = {n}, delta = {delta!r}), got {epsilon0!r}")
    spread, shrink = _fmt_spread(epsilon0, n, delta)
    # 1 - e^-eps0 by expm1 (no cancellation for small eps0); e^{-eps0 - eps1} = e^-eps0 / (1 + spread)
    factor = -math.expm1(-epsilon0) / (1.0 + shrink / (1.0 + spread))
    return min(math.log1p(factor * spread), epsilon0)


def fmt_stronger_epsilon0_max(n, delta) -> float:
    r"""The largest :math:`\varepsilon_0` for which :func:`fmt_stronger_epsilon` applies: :math:`\log\big(n/(8\log(2/\delta)) - 1\big)`.

    That is :math:`2n/(e^{\varepsilon_0} + 1) \ge 16\log(2/\delta)`: the expected number of
    stronger clones, :math:`2/(e^{\varepsilon_0}+1)` per person, must be large enough for the Chernoff
    bound of the proof (:cite:`feldman2023stronger`). The value is ``-inf`` when
    :math:`n \le 8\log(2/\delta)`.

    Parameters
    ----------
    n : int
        Number of users, ``>= 2``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        :math:`\log(n/(8\log(2/\delta)) - 1)`, ``-inf`` or negative when no :math:`\varepsilon_0` qualifies.

    Raises
    ------
    ValueError
        If ``n`` is not an integer ``>= 2`` or ``delta`` is not in ``(0, 1)``.

    Examples
    --------
    >>> round(fmt_stronger_epsilon0_max(10_000, 1e-6), 4)
    4.4445
    """
    n = check_integer("n", n, low=2)
    delta = _open_delta(delta)
    log_ratio = math.log(n) - math.log(8.0 * _log_over(2.0, delta))   # logs: any integer n
    return log_ratio + math.log1p(-math.exp(-log_ratio)) if log_ratio > 0 else -math.inf


def fmt_stronger_epsilon(epsilon0, n, delta) -> float:
    r"""Closed-form bound of the stronger clone reduction (:cite:`feldman2023stronger`).

    Each other user's report law is split as :math:`\tfrac{1}{e^{\varepsilon_0}+1}R(x_1^0) +
    \tfrac{1}{e^{\varepsilon_0}+1}R(x_1^1) + \big(1 - \tfrac{2}{e^{\varepsilon_0}+1}\big)L_i`, twice as many
    clones as in :func:`fmt_clone_delta`'s default; for randomized response this is the clone bound with
    :math:`r = 2/(1+e^{\varepsilon_0})`. The same Chernoff and Hoeffding bounds then give

    .. math:: \varepsilon = \log\Big(1 + (e^{\varepsilon_0} - 1)\Big(\frac{4\sqrt{2\log(4/\delta)}}{\sqrt{(e^{\varepsilon_0}+1)\,n}} + \frac{4}{n}\Big)\Big)

    for :math:`\varepsilon_0 \le \log(n/(8\log(2/\delta)) - 1)` (:func:`fmt_stronger_epsilon0_max`);
    outside that range a ``ValueError`` is raised. Like :func:`fmt_epsilon` it returns at most
    :math:`\varepsilon_0`. The display is below :func:`fmt_epsilon`'s wherever both apply. The
    arXiv version of :cite:`feldman2023stronger` carries an erratum restricting its general
    theorems to a class of randomizers; the book uses the bound for randomized response only, and
    checks it there against the exact clone bound it comes from.

    Parameters
    ----------
    epsilon0 : float
        Local privacy parameter, ``> 0``.
    n : int
        Number of users, ``>= 2``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        The smaller of the display and :math:`\varepsilon_0`.

    Raises
    ------
    ValueError
        If ``epsilon0`` exceeds :func:`fmt_stronger_epsilon0_max` ``(n, delta)`` or a parameter is out of range.

    Examples
    --------
    >>> round(fmt_stronger_epsilon(1.0, 10_000, 1e-6), 4)
    0.18
    >>> fmt_stronger_epsilon(5.0, 10_000, 1e-6)
    Traceback (most recent call last):
    ...
    ValueError: epsilon0 must be <= log(n / (8 log(2/delta)) - 1) = 4.444 for the stronger clone bound to apply (n = 10000, delta = 1e-06), got 5.0
    """
    epsilon0 = check_positive("epsilon0", epsilon0)
    limit = fmt_stronger_epsilon0_max(n, delta)
    n, delta = check_integer("n", n), float(delta)
    if epsilon0 > limit:
        raise ValueError(f"epsilon0 must be <= log(n / (8 log(2/delta)) - 1) = {limit:.4g} for the stronger "
                         f"clone bound to apply (n = {n}, delta = {delta!r}), got {epsilon0!r}")
    # (e^eps0 - 1) * spread with e^eps0 / n <= 1 / (8 log(2/delta)) formed first: no overflow for any n
    ratio = math.exp(epsilon0 - math.log(n))
    shrink = -math.expm1(-epsilon0)                                   # 1 - e^-eps0, no cancellation
    total = shrink * (4.0 * math.sqrt(2.0 * _log_over(4.0, delta) * ratio / (1.0 + math.exp(-epsilon0))) + 4.0 * ratio)
    return min(math.log1p(total), epsilon0)


# ln 2 in two parts (fdlibm): q * _LN2_HI is exact for integers |q| < 2^20
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


def _two_exp_minus(epsilon0: float) -> float:
    """``2 e^-epsilon0`` for ``epsilon0 > 709``, which is ``2/(1 + e^epsilon0)`` there (``1 + e^epsilon0`` is
    ``e^epsilon0`` in float; ``math.exp`` overflows from 709.78, at 1e300 it raised "math range error"), a
    subnormal from 708.4 that rounds to 0 past 745.8. It is ``2^-1022 e^z`` with ``z = 1023 ln 2 - epsilon0``
    formed exactly (``1023 _LN2_HI`` is exact and so, by Sterbenz's lemma, is its difference with
    ``epsilon0``) and ``_LN2_LO``'s part added: the subnormal is rounded once from a value good to a few
    parts in 1e16, within an ulp of the true value. (``2 exp(-epsilon0)`` also was, but reached 0 at 745.13;
    ``exp(log 2 - epsilon0)`` rounds the exponent to 1e-13, hundreds of ulps of a result near 2e-308.)"""
    z = (1023 * _LN2_HI - epsilon0) + 1023 * _LN2_LO
    return math.ldexp(math.exp(z), -1022)


def _clone_probability(epsilon0: float, clone_probability) -> tuple[float, float]:
    """``(log r, log(1 - r))`` of the clone probability ``r``: by default ``r = e^-epsilon0``, taken in
    logs once it underflows (past epsilon0 = 708; at 1e300, log(0) raised "math domain error")."""
    if clone_probability is None:
        r = math.exp(-epsilon0)
        if r < sys.float_info.min:             # 0 or subnormal: log(r) = -epsilon0 keeps every digit
            return -epsilon0, -r
        return math.log(r), math.log1p(-r)
    blanket = 2.0 / (1.0 + math.exp(epsilon0)) if epsilon0 <= 709.0 else _two_exp_minus(epsilon0)
    if blanket == 0.0:
        r = check_real("clone_probability", clone_probability)
        raise ValueError(f"clone_probability must be in (0, 2/(1 + e^epsilon0)], which rounds to (0, 0] "
                         f"for epsilon0 > 745.8 (leave clone_probability at its default there), got "
                         f"clone_probability = {r!r} at epsilon0 = {epsilon0!r}")
    r = check_in_range("clone_probability", clone_probability, 0.0, blanket, low_inclusive=False)
    return math.log(r), math.log1p(-r)


@functools.lru_cache(maxsize=4)
def _clone_table(epsilon0: float, n: int, log_r: float, log1m_r: float) -> tuple[_Profile, _Profile]:
    """Both orders of the pairs (B_0 + A_c, B_1 + A_c), A_c ~ Bin(c, 1/2), weighted by Pr[C = c], C ~ Bin(n - 1, r)."""
    log_p, log_q = _log_rr(epsilon0)
    big = n - 1
    c = np.arange(big + 1)[:, None]
    x = np.arange(big + 1)[None, :]
    with np.errstate(invalid="ignore"):
        coins = np.where(x <= c, gammaln(c + 1) - gammaln(x + 1) - gammaln(c - x + 1) - c * math.log(2.0), -np.inf)
    log_weight = _log_binomial(big, log_r, log1m_r)
    log0, log1 = _count_log_laws(coins, log_p, log_q)
    return _Profile(log0, log1, log_weight), _Profile(log1, log0, log_weight)


def _clone_delta(table, epsilon: float) -> float:
    return float(max(profile.by_row(epsilon).sum() for profile in table))


def fmt_clone_delta(epsilon0, n, epsilon, clone_probability=None):
    r"""The clone bound on :math:`\delta(\varepsilon)` of shuffled randomized response, evaluated exactly.

    :cite:`feldman2021hiding` (Theorem 3.2) show that each other user's report can be drawn as a
    *clone* with probability :math:`r = e^{-\varepsilon_0}` (then it is a fair coin for randomized
    response: the mixture of the changing user's two report laws) and from a law that does not
    depend on the changing user otherwise. The shuffled count is then a post-processing of
    :math:`(C, B + A)` with :math:`C \sim \mathrm{Bin}(n-1, r)` clones, :math:`A \sim \mathrm{Bin}(C, 1/2)`
    their ones and :math:`B` the changing user's report, so

    .. math:: \delta(\varepsilon) \le \sum_{c} \Pr[C = c]\ \delta_{B_0 + A_c \Vert B_1 + A_c}(\varepsilon)

    (both orders are computed, the larger is returned). For randomized response any
    :math:`r \le 2/(1 + e^{\varepsilon_0})` is valid (:math:`r` at that maximum is the privacy
    blanket of :cite:`balle2019privacy`), and a larger :math:`r` gives a smaller bound.

    Parameters
    ----------
    epsilon0 : float
        Local privacy parameter, ``> 0``.
    n : int
        Number of users, in ``[2, 2000]`` (the exact table of the clone counts takes 3 s at
        ``n = 1000`` and 16 s at 3000).
    epsilon : float or array_like
        Central privacy parameter(s), ``>= 0``.
    clone_probability : float, optional
        :math:`r` in :math:`(0, 2/(1+e^{\varepsilon_0})]`; default :math:`e^{-\varepsilon_0}` (FMT's, taken
        in logs, so any finite ``epsilon0`` works). The upper end is :math:`2/(1+e^{\varepsilon_0})` in
        float, within an ulp (4.9e-324 where it is subnormal, past ``epsilon0 = 708``); for
        ``epsilon0 > 745.8`` it rounds to 0: only the default is accepted there.

    Returns
    -------
    float or numpy.ndarray
        The bound on :math:`\delta(\varepsilon)`, in ``[0, 1]``, same shape as ``epsilon``.

    Raises
    ------
    ValueError
        If ``epsilon0`` is not ``> 0`` and finite, ``n`` is not an integer in ``[2, 2000]``, an ``epsilon``
        is not a finite number ``>= 0`` (or is empty) or ``clone_probability`` is out of its range
        (any given value is, for ``epsilon0 > 745.8``: the message names both).

    Examples
    --------
    >>> bound = fmt_clone_delta(1.0, 100, 0.5)
    >>> bool(shuffled_rr_delta(1.0, 100, 0.5) <= bound < 1e-2)
    True
    """
    epsilon0 = check_positive("epsilon0", epsilon0)
    n = check_integer("n", n, low=2, high=2000)
    eps, scalar = _epsilons(epsilon)
    table = _clone_table(epsilon0, n, *_clone_probability(epsilon0, clone_probability))
    out = np.minimum(np.array([_clone_delta(table, e) for e in eps.ravel()]).reshape(eps.shape), 1.0)   # rounding stays <= 1
    return float(out) if scalar else out


def fmt_clone_epsilon(epsilon0, n, delta, clone_probability=None) -> float:
    r"""The smallest :math:`\varepsilon` the clone bound certifies for ``delta`` (:func:`fmt_clone_delta` inverted).

    The clone reduction of :cite:`feldman2021hiding` (Theorem 3.2), evaluated exactly and inverted
    with Brent's method as :func:`shuffled_rr_epsilon` does.

    Parameters
    ----------
    epsilon0 : float
        Local privacy parameter, ``> 0``.
    n : int
        Number of users, in ``[2, 2000]`` (the exact table of the clone counts takes 3 s at
        ``n = 1000`` and 16 s at 3000).
    delta : float
        In ``(0, 1)``.
    clone_probability : float, optional
        As in :func:`fmt_clone_delta` (only the default for ``epsilon0 > 745.8``).

    Returns
    -------
    float
        The smallest :math:`\varepsilon \in [0, \varepsilon_0]` whose clone bound is ``<= delta``.

    Raises
    ------
    ValueError
        If ``epsilon0`` is not ``> 0`` and finite, ``n`` is not an integer in ``[2, 2000]``, ``delta`` is not
        in ``(0, 1)`` or ``clone_probability`` is out of its range (any given value is, for
        ``epsilon0 > 745.8``: the message names both).

    Examples
    --------
    >>> exact, clone = shuffled_rr_epsilon(1.0, 500, 1e-6), fmt_clone_epsilon(1.0, 500, 1e-6)
    >>> bool(exact <= clone < 1.0)
    True
    """
    epsilon0 = check_positive("epsilon0", epsilon0)
    n = check_integer("n", n, low=2, high=2000)
    delta = _open_delta(delta)
    table = _clone_table(epsilon0, n, *_clone_probability(epsilon0, clone_probability))
    return _smallest_epsilon(lambda e: _clone_delta(table, e), delta, epsilon0)
