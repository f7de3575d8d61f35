"""Dicts: qrels and runs held as ``{qid: {docid: value}}``, joined as they are.

pytrec_eval's users hold their qrels and runs as dicts of dicts, and their
inner dicts already are the join's index. So the run is neither turned into
string columns nor hashed: its scores are read straight into an array (C
iterators over the dicts, no Python loop over queries or rows), and each
*judgement* is looked up in its query's run dict (the score of the judged
docno, if retrieved). Qrels hold a few judgements per query where runs hold
many documents, so the dict look-ups are per judgement, not per run row.

A retrieved judgement's rank is then *counted*: the rows of its query
scored above it, and among the rows tied with it those whose docno comes
first (docno descending, byte order). The ranked labels are written at
those ranks; every other row is unjudged. The rows are sorted only if a
measure reads their order (Compat's ideal ranking, the ERRs; see
:class:`~skirm._engine.Ranking`'s ``sort``), and where queries hold many
retrieved judgements, so that counting would compare more scores than a
sort reads (:data:`COUNTED_PER_ROW`): the rows are then sorted and each
judgement found by a search of its score among its query's. Docnos are read
only where the values need them: to order the tied scores of a block that
holds a retrieved judgement (a block of unjudged documents alone gives every
measure the same value in any order), and to place a judgement among tied
scores. Either way the ranking and the measures are the TREC path's own
(:mod:`skirm.trec._rank`): the values are the same, bit for bit.

:func:`dict_context` returns :data:`NOT_PLAIN` where the run is not plainly
``{str: {str: number}}``; the caller then takes the general path, whose
messages say what is wrong.
"""

from __future__ import annotations

import operator
from itertools import chain, compress, repeat
from operator import countOf, itemgetter
from typing import Any

import numpy as np

from skirm._engine import rank_order
from skirm._lazy import cached_property
from skirm.io._tokens import Tokens
from skirm.trec._measures import measure
from skirm.trec._missing import missing_queries_error, missing_rule, no_common_error
from skirm.trec._rank import joined_context, placed_context
from skirm.trec._request import bind_qrels_wide

#: What :func:`dict_context` returns for a run that is not plain dicts.
NOT_PLAIN = object()


def plain_dicts(obj) -> bool:
    """Whether ``obj`` is a dict of dicts with str keys without a NUL
    character (inner keys unchecked)."""
    if type(obj) is not dict:
        return False
    # the keys that are exactly str and the values exactly dicts, counted
    # (one C pass each; a set of the types hashes every one)
    n = len(obj)
    return (
        countOf(map(type, obj), str) == n
        and countOf(map(type, obj.values()), dict) == n
        and _no_nul(obj)
    )


def _no_nul(keys) -> bool:
    """Whether no key holds a NUL character (str keys: one C pass). Ids
    that end with NULs are those ids without them (numpy's rule for
    strings, which the general path follows): such dicts take it."""
    return "\x00" not in "".join(keys)


#: The types of a label the dicts hold as they are (bool is an int), and
#: the range they must be in (trec_eval reads C longs).
_LABELS = {int, bool}
_INT64 = (-(2**63), 2**63 - 1)


def evaluate_dicts(qrels, run, outputs, options):
    """``(ids, per_query, run_id, n_topics, n_relevant)`` of a run held as
    dicts against qrels held as dicts (what
    :func:`~skirm.trec._evaluate.evaluate_run`'s stages give), or
    :data:`NOT_PLAIN` when either is not plain dicts, or when trec_eval
    10.0's ``-c`` placeholders are to be scored (the general path does)."""
    judged, max_label = plain_qrels(qrels, copy=False)
    if judged is None or not plain_dicts(run):
        return NOT_PLAIN
    if not any(run.values()):
        return NOT_PLAIN  # nothing retrieved: the general path says so
    index = DictQrels(judged)
    topics = np.array(index.names, dtype=str)  # sorted
    settings = (options.level, options.judged_only, options.max_docs, options.compat)
    ctx = dict_context(index, run, settings)
    if ctx is NOT_PLAIN:
        return NOT_PLAIN
    if ctx is None:
        retrieved = sorted(q for q, docs in run.items() if docs)
        raise no_common_error(np.array(retrieved[:3], dtype=str), topics)
    ids = ctx.ranking.group_ids
    missing = missing_rule(options.all_queries, options.compat)
    if missing != "leave out" and ids.shape[0] < topics.shape[0]:
        if missing == "score":
            return NOT_PLAIN  # placeholders: the general path scores them
        raise missing_queries_error(topics[~np.isin(topics, ids)])
    per_query = measure(ctx, bind_qrels_wide(outputs, lambda: max_label), options.level)

    def n_relevant():  # the judgements with a positive label (as asked)
        labels = chain.from_iterable(map(dict.values, judged.values()))
        return sum(map(operator.gt, labels, repeat(0)))

    return ids, per_query, "skirm", topics.shape[0], n_relevant


def plain_qrels(qrels: Any, *, copy: bool = True) -> tuple[dict | None, float]:
    """``(dicts, largest label)``: ``qrels`` (each dict copied with ``copy``,
    as pytrec_eval copies them) when they are plain dicts of str query ids
    and docnos and integer labels of 64 bits, without the queries whose
    dict is empty (no judgement: not a topic), and the largest label (0 if
    none is positive); ``(None, 0.0)`` for any other shape, which the
    caller reads as :class:`~skirm.io.Qrels` (and whose messages say what
    is wrong)."""
    if not plain_dicts(qrels) or not qrels:
        return None, 0.0
    labels = list(chain.from_iterable(map(dict.values, qrels.values())))
    if not labels or not set(map(type, labels)) <= _LABELS:
        return None, 0.0
    if min(labels) < _INT64[0] or max(labels) > _INT64[1]:
        return None, 0.0  # the general path says which label
    if countOf(map(type, chain.from_iterable(qrels.values())), str) != len(labels):
        return None, 0.0
    if not _no_nul(chain.from_iterable(qrels.values())):
        return None, 0.0
    inner = map(dict, qrels.values()) if copy else qrels.values()
    kept = dict(filter(itemgetter(1), zip(qrels, inner, strict=True)))
    return kept, max(float(max(labels)), 0.0)


class DictQrels:
    """Checked qrels dicts (:func:`plain_qrels`) indexed once, for every run
    evaluated against them: their queries in order, the judged dicts of each
    and the labels of the judgements as an array (what
    :class:`~skirm.trec.RelevanceEvaluator` keeps between runs)."""

    def __init__(self, judged: dict) -> None:
        names = list(judged)
        order = np.argsort(np.array(names, dtype=str), kind="stable").tolist()
        #: the query ids in code point order, and each one's judged dict
        self.names = list(map(names.__getitem__, order))
        self.dicts = list(map(judged.__getitem__, self.names))
        self.position = dict(zip(self.names, range(len(order)), strict=True))
        self.sizes = np.fromiter(map(len, self.dicts), np.intp, count=len(order))
        self.starts = _starts(self.sizes)
        n = int(self.starts[-1])
        self.labels = np.fromiter(
            chain.from_iterable(map(dict.values, self.dicts)), np.int64, count=n
        )  # checked integers of 64 bits
        self.codes = np.repeat(np.arange(len(order), dtype=np.intp), self.sizes)

    def of(self, at):
        """``(dicts, sizes, labels, codes, docnos)`` of the queries at ``at``
        (sorted positions): the judgements of those queries, in order, and
        a function of judgements (their indices) that gives their docnos."""
        if at.shape[0] == len(self.dicts):  # every judged query: as indexed
            return self.dicts, self.sizes, self.labels, self.codes, self._docnos
        sizes = self.sizes[at]
        rows = _ranges(self.starts[at], sizes)
        codes = np.repeat(np.arange(at.shape[0], dtype=np.intp), sizes)
        dicts = list(map(self.dicts.__getitem__, at.tolist()))

        def docnos(judgements):
            return self._docnos(rows[judgements])

        return dicts, sizes, self.labels[rows], codes, docnos

    def _docnos(self, rows):
        """The docnos of the judgements ``rows`` (indices), a list; the judged
        docnos of a query are read once, when one of them is first asked for."""
        keys = self.__dict__.get("_keys")
        if keys is None:
            keys = self._keys = _Keys(self.dicts, self.starts)
        return keys.of(rows)


def dict_context(qrels, run, settings):
    """The :class:`~skirm.trec._measures.Context` of a ``run`` dict against
    ``qrels`` (a :class:`DictQrels`, or dicts of checked qrels: str keys,
    integer labels); None when none of the run's queries with documents is
    judged; :data:`NOT_PLAIN` when ``run`` is not dicts of str docnos and
    numeric scores.

    ``settings`` are ``(level, judged_only, max_docs, compat)``."""
    if not plain_dicts(run):
        return NOT_PLAIN
    index = qrels if isinstance(qrels, DictQrels) else DictQrels(qrels)
    # The judged queries with documents, by their place among the qrels'.
    docs = list(compress(run.values(), run.values()))
    at = np.fromiter(
        map(index.position.get, compress(run, run.values()), repeat(-1)),
        np.intp,
        count=len(docs),
    )
    kept = np.flatnonzero(at >= 0)
    if not kept.shape[0]:
        return None
    kept = kept[np.argsort(at[kept])]
    at = at[kept]
    eval_ids = np.array(list(map(index.names.__getitem__, at.tolist())))
    inner = list(map(docs.__getitem__, kept.tolist()))
    sizes = np.fromiter(map(len, inner), dtype=np.intp, count=len(inner))
    n = int(sizes.sum())
    if not _plain_rows(inner, n):
        return NOT_PLAIN
    scores = np.fromiter(
        chain.from_iterable(map(dict.values, inner)), dtype=np.float64, count=n
    )
    if np.isnan(scores).any():
        return NOT_PLAIN  # the general path refuses NaN
    judged, j_sizes, j_raw, j_codes, j_docnos = index.of(at)
    # The score of each judged docno in its query's run (NaN: not retrieved).
    j_scores = np.fromiter(
        map(dict.get, chain.from_iterable(map(repeat, inner, j_sizes.tolist())),
            chain.from_iterable(judged), repeat(np.nan)),
        dtype=np.float64,
        count=j_raw.shape[0],
    )  # fmt: skip
    if settings[3] == "9.0":  # as trec_eval 9.0.x holds scores: C floats
        with np.errstate(over="ignore"):
            scores, j_scores = scores.astype(np.float32), j_scores.astype(np.float32)
    starts = _starts(sizes)
    docnos = _Docnos(inner, starts, scores, j_codes, j_scores)
    hit = np.flatnonzero(~np.isnan(j_scores))
    q = j_codes[hit]

    def row_codes():  # the query code of each run row, for a sort
        return np.repeat(np.arange(len(inner), dtype=np.intp), sizes)

    if int(sizes[q].sum()) > COUNTED_PER_ROW * n:  # many retrieved judgements
        return _sorted_context(
            eval_ids,
            scores,
            row_codes(),
            j_codes,
            j_scores,
            j_raw,
            j_docnos,
            docnos,
            settings,
        )
    # Each retrieved judgement's rank: the rows of its query scored above it,
    # and its place among the rows tied with it (by docno).
    at, rows = _ranks(scores, starts, q, j_scores[hit], hit, j_docnos, docnos)
    at += starts[q]
    labels = j_raw[hit]
    raw = np.where(labels >= 0, labels, -2)

    def sort():  # the order of every row, for the few measures that read it
        ordered = rank_order(
            scores,
            row_codes(),
            len(inner),
            "first",
            tiebreak=docnos.descending,
            starts=starts,
        )
        return ordered.order, ordered.scores.astype(np.float64, copy=False)

    def of_rows():
        of = np.full(n, -1, dtype=np.int64)
        of[rows] = hit
        return of

    return placed_context(
        eval_ids, at, raw, starts, sort, j_codes, j_raw, settings, of_rows
    )


#: The ranks of the retrieved judgements are counted (each one's score
#: compared with every score of its query) while that compares at most this
#: many scores per run row; the rows are sorted otherwise. (Measured: 10
#: retrieved judgements per query of 100 or 1,000 rows count in 0.85x and
#: 0.97x the time of the sort, 40 per 1,000 rows in 1.4x.)
COUNTED_PER_ROW = 8

#: Scores compared at a time when counting ranks (a few MB of temporaries).
_CELLS = 1 << 16


def _sorted_context(
    eval_ids, scores, codes, j_codes, j_scores, j_raw, j_docnos, docnos, settings
):
    """The context of the run's rows sorted (ties by docno), each retrieved
    judgement then placed by a search of its score among its query's."""
    placed = []  # the input rows judged and their judgements, once ranked

    def ranked_raw(ordered):
        raw, at, hit = _placed(ordered, j_codes, j_scores, j_raw, j_docnos, docnos)
        placed[:] = [ordered.order[at], hit]
        return raw

    def of_rows():
        of = np.full(scores.shape[0], -1, dtype=np.int64)
        of[placed[0]] = placed[1]
        return of

    return joined_context(
        eval_ids,
        scores,
        codes,
        ranked_raw,
        j_codes,
        j_raw,
        docnos.descending,
        settings,
        of_rows=of_rows,
    )


def _ranks(scores, starts, q, s, hit, j_docnos, docnos):
    """``(rank, row)`` of each retrieved judgement ``hit`` (an index of the
    judgements), of query ``q`` scored ``s``: its 0-based place in its
    query's ranking (score descending, then docno descending in byte order,
    as :func:`~skirm.trec._rank.joined_context` ranks) and its run row.

    The rows of its query scored above ``s`` are counted, and the docnos of
    the rows scored ``s`` (when more than one is) compared with its own."""
    rank, equal, eq_rows = _count_scores(scores, starts, q, s)
    first = _starts(equal)
    rows = eq_rows[first[:-1]]  # a judgement alone at its score: its row
    tied = np.flatnonzero(equal > 1)
    if tied.shape[0]:
        sizes = equal[tied]
        t_rows = eq_rows[_ranges(first[tied], sizes)]
        names = docnos.of(t_rows)
        wanted = np.empty(tied.shape[0], dtype=object)
        wanted[:] = j_docnos(hit[tied])
        # its own row among its tied ones: the one docno equal to its docno
        own = np.flatnonzero(np.array(names, dtype=object) == np.repeat(wanted, sizes))
        key = _byte_rank(names)
        key_own, row_own = np.repeat(key[own], sizes), np.repeat(t_rows[own], sizes)
        # rows before it: a later docno, or the same bytes and an earlier row
        before = (key > key_own) | ((key == key_own) & (t_rows < row_own))
        rank[tied] += np.add.reduceat(before, _starts(sizes)[:-1], dtype=np.intp)
        rows[tied] = t_rows[own]
    return rank, rows


def _count_scores(scores, starts, q, s):
    """For each ``(q, s)`` (a query and a score it holds): its query's rows
    scored above ``s``, those scored ``s``, and the latter rows (each
    pair's in turn, in row order)."""
    lo, sizes = starts[q], starts[q + 1] - starts[q]
    n_queries = starts.shape[0] - 1
    width = int(starts[-1]) // max(n_queries, 1)
    if starts[-1] != width * n_queries or (starts[1:] - starts[:-1] != width).any():
        width = 0  # queries of several sizes
    above = np.empty(q.shape[0], dtype=np.intp)
    equal = np.empty(q.shape[0], dtype=np.intp)
    eq_rows = [np.empty(0, dtype=np.intp)]
    ends = np.cumsum(sizes)
    a = 0
    while a < q.shape[0]:  # a few MB of compared scores at a time
        if width:
            b = a + max(_CELLS // width, 1)
        else:
            b = max(int(np.searchsorted(ends, ends[a] - sizes[a] + _CELLS)), a + 1)
        each = s[a:b]
        if width:  # queries all of one size: each pair's query is a line
            values = scores.reshape(n_queries, width)[q[a:b]]
            each = each[:, None]
            above[a:b] = (values > each).sum(axis=1)
            same = values == each
            equal[a:b] = same.sum(axis=1)
            line, column = np.nonzero(same)
            eq_rows.append(lo[a:b][line] + column)
        else:
            rows = _ranges(lo[a:b], sizes[a:b])
            each = np.repeat(each, sizes[a:b])
            values = scores[rows]
            at = _starts(sizes[a:b])[:-1]
            above[a:b] = np.add.reduceat(values > each, at, dtype=np.intp)
            same = values == each
            equal[a:b] = np.add.reduceat(same, at, dtype=np.intp)
            eq_rows.append(rows[same])
        a = b
    return above, equal, np.concatenate(eq_rows)


def _starts(sizes):
    """Where each of the consecutive parts of ``sizes`` starts, and the end."""
    starts = np.zeros(sizes.shape[0] + 1, dtype=np.intp)
    np.cumsum(sizes, out=starts[1:])
    return starts


def _ranges(starts, sizes):
    """The indices ``starts[i], ..., starts[i] + sizes[i] - 1`` of every i."""
    ends = np.cumsum(sizes)
    rows = np.arange(int(ends[-1]) if ends.shape[0] else 0, dtype=np.intp)
    rows += np.repeat(starts - (ends - sizes), sizes)
    return rows


def _plain_rows(inner, n):
    """Whether the run's ``n`` rows (``inner`` dicts) hold str docnos
    without a NUL character and numeric scores: a C pass each (the docnos
    joined, which refuses any docno but a str; ``sum`` refuses any score
    but a number, where numpy would read the string ``"1.0"`` as one)."""
    try:
        if not _no_nul(chain.from_iterable(inner)):
            return False
    except TypeError:
        return False
    try:
        total = sum(chain.from_iterable(map(dict.values, inner)))
    except TypeError:
        return False
    return isinstance(total, (int, float, np.floating))


class _Keys:
    """The keys of given rows of consecutive dicts (row ``starts[i] + j``:
    the ``j``-th key of ``dicts[i]``), each dict's read when one of its rows
    is first asked for."""

    def __init__(self, dicts, starts):
        self.dicts, self.starts = dicts, starts
        self._keys = []  # the keys of the dicts read, one dict after another
        self._at = np.full(len(dicts), -1, dtype=np.intp)  # where each starts

    def of(self, rows):
        """The keys of ``rows`` (a list)."""
        queries = np.searchsorted(self.starts, rows, side="right") - 1
        # the dicts not read yet, in order (a mask: no sort, and no
        # np.unique, which imports numpy.ma on its first call)
        new = np.zeros(self._at.shape[0], dtype=bool)
        new[queries] = True
        new &= self._at < 0
        new = np.flatnonzero(new)
        if new.shape[0]:
            sizes = self.starts[new + 1] - self.starts[new]
            self._at[new] = len(self._keys) + _starts(sizes)[:-1]
            self._keys.extend(
                chain.from_iterable(map(self.dicts.__getitem__, new.tolist()))
            )
        at = self._at[queries] + (rows - self.starts[queries])
        return list(map(self._keys.__getitem__, at.tolist()))


class _Docnos(_Keys):
    """The run's docnos of given rows (in the run's order: each query's dict
    in turn, ``starts`` the first row of each), read from the dicts of the
    queries asked about only (those with a tie block that holds a retrieved
    judgement), when first asked for.

    ``scores`` are the rows' scores as ranked; the retrieved judgements are
    those of ``j_scores`` (the scores of the judged docnos, NaN if not
    retrieved) with their query codes ``j_codes``."""

    def __init__(self, inner, starts, scores, j_codes, j_scores):
        super().__init__(inner, starts)
        self.scores, self.j_codes, self.j_scores = scores, j_codes, j_scores

    @cached_property
    def judged_blocks(self):
        """(query, score) of every tie block that may hold a judgement."""
        hit = ~np.isnan(self.j_scores)
        scores = self.j_scores[hit].tolist()
        return set(zip(self.j_codes[hit].tolist(), scores, strict=True))

    def descending(self, rows):
        """The tiebreak of tied rows (whole tie blocks): docno descending in
        byte order, as the file path ranks its tokens.

        Only the blocks that hold a retrieved judgement are ordered by
        docno (their docnos read); the others keep their rows' order: every
        row of such a block is unjudged, so that any order of them gives
        each rank the same relevance value, and each measure the same value.
        """
        queries = np.searchsorted(self.starts, rows, side="right") - 1
        pairs = zip(queries.tolist(), self.scores[rows].tolist(), strict=True)
        judged = np.fromiter(
            map(self.judged_blocks.__contains__, pairs), dtype=bool, count=len(rows)
        )
        key = np.zeros(rows.shape[0], dtype=np.int64)
        at = np.flatnonzero(judged)
        if at.shape[0]:
            key[at] = _byte_rank(self.of(rows[at]))
            np.negative(key, out=key)
        return key


def _byte_rank(docnos):
    """The rank of each of ``docnos`` (a list of str) in byte order, as
    ``strcmp`` orders them: the one rule of both rankings of tied rows
    (counted, :func:`_ranks`; sorted, :meth:`_Docnos.descending`)."""
    return Tokens.from_strings(np.array(docnos, dtype=str)).byte_rank()


def _placed(ordered, j_codes, j_scores, j_raw, j_docnos, docnos):
    """trec_eval's relevance value of each ranked row (-1 unjudged, the
    level, -2 for a negative level): each retrieved judgement placed at its
    row, found by its score among its query's ranked scores (and by its
    docno, ``j_docnos(judgements)``, among tied scores); and the ranked
    rows of the retrieved judgements, and these judgements (indices)."""
    raw = np.full(ordered.order.shape[0], -1, dtype=np.int64)
    hit = np.flatnonzero(~np.isnan(j_scores))
    if not hit.shape[0]:
        return raw, hit, hit
    q, s = j_codes[hit], j_scores[hit]
    ranked = ordered.scores
    starts = ordered.starts
    # The first row of the query scored at most s (scores descend in a
    # query): a binary search in every query's rows at once.
    first = _search(ranked, starts[q], starts[q + 1], s, strict=False)
    after = _search(ranked, first, starts[q + 1], s, strict=True)
    at = first.copy()
    tied = np.flatnonzero(after - first > 1)
    if tied.shape[0]:  # among equal scores, by docno (the ranking's order)
        # The docnos of every tied block holding a judgement, each compared
        # with its judgement's docno: one match per block (a dict's keys
        # are distinct), at the judgement's row.
        lo, sizes = first[tied], after[tied] - first[tied]
        blocks = np.array(docnos.of(ordered.order[_ranges(lo, sizes)]), dtype=object)
        wanted = np.empty(tied.shape[0], dtype=object)
        wanted[:] = j_docnos(hit[tied])
        match = np.flatnonzero(blocks == np.repeat(wanted, sizes))
        at[tied] = lo + (match - _starts(sizes)[:-1])
    labels = j_raw[hit]
    raw[at] = np.where(labels >= 0, labels, -2)
    return raw, at, hit


def _search(values, lo, hi, x, *, strict):
    """For each i, the first index in ``[lo[i], hi[i])`` where the
    descending ``values`` are ``< x[i]`` (``strict``) or ``<= x[i]``."""
    lo, hi = lo.copy(), hi.copy()
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        value = values[np.minimum(mid, values.shape[0] - 1)]
        right = open_ & ((value >= x) if strict else (value > x))
        left = open_ & ~right
        lo[right] = mid[right] + 1
        hi[left] = mid[left]
