"""The words of long tokens past their head, in rounds of bounded size.

:class:`~skirm.io._tokens.Tokens` handles the first :data:`HEAD_WORDS`
words of every token (128 bytes, longer than any real docno) one word
position at a time over the whole column. Only tokens longer than that have
more words; the functions here handle those words, for those tokens only.

Each works in rounds: a round reads the next ``c`` words of each token still
in play, ``c`` chosen so that a round reads about :data:`BLOCK` words, and
drops the tokens that are done (ended, or found to differ). Time is linear in
the bytes of the long tokens, with a numpy constant, and memory is bounded by
the round, whatever the length of the longest token: a column of a million
short docnos and one of a megabyte is never handled as a matrix a megabyte
wide. The head's words are read by :func:`gather_words` and trimmed to each
token by :func:`clear_past_end`. The tokens' dense rank in byte order is
found by :func:`dense_rank` over their head words, then by
:func:`refine_rank` over the words past them.
"""

from __future__ import annotations

import numpy as np

#: Words (of 8 bytes) of every token handled position by position; the
#: hashes, comparisons and order of tokens of up to ``8 * HEAD_WORDS`` bytes
#: depend on them alone.
HEAD_WORDS = 16
#: Words read per round, about.
BLOCK = 1 << 20

#: ``MASKS[r]`` keeps the first ``r`` bytes of a little-endian word.
MASKS = np.array(
    [0] + [(1 << (8 * r)) - 1 for r in range(1, 8)] + [(1 << 64) - 1],
    dtype=np.uint64,
)
K0 = np.uint64(0x9E3779B97F4A7C15)
K1 = np.uint64(0xBF58476D1CE4E5B9)
K2 = np.uint64(0x94D049BB133111EB)
S = np.uint64(31)


_BYTE_BITS = np.uint64(3)  # a byte count shifted left by it: bits


def byte_items(buf, width):
    """``buf`` (uint8) seen as overlapping items of ``width`` bytes: item
    ``i`` is bytes ``i .. i + width - 1`` (a ``V{width}`` view, an item for
    each start with ``width`` bytes after it; none when ``buf`` is shorter).
    """
    n = max(buf.shape[0] - width + 1, 0)
    return np.ndarray(shape=(n,), dtype=f"V{width}", buffer=buf, strides=(1,))


def gather_words(buf, start, n):
    """``(words, late)``: the ``8n`` bytes of ``buf`` at each of ``start``
    as ``n`` lines of little-endian words (line ``k``: bytes ``8k .. 8k+7``
    of every start), and the positions in ``start`` whose ``8n`` bytes would
    run past ``buf`` (their words are read otherwise; their lines hold other
    bytes).

    The bytes at each start are gathered as one item: numpy's fancy indexing
    costs about as much per item whatever its size, so this replaces ``n``
    gathers of a word.
    """
    items = byte_items(buf, 8 * n)
    limit = items.shape[0] - 1  # the last start with 8n bytes after it
    late = np.flatnonzero(start > limit)
    gathered = items[np.minimum(start, limit) if late.shape[0] else start]
    # a line per word: the masks and the hash then read contiguous words
    words = np.ascontiguousarray(gathered.view("<u8").reshape(-1, n).T)
    return words, late


def clear_past_end(words, length, k):
    """Zero the bytes of ``words`` (word ``k`` of tokens of ``length``
    bytes) past each token's end: shifted out and back, with no gather of a
    mask per token (a shift by 64 bits gives 0)."""
    drop = 8 * (k + 1) - length
    np.clip(drop, 0, 8, out=drop)
    bits = drop.astype(np.uint64)
    del drop
    bits <<= _BYTE_BITS
    words <<= bits
    words >>= bits


def n_words(length):
    """Words of tokens of ``length`` bytes (the last one partial)."""
    return -(-length // 8)


def _width(remaining):
    """Words per token for a round over tokens with ``remaining`` words
    left: about :data:`BLOCK` words in all, no more than the longest needs."""
    return max(1, min(BLOCK // remaining.shape[0], int(remaining.max())))


def _block(view, start, length, k, c, out=None):
    """Words ``k .. k + c - 1`` of each token as an ``(n, c)`` uint64
    matrix (little-endian, as stored), zero past each token's end.

    Only the tokens that end within the block need masks; the others are
    read with one gather.
    """
    j = np.arange(k, k + c, dtype=np.int64)
    at = start[:, None] + 8 * j
    remaining = n_words(length) - k
    ending = np.flatnonzero(remaining <= c)
    if ending.shape[0]:
        np.minimum(at, view.shape[0] - 1, out=at)  # past the end: any byte
    if out is None:
        words = view[at]
    else:
        out[...] = view[at]
        words = out
    if ending.shape[0]:
        words *= j[None, :] < (k + remaining)[:, None]  # zero past the end
        ending = ending[remaining[ending] > 0]
        last = remaining[ending] - 1  # the token's last word, maybe partial
        words[ending, last] &= MASKS[length[ending] - 8 * (k + last)]
    return words


def hash_tail(view, start, length, head):
    """The hashes of long tokens from their hashes ``head`` after
    :data:`HEAD_WORDS` words.

    Each further word is mixed with its position, the mixed words are summed
    (modulo 2**64), so that no loop runs word after word, and the sum is
    mixed into ``head`` (which holds the length). Like ``head``, the result
    depends on the token's bytes alone.
    """
    total = n_words(length)
    acc = np.zeros(start.shape[0], dtype=np.uint64)
    active = np.flatnonzero(total > HEAD_WORDS)
    k = HEAD_WORDS
    while active.shape[0]:
        c = _width(total[active] - k)
        x = _block(view, start[active], length[active], k, c)
        j = np.arange(k, k + c, dtype=np.uint64)
        x ^= j * K2
        x *= K1
        x ^= x >> S
        x *= K0
        x ^= x >> S
        if int(total[active].min()) < k + c:  # only the words of each token
            x *= j < total[active, None].astype(np.uint64)
        acc[active] += x.sum(axis=1, dtype=np.uint64)
        k += c
        active = active[total[active] > k]
    out = (head ^ acc) * K1
    out ^= out >> S
    return out


def equal_tail(view_a, start_a, view_b, start_b, length):
    """Whether the words past :data:`HEAD_WORDS` of pairs of tokens of the
    same ``length`` are equal (pairs are dropped as soon as they differ)."""
    total = n_words(length)
    eq = np.ones(start_a.shape[0], dtype=bool)
    active = np.flatnonzero(total > HEAD_WORDS)
    k = HEAD_WORDS
    while active.shape[0]:
        c = _width(total[active] - k)
        size = length[active]
        a = _block(view_a, start_a[active], size, k, c)
        differ = (a != _block(view_b, start_b[active], size, k, c)).any(axis=1)
        eq[active[differ]] = False
        k += c
        active = active[~differ & (total[active] > k)]
    return eq


def fill_tail(out, rows, view, start, length):
    """Write the words past :data:`HEAD_WORDS` of tokens into the rows
    ``rows`` of ``out`` (a uint64 matrix with a column per word, as wide as
    the longest token)."""
    total = n_words(length)
    active = np.flatnonzero(total > HEAD_WORDS)
    k = HEAD_WORDS
    while active.shape[0]:
        c = _width(total[active] - k)
        out[rows[active], k : k + c] = _block(view, start[active], length[active], k, c)
        k += c
        active = active[total[active] > k]


def copy_tail(out, dst, view, start, length):
    """Copy the whole words past :data:`HEAD_WORDS` of tokens (of
    ``length`` bytes at ``start`` of ``view``) to the word view ``out`` at
    ``dst``; the bytes after the last whole word are the caller's."""
    total = length // 8
    active = np.flatnonzero(total > HEAD_WORDS)
    k = HEAD_WORDS
    while active.shape[0]:
        c = _width(total[active] - k)
        j = np.arange(k, k + c, dtype=np.int64)
        inside = j[None, :] < total[active][:, None]
        at = 8 * j
        out[(dst[active][:, None] + at)[inside]] = view[
            (start[active][:, None] + at)[inside]
        ]
        k += c
        active = active[total[active] > k]


def refine_rank(rank, view, start, length):
    """Split the groups of equal ``rank`` that hold long tokens by the words
    past :data:`HEAD_WORDS`, in byte order.

    ``rank`` is a dense rank of the tokens by their first
    :data:`HEAD_WORDS` words (zero past each token's end). Returns the dense
    rank by all their words: each round sorts the rows of the groups still
    tied by (rank, next ``c`` words) as byte strings (numpy void items,
    compared as ``memcmp`` does), and ranks them anew; a group leaves once
    its rows differ or none has words left.
    """
    total = n_words(length)
    n_ranks = int(rank.max()) + 1 if rank.shape[0] else 0
    size = np.bincount(rank, minlength=n_ranks)
    longer = np.zeros(n_ranks, dtype=bool)
    longer[rank[total > HEAD_WORDS]] = True
    active = np.flatnonzero((size[rank] > 1) & longer[rank])
    k = HEAD_WORDS
    while active.shape[0]:
        n = active.shape[0]
        c = _width(np.maximum(total[active] - k, 1))
        # row: the rank (8 bytes, big-endian), then the words as stored
        block = np.empty((n, c + 1), dtype=np.uint64)
        block[:, 0] = rank[active].astype(">u8").view(np.uint64)
        _block(view, start[active], length[active], k, c, out=block[:, 1:])
        # unstructured void items compare as memcmp does: in byte order
        order = np.argsort(block.view(f"V{8 * (c + 1)}").reshape(-1), kind="stable")
        ordered = block[order]
        new = np.ones(n, dtype=bool)
        new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
        sorted_rank = rank[active[order]]
        group = np.ones(n, dtype=bool)
        group[1:] = sorted_rank[1:] != sorted_rank[:-1]
        d = np.cumsum(new) - 1  # distinct rows so far
        sub = d - np.maximum.accumulate(np.where(group, d, 0))
        # ranks after each group shift by the new ranks of the groups before
        last = np.flatnonzero(np.append(group[1:], True))
        extra = np.zeros(n_ranks, dtype=np.int64)
        extra[sorted_rank[last]] = sub[last]
        shift = np.cumsum(extra) - extra
        rank = rank + shift[rank]
        rank[active[order]] += sub
        n_ranks += int(extra.sum())
        k += c
        # the new groups that still tie and have words left
        starts = np.flatnonzero(new)
        more = np.logical_or.reduceat(total[active[order]] > k, starts)
        tied = np.diff(np.append(starts, n)) > 1
        active = active[order][(tied & more)[d]]
    return rank


def dense_rank(keys, n):
    """Dense rank of ``n`` rows by ``keys`` (the last one primary, as
    :func:`numpy.lexsort`). A key may be a function that returns it: it is
    built when needed, twice, rather than held with the others.

    The rows are sorted one key at a time by stable sorts, the least
    significant first; a key equal on every row (the first word of docnos
    of one collection, their length) orders nothing and is skipped.
    """
    order, varying = None, []
    for key in keys:
        values = key() if callable(key) else key
        if values.shape[0] and values.min() == values.max():
            continue  # orders nothing, changes nowhere
        varying.append(key)
        if order is not None:
            values = values[order]  # the key's own array is freed here
        step = np.argsort(values, kind="stable")
        del values
        order = step if order is None else order[step]
        del step
    if order is None:  # every key is constant: one rank
        return np.zeros(n, dtype=np.int64)
    change = np.zeros(order.shape[0], dtype=bool)
    for key in varying:
        ordered = (key() if callable(key) else key)[order]
        change[1:] |= ordered[1:] != ordered[:-1]
        del ordered
    dense = np.cumsum(change, dtype=np.int64)
    del change
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = dense
    return rank
