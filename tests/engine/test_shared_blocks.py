"""Blocks made in memory, shared out to threads with the calling thread one
of the workers (:func:`skirm._engine.share_blocks`), and calls run side by
side (:func:`skirm._engine.side_by_side`).

The oracle is the loop in one thread: the same results in the same order,
the error of the first failing block (or call) once the ones before it have
run, and no block made after a failure is known.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import skirm._engine._threads as threads


def _shared(step, n_blocks, n_threads, monkeypatch, fail_making=None):
    """``share_blocks(step, ...)`` of blocks 0, 1, ... made one by one (a
    generator, as a run's parts are), on ``n_threads`` threads, and the
    blocks made so far; making block ``fail_making`` raises."""
    monkeypatch.setattr(threads, "n_threads", lambda: n_threads)
    made = []

    def blocks():
        for i in range(n_blocks):
            if i == fail_making:
                raise KeyError(f"block {i} not made")
            made.append(i)
            yield i

    return threads.share_blocks(step, blocks()), made


@pytest.mark.parametrize("n_threads", [1, 2, 4])
@pytest.mark.parametrize("n_blocks", [0, 1, 2, 3, 40])
def test_share_blocks_yields_each_block_s_result_in_order(
    n_threads, n_blocks, monkeypatch
):
    rng = np.random.default_rng(n_blocks)
    pauses = rng.random(n_blocks) / 2000  # blocks that end out of order
    ran_in = {}

    def step(i):
        time.sleep(pauses[i])
        ran_in[i] = threading.get_ident()
        return i * i

    before = set(threading.enumerate())
    results, made = _shared(step, n_blocks, n_threads, monkeypatch)
    assert list(results) == [i * i for i in range(n_blocks)]
    assert made == list(range(n_blocks))  # each block made once, in order
    assert len(set(ran_in.values())) <= n_threads
    if n_threads == 1:  # no thread started: every block in the caller's
        assert set(ran_in.values()) <= {threading.get_ident()}
    assert set(threading.enumerate()) <= before  # its threads ended with it


def test_share_blocks_maps_a_list_of_one_block_in_the_calling_thread(monkeypatch):
    monkeypatch.setattr(threads, "n_threads", lambda: 4)
    before = set(threading.enumerate())
    seen = []

    def step(block):
        seen.append((threading.get_ident(), set(threading.enumerate())))
        return block + 1

    assert list(threads.share_blocks(step, [41])) == [42]
    ((ident, alive),) = seen
    assert ident == threading.get_ident() and alive == before  # no thread started


def test_share_blocks_has_the_calling_thread_take_blocks(monkeypatch):
    # the helpers wait until the calling thread has run a block of its own
    monkeypatch.setattr(threads, "n_threads", lambda: 2)
    caller = threading.get_ident()
    ran = threading.Event()

    def step(i):
        if threading.get_ident() == caller:
            ran.set()
        else:
            ran.wait(timeout=10)
        return i

    assert list(threads.share_blocks(step, iter(range(6)))) == list(range(6))
    assert ran.is_set()


@pytest.mark.parametrize("n_threads", [1, 2, 3])
@pytest.mark.parametrize("failing", [0, 1, 5, 39])
def test_share_blocks_raises_a_block_s_error_at_its_turn(
    n_threads, failing, monkeypatch
):
    made_then = []

    def step(i):
        if i == failing:
            made_then.append(len(made))
            raise ValueError(f"block {i} failed")
        time.sleep(0.001)
        return i

    results, made = _shared(step, 40, n_threads, monkeypatch)
    got = []
    with pytest.raises(ValueError, match=f"^block {failing} failed$"):
        got.extend(results)
    assert got == list(range(failing))  # the results before it, in order
    # no block taken once it failed: each other thread at most the one it was
    # taking then (a block takes 1 ms, the failure is known within it)
    assert len(made) <= made_then[0] + n_threads - 1


@pytest.mark.parametrize("n_threads", [1, 2, 3])
@pytest.mark.parametrize("failing", [0, 1, 7])
def test_share_blocks_raises_the_error_of_making_a_block_at_its_turn(
    n_threads, failing, monkeypatch
):
    results, made = _shared(lambda i: -i, 20, n_threads, monkeypatch, failing)
    got = []
    with pytest.raises(KeyError, match=f"block {failing} not made"):
        got.extend(results)
    assert got == [-i for i in range(failing)]
    assert made == list(range(failing))


def test_share_blocks_stopped_early_takes_no_more_blocks(monkeypatch):
    def step(i):
        time.sleep(0.005)
        return i

    before = set(threading.enumerate())
    results, made = _shared(step, 100, 2, monkeypatch)
    assert next(results) == 0
    results.close()  # the caller stops reading: no block taken from now on
    taken = len(made)
    deadline = time.monotonic() + 10
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.01)  # the helper ends once its block is done
    assert not set(threading.enumerate()) - before
    assert len(made) == taken < 20


def test_shared_blocks_left_unfinished_let_the_interpreter_exit():
    code = (
        "import itertools, time\n"
        "import skirm._engine._threads as t\n"
        "t.n_threads = lambda: 2\n"
        "def step(i):\n"
        "    time.sleep(0.01)\n"
        "    return i\n"
        "kept = t.share_blocks(step, itertools.count())\n"
        "print(next(kept))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "0\n"


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_side_by_side_returns_each_call_s_result_in_order(n_threads, monkeypatch):
    monkeypatch.setattr(threads, "n_threads", lambda: n_threads)
    meet = threading.Barrier(min(n_threads, 2))

    def first():
        meet.wait(timeout=10)  # with two threads, the calls run at once
        return "first"

    def second():
        meet.wait(timeout=10)
        return "second"

    assert threads.side_by_side(first, second) == ["first", "second"]


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("failing", [(0,), (1,), (0, 1)])
def test_side_by_side_raises_the_first_failing_call_s_error(
    n_threads, failing, monkeypatch
):
    monkeypatch.setattr(threads, "n_threads", lambda: n_threads)
    ran = []

    def call(i):
        def run():
            ran.append(i)
            if i in failing:
                raise ValueError(f"call {i} failed")
            return i

        return run

    with pytest.raises(ValueError, match=f"^call {min(failing)} failed$"):
        threads.side_by_side(call(0), call(1))
    assert 0 in ran  # the calls before the failing one have run


@pytest.mark.parametrize("making", [False, True])
def test_share_blocks_raise_the_caller_s_interrupt_at_once(making, monkeypatch):
    # Ctrl-C while the calling thread runs (or reads) a block: raised at
    # once, the helper's block not waited for, no block taken after it
    monkeypatch.setattr(threads, "n_threads", lambda: 2)
    caller, release = threading.get_ident(), threading.Event()
    made = []

    def blocks():
        for i in range(100):
            if making and i and threading.get_ident() == caller:
                raise KeyboardInterrupt
            made.append(i)
            yield i

    def step(i):
        if threading.get_ident() != caller:
            release.wait(timeout=10)  # the helper's block takes long
        elif i or not making:
            raise KeyboardInterrupt
        return i

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        list(threads.share_blocks(step, blocks()))
    assert time.monotonic() - start < 5
    release.set()
    assert len(made) <= 3
