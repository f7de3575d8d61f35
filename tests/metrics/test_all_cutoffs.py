"""DCG and NDCG at every cutoff, from sums down one line per query.

Each cutoff's value must be, bit for bit, the per-query sum of the gains
times the discounts added one position after the other (the order of a
single cutoff's sum), with many queries and with few (two ways of adding
the lines), small integer grades and other labels, either gain.
"""

import numpy as np
import pytest

from skirm._engine import check_input, rank, running_sums
from skirm.metrics import evaluate

GAINS = {"linear": lambda x: x, "exponential": lambda x: np.exp2(x) - 1.0}

#: Labels: small integer grades (counted per level, gains looked up), and
#: fractional or large ones (the gains of the labels themselves).
LABELS = {
    "graded": lambda rng, n: rng.integers(0, 5, n).astype(float),
    "halves": lambda rng, n: rng.integers(0, 7, n) / 2,
    "past 255": lambda rng, n: rng.integers(0, 1000, n).astype(float),
}


def _bits(values):
    """float64 values as their bits: -0.0 and 0.0 differ."""
    return np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)


def _discounts(n):
    return 1.0 / (np.log(np.arange(2.0, n + 2.0)) / np.log(2.0))


def _reference(y_true, y_score, groups, gain, ks):
    """Per query and cutoff ``(n_queries, len(ks))``: DCG and NDCG, the
    gains times the discounts added one position after the other from 0."""
    f = GAINS[gain]
    dcg, ndcg = [], []
    for g in np.unique(groups):
        rows = groups == g
        ranked = y_true[rows][np.argsort(-y_score[rows], kind="stable")]
        ideal = np.sort(y_true[rows])[::-1]
        gains, ideal_gains = f(ranked), f(ideal)
        disc = _discounts(ranked.shape[0])
        per_dcg, per_ndcg = [], []
        for k in ks:
            total, best = 0.0, 0.0
            for p in range(min(k, ranked.shape[0])):
                total += gains[p] * disc[p]
                best += ideal_gains[p] * disc[p]
            per_dcg.append(total)
            per_ndcg.append(min(total / best, 1.0) if best > 0 else total / 1.0)
        dcg.append(per_dcg)
        ndcg.append(per_ndcg)
    return np.array(dcg), np.array(ndcg)


def _data(seed, n_groups, labels):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), rng.integers(1, 40, n_groups))
    y_true = LABELS[labels](rng, groups.shape[0])
    y_true[groups == 3] = 0.0  # a query without relevant rows
    y_score = rng.permutation(groups.shape[0]).astype(float)  # no ties
    return y_true, y_score, groups


@pytest.mark.parametrize("shape", [(1, 1), (7, 1), (30, 63), (30, 64), (50, 300)])
def test_running_sums_add_as_cumsum_does(shape):
    rng = np.random.default_rng(shape[1])
    lines = rng.normal(size=shape) * 10.0 ** rng.integers(-8, 8, shape)
    lines[rng.random(shape) < 0.2] = -0.0
    expected = np.cumsum(lines, axis=0)
    got = running_sums(lines.copy())
    np.testing.assert_array_equal(_bits(got), _bits(expected))


@pytest.mark.parametrize("labels", list(LABELS))
@pytest.mark.parametrize("gain", list(GAINS))
@pytest.mark.parametrize("n_groups", [20, 200])  # below and past the row adds
def test_every_cutoff_equals_the_ordered_sum(labels, gain, n_groups):
    y_true, y_score, groups = _data(n_groups, n_groups, labels)
    ks = list(range(1, 31))  # within every query, and past the shortest
    result = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=[f"{m}@{k}" for m in ("dcg", "ndcg") for k in ks],
        gain=gain,
    )
    dcg, ndcg = _reference(y_true, y_score, groups, gain, ks)
    for j, k in enumerate(ks):
        np.testing.assert_array_equal(
            _bits(result.per_query[f"dcg@{k}"]), _bits(dcg[:, j])
        )
        np.testing.assert_array_equal(
            _bits(result.per_query[f"ndcg@{k}"]), _bits(ndcg[:, j])
        )


@pytest.mark.parametrize("gain", list(GAINS))
@pytest.mark.parametrize("n_groups", [20, 200])
def test_every_cutoff_equals_each_cutoff_alone(gain, n_groups):
    y_true, y_score, groups = _data(7, n_groups, "graded")
    ks = [1, 2, 5, 9, 10, 30, 39]  # some cutoffs, not every one
    names = [f"{m}@{k}" for m in ("dcg", "ndcg") for k in ks]
    together = evaluate(y_true, y_score, groups=groups, metrics=names, gain=gain)
    for name in names:
        alone = evaluate(y_true, y_score, groups=groups, metrics=[name], gain=gain)
        np.testing.assert_array_equal(
            _bits(together.per_query[name]), _bits(alone.per_query[name])
        )
        assert _bits(together[name]) == _bits(alone[name])


@pytest.mark.parametrize("n_groups", [20, 200])
def test_a_label_of_minus_zero_gains_plus_zero(n_groups):
    # Integer grades: the gain of grade 0 is +0.0, for a label -0.0 too, so
    # the sums over the first rows are +0.0, not -0.0.
    y_true, y_score, groups = _data(1, n_groups, "graded")
    first = np.flatnonzero(np.diff(groups, prepend=-1))  # each query's first row
    y_score[first] = y_score.max() + 1.0  # ranked first
    y_true[first] = -0.0
    result = evaluate(
        y_true, y_score, groups=groups, metrics=["dcg@1", "ndcg@1", "ndcg@2"]
    )
    single = evaluate(y_true, y_score, groups=groups, metrics=["ndcg@1"])
    for values in (result.per_query["dcg@1"], result.per_query["ndcg@1"]):
        assert not np.signbit(values).any()
    assert not np.signbit(single.per_query["ndcg@1"]).any()
    _, ndcg = _reference(y_true, y_score, groups, "linear", [1, 2])
    np.testing.assert_array_equal(_bits(result.per_query["ndcg@2"]), _bits(ndcg[:, 1]))


@pytest.mark.parametrize("labels", ["graded", "halves"])
@pytest.mark.parametrize("gain", list(GAINS))
def test_the_ideal_dcg_of_many_queries_at_every_cutoff(labels, gain):
    y_true, y_score, groups = _data(5, 300, labels)
    ranking = rank(check_input(y_true, y_score, groups=groups))
    f = GAINS[gain]
    ks = np.arange(1, 50)
    many = ranking.ideal_dcg(f, ks)
    for j, k in enumerate(ks):
        one = ranking.ideal_dcg(f, int(k))
        np.testing.assert_array_equal(_bits(many[:, j]), _bits(one))
    expected = []
    for g in range(300):
        ideal = f(np.sort(y_true[groups == g])[::-1])
        disc = _discounts(ideal.shape[0])
        total = 0.0
        for p in range(ideal.shape[0]):
            total += ideal[p] * disc[p]
        expected.append(total)
    np.testing.assert_array_equal(
        _bits(ranking.ideal_dcg(f)), _bits(np.array(expected))
    )


def _check_top_table(ranking, depth):
    index, pad = ranking.top_table(depth)
    assert index.shape == (depth, ranking.n_groups)
    sizes, starts = ranking.sizes.tolist(), ranking.starts.tolist()
    for q, size in enumerate(sizes):
        assert index[: min(depth, size), q].tolist() == [
            starts[q] + j for j in range(min(depth, size))
        ]
        if pad is not None:
            assert pad[:, q].tolist() == [j >= size for j in range(depth)]
    assert (pad is None) == (depth <= min(sizes))


def test_the_top_table_marks_the_cells_past_each_query():
    y_true, y_score, groups = _data(2, 30, "graded")
    ranking = rank(check_input(y_true, y_score, groups=groups))
    for depth in (1, int(ranking.sizes.min()), 12, int(ranking.sizes.max())):
        _check_top_table(ranking, depth)


@pytest.mark.parametrize("gain", list(GAINS))
@pytest.mark.parametrize("n_groups", [20, 200])
def test_cutoffs_past_every_ideal_line_divide_by_its_last_value(gain, n_groups):
    # Few relevant rows: the ideal lines end long before the deepest cutoff,
    # whose NDCG divides by the ideal DCG of all the relevant rows.
    y_true, y_score, groups = _data(11, n_groups, "graded")
    rng = np.random.default_rng(11)
    y_true[rng.random(y_true.shape[0]) < 0.9] = 0.0
    ks = [38, 1, 3, 20, 7]  # in no order, not every position
    result = evaluate(
        y_true, y_score, groups=groups, metrics=[f"ndcg@{k}" for k in ks], gain=gain
    )
    _, ndcg = _reference(y_true, y_score, groups, gain, ks)
    for j, k in enumerate(ks):
        np.testing.assert_array_equal(
            _bits(result.per_query[f"ndcg@{k}"]), _bits(ndcg[:, j])
        )


def test_lines_deeper_than_255_positions():
    # Positions and counts past the range of uint8 are compared in uint16.
    rng = np.random.default_rng(12)
    groups = np.repeat(np.arange(6), [600, 420, 300, 270, 256, 10])
    y_true = (rng.random(groups.shape[0]) < 0.7) * rng.integers(1, 3, groups.shape[0])
    y_true = y_true.astype(float)
    y_score = rng.permutation(groups.shape[0]).astype(float)
    ks = [1, 255, 256, 257, 299, 400]
    result = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=[f"{m}@{k}" for m in ("dcg", "ndcg") for k in ks],
    )
    dcg, ndcg = _reference(y_true, y_score, groups, "linear", ks)
    for j, k in enumerate(ks):
        np.testing.assert_array_equal(
            _bits(result.per_query[f"dcg@{k}"]), _bits(dcg[:, j])
        )
        np.testing.assert_array_equal(
            _bits(result.per_query[f"ndcg@{k}"]), _bits(ndcg[:, j])
        )
    _check_top_table(rank(check_input(y_true, y_score, groups=groups)), 300)
