"""The ir_measures drop-in (``skirm.trec.calc_aggregate``, ``iter_calc``,
``calc``, ``evaluator``) next to ir_measures itself, on tied runs.

Every registered name, per query and in the summary, on generated runs that
vary one thing at a time from a base with ties everywhere: ties across the
cutoff, the order of the rows, the order of the docnos, the same scores in
every query, queries without a relevant document, queries of the qrels the
run lacks and of the run the qrels lack, an empty run. ir_measures runs with
every provider installed (pytrec_eval, cwl_eval, compat, pyndeval, judged,
msmarco, gdeval, accuracy).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from _ir_names import DIVERSITY, SPELLINGS

import skirm
from skirm import trec

ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")

SCENARIOS = (
    "ties",
    "ties_across_cutoff",
    "shuffled_rows",
    "docnos_reversed",
    "scores_shared_by_queries",
    "no_relevant",
    "qrels_only_queries",
    "run_only_queries",
    "zero_and_negative_scores",
    "closer_than_a_float",
)


def _generate(seed, scenario, n_queries=8, n_subtopics=3):
    """Subtopic qrels rows and run rows (in their input order)."""
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    shared = rng.integers(1, 5, size=40).astype(float)
    for q in range(1, n_queries + 1):
        qid = str(q)
        n = int(rng.integers(4, 30))
        names = [f"D{q}-{i:02d}" for i in range(n)]
        if scenario == "docnos_reversed":
            names = names[::-1]
        no_rel = scenario == "no_relevant" and q % 3 == 0
        for doc in names:
            p = [1.0, 0, 0, 0] if no_rel else [0.55, 0.2, 0.15, 0.1]
            for sub in range(n_subtopics):
                q_rows.append((qid, str(sub + 1), doc, int(rng.choice(4, p=p))))
        retrieved = [d for d in names if rng.random() < 0.85]
        retrieved += [f"U{q}-{i}" for i in range(int(rng.integers(0, 6)))]
        levels = 2 if scenario == "ties_across_cutoff" else 4
        scores = rng.integers(1, levels + 1, size=len(retrieved)).astype(float)
        if scenario == "scores_shared_by_queries":
            scores = shared[: len(retrieved)]
        elif scenario == "zero_and_negative_scores":
            # in compat's ideal ranking a relevant document scored 0 ties
            # with the relevant ones the run lacks; those scored below 0
            # come after them
            scores = rng.integers(-1, 2, size=len(retrieved)).astype(float)
        elif scenario == "closer_than_a_float":
            # ties for pytrec_eval (trec_eval 9 reads C floats), not for the
            # providers that read doubles
            scores = 12.25 + scores * 1e-3 + rng.integers(0, 3, len(retrieved)) * 1e-8
        rows = [(qid, d, float(s)) for d, s in zip(retrieved, scores, strict=True)]
        if scenario == "qrels_only_queries" and q % 4 == 0:
            rows = []
        r_rows += rows
    if scenario == "run_only_queries":
        r_rows += [("99", f"X{i}", float(i % 2)) for i in range(5)]
    if scenario == "shuffled_rows":
        # the rows of each query in another order (queries stay together:
        # cwl_eval and pyndeval read a query's rows as one block)
        r_rows = sorted(r_rows, key=lambda r: (int(r[0]), float(rng.random())))
    return q_rows, r_rows


def _plain(q_rows):
    return [(q, d, g) for q, s, d, g in q_rows if s == "1"]


def _inputs(base, q_rows, r_rows):
    """ir_measures' frames, for the name's kind of judgments."""
    if base in DIVERSITY:
        qrels = pd.DataFrame(
            q_rows, columns=["query_id", "iteration", "doc_id", "relevance"]
        )
    else:
        qrels = pd.DataFrame(
            _plain(q_rows), columns=["query_id", "doc_id", "relevance"]
        )
    run = pd.DataFrame(r_rows, columns=["query_id", "doc_id", "score"])
    return qrels, run


def _compare(measures, qrels, run, skirm_qrels=None, skirm_run=None):
    """(values compared, values equal); asserts they are all equal."""
    want = list(ir_measures.iter_calc(measures, qrels, run))
    got = list(
        trec.iter_calc(
            measures,
            qrels if skirm_qrels is None else skirm_qrels,
            run if skirm_run is None else skirm_run,
        )
    )
    want_values = {(m.measure, m.query_id): float(m.value) for m in want}
    got_values = {(m.measure, m.query_id): m.value for m in got}
    # each (measure, query) once, the same set of them
    assert len(got_values) == len(got)
    assert Counter((m.measure, m.query_id) for m in want) == Counter(got_values.keys())
    compared = equal = 0
    for key, value in want_values.items():
        tol = 1e-5 if str(key[0]).startswith("ERR@") else 1e-9  # gdeval's 5 d.p.
        compared += 1
        if math.isnan(value):  # pyndeval's nNRBP without a relevant document
            assert math.isnan(got_values[key]), key
            equal += 1
            continue
        assert got_values[key] == pytest.approx(value, abs=tol), key
        equal += 1
    want_agg = ir_measures.calc_aggregate(measures, qrels, run)
    got_agg = trec.calc_aggregate(
        measures,
        qrels if skirm_qrels is None else skirm_qrels,
        run if skirm_run is None else skirm_run,
    )
    assert set(got_agg) == set(want_agg)
    for m, value in want_agg.items():
        tol = 1e-5 if str(m).startswith("ERR@") else 1e-9
        if math.isnan(float(value)):
            assert math.isnan(got_agg[m]), m
        else:
            assert got_agg[m] == pytest.approx(float(value), abs=tol), m
    return compared, equal


PLAIN = [ir_measures.parse_measure(SPELLINGS[b]) for b in sorted(SPELLINGS)
         if b not in DIVERSITY]  # fmt: skip
SUBTOPICS = [ir_measures.parse_measure(SPELLINGS[b]) for b in sorted(SPELLINGS)
             if b in DIVERSITY]  # fmt: skip


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_name_equals_ir_measures_on_tied_runs(scenario, seed):
    q_rows, r_rows = _generate(seed, scenario)
    qrels, run = _inputs("P", q_rows, r_rows)
    _compare(PLAIN, qrels, run)
    qrels, run = _inputs("alpha_nDCG", q_rows, r_rows)
    _compare(SUBTOPICS, qrels, run)


@pytest.mark.oracle
def test_names_as_strings_and_every_input_shape():
    # The same values from strings, dicts, namedtuples and TREC files, with
    # the results keyed by what was asked.
    q_rows, r_rows = _generate(5, "ties")
    qrels, run = _inputs("P", q_rows, r_rows)
    names = [SPELLINGS[b] for b in ("RBP", "INST", "Compat", "Judged", "P", "MAP")]
    want = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(n) for n in names], qrels, run
    )
    by_name = {str(m): v for m, v in want.items()}
    qrels_dict, run_dict = {}, {}
    for q, d, g in _plain(q_rows):
        qrels_dict.setdefault(q, {})[d] = g
    for q, d, s in r_rows:
        run_dict.setdefault(q, {})[d] = s
    shapes = [
        (qrels_dict, run_dict),
        (
            [ir_measures.Qrel(*r) for r in _plain(q_rows)],
            [ir_measures.ScoredDoc(*r) for r in r_rows],
        ),
        (list(_plain(q_rows)), list(r_rows)),  # plain tuples
        (iter(_plain(q_rows)), (r for r in r_rows)),  # iterators, read once
        (_Dataset(_plain(q_rows), r_rows), _Dataset(_plain(q_rows), r_rows)),
    ]
    for skirm_qrels, skirm_run in shapes:
        got = trec.calc_aggregate(names, skirm_qrels, skirm_run)
        assert list(got) == names
        for name in names:
            want_value = by_name[str(ir_measures.parse_measure(name))]
            assert got[name] == pytest.approx(float(want_value), abs=1e-12)


class _Dataset:
    """What the drop-in reads of an ir_datasets dataset."""

    def __init__(self, qrels, run):
        self._qrels, self._run = qrels, run

    def qrels_iter(self):
        return (ir_measures.Qrel(*r) for r in self._qrels)

    def scoreddocs_iter(self):
        return (ir_measures.ScoredDoc(*r) for r in self._run)


def test_inputs_of_no_known_shape_are_named():
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(skirm.InvalidParameterError, match=r"`run` must be .* got int"):
        trec.calc_aggregate(["P@1"], qrels, 42)
    with pytest.raises(skirm.InvalidInputError, match=r"`run` .*row 1"):
        trec.calc_aggregate(["P@1"], qrels, [("q1", "d1", 1.0), ("q1", "d2")])
    with pytest.raises(
        skirm.InvalidParameterError, match=r"`qrels` has no column 'doc_id'"
    ):
        trec.calc_aggregate(["P@1"], pd.DataFrame({"query_id": ["q1"]}), {})


def test_files(tmp_path):
    q_rows, r_rows = _generate(6, "ties")
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in _plain(q_rows)))
    run_path.write_text(
        "".join(f"{q} Q0 {d} {i} {s} r\n" for i, (q, d, s) in enumerate(r_rows))
    )
    qrels, run = _inputs("P", q_rows, r_rows)
    names = ["RBP(rel=1)", "nDCG@10", "Judged@10"]
    assert trec.calc_aggregate(names, str(qrels_path), run_path) == pytest.approx(
        trec.calc_aggregate(names, qrels, run)
    )


@pytest.mark.oracle
def test_regression_subtopics_of_a_qrels_file_are_its_second_column(tmp_path):
    # ir_measures reads a qrels file's second column as each Qrel's
    # iteration, the subtopic its pyndeval provider evaluates; the drop-in
    # read every line of a file as subtopic "0" (ERR_IA@10 0.90 where
    # ir_measures gives 0.54 on two subtopics per query).
    q_rows, r_rows = _generate(3, "ties")
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in q_rows))
    run_path.write_text(
        "".join(f"{q} Q0 {d} {i} {s} r\n" for i, (q, d, s) in enumerate(r_rows))
    )
    names = [SPELLINGS[name] for name in sorted(DIVERSITY)] + ["nDCG@10"]
    want = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(name) for name in names],
        list(ir_measures.read_trec_qrels(str(qrels_path))),
        list(ir_measures.read_trec_run(str(run_path))),
    )
    got = trec.calc_aggregate(names, str(qrels_path), str(run_path))
    for name in names:
        value = float(want[ir_measures.parse_measure(name)])
        assert got[name] == pytest.approx(value, abs=1e-9, nan_ok=True), name


@pytest.mark.oracle
def test_empty_run():
    q_rows, _ = _generate(2, "ties")
    qrels, run = _inputs("P", q_rows, [])
    _compare(PLAIN, qrels, run, skirm_run={})


def test_the_one_query_case_of_the_issue():
    qrels = {"q1": {"d1": 1, "d2": 0}}
    run = {"q1": {"d1": 0.5, "d2": 0.5}}
    got = trec.calc_aggregate(
        ["RBP(p=0.8,rel=1)", "INST(T=1.0,max_rel=1)", "Compat(p=0.8)"], qrels, run
    )
    assert got["RBP(p=0.8,rel=1)"] == pytest.approx(0.2)
    assert round(got["INST(T=1.0,max_rel=1)"], 3) == 0.608
    assert got["Compat(p=0.8)"] == 1.0


def test_evaluator_and_calc():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    ev = trec.evaluator(["P@1", "NumQ"], qrels)
    run = {"q1": {"d2": 1.0, "d1": 1.0}}
    res = ev.calc(run)
    assert res.aggregated == {"P@1": 0.0, "NumQ": 1.0}
    assert sorted((m.query_id, m.measure, m.value) for m in res.per_query) == [
        ("q1", "NumQ", 1.0), ("q1", "P@1", 0.0),
        ("q2", "NumQ", 0.0), ("q2", "P@1", 0.0),
    ]  # fmt: skip
    assert ev.calc_aggregate(run) == res.aggregated
    # input order: cwl_eval's RBP sees d2 first in one run, d1 in the other
    rbp = trec.evaluator(["RBP(rel=1)"], qrels)
    first = rbp.calc_aggregate({"q1": {"d1": 1.0, "d2": 1.0}})["RBP(rel=1)"]
    second = rbp.calc_aggregate({"q1": {"d2": 1.0, "d1": 1.0}})["RBP(rel=1)"]
    assert first > second


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match=r"^`measures`: unknown measure 'nope@10'; "):
        trec.calc_aggregate(["nope@10"], {"q": {"d": 1}}, {"q": {"d": 1.0}})


@pytest.mark.oracle
def test_registered_provider_and_default_pipeline():
    provider = trec.register_ir_measures_provider()
    assert ir_measures.providers.registry["skirm"] is provider
    assert provider not in ir_measures.DefaultPipeline.providers
    q_rows, r_rows = _generate(3, "ties")
    qrels, run = _inputs("P", q_rows, r_rows)
    measures = [ir_measures.parse_measure(SPELLINGS[b]) for b in ("RBP", "Judged", "P")]
    want = ir_measures.calc_aggregate(measures, qrels, run)
    got = provider.calc_aggregate(measures, qrels, run)
    assert set(got) == set(want)
    for m in measures:
        assert got[m] == pytest.approx(float(want[m]), abs=1e-12)
    pipeline = ir_measures.DefaultPipeline.providers
    try:
        trec.register_ir_measures_provider(default=True)
        assert pipeline[0] is provider
        again = ir_measures.calc_aggregate(measures, qrels, run)
        assert again == pytest.approx(got)
    finally:
        pipeline.remove(provider)
        del ir_measures.providers.registry["skirm"]


def test_a_malformed_qrels_file_is_named_with_its_line(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("1 0 d1 1\n1 d2 1\n")
    with pytest.raises(skirm.InvalidInputError, match=r"qrels:2: .*4 fields"):
        trec.calc_aggregate(["P@1"], str(path), {"1": {"d1": 1.0}})
    path.write_text("1 0 d1 1\n1 0 d2 x\n")
    with pytest.raises(skirm.InvalidInputError, match=r"qrels:2: .*integer"):
        trec.calc_aggregate(["P@1"], str(path), {"1": {"d1": 1.0}})


@pytest.mark.oracle
def test_regression_frames_with_pyterrier_columns_are_read_by_ir_measures_names():
    # PyTerrier hands ir_measures frames that also hold `query` (the text),
    # `qid`, `docno`, `rank`: ir_measures reads query_id, doc_id and score
    # only; the drop-in refused them as holding two query id columns.
    run = pd.DataFrame(
        {
            "query_id": ["1", "1", "2"],
            "qid": ["x", "x", "y"],
            "query": ["a b", "a b", "c"],
            "doc_id": ["d1", "d2", "d3"],
            "docno": ["n1", "n2", "n3"],
            "score": [0.5, 0.5, 1.0],
            "rank": [0, 1, 0],
        }
    )
    qrels = pd.DataFrame(
        {
            "query_id": ["1", "1", "2"],
            "doc_id": ["d1", "d2", "d3"],
            "relevance": [1, 0, 1],
            "label": [0, 0, 0],
            "subtopic": ["7", "8", "9"],  # not ir_measures' iteration
        }
    )
    names = ["RBP(rel=1)", "nDCG@10", "Compat(p=0.8)", "P@1", "alpha_nDCG@5"]
    want = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(n) for n in names], qrels, run
    )
    with pytest.warns(trec.OneSubtopicWarning):  # as ir_measures warns
        got = trec.calc_aggregate(names, qrels, run)
    for name in names:
        value = float(want[ir_measures.parse_measure(name)])
        assert got[name] == pytest.approx(value, abs=1e-12), name
