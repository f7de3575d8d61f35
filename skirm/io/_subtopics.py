"""Subtopic judgments from the shapes users hold.

ndeval and ir_measures read diversity judgments as ``topic subtopic docno
judgment`` lines; ir_measures' ``Qrel`` names the subtopic ``iteration``.
Each shape becomes a :class:`QrelsJG` (one row per query, subtopic and
document) through :func:`~skirm.io._convert.columns_of`, the converter of
ordinary qrels, told of a fourth column; dicts of dicts of dicts are
flattened here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError
from skirm._validation import type_name
from skirm.io._convert import (
    SUBTOPIC,
    _from_dicts,
    _ids,
    columns_of,
)
from skirm.io._prefs import QrelsJG, read_qrels_jg
from skirm.io._sources import is_path_or_file
from skirm.io._text import empty_or_spaced, separators
from skirm.io._tokens import Tokens
from skirm.io._values import check_values

if TYPE_CHECKING:
    from skirm.io._input_types import QrelsJGLike

__all__ = ["as_qrels_jg", "convert_qrels_jg"]

#: The subtopic of ordinary qrels (a qrels file's second field).
ONE_SUBTOPIC = "0"


def as_qrels_jg(
    qrels: QrelsJGLike,
    *,
    query_id: str | None = None,
    subtopic: str | None = None,
    doc_id: str | None = None,
    relevance: str | None = None,
) -> QrelsJG:
    """Subtopic judgments (or judgment groups) as :class:`QrelsJG`, from any
    shape users hold.

    :func:`skirm.trec.evaluate_diversity` and the diversity measures of
    :func:`skirm.trec.evaluate_run` call this on their ``qrels`` argument;
    call it yourself to name the columns of a DataFrame.

    Parameters
    ----------
    qrels : QrelsJG, path, file, dict, DataFrame, iterable or dataset
        One of:

        - a :class:`QrelsJG` (returned as is);
        - a path or an open file of ``topic subtopic docno judgment`` lines
          (:func:`read_qrels_jg`);
        - a dict of dicts of dicts ``{qid: {subtopic: {docid: relevance}}}``;
        - a DataFrame with a query, a subtopic, a document and a relevance
          column (pandas, polars or pyarrow, as for :func:`as_qrels`);
        - an iterable of ``(qid, subtopic, docid, relevance)`` tuples, in the
          order of a file's fields, or of named tuples with fields
          ``query_id``, ``doc_id``, ``relevance`` and ``iteration`` (the
          subtopic: ir_measures' ``Qrel``, ir_datasets' ``TrecQrel``);
        - an ir_datasets dataset (any object with a ``qrels_iter()`` method).

        Ordinary qrels (a dict of dicts, an object whose ``to_dict()`` gives
        one, a frame or named tuples without a subtopic column, 3-tuples)
        are read with one subtopic, ``"0"``, per query.
    query_id, subtopic, doc_id, relevance : str, default=None
        The column (or named-tuple field) holding each value. By default the
        names :func:`as_qrels` looks for, and for the subtopic the first of
        ``subtopic``, ``iteration``, ``subtopic_id``, ``subtopics`` present.

    Returns
    -------
    qrels : QrelsJG

    Raises
    ------
    InvalidParameterError
        For an object of none of these shapes, a column name that names no
        column, or column names given for a shape without columns.
    InvalidInputError
        For ids that are not strings or integers, relevance values that are
        not integers, a missing or ambiguous column, a document judged twice
        for one subtopic of a query, or tuples of the wrong length.

    Examples
    --------
    >>> from skirm.io import as_qrels_jg
    >>> qrels = as_qrels_jg({"q1": {"1": {"d1": 1, "d2": 0}, "2": {"d2": 1}}})
    >>> qrels
    QrelsJG(n_judgments=3, n_queries=1, n_groups=2)
    >>> qrels.groups.tolist(), qrels.doc_ids.tolist()
    (['1', '1', '2'], ['d1', 'd2', 'd2'])

    A frame names its subtopic column:

    >>> import pandas as pd
    >>> frame = pd.DataFrame(
    ...     {"qid": [1, 1], "aspect": ["a", "b"], "doc": ["x", "x"], "rel": [1, 1]}
    ... )
    >>> as_qrels_jg(frame, subtopic="aspect", doc_id="doc").groups.tolist()
    ['a', 'b']
    """
    names = {
        "query_id": query_id,
        SUBTOPIC: subtopic,
        "doc_id": doc_id,
        "relevance": relevance,
    }
    return convert_qrels_jg(qrels, "qrels", names)


def convert_qrels_jg(obj, name, names=None) -> QrelsJG:
    """:func:`as_qrels_jg` for the argument ``name`` of a public function."""
    if isinstance(obj, QrelsJG):
        return obj
    if is_path_or_file(obj):
        return read_qrels_jg(obj)
    if hasattr(obj, "qrels_iter") and callable(obj.qrels_iter):
        obj = obj.qrels_iter()
    if isinstance(obj, Mapping) and _three_levels(obj):
        q, sub, d, v = _from_three_levels(obj, name)
    else:
        roles = ("query_id", SUBTOPIC, "doc_id", "relevance")
        q, sub, d, v = columns_of(
            obj, name, "relevance", names or {}, QrelsJG, roles, tokens=True
        )
    v = check_values(v, name, "relevance", q, d)
    if sub is None:  # ordinary qrels: one subtopic per query, as a file's "0"
        sub = np.full(len(q), ONE_SUBTOPIC)
    try:
        return _judgments(q, sub, d, v)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"`{name}`: {exc}") from None


def _judgments(q, sub, d, labels):
    """The :class:`QrelsJG` of columns of ids (str arrays or tokens): kept as
    tokens where some are and the constructor would take them as they are
    (integer labels, no id empty or holding whitespace); else through the
    constructor, whose messages say what is wrong."""
    ids = (q, sub, d)
    labels = np.asarray(labels)
    if (
        any(isinstance(x, Tokens) for x in ids)
        and labels.ndim == 1
        and labels.dtype.kind in "biu"
        and not any(map(empty_or_spaced_ids, ids))
    ):
        q, sub, d = (
            x if isinstance(x, Tokens) else Tokens.from_strings(x) for x in ids
        )
        return QrelsJG._from_tokens(q, sub, d, labels.astype(np.int64))
    return QrelsJG(*(x.strings() if isinstance(x, Tokens) else x for x in ids), labels)


def empty_or_spaced_ids(ids) -> bool:
    """Whether an id (a str array, or tokens of a buffer of ids' bytes alone)
    is empty or holds a separator: any byte of the tokens' buffer is
    looked at (a separator between them would only send them to the
    strings' way, which looks again)."""
    if isinstance(ids, Tokens):
        return bool((ids.length == 0).any() or separators(ids.buf).any())
    return bool(empty_or_spaced(ids).any())


def _from_three_levels(obj, name, value="relevance"):
    """``{qid: {subtopic: {docid: relevance}}}`` as four arrays."""
    pairs = {}
    for qid, subtopics in obj.items():
        if not isinstance(subtopics, Mapping):
            raise InvalidInputError(
                f"`{name}` must be a dict of dicts of dicts {{qid: {{subtopic: "
                f"{{docid: {value}}}}}}}; the value for query {qid!r} is a "
                f"{type_name(subtopics)}"
            )
        for sub, docs in subtopics.items():
            if not isinstance(docs, Mapping):
                raise InvalidInputError(
                    f"`{name}` must be a dict of dicts of dicts {{qid: {{subtopic: "
                    f"{{docid: {value}}}}}}}; the value for subtopic {sub!r} of "
                    f"query {qid!r} is a {type_name(docs)}"
                )
            pairs[(qid, sub)] = docs
    s = _ids([sub for _, sub in pairs], name, "subtopics")
    q = _ids([qid for qid, _ in pairs], name, "query ids")
    keys = [str(i) for i in range(len(pairs))]
    codes, d, v = _from_dicts(dict(zip(keys, pairs.values(), strict=True)), name, value)
    at = codes.astype(np.intp)
    return q[at], s[at], d, v


def _three_levels(obj):
    """Whether a dict's first non-empty inner dict holds dicts."""
    for inner in obj.values():
        if isinstance(inner, Mapping) and inner:
            return isinstance(next(iter(inner.values())), Mapping)
    return False
