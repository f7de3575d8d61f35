"""Ranked id lists and relevant sets: same numbers as the equivalent rows.

Differential tests: lists whose ground truth is all listed give exactly the
row API's values on the rows ``to_rows()`` builds; with relevant ids missing
from the lists, pytrec_eval (run = the lists, qrels = the ground truth) is
the oracle, since R and the ideal DCG then count the missing ids.
"""

import numpy as np
import pytest
from _impressions import reads_probabilities

from skirm.metrics import (
    RankedLists,
    evaluate,
    from_lists,
    get_metric,
    metric_names,
    ndcg_score,
    recall_at_k_score,
)
from skirm.metrics._registry import not_held

#: The metrics of probabilities read scores that lists do not have (a list
#: gives positions): test_impressions.py covers them.
ALL_METRICS = [
    name.replace("@k", "@3")
    for name in metric_names()
    if not name.startswith("r@") and not reads_probabilities(name)
]


def _lists(seed, n_queries=30, n_items=40, depth=12, all_listed=False, graded=True):
    rng = np.random.default_rng(seed)
    ranked, truth = [], []
    for _ in range(n_queries):
        size = int(rng.integers(0, depth + 1))
        items = rng.choice(n_items, size=size + 5, replace=False)
        ranked.append(items[:size].tolist())
        pool = items[:size] if all_listed else items
        chosen = pool[rng.random(pool.shape[0]) < 0.35]
        grades = rng.integers(0, 4, size=chosen.shape[0])
        if graded:
            truth.append(dict(zip(chosen.tolist(), grades.tolist(), strict=True)))
        else:
            truth.append(set(chosen[grades > 0].tolist()))
    if not any(ranked):
        ranked[0] = [0]
    return ranked, truth


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("graded", [True, False])
@pytest.mark.parametrize("unjudged", ["nonrelevant", "condensed"])
def test_lists_give_the_row_api_values(seed, graded, unjudged):
    # Listed ids a graded dict does not name are unjudged: NaN in the rows.
    ranked, truth = _lists(seed, all_listed=True, graded=graded)
    lists = from_lists(ranked, truth)
    y_true, y_score, groups = lists.to_rows()
    keep = np.isin(np.arange(len(ranked)), groups)  # empty lists have no rows
    from_rows = evaluate(
        y_true, y_score, groups=groups, metrics=ALL_METRICS, unjudged=unjudged
    )
    from_sets = evaluate(truth, ranked, metrics=ALL_METRICS, unjudged=unjudged)
    np.testing.assert_array_equal(from_sets.group_ids, np.arange(len(ranked)))
    for name in ALL_METRICS:
        np.testing.assert_allclose(
            from_sets.per_query[name][keep],
            from_rows.per_query[name],
            rtol=1e-13,
            atol=1e-15,
            err_msg=name,
        )
        left = from_sets.per_query[name][~keep]  # the queries of empty lists
        if get_metric(name).spec.name in not_held("no_relevant"):
            # Undefined there: the metric's one_class (NaN for "skip").
            assert np.all(np.isnan(left) | (left == 1.0)), name
        else:
            assert np.all(left == 0.0)


def _as_trec(ranked, truth):
    qrels, run = {}, {}
    for q, (items, judged) in enumerate(zip(ranked, truth, strict=True)):
        if isinstance(judged, dict):
            qrels[str(q)] = {f"d{i}": int(g) for i, g in judged.items()}
        else:
            qrels[str(q)] = {f"d{i}": 1 for i in judged}
        # Distinct descending scores: rank = position.
        run[str(q)] = {f"d{i}": float(len(items) - p) for p, i in enumerate(items)}
    return qrels, run


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_missing_relevant_ids_count_like_qrels_in_trec_eval(seed):
    import pytrec_eval

    ranked, truth = _lists(seed)
    qrels, run = _as_trec(ranked, truth)
    measures = {
        "P.5",
        "recall.5,10",
        "ndcg",
        "ndcg_cut.5",
        "map",
        "recip_rank",
        "Rprec",
    }
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = {
        "P_5": "P.5",
        "recall_5": "recall.5",
        "recall_10": "recall.10",
        "ndcg": "ndcg",
        "ndcg_cut_5": "ndcg_cut.5",
        "map": "map",
        "recip_rank": "recip_rank",
        "Rprec": "Rprec",
    }
    result = evaluate(truth, ranked, metrics=list(names.values()))
    # pytrec_eval leaves out queries with an empty run or no judgement.
    compared = 0
    for q in range(len(ranked)):
        if str(q) not in expected:
            continue
        compared += 1
        for trec, name in names.items():
            assert result.per_query[name][q] == pytest.approx(
                expected[str(q)][trec], abs=1e-12
            ), (name, q)
    assert compared >= len(ranked) // 2


def test_groups_label_the_lists_and_sample_weight_follows_them():
    ranked = [["a", "b"], ["c"], ["d", "e"]]
    truth = [{"b"}, {"c"}, {"x"}]
    result = evaluate(
        truth,
        ranked,
        groups=["u3", "u1", "u2"],
        metrics=["mrr"],
        sample_weight=[1.0, 2.0, 3.0],
    )
    assert result.group_ids.tolist() == ["u1", "u2", "u3"]
    assert result.per_query["mrr"].tolist() == [1.0, 0.0, 0.5]
    assert result["mrr"] == pytest.approx((2 * 1.0 + 3 * 0.0 + 1 * 0.5) / 6)


def test_padded_2d_ids_and_dataframe_list_columns():
    pd = pytest.importorskip("pandas")
    ranked = [[4, 2, 7], [1], [3, 5]]
    truth = [{2: 1, 9: 2}, {1: 1}, {8: 1}]
    padded = np.array([[4, 2, 7], [1, -1, -1], [3, 5, -1]])
    frame = pd.DataFrame({"pred": ranked, "truth": truth})
    expected = evaluate(truth, ranked, metrics=["ndcg@2", "recall"]).per_query
    for y_pred, y_true, padding in [
        (padded, truth, -1),
        (frame["pred"], frame["truth"], None),
        (np.array(ranked, dtype=object), np.array(truth, dtype=object), None),
    ]:
        lists = from_lists(y_pred, y_true, padding=padding)
        got = evaluate(lists, None, metrics=["ndcg@2", "recall"]).per_query
        for name, values in expected.items():
            np.testing.assert_array_equal(got[name], values)


def test_string_ids_relevant_sets_and_a_lists_object_everywhere():
    ranked = [["a", "b", "c"], ["x", "y"]]
    relevant = [{"a", "c", "z"}, {"y"}]
    lists = from_lists(ranked, relevant)
    assert isinstance(lists, RankedLists)
    assert repr(lists) == "RankedLists(n_queries=2, n_listed=5, n_judged=4)"
    # recall@2: q0 finds 'a' of {a, c, z}; q1 finds 'y'.
    assert recall_at_k_score(lists, None, k=2) == pytest.approx((1 / 3 + 1) / 2)
    assert recall_at_k_score(relevant, ranked, k=2) == pytest.approx((1 / 3 + 1) / 2)
    # The ideal DCG counts 'z': q0's ideal has three relevant items.
    ideal = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    dcg = 1 + 1 / np.log2(4)
    assert ndcg_score(relevant[:1], ranked[:1]) == pytest.approx(dcg / ideal)


def test_inputs_are_not_modified():
    ranked = [[3, 1, 2], [5]]
    truth = [{1: 2, 9: 1}, {5: 1}]
    padded = np.array([[3, 1], [5, -1]])
    before = ([list(r) for r in ranked], [dict(t) for t in truth], padded.copy())
    evaluate(truth, ranked, metrics=["ndcg"])
    from_lists(padded, truth, padding=-1)
    assert (ranked, truth) == before[:2]
    np.testing.assert_array_equal(padded, before[2])


@pytest.mark.parametrize(
    "y_pred, y_true, kwargs, error, message",
    [
        (
            [[1, 1]],
            [{1}],
            {},
            ValueError,
            r"`y_pred` ranked list 0 names the same id twice",
        ),
        (
            [[1], {2, 3}],
            [{1}, {2}],
            {},
            TypeError,
            r"`y_pred` .* item 1 is \{2, 3\}.*a set has no order",
        ),
        (
            [[1]],
            [{1}, {2}],
            {},
            ValueError,
            r"one ground truth per ranked list: expected 1, got 2",
        ),
        (
            [[1]],
            [{1: -1}],
            {},
            ValueError,
            r"grades of `y_true` must be finite and non-negative, got -1",
        ),
        (
            [[1], [2]],
            [{1: 1}, {2}],
            {},
            TypeError,
            r"only sets .* or only \{id: grade\} dicts, got a mix",
        ),
        (
            [[1], [2]],
            [{1: "a"}, {2: 1}],
            {},
            TypeError,
            r"grades of `y_true` .* must be real numbers",
        ),
        ([[], []], [{1}, {2}], {}, ValueError, r"every list is empty"),
        ([], [], {}, ValueError, r"at least one ranked list"),
        (
            "abc",
            [{1}],
            {},
            TypeError,
            r"`y_pred` must be a sequence of ranked id lists",
        ),
        ([[1]], {1}, {}, TypeError, r"`y_true` must be a sequence with one set"),
        ([[1, "a"]], [{1}], {}, TypeError, r"mutually comparable"),
        (
            [[1.5]],
            [{1}],
            {},
            TypeError,
            r"ids must be ints or strings, got the float 1.5",
        ),
        (
            np.array([[1, -1, 2]]),
            [{1}],
            {"padding": -1},
            ValueError,
            r"row 0 has an id after the padding -1",
        ),
        (
            [[1]],
            [{1}],
            {"padding": -1},
            ValueError,
            r"`padding` is only for a 2-D array",
        ),
        (
            [[1], [2]],
            [{1}, {2}],
            {"groups": ["a", "a"]},
            ValueError,
            r"one distinct label per query, got 'a' twice",
        ),
        (
            [[1]],
            [{1}],
            {"groups": ["a", "b"]},
            ValueError,
            r"`groups` must have one label per row: expected length 1, got 2",
        ),
    ],
)
def test_bad_lists_name_the_argument(y_pred, y_true, kwargs, error, message):
    with pytest.raises(error, match=message):
        from_lists(y_pred, y_true, **kwargs)


def test_lists_object_takes_no_scores_or_groups():
    lists = from_lists([[1]], [{1}])
    with pytest.raises(ValueError, match=r"`y_score` and `groups` must be None"):
        ndcg_score(lists, [1.0])
    with pytest.raises(TypeError, match=r"`y_score` must hold the ranked id lists"):
        ndcg_score([{1}], None)
    with pytest.raises(
        ValueError,
        match=r"`sample_weight` must be 1-D with one weight per row \(length 1\)",
    ):
        ndcg_score(lists, None, sample_weight=[1.0, 2.0])


@pytest.mark.parametrize("seed", range(3))
def test_full_lists_of_one_length_give_the_row_api_values(seed):
    rng = np.random.default_rng(seed)
    ranked = np.array([rng.choice(50, size=8, replace=False) for _ in range(20)])
    truth = [
        dict(zip(row[:5].tolist(), rng.integers(0, 3, size=5).tolist(), strict=True))
        for row in ranked
    ]
    lists = from_lists(ranked, truth)
    assert lists.sizes.tolist() == [8] * 20
    rows = evaluate(
        *lists.to_rows()[:2],
        groups=lists.to_rows()[2],
        metrics=["ndcg", "map"],
        unjudged="nonrelevant",
    )
    sets = evaluate(lists, None, metrics=["ndcg", "map"])
    for name in ("ndcg", "map"):
        np.testing.assert_array_equal(sets.per_query[name], rows.per_query[name])
    with pytest.raises(
        ValueError, match=r"`y_pred` ranked list 1 names the same id twice"
    ):
        from_lists(np.array([[1, 2], [3, 3]]), [{1}, {3}])


def test_mixed_number_ids_are_not_cast_to_ints():
    # Regression: a list starting with an int was read straight into int64,
    # which turned the float 2.5 into the id 2 and the string "2" into 2.
    with pytest.raises(TypeError, match=r"got the float 2\.5"):
        from_lists([[1, 2.5]], [{2}])
    with pytest.raises(TypeError, match=r"mutually comparable"):
        from_lists([[1, "2"]], [{2}])
    # Whole floats, numpy ints and bools are the same ids as the ints.
    lists = from_lists([[1, np.int64(2), 3.0]], [{2: 2, 3: 1}])
    assert lists.labels.tolist() == [0.0, 2.0, 1.0]


def test_ints_among_string_ids_are_not_taken_as_strings():
    # Regression: numpy turned the int 1 among strings into "1", which then
    # matched the relevant id "1" (and 1 matched "1" across two lists).
    with pytest.raises(TypeError, match=r"`y_pred` mixes them"):
        from_lists([[1, "a"]], [{"1"}])
    with pytest.raises(TypeError, match=r"`y_pred` mixes them"):
        from_lists([[1], ["a"]], [{1}, {"a"}])
    # Strings alone, numpy's too, are ids as before.
    lists = from_lists([["1", np.str_("a")]], [{"a"}])
    assert lists.labels.tolist() == [0.0, 1.0]


def test_float_ids_beyond_int64_are_refused():
    # Regression: whole floats were cast to int64, which sent every float of
    # 2**63 or more to the same wrapped value: 1e20 matched the relevant id
    # -1e20, and 1e20 and 2e20 were the same id twice.
    cases = [
        ([[1e20]], [{-1e20}]),
        ([[1.0, 2e20]], [{1}]),
        ([[2.0**63]], [{-(2**63)}]),  # the first float int64 does not hold
        ([[1e19]], [{1}]),  # between 2**63 and 2**64
    ]
    for ranked, relevant in cases:
        with pytest.raises(TypeError, match=r"ids must be ints or strings, got"):
            from_lists(ranked, relevant)
    lists = from_lists([[2.0**62, -(2.0**62)]], [{2**62}])
    assert lists.labels.tolist() == [1.0, 0.0]


def test_compat_counts_listed_items_ahead_of_the_relevant_ids_missed():
    # Regression: the ranking of lists scored its rows by minus their
    # position, 0 and below, which the compat measure takes as scored no
    # higher than the unjudged: 'z' (missed) was put ahead of 'b' (listed
    # first) in the ideal ranking. The same run in TREC form, and
    # ir_measures, put 'b' first: 0.75641...
    from skirm.trec import evaluate_run

    truth = [{"b": 1, "z": 1}, {"c": 2, "x": 2, "y": 1}]
    ranked = [["b", "a"], ["d", "c", "y"]]
    got = evaluate(truth, ranked, metrics=["compat"], ties="first").per_query
    qrels = {str(q): judged for q, judged in enumerate(truth)}
    run = {
        str(q): {doc: float(len(items) - p) for p, doc in enumerate(items)}
        for q, items in enumerate(ranked)
    }
    expected = evaluate_run(qrels, run, metrics=["compat"]).per_query["compat"]
    np.testing.assert_allclose(got["compat"], expected, rtol=1e-14)
    assert got["compat"][0] == pytest.approx(0.7564102564102565, abs=1e-15)


def test_to_rows_scores_are_minus_the_position():
    lists = from_lists([["a", "b", "c"], ["x"], ["y", "z"]], [{"b"}, set(), {"z"}])
    y_true, y_score, groups = lists.to_rows()
    assert y_true.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    assert y_score.tolist() == [0.0, -1.0, -2.0, 0.0, 0.0, -1.0]
    assert not np.signbit(y_score[[0, 3, 4]]).any()  # 0.0, not -0.0
    assert groups.tolist() == [0, 0, 0, 1, 2, 2]


def test_weights_follow_the_lists_when_groups_reorder_them():
    ranked = [["a"], ["b"], ["c"]]
    truth = [{"a"}, set(), set()]
    # Sorted labels: u1 (the second list), u2 (the third), u3 (the first).
    result = evaluate(
        truth,
        ranked,
        groups=["u3", "u1", "u2"],
        metrics=["P@1"],
        sample_weight=[5.0, 1.0, 1.0],
        no_relevant=0.0,
    )
    assert result.per_query["P@1"].tolist() == [0.0, 0.0, 1.0]
    assert result["P@1"] == pytest.approx(5.0 / 7.0)
    lists = from_lists(ranked, truth, groups=["u3", "u1", "u2"])
    assert lists.group_ids.tolist() == ["u1", "u2", "u3"]
    assert lists.labels.tolist() == [0.0, 0.0, 1.0]
    assert ndcg_score(lists, None, sample_weight=[5.0, 1.0, 1.0]) == pytest.approx(
        5.0 / 7.0
    )


def test_groups_already_in_order_keep_the_lists():
    lists = from_lists([["a", "b"], ["c"]], [{"b"}, {"c"}], groups=["u1", "u2"])
    assert lists.group_ids.tolist() == ["u1", "u2"]
    assert lists.sizes.tolist() == [2, 1]
    assert lists.labels.tolist() == [0.0, 1.0, 1.0]
    assert lists.judged_codes.tolist() == [0, 1]


def test_one_listed_or_one_judged_id_is_matched():
    assert from_lists([["a"]], [{"a"}]).labels.tolist() == [1.0]
    assert from_lists([["a", "b"]], [{"b": 3}]).labels.tolist() == [0.0, 3.0]
    assert from_lists([[5]], [set()]).labels.tolist() == [0.0]


def test_ground_truth_as_a_2d_id_array():
    ranked = [[1, 2, 3], [4, 5]]
    lists = from_lists(ranked, np.array([[3, 9], [4, 6]]))
    assert lists.labels.tolist() == [0.0, 0.0, 1.0, 1.0, 0.0]
    assert lists.judged_labels.tolist() == [1.0] * 4


def test_nan_and_string_padding():
    nan = np.nan
    floats = np.array([[3.0, 1.0, nan], [2.0, nan, nan]])
    lists = from_lists(floats, [{1}, {2}], padding=nan)
    assert lists.sizes.tolist() == [2, 1]
    assert lists.labels.tolist() == [0.0, 1.0, 1.0]
    objects = np.array([["a", "b"], ["c", nan]], dtype=object)
    lists = from_lists(objects, [{"b"}, {"c"}], padding=nan)
    assert lists.sizes.tolist() == [2, 1]
    assert lists.labels.tolist() == [0.0, 1.0, 1.0]
    strings = np.array([["a", "b"], ["c", ""]])
    lists = from_lists(strings, [{"b"}, {"c"}], padding="")
    assert lists.sizes.tolist() == [2, 1]
    assert lists.labels.tolist() == [0.0, 1.0, 1.0]


def test_ids_beyond_the_float_precision_stay_distinct():
    big = 2**53
    lists = from_lists([[big, big + 1]], [{big + 1: 2}])
    assert lists.labels.tolist() == [0.0, 2.0]


@pytest.mark.parametrize("seed", range(3))
def test_lists_of_very_different_lengths_match_a_dict_lookup(seed):
    # One long list among many short ones: the keys are sorted in one
    # argsort rather than in padded lines.
    rng = np.random.default_rng(seed)
    sizes = [3000, *rng.integers(0, 4, size=300).tolist()]
    ranked, truth = [], []
    for size in sizes:
        items = rng.choice(10_000, size=size, replace=False)
        ranked.append(items.tolist())
        judged = rng.choice(10_000, size=size // 2 + 1, replace=False)
        truth.append({int(i): int(g) for i, g in zip(judged, judged % 3, strict=True)})
    lists = from_lists(ranked, truth)
    expected = [truth[q].get(i, 0) for q, items in enumerate(ranked) for i in items]
    assert lists.labels.tolist() == expected


def test_a_2d_array_without_columns_holds_empty_lists():
    # Regression: the padding's first cell was looked for in rows of no
    # cell, and numpy's "attempt to get argmax of an empty sequence" came out.
    with pytest.raises(ValueError) as info:
        from_lists(np.empty((2, 0), dtype=np.int64), [{1}, {2}], padding=-1)
    assert str(info.value) == "`y_pred` must hold at least one id: every list is empty"


def test_an_id_absent_from_a_graded_dict_is_unjudged():
    # 'b' is listed but its query's dict does not name it: unjudged, as a
    # document missing from qrels (trec_eval -J drops it; ir_measures'
    # Judged@1 is 0). Before, the dict's absent ids were read as judged.
    lists = from_lists([["b", "a"]], [{"a": 1, "c": 0}])
    np.testing.assert_array_equal(lists.judged, [False, True])
    condensed = evaluate(lists, None, metrics=["mrr", "judged@1"], unjudged="condensed")
    assert condensed.means == {"mrr": 1.0, "judged@1": 1.0}
    kept = evaluate(lists, None, metrics=["mrr", "judged@1"])
    assert kept.means == {"mrr": 0.5, "judged@1": 0.0}
    np.testing.assert_array_equal(kept.n_unjudged, [1])
    y_true, _, _ = lists.to_rows()
    np.testing.assert_array_equal(y_true, [np.nan, 1.0])
    # A set names the relevant ids: everything else is judged non-relevant.
    assert from_lists([["b", "a"]], [{"a"}]).judged is None


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("reorder", [False, True])
def test_condensed_lists_match_trec_eval_judged_only(seed, reorder):
    import pytrec_eval

    ranked, truth = _lists(seed + 10)
    qrels, run = _as_trec(ranked, truth)
    measures = {"P.5", "ndcg_cut.5", "map", "recip_rank", "Rprec"}
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, measures, judged_docs_only_flag=True
    ).evaluate(run)
    names = {
        "P_5": "P.5",
        "ndcg_cut_5": "ndcg_cut.5",
        "map": "map",
        "recip_rank": "recip_rank",
        "Rprec": "Rprec",
    }
    # Query labels out of order reorder the lists (and their judged marks).
    groups = np.arange(len(ranked))[::-1] if reorder else None
    result = evaluate(
        truth, ranked, groups=groups, metrics=list(names.values()), unjudged="condensed"
    )
    compared = 0
    for q in range(len(ranked)):
        label = len(ranked) - 1 - q if reorder else q
        if str(q) not in expected:
            continue
        compared += 1
        for trec, name in names.items():
            assert result.per_query[name][label] == pytest.approx(
                expected[str(q)][trec], abs=1e-12
            ), (name, q)
    assert compared >= len(ranked) // 2


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
def test_judged_at_k_of_lists_matches_ir_measures(seed):
    import ir_measures

    ranked, truth = _lists(seed + 20)
    qrels, run = _as_trec(ranked, truth)
    # ir_measures divides by zero on an empty run, and by k where the run is
    # shorter (skirm: by min(k, n)): compare the queries listing k ids or more.
    run = {q: docs for q, docs in run.items() if len(docs) >= 10}
    measures = [ir_measures.parse_measure(f"Judged@{k}") for k in (1, 5, 10)]
    expected = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc(measures, qrels, run)
    }
    result = evaluate(truth, ranked, metrics=["judged@1", "judged@5", "judged@10"])
    # ir_measures also gives 0 for each query of the qrels without a run.
    expected = {key: value for key, value in expected.items() if key[0] in run}
    for (q, measure), value in expected.items():
        name = measure.replace("Judged@", "judged@")
        assert result.per_query[name][int(q)] == pytest.approx(value, abs=1e-12)
    assert len(expected) >= 3 * 3
