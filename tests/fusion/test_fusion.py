"""skirm.fusion's kernels against the slow reference of skirm's rules
(tests/_fusion.py), on runs generated one dimension at a time; and the
properties the rules promise: no dependence on the order of rows or on
query labels, ties as the mean over their orders, weight 0 as leaving a
retriever out, rows no retriever returned last."""

import itertools

import numpy as np
import pytest
from _fusion import (
    DIMENSIONS,
    RANK_METHODS,
    SCORE_METHODS,
    aligned,
    as_values,
    make_runs,
    reference_fuse,
)

import skirm
from skirm.fusion import fuse_scores, normalize_scores
from skirm.fusion._search import best_weights, weight_grid

NORMS = ("min-max", "max", "sum", "zscore", "rank", "borda", "none")
CASES = [(m, "min-max") for m in RANK_METHODS] + [
    (m, n) for m in SCORE_METHODS for n in NORMS
]


def _fused(runs, method, norm, **kwargs):
    keys, X, groups = aligned(runs)
    got = fuse_scores(X, groups=groups, method=method, norm=norm, **kwargs)
    want = as_values(reference_fuse(runs, method, norm, **kwargs), keys)
    # the rows only runs of weight 0 returned: left out, ranked last
    return got, np.where(np.isnan(want), -np.inf, want), groups


@pytest.mark.parametrize("dimension", DIMENSIONS)
@pytest.mark.parametrize(("method", "norm"), CASES)
def test_every_method_and_norm_equals_the_reference(dimension, method, norm):
    for seed in range(3):
        runs = make_runs(dimension, seed)
        if norm == "max" and dimension == "negative":
            continue  # refused: see test_max_norm_refuses_a_non_positive_maximum
        got, want, _ = _fused(runs, method, norm)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("method", "norm"), CASES)
def test_weights_equal_the_reference(method, norm):
    runs = make_runs("plain", 7)
    for weights in ([0.5, 2.0, 1.0], [0.0, 1.0, 0.25], [0.0, 0.0, 3.0]):
        got, want, _ = _fused(runs, method, norm, weights=weights)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("method", "norm"), CASES)
def test_weight_zero_leaves_the_retriever_out(method, norm):
    runs = make_runs("missing", 3)
    _keys, X, groups = aligned(runs)
    got = fuse_scores(X, groups=groups, method=method, norm=norm, weights=[1, 0, 2])
    # the rows only the left-out retriever returned rank last
    only = np.isnan(X[:, 0]) & np.isnan(X[:, 2])
    assert only.any() and np.all(got[only] == -np.inf)
    kept = np.flatnonzero(~only)
    without = fuse_scores(
        X[kept][:, [0, 2]],
        groups=np.asarray(groups)[kept],
        method=method,
        norm=norm,
        weights=[1, 2],
    )
    np.testing.assert_array_equal(got[kept], without)


@pytest.mark.parametrize(("method", "norm"), CASES)
def test_the_order_of_rows_and_the_query_labels_change_nothing(method, norm):
    rng = np.random.default_rng(0)
    _, X, groups = aligned(make_runs("ties", 1))
    want = fuse_scores(X, groups=groups, method=method, norm=norm)
    order = rng.permutation(X.shape[0])
    relabelled = {q: 1000 - i for i, q in enumerate(sorted(set(groups)))}
    labels = np.array([relabelled[q] for q in groups])
    got = fuse_scores(X[order], groups=labels[order], method=method, norm=norm)
    np.testing.assert_allclose(got, want[order], rtol=1e-13, atol=1e-15)


def _orders(scores):
    """Every order of the rows by score descending, ties in any order."""
    values = sorted(set(scores), reverse=True)
    blocks = [[i for i, s in enumerate(scores) if s == v] for v in values]
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [i for part in parts for i in part]


@pytest.mark.parametrize("method", RANK_METHODS)
def test_a_tie_is_the_mean_over_the_orders_of_the_tied_documents(method):
    # One query, two retrievers with ties; each order of each tie broken by
    # distinct scores, fused, and averaged: the expected value.
    X = np.array([[3.0, 1.0], [3.0, 1.0], [3.0, 2.0], [1.0, np.nan], [1.0, 0.5]])
    groups = np.zeros(X.shape[0])
    got = fuse_scores(X, groups=groups, method=method, k=1.0)
    total, count = np.zeros(X.shape[0]), 0
    columns = [np.flatnonzero(~np.isnan(X[:, j])) for j in range(2)]
    orders = [list(_orders(X[rows, j].tolist())) for j, rows in enumerate(columns)]
    for a, b in itertools.product(*orders):
        broken = np.full(X.shape, np.nan)
        for j, (rows, order) in enumerate(zip(columns, (a, b), strict=True)):
            broken[rows[order], j] = -np.arange(len(order), dtype=float)
        total += fuse_scores(broken, groups=groups, method=method, k=1.0)
        count += 1
    np.testing.assert_allclose(got, total / count, rtol=1e-13)


def test_rows_no_retriever_returned_rank_last():
    X = np.array([[1.0, np.nan], [np.nan, np.nan], [0.5, 2.0]])
    for method in ("rrf", "combsum", "combmax", "combmin", "combanz"):
        fused = fuse_scores(X, groups=[0, 0, 0], method=method, norm="zscore")
        assert fused[1] == -np.inf and np.isfinite(fused[[0, 2]]).all()


def test_degenerate_queries_follow_the_stated_rules():
    # one document, and three equal scores
    X = np.array([[5.0], [2.0], [2.0], [2.0]])
    groups = [0, 1, 1, 1]
    rows = {
        "min-max": [1.0, 1.0, 1.0, 1.0],
        "sum": [1.0, 1 / 3, 1 / 3, 1 / 3],
        "zscore": [0.0, 0.0, 0.0, 0.0],
        "max": [1.0, 1.0, 1.0, 1.0],
        "rank": [1.0, 2 / 3, 2 / 3, 2 / 3],
        "none": [5.0, 2.0, 2.0, 2.0],
    }
    for norm, want in rows.items():
        got = normalize_scores(X, groups=groups, norm=norm)[:, 0]
        np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=norm)


def test_max_norm_refuses_a_non_positive_maximum():
    X = np.array([[2.0, 1.0], [-1.0, -0.5]])
    with pytest.raises(
        skirm.InvalidInputError,
        match=r"norm='max' .* must be positive, got -1.0 for query 'b' of column 0",
    ):
        fuse_scores(X, groups=["a", "b"], method="combsum", norm="max")


def test_normalize_scores_gives_each_column_its_norm():
    runs = make_runs("missing", 5)
    keys, X, groups = aligned(runs)
    for norm in NORMS:
        if norm == "max":
            continue
        got = normalize_scores(X, groups=groups, norm=norm)
        for j in range(len(runs)):
            # a run's normalisation: CombSUM of it alone, among the others'
            # candidates for Borda
            weights = np.eye(len(runs))[j]
            want = reference_fuse(runs, "combsum", norm, weights=weights)
            expected = as_values(want, keys)
            if norm == "borda":  # Borda's candidates are every run's documents
                continue
            np.testing.assert_allclose(got[:, j], expected, rtol=1e-12, atol=1e-12)


def test_inputs_are_not_modified():
    _, X, groups = aligned(make_runs("ties", 2))
    before = X.copy()
    fuse_scores(X, groups=groups, method="combmnz", norm="rank")
    normalize_scores(X, groups=groups, norm="borda")
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize(
    ("X", "match"),
    [
        (np.array([1.0, 2.0]), r"^`X` must be 2-D with one column per retriever"),
        (np.zeros((2, 0)), r"^`X` must be 2-D"),
        (np.array([["a"], ["b"]]), r"^`X` must be a 2-D array of scores"),
        (np.array([[1.0], [np.inf]]), r"^`X` must hold finite scores .* row 1"),
    ],
)
def test_bad_scores_are_invalid_input(X, match):
    with pytest.raises(skirm.InvalidInputError, match=match):
        fuse_scores(X, groups=np.zeros(len(X)))


def test_bad_weights_and_groups_are_refused():
    X = np.ones((3, 2))
    with pytest.raises(skirm.InvalidParameterError, match=r"^`weights` must hold one"):
        fuse_scores(X, groups=[0, 0, 1], weights=[1.0, 2.0, 3.0])
    with pytest.raises(skirm.InvalidParameterError, match=r"^`groups` is required"):
        fuse_scores(X, groups=None)
    with pytest.raises(skirm.InvalidInputError, match=r"^`groups` must have one"):
        fuse_scores(X, groups=[0, 1])


def test_the_weight_grid_holds_every_vector_once():
    grid = weight_grid(3, 0.1)
    assert grid.shape == (66, 3)
    np.testing.assert_allclose(grid.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert len({tuple(np.round(row * 10).astype(int)) for row in grid}) == 66
    assert weight_grid(1, 0.5).tolist() == [[1.0]]
    assert weight_grid(2, 0.25).tolist() == [
        [1.0, 0.0], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75], [0.0, 1.0],
    ]  # fmt: skip
    with pytest.raises(skirm.InvalidParameterError, match=r"^`weight_step`=0.01 gives"):
        weight_grid(6, 0.01)


def test_the_best_weights_among_equals_are_the_nearest_to_equal():
    grid = weight_grid(2, 0.25)
    scores = np.array([[1.0, 0.2], [0.5, 0.9], [1.0, 0.3], [1.0, np.nan], [0.1, 0.9]])
    assert best_weights(grid, scores).tolist() == [2, 1]
    assert best_weights(grid, np.full(5, np.nan)).tolist() == [2]


def test_no_rows_and_retrievers_without_rows_fuse_to_nothing():
    # Regression: an empty X, and a run without a line, reached numpy's
    # reductions of empty arrays (ValueError: zero-size array to reduction).
    empty = np.zeros((0, 2))
    for method in ("rrf", "borda", "combmnz"):
        assert fuse_scores(
            empty, groups=np.zeros(0, dtype=int), method=method
        ).shape == (0,)
    assert normalize_scores(empty, groups=[], norm="borda").shape == (0, 2)
    from skirm.trec import fuse

    assert len(fuse([{"q": {}}])) == 0
    assert fuse([{"q": {}}, {"q": {"a": 1.0}}], method="borda").scores.tolist() == [2.0]
