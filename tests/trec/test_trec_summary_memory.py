"""Memory of a run of many short queries: a streamed block of more queries
than ``MAX_BLOCK_QUERIES`` is cut, each part's values are copied into
chunks as it comes (``PerQuery``), and the result is the one of the run read
whole."""

from __future__ import annotations

import numpy as np
import pytest

import skirm._engine._threads as threads
import skirm.io._run_blocks as trec_io
import skirm.trec._evaluate_run as evaluate_module
import skirm.trec._inputs as inputs
from skirm.io import RunNotGroupedError, read_qrels, read_run
from skirm.trec import evaluate_run
from skirm.trec._summary import PerQuery


def _write_short_queries(folder, seed, n_queries=60, repeat=False):
    """A run of 1 to 4 documents a query (ids out of byte order, tied
    scores, a query in six missing from the qrels) and its qrels; with
    ``repeat``, the first query comes again at the end."""
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in rng.choice(10**5, size=n_queries, replace=False)]
    run_lines, qrels_lines = [], []
    for i, qid in enumerate(qids):
        n = int(rng.integers(1, 5))
        scores = rng.integers(0, 3, size=n)
        run_lines += [
            f"{qid} Q0 d{qid}x{j} {j} {s} short\n"
            for j, s in enumerate(scores.tolist())
        ]
        if i % 6 == 5:
            continue
        labels = rng.integers(-1, 3, size=n + 1)
        qrels_lines += [
            f"{qid} 0 d{qid}x{j} {label}\n" for j, label in enumerate(labels.tolist())
        ]
    if repeat:
        run_lines.append(f"{qids[0]} Q0 again 9 0 short\n")
    run, qrels = folder / "short.run", folder / "short.qrels"
    run.write_text("".join(run_lines))
    qrels.write_text("".join(qrels_lines))
    return qrels, run


@pytest.mark.parametrize("all_queries", [False, True])
@pytest.mark.parametrize("block_bytes", [200, 1 << 16])
def test_blocks_of_many_queries_are_cut_and_give_the_values_of_the_whole_run(
    tmp_path, monkeypatch, block_bytes, all_queries, assert_same
):
    qrels_path, run_path = _write_short_queries(tmp_path, 0)
    qrels = read_qrels(qrels_path)
    whole = evaluate_run(qrels, read_run(run_path), "all_trec", all_queries=all_queries)
    seen = []
    ranked_each = evaluate_module.ranked_each

    def spy(index, block, each):
        seen.append(block._q.strings(block._q.run_starts()).tolist())
        return ranked_each(index, block, each)

    monkeypatch.setattr(evaluate_module, "ranked_each", spy)
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(inputs, "MAX_BLOCK_QUERIES", 3)
    monkeypatch.setattr(PerQuery, "CHUNK", 4)  # several chunks, of 1 to 4
    streamed = evaluate_run(qrels, run_path, "all_trec", all_queries=all_queries)
    assert_same(streamed, whole)
    run_queries = set(read_run(run_path).query_ids.tolist())
    parts = [part for part in seen if run_queries.intersection(part)]
    assert max(map(len, parts)) == 3  # (-c adds placeholder blocks)
    assert sorted(q for part in parts for q in part) == sorted(run_queries)
    relstring = streamed.per_query["relstring"]
    assert len({len(s) for s in relstring.tolist()}) > 1  # widths were promoted


def test_a_restarted_run_starts_from_no_values(tmp_path, monkeypatch, assert_same):
    """The repeat is found after blocks were evaluated: the values gathered
    so far are dropped and the run is read again in parts."""
    qrels_path, run_path = _write_short_queries(tmp_path, 1, repeat=True)
    qrels = read_qrels(qrels_path)
    whole = evaluate_run(qrels, read_run(run_path), "official")
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 200)
    monkeypatch.setattr(inputs, "MAX_BLOCK_QUERIES", 2)
    assert_same(evaluate_run(qrels, run_path, "official"), whole)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_map_blocks_gives_a_new_sink_to_a_restart(monkeypatch, n_threads):
    monkeypatch.setattr(threads, "n_threads", lambda: n_threads)
    made = []

    def new_sink():
        made.append([])
        return made[-1]

    def blocks():
        yield from range(3)
        raise RunNotGroupedError("run:8: q", name="run", line=7, query="q")

    restart = inputs.Restart(RunNotGroupedError, lambda exc: [4, 5])
    out = inputs.map_blocks(lambda b: 10 * b, blocks(), restart, new_sink)
    assert out is made[-1]
    assert len(made) == 2 and made[-1] == [40, 50]
    assert made[0] == [0, 10, 20][: len(made[0])]  # what came before the error
    assert inputs.map_blocks(lambda b: -b, iter([1, 2]), None) == [-1, -2]


def _reference(parts):
    ids = np.concatenate([p[0] for p in parts])
    order = np.argsort(ids, kind="stable")
    names = parts[0][1]
    values = {n: np.concatenate([p[1][n] for p in parts])[order] for n in names}
    return ids[order], values


@pytest.mark.parametrize("chunk", [1, 3, 1 << 16])
def test_per_query_values_are_the_concatenation_in_id_order(monkeypatch, chunk):
    monkeypatch.setattr(PerQuery, "CHUNK", chunk)
    rng = np.random.default_rng(7)
    sizes = [5, 1, 0, 12, 2, 30, 7]
    ids = rng.permutation(sum(sizes)).astype(str)
    parts, at = [], 0
    for k, width in zip(sizes, [1, 3, 6, 2, 5, 1, 4], strict=True):
        part_ids = np.sort(ids[at : at + k])
        at += k
        values = {
            "float": rng.random(k),
            "int": rng.integers(-5, 5, size=k),
            "text": np.array(
                ["x" * int(w) for w in rng.integers(0, width + 1, k)],
                dtype=f"<U{width}",  # an empty part widens them all
            ),
            "object": np.array([f"o{i}" for i in range(k)], dtype=object),
        }
        if at > 20:  # another dtype from here on: cast as concatenate does
            values["int"] = values["int"] + 0.5
        parts.append((part_ids, values))
    gathered = PerQuery()
    for part_ids, values in parts:
        gathered.add(part_ids, values)
    assert gathered.n == sum(sizes)
    assert [p.tolist() for p in gathered.id_parts] == [p[0].tolist() for p in parts]
    chunks = gathered._chunks["float"]
    assert chunks[0] is parts[0][1]["float"]  # the first values, kept
    assert all(c.shape[0] <= chunk for c in chunks[1:])
    assert sum(c.shape[0] for c in chunks[:-1]) < gathered.n  # none grew empty
    assert all(c.flags.owndata for c in chunks[1:])  # copies
    got_ids, got = gathered.result()
    want_ids, want = _reference(parts)
    np.testing.assert_array_equal(got_ids, want_ids)
    assert list(got) == list(want)
    for name in want:
        assert got[name].dtype == want[name].dtype, name
        assert got[name].flags.owndata and got[name].flags.writeable
        assert got[name].tolist() == want[name].tolist(), name


def test_no_query_in_common_names_the_first_queries_of_the_run(tmp_path, monkeypatch):
    path = tmp_path / "run"
    path.write_text("".join(f"z{i:02d} Q0 d 1 1 r\n" for i in range(30)))
    qrels = read_qrels_text("a 0 d 1\n", tmp_path)
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 64)
    monkeypatch.setattr(inputs, "MAX_BLOCK_QUERIES", 2)
    message = r"run queries e\.g\. \['z00', 'z01'\], qrels queries e\.g\. \['a'\]"
    with pytest.raises(ValueError, match=message):
        evaluate_run(qrels, path, "map")


def read_qrels_text(text, folder):
    path = folder / "qrels"
    path.write_text(text)
    return read_qrels(path)


def test_the_first_values_are_kept_when_they_own_their_memory():
    """A run of one block is not copied; a view (whose base may be larger)
    and the values of later blocks are."""
    table = np.arange(12.0).reshape(4, 3)
    owned = np.array([3.0, 1.0, 2.0, 0.0])
    words = np.array([["1-0", "x"], ["0", "y"], ["11", "z"], ["-", "w"]])
    first = {
        "owned": owned,
        "view": table[:, 1],
        "other": np.arange(4),
        "relstring": words[:, 0],  # strings, a view: copied as strings
    }
    gathered = PerQuery()
    gathered.add(np.array(["d", "b", "c", "a"]), first)
    assert gathered._chunks["owned"][0] is owned
    view_chunk = gathered._chunks["view"][0]
    assert view_chunk.base is not table and not np.shares_memory(view_chunk, table)
    later = {
        "owned": np.array([9.0]),
        "view": np.array([8.0]),
        "other": [7.5],
        "relstring": ["10"],
    }
    gathered.add(np.array(["e"]), {k: np.asarray(v) for k, v in later.items()})
    assert gathered._chunks["owned"][1] is not later["owned"]
    ids, values = gathered.result()
    assert ids.tolist() == ["a", "b", "c", "d", "e"]
    assert values["owned"].tolist() == [0.0, 1.0, 2.0, 3.0, 9.0]
    assert values["view"].tolist() == [10.0, 4.0, 7.0, 1.0, 8.0]
    assert values["other"].tolist() == [3.0, 1.0, 2.0, 0.0, 7.5]  # int, cast
    assert values["relstring"].tolist() == ["-", "0", "11", "1-0", "10"]
    assert owned.tolist() == [3.0, 1.0, 2.0, 0.0]  # the input is not modified
    assert not np.shares_memory(values["owned"], owned)


def test_entries_of_one_index_share_its_join(tmp_path, monkeypatch):
    """The measures of several options (a relevance level, judged only) are
    entries of one plan on one index of the qrels: the run is joined to it
    once per block, and each measure's values are its own evaluated alone."""
    import skirm.trec._ranked as ranked_module

    qrels_path, run_path = _write_short_queries(tmp_path, 2)
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    names = ["P@3", "P(rel=2)@3", "P(judged_only=True)@3"]
    alone = {name: evaluate_run(qrels, run, [name]).per_query[name] for name in names}
    joins = []
    join = ranked_module.join

    def spy(index, block):
        joins.append(len(block))
        return join(index, block)

    monkeypatch.setattr(ranked_module, "join", spy)
    together = evaluate_run(qrels, run, names)
    assert joins == [len(run)]
    for name in names:
        np.testing.assert_array_equal(together.per_query[name], alone[name])
