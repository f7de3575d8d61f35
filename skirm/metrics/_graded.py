"""Metrics on graded relevance: cumulative gain, DCG, NDCG and ERR."""

from __future__ import annotations

import numpy as np

from skirm._engine import prefix_lines, prefix_sums, sum_by
from skirm.metrics._base import MetricSpec, fill_doc, score


def _gain(labels, gain):
    return labels if gain == "linear" else np.exp2(labels) - 1.0


def _no_gain(ranking):
    """Queries whose labels are all zero: their ideal score is 0."""
    return ranking.n_relevant(None) == 0


# --------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------


def _cumulative_gain(ranking, k, gain):
    expected = ranking.block_mean(_gain(ranking.labels, gain))
    return ranking.group_sum(expected, k), _no_gain(ranking)


def _dcg(ranking, k, gain, log_base=2.0):
    many = k is not None and bool(np.ndim(k))
    depth = int(np.max(k)) if many else k
    if not ranking.has_ties and k is not None and depth < ranking.max_size:
        # Only the top k rows count: touch only them.
        lines = ranking.top_lines(depth)
        if lines is not None:
            # Sums along one line per query, in rank order: every cutoff.
            index, keep = lines
            n_grades = ranking.n_grades
            if n_grades is not None:
                # Small integer labels: the gain of each grade, looked up;
                # the cells past a query's last row take grade 0 (gain 0).
                grade = ranking.labels[index].astype(np.intp)
                if keep is not None:
                    grade[~keep] = 0
                values = _gain(np.arange(n_grades, dtype=np.float64), gain)[grade]
            else:
                values = _gain(ranking.labels[index], gain)
                if keep is not None:  # cells past a query's last row add 0
                    values = np.where(keep, values, 0.0)
            values *= ranking.discount_table(log_base)[:depth]
            values.cumsum(axis=1, out=values)
            return _columns(values, k), _no_gain(ranking)
        top = ranking.top(depth)
        table = ranking.discount_table(log_base)
        values = _gain(ranking.labels[top.index], gain) * table[top.position]
        if many:
            dcg = prefix_sums(top.codes, top.position, values, k, ranking.n_groups)
        else:
            dcg = sum_by(top.codes, values, ranking.n_groups)
        return dcg, _no_gain(ranking)
    if not ranking.has_ties and k is None:
        # Rows of label 0 have gain 0 (either gain): sum the relevant rows only.
        rows = ranking.relevant_rows(None)
        table = ranking.discount_table(log_base)
        values = _gain(ranking.labels[rows.index], gain) * table[rows.position]
        dcg = sum_by(rows.codes, values, ranking.n_groups)
        return dcg, _no_gain(ranking)
    expected = ranking.block_mean(_gain(ranking.labels, gain))
    return ranking.group_sum(expected * ranking.discount(log_base), k), _no_gain(
        ranking
    )


def _ndcg(ranking, k, gain):
    dcg, empty = _dcg(ranking, k, gain)
    ideal = ranking.ideal_dcg(lambda labels: _gain(labels, gain), k)
    # A query has an ideal DCG of 0 only without relevant rows, and then a
    # DCG of 0 too: 0 / 1 gives its 0.
    ideal[ideal <= 0] = 1.0
    np.divide(dcg, ideal, out=ideal)
    return np.minimum(ideal, 1.0, out=ideal), empty


def _expected_reciprocal_rank(ranking, k, max_grade):
    labels = ranking.labels
    top = float(labels.max())
    if max_grade is None:
        max_grade = top
    elif max_grade < top:
        raise ValueError(
            f"`max_grade` must be at least the largest label ({top:g}), got "
            f"{max_grade:g}"
        )
    many = k is not None and bool(np.ndim(k))
    depth = int(np.max(k)) if many else k
    if not ranking.has_ties and k is not None and depth < ranking.max_size:
        # Only the top k rows count, and the user's path to them: touch only them.
        err = _err_relevant(ranking, k, depth, max_grade)
        if err is not None:
            return err, _no_gain(ranking)
        lines = ranking.top_lines(depth)
        if lines is not None:
            return _err_lines(ranking, lines, k, max_grade), _no_gain(ranking)
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
        return err, _no_gain(ranking)
    # Probability that a row satisfies the user: (2^g - 1) / 2^g_max < 1.
    satisfy = np.exp2(labels - max_grade) - np.exp2(-max_grade)
    # The stop probabilities above a cutoff do not depend on it: compute them
    # to the deepest one.
    stop = _stop_probability(ranking, satisfy, depth)
    return ranking.group_sum(stop / (ranking.position + 1.0), k), _no_gain(ranking)


def _columns(lines, ks):
    """The columns ``k - 1`` of prefix sums ``lines`` for the cutoffs ``ks``
    (a copy; ``lines`` itself when they are all of its columns, in order)."""
    ks = np.asarray(ks)
    if (
        ks.ndim
        and ks.shape[0] == lines.shape[1]
        and np.all(ks == np.arange(1, ks.shape[0] + 1))
    ):
        return lines
    return lines.take(ks - 1, axis=1)


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
    return _columns(stop, ks)


def _exclusive(values, rows, n_groups, k):
    """Per row of ``rows`` (the top k of each query), the sum of ``values``
    over the earlier rows of its query.

    Sums restart at each query (a cumulative sum along the lines of a
    ``(n_groups, k)`` matrix), so they carry no rounding from other queries.
    """
    n = values.shape[0]
    if n_groups * k <= 2 * n + 1024:
        lines = np.zeros((n_groups, k + 1), dtype=np.result_type(values, np.int64))
        lines[rows.codes, rows.position + 1] = values
        np.cumsum(lines, axis=1, out=lines)
        return lines[rows.codes, rows.position]
    csum = np.zeros(n + 1, dtype=np.result_type(values, np.int64))
    np.cumsum(values, out=csum[1:])
    return csum[:-1] - csum[np.arange(n) - rows.position]


def _passed(w, before):
    """``prod_{j < i} w_j`` over the earlier rows of each query, through
    ``before`` (sum over earlier rows); exactly 0 after any ``w_j <= 0``."""
    zero = w <= 0.0
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
    log_w = np.log(np.where(zero, 1.0, w))
    zero = zero.astype(np.int64)
    passed = np.where(ranking.before(zero) > 0, 0.0, np.exp(ranking.before(log_w)))
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
    above = np.where(
        ranking.before_block(zero)[b_start] > 0,
        0.0,
        np.exp(ranking.before_block(log_w)[b_start]),
    )
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
# Registry records
# --------------------------------------------------------------------------

NDCG = MetricSpec(
    name="ndcg",
    kernel=_ndcg,
    kind="graded",
    takes_k=True,
    bounded=True,
    definition="DCG@k / ideal DCG@k (the query's labels sorted descending, cut at k)",
    params={"gain": "linear", "ignore_ties": False},
    trec_name="ndcg / ndcg_cut_k",
)
DCG = MetricSpec(
    name="dcg",
    kernel=_dcg,
    kind="graded",
    takes_k=True,
    bounded=False,
    definition="sum over ranks i <= k of gain(rel_i) / log_b(i + 1)",
    params={"gain": "linear", "log_base": 2.0, "ignore_ties": False},
)
CG = MetricSpec(
    name="cg",
    kernel=_cumulative_gain,
    kind="graded",
    takes_k=True,
    bounded=False,
    definition="sum over ranks i <= k of gain(rel_i)",
    params={"gain": "linear"},
)
ERR = MetricSpec(
    name="err",
    kernel=_expected_reciprocal_rank,
    kind="graded",
    takes_k=True,
    bounded=True,
    definition="sum over ranks i <= k of R_i / i * prod_{j<i} (1 - R_j), "
    "R = (2^g - 1) / 2^g_max (Chapelle et al. 2009)",
    params={"max_grade": None},
)

# --------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------


@NDCG.public
@fill_doc
def ndcg_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    gain="linear",
    ignore_ties=False,
):
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
        shape = np.shape(y_true)
    except ValueError:  # ragged rows: the shared validation says what is wrong
        shape = ()
    if groups is None and len(shape) == 2 and shape[1] == 1:
        # as scikit-learn: one document per query always scores 1
        raise ValueError(
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
        gain=gain,
        ignore_ties=ignore_ties,
    )


@DCG.public
@fill_doc
def dcg_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    gain="linear",
    log_base=2,
    ignore_ties=False,
):
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
        gain=gain,
        log_base=log_base,
        ignore_ties=ignore_ties,
    )


@CG.public
@fill_doc
def cumulative_gain_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    gain="linear",
):
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
        gain=gain,
    )


@ERR.public
@fill_doc
def expected_reciprocal_rank_score(
    y_true,
    y_score,
    *,
    groups=None,
    k=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    max_grade=None,
):
    """Expected reciprocal rank (Chapelle et al., 2009).

    A cascade user scans down the ranking and stops at a row of grade ``g``
    with probability ``R = (2^g - 1) / 2^g_max``; ERR is the expected
    ``1 / rank`` at which the user stops (0 if never within ``k``).

    With ``ties="average"`` the exact expectation over tied orderings costs
    ``O(m * min(m, k))`` per tie block of ``m`` rows with different grades;
    other blocks cost nothing extra.

    Parameters
    ----------
    %(arrays)s

    %(groups)s

    %(k)s

    %(sample_weight)s

    %(ties)s

    %(no_relevant)s

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
        max_grade=max_grade,
    )
