"""Byte tokens in one shared buffer, handled eight bytes at a time.

A :class:`Tokens` column stores ``start`` and ``end`` offsets into a byte
buffer instead of Python strings. Reading a 1,000,000-line file then creates
no Python object per line: equality, exact byte order and hashing work on
64-bit words gathered with numpy, and strings are built only when asked for.
Hashes only speed up grouping; every conclusion drawn from them (a match, a
duplicate) is verified byte for byte.

The first :data:`~skirm.io._long_tokens.HEAD_WORDS` words (128 bytes) are
handled one word position at a time over the whole column; the words of
longer tokens past those, in rounds over those tokens only
(:mod:`skirm.io._long_tokens`), so that one long token costs time linear in
its bytes.
"""

from __future__ import annotations

import functools

import numpy as np

from skirm._validation import first_repeat
from skirm.io._hashed_codes import few_distinct, hashed_codes
from skirm.io._keys import offset_dtype
from skirm.io._long_tokens import (
    HEAD_WORDS,
    K0,
    K1,
    K2,
    MASKS,
    S,
    byte_items,
    clear_past_end,
    copy_tail,
    dense_rank,
    equal_tail,
    fill_tail,
    gather_words,
    hash_tail,
    n_words,
    refine_rank,
)

PAD = 16  # zero bytes after the data, so that 8-byte reads never overrun
#: Rows hashed (or copied) at a time: each 64-bit temporary of a range
#: (256 KiB) stays in a core's L2 cache (2**18 rows hashed the
#: 50,000 docnos of the usual run in 8-12 ms in a fresh process, 2**15 in
#: 6-6.5 ms).
HASH_ROWS = 1 << 15
#: Up to this many str are made tokens by Python (:meth:`Tokens.from_strings`).
_FEW_STRINGS = 256
#: Tokens of more bytes than this have words past the head.
_HEAD_BYTES = 8 * HEAD_WORDS


#: Runs of equal adjacent tokens past which :meth:`Tokens.codes` looks for
#: few distinct values among them (ids interleaved: a run shuffled, or
#: sorted by score), to group the tokens by their hash
#: (:func:`~skirm.io._hashed_codes.hashed_codes`): a sort of a string per
#: run costs several times more.
MANY_RUNS = 1 << 14
#: Tokens per run of equal adjacent ones (on average) from which
#: :meth:`Tokens.byte_rank` ranks each run's first (:data:`SAMPLE_PAIRS`
#: adjacent pairs, spread over the column, tell whether to find the runs).
GROUPED_RUN = 4
SAMPLE_PAIRS = 1 << 10


class Tokens:
    """A column of byte strings: ``buf[start[i]:end[i]]``.

    ``buf`` is a uint8 array followed by at least :data:`PAD` zero bytes.
    The offsets are int32 when given so (a reader's, for a buffer below
    :data:`~skirm.io._keys.INT32_LIMIT` bytes) and int64 otherwise.
    """

    def __init__(self, buf, start, end):
        self.buf = buf
        both32 = start.dtype == np.int32 and end.dtype == np.int32
        dtype = np.int32 if both32 else np.int64
        self.start = start.astype(dtype, copy=False)
        self.end = end.astype(dtype, copy=False)
        self.length = self.end - self.start
        self._words = None
        self._hash = None
        self._runs = None
        self._find_runs = None  # another way to find the runs (from_utf8)
        self._order = None

    @classmethod
    def from_strings(cls, values):
        """Tokens of a 1-D array of str.

        Large ASCII arrays are converted with numpy alone: each fixed-width
        string becomes one slot of a byte buffer, whatever its own length.
        A few strings (a block's query ids) are joined by Python, which
        spares importing :mod:`numpy.strings` for them.
        """
        values = np.asarray(values)
        if values.dtype.kind == "U" and values.shape[0] > _FEW_STRINGS:
            tokens = cls._from_ascii(values)
            if tokens is not None:
                return tokens
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

    @classmethod
    def from_utf8(cls, data, offsets, run_starts=None):
        """Tokens of UTF-8 bytes ``data`` (uint8) cut at ``offsets`` (``n +
        1`` of them, as Arrow holds strings), the bytes copied once; None
        when a byte is NUL: numpy's strings drop trailing NULs, so such ids
        go through str arrays, where the one rule of every container holds.
        ``run_starts()``, if given, finds :meth:`run_starts` when first
        asked (the strings' own holder, Arrow, compares them sooner), or
        gives None (then the tokens' words do)."""
        lo, hi = int(offsets[0]), int(offsets[-1])
        raw = data[lo:hi]
        if raw.shape[0] and raw.min() == 0:
            return None
        # written once: the bytes, then the padding (not zeroed before)
        buf = np.empty(hi - lo + PAD, dtype=np.uint8)
        buf[: hi - lo] = raw
        buf[hi - lo :] = 0
        offsets = offsets.astype(offset_dtype(buf.shape[0]), copy=False)
        if lo:  # a slice of a larger array
            offsets = offsets - lo
        tokens = cls(buf, offsets[:-1], offsets[1:])
        tokens._find_runs = run_starts
        return tokens

    @classmethod
    def _from_ascii(cls, values):
        """Tokens of an ASCII str array (None if any character is not ASCII)."""
        width = values.dtype.itemsize // 4
        if width == 0:
            zero = np.zeros(values.shape[0], dtype=np.int64)
            return cls(np.zeros(PAD, dtype=np.uint8), zero, zero)
        codes = np.ascontiguousarray(values).view(np.uint32)
        if codes.max() >= 128:
            return None
        buf = np.zeros(codes.shape[0] + PAD, dtype=np.uint8)
        buf[: codes.shape[0]] = codes
        start = np.arange(0, codes.shape[0], width, dtype=np.int64)
        length = np.strings.str_len(values).astype(np.int64, copy=False)
        return cls(buf, start, start + length)

    def __len__(self):
        return int(self.start.shape[0])

    def take(self, rows):
        """The tokens ``rows`` (an index array), sharing the buffer (and the
        hashes, if computed)."""
        out = Tokens(self.buf, self.start[rows], self.end[rows])
        if self._hash is not None:
            out._hash = self._hash[rows]
        if self._order is not None:
            out._order = self._order[rows]
        return out

    def compact(self):
        """The same tokens in a new buffer that holds only their bytes.

        The bytes are copied a range of :data:`HASH_ROWS` rows at a time,
        so that no array of an index per byte is built: the temporaries stay
        a few MB whatever the column. A range of tokens of one length (the
        docnos of one collection) is copied as one gather of fixed-size
        items, any other a word at a time.
        """
        length = self.length
        end = np.cumsum(length)
        total = int(end[-1]) if len(self) else 0
        end = end.astype(offset_dtype(total + PAD), copy=False)
        start = end - length
        buf = np.zeros(total + PAD, dtype=np.uint8)
        out = _unaligned(buf)
        for lo in range(0, len(self), HASH_ROWS):
            rows = slice(lo, lo + HASH_ROWS)
            width = int(length[rows].max())
            if width and width == int(length[rows].min()):
                items = byte_items(self.buf, width)
                end_row = min(lo + HASH_ROWS, len(self))
                at = int(start[lo])
                buf[at : at + width * (end_row - lo)].view(f"V{width}")[:] = items[
                    self.start[rows]
                ]
            else:
                self._copy_to(buf, out, start[rows], rows)
        return Tokens(buf, start, end)

    def _copy_to(self, buf, out, dst, rows):
        """Copy the bytes of the tokens ``rows`` (a slice) to ``buf`` (and
        its word view ``out``) at ``dst``. The tokens' destinations do not
        overlap: only whole words of a token are written, the last one
        ending where the token ends; the tokens shorter than a word are
        copied byte by byte."""
        src, length = self.start[rows], self.length[rows]
        short = np.flatnonzero(length < 8)
        for b in range(7):
            short = short[length[short] > b]
            if not short.shape[0]:
                break
            buf[dst[short] + b] = self.buf[src[short] + b]
        todo = np.flatnonzero(length >= 8)
        dst, src, length = dst[todo], src[todo], length[todo]
        view = self._view()
        out[dst + (length - 8)] = view[src + (length - 8)]
        todo = np.arange(length.shape[0])
        for k in range(HEAD_WORDS):
            todo = todo[length[todo] >= 8 * (k + 1)]  # a whole word k
            if not todo.shape[0]:
                return
            out[dst[todo] + 8 * k] = view[src[todo] + 8 * k]
        copy_tail(out, dst, view, src, length)

    @classmethod
    def concat(cls, parts):
        """One column of the tokens of ``parts`` (compacted), in order."""
        parts = [p.compact() for p in parts]
        sizes = [int(p.end[-1]) if len(p) else 0 for p in parts]
        buf = np.zeros(sum(sizes) + PAD, dtype=np.uint8)
        offsets = np.cumsum([0, *sizes])
        starts, ends = [], []
        for p, off, size in zip(parts, offsets.tolist(), sizes, strict=False):
            buf[off : off + size] = p.buf[:size]
            starts.append(p.start + off)
            ends.append(p.end + off)
        if not parts:
            zero = np.zeros(0, dtype=np.int64)
            return cls(buf, zero, zero)
        return cls(buf, np.concatenate(starts), np.concatenate(ends))

    def codes(self):
        """``(codes, ids)``: the sorted distinct tokens as str and each
        token's index into them. Runs of equal adjacent tokens (a run file's
        queries) are found with byte comparisons; one string is built per
        run."""
        n = len(self)
        if n == 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=str)
        starts = self.run_starts()
        if starts.shape[0] > MANY_RUNS and few_distinct(self, starts):
            found = hashed_codes(self)
            if found is not None:
                return found
        ids, inverse = np.unique(self.strings(starts), return_inverse=True)
        sizes = np.diff(np.append(starts, n))
        return np.repeat(inverse.reshape(-1), sizes), ids

    def run_starts(self):
        """First index of every run of equal adjacent tokens (cached)."""
        if self._runs is None and self._find_runs is not None:
            self._runs = self._find_runs()
            self._find_runs = None  # asked once: the strings' holder let go
        if self._runs is None:
            same = self.adjacent_equal()
            self._runs = np.flatnonzero(np.concatenate(([True], ~same)))
        return self._runs

    @property
    def n_words(self) -> int:
        """Words of the longest token."""
        if not len(self):
            return 0
        return int(n_words(int(self.length.max())))

    def _view(self):
        if self._words is None:
            self._words = _unaligned(self.buf)
        return self._words

    def word(self, k, rows=None):
        """Bytes ``8k .. 8k+7`` of each token (zero past its end), as a
        little-endian uint64.

        Only the result and one offset per token are allocated (and a shift
        per token, where tokens of several lengths end inside the word)."""
        start = self.start if rows is None else self.start[rows]
        length = self.length if rows is None else self.length[rows]
        view = self._view()
        if not start.shape[0]:
            return np.zeros(0, dtype=np.uint64)
        shortest = int(length.min()) - 8 * k
        at = start + 8 * k if k or rows is not None else start
        if shortest <= 0:  # some tokens end before this word: keep in bounds
            at = np.minimum(at, view.shape[0] - 1, out=None if at is start else at)
        words = view[at]
        del at
        if shortest < 8 and int(length.max()) - 8 * k == shortest:
            words &= MASKS[max(shortest, 0)]  # one length: one mask
        elif shortest < 8:
            clear_past_end(words, length, k)
        return words

    def _head_words(self, rows, n):
        """Words ``0 .. n-1`` of the tokens ``rows`` (a slice or an index
        array), as ``n`` lines: line ``k`` is :meth:`word` ``k`` of every
        token, from one
        gather (:func:`~skirm.io._long_tokens.gather_words`). The few tokens
        whose ``8n`` bytes would run past the buffer take :meth:`word`.
        """
        length = self.length[rows]
        words, late = gather_words(self.buf, self.start[rows], n)
        shortest, longest = int(length.min()), int(length.max())
        for k in range(n):
            end = shortest - 8 * k  # the shortest token's bytes in word k
            if end >= 8:
                continue  # every token fills the word
            if longest == shortest:
                words[k] &= MASKS[max(end, 0)]  # one length: one mask
            else:
                clear_past_end(words[k], length, k)
        if late.shape[0]:
            at = rows[late] if isinstance(rows, np.ndarray) else late + rows.start
            for k in range(n):
                words[k, late] = self.word(k, at)
        return words

    def hash(self, cache=True):
        """A 64-bit hash of every token (kept for the next call, unless
        ``cache`` is False).

        It depends on the token's bytes alone, never on the other tokens of
        the column (their lengths, the block they were read in): a word past
        the end of a token leaves its hash unchanged. The words past the head
        of a long token are mixed in by
        :func:`~skirm.io._long_tokens.hash_tail`.
        """
        if self._hash is None:
            # the head words a range of rows at a time: the temporaries of a
            # column of millions of tokens stay a few MB
            h = np.empty(len(self), dtype=np.uint64)
            for lo in range(0, len(self), HASH_ROWS):
                rows = slice(lo, lo + HASH_ROWS)
                h[rows] = self._head_hash(rows)
            if self.n_words > HEAD_WORDS:
                long = np.flatnonzero(self.length > _HEAD_BYTES)
                h[long] = hash_tail(
                    self._view(), self.start[long], self.length[long], h[long]
                )
            if not cache:
                return h
            self._hash = h
        return self._hash

    def _head_hash(self, rows):
        """The hash of the head words of the tokens ``rows`` (a slice)."""
        length = self.length[rows]
        h = (length.astype(np.uint64) + np.uint64(1)) * K0
        shortest = int(length.min())
        n = min(int(n_words(int(length.max()))), HEAD_WORDS)
        words = self._head_words(rows, n) if n else None
        for k in range(n):
            mixed = h ^ words[k]
            mixed *= K1
            mixed ^= mixed >> S
            if shortest > 8 * k:
                h = mixed
            else:
                np.copyto(h, mixed, where=length > 8 * k)
        return h

    def equal(self, rows, other, other_rows):
        """Exact equality of ``self[rows]`` and ``other[other_rows]``.

        Pairs of equal length have their head words gathered at once on
        each side (:meth:`_head_words`, as many as the longest of them has,
        :data:`HASH_ROWS` pairs at a time) and compared; the rest of long
        tokens, by :func:`~skirm.io._long_tokens.equal_tail`.
        """
        length = self.length[rows]
        eq = length == other.length[other_rows]
        same = np.flatnonzero(eq)  # equal so far
        for lo in range(0, same.shape[0], HASH_ROWS):
            todo = same[lo : lo + HASH_ROWS]
            n = min(int(n_words(int(length[todo].max()))), HEAD_WORDS)
            if n:
                words = self._head_words(rows[todo], n)
                words ^= other._head_words(other_rows[todo], n)
                eq[todo[words.any(axis=0)]] = False
        todo = np.flatnonzero(eq & (length > _HEAD_BYTES))
        if todo.shape[0]:
            a, b = rows[todo], other_rows[todo]
            eq[todo] = equal_tail(
                self._view(), self.start[a], other._view(), other.start[b], length[todo]
            )
        return eq

    def _grouped(self):
        """Whether equal tokens stand in runs of :data:`GROUPED_RUN` or more
        on average (query ids): as their runs say, or a sample of pairs."""
        n = len(self)
        if self._runs is None:
            if n < GROUPED_RUN * SAMPLE_PAIRS:
                return False
            at = np.linspace(0, n - 2, SAMPLE_PAIRS).astype(np.intp)
            if self.equal(at, self, at + 1).mean() < 1 - 1 / GROUPED_RUN:
                return False
        return self.run_starts().shape[0] * GROUPED_RUN <= n

    def adjacent_equal(self):
        """Exact equality of each token with the previous one (n - 1 values)."""
        eq = self.length[1:] == self.length[:-1]
        for k in range(min(self.n_words, HEAD_WORDS)):
            w = self.word(k)
            eq &= w[1:] == w[:-1]
        if self.n_words > HEAD_WORDS:
            todo = np.flatnonzero(eq & (self.length[1:] > _HEAD_BYTES))
            view = self._view()
            eq[todo] = equal_tail(
                view, self.start[todo + 1], view, self.start[todo], self.length[todo]
            )
        return eq

    def byte_rank(self, rows=None):
        """The dense rank of the tokens (all of them, or ``rows``) in byte
        order (``strcmp``'s; a token before any longer one it starts):
        equal tokens have equal ranks.

        The head words, big-endian, are sorted together; the groups still
        tied that hold longer tokens are split further by
        :func:`~skirm.io._long_tokens.refine_rank`. Tokens equal but for
        trailing zero bytes rank by length.
        """
        if rows is None and self._grouped():  # the runs' first tokens ranked
            runs = self.run_starts()
            heads = self.take(runs).byte_rank()
            return np.repeat(heads, np.diff(np.append(runs, len(self))))
        tokens = self
        if rows is not None:  # the rows' offsets once, not per word
            tokens = Tokens(self.buf, self.start[rows], self.end[rows])
        start, length = tokens.start, tokens.length
        m = start.shape[0]
        if not m:
            return np.zeros(0, dtype=np.int64)
        longest = int(n_words(int(length.max())))
        # the words, big-endian, are built when sorted on, not held together
        keys = [
            functools.partial(tokens._big_endian_word, k)
            for k in range(min(longest, HEAD_WORDS))
        ]
        if longest <= HEAD_WORDS:  # every word is a key: the length is the last
            return dense_rank([length, *reversed(keys)], m)
        rank = refine_rank(dense_rank(keys[::-1], m), self._view(), start, length)
        return dense_rank([length, rank], m)

    def order_key(self, rows=None):
        """Keys of the tokens (all, or ``rows``) that order as their bytes
        do, equal where they are equal, not dense: the rank of the whole
        column, computed once (for all its tokens, or for rows that are most
        of them) and kept, for later calls and the tokens taken from it;
        else the rows' own :meth:`byte_rank`."""
        if self._order is None:
            if rows is not None and rows.shape[0] * 10 < len(self) * 9:
                return self.byte_rank(rows)
            self._order = self.byte_rank()
        return self._order.copy() if rows is None else self._order[rows]

    def _big_endian_word(self, k):
        return self.word(k).byteswap(inplace=True)

    def strings(self, rows=None):
        """The tokens as a str array (all of them, or ``rows``).

        Bytes that are not UTF-8 (a Latin-1 file) become lone surrogates
        (Python's ``surrogateescape``), so that every token, whatever its
        neighbours, round-trips to its bytes.
        """
        rows = None if rows is None else np.asarray(rows)
        length = self.length if rows is None else self.length[rows]
        m = length.shape[0]
        longest = int(n_words(int(length.max()))) if m else 0
        width = max(longest, 1)
        out = np.zeros((m, width), dtype="<u8")
        for k in range(min(longest, HEAD_WORDS)):
            out[:, k] = self.word(k, rows)
        if longest > HEAD_WORDS:
            long = np.flatnonzero(length > _HEAD_BYTES)
            start = self.start[long] if rows is None else self.start[rows[long]]
            fill_tail(out, long, self._view(), start, length[long])
        raw = out.view(f"S{8 * width}").reshape(-1)
        try:
            return raw.astype(str)  # ASCII
        except UnicodeDecodeError:
            return np.char.decode(raw, "utf-8", "surrogateescape")


def _unaligned(buf):
    """A view of the little-endian word at every byte of ``buf`` (uint8)."""
    return byte_items(buf, 8).view("<u8")


def mix(h, codes):
    """Combine token hashes with integer codes (e.g. query codes)."""
    out = (h ^ (codes.astype(np.uint64) * K2)) * K1
    out ^= out >> S
    return out


def mix_into(h, codes):
    """:func:`mix` of ``h`` with ``codes``, written into ``h``, a range of
    :data:`HASH_ROWS` rows at a time (no temporary of the whole column)."""
    for lo in range(0, h.shape[0], HASH_ROWS):
        rows = slice(lo, lo + HASH_ROWS)
        h[rows] = mix(h[rows], codes[rows])


def first_duplicate(codes, tokens, rows=None):
    """The first repeated ``(code, token)`` pair, or None: the one duplicate
    finder (:func:`~skirm._validation.first_repeat`) asked of the pairs'
    hashes, its answer verified byte for byte (and, after a hash collision,
    asked again of the strings' codes).

    Returns ``(first, second)``: ``second`` is the smallest index that
    repeats an earlier one, ``first`` that earlier one; with ``rows`` (an
    index of each position, e.g. its line), those of the rows, the positions
    taken in the order of their rows.
    """
    if rows is not None:
        by_row = np.argsort(rows, kind="stable")
        pair = first_duplicate(codes[by_row], tokens.take(by_row))
        return None if pair is None else tuple(int(rows[by_row[p]]) for p in pair)
    if codes.shape[0] < 2:
        return None
    pair = first_repeat(mix(tokens.hash(), codes))
    if pair is None:
        return None
    a, b = np.array(pair[:1]), np.array(pair[1:])
    if codes[pair[0]] == codes[pair[1]] and tokens.equal(a, tokens, b)[0]:
        return pair
    # a hash collision: decide on the strings
    _, d_codes = np.unique(tokens.strings(), return_inverse=True)
    return first_repeat(codes, d_codes.reshape(-1))
