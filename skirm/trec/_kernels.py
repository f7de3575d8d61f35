"""trec_eval's own computations, one function per kernel of the measure table.

A trec_eval measure whose row names a ``kernel``
(:class:`~skirm._measures._rows.Trec`) is computed here, from the shared
ranking and the TREC facts of a :class:`~skirm.trec._measures.Context`;
the others are the array kernels of :mod:`skirm.metrics` (binary ones at
trec_eval's relevance level). Every kernel takes the context and the
output's parameter (a cutoff, coefficients, gains, or the defaults) and
returns one value per query, vectorised over the queries: no loop over them.
:data:`KERNELS` finds a kernel by the name the table gives it.
"""

from __future__ import annotations

import numpy as np

from skirm._engine import safe_divide, sum_by

__all__ = ["KERNELS"]

INFAP_EPSILON = 1e-5


# --------------------------------------------------------------------------
# Counts
# --------------------------------------------------------------------------


def queries(ctx, param):
    return np.ones(ctx.n)


def retrieved(ctx, param):
    return ctx.num_ret


def relevant(ctx, param):
    return ctx.R


def relevant_retrieved(ctx, param):
    return ctx.num_rel_ret


def nonrelevant_judged_retrieved(ctx, param):
    unjudged = ctx.count_above("unjudged")
    return ctx.num_ret - unjudged - ctx.num_rel_ret


# --------------------------------------------------------------------------
# The set measures: the whole ranking as one set
# --------------------------------------------------------------------------


def set_precision(ctx, param):
    return safe_divide(ctx.num_rel_ret, ctx.num_ret)


def set_recall(ctx, param):
    return safe_divide(ctx.num_rel_ret, ctx.R)


def set_relative_precision(ctx, param):
    return safe_divide(ctx.num_rel_ret, np.minimum(ctx.num_ret, ctx.R))


def set_map(ctx, param):
    # in trec_eval's order of operations
    return safe_divide(ctx.num_rel_ret * ctx.num_rel_ret, ctx.num_ret * ctx.R)


def set_f(ctx, param):
    """F with ``beta2 = param[0]`` (trec_eval's beta squared)."""
    beta2 = param[0]
    precision, recall = set_precision(ctx, None), set_recall(ctx, None)
    return np.where(
        ctx.num_rel_ret > 0,
        safe_divide((beta2 + 1.0) * precision * recall, beta2 * precision + recall),
        0.0,
    )


def utility(ctx, param):
    """``p1 a + p2 b + p3 c + p4 d`` of the contingency table: relevant
    retrieved, non-relevant retrieved, relevant not retrieved, and (with
    ``-N``, the collection size) neither."""
    p1, p2, p3, p4 = param
    a = ctx.num_rel_ret
    b = ctx.num_ret - a
    c = ctx.R - a
    d = ctx.num_docs + a - ctx.num_ret - ctx.R  # -N, default 0
    return p1 * a + p2 * b + p3 * c + p4 * d


# --------------------------------------------------------------------------
# Measures of the judged and the unjudged documents
# --------------------------------------------------------------------------


def bpref(ctx, param):
    return ctx.cached(_bpref, _bpref)


def _bpref(ctx):
    # Only the relevant rows contribute, each by the judged non-relevant
    # rows above it in its query: both are at most the judgements, so
    # nothing here is of the size of the run.
    r = ctx.ranking
    rel = np.flatnonzero(ctx.rel)
    nonrel = np.flatnonzero((ctx.raw >= 0) & (ctx.raw < ctx.level))
    codes = r.codes[rel]
    above = np.searchsorted(nonrel, rel)
    above -= np.searchsorted(nonrel, r.starts[codes])
    qnonrel = (ctx.judged_raw >= 0) & (ctx.judged_raw < ctx.level)
    N = sum_by(ctx.judged_codes, qnonrel, ctx.n)
    R = ctx.R[codes]
    den = np.maximum(np.minimum(N[codes], R), 1.0)
    contrib = np.where(above > 0, 1.0 - np.minimum(above, R) / den, 1.0)
    # the per-query sums of every row's contribution, 0 for the rows not
    # relevant: adding those zeros changes no sum
    total = sum_by(codes, contrib, ctx.n)
    return safe_divide(total, ctx.R)


def infap(ctx, param):
    r = ctx.ranking
    judged = ctx.raw >= 0
    nonrel = judged & ~ctx.rel
    pool_unjudged = ctx.raw == -2
    # only the relevant rows contribute: the terms are computed there (the
    # counts above them from every row); the sums add no other term
    rows = np.flatnonzero(ctx.rel)
    rel_so_far = r.before(ctx.rel)[rows] + 1  # including this row
    n = r.before(nonrel)[rows]
    u = r.before(pool_unjudged)[rows]
    j = r.position[rows].astype(np.float64)
    fj = np.maximum(j, 1.0)
    a = rel_so_far - 1.0
    term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((a + n + u) / fj) * (
        (a + INFAP_EPSILON) / (a + n + 2 * INFAP_EPSILON)
    )
    term = np.where(j == 0, 1.0, term)
    total = sum_by(r.codes[rows], term, ctx.n)
    return safe_divide(total, ctx.R)


def judged(ctx, k):
    """The share of the top ``min(k, retrieved)`` documents in the qrels."""
    return safe_divide(ctx.count_above("in_qrels", k), np.minimum(ctx.num_ret, k))


def unjudged(ctx, k):
    """The fraction of the top ``k`` ranks holding an unjudged document."""
    return ctx.count_above("unjudged", k) / k


def rbp(ctx, param, p=0.9):
    """Rank-biased precision with gains ``level / max level`` (when the
    query's highest qrels level exceeds 1; the level itself otherwise)."""
    r = ctx.ranking
    # each query's highest positive qrels level (0 without one): the first
    # of its positive gains sorted in descending order
    _, gains, n_pos, start, _, _ = ctx.ideal_cumulative()
    top = np.zeros(ctx.n)
    top[n_pos > 0] = gains[start[n_pos > 0]]
    scale = np.where(top > 1, top, 1.0)
    gain = np.maximum(ctx.raw, 0) / scale[r.codes]
    return (1.0 - p) * r.group_sum(gain * ctx.powers(p)[r.position])


def rbp_resid(ctx, param, p=0.9):
    """trec_eval's RBP residual: ``p ** num_ret`` plus the weight of the
    unjudged documents; 0 when every retrieved document is judged."""
    r = ctx.ranking
    powers = ctx.powers(p)
    weight = np.where(ctx.raw < 0, powers[r.position], 0.0)
    resid = powers[r.sizes] + (1.0 - p) * r.group_sum(weight)
    return np.where(ctx.count_above("unjudged") > 0, resid, 0.0)


def relstring(ctx, param):
    """The top ``param[0]`` relevance values of each query as characters."""
    return relevance_strings(ctx.ranking, ctx.raw, int(param[0]))


def relevance_strings(ranking, raw, length):
    """trec_eval's relstring: per query, one character per top document.

    A digit for levels 0-9, ``>`` above 9, ``-`` for a document missing from
    the qrels, ``.`` for a negative qrels level. Built as a byte matrix viewed
    as fixed-width strings (numpy drops the trailing NUL padding).
    """
    n = ranking.n_groups
    width = max(1, min(length, int(ranking.sizes.max(initial=0))))
    inside = np.flatnonzero(ranking.position < length)  # the top rows only
    raw = raw[inside]
    codes = np.select(
        [raw > 9, raw >= 0, raw == -1, raw == -2],
        [ord(">"), ord("0") + np.clip(raw, 0, 9), ord("-"), ord(".")],
        ord("<"),
    ).astype(np.uint8)
    chars = np.zeros((n, width), dtype=np.uint8)
    chars[ranking.codes[inside], ranking.position[inside]] = codes
    return chars.view(f"S{width}").reshape(n).astype(str)


# --------------------------------------------------------------------------
# Precision at recall levels and at multiples of R
# --------------------------------------------------------------------------


def iprec(ctx, x):
    """Interpolated precision at recall ``x``. A cutoff of 0 relevant
    documents takes the best precision at or below the first relevant one,
    which trec_eval computes as 0 / 0 (NaN) for an empty ranking (``-J`` can
    leave one)."""
    imax = ctx.relevant_precisions()
    nrr = ctx.num_rel_ret.astype(np.int64)
    start = np.cumsum(nrr) - nrr
    c = ctx.recall_cutoff(x)
    out = np.zeros(ctx.n)
    ok = (c >= 1) & (c <= nrr)
    out[ok] = imax[start[ok] + c[ok] - 1]
    zero = (c == 0) & (nrr > 0)
    out[zero] = imax[start[zero]]
    out[(c == 0) & (ctx.num_ret == 0)] = np.nan
    return out


def pt11_avg(ctx, levels):
    """Mean of :func:`iprec` over ``levels``, summed in trec_eval's order."""
    total = np.zeros(ctx.n)
    for x in reversed(levels):
        total += iprec(ctx, x)
    return total / len(levels)


def rprec_mult(ctx, x):
    c = np.floor(x * ctx.R + 0.9)
    # positions below c, an integer (as a float)
    hits = ctx.count_above("rel", c.astype(np.int64))
    return safe_divide(hits, c)


def yaap(ctx, param):
    """log((1 + S) / (1 + R - S)), S the sum of precisions at relevant rows."""
    r = ctx.ranking
    precision = (r.before(ctx.rel) + 1.0) / (r.position + 1.0)
    total = r.group_sum(np.where(ctx.rel, precision, 0.0))
    return np.log((1.0 + total) / (1.0 + ctx.R - total))


# --------------------------------------------------------------------------
# Gains: G, binG, ndcg with custom gains, ndcg_rel, Rndcg
# --------------------------------------------------------------------------


def bin_g(ctx, param):
    r = ctx.ranking
    nonrel_above = r.position - r.before(ctx.rel)  # 0 .. the position
    term = 1.0 / ctx.log2_table()[nonrel_above]
    return safe_divide(r.group_sum(np.where(ctx.rel, term, 0.0)), ctx.R)


def g(ctx, param):
    r = ctx.ranking
    gains_j = np.maximum(ctx.judged_raw, 0).astype(np.float64)
    gain = np.maximum(ctx.raw, 0).astype(np.float64)
    ideal = ctx.ideal_gain_at()
    cost = np.maximum(ideal, 1.0)
    sum_cost = r.before(cost) + cost
    sum_results = r.before(gain) + gain
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(gain != 0, gain / np.log2(2.0 + sum_cost - sum_results), 0)
    total_ideal = sum_by(ctx.judged_codes, gains_j, ctx.n)
    return safe_divide(r.group_sum(term), total_ideal)


def _dcg_ratio(ctx, k):
    """trec_eval's ndcg (``k`` None) and ndcg_cut at ``k`` with its default
    gains (the levels): the DCG of the ranking and of the ideal one, each
    added term by term in rank order, a term ``gain / log2(rank + 1)``, then
    divided, as trec_eval computes them (the same bits, where the array
    kernel multiplies by the discounts). Only the terms of a positive gain
    are added, as trec_eval adds them: the relevant rows and judgements."""
    codes, position, terms = ctx.cached("dcg_relevant", _relevant_dcg_terms)
    i_codes, _, _, _, i_position, i_terms = ctx.ideal_rows()
    dcg = _sum_above(codes, position, terms, k, ctx.n)
    return safe_divide(dcg, _sum_above(i_codes, i_position, i_terms, k, ctx.n))


def _relevant_dcg_terms(ctx):
    """``(query codes, positions, gain / log2(position + 2))`` of the ranked
    rows of a positive gain, in rank order."""
    r = ctx.ranking
    # The labels are whole levels: the positive ones are those of level 1
    # or more, the rows the binary measures share at the default level.
    rows = r.relevant_rows(1)
    terms = r.labels_of(rows.index) / ctx.log2_table()[rows.position]
    return rows.codes, rows.position, terms


def _sum_above(codes, position, terms, k, n):
    """Per query (of ``n``), the sum of its ``terms`` at positions below
    ``k`` (None: every one), added one after another in their order."""
    if k is not None:
        inside = position < k
        codes, terms = codes[inside], terms[inside]
    return sum_by(codes, terms, n)


def ndcg_cut(ctx, k):
    return _dcg_ratio(ctx, k)


def ndcg(ctx, pairs):
    """trec_eval's ndcg: with ``level=gain`` pairs (``ndcg.1=3,2=9``) its
    gains, else the levels (:func:`_dcg_ratio`)."""
    if not pairs:
        return _dcg_ratio(ctx, None)
    r = ctx.ranking
    top = int(max(ctx.judged_raw.max(initial=0), max(p[0] for p in pairs)))
    gains = np.arange(top + 1, dtype=np.float64)
    for level, gain in pairs:
        if level >= 0:
            gains[level] = gain
    gain = np.where(ctx.raw >= 0, gains[np.maximum(ctx.raw, 0)], 0.0)
    dcg = sum_by(r.codes, gain / ctx.log2_table()[r.position], ctx.n)
    gj = np.where(ctx.judged_raw >= 0, gains[np.maximum(ctx.judged_raw, 0)], 0.0)
    gj = np.maximum(gj, 0.0)
    order = np.lexsort((-gj, ctx.judged_codes))
    codes, gs = ctx.judged_codes[order], gj[order]
    n_j = np.bincount(codes, minlength=ctx.n)
    pos = np.arange(codes.shape[0]) - (np.cumsum(n_j) - n_j)[codes]
    ideal = sum_by(codes, gs / np.log2(pos + 2.0), ctx.n)
    return safe_divide(dcg, ideal)


def ndcg_rel(ctx, param):
    r = ctx.ranking
    _, _, n_pos, _, _, idcg = ctx.ideal_cumulative()
    gain, cum = ctx.dcg_cumulative()
    rows = np.flatnonzero(gain > 0)
    q = r.codes[rows]
    ratio = safe_divide(cum[rows], idcg(q, r.position[rows] + 1))
    total = sum_by(q, ratio, ctx.n)
    n_pos_ret = np.bincount(q, minlength=ctx.n)
    dcg_all = r.group_sum(ctx.dcg_terms()[1])
    idcg_all = idcg(np.arange(ctx.n), n_pos)
    # trec_eval: sum += (num_rel - num_rel_ret) * dcg / ideal, left to right
    total += safe_divide((n_pos - n_pos_ret) * dcg_all, idcg_all)
    return np.where(total > 0, safe_divide(total, n_pos), 0.0)


def rndcg(ctx, param):
    r = ctx.ranking
    codes, gains, n_pos, _, position, idcg = ctx.ideal_cumulative()
    _, cum = ctx.dcg_cumulative()
    num_ret = r.sizes

    def dcg_at(q, c):
        c = np.minimum(c, num_ret[q])
        out = np.zeros(np.shape(q))
        ok = c > 0
        out[ok] = cum[r.starts[q[ok]] + c[ok] - 1]
        return out

    # Change points of the ideal gain: p = position where the gain drops
    # (including the drop to 0 after the last positive gain).
    last = position == n_pos[codes] - 1
    nxt = np.append(gains[1:], 0.0)
    change = last | (nxt != gains)
    q = codes[change]
    p = position[change] + 1
    total = sum_by(q, dcg_at(q, p) / idcg(q, p), ctx.n)
    count = np.bincount(q, minlength=ctx.n).astype(np.float64)
    extra = num_ret > n_pos + 1
    qs = np.flatnonzero(extra)
    total[qs] += safe_divide(dcg_at(qs, num_ret[qs]), idcg(qs, n_pos[qs]))
    count[qs] += 1
    return np.where(ctx.R > 0, safe_divide(total, count), 0.0)


#: Every kernel by the name the measure table gives it.
KERNELS = {
    kernel.__name__: kernel
    for kernel in (
        queries, retrieved, relevant, relevant_retrieved,
        nonrelevant_judged_retrieved, set_precision, set_recall,
        set_relative_precision, set_map, set_f, utility, bpref, infap, judged,
        unjudged, rbp, rbp_resid, relstring, iprec, pt11_avg, rprec_mult, yaap,
        bin_g, g, ndcg, ndcg_cut, ndcg_rel, rndcg,
    )
}  # fmt: skip
