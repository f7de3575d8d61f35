"""Plain decimal numbers of a token column, parsed without Python.

A TREC file's labels and scores are nearly always decimals
(``[+-]digits[.digits]``, and for scores an exponent ``e[+-]digits``, as
Python's ``repr`` writes a double below 1e-4): :func:`parse_decimals` reads
them a byte position at a time over the whole column, with numpy, and
leaves the others (``inf``, more than 19 significant digits, powers of ten
past the exact ones) to the caller.

Each value is the one ``float(token)`` gives, bit for bit. The digits are
read into an unsigned 64-bit integer ``w`` (exact: at most 19 significant
digits); with ``f`` the digits after the dot less the exponent, the value
is ``w / 10**f`` (``w * 10**-f`` for a negative ``f``) rounded to the
nearest double:

- up to 15 significant digits, ``w`` and ``10**|f|`` (``|f| <= 22``) are
  exact doubles, and one division or product is correctly rounded
  (Clinger's fast path);
- 16 to 19 digits (a double's ``repr`` writes up to 17) are divided in
  numpy's ``longdouble`` where it holds at least 64 bits of mantissa (x87's
  extended precision, IEEE quad): ``w`` and ``10**|f|`` (``|f| <= 27``) are
  exact there, the quotient is rounded once to that precision, then once to
  a double. Rounding twice gives the correctly rounded double unless the
  first rounding lands exactly halfway between two doubles; those quotients
  (about one in 2,000) are left to the caller, as every such token is where
  ``longdouble`` is a double.

A token with an exponent is read in a second pass over the tokens the
first left: its mantissa and its exponent as two tokens of the same bytes.
"""

from __future__ import annotations

import numpy as np

from skirm.io._long_tokens import byte_items

__all__ = ["EXTENDED", "byte_lines", "parse_decimals"]

#: Significant digits an unsigned 64-bit integer holds whatever they are.
_MAX_DIGITS = 19
#: Significant digits a double holds exactly with any power of ten up to
#: 1e22 (the exact ones): the quotient is rounded once.
_EXACT_DIGITS = 15
#: The longest token read (a sign, a dot and 19 digits with a few leading
#: zeros: ``-0.00012345678901234567``).
_MAX_BYTES = 24

_POW10 = np.array([float(10**k) for k in range(23)])


def _extended_powers():
    """Powers of ten 1 .. 1e27 as exact ``longdouble`` (5**27 < 2**63), when
    ``longdouble`` is x87's extended precision or IEEE quad (IEEE division,
    at least 64 bits of mantissa); None otherwise (a double, or PowerPC's
    pair of doubles, whose division is not correctly rounded)."""
    if np.finfo(np.longdouble).nmant not in (63, 112):
        return None
    powers = np.ones(28, dtype=np.longdouble)
    for k in range(1, 28):  # each product exact: no conversion from Python
        powers[k] = powers[k - 1] * np.longdouble(10)
    return powers


_POW10_EXTENDED = _extended_powers()
#: x87's extended precision, little-endian in 16 bytes: its 64 bits of
#: mantissa are the first word.
_X87 = (
    _POW10_EXTENDED is not None
    and np.finfo(np.longdouble).nmant == 63
    and np.dtype(np.longdouble).itemsize == 16
    and np.little_endian
)

#: Whether 16 to 19 significant digits are parsed here (else by the caller).
EXTENDED = _POW10_EXTENDED is not None


def parse_decimals(tokens, integer=False):
    """Parse decimal tokens (``[+-]digits[.digits]``, and an exponent
    ``[eE][+-]digits`` unless ``integer``) without Python.

    Returns ``(values, ok)``: ``ok`` is False for the tokens this fast path
    does not handle (inf, more than 19 significant digits, or 18 for
    integers, powers of ten past the exact ones, anything malformed, and the
    rare long mantissas of the module's docstring), which the caller parses
    otherwise. For the others the value is exactly what ``float(token)``
    (``int`` with ``integer``) gives.
    """
    buf, start, length = tokens.buf, tokens.start, tokens.length
    if integer or not _mostly_exponents(buf, start, length):
        values, ok = _parse(buf, start, length, integer)
        if not integer and not ok.all():
            _exponents(buf, start, length, values, ok)
        return values, ok
    # Most tokens hold an exponent (repr of small scores): those first, then
    # the plain ones among the rest. A token with an e is never a plain
    # decimal, nor one without an exponent, so either order takes the same
    # tokens, with the same values.
    values = np.zeros(start.shape[0])
    ok = np.zeros(start.shape[0], dtype=bool)
    _exponents(buf, start, length, values, ok)
    rest = np.flatnonzero(~ok)
    if rest.shape[0]:
        values[rest], ok[rest] = _parse(buf, start[rest], length[rest], False)
    return values, ok


#: Tokens looked at to guess whether most of a column holds an exponent.
_SAMPLE = 64


def _mostly_exponents(buf, start, length) -> bool:
    """Whether more than half of :data:`_SAMPLE` tokens spread over the
    column hold an ``e`` or ``E`` (so that the plain pass, which would take
    none of them, is better run on the few left)."""
    n = start.shape[0]
    if not n:
        return False
    at = np.linspace(0, n - 1, min(n, _SAMPLE)).astype(np.intp)  # distinct
    span = np.minimum(length[at], _MAX_BYTES)
    width = int(span.max())
    if not width:
        return False
    chars = byte_lines(buf, start[at], width)
    column = np.arange(width, dtype=np.intp)[:, None]
    is_e = ((chars | np.uint8(0x20)) == np.uint8(ord("e"))) & (column < span)
    return 2 * int(is_e.any(axis=0).sum()) > at.shape[0]


def _parse(buf, start, length, integer, exponent=None):
    """:func:`parse_decimals` of the plain decimals of the tokens at
    ``start`` of ``length`` bytes, each the mantissa of ``exponent`` (the
    powers of ten of each, when given)."""
    n = start.shape[0]
    ok = (length > 0) & (length <= _MAX_BYTES)
    if not n:
        return np.zeros(0, dtype=np.int64 if integer else np.float64), ok
    width = int(min(length.max(), _MAX_BYTES))
    chars = byte_lines(buf, start, width)
    first = chars[0]
    negative = first == 45
    signed = negative | (first == 43)
    inside = np.minimum(length, 255).astype(np.uint8)  # bytes j < length
    # the digits as one integer, exact while at most 19 are significant: at
    # each byte, times 10 and plus its digit where it is one, times 1 and
    # plus 0 elsewhere (masked ufuncs cost several times more)
    acc = np.zeros(n, dtype=np.int64 if integer else np.uint64)
    n_significant = np.zeros(n, dtype=np.int8)
    n_frac = np.zeros(n, dtype=np.int8)
    n_dots = np.zeros(n, dtype=np.int8)
    started = np.zeros(n, dtype=bool)  # a nonzero digit seen
    any_digit = np.zeros(n, dtype=bool)
    digit = np.empty(n, dtype=np.uint8)
    is_digit = np.empty(n, dtype=bool)
    is_dot = np.empty(n, dtype=bool)
    bad = np.empty(n, dtype=bool)
    within = np.empty(n, dtype=bool)
    factor = np.empty(n, dtype=np.uint8)
    for j in range(width):
        c = chars[j]
        np.subtract(c, np.uint8(48), out=digit)
        np.greater(inside, j, out=within)
        np.less(digit, 10, out=is_digit)
        is_digit &= within
        np.equal(c, 46, out=is_dot)
        is_dot &= within
        # a byte inside the token that is neither a digit nor a dot (nor
        # the sign, first) makes the token one for the slow path
        np.logical_or(is_digit, is_dot, out=bad)
        np.logical_xor(bad, within, out=bad)
        if j == 0:
            bad &= ~signed
        ok &= ~bad
        np.multiply(is_digit, np.uint8(9), out=factor)
        factor += np.uint8(1)
        np.multiply(acc, factor, out=acc)
        np.multiply(digit, is_digit, out=digit)
        np.add(acc, digit, out=acc)
        any_digit |= is_digit
        started |= digit > 0
        n_significant += is_digit & started
        n_frac += is_digit & (n_dots > 0)
        n_dots += is_dot
    ok &= any_digit & (n_dots <= (0 if integer else 1))
    if integer:
        ok &= n_significant <= _MAX_DIGITS - 1
        np.negative(acc, out=acc, where=negative)
        return acc, ok
    if exponent is None:  # f = n_frac >= 0: a division
        short = (n_significant <= _EXACT_DIGITS) & (n_frac < _POW10.shape[0])
        values = acc.astype(np.float64) / _POW10[np.minimum(n_frac, 22)]
        f = n_frac
    else:
        f = n_frac - exponent
        size = np.abs(f)
        short = (n_significant <= _EXACT_DIGITS) & (size < _POW10.shape[0])
        values = _scaled(acc.astype(np.float64), f, _POW10[np.minimum(size, 22)])
    long_ok = ok & ~short
    ok &= short
    if EXTENDED:
        fits = (f < _POW10_EXTENDED.shape[0]) & (f > -_POW10_EXTENDED.shape[0])
        rows = np.flatnonzero(long_ok & (n_significant <= _MAX_DIGITS) & fits)
        if rows.shape[0]:
            values[rows], exact = _extended_quotients(acc[rows], f[rows])
            ok[rows[exact]] = True
    np.negative(values, out=values, where=negative)
    return values, ok


def _scaled(w, f, power):
    """``w / power`` where ``f >= 0``, ``w * power`` elsewhere (``power``:
    ``10**|f|``), in ``w``'s precision."""
    values = w / power
    up = np.flatnonzero(f < 0)
    values[up] = w[up] * power[up]
    return values


def _exponents(buf, start, length, values, ok):
    """Parse, in place, the tokens not ``ok`` that hold an exponent
    (``mantissa[eE]exponent``): the mantissa and the exponent are read as
    tokens of their own, the exponent as an integer."""
    rest = np.flatnonzero(~ok)  # few, as a rule: filtered among themselves
    span = length[rest]
    rest = rest[(span >= 3) & (span <= _MAX_BYTES)]  # "1e5" at least
    if not rest.shape[0]:
        return
    at, span = start[rest], length[rest]
    chars = byte_lines(buf, at, int(span.max()))
    column = np.arange(chars.shape[0], dtype=np.uint8)[:, None]
    is_e = (chars | np.uint8(0x20)) == np.uint8(ord("e"))  # e or E
    is_e &= column < span.astype(np.uint8)
    # the last e (0 where there is none): where a token holds two, the
    # mantissa holds one and is refused
    mark = (is_e * column).max(axis=0).astype(np.intp)
    rows = rest
    if not mark.all():
        kept = np.flatnonzero(mark > 0)
        rows, at, span, mark = rest[kept], at[kept], span[kept], mark[kept]
    exponent, e_ok = _parse(buf, at + mark + 1, span - mark - 1, integer=True)
    exponent[~e_ok] = 0
    parsed, m_ok = _parse(buf, at, mark, integer=False, exponent=exponent)
    good = m_ok & e_ok
    values[rows[good]] = parsed[good]
    ok[rows[good]] = True


def _extended_quotients(w, f):
    """``(w / 10**f, exact)`` (``w * 10**-f`` where ``f < 0``) rounded to
    doubles through ``longdouble``; ``exact`` is False where rounding twice
    may differ from rounding once (the ``longdouble`` value exactly halfway
    between two doubles)."""
    size = np.abs(f)
    q = _scaled(w.astype(np.longdouble), f, _POW10_EXTENDED[size])
    d = q.astype(np.float64)
    if _X87:  # the last 11 of its 64 bits of mantissa: 1 then ten 0s
        free = (q.view(np.uint64)[::2] & np.uint64(0x7FF)) != np.uint64(0x400)
    else:
        free = halfway_free(q, d)
    return d, free | (f == 0)  # an integer: exact in longdouble, rounded once


def halfway_free(q, d):
    """Whether each ``longdouble`` ``q`` is not exactly halfway between its
    double ``d`` (``q`` rounded) and the double beside it."""
    err = q - d  # exact: a few bits below the double's last
    beside = np.nextafter(d, np.where(err > 0, np.inf, -np.inf))
    half = (beside.astype(np.longdouble) - d) / 2
    return (err == 0) | (err != half)


def byte_lines(buf, start, width):
    """The first ``width`` bytes of ``buf`` at every ``start`` as ``width``
    lines (line ``j``: byte ``j`` of each token, uint8); bytes past a token's
    end are whatever follows it. Gathered ``width`` bytes per token at a
    time, a block of tokens at a time (the block's lines stay in the cache
    while they are turned)."""
    n = start.shape[0]
    chars = np.empty((width, n), dtype=np.uint8)
    items = byte_items(buf, width)
    limit = items.shape[0] - 1  # the last start with width bytes after it
    if limit >= 0:
        for lo in range(0, n, _BLOCK):
            at = np.minimum(start[lo : lo + _BLOCK], limit)
            block = items[at].view(np.uint8).reshape(-1, width)
            chars[:, lo : lo + _BLOCK] = block.T
    late = np.flatnonzero(start > limit)  # byte by byte, within the buffer
    if late.shape[0]:
        at = start[late][None, :] + np.arange(width)[:, None]
        chars[:, late] = buf[np.minimum(at, buf.shape[0] - 1)]
    return chars


_BLOCK = 65_536
