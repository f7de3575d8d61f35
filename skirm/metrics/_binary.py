"""Metrics on binary relevance: a row is relevant or it is not.

Each metric is a short kernel over :class:`skirm._engine.Ranking` plus its
registry record and its public function. ``hits`` (relevant rows in the top
k) and the first-relevant-row probabilities live in the ranking engine; with
``ties="average"`` they are already expectations over tied orderings, so the
kernels hold no tie logic of their own except where a metric is not linear in
them (average precision).
"""

from __future__ import annotations

import numpy as np

from skirm._engine import prefix_sums, sum_by
from skirm.metrics._base import MetricSpec, fill_doc, score

_BINARY = {"relevance_threshold": None}


def _many(k) -> bool:
    """Whether ``k`` is an array of cutoffs (one result column per cutoff)."""
    return k is not None and bool(np.ndim(k))


def _per_query(values, k):
    """A per-query array, as a column when ``k`` is an array of cutoffs."""
    return values[:, None] if _many(k) else values


def _relevant_sum(ranking, threshold, k, values):
    """Without ties: per-query sums of ``values`` (one per relevant row) over
    the relevant rows in the top ``k``; one column per cutoff for an array."""
    rows = ranking.relevant_rows(threshold)
    codes, position = rows.codes, rows.position
    if k is not None:
        inside = position < (int(np.max(k)) if _many(k) else k)
        codes, position, values = codes[inside], position[inside], values[inside]
    if _many(k):
        return prefix_sums(codes, position, values, k, ranking.n_groups)
    return sum_by(codes, values, ranking.n_groups)


def _hits(ranking, k, threshold):
    if not ranking.has_ties:
        # Count the relevant rows in the top k (sums of ones: exact).
        rows = ranking.relevant_rows(threshold)
        return _relevant_sum(ranking, threshold, k, np.ones(rows.index.shape[0]))
    return ranking.group_sum(ranking.expected_relevance(threshold), k)


def _first_relevant(ranking, threshold):
    """Without ties: each query's first relevant position, -1 if none."""
    rows = ranking.relevant_rows(threshold)
    if rows.index.shape[0] == 0:
        return np.full(ranking.n_groups, -1, dtype=np.intp)
    # The first relevant row of a query without any is the next query's.
    top = rows.position[np.minimum(rows.first[:-1], rows.index.shape[0] - 1)]
    return np.where(rows.counts > 0, top, -1)


def _depth(ranking, k):
    """The precision denominator: k, or the query size when k is None."""
    if k is None:
        return ranking.sizes.astype(np.float64)
    return np.asarray(k, dtype=np.float64) if _many(k) else float(k)


def _safe_divide(num, den):
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


# --------------------------------------------------------------------------
# Kernels: ranking -> (value per query, queries without relevant rows)
# --------------------------------------------------------------------------


def _precision(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    # An empty ranked list (from_lists) has depth 0 with k=None: precision 0.
    return _safe_divide(
        _hits(ranking, k, relevance_threshold), _depth(ranking, k)
    ), R == 0


def _recall(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    hits = _hits(ranking, k, relevance_threshold)
    return _safe_divide(hits, _per_query(R, k)), R == 0


def _capped_recall(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    den = R if k is None else np.minimum(_per_query(R, k), k)
    return _safe_divide(_hits(ranking, k, relevance_threshold), den), R == 0


def _f1(ranking, k, relevance_threshold):
    # 2PR / (P + R) with P = hits / k and R = hits / n_rel is 2 hits / (k + n_rel):
    # linear in hits, so exact in expectation under tied orderings.
    R = ranking.n_relevant(relevance_threshold)
    hits = _hits(ranking, k, relevance_threshold)
    return _safe_divide(2.0 * hits, _depth(ranking, k) + _per_query(R, k)), R == 0


def _hit_rate(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    if not ranking.has_ties:
        first = _per_query(_first_relevant(ranking, relevance_threshold), k)
        hit = (first >= 0) if k is None else (first >= 0) & (first < k)
        return hit.astype(np.float64), R == 0
    first = ranking.first_relevant_probability(relevance_threshold)
    return np.minimum(ranking.group_sum(first, k), 1.0), R == 0


def _r_precision(ranking, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    if not ranking.has_ties:
        rows = ranking.relevant_rows(relevance_threshold)
        inside = rows.position < R[rows.codes]
        hits = np.bincount(rows.codes[inside], minlength=ranking.n_groups)
        return _safe_divide(hits.astype(np.float64), R), R == 0
    inside = ranking.position < R[ranking.codes]
    hits = sum_by(
        ranking.codes[inside],
        ranking.expected_relevance(relevance_threshold)[inside],
        ranking.n_groups,
    )
    return _safe_divide(hits, R), R == 0


def _reciprocal_rank(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    if not ranking.has_ties:
        first = _per_query(_first_relevant(ranking, relevance_threshold), k)
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
    den = _per_query(R, k)
    if denominator != "R" and k is not None:
        den = np.minimum(den, k)
    if not ranking.has_ties:
        # Only relevant rows add a term: (relevant rows up to it) / rank.
        rows = ranking.relevant_rows(relevance_threshold)
        terms = (rows.above + 1.0) / (rows.position + 1.0)
        total = _relevant_sum(ranking, relevance_threshold, k, terms)
        return _safe_divide(total, den), R == 0
    above = ranking.relevant_above_block(relevance_threshold)
    r = ranking.relevant_in_block(relevance_threshold)
    m = ranking.block_size
    t = ranking.block_offset
    within = t * (r - 1) / np.maximum(m - 1, 1)
    terms = (r / m) * (above + 1.0 + within) / (ranking.position + 1.0)
    total = ranking.group_sum(terms, k)
    return _safe_divide(total, den), R == 0


def _rank_biased_precision(ranking, k, relevance_threshold, p):
    R = ranking.n_relevant(relevance_threshold)
    if not ranking.has_ties:
        rows = ranking.relevant_rows(relevance_threshold)
        table = (1.0 - p) * p ** np.arange(ranking.max_size, dtype=np.float64)
        total = _relevant_sum(ranking, relevance_threshold, k, table[rows.position])
        return total, R == 0
    weights = (1.0 - p) * p ** ranking.position.astype(np.float64)
    exp_rel = ranking.expected_relevance(relevance_threshold)
    return ranking.group_sum(exp_rel * weights, k), R == 0


# --------------------------------------------------------------------------
# Registry records
# --------------------------------------------------------------------------

PRECISION = MetricSpec(
    name="precision",
    kernel=_precision,
    kind="binary",
    takes_k=True,
    bounded=True,
    definition="relevant rows in the top k / k (k even for queries shorter than k)",
    aliases=("p",),
    params=dict(_BINARY),
    trec_name="P_k",
)
RECALL = MetricSpec(
    name="recall",
    kernel=_recall,
    kind="binary",
    takes_k=True,
    bounded=True,
    definition="relevant rows in the top k / R",
    aliases=("r",),
    params=dict(_BINARY),
    trec_name="recall_k",
)
CAPPED_RECALL = MetricSpec(
    name="r_cap",
    kernel=_capped_recall,
    kind="binary",
    takes_k=True,
    bounded=True,
    definition="relevant rows in the top k / min(k, R) (BEIR)",
    params=dict(_BINARY),
)
F1 = MetricSpec(
    name="f1",
    kernel=_f1,
    kind="binary",
    takes_k=True,
    bounded=True,
    definition="harmonic mean of precision@k and recall@k: 2 hits / (k + R)",
    params=dict(_BINARY),
)
HIT_RATE = MetricSpec(
    name="hit_rate",
    kernel=_hit_rate,
    kind="binary",
    takes_k=True,
    bounded=True,
    definition="1 if any relevant row is in the top k, else 0",
    aliases=("success",),
    params=dict(_BINARY),
    trec_name="success_k",
)
R_PRECISION = MetricSpec(
    name="r_precision",
    kernel=_r_precision,
    kind="binary",
    takes_k=False,
    bounded=True,
    definition="relevant rows in the top R / R",
    aliases=("rprec",),
    params=dict(_BINARY),
    trec_name="Rprec",
)
MRR = MetricSpec(
    name="mrr",
    kernel=_reciprocal_rank,
    kind="binary",
    takes_k=True,
    bounded=True,
    definition="1 / rank of the first relevant row (0 if none in the top k)",
    params=dict(_BINARY),
    trec_name="recip_rank",
)
MAP = MetricSpec(
    name="map",
    kernel=_average_precision,
    kind="binary",
    takes_k=True,
    bounded=True,
    definition="sum over ranks i <= k of precision@i * rel_i, divided by R",
    params=dict(_BINARY, denominator="R"),
    trec_name="map / map_cut_k",
)
RBP = MetricSpec(
    name="rbp",
    kernel=_rank_biased_precision,
    kind="binary",
    takes_k=True,
    bounded=True,
    definition="(1 - p) * sum over ranks i of rel_i * p^(i - 1) (Moffat & Zobel 2008)",
    params=dict(_BINARY, p=0.8),
)

# --------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------


@PRECISION.public
@fill_doc
def precision_at_k_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
):
    """Precision at k: the fraction of the top k rows that are relevant.

    The mean over queries of ``(relevant rows among the top k) / k``. As in
    trec_eval, the denominator is ``k`` even when a query has fewer than
    ``k`` rows, so short queries cannot reach 1. With ``k=None`` it is the
    fraction of relevant rows of the whole query.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(relevance_threshold)s

    %(returns)s

    See Also
    --------
    recall_at_k_score, r_precision_score

    Examples
    --------
    >>> from skirm.metrics import precision_at_k_score
    >>> y_true = [1, 0, 1, 0, 0, 1]
    >>> y_score = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    >>> groups = ["q1", "q1", "q1", "q2", "q2", "q2"]
    >>> precision_at_k_score(y_true, y_score, groups=groups, k=2)
    0.25

    A short query still divides by ``k``:

    >>> precision_at_k_score([1, 1], [2.0, 1.0], groups=[0, 0], k=4)
    0.5

    A tie counts each tied row at its expected relevance:

    >>> precision_at_k_score([0, 1], [1.0, 1.0], groups=[0, 0], k=1)
    0.5
    """
    return score(
        PRECISION,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        relevance_threshold=relevance_threshold,
    )


@RECALL.public
@fill_doc
def recall_at_k_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
):
    """Recall at k: the fraction of a query's relevant rows found in the top k.

    The mean over queries of ``(relevant rows among the top k) / R``, where R
    counts every relevant row of the query. A query with many relevant rows
    cannot reach 1 for small ``k``; see :func:`capped_recall_at_k_score`.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(relevance_threshold)s

    %(returns)s

    See Also
    --------
    capped_recall_at_k_score, precision_at_k_score

    Examples
    --------
    >>> from skirm.metrics import recall_at_k_score
    >>> y_true = [1, 0, 1, 1]
    >>> y_score = [4, 3, 2, 1]
    >>> recall_at_k_score(y_true, y_score, groups=[0, 0, 0, 0], k=2)
    0.333...

    A query without relevant rows scores ``no_relevant``:

    >>> recall_at_k_score([1, 0, 0, 0], [1, 2, 3, 4], groups=[0, 0, 1, 1], k=2,
    ...                   no_relevant="skip")
    1.0
    """
    return score(
        RECALL,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        relevance_threshold=relevance_threshold,
    )


@CAPPED_RECALL.public
@fill_doc
def capped_recall_at_k_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
):
    """Capped recall at k (R_cap@k, as in BEIR).

    The mean over queries of ``(relevant rows among the top k) / min(k, R)``:
    recall that a perfect ranking brings to 1 even when R exceeds ``k``.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(relevance_threshold)s

    %(returns)s

    See Also
    --------
    recall_at_k_score

    Examples
    --------
    >>> from skirm.metrics import capped_recall_at_k_score
    >>> y_true = [1, 1, 1, 0, 1]
    >>> y_score = [5, 4, 3, 2, 1]
    >>> capped_recall_at_k_score(y_true, y_score, groups=[0] * 5, k=2)
    1.0
    """
    return score(
        CAPPED_RECALL,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        relevance_threshold=relevance_threshold,
    )


@F1.public
@fill_doc
def f1_at_k_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
):
    """F1 at k: the harmonic mean of precision@k and recall@k.

    Per query, ``2 P R / (P + R)`` with ``P = hits / k`` and ``R = hits /
    n_relevant``, which equals ``2 hits / (k + n_relevant)`` (0 when nothing
    relevant is in the top k).

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(relevance_threshold)s

    %(returns)s

    See Also
    --------
    precision_at_k_score, recall_at_k_score

    Examples
    --------
    >>> from skirm.metrics import f1_at_k_score
    >>> f1_at_k_score([1, 0, 1, 0], [4, 3, 2, 1], groups=[0, 0, 0, 0], k=2)
    0.5
    """
    return score(
        F1,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        relevance_threshold=relevance_threshold,
    )


@HIT_RATE.public
@fill_doc
def hit_rate_at_k_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
):
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
        relevance_threshold=relevance_threshold,
    )


@R_PRECISION.public
@fill_doc
def r_precision_score(
    y_true,
    y_score,
    *,
    groups=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
):
    """R-precision: precision at rank R, where R is the query's relevant count.

    At that cutoff precision and recall are equal. It takes no ``k``.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(relevance_threshold)s

    %(returns)s

    See Also
    --------
    precision_at_k_score

    Examples
    --------
    >>> from skirm.metrics import r_precision_score
    >>> r_precision_score([1, 0, 1, 0], [4, 3, 2, 1], groups=[0, 0, 0, 0])
    0.5
    """
    return score(
        R_PRECISION,
        y_true,
        y_score,
        groups=groups,
        k=None,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        relevance_threshold=relevance_threshold,
    )


@MRR.public
@fill_doc
def mean_reciprocal_rank_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
):
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
        relevance_threshold=relevance_threshold,
    )


@MAP.public
@fill_doc
def mean_average_precision_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
    denominator="R",
):
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

    %(relevance_threshold)s

    denominator : {"R", "min_k"}, default="R"
        Divide by R (trec_eval) or by ``min(k, R)`` (common in
        recommender-system papers, so that a perfect top k scores 1).

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
        relevance_threshold=relevance_threshold,
        denominator=denominator,
    )


@RBP.public
@fill_doc
def rank_biased_precision_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    relevance_threshold=None,
    p=0.8,
):
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
        relevance_threshold=relevance_threshold,
        p=p,
    )
