r"""Exact privacy of mechanisms with finitely many inputs and outputs, by enumeration.

A mechanism on a finite set of data sets with finitely many outputs is a table
``table[i, j] = Pr[M(x_i) = y_j]``. Its exact :math:`\varepsilon` over a set of pairs
of data sets is the largest max divergence between two rows of a pair
(:func:`dpnotes.divergences.pure_epsilon`), because for discrete laws the supremum
over events is attained at a single outcome. Enumeration is the book's
reference computation: slow, but independent of any theorem.
"""

from __future__ import annotations

import numpy as np

from ._validate import check_array, check_integer

__all__ = ["binary_datasets", "pairs_at_distance", "epsilon_over_pairs", "epsilon_by_distance"]

_MAX_RECORDS = 16


def binary_datasets(n) -> np.ndarray:
    """All ``2**n`` data sets of ``n`` binary records, one per row (row ``i`` is the binary expansion of ``i``).

    Parameters
    ----------
    n : int
        Number of records, in ``[1, 16]``.

    Returns
    -------
    ndarray of int8, shape (2**n, n)
        Bit ``j`` of ``i`` (least significant first) in column ``j``.

    Raises
    ------
    ValueError
        If ``n`` is not an integer in ``[1, 16]``.

    Examples
    --------
    >>> binary_datasets(2).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    """
    n = check_integer("n", n, low=1, high=_MAX_RECORDS)
    return ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.int8)


def pairs_at_distance(datasets, k) -> np.ndarray:
    """Index pairs ``(i, j)``, ``i < j``, of rows of ``datasets`` that differ in exactly ``k`` records.

    ``k = 1`` gives the neighbouring pairs of the replace-one relation. ``datasets`` is a 2-D
    array of finite numbers, one data set per row and one record (encoded as a number, as by
    :func:`binary_datasets`) per column; ``k`` is an integer in ``[1, n_records]``.

    Parameters
    ----------
    datasets : array_like
        Non-empty 2-D array of finite numbers, one data set per row.
    k : int
        The distance, in ``[1, n_records]``.

    Returns
    -------
    ndarray of shape (m, 2)
        The pairs, in increasing order of ``i`` then ``j``; ``m`` may be 0.

    Raises
    ------
    ValueError
        If ``datasets`` is not a non-empty 2-D array of finite numbers or ``k`` is out of range.

    Examples
    --------
    >>> pairs_at_distance(binary_datasets(2), 2).tolist()
    [[0, 3], [1, 2]]
    """
    d = _datasets(datasets)
    k = check_integer("k", k, low=1, high=d.shape[1])
    dist = (d[:, None, :] != d[None, :, :]).sum(axis=-1)
    i, j = np.nonzero(np.triu(dist == k, 1))
    return np.column_stack([i, j])


def _datasets(datasets) -> np.ndarray:
    # records are compared for equality: nan (never equal to itself) or inf would corrupt the distances
    d = check_array("datasets", datasets, allow_nan=True, allow_inf=True, allow_empty=True)
    if d.ndim != 2:
        raise ValueError(f"datasets must be a 2-D array (one data set per row), got shape {d.shape}")
    if d.size == 0:
        raise ValueError(f"datasets must not be empty, got shape {d.shape}")
    return check_array("datasets", d)


def _table(table) -> np.ndarray:
    t = check_array("table", table, allow_nan=True, allow_inf=True, allow_empty=True)
    if t.ndim != 2:
        raise ValueError(f"table must be 2-D (data sets x outputs), got shape {t.shape}")
    if t.size == 0:
        raise ValueError(f"table must not be empty, got shape {t.shape}")
    if not np.all(np.isfinite(t)) or np.any(t < 0) or not np.allclose(t.sum(axis=1), 1.0, rtol=0.0, atol=1e-9):
        raise ValueError("table must have non-negative rows that each sum to 1")
    return t


def epsilon_over_pairs(table, pairs) -> float:
    r"""Exact :math:`\varepsilon`: the largest :math:`|\log(P[M(x_i)=y]/P[M(x_j)=y])|` over the given pairs and all outputs.

    Returns ``inf`` if some output is possible on one data set of a pair and impossible on the other.

    Parameters
    ----------
    table : array_like
        ``table[i, j] = Pr[M(x_i) = y_j]``: non-negative rows that each sum to 1 (within ``1e-9``).
    pairs : array_like of int
        At least one pair ``(i, j)`` of row indices, shape ``(m, 2)`` (or a single pair).

    Returns
    -------
    float
        The exact epsilon over the pairs, in ``[0, inf]``.

    Raises
    ------
    ValueError
        If ``table`` is not a table of probability rows, or ``pairs`` is empty, not of shape
        ``(m, 2)`` or indexes a row that does not exist.

    Examples
    --------
    >>> import math
    >>> t = [[0.75, 0.25], [0.25, 0.75]]
    >>> round(epsilon_over_pairs(t, [(0, 1)]), 12) == round(math.log(3), 12)
    True
    """
    t = _table(table)
    p = check_array("pairs", pairs, integer=True, allow_empty=True)
    if p.size == 0:
        raise ValueError("pairs must contain at least one pair")
    if p.shape[-1:] != (2,) or p.ndim > 2:
        raise ValueError(f"pairs must be index pairs (i, j), shape (m, 2), got shape {p.shape}")
    p = p.reshape(-1, 2)
    if p.min() < 0 or p.max() >= t.shape[0]:
        raise ValueError(f"pairs must index rows 0..{t.shape[0] - 1} of table")
    a, b = t[p[:, 0]], t[p[:, 1]]
    if np.any((a > 0) != (b > 0)):
        return float("inf")
    both = (a > 0) & (b > 0)
    ratio = np.abs(np.log(np.where(both, a, 1.0)) - np.log(np.where(both, b, 1.0)))
    return float(ratio.max())


def epsilon_by_distance(table, datasets) -> np.ndarray:
    r"""Exact :math:`\varepsilon_k` for every distance ``k = 1, ..., n``: the largest log-ratio over pairs at distance ``k``.

    Group privacy (:prf:ref:`thm-group-privacy`) says :math:`\varepsilon_k \le k\,\varepsilon_1`.

    Parameters
    ----------
    table : array_like
        ``table[i, j] = Pr[M(x_i) = y_j]``, one row per row of ``datasets``.
    datasets : array_like
        The data sets, one per row, as for :func:`pairs_at_distance`.

    Returns
    -------
    ndarray of shape (n_records,)
        :math:`\varepsilon_1, \dots, \varepsilon_n`.

    Raises
    ------
    ValueError
        If ``table`` or ``datasets`` is malformed, their numbers of rows differ, or no pair of
        data sets lies at some distance ``k``.

    Examples
    --------
    >>> from dpnotes.mechanisms import randomized_response_log_pmf
    >>> import math
    >>> d = binary_datasets(2)
    >>> table = np.exp([randomized_response_log_pmf(d, x, math.log(3)) for x in d])
    >>> (epsilon_by_distance(table, d) / math.log(3)).round(12).tolist()
    [1.0, 2.0]
    """
    d = _datasets(datasets)
    t = _table(table)
    if d.shape[0] != t.shape[0]:
        raise ValueError(f"datasets must have one row per row of table ({t.shape[0]}), got shape {d.shape}")
    return np.array([epsilon_over_pairs(t, pairs_at_distance(d, k)) for k in range(1, d.shape[1] + 1)])
