"""skirm.ndcg_score / dcg_score are a drop-in superset of scikit-learn's.

With 2-D input and ``groups=None`` (one query per row) they must equal
:func:`sklearn.metrics.ndcg_score` / :func:`sklearn.metrics.dcg_score` for the
same arguments: ``k``, ``sample_weight``, ``ignore_ties``, ``log_base``, with
and without tied scores. Flat input with ``groups`` must equal scikit-learn on
the matrix built from it, where the conventions match (equal-size queries, or
zero-label padding rows ranked last, which add nothing to DCG).
"""

import numpy as np
import pytest
import sklearn.metrics as skm

import skirm

pytestmark = pytest.mark.oracle

SEEDS = range(12)
KS = (None, 1, 2, 3, 5, 10)


def _matrix(rng, ties):
    n_queries = int(rng.integers(1, 6))
    n_docs = int(rng.integers(2, 9))
    y_true = rng.integers(0, 5, size=(n_queries, n_docs)).astype(float)
    if ties:
        y_score = rng.integers(0, 3, size=(n_queries, n_docs)).astype(float)
    else:
        y_score = rng.normal(size=(n_queries, n_docs))
    return y_true, y_score


@pytest.mark.parametrize("ties", [False, True], ids=["no_ties", "ties"])
@pytest.mark.parametrize("seed", SEEDS)
def test_ndcg_and_dcg_match_sklearn_on_2d_input(seed, ties):
    rng = np.random.default_rng(seed)
    y_true, y_score = _matrix(rng, ties)
    weights = rng.uniform(0.1, 3.0, size=y_true.shape[0])
    if ties:
        assert any(len(np.unique(row)) < len(row) for row in y_score)
    for k in KS:
        for ignore_ties in (False, True):
            for sample_weight in (None, weights):
                common = dict(k=k, ignore_ties=ignore_ties, sample_weight=sample_weight)
                assert skirm.ndcg_score(y_true, y_score, **common) == pytest.approx(
                    skm.ndcg_score(y_true, y_score, **common), rel=1e-12, abs=1e-15
                )
                for log_base in (2, 10, np.e):
                    got = skirm.dcg_score(y_true, y_score, log_base=log_base, **common)
                    expected = skm.dcg_score(
                        y_true, y_score, log_base=log_base, **common
                    )
                    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_sklearn_ties_example():
    # scikit-learn's own docstring example: two tied scores.
    y_true = np.asarray([[10, 0, 0, 1, 5]])
    y_score = np.asarray([[1, 0, 0, 0, 1]])
    assert skirm.ndcg_score(y_true, y_score, k=1) == pytest.approx(
        skm.ndcg_score(y_true, y_score, k=1)
    )
    assert skirm.ndcg_score(y_true, y_score, k=1) == pytest.approx(0.75)
    assert skirm.ndcg_score(y_true, y_score, k=1, ignore_ties=True) == pytest.approx(
        skm.ndcg_score(y_true, y_score, k=1, ignore_ties=True)
    )


def test_query_without_relevant_rows_scores_zero_like_sklearn():
    y_true = np.array([[0, 0, 0], [2, 0, 1]], dtype=float)
    y_score = np.array([[0.3, 0.2, 0.1], [0.1, 0.3, 0.2]])
    expected = skm.ndcg_score(y_true, y_score)
    assert skirm.ndcg_score(y_true, y_score) == pytest.approx(expected)
    assert skirm.ndcg_score(y_true, y_score, no_relevant=0.0) == pytest.approx(expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_flat_input_with_groups_matches_sklearn_on_the_matrix(seed):
    # Equal-size queries, rows shuffled and interleaved, string query ids.
    rng = np.random.default_rng(100 + seed)
    ties = seed % 2 == 1
    y_true, y_score = _matrix(rng, ties)
    n_queries, n_docs = y_true.shape
    groups = np.repeat([f"query-{i}" for i in range(n_queries)], n_docs)
    perm = rng.permutation(groups.shape[0])
    flat = dict(groups=groups[perm])
    weights = rng.uniform(0.1, 3.0, size=n_queries)
    for k in KS:
        for sample_weight in (None, weights):
            row_weight = None if sample_weight is None else np.repeat(weights, n_docs)
            for function, reference in (
                (skirm.ndcg_score, skm.ndcg_score),
                (skirm.dcg_score, skm.dcg_score),
            ):
                got = function(
                    y_true.ravel()[perm],
                    y_score.ravel()[perm],
                    k=k,
                    sample_weight=None if row_weight is None else row_weight[perm],
                    **flat,
                )
                expected = reference(y_true, y_score, k=k, sample_weight=sample_weight)
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
def test_ragged_queries_match_sklearn_on_the_padded_matrix(seed):
    # Queries of different sizes: pad each to the widest with label-0 rows
    # scored below every real row. Padding adds no gain to DCG or ideal DCG,
    # and, ranked last, does not move any real row, so NDCG and DCG agree.
    rng = np.random.default_rng(200 + seed)
    sizes = rng.integers(1, 8, size=int(rng.integers(1, 6)))
    width = int(sizes.max())
    y_true = np.zeros((sizes.shape[0], width))
    y_score = np.full((sizes.shape[0], width), -1e9)
    flat_true, flat_score, groups = [], [], []
    for q, size in enumerate(sizes):
        labels = rng.integers(0, 4, size=size).astype(float)
        scores = rng.integers(0, 4, size=size).astype(float)
        y_true[q, :size] = labels
        y_score[q, :size] = scores
        flat_true.extend(labels)
        flat_score.extend(scores)
        groups.extend([q] * size)
    for k in KS:
        for function, reference in (
            (skirm.ndcg_score, skm.ndcg_score),
            (skirm.dcg_score, skm.dcg_score),
        ):
            got = function(flat_true, flat_score, groups=groups, k=k)
            expected = reference(y_true, y_score, k=k)
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_ignore_ties_on_flat_input_keeps_input_order(seed):
    # For 1-D input, scikit-learn's ignore_ties=True becomes "input order among
    # ties", whatever ``ties`` says.
    rng = np.random.default_rng(300 + seed)
    y_true = rng.integers(0, 4, size=12).astype(float)
    y_score = rng.integers(0, 2, size=12).astype(float)
    groups = np.repeat([0, 1], 6)
    for function in (skirm.ndcg_score, skirm.dcg_score):
        for k in (None, 2, 4):
            first = function(y_true, y_score, groups=groups, k=k, ties="first")
            for ties in ("average", "optimistic", "pessimistic"):
                got = function(
                    y_true, y_score, groups=groups, k=k, ties=ties, ignore_ties=True
                )
                assert got == first
    # And on the matrix it equals scikit-learn's, ties broken its way.
    matrix_true, matrix_score = y_true.reshape(2, 6), y_score.reshape(2, 6)
    assert skirm.ndcg_score(matrix_true, matrix_score, ignore_ties=True) == (
        pytest.approx(skm.ndcg_score(matrix_true, matrix_score, ignore_ties=True))
    )
