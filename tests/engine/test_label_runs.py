"""Where query labels change, for fixed-width strings compared as words.

:func:`skirm._engine._runs.label_runs` compares numpy ``U`` and ``S`` labels
with their neighbours as unsigned integer words (the widest that divides the
item size), a part of the rows at a time, and switches to numpy's string
comparison once a part changes label at most rows. The oracle is a Python
comparison of every label with the one before it. The inputs vary one
dimension at a time: the width across word boundaries (1 to 17 bytes, 1 to
6 characters), where two neighbours differ (first, last, each side of a word
boundary), embedded and trailing NULs, empty strings, byte order, strided
and offset arrays, runs sparse and dense, and the part size.
"""

from __future__ import annotations

import numpy as np
import pytest

import skirm._engine._encode as encode
import skirm._engine._runs as runs
from skirm._engine._runs import changed_rows, label_runs


def _reference(labels):
    items = labels.tolist()
    return np.array(
        [i for i in range(len(items)) if i == 0 or items[i] != items[i - 1]],
        dtype=np.intp,
    )


def _runs(rng, n, width, kind, *, run_length=3):
    """``n`` labels of ``width`` characters in runs of 1 to ``run_length``
    rows; each run differs from the one before at one position only (any
    position, word boundaries included), or is empty, or ends in NULs."""
    alphabet = "ab\x00" if kind == "S" else "ab\x00\u00e9\u4e2d"
    base = rng.choice(list(alphabet), size=width)
    heads = []
    label = base.copy()
    while sum(len(h) for h in heads) < n:
        label = label.copy()
        label[rng.integers(width)] = rng.choice(list(alphabet))
        text = "".join(label)
        if rng.random() < 0.05:
            text = ""
        heads.append([text] * int(rng.integers(1, run_length + 1)))
    flat = [t for h in heads for t in h][:n]
    if kind == "S":
        return np.array([t.encode() for t in flat], dtype=f"S{width}")
    return np.array(flat, dtype=f"U{width}")


@pytest.mark.parametrize(
    ("kind", "width"),
    [("S", w) for w in range(1, 18)] + [("U", w) for w in range(1, 7)],
)
def test_string_labels_change_where_python_says(kind, width):
    rng = np.random.default_rng(1000 * width + (kind == "S"))
    labels = _runs(rng, 300, width, kind)
    expected = _reference(labels)
    np.testing.assert_array_equal(label_runs(labels), expected)
    # Offset (a word further on) and strided (compared as strings) views.
    np.testing.assert_array_equal(label_runs(labels[1:]), _reference(labels[1:]))
    np.testing.assert_array_equal(label_runs(labels[::2]), _reference(labels[::2]))
    swapped = labels.astype(labels.dtype.newbyteorder())
    np.testing.assert_array_equal(label_runs(swapped), expected)


@pytest.mark.parametrize("width", [2, 3, 8, 9, 16, 22])
def test_neighbours_differing_in_one_character_at_each_position(width):
    """Every position of the label, alone, tells two neighbours apart."""
    for kind in ("U", "S"):
        pairs = []
        for at in range(width):
            first = ["x"] * width
            second = list(first)
            second[at] = "y"
            pairs += ["".join(first), "".join(first), "".join(second)]
        labels = np.array(pairs, dtype=f"{kind}{width}")
        np.testing.assert_array_equal(label_runs(labels), _reference(labels))


def test_trailing_nuls_and_empty_labels_follow_numpy_equality():
    """numpy ignores trailing NULs: 'a' and 'a\\0' are one label, 'a\\0b' is
    another; '' and '\\0' are one label."""
    labels = np.array(["a", "a\x00", "a\x00b", "", "\x00", "b", "b"], dtype="U3")
    assert labels.tolist() == ["a", "a", "a\x00b", "", "", "b", "b"]
    np.testing.assert_array_equal(label_runs(labels), [0, 2, 3, 5])
    raw = np.array([b"a", b"a\x00", b"a\x00b", b"", b"\x00", b"b"], dtype="S3")
    np.testing.assert_array_equal(label_runs(raw), _reference(raw))


@pytest.mark.parametrize("run_words", [1, 5, 16, 64, 1 << 20])
@pytest.mark.parametrize("dense_runs", [1, 8, 1 << 30])
@pytest.mark.parametrize("run_length", [1, 4, 40])
def test_parts_and_the_switch_to_string_comparison(
    monkeypatch, run_words, dense_runs, run_length
):
    """Parts of a few words (a part edge inside a run, on a run's first
    row, a part of one row), and the switch to numpy's comparison after a
    part dense with changes, each give the rows Python gives."""
    monkeypatch.setattr(runs, "RUN_WORDS", run_words)
    monkeypatch.setattr(runs, "DENSE_RUNS", dense_runs)
    rng = np.random.default_rng(run_words + dense_runs + run_length)
    for kind, width in (("U", 5), ("U", 22), ("S", 7), ("S", 24)):
        labels = _runs(rng, 400, width, kind, run_length=run_length)
        expected = _reference(labels)
        np.testing.assert_array_equal(label_runs(labels), expected)
        for lo, hi in ((1, 400), (1, 2), (57, 58), (57, 391), (399, 400), (5, 5)):
            np.testing.assert_array_equal(
                changed_rows(labels, lo, hi),
                expected[(expected >= lo) & (expected < hi)],
            )


def test_the_switch_reads_the_rest_as_strings(monkeypatch):
    """After a part that changes at most rows, the rest of the rows are
    compared as strings (not as words), and give the same rows."""
    monkeypatch.setattr(runs, "RUN_WORDS", 40)  # parts of 4 rows of U5
    words = []
    real = runs._string_words
    monkeypatch.setattr(runs, "_string_words", lambda arr: words.append(1) or real(arr))
    labels = np.array([f"q{i}" for i in range(100)], dtype="U5")
    seen = []
    real_not_equal = np.not_equal

    def spy(a, b, **kwargs):
        seen.append(a.dtype.kind)
        return real_not_equal(a, b, **kwargs)

    monkeypatch.setattr(runs.np, "not_equal", spy)
    np.testing.assert_array_equal(label_runs(labels), np.arange(100))
    assert words == [1]
    assert "U" in seen  # the switch happened
    assert seen[0] == "u"  # after a first part compared as words


@pytest.mark.parametrize("n_threads", [2, 3])
@pytest.mark.parametrize("width", [1, 8, 9, 22])
def test_label_runs_in_parts_on_threads(monkeypatch, n_threads, width):
    monkeypatch.setattr(encode, "SPLIT_ROWS", 2)
    monkeypatch.setattr(encode, "SPLIT_WIDTH", 4)
    monkeypatch.setattr(runs, "RUN_WORDS", 32)
    rng = np.random.default_rng(width + 10 * n_threads)
    for kind in ("U", "S"):
        labels = _runs(rng, 500, width, kind)
        for n in (2, 3, 4, 61, 500):
            np.testing.assert_array_equal(
                encode.shared_label_runs(labels[:n], n_threads), _reference(labels[:n])
            )


def test_neighbours_differing_in_every_word():
    """Neighbours that differ in several words (every character) name
    their row once."""
    rng = np.random.default_rng(5)
    for kind, width in (("U", 22), ("U", 5), ("S", 24), ("S", 7)):
        heads = ["".join(rng.choice(list("abcdefgh"), size=width)) for _ in range(40)]
        labels = np.repeat(np.array(heads, dtype=f"{kind}{width}"), 3)
        np.testing.assert_array_equal(label_runs(labels), _reference(labels))


def test_one_and_no_labels():
    for dtype in ("U22", "S3", "U1"):
        none = label_runs(np.array([], dtype=dtype))
        assert none.tolist() == [] and none.dtype == np.intp
        assert label_runs(np.array(["a"], dtype=dtype)).tolist() == [0]
        assert changed_rows(np.array(["a"], dtype=dtype), 1, 1).tolist() == []
