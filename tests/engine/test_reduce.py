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


#: The ways :func:`segment_cumsum` adds: column by column, along padded
#: matrices, or by its own choice (``COLUMNS`` as it is).
PATHS = {"columns": 0, "matrices": 10**12, "chosen": None}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_segment_cumsum_adds_each_segment_alone_in_order(
    seed, exclusive, path, monkeypatch
):
    """Segments of every width class (empty, 1, powers of two and one more,
    one far longer than the rest), float values of mixed magnitudes and
    integers: the bits of a loop over each segment, by each way of adding."""
    from skirm._engine import _reduce, segment_cumsum

    if PATHS[path] is not None:
        monkeypatch.setattr(_reduce, "COLUMNS", PATHS[path])

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


def _bits(a):
    """The bits of an array: the sign of zero and NaN's payload count."""
    return a.view(np.int64) if a.dtype == np.float64 else a


def _integer_values(rng, kind, n):
    """``n`` integer values of one kind: bools, small and large ints,
    unsigned, and integers held as floats (signs, zeros, near ``2**53``)."""
    if kind == "bool":
        return rng.random(n) < 0.3
    if kind == "int8":
        return rng.integers(-128, 128, n).astype(np.int8)
    if kind == "int64":
        return rng.integers(-(2**62), 2**62, n)  # sums wrap
    if kind == "uint64":
        return rng.integers(0, 2**40, n).astype(np.uint64)
    if kind == "float32":
        return rng.integers(-1000, 1000, n).astype(np.float32)
    if kind == "ones":
        return np.ones(n)
    if kind == "float64":
        return rng.integers(-(2**20), 2**20, n).astype(np.float64)
    if kind == "near_2**53":  # the whole sum just below the bound
        values = np.zeros(n)
        values[: min(n, 3)] = 2.0**51
        return values
    raise AssertionError(kind)


KINDS = ["bool", "int8", "int64", "uint64", "float32", "ones", "float64", "near_2**53"]


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(4))
def test_sums_of_integers_are_the_padded_matrices_bits(
    seed, kind, exclusive, monkeypatch
):
    """Integers (every partial sum exact) are summed as one running sum less
    each segment's start: bit for bit the padded matrices' sums, on segments
    of every width class (the ranks of P@k and recall@k count so)."""
    from skirm._engine import _reduce

    rng = np.random.default_rng(seed)
    sizes = rng.choice([0, 1, 2, 3, 5, 8, 9, 31, 64, 65], size=rng.integers(1, 60))
    starts = np.concatenate(([0], np.cumsum(sizes)))
    values = _integer_values(rng, kind, int(starts[-1]))
    before = values.copy()
    dtype = np.result_type(values, np.int64)
    assert _reduce.exact_sums(values, dtype)
    got = _reduce.segment_cumsum(values, starts, exclusive)
    monkeypatch.setattr(_reduce, "exact_sums", lambda values, dtype: False)
    monkeypatch.setattr(_reduce, "COLUMNS", PATHS["matrices"])
    want = _reduce.segment_cumsum(values, starts, exclusive)
    assert got.dtype == want.dtype == dtype
    np.testing.assert_array_equal(_bits(got), _bits(want))
    np.testing.assert_array_equal(values, before)


@pytest.mark.parametrize(
    "values",
    [
        pytest.param(np.array([1.0, 0.5, 2.0]), id="a fraction"),
        pytest.param(np.array([1.0] * 20 + [0.5]), id="a fraction past the head"),
        pytest.param(np.array([1.0, -0.0, 2.0]), id="minus zero"),
        pytest.param(np.array([1.0, np.nan]), id="NaN"),
        pytest.param(np.array([1.0, np.inf]), id="inf"),
        pytest.param(np.array([2.0**52, 2.0**52]), id="a sum of 2**53"),
        pytest.param(np.array([-(2.0**52), 2.0**52]), id="an absolute sum of 2**53"),
        pytest.param(np.array([2**52, 2**52], dtype=np.uint64), id="uint64 of 2**53"),
        pytest.param(np.array([1 + 1j]), id="complex"),
    ],
)
def test_sums_that_may_round_take_the_padded_matrices(values, monkeypatch):
    """Values whose sums may round, or keep the sign of ``-0.0``, are not
    summed in one running sum; their sums are the padded matrices'."""
    from skirm._engine import _reduce

    dtype = np.result_type(values, np.int64)
    assert not _reduce.exact_sums(values, dtype)
    starts = np.array([0, 1, values.shape[0]])
    got = _reduce.segment_cumsum(values, starts)
    want = np.array([values[0], *np.cumsum(values[1:])], dtype=dtype)
    if dtype.kind == "f":
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_a_leading_minus_zero_keeps_its_sign():
    """A segment's first sum is its first value (-0.0 stays -0.0), as the
    padded matrices give and as one running sum would not."""
    from skirm._engine import segment_cumsum

    got = segment_cumsum(np.array([3.0, -0.0, -0.0, 1.0]), np.array([0, 1, 4]))
    assert np.signbit(got[1]) and np.signbit(got[2]) and got[3] == 1.0


def _short_segments(rng, shape):
    """Segment sizes of one shape: many short ones (the relevant rows of
    queries), one long among them, empty ones, one segment, none."""
    if shape == "short":
        return rng.integers(0, 11, 300)
    if shape == "one_long":
        return np.append(rng.integers(1, 5, 200), 300)
    if shape == "empty_among":
        return rng.choice([0, 0, 1, 2, 7], 100)
    if shape == "one":
        return np.array([rng.integers(1, 50)])
    if shape == "none":
        return np.zeros(0, dtype=np.int64)
    raise AssertionError(shape)


def _signed_values(rng, kind, n):
    """Values of one kind whose sums round, keep the sign of a zero or hold
    an infinity or NaN."""
    floats = rng.random(n) * 10.0 ** rng.integers(-8, 9, n) * rng.choice([-1, 1], n)
    if kind == "floats":
        return floats
    if kind == "zeros":  # -0.0 and 0.0, first in segments or after others
        return rng.choice([-0.0, 0.0, 1.5, -1.5], n)
    if kind == "specials":
        return np.where(
            rng.random(n) < 0.1, rng.choice([np.inf, -np.inf, np.nan], n), floats
        )
    if kind == "float32":
        return floats.astype(np.float32)
    raise AssertionError(kind)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("kind", ["floats", "zeros", "specials", "float32"])
@pytest.mark.parametrize("shape", ["short", "one_long", "empty_among", "one", "none"])
@pytest.mark.parametrize("seed", range(3))
def test_columns_add_as_the_padded_matrices(seed, shape, kind, exclusive, monkeypatch):
    """Segments added column by column give the padded matrices' bits:
    the sign of each zero, infinities, C floats summed in float64, whatever
    the sizes beside them; NaN where they give NaN."""
    from skirm._engine import _reduce

    rng = np.random.default_rng(seed)
    sizes = _short_segments(rng, shape)
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    values = _signed_values(rng, kind, int(starts[-1]))
    before = values.copy()
    with np.errstate(invalid="ignore"):  # inf - inf, as either way warns
        monkeypatch.setattr(_reduce, "COLUMNS", PATHS["columns"])
        got = _reduce.segment_cumsum(values, starts, exclusive)
        monkeypatch.setattr(_reduce, "COLUMNS", PATHS["matrices"])
        want = _reduce.segment_cumsum(values, starts, exclusive)
    assert got.dtype == want.dtype == np.float64
    # NaN where the matrices give NaN (its sign and payload are the order of
    # the operands inside numpy's cumsum, which differs between versions),
    # the bits of every other sum
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(_bits(got[~nan]), _bits(want[~nan]))
    np.testing.assert_array_equal(
        _bits(values.astype(np.float64)), _bits(before.astype(np.float64))
    )


@pytest.mark.parametrize(
    ("sizes", "columns"),
    [
        ([3] * 200 + [1], True),
        ([1, 2, 3] * 40 + [100], False),
        ([200] + [0] * 10, False),
    ],
)
def test_which_way_segments_are_added(sizes, columns, monkeypatch):
    """Many short segments are added in columns; a segment long against the
    values, in the padded matrices."""
    from skirm._engine import _reduce

    calls = []
    real = _reduce._column_cumsum
    monkeypatch.setattr(
        _reduce, "_column_cumsum", lambda *a: calls.append(1) or real(*a)
    )
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    values = np.random.default_rng(0).random(int(starts[-1]))
    _reduce.segment_cumsum(values, starts)
    assert bool(calls) == columns
