"""The bytes that separate the fields of a TREC file: trec_eval's, C's
``isspace()`` (space, tab, LF, VT, FF, CR), and no other control byte.

Regression: every byte up to 32 separated fields, so that the query ids
``1`` and ``1\\x01`` (or two docnos that differ by a control byte) were read
as one, where trec_eval reads two: a silently wrong number, or a duplicate
docno refused that trec_eval takes (seen failing before the fix).
"""

import numpy as np
import pytest

from skirm.io import (
    read_qrels,
    read_qrels_jg,
    read_run,
    write_run,
)
from skirm.io._text import empty_or_spaced, separators


def test_separators_are_the_bytes_c_isspace_takes():
    codes = np.arange(256, dtype=np.uint8)
    want = [bytes([c]).isspace() for c in range(256)]  # the C locale's set
    assert separators(codes).tolist() == want
    assert separators(codes.astype(np.uint32)).tolist() == want
    assert sum(want) == 6


@pytest.mark.parametrize("control", ["\x01", "\x08", "\x0e", "\x1c", "\x1f", "\x7f"])
def test_ids_differing_by_a_control_byte_are_two_ids(tmp_path, control):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(f"1 0 d1 1\n1{control} 0 d1 0\n1 0 d{control} 1\n".encode())
    q = read_qrels(qrels)
    assert sorted(set(q.query_ids.tolist())) == ["1", f"1{control}"]
    assert sorted(q.doc_ids.tolist()) == sorted(["d1", "d1", f"d{control}"])
    run = tmp_path / "run"
    run.write_bytes(f"1 Q0 d1 1 2 r\n1{control} Q0 d1 1 1 r\n".encode())
    assert read_run(run).query_ids.tolist() == ["1", f"1{control}"]
    jg = tmp_path / "jg"
    jg.write_bytes(f"1 a d1 1\n1{control} a d1 0\n".encode())
    assert read_qrels_jg(jg).query_ids.tolist() == ["1", f"1{control}"]


@pytest.mark.parametrize("space", [" ", "\t", "\n", "\v", "\f", "\r"])
def test_write_run_refuses_every_separator_in_an_id(tmp_path, space):
    with pytest.raises(ValueError, match="without whitespace"):
        write_run(tmp_path / "run", ["q1"], [f"d{space}1"], [1.0])
    with pytest.raises(ValueError, match="without whitespace"):
        write_run(tmp_path / "run", [f"q{space}"], ["d1"], [1.0])


def test_write_run_keeps_other_control_bytes(tmp_path):
    ids = ["d\x01", "d\x1c", "d\x7f", "d"]
    path = tmp_path / "run"
    write_run(path, ["q\x1f"] * 4, ids, [4.0, 3.0, 2.0, 1.0], run_id="r")
    run = read_run(path)
    assert run.query_ids.tolist() == ["q\x1f"] * 4
    assert run.doc_ids.tolist() == ids


def test_empty_or_spaced():
    values = np.array(["a", "", "a b", "a\vb", "a\x01", "\x1c"])
    assert empty_or_spaced(values).tolist() == [False, True, True, True, False, False]
