"""Accuracy: the share of (relevant, non-relevant) pairs of the top k rows
that the ranking orders correctly (ir_measures' ``Accuracy``).

Per query, over the top ``k`` rows: ``1 - M / (R_k N_k)``, where ``R_k`` and
``N_k`` count the relevant and non-relevant rows and ``M`` the pairs with the
non-relevant row above the relevant one: the area under the ROC curve of the
shown rows. A query whose top ``k`` shows no non-relevant row scores 1 (no
pair is misordered; ir_measures divides by zero there); one with relevant
rows, none of them shown, scores 0 (ir_measures leaves it out: pass
``no_relevant`` and compare on the queries it reports).

Under ``ties="average"`` a pair tied on score is misordered with probability
1/2. When a tie block straddles the cutoff, which of its rows are shown is
random: the value is averaged over the number ``h`` of relevant rows shown,
hypergeometric, with ``M`` growing by ``h N_above + h (s - h) / 2`` for the
``s`` shown rows of the block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import sum_by
from skirm._measures import _table as table
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


def _auc(misordered, n_rel, n_non):
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1.0 - misordered / (n_rel * n_non)
    value = np.where(n_non == 0, 1.0, value)
    return np.where(n_rel == 0, 0.0, value)


def non_relevant_above(ranking, rel):
    """Per ranked row, the non-relevant rows of its query ranked above it;
    with ``ties="average"``, those above its tie block and half of those
    beside it in the block (each tied pair misordered with probability
    1/2)."""
    if ranking.ties == "average" and ranking.has_ties:
        non = (~rel).astype(np.float64)
        return ranking.before_block(non) + 0.5 * (ranking.block_sum(non) - non)
    return ranking.position - ranking.before(rel.astype(np.int64))


def _accuracy(ranking, k, relevance_threshold):
    if k is not None and np.ndim(k):
        columns = [_accuracy(ranking, int(c), relevance_threshold)[0] for c in k]
        return np.column_stack(columns), ranking.n_relevant(relevance_threshold) == 0
    rel = ranking.relevant(relevance_threshold)
    shown = np.ones(ranking.n_rows, dtype=bool) if k is None else ranking.position < k
    averaged = ranking.ties == "average" and ranking.has_ties
    above = non_relevant_above(ranking, rel)
    if averaged and k is not None:
        # Rows of a block that straddles the cutoff count separately.
        start = ranking.position - ranking.block_offset
        straddles = (start < k) & (start + ranking.block_size > k)
        shown &= ~straddles
    misordered = sum_by(
        ranking.codes[shown & rel], above[shown & rel], ranking.n_groups
    )
    n_rel = sum_by(ranking.codes[shown], rel[shown], ranking.n_groups)
    n_all = np.bincount(ranking.codes[shown], minlength=ranking.n_groups)
    n_non = n_all - n_rel
    value = _auc(misordered, n_rel, n_non)
    if averaged and k is not None and straddles.any():
        value = _straddled(ranking, k, rel, straddles, misordered, n_rel, n_non, value)
    return value, ranking.n_relevant(relevance_threshold) == 0


def _straddled(ranking, k, rel, straddles, misordered, n_rel, n_non, value):
    """The exact mean for the queries whose cutoff falls inside a tie block."""
    # Imported here: scipy.stats costs more to import than most evaluations,
    # and only tie blocks across the cutoff need it.
    from scipy import stats as _stats

    first = np.flatnonzero(straddles & (ranking.block_offset == 0))  # one per query
    codes = ranking.codes[first]
    m = ranking.block_size[first]
    r = ranking.block_sum(rel.astype(np.int64))[first]
    s = k - ranking.position[first]
    m_above, r_above, n_above = misordered[codes], n_rel[codes], n_non[codes]
    total = np.zeros(first.shape[0])
    for h in range(int(s.max()) + 1):  # relevant rows of the block shown
        p = _stats.hypergeom.pmf(h, m, r, s)
        if not p.any():
            continue
        shown_rel = r_above + h
        shown_non = n_above + s - h
        mis = m_above + h * n_above + h * (s - h) / 2.0
        total += np.where(p > 0, p * _auc(mis, shown_rel, shown_non), 0.0)
    value = value.copy()
    value[codes] = total
    return value


@fill_doc
@takes_frames
def accuracy_score(
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
    """Accuracy: the share of relevant/non-relevant pairs ordered correctly.

    Per query, over the top ``k`` rows, ``1 - M / (R_k N_k)`` with ``M`` the
    (relevant, non-relevant) pairs whose non-relevant row ranks higher: the
    probability that a shown relevant row ranks above a shown non-relevant
    one (ir_measures' ``Accuracy``). A query showing no non-relevant row
    scores 1; one whose relevant rows are all below ``k`` scores 0, where
    ir_measures leaves the query out.

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

    Examples
    --------
    >>> from skirm.metrics import accuracy_score
    >>> accuracy_score([0, 1, 0, 1], [4, 3, 2, 1], groups=[0, 0, 0, 0])
    0.25
    """
    return score(
        ACCURACY,
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


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

ACCURACY = MetricSpec(table.ACCURACY, _accuracy, accuracy_score)
