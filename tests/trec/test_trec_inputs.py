"""Every input shape gives the numbers of the TREC files; results out as dicts.

The oracle for the shapes is the file path itself: the same qrels and run
read by :func:`skirm.io.read_qrels` / :func:`skirm.io.read_run` and given as
dicts of dicts, DataFrames (ir_measures', ranx's, trectools' and custom column
names), tuples, ir_measures' and ir_datasets' named tuples, generators and a
dataset object give identical per-query values for every measure.
"""

import copy
import io
import re
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from _trec_fuzz import as_dicts

from skirm.io import Qrels, Run, as_qrels, as_run, read_qrels, read_run
from skirm.metrics import evaluate
from skirm.trec import evaluate_run


def _tuples(records, value):
    return list(
        zip(
            records.query_ids.tolist(),
            records.doc_ids.tolist(),
            getattr(records, value).tolist(),
            strict=True,
        )
    )


# ir_datasets' record types (same fields, same order)
TrecQrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
GenericScoredDoc = namedtuple("GenericScoredDoc", "query_id doc_id score")


def _shapes(qrels, run):
    """``{shape name: (qrels input, run input)}`` for the same judgements."""
    import ir_measures

    qd, rd = as_dicts(qrels, run)
    qt, rt = _tuples(qrels, "labels"), _tuples(run, "scores")

    class Dataset:  # an ir_datasets dataset: qrels_iter() / scoreddocs_iter()
        def qrels_iter(self):
            return (TrecQrel(q, d, r, "0") for q, d, r in qt)

        def scoreddocs_iter(self):
            return (GenericScoredDoc(q, d, s) for q, d, s in rt)

    irm = (
        [ir_measures.Qrel(q, d, r) for q, d, r in qt],
        [ir_measures.ScoredDoc(q, d, s) for q, d, s in rt],
    )
    frame_q = pd.DataFrame(qt, columns=["query_id", "doc_id", "relevance"])
    frame_r = pd.DataFrame(rt, columns=["query_id", "doc_id", "score"])
    ranx = frame_r.rename(columns={"query_id": "q_id"})
    trectools_q = pd.DataFrame(
        {
            "query": frame_q.query_id,
            "q0": 0,
            "docid": frame_q.doc_id,
            "rel": frame_q.relevance,
        }
    )
    custom_q = frame_q.set_axis(["topic", "doc", "grade"], axis=1)
    custom_r = frame_r.set_axis(["topic", "doc", "sim"], axis=1)
    return {
        "dicts": (qd, rd),
        "tuples": (qt, rt),
        "lists": ([list(t) for t in qt], [list(t) for t in rt]),
        "generators": ((t for t in qt), (t for t in rt)),
        "ir_measures": irm,
        "ir_datasets": (Dataset(), Dataset()),
        "frames": (frame_q, frame_r),
        "ranx_frame": (frame_q, ranx),
        "trectools_frame": (trectools_q, frame_r),
        "categorical_frame": (
            frame_q.astype({"query_id": "category", "doc_id": "category"}),
            frame_r.astype({"query_id": "string"}),
        ),
        "custom_frames": (
            as_qrels(custom_q, query_id="topic", doc_id="doc", relevance="grade"),
            as_run(custom_r, query_id="topic", doc_id="doc", score="sim"),
        ),
        "records": (
            Qrels(qrels.query_ids, qrels.doc_ids, qrels.labels),
            Run(run.query_ids, run.doc_ids, run.scores),
        ),
        "mixed": (frame_q, rd),
    }


SHAPES = list(
    _shapes(
        Qrels(["q"], ["d"], [1]),
        Run(["q"], ["d"], [1.0]),
    )
)


def _assert_same(expected, got):
    assert got.group_ids.tolist() == expected.group_ids.tolist()
    assert list(got.per_query) == list(expected.per_query)
    for name, values in expected.per_query.items():
        np.testing.assert_array_equal(got.per_query[name], values, err_msg=name)
    assert got.means == expected.means


@pytest.fixture(scope="module")
def trec_files(shared_data):
    folder = shared_data / "trec_eval-v9.0.8-test"
    return folder / "qrels.rel_level", folder / "results.test"


@pytest.mark.oracle
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("options", [{}, {"relevance_level": 2, "judged_only": True}])
def test_every_shape_gives_the_files_numbers(trec_files, shape, options):
    qrels_path, run_path = trec_files
    expected = evaluate_run(qrels_path, run_path, "all_trec", **options)
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    q_in, r_in = _shapes(qrels, run)[shape]
    got = evaluate_run(q_in, r_in, "all_trec", **options)
    _assert_same(expected, got)
    assert expected.means["num_q"] == 3 and expected.means["num_rel"] > 0


def _random_case(seed):
    """Qrels and a run with ties, unjudged documents, graded and negative
    labels, queries on one side only, integer-like and padded ids."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(30):
        qid = f"{q:03d}" if q % 3 else f"q{q}"
        docs = np.array([f"d{i}" for i in rng.permutation(300)[:80]])
        n_judged = int(rng.integers(0, 40))
        if rng.random() > 0.1:
            labels = rng.choice([-1, 0, 0, 1, 2, 3], size=n_judged)
            qrels += [(qid, d, int(x)) for d, x in zip(docs, labels, strict=False)]
        if rng.random() > 0.1:
            n_ret = int(rng.integers(1, 60))
            picked = rng.choice(docs, size=n_ret, replace=False)
            scores = rng.integers(-8, 8, size=n_ret) / 4.0
            run += [(qid, d, float(s)) for d, s in zip(picked, scores, strict=True)]
    return qrels, run


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_random_cases_every_shape_agrees(seed):
    qt, rt = _random_case(seed)
    text_q = "".join(f"{q} 0 {d} {r}\n" for q, d, r in qt)
    text_r = "".join(f"{q} Q0 {d} 1 {s!r} r\n" for q, d, s in rt)
    qrels, run = read_qrels(io.StringIO(text_q)), read_run(io.StringIO(text_r))
    # all_queries: some qrels queries are not in the run (trec_eval -c)
    expected = evaluate_run(qrels, run, "all_trec", all_queries=True)
    for shape, (q_in, r_in) in _shapes(qrels, run).items():
        got = evaluate_run(q_in, r_in, "all_trec", all_queries=True)
        try:
            _assert_same(expected, got)
        except AssertionError as exc:  # pragma: no cover - reports the shape
            raise AssertionError(f"shape {shape!r}: {exc}") from None


def test_ir_datasets_records():
    irds = pytest.importorskip("ir_datasets.formats")
    qrels = [irds.TrecQrel("q", "a", 1, "0"), irds.TrecQrel("q", "b", 0, "0")]
    run = [irds.GenericScoredDoc("q", "a", 0.5), irds.GenericScoredDoc("q", "b", 0.9)]
    assert evaluate_run(qrels, run, "recip_rank").means["recip_rank"] == 0.5


def test_integer_ids_are_their_decimal_text():
    qrels = {7: {101: 1, 102: 0}, "8": {"a": 1}}
    run = pd.DataFrame({"qid": [7, 7, 8], "docno": [102, 101, 5], "score": [2, 1, 3]})
    result = evaluate_run(qrels, run, ["recip_rank", "num_rel"])
    assert result.group_ids.tolist() == ["7", "8"]
    assert result.per_query["recip_rank"].tolist() == [0.5, 0.0]
    assert result.per_query["num_rel"].tolist() == [1.0, 1.0]


def test_integer_ids_beyond_int64_keep_their_decimal_text():
    # numpy alone would read 2**63 and -1 together as floats ('9.2...e+18')
    big = 2**63
    qrels = as_qrels({big: {-1: 1, big: 0}, -1: {"a": 1}})
    assert qrels.query_ids.tolist() == [str(big), str(big), "-1"]
    assert qrels.doc_ids.tolist() == ["-1", str(big), "a"]
    run = as_run([(big, 1, 2.0), (-1, big, 1.0)])
    assert run.query_ids.tolist() == [str(big), "-1"]
    assert run.doc_ids.tolist() == ["1", str(big)]


def test_float_labels_that_are_integers_are_accepted():
    qrels = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "rel": [1.0, 0]})
    run = {"q": {"a": 0.1, "b": 0.9}}
    assert evaluate_run(qrels, run, "recip_rank").means["recip_rank"] == 0.5


def test_inputs_are_not_modified():
    qt, rt = _random_case(7)
    qd, rd = as_dicts(as_qrels(qt), as_run(rt))
    frame = pd.DataFrame(rt, columns=["query_id", "doc_id", "score"])
    before = (copy.deepcopy(qd), copy.deepcopy(rd), frame.copy(), list(qt))
    evaluate_run(qd, rd, "official", all_queries=True)
    evaluate_run(qt, frame, "official", all_queries=True)
    assert (qd, rd, list(qt)) == (before[0], before[1], before[3])
    pd.testing.assert_frame_equal(frame, before[2])


def test_records_are_returned_as_they_are():
    qrels = Qrels(["q"], ["d"], [1])
    run = Run(["q"], ["d"], [1.0])
    assert as_qrels(qrels) is qrels and as_run(run) is run


def test_records_round_trip_through_their_frames():
    qrels = Qrels(["q1", "q1", "q2"], ["a", "b", "c"], [2, 0, 1])
    run = Run(["q1", "q2"], ["a", "c"], [0.5, 0.25], run_id="x")
    back_q, back_r = as_qrels(qrels.to_frame()), as_run(run.to_frame())
    for before, after, value in ((qrels, back_q, "labels"), (run, back_r, "scores")):
        assert after.query_ids.tolist() == before.query_ids.tolist()
        assert after.doc_ids.tolist() == before.doc_ids.tolist()
        assert getattr(after, value).tolist() == getattr(before, value).tolist()


def test_run_id_and_file_inputs():
    assert as_run({"q": {"d": 1.0}}, run_id="bm25").run_id == "bm25"
    # a run without a name is "skirm", also when evaluate_run converts it
    assert evaluate_run({"q": {"d": 1}}, {"q": {"d": 1.0}}, "map").run_id == "skirm"
    run = as_run(io.StringIO("q Q0 d 1 2.5 named\n"))
    assert run.run_id == "named" and run.scores.tolist() == [2.5]
    qrels = as_qrels(io.StringIO("q 0 d 1\n"))
    assert qrels.labels.tolist() == [1]


def test_empty_inputs():
    assert len(as_qrels({})) == 0 and len(as_run([])) == 0
    assert len(as_qrels({"q": {}})) == 0
    with pytest.raises(ValueError, match="no query of the run appears in the qrels"):
        evaluate_run({"q": {"d": 1}}, {"other": {"d": 1.0}}, "map")


# --------------------------------------------------------------------------
# Bad shapes
# --------------------------------------------------------------------------

Pair = namedtuple("Pair", "query_id doc_id")


@pytest.mark.parametrize(
    "bad, error, message",
    [
        (5, TypeError, r"`qrels` must be a skirm\.io\.Qrels, a path .* got int"),
        ({"q": ["d1"]}, TypeError, r"`qrels` must be a dict of dicts .*'q' is a list"),
        ({"q": {"d": "1"}}, TypeError, r"`qrels`: relevance values must be numbers"),
        (
            {"q": {"d": 1.5}},
            ValueError,
            r"`qrels`: relevance values must be integers, got 1.5 for query 'q', "
            r"document 'd'",
        ),
        (
            {"q": {"d": None}},
            TypeError,
            r"relevance values must be numbers, got None for query 'q', document 'd'",
        ),
        ({None: {"d": 1}}, TypeError, r"query ids must be strings or integers"),
        ({"q": {1.5: 1}}, TypeError, r"doc ids must be strings or integers"),
        (["q 0 d 1"], TypeError, r"iterable of str \(for the lines of a file"),
        ([("q", "d")], ValueError, r"tuples of 3 values; row 0 is \('q', 'd'\)"),
        ([("q", "d", 1), ("q", "e", 1, 0)], ValueError, r"row 1 is"),
        ([1, 2], TypeError, r"tuples; got an iterable of int"),
        ([Pair("q", "d")], ValueError, r"no relevance field: expected one of"),
        (b"q 0 d 1", TypeError, r"got bytes"),
        (
            Run(["q"], ["d"], [1.0]),
            TypeError,
            r"`qrels` must be .* got skirm\.io\.Run$",
        ),
    ],
)
def test_bad_qrels_shapes(bad, error, message):
    with pytest.raises(error, match=message):
        evaluate_run(bad, {"q": {"d": 1.0}}, "map")


@pytest.mark.parametrize(
    "bad, error, message",
    [
        ({"q": {"d": "high"}}, TypeError, r"`run`: score values must be numbers"),
        (
            {"q": {"d": float("nan")}},
            ValueError,
            r"`run`: score values must not be NaN, got NaN for query 'q', document 'd'",
        ),
        ({"q": 1.0}, TypeError, r"`run` must be a dict of dicts .*'q' is a float"),
        (
            Qrels(["q"], ["d"], [1]),
            TypeError,
            r"`run` must be a skirm\.io\.Run, .* got skirm\.io\.Qrels$",
        ),
        (
            pd.DataFrame({"query_id": ["q"], "doc_id": ["d"]}),
            ValueError,
            r"`run` has no score column: expected one of \['score', 'scores'\], "
            r"got columns \['query_id', 'doc_id'\]; name it with "
            r"skirm.io.as_run\(..., score=...\)",
        ),
        (
            pd.DataFrame({"qid": ["q"], "query_id": ["q"], "doc_id": ["d"], "s": [1]}),
            ValueError,
            r"several query_id columns \['query_id', 'qid'\]",
        ),
    ],
)
def test_bad_run_shapes(bad, error, message):
    with pytest.raises(error, match=message):
        evaluate_run({"q": {"d": 1}}, bad, "map")


def test_duplicates_are_rejected_whatever_the_shape():
    frame = pd.DataFrame({"qid": ["q", "q"], "docid": ["a", "a"], "score": [1, 2]})
    for run in (frame, [("q", "a", 1.0), ("q", "a", 2.0)]):
        with pytest.raises(ValueError, match=r"duplicate docno 'a' .* in the run"):
            evaluate_run({"q": {"a": 1}}, run, "map")
    with pytest.raises(ValueError, match=r"duplicate docno 'a' .* in the qrels"):
        evaluate_run([("q", "a", 1), ("q", "a", 0)], {"q": {"a": 1.0}}, "map")


def test_named_columns_must_exist():
    frame = pd.DataFrame({"topic": ["q"], "doc": ["d"], "grade": [1]})
    with pytest.raises(ValueError, match=r"`qrels` has no column 'rel' \(its columns"):
        as_qrels(frame, query_id="topic", doc_id="doc", relevance="rel")
    with pytest.raises(ValueError, match=r"`run` is a dict of dicts, which has no"):
        as_run({"q": {"d": 1.0}}, score="sim")
    with pytest.raises(ValueError, match=r"`qrels` is plain tuples, .* got doc_id='d'"):
        as_qrels([("q", "d", 1)], doc_id="d")


def test_named_tuple_fields_can_be_named():
    Judged = namedtuple("Judged", "topic doc grade")
    rows = [Judged("q", "a", 1), Judged("q", "b", 0)]
    qrels = as_qrels(rows, query_id="topic", doc_id="doc", relevance="grade")
    assert qrels.doc_ids.tolist() == ["a", "b"] and qrels.labels.tolist() == [1, 0]
    with pytest.raises(ValueError, match=r"`qrels` has no query_id field"):
        as_qrels(rows)


# --------------------------------------------------------------------------
# Results out: to_dict and a tidy to_frame
# --------------------------------------------------------------------------


def test_to_dict_is_pytrec_eval_shaped():
    qt, rt = _random_case(3)
    metrics = ["map", "P.5,10", "ndcg_cut.10", "num_ret"]
    result = evaluate_run(qt, rt, metrics, all_queries=True)
    values = result.to_dict()
    assert list(values) == result.group_ids.tolist()
    for i, qid in enumerate(result.group_ids.tolist()):
        assert list(values[qid]) == ["num_ret", "map", "P_5", "P_10", "ndcg_cut_10"]
        for name, value in values[qid].items():
            assert type(value) is float
            assert value == result.per_query[name][i]


def test_to_dict_keys_are_python_scalars():
    result = evaluate([1, 0, 1], [0.3, 0.2, 0.1], groups=[5, 5, 9], metrics=["mrr"])
    values = result.to_dict()
    assert values == {5: {"mrr": 1.0}, 9: {"mrr": 1.0}}
    assert all(type(q) is int for q in values)


@pytest.mark.oracle
def test_tidy_frame_is_the_wide_frame_melted():
    qt, rt = _random_case(5)
    result = evaluate_run(qt, rt, ["map", "P_5", "bpref"], all_queries=True)
    tidy = result.to_frame(tidy=True)
    assert list(tidy.columns) == ["query", "metric", "value"]
    melted = (
        result.to_frame()
        .reset_index()
        .melt(id_vars="query", var_name="metric", value_name="value")
    )
    key = ["query", "metric"]
    pd.testing.assert_frame_equal(
        tidy.sort_values(key).reset_index(drop=True),
        melted.sort_values(key).reset_index(drop=True),
        check_dtype=False,
    )
    assert tidy.shape == (3 * len(result.group_ids), 3)


def test_tidy_frame_keeps_string_values_apart():
    from skirm.metrics import EvaluationResult

    result = EvaluationResult(
        np.array(["q1", "q2"]),
        {"map": np.array([0.5, 0.25]), "relstring": np.array(["10", "01"])},
        {"map": 0.375},
    )
    tidy = result.to_frame(tidy=True)
    assert tidy["value"].tolist() == [0.5, "10", 0.25, "01"]
    assert result.to_dict() == {
        "q1": {"map": 0.5, "relstring": "10"},
        "q2": {"map": 0.25, "relstring": "01"},
    }


def test_to_frame_tidy_must_be_a_bool():
    result = evaluate([1, 0], [0.3, 0.2], groups=[1, 1], metrics=["mrr"])
    with pytest.raises(TypeError, match="`tidy` must be True or False, got 'yes'"):
        result.to_frame(tidy="yes")


# --------------------------------------------------------------------------
# Messages of the conversions
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [[[1, 2], [3]], [[1, 2], [3, 4]], [[1, 2], 3]],
    ids=["ragged", "nested", "mixed"],
)
def test_sequences_as_values_are_refused_naming_the_argument(values):
    message = (
        "`qrels`: relevance values must be numbers, got [1, 2] for query 'q', "
        "document 'd0'"
    )
    rows = [("q", f"d{i}", v) for i, v in enumerate(values)]
    for qrels in ({"q": {f"d{i}": v for i, v in enumerate(values)}}, rows):
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            as_qrels(qrels)
    message = message.replace("qrels", "run").replace("relevance", "score")
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        as_run(rows)


@pytest.mark.parametrize("shape", ["dict", "tuples"])
def test_bad_ids_are_named_by_argument_and_column(shape):
    def make(q, d):
        return {q: {d: 1}} if shape == "dict" else [("q0", "d0", 1), (q, d, 1)]

    for q, d, what in [(1.5, "d", "query ids"), ("q", 2.5, "doc ids")]:
        message = f"`qrels`: {what} must be strings or integers, got float"
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            as_qrels(make(q, d))


def test_an_iterable_of_other_objects_is_named_by_their_type():
    message = "`qrels` must hold (qid, docid, relevance) tuples; got an iterable of "
    with pytest.raises(TypeError, match=f"^{re.escape(message)}int$"):
        as_qrels([1, 2])
    with pytest.raises(TypeError, match=re.escape(f"{message}str (for the lines")):
        as_qrels(["q 0 d 1"])


def test_a_run_of_named_tuples_without_scores_is_told_to_name_its_field():
    rows = [Pair("q", "d")]
    message = (
        "`run` has no score field: expected one of ['score', 'scores'], got "
        "fields ['query_id', 'doc_id']; name it with skirm.io.as_run(..., score=...)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        as_run(rows)


def test_names_given_for_a_shape_without_columns_are_all_listed():
    message = (
        "`run` is a dict of dicts, which has no columns to name; got "
        "query_id='topic', score='sim' (column names apply to DataFrames and "
        "named tuples)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        as_run({"q": {"d": 1.0}}, query_id="topic", score="sim")


def test_an_empty_iterable_is_the_empty_dict():
    for convert in (as_qrels, as_run):
        from_rows, from_dict = convert([]), convert({})
        for column in ("query_ids", "doc_ids"):
            a, b = getattr(from_rows, column), getattr(from_dict, column)
            assert a.dtype == b.dtype and a.shape == b.shape == (0,)
    assert as_qrels([]).labels.dtype == as_qrels({}).labels.dtype == np.int64
    assert as_run([]).scores.dtype == as_run({}).scores.dtype == np.float64


class _Column:
    """A column that converts with ``to_numpy`` only (no ``__array__``)."""

    def __init__(self, values):
        self._values = values

    def to_numpy(self):
        return np.asarray(self._values)


class _Frame:
    """The least a frame needs: ``columns`` and a column by name."""

    def __init__(self, columns, wrap):
        self._columns = {name: wrap(v) for name, v in columns.items()}
        self.columns = list(columns)

    def __getitem__(self, name):
        return self._columns[name]


@pytest.mark.parametrize("wrap", [_Column, list], ids=["to_numpy", "list"])
def test_any_object_with_columns_is_read_as_a_frame(wrap):
    columns = {"qid": ["q1", "q2"], "docno": ["a", "b"], "score": [2.0, 1.0]}
    run = as_run(_Frame(columns, wrap))
    assert run.query_ids.tolist() == ["q1", "q2"]
    assert run.doc_ids.tolist() == ["a", "b"] and run.scores.tolist() == [2.0, 1.0]
    assert run.run_id == "skirm"  # the default name of a run without one


def test_messages_name_the_shapes_with_the_value_they_need():
    message = (
        "`qrels` must be a skirm.io.Qrels, a path or open file, a dict of dicts "
        "{qid: {docid: relevance}} (or an object whose to_dict() gives one, "
        "such as ranx's Qrels), a DataFrame, an iterable of (qid, docid, "
        "relevance) tuples or named tuples; got int"
    )
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        as_qrels(5)
    message = (
        "`run` must be a dict of dicts {qid: {docid: score}}; the value for "
        "query 'q' is a list"
    )
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        as_run({"q": ["d"]})


def test_a_qrels_frame_without_labels_is_told_to_name_its_column():
    frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "grade": [1]})
    message = (
        "`qrels` has no relevance column: expected one of ['relevance', 'rel', "
        "'label', 'labels'], got columns ['query_id', 'doc_id', 'grade']; name "
        "it with skirm.io.as_qrels(..., relevance=...)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        as_qrels(frame)


@pytest.mark.parametrize("column", ["query_id", "doc_id"])
@pytest.mark.parametrize("n", [1, 2])
def test_float_ids_of_a_frame_are_named_by_column(column, n):
    frame = {"query_id": ["q"] * n, "doc_id": ["d"] * n, "score": [1.0] * n}
    frame[column] = [1.5] * n
    what = "query ids" if column == "query_id" else "doc ids"
    message = f"`run`: {what} must be strings or integers, got float64"
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        as_run(pd.DataFrame(frame))


def test_an_empty_frame_has_no_ids_to_refuse():
    frame = pd.DataFrame({"query_id": [], "doc_id": [], "score": []}, dtype=float)
    run = as_run(frame)
    assert len(run) == 0 and run.query_ids.dtype.kind == "U"


def test_values_that_are_not_numbers_are_shown_when_there_is_one():
    message = (
        "`qrels`: relevance values must be numbers, got None for query 'q', "
        "document 'd'"
    )
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        as_qrels({"q": {"d": None}})
    message = "`qrels`: relevance values must be numbers, got dtype object"
    frame = pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}, dtype=str)
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        as_qrels(frame)  # no value to show (an empty pandas column of str is object)
    with pytest.raises(
        TypeError, match=re.escape("got 'high' for query 'q', document 'd'")
    ):
        as_qrels({"q": {"d": "high"}})
