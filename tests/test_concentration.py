"""Unit tests of dpnotes.concentration."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpnotes import concentration as conc


def test_azuma_closed_form_and_vectorized():
    assert conc.azuma_bound(3.0, [0.5] * 8) == pytest.approx(math.exp(-9 / (2 * 8 * 0.25)))
    t = np.array([0.0, 1.0, 2.0])
    out = conc.azuma_bound(t, [1.0, 2.0])
    assert out.shape == (3,) and out[0] == 1.0 and out[2] == pytest.approx(math.exp(-4 / 10))


def test_azuma_holds_for_exact_rr_loss_tail():
    # k independent randomized-response steps: the loss tail is an exact binomial sum
    for eps, k in [(0.3, 40), (1.0, 15), (0.05, 400)]:
        p = 1 / (1 + math.exp(-eps))
        beta = eps * math.tanh(eps / 2)
        ones = np.arange(k + 1)
        loss, pmf = eps * (2 * ones - k), stats.binom.pmf(ones, k, p)
        for t in np.linspace(0, 3 * eps * math.sqrt(k), 15):
            exact = pmf[loss >= k * beta + t - 1e-12].sum()
            assert exact <= conc.azuma_bound(t, [eps] * k) + 1e-15


def test_azuma_holds_for_an_adaptive_martingale_exactly():
    # enumerate every path of the adaptive strategy of rr_loss_paths (k = 10) and its exact probability
    eps, k = 0.8, 10
    tail = {}
    for reports in itertools.product((0, 1), repeat=k):
        prob, e, loss, comp = 1.0, eps, 0.0, 0.0
        for r in reports:
            keep = 1 / (1 + math.exp(-e))
            prob *= keep if r == 1 else 1 - keep
            loss += e if r == 1 else -e
            comp += e * math.tanh(e / 2)
            e = eps if r == 1 else eps / 2
        tail[reports] = (prob, loss, comp)
    assert sum(v[0] for v in tail.values()) == pytest.approx(1.0)
    for t in (0.5, 1.0, 2.0, 3.0, 4.0):
        beta_sum = k * eps * math.tanh(eps / 2)            # deterministic bound on the compensator
        exact = sum(pr for pr, loss, _ in tail.values() if loss >= beta_sum + t)
        assert exact <= conc.azuma_bound(t, [eps] * k)


def test_hoeffding_both_tails_exact_binomial():
    for n, p in [(20, 0.5), (50, 0.2), (200, 0.9)]:
        for tau in np.linspace(0.5, n / 4, 10):
            upper = stats.binom.sf(math.ceil(n * p + tau) - 1, n, p)
            lower = stats.binom.cdf(math.floor(n * p - tau), n, p)
            bound = conc.hoeffding_bound(tau, n, 0, 1)
            assert upper <= bound + 1e-15 and lower <= bound + 1e-15
    assert conc.hoeffding_bound(2.0, 4, -1.0, 1.0) == pytest.approx(math.exp(-2 * 4 / (4 * 4)))


def test_rr_loss_paths_moments():
    rng = np.random.default_rng(1)
    eps, k, n = 0.4, 30, 40_000
    loss, comp = conc.rr_loss_paths(eps, k, n, rng)
    p = 1 / (1 + math.exp(-eps))
    mean, var = k * eps * (2 * p - 1), k * (2 * eps) ** 2 * p * (1 - p)
    assert abs(loss.mean() - mean) < 5 * math.sqrt(var / n)       # 5 standard errors
    assert np.allclose(comp, k * eps * math.tanh(eps / 2))
    loss_a, comp_a = conc.rr_loss_paths(eps, k, n, rng, adaptive=True)
    assert np.all(np.abs(loss_a) <= k * eps + 1e-9)
    assert np.all(comp_a <= k * eps * math.tanh(eps / 2) + 1e-12) and np.all(comp_a > 0)
    # martingale: loss - compensator has mean zero
    assert abs((loss_a - comp_a).mean()) < 5 * math.sqrt(k * (2 * eps) ** 2 / n)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: conc.azuma_bound(-1.0, [1.0]), "t must be >= 0"),
        (lambda: conc.azuma_bound(1.0, []), "c must be a non-empty"),
        (lambda: conc.azuma_bound(1.0, [1.0, 0.0]), "c must be a non-empty"),
        (lambda: conc.hoeffding_bound(1.0, 0, 0, 1), "n must be an integer >= 1"),
        (lambda: conc.hoeffding_bound(1.0, 3, 1, 1), "b must be > 1"),
        (lambda: conc.hoeffding_bound(-1.0, 3, 0, 1), "tau must be >= 0"),
        (lambda: conc.rr_loss_paths(0.0, 3, 10, np.random.default_rng(0)), "epsilon must be > 0"),
        (lambda: conc.rr_loss_paths(0.1, 0, 10, np.random.default_rng(0)), r"k must be an integer in \[1, 100000000\]"),
        (lambda: conc.rr_loss_paths(0.1, 3, 10, 42), "rng must be a numpy.random.Generator"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def _adaptive_law(eps, k):
    """Exact law of (loss, compensator) of the adaptive strategy, by enumerating all 2^k report strings.

    Step i runs randomized response at e_i (e_1 = eps; e_{i+1} = eps after a report of 1, eps/2 after a 0);
    the data set x has bit 1, so a report of 1 has probability e^{e_i}/(1+e^{e_i}) and loss +e_i.
    """
    law = {}
    for reports in itertools.product((0, 1), repeat=k):
        prob, e, loss, comp = 1.0, eps, 0.0, 0.0
        for r in reports:
            keep = math.exp(e) / (1 + math.exp(e))
            prob *= keep if r == 1 else 1 - keep
            loss += e if r == 1 else -e
            comp += e * (math.exp(e) - 1) / (math.exp(e) + 1)
            e = eps if r == 1 else eps / 2
        key = (round(loss, 9), round(comp, 9))
        law[key] = law.get(key, 0.0) + prob
    return law


@pytest.mark.parametrize("eps, k", [(0.7, 5), (1.6, 6)])
def test_rr_loss_paths_adaptive_law_matches_exact_enumeration(eps, k):
    # the simulated joint law of (loss, compensator) against the exact one: a non-adaptive pass (every step
    # at eps) would put all its mass on multiples of eps with a constant compensator, far from this law
    n = 100_000
    loss, comp = conc.rr_loss_paths(eps, k, n, np.random.default_rng(12), adaptive=True)
    exact = _adaptive_law(eps, k)
    keys = list(zip(np.round(loss, 9), np.round(comp, 9)))
    seen = {}
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) <= set(exact)                           # no simulated value the strategy cannot produce
    for key, pr in exact.items():
        freq = seen.get(key, 0) / n
        assert abs(freq - pr) <= 5 * math.sqrt(pr * (1 - pr) / n) + 1e-4, (key, freq, pr)
    # the non-adaptive law is a different one: its losses are multiples of eps only
    fixed, _ = conc.rr_loss_paths(eps, k, 2000, np.random.default_rng(12))
    assert np.allclose(fixed / eps, np.round(fixed / eps))
    assert not np.allclose(loss / eps, np.round(loss / eps))


def test_rr_loss_paths_coupled_to_the_uniform_draws():
    # exact check by coupling seeds: the same generator state gives the same uniforms, and step i reports 1
    # exactly when u[:, i] < e^{e_i} / (1 + e^{e_i})
    eps, k, n = 0.9, 7, 500
    u = np.random.default_rng(21).random((n, k))
    loss, comp = conc.rr_loss_paths(eps, k, n, np.random.default_rng(21), adaptive=True)
    fixed, fixed_comp = conc.rr_loss_paths(eps, k, n, np.random.default_rng(21))
    for j in range(n):
        e, tot, cmp_ = eps, 0.0, 0.0
        for i in range(k):
            one = u[j, i] < math.exp(e) / (1 + math.exp(e))
            tot += e if one else -e
            cmp_ += e * math.tanh(e / 2)
            e = eps if one else eps / 2
        assert loss[j] == pytest.approx(tot, abs=1e-12) and comp[j] == pytest.approx(cmp_, abs=1e-12)
        ones = int(np.sum(u[j] < math.exp(eps) / (1 + math.exp(eps))))
        assert fixed[j] == pytest.approx(eps * (2 * ones - k), abs=1e-12)
    assert np.allclose(fixed_comp, k * eps * math.tanh(eps / 2))


def test_rr_loss_paths_shapes_and_single_step():
    loss, comp = conc.rr_loss_paths(0.3, 1, 4, np.random.default_rng(0), adaptive=True)
    assert loss.shape == comp.shape == (4,) and set(np.round(np.abs(loss), 12)) == {0.3}
    with pytest.raises(ValueError, match=r"n_paths must be an integer in \[1, 100000000\]"):
        conc.rr_loss_paths(0.3, 2, 0, np.random.default_rng(0))


def test_bounds_return_floats_for_scalars_and_arrays_for_arrays():
    a = conc.azuma_bound(1.5, [0.5, 1.0])
    h = conc.hoeffding_bound(1.5, 3, -1.0, 2.0)
    assert type(a) is float and a == pytest.approx(math.exp(-1.5**2 / (2 * 1.25)))
    assert type(h) is float and h == pytest.approx(math.exp(-2 * 1.5**2 / (3 * 9)))
    taus = np.array([[0.0, 1.0], [2.0, 3.0]])
    hv = conc.hoeffding_bound(taus, 5, 0.0, 2.0)
    assert isinstance(hv, np.ndarray) and hv.shape == (2, 2)
    assert np.allclose(hv, np.exp(-2 * taus**2 / (5 * 4)))
    av = conc.azuma_bound(taus, [1.0, 3.0])
    assert isinstance(av, np.ndarray) and av.shape == (2, 2) and np.allclose(av, np.exp(-taus**2 / 20))


def test_rr_loss_paths_single_path():
    loss, comp = conc.rr_loss_paths(0.4, 3, 1, np.random.default_rng(2), adaptive=True)
    assert loss.shape == (1,) and comp.shape == (1,)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: conc.azuma_bound(1.0, [1.0, 0.0]), r"c must be a non-empty 1-D array of finite values > 0, got \[1.0, 0.0\]"),
        (lambda: conc.azuma_bound(1.0, ["x"]), r"c must be a real number or an array of real numbers, got \['x'\]"),
        (lambda: conc.azuma_bound(1.0, [[1.0, 2.0]]), "c must be a non-empty 1-D"),
        (lambda: conc.azuma_bound([0.0, 0.5, -2.0], [1.0]), r"t must be >= 0, got -2.0"),
        (lambda: conc.azuma_bound([1.0, math.inf], [1.0]), r"t must be >= 0, got inf"),
        (lambda: conc.azuma_bound("s", [1.0]), r"t must be a real number or an array of real numbers, got 's'"),
        (lambda: conc.hoeffding_bound(1.0, 3, math.nan, 1), "a must be a real number, got nan"),
        (lambda: conc.hoeffding_bound(1.0, 3, 0, math.nan), "b must be a real number, got nan"),
        (lambda: conc.hoeffding_bound([1.0, -0.5], 3, 0, 1), r"tau must be >= 0, got -0.5"),
        (lambda: conc.rr_loss_paths(0.4, 3, 1.5, np.random.default_rng(0)), r"n_paths must be an integer in \[1, 100000000\], got 1.5"),
    ],
)
def test_bad_inputs_name_the_parameter_and_the_value(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ----------------------------------------------------------------------------------- extreme magnitudes
def _mp_hoeffding(tau, n, a, b):
    import mpmath

    with mpmath.workdps(50):
        tau, a, b = mpmath.mpf(tau), mpmath.mpf(a), mpmath.mpf(b)
        return float(mpmath.exp(-2 * tau**2 / (n * (b - a) ** 2)))


@pytest.mark.parametrize("tau, n, a, b", [
    (1e300, 20, -1e300, 1.5),        # (b - a) ** 2 overflowed: OverflowError
    (5.0, 20, -1e300, 1.5),          # the bound is 1 to double precision
    (1e300, 20, -1.0, 1e300),        # same, through b
    (1e308, 1, -1e308, 1e308),       # b - a = 2e308 overflows the float range itself
    (5e-324, 1, 0.0, 5e-324),        # a subnormal width: q = 1/sqrt(1)
    (1e-300, 4, 1.0, 1.0 + 2**-52),  # a tiny deviation over a one-ulp width
    (5.0, 20, -1.0, 5e-324),
])
def test_hoeffding_at_extreme_magnitudes_is_the_closed_form(tau, n, a, b):
    got = conc.hoeffding_bound(tau, n, a, b)
    assert got == pytest.approx(_mp_hoeffding(tau, n, a, b), rel=1e-13, abs=0)


def test_hoeffding_limits_zero_and_one():
    assert conc.hoeffding_bound(5.0, 20, 0.0, 5e-324) == 0.0           # exp(-2 * 1e647 / 20)
    assert conc.hoeffding_bound(1e300, 1, -1e-300, 1e-300) == 0.0
    assert conc.hoeffding_bound(5e-324, 20, -1e300, 1e300) == 1.0       # exp(-1e-1247)
    assert conc.hoeffding_bound(1.0, 10**400, 0.0, 1.0) == 1.0          # n beyond the float range


@pytest.mark.parametrize("a, b", [(1e300, 1.5), (-1.0, -1e300), (5e-324, 0.0)])
def test_hoeffding_empty_range_names_a_and_b(a, b):
    # 'b must be > 1000...(301 digits)' named only b, for a wrong a
    with pytest.raises(ValueError, match=r"b must be > .* = a \(a must be < b\), got a = .*, b = ") as info:
        conc.hoeffding_bound(1.0, 3, a, b)
    assert len(str(info.value)) < 120


@pytest.mark.parametrize("t, c, exponent", [
    (1e300, [1e300], -0.5),                  # t * t / sum(c * c) was inf / inf = nan
    (1e300, [1e300] * 4, -0.125),
    (1e-300, [1e-300, 1e-300], -0.25),       # 0 / 0 = nan
    (5e-324, [5e-324], -0.5),
])
def test_azuma_at_extreme_magnitudes_is_the_closed_form(t, c, exponent):
    assert conc.azuma_bound(t, c) == pytest.approx(math.exp(exponent), rel=1e-14, abs=0)


def test_azuma_limits_zero_and_one():
    assert conc.azuma_bound(1.0, [5e-324]) == 0.0
    assert conc.azuma_bound(5e-324, [1e300]) == 1.0
    assert np.array_equal(conc.azuma_bound([0.0, 1e300], [1e-300]), [1.0, 0.0])


def test_rr_loss_paths_caps_k_and_n_paths(raises_exactly):
    """An n_paths-by-k array of uniforms: 2**31 of either was a MemoryError of 48 GiB or more."""
    rng = np.random.default_rng(0)
    with raises_exactly(f"k must be an integer in [1, 100000000], got {2**31}"):
        conc.rr_loss_paths(0.5, 2**31, 3, rng)
    with raises_exactly(f"n_paths must be an integer in [1, 100000000], got {2**62}"):
        conc.rr_loss_paths(0.5, 4, 2**62, rng)
