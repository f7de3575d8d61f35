"""Byte tokens in one shared buffer, handled eight bytes at a time.

A :class:`Tokens` column stores ``start`` and ``end`` offsets into a byte
buffer instead of Python strings. Reading a 1,000,000-line file then creates
no Python object per line: equality, exact byte order and hashing work on
64-bit words gathered with numpy, and strings are built only when asked for.
Hashes only speed up grouping; every conclusion drawn from them (a match, a
duplicate) is verified byte for byte.
"""

from __future__ import annotations

import numpy as np

PAD = 16  # zero bytes after the data, so that 8-byte reads never overrun

_MASKS = np.array(
    [0] + [(1 << (8 * r)) - 1 for r in range(1, 8)] + [(1 << 64) - 1],
    dtype=np.uint64,
)
_K0 = np.uint64(0x9E3779B97F4A7C15)
_K1 = np.uint64(0xBF58476D1CE4E5B9)
_K2 = np.uint64(0x94D049BB133111EB)
_S = np.uint64(31)


class Tokens:
    """A column of byte strings: ``buf[start[i]:end[i]]``.

    ``buf`` is a uint8 array followed by at least :data:`PAD` zero bytes.
    """

    def __init__(self, buf, start, end):
        self.buf = buf
        self.start = start.astype(np.int64, copy=False)
        self.end = end.astype(np.int64, copy=False)
        self.length = self.end - self.start
        self._words = None
        self._all_words = None
        self._hash = None

    @classmethod
    def from_strings(cls, values):
        """Tokens of a 1-D array of str."""
        items = values.tolist()
        joined = "".join(items)
        ascii_only = joined.isascii()
        if ascii_only:
            lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
        else:
            lengths = np.fromiter(
                (len(s.encode("utf-8", "surrogateescape")) for s in items),
                dtype=np.int64,
                count=len(items),
            )
        data = joined.encode("utf-8", "surrogateescape") + b"\0" * PAD
        end = np.cumsum(lengths)
        return cls(np.frombuffer(data, dtype=np.uint8), end - lengths, end)

    def __len__(self):
        return int(self.start.shape[0])

    @property
    def n_words(self) -> int:
        if not len(self):
            return 0
        return int(-(-int(self.length.max()) // 8))

    def _view(self):
        if self._words is None:
            self._words = np.ndarray(
                shape=(self.buf.shape[0] - 7,),
                dtype="<u8",
                buffer=self.buf,
                strides=(1,),
            )
        return self._words

    def word(self, k, rows=None):
        """Bytes ``8k .. 8k+7`` of each token (zero past its end), as a
        little-endian uint64."""
        start = self.start if rows is None else self.start[rows]
        length = self.length if rows is None else self.length[rows]
        view = self._view()
        if not start.shape[0]:
            return np.zeros(0, dtype=np.uint64)
        left = length - 8 * k if k else length
        shortest = int(left.min())
        at = start + 8 * k if k else start
        if shortest <= 0:  # some tokens end before this word: keep in bounds
            at = np.minimum(at, view.shape[0] - 1)
            left = np.maximum(left, 0)
        if shortest >= 8:
            return view[at]
        return view[at] & _MASKS[np.minimum(left, 8)]

    def words(self):
        """Every word of every token (``n_words`` arrays, cached)."""
        if self._all_words is None:
            self._all_words = [self.word(k) for k in range(self.n_words)]
        return self._all_words

    def hash(self):
        """A 64-bit hash of every token (cached).

        A token's hash depends on its own bytes alone: word ``k`` is mixed in
        only for tokens longer than ``8k`` bytes, so the same token hashes
        the same in every column, whatever the lengths of its neighbours.
        """
        if self._hash is None:
            h = (self.length.astype(np.uint64) + np.uint64(1)) * _K0
            for k, w in enumerate(self.words()):
                mixed = (h ^ w) * _K1
                mixed ^= mixed >> _S
                if k == 0:
                    h = mixed  # every token has its first word (zero if empty)
                else:
                    h = np.where(self.length > 8 * k, mixed, h)
            self._hash = h
        return self._hash

    def _words_of(self, k, rows):
        if self._all_words is not None:
            return self._all_words[k][rows]
        return self.word(k, rows)

    def equal(self, rows, other, other_rows):
        """Exact equality of ``self[rows]`` and ``other[other_rows]``.

        Tokens of equal length have the same number of words, at most the
        smaller column's ``n_words``: the words past it need no comparison.
        """
        eq = self.length[rows] == other.length[other_rows]
        for k in range(min(self.n_words, other.n_words)):
            eq &= self._words_of(k, rows) == other._words_of(k, other_rows)
        return eq

    def adjacent_equal(self):
        """Exact equality of each token with the previous one (n - 1 values)."""
        eq = self.length[1:] == self.length[:-1]
        for k in range(self.n_words):
            w = self.word(k)
            eq &= w[1:] == w[:-1]
        return eq

    def order_words(self, rows):
        """Big-endian words of the tokens: their lexicographic order is the
        byte order of the tokens (``strcmp``)."""
        return [self._words_of(k, rows).byteswap() for k in range(self.n_words)]

    def strings(self, rows=None):
        """The tokens as a str array (all of them, or ``rows``).

        Bytes that are not UTF-8 (a Latin-1 file) become lone surrogates
        (Python's ``surrogateescape``), so that every token, whatever its
        neighbours, round-trips to its bytes.
        """
        m = len(self) if rows is None else len(rows)
        n_words = max(self.n_words, 1)
        out = np.zeros((m, n_words), dtype="<u8")
        for k in range(self.n_words):
            out[:, k] = self.word(k, rows)
        raw = out.view(f"S{8 * n_words}").reshape(-1)
        try:
            return raw.astype(str)  # ASCII
        except UnicodeDecodeError:
            return np.char.decode(raw, "utf-8", "surrogateescape")


def mix(h, codes):
    """Combine token hashes with integer codes (e.g. query codes)."""
    out = (h ^ (codes.astype(np.uint64) * _K2)) * _K1
    out ^= out >> _S
    return out


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
    words = np.zeros((n, 2), dtype="<u8")
    words[:, 0] = tokens.word(0)
    if width > 8:
        words[:, 1] = tokens.word(1)
    chars = np.ascontiguousarray(words.view(np.uint8)[:, :width].T)  # (width, n)
    first = chars[0]
    negative = first == 45
    signed = negative | (first == 43)
    acc = np.zeros(n)
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
        np.multiply(acc, 10.0, out=acc, where=is_digit)
        np.add(acc, digit, out=acc, where=is_digit)
        n_digits += is_digit
        n_frac += is_digit & (n_dots > 0)
        n_dots += is_dot
    ok &= (n_digits > 0) & (n_digits <= 15) & (n_dots <= (0 if integer else 1))
    if integer:
        values = acc.astype(np.int64)
        np.negative(values, out=values, where=negative)
        return values, ok
    values = acc / _POW10[n_frac]
    np.negative(values, out=values, where=negative)
    return values, ok


def find_sorted(sorted_keys, needles):
    """Index of each needle in ``sorted_keys`` (distinct, ascending), or -1.

    The top bits of sorted keys are sorted too, so a table of bucket starts
    indexed by them replaces a binary search by one lookup and a short scan.
    """
    out = np.full(needles.shape[0], -1, dtype=np.int64)
    m = sorted_keys.shape[0]
    if not m or not needles.shape[0]:
        return out
    bits = max(int(m - 1).bit_length() + 1, 1)
    shift = np.uint64(64 - bits)
    bucket = (sorted_keys >> shift).astype(np.int64)
    starts = np.searchsorted(bucket, np.arange((1 << bits) + 1))
    b = (needles >> shift).astype(np.int64)
    lo, hi = starts[b], starts[b + 1]
    todo = np.flatnonzero(lo < hi)
    at = lo[todo]
    while todo.shape[0]:
        hit = sorted_keys[at] == needles[todo]
        out[todo[hit]] = at[hit]
        at += 1
        more = ~hit & (at < hi[todo])
        todo, at = todo[more], at[more]
    return out


def equal_key_pairs(keys):
    """Pairs ``(i, j)`` of rows with equal keys, i before j in sorted order.

    Rows alone in their hash bucket cannot have an equal key, so only the
    others are sorted.
    """
    n = keys.shape[0]
    if n < 2:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    bits = int(n - 1).bit_length() + 2
    bucket = (keys >> np.uint64(64 - bits)).astype(np.int64)
    crowded = np.flatnonzero(np.bincount(bucket, minlength=1 << bits)[bucket] > 1)
    order = crowded[np.argsort(keys[crowded])]
    sorted_keys = keys[order]
    same = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    return order[same], order[same + 1]
