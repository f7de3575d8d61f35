"""The edges of the ir_measures drop-in (issue 51), each next to ir_measures
itself with its providers installed: a document judged more than once, the
accuracy provider's queries through the registered provider, the names
and inputs ir_measures accepts or refuses.

Every test reads the public functions only (``skirm.trec.calc_aggregate``,
``iter_calc``, ``evaluator``, ``register_ir_measures_provider``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from skirm import trec

ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")

Qrel, ScoredDoc = ir_measures.Qrel, ir_measures.ScoredDoc


def _assert_same(names, qrels, run, skirm_qrels=None, skirm_run=None, tol=1e-9):
    """Per query and in the summary, skirm's values are ir_measures'."""
    measures = [ir_measures.parse_measure(n) for n in names]
    want = {
        (str(m.measure), m.query_id): float(m.value)
        for m in ir_measures.iter_calc(measures, qrels, run)
    }
    got = {
        (m.measure, m.query_id): m.value
        for m in trec.iter_calc(
            names,
            qrels if skirm_qrels is None else skirm_qrels,
            run if skirm_run is None else skirm_run,
        )
    }
    assert set(got) == set(want)
    for key, value in want.items():
        # gdeval prints 5 decimals
        at = 1e-5 if "ERR" in key[0] or "exp-log2" in key[0] else tol
        assert got[key] == pytest.approx(value, abs=at, nan_ok=True), key
    want_agg = ir_measures.calc_aggregate(measures, qrels, run)
    got_agg = trec.calc_aggregate(
        names,
        qrels if skirm_qrels is None else skirm_qrels,
        run if skirm_run is None else skirm_run,
    )
    for name, measure in zip(names, measures, strict=True):
        at = 1e-5 if "ERR" in name or "exp-log2" in name else tol
        assert got_agg[name] == pytest.approx(
            float(want_agg[measure]), abs=at, nan_ok=True
        ), name


# --------------------------------------------------------------------------
# 1. A document judged more than once
# --------------------------------------------------------------------------

#: Subtopic judgments: d1 judged 2 then 0 in query 1 (the last row not
#: relevant), 0 then 1 in query 2 (the last row relevant), d2 judged 1 and
#: 3 in query 3 (two positive rows, both in gdeval's ideal DCG).
_TWICE = [
    ("1", "d1", 2, "1"), ("1", "d1", 0, "2"), ("1", "d2", 1, "1"),
    ("2", "d1", 0, "1"), ("2", "d1", 1, "2"), ("2", "d3", 1, "1"),
    ("3", "d2", 1, "1"), ("3", "d2", 3, "2"), ("3", "d4", 2, "1"),
    ("3", "d5", 0, "2"),
]  # fmt: skip
_TWICE_RUN = [
    ("1", "d1", 3.0), ("1", "d2", 2.0), ("1", "d9", 1.0),
    ("2", "d3", 3.0), ("2", "d1", 2.0), ("2", "d9", 1.0),
    ("3", "d2", 2.0), ("3", "d5", 2.0), ("3", "d4", 1.0), ("3", "d9", 0.5),
]  # fmt: skip
# (each query ends with an unjudged document: ir_measures' accuracy
# provider divides by the non-relevant documents after the last relevant)
#: The measures of every provider that reads plain judgments, and those the
#: issue found wrong (RR@10: MS MARCO; ERR@10 and nDCG(dcg='exp-log2')@10:
#: gdeval).
_EVERY_PROVIDER = [
    "RR@10", "ERR@10", "ERR@2", "nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@1",
    "P@1", "AP", "nDCG@10", "RR", "Success@2", "RBP(rel=1)", "SDCG(max_rel=3)@10",
    "Compat(p=0.8)", "Judged@10", "Accuracy@10", "RR(rel=2)@10",
]  # fmt: skip


def _twice_shapes(tmp_path):
    """The judgments of :data:`_TWICE` in each shape that holds a document
    twice, as ir_measures and skirm are given them."""
    qrels = [Qrel(q, d, g, s) for q, d, g, s in _TWICE]
    frame = pd.DataFrame(
        [(q, s, d, g) for q, d, g, s in _TWICE],
        columns=["query_id", "iteration", "doc_id", "relevance"],
    )
    path = tmp_path / "qrels"
    path.write_text("".join(f"{q} {s} {d} {g}\n" for q, d, g, s in _TWICE))
    plain = [(q, d, g) for q, d, g, _ in _TWICE]  # the same lines, no subtopic
    return {
        "qrel_tuples": (qrels, qrels),
        "frame": (frame, frame),
        "file": (list(ir_measures.read_trec_qrels(str(path))), str(path)),
        "plain_duplicates": ([Qrel(q, d, g, "0") for q, d, g in plain], plain),
    }


@pytest.mark.oracle
@pytest.mark.parametrize("shape", ["qrel_tuples", "frame", "file", "plain_duplicates"])
def test_regression_a_document_judged_twice_is_read_as_each_provider_reads_it(
    shape, tmp_path
):
    # pytrec_eval, cwl_eval, compat, judged and accuracy read the last row
    # (a dict); MS MARCO's RR@k takes a document as relevant if any of its
    # rows reaches rel; gdeval keeps the positive rows, and every one of
    # them enters the ideal DCG. The drop-in read the last row for all of
    # them: RR@10 1.0 where ir_measures gives 0.5 in query 2, ERR@10 and
    # nDCG(dcg='exp-log2')@10 off in every query.
    qrels, skirm_qrels = _twice_shapes(tmp_path)[shape]
    run = [ScoredDoc(*r) for r in _TWICE_RUN]
    _assert_same(_EVERY_PROVIDER, qrels, run, skirm_qrels=skirm_qrels)


@pytest.mark.oracle
def test_regression_diversity_and_plain_measures_in_one_call_on_subtopic_qrels():
    # The realistic case of the issue: ERR@20 and RR@10 asked with the
    # diversity measures, on subtopic qrels where documents are judged once
    # per subtopic.
    rng = np.random.default_rng(51)
    rows, run = [], []
    for q in range(1, 9):
        for i in range(12):  # three subtopics each
            grades = rng.choice(4, size=3, p=[0.6, 0.2, 0.1, 0.1])
            rows += [
                Qrel(str(q), f"d{i}", int(g), str(s)) for s, g in enumerate(grades, 1)
            ]
            run.append(ScoredDoc(str(q), f"d{i}", float(rng.integers(0, 5))))
    names = ["ERR@20", "RR@10", "alpha_nDCG@20", "nDCG(dcg='exp-log2')@20", "P@5"]
    _assert_same(names, rows, run)


# --------------------------------------------------------------------------
# 2. Accuracy through the registered provider
# --------------------------------------------------------------------------


@pytest.fixture
def skirm_provider():
    """skirm registered with ir_measures (and first in its pipeline), and
    ir_measures left as it was afterwards."""
    pipeline = ir_measures.DefaultPipeline.providers
    provider = trec.register_ir_measures_provider(default=True)
    try:
        yield provider
    finally:
        pipeline.remove(provider)
        del ir_measures.providers.registry["skirm"]


def _accuracy_cases():
    qrels = {"1": {"a": 1, "x": 0}, "2": {"b": 1}}
    # at a cutoff of 2, query 1: the relevant a above x; query 2: nothing
    # relevant retrieved (ir_measures' accuracy divides by the non-relevant
    # documents after the last relevant one: one is there)
    reported = {"1": {"a": 2.0, "x": 1.0}, "2": {"c": 1.0}}
    # no query has a relevant document above the cutoff
    none = {"1": {"x": 3.0, "y": 2.0, "a": 1.0}, "2": {"c": 1.0}}
    return qrels, reported, none


@pytest.mark.oracle
@pytest.mark.parametrize("measures", [["Accuracy@2"], ["Accuracy@2", "P@1"]])
def test_regression_accuracy_through_the_registered_provider_leaves_queries_out(
    skirm_provider, measures
):
    # ir_measures' accuracy provider reports only the queries with a
    # relevant document above the cutoff; the registered provider was
    # completed by ir_measures' Evaluator.iter_calc with the measure's
    # default for the others: mean 0.5 where ir_measures gives 1.0, 0.0
    # where it gives NaN. With another provider's measure in the same call,
    # ir_measures' own pipeline fills them (0).
    qrels, reported, none = _accuracy_cases()
    parsed = [ir_measures.parse_measure(m) for m in measures]
    accuracy = parsed[0]
    pipeline = ir_measures.DefaultPipeline.providers
    for run in (reported, none):
        pipeline.remove(skirm_provider)  # ir_measures' own providers
        try:
            want = ir_measures.calc_aggregate(parsed, qrels, run)
            want_rows = sorted(
                (str(m.measure), m.query_id, round(float(m.value), 12))
                for m in ir_measures.iter_calc(parsed, qrels, run)
            )
        finally:
            pipeline.insert(0, skirm_provider)
        for got in (
            ir_measures.calc_aggregate(parsed, qrels, run),  # through skirm
            skirm_provider.calc_aggregate(parsed, qrels, run),
            ir_measures.evaluator(parsed, qrels).calc_aggregate(run),
        ):
            assert got[accuracy] == pytest.approx(float(want[accuracy]), nan_ok=True)
        got_rows = sorted(
            (str(m.measure), m.query_id, round(float(m.value), 12))
            for m in ir_measures.iter_calc(parsed, qrels, run)
        )
        assert got_rows == want_rows
    if len(measures) == 1:
        assert ir_measures.calc_aggregate(parsed, qrels, reported)[accuracy] == 1.0
        assert math.isnan(ir_measures.calc_aggregate(parsed, qrels, none)[accuracy])
