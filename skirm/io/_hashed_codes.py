"""The codes of ids interleaved in many runs (a run shuffled, or sorted by
score), by their hashes: what :meth:`~skirm.io._tokens.Tokens.codes` asks
where a sort of a string per run of equal adjacent ids would cost most; and
the equality of tokens whose hashes are equal (:func:`equal_hashed`)."""

from __future__ import annotations

import numpy as np

#: Tokens of at most this many bytes are told apart by their hash and their
#: length alone (:func:`equal_hashed`).
EXACT_BYTES = 8

#: Runs whose hashes tell whether the values are few (at most).
SAMPLE_RUNS = 1 << 13


def few_distinct(tokens, starts):
    """Whether ``tokens`` seem to hold at most a quarter as many distinct
    values as ``starts`` (their runs of equal adjacent tokens) number:
    the distinct hashes of :data:`SAMPLE_RUNS` runs spread over the
    column, fewer than ``s`` draws among ``d = len(starts) / 4`` values
    would give (``d * (1 - exp(-s / d))``)."""
    m = starts.shape[0]
    s = min(m, SAMPLE_RUNS)
    rows = starts[np.linspace(0, m - 1, s).astype(np.intp)]
    h = np.sort(tokens.take(rows).hash(cache=False))
    distinct = 1 + int(np.count_nonzero(h[1:] != h[:-1]))
    d = m / 4
    return distinct < d * -np.expm1(-s / d)


def hashed_codes(tokens):
    """``tokens.codes()`` of tokens in many runs of few distinct values:
    the distinct keys sorted, each token's found among them, one string
    built per key. The key of tokens of at most :data:`EXACT_BYTES` bytes is
    their one word (zero past the end): equal words are equal strings as
    numpy holds them (trailing NULs dropped), distinct words distinct ones.
    Longer tokens are keyed by their hash, each checked equal to one token
    of its hash. None where two tokens of a hash differ, or two keys'
    strings are equal (a collision): the strings decide."""
    n = len(tokens)
    exact = int(tokens.length.max()) <= EXACT_BYTES
    h = tokens.word(0) if exact else tokens.hash(cache=False)
    distinct = np.sort(h)
    keep = np.ones(n, dtype=bool)
    np.not_equal(distinct[1:], distinct[:-1], out=keep[1:])
    distinct = distinct[keep]
    of_row = np.searchsorted(distinct, h)
    one = np.empty(distinct.shape[0], dtype=np.intp)
    one[of_row] = np.arange(n)  # a row of each key (whichever is written last)
    if not exact and not equal_hashed(tokens, np.arange(n), tokens, one[of_row]).all():
        return None
    names = tokens.strings(one)
    order = np.argsort(names, kind="stable")
    ids = names[order]
    if (ids[1:] == ids[:-1]).any():
        return None
    rank = np.empty(order.shape[0], dtype=np.intp)
    rank[order] = np.arange(order.shape[0])
    return rank[of_row], ids


def equal_hashed(tokens, rows, other, other_rows):
    """``tokens.equal(rows, other, other_rows)`` of pairs whose hashes
    (:meth:`~skirm.io._tokens.Tokens.hash`) are known to be equal.

    The hash of a token of at most :data:`EXACT_BYTES` bytes is its one
    word (zero past its end) mixed with a constant of its length by three
    invertible steps (an exclusive or, a product by an odd constant, an
    exclusive or with itself shifted right): two such tokens of one length
    and one hash have one word, hence the same bytes. Only longer tokens
    are compared byte by byte."""
    length = tokens.length[rows]
    eq = length == other.length[other_rows]
    long = np.flatnonzero(eq & (length > EXACT_BYTES))
    if long.shape[0]:
        eq[long] = tokens.equal(rows[long], other, other_rows[long])
    return eq
