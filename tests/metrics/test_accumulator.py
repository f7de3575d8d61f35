"""MetricAccumulator: batches evaluated once, as evaluate on their concatenation."""

import subprocess
import sys

import numpy as np
import pytest

from skirm import InvalidInputError, InvalidParameterError
from skirm.metrics import MetricAccumulator, evaluate

METRICS = ["ndcg@10", "map", "mrr", "err@20", "precision@5", "rbp"]


def _rows(seed, n=900, n_queries=60):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    scores = rng.normal(size=n).round(1)  # ties within queries
    groups = rng.integers(0, n_queries, n)  # interleaved, split over batches
    return y, scores, groups


def _cuts(seed, n, n_batches):
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(np.arange(1, n), n_batches - 1, replace=False))


def _assert_same_bits(got, want):
    np.testing.assert_array_equal(got.group_ids, want.group_ids)
    assert list(got.means) == list(want.means)
    for name in want.means:
        assert (
            np.float64(got.means[name]).tobytes()
            == np.float64(want.means[name]).tobytes()
        )
        assert got.per_query[name].tobytes() == want.per_query[name].tobytes()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_batches", [1, 2, 7, 40])
def test_equals_evaluate_on_the_concatenation_bit_for_bit(seed, n_batches):
    y, s, g = _rows(seed)
    acc = MetricAccumulator(METRICS, ties="average", no_relevant="skip")
    for rows in np.split(np.arange(y.shape[0]), _cuts(seed, y.shape[0], n_batches)):
        acc.update(y[rows], s[rows], g[rows])
    assert acc.n_rows == y.shape[0]
    want = evaluate(y, s, groups=g, metrics=METRICS, no_relevant="skip")
    _assert_same_bits(acc.compute(), want)


def test_torch_tensors_equal_numpy():
    torch = pytest.importorskip("torch")
    y, s, g = _rows(11)
    s32 = s.astype(np.float32)
    acc = MetricAccumulator(METRICS, gain="exponential")
    for rows in np.array_split(np.arange(y.shape[0]), 9):
        acc.update(
            torch.from_numpy(y[rows]),
            torch.from_numpy(s32[rows]).requires_grad_(),
            torch.from_numpy(g[rows]),
        )
    want = evaluate(y, s32, groups=g, metrics=METRICS, gain="exponential")
    _assert_same_bits(acc.compute(), want)


def test_lists_are_accepted_and_torch_is_not_imported():
    code = (
        "import sys\n"
        "from skirm.metrics import MetricAccumulator\n"
        "acc = MetricAccumulator('mrr')\n"
        "acc.update([1, 0], [0.2, 0.5], ['a', 'a'])\n"
        "assert acc.compute()['mrr'] == 0.5\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_merge_and_reset():
    y, s, g = _rows(3)
    half = y.shape[0] // 2
    first, second = MetricAccumulator(METRICS), MetricAccumulator(METRICS)
    first.update(y[:half], s[:half], g[:half])
    second.update(y[half:], s[half:], g[half:])
    assert first.merge(second) is first
    _assert_same_bits(first.compute(), evaluate(y, s, groups=g, metrics=METRICS))
    first.reset()
    assert first.n_rows == 0
    with pytest.raises(InvalidInputError, match=r"call update\(\) first"):
        first.compute()
    with pytest.raises(InvalidParameterError, match="same metrics and options"):
        first.merge(MetricAccumulator(["mrr"]))
    with pytest.raises(InvalidParameterError, match="must be a MetricAccumulator"):
        first.merge([1, 2])


def test_errors_come_at_construction_and_update():
    with pytest.raises(InvalidParameterError, match="unknown measure 'nope'"):
        MetricAccumulator(["nope"])
    with pytest.raises(InvalidParameterError, match="`ties` must be one of"):
        MetricAccumulator(["mrr"], ties="random")
    with pytest.raises(InvalidParameterError, match="has no torchmetrics counterpart"):
        MetricAccumulator(["err@10"], conventions="torchmetrics")
    with pytest.raises(InvalidParameterError, match="taken by none"):
        MetricAccumulator(["mrr"], gain="linear")
    acc = MetricAccumulator(["mrr"])
    with pytest.raises(InvalidInputError, match="one value per row"):
        acc.update([1, 0], [0.5], [0, 0])
    with pytest.raises(InvalidInputError, match="`y_score` must be 1-D"):
        acc.update([1, 0], [[0.5, 0.1]], [0, 0])
    assert repr(acc) == "MetricAccumulator(['mrr'])"


@pytest.mark.oracle
def test_torchmetrics_preset_equals_torchmetrics_objects():
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    rng = np.random.default_rng(8)
    n = 2000
    groups = np.sort(rng.integers(0, 150, n))
    y = rng.integers(0, 3, n)
    # Tie-averaged NDCG on tied scores; the binary metrics follow torch's own
    # order among ties, so they are compared on distinct positive scores.
    tied = rng.integers(1, 40, n) / 8.0
    distinct = (rng.permutation(n) + 1.0) / 4.0
    cases = {
        "ndcg@10": (retrieval.RetrievalNormalizedDCG(top_k=10), tied, y),
        "ndcg": (retrieval.RetrievalNormalizedDCG(), tied, y),
        "map": (retrieval.RetrievalMAP(), distinct, y > 0),
        "mrr": (retrieval.RetrievalMRR(), distinct, y > 0),
        "precision@5": (retrieval.RetrievalPrecision(top_k=5), distinct, y > 0),
        "recall@5": (retrieval.RetrievalRecall(top_k=5), distinct, y > 0),
    }
    for name, (metric, scores, labels) in cases.items():
        acc = MetricAccumulator([name], conventions="torchmetrics")
        for rows in np.array_split(np.arange(n), 7):  # queries split over batches
            args = (
                torch.from_numpy(scores[rows]),
                torch.from_numpy(labels[rows]),
                torch.from_numpy(groups[rows]),
            )
            metric.update(args[0], args[1], indexes=args[2])
            acc.update(args[1], args[0], args[2])  # skirm's order: y_true first
        want = float(metric.compute())
        assert acc.compute()[name] == pytest.approx(want, abs=2e-6), name


# -- empty batches, wide ids, NaN and bfloat16 (issue 51, items 5 and 9) -----


def test_empty_batch_keeps_int64_ids_regression():
    """An empty batch (``update([], [], [])``) made numpy promote the int64
    ids to float64: 7 came back as 7.0, and ids above 2**53 merged (MRR 0.5
    where the two queries give 0.75)."""
    big = 2**60
    acc = MetricAccumulator(["mrr"])
    acc.update([1, 0], [0.9, 0.1], np.array([7, 7]))
    acc.update([], [], [])
    acc.update(
        [0, 1, 1, 0], [0.9, 0.1, 0.9, 0.1], np.array([big + 1] * 2 + [big + 2] * 2)
    )
    result = acc.compute()
    assert result.group_ids.dtype == np.int64
    assert result.group_ids.tolist() == [7, big + 1, big + 2]
    assert result["mrr"] == pytest.approx((1 + 0.5 + 1) / 3)


def _wide_ids(seed, n=600, n_queries=40):
    """Rows whose int64 query ids lie near 2**63 (one apart, so that any trip
    through float64 merges them)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    scores = rng.normal(size=n).round(1)
    ids = np.iinfo(np.int64).max - np.arange(n_queries, dtype=np.int64)
    return y, scores, ids[rng.integers(0, n_queries, n)]


def _cuts_with_empties(seed, n, n_batches):
    """Random batch boundaries, repeated ones giving empty batches."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.integers(0, n + 1, n_batches - 1))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n_batches", [2, 9, 50])
def test_any_batches_empty_ones_included_equal_evaluate_with_wide_ids(seed, n_batches):
    y, s, g = _wide_ids(seed)
    acc = MetricAccumulator(METRICS)
    cuts = _cuts_with_empties(seed, y.shape[0], n_batches)
    empty = [[], np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, dtype="<U1")]
    for i, rows in enumerate(np.split(np.arange(y.shape[0]), cuts)):
        if rows.shape[0] == 0:
            kind = empty[i % len(empty)]
            acc.update(kind, kind, kind)
        else:
            acc.update(y[rows], s[rows], g[rows])
        if seed % 3 == 0:
            acc.update([], [], [])  # an empty batch after every batch
    want = evaluate(y, s, groups=g, metrics=METRICS)
    got = acc.compute()
    assert got.group_ids.dtype == np.int64
    _assert_same_bits(got, want)


def test_int64_and_uint64_batches_keep_every_id():
    """Batches of int64 and uint64 ids (lists of ints past 2**63 become
    uint64) are concatenated as uint64 when none is negative, else as Python
    ints: never through float64."""
    top = 2**63
    acc = MetricAccumulator(["mrr"])
    acc.update([1, 0], [0.9, 0.1], [5, 5])
    acc.update([0, 1], [0.9, 0.1], [top + 1, top + 1])
    acc.update([1, 0], [0.9, 0.1], [top + 2, top + 2])
    result = acc.compute()
    assert result.group_ids.dtype == np.uint64
    assert result.group_ids.tolist() == [5, top + 1, top + 2]
    assert result["mrr"] == pytest.approx((1 + 0.5 + 1) / 3)
    acc = MetricAccumulator(["mrr"])
    acc.update([1, 0], [0.9, 0.1], [-5, -5])
    acc.update([0, 1], [0.9, 0.1], [top + 1, top + 1])
    acc.update([1, 0], [0.9, 0.1], [top + 2, top + 2])
    assert acc.compute().per_query["mrr"].tolist() == [1.0, 0.5, 1.0]


def test_nan_score_is_refused_at_update_naming_batch_and_query():
    acc = MetricAccumulator(["mrr"])
    acc.update([1, 0], [0.9, 0.1], ["a", "a"])
    acc.update([], [], [])
    with pytest.raises(
        InvalidInputError, match=r"NaN in the 3rd batch .* at its row 1 \(query 'b'\)"
    ):
        acc.update([1, 0, 1], [0.2, np.nan, 0.3], ["b", "b", "c"])
    assert acc.n_rows == 2  # the refused batch is not kept
    with pytest.raises(InvalidInputError, match="every batch given was empty"):
        empty = MetricAccumulator(["mrr"])
        empty.update([], [], [])
        empty.compute()


def test_torch_empty_tensors_and_wide_ids():
    torch = pytest.importorskip("torch")
    y, s, g = _wide_ids(21)
    acc = MetricAccumulator(METRICS)
    for rows in np.split(np.arange(y.shape[0]), _cuts_with_empties(21, y.shape[0], 30)):
        acc.update(
            torch.from_numpy(y[rows]),
            torch.from_numpy(s[rows]),
            torch.from_numpy(g[rows]),
        )
        acc.update(torch.tensor([]), torch.tensor([]), torch.tensor([]))
    _assert_same_bits(acc.compute(), evaluate(y, s, groups=g, metrics=METRICS))


def test_torch_bfloat16_scores_equal_their_float32_values():
    torch = pytest.importorskip("torch")
    y, s, g = _rows(5)
    scores = torch.from_numpy(s).to(torch.bfloat16).requires_grad_()
    acc = MetricAccumulator(METRICS)
    for rows in np.array_split(np.arange(y.shape[0]), 5):
        acc.update(torch.from_numpy(y[rows]), scores[rows], torch.from_numpy(g[rows]))
    exact = scores.detach().float().numpy()  # bfloat16 -> float32 is exact
    _assert_same_bits(acc.compute(), evaluate(y, exact, groups=g, metrics=METRICS))
    acc.update(
        torch.tensor([1, 0]), torch.tensor([0.5, 0.1]).to(torch.bfloat16), [1, 1]
    )


def test_torch_nan_score_is_refused_at_update():
    torch = pytest.importorskip("torch")
    acc = MetricAccumulator(["mrr"])
    scores = torch.tensor([0.5, float("nan")], dtype=torch.bfloat16)
    with pytest.raises(InvalidInputError, match=r"1st batch .* row 1 \(query 8\)"):
        acc.update(torch.tensor([1, 0]), scores, torch.tensor([8, 8]))


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_torchmetrics_preset_accumulator_with_negative_scores_and_map_at_k(seed):
    """Batches of either sign, empty ones among them, through the preset:
    the numbers of torchmetrics' objects fed the same batches."""
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    rng = np.random.default_rng(seed)
    n = 1200
    groups = rng.integers(0, 90, n)
    y = rng.random(n) < 0.3
    scores = (rng.permutation(n) - n * rng.uniform(0.1, 0.9)) / 7.0  # distinct
    scores[scores == 0.0] = 0.5 / 7.0
    cases = {
        "map@10": retrieval.RetrievalMAP(top_k=10),
        "map": retrieval.RetrievalMAP(),
        "mrr": retrieval.RetrievalMRR(),
        "precision@5": retrieval.RetrievalPrecision(top_k=5),
        "recall@10": retrieval.RetrievalRecall(top_k=10),
    }
    acc = MetricAccumulator(list(cases), conventions="torchmetrics")
    cuts = np.sort(rng.integers(0, n + 1, 12))  # repeated cuts: empty batches
    for rows in np.split(np.arange(n), cuts):
        args = tuple(torch.from_numpy(a[rows]) for a in (scores, y, groups))
        for metric in cases.values():
            if rows.shape[0]:
                metric.update(args[0], args[1], indexes=args[2])
        acc.update(args[1], args[0], args[2])
    got = acc.compute()
    for name, metric in cases.items():
        assert got[name] == pytest.approx(float(metric.compute()), abs=2e-6), name
