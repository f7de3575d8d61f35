"""One name space: skirm names, trec_eval names and ir_measures strings.

Every spelling is parsed by the registry into the same record, cutoff and
options; the values are checked against pytrec_eval (trec_eval names) and
ir_measures (its strings, through its pytrec_eval, gdeval and cwl_eval
providers) on generated queries without score ties, where every row is a
judged document (so R and the ideal DCG agree on both sides).
"""

import numpy as np
import pytest
from _data import trec_dicts
from sklearn.base import BaseEstimator

from skirm.metrics import (
    evaluate,
    get_metric,
    get_scorer,
    make_ranking_scorer,
    ndcg_score,
)
from skirm.trec import evaluate_run

#: name -> (registry name, k, options) it must parse to.
SPELLINGS = {
    # trec_eval
    "ndcg_cut.10": ("ndcg", 10, {}),
    "ndcg_cut_10": ("ndcg", 10, {}),
    "ndcg_cut@10": ("ndcg", 10, {}),
    "P.5": ("precision", 5, {}),
    "P_5": ("precision", 5, {}),
    "recall.100": ("recall", 100, {}),
    "map_cut.20": ("map", 20, {}),
    "success.1": ("hit_rate", 1, {}),
    "recip_rank": ("mrr", None, {}),
    "Rprec": ("r_precision", None, {}),
    "set_P": ("precision", None, {}),
    "set_recall": ("recall", None, {}),
    "set_F": ("f1", None, {}),
    # ir_measures
    "nDCG@10": ("ndcg", 10, {}),
    "nDCG(dcg='exp-log2')@10": ("ndcg", 10, {"gain": "exponential"}),
    "nDCG(dcg=log2)": ("ndcg", None, {}),
    "P(rel=2)@10": ("precision", 10, {"relevance_threshold": 2.0}),
    "R@1000": ("recall", 1000, {}),
    "AP": ("map", None, {}),
    "AP@10": ("map", 10, {}),
    "AP(rel=2)": ("map", None, {"relevance_threshold": 2.0}),
    "RR": ("mrr", None, {}),
    "RR(rel=2)@5": ("mrr", 5, {"relevance_threshold": 2.0}),
    "RBP(p=0.8)": ("rbp", None, {"p": 0.8}),
    "RBP(p=0.5, rel=2)@10": ("rbp", 10, {"p": 0.5, "relevance_threshold": 2.0}),
    "ERR@20": ("err", 20, {"max_grade": 4.0}),
    "Success@5": ("hit_rate", 5, {}),
    "SetP": ("precision", None, {}),
    "SetR(rel=2)": ("recall", None, {"relevance_threshold": 2.0}),
    "SetF": ("f1", None, {}),
    "SetF(beta=1)": ("f1", None, {}),
    # skirm's own, unchanged
    "err@20": ("err", 20, {}),
    "NDCG@3": ("ndcg", 3, {}),
    "rprec": ("r_precision", None, {}),
}


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_spellings_parse_to_one_record(name):
    target, k, options = SPELLINGS[name]
    metric = get_metric(name)
    assert (metric.spec.name, metric.k) == (target, k)
    assert metric == get_metric(target if k is None else f"{target}@{k}", **options)
    # The bound metric pickles and prints as a canonical skirm name.
    assert eval(repr(metric), {"get_metric": get_metric}) == metric


@pytest.mark.parametrize(
    "name, message",
    [
        ("ndcg@0", r"cutoff k must be a positive integer without leading zeros"),
        ("mapp", r"unknown measure 'mapp' \(did you mean 'map'\?\)"),
        ("ndcg_cut10", r"did you mean 'ndcg_cut\.10'\?"),
        ("ndcg10", r"did you mean 'ndcg@10'\?"),
        ("reciprank", r"did you mean 'recip_rank'\?"),
        ("nDGC@10", r"did you mean 'ndcg@10'\?"),
        (
            "ndcg_cut",
            r"'ndcg_cut' needs one cutoff on the array path, e.g. 'ndcg_cut\.10'",
        ),
        (
            "P.5,10",
            r"one positive integer cutoff per name \(e\.g\. 'P\.10'\), got '5,10'",
        ),
        ("map_cut.0", r"one positive integer cutoff per name"),
        ("bpref", r"'bpref' is a trec_eval measure .* skirm\.trec\.evaluate_run"),
        ("num_rel", r"skirm computes only on a run against its qrels"),
        ("infAP", r"'infAP' is a trec_eval measure .* skirm\.trec\.evaluate_run"),
        ("NumQ", r"skirm computes only on a run against its qrels"),
        ("P_IA", r"'P_IA' is a diversity measure: .*precision_ia_score"),
        ("AP(foo=1)", r"'AP' in 'AP\(foo=1\)' takes no option 'foo'; .*: rel"),
        (
            "nDCG(gains={0:0,1:1})@5",
            r"option 'gains' .* changes the qrels.* skirm.trec.evaluate_run .* map "
            r"the labels to gains",
        ),
        (
            "nDCG(judged_only=True)",
            r"option 'judged_only' .* changes the qrels.* unjudged='condensed'",
        ),
        ("nDCG(cutoff=5)@5", r"given a cutoff twice"),
        ("nDCG(cutoff=0)", r"option 'cutoff' .* must be a positive integer, got 0"),
        ("P(judged_only=yes)@5", r"'judged_only' .* must be True or False"),
        ("nDCG(dcg=exp)", r"option 'dcg' .* must be 'log2' or 'exp-log2', got 'exp'"),
        ("P(rel=0)@5", r"option 'rel' in 'P\(rel=0\)@5' must be a positive number"),
        ("SetF(beta=2)", r"beta must be 1, got 2"),
        ("AP(rel=2, rel=3)", r"option 'rel' is given twice"),
        ("AP(rel)", r"options in parentheses must be key=value pairs"),
        ("Rprec@5", r"takes no cutoff, got 'Rprec@5'"),
        ("SetP@5", r"'SetP' takes no cutoff"),
        ("recip_rank@5", r"'recip_rank' takes no cutoff"),
        (
            "ndcg(gain=linear)",
            r"takes no option 'gain'; options skirm accepts for it: dcg",
        ),
    ],
)
def test_bad_names_get_one_clear_error(name, message):
    with pytest.raises(ValueError, match=message):
        get_metric(name)
    # The same error at every front door.
    with pytest.raises(ValueError, match=message):
        evaluate([1, 0], [2, 1], groups=[0, 0], metrics=[name])
    with pytest.raises(ValueError, match=message):
        make_ranking_scorer(name)


def test_option_in_the_name_and_as_keyword_must_agree():
    assert get_metric("P(rel=2)@5", relevance_threshold=2) == get_metric(
        "p@5", relevance_threshold=2
    )
    with pytest.raises(ValueError, match=r"'relevance_threshold' is given twice"):
        get_metric("P(rel=2)@5", relevance_threshold=3)


def test_unknown_metric_message_lists_the_three_spellings():
    with pytest.raises(
        ValueError, match=r"valid names: .*ndcg@k.*trec_eval.*ir_measures"
    ):
        get_metric("auc")


def _data(seed, n_queries=40, max_docs=25, max_label=3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, size=n_queries)
    groups = np.repeat(np.arange(1, n_queries + 1), sizes)
    y_true = rng.choice(max_label + 1, size=groups.size, p=[0.55, 0.25, 0.12, 0.08])
    # Distinct float32 scores: no ties for trec_eval's float32 scores either.
    y_score = rng.permutation(groups.size).astype(np.float64) / 7.0
    return y_true, y_score, groups


def test_metric_functions_and_scorers_take_foreign_names():
    y_true, y_score, groups = _data(0, n_queries=5)
    expected = ndcg_score(y_true, y_score, groups=groups, k=10)
    assert get_metric("ndcg_cut.10")(y_true, y_score, groups=groups) == expected
    assert get_metric("nDCG@10")(y_true, y_score, groups=groups) == expected
    scorer = get_scorer("ndcg_cut.10")

    class Fixed(BaseEstimator):
        def predict(self, X):
            return np.asarray(X, dtype=float)[:, 0]

    X = y_score[:, None]
    assert scorer(Fixed(), X, y_true, groups=groups) == expected
    multi = make_ranking_scorer(["P.5", "nDCG@10", "recip_rank"])
    values = multi(Fixed(), X, y_true, groups=groups)
    assert values["nDCG@10"] == expected
    assert values["P.5"] == get_metric("p@5")(y_true, y_score, groups=groups)


TREC_NAMES = [
    "P.5",
    "P_10",
    "recall.10",
    "ndcg",
    "ndcg_cut.10",
    "map",
    "map_cut.5",
    "recip_rank",
    "Rprec",
    "success.5",
    "set_P",
    "set_recall",
    "set_F",
]


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trec_names_match_pytrec_eval(seed):
    import pytrec_eval

    y_true, y_score, groups = _data(seed)
    qrels, run = trec_dicts(y_true, y_score, groups)
    measures = {
        "P.5,10",
        "recall.10",
        "ndcg",
        "ndcg_cut.10",
        "map",
        "map_cut.5",
        "recip_rank",
        "Rprec",
        "success.5",
        "set_P",
        "set_recall",
        "set_F",
    }
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    result = evaluate(y_true, y_score, groups=groups, metrics=TREC_NAMES)
    for name in TREC_NAMES:
        key = name.replace(".", "_")
        want = np.array([expected[str(q)][key] for q in result.group_ids])
        np.testing.assert_allclose(result.per_query[name], want, rtol=0, atol=1e-12)


IR_MEASURES = [
    "nDCG@10",
    "nDCG",
    "P@5",
    "P(rel=2)@10",
    "R@10",
    "R(rel=2)@5",
    "AP",
    "AP@5",
    "AP(rel=2)",
    "RR",
    "RR(rel=2)",
    "RR@3",
    "Rprec",
    "Success@5",
    "SetP",
    "SetR",
    "SetF",
    "SetF(rel=2)",
    "ERR@10",
    "ERR@20",
    "nDCG(dcg='exp-log2')@10",
    "RBP(p=0.8,rel=1)",
    "RBP(p=0.5,rel=2)",
]


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ir_measures_strings_match_ir_measures(seed):
    ir_measures = pytest.importorskip("ir_measures")
    y_true, y_score, groups = _data(seed)
    qrels, run = trec_dicts(y_true, y_score, groups)
    result = evaluate(y_true, y_score, groups=groups, metrics=IR_MEASURES)
    for name in IR_MEASURES:
        measure = ir_measures.parse_measure(name)
        values = {
            m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)
        }
        got = dict(
            zip(result.group_ids.astype(str), result.per_query[name], strict=True)
        )
        # gdeval (ERR, exponential nDCG) leaves out queries without relevant
        # rows; every other provider scores them 0, as skirm does.
        assert set(values) <= set(got)
        assert len(values) >= 0.8 * len(got)
        for qid, want in values.items():
            assert got[qid] == pytest.approx(
                float(want), abs=1e-5 if name.startswith(("ERR", "nDCG(")) else 1e-12
            ), (name, qid)


# Regression: these ir_measures spellings name measures evaluate_run computes
# (bpref, infAP, set_map, ...), but the TREC path answered "unknown measure".
IR_MEASURES_TREC_ONLY = [
    "BPref",
    "Bpref",
    "infAP",
    "SetAP",
    "SetRelP",
    "IPrec@0.5",
    "IPrec@0.1",
    "NumQ",
    "NumRel",
    "NumRet",
    "NumRelRet",
]


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1])
def test_ir_measures_spellings_of_trec_measures_on_the_trec_path(seed):
    ir_measures = pytest.importorskip("ir_measures")
    y_true, y_score, groups = _data(seed)
    qrels, run = trec_dicts(y_true, y_score, groups)
    # ir_measures reads these through pytrec_eval, i.e. trec_eval 9, which
    # turns IPrec's recall level into a count of relevant documents as
    # int(r R + 0.9) where trec_eval 10 rounds: compat="9.0" does the same.
    result = evaluate_run(qrels, run, IR_MEASURES_TREC_ONLY, compat="9.0")
    assert set(IR_MEASURES_TREC_ONLY) <= set(result.means)
    measures = [ir_measures.parse_measure(name) for name in IR_MEASURES_TREC_ONLY]
    per_query = {}
    for m in ir_measures.iter_calc(measures, qrels, run):
        per_query.setdefault(str(m.measure), {})[m.query_id] = m.value
    ids = result.group_ids.astype(str)
    for name, measure in zip(IR_MEASURES_TREC_ONLY, measures, strict=True):
        want = per_query[str(measure)]
        got = dict(zip(ids, result.per_query[name], strict=True))
        assert set(want) == set(got), name
        for qid, value in want.items():
            assert got[qid] == pytest.approx(float(value), abs=1e-12), (name, qid)


def test_ir_measures_spellings_of_trec_measures_are_checked():
    qrels, run = {"q": {"d": 1}}, {"q": {"d": 1.0}}
    with pytest.raises(ValueError, match=r"'IPrec' needs a recall level in \[0, 1\]"):
        evaluate_run(qrels, run, ["IPrec"])
    with pytest.raises(ValueError, match=r"'IPrec' needs a recall level"):
        evaluate_run(qrels, run, ["IPrec@2"])
    with pytest.raises(ValueError, match=r"'NumQ' takes no cutoff, got 'NumQ@5'"):
        evaluate_run(qrels, run, ["NumQ@5"])


def test_regression_judged_spelling_on_the_trec_path_sees_unjudged_documents():
    # ir_measures' Judged@10 reached the registry's judged@k, which read every
    # run document as judged on the TREC path (1.0 where 2 of 3 are judged).
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"1": {"a": 1, "b": 0, "c": -1}, "2": {"x": 2}}
    run = {"1": {"a": 3.0, "u1": 2.0, "b": 1.0, "c": 0.5}, "2": {"y": 1.0, "x": 0.5}}
    result = evaluate_run(qrels, run, ["Judged@10", "judged@10", "Judged@1"])
    np.testing.assert_allclose(result.per_query["Judged@10"], [0.75, 0.5])
    np.testing.assert_allclose(
        result.per_query["Judged@10"], result.per_query["judged@10"]
    )
    np.testing.assert_allclose(result.per_query["Judged@1"], [1.0, 0.0])
    for name in ("Judged@10", "Judged@1"):
        measure = ir_measures.parse_measure(name)
        want = {
            m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)
        }
        got = dict(
            zip(result.group_ids.astype(str), result.per_query[name], strict=True)
        )
        assert got == pytest.approx(want)
