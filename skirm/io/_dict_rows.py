"""Qrels and runs held as ``{qid: {docid: value}}``, read as they are.

pytrec_eval's users hold their qrels and runs as dicts of dicts, and their
inner dicts already are the join's index. So a run is neither turned into
string columns nor hashed: its scores are read straight into an array (C
iterators over the dicts, no Python loop over queries or rows), and each
*judgement* is looked up in its query's run dict (the score of the judged
docno, if retrieved): qrels hold a few judgements per query where runs hold
many documents, so the look-ups are per judgement, not per run row. Both
are done a block of queries at a time (:data:`BLOCK_ROWS`), while the
block's dicts are in the cache. This is
the dicts' door into the joined rows (:func:`read_run_dicts`), the qrels'
dicts indexed once (:class:`DictIndex`, kept by a ``RelevanceEvaluator``
across its runs). Docnos are read only where the ranking asks for them
(:class:`DocnoRows`): to order tied scores of a block that holds a retrieved
judgement.

Each reader returns :data:`NOT_PLAIN` (or None) where its input is not
plainly ``{str: {str: number}}``; the caller then reads it as records,
whose messages say what is wrong.
"""

from __future__ import annotations

import numbers
from itertools import chain, compress, pairwise, repeat, starmap
from operator import attrgetter, contains, countOf, itemgetter
from typing import Any, NamedTuple

import numpy as np

from skirm._lazy import cached_property
from skirm.io._keys import ranges, search_ascending
from skirm.io._tokens import Tokens

__all__ = [
    "NOT_PLAIN",
    "DictIndex",
    "DictRows",
    "DocnoRows",
    "PlainQrels",
    "byte_rank",
    "dict_values",
    "plain_dicts",
    "plain_docnos",
    "plain_qrels",
    "plain_score_types",
    "plain_scores",
    "query_blocks",
    "read_run_dicts",
]

#: What a reader returns for an input that is not plain dicts.
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
        and _no_nul((obj,))
    )


def _no_nul(parts) -> bool:
    """Whether no key of ``parts`` (collections of str keys) holds a NUL
    character: each part's keys joined and searched in C, without a list of
    every key (a key that is not a str raises TypeError). Ids that end with
    NULs are those ids without them (numpy's rule for strings, which the
    general path follows): such dicts take it."""
    return not any(map(contains, map("".join, parts), repeat("\x00")))


#: The docnos of a block of run dicts are joined dict by dict where the
#: dicts hold this many docnos or more on average, all at once otherwise: a
#: join per dict costs a list of its keys, a join of all the keys a list of
#: them. (Measured on 1M docnos, ms, per dict against all at once: dicts of
#: 5 56 / 27, of 20 23 / 21, of 30 20 / 21, of 100 18 / 20.)
JOIN_EACH = 25


def _no_nul_keys(dicts, n) -> bool:
    """:func:`_no_nul` of ``dicts``, which hold ``n`` keys in all: joined
    dict by dict or all at once, whichever is cheaper (:data:`JOIN_EACH`)."""
    if n >= JOIN_EACH * len(dicts):
        return _no_nul(dicts)
    return _no_nul((chain.from_iterable(dicts),))


#: The score types read as they are (a bool is an int; numpy's scalars and
#: other reals, a ``Fraction``, as their float value): numpy's conversion
#: of such a column to float64 gives each the value ``float(x)`` gives, as
#: the general path reads a real.
_PYTHON_SCORES = frozenset((float, int, bool))
_NUMPY_SCORES = (np.floating, np.integer, np.bool_, numbers.Real)


def plain_score_types(dicts, n) -> bool:
    """Whether the ``n`` values of ``dicts`` are real numbers of the types
    numpy and ``float`` read alike (a str is not: numpy would read ``"1.5"``
    as a number). The one type check of the scores of every dicts reader.

    The usual scores are checked by their sum from ``0.0``, a float only
    where each value is a float, an int or a bool, or a number whose sum with
    a float is a float (a ``Fraction``, which numpy reads as ``float(x)``,
    as the general path does); a str, None, a ``Decimal`` or an int past a
    double raise, and numpy's scalars and 0-d arrays give numpy's types.
    Python's ``sum`` of floats takes half the time of a look at each
    value's type."""
    try:
        total = sum(chain.from_iterable(map(dict.values, dicts)), 0.0)
    except Exception:  # whatever the addition of a value raises
        total = None
    if type(total) is float:
        return True
    kinds = set(map(type, chain.from_iterable(map(dict.values, dicts))))
    return all(k in _PYTHON_SCORES or issubclass(k, _NUMPY_SCORES) for k in kinds)


def dict_values(dicts, n) -> np.ndarray:
    """The ``n`` values of ``dicts``, one after another, as float64 (numpy's
    errors for a value it cannot convert)."""
    return np.fromiter(
        chain.from_iterable(map(dict.values, dicts)), dtype=np.float64, count=n
    )


def plain_scores(dicts, n) -> np.ndarray | None:
    """The ``n`` values of ``dicts`` as float64 (:func:`dict_values`), when
    :func:`plain_score_types` takes them and none is NaN or past a double;
    else None: the general path reads such scores and says what is
    wrong."""
    if not plain_score_types(dicts, n):
        return None
    try:
        scores = dict_values(dicts, n)
    except (TypeError, ValueError, OverflowError):
        return None
    return None if np.isnan(scores).any() else scores


#: The types of a label the dicts hold as they are (bool is an int); each
#: must fit a C long, as trec_eval reads them.
_LABELS = {int, bool}


class PlainQrels(NamedTuple):
    """Qrels dicts as :func:`plain_qrels` reads them: the dicts, their largest
    label (0 if none is positive) and their labels in the dicts' order."""

    dicts: dict | None
    max_label: float
    labels: np.ndarray | None


_NOT_PLAIN_QRELS = PlainQrels(None, 0.0, None)


def plain_qrels(
    qrels: Any, *, copy: bool = True, check_docnos: bool = True
) -> PlainQrels:
    """``qrels`` (each dict copied with ``copy``, as pytrec_eval copies them)
    when they are plain dicts of str query ids and docnos and integer labels
    of 64 bits, without the queries whose dict is empty (no judgement: not a
    topic), with their largest label and their labels as int64 (read once,
    for :class:`DictIndex`); no dicts for any other shape, which the caller
    reads as :class:`~skirm.io.Qrels` (and whose messages say what is
    wrong).

    Without ``check_docnos``, the docnos are left for the caller to check
    (:func:`plain_docnos`): a run evaluated once checks them only where it
    does not retrieve them all (a docno it retrieves is one of its own,
    checked as the run is read)."""
    if not plain_dicts(qrels) or not qrels:
        return _NOT_PLAIN_QRELS
    # the labels and the docnos gathered once each (a pass over many small
    # dicts costs more than the checks that follow it over a list)
    values = list(chain.from_iterable(map(dict.values, qrels.values())))
    n = len(values)
    if not n:
        return _NOT_PLAIN_QRELS
    # the usual labels, ints and bools, by their sum (an int only then, or
    # where a value's addition to an int gives one); else a set of their
    # types
    try:
        total = sum(values)
    except Exception:  # whatever the addition of a value raises
        total = None
    if type(total) is not int and not set(map(type, values)) <= _LABELS:
        return _NOT_PLAIN_QRELS
    try:
        labels = np.fromiter(values, np.int64, count=n)
    except OverflowError:
        return _NOT_PLAIN_QRELS  # past 64 bits: the general path says which
    del values
    if check_docnos and not plain_docnos(qrels.values()):
        return _NOT_PLAIN_QRELS
    max_label = max(float(np.max(labels)), 0.0)
    if not copy and all(qrels.values()):  # no empty dict to leave out
        return PlainQrels(qrels, max_label, labels)
    inner = map(dict, qrels.values()) if copy else qrels.values()
    kept = dict(filter(itemgetter(1), zip(qrels, inner, strict=True)))
    return PlainQrels(kept, max_label, labels)


def plain_docnos(dicts) -> bool:
    """Whether the keys of ``dicts`` (the judged dicts of qrels) are str
    without a NUL character (:func:`_no_nul`)."""
    docnos = list(chain.from_iterable(dicts))
    try:  # the docnos joined: a docno that is not a str raises
        return _no_nul((docnos,))
    except TypeError:
        return False


#: A block of queries is read by getters where its queries hold this many
#: judgements or more on average: a getter costs about as much to build as
#: it saves on 9 look-ups (measured in fresh processes: 8 ms for 10,000
#: getters, 9 ms saved on 100,000 look-ups). Built for 50,000 queries judged
#: twice, they made the first run 0.26 -> 0.29 s, or, built when a second
#: run asked, that run 0.162 -> 0.186 s.
GETTER_JUDGED = 9


class DictIndex:
    """The index of checked qrels dicts (:func:`plain_qrels`), built once
    for every run evaluated against them: their queries in order, the judged
    dicts of each and the labels of the judgements as an array."""

    def __init__(
        self, judged: dict, labels: np.ndarray | None = None, many_runs: bool = False
    ) -> None:
        names, given = list(judged), list(judged.values())
        ids = np.array(names, dtype=str)
        order = np.argsort(ids, kind="stable")
        #: the query ids as the qrels name them, and the place of each among
        #: them in code point order
        self.given, self.order = names, order
        #: the query ids in code point order, and each one's judged dict
        self.ids = ids[order]
        self.dicts = list(map(given.__getitem__, order.tolist()))
        self.sizes = np.fromiter(map(len, self.dicts), np.intp, count=len(names))
        self.starts = _starts(self.sizes)
        n = int(self.starts[-1])
        if labels is None:  # checked integers of 64 bits
            labels = np.fromiter(
                chain.from_iterable(map(dict.values, self.dicts)), np.int64, count=n
            )
        elif (order[1:] < order[:-1]).any():  # the labels in the dicts' order
            first = _starts(self.sizes[np.argsort(order)])[:-1][order]
            labels = labels[ranges(first, self.sizes)]
        self.labels = labels
        self.codes = np.repeat(np.arange(len(names), dtype=np.intp), self.sizes)
        #: for an index that serves several runs, the getters of the judged
        #: docnos of each query (:meth:`getters`) and whether each is built
        #: yet: runs look their judged docnos up a query at a time. (Measured
        #: on 10,000 pooled queries in fresh processes: the getters cost 8
        #: ms to build, and save about 9 ms of each run's reading.)
        self._lookups = None
        #: what the evaluation of a run that evaluates every judged query
        #: keeps for the next such run (the values of the judgements alone)
        self.run_cache: dict = {}
        if many_runs:
            n = len(names)
            self._lookups = np.zeros(n, dtype=bool), np.empty(n, dtype=object)

    @cached_property
    def names(self):
        """The query ids in code point order (a list)."""
        return list(map(self.given.__getitem__, self.order.tolist()))

    @cached_property
    def position(self):
        """Each query id's place in code point order (a dict)."""
        return dict(zip(self.names, range(len(self.names)), strict=True))

    def places(self, run):
        """``(at, kept)`` of the run dict ``run`` (plain dicts): the places
        (in code point order) of its judged queries with documents, sorted,
        and each one's place among the run's queries with documents; ``at``
        empty when there is none. A run that names the qrels' queries in the
        qrels' order, each with documents (as runs made from the qrels'
        topics do), is placed by the index's own order, with no look-up."""
        if all(run.values()) and list(run) == self.given:
            return np.arange(self.order.shape[0]), self.order
        at = np.fromiter(
            map(self.position.get, compress(run, run.values()), repeat(-1)),
            np.intp,
        )
        kept = np.flatnonzero(at >= 0)
        kept = kept[np.argsort(at[kept])]
        return at[kept], kept

    def of(self, at):
        """``(dicts, sizes, labels, codes, docnos)`` of the queries at ``at``
        (sorted positions): the judgements of those queries, in order, and
        a function of judgements (their indices) that gives their docnos."""
        if at.shape[0] == len(self.dicts):  # every judged query: as indexed
            return self.dicts, self.sizes, self.labels, self.codes, self._docnos
        sizes = self.sizes[at]
        rows = ranges(self.starts[at], sizes)
        codes = np.repeat(np.arange(at.shape[0], dtype=np.intp), sizes)
        dicts = list(map(self.dicts.__getitem__, at.tolist()))

        def docnos(judgements):
            return self._docnos(rows[judgements])

        return dicts, sizes, self.labels[rows], codes, docnos

    def getters(self, at):
        """A function of a block ``a:b`` of the queries at ``at`` (sorted
        positions) that gives their getters (:func:`_getters`), each built
        when first asked for and kept for the runs after; None unless the
        index serves several runs."""
        if self._lookups is None:
            return None
        built, getters = self._lookups  # a getter marked built once in place

        def block(a, b):
            rows = at[a:b]
            if self.sizes[rows].mean() < GETTER_JUDGED:
                return None  # few judgements a query: each looked up alone
            todo = rows[~built[rows]]
            if todo.shape[0]:
                dicts = list(map(self.dicts.__getitem__, todo.tolist()))
                getters[todo] = _getters(dicts, self.sizes[todo])
                built[todo] = True
            return getters[rows].tolist()

        return block

    def _docnos(self, rows):
        """The docnos of the judgements ``rows`` (indices), a list; the judged
        docnos of a query are read once, when one of them is first asked for."""
        keys = self.__dict__.get("_keys")
        if keys is None:
            keys = self._keys = _Keys(self.dicts, self.starts)
        return keys.of(rows)


class DictRows(NamedTuple):
    """A run held as dicts joined to a :class:`DictIndex`: the evaluated
    queries (sorted), their rows (query ``c`` at ``starts[c]:starts[c +
    1]``, in each dict's order) and scores; every judgement of those queries
    (query codes, labels, the score of its docno in the run, NaN if not
    retrieved) and its docno (``j_docnos(judgements)``); the run's docnos
    (:class:`DocnoRows`)."""

    eval_ids: np.ndarray
    starts: np.ndarray
    scores: np.ndarray
    j_codes: np.ndarray
    j_raw: np.ndarray
    j_scores: np.ndarray
    j_docnos: Any
    docnos: DocnoRows


def read_run_dicts(index, run, floats=False, plain=False):
    """The :class:`DictRows` of a ``run`` dict against ``index`` (a
    :class:`DictIndex`), scores read as C floats with ``floats`` (as
    trec_eval 9.0.x holds them); None when none of the run's queries with
    documents is judged; :data:`NOT_PLAIN` when ``run`` is not dicts of str
    docnos and numeric scores (``plain``: known to be :func:`plain_dicts`)."""
    if not plain and not plain_dicts(run):
        return NOT_PLAIN
    # The judged queries with documents, by their place among the qrels'.
    at, kept = index.places(run)
    if not at.shape[0]:
        return None
    docs = list(compress(run.values(), run.values()))
    # every judged query: their ids as indexed, already in the narrowest dtype
    every = at.shape[0] == index.ids.shape[0]
    eval_ids = index.ids if every else _narrowest(index.ids[at])
    inner = list(map(docs.__getitem__, kept.tolist()))
    sizes = np.fromiter(map(len, inner), dtype=np.intp, count=len(inner))
    judged, j_sizes, j_raw, j_codes, j_docnos = index.of(at)
    starts = _starts(sizes)
    read = _read_blocks(inner, judged, starts, _starts(j_sizes), index.getters(at))
    if read is None:
        return NOT_PLAIN
    scores, j_scores = read
    if floats:  # as trec_eval 9.0.x holds scores: C floats
        with np.errstate(over="ignore"):
            scores, j_scores = scores.astype(np.float32), j_scores.astype(np.float32)
    docnos = DocnoRows(inner, starts, scores, j_codes, j_scores)
    return DictRows(
        eval_ids, starts, scores, j_codes, j_raw, j_scores, j_docnos, docnos
    )


#: The run's queries are read in blocks of about this many rows: a block's
#: docnos, scores and dict entries, visited by the checks and the reading of
#: the scores, are still in the cache when its judgements are looked up in
#: its dicts. (Measured on 10,000 queries x 100 documents, ten judged per
#: query, CPU time: the reading took 105-108 ms in one pass, 72-75 ms in
#: blocks of 4,096 to 16,384 rows, 80-83 ms in blocks of 65,536.)
BLOCK_ROWS = 16_384


def _read_blocks(inner, judged, starts, j_starts, getters):
    """``(scores, j_scores)``: the scores of the run dicts ``inner`` (rows
    ``starts``), and the score of each docno of the judged dicts ``judged``
    (one per run dict, judgements ``j_starts``) in its query's run dict
    (NaN if not retrieved), read a block of queries at a time; None when a
    block is not dicts of str docnos and numeric scores. ``getters`` are
    the judged dicts' :meth:`DictIndex.getters` (or None): asked for each
    block while the first block's judged docnos were all retrieved (the
    pooled judgements most runs are evaluated against), not otherwise."""
    scores, j_scores = np.empty(int(starts[-1])), np.empty(int(j_starts[-1]))
    for i, (a, b) in enumerate(query_blocks(starts, BLOCK_ROWS)):
        part = inner[a:b]
        lo, hi = int(starts[a]), int(starts[b])
        try:
            plain = _no_nul_keys(part, hi - lo)  # str docnos (a join refuses others)
        except TypeError:
            plain = False
        read = plain_scores(part, hi - lo) if plain else None
        if read is None:
            return None
        scores[lo:hi] = read
        j_lo, j_hi = int(j_starts[a]), int(j_starts[b])
        these = None if getters is None else getters(a, b)
        j_scores[j_lo:j_hi], all_retrieved = _judged_scores(
            part, judged[a:b], these, j_starts[a : b + 1] - j_lo
        )
        if i == 0 and not all_retrieved:
            getters = None  # judgements a run does not retrieve: one by one
    return scores, j_scores


def _getters(dicts, sizes):
    """Per judged dict, ``itemgetter`` of its docnos: the scores of them
    all in a run dict, a tuple (a dict of one docno: it twice, a pair);
    ``KeyError`` if one is not retrieved."""
    getters = np.empty(len(dicts), dtype=object)
    getters[:] = list(starmap(itemgetter, dicts))
    once = np.flatnonzero(sizes == 1)
    if once.shape[0]:
        docnos = list(map(next, map(iter, map(dicts.__getitem__, once.tolist()))))
        getters[once] = list(map(itemgetter, docnos, docnos))
    return getters


def _judged_scores(part, judged, getters, j_starts):
    """The score of each docno of the judged dicts ``judged`` (judgements
    ``j_starts``) in its query's run dict of ``part``, NaN if not retrieved,
    and whether every one is retrieved: each query's at
    once by its getter (:meth:`DictIndex.getters`, unless None) where every
    judged docno of the block is retrieved, else each docno by the dict's
    ``get`` (None, read as NaN)."""
    n = int(j_starts[-1])
    if getters is not None:
        once = j_starts[1:] - j_starts[:-1] == 1  # read twice by their getters
        n_once = int(np.count_nonzero(once))
        try:
            got = np.fromiter(
                chain.from_iterable(map(itemgetter.__call__, getters, part)),
                dtype=np.float64,
                count=n + n_once,
            )
        except KeyError:  # a judged docno not retrieved
            pass
        else:
            if n_once:  # the second of each pair read for a query judged once
                keep = np.ones(n + n_once, dtype=bool)
                keep[j_starts[:-1][once] + np.arange(1, n_once + 1)] = False
                got = got[keep]
            return got, True
    each = np.fromiter(
        chain.from_iterable(map(map, map(attrgetter("get"), part), judged)),
        dtype=np.float64,
        count=n,
    )
    return each, getters is None and not np.isnan(each).any()


def _narrowest(ids):
    """A str array ``ids`` in the narrowest dtype that holds them, as
    ``np.array`` of their strings gives."""
    width = int(np.strings.str_len(ids).max()) if ids.shape[0] else 0
    return ids.astype(f"<U{max(width, 1)}", copy=False)


def query_blocks(starts, rows):
    """``(first, end)`` of consecutive blocks of queries of about ``rows``
    rows each (query ``q`` at rows ``starts[q]:starts[q + 1]``); a query of
    more rows is a block of its own."""
    n = int(starts[-1])
    # the query of every rows-th row: where a block begins
    firsts = np.searchsorted(starts, np.arange(0, n, rows), side="right") - 1
    bounds = [*firsts.tolist(), starts.shape[0] - 1]
    return [(a, b) for a, b in pairwise(bounds) if a < b]


def _starts(sizes):
    """Where each of the consecutive parts of ``sizes`` starts, and the end."""
    return np.concatenate([np.zeros(1, dtype=np.intp), np.cumsum(sizes, dtype=np.intp)])


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


class DocnoRows(_Keys):
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
        """``(codes, scores)`` of every tie block that may hold a retrieved
        judgement, sorted by query, then score."""
        hit = ~np.isnan(self.j_scores)
        codes, scores = self.j_codes[hit], self.j_scores[hit]
        order = np.lexsort((scores, codes))
        return codes[order], scores[order]

    def descending(self, rows):
        """The tiebreak of tied rows (whole tie blocks): docno descending in
        byte order, as the file path ranks its tokens.

        Only the blocks that hold a retrieved judgement are ordered by
        docno (their docnos read); the others keep their rows' order: every
        row of such a block is unjudged, so that any order of them gives
        each rank the same relevance value, and each measure the same value.
        """
        queries = np.searchsorted(self.starts, rows, side="right") - 1
        j_codes, j_scores = self.judged_blocks
        # each row's (query, score) looked up among the judged blocks':
        # the first judged block of its query at or after its score
        lo = np.searchsorted(j_codes, queries, side="left")
        hi = np.searchsorted(j_codes, queries, side="right")
        scores = self.scores[rows]
        found = np.zeros(rows.shape[0], dtype=bool)
        some = np.flatnonzero(lo < hi)
        if some.shape[0]:
            at = search_ascending(j_scores, lo[some], hi[some], scores[some])
            inside = at < hi[some]
            at = np.minimum(at, j_scores.shape[0] - 1)
            found[some] = inside & (j_scores[at] == scores[some])
        key = np.zeros(rows.shape[0], dtype=np.int64)
        at = np.flatnonzero(found)
        if at.shape[0]:
            key[at] = byte_rank(self.of(rows[at]))
            np.negative(key, out=key)
        return key


def byte_rank(docnos):
    """The rank of each of ``docnos`` (a list of str) in byte order, as
    ``strcmp`` orders them: the one rule of both rankings of tied rows
    (counted and sorted)."""
    return Tokens.from_strings(np.array(docnos, dtype=str)).byte_rank()
