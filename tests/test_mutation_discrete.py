"""Tests of dpnotes.discrete written to kill the survivors of its mutation run (issue 22, item 5).

Each test names the mutants it kills. Most pin the exact error a reader sees for bad input (the
parameter, the rule and the value) or a boundary of a documented range; the last two compare
`snapping_law` with an exact rational enumeration of the snapping mechanism written here,
independent of the module (rounding to p bits with integer arithmetic, exact binade weights,
and its own rule for where to stop enumerating).
"""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from dpnotes import discrete as dsc
from test_discrete import round_fraction


def full(message):
    """A `match` pattern for exactly this message."""
    return "^" + re.escape(message) + "$"


# ---------------------------------------------------------------- bits and the exhaustive law
def test_bit_source_and_exact_output_law_name_the_bad_input():
    # kills BitSource.__init__ mutmut_3 (type of None) and exact_output_law mutmut_3, _4
    with pytest.raises(ValueError, match=full("bits must be a string of 0s and 1s, got int")):
        dsc.BitSource(101)
    with pytest.raises(ValueError, match=full("sampler must be a callable taking a BitSource, got int")):
        dsc.exact_output_law(3, 4)


def test_exact_output_law_max_bits_range_is_0_to_64():
    # kills exact_output_law mutmut_16 (low=1) and _17 (high=65)
    law, rest = dsc.exact_output_law(lambda src: src.getrandbits(1), 0)
    assert law == {} and rest == 1                   # nothing followed: all mass unresolved
    law, rest = dsc.exact_output_law(lambda src: 7, 0)
    assert law == {7: 1} and rest == 0               # a sampler reading no bit needs none
    with pytest.raises(ValueError, match=full("max_bits must be an integer in [0, 64], got 65")):
        dsc.exact_output_law(lambda src: 7, 65)


def test_exact_output_law_refuses_a_sampler_that_leaves_bits_unread():
    # kills exact_output_law mutmut_46, _47, _48 (the RuntimeError's message)
    def skips(src):
        if src.remaining == 0:
            src.getrandbits(1)       # asks for a bit on the empty string only...
        return 0                     # ...and then ignores the bit it was given

    with pytest.raises(RuntimeError, match=full("the sampler did not read its bits sequentially")):
        dsc.exact_output_law(skips, 4)


# ---------------------------------------------------------------- validation of real arrays
def test_real_array_rejects_none_inside_an_object_array_and_names_the_values():
    # kills _real_array mutmut_11 (`or` lets None through, which becomes nan and a "finite" error)
    # and _21 (repr of None in this message)
    with pytest.raises(ValueError, match=full("x must be an array of real numbers, got [1.0, None]")):
        dsc.round_to_precision([1.0, None], 10)
    # kills _real_array mutmut_29 (repr of None in the "finite" message)
    with pytest.raises(ValueError, match=full("x must be finite, got [1.0, inf]")):
        dsc.round_to_precision([1.0, math.inf], 10)
    # an object array of real numbers is accepted and read as floats
    assert dsc.round_to_precision(np.array([1, 0.1], dtype=object), 10).tolist() == [1.0, 0.0999755859375]


def test_round_to_precision_returns_a_python_float_for_a_scalar():
    # kills _round mutmut_14 (a 0-d array instead of a float)
    out = dsc.round_to_precision(0.1, 10)
    assert type(out) is float and out == float(round_fraction(Fraction(0.1), 10))


# ---------------------------------------------------------------- integer values of the mechanisms
RULE = "value must be integers (the discrete mechanisms release integers)"


def release(value, scale=0.01, **kw):
    """discrete_laplace_mechanism with a noise that is 0 with probability 1 - 2e^-100 / (1 + e^-100)."""
    return dsc.discrete_laplace_mechanism(value, scale, rng=np.random.default_rng(5), **kw)


@pytest.mark.parametrize("value, got", [
    ([[1], [1, 2]], "[[1], [1, 2]]"),        # ragged: _integer_values mutmut_7
    ([1.5], "[1.5]"),                        # not integral: mutmut_39
    ("a", "'a'"),                            # not numbers: mutmut_61
])
def test_integer_values_errors_show_the_value(value, got):
    with pytest.raises(ValueError, match=full(f"{RULE}, got {got}")):
        release(value)


def test_integer_values_beyond_int64_are_named_with_their_range():
    # Python integers beyond int64 make an object array: mutmut_11, _12 (the "O" kind) and _15
    # (`and isinstance(v, bool)`) send it to the generic message instead
    with pytest.raises(ValueError, match=full(f"{RULE} in [-2**63, 2**63 - 1] (the release is int64), "
                                              f"got values from 1 to {2**70}")):
        release([2**70, 1])
    # floats: mutmut_52 (repr of None)
    with pytest.raises(ValueError, match=full(f"{RULE} in [-2**63, 2**63 - 1] (the release is int64), got 1e+19")):
        release(1e19)


def test_integer_values_accepts_an_object_array_of_python_integers_that_fit():
    # found by the mutation review: an explicit object array of small Python integers was refused
    # with "in [-2**63, 2**63 - 1] ... got values from 1 to 2", although both fit in int64
    got = release(np.array([1, -2, 2**63 - 1, -(2**63)], dtype=object))
    assert got.dtype == np.int64 and got.tolist() == [1, -2, 2**63 - 1, -(2**63)]
    assert release(np.array([[3], [4]], dtype=object)).shape == (2, 1)           # its shape is kept
    # one past either end of int64 is still refused, naming the range
    for bad in (2**63, -(2**63) - 1):
        with pytest.raises(ValueError, match=re.escape("in [-2**63, 2**63 - 1] (the release is int64)")):
            release(np.array([1, bad], dtype=object))


def test_integer_values_float_range_is_exactly_int64():
    # -2^63 is an int64 (mutmut_42 rejects it); -1000 and 1000 are far inside (mutmut_44, _48
    # put the ends at -+126); 2^63 and -2^64 are outside (mutmut_47 accepts 2^63, mutmut_45 and
    # _46 accept -2^64; numpy would then wrap them around)
    assert release(-(2.0**63)) == -(2**63)
    assert release(-1000.0) == -1000 and release(1000.0) == 1000
    for bad in (2.0**63, -(2.0**64)):
        with pytest.raises(ValueError, match=re.escape("in [-2**63, 2**63 - 1] (the release is int64)")):
            release(bad)


def test_integer_values_unsigned_and_empty_arrays():
    # an empty int64 array releases an empty array (mutmut_62 takes max() of it)
    out = release(np.array([], dtype=np.int64))
    assert out.shape == (0,) and out.dtype == np.int64
    # small unsigned values are fine (mutmut_63 rejects every unsigned array, mutmut_70 those > 125)
    assert release(np.array([3, 200], dtype=np.uint8)).tolist() == [3, 200]
    # 2^63 - 1 is the largest int64 (mutmut_68, _73 reject it); 2^63 is not
    assert release(np.array([2**63 - 1], dtype=np.uint64)).tolist() == [2**63 - 1]
    with pytest.raises(ValueError, match=full(f"{RULE} in [-2**63, 2**63 - 1] (the release is int64), got {2**63}")):
        release(np.array([2**63], dtype=np.uint64))


def test_integer_values_size_tuple_entries_are_integers_ge_0():
    # mutmut_95, _98 (no lower bound) and _101 (low=1)
    with pytest.raises(ValueError, match=full("size must be an integer in [0, 1000000], got -1")):
        release(1, size=(2, -1))
    out = release(1, size=(0, 3))
    assert out.shape == (0, 3) and out.dtype == np.int64


def test_release_overflow_error_is_a_value_error_with_its_advice():
    # noise beyond int64: _release mutmut_10 (noise = "" then int64 + "" is a TypeError) and the
    # message mutants _24, _26, _27, _28
    msg = ("value + noise does not fit in int64 (|value| near 2**63, or a scale near 2**63): "
           "add sample_discrete_laplace / sample_discrete_gaussian draws to Python integers instead")
    with pytest.raises(ValueError, match=full(msg)):
        dsc.discrete_laplace_mechanism(1, 1e30, rng=np.random.default_rng(1))


# ---------------------------------------------------------------- epsilon arrays of the delta functions
def test_epsilons_infinite_and_empty():
    # inf is a real number >= 0 that the range check refuses as not finite; mutmut_7 and _10
    # (finite=True in _real_array) turn it into the "real number >= 0" message instead
    with pytest.raises(ValueError, match=full("epsilon must be finite, got inf")):
        dsc.discrete_gaussian_delta(1.5, math.inf)
    # mutmut_15
    with pytest.raises(ValueError, match=full("epsilon must not be empty")):
        dsc.discrete_laplace_delta(1.5, [])


# ---------------------------------------------------------------- the floating-point models
def test_textbook_sampler_on_no_draws_releases_an_empty_array():
    # the empty path of _log (its mutmut_6 answers a 0-d nan there, which the assignment into
    # an empty selection of the logs drops: equivalent, explained in mutation-survivors.toml)
    out = dsc.textbook_laplace_float(0.0, 1.0, np.array([]), precision=10)
    assert isinstance(out, np.ndarray) and out.shape == (0,)


def test_precision_range_is_53_or_2_to_26():
    # _precision mutmut_14 (26 refused) and _15 (27 accepted)
    assert dsc.snapping_epsilon(2.5, 40.0, precision=26) == (1 + 12 * 40 / 2**26) / 2.5 + 2 / 2**26
    with pytest.raises(ValueError, match=full("precision must be 53 or an integer in [2, 26], got 27")):
        dsc.snapping_epsilon(2.5, 40.0, precision=27)


def test_snapping_bound_range_is_open_at_both_ends():
    # _snap_parameters mutmut_18 (bound = scale accepted) and _19 (bound = 2^(p-7) scale accepted)
    with pytest.raises(ValueError, match=re.escape("bound must be in (scale, 2**5 * scale) = (3.0, 96.0), got 3.0")):
        dsc.snapping_epsilon(3.0, 3.0, precision=12)
    with pytest.raises(ValueError, match=re.escape("bound must be in (scale, 2**5 * scale) = (3.0, 96.0), got 96.0")):
        dsc.snapping_epsilon(3.0, 96.0, precision=12)
    assert dsc.snapping_epsilon(3.0, 95.5, precision=12) > 1 / 3


def exact_snapping_law(f, lam, bound, p):
    """The snapping mechanism's law in the p-bit model, as exact fractions, by enumeration.

    U* runs over the p-bit numbers of (0, 1), binade [2^e, 2^(e+1)) by binade, each with
    probability its gap 2^(e+1-p); each sign has probability 1/2. Every operation is rounded to
    p bits with integer arithmetic (round_fraction), the log is the C library's (math.log, the
    function numpy calls) rounded to p bits, as the model states. The enumeration stops after a
    whole binade whose every draw, for both signs, is clamped to -sign * B: the noise grows in
    magnitude as U* falls (log, the roundings and the snapping are monotone), so every smaller
    U* is clamped too and the rest of the mass, 2^e, is split between -B and B.
    """
    big = Fraction(1)
    while big < lam:
        big *= 2
    while big / 2 >= lam:
        big /= 2                                        # smallest power of two >= lam
    b = Fraction(bound)
    lam_p = round_fraction(Fraction(lam), p)
    f_p = round_fraction(min(max(Fraction(f), -b), b), p)
    law = {}
    e = -1
    while True:
        gap = Fraction(2) ** (e + 1 - p)
        all_clamped = True
        for j in range(2 ** (p - 1)):
            x = (2 ** (p - 1) + j) * gap
            noise = round_fraction(lam_p * round_fraction(Fraction(math.log(x)), p), p)
            for sign in (1, -1):
                z = round_fraction(f_p + sign * noise, p)
                y = min(max(math.floor(z / big + Fraction(1, 2)) * big, -b), b)
                all_clamped &= y == -sign * b
                law[y] = law.get(y, 0) + gap / 2
        if all_clamped:
            rest = Fraction(2) ** e / 2
            law[-b] += rest
            law[b] = law.get(b, 0) + rest
            return law
        e -= 1


@pytest.mark.parametrize("f, lam, bound, p", [
    # a law that moves by 7e-9 if E's rule reads 2B - Lambda (snapping_law mutmut_37)
    (8.65, 1.21, 8.65, 10),
    # lambda a power of two above 5.18, B just above a multiple of Lambda: a law that moves by
    # 9e-8 if E is two smaller (snapping_law mutmut_33)
    (48.125, 8.0, 48.125, 10),
])
def test_snapping_law_is_the_exact_rational_enumeration(f, lam, bound, p):
    # Also kills _snap mutmut_3 and _5 (no rounding to p bits below p = 53). Exact equality: the
    # module sums exact integers and rounds each probability once, so must the reference.
    ref = exact_snapping_law(f, lam, bound, p)
    assert sum(ref.values()) == 1
    ys, probs = dsc.snapping_law(f, lam, bound, p)
    assert [Fraction(y) for y in ys] == sorted(ref)
    assert [float(ref[Fraction(y)]) for y in ys] == probs.tolist()


def test_an_rng_without_getrandbits_is_refused_with_its_type_named(raises_exactly):
    """The message lists what an rng may be, with the classes' own capitalization, and names the type it got.
    Kills _getbits mutmut_22 (the message wrapped in XX), 23 (lower-cased) and 25 (the type left out)."""
    for rng, name in [(object(), "object"), ([1, 2], "list"), (np.random.RandomState(0), "RandomState")]:
        with raises_exactly("rng must have a getrandbits(k) method (random.Random(seed), random.SystemRandom(), "
                            f"BitSource) or be a numpy.random.Generator, got {name}"):
            dsc.discrete_laplace_mechanism(0, 2, rng=rng)
