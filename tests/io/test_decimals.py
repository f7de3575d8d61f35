"""The decimal parser of token columns against Python's ``float`` and ``int``.

Every token the fast path takes must give ``float(token)``'s double bit for
bit (the sign of a zero included); the others are left to the caller.
Generated tokens vary one dimension at a time: the number of significant
digits (across 15/16 and 19/20), the place of the dot, leading zeros, the
sign, the length (across 8, 16 and 24 bytes), exponents (their case, sign,
leading zeros and size, across the exact powers of ten), the bytes that
follow a token in its buffer, the token's place at the buffer's end, and
decimals within a few units of the last digit of halfway points between two
doubles (where rounding twice can differ from rounding once), written with
and without an exponent. A fixed set runs in CI;
``SKIRM_FUZZ_CASES`` runs more seeds (from ``SKIRM_FUZZ_FIRST_SEED``).
"""

from __future__ import annotations

import os
import re
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

import skirm.io._decimals as decimals
from skirm.io._decimals import parse_decimals
from skirm.io._tokens import Tokens


def _seeds(ci=range(3)):
    total = int(os.environ.get("SKIRM_FUZZ_CASES", "0") or 0)
    if total <= 0:
        return ci
    first = int(os.environ.get("SKIRM_FUZZ_FIRST_SEED", "1000"))
    return range(first, first + total)


def _bits(value):
    return np.float64(value).view(np.uint64)


_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _taken(text, integer=False):
    """Whether the fast path should take ``text``: a decimal of at most 24
    bytes (an exponent too, unless ``integer``) whose ``w / 10**f`` (``w``
    its digits, ``f`` the digits after the dot less the exponent) has at
    most 15 significant digits and ``|f| <= 22``, or 19 digits and
    ``|f| <= 27`` where ``longdouble`` has 64 bits of mantissa; integers up
    to 18 significant digits."""
    match = _NUMBER.fullmatch(text)
    if len(text) > 24 or not match:
        return False
    mantissa, exponent = match.group(1), match.group(2)
    if integer:
        return not exponent and "." not in text and len(mantissa.lstrip("0")) <= 18
    significant = len(mantissa.replace(".", "").lstrip("0"))
    if exponent and len(exponent[1:].lstrip("+-").lstrip("0")) > 18:
        return False
    f = len(mantissa.partition(".")[2]) - int(exponent[1:] if exponent else 0)
    if significant <= 15 and abs(f) <= 22:
        return True
    return decimals.EXTENDED and significant <= 19 and abs(f) <= 27


def _check(texts, integer=False):
    """Parse ``texts`` in one column; every value taken equals Python's, and
    the fast path takes what it should, but for a few long mantissas near
    halfway points (under 1%)."""
    values, ok = parse_decimals(Tokens.from_strings(np.array(texts)), integer=integer)
    assert values.shape == ok.shape == (len(texts),)
    assert values.dtype == (np.int64 if integer else np.float64)
    for text, value, good in zip(texts, values.tolist(), ok.tolist(), strict=True):
        if good:
            if integer:
                assert value == int(text), text
            else:
                assert _bits(value) == _bits(float(text)), (text, value, float(text))
    model = np.array([_taken(t, integer) for t in texts], dtype=bool)
    extra = ok & ~model
    assert not extra.any(), np.array(texts)[extra].tolist()
    assert (model & ~ok).sum() <= 0.01 * len(texts) + 1
    return ok


def _digits(rng, n_digits):
    first = str(rng.integers(1, 10))
    return first + "".join(map(str, rng.integers(0, 10, n_digits - 1)))


def _dimension(name, rng, n=400):
    """``n`` tokens varying along one dimension."""
    out = []
    for _ in range(n):
        if name == "significant_digits":  # 1 .. 22, the dot anywhere
            digits = _digits(rng, int(rng.integers(1, 23)))
            dot = int(rng.integers(0, len(digits) + 1))
            out.append(digits[:dot] + "." + digits[dot:])
        elif name == "leading_zeros":
            digits = _digits(rng, int(rng.integers(1, 20)))
            out.append("0." + "0" * int(rng.integers(0, 12)) + digits)
        elif name == "signs":
            sign = str(rng.choice(["", "-", "+"]))
            out.append(sign + repr(float(rng.random() * 10.0 ** rng.integers(-4, 5))))
        elif name == "lengths":  # every length from 1 to 26 bytes
            length = int(rng.integers(1, 27))
            digits = _digits(rng, length)
            dot = int(rng.integers(1, length + 1))
            token = (digits[:dot] + "." + digits[dot:])[:length]
            out.append(token)
        elif name == "reprs":  # what Python writes for a double
            out.append(repr(float(rng.random() * 10.0 ** rng.integers(-5, 17))))
        elif name == "integers":
            out.append(str(rng.integers(-(10**18), 10**18)))
        elif name == "exponents":  # case, sign, zeros, size of the exponent
            digits = _digits(rng, int(rng.integers(1, 20)))
            dot = int(rng.integers(0, len(digits) + 1))
            mantissa = (
                str(rng.choice(["", "-", "+"])) + digits[:dot] + "." + digits[dot:]
            )
            if rng.random() < 0.2:
                mantissa = mantissa.replace(".", "")
            e = str(rng.choice(["e", "E"])) + str(rng.choice(["", "-", "+"]))
            e += "0" * int(rng.integers(0, 3)) + str(rng.integers(0, 40))
            out.append(mantissa + e)
        elif name == "exponent_reprs":  # Python's repr below 1e-4 and above 1e16
            out.append(repr(float(rng.random() * 10.0 ** rng.integers(-30, 31))))
        elif name == "malformed":
            token = _digits(rng, int(rng.integers(1, 20)))
            at = int(rng.integers(0, len(token) + 1))
            junk = str(
                rng.choice(
                    [".", "-", "+", "e", "e5", "E-", "ee", " ", ":", "\x00", "_"]
                )
            )
            out.append(token[:at] + junk + token[at:])
    return out


DIMENSIONS = [
    "significant_digits",
    "leading_zeros",
    "signs",
    "lengths",
    "reprs",
    "integers",
    "malformed",
    "exponents",
    "exponent_reprs",
]


#: The orders of the two passes: as :func:`parse_decimals` chooses from
#: its sample, the plain decimals first, the tokens with an exponent first.
ORDERS = {"chosen": None, "plain_first": False, "exponents_first": True}


def _mixed(rng, n=400):
    """Plain decimals and exponents mixed, the exponents' share from 0 to 1,
    in runs (a query's scores sorted: the small ones last) or scattered."""
    share = float(rng.choice([0.0, 0.1, 0.4, 0.5, 0.6, 0.9, 1.0]))
    values = rng.random(n) * 10.0 ** rng.integers(-4, 3, n)
    small = rng.random(n) < share
    values[small] = rng.random(int(small.sum())) * 10.0 ** rng.integers(
        -30, -5, int(small.sum())
    )
    if rng.random() < 0.5:
        values = np.sort(values)[::-1]
    return [repr(float(v)) for v in values]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("seed", _seeds())
@pytest.mark.parametrize("dimension", [*DIMENSIONS, "mixed"])
def test_generated_tokens_parse_as_python_does(dimension, seed, order, monkeypatch):
    if ORDERS[order] is not None:
        first = ORDERS[order]
        monkeypatch.setattr(decimals, "_mostly_exponents", lambda *a: first)
    rng = np.random.default_rng([seed, [*DIMENSIONS, "mixed"].index(dimension)])
    texts = _mixed(rng) if dimension == "mixed" else _dimension(dimension, rng)
    _check(texts)
    ints = [t for t in texts if t.lstrip("+-").isdigit()]
    if ints:
        _check(ints, integer=True)


def _halfway_decimals(rng, n, exponent=False):
    """Decimals of 17 to 19 significant digits at and a unit of their last
    digit beside the exact halfway points between random doubles and the
    next ones up: the inputs whose double rounding can go wrong. With
    ``exponent``, doubles from 1e-12 to 1e24 written as integer digits and
    an exponent (``12345678901234567e-20``), so that ``f`` (the digits
    after the dot less the exponent) is negative for some."""
    texts = []
    powers = rng.integers(-12, 25, n) if exponent else rng.integers(-3, 4, n)
    with localcontext() as ctx:
        ctx.prec = 80
        for a in (rng.random(n) * 10.0**powers).tolist():
            half = (Fraction(a) + Fraction(np.nextafter(a, np.inf))) / 2
            exact = Decimal(half.numerator) / Decimal(half.denominator)
            for p in (17, 18, 19):
                near = round(exact, p - 1 - exact.adjusted())
                unit = Decimal(1).scaleb(near.as_tuple().exponent)
                for t in (near - unit, near, near + unit):
                    if exponent:
                        _, digits, e = t.as_tuple()
                        texts.append("".join(map(str, digits)) + f"e{e}")
                    else:
                        texts.append(format(t, "f"))
    return [t for t in texts if len(t) <= 24]


def _rounded_twice(texts):
    """Each of ``texts`` (``digits.digits`` or ``digitse[+-]k``) as
    ``w / 10**f`` rounded in ``longdouble`` then to a double, no check."""
    w, f = [], []
    for t in texts:
        mantissa, _, e = t.partition("e")
        w.append(int(mantissa.replace(".", "")))
        f.append(len(mantissa.partition(".")[2]) - int(e or 0))
    w, f = np.array(w, dtype=np.uint64).astype(np.longdouble), np.array(f)
    q = np.where(
        f >= 0,
        w / decimals._POW10_EXTENDED[np.clip(f, 0, 27)],
        w * decimals._POW10_EXTENDED[np.clip(-f, 0, 27)],
    )
    return q.astype(np.float64), np.abs(f) <= 27


@pytest.mark.parametrize("exponent", [False, True], ids=["plain", "exponent"])
@pytest.mark.parametrize("seed", _seeds())
def test_decimals_beside_halfway_points(seed, exponent):
    """Near halfway points the parser gives Python's double where it takes
    the token, and the check it makes is needed: the double of one rounding
    in ``longdouble`` then to double differs from Python's for some tokens
    taken without it (quotients and, with an exponent, products)."""
    texts = _halfway_decimals(np.random.default_rng([seed, 99]), 600, exponent)
    values, ok = parse_decimals(Tokens.from_strings(np.array(texts)))
    taken = np.array(texts)[ok].tolist()
    for text, value in zip(taken, values[ok].tolist(), strict=True):
        assert _bits(value) == _bits(float(text)), text
    assert ok.mean() > 0.5
    if not decimals.EXTENDED:
        return
    d, fits = _rounded_twice(texts)
    wrong = fits & (d != np.array([float(t) for t in texts]))
    assert wrong.any()  # rounding twice goes wrong here without the check
    assert not ok[wrong].any()
    if exponent:  # both signs of f, and wrong roundings among the products
        up = np.array(["e-" not in t for t in texts])
        assert ok[up].any() and ok[~up].any()
        assert (wrong & up).any()


def test_both_halfway_checks_agree():
    """The check by the last bits of x87's mantissa and the one by the gap to
    the next double flag the same quotients."""
    if not decimals._X87:
        pytest.skip("longdouble is not x87's extended precision here")
    texts = _halfway_decimals(np.random.default_rng(7), 600)
    w = np.array([int(t.replace(".", "")) for t in texts], dtype=np.uint64)
    f = np.array([len(t) - t.index(".") - 1 for t in texts], dtype=np.intp)
    d, exact = decimals._extended_quotients(w, f)
    q = w.astype(np.longdouble) / decimals._POW10_EXTENDED[f]
    assert exact.tolist() == decimals.halfway_free(q, d).tolist()
    assert not exact.all()


def test_without_extended_precision_long_mantissas_are_left(monkeypatch):
    """Where ``longdouble`` is a double, 16 to 19 significant digits are left
    to the caller; the rest is parsed as before."""
    monkeypatch.setattr(decimals, "EXTENDED", False)
    texts = ["0.12345678901234567", "1234567890123456", "0.5", "123456789012345"]
    ok = _check(texts)
    assert ok.tolist() == [False, False, True, True]


def test_bounds():
    """Decimals of 1 to 24 bytes with at most 19 significant digits (15
    without extended precision) and powers of ten up to 27 (22) are taken,
    and nothing else; integers up to 18 significant digits, no exponent."""
    good = [
        "5",
        "-7",
        "123456789",
        "12345678.1234567",
        "123456789012345",
        ".5",
        "5.",
        "+3",
        "-0",
        "007.100",
        "1234567890123456789",  # 19 digits
        "0.0000000000000000000001",  # 22 decimals, one significant
        "-0.00012345678901234567",
        "1e5",
        "1E-5",
        "-2.5e+07",
        "1.e5",
        ".5e-3",
        "-0e-3",
        "7e0000000000000000000001",  # the exponent's leading zeros
        "1.2345678901234567e-05",  # repr below 1e-4
        "1e+22",
        "123456789012345e-22",
        "1234567890123456e+11",  # 10**11 times 16 digits
        "1e27",
    ]
    long = {
        "1234567890123456789",
        "-0.00012345678901234567",
        "1.2345678901234567e-05",
        "1234567890123456e+11",
        "1e27",
    }
    bad = [
        "",
        "1:5",
        "1/5",
        "+",
        "5-",
        ".",
        "-.",
        "1.2.3",
        "inf",
        "nan",
        "12345678901234567890",  # 20 significant digits
        "0.000000000000000000000001",  # 25 bytes
        "e5",
        "1e",
        "1e+",
        "1e5e3",
        "1e5.0",
        "1e-28",  # past the exact powers of ten
        "1.2345678901234567e-12",  # f = 16 + 12
        "1e00000000000000000000001",  # 25 bytes
    ]
    for texts in (good, bad, good + bad, ["5"], ["123456789"]):
        values, ok = parse_decimals(Tokens.from_strings(np.array(texts)))
        taken = [t in good and (decimals.EXTENDED or t not in long) for t in texts]
        assert ok.tolist() == taken, texts
        expected = [float(t) for t, g in zip(texts, taken, strict=True) if g]
        assert [_bits(v) for v in values[ok]] == [_bits(v) for v in expected]
    values, ok = parse_decimals(Tokens.from_strings(np.array([], dtype=str)))
    assert values.shape == ok.shape == (0,)
    ints = [
        "123456789012345678",
        "-000000000000000000000007",
        "1234567890123456789",
        "1e5",
    ]
    values, ok = parse_decimals(Tokens.from_strings(np.array(ints)), integer=True)
    assert ok.tolist() == [True, False, False, False]
    assert values[0] == 123456789012345678


def test_bytes_after_a_token_are_not_read():
    """A token is its bytes alone, whatever follows it in the buffer (the
    next field of a line: digits, a dot), including past 8 and 16 bytes."""
    data = b"0.5123.4 -12345678.123456789012 7.25\n9" + bytes(16)
    buf = np.frombuffer(data, dtype=np.uint8)
    start = np.array([0, 0, 9, 9, 32, 37], dtype=np.int64)
    end = np.array([3, 4, 18, 27, 36, 38], dtype=np.int64)
    texts = [data[s:e].decode() for s, e in zip(start, end, strict=True)]
    values, ok = parse_decimals(Tokens(buf, start, end))
    assert ok.all()
    assert [_bits(v) for v in values] == [_bits(float(t)) for t in texts]


def test_bytes_after_a_token_with_an_exponent_are_not_read():
    """An exponent ends with its token: an ``e`` and digits that follow it
    in the buffer are not read, nor taken for an exponent of a token that
    has none."""
    data = b"1.5e-7e5 2.5E3 7e+1e" + bytes(16)
    buf = np.frombuffer(data, dtype=np.uint8)
    start = np.array([0, 0, 9, 9, 15], dtype=np.int64)
    end = np.array([6, 3, 12, 14, 19], dtype=np.int64)
    texts = [data[s:e].decode() for s, e in zip(start, end, strict=True)]
    assert texts == ["1.5e-7", "1.5", "2.5", "2.5E3", "7e+1"]
    values, ok = parse_decimals(Tokens(buf, start, end))
    assert ok.all()
    assert [_bits(v) for v in values] == [_bits(float(t)) for t in texts]


def test_tokens_at_the_end_of_their_buffer():
    """Tokens whose 24 bytes would run past the buffer are read byte by byte."""
    for text in ["0.12345678901234567", "7", "-1.5", "12345678901234567.5"]:
        data = text.encode() + bytes(16)
        tokens = Tokens(
            np.frombuffer(data, dtype=np.uint8),
            np.array([0], dtype=np.int64),
            np.array([len(text)], dtype=np.int64),
        )
        values, ok = parse_decimals(tokens)
        assert ok.all() == (len(text.lstrip("-").replace(".", "")) <= 19)
        if ok.all():
            assert _bits(values[0]) == _bits(float(text))


def test_the_column_is_not_modified():
    tokens = Tokens.from_strings(np.array(["0.12345678901234567", "-3.5", "x"]))
    buf, start, end = tokens.buf.copy(), tokens.start.copy(), tokens.end.copy()
    parse_decimals(tokens)
    assert (tokens.buf == buf).all() and (tokens.start == start).all()
    assert (tokens.end == end).all()


@pytest.mark.parametrize(
    ("texts", "first"),
    [
        pytest.param(["1.5e-05"] * 100, True, id="every token"),
        pytest.param(["0.25"] * 100, False, id="none"),
        pytest.param(["0.25"] * 40 + ["1E-7"] * 60, True, id="most, last"),
        pytest.param(["0.25"] * 60 + ["1e-7"] * 40, False, id="fewer than half"),
        pytest.param(["3e1", "2", "7e-3"], True, id="a short column"),
        pytest.param(["", ""], False, id="empty tokens"),
        pytest.param(["1.5", "-2", "abc"], False, id="no e"),
    ],
)
def test_which_pass_goes_first(texts, first):
    """The tokens with an exponent are parsed first where more than half of
    a sample spread over the column holds an ``e``: the plain pass would
    take none of them."""
    tokens = Tokens.from_strings(np.array(texts))
    assert decimals._mostly_exponents(tokens.buf, tokens.start, tokens.length) is first


def test_an_exponent_column_skips_the_plain_pass(monkeypatch):
    """A column of exponents alone is parsed without a plain pass over every
    token: the plain pass sees only the tokens the exponents' left."""
    seen = []
    real = decimals._parse

    def parse(buf, start, length, integer, exponent=None):
        if exponent is None and not integer:
            seen.append(start.shape[0])
        return real(buf, start, length, integer, exponent)

    monkeypatch.setattr(decimals, "_parse", parse)
    texts = ["1.5e-05"] * 98 + ["0.5", "2e999"]
    values, ok = parse_decimals(Tokens.from_strings(np.array(texts)))
    assert seen == [2]
    assert ok.tolist() == [True] * 99 + [False]
    assert values[:99].tolist() == [1.5e-05] * 98 + [0.5]
