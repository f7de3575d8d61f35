"""Dicts joined as they are: the same values as the general path, bit for bit.

``RelevanceEvaluator`` evaluates a plain ``{str: {str: number}}`` run against
plain qrels dicts without building string columns (``skirm/trec/_dicts.py``:
judgements looked up in the run's dicts and placed in the ranking by score).
Every generated case of the TREC fuzzer (26 dimensions: docno widths and
charsets, UTF-8, ties, float32 ties, one-sided queries, graded and negative
labels, ...) is evaluated both ways, the general way by giving the same run
as a :class:`~skirm.io.Run`, under each option; the values must be equal.
A campaign's seeds (``SKIRM_FUZZ_CASES``, ``SKIRM_FUZZ_FIRST_SEED``) replace
the fixed ones, as for the trec_eval differential tests.
"""

from __future__ import annotations

import numpy as np
import pytest
from _trec_eval_side import fuzz_seeds
from _trec_fuzz import DIMENSIONS, make_case, parse_reference

from skirm._engine import _counted
from skirm.io import as_run
from skirm.io._dict_rows import NOT_PLAIN, DictIndex
from skirm.trec import DuplicateDocnoError, RelevanceEvaluator, _dicts, evaluate_run
from skirm.trec._dicts import dict_context
from skirm.trec._request import Options

MEASURES = {"all_trec"}
#: Measures that read the relevant rows alone (the labels of every row are
#: then never made: see ``Ranking``'s ``placed``).
RELEVANT_ROWS = {"ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100"}


@pytest.fixture(autouse=True, params=["counted", "counted_in_parts", "sorted"])
def ranks(request, monkeypatch):
    """Each test three times: the judgements' ranks counted (the scores of
    their queries compared with theirs; the full order sorted only when a
    measure reads it), counted a few scores at a time, and the rows sorted
    and each judgement searched for."""
    per_row = -1 if request.param == "sorted" else np.inf
    monkeypatch.setattr(_dicts, "COUNTED_PER_ROW", per_row)
    if request.param == "counted_in_parts":
        monkeypatch.setattr(_counted, "CELLS", 7)


def _both(qrels, run, measures=MEASURES, **options):
    evaluator = RelevanceEvaluator(qrels, measures, **options)
    assert evaluator._dicts is not None  # the dict path is taken
    fast = evaluator.evaluate(run)
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    general = evaluator.evaluate(as_run(rows) if rows else as_run([("q", "d", 0.0)]))
    return fast, general


def _assert_equal(fast, general, run):
    assert sorted(fast) == sorted(q for q in general if q in run)
    for qid, values in fast.items():
        assert values.keys() == general[qid].keys()
        for name, value in values.items():
            other = general[qid][name]
            assert value == other or (np.isnan(value) and np.isnan(other)), (
                qid,
                name,
                value,
                other,
            )


@pytest.mark.parametrize("dimension", DIMENSIONS)
@pytest.mark.parametrize("seed", fuzz_seeds(range(2)))
@pytest.mark.parametrize(
    "options",
    [{}, {"relevance_level": 2}, {"judged_docs_only_flag": True}],
    ids=["default", "level2", "judged_only"],
)
@pytest.mark.parametrize("measures", [MEASURES, RELEVANT_ROWS], ids=["all", "rows"])
def test_dicts_equal_the_general_path(dimension, seed, options, measures):
    case = make_case(dimension, seed)
    qrels, run, _, _ = parse_reference(case.qrels, case.run)
    if not run or not qrels:
        pytest.skip("a side without rows")  # not an oracle: nothing to compare
    fast, general = _both(qrels, run, measures, **options)
    _assert_equal(fast, general, run)


@pytest.mark.parametrize("seed", range(4))
def test_ties_at_judged_documents_place_each_by_docno(seed):
    # Many equal scores, judged documents among them, docnos that differ
    # past the first 8 and 16 bytes, in UTF-8: each judgement is placed
    # among its tied rows by docno (descending, byte order), not by score.
    rng = np.random.default_rng(seed)
    stems = ["doc", "docdocdocdocdoc", "é", "日本", "D"]
    run, qrels = {}, {}
    for q in range(30):
        docs = {
            f"{stems[i % 5]}{rng.integers(0, 50)}-{i}": float(rng.integers(0, 4))
            for i in range(int(rng.integers(1, 40)))
        }
        run[f"q{q}"] = docs
        judged = rng.choice([*docs, "absent"], size=min(8, len(docs)))
        qrels[f"q{q}"] = {str(d): int(rng.integers(-1, 3)) for d in judged}
    for options in ({}, {"judged_docs_only_flag": True}, {"relevance_level": 2}):
        fast, general = _both(qrels, run, **options)
        _assert_equal(fast, general, run)


def test_every_score_tied_and_float32_ties():
    # All scores equal; and scores equal only as C floats (trec_eval 9.0.x,
    # as pytrec_eval): the ranking and the placement read the same values.
    run = {"q1": {f"d{i}": 1.0 for i in range(50)}}
    run["q2"] = {f"d{i}": 12.25000004 - i * 1e-9 for i in range(20)}
    qrels = {"q1": {"d3": 1, "d10": 2, "d49": 0}, "q2": {"d0": 1, "d19": 1, "d7": 0}}
    fast, general = _both(qrels, run)
    _assert_equal(fast, general, run)
    assert fast["q2"]["recip_rank"] == general["q2"]["recip_rank"]


@pytest.mark.parametrize("seed", range(3))
def test_tie_blocks_without_a_judgement_keep_any_order(seed):
    # Only the tie blocks that hold a retrieved judgement are ordered by
    # docno; blocks of unjudged documents alone (straddling the cutoffs,
    # -M and -J) give every measure the same value in any order.
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(40):
        size = int(rng.integers(5, 60))
        scores = rng.integers(0, 6, size) * 0.5  # long tie blocks
        run[f"q{q}"] = {f"d{i:03d}": float(s) for i, s in enumerate(scores)}
        judged = rng.choice(size + 10, size=min(6, size), replace=False)
        qrels[f"q{q}"] = {f"d{j:03d}": int(rng.integers(-1, 3)) for j in judged}
    for options in ({}, {"judged_docs_only_flag": True}, {"relevance_level": 2}):
        fast, general = _both(qrels, run, **options)
        _assert_equal(fast, general, run)
    for max_docs in (3, 10):
        args = (qrels, run, ["P.5,10", "map", "ndcg_cut.5", "recip_rank", "bpref"])
        fast = evaluate_run(*args, max_docs=max_docs)
        general = evaluate_run(*args[:1], as_run([
            (q, d, s) for q, docs in run.items() for d, s in docs.items()
        ]), args[2], max_docs=max_docs)  # fmt: skip
        for name, values in fast.per_query.items():
            np.testing.assert_array_equal(values, general.per_query[name])


@pytest.mark.parametrize(
    "run",
    [
        {"q1": {1: 0.5, "d2": 0.2}},  # an int docno: the general path reads it
        {"q1": {"d1": "0.5"}},  # a score as a string: refused there
        {"q1": {"d1": float("nan")}},  # NaN: refused there
        {"q1": [("d1", 0.5)]},  # not a dict of dicts
        {1: {"d1": 0.5}},  # an int query id
    ],
)
def test_runs_that_are_not_plain_dicts_take_the_general_path(run):
    options = Options(1, False, None, False, "9.0")
    assert dict_context(DictIndex({"q1": {"d1": 1}}), run, options) is NOT_PLAIN


def test_not_plain_runs_get_the_general_path_s_values_and_errors():
    evaluator = RelevanceEvaluator({"q1": {"d1": 1, "1": 1}}, {"map", "P.2"})
    ints = evaluator.evaluate({"q1": {1: 0.5, "d2": 0.2}})  # 1 read as "1"
    assert ints == {"q1": {"map": 0.5, "P_2": 0.5}}
    with pytest.raises(
        ValueError, match=r"must not be NaN, got NaN for query 'q1', document 'd1'"
    ):
        evaluator.evaluate({"q1": {"d1": float("nan")}})
    with pytest.raises(ValueError, match=r"score values must be numbers"):
        evaluator.evaluate({"q1": {"d1": "0.5"}})


def test_the_evaluator_keeps_its_own_copy_of_the_qrels():
    # pytrec_eval copies the qrels: changing the dicts afterwards changes
    # nothing; a query judged by an empty dict is not a topic.
    qrels = {"q1": {"d1": 1}, "q2": {}}
    evaluator = RelevanceEvaluator(qrels, {"P.1"})
    qrels["q1"]["d1"] = 0
    qrels["q1"]["d2"] = 1
    out = evaluator.evaluate({"q1": {"d1": 1.0, "d2": 0.5}, "q2": {"d1": 1.0}})
    assert out == {"q1": {"P_1": 1.0}}


def test_runs_through_one_evaluator_each_equal_the_general_path():
    # The evaluator indexes its qrels once: runs over every judged query,
    # over some of them (the index's subset), with tied scores at judged
    # and unjudged documents, and with unjudged queries, one after another.
    rng = np.random.default_rng(7)
    qrels = {
        f"q{q}": {f"d{d}": int(rng.integers(-1, 3)) for d in rng.choice(40, 8)}
        for q in range(30)
    }
    evaluator = RelevanceEvaluator(qrels, MEASURES)
    for queries in (range(30), range(0, 30, 3), [5, 31, 2], range(30)):
        run = {
            f"q{q}": {
                f"d{d}": float(rng.integers(0, 4)) / 4 for d in rng.choice(40, 20)
            }
            for q in queries
        }
        fast = evaluator.evaluate(run)
        rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
        _assert_equal(fast, evaluator.evaluate(as_run(rows)), run)


#: trec_eval's measures and measures that read the ranked rows' order and
#: scores (Compat's ideal ranking, the ERRs), not only their labels.
ORDER_READERS = ["all_trec", "ndcg@5", "compat", "Compat(p=0.8)", "err@10", "ERR@10"]


def _run_both(qrels, run, **options):
    """evaluate_run of the dicts, and of the same run given as a Run: the
    results, or the errors (class and message)."""
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    out = []
    for given in (run, as_run(rows)):
        try:
            out.append(evaluate_run(qrels, given, ORDER_READERS, **options))
        except Exception as exc:  # compared below: the same error both ways
            out.append((type(exc), str(exc)))
    return out


@pytest.mark.parametrize("dimension", DIMENSIONS)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"compat": "9.0"},
        {"all_queries": True},
        {"judged_only": True, "max_docs": 5},
        {"relevance_level": 2, "compat": "9.0"},
    ],
    ids=["default", "compat9", "all_queries", "judged_only_max_docs", "level2"],
)
def test_evaluate_run_of_dicts_equals_the_general_path(dimension, options):
    case = make_case(dimension, 0)
    qrels, run, _, _ = parse_reference(case.qrels, case.run)
    fast, general = _run_both(qrels, run, **options)
    if isinstance(general, tuple):
        assert fast == general  # the same error, word for word
        return
    np.testing.assert_array_equal(fast.group_ids, general.group_ids)
    assert list(fast.means) == list(general.means)
    for name in general.means:
        assert fast.means[name] == general.means[name] or (
            np.isnan(fast.means[name]) and np.isnan(general.means[name])
        ), name
        np.testing.assert_array_equal(fast.per_query[name], general.per_query[name])
    assert fast.run_id == general.run_id


def test_counted_and_sorted_ranks_agree_on_docnos_equal_as_bytes(monkeypatch):
    # "a" and "a\x00" are two keys of a dict but one docno (what a C string
    # and numpy's str arrays hold; pytrec_eval reports "duplicate docs a"):
    # the dicts path reads them as every other container does (issue 51),
    # a judgement of "a\x00" judges "a", and a run naming both lists "a"
    # twice, on both paths.
    qrels = {"q1": {"a\x00": 1, "b": 0}}
    out = []
    for per_row in (np.inf, -1):
        monkeypatch.setattr(_dicts, "COUNTED_PER_ROW", per_row)
        evaluator = RelevanceEvaluator(qrels, {"recip_rank", "P.1"})
        out.append(evaluator.evaluate({"q1": {"a": 0.5, "b": 0.5, "c": 0.4}}))
        with pytest.raises(
            DuplicateDocnoError, match=r"duplicate docno 'a' for query 'q1'"
        ):
            evaluator.evaluate({"q1": {"a": 0.5, "a\x00": 0.5, "b": 0.5, "c": 0.4}})
    assert out[0] == out[1] == {"q1": {"recip_rank": 0.5, "P_1": 0.0}}


@pytest.mark.parametrize("measures", [MEASURES, RELEVANT_ROWS], ids=["all", "rows"])
@pytest.mark.parametrize("block_rows", [5, 1 << 14])
@pytest.mark.parametrize("seed", range(3))
def test_pooled_judgements_equal_the_general_path(
    seed, block_rows, measures, monkeypatch
):
    # Every judged docno retrieved (TREC's pools), some queries judged once,
    # a few with a judged docno the run lacks; read in blocks of queries
    # that hold any of these or none: the general path's values.
    from skirm.io import _dict_rows

    monkeypatch.setattr(_dict_rows, "BLOCK_ROWS", block_rows)
    monkeypatch.setattr(_dict_rows, "GETTER_JUDGED", 0)  # getters for any block
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(25):
        docs = [
            f"d{d}"
            for d in rng.choice(60, size=int(rng.integers(2, 15)), replace=False)
        ]
        run[f"q{q}"] = dict(
            zip(docs, (rng.integers(0, 6, len(docs)) / 4).tolist(), strict=True)
        )
        size = 1 if q % 3 == 0 else int(rng.integers(1, len(docs) + 1))
        keys = rng.choice(docs, size=size, replace=False).tolist()
        if q % 7 == 6:
            keys.append("not retrieved")
        qrels[f"q{q}"] = {k: int(rng.integers(-1, 3)) for k in keys}
    fast, general = _both(qrels, run, measures)
    _assert_equal(fast, general, run)


def test_runs_evaluated_in_threads_at_once_through_one_evaluator(monkeypatch):
    # The evaluator's getters are built as the first runs read their
    # blocks: runs evaluated at once in threads each get the values they
    # get alone.
    from concurrent.futures import ThreadPoolExecutor

    from skirm.io import _dict_rows

    monkeypatch.setattr(_dict_rows, "BLOCK_ROWS", 500)  # 21 blocks a run
    monkeypatch.setattr(_dict_rows, "GETTER_JUDGED", 0)  # getters for any block
    rng = np.random.default_rng(11)
    qrels, runs = {}, []
    for q in range(400):
        docs = [f"d{d}" for d in rng.choice(200, size=30, replace=False)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[:6]}
    for _ in range(8):
        runs.append(
            {
                q: dict(
                    zip(judged, rng.random(len(judged)).round(2).tolist(), strict=True)
                )
                | {f"x{i}": float(rng.random()) for i in range(20)}
                for q, judged in qrels.items()
            }
        )
    alone = [RelevanceEvaluator(qrels, MEASURES).evaluate(run) for run in runs]
    evaluator = RelevanceEvaluator(qrels, MEASURES)
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(evaluator.evaluate, runs))
    assert together == alone


def _run_variant(variant, run):
    """The run of ``variant``: its queries as the qrels name them, or not."""
    names = list(run)
    if variant == "reversed":
        return {q: run[q] for q in reversed(names)}
    if variant == "one_missing":
        return {q: run[q] for q in names[1:]}
    if variant == "one_unjudged":
        return run | {"unjudged": {"d1": 0.5}}
    if variant == "one_empty":
        return run | {names[3]: {}}
    return run


@pytest.mark.parametrize(
    "variant",
    ["same", "reversed", "one_missing", "one_unjudged", "one_empty", "qrels_empty"],
)
def test_runs_are_placed_by_the_qrels_order_or_looked_up(variant):
    # A run that names the qrels' queries in their order, each with
    # documents, is placed by the index's order; any other by look-ups:
    # the same places as a look-up of each query, the general path's values.
    rng = np.random.default_rng(5)
    qrels, run = {}, {}
    for q in rng.permutation(30).tolist():  # not in code point order
        docs = [f"d{d}" for d in rng.choice(40, size=12, replace=False)]
        run[f"q{q}"] = dict(zip(docs, rng.random(12).round(2).tolist(), strict=True))
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[:4]}
    if variant == "qrels_empty":  # not a topic: left out of the index
        qrels[next(iter(qrels))] = {}
    run = _run_variant(variant, run)
    index = DictIndex({q: d for q, d in qrels.items() if d})
    at, kept = index.places(run)
    with_docs = [q for q, docs in run.items() if docs]
    expected = sorted(
        (index.names.index(q), i) for i, q in enumerate(with_docs) if q in index.names
    )
    assert at.tolist() == [a for a, _ in expected]
    assert kept.tolist() == [k for _, k in expected]
    fast, general = _both(qrels, run)
    # (a query named with no document has pytrec_eval's values of its own)
    retrieved = {q: docs for q, docs in run.items() if docs}
    _assert_equal({q: fast[q] for q in fast if q in retrieved}, general, retrieved)


def test_evaluate_run_leaves_out_qrels_queries_without_judgements():
    # A query of the qrels with an empty dict is no topic (the qrels are read
    # as they are, not copied, unless one is empty): the general path's
    # values and topics, with and without -c.
    qrels = {"q2": {"a": 1, "b": 0}, "q1": {}, "q3": {"c": 2}}
    run = {"q2": {"a": 0.3, "b": 0.5}, "q3": {"c": 0.1, "d": 0.2}}
    for options in ({}, {"all_queries": True, "compat": "9.0"}):
        fast, general = _run_both(qrels, run, **options)
        np.testing.assert_array_equal(fast.group_ids, ["q2", "q3"])
        np.testing.assert_array_equal(fast.group_ids, general.group_ids)
        assert fast.means == general.means
        assert fast.means["num_q"] == 2
    assert qrels["q1"] == {}  # the input unchanged


#: Judged docnos the dicts path may not read as they are: a NUL that the
#: general path's strings drop (``"a\x00"`` judges ``"a"``), a NUL inside, and
#: keys that are not str.
ODD_DOCNOS = ["a\x00", "z\x00", "d\x00e", 7, b"a", ("a", 1), None]


@pytest.mark.parametrize("docno", ODD_DOCNOS, ids=repr)
@pytest.mark.parametrize(
    "where", ["unretrieved", "query_not_in_run", "duplicate_of_judged"]
)
def test_evaluate_run_checks_the_judged_docnos_a_run_does_not_retrieve(docno, where):
    # evaluate_run's dicts path checks the judged docnos only when the run
    # does not retrieve them all (a retrieved one is a run's docno, checked
    # as the run is read): wherever an odd docno stands, the general path's
    # values, or its error word for word.
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    run = {"q1": {"a": 0.5, "b": 0.4, "x": 0.3}, "q2": {"c": 0.1, "y": 0.2}}
    if where == "unretrieved":
        qrels["q1"][docno] = 2
    elif where == "query_not_in_run":
        qrels["q3"] = {"e": 1, docno: 1}
    else:  # next to the docno it may be read as
        qrels["q2"][docno] = 1
    fast, general = _run_both(qrels, run)
    if isinstance(general, tuple):
        assert fast == general
        return
    np.testing.assert_array_equal(fast.group_ids, general.group_ids)
    for name in general.means:
        np.testing.assert_array_equal(fast.per_query[name], general.per_query[name])


@pytest.mark.parametrize("pooled", [True, False])
def test_evaluate_run_reads_judged_docnos_only_where_some_are_not_retrieved(
    pooled, monkeypatch
):
    # every judged docno retrieved: checked as the run's own; else all of
    # them checked once
    from skirm.io import _dict_rows

    asked = []
    real = _dict_rows.plain_docnos

    def spy(dicts):
        asked.append(len(dicts))
        return real(dicts)

    monkeypatch.setattr(_dicts, "plain_docnos", spy)
    monkeypatch.setattr(_dict_rows, "plain_docnos", spy)  # the qrels' reader
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    run = {"q1": {"a": 0.5, "b": 0.4, "x": 0.3}, "q2": {"c": 0.1, "y": 0.2}}
    if not pooled:
        qrels["q2"]["w"] = 1
    result = evaluate_run(qrels, run, ["map"])
    assert asked == ([] if pooled else [2])
    assert result.group_ids.tolist() == ["q1", "q2"]


def test_the_ideal_ranking_is_made_once_for_runs_of_every_judged_query(monkeypatch):
    # the ideal ranking depends on the judgements alone: runs through one
    # evaluator that evaluate every judged query share it; a run of fewer
    # queries (other judgements) makes its own, and keeps it to itself
    from skirm.trec import _measures

    made = []
    real = _measures._by_code_then_descending

    def spy(codes, levels):
        made.append(codes.shape[0])
        return real(codes, levels)

    monkeypatch.setattr(_measures, "_by_code_then_descending", spy)
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}, "q3": {"d": 0, "e": 3}}
    every = {q: {d: 0.5 for d in docs} | {"x": 0.7} for q, docs in qrels.items()}
    some = {q: every[q] for q in ("q1", "q3")}
    evaluator = RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.2"})
    values = [evaluator.evaluate(run) for run in (every, some, every, some)]
    assert made == [4, 3, 3]  # the run of every query once; each other run
    assert values[0] == values[2] and values[1] == values[3]
    fresh = RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.2"})
    assert [fresh.evaluate(run) for run in (some, every)] == values[1:3]
