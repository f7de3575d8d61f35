"""Inputs: qrels and runs, from any shape users hold, as the stages read them.

The qrels become a :class:`~skirm.io.Qrels` once (their index kept with
them); a run becomes blocks of rows (each a :class:`~skirm.io.Run`),
streamed from a file a few MiB at a time (cut to at most
:data:`MAX_BLOCK_QUERIES` queries), or read whole from any other shape and
cut in blocks of whole queries of :data:`MEMORY_BLOCK_ROWS` rows or more
(its queries' rows put together first where they are scattered); worker
threads evaluate the blocks while the next ones are read or cut.
"""

from __future__ import annotations

import itertools
import os
import stat
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from skirm._engine import share_blocks
from skirm._errors import DuplicateDocnoError, InvalidParameterError, RunNotGroupedError
from skirm._measures._rows import PREFS, QRELS, QRELS_JG
from skirm.io._convert import convert_qrels, convert_run
from skirm.io._join import FIRST_ROW, index_of
from skirm.io._keys import any_equal
from skirm.io._prefs import Prefs, read_prefs, read_qrels_prefs
from skirm.io._records import Qrels
from skirm.io._run_blocks import (
    by_query,
    count_parts,
    iter_run_blocks,
    iter_run_parts,
    rows_of,
)
from skirm.io._sources import is_path
from skirm.io._subtopics import convert_qrels_jg
from skirm.io._tokens import MANY_RUNS

#: Queries of a streamed block evaluated at once (at most): a block of many
#: short queries is cut, so that the values a worker thread holds stay small
#: (its allocator keeps the memory of a large block once freed).
MAX_BLOCK_QUERIES = 1 << 13


#: The judgements of the diversity measures: subtopic judgments, read as
#: judgment groups are (the second column names the subtopic).
SUBTOPICS = "subtopics"
#: What ``rel_format="qrels_jg"`` needs, told before the shapes it takes.
JG_NEEDED = "`qrels` must be judgment groups for rel_format='qrels_jg'"


def judgements(qrels, kind):
    """Judgements given in any shape, read once, the one door of the TREC
    path into io's readers and converters: the container of their ``kind``,
    :class:`~skirm.io.Qrels` (graded: ``"qrels"``),
    :class:`~skirm.io.QrelsJG` (``"qrels_jg"``, or the subtopics of the
    diversity measures: :data:`SUBTOPICS`) or :class:`~skirm.io.Prefs`
    (``"prefs"``, or a qrels file read as preferences: ``"qrels_prefs"``)."""
    if kind == QRELS:
        return convert_qrels(qrels, "qrels")
    if kind in (QRELS_JG, SUBTOPICS):
        try:
            return convert_qrels_jg(qrels, "qrels")
        except InvalidParameterError as exc:
            if kind == SUBTOPICS:
                raise
            raise InvalidParameterError(f"{JG_NEEDED}: {exc}") from None
    if isinstance(qrels, Prefs):
        return qrels
    if isinstance(qrels, Qrels):
        return Prefs(
            qrels.query_ids,
            np.full(len(qrels), "0"),
            np.full(len(qrels), "0"),
            qrels.doc_ids,
            qrels.labels.astype(np.float64),
        )
    return read_prefs(qrels) if kind == PREFS else read_qrels_prefs(qrels)


def qrels_input(qrels):
    """The index (:class:`~skirm.io._join.QrelsIndex`) of qrels given in any
    shape :func:`skirm.io.as_qrels` takes, kept with a
    :class:`~skirm.io.Qrels` given as it is."""
    return index_of(judgements(qrels, QRELS))


def run_input(run):
    """The rows of a run given in any shape :func:`skirm.io.as_run` takes, as
    one block."""
    return convert_run(run, "run")


class Restart(NamedTuple):
    """How :func:`map_blocks` starts over when a block raises ``on``: with
    the blocks ``blocks(exc)`` gives."""

    on: type[Exception]
    blocks: Callable


def run_blocks(run, on_read=None):
    """The run's blocks (each with all rows of its queries), and a
    :class:`Restart` (or None).

    A path is streamed block by block, each of at most
    :data:`MAX_BLOCK_QUERIES` queries; if its queries turn out not to be
    grouped, the restart gives the run again in parts by query hash (read
    in passes, memory bounded by the largest part). An open file is read
    whole; so is a pipe's path, and every other shape :func:`skirm.io.as_run`
    takes (then cut as :func:`_in_memory` says).
    ``on_read(done, total)`` is told the bytes of the file read as it is
    streamed (see :func:`~skirm.io._run_blocks.iter_run_blocks`).
    """
    if not is_path(run) or _is_stream(run):
        return _in_memory(run_input(run))

    def restart(exc):
        n_parts = count_parts(run)
        if n_parts > 1:
            warnings.warn(
                f"{exc}; evaluating the run in {n_parts} passes over the file "
                "instead of one (sort it by query to stream it in one pass)",
                UserWarning,
                stacklevel=6,  # evaluate_run
            )
        return _cut(iter_run_parts(run, n_parts, on_read))

    return _cut(iter_run_blocks(run, on_read=on_read)), Restart(
        RunNotGroupedError, restart
    )


#: Rows of an in-memory run evaluated at once (about): a run of grouped
#: queries is cut in blocks of whole queries of this many rows or more, which
#: worker threads evaluate, each block's temporaries in the caches. A run of
#: four such blocks or more has blocks up to twice as large (a quarter of
#: the run): each block costs a few ms of calls whatever its size. Measured
#: on pandas frames of 1M rows, 10,000 queries: blocks of 2**17 rows
#: 151-167 ms, 2**18 rows 137-141 ms; of 300,000 and 500,000 rows, blocks of
#: 2**17 rows as fast or faster (two blocks leave a thread idle sooner).
MEMORY_BLOCK_ROWS = 1 << 17


def _in_memory(block):
    """``(blocks, restart)`` of a run read whole: the run itself, unless it
    holds more than :data:`MEMORY_BLOCK_ROWS` rows (then blocks of about
    that many rows or more, as a streamed file's are, each query in one
    block; the per-query values are the same).

    A run whose runs of equal query ids all hold different ids (their
    hashes differ) is cut at once: each part finds its queries' codes where
    it is evaluated. A run whose queries' rows are not together (shuffled,
    or sorted by score) has them put together first
    (:func:`~skirm.io._run_blocks.by_query`). Its duplicate
    docnos are then told by the run as given, evaluated whole (the
    :class:`Restart`): the message names the rows, and the repeat, that
    evaluation finds."""
    n = len(block)
    if n <= MEMORY_BLOCK_ROWS:
        return [block], None
    query_tokens = block._tokens()[0]
    starts = query_tokens.run_starts()
    grouped = starts.shape[0] <= MANY_RUNS and not any_equal(
        query_tokens.take(starts).hash(cache=False)
    )  # the runs' ids all differ (their hashes do): each query's rows together
    restart = codes = ids = None
    if not grouped:
        codes, ids = block._query_codes()
        if starts.shape[0] != ids.shape[0]:  # a query in several runs of rows
            given = block
            block, codes, ids, starts = by_query(block)
            restart = Restart(DuplicateDocnoError, lambda exc: [given])
    rows = min(max(MEMORY_BLOCK_ROWS, n // 4), 2 * MEMORY_BLOCK_ROWS)
    wanted = np.arange(rows, n, rows)
    at = np.minimum(np.searchsorted(starts, wanted), starts.shape[0] - 1)
    bounds = np.unique(np.concatenate([[0], starts[at], [n]])).tolist()
    if grouped:  # each part finds its queries' codes where it is evaluated
        pairs = itertools.pairwise(bounds)
        return (_part(block, lo, hi, starts) for lo, hi in pairs), None
    return _parts(block, codes, ids, starts, bounds), restart


def _parts(block, codes, ids, starts, bounds):
    """The parts of a grouped ``block`` between consecutive ``bounds``
    (first rows of queries), each with its queries' codes (``codes`` and
    ``ids``: the block's :meth:`~skirm.io.Run._query_codes`) and runs."""
    for lo, hi in itertools.pairwise(bounds):
        part = _part(block, lo, hi, starts)
        inside = codes[part._q._runs + lo]  # one code per query, in row order
        order = np.argsort(inside)
        rank = np.empty(order.shape[0], dtype=np.intp)
        rank[order] = np.arange(order.shape[0])
        sizes = np.diff(np.append(part._q._runs, hi - lo))
        part.__dict__["_qcodes"] = np.repeat(rank, sizes), ids[inside[order]]
        yield part


def _part(block, lo, hi, starts):
    """Rows ``lo:hi`` of a ``block`` as a run of their own (the queries'
    runs of rows, ``starts``, carried over; the first row's place kept for
    messages that name a row)."""
    part = rows_of(block, lo, hi, starts[(starts >= lo) & (starts < hi)] - lo)
    part.__dict__[FIRST_ROW] = block.__dict__.get(FIRST_ROW, 0) + lo
    return part


def _is_stream(path):
    """Whether ``path`` names a pipe or another file that cannot be read
    twice (``<(zcat run.gz)``): read whole, as an open file is."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # missing: the reader says so
        return False


def _cut(blocks):
    """The blocks, each of more than :data:`MAX_BLOCK_QUERIES` queries cut
    in consecutive ones of that many (each query's rows are together)."""
    for block in blocks:
        starts = block._q.run_starts()
        if starts.shape[0] <= MAX_BLOCK_QUERIES:
            yield block
            continue
        bounds = [*starts[::MAX_BLOCK_QUERIES].tolist(), len(block)]
        known = block.__dict__.get("_qcodes")
        if known is not None:  # a part put together by query: codes passed on
            yield from _parts(block, *known, starts, bounds)
            continue
        for lo, hi in itertools.pairwise(bounds):  # each finds its own codes
            yield _part(block, lo, hi, starts)


def map_blocks(step, blocks, restart, new_sink=list):
    """``step(block)`` of each of the run's blocks, in order, appended to a
    sink as it comes: ``new_sink()`` makes one (anew if the blocks raise
    what the :class:`Restart` ``restart`` answers, for its blocks), which
    is returned. The default gives ``[step(block)]``. The blocks are shared
    out by :func:`~skirm._engine.share_blocks`: each thread (the calling one
    among them) takes the next block, made or read then, and evaluates it.
    """

    def gather(blocks):
        sink = new_sink()
        for result in share_blocks(step, blocks):
            sink.append(result)
        return sink

    answered = () if restart is None else restart.on
    try:
        return gather(blocks)
    except answered as exc:
        return gather(restart.blocks(exc))
