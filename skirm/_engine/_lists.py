"""Ranked id lists and relevant sets, turned into the engine's ranking.

A recommender or a retrieval pipeline gives, per query, a ranked list of item
ids, and the ground truth is a set of relevant ids or a ``{id: grade}`` dict.
:func:`from_lists` matches the two once, with vectorised numpy over all
queries, and keeps what the engine needs: the label of each listed item in
list order (rank = position, no ties) and every judged label of each query,
so that relevant ids missing from the list still count in R and in the ideal
DCG.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Set
from typing import TYPE_CHECKING

import numpy as np

from skirm._engine._encode import encode_groups
from skirm._engine._list_ids import flatten_padded, id_array, int_ids
from skirm._engine._ranking import Ranking
from skirm._engine._ranking_parts import Judgments
from skirm._engine._runs import check_groups
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._frames import flatten_list_column, is_list_column
from skirm._params import as_python, describe
from skirm._validation import check_sample_weight, first_repeat

if TYPE_CHECKING:
    from collections.abc import Hashable, Sequence
    from typing import Any

    from numpy.typing import ArrayLike, NDArray


class RankedLists:
    """Ranked id lists matched to their relevance judgements.

    Build one with :func:`skirm.metrics.from_lists`; pass it as ``y_true``
    (with ``y_score=None``) to any metric function or to
    :func:`skirm.metrics.evaluate`.

    Attributes
    ----------
    group_ids : ndarray of shape (n_queries,)
        The query labels, sorted.
    sizes : ndarray of shape (n_queries,)
        The length of each ranked list.
    labels : ndarray of shape (n_listed,)
        The grade of each listed item, query by query in list order (0 for an
        item the ground truth does not name).
    judged : ndarray of shape (n_listed,) of bool, or None
        Whether each listed item is judged: with ``{id: grade}`` dicts, an id
        its query's dict does not name is unjudged (a dict's 0 marks a
        judged non-relevant id, as in qrels). ``None`` when every listed item
        is judged (relevant sets: an id not in the set is non-relevant).
    judged_codes, judged_labels : ndarray of shape (n_judged,)
        Query code and grade of every id of the ground truth, listed or not.
    """

    def __init__(
        self,
        group_ids: NDArray[Any],
        sizes: NDArray[np.intp],
        labels: NDArray[np.float64],
        judged_codes: NDArray[np.intp],
        judged_labels: NDArray[np.float64],
        input_order: NDArray[np.intp] | None = None,
        judged: NDArray[np.bool_] | None = None,
    ) -> None:
        self.group_ids = group_ids
        self.input_order = input_order
        self.sizes = sizes
        self.labels = labels
        self.judged = judged
        self.judged_codes = judged_codes
        self.judged_labels = judged_labels

    @property
    def n_queries(self) -> int:
        return int(self.group_ids.shape[0])

    def __repr__(self) -> str:
        return (
            f"RankedLists(n_queries={self.n_queries}, n_listed={self.labels.shape[0]}, "
            f"n_judged={self.judged_labels.shape[0]})"
        )

    def _repr_html_(self) -> str:
        """The notebook display: the counts, the list sizes and the grades of
        the first lists, of a size that does not grow with the lists."""
        from skirm._engine._lists_html import render

        return render(self)

    def to_rows(
        self,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[Any]]:
        """The listed items as rows: ``(y_true, y_score, groups)``.

        The score of an item is minus its position, so ranking the rows
        gives back the lists. The rows carry no relevant item the lists
        miss: metrics on them use R from the listed items only. An unjudged
        item (an id its query's ``{id: grade}`` dict does not name) has the
        label NaN, which the metrics read as the ``unjudged`` option says.

        Returns
        -------
        y_true, y_score, groups : ndarray of shape (n_listed,)
        """
        codes = self._codes()
        starts = np.cumsum(self.sizes) - self.sizes
        position = np.arange(codes.shape[0]) - starts[codes]
        score = np.negative(position, dtype=np.float64) + 0.0
        labels = self.labels.copy()
        if self.judged is not None:
            labels[~self.judged] = np.nan
        return labels, score, self.group_ids[codes]

    def condensed(self) -> RankedLists:
        """The lists without their unjudged items (Sakai's condensed lists,
        trec_eval ``-J``); the same lists when every item is judged."""
        if self.judged is None:
            return self
        keep = self.judged
        sizes = np.bincount(self._codes()[keep], minlength=self.n_queries)
        sizes = sizes.astype(np.intp)
        return RankedLists(
            self.group_ids,
            sizes,
            self.labels[keep],
            self.judged_codes,
            self.judged_labels,
            self.input_order,
        )

    def ranking(
        self,
        group_weights: NDArray[np.float64] | None = None,
        unjudged: str = "nonrelevant",
    ) -> Ranking:
        """The engine's ranking of the lists: already in rank order, no ties.

        Unjudged items (see ``judged``) count as non-relevant, or are dropped
        first with ``unjudged="condensed"``; the ranking marks them either
        way (``judged``, ``n_unjudged``), as it marks NaN labels of rows.

        Parameters
        ----------
        group_weights : ndarray of shape (n_queries,), default=None
            One weight per list, for the weighted mean over queries.
        unjudged : {"nonrelevant", "condensed"}, default="nonrelevant"
            Unjudged items count as non-relevant, or are dropped before
            ranking.
        """
        if self.judged is None:
            return self._ranking(group_weights)
        n_unjudged = np.bincount(self._codes()[~self.judged], minlength=self.n_queries)
        if unjudged == "condensed":
            ranking = self.condensed()._ranking(group_weights)
        else:
            ranking = self._ranking(group_weights)
            ranking.judged = self.judged
        ranking.n_unjudged = n_unjudged
        return ranking

    def _codes(self) -> NDArray[np.intp]:
        """The query code of each listed item."""
        return np.repeat(np.arange(self.n_queries, dtype=np.intp), self.sizes)

    def _ranking(self, group_weights) -> Ranking:
        """The ranking of the listed items as they are (no item dropped)."""
        n = self.labels.shape[0]
        codes = self._codes()
        starts = np.zeros(self.n_queries + 1, dtype=np.intp)
        np.cumsum(self.sizes, out=starts[1:])
        # Scores order the rows: the rows left in the list, from its size down
        # to 1. They are positive, so a listed item is never taken as scored
        # 0 or less, which the compat measure puts after the relevant ids the
        # list misses.
        scores = (starts[1:][codes] - np.arange(n)).astype(np.float64)
        ranking = Ranking(
            np.arange(n, dtype=np.intp),
            codes,
            self.labels,
            scores,
            self.group_ids,
            "first",
            group_weights,
            Judgments(self.judged_codes, self.judged_labels),
            sizes=self.sizes,
            starts=starts,
        )
        ranking.__dict__["_blocks"] = None  # positions are distinct: no ties
        return ranking


def is_lists_input(y_true) -> bool:
    """True for a :class:`RankedLists` or a sequence of sets / dicts.

    Looks at the first item only (numeric arrays and Series are never lists).
    """
    if isinstance(y_true, RankedLists):
        return True
    if isinstance(y_true, (str, bytes)) or not hasattr(y_true, "__len__"):
        return False
    kind = getattr(getattr(y_true, "dtype", None), "kind", "O")
    if kind != "O" or len(y_true) == 0:
        return False
    items = getattr(y_true, "iloc", y_true)
    try:
        first = items[0]
    except (TypeError, KeyError, IndexError):
        return False
    return isinstance(first, (Set, Mapping))


def _values(column):
    """The items of a list, tuple, pandas Series or 1-D object array."""
    values = getattr(column, "tolist", None)
    return values() if callable(values) and not isinstance(column, list) else column


def from_lists(
    y_pred: Sequence[Sequence[Hashable]] | ArrayLike,
    y_true: (
        Sequence[Set[Any]]
        | Sequence[Mapping[Any, float]]
        | Sequence[Sequence[Hashable]]
        | ArrayLike
    ),
    *,
    groups: ArrayLike | None = None,
    padding: Hashable | None = None,
) -> RankedLists:
    """Match ranked id lists to relevant sets or graded dicts, once.

    Parameters
    ----------
    y_pred : sequence of sequences, or 2-D array of shape (n_queries, depth)
        One ranked list of item ids per query, best first (ragged Python
        lists, a list column of a pandas DataFrame, a polars ``List`` or
        ``Array`` Series, a pyarrow list array, or a 2-D id array). Ids are
        any hashable numbers or strings, unique within a list.
    y_true : sequence of sets, dicts or sequences
        The ground truth of each query, aligned with ``y_pred``: a set (or
        list) of relevant ids, each of grade 1, or an ``{id: grade}`` dict
        of non-negative grades (0 for a judged non-relevant id). A polars or
        pyarrow list column holds relevant ids (grade 1); graded judgements
        come as dicts.
    groups : array-like of shape (n_queries,), default=None
        A label for each query (e.g. user ids; a polars Series or pyarrow
        array too); ``None`` numbers the queries from 0 in the order given.
    padding : scalar, default=None
        In a 2-D ``y_pred``, the id that marks the end of a shorter list
        (e.g. ``-1``); every cell after it must be padding too.

    Returns
    -------
    lists : RankedLists
        Pass it as ``y_true`` (``y_score=None``) to any metric function or
        :func:`skirm.metrics.evaluate`; ``lists.to_rows()`` gives the
        equivalent flat rows.

    Notes
    -----
    The rank of an item is its position in the list: there are no ties.
    Relevant ids missing from a list count in R (recall, average precision,
    R-precision) and in the ideal DCG, as qrels do in trec_eval. With
    ``{id: grade}`` dicts, a listed id its query's dict does not name is
    unjudged, as a document missing from qrels is: non-relevant for the
    metrics, dropped first with ``unjudged="condensed"`` (trec_eval ``-J``),
    and counted as unjudged by ``judged@k``. With sets, every id not in the
    set is judged non-relevant. Metric
    functions also accept the lists directly, ``ndcg_score(y_true=sets,
    y_score=lists)``, when ``y_true`` holds sets or dicts.

    Examples
    --------
    >>> from skirm.metrics import from_lists, recall_at_k_score, evaluate
    >>> ranked = [["a", "b", "c"], ["x", "y"]]
    >>> relevant = [{"a", "c", "z"}, {"y"}]
    >>> lists = from_lists(ranked, relevant, groups=["u1", "u2"])
    >>> lists
    RankedLists(n_queries=2, n_listed=5, n_judged=4)
    >>> recall_at_k_score(lists, None, k=2)  # 'z' counts in R
    0.666...
    >>> recall_at_k_score(relevant, ranked, k=2)  # the same, without from_lists
    0.666...
    >>> evaluate(lists, None, metrics=["P@2", "ndcg@3"]).per_query["P@2"]
    array([0.5, 0.5])
    """
    pred_ids, sizes = flatten_lists(y_pred, padding)
    n_queries = sizes.shape[0]
    if not sizes.any():
        raise InvalidInputError(
            "`y_pred` must hold at least one id: every list is empty"
        )
    truth_ids, grades, truth_sizes, graded = _flatten_truth(y_true, n_queries)
    if groups is None:
        group_ids = np.arange(n_queries)
        order = None
    else:
        labels = check_groups(groups, n_queries)
        codes, group_ids = encode_groups(labels)
        if group_ids.shape[0] != n_queries:
            dup = first_repeat(codes)[1]
            raise InvalidInputError(
                f"`groups` must hold one distinct label per query, got "
                f"{as_python(labels[dup])!r} twice"
            )
        order = np.argsort(codes, kind="stable")
        if np.array_equal(order, np.arange(n_queries)):
            order = None
    pred_q = np.repeat(np.arange(n_queries, dtype=np.intp), sizes)
    truth_q = np.repeat(np.arange(n_queries, dtype=np.intp), truth_sizes)
    ids = _id_codes(pred_ids, truth_ids)
    n_ids = int(ids.max(initial=-1)) + 1
    truth_key = truth_q * n_ids + ids[pred_ids.shape[0] :]
    _check_unique(truth_key, truth_q, "y_true", "ground truth")
    sorted_key, rows = _sorted_lists(ids[: pred_ids.shape[0]], pred_q, sizes, n_ids)
    labels, found = _lookup(sorted_key, rows, truth_key, grades)
    # An id a graded dict does not name is unjudged; a set names the relevant
    # ids only, and every other id is judged non-relevant.
    judged = None if found.all() or not graded else found
    if order is not None:
        labels, sizes, codes_j, grades, judged = _reorder(
            order, labels, sizes, truth_q, grades, judged
        )
    else:
        codes_j = truth_q
    return RankedLists(group_ids, sizes, labels, codes_j, grades, order, judged)


def flatten_lists(y_pred, padding):
    """All ids of all lists, concatenated, and each list's length."""
    if y_pred is None:
        raise InvalidInputError(
            "`y_pred` must be a sequence of ranked id lists, got None"
        )
    if isinstance(y_pred, np.ndarray) and y_pred.ndim == 2:
        return flatten_padded(y_pred, padding)
    if padding is None and is_list_column(y_pred):  # polars or pyarrow lists
        ids, sizes = flatten_list_column(y_pred, "y_pred")
        if sizes.shape[0] == 0:
            raise InvalidInputError(
                "`y_pred` must hold at least one ranked list, got none"
            )
        return id_array(ids, "y_pred"), sizes
    if padding is not None:
        raise InvalidParameterError(
            "`padding` is only for a 2-D array `y_pred`, got "
            f"{describe(y_pred)} with padding={padding!r}"
        )
    if isinstance(y_pred, (str, bytes, Set, Mapping)) or not hasattr(y_pred, "__len__"):
        raise InvalidInputError(
            "`y_pred` must be a sequence of ranked id lists (one per query), got "
            f"{describe(y_pred)}"
        )
    rows = _values(y_pred)
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes, Set, Mapping)) or not hasattr(row, "__len__"):
            raise InvalidInputError(
                f"`y_pred` must hold one ranked list (a sequence of ids) per query; "
                f"item {i} is {describe(row)}"
                + (" (a set has no order)" if isinstance(row, Set) else "")
            )
    sizes = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
    if sizes.shape[0] == 0:
        raise InvalidInputError("`y_pred` must hold at least one ranked list, got none")
    ints = int_ids(rows, int(sizes.sum()))
    if ints is not None:
        return ints, sizes
    flat = list(itertools.chain.from_iterable(map(_values, rows)))
    return id_array(flat, "y_pred"), sizes


def _flatten_truth(y_true, n_queries):
    if y_true is None or isinstance(y_true, (str, bytes, Set, Mapping)):
        raise InvalidInputError(
            "`y_true` must be a sequence with one set of relevant ids or one "
            f"{{id: grade}} dict per query, got {describe(y_true)}"
        )
    if is_list_column(y_true):  # polars or pyarrow lists of relevant ids
        ids, sizes = flatten_list_column(y_true, "y_true")
        if sizes.shape[0] != n_queries:
            raise InvalidInputError(
                f"`y_true` must hold one ground truth per ranked list: expected "
                f"{n_queries}, got {sizes.shape[0]}"
            )
        return id_array(ids, "y_true"), np.ones(ids.shape[0]), sizes, False
    rows = _values(y_true)
    if isinstance(y_true, np.ndarray) and y_true.ndim == 2:
        rows = list(y_true)
    if len(rows) != n_queries:
        raise InvalidInputError(
            f"`y_true` must hold one ground truth per ranked list: expected "
            f"{n_queries}, got {len(rows)}"
        )
    graded = [isinstance(row, Mapping) for row in rows]
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise InvalidInputError(
                f"`y_true` item {i} must be a set of relevant ids or an "
                f"{{id: grade}} dict, got {describe(row)}"
            )
    if any(graded) and not all(graded):
        i = graded.index(not graded[0])
        raise InvalidInputError(
            "`y_true` must hold only sets (or lists) of relevant ids or only "
            f"{{id: grade}} dicts, got a mix: item 0 is {type(rows[0]).__name__}, "
            f"item {i} is {type(rows[i]).__name__}"
        )
    sizes = np.fromiter(map(len, rows), dtype=np.intp, count=n_queries)
    if graded and graded[0]:
        ids = list(itertools.chain.from_iterable(map(Mapping.keys, rows)))
        grades = list(itertools.chain.from_iterable(map(Mapping.values, rows)))
        grades = _grades(grades)
    else:
        ids = list(itertools.chain.from_iterable(map(_values, rows)))
        grades = np.ones(len(ids))
    return id_array(ids, "y_true"), grades, sizes, bool(graded and graded[0])


def _grades(values):
    try:
        grades = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(
            "the grades of `y_true` ({id: grade} dicts) must be real numbers"
        ) from None
    bad = ~np.isfinite(grades) | (grades < 0)
    if bad.any():
        raise InvalidInputError(
            "the grades of `y_true` must be finite and non-negative, got "
            f"{as_python(grades[np.argmax(bad)])!r}"
        )
    return grades


def _id_codes(pred_ids, truth_ids):
    """Dense codes of the ids of both sides, in one space."""
    if pred_ids.dtype.kind in "biu" and truth_ids.dtype.kind in "biu":
        both = np.concatenate([pred_ids.astype(np.int64), truth_ids.astype(np.int64)])
    else:
        both = np.concatenate([pred_ids.astype(object), truth_ids.astype(object)])
    if both.shape[0] == 0:
        return np.zeros(0, dtype=np.intp)
    try:
        return encode_groups(both)[0]
    except TypeError:
        raise InvalidInputError(
            "item ids must be mutually comparable (all ints or all strings) "
            "across `y_pred` and `y_true`"
        ) from None


def _check_unique(keys, queries, name, what):
    if keys.shape[0] < 2:
        return
    order = np.argsort(keys, kind="stable")
    same = keys[order][1:] == keys[order][:-1]
    if same.any():
        q = int(queries[order][1:][np.argmax(same)])
        raise InvalidInputError(f"`{name}` {what} {q} names the same id twice")


def _sorted_lists(id_codes, codes, sizes, n_ids):
    """Every list's ``(query, id)`` keys sorted, with the row each came from.

    Each list is sorted on its own: the id code and the position share one
    64-bit key, the keys go into a matrix with one list per line, and the
    lines are sorted (short, cache-resident sorts, as the ranking engine does
    for scores). Queries ascend, so the keys are then sorted globally. A list
    naming an id twice is an error.
    """
    n = id_codes.shape[0]
    starts = np.cumsum(sizes) - sizes
    width = int(sizes.max())
    bits = max(int(width - 1).bit_length(), 1)
    position = np.arange(n, dtype=np.intp) - starts[codes]
    if sizes.shape[0] * width > 3 * n + 1024 or n_ids >= 1 << (63 - bits):
        key = codes.astype(np.int64) * n_ids + id_codes
        order = np.argsort(key, kind="stable")
        sorted_key, rows = key[order], order
    else:
        # Non-negative int64 values: the uint64 views are the same numbers.
        packed = np.left_shift(id_codes.astype(np.int64, copy=False), bits)
        packed |= position
        if n == sizes.shape[0] * width:  # every list full: no padding cells
            packed.view(np.uint64).reshape(-1, width).sort(axis=1)
        else:
            lines = np.full(sizes.shape[0] * width, np.iinfo(np.uint64).max, np.uint64)
            cell = codes * width
            cell += position
            lines[cell] = packed.view(np.uint64)
            lines = lines.reshape(-1, width)
            lines.sort(axis=1)
            packed = lines.reshape(-1)[cell].view(np.int64)
            del lines, cell
        rows = packed & ((1 << bits) - 1)
        rows += starts[codes]
        sorted_key = np.right_shift(packed, bits, out=packed)
        sorted_key += codes * n_ids
    same = sorted_key[1:] == sorted_key[:-1]
    if same.any():
        q = int(codes[1:][np.argmax(same)])
        raise InvalidInputError(f"`y_pred` ranked list {q} names the same id twice")
    return sorted_key, rows


def _lookup(sorted_key, rows, truth_key, grades):
    """The grade of each listed id (0 when the ground truth does not name
    it), and whether the ground truth names it."""
    labels = np.zeros(rows.shape[0])
    named = np.zeros(rows.shape[0], dtype=bool)
    if truth_key.shape[0] == 0 or rows.shape[0] == 0:
        return labels, named
    at = np.minimum(np.searchsorted(sorted_key, truth_key), rows.shape[0] - 1)
    found = sorted_key[at] == truth_key
    labels[rows[at[found]]] = grades[found]
    named[rows[at[found]]] = True
    return labels, named


def _reorder(order, labels, sizes, truth_q, grades, judged):
    """Queries in sorted label order (``order[new] = old``)."""
    starts = np.cumsum(sizes) - sizes
    new_sizes = sizes[order]
    rows = np.repeat(starts[order] - (np.cumsum(new_sizes) - new_sizes), new_sizes)
    rows += np.arange(rows.shape[0])
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(order.shape[0])
    judged = None if judged is None else judged[rows]
    return labels[rows], new_sizes, rank_of[truth_q], grades, judged


def rank_lists(y_true, y_score, groups, sample_weight, unjudged="nonrelevant"):
    """The ranking of list input given to a metric function or ``evaluate``.

    Unjudged items (ids a graded dict does not name) are non-relevant, or
    dropped with ``unjudged="condensed"``: absence from a dict is how qrels
    mark an unjudged id, not a mistake, so ``"raise"`` (the default for NaN
    labels of rows) reads them as non-relevant, as trec_eval does.
    """
    if isinstance(y_true, RankedLists):
        if y_score is not None or groups is not None:
            raise InvalidParameterError(
                "with `y_true` from from_lists(), `y_score` and `groups` must be "
                f"None, got y_score={describe(y_score)}, groups={describe(groups)}"
            )
        lists = y_true
    else:
        if y_score is None:
            raise InvalidParameterError(
                "`y_score` must hold the ranked id lists when `y_true` holds "
                "relevant sets or {id: grade} dicts, got None"
            )
        lists = from_lists(y_score, y_true, groups=groups)
    weights = check_sample_weight(sample_weight, lists.n_queries)
    if weights is not None and lists.input_order is not None:
        weights = weights[lists.input_order]
    return lists.ranking(weights, unjudged)
