"""Expected reciprocal rank: the cascade model of a user who stops when satisfied.

Each row satisfies the user with probability ``R = (2**g - 1) / 2**g_max``
from its grade ``g``; ERR sums ``R / rank`` times the probability that the
user got that far. Under ``ties="average"`` the stop probabilities are taken
in closed form over each tie block. The top rows are read from padded lines
(one query per line) or from the relevant rows only when labels are small
integers, with the same products and sums as the row-by-row path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import (
    Ranking,
    at_cutoffs,
    prefix_lines,
    prefix_sums,
    segment_cumsum,
    sum_by,
)
from skirm._errors import InvalidParameterError
from skirm._measures import _table as table
from skirm.metrics._graded import no_gain
from skirm.metrics._spec import MetricSpec, fill_doc, score, takes_frames

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._typing import NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels

# --------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------


def _expected_reciprocal_rank(ranking, k, max_grade):
    labels = ranking.labels
    top = float(labels.max()) if ranking.n_rows else 0.0
    if max_grade is None:
        max_grade = top
    elif max_grade < top:
        raise InvalidParameterError(
            f"`max_grade` must be at least the largest label ({top:g}), got "
            f"{max_grade:g}"
        )
    many = k is not None and bool(np.ndim(k))
    depth = int(np.max(k)) if many else k
    if not ranking.has_ties and k is not None and depth < ranking.max_size:
        # Only the top k rows count, and the user's path to them: touch only them.
        err = _err_relevant(ranking, k, depth, max_grade)
        if err is not None:
            return err, no_gain(ranking)
        lines = ranking.top_lines(depth)
        if lines is not None:
            return _err_lines(ranking, lines, k, max_grade), no_gain(ranking)
        top = ranking.top(depth)
        satisfy = np.exp2(labels[top.index] - max_grade) - np.exp2(-max_grade)
        stop = satisfy * _passed(
            1.0 - satisfy, lambda v: _exclusive(v, top, ranking.n_groups, depth)
        )
        values = stop / (top.position + 1.0)
        if many:
            err = prefix_sums(top.codes, top.position, values, k, ranking.n_groups)
        else:
            err = sum_by(top.codes, values, ranking.n_groups)
        return err, no_gain(ranking)
    empty = no_gain(ranking)
    if depth is not None:
        ranking = _top_blocks(ranking, depth)
        labels = ranking.labels
    # Probability that a row satisfies the user: (2^g - 1) / 2^g_max < 1.
    satisfy = np.exp2(labels - max_grade) - np.exp2(-max_grade)
    # The stop probabilities above a cutoff do not depend on it: compute them
    # to the deepest one.
    stop = _stop_probability(ranking, satisfy, depth)
    return ranking.group_sum(stop / (ranking.position + 1.0), k), empty


def _top_blocks(ranking, depth):
    """The ranking of the rows in tie blocks that start above ``depth`` in
    their query, when that leaves out many rows; else ``ranking`` itself.

    ERR at a cutoff up to ``depth`` reads only those rows: the rows above
    each one, and its own tie block, whole. They are the first rows of each
    query, so every sum over a query's earlier rows adds the same values in
    the same order as on all the rows.
    """
    blocks = ranking.tie_blocks
    if blocks is None:
        inside = ranking.position < depth
    else:
        inside = (ranking.position[blocks.start] < depth)[blocks.block_of]
    codes = ranking.codes[inside]
    if 4 * codes.shape[0] > 3 * ranking.n_rows:
        return ranking
    return Ranking(
        ranking.order[inside],
        codes,
        ranking.labels[inside],
        ranking.scores[inside],
        ranking.group_ids,
        ranking.ties,
        ranking.group_weights,
    )


def _err_relevant(ranking, ks, depth, max_grade):
    """ERR at the cutoffs ``ks`` from the relevant rows in the top ``depth``
    only, when the labels are small integers; None otherwise.

    A row of label 0 neither satisfies the user nor stops them, so it adds
    exactly 0 to every sum of the row path: leaving it out changes no
    number, and the logarithms and exponentials are taken for the relevant
    rows only. The functions of a grade are looked up in a table of their
    values.
    """
    if ranking.n_grades is None:
        return None
    grade = np.arange(ranking.n_grades, dtype=np.float64)
    satisfy = np.exp2(grade - max_grade) - np.exp2(-max_grade)
    w = 1.0 - satisfy
    if np.any(w <= 0.0):  # a grade that always satisfies (not with real grades)
        return None
    log_w = np.log(w)
    rows = ranking.relevant_rows(None)
    inside = rows.position < depth
    codes, position, above = (
        rows.codes[inside],
        rows.position[inside],
        rows.above[inside],
    )
    width = int(above.max()) + 1 if above.shape[0] else 1
    if ranking.n_groups * (width + 1) > 2 * ranking.n_rows + 4096:
        return None
    level = ranking.labels[rows.index[inside]].astype(np.intp)
    # Per relevant row, the sum of log(1 - satisfy) over the relevant rows
    # above it: along one line per query, as the row path adds them.
    lines = prefix_lines(codes, above, log_w[level], ranking.n_groups, width + 1)
    stop = satisfy[level] * np.exp(lines[codes, above])
    stop /= position + 1.0
    if np.ndim(ks):
        return prefix_sums(codes, position, stop, ks, ranking.n_groups)
    return sum_by(codes, stop, ranking.n_groups)


def _err_lines(ranking, lines, ks, max_grade):
    """ERR at each cutoff of ``ks`` from the top rows laid out one query per
    line (:meth:`Ranking.top_lines`): the same products and sums as the row
    path, along the lines."""
    index, keep = lines

    def before(values):  # per cell, the sum over the earlier cells of its line
        out = np.empty_like(values)
        out[:, 0] = 0
        np.cumsum(values[:, :-1], axis=1, out=out[:, 1:])
        return out

    satisfy = np.exp2(ranking.labels[index] - max_grade) - np.exp2(-max_grade)
    if keep is not None:  # cells past a query's last row: never satisfied
        satisfy = np.where(keep, satisfy, 0.0)
    stop = satisfy * _passed(1.0 - satisfy, before)
    stop /= np.arange(1.0, satisfy.shape[1] + 1.0)
    np.cumsum(stop, axis=1, out=stop)
    return at_cutoffs(stop, ks, axis=1)


def _exclusive(values, rows, n_groups, k):
    """Per row of ``rows`` (the top k of each query), the sum of ``values``
    over the earlier rows of its query.

    Sums restart at each query (a cumulative sum along the lines of a
    ``(n_groups, k)`` matrix, or of :func:`segment_cumsum`'s matrices when
    most queries are far shorter than k), so they carry no rounding from
    other queries.
    """
    n = values.shape[0]
    if n_groups * k <= 2 * n + 1024:
        lines = np.zeros((n_groups, k + 1), dtype=np.result_type(values, np.int64))
        lines[rows.codes, rows.position + 1] = values
        np.cumsum(lines, axis=1, out=lines)
        return lines[rows.codes, rows.position]
    starts = np.append(np.flatnonzero(rows.position == 0), n)
    return segment_cumsum(values, starts, exclusive=True)


def _passed(w, before):
    """``prod_{j < i} w_j`` over the earlier rows of each query, through
    ``before`` (sum over earlier rows); exactly 0 after any ``w_j <= 0``."""
    zero = w <= 0.0
    if not zero.any():  # the usual case: no row always satisfies
        return np.exp(before(np.log(w)))
    log_w = np.log(np.where(zero, 1.0, w))
    return np.where(before(zero.astype(np.int64)) > 0, 0.0, np.exp(before(log_w)))


def _stop_probability(ranking, satisfy, k):
    """Probability that the cascade user stops at each ranked row.

    In the given order it is ``satisfy_i * prod_{j < i} (1 - satisfy_j)``.
    With ``ties="average"`` a tie block whose rows differ in ``satisfy`` is
    replaced by its expectation over orderings: the user passes the first
    ``t`` rows of a block of ``m`` with probability ``e_t(w) / C(m, t)``, the
    normalised elementary symmetric polynomial of ``w = 1 - satisfy`` over the
    block, computed by a recurrence vectorised across blocks.
    """
    w = 1.0 - satisfy
    zero = w <= 0.0
    if zero.any():  # rows that always satisfy: nothing passes them
        log_w = np.log(np.where(zero, 1.0, w))
        zero = zero.astype(np.int64)
        passed = np.where(ranking.before(zero) > 0, 0.0, np.exp(ranking.before(log_w)))
    else:  # the usual case
        zero = None
        log_w = np.log(w)
        passed = np.exp(ranking.before(log_w))
    stop = satisfy * passed
    if not ranking.has_ties:
        return stop
    start, size = ranking.tie_blocks.start, ranking.tie_blocks.size
    varied = (size > 1) & (
        np.minimum.reduceat(satisfy, start) < np.maximum.reduceat(satisfy, start)
    )
    pos0 = ranking.position[start]
    depth = ranking.cutoff(k)[ranking.codes[start]] - pos0
    need = np.minimum(size, np.maximum(depth, 0))
    blocks = np.flatnonzero(varied & (need > 0))
    if blocks.shape[0] == 0:
        return stop
    # Largest blocks first, so the blocks still filling are a prefix.
    blocks = blocks[np.argsort(-size[blocks], kind="stable")]
    b_start, b_size, b_need = start[blocks], size[blocks], need[blocks]
    above = np.exp(ranking.before_block(log_w)[b_start])
    if zero is not None:
        above[ranking.before_block(zero)[b_start] > 0] = 0.0
    n_cols = int(b_need.max()) + 2
    pass_t = np.zeros((blocks.shape[0], n_cols))
    pass_t[:, 0] = 1.0
    for j in range(int(b_size[0])):
        n_active = int(np.count_nonzero(b_size > j))
        top = min(j + 1, n_cols - 1)
        t = np.arange(1, top + 1)
        w_j = w[b_start[:n_active] + j][:, None]
        prev = pass_t[:n_active, :top].copy()
        pass_t[:n_active, 1 : top + 1] *= (j + 1 - t) / (j + 1)
        pass_t[:n_active, 1 : top + 1] += (t / (j + 1)) * w_j * prev
    rows = np.repeat(np.arange(blocks.shape[0]), b_need)
    offset = np.arange(rows.shape[0]) - np.repeat(np.cumsum(b_need) - b_need, b_need)
    stop[b_start[rows] + offset] = above[rows] * (
        pass_t[rows, offset] - pass_t[rows, offset + 1]
    )
    return stop


# --------------------------------------------------------------------------
# Registry record
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# Public function
# --------------------------------------------------------------------------


@fill_doc
@takes_frames
def expected_reciprocal_rank_score(
    y_true: Labels,
    y_score: ArrayLike | None,
    *,
    groups: ArrayLike | None = None,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    unjudged: Unjudged = "raise",
    max_grade: float | None = None,
) -> float:
    """Expected reciprocal rank (Chapelle et al., 2009).

    A cascade user scans down the ranking and stops at a row of grade ``g``
    with probability ``R = (2^g - 1) / 2^g_max``; ERR is the expected
    ``1 / rank`` at which the user stops (0 if never within ``k``).

    With ``ties="average"`` the exact expectation over tied orderings costs
    ``O(m * min(m, k))`` per tie block of ``m`` rows with different grades;
    other blocks cost nothing extra. Its stop probabilities are differences
    of products of ``1 - R``, so within such a block they carry an absolute
    error of a few units of the 16th decimal: an ``R`` below about
    ``1e-16`` (a grade more than 53 below ``max_grade``) counts as 0, and a
    small one loses relative precision.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

    %(unjudged)s

    max_grade : float, default=None
        ``g_max``, the grade that satisfies the user most. ``None`` means the
        largest label in ``y_true`` (all queries), so the value depends on the
        data passed; set it (e.g. 4 for 0-4 labels) to compare runs.

    %(returns)s

    References
    ----------
    O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected reciprocal
    rank for graded relevance", CIKM 2009.

    Examples
    --------
    >>> from skirm.metrics import expected_reciprocal_rank_score
    >>> y_true = [2, 0, 1]
    >>> y_score = [3, 2, 1]
    >>> round(expected_reciprocal_rank_score(y_true, y_score, groups=[0] * 3), 4)
    0.7708
    >>> round(expected_reciprocal_rank_score(y_true, y_score, groups=[0] * 3,
    ...                                      max_grade=4), 4)
    0.2044
    """
    return score(
        ERR,
        y_true,
        y_score,
        groups=groups,
        k=k,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        unjudged=unjudged,
        max_grade=max_grade,
    )


# --------------------------------------------------------------------------
# Registry records: each measure bound to its kernel and public function
# --------------------------------------------------------------------------

ERR = MetricSpec(table.ERR, _expected_reciprocal_rank, expected_reciprocal_rank_score)
