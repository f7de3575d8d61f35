"""The engine's per-query reductions: the DCG discount and its cached tables.

The discount must agree to the last bit with scikit-learn's (checked on
one-hot DCGs, which read one discount each), and the tables kept per log
base must hold the same numbers whatever the cache held before: empty, too
short, or another base. The padded-line sums are tested with the cutoffs
(``tests/metrics/test_many_cutoffs.py``).
"""

import numpy as np
import pytest
from sklearn.metrics import dcg_score

import skirm._engine._reduce
from skirm._engine._reduce import discount_of, discount_table_of


def _sklearn_discounts(n, log_base):
    """Each position's discount as scikit-learn reads it: the DCG of one
    relevant document put at that position (ties ignored: a dot product with
    one non-zero term, so no rounding)."""
    y_true = np.eye(n)
    y_score = np.broadcast_to(np.arange(n, 0, -1, dtype=np.float64), (n, n))
    return np.array(
        [
            dcg_score(
                y_true[i : i + 1], y_score[:1], log_base=log_base, ignore_ties=True
            )
            for i in range(n)
        ]
    )


def test_discount_is_one_over_the_log_of_the_rank_plus_one():
    # Hand-worked: log2(1 + 1) = 1, log2(3 + 1) = 2, log2(7 + 1) = 3, ...
    position = np.array([0, 2, 6, 14, 1022])
    np.testing.assert_allclose(
        discount_of(position), [1.0, 1 / 2, 1 / 3, 1 / 4, 1 / 10], rtol=1e-15
    )
    # log3(1 + 2) = 1, log3(7 + 2) = 2, log3(79 + 2) = 4
    np.testing.assert_allclose(
        discount_of(np.array([1, 7, 79]), log_base=3.0), [1.0, 1 / 2, 1 / 4], rtol=1e-15
    )
    np.testing.assert_allclose(discount_of(np.array([8, 98]), 10.0), [1.0, 0.5])


@pytest.mark.parametrize("log_base", [2.0, 10.0, 1.5])
def test_discount_agrees_with_scikit_learn_to_the_last_bit(log_base):
    expected = _sklearn_discounts(40, log_base)
    np.testing.assert_array_equal(discount_of(np.arange(40), log_base), expected)


@pytest.mark.parametrize("log_base", [2.0, 10.0])
def test_discount_tables_hold_the_discounts_whatever_the_cache_held(
    monkeypatch, log_base
):
    monkeypatch.setattr(skirm._engine._reduce, "_DISCOUNTS", {})
    expected = _sklearn_discounts(40, log_base)
    # Empty cache, then a shorter table asked, then a longer one (grown).
    np.testing.assert_array_equal(discount_table_of(40, log_base), expected)
    np.testing.assert_array_equal(discount_table_of(7, log_base), expected[:7])
    long = discount_table_of(3000, log_base)
    assert long.shape == (3000,)
    np.testing.assert_array_equal(long[:40], expected)
    np.testing.assert_array_equal(long, discount_of(np.arange(3000), log_base))
    np.testing.assert_allclose(
        long[2998:], np.log(log_base) / np.log([3000.0, 3001.0]), rtol=1e-15
    )
    # Another base does not read this one's table.
    other = discount_table_of(5, 3.0 if log_base == 2.0 else 2.0)
    np.testing.assert_array_equal(
        other, discount_of(np.arange(5), 3.0 if log_base == 2.0 else 2.0)
    )
    np.testing.assert_array_equal(discount_table_of(40, log_base), expected)


def test_discount_tables_are_read_only(monkeypatch):
    # Shared by every ranking and block of queries: writing into one would
    # change the discounts of every later evaluation.
    monkeypatch.setattr(skirm._engine._reduce, "_DISCOUNTS", {})
    for length in (5, 5, 2000):
        table = discount_table_of(length)
        with pytest.raises(ValueError, match="read-only"):
            table[0] = 0.0
    assert discount_table_of(1)[0] == 1.0


# -- sums restarting at each segment -------------------------------------------


def _loop_cumsum(values, starts, exclusive):
    out = np.empty(values.shape[0], dtype=np.result_type(values, np.int64))
    for lo, hi in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
        total = out.dtype.type(0)
        for i in range(lo, hi):
            if exclusive:
                out[i] = total
            total = total + out.dtype.type(values[i])
            if not exclusive:
                out[i] = total
    return out


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_segment_cumsum_adds_each_segment_alone_in_order(seed, exclusive):
    """Segments of every width class (empty, 1, powers of two and one more,
    one far longer than the rest), float values of mixed magnitudes and
    integers: the bits of a loop over each segment."""
    from skirm._engine import segment_cumsum

    rng = np.random.default_rng(seed)
    sizes = rng.choice([0, 1, 2, 3, 4, 5, 8, 9, 31, 64, 65], size=40)
    sizes[rng.integers(40)] = 700
    starts = np.concatenate(([0], np.cumsum(sizes)))
    floats = rng.random(starts[-1]) * 10.0 ** rng.integers(-8, 9, starts[-1])
    small = rng.integers(-100, 101, starts[-1]).astype(np.int8)  # sums pass 127
    large = rng.integers(-(2**55), 2**55, starts[-1])  # past float64 2**53
    for values in (floats, small, large):
        before = values.copy()
        got = segment_cumsum(values, starts, exclusive)
        assert got.dtype == np.result_type(values, np.int64)
        np.testing.assert_array_equal(got, _loop_cumsum(values, starts, exclusive))
        np.testing.assert_array_equal(values, before)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("sizes", [[1] * 5, [7] * 3, [1000] * 4, [2, 0, 4], [3, 3, 0]])
def test_segments_of_one_size_add_as_a_loop_does(sizes, exclusive):
    """Segments of one size (a run of 1,000 documents per query) are summed
    as the lines of one matrix: the bits of a loop over each segment, as
    segments of several sizes (a total that is a multiple of the count is
    not one size)."""
    from skirm._engine import segment_cumsum

    rng = np.random.default_rng(len(sizes) + sum(sizes))
    starts = np.concatenate(([0], np.cumsum(sizes)))
    floats = rng.random(starts[-1]) * 10.0 ** rng.integers(-8, 9, starts[-1])
    ints = rng.integers(-100, 101, starts[-1]).astype(np.int8)
    for values in (floats, ints, floats > 0.5):
        got = segment_cumsum(values, starts, exclusive)
        assert got.dtype == np.result_type(values, np.int64)
        np.testing.assert_array_equal(got, _loop_cumsum(values, starts, exclusive))


def test_float_sums_before_a_row_of_queries_of_one_size():
    from skirm._engine import check_input, rank

    rng = np.random.default_rng(3)
    groups = np.repeat([4, 1, 9], 50)
    ranking = rank(check_input(rng.integers(0, 3, 150), rng.random(150), groups=groups))
    assert ranking.n_groups * ranking.max_size == ranking.n_rows
    values = rng.random(150) * 10.0 ** rng.integers(-8, 9, 150)
    starts = ranking.starts
    np.testing.assert_array_equal(
        ranking.before(values), _loop_cumsum(values, starts, exclusive=True)
    )


def test_segment_cumsum_of_nothing_and_of_one_segment():
    from skirm._engine import segment_cumsum

    assert segment_cumsum(np.zeros(0), np.array([0])).shape == (0,)
    assert segment_cumsum(np.zeros(0), np.array([0, 0, 0]), exclusive=True).shape == (
        0,
    )
    values = np.array([0.1, 0.2, 0.3])
    np.testing.assert_array_equal(
        segment_cumsum(values, np.array([0, 3])), [0.1, 0.1 + 0.2, 0.1 + 0.2 + 0.3]
    )
    np.testing.assert_array_equal(
        segment_cumsum(values, np.array([0, 3]), exclusive=True), [0.0, 0.1, 0.1 + 0.2]
    )
