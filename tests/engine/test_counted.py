"""Ranks counted without a sort (``skirm._engine.count_scores``), against a
slow reference: one Python comparison of each pair's score with every score
of its query. Generated inputs vary one dimension at a time: queries of one
size and of several (the two ways of counting), ties, blocks of compared
scores from one pair to every pair, lines long enough for an intp count."""

from __future__ import annotations

import numpy as np
import pytest

from skirm._engine import _counted
from skirm._engine._counted import count_scores


def _reference(scores, starts, q, s):
    above, equal, rows = [], [], []
    for query, score in zip(q.tolist(), s.tolist(), strict=True):
        lo, hi = int(starts[query]), int(starts[query + 1])
        line = scores[lo:hi].tolist()
        above.append(sum(v > score for v in line))
        same = [lo + i for i, v in enumerate(line) if v == score]
        equal.append(len(same))
        rows += same
    return np.array(above), np.array(equal), np.array(rows, dtype=np.intp)


def _case(seed, sizes, levels):
    """Scores of queries of ``sizes`` rows drawn from ``levels`` values (few
    levels: many ties), and each query's rows asked about (some twice)."""
    rng = np.random.default_rng(seed)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    scores = rng.integers(0, levels, int(starts[-1])) / 4.0
    q, s = [], []
    for query, size in enumerate(sizes):
        if size == 0:
            continue
        picked = rng.integers(0, size, int(rng.integers(1, 4)))
        q += [query] * picked.shape[0]
        s += scores[starts[query] + picked].tolist()
    return scores, starts, np.array(q, dtype=np.intp), np.array(s)


SHAPES = {
    "one_size": lambda rng: np.full(30, 17),
    "one_size_wide": lambda rng: np.full(3, 70_000),  # counts past uint16
    "several_sizes": lambda rng: rng.integers(1, 40, 30),
    "one_row_each": lambda rng: np.ones(25, dtype=np.int64),
}


@pytest.mark.parametrize("cells", [1, 7, 1 << 16])
@pytest.mark.parametrize("levels", [3, 1_000_000])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(3))
def test_counts_as_the_reference(shape, levels, cells, seed, monkeypatch):
    monkeypatch.setattr(_counted, "CELLS", cells)
    sizes = SHAPES[shape](np.random.default_rng(seed))
    scores, starts, q, s = _case(seed, sizes, levels)
    got = count_scores(scores, starts, q, s)
    for have, want in zip(got, _reference(scores, starts, q, s), strict=True):
        np.testing.assert_array_equal(have, want)
