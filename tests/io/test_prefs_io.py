"""The records and readers of trec_eval's other relevance formats
(``skirm.io.QrelsJG``, ``Prefs``, ``read_qrels_jg``, ``read_prefs``,
``read_qrels_prefs``): what they hold, and the messages of what they refuse.
Found missing by the mutation campaign of ``skirm/io/_prefs.py``."""

from __future__ import annotations

import re

import numpy as np
import pytest

from skirm._validation import first_repeat
from skirm.io import Prefs, QrelsJG, read_prefs, read_qrels_jg, read_qrels_prefs


def _jg(**columns):
    args = {"query_ids": ["q", "q"], "groups": ["a", "b"], "doc_ids": ["d1", "d2"]}
    return QrelsJG(**{**args, "labels": [1, 0], **columns})


def _prefs(**columns):
    args = {"query_ids": ["q", "q"], "groups": ["u", "u"], "subgroups": ["s", "s"]}
    args |= {"doc_ids": ["d1", "d2"], "levels": [1.0, 0.0]}
    return Prefs(**{**args, **columns})


def test_records_hold_their_columns_and_count_queries_and_groups():
    jg = QrelsJG(["q1", "q1", "q2"], ["a", "b", "a"], ["d1", "d1", "d1"], [2, 0, 1])
    assert repr(jg) == "QrelsJG(n_judgments=3, n_queries=2, n_groups=3)"
    assert len(jg) == 3 and jg.topics().tolist() == ["q1\ta", "q1\tb", "q2\ta"]
    prefs = Prefs(["q1", "q2", "q2"], ["u"] * 3, ["s"] * 3, ["a", "a", "b"], [1, 2, 0])
    assert repr(prefs) == "Prefs(n_rows=3, n_queries=2, n_groups=2)"
    assert len(prefs) == 3 and prefs.levels.dtype == np.float64
    assert prefs.levels.tolist() == [1.0, 2.0, 0.0]


def test_whole_float_labels_are_integers_and_others_are_refused():
    labels = _jg(labels=np.array([2.0, -1.0])).labels
    assert labels.dtype == np.int64 and labels.tolist() == [2, -1]
    assert _jg(labels=np.array([1, 0], dtype=np.uint8)).labels.dtype == np.int64
    for labels, what in [
        ([0.5, 1.0], "dtype float64 with shape (2,)"),
        (["1", "0"], "dtype <U1 with shape (2,)"),
        ([[1, 0]], "dtype int64 with shape (1, 2)"),
    ]:
        message = (
            "`labels` must be a 1-D array of integer relevance levels, got " + what
        )
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            _jg(labels=np.array(labels))


def test_levels_must_be_numbers_in_one_dimension_without_nan():
    assert _prefs(levels=[3, 1]).levels.tolist() == [3.0, 1.0]
    for levels, what in [
        (["1", "0"], "dtype <U1 with shape (2,)"),
        ([[1.0, 0.0]], "dtype float64 with shape (1, 2)"),
    ]:
        message = f"`levels` must be a 1-D array of numbers, got {what}"
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            _prefs(levels=np.array(levels))
    with pytest.raises(ValueError, match=r"^`levels` must not contain NaN$"):
        _prefs(levels=[1.0, np.nan])


@pytest.mark.parametrize("name", ["query_ids", "groups", "doc_ids"])
def test_a_judgment_group_column_is_named_when_refused(name):
    with pytest.raises(ValueError, match=rf"^`{name}` must be 1-D, got shape \(1, 2\)"):
        _jg(**{name: [["q", "q"]]})
    with pytest.raises(ValueError, match=rf"^`{name}` must be non-empty strings"):
        _jg(**{name: ["x", "x y"]})


@pytest.mark.parametrize("name", ["query_ids", "groups", "subgroups", "doc_ids"])
def test_a_preference_column_is_named_when_refused(name):
    with pytest.raises(ValueError, match=rf"^`{name}` must be 1-D, got shape \(1, 2\)"):
        _prefs(**{name: [["q", "q"]]})
    with pytest.raises(ValueError, match=rf"^`{name}` must be non-empty strings"):
        _prefs(**{name: ["x", "x\ty"]})


@pytest.mark.parametrize("space", [" ", "\t", "\n", "\r", "\v", "\f"])
@pytest.mark.parametrize("where", ["{}x", "x{}", "x{}y"])
def test_ids_with_whitespace_anywhere_are_refused_and_named(space, where):
    bad = where.format(space)
    message = f"`groups` must be non-empty strings without whitespace, got {bad!r}"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        _jg(groups=["fine", bad])
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        _prefs(groups=["fine", bad])


def test_ids_may_hold_any_other_character():
    ids = ["XX", "q-1.é", "X"]
    jg = QrelsJG(ids, ids, ids, [1, 0, 2])
    assert jg.groups.tolist() == ids
    assert Prefs(ids, ids, ids, ids, [1, 0, 2]).subgroups.tolist() == ids


def test_columns_of_two_lengths_are_refused_with_their_lengths():
    message = (
        "columns must have the same length, got "
        "{'query_ids': 2, 'groups': 2, 'doc_ids': 1, 'labels': 2}"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        _jg(doc_ids=["d1"])
    with pytest.raises(ValueError, match=r"same length, got .*'levels': 3"):
        _prefs(levels=[1, 2, 3])


def test_first_repeat_finds_a_pair_anywhere():
    a = np.array(["q1", "q2", "q2", "q3"])
    b = np.array(["d1", "d5", "d5", "d1"])
    assert first_repeat(a, b) == (1, 2)
    # the earlier and the later of the two rows, whatever their order
    assert first_repeat(a[::-1].copy(), b[::-1].copy()) == (1, 2)
    assert first_repeat(np.array(["q"] * 3), np.array(["d1", "d1", "d9"])) == (0, 1)
    assert first_repeat(np.array(["q"] * 3), np.array(["d9", "d1", "d1"])) == (1, 2)
    assert first_repeat(a[:2], b[:2]) is None
    assert first_repeat(a[:1], b[:1]) is None


def test_a_duplicate_is_named_by_docno_group_and_query():
    message = (
        "duplicate docno 'd1' in group 'b' of query 'q2'; expected each docno "
        "once per query and group"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        QrelsJG(["q1", "q2", "q2", "q2"], ["b", "a", "b", "b"], ["d1"] * 4, [1] * 4)
    message = (
        "duplicate docno 'd1' in sub-group 's' of group 'u' of query 'q2'; "
        "expected each docno once per sub-group"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Prefs(
            ["q1", "q2", "q2", "q2"], ["u", "v", "u", "u"], ["s"] * 4, ["d1"] * 4,
            [1, 1, 1, 0],
        )  # fmt: skip


def test_readers_read_every_column(tmp_path):
    path = tmp_path / "jg"
    path.write_text("q1 a d1 1\nq1 b d1 -1\nq2 a d3 2\n")
    jg = read_qrels_jg(path)
    assert jg.query_ids.tolist() == ["q1", "q1", "q2"]
    assert jg.groups.tolist() == ["a", "b", "a"]
    assert jg.doc_ids.tolist() == ["d1", "d1", "d3"]
    assert jg.labels.dtype == np.int64 and jg.labels.tolist() == [1, -1, 2]
    path = tmp_path / "prefs"
    path.write_text("q1 u s1 d1 2.5\nq1 u s2 d1 -1\n")
    prefs = read_prefs(path)
    assert prefs.subgroups.tolist() == ["s1", "s2"]
    assert prefs.levels.tolist() == [2.5, -1.0]
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2 0.5\nq2 7 d1 2\n")
    prefs = read_qrels_prefs(path)
    assert prefs.groups.tolist() == ["0", "0", "7"]
    assert prefs.subgroups.tolist() == ["0", "0", "0"]  # one sub-group per group
    assert prefs.levels.tolist() == [1.0, 0.5, 2.0]


_READERS = {
    "qrels_jg": (read_qrels_jg, "4 fields: qid jg docno rel", 4),
    "prefs": (read_prefs, "5 fields: qid jg jsg docno level", 5),
    "qrels_prefs": (read_qrels_prefs, "4 fields: qid jg docno level", 4),
}


@pytest.mark.parametrize("fmt", list(_READERS))
def test_a_reader_names_the_file_line_and_the_expected_fields(tmp_path, fmt):
    reader, shape, n = _READERS[fmt]
    good = " ".join(["q", "a", "s", "d", "1"][-n:]) + "\n"
    path = tmp_path / fmt
    for fields, problem in [(n - 1, "too few"), (n + 1, "too many")]:
        line = " ".join(["x"] * (fields - 1) + ["1"])
        path.write_text(good + line + "\n")
        message = f"{path}:2: {problem} fields ({fields}); expected {shape}, got "
        with pytest.raises(ValueError, match=f"^{re.escape(message)}'{line}'$"):
            reader(path)


@pytest.mark.parametrize("fmt", list(_READERS))
@pytest.mark.parametrize("value", ["x", "1.5"])
def test_a_reader_names_a_bad_label_or_level(tmp_path, fmt, value):
    reader, _, n = _READERS[fmt]
    if fmt != "qrels_jg" and value == "1.5":
        return  # a level may be any number
    line = " ".join(["q", "a", "s", "d", value][-n:])
    path = tmp_path / fmt
    good = " ".join(["q", "a", "s", "d", "1"][-n:]) + "\n"
    path.write_text(good + line + "\n")
    expected = "an integer relevance label" if fmt == "qrels_jg" else "a numeric level"
    message = f"{path}:2: expected {expected}, got '{line}'"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        reader(path)


@pytest.mark.parametrize("fmt", list(_READERS))
def test_a_reader_names_the_file_of_a_duplicate(tmp_path, fmt):
    reader, _, n = _READERS[fmt]
    line = " ".join(["q", "a", "s", "d", "1"][-n:]) + "\n"
    path = tmp_path / fmt
    path.write_text(line * 2)
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: duplicate docno"):
        reader(path)
