"""The engine's grouped sort against a plain lexsort, on awkward scores.

The fast path packs each score into a 64-bit key whose low bits are dropped;
these tests make sure every tie policy still gives exactly the order of a
stable lexsort, including scores that differ only in their last bits (the
fallback path), signed zeros, infinities, and non-contiguous groups.
"""

import numpy as np
import pytest

from skirm._engine import encode_groups, rank

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
    # Distinct scores closer than the key's resolution: the fallback path.
    return 1.0 + rng.integers(0, 5, n) * 2.0**-45


def _reference(y_true, y_score, codes, ties):
    n = y_true.shape[0]
    extra = {"first": [], "optimistic": [-y_true], "pessimistic": [y_true]}[ties]
    return np.lexsort((np.arange(n), *extra, -y_score, codes))


@pytest.mark.parametrize("kind", ["specials", "normal", "rounded", "close"])
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
            ranking = rank(y_true, y_score, codes, ids, ties)
            expected = _reference(y_true, y_score, codes, ties)
            np.testing.assert_array_equal(ranking.order, expected)
        ranking = rank(y_true, y_score, codes, ids, "average")
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
    ranking = rank(y_true, y_score, codes, ids, "first")
    np.testing.assert_array_equal(
        ranking.order, _reference(y_true, y_score, codes, "first")
    )


def test_encode_groups_never_hands_out_the_input():
    groups = np.array([0, 0, 1, 2, 2], dtype=np.int64)
    codes, ids = encode_groups(groups)
    np.testing.assert_array_equal(codes, groups)
    np.testing.assert_array_equal(ids, [0, 1, 2])
    with pytest.raises(ValueError, match="read-only"):
        codes[0] = 5
    assert groups[0] == 0
