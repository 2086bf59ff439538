"""Tests of dpnotes.sgd against independent computations.

Gradients are compared with central finite differences of the loss and with a loop over
examples written from the formula; clipping with the definition row by row; the noise is
checked exactly by coupling seeds (the update minus the clipped sum is sigma*C times the
standard normal draw of the same seed); Poisson batches by reproducing the draws and by
the binomial mean and variance of their sizes; the non-private limit (sigma = 0, q = 1,
C above every gradient norm) against plain gradient descent written independently.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpnotes import sgd

RNG = np.random.default_rng(20261123)
N, D = 37, 4
X = RNG.normal(size=(N, D)) * np.array([1.0, 2.0, 0.5, 3.0])      # asymmetric scales
W = np.array([0.3, -0.7, 1.1, 0.05, -0.4])                       # last entry: bias
Y = (RNG.random(N) < 0.4).astype(float)


def loss_by_loop(w, x, y):
    """Mean cross-entropy written from the definition: -y log p - (1 - y) log(1 - p)."""
    total = 0.0
    for xi, yi in zip(x, y):
        p = 1.0 / (1.0 + math.exp(-(float(np.dot(xi, w[:-1])) + w[-1])))
        total += -yi * math.log(p) - (1 - yi) * math.log(1 - p)
    return total / len(y)


# --------------------------------------------------------------------------- loss and gradients
def test_loss_matches_cross_entropy_by_loop():
    assert math.isclose(sgd.logistic_loss(W, X, Y), loss_by_loop(W, X, Y), rel_tol=1e-12)


def test_loss_is_stable_for_large_margins():
    # a naive log(1 + exp(800)) overflows; the loss of a confidently wrong example is ~800
    assert math.isclose(sgd.logistic_loss([800.0, 0.0], [[1.0]], [0]), 800.0, rel_tol=1e-12)
    assert sgd.logistic_loss([800.0, 0.0], [[1.0]], [1]) < 1e-300


def test_per_example_gradients_match_finite_differences():
    g = sgd.per_example_gradients(W, X, Y)
    assert g.shape == (N, D + 1)
    h = 1e-6
    for i in [0, 5, N - 1]:
        xi, yi = X[i:i + 1], Y[i:i + 1]
        fd = np.array([(sgd.logistic_loss(W + h * e, xi, yi) - sgd.logistic_loss(W - h * e, xi, yi)) / (2 * h)
                       for e in np.eye(D + 1)])
        assert np.allclose(g[i], fd, rtol=1e-6, atol=1e-9)


def test_mean_of_per_example_gradients_is_gradient_of_mean_loss():
    h = 1e-6
    fd = np.array([(loss_by_loop(W + h * e, X, Y) - loss_by_loop(W - h * e, X, Y)) / (2 * h) for e in np.eye(D + 1)])
    assert np.allclose(sgd.per_example_gradients(W, X, Y).mean(axis=0), fd, rtol=1e-6, atol=1e-9)


# --------------------------------------------------------------------------- clipping
def test_clipping_bounds_norms_and_keeps_short_rows():
    g = sgd.per_example_gradients(W, X, Y)
    norms = np.linalg.norm(g, axis=1)
    c = float(np.median(norms))                       # about half the rows are clipped
    clipped = sgd.clip_gradients(g, c)
    new = np.linalg.norm(clipped, axis=1)
    short = norms <= c
    assert 0 < short.sum() < N
    assert np.all(new <= c * (1 + 1e-12))
    assert np.array_equal(clipped[short], g[short])                     # unchanged below C
    assert np.allclose(new[~short], c, rtol=1e-12)                       # exactly C above
    # same direction: the clipped row is a positive multiple of the original
    for row, orig in zip(clipped[~short], g[~short]):
        assert np.allclose(row, orig * (c / np.linalg.norm(orig)), rtol=1e-12)


def test_clipping_zero_row_and_exact_values():
    out = sgd.clip_gradients([[0.0, 0.0], [6.0, -8.0], [0.6, 0.8]], 2.0)
    assert np.allclose(out, [[0.0, 0.0], [1.2, -1.6], [0.6, 0.8]], rtol=0, atol=1e-15)


# --------------------------------------------------------------------------- noise (coupled seeds)
@pytest.mark.parametrize("sigma, c", [(0.7, 0.25), (2.5, 3.0)])
def test_noisy_sum_minus_clipped_sum_is_sigma_c_times_the_same_draw(sigma, c):
    g = sgd.per_example_gradients(W, X, Y)
    out = sgd.noisy_clipped_sum(g, c, sigma, rng=np.random.default_rng(11))
    z = np.random.default_rng(11).standard_normal(D + 1)
    clipped_sum = sgd.clip_gradients(g, c).sum(axis=0)
    assert np.allclose(out - clipped_sum, sigma * c * z, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sigma, c, q, divisor", [(0.8, 0.5, 0.3, 7.3), (3.0, 2.0, 1.0, None)])
def test_one_dp_sgd_step_is_exactly_the_documented_update(sigma, c, q, divisor):
    lr = 0.37
    run = sgd.dp_sgd(X, Y, clip_norm=c, noise_multiplier=sigma, sampling_probability=q, epochs=1,
                     learning_rate=lr, rng=np.random.default_rng(5), initial_weights=W,
                     expected_batch_size=divisor)
    b = 1.0 if divisor is None else divisor           # the documented default: the noisy sum itself
    steps = run.steps_per_epoch
    assert steps == round(1 / q)
    # replay with the same seed, from the formula, without the module's helpers
    rng = np.random.default_rng(5)
    w = W.copy()
    for _ in range(steps):
        batch = rng.random(N) < q
        z = rng.standard_normal(D + 1)
        xb = np.hstack([X[batch], np.ones((batch.sum(), 1))])
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        g = (p - Y[batch])[:, None] * xb
        norms = np.sqrt((g ** 2).sum(axis=1))
        g = np.where((norms > c)[:, None], g * c / norms[:, None], g)
        update = (w - (w - lr * (g.sum(axis=0) + sigma * c * z) / b))
        # the update, rescaled, minus the clipped sum is sigma * C * z exactly
        assert np.allclose(update * b / lr - g.sum(axis=0), sigma * c * z, rtol=1e-10, atol=1e-12)
        w = w - update
    assert np.allclose(run.weights, w, rtol=1e-12, atol=1e-12)


def test_expected_batch_size_is_the_public_divisor():
    # with sigma = 0, q = 1 and C above every norm, one step is w - lr * sum(g) / divisor
    g_sum = sgd.per_example_gradients(W, X, Y).sum(axis=0)
    for divisor, want in [(None, 1.0), (7.5, 7.5), (0.2, 0.2)]:
        run = sgd.dp_sgd(X, Y, clip_norm=1e6, noise_multiplier=0.0, sampling_probability=1.0, epochs=1,
                         learning_rate=0.3, rng=np.random.default_rng(0), initial_weights=W,
                         expected_batch_size=divisor)
        assert np.allclose(run.weights, W - 0.3 * g_sum / want, rtol=1e-12)


def divisor_of_one_step(x, y, **kw):
    """The divisor b a one-step, noiseless, full-batch run used: w1 = w0 - lr * sum(g) / b, solved for b."""
    lr = 0.3
    run = sgd.dp_sgd(x, y, clip_norm=1e6, noise_multiplier=0.0, sampling_probability=1.0, epochs=1,
                     learning_rate=lr, rng=np.random.default_rng(0), initial_weights=W, **kw)
    g_sum = sgd.per_example_gradients(W, x, y).sum(axis=0)
    step = W - run.weights
    return lr * float(g_sum @ g_sum) / float(g_sum @ step)       # least squares for step = lr * g_sum / b


@pytest.mark.parametrize("kw", [{}, {"expected_batch_size": 9.25}])
def test_the_divisor_does_not_change_when_a_record_is_added(kw):
    # under add/remove the data set size is private: the mechanism that runs must divide by the
    # same constant on D and on D plus one record, or the accountant's pair is not the right one
    extra = np.array([[0.4, -2.0, 1.0, 0.3]])
    b_d = divisor_of_one_step(X, Y, **kw)
    b_d_plus = divisor_of_one_step(np.vstack([X, extra]), np.r_[Y, 1.0], **kw)
    b_d_minus = divisor_of_one_step(X[:-5], Y[:-5], **kw)
    assert math.isclose(b_d, b_d_plus, rel_tol=1e-9) and math.isclose(b_d, b_d_minus, rel_tol=1e-9)
    assert math.isclose(b_d, kw.get("expected_batch_size", 1.0), rel_tol=1e-9)


def test_the_divisor_is_public_with_poisson_batches_and_noise():
    # q < 1 and sigma > 0, replayed from the seed on D and on D plus a record: both runs divide by
    # the same constant, whatever the batches drawn
    extra_x, extra_y = np.vstack([X, [[1.0, 1.0, 1.0, 1.0]]]), np.r_[Y, 0.0]
    for x, y in [(X, Y), (extra_x, extra_y)]:
        n = y.size
        run = sgd.dp_sgd(x, y, clip_norm=0.6, noise_multiplier=1.1, sampling_probability=0.25, epochs=1,
                         learning_rate=0.4, rng=np.random.default_rng(21), initial_weights=W)
        rng, w = np.random.default_rng(21), W.copy()
        for _ in range(4):
            batch = rng.random(n) < 0.25
            noisy = sgd.noisy_clipped_sum(sgd.per_example_gradients(w, x[batch], y[batch]), 0.6, 1.1, rng=rng)
            w = w - 0.4 * noisy / 1.0                    # the default public divisor, not 0.25 * n
        assert np.allclose(run.weights, w, rtol=1e-12, atol=1e-12)


def test_noise_scale_statistically():
    # many one-step runs on one example whose feature is 0, so coordinate 0 of the gradient is 0:
    # the update spread must be lr * sigma * C / (q n) per coordinate
    sigma, c, lr = 1.7, 0.4, 1.0
    x1, y1 = np.zeros((1, 1)), np.array([1.0])
    ws = np.array([sgd.dp_sgd(x1, y1, clip_norm=c, noise_multiplier=sigma, sampling_probability=1.0, epochs=1,
                              learning_rate=lr, rng=np.random.default_rng(s)).weights for s in range(400)])
    # coordinate 0 has feature 0, so its update is pure noise
    assert stats.kstest(ws[:, 0] / (sigma * c), "norm").pvalue > 1e-3


# --------------------------------------------------------------------------- Poisson sampling
def test_poisson_batch_reproduces_the_uniform_draws():
    got = sgd.poisson_batch(50, 0.23, rng=np.random.default_rng(3))
    u = np.random.default_rng(3).random(50)
    assert np.array_equal(got, np.array([i for i in range(50) if u[i] < 0.23]))


def test_dp_sgd_batch_sizes_are_binomial():
    n, q = 400, 0.05
    x = np.random.default_rng(0).normal(size=(n, 2))
    y = (x[:, 0] > 0).astype(float)
    run = sgd.dp_sgd(x, y, clip_norm=1.0, noise_multiplier=1.0, sampling_probability=q, epochs=30,
                     learning_rate=0.1, rng=np.random.default_rng(8))
    sizes = run.batch_sizes
    assert sizes.size == 30 * 20
    assert len(np.unique(sizes)) > 5                          # variable, not a fixed batch size
    mean, var = n * q, n * q * (1 - q)
    assert abs(sizes.mean() - mean) < 4 * math.sqrt(var / sizes.size)
    assert 0.75 * var < sizes.var(ddof=1) < 1.3 * var         # fixed-size batches would give 0
    # and the law as a whole: chi-square against Binomial(n, q) on pooled bins
    edges = np.array([0, 15, 18, 20, 22, 25, n + 1])
    observed = np.histogram(sizes, bins=edges)[0]
    expected = np.diff(stats.binom.cdf(edges - 1, n, q)) * sizes.size
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_batch_sizes_replay_seed():
    run = sgd.dp_sgd(X, Y, clip_norm=1.0, noise_multiplier=0.5, sampling_probability=0.25, epochs=2,
                     learning_rate=0.1, rng=np.random.default_rng(9))
    rng = np.random.default_rng(9)
    want = []
    for _ in range(8):
        want.append(int((rng.random(N) < 0.25).sum()))
        rng.standard_normal(D + 1)
    assert run.batch_sizes.tolist() == want


# --------------------------------------------------------------------------- non-private limit
def test_sigma_zero_q_one_large_c_is_plain_gradient_descent():
    lr, epochs = 0.8, 25
    run = sgd.dp_sgd(X, Y, clip_norm=1e6, noise_multiplier=0.0, sampling_probability=1.0, epochs=epochs,
                     learning_rate=lr, rng=np.random.default_rng(1), initial_weights=W, delta=1e-5,
                     expected_batch_size=N)
    # independent full-batch gradient descent on the mean loss: grad = X~^T (p - y) / n
    xa = np.column_stack([X, np.ones(N)])
    w, losses = W.copy(), []
    for _ in range(epochs):
        w = w - lr * xa.T @ (1.0 / (1.0 + np.exp(-xa @ w)) - Y) / N
        losses.append(loss_by_loop(w, X, Y))
    assert np.allclose(run.weights, w, rtol=1e-10, atol=1e-12)
    assert np.allclose(run.losses, losses, rtol=1e-10)
    assert np.all(np.diff(run.losses) < 0)
    assert np.all(np.isinf(run.epsilons))                     # sigma = 0 is not private
    assert run.batch_sizes.tolist() == [N] * epochs


def test_small_clip_norm_changes_gradient_descent():
    # with C below the gradient norms, sigma = 0, q = 1 is GD on clipped gradients, not plain GD
    c, lr = 0.05, 0.5
    run = sgd.dp_sgd(X, Y, clip_norm=c, noise_multiplier=0.0, sampling_probability=1.0, epochs=1,
                     learning_rate=lr, rng=np.random.default_rng(1), initial_weights=W, expected_batch_size=N)
    g = sgd.per_example_gradients(W, X, Y)
    g_clipped = g * np.minimum(1, c / np.linalg.norm(g, axis=1))[:, None]
    assert np.allclose(run.weights, W - lr * g_clipped.mean(axis=0), rtol=1e-12)
    assert not np.allclose(run.weights, W - lr * g.mean(axis=0), rtol=1e-3)


# --------------------------------------------------------------------------- accounting
def test_accountant_called_with_q_sigma_cumulative_steps_delta():
    calls = []

    def fake(q, sigma, steps, delta):
        calls.append((q, sigma, steps, delta))
        return 0.1 * steps + sigma + q + delta

    run = sgd.dp_sgd(X, Y, clip_norm=1.0, noise_multiplier=1.3, sampling_probability=0.2, epochs=3,
                     learning_rate=0.1, rng=np.random.default_rng(0), delta=3e-6, accountant=fake)
    assert calls == [(0.2, 1.3, 5, 3e-6), (0.2, 1.3, 10, 3e-6), (0.2, 1.3, 15, 3e-6)]
    assert np.allclose(run.epsilons, [0.5 + 1.5 + 3e-6, 1.0 + 1.5 + 3e-6, 1.5 + 1.5 + 3e-6])


def test_no_delta_means_no_accounting():
    run = sgd.dp_sgd(X, Y, clip_norm=1.0, noise_multiplier=1.0, sampling_probability=0.5, epochs=2,
                     learning_rate=0.1, rng=np.random.default_rng(0))
    assert run.epsilons is None
    assert run.losses.shape == (2,)


def test_accuracy_by_loop():
    w = np.array([0.5, -1.0, 0.0, 0.2, 0.1])
    want = np.mean([(float(np.dot(xi, w[:-1]) + w[-1]) > 0) == (yi == 1) for xi, yi in zip(X, Y)])
    assert sgd.accuracy(w, X, Y) == want


# --------------------------------------------------------------------------- bad input
def kwargs(**over):
    base = dict(clip_norm=1.0, noise_multiplier=1.0, sampling_probability=0.5, epochs=1, learning_rate=0.1,
                rng=np.random.default_rng(0))
    base.update(over)
    return base


@pytest.mark.parametrize("over, match", [
    (dict(clip_norm=0.0), r"clip_norm must be > 0, got 0"),
    (dict(clip_norm=-1.0), r"clip_norm must be > 0, got -1"),
    (dict(noise_multiplier=-0.5), r"noise_multiplier must be >= 0, got -0.5"),
    (dict(sampling_probability=0.0), r"sampling_probability must be in \[1e-09, 1\], got 0"),
    (dict(sampling_probability=1.5), r"sampling_probability must be in \[1e-09, 1\], got 1.5"),
    (dict(sampling_probability=1e-300), r"^sampling_probability must be in \[1e-09, 1\], got 1e-300$"),
    (dict(sampling_probability=5e-324), r"^sampling_probability must be in \[1e-09, 1\], got 5e-324$"),
    (dict(epochs=0), r"epochs must be an integer in \[1, 1000000\], got 0"),
    (dict(learning_rate=0.0), r"learning_rate must be > 0, got 0"),
    (dict(rng=3), r"rng must be a numpy.random.Generator"),
    (dict(delta=1.0, accountant=lambda *a: 1.0), r"^delta must be in \(0, 1\), got 1$"),
    (dict(delta=0.0, accountant=lambda *a: 1.0), r"^delta must be in \(0, 1\), got 0$"),
    (dict(accountant=lambda *a: 1.0), r"^delta must be given when an accountant is given, got None$"),
    (dict(initial_weights=np.zeros(D)), r"weights must have shape \(5,\)"),
    (dict(expected_batch_size=0.0), r"expected_batch_size must be > 0, got 0"),
])
def test_dp_sgd_rejects_bad_parameters(over, match):
    with pytest.raises(ValueError, match=match):
        sgd.dp_sgd(X, Y, **kwargs(**over))


def test_dp_sgd_rejects_bad_data():
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="^features must be finite, got a nan or an infinite entry$"):
        sgd.dp_sgd(bad, Y, **kwargs())
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="^features must be finite"):
        sgd.dp_sgd(bad, Y, **kwargs())
    with pytest.raises(ValueError, match="labels must be 0 or 1, got -1.0"):
        sgd.dp_sgd(X, np.where(Y == 0, -1.0, 1.0), **kwargs())
    # the message names the first bad label, after valid 0s and 1s
    with pytest.raises(ValueError, match=r"^labels must be 0 or 1, got 2.0$"):
        sgd.dp_sgd(X[:4], [0, 1, 2, 3], **kwargs())
    for shape in [(0, 3), (3, 0)]:
        with pytest.raises(ValueError, match=r"features must be a non-empty 2-D array \(n, d\), got shape"):
            sgd.dp_sgd(np.zeros(shape), np.zeros(shape[0]), **kwargs())
    with pytest.raises(ValueError, match=r"labels must have shape \(37,\)"):
        sgd.dp_sgd(X, Y[:-1], **kwargs())
    with pytest.raises(ValueError, match=r"features must be a non-empty 2-D array"):
        sgd.dp_sgd(X[:, 0], Y, **kwargs())


def test_steps_that_take_the_weights_beyond_the_doubles_are_refused_by_the_parameters_that_size_them():
    """expected_batch_size = 5e-324 divides the noisy sum by the smallest subnormal: the weights after one
    step are about 1e323, beyond the doubles (the largest is 1.8e308). They came out +-inf, and the loss
    at the end of the epoch refused scores inf - inf with a message naming features and weights."""
    msg = (r"^learning_rate \* \(clipped sum \+ noise_multiplier \* clip_norm \* noise\) / expected_batch_size "
           r"must keep the weights finite \(below 1\.8e308\), got a weight -?inf at step 1 "
           r"\(learning_rate = 0\.1, expected_batch_size = 5e-324\)$")
    with pytest.raises(ValueError, match=msg):
        sgd.dp_sgd(X, Y, **kwargs(expected_batch_size=5e-324))
    # a step of 1e300 keeps the weights finite: a run, not an error
    run = sgd.dp_sgd(X[:4], Y[:4], **kwargs(noise_multiplier=0.0, sampling_probability=1.0, learning_rate=1e300))
    assert np.all(np.isfinite(run.weights)) and np.max(np.abs(run.weights)) > 1e298


def test_default_accountant_is_the_subsampled_gaussian_pld():
    from dpnotes.subsampling import subsampled_gaussian_epsilon

    run = sgd.dp_sgd(X, Y, clip_norm=1.0, noise_multiplier=0.8, sampling_probability=0.25, epochs=2,
                     learning_rate=0.1, rng=np.random.default_rng(0), delta=1e-4)
    want = [subsampled_gaussian_epsilon(0.25, 0.8, steps, 1e-4) for steps in (4, 8)]
    assert np.allclose(run.epsilons, want, rtol=1e-12)


def test_accuracy_counts_a_zero_score_as_class_0():
    assert sgd.accuracy([1.0, 0.0], [[0.0], [1e-9]], [0, 1]) == 1.0


def test_helpers_reject_bad_input():
    with pytest.raises(ValueError, match="^rng must be a numpy.random.Generator"):
        sgd.noisy_clipped_sum([[1.0]], 1.0, 1.0, rng=3)
    with pytest.raises(ValueError, match="^rng must be a numpy.random.Generator"):
        sgd.poisson_batch(10, 0.5, rng=3)
    with pytest.raises(ValueError, match="^gradients must be finite, got a nan or an infinite entry$"):
        sgd.clip_gradients([[1.0, np.inf]], 1.0)
    with pytest.raises(ValueError, match="^weights must be finite, got a nan or an infinite entry$"):
        sgd.per_example_gradients([np.nan, 0.0], [[1.0]], [1])
    with pytest.raises(ValueError, match="clip_norm must be > 0, got 0"):
        sgd.clip_gradients([[1.0, 2.0]], 0.0)
    with pytest.raises(ValueError, match="gradients must be a 2-D array"):
        sgd.clip_gradients([1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match="gradients must be finite"):
        sgd.clip_gradients([[1.0, np.nan]], 1.0)
    with pytest.raises(ValueError, match="noise_multiplier must be >= 0, got -1"):
        sgd.noisy_clipped_sum([[1.0]], 1.0, -1.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"sampling_probability must be in \(0, 1\], got 0"):
        sgd.poisson_batch(10, 0.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 100000000\], got 0"):
        sgd.poisson_batch(0, 0.5, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="weights must be finite"):
        sgd.logistic_loss([np.inf, 0.0], [[1.0]], [1])


def test_poisson_batch_and_dp_sgd_cap_their_sizes(raises_exactly):
    """poisson_batch(n=2**31) and dp_sgd(epochs=2**31) allocated 16 GiB arrays (MemoryError)."""
    with raises_exactly(f"n must be an integer in [1, 100000000], got {2**31}"):
        sgd.poisson_batch(2**31, 0.3, rng=np.random.default_rng(0))
    with raises_exactly(f"epochs must be an integer in [1, 1000000], got {2**62}"):
        sgd.dp_sgd([[1.0], [-1.0]], [1, 0], clip_norm=1.0, noise_multiplier=1.0, sampling_probability=0.5,
                   epochs=2**62, learning_rate=0.5, rng=np.random.default_rng(0))


def test_batch_sizes_are_integer_counts_of_the_poisson_draws():
    """The recorded batch sizes are counts: an integer array equal to the number of draws below q at each step,
    replayed on the same seed (each step draws n uniforms for the batch, then d + 1 normals for the noise).
    Kills dp_sgd mutmut_143 and _145 (a float array of the same values)."""
    run = sgd.dp_sgd(X, Y, **kwargs(sampling_probability=0.25, epochs=2, rng=np.random.default_rng(7)))
    replay = np.random.default_rng(7)
    want = []
    for _ in range(run.batch_sizes.size):
        want.append(int(np.count_nonzero(replay.random(N) < 0.25)))
        replay.standard_normal(D + 1)
    assert run.batch_sizes.dtype.kind == "i" and run.batch_sizes.tolist() == want


def test_the_overflow_message_names_the_first_non_finite_weight_and_its_step():
    """Without noise, a feature column of zeros keeps its weight at 0 while the bias overflows (the sum divided by
    5e-324): the message shows the one non-finite weight. Empty batches before it leave the weights at 0, so the
    step named is the first whose batch (replayed on the seed) is not empty. Kills dp_sgd mutmut_194 (the second
    non-finite weight: IndexError) and _196 (epoch * steps - step + 1)."""
    features, labels = np.zeros((3, 1)), np.array([1.0, 0.0, 1.0])
    seed, q = 11, 0.125
    replay = np.random.default_rng(seed)
    first = None
    for step in range(8):
        if first is None and np.count_nonzero(replay.random(3) < q) > 0:
            first = step + 1
        replay.standard_normal(2)
    assert first is not None and first > 1               # the seed is chosen so that the overflow is not at step 1
    msg = (rf"got a weight (-?inf) at step {first} \(learning_rate = 0\.1, expected_batch_size = 5e-324\)$")
    with pytest.raises(ValueError, match=msg):
        sgd.dp_sgd(features, labels, **kwargs(noise_multiplier=0.0, sampling_probability=q,
                                              expected_batch_size=5e-324, rng=np.random.default_rng(seed)))
