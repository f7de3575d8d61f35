"""Adversarial inputs: each evaluates within a stated bound of memory (and,
run in a child process, of time) or stops with an error that names the file
and, where there is one, the line.

Bounds are generous ceilings that catch a blow-up (a Python loop per byte,
a copy per field), not benchmarks: ``benchmarks/`` measures speed.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap

import pytest

from skirm._cli import main
from skirm.io import Qrels, read_qrels, read_run
from skirm.trec import evaluate_run


def _in_child(code, timeout):
    """Run ``code`` in a fresh interpreter; its stdout, or a failure with the
    time bound named."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not finish within {timeout} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


# The child's own peak: VmHWM belongs to its address space, while
# ru_maxrss survives exec and would report the test process's size.
_PEAK = """
import resource
def peak_mb():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""


def test_a_one_megabyte_docno_evaluates_within_10s_and_200mb(tmp_path):
    # Words past a token's first 128 bytes are read in rounds over the long
    # tokens only (about 0.1 s here), no longer one word at a time (3-6 s).
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    long = "d" * 1_000_000
    qrels.write_text(f"1 0 {long} 1\n1 0 short 0\n")
    run.write_text(f"1 Q0 {long} 1 2.0 r\n1 Q0 short 2 1.0 r\n")
    out = _in_child(
        _PEAK
        + f"""
from skirm.trec import evaluate_run
result = evaluate_run({str(qrels)!r}, {str(run)!r}, ["map", "P.1"])
print(result.means["map"], result.means["P_1"], peak_mb())
""",
        timeout=10,
    )
    map_, p1, peak = map(float, out.split())
    assert (map_, p1) == (1.0, 1.0)
    assert peak < 200, peak


def test_tied_megabyte_docnos_differing_in_their_last_byte_within_10s(tmp_path):
    # Tied scores rank by docno, descending (trec_eval's order): "short",
    # then the two long docnos, told apart by their last byte.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    long = "d" * 999_999
    qrels.write_text(f"1 0 {long}a 1\n1 0 {long}b 0\n")
    run.write_text(f"1 Q0 {long}a 1 1.0 r\n1 Q0 short 2 1.0 r\n1 Q0 {long}b 3 1.0 r\n")
    out = _in_child(
        _PEAK
        + f"""
from skirm.trec import evaluate_run
result = evaluate_run({str(qrels)!r}, {str(run)!r}, ["recip_rank", "num_rel_ret"])
print(result.means["recip_rank"], result.means["num_rel_ret"], peak_mb())
""",
        timeout=10,
    )
    rr, n_rel_ret, peak = map(float, out.split())
    assert (rr, n_rel_ret) == (1 / 3, 1.0)
    assert peak < 200, peak


def test_a_line_of_100k_fields(tmp_path):
    # A run line's fields after run_id are ignored, as trec_eval does; a
    # qrels line must have four, and the error shows the line cut short.
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 2.0 r " + " ".join(["x"] * 100_000) + "\n")
    result = evaluate_run(Qrels(["1"], ["d1"], [1]), run, ["map"])
    assert result.means["map"] == 1.0
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1 " + " ".join(["x"] * 100_000) + "\n")
    with pytest.raises(ValueError) as info:
        read_qrels(qrels)
    message = str(info.value)
    assert message.startswith(f"{qrels}:1: too many fields (100004)")
    assert len(message) < 400


@pytest.mark.slow
def test_one_query_of_2m_rows_within_120s_and_2gb():
    out = _in_child(
        _PEAK
        + """
import numpy as np
from skirm.io import Qrels, Run
from skirm.trec import evaluate_run
n = 2_000_000
docs = np.char.add("d", np.arange(n).astype(str))
rng = np.random.default_rng(0)
run = Run(np.full(n, "q"), docs, rng.random(n))
qrels = Qrels(np.full(1000, "q"), docs[:1000], np.ones(1000, dtype=int))
result = evaluate_run(qrels, run, ["map", "ndcg_cut.10", "recall.1000"])
print(result.means["map"], peak_mb())
""",
        timeout=120,
    )
    map_, peak = map(float, out.split())
    assert 0 < map_ < 1
    assert peak < 2048, peak


@pytest.mark.slow
def test_2m_one_row_queries_within_120s_and_2gb():
    out = _in_child(
        _PEAK
        + """
import numpy as np
from skirm.io import Qrels, Run
from skirm.trec import evaluate_run
n = 2_000_000
ids = np.char.add("q", np.arange(n).astype(str))
run = Run(ids, np.full(n, "d"), np.ones(n))
qrels = Qrels(ids, np.full(n, "d"), np.arange(n) % 2)
result = evaluate_run(qrels, run, ["map", "P.5"])
print(result.means["map"], peak_mb())
""",
        timeout=120,
    )
    map_, peak = map(float, out.split())
    assert map_ == pytest.approx(0.5)
    assert peak < 2048, peak


def test_a_file_of_nul_bytes_is_named_binary(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"\0" * 100_000)
    with pytest.raises(ValueError, match=rf"^{path}:1: a NUL byte: this looks"):
        read_run(path)
    text = tmp_path / "qrels"
    text.write_bytes(b"1 0 d1 1\n1 0 d2 0\n1 0 d\x003 1\n")
    with pytest.raises(ValueError, match=rf"^{text}:3: a NUL byte"):
        read_qrels(text)


def test_an_empty_gzip_is_an_empty_file(tmp_path, capsys):
    path = tmp_path / "run.gz"
    with gzip.open(path, "wb"):
        pass
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n")
    assert main(["eval", str(qrels), str(path)]) == 2
    assert f"the run file is empty: {path}" in capsys.readouterr().err
    assert len(read_run(path)) == 0


def test_a_truncated_gzip_names_the_file(tmp_path, capsys):
    data = gzip.compress(b"1 Q0 d1 1 1.0 r\n" * 10_000)
    path = tmp_path / "run.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=rf"^{path}: the gzip stream is truncated"):
        read_run(path)
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n")
    assert main(["eval", str(qrels), str(path)]) == 2
    assert "the gzip stream is truncated or corrupt" in capsys.readouterr().err
