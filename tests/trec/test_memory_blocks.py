"""A run held in memory is evaluated in blocks of whole queries, as a streamed
file is: the blocks give the values of the run evaluated as one block, bit
for bit, and the same errors, naming the same rows.

The cut (:func:`skirm.trec._inputs._in_memory`) applies to every run of more
rows than a block; a run whose queries are scattered (shuffled, sorted by
score) has each query's rows put together first, and tells its duplicate
docnos as the run evaluated whole does.
The oracle is the same evaluation with the cut switched off (a block size
larger than the run), on the generated cases of ``tests/_trec_fuzz.py`` (one
dimension of real files varied at a time) and on frames.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from _trec_fuzz import DIMENSIONS, make_case

import skirm._engine._threads
import skirm.trec._evaluate_run as evaluate_module
import skirm.trec._inputs as inputs
from skirm.io import Qrels, Run, read_qrels, read_run
from skirm.trec import DuplicateDocnoError, evaluate_run

#: Option sets of trec_eval's flags (``-l 2``, ``-J``, ``-M 5``, ``-c``, ``-N``).
OPTIONS = {
    "default": {},
    "l2": {"relevance_level": 2},
    "J": {"judged_only": True},
    "M5": {"max_docs": 5},
    "c": {"all_queries": True},
    "N": {"num_queries": 500},
}
#: Block sizes that cut every generated run, from a query per block up.
SMALL = (1, 7, 60)
#: Runs of rows from which a run in memory has its query codes found per row
#: (its rows scattered, maybe), not per run of rows: both ways.
MANY_RUNS = {"code per run": 1 << 62, "code per row": 0}
SEEDS = (0, 1)


@pytest.fixture
def one_block(monkeypatch):
    """``run(call)``: ``call()`` with the cut switched off."""

    def run(call):
        with monkeypatch.context() as m:
            m.setattr(inputs, "MEMORY_BLOCK_ROWS", 1 << 62)
            return call()

    return run


def _outcome(call):
    """``("ok", result)`` or ``("error", type, message)``."""
    try:
        return "ok", call()
    except Exception as exc:  # compared below, kind and words
        return "error", type(exc), str(exc)


def _same_outcome(got, want, assert_same):
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        assert_same(got[1], want[1])
    else:
        assert got[1:] == want[1:]


def _in_memory(case):
    """The case's qrels and run read into records (not streamed), or None
    where a file is refused."""
    try:
        qrels = read_qrels(io.BytesIO(case.qrels))
        run = read_run(io.BytesIO(case.run))
    except ValueError:
        return None
    return qrels, run


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_blocks_of_a_run_in_memory_give_the_one_block_values(
    dimension, seed, options, monkeypatch, one_block, assert_same
):
    read = _in_memory(make_case(dimension, seed))
    if read is None:
        pytest.skip("a file of this case is refused as it is read")
    qrels, run = read

    def call():
        return evaluate_run(qrels, run, "all_trec", **options)

    want = one_block(lambda: _outcome(call))
    for rows in SMALL:
        monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", rows)
        _same_outcome(_outcome(call), want, assert_same)


def _grouped_run(seed, n_queries=50, ties=True):
    """A run of grouped queries (1 to 40 rows, some queries unjudged) and
    graded qrels, as arrays."""
    rng = np.random.default_rng(seed)
    qids = rng.choice(10_000, n_queries, replace=False).astype(str)
    sizes = rng.integers(1, 41, n_queries)
    q = np.repeat(qids, sizes)
    d = np.char.add("d", rng.integers(0, 10**6, q.shape[0]).astype(str))
    for i, (lo, n) in enumerate(zip(np.cumsum(sizes) - sizes, sizes, strict=True)):
        d[lo : lo + n] = np.char.add(f"d{i}-", np.arange(n).astype(str))
    scores = rng.integers(0, 5, q.shape[0]) if ties else rng.random(q.shape[0])
    judged = rng.random(q.shape[0]) < 0.4
    judged &= q != qids[0]  # a query with no judgement
    labels = rng.integers(-1, 4, int(judged.sum()))
    return Qrels(q[judged], d[judged], labels), q, d, scores.astype(float)


@pytest.mark.parametrize("many_runs", MANY_RUNS.values(), ids=MANY_RUNS.keys())
@pytest.mark.parametrize("seed", range(4))
def test_frames_in_blocks_equal_frames_in_one(
    seed, many_runs, monkeypatch, one_block, assert_same
):
    pd = pytest.importorskip("pandas")
    qrels, q, d, scores = _grouped_run(seed)
    frame = pd.DataFrame({"query_id": q, "doc_id": d, "score": scores})
    qrels_frame = qrels.to_frame()
    measures = ["map", "ndcg_cut.10", "P.5", "recip_rank", "bpref", "Rprec"]
    want = one_block(lambda: evaluate_run(qrels_frame, frame, measures))
    monkeypatch.setattr(inputs, "MANY_RUNS", many_runs)
    for rows in SMALL:
        monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", rows)
        assert_same(evaluate_run(qrels_frame, frame, measures), want)


def _ids_as_found(blocks):
    """The query ids of the blocks, in order, each block's codes, ids, runs
    and docno hashes checked against those it would find itself."""
    seen = []
    for block in blocks:
        given_codes, given_ids = block._query_codes()
        fresh = Run(block.query_ids, block.doc_ids, block.scores)
        codes, ids = fresh._query_codes()
        np.testing.assert_array_equal(given_codes, codes)
        np.testing.assert_array_equal(given_ids, ids)
        np.testing.assert_array_equal(block._q.run_starts(), fresh._q.run_starts())
        np.testing.assert_array_equal(block._d.hash(), fresh._d.hash())
        seen += ids.tolist()
    return seen


@pytest.mark.parametrize("many_runs", MANY_RUNS.values(), ids=MANY_RUNS.keys())
def test_each_block_holds_whole_queries_and_their_codes(monkeypatch, many_runs):
    """The codes each block is given are those it would find itself."""
    _, q, d, scores = _grouped_run(5, n_queries=200)
    run = Run(q, d, scores)
    monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", 100)
    monkeypatch.setattr(inputs, "MANY_RUNS", many_runs)
    blocks = list(inputs.run_blocks(run)[0])
    assert len(blocks) > 1
    seen = _ids_as_found(blocks)
    assert len(seen) == len(set(seen))  # no query in two blocks
    assert sorted(seen) == np.unique(q).tolist()
    np.testing.assert_array_equal(
        np.concatenate([b.doc_ids for b in blocks]), run.doc_ids
    )


def _scattered(seed, order, n_queries=50, ties=True):
    """:func:`_grouped_run` with its rows shuffled, or sorted by score (each
    query's rows scattered over the run)."""
    qrels, q, d, scores = _grouped_run(seed, n_queries, ties)
    if order == "shuffled":
        rows = np.random.default_rng(seed).permutation(q.shape[0])
    else:
        rows = np.argsort(-scores, kind="stable")
    return qrels, q[rows], d[rows], scores[rows]


@pytest.mark.parametrize("many_runs", MANY_RUNS.values(), ids=MANY_RUNS.keys())
@pytest.mark.parametrize("order", ["shuffled", "score"])
def test_a_scattered_run_is_put_together_by_query_then_cut(
    monkeypatch, order, many_runs
):
    """Each query's rows together, in the run's order; the queries in the
    order of their sorted ids; each block given the codes it would find."""
    _, q, d, scores = _scattered(6, order, n_queries=200)
    run = Run(q, d, scores)
    monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", 100)
    monkeypatch.setattr(inputs, "MANY_RUNS", many_runs)
    blocks, restart = inputs.run_blocks(run)
    blocks = list(blocks)
    assert len(blocks) > 1 and restart.on is DuplicateDocnoError
    by_query = np.argsort(q, kind="stable")
    for column, got in (
        (q, np.concatenate([b.query_ids for b in blocks])),
        (d, np.concatenate([b.doc_ids for b in blocks])),
        (scores, np.concatenate([b.scores for b in blocks])),
    ):
        np.testing.assert_array_equal(got, column[by_query])
    assert _ids_as_found(blocks) == np.unique(q).tolist()  # each query once, in order
    # the run given is left as it was
    np.testing.assert_array_equal(run.query_ids, q)
    np.testing.assert_array_equal(run.doc_ids, d)


def test_a_small_scattered_run_is_one_block():
    _, q, d, scores = _scattered(6, "shuffled")
    blocks, restart = inputs.run_blocks(Run(q, d, scores))
    assert isinstance(blocks, list) and len(blocks) == 1 and restart is None


@pytest.mark.parametrize("compat", ["10.0", "9.0"])
@pytest.mark.parametrize("ties", [True, False])
@pytest.mark.parametrize("order", ["shuffled", "score"])
@pytest.mark.parametrize("seed", range(3))
def test_a_scattered_run_in_blocks_gives_the_one_block_values(
    seed, order, ties, compat, monkeypatch, one_block, assert_same
):
    qrels, q, d, scores = _scattered(seed, order, ties=ties)
    run = Run(q, d, scores)

    def call():
        return evaluate_run(qrels, run, "all_trec", compat=compat, all_queries=True)

    want = one_block(call)
    for rows in SMALL:
        monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", rows)
        assert_same(call(), want)


@pytest.mark.parametrize("where", ["run", "qrels", "both"])
@pytest.mark.parametrize("order", ["shuffled", "score"])
def test_a_scattered_run_tells_the_duplicates_the_one_block_tells(
    where, order, monkeypatch, one_block
):
    """A docno twice in a query of the run (named by its rows in the run
    given), of the qrels, or in several queries of both: the error the run
    evaluated as one block raises."""
    qrels, q, d, scores = _scattered(8, order, n_queries=80)
    q, d = q.copy(), d.copy()
    evaluated = np.flatnonzero(np.isin(q, qrels.query_ids))
    if where in ("run", "both"):
        for at in evaluated[[-40, 5]]:  # two queries: the later row first
            same = np.flatnonzero(q == q[at])
            d[same[-1]] = d[same[0]]
    if where in ("qrels", "both"):
        qrels = Qrels(
            np.append(qrels.query_ids, qrels.query_ids[[-3, 2]]),
            np.append(qrels.doc_ids, qrels.doc_ids[[-3, 2]]),
            np.append(qrels.labels, [1, 1]),
        )
    run = Run(q, d, scores)

    def call():
        return _outcome(lambda: evaluate_run(qrels, run, ["map", "P.5"]))

    want = one_block(call)
    assert want[0] == "error" and "duplicate docno" in want[2]
    for rows in SMALL:
        monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", rows)
        assert call() == want


def test_a_repeated_docno_names_its_rows_in_the_whole_run(monkeypatch, one_block):
    qrels, q, d, scores = _grouped_run(7)
    d = d.copy()
    at = q.shape[0] - 3  # late in the run: in a later block
    assert q[at] == q[at - 1]
    d[at] = d[at - 1]
    run = Run(q, d, scores)
    assert q[at] in qrels.query_ids  # an evaluated query
    want = one_block(lambda: _outcome(lambda: evaluate_run(qrels, run, ["map"])))
    assert want[0] == "error" and f"row {at - 1}" in want[2]
    for rows in SMALL:
        monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", rows)
        assert _outcome(lambda: evaluate_run(qrels, run, ["map"])) == want


@pytest.fixture
def threaded(monkeypatch):
    """``set(n)``: ``n`` threads for the blocks, and the qrels indexed beside
    the run's reading however few they are."""

    def set_threads(n):
        monkeypatch.setattr(skirm._engine._threads, "n_threads", lambda: n)
        monkeypatch.setattr(evaluate_module, "SIDE_BY_SIDE_QRELS", 0)

    return set_threads


@pytest.mark.parametrize("n_threads", [1, 2, 3])
@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_blocks_shared_out_to_threads_give_the_one_block_values(
    dimension, n_threads, monkeypatch, one_block, threaded, assert_same
):
    # the blocks taken by the calling thread and its helpers, the qrels
    # indexed while the run is read: the values and errors of one thread
    pytest.importorskip("pandas")
    read = _in_memory(make_case(dimension, 0))
    if read is None:
        pytest.skip("a file of this case is refused as it is read")
    qrels, run = read[0].to_frame(), read[1].to_frame()  # read in the call

    def call():
        return evaluate_run(qrels, run, "all_trec", all_queries=True)

    want = one_block(lambda: _outcome(call))
    threaded(n_threads)
    for rows in SMALL:
        monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", rows)
        _same_outcome(_outcome(call), want, assert_same)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_the_qrels_error_comes_first_when_both_inputs_are_bad(n_threads, threaded):
    pd = pytest.importorskip("pandas")
    threaded(n_threads)
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [0.5]})
    bad_qrels = qrels.assign(relevance=[None])
    bad_run = run.assign(score=[float("nan")])
    with pytest.raises(ValueError, match="`qrels`"):
        evaluate_run(bad_qrels, bad_run, ["map"])
    with pytest.raises(ValueError, match="`run`"):
        evaluate_run(qrels, bad_run, ["map"])
    assert evaluate_run(qrels, run, ["map"]).means["map"] == 1.0


@pytest.mark.parametrize("many_runs", MANY_RUNS.values(), ids=MANY_RUNS.keys())
@pytest.mark.parametrize("column", ["object", "str"])
def test_ids_equal_but_for_a_trailing_nul_are_one_query_in_blocks(
    column, many_runs, monkeypatch, one_block, assert_same
):
    """``"a\\x00"`` is ``"a"`` (numpy's strings drop trailing NULs): its rows
    and those of ``"a"``, apart in the run, are one query, in blocks as in
    one."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    ids = ["a\x00", "b", "a", "c\x00", "c"]
    q = np.repeat(np.array(ids, dtype=object), 6)
    d = np.array([f"d{i % 9}-{i // 9}" for i in range(q.shape[0])], dtype=object)
    frame = pd.DataFrame({"query_id": q, "doc_id": d, "score": rng.random(q.shape[0])})
    if column == "str":
        frame = frame.astype({"query_id": "str", "doc_id": "str"})
    qrels = Qrels(["a", "b", "c"], ["d1-0", "d2-0", "d3-3"], [1, 1, 2])
    want = one_block(
        lambda: _outcome(lambda: evaluate_run(qrels, frame, ["map", "num_ret"]))
    )
    assert want[0] == "ok" and want[1].per_query["num_ret"].tolist() == [12, 6, 12]
    monkeypatch.setattr(inputs, "MANY_RUNS", many_runs)
    for rows in SMALL:
        monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", rows)
        _same_outcome(
            _outcome(lambda: evaluate_run(qrels, frame, ["map", "num_ret"])),
            want,
            assert_same,
        )
