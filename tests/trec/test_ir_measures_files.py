"""Files given to the ir_measures drop-in are read as ir_measures' own
readers read them (``read_trec_qrels``, ``read_trec_run``: each line split
by Python's ``line.split()``), compared with ir_measures on the same files,
one separator character at a time, inside ids and between fields.
"""

from __future__ import annotations

import gzip

import pytest

from skirm import trec
from skirm.io._text import _STR_SPACES, read_str_split, str_spaced

ir_measures = pytest.importorskip("ir_measures")

#: Every character ``str.split()`` splits at but LF and CR (in a file read as
#: text, as ir_measures reads it, CR ends a line), and characters it does
#: not split at: control bytes, a zero-width space, a byte order mark.
_PY_SPACES = [chr(c) for c in range(0x3001) if chr(c).isspace() and c not in (10, 13)]
_KEPT = ["\x01", "\x08", "\x0e", "\x1b", "\x7f", "\u200b", "\ufeff", "é"]

_NAMES = ["P@1", "P@2", "nDCG@10", "Judged@10", "R@10", "AP"]


def _files(tmp_path, char, compress=False):
    """A qrels and a run file where ``char`` follows a docno and separates
    fields (a space) or is part of an id (any other character): a docno
    read with the character kept is not the document judged."""
    sep = char if char.isspace() else " "
    qrels = [
        f"q1 0 d1{char} 1",
        f"q1{sep}0 d2 0",
        f"q1 0 d3 2{sep}",
        f"q2 0 d5{sep}1",
    ]
    run = [
        "q1 Q0 d1 1 2.5 r",
        f"q1 Q0 d3{char} 2{sep}1.5 r",
        f"q1 Q0 d2 3 0.5 r{sep}",
        f"q2{sep}Q0 d5 2 0.5 r",
    ]
    if not char.isspace():  # inside an id: part of it
        qrels.append(f"q2 0 d{char}4 1")
        run.append(f"q2 Q0 d{char}4 1 1.0 r")
    paths = []
    for name, lines in (("qrels", qrels), ("run", run)):
        text = ("\n".join(lines) + "\n").encode("utf-8")
        path = tmp_path / (name + (".gz" if compress else ""))
        path.write_bytes(gzip.compress(text) if compress else text)
        paths.append(str(path))
    return paths


def _per_query(values):
    return {(str(m.measure), m.query_id): float(m.value) for m in values}


@pytest.mark.oracle
@pytest.mark.parametrize("char", _PY_SPACES + _KEPT, ids=lambda c: f"U+{ord(c):04X}")
def test_files_are_split_where_ir_measures_splits(char, tmp_path):
    """Regression: the drop-in read files at trec_eval's separators (C's
    isspace()), so that a docno followed by a byte 28-31 or a Unicode space
    (``'d1\\x1c'``) was not the document ir_measures reads (``'d1'``): P@1
    0.0 where ir_measures gives 1.0 (seen failing)."""
    qrels, run = _files(tmp_path, char)
    measures = [ir_measures.parse_measure(n) for n in _NAMES]
    want = _per_query(
        ir_measures.iter_calc(
            measures,
            list(ir_measures.read_trec_qrels(qrels)),
            list(ir_measures.read_trec_run(run)),
        )
    )
    assert _per_query(trec.iter_calc(_NAMES, qrels, run)) == pytest.approx(want)
    if char.isspace():  # d1 and d3 are judged and found
        assert want[("P@1", "q1")] == 1.0


@pytest.mark.oracle
@pytest.mark.parametrize("char", ["\x1c", "\xa0", "\u3000"], ids=ascii)
def test_gzip_files_are_split_where_ir_measures_splits(char, tmp_path):
    qrels, run = _files(tmp_path, char, compress=True)
    measures = [ir_measures.parse_measure(n) for n in _NAMES]
    want = ir_measures.calc_aggregate(
        measures,
        list(ir_measures.read_trec_qrels(qrels)),
        list(ir_measures.read_trec_run(run)),
    )
    got = trec.calc_aggregate(_NAMES, qrels, run)
    assert got == pytest.approx({str(m): v for m, v in want.items()})


def test_the_split_table_is_str_isspace():
    every = {c for c in range(0x110000) if chr(c).isspace()}
    assert set(_STR_SPACES) == every - {10}


@pytest.mark.parametrize(
    "text",
    ["q1 0 d1 1\n", "", "a\tb\x0bc\x0cd\re\n", "a\x1cb", "a\xa0b é\u2003c\n"],
    ids=ascii,
)
def test_spaced_text_splits_as_str_split(text, tmp_path):
    """Fields of the spaced text split at ASCII whitespace are ``split()``'s;
    a file's bytes read alike; ASCII text with nothing to do is the object
    given (no copy)."""
    spaced = str_spaced(text)
    assert [list(filter(None, line.replace("\t", " ").split(" "))) for line in
            spaced.replace("\x0b", " ").replace("\x0c", " ").replace("\r", " ")
            .split("\n")] == [line.split() for line in text.split("\n")]  # fmt: skip
    if text.isascii() and not any(c in text for c in "\x1c\x1d\x1e\x1f"):
        assert spaced is text
    path = tmp_path / "f"
    path.write_bytes(text.encode())
    data, n, _ = read_str_split(str(path))
    assert bytes(data[:n]) == spaced.encode()
    assert not any(data[n:])  # zero padding past the text


@pytest.mark.parametrize("compress", [False, True])
def test_a_checked_run_file_stops_at_the_block_that_splits_otherwise(
    tmp_path, compress
):
    """A run file read as :class:`SplitChecked` raises :class:`SplitsOtherwise`
    at the block where a byte that may split otherwise stands, wherever it
    stands (blocks of 8 bytes here: before, across and after their edges),
    in a ``.gz`` file too, before any row of that block is parsed; an ASCII
    file without one is read as it is; a path that is no regular file is not
    checked (read once, whole, by the caller)."""
    from skirm.io._run_blocks import iter_run_blocks
    from skirm.io._text import SplitChecked, SplitsOtherwise

    path = tmp_path / "f"
    base = b"q1 Q0 d1 1 2.5 r\nq2 Q0 d2 1 1.5 r\nq3 Q0 d3 1 0.5 r\n"
    for at in range(len(base) + 1):
        for byte in (b"\x1c", b"\x1f", b"\xc2\xa0", b"\xe2\x80\x83", b"\xc3\xa9"):
            data = base[:at] + byte + base[at:]
            path.write_bytes(gzip.compress(data) if compress else data)
            with pytest.raises(SplitsOtherwise):
                list(iter_run_blocks(SplitChecked(path), block_bytes=8))
    path.write_bytes(gzip.compress(base) if compress else base)
    blocks = list(iter_run_blocks(SplitChecked.of(path), block_bytes=8))
    assert [q for b in blocks for q in b.query_ids.tolist()] == ["q1", "q2", "q3"]
    assert SplitChecked.of(tmp_path / "missing") is None
    assert SplitChecked.of(tmp_path) is None  # a folder


@pytest.mark.oracle
@pytest.mark.parametrize("char", ["\x1c", "\xa0", "\u3000", "é"], ids=ascii)
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_run_streamed_then_read_again_as_ir_measures_reads_it(
    char, where, tmp_path, monkeypatch
):
    """A run file streamed in blocks (64 bytes here) that holds a character
    ``str.split()`` may split at in its first, a middle or its last block is
    read again as ``line.split()`` reads it: ir_measures' values, where the
    blocks read before it are dropped."""
    import skirm.io._run_blocks as run_blocks

    monkeypatch.setattr(run_blocks, "BLOCK_BYTES", 64)
    qrels = tmp_path / "qrels"
    qrels.write_text(
        "".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(8) for d in range(6))
    )
    lines = [
        f"q{q} Q0 d{d} {d} {(7 * q + 5 * d) % 11 / 4} r"
        for q in range(8)
        for d in range(6)
    ]
    at = {"first": 1, "middle": len(lines) // 2, "last": len(lines) - 2}[where]
    lines[at] = (
        lines[at].replace(" Q0 ", f"{char}Q0 ")
        if char.isspace()
        else lines[at].replace(" Q0 d", f" Q0 d{char}")
    )
    run = tmp_path / "run"
    run.write_text("\n".join(lines) + "\n", encoding="utf-8")
    measures = [ir_measures.parse_measure(n) for n in _NAMES]
    want = _per_query(
        ir_measures.iter_calc(
            measures,
            list(ir_measures.read_trec_qrels(str(qrels))),
            list(ir_measures.read_trec_run(str(run))),
        )
    )
    assert _per_query(trec.iter_calc(_NAMES, str(qrels), str(run))) == pytest.approx(
        want
    )
