"""Tasks shared out to threads: a list of them, the calling thread one of
the workers (:func:`share_out`), or a stream of items mapped in order while
the next ones are read (:func:`stream_map`: the blocks of a streamed run)."""

from __future__ import annotations

import collections
import itertools
import os

#: Threads that map a stream of items (at most).
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


def n_threads():
    try:
        return min(len(os.sched_getaffinity(0)), MAX_THREADS)
    except AttributeError:  # pragma: no cover - not on Linux
        return min(os.cpu_count() or 1, MAX_THREADS)


def stream_map(step, blocks):
    """``step(block)`` of each block, yielded in order; blocks are evaluated
    by worker threads while the next ones are read (numpy releases the GIL
    in its loops). At most one block per thread waits, and each result is
    yielded as soon as its turn comes, so memory stays bounded. A run of one
    block is evaluated in the calling thread: there is nothing to read
    meanwhile, and memory a worker thread's allocator arena holds after a
    large block is not given back as readily as the main thread's.

    An error of a block is raised at its turn, once the results before it
    are yielded. On an error, an interrupt (Ctrl-C) or a caller that stops
    reading, the blocks not started are dropped and the running ones are
    not waited for, so the caller gets control back at once."""
    n = n_threads()
    if n < 2 or isinstance(blocks, list):
        yield from map(step, blocks)
        return
    blocks = iter(blocks)
    head = list(itertools.islice(blocks, 2))
    if len(head) < 2:
        yield from map(step, head)
        return
    pool = _Pool(step, n)
    try:
        pending = collections.deque()
        for block in itertools.chain(head, blocks):
            pending.append(pool.submit(block))
            while len(pending) > n:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BaseException:
        pool.close(cancel=True)
        raise
    pool.close()


class _Pool:
    """Threads that each run ``step`` on the blocks handed to them, in turn.

    Made of ``threading`` alone: ``concurrent.futures`` would import
    ``logging`` (4 ms) on the first streamed evaluation of each process."""

    def __init__(self, step, n):
        import queue  # for a stream of several blocks only
        import threading

        self.step, self.cancelled, self.new_lock = step, False, threading.Lock
        self.inbox = queue.SimpleQueue()
        # daemons: a stream left unfinished (its generator kept, by a
        # traceback say) must not keep the interpreter from exiting
        self.threads = [
            threading.Thread(target=self._work, daemon=True) for _ in range(n)
        ]
        for thread in self.threads:
            thread.start()

    def submit(self, block):
        """The :class:`_Result` of ``step(block)``, when a thread has run it."""
        result = _Result(self.new_lock())
        self.inbox.put((result, block))
        return result

    def _work(self):
        while (task := self.inbox.get()) is not None:
            result, block = task
            if self.cancelled:  # dropped: no one waits for it
                continue
            try:
                result.value = self.step(block)
            except BaseException as exc:  # raised at its turn, by result()
                result.error = exc
            result.done.release()

    def close(self, cancel=False):
        """Stop the threads once their blocks are done; with ``cancel``,
        drop the blocks not started, and return without waiting."""
        if cancel:
            self.cancelled = True
        for _ in self.threads:
            self.inbox.put(None)
        if not cancel:
            for thread in self.threads:
                thread.join()


class _Result:
    """The result of one block: its value or its error, once ``done``."""

    def __init__(self, done):
        self.value, self.error = None, None
        self.done = done  # a lock, released by the thread that runs the block
        done.acquire()

    def result(self):
        self.done.acquire()
        if self.error is not None:
            raise self.error
        return self.value
