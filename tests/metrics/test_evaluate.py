"""evaluate(): many metrics from one ranking, per query and on average."""

import numpy as np
import pandas as pd
import pytest
from _impressions import PROBABILITY
from _reference import reference_per_query

import skirm
from skirm.metrics import EvaluationResult, evaluate, get_metric
from skirm.metrics._registry import SPECS

ALL_METRICS = [
    "ndcg@3",
    "ndcg",
    "dcg@2",
    "cg@2",
    "precision@2",
    "recall@3",
    "r_cap@2",
    "f1@2",
    "hit_rate@1",
    "r_precision",
    "mrr",
    "map",
    "map@3",
    "err@4",
    "rbp",
]


def _data(seed=0, n_groups=7):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 8, size=n_groups)
    ids = rng.choice([f"q{i:02d}" for i in range(50)], size=n_groups, replace=False)
    groups = np.repeat(ids, sizes)
    y_true = rng.integers(0, 4, size=groups.shape[0]).astype(float)
    y_true[groups == ids[0]] = 0.0  # a query without relevant rows
    y_score = rng.integers(0, 3, size=groups.shape[0]).astype(float)
    perm = rng.permutation(groups.shape[0])
    return y_true[perm], y_score[perm], groups[perm]


def test_group_ids_are_sorted_unique_labels():
    y_true, y_score, groups = _data(1)
    result = evaluate(y_true, y_score, groups=groups, metrics=ALL_METRICS)
    assert isinstance(result, EvaluationResult)
    np.testing.assert_array_equal(result.group_ids, np.unique(groups))
    assert result.metrics == ALL_METRICS
    for name in ALL_METRICS:
        assert result.per_query[name].shape == (np.unique(groups).shape[0],)
        assert result.per_query[name].dtype == np.float64


@pytest.mark.parametrize("ties", ["average", "first", "optimistic", "pessimistic"])
def test_per_query_values_are_aligned_to_group_ids(ties):
    # Each query scored alone gives the value at its id's position.
    y_true, y_score, groups = _data(2)
    result = evaluate(
        y_true, y_score, groups=groups, metrics=ALL_METRICS, ties=ties, max_grade=3
    )
    for i, g in enumerate(result.group_ids):
        rows = groups == g
        for name in ALL_METRICS:
            metric = get_metric(name, **({"max_grade": 3} if "err" in name else {}))
            alone = metric(
                y_true[rows], y_score[rows], groups=np.zeros(rows.sum()), ties=ties
            )
            assert result.per_query[name][i] == pytest.approx(alone, rel=1e-12), (
                name,
                g,
            )


def test_per_query_values_match_reference():
    y_true, y_score, groups = _data(3)
    result = evaluate(
        y_true, y_score, groups=groups, metrics=["ndcg@3", "map", "mrr@2", "err"]
    )
    for label in result.metrics:
        metric = get_metric(label)
        ids, values, empty = reference_per_query(
            metric.spec.name, y_true, y_score, groups, k=metric.k
        )
        expected = np.where(empty, 0.0, values)
        assert list(result.group_ids) == ids
        np.testing.assert_allclose(result.per_query[label], expected, rtol=1e-12)


@pytest.mark.parametrize("no_relevant", [0.0, 1.0, 0.3, "skip"])
def test_means_equal_single_metric_functions(no_relevant):
    y_true, y_score, groups = _data(4)
    weights = np.array([1.0 + int(g[1:]) % 3 for g in groups.tolist()])
    for sample_weight in (None, weights):
        result = evaluate(
            y_true,
            y_score,
            groups=groups,
            metrics=ALL_METRICS,
            no_relevant=no_relevant,
            sample_weight=sample_weight,
        )
        for name in ALL_METRICS:
            direct = get_metric(name)(
                y_true,
                y_score,
                groups=groups,
                no_relevant=no_relevant,
                sample_weight=sample_weight,
            )
            assert result.means[name] == pytest.approx(direct, rel=1e-12)
            assert result[name] == result.means[name]
            assert type(result.means[name]) is float


def test_default_metrics():
    y_true, y_score, groups = _data(5)
    result = evaluate(y_true, y_score, groups=groups)
    assert result.metrics == ["ndcg@10", "map", "mrr"]
    assert result["ndcg@10"] == skirm.ndcg_score(y_true, y_score, groups=groups, k=10)


def test_single_metric_name_and_metric_objects():
    y_true, y_score, groups = _data(6)
    result = evaluate(y_true, y_score, groups=groups, metrics="map@2")
    assert result.metrics == ["map@2"]
    bound = get_metric("ndcg@2", gain="exponential")
    result = evaluate(y_true, y_score, groups=groups, metrics=[bound, "map"])
    assert result.metrics == ["ndcg@2", "map"]
    exponential = skirm.ndcg_score(
        y_true, y_score, groups=groups, k=2, gain="exponential"
    )
    assert result["ndcg@2"] == pytest.approx(exponential, rel=1e-12)
    assert exponential != skirm.ndcg_score(y_true, y_score, groups=groups, k=2)


def test_options_are_routed_to_the_metrics_that_take_them():
    y_true, y_score, groups = _data(7)
    result = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=["ndcg@3", "dcg", "map", "rbp", "err@3"],
        gain="exponential",
        relevance_threshold=2,
        p=0.5,
        log_base=10,
        max_grade=5,
    )
    g = dict(groups=groups)
    expected = {
        "ndcg@3": skirm.ndcg_score(y_true, y_score, k=3, gain="exponential", **g),
        "dcg": skirm.dcg_score(y_true, y_score, gain="exponential", log_base=10, **g),
        "map": skirm.mean_average_precision_score(
            y_true, y_score, relevance_threshold=2, **g
        ),
        "rbp": skirm.rank_biased_precision_score(
            y_true, y_score, relevance_threshold=2, p=0.5, **g
        ),
        "err@3": skirm.expected_reciprocal_rank_score(
            y_true, y_score, k=3, max_grade=5, **g
        ),
    }
    for name, value in expected.items():
        assert result[name] == pytest.approx(value, rel=1e-12), name
    # The options did change something.
    assert result["ndcg@3"] != skirm.ndcg_score(y_true, y_score, k=3, **g)
    assert result["map"] != skirm.mean_average_precision_score(y_true, y_score, **g)


def test_denominator_reaches_map_only():
    y_true, y_score, groups = _data(8)
    result = evaluate(
        y_true, y_score, groups=groups, metrics=["map@2", "mrr"], denominator="min_k"
    )
    assert result["map@2"] == skirm.mean_average_precision_score(
        y_true, y_score, groups=groups, k=2, denominator="min_k"
    )
    assert result["mrr"] == skirm.mean_reciprocal_rank_score(
        y_true, y_score, groups=groups
    )


def test_option_no_metric_takes_is_a_type_error():
    y_true, y_score, groups = _data(9)
    with pytest.raises(
        TypeError, match=r"option 'p' is taken by none of the requested"
    ):
        evaluate(y_true, y_score, groups=groups, metrics=["ndcg@3", "map"], p=0.5)
    with pytest.raises(TypeError, match=r"option 'gain' is taken by none"):
        evaluate(y_true, y_score, groups=groups, metrics=["mrr"], gain="exponential")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'foo'"):
        evaluate(y_true, y_score, groups=groups, foo=1)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'ignore_ties'"):
        evaluate(y_true, y_score, groups=groups, ignore_ties=True)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'k'"):
        evaluate(y_true, y_score, groups=groups, k=3)


def test_bad_option_values_raise():
    y_true, y_score, groups = _data(10)
    with pytest.raises(ValueError, match=r"`gain` must be one of"):
        evaluate(y_true, y_score, groups=groups, metrics=["ndcg"], gain="log")
    with pytest.raises(ValueError, match=r"`no_relevant` must be"):
        evaluate(y_true, y_score, groups=groups, no_relevant="drop")
    with pytest.raises(ValueError, match=r"`ties` must be one of"):
        evaluate(y_true, y_score, groups=groups, ties="random")


def test_duplicate_and_empty_metric_lists_are_rejected():
    y_true, y_score, groups = _data(11)
    with pytest.raises(ValueError, match=r"`metrics` names 'map' twice"):
        evaluate(y_true, y_score, groups=groups, metrics=["map", "mrr", "map"])
    with pytest.raises(ValueError, match=r"`metrics` names 'ndcg@5' twice"):
        evaluate(
            y_true,
            y_score,
            groups=groups,
            metrics=[get_metric("ndcg@5"), get_metric("ndcg@5", gain="exponential")],
        )
    with pytest.raises(ValueError, match=r"`metrics` must name at least one metric"):
        evaluate(y_true, y_score, groups=groups, metrics=[])
    with pytest.raises(ValueError, match=r"unknown measure"):
        evaluate(y_true, y_score, groups=groups, metrics=["ndcg@3", "auc"])


def test_to_frame():
    y_true, y_score, groups = _data(12)
    result = evaluate(y_true, y_score, groups=groups, metrics=["ndcg@3", "map", "mrr"])
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["ndcg@3", "map", "mrr"]
    assert frame.index.name == "query"
    assert list(frame.index) == list(result.group_ids)
    for name in result.metrics:
        np.testing.assert_array_equal(frame[name].to_numpy(), result.per_query[name])
    np.testing.assert_allclose(
        frame.mean().to_numpy(), [result[m] for m in result.metrics], rtol=1e-12
    )


def test_sample_weight_gives_weighted_means_and_query_weights():
    y_true, y_score, groups = _data(13)
    ids = np.unique(groups)
    query_weight = dict(
        zip(ids.tolist(), np.arange(1.0, ids.shape[0] + 1), strict=True)
    )
    sample_weight = np.array([query_weight[g] for g in groups.tolist()])
    result = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=["ndcg@3", "map"],
        sample_weight=sample_weight,
    )
    w = np.array([query_weight[g] for g in result.group_ids.tolist()])
    np.testing.assert_array_equal(result.weights, w)
    for name in result.metrics:
        expected = np.sum(w * result.per_query[name]) / np.sum(w)
        assert result[name] == pytest.approx(expected, rel=1e-12)
    unweighted = evaluate(y_true, y_score, groups=groups, metrics=["map"])
    assert unweighted.weights is None
    assert unweighted["map"] != pytest.approx(result["map"], rel=1e-9)
    with pytest.raises(ValueError, match=r"`sample_weight` must be constant within"):
        evaluate(y_true, y_score, groups=groups, sample_weight=np.arange(len(groups)))


def test_query_weights_varying_within_a_query_name_that_query():
    with pytest.raises(
        ValueError,
        match=r"^`sample_weight` must be constant within each query \(it is a "
        r"query weight\), but it varies within query 'b'$",
    ):
        evaluate(
            [1.0, 0.0, 0.0, 1.0, 1.0],
            [1, 2, 3, 4, 5],
            groups=["a", "a", "b", "b", "c"],
            sample_weight=[1, 1, 2, 3, 4],
        )


def test_skipped_queries_hold_nan_and_leave_the_mean():
    y_true = np.array([1, 0, 0, 0, 0, 2, 0, 0], dtype=float)
    y_score = np.array([1, 2, 1, 2, 3, 2, 1, 3], dtype=float)
    groups = np.array(["a", "a", "b", "b", "c", "c", "z", "z"])
    sample_weight = np.repeat([1.0, 5.0, 2.0, 7.0], 2)
    result = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=["mrr", "ndcg"],
        no_relevant="skip",
        sample_weight=sample_weight,
    )
    mrr = result.per_query["mrr"]
    assert np.isnan(mrr[[1, 3]]).all()
    np.testing.assert_allclose(mrr[[0, 2]], [0.5, 0.5])
    assert result["mrr"] == pytest.approx((1 * 0.5 + 2 * 0.5) / 3)
    ndcg = result.per_query["ndcg"]
    assert np.isnan(ndcg[[1, 3]]).all() and not np.isnan(ndcg[[0, 2]]).any()
    assert np.isnan(result.to_frame().loc["b", "mrr"])
    zero = evaluate(y_true, y_score, groups=groups, metrics=["mrr"])
    np.testing.assert_allclose(zero.per_query["mrr"], [0.5, 0, 0.5, 0])
    with pytest.raises(ValueError, match=r"mrr: query .*'b'.* has no relevant row"):
        evaluate(y_true, y_score, groups=groups, metrics=["mrr"], no_relevant="raise")


def test_two_dimensional_input():
    y_true = np.array([[3, 2, 0, 1], [0, 0, 1, 0]], dtype=float)
    y_score = np.array([[0.1, 0.2, 0.3, 0.4], [4, 3, 2, 1]], dtype=float)
    result = evaluate(y_true, y_score, metrics=["ndcg", "mrr"], sample_weight=[1, 3])
    np.testing.assert_array_equal(result.group_ids, [0, 1])
    np.testing.assert_allclose(result.per_query["mrr"], [1.0, 1 / 3])
    assert result["mrr"] == pytest.approx((1.0 + 3 / 3) / 4)
    assert result["ndcg"] == skirm.ndcg_score(y_true, y_score, sample_weight=[1, 3])


def test_every_registered_metric_is_accepted():
    y_true, y_score, groups = _data(14)
    # The metrics of probabilities read other scores (test_impressions.py).
    specs = [spec for spec in SPECS if spec.name not in PROBABILITY]
    names = [spec.name for spec in specs]
    # ties="first": some metrics refuse "average" on tied scores (NOT_HELD).
    result = evaluate(y_true, y_score, groups=groups, metrics=names, ties="first")
    for spec in specs:
        alone = spec.function(y_true, y_score, groups=groups, ties="first")
        assert result[spec.name] == alone


def test_repr_names_the_metrics():
    y_true, y_score, groups = _data(15)
    result = evaluate(y_true, y_score, groups=groups, metrics=["map"])
    text = repr(result)
    assert text.startswith("EvaluationResult(n_queries=7")
    assert f"'map': {result['map']:.4f}" in text


def test_integer_group_ids_sort_numerically():
    groups = np.array([10, 10, 9, 9, 100, 100, -1, -1])
    y_true = np.array([1, 0, 0, 1, 1, 0, 0, 1], dtype=float)
    result = evaluate(y_true, np.tile([2.0, 1.0], 4), groups=groups, metrics=["mrr"])
    np.testing.assert_array_equal(result.group_ids, [-1, 9, 10, 100])
    np.testing.assert_allclose(result.per_query["mrr"], [0.5, 0.5, 1.0, 1.0])


def test_uint64_group_ids_sort_numerically():
    groups = np.array([2**64 - 1, 2**64 - 1, 5, 5], dtype=np.uint64)
    result = evaluate([1, 0, 0, 1], [1, 2, 3, 4], groups=groups, metrics=["mrr"])
    np.testing.assert_array_equal(
        result.group_ids, np.array([5, 2**64 - 1], dtype=np.uint64)
    )
    # Query 5 ranks its relevant row first (score 4 > 3); the other query second.
    np.testing.assert_allclose(result.per_query["mrr"], [1.0, 0.5])
