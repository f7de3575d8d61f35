"""Ids that Arrow holds, read as tokens of its bytes.

A run or qrels given as a pandas frame of ``str`` columns (pandas 3 stores
them in pyarrow), a pyarrow table or a polars frame has its ids read from
Arrow's offsets and bytes (:meth:`skirm.io._tokens.Tokens.from_utf8`),
without a str array or a Python object per row. The oracle: the same rows
given as numpy str arrays (``Run(q, d, s)``), which every other door reads.
Seeded inputs vary one dimension at a time: id lengths across the 8-byte
words (0 to 40 bytes), charsets, empty ids, NULs (inside or at the end:
those columns go the str way, where numpy's rule drops trailing NULs),
sliced and chunked arrays, large and view string types, dictionary and
categorical columns, the rows' order.
"""

import sys

import numpy as np
import pytest
from _data import ALPHABETS, random_ids

from skirm.io import as_qrels, as_run
from skirm.io._records import Qrels, Run
from skirm.io._tokens import PAD, Tokens
from skirm.trec import evaluate_run

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow.compute")  # pandas' str loads it; Arrow compares

ALPHABETS = {**ALPHABETS, "space": "a b\tc"}
_ids = random_ids


def _arrow_frame(columns):
    """A pandas frame whose string columns pyarrow stores (pandas 3's
    default ``str``; asked for explicitly, as pandas 2 stores objects)."""
    frame = pd.DataFrame(columns)
    for name in ("query_id", "doc_id"):
        frame[name] = frame[name].astype("string[pyarrow]")
    return frame


def _same(run, q, d, s):
    assert run.query_ids.tolist() == np.asarray(q, dtype=str).tolist()
    assert run.doc_ids.tolist() == np.asarray(d, dtype=str).tolist()
    assert run.scores.tobytes() == np.asarray(s, dtype=np.float64).tobytes()


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
@pytest.mark.parametrize("seed", range(3))
def test_tokens_from_utf8_equal_str_arrays(alphabet, seed):
    rng = np.random.default_rng(seed)
    ids = _ids(rng, 300, ALPHABETS[alphabet])
    array = pa.array(ids, type=pa.string())
    data = np.frombuffer(array.buffers()[2], np.uint8)
    offsets = np.frombuffer(array.buffers()[1], np.int32, count=len(ids) + 1)
    tokens = Tokens.from_utf8(data, offsets)
    assert tokens.strings().tolist() == ids
    # the bytes copied, then PAD zero bytes (Tokens' own rule)
    end = int(offsets[-1]) - int(offsets[0])
    assert tokens.buf.shape[0] == end + PAD and not tokens.buf[end:].any()
    assert not np.shares_memory(tokens.buf, data)
    reference = Tokens.from_strings(np.array(ids, dtype=str))
    assert np.array_equal(tokens.hash(), reference.hash())
    assert np.array_equal(tokens.byte_rank(), reference.byte_rank())


@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40])
def test_ids_of_one_length_across_words(length):
    """Every id of ``length`` bytes (docnos of one collection), and ids
    around it: the frame door reads what the arrays door reads."""
    rng = np.random.default_rng(length)
    q = [f"q{i % 7}" for i in range(200)]
    d = _ids(rng, 200, ALPHABETS["ascii"], length, length)
    s = rng.random(200).round(2)
    frame = _arrow_frame({"query_id": q, "doc_id": d, "score": s})
    run = as_run(frame)
    assert isinstance(run._tokens()[1], Tokens)
    _same(run, q, d, s)


@pytest.mark.parametrize(
    "shape",
    [
        "pandas",
        "table",
        "chunked",
        "sliced",
        "large",
        "view",
        "dictionary",
        "polars",
        "categorical",
    ],
)
@pytest.mark.parametrize("alphabet", ["ascii", "cjk"])
def test_frame_shapes_equal_arrays(shape, alphabet):
    """Each Arrow layout of the same rows gives the run and the values of
    the rows as str arrays (the values of ``evaluate_run`` bit for bit)."""
    rng = np.random.default_rng(len(shape))
    n = 400
    q = [f"q{c}" for c in rng.integers(0, 12, n)]
    d = [f"{x}{i}" for i, x in enumerate(_ids(rng, n, ALPHABETS[alphabet], 0, 12))]
    s = rng.integers(0, 5, n) / 4  # ties
    columns = {"query_id": q, "doc_id": d, "score": s}
    if shape == "pandas":
        frame = _arrow_frame(columns)
    elif shape == "table":
        frame = pa.table(columns)
    elif shape == "chunked":
        frame = pa.Table.from_batches(
            [pa.table(columns).slice(a, 150).to_batches()[0] for a in (0, 150, 300)]
        )
    elif shape == "sliced":
        wide = {k: ["x"] * 5 + list(v) for k, v in columns.items() if k != "score"}
        wide["score"] = np.concatenate([np.zeros(5), s])
        frame = pa.table(wide).slice(5)
    elif shape == "large":
        frame = pa.table(
            {
                "query_id": pa.array(q, pa.large_string()),
                "doc_id": pa.array(d, pa.large_string()),
                "score": s,
            }
        )
    elif shape == "view":
        if not hasattr(pa, "string_view"):
            pytest.skip("pyarrow without string_view")
        frame = pa.table(
            {
                "query_id": pa.array(q, pa.string_view()),
                "doc_id": pa.array(d, pa.string_view()),
                "score": s,
            }
        )
    elif shape == "dictionary":
        frame = pa.table(
            {
                "query_id": pa.array(q).dictionary_encode(),
                "doc_id": pa.chunked_array([pa.array(d).dictionary_encode()]),
                "score": s,
            }
        )
    else:
        pl = pytest.importorskip("polars")
        frame = pl.DataFrame(columns)
        if shape == "categorical":
            frame = frame.with_columns(pl.col("query_id").cast(pl.Categorical))
    run = as_run(frame)
    assert run._doc_ids is None and run._query_ids is None  # read as tokens
    _same(run, q, d, s)
    judged = rng.choice(n, 120, replace=False)
    labels = rng.integers(-1, 3, 120)
    qrels_rows = (np.array(q)[judged], np.array(d)[judged], labels)
    names = ("query_id", "doc_id", "relevance")
    qrels_frame = pd.DataFrame(dict(zip(names, qrels_rows, strict=True)))
    qrels = as_qrels(qrels_frame)
    assert qrels.doc_ids.tolist() == np.array(d)[judged].tolist()
    measures = ["ndcg_cut.10", "map", "recip_rank", "P.5", "bpref", "recall.100"]
    got = evaluate_run(qrels_frame, frame, measures)
    reference = Qrels(*qrels_rows)
    want = evaluate_run(reference, Run(np.array(q), np.array(d), s), measures)
    assert got.group_ids.tolist() == want.group_ids.tolist()
    for name in want.per_query:
        assert got.per_query[name].tobytes() == want.per_query[name].tobytes(), name


@pytest.mark.parametrize(
    "ids",
    [["a\x00", "b", "a"], ["a\x00b", "b", "ab"], ["\x00", "", "c"]],
    ids=["trailing", "inside", "alone"],
)
def test_ids_with_nul_take_the_rule_of_every_container(ids):
    """A NUL byte sends the column the str way: ids ending in NULs are those
    ids without them (numpy's rule, every container's), as for arrays."""
    frame = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ids, "score": [3, 2, 1]})
    run = as_run(frame)
    want = Run(["q"] * 3, np.array(ids, dtype=str), [3, 2, 1])
    assert run.doc_ids.tolist() == want.doc_ids.tolist()
    data = np.frombuffer("".join(ids).encode(), np.uint8)
    offsets = np.cumsum([0] + [len(i.encode()) for i in ids]).astype(np.int64)
    assert Tokens.from_utf8(data, offsets) is None


def test_errors_name_the_row_from_tokens():
    """A NaN score in a frame of Arrow ids: the message names the query and
    the document as the arrays door does."""
    frame = pd.DataFrame(
        {"query_id": ["q1", "q2"], "doc_id": ["dé", "d2"], "score": [1.0, np.nan]}
    )
    with pytest.raises(ValueError, match="for query 'q2', document 'd2'"):
        as_run(frame)
    qrels = pd.DataFrame(
        {"query_id": ["q1", "q2"], "doc_id": ["dé", "d2"], "relevance": [1, 0.5]}
    )
    with pytest.raises(ValueError, match=r"got 0\.5 for query 'q2', document 'd2'"):
        as_qrels(qrels)
    with pytest.raises(ValueError, match="run_id"):
        as_run(frame.fillna(0.0), run_id=3)


def test_input_frames_are_not_modified():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "query_id": [f"q{i % 3}" for i in range(50)],
            "doc_id": _ids(rng, 50, ALPHABETS["latin"], 1, 9),
            "score": rng.random(50),
        }
    )
    before = frame.copy()
    run = as_run(frame)
    run.doc_ids[:] = "x"  # the run's strings are its own
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize("kind", ["pandas", "pyarrow", "polars"])
def test_a_column_with_a_nul_is_opened_once(monkeypatch, kind):
    """The str way of a column of Arrow strings with a NUL reads the column
    already opened for its bytes: each id column is opened once, and the ids
    are those of the arrays door."""
    from skirm import _frames

    opened = []
    real = _frames._arrow_string_column

    def counted(column):
        opened.append(type(column).__name__)
        return real(column)

    monkeypatch.setattr(_frames, "_arrow_string_column", counted)
    ids = ["a\x00", "a\x00b", "b", "", "c\x00"]
    columns = {"query_id": ["q1"] * 5, "doc_id": ids, "score": [5, 4, 3, 2, 1]}
    if kind == "pandas":
        frame = _arrow_frame(columns)
    elif kind == "pyarrow":
        frame = pa.table(columns)
    else:
        frame = pytest.importorskip("polars").DataFrame(columns)
    run = as_run(frame)
    want = Run(["q1"] * 5, np.array(ids, dtype=str), [5, 4, 3, 2, 1])
    assert run.doc_ids.tolist() == want.doc_ids.tolist()
    assert run.query_ids.tolist() == want.query_ids.tolist()
    assert len(opened) == 2  # the query ids, the doc ids


def _runs_of(rng, alphabet, n_runs, lo, hi):
    """Ids in runs of equal adjacent ones (1 to 6 rows each), each run's id
    drawn anew (so two runs in a row may share it, as one longer run), and
    near misses: ids that differ from their neighbour in the last byte
    only, or by a byte more."""
    heads = _ids(rng, n_runs, ALPHABETS[alphabet], lo, hi)
    for i in rng.choice(n_runs, n_runs // 4, replace=False).tolist():
        if i and heads[i - 1]:
            near = heads[i - 1]
            heads[i] = near[:-1] + ("y" if near[-1] != "y" else "z")
    for i in rng.choice(n_runs, n_runs // 8, replace=False).tolist():
        if i:
            heads[i] = heads[i - 1] + "y"
    return np.repeat(heads, rng.integers(1, 7, n_runs)).tolist()


def _arrow_layouts(ids):
    """The same ids as Arrow holds them in several layouts: string,
    large_string, string_view, a slice of a wider array, and chunks."""
    yield "string", pa.array(ids, pa.string())
    yield "large", pa.array(ids, pa.large_string())
    if hasattr(pa, "string_view"):
        yield "view", pa.array(ids, pa.string_view())
    yield "sliced", pa.array(["x", "y", *ids], pa.string()).slice(2)
    chunks = pa.chunked_array([ids[: len(ids) // 3], ids[len(ids) // 3 :]])
    yield "chunked", chunks.combine_chunks()


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
@pytest.mark.parametrize("lengths", [(0, 3), (0, 9), (7, 9), (15, 17), (0, 40)])
@pytest.mark.parametrize("seed", range(2))
def test_arrow_run_starts_equal_the_tokens_own(alphabet, lengths, seed):
    from skirm._frames import arrow_run_starts

    rng = np.random.default_rng([seed, *lengths])
    ids = _runs_of(rng, alphabet, 120, *lengths)
    want = Tokens.from_strings(np.array(ids, dtype=str)).run_starts()
    for layout, array in _arrow_layouts(ids):
        got = arrow_run_starts(array)
        assert got is not None, layout
        assert got.tolist() == want.tolist(), layout
    # through the door: the frame's run starts are found by Arrow, the same
    s = np.zeros(len(ids))
    run = as_run(_arrow_frame({"query_id": ids, "doc_id": ids, "score": s}))
    assert run._q._find_runs is not None
    assert run._q.run_starts().tolist() == want.tolist()
    assert run._q._find_runs is None  # asked once: Arrow's array let go
    assert run._query_codes()[1].tolist() == sorted(set(ids))


@pytest.mark.parametrize("ids", [[], ["q1"]])
def test_arrow_run_starts_of_fewer_than_two_rows_are_the_tokens_own(ids):
    from skirm._frames import arrow_run_starts

    assert arrow_run_starts(pa.array(ids, pa.string())) is None
    run = Run(ids, ids, np.zeros(len(ids)))
    frame = _arrow_frame({"query_id": ids, "doc_id": ids, "score": [0.0] * len(ids)})
    frame_run = as_run(frame)
    want = run._tokens()[0].run_starts().tolist()
    assert frame_run._tokens()[0].run_starts().tolist() == want


def test_arrow_run_starts_wait_for_pyarrow_compute_to_be_loaded(monkeypatch):
    # not loaded (a polars or pyarrow user's process): the import would cost
    # more than it spares; the tokens' words find the same runs
    from skirm._frames import arrow_run_starts

    ids = ["a", "a", "b", "a"]
    monkeypatch.delitem(sys.modules, "pyarrow.compute")
    assert arrow_run_starts(pa.array(ids)) is None
    run = as_run(_arrow_frame({"query_id": ids, "doc_id": ids, "score": [0.0] * 4}))
    assert run._tokens()[0].run_starts().tolist() == [0, 2, 3]
