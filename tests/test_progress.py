"""Progress of long work: the command line's status line on a terminal's
standard error, and ``verbose=`` of the Python functions.

The command line is driven as a user drives it, ``python -m skirm``, with
standard error on a pseudo-terminal and standard output a pipe; the line's
one-second delay is lowered by the private ``SKIRM_PROGRESS_DELAY``.
"""

import gzip
import inspect
import io
import os
import pty
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import skirm
import skirm.io._run_blocks
import skirm.stats._resampling
from skirm._progress import SILENT, VERBOSE, Progress, current, reporting
from skirm.metrics import EvaluationResult
from skirm.stats import compare
from skirm.trec import evaluate_run

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
QRELS, RUN, TRUNC = (
    str(DATA / n) for n in ("qrels.test", "results.test", "results.trunc")
)


# --------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------


def _skirm(argv, *, tty, delay="0"):
    """``(status, stdout bytes, stderr bytes)`` of ``python -m skirm argv``:
    standard output a pipe, standard error a pseudo-terminal or a pipe."""
    env = {**os.environ, "SKIRM_PROGRESS_DELAY": delay}
    command = [sys.executable, "-m", "skirm", *argv]
    if not tty:
        done = subprocess.run(
            command, capture_output=True, env=env, stdin=subprocess.DEVNULL
        )
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=slave,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    finally:
        os.close(slave)
    out = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()))
    reader.start()
    err = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    status = proc.wait(timeout=120)
    reader.join()
    proc.stdout.close()
    return status, out[0], err


def _clean_at_end(err):
    """The terminal is left clean: every line shown was overwritten in place
    (``\\r``, no newline) and the last write blanks the line."""
    assert b"\n" not in err
    last = err.rsplit(b"\r", 2)
    assert err.endswith(b"\r") and last[-2].strip(b" ") == b""
    assert len(last[-2]) >= max(len(line) for line in err.split(b"\r"))


@pytest.mark.slow
def test_eval_shows_progress_on_a_terminal_only():
    expected = (DATA / "out.test").read_bytes()  # trec_eval's own output
    status, out, err = _skirm(["eval", QRELS, RUN], tty=True)
    assert status == 0 and out == expected
    assert b"\rskirm eval: reading qrels.test" in err
    _clean_at_end(err)
    # standard error not a terminal: nothing, and the same bytes out
    status, out, err = _skirm(["eval", QRELS, RUN], tty=False)
    assert (status, out, err) == (0, expected, b"")
    status, out, err = _skirm(["eval", "--quiet", QRELS, RUN], tty=True)
    assert (status, out, err) == (0, expected, b"")


def test_eval_progress_waits_for_its_delay():
    # the default second: this evaluation is over long before
    status, out, err = _skirm(["eval", QRELS, RUN], tty=True, delay="60")
    assert status == 0 and err == b""
    assert out == (DATA / "out.test").read_bytes()


def test_eval_quiet_is_not_trec_eval_q():
    # -q still asks for the per-query values; --quiet only hides the line
    expected = (DATA / "out.test.aq").read_bytes()
    argv = ["eval", "-m", "all_trec", "-q", QRELS, RUN]
    for extra, tty in [([], False), ([], True), (["--quiet"], True)]:
        status, out, err = _skirm([*argv, *extra], tty=tty)
        assert status == 0 and out == expected
        assert (err == b"") == (not tty or bool(extra))


@pytest.mark.slow
def test_compare_shows_progress_on_a_terminal_only():
    # (the randomization test: the bootstrap test warns on so few queries)
    argv = ["compare", QRELS, RUN, TRUNC, "--test", "randomization", "--seed", "3"]
    argv += ["--n-resamples", "500", "-c", "--format", "csv"]
    status, expected, err = _skirm(argv, tty=False)
    assert status == 0 and err == b""
    # the header, 2 runs x 2 measures, the pair's 2 measures
    assert expected.count(b"\n") == 7
    status, out, err = _skirm(argv, tty=True)
    assert status == 0 and out == expected
    assert b"\rskirm compare: reading qrels.test" in err
    _clean_at_end(err)
    status, out, err = _skirm([*argv, "--quiet"], tty=True)
    assert (status, out, err) == (0, expected, b"")


def test_an_error_leaves_a_clean_line_then_the_message():
    status, out, err = _skirm(["eval", QRELS, str(DATA / "no-such-run")], tty=True)
    assert status == 2 and out == b""
    text = err.decode().replace("\r\n", "\n")  # the terminal's line ends
    assert "\rskirm eval: reading qrels.test" in text
    line, message = text.rsplit("\r", 1)
    assert message.startswith("skirm eval: error: cannot read")
    assert message.count("\n") == 1 and message.endswith("\n")
    assert line.rsplit("\r", 1)[-1].strip(" ") == ""


# --------------------------------------------------------------------------
# verbose= of the Python functions
# --------------------------------------------------------------------------


def _query_ids(path):
    return {line.split()[0] for line in Path(path).read_text().splitlines()}


def test_evaluate_run_verbose_writes_lines_to_stderr(capsys):
    result = evaluate_run(QRELS, RUN, "map", verbose=1)
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert all(line.startswith("skirm.trec.evaluate_run: ") for line in lines)
    n = len(_query_ids(RUN) & _query_ids(QRELS))
    assert re.search(rf"results\.test: 100% of .* read, {n} queries \(done", lines[-1])
    assert result.means == evaluate_run(QRELS, RUN, "map").means
    assert capsys.readouterr() == ("", "")  # verbose=0 (the default): nothing


def test_evaluate_run_verbose_without_a_path(capsys):
    from skirm.io import read_qrels, read_run

    evaluate_run(read_qrels(QRELS), read_run(RUN), "map", verbose=1)
    err = capsys.readouterr().err
    assert "the run: 3 queries (done" in err.splitlines()[-1]
    evaluate_run(QRELS, RUN, "prefs_simp", rel_format="qrels_prefs", verbose=1)
    err = capsys.readouterr().err
    assert "evaluating against qrels.test: 3 queries (done" in err


@pytest.mark.parametrize("verbose", ["yes", 1.5, None])
def test_verbose_must_be_an_integer(verbose):
    with pytest.raises(TypeError, match="`verbose` must be a non-negative integer"):
        evaluate_run(QRELS, RUN, "map", verbose=verbose)


def test_verbose_must_not_be_negative():
    message = "`verbose` must be a non-negative integer (0: silent), got -1 (int)"
    with pytest.raises(skirm.InvalidParameterError, match=f"^{re.escape(message)}$"):
        VERBOSE(-1)
    with pytest.raises(skirm.InvalidParameterError, match=r"got np\.True_ \(bool\)"):
        VERBOSE(np.True_)
    assert VERBOSE(True) == 1 and VERBOSE(np.int64(2)) == 2
    assert type(VERBOSE(np.int64(2))) is int


@pytest.mark.parametrize("function", [compare, evaluate_run])
def test_the_default_verbose_passes_its_rule(function):
    default = inspect.signature(function).parameters["verbose"].default
    assert VERBOSE(default) == default == 0


def _write_run(path, n_queries, seed):
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(n_queries):
        for rank in range(int(rng.integers(20, 60))):
            lines.append(f"q{q} Q0 d{rank} {rank + 1} {-rank / 7:.4f} r\n")
    path.write_text("".join(lines))
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_streamed_run_reports_every_block(tmp_path, monkeypatch, gz):
    # Small blocks: many of them, evaluated by worker threads that report
    # their queries while the next ones are read. A .gz run: the share of
    # its compressed bytes.
    run = _write_run(tmp_path / "run", 300, seed=1)
    if gz:
        data = run.read_bytes()
        run = tmp_path / "run.gz"
        run.write_bytes(gzip.compress(data, mtime=0))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{q % 7} 1\n" for q in range(300)))
    monkeypatch.setattr(skirm.io._run_blocks, "BLOCK_BYTES", 2048)
    # Python 3.12's gzip reads the compressed file 128 KiB at a time (3.11's,
    # 8 KiB): more than this run's compressed bytes, so one share would say
    # all. Smaller reads, as the run were large.
    monkeypatch.setattr(gzip, "READ_BUFFER_SIZE", 2048, raising=False)
    stream = io.StringIO()
    with Progress(stream, "t", inline=False, delay=0, interval=0):
        result = evaluate_run(qrels, run, "P.5")
    lines = stream.getvalue().splitlines()
    text = stream.getvalue()
    shares = [int(m) for m in re.findall(r"run(?:\.gz)?: (\d+)% of", text)]
    assert len(shares) > (2 if gz else 20)
    assert shares == sorted(shares) and shares[-1] == 100
    counts = [int(m) for m in re.findall(r"read, (\d+) queries", text)]
    assert counts[-1] == 300 == result.group_ids.shape[0]
    size = f"{os.path.getsize(run) / 1000:.1f} kB"
    assert lines[-1].startswith(f"t: {run.name}: 100% of {size} read, 300 queries")
    assert lines[-1].endswith(")") and "(done" in lines[-1]


def _results(n_systems, n_queries, seed):
    rng = np.random.default_rng(seed)
    ids = np.arange(n_queries)
    return {
        f"s{i}": EvaluationResult(
            ids, {"map": rng.random(n_queries), "ndcg": rng.random(n_queries)}, {}
        )
        for i in range(n_systems)
    }


@pytest.mark.parametrize(
    ("options", "passes"),
    [
        ({"test": "randomization"}, 1),  # the sign flips
        ({"test": "randomization", "interval": "bca"}, 2),  # and the bootstrap
        ({"test": "bootstrap"}, 1),
        ({"test": "t", "interval": "percentile"}, 1),
        ({"test": "randomized_tukey_hsd"}, 1),
        ({"test": "t"}, 0),
        ({"test": "randomization", "exact": True}, 0),  # enumerated
    ],
)
def test_compare_counts_the_resamples_it_draws(options, passes, monkeypatch):
    monkeypatch.setattr(skirm.stats._resampling, "CHUNK_ELEMENTS", 1 << 12)
    n_queries = 12 if options.get("exact") else 60
    results = _results(3, n_queries, seed=2)
    stream = io.StringIO()
    with Progress(stream, "t", inline=False, delay=0, interval=0):
        got = compare(results, n_resamples=700, random_state=0, **options)
    last = stream.getvalue().splitlines()[-1]
    if passes:
        assert f": {700 * passes:,} of {700 * passes:,} resamples (done" in last
        done = [int(m.replace(",", "")) for m in re.findall(r"([\d,]+) of", last)]
        assert done == [700 * passes]
    else:
        assert "resamples" not in last and "(done" in last
    # the progress does not touch the draws
    expected = compare(results, n_resamples=700, random_state=0, **options)
    assert got.to_frame().equals(expected.to_frame())


def test_compare_verbose(capsys):
    results = _results(2, 40, seed=3)
    compare(results, test="bootstrap", n_resamples=300, random_state=0, verbose=2)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("skirm.stats.compare: bootstrap test of 1 pair on 2 metrics")
    assert "300 of 300 resamples (done" in err.splitlines()[-1]
    compare(results, test="bootstrap", n_resamples=300, random_state=0)
    assert capsys.readouterr() == ("", "")


# --------------------------------------------------------------------------
# Dask
# --------------------------------------------------------------------------


def test_dask_verbose_shows_its_progress_bar_on_stderr(capsys):
    pytest.importorskip("dask.dataframe")
    import dask
    import dask.dataframe as dd

    import skirm.dask
    from skirm.io import read_qrels, read_run

    frame = dd.from_pandas(read_run(RUN).to_frame(), npartitions=3)
    qrels = read_qrels(QRELS)
    with dask.config.set(scheduler="threads"):
        quiet = skirm.dask.evaluate_run(qrels, frame, "map")
        assert capsys.readouterr() == ("", "")
        loud = skirm.dask.evaluate_run(qrels, frame, "map", verbose=1)
        out, err = capsys.readouterr()
        assert out == ""
        assert "skirm.dask.evaluate_run: evaluating" in err
        assert "100% Completed" in err  # dask.diagnostics.ProgressBar
        rows = frame.assign(label=1)
        skirm.dask.evaluate(
            rows["label"], rows["score"], groups=rows["query_id"], verbose=1
        )
        out, err = capsys.readouterr()
        assert out == "" and "skirm.dask.evaluate: merging" in err
    assert loud.means == quiet.means


# --------------------------------------------------------------------------
# The reporter
# --------------------------------------------------------------------------


def test_the_line_waits_for_its_delay_and_is_rate_limited():
    stream = io.StringIO()
    with Progress(stream, "t", delay=60) as progress:
        progress.stage("reading", total=100, unit="bytes")
        progress.advance(done=50)
    assert stream.getvalue() == ""
    stream = io.StringIO()
    with Progress(stream, "t", delay=0, interval=60) as progress:
        progress.stage("reading", total=999, unit="bytes")
        for _ in range(100):
            progress.advance(5, queries=1)
    line = "t: reading: 0% of 999 bytes read (0 s)"
    assert stream.getvalue() == f"\r{line}\r{' ' * len(line)}\r"


def test_the_line_is_rewritten_in_place_and_fits_the_terminal():
    stream = io.StringIO()  # no terminal: 80 columns
    with Progress(stream, "t", delay=0, interval=0) as progress:
        progress.stage("x" * 200)
        progress.stage("short", total=3, unit="resamples")
        progress.advance(2)
    writes = stream.getvalue().split("\r")[1:]
    assert writes[0] == "t: " + "x" * 67 + "... (0 s)"  # 79 columns
    # a shorter line blanks what the longer one left
    assert writes[1] == "t: short: 0 of 3 resamples (0 s)".ljust(79)
    assert writes[2] == "t: short: 2 of 3 resamples (0 s)"
    assert writes[3] == " " * len(writes[2]) and writes[4] == ""


def test_a_long_name_is_cut_before_the_counts():
    stream = io.StringIO()  # 80 columns
    with Progress(stream, "skirm compare", delay=0, interval=0) as progress:
        progress.stage("randomized_tukey_hsd test of 45 pairs on 2 metrics")
        progress.advance(4000, total=10_000)
    line = stream.getvalue().split("\r")[2]
    assert line.endswith("...: 4,000 of 10,000 (0 s)") and len(line) == 79
    assert line.startswith("skirm compare: randomized_tukey_hsd test of 45")


def test_counts_from_threads_add_up():
    stream = io.StringIO()
    with Progress(stream, "t", inline=False, delay=0, interval=60) as progress:
        progress.stage("work")

        def work():
            for _ in range(2000):
                progress.advance(queries=1)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        progress.finish()
    assert stream.getvalue().splitlines()[-1].startswith("t: work: 8,000 queries (done")


def test_the_reporter_in_use():
    assert current() is SILENT
    stream = io.StringIO()
    with Progress(stream, "t") as progress:
        assert current() is progress
        with reporting(0, "f") as inner:
            assert inner is progress  # verbose=0 leaves the command line's
        with reporting(1, "f", stream) as inner:
            assert inner is not progress and current() is inner
        assert current() is progress
    assert current() is SILENT


def test_a_warning_starts_on_a_clean_line():
    stream = io.StringIO()
    with pytest.warns(UserWarning, match="boom"):
        with Progress(stream, "t", delay=0, interval=0) as progress:
            progress.stage("reading")
            warnings.warn("boom", UserWarning, stacklevel=1)
            assert stream.getvalue() == "\rt: reading (0 s)\r" + " " * 16 + "\r"
