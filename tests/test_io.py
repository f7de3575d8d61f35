"""TREC qrels/run readers and the run writer."""

import gzip
import io
from pathlib import Path

import numpy as np
import pytest

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


def test_error_names_an_open_file():
    with pytest.raises(ValueError, match=r"<file>:1: too few fields"):
        read_qrels(io.BytesIO(b"q1 0 d1\n"))


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
    from skirm.io._tokens import Tokens, parse_decimals

    rng = np.random.default_rng(0)
    values = np.concatenate(
        [rng.normal(size=2000) * 10.0 ** rng.integers(-3, 6, size=2000), [0.0, -0.0]]
    )
    texts = [
        f"{v:.{d}f}" for v, d in zip(values, rng.integers(0, 9, 2002), strict=True)
    ]
    texts += ["+3", "007.100", ".5", "1.", "1e5", "inf", "-nan", "1.2.3", "-", "x1"]
    texts += ["1234567890123456", "123456789012345"]
    parsed, ok = parse_decimals(Tokens.from_strings(np.array(texts)))
    for text, value, good in zip(texts, parsed, ok, strict=True):
        if good:
            assert value == float(text) and str(value) == str(float(text)), text
    # exponents, inf, nan, malformed and 16-digit numbers are left to Python
    assert ok[-12:-8].all() and not ok[-8:-1].any() and ok[-1]
    assert ok[:-12].mean() > 0.8  # the others unless they have > 15 digits


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
    import skirm.io._tokens
    import skirm.trec._join

    folder = Path(__file__).resolve().parent / "data" / "trec_eval"
    measures = ["map", "P_10", "bpref", "ndcg_cut_10", "num_rel_ret"]
    expected = evaluate_run(
        read_qrels(folder / "qrels.test"), read_run(folder / "results.test"), measures
    )

    def collide(h, codes):
        return np.zeros(h.shape[0], dtype=np.uint64)

    monkeypatch.setattr(skirm.io._tokens, "mix", collide)
    monkeypatch.setattr(skirm.trec._join, "mix", collide)
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


def _collide(monkeypatch, mix):
    """Every (query, docno) key computed by ``mix(hashes, codes)``."""
    import skirm.io._tokens
    import skirm.trec._join

    monkeypatch.setattr(skirm.io._tokens, "mix", mix)
    monkeypatch.setattr(skirm.trec._join, "mix", mix)


def _all_zero(h, codes):
    return np.zeros(h.shape[0], dtype=np.uint64)


JOIN_MEASURES = ["num_rel_ret", "num_rel", "map", "P_5", "bpref", "ndcg"]


@pytest.mark.parametrize(
    "qrels, run",
    [
        # topics not in file order: the docnos of a topic are not its rows
        (
            "q2 0 a 1\nq1 0 b 1\nq2 0 c 0\nq1 0 a 2\nq3 0 z 1\nq1 0 c -1\n",
            "q1 Q0 c 1 4 r\nq1 Q0 a 2 3 r\nq1 Q0 x 3 2 r\nq2 Q0 a 1 1 r\n"
            "q2 Q0 c 2 0 r\nq2 Q0 b 3 -1 r\n",
        ),
        # one docno in the run, the judged docnos sorting before and after it
        ("q1 0 a 1\nq1 0 m 1\nq1 0 z 0\n", "q1 Q0 m 1 1 r\n"),
        # one judgement found, a run docno sorting after it
        ("q1 0 a 1\nq1 0 b 0\n", "q1 Q0 a 1 2 r\nq1 Q0 c 2 1 r\n"),
        # no judgement found
        ("q1 0 a 1\nq1 0 b 0\n", "q1 Q0 x 1 2 r\nq1 Q0 y 2 1 r\n"),
    ],
)
def test_hash_collisions_join_as_the_hashes_do(monkeypatch, qrels, run):
    """With every key colliding, the join on the strings matches each run row
    to its judgement as the join on distinct hashes does."""

    def evaluate():
        return evaluate_run(
            read_qrels(io.StringIO(qrels)),
            read_run(io.StringIO(run)),
            JOIN_MEASURES,
            compat="9.0",  # q3 is not in the run
        )

    expected = evaluate()
    _collide(monkeypatch, _all_zero)
    got = evaluate()
    assert got.group_ids.tolist() == expected.group_ids.tolist()
    for name in JOIN_MEASURES:
        assert got.per_query[name].tolist() == expected.per_query[name].tolist()


def test_hash_collisions_in_the_qrels_are_no_duplicates(monkeypatch):
    """Two judgements sharing a key are a duplicate only if their query and
    docno are the same: checked on the strings."""
    _collide(monkeypatch, _all_zero)
    run = Run(["q1", "q2"], ["a", "a"], [1.0, 1.0])
    # two docnos of one query, and one docno in two queries
    for qrels in ["q1 0 a 1\nq1 0 b 0\n", "q1 0 a 1\nq2 0 a 1\n"]:
        got = evaluate_run(read_qrels(io.StringIO(qrels)), run, ["num_rel_ret"])
        assert got.means == {"num_rel_ret": 1.0 if "b" in qrels else 2.0}
    # a true duplicate among colliding keys
    qrels = read_qrels(io.StringIO("q1 0 a 1\nq1 0 b 0\nq1 0 c 0\nq1 0 b 1\n"))
    message = r"<file>:4: duplicate docno 'b' for query 'q1' \(first at line 2\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(qrels, run, "map")


@pytest.mark.parametrize("seed", range(8))
def test_hash_collisions_report_a_docno_three_times_at_its_second_copy(
    monkeypatch, seed
):
    """On the strings too, the copies of a repeated judgement are taken in
    file order: the second copy is reported, with the first."""
    _collide(monkeypatch, _all_zero)
    rng = np.random.default_rng(seed)
    at = np.sort(rng.choice(153, size=3, replace=False))
    others = iter(range(150))
    text = "".join(
        f"q 0 {'dup' if i in at else f'd{next(others)}'} 1\nr 0 e{i} 1\n"
        for i in range(153)
    )
    first, second = 2 * at[:2] + 1  # 1-based lines
    message = rf"<file>:{second}: duplicate docno 'dup' .* \(first at line {first}\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(read_qrels(io.StringIO(text)), Run(["q"], ["x"], [1.0]), "map")


def test_a_key_equal_by_chance_is_no_match(monkeypatch):
    """A run row whose key equals a judgement's (a hash collision the qrels
    alone do not show) is matched only if its docno is the judged one."""
    _collide(monkeypatch, lambda h, codes: codes.astype(np.uint64))
    qrels = read_qrels(io.StringIO("q1 0 a 1\nq2 0 b 1\n"))
    run = read_run(io.StringIO("q1 Q0 x 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 y 1 1 r\n"))
    got = evaluate_run(qrels, run, ["num_rel_ret", "map", "P_1"])
    assert got.per_query["num_rel_ret"].tolist() == [1.0, 0.0]
    assert got.per_query["map"].tolist() == [0.5, 0.0]
    assert got.per_query["P_1"].tolist() == [0.0, 0.0]


QRELS_DUPLICATES = """\
b 0 x 1
b 0 x 0
a 0 y 1
a 0 z 1
a 0 y 0
a 0 z 0
c 0 w 1
"""


@pytest.mark.parametrize(
    "run_queries, line, first",
    [(["a", "b"], 2, 1), (["b"], 2, 1), (["a"], 5, 3), (["a", "c"], 5, 3)],
)
def test_qrels_duplicates_reported_at_the_first_repeat_of_the_evaluated_topics(
    run_queries, line, first
):
    """Among the duplicates of the evaluated topics, the one of the earliest
    line is reported, whichever topic sorts first."""
    qrels = read_qrels(io.StringIO(QRELS_DUPLICATES))
    run = Run(run_queries, ["v"] * len(run_queries), [1.0] * len(run_queries))
    with pytest.raises(
        ValueError,
        match=rf"<file>:{line}: duplicate docno .* \(first at line {first}\)",
    ):
        evaluate_run(qrels, run, "map", compat="9.0")
    only_c = evaluate_run(qrels, Run(["c"], ["w"], [1.0]), "map", compat="9.0")
    assert only_c.means == {"map": 1.0}


def test_qrels_duplicates_in_two_topics():
    qrels = read_qrels(io.StringIO("a 0 x 1\na 0 x 0\nb 0 y 1\nb 0 y 0\n"))
    with pytest.raises(
        ValueError, match=r"<file>:4: duplicate docno 'y' for query 'b'"
    ):
        evaluate_run(qrels, Run(["b"], ["y"], [1.0]), "map", compat="9.0")


def test_qrels_index_largest_label_and_relevant_count():
    from skirm.io._records import qrels_rows
    from skirm.trec._join import QrelsIndex

    cases = [
        ([2, -1, 0, 1, 2], 2.0, 3),
        ([0, 0], 0.0, 0),
        ([-2, -1], 0.0, 0),
        ([1], 1.0, 1),
    ]
    for labels, largest, relevant in cases:
        qrels = Qrels(
            ["q"] * len(labels), [f"d{i}" for i in range(len(labels))], labels
        )
        index = QrelsIndex(qrels_rows(qrels))
        assert index.max_label() == largest
        assert index.n_relevant() == relevant


def test_key_index_helpers():
    from skirm.io._tokens import equal_key_pairs, find_sorted

    rng = np.random.default_rng(2)
    keys = np.unique(rng.integers(0, 2**63, size=5000, dtype=np.uint64))
    keys[:50] = np.arange(50, dtype=np.uint64)  # a crowded bucket near 0
    keys = np.unique(keys)
    needles = np.concatenate([keys[::7], rng.integers(0, 2**63, 300, dtype=np.uint64)])
    found = find_sorted(keys, needles)
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


def test_key_index_helpers_on_short_inputs():
    """No keys, one key and two equal keys: the lookups and pairs as on long
    inputs, the pairs as row indices."""
    from skirm.io._tokens import equal_key_pairs, find_sorted

    needles = np.array([0, 5, 2**63], dtype=np.uint64)
    assert find_sorted(np.zeros(0, dtype=np.uint64), needles).tolist() == [-1] * 3
    assert find_sorted(np.array([5], dtype=np.uint64), needles).tolist() == [-1, 0, -1]
    for n in (0, 1):
        i, j = equal_key_pairs(np.full(n, 7, dtype=np.uint64))
        assert i.shape == j.shape == (0,)
        assert i.dtype.kind == j.dtype.kind == "i"
    i, j = equal_key_pairs(np.array([7, 7], dtype=np.uint64))
    assert (i.tolist(), j.tolist()) == ([0], [1])
    i, j = equal_key_pairs(np.array([7, 8], dtype=np.uint64))
    assert (i.tolist(), j.tolist()) == ([], [])


def _token_column(texts, rng):
    """Tokens of ``texts`` read as a reader reads them: offsets into a buffer
    where other bytes surround each one."""
    from skirm.io._tokens import PAD, Tokens

    data, start, end = b"", [], []
    for text in texts:
        data += bytes(rng.integers(1, 255, size=int(rng.integers(0, 4))).tolist())
        start.append(len(data))
        data += text.encode("utf-8", "surrogateescape")
        end.append(len(data))
    buf = np.frombuffer(data + b"\0" * PAD, dtype=np.uint8)
    return Tokens(buf, np.array(start), np.array(end))


def _check_buffer(tokens):
    """The class invariant: a uint8 buffer with PAD zero bytes after every
    token."""
    from skirm.io._tokens import PAD

    assert tokens.buf.dtype == np.uint8
    last = int(tokens.end.max()) if len(tokens) else 0
    assert tokens.buf.shape[0] >= last + PAD
    assert not tokens.buf[last:].any()


def test_compact_and_concat_keep_the_tokens():
    from skirm.io._tokens import Tokens

    rng = np.random.default_rng(5)
    texts = ["d1", "", "x" * 20, "é-ü", "q" * 200, "d1", "7"]
    column = _token_column(texts, rng)
    rows = np.array([6, 0, 3, 4, 4, 1])
    compacted = column.take(rows).compact()
    _check_buffer(compacted)
    assert compacted.strings().tolist() == [texts[i] for i in rows]
    assert int(compacted.end[-1]) == sum(len(texts[i].encode()) for i in rows)
    np.testing.assert_array_equal(compacted.hash(), column.hash()[rows])

    parts = [column.take(rows[:2]), column.take(rows[:0]), column, column.take([2])]
    joined = Tokens.concat(parts)
    _check_buffer(joined)
    expected = [texts[i] for i in rows[:2]] + texts + [texts[2]]
    assert joined.strings().tolist() == expected
    assert joined.equal(
        np.arange(len(expected)), joined, np.arange(len(expected))
    ).all()
    empty = Tokens.concat([])
    _check_buffer(empty)
    assert len(empty) == 0 and empty.strings().tolist() == []
    assert empty.start.dtype == empty.end.dtype == np.int64
    assert Tokens.concat([empty, column.take([3])]).strings().tolist() == [texts[3]]


def test_tokens_of_unusual_str_arrays():
    """Width-0 str arrays, the first non-ASCII code point and empty columns."""
    from skirm.io._tokens import Tokens

    blank = Tokens.from_strings(np.ndarray((3,), dtype=np.dtype(("U", 0))))
    _check_buffer(blank)
    assert len(blank) == 3 and blank.strings().tolist() == ["", "", ""]
    assert blank.length.tolist() == [0, 0, 0]
    for texts in (["a\x80", "b"], ["\x7f", "\x80"]):
        tokens = Tokens.from_strings(np.array(texts))
        _check_buffer(tokens)
        assert tokens.strings().tolist() == texts
        assert tokens.length.tolist() == [len(t.encode()) for t in texts]
    empty = Tokens.from_strings(np.array([], dtype=str))
    codes, ids = empty.codes()
    assert codes.shape == ids.shape == (0,)
    assert codes.dtype == np.intp and ids.dtype.kind == "U"
    rank = empty.byte_rank()
    assert rank.shape == (0,) and rank.dtype == np.int64
    word = Tokens.from_strings(np.array(["abc"])).word(0, np.zeros(0, dtype=np.int64))
    assert word.shape == (0,) and word.dtype == np.uint64


def test_decimal_parser_bounds():
    """The fast path takes every plain decimal of 1 to 16 characters and up
    to 15 digits, whatever the width of the column, and nothing else."""
    from skirm.io._tokens import Tokens, parse_decimals

    good = ["5", "-7", "123456789", "12345678.1234567", "123456789012345", ".5"]
    bad = ["", "1:5", "1/5", "12345678.12345678", "1234567890123456", "+", "5-"]
    for texts in (good, bad, good + bad, ["5"], ["123456789"]):
        values, ok = parse_decimals(Tokens.from_strings(np.array(texts)))
        assert ok.tolist() == [t in good for t in texts], texts
        assert values[ok].tolist() == [float(t) for t in texts if t in good]
    values, ok = parse_decimals(Tokens.from_strings(np.array([], dtype=str)))
    assert values.shape == ok.shape == (0,)


def test_a_run_of_two_rows_with_one_docno_twice():
    run = read_run(io.StringIO("q Q0 d1 1 2 r\nq Q0 d1 2 1 r\n"))
    message = r"<file>:2: duplicate docno 'd1' for query 'q' \(first at line 1\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q"], ["d1"], [1]), run, "map")


@pytest.mark.parametrize("collide", [False, True])
def test_run_duplicates_reported_at_the_earliest_repeat(monkeypatch, collide):
    """Ten docnos repeated in reverse order: the earliest repeat is the
    middle one, whatever the order of the keys (hashed or colliding)."""
    if collide:
        _collide(monkeypatch, _all_zero)
    docs = [f"x{i}" for i in range(10)]
    lines = [f"q Q0 {d} {i} {-i} r\n" for i, d in enumerate(docs + docs[::-1])]
    run = read_run(io.StringIO("a Q0 y 1 1 r\n" + "".join(lines)))
    message = r"<file>:12: duplicate docno 'x9' for query 'q' \(first at line 11\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q", "a"], ["x1", "y"], [1, 1]), run, "map")


@pytest.mark.parametrize("seed", range(8))
def test_hash_collisions_report_a_run_docno_three_times_at_its_second_copy(
    monkeypatch, seed
):
    _collide(monkeypatch, _all_zero)
    rng = np.random.default_rng(seed)
    at = np.sort(rng.choice(63, size=3, replace=False))
    others = iter(range(60))
    text = "".join(
        f"q Q0 {'dup' if i in at else f'd{next(others)}'} {i} {-i} r\n"
        for i in range(63)
    )
    first, second = at[:2] + 1  # 1-based lines
    message = rf"<file>:{second}: duplicate docno 'dup' .* \(first at line {first}\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q"], ["dup"], [1]), read_run(io.StringIO(text)), "map")


def test_hash_collisions_find_a_run_duplicate_after_the_smallest_key(monkeypatch):
    _collide(monkeypatch, _all_zero)
    run = read_run(io.StringIO("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 b 3 1 r\n"))
    message = r"<file>:3: duplicate docno 'b' for query 'q' \(first at line 2\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q"], ["a"], [1]), run, "map")


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
