r"""Testing privacy claims: lower bounds on epsilon from what a mechanism releases.

An auditor runs a mechanism :math:`M` many times on two neighbouring inputs :math:`x`
and :math:`x'` and applies a test: a set :math:`S` of outputs on which it says
":math:`x'`". Its error rates are

* false positive rate :math:`p = \Pr[M(x) \in S]` (runs on :math:`x` called :math:`x'`);
* false negative rate :math:`q = \Pr[M(x') \notin S]` (runs on :math:`x'` called :math:`x`).

If :math:`M` is :math:`(\varepsilon, \delta)`-DP, every test obeys
:math:`p + e^{\varepsilon} q \ge 1 - \delta` and :math:`q + e^{\varepsilon} p \ge 1 - \delta`
(the privacy region of the definition chapter; :cite:`kairouz2015composition` Theorem 2.1), so

.. math:: \varepsilon \ge \max\Bigl(\log\frac{1 - \delta - q}{p},\ \log\frac{1 - \delta - p}{q}\Bigr).

With counts instead of rates, one-sided Clopper--Pearson upper bounds :math:`\bar p, \bar q`
turn this into a lower bound that holds with a stated confidence
(:func:`epsilon_lower_bound`). :func:`audit_pair` runs the whole experiment on a black-box
mechanism: it chooses a test on one part of the runs and counts its errors on another, so
that the choice cannot inflate the bound. :func:`one_run_epsilon` and :func:`one_run_audit`
implement auditing in one run of the mechanism with many canaries
(:cite:`steinke2023privacy`).

An audit can show that a mechanism is *not* private (a lower bound above the claim); it
can never show that it is: it only ever sees the pairs and the tests it tried.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import numbers
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special, stats

from ._validate import MAX_ENTRIES, check_delta, check_in_range, check_integer, check_real, check_rng

try:        # optional: the logistic fit below runs on one BLAS thread when it is installed
    from threadpoolctl import threadpool_limits
except ImportError:     # the same fit, only slower on a busy machine
    threadpool_limits = None

__all__ = [
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "expected_lower_bound",
    "ThresholdTest",
    "AuditResult",
    "count_errors",
    "audit_test",
    "audit_pair",
    "one_run_p_value",
    "one_run_epsilon",
    "one_run_guesses",
    "OneRunResult",
    "one_run_audit",
    "simultaneous_error_bounds",
    "gdp_mu_from_errors",
    "gdp_mu_lower_bound",
    "gdp_epsilon_lower_bound",
    "tradeoff_epsilon_lower_bound",
    "nested_tests_exceedance",
]


# --------------------------------------------------------------------------- validation
def _count(name: str, value, total_name: str | None = None, total: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    fvalue = float(value)
    if not math.isfinite(fvalue) or not fvalue.is_integer():
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    ivalue = int(fvalue)
    if ivalue < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {ivalue}")
    if total is not None and ivalue > total:
        raise ValueError(f"{name} must be <= {total_name} = {total}, got {ivalue}")
    return ivalue


def _confidence(confidence) -> float:
    return check_in_range("confidence", confidence, 0.0, 1.0, low_inclusive=False, high_inclusive=False)


def _real_array(name: str, value, *, allow_inf: bool = False) -> np.ndarray:
    """``value`` (a number or an array_like of numbers) as a float array; bool, None, strings and
    nan are refused (``np.asarray(x, dtype=float)`` would turn them into 1.0, nan and 3.0: here
    their dtype, bool, object or str, says they are no numbers), and infinities unless allowed."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}")
    arr = arr.astype(float)
    if np.any(np.isnan(arr)) or (not allow_inf and np.any(np.isinf(arr))):
        raise ValueError(f"{name} must be {'a number (not nan)' if allow_inf else 'finite'}, got {value!r}")
    return arr


# --------------------------------------------------------------------------- Clopper-Pearson
def clopper_pearson_upper(k, n, alpha):
    r"""One-sided Clopper--Pearson upper confidence bound of a binomial proportion.

    For :math:`K \sim \mathrm{Binomial}(n, \pi)` the bound :math:`\bar\pi(K)` is the
    :math:`1 - \alpha` quantile of :math:`\mathrm{Beta}(K + 1, n - K)`, the :math:`\pi` at
    which :math:`\Pr[\mathrm{Binomial}(n, \pi) \le K] = \alpha`; it is ``1`` when ``K == n``.
    Then :math:`\Pr[\pi \le \bar\pi(K)] \ge 1 - \alpha` for every :math:`\pi`
    (:cite:`clopper1934use`). Computed with :func:`scipy.stats.beta`.

    Parameters
    ----------
    k, n : int or array_like
        Observed count(s) and number(s) of trials, ``0 <= k <= n``, ``n >= 1``.
        Non-integer values are accepted (used only to plan an audit from expected counts).
    alpha : float
        Allowed error probability, in ``(0, 1)``.

    Returns
    -------
    float or numpy.ndarray
        The bound, in ``(0, 1]`` (in ``[k / n, 1]`` when ``alpha <= 1/2``); an array when ``k``
        or ``n`` is one.

    Raises
    ------
    ValueError
        If ``k`` or ``n`` is not a finite number (or array of them; bool, None and strings
        included), if ``0 <= k <= n`` and ``n >= 1`` fail, or ``alpha`` is not in ``(0, 1)``.

    Examples
    --------
    >>> round(float(clopper_pearson_upper(0, 100, 0.05)), 6)   # 1 - 0.05**(1/100)
    0.029513
    >>> float(clopper_pearson_upper(7, 7, 0.05))
    1.0
    """
    alpha = check_in_range("alpha", alpha, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    k_arr = _real_array("k", k)
    n_arr = _real_array("n", n)
    try:
        k_arr, n_arr = np.broadcast_arrays(k_arr, n_arr)
    except ValueError:
        raise ValueError(f"k and n must have shapes that broadcast, got {k_arr.shape} and {n_arr.shape}") from None
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError(f"k and n must satisfy 0 <= k <= n and n >= 1, got k={k!r}, n={n!r}")
    full = k_arr >= n_arr
    # the upper quantile as isf(alpha), not ppf(1 - alpha): 1 - alpha rounds away alpha's low digits
    # (at alpha = 1e-10 the bound came out 3e-9 too low, below the exact root)
    out = np.where(full, 1.0, stats.beta.isf(alpha, k_arr + 1.0, np.where(full, 1.0, n_arr - k_arr)))
    return float(out) if out.ndim == 0 else out


def _bound_from_upper(p_bar, q_bar, delta):
    """max(0, log((1-delta-q)/p), log((1-delta-p)/q)), a term dropped where its numerator <= 0."""
    p_bar = np.asarray(p_bar, dtype=float)
    q_bar = np.asarray(q_bar, dtype=float)
    num1 = 1.0 - delta - q_bar
    num2 = 1.0 - delta - p_bar
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = np.where(num1 > 0, np.log(np.where(num1 > 0, num1, 1.0)) - np.log(p_bar), 0.0)
        t2 = np.where(num2 > 0, np.log(np.where(num2 > 0, num2, 1.0)) - np.log(q_bar), 0.0)
    return np.maximum(0.0, np.maximum(t1, t2))


def epsilon_lower_bound(false_positives, n_negatives, false_negatives, n_positives, delta=0.0, confidence=0.95) -> float:
    r"""A lower bound on :math:`\varepsilon` from a test's error counts, valid with probability ``confidence``.

    ``false_positives`` of ``n_negatives`` runs on :math:`x` were called :math:`x'`, and
    ``false_negatives`` of ``n_positives`` runs on :math:`x'` were called :math:`x`. With
    one-sided Clopper--Pearson upper bounds :math:`\bar p, \bar q` of the two error rates,
    each at level :math:`(1 - \mathrm{confidence})/2` (Bonferroni over the two rates), the
    result is

    .. math:: \max\Bigl(0,\ \log\frac{1 - \delta - \bar q}{\bar p},\ \log\frac{1 - \delta - \bar p}{\bar q}\Bigr),

    a term omitted where its numerator is :math:`\le 0`. If the mechanism is
    :math:`(\varepsilon, \delta)`-DP then, with probability at least ``confidence``, both
    rates lie below their bounds, and the privacy region
    (:math:`p + e^{\varepsilon} q \ge 1 - \delta`, :math:`q + e^{\varepsilon} p \ge 1 - \delta`)
    makes the result :math:`\le \varepsilon`: the result exceeds the true :math:`\varepsilon`
    with probability at most ``1 - confidence``. The test must not be chosen with the
    counted runs.

    Parameters
    ----------
    false_positives, n_negatives : int
        Errors among the runs on :math:`x`, and the number of those runs (``>= 1``).
    false_negatives, n_positives : int
        Errors among the runs on :math:`x'`, and the number of those runs (``>= 1``).
    delta : float
        The :math:`\delta` of the claim being tested, in ``[0, 1)``.
    confidence : float
        In ``(0, 1)``.

    Returns
    -------
    float
        The lower bound (natural log), ``>= 0``.

    Examples
    --------
    A test that errs on 250 of 1000 runs of each input (randomized response with
    :math:`\varepsilon = \log 3` errs with probability 1/4):

    >>> p_bar = stats.beta.ppf(1 - 0.025, 250 + 1, 1000 - 250)      # both rates' upper bound
    >>> math.isclose(epsilon_lower_bound(250, 1000, 250, 1000), math.log((1 - p_bar) / p_bar))
    True
    >>> epsilon_lower_bound(250, 1000, 250, 1000) < math.log(3)
    True
    >>> epsilon_lower_bound(500, 1000, 500, 1000)
    0.0
    """
    n_negatives = _count("n_negatives", n_negatives)
    n_positives = _count("n_positives", n_positives)
    if n_negatives < 1:
        raise ValueError(f"n_negatives must be >= 1, got {n_negatives}")
    if n_positives < 1:
        raise ValueError(f"n_positives must be >= 1, got {n_positives}")
    fp = _count("false_positives", false_positives, "n_negatives", n_negatives)
    fn = _count("false_negatives", false_negatives, "n_positives", n_positives)
    delta = check_delta("delta", delta)
    alpha = (1.0 - _confidence(confidence)) / 2.0
    p_bar = clopper_pearson_upper(fp, n_negatives, alpha)
    q_bar = clopper_pearson_upper(fn, n_positives, alpha)
    return float(_bound_from_upper(p_bar, q_bar, delta))


def _planned_bounds(fp, n_neg, fn, n_pos, delta, alpha):
    """Vectorized bound for (possibly fractional) expected counts: used to plan and choose tests."""
    fp = np.clip(np.asarray(fp, dtype=float), 0.0, n_neg)
    fn = np.clip(np.asarray(fn, dtype=float), 0.0, n_pos)
    p_bar = np.where(fp >= n_neg, 1.0, stats.beta.ppf(1.0 - alpha, fp + 1.0, np.maximum(n_neg - fp, 1e-12)))
    q_bar = np.where(fn >= n_pos, 1.0, stats.beta.ppf(1.0 - alpha, fn + 1.0, np.maximum(n_pos - fn, 1e-12)))
    return _bound_from_upper(p_bar, q_bar, delta)


def expected_lower_bound(p, p_prime, n_samples, *, delta=0.0, confidence=0.95) -> tuple[float, np.ndarray]:
    r"""The bound that the best likelihood-ratio test reaches when every count equals its expectation.

    ``p`` and ``p_prime`` are the exact output laws of :math:`M(x)` and :math:`M(x')` on a
    finite set of outputs. By the Neyman--Pearson lemma the best tests put the outputs with
    the largest ratio ``p_prime / p`` into :math:`S` first; for each such set the error
    counts on ``n_samples`` runs per input are replaced by their expectations and
    :func:`epsilon_lower_bound`'s formula is applied. This plans an audit (how many runs
    are needed, which pair of inputs is best) and says how close any audit of that size
    can come; it is not itself a bound with a confidence.

    Parameters
    ----------
    p, p_prime : array_like of float
        The output laws of :math:`M(x)` and :math:`M(x')`: 1-D, of the same length ``>= 1``,
        finite entries ``>= 0`` each summing to 1 (within ``1e-9``). An output that only one
        law gives is allowed (its ratio is infinite).
    n_samples : int
        Runs per input of the planned audit, ``>= 1``.
    delta : float
        The :math:`\delta` of the claim being tested, in ``[0, 1)``.
    confidence : float
        The confidence of the planned audit, in ``(0, 1)``.

    Returns
    -------
    bound : float
        The largest planned bound (natural log), ``>= 0``.
    outputs : numpy.ndarray of bool
        The mask, one entry per output, of the outputs in the best set :math:`S`.

    Raises
    ------
    ValueError
        If ``p`` or ``p_prime`` is not a 1-D array of finite numbers (bool, None and strings
        included), the two differ in length or are empty, either has a negative entry or does
        not sum to 1, ``n_samples`` is not an integer ``>= 1``, ``delta`` is not in ``[0, 1)``
        or ``confidence`` not in ``(0, 1)``.

    Examples
    --------
    >>> b, S = expected_lower_bound([0.75, 0.25], [0.25, 0.75], 10_000)
    >>> round(b, 2), S.tolist()
    (1.05, [False, True])
    """
    p = _real_array("p", p)
    q = _real_array("p_prime", p_prime)
    if p.ndim != 1 or p.shape != q.shape or p.size == 0:
        raise ValueError(f"p and p_prime must be 1-D of the same length, got shapes {p.shape} and {q.shape}")
    for name, law in (("p", p), ("p_prime", q)):
        if np.any(law < 0) or abs(law.sum() - 1) > 1e-9:
            raise ValueError(f"{name} must be a probability vector (entries >= 0 summing to 1), got {law.tolist()}")
    n = check_integer("n_samples", n_samples, low=1)
    delta = check_delta("delta", delta)
    alpha = (1.0 - _confidence(confidence)) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):       # an output neither law has: 0 below
        ratio = np.log(q) - np.log(p)
    ratio = np.where((p == 0) & (q == 0), 0.0, ratio)
    order = np.argsort(-ratio, kind="stable")
    a = np.cumsum(p[order])
    b = np.cumsum(q[order])
    bounds = _planned_bounds(a * n, n, (1.0 - b) * n, n, delta, alpha)
    j = int(np.argmax(bounds))
    mask = np.zeros(p.size, dtype=bool)
    mask[order[: j + 1]] = True
    return float(bounds[j]), mask


# --------------------------------------------------------------------------- tests
@dataclass(frozen=True)
class ThresholdTest:
    r"""A test: the set :math:`S` of outputs called :math:`x'`, a threshold set of a score.

    ``score`` maps an array of outputs, shape ``(size,)`` or ``(size, d)``, to one real
    number per output. :math:`S = \{y : \mathrm{score}(y) > \mathrm{threshold}\}`, or
    :math:`\{y : \mathrm{score}(y) \le \mathrm{threshold}\}` when ``below`` is true;
    ``description`` says in words what the test does.

    Attributes
    ----------
    score : callable
        ``score(outputs) -> array``: one real number per output; ``outputs`` is always passed
        as a 2-D array of shape ``(size, d)``.
    threshold : float
        The threshold, a real number or ``+-inf`` (not nan).
    description : str
        What the test does, in words.
    below : bool
        If true, :math:`S` is the set where the score is ``<= threshold``; default false
        (``> threshold``).

    Raises
    ------
    ValueError
        If ``score`` is not callable, ``threshold`` is not a real number (nan, bool, None and
        strings included) or ``below`` is not a bool.

    Examples
    --------
    >>> t = ThresholdTest(lambda y: y[:, 0], 0.5, "y > 0.5")
    >>> t(np.array([0.2, 0.9])).tolist()
    [False, True]
    >>> ThresholdTest(lambda y: y[:, 0], 0.5, "y <= 0.5", below=True)(np.array([0.2, 0.5, 0.9])).tolist()
    [True, True, False]
    """

    score: object
    threshold: float
    description: str
    below: bool = False

    def __post_init__(self):
        if not callable(self.score):
            raise ValueError(f"score must be callable, got {self.score!r}")
        # nan would make S empty in both directions; +-inf are fine (S empty or everything)
        object.__setattr__(self, "threshold", check_real("threshold", self.threshold, allow_inf=True))
        if not isinstance(self.below, (bool, np.bool_)):
            raise ValueError(f"below must be True or False, got {self.below!r}")

    def __call__(self, outputs) -> np.ndarray:
        s = np.asarray(self.score(_as_2d(outputs)))
        return s <= self.threshold if self.below else s > self.threshold


@dataclass(frozen=True)
class AuditResult:
    r"""Outcome of an audit: the lower bound ``epsilon``, the error counts and the test used.

    Returned by :func:`audit_test` and :func:`audit_pair`; the fields are not validated.

    Attributes
    ----------
    epsilon : float
        The lower bound on :math:`\varepsilon` (natural log), ``>= 0``, from
        :func:`epsilon_lower_bound` of the counts below.
    false_positives, n_negatives : int
        Counted runs on :math:`x` whose output the test put in :math:`S`, and the number of
        counted runs on :math:`x`.
    false_negatives, n_positives : int
        Counted runs on :math:`x'` whose output the test left out of :math:`S`, and the number
        of counted runs on :math:`x'`.
    test : ThresholdTest
        The test whose errors were counted.
    confidence : float
        The confidence of the bound, in ``(0, 1)``.
    delta : float
        The :math:`\delta` of the claim tested, in ``[0, 1)``.
    n_select : int
        Runs per input spent on choosing the test (``0`` when it was fixed in advance).
    candidates : dict
        When the test was chosen by :func:`audit_pair`: for each score tried, by its
        description, the planned bound of its best threshold (empty when the test was fixed
        in advance).
    """

    epsilon: float
    false_positives: int
    n_negatives: int
    false_negatives: int
    n_positives: int
    test: ThresholdTest
    confidence: float
    delta: float
    n_select: int = 0
    candidates: dict = field(default_factory=dict, repr=False)

    @property
    def estimate(self) -> float:
        """The plain log-ratio estimate of the counts (no confidence; ``inf`` if a count is zero)."""
        p = self.false_positives / self.n_negatives
        q = self.false_negatives / self.n_positives
        terms = []
        with np.errstate(divide="ignore"):
            if 1 - self.delta - q > 0:
                terms.append(np.log(1 - self.delta - q) - np.log(p))
            if 1 - self.delta - p > 0:
                terms.append(np.log(1 - self.delta - p) - np.log(q))
        return float(max([0.0, *terms]))


def _as_2d(outputs, size=None) -> np.ndarray:
    arr = np.asarray(outputs)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or (size is not None and arr.shape[0] != size):
        want = "(size,) or (size, d)" if size is None else f"({size},) or ({size}, d)"
        raise ValueError(f"mechanism must return an array of shape {want}, got shape {np.shape(outputs)}")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"mechanism must return numbers (bool, int or float), got dtype {arr.dtype}")
    return arr


def _run(mechanism, data, size, rng):
    return _as_2d(mechanism(data, size, rng), size)


# the most runs per input of an audit: 10**9 runs of even randomized response take minutes
_MAX_RUNS = 10**9


def _chunks(n: int, d: int) -> list[int]:
    # half a million output numbers, but at most a hundred thousand runs: a mechanism's own
    # work arrays (several noise values per run) then stay in the processor's cache (half a
    # million runs of five-noise report noisy max cost a third more per run); fewer runs per
    # chunk cost more in per-call overhead for vector outputs
    per = min(100_000, max(1000, 500_000 // max(d, 1)))
    sizes = [per] * (n // per)
    if n % per:
        sizes.append(n % per)
    return sizes


def count_errors(mechanism, x, x_prime, test, *, n_samples, rng, n_jobs=1) -> tuple[int, int]:
    r"""Run ``mechanism`` ``n_samples`` times on each input and count the errors of ``test``.

    Returns ``(false_positives, false_negatives)``: runs on ``x`` that the test calls
    :math:`x'` (output in :math:`S`) and runs on ``x_prime`` that it calls :math:`x`.
    The runs are made in chunks (half a million numbers, but at most 100 000 and at least 1000 runs:
    chunks of a vector output of more than 500 numbers hold 1000 runs), each with its own child
    generator of ``rng`` (:meth:`numpy.random.Generator.spawn`), so the counts do not
    depend on ``n_jobs``, the number of workers calling the mechanism at once (processes on
    Linux, threads elsewhere; see ``n_jobs``). The counts are
    binomial only if the test's verdict on each output depends on that output alone.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng) -> array`` of shape ``(size,)`` or ``(size, d)``, ``d``
        the same in every call.
    x, x_prime
        The two inputs.
    test : callable
        ``test(outputs) -> bool array``, one verdict per output (a :class:`ThresholdTest`).
    n_samples : int
        Runs per input, in ``[1, 10**9]`` (the mechanism runs that often on each input: some
        minutes at the cap even for randomized response).
    rng : numpy.random.Generator
    n_jobs : int
        Workers calling ``mechanism`` at once, ``>= 1``. With ``1`` every call is made in the
        caller's thread. Above ``1``, on Linux, forked worker processes make the calls (they
        inherit the mechanism and the test, which need not be picklable, and return only
        counts; a mechanism's side effects, such as a count of its own calls, stay in the
        workers); elsewhere, threads.

    Returns
    -------
    (int, int)

    Raises
    ------
    ValueError
        If an argument is out of range, the mechanism's output changes width or is not
        numeric, or the test does not return one bool per output.

    Examples
    --------
    >>> from dpnotes.mechanisms import randomized_response
    >>> rr = lambda data, size, rng: randomized_response(np.full(size, data), math.log(3), rng)
    >>> fp, fn = count_errors(rr, 0, 1, ThresholdTest(lambda y: y[:, 0], 0.5, "report 1"),
    ...                       n_samples=40_000, rng=np.random.default_rng(0))
    >>> abs(fp / 40_000 - 0.25) < 0.01 and abs(fn / 40_000 - 0.25) < 0.01
    True
    """
    n = check_integer("n_samples", n_samples, low=1, high=_MAX_RUNS)
    rng = check_rng("rng", rng)
    n_jobs = check_integer("n_jobs", n_jobs, low=1)
    width = _run(mechanism, x, 1, np.random.default_rng(0)).shape[1]    # learn the output width only
    sizes = _chunks(n, width)
    rngs = rng.spawn(2 * len(sizes))

    def job(i):
        data, size = (x if i % 2 == 0 else x_prime), sizes[i // 2]
        out = _run(mechanism, data, size, rngs[i])
        if out.shape[1] != width:
            raise ValueError(f"mechanism must return outputs of the same width in every call, "
                             f"got {width} and {out.shape[1]}")
        # the test's verdict on each run, which must depend on that run's output only
        verdict = np.asarray(test(out))
        if verdict.shape != (size,) or verdict.dtype != bool:
            raise ValueError(f"test must return one bool per output, shape ({size},), "
                             f"got {verdict.dtype} of shape {verdict.shape}")
        hits = int(np.count_nonzero(verdict))
        return hits if i % 2 == 0 else size - hits

    counts = _map_jobs(job, 2 * len(sizes), n_jobs)
    return int(sum(counts[0::2])), int(sum(counts[1::2]))


_FORK = sys.platform.startswith("linux")    # workers are forked processes (else threads)
_JOB = None     # the job of the worker processes being started: they inherit it when forked


def _install_job(job):
    global _JOB
    _JOB = job
    # A forked worker starts with a copy of the parent's numpy global generator. A mechanism
    # should draw only from the generator it is given; one that draws from the global one would
    # otherwise repeat the other workers' numbers, so each worker gets its own stream (Python's
    # own `random` reseeds itself in a forked child).
    np.random.seed()


def _call_job(i):
    return _JOB(i)


def _map_jobs(job, n_tasks: int, n_jobs: int) -> list:
    """``[job(i) for i in range(n_tasks)]`` on ``n_jobs`` workers, in order.

    On Linux the workers are forked processes: numpy releases the interpreter's lock inside
    each call, but a mechanism that makes many short calls (a few microseconds on a block of
    runs) holds it in between, and two threads then run it no faster than one (measured on
    the auditing benchmark's Algorithm 4 row: the same wall time with one thread or two, against
    half with two processes). A forked worker inherits ``job``, a closure over the mechanism,
    the test and the chunks' generators, without pickling it, and sends back only its result.
    Elsewhere (where forking a process that runs other threads is not safe) the workers are
    threads. Either way ``job(i)`` is computed exactly as in one thread.
    """
    if n_jobs == 1 or n_tasks == 1:
        return [job(i) for i in range(n_tasks)]
    workers = min(n_jobs, n_tasks)
    if _FORK:
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_install_job, initargs=(job,))
        call, chunk = _call_job, max(1, min(16, n_tasks // (4 * workers)))
    else:
        pool, call, chunk = ThreadPoolExecutor(max_workers=workers), job, 1
    try:
        return list(pool.map(call, range(n_tasks), chunksize=chunk))
    finally:                # after an error, the tasks not yet started are dropped, not run
        pool.shutdown(cancel_futures=True)


def audit_test(mechanism, x, x_prime, test, *, n_samples, rng, confidence=0.95, delta=0.0, n_jobs=1) -> AuditResult:
    r"""Audit with a test fixed in advance: count its errors and return :func:`epsilon_lower_bound`.

    :func:`count_errors` runs ``mechanism`` ``n_samples`` times on each input, and the bound of
    :func:`epsilon_lower_bound` on those counts exceeds the true :math:`\varepsilon` with
    probability at most ``1 - confidence``, because ``test`` was not chosen with these runs.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng) -> array`` of shape ``(size,)`` or ``(size, d)``, ``d``
        the same in every call (as in :func:`count_errors`).
    x, x_prime
        The two inputs.
    test : callable
        ``test(outputs) -> bool array``, one verdict per output (a :class:`ThresholdTest`).
    n_samples : int
        Runs per input, in ``[1, 10**9]`` (the mechanism runs that often on each input: some
        minutes at the cap even for randomized response).
    rng : numpy.random.Generator
        The source of the runs' randomness.
    confidence : float
        In ``(0, 1)``.
    delta : float
        The :math:`\delta` of the claim being tested, in ``[0, 1)``.
    n_jobs : int
        Workers calling ``mechanism`` at once, ``>= 1`` (as in :func:`count_errors`); the
        result does not depend on it.

    Returns
    -------
    AuditResult
        The bound, the counts (``n_negatives == n_positives == n_samples``) and ``test``.

    Raises
    ------
    ValueError
        If ``confidence`` is not in ``(0, 1)``, ``delta`` not in ``[0, 1)``, ``n_samples`` or
        ``n_jobs`` not an integer ``>= 1``, ``rng`` not a generator, or as
        :func:`count_errors` raises (the mechanism's or the test's output of the wrong shape or type).

    Examples
    --------
    >>> from dpnotes.mechanisms import laplace_mechanism
    >>> lap = lambda data, size, rng: laplace_mechanism(np.full(size, float(data)), 0.5, rng)
    >>> res = audit_test(lap, 0.0, 1.0, ThresholdTest(lambda y: y[:, 0], 1.0, "y > 1"),
    ...                  n_samples=200_000, rng=np.random.default_rng(2))
    >>> 0.45 < res.epsilon <= 0.5
    True
    """
    confidence = _confidence(confidence)
    delta = check_delta("delta", delta)
    n = check_integer("n_samples", n_samples, low=1)
    fp, fn = count_errors(mechanism, x, x_prime, test, n_samples=n, rng=rng, n_jobs=n_jobs)
    eps = epsilon_lower_bound(fp, n, fn, n, delta=delta, confidence=confidence)
    return AuditResult(eps, fp, n, fn, n, test, confidence, delta)


# --------------------------------------------------------------------------- choosing a test
# Three families of scores are fitted on one half of the selection runs; every threshold of
# every score is then tried on the other half (the output itself, fitted to nothing, on all of
# them), and the test whose planned bound (for the number of runs that will be counted) is
# largest wins.

_SMOOTH = 0.5            # pseudo-count for log-ratio estimates of cells (Jeffreys)
_PLAN_ALPHA = 0.05        # pessimism of the validation rates when a test is chosen
_FEW_CELLS = 64           # vectors with at most this many distinct output cells need no learned score
_VECTOR_BINS = 8          # quantile bins per continuous column of a vector output


# Integers of larger magnitude are not all float64 numbers; columns of small integers whose
# magnitude stays below _FAST_MAX keep every sum of the fast paths below (value x radix,
# summed over columns) exact, which the fit checks.
_EXACT_INT = 2**53
_FAST_MAX = 2.0**50


def _exact_parts(col: np.ndarray):
    r"""Each value of a column as ``hi + res`` exactly: ``hi`` the float64 nearest to it (nan and
    +-inf kept), ``res`` the rest, a float64 that is 0 unless the value is an integer beyond
    :math:`2^{53}` (int64, uint64). Returns ``(hi, res)``, ``res`` ``None`` when no value of the
    column is an integer beyond :math:`2^{53}` in magnitude (an array, possibly of zeros, otherwise).

    The pair is a function of the value alone, whatever the dtype (5 as int8 and 5.0 as float32
    give (5.0, 0.0); 2**53 + 1 as int64 gives (2**53, 1.0)), so keys built on it do not depend
    on the other rows of a batch or on the array type they came in. The rest is Knuth's
    TwoSum of the two 32-bit halves of the integer (each exact in float64)."""
    if col.dtype.kind in "iu" and col.dtype.itemsize >= 8 and col.size:
        big = col.max() > _EXACT_INT or (col.dtype.kind == "i" and col.min() < -_EXACT_INT)
        if big:
            x = (col >> 32).astype(np.float64) * 4294967296.0          # exact: |a| < 2**32
            y = (col & 0xFFFFFFFF).astype(np.float64)                  # exact: < 2**32
            s = x + y
            bb = s - x
            return s, (x - (s - bb)) + (y - bb)
    return np.asarray(col, dtype=np.float64), None      # read only: no copy of a float64 column


def _as_complex(hi, res):
    """The pairs (hi, res) as complex numbers: numpy sorts those by real, then imaginary part,
    which is the order of the exact values hi + res."""
    c = np.empty(hi.shape, dtype=complex)
    c.real = hi
    c.imag = 0.0 if res is None else res
    return c


class _Column:
    """The code of one output column: an exact value (atom), a non-finite symbol, or a quantile
    bin of the continuous rest. Codes are ``0 .. size - 1`` and depend on the value alone."""

    def __init__(self, col: np.ndarray, n_bins: int):
        n = col.shape[0]
        hi, res = _exact_parts(col)
        nan, pinf, ninf = np.isnan(hi), hi == np.inf, hi == -np.inf
        finite = ~(nan | pinf | ninf)
        if res is None or not np.any(res[finite]):
            vals, counts = np.unique(hi[finite], return_counts=True)
            vres = np.zeros(vals.size)
        else:
            u, counts = np.unique(_as_complex(hi[finite], res[finite]), return_counts=True)
            vals, vres = u.real.copy(), u.imag.copy()
        if vals.size > 64:
            # values that repeat (a continuous law almost never does): the 256 most frequent
            keep = np.flatnonzero(counts >= max(3, n // 20_000))
            keep = np.sort(keep[np.argsort(-counts[keep], kind="stable")[:256]])
            vals, vres = vals[keep], vres[keep]
        self.atoms = vals
        self.atoms_c = _as_complex(vals, vres) if np.any(vres) else None    # huge integers
        self.specials = [m for m, seen in (("nan", nan), ("+inf", pinf), ("-inf", ninf)) if np.any(seen)]
        _, hit = self._match(hi, res)
        cont = hi[finite & ~hit]
        edges = np.empty(0)
        if cont.size:
            qs = np.linspace(0, 1, n_bins + 1)[1:-1] if cont.size >= 2 * n_bins else [0.5]
            with np.errstate(over="ignore", invalid="ignore"):
                edges = np.quantile(cont, qs)
            if not np.all(np.isfinite(edges)):      # interpolation overflowed (values near 1e308)
                edges = np.quantile(cont, qs, method="lower")
            edges = np.unique(edges)
        self.edges = edges
        self.fast = (not self.specials and not edges.size and self.atoms_c is None
                     and 0 < vals.size <= 64 and bool(np.all(vals == np.rint(vals)))
                     and vals[-1] - vals[0] == vals.size - 1 and max(-vals[0], vals[-1]) <= _FAST_MAX)

    def widen(self, lo, hi):
        """A fast column's atoms become all the integers lo .. hi (hi - lo < 64)."""
        self.atoms = np.arange(lo, hi + 1.0)

    @property
    def size(self) -> int:
        # atoms, seen symbols and the bins, and one spare code (as the radix always had)
        return self.atoms.size + len(self.specials) + self.edges.size + 2

    def _match(self, hi, res):
        """(position, hit): the atom equal to each value, exactly."""
        a = self.atoms.size
        if a == 0:
            return np.zeros(hi.shape, dtype=np.intp), np.zeros(hi.shape, dtype=bool)
        if self.atoms_c is None:
            pos = np.searchsorted(self.atoms, hi)
            np.minimum(pos, a - 1, out=pos)
            hit = self.atoms[pos] == hi
            if res is not None:
                hit &= res == 0              # an integer beyond 2**53 is no float atom
        else:
            c = _as_complex(hi, res)
            pos = np.searchsorted(self.atoms_c, c)
            np.minimum(pos, a - 1, out=pos)
            hit = self.atoms_c[pos] == c
        return pos, hit

    def codes(self, col: np.ndarray) -> np.ndarray:
        """Row by row: atom ``i`` -> i; seen symbol s -> atoms + s; else atoms + symbols + its bin
        (nan and +-inf never seen in fitting fall in the end bins)."""
        if self.fast:
            # consecutive integers lo..hi: code = value - lo + 1, 0 below, span + 1 above, and
            # 0 for what is not an integer (nan included); values this small are exact floats
            f = col.astype(np.float64)
            code = f - (self.atoms[0] - 1.0)
            np.clip(code, 0.0, self.atoms.size + 1.0, out=code)
            if col.dtype.kind == "f":
                code[f != np.rint(f)] = 0.0
            return code
        hi, res = _exact_parts(col)
        a, s = self.atoms.size, len(self.specials)
        if self.edges.size <= 3:
            # the same count as searchsorted(edges, hi, side="right") (edges are finite), by
            # comparisons, which cost a third of a binary search when there are few edges
            code = np.full(hi.shape, a + s, dtype=np.intp)
            for e in self.edges:
                code += hi >= e
            if self.edges.size and "nan" not in self.specials:      # (a seen nan gets its symbol below)
                code[np.isnan(hi)] = a + s + self.edges.size
        else:
            code = np.searchsorted(self.edges, hi, side="right")    # nan sorts last: the end bin
            code += a + s
        if a:
            pos, hit = self._match(hi, res)
            code[hit] = pos[hit]
        for i, name in enumerate(self.specials):
            code[np.isnan(hi) if name == "nan" else hi == (np.inf if name == "+inf" else -np.inf)] = a + i
        return code


class _Discretizer:
    """Maps each output row to one key, an integer (held in a float64, below 2**53): the codes of
    its columns (:class:`_Column`) in mixed radix. A row's key depends on that row alone, never
    on the rows it is batched with: the fast paths below (one weighted sum for a whole batch of
    small-integer patterns, a table of their scores) are taken only where they give exactly the
    key that the row-by-row codes give, which the fit checks once."""

    def __init__(self, rows: np.ndarray, n_bins: int):
        self.columns = [_Column(rows[:, j], n_bins) for j in range(rows.shape[1])]
        # columns of small consecutive integers (patterns of answers) share one range, so that
        # one check of the whole batch's minimum and maximum says all of them are in range
        self.fast = [j for j, c in enumerate(self.columns) if c.fast]
        if self.fast:
            lo = min(self.columns[j].atoms[0] for j in self.fast)
            hi = max(self.columns[j].atoms[-1] for j in self.fast)
            if hi - lo < 64:
                for j in self.fast:
                    self.columns[j].widen(lo, hi)
        radix = 1
        self.radix = np.empty(len(self.columns))
        for j, c in enumerate(self.columns):
            self.radix[j] = radix
            radix *= c.size
        self.ok = radix < 2**53
        self.binned = any(c.edges.size for c in self.columns)     # some column is continuous
        self.lo = np.array([self.columns[j].atoms[0] for j in self.fast], dtype=float)
        self.span = np.array([self.columns[j].atoms.size for j in self.fast], dtype=float)
        self.shared_range = bool(self.fast) and bool(np.all(self.lo == self.lo[0]) and np.all(self.span == self.span[0]))
        # the weighted sum of a batch's raw values is exact (every partial sum an integer of
        # magnitude below 2**53) when this bound holds; only then may it stand in for the codes
        reach = sum((max(abs(float(lo)), abs(float(lo + span - 1))) + abs(1.0 - float(lo))) * float(r)
                    for lo, span, r in zip(self.lo, self.span, self.radix[self.fast]))
        self.batch_sum = bool(self.fast) and self.ok and reach < 2**53
        # all columns small integers of one range, few combinations: rows can be numbered
        # densely (code = sum of (value - lo) * span**j), and a score read from a table
        self.dense_radix = None
        if self.shared_range and len(self.fast) == rows.shape[1]:
            span, k = int(self.span[0]), rows.shape[1]
            dense_radix = float(span) ** np.arange(k)
            # exact codes: every partial sum of values x radix below 2**53 in magnitude
            if span**k * k <= 4_000_000 and (abs(self.lo[0]) + span) * dense_radix.sum() < 2**52:
                self.dense_radix = dense_radix

    def _in_range(self, sub: np.ndarray, lo: np.ndarray, top: np.ndarray) -> bool:
        """Whether every value of the batch is an integer in its column's range (two reductions)."""
        if self.shared_range:
            inside = bool(sub.min() >= lo[0] and sub.max() <= top[0])
        else:
            inside = bool(np.all(sub.min(axis=0) >= lo) and np.all(sub.max(axis=0) <= top))
        return inside and (sub.dtype.kind != "f" or bool(np.all(sub == np.rint(sub))))

    def _rows_in_range(self, sub: np.ndarray, lo, top) -> np.ndarray:
        """Row by row: every value an integer in its column's range."""
        ok = np.all((sub >= lo) & (sub <= top), axis=1)
        if sub.dtype.kind == "f":
            ok &= np.all(sub == np.rint(sub), axis=1)
        return ok

    def dense(self, rows: np.ndarray):
        """``(codes, inside)``: dense codes in ``[0, span**d)`` of the rows that have one (every
        value an integer of the fitted range) and the mask of those rows (``None``: all)."""
        lo = self.lo[0]
        top = lo + self.span[0] - 1
        if rows.size and self._in_range(rows, self.lo[:1], np.array([top])):
            inside = None
            sub = rows
        else:
            inside = self._rows_in_range(rows, lo, top)
            sub = rows[inside]
        code = np.einsum("ij,j->i", sub, self.dense_radix)    # exact: bounded in __init__
        code -= lo * self.dense_radix.sum()
        return code.astype(np.intp), inside

    def dense_rows(self) -> np.ndarray:
        """Every row that :meth:`dense` numbers, in the order of its codes."""
        span = int(self.span[0])
        codes = np.arange(span ** self.dense_radix.size)
        return self.lo[0] + (codes[:, None] // span ** np.arange(self.dense_radix.size) % span).astype(float)

    def keys(self, rows: np.ndarray) -> np.ndarray:
        key = np.zeros(rows.shape[0])
        done = set()
        if self.batch_sum:
            sub = rows if len(self.fast) == rows.shape[1] else rows[:, self.fast]
            if rows.shape[0] and self._in_range(sub, self.lo, self.lo + self.span - 1):
                # the usual case: one weighted sum of the raw values, equal (exact arithmetic,
                # bounded in __init__) to the sum of the columns' codes computed row by row
                radix = self.radix[self.fast]
                key += np.einsum("ij,j->i", sub, radix)      # not BLAS: no threads of its own
                key += (1.0 - self.lo) @ radix
                done = set(self.fast)
        for j, c in enumerate(self.columns):
            if j not in done:
                key += c.codes(rows[:, j]) * self.radix[j]
        return key


class _CellScore:
    """Log-ratio of smoothed cell frequencies (x' over x); unseen cells score 0."""

    def __init__(self, fx, fxp, n_bins):
        self.disc = _Discretizer(np.vstack([fx, fxp]), n_bins)
        self.table = None
        if not self.disc.ok:
            return
        kx, kxp = self.disc.keys(fx), self.disc.keys(fxp)
        self.cells = np.unique(np.concatenate([kx, kxp]))
        cx = np.bincount(np.searchsorted(self.cells, kx), minlength=self.cells.size)
        cxp = np.bincount(np.searchsorted(self.cells, kxp), minlength=self.cells.size)
        self.values = (np.log(cxp + _SMOOTH) - np.log(kxp.size + _SMOOTH)
                       - np.log(cx + _SMOOTH) + np.log(kx.size + _SMOOTH))
        self.n_cells = self.cells.size
        # a table of the score of every row of a dense numbering, where there is one: a lookup
        # in it costs a third of the binary search (whose branches random keys mispredict).
        # It holds the search's own scores, so a row gets the same score either way
        if self.disc.dense_radix is not None:
            self.table = self._search(self.disc.dense_rows())

    def __call__(self, rows):
        if self.table is None:
            return self._search(rows)
        code, inside = self.disc.dense(rows)
        if inside is None:
            return self.table.take(code)
        out = np.empty(rows.shape[0])
        out[inside] = self.table.take(code)
        out[~inside] = self._search(rows[~inside])      # outside the table: each its own key
        return out

    def _search(self, rows):
        k = self.disc.keys(rows)
        pos = np.clip(np.searchsorted(self.cells, k), 0, self.cells.size - 1)
        return np.where(self.cells[pos] == k, self.values[pos], 0.0)


class _BitsScore:
    r"""Log-ratio of smoothed frequencies (x' over x) of cells of a floating-point output's bits: its
    sign and exponent (the top 12 bits of the float64 it equals) and its ``k`` lowest mantissa
    bits; unseen cells score 0.

    A mechanism computed in floating point releases a double, and which doubles it can release
    may depend on the input below any resolution a continuous test sees: the textbook Laplace
    sampler, for one, reaches doubles whose last bits are distributed differently from one input
    to the next (:cite:`mironov2012significance`). The key is a function of the value alone (of
    the float64 that the value equals, whatever the array's dtype), so the per-row property of
    every score holds. Only for one-column outputs of a float dtype."""

    def __init__(self, fx, fxp, k):
        self.k = int(k)
        kx, kxp = self.keys(fx), self.keys(fxp)
        self.cells = np.unique(np.concatenate([kx, kxp]))
        cx = np.bincount(np.searchsorted(self.cells, kx), minlength=self.cells.size)
        cxp = np.bincount(np.searchsorted(self.cells, kxp), minlength=self.cells.size)
        self.values = (np.log(cxp + _SMOOTH) - np.log(kxp.size + _SMOOTH)
                       - np.log(cx + _SMOOTH) + np.log(kx.size + _SMOOTH))
        self.n_cells = self.cells.size

    def keys(self, rows):
        # the bits of the float64 each value equals (a fresh contiguous copy: view needs one)
        bits = np.ascontiguousarray(rows[:, 0], dtype=np.float64).view(np.uint64)
        top = bits >> np.uint64(52)
        low = bits & np.uint64((1 << self.k) - 1)
        return (top << np.uint64(self.k)) | low

    def __call__(self, rows):
        key = self.keys(rows)
        pos = np.clip(np.searchsorted(self.cells, key), 0, self.cells.size - 1)
        return np.where(self.cells[pos] == key, self.values[pos], 0.0)


_BITS = (1, 4, 8)          # low mantissa bits kept by the floating-point scores


def _log_ratio_table(kx, kxp):
    """Sorted distinct keys and the smoothed log-ratio (x' over x) of their frequencies."""
    cells = np.unique(np.concatenate([kx, kxp]))
    cx = np.bincount(np.searchsorted(cells, kx), minlength=cells.size)
    cxp = np.bincount(np.searchsorted(cells, kxp), minlength=cells.size)
    values = (np.log(cxp + _SMOOTH) - np.log(kxp.size + _SMOOTH)
              - np.log(cx + _SMOOTH) + np.log(kx.size + _SMOOTH))
    return cells, values


def _look_up(cells, values, keys):
    """The value of each key's cell; 0 for a key never seen."""
    pos = np.clip(np.searchsorted(cells, keys), 0, cells.size - 1)
    return np.where(cells[pos] == keys, values[pos], 0.0)


def _adjacent_differences(rows):
    """The first column and the differences of adjacent columns, as float64 (a fixed map of each row)."""
    f = rows.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.column_stack([f[:, :1], f[:, 1:] - f[:, :-1]])


_PATTERN_BINS = 2         # bins of the continuous values of a column in the pattern scores
_DENSE_KEYS = 2**20       # patterns with at most this many possible keys are scored from a dense table
_CODE_ROWS = 200_000      # runs per input from which the pattern scores learn their codes


class _PatternScore:
    r"""Naive-Bayes likelihood ratio of a vector output: its pattern of symbols, plus its continuous values.

    Each column is coded as in :class:`_Column` (frequent exact values, nan and :math:`\pm\infty`,
    quantile bins of the continuous rest). The row's *pattern* keeps, for every column, its symbol
    (which frequent value or non-finite symbol, or "continuous"); its log-ratio is estimated from
    the joint frequencies of the patterns, so that which queries stopped, which were above and how
    many is judged as a whole, as it must be for sparse-vector outputs. To it are added, for each
    column whose value is continuous, the log-ratio of that value's bin among the continuous values
    of the column (naive Bayes: the bins are taken as independent given the pattern, which they are
    for mechanisms that release fresh noise on top of a pattern). ``groups`` says which patterns:
    ``"joint"`` one pattern of all columns; ``"split"`` one of the columns that are discrete (no
    continuous values) plus one of the others, added as independent (two mechanisms run side by
    side); ``"discrete"`` the discrete columns' pattern alone. With ``diff`` the columns are first
    replaced by the first column and the differences of adjacent ones (running sums of independent
    noise become independent again). Every step is a fixed map of one row, so the per-row
    property of every score holds."""

    def __init__(self, fx, fxp, n_bins, *, groups="joint", diff=False):
        self.diff = bool(diff)
        fx, fxp = self._features(fx), self._features(fxp)
        # the codes (frequent values, bin edges) from the first runs of each input; the
        # frequencies below from all of them
        rows = np.vstack([fx[:_CODE_ROWS], fxp[:_CODE_ROWS]])
        self.columns = [_Column(rows[:, j], n_bins) for j in range(rows.shape[1])]
        discrete = [c.fast or not c.edges.size for c in self.columns]
        self.n_discrete = sum(discrete)
        every = list(range(len(self.columns)))
        self.groups = {"joint": [every],
                       "split": [[j for j in every if discrete[j]], [j for j in every if not discrete[j]]],
                       "discrete": [[j for j in every if discrete[j]]]}[groups]
        self.groups = [g for g in self.groups if g]
        self.use_bins = groups != "discrete"
        self.ok = bool(self.groups) and all(np.prod([float(self._radix(j)) for j in g]) < 2**53 for g in self.groups)
        if not self.ok:
            return
        cx = [c.codes(fx[:, j]) for j, c in enumerate(self.columns)]
        cxp = [c.codes(fxp[:, j]) for j, c in enumerate(self.columns)]
        self.tables = [_log_ratio_table(self._pattern(cx, g), self._pattern(cxp, g)) for g in self.groups]
        # a group with few possible keys gets a dense table (a lookup instead of a binary search),
        # holding the same values: 0 for a key never seen
        self.dense = []
        for g, (cells, values) in zip(self.groups, self.tables):
            top = np.prod([float(self._radix(j)) for j in g])
            dense = None
            if top <= _DENSE_KEYS:
                dense = np.zeros(int(top))
                dense[cells.astype(np.intp)] = values
            self.dense.append(dense)
        self.n_cells = sum(t[0].size for t in self.tables)
        # per column, two tables indexed by its code: the code's part of the pattern key of the
        # column's group (symbol x radix), and the log-ratio of its bin (0 for a symbol)
        self.key_part = [None] * len(self.columns)
        self.bin_part = [None] * len(self.columns)
        for g in self.groups:
            radix = 1.0
            for j in g:
                c = self.columns[j]
                codes = np.arange(c.size)
                sym = codes if c.fast else np.minimum(codes, c.atoms.size + len(c.specials))
                self.key_part[j] = sym * radix
                radix *= self._radix(j)
        for j, c in enumerate(self.columns):
            if discrete[j] or not self.use_bins:
                continue
            s = c.atoms.size + len(c.specials)
            a, b = cx[j][cx[j] >= s] - s, cxp[j][cxp[j] >= s] - s
            nb = c.edges.size + 1
            ca, cb = np.bincount(a, minlength=nb)[:nb], np.bincount(b, minlength=nb)[:nb]
            part = np.zeros(c.size)
            part[s:s + nb] = (np.log(cb + _SMOOTH) - np.log(b.size + _SMOOTH)
                              - np.log(ca + _SMOOTH) + np.log(a.size + _SMOOTH))
            self.bin_part[j] = part

    def _features(self, rows):
        return _adjacent_differences(rows) if self.diff else rows

    def _radix(self, j):
        c = self.columns[j]
        return c.size if c.fast else c.atoms.size + len(c.specials) + 1

    def _pattern(self, codes, group):
        key = np.zeros(codes[0].shape[0])
        radix = 1.0
        for j in group:
            c = self.columns[j]
            sym = codes[j] if c.fast else np.minimum(codes[j], c.atoms.size + len(c.specials))
            key += sym * radix          # exact: integers below 2**53 (checked in __init__)
            radix *= self._radix(j)
        return key

    def __call__(self, rows):
        f = np.asfortranarray(self._features(rows))       # contiguous columns (same values)
        out = np.zeros(rows.shape[0])
        keys = [np.zeros(rows.shape[0]) for _ in self.groups]
        where = {j: i for i, g in enumerate(self.groups) for j in g}
        for j, c in enumerate(self.columns):
            if j not in where and self.bin_part[j] is None:
                continue
            code = np.asarray(c.codes(f[:, j]), dtype=np.intp)
            if j in where:
                keys[where[j]] += self.key_part[j].take(code)      # exact: integers below 2**53
            if self.bin_part[j] is not None:
                out += self.bin_part[j].take(code)
        for key, (cells, values), dense in zip(keys, self.tables, self.dense):
            out += dense.take(key.astype(np.intp)) if dense is not None else _look_up(cells, values, key)
        return out


class _AboveMedianScore:
    """How many columns of an output lie above their median (fitted on the runs of both inputs).

    When every column carries a small, equal part of the evidence (many independent noisy copies
    of one answer, say), this count is close to the likelihood ratio, and it needs no weights:
    a fitted linear score would need far more runs than the evidence per column allows. The
    count is a sum of per-column comparisons, exact and the same for a row alone or in a batch."""

    def __init__(self, fx, fxp):
        rows = np.vstack([fx, fxp]).astype(np.float64)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)      # an all-nan column: median nan
            self.medians = np.nanmedian(rows, axis=0)

    def __call__(self, rows):
        out = np.zeros(rows.shape[0])
        for j, m in enumerate(self.medians):
            out += rows[:, j].astype(np.float64) > m        # nan compares False
        return out


class _ColumnScore:
    """The value of one column (thresholds on a single number)."""

    def __init__(self, j):
        self.j = j

    def __call__(self, rows):
        col = rows[:, self.j].astype(float)
        return np.nan_to_num(col, nan=0.0)


def _location_scale(rest: np.ndarray) -> tuple[float, float, float]:
    """``(scale, mu, sd)`` such that ``(value / scale - mu) / sd`` standardizes ``rest``: ``scale`` is
    1 unless the plain mean or standard deviation overflows (values near 1e308)."""
    if rest.size < 2:
        return 1.0, 0.0, 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        mu, sd = float(rest.mean()), float(rest.std())
    scale = 1.0
    if not (math.isfinite(mu) and math.isfinite(sd)):
        scale = float(np.max(np.abs(rest)))
        mu, sd = float(np.mean(rest / scale)), float(np.std(rest / scale))
    return scale, mu, sd if sd > 0 else 1.0


class _LogisticScore:
    """Linear score of a logistic regression on simple features of each column (indicators
    of frequent values and of non-finite symbols, the standardized value where it is not one
    of them, and its square) and of the whole row (how often each symbol occurs in it, the
    sum of its standardized values and of their squares: outputs such as sparse-vector
    answers carry their evidence in such counts). Fitted with scipy.optimize (L-BFGS) on at most 20 000 runs per input; written here
    because no library the book depends on fits a logistic regression."""

    def __init__(self, fx, fxp, rng):
        rows = np.vstack([fx, fxp])
        self.spec = []
        for j in range(rows.shape[1]):
            col = rows[:, j].astype(float)
            vals, counts = np.unique(col[np.isfinite(col)], return_counts=True)
            atoms = vals[counts >= max(2, rows.shape[0] // 200)][:20]
            rest = col[np.isfinite(col) & ~np.isin(col, atoms)]
            self.spec.append((atoms, *_location_scale(rest), rest.size > 1))
        self.shared = np.unique(np.concatenate([a for a, *_ in self.spec]))[:10]
        m = min(fx.shape[0], 20_000)
        ix = rng.choice(fx.shape[0], m, replace=False) if fx.shape[0] > m else slice(None)
        ixp = rng.choice(fxp.shape[0], m, replace=False) if fxp.shape[0] > m else slice(None)
        X = np.vstack([self._features(fx[ix]), self._features(fxp[ixp])])
        y = np.concatenate([np.zeros(X.shape[0] // 2), np.ones(X.shape[0] - X.shape[0] // 2)])
        lam = 1e-4

        s = 2 * y - 1

        def loss(w):
            # mean logistic loss log(1 + e^{-s z}), s = +-1, with its gradient. Products by
            # einsum, not BLAS: multithreaded BLAS spins idle threads on a busy machine and
            # costs several times the work here
            z = np.einsum("ij,j->i", X, w)
            val = np.mean(np.logaddexp(0.0, -s * z)) + lam * np.sum(w[1:] ** 2)
            g = np.einsum("ij,i->j", X, -s * special.expit(-s * z)) / X.shape[0]
            g[1:] += 2 * lam * w[1:]
            return val, g

        # scipy's L-BFGS-B calls BLAS on vectors of a few hundred numbers; OpenBLAS threads
        # that wake for each call cost four times the work on a busy 2-core machine (measured:
        # the soundness fuzzer's audits took 19.6 s of CPU instead of 5.1 s), so one thread
        with threadpool_limits(1, user_api="blas") if threadpool_limits else contextlib.nullcontext():
            res = optimize.minimize(loss, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                                    options={"maxiter": 60})
        # a fit that failed scores every output alike (never nan, which no threshold orders)
        self.w = res.x if np.all(np.isfinite(res.x)) else np.zeros(X.shape[1])

    def _columns(self, rows):
        """The features, one at a time: (index into the weight vector, values)."""
        k = 1
        n = rows.shape[0]
        counts = {key: np.zeros(n) for key in (*self.shared.tolist(), "nan", "+inf", "-inf")}
        zsum, z2sum = np.zeros(n), np.zeros(n)
        for j, (atoms, scale, mu, sd, has_rest) in enumerate(self.spec):
            col = rows[:, j].astype(float)
            is_atom = np.zeros(col.shape, dtype=bool)
            for a in atoms:
                hit = col == a
                is_atom |= hit
                yield k, hit
                k += 1
            for key, test in (("nan", np.isnan), ("+inf", np.isposinf), ("-inf", np.isneginf)):
                hit = test(col)                         # symbols coded as non-finite
                is_atom |= hit
                counts[key] += hit
                yield k, hit
                k += 1
            for a in self.shared:
                counts[float(a)] += col == a
            if has_rest:
                with np.errstate(over="ignore", invalid="ignore"):     # huge values: clipped below
                    z = np.where(is_atom, 0.0, (np.where(is_atom, mu, col if scale == 1.0 else col / scale) - mu) / sd)
                np.clip(z, -50, 50, out=z)
                zsum += z
                z2sum += z * z
                yield k, z
                yield k + 1, z * z
                k += 2
        for key in counts:                              # row-level features
            yield k, counts[key]
            k += 1
        yield k, zsum
        yield k + 1, z2sum

    def _features(self, rows):
        cols = [np.ones(rows.shape[0])] + [v.astype(float) for _, v in self._columns(rows)]
        return np.column_stack(cols)

    def __call__(self, rows):
        # the linear score, accumulated feature by feature (no design matrix for large batches)
        out = np.full(rows.shape[0], self.w[0])
        for k, v in self._columns(rows):
            if self.w[k] != 0.0:
                out += self.w[k] * v
        return out


def _candidate_thresholds(sx, sxp, max_candidates=3000):
    """Thresholds to try: all distinct scores if few, else pooled order statistics that are
    dense in both tails (rare, extreme outputs often carry the largest ratios)."""
    pooled = np.sort(np.concatenate([sx, sxp]))
    uniq = np.unique(pooled)
    if uniq.size <= max_candidates:
        return uniq
    n = pooled.size
    tail = np.unique(np.geomspace(1, n / 2, max_candidates // 3).astype(np.int64))
    ranks = np.unique(np.concatenate([tail, n - 1 - tail, np.linspace(0, n - 1, max_candidates // 3).astype(np.int64)]))
    return np.unique(pooled[ranks])


def _best_threshold(sx, sxp, n_count, delta, alpha):
    r"""Threshold set with the largest planned bound, from validation scores of both inputs.

    Both :math:`S = \{s > t\}` and its complement are tried (the two terms of the bound
    read each set in one direction only). The validation rates are replaced by pessimistic
    ones (a one-sided Clopper--Pearson bound at level ``_PLAN_ALPHA`` on each side) before
    planning: among thousands of sets, those whose counts are small and lucky would
    otherwise win. Returns ``(t, planned, below)``."""
    ts = _candidate_thresholds(sx, sxp)
    sx_sorted, sxp_sorted = np.sort(sx), np.sort(sxp)
    above_x = sx.size - np.searchsorted(sx_sorted, ts, side="right")        # runs on x with s > t
    above_xp = sxp.size - np.searchsorted(sxp_sorted, ts, side="right")     # runs on x' with s > t
    best = (-1.0, 0.0, False)
    for below, in_x, in_xp in ((False, above_x, above_xp), (True, sx.size - above_x, sxp.size - above_xp)):
        a_up = clopper_pearson_upper(in_x, sx.size, _PLAN_ALPHA)
        b_low = 1.0 - clopper_pearson_upper(sxp.size - in_xp, sxp.size, _PLAN_ALPHA)
        planned = _planned_bounds(a_up * n_count, n_count, (1.0 - b_low) * n_count, n_count, delta, alpha)
        j = int(np.argmax(planned))
        if planned[j] > best[0]:
            best = (float(planned[j]), float(ts[j]), below)
    return best[1], best[0], best[2]


def _select_test(sel_x, sel_xp, n_count, delta, alpha, rng, float_bits=True):
    half = sel_x.shape[0] // 2
    fx, vx = sel_x[:half], sel_x[half:]
    fxp, vxp = sel_xp[:half], sel_xp[half:]
    d = sel_x.shape[1]
    scores = []
    if d == 1:
        scores.append((_ColumnScore(0), "the output"))
    n_bins = int(np.clip(np.sqrt(half) / 8, 4, 200)) if d == 1 else _VECTOR_BINS
    cell = _CellScore(fx, fxp, n_bins)
    if cell.disc.ok:
        scores.append((cell, f"likelihood ratio of {cell.n_cells} output cells"))
    if float_bits and d == 1 and sel_x.dtype.kind == "f":
        # floating-point outputs: the sign, the exponent and the last bits of the double
        for k in _BITS:
            bits = _BitsScore(fx, fxp, k)
            scores.append((bits, f"likelihood ratio of {bits.n_cells} cells of exponent and last {k} bits"))
    if d > 1 and (not cell.disc.ok or cell.disc.binned):
        scores.append((_AboveMedianScore(fx, fxp), "number of columns above their median"))
        # naive-Bayes scores of the pattern of symbols and the continuous values: of the columns
        # as they are, of their adjacent differences (running sums), and, when discrete and
        # continuous columns stand side by side, of the two kinds as independent parts
        joint = _PatternScore(fx, fxp, _PATTERN_BINS)
        kinds = []
        if joint.ok and joint.n_cells == 1:
            # every column continuous, without symbols: running sums show in the differences
            kinds.append(({"diff": True}, "adjacent differences"))
        if 0 < joint.n_discrete < d:
            kinds.append(({"groups": "split"}, "discrete and continuous columns apart"))
        for pat, name in [(joint, "the columns")] + [(_PatternScore(fx, fxp, _PATTERN_BINS, **kw), name)
                                                     for kw, name in kinds]:
            if pat.ok:
                scores.append((pat, f"naive-Bayes likelihood ratio of {name} ({pat.n_cells} patterns)"))
    if d > 1 and (not cell.disc.ok or cell.disc.binned or cell.n_cells > _FEW_CELLS):
        # a few exact cells (patterns) are already ordered by their estimated ratios as well
        # as any score could; continuous parts or many cells need a learned score
        scores.append((_LogisticScore(fx, fxp, rng), "logistic-regression score"))
    candidates = {}
    best = None
    for score, name in scores:
        # a score fitted to nothing (the output itself) is validated on every selection run
        ax, axp = (sel_x, sel_xp) if isinstance(score, _ColumnScore) else (vx, vxp)
        t, planned, below = _best_threshold(score(ax), score(axp), n_count, delta, alpha)
        candidates[name] = planned
        if best is None or planned > best[2]:
            best = (score, t, planned, name, below)
    score, t, _, name, below = best
    return ThresholdTest(score, t, f"{name} {'<=' if below else '>'} {t:.6g}", below), candidates


def _n_select(n: int, d: int) -> int:
    return int(min(n // 2, max(n // 10, 100_000), max(min(2_000_000, 10_000_000 // max(d, 1)), 2)))


def audit_pair(mechanism, x, x_prime, *, n_samples, rng, confidence=0.95, delta=0.0, n_select=None, n_jobs=1,
               float_bits=True) -> AuditResult:
    r"""Black-box audit of ``mechanism`` on the inputs ``x`` and ``x_prime``: a lower bound on its :math:`\varepsilon`.

    ``mechanism(data, size, rng)`` must return ``size`` independent outputs on ``data`` as an
    array of shape ``(size,)`` (a number or a category code per run) or ``(size, d)`` (a
    vector per run). The audit runs it ``n_samples`` times on each input:

    1. **Choose a test** on the first ``n_select`` runs of each input (default: a tenth of
       the runs, at least 100 000, at most half, at most two million runs and ten million
       numbers): on one half of them fit scores of an
       output (the output itself when it is one number; the estimated likelihood ratio of
       output cells, where a cell is an exact value for outputs that repeat and a
       quantile bin for continuous ones, so that sets of patterns, thresholds and intervals
       are all reachable; for vectors also a logistic-regression score, as DP-Sniper does
       with a classifier :cite:`bichsel2021dpsniper`); on the other half (on all the
       selection runs for the output itself, which is fitted to nothing) try every threshold
       of every score and keep the set :math:`S = \{\mathrm{score} > t\}` or its complement
       whose planned bound (:func:`expected_lower_bound`'s rule applied to pessimistic
       rates, for the number of runs left) is largest.
    2. **Count its errors** on the remaining runs, which the choice never saw, and return
       :func:`epsilon_lower_bound` of these counts.

    Because the test is fixed before the counted runs are drawn, and its verdict on a run
    depends on that run's output alone (not on the other runs counted with it, their number,
    order or array type: every score keys an output by its exact values), the counts are
    binomial with the test's true error rates, and the bound exceeds the mechanism's true
    :math:`\varepsilon` (at the given ``delta``) with probability at most ``1 - confidence``,
    whatever the mechanism and however the test was chosen.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng) -> array`` as above; it must draw its randomness from
        ``rng`` only.
    x, x_prime
        The two neighbouring inputs, passed to ``mechanism`` unchanged.
    n_samples : int
        Runs per input, in ``[100, 10**9]`` (the mechanism runs that often on each input: some
        minutes at the cap even for randomized response).
    rng : numpy.random.Generator
    confidence : float
        In ``(0, 1)``.
    delta : float
        The :math:`\delta` of the claim, in ``[0, 1)``.
    n_select : int, optional
        Runs per input spent on choosing the test, ``2 <= n_select < n_samples``.
    n_jobs : int
        Workers that call ``mechanism`` at once when counting (as in :func:`count_errors`; the
        result does not depend on it). The runs that choose the test are made in the caller's thread.
    float_bits : bool
        Also try, for one-number outputs of a float dtype, scores of the released double's
        sign, exponent and last 1, 4 or 8 mantissa bits (:class:`_BitsScore`), chosen on the
        selection runs like every other score. They find the floating-point leak of a sampler
        computed in floating point without being told where it is (numpy's Laplace sampler, and
        every mechanism that adds such noise to a number, is caught this way: see the
        floating-point chapter). On by default: a black-box audit checks the mechanism that
        actually runs, floating point included. Pass ``False`` to audit the claim about the
        real-valued algorithm that the floating-point code stands for (as the book's privacy
        regression tests do).

    Returns
    -------
    AuditResult
        ``epsilon`` (the lower bound), the counts, the chosen ``test`` and, in
        ``candidates``, the planned bound of the best threshold of each score.

    Examples
    --------
    Randomized response with :math:`\varepsilon = 0.5` on the bits 0 and 1:

    >>> from dpnotes.mechanisms import randomized_response
    >>> rr = lambda bit, size, rng: randomized_response(np.full(size, bit), 0.5, rng)
    >>> res = audit_pair(rr, 0, 1, n_samples=200_000, rng=np.random.default_rng(0))
    >>> 0.45 < res.epsilon <= 0.5
    True
    """
    n = check_integer("n_samples", n_samples, low=100, high=_MAX_RUNS)
    rng = check_rng("rng", rng)
    confidence = _confidence(confidence)
    delta = check_delta("delta", delta)
    n_jobs = check_integer("n_jobs", n_jobs, low=1)
    alpha = (1.0 - confidence) / 2.0
    rng_select, rng_count, rng_fit = rng.spawn(3)
    r_x, r_xp = rng_select.spawn(2)
    probe = _run(mechanism, x, 2, np.random.default_rng(0))
    if n_select is None:
        n_select = _n_select(n, probe.shape[1])
    n_select = check_integer("n_select", n_select, low=2, high=n - 1)
    sel_x = _run(mechanism, x, n_select, r_x)
    sel_xp = _run(mechanism, x_prime, n_select, r_xp)
    if not sel_x.shape[1] == sel_xp.shape[1] == probe.shape[1]:
        raise ValueError(f"mechanism must return outputs of the same width on both inputs and in "
                         f"every call, got {probe.shape[1]}, {sel_x.shape[1]} and {sel_xp.shape[1]}")
    n_count = n - n_select
    if not isinstance(float_bits, (bool, np.bool_)):
        raise ValueError(f"float_bits must be True or False, got {float_bits!r}")
    test, candidates = _select_test(sel_x, sel_xp, n_count, delta, alpha, rng_fit, float_bits)
    del sel_x, sel_xp
    fp, fn = count_errors(mechanism, x, x_prime, test, n_samples=n_count, rng=rng_count, n_jobs=n_jobs)
    eps = epsilon_lower_bound(fp, n_count, fn, n_count, delta=delta, confidence=confidence)
    return AuditResult(eps, fp, n_count, fn, n_count, test, confidence, delta, n_select, candidates)


# --------------------------------------------------------------------------- one-run auditing
def one_run_p_value(n_canaries, n_guesses, n_correct, epsilon, delta=0.0) -> float:
    r"""Probability of at least ``n_correct`` right guesses under an :math:`(\varepsilon, \delta)`-DP claim.

    Theorem of :cite:`steinke2023privacy` (Theorem 3.1): ``n_canaries`` (:math:`m`) canaries
    are each included independently with probability 1/2; from the output of an
    :math:`(\varepsilon, \delta)`-DP mechanism an auditor guesses the inclusion of at most
    ``n_guesses`` (:math:`r`) of them and abstains on the rest. With
    :math:`W \sim \mathrm{Binomial}(r, e^{\varepsilon}/(1 + e^{\varepsilon}))`, the number
    :math:`V` of correct guesses satisfies, for every :math:`v`,

    .. math:: \Pr[V \ge v] \le \Pr[W \ge v] + 2 m \delta \max_{1 \le i \le v} \frac{\Pr[v > W \ge v - i]}{i}.

    The binomial tail is exact (:func:`scipy.stats.binom.sf`), not a normal approximation.

    Parameters
    ----------
    n_canaries : int
        :math:`m`, ``>= 1``.
    n_guesses : int
        :math:`r`, in ``[0, n_canaries]``.
    n_correct : int
        :math:`v`, in ``[0, n_guesses]``.
    epsilon : float
        The :math:`\varepsilon` of the claim, finite and ``>= 0``.
    delta : float
        The :math:`\delta` of the claim, in ``[0, 1)``.

    Returns
    -------
    float
        The bound on :math:`\Pr[V \ge v]`, in ``[0, 1]``; non-decreasing in ``epsilon`` and
        ``delta``, non-increasing in ``n_correct``.

    Raises
    ------
    ValueError
        If a count is not an integer in its range or ``epsilon``, ``delta`` are out of theirs.

    Examples
    --------
    >>> round(one_run_p_value(1000, 100, 100, 0.0), 30) == round(0.5**100, 30)
    True
    >>> one_run_p_value(1000, 100, 60, 1.0) > 0.9
    True
    """
    m = check_integer("n_canaries", n_canaries, low=1)
    r = check_integer("n_guesses", n_guesses, low=0, high=m)
    v = check_integer("n_correct", n_correct, low=0, high=r)
    epsilon = check_in_range("epsilon", epsilon, 0.0)
    delta = check_delta("delta", delta)
    q = float(special.expit(epsilon))
    tail = float(stats.binom.sf(v - 1, r, q))            # Pr[W >= v]
    if delta == 0.0 or v == 0:
        return min(tail, 1.0)
    i = np.arange(1, v + 1)
    window = stats.binom.sf(v - i - 1, r, q) - tail      # Pr[v > W >= v - i]
    return float(min(tail + 2.0 * m * delta * np.max(window / i), 1.0))


def one_run_epsilon(n_canaries, n_guesses, n_correct, *, delta=0.0, confidence=0.95) -> float:
    r"""The :math:`\varepsilon` lower bound of one-run auditing (:cite:`steinke2023privacy`).

    The largest :math:`\varepsilon` whose :func:`one_run_p_value` is at most
    ``1 - confidence``: every smaller :math:`\varepsilon` (at this ``delta``) is rejected at
    that level, so the bound exceeds the truth with probability at most ``1 - confidence``.
    The number of guesses must be fixed before the output is seen (for instance the
    ``k`` highest and ``k`` lowest scores); choosing it from the output voids the guarantee.
    Found with :func:`scipy.optimize.brentq` (the p-value increases with :math:`\varepsilon`),
    then moved down until its p-value is at most ``1 - confidence`` (the root finder's own
    tolerance could leave it a hair above).

    Parameters
    ----------
    n_canaries : int
        :math:`m`, the number of canaries, ``>= 1``.
    n_guesses : int
        :math:`r`, the guesses made (abstentions excluded), ``<= n_canaries``.
    n_correct : int
        :math:`v`, the correct guesses, ``<= n_guesses``.
    delta : float
        The :math:`\delta` of the claim, in ``[0, 1)``.
    confidence : float
        In ``(0, 1)``, down to the smallest subnormal: below ``1e-4`` the test compares the
        complement of the p-value with ``confidence`` (``1 - confidence`` would round to 1 below
        ``1.1e-16``), so the bound stays finite (about ``231`` for 8 right of 10 at ``1e-300``).

    Returns
    -------
    float
        The lower bound, ``>= 0`` (``0`` when even :math:`\varepsilon = 0` is not rejected).

    Raises
    ------
    ValueError
        If a count is not an integer in its range, or ``delta`` or ``confidence`` is out of range.

    Examples
    --------
    All 100 guesses right: :math:`\varepsilon = 0` gives probability :math:`2^{-100}`, and the bound is
    where :math:`(e^{\varepsilon}/(1+e^{\varepsilon}))^{100} = 0.05`:

    >>> round(one_run_epsilon(1000, 100, 100), 6) == round(math.log(0.05**0.01 / (1 - 0.05**0.01)), 6)
    True
    """
    m = check_integer("n_canaries", n_canaries, low=1)
    r = check_integer("n_guesses", n_guesses, low=0, high=m)
    v = check_integer("n_correct", n_correct, low=0, high=r)
    delta = check_delta("delta", delta)
    confidence = _confidence(confidence)
    level = 1.0 - confidence

    if confidence >= _SMALL_CONFIDENCE:
        def gap(e):
            return one_run_p_value(m, r, v, e, delta) - level
    else:
        # 1 - confidence rounds to 1 below 1.1e-16 (the p-value never exceeded it, the search for
        # an upper end doubled to inf: 'epsilon must be finite, got inf' at confidence = 1e-300):
        # compare the p-value's complement with confidence, in logs, instead
        log_confidence = math.log(confidence)

        def gap(e):
            return log_confidence - _one_run_log_complement(m, r, v, e, delta)

    if gap(0.0) > 0:
        return 0.0
    hi = 1.0
    while gap(hi) <= 0:                  # the p-value tends to 1 as epsilon grows: this ends
        hi *= 2.0
    e = float(optimize.brentq(gap, 0.0, hi, xtol=1e-12, rtol=1e-12))
    step = 1e-12 * max(1.0, e)
    while e > 0.0 and gap(e) > 0:        # a root a hair too high would reject the truth
        e = max(0.0, e - step)
        step *= 2.0
    return e


# Below this confidence, 1 - confidence keeps fewer than 12 of its digits (the root finder's
# tolerance): one_run_epsilon then tests the complement of the p-value against the confidence.
_SMALL_CONFIDENCE = 1e-4


def _one_run_log_complement(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """``log(1 - one_run_p_value(m, r, v, epsilon, delta))``, ``-inf`` where the p-value is 1, formed
    without the cancellation of ``1 - p``: ``Pr[W < v] - 2 m delta max_i Pr[v > W >= v - i] / i``,
    the binomial masses in logs from ``log q = log expit(epsilon)`` and ``log(1 - q) =
    log expit(-epsilon)`` (``q`` itself rounds to 1 from ``epsilon = 37``, where ``Pr[W < v]`` is
    still ``e^{-37 (r - v + 1)}`` or more)."""
    if v == 0:
        return -math.inf                             # Pr[W >= 0] = 1
    w = np.arange(v)                                 # the outcomes W < v
    log_pmf = (special.gammaln(r + 1.0) - special.gammaln(w + 1.0) - special.gammaln(r - w + 1.0)
               + w * float(special.log_expit(epsilon)) + (r - w) * float(special.log_expit(-epsilon)))
    log_window = np.logaddexp.accumulate(log_pmf[::-1])   # log Pr[v > W >= v - i], i = 1..v
    log_below = float(log_window[-1])                      # log Pr[W < v]
    if delta == 0.0:
        return log_below
    t = 2.0 * m * delta * float(np.max(np.exp(log_window - log_below) / np.arange(1, v + 1)))
    return log_below + math.log1p(-t) if t < 1.0 else -math.inf


def one_run_guesses(scores, n_positive, n_negative) -> np.ndarray:
    r"""Guesses from per-canary scores: +1 for the ``n_positive`` highest, -1 for the ``n_negative`` lowest, 0 else.

    Ties are broken by position (a stable sort), so the guesses are a function of the scores alone.

    Parameters
    ----------
    scores : array_like
        One real score per canary, 1-D; ``+-inf`` allowed, nan not (it has no rank).
    n_positive, n_negative : int
        Guesses of each kind, ``n_positive + n_negative <= len(scores)``.

    Returns
    -------
    numpy.ndarray
        int8 guesses in ``{-1, 0, 1}``.

    Raises
    ------
    ValueError
        If ``scores`` is not a 1-D array of numbers without nan, or a count is out of range.

    Examples
    --------
    >>> one_run_guesses([0.3, 2.0, -1.0, 0.1], 1, 1).tolist()
    [0, 1, -1, 0]
    """
    s = _real_array("scores", scores, allow_inf=True)
    if s.ndim != 1:
        raise ValueError(f"scores must be 1-D, got shape {s.shape}")
    kp = check_integer("n_positive", n_positive, low=0, high=s.size)
    kn = check_integer("n_negative", n_negative, low=0, high=s.size - kp)
    order = np.argsort(s, kind="stable")
    guesses = np.zeros(s.size, dtype=np.int8)
    if kn:
        guesses[order[:kn]] = -1
    if kp:
        guesses[order[s.size - kp:]] = 1
    return guesses


@dataclass(frozen=True)
class OneRunResult:
    r"""Outcome of one-run auditing: the bound ``epsilon`` and the counts behind it.

    Returned by :func:`one_run_audit`; the fields are not validated.

    Attributes
    ----------
    epsilon : float
        The lower bound on :math:`\varepsilon` (natural log), ``>= 0``, from :func:`one_run_epsilon`.
    n_canaries : int
        Canaries in the run.
    n_guesses : int
        Guesses made, ``n_positive + n_negative``, in ``[0, n_canaries]``.
    n_correct : int
        Correct guesses, in ``[0, n_guesses]``.
    confidence : float
        The confidence of the bound, in ``(0, 1)``.
    delta : float
        The :math:`\delta` of the claim tested, in ``[0, 1)``.
    """

    epsilon: float
    n_canaries: int
    n_guesses: int
    n_correct: int
    confidence: float
    delta: float


def one_run_audit(run, n_canaries, *, n_positive, n_negative, rng, delta=0.0, confidence=0.95) -> OneRunResult:
    r"""Audit a mechanism in one run with ``n_canaries`` canaries (:cite:`steinke2023privacy`).

    Each canary is included independently with probability 1/2; ``run(included, rng)``
    runs the mechanism once on the data with the canaries ``included`` (a boolean array of
    length ``n_canaries``) and returns one score per canary, higher meaning "more likely
    included" (for a trained model, say, minus the canary's loss). The auditor guesses
    "included" for the ``n_positive`` highest scores and "excluded" for the
    ``n_negative`` lowest (numbers fixed in advance), and :func:`one_run_epsilon` turns the
    number of correct guesses into a bound.

    Parameters
    ----------
    run : callable
        ``run(included, rng) -> scores`` as above; its randomness from ``rng`` only.
    n_canaries : int
        In ``[1, 10**8]`` (arrays of a score and a bit per canary are built: 800 MB of scores at
        the cap).
    n_positive, n_negative : int
        Guesses of each kind, fixed in advance, ``n_positive + n_negative <= n_canaries``.
    rng : numpy.random.Generator
    delta : float
        The :math:`\delta` of the claim, in ``[0, 1)``.
    confidence : float
        In ``(0, 1)``.

    Returns
    -------
    OneRunResult

    Raises
    ------
    ValueError
        If an argument is out of range, or ``run`` does not return one score (not nan) per canary.

    Examples
    --------
    Each canary released through its own Gaussian mechanism with :math:`\sigma = 0.5`:

    >>> gauss = lambda inc, rng: inc + 0.5 * rng.standard_normal(inc.size)
    >>> res = one_run_audit(gauss, 1000, n_positive=50, n_negative=50, rng=np.random.default_rng(0))
    >>> res.n_guesses, res.epsilon > 1
    (100, True)
    """
    m = check_integer("n_canaries", n_canaries, low=1, high=MAX_ENTRIES)
    kp = check_integer("n_positive", n_positive, low=0, high=m)
    kn = check_integer("n_negative", n_negative, low=0, high=m - kp)
    rng = check_rng("rng", rng)
    delta = check_delta("delta", delta)
    confidence = _confidence(confidence)
    included = rng.random(m) < 0.5
    scores = np.asarray(run(included, rng), dtype=float)
    if scores.shape != (m,):
        raise ValueError(f"run must return one score per canary, shape ({m},), got {scores.shape}")
    if np.any(np.isnan(scores)):
        raise ValueError(f"run must return scores that are not nan, got {int(np.isnan(scores).sum())} nan")
    guesses = one_run_guesses(scores, kp, kn)
    correct = int(np.count_nonzero((guesses == 1) & included) + np.count_nonzero((guesses == -1) & ~included))
    eps = one_run_epsilon(m, kp + kn, correct, delta=delta, confidence=confidence)
    return OneRunResult(eps, m, kp + kn, correct, confidence, delta)


# ---- Gaussian-DP and f-DP auditing ---------------------------------------------------
# (issue 23) Bounds that read a trade-off curve, not a single (epsilon, delta) point, from
# error counts: the Gaussian-DP parameter mu of Nasr et al. (2023) and the bound that uses
# several tests of the same runs at once. Everything below uses one confidence region, the
# Clopper--Pearson box of every test's two error rates with a Bonferroni split over all of them.
def _count_vector(name: str, value, total_name: str, total: int) -> np.ndarray:
    """``value``: one count or a 1-D array of counts, each an integer in ``[0, total]``, as int64."""
    arr = _real_array(name, value)
    if arr.ndim > 1 or arr.size == 0:
        raise ValueError(f"{name} must be a count or a non-empty 1-D array of counts, got shape {arr.shape}")
    arr = np.atleast_1d(arr)
    bad = (arr < 0) | (arr > total) | (arr != np.floor(arr))
    if np.any(bad):
        raise ValueError(f"{name} must hold integers in [0, {total_name}] = [0, {total}], "
                         f"got {float(arr[bad][0])!r}")
    return arr.astype(np.int64)


def _box(false_positives, n_negatives, false_negatives, n_positives, confidence):
    n_neg = check_integer("n_negatives", n_negatives, low=1)
    n_pos = check_integer("n_positives", n_positives, low=1)
    fp = _count_vector("false_positives", false_positives, "n_negatives", n_neg)
    fn = _count_vector("false_negatives", false_negatives, "n_positives", n_pos)
    if fp.shape != fn.shape:
        raise ValueError(f"false_positives and false_negatives must have the same length (one pair per "
                         f"test), got {fp.size} and {fn.size}")
    level = (1.0 - _confidence(confidence)) / (2.0 * fp.size)
    return (np.atleast_1d(clopper_pearson_upper(fp, n_neg, level)),
            np.atleast_1d(clopper_pearson_upper(fn, n_pos, level)))


def simultaneous_error_bounds(false_positives, n_negatives, false_negatives, n_positives, *,
                              confidence=0.95) -> tuple[np.ndarray, np.ndarray]:
    r"""Upper confidence bounds on the error rates of :math:`k` tests that hold all at once.

    Test :math:`j` (a set :math:`S_j` of outputs called :math:`x'`, fixed before the counted
    runs) erred on ``false_positives[j]`` of ``n_negatives`` runs on :math:`x` and on
    ``false_negatives[j]`` of ``n_positives`` runs on :math:`x'`; the :math:`k` tests may score the
    same runs (thresholds of one score, say). Each of the :math:`2k` rates gets its
    :func:`clopper_pearson_upper` bound at level :math:`(1 - c)/(2k)`, :math:`c` = ``confidence``.
    By the union bound (Bonferroni) the event that every rate lies below its bound has
    probability at least :math:`c`, whatever the dependence between the tests: this box is the
    confidence region from which :func:`tradeoff_epsilon_lower_bound` and
    :func:`gdp_mu_lower_bound` read their bounds. With :math:`k = 1` it is the region of
    :func:`epsilon_lower_bound`.

    Parameters
    ----------
    false_positives, false_negatives : int or array_like of int
        One count per test (1-D, the same length :math:`k \ge 1`), in ``[0, n_negatives]`` and
        ``[0, n_positives]``.
    n_negatives, n_positives : int
        Runs on :math:`x` and on :math:`x'`, ``>= 1``.
    confidence : float
        In ``(0, 1)``.

    Returns
    -------
    (p_bar, q_bar) : tuple of numpy.ndarray
        The bounds on the false-positive and false-negative rates, shape ``(k,)``.

    Raises
    ------
    ValueError
        If a count is not an integer in its range, the two count arrays differ in length, a
        number of runs is below 1, or ``confidence`` is not in ``(0, 1)``.

    Examples
    --------
    With one test the box is :func:`epsilon_lower_bound`'s; with four, each bound is taken at a
    quarter of the level and is larger:

    >>> a = (1 - 0.95) / 2
    >>> p1, q1 = simultaneous_error_bounds(30, 1000, 600, 1000)
    >>> bool(p1[0] == clopper_pearson_upper(30, 1000, a) and q1[0] == clopper_pearson_upper(600, 1000, a))
    True
    >>> p4, q4 = simultaneous_error_bounds([30, 80, 150, 300], 1000, [600, 450, 330, 170], 1000)
    >>> bool(p4[0] == clopper_pearson_upper(30, 1000, a / 4) > p1[0])
    True
    """
    return _box(false_positives, n_negatives, false_negatives, n_positives, confidence)


def gdp_mu_from_errors(alpha, beta):
    r"""The :math:`\mu` of the Gaussian trade-off curve through the error pair :math:`(\alpha, \beta)`.

    :math:`\mu`-GDP (:cite:`dong2022gaussian`) requires every test to have
    :math:`\beta \ge G_\mu(\alpha) = \Phi(\Phi^{-1}(1 - \alpha) - \mu)`. Since :math:`\Phi` is
    increasing, this is :math:`\Phi^{-1}(\beta) \ge \Phi^{-1}(1-\alpha) - \mu`, that is

    .. math:: \mu \;\ge\; \Phi^{-1}(1 - \alpha) + \Phi^{-1}(1 - \beta) = -\Phi^{-1}(\alpha) - \Phi^{-1}(\beta),

    and the right-hand side, returned here, is the smallest :math:`\mu` whose curve passes
    below or through the pair. It is symmetric in :math:`\alpha, \beta` (the test read in the
    other direction, :math:`x'` against :math:`x`, has the pair swapped) and decreasing in both;
    negative when :math:`\alpha + \beta > 1` (a test that does worse than a coin). Written with
    :math:`-\Phi^{-1}(\alpha)` (``scipy.special.ndtri``) rather than :math:`\Phi^{-1}(1-\alpha)`,
    which loses every digit of a small :math:`\alpha`.

    Parameters
    ----------
    alpha, beta : float or array_like
        Error rates in ``[0, 1]`` (broadcast together). A rate 0 gives ``+inf`` (no Gaussian curve
        passes below it), a rate 1 gives ``-inf``; the two together are refused.

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ValueError
        If a rate is not a number in ``[0, 1]``, or a pair has one rate 0 and the other 1.

    Examples
    --------
    The Gaussian mechanism with :math:`\mu = 1.5` (outputs :math:`N(0,1)` on :math:`x`,
    :math:`N(1.5,1)` on :math:`x'`): the test "output > t" has :math:`\alpha = \Phi(-t)` and
    :math:`\beta = \Phi(t - 1.5)`, on :math:`G_{1.5}` for every threshold :math:`t`:

    >>> from scipy.stats import norm
    >>> [round(float(gdp_mu_from_errors(norm.sf(t), norm.cdf(t - 1.5))), 12) for t in (-1.0, 0.5, 3.0)]
    [1.5, 1.5, 1.5]
    >>> float(gdp_mu_from_errors(0.5, 0.5)), float(gdp_mu_from_errors(0.0, 0.3))
    (0.0, inf)
    """
    a = _real_array("alpha", alpha)
    b = _real_array("beta", beta)
    for name, arr in (("alpha", a), ("beta", b)):
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError(f"{name} must be in [0, 1], got {alpha if name == 'alpha' else beta!r}")
    try:
        a, b = np.broadcast_arrays(a, b)
    except ValueError:
        raise ValueError(f"alpha and beta must have shapes that broadcast, got {a.shape} and {b.shape}") from None
    if np.any(((a == 0) & (b == 1)) | ((a == 1) & (b == 0))):
        raise ValueError("alpha and beta must not be 0 and 1 together: -inf + inf has no value")
    out = 0.0 - special.ndtri(a) - special.ndtri(b)        # 0.0 - ...: no -0.0 at alpha = beta = 1/2
    return float(out) if out.ndim == 0 else out


def gdp_mu_lower_bound(false_positives, n_negatives, false_negatives, n_positives, confidence=0.95) -> float:
    r"""A lower confidence bound on the Gaussian-DP parameter :math:`\mu` from error counts.

    The method of :cite:`nasr2023tight` (their conversion of an audit's error rates through
    Gaussian DP), for one test or for :math:`k` tests at once. With the simultaneous box
    :math:`\bar\alpha_j, \bar\beta_j` of :func:`simultaneous_error_bounds` (level
    :math:`(1-c)/(2k)` each), the result is

    .. math:: \hat\mu = \max\Bigl(0,\ \max_j \bigl[-\Phi^{-1}(\bar\alpha_j) - \Phi^{-1}(\bar\beta_j)\bigr]\Bigr),

    the smallest :math:`\mu` whose curve :math:`G_\mu` no point of the box lies below
    (:func:`gdp_mu_from_errors` of the box's corner, the point most favourable to privacy).
    **Soundness**: if the mechanism is :math:`\mu`-GDP on this pair, then with probability at
    least ``confidence`` every rate lies in its box, so
    :math:`\hat\mu \le \max_j \mu(\alpha_j, \beta_j) \le \mu` (the function decreases in both
    rates, and every test of a :math:`\mu`-GDP pair has :math:`\mu(\alpha, \beta) \le \mu`). No
    assumption on the shape of the mechanism's trade-off curve is needed for this bound on
    :math:`\mu`; only its translation into :math:`\varepsilon` (:func:`gdp_epsilon_lower_bound`)
    needs one. Each test's direction is fixed by its counts: the bound never takes
    :math:`|\mu|` of a test that does worse than a coin (that would need *lower* bounds on its
    rates, which this box does not give); to try both directions, pass both tests, the second
    with counts ``n_negatives - false_positives`` and ``n_positives - false_negatives``.

    Parameters
    ----------
    false_positives, false_negatives : int or array_like of int
        One count per test, fixed before the runs were counted (1-D, the same length).
    n_negatives, n_positives : int
        Runs on :math:`x` and on :math:`x'`, ``>= 1``.
    confidence : float
        In ``(0, 1)``.

    Returns
    -------
    float
        :math:`\hat\mu \ge 0`.

    Raises
    ------
    ValueError
        As :func:`simultaneous_error_bounds`.

    Examples
    --------
    The Gaussian mechanism with :math:`\mu = 0.5`, test "output > 0.25" (both rates
    :math:`\Phi(-0.25) \approx 0.401`), with counts equal to their expectations on 100 000 runs:

    >>> from scipy.stats import norm
    >>> k = round(100_000 * norm.sf(0.25))
    >>> mu_hat = gdp_mu_lower_bound(k, 100_000, k, 100_000)
    >>> 0.48 < mu_hat < 0.5
    True
    >>> gdp_mu_lower_bound(50_000, 100_000, 50_000, 100_000)     # a coin: nothing to show
    0.0
    """
    p_bar, q_bar = _box(false_positives, n_negatives, false_negatives, n_positives, confidence)
    mu = -special.ndtri(p_bar) - special.ndtri(q_bar)        # p_bar, q_bar in (0, 1]: never inf - inf
    return float(max(0.0, float(np.max(mu))))


def gdp_epsilon_lower_bound(false_positives, n_negatives, false_negatives, n_positives, delta,
                            confidence=0.95) -> float:
    r"""The :math:`\varepsilon(\delta)` of the Gaussian curve with :math:`\mu =` :func:`gdp_mu_lower_bound`.

    Returns :math:`\varepsilon_{G}(\delta; \hat\mu)`, the exact :math:`\varepsilon` at which a
    :math:`\hat\mu`-GDP pair (the Gaussian mechanism with :math:`\Delta/\sigma = \hat\mu`) has
    privacy profile :math:`\delta` (:func:`dpnotes.loss.gaussian_epsilon`, the profile of
    :cite:`balle2018improving`), as :cite:`nasr2023tight` do. **This is a lower bound on the
    mechanism's** :math:`\varepsilon(\delta)` **only if its trade-off curve on this pair is
    Gaussian**, :math:`T = G_{\mu_0}` for some :math:`\mu_0`: then its profile is the Gaussian's
    at :math:`\mu_0` (a profile is a function of the trade-off curve), :math:`\hat\mu \le \mu_0`
    with probability at least ``confidence``, and :math:`\varepsilon_G(\delta; \mu)` increases
    in :math:`\mu`. For a mechanism whose curve is not Gaussian the value can exceed the true
    :math:`\varepsilon(\delta)` at every confidence (randomized response is the auditing chapter's
    example); :func:`tradeoff_epsilon_lower_bound` needs no such assumption.

    Parameters
    ----------
    false_positives, n_negatives, false_negatives, n_positives, confidence
        As :func:`gdp_mu_lower_bound`.
    delta : float
        In ``(0, 1)``: at :math:`\delta = 0` a Gaussian curve has :math:`\varepsilon = \infty`.

    Returns
    -------
    float
        ``0`` when :math:`\hat\mu = 0`.

    Raises
    ------
    ValueError
        As :func:`gdp_mu_lower_bound`, or if ``delta`` is not in ``(0, 1)``.

    Examples
    --------
    The example of :func:`gdp_mu_lower_bound`, at :math:`\delta = 10^{-5}`; the exact
    :math:`\varepsilon` of :math:`\mu = 0.5` there is 1.99:

    >>> from scipy.stats import norm
    >>> from dpnotes.loss import gaussian_epsilon
    >>> k = round(100_000 * norm.sf(0.25))
    >>> e = gdp_epsilon_lower_bound(k, 100_000, k, 100_000, 1e-5)
    >>> round(gaussian_epsilon(1e-5, 0.5), 2), 1.9 < e < gaussian_epsilon(1e-5, 0.5)
    (1.99, True)
    """
    from .loss import gaussian_epsilon

    delta = check_in_range("delta", delta, 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    mu = gdp_mu_lower_bound(false_positives, n_negatives, false_negatives, n_positives, confidence)
    return 0.0 if mu == 0.0 else float(gaussian_epsilon(delta, mu))


def tradeoff_epsilon_lower_bound(false_positives, n_negatives, false_negatives, n_positives, delta=0.0,
                                 confidence=0.95):
    r"""A lower bound on :math:`\varepsilon(\delta)` from several tests at once, for one or many :math:`\delta`.

    :math:`(\varepsilon, \delta)`-DP on a pair is :math:`f`-DP with the piecewise-linear curve
    :math:`f_{\varepsilon,\delta}(\alpha) = \max(0, 1 - \delta - e^{\varepsilon}\alpha,
    e^{-\varepsilon}(1 - \delta - \alpha))` (:cite:`kairouz2015composition`, :cite:`dong2022gaussian`).
    A box corner :math:`(\bar\alpha_j, \bar\beta_j)` of :func:`simultaneous_error_bounds` that lies
    below :math:`f_{\varepsilon,\delta}` rejects that :math:`\varepsilon`; the rejected
    :math:`\varepsilon` of one corner are those below :func:`epsilon_lower_bound`'s formula, so the
    result is

    .. math:: \hat\varepsilon(\delta) = \max\Bigl(0,\ \max_j \max\Bigl(\log\frac{1-\delta-\bar\beta_j}{\bar\alpha_j},\ \log\frac{1-\delta-\bar\alpha_j}{\bar\beta_j}\Bigr)\Bigr),

    a term dropped where its numerator is :math:`\le 0`. **Soundness, simultaneous in**
    :math:`\delta`: on the event of probability at least ``confidence`` that every rate lies in
    its box, :math:`f_{\varepsilon(\delta),\delta}(\bar\alpha_j) \le f_{\varepsilon(\delta),\delta}(\alpha_j)
    \le \beta_j \le \bar\beta_j` for every test and every :math:`\delta`, so no true
    :math:`\varepsilon(\delta)` is rejected: :math:`\hat\varepsilon(\delta) \le \varepsilon(\delta)`
    for all :math:`\delta` at once. With one test this is :func:`epsilon_lower_bound`. More tests
    reach more of the curve; each costs a stricter level for all (the Bonferroni split over
    :math:`2k` rates).

    Parameters
    ----------
    false_positives, n_negatives, false_negatives, n_positives, confidence
        As :func:`simultaneous_error_bounds`.
    delta : float or array_like
        In ``[0, 1)``; an array gives the bound at each :math:`\delta`, all from one confidence event.

    Returns
    -------
    float or numpy.ndarray
        The bound (natural log, ``>= 0``), an array of ``delta``'s shape when ``delta`` is one.

    Raises
    ------
    ValueError
        As :func:`simultaneous_error_bounds`, or if a ``delta`` is not in ``[0, 1)``.

    Examples
    --------
    >>> tradeoff_epsilon_lower_bound(30, 1000, 600, 1000) == epsilon_lower_bound(30, 1000, 600, 1000)
    True
    >>> fp, fn = [30, 80, 150], [600, 450, 330]
    >>> b = tradeoff_epsilon_lower_bound(fp, 1000, fn, 1000, delta=[0.0, 0.1])
    >>> b.shape, bool(b[0] > b[1])
    ((2,), True)
    """
    d = _real_array("delta", delta)
    if np.any((d < 0) | (d >= 1)):
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    p_bar, q_bar = _box(false_positives, n_negatives, false_negatives, n_positives, confidence)
    out = _bound_from_upper(p_bar, q_bar, d[..., None]).max(axis=-1)
    return float(out) if out.ndim == 0 else out


def nested_tests_exceedance(cdf_x, cdf_x_prime, n_negatives, n_positives, point_exceeds) -> float:
    r"""Exact probability that some test of a family of thresholds gives a bound above a value.

    The tests are :math:`S_j = \{y > t_j\}` for thresholds :math:`t_1 < \dots < t_k` of a real
    output (or score), all scored on the same runs: ``n_negatives`` runs on :math:`x`, whose law
    has :math:`\Pr[y \le t_j]` = ``cdf_x[j]``, and ``n_positives`` on :math:`x'` (``cdf_x_prime``).
    Test :math:`j` has :math:`\mathrm{FP}_j = \#\{x\text{-runs} > t_j\}` and
    :math:`\mathrm{FN}_j = \#\{x'\text{-runs} \le t_j\}`: the counts of different tests are
    dependent. ``point_exceeds(fp, fn)`` says, for a test with those counts, whether its bound
    exceeds the value of interest (for instance the true :math:`\varepsilon`); it receives integer
    arrays of shapes ``(n_negatives + 1, 1)`` and ``(1, n_positives + 1)`` and returns the
    broadcast boolean array. The result is :math:`\Pr[\exists j:` ``point_exceeds``
    :math:`(\mathrm{FP}_j, \mathrm{FN}_j)]`, the probability that a bound which takes the largest of
    the tests' bounds (:func:`tradeoff_epsilon_lower_bound`, :func:`gdp_mu_lower_bound`) exceeds it.

    Computed exactly, without simulation: the counts :math:`A_j = \#\{x\text{-runs} \le t_j\}`
    form a Markov chain, :math:`A_{j+1} - A_j \mid A_j \sim \mathrm{Bin}(n - A_j,\
    (F_{j+1} - F_j)/(1 - F_j))`, independent of the chain of the :math:`x'`-runs; the mass of the
    pairs :math:`(A_j, B_j)` on which no test has exceeded yet is carried from threshold to
    threshold by two binomial transition matrices (``scipy.stats.binom``), :math:`O(k n^3)` work.
    Hand-written because no library sums this union over dependent tests.

    Parameters
    ----------
    cdf_x, cdf_x_prime : array_like
        1-D, the same length :math:`k \ge 1`, non-decreasing, in ``[0, 1]``.
    n_negatives, n_positives : int
        In ``[1, 2000]`` (the transition matrices are dense).
    point_exceeds : callable
        As above.

    Returns
    -------
    float
        In ``[0, 1]``.

    Raises
    ------
    ValueError
        If the CDF arrays are not of that form, a number of runs is out of range, or
        ``point_exceeds`` does not return a boolean array of the broadcast shape.

    Examples
    --------
    One threshold: the union is one event, and its probability is a double sum of binomial
    probabilities:

    >>> fx, fxp = [0.6], [0.3]
    >>> exceeds = lambda fp, fn: fp + fn <= 5
    >>> k0, k1 = np.arange(11)[:, None], np.arange(11)[None, :]
    >>> direct = (stats.binom.pmf(k0, 10, 0.4) * stats.binom.pmf(k1, 10, 0.3) * (k0 + k1 <= 5)).sum()
    >>> math.isclose(nested_tests_exceedance(fx, fxp, 10, 10, exceeds), direct, rel_tol=1e-12)
    True
    """
    cdfs = []
    for name, c in (("cdf_x", cdf_x), ("cdf_x_prime", cdf_x_prime)):
        arr = _real_array(name, c)
        if arr.ndim != 1 or arr.size == 0 or np.any((arr < 0) | (arr > 1)) or np.any(np.diff(arr) < 0):
            raise ValueError(f"{name} must be a non-empty 1-D non-decreasing array in [0, 1], got {c!r}")
        cdfs.append(arr)
    if cdfs[0].size != cdfs[1].size:
        raise ValueError(f"cdf_x and cdf_x_prime must have the same length, got {cdfs[0].size} and {cdfs[1].size}")
    n0 = check_integer("n_negatives", n_negatives, low=1, high=2000)
    n1 = check_integer("n_positives", n_positives, low=1, high=2000)
    fp = n0 - np.arange(n0 + 1)[:, None]          # FP_j as a function of A_j (rows)
    fn = np.arange(n1 + 1)[None, :]                # FN_j = B_j (columns)
    out = np.asarray(point_exceeds(fp, fn))
    if out.shape != (n0 + 1, n1 + 1) or out.dtype != bool:
        raise ValueError(f"point_exceeds must return a bool array of shape ({n0 + 1}, {n1 + 1}), "
                         f"got {out.dtype} of shape {out.shape}")
    alive = ~out

    def kernel(n, f_prev, f_next):
        # P(A_next = a' | A = a) = Binomial(n - a, r) at a' - a, r the conditional mass of (t_j, t_j+1]
        r = 0.0 if f_prev >= 1.0 else min(1.0, max(0.0, (f_next - f_prev) / (1.0 - f_prev)))
        a = np.arange(n + 1)
        return stats.binom.pmf(a[None, :] - a[:, None], n - a[:, None], r)

    fx, fxp = cdfs
    mass = np.outer(stats.binom.pmf(np.arange(n0 + 1), n0, fx[0]), stats.binom.pmf(np.arange(n1 + 1), n1, fxp[0]))
    mass = np.where(alive, mass, 0.0)
    # small dense products: one BLAS thread is ten times faster than several on a busy machine
    with threadpool_limits(1, user_api="blas") if threadpool_limits is not None else contextlib.nullcontext():
        for j in range(1, fx.size):
            mass = kernel(n0, fx[j - 1], fx[j]).T @ mass @ kernel(n1, fxp[j - 1], fxp[j])
            mass = np.where(alive, mass, 0.0)
    return float(min(1.0, max(0.0, 1.0 - mass.sum())))
