r"""Exact discrete noise, and what goes wrong with floating-point noise.

The continuous Laplace and Gaussian mechanisms are private as mathematics; a program
samples floating-point numbers instead, and the textbook Laplace sampler leaks the
input through the low-order bits of its output (:cite:`mironov2012significance`).
This module holds both sides of that story.

*The exact fix* (:cite:`canonne2020discrete`). Samplers for the discrete Laplace
distribution, :math:`\Pr[Y=y] \propto e^{-|y|/t}`, and the discrete Gaussian
:math:`\mathcal N_{\mathbb Z}(0,\sigma^2)`, :math:`\Pr[Y=y] \propto e^{-y^2/(2\sigma^2)}`,
on the integers. They follow Canonne, Kamath and Steinke's Algorithms 1-3: a
Bernoulli(:math:`e^{-\gamma}`) coin from Bernoulli(:math:`\gamma/k`) coins, a discrete
Laplace from those coins, and a discrete Gaussian from the discrete Laplace by rejection.
Only Python integers and :class:`fractions.Fraction` appear on the sampling path, so a
draw has *exactly* the stated distribution, given uniform random bits. Their pmfs and
exact privacy profiles :math:`\delta(\varepsilon)` are computed in floating point (they
are numbers for the reader, not part of a release).

*The problem and a patch within floating point.* :func:`textbook_laplace_float`
reproduces numpy's Laplace sampler, and so :func:`dpnotes.mechanisms.laplace_mechanism`,
bit for bit (and the same algorithm with every operation rounded to ``precision`` bits, a
model small enough to enumerate); :func:`textbook_laplace_can_output` decides whether an
output is possible on a given input; :func:`snapping_mechanism` and :func:`snapping_law`
are Mironov's snapping mechanism and its exact output law in the model.

Randomness
----------
The exact samplers read random *bits*. ``rng`` is either an object with a method
``getrandbits(k)`` returning a uniform integer in :math:`[0, 2^k)` -- a
:class:`random.Random` (``random.Random(seed)``, for reproducible runs),
:class:`random.SystemRandom` (operating-system entropy, for a deployment), or a
:class:`BitSource` (a fixed bit string, to trace a run by hand) -- or a
:class:`numpy.random.Generator`, from which a :class:`random.Random` is seeded with
128 bits (so the book's ``np.random.default_rng(seed)`` convention works too).
A uniform integer in :math:`[0, n)` is drawn by rejection: read
:math:`k = \lceil \log_2 n \rceil` bits and retry while the result is :math:`\ge n`.
"""

from __future__ import annotations

import math
import numbers
import random
import reprlib
from fractions import Fraction

import numpy as np

from ._validate import MAX_ENTRIES, check_in_range, check_integer, check_nonnegative, check_positive, check_real

__all__ = [
    "BitSource",
    "BitsExhausted",
    "exact_output_law",
    "bernoulli_exp",
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "discrete_laplace_mechanism",
    "discrete_gaussian_mechanism",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
    "discrete_laplace_delta",
    "discrete_gaussian_delta",
    "round_to_precision",
    "textbook_laplace_float",
    "textbook_laplace_can_output",
    "textbook_laplace_law",
    "snapping_epsilon",
    "full_precision_uniform",
    "snapping_mechanism",
    "snapping_law",
]


# ---------------------------------------------------------------- random bits
class BitsExhausted(ValueError):
    """Raised by :meth:`BitSource.getrandbits` when the fixed bit string runs out."""


class BitSource:
    """A fixed string of random bits, read from left to right, for tests traced by hand.

    :meth:`getrandbits` returns the next ``k`` bits as an integer, most significant bit
    first, and records ``(k, value)`` in ``reads``. Running out of bits raises
    :class:`BitsExhausted` (a :class:`ValueError`), so a test also checks how many bits a run
    consumed, and :func:`exact_output_law` can follow every bit string.

    Parameters
    ----------
    bits : str
        The bits, ``0`` and ``1``; spaces and underscores are ignored (to group them).

    Attributes
    ----------
    bits : str
        The bits without spaces and underscores.
    position : int
        Number of bits read so far.
    reads : list of tuple
        ``(k, value)`` for each call of :meth:`getrandbits`, in order.

    Raises
    ------
    ValueError
        If ``bits`` is not a string of ``0``, ``1``, spaces and underscores.

    Examples
    --------
    >>> src = BitSource("10 011")         # spaces and underscores are ignored
    >>> src.getrandbits(2), src.getrandbits(3), src.reads
    (2, 3, [(2, 2), (3, 3)])
    """

    def __init__(self, bits: str):
        if not isinstance(bits, str):
            raise ValueError(f"bits must be a string of 0s and 1s, got {type(bits).__name__}")
        clean = bits.replace(" ", "").replace("_", "")
        if set(clean) - {"0", "1"}:
            raise ValueError(f"bits must contain only 0, 1, spaces and underscores, got {bits!r}")
        self.bits = clean
        self.position = 0
        self.reads: list[tuple[int, int]] = []

    def getrandbits(self, k: int) -> int:
        """The next ``k`` bits as an integer, most significant first (the :class:`random.Random` method).

        Parameters
        ----------
        k : int
            Number of bits, ``>= 0`` (``0`` reads nothing and returns 0).

        Returns
        -------
        int
            In :math:`[0, 2^k)`.

        Raises
        ------
        BitsExhausted
            If fewer than ``k`` bits are left (the position does not move).
        ValueError
            If ``k < 0``.

        Examples
        --------
        >>> src = BitSource("1101")
        >>> src.getrandbits(3), src.remaining
        (6, 1)
        """
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        end = self.position + k
        if end > len(self.bits):
            raise BitsExhausted(f"BitSource exhausted: {k} bits requested, {len(self.bits) - self.position} left")
        value = int(self.bits[self.position:end], 2) if k else 0
        self.position = end
        self.reads.append((k, value))
        return value

    @property
    def remaining(self) -> int:
        """Number of bits not read yet."""
        return len(self.bits) - self.position


def exact_output_law(sampler, max_bits):
    r"""The exact output law of a sampler that reads random bits, by following every bit string.

    ``sampler(src)`` is run on :class:`BitSource` objects holding every prefix of random bits it
    asks for: a run that completes after reading :math:`L` bits has probability :math:`2^{-L}`; a
    run that needs more than ``max_bits`` bits is not followed, and its probability is added to
    the *unresolved* mass. Each output's true probability therefore lies between the returned
    value and that value plus the unresolved mass. Nothing is sampled: this is an exhaustive
    computation with exact fractions, independent of any claim about the algorithm; the tests use
    it to check the samplers of :cite:`canonne2020discrete` against their stated laws.

    Parameters
    ----------
    sampler : callable
        ``sampler(src)`` draws one output reading bits only through ``src.getrandbits``
        (a :class:`BitSource`); the output must be hashable.
    max_bits : int
        In ``[0, 64]``: the longest bit string followed.

    Returns
    -------
    law : dict
        Output -> :class:`fractions.Fraction` probability (from completed runs).
    unresolved : Fraction
        Total probability of the bit strings longer than ``max_bits``.

    Raises
    ------
    ValueError
        If ``sampler`` is not callable or ``max_bits`` is not an integer in ``[0, 64]``.
    RuntimeError
        If a run finishes without reading all the bits it was given (a sampler that does not read
        its bits in order).

    Examples
    --------
    >>> law, rest = exact_output_law(lambda src: bernoulli_exp(Fraction(1, 2), src), 16)
    >>> float(law[1]) <= math.exp(-0.5) <= float(law[1] + rest), float(rest) < 0.002
    (True, True)
    """
    if not callable(sampler):
        raise ValueError(f"sampler must be a callable taking a BitSource, got {type(sampler).__name__}")
    max_bits = check_integer("max_bits", max_bits, low=0, high=64)
    law: dict = {}
    unresolved = Fraction(0)
    stack = [""]
    while stack:
        prefix = stack.pop()
        src = BitSource(prefix)
        try:
            out = sampler(src)
        except BitsExhausted:
            if len(prefix) >= max_bits:
                unresolved += Fraction(1, 2 ** len(prefix))
            else:
                stack += [prefix + "1", prefix + "0"]
            continue
        if src.remaining:
            raise RuntimeError("the sampler did not read its bits sequentially")  # cannot happen for a reader
        law[out] = law.get(out, Fraction(0)) + Fraction(1, 2 ** len(prefix))
    return law, unresolved


def _getbits(rng):
    """The ``getrandbits`` method the samplers read from (see the module docstring)."""
    if isinstance(rng, np.random.Generator):
        rng = random.Random(int.from_bytes(rng.bytes(16), "little"))
    getbits = getattr(rng, "getrandbits", None)
    if not callable(getbits):
        raise ValueError(
            "rng must have a getrandbits(k) method (random.Random(seed), random.SystemRandom(), "
            f"BitSource) or be a numpy.random.Generator, got {type(rng).__name__}"
        )
    return getbits


def _real_array(name: str, values, *, finite: bool = True) -> np.ndarray:
    """``values`` as a float array if every entry is a real number (not a bool, a string or None),
    finite unless ``finite=False``; otherwise a ValueError that names the parameter (numpy's
    own conversion accepts ``True`` and answers a string with "could not convert string to
    float")."""
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
        raise ValueError(f"{name} must be finite, got {reprlib.repr(values)}")
    return arr


def _rational(name: str, value, *, positive: bool = True) -> Fraction:
    """``value`` as an exact Fraction (a float is taken at its exact binary value).

    An int or Fraction is checked exactly, never through a float, so that parameters beyond
    the range of doubles (``Fraction(10**400)``, ``Fraction(1, 10**400)``) are accepted.
    """
    if isinstance(value, numbers.Rational) and not isinstance(value, bool):
        q = Fraction(value)
        if q < 0 or (positive and q == 0):
            raise ValueError(f"{name} must be {'>' if positive else '>='} 0, got {value}")
        return q
    checked = check_positive(name, value) if positive else check_nonnegative(name, value)
    if hasattr(value, "as_integer_ratio"):     # a float of any width (numpy's float32, float16, longdouble too, on
        return Fraction(*value.as_integer_ratio())   # which Fraction() raised a bare TypeError): its exact value
    return Fraction(checked)


# ---------------------------------------------------------------- exact samplers (integers only)
def _uniform_below(n: int, getbits) -> int:
    """Uniform integer in [0, n) by rejection from ceil(log2 n) random bits."""
    k = (n - 1).bit_length()
    r = getbits(k)
    while r >= n:
        r = getbits(k)
    return r


def _bernoulli_exp_unit(num: int, den: int, getbits) -> int:
    """Bernoulli(exp(-num/den)) for 0 <= num/den <= 1 (CKS Algorithm 1).

    Draw A_k ~ Bernoulli(gamma/k), k = 1, 2, ..., until the first A_K = 0;
    return 1 when K is odd. Pr[K > k] = gamma^k / k!, so
    Pr[K odd] = sum_j (-gamma)^j / j! = exp(-gamma).
    """
    if num == 0:
        return 1
    k = 1
    # A_k = 1 when a uniform integer below den * k is below num
    while _uniform_below(den * k, getbits) < num:
        k += 1
    return k & 1


def _bernoulli_exp(num: int, den: int, getbits) -> int:
    """Bernoulli(exp(-num/den)) for any num/den >= 0 (CKS Algorithm 1).

    exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))):
    one exp(-1)-coin per whole unit (stop at the first 0), then one coin
    for the fractional part.
    """
    whole, num = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_unit(1, 1, getbits):
            return 0
    return _bernoulli_exp_unit(num, den, getbits)


def _discrete_laplace(t: int, s: int, getbits) -> int:
    """Discrete Laplace, Pr[y] ~ exp(-|y| s / t) (CKS Algorithm 2)."""
    while True:
        u = _uniform_below(t, getbits)
        if not _bernoulli_exp_unit(u, t, getbits):  # keep u w.p. exp(-u/t)
            continue
        v = 0
        while _bernoulli_exp_unit(1, 1, getbits):   # Pr[v] ~ exp(-v)
            v += 1
        y = (u + t * v) // s        # u + t v is geometric, ratio exp(-1/t)
        negative = getbits(1)
        if negative and y == 0:     # "-0" would count 0 twice
            continue
        return -y if negative else y


def _discrete_gaussian(a: int, b: int, t: int, getbits) -> int:
    """Discrete Gaussian N_Z(0, a/b) by rejection (CKS Algorithm 3).

    Propose y from the discrete Laplace with scale t = floor(sigma) + 1;
    accept w.p. exp(-(|y| - sigma^2/t)^2 / (2 sigma^2)). With
    sigma^2 = a/b the exponent is (|y| b t - a)^2 / (2 a b t^2).
    """
    den = 2 * a * b * t * t
    while True:
        y = _discrete_laplace(t, 1, getbits)
        if _bernoulli_exp((abs(y) * b * t - a) ** 2, den, getbits):
            return y


def _gaussian_parameters(sigma) -> tuple[int, int, int]:
    s = _rational("sigma", sigma)
    return s.numerator**2, s.denominator**2, s.numerator // s.denominator + 1


def bernoulli_exp(gamma, rng) -> int:
    r"""One draw of a Bernoulli(:math:`e^{-\gamma}`) coin, exactly (:cite:`canonne2020discrete` Algorithm 1).

    For :math:`0 \le \gamma \le 1` draw :math:`A_k \sim \mathrm{Bernoulli}(\gamma/k)` for
    :math:`k = 1, 2, \dots` until the first :math:`A_K = 0`, and return 1 when :math:`K` is odd
    (:math:`\Pr[K > k] = \gamma^k/k!`, so :math:`\Pr[K \text{ odd}] = e^{-\gamma}`). A larger
    :math:`\gamma` uses :math:`\lfloor\gamma\rfloor` coins :math:`\mathrm{Bernoulli}(e^{-1})` and one
    for the fractional part.

    Parameters
    ----------
    gamma : int, Fraction or float
        ``>= 0``, used exactly (a float at its exact binary value).
    rng : random.Random-like or numpy.random.Generator
        Source of random bits (see the module docstring).

    Returns
    -------
    int
        1 with probability :math:`e^{-\gamma}` exactly, else 0.

    Raises
    ------
    ValueError
        If ``gamma`` is not a number ``>= 0`` or ``rng`` has no ``getrandbits`` method.

    Examples
    --------
    >>> import random
    >>> rng = random.Random(1)
    >>> draws = [bernoulli_exp(Fraction(1, 2), rng) for _ in range(20000)]
    >>> abs(sum(draws) / 20000 - math.exp(-0.5)) < 0.02
    True
    """
    g = _rational("gamma", gamma, positive=False)
    return _bernoulli_exp(g.numerator, g.denominator, _getbits(rng))


def sample_discrete_laplace(scale, rng) -> int:
    r"""One exact draw from the discrete Laplace distribution, :math:`\Pr[Y=y] \propto e^{-|y|/t}`.

    :cite:`canonne2020discrete` Algorithm 2 with :math:`t/s` = ``scale`` in lowest terms: a
    uniform :math:`U \in \{0,\dots,t-1\}` kept with probability :math:`e^{-U/t}`, plus
    :math:`t V` with :math:`V` geometric (:math:`\Pr[V=v] \propto e^{-v}`), is geometric with
    ratio :math:`e^{-1/t}`; dividing by :math:`s` (floor) gives ratio :math:`e^{-s/t}`; a random
    sign, rejecting "negative zero", makes it two-sided. Adding it to an integer query of
    sensitivity :math:`\Delta` is :math:`\Delta/t`-DP.

    Parameters
    ----------
    scale : int, Fraction or float
        :math:`t > 0`, used exactly.
    rng : random.Random-like or numpy.random.Generator
        Source of random bits (see the module docstring).

    Returns
    -------
    int
        :math:`Y` with :math:`\Pr[Y = y] = \tanh(1/(2t))\,e^{-|y|/t}` exactly (a Python integer).

    Raises
    ------
    ValueError
        If ``scale`` is not a number ``> 0`` or ``rng`` has no ``getrandbits`` method.

    Examples
    --------
    >>> import random
    >>> rng = random.Random(4)
    >>> draws = [sample_discrete_laplace(Fraction(3, 2), rng) for _ in range(20000)]
    >>> r = math.exp(-2 / 3)                       # Pr[Y = 0] = (1 - r) / (1 + r)
    >>> abs(draws.count(0) / 20000 - (1 - r) / (1 + r)) < 0.01
    True
    """
    t = _rational("scale", scale)
    return _discrete_laplace(t.numerator, t.denominator, _getbits(rng))


def sample_discrete_gaussian(sigma, rng) -> int:
    r"""One exact draw from the discrete Gaussian :math:`\mathcal N_{\mathbb Z}(0, \sigma^2)`.

    :cite:`canonne2020discrete` Algorithm 3: propose :math:`Y` from the discrete Laplace with
    :math:`t = \lfloor\sigma\rfloor + 1` and accept with probability
    :math:`\exp(-(|Y| - \sigma^2/t)^2/(2\sigma^2))`. Since
    :math:`y^2/(2\sigma^2) = (|y| - \sigma^2/t)^2/(2\sigma^2) + |y|/t - \sigma^2/(2t^2)`, the
    accepted :math:`Y` has :math:`\Pr[Y = y] \propto e^{-y^2/(2\sigma^2)}`.

    Parameters
    ----------
    sigma : int, Fraction or float
        ``> 0``, used exactly (pass ``Fraction(1, 10)`` rather than ``0.1`` for a decimal).
    rng : random.Random-like or numpy.random.Generator
        Source of random bits (see the module docstring).

    Returns
    -------
    int
        A draw of :math:`\mathcal N_{\mathbb Z}(0, \sigma^2)`, exactly (a Python integer).

    Raises
    ------
    ValueError
        If ``sigma`` is not a number ``> 0`` or ``rng`` has no ``getrandbits`` method.

    Examples
    --------
    >>> import random
    >>> rng = random.Random(0)
    >>> draws = [sample_discrete_gaussian(3, rng) for _ in range(4000)]
    >>> abs(sum(draws) / 4000) < 0.2, 8 < sum(d * d for d in draws) / 4000 < 10
    (True, True)
    """
    a, b, t = _gaussian_parameters(sigma)
    return _discrete_gaussian(a, b, t, _getbits(rng))


# the most draws of one call of the exact samplers: each is Python code, about 0.1 ms a draw
_MAX_EXACT_DRAWS = 10**6


def _integer_values(value, size):
    """``value`` as an int64 array broadcast to ``size`` (or its own shape)."""
    rule = "value must be integers (the discrete mechanisms release integers)"
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):             # a ragged nesting of sequences
        raise ValueError(f"{rule}, got {reprlib.repr(value)}") from None
    if arr.dtype.kind == "O" and arr.size and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr.ravel()):
        arr = np.array([int(v) for v in arr.ravel()], dtype=object).reshape(arr.shape)
        lo, hi = min(arr.ravel()), max(arr.ravel())
        if lo < -(2**63) or hi > 2**63 - 1:              # Python integers beyond int64
            raise ValueError(f"{rule} in [-2**63, 2**63 - 1] (the release is int64), got values from {lo} to {hi}")
        arr = arr.astype(np.int64)                       # an object array of Python integers that fit
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{rule}, got {reprlib.repr(value)}")
        if arr.size and (arr.min() < -(2.0**63) or arr.max() >= 2.0**63):
            raise ValueError(f"{rule} in [-2**63, 2**63 - 1] (the release is int64), got {reprlib.repr(value)}")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu" or arr.dtype == bool:
        raise ValueError(f"{rule}, got {reprlib.repr(value)}")
    elif arr.dtype.kind == "u" and arr.size and int(arr.max()) > 2**63 - 1:
        raise ValueError(f"{rule} in [-2**63, 2**63 - 1] (the release is int64), got {int(arr.max())}")
    if size is None:
        return arr.astype(np.int64), arr.ndim == 0
    shape = (check_integer("size", size, low=0, high=_MAX_EXACT_DRAWS),) if isinstance(size, numbers.Real) else tuple(
        check_integer("size", s, low=0, high=_MAX_EXACT_DRAWS) for s in size)
    if math.prod(shape) > _MAX_EXACT_DRAWS:
        raise ValueError(f"size must have at most {_MAX_EXACT_DRAWS} entries in all, got {tuple(shape)}")
    try:
        return np.broadcast_to(arr, shape).astype(np.int64), False
    except ValueError:
        raise ValueError(f"size must be a shape that value {arr.shape} broadcasts to, got {shape}") from None


def _release(values, sampler, getbits, scalar):
    noise = [sampler(getbits) for _ in range(values.size)]          # exact Python integers
    try:
        noise = np.array(noise, dtype=np.int64).reshape(values.shape)
    except OverflowError:
        noise = None
    if noise is not None:
        out = values + noise
        # int64 addition wraps around silently; it overflowed where both terms have the sign
        # the sum lacks
        wrapped = ((values ^ out) & (noise ^ out)) < 0
    if noise is None or np.any(wrapped):
        raise ValueError("value + noise does not fit in int64 (|value| near 2**63, or a scale near 2**63): "
                         "add sample_discrete_laplace / sample_discrete_gaussian draws to Python integers instead")
    return int(out) if scalar else out


def discrete_laplace_mechanism(value, scale, size=None, rng=None):
    r"""Release integer ``value`` plus independent discrete Laplace noise of scale ``scale`` (exact).

    For an integer query of sensitivity :math:`\Delta`, scale :math:`t = \Delta/\varepsilon` gives
    :math:`\varepsilon`-DP (the log-ratio of the pmfs at shift :math:`\Delta` is at most
    :math:`\Delta/t`; see :func:`discrete_laplace_delta`). The noise is drawn exactly by
    :cite:`canonne2020discrete` Algorithm 2 (:func:`sample_discrete_laplace`).

    Parameters
    ----------
    value : int or array_like of int
        True answer(s).
    scale : int, Fraction or float
        :math:`t > 0`, used exactly.
    size : int or tuple, optional
        Output shape, of at most ``10**6`` entries (each draw runs the exact sampler in Python,
        about 0.1 ms: minutes at the cap); ``value`` is broadcast to it (default: the shape of
        ``value``).
    rng : random.Random-like or numpy.random.Generator
        Required; see the module docstring.

    Returns
    -------
    int or numpy.ndarray of int64
        ``value`` plus the noise (an ``int`` when ``value`` is a scalar and ``size`` is not given).

    Raises
    ------
    ValueError
        If a parameter is out of range, or a release does not fit in int64 (never for
        ``|value| <= 2**62`` and ``scale <= 2**52``, except with probability below
        :math:`e^{-1024}`); the samplers return Python integers of any size.

    Examples
    --------
    >>> import random
    >>> out = discrete_laplace_mechanism(10, 2, size=5, rng=random.Random(3))
    >>> out.shape, out.dtype
    ((5,), dtype('int64'))
    """
    t = _rational("scale", scale)
    getbits = _getbits(rng)
    values, scalar = _integer_values(value, size)
    num, den = t.numerator, t.denominator
    return _release(values, lambda g: _discrete_laplace(num, den, g), getbits, scalar)


# the largest sigma the int64 release takes: with |value| <= 2**62, |noise| > 2**62 = 16 sigma has
# probability below e^-128 (beyond it the sum is refused after the draw, a failure that depends on value)
_MAX_RELEASE_SIGMA = 2**58


def discrete_gaussian_mechanism(value, sigma, size=None, rng=None):
    r"""Release integer ``value`` plus independent :math:`\mathcal N_{\mathbb Z}(0,\sigma^2)` noise (exact).

    Its privacy profile for an integer query of sensitivity :math:`\Delta` is
    :func:`discrete_gaussian_delta` (:cite:`canonne2020discrete` Theorem 7). A convenience wrapper
    of :func:`sample_discrete_gaussian` for black-box tests: the parameters are validated once, then
    one exact draw per entry.

    Parameters
    ----------
    value : int or array_like of int
        True answer(s).
    sigma : int, Fraction or float
        In ``(0, 2**58]`` (2.9e17), used exactly. The release is int64: at ``sigma = 2**58`` and
        ``|value| <= 2**62`` the noise would pass 2**63 with probability below :math:`e^{-128}`, while
        far above it the noise itself does not fit (for a larger ``sigma``, add
        :func:`sample_discrete_gaussian` draws to Python integers).
    size : int or tuple, optional
        Output shape, of at most ``10**6`` entries (each draw runs the exact sampler in Python,
        about 0.1 ms: minutes at the cap); ``value`` is broadcast to it (default: the shape of
        ``value``).
    rng : random.Random-like or numpy.random.Generator
        Required; see the module docstring.

    Returns
    -------
    int or numpy.ndarray of int64
        ``value`` plus the noise (an ``int`` when ``value`` is a scalar and ``size`` is not given).

    Raises
    ------
    ValueError
        If a parameter is out of range (``sigma`` above ``2**58`` included: the message names it), or
        a release does not fit in int64 (``|value|`` near 2**63).

    Examples
    --------
    >>> out = discrete_gaussian_mechanism([0, 100], 10, rng=np.random.default_rng(0))
    >>> out.dtype, out.shape
    (dtype('int64'), (2,))
    """
    a, b, t = _gaussian_parameters(sigma)
    if a > _MAX_RELEASE_SIGMA**2 * b:            # sigma^2 = a/b, compared exactly
        # value + noise did not fit in int64 and said so after the draw, naming neither sigma nor a range
        shown = str(sigma) if isinstance(sigma, numbers.Rational) else repr(float(sigma))
        raise ValueError(f"sigma must be <= 2**58 (2.9e17) for value + noise to fit in int64, got {shown} "
                         "(add sample_discrete_gaussian draws to Python integers instead)")
    getbits = _getbits(rng)
    values, scalar = _integer_values(value, size)
    return _release(values, lambda g: _discrete_gaussian(a, b, t, g), getbits, scalar)


# ---------------------------------------------------------------- pmfs and privacy profiles (floating point)
def _integers(name: str, x):
    try:
        arr = _real_array(name, x)
    except ValueError:
        raise ValueError(f"{name} must be integers, got {reprlib.repr(x)}") from None
    if arr.size and np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must be integers, got {reprlib.repr(x)}")
    return arr, arr.ndim == 0


def _out(arr, scalar):
    return float(arr) if scalar else arr


def _dgauss_log_normalizer(sigma: float) -> float:
    r"""log of :math:`\sum_{y\in\mathbb Z} e^{-y^2/(2\sigma^2)}`.

    For :math:`\sigma \ge 1` by Poisson summation (Jacobi's identity)
    :math:`\sum_y e^{-y^2/(2\sigma^2)} = \sigma\sqrt{2\pi}\,\big(1 + 2\sum_{k\ge1} e^{-2\pi^2\sigma^2k^2}\big)`,
    whose terms fall below :math:`e^{-2\pi^2 \cdot 16} < 10^{-137}` from :math:`k = 4` on; for
    :math:`\sigma < 1` the direct sum over :math:`|y| \le 12`, whose tail is below
    :math:`e^{-72} < 10^{-31}` relative. (No library function evaluates this theta series in
    log form for every :math:`\sigma`, hence the two hand-written branches.)

    Any finite :math:`\sigma > 0`: the Poisson terms are 0 in float from :math:`\sigma = 6.2` on
    (:math:`e^{-2\pi^2 \sigma^2} < 10^{-330}`), so they are not formed past 10, where
    ``sigma**2`` overflowed at 1e300; below 1, :math:`y^2/(2\sigma^2)` is ``_half_square_ratio``,
    ``inf`` (a term of 0) where :math:`\sigma^2` underflowed to 0 (0/0 = nan at :math:`y = 0` for 1e-300).
    """
    if sigma >= 1.0:
        k = np.arange(1, 4)
        poisson = 0.0 if sigma > 10.0 else math.log1p(2 * np.exp(-2 * math.pi**2 * sigma**2 * k**2).sum())
        return math.log(sigma) + 0.5 * math.log(2 * math.pi) + poisson
    y = np.arange(-12, 13)
    return float(np.log(np.exp(-_half_square_ratio(y, sigma)).sum()))


def _half_square_ratio(x, sigma: float) -> np.ndarray:
    """``x**2 / (2 sigma**2)`` elementwise for any finite ``sigma > 0``.

    ``x`` and ``sigma`` are first scaled by the same power of two (exactly), bringing ``sigma`` into
    [1/2, 1): the rounding is that of the plain formula wherever the plain formula stays in the normal
    floats, while ``sigma**2`` no longer underflows (to 0 below 1e-162: 0/0 = nan at x = 0) or
    overflows (above 1.3e154); a ratio past 1.8e308 is ``inf``, whose e^-inf = 0 is the true underflow.
    """
    e = math.frexp(sigma)[1]
    s = math.ldexp(sigma, -e)
    with np.errstate(over="ignore"):
        xs = np.ldexp(np.asarray(x, dtype=float), -e)
        return xs * xs / (2 * s * s)


def discrete_gaussian_pmf(x, sigma):
    r"""pmf of :math:`\mathcal N_{\mathbb Z}(0,\sigma^2)`: :math:`e^{-x^2/(2\sigma^2)} / \sum_{y\in\mathbb Z} e^{-y^2/(2\sigma^2)}`.

    The distribution of :cite:`canonne2020discrete`; the normalizer is
    summed by Poisson summation for :math:`\sigma \ge 1` and directly below (``_dgauss_log_normalizer``).

    Parameters
    ----------
    x : int or array_like of int
        Points; vectorized (floats with integer values are accepted).
    sigma : float
        ``> 0``, finite, of any size: as :math:`\sigma \to 0` the pmf is 1 at 0 and 0 elsewhere
        (at ``1e-300`` exactly that), for a huge :math:`\sigma` it is :math:`1/(\sigma\sqrt{2\pi})`
        near 0.

    Returns
    -------
    float or numpy.ndarray
        :math:`\Pr[Y = x]`, a float for a scalar ``x``, else an array of ``x``'s shape.

    Raises
    ------
    ValueError
        If ``sigma`` is not ``> 0`` and finite, or an entry of ``x`` is not an integer.

    Examples
    --------
    >>> p0 = discrete_gaussian_pmf(0, 1.0)          # 1 / (sqrt(2 pi) (1 + 2 e^{-2 pi^2} + ...))
    >>> abs(p0 - 1 / (math.sqrt(2 * math.pi) * (1 + 2 * math.exp(-2 * math.pi**2)))) < 1e-15
    True
    >>> discrete_gaussian_pmf([-2, 2], 0.5).tolist() == [discrete_gaussian_pmf(2, 0.5)] * 2
    True
    """
    sigma = check_positive("sigma", sigma)
    arr, scalar = _integers("x", x)
    # at sigma = 1e-300 the plain x^2/(2 sigma^2) was 0/0 = nan at x = 0 (sigma^2 underflowed)
    return _out(np.exp(-_half_square_ratio(arr, sigma) - _dgauss_log_normalizer(sigma)), scalar)


def discrete_laplace_pmf(x, scale):
    r"""pmf of the discrete Laplace distribution: :math:`\tanh\!\big(\tfrac{1}{2t}\big)\, e^{-|x|/t}`.

    The normalizer is :math:`\sum_y r^{|y|} = (1+r)/(1-r)` with :math:`r = e^{-1/t}`, and
    :math:`(1-r)/(1+r) = \tanh(1/(2t))` (the distribution of :cite:`canonne2020discrete`,
    scale :math:`t`).

    Parameters
    ----------
    x : int or array_like of int
        Points; vectorized (floats with integer values are accepted).
    scale : float
        :math:`t > 0`.

    Returns
    -------
    float or numpy.ndarray
        :math:`\Pr[Y = x]`, a float for a scalar ``x``, else an array of ``x``'s shape.

    Raises
    ------
    ValueError
        If ``scale`` is not ``> 0`` and finite, or an entry of ``x`` is not an integer.

    Examples
    --------
    >>> round(discrete_laplace_pmf(0, 1.0), 12) == round(math.tanh(0.5), 12)
    True
    """
    t = check_positive("scale", scale)
    arr, scalar = _integers("x", x)
    with np.errstate(over="ignore"):     # |x|/t past 1.8e308 (t = 5e-324): e^-inf = 0, the true underflow
        return _out(math.tanh(0.5 / t) * np.exp(-np.abs(arr) / t), scalar)


def _epsilons(epsilon):
    try:
        eps = _real_array("epsilon", epsilon, finite=False)     # nan and inf: the range check below
    except ValueError:
        raise ValueError(f"epsilon must be a real number >= 0 or an array of them, got {epsilon!r}") from None
    if eps.size == 0:
        raise ValueError("epsilon must not be empty")
    for extreme in (np.min(eps), np.max(eps)):   # nan propagates, so this checks every entry
        check_in_range("epsilon", float(extreme), 0.0)
    return eps, eps.ndim == 0


_MAX_BLOCK = 1 << 20        # terms summed at once by _dgauss_delta_shift (8 MB): sigma = 1e8 needed 3 GB


def _dgauss_delta_shift(sigma: float, log_z: float, eps: float, k: int,
                        rtol: float = 1e-13, first_step: int | None = None) -> tuple[float, float]:
    r"""Hockey-stick divergence of :math:`\mathcal N_{\mathbb Z}(0,\sigma^2)` from :math:`\mathcal N_{\mathbb Z}(k,\sigma^2)`.

    The loss at :math:`y` is :math:`L(y) = (k^2 - 2ky)/(2\sigma^2)`, above :math:`\varepsilon`
    exactly for :math:`y < c = k/2 - \sigma^2\varepsilon/k`, so
    :math:`\delta = \sum_{y < c} p(y)\,(1 - e^{k(y-c)/\sigma^2})`: positive terms, no
    cancellation. The sum runs down from :math:`m = \lceil c\rceil - 1` until a geometric bound
    on the rest, :math:`\sum_{y \le y_0} p(y) \le p(y_0)/(1 - e^{-(2|y_0|+1)/(2\sigma^2)})`
    (:math:`y_0 \le 0`), is below ``rtol`` (:math:`10^{-13}`) of the partial sum, in blocks of
    ``first_step`` (default :math:`\max(64, 4\sigma + 1)`) terms, doubling up to :math:`2^{20}`. Returns the partial
    sum and that bound on what it leaves out (the unit tests check the bound against mpmath).
    """
    s2 = sigma * sigma
    c = k / 2 - s2 * eps / k
    exact = None
    if abs(c) <= k:
        # c within k of 0: its two terms may cancel (eps near k^2/(2 sigma^2)), and the terms' exponent
        # k (y - c) / sigma^2 multiplies the rounding of c by k / sigma^2 (1e16 at sigma 1e-8): c from exact
        # rationals (discrete_gaussian_delta(1e-8, 4999999999999999.0) was 0.426 for 0.5465)
        exact = Fraction(k, 2) - Fraction(sigma) ** 2 * Fraction(eps) / k
        c = float(exact)
    if not c >= -40.0 * sigma - 1.0:
        # every term has y < -40 sigma: by the geometric bound below the whole sum is under
        # e^-800 (sigma + 40)/(40 Z) < 1e-347, 0 in float (and c = -inf when s2 * eps overflows)
        return 0.0, 0.0
    if exact is None:
        m = math.ceil(c) - 1
        frac = m - c                              # in [-1, 0); exact (Sterbenz)
    else:
        # from the exact c: the distance to the integer below it, not that of a rounded c (c = -1 + 2.8e-16
        # rounded is 20 % off in c + 1, which the term at y = -1 is proportional to: 6.1e-101 for 6.5e-101)
        m = math.ceil(exact) - 1
        frac = float(m - exact)
    total = 0.0
    hi = m
    step = first_step or min(max(64, int(4 * sigma) + 1), _MAX_BLOCK)
    while True:
        lo = hi - step + 1
        y = np.arange(lo, hi + 1, dtype=float)
        logp = -(y * y) / (2 * s2) - log_z
        total += float(np.sum(np.exp(logp) * -np.expm1(k * ((y - m) + frac) / s2)))
        y0 = lo - 1                               # every remaining y is <= y0
        if y0 <= 0:
            tail = math.exp(-(y0 * y0) / (2 * s2) - log_z) / -math.expm1(-(2 * abs(y0) + 1) / (2 * s2))
            if tail <= rtol * total or tail == 0.0:
                return total, tail
        hi = lo - 1
        step = min(2 * step, _MAX_BLOCK)


_TINY_SIGMA = 1e-150        # below: sigma^2 leaves the normal floats; the profile is a step (_dgauss_delta_tiny)
_LARGE_SIGMA = 1e6          # from here: the continuous profile plus Euler-Maclaurin (_dgauss_delta_large)
_HUGE_SIGMA = 1e10          # from here the Euler-Maclaurin correction is below 1e-16 relative
_MU_RESCALED = 1e-100       # below this k / sigma the continuous profile is linear in it (see _dgauss_delta_large)
# 6-point Gauss-Legendre rule on [0, 1] (numpy's is on [-1, 1], weights summing to 2)
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(6)
_GL_NODES, _GL_WEIGHTS = (_GL_NODES + 1.0) / 2.0, _GL_WEIGHTS / 2.0


def _dgauss_delta_tiny(sigma: float, eps: float, k: int) -> float:
    r"""The shift-``k`` divergence for :math:`\sigma < 10^{-150}`: a step, exactly.

    With :math:`L_0 = k^2/(2\sigma^2) > 10^{300}`, the threshold :math:`c = k/2 - \sigma^2\varepsilon/k`
    is positive exactly when :math:`\varepsilon < L_0`; then the term at :math:`y = 0` is
    :math:`p(0)(1 - e^{\varepsilon - L_0})`, and every other term and :math:`1 - p(0)` are below
    :math:`e^{-1/(2\sigma^2)} < e^{-10^{299}}`; otherwise every term has :math:`|y| \ge 1`. So
    :math:`\delta = -\mathrm{expm1}(\varepsilon - L_0)` for :math:`\varepsilon < L_0` and 0 from
    there (compared and subtracted in exact rationals: :math:`\sigma^2` underflows).
    """
    gap = Fraction(eps) - Fraction(k * k, 2) / Fraction(sigma) ** 2
    if gap >= 0:
        return 0.0
    return 1.0 if gap < -800 else -math.expm1(float(gap))     # 1 - e^-800 is 1.0 (and the gap can pass 1e308)


def _dgauss_delta_large(sigma: float, eps: float, k: int) -> float:
    r"""The shift-``k`` divergence for :math:`\sigma \ge 10^6`, in a time independent of :math:`\sigma`.

    The sum :math:`\sum_{y \le m} f(y)` of ``_dgauss_delta_shift``, with
    :math:`f(t) = g(t)\,(1 - e^{k(t-c)/\sigma^2})` and :math:`g(t) = e^{-t^2/(2\sigma^2)}/Z`, is by
    the Euler-Maclaurin formula
    :math:`\int_{-\infty}^{c} f - \int_m^c f + f(m)/2 + f'(m)/12 - f^{(3)}(m)/720 + \dots`.
    For :math:`\sigma \ge 10` the normalizer :math:`Z` is :math:`\sigma\sqrt{2\pi}` in float, so
    the first integral is the continuous Gaussian profile at :math:`\mu = k/\sigma`
    (:func:`dpnotes.loss.gaussian_delta`, :cite:`balle2018improving` Theorem 8). The next three
    terms are of order :math:`g(c)\,k/\sigma^2`, relative :math:`(1 + z^2)/\sigma^2` to the profile
    (:math:`z = c/\sigma`, :math:`|z| < 39` where the profile does not underflow): they are
    included below :math:`\sigma = 10^{10}` (the integral by 6-point Gauss-Legendre over a
    fraction of a unit), and below :math:`10^{-16}` relative above it. The rest is smaller
    by a further :math:`(z/\sigma)^2 < 10^{-9}`. For :math:`\mu < 10^{-100}` the profile is
    :math:`\mu` times a function of :math:`\varepsilon/\mu` (to :math:`10^{-100}` relative) and is
    evaluated at :math:`\mu = 10^{-100}` and scaled: it stays exact into the subnormals.
    """
    from .loss import gaussian_delta

    mu = k / sigma
    if mu < _MU_RESCALED:
        # delta = mu phi(a) int_0^inf u e^{au - u^2/2} du (1 + O(mu u)), a = mu/2 - eps/mu: linear in mu
        # at a fixed w = eps/mu, to 1e-100 relative. Evaluated at mu = 1e-100, where nothing
        # underflows (gaussian_delta took log(0) at mu = 1e-308); w >= 40 leaves under mu e^-800.
        w = eps / mu
        return (mu / _MU_RESCALED) * float(gaussian_delta(w * _MU_RESCALED, _MU_RESCALED)) if w < 40.0 else 0.0
    d = float(gaussian_delta(eps, mu))
    if sigma >= _HUGE_SIGMA or d == 0.0:
        return d
    s2 = sigma * sigma
    c = k / 2 - s2 * eps / k                     # |c| < 39 sigma + k where d > 0: c - m to 1e-4
    m = math.ceil(c) - 1
    u0 = c - m                                   # in (0, 1]
    z_norm = sigma * math.sqrt(2 * math.pi)
    v = u0 * _GL_NODES                           # t = c - v runs over [m, c]
    f = np.exp(-((c - v) ** 2) / (2 * s2)) / z_norm * -np.expm1(-k * v / s2)
    g_m = math.exp(-(m * m) / (2 * s2)) / z_norm
    h_m = -math.expm1(-k * u0 / s2)
    df_m = g_m * (-(m / s2) * h_m - (k / s2) * math.exp(-k * u0 / s2))
    return max(d - u0 * float(np.dot(_GL_WEIGHTS, f)) + g_m * h_m / 2 + df_m / 12, 0.0)


def _dgauss_delta(sigma: float, log_z: float, eps: float, k: int) -> float:
    """The shift-``k`` divergence for any finite sigma > 0 (the three regimes above)."""
    if sigma < _TINY_SIGMA:
        return _dgauss_delta_tiny(sigma, eps, k)
    if sigma >= _LARGE_SIGMA:
        return _dgauss_delta_large(sigma, eps, k)
    return _dgauss_delta_shift(sigma, log_z, eps, k)[0]


def discrete_gaussian_delta(sigma, epsilon, sensitivity=1):
    r"""Exact privacy profile of the discrete Gaussian mechanism for an integer query.

    :math:`\delta(\varepsilon) = \max_{1\le k\le\Delta} \sum_{y\in\mathbb Z}
    \big(p(y) - e^{\varepsilon} p(y-k)\big)_+` with :math:`p` the pmf of
    :math:`\mathcal N_{\mathbb Z}(0,\sigma^2)`: the outputs on two neighbours differ by an integer
    shift of at most :math:`\Delta` (negative shifts give the same value, by symmetry). For the
    shift :math:`\Delta` this is :cite:`canonne2020discrete` Theorem 7,
    :math:`\Pr[Y > \varepsilon\sigma^2/\Delta - \Delta/2] - e^{\varepsilon}\Pr[Y > \varepsilon\sigma^2/\Delta + \Delta/2]`;
    it is summed as positive terms (see ``_dgauss_delta_shift``) with a rigorous tail bound,
    to about :math:`10^{-12}` relative accuracy, down to the underflow of doubles. That sum
    has about :math:`8\sigma` terms: from :math:`\sigma = 10^6` on, the continuous profile plus
    its Euler-Maclaurin correction replaces it (``_dgauss_delta_large``), and below
    :math:`\sigma = 10^{-150}` the profile is the step ``1 - e^(epsilon - k^2/(2 sigma^2))``
    (``_dgauss_delta_tiny``).

    Parameters
    ----------
    sigma : float
        ``> 0``, finite, of any size (at ``1e-300`` the two laws are point masses: 1; at ``1e300``,
        :math:`\delta(0) = \Delta/(\sigma\sqrt{2\pi})`).
    epsilon : float or array_like
        ``>= 0``; vectorized.
    sensitivity : int
        :math:`\Delta`, an integer (the query is integer-valued) in ``[1, 10**4]``: each shift
        :math:`k \le \Delta` is summed on its own, about 0.1 ms each per ``epsilon`` (a second at
        the cap).

    Returns
    -------
    float or numpy.ndarray
        :math:`\delta(\varepsilon) \in [0, 1]`, a float for a scalar ``epsilon``, else an array of its shape.

    Raises
    ------
    ValueError
        If ``sigma`` is not ``> 0`` and finite, an ``epsilon`` is not a finite number ``>= 0`` (or is
        empty), or ``sensitivity`` is not an integer in ``[1, 10**4]``.

    Examples
    --------
    >>> d0, d1 = discrete_gaussian_delta(2.0, [0.0, 1.0])
    >>> bool(abs(d0 - discrete_gaussian_pmf(0, 2.0)) < 1e-15)   # at epsilon = 0, shift 1: Pr[Y = 0]
    True
    >>> bool(0 < d1 < d0)
    True
    """
    sigma = check_positive("sigma", sigma)
    delta_max = check_integer("sensitivity", sensitivity, low=1, high=10**4)
    eps, scalar = _epsilons(epsilon)
    log_z = _dgauss_log_normalizer(sigma)
    out = np.array([max(_dgauss_delta(sigma, log_z, float(e), k) for k in range(1, delta_max + 1))
                    for e in eps.ravel()]).reshape(eps.shape)
    # a sum of pmf values: at most 1, but rounding made it 1.0000000000000002 for sigma = 0.15
    return _out(np.minimum(out, 1.0), scalar)


def discrete_laplace_delta(scale, epsilon, sensitivity=1):
    r"""Exact privacy profile of the discrete Laplace mechanism (scale :math:`t`) for an integer query.

    With :math:`r = e^{-1/t}` and shift :math:`k`, the loss :math:`(|y-k| - |y|)/t` is :math:`k/t` for
    :math:`y \le 0` (probability :math:`1/(1+r)`), :math:`(k-2y)/t` for :math:`0 < y < k`, and
    negative from :math:`y = k` on, so

    .. math:: \delta_k(\varepsilon) = \frac{(1 - e^{\varepsilon - k/t})_+}{1+r}
              + \sum_{y=1}^{k-1} \tanh\!\big(\tfrac1{2t}\big) r^{y}\,\big(1 - e^{\varepsilon - (k-2y)/t}\big)_+ ,

    and :math:`\delta(\varepsilon) = \max_{1 \le k \le \Delta}\delta_k(\varepsilon)`, zero from
    :math:`\varepsilon = \Delta/t` on (pure :math:`\Delta/t`-DP, the discrete Laplace mechanism of
    :cite:`canonne2020discrete`; the profile itself is derived here, term by term, and checked
    in the tests against a direct sum of the pmfs).

    Parameters
    ----------
    scale : float
        :math:`t > 0`.
    epsilon : float or array_like
        ``>= 0`` and finite; vectorized.
    sensitivity : int
        :math:`\Delta`, an integer (the query is integer-valued) in ``[1, 1000]``: the profile
        sums :math:`\Delta^2/2` terms (about a second at the cap).

    Returns
    -------
    float or numpy.ndarray
        :math:`\delta(\varepsilon) \in [0, 1]`, a float for a scalar ``epsilon``, else an array of its shape.

    Raises
    ------
    ValueError
        If ``scale`` is not ``> 0`` and finite, an ``epsilon`` is not a finite number ``>= 0`` (or is
        empty), or ``sensitivity`` is not an integer in ``[1, 1000]``.

    Examples
    --------
    >>> discrete_laplace_delta(2.0, 0.5)             # scale 2, sensitivity 1: 1/2-DP
    0.0
    >>> round(discrete_laplace_delta(2.0, 0.25), 12) == round(-math.expm1(-0.25) / (1 + math.exp(-0.5)), 12)
    True
    """
    t = check_positive("scale", scale)
    delta_max = check_integer("sensitivity", sensitivity, low=1, high=1000)
    eps, scalar = _epsilons(epsilon)
    r = math.exp(-1.0 / t)
    best = np.zeros(eps.shape)
    with np.errstate(over="ignore"):      # expm1 of a huge eps - k/t is inf: (1 - inf)_+ = 0, the true term
        for k in range(1, delta_max + 1):
            d = np.maximum(-np.expm1(eps - k / t), 0.0) / (1 + r)
            for y in range(1, k):
                d = d + math.tanh(0.5 / t) * r**y * np.maximum(-np.expm1(eps - (k - 2 * y) / t), 0.0)
            best = np.maximum(best, d)
    return _out(np.minimum(best, 1.0), scalar)       # a probability: rounding must not pass 1


# ---------------------------------------------------------------- floating point: the textbook sampler
_LIBM_LOG = np.frompyfunc(math.log, 1, 1)


def _log(x: np.ndarray) -> np.ndarray:
    """Elementwise C-library log (math.log), the function numpy's Laplace sampler calls.

    ``np.log`` is not used on purpose: its vectorized implementation may differ from the C
    library in the last bit, and the model must match numpy's sampler bit for bit.
    """
    return _LIBM_LOG(x).astype(float) if np.size(x) else np.asarray(x, dtype=float)


def _precision(precision) -> int:
    p = check_integer("precision", precision)
    if not (p == 53 or 2 <= p <= 26):
        raise ValueError(f"precision must be 53 or an integer in [2, 26], got {p}")
    return p


def round_to_precision(x, precision):
    r"""Round doubles to ``precision`` significant bits, to nearest with ties to even.

    The model of a binary floating-point format with a ``precision``-bit significand and the
    exponent range of doubles (no subnormals, no overflow below :math:`2^{1024}`). At
    ``precision = 53`` it is the identity on doubles. This is the rounding of IEEE 754's
    default mode, the model of :cite:`mironov2012significance`'s analysis at a smaller precision.

    Parameters
    ----------
    x : float or array_like
        Finite doubles; vectorized.
    precision : int
        Significant bits, in ``[1, 53]``.

    Returns
    -------
    float or numpy.ndarray
        ``x`` rounded, a float for a scalar ``x``, else an array of its shape.

    Raises
    ------
    ValueError
        If an entry of ``x`` is not a finite real number or ``precision`` is not an integer in ``[1, 53]``.

    Examples
    --------
    >>> round_to_precision([1.0 + 2**-10, 1.0 + 3 * 2**-11, 0.1], 10).tolist()
    [1.0, 1.001953125, 0.0999755859375]
    """
    p = check_integer("precision", precision, low=1, high=53)
    return _round(_real_array("x", x), p)


def _round(arr: np.ndarray, p: int):
    """round_to_precision without the validation, for the model's own (finite) intermediate results."""
    m, e = np.frexp(arr)
    out = np.ldexp(np.rint(np.ldexp(m, p)), e - p)
    return float(out) if out.ndim == 0 else out


def textbook_laplace_float(value, scale, u, precision=53):
    r"""The textbook floating-point Laplace sampler, given its uniform draws ``u``.

    numpy's ``Generator.laplace`` (used by :func:`dpnotes.mechanisms.laplace_mechanism`) draws a
    double :math:`U \in [0,1)` on the grid :math:`2^{-53}\mathbb Z` (redrawing 0) and returns
    ``scale*log(U+U)`` when :math:`U < 1/2` and ``-scale*log(2.0-U-U)`` otherwise: the textbook
    :math:`b\,S \log V` with a sign :math:`S` and :math:`V` uniform on a grid. The book's
    mechanism then adds ``value``. At ``precision = 53`` this function repeats these
    operations, so with ``b = 1 / epsilon``, ``textbook_laplace_float(v, b, rng.random(n))``
    equals ``laplace_mechanism(v, epsilon, rng')`` bit for bit for the same seed; with ``precision`` ``p``
    in ``[2, 26]`` every intermediate result is rounded to ``p`` bits
    (:func:`round_to_precision`) and ``u`` on the grid :math:`2^{-p}\mathbb Z`; the
    model is exact except that the log is computed in double and then rounded (see
    :func:`textbook_laplace_law`, which checks that no such double rounding matters). This is the
    sampler whose floating-point outputs :cite:`mironov2012significance` showed to leak the input.

    Parameters
    ----------
    value : float
        The query answer :math:`f(D)`.
    scale : float
        :math:`b > 0`.
    u : float or array_like
        Uniform draws in :math:`(0, 1)` on the grid :math:`2^{-p}\mathbb Z` (``rng.random()`` at ``p = 53``).
    precision : int
        53 (doubles) or 2..26 (the reduced-precision model).

    Returns
    -------
    float or numpy.ndarray
        The outputs, a float for a scalar ``u``, else an array of its shape.

    Raises
    ------
    ValueError
        If ``value`` is not finite, ``scale`` is not ``> 0``, ``precision`` is not 53 or in
        ``[2, 26]``, or an entry of ``u`` is not in :math:`(0, 1)` on the grid :math:`2^{-p}\mathbb Z`.

    Examples
    --------
    >>> textbook_laplace_float(0.0, 1.0, [0.25, 0.75]).tolist() == [-math.log(2), math.log(2)]
    True
    """
    p = _precision(precision)
    value = check_real("value", value)
    scale = check_positive("scale", scale)
    u = _real_array("u", u, finite=False)          # nan and inf: outside (0, 1), refused below
    scalar = u.ndim == 0
    u = np.atleast_1d(u)
    if np.any(~(u > 0)) or np.any(~(u < 1)):
        raise ValueError("u must lie in (0, 1) (numpy redraws U = 0)")
    if np.any(np.ldexp(u, p) != np.round(np.ldexp(u, p))):
        raise ValueError(f"u must lie on the grid of multiples of 2**-{p} (precision {p}), as numpy's draws do")
    out, _ = _textbook(value, scale, u, p)
    return float(out[0]) if scalar else out


def _textbook(value: float, scale: float, u: np.ndarray, p: int):
    """The sampler's outputs on draws ``u`` (validated), and the double logs it rounded."""
    rnd = (lambda z: z) if p == 53 else (lambda z: _round(np.asarray(z, dtype=float), p))
    b, f = rnd(scale), rnd(value)
    low = u < 0.5
    ul, uh = u[low], u[~low]
    logs = np.empty_like(u)
    logs[low] = _log(ul + ul)
    logs[~low] = _log(rnd(rnd(2.0 - uh) - uh))
    noise = rnd(b * rnd(logs))
    noise[~low] = -noise[~low]
    return rnd(f + noise), logs


def _near_midpoint(x, p: int) -> np.ndarray:
    """Whether each double lies within 4 of its units in the last place of a midpoint
    between consecutive ``p``-bit numbers: there, rounding the double to ``p`` bits could
    differ from rounding the exact value it approximates."""
    m, _ = np.frexp(np.asarray(x, dtype=float))
    dist = np.abs(np.ldexp(m, p + 1) % 2 - 1)    # 0 at a midpoint, 1 at a p-bit number
    return dist < 2.0 ** (p + 3 - 53)            # a double's unit is 2**(p + 1 - 53) here


def textbook_laplace_can_output(y, value, scale, precision=53, search=8):
    r"""Whether the textbook sampler (:func:`textbook_laplace_float`) can output ``y`` on input ``value``.

    An output below ``value`` (as the sampler rounds it, to ``precision`` bits) comes from the branch
    :math:`U < 1/2` and one above from the other (equality: either). Inverting the branch in floating point gives an estimate of :math:`U`;
    every grid point within ``search`` steps of it is tried. The exact preimage of ``y`` differs
    from the estimate by less than one grid step plus a few units in the last place of the
    inverse, so ``search = 8`` is generous; the tests compare this function with an exhaustive
    enumeration (:func:`textbook_laplace_law`). An output possible on one input and impossible on
    a neighbour is the attack of :cite:`mironov2012significance`.

    Parameters
    ----------
    y : float or array_like
        Candidate outputs, finite; vectorized.
    value : float
        The input :math:`f(D)`.
    scale : float
        :math:`b > 0`.
    precision : int
        53 (doubles) or 2..26 (the reduced-precision model of :func:`textbook_laplace_float`).
    search : int
        In ``[0, 10**4]``: grid points tried on each side of the inverted estimate (each a
        Python evaluation of the sampler, about 30 microseconds: under a second at the cap).

    Returns
    -------
    bool or numpy.ndarray of bool
        Whether each ``y`` is an output of some uniform draw, a bool for a scalar ``y``.

    Raises
    ------
    ValueError
        If an entry of ``y`` or ``value`` is not finite, ``scale`` is not ``> 0``, ``precision``
        is not 53 or in ``[2, 26]``, or ``search`` is not an integer in ``[0, 10**4]``.

    Examples
    --------
    >>> y = textbook_laplace_float(0.0, 1 / 0.3, 0.3125)
    >>> bool(textbook_laplace_can_output(y, 0.0, 1 / 0.3)), bool(textbook_laplace_can_output(y, 1.0, 1 / 0.3))
    (True, False)
    """
    p = _precision(precision)
    f = check_real("value", value)
    scale = check_positive("scale", scale)
    search = check_integer("search", search, low=0, high=10**4)
    y = _real_array("y", y)
    scalar = y.ndim == 0
    y = np.atleast_1d(y)
    grid = 2.0**p
    ok = np.zeros(y.shape, dtype=bool)
    # The sampler adds noise to value and multiplies by scale as rounded to p bits: the branches split at the
    # rounded value (rounding f + noise is monotone and f is a p-bit number), not at value itself. Split at the
    # latter, an output of the upper branch between the two was never tried (value 1 + 2**-12 at precision 8,
    # scale 1: the output 1.0, of probability 2/255, was reported impossible).
    fr, br = (f, scale) if p == 53 else (float(_round(np.asarray(f, dtype=float), p)),
                                         float(_round(np.asarray(scale, dtype=float), p)))
    z = y - fr
    for branch_low, sel in ((True, z <= 0), (False, z >= 0)):
        yy = y[sel]
        if not yy.size:
            continue
        if branch_low:      # y = f + b log(2U): U = exp((y - f)/b) / 2 in (0, 1/2)
            est = np.exp((yy - fr) / br) / 2
            kmin, kmax = 1, 2 ** (p - 1) - 1
        else:               # y = f - b log(2 - 2U): U = 1 - exp(-(y - f)/b) / 2 in [1/2, 1)
            est = 1 - np.exp(-(yy - fr) / br) / 2
            kmin, kmax = 2 ** (p - 1), 2**p - 1
        k0 = np.round(est * grid).astype(np.int64)
        hit = np.zeros(yy.shape, dtype=bool)
        for d in range(-search, search + 1):
            k = np.clip(k0 + d, kmin, kmax)
            hit |= textbook_laplace_float(f, scale, k / grid, precision=p) == yy
        ok[sel] |= hit
    return bool(ok[0]) if scalar else ok


def textbook_laplace_law(value, scale, precision):
    r"""Exact output law of the textbook sampler in the ``precision``-bit model, by enumeration.

    :math:`U` is uniform on the :math:`2^p - 1` grid points :math:`k 2^{-p}`, :math:`0 < k < 2^p`;
    every one is run through :func:`textbook_laplace_float`. Returns the distinct outputs
    (sorted) and their probabilities. Raises :class:`RuntimeError` if a log computed in double
    lies so close to a rounding boundary of the ``p``-bit format that double rounding could
    differ from correct rounding (it never happened for the parameters of the book).

    The model makes :cite:`mironov2012significance`'s observation countable: the law's support
    depends on ``value``, so two inputs have outputs only one of them can produce.

    Parameters
    ----------
    value : float
        The input :math:`f(D)`, finite.
    scale : float
        :math:`b > 0`.
    precision : int
        In ``[2, 24]`` (the enumeration has :math:`2^p` points).

    Returns
    -------
    ys : numpy.ndarray
        The distinct outputs, sorted.
    probs : numpy.ndarray
        Their probabilities (multiples of :math:`1/(2^p - 1)`), summing to 1.

    Raises
    ------
    ValueError
        If ``value`` is not finite, ``scale`` is not ``> 0`` or ``precision`` is not an integer in ``[2, 24]``.
    RuntimeError
        If double rounding of a log could matter (see above).

    Examples
    --------
    >>> ys, probs = textbook_laplace_law(0.0, 2.0, precision=4)
    >>> len(ys), bool(abs(probs.sum() - 1) < 1e-15)
    (15, True)
    """
    p = check_integer("precision", precision, low=2, high=24)
    f = check_real("value", value)
    scale = check_positive("scale", scale)
    n = 2**p - 1
    out, logs = _textbook(f, scale, np.arange(1, n + 1) / 2.0**p, p)
    if np.any(_near_midpoint(logs, p)):      # double rounding of the log could matter
        raise RuntimeError("a log lies too close to a rounding boundary of the model; use another precision")
    ys, counts = np.unique(out, return_counts=True)
    return ys, counts / n


# ---------------------------------------------------------------- floating point: snapping
def _snap_parameters(scale, bound, precision):
    lam = check_positive("scale", scale)
    bound = check_positive("bound", bound)
    p = _precision(precision)
    if not lam < bound < 2.0 ** (p - 7) * lam:
        raise ValueError(f"bound must be in (scale, 2**{p - 7} * scale) = ({lam!r}, {2.0 ** (p - 7) * lam!r}), got {bound!r}")
    return lam, bound, p


def snapping_epsilon(scale, bound, precision=53):
    r"""Privacy guarantee of the snapping mechanism for a sensitivity-1 query.

    :cite:`mironov2012significance` Theorem 1 shows that in double precision the snapping
    mechanism with noise scale :math:`\lambda` and clamp :math:`B`,
    :math:`\lambda < B < 2^{46}\lambda`, is :math:`(1/\lambda + 2^{-49}B/\lambda)`-DP. Its proof uses
    the precision only through the unit roundoff :math:`\eta`; written with :math:`\eta = 2^{-p}`
    the bound is :math:`(1 + 12B\eta)/\lambda + 2\eta` (below Mironov's for doubles), the form
    this function returns and the book checks on the :math:`p`-bit model (:func:`snapping_law`).

    Parameters
    ----------
    scale : float
        :math:`\lambda > 0`.
    bound : float
        :math:`B`, with :math:`\lambda < B < 2^{p-7}\lambda`.
    precision : int
        :math:`p`: 53 (doubles) or an integer in ``[2, 26]``.

    Returns
    -------
    float
        The :math:`\varepsilon` of the guarantee.

    Raises
    ------
    ValueError
        If ``scale`` or ``bound`` is not ``> 0``, ``bound`` is outside :math:`(\lambda, 2^{p-7}\lambda)`,
        or ``precision`` is not 53 or in ``[2, 26]``.

    Examples
    --------
    >>> snapping_epsilon(2.5, 40.0, precision=12) == (1 + 12 * 40 / 4096) / 2.5 + 2 / 4096
    True
    """
    lam, bound, p = _snap_parameters(scale, bound, precision)
    eta = 2.0**-p
    return (1 + 12 * bound * eta) / lam + 2 * eta


def _snap(value, lam, bound, sign, ustar, p):
    """clamp_B(round_Lambda(clamp_B(value) + sign * lam * log(U*))), each operation rounded to p bits."""
    rnd = (lambda z: z) if p == 53 else (lambda z: _round(np.asarray(z, dtype=float), p))
    big_lambda = 2.0 ** math.ceil(math.log2(lam))      # smallest power of two >= lambda
    f = rnd(min(max(value, -bound), bound))
    noise = rnd(rnd(lam) * rnd(_log(ustar)))
    z = rnd(f + sign * noise)
    snapped = np.floor(z / big_lambda + 0.5) * big_lambda   # nearest multiple, ties up: exact
    return np.clip(snapped, -bound, bound)


def full_precision_uniform(rng, size=None):
    r"""A uniform real in :math:`(0, 1)` rounded down to a double: the :math:`U^*` of the snapping mechanism.

    Every double :math:`x \in (0, 1)` has probability equal to its gap to the next double, so the
    binade :math:`[2^{-1-g}, 2^{-g})` has probability :math:`2^{-1-g}` and, inside it, all
    :math:`2^{52}` doubles are equally likely. ``rng.random()`` is *not* this: it returns only the
    multiples of :math:`2^{-53}`, which miss half of the doubles in :math:`[1/4, 1/2)`, three
    quarters of those in :math:`[1/8, 1/4)`, and so on, and never returns a value below
    :math:`2^{-53}` other than 0. Mironov's proof of the snapping mechanism
    (:cite:`mironov2012significance`) needs the full-precision law. The draws:
    ``G = rng.geometric(0.5, n) - 1`` leading zero bits, then ``M = rng.integers(0, 2**52, n)``, and
    :math:`U^* = (1 + M\,2^{-52})\,2^{-1-G}`. (For :math:`G \ge 1022`, probability :math:`2^{-1022}`, the
    value falls below the normal range and is rounded by ``ldexp``.)

    Parameters
    ----------
    rng : numpy.random.Generator
        The generator of the draws.
    size : int, optional
        Number of draws, in ``[1, 10**8]`` (arrays of that many numbers are built: 800 MB
        each at the cap; default: one, returned as a float).

    Returns
    -------
    float or numpy.ndarray
        The draws, in :math:`(0, 1)`.

    Raises
    ------
    ValueError
        If ``rng`` is not a :class:`numpy.random.Generator` or ``size`` is not an integer in
        ``[1, 10**8]``.

    Examples
    --------
    >>> u = full_precision_uniform(np.random.default_rng(0), size=100_000)
    >>> bool(np.all((u > 0) & (u < 1)))
    True
    >>> off_grid = np.mean(u * 2.0**53 != np.floor(u * 2.0**53))     # not a multiple of 2^-53: about 1/3
    >>> bool(0.3 < off_grid < 0.37)
    True
    """
    from ._validate import check_rng

    rng = check_rng("rng", rng)
    n = 1 if size is None else check_integer("size", size, low=1, high=MAX_ENTRIES)
    g = rng.geometric(0.5, size=n) - 1
    mantissa = rng.integers(0, 2**52, size=n)
    out = np.ldexp(1.0 + mantissa * 2.0**-52, -1 - g)
    return float(out[0]) if size is None else out


def snapping_mechanism(value, scale, bound, rng, size=None):
    r"""Mironov's snapping mechanism in double precision (:cite:`mironov2012significance` §5.2).

    :math:`\mathrm{clamp}_B\big(\lfloor \mathrm{clamp}_B(f(D)) \oplus S \otimes \lambda \otimes
    \mathrm{LN}(U^*) \rceil_\Lambda\big)`: clamp the input to :math:`[-B, B]`, add Laplace noise of
    scale :math:`\lambda` computed in floating point from a *full-precision* uniform :math:`U^*`
    (every double in :math:`(0,1)` with probability equal to its distance to the next double, as a
    uniform real rounded down), round to the nearest multiple of :math:`\Lambda`, the smallest power
    of two :math:`\ge \lambda` (ties up), and clamp again. Guarantee: :func:`snapping_epsilon`.
    The draws: ``U* = full_precision_uniform(rng, n)``, then ``rng.integers(0, 2, n)`` for the signs
    (1: plus); the logarithm is the C library's (``math.log``).

    Parameters
    ----------
    value : float
        :math:`f(D)`, of sensitivity 1.
    scale : float
        :math:`\lambda > 0` (:math:`1/\varepsilon` for sensitivity 1).
    bound : float
        :math:`B`, with :math:`\lambda < B < 2^{46}\lambda`.
    rng : numpy.random.Generator
        The generator of the draws.
    size : int, optional
        Number of independent releases, in ``[1, 10**8]`` (arrays of that many numbers are
        built: 800 MB each at the cap; default: one, returned as a float).

    Returns
    -------
    float or numpy.ndarray
        The releases: multiples of :math:`\Lambda` in :math:`[-B, B]`.

    Raises
    ------
    ValueError
        If ``value`` is not finite, ``scale`` or ``bound`` is out of range (as
        :func:`snapping_epsilon` at ``precision = 53``), ``rng`` is not a
        :class:`numpy.random.Generator` or ``size`` is not an integer in ``[1, 10**8]``.

    Examples
    --------
    >>> out = snapping_mechanism(3.3, 2.5, 40.0, np.random.default_rng(0), size=1000)
    >>> bool(np.all(out % 4 == 0)), bool(np.all(np.abs(out) <= 40))
    (True, True)
    """
    from ._validate import check_rng

    value = check_real("value", value)
    lam, bound, _ = _snap_parameters(scale, bound, 53)
    rng = check_rng("rng", rng)
    n = 1 if size is None else check_integer("size", size, low=1, high=MAX_ENTRIES)
    ustar = full_precision_uniform(rng, n)
    sign = np.where(rng.integers(0, 2, size=n) == 1, 1.0, -1.0)
    out = _snap(value, lam, bound, sign, ustar, 53)
    return float(out[0]) if size is None else out


def snapping_law(value, scale, bound, precision):
    r"""Exact output law of the snapping mechanism in the ``precision``-bit model, by enumeration.

    :math:`U^*` takes each ``p``-bit number :math:`x \in [2^{-E}, 1)` with probability equal to
    its gap to the next one (:math:`2^{e+1-p}` in the binade :math:`[2^e, 2^{e+1})`), and values
    below :math:`2^{-E}` (total probability :math:`2^{-E}`) give noise beyond :math:`\pm 2B`,
    clamped to :math:`\mp B` whatever the input; :math:`E` is chosen so that
    :math:`\lambda E \log 2 \ge 2B + \Lambda + 1`. Both signs are enumerated. Probabilities are
    accumulated as exact (Python) integers and returned as floats, with the sorted distinct outputs.

    The law on which the book checks :func:`snapping_epsilon` (:cite:`mironov2012significance`
    Theorem 1, with the unit roundoff of ``precision`` bits).

    Parameters
    ----------
    value : float
        The input :math:`f(D)`, finite.
    scale : float
        :math:`\lambda > 0`.
    bound : float
        :math:`B`, with :math:`\lambda < B < 2^{p-7}\lambda`.
    precision : int
        In ``[8, 16]``.

    Returns
    -------
    ys : numpy.ndarray
        The distinct outputs, sorted.
    probs : numpy.ndarray
        Their probabilities, summing to 1 (exact fractions rounded to floats).

    Raises
    ------
    ValueError
        If ``value`` is not finite, ``scale`` or ``bound`` is out of range (as :func:`snapping_epsilon`),
        or ``precision`` is not an integer in ``[8, 16]``.

    Examples
    --------
    >>> ys, probs = snapping_law(0.0, 2.5, 40.0, precision=12)
    >>> float(ys.min()), float(ys.max()), len(ys), bool(abs(probs.sum() - 1) < 1e-15)
    (-40.0, 40.0, 21, True)
    """
    value = check_real("value", value)
    lam, bound, p = _snap_parameters(scale, bound, precision)
    check_integer("precision", p, low=8, high=16)
    big_lambda = 2.0 ** math.ceil(math.log2(lam))
    e_min = math.ceil((2 * bound + big_lambda + 1) / (lam * math.log(2))) + 1
    j = np.arange(2 ** (p - 1), dtype=float)
    xs, ws = [], []
    for e in range(-1, -e_min - 1, -1):
        xs.append(np.ldexp(1.0 + j * 2.0 ** (1 - p), e))
        ws.append(np.full(j.size, 2 ** (e + e_min), dtype=object))   # gap 2^(e+1-p), scaled
    x, w = np.concatenate(xs), np.concatenate(ws)
    outs, weights = [], []
    for sign in (1.0, -1.0):
        outs.append(_snap(value, lam, bound, sign, x, p))
        weights.append(w)
        outs.append(np.array([-bound * sign]))                       # U* < 2^-E: clamped
        weights.append(np.array([2 ** (p - 1)], dtype=object))
    out, wt = np.concatenate(outs), np.concatenate(weights)
    order = np.argsort(out, kind="stable")
    out, wt = out[order], wt[order]
    starts = np.flatnonzero(np.r_[True, out[1:] != out[:-1]])
    counts = np.add.reduceat(wt, starts)
    total = 2 * 2 ** (e_min + p - 1)
    assert sum(counts) == total                      # Python integers: exact
    return out[starts], np.array([Fraction(c, total) for c in counts], dtype=float)
