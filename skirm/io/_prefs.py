"""trec_eval's other relevance formats: judgment groups and preferences.

* ``-R qrels_jg``: a qrels file whose second column names the user judgment
  group (JG) of the judgement, ``qid jg docno rel``. Each group is a complete
  set of judgements for the query (one assessor, say); the ``*_avgjg``
  measures evaluate the run against each group and average over the groups.
* ``-R prefs``: ``qid jg jsg docno level`` lines. Within a judgment
  sub-group (JSG) a document with a higher level is preferred to one with a
  lower level; the JSGs of a JG together form one consistent (transitively
  closed) preference relation.
* ``-R qrels_prefs``: a qrels file read as preferences, the second column
  being the JG and each JG one JSG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError, TrecFormatError
from skirm.io._keys import dense_codes
from skirm.io._records import Qrels, as_str_array
from skirm.io._text import Table, empty_or_spaced, read_bytes
from skirm.io._tokens import Tokens, first_duplicate

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from skirm._typing import PathOrFile

__all__ = ["Prefs", "QrelsJG", "read_prefs", "read_qrels_jg", "read_qrels_prefs"]

#: Joins a query id and a group name into one id; ids hold no whitespace,
#: and a tab sorts before every printable byte, so joined ids sort as pairs.
SEP = "\t"


class QrelsJG:
    """Relevance judgements in judgment groups: one row per (query, group,
    document).

    Parameters
    ----------
    query_ids, groups, doc_ids : array-like of str, shape (n,)
        Query, judgment group and document of each judgement.
    labels : array-like of int, shape (n,)
        Relevance levels (negative: in the pool but not judged).

    Examples
    --------
    >>> from skirm.io import QrelsJG
    >>> qrels = QrelsJG(["q1", "q1", "q1"], ["a", "a", "b"], ["d1", "d2", "d1"],
    ...                 [1, 0, 0])
    >>> qrels
    QrelsJG(n_judgments=3, n_queries=1, n_groups=2)
    """

    def __init__(
        self,
        query_ids: ArrayLike,
        groups: ArrayLike,
        doc_ids: ArrayLike,
        labels: ArrayLike,
    ) -> None:
        self._query_ids = as_str_array(query_ids, "query_ids")
        self._groups = as_str_array(groups, "groups")
        self._doc_ids = as_str_array(doc_ids, "doc_ids")
        labels = np.asarray(labels)
        if labels.dtype.kind == "f" and np.all(labels == np.round(labels)):
            labels = labels.astype(np.int64)
        if labels.dtype.kind not in "biu" or labels.ndim != 1:
            raise InvalidInputError(
                "`labels` must be a 1-D array of integer relevance levels, got "
                f"dtype {labels.dtype} with shape {labels.shape}"
            )
        self.labels = labels.astype(np.int64)
        _check_columns(self, ("query_ids", "groups", "doc_ids"), "labels")
        self._set_tokens(
            *(
                Tokens.from_strings(ids)
                for ids in (self._query_ids, self._groups, self._doc_ids)
            )
        )

    @classmethod
    def _from_tokens(cls, q, g, d, labels):
        """Judgements of ids read as tokens from a file (never empty, never
        holding whitespace) and int64 ``labels``; the ids become strings
        only when asked for."""
        qrels = cls.__new__(cls)
        qrels._query_ids = qrels._groups = qrels._doc_ids = None
        qrels.labels = labels
        qrels._set_tokens(q, g, d)
        return qrels

    def _set_tokens(self, q, g, d):
        """Keep the ids' tokens and each row's (query, group) code; refuse a
        docno twice in a group of a query."""
        self._q, self._g, self._d = q, g, d
        self._topic_codes = row_codes(q, g)
        pair = first_duplicate(self._topic_codes, d)
        if pair is not None:
            dup = pair[1]
            raise InvalidInputError(
                f"duplicate docno {str(self.doc_ids[dup])!r} in group "
                f"{str(self.groups[dup])!r} of query {str(self.query_ids[dup])!r}; "
                "expected each docno once per query and group"
            )

    @property
    def query_ids(self) -> NDArray[np.str_]:
        """Query of each judgement (str)."""
        if self._query_ids is None:
            self._query_ids = self._q.strings()
        return self._query_ids

    @property
    def groups(self) -> NDArray[np.str_]:
        """Judgment group of each judgement (str)."""
        if self._groups is None:
            self._groups = self._g.strings()
        return self._groups

    @property
    def doc_ids(self) -> NDArray[np.str_]:
        """Document of each judgement (str)."""
        if self._doc_ids is None:
            self._doc_ids = self._d.strings()
        return self._doc_ids

    def __len__(self):
        return self.labels.shape[0]

    def __repr__(self):
        return (
            f"QrelsJG(n_judgments={len(self)}, "
            f"n_queries={self._graded()._n_queries()}, "
            f"n_groups={self._n_topics()})"
        )

    def topics(self) -> NDArray[np.str_]:
        """Each row's (query, group) joined into one id (``qid<TAB>group``)."""
        return np.char.add(np.char.add(self.query_ids, SEP), self.groups)

    def _n_topics(self) -> int:
        """The number of distinct (query, group) pairs."""
        return int(self._topic_codes.max(initial=-1)) + 1

    def _graded(self) -> Qrels:
        """The judgements as ordinary qrels, the groups dropped (their ids'
        tokens shared): built once and kept, so that every evaluation of
        these judgements joins runs to one index of them
        (:func:`~skirm.io._join.index_of`)."""
        graded = self.__dict__.get("_graded_qrels")
        if graded is None:
            graded = Qrels._from_tokens(
                self._q,
                self._d,
                self.labels,
                _query_ids=self._query_ids,
                _doc_ids=self._doc_ids,
            )
            self.__dict__["_graded_qrels"] = graded
        return graded


def row_codes(*columns):
    """Each row's code of its ids in ``columns`` (:class:`Tokens` of one
    length) taken together: rows with equal ids in every column, and only
    they, have equal codes (dense ranks in byte order, combined column by
    column)."""
    first, *more = columns
    codes = first.byte_rank()
    for column in more:
        rank = column.byte_rank()
        codes *= int(rank.max(initial=0)) + 1
        codes += rank
        codes = dense_codes(codes)
    return codes


def _check_columns(record, id_names, value_name):
    names = (*id_names, value_name)
    lengths = {name: getattr(record, name).shape[0] for name in names}
    if len(set(lengths.values())) > 1:
        raise InvalidInputError(f"columns must have the same length, got {lengths}")
    for name in id_names:
        values = getattr(record, name)
        bad = empty_or_spaced(values)
        if bad.any():
            raise InvalidInputError(
                f"`{name}` must be non-empty strings without whitespace, got "
                f"{str(values[np.argmax(bad)])!r}"
            )


def read_qrels_jg(source: PathOrFile) -> QrelsJG:
    """Read a trec_eval ``qrels_jg`` file (``qid jg docno rel`` per line).

    Parameters
    ----------
    source : str, path-like or file
        A path (``.gz`` is decompressed transparently) or an open file.

    Returns
    -------
    qrels : QrelsJG

    Raises
    ------
    TrecFormatError
        For a malformed line (``file:line: ...``) or a docno judged twice in
        the same group of a query.

    Examples
    --------
    >>> import io
    >>> from skirm.io import read_qrels_jg
    >>> text = "1 a d1 1\\n1 a d2 0\\n1 b d1 0\\n1 b d2 2\\n"
    >>> qrels = read_qrels_jg(io.StringIO(text))
    >>> qrels.groups.tolist(), qrels.labels.tolist()
    (['a', 'a', 'b', 'b'], [1, 0, 0, 2])
    """
    qids, groups, docs, labels, name = read_four_columns(
        source, "4 fields: qid jg docno rel", tokens=True
    )
    try:
        return QrelsJG._from_tokens(qids, groups, docs, labels)
    except ValueError as exc:
        raise TrecFormatError(f"{name}: {exc}") from None


def read_four_columns(
    source: PathOrFile, shape: str, tokens: bool = False, read=read_bytes
):
    """``(qids, groups, docs, labels, name)``: the columns of a file of
    ``qid group docno label`` lines, in file order, read by vectorised
    passes over its bytes (``shape`` names the fields in the message of a
    line that has another number of them); the ids as str arrays, or as
    :class:`~skirm.io._tokens.Tokens` with ``tokens``. ``read`` reads the
    bytes (:func:`~skirm.io._text.read_str_split`: as ``line.split()``)."""
    data, n, name = read(source)
    table = Table(data, n, name, (0, 1, 2, 3))
    table.check_counts(4, 4, shape)
    labels = table.numbers(3, np.int64, "expected an integer relevance label")
    ids = [table.tokens(j) for j in (0, 1, 2)]
    if not tokens:
        ids = [column.strings() for column in ids]
    return *ids, labels, name


class Prefs:
    """Preference judgements: one row per (query, JG, JSG, document).

    Within a judgment sub-group (JSG) every document is preferred to the
    documents with a lower level; the sub-groups of a judgment group (JG)
    combine transitively. By convention level 0 means non-relevant.

    Parameters
    ----------
    query_ids, groups, subgroups, doc_ids : array-like of str, shape (n,)
        Query, judgment group, judgment sub-group and document of each row.
    levels : array-like of float, shape (n,)
        The levels that order the documents of a sub-group.

    Examples
    --------
    >>> from skirm.io import Prefs
    >>> prefs = Prefs(["q1"] * 3, ["u1"] * 3, ["s1"] * 3, ["a", "b", "c"],
    ...               [2.0, 1.0, 0.0])
    >>> prefs
    Prefs(n_rows=3, n_queries=1, n_groups=1)
    """

    def __init__(
        self,
        query_ids: ArrayLike,
        groups: ArrayLike,
        subgroups: ArrayLike,
        doc_ids: ArrayLike,
        levels: ArrayLike,
    ) -> None:
        self.query_ids = as_str_array(query_ids, "query_ids")
        self.groups = as_str_array(groups, "groups")
        self.subgroups = as_str_array(subgroups, "subgroups")
        self.doc_ids = as_str_array(doc_ids, "doc_ids")
        levels = np.asarray(levels)
        if levels.dtype.kind not in "biuf" or levels.ndim != 1:
            raise InvalidInputError(
                "`levels` must be a 1-D array of numbers, got dtype "
                f"{levels.dtype} with shape {levels.shape}"
            )
        self.levels = levels.astype(np.float64)
        if np.isnan(self.levels).any():
            raise InvalidInputError("`levels` must not contain NaN")
        _check_columns(self, ("query_ids", "groups", "subgroups", "doc_ids"), "levels")
        units = row_codes(
            *(
                Tokens.from_strings(ids)
                for ids in (self.query_ids, self.groups, self.subgroups)
            )
        )
        pair = first_duplicate(units, Tokens.from_strings(self.doc_ids))
        if pair is not None:
            dup = pair[1]
            raise InvalidInputError(
                f"duplicate docno {str(self.doc_ids[dup])!r} in sub-group "
                f"{str(self.subgroups[dup])!r} of group {str(self.groups[dup])!r} "
                f"of query {str(self.query_ids[dup])!r}; expected each docno "
                "once per sub-group"
            )

    def __len__(self):
        return self.levels.shape[0]

    def __repr__(self):
        return (
            f"Prefs(n_rows={len(self)}, "
            f"n_queries={np.unique(self.query_ids).shape[0]}, "
            f"n_groups={np.unique(self.topics()).shape[0]})"
        )

    def topics(self) -> NDArray[np.str_]:
        """Each row's (query, group) joined into one id (``qid<TAB>group``)."""
        return np.char.add(np.char.add(self.query_ids, SEP), self.groups)


def read_prefs(source: PathOrFile) -> Prefs:
    """Read a trec_eval ``prefs`` file (``qid jg jsg docno level`` per line).

    Parameters
    ----------
    source : str, path-like or file
        A path (``.gz`` is decompressed transparently) or an open file.

    Returns
    -------
    prefs : Prefs

    Examples
    --------
    >>> import io
    >>> from skirm.io import read_prefs
    >>> prefs = read_prefs(io.StringIO("1 u1 s1 d1 3\\n1 u1 s1 d2 0\\n"))
    >>> prefs.doc_ids.tolist(), prefs.levels.tolist()
    (['d1', 'd2'], [3.0, 0.0])
    """
    data, n, name = read_bytes(source)
    table = Table(data, n, name, (0, 1, 2, 3, 4))
    table.check_counts(5, 5, "5 fields: qid jg jsg docno level")
    levels = table.numbers(4, np.float64, "expected a numeric level")
    qids, groups, subgroups, docs = (table.tokens(j).strings() for j in range(4))
    try:
        return Prefs(qids, groups, subgroups, docs, levels)
    except ValueError as exc:
        raise TrecFormatError(f"{name}: {exc}") from None


def read_qrels_prefs(source: PathOrFile) -> Prefs:
    """Read a qrels file as preferences (trec_eval ``-R qrels_prefs``).

    The second column (``iter`` in a qrels file) is the judgment group; each
    group is one sub-group, so every document is preferred to those of the
    same group with a lower level.

    Parameters
    ----------
    source : str, path-like or file

    Returns
    -------
    prefs : Prefs

    Examples
    --------
    >>> import io
    >>> from skirm.io import read_qrels_prefs
    >>> prefs = read_qrels_prefs(io.StringIO("1 0 d1 1\\n1 0 d2 0\\n"))
    >>> prefs
    Prefs(n_rows=2, n_queries=1, n_groups=1)
    """
    data, n, name = read_bytes(source)
    table = Table(data, n, name, (0, 1, 2, 3))
    table.check_counts(4, 4, "4 fields: qid jg docno level")
    levels = table.numbers(3, np.float64, "expected a numeric level")
    qids, groups, docs = (table.tokens(j).strings() for j in (0, 1, 2))
    subgroups = np.full(qids.shape[0], "0")
    try:
        return Prefs(qids, groups, subgroups, docs, levels)
    except ValueError as exc:
        raise TrecFormatError(f"{name}: {exc}") from None
