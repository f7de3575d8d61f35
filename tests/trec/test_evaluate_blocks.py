"""Results of query subsets merge exactly; threads over blocks of whole queries.

``EvaluationResult.concat`` and ``evaluate(..., n_jobs=...)`` both split the
queries; neither may change a value. The oracles: ``evaluate`` on all the rows
in one block, and the slow per-query reference of ``_reference``.
"""

import os

import numpy as np
import pytest
from _reference import reference_per_query

import skirm._engine._blocks
import skirm._validation
from skirm.io import Qrels, Run
from skirm.metrics import EvaluationResult, evaluate, get_metric
from skirm.trec import evaluate_run

METRICS = [
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
    "err",
    "rbp",
]


def _data(seed=0, n_groups=40, ids="str"):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_groups)
    labels = rng.choice(1000, size=n_groups, replace=False)
    if ids == "str":
        labels = np.array([f"q{i:03d}" for i in labels])
    groups = np.repeat(labels, sizes)
    y_true = rng.integers(0, 4, size=groups.shape[0]).astype(float)
    y_true[groups == labels[0]] = 0.0  # a query without relevant rows
    y_true[groups == labels[1]] = 0.0
    y_score = rng.integers(0, 4, size=groups.shape[0]).astype(float)  # ties
    weight = dict(zip(labels.tolist(), rng.uniform(0.5, 3, n_groups), strict=True))
    sample_weight = np.array([weight[g] for g in groups.tolist()])
    perm = rng.permutation(groups.shape[0])  # rows of a query interleaved
    return y_true[perm], y_score[perm], groups[perm], sample_weight[perm]


def _assert_same(result, expected):
    assert result.metrics == expected.metrics
    np.testing.assert_array_equal(result.group_ids, expected.group_ids)
    assert result.group_ids.dtype == expected.group_ids.dtype
    for name in expected.metrics:
        np.testing.assert_array_equal(result.per_query[name], expected.per_query[name])
        assert result.means[name] == expected.means[name], name
    if expected.weights is None:
        assert result.weights is None
    else:
        np.testing.assert_array_equal(result.weights, expected.weights)


def _split_by_query(groups, n_parts, seed):
    """Row masks of ``n_parts`` disjoint random query sets."""
    ids = np.unique(groups)
    part = np.random.default_rng(seed).integers(0, n_parts, size=ids.shape[0])
    of_row = part[np.searchsorted(ids, groups)]
    return [of_row == p for p in range(n_parts) if (of_row == p).any()]


# -- concat -------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("no_relevant", [0.0, 1.0, "skip"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ids", ["str", "int"])
def test_concat_of_query_subsets_equals_one_evaluation(no_relevant, weighted, ids):
    y_true, y_score, groups, sample_weight = _data(1, ids=ids)
    kwargs = dict(metrics=METRICS, no_relevant=no_relevant, max_grade=3)
    if not weighted:
        sample_weight = None
    whole = evaluate(
        y_true, y_score, groups=groups, sample_weight=sample_weight, **kwargs
    )
    for seed in range(3):
        parts = []
        for rows in _split_by_query(groups, 4, seed):
            sw = None if sample_weight is None else sample_weight[rows]
            parts.append(
                evaluate(
                    y_true[rows],
                    y_score[rows],
                    groups=groups[rows],
                    sample_weight=sw,
                    **kwargs,
                )
            )
        _assert_same(EvaluationResult.concat(parts), whole)
        _assert_same(EvaluationResult.concat(parts[::-1]), whole)


@pytest.mark.oracle
def test_concat_matches_the_per_query_reference():
    y_true, y_score, groups, _ = _data(2)
    parts = [
        evaluate(y_true[rows], y_score[rows], groups=groups[rows], metrics=METRICS)
        for rows in _split_by_query(groups, 3, 0)
    ]
    merged = EvaluationResult.concat(iter(parts))
    for name in METRICS:
        metric = get_metric(name)
        ids, values, empty = reference_per_query(
            metric.spec.name, y_true, y_score, groups, k=metric.k
        )
        assert merged.group_ids.tolist() == ids
        expected = np.where(empty, 0.0, values)
        np.testing.assert_allclose(merged.per_query[name], expected, rtol=1e-12)
        assert merged[name] == pytest.approx(np.mean(expected), rel=1e-12)


def test_concat_skip_leaves_out_queries_and_raises_when_none_is_left():
    kwargs = dict(metrics="mrr", no_relevant="skip")
    ab = evaluate([0, 0, 1, 0], [1, 2, 1, 2], groups=["a", "a", "b", "b"], **kwargs)
    c = evaluate([0, 1], [1, 2], groups=["c", "c"], **kwargs)
    merged = EvaluationResult.concat([c, ab])
    assert np.isnan(merged.per_query["mrr"][0]) and merged["mrr"] == 0.75
    ab.per_query["mrr"][1] = np.nan  # as if "b" had no relevant row either
    with pytest.raises(ValueError, match="mrr: every query has no relevant row"):
        EvaluationResult.concat([ab])


def test_concat_rejects_a_query_seen_twice():
    y_true, y_score, groups, _ = _data(3, ids="int")
    rows = _split_by_query(groups, 2, 0)
    left = evaluate(y_true[rows[0]], y_score[rows[0]], groups=groups[rows[0]])
    both = evaluate(y_true, y_score, groups=groups)
    query = left.group_ids[0].item()
    with pytest.raises(ValueError, match=f"query {query} appears in more than one"):
        EvaluationResult.concat([left, both])


def test_concat_rejects_mismatched_results():
    y_true, y_score, groups, sample_weight = _data(4)
    a, b = _split_by_query(groups, 2, 0)

    def part(rows, **kwargs):
        return evaluate(y_true[rows], y_score[rows], groups=groups[rows], **kwargs)

    with pytest.raises(ValueError, match="same metrics in the same order"):
        EvaluationResult.concat([part(a, metrics=["map", "mrr"]), part(b)])
    with pytest.raises(ValueError, match="same metrics in the same order"):
        EvaluationResult.concat(
            [part(a, metrics=["map", "mrr"]), part(b, metrics=["mrr", "map"])]
        )
    weighted = part(a, sample_weight=sample_weight[a])
    with pytest.raises(ValueError, match=r"all have query weights .* got a mix"):
        EvaluationResult.concat([weighted, part(b)])
    with pytest.raises(ValueError, match="at least one EvaluationResult, got none"):
        EvaluationResult.concat([])
    with pytest.raises(TypeError, match="got one EvaluationResult; pass a list"):
        EvaluationResult.concat(part(a))
    with pytest.raises(TypeError, match="must hold EvaluationResult objects, got"):
        EvaluationResult.concat([part(a), {"map": 0.5}])
    numeric = evaluate([1, 0], [1, 2], groups=[7, 7])
    with pytest.raises(TypeError, match="query labels of one kind"):
        EvaluationResult.concat([part(a), numeric])
    big = evaluate([1, 0], [1, 2], groups=np.array([2**63, 2**63], dtype=np.uint64))
    with pytest.raises(TypeError, match="query labels of one integer type"):
        EvaluationResult.concat([numeric, big])


def test_concat_rejects_trec_results():
    qrels = Qrels(["q1", "q1"], ["d1", "d2"], [1, 0])
    run = Run(["q1", "q1"], ["d1", "d2"], [0.5, 0.7])
    result = evaluate_run(qrels, run, ["map", "num_ret"])
    with pytest.raises(ValueError, match=r"skirm\.trec\.evaluate_run"):
        EvaluationResult.concat([result])


def test_concat_leaves_its_inputs_alone():
    y_true, y_score, groups, _ = _data(5)
    parts = [
        evaluate(y_true[rows], y_score[rows], groups=groups[rows])
        for rows in _split_by_query(groups, 2, 1)
    ]
    copies = [(p.group_ids.copy(), dict(p.means)) for p in parts]
    merged = EvaluationResult.concat(parts)
    merged.per_query["map"][:] = -1.0
    for part, (ids, means) in zip(parts, copies, strict=True):
        np.testing.assert_array_equal(part.group_ids, ids)
        assert part.means == means
        assert (part.per_query["map"] >= 0).all()


# -- n_jobs: threads over blocks of whole queries ------------------------------


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few rows, so that small inputs are cut into many blocks."""
    monkeypatch.setattr(skirm._engine._blocks, "BLOCK_ROWS", 17)


@pytest.mark.oracle
@pytest.mark.parametrize("ties", ["average", "first", "optimistic", "pessimistic"])
@pytest.mark.parametrize("weighted", [False, True])
def test_blocks_give_the_one_block_values_for_any_n_jobs(monkeypatch, ties, weighted):
    y_true, y_score, groups, sample_weight = _data(6, n_groups=60)
    kwargs = dict(
        groups=groups,
        metrics=METRICS,
        ties=ties,
        sample_weight=sample_weight if weighted else None,
    )
    monkeypatch.setattr(skirm._engine._blocks, "BLOCK_ROWS", 10**9)
    one_block = evaluate(y_true, y_score, **kwargs)
    monkeypatch.setattr(skirm._engine._blocks, "BLOCK_ROWS", 17)
    serial = evaluate(y_true, y_score, **kwargs)
    for name in METRICS:
        np.testing.assert_allclose(
            serial.per_query[name], one_block.per_query[name], rtol=1e-12, atol=1e-15
        )
        assert serial[name] == pytest.approx(one_block[name], rel=1e-12)
    for n_jobs in (2, 3, -1):
        _assert_same(evaluate(y_true, y_score, n_jobs=n_jobs, **kwargs), serial)


@pytest.mark.oracle
def test_blocks_match_the_reference(small_blocks):
    y_true, y_score, groups, _ = _data(7, n_groups=30)
    result = evaluate(y_true, y_score, groups=groups, metrics=METRICS, n_jobs=2)
    for name in METRICS:
        metric = get_metric(name)
        ids, values, empty = reference_per_query(
            metric.spec.name, y_true, y_score, groups, k=metric.k
        )
        assert result.group_ids.tolist() == ids
        expected = np.where(empty, 0.0, values)
        np.testing.assert_allclose(result.per_query[name], expected, rtol=1e-12)


def test_err_max_grade_defaults_to_the_largest_label_of_all_blocks(small_blocks):
    # The query with label 3 is in one block; ERR of every other query still
    # uses 3 as the maximum grade.
    y_true, y_score, groups, _ = _data(8, n_groups=30)
    blocked = evaluate(y_true, y_score, groups=groups, metrics=["err"], n_jobs=2)
    bound = evaluate(y_true, y_score, groups=groups, metrics=["err"], max_grade=3)
    np.testing.assert_allclose(
        blocked.per_query["err"], bound.per_query["err"], rtol=1e-12
    )


def test_blocks_with_a_query_larger_than_a_block(small_blocks):
    rng = np.random.default_rng(9)
    groups = np.repeat([5, 1, 3], [60, 3, 40])
    y_true = rng.integers(0, 3, groups.shape[0])
    y_score = rng.normal(size=groups.shape[0])
    blocked = evaluate(y_true, y_score, groups=groups, metrics=METRICS, n_jobs=2)
    for name in METRICS:
        metric = get_metric(name)
        _, values, empty = reference_per_query(
            metric.spec.name, y_true, y_score, groups, k=metric.k
        )
        expected = np.where(empty, 0.0, values)
        np.testing.assert_allclose(blocked.per_query[name], expected, rtol=1e-12)


def test_blocks_of_two_dimensional_input(small_blocks):
    rng = np.random.default_rng(10)
    y_true = rng.integers(0, 3, (12, 5))
    y_score = rng.integers(0, 3, (12, 5)).astype(float)
    sample_weight = rng.uniform(1, 2, 12)
    result = evaluate(
        y_true, y_score, metrics=METRICS, sample_weight=sample_weight, n_jobs=2
    )
    for name in METRICS:
        expected = get_metric(name)(y_true, y_score, sample_weight=sample_weight)
        assert result[name] == pytest.approx(expected, rel=1e-12)


def test_blocks_report_the_first_bad_query_in_label_order(small_blocks):
    y_true, y_score, groups, sample_weight = _data(11, n_groups=30)
    sample_weight = sample_weight.copy()
    last = np.unique(groups)[-1]
    sample_weight[np.flatnonzero(groups == last)[:1]] += 1.0
    with pytest.raises(ValueError, match=f"varies within query '{last}'"):
        evaluate(y_true, y_score, groups=groups, sample_weight=sample_weight, n_jobs=2)
    with pytest.raises(ValueError, match=r"mrr: query 'q\d+' has no relevant row"):
        evaluate(y_true, y_score, groups=groups, metrics="mrr", no_relevant="raise")


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_bad_n_jobs(bad):
    with pytest.raises(ValueError, match="`n_jobs` must be None or a non-zero int"):
        evaluate([1, 0], [1, 2], groups=[0, 0], n_jobs=bad)


def test_bad_n_jobs_is_shown_in_the_message():
    with pytest.raises(ValueError) as info:
        evaluate([1, 0], [1, 2], groups=[0, 0], n_jobs=0)
    assert str(info.value) == (
        "`n_jobs` must be None or a non-zero integer (-1 for all CPUs), got 0 (int)"
    )


@pytest.mark.parametrize("affinity", [True, False])
def test_negative_n_jobs_count_back_from_every_cpu(monkeypatch, affinity):
    # -1 is every CPU the process may use, -2 all but one, ...; at least 1.
    if affinity:
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 5})
    else:  # platforms without affinity: the CPU count
        monkeypatch.delattr(os, "sched_getaffinity", raising=False)
        monkeypatch.setattr(os, "cpu_count", lambda: 4)
    check = skirm._validation.check_n_jobs
    assert [check(n) for n in (-1, -2, -3, -4, -5, -50)] == [4, 3, 2, 1, 1, 1]
    assert [check(n) for n in (1, 3, 64)] == [1, 3, 64]
    if not affinity:  # an unknown CPU count is one CPU
        monkeypatch.setattr(os, "cpu_count", lambda: None)
        assert [check(-1), check(-2)] == [1, 1]


def test_blocks_leave_the_inputs_alone(small_blocks):
    y_true, y_score, groups, sample_weight = _data(12)
    copies = [a.copy() for a in (y_true, y_score, groups, sample_weight)]
    evaluate(y_true, y_score, groups=groups, sample_weight=sample_weight, n_jobs=2)
    for array, copy in zip(
        (y_true, y_score, groups, sample_weight), copies, strict=True
    ):
        np.testing.assert_array_equal(array, copy)


def test_n_jobs_none_follows_joblib_parallel_config(monkeypatch, small_blocks):
    joblib = pytest.importorskip("joblib")
    seen = []
    share_out = skirm._engine._blocks.share_out

    def spy(function, n_items, n_threads):
        seen.append(n_threads)
        return share_out(function, n_items, n_threads)

    monkeypatch.setattr(skirm._engine._blocks, "share_out", spy)
    y_true, y_score, groups, _ = _data(13)
    expected = evaluate(y_true, y_score, groups=groups)
    assert seen == []  # None alone is one thread
    with joblib.parallel_config(n_jobs=2):
        result = evaluate(y_true, y_score, groups=groups)
        evaluate(y_true, y_score, groups=groups, n_jobs=1)  # explicit wins
    assert seen == [2]
    for name in expected.per_query:
        np.testing.assert_array_equal(result.per_query[name], expected.per_query[name])
    n_cpus = skirm._validation.check_n_jobs(-1)
    with joblib.parallel_config(backend="threading", n_jobs=-1):
        evaluate(y_true, y_score, groups=groups)
    if n_cpus > 1:  # every CPU, as many as there are blocks
        assert len(seen) == 2 and 2 <= seen[-1] <= n_cpus
    else:  # pragma: no cover - one CPU
        assert len(seen) == 1
    # Inside joblib's workers, None is one thread again: no nested threads.
    del seen[:]
    with joblib.parallel_config(backend="threading", n_jobs=2):
        joblib.Parallel()(
            joblib.delayed(evaluate)(y_true, y_score, groups=groups) for _ in range(2)
        )
    assert seen == []
    # A backend elsewhere (a cluster) does not set this process's threads.
    monkeypatch.setattr(skirm._validation, "_LOCAL_BACKENDS", ())
    with joblib.parallel_config(n_jobs=2):
        evaluate(y_true, y_score, groups=groups)
    assert seen == []
