"""Run rows, read whole, block by block (streamed) or in parts by query.

A :class:`RunBlock` holds rows of a run as byte tokens, scores and file
lines. :func:`iter_run_blocks` streams a file a few MiB at a time, each block
holding every row of its queries; :func:`iter_run_parts` reads a run whose
queries are interleaved in a few passes, one part of the queries (by hash)
per pass.
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from skirm.io._coded_tokens import CodedTokens
from skirm.io._records import RunBlock
from skirm.io._text import Source, Table
from skirm.io._tokens import PAD, Tokens, offset_dtype

#: Bytes read at a time when a run is streamed: a few times the CPU cache,
#: small next to the file.
BLOCK_BYTES = 1 << 22
#: A streamed block of more bytes than this (a query that outgrew
#: :data:`BLOCK_BYTES`) keeps its docnos compacted and its queries as codes
#: while it is evaluated, not the file's bytes.
COMPACT_BYTES = 1 << 24
#: Bytes of a run file per part when it is not grouped by query and is read
#: in parts (:func:`iter_run_parts`).
PART_BYTES = 1 << 27
#: Rows per block when a part is evaluated.
PART_BLOCK_ROWS = 1 << 17


_RUN_FIELDS = (0, 2, 4, 5)
_RUN_SHAPE = "6 fields: qid iter docno rank score run_id"


def run_table(data, n, name, line0):
    """Tokens and scores of the run lines in ``data[:n]`` (checked)."""
    table = Table(data, n, name, _RUN_FIELDS, line0, indented=True)
    table.check_counts(6, np.iinfo(np.intp).max, _RUN_SHAPE, swapped=(4,))
    return table


def run_block(table, name):
    scores = table.numbers(4, np.float64, "expected a numeric score")
    if np.isnan(scores).any():
        raise table.error(int(np.argmax(np.isnan(scores))), "expected a numeric score")
    run_id = None
    if table.lines.shape[0]:
        s, e = table.field_start[5][-1], table.field_end[5][-1]
        run_id = table.data[s:e].decode("utf-8", "replace")
    return RunBlock(
        table.tokens(0), table.tokens(2), scores, table.file_lines(), name, run_id
    )


class RunNotGrouped(ValueError):
    """A streamed run whose rows of one query are not contiguous."""

    def __init__(self, name, line, query):
        self.name, self.line, self.query = name, line, query
        super().__init__(
            f"{name}:{line + 1}: query {query!r} appears again after other "
            "queries; a run streamed query by query must keep each query's "
            "lines together"
        )


class LineBlocks:
    """Whole lines of a source, ``size`` bytes at a time.

    :meth:`read` returns a new buffer whose first ``end`` bytes are whole
    lines (the rest of the input at its end); the bytes after them come
    first in the next buffer, and :meth:`put_back` adds more of them.
    """

    def __init__(self, src, size):
        self.src, self.size = src, size
        self.carry, self.eof, self.line0 = b"", False, 0

    def read(self):
        carry = self.carry
        data = bytearray(len(carry) + self.size + PAD)
        data[: len(carry)] = carry
        got = self.src.fill(memoryview(data)[len(carry) : len(carry) + self.size])
        n = len(carry) + got
        self.eof = got < self.size
        end = n if self.eof else data.rfind(b"\n", 0, n) + 1
        self.data, self.n, self.carry = data, n, bytes(data[end:n])
        return data, end

    def put_back(self, start):
        """Read the bytes from ``start`` of the last buffer again."""
        self.carry = bytes(self.data[start : self.n])
        self.data = None

    def grow(self):
        """Read twice as many bytes at a time, but no more than the rest of
        a file whose size is known (one byte more tells its end)."""
        self.size *= 2
        done, total = self.src.position()
        if self.src.size is not None:
            self.size = min(self.size, max(total - done, 0) + 1)

    def table(self, data, end, name):
        """The run lines of ``data[:end]``, numbered from :attr:`line0`."""
        return run_table(data, end, name, self.line0) if end else None


def iter_run_blocks(source, block_bytes=None, on_read=None):
    """Blocks of a run file, each holding every row of its queries.

    The file is read ``block_bytes`` at a time, so memory stays bounded
    whatever its size. The lines of the last query of a block go to the next
    block, so that no query is split; hence each query's lines must be
    contiguous (TREC runs are grouped by query): :class:`RunNotGrouped` is
    raised on the first query that appears again after another.
    ``on_read(done, total)``, if given, is called after each read with the
    bytes of the file read and its size (:meth:`Source.position`).
    """
    src = Source(source)
    blocks, seen = LineBlocks(src, block_bytes or BLOCK_BYTES), set()
    try:
        while True:
            data, end = blocks.read()
            if on_read is not None:
                on_read(*src.position())
            if not blocks.eof and _one_query(data, end):
                table = None  # the block grows before it is tokenised
            else:
                table = blocks.table(data, end, src.name)
            rows = table.lines.shape[0] if table is not None else 0
            starts = table.tokens(0).run_starts() if rows else np.zeros(1, int)
            cut = rows if blocks.eof else int(starts[-1])  # the last query
            if not cut and not blocks.eof:  # one query (or line) fills it
                blocks.put_back(0)
                blocks.grow()
                data = table = starts = None  # freed before the larger read
                continue
            if cut:
                if cut < rows:  # the last query goes to the next block
                    blocks.put_back(int(table.line_starts[table.lines[cut]]))
                    blocks.line0 += int(table.lines[cut])
                else:
                    blocks.line0 += table.line_starts.shape[0]
                table.head(cut)
                block = run_block(table, src.name)
                block.q._runs = starts[starts < cut]  # its queries' first rows
                # the table's other per-line arrays are not kept while the
                # block is evaluated
                table = starts = None
                if end > COMPACT_BYTES:
                    block = _compacted(block)
                    blocks.data = data = None
                _check_grouped(block, seen)
                yield block
            if blocks.eof:
                return
    finally:
        src.close()


def _compacted(block):
    """``block`` with its docnos in a buffer of their own and its queries as
    codes: the file's bytes are no longer needed."""
    codes, ids = block.q.codes()
    q = CodedTokens(codes.astype(offset_dtype(len(block)), copy=False), ids)
    d = block.d.compact()
    return RunBlock(q, d, block.scores, block.lines, block.name, block.run_id)


def _one_query(data, end):
    """Whether the first and the last line of ``data[:end]`` are data lines
    of one query (in a grouped run, so are the lines between them): then the
    block would be cut at its first line and grows, and tokenising it first
    would be wasted. A blank or comment line at either end says no."""
    if not end:
        return False
    last = data.rfind(b"\n", 0, end - 1) + 1
    first = data[: data.find(b"\n", 0, end) + 1].split(None, 1)[:1]
    final = data[last:end].split(None, 1)[:1]
    return bool(first) and first == final and not first[0].startswith(b"#")


def _check_grouped(block, seen):
    """Each query of ``block`` in one run of rows and not in ``seen``."""
    starts = block.q.run_starts()
    ids = block.q.strings(starts).tolist()
    new = set(ids)
    if len(new) == len(ids) and seen.isdisjoint(new):
        seen.update(new)
        return
    earlier = set(seen)
    for start, query in zip(starts.tolist(), ids, strict=True):
        if query in earlier:
            raise RunNotGrouped(block.name, int(block.lines[start]), query)
        earlier.add(query)


def count_parts(path):
    """Parts of :data:`PART_BYTES` in the file at ``path`` (at least 1)."""
    return max(1, -(-os.path.getsize(path) // PART_BYTES))


def iter_run_parts(source, n_parts, on_read=None):
    """The run in ``n_parts`` blocks: a hash of the query id picks the block
    of each row, so every block holds all rows of its queries, in any order.

    The file is read ``n_parts`` times; each pass keeps a copy of its own
    rows only, so memory is bounded by the largest part. ``on_read(done,
    total)`` is called after each read with the bytes read over all the
    passes and their total.
    """
    for part in range(n_parts):
        src = Source(source)
        try:
            block = _run_part(src, part, n_parts, on_read)
        finally:
            src.close()
        yield from _split_by_query(block, PART_BLOCK_ROWS)


def _split_by_query(block, n_rows):
    """``block`` in blocks of whole queries, about ``n_rows`` rows each."""
    codes, _ = block.queries()
    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(np.bincount(codes))  # row count up to each query
    cuts = np.unique(np.searchsorted(ends, np.arange(n_rows, len(block), n_rows)))
    bounds = [0, *ends[cuts[cuts < ends.shape[0] - 1]].tolist(), len(block)]
    for lo, hi in itertools.pairwise(bounds):
        rows = order[lo:hi]
        yield RunBlock(
            block.q.take(rows),
            block.d.take(rows),
            block.scores[rows],
            block.lines[rows],
            block.name,
            block.run_id,
        )


def _run_part(src, part, n_parts, on_read=None):
    """The rows of ``part`` (by query hash) of the run read from ``src``."""
    blocks, kept, run_id = LineBlocks(src, BLOCK_BYTES), [], None
    while True:
        data, end = blocks.read()
        if on_read is not None:
            done, size = src.position()
            if size is not None:
                on_read(part * size + done, n_parts * size)
        table = blocks.table(data, end, src.name)
        if table is not None:
            blocks.line0 += table.line_starts.shape[0]
            block = run_block(table, src.name)
            run_id = block.run_id if block.run_id is not None else run_id
            mine = np.flatnonzero(block.q.hash() % np.uint64(n_parts) == part)
            q, d = block.q.take(mine).compact(), block.d.take(mine).compact()
            kept.append((q, d, block.scores[mine], block.lines[mine]))
        if blocks.eof:
            break
    if not kept:
        zero = np.zeros(0, dtype=np.int64)
        empty = Tokens(np.zeros(PAD, dtype=np.uint8), zero, zero)
        return RunBlock(empty, empty, np.zeros(0), zero, src.name, run_id)
    q, d, scores, lines = zip(*kept, strict=True)
    return RunBlock(
        Tokens.concat(q),
        Tokens.concat(d),
        np.concatenate(scores),
        np.concatenate(lines),
        src.name,
        run_id,
    )
