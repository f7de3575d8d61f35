"""polars and pyarrow frames in, polars frames out.

Every entry point that takes a pandas DataFrame (or a column of one) is given
the same seeded data as a pandas, polars and pyarrow object; the oracle is
the numpy data the frames were built from (the ids as their decimal text),
and, for results, the value of the same call on plain arrays. Frames out are
compared with ``polars.from_pandas`` of the pandas frame.
"""

import itertools
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from skirm.io import Qrels, Run, as_qrels, as_run
from skirm.metrics import evaluate, from_lists, make_ranking_scorer, ndcg_score
from skirm.trec import evaluate_run

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
from polars.testing import assert_frame_equal  # noqa: E402

# --------------------------------------------------------------------------
# Data: int or string query ids, string doc ids, int or float labels, ties
# --------------------------------------------------------------------------


def _data(seed, int_ids=False, float_labels=False):
    """``(run columns, qrels columns)`` as numpy arrays, seeded."""
    rng = np.random.default_rng(seed)
    n_queries = 25
    sizes = rng.integers(1, 12, n_queries)
    queries = rng.permutation(n_queries) * 7 + 3
    qid = np.repeat(queries, sizes)
    n = qid.shape[0]
    query_ids = qid if int_ids else np.char.add("q", qid.astype(str))
    doc_ids = np.char.add("doc-", rng.permutation(3 * n)[:n].astype(str))
    scores = rng.integers(0, 4, n) / 2.0  # few values: many ties
    judged = rng.random(n) < 0.6
    labels = rng.integers(0, 3, int(judged.sum()))
    run = {"query_id": query_ids, "doc_id": doc_ids, "score": scores}
    qrels = {
        "query_id": query_ids[judged],
        "doc_id": doc_ids[judged],
        "relevance": labels.astype(np.float64) if float_labels else labels,
    }
    return run, qrels


def _chunked(columns):
    """A pyarrow Table of three record batches (chunked columns)."""
    table = pa.table(columns)
    n = table.num_rows
    cuts = [0, n // 3, 2 * n // 3, n]
    batches = [table.slice(a, b - a) for a, b in itertools.pairwise(cuts)]
    return pa.concat_tables(batches)


def _dictionary(columns):
    """pyarrow with dictionary-encoded string ids."""
    return pa.table(
        {
            k: pa.array(v).dictionary_encode() if v.dtype.kind == "U" else v
            for k, v in columns.items()
        }
    )


def _polars_categorical(columns):
    frame = pl.DataFrame(columns)
    strings = [k for k, v in columns.items() if v.dtype.kind == "U"]
    return frame.with_columns(pl.col(strings).cast(pl.Categorical))


def _arrow_typed(kind):
    def make(columns):
        return pa.table(
            {
                # from a list: pyarrow 18 builds large_string and string_view
                # from Python strings, not from a numpy str array
                k: pa.array(v.tolist(), type=kind()) if v.dtype.kind == "U" else v
                for k, v in columns.items()
            }
        )

    return make


FRAMES = {
    "pandas": pd.DataFrame,
    "polars": pl.DataFrame,
    "polars-lazy": lambda c: pl.DataFrame(c).lazy(),
    "polars-categorical": _polars_categorical,
    "arrow-table": pa.table,
    "arrow-batch": pa.RecordBatch.from_pydict,
    "arrow-chunked": _chunked,
    "arrow-dictionary": _dictionary,
    "arrow-large-string": _arrow_typed(pa.large_string),
}
if hasattr(pa, "string_view"):  # pyarrow >= 16
    FRAMES["arrow-string-view"] = _arrow_typed(pa.string_view)


def _expected(columns, value):
    """What the records must hold: ids as str, values as numbers."""
    return (
        columns["query_id"].astype(str).tolist(),
        columns["doc_id"].tolist(),
        columns[value].tolist(),
    )


@pytest.mark.parametrize("kind", list(FRAMES))
@pytest.mark.parametrize("int_ids", [False, True], ids=["str-qid", "int-qid"])
def test_as_run_and_as_qrels_read_every_frame(kind, int_ids):
    run_cols, qrels_cols = _data(1, int_ids=int_ids, float_labels=int_ids)
    run = as_run(FRAMES[kind](run_cols), run_id="x")
    qrels = as_qrels(FRAMES[kind](qrels_cols))
    assert run.run_id == "x"
    got = (run.query_ids.tolist(), run.doc_ids.tolist(), run.scores.tolist())
    assert got == _expected(run_cols, "score")
    got = (qrels.query_ids.tolist(), qrels.doc_ids.tolist(), qrels.labels.tolist())
    assert got == _expected(qrels_cols, "relevance")
    assert run.query_ids.dtype.kind == "U" and qrels.labels.dtype == np.int64


@pytest.mark.parametrize("kind", list(FRAMES))
def test_evaluate_run_equals_the_arrays(kind):
    run_cols, qrels_cols = _data(2)
    q = Qrels(*(qrels_cols[k] for k in ("query_id", "doc_id", "relevance")))
    r = Run(*(run_cols[k] for k in ("query_id", "doc_id", "score")))
    metrics = ["map", "ndcg_cut.5", "P.3", "recip_rank", "num_rel_ret"]
    expected = evaluate_run(q, r, metrics)
    got = evaluate_run(FRAMES[kind](qrels_cols), FRAMES[kind](run_cols), metrics)
    assert got.group_ids.tolist() == expected.group_ids.tolist()
    for name in expected.per_query:
        np.testing.assert_array_equal(got.per_query[name], expected.per_query[name])
    assert got.means == expected.means


@pytest.mark.parametrize("kind", ["pandas", "polars", "polars-lazy", "arrow-table"])
def test_column_names_can_be_given(kind):
    run_cols, qrels_cols = _data(3)
    renamed = {"topic": "query_id", "doc": "doc_id", "grade": "relevance"}
    frame = FRAMES[kind]({new: qrels_cols[old] for new, old in renamed.items()})
    qrels = as_qrels(frame, query_id="topic", doc_id="doc", relevance="grade")
    assert qrels.labels.tolist() == qrels_cols["relevance"].tolist()
    assert qrels.doc_ids.tolist() == qrels_cols["doc_id"].tolist()
    run = as_run(
        FRAMES[kind](
            {
                "qid": run_cols["query_id"],
                "docno": run_cols["doc_id"],
                "sim": run_cols["score"],
            }
        ),
        score="sim",
    )
    assert run.scores.tolist() == run_cols["score"].tolist()
    with pytest.raises(ValueError, match=r"`qrels` has no column 'rel' \(its columns"):
        as_qrels(frame, query_id="topic", doc_id="doc", relevance="rel")
    message = (
        r"`qrels` has no relevance column: expected one of \['relevance', 'rel', "
        r"'label', 'labels'\], got columns \['topic', 'doc', 'grade'\]"
    )
    with pytest.raises(ValueError, match=message):
        as_qrels(frame, query_id="topic", doc_id="doc")


def _with_missing(columns, name, at):
    """The columns with a missing value at row ``at`` of ``name``, as a dict
    of lists (None is null in polars and pyarrow, None or NaN in pandas)."""
    out = {k: v.tolist() for k, v in columns.items()}
    out[name][at] = None
    return out


NULLABLE = {
    "pandas": pd.DataFrame,
    "polars": pl.DataFrame,
    "polars-lazy": lambda c: pl.DataFrame(c).lazy(),
    "arrow-table": pa.table,
    "arrow-chunked": lambda c: _chunked(pa.table(c).to_pydict()),
    "arrow-dictionary": lambda c: pa.table(
        {
            k: pa.array(v).dictionary_encode() if k != "score" else v
            for k, v in c.items()
        }
    ),
}


@pytest.mark.parametrize("kind", list(NULLABLE))
@pytest.mark.parametrize("column", ["query_id", "doc_id", "score"])
def test_a_missing_value_is_a_value_error_naming_its_column(kind, column):
    run_cols, qrels_cols = _data(4)
    frame = NULLABLE[kind](_with_missing(run_cols, column, 5))
    message = rf"`run`: column '{column}' must not hold missing values .* at row 5"
    with pytest.raises(ValueError, match=message):
        as_run(frame)
    with pytest.raises(ValueError, match=message):
        evaluate_run(pd.DataFrame(qrels_cols), frame, "map")
    relevance = NULLABLE[kind](_with_missing(qrels_cols, "relevance", 0))
    with pytest.raises(ValueError, match=r"`qrels`: column 'relevance' .* at row 0"):
        as_qrels(relevance)


@pytest.mark.parametrize(
    "groups",
    [
        pl.Series(["a", "a", None, "b"]),
        pl.Series([1, 1, None, 2]),
        pa.array(["a", "a", None, "b"]),
        pa.chunked_array([["a", "a"], [None, "b"]]),
    ],
    ids=["polars strings", "polars ints", "arrow array", "arrow chunked"],
)
def test_a_null_in_a_groups_column_is_named_null(groups):
    with pytest.raises(ValueError) as info:
        ndcg_score([1.0, 0.0, 2.0, 0.0], [0.4, 0.3, 0.2, 0.1], groups=groups)
    assert str(info.value) == (
        "`groups` must not contain missing values, got null at index 2"
    )


@pytest.mark.parametrize("make", [pl.DataFrame, pa.table, pd.DataFrame])
def test_a_nan_score_that_is_not_null_is_refused_too(make):
    run_cols, _ = _data(5)
    run_cols["score"][3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        as_run(make(run_cols))


def test_non_ascii_and_empty_strings_are_kept():
    ids = np.array(["", "é", "q-ß", "日本", "a" * 40])
    run = {"query_id": ids, "doc_id": ids[::-1], "score": np.arange(5.0)}
    for make in (pl.DataFrame, pa.table, _chunked):
        got = as_run(make(run))
        assert got.query_ids.tolist() == ids.tolist()
        assert got.doc_ids.tolist() == ids[::-1].tolist()
    ascii_ids = np.array(["", "x", "", "yz"])
    got = as_run(
        pa.table({"query_id": ascii_ids, "doc_id": ascii_ids, "score": [1] * 4})
    )
    assert got.query_ids.tolist() == ascii_ids.tolist()
    empty = {"query_id": ids[:0], "doc_id": ids[:0], "score": np.zeros(0)}
    for make in (pl.DataFrame, pa.table):
        assert len(as_run(make(empty))) == 0


def test_float_ids_are_refused_as_from_pandas():
    frame = {"query_id": [1.5, 2.0], "doc_id": ["a", "b"], "score": [1.0, 2.0]}
    for make in (pd.DataFrame, pl.DataFrame, pa.table):
        with pytest.raises(TypeError, match="query ids must be strings or integers"):
            as_run(make(frame))


# --------------------------------------------------------------------------
# Metric functions, groups and X
# --------------------------------------------------------------------------

COLUMNS = {
    "pandas": pd.Series,
    "polars": pl.Series,
    "polars-categorical": lambda v: pl.Series(v).cast(
        pl.Categorical if np.asarray(v).dtype.kind == "U" else pl.Series(v).dtype
    ),
    "arrow-array": pa.array,
    "arrow-chunked": lambda v: pa.chunked_array([v[:7], v[7:]]),
    "arrow-dictionary": lambda v: (
        pa.array(v).dictionary_encode()
        if np.asarray(v).dtype.kind == "U"
        else pa.array(v)
    ),
}


@pytest.mark.parametrize("kind", list(COLUMNS))
@pytest.mark.parametrize("int_ids", [False, True], ids=["str-qid", "int-qid"])
def test_metric_functions_take_columns(kind, int_ids):
    rng = np.random.default_rng(6)
    groups = np.repeat(np.arange(8) * 3, 5)
    groups = groups if int_ids else np.char.add("u", groups.astype(str))
    y_true = rng.integers(0, 3, 40)
    y_score = rng.integers(0, 4, 40) / 3.0
    metrics = ["ndcg@3", "mrr", "map"]
    expected = evaluate(y_true, y_score, groups=groups, metrics=metrics)
    make = COLUMNS[kind]
    got = evaluate(make(y_true), make(y_score), groups=make(groups), metrics=metrics)
    assert got.group_ids.tolist() == expected.group_ids.tolist()
    assert got.means == expected.means
    value = ndcg_score(make(y_true), make(y_score), groups=make(groups), k=3)
    assert value == expected.means["ndcg@3"]


@pytest.mark.parametrize("make", [pd.Series, pl.Series, pa.array])
def test_missing_groups_are_a_value_error(make):
    groups = ["a", "a", None, "b"]
    with pytest.raises(ValueError, match=r"`groups` must not contain missing values"):
        evaluate([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], groups=make(groups))


class _FirstColumn(BaseEstimator):
    """A fitted model scoring each row by its column ``f0``."""

    def predict(self, X):
        if hasattr(X, "column_names"):
            return X.column("f0").to_numpy()
        return np.asarray(X["f0"])


def _x_frames():
    rng = np.random.default_rng(7)
    qid = np.repeat(rng.permutation(10), 6)
    y = rng.integers(0, 3, 60)
    cols = {"qid": qid, "f0": rng.integers(0, 5, 60) * 1.0, "f1": rng.random(60)}
    return cols, y


@pytest.mark.parametrize("make", [pd.DataFrame, pl.DataFrame, pa.table])
def test_query_ids_from_a_column_of_x(make):
    from skirm.model_selection import QueryGroupKFold

    cols, y = _x_frames()
    scorer = make_ranking_scorer("ndcg@3")
    expected = ndcg_score(y, cols["f0"], groups=cols["qid"], k=3)
    assert scorer(_FirstColumn(), make(cols), y) == expected
    folds = list(QueryGroupKFold(3).split(make(cols)))
    reference = list(QueryGroupKFold(3).split(np.zeros((60, 1)), groups=cols["qid"]))
    for (train, test), (train_r, test_r) in zip(folds, reference, strict=True):
        np.testing.assert_array_equal(train, train_r)
        np.testing.assert_array_equal(test, test_r)


def test_permutation_importance_and_rankers_take_polars_x():
    from sklearn.linear_model import Ridge

    from skirm.inspection import permutation_importance
    from skirm.ranker import QueryRanker

    cols, y = _x_frames()
    features = {k: v for k, v in cols.items() if k != "qid"}
    model_pd = Ridge().fit(pd.DataFrame(features), y)
    model_pl = Ridge().fit(pl.DataFrame(features), y)
    a = permutation_importance(
        model_pl,
        pl.DataFrame(features),
        y,
        groups=pl.Series(cols["qid"]),
        random_state=0,
    )
    b = permutation_importance(
        model_pd, pd.DataFrame(features), y, groups=cols["qid"], random_state=0
    )
    np.testing.assert_allclose(a.importances, b.importances, rtol=1e-12)
    ranker_pl = QueryRanker(Ridge()).fit(pl.DataFrame(cols), y)
    ranker_pd = QueryRanker(Ridge()).fit(pd.DataFrame(cols), y)
    np.testing.assert_allclose(
        ranker_pl.predict(pl.DataFrame(cols)), ranker_pd.predict(pd.DataFrame(cols))
    )


# --------------------------------------------------------------------------
# Ranked lists
# --------------------------------------------------------------------------


def _lists(seed, int_ids):
    rng = np.random.default_rng(seed)
    ranked, relevant = [], []
    for size in rng.integers(0, 8, 12).tolist():
        items = rng.permutation(30)[: size + 3]
        ids = items.tolist() if int_ids else [f"i{i}" for i in items.tolist()]
        ranked.append(ids[:size])
        relevant.append(ids[size - 1 : size + 2] if size else ids[:2])
    ranked[3] = []  # an empty list
    return ranked, relevant


LIST_COLUMNS = {
    "pandas": pd.Series,
    "polars": pl.Series,
    "arrow": pa.array,
    "arrow-large": lambda v: pa.array(
        v, type=pa.large_list(pa.int64() if isinstance(v[0][0], int) else pa.string())
    ),
    "arrow-chunked": lambda v: pa.chunked_array([pa.array(v[:5]), pa.array(v[5:])]),
}


@pytest.mark.parametrize("kind", list(LIST_COLUMNS))
@pytest.mark.parametrize("int_ids", [False, True], ids=["str-ids", "int-ids"])
def test_from_lists_takes_list_columns(kind, int_ids):
    ranked, relevant = _lists(8, int_ids)
    users = [f"user{i:02d}" for i in np.random.default_rng(8).permutation(12)]
    expected = from_lists(ranked, [set(r) for r in relevant], groups=users)
    make = LIST_COLUMNS[kind]
    got = from_lists(make(ranked), make(relevant), groups=COLUMNS["polars"](users))
    for name in ("group_ids", "sizes", "labels", "judged_codes", "judged_labels"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))
    metrics = ["P@3", "recall@5", "ndcg@5"]
    assert evaluate(got, None, metrics=metrics).means == (
        evaluate(expected, None, metrics=metrics).means
    )


def test_fixed_size_lists_and_missing_lists():
    ranked = [["a", "b"], ["c", "d"]]
    expected = from_lists(ranked, [{"b"}, {"c"}])
    got = from_lists(pl.Series(ranked, dtype=pl.Array(pl.String, 2)), [{"b"}, {"c"}])
    np.testing.assert_array_equal(got.labels, expected.labels)
    fixed = pa.array(ranked, type=pa.list_(pa.string(), 2))
    np.testing.assert_array_equal(
        from_lists(fixed, [{"b"}, {"c"}]).labels, [0, 1, 1, 0]
    )
    for make in (pl.Series, pa.array):
        with pytest.raises(
            ValueError, match=r"`y_pred` .* missing list \(null\) at index 1"
        ):
            from_lists(make([["a"], None]), [{"a"}, {"b"}])
        with pytest.raises(ValueError, match=r"`y_pred` .* null in list 1"):
            from_lists(make([["a"], ["b", None]]), [{"a"}, {"b"}])
        with pytest.raises(ValueError, match=r"`y_true` .* null in list 0"):
            from_lists([["a"], ["b"]], make([[None], ["b"]]))


# --------------------------------------------------------------------------
# Frames out
# --------------------------------------------------------------------------


def _results():
    rng = np.random.default_rng(9)
    groups = np.repeat([f"q{i}" for i in range(12)], 6)
    y = rng.integers(0, 2, 72)
    y[:6] = 0  # q0 has no relevant row: NaN with no_relevant="skip"
    return {
        name: evaluate(
            y,
            rng.random(72),
            groups=groups,
            metrics=["ndcg@5", "mrr"],
            no_relevant="skip",
        )
        for name in ("bm25", "dense", "hybrid")
    }


def test_evaluation_result_to_polars_equals_the_pandas_frame():
    result = _results()["bm25"]
    wide = result.to_frame(backend="polars")
    assert wide.columns == ["query", "ndcg@5", "mrr"]
    assert wide["mrr"].null_count() == 1  # the skipped query: NaN in pandas
    assert_frame_equal(wide, pl.from_pandas(result.to_frame().reset_index()))
    tidy = result.to_frame(tidy=True, backend="polars")
    assert_frame_equal(tidy, pl.from_pandas(result.to_frame(tidy=True)))
    pd.testing.assert_frame_equal(result.to_frame(), result.to_frame(backend="pandas"))


@pytest.mark.parametrize("baseline", ["bm25", None])
@pytest.mark.parametrize("kind", ["systems", "pairs"])
def test_comparison_to_polars_equals_the_pandas_frame(baseline, kind):
    from skirm.stats import compare

    comparison = compare(_results(), baseline=baseline, missing="intersect")
    got = comparison.to_frame(kind, backend="polars")
    expected = pl.from_pandas(comparison.to_frame(kind))
    if "better_than" in expected.columns:  # tuples of str: a list column
        assert got.schema["better_than"] == pl.List(pl.String)
        expected = expected.with_columns(pl.col("better_than").cast(pl.List(pl.String)))
    assert_frame_equal(got, expected)


def test_records_to_polars_equal_the_pandas_frames():
    run_cols, qrels_cols = _data(10)
    run = as_run(pl.DataFrame(run_cols), run_id="bm25")
    qrels = as_qrels(pa.table(qrels_cols))
    for records in (run, qrels):
        got = records.to_frame(backend="polars")
        assert_frame_equal(got, pl.from_pandas(records.to_frame()))
    assert as_run(run.to_frame(backend="polars")).scores.tolist() == run.scores.tolist()


def test_a_bad_backend_names_the_valid_ones():
    result = _results()["bm25"]
    records = Run(["q"], ["d"], [1.0])
    from skirm.stats import compare

    comparison = compare(_results(), missing="intersect")
    for call in (
        lambda b: result.to_frame(backend=b),
        lambda b: records.to_frame(backend=b),
        lambda b: comparison.to_frame(backend=b),
    ):
        with pytest.raises(
            ValueError,
            match=r"`backend` must be one of 'pandas', "
            r"'polars', got 'arrow'",
        ):
            call("arrow")


def test_backend_polars_without_polars_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "polars", None)  # import polars fails
    with pytest.raises(ImportError, match=r"pip install skirm\[polars\]"):
        Run(["q"], ["d"], [1.0]).to_frame(backend="polars")
    with pytest.raises(ImportError, match=r"EvaluationResult.to_frame\(backend="):
        _results()["bm25"].to_frame(backend="polars")
