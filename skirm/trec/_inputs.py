"""Inputs: qrels and runs, from any shape users hold, as the stages read them.

The qrels become :class:`~skirm.io._records.QrelsRows` once; a run becomes
blocks of rows (:class:`~skirm.io._records.RunBlock`), streamed from a file
a few MiB at a time (cut to at most :data:`MAX_BLOCK_QUERIES` queries) or
whole for any other shape, which worker threads evaluate while the next ones
are read.
"""

from __future__ import annotations

import collections
import itertools
import os
import stat
import warnings

from skirm._errors import RunNotGroupedError
from skirm._validation import is_path
from skirm.io._convert import convert_qrels, convert_run
from skirm.io._records import RunBlock, qrels_rows, run_rows
from skirm.io._runs import count_parts, iter_run_blocks, iter_run_parts

#: Threads that evaluate the blocks of a streamed run (at most).
MAX_THREADS = 4

#: Queries of a streamed block evaluated at once (at most): a block of many
#: short queries is cut, so that the values a worker thread holds stay small
#: (its allocator keeps the memory of a large block once freed).
MAX_BLOCK_QUERIES = 1 << 13


def qrels_input(qrels):
    """The rows of qrels given in any shape :func:`skirm.io.as_qrels` takes."""
    return qrels_rows(convert_qrels(qrels, "qrels"))


def run_input(run):
    """The rows of a run given in any shape :func:`skirm.io.as_run` takes, as
    one block."""
    return run_rows(convert_run(run, "run"))


def run_blocks(run, on_read=None):
    """The run's blocks (each with all rows of its queries), and a restart.

    A path is streamed block by block, each of at most
    :data:`MAX_BLOCK_QUERIES` queries; if its queries turn out not to be
    grouped, ``restart()`` gives the run again in parts by query hash (read
    in passes, memory bounded by the largest part). An open file is read
    whole; so is a pipe's path, and every other shape :func:`skirm.io.as_run`
    takes.
    ``on_read(done, total)`` is told the bytes of the file read as it is
    streamed (see :func:`~skirm.io._runs.iter_run_blocks`).
    """
    if not is_path(run) or _is_stream(run):
        return [run_input(run)], None

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

    return _cut(iter_run_blocks(run, on_read=on_read)), restart


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
        starts = block.q.run_starts()
        if starts.shape[0] <= MAX_BLOCK_QUERIES:
            yield block
            continue
        bounds = [*starts[::MAX_BLOCK_QUERIES].tolist(), len(block)]
        for lo, hi in itertools.pairwise(bounds):
            rows = slice(lo, hi)
            part = RunBlock(
                block.q.take(rows),
                block.d.take(rows),
                block.scores[rows],
                None if block.lines is None else block.lines[rows],
                block.name,
                block.run_id,
            )
            part.q._runs = starts[(starts >= lo) & (starts < hi)] - lo
            yield part


def map_blocks(step, blocks, restart, new_sink=list):
    """``step(block)`` of each of the run's blocks, in order, appended to a
    sink as it comes: ``new_sink()`` makes one (anew if the run is restarted
    because it is not grouped), which is returned. The default gives
    ``[step(block)]``."""

    def gather(blocks):
        sink = new_sink()
        for result in _threaded_map(step, blocks):
            sink.append(result)
        return sink

    try:
        return gather(blocks)
    except RunNotGroupedError as exc:
        if restart is None:  # pragma: no cover - only streams raise it
            raise
        return gather(restart(exc))


def _n_threads():
    try:
        return min(len(os.sched_getaffinity(0)), MAX_THREADS)
    except AttributeError:  # pragma: no cover - not on Linux
        return min(os.cpu_count() or 1, MAX_THREADS)


def _threaded_map(step, blocks):
    """``step(block)`` of each block, yielded in order; blocks are evaluated
    by worker threads while the next ones are read (numpy releases the GIL
    in its loops). At most one block per thread waits, and each result is
    yielded as soon as its turn comes, so memory stays bounded. A run of one
    block is evaluated in the calling thread: there is nothing to read
    meanwhile, and memory a worker thread's allocator arena holds after a
    large block is not given back as readily as the main thread's."""
    n = _n_threads()
    if n < 2 or isinstance(blocks, list):
        yield from map(step, blocks)
        return
    blocks = iter(blocks)
    head = list(itertools.islice(blocks, 2))
    if len(head) < 2:
        yield from map(step, head)
        return
    # Imported here: a run of one block (the usual small run) never loads
    # the pool (nor the logging module it imports).
    import concurrent.futures

    pending = collections.deque()
    pool = concurrent.futures.ThreadPoolExecutor(n)
    try:
        for block in itertools.chain(head, blocks):
            pending.append(pool.submit(step, block))
            while len(pending) > n:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BaseException:
        # An error, an interrupt (Ctrl-C) or a caller that stops reading:
        # the blocks not started are dropped and the running ones are not
        # waited for, so the caller gets control back at once.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
