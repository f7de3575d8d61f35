"""Worked examples from well-known tutorials, with their exact values.

Each example is one query whose rows are listed in rank order: the scores are
simply decreasing (n, n-1, ..., 1), so there are no ties. Unless a comment
says otherwise, every relevant row of the query is in the list, so R and the
ideal DCG come from the listed labels ("the ideal of the listed labels only":
the tutorials sort the same labels to get the ideal ranking). Several
tutorials print values computed from rounded intermediates; the values here
are the exact ones, rounded to 4 decimals, checked with abs=5e-5.
"""

import numpy as np
import pytest

import skirm

APPROX = dict(abs=5e-5)


def _one_query(labels):
    """``y_true, y_score, groups`` for labels given in rank order."""
    y_true = np.asarray(labels, dtype=float)
    n = y_true.shape[0]
    return y_true, np.arange(n, 0, -1, dtype=float), np.zeros(n, dtype=int)


def _relevant_at(positions, n):
    """Binary labels of a list of ``n`` rows, relevant at 1-based positions."""
    labels = np.zeros(n)
    labels[np.asarray(positions) - 1] = 1
    return labels


# Relevant rows at ranks 2, 4, 5, 7 of 8 (R = 4).
RECALL_AT = [0, 0.25, 0.25, 0.5, 0.75, 0.75, 1, 1]
PRECISION_AT = [0, 0.5, 0.3333, 0.5, 0.6, 0.5, 0.5714, 0.5]


@pytest.mark.parametrize("k", range(1, 9))
def test_recall_and_precision_at_k_relevant_at_2_4_5_7(k):
    y_true, y_score, groups = _one_query(_relevant_at([2, 4, 5, 7], 8))
    recall = skirm.recall_at_k_score(y_true, y_score, groups=groups, k=k)
    precision = skirm.precision_at_k_score(y_true, y_score, groups=groups, k=k)
    assert recall == pytest.approx(RECALL_AT[k - 1], **APPROX)
    assert precision == pytest.approx(PRECISION_AT[k - 1], **APPROX)


def test_mrr_first_relevant_at_ranks_2_1_5():
    # Three queries of 5 rows whose only relevant row is at rank 2, 1 and 5:
    # (1/2 + 1 + 1/5) / 3.
    y_true = np.concatenate([_relevant_at([r], 5) for r in (2, 1, 5)])
    y_score = np.tile(np.arange(5, 0, -1, dtype=float), 3)
    groups = np.repeat(["q1", "q2", "q3"], 5)
    got = skirm.mean_reciprocal_rank_score(y_true, y_score, groups=groups)
    assert got == pytest.approx(0.5667, **APPROX)


@pytest.mark.parametrize(
    "positions, expected",
    [([2, 4, 5, 7], 0.5429), ([1, 4, 5, 7], 0.6679), ([5, 8], 0.225)],
)
def test_average_precision_of_one_query(positions, expected):
    # All relevant rows are in the 8-row list, so R is their count.
    y_true, y_score, groups = _one_query(_relevant_at(positions, 8))
    got = skirm.mean_average_precision_score(y_true, y_score, groups=groups)
    assert got == pytest.approx(expected, **APPROX)


def test_mean_average_precision_of_three_queries():
    # The three queries above together: (0.5429 + 0.6679 + 0.225) / 3.
    lists = ([2, 4, 5, 7], [1, 4, 5, 7], [5, 8])
    y_true = np.concatenate([_relevant_at(p, 8) for p in lists])
    y_score = np.tile(np.arange(8, 0, -1, dtype=float), 3)
    groups = np.repeat([10, 20, 30], 8)
    got = skirm.mean_average_precision_score(y_true, y_score, groups=groups)
    assert got == pytest.approx(0.4786, **APPROX)


# Labels in rank order [0, 4, 1, 3, 4, 1, 3, 2], linear gain; the ideal is the
# same labels sorted descending, [4, 4, 3, 3, 2, 1, 1, 0].
GRADED = [0, 4, 1, 3, 4, 1, 3, 2]
NDCG_AT = [0, 0.3869, 0.3768, 0.4633, 0.5811, 0.5954, 0.6698, 0.7283]


def test_dcg_at_8_of_graded_list():
    y_true, y_score, groups = _one_query(GRADED)
    got = skirm.dcg_score(y_true, y_score, groups=groups, k=8)
    assert got == pytest.approx(7.8503, **APPROX)


@pytest.mark.parametrize("k", range(1, 9))
def test_ndcg_at_k_of_graded_list(k):
    y_true, y_score, groups = _one_query(GRADED)
    got = skirm.ndcg_score(y_true, y_score, groups=groups, k=k)
    assert got == pytest.approx(NDCG_AT[k - 1], **APPROX)


@pytest.mark.parametrize(
    "labels, expected", [([5, 2, 4, 0, 1], 8.6487), ([2, 0, 5, 1, 4], 6.4781)]
)
def test_dcg_at_5(labels, expected):
    y_true, y_score, groups = _one_query(labels)
    got = skirm.dcg_score(y_true, y_score, groups=groups, k=5)
    assert got == pytest.approx(expected, **APPROX)


def test_ndcg_at_3_of_three_listed_labels():
    # Only the three listed rows exist: the ideal is [5, 4, 2].
    y_true, y_score, groups = _one_query([5, 2, 4])
    got = skirm.ndcg_score(y_true, y_score, groups=groups, k=3)
    assert got == pytest.approx(0.9693, **APPROX)


def test_ndcg_at_5_of_five_listed_labels():
    # The ideal is the listed labels sorted: [5, 4, 2, 1, 0].
    y_true, y_score, groups = _one_query([5, 2, 4, 0, 1])
    got = skirm.ndcg_score(y_true, y_score, groups=groups, k=5)
    assert got == pytest.approx(0.9659, **APPROX)


@pytest.mark.parametrize(
    "labels, expected", [([2, 3, 3, 1, 2], 6.5972), ([3, 3, 2, 2, 1], 7.1410)]
)
def test_dcg_of_whole_list(labels, expected):
    # The second list is the first one sorted: its ideal ordering.
    y_true, y_score, groups = _one_query(labels)
    got = skirm.dcg_score(y_true, y_score, groups=groups)
    assert got == pytest.approx(expected, **APPROX)
    assert skirm.ndcg_score(y_true, y_score, groups=groups) == pytest.approx(
        expected / 7.1410, **APPROX
    )


def test_ndcg_at_5_exponential_gain():
    # Gains 2^label - 1 = [7, 3, 7, 0, 1]; the ideal is [3, 3, 2, 1, 0], the
    # listed labels sorted.
    y_true, y_score, groups = _one_query([3, 2, 3, 0, 1])
    got = skirm.ndcg_score(y_true, y_score, groups=groups, k=5, gain="exponential")
    assert got == pytest.approx(0.9575, **APPROX)
    linear = skirm.ndcg_score(y_true, y_score, groups=groups, k=5)
    assert linear != pytest.approx(0.9575, **APPROX)


def test_ndcg_is_0_where_every_exponential_gain_rounds_to_0():
    # 2^(1e-20) - 1 is 0 in float64: the first query has a relevant row
    # (label > 0) but an ideal DCG of 0, and scores 0; the second scores 1.
    y_true = [1e-20, 0, 1, 0]
    y_score, groups = [2, 1, 2, 1], [0, 0, 1, 1]
    got = skirm.ndcg_score(y_true, y_score, groups=groups, gain="exponential")
    assert got == 0.5
    skipped = skirm.ndcg_score(
        y_true, y_score, groups=groups, gain="exponential", no_relevant="skip"
    )
    assert skipped == 0.5


def test_recall_and_capped_recall_at_5():
    # R R R N N R R R N R: 7 relevant rows, 3 of them in the top 5.
    y_true, y_score, groups = _one_query([1, 1, 1, 0, 0, 1, 1, 1, 0, 1])
    recall = skirm.recall_at_k_score(y_true, y_score, groups=groups, k=5)
    capped = skirm.capped_recall_at_k_score(y_true, y_score, groups=groups, k=5)
    assert recall == pytest.approx(3 / 7, rel=1e-12)
    assert capped == pytest.approx(0.6, rel=1e-12)
