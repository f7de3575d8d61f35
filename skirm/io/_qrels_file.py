"""Qrels files read block by block into compact columns.

A qrels file of millions of lines is read :data:`QRELS_BLOCK_BYTES` at a
time. Each block is tokenised and checked (:class:`~skirm.io._text.Table`),
then only what the qrels keep is appended to growing columns: the docnos'
bytes (one buffer without the rest of the line), each row's query as a code
into the block's distinct ids, its label and its file line. The file's bytes
and the per-line offsets of a block are freed before the next block is read,
so memory is the compact columns plus one block, not the whole file plus its
offsets. A small file read in one block (:data:`IN_PLACE_BYTES`) keeps its
docnos where they were read.
"""

from __future__ import annotations

import numpy as np

from skirm.io._coded_tokens import CodedTokens
from skirm.io._columns import Column, TokenColumn
from skirm.io._records import Qrels
from skirm.io._run_blocks import LineBlocks
from skirm.io._text import Source, Table

#: Bytes of a qrels file read at a time.
QRELS_BLOCK_BYTES = 1 << 24
#: A file read in one block of at most this many bytes (a regular file's
#: block is its size) keeps its docnos in the block's bytes: copying them into
#: a buffer of their own would save a little memory for a few milliseconds of
#: a small evaluation.
IN_PLACE_BYTES = 1 << 22

_QRELS_FIELDS = (0, 2, 3)
_QRELS_SHAPE = "4 fields: qid iter docno rel"


def read_qrels_rows(source) -> Qrels:
    """The rows of a qrels file (a path or an open file, ``.gz`` too).

    Each block is checked before the next one is read: a malformed line is
    reported as ``file:line`` (the first bad line of the first block that
    holds one: four fields, then an integer label).
    """
    src = Source(source)
    blocks, columns = LineBlocks(src, QRELS_BLOCK_BYTES), _Columns()
    first = True
    try:
        while True:
            data, end = blocks.read()
            if not end and not blocks.eof:  # one line fills the block
                blocks.put_back(0)
                blocks.grow()
                data = None
                continue
            if end:
                columns.append(
                    Table(data, end, src.name, _QRELS_FIELDS, blocks.line0), blocks
                )
                data = None
                if first and not blocks.eof:  # final sizes from the first block's
                    columns.reserve(*src.position())
                    first = False
            if blocks.eof:
                break
    finally:
        src.close()
    return columns.rows(src.name)


class _Columns:
    """What the qrels keep of the blocks read so far."""

    def __init__(self):
        self.docs = TokenColumn()
        self.codes, self.labels = Column(np.int32), Column(np.int64)
        self.lines = Column(np.int32)
        self.block_ids = []
        self.n_ids = 0
        self.in_place = None  # the docnos of a small file, in its bytes

    def append(self, table, blocks):
        """Check the lines of ``table`` (the last block of ``blocks``) and
        keep their columns."""
        blocks.line0 += table.line_starts.shape[0]
        n_lines = blocks.line0  # the lines of the file up to the block's end
        table.check_counts(4, 4, _QRELS_SHAPE, swapped=(6,))
        if not table.lines.shape[0]:  # comments and blank lines only
            return
        self.labels.append(
            table.numbers(3, np.int64, "expected an integer relevance label")
        )
        self.lines.append(table.file_lines(), n_lines)
        q = table.tokens(0)
        starts = q.run_starts()
        ids, inverse = np.unique(q.strings(starts), return_inverse=True)
        sizes = np.diff(np.append(starts, len(q)))
        top = self.n_ids + ids.shape[0]
        self.codes.append(np.repeat(inverse.reshape(-1) + self.n_ids, sizes), top)
        self.block_ids.append(ids)
        self.n_ids = top
        one = blocks.eof and len(self.block_ids) == 1  # the file in one block
        if one and len(table.data) <= IN_PLACE_BYTES:
            self.in_place = table.tokens(2)  # nothing to copy
        else:
            self.docs.append(table.tokens(2))

    def reserve(self, done, total):
        """Room for the rows of the whole file, estimated from those of its
        first ``done`` bytes (of ``total``; a little more), so that the
        columns do not grow; nothing for an open file (``None``)."""
        if not done or total is None:
            return
        scale = total / done * 1.05
        n = int(self.labels.n * scale) + 1024
        for column in (self.codes, self.labels, self.lines):
            column.reserve(n)
        self.docs.reserve(n, int(self.docs.bytes.n * scale) + 1024)

    def rows(self, name):
        """The :class:`~skirm.io.Qrels` of the columns: the block codes of the
        queries become codes into the sorted distinct ids of the file."""
        codes = self.codes.finish()
        if self.block_ids:
            ids, inverse = np.unique(
                np.concatenate(self.block_ids), return_inverse=True
            )
            codes = inverse.reshape(-1).astype(codes.dtype)[codes]
        else:
            ids = np.zeros(0, dtype=str)
        return Qrels._from_tokens(
            CodedTokens(codes, ids),
            self.docs.finish() if self.in_place is None else self.in_place,
            self.labels.finish(),
            self.lines.finish(),
            name,
        )
