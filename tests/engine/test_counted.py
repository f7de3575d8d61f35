"""Ranks counted without a sort (``skirm._engine.count_scores``, and the
rows of the scores counted equal, ``scored_rows``), against a slow
reference: one Python comparison of each pair's score with every score of
its query. Generated inputs vary one dimension at a time: queries of one
size and of several (the two ways of counting), ties, blocks of compared
scores from one pair to every pair, lines long enough for an intp count,
queries of several sizes laid along padded lines or not, infinite scores
beside the padding, C floats."""

from __future__ import annotations

import numpy as np
import pytest

from skirm._engine import _counted
from skirm._engine._counted import count_scores, scored_rows


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


def _case(seed, sizes, levels, dtype=np.float64):
    """Scores of queries of ``sizes`` rows drawn from ``levels`` values (few
    levels: many ties; with ``levels`` 3, infinities among them), and each
    query's rows asked about (some twice)."""
    rng = np.random.default_rng(seed)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    scores = rng.integers(0, levels, int(starts[-1])) / 4.0
    if levels == 3:
        scores[rng.random(scores.shape[0]) < 0.1] = np.inf
        scores[rng.random(scores.shape[0]) < 0.1] = -np.inf
    scores = scores.astype(dtype)
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
    # lines summed in bytes (shorter than 256), and in uint16 from 256
    "one_size_255": lambda rng: np.full(4, 255),
    "one_size_256": lambda rng: np.full(4, 256),
    "one_size_300": lambda rng: np.full(3, 300),
    "one_size_1000": lambda rng: np.full(3, 1000),
    "several_sizes": lambda rng: rng.integers(1, 40, 30),
    "one_row_each": lambda rng: np.ones(25, dtype=np.int64),
    "mostly_full": lambda rng: np.where(
        rng.random(30) < 0.2, rng.integers(0, 17, 30), 17
    ),
    "some_empty": lambda rng: rng.integers(0, 3, 30) * 8,
    "one_long": lambda rng: np.append(np.full(20, 3), 50),
}


@pytest.mark.parametrize("padded", [0, _counted.PADDED, 100])
@pytest.mark.parametrize("cells", [1, 7, 1 << 16])
@pytest.mark.parametrize("levels", [3, 1_000_000])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(3))
def test_counts_as_the_reference(shape, levels, cells, padded, seed, monkeypatch):
    """``padded``: queries of several sizes counted row by row (0), along
    padded lines where they waste at most the default share, or always."""
    monkeypatch.setattr(_counted, "CELLS", cells)
    monkeypatch.setattr(_counted, "PADDED", padded)
    sizes = SHAPES[shape](np.random.default_rng(seed))
    scores, starts, q, s = _case(seed, sizes, levels)
    got = (*count_scores(scores, starts, q, s), scored_rows(scores, starts, q, s))
    for have, want in zip(got, _reference(scores, starts, q, s), strict=True):
        np.testing.assert_array_equal(have, want)


@pytest.mark.parametrize("shape", ["one_size", "several_sizes", "mostly_full"])
def test_counts_c_floats(shape, monkeypatch):
    """Scores held as C floats (float32), padded with a float32 NaN."""
    monkeypatch.setattr(_counted, "PADDED", 100)
    sizes = SHAPES[shape](np.random.default_rng(5))
    scores, starts, q, s = _case(5, sizes, 3, dtype=np.float32)
    got = (*count_scores(scores, starts, q, s), scored_rows(scores, starts, q, s))
    for have, want in zip(got, _reference(scores, starts, q, s), strict=True):
        np.testing.assert_array_equal(have, want)


@pytest.mark.parametrize(
    ("sizes", "padded"),
    [([4, 4, 4], None), ([4, 3, 4], 4), ([8, 1, 1, 1], 0), ([0, 0, 5], 0)],
)
def test_which_lines(sizes, padded):
    """The lines of one size are the scores themselves; padding is laid
    where it wastes at most ``PADDED`` times the rows, and not otherwise."""
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    scores = np.arange(int(starts[-1]), dtype=np.float64)
    lines, width = _counted._lines(scores, starts)
    if padded is None:
        assert lines.base is scores and width == max(sizes)
    elif padded:
        assert lines.shape == (len(sizes), padded)
        assert np.isnan(lines).sum() == lines.size - scores.shape[0]
        np.testing.assert_array_equal(lines[~np.isnan(lines)], scores)
    else:
        assert lines is None and width == 0
