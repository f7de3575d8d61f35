"""The join of a run to its judgements: the qrels index and the joined rows.

The qrels are indexed once (:class:`QrelsIndex`, kept with the
:class:`~skirm.io.Qrels` for every run evaluated against them:
:func:`index_of`), which keeps every fact of the qrels the later stages
need (topics, labels, the largest label, the relevant count); every block
of run rows (a :class:`~skirm.io.Run`) is then joined to it on its own:
:func:`join` gives each row its trec_eval relevance value (the joined rows
the ranking reads), :func:`judged_rows` the judging row of judgements that
hold a docno more than once per query (subtopics, judgment groups). Rows
are matched to judgements on a 64-bit hash of (query, docno) and every
match is verified byte for byte; when two judgements share a hash, blocks
are joined on the strings. A docno twice in an evaluated query is found by
the one duplicate finder (:func:`block_repeat`) and told by line
(:func:`duplicate_error`), as trec_eval stops on it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from skirm._errors import DuplicateDocnoError
from skirm._validation import repeated_pairs
from skirm.io._hashed_codes import equal_hashed
from skirm.io._keys import (
    _MAX_PADDING,
    SortedKeys,
    any_equal,
    any_equal_in_runs,
    code_runs,
    offset_dtype,
)
from skirm.io._tokens import first_duplicate, mix, mix_into


class QrelsIndex:
    """The judgements grouped by topic, with sorted (topic, docno) keys.

    The per-judgement arrays of the qrels (topic codes, labels, docnos) are
    shared with them, in their own row order, not copied: the index adds the
    rows grouped by topic and the sorted keys.

    Parameters
    ----------
    qrels : Qrels
        The qrels (their tokens: read from a file, or built once).

    Attributes
    ----------
    topic_ids : ndarray of str
        Sorted distinct topics of the qrels.
    n_topics : int
        Their number.
    codes, labels : ndarray
        Topic code and label of each qrels row.
    rows, topic_start : ndarray
        The qrels rows grouped by topic (in qrels order within a topic), and
        where each topic's rows start in ``rows``.
    docs : Tokens
        The qrels' docnos.
    keys, key_rows : SortedKeys, ndarray
        The sorted (topic, docno) hashes and the qrels row of each.
    hashes : ndarray of uint64
        The hash of each qrels row's docno.
    """

    def __init__(self, qrels):
        _, d = qrels._tokens()
        # the per-judgement arrays the index adds are int32 when the qrels
        # allow: they are most of its memory
        small = offset_dtype(len(d))
        codes, self.topic_ids = qrels._query_codes()
        self.codes = codes.astype(small, copy=False)
        del codes
        self.labels = qrels.labels
        #: the type of the relevance values of rows joined to these qrels
        self.raw_type = raw_type(self.labels)
        self.n_topics = int(self.topic_ids.shape[0])
        rows = np.argsort(self.codes, kind="stable")
        self.rows = rows.astype(small)
        del rows
        self.topic_start = np.zeros(self.n_topics + 1, dtype=np.int64)
        np.cumsum(
            np.bincount(self.codes, minlength=self.n_topics),
            out=self.topic_start[1:],
        )
        # the docnos' hashes, kept for the joins by query (_lines_join)
        self.hashes = d.hash(cache=False)
        keys = self.hashes.copy()
        mix_into(keys, self.codes)
        self.docs = d
        # the copies of a repeated judgement in qrels order (a stable sort),
        # so that the first repeat found is the second copy; most qrels
        # repeat no key, and a plain sort of them is twice as fast
        key_rows = np.argsort(keys)
        ordered = keys[key_rows]
        if (ordered[1:] == ordered[:-1]).any():
            key_rows = np.argsort(keys, kind="stable")
            ordered = keys[key_rows]
        self.key_rows = key_rows.astype(small)
        del key_rows
        keys = ordered
        self.keys = SortedKeys(keys)
        self._doc_strings = None
        # for messages; the query tokens are not kept (the topics' codes and
        # ids name a query)
        self._lines, self._name = qrels._lines, qrels._source
        self._find_duplicates(np.flatnonzero(keys[1:] == keys[:-1]))

    def _find_duplicates(self, same):
        """Judgements repeated in a topic, and whether distinct judgements
        share a key (then joins compare strings). ``dup_topics`` (sorted
        codes) and ``dup_pairs`` (the qrels rows of two copies) are kept."""
        a, b = self.key_rows[same], self.key_rows[same + 1]
        docs = self.docs
        truly = (self.codes[a] == self.codes[b]) & docs.equal(a, docs, b)
        self.collision = not truly.all()
        if self.collision:  # decide on the strings
            _, d_codes = np.unique(self.doc_strings(), return_inverse=True)
            a, b = repeated_pairs(self.codes, d_codes.reshape(-1))
        else:
            a, b = a[truly], b[truly]
        topics = self.codes[a]
        first, second = np.minimum(a, b), np.maximum(a, b)  # rows of the qrels
        o = np.lexsort((second, topics))  # per topic, the earliest repeat
        new = np.ones(o.shape[0], dtype=bool)
        new[1:] = topics[o[1:]] != topics[o[:-1]]
        self.dup_topics = topics[o][new]
        self.dup_pairs = np.stack([first[o][new], second[o][new]], axis=1)

    def check_duplicates(self, topics):
        """Raise for the first docno repeated in one of ``topics`` (codes),
        as trec_eval does for the topics it evaluates."""
        if not self.dup_topics.shape[0]:
            return
        hit = np.isin(self.dup_topics, topics)
        if hit.any():
            pairs, topics = self.dup_pairs[hit], self.dup_topics[hit]
            k = int(np.argmin(pairs[:, 1]))
            query = str(self.topic_ids[topics[k]])
            raise duplicate_error(
                query,
                self.docs,
                pairs[k].tolist(),
                self._lines,
                self._name,
                "the qrels",
            )

    def topics(self, ids):
        """Topic code of each id in ``ids`` (sorted str), -1 if absent."""
        pos = np.searchsorted(self.topic_ids, ids)
        inside = pos < self.n_topics
        found = np.zeros(ids.shape[0], dtype=bool)
        found[inside] = self.topic_ids[pos[inside]] == ids[inside]
        return np.where(found, pos, -1)

    def absent_topics(self, parts):
        """The topics (sorted str) in none of ``parts`` (arrays of sorted
        distinct ids). Unlike :func:`numpy.setdiff1d`, a plain
        ``numpy.unique`` is not called: it imports ``numpy.ma``, a cost a
        small evaluation notices."""
        seen = np.zeros(self.n_topics, dtype=bool)
        for ids in parts:
            codes = self.topics(ids)
            seen[codes[codes >= 0]] = True
        return self.topic_ids[~seen]

    def judgments(self, topics):
        """The qrels rows of the judgements of ``topics`` (codes), topic by
        topic, and each one's index into ``topics``."""
        lo, hi = self.topic_start[topics], self.topic_start[topics + 1]
        sizes = hi - lo
        which = np.repeat(np.arange(topics.shape[0]), sizes)
        offset = lo - (np.cumsum(sizes) - sizes)
        at = np.arange(which.shape[0]) + np.repeat(offset, sizes)
        return self.rows[at], which

    def max_label(self) -> float:
        """The largest label of the qrels, 0 if none is positive (the
        ``max_grade`` of ERR's default gains)."""
        return max(float(np.max(self.labels)), 0.0)

    def n_relevant(self) -> int:
        """The judgements with a positive label, over every topic."""
        return int(np.count_nonzero(self.labels > 0))

    def first_rows(self):
        """Per qrels row, the first row of the qrels with its topic and
        docno (itself, unless the qrels judge the docno again: by subtopic,
        by judgment group)."""
        if self.collision:  # decide on the strings
            _, d_codes = np.unique(self.doc_strings(), return_inverse=True)
            key = self.codes.astype(np.int64) * max(len(self.docs), 1)
            key += d_codes.reshape(-1)
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            return first[inverse.reshape(-1)]
        keys = self.keys.keys
        start = np.zeros(keys.shape[0], dtype=np.int64)
        new = np.flatnonzero(keys[1:] != keys[:-1]) + 1
        start[new] = new
        np.maximum.accumulate(start, out=start)
        first = np.empty(keys.shape[0], dtype=np.int64)
        first[self.key_rows] = self.key_rows[start]
        return first

    def doc_strings(self):
        """The docno of each qrels row, as str (built once)."""
        if self._doc_strings is None:
            self._doc_strings = self.docs.strings()
        return self._doc_strings


def index_of(qrels):
    """The :class:`QrelsIndex` of ``qrels`` (a :class:`~skirm.io.Qrels`),
    built once and kept with them: every run evaluated against the same
    qrels (the runs of ``skirm eval`` and ``skirm compare``, of a
    ``RelevanceEvaluator``, of calls of ``evaluate_run`` given the same
    :class:`~skirm.io.Qrels`) is joined to one index."""
    index = qrels.__dict__.get("_index")
    if index is None:
        index = qrels.__dict__["_index"] = QrelsIndex(qrels)
    return index


class Joined(NamedTuple):
    """A block of run rows joined to the qrels.

    ``keep`` are the block's rows whose query is in the qrels, ``codes`` their
    query's index into ``eval_ids`` (sorted), ``raw`` their trec_eval
    relevance value (the qrels level if >= 0, -1 if not in the qrels, -2 if
    judged with a negative level); ``j_codes``, ``j_raw`` every judgement of
    the evaluated queries; ``repeats`` whether a docno may repeat in a query
    (two kept rows of one query share a docno hash: False is sure, True is
    verified on the bytes by :func:`block_repeat`).
    """

    eval_ids: np.ndarray
    keep: np.ndarray
    codes: np.ndarray
    raw: np.ndarray
    j_codes: np.ndarray
    j_raw: np.ndarray
    repeats: bool


def join(index, block):
    """:class:`Joined` rows of a run block (every row of its queries): by
    query (:func:`_lines_join`) where the rows are grouped by query, else
    through the sorted keys of the qrels, :data:`JOIN_ROWS` rows at a time."""
    eval_ids, keep, codes, topics = _kept(index, block)
    index.check_duplicates(topics)
    j_rows, j_codes = index.judgments(topics)
    j_raw = index.labels[j_rows]
    hashes = block._d.hash(cache=False)
    if keep.shape[0] != len(block):
        hashes = hashes[keep]
    n_eval = int(eval_ids.shape[0])
    # the rows' runs of one query, if each query's rows are one run (once,
    # for the join by query and the repeat check)
    runs = code_runs(codes, n_eval) if codes.shape[0] > 1 else None
    if index.collision:
        raw = _raw_by_strings(index, block, keep, codes, topics, j_rows, j_codes)
    else:
        lines = _lines_join(
            index, block, keep, codes, hashes, j_rows, j_codes, n_eval, runs
        )
        if lines is not None:
            at, judged, repeats = lines
            raw = _raw(keep.shape[0], at, index.labels[judged], index.raw_type)
            return Joined(eval_ids, keep, codes, raw, j_codes, j_raw, repeats)
        raw = _raw_by_keys(index, block, keep, codes, topics, hashes)
    found = any_equal_in_runs(hashes, runs) if runs is not None else None
    if found is None:
        found = any_equal(mix(hashes, codes))
    return Joined(eval_ids, keep, codes, raw, j_codes, j_raw, found)


def _lines_join(index, block, keep, codes, hashes, j_rows, j_codes, n_eval, runs):
    """``(at, judged, repeats)``: the kept rows that are judged (positions
    in ``keep``), the qrels row of each, and whether a docno may repeat in
    a query, for rows grouped by query in the ``runs`` (:func:`code_runs`)
    of the ``n_eval`` evaluated queries; None where they are not (``runs``
    None) or their queries differ too much in size, or three docnos of a
    query share their hash's high bits (then the keys join them).

    As the engine ranks: one line of a matrix per query, holding the
    hashes of the query's rows, then those of its judgements, each with
    its column in place of its low bits, padded with the largest key; each
    line sorted on its own (short, cache-resident sorts, no look-up of every
    row in a table of every judgement). A row and a judgement of equal high
    bits sort next to each other: a match once their hashes and bytes are
    equal. Two rows of equal high bits may repeat a docno.
    """
    if runs is None:
        return None
    sizes = np.diff(runs)
    line_codes = codes[runs[:-1]]
    j_starts = j_codes.searchsorted(np.arange(n_eval + 1))
    firsts = j_starts[line_codes]  # each line's first judgement
    filled = sizes + (j_starts[line_codes + 1] - firsts)
    n, n_lines, width = codes.shape[0], sizes.shape[0], int(filled.max())
    if width > 1 << 16 or n_lines * width > _MAX_PADDING * (n + j_rows.shape[0]) + 1024:
        return None
    low = np.uint64((1 << max((width - 1).bit_length(), 1)) - 1)
    lines = np.empty((n_lines, width), dtype=np.uint64)
    size = int(sizes[0])
    if int(sizes.min()) == int(sizes.max()):  # one size: the rows are a block
        np.bitwise_and(hashes.reshape(n_lines, size), ~low, out=lines[:, :size])
        lines[:, :size] |= np.arange(size, dtype=np.uint64)
        lines[:, size:] = np.iinfo(np.uint64).max
        lines = lines.reshape(-1)
    else:  # the rows at their column in their line
        lines = lines.reshape(-1)
        lines.fill(np.iinfo(np.uint64).max)
        col = np.arange(n, dtype=np.intp) - np.repeat(runs[:-1], sizes)
        at = np.repeat(np.arange(n_lines, dtype=np.intp) * width, sizes) + col
        lines[at] = (hashes & ~low) | col.astype(np.uint64)
        del at
    # the judgements: after their query's rows
    line_of = np.empty(n_eval, dtype=np.intp)
    line_of[line_codes] = np.arange(n_lines)
    line = line_of[j_codes]
    col = sizes[line] + np.arange(j_rows.shape[0]) - j_starts[j_codes]
    lines[line * width + col] = (index.hashes[j_rows] & ~low) | col.astype(np.uint64)
    del col, line
    lines = lines.reshape(n_lines, width)
    lines.sort(axis=1)
    # pairs of equal high bits (pads too, and a line's last key with the next
    # line's first), then those inside their line; the matrix read as one
    # contiguous line
    flat = lines.reshape(-1)
    pair = np.flatnonzero((flat[1:] ^ flat[:-1]) <= low)
    del flat
    line, pos = np.divmod(pair, width)
    inside = pos + 1 < filled[line]
    pair, line, pos = pair[inside], line[inside], pos[inside]
    if ((pair[1:] == pair[:-1] + 1) & (line[1:] == line[:-1])).any():  # three
        return None
    a = (lines[line, pos] & low).astype(np.intp)
    b = (lines[line, pos + 1] & low).astype(np.intp)
    del lines, pair, pos, inside
    size = sizes[line]
    repeats = bool((b < size).any())  # two rows (a < b)
    pair = np.flatnonzero((a < size) & (b >= size))  # a row, a judgement
    rows = runs[line[pair]] + a[pair]
    judged = j_rows[firsts[line[pair]] + b[pair] - size[pair]]
    same = np.flatnonzero(hashes[rows] == index.hashes[judged])
    rows, judged = rows[same], judged[same]
    same = equal_hashed(block._d, keep[rows], index.docs, judged)
    return rows[same], judged[same], repeats


def judged_rows(index, block):
    """``(eval_ids, keep, codes, judged)``: the rows of a run block whose
    query is a topic of the qrels (``keep``), the index of their query into
    the sorted ``eval_ids``, and the qrels row judging the docno of each
    (the first, where the qrels judge a docno several times, by subtopic or
    judgment group), -1 for a row not judged. The join of the relevance
    formats that judge a document more than once per query (subtopic
    judgments, preferences), where :func:`join` refuses a repeat."""
    eval_ids, keep, codes, topics = _kept(index, block)
    judged = np.full(keep.shape[0], -1, dtype=np.int64)
    if index.collision:
        j_rows, j_codes = index.judgments(topics)
        hit, rows = _matches_by_strings(index, block, keep, codes, j_rows, j_codes)
        judged[hit] = rows
        return eval_ids, keep, codes, judged
    hashes = block._d.hash(cache=False)
    if keep.shape[0] != len(block):
        hashes = hashes[keep]
    for at, rows in _matches_by_keys(index, block, keep, codes, topics, hashes):
        judged[at] = rows
    return eval_ids, keep, codes, judged


def _kept(index, block):
    """``(eval_ids, keep, codes, topics)``: the block's queries in the qrels
    (sorted), the block's rows of them, each one's index into ``eval_ids``,
    and the topic code of each evaluated query."""
    run_codes, run_ids = block._query_codes()
    topic_of = index.topics(run_ids)
    in_qrels = topic_of >= 0
    eval_ids = run_ids[in_qrels]
    eval_of = np.full(run_ids.shape[0], -1, dtype=np.int64)
    eval_of[in_qrels] = np.arange(eval_ids.shape[0])
    small = offset_dtype(len(block))
    if in_qrels.all():  # every row kept: no array of the rows' codes first
        keep = np.arange(len(block), dtype=small)
        codes = eval_of[run_codes]
    else:
        rows = eval_of[run_codes]
        keep = np.flatnonzero(rows >= 0).astype(small)
        codes = rows[keep]
        del rows
    return eval_ids, keep, codes, topic_of[in_qrels]


#: Kept rows looked up in the qrels keys at a time.
JOIN_ROWS = 1 << 18


def _raw_by_keys(index, block, keep, codes, topics, hashes):
    """Relevance values of the kept rows (``codes``: their index into the
    evaluated ``topics``; ``hashes``: their docnos' hashes) through the hashed
    keys, :data:`JOIN_ROWS` rows at a time: the temporaries of the look-up
    stay a few MB."""
    raw = np.full(keep.shape[0], -1, dtype=index.raw_type)
    for at, judged in _matches_by_keys(index, block, keep, codes, topics, hashes):
        _put(raw, at, index.labels[judged])
    return raw


def _matches_by_keys(index, block, keep, codes, topics, hashes):
    """``(at, judged)`` chunk by chunk: the kept rows (positions in ``keep``)
    that are judged, and the qrels row of each."""
    for lo in range(0, keep.shape[0], JOIN_ROWS):
        at = slice(lo, lo + JOIN_ROWS)
        rows = keep[at]
        row_topics = topics[codes[at]]
        found = index.keys.find(mix(hashes[at], row_topics))
        hit = np.flatnonzero(found >= 0)
        judged = index.key_rows[found[hit]]
        # A key equal by chance is no match: the judgement keys are distinct.
        same = (index.codes[judged] == row_topics[hit]) & block._d.equal(
            rows[hit], index.docs, judged
        )
        yield hit[same] + lo, judged[same]


def _raw_by_strings(index, block, keep, codes, topics, j_rows, j_codes):
    """Relevance values of the kept rows by comparing docno strings."""
    hit, judged = _matches_by_strings(index, block, keep, codes, j_rows, j_codes)
    return _raw(keep.shape[0], hit, index.labels[judged], index.raw_type)


def _matches_by_strings(index, block, keep, codes, j_rows, j_codes):
    """``(hit, judged)``: the kept rows that are judged (positions in
    ``keep``) and the qrels row of each, by comparing docno strings."""
    run_docs = block._d.take(keep).strings()
    doc_ids, dcodes = np.unique(run_docs, return_inverse=True)
    j_docs = index.doc_strings()[j_rows]
    dpos = np.searchsorted(doc_ids, j_docs)
    dpos_c = np.minimum(dpos, max(doc_ids.shape[0] - 1, 0))
    found = (dpos < doc_ids.shape[0]) & (doc_ids[dpos_c] == j_docs)
    n_docs = max(doc_ids.shape[0], 1)
    jkey = j_codes[found] * n_docs + dpos[found]
    jrow = j_rows[found]
    o = np.argsort(jkey, kind="stable")
    jkey, jrow = jkey[o], jrow[o]
    rkey = codes * n_docs + dcodes.reshape(-1)
    idx = np.searchsorted(jkey, rkey)
    idx_c = np.minimum(idx, max(jkey.shape[0] - 1, 0))
    hit = (idx < jkey.shape[0]) & (jkey[idx_c] == rkey if jkey.shape[0] else False)
    hit = np.flatnonzero(hit)
    return hit, jrow[idx_c[hit]]


def judgment_of_rows(index, block, keep, codes, eval_ids):
    """The judgement of each kept row of a joined block: its index into the
    evaluated queries' judgements (:meth:`QrelsIndex.judgments` of
    ``eval_ids``, in qrels order within a query), -1 for a row not judged.
    The join done again, for the measures that ask (Compat's ideal)."""
    topics = index.topics(eval_ids)
    j_rows, j_codes = index.judgments(topics)
    # qrels row -> its place among the evaluated judgements
    place = np.full(len(index.docs), -1, dtype=np.int64)
    place[j_rows] = np.arange(j_rows.shape[0])
    of = np.full(keep.shape[0], -1, dtype=np.int64)
    if index.collision:
        hit, judged = _matches_by_strings(index, block, keep, codes, j_rows, j_codes)
        of[hit] = place[judged]
        return of
    hashes = block._d.hash(cache=False)
    if keep.shape[0] != len(block):
        hashes = hashes[keep]
    for at, judged in _matches_by_keys(index, block, keep, codes, topics, hashes):
        of[at] = place[judged]
    return of


def _raw(n, hit, labels, dtype):
    """-1 everywhere, the label at ``hit`` (-2 for a negative label), in
    ``dtype`` (the index's :func:`raw_type`)."""
    raw = np.full(n, -1, dtype=dtype)
    _put(raw, hit, labels)
    return raw


def raw_type(labels):
    """The narrowest signed integer type of trec_eval's relevance values
    (-1 unjudged, -2 a negative level, else the level) of ``labels``: a
    byte a row where the levels are below 128 (every qrels in use), where
    int64 took eight."""
    top = int(labels.max(initial=0))
    for kind in (np.int8, np.int16, np.int32):
        if top <= np.iinfo(kind).max:
            return kind
    return np.int64


def _put(raw, hit, labels):
    """The labels into ``raw`` at ``hit``, -2 for a negative one."""
    raw[hit] = np.where(labels >= 0, labels, -2)


# --------------------------------------------------------------------------
# A docno twice in an evaluated query
# --------------------------------------------------------------------------


def block_repeat(block, rows=None):
    """The first repeated (query, docno) among the ``rows`` of a run block
    (all of them by default): ``(first, second)`` rows of the block, or
    None."""
    codes = block._query_codes()[0]
    if rows is None:
        return first_duplicate(codes, block._d)
    rows = np.asarray(rows, dtype=np.int64)
    return first_duplicate(codes[rows], block._d.take(rows), rows)


#: The key of a run block's ``__dict__`` that holds the place of its first
#: row in the run it was cut from (0 where absent): the rows messages name.
FIRST_ROW = "_first_row"


def duplicate_error(query, d, pair, lines, name, what, first_row=0):
    """The ValueError for a docno repeated in ``query`` (a str): ``pair`` are
    the rows of both copies in the docnos ``d`` (see
    :func:`~skirm.io._tokens.first_duplicate`), ``lines`` their 0-based file
    lines (None for records built from arrays: then the rows are named, as
    rows ``first_row`` on of the records the docnos were cut from)."""
    first, second = pair
    doc = str(d.strings(np.array([second]))[0])
    if lines is not None:
        where = f"{name}:{int(lines[second]) + 1}: "
        at = f"line {int(lines[first]) + 1}"
    else:
        where, at = "", f"row {first_row + first}"
    return DuplicateDocnoError(
        f"{where}duplicate docno {doc!r} for query {query!r} (first at {at}); "
        f"expected each docno once per evaluated query in {what}"
    )


def block_duplicate_error(block, pair, what):
    """:func:`duplicate_error` of a repeat found in a run block."""
    query = str(block._q.strings(np.array([pair[1]]))[0])
    return duplicate_error(
        query,
        block._d,
        pair,
        block._lines,
        block._source,
        what,
        block.__dict__.get(FIRST_ROW, 0),
    )
