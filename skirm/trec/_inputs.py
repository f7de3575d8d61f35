"""Inputs: qrels and runs, from any shape users hold, as the stages read them.

The qrels become :class:`~skirm.io._records.QrelsRows` once; a run becomes
blocks of rows (:class:`~skirm.io._records.RunBlock`), streamed from a file
a few MiB at a time or whole for any other shape, which worker threads
evaluate while the next ones are read.
"""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
import os
import warnings

from skirm.io._convert import convert_qrels, convert_run
from skirm.io._records import qrels_rows, run_rows
from skirm.io._runs import RunNotGrouped, count_parts, iter_run_blocks, iter_run_parts

#: Threads that evaluate the blocks of a streamed run (at most).
MAX_THREADS = 4


def qrels_input(qrels):
    """The rows of qrels given in any shape :func:`skirm.io.as_qrels` takes."""
    return qrels_rows(convert_qrels(qrels, "qrels"))


def run_input(run):
    """The rows of a run given in any shape :func:`skirm.io.as_run` takes, as
    one block."""
    return run_rows(convert_run(run, "run"))


def run_blocks(run, on_read=None):
    """The run's blocks (each with all rows of its queries), and a restart.

    A path is streamed block by block; if its queries turn out not to be
    grouped, ``restart()`` gives the run again in parts by query hash (read
    in passes, memory bounded by the largest part). An open file is read
    whole; so is every other shape :func:`skirm.io.as_run` takes.
    ``on_read(done, total)`` is told the bytes of the file read as it is
    streamed (see :func:`~skirm.io._runs.iter_run_blocks`).
    """
    if not isinstance(run, (str, os.PathLike)):
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
        return iter_run_parts(run, n_parts, on_read)

    return iter_run_blocks(run, on_read=on_read), restart


def map_blocks(step, blocks, restart):
    """``[step(block)]`` over the run's blocks, restarted if not grouped."""
    try:
        return _threaded_map(step, blocks)
    except RunNotGrouped as exc:
        if restart is None:  # pragma: no cover - only streams raise it
            raise
        return _threaded_map(step, restart(exc))


def _n_threads():
    try:
        return min(len(os.sched_getaffinity(0)), MAX_THREADS)
    except AttributeError:  # pragma: no cover - not on Linux
        return min(os.cpu_count() or 1, MAX_THREADS)


def _threaded_map(step, blocks):
    """``[step(block)]`` in order; blocks are evaluated by worker threads
    while the next ones are read (numpy releases the GIL in its loops). At
    most one block per thread waits, so memory stays bounded. A run of one
    block is evaluated in the calling thread: there is nothing to read
    meanwhile, and memory a worker thread's allocator arena holds after a
    large block is not given back as readily as the main thread's."""
    n = _n_threads()
    if n < 2 or isinstance(blocks, list):
        return [step(block) for block in blocks]
    blocks = iter(blocks)
    head = list(itertools.islice(blocks, 2))
    if len(head) < 2:
        return [step(block) for block in head]
    out, pending = [], collections.deque()
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        for block in itertools.chain(head, blocks):
            pending.append(pool.submit(step, block))
            while len(pending) > n:
                out.append(pending.popleft().result())
        out.extend(future.result() for future in pending)
    return out
