"""Plain decimal numbers of a token column, parsed without Python.

A TREC file's labels and scores are nearly always plain decimals
(``[+-]digits[.digits]``): :func:`parse_decimals` reads them a byte position
at a time over the whole column, with numpy, and leaves the others
(exponents, ``inf``, long mantissas) to the caller.
"""

from __future__ import annotations

import numpy as np

from skirm.io._long_tokens import n_words

_POW10 = np.array([float(10**k) for k in range(23)])


def parse_decimals(tokens, integer=False):
    """Parse plain decimal tokens (``[+-]digits[.digits]``) without Python.

    Returns ``(values, ok)``: ``ok`` is False for the tokens this fast path
    does not handle (exponents, inf, more than 15 digits, anything malformed),
    which the caller parses otherwise. For the others the value is exactly
    what ``float(token)`` gives: the digits form an integer below 2**53 and
    a power of ten up to 1e15 is exact, so the one division is correctly
    rounded.
    """
    n = len(tokens)
    length = tokens.length
    ok = (length > 0) & (length <= 16)
    if not n:
        return np.zeros(0), ok
    width = int(min(length.max(), 16))
    chars = np.empty((width, n), dtype=np.uint8)  # byte j of every token
    for k in range(n_words(width)):
        part = chars[8 * k : 8 * k + 8]
        word = tokens.word(k).view(np.uint8).reshape(n, 8)
        part[:] = word[:, : part.shape[0]].T
    first = chars[0]
    negative = first == 45
    signed = negative | (first == 43)
    # integers add up exactly in int64 (at most 15 digits), so the values
    # need no second array
    acc = np.zeros(n, dtype=np.int64 if integer else np.float64)
    n_digits = np.zeros(n, dtype=np.int8)
    n_frac = np.zeros(n, dtype=np.int8)
    n_dots = np.zeros(n, dtype=np.int8)
    digit = np.empty(n, dtype=np.uint8)
    is_digit = np.empty(n, dtype=bool)
    is_dot = np.empty(n, dtype=bool)
    for j in range(width):
        c = chars[j]
        np.subtract(c, np.uint8(48), out=digit)
        np.less(digit, 10, out=is_digit)
        np.equal(c, 46, out=is_dot)
        # a byte inside the token that is neither a digit nor a dot (nor
        # the sign, first) makes the token one for the slow path
        bad = ~(is_digit | is_dot)
        bad &= length > j
        if j == 0:
            bad &= ~signed
        ok &= ~bad
        np.multiply(acc, 10, out=acc, where=is_digit)
        np.add(acc, digit, out=acc, where=is_digit)
        n_digits += is_digit
        n_frac += is_digit & (n_dots > 0)
        n_dots += is_dot
    ok &= (n_digits > 0) & (n_digits <= 15) & (n_dots <= (0 if integer else 1))
    if integer:
        np.negative(acc, out=acc, where=negative)
        return acc, ok
    values = acc / _POW10[n_frac]
    np.negative(values, out=values, where=negative)
    return values, ok
