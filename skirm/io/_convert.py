"""Qrels and runs from the shapes users already hold.

pytrec_eval and BEIR keep judgements and runs as dicts of dicts
(``{qid: {docid: value}}``), ir_measures as DataFrames or iterables of named
tuples, ranx as ``Qrels`` and ``Run`` objects whose ``to_dict()`` gives the
dicts of dicts, ir_datasets as datasets with ``qrels_iter()``. Each shape is
turned into flat columns with a few C-level passes (no Python statement per
row) and then into :class:`Qrels` or :class:`Run` through their constructors,
so every shape gets the same validation as arrays do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import chain, islice
from operator import countOf, itemgetter, methodcaller, ne
from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError, SkirmError
from skirm._frames import ArrowBytes, frame_names, read_columns
from skirm._validation import type_name
from skirm.io._keys import offset_dtype
from skirm.io._records import Qrels, Run
from skirm.io._sources import is_path_or_file
from skirm.io._tokens import PAD, Tokens
from skirm.io._trec_files import read_qrels, read_run
from skirm.io._values import check_values, row_of

if TYPE_CHECKING:
    from skirm.io._input_types import QrelsLike, RunLike

__all__ = [
    "as_qrels",
    "as_run",
    "columns_of",
    "convert_qrels",
    "convert_run",
]

# Column (or named-tuple field) names recognised without being told, first
# the ir_measures / ir_datasets names, then ranx's, trectools' and skirm's.
_CANDIDATES = {
    "query_id": ("query_id", "qid", "q_id", "query", "query_ids"),
    "subtopic": ("subtopic", "iteration", "subtopic_id", "subtopics"),
    "doc_id": ("doc_id", "docid", "docno", "doc_ids"),
    "relevance": ("relevance", "rel", "label", "labels"),
    "score": ("score", "scores"),
}

#: The role of the subtopic of subtopic judgments (ir_measures' ``iteration``).
SUBTOPIC = "subtopic"

#: How messages name the ids of each role, and their place in a tuple.
_WHAT = {"query_id": "query ids", "doc_id": "doc ids", SUBTOPIC: "subtopics"}
_FIELD = {"query_id": "qid", "doc_id": "docid", SUBTOPIC: "subtopic"}

_SHAPES = (
    "a skirm.io.{cls}, a path or open file, a dict of dicts "
    "{{qid: {{docid: {value}}}}} (or an object whose to_dict() gives one, such "
    "as ranx's {cls}), a DataFrame, an iterable of (qid, docid, {value}) tuples "
    "or named tuples"
)

_SUBTOPIC_SHAPES = (
    "a skirm.io.{cls}, a path or open file, a dict of dicts of dicts "
    "{{qid: {{subtopic: {{docid: {value}}}}}}}, a DataFrame with a subtopic "
    "column, an iterable of (qid, subtopic, docid, {value}) tuples or of "
    "named tuples with an iteration field"
)


def as_qrels(
    qrels: QrelsLike,
    *,
    query_id: str | None = None,
    doc_id: str | None = None,
    relevance: str | None = None,
) -> Qrels:
    """Relevance judgements as :class:`Qrels`, from any shape users hold.

    :func:`skirm.trec.evaluate_run` calls this on its ``qrels`` argument;
    call it yourself to name the columns of a DataFrame, or to convert once
    and evaluate many runs.

    Parameters
    ----------
    qrels : Qrels, path, file, dict, DataFrame, iterable or dataset
        One of:

        - a :class:`Qrels` (returned as is);
        - a path or an open file in TREC qrels format (:func:`read_qrels`);
        - a dict of dicts ``{qid: {docid: relevance}}`` (pytrec_eval, BEIR),
          or any other object whose ``to_dict()`` method returns one (ranx's
          ``Qrels``);
        - a DataFrame with a query, a document and a relevance column:
          pandas (or any object with ``columns`` whose columns convert to
          arrays), polars (a ``LazyFrame`` is collected, its three columns
          only) or a pyarrow ``Table`` or ``RecordBatch``;
        - an iterable of ``(qid, docid, relevance)`` tuples, or of named
          tuples with fields ``query_id``, ``doc_id``, ``relevance`` (such as
          ir_measures' ``Qrel`` and ir_datasets' ``TrecQrel``);
        - an ir_datasets dataset (any object with a ``qrels_iter()`` method).
    query_id, doc_id, relevance : str, default=None
        The column (or named-tuple field) holding each value. By default the
        first of these present: ``query_id``, ``qid``, ``q_id``, ``query``,
        ``query_ids``; ``doc_id``, ``docid``, ``docno``, ``doc_ids``;
        ``relevance``, ``rel``, ``label``, ``labels``. Two of them present
        at once is an error (name the one to use).

    Returns
    -------
    qrels : Qrels

    Raises
    ------
    InvalidParameterError
        For an object of none of these shapes, a column name that names no
        column, or column names given for a shape without columns.
    InvalidInputError
        For ids that are not strings or integers, relevance values that are
        not integers, a missing or ambiguous column, a missing value (null,
        None or NaN) in one of the three columns of a DataFrame, tuples of
        the wrong length, or whatever :class:`Qrels` rejects.
    TrecFormatError
        For a malformed line of a file (see :func:`read_qrels`).

    Notes
    -----
    Ids are compared as strings: integer ids become their decimal text
    (``7`` and ``"7"`` are the same query, ``"007"`` is another), and
    trailing NUL characters are not part of an id (``"a\\x00"`` is ``"a"``,
    as in a numpy ``str`` array), whatever the container. String,
    categorical and dictionary columns of polars and pyarrow frames are read
    without a Python object per row when their text is ASCII (pyarrow), else
    as Python strings that numpy converts in one call; polars and pyarrow
    are never imported for other inputs.

    Examples
    --------
    >>> from skirm.io import as_qrels
    >>> qrels = as_qrels({"q1": {"d1": 1, "d2": 0}, "q2": {"d7": 2}})
    >>> qrels.query_ids.tolist(), qrels.doc_ids.tolist(), qrels.labels.tolist()
    (['q1', 'q1', 'q2'], ['d1', 'd2', 'd7'], [1, 0, 2])

    Tuples, and DataFrames with their own column names:

    >>> as_qrels([("q1", "d1", 1), ("q1", "d2", 0)]).labels.tolist()
    [1, 0]
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"topic": [3, 3], "doc": ["a", "b"], "grade": [2, 0]})
    >>> qrels = as_qrels(frame, query_id="topic", doc_id="doc", relevance="grade")
    >>> qrels.query_ids.tolist()
    ['3', '3']
    """
    names = {"query_id": query_id, "doc_id": doc_id, "relevance": relevance}
    return convert_qrels(qrels, "qrels", names)


def as_run(
    run: RunLike,
    *,
    query_id: str | None = None,
    doc_id: str | None = None,
    score: str | None = None,
    run_id: str = "skirm",
) -> Run:
    """A ranked run as :class:`Run`, from any shape users hold.

    :func:`skirm.trec.evaluate_run` calls this on its ``run`` argument; call
    it yourself to name the columns of a DataFrame or the run.

    Parameters
    ----------
    run : Run, path, file, dict, DataFrame, iterable or dataset
        One of:

        - a :class:`Run` (returned as is);
        - a path or an open file in TREC run format (:func:`read_run`);
        - a dict of dicts ``{qid: {docid: score}}`` (pytrec_eval, BEIR),
          or any other object whose ``to_dict()`` method returns one (ranx's
          ``Run``);
        - a DataFrame with a query, a document and a score column (pandas,
          polars or pyarrow, as for :func:`as_qrels`);
        - an iterable of ``(qid, docid, score)`` tuples, or of named tuples
          with fields ``query_id``, ``doc_id``, ``score`` (such as
          ir_measures' ``ScoredDoc`` and ir_datasets' ``GenericScoredDoc``);
        - an ir_datasets dataset with ``scoreddocs_iter()``.
    query_id, doc_id, score : str, default=None
        The column (or named-tuple field) holding each value. By default the
        first of these present: ``query_id``, ``qid``, ``q_id``, ``query``,
        ``query_ids``; ``doc_id``, ``docid``, ``docno``, ``doc_ids``;
        ``score``, ``scores``.
    run_id : str, default="skirm"
        The run's name, for shapes that do not hold one (all but files and
        :class:`Run`).

    Returns
    -------
    run : Run

    Raises
    ------
    InvalidParameterError
        For an object of none of these shapes, a column name that names no
        column, or column names given for a shape without columns.
    InvalidInputError
        For ids that are not strings or integers, scores that are not real
        numbers, a missing or ambiguous column, a missing value (null, None
        or NaN) in one of the three columns of a DataFrame, tuples of the
        wrong length, or whatever :class:`Run` rejects (NaN scores).
    TrecFormatError
        For a malformed line of a file (see :func:`read_run`).

    Examples
    --------
    >>> from skirm.io import as_run
    >>> run = as_run({"q1": {"d1": 2.5, "d2": 1.0}}, run_id="bm25")
    >>> run
    Run(run_id='bm25', n_rows=2, n_queries=1)
    >>> run.doc_ids.tolist(), run.scores.tolist()
    (['d1', 'd2'], [2.5, 1.0])
    """
    names = {"query_id": query_id, "doc_id": doc_id, "score": score}
    return convert_run(run, "run", names, run_id)


def convert_qrels(obj, name, names=None) -> Qrels:
    """:func:`as_qrels` for the argument ``name`` of a public function."""
    if isinstance(obj, Qrels):
        return obj
    if is_path_or_file(obj):
        return read_qrels(obj)
    if hasattr(obj, "qrels_iter") and callable(obj.qrels_iter):
        obj = obj.qrels_iter()
    cols = columns_of(obj, name, "relevance", names or {}, Qrels, tokens=True)
    q, d, v = cols
    v = check_values(v, name, "relevance", q, d)
    return _build(Qrels, name, q, d, v)


def convert_run(obj, name, names=None, run_id="skirm") -> Run:
    """:func:`as_run` for the argument ``name`` of a public function."""
    if isinstance(obj, Run):
        return obj
    if is_path_or_file(obj):
        return read_run(obj)
    if hasattr(obj, "scoreddocs_iter") and callable(obj.scoreddocs_iter):
        obj = obj.scoreddocs_iter()
    q, d, v = columns_of(obj, name, "score", names or {}, Run, tokens=True)
    v = check_values(v, name, "score", q, d)
    return _build(Run, name, q, d, v, run_id=run_id)


def columns_of(obj, name, value, names, cls, roles=None, tokens=False):
    """The arrays of ``roles`` (by default query ids, doc ids, values) of any
    non-file shape; an optional role a shape lacks (the subtopic of
    ordinary qrels) is None. With ``tokens``, ids that Arrow holds are
    :class:`~skirm.io._tokens.Tokens` of its bytes, and ids given as Python
    str (rows, dicts, object columns) tokens of their joined bytes
    (:func:`_str_tokens`), not str arrays."""
    roles = roles or ("query_id", "doc_id", value)
    if isinstance(obj, Mapping):
        _no_names(names, name, "a dict of dicts")
        return _from_mapping(obj, name, value, roles, tokens)
    columns = frame_names(obj)
    if columns is not None:
        return _from_frame(obj, name, value, names, columns, roles, tokens)
    dicts = _to_dict(obj, name, value)
    if dicts is not None:
        _no_names(names, name, f"a {type_name(obj)}")
        return _from_mapping(dicts, name, value, roles, tokens)
    if isinstance(obj, Iterable) and not isinstance(obj, (bytes, bytearray)):
        return _from_rows(obj, name, value, names, roles, tokens)
    shapes = (_SUBTOPIC_SHAPES if SUBTOPIC in roles else _SHAPES).format(
        cls=cls.__name__, value=value
    )
    raise InvalidParameterError(f"`{name}` must be {shapes}; got {type_name(obj)}")


def _from_mapping(obj, name, value, roles, tokens=False):
    """A dict of dicts; a subtopic among ``roles`` is None (ordinary qrels)."""
    q, d, v = _from_dicts(obj, name, value, tokens)
    return (q, None, d, v) if SUBTOPIC in roles else (q, d, v)


def _to_dict(obj, name, value):
    """The dict of dicts of an object with a ``to_dict()`` method (ranx's
    ``Qrels`` and ``Run``), else None; a method that returns something else
    is an error naming the object's type."""
    to_dict = getattr(obj, "to_dict", None)
    if not callable(to_dict):
        return None
    dicts = to_dict()
    if not isinstance(dicts, Mapping):
        raise InvalidParameterError(
            f"`{name}`: {type_name(obj)}.to_dict() must return a dict of dicts "
            f"{{qid: {{docid: {value}}}}}, got {type_name(dicts)}"
        )
    return dicts


def _from_dicts(obj, name, value, tokens=False):
    """``{qid: {docid: value}}`` flattened in one pass over the inner dicts."""
    inner = list(obj.values())
    bad = [i for i, v in enumerate(inner) if not isinstance(v, Mapping)]
    if bad:
        qid = list(obj)[bad[0]]
        raise InvalidInputError(
            f"`{name}` must be a dict of dicts {{qid: {{docid: {value}}}}}; "
            f"the value for query {qid!r} is a {type(inner[bad[0]]).__name__}"
        )
    sizes = np.fromiter(map(len, inner), dtype=np.intp, count=len(inner))
    n = int(sizes.sum())
    queries = _ids(list(obj), name, "query ids", tokens)
    docs = list(chain.from_iterable(map(methodcaller("keys"), inner)))
    values = list(chain.from_iterable(map(methodcaller("values"), inner)))
    docs = _ids(docs, name, "doc ids", tokens)
    if isinstance(queries, Tokens):
        rows = np.repeat(np.arange(len(queries), dtype=np.intp), sizes)
        return queries.take(rows), docs, _array(values, n)
    return np.repeat(queries, sizes), docs, _array(values, n)


def _from_frame(obj, name, value, names, columns, roles, tokens=False):
    """The columns of ``roles`` of a frame (pandas, polars or pyarrow; its
    ``columns`` named), read by :func:`~skirm._frames.read_columns`; a
    missing value is an error naming its column. With ``tokens``, ids held
    by Arrow are read as tokens of its bytes (no str array, no Python object
    per row)."""
    picked = [
        _pick(columns, role, names.get(role), name, "column", value) for role in roles
    ]
    ids_kind = "bytes" if tokens else "ids"
    kinds = ["values" if role == value else ids_kind for role in roles]
    read, missing = read_columns(obj, picked, kinds)
    arrays = []
    for role, array in zip(roles, read, strict=False):
        if array is None or role == value:
            arrays.append(array)
        elif isinstance(array, ArrowBytes):
            ids = Tokens.from_utf8(array.data, array.offsets, array.run_starts)
            if ids is None:  # a NUL byte: the one rule of str arrays
                ids = _ids(array.strings(), name, _WHAT[role])
            arrays.append(ids)
        else:
            arrays.append(_ids(array, name, _WHAT[role], tokens))
    if missing is not None:
        i, at = missing
        ids = dict(zip(roles, arrays, strict=False))
        where = f"at row {at}"
        if ids.get("query_id") is not None and ids.get("doc_id") is not None:
            where += f" ({row_of(ids['query_id'], ids['doc_id'], at)})"
        raise InvalidInputError(
            f"`{name}`: column {picked[i]!r} must not hold missing values "
            f"(null, None or NaN), got one {where}"
        )
    return tuple(arrays)


def _from_rows(obj, name, value, names, roles, tokens=False):
    rows = obj if isinstance(obj, list) else list(obj)
    width = len(roles)
    if not rows:
        empty = np.zeros(0, dtype=str)
        return (*(empty,) * (width - 1), np.zeros(0, dtype=np.int64))
    first = type(rows[0])
    # rows of one type, the usual: counted in one pass, no set of them
    kinds = (
        {first}
        if countOf(map(type, rows), first) == len(rows)
        else set(map(type, rows))
    )
    shape = ", ".join(_FIELD[role] if role != value else value for role in roles)
    if not all(issubclass(k, (tuple, list)) for k in kinds):
        odd = next(k for k in kinds if not issubclass(k, (tuple, list)))
        raise InvalidInputError(
            f"`{name}` must hold ({shape}) tuples; got an iterable "
            f"of {odd.__name__}"
            + (" (for the lines of a file, pass its path)" if odd is str else "")
        )
    fields = getattr(rows[0], "_fields", None)
    if fields is not None and len(kinds) == 1:  # named tuples of one class
        # (of one length: not counted)
        picked = (
            _pick(list(fields), role, names.get(role), name, "field", value)
            for role in roles
        )
        at = [None if f is None else fields.index(f) for f in picked]
    else:
        at = _plain_fields(rows, name, names, roles, shape)
    out = []
    for role, i in zip(roles, at, strict=True):
        if i is None:
            out.append(None)
            continue
        column = list(map(itemgetter(i), rows))
        is_value = role == value
        out.append(
            _array(column, len(rows))
            if is_value
            else _ids(column, name, _WHAT[role], tokens)
        )
    return tuple(out)


def _plain_fields(rows, name, names, roles, shape):
    """The field of each role in plain tuples (all of one length)."""
    width = len(roles)
    if countOf(map(len, rows), width) == len(rows):
        _no_names(names, name, "plain tuples")
        return list(range(width))
    if SUBTOPIC in roles and countOf(map(len, rows), 3) == len(rows):  # ordinary qrels
        _no_names(names, name, "plain tuples")
        return [0, None, 1, 2]
    lengths = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
    bad = int(np.argmax(lengths != width))
    raise InvalidInputError(
        f"`{name}` must hold ({shape}) tuples of {width} values; "
        f"row {bad} is {rows[bad]!r}"
    )


def _no_names(names, name, shape):
    given = [f"{role}={col!r}" for role, col in names.items() if col is not None]
    if given:
        raise InvalidParameterError(
            f"`{name}` is {shape}, which has no columns to name; got "
            f"{', '.join(given)} (column names apply to DataFrames and named tuples)"
        )


def _array(values, n):
    """A list as an array: numbers as a numeric array, anything else kept."""
    try:
        arr = np.array(values)
    except ValueError:  # sequences of several lengths: numpy takes no shape
        arr = None
    # ragged or nested values, strings (numpy would write the numbers among
    # them as strings too) or integers past 64 bits (numpy would round them
    # to doubles): kept as given, so that a message shows the value
    if (
        arr is None
        or arr.shape != (n,)
        or arr.dtype.kind in "US"
        or (arr.dtype.kind in "fu" and n and np.abs(arr).max() >= 2.0**63)
    ):
        arr = np.empty(n, dtype=object)
        arr[:] = values
    return arr


def _pick(available, role, given, name, what, value):
    """The column (or field) of ``role``; None for a subtopic none of whose
    names is present (ordinary qrels)."""
    hint = f"name it with skirm.io.as_{'run' if value == 'score' else 'qrels'}"
    if role == SUBTOPIC:
        hint = "name it with skirm.io.as_qrels_jg"
    if given is not None:
        if given not in available:
            raise InvalidParameterError(
                f"`{name}` has no {what} {given!r} (its {what}s: {available})"
            )
        return given
    found = [c for c in _CANDIDATES[role] if c in available]
    if len(found) == 1:
        return found[0]
    if not found and role == SUBTOPIC:
        return None
    if not found:
        raise InvalidInputError(
            f"`{name}` has no {role} {what}: expected one of "
            f"{list(_CANDIDATES[role])}, got {what}s {available}; {hint}"
            f"(..., {role}=...)"
        )
    raise InvalidInputError(
        f"`{name}` has several {role} {what}s {found}; {hint}(..., {role}=...)"
    )


_ID_TYPES = (str, int, np.str_, np.integer)


def _ids(values, name, what, tokens=False):
    """Ids as a str array: strings and integers only (no floats, no None).

    ``values`` is an array or a list of Python objects; a list is made a
    str array by numpy at once (``dtype=str``: faster than through an
    object array, the same strings). With ``tokens``, Python str ids are
    made :class:`~skirm.io._tokens.Tokens` where :func:`_str_tokens` can.
    """
    if isinstance(values, np.ndarray) and values.dtype.kind != "O":
        kind = values.dtype.kind
        if kind in "US":
            return values
        if kind in "iu" or values.shape[0] == 0:
            return values.astype(str)
        raise InvalidInputError(
            f"`{name}`: {what} must be strings or integers, got {values.dtype}"
        )
    if not len(values):
        return np.zeros(0, dtype=str)
    items = values.tolist() if isinstance(values, np.ndarray) else values
    if countOf(map(type, items), str) == len(items):  # str ids, the usual
        runs = _in_runs(items)
        made = _str_tokens(items, runs) if tokens else None
        if made is not None:
            return made
        return _runs_of_str(items) if runs else np.array(items, dtype=str)
    kinds = set(map(type, items))
    odd = [k for k in kinds if not issubclass(k, _ID_TYPES) or k is bool]
    if odd:
        raise InvalidInputError(
            f"`{name}`: {what} must be strings or integers, got {odd[0].__name__}"
        )
    if isinstance(values, np.ndarray):
        return values.astype(str)
    return np.array(values, dtype=str)


#: Ids from which a column is looked at for runs of equal ids, and the
#: adjacent pairs looked at (spread over it): ids that repeat in runs of
#: three or more on average (a query's rows together; a document's
#: judgments by subtopic) are made strings once per run.
RUN_IDS = 1 << 12
_RUN_SAMPLE = 1 << 10


def _in_runs(items):
    """Whether equal adjacent ids (a list of str) fill two thirds or more
    of a sample of adjacent pairs spread over them."""
    n = len(items)
    if n < RUN_IDS:
        return False
    at = np.linspace(0, n - 2, _RUN_SAMPLE).astype(np.intp).tolist()
    same = sum(items[i] == items[i + 1] for i in at)
    return same * 3 >= 2 * len(at)


def _str_tokens(items, runs=False):
    """Tokens of str ids (a list), their bytes joined once: no str array
    (numpy's four bytes per character) and no Python object per id. Ids in
    runs of equal ones (``runs``): the first of each run, then repeated.
    None where an id is not ASCII or holds a NUL (numpy's strings drop
    trailing NULs, the one rule of every container: such ids stay str
    arrays)."""
    if runs:
        heads = _run_heads(items)
        tokens = _str_tokens(list(map(items.__getitem__, heads.tolist())))
        if tokens is None:
            return None
        sizes = np.diff(np.append(heads, len(items)))
        return tokens.take(np.repeat(np.arange(heads.shape[0], dtype=np.intp), sizes))
    joined = "".join(items)
    if not joined.isascii() or "\0" in joined:
        return None
    buf = np.zeros(len(joined) + PAD, dtype=np.uint8)
    buf[: len(joined)] = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    end = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    np.cumsum(end, out=end)
    end = end.astype(offset_dtype(buf.shape[0]), copy=False)
    start = np.empty_like(end)
    start[:1] = 0
    start[1:] = end[:-1]
    return Tokens(buf, start, end)


def _run_heads(items):
    """The first row of each run of equal adjacent str ids (a list)."""
    n = len(items)
    new = np.ones(n, dtype=bool)
    new[1:] = np.fromiter(map(ne, islice(items, 1, None), items), bool, count=n - 1)
    return np.flatnonzero(new)


def _runs_of_str(items):
    """``np.array(items, dtype=str)`` of str ids in runs of equal ones: the
    first of each run made a string of numpy's, then repeated."""
    heads = _run_heads(items)
    first = np.array(list(map(items.__getitem__, heads.tolist())), dtype=str)
    return np.repeat(first, np.diff(np.append(heads, len(items))))


def _build(cls, name, q, d, v, **kwargs):
    """The record through its constructor; its errors name the argument (a
    skirm error keeps its class, any other is invalid input)."""
    try:
        if isinstance(q, Tokens) or isinstance(d, Tokens):  # ids held by Arrow
            return cls._checked_tokens(q, d, v, **kwargs)
        return cls(q, d, v, **kwargs)
    except (TypeError, ValueError) as exc:
        error = type(exc) if isinstance(exc, SkirmError) else InvalidInputError
        raise error(f"`{name}`: {exc}") from None
