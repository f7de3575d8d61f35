"""The edges of the ir_measures drop-in (issue 51), each next to ir_measures
itself with its providers installed: a document judged more than once, the
accuracy provider's queries through the registered provider, the names
and inputs ir_measures accepts or refuses.

Every test reads the public functions only (``skirm.trec.calc_aggregate``,
``iter_calc``, ``evaluator``, ``register_ir_measures_provider``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import skirm
import skirm.io
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


# --------------------------------------------------------------------------
# 7. What ir_measures accepts, and what the drop-in refuses
# --------------------------------------------------------------------------

_QRELS = {"1": {"a": 1, "b": 2, "c": 0}, "2": {"d": 1}}


@pytest.mark.oracle
def test_regression_a_run_none_of_whose_queries_is_judged():
    # ir_measures gives every qrels query 0 (as for an empty run); the
    # drop-in raised NoCommonQueryError.
    names = ["P@10", "RR@10", "ERR@10", "RBP(rel=1)", "Compat(p=0.8)", "AP"]
    run = {"9": {"a": 1.0, "b": 0.5}}
    _assert_same(names, _QRELS, run)
    acc = trec.calc_aggregate(["Accuracy@10"], _QRELS, run)
    assert math.isnan(acc["Accuracy@10"])  # no query reported
    assert list(trec.iter_calc(["Accuracy@10"], _QRELS, run)) == []


@pytest.mark.oracle
@pytest.mark.parametrize(
    "gains", [{0: 0, 1: 1, 2: 2}, {0: 0, 1: 1, 2: 5}, {1: 3}, {2: 2, 1: 0}]
)
def test_regression_gains_are_read_from_the_measure_objects_parameters(gains):
    # str(nDCG(gains={0:0,1:1,2:2})) is 'nDCG(gains={})': ir_measures'
    # repr drops the pairs whose grade is its gain. The drop-in read the
    # name and refused gains={}.
    measures = [ir_measures.nDCG(gains=gains) @ 10, ir_measures.nDCG(gains=gains)]
    run = {"1": {"a": 1.0, "c": 0.9, "b": 0.5}, "2": {"x": 1.0, "d": 0.2}}
    want = ir_measures.calc_aggregate(measures, _QRELS, run)
    got = trec.calc_aggregate(measures, _QRELS, run)
    assert list(got) == measures
    for m in measures:
        assert got[m] == pytest.approx(float(want[m]), abs=1e-12)


@pytest.mark.oracle
@pytest.mark.parametrize("cutoff", [1000, 1001, 2500])
def test_regression_cwl_cutoffs_past_1000(cutoff):
    # cwl_eval computes SDCG@1001; the drop-in refused it with "raise
    # `depth`", which an ir_measures name cannot do.
    rng = np.random.default_rng(cutoff)
    qrels = {"1": {f"d{i}": int(rng.integers(0, 2)) for i in range(0, 3000, 7)}}
    run = {"1": {f"d{i}": float(rng.random()) for i in range(3000)}}
    names = [f"SDCG(max_rel=1)@{cutoff}", f"NERR8(max_rel=1)@{cutoff}", "RBP(rel=1)"]
    _assert_same(names, qrels, run)


@pytest.mark.parametrize(
    "run, match",
    [
        (
            {"1": {"a": 1.0, "b": float("nan")}},
            r"`run`.* NaN for query '1', document 'b'",
        ),
        (
            {"1": {"a": 1.0, "b": None}},
            r"`run`.*numbers, got None for query '1', document 'b'",
        ),
        (
            [("1", "a", 1.0), ("1", "b", "x")],
            r"`run`.*numbers, got 'x' for query '1', document 'b'",
        ),
    ],
)
def test_nan_and_none_scores_are_refused_naming_the_query_and_document(run, match):
    # they were read as NaN and ranked last; evaluate_run refuses them
    with pytest.raises(skirm.InvalidInputError, match=match):
        trec.calc_aggregate(["P@10"], _QRELS, run)
    with pytest.raises(skirm.InvalidInputError, match=match):
        trec.evaluate_run(_QRELS, run, ["P@10"])


@pytest.mark.parametrize(
    "run",
    [
        [ScoredDoc("1", "a", 1.0), ScoredDoc("1", "b", 0.5), ScoredDoc("1", "a", 0.2)],
        pd.DataFrame(
            {"query_id": ["1", "1", "1"], "doc_id": ["a", "b", "a"], "score": [1, 2, 3]}
        ),
    ],
)
def test_a_run_listing_a_document_twice_is_refused(run):
    # ir_measures' providers read it three ways (a dict: the first place
    # and the last score; gdeval and the others: both rows), so the drop-in
    # refuses it as evaluate_run does, where it kept a dict's reading.
    with pytest.raises(
        trec.DuplicateDocnoError, match=r"`run`: duplicate docno 'a' for query '1'"
    ):
        trec.calc_aggregate(["P@10"], _QRELS, run)


@pytest.mark.oracle
@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0, 0.25])
def test_regression_set_f_with_beta(beta):
    # ir_measures hands SetF(beta=b) to pytrec_eval as set_F_b; the drop-in
    # refused every beta but 1, though skirm's set_F.b equals pytrec_eval.
    run = {"1": {"a": 1.0, "x": 0.9, "c": 0.5}, "2": {"d": 1.0, "y": 0.4}}
    measures = [ir_measures.SetF(beta=beta), ir_measures.SetF(beta=beta, rel=2)]
    want = ir_measures.calc_aggregate(measures, _QRELS, run)
    got = trec.calc_aggregate(measures, _QRELS, run)
    for m in measures:
        assert got[m] == pytest.approx(float(want[m]), abs=1e-12), m
    _assert_same([str(m) for m in measures], _QRELS, run)


# --------------------------------------------------------------------------
# 8. skirm's own objects, names, labels
# --------------------------------------------------------------------------


@pytest.mark.oracle
def test_regression_skirm_s_own_qrels_and_run_objects_are_taken(tmp_path):
    # "`qrels` must be a skirm.io.Qrels ... got skirm.io.Qrels": the
    # drop-in refused what read_qrels and read_run return.
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n")
    run_path.write_text(
        "1 Q0 a 1 2.0 r\n1 Q0 c 2 2.0 r\n1 Q0 x 3 1.0 r\n2 Q0 d 1 1 r\n"
    )
    names = ["P@1", "nDCG@10", "RBP(rel=1)", "RR@10", "ERR@10", "Judged@10"]
    want = trec.calc_aggregate(names, str(qrels_path), str(run_path))
    objects = [
        (skirm.io.read_qrels(qrels_path), skirm.io.read_run(run_path)),
        (skirm.io.as_qrels(str(qrels_path)), skirm.io.as_run(str(run_path))),
        (skirm.io.read_qrels_jg(qrels_path), skirm.io.read_run(run_path)),
    ]
    for qrels, run in objects:
        assert trec.calc_aggregate(names, qrels, run) == want
        per_query = list(trec.iter_calc(names, qrels, run))
        assert per_query == list(trec.iter_calc(names, str(qrels_path), run_path))
        assert trec.evaluator(names, qrels).calc_aggregate(run) == want
    reference = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(n) for n in names],
        list(ir_measures.read_trec_qrels(str(qrels_path))),
        list(ir_measures.read_trec_run(str(run_path))),
    )
    for name in names:
        at = 1e-5 if "ERR" in name else 1e-12
        assert want[name] == pytest.approx(
            float(reference[ir_measures.parse_measure(name)]), abs=at
        )


@pytest.mark.parametrize(
    "name, match",
    [
        ("nDCg@10", r"unknown measure 'nDCg@10' \(did you mean 'nDCG@10' or "),
        ("NDGC@10", r"unknown measure 'NDGC@10' \(did you mean 'nDCG@10'\?\)"),
        ("Judgd@10", r"unknown measure 'Judgd@10' \(did you mean 'Judged@10'\?\)"),
    ],
)
def test_unknown_names_get_a_did_you_mean(name, match):
    match = "^`measures`: " + match
    with pytest.raises(skirm.metrics.UnknownMeasureError, match=match):
        trec.calc_aggregate([name], {"1": {"a": 1}}, {"1": {"a": 1.0}})


@pytest.mark.parametrize(
    "qrels, match",
    [
        ({"1": {"a": 1, "b": "x"}}, r"`qrels`.*numbers, got 'x' for query '1'"),
        (
            {"1": {"a": 1}, "2": {"b": None}},
            r"`qrels`.*numbers, got None for query '2'",
        ),
        ({"1": {"a": 1.5}}, r"`qrels`.*integers, got 1.5 for query '1', document 'a'"),
        (
            {"1": {"a": 10**20}},
            r"`qrels`.*64-bit integers.*for query '1', document 'a'",
        ),
    ],
)
def test_labels_that_are_not_integers_are_named_with_their_query(qrels, match):
    run = {"1": {"a": 1.0}, "2": {"b": 1.0}}
    with pytest.raises(skirm.InvalidInputError, match=match):
        trec.calc_aggregate(["P@1"], qrels, run)
    with pytest.raises(skirm.InvalidInputError, match=match):
        trec.evaluate_run(qrels, run, ["P_1"])


def test_set_f_with_beta_is_trec_eval_s_set_f_in_evaluate_run():
    run = {"1": {"a": 1.0, "x": 0.9, "c": 0.5}, "2": {"d": 1.0, "y": 0.4}}
    result = trec.evaluate_run(
        _QRELS, run, ["SetF(beta=0.5)", "set_F.0.5", "SetF(rel=2,beta=2.0)"]
    )
    np.testing.assert_array_equal(
        result.per_query["SetF(beta=0.5)"], result.per_query["set_F_0.5"]
    )
    at_two = trec.evaluate_run(_QRELS, run, ["set_F.2.0"], relevance_level=2)
    np.testing.assert_array_equal(
        result.per_query["SetF(rel=2,beta=2.0)"], at_two.per_query["set_F_2.0"]
    )
    with pytest.raises(
        skirm.InvalidParameterError, match=r"option 'beta' in 'SetF\(beta=-1\)' must"
    ):
        trec.evaluate_run(_QRELS, run, ["SetF(beta=-1)"])


@pytest.mark.parametrize(
    "lines",
    [
        "1 Q0 a 1 2.0 r\n1 Q0 b 2 2.0 r\n1 Q0 c 3 0.5 r\n2 Q0 c 1 1.0 r\n",
        "",  # an empty run: every judged query is 0, as ir_measures gives
        "9 Q0 a 1 2.0 r\n",  # no judged query
    ],
)
def test_a_run_file_streamed_gives_the_numbers_of_its_records(lines, tmp_path):
    # A run file is streamed by the pipeline where only the evaluation reads
    # it (issue 47: calc_aggregate with one measure as fast as evaluate_run);
    # its numbers are those of the same lines read into records first.
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 c 1\n2 0 d 1\n")
    run = tmp_path / "run"
    run.write_text(lines)
    names = ["nDCG@10", "P@1", "RR", "AP", "R@2", "Rprec"]
    records = skirm.io.read_run(run) if lines else skirm.io.Run([], [], [])
    want = trec.calc_aggregate(names, str(qrels), records)
    assert trec.calc_aggregate(names, str(qrels), str(run)) == want
    ev = trec.evaluator(names, str(qrels))
    assert list(ev.iter_calc(run)) == list(ev.iter_calc(records))


def test_a_run_file_listing_a_document_twice_is_refused_naming_its_line(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 2.0 r\n1 Q0 a 2 1.0 r\n")
    with pytest.raises(
        trec.DuplicateDocnoError, match=r"run:2: duplicate docno 'a' for query '1'"
    ):
        trec.calc_aggregate(["nDCG@10"], str(qrels), str(run))


@pytest.mark.parametrize(
    "name", ["zzz", "\x01extra judgment 0", "\x01extra judgment +0"]
)
def test_gdeval_s_extra_judgments_are_named_apart_from_the_run_s_documents(name):
    # gdeval counts every positive row of a document judged twice in its
    # ideal DCG: the rows beyond one are judgments of documents of their own,
    # named apart from every document of the run (the names are looked for
    # among the ids that start as they do); an unjudged document keeps its
    # value whatever its name.
    qrels = [("1", "a", 2, "1"), ("1", "a", 1, "2"), ("1", "b", 1, "1")]
    qrels = [{"query_id": q, "doc_id": d, "relevance": g, "iteration": s}
             for q, d, g, s in qrels]  # fmt: skip
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(qrels)
    run = {"1": {name: 3.0, "a": 2.0, "b": 1.0}}
    want = trec.calc_aggregate(
        ["ERR@10"], frame, {"1": {"zzz": 3.0, "a": 2.0, "b": 1.0}}
    )
    assert trec.calc_aggregate(["ERR@10"], frame, run) == want


@pytest.mark.parametrize(
    "repeat", ["none", "same label", "other label", "collision", "subtopics"]
)
def test_judgments_of_a_file_read_as_tokens_equal_those_of_tuples(
    tmp_path, monkeypatch, repeat
):
    """A judgment file's ids stay byte tokens (no str array): with every
    (query, document) once, the judgments are taken as given; with one
    twice (or hashes that collide, which only a check on the strings can
    tell apart; or read as judgments of several subtopics, which skip the
    check), as each provider reads a document judged twice. Either way the
    values of the tuples' path (ids held in memory)."""
    import skirm.io._join
    import skirm.io._tokens
    from skirm.trec import _ir_inputs

    if repeat == "collision":  # every key collides: the strings decide

        def collide(h, codes):
            return np.zeros(h.shape[0], dtype=np.uint64)

        monkeypatch.setattr(skirm.io._tokens, "mix", collide)
        monkeypatch.setattr(skirm.io._join, "mix", collide)
    elif repeat == "subtopics":
        monkeypatch.setattr(_ir_inputs, "_several", lambda subtopics, in_memory: True)
    rows = [("q1", "0", "d1", 2), ("q1", "0", "d2", 0), ("q2", "0", "d1", 1)]
    rows += [("q2", "0", "d3", 0), ("q1", "0", "dé", 1)]
    if repeat == "same label":
        rows.append(("q1", "0", "d2", 0))
    elif repeat == "other label":
        rows.append(("q1", "0", "d2", 1))
    path = tmp_path / "qrels"
    path.write_text("".join(" ".join(map(str, r)) + "\n" for r in rows))
    run = {"q1": {"d1": 0.5, "d2": 0.5, "dé": 0.9}, "q2": {"d3": 1.0, "d1": 0.2}}
    names = ["nDCG@3", "AP", "RR", "P@2", "ERR@3", "Judged@2"]
    from_file = trec.calc_aggregate(names, str(path), run)
    tuples = list(rows)  # (query, iteration, document, label), as the file
    from_tuples = trec.calc_aggregate(names, tuples, run)
    assert from_file == from_tuples
    graded = _ir_inputs.ir_graded(_ir_inputs.read_ir_qrels(str(path)))
    once = len({(q, d) for q, _, d, _ in rows})
    assert len(graded) == once


# --------------------------------------------------------------------------
# The diversity measures joined to the judged pairs the other measures index
# --------------------------------------------------------------------------


def _subtopic_case(dimension, seed):
    """Subtopic judgments and a run, varied one dimension at a time."""
    rng = np.random.default_rng(seed)
    n_subtopics = 1 if dimension == "one_subtopic" else 3
    rows, run = [], []
    for q in range(1, 12):
        docs = [f"d{i}" for i in rng.permutation(30)]
        for doc in docs[:20]:
            for s in range(1, n_subtopics + 1):
                if dimension == "some_subtopics" and rng.random() < 0.5:
                    continue
                rows.append(
                    (str(q), doc, int(rng.choice(4, p=[0.6, 0.2, 0.1, 0.1])), str(s))
                )
        if dimension == "unjudged_queries" and q % 3 == 0:
            rows = [r for r in rows if r[0] != str(q)]
        scores = rng.integers(0, 4 if dimension == "ties" else 1000, 25)
        run += [
            (str(q), doc, float(x)) for doc, x in zip(docs[5:], scores, strict=True)
        ]
    return rows, run


@pytest.mark.parametrize(
    "dimension",
    ["baseline", "one_subtopic", "some_subtopics", "unjudged_queries", "ties"],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_diversity_joined_to_the_shared_pairs_equals_its_own_join(
    dimension, seed, monkeypatch
):
    # The drop-in joins the run to the judged (query, document) pairs it
    # indexes for its other measures, each at its first row; the values are
    # those of the diversity report's own join of every judgment, bit for bit.
    import skirm.trec._ndeval_report as report

    rows, run = _subtopic_case(dimension, seed)
    qrels = [Qrel(*row) for row in rows]
    run = [ScoredDoc(*row) for row in run]
    names = ["alpha_nDCG@10", "ERR_IA@5", "P_IA@10", "nNRBP", "AP_IA", "P@5", "ERR@10"]
    with warnings.catch_warnings():
        if dimension == "one_subtopic":  # ordinary qrels: told, and taken
            warnings.simplefilter("ignore", trec.OneSubtopicWarning)
        shared = trec.calc(names, qrels, run).per_query
        monkeypatch.setattr(report, "share_pairs", lambda *args: None)
        own = trec.calc(names, qrels, run).per_query
    assert [(m.query_id, m.measure) for m in shared] == [
        (m.query_id, m.measure) for m in own
    ]
    got = np.array([m.value for m in shared])
    want = np.array([m.value for m in own])
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


def _read_either_way(rows):
    """The judgments of ``rows`` as the drop-in reads them (str ids as
    tokens) and the same with str arrays (how they were read before)."""
    from skirm.io._tokens import Tokens
    from skirm.trec import _ir_inputs

    judgments = _ir_inputs.read_ir_qrels(rows)
    strings = judgments._replace(
        **{
            field: np.array([getattr(r, name) for r in rows], dtype=str)
            for field, name in (
                ("query_ids", "query_id"),
                ("subtopics", "iteration"),
                ("doc_ids", "doc_id"),
            )
        },
        memo={},
    )
    assert isinstance(judgments.doc_ids, Tokens)
    return judgments, strings


def _outcome(call):
    try:
        out = call()
    except skirm.InvalidInputError as exc:
        return str(exc)
    names = ("query_ids", "groups", "doc_ids", "labels")
    return [np.asarray(getattr(out, n)).tolist() for n in names if hasattr(out, n)]


@pytest.mark.parametrize("bad", ["d 1", "", "d\t1", "q\x0b", "d\r", "fine"])
@pytest.mark.parametrize("column", ["query_id", "iteration", "doc_id"])
def test_judgments_in_memory_read_as_tokens_as_str_arrays(bad, column):
    """Judgments given in memory (tuples) whose str ids are read as tokens
    give each reading what the same ids as str arrays give: an id empty or
    holding whitespace (which a file's cannot) is refused by the subtopics'
    reading with the same message, and read alike by the graded ones."""
    from skirm.trec import _ir_inputs

    rows = [Qrel("q1", "d1", 1, "1"), Qrel("q1", "d1", 0, "2")]
    rows += [Qrel("q2", "d2", 1, "1"), Qrel("q2", "d3", 2, "1")]
    rows[1] = rows[1]._replace(**{column: bad})
    judgments, strings = _read_either_way(rows)
    for reading in ("last", "any", "positive"):
        got = _outcome(lambda r=reading: _ir_inputs.ir_graded(judgments, r))
        want = _outcome(lambda r=reading: _ir_inputs.ir_graded(strings, r))
        assert got == want, reading
    got = _outcome(lambda: _ir_inputs.ir_subtopics(judgments))
    assert got == _outcome(lambda: _ir_inputs.ir_subtopics(strings))
    if bad != "fine":
        assert "must be non-empty strings without whitespace" in got
