"""ERR along each of its paths, against the per-query reference.

ERR takes one of several routes to the same sums: the relevant rows only
(small integer grades), padded lines (few queries), the top rows with sums
restarting at each query either along a matrix or by one cumulative sum
(many short queries and a deep cutoff), or the row path with its tie-block
recurrence. Each input below is built to take one route, and one dimension
varies at a time: label kind, query count and sizes, cutoffs (one or
several), ties, and grades so large that ``2**g / 2**g_max`` rounds to 1 (a
row that always satisfies). Found missing by the mutation campaign of
``skirm/metrics/_err.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _reference import reference_per_query

from skirm.metrics import evaluate, get_metric


def _assert_err(
    y_true, y_score, groups, ks, ties="average", max_grade=None, atol=1e-300
):
    metrics = [get_metric(f"err@{k}" if k else "err", max_grade=max_grade) for k in ks]
    result = evaluate(y_true, y_score, groups=groups, metrics=metrics, ties=ties)
    for metric, k in zip(metrics, ks, strict=True):
        _, expected, _ = reference_per_query(
            "err", y_true, y_score, groups, k=k, ties=ties, max_grade=max_grade
        )
        np.testing.assert_allclose(
            result.per_query[metric.name], expected, rtol=1e-12, atol=atol
        )


def _many_short(seed, labels):
    """3,000 queries of one or two rows and one of ten, distinct scores."""
    rng = np.random.default_rng(seed)
    sizes = np.append(rng.integers(1, 3, size=3_000), 10)
    groups = np.repeat(np.arange(sizes.shape[0]), sizes)
    y_true = rng.choice(labels, size=groups.shape[0])
    y_score = rng.permutation(groups.shape[0]).astype(float)
    return y_true, y_score, groups


@pytest.mark.parametrize("ks", [(5,), (2, 5), (3, 9)])
@pytest.mark.parametrize(
    "labels",
    [
        np.array([0.0, 0.5, 1.0, 1.5, 3.0]),  # real grades: no grade table
        np.array([0, 1, 2, 3]),  # small integer grades
        np.array([0, 0, 0, 1, 4]),
    ],
)
def test_many_short_queries_and_a_deep_cutoff(labels, ks):
    _assert_err(*_many_short(int(labels.sum() * 10) + len(ks), labels), ks)


@pytest.mark.parametrize("ks", [(None,), (4,), (2, 6)])
@pytest.mark.parametrize("n_queries", [1, 40, 400])
def test_long_queries_along_lines(n_queries, ks):
    rng = np.random.default_rng(n_queries)
    groups = np.repeat(np.arange(n_queries), rng.integers(3, 12, size=n_queries))
    y_true = rng.choice([0.0, 0.5, 1.0, 2.0, 2.5], size=groups.shape[0])
    y_score = rng.permutation(groups.shape[0]).astype(float)
    _assert_err(y_true, y_score, groups, ks)
    _assert_err(np.round(y_true).astype(int), y_score, groups, ks, max_grade=4.0)


@pytest.mark.parametrize("ties", ["average", "first", "optimistic", "pessimistic"])
@pytest.mark.parametrize("ks", [(None,), (1,), (3,), (2, 4)])
def test_tie_blocks_cut_by_the_cutoff(ks, ties):
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 7, size=60)
    groups = np.repeat(np.arange(60), sizes)
    y_true = rng.choice([0, 1, 2, 3], size=groups.shape[0])
    y_score = rng.integers(0, 3, size=groups.shape[0]).astype(float)  # ties
    _assert_err(y_true, y_score, groups, ks, ties=ties)
    _assert_err(y_true + 0.5, y_score, groups, ks, ties=ties)


@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("ks", [(None,), (2,), (1, 3)])
@pytest.mark.parametrize("tied", [False, True])
def test_a_row_that_always_satisfies(tied, ks, ties):
    # 2**60 / 2**60 - 2**-60 rounds to 1: the user stops there for sure, and
    # every later row adds exactly nothing.
    rng = np.random.default_rng(60)
    sizes = rng.integers(1, 6, size=50)
    groups = np.repeat(np.arange(50), sizes)
    y_true = rng.choice([0.0, 1.0, 58.0, 60.0], size=groups.shape[0])
    if tied:
        y_score = rng.integers(0, 3, size=groups.shape[0]).astype(float)
    else:
        y_score = rng.permutation(groups.shape[0]).astype(float)
    # Averaged over a tie block, the stop probabilities come from products
    # of 1 - R, in which an R below 2**-53 (a grade of 1 under 60) is lost:
    # such values come out 0 where the reference has 1e-18, an absolute
    # error of a few units of the 16th decimal (documented).
    atol = 1e-15 if tied and ties == "average" else 1e-300
    _assert_err(y_true, y_score, groups, ks, ties=ties, atol=atol)
    result = evaluate(
        [60.0, 0.0, 60.0], [3.0, 2.0, 1.0], groups=[0, 0, 0], metrics=["err"]
    )
    assert result.per_query["err"].tolist() == [1.0]


def test_the_short_routes_equal_the_row_path_to_the_last_bit():
    # The same rows with integer grades (relevant rows only) and with those
    # grades as floats plus a query tied at the bottom (the row path).
    y_true, y_score, groups = _many_short(9, np.array([0, 1, 2, 3]))
    metric = get_metric("err@5", max_grade=3.0)
    fast = evaluate(y_true, y_score, groups=groups, metrics=[metric])
    slow = evaluate(
        y_true.astype(float), y_score, groups=groups, metrics=[metric], ties="first"
    )
    np.testing.assert_array_equal(fast.per_query["err@5"], slow.per_query["err@5"])


def test_regression_a_query_s_err_does_not_depend_on_the_queries_before_it():
    """Many short queries and a deep cutoff take the path of the top rows
    with sums over each query's earlier rows. Those sums were a cumulative
    sum over every query minus its total before the query, carrying the
    rounding of all earlier queries; each query's ERR now has the bits it
    has alone."""
    y_true, y_score, groups = _many_short(11, np.array([0.0, 0.5, 1.0, 1.5, 3.0]))
    metric = get_metric("err@9", max_grade=3.0)
    together = evaluate(y_true, y_score, groups=groups, metrics=[metric])
    values = together.per_query[metric.name]
    for q in np.random.default_rng(0).choice(groups.max() + 1, 60, replace=False):
        rows = groups == q
        alone = metric(y_true[rows], y_score[rows], groups=groups[rows])
        assert values[q] == alone, q


@pytest.mark.parametrize("ks", [(1,), (3,), (2, 7), (40,)])
@pytest.mark.parametrize("labels", ["integer", "real", "top grade 60"])
def test_the_top_tie_blocks_give_the_values_of_every_row_to_the_last_bit(
    monkeypatch, ks, labels
):
    # With tie blocks (ties="average"), ERR at a cutoff reads the rows of the
    # blocks that start above it (whole blocks, some straddling the cutoff):
    # the same bits as on every row of the ranking.
    import skirm.metrics._err

    rng = np.random.default_rng(len(ks) * 7 + len(labels))
    sizes = rng.integers(1, 30, size=80)
    groups = np.repeat(np.arange(80), sizes)
    n = groups.shape[0]
    grades = {
        "integer": np.array([0.0, 1.0, 2.0, 3.0]),
        "real": np.array([0.0, 0.5, 1.25, 3.0]),
        "top grade 60": np.array([0.0, 1.0, 60.0]),
    }[labels]
    y_true = rng.choice(grades, size=n)
    y_score = rng.integers(0, 4, size=n).astype(float)  # long tie blocks
    metrics = [f"err@{k}" for k in ks]
    top_blocks, kept = skirm.metrics._err._top_blocks, []

    def spy(ranking, depth):
        top = top_blocks(ranking, depth)
        kept.append(top.n_rows / ranking.n_rows)
        return top

    monkeypatch.setattr(skirm.metrics._err, "_top_blocks", spy)
    top = evaluate(y_true, y_score, groups=groups, metrics=metrics)
    # rows left out, but none past the longest query (29 rows)
    assert (min(kept) < 0.75) == (max(ks) < 40)
    monkeypatch.setattr(skirm.metrics._err, "_top_blocks", lambda r, depth: r)
    every = evaluate(y_true, y_score, groups=groups, metrics=metrics)
    for metric in metrics:
        np.testing.assert_array_equal(top.per_query[metric], every.per_query[metric])
