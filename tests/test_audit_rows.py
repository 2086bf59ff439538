"""The split theorem's fixed-set condition for dpnotes.audit: a test's verdict on an output
depends on that output alone.

``audit_pair`` chooses a test on the selection runs and counts its errors on fresh runs, in
chunks. The count is binomial with the test's true error rates only if the set S of outputs
the test calls x' is fixed before counting, so that ``test(batch)[i] == test(batch[i:i+1])[0]``
for every batch: whatever other rows a chunk holds, how many, in which order and as which
array type. Issue 22 found a discretizer that chose its arithmetic per chunk (a sum of huge
values that lost precision, and one out-of-range row that switched the whole chunk to the
exact branch). These properties search for any such dependence in every score the auditor
fits (cell likelihood ratios, the logistic score, the output itself, the count above medians, the
naive-Bayes pattern scores of columns and of their differences, the floating-point bit scores) and in
the chosen test,
over adversarial batches: rows inside and outside the fitted ranges mixed, magnitudes up to
1e300 and the int64 / uint64 extremes, nan, +-inf, -0.0 beside 0.0, non-integers among
integers, and the dtypes the auditor accepts (float64, float32, int64, uint64, int8, bool).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import profiles
from dpnotes import audit

DTYPES = ["float64", "float32", "int64", "uint64", "int8", "bool"]

# values that break arithmetic shortcuts, by dtype (all representable in that dtype)
EXTREMES = {
    "float64": [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e300, -1e300, 2.0**53, 2.0**53 + 2, 2.0**51 + 1,
                -(2.0**63), 2.0**63, 1.7e12, 0.5, -1.5, 5e-324, np.finfo(float).max, 3.0, -1.0, 64.0],
    "int64": [-(2**63), 2**63 - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**51 + 1, 0, -1, 2**62, 3, 64, 2**63 - 2],
    "uint64": [0, 2**64 - 1, 2**63, 2**53 + 1, 2**53, 1, 3, 64, 2**64 - 2],
    "int8": [-128, 127, 0, -1, 5, 3, 64],
    "bool": [True, False],
}
EXTREMES["float32"] = [v for v in EXTREMES["float64"] if not np.isfinite(v) or abs(v) < 3e38 and v != 5e-324]

# offsets of columns of small consecutive integers ("patterns"): inside and beyond 2**53
PATTERN_LO = {
    "float64": [0, -1, 7, 2**50 - 3, 2**51 + 1, 2**53 - 2, 2.0**60, 1e300],
    "float32": [0, -1, 7, 2**20, 2**24 - 2],
    "int64": [0, -1, 7, 2**50 - 3, 2**51 + 1, 2**53 - 2, 2**62, -(2**63), 2**63 - 9],
    "uint64": [0, 7, 2**53 - 2, 2**63, 2**64 - 9],
    "int8": [0, -1, 7, -128, 119],
    "bool": [0],
}


def _column(rng, dtype, kind, n_x, n_xp):
    """One column's values on x and on x' (different laws), and the values of its range edges."""
    is_float = dtype in ("float64", "float32")
    if kind == "pattern" or dtype == "bool" or (kind in ("continuous", "specials") and not is_float):
        lo = PATTERN_LO[dtype][rng.integers(len(PATTERN_LO[dtype]))]
        span = 2 if dtype == "bool" else int(rng.integers(1, 6))
        if dtype == "int8":
            span = min(span, 128 - lo)
        values = [lo + i for i in range(span)] if not is_float else [float(lo) + i for i in range(span)]
        px, pxp = rng.dirichlet(np.ones(span)), rng.dirichlet(np.ones(span))
        edges = [values[0] - 1, values[-1] + 1] if not (dtype in ("uint64", "bool") and lo == 0) else [values[-1] + 1]
        if dtype != "bool" and not is_float:  # edges the dtype cannot hold are no outputs
            info = np.iinfo(dtype)
            edges = [e for e in edges if int(info.min) <= e <= int(info.max)]
        if is_float:
            edges += [values[0] + 0.5]
        pick = lambda p, n: np.array(values, dtype=object)[rng.choice(span, n, p=p)]  # noqa: E731
        return pick(px, n_x), pick(pxp, n_xp), edges
    if kind == "constant":
        c = EXTREMES[dtype][rng.integers(len(EXTREMES[dtype]))]
        return np.full(n_x, c, dtype=object), np.full(n_xp, c, dtype=object), []
    if kind == "huge" and not is_float:
        info = np.iinfo(dtype)
        base = int(rng.integers(info.min // 2, info.max // 2)) if dtype != "int8" else 0
        vals = [base + int(v) for v in rng.integers(-3, 4, 7)]
        p = rng.dirichlet(np.ones(7))
        return (np.array(vals, dtype=object)[rng.choice(7, n_x, p=p)],
                np.array(vals, dtype=object)[rng.choice(7, n_xp)], [])
    if kind == "specials" and is_float:
        table = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5], dtype=object)
        return table[rng.choice(6, n_x)], table[rng.choice(6, n_xp, p=rng.dirichlet(np.ones(6)))], []
    # continuous (floats): a scale from 1e-300 to 1e300, a shift between x and x'
    scale = 10.0 ** rng.uniform(-300, 300) if rng.random() < 0.5 else 1.0
    x = rng.standard_normal(n_x) * scale
    xp = (rng.standard_normal(n_xp) + 0.7) * scale
    if rng.random() < 0.5:                                  # atoms among the continuous values
        x[rng.random(n_x) < 0.3] = 2.0 * scale
    return x.astype(object), xp.astype(object), []


def _cast(values, dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype in ("float64", "float32"):
            return np.array([float(v) for v in values], dtype=np.float64).astype(dtype)
        return np.array([int(v) for v in values], dtype=dtype)


@st.composite
def fitted_and_batch(draw, max_cols=6):
    """Selection runs of two inputs and an adversarial batch of outputs, all of one dtype."""
    dtype = draw(st.sampled_from(DTYPES))
    d = draw(st.integers(1, max_cols))
    kinds = draw(st.lists(st.sampled_from(["pattern", "pattern", "constant", "continuous", "specials", "huge"]),
                          min_size=d, max_size=d))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_fit, n_batch = 300, int(draw(st.integers(1, 40)))
    cols_x, cols_xp, cols_b, edges = [], [], [], []
    for kind in kinds:
        x, xp, e = _column(rng, dtype, kind, n_fit, n_fit + n_batch)
        cols_x.append(x)
        cols_xp.append(xp[:n_fit])
        cols_b.append(xp[n_fit:])
        edges.append(e)
    fx = np.column_stack([_cast(c, dtype) for c in cols_x])
    fxp = np.column_stack([_cast(c, dtype) for c in cols_xp])
    batch = np.column_stack([_cast(c, dtype) for c in cols_b]).astype(object)
    # adversarial cells: extremes of the dtype, and values just outside or between a column's fitted range
    n_bad = draw(st.integers(0, n_batch * d))
    for _ in range(n_bad):
        i, j = int(rng.integers(n_batch)), int(rng.integers(d))
        pool = EXTREMES[dtype] + edges[j]
        batch[i, j] = pool[rng.integers(len(pool))]
    batch = np.column_stack([_cast(batch[:, j], dtype) for j in range(d)])
    return fx, fxp, batch


def _scores(fx, fxp):
    """Every score the auditor can fit on these selection runs, and the test it would choose."""
    rng = np.random.default_rng(0)
    out = [("output", audit._ColumnScore(0))]
    cell = audit._CellScore(fx, fxp, 8)
    if cell.disc.ok:
        out.append(("cells", cell))
    out.append(("logistic", audit._LogisticScore(fx, fxp, rng)))
    out.append(("above median", audit._AboveMedianScore(fx, fxp)))
    for kw in ({}, {"diff": True}, {"groups": "split"}, {"groups": "discrete"}):
        for n_bins in (2, 8):
            pat = audit._PatternScore(fx, fxp, n_bins, **kw)
            if pat.ok:
                out.append((f"pattern {kw} {n_bins}", pat))
    if fx.shape[1] == 1:
        out += [(f"bits {k}", audit._BitsScore(fx, fxp, k)) for k in audit._BITS]
    sel_x, sel_xp = np.vstack([fx, fx]), np.vstack([fxp, fxp])
    test, _ = audit._select_test(sel_x, sel_xp, 10_000, 0.0, 0.025, rng)
    out.append(("chosen test", test))
    return out


def _assert_row_by_row(name, f, batch, rng):
    whole = np.asarray(f(batch))
    assert whole.shape == (batch.shape[0],)
    assert not (whole.dtype.kind == "f" and np.any(np.isnan(whole))), f"{name}: a nan score has no side of a threshold"
    alone = np.array([np.asarray(f(batch[i:i + 1]))[0] for i in range(batch.shape[0])])
    np.testing.assert_array_equal(whole, alone, err_msg=f"{name}: a row's verdict depends on its batch")
    perm = rng.permutation(batch.shape[0])
    np.testing.assert_array_equal(np.asarray(f(batch[perm])), whole[perm], err_msg=f"{name}: order matters")
    if batch.shape[0] > 1:
        k = int(rng.integers(1, batch.shape[0]))
        parts = np.concatenate([np.asarray(f(batch[:k])), np.asarray(f(batch[k:]))])
        np.testing.assert_array_equal(parts, whole, err_msg=f"{name}: chunking matters")
    # a Fortran-ordered copy (a mechanism's column_stack) and a strided view give the same verdicts
    np.testing.assert_array_equal(np.asarray(f(np.asfortranarray(batch))), whole, err_msg=f"{name}: memory layout")


@settings(max_examples=profiles.size(fast=40, thorough=300))
@given(fitted_and_batch())
def test_every_score_judges_each_output_alone(case):
    fx, fxp, batch = case
    rng = np.random.default_rng(1)
    for name, f in _scores(fx, fxp):
        _assert_row_by_row(name, f, batch, rng)


@settings(max_examples=profiles.size(fast=10, thorough=200))
@given(fitted_and_batch(max_cols=30))
def test_every_score_judges_each_output_alone_wide(case):
    """The same with up to 30 columns (mixed-radix keys near their limit, many logistic features)."""
    fx, fxp, batch = case
    rng = np.random.default_rng(2)
    for name, f in _scores(fx, fxp):
        _assert_row_by_row(name, f, batch, rng)


@settings(max_examples=profiles.size(fast=40, thorough=300))
@given(fitted_and_batch())
def test_keys_are_a_function_of_the_values_not_the_dtype(case):
    """The same numbers in another dtype that holds them exactly get the same keys and scores
    (5 as int8 and as float32; 2**53 + 1 as int64 is not a float64, so no claim there)."""
    fx, fxp, batch = case
    cell = audit._CellScore(fx, fxp, 8)
    if not cell.disc.ok:
        return
    keys = cell.disc.keys(batch)
    for other in ("float64", "float32", "int64", "uint64", "int8"):
        if other == batch.dtype.name:
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            cast = batch.astype(other)
        # the same numbers? (Python compares int and float exactly; nan equals nan here)
        same = all(u == v or (u != u and v != v) for u, v in zip(batch.ravel().tolist(), cast.ravel().tolist()))
        if same:
            np.testing.assert_array_equal(cell.disc.keys(cast), keys, err_msg=f"{batch.dtype} -> {other}")
            np.testing.assert_array_equal(cell(cast), cell(batch))


# ----------------------------------------------------------------- the cases of issue 22
def test_a_huge_constant_column_keeps_the_values_apart():
    """(v, 2**51 + 1): the old fast sum merged v = 0 and v = 1 into one key, and one row outside
    the fitted range switched the whole chunk to exact keys."""
    rng = np.random.default_rng(0)
    v = rng.integers(0, 4, 1000).astype(float)
    fx = np.column_stack([v, np.full(1000, 2.0**51 + 1)])
    fxp = np.column_stack([np.minimum(v + rng.integers(0, 2, 1000), 3), np.full(1000, 2.0**51 + 1)])
    disc = audit._CellScore(fx, fxp, 8).disc
    inside = np.column_stack([np.arange(4.0), np.full(4, 2.0**51 + 1)])
    assert np.unique(disc.keys(inside)).size == 4
    mixed = np.vstack([inside, [[7.0, 2.0**51 + 1]]])          # 7 was never seen
    np.testing.assert_array_equal(disc.keys(mixed)[:4], disc.keys(inside))


@pytest.mark.parametrize("dtype,value", [("float64", 2.0**53), ("float64", 1e300), ("int64", 2**63 - 1),
                                         ("int64", -(2**63)), ("uint64", 2**64 - 1)])
def test_a_constant_column_beyond_2_53_is_accepted(dtype, value):
    """A constant column of magnitude >= 2**53 raised IndexError (an empty range of atoms)."""
    def mech(data, size, rng):
        out = np.empty((size, 2), dtype=dtype)
        out[:, 0] = rng.integers(0, 2, size) + data
        out[:, 1] = value
        return out
    res = audit.audit_pair(mech, 0, 1, n_samples=4000, rng=np.random.default_rng(0))
    assert res.epsilon > 3.0            # the outputs separate the inputs: {0, 1} against {1, 2}


def test_huge_integers_are_told_apart_exactly():
    """int64 values beyond 2**53 that one float64 cannot tell apart keep their own keys."""
    base = 2**60
    fx = np.array([[base + k] for k in (0, 1, 1, 2, 2, 2)] * 50, dtype=np.int64)
    fxp = np.array([[base + k] for k in (0, 0, 0, 1, 2, 3)] * 50, dtype=np.int64)
    disc = audit._CellScore(fx, fxp, 8).disc
    rows = np.array([[base], [base + 1], [base + 2], [base + 3], [base + 4]], dtype=np.int64)
    assert np.unique(disc.keys(rows)).size == 5
    assert float(base + 1) == float(base)        # what a float key would have merged


# ----------------------------------------------------------------- fast paths against the reference
def _reference_keys(disc, rows):
    """The mixed-radix key from each column's own row-by-row codes, with no fast path."""
    key = np.zeros(rows.shape[0])
    for j, c in enumerate(disc.columns):
        key += c.codes(rows[:, j]) * disc.radix[j]
    return key


@st.composite
def pattern_fits(draw):
    """Columns of small consecutive integers at offsets up to and beyond the fast paths' limit
    (2**50), after an optional continuous column that makes their radix large."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from(["float64", "int64", "float32", "int8"]))
    near = [2**50 - 70] * 4                       # the largest fast offsets: where sums round first
    lo_pool = {"float64": [0, -5, *near, 2**50 - 2, 2**49, 2**51 + 1],
               "int64": [0, -5, *near, 2**50 - 2, 2**49, 2**51 + 1, -(2**50) + 1],
               "float32": [0, -5, 2**20], "int8": [-128, 0, 100]}[dtype]
    lo = draw(st.sampled_from(lo_pool))
    d = draw(st.integers(1, 8))
    span = draw(st.integers(1, 4))
    cols = [lo + rng.integers(0, span, 400) for _ in range(d)]
    fit = np.column_stack(cols).astype(dtype)
    if dtype.startswith("float") and draw(st.integers(0, 3)) == 0:
        fit = np.column_stack([rng.standard_normal(400).astype(dtype), fit])      # radix grows
    rows = fit[rng.integers(0, 400, 60)]
    return fit, rows


@settings(max_examples=profiles.size(fast=60, thorough=2000))
@given(pattern_fits())
def test_fast_paths_give_exactly_the_row_by_row_keys_and_scores(case):
    """The batch sum of raw values and the score table are shortcuts; where they are taken they
    must give bit for bit the keys and scores of the row-by-row codes (their exactness bounds
    are what keeps them so near 2**53)."""
    fit, rows = case
    half = fit.shape[0] // 2
    cell = audit._CellScore(fit[:half], fit[half:], 8)
    if not cell.disc.ok:
        return
    np.testing.assert_array_equal(cell.disc.keys(rows), _reference_keys(cell.disc, rows))
    np.testing.assert_array_equal(cell(rows), cell._search(rows))


def test_an_integer_beyond_2_53_is_not_the_float_atom_it_rounds_to():
    """Atoms fitted on float64 data; an int64 output 2**53 + 1 rounds to the atom 2**53 but is
    another number, so it must not take that atom's code (2**53 itself does)."""
    fit = np.array([[2.0**53], [1.0], [2.0]] * 100)
    disc = audit._CellScore(fit[:150], fit[150:], 8).disc
    k = disc.keys(np.array([[2**53], [2**53 + 1]], dtype=np.int64))
    assert k[0] == disc.keys(np.array([[2.0**53]]))[0] and k[1] != k[0]


def _reference_codes(c, col):
    """A column's codes by the definition (binary search of the bins, then atoms and symbols)."""
    hi, res = audit._exact_parts(col)
    a, s = c.atoms.size, len(c.specials)
    code = np.searchsorted(c.edges, hi, side="right") + a + s
    if a:
        pos, hit = c._match(hi, res)
        code = np.where(hit, pos, code)
    for i, name in enumerate(c.specials):
        code = np.where(np.isnan(hi) if name == "nan" else hi == (np.inf if name == "+inf" else -np.inf), a + i, code)
    return code


@settings(max_examples=profiles.size(fast=60, thorough=300))
@given(fitted_and_batch(max_cols=1), st.sampled_from([2, 3, 4, 8]))
def test_column_codes_by_comparisons_equal_the_binary_search(case, n_bins):
    """Columns with at most three bin edges are coded by comparisons instead of a binary search:
    the same codes for every value (nan, +-inf, -0.0, huge, unseen), seen in fitting or not."""
    fx, fxp, batch = case
    c = audit._Column(np.vstack([fx, fxp])[:, 0], n_bins)
    if c.fast:
        return
    np.testing.assert_array_equal(c.codes(batch[:, 0]), _reference_codes(c, batch[:, 0]))
    np.testing.assert_array_equal(c.codes(fx[:, 0]), _reference_codes(c, fx[:, 0]))
