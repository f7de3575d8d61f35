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
    import skirm._cli._eval

    real = skirm._cli._eval.evaluate_path

    def warned(*args, **kwargs):
        warnings.warn(
            "the run is not grouped by query\nsecond line", UserWarning, stacklevel=2
        )
        return real(*args, **kwargs)

    monkeypatch.setattr(skirm._cli._eval, "evaluate_path", warned)
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
