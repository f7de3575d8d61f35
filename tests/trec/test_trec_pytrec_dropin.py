"""skirm.trec.RelevanceEvaluator against pytrec_eval's, dict for dict.

Both evaluators get the same dicts (scores not rounded: the drop-in must
reproduce pytrec_eval's float32 comparison itself) and must return the same
queries, the same measure names and values within 1e-9.
"""

import subprocess

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from _trec_fuzz import as_dicts

from skirm.io import Qrels, Run, read_qrels, read_run
from skirm.trec import RelevanceEvaluator

TOL = 1e-9


def assert_same(ours, theirs):
    """Same queries, same names, values within TOL; returns the value count.

    Where pytrec_eval prints NaN (interpolated precision of a query that
    ``judged_docs_only_flag`` leaves with no document: 0/0 in trec_eval),
    skirm gives 0 or NaN.
    """
    assert sorted(ours) == sorted(theirs)
    n = 0
    for qid, expected in theirs.items():
        got = ours[qid]
        assert sorted(got) == sorted(expected), qid
        for name, value in expected.items():
            assert type(got[name]) is float, (qid, name)
            if np.isnan(value):
                assert name.startswith(("iprec_at_recall", "11pt_avg")), name
                assert got[name] == 0.0 or np.isnan(got[name]), (qid, name)
                continue
            assert abs(got[name] - value) <= TOL, (qid, name, got[name], value)
            n += 1
    return n


def both(qd, rd, measures, **options):
    theirs = pytrec_eval.RelevanceEvaluator(qd, measures, **options).evaluate(rd)
    ours = RelevanceEvaluator(qd, measures, **options).evaluate(rd)
    return ours, theirs


# --------------------------------------------------------------------------
# trec_eval's test files, every pytrec_eval measure
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize(
    "qrels_file, run_file, level, judged_only",
    [
        ("qrels.test", "results.test", 1, False),
        ("qrels.test", "results.test", 1, True),
        ("qrels.test", "results.trunc", 1, False),
        ("qrels.rel_level", "results.test", 1, False),
        ("qrels.rel_level", "results.test", 2, False),
        ("qrels.rel_level", "results.test", 3, True),
    ],
)
def test_trec_eval_test_files(shared_data, qrels_file, run_file, level, judged_only):
    folder = shared_data / "trec_eval-v9.0.8-test"
    qd, rd = as_dicts(read_qrels(folder / qrels_file), read_run(folder / run_file))
    options = {"relevance_level": level, "judged_docs_only_flag": judged_only}
    ours, theirs = both(qd, rd, pytrec_eval.supported_measures, **options)
    n = assert_same(ours, theirs)
    # 95 values per query (93 numbers, runid and relstring)
    assert all(len(v) == 95 for v in theirs.values())
    assert n >= 93 * len(theirs)


# --------------------------------------------------------------------------
# MQ2008: real docids, raw feature values as scores (ties in float32)
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("feature", [0, 4, 10, 39])
@pytest.mark.parametrize("level", [1, 2])
def test_mq2008(mq2008_docs, feature, level):
    labels, qids, docids, features = mq2008_docs
    rng = np.random.default_rng(feature)
    uq = np.unique(qids)
    in_qrels = np.isin(qids, uq[rng.random(uq.shape[0]) > 0.1])
    retrieved = (rng.random(qids.shape[0]) > 0.2) & np.isin(
        qids, uq[rng.random(uq.shape[0]) > 0.1]
    )
    # scores: the feature plus a tiny offset below float32 resolution for
    # some rows: equal for pytrec_eval, not in float64
    scores = features[:, feature] + (rng.random(qids.shape[0]) < 0.3) * 1e-12
    qrels = Qrels(qids[in_qrels], docids[in_qrels], labels[in_qrels])
    run = Run(qids[retrieved], docids[retrieved], scores[retrieved])
    qd, rd = as_dicts(qrels, run)
    ours, theirs = both(qd, rd, pytrec_eval.supported_measures, relevance_level=level)
    assert len(theirs) > 100
    assert assert_same(ours, theirs) >= 93 * len(theirs)


# --------------------------------------------------------------------------
# Seeded random dicts: ties, unjudged, negative labels, one-sided queries
# --------------------------------------------------------------------------


def _random_dicts(seed, empty_queries=False):
    rng = np.random.default_rng(seed)
    qd, rd = {}, {}
    for q in range(40):
        qid = f"{q:02d}" if q % 2 else f"q{rng.integers(100)}_{q}"
        pool = [f"d{i}" for i in rng.permutation(200)[:60]]
        n_judged = int(rng.integers(0, 30))
        if rng.random() > 0.1:
            labels = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=n_judged)
            qd[qid] = dict(zip(pool[:n_judged], labels.tolist(), strict=True))
        if rng.random() > 0.1:
            n_ret = int(rng.integers(1, 50))
            if empty_queries and rng.random() < 0.2:
                n_ret = 0
            docs = rng.choice(pool, size=n_ret, replace=False).tolist()
            scores = (rng.integers(-6, 12, size=n_ret) / 4.0).tolist()
            rd[qid] = dict(zip(docs, scores, strict=True))
    return qd, rd


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    "options",
    [{}, {"relevance_level": 2}, {"judged_docs_only_flag": True}],
)
def test_random_dicts(seed, options):
    qd, rd = _random_dicts(seed)
    ours, theirs = both(qd, rd, pytrec_eval.supported_measures, **options)
    assert assert_same(ours, theirs) > 0


# pytrec_eval crashes (segmentation fault) when many measures meet a query
# of the run with no document, so each measure family is asked alone.
_FAMILIES = [
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "gm_bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "recall",
    "infAP",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "utility.1,2,3,4",
    "set_F.0.5",
]


@pytest.mark.oracle
@pytest.mark.parametrize("measure", _FAMILIES)
@pytest.mark.parametrize(
    "options", [{}, {"relevance_level": 2, "judged_docs_only_flag": True}]
)
def test_run_queries_without_documents(measure, options):
    qd, rd = _random_dicts(11, empty_queries=True)
    empty = [q for q, docs in rd.items() if not docs and q in qd and qd[q]]
    assert len(empty) >= 2
    ours, theirs = both(qd, rd, {measure}, **options)
    assert set(empty) <= set(theirs)
    assert assert_same(ours, theirs) > 0


def test_only_empty_or_unjudged_queries():
    qd = {"q1": {"a": 1, "b": 2}, "q2": {"c": 0}}
    evaluator = RelevanceEvaluator(qd, ["num_rel", "map", "gm_map", "num_q"])
    assert evaluator.evaluate({}) == {}
    assert evaluator.evaluate({"zz": {"a": 1.0}}) == {}
    values = evaluator.evaluate({"q1": {}, "q2": {}, "q3": {}})
    assert values == {
        "q1": {"num_q": 1.0, "num_rel": 2.0, "map": 0.0, "gm_map": np.log(1e-5)},
        "q2": {"num_q": 1.0, "num_rel": 0.0, "map": 0.0, "gm_map": np.log(1e-5)},
    }


def test_an_empty_ranking_has_the_same_values_in_any_order_and_measure_set():
    # pytrec_eval reads memory it has not set for such a query (num_rel 0.0
    # or 2.0 from one process to the next, gm_map 0.0 or log(1e-5) by the
    # dicts' order: docs/user_guide/trec.rst); skirm's values are fixed
    qrels = {"q1": {"d1": 1, "d2": 2, "d3": 0}, "q2": {"d1": 1}}
    expected = {"num_rel": 2.0, "gm_map": np.log(1e-5), "gm_bpref": np.log(1e-5)}
    expected |= {"runid": 0.0, "map": 0.0, "num_ret": 0.0}
    for run in ({"q1": {}, "q2": {"d1": 1.0}}, {"q2": {"d1": 1.0}, "q1": {}}):
        for qrels_order in (qrels, dict(reversed(qrels.items()))):
            values = RelevanceEvaluator(qrels_order, set(expected)).evaluate(run)
            assert values["q1"] == expected
            for name, value in expected.items():  # each measure asked alone
                alone = RelevanceEvaluator(qrels_order, {name}).evaluate(run)
                assert alone["q1"] == {name: value}


# The smallest inputs found on which pytrec_eval-terrier 0.5.11 crashes the
# Python process (a segmentation fault, reproduced in a subprocess): bpref
# asked together with one of map, gm_map, Rprec, num_ret or num_rel, on a
# judged query whose ranking is empty or whose only judgements are negative
# (docs/user_guide/trec.rst). pytrec_eval is not called here; skirm must give
# trec_eval 10.0's values (an empty ranking: its -c lines).
_PYTREC_CRASHES = [
    ({"q": {"d": 1}}, {"q": {}}, {"bpref", "map"}),
    ({"q": {"d": 0}}, {"q": {}}, {"bpref", "map"}),
    ({"q": {"d": 1}}, {"q": {}}, {"bpref", "num_ret"}),
    ({"q": {"d": 1}}, {"q": {}}, {"Rprec", "bpref"}),
    ({"q": {"d": 1}}, {"q": {}}, {"bpref", "gm_map"}),
    ({"\u00e9": {"\u00e9": 1}}, {"\u00e9": {}}, {"bpref", "map"}),
    ({"q": {"d1": 2, "d2": -1, "d3": 1}}, {"q": {}}, {"bpref", "map", "num_rel"}),
    ({"q": {"d": -1}}, {"q": {"x": 1.0}}, {"bpref", "map"}),
    ({"q": {"d": -1}}, {"q": {"d": 1.0}}, {"bpref", "num_rel"}),
    ({"q": {"d": -1}}, {"q": {"x": 1.0, "d": 0.5}}, {"Rprec", "bpref"}),
]


@pytest.mark.oracle
@pytest.mark.parametrize("qrels, run, measures", _PYTREC_CRASHES)
def test_pytrec_eval_crash_inputs_give_trec_eval_values(
    qrels, run, measures, trec_eval_binary, tmp_path
):
    (query,) = qrels
    values = RelevanceEvaluator(qrels, measures).evaluate(run)
    assert list(values) == [query]
    # trec_eval reads files: an empty ranking is a query left out of the run
    # (which holds another one), evaluated as such with -c. The other query
    # is judged too: trec_eval 10.0 refuses qrels without a label >= 0.
    qrels_file, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels_file.write_text(
        "other 0 x 1\n"
        + "".join(f"{query} 0 {d} {g}\n" for d, g in qrels[query].items()),
        encoding="utf-8",
    )
    run_file.write_text(
        "other Q0 x 1 1.0 r\n"
        + "".join(f"{query} Q0 {d} 1 {s} r\n" for d, s in run[query].items()),
        encoding="utf-8",
    )
    flags = [arg for m in sorted(measures) for arg in ("-m", m)]
    done = subprocess.run(
        [trec_eval_binary, "-q", "-c", *flags, str(qrels_file), str(run_file)],
        capture_output=True,
        check=True,
    )
    lines = [line.split("\t") for line in done.stdout.decode("utf-8").splitlines()]
    expected = {name.strip(): float(value) for name, q, value in lines if q == query}
    for name, value in values[query].items():
        if name == "gm_map":  # trec_eval prints it in the summary only
            assert value == np.log(1e-5)  # a per-query logarithm, as pytrec_eval
            continue
        assert value == pytest.approx(expected.pop(name), abs=5e-5), name
    assert expected == {}


# --------------------------------------------------------------------------
# Measure names: pytrec_eval's grammar and merging rules
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize(
    "measures",
    [
        {"map", "ndcg"},
        {"P.5,10"},
        ["P_5", "P"],
        ["P", "P_5", "P.10,20"],
        {"ndcg_cut.3", "ndcg_cut_5", "ndcg_cut"},
        {"iprec_at_recall.0.25,0.5"},
        {"set_F.0.5"},
        {"11pt_avg.0.5,1.0"},
        {"utility.1,2,3,4"},
        {"Rprec_mult.0.5"},
        {"official"},
        {"set"},
        {"all_trec"},
        {"all_trec", "P_7"},
        {"relstring", "runid"},
        {"relstring.5"},
        {"success_1", "recall.7"},
        {"P.5.0"},
        ("map_cut.3", "gm_bpref", "num_nonrel_judged_ret"),
    ],
)
def test_measure_names(measures):
    qd, rd = _random_dicts(3)
    ours, theirs = both(qd, rd, measures)
    assert assert_same(ours, theirs) > 0


def test_a_string_is_one_measure():
    qd, rd = _random_dicts(4)
    values = RelevanceEvaluator(qd, "map").evaluate(rd)
    expected = pytrec_eval.RelevanceEvaluator(qd, ["map"]).evaluate(rd)
    assert values == expected


@pytest.mark.parametrize(
    "measures, error, message",
    [
        (["foo"], ValueError, r"unknown measure 'foo'; pytrec_eval's measures"),
        (["ndcg@10"], ValueError, r"unknown measure 'ndcg@10' \(did you mean"),
        (["P.5,x"], ValueError, r"malformed parameters in 'P.5,x'"),
        (["P.0"], ValueError, r"cutoffs of 'P.0' must be distinct positive"),
        (["map.5"], ValueError, r"measure 'map' takes no parameters"),
        (["set_F.1", "set_F.2"], ValueError, r"'set_F' takes one set of parameters"),
        ([], ValueError, r"`measures` must name at least one measure"),
        ([3], TypeError, r"`measures` must hold strings, got 3"),
        (5, TypeError, r"`measures` must be an iterable of measure names, got int"),
    ],
)
def test_bad_measures(measures, error, message):
    with pytest.raises(error, match=message):
        RelevanceEvaluator({"q": {"d": 1}}, measures)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"`relevance_level` must be an integer >= 1"):
        RelevanceEvaluator({"q": {"d": 1}}, ["map"], relevance_level=0)
    with pytest.raises(TypeError, match=r"`judged_docs_only_flag` must be a bool"):
        RelevanceEvaluator({"q": {"d": 1}}, ["map"], judged_docs_only_flag="yes")
    with pytest.raises(TypeError, match=r"`query_relevance` must be a dict of dicts"):
        RelevanceEvaluator({"q": [1]}, ["map"])
    evaluator = RelevanceEvaluator({"q": {"d": 1}}, ["map"])
    with pytest.raises(TypeError, match=r"`scores`: score values must be numbers"):
        evaluator.evaluate({"q": {"d": "x"}})


def test_other_shapes_give_the_same_dict():
    qd, rd = _random_dicts(6)
    qt = [(q, d, r) for q, docs in qd.items() for d, r in docs.items()]
    rt = [(q, d, s) for q, docs in rd.items() for d, s in docs.items()]
    frame = pd.DataFrame(rt, columns=["query_id", "doc_id", "score"])
    expected = RelevanceEvaluator(qd, ["all_trec"]).evaluate(rd)
    assert RelevanceEvaluator(qt, ["all_trec"]).evaluate(frame) == expected
    assert RelevanceEvaluator(qd, ["all_trec"]).evaluate(rt) == expected


def test_evaluator_is_reusable_and_leaves_inputs_alone():
    qd, rd = _random_dicts(8)
    copies = ({q: dict(v) for q, v in qd.items()}, {q: dict(v) for q, v in rd.items()})
    evaluator = RelevanceEvaluator(qd, {"map", "ndcg"})
    first = evaluator.evaluate(rd)
    assert evaluator.evaluate(rd) == first
    assert (qd, rd) == copies
    assert repr(evaluator) == (
        "RelevanceEvaluator(n_measures=2, relevance_level=1, "
        "judged_docs_only_flag=False)"
    )
    assert "ndcg_cut" in RelevanceEvaluator.supported_measures
    assert RelevanceEvaluator.supported_measures == set(pytrec_eval.supported_measures)
    for name in ("official", "set", "all_trec"):
        assert RelevanceEvaluator.supported_nicknames[name] == set(
            pytrec_eval.supported_nicknames[name]
        )
