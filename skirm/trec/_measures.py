"""Measure: trec_eval's measures on a ranked context, and their summaries.

Measures the array API already has (P, recall, map, map_cut, Rprec,
recip_rank, success, ndcg, ndcg_cut, relative_P) are computed by the
registered kernels of :mod:`skirm.metrics` on the shared ranking. This module
holds the kernels of the trec_eval-only measures, all vectorised over
:class:`skirm._engine.Ranking` (no loop over queries); their names and
parameters are in :mod:`skirm._trec_names`.
"""

from __future__ import annotations

import math

import numpy as np

from skirm._engine import segment_cumsum, sum_by
from skirm._trec_names import MEASURES
from skirm.metrics._registry import get_metric
from skirm.trec._groups import group_values

#: trec_eval's measures at cutoffs that are a registry metric at that cutoff:
#: ``{base: (metric, binary)}``, binary metrics taken at the relevance level.
CUTOFF_FAMILIES = {
    "P": ("precision", True),
    "recall": ("recall", True),
    "map_cut": ("map", True),
    "success": ("hit_rate", True),
    "relative_P": ("r_cap", True),
    "ndcg_cut": ("ndcg", False),
}

GM_FLOOR = 1e-5  # trec_eval's floor for the geometric means
INFAP_EPSILON = 1e-5


# --------------------------------------------------------------------------
# Per-query computations
# --------------------------------------------------------------------------


def _divide(num, den):
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


class Context:
    """The shared ranking plus the TREC facts the array kernels do not hold.

    ``raw`` is trec_eval's relevance value of each ranked row: the qrels level
    if judged with a level >= 0, -1 if the docno is not in the qrels, -2 if its
    qrels level is negative.
    """

    num_docs = 0  # trec_eval -N: the collection size, for utility

    def __init__(self, ranking, raw, level, judged_codes, judged_raw, compat="10.0"):
        self.compat = compat
        self.ranking = ranking
        self.raw = raw
        self.level = level
        self.judged_codes = judged_codes
        self.judged_raw = judged_raw
        self.n = ranking.n_groups
        self.rel = ranking.relevant(level)
        self.R = ranking.n_relevant(level)
        self.num_ret = ranking.sizes.astype(np.float64)
        self.num_rel_ret = ranking.group_sum(self.rel)
        self._cache = {}
        self.cutoffs = {}  # {base: the cutoffs asked} of CUTOFF_FAMILIES

    def count_above(self, kind, cut=None):
        """Per query, the ranked rows of ``kind`` (``"rel"``, ``"unjudged"``:
        not in the qrels or of a negative level, ``"judged"``: in the qrels)
        at positions below ``cut`` (one cutoff, or one per query; None: every
        row), as floats. One cumulative count per kind serves every cutoff:
        the measures at many cutoffs do not each pass over the rows."""
        key = ("above", kind)
        cum = self._cache.get(key)
        if cum is None:
            if kind == "rel":
                mask = self.rel
            elif kind == "unjudged":
                mask = self.raw < 0
            else:
                mask = self.raw != -1
            cum = np.zeros(mask.shape[0] + 1, dtype=np.int64)
            np.cumsum(mask, out=cum[1:])
            self._cache[key] = cum
        r = self.ranking
        first = r.starts[:-1]
        last = r.starts[1:] if cut is None else first + np.minimum(r.sizes, cut)
        return (cum[last] - cum[first]).astype(np.float64)

    def at_cutoff(self, base, k):
        """Per-query values of a measure at cutoff ``k`` (``P.5``), computed
        in one pass with every cutoff of ``base`` in :attr:`cutoffs` (those
        :func:`measure` was asked for): the values of one cutoff at a time,
        column by column, without a pass over the rows per cutoff."""
        key = ("cutoff", base, k)
        if key not in self._cache:
            name, binary = CUTOFF_FAMILIES[base]
            ks = sorted({k, *self.cutoffs.get(base, ())})
            params = {"relevance_threshold": self.level} if binary else {}
            metric = get_metric(name, **params)
            values, empty = metric.spec.values(
                self.ranking, np.array(ks), metric.params
            )
            values = values.reshape(self.n, len(ks)).T.copy()
            values[:, empty] = 0.0  # no relevant row: 0, as trec_eval
            for cut, line in zip(ks, values, strict=True):
                self._cache["cutoff", base, cut] = line
        return self._cache[key]

    def registry(self, name, **params):
        metric = get_metric(name, **params)
        return metric.per_query(self.ranking, 0.0)[1]

    def binary(self, name):
        return self.registry(name, relevance_threshold=self.level)

    # -- trec_eval-only measures ------------------------------------------

    def map(self):
        if "map" not in self._cache:
            self._cache["map"] = self.binary("map")
        return self._cache["map"]

    def bpref(self):
        if "bpref" not in self._cache:
            # Only the relevant rows contribute, each by the judged
            # non-relevant rows above it in its query: both are at most the
            # judgements, so nothing here is of the size of the run.
            r = self.ranking
            rel = np.flatnonzero(self.rel)
            nonrel = np.flatnonzero((self.raw >= 0) & (self.raw < self.level))
            codes = r.codes[rel]
            above = np.searchsorted(nonrel, rel)
            above -= np.searchsorted(nonrel, r.starts[codes])
            qnonrel = (self.judged_raw >= 0) & (self.judged_raw < self.level)
            N = sum_by(self.judged_codes, qnonrel, self.n)
            R = self.R[codes]
            den = np.maximum(np.minimum(N[codes], R), 1.0)
            contrib = np.where(above > 0, 1.0 - np.minimum(above, R) / den, 1.0)
            # the per-query sums of every row's contribution, 0 for the rows
            # not relevant: adding those zeros changes no sum
            total = sum_by(codes, contrib, self.n)
            self._cache["bpref"] = _divide(total, self.R)
        return self._cache["bpref"]

    def infAP(self):
        r = self.ranking
        judged = self.raw >= 0
        nonrel = judged & ~self.rel
        pool_unjudged = self.raw == -2
        rel_so_far = r.before(self.rel) + 1  # including this row
        n = r.before(nonrel)
        u = r.before(pool_unjudged)
        j = r.position.astype(np.float64)
        fj = np.maximum(j, 1.0)
        a = rel_so_far - 1.0
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((a + n + u) / fj) * (
            (a + INFAP_EPSILON) / (a + n + 2 * INFAP_EPSILON)
        )
        term = np.where(j == 0, 1.0, term)
        total = r.group_sum(np.where(self.rel, term, 0.0))
        return _divide(total, self.R)

    def _rel_rows(self):
        """Relevant ranked rows: precision there and its suffix maximum."""
        if "rel_rows" not in self._cache:
            r = self.ranking
            idx = np.flatnonzero(self.rel)
            codes = r.codes[idx]
            count = r.before(self.rel)[idx] + 1.0
            prec = count / (r.position[idx] + 1.0)
            self._cache["rel_rows"] = _segment_suffix_max(prec, codes)
        return self._cache["rel_rows"]

    def _recall_cutoff(self, x):
        """The number of relevant documents that recall ``x`` asks for."""
        v = x * self.R
        if self.compat == "9.0":
            return np.floor(v + 0.9).astype(np.int64)  # (long)(x R + 0.9)
        c = np.floor(v)
        return (c + (v - c >= 0.5)).astype(np.int64)  # lround(x R), 10.0

    def iprec(self, x):
        """Interpolated precision at recall ``x``. A cutoff of 0 relevant
        documents takes the best precision at or below the first relevant
        one, which trec_eval computes as 0 / 0 (NaN) for an empty ranking
        (``-J`` can leave one)."""
        imax = self._rel_rows()
        nrr = self.num_rel_ret.astype(np.int64)
        start = np.cumsum(nrr) - nrr
        c = self._recall_cutoff(x)
        out = np.zeros(self.n)
        ok = (c >= 1) & (c <= nrr)
        out[ok] = imax[start[ok] + c[ok] - 1]
        zero = (c == 0) & (nrr > 0)
        out[zero] = imax[start[zero]]
        out[(c == 0) & (self.num_ret == 0)] = np.nan
        return out

    def pt11_avg(self, levels):
        """Mean of :meth:`iprec` over ``levels``, summed in trec_eval's order."""
        total = np.zeros(self.n)
        for x in reversed(levels):
            total += self.iprec(x)
        return total / len(levels)

    def _powers(self, p):
        """``p ** i`` for every rank i and one more, by repeated
        multiplication as trec_eval computes them (bit for bit)."""
        factors = np.full(self.ranking.max_size + 1, p)
        factors[0] = 1.0
        return np.cumprod(factors)

    def rbp(self, p=0.9):
        """Rank-biased precision with gains ``level / max level`` (when the
        query's highest qrels level exceeds 1; the level itself otherwise)."""
        r = self.ranking
        top = np.zeros(self.n)
        np.maximum.at(top, self.judged_codes, np.maximum(self.judged_raw, 0))
        scale = np.where(top > 1, top, 1.0)
        gain = np.maximum(self.raw, 0) / scale[r.codes]
        return (1.0 - p) * r.group_sum(gain * self._powers(p)[r.position])

    def rbp_resid(self, p=0.9):
        """trec_eval's RBP residual: ``p ** num_ret`` plus the weight of the
        unjudged documents; 0 when every retrieved document is judged."""
        r = self.ranking
        unjudged = self.raw < 0
        powers = self._powers(p)
        weight = np.where(unjudged, powers[r.position], 0.0)
        resid = powers[r.sizes] + (1.0 - p) * r.group_sum(weight)
        return np.where(self.count_above("unjudged") > 0, resid, 0.0)

    def unj(self, k):
        """The fraction of the top ``k`` ranks holding an unjudged document."""
        return self.count_above("unjudged", k) / k

    def Rprec_mult(self, x):
        c = np.floor(x * self.R + 0.9)
        # positions below c, an integer (as a float)
        hits = self.count_above("rel", c.astype(np.int64))
        return _divide(hits, c)

    def binG(self):
        r = self.ranking
        nonrel_above = r.position - r.before(self.rel)
        term = 1.0 / np.log2(2.0 + nonrel_above)
        return _divide(r.group_sum(np.where(self.rel, term, 0.0)), self.R)

    def _ideal_gain_at(self, gains_of_judged):
        """Gain of the ideal ordering at each ranked position (0 beyond)."""
        r = self.ranking
        order = np.lexsort((-gains_of_judged, self.judged_codes))
        sorted_gains = gains_of_judged[order]
        n_j = np.bincount(self.judged_codes, minlength=self.n)
        start = np.cumsum(n_j) - n_j
        pos = r.position
        ok = pos < n_j[r.codes]
        out = np.zeros(r.n_rows)
        out[ok] = sorted_gains[start[r.codes[ok]] + pos[ok]]
        return out

    def G(self):
        r = self.ranking
        gains_j = np.maximum(self.judged_raw, 0).astype(np.float64)
        gain = np.maximum(self.raw, 0).astype(np.float64)
        ideal = self._ideal_gain_at(gains_j)
        cost = np.maximum(ideal, 1.0)
        sum_cost = r.before(cost) + cost
        sum_results = r.before(gain) + gain
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(gain != 0, gain / np.log2(2.0 + sum_cost - sum_results), 0)
        total_ideal = sum_by(self.judged_codes, gains_j, self.n)
        return _divide(r.group_sum(term), total_ideal)

    def ndcg_gains(self, pairs):
        """trec_eval ndcg with custom ``level=gain`` pairs."""
        r = self.ranking
        top = int(max(self.judged_raw.max(initial=0), max(p[0] for p in pairs)))
        table = np.arange(top + 1, dtype=np.float64)
        for level, gain in pairs:
            if level >= 0:
                table[level] = gain
        gain = np.where(self.raw >= 0, table[np.maximum(self.raw, 0)], 0.0)
        dcg = r.group_sum(gain * r.discount())
        gj = np.where(self.judged_raw >= 0, table[np.maximum(self.judged_raw, 0)], 0.0)
        gj = np.maximum(gj, 0.0)
        order = np.lexsort((-gj, self.judged_codes))
        codes, gs = self.judged_codes[order], gj[order]
        n_j = np.bincount(codes, minlength=self.n)
        pos = np.arange(codes.shape[0]) - (np.cumsum(n_j) - n_j)[codes]
        ideal = sum_by(codes, gs / np.log2(pos + 2.0), self.n)
        return _divide(dcg, ideal)

    def _ideal_cumulative(self):
        """Per query: the positive qrels gains sorted descending, their count,
        the ideal DCG at every cutoff and a lookup ``idcg(q, p)``."""
        if "ideal" not in self._cache:
            gains = np.maximum(self.judged_raw, 0).astype(np.float64)
            positive = gains > 0
            codes, g = self.judged_codes[positive], gains[positive]
            order = np.lexsort((-g, codes))
            codes, g = codes[order], g[order]
            n_pos = np.bincount(codes, minlength=self.n)
            start = np.cumsum(n_pos) - n_pos
            position = np.arange(codes.shape[0]) - start[codes]
            offsets = np.append(start, codes.shape[0])
            cum = segment_cumsum(g / np.log2(position + 2.0), offsets)

            def idcg(q, p):
                """Ideal DCG of query q at cutoff p (p >= 1, beyond n_pos ok)."""
                p = np.minimum(p, n_pos[q])
                out = np.zeros(np.shape(q))
                ok = p > 0
                out[ok] = cum[start[q[ok]] + p[ok] - 1]
                return out

            self._cache["ideal"] = (codes, g, n_pos, start, position, idcg)
        return self._cache["ideal"]

    def _dcg_cumulative(self):
        """Per ranked row: the DCG (trec gains) of its query up to it."""
        r = self.ranking
        gain = np.maximum(self.raw, 0).astype(np.float64)
        value = gain / np.log2(r.position + 2.0)
        return gain, segment_cumsum(value, r.starts)

    def ndcg_rel(self):
        r = self.ranking
        _, _, n_pos, _, _, idcg = self._ideal_cumulative()
        gain, cum = self._dcg_cumulative()
        rows = np.flatnonzero(gain > 0)
        q = r.codes[rows]
        ratio = _divide(cum[rows], idcg(q, r.position[rows] + 1))
        total = sum_by(q, ratio, self.n)
        n_pos_ret = np.bincount(q, minlength=self.n)
        dcg_all = r.group_sum(gain / np.log2(r.position + 2.0))
        idcg_all = idcg(np.arange(self.n), n_pos)
        total += (n_pos - n_pos_ret) * _divide(dcg_all, idcg_all)
        return np.where(total > 0, _divide(total, n_pos), 0.0)

    def Rndcg(self):
        r = self.ranking
        codes, g, n_pos, _, position, idcg = self._ideal_cumulative()
        _, cum = self._dcg_cumulative()
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
        nxt = np.append(g[1:], 0.0)
        change = last | (nxt != g)
        q = codes[change]
        p = position[change] + 1
        total = sum_by(q, dcg_at(q, p) / idcg(q, p), self.n)
        count = np.bincount(q, minlength=self.n).astype(np.float64)
        extra = num_ret > n_pos + 1
        qs = np.flatnonzero(extra)
        total[qs] += _divide(dcg_at(qs, num_ret[qs]), idcg(qs, n_pos[qs]))
        count[qs] += 1
        return np.where(self.R > 0, _divide(total, count), 0.0)

    def yaap(self):
        """log((1 + S) / (1 + R - S)), S the sum of precisions at relevant rows."""
        r = self.ranking
        precision = (r.before(self.rel) + 1.0) / (r.position + 1.0)
        total = r.group_sum(np.where(self.rel, precision, 0.0))
        return np.log((1.0 + total) / (1.0 + self.R - total))

    def relstring(self, length):
        """The top ``length`` relevance values of each query as characters."""
        return relevance_strings(self.ranking, self.raw, int(length))

    def judged(self, k):
        return _divide(self.count_above("judged", k), np.minimum(self.num_ret, k))

    def set_measures(self):
        P = _divide(self.num_rel_ret, self.num_ret)
        rec = _divide(self.num_rel_ret, self.R)
        return P, rec

    def value(self, base, param):
        """Per-query values of one output of a trec measure."""
        if base == "num_q":
            return np.ones(self.n)
        if base == "num_ret":
            return self.num_ret
        if base == "num_rel":
            return self.R
        if base == "num_rel_ret":
            return self.num_rel_ret
        if base == "num_nonrel_judged_ret":
            unjudged = self.count_above("unjudged")
            return self.num_ret - unjudged - self.num_rel_ret
        if base in ("map", "gm_map"):
            return self.map()
        if base in ("bpref", "gm_bpref"):
            return self.bpref()
        if base == "Rprec":
            return self.binary("rprec")
        if base == "recip_rank":
            return self.binary("mrr")
        if base in CUTOFF_FAMILIES:
            return self.at_cutoff(base, param)
        if base == "ndcg":
            if param:
                return self.ndcg_gains(param)
            return self.registry("ndcg")
        if base == "infAP":
            return self.infAP()
        if base == "iprec_at_recall":
            return self.iprec(param)
        if base == "11pt_avg":
            return self.pt11_avg(param)
        if base == "rbp":
            return self.rbp()
        if base == "rbp_resid":
            return self.rbp_resid()
        if base == "unj":
            return self.unj(param)
        if base == "Rprec_mult":
            return self.Rprec_mult(param)
        if base == "binG":
            return self.binG()
        if base == "G":
            return self.G()
        if base == "ndcg_rel":
            return self.ndcg_rel()
        if base == "Rndcg":
            return self.Rndcg()
        if base == "judged":
            return self.judged(param)
        if base == "yaap":
            return self.yaap()
        if base == "relstring":
            return self.relstring(param[0])
        P, rec = self.set_measures()
        if base == "set_P":
            return P
        if base == "set_recall":
            return rec
        if base == "set_relative_P":
            return _divide(self.num_rel_ret, np.minimum(self.num_ret, self.R))
        if base == "set_map":  # in trec_eval's order of operations
            return _divide(self.num_rel_ret * self.num_rel_ret, self.num_ret * self.R)
        if base == "set_F":
            beta2 = param[0]
            return np.where(
                self.num_rel_ret > 0,
                _divide((beta2 + 1.0) * P * rec, beta2 * P + rec),
                0.0,
            )
        if base == "utility":
            p1, p2, p3, p4 = param
            a = self.num_rel_ret
            b = self.num_ret - a
            c = self.R - a
            d = self.num_docs + a - self.num_ret - self.R  # -N, default 0
            return p1 * a + p2 * b + p3 * c + p4 * d
        raise AssertionError(f"no kernel for {base}")  # pragma: no cover


def relevance_strings(ranking, raw, length):
    """trec_eval's relstring: per query, one character per top document.

    A digit for levels 0-9, ``>`` above 9, ``-`` for a document missing from
    the qrels, ``.`` for a negative qrels level. Built as a byte matrix viewed
    as fixed-width strings (numpy drops the trailing NUL padding).
    """
    n = ranking.n_groups
    width = max(1, min(length, int(ranking.sizes.max(initial=0))))
    inside = ranking.position < length
    codes = np.select(
        [raw > 9, raw >= 0, raw == -1, raw == -2],
        [ord(">"), ord("0") + np.clip(raw, 0, 9), ord("-"), ord(".")],
        ord("<"),
    ).astype(np.uint8)
    chars = np.zeros((n, width), dtype=np.uint8)
    chars[ranking.codes[inside], ranking.position[inside]] = codes[inside]
    return chars.view(f"S{width}").reshape(n).astype(str)


def _segment_suffix_max(values, codes):
    """Maximum of ``values`` over each position and the later ones of its
    segment (``codes`` non-decreasing): pointer doubling, O(n log n)."""
    out = values.copy()
    n = out.shape[0]
    step = 1
    while step < n:
        same = codes[step:] == codes[:-step]
        if not same.any():
            break
        np.maximum(out[:-step], np.where(same, out[step:], -np.inf), out=out[:-step])
        step *= 2
    return out


def measure(ctx, outputs, level, group_codes=None, n_queries=None):
    """``{output name: per-query values}`` of a context, in ``outputs`` order.

    ``outputs`` are :func:`skirm.trec._evaluate._parse_metrics` entries:
    trec_eval measures by their kernels here, skirm metrics by the registry
    (binary ones at the relevance level ``level``). String measures
    (``relstring``) give str arrays. With ``group_codes`` (``-R qrels_jg``)
    each value is averaged over the groups of its query.
    """
    values = {}
    cutoffs: dict = {}
    for _, kind, what, param in outputs:
        if kind == "trec" and what in CUTOFF_FAMILIES:
            cutoffs.setdefault(what, []).append(param)
    ctx.cutoffs = cutoffs
    for name, kind, what, param in outputs:
        if kind == "skirm":
            params = {}
            if "relevance_threshold" in what.spec.params and not what.params.get(
                "relevance_threshold"
            ):
                params["relevance_threshold"] = level
            metric = get_metric(what, **params) if params else what
            out = metric.per_query(ctx.ranking, 0.0)[1]
        elif what == "runid":
            continue
        elif group_codes is not None:
            out = group_values(ctx, what, param, group_codes, n_queries)
        else:
            out = ctx.value(what, param)
        string = kind == "trec" and MEASURES[what].string
        values[name] = np.asarray(out, dtype=str if string else np.float64)
    return values


def _sequential_sum(values):
    """The sum accumulated left to right, as trec_eval adds up its queries
    (``np.sum`` adds pairwise: its last bit can differ, and so can the 4th
    decimal printed)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def summarize(kind, values, n_total, n_missing):
    """trec_eval's summary of per-query values (``-c``: ``n_missing`` zeros)."""
    if kind == "sum":
        return _sequential_sum(values)
    if kind == "count":
        return float(n_total)
    if kind == "gm":
        logs = _sequential_sum(np.log(np.maximum(values, GM_FLOOR)))
        return float(math.exp((logs + n_missing * math.log(GM_FLOOR)) / n_total))
    return _sequential_sum(values) / n_total
