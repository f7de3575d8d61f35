"""Runs and qrels given as a pipe's path (``<(zcat run.gz)`` in a shell):
read once, on from their first bytes, as trec_eval reads them."""

from __future__ import annotations

import gzip
import os
import threading

import numpy as np
import pytest

from skirm.io import read_qrels, read_qrels_jg, read_run
from skirm.trec import evaluate_run

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")

QRELS = b"".join(
    b"q%d 0 d%d %d\n" % (q, d, (q + d) % 3) for q in range(4) for d in range(9)
)
# queries interleaved: a file would be read again in parts, a pipe cannot be
RUN = b"".join(
    b"q%d Q0 d%d %d %.2f r\n" % (q, d, d, 1.0 - d / 10 + (d % 2) * 0.05)
    for d in range(12)
    for q in range(4)
)
MEASURES = ["map", "P_5", "ndcg_cut_10", "recip_rank", "bpref", "num_ret"]


def _pipe(tmp_path, name, data):
    """A named pipe that a thread fills with ``data`` once a reader opens it."""
    path = tmp_path / name
    os.mkfifo(path)

    def write():
        with open(path, "wb") as f:
            f.write(data)

    threading.Thread(target=write, daemon=True).start()
    return str(path)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_bytes(QRELS)
    (tmp_path / "run").write_bytes(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


@pytest.mark.filterwarnings("ignore:.*passes over the file")
@pytest.mark.parametrize("compress", [False, True])
def test_regression_a_run_through_a_pipe_equals_the_file(tmp_path, files, compress):
    # Was "File or stream is not seekable": the reader sought back after
    # reading the first two bytes (the gzip magic).
    qrels, run = files
    want = evaluate_run(qrels, run, MEASURES)
    data = gzip.compress(RUN) if compress else RUN
    got = evaluate_run(qrels, _pipe(tmp_path, "pipe", data), MEASURES)
    assert got.means == want.means
    for name in MEASURES:
        np.testing.assert_array_equal(got.per_query[name], want.per_query[name])


@pytest.mark.filterwarnings("ignore:.*passes over the file")
def test_qrels_through_a_pipe_equal_the_file(tmp_path, files):
    qrels, run = files
    want = evaluate_run(qrels, run, MEASURES)
    got = evaluate_run(_pipe(tmp_path, "pipe", QRELS), run, MEASURES)
    assert got.means == want.means


def test_every_reader_takes_a_pipe(tmp_path, files):
    qrels, run = files
    assert read_qrels(_pipe(tmp_path, "a", QRELS)).labels.tolist() == (
        read_qrels(qrels).labels.tolist()
    )
    assert read_run(_pipe(tmp_path, "b", gzip.compress(RUN))).scores.tolist() == (
        read_run(run).scores.tolist()
    )
    jg = read_qrels_jg(_pipe(tmp_path, "c", QRELS))
    assert jg.doc_ids.tolist() == read_qrels(qrels).doc_ids.tolist()


def _within(seconds, call, *args):
    """``call(*args)``, failing (not hanging) if it takes ``seconds``."""
    out = []
    thread = threading.Thread(target=lambda: out.append(call(*args)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert out, f"still waiting after {seconds} s"
    return out[0]


def test_regression_the_ir_measures_drop_in_reads_a_pipe_once(tmp_path, files):
    # The drop-in looked for bytes Python's str.split() splits at in a run
    # file it was to stream, reading a pipe's path to its end first: the
    # evaluation then waited on a pipe no one would write again.
    from skirm.trec import calc_aggregate

    qrels, run = files
    names = ["nDCG@10", "P@5"]
    want = calc_aggregate(names, qrels, run)
    got = _within(60, calc_aggregate, names, qrels, _pipe(tmp_path, "pipe", RUN))
    assert got == want
    data = RUN.replace(b"d1 ", b"d1\xc2\xa0")  # a no-break space: read whole
    got = _within(60, calc_aggregate, names, qrels, _pipe(tmp_path, "nbsp", data))
    assert got == want
