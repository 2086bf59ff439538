"""Property tests of dpnotes.selection over its whole documented domain (Hypothesis).

Utilities are any finite doubles (``1e300`` and ties included), ``epsilon`` and ``sensitivity``
any positive doubles from ``1e-300`` to ``1e300``. The properties: every law is non-negative
and sums to one; it depends on the utilities only through their gaps (adding a constant
changes nothing); it equals an independent mpmath softmax (exponential mechanism) or the
other closed forms its theorem names (Gumbel noise: the exponential mechanism; exponential
noise: permute-and-flip); changing the utilities by at most the sensitivity changes no
probability by more than a factor ``e^epsilon`` (the privacy theorem); permute-and-flip
dominates the exponential mechanism (McKenna and Sheldon, Theorem 2); samplers equal their
written recipe on the same seed; and every bad parameter is named in a ``ValueError``.

Tolerances. The exponential mechanism's logits ``eps (u_r - u*) / (2 Delta)`` are formed with
three roundings, so a probability ``exp(L - lse)`` carries a relative error of about
``4e-16 (|L| + 1)``; a probability that does not underflow has ``|L| < 745``, hence
``rtol = 1e-12``. Subnormal probabilities (below ``1e-300``) lose relative precision by
nature: ``atol = 1e-300``. The quadrature of report noisy max runs at relative tolerance
``1e-12`` per piece; with a few pieces per candidate ``1e-9`` is a safe bound.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import profiles
from dpnotes import selection

FINITE = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
SMALL = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False)
POSITIVE = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)
MODERATE = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)
EXACT_LAWS = (selection.exponential_mechanism_probabilities, selection.permute_and_flip_probabilities)


def utilities(elements=FINITE, max_size=8):
    return st.lists(elements, min_size=1, max_size=max_size).map(np.array)


def mp_logits(u, eps, sens):
    """eps (u_r - max u) / (2 sens) in exact rational arithmetic (Python Fractions)."""
    top = max(Fraction(float(x)) for x in u)
    return [Fraction(eps) * (Fraction(float(x)) - top) / (2 * Fraction(sens)) for x in u]


def float_logits(u, eps, sens):
    """The exact logits rounded to doubles (once); below the most negative double: -inf."""
    out = []
    for q in mp_logits(u, eps, sens):
        try:
            out.append(float(q))
        except OverflowError:
            out.append(-math.inf)
    return np.array(out)


def mp_softmax(u, eps, sens):
    with mp.workdps(40):
        logits = [mp.mpf(q.numerator) / q.denominator for q in mp_logits(u, eps, sens)]
        lse = mp.log(mp.fsum(mp.exp(x) for x in logits))
        return np.array([float(mp.exp(x - lse)) for x in logits])


# --------------------------------------------------------------------------- laws
@given(u=utilities(), eps=POSITIVE, sens=POSITIVE)
def test_exact_laws_are_distributions_everywhere(u, eps, sens):
    for law in EXACT_LAWS:
        p = law(u, eps, sens)
        assert p.shape == u.shape and np.all(np.isfinite(p)) and np.all(p >= 0), law.__name__
        assert math.isclose(p.sum(), 1.0, rel_tol=1e-12), law.__name__
        # a best candidate is never less likely than any other
        assert p[np.argmax(u)] >= p.max() * (1 - 1e-12), law.__name__


@given(u=utilities(), eps=POSITIVE, sens=POSITIVE)
def test_exponential_mechanism_is_the_softmax_of_its_logits(u, eps, sens):
    """Against an independent computation: exact rational logits, softmax in 40-digit mpmath."""
    got = selection.exponential_mechanism_probabilities(u, eps, sens)
    assert np.allclose(got, mp_softmax(u, eps, sens), rtol=1e-12, atol=1e-300)


@given(u=utilities(st.integers(-10**6, 10**6), 8), shift=st.integers(-2**40, 2**40), eps=POSITIVE, sens=POSITIVE)
def test_exact_laws_depend_only_on_the_gaps(u, shift, eps, sens):
    """Integers below 2^53 shift exactly, and the gaps are formed first: the laws are equal, bit for bit."""
    u = u.astype(float)
    for law in EXACT_LAWS:
        assert np.array_equal(law(u, eps, sens), law(u + shift, eps, sens)), law.__name__


@given(u=utilities(st.integers(-30, 30), 4), shift=st.integers(-10**12, 10**12),
       eps=MODERATE, noise=st.sampled_from(selection.NOISES))
def test_report_noisy_max_law_depends_only_on_the_gaps(u, shift, eps, noise):
    u = u.astype(float)
    a = selection.report_noisy_max_probabilities(u, eps, 1.0, noise)
    b = selection.report_noisy_max_probabilities(u + shift, eps, 1.0, noise)
    assert np.allclose(a, b, rtol=1e-9, atol=1e-300)


@given(u=utilities(st.floats(-1e6, 1e6), 4), eps=MODERATE, sens=MODERATE, noise=st.sampled_from(selection.NOISES))
def test_report_noisy_max_law_is_a_distribution_and_matches_its_closed_forms(u, eps, sens, noise):
    """Gumbel noise gives the exponential mechanism, exponential noise permute-and-flip
    (the theorems the module cites); Laplace noise has no closed form: it sums to one."""
    p = selection.report_noisy_max_probabilities(u, eps, sens, noise)
    assert np.all(p >= 0) and math.isclose(p.sum(), 1.0, rel_tol=1e-9)
    exact = {"gumbel": selection.exponential_mechanism_probabilities,
             "exponential": selection.permute_and_flip_probabilities}.get(noise)
    if exact is not None:
        assert np.allclose(p, exact(u, eps, sens), rtol=1e-9, atol=1e-300)


@given(u=utilities(FINITE, 2).filter(lambda u: u.size == 2), eps=POSITIVE, sens=POSITIVE)
def test_report_noisy_max_laplace_two_candidates_is_the_laplace_difference_law(u, eps, sens):
    """Two candidates, Laplace noise: the loser, t noise units behind (t = eps |u_0 - u_1| / (2 Delta)),
    wins when the difference of two standard Laplace variables exceeds t, which has probability
    (1 + t/2) e^(-t) / 2 (the difference's tail, integrated by hand). Checked in logs against the
    exact gap (Fractions), so the whole domain counts, far tails included."""
    exact_a = mp_logits(u, eps, sens)
    t_frac = abs(exact_a[0] - exact_a[1])
    try:
        t = float(t_frac)
    except OverflowError:
        t = math.inf
    assume(t < 700.0 or t == math.inf)           # the loser's probability then is a normal double or 0
    p = selection.report_noisy_max_probabilities(u, eps, sens, "laplace")
    lose = math.exp(math.log1p(t / 2) - t - math.log(2.0)) if t < math.inf else 0.0
    loser = 0 if exact_a[0] < exact_a[1] else 1
    if t == 0:
        assert p.tolist() == pytest.approx([0.5, 0.5], rel=1e-9, abs=0)
    else:
        assert p[loser] == pytest.approx(lose, rel=1e-9, abs=1e-300)
        assert p[1 - loser] == pytest.approx(1.0 - lose, rel=1e-9, abs=0)


def test_report_noisy_max_law_of_a_sure_winner_far_away():
    """Regression: quad over [0, inf) missed the peak at w = 5e5 and answered 1/2 (Laplace) or
    1 - 1/e (Gumbel) for a candidate that wins with certainty."""
    for noise in selection.NOISES:
        p = selection.report_noisy_max_probabilities([0.0, 1e6], 1.0, 1.0, noise)
        assert p.tolist() == pytest.approx([0.0, 1.0], rel=1e-12, abs=1e-300), noise
        p = selection.report_noisy_max_probabilities([1e308, -1e308, 1e308], 3.0, 1e-3, noise)
        assert p.tolist() == pytest.approx([0.5, 0.0, 0.5], rel=1e-12, abs=1e-300), noise


def test_exact_laws_with_extreme_utilities_and_parameters():
    """Regression: u / scale overflowed (1e308 / 0.5) and gave nan; now every finite input works."""
    for law in (*EXACT_LAWS, selection.report_noisy_max_probabilities):
        # (quadrature for report noisy max: equal within its tolerance)
        assert law([1e308, 0.0], 4.0, 1.0).tolist() == pytest.approx([1.0, 0.0], rel=1e-12, abs=1e-300)
        assert law([1e308, -1e308], 1e-300, 1e300).tolist() == pytest.approx([0.5, 0.5], rel=1e-12, abs=0)
        assert law([5e-324, 0.0], 1e300, 1e-300).tolist() == pytest.approx([1.0, 0.0], rel=1e-12, abs=1e-300)
    p = selection.exponential_mechanism_probabilities([1e308, -1e308], 1.0, 1e308)   # logit gap 1
    assert np.allclose(p, [1 / (1 + math.exp(-1)), 1 / (1 + math.e)], rtol=1e-15)


# --------------------------------------------------------------------------- privacy
@given(u=utilities(st.floats(-1e3, 1e3), 6), data=st.data(), eps=st.floats(1e-3, 20.0), sens=MODERATE)
def test_neighbouring_utilities_change_no_probability_by_more_than_e_eps(u, data, eps, sens):
    """Theorem 3.10 (and McKenna and Sheldon's for permute-and-flip): if every utility moves by at
    most Delta, every output probability moves by at most a factor e^eps."""
    move = np.array(data.draw(st.lists(st.floats(-1.0, 1.0), min_size=u.size, max_size=u.size)))
    v = u + sens * move
    assume(np.all(np.abs(v - u) <= sens))
    for law in EXACT_LAWS:
        p, q = law(u, eps, sens), law(v, eps, sens)
        ok = (p > 1e-250) & (q > 1e-250)                # subnormal ratios are not resolved
        assert np.all(p[ok] <= math.exp(eps) * q[ok] * (1 + 1e-9)), law.__name__


@given(u=utilities(st.floats(-20.0, 20.0), 3), data=st.data(), eps=st.floats(0.05, 5.0),
       noise=st.sampled_from(selection.NOISES))
def test_report_noisy_max_is_eps_dp_on_drawn_neighbours(u, data, eps, noise):
    move = np.array(data.draw(st.lists(st.floats(-1.0, 1.0), min_size=u.size, max_size=u.size)))
    p = selection.report_noisy_max_probabilities(u, eps, 1.0, noise)
    q = selection.report_noisy_max_probabilities(u + move, eps, 1.0, noise)
    ok = (p > 1e-250) & (q > 1e-250)
    assert np.all(p[ok] <= math.exp(eps) * q[ok] * (1 + 1e-8))


@given(u=utilities(st.floats(-1e3, 1e3), 10), eps=st.floats(1e-3, 50.0))
def test_permute_and_flip_dominates_the_exponential_mechanism(u, eps):
    """McKenna and Sheldon, Theorem 2: for every utility level x, PF outputs a candidate of
    utility >= x at least as often as EM, so its expected utility is at least EM's."""
    pf = selection.permute_and_flip_probabilities(u, eps)
    em = selection.exponential_mechanism_probabilities(u, eps)
    order = np.argsort(-u, kind="stable")
    levels = np.r_[np.flatnonzero(np.diff(u[order]) != 0), u.size - 1]   # ends of groups of equal utility
    assert np.all(np.cumsum(pf[order])[levels] >= np.cumsum(em[order])[levels] - 1e-12)
    assert pf @ (u - u.max()) >= em @ (u - u.max()) - 1e-9 * (1 + np.ptp(u))


@given(m=st.integers(1, 10**6), eps=POSITIVE, t=st.floats(0.0, 1e3), sens=POSITIVE,
       grow=st.floats(1.0, 10.0))
def test_accuracy_gap_is_monotone(m, eps, t, sens, grow):
    gap = selection.accuracy_gap(m, eps, t, sens)
    assert gap >= 0
    assert selection.accuracy_gap(m + 1, eps, t, sens) >= gap
    assert selection.accuracy_gap(m, eps, t * grow, sens) >= gap
    assert selection.accuracy_gap(m, eps, t, sens * grow) >= gap
    assert selection.accuracy_gap(m, eps * grow, t, sens) <= gap


@given(u=utilities(st.floats(-1e4, 1e4), 30), eps=st.floats(1e-2, 10.0), t=st.floats(0.0, 10.0))
def test_accuracy_gap_bounds_the_exact_tail(u, eps, t):
    """Theorem 3.11: Pr[u(output) <= OPT - gap] <= e^-t, on the exact law."""
    p = selection.exponential_mechanism_probabilities(u, eps)
    gap = selection.accuracy_gap(u.size, eps, t)
    assert p[u <= u.max() - gap].sum() <= math.exp(-t) * (1 + 1e-12)


# --------------------------------------------------------------------------- samplers, by coupled seeds
@given(u=utilities(), eps=POSITIVE, sens=POSITIVE, seed=st.integers(0, 2**32 - 1))
def test_exponential_mechanism_is_inversion_of_its_law(u, eps, sens, seed):
    cdf = np.cumsum(selection.exponential_mechanism_probabilities(u, eps, sens))
    got = selection.exponential_mechanism(u, eps, sens, rng=np.random.default_rng(seed), size=50)
    v = np.random.default_rng(seed).random(50) * cdf[-1]
    assert np.array_equal(got, np.minimum((cdf[None, :] <= v[:, None]).sum(axis=1), u.size - 1))


@given(u=utilities(), eps=POSITIVE, sens=POSITIVE, seed=st.integers(0, 2**32 - 1),
       noise=st.sampled_from(selection.NOISES))
def test_report_noisy_max_is_argmax_of_logits_plus_noise(u, eps, sens, seed, noise):
    """The recipe of the docstring, with the logits from exact rational arithmetic."""
    a = float_logits(u, eps, sens)
    rng = np.random.default_rng(seed)
    z = {"laplace": lambda: rng.laplace(0.0, 1.0, (40, u.size)),
         "exponential": lambda: rng.standard_exponential((40, u.size)),
         "gumbel": lambda: rng.gumbel(0.0, 1.0, (40, u.size))}[noise]()
    got = selection.report_noisy_max(u, eps, sens, noise, rng=np.random.default_rng(seed), size=40)
    expected = np.argmax(a + z, axis=1)
    # a logit of the module may differ from the exact one in its last bit; only a near-tie can
    # then change the argmax
    close = np.sort(np.c_[a + z, np.full(40, -np.inf)], axis=1)
    clear = close[:, -1] - close[:, -2] > 1e-12 * (1 + np.abs(close[:, -1]))
    assert np.array_equal(got[clear], expected[clear])


@given(u=utilities(), eps=POSITIVE, sens=POSITIVE, seed=st.integers(0, 2**32 - 1))
def test_permute_and_flip_is_first_heads_in_a_random_order(u, eps, sens, seed):
    q = np.exp(float_logits(u, eps, sens))
    rng = np.random.default_rng(seed)
    heads = rng.random((40, u.size)) < q
    keys = np.where(heads, rng.random((40, u.size)), np.inf)
    got = selection.permute_and_flip(u, eps, sens, rng=np.random.default_rng(seed), size=40)
    assert np.array_equal(got, np.argmin(keys, axis=1))


@pytest.mark.parametrize("sampler", [selection.report_noisy_max, selection.permute_and_flip,
                                     selection.exponential_mechanism])
@pytest.mark.parametrize("big", [1e20, 1e300])
def test_ties_between_huge_utilities_are_broken_uniformly(sampler, big):
    """Regression: u + (2 Delta / eps) Z rounded the noise away at u = 1e20, so report noisy max
    always answered the first of tied candidates. Three tied candidates: each has probability 1/3;
    n = 30000 runs, 5 standard errors."""
    n = 30_000
    got = sampler([big, big, big, -big], 1.0, rng=np.random.default_rng(3), size=n)
    freq = np.bincount(got, minlength=4) / n
    assert np.all(np.abs(freq[:3] - 1 / 3) < 5 * math.sqrt(2 / 9 / n)) and freq[3] == 0


# --------------------------------------------------------------------------- quantile utilities
@given(data=st.lists(st.integers(-5, 5), min_size=1, max_size=12), cands=st.lists(st.integers(-6, 6), min_size=1,
       max_size=6), alpha=st.floats(0.0, 1.0), perm_seed=st.integers(0, 1000), new=st.integers(-5, 5),
       where=st.integers(0, 11))
def test_quantile_utility_mid_rank_sensitivity_and_order(data, cands, alpha, perm_seed, new, where):
    x = np.array(data, dtype=float)
    n = x.size
    got = selection.quantile_utility(x, cands, alpha)
    # mid-rank by brute force, in exact arithmetic
    expected = [-abs(Fraction(sum(v < c for v in data)) + Fraction(sum(v == c for v in data), 2)
                     - Fraction(alpha) * n) for c in cands]
    assert np.allclose(got, [float(e) for e in expected], rtol=0, atol=1e-12 * n)
    assert np.all(got <= 0)
    # the order of the records does not matter
    shuffled = np.random.default_rng(perm_seed).permutation(x)
    assert np.array_equal(selection.quantile_utility(shuffled, cands, alpha), got)
    # replacing one record moves every utility by at most 1 (sensitivity 1, replace-one)
    y = x.copy()
    y[where % n] = new
    assert np.all(np.abs(selection.quantile_utility(y, cands, alpha) - got) <= 1 + 1e-12)
    if alpha == 0.5:
        assert np.array_equal(selection.median_utility(x, cands), got)


# --------------------------------------------------------------------------- bad input
RNG = np.random.default_rng(0)
SCALAR_BAD = [math.nan, math.inf, -math.inf, None, "1.0", [1.0, 2.0], True]
ARRAY_BAD = ["abc", None, [1.0, "a"], [math.nan, 1.0], [-math.inf, 1.0], [[1.0], [2.0, 3.0]], [True, False]]
CALLS = {
    "exponential_mechanism_probabilities": (selection.exponential_mechanism_probabilities,
                                            dict(utilities=[0.0, 1.0], epsilon=1.0, sensitivity=1.0)),
    "permute_and_flip_probabilities": (selection.permute_and_flip_probabilities,
                                       dict(utilities=[0.0, 1.0], epsilon=1.0, sensitivity=1.0)),
    "report_noisy_max_probabilities": (selection.report_noisy_max_probabilities,
                                       dict(utilities=[0.0, 1.0], epsilon=1.0, sensitivity=1.0)),
    "exponential_mechanism": (selection.exponential_mechanism,
                              dict(utilities=[0.0, 1.0], epsilon=1.0, sensitivity=1.0, rng=RNG, size=2)),
    "permute_and_flip": (selection.permute_and_flip,
                         dict(utilities=[0.0, 1.0], epsilon=1.0, sensitivity=1.0, rng=RNG, size=2)),
    "report_noisy_max": (selection.report_noisy_max,
                         dict(utilities=[0.0, 1.0], epsilon=1.0, sensitivity=1.0, rng=RNG, size=2)),
    "accuracy_gap": (selection.accuracy_gap, dict(n_outputs=3, epsilon=1.0, t=1.0, sensitivity=1.0)),
    "quantile_utility": (selection.quantile_utility, dict(data=[1.0, 2.0], candidates=[1.0], alpha=0.5)),
    "median_utility": (selection.median_utility, dict(data=[1.0, 2.0], candidates=[1.0])),
}
ARRAYS = {"utilities", "data", "candidates"}
OPTIONAL = {"size"}                            # None is the default: one run
CASES = [(name, param, bad) for name, (_, kwargs) in CALLS.items() for param in kwargs if param != "rng"
         for bad in (ARRAY_BAD if param in ARRAYS else SCALAR_BAD) if not (bad is None and param in OPTIONAL)]


@pytest.mark.parametrize("name, param, bad", CASES, ids=[f"{n}-{p}-{b!r}" for n, p, b in CASES])
def test_every_numeric_parameter_rejects_bad_values_by_name(name, param, bad):
    fn, kwargs = CALLS[name]
    fn(**kwargs)                                   # the call is valid as given
    with pytest.raises(ValueError, match=rf"\b{param}\b.*must|must.*\b{param}\b|{param} must"):
        fn(**{**kwargs, param: bad})


def test_a_string_of_utilities_is_named():
    """The issue's example: numpy's "could not convert string to float" did not say which argument."""
    with pytest.raises(ValueError, match=r"^utilities must be an array of real numbers, got 'abc'$"):
        selection.exponential_mechanism_probabilities("abc", 1.0)


def test_far_apart_utilities_sweep():
    """The regression above over gaps from 1 to 1e12 noise units (a longer sweep under make verify)."""
    for gap in np.geomspace(1.0, 1e12, profiles.size(fast=6, thorough=80)):
        for noise in selection.NOISES:
            p = selection.report_noisy_max_probabilities([0.0, gap, gap, gap / 3], 1.0, 1.0, noise)
            assert math.isclose(p.sum(), 1.0, rel_tol=1e-9), (gap, noise)
            assert math.isclose(p[1], p[2], rel_tol=1e-9) and p[1] >= p[3] >= p[0], (gap, noise)
