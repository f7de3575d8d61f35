"""Qrels and runs in the shapes ir_measures takes, read in their order.

ir_measures accepts dicts of dicts, pandas DataFrames (``query_id``,
``doc_id``, ``relevance`` or ``score``, and ``iteration`` for subtopics),
iterables of namedtuples (its ``Qrel`` and ``ScoredDoc``, ir_datasets'
records), plain tuples and TREC files. Its providers see the run in the
order it was given (a dict's insertion order, a frame's row order), so the
readers here keep that order: :mod:`skirm.trec._ir_measures` ranks each
provider's way from it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np

from skirm._errors import InvalidInputError
from skirm.io import read_run
from skirm.io._prefs import read_four_columns

__all__ = ["IrQrels", "IrRun", "read_ir_qrels", "read_ir_run"]


def _strings(values) -> np.ndarray:
    return np.asarray(values, dtype=object).astype(str)


def _first_place_last_value(query_ids, doc_ids, values):
    """One row per (query, doc), as a dict keeps them: the first place,
    the last value; with each row's query and docno as its place among the
    sorted ids (docno order is code order)."""
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
    last = np.zeros(first.shape[0], dtype=np.intp)
    np.maximum.at(last, inverse, np.arange(n))
    order = np.argsort(first, kind="stable")
    rows = first[order]
    return (
        query_ids[rows],
        doc_ids[rows],
        values[last[order]],
        q_codes[rows],
        d_codes[rows],
    )


class IrRun:
    """A run as parallel columns in the order given, one row per
    (query, document): a document given twice keeps its first place and its
    last score, as a dict does. ``query_codes`` and ``doc_codes`` rank the
    ids (code order is string order)."""

    __slots__ = ("doc_codes", "doc_ids", "query_codes", "query_ids", "scores")

    def __init__(self, query_ids, doc_ids, scores) -> None:
        (
            self.query_ids,
            self.doc_ids,
            self.scores,
            self.query_codes,
            self.doc_codes,
        ) = _first_place_last_value(
            _strings(query_ids),
            _strings(doc_ids),
            np.asarray(scores, dtype=np.float64),
        )


class IrQrels:
    """Judgments as columns: ``plain`` (one label per (query, doc), the last
    given, as ir_measures' conversion to dicts keeps) and ``subtopics`` (the
    rows ``(query, subtopic, doc, label)``; subtopic ``"0"`` when none is
    given)."""

    __slots__ = ("has_subtopics", "plain", "rows")

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

    def query_ids(self) -> list[str]:
        """The queries with a judgment."""
        return np.unique(self.rows[0]).tolist()


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _records(value: Any, kind: str, dataset_method: str) -> Iterable:
    """The records of a dataset or an iterable."""
    method = getattr(value, dataset_method, None)
    if callable(method):
        return method()
    if isinstance(value, Iterable):
        return value
    raise InvalidInputError(
        f"`{kind}` must be a dict of dicts, a DataFrame, an iterable of "
        f"namedtuples or tuples, or a TREC file path; got "
        f"{type(value).__name__}."
    )


def _column(frame, name, kind):
    try:
        return np.asarray(frame[name])
    except (KeyError, ValueError) as error:  # polars raises ColumnNotFoundError
        raise InvalidInputError(
            f"`{kind}` frame must have a column {name!r}; got columns "
            f"{list(frame.columns)}."
        ) from error


def _is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "__getitem__")


def read_ir_run(run: Any) -> IrRun:
    """A run in any shape ir_measures takes, in the order it was given."""
    if isinstance(run, dict):
        qs, ds, ss = [], [], []
        for q, docs in run.items():
            qs += [q] * len(docs)
            ds += docs.keys()
            ss += docs.values()
        return IrRun(qs, ds, ss)
    if _is_path(run):
        # skirm's reader of run files: its lines in file order, no line
        # read in Python
        rows = read_run(run)
        return IrRun(rows.query_ids, rows.doc_ids, rows.scores)
    if _is_frame(run):
        return IrRun(*(_column(run, c, "run") for c in ("query_id", "doc_id", "score")))
    qs, ds, ss = [], [], []
    for record in _records(run, "run", "scoreddocs_iter"):
        if hasattr(record, "score") and hasattr(record, "doc_id"):
            q, d, score = record.query_id, record.doc_id, record.score
        elif isinstance(record, tuple) and len(record) == 3:
            q, d, score = record
        else:
            raise InvalidInputError(
                "`run` records must have query_id, doc_id and score (a "
                f"ScoredDoc) or be (query_id, doc_id, score); got {record!r}."
            )
        qs.append(q)
        ds.append(d)
        ss.append(score)
    return IrRun(qs, ds, ss)


def read_ir_qrels(qrels: Any) -> IrQrels:
    """Judgments in any shape ir_measures takes, in the order given."""
    if isinstance(qrels, dict):
        qs, ds, ls = [], [], []
        for q, docs in qrels.items():
            qs += [q] * len(docs)
            ds += docs.keys()
            ls += docs.values()
        return IrQrels(qs, None, ds, ls)
    if _is_path(qrels):
        # skirm's reader of 4-column judgment files: in file order, no line
        # read in Python. ir_measures reads the second column as the Qrel's
        # iteration, which its pyndeval provider takes as the subtopic.
        qs, ss, ds, ls, _ = read_four_columns(
            qrels, "4 fields: qid iteration docno relevance"
        )
        return IrQrels(qs, ss, ds, ls)
    if _is_frame(qrels):
        q, d, label = (
            _column(qrels, c, "qrels") for c in ("query_id", "doc_id", "relevance")
        )
        subs = (
            _column(qrels, "iteration", "qrels")
            if "iteration" in qrels.columns
            else None
        )
        return IrQrels(q, subs, d, label)
    qs, ss, ds, ls = [], [], [], []
    for record in _records(qrels, "qrels", "qrels_iter"):
        if hasattr(record, "relevance") and hasattr(record, "doc_id"):
            iteration = getattr(record, "iteration", "0")
            q, sub, d, label = (
                record.query_id,
                iteration,
                record.doc_id,
                record.relevance,
            )
        elif isinstance(record, tuple) and len(record) == 3:
            (q, d, label), sub = record, "0"
        else:
            raise InvalidInputError(
                "`qrels` records must have query_id, doc_id and relevance (a "
                "Qrel) or be (query_id, doc_id, relevance); got "
                f"{record!r}."
            )
        qs.append(q)
        ss.append(sub)
        ds.append(d)
        ls.append(label)
    return IrQrels(qs, ss, ds, ls)
