"""Cumulative gain, DCG and NDCG: gains of the labels, discounted by rank.

Each is a sum of ``gain(label) * discount(rank)`` over the top k rows: linear
in the per-row values, so under ``ties="average"`` the block means give the
exact expected value over tied orderings (scikit-learn's ``dcg_score`` does
the same). NDCG divides by the ideal DCG of the query's own labels (or, on
the TREC path, of every judged label).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import at_cutoffs, prefix_sums, running_sums, sum_by
from skirm._errors import InvalidInputError
from skirm._measures import _table as table
from skirm.metrics._graded import gain_of, no_gain
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import Gain, NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels

# --------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------


def _cumulative_gain(ranking, k, gain):
    expected = ranking.block_mean(gain_of(ranking.labels, gain))
    return ranking.group_sum(expected, k), no_gain(ranking)


def _depth(ranking, k):
    """The deepest cutoff of ``k`` when only the top rows count, and they
    can be laid down the lines of :meth:`Ranking.top_table` (no ties, a
    cutoff within the longest query); else None."""
    if ranking.has_ties or k is None:
        return None
    depth = int(np.max(k))
    return depth if depth < ranking.max_size else None


def _top_sums(ranking, depth, gain, log_base=2.0):
    """Per query, the DCG at each of the first ``depth`` positions,
    ``(depth, n_groups)``, one query per column; None when the padding of
    the lines would be large."""
    table = ranking.top_table(depth)
    if table is None:
        return None
    # Sums down one line per query, in rank order: every cutoff. Past a
    # query's last row, the label 0 (gain 0).
    index, pad = table
    labels = ranking.labels.take(index, mode="clip")
    if pad is not None:
        np.putmask(labels, pad, 0.0)
    discount = ranking.discount_table(log_base)[:depth, None]
    n_grades = ranking.n_grades
    if n_grades is not None and gain != "linear":
        # Small integer labels: the gain of each grade, looked up.
        table = gain_of(np.arange(n_grades, dtype=np.float64), gain)
        values = table.take(labels.astype(np.intp))
        values *= discount
    else:
        # a new array (the labels taken), multiplied in place
        values = gain_of(labels, gain).astype(np.float64, copy=False)
        values *= discount
        if n_grades is not None:
            # The grades' gains are +0.0 where a label is -0.0: so are the
            # sums, from + 0.0 on the first position.
            values[0] += 0.0
    return running_sums(values)


def _dcg(ranking, k, gain, log_base=2.0):
    depth = _depth(ranking, k)
    if depth is not None:
        # Only the top k rows count: touch only them.
        sums = _top_sums(ranking, depth, gain, log_base)
        if sums is not None:
            return at_cutoffs(sums, k), no_gain(ranking)
        top = ranking.top(depth)
        table = ranking.discount_table(log_base)
        values = gain_of(ranking.labels[top.index], gain) * table[top.position]
        if np.ndim(k):
            dcg = prefix_sums(top.codes, top.position, values, k, ranking.n_groups)
        else:
            dcg = sum_by(top.codes, values, ranking.n_groups)
        return dcg, no_gain(ranking)
    if not ranking.has_ties and k is None:
        # Rows of label 0 have gain 0 (either gain): sum the relevant rows only.
        rows = ranking.relevant_rows(None)
        table = ranking.discount_table(log_base)
        values = gain_of(ranking.labels[rows.index], gain) * table[rows.position]
        dcg = sum_by(rows.codes, values, ranking.n_groups)
        return dcg, no_gain(ranking)
    expected = ranking.block_mean(gain_of(ranking.labels, gain))
    return ranking.group_sum(expected * ranking.discount(log_base), k), no_gain(ranking)


def _ndcg(ranking, k, gain):
    def gains(labels):
        return gain_of(labels, gain)

    # A query has an ideal DCG of 0 only without relevant rows, and then a
    # DCG of 0 too: 0 / 1 gives its 0.
    depth = _depth(ranking, k)
    if depth is not None:
        sums = _top_sums(ranking, depth, gain)
        ideal = None if sums is None else ranking.ideal_lines(gains, depth)
        if ideal is not None:
            # Every position divided in place, row by row of the ideal
            # lines, then the last one's past them: no copy of their rows.
            width = ideal.shape[0]
            ideal[ideal <= 0] = 1.0
            np.divide(sums[:width], ideal, out=sums[:width])
            np.divide(sums[width:], ideal[width - 1], out=sums[width:])
            np.minimum(sums, 1.0, out=sums)
            return at_cutoffs(sums, k), no_gain(ranking)
    dcg, empty = _dcg(ranking, k, gain)
    ideal = ranking.ideal_dcg(gains, k)
    ideal[ideal <= 0] = 1.0
    np.divide(dcg, ideal, out=ideal)
    return np.minimum(ideal, 1.0, out=ideal), empty


# --------------------------------------------------------------------------
# Registry records
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------


@fill_doc
@takes_frames
def ndcg_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    gain: Gain = "linear",
    ignore_ties: bool = False,
) -> float:
    """Normalized discounted cumulative gain, per query, averaged.

    Per query, DCG@k divided by the DCG@k of the ideal ordering of the same
    query's labels, so a perfect ranking scores 1 whatever the query's labels.
    The discount is ``1 / log2(rank + 1)``. With 2-D input and
    ``groups=None`` the result equals :func:`sklearn.metrics.ndcg_score` for
    the same arguments, ties and ``ignore_ties`` included.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(gain)s

    ignore_ties : bool, default=False
        scikit-learn's option: break ties in the order of
        ``np.argsort(y_score)[:, ::-1]`` (2-D input) or input order (1-D),
        overriding ``ties``.

    %(returns)s

    See Also
    --------
    dcg_score, sklearn.metrics.ndcg_score

    References
    ----------
    K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
    techniques", ACM TOIS 20(4), 2002.

    F. McSherry and M. Najork, "Computing information retrieval performance
    measures efficiently in the presence of tied scores", ECIR 2008.

    Examples
    --------
    >>> from skirm.metrics import ndcg_score
    >>> y_true = [3, 2, 3, 0, 1, 2]
    >>> y_score = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    >>> round(ndcg_score(y_true, y_score, groups=[0] * 6), 4)
    0.9608
    >>> round(ndcg_score(y_true, y_score, groups=[0] * 6, k=3,
    ...                  gain="exponential"), 4)
    0.9595

    Two queries, one without any relevant row (it scores ``no_relevant``):

    >>> groups = ["a", "a", "a", "b", "b", "b"]
    >>> round(ndcg_score([2, 1, 0, 0, 0, 0], [3, 2, 1, 3, 2, 1], groups=groups), 4)
    0.5
    >>> ndcg_score([2, 1, 0, 0, 0, 0], [3, 2, 1, 3, 2, 1], groups=groups,
    ...            no_relevant="skip")
    1.0

    Tied scores give the mean over their orderings:

    >>> round(ndcg_score([[1, 0]], [[0.5, 0.5]]), 4)
    0.8155
    """
    try:
        shape = np.shape(y_true)  # type: ignore[arg-type, unused-ignore]  # any object
    except ValueError:  # ragged rows: the shared validation says what is wrong
        shape = ()
    if groups is None and len(shape) == 2 and shape[1] == 1:
        # as scikit-learn: one document per query always scores 1
        raise InvalidInputError(
            "NDCG is only meaningful with more than 1 document per query: 2-D "
            f"`y_true` must have at least 2 columns, got shape {shape}"
        )
    return score(
        NDCG,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        gain=gain,
        ignore_ties=ignore_ties,
    )


@fill_doc
@takes_frames
def dcg_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    gain: Gain = "linear",
    log_base: float = 2,
    ignore_ties: bool = False,
) -> float:
    """Discounted cumulative gain, per query, averaged.

    Per query, the sum over ranks ``i <= k`` of ``gain(rel_i) / log_b(i + 1)``.
    Its scale depends on the number and grades of relevant rows, so queries
    are not comparable; prefer :func:`ndcg_score` for averaging. With 2-D
    input and ``groups=None`` the result equals
    :func:`sklearn.metrics.dcg_score` for the same arguments.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(gain)s

    log_base : float, default=2
        Base of the logarithm in the discount.

    ignore_ties : bool, default=False
        scikit-learn's option; see :func:`ndcg_score`.

    %(returns)s

    See Also
    --------
    ndcg_score, cumulative_gain_score, sklearn.metrics.dcg_score

    Examples
    --------
    >>> from skirm.metrics import dcg_score
    >>> round(dcg_score([3, 2, 3, 0, 1, 2], [6, 5, 4, 3, 2, 1], groups=[0] * 6), 4)
    6.8611
    >>> round(dcg_score([[3, 2, 3, 0, 1, 2]], [[6, 5, 4, 3, 2, 1]], k=2), 4)
    4.2619
    """
    return score(
        DCG,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        gain=gain,
        log_base=log_base,
        ignore_ties=ignore_ties,
    )


@fill_doc
@takes_frames
def cumulative_gain_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    gain: Gain = "linear",
) -> float:
    """Cumulative gain at k: the sum of the gains of the top k rows.

    Order within the top ``k`` does not matter; only which rows are there.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    %(gain)s

    %(returns)s

    See Also
    --------
    dcg_score

    Examples
    --------
    >>> from skirm.metrics import cumulative_gain_score
    >>> cumulative_gain_score([3, 0, 2, 1], [4, 3, 2, 1], groups=[0] * 4, k=3)
    5.0
    >>> cumulative_gain_score([3, 0, 2, 1], [4, 3, 2, 1], groups=[0] * 4, k=3,
    ...                       gain="exponential")
    10.0
    """
    return score(
        CG,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        gain=gain,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

NDCG = MetricSpec(table.NDCG, _ndcg, ndcg_score)
DCG = MetricSpec(table.DCG, _dcg, dcg_score)
CG = MetricSpec(table.CG, _cumulative_gain, cumulative_gain_score)
