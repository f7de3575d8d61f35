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
pair given twice: its first place, its last value, as a dict keeps them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skirm.io import Qrels, QrelsJG, Run, read_run
from skirm.io._convert import SUBTOPIC, columns_of
from skirm.io._prefs import read_four_columns
from skirm.io._sources import is_path
from skirm.io._tokens import first_duplicate

__all__ = ["ir_graded", "ir_subtopics", "read_ir_qrels", "read_ir_run"]

#: The columns of judgments with their subtopic (ir_measures' iteration).
_ROLES = ("query_id", SUBTOPIC, "doc_id", "relevance")


def _strings(values) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype.kind == "U":
        return values
    return np.asarray(values, dtype=object).astype(str)


def _first_place_last_value(query_ids, doc_ids, values):
    """One row per (query, doc), as a dict keeps them: the first place,
    the last value."""
    n = query_ids.shape[0]
    if n == 0:
        return query_ids, doc_ids, values
    _, q_codes = np.unique(query_ids, return_inverse=True)
    d_uniques, d_codes = np.unique(doc_ids, return_inverse=True)
    key = q_codes.astype(np.int64) * d_uniques.shape[0] + d_codes
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if first.shape[0] == n:
        return query_ids, doc_ids, values
    last = np.zeros(first.shape[0], dtype=np.intp)
    np.maximum.at(last, inverse, np.arange(n))
    order = np.argsort(first, kind="stable")
    rows = first[order]
    return query_ids[rows], doc_ids[rows], values[last[order]]


def read_ir_run(run: Any) -> Run:
    """A run in any shape ir_measures takes, one row per (query, document)
    in the order given."""
    if is_path(run):
        # skirm's reader of run files: its lines in file order, no line
        # read in Python; kept as read (tokens, no string per line) unless a
        # document is listed twice for a query
        rows = read_run(run)
        codes, _ = rows._query_codes()
        if first_duplicate(codes, rows._tokens()[1]) is None:
            return rows
        q, d, scores = rows.query_ids, rows.doc_ids, rows.scores
    else:
        scoreddocs = getattr(run, "scoreddocs_iter", None)
        if callable(scoreddocs):  # an ir_datasets dataset
            run = scoreddocs()
        q, d, scores = columns_of(run, "run", "score", _frame_names(run, "score"), Run)
    scores = np.asarray(scores, dtype=np.float64)
    return Run(*_first_place_last_value(_strings(q), _strings(d), scores))


def read_ir_qrels(qrels: Any) -> tuple:
    """Judgments in any shape ir_measures takes, in the order given, as
    columns: query ids, subtopics (``"0"`` where none is given), doc ids
    and labels (see :func:`ir_graded` and :func:`ir_subtopics`)."""
    if is_path(qrels):
        # skirm's reader of 4-column judgment files: in file order, no line
        # read in Python. ir_measures reads the second column as the Qrel's
        # iteration, which its pyndeval provider takes as the subtopic.
        q, subtopics, d, labels, _ = read_four_columns(
            qrels, "4 fields: qid iteration docno relevance"
        )
    else:
        records = getattr(qrels, "qrels_iter", None)
        if callable(records):  # an ir_datasets dataset
            qrels = records()
        names = _frame_names(qrels, "relevance")
        q, subtopics, d, labels = columns_of(
            qrels, "qrels", "relevance", names, Qrels, _ROLES
        )
        if names and SUBTOPIC not in names:
            subtopics = None  # ir_measures reads no other column as the subtopic
    q, d = _strings(q), _strings(d)
    if subtopics is None:
        subtopics = np.full(q.shape[0], "0", dtype=object)
    return q, _strings(subtopics), d, _labels(labels)


def ir_graded(columns) -> Qrels:
    """The judgments (:func:`read_ir_qrels`' columns) as ir_measures hands
    them to every provider but pyndeval: one label per (query, document),
    its first place and its last label."""
    q, _, d, labels = columns
    return Qrels(*_first_place_last_value(q, d, labels))


def ir_subtopics(columns) -> QrelsJG:
    """The judgments as pyndeval reads them: by subtopic."""
    return QrelsJG(*columns)


def _labels(labels):
    labels = np.asarray(labels)
    if labels.dtype.kind not in "biuf":
        labels = labels.astype(np.float64)
    if labels.dtype.kind == "f" and np.all(labels == np.round(labels)):
        labels = labels.astype(np.int64)
    return labels


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
