"""The engine's grouped sort against a plain lexsort, on awkward scores.

The fast path packs each score into a 64-bit key whose low bits are dropped;
these tests make sure every tie policy still gives exactly the order of a
stable lexsort, including scores that differ only in their last bits (their
rows sorted again), signed zeros, infinities, and non-contiguous groups.
"""

import numpy as np
import pytest

from skirm._engine import Judgments, encode_groups
from skirm._engine._rank import rank_rows

SPECIALS = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        1.0,
        np.nextafter(1.0, 2.0),
        np.nextafter(1.0, 0.0),
        5e-324,
        -5e-324,
        1e308,
        -1e308,
        1.0 + 2.0**-40,
    ]
)


def _scores(kind, n, rng):
    if kind == "specials":
        return rng.choice(SPECIALS, n)
    if kind == "normal":
        return rng.normal(size=n)
    if kind == "rounded":
        return np.round(rng.normal(size=n), 1)
    if kind == "close_some":
        # A few runs of colliding keys among distinct and tied scores (the
        # fused scores of reciprocal rank fusion: sums of the same terms in
        # other orders): only those rows are sorted again.
        scores = np.round(rng.normal(size=n), 2)
        some = rng.random(n) < 0.3
        scores[some] += rng.integers(0, 3, int(some.sum())) * 2.0**-50
        return scores
    # Distinct scores closer than the key's resolution, every one.
    return 1.0 + rng.integers(0, 5, n) * 2.0**-45


def _reference(y_true, y_score, codes, ties):
    n = y_true.shape[0]
    extra = {"first": [], "optimistic": [-y_true], "pessimistic": [y_true]}[ties]
    return np.lexsort((np.arange(n), *extra, -y_score, codes))


@pytest.mark.parametrize(
    "kind", ["specials", "normal", "rounded", "close", "close_some"]
)
@pytest.mark.parametrize("layout", ["sorted", "shuffled", "one_big_query"])
def test_order_matches_lexsort(kind, layout):
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(1, 250))
        groups = rng.integers(0, int(rng.integers(1, 15)), n)
        if layout == "sorted":
            groups = np.sort(groups)
        elif layout == "one_big_query":
            groups = np.zeros(n, dtype=np.int64)
            groups[-1] = 1
        y_score = _scores(kind, n, rng)
        y_true = rng.integers(0, 3, n).astype(np.float64)
        codes, ids = encode_groups(groups)
        for ties in ("first", "optimistic", "pessimistic"):
            ranking = rank_rows(y_true, y_score, codes, ids, ties)
            expected = _reference(y_true, y_score, codes, ties)
            np.testing.assert_array_equal(ranking.order, expected)
            # The rows' scores and labels travel with them.
            np.testing.assert_array_equal(ranking.scores, y_score[expected])
            np.testing.assert_array_equal(ranking.labels, y_true[expected])
        ranking = rank_rows(y_true, y_score, codes, ids, "average")
        assert np.all(np.diff(ranking.codes) >= 0)
        same = np.diff(ranking.codes) == 0
        assert np.all((ranking.scores[1:] <= ranking.scores[:-1])[same])
        np.testing.assert_array_equal(np.sort(ranking.order), np.arange(n))


def test_wide_query_uses_general_path():
    # A query wider than 2**16 rows does not fit the key's low bits.
    rng = np.random.default_rng(6)
    n = (1 << 16) + 10
    y_score = np.round(rng.normal(size=n), 2)
    y_true = rng.integers(0, 2, n).astype(np.float64)
    groups = np.zeros(n, dtype=np.int64)
    groups[:5] = 1
    codes, ids = encode_groups(groups)
    ranking = rank_rows(y_true, y_score, codes, ids, "first")
    np.testing.assert_array_equal(
        ranking.order, _reference(y_true, y_score, codes, "first")
    )


def test_ties_are_averaged_unless_a_policy_is_given():
    y_true = np.array([1.0, 0.0, 0.0, 2.0])
    y_score = np.array([0.5, 0.5, 0.2, 0.2])
    codes, ids = encode_groups(np.zeros(4, dtype=np.int64))
    ranking = rank_rows(y_true, y_score, codes, ids)
    assert ranking.ties == "average"
    assert ranking.has_ties
    # Two tie blocks of two rows, over which the metrics average.
    np.testing.assert_array_equal(ranking.tie_blocks.start, [0, 2])
    np.testing.assert_array_equal(ranking.tie_blocks.size, [2, 2])
    assert not rank_rows(y_true, y_score, codes, ids, "first").has_ties


def test_judgments_given_to_rank_count_relevant_rows_not_ranked():
    # Query 0 ranks two of its three judged documents (the relevant one of
    # grade 2 is missing); query 1 ranks its only judged one.
    y_true = np.array([1.0, 0.0, 1.0])
    y_score = np.array([0.9, 0.8, 0.7])
    codes, ids = encode_groups(np.array([0, 0, 1]))
    judgments = Judgments(np.array([0, 0, 0, 1]), np.array([1.0, 0.0, 2.0, 1.0]))
    ranking = rank_rows(y_true, y_score, codes, ids, "first", judgments=judgments)
    np.testing.assert_array_equal(ranking.n_relevant(), [2.0, 1.0])
    ideal = ranking.ideal_dcg(lambda labels: 2.0**labels - 1)
    np.testing.assert_allclose(ideal, [3 + 1 / np.log2(3), 1.0], rtol=1e-15)
    alone = rank_rows(y_true, y_score, codes, ids, "first")
    np.testing.assert_array_equal(alone.n_relevant(), [1.0, 1.0])


def test_encode_groups_never_hands_out_the_input():
    groups = np.array([0, 0, 1, 2, 2], dtype=np.int64)
    codes, ids = encode_groups(groups)
    np.testing.assert_array_equal(codes, groups)
    np.testing.assert_array_equal(ids, [0, 1, 2])
    with pytest.raises(ValueError, match="read-only"):
        codes[0] = 5
    assert groups[0] == 0
