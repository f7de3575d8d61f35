"""trec_eval's own conformance suites through ``skirm eval --format trec``.

Each expected output of trec_eval's ``test/`` folder is reproduced with the
same arguments; every line of a measure skirm supports must match byte for
byte (name padding, tabs, 4 decimals), in trec_eval's order:

* trec_eval 10.0's files, kept in ``tests/data/trec_eval`` (with NIST's
  notice), with skirm's default semantics;
* trec_eval 9.0.8's files, from the shared reference data, with
  ``--compat 9.0``.

Every line is compared, ``relstring`` (a string per query) included.
"""

import math
import warnings
from functools import partial

import numpy as np
import pytest
from _data import TREC_EVAL_DATA

from skirm._cli import main
from skirm.io import Qrels, Run
from skirm.metrics import get_metric
from skirm.trec import evaluate_run, trec_measure_names

V10 = TREC_EVAL_DATA

MEAS_PARAMS = (
    "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
    "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
    "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
    "qrels.test results.test"
)

CASES = {
    "out.test": "qrels.test results.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": MEAS_PARAMS,
}
V10_CASES = {
    **CASES,
    "out.test (comments)": "qrels.test.with-comments results.test",
}


def _run_cli(folder, args, capsys, extra=()):
    argv = ["eval", "--format", "trec", *extra]
    for token in args.split():
        argv.append(str(folder / token) if (folder / token).is_file() else token)
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert captured.err == ""
    return captured.out


def _parse(text):
    lines = []
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        lines.append((name.rstrip(), qid, value, line))
    return lines


def _check(folder, expected_file, args, capsys, extra=()):
    expected = _parse((folder / expected_file.split()[0]).read_text())
    got = _parse(_run_cli(folder, args, capsys, extra))
    # Same lines, same order, same bytes (name padding, tabs, 4 decimals).
    assert [e[3] for e in expected] == [g[3] for g in got]


@pytest.mark.oracle
@pytest.mark.parametrize("expected_file", sorted(V10_CASES))
def test_matches_trec_eval_10(expected_file, capsys):
    _check(V10, expected_file, V10_CASES[expected_file], capsys)


@pytest.mark.oracle
@pytest.mark.parametrize("expected_file", sorted(CASES))
def test_matches_trec_eval_9_with_compat(shared_data, expected_file, capsys):
    folder = shared_data / "trec_eval-v9.0.8-test"
    _check(folder, expected_file, CASES[expected_file], capsys, ("--compat", "9.0"))


@pytest.mark.oracle
def test_every_measure_of_the_suite_is_covered():
    """The measures compared above: every one in the files, relstring too."""
    names = set()
    for expected_file in CASES:
        for name, _, _, _ in _parse((V10 / expected_file).read_text()):
            names.add(name)
    assert {"relstring", "relstring_20"} <= names
    assert len(names) > 100


# --------------------------------------------------------------------------
# Hand-checked semantics on small inputs
# --------------------------------------------------------------------------

QRELS = Qrels(
    ["q1", "q1", "q1", "q1", "q2", "q2", "q3"],
    ["d1", "d2", "d3", "d4", "d1", "d5", "d1"],
    [1, 0, -1, 2, 0, 1, 0],
)
RUN = Run(
    ["q1", "q1", "q1", "q1", "q2", "q2", "q9"],
    ["d9", "d1", "d3", "d8", "d5", "d6", "d1"],
    [0.9, 0.8, 0.7, 0.6, 0.5, 0.5, 1.0],
    run_id="hand",
)

# q3 of the qrels is missing from the run: trec_eval 9.0.x skips it, 10.0
# stops on it (unless -c); these hand checks follow 9.0.x.
_evaluate_9 = partial(evaluate_run, QRELS, RUN, compat="9.0")


def test_qrels_query_missing_from_the_run_stops_trec_eval_10():
    with pytest.raises(
        ValueError,
        match=r"1 qrels queries are missing from the run \(e\.g\. \['q3'\]\); "
        r"trec_eval 10\.0 stops on them\. Pass all_queries=True",
    ):
        evaluate_run(QRELS, RUN, "map")


def test_all_queries_scores_missing_queries_in_trec_eval_10():
    result = evaluate_run(
        QRELS,
        RUN,
        ["num_q", "num_ret", "num_rel", "map", "gm_map", "unj_5", "rbp_resid"],
        all_queries=True,
    )
    # q3 is ranked as one unjudged placeholder document, reported with 0
    # documents retrieved (trec_eval 10.0 prints its line with -q).
    assert result.group_ids.tolist() == ["q1", "q2", "q3"]
    assert result.per_query["num_ret"].tolist() == [4.0, 2.0, 0.0]
    assert result.per_query["unj_5"].tolist()[2] == 0.0
    assert result.per_query["map"].tolist() == [0.25, 0.5, 0.0]
    assert result.means["num_q"] == 3 and result.means["num_ret"] == 6
    expected = math.exp((math.log(0.25) + math.log(0.5) + math.log(1e-5)) / 3)
    assert result.means["gm_map"] == pytest.approx(expected)
    assert result.means == _evaluate_9(list(result.means), all_queries=True).means


def test_judged_at_k():
    result = _evaluate_9(["judged.2,3,10", "judged@1"])
    # q1 ranks d9 (unjudged), d1, d3 (negative label: judged), d8 (unjudged);
    # q2 ties d6 and d5: d6 (unjudged) first.
    np.testing.assert_allclose(result.per_query["judged_2"], [1 / 2, 1 / 2])
    np.testing.assert_allclose(result.per_query["judged_3"], [2 / 3, 1 / 2])
    np.testing.assert_allclose(result.per_query["judged_10"], [2 / 4, 1 / 2])
    np.testing.assert_allclose(result.per_query["judged@1"], [0.0, 0.0])


def test_the_registry_judged_counts_negative_labels_as_judged():
    # x is not in the qrels; n has a negative label (judged); a level 1
    qrels = Qrels(["q"] * 3, ["a", "n", "b"], [1, -5, 0])
    run = Run(["q"] * 4, ["x", "a", "n", "b"], [4.0, 3.0, 2.0, 1.0])
    expected = {"judged@1": 0.0, "judged@2": 0.5, "judged@4": 0.75}
    assert evaluate_run(qrels, run, list(expected)).means == expected
    # the registry's metric, given as an object, reads the ranking's judged
    metrics = [get_metric(name) for name in expected]
    assert evaluate_run(qrels, run, metrics).means == expected


def test_ties_in_score_go_by_docno_descending_in_every_block():
    # two tie blocks: (a, b) at 2 and (c, z) at 1: ranked b, a, z, c
    qrels = Qrels(["q", "q"], ["a", "c"], [1, 1])
    run = Run(["q"] * 4, ["a", "b", "c", "z"], [2.0, 2.0, 1.0, 1.0])
    result = evaluate_run(qrels, run, ["relstring", "recip_rank", "map"])
    assert result.per_query["relstring"].tolist() == ["-1-1"]  # - unjudged
    assert result.means["recip_rank"] == 0.5
    assert result.means["map"] == pytest.approx((1 / 2 + 2 / 4) / 2)


@pytest.mark.parametrize("tie_rows", [3, 1 << 18])
def test_long_tie_blocks_go_by_docno_descending_range_by_range(monkeypatch, tie_rows):
    # the tied rows are put by docno a range of whole tie blocks at a time:
    # any range gives the order of one sort by (score descending, docno
    # descending in byte order), docnos of several widths and prefixes
    import skirm._engine._rank

    monkeypatch.setattr(skirm._engine._rank, "TIE_ROWS", tie_rows)
    rng = np.random.default_rng(7)
    names = sorted({f"d{int(i)}" for i in rng.integers(0, 10**6, 300)})
    names += ["d", "d1", "d10", "d100", "D", "clueweb09-en0000-00-00000"]
    q, d, s = [], [], []
    for query, size in (("q1", 80), ("q2", 250), ("q3", 1)):
        docs = rng.choice(names, size, replace=False)
        q += [query] * size
        d += docs.tolist()
        s += rng.choice([3.0, 1.5, 0.0, -1.0], size).tolist()
    labels = rng.integers(-1, 12, len(d))
    qrels = Qrels(q, d, labels)
    result = evaluate_run(qrels, Run(q, d, s), "relstring.1000")
    got = dict(zip(("q1", "q2", "q3"), result.per_query["relstring_1000"], strict=True))
    level = {(a, b): int(c) for a, b, c in zip(q, d, labels, strict=True)}
    for query in ("q1", "q2", "q3"):
        rows = [(-sc, doc) for qq, doc, sc in zip(q, d, s, strict=True) if qq == query]
        # docno descending within a score: sort ascending on the negated bytes
        rows.sort(key=lambda r: (r[0], [-b for b in r[1].encode()] + [1]))
        chars = [
            ">"
            if level[query, doc] > 9
            else str(max(level[query, doc], 0))
            if level[query, doc] >= 0
            else "."
            for _, doc in rows
        ]
        assert got[query] == "".join(chars)


def test_compat_9_rounds_scores_to_floats_silently():
    # 1e300 and 1e299 are both inf as C floats: tied, then b before a
    qrels = Qrels(["q"], ["a"], [1])
    run = Run(["q", "q"], ["a", "b"], [1e300, 1e299])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate_run(qrels, run, "recip_rank").means["recip_rank"] == 1.0
        nine = evaluate_run(qrels, run, "recip_rank", compat="9.0")
    assert nine.means["recip_rank"] == 0.5


def test_max_docs_then_judged_only():
    # trec_eval -M 2 -J: the top 2 (x, a), then the judged ones: a alone
    qrels = Qrels(["q"] * 3, ["a", "b", "c"], [1, 1, 1])
    run = Run(["q"] * 4, ["x", "a", "b", "c"], [5.0, 4.0, 3.0, 2.0])
    names = ["num_ret", "num_rel_ret"]
    result = evaluate_run(qrels, run, names, max_docs=2, judged_only=True)
    assert result.means == {"num_ret": 1.0, "num_rel_ret": 1.0}


def test_skirm_metrics_read_the_run_cut_at_max_docs():
    qrels = Qrels(["q"] * 3, ["a", "b", "c"], [2, 1, 1])
    run = Run(["q"] * 4, ["a", "b", "x", "c"], [4.0, 3.0, 2.0, 1.0])
    top2 = Run(["q"] * 2, ["a", "b"], [4.0, 3.0])
    names = ["compat", "judged@3", "ndcg@3"]
    cut = evaluate_run(qrels, run, names, max_docs=2)
    assert cut.means == pytest.approx(evaluate_run(qrels, top2, names).means)
    assert cut.means["compat"] != evaluate_run(qrels, run, names).means["compat"]


def test_a_repeated_docno_is_named_at_its_lines_whatever_the_ranking(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 1.0 r\nq Q0 b 2 3.0 r\nq Q0 a 3 2.0 r\n")
    message = r"run:3: duplicate docno 'a' for query 'q' \(first at line 1\)"
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q"], ["a"], [1]), path, "map")


def test_rbp_and_its_residual_by_hand():
    qrels = Qrels(
        ["qa", "qa", "qa", "qb", "qb"], ["a", "b", "c", "x", "y"], [3, 0, 1, 1, 0]
    )
    run = Run(
        ["qa", "qa", "qa", "qb", "qb"], ["a", "u", "c", "x", "y"], [3, 2, 1, 2, 1]
    )
    result = evaluate_run(qrels, run, ["rbp", "rbp_resid"])
    # qa: gains level / 3 (its largest level exceeds 1): a 1 at rank 1, the
    # unjudged u at rank 2, c 1/3 at rank 3; qb: x 1 at rank 1 (level as gain)
    np.testing.assert_allclose(
        result.per_query["rbp"], [0.1 * (1 + 0.9**2 / 3), 0.1], rtol=1e-12
    )
    # qa: p ** num_ret plus the weight of u; qb judges every document: 0
    np.testing.assert_allclose(
        result.per_query["rbp_resid"], [0.9**3 + 0.1 * 0.9, 0.0], rtol=1e-12
    )


def test_ndcg_with_gains_by_hand():
    """Gains for levels 0, 2 and 3 (3 above every judged level), level 1 its
    own gain, a negative level none."""
    qrels = Qrels(["q"] * 4, ["a", "b", "c", "d"], [2, 0, -1, 1])
    run = Run(["q"] * 4, ["b", "a", "c", "e"], [4.0, 3.0, 2.0, 1.0])
    result = evaluate_run(qrels, run, ["ndcg.0=0.5,2=2.5,3=1.5"])
    dcg = 0.5 + 2.5 / math.log2(3)  # b, a; c (negative) and e (unjudged) 0
    ideal = 2.5 + 1 / math.log2(3) + 0.5 / math.log2(4)  # a, d, b; c 0
    np.testing.assert_allclose(
        result.per_query["ndcg_0=0.5,2=2.5,3=1.5"], [dcg / ideal], rtol=1e-12
    )


def test_relstring_of_levels_around_9():
    qrels = Qrels(["q"] * 5, ["a", "b", "c", "d", "e"], [9, 10, 3, 0, -1])
    run = Run(["q"] * 6, ["a", "b", "c", "d", "e", "u"], [6, 5, 4, 3, 2, 1])
    result = evaluate_run(qrels, run, ["relstring"])
    assert result.per_query["relstring"].tolist() == ["9>30.-"]


def test_skirm_names_take_the_relevance_level_unless_they_set_one():
    qrels = Qrels(["q1"] * 4 + ["q2"], ["a", "b", "c", "e", "d"], [2, 1, 0, 1, 0])
    run = Run(["q1", "q1", "q1", "q2"], ["b", "a", "c", "d"], [3.0, 2.0, 1.0, 1.0])
    names = ["precision@1", "P(rel=1)@1", "ndcg@3", "P_1"]
    result = evaluate_run(qrels, run, names, relevance_level=2)
    # q1 ranks b (level 1) first: not relevant at level 2, relevant at rel=1
    assert result.per_query["precision@1"].tolist() == [0.0, 0.0]
    assert result.per_query["P_1"].tolist() == [0.0, 0.0]
    assert result.per_query["P(rel=1)@1"].tolist() == [1.0, 0.0]
    # graded gains; q2 has nothing relevant: 0
    ideal = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    np.testing.assert_allclose(
        result.per_query["ndcg@3"], [(1 + 2 / math.log2(3)) / ideal, 0.0], rtol=1e-12
    )


def test_utility_with_every_coefficient_and_a_collection_size():
    qrels = Qrels(["q1"] * 4 + ["q2"], ["a", "b", "c", "e", "d"], [2, 1, 0, 1, 0])
    run = Run(["q1", "q1", "q1", "q2"], ["b", "a", "c", "d"], [3.0, 2.0, 1.0, 1.0])
    result = evaluate_run(qrels, run, ["utility.1,2,3,4"], collection_size=50)
    # q1: 2 relevant retrieved, 1 not relevant retrieved, 1 relevant missed,
    # 50 + 2 - 3 - 3 = 46 others; q2: 0, 1, 0 and 49
    assert result.per_query["utility_1,2,3,4"].tolist() == [
        1 * 2 + 2 * 1 + 3 * 1 + 4 * 46,
        2 * 1 + 4 * 49,
    ]


def test_the_sum_of_no_query_is_zero():
    from skirm.trec._measures import summarize

    assert summarize("sum", np.zeros(0), 0, 0) == 0.0
    assert summarize("sum", np.array([0.1, 0.2, 0.3]), 3, 0) == (0.1 + 0.2) + 0.3


def test_queries_and_counts():
    result = _evaluate_9(["num_q", "num_ret", "num_rel", "map"])
    # q9 is not in the qrels: ignored; q3 is not in the run: skipped.
    assert result.group_ids.tolist() == ["q1", "q2"]
    assert result.means["num_q"] == 2 and result.means["num_ret"] == 6
    assert result.means["num_rel"] == 3  # summed: d1, d4 for q1; d5 for q2
    # q1: d1 relevant at rank 2, d4 never retrieved: AP = (1/2) / 2
    # q2: d5 (relevant) loses the tie to d6: AP = 1/2
    np.testing.assert_allclose(result.per_query["map"], [0.25, 0.5])
    assert result.means["map"] == pytest.approx(0.375)
    assert result.run_id == "hand"


def test_all_queries_counts_missing_queries_as_zero():
    result = _evaluate_9(["num_q", "map", "gm_map", "num_rel"], all_queries=True)
    assert result.group_ids.tolist() == ["q1", "q2"]  # no per-query values for q3
    assert result.means["num_q"] == 3
    assert result.means["map"] == pytest.approx(0.75 / 3)
    expected = math.exp((math.log(0.25) + math.log(0.5) + math.log(1e-5)) / 3)
    assert result.means["gm_map"] == pytest.approx(expected)
    assert result.means["num_rel"] == 3  # recounted over the qrels, rel > 0


def test_all_queries_recounts_num_rel_whatever_the_relevance_level():
    # trec_eval -c -l 2 prints num_rel 3 for these: the summary counts every
    # qrels topic's judgements above 0, the per-query values those at -l
    qrels = Qrels(["q1", "q1", "q2", "q2"], ["d1", "d2", "d3", "d4"], [2, 1, 1, 0])
    run = Run(["q1", "q1"], ["d1", "d2"], [2.0, 1.0])
    names = ["num_rel", "num_rel_ret"]
    result = evaluate_run(qrels, run, names, all_queries=True, relevance_level=2)
    assert result.per_query["num_rel"].tolist() == [1.0, 0.0]
    assert result.means == {"num_rel": 3.0, "num_rel_ret": 1.0}


def test_relevance_level_judged_only_and_max_docs():
    level2 = _evaluate_9(["num_rel", "P_5", "ndcg"], relevance_level=2)
    assert level2.per_query["num_rel"].tolist() == [1.0, 0.0]  # only d4 of q1
    assert level2.per_query["P_5"].tolist() == [0.0, 0.0]
    default = _evaluate_9(["ndcg"])
    # -l does not change ndcg's gains
    np.testing.assert_array_equal(level2.per_query["ndcg"], default.per_query["ndcg"])
    judged = _evaluate_9(["num_ret", "recip_rank"], judged_only=True)
    # -J drops d9, d8 (not in the qrels) and d3 (negative label) from q1
    assert judged.per_query["num_ret"].tolist() == [1.0, 1.0]
    assert judged.per_query["recip_rank"].tolist() == [1.0, 1.0]
    top1 = _evaluate_9(["num_ret", "P_1"], max_docs=1)
    assert top1.per_query["num_ret"].tolist() == [1.0, 1.0]
    assert top1.per_query["P_1"].tolist() == [0.0, 0.0]


def test_measure_names():
    names = ["P_2", "P.2", "P@2", "precision@2", "ndcg@3", "ndcg_cut.3", "rprec"]
    result = _evaluate_9(names)
    # trec names in trec_eval's order (P.2 is P_2 again), then skirm names
    assert list(result.means) == [
        "P_2",
        "P@2",
        "ndcg_cut_3",
        "precision@2",
        "ndcg@3",
        "rprec",
    ]
    assert result.means["P_2"] == result.means["P@2"] == result.means["precision@2"]
    # trec_eval's ndcg_cut adds its terms as trec_eval does (its doubles);
    # skirm's ndcg@3 is the array kernel's (skirm.metrics.ndcg_score's)
    assert result.means["ndcg_cut_3"] == pytest.approx(result.means["ndcg@3"], 1e-15)
    assert "bpref" in trec_measure_names() and "relstring" in trec_measure_names()


@pytest.mark.parametrize(
    "metrics, error, message",
    [
        ("nope", ValueError, "unknown measure 'nope'; valid trec_eval names"),
        ("map_avgjg", ValueError, "needs rel_format='qrels_jg'"),
        ("P.0,5", ValueError, "must be distinct positive integers"),
        ("P.5,5", ValueError, "must be distinct positive integers"),
        ("map.5", ValueError, "measure 'map' takes no parameters"),
        ("utility.1,2", ValueError, "utility takes 4 coefficients"),
        ("ndcg.1-3", ValueError, "expected level=gain pairs"),
        ([], ValueError, "`metrics` must name at least one measure"),
    ],
)
def test_bad_measure_names(metrics, error, message):
    with pytest.raises(error, match=message):
        _evaluate_9(metrics)


def test_bad_arguments():
    with pytest.raises(ValueError, match="`relevance_level` must be an integer >= 1"):
        _evaluate_9("map", relevance_level=0)
    with pytest.raises(TypeError, match="`max_docs` must be a positive integer"):
        _evaluate_9("map", max_docs=2.5)
    with pytest.raises(ValueError, match="`max_docs` must be a positive integer"):
        _evaluate_9("map", max_docs=0)
    with pytest.raises(ValueError, match="no query of the run appears in the qrels"):
        evaluate_run(QRELS, Run(["zz"], ["d1"], [1.0]), "map")


@pytest.mark.oracle
@pytest.mark.parametrize(
    "expected_file", ["out.test.aq", "out.test.aqcM", "out.test.aql"]
)
@pytest.mark.parametrize("queries", [1, 2, 3])
def test_per_query_lines_written_a_few_queries_at_a_time(
    monkeypatch, expected_file, queries, capsys
):
    """The per-query lines are formatted ``LINES_QUERIES`` queries at a time
    (a run of many queries is never held as text whole): any piece size
    gives trec_eval's bytes, relstring and integer measures included."""
    import skirm._cli._formats

    monkeypatch.setattr(skirm._cli._formats, "LINES_QUERIES", queries)
    _check(V10, expected_file, V10_CASES[expected_file], capsys)
