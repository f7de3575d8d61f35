"""Unjudged rows (NaN labels), judged@k and float gains.

``unjudged="nonrelevant"`` must equal the same rows with 0 labels,
``"condensed"`` the same rows without the unjudged ones; both are checked
against trec_eval through pytrec_eval (documents missing from the qrels,
with and without ``-J``), and judged@k against ir_measures' ``Judged@k``.
Float gains are checked against scikit-learn's ndcg_score and dcg_score.
"""

import numpy as np
import pytest
from _impressions import PROBABILITY, scores_for

from skirm.metrics import (
    evaluate,
    get_metric,
    judged_at_k_score,
    make_ranking_scorer,
    ndcg_score,
)
from skirm.metrics._registry import SPECS, not_held

#: The metrics of probabilities read other scores (test_impressions.py).
_SPECS = [s for s in SPECS if s.name != "judged" and s.name not in PROBABILITY]
METRICS = [spec.name for spec in _SPECS] + [
    f"{spec.name}@3" for spec in _SPECS if spec.takes_k
]


#: (tie policy, metrics): ties="average" is refused on tied scores by some.
POLICIES = (
    (
        "average",
        [m for m in METRICS if m.partition("@")[0] not in not_held("average_ties")],
    ),
    ("first", METRICS),
)


def _data(seed, n_queries=25, max_size=20, share=0.3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size, size=n_queries)
    groups = np.repeat(np.arange(n_queries), sizes)
    y_true = rng.choice(4, size=groups.size, p=[0.5, 0.25, 0.15, 0.1]).astype(float)
    y_true[rng.random(groups.size) < share] = np.nan
    y_score = rng.integers(0, 6, size=groups.size).astype(float)  # ties
    perm = rng.permutation(groups.size)
    return y_true[perm], y_score[perm], groups[perm]


@pytest.mark.parametrize("seed", range(4))
def test_nonrelevant_equals_zero_labels(seed):
    y_true, y_score, groups = _data(seed)
    zeros = np.where(np.isnan(y_true), 0.0, y_true)
    for ties, metrics in POLICIES:
        common = dict(groups=groups, metrics=metrics, ties=ties)
        got = evaluate(y_true, y_score, unjudged="nonrelevant", **common)
        want = evaluate(zeros, y_score, **common)
        for name in metrics:
            np.testing.assert_array_equal(got.per_query[name], want.per_query[name])
    counts = np.bincount(groups[np.isnan(y_true)], minlength=groups.max() + 1)
    np.testing.assert_array_equal(got.n_unjudged, counts)
    assert want.n_unjudged is None


@pytest.mark.parametrize("seed", range(4))
def test_condensed_equals_dropping_the_rows(seed):
    y_true, y_score, groups = _data(seed)
    judged = ~np.isnan(y_true)
    for ties, metrics in POLICIES:
        got = evaluate(
            y_true,
            y_score,
            groups=groups,
            metrics=metrics,
            unjudged="condensed",
            ties=ties,
        )
        want = evaluate(
            y_true[judged],
            y_score[judged],
            groups=groups[judged],
            metrics=metrics,
            ties=ties,
        )
        keep = np.isin(got.group_ids, want.group_ids)
        for name in metrics:
            np.testing.assert_array_equal(
                got.per_query[name][keep], want.per_query[name]
            )
            # A query with no judged row keeps its place and scores no_relevant
            # (or, for a metric whose undefined queries follow its one_class
            # option, is left out: NaN).
            left = got.per_query[name][~keep]
            if name.partition("@")[0] in not_held("no_relevant"):
                assert np.all(np.isnan(left) | (left == 1.0)), name  # fall-out: 1
            else:
                assert np.all(left == 0.0)


def test_a_query_left_without_rows_keeps_its_weight():
    y_true = [np.nan, np.nan, 1.0, 0.0]
    result = evaluate(
        y_true,
        [1, 2, 3, 4],
        groups=[0, 0, 1, 1],
        metrics=["ndcg", "judged"],
        unjudged="condensed",
        sample_weight=[1, 1, 3, 3],
        no_relevant=0.5,
    )
    assert result.per_query["ndcg"].tolist() == [0.5, pytest.approx(1 / np.log2(3))]
    assert result["ndcg"] == pytest.approx((0.5 + 3 / np.log2(3)) / 4)
    assert result.n_unjudged.tolist() == [2, 0]


def test_unjudged_rows_are_counted_for_every_query():
    # The last queries have no unjudged row: they still get a count of 0.
    result = evaluate(
        [np.nan, 1.0, np.nan, 0.0, 1.0, 2.0],
        [1, 2, 3, 4, 5, 6],
        groups=["a", "a", "a", "b", "c", "c"],
        metrics=["ndcg"],
        unjudged="nonrelevant",
    )
    assert result.group_ids.tolist() == ["a", "b", "c"]
    assert result.n_unjudged.tolist() == [2, 0, 0]


def test_condensed_query_weights_must_be_constant_within_a_query():
    with pytest.raises(
        ValueError,
        match=r"^`sample_weight` must be constant within each query \(it is a "
        r"query weight\), but it varies within query 'b'$",
    ):
        evaluate(
            [1.0, np.nan, 0.0, 1.0, np.nan],
            [1, 2, 3, 4, 5],
            groups=["a", "a", "b", "b", "b"],
            sample_weight=[1, 1, 2, 2, 3],
            unjudged="condensed",
        )


def _dcg(labels, k):
    top = np.asarray(labels[:k], dtype=float)
    return float(np.sum(top / np.log2(np.arange(top.size) + 2)))


def test_condensed_keeps_the_tie_order_of_ignore_ties():
    # ignore_ties=True breaks ties by ``np.argsort(y_score)[:, ::-1]`` of the
    # whole row; the condensed list drops the unjudged rows from that order.
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 4, (6, 12)).astype(float)
    y_true[rng.random(y_true.shape) < 0.3] = np.nan
    y_score = rng.integers(0, 3, (6, 12)).astype(float)  # many ties
    order = np.argsort(y_score, axis=1)[:, ::-1]
    expected = []
    for labels, perm in zip(y_true, order, strict=True):
        ranked = labels[perm]
        ranked = ranked[~np.isnan(ranked)]
        ideal = np.sort(ranked)[::-1]
        expected.append(_dcg(ranked, 5) / _dcg(ideal, 5))
    common = dict(k=5, unjudged="condensed")
    got = ndcg_score(y_true, y_score, ignore_ties=True, **common)
    assert got == pytest.approx(np.mean(expected), rel=1e-12)
    assert got != pytest.approx(ndcg_score(y_true, y_score, **common), rel=1e-6)


def _as_trec(y_true, y_score, groups):
    qrels, run = {}, {}
    for i, (label, score, qid) in enumerate(zip(y_true, y_score, groups, strict=True)):
        run.setdefault(str(qid), {})[f"d{i}"] = float(score)
        if not np.isnan(label):
            qrels.setdefault(str(qid), {})[f"d{i}"] = int(label)
    return qrels, run


TREC = {
    "ndcg_cut_10": "ndcg@10",
    "map": "map",
    "P_5": "P@5",
    "recip_rank": "mrr",
    "Rprec": "rprec",
    "recall_10": "recall@10",
}


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "unjudged, flag", [("nonrelevant", False), ("condensed", True)]
)
def test_unjudged_policies_match_trec_eval(seed, unjudged, flag):
    import pytrec_eval

    rng = np.random.default_rng(seed)
    y_true, _, groups = _data(seed)
    y_score = rng.permutation(groups.size) / 8.0  # distinct: no docno tie-break
    qrels, run = _as_trec(y_true, y_score, groups)
    measures = {"ndcg_cut.10", "map", "P.5", "recip_rank", "Rprec", "recall.10"}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, measures, judged_docs_only_flag=flag
    )
    want = evaluator.evaluate(run)
    got = evaluate(
        y_true, y_score, groups=groups, metrics=list(TREC.values()), unjudged=unjudged
    )
    ids = [str(q) for q in got.group_ids]
    assert set(want) <= set(ids)
    for trec, name in TREC.items():
        for pos, q in enumerate(ids):
            if q in want:
                assert got.per_query[name][pos] == pytest.approx(
                    want[q][trec], abs=1e-12
                )


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
def test_judged_at_k_matches_ir_measures(seed):
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(seed)
    y_true, _, groups = _data(seed, share=0.5)
    y_score = rng.permutation(groups.size) / 8.0
    qrels, run = _as_trec(y_true, y_score, groups)
    names = ["Judged@1", "Judged@5", "Judged@10", "Judged"]
    got = evaluate(
        y_true, y_score, groups=groups, metrics=names, unjudged="nonrelevant"
    )
    for name in names:
        measure = ir_measures.parse_measure(name)
        want = {
            m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)
        }
        for pos, q in enumerate(got.group_ids.astype(str)):
            if q in want:
                assert got.per_query[name][pos] == pytest.approx(want[q], abs=1e-12)


def test_judged_at_k_with_ties_is_the_expected_share():
    # Two tied rows, one judged, for the first place: 0.5 in expectation.
    assert (
        judged_at_k_score([np.nan, 1.0, 0.0], [1, 1, 0], groups=[0, 0, 0], k=1) == 0.5
    )
    assert (
        judged_at_k_score([np.nan, 1.0], [1, 1], groups=[0, 0], k=1, ties="first")
        == 0.0
    )
    assert judged_at_k_score([1.0, 0.0], [1, 2], groups=[0, 0], k=5) == 1.0


def test_unjudged_errors():
    with pytest.raises(
        ValueError, match=r"got nan at 1 \(flat index\); NaN marks an unjudged row"
    ):
        ndcg_score([1.0, np.nan], [1, 2], groups=[0, 0])
    with pytest.raises(
        ValueError,
        match=r"`unjudged` must be one of 'raise', 'nonrelevant', 'condensed', "
        r"got 'skip'",
    ):
        evaluate([1.0, np.nan], [1, 2], groups=[0, 0], unjudged="skip")
    with pytest.raises(
        ValueError, match=r"`y_true` must hold finite relevance labels, got inf"
    ):
        evaluate([1.0, np.inf], [1, 2], groups=[0, 0], unjudged="nonrelevant")


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
def test_float_gains_match_scikit_learn(seed):
    from sklearn.metrics import dcg_score, ndcg_score as sk_ndcg

    rng = np.random.default_rng(seed)
    y_true = rng.random((20, 9))  # LLM ratings in [0, 1]
    y_true[y_true < 0.4] = 0.0
    y_score = rng.integers(0, 4, size=(20, 9)).astype(float)
    for k in (None, 3):
        got = evaluate(
            y_true,
            y_score,
            metrics=[
                "ndcg" if k is None else f"ndcg@{k}",
                "dcg" if k is None else f"dcg@{k}",
            ],
        )
        values = list(got.means.values())
        assert values[0] == pytest.approx(sk_ndcg(y_true, y_score, k=k), abs=1e-12)
        assert values[1] == pytest.approx(dcg_score(y_true, y_score, k=k), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_judge_samples_give_each_judges_values_on_one_ranking(seed):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(12), rng.integers(1, 10, size=12))
    y_score = rng.integers(0, 4, size=groups.size).astype(float)  # ties
    samples = rng.random((groups.size, 5)).round(1)  # five LLM judges
    names = ["ndcg@3", "map", "err@5", "P(rel=0.5)@3"]
    result = evaluate(
        samples.mean(axis=1),
        y_score,
        groups=groups,
        metrics=names,
        label_samples=samples,
    )
    for name in names:
        per_judge = [
            evaluate(samples[:, j], y_score, groups=groups, metrics=[name])
            for j in range(5)
        ]
        np.testing.assert_array_equal(
            result.judge_means[name], [r[name] for r in per_judge]
        )
        np.testing.assert_array_equal(
            result.judge_per_query[name],
            np.column_stack([r.per_query[name] for r in per_judge]),
        )
        assert result.judge_spread[name] == pytest.approx(
            np.std([r[name] for r in per_judge], ddof=1)
        )
    assert evaluate(samples[:, 0], y_score, groups=groups).judge_spread is None


def test_judge_samples_errors():
    y, s, g = [1.0, 0.0], [2.0, 1.0], [0, 0]
    with pytest.raises(
        ValueError,
        match=r"`label_samples` must have shape \(n_samples, n_judges\) with one row "
        r"per row of `y_true` \(2\), got shape \(3, 1\)",
    ):
        evaluate(y, s, groups=g, label_samples=[[1.0], [0.0], [1.0]])
    with pytest.raises(ValueError, match=r"`label_samples` must hold non-negative"):
        evaluate(y, s, groups=g, label_samples=[[1.0], [-1.0]])
    with pytest.raises(ValueError, match=r"does not combine with ranked lists"):
        evaluate([{1}], [[1, 2]], label_samples=[[1.0], [0.0]])


@pytest.mark.parametrize("seed", range(5))
def test_judged_at_k_averages_over_tied_orderings(seed):
    import itertools

    rng = np.random.default_rng(seed)
    y_true = rng.choice([0.0, 1.0, np.nan], size=6)
    y_score = rng.integers(0, 2, size=6).astype(float)
    groups = np.zeros(6, dtype=int)
    for k in (1, 2, 4):
        orderings = [
            judged_at_k_score(
                y_true[list(p)], y_score[list(p)], groups=groups, k=k, ties="first"
            )
            for p in itertools.permutations(range(6))
        ]
        got = judged_at_k_score(y_true, y_score, groups=groups, k=k)
        assert got == pytest.approx(np.mean(orderings), abs=1e-12)


# Regression: a NaN label's error told the user to pass unjudged=..., which
# only evaluate took: every metric function, bound metric and scorer raised
# TypeError, so partly judged held-out labels had no scorer.
@pytest.mark.parametrize("policy", ["nonrelevant", "condensed"])
@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_every_metric_function_takes_unjudged(spec, policy):
    y_true, y_score, groups = _data(3)
    y_score = scores_for(spec.name, y_score)
    k = {"k": 3} if spec.takes_k else {}
    name = f"{spec.name}@3" if spec.takes_k else spec.name
    ties = "first" if spec.name in not_held("average_ties") else "average"
    common = dict(groups=groups, unjudged=policy, ties=ties)
    want = evaluate(y_true, y_score, metrics=[name], **common)
    got = spec.function(y_true, y_score, **common, **k)
    assert got == want[name]
    assert get_metric(name)(y_true, y_score, **common) == got


@pytest.mark.parametrize("policy", ["nonrelevant", "condensed"])
def test_scorer_takes_unjudged(policy):
    from sklearn.dummy import DummyRegressor

    y_true, y_score, groups = _data(4)

    class Fixed(DummyRegressor):
        def predict(self, X):
            return X[:, 0]

    model = Fixed().fit(y_score[:, None], np.zeros(y_score.size))
    scorer = make_ranking_scorer(["ndcg@5", "map", "judged@3"], unjudged=policy)
    assert repr(scorer).endswith(f"unjudged={policy!r})")
    got = scorer(model, y_score[:, None], y_true, groups=groups)
    want = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=["ndcg@5", "map", "judged@3"],
        unjudged=policy,
    )
    assert got == want.means
    with pytest.raises(ValueError, match="make_ranking_scorer"):
        make_ranking_scorer("ndcg@5")(model, y_score[:, None], y_true, groups=groups)
