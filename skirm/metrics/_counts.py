"""Binary metrics that count the relevant rows in the top k.

Precision, recall, capped recall and F1 at k, and R-precision (the top R):
each is linear in ``hits``, the number of relevant rows in the top k, so
under ``ties="average"`` the expected hits give the expected metric.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import safe_divide, sum_by
from skirm._measures import _table as table
from skirm.metrics._binary import many, per_query, relevant_sum
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


def _hits(ranking, k, threshold):
    if not ranking.has_ties:
        # Count the relevant rows in the top k (sums of ones: exact).
        rows = ranking.relevant_rows(threshold)
        return relevant_sum(ranking, threshold, k, np.ones(rows.index.shape[0]))
    return ranking.group_sum(ranking.expected_relevance(threshold), k)


def _depth(ranking, k):
    """The precision denominator: k, or the query size when k is None."""
    if k is None:
        return ranking.sizes.astype(np.float64)
    return np.asarray(k, dtype=np.float64) if many(k) else float(k)


# --------------------------------------------------------------------------
# Kernels: ranking -> (value per query, queries without relevant rows)
# --------------------------------------------------------------------------


def _precision(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    # An empty ranked list (from_lists) has depth 0 with k=None: precision 0.
    return safe_divide(
        _hits(ranking, k, relevance_threshold), _depth(ranking, k)
    ), R == 0


def _recall(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    hits = _hits(ranking, k, relevance_threshold)
    return safe_divide(hits, per_query(R, k)), R == 0


def _capped_recall(ranking, k, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    den = R if k is None else np.minimum(per_query(R, k), k)
    return safe_divide(_hits(ranking, k, relevance_threshold), den), R == 0


def _f1(ranking, k, relevance_threshold):
    # 2PR / (P + R) with P = hits / k and R = hits / n_rel is 2 hits / (k + n_rel):
    # linear in hits, so exact in expectation under tied orderings.
    R = ranking.n_relevant(relevance_threshold)
    hits = _hits(ranking, k, relevance_threshold)
    return safe_divide(2.0 * hits, _depth(ranking, k) + per_query(R, k)), R == 0


def _r_precision(ranking, relevance_threshold):
    R = ranking.n_relevant(relevance_threshold)
    if not ranking.has_ties:
        rows = ranking.relevant_rows(relevance_threshold)
        inside = rows.position < R[rows.codes]
        hits = np.bincount(rows.codes[inside], minlength=ranking.n_groups)
        return safe_divide(hits.astype(np.float64), R), R == 0
    inside = ranking.position < R[ranking.codes]
    hits = sum_by(
        ranking.codes[inside],
        ranking.expected_relevance(relevance_threshold)[inside],
        ranking.n_groups,
    )
    return safe_divide(hits, R), R == 0


# --------------------------------------------------------------------------
# Registry records
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------


@fill_doc
@takes_frames
def precision_at_k_score(
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

    %(unjudged)s

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
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
    )


@fill_doc
@takes_frames
def recall_at_k_score(
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

    %(unjudged)s

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
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
    )


@fill_doc
@takes_frames
def capped_recall_at_k_score(
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

    %(unjudged)s

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
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
    )


@fill_doc
@takes_frames
def f1_at_k_score(
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

    %(unjudged)s

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
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
    )


@fill_doc
@takes_frames
def r_precision_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    relevance_threshold: float | None = None,
) -> float:
    """R-precision: precision at rank R, where R is the query's relevant count.

    At that cutoff precision and recall are equal. It takes no ``k``.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

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
        unjudged=unjudged,
        relevance_threshold=relevance_threshold,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

PRECISION = MetricSpec(table.PRECISION, _precision, precision_at_k_score)
RECALL = MetricSpec(table.RECALL, _recall, recall_at_k_score)
CAPPED_RECALL = MetricSpec(
    table.CAPPED_RECALL, _capped_recall, capped_recall_at_k_score
)
F1 = MetricSpec(table.F1, _f1, f1_at_k_score)
R_PRECISION = MetricSpec(table.R_PRECISION, _r_precision, r_precision_score)
