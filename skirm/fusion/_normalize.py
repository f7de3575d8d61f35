"""Per-query normalisations and rank values of one retriever's scores.

Each function reads a :class:`~skirm.fusion._ranks.Column` (one retriever,
sorted by query then score) and returns one value per sorted row. Where a
query's scores leave a normalisation undefined (a single document, or all
scores equal), the rule is stated here and in the user guide:

- ``min-max``: ``(s - min) / (max - min)``; 1 when ``max == min`` (the
  retriever's documents are all its best);
- ``max``: ``s / max``; a query whose largest score is not positive is an
  error (dividing by it would reverse or blow up the order);
- ``sum``: ``(s - min) / sum(s - min)``; ``1 / n`` each when all are equal;
- ``zscore``: ``(s - mean) / std`` (population standard deviation); 0 when
  all are equal;
- ``rank``: ``1 - (rank - 1) / n``;
- ``borda``: ``1 - (rank - 1) / N`` for a returned document and
  ``0.5 - (n - 1) / (2 N)`` for one of the ``N`` candidates of the query
  (documents any retriever returned) this one did not return.

Ranks are 1-based (``position + 1``); tied scores take the mean of the
values their positions would get, the expected value over every order of
the tie.
"""

from __future__ import annotations

import numpy as np

from skirm._errors import InvalidInputError
from skirm._params import as_python

__all__ = ["borda_missing", "rank_values", "score_values"]


def score_values(column, norm, where=None) -> np.ndarray:
    """The normalised score of each sorted row of ``column``.

    ``where(query_code)`` names a query in the error of ``norm="max"``.
    """
    s = column.scores
    if norm == "none":
        return s
    if norm in ("rank", "borda"):
        raise AssertionError("rank normalisations need rank_values")  # pragma: no cover
    ends = column.starts + column.sizes - 1
    if norm == "min-max":
        # per query, then given to its rows (the same values as per row)
        low = s[ends]
        spread = s[column.starts] - low
        flat = spread == 0
        out = s - column.per_row(low)
        out /= column.per_row(np.where(flat, 1.0, spread))
        out[column.per_row(flat)] = 1.0
        return out
    if norm == "max":
        top = s[column.starts]
        bad = np.flatnonzero(top <= 0)
        if bad.shape[0]:
            place = "" if where is None else f" for {where(column.queries[bad[0]])}"
            got = as_python(top[bad[0]])
            raise InvalidInputError(
                f"norm='max' divides each query's scores by the largest, which "
                f"must be positive, got {got!r}{place}; use 'min-max', 'sum' or "
                "'zscore' for scores that are not all positive"
            )
        return s / column.per_row(top)
    n = column.per_row(column.sizes.astype(np.float64))
    if norm == "sum":
        shifted = s - column.per_row(s[ends])
        total = column.per_row(column.segment_sum(shifted))
        flat = total == 0
        out = shifted / np.where(flat, 1.0, total)
        out[flat] = 1.0 / n[flat]
        return out
    # zscore
    mean = column.per_row(column.segment_sum(s)) / n
    deviation = s - mean
    std = np.sqrt(column.per_row(column.segment_sum(deviation * deviation)) / n)
    flat = std == 0
    out = deviation / np.where(flat, 1.0, std)
    out[flat] = 0.0
    return out


def rank_values(column, kind, *, k=60.0, phi=0.8, candidates=None) -> np.ndarray:
    """A value of each sorted row's rank, averaged over tie blocks.

    ``kind`` is a rank normalisation (``"rank"``, ``"borda"``) or a rank
    method (``"rrf"``, ``"isr"``, ``"borda-points"``, ``"rbc"``);
    ``candidates`` is the number of candidates of each query code (Borda's
    ``N``).
    """
    position = column.position.astype(np.float64)
    if kind == "rank":
        return 1.0 - column.mean_position() / column.per_row(column.sizes)
    if kind == "borda":
        return 1.0 - column.mean_position() / column.per_row(candidates[column.queries])
    if kind == "borda-points":
        return column.per_row(candidates[column.queries]) - column.mean_position()
    if kind == "rrf":
        values = 1.0 / (k + position + 1.0)
    elif kind == "isr":
        values = 1.0 / (position + 1.0) ** 2
    else:  # rbc
        values = (1.0 - phi) * phi**position
    return column.tie_mean(values)


def borda_missing(n_returned, n_candidates, *, points=False) -> np.ndarray:
    """Borda's value of a candidate a retriever did not return, given how
    many it returned for the query (``n``) and the query's candidates
    (``N``): ``0.5 - (n - 1) / (2 N)`` normalised, ``(N - n + 1) / 2`` as
    points (the mean of the places left)."""
    if points:
        return (n_candidates - n_returned + 1) / 2
    return 0.5 - (n_returned - 1) / (2 * n_candidates)
