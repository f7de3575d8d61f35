"""Query ids to dense codes (``skirm._engine.encode_grouped``): every path
(sorted ints, a compact range, a wide range, strings, objects) gives sorted
distinct labels and codes that map back to the input. Found missing by the
module's mutation campaign."""

from __future__ import annotations

import numpy as np
import pytest

from skirm._engine import encode_grouped
from skirm.metrics import evaluate


def _check(groups):
    codes, uniques, starts = encode_grouped(np.asarray(groups))
    np.testing.assert_array_equal(uniques, np.unique(groups))
    np.testing.assert_array_equal(uniques[codes], groups)
    if starts is not None:
        assert np.all(np.diff(codes) >= 0)
        np.testing.assert_array_equal(
            starts, np.searchsorted(codes, np.arange(uniques.shape[0] + 1))
        )
    return codes, uniques


@pytest.mark.parametrize(
    "groups",
    [
        [5, 3, 4, 3, 5],  # a compact range, every label used, not from 0
        [7, 3, 9, 3],  # a compact range with gaps
        [10**12, -(10**12), 0, 10**12],  # a range far wider than the rows
        [-(10**12), 0, 10**12],  # the same range, sorted
        [3, 3, 4, 4, 6],  # sorted with a gap
        ["q2", "q1", "q2", "q10"],
        np.array(["b", "a", "b"], dtype=object),
    ],
)
def test_every_path_maps_back(groups):
    _check(groups)


def test_unsorted_compact_ids_are_the_result_ids():
    y_true, y_score = [1, 0, 1, 1], [0.5, 0.2, 0.9, 0.1]
    result = evaluate(y_true, y_score, groups=[5, 3, 4, 3], metrics=["mrr"])
    assert result.group_ids.tolist() == [3, 4, 5]


def test_mixed_labels_are_named():
    message = (
        r"^`groups` labels must be mutually comparable \(all ints or all "
        r"strings\), got a mix: "
    )
    for groups in (
        np.array([1, "a", 1, "a"], dtype=object),  # contiguous blocks
        np.array(["a", 1, "a", 1], dtype=object),  # interleaved: by sort
    ):
        with pytest.raises(TypeError, match=message):
            encode_grouped(groups)


@pytest.mark.parametrize("n_groups", [1 << 16, (1 << 16) + 1, 70_000])
def test_stable_code_sort_at_and_beyond_16_bits(n_groups):
    # Above 2**16 codes the sort takes two 16-bit radix passes.
    from skirm._engine._encode import stable_code_sort

    rng = np.random.default_rng(n_groups)
    keys = rng.integers(0, n_groups, 200_000)
    keys[:2] = (0, n_groups - 1)
    np.testing.assert_array_equal(
        stable_code_sort(keys, n_groups), np.argsort(keys, kind="stable")
    )


@pytest.mark.parametrize("n_groups", [1 << 14, (1 << 14) + 1, 40_000])
def test_code_starts_by_bisection_and_by_counting(n_groups):
    from skirm._engine._encode import counted_starts, sorted_code_starts

    rng = np.random.default_rng(1)
    codes = np.sort(rng.integers(0, n_groups - 5, 100_000))  # last codes unused
    want = np.searchsorted(codes, np.arange(n_groups + 1))
    np.testing.assert_array_equal(sorted_code_starts(codes, n_groups), want)
    np.testing.assert_array_equal(counted_starts(codes, n_groups), want)


def test_many_shuffled_queries_equal_the_sorted_rows():
    # 70,000 queries in random row order: the grouped sort's two-pass path.
    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(70_000), 3)
    y_true = rng.integers(0, 3, groups.size)
    y_score = rng.random(groups.size)
    perm = rng.permutation(groups.size)
    metrics = ["ndcg@2", "map", "mrr"]
    sorted_rows = evaluate(y_true, y_score, groups=groups, metrics=metrics)
    shuffled = evaluate(
        y_true[perm], y_score[perm], groups=groups[perm], metrics=metrics
    )
    for name in metrics:
        np.testing.assert_array_equal(
            shuffled.per_query[name], sorted_rows.per_query[name]
        )
