"""The ranking object against plain loops over its rows.

Every query's rows, in rank order, with tie blocks of random sizes, empty
queries and judgments beyond the ranked rows: each quantity the metric
kernels read (positions, the top rows, sums per query, tie-block means and
sums, the rows above, relevance at several thresholds, R, the probability of
being the first relevant row, discounts, the label counts and the ideal DCG)
is compared with a loop over the rows, query by query.
"""

import itertools
import math

import numpy as np
import pytest

from skirm._engine import Judgments, Ranking, relabel
from skirm._engine._ranking import block_starts


def _queries(seed, n_groups=12, max_size=9, empty=True, integer=True):
    """Per query: its labels and scores in rank order (ties of 1 to 4 rows)."""
    rng = np.random.default_rng(seed)
    queries = []
    for q in range(n_groups):
        size = int(rng.integers(0 if empty else 1, max_size + 1))
        if q == n_groups - 1 and empty:
            size = 0  # the last query empty: sizes counted with minlength
        steps = rng.integers(0, 2, size)  # 0: tied with the row above
        scores = 10.0 - np.cumsum(steps).astype(np.float64)
        labels = rng.integers(0, 4, size).astype(np.float64)
        if not integer:
            labels = np.round(labels * rng.random(size), 2)
        queries.append((labels, scores))
    return queries


def _ranking(queries, ties="average", judgments=None, counted=False):
    sizes = np.array([q[0].shape[0] for q in queries], dtype=np.intp)
    codes = np.repeat(np.arange(len(queries), dtype=np.intp), sizes)
    labels = np.concatenate([q[0] for q in queries])
    scores = np.concatenate([q[1] for q in queries])
    extra = {}
    if counted:
        starts = np.zeros(len(queries) + 1, dtype=np.intp)
        np.cumsum(sizes, out=starts[1:])
        extra = {"sizes": sizes, "starts": starts}
    return Ranking(
        np.arange(codes.shape[0], dtype=np.intp),
        codes,
        labels,
        scores,
        np.arange(len(queries)),
        ties,
        None,
        judgments,
        **extra,
    )


def _blocks_of(scores):
    """Lists of positions of equal scores, in order."""
    blocks = []
    for p, s in enumerate(scores):
        if blocks and scores[blocks[-1][0]] == s:
            blocks[-1].append(p)
        else:
            blocks.append([p])
    return blocks


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("counted", [False, True])
def test_layout_matches_the_rows(seed, counted):
    queries = _queries(seed)
    ranking = _ranking(queries, counted=counted)
    sizes = [q[0].shape[0] for q in queries]
    assert ranking.sizes.tolist() == sizes
    assert ranking.starts.tolist() == [0, *np.cumsum(sizes).tolist()]
    assert ranking.n_rows == sum(sizes)
    assert ranking.max_size == max(sizes)
    position = [p for size in sizes for p in range(size)]
    assert ranking.position.tolist() == position
    row_start = [s for q, size in enumerate(sizes) for s in [sum(sizes[:q])] * size]
    assert ranking.row_start.tolist() == row_start
    assert ranking.cutoff(None).tolist() == sizes
    assert ranking.cutoff(3).tolist() == [min(3, s) for s in sizes]
    assert ranking.cutoff(np.array([1, 4])).tolist() == [
        [min(1, s), min(4, s)] for s in sizes
    ]
    for k in (1, 2, 5, 100, 3, 1):  # asked twice: the cached rows are the same
        rows = ranking.top(k)
        index = np.flatnonzero(ranking.position < k)
        assert rows.index.tolist() == index.tolist()
        assert rows.codes.tolist() == ranking.codes[index].tolist()
        assert rows.position.tolist() == ranking.position[index].tolist()


@pytest.mark.parametrize("seed", range(3))
def test_top_rows_of_few_long_queries(seed):
    # 3 queries of 3000 rows and 2000 of 1: the padded lines would be large.
    rng = np.random.default_rng(seed)
    queries = [
        (rng.integers(0, 2, s).astype(np.float64), -np.arange(s, dtype=np.float64))
        for s in [3000, 3000, 3000, *[1] * 2000]
    ]
    ranking = _ranking(queries)
    assert ranking.top_lines(3000) is None
    for k in (2, 2500):
        rows = ranking.top(k)
        index = np.flatnonzero(ranking.position < k)
        assert rows.index.tolist() == index.tolist()
        assert rows.codes.tolist() == ranking.codes[index].tolist()
        assert rows.position.tolist() == ranking.position[index].tolist()
        values = rng.random(ranking.n_rows)
        expected = [values[index][ranking.codes[index] == q].sum() for q in range(2003)]
        np.testing.assert_allclose(ranking.group_sum(values, k), expected, rtol=1e-12)


def test_top_lines_are_the_query_lines():
    queries = _queries(0, empty=False)
    ranking = _ranking(queries)
    sizes = ranking.sizes
    for depth in (1, int(sizes.min()), 4, int(sizes.max())):
        index, keep = ranking.top_lines(depth)
        for q, size in enumerate(sizes.tolist()):
            start = int(ranking.starts[q])
            expected = [start + min(j, size - 1) for j in range(depth)]
            assert index[q].tolist() == expected
            if keep is not None:
                assert keep[q].tolist() == [j < size for j in range(depth)]
        assert (keep is None) == (depth <= int(sizes.min()))


@pytest.mark.parametrize("seed", range(4))
def test_sums_per_query_match_loops(seed):
    queries = _queries(seed)
    ranking = _ranking(queries)
    rng = np.random.default_rng(seed)
    values = rng.random(ranking.n_rows)
    per_query = np.split(values, ranking.starts[1:-1])
    for k in (None, 1, 3, ranking.max_size, ranking.max_size + 5):
        expected = [v[: len(v) if k is None else k].sum() for v in per_query]
        np.testing.assert_allclose(ranking.group_sum(values, k), expected, rtol=1e-12)
    cutoffs = np.array([1, 2, 5])
    expected = [[v[:k].sum() for k in cutoffs] for v in per_query]
    np.testing.assert_allclose(
        ranking.group_sum(values, cutoffs), expected, rtol=1e-12, atol=1e-15
    )


def _tie_reference(queries):
    """Per row: its block's size, its offset in it, the block's start."""
    size, offset, start = [], [], []
    base = 0
    for _, scores in queries:
        for block in _blocks_of(scores):
            for j in range(len(block)):
                size.append(len(block))
                offset.append(j)
                start.append(base + block[0])
        base += scores.shape[0]
    return np.array(size), np.array(offset), np.array(start)


@pytest.mark.parametrize("seed", range(4))
def test_tie_blocks_match_loops(seed):
    queries = _queries(seed)
    ranking = _ranking(queries)
    size, offset, start = _tie_reference(queries)
    assert ranking.has_ties
    blocks = ranking.tie_blocks
    assert blocks.start.tolist() == sorted(set(start.tolist()))
    assert ranking.block_size.tolist() == size.tolist()
    assert ranking.block_offset.tolist() == offset.tolist()
    assert (
        block_starts(ranking.scores, ranking.starts).tolist() == (offset == 0).tolist()
    )
    rng = np.random.default_rng(seed)
    values = rng.random(ranking.n_rows)
    ints = rng.integers(0, 5, ranking.n_rows)
    mean = [values[s : s + m].mean() for s, m in zip(start, size, strict=True)]
    np.testing.assert_allclose(ranking.block_mean(values), mean, rtol=1e-14)
    np.testing.assert_allclose(
        ranking.block_mean(ints),
        [ints[s : s + m].mean() for s, m in zip(start, size, strict=True)],
        rtol=1e-14,
    )
    total = [ints[s : s + m].sum() for s, m in zip(start, size, strict=True)]
    assert ranking.block_sum(ints).tolist() == total
    row_start = ranking.row_start
    for data in (values, ints):
        before = [data[row_start[i] : i].sum() for i in range(ranking.n_rows)]
        outside = [data[row_start[i] : start[i]].sum() for i in range(ranking.n_rows)]
        np.testing.assert_allclose(ranking.before(data), before, rtol=1e-12)
        np.testing.assert_allclose(ranking.before_block(data), outside, rtol=1e-12)


def test_without_ties_every_row_is_its_own_block():
    queries = _queries(1)
    ranking = _ranking(queries, ties="first")
    assert not ranking.has_ties and ranking.tie_blocks is None
    n = ranking.n_rows
    assert ranking.block_size.tolist() == [1] * n
    assert ranking.block_offset.tolist() == [0] * n
    values = np.arange(n, dtype=np.float64) ** 2
    np.testing.assert_array_equal(ranking.block_mean(values), values)
    np.testing.assert_array_equal(ranking.block_sum(values), values)
    before = [values[ranking.row_start[i] : i].sum() for i in range(n)]
    np.testing.assert_allclose(ranking.before_block(values), before, rtol=1e-12)
    relevant = ranking.relevant()
    first = [
        bool(relevant[i]) and not relevant[ranking.row_start[i] : i].any()
        for i in range(n)
    ]
    assert ranking.first_relevant_probability().tolist() == [float(f) for f in first]


def test_integer_sums_before_a_row_of_few_wide_queries():
    # One query of 50 rows and 200 of 1: the cumulative sum over all rows.
    queries = [(np.ones(50), -np.arange(50.0))] + [(np.ones(1), np.zeros(1))] * 200
    ranking = _ranking(queries)
    values = np.arange(ranking.n_rows, dtype=np.float64)
    before = [values[ranking.row_start[i] : i].sum() for i in range(ranking.n_rows)]
    np.testing.assert_allclose(ranking.before(values), before, rtol=1e-12)


def _first_probability(queries, threshold):
    """Per ranked position, the probability that its query's first relevant
    row sits there, over every ordering of each tie block."""
    probability = []
    for labels, scores in queries:
        relevant = labels >= threshold
        found = False
        for block in _blocks_of(scores):
            counts = np.zeros(len(block))
            orderings = list(itertools.permutations(block))
            for ordering in orderings:
                for j, p in enumerate(ordering):
                    if relevant[p]:
                        counts[j] += 1
                        break
            if found:
                counts[:] = 0
            probability.extend((counts / len(orderings)).tolist())
            found = found or bool(relevant[block].any())
    return np.array(probability)


def _relevance_reference(queries, threshold):
    rel = np.concatenate([q[0] >= threshold for q in queries])
    size, _, start = _tie_reference(queries)
    sizes = [q[0].shape[0] for q in queries]
    row_start = np.repeat(np.cumsum(sizes) - sizes, sizes)
    return {
        "relevant": rel,
        "expected": [rel[s : s + m].mean() for s, m in zip(start, size, strict=True)],
        "R": [int((q[0] >= threshold).sum()) for q in queries],
        "above_block": [rel[row_start[i] : start[i]].sum() for i in range(len(rel))],
        "in_block": [rel[s : s + m].sum() for s, m in zip(start, size, strict=True)],
        "first": _first_probability(queries, threshold),
    }


@pytest.mark.parametrize("seed", range(4))
def test_relevance_at_several_thresholds_matches_loops(seed):
    queries = _queries(seed)
    ranking = _ranking(queries)
    # Each threshold asked in turn, then again: cached apart.
    for threshold in (None, 2, 3, None, 2.5, 2):
        ref = _relevance_reference(queries, 1 if threshold is None else threshold)
        assert ranking.relevant(threshold).tolist() == ref["relevant"].tolist()
        np.testing.assert_allclose(
            ranking.expected_relevance(threshold), ref["expected"], rtol=1e-14
        )
        assert ranking.n_relevant(threshold).tolist() == ref["R"]
        assert ranking.relevant_above_block(threshold).tolist() == ref["above_block"]
        assert ranking.relevant_in_block(threshold).tolist() == ref["in_block"]
        np.testing.assert_allclose(
            ranking.first_relevant_probability(threshold), ref["first"], atol=1e-12
        )
        rows = ranking.relevant_rows(threshold)
        index = np.flatnonzero(ref["relevant"])
        assert rows.index.tolist() == index.tolist()
        assert rows.codes.tolist() == ranking.codes[index].tolist()
        assert rows.position.tolist() == ranking.position[index].tolist()
        assert rows.counts.tolist() == ref["R"]
        assert rows.first.tolist() == [0, *np.cumsum(ref["R"]).tolist()]
        above = [ref["relevant"][ranking.row_start[i] : i].sum() for i in index]
        assert rows.above.tolist() == above


def test_judgments_count_relevant_rows_not_ranked():
    queries = _queries(2, n_groups=3, empty=False)
    codes = np.array([0, 0, 0, 1, 2, 2], dtype=np.intp)
    labels = np.array([3.0, 0.0, 1.0, 2.0, 2.0, 1.0])
    ranking = _ranking(queries, judgments=Judgments(codes, labels))
    assert ranking.n_relevant().tolist() == [2.0, 1.0, 2.0]
    assert ranking.n_relevant(2).tolist() == [1.0, 1.0, 1.0]
    assert ranking.n_relevant(3).tolist() == [1.0, 0.0, 0.0]
    assert ranking.n_relevant().tolist() == [2.0, 1.0, 2.0]
    assert ranking.n_grades is None


@pytest.mark.parametrize("log_base", [2.0, 10.0])
def test_discounts_match_the_formula(log_base):
    ranking = _ranking(_queries(3))
    for base in (log_base, 3.0, log_base):
        expected = [1 / math.log(p + 2, base) for p in ranking.position.tolist()]
        np.testing.assert_allclose(ranking.discount(base), expected, rtol=1e-14)
        table = [1 / math.log(p + 2, base) for p in range(ranking.max_size)]
        np.testing.assert_allclose(ranking.discount_table(base), table, rtol=1e-14)


def test_label_counts_per_level():
    queries = _queries(5)
    ranking = _ranking(queries)
    top = int(max(q[0].max(initial=0) for q in queries))
    assert ranking.n_grades == top + 1
    at_least = ranking._at_least
    for q, (labels, _) in enumerate(queries):
        assert at_least[q].tolist() == [
            int((labels >= level).sum()) for level in range(1, top + 1)
        ]
    assert _ranking(_queries(5, integer=False)).n_grades is None


def _ideal_reference(queries, gain, k, judged=None):
    values = []
    for q, (labels, _) in enumerate(queries):
        if judged is not None:
            labels = judged[1][judged[0] == q]
        ideal = np.sort(labels)[::-1][:k]
        values.append(
            sum(gain(g) / math.log2(i + 2) for i, g in enumerate(ideal.tolist()))
        )
    return values


GAINS = {
    "linear": lambda g: g,
    "exponential": lambda g: 2.0**g - 1.0,
    "shifted": lambda g: g + 1.0,  # gain(0) is not 0: every row counts
}


@pytest.mark.parametrize("name", list(GAINS))
@pytest.mark.parametrize("integer", [True, False])
def test_ideal_dcg_matches_sorted_labels(name, integer):
    scalar = GAINS[name]
    gain = np.vectorize(scalar, otypes=[np.float64])
    queries = _queries(6, integer=integer)
    ranking = _ranking(queries)
    for k in (None, 1, 3, 100):
        expected = _ideal_reference(queries, scalar, k)
        np.testing.assert_allclose(ranking.ideal_dcg(gain, k), expected, rtol=1e-13)
    cutoffs = np.array([1, 3, 100])
    expected = np.array([_ideal_reference(queries, scalar, k) for k in cutoffs]).T
    np.testing.assert_allclose(ranking.ideal_dcg(gain, cutoffs), expected, rtol=1e-13)


@pytest.mark.parametrize("name", list(GAINS))
def test_ideal_dcg_counts_the_judgments(name):
    scalar = GAINS[name]
    gain = np.vectorize(scalar, otypes=[np.float64])
    queries = _queries(7, n_groups=4, empty=False)
    judged = (
        np.array([3, 0, 0, 2, 1, 1, 3, 3], dtype=np.intp),
        np.array([2.0, 1.0, 3.0, 0.0, 1.0, 2.0, 1.0, 0.0]),
    )
    ranking = _ranking(queries, judgments=Judgments(*judged))
    for k in (None, 1, 2):
        expected = _ideal_reference(queries, scalar, k, judged)
        np.testing.assert_allclose(ranking.ideal_dcg(gain, k), expected, rtol=1e-13)
    expected = np.array([_ideal_reference(queries, scalar, k, judged) for k in (1, 2)])
    np.testing.assert_allclose(
        ranking.ideal_dcg(gain, np.array([1, 2])), expected.T, rtol=1e-13
    )


def test_relabel_keeps_the_order_and_the_tie_blocks():
    queries = _queries(8)
    ranking = _ranking(queries)
    ranking.judged = np.ones(ranking.n_rows, dtype=bool)
    blocks = ranking.tie_blocks
    labels = np.arange(ranking.n_rows, dtype=np.float64) % 2
    other = relabel(ranking, labels)
    assert other.labels is labels
    assert other.tie_blocks is blocks
    assert other.judged is ranking.judged
    assert other.ties == ranking.ties
    np.testing.assert_array_equal(other.order, ranking.order)
    np.testing.assert_array_equal(other.sizes, ranking.sizes)
    assert other.relevant().tolist() == (labels > 0).tolist()
    fresh = relabel(_ranking(queries), labels)
    assert "_blocks" not in fresh.__dict__
    assert fresh.tie_blocks.start.tolist() == blocks.start.tolist()


def _placed_like(given, labels=None, placed=None):
    """A ranking of ``given``'s rows placed by their positions, as the
    dicts' counted ranks build it: its queries' sizes, no codes, sorted on
    first use, with ``labels`` or only the rows ``placed``."""
    return Ranking(
        None,
        None,
        labels,
        None,
        given.group_ids,
        "first",
        sizes=given.sizes,
        starts=given.starts,
        sort=lambda: (given.order, given.scores),
        placed=placed,
    )


@pytest.mark.parametrize("seed", range(6))
def test_codes_made_when_first_read_of_a_ranking_built_with_sizes(seed):
    """A ranking built with its queries' sizes and no codes (rows placed by
    their ranks, as the dicts' counted ranks build it) makes its codes when
    first read, and finds the query of each relevant row without them: the
    same rows, codes and counts as a ranking given its codes, empty queries
    (the first, some inside, the last) among them."""
    queries = _queries(seed, n_groups=15)
    queries[0] = (queries[0][0][:0], queries[0][1][:0])  # the first query empty
    given = _ranking(queries, counted=True)
    placed = _placed_like(given, labels=given.labels)
    assert placed.n_rows == given.n_rows
    for threshold in (None, 2, 3):
        want, got = given.relevant_rows(threshold), placed.relevant_rows(threshold)
        for field in ("index", "codes", "position", "above", "counts", "first"):
            assert getattr(got, field).dtype == getattr(want, field).dtype
            assert getattr(got, field).tolist() == getattr(want, field).tolist()
    assert "codes" not in placed.__dict__  # the relevant rows did without them
    other = relabel(placed, placed.labels * 2.0)  # nor does another labelling
    assert "codes" not in other.__dict__
    assert other.codes.tolist() == given.codes.tolist()
    assert placed.codes.dtype == np.intp
    assert placed.codes.tolist() == given.codes.tolist()
    assert (
        placed.group_sum(placed.labels).tolist()
        == given.group_sum(given.labels).tolist()
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("integer", [True, False])
def test_labels_made_when_first_read_of_a_ranking_built_with_placed_rows(seed, integer):
    """A ranking given only its rows of a positive label (``placed``, as the
    dicts' counted ranks build it) finds its relevant rows and their labels
    among those rows alone, and makes the label of every row when first
    read: the same rows, labels and relevance as a ranking given them all,
    at thresholds above 0 (placed rows only) and at or below it (every
    row)."""
    queries = _queries(seed, n_groups=15, integer=integer)
    given = _ranking(queries, counted=True)
    positive = np.flatnonzero(given.labels > 0)
    shuffled = np.random.default_rng(seed).permutation(positive.shape[0])

    def placed_ranking():
        return _placed_like(given, placed=(positive, given.labels[positive]))

    placed = placed_ranking()
    for threshold in (None, 0.5, 1, 2, 3, 4):
        want, got = given.relevant_rows(threshold), placed.relevant_rows(threshold)
        for field in ("index", "codes", "position", "above", "counts", "first"):
            assert getattr(got, field).tolist() == getattr(want, field).tolist()
        rows = want.index[shuffled[shuffled < want.index.shape[0]]]
        assert placed.labels_of(rows).tolist() == given.labels[rows].tolist()
    every = np.arange(given.n_rows)  # rows of label 0 too
    assert placed.labels_of(every).tolist() == given.labels.tolist()
    assert "labels" not in placed.__dict__  # none made yet
    assert placed.labels.tolist() == given.labels.tolist()
    for threshold in (0, -1, None, 2):  # label 0 relevant at 0 and below
        other = placed_ranking()
        assert (
            other.relevant_rows(threshold).index.tolist()
            == given.relevant_rows(threshold).index.tolist()
        )
        assert other.relevant(threshold).tolist() == given.relevant(threshold).tolist()


def test_cached_properties_keep_their_docstrings():
    assert (
        Ranking.position.__doc__ == "0-based rank of each ranked row within its query."
    )
    assert Ranking.block_size.__doc__ == "Size of the tie block of each ranked row."


def test_an_empty_ranking_has_nothing_on_top():
    empty = np.zeros(0, dtype=np.intp)
    ranking = Ranking(empty, empty, np.zeros(0), np.zeros(0), np.zeros(0), "average")
    for k in (1, 3):
        rows = ranking.top(k)
        assert rows.index.shape == rows.codes.shape == rows.position.shape == (0,)
    assert ranking.tie_blocks is None
    assert ranking.n_relevant().shape == (0,)


def test_weights_travel_with_the_ranking_and_its_relabelling():
    queries = _queries(9, n_groups=3)
    weights = np.array([1.0, 2.0, 5.0])
    ranking = Ranking(
        *[getattr(_ranking(queries), name) for name in ("order", "codes")],
        np.concatenate([q[0] for q in queries]),
        np.concatenate([q[1] for q in queries]),
        np.arange(3),
        "average",
        weights,
    )
    assert ranking.group_weights is weights
    assert relabel(ranking, np.ones(ranking.n_rows)).group_weights is weights


def test_defaults_are_the_log2_discount_and_label_above_zero():
    queries = _queries(10, integer=False)
    ranking = _ranking(queries, ties="first")
    expected = [1 / math.log2(p + 2) for p in ranking.position.tolist()]
    np.testing.assert_allclose(ranking.discount(), expected, rtol=1e-14)
    table = [1 / math.log2(p + 2) for p in range(ranking.max_size)]
    np.testing.assert_allclose(ranking.discount_table(), table, rtol=1e-14)
    # Without ties, at several thresholds in turn.
    for threshold in (None, 1.5, 0.5, None):
        rel = ranking.labels > 0 if threshold is None else ranking.labels >= threshold
        first = [
            float(rel[i] and not rel[ranking.row_start[i] : i].any())
            for i in range(ranking.n_rows)
        ]
        assert ranking.first_relevant_probability(threshold).tolist() == first


def test_block_means_are_floats():
    for ties in ("first", "average"):
        ranking = _ranking(_queries(11), ties=ties)
        mean = ranking.block_mean(ranking.labels > 1)
        assert mean.dtype == np.float64
        assert ranking.expected_relevance().dtype == np.float64


def test_ideal_dcg_of_judgments_all_of_grade_zero():
    queries = _queries(12, n_groups=3, empty=False)
    judged = Judgments(np.array([0, 1, 1], dtype=np.intp), np.zeros(3))
    ranking = _ranking(queries, judgments=judged)
    assert ranking.ideal_dcg(GAINS["linear"]).tolist() == [0.0, 0.0, 0.0]
    assert ranking.ideal_dcg(GAINS["linear"], 2).tolist() == [0.0, 0.0, 0.0]


def _left_sums(values):
    """The sums of the first 0, 1, ... values, added one at a time from the
    left as a cumulative sum adds them (Python 3.12's ``sum`` compensates the
    rounding of floats, so it is not the reference)."""
    return list(itertools.accumulate(values, initial=0.0))


def test_float_sums_before_a_row_restart_at_each_query():
    # Four queries of one row, then one of six: the padded lines are exactly
    # three times the rows, the largest layout summed along the lines. A sum
    # over all rows would carry the rounding of 1e16 into the last query.
    queries = [(np.ones(1), np.zeros(1))] * 4 + [(np.ones(6), -np.arange(6.0))]
    ranking = _ranking(queries)
    assert ranking.n_groups * ranking.max_size == 3 * ranking.n_rows
    values = np.array([1e16, 1.0, 1.0, 1.0, 0.1, 0.2, 0.3, 0.7, 1.1, 0.9])
    last = values[4:].tolist()
    expected = [0.0] * 4 + _left_sums(last)[:6]
    assert ranking.before(values).tolist() == expected


def test_regression_float_sums_restart_at_each_query_past_the_padded_bound():
    # Five queries of one row, then one of six: the padded lines would be
    # more than three times the rows. The sums were a cumulative sum over
    # all rows minus the total before the query, which carried the rounding
    # of 1e16 into the last query; they now restart at each query too.
    scores = -np.array([0.0, 1.0, 1.0, 2.0, 3.0, 3.0])  # two tie blocks of two
    queries = [(np.ones(1), np.zeros(1))] * 5 + [(np.ones(6), scores)]
    ranking = _ranking(queries)
    assert ranking.n_groups * ranking.max_size > 3 * ranking.n_rows
    values = np.array([1e16, 1.0, 1.0, 1.0, 1.0, 0.1, 0.2, 0.3, 0.7, 1.1, 0.9])
    last = values[5:].tolist()
    assert ranking.before(values).tolist() == [0.0] * 5 + _left_sums(last)[:6]
    block_start = [0, 1, 1, 3, 4, 4]  # each row's tie block, in the query
    sums = _left_sums(last)
    assert ranking.before_block(values).tolist() == [0.0] * 5 + [
        sums[j] for j in block_start
    ]


def test_log_binomials_equal_the_exact_ones(monkeypatch):
    """``log C(n, k)`` from the table of log factorials equals the logarithm
    of the exact integer binomial to within the rounding of ``log(n!)``, for
    n across the table's growth (1,024 entries, then doubled, past the exact
    integers), and the table is read-only."""
    import math

    import skirm._engine._reduce as reduce
    from skirm._engine._reduce import log_comb, log_factorials

    monkeypatch.setattr(reduce, "_LOG_FACTORIALS", [np.zeros(0)])  # built here
    rng = np.random.default_rng(3)
    n = np.concatenate(([0, 1, 2, 1023, 1024, 1025, 3000], rng.integers(0, 5000, 200)))
    k = (rng.random(n.shape[0]) * (n + 1)).astype(np.int64)
    k[:3] = [0, 1, 2]
    got = log_comb(n, k)
    exact = np.array(
        [math.log(math.comb(a, b)) for a, b in zip(n.tolist(), k.tolist(), strict=True)]
    )
    bound = 8 * np.finfo(float).eps * np.array([math.lgamma(a + 1) for a in n.tolist()])
    assert np.all(np.abs(got - exact) <= bound + 1e-15)
    grown = reduce._LOG_FACTORIALS[0]
    assert grown.shape == (max(n) + 1,) and not grown.flags.writeable
    log_factorials(grown.shape[0] + 1)  # grown again: at least doubled
    assert reduce._LOG_FACTORIALS[0].shape == (2 * grown.shape[0],)
    assert reduce._LOG_FACTORIALS[0][: grown.shape[0]].tolist() == grown.tolist()
    assert log_factorials(3).base is reduce._LOG_FACTORIALS[0]
    table = log_factorials(10)
    assert table.shape == (10,) and not table.flags.writeable
    # the logarithms of the exact integers, so that two tied rows give 1/2
    assert table.tolist() == [math.log(math.factorial(j)) for j in range(10)]
    assert np.exp(-log_comb(np.array([2]), np.array([1])))[0] == 0.5
