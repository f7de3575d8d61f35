"""The resampling engines of skirm.stats against loops written out: the
checks of the seed and of the number of resamples, the rule that picks an
exact sign-flip distribution, the draws of each engine (in one chunk and in
several) and the quantiles."""

import itertools

import numpy as np
import pytest

import skirm.stats._resampling as rs

_SEED = "`random_state` must be a non-negative integer, a numpy Generator or None, got "


# --------------------------------------------------------------------------
# Seeds and numbers of resamples
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("random_state", "error", "message"),
    [
        (-1, ValueError, _SEED + "-1 (int)"),
        (np.int64(-3), ValueError, _SEED + "np.int64(-3) (int64)"),
        ("x", TypeError, _SEED + "'x' (str)"),
        (True, TypeError, _SEED + "True (bool)"),
        (1.0, TypeError, _SEED + "1.0 (float)"),
    ],
)
def test_random_state_refused_in_full(random_state, error, message):
    with pytest.raises(error) as info:
        rs.seed_and_rng(random_state)
    assert str(info.value) == message


@pytest.mark.parametrize("random_state", [0, 7, np.int64(7), np.uint8(3)])
def test_random_state_integer_is_the_seed_of_default_rng(random_state):
    seed, rng = rs.seed_and_rng(random_state)
    assert type(seed) is int and seed == int(random_state)
    expected = np.random.default_rng(int(random_state)).random(5)
    np.testing.assert_array_equal(rng.random(5), expected)


def test_random_state_generator_is_used_as_given():
    generator = np.random.default_rng(3)
    seed, rng = rs.seed_and_rng(generator)
    assert seed is None and rng is generator


def test_random_state_none_draws_a_seed_of_63_bits(monkeypatch):
    """The fresh seed is the entropy's low 63 bits (it fits an int64 column
    of a report) and reproduces the draws."""

    class Entropy:
        entropy = (5 << 100) + (1 << 64) - 1  # bits 63 and 64 set

    monkeypatch.setattr(np.random, "SeedSequence", Entropy)
    seed, rng = rs.seed_and_rng(None)
    assert seed == (1 << 63) - 1
    expected = np.random.default_rng((1 << 63) - 1).random(4)
    np.testing.assert_array_equal(rng.random(4), expected)


def test_random_state_none_seeds_differ_and_reproduce():
    seed1, rng1 = rs.seed_and_rng(None)
    seed2, _ = rs.seed_and_rng(None)
    assert seed1 != seed2 and 0 <= seed1 < 1 << 63 and type(seed1) is int
    expected = np.random.default_rng(seed1).random(3)
    np.testing.assert_array_equal(rng1.random(3), expected)


@pytest.mark.parametrize("n_resamples", [1, 2, np.int64(9)])
def test_n_resamples_positive_integers_pass_as_int(n_resamples):
    got = rs.N_RESAMPLES(n_resamples)
    assert type(got) is int and got == n_resamples


@pytest.mark.parametrize(
    ("n_resamples", "shown"),
    [(0, "0 (int)"), (-2, "-2 (int)"), (True, "True (bool)"), (5.0, "5.0 (float)")],
)
def test_n_resamples_refused_in_full(n_resamples, shown):
    with pytest.raises(ValueError) as info:
        rs.N_RESAMPLES(n_resamples)
    assert str(info.value) == f"`n_resamples` must be a positive integer, got {shown}"


# --------------------------------------------------------------------------
# Exact or sampled sign flips
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_queries", "n_resamples", "expected"),
    [
        (2, 1, True),
        (16, 1, True),  # up to 16 queries, always enumerated
        (17, 2**17 - 1, False),
        (17, 2**17, True),  # as many draws as sign vectors
        (40, 2**40, True),
        (62, 2**62, True),
        (62, 2**62 - 1, False),
        (63, 2**63, False),  # sign codes past int64: never enumerated
        (64, 2**70, False),
    ],
)
def test_exact_auto_enumerates_when_draws_would_not_be_fewer(
    n_queries, n_resamples, expected
):
    assert rs.use_exact(n_queries, n_resamples, "auto") is expected


@pytest.mark.parametrize(
    ("n_queries", "exact", "expected"),
    [(24, True, True), (2, True, True), (3, False, False), (100, False, False)],
)
def test_exact_true_or_false_is_obeyed(n_queries, exact, expected):
    assert rs.use_exact(n_queries, 10, exact) is expected


def test_exact_true_refuses_more_than_24_queries_in_full():
    with pytest.raises(ValueError) as info:
        rs.use_exact(25, 10, True)
    assert str(info.value) == (
        "`exact=True` enumerates 2**n sign flips; n=25 queries is too many "
        "(at most 24); use exact='auto' or False"
    )


# --------------------------------------------------------------------------
# The engines against loops
# --------------------------------------------------------------------------


def _values(seed, n_rows, n_queries):
    return np.random.default_rng(seed).random((n_rows, n_queries))


@pytest.fixture(params=[False, True], ids=["one chunk", "chunks"])
def chunked(request, monkeypatch):
    if request.param:  # chunks of a few draws, the last one shorter
        monkeypatch.setattr(rs, "CHUNK_ELEMENTS", 40)
    return request.param


def test_chunks_cover_the_draws_once(monkeypatch):
    monkeypatch.setattr(rs, "CHUNK_ELEMENTS", 40)
    assert list(rs._chunk_sizes(23, 7)) == [5, 5, 5, 5, 3]
    assert list(rs._chunk_sizes(3, 100)) == [1, 1, 1]  # at least one per chunk
    assert list(rs._chunk_sizes(5, 0)) == [5]
    assert list(rs._chunk_sizes(50, 1)) == [40, 10]  # one element a draw
    monkeypatch.setattr(rs, "CHUNK_ELEMENTS", 1 << 22)
    assert list(rs._chunk_sizes(10, 3)) == [10]


@pytest.mark.parametrize("weighted", [False, True])
def test_exact_sign_flip_null_is_every_sign_vector(weighted):
    values = _values(0, 2, 5) - 0.5
    weights = np.array([1.0, 2.0, 0.5, 3.0, 1.0]) if weighted else None
    w = np.ones(5) if weights is None else weights
    got = rs.sign_flip_null(values, weights, n_resamples=1, exact=True, rng=None)
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=5)))[:, ::-1]
    expected = (signs * w) @ values.T / w.sum()
    assert got.shape == (2, 32)
    np.testing.assert_allclose(got, expected.T, rtol=0, atol=1e-15)


@pytest.mark.parametrize("n_queries", [9, 16], ids=["partial bytes", "whole words"])
@pytest.mark.parametrize("weighted", [False, True])
def test_sampled_sign_flip_null_uses_the_bits_of_random_bytes(
    weighted, n_queries, chunked
):
    """Draw ``b`` flips query ``i`` when bit ``b * n + i`` (most significant
    first) of bytes ``rng.integers(0, 256)`` is set; each chunk draws just
    the bytes it needs, anew. 300 draws take bytes of value 0 too."""
    n_resamples = 300
    values = _values(1, 3, n_queries) - 0.4
    weights = np.linspace(0.5, 2.0, n_queries) if weighted else None
    w = np.ones(n_queries) if weights is None else weights
    got = rs.sign_flip_null(
        values, weights, n_resamples=n_resamples, exact=False,
        rng=np.random.default_rng(5),
    )  # fmt: skip
    rng = np.random.default_rng(5)
    size = 40 // n_queries if chunked else n_resamples
    rows, zeros = [], 0
    for start in range(0, n_resamples, size):
        rows_in_chunk = min(size, n_resamples - start)
        n_bytes = -(-rows_in_chunk * n_queries // 8)
        packed = rng.integers(0, 256, size=n_bytes, dtype=np.uint8)
        zeros += int(np.sum(packed == 0))
        bits = [(int(byte) >> (7 - k)) & 1 for byte in packed for k in range(8)]
        for b in range(rows_in_chunk):
            flips = np.array(bits[b * n_queries : (b + 1) * n_queries])
            rows.append((1 - 2 * flips) * w @ values.T / w.sum())
    assert zeros > 0
    np.testing.assert_allclose(got, np.array(rows).T, rtol=0, atol=1e-15)


def test_sampled_sign_flip_null_combines_basis_rows(chunked):
    basis = _values(2, 2, 8) - 0.5
    combine = np.array([[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]])
    weights = np.arange(1.0, 9.0)
    got = rs.sign_flip_null(
        basis, weights, n_resamples=11, exact=False,
        rng=np.random.default_rng(1), combine=combine,
    )  # fmt: skip
    alone = rs.sign_flip_null(
        combine @ basis, weights, n_resamples=11, exact=False,
        rng=np.random.default_rng(1),
    )  # fmt: skip
    assert got.shape == (3, 11)
    np.testing.assert_allclose(got, alone, rtol=0, atol=1e-14)


@pytest.mark.parametrize("weighted", [False, True])
def test_bootstrap_means_draw_as_scipy_bootstrap(weighted, chunked):
    """Draw ``b`` is ``rng.integers(0, n, size=(B, n))[b]``, in one chunk or
    in several, the weighted mean of the queries drawn."""
    n_queries, B = 7, 17
    values = _values(3, 2, n_queries)
    weights = np.linspace(1.0, 3.0, n_queries) if weighted else None
    w = np.ones(n_queries) if weights is None else weights
    got = rs.bootstrap_means(
        values, weights, n_resamples=B, rng=np.random.default_rng(4)
    )
    index = np.random.default_rng(4).integers(0, n_queries, size=(B, n_queries))
    expected = np.array(
        [[(row[i] * w[i]).sum() / w[i].sum() for i in index] for row in values]
    )
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


def test_bootstrap_means_never_draw_a_query_of_weight_zero():
    values = _values(6, 2, 6)
    weights = np.array([1.0, 0.0, 2.0, 0.0, 1.0, 3.0])
    keep = weights > 0
    got = rs.bootstrap_means(
        values, weights, n_resamples=50, rng=np.random.default_rng(8)
    )
    expected = rs.bootstrap_means(
        values[:, keep], weights[keep], n_resamples=50, rng=np.random.default_rng(8)
    )
    np.testing.assert_array_equal(got, expected)


def test_bootstrap_means_of_a_single_query_drawn_every_time():
    """One query: every draw takes it once (the last bin of the counts is
    there even when it is the only one)."""
    values = np.array([[0.25], [3.0]])
    got = rs.bootstrap_means(values, None, n_resamples=4, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(got, [[0.25] * 4, [3.0] * 4])


@pytest.mark.parametrize(
    "weights", [None, np.array([1.0, 2.0, 0.0, 0.5, 1.5]), np.array([1, 2, 3, 4, 5.0])]
)
def test_jackknife_means_leave_each_query_out(weights):
    values = _values(7, 3, 5)
    w = np.ones(5) if weights is None else weights
    kept = [i for i in range(5) if w[i] > 0]
    expected = np.array(
        [
            [
                sum(row[j] * w[j] for j in kept if j != i)
                / sum(w[j] for j in kept if j != i)
                for i in kept
            ]
            for row in values
        ]
    )
    got = rs.jackknife_means(values, weights)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


@pytest.mark.parametrize("weighted", [False, True])
def test_permuted_system_means_shuffle_each_query_among_systems(weighted, chunked):
    n_queries, n_systems, n_metrics, B = 4, 3, 2, 9
    stacked = np.random.default_rng(9).random((n_queries, n_systems, n_metrics))
    weights = np.array([1.0, 0.5, 2.0, 1.5]) if weighted else None
    w = np.ones(n_queries) if weights is None else weights
    got = rs.permuted_system_means(
        stacked, weights, n_resamples=B, rng=np.random.default_rng(2)
    )
    rng = np.random.default_rng(2)
    identity = np.tile(np.arange(n_systems), (n_queries, 1))
    sizes = [1] * B if chunked else [B]  # 24 elements a draw: one a chunk
    orders = np.concatenate(
        [rng.permuted(np.tile(identity, (size, 1, 1)), axis=2) for size in sizes]
    )
    expected = np.array(
        [
            [
                [
                    sum(w[q] * stacked[q, order[q, s], m] for q in range(n_queries))
                    / w.sum()
                    for m in range(n_metrics)
                ]
                for s in range(n_systems)
            ]
            for order in orders
        ]
    )
    assert got.shape == (B, n_systems, n_metrics)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


def test_weighted_means_of_rows():
    values = _values(4, 2, 3)
    np.testing.assert_allclose(
        rs.weighted_means(values, None), values.sum(axis=1) / 3, rtol=1e-15
    )
    weights = np.array([1.0, 3.0, 0.0])
    expected = (values[:, 0] + 3 * values[:, 1]) / 4
    np.testing.assert_allclose(rs.weighted_means(values, weights), expected, rtol=1e-15)


# --------------------------------------------------------------------------
# Quantiles
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 10])
def test_quantiles_equal_numpy_linear_quantiles(n):
    rows = np.sort(np.random.default_rng(n).random((7, n)), axis=1)
    probabilities = np.array([0.0, 0.02, 0.5, 0.5 + 1 / (2 * n), 0.93, 0.999, 1.0])
    got = rs.quantiles(rows, probabilities)
    expected = [np.quantile(row, p) for row, p in zip(rows, probabilities, strict=True)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_quantiles_clip_probabilities_outside_zero_one():
    rows = np.sort(np.random.default_rng(1).random((4, 6)), axis=1)
    got = rs.quantiles(rows, [-0.5, 1.5, -1e-9, 1 + 1e-9])
    np.testing.assert_array_equal(
        got, [rows[0, 0], rows[1, -1], rows[2, 0], rows[3, -1]]
    )


def test_quantiles_one_probability_for_every_row():
    rows = np.sort(np.random.default_rng(2).random((3, 5)), axis=1)
    got = rs.quantiles(rows, 0.3)
    np.testing.assert_allclose(got, np.quantile(rows, 0.3, axis=1), rtol=0, atol=1e-15)
