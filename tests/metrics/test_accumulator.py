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
