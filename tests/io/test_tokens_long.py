"""Tokens longer than their head (128 bytes) against pure Python.

Every operation of :class:`~skirm.io._tokens.Tokens` (hash, equal,
adjacent_equal, strings, byte_rank, codes) is compared with the same
computation on Python ``bytes``, on seeded columns that vary one dimension at
a time: lengths across the word boundaries and across the head, long shared
prefixes that differ in one byte or only in length, non-ASCII bytes (UTF-8
and Latin-1), duplicates, empty and one-row columns. Each column is built as
the readers build it (offsets into a buffer where other bytes surround every
token, and a :class:`~skirm.io._text.Table` of lines) and from a str array;
the rounds of the long path run at their usual size and at a few words, so
that tokens span many rounds. Last, ``skirm eval`` on files with such docnos
prints what NIST trec_eval 10.0 prints, byte for byte.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import tracemalloc

import numpy as np
import pytest

from skirm._cli import main
from skirm.io import _long_tokens
from skirm.io._text import Table
from skirm.io._tokens import PAD, Tokens
from skirm.trec import trec_measure_names

# --------------------------------------------------------------------------
# The reference: plain Python on bytes
# --------------------------------------------------------------------------

_M64 = (1 << 64) - 1
_K0, _K1, _K2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _reference_hash(token: bytes) -> int:
    """The documented hash: the first 16 words mixed one after the other into
    the length (the hash of every token of up to 128 bytes, unchanged), then
    the sum of the further words, each mixed with its position, mixed in."""
    words = [
        int.from_bytes(token[i : i + 8], "little") for i in range(0, len(token), 8)
    ]
    h = (len(token) + 1) * _K0 & _M64
    for w in words[:16]:
        h = (h ^ w) * _K1 & _M64
        h ^= h >> 31
    if len(words) > 16:
        total = 0
        for k, w in enumerate(words[16:], 16):
            x = (w ^ (k * _K2 & _M64)) * _K1 & _M64
            x ^= x >> 31
            x = x * _K0 & _M64
            x ^= x >> 31
            total = (total + x) & _M64
        h = (h ^ total) * _K1 & _M64
        h ^= h >> 31
    return h


def _reference_rank(tokens):
    """Dense rank in Python's order of bytes."""
    distinct = sorted(set(tokens))
    where = {t: i for i, t in enumerate(distinct)}
    return [where[t] for t in tokens]


def _text(token: bytes) -> str:
    return token.decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------
# Columns, one dimension at a time
# --------------------------------------------------------------------------

_ASCII = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-_./:", np.uint8)
LENGTHS = [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 120, 127, 128, 129, 135, 136, 137]
LENGTHS += [144, 1000]


def _ascii(rng, n):
    return rng.choice(_ASCII, size=n).tobytes()


def _lengths(rng, big):
    # every length twice (equal tokens apart), and a second token of each
    lengths = [*LENGTHS, big]
    tokens = [_ascii(rng, n) for n in lengths]
    tokens += [_ascii(rng, n) for n in lengths]
    tokens += tokens[: len(lengths)]
    return [tokens[i] for i in rng.permutation(len(tokens))]


def _prefixes(rng, big):
    tokens = []
    for size in (129, 136, 137, 200, 1000, big):
        base = bytearray(_ascii(rng, size))
        variants = [bytes(base), bytes(base)]
        for at in {size - 1, 128, 127, 129, 136, 0} & set(range(size)):
            for delta in (1, -1):  # one byte differs
                other = bytearray(base)
                other[at] = (other[at] + delta - 33) % 94 + 33
                variants.append(bytes(other))
        for cut in {128, 129, 135, 136, 137, size // 2, size - 1} & set(range(size)):
            variants.append(bytes(base[:cut]))  # only the length differs
        variants += [bytes(base) + b"a", bytes(base) + b"~", bytes(base) + b"!!"]
        tokens += variants
    return [tokens[i] for i in rng.permutation(len(tokens))]


def _non_ascii(rng, big):
    tokens = []
    for char in ("é", "日", "🙂"):  # 2, 3 and 4 bytes: some straddle byte 128
        for n in (42, 43, 63, 64, 65, 250, 1000):
            tokens.append((char * n).encode())
            tokens.append(("x" + char * n).encode())
    for n in (127, 128, 129, 137, 1000, 5000):  # Latin-1: not UTF-8
        tokens.append(bytes(rng.integers(128, 256, size=n, dtype=np.uint8)))
        tokens.append(b"\xe9" * n)
        tokens.append(_ascii(rng, n - 1) + b"\xe9")
    tokens += tokens[::3]  # duplicates
    return [tokens[i] for i in rng.permutation(len(tokens))]


def _duplicates(rng, big):
    prefix = _ascii(rng, 300)
    distinct = [prefix + _ascii(rng, n) for n in (0, 1, 8, 500)] + [_ascii(rng, 3000)]
    drawn = [distinct[i] for i in rng.integers(0, len(distinct), size=60)]
    runs = [distinct[i] for i in np.repeat(rng.integers(0, len(distinct), 15), 4)]
    return drawn + runs  # runs of equal adjacent tokens, then shuffled ones


COLUMNS = {
    "lengths": _lengths,
    "prefixes": _prefixes,
    "sorted_prefixes": lambda rng, big: sorted(_prefixes(rng, big)),
    "non_ascii": _non_ascii,
    "duplicates": _duplicates,
    "empty": lambda rng, big: [],
    "one_short": lambda rng, big: [b"d1"],
    "one_long": lambda rng, big: [_ascii(rng, big)],
    "one_empty": lambda rng, big: [b""],
}


def _in_buffer(tokens, rng):
    """Offsets into one buffer that stores the tokens in another order,
    each between a few bytes of other data (none at times)."""
    n = len(tokens)
    start = np.zeros(n, dtype=np.int64)
    parts, at = [], 0
    for i in rng.permutation(n).tolist():
        gap = _ascii(rng, int(rng.integers(0, 12)))
        parts += [gap, tokens[i]]
        start[i] = at + len(gap)
        at = start[i] + len(tokens[i])
    parts.append(_ascii(rng, 5))
    buf = np.frombuffer(b"".join(parts) + bytes(PAD), dtype=np.uint8)
    length = np.array([len(t) for t in tokens], dtype=np.int64)
    return Tokens(buf, start, start + length)


def _from_lines(tokens, rng):
    """The first field of lines, as a reader's table finds it."""
    data = bytearray(b"".join(t + b" rest\n" for t in tokens)) + bytearray(PAD)
    table = Table(data, len(data) - PAD, "test", (0,))
    return table.tokens(0)


def _from_strings(tokens, rng):
    return Tokens.from_strings(np.array([_text(t) for t in tokens], dtype=str))


BUILDERS = {"buffer": _in_buffer, "lines": _from_lines, "strings": _from_strings}


@pytest.fixture(params=[None, 3, 40], ids=["block", "block3", "block40"])
def big(request, monkeypatch):
    """The length of the longest tokens of the columns: 100,000 bytes with
    the module's rounds (of about a million words), 3,000 with rounds of a
    few words (hundreds of rounds per token, at most one word per token)."""
    if request.param is None:
        return 100_000
    monkeypatch.setattr(_long_tokens, "BLOCK", request.param)
    return 3_000


def _case(column, builder, big):
    seed = [list(COLUMNS).index(column), list(BUILDERS).index(builder)]
    rng = np.random.default_rng(seed)
    tokens = COLUMNS[column](rng, big)
    if builder == "lines":  # a line has no empty field
        tokens = [t for t in tokens if t]
    return tokens, BUILDERS[builder](tokens, rng), rng


# --------------------------------------------------------------------------
# Every operation against Python
# --------------------------------------------------------------------------


@pytest.mark.parametrize("builder", BUILDERS)
@pytest.mark.parametrize("column", COLUMNS)
def test_hash_is_the_documented_one(column, builder, big):
    tokens, col, _ = _case(column, builder, big)
    assert col.hash().tolist() == [_reference_hash(t) for t in tokens]


@pytest.mark.parametrize("builder", BUILDERS)
@pytest.mark.parametrize("column", COLUMNS)
def test_strings_equal_and_adjacent_equal(column, builder, big):
    tokens, col, rng = _case(column, builder, big)
    n = len(tokens)
    texts = [_text(t) for t in tokens]
    assert col.strings().tolist() == texts
    rows = rng.integers(0, max(n, 1), size=min(n, 7))
    assert col.strings(rows).tolist() == [texts[i] for i in rows]
    assert col.strings(np.zeros(0, dtype=np.int64)).tolist() == []
    expected = [tokens[i] == tokens[i - 1] for i in range(1, n)]
    assert col.adjacent_equal().tolist() == expected
    # every pair of rows
    i, j = (a.reshape(-1) for a in np.meshgrid(np.arange(n), np.arange(n)))
    got = col.equal(i, col, j)
    assert got.tolist() == [tokens[a] == tokens[b] for a, b in zip(i, j, strict=True)]


@pytest.mark.parametrize("builder", BUILDERS)
@pytest.mark.parametrize("column", COLUMNS)
def test_byte_rank_and_codes(column, builder, big):
    tokens, col, rng = _case(column, builder, big)
    assert col.byte_rank().tolist() == _reference_rank(tokens)
    rows = rng.permutation(len(tokens))[: len(tokens) // 2 + 1][: len(tokens)]
    picked = [tokens[i] for i in rows]
    assert col.byte_rank(rows).tolist() == _reference_rank(picked)
    codes, ids = col.codes()
    texts = [_text(t) for t in tokens]
    assert ids.tolist() == sorted(set(texts))
    assert ids[codes].tolist() == texts


@pytest.mark.parametrize("column", COLUMNS)
def test_equal_across_columns_and_buffers(column, big):
    """A column against another holding the same tokens in another order,
    in another buffer, among other neighbours: the same hashes, and equal
    exactly where the bytes are."""
    rng = np.random.default_rng(7)
    tokens = COLUMNS[column](rng, big)
    extra = [_ascii(rng, n) for n in (3, 130, 2000, big + 1)]
    mine = _in_buffer(tokens, rng)
    order = rng.permutation(len(tokens) + len(extra))
    others = [(tokens + extra)[i] for i in order]
    theirs = _from_strings(others, rng)
    h_mine, h_theirs = mine.hash(), theirs.hash()
    for a in range(len(tokens)):
        for b in np.flatnonzero(order == a):
            assert h_mine[a] == h_theirs[b]
    # distinct tokens, distinct hashes (a byte anywhere in a token counts)
    assert len(set(h_theirs.tolist())) == len(set(others))
    i = np.repeat(np.arange(len(tokens)), len(others))
    j = np.tile(np.arange(len(others)), len(tokens))
    expected = [tokens[a] == others[b] for a, b in zip(i, j, strict=True)]
    assert mine.equal(i, theirs, j).tolist() == expected
    assert theirs.equal(j, mine, i).tolist() == expected


@pytest.mark.parametrize("longest", [128, 600])
def test_byte_rank_of_tokens_with_zero_bytes(longest, big):
    """Tokens equal but for trailing zero bytes (which the words read as
    padding) rank by length: a proper prefix first, as Python orders bytes;
    with tokens of at most 128 bytes and with longer ones."""
    rng = np.random.default_rng(3)
    tokens = []
    for size in (1, 7, 8, 100, 120, 127, 128, 129, 300):
        base = _ascii(rng, size)
        tokens += [base, base + b"\0", base + b"\0\0", base + b"\0" * 9]
        tokens += [base + b"\0a", base[:-1] + b"\0", base + b"\0" * 200]
    tokens += [b"", b"\0", b"\0" * 300]
    tokens = sorted(t for t in tokens if len(t) <= longest)
    col = _in_buffer(tokens, rng)
    assert col.byte_rank().tolist() == _reference_rank(tokens)
    expected = [tokens[i] == tokens[i - 1] for i in range(1, len(tokens))]
    assert col.adjacent_equal().tolist() == expected
    assert col.hash().tolist() == [_reference_hash(t) for t in tokens]


def test_docno_tie_order_by_byte_rank():
    """Tied scores rank by docno descending in byte order; docnos sharing
    200 bytes differ past the head."""
    from skirm.io import Qrels, Run
    from skirm.trec import evaluate_run

    prefix = "p" * 200
    docs = [prefix + s for s in ("b", "a", "", "ab", "c\u00e9", "c")] + ["q"]
    run = Run(["1"] * 7, docs, [1.0] * 6 + [0.5])
    for relevant in range(7):
        qrels = Qrels(["1"], [docs[relevant]], [1])
        result = evaluate_run(qrels, run, ["recip_rank"])
        descending = sorted(docs[:6], key=lambda d: d.encode(), reverse=True)
        rank = [*descending, "q"].index(docs[relevant]) + 1
        assert result.means["recip_rank"] == 1 / rank


def test_a_long_token_among_many_short_ones_stays_small():
    """One token of 1 MB among 100,000 of 20 bytes: no operation builds a
    matrix of every row by the longest token's words (which would take
    100 GB); each reads the long one in rounds."""
    rng = np.random.default_rng(5)
    n = 100_000
    texts = [f"d{i:019d}" for i in rng.permutation(n).tolist()]
    texts.insert(n // 2, "x" * 1_000_000)
    col = Tokens.from_strings(np.array(texts, dtype=object))
    rows = np.arange(n + 1)
    tracemalloc.start()
    try:
        col.hash()
        same = col.equal(rows, col, rows)
        adjacent = col.adjacent_equal()
        rank = col.byte_rank()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert same.all() and not adjacent.any()
    assert rank[n // 2] == n  # "x..." after every "d..."
    assert peak < 150 * 2**20, peak


# --------------------------------------------------------------------------
# skirm eval and trec_eval 10.0 on files with long docnos
# --------------------------------------------------------------------------


def _long_docno_files(seed, duplicate=False):
    """qrels and run bytes: docnos of 120 to 5,000 bytes, many sharing a
    200-byte prefix or differing only in length or in their last byte,
    some non-ASCII; scores with one decimal, so docnos break many ties."""
    rng = np.random.default_rng([11, seed])
    prefix = _ascii(rng, 200)
    pool = []
    for n in (120, 127, 128, 129, 136, 137, 300, 1000, 5000):
        token = _ascii(rng, n)
        pool += [token, token + b"z", token[:-1] + b"A"]
        pool += [prefix + token[: n // 3], prefix + token[: n // 3] + b"0"]
    pool += ["é日🙂".encode() * 60, b"\xe9" * 150, prefix + b"\xe9\xe8"]
    pool = list(dict.fromkeys(pool))
    run, qrels = [], []
    for q in range(4):
        picked = rng.choice(len(pool), size=30, replace=False)
        scores = np.round(rng.random(30), 1)
        for rank, (i, s) in enumerate(
            zip(picked.tolist(), scores.tolist(), strict=True)
        ):
            run.append(b"q%d Q0 %s %d %.1f r\n" % (q, pool[i], rank + 1, s))
        for i in rng.choice(len(pool), size=25, replace=False).tolist():
            qrels.append(b"q%d 0 %s %d\n" % (q, pool[i], rng.integers(0, 3)))
    if duplicate:  # a long docno twice in one query: both tools stop
        run.append(run[0].replace(b" 1 ", b" 99 ", 1))
    return b"".join(qrels), b"".join(run)


def _skirm(args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(["eval", "--format", "trec", *args])
    return status, out.getvalue().encode("utf-8")


def _supported(stdout):
    """trec_eval's lines of the measures skirm implements."""
    names = set(trec_measure_names())
    keep = []
    for line in stdout.split(b"\n"):
        name = line.split(b"\t")[0].rstrip().decode()
        if line and (name in names or name.rpartition("_")[0] in names):
            keep.append(line)
    return b"\n".join(keep) + b"\n"


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("flags", [[], ["-c"], ["-J"]], ids=["default", "c", "J"])
def test_long_docnos_as_trec_eval(seed, flags, trec_eval_binary, tmp_path):
    qrels_bytes, run_bytes = _long_docno_files(seed)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(qrels_bytes)
    run.write_bytes(run_bytes)
    args = ["-q", "-m", "all_trec", *flags, str(qrels), str(run)]
    done = subprocess.run([trec_eval_binary, *args], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    expected = _supported(done.stdout)
    assert expected.count(b"\n") > 100
    assert _skirm(args) == (0, expected)


@pytest.mark.oracle
def test_a_duplicate_long_docno_stops_both(trec_eval_binary, tmp_path):
    qrels_bytes, run_bytes = _long_docno_files(0, duplicate=True)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(qrels_bytes)
    run.write_bytes(run_bytes)
    args = ["-q", "-m", "map", str(qrels), str(run)]
    done = subprocess.run([trec_eval_binary, *args], capture_output=True, check=False)
    assert done.returncode != 0
    assert _skirm(args)[0] == done.returncode
