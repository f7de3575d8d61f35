"""Qrels and Run: the column records users hold, and the rows stages read.

:class:`Qrels` and :class:`Run` keep ids as strings (built only when asked
for, when read from a file) and labels or scores as numpy arrays. They are
also what an evaluation reads, the one container of graded judgements and
of a run (a whole run, or a block of one read from a file): their ids as
byte tokens (``_tokens()``, built once), where each row came from
(``_lines``, ``_source``) and each row's query code (``_query_codes()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from skirm._errors import InvalidInputError, MissingDependencyError
from skirm._frames import BACKEND, polars_frame
from skirm._params import Instance, Param, checked
from skirm.io._tokens import Tokens

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: The source name of records built from arrays (messages give row numbers).
FROM_ARRAYS = "<records>"
#: The name of a run.
RUN_ID = Param("run_id", Instance(str, "a string"))


class _Records:
    _columns: tuple = ()
    _frame_columns: tuple = ()
    _query_ids: np.ndarray | None = None
    _doc_ids: np.ndarray | None = None
    _q: Tokens | None = None
    _d: Tokens | None = None
    _lines: np.ndarray | None = None  # 0-based file line of each row, if read
    _source = FROM_ARRAYS

    @property
    def query_ids(self):
        """Query id of each row (str)."""
        if self._query_ids is None:
            self._query_ids = self._q.strings()
        return self._query_ids

    @property
    def doc_ids(self):
        """Document id of each row (str)."""
        if self._doc_ids is None:
            self._doc_ids = self._d.strings()
        return self._doc_ids

    def _tokens(self):
        """``(query tokens, docno tokens)``, built from the strings once."""
        if self._q is None:
            self._q = Tokens.from_strings(self._query_ids)
        if self._d is None:
            self._d = Tokens.from_strings(self._doc_ids)
        return self._q, self._d

    def __len__(self) -> int:
        if self._query_ids is not None:
            return len(self._query_ids)
        assert self._q is not None  # one of the two is always held
        return len(self._q)

    @classmethod
    def _from_tokens(cls, q, d, values, lines=None, source=FROM_ARRAYS, **more):
        """Records of rows a reader (or a stage) made: the id tokens ``q``
        and ``d``, the labels or scores ``values``, the 0-based file line of
        each row (or None) and the source's name; ids stay tokens until
        asked for as strings."""
        records = cls.__new__(cls)
        records._q, records._d = q, d
        records._lines, records._source = lines, source
        setattr(records, cls._columns[2], values)
        for name, value in more.items():
            setattr(records, name, value)
        return records

    @staticmethod
    def _checked_values(values):  # pragma: no cover - each record has its own
        raise NotImplementedError

    @classmethod
    def _checked_tokens(cls, q, d, values, **more):
        """Records of ids ``q`` and ``d`` read from a user's columns (tokens,
        or str arrays made tokens), ``values`` checked as the constructor
        checks them (and ``run_id`` for a run)."""
        q, d = (
            ids
            if isinstance(ids, Tokens)
            else Tokens.from_strings(as_str_array(ids, name))
            for ids, name in ((q, "query_ids"), (d, "doc_ids"))
        )
        values = cls._checked_values(values)
        if "run_id" in more:
            more["run_id"] = RUN_ID(more["run_id"])
        lengths = {"query_ids": len(q), "doc_ids": len(d), cls._columns[2]: len(values)}
        if len(set(lengths.values())) > 1:
            raise InvalidInputError(f"columns must have the same length, got {lengths}")
        return cls._from_tokens(q, d, values, **more)

    def _query_codes(self):
        """``(codes, ids)``: the sorted distinct query ids and each row's
        index into them (cached)."""
        cache = self.__dict__.get("_qcodes")
        if cache is None:
            cache = self.__dict__["_qcodes"] = self._tokens()[0].codes()
        return cache

    def _n_queries(self) -> int:
        return int(self._query_codes()[1].shape[0])

    def _frame_data(self):
        """The columns of :meth:`to_frame`, by name."""
        return {
            column: getattr(self, name)
            for name, column in zip(self._columns, self._frame_columns, strict=True)
        }

    @checked(backend=BACKEND)
    def to_frame(self, backend: Literal["pandas", "polars"] = "pandas") -> Any:
        """The records as a pandas (or polars) DataFrame, one row per line.

        The columns have ir_measures' names, the first ones
        :func:`skirm.io.as_qrels` and :func:`skirm.io.as_run` look for:
        ``query_id``, ``doc_id``, then ``relevance`` (qrels) or ``score``
        and ``run_id`` (runs), so ``as_run(run.to_frame())`` gives the run
        back. Requires pandas (``pip install skirm[pandas]``), or polars for
        ``backend="polars"`` (``pip install skirm[polars]``).

        Parameters
        ----------
        backend : {"pandas", "polars"}, default="pandas"
            The library of the frame.

        Returns
        -------
        frame : pandas.DataFrame or polars.DataFrame
        """
        columns = self._frame_data()
        owner = f"{type(self).__name__}.to_frame"
        if backend == "polars":
            return polars_frame(columns, owner)
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise MissingDependencyError(
                f"{owner} requires pandas; install it with `pip install skirm[pandas]`"
            ) from exc
        return pd.DataFrame(columns)


class Qrels(_Records):
    """Relevance judgements: one row per ``(query, document)`` pair.

    Parameters
    ----------
    query_ids, doc_ids : array-like of str, shape (n,)
        Query and document ids.
    labels : array-like of int, shape (n,)
        Relevance levels. Negative values mean "judged non-relevant" (in the
        pool but without a usable judgement).

    Attributes
    ----------
    query_ids, doc_ids : ndarray of str
    labels : ndarray of int64

    Notes
    -----
    A docno may be listed twice for a query, as in a file; like trec_eval,
    :func:`skirm.trec.evaluate_run` then raises ValueError if that query is
    evaluated.

    Examples
    --------
    >>> from skirm.io import Qrels
    >>> qrels = Qrels(["q1", "q1"], ["d1", "d2"], [1, 0])
    >>> len(qrels), qrels.labels.tolist()
    (2, [1, 0])
    """

    _columns = ("query_ids", "doc_ids", "labels")
    _frame_columns = ("query_id", "doc_id", "relevance")

    def __init__(
        self, query_ids: ArrayLike, doc_ids: ArrayLike, labels: ArrayLike
    ) -> None:
        self._query_ids = as_str_array(query_ids, "query_ids")
        self._doc_ids = as_str_array(doc_ids, "doc_ids")
        self.labels = self._checked_values(labels)
        _check_lengths(self, ("query_ids", "doc_ids", "labels"))

    @staticmethod
    def _checked_values(labels):
        labels = np.asarray(labels)
        if labels.dtype.kind == "f" and np.all(labels == np.round(labels)):
            labels = labels.astype(np.int64)
        if labels.dtype.kind not in "biu":
            raise InvalidInputError(
                f"`labels` must hold integer relevance levels, got dtype {labels.dtype}"
            )
        return labels.astype(np.int64, copy=False).reshape(-1)

    def __repr__(self):
        return f"Qrels(n_judgments={len(self)}, n_queries={self._n_queries()})"


class Run(_Records):
    """A ranked retrieval run: one scored document per row.

    Parameters
    ----------
    query_ids, doc_ids : array-like of str, shape (n,)
        Query and document ids.
    scores : array-like of float, shape (n,)
        Retrieval scores; higher ranks first.
    run_id : str, default="skirm"
        The run's name (the last column of a run file).

    Attributes
    ----------
    query_ids, doc_ids : ndarray of str
    scores : ndarray of float64
    run_id : str

    Notes
    -----
    A docno may be listed twice for a query, as in a file; like trec_eval,
    :func:`skirm.trec.evaluate_run` then raises ValueError if that query is
    evaluated and both copies are within its ``max_docs`` (it never counts a
    document twice).

    Examples
    --------
    >>> from skirm.io import Run
    >>> run = Run(["q1", "q1"], ["d1", "d2"], [0.5, 1.5], run_id="bm25")
    >>> run
    Run(run_id='bm25', n_rows=2, n_queries=1)
    """

    _columns = ("query_ids", "doc_ids", "scores")
    _frame_columns = ("query_id", "doc_id", "score")

    def __init__(
        self,
        query_ids: ArrayLike,
        doc_ids: ArrayLike,
        scores: ArrayLike,
        run_id: str = "skirm",
    ) -> None:
        self._query_ids = as_str_array(query_ids, "query_ids")
        self._doc_ids = as_str_array(doc_ids, "doc_ids")
        self.scores = self._checked_values(scores)
        self.run_id = RUN_ID(run_id)
        _check_lengths(self, ("query_ids", "doc_ids", "scores"))
        if np.isnan(self.scores).any():
            at = int(np.flatnonzero(np.isnan(self.scores))[0])
            raise InvalidInputError(
                "`scores` must not contain NaN, got NaN for query "
                f"{str(self._query_ids[at])!r}, document {str(self._doc_ids[at])!r}"
            )

    @staticmethod
    def _checked_values(scores):
        scores = np.asarray(scores)
        if scores.dtype.kind not in "biuf":
            raise InvalidInputError(
                f"`scores` must be real numbers, got dtype {scores.dtype}"
            )
        return scores.astype(np.float64, copy=False).reshape(-1)

    def _frame_data(self):
        return {**super()._frame_data(), "run_id": self.run_id}

    def __repr__(self):
        return (
            f"Run(run_id={self.run_id!r}, n_rows={len(self)}, "
            f"n_queries={self._n_queries()})"
        )


def as_str_array(values, name):
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidInputError(f"`{name}` must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind == "S":
        return np.char.decode(arr, "utf-8")
    if arr.dtype.kind != "U":
        arr = arr.astype(str)
    return arr


def _check_lengths(record, names):
    lengths = {name: len(getattr(record, name)) for name in names}
    if len(set(lengths.values())) > 1:
        raise InvalidInputError(f"columns must have the same length, got {lengths}")
