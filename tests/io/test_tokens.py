"""Byte tokens: compaction, concatenation, unusual str arrays, the decimal
fast path's domain and the key index helpers on short inputs (the long-token
paths are in ``test_tokens_long.py``)."""

import io

import numpy as np
import pytest
from _data import TREC_EVAL_DATA

TREC_DATA = TREC_EVAL_DATA


def test_key_index_helpers_on_short_inputs():
    """No keys, one key and two equal keys: the lookups and pairs as on long
    inputs, the pairs as row indices."""
    from skirm._validation import repeated_pairs as equal_key_pairs
    from skirm.io._keys import SortedKeys

    needles = np.array([0, 5, 2**63], dtype=np.uint64)
    assert SortedKeys(np.zeros(0, dtype=np.uint64)).find(needles).tolist() == [-1] * 3
    assert SortedKeys(np.array([5], dtype=np.uint64)).find(needles).tolist() == [
        -1,
        0,
        -1,
    ]
    for n in (0, 1):
        i, j = equal_key_pairs(np.full(n, 7, dtype=np.uint64))
        assert i.shape == j.shape == (0,)
        assert i.dtype.kind == j.dtype.kind == "i"
    i, j = equal_key_pairs(np.array([7, 7], dtype=np.uint64))
    assert (i.tolist(), j.tolist()) == ([0], [1])
    i, j = equal_key_pairs(np.array([7, 8], dtype=np.uint64))
    assert (i.tolist(), j.tolist()) == ([], [])


def _check_buffer(tokens):
    """The class invariant: a uint8 buffer with PAD zero bytes after every
    token."""
    from skirm.io._tokens import PAD

    assert tokens.buf.dtype == np.uint8
    last = int(tokens.end.max()) if len(tokens) else 0
    assert tokens.buf.shape[0] >= last + PAD
    assert not tokens.buf[last:].any()


def test_compact_and_concat_keep_the_tokens(token_column):
    from skirm.io._tokens import Tokens

    rng = np.random.default_rng(5)
    texts = ["d1", "", "x" * 20, "é-ü", "q" * 200, "d1", "7"]
    column = token_column(texts, rng)
    rows = np.array([6, 0, 3, 4, 4, 1])
    compacted = column.take(rows).compact()
    _check_buffer(compacted)
    assert compacted.strings().tolist() == [texts[i] for i in rows]
    assert int(compacted.end[-1]) == sum(len(texts[i].encode()) for i in rows)
    np.testing.assert_array_equal(compacted.hash(), column.hash()[rows])

    parts = [column.take(rows[:2]), column.take(rows[:0]), column, column.take([2])]
    joined = Tokens.concat(parts)
    _check_buffer(joined)
    expected = [texts[i] for i in rows[:2]] + texts + [texts[2]]
    assert joined.strings().tolist() == expected
    assert joined.equal(
        np.arange(len(expected)), joined, np.arange(len(expected))
    ).all()
    empty = Tokens.concat([])
    _check_buffer(empty)
    assert len(empty) == 0 and empty.strings().tolist() == []
    assert empty.start.dtype == empty.end.dtype == np.int64
    assert Tokens.concat([empty, column.take([3])]).strings().tolist() == [texts[3]]


def test_tokens_of_unusual_str_arrays():
    """Width-0 str arrays, the first non-ASCII code point and empty columns."""
    from skirm.io._tokens import Tokens

    blank = Tokens.from_strings(np.ndarray((3,), dtype=np.dtype(("U", 0))))
    _check_buffer(blank)
    assert len(blank) == 3 and blank.strings().tolist() == ["", "", ""]
    assert blank.length.tolist() == [0, 0, 0]
    for texts in (["a\x80", "b"], ["\x7f", "\x80"]):
        tokens = Tokens.from_strings(np.array(texts))
        _check_buffer(tokens)
        assert tokens.strings().tolist() == texts
        assert tokens.length.tolist() == [len(t.encode()) for t in texts]
    empty = Tokens.from_strings(np.array([], dtype=str))
    codes, ids = empty.codes()
    assert codes.shape == ids.shape == (0,)
    assert codes.dtype == np.intp and ids.dtype.kind == "U"
    rank = empty.byte_rank()
    assert rank.shape == (0,) and rank.dtype == np.int64
    word = Tokens.from_strings(np.array(["abc"])).word(0, np.zeros(0, dtype=np.int64))
    assert word.shape == (0,) and word.dtype == np.uint64


@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
@pytest.mark.parametrize("m", [0, 1, 2, 7, 1000])
def test_sorted_keys_bucket_starts_by_ranges_of_buckets(monkeypatch, chunk, m):
    """The bucket table built a range of buckets at a time equals one count
    of every key's bucket, with keys at both ends of the 64-bit range, and
    every key and some absent needles are found as a binary search finds
    them."""
    from skirm.io._keys import SortedKeys

    monkeypatch.setattr(SortedKeys, "CHUNK", chunk)
    rng = np.random.default_rng(m)
    keys = rng.integers(0, 2**64 - 1, size=m, dtype=np.uint64, endpoint=True)
    if m >= 2:
        keys[:2] = [0, 2**64 - 1]
    keys = np.unique(keys)
    table = SortedKeys(keys)
    bits = int(keys.shape[0]).bit_length() + 1  # 2m to 4m buckets
    assert int(table.shift) == 64 - bits
    bucket = (keys >> np.uint64(64 - bits)).astype(np.int64)
    counts = np.bincount(bucket, minlength=1 << bits)
    expected = np.concatenate(([0], np.cumsum(counts)))
    assert table.starts.dtype == np.int32
    assert table.starts.tolist() == expected.tolist()
    needles = np.concatenate((keys, keys + np.uint64(1), [np.uint64(2**63)]))
    pos = np.minimum(np.searchsorted(keys, needles), max(keys.shape[0] - 1, 0))
    hit = keys[pos] == needles if keys.shape[0] else np.zeros(needles.shape, bool)
    assert table.find(needles).tolist() == np.where(hit, pos, -1).tolist()


def test_offsets_of_a_buffer_past_int32_are_int64(monkeypatch):
    """A reader's offsets and line numbers are int32 while the buffer allows
    and int64 beyond (forced here by a zero limit); the numbers of a whole
    evaluation are the same either way, in one block and streamed."""
    import skirm.io._keys
    import skirm.io._tokens
    from skirm.io._text import Table
    from skirm.trec import evaluate_run

    qrels = TREC_DATA / "qrels.test"
    run = TREC_DATA / "results.test"

    def evaluate():
        whole = evaluate_run(qrels, io.StringIO(run.read_text()), "all_trec")
        streamed = evaluate_run(qrels, run, "all_trec")
        return [r.per_query[m].tolist() for r in (whole, streamed) for m in r.per_query]

    def dtypes():
        data = bytearray(b"q 0 d 1\nq 0 e 0\n" + b"\0" * 16)
        table = Table(data, len(data) - 16, "q", (0, 2))
        tokens = table.tokens(2)
        return {tokens.start.dtype, tokens.length.dtype, table.file_lines().dtype}

    assert dtypes() == {np.dtype(np.int32)}
    expected = evaluate()
    monkeypatch.setattr(skirm.io._keys, "INT32_LIMIT", 0)
    assert dtypes() == {np.dtype(np.int64)}
    assert evaluate() == expected


@pytest.mark.parametrize("rows", [1, 2, 3, 7, 1 << 18])
def test_hashes_by_ranges_of_rows_equal_each_token_hashed_alone(
    monkeypatch, rows, token_column
):
    """A column is hashed a range of rows at a time; each hash equals the
    token's hashed alone, whatever the range's longest or shortest token
    (empty tokens, tokens across word boundaries, long tokens past the
    head)."""
    import skirm.io._tokens
    from skirm.io._tokens import Tokens

    rng = np.random.default_rng(rows)
    lengths = np.concatenate(([0, 7, 8, 9, 128, 129, 300], rng.integers(0, 40, 60)))
    rng.shuffle(lengths)
    alphabet = np.array(list("abcdefghij-_.é"))
    texts = ["".join(rng.choice(alphabet, size=int(n))) for n in lengths]
    column = token_column(texts, rng)
    monkeypatch.setattr(skirm.io._tokens, "HASH_ROWS", rows)
    got = column.hash(cache=False)
    alone = [int(Tokens.from_strings(np.array([t])).hash()[0]) for t in texts]
    assert got.tolist() == alone
    assert column._hash is None
    assert column.hash() is column.hash()  # cached when asked


def test_a_word_holds_the_token_bytes_and_zeros_past_its_end(token_column):
    """Word k of each token, among neighbours of other lengths and bytes
    around it: bytes 8k..8k+7, zero past the token's end (a word it does not
    reach is 0), as a little-endian integer; all rows or some."""
    rng = np.random.default_rng(7)
    lengths = np.concatenate(([0, 1, 7, 8, 9, 15, 16, 17], rng.integers(0, 30, 40)))
    texts = ["".join(rng.choice(list("xyz019#é"), size=int(n))) for n in lengths]
    column = token_column(texts, rng)
    raw = [t.encode("utf-8") for t in texts]
    rows = np.array([3, 0, 9, 9, 40])
    for k in range(5):
        expected = [int.from_bytes(b[8 * k : 8 * k + 8], "little") for b in raw]
        assert column.word(k).tolist() == expected
        assert column.word(k, rows).tolist() == [expected[r] for r in rows]
        one = token_column([texts[9]] * 3, rng)  # one length: one mask
        assert one.word(k).tolist() == [expected[9]] * 3


@pytest.mark.parametrize("rows", [slice(0, 50), slice(3, 41), slice(44, 50)])
def test_the_head_words_of_a_range_are_its_words(token_column, rows):
    """One gather of the 8n bytes at each token's start gives every word
    :meth:`Tokens.word` gives, also for the last tokens of the buffer (whose
    8n bytes would run past it) and for one length only."""
    rng = np.random.default_rng(11)
    lengths = np.concatenate(([0, 1, 7, 8, 9, 23, 24, 25], rng.integers(0, 40, 42)))
    texts = ["".join(rng.choice(list("pq78-é"), size=int(n))) for n in lengths]
    texts[45] = "y" * 39  # a long token in every range: 5 words
    texts[-1] = "z"  # short, last: its 40 bytes would run past the buffer
    from skirm.io._long_tokens import n_words

    for column in (token_column(texts, rng), token_column(["abcdefghij"] * 50, rng)):
        n = int(n_words(int(column.length[rows].max())))
        words = column._head_words(rows, n)
        assert words.shape == (n, len(range(50)[rows]))
        at = np.arange(50)[rows]
        for k in range(n):
            assert words[k].tolist() == column.word(k, at).tolist()
