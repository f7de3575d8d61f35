"""Tasks shared out to threads, the calling thread one of them."""

from __future__ import annotations

import itertools


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
