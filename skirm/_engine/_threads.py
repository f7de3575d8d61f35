"""Tasks shared out to threads, the calling thread always one of the
workers: a list of them (:func:`share_out`, :func:`side_by_side`), or blocks
made one at a time and mapped in order (:func:`share_blocks`: the parts of a
run held in memory, the blocks of a run file as they are read)."""

from __future__ import annotations

import itertools
import os

#: Threads that map a run's blocks (at most).
MAX_THREADS = 4


def share_out(function, n_tasks, n_threads):
    """``[function(i) for i in range(n_tasks)]`` on ``n_threads`` threads, the
    calling thread one of them: each takes the next task when it is free.

    No thread waits on another to hand results over (each wake-up of a
    waiting thread takes the GIL back from the working ones). When tasks
    fail, every task before the first failing one has run, and that task's
    error is raised: the error a loop in one thread would raise.
    """
    import threading  # for a request of several threads only

    results = [None] * n_tasks
    errors = {}
    first_error = [n_tasks]  # the first failing task so far
    lock = threading.Lock()
    tasks = itertools.count()

    def work():
        while True:
            i = next(tasks)  # atomic: each task goes to one thread, in order
            if i >= first_error[0]:  # no task left before the first failure
                return
            try:
                results[i] = function(i)
            except BaseException as exc:  # re-raised below, in task order
                with lock:
                    errors[i] = exc
                    first_error[0] = min(first_error[0], i)
                return

    threads = [threading.Thread(target=work) for _ in range(n_threads - 1)]
    for thread in threads:
        thread.start()
    try:
        work()
    finally:
        for thread in threads:
            thread.join()
    if errors:
        raise errors[first_error[0]]
    return results


def side_by_side(*calls):
    """``[call() for call in calls]``, the calls run side by side on up to
    :func:`n_threads` threads, the calling thread one of them; errors as
    :func:`share_out` raises them (the first failing call's, once the calls
    before it have run: what a loop would raise)."""
    return share_out(lambda i: calls[i](), len(calls), min(len(calls), n_threads()))


def share_blocks(step, blocks):
    """``step(block)`` of each block, yielded in order, on up to
    :func:`n_threads` threads, the calling thread one of them: each thread
    takes the next block (``blocks`` makes them in order, one at a time:
    the parts of a run in memory, or the blocks of a file, read then) when
    it is free, and runs it. The calling thread takes the first block before
    any other thread starts: a run of one block is evaluated by it alone
    (the memory a helper's allocator arena holds after a large block is not
    given back as readily as the main thread's). At most one block per
    thread is held at a time; the results of blocks that end before their
    turn wait for it.

    Results are yielded by the calling thread, in order, between its own
    blocks. An error of a block (or of making one) is raised at its turn,
    once the results before it are yielded; no block is taken after it.
    When the caller stops reading or is interrupted (Ctrl-C, raised at
    once), no block is taken any more and the running ones are not waited
    for."""
    n = n_threads()
    if n < 2 or (isinstance(blocks, list) and len(blocks) < 2):
        yield from map(step, blocks)
        return
    import threading

    shared = _Shared(step, iter(blocks), threading.Lock())
    taken = shared.take(caller=True)
    if taken is None:  # no block, or making the first one failed
        yield from shared.ready()
        return
    # daemons: a caller that stops reading (or an interrupt) does not wait
    # for the blocks running in them
    helpers = [threading.Thread(target=shared.work, daemon=True) for _ in range(n - 1)]
    for thread in helpers:
        thread.start()
    try:
        while taken is not None:
            done = shared.run(*taken, caller=True)
            taken = None  # the block freed before the next one is read
            if not done:
                break
            yield from shared.ready()
            taken = shared.take(caller=True)
        for thread in helpers:
            thread.join()
        yield from shared.ready()
    finally:
        with shared.lock:  # once this returns, no block is taken
            shared.stopped = True


class _Shared:
    """The state of :func:`share_blocks`: the blocks not taken yet, the
    results and errors by block, and the next one to yield."""

    def __init__(self, step, blocks, lock):
        self.step, self.blocks, self.lock = step, blocks, lock
        self.results, self.errors = {}, {}
        self.taken = self.next_out = 0
        self.stopped = False

    def work(self):
        while (taken := self.take()) is not None:
            done = self.run(*taken)
            del taken  # the block freed before the next one is read
            if not done:
                return

    def take(self, caller=False):
        """``(i, block)``: the next block and its place; None when none is
        left, or a block failed (none after it is taken). The ``caller``'s
        interrupt (Ctrl-C) is raised at once, not at its turn."""
        with self.lock:
            if self.stopped:
                return None
            i = self.taken
            try:
                block = next(self.blocks)
            except StopIteration:
                self.stopped = True
                return None
            except BaseException as exc:  # making the block: its error
                self.errors[i] = exc
                self.stopped = True
                if caller and not isinstance(exc, Exception):
                    raise
                return None
            self.taken += 1
            return i, block

    def run(self, i, block, caller=False):
        """Run block ``i``; False if it failed (the ``caller``'s interrupt
        is raised at once)."""
        try:
            self.results[i] = self.step(block)
        except BaseException as exc:  # raised at its turn, by ready()
            with self.lock:
                self.errors[i] = exc
                self.stopped = True
            if caller and not isinstance(exc, Exception):
                raise
            return False
        return True

    def ready(self):
        """The results whose turn has come, in order; the error of a block
        at its turn."""
        while True:
            i = self.next_out
            if i in self.errors:
                raise self.errors.pop(i)
            if i not in self.results:
                return
            self.next_out += 1
            yield self.results.pop(i)


def n_threads():
    try:
        return min(len(os.sched_getaffinity(0)), MAX_THREADS)
    except AttributeError:  # pragma: no cover - not on Linux
        return min(os.cpu_count() or 1, MAX_THREADS)
