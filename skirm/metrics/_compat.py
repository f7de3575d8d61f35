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

On the TREC path the ideal holds every relevant judgement, as ir_measures
builds it: by grade, then by the run's score (0 for a document the run did
not retrieve), ties in the order the qrels list them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import sum_by
from skirm._measures import _table as table
from skirm.metrics._spec import (
    MetricSpec,
    fill_doc,
    refuse_average_ties,
    score,
    takes_frames,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


def _ideal_rank(ranking, rel):
    """1-based rank of each relevant ranked row in the ideal ranking."""
    index = np.flatnonzero(rel)
    rank = np.empty(ranking.n_rows, dtype=np.float64)
    judgments = ranking.judgments
    if judgments is not None and judgments.of_rows is not None:
        rank[index] = _judged_ideal_rank(ranking, index)
        return rank, index
    labels, codes = ranking.labels, ranking.codes
    # Ideal order: by query, grade descending, then the ranking's own order.
    order = index[np.lexsort((index, -labels[index], codes[index]))]
    first = np.searchsorted(codes[order], np.arange(ranking.n_groups))
    rank[order] = np.arange(order.shape[0]) - first[codes[order]] + 1.0
    if judgments is not None:  # ranked lists: the relevant ids they miss
        rank[order] += _higher_missed(ranking, order)
    return rank, index


def _higher_missed(ranking, order):
    """Per relevant ranked row (in ``order``), the relevant ids of a higher
    grade its list misses: ahead of it in the ideal ranking (the lists'
    rows are scored above 0, the missed ids as 0)."""
    codes, labels = ranking.codes[order], ranking.labels[order]
    j_codes, j_labels = ranking.judgments.codes, ranking.judgments.labels
    keep = j_labels > 0
    j_codes, j_labels = j_codes[keep], j_labels[keep]
    grades = np.unique(np.concatenate([j_labels, labels]))
    n_grades = grades.shape[0]
    judged = np.bincount(
        j_codes * n_grades + np.searchsorted(grades, j_labels),
        minlength=ranking.n_groups * n_grades,
    )
    cell = codes * n_grades + np.searchsorted(grades, labels)
    retrieved = np.bincount(cell, minlength=ranking.n_groups * n_grades)
    missing = (judged - retrieved).reshape(ranking.n_groups, n_grades)
    higher = np.cumsum(missing[:, ::-1], axis=1)[:, ::-1] - missing
    return higher.ravel()[cell]


def _judged_ideal_rank(ranking, index):
    """The ideal rank of the relevant ranked rows ``index`` when the ideal
    ranking holds every relevant judgement (the TREC path): by grade, then
    by the ranking's score (0 for a document not ranked), then in the order
    the qrels list them."""
    judgments = ranking.judgments
    of = judgments.of_rows()[ranking.order[index]]
    relevant = np.flatnonzero(judgments.labels > 0)
    score = np.zeros(judgments.labels.shape[0])
    score[of] = ranking.scores[index]
    codes = judgments.codes[relevant]
    order = np.lexsort((relevant, -score[relevant], -judgments.labels[relevant], codes))
    sorted_codes = codes[order]
    first = np.searchsorted(sorted_codes, sorted_codes)
    place = np.empty(judgments.labels.shape[0], dtype=np.float64)
    place[relevant[order]] = np.arange(order.shape[0]) - first + 1.0
    return place[of]


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
