"""``-R prefs`` / ``-R qrels_prefs``: trec_eval's preference measures.

Every judgment group (JG) of a query states preferences "document a before
document b". A run fulfils a preference when it ranks a above b, or
retrieves a and not b. The measures count preferences by where their two
documents are: both retrieved (``_ret``), one retrieved (implied, ``_imp``),
or none.

Documents are identified as trec_eval does: the judged documents the run
retrieved are numbered 0, 1, ... in rank order (score descending, ties by
docno *ascending* here, unlike the other measures), the other judged
documents follow in docno order. All preference pairs of all queries are
held in flat arrays; a JG with several sub-groups (JSGs) is closed
transitively by repeated joins, a few passes for all queries at once.
"""

from __future__ import annotations

import numpy as np

from skirm._engine import ranges, rank_order
from skirm._errors import STOPPED, InvalidInputError, NoCommonQueryError
from skirm._measures._table import NUM_Q
from skirm._validation import distinct
from skirm.io._join import (
    QrelsIndex,
    block_duplicate_error,
    block_repeat,
    judged_rows,
)
from skirm.io._prefs import SEP
from skirm.io._records import Qrels
from skirm.trec._ranked import by_docno

__all__ = ["PrefsCounts", "PrefsEvaluation"]


def _divide(num, den):
    """C's double division: x/0 is inf or NaN, as trec_eval computes it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(num, dtype=np.float64) / np.asarray(den, dtype=np.float64)


def _segments(codes, n):
    """Start of each segment of sorted ``codes`` (``n + 1`` offsets)."""
    return np.searchsorted(codes, np.arange(n + 1))


class PrefsCounts:
    """The preference counts of every judgment group of the given queries.

    Parameters
    ----------
    prefs : Prefs
    run : Run
        The run's rows.
    query_ids : ndarray of str
        The queries to evaluate (sorted); those missing from the run are
        evaluated against an empty ranking (trec_eval ``-c``).
    max_docs : int or None
        trec_eval ``-M``.
    """

    def __init__(self, prefs, run, query_ids, max_docs):
        self.query_ids = query_ids
        self.n = query_ids.shape[0]
        pos = np.searchsorted(query_ids, prefs.query_ids)
        pos = np.minimum(pos, max(self.n - 1, 0))
        rows = np.flatnonzero(query_ids[pos] == prefs.query_ids) if self.n else pos
        self._pairs_cache = None
        self._docids(prefs, run, pos[rows], rows, max_docs)
        self._groups(prefs, rows)
        self._pairs()
        self._group_counts()

    # -- documents ----------------------------------------------------------

    def _docids(self, prefs, run, q, rows, max_docs):
        """Each preference row's document number (see the module docstring),
        from the run joined to the preferences' documents and ranked (ties
        by docno ascending) by the one join and ranking of a run."""
        n = self.n
        judgments = Qrels(prefs.query_ids, prefs.doc_ids, np.zeros(len(prefs), int))
        index = QrelsIndex(judgments)
        eval_ids, keep, codes, judged = judged_rows(index, run)
        place = np.searchsorted(self.query_ids, eval_ids)  # eval_ids: a subset
        if keep.shape[0]:
            ordered = rank_order(
                run.scores[keep],
                codes,
                eval_ids.shape[0],
                "first",
                tiebreak=by_docno(run._d, keep, descending=False),
            )
            order, ranked_codes = ordered.order, ordered.codes
            position = np.arange(order.shape[0]) - ordered.starts[ranked_codes]
        else:
            order = ranked_codes = position = np.zeros(0, dtype=np.intp)
        inside = slice(None) if max_docs is None else position < max_docs
        ranked = order[inside]
        pair = block_repeat(run, keep[ranked])
        if pair is not None:
            raise block_duplicate_error(run, pair, "the run")
        r_judged = judged[ranked]
        found = r_judged >= 0
        rcode = place[ranked_codes[inside][found]]
        self.num_judged_ret = np.bincount(rcode, minlength=n)
        rstart = _segments(rcode, n)
        ret_id = np.arange(rcode.shape[0]) - rstart[rcode]
        # judged documents: retrieved ones keep their rank, the others follow
        # in docno order
        groups, g_of_row = np.unique(index.first_rows()[rows], return_inverse=True)
        g_of_row = g_of_row.reshape(-1)
        gcode = np.empty(groups.shape[0], dtype=np.int64)
        gcode[g_of_row] = q
        g_order = np.lexsort((index.docs.order_key(groups), gcode))
        jid = np.full(groups.shape[0], -1, dtype=np.int64)
        jid[np.searchsorted(groups, r_judged[found])] = ret_id
        unret = g_order[jid[g_order] < 0]
        ucode = gcode[unret]
        ustart = _segments(ucode, n)
        jid[unret] = (
            np.arange(ucode.shape[0]) - ustart[ucode] + self.num_judged_ret[ucode]
        )
        self.num_judged = np.bincount(gcode, minlength=n)
        self.row_query = q
        self.row_doc = jid[g_of_row]

    # -- judgment groups ----------------------------------------------------

    def _groups(self, prefs, rows):
        topics = prefs.topics()[rows]
        g_ids, g = np.unique(topics, return_inverse=True)
        g = g.reshape(-1)
        units = np.char.add(np.char.add(topics, SEP), prefs.subgroups[rows])
        s_ids, s = np.unique(units, return_inverse=True)
        s = s.reshape(-1)
        self.n_groups = g_ids.shape[0]
        self.group_query = np.zeros(self.n_groups, dtype=np.int64)
        self.group_query[g] = self.row_query
        s_group = np.zeros(s_ids.shape[0], dtype=np.int64)
        s_group[s] = g
        self.pa = np.bincount(s_group, minlength=self.n_groups) > 1
        self.row_group, self.row_sub = g, s
        self.row_level = prefs.levels[rows]
        self.row_docno = prefs.doc_ids[rows]
        self.num_jgs = np.bincount(self.group_query, minlength=self.n)

    def _pairs(self):
        """Preference pairs (group, a, b): a preferred to b."""
        g, doc, level = self.row_group, self.row_doc, self.row_level
        pa_row = self.pa[g]
        unit = np.where(pa_row, self.n_groups + self.row_sub, g)
        order = np.lexsort((doc, -level, unit))
        u, lv = unit[order], level[order]
        n = u.shape[0]
        new_block = np.ones(n, dtype=bool)
        new_block[1:] = (u[1:] != u[:-1]) | (lv[1:] != lv[:-1])
        block_end = np.append(np.flatnonzero(new_block)[1:], n)
        block_end = block_end[np.cumsum(new_block) - 1]
        new_unit = np.ones(n, dtype=bool)
        new_unit[1:] = u[1:] != u[:-1]
        unit_end = np.append(np.flatnonzero(new_unit)[1:], n)
        unit_end = unit_end[np.cumsum(new_unit) - 1]
        count = unit_end - block_end
        i = np.repeat(np.arange(n), count)
        j = np.repeat(block_end, count) + (
            np.arange(i.shape[0]) - np.repeat(np.cumsum(count) - count, count)
        )
        pg, pa, pb = g[order][i], doc[order][i], doc[order][j]
        # the sorted rows also give each EC group's lowest level block
        self._ec_rows = (order, block_end, unit_end)
        multi = self.pa[pg]
        if multi.any():
            self._check_levels()
            closed = _close(pg[multi], pa[multi], pb[multi], self)
            pg = np.concatenate([pg[~multi], closed[0]])
            pa = np.concatenate([pa[~multi], closed[1]])
            pb = np.concatenate([pb[~multi], closed[2]])
        self.pair_group, self.pair_a, self.pair_b = pg, pa, pb

    def _check_levels(self):
        """In a multi-JSG group a document cannot go from level 0 to a level
        above 0 or back, from one sub-group to the next (trec_eval's check)."""
        rows = np.flatnonzero(self.pa[self.row_group])
        g, d = self.row_group[rows], self.row_doc[rows]
        order = np.lexsort((self.row_sub[rows], d, g))
        r = rows[order]
        lv = self.row_level[r]
        same = (g[order][1:] == g[order][:-1]) & (d[order][1:] == d[order][:-1])
        prev, nxt = lv[:-1], lv[1:]
        bad = same & (((prev > 0.0) & (nxt == 0.0)) | ((prev == 0.0) & (nxt > 0.0)))
        if bad.any():
            r = r[1:][np.argmax(bad)]
            raise InvalidInputError(
                f"document {str(self.row_docno[r])!r} has both level 0 and a "
                "level above 0 in one judgment group of query "
                f"{str(self.query_ids[self.row_query[r]])!r}",
                exit_status=STOPPED,  # trec_eval: "Can't calculate measure"
            )

    def _final_levels(self):
        """Per (group, document) of multi-JSG groups: the level of its last
        sub-group (trec_eval keeps the last one it reads)."""
        rows = np.flatnonzero(self.pa[self.row_group])
        order = np.lexsort(
            (self.row_sub[rows], self.row_doc[rows], self.row_group[rows])
        )
        r = rows[order]
        g, d = self.row_group[r], self.row_doc[r]
        last = np.ones(r.shape[0], dtype=bool)
        last[:-1] = (g[1:] != g[:-1]) | (d[1:] != d[:-1])
        return g[last], d[last], self.row_level[r][last]

    # -- counts per judgment group ---------------------------------------

    def _group_counts(self):
        ng = self.n_groups
        njr = self.num_judged_ret[self.group_query]
        pg, a, b = self.pair_group, self.pair_a, self.pair_b
        a_ret, b_ret = a < njr[pg], b < njr[pg]

        def count(mask):
            return np.bincount(pg[mask], minlength=ng)

        self.ful_ret = count(a_ret & b_ret & (a < b))
        self.poss_ret = count(a_ret & b_ret)
        self.ful_imp = count(a_ret & ~b_ret)
        self.poss_imp = count(a_ret ^ b_ret)
        self.notoccur = count(~a_ret & ~b_ret)
        # relevant (level > 0) and non-relevant documents of each group
        g, d, lv = self.row_group, self.row_doc, self.row_level
        ec = ~self.pa[g]
        fg, fd, flv = self._final_levels()
        grp = np.concatenate([g[ec], fg])
        ret = np.concatenate([d[ec], fd]) < njr[grp]
        rel = np.concatenate([lv[ec] > 0.0, flv > 0.0])
        nonrel = np.concatenate([lv[ec] <= 0.0, flv == 0.0])
        self.num_rel = np.bincount(grp[rel], minlength=ng)
        self.num_rel_ret = np.bincount(grp[rel & ret], minlength=ng)
        self.num_nonrel = np.bincount(grp[nonrel], minlength=ng)
        self.num_nonrel_ret = np.bincount(grp[nonrel & ret], minlength=ng)

    # -- measures ------------------------------------------------------------

    def _per_query(self, per_group):
        return np.bincount(self.group_query, weights=per_group, minlength=self.n)

    def _avgjg(self, ful, poss):
        ratio = np.where(poss > 0, _divide(ful, np.maximum(poss, 1)), 0.0)
        return self._average(ratio)

    def _average(self, ratio):
        total = self._per_query(ratio)
        with np.errstate(invalid="ignore"):
            positive = total > 0.0  # NaN (a 0/0 group) gives 0, as in C
        return np.where(positive, _divide(total, np.maximum(self.num_jgs, 1)), 0.0)

    def _pair_counts(self):
        """Per unordered pair of a query: how many groups prefer the higher
        ranked document, how many the lower, and where the two are."""
        if self._pairs_cache is None:
            self._pairs_cache = self._count_pairs()
        return self._pairs_cache

    def _count_pairs(self):
        q = self.group_query[self.pair_group]
        lo = np.minimum(self.pair_a, self.pair_b)
        hi = np.maximum(self.pair_a, self.pair_b)
        m = int(self.num_judged.max(initial=0)) + 1
        key = (q * m + lo) * m + hi
        keys, inverse = np.unique(key, return_inverse=True)
        inverse = inverse.reshape(-1)
        up = np.bincount(inverse, weights=self.pair_a == lo, minlength=keys.shape[0])
        total = np.bincount(inverse, minlength=keys.shape[0])
        kq = keys // (m * m)
        klo, khi = (keys // m) % m, keys % m
        njr = self.num_judged_ret[kq]
        return kq, up / total, khi < njr, (klo < njr) & (khi >= njr)

    def _pair_ratio(self, which):
        """Mean over document pairs of the fraction of groups preferring the
        higher ranked one; ``which``: pairs both retrieved ("ret"), at least
        one ("imp"), or all, the unretrieved ones counting 0 ("all")."""
        kq, frac, both, one = self._pair_counts()
        summed = np.flatnonzero(both if which == "ret" else both | one)
        # summed in trec_eval's order, each query's pairs of two retrieved
        # documents first, then those of one: the same bits of the sum
        summed = summed[np.argsort(one[summed], kind="stable")]
        total = np.bincount(kq[summed], weights=frac[summed], minlength=self.n)
        counted = kq if which == "all" else kq[summed]
        n_pairs = np.bincount(counted, minlength=self.n)
        return np.where(n_pairs > 0, _divide(total, np.maximum(n_pairs, 1)), 0.0)

    def value(self, kernel):
        """Per-query values of the preference kernel named ``kernel`` (the
        measure table's)."""
        return getattr(self, f"_{kernel}")()

    # -- the kernels: fulfilled (ful), possible (poss), retrieved (ret),
    #    implied (imp) preferences, counted or as ratios

    def _ful(self):
        return self.ful_ret + self.ful_imp

    def _poss(self):
        return self.poss_ret + self.poss_imp + self.notoccur

    def _ratio(self, num, den):
        num, den = self._per_query(num), self._per_query(den)
        return np.where(den > 0, _divide(num, np.maximum(den, 1)), 0.0)

    def _possible(self):
        return self._per_query(self._poss())

    def _fulfilled(self):
        return self._per_query(self._ful())

    def _fulfilled_retrieved(self):
        return self._per_query(self.ful_ret)

    def _simple(self):
        return self._ratio(self._ful(), self._poss())

    def _simple_retrieved(self):
        return self._ratio(self.ful_ret, self.poss_ret)

    def _simple_implied(self):
        return self._ratio(self._ful(), self.poss_ret + self.poss_imp)

    def _by_group(self):
        return self._avgjg(self._ful(), self._poss())

    def _by_group_retrieved(self):
        return self._avgjg(self.ful_ret, self.poss_ret)

    def _by_group_implied(self):
        return self._avgjg(self._ful(), self.poss_ret + self.poss_imp)

    def _pair(self):
        return self._pair_ratio("all")

    def _pair_retrieved(self):
        return self._pair_ratio("ret")

    def _pair_implied(self):
        return self._pair_ratio("imp")

    def _by_group_rnonrel(self):
        return self._average(self._rnonrel(retrieved_only=False))

    def _by_group_rnonrel_retrieved(self):
        return self._average(self._rnonrel(retrieved_only=True))

    # -- prefs_avgjg_Rnonrel(_ret) ------------------------------------------

    def _rnonrel(self, retrieved_only):
        """Per group: fulfilled / possible with the non-relevant documents
        counted as if there were R of them (see trec_eval's m_prefs_avgjg_
        Rnonrel*.c, whose recount rules are followed exactly)."""
        if retrieved_only:
            R, N = self.num_rel_ret, self.num_nonrel_ret
            ful = self.ful_ret + self.num_rel_ret * (R - N)
            poss = self.poss_ret + self.num_rel * (R - N)
        else:
            R, N = self.num_rel, self.num_nonrel
            ful = self.ful_ret + self.ful_imp + self.num_rel_ret * (R - N)
            poss = (
                self.poss_ret + self.poss_imp + self.notoccur + self.num_rel * (R - N)
            )
        ful = ful.astype(np.float64)
        poss = poss.astype(np.float64)
        recount = R < N
        if recount.any():
            ec_ful, ec_poss = self._recount_ec(R, retrieved_only)
            pa_ful, pa_poss = self._recount_pa(retrieved_only)
            ful = np.where(recount, np.where(self.pa, pa_ful, ec_ful), ful)
            poss = np.where(recount, np.where(self.pa, pa_poss, ec_poss), poss)
        return _divide(ful, poss)

    def _recount_ec(self, R, retrieved_only):
        """Single-JSG groups: pairs between the levels but the lowest, plus
        every document against the first R documents of the lowest level."""
        ng = self.n_groups
        order, block_end, unit_end = self._ec_rows
        g = self.row_group[order]
        doc = self.row_doc[order]
        njr = self.num_judged_ret[self.group_query][g]
        ec = ~self.pa[g]
        # the rows of each group's lowest level: its last block
        is_low = (block_end == unit_end) & ec
        low = np.flatnonzero(is_low)
        first_low = np.full(ng, np.iinfo(np.int64).max)
        np.minimum.at(first_low, g[low], low)
        pg, a, b = self.pair_group, self.pair_a, self.pair_b
        # pairs between levels, the lowest level excluded
        m = int(self.num_judged.max(initial=0)) + 1
        pair_ec = ~self.pa[pg]
        b_low = np.isin(pg * m + b, g[low] * m + doc[low])
        p1 = pair_ec & ~b_low
        pnjr = self.num_judged_ret[self.group_query][pg]
        if retrieved_only:
            p1 &= (a < pnjr) & (b < pnjr)
            p1_ful = p1 & (a < b)
        else:
            p1_ful = p1 & (a < b) & (a < pnjr)
        ful = np.bincount(pg[p1_ful], minlength=ng).astype(np.float64)
        poss = np.bincount(pg[p1], minlength=ng).astype(np.float64)
        # the new lowest class: the first R documents of the lowest level
        in_new = low - first_low[g[low]] < R[g[low]]
        new_g, new_doc = g[low][in_new], doc[low][in_new]
        if retrieved_only:
            keep = new_doc < self.num_judged_ret[self.group_query][new_g]
            new_g, new_doc = new_g[keep], new_doc[keep]
        new_key = np.sort(new_g * m + new_doc)
        new_len = np.bincount(new_g, minlength=ng)
        seg_end = np.searchsorted(new_key, (np.arange(ng) + 1) * m)
        x_rows = ec if not retrieved_only else ec & (doc < njr)
        xg, xd = g[x_rows], doc[x_rows]
        greater = seg_end[xg] - np.searchsorted(new_key, xg * m + xd, side="right")
        if not retrieved_only:
            greater = np.where(xd < njr[x_rows], greater, 0)
        ful += np.bincount(xg, weights=greater, minlength=ng)
        poss += np.bincount(xg, weights=new_len[xg], minlength=ng)
        return ful, poss

    def _recount_pa(self, retrieved_only):
        """Multi-JSG groups: drop the non-relevant documents after the first
        R (in document order), then count the remaining pairs."""
        ng = self.n_groups
        fg, fd, flv = self._final_levels()
        nonrel = flv == 0.0
        g, d = fg[nonrel], fd[nonrel]
        order = np.lexsort((d, g))
        g, d = g[order], d[order]
        start = _segments(g, ng)
        k = np.arange(g.shape[0]) - start[g]
        njr = self.num_judged_ret[self.group_query]
        if retrieved_only:
            # the (num_rel + 1)-th non-relevant retrieved document, if any
            ret = d < njr[g]
            k = np.cumsum(ret) - 1 - (np.cumsum(ret) - ret)[start[g]]
            k = np.where(ret, k, np.iinfo(np.int64).max)
        dropped = k >= self.num_rel[g]
        if retrieved_only:
            # everything non-relevant from the first dropped retrieved one on
            first = np.full(ng, np.iinfo(np.int64).max)
            np.minimum.at(first, g[dropped], d[dropped])
            first = np.minimum(first, njr)
            dropped = d >= first[g]
        m = int(self.num_judged.max(initial=0)) + 1
        gone = np.sort(g[dropped] * m + d[dropped])
        pg, a, b = self.pair_group, self.pair_a, self.pair_b
        keep = self.pa[pg] & ~np.isin(pg * m + a, gone) & ~np.isin(pg * m + b, gone)
        pnjr = njr[pg]
        if retrieved_only:
            keep &= (a < pnjr) & (b < pnjr)
        ful_mask = keep & (a < b) & (a < pnjr)
        ful = np.bincount(pg[ful_mask], minlength=ng).astype(np.float64)
        poss = np.bincount(pg[keep], minlength=ng).astype(np.float64)
        return ful, poss


def _close(g, a, b, counts):
    """Transitive closure of the pairs of each group; checks consistency.

    Semi-naive: each round composes only the pairs found in the last one
    with all pairs (a path through an older pair alone was found before)."""
    m = int(counts.num_judged.max(initial=0)) + 1
    key = new = distinct((g * m + a) * m + b)
    while new.shape[0]:
        paths = _compose(new, key, m)
        if new is not key:  # (in the first round, one composition)
            paths = np.concatenate([paths, _compose(key, new, m)])
        found = distinct(paths)
        at = np.minimum(np.searchsorted(key, found), key.shape[0] - 1)
        new = found[key[at] != found]  # not yet among the pairs
        key = np.sort(np.concatenate([key, new]))
    g_, a_, b_ = key // (m * m), (key // m) % m, key % m
    reverse = (g_ * m + b_) * m + a_
    conflict = np.isin(reverse, key) & (a_ != b_) | (a_ == b_)
    if conflict.any():
        k = int(np.argmax(conflict))
        raise InvalidInputError(
            "inconsistent preferences in one judgment group of query "
            f"{str(counts.query_ids[counts.group_query[g_[k]]])!r}: a document is "
            "both preferred and not preferred to another (directly or through "
            "other documents)",
            exit_status=STOPPED,  # trec_eval stops too (it aborts)
        )
    return g_, a_, b_


def _compose(first, then, m):
    """The pairs ``(g, a, c)`` of the keys ``first`` holding ``(g, a, b)`` and
    ``then`` (sorted) holding ``(g, b, c)``: the paths of two steps."""
    g, a, b = first // (m * m), (first // m) % m, first % m
    src = then // m  # (g, b) of each pair of then: sorted
    lo = np.searchsorted(src, g * m + b, side="left")
    n = np.searchsorted(src, g * m + b, side="right") - lo
    i = np.repeat(np.arange(first.shape[0]), n)
    j = ranges(lo, n)
    return (g[i] * m + a[i]) * m + then[j] % m


class PrefsEvaluation:
    """The preference measures of a run, for :func:`evaluate_run`.

    ``query_ids`` are the evaluated queries: those of the preferences in the
    run, or with ``all_queries`` (trec_eval 10.0 ``-c``) every query of the
    preferences, the ones missing from the run scored on an empty ranking.
    """

    def __init__(self, prefs, run, all_queries, options):
        p_ids = np.unique(prefs.query_ids)
        run_ids = run._query_codes()[1]
        in_run = np.isin(p_ids, run_ids)
        if not in_run.any():
            raise NoCommonQueryError(
                "no query of the run appears in the preferences: nothing to "
                f"evaluate (run queries e.g. {run_ids[:3].tolist()}, "
                f"preference queries e.g. {p_ids[:3].tolist()})"
            )
        self.query_ids = p_ids if all_queries else p_ids[in_run]
        self.counts = PrefsCounts(prefs, run, self.query_ids, options.max_docs)
        self.level, self.num_docs = options.level, options.num_docs
        self._values = {}

    def value(self, output):
        """Per-query values of an output (``num_q`` or a preference
        measure)."""
        if output.measure is NUM_Q:
            return np.ones(self.query_ids.shape[0])
        kernel = output.spelling.kernel
        if kernel not in self._values:
            self._values[kernel] = self.counts.value(kernel)
        return self._values[kernel]
