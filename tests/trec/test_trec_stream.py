"""The streamed TREC path: a run file read block by block gives exactly the
numbers of the run read whole, and agrees with pytrec_eval on mixed docnos."""

import gzip
import io

import numpy as np
import pytest

import skirm.io._run_blocks as trec_io
from skirm.io import Qrels, Run, read_qrels, read_run
from skirm.io._tokens import Tokens
from skirm.trec import evaluate_run

MEASURES8 = ["map", "ndcg", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"]
MEASURES8 += ["bpref", "Rprec"]


def _mixed_docnos(rng, n):
    """Docnos of the four real-world shapes (TREC disks, ClueWeb, MS MARCO
    segments, integers): widths from 1 to 45 bytes, '#' inside some."""
    kind = rng.integers(0, 4, size=n)
    a = rng.integers(0, 10**9, size=n)
    b = rng.integers(0, 10**4, size=n)
    out = []
    for s, x, y in zip(kind.tolist(), a.tolist(), b.tolist(), strict=True):
        if s == 0:
            out.append(f"{('FT9', 'LA0', 'WSJ8')[x % 3]}{x % 100000:05d}-{y:04d}")
        elif s == 1:
            out.append(f"clueweb09-en{y:04d}-{x % 100:02d}-{x % 100000:05d}")
        elif s == 2:
            out.append(f"msmarco_v2.1_doc_{y % 60:02d}_{x}#{y % 40}_{x + y}")
        else:
            out.append(str(x % 10 ** (1 + y % 9)))
    return out


def _write_mixed(folder, seed, n_queries=40, grouped=True):
    """A run (ties in score, queries of 1 to 300 rows, some not in the qrels)
    and qrels (judged retrieved docs, missed docs, negative labels)."""
    rng = np.random.default_rng(seed)
    run_lines, qrels_lines = [], []
    for q in range(n_queries):
        qid = str(rng.integers(1, 10**6))
        n = int(rng.integers(1, 300))
        docs = list(dict.fromkeys(_mixed_docnos(rng, n + 20)))
        retrieved, missed = docs[:n], docs[n:]
        scores = np.round(rng.gamma(2.0, 2.0, len(retrieved)), 1)  # many ties
        run_lines += [
            f"{qid} Q0 {d} {r} {s} tag{seed}\n"
            for r, (d, s) in enumerate(zip(retrieved, scores.tolist(), strict=True))
        ]
        if q % 7 == 3:
            continue  # a query of the run missing from the qrels
        judged = [d for d in retrieved if rng.random() < 0.3] + missed
        labels = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        qrels_lines += [
            f"{qid} 0 {d} {label}\n"
            for d, label in zip(judged, labels.tolist(), strict=True)
        ]
    if not grouped:
        run_lines = [run_lines[i] for i in rng.permutation(len(run_lines))]
    run, qrels = folder / f"mixed{seed}.run", folder / f"mixed{seed}.qrels"
    run.write_text("".join(run_lines))
    qrels.write_text("".join(qrels_lines))
    return qrels, run


@pytest.mark.parametrize("block_bytes", [64, 1000, 1 << 16])
@pytest.mark.parametrize(
    ("qrels_name", "run_name", "options"),
    [
        ("qrels.test", "results.test", {}),
        ("qrels.test", "results.trunc", {"all_queries": True, "max_docs": 100}),
        ("qrels.rel_level", "results.test", {"relevance_level": 2}),
        ("qrels.test", "results.test", {"judged_only": True}),
    ],
)
def test_streamed_equals_read_whole(
    shared_data, monkeypatch, block_bytes, qrels_name, run_name, options, assert_same
):
    """Whatever the block size (queries of more than 64 bytes are read on
    block after block)."""
    folder = shared_data / "trec_eval-v9.0.8-test"
    qrels = read_qrels(folder / qrels_name)
    whole = evaluate_run(qrels, read_run(folder / run_name), "all_trec", **options)
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", block_bytes)
    streamed = evaluate_run(qrels, folder / run_name, "all_trec", **options)
    assert_same(streamed, whole)


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mixed_docno_shapes_match_pytrec_eval(tmp_path, monkeypatch, seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = _write_mixed(tmp_path, seed)
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 4096)
    got = evaluate_run(qrels_path, run_path, MEASURES8)
    qrels, run = {}, {}
    for line in qrels_path.read_text().splitlines():
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
    for line in run_path.read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES8)).evaluate(run)
    assert sorted(ref) == got.group_ids.tolist()
    for name in got.per_query:
        key = name.replace(".", "_")
        theirs = [ref[q][key] for q in got.group_ids.tolist()]
        np.testing.assert_allclose(got.per_query[name], theirs, rtol=0, atol=1e-12)


def test_ungrouped_run_is_read_in_parts(tmp_path, monkeypatch, assert_same):
    qrels_path, run_path = _write_mixed(tmp_path, 3, grouped=False)
    whole = evaluate_run(qrels_path, read_run(run_path), MEASURES8)
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 4096)
    assert_same(evaluate_run(qrels_path, run_path, MEASURES8), whole)  # one part
    monkeypatch.setattr(trec_io, "PART_BYTES", 20_000)
    monkeypatch.setattr(trec_io, "PART_BLOCK_ROWS", 500)  # several per part
    n_parts = -(-run_path.stat().st_size // 20_000)
    with pytest.warns(UserWarning, match=rf"appears again .* in {n_parts} passes"):
        assert_same(evaluate_run(qrels_path, run_path, MEASURES8), whole)


@pytest.mark.parametrize("max_queries", [1, 2, 5])
def test_parts_of_an_ungrouped_run_cut_by_queries(
    tmp_path, monkeypatch, assert_same, max_queries
):
    """A part read by query hash, put together by query, then cut in blocks
    of a few queries: each block is given its own queries' codes."""
    import skirm.trec._inputs as inputs

    qrels_path, run_path = _write_mixed(tmp_path, 5, grouped=False)
    whole = evaluate_run(qrels_path, read_run(run_path), MEASURES8)
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 4096)
    monkeypatch.setattr(trec_io, "PART_BLOCK_ROWS", 300)
    monkeypatch.setattr(inputs, "MAX_BLOCK_QUERIES", max_queries)
    blocks = list(inputs._cut(trec_io.iter_run_parts(run_path, 1)))
    assert len(blocks) > 2
    assert max(len(b._query_codes()[1]) for b in blocks) <= max_queries
    for block in blocks:
        fresh = Run(block.query_ids, block.doc_ids, block.scores)
        for got, want in zip(block._query_codes(), fresh._query_codes(), strict=True):
            np.testing.assert_array_equal(got, want)
    assert_same(evaluate_run(qrels_path, run_path, MEASURES8), whole)


def test_run_not_grouped_names_the_line(tmp_path, monkeypatch):
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 64)
    lines = [f"q{i // 3} Q0 d{i} 1 {i} r\n" for i in range(30)]
    lines.append("q2 Q0 dx 1 0 r\n")
    path = tmp_path / "run"
    path.write_text("".join(lines))
    with pytest.raises(trec_io.RunNotGroupedError, match=r"run:31: query 'q2' appears"):
        list(trec_io.iter_run_blocks(path))


def test_stream_errors_name_the_file_line(tmp_path, monkeypatch):
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 128)
    lines = ["# comment\n", "\n"] + [f"7 Q0 d{i} {i} {i / 4} r\n" for i in range(60)]
    qrels = Qrels(["7"], ["d1"], [1])
    path = tmp_path / "run"
    path.write_text("".join([*lines, "8 Q0 d1 1 x r\n"]))
    with pytest.raises(ValueError, match=r"run:63: expected a numeric score"):
        evaluate_run(qrels, path, ["map"])
    path.write_text("".join([*lines, "7 Q0 d5 1 0 r\n", "8 Q0 d1 1 0 r\n"]))
    duplicate = r"run:63: duplicate docno 'd5' for query '7' \(first at line 8\)"
    with pytest.raises(ValueError, match=duplicate):
        evaluate_run(qrels, path, ["map"])


def test_gzip_and_open_files_stream_alike(tmp_path, monkeypatch, assert_same):
    qrels_path, run_path = _write_mixed(tmp_path, 4)
    whole = evaluate_run(qrels_path, read_run(run_path), MEASURES8)
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(run_path.read_bytes()))
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 3000)
    assert_same(evaluate_run(qrels_path, gz, MEASURES8), whole)
    with open(run_path, "rb") as fh:
        assert_same(evaluate_run(qrels_path, fh, MEASURES8), whole)
    text = io.StringIO(run_path.read_text())
    assert_same(evaluate_run(qrels_path, text, MEASURES8), whole)


def test_in_memory_records_equal_files(tmp_path, assert_same):
    qrels_path, run_path = _write_mixed(tmp_path, 5)
    from_files = evaluate_run(qrels_path, run_path, MEASURES8)
    q, r = read_qrels(qrels_path), read_run(run_path)
    qrels = Qrels(q.query_ids, q.doc_ids, q.labels)
    run = Run(r.query_ids, r.doc_ids, r.scores, run_id=r.run_id)
    assert_same(evaluate_run(qrels, run, MEASURES8), from_files)
    # object arrays and non-ASCII ids take the general conversion
    qrels = Qrels(q.query_ids.astype(object), q.doc_ids.astype(object), q.labels)
    assert_same(evaluate_run(qrels, run, MEASURES8), from_files)


def test_token_hash_depends_on_the_token_alone():
    words = ["d1", "clueweb09-en0000-00-00000", "d1é", "", "FT911-1234"]
    alone = [Tokens.from_strings(np.array([w])).hash()[0] for w in words]
    together = Tokens.from_strings(np.array(words)).hash()
    assert together.tolist() == alone
    assert len(set(alone)) == len(words)
    short = Tokens.from_strings(np.array(["d1", "x"]))
    assert short.hash()[0] == together[0]
    assert Tokens.concat([short, Tokens.from_strings(np.array(words))]).strings(
        np.array([0, 3, 4])
    ).tolist() == ["d1", "clueweb09-en0000-00-00000", "d1é"]


def _stream(source, block_bytes):
    """Every row of the blocks of ``source``: (query, docno, score, line)."""
    rows = []
    for block in trec_io.iter_run_blocks(source, block_bytes=block_bytes):
        rows += zip(
            block._q.strings().tolist(),
            block._d.strings().tolist(),
            block.scores.tolist(),
            block._lines.tolist(),
            strict=True,
        )
    return rows


@pytest.mark.parametrize("block_bytes", [8, 40, 1 << 16])
def test_open_files_stream_as_their_path_does(tmp_path, block_bytes):
    """Binary and text files (whose characters take up to four bytes) read
    a few bytes at a time give the rows of the path, on their lines."""
    lines = [f"q{i // 5} Q0 dé{i}{'😀' * 40} {i} {-i / 4} run\n" for i in range(30)]
    text = "# a comment\n" + "".join(lines[:12]) + "\n" + "".join(lines[12:])
    path = tmp_path / "run"
    path.write_bytes(text.encode())
    expected = _stream(path, 1 << 16)
    assert [row[:3] for row in expected] == [
        (f"q{i // 5}", f"dé{i}{'😀' * 40}", -i / 4) for i in range(30)
    ]
    assert [row[3] for row in expected] == [*range(1, 13), *range(14, 32)]
    assert _stream(path, block_bytes) == expected
    with open(path, "rb") as fh:
        assert _stream(fh, block_bytes) == expected
    assert _stream(io.BytesIO(text.encode()), block_bytes) == expected
    assert _stream(io.StringIO(text), block_bytes) == expected
    # an object with nothing but ``read`` (no ``readinto``, not an io class)
    assert _stream(_OnlyRead(io.StringIO(text)), block_bytes) == expected
    assert _stream(_OnlyRead(io.BytesIO(text.encode())), block_bytes) == expected


class _OnlyRead:
    """A file-like object with a ``read`` method only."""

    def __init__(self, fh):
        self.read = fh.read


def test_the_bytes_read_are_told_for_a_path_only(tmp_path):
    path = tmp_path / "run"
    path.write_text("".join(f"q{i} Q0 d 1 1 r\n" for i in range(50)))
    told = []
    for _ in trec_io.iter_run_blocks(path, 64, on_read=lambda *a: told.append(a)):
        pass
    size = path.stat().st_size
    assert told[-1] == (size, size)
    assert all(total == size and 0 < done <= size for done, total in told)
    told.clear()
    with open(path, "rb") as fh:
        for _ in trec_io.iter_run_blocks(fh, 64, on_read=lambda *a: told.append(a)):
            pass
    assert told and set(told) == {(None, None)}


def test_a_file_that_grows_after_it_is_opened_is_read_whole(tmp_path):
    from skirm.io._text import Source

    path = tmp_path / "run"
    path.write_bytes(b"q Q0 a 1 1 r\n")
    src = Source(path)
    with open(path, "ab") as fh:
        fh.write(b"q Q0 b 2 0 r\n")
    data, n = src.read_all()
    src.close()
    assert bytes(data[:n]) == b"q Q0 a 1 1 r\nq Q0 b 2 0 r\n"
    assert not any(data[n:]) and len(data) - n >= 8


@pytest.mark.parametrize("stream", [False, True])
def test_a_truncated_gzip_file_names_the_decoder_error(tmp_path, stream):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"q Q0 a 1 1 r\n" * 2000)[:-20])
    message = (
        r"run\.gz: the gzip stream is truncated or corrupt \(Compressed file "
        r"ended before the end-of-stream marker was reached\)"
    )
    with pytest.raises(ValueError, match=message):
        if stream:
            list(trec_io.iter_run_blocks(path, 256))
        else:
            read_run(path)


def test_a_query_larger_than_the_block_is_read_on_in_blocks_of_that_size(
    tmp_path, monkeypatch
):
    """A query that fills the block is read on a block at a time, its rows
    kept compact (docno bytes, the query as a code), and is one block of its
    own, whatever the source (a gzip file, whose size is not known, too);
    only a line longer than the block makes the block grow."""
    from skirm.io._coded_tokens import CodedTokens
    from skirm.io._run_blocks import LineBlocks, iter_run_blocks
    from skirm.io._tokens import PAD

    text = "".join(f"q Q0 d{i} {i + 1} {-i} r{i}\n" for i in range(3000))
    path = tmp_path / "one.run"
    path.write_text(text)
    packed = tmp_path / "one.run.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    sizes = []
    read = LineBlocks.read

    def spy(self):
        data, end = read(self)
        sizes.append(len(data))
        return data, end

    monkeypatch.setattr(LineBlocks, "read", spy)
    for source in (path, packed):
        sizes.clear()
        (block,) = iter_run_blocks(source, block_bytes=1000)
        docs = [f"d{i}" for i in range(3000)]
        assert block._d.strings().tolist() == docs
        assert block._d.buf.tobytes() == "".join(docs).encode() + b"\0" * PAD
        assert isinstance(block._q, CodedTokens)
        assert block._query_codes()[1].tolist() == ["q"]
        assert block._q.strings().tolist() == ["q"] * 3000
        assert block.scores.tolist() == [-float(i) for i in range(3000)]
        assert block._lines.tolist() == list(range(3000))
        assert block.run_id == "r2999"
        assert len(sizes) > 50 and max(sizes) < 1000 + 40 + PAD


@pytest.mark.parametrize("block_bytes", [60, 100, 333, 1000])
@pytest.mark.parametrize("seed", [0, 1])
def test_long_queries_among_short_ones_stream_as_read_whole(
    tmp_path, block_bytes, seed, assert_same
):
    """Queries of 1 to 200 rows, comment and blank lines inside them, a
    last line without newline: every block size gives the rows of the
    file, each query in one block, and the evaluation of the whole file."""
    rng = np.random.default_rng(seed)
    lines, queries, docs = [], [], []
    for q in range(12):
        for i in range(int(rng.choice([1, 3, 40, 200]))):
            lines.append(f"t{q} Q0 d{q}-{i} {i} {rng.integers(0, 9)} run{q}")
            queries.append(f"t{q}")
            docs.append(f"d{q}-{i}")
            if rng.random() < 0.05:
                lines.append(rng.choice(["# a comment", "", "   "]))
    path = tmp_path / "mixed.run"
    path.write_text("\n".join(lines))
    blocks = list(trec_io.iter_run_blocks(path, block_bytes=block_bytes))
    assert [q for b in blocks for q in b._q.strings().tolist()] == queries
    assert [d for b in blocks for d in b._d.strings().tolist()] == docs
    per_block = [b._query_codes()[1].tolist() for b in blocks]
    flat = [q for ids in per_block for q in ids]
    assert len(flat) == len(set(flat)) == 12
    assert blocks[-1].run_id == "run11"
    qrels = Qrels(queries[::7], docs[::7], [1] * len(docs[::7]))
    whole = evaluate_run(qrels, read_run(path), MEASURES8)
    streamed = evaluate_run(qrels, path, MEASURES8)
    assert_same(streamed, whole)


def test_a_long_query_met_again_is_not_grouped(tmp_path):
    lines = [f"a Q0 d{i} {i} 1 r" for i in range(100)]
    lines += ["b Q0 x 1 1 r", "a Q0 y 1 1 r"]
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(trec_io.RunNotGroupedError, match=r"run:102: query 'a'"):
        list(trec_io.iter_run_blocks(path, block_bytes=100))


def test_a_bad_line_in_a_long_query_is_named_at_its_file_line(tmp_path):
    lines = [f"a Q0 d{i} {i} 1 r" for i in range(100)]
    lines[77] = "a Q0 d77 77 x r"
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"run:78: expected a numeric score"):
        list(trec_io.iter_run_blocks(path, block_bytes=100))


@pytest.mark.parametrize("n_blocks", [0, 1, 2, 5])
def test_a_run_of_one_block_is_evaluated_in_the_calling_thread(monkeypatch, n_blocks):
    """Blocks streamed from a file are read and evaluated by the calling
    thread and a helper, each taking the next block when free, the results
    in order; the calling thread takes the first block before the helper
    starts, so that a run of one block is evaluated by it alone (its
    allocator gives memory back more readily)."""
    import threading

    import skirm._engine._threads as threads
    import skirm.trec._inputs as inputs

    monkeypatch.setattr(threads, "n_threads", lambda: 2)
    caller = threading.current_thread()

    def step(block):
        return block, threading.current_thread() is caller

    out = inputs.map_blocks(step, (b for b in range(n_blocks)), None)
    assert [block for block, _ in out] == list(range(n_blocks))
    if n_blocks:
        assert out[0][1]  # the first block (a run's only one): the caller's


def test_run_not_grouped_says_what_a_stream_needs(tmp_path):
    path = tmp_path / "run"
    path.write_text("q1 Q0 a 1 1 r\nq2 Q0 b 1 1 r\nq1 Q0 c 2 0 r\n")
    message = (
        "run:3: query 'q1' appears again after other queries; a run streamed "
        "query by query must keep each query's lines together"
    )
    with pytest.raises(trec_io.RunNotGroupedError) as info:
        list(trec_io.iter_run_blocks(path))
    assert str(info.value).endswith(message)
    assert (info.value.line, info.value.query) == (2, "q1")


def test_a_stream_comes_in_small_blocks_and_keeps_a_last_line_without_newline(
    tmp_path,
):
    # 6 queries of 5 lines (about 80 bytes each), then one line with no newline
    lines = [f"q{i // 5} Q0 d{i} {i} {i} r\n" for i in range(30)]
    path = tmp_path / "run"
    path.write_text("".join(lines) + "q9 Q0 dz 1 1 r")
    blocks = list(trec_io.iter_run_blocks(path, block_bytes=64))
    rows = [
        (q, d)
        for b in blocks
        for q, d in zip(b._q.strings(), b._d.strings(), strict=True)
    ]
    assert rows == [(f"q{i // 5}", f"d{i}") for i in range(30)] + [("q9", "dz")]
    # read 64 bytes at a time (doubled for a query that does not fit), not
    # whole: the 450 bytes come in several blocks of whole queries
    assert len(blocks) >= 3
    queries = [set(b._q.strings().tolist()) for b in blocks]
    assert sum(map(len, queries)) == len(set().union(*queries)) == 7


@pytest.mark.parametrize("stream", [False, True])
def test_a_nan_score_is_named_at_its_line(tmp_path, stream):
    path = tmp_path / "run"
    path.write_text("q1 Q0 a 1 1 r\nq1 Q0 b 2 0.5 r\nq1 Q0 c 3 nan r\n")
    with pytest.raises(ValueError, match=r"run:3: expected a numeric score, got "):
        if stream:
            list(trec_io.iter_run_blocks(path))
        else:
            read_run(path)


def test_a_run_id_that_is_not_utf8_is_read_with_a_replacement_character(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 a 1 1 r\xe9sum\xe9\n")
    assert read_run(path).run_id == "r\ufffdsum\ufffd"
    assert next(trec_io.iter_run_blocks(path)).run_id == "r\ufffdsum\ufffd"
