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

__all__ = ["IrQrels", "IrRun", "read_ir_qrels", "read_ir_run"]


class IrRun:
    """A run as parallel columns in the order given, one row per
    (query, document): a document given twice keeps its first place and its
    last score, as a dict does."""

    __slots__ = ("doc_ids", "query_ids", "scores")

    def __init__(self, rows: dict[tuple[str, str], float]) -> None:
        self.query_ids = [q for q, _ in rows]
        self.doc_ids = [d for _, d in rows]
        self.scores = np.fromiter(rows.values(), dtype=np.float64, count=len(rows))


class IrQrels:
    """Judgments as ``{query: {doc: label}}`` (the last label of a document
    wins, as ir_measures' conversion to dicts does) and, when subtopics are
    given, the rows ``(query, subtopic, doc, label)``."""

    __slots__ = ("by_query", "subtopics")

    def __init__(self, rows: list[tuple[str, str, str, int]], has_subtopics: bool):
        self.by_query: dict[str, dict[str, int]] = {}
        for q, _, d, label in rows:
            self.by_query.setdefault(q, {})[d] = label
        self.subtopics = rows if has_subtopics else None


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _lines(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if fields:
                yield fields


def _records(value: Any, kind: str, dataset_method: str) -> Iterable:
    """The records of a frame, a dataset or an iterable."""
    if hasattr(value, "itertuples") and hasattr(value, "columns"):
        return value.itertuples(index=False)
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


def read_ir_run(run: Any) -> IrRun:
    """A run in any shape ir_measures takes, in the order it was given."""
    rows: dict[tuple[str, str], float] = {}
    if isinstance(run, dict):
        for q, docs in run.items():
            for d, score in docs.items():
                rows[(str(q), str(d))] = float(score)
        return IrRun(rows)
    if _is_path(run):
        for fields in _lines(run):
            if len(fields) < 5:
                raise InvalidInputError(
                    f"`run` file {os.fspath(run)!r} must have lines "
                    f"'qid Q0 docno rank score [tag]'; got {' '.join(fields)!r}."
                )
            rows[(fields[0], fields[2])] = float(fields[4])
        return IrRun(rows)
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
        rows[(str(q), str(d))] = float(score)
    return IrRun(rows)


def read_ir_qrels(qrels: Any) -> IrQrels:
    """Judgments in any shape ir_measures takes, in the order given."""
    rows: list[tuple[str, str, str, int]] = []
    has_subtopics = False
    if isinstance(qrels, dict):
        for q, docs in qrels.items():
            for d, label in docs.items():
                rows.append((str(q), "0", str(d), int(label)))
        return IrQrels(rows, False)
    if _is_path(qrels):
        for fields in _lines(qrels):
            if len(fields) != 4:
                raise InvalidInputError(
                    f"`qrels` file {os.fspath(qrels)!r} must have lines "
                    f"'qid iteration docno relevance'; got {' '.join(fields)!r}."
                )
            rows.append((fields[0], fields[1], fields[2], int(fields[3])))
        return IrQrels(rows, False)
    for record in _records(qrels, "qrels", "qrels_iter"):
        if hasattr(record, "relevance") and hasattr(record, "doc_id"):
            iteration = getattr(record, "iteration", None)
            if iteration is not None and iteration != "0":
                has_subtopics = True
            rows.append(
                (
                    str(record.query_id),
                    "0" if iteration is None else str(iteration),
                    str(record.doc_id),
                    int(record.relevance),
                )
            )
        elif isinstance(record, tuple) and len(record) == 3:
            q, d, label = record
            rows.append((str(q), "0", str(d), int(label)))
        else:
            raise InvalidInputError(
                "`qrels` records must have query_id, doc_id and relevance (a "
                "Qrel) or be (query_id, doc_id, relevance); got "
                f"{record!r}."
            )
    return IrQrels(rows, has_subtopics)
