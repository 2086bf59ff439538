"""Input validation shared by every public function of :mod:`dpnotes`.

Each checker returns the validated value (converted to a plain ``float``,
``int`` or ``numpy`` array) or raises :class:`ValueError` with a message that
names the parameter, states the allowed range and shows the value received.
Keeping the wording in one place keeps every error message of the book alike.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "check_real",
    "check_positive",
    "check_nonnegative",
    "check_in_range",
    "check_probability",
    "check_delta",
    "check_integer",
    "check_array",
    "check_distribution",
    "check_distribution_pair",
    "check_rng",
]


def _real(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must be a real number, got nan")
    return value


def check_real(name: str, value, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float; reject non-numbers, nan and (unless allowed) infinities."""
    value = _real(name, value)
    if not allow_inf and math.isinf(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def check_in_range(
    name: str,
    value,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> float:
    """Return ``value`` as a float if it lies in the interval between ``low`` and ``high``.

    >>> check_in_range("delta", 0.5, 0, 1, high_inclusive=False)
    0.5
    >>> check_in_range("delta", 1, 0, 1, high_inclusive=False)
    Traceback (most recent call last):
    ...
    ValueError: delta must be in [0, 1), got 1
    """
    # fast path, same result: a plain float strictly inside (low, high) is finite (an infinite bound
    # is never exceeded), not nan (nan fails both comparisons), and float(value) is value itself
    if type(value) is float and low < value < high:
        return value
    value = check_real(name, value, allow_inf=math.isinf(high) or math.isinf(low))
    ok_low = value >= low if low_inclusive else value > low
    ok_high = value <= high if high_inclusive else value < high
    if not (ok_low and ok_high):
        if math.isinf(high) and not math.isinf(low):
            rule = f"{'>=' if low_inclusive else '>'} {_fmt(low)}"
        elif math.isinf(low) and not math.isinf(high):
            rule = f"{'<=' if high_inclusive else '<'} {_fmt(high)}"
        else:
            rule = (
                f"in {'[' if low_inclusive else '('}{_fmt(low)}, "
                f"{_fmt(high)}{']' if high_inclusive else ')'}"
            )
        raise ValueError(f"{name} must be {rule}, got {_fmt(value)}")
    if math.isinf(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


# The most entries one call may put in an array a caller sizes: 10**8 floats take 800 MB. A larger
# size is refused by name (check_integer(..., high=MAX_ENTRIES)) instead of exhausting the memory.
MAX_ENTRIES = 10**8


def _fmt(x: float) -> str:
    """A whole number as one (3, not 3.0) while it has at most 16 digits; past that as a float
    (1e+300, not the 301 digits of its exact value)."""
    return str(int(x)) if float(x).is_integer() and abs(float(x)) < 1e16 else repr(float(x))


def check_positive(name: str, value) -> float:
    """Return ``value`` as a float if it is finite and ``> 0``.

    >>> check_positive("epsilon", -1)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be > 0, got -1
    """
    return check_in_range(name, value, 0.0, math.inf, low_inclusive=False)


def check_nonnegative(name: str, value) -> float:
    """Return ``value`` as a float if it is finite and ``>= 0``."""
    return check_in_range(name, value, 0.0, math.inf)


def check_probability(name: str, value) -> float:
    """Return ``value`` as a float if it lies in ``[0, 1]``."""
    return check_in_range(name, value, 0.0, 1.0)


def check_delta(name: str, value) -> float:
    """Return ``value`` as a float if it lies in ``[0, 1)``, the range of the DP parameter delta."""
    return check_in_range(name, value, 0.0, 1.0, high_inclusive=False)


def check_integer(name: str, value, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer (``3`` or ``3.0``) within ``[low, high]``.

    >>> check_integer("k", 2.5, low=1)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 1, got 2.5
    """
    rule = "an integer"
    if low is not None and high is not None:
        rule += f" in [{low}, {high}]"
    elif low is not None:
        rule += f" >= {low}"
    elif high is not None:
        rule += f" <= {high}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be {rule}, got {value!r}")
    if isinstance(value, numbers.Integral):
        ivalue = int(value)
    else:
        fvalue = float(value)
        if not math.isfinite(fvalue) or not fvalue.is_integer():
            raise ValueError(f"{name} must be {rule}, got {value!r}")
        ivalue = int(fvalue)
    if (low is not None and ivalue < low) or (high is not None and ivalue > high):
        raise ValueError(f"{name} must be {rule}, got {ivalue}")
    return ivalue


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _as_float_array(name: str, value) -> np.ndarray:
    """``value`` as a float array, or a ValueError naming ``name`` (numpy's own error names nothing).

    Refuses what numpy would convert silently or wrongly: ``None``, a bool *scalar* (bools inside
    an array are 0/1 data and are kept), strings and complex numbers (numpy drops the imaginary part).
    """
    rule = f"{name} must be a real number or an array of real numbers"
    if value is None or isinstance(value, (bool, np.bool_, str, bytes)):
        raise ValueError(f"{rule}, got {_short(value)}")
    try:
        raw = np.asarray(value)
        if raw.dtype.kind not in "biuf":          # object arrays (Fractions, None, str) convert one by one below
            if raw.dtype.kind != "O":
                raise TypeError
            if any(isinstance(v, (str, bytes, complex, np.complexfloating)) or v is None for v in raw.flat):
                raise TypeError
        return raw.astype(float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{rule}, got {_short(value)}") from None


def check_array(
    name: str,
    value,
    *,
    ndim: int | tuple[int, ...] | None = None,
    low: float = -math.inf,
    high: float = math.inf,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    allow_inf: bool = False,
    allow_nan: bool = False,
    allow_empty: bool = False,
    integer: bool = False,
) -> np.ndarray:
    """Return ``value`` as a float array (int64 with ``integer=True``) after checking every entry.

    Parameters
    ----------
    name : str
        The parameter's name, used in every message.
    value : array_like
        A real number or a (nested) sequence or array of them. Refused: ``None``, a bool scalar,
        strings, complex numbers, ragged nesting.
    ndim : int or tuple of int, optional
        The allowed number(s) of dimensions (``0`` for a scalar).
    low, high, low_inclusive, high_inclusive : float, bool
        The interval every entry must lie in.
    allow_inf, allow_nan : bool
        Accept ``inf`` and ``-inf`` entries, ``nan`` entries (for a caller that checks them
        itself, with a message of its own).
    allow_empty : bool
        Accept an array with no entries.
    integer : bool
        Entries must be integers (``3`` or ``3.0``); the result is an int64 array.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ValueError
        Naming the parameter, the rule broken and the value (or the first bad entry).

    Examples
    --------
    >>> check_array("epsilon", [0.5, 2], low=0).tolist()
    [0.5, 2.0]
    >>> check_array("alpha", [0.5, 1.5], low=0, high=1)
    Traceback (most recent call last):
    ...
    ValueError: alpha must have entries in [0, 1], got 1.5
    >>> check_array("answers", "a")
    Traceback (most recent call last):
    ...
    ValueError: answers must be a real number or an array of real numbers, got 'a'
    """
    arr = _as_float_array(name, value)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            what = " or ".join("a scalar" if d == 0 else f"a {d}-D array" for d in allowed)
            raise ValueError(f"{name} must be {what}, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    bad = np.zeros(arr.shape, dtype=bool) if allow_nan else np.isnan(arr)
    if not allow_inf:
        bad |= np.isinf(arr)
    if bad.any():
        raise ValueError(f"{name} must have {'entries that are not nan' if allow_inf else 'finite entries'}, "
                         f"got {float(arr[bad].flat[0])!r}")
    ok_low = arr >= low if low_inclusive else arr > low
    ok_high = arr <= high if high_inclusive else arr < high
    out = ~(ok_low & ok_high) & ~np.isnan(arr)
    if out.any():
        if math.isinf(high):
            rule = f"{'>=' if low_inclusive else '>'} {_fmt(low)}"
        elif math.isinf(low):
            rule = f"{'<=' if high_inclusive else '<'} {_fmt(high)}"
        else:
            rule = (f"in {'[' if low_inclusive else '('}{_fmt(low)}, "
                    f"{_fmt(high)}{']' if high_inclusive else ')'}")
        raise ValueError(f"{name} must have entries {rule}, got {_fmt(float(arr[out].flat[0]))}")
    if integer:
        frac = arr != np.floor(arr)
        if frac.any():
            raise ValueError(f"{name} must have integer entries, got {float(arr[frac].flat[0])!r}")
        return arr.astype(np.int64)
    return arr


def check_distribution(name: str, p, *, atol: float = 1e-9) -> np.ndarray:
    """Return ``p`` as a 1-D float array if it is a probability vector.

    Entries must be finite and non-negative and sum to 1 within ``atol``.

    >>> check_distribution("p", [0.5, 0.6])
    Traceback (most recent call last):
    ...
    ValueError: p must sum to 1, got sum 1.1
    """
    arr = _as_float_array(name, p)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D probability vector, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must have finite entries, got {arr.tolist()}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must have entries >= 0, got min {float(arr.min())!r}")
    total = float(arr.sum())
    if abs(total - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1, got sum {total:.6g}")
    return arr


def check_distribution_pair(p, q, *, atol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(p, q)`` as float arrays if both are probability vectors over the same outcomes.

    >>> check_distribution_pair([0.5, 0.5], [1.0])
    Traceback (most recent call last):
    ...
    ValueError: p and q must have the same length, got 2 and 1
    """
    p = check_distribution("p", p, atol=atol)
    q = check_distribution("q", q, atol=atol)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    return p, q


def check_rng(name: str, rng) -> np.random.Generator:
    """Return ``rng`` if it is a :class:`numpy.random.Generator`.

    Global-state generators and integer seeds are refused on purpose: a caller
    passes ``numpy.random.default_rng(seed)`` so every draw in the book is seeded
    in one visible place.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"{name} must be a numpy.random.Generator (use numpy.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng
