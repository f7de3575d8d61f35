"""Compatibility (Clarke, Vtyurina & Smucker 2021): how closely a ranking
agrees with an ideal ranking of the relevant documents, by rank-biased
overlap (ir_measures' ``Compat``).

The ideal ranking holds the relevant documents (label above 0) by grade,
and within a grade in the order the ranking itself gives them, the ideal
closest to it. With ``D = max(n, R)`` (rows shown, relevant documents), the
overlap at depth ``i`` is the number of documents in both top-``i`` lists,
and ::

    RBO = sum_{i <= D} p^(i-1) overlap(i) / i  /  sum_{i <= D} p^(i-1)

Normalised (the default), RBO is divided by the ideal ranking's own RBO
(its overlap with itself), so the ideal order scores 1. A row enters the
overlap at depth ``max(rank in the ranking, rank in the ideal)``: the sums
over depths become sums over the relevant rows of a prefix table, one pass.

On the TREC path the ideal also holds the relevant documents the run did not
retrieve (ir_measures sorts them as if scored 0: after the retrieved ones of
their grade with a positive score, before those scored 0 or less). A
retrieved document scored exactly 0 ties with them; ir_measures then keeps
the order of the qrels file, skirm puts the retrieved one after them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import sum_by
from skirm._measures import _table as table
from skirm.metrics._base import (
    MetricSpec,
    fill_doc,
    refuse_average_ties,
    score,
    takes_frames,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._typing import Labels


def _ideal_rank(ranking, rel):
    """1-based rank of each relevant ranked row in the ideal ranking."""
    labels, codes = ranking.labels, ranking.codes
    index = np.flatnonzero(rel)
    # Ideal order: by query, grade descending, then the ranking's own order.
    order = index[np.lexsort((index, -labels[index], codes[index]))]
    first = np.searchsorted(codes[order], np.arange(ranking.n_groups))
    rank = np.empty(ranking.n_rows, dtype=np.float64)
    rank[order] = np.arange(order.shape[0]) - first[codes[order]] + 1.0
    if ranking.judgments is not None:
        rank[order] += _unretrieved_ahead(ranking, order)
    return rank, index


def _unretrieved_ahead(ranking, order):
    """Per relevant ranked row (in ``order``), the relevant documents not
    retrieved that the ideal ranking puts ahead of it."""
    codes, labels = ranking.codes[order], ranking.labels[order]
    j_codes, j_labels = ranking.judgments
    keep = j_labels > 0
    j_codes, j_labels = j_codes[keep], j_labels[keep]
    # Judged relevant documents per (query, grade), minus the retrieved ones.
    grades = np.unique(np.concatenate([j_labels, labels]))
    n_grades = grades.shape[0]
    judged = np.bincount(
        j_codes * n_grades + np.searchsorted(grades, j_labels),
        minlength=ranking.n_groups * n_grades,
    )
    cell = codes * n_grades + np.searchsorted(grades, labels)
    retrieved = np.bincount(cell, minlength=ranking.n_groups * n_grades)
    missing = (judged - retrieved).reshape(ranking.n_groups, n_grades)
    # Missing documents of a higher grade are all ahead; those of the same
    # grade are ahead of rows scored 0 or less.
    higher = np.cumsum(missing[:, ::-1], axis=1)[:, ::-1] - missing
    ahead = higher.ravel()[cell]
    return ahead + np.where(ranking.scores[order] <= 0, missing.ravel()[cell], 0)


def _compat(ranking, p, normalize):
    refuse_average_ties(
        ranking,
        table.COMPATIBILITY.name,
        "the ideal ranking follows the ranking's own order within a grade",
    )
    rel = ranking.labels > 0
    n_ideal = ranking.n_relevant()
    depth = np.maximum(ranking.sizes, n_ideal).astype(np.intp)
    top = int(depth.max()) if ranking.n_groups else 0
    # weight[i] = p^(i-1) by repeated products, as the depths are walked.
    weight = np.zeros(top + 1)
    weight[1:] = np.cumprod(np.concatenate([[1.0], np.full(max(top - 1, 0), p)]))
    steps = np.arange(top + 1, dtype=np.float64)
    steps[0] = 1.0
    # T[n] = sum_{i <= n} p^(i-1) / i and Z[n] = sum_{i <= n} p^(i-1).
    T = np.cumsum(weight / steps)
    Z = np.cumsum(weight)
    ideal, index = _ideal_rank(ranking, rel)
    codes = ranking.codes[index]
    enters = np.maximum(ranking.position[index] + 1.0, ideal[index]).astype(np.intp)
    d = depth[codes]
    inside = enters <= d
    overlap = sum_by(
        codes[inside], T[d[inside]] - T[enters[inside] - 1], ranking.n_groups
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(depth > 0, overlap / Z[depth], 0.0)
        if normalize:
            n = np.minimum(n_ideal, depth).astype(np.intp)
            best = (Z[n] + n * (T[depth] - T[n])) / Z[depth]
            # Clipped: the two sums are taken in different orders, so the
            # ideal ranking itself could land an ulp above 1.
            value = np.where(best > 0, np.minimum(value / best, 1.0), value)
    return value, n_ideal == 0


@fill_doc
@takes_frames
def compatibility_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    p: float = 0.95,
    normalize: bool = True,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
) -> float:
    """Compatibility with the ideal ranking (Clarke, Vtyurina & Smucker 2021).

    The rank-biased overlap (persistence ``p``) of the ranking with the
    ideal ranking of the query's relevant rows (by grade, then in the
    ranking's own order), over the ideal ranking's overlap with itself; as
    ir_measures' ``Compat``. See :ref:`agreement`.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    p : float in [0, 1], default=0.95
        The persistence: depth ``i`` weighs ``p^(i-1)``.

    normalize : bool, default=True
        Divide by the ideal ranking's own overlap, so that it scores 1.

    %(sample_weight)s

    ties : {"average", "first", "optimistic", "pessimistic"}, \
default="average"
        How rows with equal scores within a query are ordered; ``"first"``
        keeps input order (ir_measures orders them by document id). The
        ideal ranking follows the ranking's order within a grade, so the
        mean over tied orderings has no closed form: ``"average"`` raises
        ValueError on tied scores.

    %(no_relevant)s

    %(unjudged)s

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import compatibility_score
    >>> round(compatibility_score([2, 0, 1], [3, 2, 1], groups=[0, 0, 0]), 4)
    0.8138
    """
    return score(
        COMPAT,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        p=p,
        normalize=normalize,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

COMPAT = MetricSpec(table.COMPATIBILITY, _compat, compatibility_score)
