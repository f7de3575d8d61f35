"""``Tokens.codes()``: ids interleaved in many runs are grouped by their hash
(``skirm.io._hashed_codes``); the codes and ids are those of the sort of a string per
run, bit for bit, on generated columns that vary one dimension at a time,
and the strings decide where hashes collide."""

from __future__ import annotations

import numpy as np
import pytest
from _token_shapes import DIMENSIONS, fake_hash, id_values as _values

import skirm.io._tokens as tokens_module
from skirm.io._hashed_codes import few_distinct, hashed_codes
from skirm.io._tokens import Tokens


def _by_strings(tokens):
    """The reference: one string per run, sorted (the hashed path off)."""
    tokens._runs = None
    saved = tokens_module.MANY_RUNS
    tokens_module.MANY_RUNS = 1 << 62
    try:
        return tokens.codes()
    finally:
        tokens_module.MANY_RUNS = saved
        tokens._runs = None


def _hashed(tokens):
    tokens._runs = None
    found = hashed_codes(tokens)
    assert found is not None
    return found


def _same(got, want):
    np.testing.assert_array_equal(got[0], want[0])
    assert got[0].dtype == want[0].dtype
    np.testing.assert_array_equal(got[1], want[1])
    assert got[1].dtype == want[1].dtype


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dimension", DIMENSIONS)
@pytest.mark.parametrize("order", ["shuffled", "sorted", "runs"])
def test_hashed_codes_equal_the_strings(dimension, seed, order, token_column):
    rng = np.random.default_rng([DIMENSIONS.index(dimension), seed])
    values = _values(rng, dimension, int(rng.integers(1, 60)))
    texts = [values[i] for i in rng.integers(0, len(values), int(rng.integers(1, 400)))]
    if order == "sorted":
        texts.sort()
    elif order == "runs":  # runs of equal ids, some ids again later
        texts = [t for t in texts for _ in range(int(rng.integers(1, 4)))]
    for column in (
        Tokens.from_strings(np.array(texts)),
        token_column(texts, rng),  # other bytes between the tokens
    ):
        want = _by_strings(column)
        _same(_hashed(column), want)
        np.testing.assert_array_equal(want[1][want[0]], np.array(texts))


def test_codes_take_the_hashed_path_for_few_ids_in_many_runs(monkeypatch):
    rng = np.random.default_rng(0)
    ids = np.char.add("q", rng.integers(0, 50, 5000).astype(str))
    tokens = Tokens.from_strings(ids)
    monkeypatch.setattr(tokens_module, "MANY_RUNS", 100)
    assert few_distinct(tokens, tokens.run_starts())
    calls = []
    hashed = hashed_codes
    monkeypatch.setattr(
        tokens_module, "hashed_codes", lambda t: calls.append(1) or hashed(t)
    )
    _same(tokens.codes(), _by_strings(Tokens.from_strings(ids)))
    assert calls == [1]
    # every id distinct: the strings path, which sorts no more than it has to
    distinct = Tokens.from_strings(rng.permutation(5000).astype(str))
    assert not few_distinct(distinct, distinct.run_starts())


@pytest.mark.parametrize("how", ["all_one_hash", "equal_ids_two_hashes"])
def test_a_hash_collision_falls_back_to_the_strings(monkeypatch, how):
    rng = np.random.default_rng(1)
    ids = np.char.add("q", rng.integers(0, 30, 3000).astype(str))
    want = _by_strings(Tokens.from_strings(ids))
    tokens = Tokens.from_strings(ids)
    n = len(tokens)
    if how == "all_one_hash":  # distinct ids share a hash
        fake = np.zeros(n, dtype=np.uint64)
    else:  # one id under two hashes: its string twice among the ids
        fake = Tokens.from_strings(ids).hash(cache=False)
        first = int(np.flatnonzero(ids == ids[0])[-1])
        fake[first] ^= np.uint64(1)
    fake_hash(monkeypatch, lambda t: fake.copy())
    tokens._runs = None
    assert hashed_codes(tokens) is None
    monkeypatch.setattr(tokens_module, "MANY_RUNS", 10)
    monkeypatch.setattr(tokens_module, "few_distinct", lambda tokens, starts: True)
    tokens._runs = None
    _same(tokens.codes(), want)


def _unmixed(h, length):
    """The word a token of at most 8 bytes was hashed from, given its hash
    and length: each step of the hash undone (the exclusive or with itself
    shifted right by 31, the product by an odd constant, the exclusive or
    with its length's constant)."""
    from skirm.io._long_tokens import K0, K1

    x = h ^ (h >> np.uint64(31)) ^ (h >> np.uint64(62))
    x = x * np.uint64(pow(int(K1), -1, 1 << 64))
    return x ^ ((length.astype(np.uint64) + np.uint64(1)) * K0)


@pytest.mark.parametrize("alphabet", ["ascii", "bytes", "utf8"])
def test_the_hash_of_a_short_token_gives_back_its_bytes(alphabet):
    """What ``equal_hashed`` relies on: a token of at most ``EXACT_BYTES``
    bytes has one hash per word and length, so equal hashes and lengths
    mean equal bytes. Every length from 1 to 8, mixed in one column."""
    from skirm.io._hashed_codes import EXACT_BYTES

    rng = np.random.default_rng(3)
    n = 4000
    lengths = rng.integers(1, EXACT_BYTES + 1, n)
    if alphabet == "ascii":
        raw = rng.integers(32, 127, (n, EXACT_BYTES)).astype(np.uint8)
    elif alphabet == "bytes":
        raw = rng.integers(1, 256, (n, EXACT_BYTES)).astype(np.uint8)
    else:  # the UTF-8 bytes of letters of two bytes each, cut anywhere
        raw = np.frombuffer(("é" * (4 * n)).encode(), dtype=np.uint8).reshape(n, 8)
        lengths = np.full(n, 8)
    raw = raw.copy()
    raw[np.arange(EXACT_BYTES) >= lengths[:, None]] = 0
    end = np.cumsum(lengths)
    buf = np.zeros(int(end[-1]) + 64, dtype=np.uint8)
    buf[: end[-1]] = raw[np.arange(EXACT_BYTES) < lengths[:, None]]
    tokens = Tokens(buf, end - lengths, end)
    words = raw.view("<u8").reshape(-1)
    np.testing.assert_array_equal(_unmixed(tokens.hash(), tokens.length), words)
    np.testing.assert_array_equal(tokens.word(0), words)


def test_equal_hashed_compares_the_bytes_of_long_tokens_only(monkeypatch):
    """Pairs of equal hashes: short tokens are equal when their lengths are;
    longer ones (and, under a hash that is not exact, every one) are
    compared byte by byte."""
    from skirm.io._hashed_codes import equal_hashed

    left = Tokens.from_strings(np.array(["abc", "abcdefgh", "abcdefghi", "x" * 40]))
    right = Tokens.from_strings(np.array(["abc", "abcdefgh", "abcdefghj", "x" * 40]))
    rows = np.arange(4)
    calls = []
    real = Tokens.equal

    def spy(self, a, other, b):
        calls.append(a.tolist())
        return real(self, a, other, b)

    monkeypatch.setattr(Tokens, "equal", spy)
    assert equal_hashed(left, rows, right, rows).tolist() == [True, True, False, True]
    assert calls == [[2, 3]]
    fake_hash(monkeypatch, lambda t: np.zeros(len(t), dtype=np.uint64))
    calls.clear()
    assert equal_hashed(left, rows, right, rows).tolist() == [True, True, False, True]
    assert calls == [[0, 1, 2, 3]]


@pytest.mark.parametrize("seed", range(3))
def test_short_ids_with_nul_bytes_have_the_codes_of_their_strings(seed, token_column):
    """Ids of at most 8 bytes are keyed by their one word: ``"a"`` and
    ``"a\\0"`` (one string once numpy drops the trailing NUL) share a code,
    ``"a\\0b"`` has its own, as the strings say."""
    rng = np.random.default_rng(seed)
    values = [
        "a",
        "a\0",
        "a\0\0",
        "a\0b",
        "\0a",
        "ab",
        "",
        "\0",
        "abcdefg\0",
        "abcdefgh",
    ]
    texts = [values[i] for i in rng.integers(0, len(values), 300)]
    column = token_column(texts, rng)
    want = _by_strings(column)
    _same(_hashed(column), want)
    np.testing.assert_array_equal(want[1][want[0]], np.array(texts))
