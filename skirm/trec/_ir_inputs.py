"""Qrels and runs in the shapes ir_measures takes, read in their order.

ir_measures accepts dicts of dicts, pandas DataFrames (``query_id``,
``doc_id``, ``relevance`` or ``score``, and ``iteration`` for subtopics),
iterables of namedtuples (its ``Qrel`` and ``ScoredDoc``, ir_datasets'
records), plain tuples and TREC files. Its providers see the run in the
order it was given (a dict's insertion order, a frame's row order), so the
readers here keep that order: :mod:`skirm.trec._ir_measures` ranks each
provider's way from it. The shapes are read by :mod:`skirm.io`'s readers
(``columns_of``, the run and 4-column judgment file readers); what is added
here is ir_measures' reading of a pair given twice (its first place, its
last value, as a dict keeps them; for judgments, as each provider reads
them: :meth:`IrQrels.judged`) and each id's place in string order.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from skirm._errors import DuplicateDocnoError
from skirm.io import Qrels, QrelsJG, Run, read_run
from skirm.io._convert import SUBTOPIC, check_values, columns_of
from skirm.io._prefs import read_four_columns

__all__ = ["IrQrels", "IrRun", "read_ir_qrels", "read_ir_run"]

#: The columns of judgments with their subtopic (ir_measures' iteration).
_ROLES = ("query_id", SUBTOPIC, "doc_id", "relevance")


def _strings(values) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype.kind == "U":
        return values
    return np.asarray(values, dtype=object).astype(str)


def _first_place_last_value(query_ids, doc_ids, values, keep="last"):
    """One row per (query, doc), as a dict keeps them: the first place,
    the last value (``keep="max"``: the highest, ``"min"``: the lowest);
    with each row's query and docno as its place among the sorted ids
    (docno order is code order)."""
    n = query_ids.shape[0]
    if n == 0:
        empty = np.zeros(0, dtype=np.intp)
        return query_ids, doc_ids, values, empty, empty
    _, q_codes = np.unique(query_ids, return_inverse=True)
    d_uniques, d_codes = np.unique(doc_ids, return_inverse=True)
    key = q_codes.astype(np.int64) * d_uniques.shape[0] + d_codes
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if first.shape[0] == n:
        return query_ids, doc_ids, values, q_codes, d_codes
    if keep == "last":
        last = np.zeros(first.shape[0], dtype=np.intp)
        np.maximum.at(last, inverse, np.arange(n))
        kept = values[last]
    else:
        kept = values[first]
        (np.maximum if keep == "max" else np.minimum).at(kept, inverse, values)
    order = np.argsort(first, kind="stable")
    rows = first[order]
    return (
        query_ids[rows],
        doc_ids[rows],
        kept[order],
        q_codes[rows],
        d_codes[rows],
    )


class IrRun:
    """A run as parallel columns in the order given, one row per
    (query, document): a document listed twice for a query is refused, as
    :func:`~skirm.trec.evaluate_run` refuses it (ir_measures' providers
    read it in three ways: a dict's first place and last score, both rows,
    or the rows of a block). ``query_codes`` and ``doc_codes`` rank the
    ids (code order is string order)."""

    __slots__ = ("doc_codes", "doc_ids", "query_codes", "query_ids", "scores")

    def __init__(self, query_ids, doc_ids, scores) -> None:
        q, d = _strings(query_ids), _strings(doc_ids)
        (
            self.query_ids,
            self.doc_ids,
            self.scores,
            self.query_codes,
            self.doc_codes,
        ) = _first_place_last_value(q, d, np.asarray(scores, dtype=np.float64))
        if self.query_ids.shape[0] < q.shape[0]:
            raise _repeat_error(q, d)


def _repeat_error(q, d) -> DuplicateDocnoError:
    """The error for the first (query, docno) the run lists twice."""
    _, first, inverse = np.unique(
        np.char.add(np.char.add(q, "\n"), d), return_index=True, return_inverse=True
    )
    second = int(np.flatnonzero(first[inverse] != np.arange(q.shape[0]))[0])
    return DuplicateDocnoError(
        f"`run`: duplicate docno {str(d[second])!r} for query {str(q[second])!r} "
        f"(rows {int(first[inverse[second]])} and {second}); expected each docno "
        "once per query in the run"
    )


class IrQrels:
    """Judgments as columns: ``plain`` (one label per (query, doc), the last
    given, as ir_measures' conversion to dicts keeps) and ``subtopics`` (the
    rows ``(query, subtopic, doc, label)``; subtopic ``"0"`` when none is
    given)."""

    __slots__ = ("_negative", "_once", "has_subtopics", "plain", "rows")

    def __init__(self, query_ids, subtopics, doc_ids, labels) -> None:
        q, d = _strings(query_ids), _strings(doc_ids)
        labels = np.asarray(labels)
        if labels.dtype.kind not in "biuf":
            labels = labels.astype(np.float64)
        if labels.dtype.kind == "f" and np.all(labels == np.round(labels)):
            labels = labels.astype(np.int64)
        if subtopics is None:
            subtopics = np.full(q.shape[0], "0", dtype=object)
        subs = _strings(subtopics)
        self.has_subtopics = bool(np.any(subs != "0"))
        self.rows = (q, subs, d, labels)
        self.plain = _first_place_last_value(q, d, labels)[:3]
        # whether every reading of a repeated judgment is the last row's
        self._once = self.plain[0].shape[0] == q.shape[0]
        self._negative = bool(labels.shape[0] and labels.min() < 0)

    def reading(self, reading: str) -> str:
        """``reading``, or ``"last"`` where it reads these judgments as the
        last row does (every document judged once; for ``"positive"``, no
        negative label either): measures of either reading then share one
        evaluation."""
        if self._once and (reading == "any" or not self._negative):
            return "last"
        return reading

    def judged(self, reading: str):
        """``((query_ids, doc_ids, labels), (extra_query_ids, extra_labels))``:
        one judgment per (query, document) read as a provider reads a
        document judged more than once (``Reference.judgments``: ``"last"``,
        ``"any"``, ``"positive"``), and for ``"positive"`` (gdeval) the
        positive rows beyond each document's lowest, which its ideal DCG
        also counts (none for the others)."""
        q, _, d, labels = self.rows
        none = (q[:0], labels[:0])
        if reading == "last":
            return self.plain, none
        if reading == "any":
            return _first_place_last_value(q, d, labels, "max")[:3], none
        positive = labels > 0
        q, d, labels = q[positive], d[positive], labels[positive]
        one = _first_place_last_value(q, d, labels, "min")[:3]
        if one[0].shape[0] == q.shape[0]:
            return one, none
        # each pair's rows by label: the first is the one kept, the others extra
        _, q_codes = np.unique(q, return_inverse=True)
        d_uniques, d_codes = np.unique(d, return_inverse=True)
        key = q_codes.astype(np.int64) * d_uniques.shape[0] + d_codes
        order = np.lexsort((labels, key))
        extra = np.ones(order.shape[0], dtype=bool)
        extra[0] = False
        extra[1:] = key[order][1:] == key[order][:-1]
        rows = order[extra]
        return one, (q[rows], labels[rows])

    def query_ids(self) -> list[str]:
        """The queries with a judgment."""
        return np.unique(self.rows[0]).tolist()


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def read_ir_run(run: Any) -> IrRun:
    """A run in any shape ir_measures takes, or a :class:`~skirm.io.Run`, in
    the order given."""
    if isinstance(run, Run):
        return IrRun(run.query_ids, run.doc_ids, run.scores)
    if _is_path(run):
        # skirm's reader of run files: its lines in file order, no line
        # read in Python
        rows = read_run(run)
        return IrRun(rows.query_ids, rows.doc_ids, rows.scores)
    scoreddocs = getattr(run, "scoreddocs_iter", None)
    if callable(scoreddocs):  # an ir_datasets dataset
        run = scoreddocs()
    q, d, scores = columns_of(run, "run", "score", _frame_names(run, "score"), Run)
    return IrRun(q, d, check_values(scores, "run", "score", q, d))


def read_ir_qrels(qrels: Any) -> IrQrels:
    """Judgments in any shape ir_measures takes, or skirm's
    :class:`~skirm.io.Qrels` and :class:`~skirm.io.QrelsJG` (the subtopic
    of each judgment: its group), in the order given."""
    if isinstance(qrels, Qrels):
        return IrQrels(qrels.query_ids, None, qrels.doc_ids, qrels.labels)
    if isinstance(qrels, QrelsJG):
        return IrQrels(qrels.query_ids, qrels.groups, qrels.doc_ids, qrels.labels)
    if _is_path(qrels):
        # skirm's reader of 4-column judgment files: in file order, no line
        # read in Python. ir_measures reads the second column as the Qrel's
        # iteration, which its pyndeval provider takes as the subtopic.
        qs, ss, ds, ls, _ = read_four_columns(
            qrels, "4 fields: qid iteration docno relevance"
        )
        return IrQrels(qs, ss, ds, ls)
    records = getattr(qrels, "qrels_iter", None)
    if callable(records):  # an ir_datasets dataset
        qrels = records()
    names = _frame_names(qrels, "relevance")
    q, subtopics, d, labels = columns_of(
        qrels, "qrels", "relevance", names, Qrels, _ROLES
    )
    if names and SUBTOPIC not in names:
        subtopics = None  # ir_measures reads no other column as the subtopic
    return IrQrels(q, subtopics, d, check_values(labels, "qrels", "relevance", q, d))


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
