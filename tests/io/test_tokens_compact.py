"""Compact token columns: the word-wise copy of ``Tokens.compact``, query
columns held as codes (``CodedTokens``) and qrels files read block by block
into them."""

import gzip
import io
import re

import numpy as np
import pytest

_ALPHABET = np.array(list("abcdefghij-_.#é"))


def _texts(rng, n, lengths=(0, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 136, 300)):
    sizes = np.concatenate((lengths, rng.integers(0, 40, n)))
    rng.shuffle(sizes)
    return ["".join(rng.choice(_ALPHABET, size=int(k))) for k in sizes]


@pytest.mark.parametrize("rows", [1, 3, 1 << 18])
@pytest.mark.parametrize("block", [1, 5, 1 << 20])
def test_compact_copies_every_byte_and_nothing_else(
    monkeypatch, rows, block, token_column
):
    """The word-wise copy gives each token's bytes back, contiguous, with
    only zero bytes after the last one, whatever the range of rows copied at
    a time and the round size of long tokens' tails."""
    import skirm.io._long_tokens
    import skirm.io._tokens
    from skirm.io._tokens import PAD

    rng = np.random.default_rng(rows + block)
    texts = _texts(rng, 80)
    column = token_column(texts, rng)
    monkeypatch.setattr(skirm.io._tokens, "HASH_ROWS", rows)
    monkeypatch.setattr(skirm.io._long_tokens, "BLOCK", block)
    out = column.compact()
    expected = b"".join(t.encode() for t in texts)
    assert out.buf.tobytes() == expected + b"\0" * PAD
    assert out.strings().tolist() == texts
    assert (
        out.start.tolist()
        == np.cumsum([0] + [len(t.encode()) for t in texts])[:-1].tolist()
    )


def test_compact_of_an_empty_column():
    from skirm.io._tokens import PAD, Tokens

    out = Tokens.from_strings(np.array([], dtype=str)).compact()
    assert len(out) == 0 and out.buf.tobytes() == b"\0" * PAD


def _coded(rng, n_rows=200):
    from skirm.io._coded_tokens import CodedTokens
    from skirm.io._tokens import Tokens

    ids = np.array(sorted(set(_texts(rng, 30))))
    codes = np.sort(rng.integers(0, ids.shape[0], n_rows)).astype(np.int32)
    codes[rng.random(n_rows) < 0.1] = rng.integers(0, ids.shape[0])  # unsorted
    return CodedTokens(codes, ids), Tokens.from_strings(ids[codes]), codes, ids


def test_coded_tokens_behave_as_the_tokens_they_code():
    """Every operation of a coded column equals that of the same strings
    held as plain tokens."""
    rng = np.random.default_rng(7)
    coded, plain, codes, ids = _coded(rng)
    rows = rng.integers(0, len(plain), 50)
    other = rng.integers(0, len(plain), 50)
    assert len(coded) == len(plain)
    assert coded.strings().tolist() == plain.strings().tolist()
    assert coded.strings(rows).tolist() == plain.strings(rows).tolist()
    assert coded.hash(cache=False).tolist() == plain.hash().tolist()
    assert coded._hash is None and coded.hash() is coded.hash()
    assert coded.run_starts().tolist() == plain.run_starts().tolist()
    assert coded.adjacent_equal().tolist() == plain.adjacent_equal().tolist()
    assert coded.byte_rank().tolist() == plain.byte_rank().tolist()
    assert (
        coded.equal(rows, plain, other).tolist()
        == plain.equal(rows, plain, other).tolist()
    )
    assert coded.length.tolist() == plain.length.tolist()
    assert coded.n_words == plain.n_words
    for k in range(plain.n_words):
        assert coded.word(k).tolist() == plain.word(k).tolist()
    got_codes, got_ids = coded.codes()
    want_codes, want_ids = plain.codes()
    assert got_ids.tolist() == want_ids.tolist() == ids.tolist()
    assert got_codes.tolist() == want_codes.tolist() == codes.tolist()
    taken = coded.take(rows)
    assert taken.strings().tolist() == plain.strings(rows).tolist()
    assert taken.codes()[0].tolist() == codes[rows].tolist()
    assert coded.compact().strings().tolist() == plain.strings().tolist()


def _qrels_text(rng, n=400):
    """Qrels lines with comments, blank lines, CR LF ends, long and
    non-ASCII docnos and queries out of order."""
    lines = []
    for i in range(n):
        q = f"q{int(rng.integers(0, 12))}" if i % 7 else f"t{i % 3}"
        d = "".join(rng.choice(_ALPHABET, size=int(rng.choice([1, 8, 20, 140]))))
        lines.append(f"{q} 0 {d} {int(rng.integers(-1, 4))}")
        if i % 50 == 3:
            lines.append("# a comment")
        if i % 60 == 5:
            lines.append("")
        if i % 70 == 9:
            lines[-1] += "\r"
    return "\n".join(lines) + "\n"


def _parsed(text):
    """Query, docno, label and 0-based line of each data line, by Python."""
    rows = []
    for i, line in enumerate(text.split("\n")):
        fields = line.split()
        if fields and not line.startswith("#"):
            rows.append((fields[0], fields[2], int(fields[3]), i))
    return [list(column) for column in zip(*rows, strict=True)]


def _assert_rows_parsed(qrels, text):
    """The rows of ``qrels`` (query, docno, label, line) equal a
    line-by-line parse of ``text``; returns that parse."""
    queries, docs, labels, lines = parsed = _parsed(text)
    assert qrels.query_ids.tolist() == queries
    assert qrels.doc_ids.tolist() == docs
    assert qrels.labels.tolist() == labels
    assert qrels._lines.tolist() == lines
    return parsed


@pytest.mark.parametrize("block", [7, 64, 1000, 1 << 24])
def test_qrels_read_by_blocks_equal_a_line_by_line_parse(monkeypatch, block):
    """Any block size (smaller than a line: the block grows) gives the rows
    of a line-by-line parse, the docnos compacted and the queries coded."""
    import skirm.io._qrels_file
    from skirm.io import read_qrels
    from skirm.io._coded_tokens import CodedTokens
    from skirm.io._tokens import PAD

    rng = np.random.default_rng(block)
    text = _qrels_text(rng)
    monkeypatch.setattr(skirm.io._qrels_file, "QRELS_BLOCK_BYTES", block)
    qrels = read_qrels(io.StringIO(text))
    queries, docs, _, _ = _assert_rows_parsed(qrels, text)
    assert qrels.labels.dtype == np.int64
    assert isinstance(qrels._q, CodedTokens)
    assert qrels._q.codes()[1].tolist() == sorted(set(queries))
    assert qrels._d.buf.tobytes() == "".join(docs).encode() + b"\0" * PAD
    assert {qrels._d.start.dtype, qrels._q.codes()[0].dtype, qrels._lines.dtype} == {
        np.dtype(np.int32)
    }


@pytest.mark.parametrize("in_place", [0, 1 << 22])
def test_a_small_qrels_file_keeps_its_docnos_where_read(
    monkeypatch, tmp_path, in_place
):
    """A file read in one small block keeps its docnos in its bytes (no copy);
    above the limit they are compacted: the same rows either way."""
    import skirm.io._qrels_file
    from skirm.io import read_qrels
    from skirm.io._tokens import PAD

    rng = np.random.default_rng(5)
    text = _qrels_text(rng)
    path = tmp_path / "small.qrels"
    path.write_bytes(text.encode())
    monkeypatch.setattr(skirm.io._qrels_file, "IN_PLACE_BYTES", in_place)
    qrels = read_qrels(path)
    _, docs, _, _ = _assert_rows_parsed(qrels, text)
    compact = "".join(docs).encode() + b"\0" * PAD
    kept = text.encode() + b"\0" * (PAD + 1)  # the block: the size + 1, padded
    assert qrels._d.buf.tobytes() == (kept if in_place else compact)


@pytest.mark.parametrize("limit", [0, 8, 300, 1 << 31])
def test_qrels_columns_widen_to_int64_when_the_offsets_need_it(monkeypatch, limit):
    """With a lower int32 limit the columns start int32 and widen on the
    block that passes it (or are int64 from the start): the same rows."""
    import skirm.io._keys
    import skirm.io._qrels_file
    import skirm.io._tokens
    from skirm.io import read_qrels

    rng = np.random.default_rng(5)
    text = _qrels_text(rng, 300)
    monkeypatch.setattr(skirm.io._qrels_file, "QRELS_BLOCK_BYTES", 256)
    monkeypatch.setattr(skirm.io._keys, "INT32_LIMIT", limit)
    qrels = read_qrels(io.StringIO(text))
    queries, _, _, _ = _assert_rows_parsed(qrels, text)
    wide = np.dtype(np.int32 if limit > len(text) else np.int64)
    assert qrels._d.start.dtype == qrels._lines.dtype == wide
    # the query codes widen once the ids of the blocks (at least the file's
    # distinct ids, at most its rows) reach the limit
    codes = qrels._q.codes()[0]
    if limit <= len(set(queries)):
        assert codes.dtype == np.int64
    elif limit > len(queries):
        assert codes.dtype == np.int32


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("q9 0 d", "too few fields (3)"),
        ("q9 0 d 1 2 3", "too many fields (6) (did you swap QRELS and RUN?)"),
        ("q9 0 d x", "expected an integer relevance label"),
    ],
)
def test_a_bad_line_in_a_later_block_is_reported_at_its_file_line(
    monkeypatch, tmp_path, line, message
):
    import skirm.io._qrels_file
    from skirm.io import read_qrels

    lines = [f"q{i % 5} 0 d{i} 1" for i in range(300)]
    lines.insert(250, line)
    path = tmp_path / "qrels.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("\n".join(lines) + "\n")
    monkeypatch.setattr(skirm.io._qrels_file, "QRELS_BLOCK_BYTES", 100)
    with pytest.raises(ValueError, match=re.escape(f"qrels.gz:251: {message}")):
        read_qrels(path)


def test_a_bad_line_is_reported_from_the_first_block_that_holds_one(
    monkeypatch, tmp_path
):
    """Each block is checked before the next one is read: a bad label in
    an early block is reported, not a line of too few fields further on
    (which a single block would report first: the field counts of a block
    are checked before its labels)."""
    import skirm.io._qrels_file
    from skirm.io import read_qrels

    lines = [f"q{i % 5} 0 d{i} 1" for i in range(300)]
    lines[2] = "q1 0 d2 high"
    lines[250] = "q1 0 d250"
    path = tmp_path / "qrels"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(skirm.io._qrels_file, "QRELS_BLOCK_BYTES", 100)
    message = "qrels:3: expected an integer relevance label"
    with pytest.raises(ValueError, match=re.escape(message)):
        read_qrels(path)
    monkeypatch.setattr(skirm.io._qrels_file, "QRELS_BLOCK_BYTES", 1 << 24)
    with pytest.raises(ValueError, match=re.escape("qrels:251: too few fields")):
        read_qrels(path)


def test_an_empty_qrels_file_reads_as_no_rows(tmp_path):
    from skirm.io import read_qrels

    path = tmp_path / "qrels"
    path.write_text("# nothing\n\n")
    qrels = read_qrels(path)
    assert len(qrels) == 0
    assert qrels.query_ids.tolist() == qrels.doc_ids.tolist() == []
    assert qrels.query_ids.dtype.kind == qrels.doc_ids.dtype.kind == "U"
    assert qrels._q.codes()[1].tolist() == []  # no query id, not even ""


def test_a_run_against_an_empty_qrels_file_is_refused_for_its_empty_qrels(tmp_path):
    from skirm.io import read_qrels, read_run
    from skirm.trec import evaluate_run

    path = tmp_path / "qrels"
    path.write_text("# nothing\n")
    run = read_run(io.StringIO("q1 Q0 d1 1 1.0 r\n"))
    with pytest.raises(ValueError, match="the qrels hold no judgment"):
        evaluate_run(read_qrels(path), run, ["map"])


@pytest.mark.parametrize("block", [64, 1000])
@pytest.mark.parametrize("shape", ["even", "short first", "long first"])
def test_qrels_columns_reserved_from_the_first_block_hold_every_row(
    monkeypatch, tmp_path, block, shape
):
    """A path's columns get room for the whole file from its first block
    (too much when its first lines are long, too little when they are
    short: the columns then grow); the rows are those of the file, and no
    column keeps room it does not use."""
    import skirm.io._columns
    import skirm.io._qrels_file
    from skirm.io import read_qrels

    rng = np.random.default_rng(len(shape) + block)
    text = _qrels_text(rng, 300)
    lines = text.split("\n")
    if shape != "even":
        short = [f"q{i % 3} 0 d{i} 1" for i in range(40)]
        long = [f"q{i % 3} 0 {'x' * 150}{i} 1" for i in range(40)]
        lines = (short + long if shape == "short first" else long + short) + lines
    text = "\n".join(lines)
    path = tmp_path / "qrels"
    path.write_text(text)
    reserved = []
    reserve = skirm.io._columns.Column.reserve

    def spy(self, size):
        reserved.append(size)
        return reserve(self, size)

    monkeypatch.setattr(skirm.io._columns.Column, "reserve", spy)
    monkeypatch.setattr(skirm.io._qrels_file, "QRELS_BLOCK_BYTES", block)
    qrels = read_qrels(path)
    _, docs, labels, _ = _assert_rows_parsed(qrels, text)
    assert len(reserved) == 5  # codes, labels, lines, docno offsets and bytes
    assert qrels._d.buf.shape[0] == len("".join(docs).encode()) + 16
    assert qrels.labels.shape[0] == len(labels)


@pytest.mark.parametrize(
    "texts",
    [
        ["abc"] * 5,
        [
            "clueweb09-en0002",
            "clueweb09-en0001",
            "clueweb09-en0003",
            "clueweb09-en0001",
        ],
        ["same-first-word-a", "same-first-word-b", "same-first-word", "same-first-wor"],
        ["a\0", "a", "a\0\0", "b", "a"],
        ["x"],
    ],
)
def test_byte_rank_skips_keys_equal_on_every_row(texts):
    """Words (and lengths) equal on every row order nothing: the dense rank
    is the rank of the byte strings, all zeros for equal tokens."""
    from skirm.io._tokens import Tokens

    column = Tokens.from_strings(np.array(texts, dtype=object))
    raw = [t.encode() for t in texts]
    distinct = sorted(set(raw))
    expected = [distinct.index(t) for t in raw]
    assert column.byte_rank().tolist() == expected
    rows = np.arange(len(texts))[::-1]
    assert column.byte_rank(rows).tolist() == expected[::-1]


@pytest.mark.parametrize("rows", [1, 4, 1 << 18])
@pytest.mark.parametrize("widths", [(20,), (0,), (9, 9, 9, 3), (1, 140)])
def test_compact_of_ranges_of_one_width_copies_each_token(
    monkeypatch, rows, widths, token_column
):
    """Ranges of rows whose tokens share a length are copied as fixed-size
    items; ranges of several lengths a word at a time: the same bytes."""
    import skirm.io._tokens
    from skirm.io._tokens import PAD

    rng = np.random.default_rng(rows + sum(widths))
    sizes = np.repeat(widths, 8)  # runs of one width, then another
    texts = ["".join(rng.choice(_ALPHABET[:10], size=int(k))) for k in sizes]
    column = token_column(texts, rng)
    monkeypatch.setattr(skirm.io._tokens, "HASH_ROWS", rows)
    out = column.compact()
    assert out.buf.tobytes() == "".join(texts).encode() + b"\0" * PAD
    assert out.strings().tolist() == texts


@pytest.mark.parametrize("extra", [-1, 0, 1, 16, 17])
def test_token_column_holds_the_tokens_appended_in_offsets_of_their_buffer(
    monkeypatch, extra, token_column
):
    """Groups of tokens appended (an empty group among them) read back as
    the same strings, their bytes contiguous in one buffer; the offsets are
    int32 exactly when that buffer (its bytes and the padding) is smaller
    than the int32 limit (``offset_dtype``), whether the limit is passed by
    the first group or a later one."""
    import skirm.io._keys
    import skirm.io._tokens
    from skirm.io._columns import TokenColumn
    from skirm.io._tokens import PAD

    rng = np.random.default_rng(11)
    groups = [_texts(rng, 5, lengths=(1, 9)), [], _texts(rng, 40)]
    texts = [t for group in groups for t in group]
    total = len("".join(texts).encode())
    first = len("".join(groups[0]).encode())
    for limit in (total + PAD + extra, first + PAD + extra):
        monkeypatch.setattr(skirm.io._keys, "INT32_LIMIT", limit)
        column = TokenColumn()
        assert len(column) == 0
        for group in groups:
            column.append(token_column(group, rng))
        assert len(column) == len(texts)
        out = column.finish()
        assert out.strings().tolist() == texts
        assert out.buf.tobytes() == "".join(texts).encode() + b"\0" * PAD
        wide = total + PAD >= limit
        assert out.start.dtype == out.end.dtype == (np.int64 if wide else np.int32)


def test_integer_labels_are_read_exactly_past_the_float_precision():
    """Integer labels are parsed in int64: those of more digits than the
    fast path takes (parsed by Python into the same array) keep every
    digit, past 2**53 where float64 would round them."""
    from skirm.io import read_qrels
    from skirm.io._decimals import parse_decimals
    from skirm.io._tokens import Tokens

    labels = [12345678901234567, -9007199254740993, 3, -0, 2**62 + 1]
    text = "".join(f"q1 0 d{i} {label}\n" for i, label in enumerate(labels))
    qrels = read_qrels(io.StringIO(text))
    assert qrels.labels.tolist() == labels
    texts = ["123456789012345", "-42", "7", "+5"]
    values, ok = parse_decimals(Tokens.from_strings(np.array(texts)), integer=True)
    assert ok.all() and values.dtype == np.int64
    assert values.tolist() == [int(t) for t in texts]


@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_compact_offsets_are_int32_exactly_while_the_buffer_fits(
    monkeypatch, extra, token_column
):
    """A compacted column of int32 offsets keeps them int32 exactly while
    its buffer (its bytes and the padding) is below the int32 limit."""
    import skirm.io._keys
    import skirm.io._tokens
    from skirm.io._tokens import PAD, Tokens

    rng = np.random.default_rng(3)
    texts = _texts(rng, 30)
    column = token_column(texts, rng)
    column = Tokens(
        column.buf, column.start.astype(np.int32), column.end.astype(np.int32)
    )
    total = len("".join(texts).encode())
    monkeypatch.setattr(skirm.io._keys, "INT32_LIMIT", total + PAD + extra)
    out = column.compact()
    assert out.strings().tolist() == texts
    wide = extra <= 0
    assert out.start.dtype == out.end.dtype == (np.int64 if wide else np.int32)


def test_a_word_past_the_end_of_every_token_is_zero():
    """Word ``k`` is zero past a token's end, also when every token of the
    column (of one length) ends before it and other bytes follow them."""
    from skirm.io._tokens import PAD, Tokens

    data = b"abc" + b"\xff" * 20 + b"def" + b"\xfe" * 20 + b"\0" * PAD
    buf = np.frombuffer(data, dtype=np.uint8)
    column = Tokens(buf, np.array([0, 23]), np.array([3, 26]))
    assert column.word(0).tolist() == [
        int.from_bytes(b"abc", "little"),
        int.from_bytes(b"def", "little"),
    ]
    for k in (1, 2):
        assert column.word(k).tolist() == [0, 0]
        assert column.word(k, np.array([1])).tolist() == [0]
