"""Judged@k: the share of the top k rows that carry a relevance judgement.

A row is unjudged when its label is NaN (TREC pools, LLM judges that were not
asked). Judged@k says how far a metric computed with unjudged rows read as
non-relevant can be trusted (Sakai 2007; ir_measures' ``Judged@k``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._measures import _table as table
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


def _judged(ranking, k):
    depth = ranking.cutoff(k).astype(np.float64)
    empty = ranking.sizes == 0
    if ranking.judged is None:
        return (depth > 0).astype(np.float64), empty  # every row judged
    found = ranking.group_sum(ranking.block_mean(ranking.judged), k)
    values = np.zeros(found.shape)
    np.divide(found, depth, out=values, where=depth > 0)
    return values, empty


@fill_doc
@takes_frames
def judged_at_k_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "nonrelevant",
) -> float:
    """Judged at k: the share of the top k rows whose label is not NaN.

    The mean over queries of ``(judged rows among the top k) / min(k, n)``,
    with ``n`` the rows of the query (ir_measures' ``Judged@k``). A label of
    NaN marks an unjudged row. Low values warn that metrics reading unjudged
    rows as non-relevant underrate the ranking.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        Relevance labels; NaN marks an unjudged row.

    y_score : array-like of the same shape as ``y_true``
        Scores; higher ranks first.

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        The value of a query left without any row (all its rows unjudged,
        with ``unjudged="condensed"``).

    unjudged : {"nonrelevant", "condensed"}, default="nonrelevant"
        ``"condensed"`` drops unjudged rows first, so every query scores 1
        (or ``no_relevant`` when none of its rows is judged).

    %(returns)s

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.metrics import judged_at_k_score
    >>> y_true = [1, np.nan, 0, np.nan]
    >>> y_score = [0.9, 0.8, 0.7, 0.6]
    >>> judged_at_k_score(y_true, y_score, groups=[0, 0, 0, 0], k=2)
    0.5
    """
    return score(
        JUDGED,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

JUDGED = MetricSpec(table.JUDGED, _judged, judged_at_k_score)
