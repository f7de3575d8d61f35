"""Run rows, read whole, block by block (streamed) or in parts by query.

A :class:`~skirm.io.Run` holds rows of a run as byte tokens, scores and file
lines. :func:`iter_run_blocks` streams a file a few MiB at a time, each block
holding every row of its queries; :func:`iter_run_parts` reads a run whose
queries are interleaved in a few passes, one part of the queries (by hash)
per pass.
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from skirm._errors import RunNotGroupedError
from skirm.io._coded_tokens import CodedTokens
from skirm.io._columns import Column, TokenColumn
from skirm.io._keys import stable_code_sort
from skirm.io._records import Run
from skirm.io._text import Source, Table
from skirm.io._tokens import PAD, Tokens

#: Bytes read at a time when a run is streamed: a few times the CPU cache,
#: small next to the file.
BLOCK_BYTES = 1 << 22
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
    return Run._from_tokens(
        table.tokens(0),
        table.tokens(2),
        scores,
        table.file_lines(),
        name,
        run_id=run_id,
    )


class LineBlocks:
    """Whole lines of a source, ``size`` bytes at a time.

    :meth:`read` returns a new buffer whose first ``end`` bytes are whole
    lines (the rest of the input at its end); the bytes after them come
    first in the next buffer, and :meth:`put_back` adds more of them.
    """

    def __init__(self, src, size):
        if src.regular and src.size:
            # a file smaller than a block: its size, one byte more telling
            # its end (no block of zeros allocated beyond); a size of 0 (a
            # file of /proc) is not trusted
            size = min(size, src.size + 1)
        self.src, self.size = src, size
        self.carry, self.eof, self.line0 = b"", False, 0

    def read(self):
        carry = self.carry
        data = bytearray(len(carry) + self.size + PAD)
        data[: len(carry)] = carry
        got = self.src.fill(memoryview(data)[len(carry) : len(carry) + self.size])
        n = len(carry) + got
        self.src.check_split(data, n)
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
    contiguous (TREC runs are grouped by query):
    :class:`~skirm.io.RunNotGroupedError` is raised on the first query that
    appears again after another. A query that fills a block is read on in
    blocks of the same size, each one's rows kept compact
    (:class:`_LongQuery`), and is a block of its own. ``on_read(done,
    total)``, if given, is called after each read with the bytes of the file
    read and its size (:meth:`Source.position`).
    """
    src = Source(source)
    blocks, seen = LineBlocks(src, block_bytes or BLOCK_BYTES), set()
    long = None  # the rows read so far of a query that fills blocks
    try:
        while True:
            data, end = blocks.read()
            if on_read is not None:
                on_read(*src.position())
            if not end and not blocks.eof:  # one line fills the block
                blocks.put_back(0)
                blocks.grow()
                data = None  # freed before the larger read
                continue
            table = blocks.table(data, end, src.name)
            rows = table.lines.shape[0] if table is not None else 0
            starts = table.tokens(0).run_starts() if rows else np.zeros(1, int)
            if long is not None:
                done = long.extend(table, starts, blocks)
                if done is not None:
                    _check_grouped(done, seen)
                    long = table = starts = None
                    yield done
                if blocks.eof and not blocks.carry:
                    return
                continue
            cut = rows if blocks.eof else int(starts[-1])  # the last query
            if not rows and not blocks.eof:  # comment and blank lines only
                blocks.line0 += table.line_starts.shape[0]
                continue
            if not cut and not blocks.eof:  # one query fills the block
                long = _LongQuery(table, src.name, blocks)
                data = table = starts = None
                continue
            if cut:
                if cut < rows:  # the last query goes to the next block
                    blocks.put_back(int(table.line_starts[table.lines[cut]]))
                    blocks.line0 += int(table.lines[cut])
                else:
                    blocks.line0 += table.line_starts.shape[0]
                table.head(cut)
                block = run_block(table, src.name)
                block._q._runs = starts[starts < cut]  # its queries' first rows
                # the table's other per-line arrays are not kept while the
                # block is evaluated
                table = starts = None
                _check_grouped(block, seen)
                yield block
            if blocks.eof:
                return
    finally:
        src.close()


class _LongQuery:
    """The rows of a query that fills blocks: each block's rows of it are
    appended to compact columns (docno bytes, scores, lines), and the
    block's bytes freed, until a block holds another query."""

    def __init__(self, table, name, blocks):
        self.name = name
        self.query = table.tokens(0).strings(np.zeros(1, dtype=np.int64))  # 1 id
        self.docs, self.scores = TokenColumn(), Column(np.float64)
        self.lines = Column(np.int32)
        self.run_id = None
        self._append(table, table.lines.shape[0], blocks)

    def _append(self, table, k, blocks):
        """Keep the first ``k`` rows of ``table``; the file's lines of the
        block up to them are counted as read."""
        block = run_block(table, self.name)  # checks every row of the block
        take = slice(0, k)
        self.docs.append(block._d.take(take))
        self.scores.append(block.scores[take])
        lines = block._lines[take]
        self.lines.append(lines, int(lines[-1]) + 1 if k else 0)
        if k:
            s, e = table.field_start[5][k - 1], table.field_end[5][k - 1]
            self.run_id = table.data[s:e].decode("utf-8", "replace")
        if k < table.lines.shape[0]:  # the rest is read again, as a block
            blocks.put_back(int(table.line_starts[table.lines[k]]))
            blocks.line0 += int(table.lines[k])
        else:
            blocks.line0 += table.line_starts.shape[0]

    def extend(self, table, starts, blocks):
        """Append the block's rows of the query; the whole query's block
        once a row of another query (or the end of the file) is met, else
        None."""
        rows = table.lines.shape[0] if table is not None else 0
        k = 0
        first = table.tokens(0).strings(np.zeros(1, dtype=np.int64)) if rows else None
        if rows and first[0] == self.query[0]:
            k = int(starts[1]) if starts.shape[0] > 1 else rows
        if table is not None:
            self._append(table, k, blocks)
        if k == rows and not blocks.eof:
            return None
        n = len(self.docs)
        # one query: a code array of no memory (read-only, every row 0)
        q = CodedTokens(np.broadcast_to(np.int32(0), (n,)), self.query)
        q._runs = np.zeros(1 if n else 0, dtype=np.intp)
        return Run._from_tokens(
            q,
            self.docs.finish(),
            self.scores.finish(),
            self.lines.finish(),
            self.name,
            run_id=self.run_id,
        )


def _check_grouped(block, seen):
    """Each query of ``block`` in one run of rows and not in ``seen``."""
    starts = block._q.run_starts()
    ids = block._q.strings(starts).tolist()
    new = set(ids)
    if len(new) == len(ids) and seen.isdisjoint(new):
        seen.update(new)
        return
    earlier = set(seen)
    for start, query in zip(starts.tolist(), ids, strict=True):
        if query in earlier:
            line = int(block._lines[start])
            raise RunNotGroupedError(
                f"{block._source}:{line + 1}: query {query!r} appears again after "
                "other queries; a run streamed query by query must keep each "
                "query's lines together",
                name=block._source,
                line=line,
                query=query,
            )
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


def by_query(block):
    """``(grouped, codes, ids, starts)``: the rows of a run ``block`` by
    query, in the order of its sorted query ``ids``, each query's rows in
    their order (a stable sort: the ties of ``ties="input"`` keep their
    order); each row's index into ``ids`` and each query's first row. The
    query ids become codes into ``ids`` (:class:`CodedTokens`): no offset of
    their bytes is moved."""
    codes, ids = block._query_codes()
    n_ids = ids.shape[0]
    order = stable_code_sort(codes, n_ids)
    sizes = np.bincount(codes, minlength=n_ids)
    codes = np.repeat(np.arange(n_ids), sizes)
    queries = CodedTokens(codes, ids)
    queries._runs = np.cumsum(sizes) - sizes
    grouped = Run._from_tokens(
        queries,
        block._d.take(order),
        block.scores[order],
        None if block._lines is None else block._lines[order],
        block._source,
        run_id=block.run_id,
    )
    grouped.__dict__["_qcodes"] = codes, ids
    return grouped, codes, ids, queries._runs


def _split_by_query(block, n_rows):
    """``block`` in blocks of whole queries (:func:`by_query`), about
    ``n_rows`` rows each, each with its queries' codes."""
    n = len(block)
    if not n:
        yield block
        return
    grouped, codes, ids, starts = by_query(block)
    ends = np.append(starts[1:], n)  # row count up to each query
    cuts = np.unique(np.searchsorted(ends, np.arange(n_rows, n, n_rows)))
    bounds = [0, *ends[cuts[cuts < ends.shape[0] - 1]].tolist(), n]
    for lo, hi in itertools.pairwise(bounds):
        first, last = int(codes[lo]), int(codes[hi - 1]) + 1
        part = rows_of(grouped, lo, hi, starts[first:last] - lo)
        part.__dict__["_qcodes"] = codes[lo:hi] - first, ids[first:last]
        yield part


def rows_of(block, lo, hi, runs):
    """Rows ``lo:hi`` of a run ``block`` as a run of their own, whose
    queries' rows start at ``runs`` (counted from ``lo``)."""
    rows = slice(lo, hi)
    part = Run._from_tokens(
        block._q.take(rows),
        block._d.take(rows),
        block.scores[rows],
        None if block._lines is None else block._lines[rows],
        block._source,
        run_id=block.run_id,
    )
    part._q._runs = runs
    return part


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
            mine = np.flatnonzero(block._q.hash() % np.uint64(n_parts) == part)
            q, d = block._q.take(mine).compact(), block._d.take(mine).compact()
            kept.append((q, d, block.scores[mine], block._lines[mine]))
        if blocks.eof:
            break
    if not kept:
        zero = np.zeros(0, dtype=np.int64)
        empty = Tokens(np.zeros(PAD, dtype=np.uint8), zero, zero)
        return Run._from_tokens(
            empty, empty, np.zeros(0), zero, src.name, run_id=run_id
        )
    q, d, scores, lines = zip(*kept, strict=True)
    return Run._from_tokens(
        Tokens.concat(q),
        Tokens.concat(d),
        np.concatenate(scores),
        np.concatenate(lines),
        src.name,
        run_id=run_id,
    )
