"""The parts of a ranking a :class:`~skirm._engine.Ranking` takes or hands
out: every judgement of its queries (:class:`Judgments`), its tie blocks
(:class:`TieBlocks`) and a subset of its rows (:class:`Rows`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

__all__ = ["Judgments", "Rows", "TieBlocks"]


class Judgments(NamedTuple):
    """Every judged label of the ranked queries, retrieved or not.

    The TREC path passes the qrels here so that R and the ideal ordering count
    relevant documents a run did not retrieve. Each query's judgements are
    in the order the qrels list them. ``of_rows``, when given, is a function
    that returns the judgement of each ranked input row (its index into these
    arrays, -1 for a row not judged), indexed as :attr:`Ranking.order` is: it
    is computed only for a measure that asks (Compat's ideal ranking).
    """

    codes: np.ndarray  # (n_judged,) query code of each judgement
    labels: np.ndarray  # (n_judged,) its non-negative label
    of_rows: Callable[[], np.ndarray] | None = None


class TieBlocks(NamedTuple):
    """Runs of equal scores within a query, in ranked positions."""

    start: np.ndarray  # (n_blocks,) first ranked position of each block
    size: np.ndarray  # (n_blocks,) rows in each block
    block_of: np.ndarray  # (n,) block index of each ranked row


class Rows(NamedTuple):
    """A subset of the ranked rows, in rank order."""

    # Shadows tuple.index, which nothing here calls.
    index: np.ndarray  # type: ignore[assignment]  # positions in the ranked arrays
    codes: np.ndarray  # query code of each
    position: np.ndarray  # 0-based rank within its query
    above: np.ndarray | None = None  # relevant rows above it (relevant_rows)
    counts: np.ndarray | None = None  # rows per query (relevant_rows)
    first: np.ndarray | None = None  # each query's first one, n_groups + 1 offsets
