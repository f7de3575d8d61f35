"""The command line at its edges: Ctrl-C, a closed pipe, warnings.

The signals are sent to a real ``python -m skirm`` process, evaluating a
generated run of 20,000 queries in blocks on worker threads.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import warnings

import numpy as np
import pytest

from skirm._cli import main

N_QUERIES, N_DOCS = 20_000, 20


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A qrels file and a run of 400,000 lines (seeded)."""
    root = tmp_path_factory.mktemp("signals")
    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(N_QUERIES), N_DOCS).tolist()
    d = np.tile(np.arange(N_DOCS), N_QUERIES).tolist()
    scores = rng.random(N_QUERIES * N_DOCS).tolist()
    (root / "run").write_text(
        "".join(
            f"q{a} Q0 d{b} 0 {c:.6f} r\n" for a, b, c in zip(q, d, scores, strict=True)
        )
    )
    relevant = np.flatnonzero(rng.random(len(q)) < 0.2).tolist()
    (root / "qrels").write_text("".join(f"q{q[i]} 0 d{d[i]} 1\n" for i in relevant))
    return root


def _skirm(args, **kwargs):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.Popen(
        [sys.executable, "-m", "skirm", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        **kwargs,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_is_one_line_and_status_130(big):
    # Many runs: the first run's lines come out as soon as it is done, and
    # Ctrl-C arrives while the next ones are evaluated by worker threads.
    runs = [str(big / "run")] * 30
    process = _skirm(
        ["eval", "--format", "trec", "-m", "all_trec", str(big / "qrels"), *runs]
    )
    first = process.stdout.readline()  # the first run is done
    assert first.startswith(b"runid")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err == b"skirm eval: interrupted\n"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_pipe_closed_early_is_quiet(big):
    # `skirm eval -q ... | head -1`: nothing on standard error, status 141
    # (128 + SIGPIPE), as for any command a closed pipe ends.
    process = _skirm(["eval", "-q", "-m", "map", str(big / "qrels"), str(big / "run")])
    assert process.stdout.readline().startswith(b"map")
    process.stdout.close()
    with process.stderr:
        err = process.stderr.read()
    process.wait(timeout=60)
    assert process.returncode == 141
    assert err == b""


def test_a_warning_is_one_line_in_the_command_s_words(monkeypatch, tmp_path):
    # Regression: warnings came with a Python source path
    # ("skirm/trec/_evaluate_run.py:255: UserWarning: ...").
    import skirm._cli._eval_command

    real = skirm._cli._eval_command.evaluate_path

    def warned(*args, **kwargs):
        warnings.warn(
            "the run is not grouped by query\nsecond line", UserWarning, stacklevel=2
        )
        return real(*args, **kwargs)

    monkeypatch.setattr(skirm._cli._eval_command, "evaluate_path", warned)
    (tmp_path / "qrels").write_text("q 0 d 1\n")
    (tmp_path / "run").write_text("q Q0 d 1 1.0 r\n")
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        status = main(
            ["eval", "-m", "map", str(tmp_path / "qrels"), str(tmp_path / "run")]
        )
    assert status == 0
    assert err.getvalue() == "skirm eval: warning: the run is not grouped by query\n"


# -- Ctrl-C during start-up, and the runs done on a terminal (issue 51,
# -- item 14) ----------------------------------------------------------------

INTERRUPTED_IMPORT = """
import builtins, sys
real = builtins.__import__

def interrupted(name, *args, **kwargs):
    if name == {module!r}:
        raise KeyboardInterrupt  # Ctrl-C while the command's modules load
    return real(name, *args, **kwargs)

builtins.__import__ = interrupted
from skirm.__main__ import main
sys.exit(main())
"""


@pytest.mark.parametrize(
    "module", ["skirm._cli", "skirm._cli._eval_command", "argparse"]
)
def test_ctrl_c_during_start_up_is_one_line_regression(module):
    """Ctrl-C while the command started printed a Python traceback."""
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IMPORT.format(module=module), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 130
    assert done.stderr == "skirm: interrupted\n"
    assert done.stdout == ""


def _small(root):
    (root / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n")
    (root / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq2 Q0 d1 1 1 a\n")
    (root / "b.run").write_text("q1 Q0 d2 1 2.0 b\nq1 Q0 d1 2 1.0 b\nq2 Q0 d1 1 1 b\n")
    fifo = root / "third.run"
    os.mkfifo(fifo)
    return fifo


def _interrupt_at_the_third_run(root, fifo, stdout):
    """``skirm eval`` of three runs, the third a FIFO: once skirm opens it
    (the first two done), Ctrl-C. ``(status, stderr)``."""
    argv = ["eval", "-m", "map", "-m", "P.1", str(root / "qrels")]
    argv += [str(root / "a.run"), str(root / "b.run"), str(fifo)]
    process = subprocess.Popen(
        [sys.executable, "-m", "skirm", *argv],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONWARNINGS": "ignore", "COLUMNS": "100"},
    )
    with open(fifo, "w"):  # returns once skirm has opened it for reading
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    return process.returncode, out, err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals, a FIFO, a pty")
def test_ctrl_c_on_a_terminal_prints_the_runs_done_regression(tmp_path):
    """On a terminal (the table layout, written when every run is done),
    Ctrl-C lost the finished runs' results, which a pipe kept."""
    import pty

    fifo = _small(tmp_path)
    leader, follower = pty.openpty()
    try:
        status, _, err = _interrupt_at_the_third_run(tmp_path, fifo, follower)
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the terminal is closed: all read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
    assert status == 130
    assert err == b"skirm eval: interrupted\n"
    table = [line.split() for line in shown.decode().splitlines()]
    assert table == [
        ["measure", "a", "b"],  # the two runs done, side by side
        ["map", "1.0000", "0.7500"],
        ["P_1", "1.0000", "0.5000"],
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals, a FIFO")
def test_ctrl_c_on_a_pipe_keeps_the_runs_done(tmp_path):
    fifo = _small(tmp_path)
    status, out, err = _interrupt_at_the_third_run(tmp_path, fifo, subprocess.PIPE)
    assert status == 130 and err == b"skirm eval: interrupted\n"
    # trec_eval's layout, each run written as soon as it is done
    runs = [line.split()[2] for line in out.decode().splitlines() if "runid" in line]
    assert runs == ["a", "b"]
