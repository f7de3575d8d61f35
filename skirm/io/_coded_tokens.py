"""A column of few distinct tokens, held as a code per row.

The query column of qrels repeats a few thousand ids over millions of rows:
:class:`CodedTokens` keeps one code per row (int32 when the rows allow) and
the distinct ids once, instead of two offsets and a length per row. Its
codes, strings, hashes and run starts come from the codes alone; every other
:class:`~skirm.io._tokens.Tokens` operation sees the offsets of each row's
token in a buffer of the distinct ids, built on first use.
"""

from __future__ import annotations

import numpy as np

from skirm.io._tokens import Tokens


class CodedTokens(Tokens):
    """Token ``i`` is ``ids[codes[i]]``.

    Parameters
    ----------
    codes : ndarray of int
        The index of each row's token into ``ids``.
    ids : ndarray of str
        The sorted distinct tokens.
    distinct : Tokens, optional
        ``ids`` as tokens, if already built.
    """

    def __init__(self, codes, ids, distinct=None):
        self._codes, self.ids = codes, ids
        self._distinct = Tokens.from_strings(ids) if distinct is None else distinct
        self.buf = self._distinct.buf
        self._words = self._hash = self._runs = self._offsets = self._order = None

    def _expanded(self):
        """``(start, end, length)`` of every row, in the distinct ids' buffer
        (built once, on the first operation that reads bytes)."""
        if self._offsets is None:
            d, codes = self._distinct, self._codes
            self._offsets = (d.start[codes], d.end[codes], d.length[codes])
        return self._offsets

    @property
    def start(self):
        return self._expanded()[0]

    @property
    def end(self):
        return self._expanded()[1]

    @property
    def length(self):
        return self._expanded()[2]

    def __len__(self):
        return int(self._codes.shape[0])

    def take(self, rows):
        out = CodedTokens(self._codes[rows], self.ids, self._distinct)
        if self._order is not None:
            out._order = self._order[rows]
        return out

    def codes(self):
        return self._codes, self.ids

    def run_starts(self):
        if self._runs is None:
            codes = self._codes
            self._runs = np.flatnonzero(
                np.concatenate(([True], codes[1:] != codes[:-1]))
            )
        return self._runs

    def hash(self, cache=True):
        if self._hash is not None:
            return self._hash
        h = self._distinct.hash()[self._codes]
        if cache:
            self._hash = h
        return h

    def strings(self, rows=None):
        return self.ids[self._codes if rows is None else self._codes[rows]]
