"""TREC qrels/run readers and the run writer."""

import gzip
import io
import os
import re

import numpy as np
import pytest
from _data import TREC_EVAL_DATA

from skirm.io import Qrels, Run, as_qrels, as_run, read_qrels, read_run, write_run
from skirm.trec import evaluate_run

QRELS = """\
# a comment line
q1 0 d1 1
q1 0 d2 0

q1 0 d#3 2
# two comment lines
# in a row
q2 0 d1 -1
"""

RUN = """\
q1 Q0 d1 1 1.5 sys extra columns are ignored
q1 Q0 d#3 2 0.5 sys
# comment
q2 Q0 d9 1 -2e-1 sys

q2 Q0 d1 2 7 final
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_read_qrels_columns_comments_and_blank_lines(tmp_path):
    qrels = read_qrels(_write(tmp_path, "qrels.txt", QRELS))
    assert qrels.query_ids.tolist() == ["q1", "q1", "q1", "q2"]
    assert qrels.doc_ids.tolist() == ["d1", "d2", "d#3", "d1"]  # '#' inside kept
    assert qrels.labels.tolist() == [1, 0, 2, -1]
    assert qrels.labels.dtype == np.int64
    assert qrels.query_ids.dtype.kind == "U"
    assert repr(qrels) == "Qrels(n_judgments=4, n_queries=2)"


def test_read_run_columns_run_id_from_last_line(tmp_path):
    run = read_run(_write(tmp_path, "run.txt", RUN))
    assert run.query_ids.tolist() == ["q1", "q1", "q2", "q2"]
    assert run.doc_ids.tolist() == ["d1", "d#3", "d9", "d1"]
    np.testing.assert_array_equal(run.scores, [1.5, 0.5, -0.2, 7.0])
    assert run.run_id == "final"


@pytest.mark.parametrize("kind", ["path", "str", "text", "binary", "stringio"])
def test_sources(tmp_path, kind):
    path = _write(tmp_path, "run.txt", RUN)
    if kind == "path":
        run = read_run(path)
    elif kind == "str":
        run = read_run(str(path))
    elif kind == "text":
        with open(path) as fh:
            run = read_run(fh)
    elif kind == "binary":
        with open(path, "rb") as fh:
            run = read_run(fh)
    else:
        run = read_run(io.StringIO(RUN))
    assert run.doc_ids.tolist() == ["d1", "d#3", "d9", "d1"]


def test_gzip_is_transparent(tmp_path):
    path = tmp_path / "qrels.gz"
    with gzip.open(path, "wt") as fh:
        fh.write(QRELS)
    assert read_qrels(path).labels.tolist() == [1, 0, 2, -1]
    with open(path, "rb") as fh:
        assert read_qrels(fh).labels.tolist() == [1, 0, 2, -1]


def test_crlf_and_non_ascii_ids():
    run = read_run(io.BytesIO("q1 Q0 dé 1 1 r\r\nq1 Q0 d2 2 0 r\r\n".encode()))
    assert run.doc_ids.tolist() == ["dé", "d2"]
    assert run.run_id == "r"


def test_empty_file():
    run = read_run(io.StringIO("# nothing\n\n"))
    assert len(run) == 0
    qrels = read_qrels(io.StringIO(""))
    assert len(qrels) == 0


def test_to_frame(tmp_path):
    run = read_run(io.StringIO(RUN))
    frame = run.to_frame()
    # ir_measures' names, the ones as_run / as_qrels look for first
    assert list(frame.columns) == ["query_id", "doc_id", "score", "run_id"]
    assert frame.shape == (4, 4)
    assert frame.score.tolist() == run.scores.tolist()
    assert frame.doc_id.tolist() == run.doc_ids.tolist()
    qrels = read_qrels(io.StringIO(QRELS))
    frame = qrels.to_frame()
    assert list(frame.columns) == ["query_id", "doc_id", "relevance"]
    assert frame.relevance.tolist() == qrels.labels.tolist()
    # ... and back: the column names round-trip through the converters
    back = as_run(run.to_frame(), run_id=run.run_id)
    assert back.scores.tolist() == run.scores.tolist()
    assert as_qrels(frame).labels.tolist() == qrels.labels.tolist()


# --------------------------------------------------------------------------
# Errors: file:line, the offending text, what was expected
# --------------------------------------------------------------------------


def test_run_too_few_fields(tmp_path):
    path = _write(tmp_path, "bad.run", "q1 Q0 d1 1 1.0 r\n\nq1 Q0 d2 2 0.5\n")
    with pytest.raises(
        ValueError,
        match=r"bad\.run:3: too few fields \(5\); expected 6 fields: qid iter docno "
        r"rank score run_id, got 'q1 Q0 d2 2 0\.5'",
    ):
        read_run(path)


def test_qrels_wrong_number_of_fields(tmp_path):
    path = _write(tmp_path, "bad.qrels", "# c\nq1 0 d1 1\nq1 0 d2\n")
    with pytest.raises(ValueError, match=r"bad\.qrels:3: too few fields \(3\)"):
        read_qrels(path)
    path = _write(tmp_path, "bad2.qrels", "q1 0 d1 1 extra\n")
    with pytest.raises(ValueError, match=r"bad2\.qrels:1: too many fields \(5\)"):
        read_qrels(path)


def test_run_non_numeric_score(tmp_path):
    path = _write(tmp_path, "bad.run", "q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 high r\n")
    with pytest.raises(
        ValueError,
        match=r"bad\.run:2: expected a numeric score, got 'q1 Q0 d2 2 high r'",
    ):
        read_run(path)
    path = _write(tmp_path, "nan.run", "q1 Q0 d1 1 nan r\n")
    with pytest.raises(ValueError, match=r"nan\.run:1: expected a numeric score"):
        read_run(path)


def test_qrels_non_integer_label(tmp_path):
    path = _write(tmp_path, "bad.qrels", "q1 0 d1 1\nq1 0 d2 0.5\n")
    with pytest.raises(
        ValueError,
        match=r"bad\.qrels:2: expected an integer relevance label, got 'q1 0 d2 0\.5'",
    ):
        read_qrels(path)


@pytest.mark.parametrize("label", ["9223372036854775808", "-9223372036854775809"])
def test_a_label_past_int64_is_reported_at_its_line(label):
    """A label of more digits than the fast parser takes is parsed by
    Python; one outside int64 is a format error at its line, not an
    ``OverflowError`` without a line (the largest ones are read)."""
    lines = [f"q1 0 d1 {2**63 - 1}", f"q1 0 d2 {label}", f"q1 0 d3 {-(2**63)}"]
    text = "\n".join(lines) + "\n"
    message = (
        "<file>:2: expected an integer relevance label from -2**63 to "
        f"2**63 - 1, got 'q1 0 d2 {label}'"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        read_qrels(io.StringIO(text))
    qrels = read_qrels(io.StringIO(f"{lines[0]}\n{lines[2]}\n"))
    assert qrels.labels.tolist() == [2**63 - 1, -(2**63)]


def test_duplicate_docno_within_an_evaluated_query(tmp_path):
    # Read as trec_eval reads them; an error where a query is evaluated.
    run_path = _write(
        tmp_path, "dup.run", "q1 Q0 d1 1 1 r\nq2 Q0 d1 1 1 r\nq1 Q0 d1 2 0 r\n"
    )
    qrels_path = _write(tmp_path, "ok.qrels", "q1 0 d1 1\nq2 0 d1 0\n")
    run = read_run(run_path)
    assert len(run) == 3
    message = r"dup\.run:3: duplicate docno 'd1' for query 'q1' \(first at line 1\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(qrels_path, run, "map")
    with pytest.raises(ValueError, match=message):
        evaluate_run(qrels_path, run_path, "map")  # streamed
    dup_qrels = _write(tmp_path, "dup.qrels", "q1 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(ValueError, match=r"dup\.qrels:2: duplicate docno 'd1'"):
        evaluate_run(dup_qrels, _write(tmp_path, "ok.run", "q1 Q0 d1 1 1 r\n"), "map")


def test_error_names_an_open_file(tmp_path):
    with pytest.raises(ValueError, match=r"<file>:1: too few fields"):
        read_qrels(io.BytesIO(b"q1 0 d1\n"))
    path = _write(tmp_path, "bad.qrels", "q1 0 d1 1\nq1 0 d2\n")
    for mode in ("rb", "r"):
        with open(path, mode) as fh, pytest.raises(ValueError) as error:
            read_qrels(fh)
        assert str(error.value).startswith(f"{path}:2: too few fields (3)")
    # a file opened from a descriptor is named by an int: not a name
    with open(os.open(path, os.O_RDONLY), "rb") as fh:
        with pytest.raises(ValueError, match=r"^<file>:2: too few fields"):
            read_qrels(fh)


def test_bad_source_type():
    with pytest.raises(TypeError, match="expected a path or an open file, got int"):
        read_run(3)


# --------------------------------------------------------------------------
# Records and the writer
# --------------------------------------------------------------------------


def test_record_constructors_validate():
    with pytest.raises(ValueError, match="columns must have the same length"):
        Qrels(["q"], ["d", "e"], [1, 0])
    with pytest.raises(TypeError, match="`labels` must hold integer relevance"):
        Qrels(["q"], ["d"], [0.5])
    with pytest.raises(TypeError, match="`scores` must be real numbers"):
        Run(["q"], ["d"], ["high"])
    with pytest.raises(ValueError, match="`scores` must not contain NaN"):
        Run(["q"], ["d"], [np.nan])
    with pytest.raises(TypeError, match="`run_id` must be a string"):
        Run(["q"], ["d"], [1.0], run_id=3)
    assert Qrels([1, 1], [10, 11], [1.0, 0.0]).query_ids.tolist() == ["1", "1"]


def test_write_run_ranks_by_score_then_docno_descending():
    out = io.StringIO()
    write_run(
        out,
        ["q2", "q1", "q1", "q1"],
        ["a", "d1", "d2", "d3"],
        [1.0, 0.5, 0.5, 0.9],
        run_id="model",
    )
    assert out.getvalue().splitlines() == [
        "q1 Q0 d3 1 0.9 model",
        "q1 Q0 d2 2 0.5 model",
        "q1 Q0 d1 3 0.5 model",
        "q2 Q0 a 1 1.0 model",
    ]


def test_write_run_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    qids = np.repeat([f"q{i}" for i in range(5)], 20)
    docs = np.array([f"doc{i}" for i in range(100)])
    scores = rng.normal(size=100)
    path = tmp_path / "run.txt.gz"
    write_run(path, qids, docs, scores, run_id="rt", max_docs=10)
    run = read_run(path)
    assert run.run_id == "rt"
    assert len(run) == 50
    np.testing.assert_array_equal(np.unique(run.query_ids), np.unique(qids))
    top = {q: sorted(scores[qids == q])[-10:] for q in np.unique(qids)}
    for q in np.unique(qids):
        np.testing.assert_array_equal(
            np.sort(run.scores[run.query_ids == q]), np.sort(top[q])
        )  # scores survive the text round trip exactly
    qrels = Qrels(qids, docs, (scores > 1).astype(int))
    full = evaluate_run(qrels, Run(qids, docs, scores), ["P_10", "map_cut_10"])
    written = evaluate_run(qrels, run, ["P_10", "map_cut_10"])
    assert full.means == written.means


def test_write_run_validates():
    with pytest.raises(ValueError, match="`doc_ids` must be non-empty strings"):
        write_run(io.StringIO(), ["q"], ["a b"], [1.0])
    with pytest.raises(ValueError, match="`run_id` must be a non-empty word"):
        write_run(io.StringIO(), ["q"], ["d"], [1.0], run_id="my run")
    with pytest.raises(ValueError, match="`max_docs` must be a positive integer"):
        write_run(io.StringIO(), ["q"], ["d"], [1.0], max_docs=0)
    with pytest.raises(TypeError, match="`file` must be a path or an open text"):
        write_run(3, ["q"], ["d"], [1.0])


# --------------------------------------------------------------------------
# The byte-level machinery behind the readers
# --------------------------------------------------------------------------


def test_decimal_parser_is_exact():
    from skirm.io._decimals import parse_decimals
    from skirm.io._tokens import Tokens

    rng = np.random.default_rng(0)
    values = np.concatenate(
        [rng.normal(size=2000) * 10.0 ** rng.integers(-3, 6, size=2000), [0.0, -0.0]]
    )
    texts = [
        f"{v:.{d}f}" for v, d in zip(values, rng.integers(0, 9, 2002), strict=True)
    ]
    texts += ["+3", "007.100", ".5", "1.", "1e5", "inf", "-nan", "1.2.3", "-", "x1"]
    texts += ["12345678901234567890", "123456789012345"]
    parsed, ok = parse_decimals(Tokens.from_strings(np.array(texts)))
    for text, value, good in zip(texts, parsed, ok, strict=True):
        if good:
            assert value == float(text) and str(value) == str(float(text)), text
    # inf, nan, malformed and 20-digit numbers are left to Python
    assert ok[-12:-7].all() and not ok[-7:-1].any() and ok[-1]
    assert ok[:-12].all()  # the others


def test_scores_the_fast_parser_skips_are_still_read():
    run = read_run(
        io.StringIO("q Q0 a 1 1e-3 r\nq Q0 b 2 -inf r\nq Q0 c 3 12345678901234567 r\n")
    )
    np.testing.assert_array_equal(run.scores, [1e-3, -np.inf, 12345678901234567.0])


def test_token_order_is_byte_order():
    from skirm.io._tokens import Tokens

    rng = np.random.default_rng(1)
    alphabet = np.array(list("ab-_09Zé"))
    texts = [
        "".join(rng.choice(alphabet, size=rng.integers(1, 20))) for _ in range(300)
    ]
    tokens = Tokens.from_strings(np.array(texts))
    rows = np.arange(len(texts))
    order = np.argsort(tokens.byte_rank(rows), kind="stable")
    assert [texts[i] for i in order] == sorted(texts, key=lambda t: t.encode())
    assert tokens.strings().tolist() == texts
    assert tokens.equal(rows, tokens, rows).all()
    assert not tokens.equal(rows[:-1], tokens, rows[1:])[
        np.array(texts[:-1]) != np.array(texts[1:])
    ].any()


def test_hash_collisions_fall_back_to_exact_strings(monkeypatch):
    """With every key colliding, reading and evaluating give the same results."""
    import skirm.io._join
    import skirm.io._tokens

    folder = TREC_EVAL_DATA
    measures = ["map", "P_10", "bpref", "ndcg_cut_10", "num_rel_ret"]
    expected = evaluate_run(
        read_qrels(folder / "qrels.test"), read_run(folder / "results.test"), measures
    )

    def collide(h, codes):
        return np.zeros(h.shape[0], dtype=np.uint64)

    monkeypatch.setattr(skirm.io._tokens, "mix", collide)
    monkeypatch.setattr(skirm.io._join, "mix", collide)
    got = evaluate_run(
        read_qrels(folder / "qrels.test"), read_run(folder / "results.test"), measures
    )
    assert got.means == expected.means
    streamed = evaluate_run(folder / "qrels.test", folder / "results.test", measures)
    assert streamed.means == expected.means
    got_run = Run(["q"], ["d1"], [1.0])
    with pytest.raises(ValueError, match=r"<file>:3: duplicate docno 'd1' for query"):
        evaluate_run(
            Qrels(["q"], ["d1"], [1]),
            read_run(io.StringIO("q Q0 d1 1 1 r\nq Q0 d2 1 1 r\nq Q0 d1 1 1 r\n")),
            "map",
        )
    with pytest.raises(ValueError, match=r"<file>:2: duplicate docno 'd1' for query"):
        evaluate_run(read_qrels(io.StringIO("q 0 d1 1\nq 0 d1 0\n")), got_run, "map")


def test_key_index_helpers():
    from skirm._validation import repeated_pairs as equal_key_pairs
    from skirm.io._keys import SortedKeys

    rng = np.random.default_rng(2)
    keys = np.unique(rng.integers(0, 2**63, size=5000, dtype=np.uint64))
    keys[:50] = np.arange(50, dtype=np.uint64)  # a crowded bucket near 0
    keys = np.unique(keys)
    needles = np.concatenate([keys[::7], rng.integers(0, 2**63, 300, dtype=np.uint64)])
    found = SortedKeys(keys).find(needles)
    position = np.searchsorted(keys, needles)
    inside = position < keys.shape[0]
    expected = np.where(
        inside & (keys[np.minimum(position, keys.shape[0] - 1)] == needles),
        position,
        -1,
    )
    np.testing.assert_array_equal(found, expected)
    assert (found[: keys[::7].shape[0]] >= 0).all()
    dup = np.concatenate([keys, keys[[3, 10, 3000]]])
    i, j = equal_key_pairs(dup)
    assert sorted(map(tuple, np.sort(np.stack([i, j], 1), axis=1).tolist())) == [
        (3, keys.shape[0]),
        (10, keys.shape[0] + 1),
        (3000, keys.shape[0] + 2),
    ]
    assert equal_key_pairs(keys)[0].shape == (0,)


def test_many_short_lines_and_chunks(monkeypatch):
    """Blank lines beyond the first guess of the line count, and lines spread
    over several chunks, keep their numbers."""
    from skirm.io._text import Table

    monkeypatch.setattr(Table, "CHUNK", 64)
    text = "\n" * 100 + "".join(f"q{i % 3} Q0 d{i} {i} {i / 8} r\n" for i in range(40))
    text += "\n" * 30 + "q1 Q0 d1 1 0.5\n"
    with pytest.raises(ValueError, match=r"<file>:171: too few fields \(5\)"):
        read_run(io.BytesIO(text.encode()))
    run = read_run(io.BytesIO(text.rsplit("q1 Q0 d1 1", 1)[0].encode()))
    assert len(run) == 40
    assert run.doc_ids.tolist() == [f"d{i}" for i in range(40)]
    np.testing.assert_array_equal(run.scores, np.arange(40) / 8)


def test_regression_binary_input_is_named_not_dumped(tmp_path):
    # A binary file gave "too many fields (363) ..." and then the whole
    # offending line, tens of kilobytes of escaped bytes.
    path = tmp_path / "run.bin"
    path.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(ValueError) as info:
        read_run(path)
    message = str(info.value)
    assert "a NUL byte: this looks like a binary file, not a TREC text file" in message
    assert message.startswith(f"{path}:") and len(message) < 300


def test_a_long_offending_line_is_shown_shortened(tmp_path):
    path = tmp_path / "run"
    path.write_text("1 Q0 d1 1 " + "9" * 100_000 + "x r\n")
    with pytest.raises(ValueError, match=r"\.\.\. \(a line of 100013 characters\)$"):
        read_run(path)
    with pytest.raises(ValueError) as info:
        read_run(path)
    assert len(str(info.value)) < 400


RUN_FIELDS = "expected 6 fields: qid iter docno rank score run_id"


@pytest.mark.parametrize(
    "data, line, shown",
    [
        # the bad line before a good one, and last without a newline
        (b"q Q0 d 1\nq Q0 e 1 1 r\n", 1, "q Q0 d 1"),
        (b"q Q0 e 1 1 r\nq Q0 d1 X", 2, "q Q0 d1 X"),
        # trailing blanks kept, the CR of a CRLF line dropped
        (b"q Q0 d 1  \t\n", 1, "q Q0 d 1  \t"),
        (b"q Q0 d 1\r\nq Q0 e 1 1 r\r\n", 1, "q Q0 d 1"),
        # a byte that is not UTF-8 (Latin-1) shown as a replacement character
        (b"q Q0 d\xe9 1\n", 1, "q Q0 d\ufffd 1"),
    ],
)
def test_a_bad_line_is_shown_as_it_is(data, line, shown):
    message = (
        f"<file>:{line}: too few fields (4) (did you swap QRELS and RUN?); "
        f"{RUN_FIELDS}, got {shown!r}"
    )
    with pytest.raises(ValueError) as error:
        read_run(io.BytesIO(data))
    assert str(error.value) == message


def test_a_bad_line_of_200_characters_is_shown_whole():
    text = "q Q0 " + "d" * 193 + " 1"
    assert len(text) == 200
    with pytest.raises(ValueError) as error:
        read_run(io.StringIO(text + "\n"))
    assert str(error.value).endswith(f", got {text!r}")
    with pytest.raises(ValueError) as error:
        read_run(io.StringIO(text + "1\n"))
    assert str(error.value).endswith(f"{text!r}... (a line of 201 characters)")


def test_a_swapped_qrels_or_run_is_suggested():
    with pytest.raises(ValueError) as error:
        read_qrels(io.StringIO("q 0 d 1\nq 0 e 1 2 3\n"))
    assert str(error.value) == (
        "<file>:2: too many fields (6) (did you swap QRELS and RUN?); expected 4 "
        "fields: qid iter docno rel, got 'q 0 e 1 2 3'"
    )
    with pytest.raises(ValueError) as error:
        read_qrels(io.StringIO("q 0 e 1 2\n"))
    assert str(error.value) == (
        "<file>:1: too many fields (5); expected 4 fields: qid iter docno rel, "
        "got 'q 0 e 1 2'"
    )


@pytest.mark.parametrize("label", ["1.X", "1.0X", "X.0"])
def test_labels_with_letters_are_refused(label):
    with pytest.raises(ValueError, match="expected an integer relevance label"):
        read_qrels(io.StringIO(f"q 0 d {label}\n"))


def test_a_nul_byte_is_reported_on_the_line_of_the_first_one():
    data = b"\nq 0 d 1\nq 0 \0 1\nq 0 \0 2\n\n\n\n"
    with pytest.raises(ValueError) as error:
        read_qrels(io.BytesIO(data))
    assert str(error.value) == (
        "<file>:3: a NUL byte: this looks like a binary file, not a TREC text file"
    )
    with pytest.raises(ValueError, match=r"^<file>:1: a NUL byte"):
        read_qrels(io.BytesIO(b"\0q 0 d 1\n"))


def test_a_line_of_one_field_has_too_few():
    with pytest.raises(ValueError, match=r"^<file>:2: too few fields \(1\)"):
        read_qrels(io.StringIO("q 0 d 1\nq\n"))
    with pytest.raises(ValueError, match=r"^<file>:1: too few fields \(1\)"):
        read_run(io.StringIO("q1\nq1 Q0 d 1 1 r\n"))


def test_an_indented_comment_of_one_word_is_a_comment(monkeypatch):
    """A run line whose first non-blank character is ``#`` is a comment,
    also when it is the only word of a file or of a chunk of lines."""
    from skirm.io._text import Table

    assert len(read_run(io.StringIO("  #comment\n"))) == 0
    monkeypatch.setattr(Table, "CHUNK", 1)  # a chunk a line
    run = read_run(io.StringIO("q Q0 d 1 1 r\n\t#note\nq Q0 e 2 0 r\n"))
    assert run.doc_ids.tolist() == ["d", "e"]


def test_lines_stored_before_the_line_arrays_grow_keep_their_numbers(monkeypatch):
    """Blank lines beyond the first guess of the line count after a bad
    line: it is reported with its number and text once the arrays grew."""
    from skirm.io._text import Table

    monkeypatch.setattr(Table, "CHUNK", 64)
    text = "\n" * 10 + "q1 Q0 d1 1 0.5\n" + "\n" * 200
    with pytest.raises(ValueError) as error:
        read_run(io.BytesIO(text.encode()))
    assert str(error.value) == (
        "<file>:11: too few fields (5); expected 6 fields: qid iter docno rank "
        "score run_id, got 'q1 Q0 d1 1 0.5'"
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_lines_first_tokens_found_without_a_search_are_the_searched_ones(seed):
    """Lines of one token count (a run's) skip the search of each line's first
    token; lines of other counts, blank ones, indented ones, a line of more
    tokens than its neighbours, one token crossing where another line's would
    be, all find the same tokens as the search."""
    from skirm.io._text import _first_tokens

    rng = np.random.default_rng(seed)
    words = ["a", "bb", "q1", "d#3", "0.5"]
    for _ in range(60):
        n_lines = int(rng.integers(1, 8))
        uniform = rng.random() < 0.5
        k = int(rng.integers(1, 5))
        lines = []
        for _ in range(n_lines):
            count = k if uniform else int(rng.integers(0, 5))
            tokens = rng.choice(words, count).tolist()
            gaps = [" " * int(rng.integers(1, 3)) for _ in tokens]
            lead = " " * int(rng.integers(0, 2))
            spaced = (t + g for t, g in zip(tokens, gaps, strict=True))
            lines.append(lead + "".join(spaced))
        text = "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")
        a = np.frombuffer(text.encode(), dtype=np.uint8)
        line_starts = np.concatenate(([0], np.flatnonzero(a[:-1] == 10) + 1))
        sep = np.concatenate((a <= 32, [True]))
        change = np.concatenate(([not sep[0]], sep[1:] != sep[:-1]))
        edges = np.flatnonzero(change)
        expected = np.searchsorted(edges, line_starts) // 2
        found = _first_tokens(edges, line_starts)
        np.testing.assert_array_equal(found, expected, err_msg=repr(text))
        assert found.dtype == expected.dtype
    # the edge count fits k tokens a line, but one line holds k + 1 and
    # another k - 1: the search decides
    a = np.frombuffer(b"x y z\nx\nx y\n", dtype=np.uint8)
    line_starts = np.array([0, 6, 8])
    edges = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    assert (a[edges[::2]] > 32).all()
    np.testing.assert_array_equal(_first_tokens(edges, line_starts), [0, 3, 4])
