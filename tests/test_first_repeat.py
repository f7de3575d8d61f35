"""The one duplicate finder (``skirm._validation.first_repeat``) against a
scan of the rows, on seeded keys that vary one dimension at a time."""

import numpy as np
import pytest

from skirm._validation import distinct, first_repeat, repeated_pairs


def _scan(*keys):
    """The earliest row whose keys an earlier row holds, and that row."""
    seen = {}
    for row, key in enumerate(zip(*(k.tolist() for k in keys), strict=True)):
        if key in seen:
            return seen[key], row
        seen[key] = row
    return None


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n_keys", [1, 2, 3])
@pytest.mark.parametrize("distinct", [2, 30, 10_000])
def test_first_repeat_equals_a_scan(seed, n_keys, distinct):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    keys = [rng.integers(0, distinct, n) for _ in range(n_keys)]
    if seed % 3 == 0:  # strings
        keys = [k.astype(str) for k in keys]
    assert first_repeat(*keys) == _scan(*keys)


def test_repeated_pairs_chain_equal_rows_in_row_order():
    key = np.array([5, 1, 5, 2, 5, 1])
    first, second = repeated_pairs(key)
    pairs = sorted(zip(first.tolist(), second.tolist(), strict=True))
    assert pairs == [(0, 2), (1, 5), (2, 4)]
    empty = repeated_pairs(np.array([1, 2, 3]))
    assert empty[0].shape == empty[1].shape == (0,)


def test_a_label_given_twice_to_ranked_lists_is_the_first_repeated():
    """The label whose second list comes first (9, at list 2), not the
    smallest label given twice (7)."""
    from skirm.metrics import from_lists

    lists, relevant = [["a"], ["b"], ["c"], ["d"]], [{"a"}, {"b"}, {"c"}, {"d"}]
    with pytest.raises(ValueError, match=r"got 9 twice"):
        from_lists(lists, relevant, groups=[9, 7, 9, 7])


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.uint8, np.float64])
@pytest.mark.parametrize("n_distinct", [1, 7, 1000, 10**9])
@pytest.mark.parametrize("n", [0, 1, 2, 5000])
def test_distinct_is_numpys_unique(dtype, n_distinct, n):
    """The sort the preference closure uses in place of numpy's hashed
    ``np.unique``: the same values, in the same order, of the same dtype."""
    rng = np.random.default_rng(n + n_distinct)
    high = min(n_distinct, np.iinfo(dtype).max if dtype != np.float64 else n_distinct)
    values = rng.integers(0, high, n, endpoint=True).astype(dtype)
    if dtype == np.float64:
        values[::3] *= -0.5
    given = values.copy()
    got = distinct(values)
    expected = np.unique(values)
    assert got.dtype == expected.dtype
    assert got.tobytes() == expected.tobytes()
    assert values.tobytes() == given.tobytes()  # the input is not sorted in place
