"""skirm.dask on a two-process LocalCluster: the numbers of one process.

Oracles: :func:`skirm.metrics.evaluate` and :func:`skirm.trec.evaluate_run` on
all the rows in one process (themselves checked against the per-query
reference, scikit-learn, pytrec_eval and trec_eval elsewhere), and pytrec_eval
directly for the TREC path. The rows of every query are spread over several
partitions.
"""

import itertools
import re
import sys

import numpy as np
import pytest
from _data import mq2008_vali
from _impressions import reads_probabilities

from skirm.io import Qrels, Run, write_run
from skirm.metrics import evaluate, metric_names
from skirm.metrics._registry import not_held
from skirm.trec import evaluate_run

dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
pd = pytest.importorskip("pandas")
distributed = pytest.importorskip("distributed")

import skirm.dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    """One cluster of two worker processes for the module."""
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit="1GiB",
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


#: Every registered metric, with and without a cutoff.
METRICS = sorted(
    {
        name.replace("@k", "@3")
        for name in metric_names()
        if not reads_probabilities(name)  # other scores: test_impressions.py
    }
    - {"ap", "p", "r", "rr", "hr", "rprec", "ndcg_cut"}
)

AVERAGED = [m for m in METRICS if m.partition("@")[0] not in not_held("average_ties")]


def _rows(seed=0, n_groups=60, ids="str", ties=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, size=n_groups)
    labels = rng.choice(10_000, size=n_groups, replace=False)
    if ids == "str":
        labels = np.array([f"q{i:05d}" for i in labels], dtype=object)
    groups = np.repeat(labels, sizes)
    n = groups.shape[0]
    y_true = rng.integers(0, 4, size=n).astype(float)
    for empty in labels[:3]:
        y_true[groups == empty] = 0.0  # queries without relevant rows
    y_score = rng.integers(0, 5, size=n) if ties else rng.normal(size=n)
    weight = dict(zip(labels.tolist(), rng.uniform(0.5, 3.0, n_groups), strict=True))
    frame = pd.DataFrame(
        {
            "qid": groups,
            "label": y_true,
            "score": y_score.astype(float),
            "w": [weight[g] for g in groups.tolist()],
        }
    )
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _assert_close(result, expected):
    assert result.metrics == expected.metrics
    assert result.group_ids.tolist() == expected.group_ids.tolist()
    for name in expected.metrics:
        np.testing.assert_allclose(
            result.per_query[name],
            expected.per_query[name],
            rtol=1e-12,
            atol=1e-15,
            err_msg=name,
        )
        assert result[name] == pytest.approx(expected[name], rel=1e-12, abs=1e-15)
    if expected.weights is None:
        assert result.weights is None
    else:
        np.testing.assert_array_equal(result.weights, expected.weights)


@pytest.mark.oracle
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"no_relevant": 1.0, "ties": "optimistic"},
        {"no_relevant": "skip", "weighted": True},
        {"ties": "pessimistic", "weighted": True, "ids": "int"},
        {"gain": "exponential", "relevance_threshold": 2, "p": 0.5, "ids": "int"},
        {"max_grade": 5, "denominator": "min_k", "log_base": 10.0},
    ],
)
def test_every_metric_and_option_equals_one_process(client, options):
    options = dict(options)
    weighted = options.pop("weighted", False)
    frame = _rows(1, ids=options.pop("ids", "str"))
    # Each option reaches the metrics that take it; on tied scores some refuse
    # ties="average" (NOT_HELD in the registry).
    metrics = METRICS if options.get("ties", "average") != "average" else AVERAGED
    rows = dd.from_pandas(frame, npartitions=5)
    result = skirm.dask.evaluate(
        rows["label"],
        rows["score"],
        groups=rows["qid"],
        metrics=metrics,
        sample_weight=rows["w"] if weighted else None,
        **options,
    )
    expected = evaluate(
        frame["label"],
        frame["score"],
        groups=frame["qid"].to_numpy(),
        metrics=metrics,
        sample_weight=frame["w"] if weighted else None,
        **options,
    )
    _assert_close(result, expected)


@pytest.mark.oracle
def test_dask_arrays_and_per_query_frame(client):
    frame = _rows(2, ids="int", ties=False)
    arrays = {c: da.from_array(frame[c].to_numpy(), chunks=97) for c in frame}
    metrics = ["ndcg@10", "map", "err", "rbp"]
    result = skirm.dask.evaluate(
        arrays["label"],
        arrays["score"],
        groups=arrays["qid"],
        sample_weight=arrays["w"],
        metrics=metrics,
    )
    expected = evaluate(
        frame["label"],
        frame["score"],
        groups=frame["qid"],
        sample_weight=frame["w"],
        metrics=metrics,
    )
    _assert_close(result, expected)
    lazy = skirm.dask.per_query_frame(
        arrays["label"],
        arrays["score"],
        groups=arrays["qid"],
        sample_weight=arrays["w"],
        metrics=metrics,
    )
    assert isinstance(lazy, dd.DataFrame)
    values = lazy.compute().sort_index()
    assert list(values.columns) == [*metrics, "weight"]
    np.testing.assert_array_equal(values.index.to_numpy(), expected.group_ids)
    for name in metrics:
        np.testing.assert_allclose(
            values[name].to_numpy(), expected.per_query[name], rtol=1e-12
        )


def test_ties_first_on_partitions_holding_whole_queries(client):
    frame = _rows(3).sort_values("qid", kind="stable").reset_index(drop=True)
    # Cut between queries: each partition holds whole queries.
    first_rows = np.flatnonzero(frame["qid"].ne(frame["qid"].shift()).to_numpy())
    cuts = [0, *first_rows[[10, 25, 40]].tolist(), len(frame)]
    rows = dd.from_delayed(
        [
            dask_delayed(frame.iloc[a:b].reset_index(drop=True))
            for a, b in itertools.pairwise(cuts)
        ],
        meta=frame.iloc[:0],
    )
    kwargs = dict(metrics=["map", "ndcg@3", "mrr"], ties="first")
    result = skirm.dask.evaluate(
        rows["label"], rows["score"], groups=rows["qid"], shuffle=False, **kwargs
    )
    expected = evaluate(
        frame["label"], frame["score"], groups=frame["qid"].to_numpy(), **kwargs
    )
    _assert_close(result, expected)
    # "auto" (the default) finds that the partitions hold whole queries.
    result = skirm.dask.evaluate(
        rows["label"], rows["score"], groups=rows["qid"], **kwargs
    )
    _assert_close(result, expected)
    with pytest.raises(ValueError, match="shuffle on the query id does not"):
        skirm.dask.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], shuffle=True, **kwargs
        )
    # A query split over two partitions is caught, never averaged twice.
    split = dd.from_pandas(frame, npartitions=4)
    with pytest.raises(ValueError, match="appears in more than one result"):
        skirm.dask.evaluate(
            split["label"],
            split["score"],
            groups=split["qid"],
            shuffle=False,
            **kwargs,
        )
    # ... and "auto" names it: ties="first" cannot be kept through a shuffle.
    straddling = frame["qid"].to_numpy()[split.divisions[1]]
    with pytest.raises(
        ValueError, match=re.escape(f"(query {straddling!r} is in two partitions)")
    ):
        skirm.dask.evaluate(
            split["label"], split["score"], groups=split["qid"], **kwargs
        )


def dask_delayed(value):
    import dask

    return dask.delayed(value)


@pytest.fixture
def shuffles(monkeypatch):
    """The ``on=`` of every Dask DataFrame shuffle requested while it is used."""
    seen = []
    original = dd.DataFrame.shuffle

    def spy(self, *args, **kwargs):
        seen.append(kwargs.get("on", args[0] if args else None))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(dd.DataFrame, "shuffle", spy)
    return seen


def _whole_query_partitions(frame, n_parts):
    """``frame`` cut into ``n_parts`` partitions of whole queries, each
    partition's rows in a random order and its queries not in sorted order."""
    labels = frame["qid"].unique()
    part_of = dict(zip(labels, np.arange(labels.shape[0]) % n_parts, strict=True))
    part = frame["qid"].map(part_of).to_numpy()
    pieces = [
        frame[part == i].sample(frac=1.0, random_state=i).reset_index(drop=True)
        for i in range(n_parts)
    ]
    return dd.from_delayed(
        [dask_delayed(piece) for piece in pieces], meta=frame.iloc[:0]
    )


def test_auto_shuffles_only_when_a_query_spans_partitions(client, shuffles):
    frame = _rows(8, n_groups=80)
    metrics = ["ndcg@5", "map", "mrr", "err@3"]
    expected = evaluate(
        frame["label"], frame["score"], groups=frame["qid"].to_numpy(), metrics=metrics
    )
    # Whole queries per partition, though the queries are interleaved: no
    # shuffle, found from the distinct ids of each partition.
    aligned = _whole_query_partitions(frame, 4)
    result = skirm.dask.evaluate(
        aligned["label"], aligned["score"], groups=aligned["qid"], metrics=metrics
    )
    _assert_close(result, expected)
    assert shuffles == []
    # The lazy frame reads no data to decide: without known divisions it
    # shuffles (False declares the layout).
    for shuffle, seen in (("auto", ["groups"]), (False, ["groups"])):
        lazy = skirm.dask.per_query_frame(
            aligned["label"],
            aligned["score"],
            groups=aligned["qid"],
            metrics=metrics,
            shuffle=shuffle,
        )
        assert shuffles == seen
        values = lazy.compute().sort_index()
        np.testing.assert_allclose(
            values["map"].to_numpy(), expected.per_query["map"], rtol=1e-12
        )
    shuffles.clear()
    # A query split over two partitions: one shuffle, the same numbers.
    split = dd.from_pandas(frame, npartitions=4)
    result = skirm.dask.evaluate(
        split["label"], split["score"], groups=split["qid"], metrics=metrics
    )
    _assert_close(result, expected)
    assert shuffles == ["groups"]
    # True always shuffles, False never does.
    skirm.dask.evaluate(
        aligned["label"], aligned["score"], groups=aligned["qid"], shuffle=True
    )
    assert shuffles == ["groups", "groups"]
    skirm.dask.evaluate(
        aligned["label"], aligned["score"], groups=aligned["qid"], shuffle=False
    )
    assert len(shuffles) == 2


def test_auto_reads_known_divisions_on_the_query_index(client, shuffles, monkeypatch):
    frame = _rows(9, ids="int").set_index("qid").sort_index()
    rows = dd.from_pandas(frame, npartitions=5, sort=True)
    assert rows.known_divisions
    # The metadata answers: no partition is evaluated before the decision.
    monkeypatch.setattr(
        skirm.dask._row_partitions,
        "_values_as_they_stand",
        lambda *args: pytest.fail("evaluated as they stand"),
    )
    result = skirm.dask.evaluate(
        rows["label"], rows["score"], groups=rows.index, metrics=["map", "mrr"]
    )
    expected = evaluate(
        frame["label"],
        frame["score"],
        groups=frame.index.to_numpy(),
        metrics=["map", "mrr"],
    )
    _assert_close(result, expected)
    lazy = skirm.dask.per_query_frame(
        rows["label"], rows["score"], groups=rows.index, metrics=["map"]
    )
    assert shuffles == []
    np.testing.assert_allclose(
        lazy.compute().sort_index()["map"].to_numpy(), expected.per_query["map"]
    )


def test_auto_raises_only_the_errors_of_whole_queries(client, shuffles):
    # Query "b" has its one relevant row in the second partition: the first
    # partition's part of it has none, which is not an error of the data.
    frame = pd.DataFrame(
        {
            "qid": ["a", "b", "b", "b", "c"],
            "label": [1, 0, 0, 1, 1],
            "score": [0.3, 0.9, 0.5, 0.1, 0.2],
        }
    )
    pieces = [frame.iloc[:3], frame.iloc[3:]]
    rows = dd.from_delayed([dask_delayed(p) for p in pieces], meta=frame.iloc[:0])
    options = dict(metrics=["map", "mrr"], no_relevant="raise")
    result = skirm.dask.evaluate(
        rows["label"], rows["score"], groups=rows["qid"], **options
    )
    _assert_close(
        result,
        evaluate(
            frame["label"], frame["score"], groups=frame["qid"].to_numpy(), **options
        ),
    )
    assert shuffles == ["groups"]
    # With whole queries per partition, the error is the data's, raised as
    # one process raises it, without a shuffle.
    whole = frame.assign(label=[1, 0, 0, 0, 1])
    pieces = [whole.iloc[:4], whole.iloc[4:]]
    rows = dd.from_delayed([dask_delayed(p) for p in pieces], meta=frame.iloc[:0])
    with pytest.raises(ValueError) as one:
        evaluate(
            whole["label"], whole["score"], groups=whole["qid"].to_numpy(), **options
        )
    with pytest.raises(ValueError, match=re.escape(str(one.value))):
        skirm.dask.evaluate(rows["label"], rows["score"], groups=rows["qid"], **options)
    assert shuffles == ["groups"]


def test_auto_on_dask_arrays_follows_the_chunks(client, shuffles):
    frame = _rows(10, ids="int").sort_values("qid", kind="stable")
    starts = np.flatnonzero(frame["qid"].ne(frame["qid"].shift()).to_numpy())
    edges = [0, int(starts[20]), int(starts[41]), len(frame)]
    chunks = (tuple(np.diff(edges).tolist()),)
    columns = [
        da.from_array(frame[c].to_numpy(), chunks=chunks)
        for c in ("label", "score", "qid")
    ]
    expected = evaluate(
        frame["label"], frame["score"], groups=frame["qid"].to_numpy(), metrics=["map"]
    )
    result = skirm.dask.evaluate(*columns[:2], groups=columns[2], metrics=["map"])
    _assert_close(result, expected)
    assert shuffles == []
    cut = [da.rechunk(c, chunks=len(frame) // 3 + 1) for c in columns]
    result = skirm.dask.evaluate(*cut[:2], groups=cut[2], metrics=["map"])
    _assert_close(result, expected)
    assert shuffles == ["groups"]


def test_errors_of_the_partitions_reach_the_caller(client):
    frame = _rows(4)
    rows = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match=r"ndcg@10: query 'q\d+' has no relevant row"):
        skirm.dask.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], no_relevant="raise"
        )
    bad = rows.assign(w=rows["w"] + rows["score"])
    with pytest.raises(ValueError, match="`sample_weight` must be constant within"):
        skirm.dask.evaluate(
            bad["label"], bad["score"], groups=bad["qid"], sample_weight=bad["w"]
        )


def test_bad_arguments_are_rejected_before_any_work():
    frame = _rows(5)
    rows = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(TypeError, match="`y_true` must be a Dask Series or a 1-D"):
        skirm.dask.evaluate(frame["label"], rows["score"], groups=rows["qid"])
    with pytest.raises(ValueError, match="`groups` is required"):
        skirm.dask.evaluate(rows["label"], rows["score"], groups=None)
    with pytest.raises(ValueError, match="unknown measure 'nope"):
        skirm.dask.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], metrics=["nope"]
        )
    with pytest.raises(ValueError, match="`ties` must be one of"):
        skirm.dask.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], ties="random"
        )
    for function in (skirm.dask.evaluate, skirm.dask.per_query_frame):
        with pytest.raises(
            ValueError, match=r"`shuffle` must be True, False or 'auto', got 'yes'"
        ):
            function(rows["label"], rows["score"], groups=rows["qid"], shuffle="yes")
    with pytest.raises(ValueError, match=r"`shuffle` must be .*, got 1"):
        skirm.dask.evaluate_run(Qrels(["q"], ["d"], [1]), rows, shuffle=1)
    empty = dd.from_pandas(frame.iloc[:0], npartitions=1)
    with pytest.raises(ValueError, match="`y_true` must hold at least one row"):
        skirm.dask.evaluate(empty["label"], empty["score"], groups=empty["qid"])
    with pytest.raises(ValueError, match="`y_score` must be a 1-D Dask array"):
        skirm.dask.evaluate(
            da.zeros(4), da.zeros((2, 2)), groups=da.zeros(4), metrics=["map"]
        )


def test_missing_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r"pip install skirm\[dask\]"):
        skirm.dask.evaluate(None, None, groups=None)


# -- TREC runs -----------------------------------------------------------------


def _trec(seed=0, n_queries=25, placeholder_judged=False):
    rng = np.random.default_rng(seed)
    q, d, s, qq, qd, ql = [], [], [], [], [], []
    for i in range(n_queries):
        docs = rng.choice(300, size=rng.integers(5, 40), replace=False)
        q += [f"t{i}"] * docs.shape[0]
        d += [f"D{j}" for j in docs]
        s += rng.integers(0, 6, size=docs.shape[0]).tolist()  # ties: docno order
        judged = rng.choice(300, size=30, replace=False)
        qq += [f"t{i}"] * 30
        qd += [f"D{j}" for j in judged]
        ql += rng.integers(-1, 3, size=30).tolist()
    qq += ["t999"] * 2  # a topic the run misses
    qd += ["D1", "D2"]
    ql += [1, 0]
    if placeholder_judged:  # trec_eval 10.0 -c ranks this docno for t999
        qq.append("t999")
        qd.append("ceci_nest_pas_un_docno")
        ql.append(2)
    run = Run(q, d, np.asarray(s, dtype=float), run_id="sys1")
    return Qrels(qq, qd, ql), run


MEASURES = ["official", "ndcg_cut.5,10", "P.5", "ndcg@10", "err@5"]


def _assert_same_run_result(result, expected):
    assert list(result.means) == list(expected.means)
    assert list(result.per_query) == list(expected.per_query)
    assert result.group_ids.tolist() == expected.group_ids.tolist()
    for name, values in expected.per_query.items():
        if values.dtype.kind == "U":  # relstring
            np.testing.assert_array_equal(result.per_query[name], values, name)
    for name, value in expected.means.items():
        assert result.means[name] == pytest.approx(
            value, rel=1e-12, abs=1e-15, nan_ok=True
        ), name
        np.testing.assert_allclose(
            result.per_query[name],
            expected.per_query[name],
            rtol=1e-12,
            atol=1e-15,
            err_msg=name,
        )


@pytest.mark.oracle
@pytest.mark.parametrize(
    "options",
    [
        {"compat": "9.0"},
        {"compat": "9.0", "all_queries": True, "judged_only": True},
        {"all_queries": True, "relevance_level": 2, "max_docs": 20},
        {"all_queries": True, "placeholder_judged": True},
        {"all_queries": True, "placeholder_judged": True, "measures": "all_trec"},
    ],
)
def test_evaluate_run_on_a_frame_equals_one_process(client, options):
    options = dict(options)
    qrels, run = _trec(0, placeholder_judged=options.pop("placeholder_judged", False))
    measures = [options.pop("measures", "official"), *MEASURES[1:]]
    frame = run.to_frame().sample(frac=1.0, random_state=0)
    rows = dd.from_pandas(frame, npartitions=4)
    result = skirm.dask.evaluate_run(qrels, rows, measures, **options)
    expected = evaluate_run(qrels, run, measures, **options)
    _assert_same_run_result(result, expected)
    # the qrels topic the run misses: left out by 9.0, a placeholder under -c
    assert ("t999" in result.group_ids) == (options.get("compat") != "9.0")
    assert result.means["num_q"] == (26 if "all_queries" in options else 25)


def test_evaluate_run_auto_shuffles_only_when_a_judged_query_spans(client, shuffles):
    qrels, run = _trec(5)
    frame = run.to_frame()
    expected = evaluate_run(qrels, run, MEASURES, all_queries=True)
    # Whole queries per partition: one evaluation, no shuffle.
    aligned = _whole_query_partitions(frame.rename(columns={"query_id": "qid"}), 3)
    aligned = aligned.rename(columns={"qid": "query_id"})
    result = skirm.dask.evaluate_run(qrels, aligned, MEASURES, all_queries=True)
    _assert_same_run_result(result, expected)
    assert shuffles == []
    # A judged query cut in two: evaluated again after a shuffle.
    split = dd.from_pandas(frame, npartitions=3)
    result = skirm.dask.evaluate_run(qrels, split, MEASURES, all_queries=True)
    _assert_same_run_result(result, expected)
    assert shuffles == ["query_id"]
    # An unjudged query cut in two needs no shuffle: its rows are dropped.
    unjudged = Run(
        np.r_[run.query_ids, ["zz", "zz"]],
        np.r_[run.doc_ids, ["a", "b"]],
        np.r_[run.scores, [1.0, 2.0]],
    )
    pieces = [frame, unjudged.to_frame().iloc[-2:-1], unjudged.to_frame().iloc[-1:]]
    rows = dd.from_delayed([dask_delayed(p) for p in pieces], meta=frame.iloc[:0])
    result = skirm.dask.evaluate_run(qrels, rows, MEASURES, all_queries=True)
    _assert_same_run_result(
        result, evaluate_run(qrels, unjudged, MEASURES, all_queries=True)
    )
    assert shuffles == ["query_id"]


@pytest.mark.oracle
def test_evaluate_run_without_missing_queries_equals_one_process(client):
    qrels, run = _trec(3)
    kept = qrels.query_ids != "t999"
    qrels = Qrels(qrels.query_ids[kept], qrels.doc_ids[kept], qrels.labels[kept])
    rows = dd.from_pandas(run.to_frame(), npartitions=3)
    for options in ({}, {"all_queries": True}, {"compat": "9.0"}):
        result = skirm.dask.evaluate_run(qrels, rows, MEASURES, **options)
        _assert_same_run_result(result, evaluate_run(qrels, run, MEASURES, **options))


@pytest.mark.oracle
@pytest.mark.parametrize("placeholder_grade", [3, 1])
def test_evaluate_run_takes_err_max_grade_over_the_whole_run(client, placeholder_grade):
    # ERR's default max_grade on the TREC path is the qrels' largest label:
    # the partition of t1 (grade 1 at most) must use it too.
    qrels = Qrels(
        ["t0", "t0", "t1", "t1", "t2"],
        ["a", "b", "c", "d", "ceci_nest_pas_un_docno"],
        [2, 0, 1, 0, placeholder_grade],
    )
    run = Run(["t0", "t0", "t1", "t1"], ["a", "b", "c", "d"], [2.0, 1.0, 2.0, 1.0])
    frame = run.to_frame()
    rows = dd.from_delayed(
        [dask_delayed(frame.iloc[:2]), dask_delayed(frame.iloc[2:])],
        meta=frame.iloc[:0],
    )
    measures = ["err@5", "err", "ndcg@5", "map"]
    top = max(2, placeholder_grade)
    for options in ({"all_queries": True}, {"compat": "9.0"}):
        expected = evaluate_run(qrels, run, measures, **options)
        assert expected.per_query["err@5"][1] == pytest.approx(1 / 2**top)
        result = skirm.dask.evaluate_run(
            qrels, rows, measures, shuffle=False, **options
        )
        _assert_same_run_result(result, expected)


def test_evaluate_run_missing_queries_raise_as_in_one_process(client):
    qrels, run = _trec(4)
    rows = dd.from_pandas(run.to_frame(), npartitions=4)
    with pytest.raises(ValueError, match="qrels queries are missing") as one:
        evaluate_run(qrels, run, "map")
    with pytest.raises(ValueError, match=re.escape(str(one.value))):
        skirm.dask.evaluate_run(qrels, rows, "map")
    # as in one process, the missing queries are reported before duplicates
    frame = run.to_frame()
    twice = dd.from_pandas(pd.concat([frame, frame.iloc[:1]]), npartitions=4)
    with pytest.raises(ValueError, match=re.escape(str(one.value))):
        skirm.dask.evaluate_run(qrels, twice, "map")
    with pytest.raises(ValueError, match=r"duplicate docno 'D\d+' for query 't0'"):
        skirm.dask.evaluate_run(qrels, twice, "map", compat="9.0")
    with pytest.raises(ValueError, match=r"`compat` must be '10\.0'"):
        skirm.dask.evaluate_run(qrels, rows, "map", compat="9")


@pytest.mark.oracle
def test_evaluate_run_on_a_glob_of_files_against_pytrec_eval(client, tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _trec(1, n_queries=30)
    # Three files; a query's rows may be in two of them.
    frame = run.to_frame()
    part = np.random.default_rng(1).integers(0, 3, size=len(frame))
    for p in range(3):
        rows = frame[part == p]
        write_run(
            tmp_path / f"run-{p}.txt",
            rows["query_id"],
            rows["doc_id"],
            rows["score"],
            run_id="sys1",
        )
    # pytrec_eval follows trec_eval 9.0.x, which leaves t999 out
    measures = ["map", "ndcg", "P_10", "num_ret"]
    result = skirm.dask.evaluate_run(
        qrels, str(tmp_path / "run-*.txt"), measures, compat="9.0"
    )
    assert result.run_id == "sys1"
    expected = evaluate_run(qrels, run, measures, compat="9.0")
    for name, value in expected.means.items():
        assert result.means[name] == pytest.approx(value, rel=1e-12), name
    judgments = {}
    for q, d, label in zip(qrels.query_ids, qrels.doc_ids, qrels.labels, strict=True):
        judgments.setdefault(q, {})[d] = int(label)
    ranked = {}
    for q, d, s in zip(run.query_ids, run.doc_ids, run.scores, strict=True):
        ranked.setdefault(q, {})[d] = float(s)
    oracle = pytrec_eval.RelevanceEvaluator(judgments, {"map", "ndcg", "P"})
    values = oracle.evaluate(ranked)
    for ours, theirs in (("map", "map"), ("ndcg", "ndcg"), ("P_10", "P_10")):
        want = [values[q][theirs] for q in result.group_ids.tolist()]
        np.testing.assert_allclose(result.per_query[ours], want, rtol=1e-12)


def test_evaluate_run_rejects_bad_runs(client, tmp_path):
    qrels, run = _trec(2)
    with pytest.raises(ValueError, match="matches no file"):
        skirm.dask.evaluate_run(qrels, str(tmp_path / "none-*.txt"))
    rows = dd.from_pandas(run.to_frame().rename(columns={"score": "s"}), 2)
    with pytest.raises(ValueError, match=r"missing \['score'\]"):
        skirm.dask.evaluate_run(qrels, rows)
    with pytest.raises(TypeError, match="`run` must be a Dask DataFrame, a glob"):
        skirm.dask.evaluate_run(qrels, run)
    rows = dd.from_pandas(run.to_frame(), 2)
    with pytest.raises(ValueError, match="`max_docs` must be a positive integer"):
        skirm.dask.evaluate_run(qrels, rows, max_docs=0)
    other = dd.from_pandas(
        Run(["x"], ["D1"], [1.0]).to_frame()[["query_id", "doc_id", "score"]], 1
    )
    with pytest.raises(ValueError, match="no query of the run appears in the qrels"):
        skirm.dask.evaluate_run(qrels, other)


# -- model selection on the cluster, with the data scattered once --------------


@pytest.mark.oracle
def test_grid_search_on_dask_with_scattered_data(client, shared_data):
    import sklearn
    from joblib import parallel_config
    from lightgbm import LGBMRanker
    from sklearn.model_selection import GridSearchCV

    from skirm.metrics import make_ranking_scorer
    from skirm.model_selection import QueryGroupKFold
    from skirm.ranker import QueryRanker

    X, y, qid = mq2008_vali(shared_data, 60)

    def search(**kwargs):
        return GridSearchCV(
            QueryRanker(LGBMRanker(n_estimators=5, n_jobs=1, verbose=-1)),
            {"estimator__num_leaves": [3, 7]},
            cv=QueryGroupKFold(3, shuffle=True, random_state=0),
            scoring=make_ranking_scorer(["ndcg@10", "map"]),
            refit="ndcg@10",
            error_score="raise",
            **kwargs,
        )

    with sklearn.config_context(enable_metadata_routing=True):
        serial = search().fit(X, y, groups=qid)
        # X and y go to every worker once; the tasks refer to them.
        with parallel_config(backend="dask", scatter=[X, y]):
            scattered = search(n_jobs=-1).fit(X, y, groups=qid)
    for key, value in serial.cv_results_.items():
        if "test_" in key:
            np.testing.assert_array_equal(value, scattered.cv_results_[key], key)
    assert scattered.best_params_ == serial.best_params_
    assert serial.cv_results_["mean_test_ndcg@10"].min() > 0.3
