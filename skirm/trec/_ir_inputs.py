"""Qrels and runs in the shapes ir_measures takes, read as it reads them.

ir_measures accepts dicts of dicts, pandas DataFrames (``query_id``,
``doc_id``, ``relevance`` or ``score``, and ``iteration`` for subtopics),
iterables of namedtuples (its ``Qrel`` and ``ScoredDoc``, ir_datasets'
records), plain tuples and TREC files. Its providers see the run in the
order it was given (a dict's insertion order, a frame's row order), so the
rows keep that order: the evaluation ranks ties in each provider's order
from it. The shapes are read by :mod:`skirm.io`'s readers (``columns_of``,
the run and 4-column judgment file readers) into skirm's records
(:class:`~skirm.io.Run`, :class:`~skirm.io.QrelsJG`,
:class:`~skirm.io.Qrels`); what is added here is ir_measures' reading of a
judgment given twice, as each provider reads it (:func:`ir_graded`), and
the name of one of its ``Measure`` objects (:func:`ir_name_of`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from skirm._errors import DuplicateDocnoError
from skirm.io import Qrels, QrelsJG, Run
from skirm.io._convert import SUBTOPIC, columns_of
from skirm.io._join import index_of
from skirm.io._prefs import read_four_columns
from skirm.io._sources import is_path
from skirm.io._subtopics import empty_or_spaced_ids
from skirm.io._text import read_str_split
from skirm.io._tokens import Tokens, first_duplicate
from skirm.io._trec_files import run_of_bytes
from skirm.io._values import check_values
from skirm.trec._ranked import c_floats

__all__ = [
    "IrJudgments",
    "floats_tie_more",
    "ir_graded",
    "ir_name_of",
    "ir_query_codes",
    "ir_readings",
    "ir_subtopics",
    "missing_queries",
    "read_ir_qrels",
    "read_ir_run",
]

#: The columns of judgments with their subtopic (ir_measures' iteration).
_ROLES = ("query_id", SUBTOPIC, "doc_id", "relevance")


class IrJudgments(NamedTuple):
    """Judgments as :func:`read_ir_qrels` reads them: their columns, what
    :func:`ir_graded` computes of them once for all its readings (``memo``),
    and whether they were given in memory (their ids may hold whitespace:
    a file's cannot)."""

    query_ids: Any
    subtopics: Any
    doc_ids: Any
    labels: np.ndarray
    memo: dict
    in_memory: bool = True


def _strings(values) -> np.ndarray:
    """Ids (a str array, tokens, or any values) as a str array."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "U":
        return values
    if isinstance(values, Tokens):
        return values.strings()
    return np.asarray(values, dtype=object).astype(str)


def _pair_keys(q_codes, d):
    """An int64 key per row (the queries' codes, the documents' tokens),
    equal where the (query, document) pairs are: the queries' codes and the
    documents' keys in byte order (exact, as ``np.unique`` of the strings but
    without sorting them; kept with the tokens), both in the strings' order."""
    d_codes = d.order_key()
    n_docs = int(d_codes.max()) + 1 if d_codes.shape[0] else 0
    return q_codes.astype(np.int64) * n_docs + d_codes


def _first_place(key, values, keep="last"):
    """``(rows, kept, first)``: one row per ``key`` (a (query, doc) pair),
    as a dict keeps them: the first place, the last value (``keep="max"``:
    the highest, ``"min"``: the lowest), the rows in their order; and the
    first place of each row's pair."""
    n = key.shape[0]
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if first.shape[0] == n:
        return np.arange(n), values, np.arange(n)
    inverse = inverse.reshape(-1)
    if keep == "last":
        last = np.zeros(first.shape[0], dtype=np.intp)
        np.maximum.at(last, inverse, np.arange(n))
        kept = values[last]
    else:
        kept = values[first]
        (np.maximum if keep == "max" else np.minimum).at(kept, inverse, values)
    order = np.argsort(first, kind="stable")
    return first[order], kept[order], first[inverse]


def _taken(q, d, q_tokens, d_tokens, rows, labels) -> Qrels:
    """The judgments ``rows`` (None: all) of ids ``q``, ``d`` (str arrays or
    tokens; ``*_tokens``, them as tokens) with ``labels``."""
    if rows is not None:
        q_tokens, d_tokens = q_tokens.take(rows), d_tokens.take(rows)
    graded = Qrels._checked_tokens(q_tokens, d_tokens, labels)
    if not isinstance(q, Tokens):  # the strings, held already
        if rows is not None:
            q, d = q[rows], d[rows]
        graded._query_ids, graded._doc_ids = q, d
    return graded


def read_ir_run(run: Any) -> Run:
    """A run in any shape ir_measures takes, or a :class:`~skirm.io.Run`, in
    the order given; a document listed twice for a query is refused, as
    :func:`~skirm.trec.evaluate_run` refuses it (ir_measures' providers read
    it in three ways: a dict's first place and last score, both rows, or
    the rows of a block)."""
    if isinstance(run, Run):
        rows = run
    elif is_path(run):
        # skirm's reader of run files, its fields split as ir_measures'
        # read_trec_run splits them (line.split()): its lines in file order,
        # no line read in Python; kept as read (tokens, no string per line)
        rows = run_of_bytes(*read_str_split(run))
    else:
        scoreddocs = getattr(run, "scoreddocs_iter", None)
        if callable(scoreddocs):  # an ir_datasets dataset
            run = scoreddocs()
        names = _frame_names(run, "score")
        q, d, scores = columns_of(run, "run", "score", names, Run, tokens=True)
        scores = np.asarray(check_values(scores, "run", "score", q, d), np.float64)
        if isinstance(q, Tokens) or isinstance(d, Tokens):  # str ids' bytes
            rows = Run._checked_tokens(q, d, scores, run_id="skirm")
        else:
            rows = Run(_strings(q), _strings(d), scores)
    pair = first_duplicate(rows._query_codes()[0], rows._tokens()[1])
    if pair is not None:
        first, second = pair
        raise DuplicateDocnoError(
            f"`run`: duplicate docno {str(rows.doc_ids[second])!r} for query "
            f"{str(rows.query_ids[second])!r} (rows {first} and {second}); "
            "expected each docno once per query in the run"
        )
    return rows


def read_ir_qrels(qrels: Any) -> IrJudgments:
    """Judgments in any shape ir_measures takes, or skirm's
    :class:`~skirm.io.Qrels` and :class:`~skirm.io.QrelsJG` (the subtopic of
    each judgment: its group), in the order given, as columns: query ids,
    subtopics (``"0"`` where none is given), doc ids and labels (see
    :func:`ir_graded` and :func:`ir_subtopics`); the ids of a file, and str
    ids given in memory that tokens hold (ASCII, no NUL), as
    :class:`~skirm.io._tokens.Tokens`, any other's as str arrays."""
    if isinstance(qrels, Qrels):
        q, subtopics, d, labels = qrels.query_ids, None, qrels.doc_ids, qrels.labels
    elif isinstance(qrels, QrelsJG):
        q, subtopics, d = qrels.query_ids, qrels.groups, qrels.doc_ids
        labels = qrels.labels
    elif is_path(qrels):
        # skirm's reader of 4-column judgment files: in file order, no line
        # read in Python. ir_measures reads the second column as the Qrel's
        # iteration, which its pyndeval provider takes as the subtopic.
        q, subtopics, d, labels, _ = read_four_columns(
            qrels,
            "4 fields: qid iteration docno relevance",
            tokens=True,
            read=read_str_split,
        )
        # ids as tokens, read as str if asked
        return IrJudgments(q, subtopics, d, labels, {}, in_memory=False)
    else:
        records = getattr(qrels, "qrels_iter", None)
        if callable(records):  # an ir_datasets dataset
            qrels = records()
        names = _frame_names(qrels, "relevance")
        q, subtopics, d, labels = columns_of(
            qrels, "qrels", "relevance", names, Qrels, _ROLES, tokens=True
        )
        if names and SUBTOPIC not in names:
            subtopics = None  # ir_measures reads no other column as the subtopic
        labels = check_values(labels, "qrels", "relevance", q, d)
    q, d = _ids(q), _ids(d)  # str ids as tokens, others as str arrays
    if subtopics is None:
        subtopics = np.full(len(q), "0")
    return IrJudgments(q, _ids(subtopics), d, _labels(labels), {})


def ir_readings(columns, asked, graded: Qrels) -> dict:
    """``{reading: as read}`` for each reading ``asked``
    (``Reference.judgments``: ``"last"``, ``"any"``, ``"positive"``): the
    reading, or ``"last"`` where it reads these judgments as the last row
    does (every document judged once; for ``"positive"``, no negative label
    either), so that measures of either reading share one evaluation.
    ``graded`` are the judgments read as the last row (:func:`ir_graded`)."""
    asked = set(asked) - {"last"}
    if not asked:
        return {"last": "last"}
    q, labels = columns.query_ids, columns.labels
    once = len(graded) == len(q)
    negative = bool(labels.shape[0] and labels.min() < 0)
    out = {"last": "last"}
    for reading in asked:
        same = once and (reading == "any" or not negative)
        out[reading] = "last" if same else reading
    return out


def ir_graded(columns, reading: str = "last", doc_ids=None) -> Qrels:
    """The judgments (:func:`read_ir_qrels`' columns) as ir_measures hands
    them to a provider but pyndeval: one label per (query, document), at
    its first place, read as ``reading`` says (``"last"``: the last label,
    as a dict keeps it; ``"any"``: the highest; ``"positive"``, gdeval's:
    the positive rows only, the document at the lowest of them). gdeval's
    positive rows beyond one per document become judgments of documents of
    their own, under names neither the judgments nor ``doc_ids`` (the
    run's) hold, so that they enter the ideal DCG and nothing else."""
    q, subtopics, d, labels, memo, in_memory = columns
    q_tokens, d_tokens = _tokens(columns)
    if reading != "positive" and not _several(subtopics, in_memory):
        # judgments of one subtopic seldom repeat a document: taken as given
        # where the index the evaluation joins the run to finds none
        graded = _taken(q, d, q_tokens, d_tokens, None, labels)
        if not index_of(graded).dup_topics.shape[0]:
            memo["pairs"] = None  # each row a pair of its own
            return graded
    if "keys" not in memo:
        memo["keys"] = _pair_keys(ir_query_codes(columns)[0], d_tokens)
    key = memo["keys"]
    if reading != "positive":
        rows, kept, first = _first_place(
            key, labels, "max" if reading == "any" else "last"
        )
        memo["pairs"] = rows, first
        return _taken(q, d, q_tokens, d_tokens, rows, kept)
    positive = np.flatnonzero(labels > 0)
    key, labels = key[positive], labels[positive]
    rows, kept, _ = _first_place(key, labels, "min")
    if rows.shape[0] == positive.shape[0]:
        return _taken(q, d, q_tokens, d_tokens, positive[rows], kept)
    # each pair's rows by label: the first is the one kept, the others extra
    order = np.lexsort((labels, key))
    extra = np.ones(order.shape[0], dtype=bool)
    extra[0] = False
    extra[1:] = key[order][1:] == key[order][:-1]
    more = order[extra]
    prefix = "\x01extra judgment "  # no docno of a TREC file
    names = _numbered(prefix, more.shape[0])
    held = [_led_by(d, prefix[0])]
    if doc_ids is not None:
        held.append(_led_by(doc_ids, prefix[0]))
    while any(np.isin(names, ids).any() for ids in held):
        prefix += "+"
        names = _numbered(prefix, more.shape[0])
    one = positive[rows]
    labels = np.concatenate([kept, labels[more]])
    if isinstance(q, Tokens) or isinstance(d, Tokens):  # the ids' bytes
        docs = Tokens.concat([d_tokens.take(one), Tokens.from_strings(names)])
        rows = np.concatenate([one, positive[more]])
        return Qrels._checked_tokens(q_tokens.take(rows), docs, labels)
    return Qrels(
        np.concatenate([q[one], q[positive[more]]]),
        np.concatenate([d[one], names]),
        labels,
    )


def _tokens(columns: IrJudgments) -> tuple:
    """The query and document ids of the judgments as tokens (made once)."""
    memo = columns.memo
    if "tokens" not in memo:
        memo["tokens"] = tuple(
            x if isinstance(x, Tokens) else Tokens.from_strings(x)
            for x in (columns.query_ids, columns.doc_ids)
        )
    return memo["tokens"]


def ir_query_codes(columns: IrJudgments) -> tuple:
    """``(codes, ids)``: the judgments' sorted distinct query ids and each
    row's index into them (made once)."""
    memo = columns.memo
    if "query_codes" not in memo:
        memo["query_codes"] = _tokens(columns)[0].codes()
    return memo["query_codes"]


def _several(subtopics, in_memory) -> bool:
    """Whether judgments in memory (their subtopics: a str array or
    tokens) name more than one subtopic; a file's are taken as one, as
    TREC's judgment files mostly are (the check would cost what it
    spares)."""
    if not in_memory:
        return False
    if not isinstance(subtopics, Tokens):
        return bool((subtopics[1:] != subtopics[:-1]).any())
    length = subtopics.length
    if int(length.max(initial=0)) <= 8:  # one word each, zero past the end
        word = subtopics.word(0)
        return bool((word[1:] != word[:-1]).any() or (length[1:] != length[:-1]).any())
    later = np.arange(1, len(subtopics), dtype=np.intp)
    return not bool(subtopics.equal(later, subtopics, later - 1).all())


def _numbered(prefix: str, n: int) -> np.ndarray:
    """``prefix`` followed by each of ``0 .. n-1``, zero-padded to one
    width, as a str array (its code points written as a matrix, without a
    Python string per name)."""
    width = len(str(max(n - 1, 0)))
    head = np.array([ord(c) for c in prefix], dtype=np.uint32)
    out = np.empty((n, head.shape[0] + width), dtype=np.uint32)
    out[:, : head.shape[0]] = head
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    out[:, head.shape[0] :] = np.arange(n)[:, None] // powers % 10 + ord("0")
    return out.view(f"U{out.shape[1]}").reshape(-1)


def _led_by(ids, char):
    """The ids (a str array, or tokens: ``char`` is ASCII) whose first
    character is ``char``, as a str array: the only ones a name starting
    with it can equal (their first code points or bytes compared, without
    a Python string per id)."""
    if isinstance(ids, Tokens):
        first = ids.buf[np.minimum(ids.start, ids.buf.shape[0] - 1)]
        return ids.strings(np.flatnonzero((ids.length > 0) & (first == ord(char))))
    if not ids.shape[0] or ids.dtype.itemsize == 0:
        return ids[:0]
    first = np.ascontiguousarray(ids).view(np.uint32)[:: ids.dtype.itemsize // 4]
    return ids[first == ord(char)]


def ir_subtopics(columns, graded=None) -> QrelsJG:
    """The judgments as pyndeval reads them: by subtopic; their query and
    document tokens those :func:`ir_graded` reads (made once), the ids
    checked as :class:`~skirm.io.QrelsJG` checks them (whose message tells
    what is wrong). ``graded``, :func:`ir_graded`'s judgments (one row per
    judged pair), are the pairs the diversity measures join the run to
    (:func:`~skirm.trec._ndeval_report.share_pairs`): one index of them
    serves every measure."""
    # imported here, as evaluate_run imports the diversity measures: only
    # when they are asked for
    from skirm.trec._ndeval_report import share_pairs

    jg = _subtopics(columns)
    if graded is not None and "pairs" in columns.memo:
        pairs = columns.memo["pairs"]
        if pairs is None:  # each row a pair of its own
            pairs = (np.arange(len(jg)),) * 2
        share_pairs(jg, graded, *pairs)
    return jg


def _subtopics(columns) -> QrelsJG:
    q, subtopics, d, labels, _, in_memory = columns
    if labels.dtype.kind not in "biu" or (
        in_memory and any(map(empty_or_spaced_ids, (q, subtopics, d)))
    ):
        return QrelsJG(_strings(q), _strings(subtopics), _strings(d), labels)
    q_tokens, d_tokens = _tokens(columns)
    g_tokens = subtopics
    if not isinstance(subtopics, Tokens):
        g_tokens = Tokens.from_strings(subtopics)
    jg = QrelsJG._from_tokens(q_tokens, g_tokens, d_tokens, labels.astype(np.int64))
    if in_memory and not isinstance(q, Tokens):  # the strings, held already
        jg._query_ids, jg._groups, jg._doc_ids = q, subtopics, d
    return jg


def _ids(values):
    """Ids read by ``columns_of``: tokens as they are, else a str array."""
    return values if isinstance(values, Tokens) else _strings(values)


def floats_tie_more(run: Run) -> bool:
    """Whether two scores of a query differ as doubles but tie as C floats
    (trec_eval 9.0.x's reading)."""
    scores = run.scores
    floats = c_floats(scores)
    if np.array_equal(scores, floats):
        return False
    codes = run._query_codes()[0]  # cached: the duplicate check made them
    order = np.lexsort((scores, codes))
    codes, scores, floats = codes[order], scores[order], floats[order]
    same_query = codes[1:] == codes[:-1]
    return bool(
        np.any(same_query & (scores[1:] != scores[:-1]) & (floats[1:] == floats[:-1]))
    )


def missing_queries(ids: np.ndarray, these: np.ndarray) -> np.ndarray:
    """The queries ``ids`` (sorted, distinct) not among ``these`` (distinct:
    those a provider reports), as ``np.setdiff1d``; none, without a sort
    (nor ``np.unique``, which loads ``numpy.ma``), where they are the same."""
    if these.shape[0] == ids.shape[0] and np.array_equal(these, ids):
        return ids[:0]
    return np.setdiff1d(ids, these, assume_unique=True)


def _labels(labels):
    labels = np.asarray(labels)
    if labels.dtype.kind not in "biuf":
        labels = labels.astype(np.float64)
    if labels.dtype.kind == "f" and np.all(labels == np.round(labels)):
        labels = labels.astype(np.int64)
    return labels


def ir_name_of(measure: Any) -> str:
    """The name of an ir_measures ``Measure`` from its parameters, spelt as
    its ``repr`` but with every pair of a dict option (the repr leaves out
    the pairs whose grade is its gain: ``nDCG(gains={0:0,1:1,2:2})`` prints
    as ``nDCG(gains={})``)."""
    params = getattr(measure, "params", None)
    supported = getattr(measure, "SUPPORTED_PARAMS", None)
    if not isinstance(params, dict) or not isinstance(supported, dict):
        return str(measure)
    at = getattr(measure, "AT_PARAM", "cutoff")
    opts = []
    for key, value in params.items():
        info = supported.get(key)
        if key == at or (info is not None and value == info.default):
            continue
        if isinstance(value, dict):
            pairs = ",".join(f"{k}:{v}" for k, v in sorted(value.items()))
            opts.append(f"{key}={{{pairs}}}")
        else:
            opts.append(f"{key}={value!r}")
    name = getattr(measure, "__name__", None) or measure.NAME
    text = f"{name}({','.join(opts)})" if opts else str(name)
    return text + (f"@{params[at]}" if at in params else "")


def _frame_names(obj: Any, value: str) -> dict:
    """ir_measures' column names for a frame, which it reads by these names
    only (PyTerrier's frames also hold ``query``, ``qid``, ``docno``...);
    none for the other shapes."""
    columns = getattr(obj, "columns", None)
    if columns is None or not hasattr(obj, "__getitem__"):
        return {}
    names = {"query_id": "query_id", "doc_id": "doc_id", value: value}
    if value == "relevance" and "iteration" in list(columns):
        names[SUBTOPIC] = "iteration"
    return names
