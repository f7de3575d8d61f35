"""Tasks shared out to threads: a list of them, the calling thread one of
the workers (:func:`share_out`, :func:`side_by_side`); blocks made in memory,
mapped in order, the calling thread one of the workers
(:func:`share_blocks`: the parts of a run held in memory); or a stream of
items mapped in order while the next ones are read (:func:`stream_map`: the
blocks of a streamed run)."""

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


def side_by_side(*calls):
    """``[call() for call in calls]``, the calls run side by side on up to
    :func:`n_threads` threads, the calling thread one of them; errors as
    :func:`share_out` raises them (the first failing call's, once the calls
    before it have run: what a loop would raise)."""
    return share_out(lambda i: calls[i](), len(calls), min(len(calls), n_threads()))


def share_blocks(step, blocks):
    """``step(block)`` of each block, yielded in order, on up to
    :func:`n_threads` threads, the calling thread one of them: each thread
    takes the next block (made by ``blocks``, an iterable, in order, one at
    a time) when it is free. For blocks made in memory (the parts of a run
    held whole): there is no reading for the calling thread to do meanwhile,
    and every thread more than needed costs its start and an allocator
    arena of its own, whose fresh pages each block then touches.

    Results are yielded by the calling thread, in order, between its own
    blocks (those of other threads that are ahead wait for their turn). An
    error of a block is raised at its turn, once the results before it are
    yielded; no block after the failing one is taken. A list of fewer than
    two blocks is mapped in the calling thread."""
    n = n_threads()
    if n < 2 or (isinstance(blocks, list) and len(blocks) < 2):
        yield from map(step, blocks)
        return
    import threading

    shared = _Shared(step, iter(blocks), threading.Lock())
    # daemons: a caller that stops reading (or an interrupt) does not wait
    # for the blocks running in them
    helpers = [threading.Thread(target=shared.work, daemon=True) for _ in range(n - 1)]
    for thread in helpers:
        thread.start()
    try:
        while shared.run_next():
            yield from shared.ready()
        for thread in helpers:
            thread.join()
        yield from shared.ready()
    finally:
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
        while self.run_next():
            pass

    def run_next(self):
        """Take the next block and run it; False when none is left (or a
        block failed: none after it is taken)."""
        with self.lock:
            if self.stopped:
                return False
            i = self.taken
            try:
                block = next(self.blocks)
            except StopIteration:
                self.stopped = True
                return False
            except BaseException as exc:  # making the block: its error
                self.errors[i] = exc
                self.stopped = True
                return False
            self.taken += 1
        try:
            self.results[i] = self.step(block)
        except BaseException as exc:  # raised at its turn, by ready()
            with self.lock:
                self.errors[i] = exc
                self.stopped = True
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
