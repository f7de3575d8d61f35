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
    from skirm.io._keys import stable_code_sort

    rng = np.random.default_rng(n_groups)
    keys = rng.integers(0, n_groups, 200_000)
    keys[:2] = (0, n_groups - 1)
    np.testing.assert_array_equal(
        stable_code_sort(keys, n_groups), np.argsort(keys, kind="stable")
    )


@pytest.mark.parametrize("n_groups", [3, 1 << 16, 70_000])
@pytest.mark.parametrize("split", [False, True])
def test_stable_code_sort_of_rows_grouped_in_another_code_order(n_groups, split):
    # Rows grouped by code, the codes shuffled (ids read in an order that is
    # not theirs): the runs are moved whole; a code in two runs is sorted.
    from skirm.io._keys import stable_code_sort

    rng = np.random.default_rng(n_groups)
    keys = np.repeat(rng.permutation(n_groups), rng.integers(8, 20, n_groups))
    if split:
        keys = np.append(keys, keys[0])
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


# -- wide string labels compared in one part per thread ------------------------


def _wide_labels(rng, n, width):
    """Fixed-width labels of ``width`` characters, in runs of 1 to 4 rows;
    neighbouring runs differ in one character only, at the start, the middle
    or the end."""
    sizes = rng.integers(1, 5, size=n)
    base = "x" * (width - 1)
    heads = []
    for i in range(n):
        where = (0, width // 2, width - 1)[i % 3]
        label = list(base + "y")
        label[where] = "abcdefgh"[i % 8]
        heads.append("".join(label))
    return np.repeat(np.array(heads, dtype=f"U{width}"), sizes)


@pytest.mark.parametrize("width", [8, 9, 40])
@pytest.mark.parametrize("n_threads", [1, 2, 3, 5])
@pytest.mark.parametrize("kind", ["U", "S"])
def test_shared_label_runs_match_one_comparison(monkeypatch, width, n_threads, kind):
    import skirm._engine._encode as encode
    from skirm._engine._runs import label_runs

    monkeypatch.setattr(encode, "SPLIT_ROWS", 2)
    monkeypatch.setattr(encode, "SPLIT_WIDTH", 8)
    rng = np.random.default_rng(width * 10 + n_threads)
    labels = _wide_labels(rng, 200, width)
    if kind == "S":
        labels = labels.astype(f"S{width}")
    for n in (2, 3, 7, 64, labels.shape[0]):  # part edges on and off runs
        part = labels[:n]
        np.testing.assert_array_equal(
            encode.shared_label_runs(part, n_threads), label_runs(part)
        )


def test_wide_string_labels_are_compared_in_parts_only_when_worth_it(monkeypatch):
    import skirm._engine._encode as encode

    parts = []
    real = encode.share_out
    monkeypatch.setattr(
        encode, "share_out", lambda f, n, t: parts.append(n) or real(f, n, t)
    )
    labels = _wide_labels(np.random.default_rng(0), 40, 10)  # U10: 40 bytes
    monkeypatch.setattr(encode, "SPLIT_ROWS", labels.shape[0])
    monkeypatch.setattr(encode, "SPLIT_WIDTH", 40)
    encode.shared_label_runs(labels, 2)
    assert parts == [2]
    for narrow in (labels.astype("U9"), labels[:-1]):  # 36 bytes; a row short
        encode.shared_label_runs(narrow, 2)
    encode.shared_label_runs(labels, 1)
    monkeypatch.setattr(encode, "SPLIT_WIDTH", 8)  # as wide as a pointer
    encode.shared_label_runs(labels.astype(object), 2)  # compared under the GIL
    assert parts == [2]


def test_wide_string_ids_encoded_aside_in_parts_give_the_same_values(monkeypatch):
    """check_input's second thread encodes wide string ids in parts: the
    very same values as one thread, for ids in and out of label order."""
    import skirm._engine._check
    import skirm._engine._encode as encode

    rng = np.random.default_rng(4)
    labels = _wide_labels(rng, 300, 12)
    shuffled_runs = labels[::-1].copy()  # runs out of label order
    y_true = rng.integers(0, 3, labels.shape[0]).astype(float)
    y_score = rng.random(labels.shape[0])
    parts = []
    real = encode.share_out
    monkeypatch.setattr(
        encode, "share_out", lambda f, n, t: parts.append(n) or real(f, n, t)
    )
    monkeypatch.setattr(skirm._engine._check, "_ASIDE_ROWS", 1)
    monkeypatch.setattr(encode, "SPLIT_ROWS", 1)
    for groups in (labels, shuffled_runs):
        one = evaluate(y_true, y_score, groups=groups, metrics=["ndcg@5", "map"])
        assert parts == []
        two = evaluate(
            y_true, y_score, groups=groups, metrics=["ndcg@5", "map"], n_jobs=2
        )
        assert parts == [2]
        parts.clear()
        np.testing.assert_array_equal(two.group_ids, one.group_ids)
        for name in ("ndcg@5", "map"):
            np.testing.assert_array_equal(two.per_query[name], one.per_query[name])
            assert two[name] == one[name]


@pytest.mark.parametrize("layout", ["sorted", "reversed", "gap"])
def test_ids_at_the_top_of_int64_keep_their_values_regression(layout):
    """Issue 51 (a differential run over odd ids): labels reaching 2**63 - 1
    made ``np.arange(gmin, gmax + 1)`` count in float64, and every query came
    back as -2**63."""
    top = np.iinfo(np.int64).max
    ids = {"sorted": [top - 1, top], "reversed": [top, top - 1], "gap": [top, top - 2]}
    g = np.repeat(np.array(ids[layout], dtype=np.int64), 2)
    result = evaluate([1, 0, 0, 1], [2, 1, 2, 1], groups=g, metrics=["mrr"])
    assert result.group_ids.dtype == np.int64
    assert result.group_ids.tolist() == sorted(ids[layout])
    by_id = dict(zip(result.group_ids.tolist(), result.per_query["mrr"], strict=True))
    assert by_id[int(g[0])] == 1.0 and by_id[int(g[2])] == 0.5
    _check(g)
