"""Soundness fuzzer of dpnotes.audit: the auditor's error rate holds on mechanisms nobody has seen.

An auditor promises that its bound exceeds the mechanism's true epsilon with probability at
most ``1 - confidence``, for *every* mechanism and every way the mechanism writes its outputs.
Here the mechanisms are random but their epsilon is known exactly:

* **laws**: two laws ``a``, ``b`` on ``K`` outputs with integer weights over ``2**24`` (sampled
  exactly from ``rng.integers``, so the law is exactly the stated one), often with rare outputs
  carrying the largest ratio, sometimes every output at the largest ratio (randomized
  response, where audits come closest). At ``delta = 0`` the mechanism's epsilon is
  ``max |log(b_i / a_i)|``; at ``delta > 0`` it is the exact ``epsilon(delta)`` of the
  hockey-stick divergence (:func:`exact_epsilon`).
* **encodings**: the output index is written into 1 to 30 columns: a code per output (small
  integers, offsets beyond 2**53, +-2**63, magnitudes up to 1e300, nan and +-inf as
  categories, -0.0 beside 0.0), or its digits, or one-hot; beside it constant columns (an ID,
  a timestamp, 1e300, the int64 extremes) and random columns that ignore the input (noise of any
  scale, random int64, random nan); columns permuted; one dtype for the whole array (float64,
  float32, int64, uint64, int8, bool). Each encoding is a fixed function of the output and of
  noise independent of the input, so by post-processing the encoded mechanism is no less
  private than the laws: a bound above the laws' epsilon is an error of the auditor.

Each audit is one Bernoulli trial "the bound exceeds the true epsilon"; the count over many
seeded audits must pass a one-sided binomial test (:func:`scipy.stats.binomtest`) against the
promised rate ``1 - confidence`` at significance ``SIGNIFICANCE``, and no audit's counts may
exceed the truth even at a far stricter confidence (:class:`Tally`). The same for
``one_run_audit``, with canaries released through random finite laws. ``make test`` runs a
moderate number of audits, ``make verify`` (``DPNOTES_PROFILE=thorough``) a large one.

What it catches (measured on scratch copies): the discretizer of before issue 22 crashes on
these encodings (IndexError, OverflowError) in the moderate run; with its crashes patched, the
large run flags gross overshoots (bounds 3.5 where the truth is 0.33) at both confidences.
An auditor that includes canaries with probability 0.6 or 0.4 instead of 1/2 fails the
one-run checks in the moderate run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import profiles
from dpnotes import audit

DENOM = 2**24
SIGNIFICANCE = 1e-3      # a correct auditor fails a fuzz run with probability below this


# ----------------------------------------------------------------- exact laws and their epsilon
def _to_weights(p: np.ndarray) -> np.ndarray:
    """Integer weights >= 1 summing to DENOM, proportional to p up to rounding."""
    w = np.maximum(1, np.floor(p * DENOM)).astype(np.int64)
    w[np.argmax(w)] += DENOM - w.sum()
    assert w.min() >= 1 and w.sum() == DENOM
    return w


def exact_epsilon(a, b, delta=0.0) -> float:
    r"""The smallest epsilon with :math:`H_{e^\varepsilon}(P\|Q) \le \delta` in both directions, for
    laws with integer weights ``a``, ``b`` (over ``DENOM``).

    :math:`H_t(P\|Q) = \max_S P(S) - t\,Q(S) \le \delta` iff :math:`t \ge (P(S) - \delta)/Q(S)`
    for every S; the largest of these ratios is reached on a set of the outputs of largest
    :math:`P_i/Q_i` (the S that attains :math:`H_{t^*}`), so the prefixes of that order suffice.
    At delta = 0 this is max |log(b_i / a_i)|."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    best = 0.0
    for p, q in ((a, b), (b, a)):
        order = np.argsort(-(p / q), kind="stable")
        ps, qs = np.cumsum(p[order]), np.cumsum(q[order])
        for ps_k, qs_k in zip(ps.tolist(), qs.tolist()):
            num = ps_k - delta * DENOM
            if num > 0:
                best = max(best, math.log(num / qs_k))
    return best


def test_exact_epsilon_is_the_largest_set_ratio():
    """Against every subset S of up to 7 outputs: epsilon(delta) = max over S and both directions of
    log((P(S) - delta) / Q(S)), and 0 when no set gives a positive value."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        k = int(rng.integers(1, 8))
        a = _to_weights(rng.dirichlet(np.ones(k)))
        b = _to_weights(rng.dirichlet(np.ones(k)))
        delta = float(rng.choice([0.0, 1e-3, 0.05, 0.3]))
        best = 0.0
        for mask in range(1, 2**k):
            s = [i for i in range(k) if mask >> i & 1]
            for p, q in ((a, b), (b, a)):
                num = p[s].sum() / DENOM - delta
                if num > 0:
                    best = max(best, math.log(num / (q[s].sum() / DENOM)))
        assert exact_epsilon(a, b, delta) == pytest.approx(best, rel=1e-12, abs=1e-15)


def test_sample_draws_exactly_the_stated_law():
    """Every one of the DENOM uniform integers maps to one output: the counts are the weights."""
    class EveryInteger:                          # stands in for the generator: each integer once
        def integers(self, low, high, size):
            assert (low, high, size) == (0, DENOM, DENOM)
            return np.arange(DENOM)

    w = _to_weights(np.array([0.5, 1e-6, 0.25, 0.249999]))
    assert np.bincount(sample(w, DENOM, EveryInteger()), minlength=w.size).tolist() == w.tolist()


def random_laws(rng, n_runs):
    """Two laws on K outputs: rare outputs often carry the largest ratio, often rare enough
    (about 1/n_runs) to be missing from the runs that choose a test and present in the counted ones."""
    k = int(rng.integers(2, 9))
    eps0 = float(rng.uniform(0.2, 3.0))
    base = rng.dirichlet(np.full(k, rng.uniform(0.3, 3.0)))
    u = rng.uniform(-1.0, 1.0, k) * eps0 * rng.uniform(0.0, 1.0)
    style = rng.random()
    if style < 0.25:                            # every output at the largest ratio (RR-like)
        u = eps0 * rng.choice([-1.0, 1.0], k)
    elif style < 0.8:                           # one to three rare outputs carry it
        rare = rng.choice(k, int(rng.integers(1, min(3, k - 1) + 1)), replace=False)
        lo, hi = (np.log10(0.3 / n_runs), np.log10(5 / n_runs)) if rng.random() < 0.5 else (-3.5, -1.3)
        base[rare] = 10.0 ** rng.uniform(lo, hi, rare.size)
        u[rare] = eps0 * rng.choice([-1.0, 1.0], rare.size)
    base /= base.sum()
    q = base * np.exp(u)
    return _to_weights(base), _to_weights(q / q.sum())


def sample(weights, size, rng):
    """Exactly the law weights / DENOM: the first index whose cumulative weight exceeds a
    uniform integer of [0, DENOM)."""
    return np.searchsorted(np.cumsum(weights), rng.integers(0, DENOM, size), side="right")


# ----------------------------------------------------------------- encodings
DTYPES = ["float64", "float32", "int64", "uint64", "int8", "bool"]
# what an output may carry beside its value: IDs and timestamps (integers beyond 2**51, which
# float64 sums round), the extremes of each dtype, symbols
IDS = {
    "float64": [2.0**51 + 1, 2.0**52 + 3, 2.0**53, 2.0**60 + 2**8, 1.7e12, 1.7e18, -(2.0**63)],
    "float32": [2.0**51, 2.0**24 + 2, 1.7e12],
    "int64": [2**51 + 1, 2**53 + 1, 1_700_000_000_000_000_000, 2**63 - 1, -(2**63)],
    "uint64": [2**51 + 1, 2**64 - 1, 2**63, 1_700_000_000_000_000_000],
    "int8": [127, -128],
    "bool": [True],
}
OTHER_CONSTANTS = {
    "float64": [1e300, -1e300, 0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324],
    "float32": [1e30, 0.0, -0.0, np.nan, -np.inf],
    "int64": [0, -1],
    "uint64": [0],
    "int8": [0, 5],
    "bool": [False],
}


def _codes(rng, dtype, k, consecutive=False):
    """A value per output for one column (distinct, except -0.0 beside 0.0, which merges two)."""
    if dtype == "bool":
        return np.array([i % 2 for i in range(k)], dtype=bool)
    if dtype == "int8":
        lo = int(rng.choice([-128, -1, 0, 7, 127 - k]))
        return np.array([lo + i for i in range(k)], dtype=np.int8)
    if dtype in ("int64", "uint64"):
        info = np.iinfo(dtype)
        if consecutive or rng.random() < 0.5:
            offsets = [0, 0, 1, 2**51 + 1, 2**53 - 2, 2**62, int(info.max) - k, int(info.min)]
            lo = offsets[int(rng.integers(len(offsets)))]
            vals = [lo + i for i in range(k)]
        else:
            vals = rng.choice(2**41, k, replace=False) - (2**40 if dtype == "int64" else 0)
            big = 2**22 if dtype == "int64" else 2**23                    # up to 2**62, 2**64
            vals = [int(v) * int(rng.choice([1, big])) for v in vals]
        return np.array(vals, dtype=dtype)
    style = 0.0 if consecutive else rng.random()
    if style < 0.4:
        lo = float(rng.choice([0.0, 0.0, -3.0, 2.0**51 + 1, 2.0**53 - 2, 1.7e12, 2.0**60]))
        vals = [lo + i for i in range(k)]
    elif style < 0.7:
        vals = list(rng.choice([-1.0, 1.0], k) * 10.0 ** rng.uniform(-300, 300, k))
    else:
        vals = [0.5 * i for i in range(k)]
    if not consecutive:
        specials = [np.nan, np.inf, -np.inf, -0.0, 0.0]
        for i in rng.choice(k, int(rng.integers(0, min(k, 4) + 1)), replace=False):
            vals[i] = specials[int(rng.integers(len(specials)))]
    with np.errstate(over="ignore"):
        return np.array(vals, dtype=np.float64).astype(dtype)


def _value_columns(rng, dtype, k, style):
    """Columns that carry the output index: one code, its digits, or one-hot."""
    if style in ("code", "consecutive") or k < 3:
        table = _codes(rng, dtype, k, consecutive=style == "consecutive")
        cols = [lambda idx, r, t=table: t[idx]]
        if dtype == "bool" and k > 2:                 # a bool code cannot hold k values: add digits
            cols += [lambda idx, r, bit=bit: ((idx >> bit) & 1).astype(bool)
                     for bit in range(1, int(np.ceil(np.log2(k))))]
        return cols
    if style == "digits":
        base = 2 if dtype == "bool" else int(rng.choice([2, 3]))
        t = _codes(rng, dtype, base, consecutive=True)
        return [lambda idx, r, j=j: t[(idx // base**j) % base] for j in range(int(np.ceil(np.log(k) / np.log(base))))]
    hot = np.eye(k, dtype=np.int64).astype(dtype)
    return [lambda idx, r, j=j: hot[idx, j] for j in range(k)]


def _extra_column(rng, dtype, kind):
    """A column that ignores the input: a constant (an ID, an extreme, a symbol) or noise."""
    if kind == "id" or (kind == "constant" and rng.random() < 0.5):
        c = IDS[dtype][int(rng.integers(len(IDS[dtype])))]
        return lambda idx, r: np.full(idx.size, c, dtype=dtype)
    if kind == "constant":
        c = OTHER_CONSTANTS[dtype][int(rng.integers(len(OTHER_CONSTANTS[dtype])))]
        return lambda idx, r: np.full(idx.size, c, dtype=dtype)
    if dtype == "bool":
        return lambda idx, r: r.random(idx.size) < 0.3
    if kind == "timestamp":                        # a huge value plus a small random one
        base = IDS[dtype][int(rng.integers(len(IDS[dtype])))]
        if dtype.startswith("float"):
            return lambda idx, r: (base + r.integers(0, 1000, idx.size)).astype(dtype)
        info = np.iinfo(dtype)
        span = min(1000, (int(info.max) - int(info.min)) // 4)
        base = np.array(min(max(int(base), int(info.min)), int(info.max) - span), dtype=dtype)
        return lambda idx, r: r.integers(0, span, idx.size).astype(dtype) + base
    if dtype.startswith("float"):
        scale = float(10.0 ** rng.uniform(-300, 300)) if rng.random() < 0.5 else 1.0
        nan_share = float(rng.choice([0.0, 0.1]))

        def noise(idx, r):
            out = r.standard_normal(idx.size) * scale
            out[r.random(idx.size) < nan_share] = np.nan
            return out.astype(dtype)
        return noise
    info = np.iinfo(dtype)
    lo, hi = (info.min, info.max) if rng.random() < 0.5 else (0, 3)
    return lambda idx, r: r.integers(lo, hi, idx.size, dtype=dtype, endpoint=True)


def _lattice_encoding(rng, k):
    """A single float64 whose bits carry the output: the index in the lowest mantissa bits (or in
    the last bits above a random shift, or as a choice among K neighbouring doubles), the other
    mantissa bits and the binade random and independent of the input. Only the auditor's
    floating-point scores can read such outputs; the encoding is injective, so the laws' epsilon
    is the mechanism's."""
    width = int(np.ceil(np.log2(max(k, 2))))
    shift = int(rng.choice([0, 0, 3, 20]))
    exps = rng.choice(np.arange(1000, 1050), int(rng.integers(1, 4)), replace=False).astype(np.uint64)
    style = rng.random()

    def encode(idx, r):
        idx = idx.astype(np.uint64)
        exp = exps[r.integers(0, exps.size, idx.size)]
        if style < 0.3:                                  # K neighbouring doubles above a random one
            start = r.integers(0, 2**51, idx.size, dtype=np.uint64)
            mant = start + idx
        else:
            noise = r.integers(0, 2**52, idx.size, dtype=np.uint64)
            field = np.uint64(((1 << width) - 1) << shift)
            mant = (noise & ~field) | (idx << np.uint64(shift))
        return ((exp << np.uint64(52)) | mant).view(np.float64)

    return encode, f"lattice width={width} shift={shift}"


def _running_encoding(rng, k):
    """Running sums along a row of float64 columns: a code of the index (with symbols) and
    continuous noise, summed left to right, so that the index shows in the differences of
    adjacent columns (what the auditor's pattern scores on differences read); nan or +-inf
    spread to the right of a symbol, a post-processing that can only lower the epsilon."""
    columns = _value_columns(rng, "float64", k, str(rng.choice(["code", "digits", "onehot"])))
    columns += [_extra_column(rng, "float64", "noise") for _ in range(int(rng.integers(1, 5)))]
    perm = rng.permutation(len(columns))

    def encode(idx, r):
        out = np.empty((idx.size, len(columns)))
        for j, c in enumerate(perm):
            out[:, j] = columns[c](idx, r)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.cumsum(out, axis=1)

    return encode, f"running d={len(columns)}"


def random_encoding(rng, k):
    """A function (index array, rng) -> output array, from one of six families: a value beside
    IDs and timestamps; a code (symbols, huge magnitudes) with a few extras; a pattern (digits,
    one-hot); a wide row of 10 to 30 columns; a lattice of doubles (the index in a double's last
    bits); running sums of a code and noise columns. Columns permuted, one dtype for the array."""
    family = str(rng.choice(["id", "code", "pattern", "wide", "lattice", "running"],
                            p=[0.2, 0.2, 0.25, 0.1, 0.15, 0.1]))
    if family == "lattice":
        return _lattice_encoding(rng, k)
    if family == "running":
        return _running_encoding(rng, k)
    if family == "id":
        dtype = str(rng.choice(["float64", "float64", "int64", "uint64"]))
        columns = _value_columns(rng, dtype, k, "consecutive")
        columns += [_extra_column(rng, dtype, str(rng.choice(["id", "id", "timestamp", "noise"])))
                    for _ in range(int(rng.integers(1, 4)))]
    elif family == "code":
        dtype = str(rng.choice(DTYPES))
        columns = _value_columns(rng, dtype, k, "code")
        columns += [_extra_column(rng, dtype, str(rng.choice(["constant", "noise"])))
                    for _ in range(int(rng.integers(0, 3)))]
    elif family == "pattern":
        dtype = str(rng.choice(["bool", "int8", "int64", "float64", "float32"]))
        columns = _value_columns(rng, dtype, k, str(rng.choice(["digits", "onehot"])))
        columns += [_extra_column(rng, dtype, str(rng.choice(["constant", "id", "noise"])))
                    for _ in range(int(rng.integers(0, 3)))]
    else:
        dtype = str(rng.choice(DTYPES))
        columns = _value_columns(rng, dtype, k, str(rng.choice(["code", "consecutive", "digits", "onehot"])))
        width = int(rng.choice([10, 20, 30]))
        columns += [_extra_column(rng, dtype, str(rng.choice(["constant", "id", "timestamp", "noise"])))
                    for _ in range(max(0, width - len(columns)))]
    perm = rng.permutation(len(columns))
    flat = len(columns) == 1 and rng.random() < 0.5

    def encode(idx, r):
        out = np.empty((idx.size, len(columns)), dtype=dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            for j, c in enumerate(perm):
                out[:, j] = columns[c](idx, r)
        return out[:, 0] if flat else out

    return encode, f"{family} dtype={dtype} d={len(columns)}"


def random_mechanism(seed, n_runs):
    rng = np.random.default_rng([22, seed])
    a, b = random_laws(rng, n_runs)
    encode, name = random_encoding(rng, a.size)
    laws = (a, b)

    def mechanism(data, size, r):
        return encode(sample(laws[data], size, r), r)

    return mechanism, a, b, f"K={a.size} {name}"


# ----------------------------------------------------------------- the fuzz runs
class Tally:
    """Two checks on a fuzz run of ``trials`` audits, each failing a correct auditor with
    probability at most SIGNIFICANCE:

    * the rate: audits whose bound exceeds the true epsilon, against ``1 - confidence``
      (one-sided binomial test);
    * the extremes: given the test an audit chose, its counts are binomial, so the bound that
      the *same counts* give at the strict confidence ``1 - SIGNIFICANCE / trials`` exceeds
      the truth with probability at most ``SIGNIFICANCE / trials``; by the union bound, any
      audit doing so fails the run. This catches rare but gross overshoots (a bound of 3.1
      where the truth is 0.7) that a rate test at 5 % would let through."""

    def __init__(self, trials, confidence):
        self.trials, self.confidence = trials, confidence
        self.strict = 1 - SIGNIFICANCE / trials
        self.exceed, self.extreme, self.worst = 0, [], []

    def add(self, bound, strict_bound, true, label):
        if bound > true:
            self.exceed += 1
            self.worst.append((round(bound - true, 3), label))
        if strict_bound > true:
            self.extreme.append((round(strict_bound, 4), round(true, 4), label))

    def check(self, what):
        rate = 1 - self.confidence
        p = stats.binomtest(self.exceed, self.trials, rate, alternative="greater").pvalue
        assert p >= SIGNIFICANCE, (
            f"{what}: the bound exceeded the true epsilon in {self.exceed} of {self.trials} audits, "
            f"significantly more than the promised {rate:.0%} (p = {p:.2g}; worst {sorted(self.worst)[-3:]})")
        assert not self.extreme, (
            f"{what}: counts whose bound at confidence 1 - {SIGNIFICANCE / self.trials:.2g} still exceeds the true epsilon "
            f"(bound, truth, audit): {self.extreme[:5]}")


@pytest.mark.parametrize("confidence,delta_share,trials", [(0.95, 0.0, profiles.size(fast=150, thorough=1500)),
                                                           (0.8, 0.3, profiles.size(fast=100, thorough=1000))])
def test_audit_pair_is_sound_on_random_mechanisms(confidence, delta_share, trials):
    """Random mechanisms and encodings, n_samples from 1000 to 4000 (to 20000 thorough). At
    confidence 0.95 every audit is at delta = 0; at 0.8 some are at a random delta > 0, judged
    against the exact epsilon(delta)."""
    hi = profiles.size(fast=4000, thorough=20_000)
    tally = Tally(trials, confidence)
    for seed in range(trials):
        rng = np.random.default_rng([confidence == 0.95, seed])
        n = int(rng.integers(1000, hi))
        mech, a, b, name = random_mechanism(seed + (0 if confidence == 0.95 else 10**6), n)
        delta = float(10.0 ** rng.uniform(-4, -1)) if rng.random() < delta_share else 0.0
        res = audit.audit_pair(mech, 0, 1, n_samples=n, rng=rng, confidence=confidence, delta=delta,
                               float_bits=bool(seed % 2))      # half the audits with the floating-point scores
        strict = audit.epsilon_lower_bound(res.false_positives, res.n_negatives, res.false_negatives,
                                           res.n_positives, delta=delta, confidence=tally.strict)
        tally.add(res.epsilon, strict, exact_epsilon(a, b, delta), f"seed {seed}: {name}, n={n}, delta={delta:.2g}")
    tally.check(f"audit_pair at confidence {confidence}")


def exploit_mechanism():
    """Issue 22's exploit: v from a finite law (rare outputs carry the largest ratio, epsilon
    1.0002), released beside a constant 2**51 + 1 (an ID, a timestamp)."""
    p = np.array([0.5, 0.4985, 0.001, 0.0005])
    q = p * np.array([1.2, 0.8, math.exp(1.0002), math.exp(-1.0002)])
    q[0] += 1 - q.sum()
    a, b = _to_weights(p), _to_weights(q)

    def mech(data, size, rng):
        v = sample((a, b)[data], size, rng).astype(float)
        return np.column_stack([v, np.full(size, 2.0**51 + 1)])

    return mech, exact_epsilon(a, b)


def test_the_exploit_of_issue_22_stays_within_the_error_rate():
    """Before the fix, 13 of these 200 audits exceeded the true epsilon, with bounds up to 6.3
    where the truth is 1.0 (a bound the counts would give at no confidence a sound auditor
    could reach); with numpy's own sampler instead of this exact one, 29 of 200 (binomial p =
    3e-7 against 5 %). Now the count must be consistent with 5 % and no audit extreme."""
    mech, true = exploit_mechanism()
    assert abs(true - 1.0002) < 1e-4
    tally = Tally(200, 0.95)
    for s in range(200):
        res = audit.audit_pair(mech, 0, 1, n_samples=4000, rng=np.random.default_rng(s))
        strict = audit.epsilon_lower_bound(res.false_positives, res.n_negatives, res.false_negatives,
                                           res.n_positives, confidence=tally.strict)
        tally.add(res.epsilon, strict, true, f"seed {s}")
    tally.check("the exploit of issue 22")


# ----------------------------------------------------------------- one-run auditing
def random_canary_run(seed, m):
    """Each canary released through its own copy of a random finite law pair (b if included),
    scored by a random fixed map of its output plus, sometimes, input-independent jitter."""
    rng = np.random.default_rng([23, seed])
    if rng.random() < 0.35:                     # randomized response: the tight case
        e = float(rng.uniform(0.1, 2.0))
        hi = _to_weights(np.array([1.0, math.exp(e)]) / (1 + math.exp(e)))
        a, b = hi, hi[::-1].copy()
    else:
        a, b = random_laws(rng, m)
    score_of = rng.standard_normal(a.size) if rng.random() < 0.5 else np.log(b / a)
    jitter = float(rng.choice([0.0, 1e-3, 1.0]))

    def run(included, r):
        idx = np.where(included, sample(b, included.size, r), sample(a, included.size, r))
        return score_of[idx] + jitter * r.standard_normal(included.size)

    return run, a, b


def test_one_run_audit_is_sound_on_random_mechanisms():
    """Random per-canary laws, canary counts, guess counts (some one-sided, where a biased
    inclusion would show) and delta; the exceedances over many seeds must be consistent with
    1 - confidence, and no audit's count may exceed the truth at the strict confidence."""
    trials = profiles.size(fast=300, thorough=5000)
    confidence = 0.9
    tally = Tally(trials, confidence)
    for seed in range(trials):
        rng = np.random.default_rng(seed)
        m = int(rng.integers(50, 3000))
        run, a, b = random_canary_run(seed, m)
        r_total = int(rng.integers(1, m + 1))
        side = rng.random()                     # all guesses positive, all negative, or a split
        kp = r_total if side < 0.3 else 0 if side < 0.5 else int(rng.integers(0, r_total + 1))
        kn = r_total - kp
        delta = float(10.0 ** rng.uniform(-6, -2)) if rng.random() < 0.3 else 0.0
        res = audit.one_run_audit(run, m, n_positive=kp, n_negative=kn, rng=rng, delta=delta, confidence=confidence)
        strict = audit.one_run_epsilon(m, res.n_guesses, res.n_correct, delta=delta, confidence=tally.strict)
        tally.add(res.epsilon, strict, exact_epsilon(a, b, delta), f"seed {seed}: m={m}, +{kp}/-{kn}, delta={delta:.2g}")
    tally.check("one_run_audit")


@pytest.mark.parametrize("positive", [True, False])
def test_one_run_audit_reaches_its_error_rate_on_randomized_response(positive):
    """Randomized response per canary is the tight case of the one-run theorem: each guess on a
    canary whose bit is 1 is right with probability exactly e^eps / (1 + e^eps) when canaries are
    included with probability 1/2, so the number right is Binomial(r, e^eps/(1+e^eps)) and the
    audit exceeds eps with the exact probability computed here (just below 1 - confidence). An
    auditor that includes canaries with probability 0.6 (or 0.4) instead makes guesses of one
    side right more often (0.80 instead of 0.73 at eps = 1) and exceeds eps in almost every
    audit: the count over 100 seeds must be consistent with the exact rate, two-sided."""
    eps, m, r, conf = 1.0, 4000, 400, 0.95
    q = math.exp(eps) / (1 + math.exp(eps))

    def run(included, rng):
        bit = np.where(rng.random(included.size) < q, included, ~included)
        return bit + 0.5 * rng.random(included.size)       # jitter breaks ties, independent of inclusion

    kp, kn = (r, 0) if positive else (0, r)
    # exact rate: the p-value of v right guesses is Pr[Bin(r, q) >= v]; exceed iff it is <= 1 - conf
    v_star = next(v for v in range(r + 1) if audit.one_run_p_value(m, r, v, eps) <= 1 - conf)
    rate = float(stats.binom.sf(v_star - 1, r, q))
    assert 0.03 < rate <= 1 - conf
    seeds = 100
    exceed = sum(audit.one_run_audit(run, m, n_positive=kp, n_negative=kn, rng=np.random.default_rng(s),
                                     confidence=conf).epsilon > eps for s in range(seeds))
    # the guessed canaries all have bit 1 (resp. 0) unless fewer than r of the m have it:
    # probability below 1e-100 here, so the count is Binomial(seeds, rate)
    assert stats.binomtest(exceed, seeds, rate).pvalue >= SIGNIFICANCE, (exceed, seeds, rate)
