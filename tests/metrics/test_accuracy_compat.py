"""Accuracy and Compat against ir_measures' own providers, per query.

Generated queries vary one thing at a time (sizes, grades, cutoffs, the
relevance level, unretrieved relevant documents on the TREC path, negative
scores). ir_measures' accuracy provider divides by zero on a query whose
shown rows are all relevant and leaves out queries without a relevant
shown row; the generator keeps a non-relevant row on top of every query and
the comparison runs over the queries it reports. Compat's provider breaks
score ties by document id, ascending: the runs here have no ties.
"""

import itertools
import logging

import numpy as np
import pytest

from skirm.io import Run
from skirm.metrics import accuracy_score, compatibility_score, evaluate
from skirm.trec import evaluate_run

pytestmark = pytest.mark.oracle

ACCURACY = ["Accuracy", "Accuracy@2", "Accuracy@5", "Accuracy(rel=2)@10"]
COMPAT = ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5)"]


def _case(dimension, seed):
    rng = np.random.default_rng(seed)
    n_queries = 30
    high = {"short": 4, "long": 300}.get(dimension, 30)
    sizes = rng.integers(1, high, n_queries)
    groups = np.repeat(np.arange(n_queries), sizes)
    p = [0.6, 0.4, 0, 0] if dimension == "binary" else [0.5, 0.25, 0.15, 0.1]
    y_true = rng.choice(4, groups.size, p=p).astype(float)
    y_score = rng.permutation(groups.size).astype(float) + 1.0
    for q in range(n_queries):  # a non-relevant row on top of every query
        rows = np.flatnonzero(groups == q)
        y_true[rows[np.argmax(y_score[rows])]] = 0.0
    return y_true, y_score, groups


def _reference(names, qrels, run):
    ir_measures = pytest.importorskip("ir_measures")
    logging.getLogger("ir_measures").setLevel(logging.ERROR)
    out = {}
    for name in names:
        measure = ir_measures.parse_measure(name)
        out[name] = {
            m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)
        }
    return out


def _dicts(y_true, y_score, groups, retrieved=None):
    qrels, run = {}, {}
    for i, q in enumerate(groups):
        qrels.setdefault(str(q), {})[f"d{i:05d}"] = int(y_true[i])
        if retrieved is None or retrieved[i]:
            run.setdefault(str(q), {})[f"d{i:05d}"] = float(y_score[i])
    return qrels, run


@pytest.mark.parametrize("dimension", ["baseline", "short", "long", "binary"])
def test_equal_to_ir_measures_on_arrays(dimension):
    for seed in (0, 1):
        y_true, y_score, groups = _case(dimension, seed)
        names = ACCURACY + COMPAT
        result = evaluate(y_true, y_score, groups=groups, metrics=names)
        want = _reference(names, *_dicts(y_true, y_score, groups))
        ids = result.group_ids.astype(str)
        for name in names:
            got = dict(zip(ids, result.per_query[name], strict=True))
            assert want[name] or (dimension == "binary" and "rel=2" in name)
            for qid, value in want[name].items():
                assert got[qid] == pytest.approx(value, abs=1e-9), (name, qid)


@pytest.mark.parametrize("scores", ["positive", "negative", "around_zero"])
def test_compat_on_the_trec_path_counts_unretrieved_relevant_documents(scores):
    y_true, y_score, groups = _case("baseline", 5)
    if scores == "negative":  # scores at or below 0 sort after unretrieved ones
        y_score = y_score - np.median(y_score)
    elif scores == "around_zero":
        # Many scores in (0, 1] and one exactly 0 per query: the boundary of
        # where ir_measures puts the unretrieved documents (as if scored 0).
        y_score = (y_score - np.median(y_score)) / y_score.size
        for q in np.unique(groups):
            rows = np.flatnonzero(groups == q)
            if rows.size > 2:
                y_score[rows[np.argsort(y_score[rows])[rows.size // 2]]] = 0.0
    retrieved = np.random.default_rng(6).random(groups.size) < 0.7
    for q in np.unique(groups):  # every query retrieves its top row
        rows = np.flatnonzero(groups == q)
        retrieved[rows[np.argmax(y_score[rows])]] = True
    qrels, run = _dicts(y_true, y_score, groups, retrieved)
    result = evaluate_run(qrels, run, COMPAT + ACCURACY)
    want = _reference(COMPAT + ACCURACY, qrels, run)
    ids = result.group_ids.astype(str)
    for name in COMPAT + ACCURACY:
        got = dict(zip(ids, result.per_query[name], strict=True))
        for qid, value in want[name].items():
            assert got[qid] == pytest.approx(value, abs=1e-9), (name, qid)


def test_compat_few_retrieved_below_zero_many_unretrieved():
    # Where the ideal's ranks exceed the run's: the retrieved relevant
    # documents, all scored below 0, come after the unretrieved ones of their
    # grade (which ir_measures sorts as if scored 0).
    qrels = {
        "q": {f"d{i}": 2 if i < 3 else 1 for i in range(10)},
        "r": {f"e{i}": 1 for i in range(6)},
    }
    run = {
        "q": {"d0": -1.0, "d5": -2.0, "d3": -0.25, "x": 0.5},
        "r": {"e0": -0.01, "e1": -0.5, "z": -0.1},
    }
    result = evaluate_run(qrels, run, COMPAT)
    want = _reference(COMPAT, qrels, run)
    ids = result.group_ids.astype(str)
    for name in COMPAT:
        got = dict(zip(ids, result.per_query[name], strict=True))
        assert got == pytest.approx(want[name], abs=1e-12), name


def test_compat_retrieved_score_of_exactly_zero_ties_with_the_unretrieved():
    # As ir_measures builds the ideal ranking: a document the run lacks
    # counts as scored 0, so e0, scored exactly 0, ties with the five
    # unretrieved ones and takes its place among them in the qrels' order.
    first = {"r": {f"e{i}": 1 for i in range(6)}}
    last = {"r": {f"e{i}": 1 for i in (1, 2, 3, 4, 5, 0)}}

    def compat(qrels, score):
        return evaluate_run(qrels, {"r": {"e0": score, "z": 0.5}}, ["Compat"]).means[
            "Compat"
        ]

    assert compat(first, 0.0) == compat(first, 0.25)  # listed first: ahead
    assert compat(last, 0.0) == compat(last, -1.0)  # listed last: behind
    assert compat(first, 0.0) > compat(last, 0.0)
    ir_measures = pytest.importorskip("ir_measures")
    for qrels in (first, last):
        for score in (0.0, -1.0, 0.25):
            run = {"r": {"e0": score, "z": 0.5}}
            want = ir_measures.calc_aggregate(
                [ir_measures.parse_measure("Compat")], qrels, run
            )
            assert compat(qrels, score) == pytest.approx(
                float(*want.values()), abs=1e-15
            )


def test_compat_ideal_ties_follow_the_qrels_order_on_every_input_path():
    # Tied relevant documents of one grade: the ideal ranking lists them as
    # the qrels do, whether the run comes as dicts (their own join) or as a
    # Run (the general join), and whatever the docno order.
    qrels = {"q": {"d3": 1, "d1": 1, "d2": 2, "d0": 1, "d4": 0}}
    run = {"q": {"d0": 1.0, "d1": 1.0, "d3": 1.0, "d4": 2.0, "d9": 1.0}}
    as_dicts = evaluate_run(qrels, run, ["Compat", "Compat(p=0.5)"])
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    as_run = evaluate_run(
        qrels, Run(*zip(*rows, strict=True)), ["Compat", "Compat(p=0.5)"]
    )
    assert as_dicts.means == as_run.means
    ir_measures = pytest.importorskip("ir_measures")
    from skirm.trec import calc_aggregate

    for name in ("Compat(p=0.8)", "Compat(p=0.5)", "Compat(p=0.8,normalize=False)"):
        want = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], qrels, run)
        got = calc_aggregate([name], qrels, run)[name]
        assert got == pytest.approx(float(*want.values()), abs=1e-15), name


def test_accuracy_average_ties_equal_the_mean_over_orderings():
    # Tie blocks inside the top k and straddling it.
    y_true = np.array([0, 1, 1, 0, 1, 0, 0, 1, 0], dtype=float)
    y_score = np.array([5, 4, 4, 4, 4, 3, 3, 3, 1], dtype=float)
    groups = np.zeros(9)
    blocks = [(0,), (1, 2, 3, 4), (5, 6, 7), (8,)]
    for k in (None, 1, 2, 3, 5, 6, 7, 9):
        values = []
        for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
            order = np.array([i for part in parts for i in part])
            values.append(
                accuracy_score(
                    y_true[order], -np.arange(9.0), groups=groups, k=k, ties="first"
                )
            )
        got = accuracy_score(y_true, y_score, groups=groups, k=k)
        assert got == pytest.approx(np.mean(values), abs=1e-12), k


def test_accuracy_explicit_tie_orders_rank_the_rows_as_given():
    # ties="first" on tied scores is the input order, not the average.
    y_true = np.array([0, 1, 0, 1, 1, 0], dtype=float)
    y_score = np.array([2, 2, 2, 1, 1, 1], dtype=float)
    groups = np.zeros(6)
    for k in (None, 2, 4):
        want = accuracy_score(y_true, -np.arange(6.0), groups=groups, k=k)
        got = accuracy_score(y_true, y_score, groups=groups, k=k, ties="first")
        assert got == want, k
    assert accuracy_score(y_true, y_score, groups=groups, ties="first") != (
        accuracy_score(y_true, y_score, groups=groups)
    )


def test_accuracy_at_several_cutoffs_keeps_the_relevance_threshold():
    # One pass computes every cutoff of a metric: each keeps its options.
    y_true, y_score, groups = _case("base", 3)
    names = ["accuracy@3", "accuracy@5", "accuracy@20"]
    opts = {"relevance_threshold": 2, "no_relevant": "skip"}
    together = evaluate(y_true, y_score, groups=groups, metrics=names, **opts)
    for name, k in zip(names, (3, 5, 20), strict=True):
        alone = accuracy_score(y_true, y_score, groups=groups, k=k, **opts)
        assert together.means[name] == pytest.approx(alone, abs=1e-12), name


def test_accuracy_conventions():
    groups = np.zeros(3)
    # Every shown row relevant: no pair misordered.
    assert accuracy_score([1, 1, 0], [3, 2, 1], groups=groups, k=2) == 1.0
    # Relevant rows exist but none is shown: 0.
    assert accuracy_score([0, 0, 1], [3, 2, 1], groups=groups, k=2) == 0.0


def test_compat_refuses_average_ties_and_names_the_way_out():
    message = (
        r"^ties='average' is not available for compat on tied scores: the ideal "
        r"ranking follows the ranking's own order within a grade, so"
    )
    with pytest.raises(ValueError, match=message):
        compatibility_score([1, 0, 2], [1, 1, 0], groups=[0, 0, 0])
    assert compatibility_score([2, 0, 1], [3, 2, 1], groups=[0, 0, 0], p=0.5) == (
        compatibility_score([2, 0, 1], [3, 2, 1], groups=[0, 0, 0], p=0.5, ties="first")
    )


def test_compat_of_the_ideal_order_is_exactly_one():
    # Two sums taken in different orders can land an ulp above 1: clipped.
    # (Found with the clip removed: these rankings gave 1.000000000000001.)
    for counts in ((9, 12, 4, 9), (4, 5, 8, 5), (7, 15, 12, 4)):
        y_true = np.repeat([3.0, 2.0, 1.0, 0.0], counts)
        y_score = -np.arange(y_true.size, dtype=float)
        groups = np.zeros(y_true.size)
        assert compatibility_score(y_true, y_score, groups=groups) == 1.0


def test_compat_of_a_query_without_relevant_rows_warns_nothing():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = compatibility_score([0, 0, 1], [3, 2, 1], groups=[0, 0, 1])
    assert value == 0.5


def test_compat_bad_options():
    with pytest.raises(ValueError, match=r"`p` must be"):
        compatibility_score([1, 0], [2, 1], groups=[0, 0], p=1.5)
    with pytest.raises(TypeError, match=r"`normalize` must be True or False, got 1"):
        compatibility_score([1, 0], [2, 1], groups=[0, 0], normalize=1)
