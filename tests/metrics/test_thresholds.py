"""Every binary metric under a ``relevance_threshold`` above 1, against the
per-query reference: rows below the threshold count as non-relevant, and a
query whose relevant rows are all below it has no relevant row.

Registry-driven: a binary metric registered later is checked too. Found
missing by the mutation campaign of ``skirm/metrics/_positions.py`` (hit
rate, reciprocal rank and RBP read the threshold in paths no test ran with
one).
"""

from __future__ import annotations

import numpy as np
import pytest
from _impressions import IMPRESSIONS
from _reference import reference_per_query

from skirm.metrics import evaluate, get_metric
from skirm.metrics._registry import SPECS

#: ``(name, k)`` of every binary metric, with cutoffs where it takes one.
CASES = [
    (spec.names[0], k)
    for spec in sorted(SPECS, key=lambda spec: spec.names[0])
    if spec.kind == "binary" and spec.name not in IMPRESSIONS  # test_impressions.py
    for k in ((None, 1, 3) if spec.takes_k else (None,))
]


def _rows(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=30)
    groups = np.repeat(np.arange(30), sizes)
    # Labels 0..3; some queries hold only labels below the threshold.
    y_true = rng.integers(0, 4, size=groups.shape[0])
    low = np.isin(groups, rng.choice(30, size=8, replace=False))
    y_true[low] = rng.integers(0, 2, size=int(low.sum()))
    y_score = rng.integers(0, 4, size=groups.shape[0]).astype(float)  # ties
    return y_true, y_score, groups


@pytest.mark.parametrize("ties", ["average", "first", "optimistic", "pessimistic"])
@pytest.mark.parametrize(("name", "k"), CASES)
@pytest.mark.parametrize("threshold", [2, 3])
def test_binary_metrics_read_the_threshold(name, k, ties, threshold):
    y_true, y_score, groups = _rows(threshold)
    metric = get_metric(
        name if k is None else f"{name}@{k}", relevance_threshold=threshold
    )
    result = evaluate(
        y_true, y_score, groups=groups, metrics=[metric], ties=ties, no_relevant="skip"
    )
    _, expected, empty = reference_per_query(
        name, y_true, y_score, groups, k=k, ties=ties, relevance_threshold=threshold
    )
    assert any(empty) and not all(empty)
    expected = np.where(empty, np.nan, expected)
    np.testing.assert_allclose(
        result.per_query[metric.name], expected, rtol=1e-12, atol=1e-15
    )
    # The threshold is not the default: a query with only label-1 rows
    # relevant by default has none here.
    default = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=[name if k is None else f"{name}@{k}"],
        ties=ties,
        no_relevant="skip",
    )
    assert (
        np.isnan(result.per_query[metric.name]).sum()
        > np.isnan(next(iter(default.per_query.values()))).sum()
    )
