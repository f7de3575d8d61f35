"""Runs held as ``{qid: {docno: score}}`` read into the union of their rows.

Several runs to fuse hold, per query, overlapping sets of docnos; the rows
of the fusion are the union of those sets, with each run's score of each
row (NaN where the run lacks it). For runs held as plain dicts, the inner
dicts already are hash tables of their docnos, their hashes computed: the
union and the columns of scores are read with C dict operations only (no
Python statement per query or row, no numpy string array), where reading
each run into string columns and matching them again by hashing would
build every string a second time.

For each query, in the sorted order of the query ids, the union grows one
run at a time: ``keys = dict.fromkeys(keys, nan)``, then
``keys.update(inner)`` (run ``j``'s dict). Its keys are then the docnos of
runs ``0 .. j`` (those of run 0 in its order, then the new ones of run 1,
...), and its values run ``j``'s scores, NaN where run ``j`` lacks the
docno: run ``j``'s column over the first rows of the final union, each row
matched by one dict look-up of the run's own entries. Run 0's column is its
own values (its rows come first). The union's docnos become byte tokens
through a ``"\\0".join`` and an encoding, the NULs found by numpy. The
queries are read in blocks (:data:`BLOCK_ROWS`), each block's runs in turn
(its docnos joined and encoded with them), so that each pass finds the
block's dicts in the cache.

:func:`union_rows` returns None for anything it does not take as it is:
runs that are not plain dicts, a docno that is not a str or holds a NUL, a
score that is not a real number (a str, which numpy would read as a number)
or is NaN (:func:`~skirm.io._dict_rows.plain_score_types`, the check of
every dicts reader), no rows at all. The caller then reads the runs as records (whose
messages say what is wrong), with the same rows.
"""

from __future__ import annotations

from collections import deque
from itertools import chain, compress, repeat
from typing import NamedTuple

import numpy as np

from skirm.io._dict_rows import (
    dict_values,
    plain_dicts,
    plain_score_types,
    plain_scores,
    query_blocks,
)
from skirm.io._keys import offset_dtype
from skirm.io._tokens import PAD, Tokens

__all__ = ["UnionRows", "union_rows"]

_NAN = float("nan")


class UnionRows(NamedTuple):
    """The union of the rows of several runs: ``X`` (each run's score of
    each row, NaN where it lacks it), ``codes`` (each row's index into
    ``query_ids``, the sorted ids of the queries with rows), ``docs`` (each
    row's docno). Each query's rows are consecutive, in code order; inside
    a query, run 0's docnos in its order, then those run 1 adds, and so on.
    """

    X: np.ndarray
    codes: np.ndarray
    query_ids: np.ndarray
    docs: Tokens


def union_rows(runs) -> UnionRows | None:
    """The :class:`UnionRows` of ``runs`` (a list), or None where they are
    not all plain dicts of str docnos and real scores (see the module)."""
    if not runs or not all(map(plain_dicts, runs)):
        return None
    with_rows: set[str] = set()
    for run in runs:  # one pass per run, not per query
        with_rows.update(compress(run, run.values()))
    if not with_rows:
        return None
    query_ids = sorted(with_rows)
    try:  # the query ids are made tokens too (of the fused run)
        "".join(query_ids).encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return None
    empty: dict = {}  # never written: each union is a new dict
    inner = [list(map(run.get, query_ids, repeat(empty))) for run in runs]
    # the queries in blocks of about BLOCK_ROWS entries of the runs' dicts
    entries = np.zeros(len(query_ids) + 1, dtype=np.intp)
    np.cumsum(sum(map(_sizes, inner)), out=entries[1:])
    blocks = []
    for a, b in query_blocks(entries, BLOCK_ROWS):
        block = _union_block([part[a:b] for part in inner])
        if block is None:
            return None
        blocks.append(block)
    union = np.concatenate([sizes for _, sizes, _ in blocks])
    n = int(union.sum())
    # one column per run, each contiguous (as the fusion reads them)
    X = np.empty((n, len(runs)), order="F")
    at = 0
    for values, _, _ in blocks:
        X[at : at + values.shape[0]] = values
        at += values.shape[0]
    docs = _tokens([docnos for _, _, docnos in blocks], n)
    if docs is None:
        return None
    codes = np.repeat(np.arange(len(query_ids), dtype=np.intp), union)
    return UnionRows(X, codes, np.array(query_ids, dtype=str), docs)


#: The queries are read in blocks of about this many entries of the runs'
#: dicts, so that each run's pass over a block finds the block's dicts in
#: the cache where the pass before left them. (Measured: 3 runs x 10,000
#: queries x 100 documents read in 547-573 ms in one block, 336-372 ms in
#: blocks of 50 to 200 queries, 15,000 to 60,000 entries.)
BLOCK_ROWS = 32_768


def _union_block(parts):
    """``(X, sizes, docnos)`` of the queries of one block (``parts``: each
    run's dicts of them): each run's score of each row of the union (NaN
    where the run lacks it), the rows of each query, and their docnos
    joined by NULs, encoded; None where the block is not plain (see the
    module)."""
    sizes = [_sizes(part) for part in parts]
    counts = [int(s.sum()) for s in sizes]
    # run 0's column read as it is; the other runs' scores are read once,
    # from the union so far updated with them (a score that does not
    # convert, or a NaN, sends the runs to the general path, which says
    # which score is wrong)
    first = plain_scores(parts[0], counts[0])
    if first is None or not all(map(plain_score_types, parts[1:], counts[1:])):
        return None
    # (values of the first rows of each query, their counts), run by run
    columns = [(first, sizes[0])]
    keys = parts[0]
    try:
        for part in parts[1:]:
            keys = list(map(dict.fromkeys, keys, repeat(_NAN)))
            deque(map(dict.update, keys, part), maxlen=0)
            prefix = _sizes(keys)
            columns.append((dict_values(keys, int(prefix.sum())), prefix))
    except (TypeError, ValueError, OverflowError):
        return None
    union = columns[-1][1]
    X = np.empty((int(union.sum()), len(parts)), order="F")
    starts = _starts(union)
    for j, (values, prefix) in enumerate(columns):
        if values.shape[0] - np.count_nonzero(np.isnan(values)) != counts[j]:
            return None  # a NaN score (the union's gaps are its only NaNs)
        if prefix is union:  # the last run's: every row
            X[:, j] = values
        else:
            X[:, j] = np.nan
            X[_rows_of(prefix, starts), j] = values
    try:
        docnos = "\0".join(chain.from_iterable(keys))
        return X, union, docnos.encode("utf-8", "surrogateescape")
    except (TypeError, UnicodeEncodeError):
        return None  # a docno not a str, or that does not encode


def _sizes(dicts) -> np.ndarray:
    return np.fromiter(map(len, dicts), dtype=np.intp, count=len(dicts))


def _starts(sizes) -> np.ndarray:
    """Where each of the consecutive parts of ``sizes`` starts."""
    return np.cumsum(sizes) - sizes


def _rows_of(prefix, starts) -> np.ndarray:
    """The rows of the first ``prefix[q]`` rows of each query ``q`` (its
    rows starting at ``starts[q]``)."""
    offset = starts - _starts(prefix)
    return np.arange(int(prefix.sum()), dtype=np.intp) + np.repeat(offset, prefix)


def _tokens(parts, n) -> Tokens | None:
    """The ``n`` docnos of ``parts`` (each the NUL-joined UTF-8 of its
    block's docnos), one after another, as tokens; None where a docno holds
    a NUL."""
    data = b"\0".join(parts)
    size = len(data)
    buf = np.zeros(size + PAD, dtype=np.uint8)
    buf[:size] = np.frombuffer(data, dtype=np.uint8)
    del data
    nul = np.flatnonzero(buf[:size] == 0)
    if nul.shape[0] != n - 1:  # a docno holds a NUL
        return None
    dtype = offset_dtype(size + PAD)
    end = np.empty(n, dtype=dtype)
    end[:-1] = nul
    end[-1] = size
    start = np.empty(n, dtype=dtype)
    start[0] = 0
    np.add(nul, 1, out=start[1:], casting="unsafe")
    return Tokens(buf, start, end)
