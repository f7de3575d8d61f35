"""The ranks of token columns in byte order: a grouped column (query ids)
ranked by the first token of each run (``Tokens.byte_rank``), and a
column's rank kept as the order key of its rows and of the tokens taken
from it (``Tokens.order_key``), compared with a reference built from the
bytes in Python, on generated columns that vary one dimension at a time."""

from __future__ import annotations

import numpy as np
import pytest
from _token_shapes import DIMENSIONS, id_values

import skirm.io._tokens as tokens_module
from skirm.io._coded_tokens import CodedTokens
from skirm.io._tokens import Tokens


def _reference_rank(texts):
    """Dense rank of each text by its bytes (``strcmp``'s order)."""
    data = [t.encode("utf-8", "surrogateescape") for t in texts]
    rank = {b: i for i, b in enumerate(sorted(set(data)))}
    return [rank[b] for b in data]


def _texts(rng, dimension, order):
    values = id_values(rng, dimension, int(rng.integers(1, 40)))
    picks = rng.integers(0, len(values), int(rng.integers(1, 120)))
    if order == "runs":  # each pick repeated, as a query's rows are
        picks = np.repeat(picks, rng.integers(1, 12, picks.shape[0]))
    elif order == "sorted":
        picks = np.sort(picks)
    return [values[i] for i in picks]


@pytest.fixture
def small_sample(monkeypatch):
    """Columns of a few rows looked at for runs as large ones are."""
    monkeypatch.setattr(tokens_module, "SAMPLE_PAIRS", 8)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dimension", DIMENSIONS)
@pytest.mark.parametrize("order", ["runs", "sorted", "shuffled"])
def test_byte_rank_by_runs_equals_the_bytes(
    dimension, seed, order, token_column, small_sample
):
    rng = np.random.default_rng([DIMENSIONS.index(dimension), seed, len(order)])
    texts = _texts(rng, dimension, order)
    want = _reference_rank(texts)
    for column in (Tokens.from_strings(np.array(texts)), token_column(texts, rng)):
        assert column.byte_rank().tolist() == want
        assert column.byte_rank().dtype == np.int64


def test_a_grouped_column_ranks_its_runs_first_tokens(monkeypatch):
    rng = np.random.default_rng(7)
    ids = np.array([f"q{i}" for i in rng.permutation(3000)])
    texts = np.repeat(ids, rng.integers(1, 9, ids.shape[0]))
    column = Tokens.from_strings(texts)
    ranked = []
    original = Tokens.byte_rank

    def spy(self, rows=None):
        ranked.append(len(self) if rows is None else len(rows))
        return original(self, rows)

    monkeypatch.setattr(Tokens, "byte_rank", spy)
    assert column.byte_rank().tolist() == _reference_rank(texts.tolist())
    assert ranked == [texts.shape[0], 3000]  # the column, then its runs' heads


def test_an_interleaved_column_is_ranked_whole(monkeypatch):
    rng = np.random.default_rng(8)
    texts = np.array([f"d{i}" for i in rng.integers(0, 500, 20_000)])
    column = Tokens.from_strings(texts)
    assert not column._grouped()
    assert column._runs is None  # the sample said so: no runs looked for
    assert column.byte_rank().tolist() == _reference_rank(texts.tolist())


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_order_key_orders_as_the_bytes(dimension, seed, token_column):
    rng = np.random.default_rng([DIMENSIONS.index(dimension), seed, 99])
    texts = _texts(rng, dimension, "shuffled")
    want = np.array(_reference_rank(texts))
    column = token_column(texts, rng)
    rows = rng.permutation(len(texts))[: max(1, len(texts) // 2)]
    few = column.order_key(rows)  # fewer than 90% of the rows: their rank
    assert column._order is None
    np.testing.assert_array_equal(few, column.byte_rank(rows))
    key = column.order_key(rng.permutation(len(texts)))  # most: the column's
    assert column._order is not None
    for got in (column.order_key(rows), column.take(rows).order_key()):
        # equal where the bytes are, and in their order
        np.testing.assert_array_equal(
            np.sign(got[:, None] - got[None, :]),
            np.sign(want[rows][:, None] - want[rows][None, :]),
        )
    assert key.shape[0] == len(texts)


def test_order_key_is_kept_and_not_handed_out():
    column = Tokens.from_strings(np.array(["b", "a", "c", "a"]))
    key = column.order_key()
    key[:] = 0  # the caller's copy
    assert column.order_key().tolist() == [1, 0, 2, 0]
    assert column.take(np.array([2, 0])).order_key().tolist() == [2, 1]


def test_coded_tokens_hand_their_order_key_to_the_tokens_taken():
    coded = CodedTokens(np.array([1, 0, 1, 2]), np.array(["a", "b", "c"]))
    assert coded.order_key().tolist() == [1, 0, 1, 2]
    taken = coded.take(np.array([3, 1]))
    assert taken._order is not None
    assert taken.order_key().tolist() == [2, 0]
