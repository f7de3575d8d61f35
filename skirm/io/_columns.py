"""Columns grown block by block: what a reader keeps of the blocks it read.

A reader that reads a file a block at a time appends to these only what it
keeps of each block: numbers, and tokens copied into one buffer of their
own bytes (:class:`TokenColumn`), so that the block's bytes and per-line
offsets are freed before the next block is read.
"""

from __future__ import annotations

import numpy as np

from skirm.io._keys import offset_dtype
from skirm.io._tokens import PAD, Tokens


class Column:
    """A 1-D array grown at its end.

    It grows in place (``ndarray.resize``: a large array is remapped, not
    copied) by a quarter at a time, so that its unused room stays small; its
    integers widen from int32 to int64 when a value needs it.
    """

    def __init__(self, dtype):
        self.values = np.zeros(1 << 12, dtype=dtype)
        self.n = 0

    def append(self, values, top=0):
        """Append ``values``; ``top`` is an upper bound of them (for the
        width of an integer column)."""
        end = self.n + values.shape[0]
        if self.values.dtype == np.int32 and offset_dtype(top) == np.int64:
            self.values = self.values.astype(np.int64)
        size = self.values.shape[0]
        if end > size:
            self.values.resize(max(end, size + size // 4), refcheck=False)
        self.values[self.n : end] = values
        self.n = end

    def reserve(self, size):
        """Room for ``size`` values: a new zeroed array, whose pages cost
        no memory until written (unlike the zeros ``ndarray.resize`` writes
        when it grows), for a column whose final size can be estimated."""
        if size > self.values.shape[0]:
            values = np.zeros(size, dtype=self.values.dtype)
            values[: self.n] = self.values[: self.n]
            self.values = values

    def finish(self, extra=0):
        """The column (``extra`` zeros after its values)."""
        self.values.resize(self.n + extra, refcheck=False)
        return self.values


class TokenColumn:
    """Tokens appended into one buffer of their bytes; each token's end is
    the next one's start, so both are views of one array of offsets."""

    def __init__(self):
        self.bytes, self.offsets = Column(np.uint8), Column(np.int32)
        self.offsets.append(np.zeros(1, dtype=np.int32))  # the first start

    def __len__(self):
        return self.offsets.n - 1

    def append(self, tokens):
        """Append the bytes of ``tokens`` (a :class:`Tokens`)."""
        d = tokens.compact()
        size, n = (int(d.end[-1]) if len(d) else 0), self.bytes.n
        top = n + size + PAD
        self.offsets.append(d.end.astype(offset_dtype(top), copy=False) + n, top)
        self.bytes.append(d.buf[:size])

    def reserve(self, n, n_bytes):
        """Room for ``n`` tokens of ``n_bytes`` bytes in all."""
        self.offsets.reserve(n + 1)
        self.bytes.reserve(n_bytes + PAD)

    def finish(self):
        """The tokens appended, as one column."""
        buf = self.bytes.finish(PAD)
        offsets = self.offsets.finish()
        return Tokens(buf, offsets[:-1], offsets[1:])
