"""A run whose queries are not grouped, read again in parts by query hash
(``skirm.io._run_blocks.iter_run_parts``): the bytes told to the progress line,
and the file, line and run id of what the parts read. Found missing by the
mutation campaign of ``skirm/io/_run_blocks.py``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import skirm.io._run_blocks as trec_io
from skirm.io import Qrels
from skirm.trec import evaluate_run


def _ungrouped(tmp_path, n_queries=6, n_docs=40, extra=()):
    rows = [(f"q{i % n_queries}", f"d{i}", float(i)) for i in range(n_queries * n_docs)]
    lines = [f"{q} Q0 {d} {r} {s} run{r % 3}\n" for r, (q, d, s) in enumerate(rows)]
    path = tmp_path / "run"
    path.write_text("".join(lines) + "".join(extra))
    return path


def test_the_parts_tell_the_bytes_read_over_every_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 512)  # several reads a pass
    path = _ungrouped(tmp_path)
    size = path.stat().st_size
    told = []
    parts = list(trec_io.iter_run_parts(path, 3, on_read=lambda *a: told.append(a)))
    assert sum(len(p) for p in parts) == 240
    done = np.array([d for d, _ in told])
    assert {total for _, total in told} == {3 * size}
    assert np.all(np.diff(done) > 0) and done[-1] == 3 * size
    # each pass counts from where the previous one ended
    assert np.count_nonzero(done % size == 0) == 3
    assert done[0] <= size and np.any((done > size) & (done < 2 * size))


def test_the_parts_name_the_file_and_line_and_keep_the_run_id(tmp_path, monkeypatch):
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 512)
    monkeypatch.setattr(trec_io, "PART_BYTES", 2_000)  # several passes
    qrels = Qrels(["q1", "q4"], ["d1", "d4"], [1, 1])
    # a docno twice in query q4: line 241 repeats line 5 (d4, q4)
    path = _ungrouped(tmp_path, extra=["q4 Q0 d4 1 0 last\n"])
    duplicate = r"run:241: duplicate docno 'd4' for query 'q4' \(first at line 5\)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "read again in parts"
        with pytest.raises(ValueError, match=duplicate):
            evaluate_run(qrels, path, ["map"])
        path = _ungrouped(tmp_path, extra=["q4 Q0 dz 1 0 last\n"])
        assert evaluate_run(qrels, path, ["map"]).run_id == "last"


def test_a_malformed_line_read_in_parts_is_named_by_file_and_line(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 512)
    monkeypatch.setattr(trec_io, "PART_BYTES", 2_000)
    qrels = Qrels(["q1"], ["d1"], [1])
    # the queries come back at line 7, and the bad score is on line 241
    path = _ungrouped(tmp_path, extra=["q4 Q0 dz 1 x r\n"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match=r"/run:241: expected a numeric score"):
            evaluate_run(qrels, path, ["map"])


def test_blank_and_comment_lines_after_the_last_row_keep_the_run_id(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(trec_io, "BLOCK_BYTES", 512)
    # the last reads of each pass hold no row at all
    tail = ["\n"] * 600 + ["# the end\n"] * 100
    path = _ungrouped(tmp_path, extra=["q4 Q0 dz 1 0 last\n", *tail])
    parts = list(trec_io.iter_run_parts(path, 2))
    assert {p.run_id for p in parts} == {"last"}
    assert sum(len(p) for p in parts) == 241


def test_an_empty_run_read_in_parts_gives_no_rows(tmp_path):
    full = next(trec_io.iter_run_parts(_ungrouped(tmp_path), 1))
    path = tmp_path / "empty"
    path.write_bytes(b"")
    parts = list(trec_io.iter_run_parts(path, 2))
    assert [len(p) for p in parts] == [0, 0]
    for part in parts:  # the dtypes of a part that holds rows
        # line numbers are integers (int32 or int64, as the buffer allows)
        assert part._lines.dtype.kind == full._lines.dtype.kind == "i"
        assert part.scores.dtype == full.scores.dtype == np.float64
    for part in parts:
        assert part._source.endswith("empty") and part.run_id is None
        assert part._q.strings().tolist() == part._d.strings().tolist() == []
        assert part.scores.tolist() == part._lines.tolist() == []


def test_a_part_is_cut_into_blocks_of_whole_queries(tmp_path, monkeypatch):
    # queries of 3, 1, 4, 2 and 5 rows (15), interleaved, one part
    sizes = {"q0": 3, "q1": 1, "q2": 4, "q3": 2, "q4": 5}
    rows = [(q, k) for q, n in sizes.items() for k in range(n)]
    rows.sort(key=lambda row: (row[1], row[0]))
    lines = [f"{q} Q0 {q}d{k} 1 {k} r\n" for q, k in rows]
    path = tmp_path / "run"
    path.write_text("".join(lines))
    monkeypatch.setattr(trec_io, "PART_BLOCK_ROWS", 3)
    blocks = list(trec_io.iter_run_parts(path, 1))
    # a block ends with the query that reaches 3, 6, 9 or 12 rows (in id
    # order: 3 | 4 8 | 10 | 15); the last query is never cut off alone
    assert [sorted(set(b._q.strings().tolist())) for b in blocks] == [
        ["q0"],
        ["q1", "q2"],
        ["q3"],
        ["q4"],
    ]
    assert [len(b) for b in blocks] == [3, 5, 2, 5]
    for block in blocks:
        for q, d, line in zip(
            block._q.strings(), block._d.strings(), block._lines, strict=True
        ):
            assert d.startswith(q) and lines[line].startswith(f"{q} Q0 {d} ")
