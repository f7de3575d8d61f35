"""Binary metrics that read where the relevant rows are ranked.

Hit rate and reciprocal rank (the first relevant row), average precision
(precision at every relevant row) and rank-biased precision (a geometric
weight per rank). Under ``ties="average"``, the first two take the
probability of each row being the first relevant one, average precision a
closed form over each tie block, RBP the expected relevance of each row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import safe_divide
from skirm._errors import InvalidInputError
from skirm._measures import _table as table
from skirm._params import as_python
from skirm.metrics._binary import per_query, relevant_sum
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


def _first_relevant(ranking, threshold):
    """Without ties: each query's first relevant position, -1 if none."""
    rows = ranking.relevant_rows(threshold)
    if rows.index.shape[0] == 0:
        return np.full(ranking.n_groups, -1, dtype=np.intp)
    # The first relevant row of a query without any is the next query's.
    top = rows.position[np.minimum(rows.first[:-1], rows.index.shape[0] - 1)]
    return np.where(rows.counts > 0, top, -1)


# --------------------------------------------------------------------------
# Kernels: ranking -> (value per query, queries without relevant rows)
# --------------------------------------------------------------------------


def _hit_rate(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    if not ranking.has_ties:
        first = per_query(_first_relevant(ranking, relevance_threshold), k)
        hit = (first >= 0) if k is None else (first >= 0) & (first < k)
        return hit.astype(np.float64), R == 0
    first = ranking.first_relevant_probability(relevance_threshold)
    return np.minimum(ranking.group_sum(first, k), 1.0), R == 0


def _reciprocal_rank(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    if not ranking.has_ties:
        first = per_query(_first_relevant(ranking, relevance_threshold), k)
        found = first >= 0 if k is None else (first >= 0) & (first < k)
        # 1 / rank where found; 0 / 1 elsewhere.
        return found / (first + (~found + 1.0)), R == 0
    first = ranking.first_relevant_probability(relevance_threshold)
    return ranking.group_sum(first / (ranking.position + 1.0), k), R == 0


def _average_precision(ranking, k, relevance_threshold, denominator):
    # Each relevant row adds (relevant rows up to it) / rank. In a tie block of
    # m rows with r relevant, H relevant above it, the row at offset t is
    # relevant with probability r / m and then has 1 + t (r - 1) / (m - 1)
    # expected relevant rows at or above it within the block.
    R = ranking.n_relevant(relevance_threshold)
    den = per_query(R, k)
    if denominator == "hits":
        den = _hits(ranking, relevance_threshold, k)
    elif denominator != "R" and k is not None:
        den = np.minimum(den, k)
    if not ranking.has_ties:
        # Only relevant rows add a term: (relevant rows up to it) / rank.
        rows = ranking.relevant_rows(relevance_threshold)
        terms = (rows.above + 1.0) / (rows.position + 1.0)
        total = relevant_sum(ranking, relevance_threshold, k, terms)
        return safe_divide(total, den), R == 0
    above = ranking.relevant_above_block(relevance_threshold)
    r = ranking.relevant_in_block(relevance_threshold)
    m = ranking.block_size
    t = ranking.block_offset
    within = t * (r - 1) / np.maximum(m - 1, 1)
    terms = (r / m) * (above + 1.0 + within) / (ranking.position + 1.0)
    total = ranking.group_sum(terms, k)
    return safe_divide(total, den), R == 0


def _hits(ranking, relevance_threshold, k):
    """The relevant rows in the top ``k`` of each query (one column per
    cutoff for an array): fixed whatever the order of tied rows unless a
    tie block holding relevant and non-relevant rows straddles the cutoff,
    which is refused (the mean AP@k over such orderings is not the mean
    AP@k divided by the mean number of hits)."""
    if ranking.has_ties and k is not None:
        position = ranking.position
        r, m = ranking.relevant_in_block(relevance_threshold), ranking.block_size
        mixed = (r > 0) & (r < m) & (ranking.block_offset + 1 < m)
        for cutoff in np.atleast_1d(k):
            straddles = mixed & (position == cutoff - 1)
            if straddles.any():
                query = ranking.group_ids[ranking.codes[np.argmax(straddles)]]
                raise InvalidInputError(
                    f"denominator='hits' with ties='average': in query "
                    f"{as_python(query)!r} rows tied across the cutoff {int(cutoff)} "
                    "are some relevant, some not, so the relevant rows in the top "
                    "k vary with the order of the ties; pass ties='first' (input "
                    "order), 'optimistic' or 'pessimistic'"
                )
    return ranking.group_sum(ranking.expected_relevance(relevance_threshold), k)


def _rank_biased_precision(ranking, k, relevance_threshold, p):
    R = ranking.n_relevant(relevance_threshold)
    if not ranking.has_ties:
        rows = ranking.relevant_rows(relevance_threshold)
        table = (1.0 - p) * p ** np.arange(ranking.max_size, dtype=np.float64)
        total = relevant_sum(ranking, relevance_threshold, k, table[rows.position])
        return total, R == 0
    weights = (1.0 - p) * p ** ranking.position.astype(np.float64)
    exp_rel = ranking.expected_relevance(relevance_threshold)
    return ranking.group_sum(exp_rel * weights, k), R == 0


# --------------------------------------------------------------------------
# Registry records
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------


@fill_doc
@takes_frames
def hit_rate_at_k_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
) -> float:
    """Hit rate at k (success@k): 1 if any relevant row is in the top k.

    Averaged over queries, it is the fraction of queries answered within the
    first ``k`` rows. With ``ties="average"`` a tie block cut by ``k`` counts
    the exact probability that a relevant row lands above the cut.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(relevance_threshold)s

    %(returns)s

    See Also
    --------
    mean_reciprocal_rank_score

    Examples
    --------
    >>> from skirm.metrics import hit_rate_at_k_score
    >>> y_true = [0, 1, 0, 0, 0, 1]
    >>> y_score = [3, 2, 1, 3, 2, 1]
    >>> groups = [0, 0, 0, 1, 1, 1]
    >>> hit_rate_at_k_score(y_true, y_score, groups=groups, k=2)
    0.5

    One relevant row among three tied rows, one slot above the cut:

    >>> hit_rate_at_k_score([0, 1, 0], [1, 1, 1], groups=[0, 0, 0], k=1)
    0.333...
    """
    return score(
        HIT_RATE,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
    )


@fill_doc
@takes_frames
def mean_reciprocal_rank_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
) -> float:
    """Mean reciprocal rank: 1 / rank of the first relevant row, averaged.

    A query whose first relevant row is below rank ``k`` (or that has none)
    scores 0. Rows after the first relevant one do not matter.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(relevance_threshold)s

    %(returns)s

    See Also
    --------
    hit_rate_at_k_score, mean_average_precision_score

    Examples
    --------
    >>> from skirm.metrics import mean_reciprocal_rank_score
    >>> y_true = [0, 1, 0, 1, 0, 0, 0, 0, 1]
    >>> y_score = [3, 2, 1, 3, 2, 1, 3, 2, 1]
    >>> groups = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    >>> round(mean_reciprocal_rank_score(y_true, y_score, groups=groups), 4)
    0.6111
    >>> round(mean_reciprocal_rank_score(y_true, y_score, groups=groups, k=2), 4)
    0.5
    """
    return score(
        MRR,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
    )


@fill_doc
@takes_frames
def mean_average_precision_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
    denominator: Literal["R", "min_k", "hits"] = "R",
) -> float:
    """Mean average precision (trec_eval ``map`` and ``map_cut``).

    Per query, the sum over ranks ``i <= k`` of ``precision@i * rel_i``,
    divided by R, the number of relevant rows of the query; averaged over
    queries. Some published explanations define "MAP@k" as the mean of
    precision@k, or divide by the relevant rows retrieved; skirm follows
    trec_eval.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(relevance_threshold)s

    denominator : {"R", "min_k", "hits"}, default="R"
        Divide by R (trec_eval), by ``min(k, R)`` (common in
        recommender-system papers, so that a perfect top k scores 1), or by
        the relevant rows in the top k (``"hits"``: torchmetrics'
        ``RetrievalMAP(top_k=k)``; 0 when there are none). With
        ``ties="average"``, ``"hits"`` refuses a query whose rows tied
        across the cutoff are some relevant and some not.

    %(returns)s

    See Also
    --------
    precision_at_k_score, mean_reciprocal_rank_score

    Examples
    --------
    >>> from skirm.metrics import mean_average_precision_score
    >>> y_true = [0, 1, 0, 1, 1, 0, 1, 0]
    >>> y_score = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> groups = [0] * 8
    >>> round(mean_average_precision_score(y_true, y_score, groups=groups), 4)
    0.5429
    >>> round(mean_average_precision_score(y_true, y_score, groups=groups, k=2), 4)
    0.125
    >>> mean_average_precision_score(y_true, y_score, groups=groups, k=2,
    ...                              denominator="min_k")
    0.25
    """
    return score(
        MAP,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
        denominator=denominator,
    )


@fill_doc
@takes_frames
def rank_biased_precision_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
    p: float = 0.8,
) -> float:
    """Rank-biased precision (Moffat & Zobel, 2008) on binary relevance.

    Per query, ``(1 - p) * sum_i rel_i * p ** (i - 1)`` over ranks ``i``
    (1-based), the expected relevance seen by a user who moves to the next row
    with probability ``p``. Truncated at ``k`` when given.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(relevance_threshold)s

    p : float in (0, 1), default=0.8
        The persistence: the probability of looking at the next row.

    %(returns)s

    Examples
    --------
    >>> from skirm.metrics import rank_biased_precision_score
    >>> rank_biased_precision_score([1, 0, 1], [3, 2, 1], groups=[0, 0, 0], p=0.5)
    0.625
    """
    return score(
        RBP,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
        p=p,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

HIT_RATE = MetricSpec(table.HIT_RATE, _hit_rate, hit_rate_at_k_score)
MRR = MetricSpec(table.MRR, _reciprocal_rank, mean_reciprocal_rank_score)
MAP = MetricSpec(table.MAP, _average_precision, mean_average_precision_score)
RBP = MetricSpec(table.RBP, _rank_biased_precision, rank_biased_precision_score)
