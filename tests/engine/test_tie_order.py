"""The order of tied rows: each tie policy, and a tiebreak (the TREC path's
docnos), reordering tie blocks a range of ranked rows at a time.

Every order is compared with a plain lexsort of (query, -score, policy key,
row) on generated rows with long tie blocks, -0.0 and 0.0 among the scores,
for similar query sizes, very different ones and one wide query, with the
range of rows shrunk so that blocks straddle several ranges.
"""

import numpy as np
import pytest

import skirm._engine._rank
from skirm._engine._rank import rank_rows


def _tied_rows(seed, sizes):
    """Labels, scores (few values: long tie blocks, -0.0 and 0.0 among
    them) and query codes in shuffled row order, for the given query sizes."""
    rng = np.random.default_rng(seed)
    codes = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    n = codes.shape[0]
    scores = rng.choice(np.array([2.5, 1.0, 0.0, -0.0, -3.0]), n)
    labels = rng.integers(0, 4, n).astype(np.float64)
    return labels, scores, codes


def _expected_order(labels, scores, codes, ties, tiebreak=None):
    """The rank order by plain lexsort: query, score descending, then the
    tie policy, then the row."""
    rows = np.arange(codes.shape[0])
    neg = -scores
    neg[neg == 0.0] = 0.0  # -0.0 and 0.0 are one score
    keys = {
        "first": [],
        "optimistic": [-labels],
        "pessimistic": [labels],
    }[ties]
    if tiebreak is not None:
        keys = [tiebreak]
    return np.lexsort((rows, *keys[::-1], neg, codes))


SIZE_LAYOUTS = {
    # similar sizes: the segmented sort; uneven ones and one query wider
    # than 2**16: the general path (argsort of all the scores)
    "similar": [40] * 30,
    "uneven": [3000] + [2] * 600,
    "one wide query": [70_000],
}


@pytest.mark.parametrize("layout", list(SIZE_LAYOUTS))
@pytest.mark.parametrize(
    "ties",
    [
        "first",
        "optimistic",
        "pessimistic",
        # integer keys packed with the block and the row into one key; keys
        # too wide for that, unsigned past 2**63 or floats: a lexsort
        "tiebreak",
        "tiebreak wide",
        "tiebreak uint64",
        "tiebreak float",
    ],
)
@pytest.mark.parametrize("tie_rows", [5, 1 << 18])
def test_tie_blocks_reordered_range_by_range_give_the_lexsort_order(
    monkeypatch, layout, ties, tie_rows
):
    # tie blocks are reordered TIE_ROWS ranked rows at a time (whole
    # blocks): any range size gives the order of one lexsort of every row
    monkeypatch.setattr(skirm._engine._rank, "TIE_ROWS", tie_rows)
    labels, scores, codes = _tied_rows(1, SIZE_LAYOUTS[layout])
    n_groups = len(SIZE_LAYOUTS[layout])
    group_ids = np.arange(n_groups)
    rng = np.random.default_rng(2)
    key = rng.integers(0, 50, codes.shape[0])
    if ties == "tiebreak wide":
        key = key * (1 << 56) - (1 << 62)
    elif ties == "tiebreak uint64":
        key = key.astype(np.uint64) + np.uint64(1 << 63)
    elif ties == "tiebreak float":
        key = key * 0.5
    tiebreak = ties.startswith("tiebreak")
    expected = _expected_order(
        labels,
        scores,
        codes,
        "first" if tiebreak else ties,
        key if tiebreak else None,
    )
    if tiebreak:
        got = [
            rank_rows(labels, scores, codes, group_ids, tiebreak=key),
            # a function of the tied rows, asked only about them
            rank_rows(
                labels, scores, codes, group_ids, tiebreak=lambda rows: key[rows]
            ),
        ]
    else:
        got = [rank_rows(labels, scores, codes, group_ids, ties)]
    for ranking in got:
        np.testing.assert_array_equal(ranking.order, expected)
        np.testing.assert_array_equal(ranking.labels, labels[expected])
        np.testing.assert_array_equal(ranking.codes, codes[expected])
        # the very scores of the rows: -0.0 stays -0.0
        np.testing.assert_array_equal(
            ranking.scores.view(np.uint64), scores[expected].view(np.uint64)
        )


def test_a_tiebreak_function_is_asked_about_whole_tie_blocks_only(monkeypatch):
    monkeypatch.setattr(skirm._engine._rank, "TIE_ROWS", 7)
    labels, scores, codes = _tied_rows(3, [500, 20, 1])
    asked = []

    def key(rows):
        asked.append(rows.copy())
        return -rows  # row descending

    ranking = rank_rows(labels, scores, codes, np.arange(3), tiebreak=key)
    seen = np.concatenate(asked)
    assert len(asked) > 1  # range by range
    assert np.unique(seen).shape[0] == seen.shape[0]
    # every row asked about has a tied row in its query, and every such row
    # is asked about
    neg = np.where(scores == 0.0, 0.0, -scores)
    pairs = codes.astype(np.float64) * 100 + neg
    tied = np.unique(pairs, return_counts=True)
    multi = set(tied[0][tied[1] > 1].tolist())
    assert set(seen.tolist()) == {i for i in range(codes.shape[0]) if pairs[i] in multi}
    expected = _expected_order(
        labels, scores, codes, "first", -np.arange(codes.shape[0])
    )
    np.testing.assert_array_equal(ranking.order, expected)


@pytest.mark.parametrize("ties", ["average", "first"])
def test_one_wide_query_skips_the_sort_of_its_codes(monkeypatch, ties):
    # one query wider than 2**16 takes the general path: the stable sort of
    # the query codes (all 0) would leave the score order as it is
    labels, scores, codes = _tied_rows(4, [70_000])
    scores = scores + np.random.default_rng(5).integers(0, 1000, scores.shape[0])
    calls = []
    sort = skirm._engine._rank.stable_code_sort
    monkeypatch.setattr(
        skirm._engine._rank,
        "stable_code_sort",
        lambda *a: calls.append(1) or sort(*a),
    )
    again = rank_rows(labels, scores, codes, np.arange(1), ties)
    assert not calls
    o = np.argsort(np.negative(scores))
    np.testing.assert_array_equal(o[sort(codes[o], 1)], o)
    if ties == "first":
        np.testing.assert_array_equal(
            again.order, _expected_order(labels, scores, codes, "first")
        )


@pytest.mark.parametrize(
    ("span", "low"),
    [
        (2**61, 0),
        (1_300_000_000_000_000_000, 0),
        (2**62 + 1, 0),
        ((2**63 - 1) // 9, 2**58),  # just inside the bound, keys far from 0
    ],
)
def test_packed_tie_keys_fall_back_to_lexsort_before_they_overflow(span, low):
    # (block, key, row) packed in one int64 while blocks x key span x rows
    # stays below 2**63; past it the three keys are sorted apart. Spans
    # chosen so that the packed key of the last row would pass 2**63 when
    # the bound read a smaller block count or allowed up to 2**64, or when
    # the keys were not taken from their smallest.
    from skirm._engine._rank import _by_block_key_row

    block = np.array([1, 1, 2])
    rows = np.array([0, 1, 2])
    key = np.array([span - 1, 0, span - 1], dtype=np.int64) + low
    expected = np.lexsort((rows, key, block))
    np.testing.assert_array_equal(_by_block_key_row(block, key, rows, 3), expected)
    np.testing.assert_array_equal(expected, [1, 0, 2])


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("ties", ["first", "optimistic"])
def test_queries_of_one_size_sort_in_place_of_a_padded_matrix(grouped, ties):
    # every query of one size: the segmented sort's matrix is the keys
    # themselves (no padding, no cells); the same order as the lexsort,
    # rows grouped by query or not, with and without ties
    labels, scores, codes = _tied_rows(3, [25] * 40)
    if grouped:
        codes = np.sort(codes)
    distinct = np.random.default_rng(4).permutation(codes.shape[0]) - 300.0
    for y_score in (scores, distinct):
        expected = _expected_order(labels, y_score, codes, ties)
        ranking = rank_rows(labels, y_score, codes, np.arange(40), ties)
        np.testing.assert_array_equal(ranking.order, expected)
        np.testing.assert_array_equal(ranking.starts, np.arange(0, 1001, 25))
