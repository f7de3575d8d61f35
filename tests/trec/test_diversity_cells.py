"""The diversity measures' (query, subtopic) cells: taken from the
judgments' own codes where the subtopics are ASCII, they give every value
of ndeval's report bit for bit as the cells of the subtopics' strings do
(a query's cells summed in the same order), on generated judgments whose
subtopic ids vary one dimension at a time; and the pairs' order from one
packed sort key is that of the sort of both keys."""

from __future__ import annotations

import numpy as np
import pytest

import skirm.trec._ndeval_report as report_module
from skirm.metrics._diversity import cells, pair_order
from skirm.trec import evaluate_diversity

SUBTOPICS = {
    "numbers": lambda i: str(i + 1),  # "10" sorts before "2"
    "words": lambda i: f"intent-{'x' * (i % 11)}{i}",  # across word boundaries
    "unicode": lambda i: f"é{i}" if i % 2 else str(i),  # the strings decide
    "latin1": lambda i: f"s\udce9{i}",
}


def _inputs(rng, name):
    qrels, run = {}, {}
    for q in range(int(rng.integers(3, 12))):
        docs = [f"d{q}-{i}" for i in range(int(rng.integers(5, 40)))]
        subtopics = [
            SUBTOPICS[name](i) for i in rng.permutation(12)[: rng.integers(1, 12)]
        ]
        qrels[f"q{q}"] = {
            s: {d: int(rng.integers(0, 3)) for d in rng.choice(docs, len(docs) // 2)}
            for s in subtopics
        }
        scores = rng.integers(0, 6, len(docs)) / 2  # ties
        run[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
    return qrels, run


def _by_strings(qrels, joined, rows):
    """The reference: the cells of the subtopics' strings, sorted."""
    j_sub, _ = qrels._g.take(rows).codes()
    return cells(joined.q_place[rows], j_sub)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name", sorted(SUBTOPICS))
def test_cells_of_codes_give_the_strings_values(name, seed, monkeypatch):
    rng = np.random.default_rng([seed, len(name)])
    qrels, run = _inputs(rng, name)
    options = {"alpha": float(rng.choice([0.2, 0.5])), "relevance_threshold": 1}
    got = evaluate_diversity(qrels, run, **options)
    monkeypatch.setattr(report_module, "_cells", _by_strings)
    want = evaluate_diversity(qrels, run, **options)
    assert got["mean"] == want["mean"]
    for key, values in want.items():
        if isinstance(values, np.ndarray):
            np.testing.assert_array_equal(got[key], values)


@pytest.mark.parametrize("seed", range(5))
def test_pair_order_is_lexsorts(seed):
    rng = np.random.default_rng(seed)
    pairs = np.unique(rng.integers(-50, 500, (400, 2)), axis=0)
    pairs = pairs[rng.permutation(pairs.shape[0])]
    major, minor = np.abs(pairs[:, 0]), pairs[:, 1]
    keep = np.unique(np.stack([major, minor], axis=1), axis=0, return_index=True)[1]
    major, minor = major[keep], minor[keep]  # distinct pairs
    np.testing.assert_array_equal(pair_order(major, minor), np.lexsort((minor, major)))
    # a spread no packed key holds: the two keys sorted as they are
    wide = minor * 2**55
    np.testing.assert_array_equal(pair_order(major, wide), np.lexsort((wide, major)))
