"""Measure: trec_eval's measures on a ranked context, and their summaries.

A :class:`Context` holds the shared ranking of a block of queries and the
TREC facts the array kernels do not hold (each row's qrels level, the
judgements of the block's queries), with the intermediate results several
measures share. :func:`measure` computes a request's outputs on it, each the
way the measure table says: trec_eval's own computation (:mod:`._kernels`)
or the array kernel of :mod:`skirm.metrics` (binary measures at the
relevance level; the cutoffs of one measure in one pass). Everything is
vectorised over :class:`skirm._engine.Ranking`: no loop over queries.
"""

from __future__ import annotations

import math

import numpy as np

from skirm._engine import packed_key, segment_cumsum
from skirm._lazy import cached_property
from skirm._measures._rows import QRELS
from skirm._measures._table import RUNID
from skirm.metrics._registry import get_metric, metric_for
from skirm.trec._groups import group_values
from skirm.trec._kernels import KERNELS

GM_FLOOR = 1e-5  # trec_eval's floor for the geometric means


class Context:
    """The shared ranking plus the TREC facts the array kernels do not hold.

    ``raw`` is trec_eval's relevance value of each ranked row: the qrels level
    if judged with a level >= 0, -1 if the docno is not in the qrels, -2 if its
    qrels level is negative. ``options`` are the evaluation's
    :class:`~skirm.trec._request.Options`. ``judged_cache``: where the values
    of the judgements alone (the ideal ranking) are kept, a dict the caller
    keeps for the next contexts of the same judgements (the same
    ``judged_codes`` and ``judged_raw``: the runs of one evaluator that
    evaluate every judged query); by default, this context's own.
    """

    def __init__(
        self, ranking, raw, judged_codes, judged_raw, options, judged_cache=None
    ):
        self.compat = options.compat
        self.level = options.level
        self.num_docs = options.num_docs  # trec_eval -N, for utility
        self.ranking = ranking
        self.raw = raw
        self.judged_codes = judged_codes
        self.judged_raw = judged_raw
        self.n = ranking.n_groups
        self._cache = {}
        self._judged_cache = self._cache if judged_cache is None else judged_cache
        self.cutoffs = {}  # {measure: the cutoffs asked} of the array kernels

    # The counts trec_eval's own kernels share, computed when first asked
    # for: the array kernels (P, recall, ndcg_cut, ...) need none of them.

    @cached_property
    def rel(self):
        """Per ranked row, whether it is relevant (at the relevance level)."""
        return self.ranking.relevant(self.level)

    @cached_property
    def R(self):
        """Per query, the relevant judgements (retrieved or not)."""
        return self.ranking.n_relevant(self.level)

    @cached_property
    def num_ret(self):
        """Per query, the ranked rows (floats)."""
        return self.ranking.sizes.astype(np.float64)

    @cached_property
    def num_rel_ret(self):
        """Per query, the relevant ranked rows."""
        return self.ranking.group_sum(self.rel)

    def value(self, output):
        """Per-query values of one output of a trec_eval measure."""
        spelling = output.spelling
        if spelling.kernel is not None:
            return KERNELS[spelling.kernel](self, output.param)
        if spelling.params == "cutoffs":
            return self.at_cutoff(output.measure, output.param)
        return self.array_values(output.measure)

    def cached(self, key, compute):
        """``compute(self)``, once per context."""
        if key not in self._cache:
            self._cache[key] = compute(self)
        return self._cache[key]

    def metric(self, measure):
        """The metric of a measure on arrays, binary measures at the
        relevance level (trec_eval's ``-l``)."""
        if measure.kind == "binary":
            return metric_for(measure, relevance_threshold=self.level)
        return metric_for(measure)

    def array_values(self, measure):
        """Per-query values of a measure's array kernel; 0 for a query
        without relevant documents."""

        def compute(ctx):
            return ctx.metric(measure).per_query(ctx.ranking, 0.0)[1]

        return self.cached(("array", measure), compute)

    def count_above(self, kind, cut=None):
        """Per query, the ranked rows of ``kind`` (``"rel"``, ``"unjudged"``:
        not in the qrels or of a negative level, ``"in_qrels"``)
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
            elif kind == "in_qrels":
                mask = self.raw != -1
            else:  # pragma: no cover - a kernel's mistake
                raise KeyError(kind)
            cum = np.zeros(mask.shape[0] + 1, dtype=np.int64)
            np.cumsum(mask, out=cum[1:])
            self._cache[key] = cum
        r = self.ranking
        first = r.starts[:-1]
        last = r.starts[1:] if cut is None else first + np.minimum(r.sizes, cut)
        return (cum[last] - cum[first]).astype(np.float64)

    def at_cutoff(self, measure, k):
        """Per-query values of a measure at cutoff ``k`` (``P.5``), computed
        in one pass with every cutoff of ``measure`` in :attr:`cutoffs`
        (those :func:`measure` was asked for): the values of one cutoff at a
        time, column by column, without a pass over the rows per cutoff."""
        key = ("cutoff", measure, k)
        if key not in self._cache:
            ks = sorted({k, *self.cutoffs.get(measure, ())})
            metric = self.metric(measure)
            values, empty = metric.spec.values(
                self.ranking, np.array(ks), metric.params
            )
            values = values.reshape(self.n, len(ks)).T.copy()
            values[:, empty] = 0.0  # no relevant row: 0, as trec_eval
            for cut, line in zip(ks, values, strict=True):
                self._cache["cutoff", measure, cut] = line
        return self._cache[key]

    def relevant_precisions(self):
        """Relevant ranked rows: precision there and its suffix maximum."""
        if "rel_rows" not in self._cache:
            r = self.ranking
            idx = np.flatnonzero(self.rel)
            codes = r.codes[idx]
            count = r.before(self.rel)[idx] + 1.0
            prec = count / (r.position[idx] + 1.0)
            self._cache["rel_rows"] = _segment_suffix_max(prec, codes)
        return self._cache["rel_rows"]

    def recall_cutoff(self, x):
        """The number of relevant documents that recall ``x`` asks for."""
        v = x * self.R
        if self.compat == "9.0":
            return np.floor(v + 0.9).astype(np.int64)  # (long)(x R + 0.9)
        c = np.floor(v)
        return (c + (v - c >= 0.5)).astype(np.int64)  # lround(x R), 10.0

    def powers(self, p):
        """``p ** i`` for every rank i and one more, by repeated
        multiplication as trec_eval computes them (bit for bit)."""
        factors = np.full(self.ranking.max_size + 1, p)
        factors[0] = 1.0
        return np.cumprod(factors)

    def ideal_gain_at(self):
        """Gain (trec gains) of the ideal ordering at each ranked position:
        the query's positive gains in descending order, 0 beyond them."""
        r = self.ranking
        _, gains, n_pos, start, _, _ = self.ideal_cumulative()
        # the first min(n_pos, retrieved) rows of each query get the gains
        m = np.minimum(n_pos, r.sizes)
        within = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)
        out = np.zeros(r.n_rows)
        out[np.repeat(r.starts[:-1], m) + within] = gains[np.repeat(start, m) + within]
        return out

    def ideal_rows(self):
        """The ideal ranking of each query's judgements of a positive gain
        (trec gains, descending), query by query: their query codes, gains,
        count per query, each query's first row, their positions and the
        terms ``gain / log2(position + 2)`` of the ideal DCG (once per
        context)."""
        cache = self._judged_cache
        if "ideal_rows" not in cache:
            raw = self.judged_raw
            positive = raw > 0
            codes, levels = self.judged_codes[positive], raw[positive]
            order = _by_code_then_descending(codes, levels)
            codes, g = codes[order], levels[order].astype(np.float64)
            n_pos = np.bincount(codes, minlength=self.n)
            start = np.cumsum(n_pos) - n_pos
            position = np.arange(codes.shape[0]) - start[codes]
            terms = g / np.log2(position + 2.0)
            cache["ideal_rows"] = codes, g, n_pos, start, position, terms
        return cache["ideal_rows"]

    def ideal_cumulative(self):
        """Per query: the positive qrels gains sorted descending, their count,
        the ideal DCG at every cutoff and a lookup ``idcg(q, p)``."""
        cache = self._judged_cache
        if "ideal" not in cache:
            codes, g, n_pos, start, position, terms = self.ideal_rows()
            offsets = np.append(start, codes.shape[0])
            cum = segment_cumsum(terms, offsets)

            def idcg(q, p):
                """Ideal DCG of query q at cutoff p (p >= 1, beyond n_pos ok)."""
                p = np.minimum(p, n_pos[q])
                out = np.zeros(np.shape(q))
                ok = p > 0
                out[ok] = cum[start[q[ok]] + p[ok] - 1]
                return out

            cache["ideal"] = (codes, g, n_pos, start, position, idcg)
        return cache["ideal"]

    def log2_table(self):
        """``log2(p + 2.0)`` for the positions ``p`` of the deepest query:
        looked up by position, the same values as computed row by row, at
        the cost of one query's rows (once per context)."""
        if "log2" not in self._cache:
            self._cache["log2"] = np.log2(np.arange(self.ranking.max_size) + 2.0)
        return self._cache["log2"]

    def dcg_terms(self):
        """Per ranked row: the gain (trec gains) and its discounted value
        ``gain / log2(position + 2)`` (once per context)."""
        if "dcg_terms" not in self._cache:
            gain = np.maximum(self.raw, 0).astype(np.float64)
            value = gain / self.log2_table()[self.ranking.position]
            self._cache["dcg_terms"] = gain, value
        return self._cache["dcg_terms"]

    def dcg_cumulative(self):
        """Per ranked row: the gain (trec gains) and the DCG of its query up
        to it (once per context: ``ndcg_rel`` and ``Rndcg`` share them)."""
        if "dcg_rows" not in self._cache:
            gain, value = self.dcg_terms()
            self._cache["dcg_rows"] = gain, segment_cumsum(value, self.ranking.starts)
        return self._cache["dcg_rows"]


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


def measure(ctx, outputs, group_codes=None, n_queries=None):
    """``{output name: per-query values}`` of a context, in ``outputs``
    order (:class:`~skirm.trec._request.Output`): trec_eval's measures as the
    table says, skirm's metrics by their kernels (binary ones at the
    context's relevance level). String measures (``relstring``) give str
    arrays. With ``group_codes`` (``-R qrels_jg``) each value is averaged
    over the groups of its query.
    """
    values = {}
    cutoffs: dict = {}
    for output in outputs:
        spelling = output.spelling
        if (
            spelling is not None
            and spelling.kernel is None
            and spelling.params == "cutoffs"
            and spelling.rel_format == QRELS
        ):
            cutoffs.setdefault(output.measure, []).append(output.param)
    ctx.cutoffs = cutoffs
    for output in outputs:
        if output.metric is not None:
            what = output.metric
            params = {}
            if "relevance_threshold" in what.spec.params and not what.params.get(
                "relevance_threshold"
            ):
                params["relevance_threshold"] = ctx.level
            metric = get_metric(what, **params) if params else what
            out = metric.per_query(ctx.ranking, 0.0)[1]
        elif output.measure is RUNID:
            continue
        elif group_codes is not None:
            out = group_values(ctx, output, group_codes, n_queries)
        else:
            out = ctx.value(output)
        string = output.spelling is not None and output.spelling.string
        values[output.name] = np.asarray(out, dtype=str if string else np.float64)
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


def _by_code_then_descending(codes, levels):
    """The stable order of ``codes`` ascending, then ``levels`` descending
    (``np.lexsort((-levels, codes))``): for integer levels, one stable sort
    of one packed int64 key where it fits (half the time of the two keys)."""
    key = packed_key(codes, levels, descending=True)
    if key is not None:
        return np.argsort(key, kind="stable")
    return np.lexsort((-levels.astype(np.float64), codes))
