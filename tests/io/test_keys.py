"""Sorted and hashed keys (:mod:`skirm.io._keys`) against plain numpy: a
search in every range at once against ``np.searchsorted`` range by range,
whether a key repeats (in the column, within a group) against a sort of
every key, dense codes of keys against ``np.unique``'s inverse. Seeded
inputs vary one dimension at a time: range sizes (empty, one, many), ties,
the side, the keys' top bits, the place of a repeat, the groups' sizes and
order, the spread of the keys (across the table's bound)."""

import numpy as np
import pytest

from skirm.io import _keys
from skirm.io._keys import (
    any_equal,
    any_equal_in_groups,
    code_runs,
    dense_codes,
    packed_key,
    runs_in_code_order,
    search_ascending,
    search_descending,
)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ties", [False, True])
def test_searches_in_ranges_match_searchsorted(seed, ties):
    """Each range's first place at or past ``x`` (ascending), below or at
    most ``x`` (descending, strict or not), as ``np.searchsorted`` finds it
    in that range alone; the bounds are left as they were."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 12, 40)
    sizes[:3] = [0, 1, 30]
    starts = np.concatenate(([0], np.cumsum(sizes)))
    high = 4 if ties else 1000
    parts = [np.sort(rng.integers(0, high, k)).astype(float) for k in sizes]
    values = np.concatenate(parts)
    q = rng.integers(0, sizes.shape[0], 200)
    x = rng.integers(-1, high + 1, 200).astype(float)
    lo, hi = starts[q], starts[q + 1]
    lo_before, hi_before = lo.copy(), hi.copy()
    up = search_ascending(values, lo, hi, x)
    down = values[::-1].copy()  # each range descending, the ranges reversed
    d_lo = values.shape[0] - hi
    d_hi = values.shape[0] - lo
    strict = search_descending(down, d_lo, d_hi, x, strict=True)
    loose = search_descending(down, d_lo, d_hi, x, strict=False)
    for i in range(q.shape[0]):
        part = parts[q[i]]
        assert up[i] - lo[i] == np.searchsorted(part, x[i], side="left")
        assert strict[i] - d_lo[i] == part.shape[0] - np.searchsorted(
            part, x[i], side="left"
        )
        assert loose[i] - d_lo[i] == part.shape[0] - np.searchsorted(
            part, x[i], side="right"
        )
    assert (lo == lo_before).all() and (hi == hi_before).all()


@pytest.mark.parametrize("seed", range(12))
def test_any_equal_matches_a_sort_of_every_key(monkeypatch, seed):
    """Whether two keys are equal, as a sort of every key says: columns of
    distinct keys and of one repeat (first, last, anywhere), keys that share
    their top bits (all of them, or most), sizes around the count that is
    sorted at once."""
    monkeypatch.setattr(_keys, "_FEW_KEYS", 1 << 6)
    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 63, 64, 65, 1000, 5000):
        keys = rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)
        if seed % 3 == 1:  # one top half for all: the buckets split nothing
            keys &= np.uint64(2**32 - 1)
        elif seed % 3 == 2:  # a few top bits in common
            keys >>= np.uint64(8)
        variants = [keys]
        if n >= 2:
            for i, j in ((0, 1), (0, n - 1), tuple(rng.choice(n, 2, replace=False))):
                repeated = keys.copy()
                repeated[j] = repeated[i]
                variants.append(repeated)
        for column in variants:
            ordered = np.sort(column)
            expected = bool((ordered[1:] == ordered[:-1]).any())
            before = column.copy()
            assert any_equal(column) is expected
            assert (column == before).all()  # the input is left as it was


def _repeats_in_groups(keys, codes):
    """The reference: a sort of every (code, key) pair."""
    pairs = np.unique(np.stack([codes.astype(np.uint64), keys], axis=1), axis=0)
    return pairs.shape[0] < keys.shape[0]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    "layout", ["one size", "sizes", "empty groups", "one group", "one row each"]
)
def test_any_equal_in_groups_matches_a_sort_of_every_pair(seed, layout):
    """Whether two keys of one group are equal, as a sort of every (code,
    key) pair says, for rows grouped in code order: groups of one size or of
    several (empty ones too), a repeat within a group (first, last,
    anywhere) or across two groups (not a repeat), keys at the largest value
    (the pads' value), few distinct keys, the groups in code order or not.
    Rows not grouped (a group in two runs), groups of one row, or groups too
    uneven to pad, get None; the input is left as it was."""
    rng = np.random.default_rng(seed)
    n_groups = {"one group": 1, "one row each": 300}.get(layout, 40)
    if layout == "one size":
        sizes = np.full(n_groups, int(rng.integers(1, 30)))
    elif layout == "one group":
        sizes = np.array([int(rng.integers(0, 200))])
    elif layout == "one row each":
        sizes = np.ones(n_groups, dtype=np.int64)
    else:
        sizes = rng.integers(0 if layout == "empty groups" else 1, 30, n_groups)
    # the groups in code order, or in another (ids that do not sort as read)
    order = np.arange(n_groups) if seed % 2 else rng.permutation(n_groups)
    codes = np.repeat(order, sizes[order])
    n = codes.shape[0]
    high = 2**64 - 1 if seed % 3 else 50  # few distinct keys: repeats across
    keys = rng.integers(0, high, size=n, dtype=np.uint64, endpoint=True)
    if seed % 4 == 1:
        keys[rng.random(n) < 0.2] = np.uint64(2**64 - 1)  # the pads' value
    variants = [keys]
    if n >= 2:
        for i, j in ((0, 1), (n - 2, n - 1), tuple(rng.choice(n, 2, replace=False))):
            repeated = keys.copy()
            repeated[j] = repeated[i]
            variants.append(repeated)
    for column in variants:
        before = column.copy()
        expected = _repeats_in_groups(column, codes)
        got = any_equal_in_groups(column, codes, n_groups)
        # groups of a few rows each: too short to sort apart, left to the caller
        short = n >= 2 and np.count_nonzero(sizes) * 8 > n + 1024
        assert got is (None if short else expected)
        assert (column == before).all()
    if n >= 2 and (codes[1:] != codes[:-1]).any():  # a group in two runs: None
        split = np.concatenate([codes, codes[:1]])
        assert any_equal_in_groups(np.append(keys, 1), split, n_groups) is None


def test_any_equal_in_groups_leaves_uneven_groups_to_the_column():
    """One group far larger than the others would pad every line to its
    size: None (the caller asks :func:`any_equal` of mixed keys)."""
    sizes = np.array([5000] + [1] * 100)
    codes = np.repeat(np.arange(sizes.shape[0]), sizes)
    keys = np.arange(codes.shape[0], dtype=np.uint64)
    assert any_equal_in_groups(keys, codes, sizes.shape[0]) is None
    assert any_equal_in_groups(keys[:1], codes[:1], 1) is False


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize(
    "layout", ["code order", "shuffled", "split", "interleaved", "empty", "one row"]
)
def test_runs_in_code_order_match_a_stable_argsort(seed, layout):
    """Rows grouped by code, the codes in any order, put in code order by
    moving their runs as a stable argsort orders them; codes not grouped
    (a code in two runs, codes interleaved) have no runs."""
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, 60))
    sizes = rng.integers(1, 40, n_groups)
    order = rng.permutation(n_groups) if layout != "code order" else np.arange(n_groups)
    codes = np.repeat(order, sizes[order])
    if layout == "split" and n_groups > 1:
        codes = np.append(codes, codes[0])
    elif layout == "interleaved":
        codes = rng.integers(0, n_groups, 500)
    elif layout == "empty":
        codes = codes[:0]
    elif layout == "one row":
        codes = codes[:1]
    runs = code_runs(codes, n_groups)
    firsts = np.flatnonzero(np.diff(codes, prepend=-1)) if codes.shape[0] else []
    grouped = np.unique(codes).shape[0] == len(firsts)  # each code one run
    if not grouped or len(firsts) * 8 > codes.shape[0] + 1024:
        assert runs is None  # not grouped, or runs too short to move
        return
    np.testing.assert_array_equal(runs[:-1], firsts)
    np.testing.assert_array_equal(
        runs_in_code_order(codes, runs), np.argsort(codes, kind="stable")
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("spread", [0, 1, 3, 4, 5, 1000, 2**40])
@pytest.mark.parametrize("n", [0, 1, 7, 5000])
def test_dense_codes_match_unique(seed, spread, n):
    """Equal keys equal codes, ordered as the keys, dense: ``np.unique``'s
    inverse, whether the keys fit a table (a spread of at most
    ``TABLE_KEYS`` times their count) or are sorted; the keys unmodified."""
    rng = np.random.default_rng([seed, spread, n])
    keys = rng.integers(0, max(spread * n, 1) + 1, n).astype(np.int64)
    if n > 1 and seed % 2:  # grouped, as the codes of a grouped column
        keys.sort()
    before = keys.copy()
    codes = dense_codes(keys)
    expected = np.unique(keys, return_inverse=True)[1].reshape(-1)
    np.testing.assert_array_equal(codes, expected)
    assert codes.dtype == expected.dtype
    np.testing.assert_array_equal(keys, before)


def test_dense_codes_of_close_keys_sort_nothing(monkeypatch):
    """Keys within the table's bound are coded by the table, not by a sort."""

    def refuse(*args, **kwargs):
        raise AssertionError("sorted")

    keys = np.random.default_rng(0).integers(0, 4 * 10_000, 10_000)
    expected = np.unique(keys, return_inverse=True)[1].reshape(-1)
    monkeypatch.setattr(np, "unique", refuse)
    np.testing.assert_array_equal(dense_codes(keys), expected)
    with pytest.raises(AssertionError, match="sorted"):
        dense_codes(keys * 10)


_PACKED_MINOR = {
    "small": lambda rng, n: rng.integers(0, 4, n),
    "negative": lambda rng, n: rng.integers(-5, 3, n),
    "near the top of uint64": lambda rng, n: (
        np.uint64(2**64 - 1) - rng.integers(0, 4, n).astype(np.uint64)
    ),
    "int8": lambda rng, n: rng.integers(-128, 128, n).astype(np.int8),
    "wide": lambda rng, n: rng.integers(-(2**62), 2**62, n),
    "floats": lambda rng, n: rng.random(n),
}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("minor", sorted(_PACKED_MINOR))
def test_packed_key_orders_as_lexsort(minor, descending, seed):
    """The stable order of :func:`packed_key` is ``np.lexsort``'s of the two
    keys (the minor one negated where descending): small, negative and
    narrow minor keys, unsigned ones near 2**64 (whose offsets must not
    wrap); None where the key would not fit or the keys are not integers,
    a negative major key, no pair."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    major = rng.integers(0, int(rng.integers(1, 50)), n)
    values = _PACKED_MINOR[minor](rng, n)
    key = packed_key(major, values, descending=descending)
    if minor in ("wide", "floats"):
        assert key is None
        return
    assert key.dtype == np.int64
    signed = values.astype(object)  # exact, whatever the width
    ranks = sorted(
        range(n), key=lambda i: (major[i], -signed[i] if descending else signed[i], i)
    )
    assert np.argsort(key, kind="stable").tolist() == ranks
    assert packed_key(major - 1 - major.max(), values) is None  # a negative major
    assert packed_key(major[:0], values[:0]) is None
