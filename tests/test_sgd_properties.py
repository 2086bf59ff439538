"""Hypothesis properties of every public numeric function of dpnotes.sgd over its documented domain.

Each property is checked against a computation written here from the definition, never
against the function itself: norms with math.hypot (overflow-safe and correctly scaled, a
different algorithm from the module's), clipping row by row, the loss in 60-digit mpmath,
gradients by central finite differences, the noise by replaying the documented draw from
the same seed. ``tests/profiles.py`` sets how many examples each property draws (fast: make
test, thorough: make verify) and ``size()`` the length of the seeded searches.
"""

import itertools
import math
import re
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from profiles import size
from scipy import stats

from dpnotes import sgd

# every finite double, subnormals and the largest included: the documented domain of gradients
FINITE = st.floats(allow_nan=False, allow_infinity=False)
CLIP = st.floats(min_value=1e-200, max_value=1e200)          # C > 0, far from under- and overflow of C * unit
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def gradient_arrays(elements=FINITE, max_rows=6, max_cols=5):
    shape = st.tuples(st.integers(0, max_rows), st.integers(1, max_cols))
    return hnp.arrays(np.float64, shape, elements=elements)


def unit(row):
    """row / ||row||, by math.hypot on the row divided by its largest entry (||row|| itself may exceed every float)."""
    m = max(abs(v) for v in row)
    r = [v / m for v in row]
    return np.array(r) / math.hypot(*r)


def clip_by_definition(g, c):
    """g * min(1, C / ||g||) row by row: unchanged when math.hypot(row) <= C, else C times its unit vector."""
    out = [list(row) if math.hypot(*row) <= c else list(c * unit(row)) for row in g]
    return np.array(out, dtype=float).reshape(g.shape)


# --------------------------------------------------------------------------- clip_gradients
@given(gradient_arrays(), CLIP)
def test_clipped_norms_are_at_most_c_and_long_rows_get_norm_c(g, c):
    out = sgd.clip_gradients(g, c)
    assert out.shape == g.shape
    for row, orig in zip(out, g):
        norm, orig_norm = math.hypot(*row), math.hypot(*orig)
        assert norm <= c * (1 + 1e-13)                   # a few roundings of the scale factor
        if orig_norm > c * (1 + 1e-13):
            assert math.isclose(norm, c, rel_tol=1e-13)


@given(gradient_arrays(), CLIP)
def test_rows_within_the_ball_are_returned_bit_for_bit(g, c):
    out = sgd.clip_gradients(g, c)
    for row, orig in zip(out, g):
        if math.hypot(*orig) <= c * (1 - 1e-13):         # away from the boundary, where the two norms may differ by an ulp
            assert np.array_equal(row, orig)


@given(gradient_arrays(), CLIP)
def test_clipping_keeps_the_direction(g, c):
    out = sgd.clip_gradients(g, c)
    for row, orig in zip(out, g):
        if np.any(orig != 0):
            # the clipped row is a positive multiple of the original: same unit vector
            assert np.allclose(unit(row), unit(orig), rtol=0, atol=1e-13)


@given(gradient_arrays(), CLIP)
def test_clipping_is_idempotent_and_matches_the_definition(g, c):
    once = sgd.clip_gradients(g, c)
    assert np.allclose(sgd.clip_gradients(once, c), once, rtol=1e-13, atol=1e-13 * c)
    assert np.allclose(once, clip_by_definition(g, c), rtol=1e-13, atol=1e-13 * c)


@given(gradient_arrays(), CLIP, st.floats(min_value=1.0 + 1e-9, max_value=1e3))
def test_a_larger_clip_norm_never_shrinks_a_row(g, c, factor):
    small, large = sgd.clip_gradients(g, c), sgd.clip_gradients(g, c * factor)
    for a, b in zip(small, large):
        assert math.hypot(*a) <= math.hypot(*b) * (1 + 1e-13)


# --------------------------------------------------------------------------- noisy_clipped_sum
@given(gradient_arrays(st.floats(min_value=-1e6, max_value=1e6)), st.floats(min_value=1e-3, max_value=1e3),
       st.floats(min_value=0.0, max_value=50.0), SEEDS)
def test_noise_is_exactly_sigma_c_times_the_seeded_normal_draw(g, c, sigma, seed):
    out = sgd.noisy_clipped_sum(g, c, sigma, rng=np.random.default_rng(seed))
    z = np.random.default_rng(seed).standard_normal(g.shape[1])
    clipped_sum = clip_by_definition(g, c).sum(axis=0)
    # the two sides differ by the rounding of one sum of at most 7 terms of size <= max(C, sigma C |z|)
    scale = c * (g.shape[0] + sigma * np.abs(z).max() + 1)
    assert np.allclose(out - clipped_sum, sigma * c * z, rtol=0, atol=1e-13 * scale)


@given(gradient_arrays(st.floats(min_value=-1e3, max_value=1e3)), st.floats(min_value=1e-2, max_value=1e2), SEEDS)
def test_zero_noise_gives_the_clipped_sum_and_draws_once(g, c, seed):
    rng = np.random.default_rng(seed)
    out = sgd.noisy_clipped_sum(g, c, 0.0, rng=rng)
    assert np.allclose(out, clip_by_definition(g, c).sum(axis=0), rtol=1e-13, atol=1e-13 * c)
    # one standard-normal draw of length d was consumed, nothing else
    twin = np.random.default_rng(seed)
    twin.standard_normal(g.shape[1])
    assert rng.random() == twin.random()


# --------------------------------------------------------------------------- poisson_batch
@given(st.integers(1, 500), st.floats(min_value=1e-6, max_value=1.0, exclude_min=False), SEEDS)
def test_poisson_batch_is_the_documented_draw(n, q, seed):
    got = sgd.poisson_batch(n, q, rng=np.random.default_rng(seed))
    u = np.random.default_rng(seed).random(n)
    assert got.dtype.kind == "i"
    assert got.tolist() == [i for i in range(n) if u[i] < q]
    assert np.all(np.diff(got) > 0) and (got.size == 0 or (got[0] >= 0 and got[-1] < n))


@given(st.integers(1, 300), SEEDS)
def test_q_one_keeps_everyone(n, seed):
    assert sgd.poisson_batch(n, 1.0, rng=np.random.default_rng(seed)).tolist() == list(range(n))


@pytest.mark.parametrize("n, q", [(4, 0.3), (3, 0.85), (5, 0.02)])
def test_poisson_batch_membership_law_is_the_product_law(n, q):
    # the law of the whole subset, not only its size: Pr[S] = q^|S| (1 - q)^(n - |S|) for each of the
    # 2^n subsets, by a chi-square test on seeded draws (p > 1e-4: a false alarm once in 10^4 seeds;
    # the seed is fixed, so the test is deterministic)
    draws = size(fast=6000, thorough=200_000)
    rng = np.random.default_rng(1000 + n)
    counts = {}
    for _ in range(draws):
        key = tuple(sgd.poisson_batch(n, q, rng=rng).tolist())
        counts[key] = counts.get(key, 0) + 1
    subsets = [tuple(s) for k in range(n + 1) for s in itertools.combinations(range(n), k)]
    assert set(counts) <= set(subsets)
    expected = np.array([q ** len(s) * (1 - q) ** (n - len(s)) for s in subsets]) * draws
    observed = np.array([counts.get(s, 0) for s in subsets])
    # pool the subsets expected fewer than 5 times into one cell, as the chi-square test needs
    small = expected < 5
    if small.any():
        expected = np.r_[expected[~small], expected[small].sum()]
        observed = np.r_[observed[~small], observed[small].sum()]
    assert math.isclose(expected.sum(), draws, rel_tol=1e-9)           # the law sums to one
    assert stats.chisquare(observed, expected).pvalue > 1e-4


# --------------------------------------------------------------------------- loss and gradients
@st.composite
def models(draw, feature=st.floats(min_value=-5.0, max_value=5.0), weight=st.floats(min_value=-3.0, max_value=3.0)):
    n, d = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    x = draw(hnp.arrays(np.float64, (n, d), elements=feature))
    y = draw(hnp.arrays(np.float64, (n,), elements=st.sampled_from([0.0, 1.0])))
    w = draw(hnp.arrays(np.float64, (d + 1,), elements=weight))
    return w, x, y


def reference_scores(w, x):
    """The scores the documentation defines, with no BLAS: each product x_j w_j rounded to a double (so it
    may overflow to +-inf), then summed exactly (Fractions) and rounded once; nan for +inf and -inf in one
    row. A matrix product is no reference near overflow: a fused multiply-add kernel gives +inf where a
    plain one gives nan (OpenBLAS on AMD EPYC)."""
    out = []
    for row in np.column_stack([x, np.ones(len(x))]):
        with np.errstate(over="ignore"):
            p = [float(a) * float(b) for a, b in zip(row, w)]
        infs = {v for v in p if math.isinf(v)}
        if infs:
            out.append(math.nan if len(infs) == 2 else infs.pop())
            continue
        total = sum(Fraction(v) for v in p)
        try:
            out.append(float(total))
        except OverflowError:
            out.append(math.inf if total > 0 else -math.inf)
    return np.array(out)


def loss_mpmath(w, x, y):
    """Mean of log(1 + e^z) - y z in 60-digit arithmetic.

    For y = 1 the term is written log(1 + e^{-z}) (the same number): log(1 + e^z) - z cancels
    about z / log(10) digits, more than any fixed precision holds for z up to 5e5.
    """
    with mpmath.workdps(60):
        total = mpmath.mpf(0)
        for xi, yi in zip(x, y):
            z = mpmath.fsum(mpmath.mpf(float(a)) * mpmath.mpf(float(b)) for a, b in zip(xi, w[:-1])) + mpmath.mpf(float(w[-1]))
            total += mpmath.log1p(mpmath.exp(-z if yi == 1 else z))
        return float(total / len(y))


@given(models())
def test_gradients_match_central_finite_differences_of_the_loss(model):
    w, x, y = model
    g = sgd.per_example_gradients(w, x, y)
    assert g.shape == (y.size, w.size)
    # h = 1e-5: truncation h^2 |l'''| / 6 <= 1e-10 * 5^3 and round-off 1e-16 * loss / h <= 1e-9 here
    h = 1e-5
    for i in range(y.size):
        fd = [(sgd.logistic_loss(w + h * e, x[i:i + 1], y[i:i + 1]) - sgd.logistic_loss(w - h * e, x[i:i + 1], y[i:i + 1]))
              / (2 * h) for e in np.eye(w.size)]
        assert np.allclose(g[i], fd, rtol=1e-6, atol=1e-6)
    fd_mean = [(sgd.logistic_loss(w + h * e, x, y) - sgd.logistic_loss(w - h * e, x, y)) / (2 * h) for e in np.eye(w.size)]
    assert np.allclose(g.mean(axis=0), fd_mean, rtol=1e-6, atol=1e-6)


@given(models(feature=st.floats(min_value=-1e3, max_value=1e3), weight=st.floats(min_value=-1e2, max_value=1e2)))
def test_loss_matches_60_digit_arithmetic(model):
    # scores up to about 5e5: e^z overflows a double long before, the stable form must not
    w, x, y = model
    want = loss_mpmath(w, x, y)
    assert math.isclose(sgd.logistic_loss(w, x, y), want, rel_tol=1e-9, abs_tol=1e-300)


@given(models(feature=FINITE, weight=FINITE))
def test_loss_and_gradients_are_defined_on_all_finite_inputs(model):
    # the whole documented domain: any finite features and weights. Scores may overflow to
    # +-inf (then the loss is inf or 0, the gradient row finite); only inf - inf in one score
    # (nan) is refused, with a ValueError that says so.
    w, x, y = model
    z = reference_scores(w, x)
    if np.isnan(z).any():
        with pytest.raises(ValueError, match="^features and weights must give scores"):
            sgd.logistic_loss(w, x, y)
        return
    loss = sgd.logistic_loss(w, x, y)
    assert loss >= 0 and not math.isnan(loss)
    terms = [sgd.logistic_loss(w, x[i:i + 1], y[i:i + 1]) for i in range(y.size)]   # a row's score is its own
    if all(math.isfinite(t) for t in terms):
        assert math.isfinite(loss)                           # the mean of finite terms does not overflow
        assert math.isclose(loss, float(mpmath.fsum(terms) / y.size), rel_tol=1e-12)   # mpmath: no overflow
    g = sgd.per_example_gradients(w, x, y)
    assert np.all(np.isfinite(g))
    norms = np.array([math.hypot(*row) for row in g])
    bounds = np.array([math.hypot(*row, 1.0) for row in x])
    with np.errstate(over="ignore"):
        assert np.all(norms <= bounds * (1 + 1e-12))          # |expit - y| <= 1: ||g_i|| <= ||x~_i||


@given(models(), st.floats(min_value=0.1, max_value=5.0))
def test_a_larger_score_lowers_the_loss_of_a_right_example_and_raises_a_wrong_one(model, t):
    # scaling theta by 1 + t pushes every score away from 0; and the loss is symmetric in
    # flipping both the labels and theta
    w, x, y = model
    z = np.column_stack([x, np.ones(y.size)]) @ w
    for i in range(y.size):
        if abs(z[i]) < 1e-6:
            continue                                      # sign of a tiny score: rounding decides
        before = sgd.logistic_loss(w, x[i:i + 1], y[i:i + 1])
        after = sgd.logistic_loss((1 + t) * w, x[i:i + 1], y[i:i + 1])
        assert after <= before if (z[i] > 0) == (y[i] == 1) else after >= before
    assert math.isclose(sgd.logistic_loss(-w, x, 1 - y), sgd.logistic_loss(w, x, y), rel_tol=1e-12)


# --------------------------------------------------------------------------- accuracy
@given(models(feature=FINITE, weight=st.floats(min_value=-1e100, max_value=1e100)))
def test_accuracy_is_a_fraction_in_zero_one_and_complements_the_flipped_labels(model):
    w, x, y = model
    z = reference_scores(w, x)
    assume(not np.isnan(z).any())
    acc = sgd.accuracy(w, x, y)
    assert 0.0 <= acc <= 1.0
    k = round(acc * y.size)
    assert math.isclose(acc, k / y.size, rel_tol=0, abs_tol=1e-15)
    assert k == sum(int((zi > 0) == (yi == 1)) for zi, yi in zip(z, y))
    assert math.isclose(acc + sgd.accuracy(w, x, 1 - y), 1.0, rel_tol=0, abs_tol=1e-15)


# --------------------------------------------------------------------------- dp_sgd
@given(models(), st.floats(min_value=0.05, max_value=5.0), st.floats(min_value=0.0, max_value=5.0),
       st.floats(min_value=0.1, max_value=1.0), st.integers(1, 2), st.floats(min_value=1e-3, max_value=2.0),
       st.one_of(st.none(), st.floats(min_value=0.1, max_value=50.0)), SEEDS)
def test_dp_sgd_is_the_documented_update_replayed_from_the_seed(model, c, sigma, q, epochs, lr, divisor, seed):
    # the released weights are the post-processing the accountant describes: a public divisor
    # (the argument, or 1), the clipped sum of a Poisson batch, and noise sigma * C * z
    w0, x, y = model
    calls = []
    run = sgd.dp_sgd(x, y, clip_norm=c, noise_multiplier=sigma, sampling_probability=q, epochs=epochs,
                     learning_rate=lr, rng=np.random.default_rng(seed), initial_weights=w0, delta=1e-5,
                     accountant=lambda *a: calls.append(a) or 1.0, expected_batch_size=divisor)
    rng, w = np.random.default_rng(seed), w0.copy()
    b = 1.0 if divisor is None else divisor
    steps = max(1, round(1 / q))
    sizes = []
    for _ in range(epochs * steps):
        batch = rng.random(y.size) < q
        z = rng.standard_normal(w.size)
        xb = np.column_stack([x[batch], np.ones(batch.sum())])
        with np.errstate(over="ignore"):        # exp(-s) = inf for s < -709: the sigmoid is 0 there
            g = (1 / (1 + np.exp(-(xb @ w))) - y[batch])[:, None] * xb
        w = w - lr * (clip_by_definition(g, c).sum(axis=0) + sigma * c * z) / b
        sizes.append(int(batch.sum()))
    assert np.allclose(run.weights, w, rtol=1e-9, atol=1e-9)
    assert run.batch_sizes.tolist() == sizes and run.steps_per_epoch == steps
    if sigma > 0:
        assert calls == [(q, sigma, steps * e, 1e-5) for e in range(1, epochs + 1)]     # sigma, not sigma * C
    else:
        assert calls == [] and np.all(np.isinf(run.epsilons))


# --------------------------------------------------------------------------- bad input
_X, _Y, _W = [[1.0, 2.0], [0.5, -1.0]], [0.0, 1.0], [0.1, 0.2, 0.3]
_G = [[3.0, 4.0], [0.1, 0.2]]


def _fit(**kw):
    base = dict(features=_X, labels=_Y, clip_norm=1.0, noise_multiplier=1.0, sampling_probability=0.5, epochs=1,
                learning_rate=0.1, rng=np.random.default_rng(0))
    base.update(kw)
    return sgd.dp_sgd(base.pop("features"), base.pop("labels"), **base)


CALLS = {
    "logistic_loss": (lambda **kw: sgd.logistic_loss(**{"weights": _W, "features": _X, "labels": _Y, **kw}),
                      ["weights", "features", "labels"]),
    "per_example_gradients": (lambda **kw: sgd.per_example_gradients(**{"weights": _W, "features": _X, "labels": _Y, **kw}),
                              ["weights", "features", "labels"]),
    "accuracy": (lambda **kw: sgd.accuracy(**{"weights": _W, "features": _X, "labels": _Y, **kw}),
                 ["weights", "features", "labels"]),
    "clip_gradients": (lambda **kw: sgd.clip_gradients(**{"gradients": _G, "clip_norm": 1.0, **kw}),
                       ["gradients", "clip_norm"]),
    "noisy_clipped_sum": (lambda **kw: sgd.noisy_clipped_sum(**{"gradients": _G, "clip_norm": 1.0, "noise_multiplier": 1.0,
                                                                "rng": np.random.default_rng(0), **kw}),
                          ["gradients", "clip_norm", "noise_multiplier", "rng"]),
    "poisson_batch": (lambda **kw: sgd.poisson_batch(**{"n": 5, "sampling_probability": 0.5,
                                                        "rng": np.random.default_rng(0), **kw}),
                      ["n", "sampling_probability", "rng"]),
    "dp_sgd": (_fit, ["features", "labels", "clip_norm", "noise_multiplier", "sampling_probability", "epochs",
                      "learning_rate", "rng", "delta", "initial_weights", "expected_batch_size", "accountant"]),
}
OPTIONAL = {"delta", "initial_weights", "expected_batch_size", "accountant"}      # None is their default
ARRAYS = {"weights", "features", "labels", "gradients", "initial_weights"}
BAD = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "None": None, "string": "0.5", "list": [0.5],
       "ragged": [[1.0], [1.0, 2.0]], "strings": [["a", "b"], ["c", "d"]]}
CASES = [(f, p, b) for f, (_, params) in CALLS.items() for p in params for b in BAD
         if not (b == "None" and p in OPTIONAL) and not (b == "list" and p in ARRAYS)
         and not (b in ("ragged", "strings") and p not in ARRAYS)]


@pytest.mark.parametrize("func, param, bad", CASES)
def test_bad_input_raises_a_value_error_that_names_the_parameter(func, param, bad):
    call, _ = CALLS[func]
    kw = {param: BAD[bad]}
    if param == "accountant":
        kw["delta"] = 1e-5
    with pytest.raises(ValueError, match=rf"^{param} (must|and)"):
        call(**kw)


@pytest.mark.parametrize("func, param", [(f, p) for f, (_, params) in CALLS.items() for p in params if p in ARRAYS])
@pytest.mark.parametrize("bad", ["None", "string", "ragged", "strings"])
def test_a_non_array_names_the_parameter_and_shows_the_value(func, param, bad):
    call, _ = CALLS[func]
    if bad == "None" and param in OPTIONAL:
        return                                            # None is the default of initial_weights
    want = {"None": "None", "string": "'0.5'", "ragged": re.escape("[[1.0], [1.0, 2.0]]"),
            "strings": re.escape("[['a', 'b'], ['c', 'd']]")}[bad]
    with pytest.raises(ValueError, match=rf"^{param} must be an array of numbers, got {want}$"):
        call(**{param: BAD[bad]})


@pytest.mark.parametrize("answer", ["abc", 3, [1.0]])
def test_a_non_callable_accountant_is_shown_in_the_message(answer):
    with pytest.raises(ValueError, match=rf"^accountant must be a callable \(q, sigma, steps, delta\) -> epsilon, "
                                         rf"got {re.escape(repr(answer))}$"):
        _fit(accountant=answer, delta=1e-5)


# --------------------------------------------------------------------------- overflow: right answers, no warnings
def test_scores_that_overflow_give_the_limits_without_warnings():
    w, x = [1e200, 0.0], [[1e200], [-1e200]]               # scores +inf and -inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sgd.logistic_loss(w, x, [1, 0]) == 0.0        # both examples right with infinite margin
        assert sgd.logistic_loss(w, x, [0, 1]) == math.inf   # both wrong: the loss exceeds every float
        assert np.array_equal(sgd.per_example_gradients(w, x, [1, 1]), [[0.0, 0.0], [-(-1e200), -1.0]])
        assert sgd.accuracy(w, x, [1, 0]) == 1.0


def test_a_score_that_is_inf_minus_inf_is_refused_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f in (sgd.logistic_loss, sgd.per_example_gradients, sgd.accuracy):
            with pytest.raises(ValueError, match=r"^features and weights must give scores x \. weights that are "
                                                 r"numbers, got nan \(an overflow to \+inf and -inf in one sum\)$"):
                f([1e200, -1e200, 0.0], [[1e200, 1e200]], [1])


def test_inf_minus_inf_is_refused_whatever_the_blas_kernel_does_with_an_overflow():
    """A fused multiply-add kernel (OpenBLAS on AMD EPYC) carries the overflowed 1e200 * 1e200 into the next
    product as +inf, so the matrix product says +inf where a plain kernel says nan; the test above passed on
    one machine and failed on the other. Here the fused kernel is imitated, so the check fails everywhere
    if the scores trust the product's inf."""
    class Fused(np.ndarray):
        def __matmul__(self, other):
            with np.errstate(over="ignore", invalid="ignore"):
                z = np.asarray(self) @ np.asarray(other)
            return np.where(np.isnan(z), np.inf, z)

    xa = np.array([[1e200, 1e200, 1.0], [2.0, -3.0, 1.0], [1e200, 1e200, 1.0]]).view(Fused)
    with pytest.raises(ValueError, match=r"got nan \(an overflow to \+inf and -inf in one sum\)$"):
        sgd._scores(xa, np.array([1e200, -1e200, 0.0]))
    # the huge entries negative and every other one small: the bound that decides whether any row may
    # overflow takes the largest magnitude, not the largest value (2.0 here)
    negative = np.array([[-1e200, -1e200, 1.0], [2.0, -3.0, 1.0]]).view(Fused)
    with pytest.raises(ValueError, match=r"got nan \(an overflow to \+inf and -inf in one sum\)$"):
        sgd._scores(negative, np.array([1e200, -1e200, 0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = sgd._scores(xa, np.array([1e200, 1e200, 0.5]))           # one sign: +inf on every kernel, kept
    assert z[0] == z[2] == np.inf and z[1] == 2e200 - 3e200 + 0.5


def test_a_row_near_overflow_is_scored_exactly_and_the_others_by_the_matrix_product():
    one = np.ones(3)
    assert sgd._exact_score(np.array([1e308, 1e308, -1e308]), one) == 1e308      # math.fsum refuses this sum
    assert sgd._exact_score(np.array([1e308, 1e308, -1.0]), one) == math.inf
    assert sgd._exact_score(np.array([-1e308, -1e308, 1.0]), one) == -math.inf
    assert sgd._exact_score(np.array([1e16, 1.0, -1e16]), one) == 1.0            # exact, not 0.0
    assert sgd._exact_score(np.array([1e300, 2.0, 3.0]), np.array([1e10, -1.0, 1.0])) == math.inf
    assert sgd._exact_score(np.array([1e300, 2.0, 3.0]), np.array([-1e10, -1.0, 1.0])) == -math.inf
    assert math.isnan(sgd._exact_score(np.array([1e300, -1e300, 3.0]), np.array([1e10, 1e10, 1.0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = sgd._scores(np.array([[1e308, 1e308, -1e308], [0.5, -2.0, 3.0], [1e308, 1e308, 0.0]]),
                        np.array([1.0, 1.0, -1.0]))
    # rows 0 and 2 overflow on the way (BLAS gives inf for row 0, whose exact score is 1e308 + 1e308 + 1e308
    # = inf too, and for row 2, exact 2e308); row 1 is left to the matrix product, exact in any order
    assert z.tolist() == [math.inf, -4.5, math.inf]
    z = sgd._scores(np.array([[1e308, 1e308, 1e308], [0.5, -2.0, 3.0]]), np.array([1.0, 1.0, -1.0]))
    assert z.tolist() == [1e308, -4.5]              # 1e308 + 1e308 - 1e308: inf for a plain BLAS sum


def test_extreme_rows_are_clipped_without_warnings():
    g = [[0.0, 0.0], [1.7e308, 1.7e308], [3e-320, 0.0], [-1e200, 0.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = sgd.clip_gradients(g, 2.0)
        tiny = sgd.clip_gradients([[0.0, 0.0], [3e-160, 4e-160]], 1e-160)
    assert np.array_equal(out[0], [0.0, 0.0]) and np.array_equal(out[2], [3e-320, 0.0])
    assert np.allclose(out[1], [math.sqrt(2.0), math.sqrt(2.0)], rtol=1e-15)
    assert np.array_equal(out[3], [-2.0, 0.0])
    assert np.array_equal(tiny[0], [0.0, 0.0]) and np.allclose(tiny[1], [0.6e-160, 0.8e-160], rtol=1e-15)
