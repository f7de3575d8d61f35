"""Cross-validation splitters that keep every query whole.

All splitters subclass scikit-learn's public ``BaseCrossValidator``, request
``groups`` by default under metadata routing (as scikit-learn's group
splitters do), read the query ids from a pandas index level when ``groups`` is
not given, and yield ascending train and test indices, so data sorted by query
stays sorted in every fold (LightGBM and XGBoost need that).
"""

from __future__ import annotations

import numbers
import sys
from typing import ClassVar

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state, indexable

from skirm._engine import encode_groups
from skirm._query_ids import (
    check_groups_from,
    groups_from_frame,
    n_rows,
    resolve_groups,
)
from skirm._validation import describe

__all__ = [
    "QueryGroupKFold",
    "QueryGroupShuffleSplit",
    "RepeatedQueryGroupKFold",
    "train_test_split_groups",
]

STRATIFY = (None, "has_relevant", "size")


def _refuse_row_subsampling(owner):
    """Raise when a halving search is about to draw rows out of the folds.

    scikit-learn's ``HalvingGridSearchCV``/``HalvingRandomSearchCV`` with
    ``resource="n_samples"`` wrap the splitter in a private meta-splitter that
    keeps a random fraction of the rows of every fold, cutting queries apart.
    The splitter cannot see that from its arguments, only from its caller: a
    few frames up the stack, an object of that class with a fraction below 1.
    Other callers (and a future scikit-learn that renames the class) are let
    through.
    """
    frame = sys._getframe(2)
    for _ in range(4):
        if frame is None:
            return
        caller = frame.f_locals.get("self")
        if (
            type(caller).__name__ == "_SubsampleMetaSplitter"
            and getattr(caller, "fraction", 1.0) < 1.0
        ):
            raise ValueError(
                f"{owner} was wrapped by a halving search with "
                "resource='n_samples', which keeps a random fraction of the rows "
                "of every fold and so cuts queries apart. Use "
                "skirm.model_selection.QueryHalvingGridSearchCV or "
                "QueryHalvingRandomSearchCV (whole queries as the resource), or "
                "resource='estimator__n_estimators' (boosting rounds)"
            )
        frame = frame.f_back


def _check_int(value, name, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"`{name}` must be an integer >= {low}, got {describe(value)}")
    if value < low:
        raise ValueError(f"`{name}` must be an integer >= {low}, got {value}")
    return int(value)


def _resolve_groups(owner, X, groups, groups_from):
    """Per-row query codes and the number of queries."""
    codes, uniques = encode_groups(resolve_groups(owner, X, groups, groups_from))
    return codes, uniques.shape[0]


def check_size(value, name):
    """``test_size``/``train_size``: None, a fraction in (0, 1) or a count >= 1."""
    if value is None:
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if value >= 1:
            return int(value)
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        if 0.0 < value < 1.0:
            return float(value)
    raise ValueError(
        f"`{name}` must be None, a fraction in (0, 1) or a number of queries >= 1, "
        f"got {describe(value)}"
    )


def _n_train_test(n_groups, test_size, train_size, owner):
    """Numbers of train and test queries, as scikit-learn's shuffle splits."""
    if test_size is None and train_size is None:
        test_size = 0.2

    def count(size, ceil):
        if isinstance(size, float):
            return int(np.ceil(size * n_groups) if ceil else np.floor(size * n_groups))
        return size

    n_test = None if test_size is None else count(test_size, True)
    n_train = None if train_size is None else count(train_size, False)
    if n_test is None:
        n_test = n_groups - n_train
    if n_train is None:
        n_train = n_groups - n_test
    if n_train < 1 or n_test < 1 or n_train + n_test > n_groups:
        raise ValueError(
            f"{owner}: with {n_groups} queries, test_size={test_size!r} and "
            f"train_size={train_size!r} give {n_test} test and {n_train} train "
            "queries; each side needs at least one query and together at most "
            f"{n_groups}"
        )
    return n_train, n_test


# --------------------------------------------------------------------------
# K-fold
# --------------------------------------------------------------------------


class QueryGroupKFold(BaseCrossValidator):
    """K-fold over queries: each query's rows in exactly one test fold.

    Like :class:`sklearn.model_selection.GroupKFold`, with what ranking needs
    on top: the query ids can come from a pandas index level, folds can be
    stratified by a query-level property, and train and test indices are
    always ascending.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2.
    shuffle : bool, default=False
        Shuffle the queries before assigning them to folds. Without shuffling
        the assignment depends only on the sorted query ids (and ``y`` for
        stratification).
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffle; only used when ``shuffle=True``. An int gives the
        same folds at every call.
    stratify : {None, "has_relevant", "size"}, default=None
        ``None`` cuts the (shuffled) queries into ``n_splits`` contiguous
        blocks of nearly equal numbers of queries. ``"has_relevant"`` deals
        the queries with at least one relevant row (``y > 0``) and those
        without round-robin, so each fold gets its share of both (needs
        ``y``). ``"size"`` deals the queries from largest to smallest in a
        serpentine order, balancing the number of rows per fold.
    groups_from : str, default="qid"
        The pandas index level (or column) of ``X`` read for the query ids
        when ``groups`` is None.

    See Also
    --------
    RepeatedQueryGroupKFold, QueryGroupShuffleSplit

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.model_selection import QueryGroupKFold
    >>> groups = np.array([0, 0, 1, 1, 1, 2, 3, 3])
    >>> X = np.zeros((8, 1))
    >>> for train, test in QueryGroupKFold(n_splits=2).split(X, groups=groups):
    ...     print(train, test)
    [5 6 7] [0 1 2 3 4]
    [0 1 2 3 4] [5 6 7]

    The query ids can also travel in the index of a DataFrame:

    >>> import pandas as pd
    >>> frame = pd.DataFrame(X, index=pd.Index(groups, name="qid"))
    >>> [test.tolist() for _, test in QueryGroupKFold(2).split(frame)]
    [[0, 1, 2, 3, 4], [5, 6, 7]]
    """

    __metadata_request__split: ClassVar[dict] = {"groups": True}

    def __init__(
        self,
        n_splits=5,
        *,
        shuffle=False,
        random_state=None,
        stratify=None,
        groups_from="qid",
    ):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state
        self.stratify = stratify
        self.groups_from = groups_from

    def _check_params(self):
        n_splits = _check_int(self.n_splits, "n_splits", 2)
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise TypeError(
                f"`shuffle` must be True or False, got {describe(self.shuffle)}"
            )
        if self.stratify not in STRATIFY or not (
            self.stratify is None or isinstance(self.stratify, str)
        ):
            raise ValueError(
                "`stratify` must be None, 'has_relevant' or 'size', got "
                f"{describe(self.stratify)}"
            )
        check_groups_from(self.groups_from)
        return n_splits

    def _fold_of_group(self, codes, n_groups, y, n_splits, rng):
        """The fold of every query (vectorised)."""
        order = np.arange(n_groups)
        if self.shuffle:
            order = rng.permutation(n_groups)
        if self.stratify == "has_relevant":
            if y is None:
                raise ValueError(
                    "QueryGroupKFold(stratify='has_relevant') needs `y` to tell "
                    "queries with relevant rows from those without, got y=None"
                )
            y = np.asarray(y)
            if y.ndim != 1 or y.shape[0] != codes.shape[0]:
                raise ValueError(
                    f"`y` must be 1-D with one label per row (length "
                    f"{codes.shape[0]}), got shape {y.shape}"
                )
            has_relevant = np.bincount(codes, weights=y > 0, minlength=n_groups) > 0
            order = order[np.argsort(~has_relevant[order], kind="stable")]
            fold = np.arange(n_groups) % n_splits
        elif self.stratify == "size":
            sizes = np.bincount(codes, minlength=n_groups)
            order = order[np.argsort(-sizes[order], kind="stable")]
            position = np.arange(n_groups)
            lap, seat = np.divmod(position, n_splits)
            fold = np.where(lap % 2 == 0, seat, n_splits - 1 - seat)
        else:
            fold = np.repeat(
                np.arange(n_splits),
                np.diff(np.linspace(0, n_groups, n_splits + 1).round().astype(int)),
            )
        fold_of_group = np.empty(n_groups, dtype=np.intp)
        fold_of_group[order] = fold
        return fold_of_group

    def _fold_of_row(self, X, y, groups, rng):
        n_splits = self._check_params()
        codes, n_groups = _resolve_groups(
            type(self).__name__, X, groups, self.groups_from
        )
        if n_splits > n_groups:
            raise ValueError(
                f"Cannot have number of splits n_splits={n_splits} greater than the "
                f"number of queries (groups): {n_groups}"
            )
        return self._fold_of_group(codes, n_groups, y, n_splits, rng)[codes], n_splits

    def split(self, X, y=None, groups=None):
        """Generate ascending indices to split data into training and test set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; a DataFrame may carry the query ids in an index
            level named ``groups_from``.
        y : array-like of shape (n_samples,), default=None
            Relevance labels; needed for ``stratify="has_relevant"``.
        groups : array-like of shape (n_samples,), default=None
            The query of each row; read from ``X`` when None.

        Yields
        ------
        train : ndarray
            The training indices, ascending.
        test : ndarray
            The test indices, ascending.
        """
        _refuse_row_subsampling(type(self).__name__)
        (X,) = indexable(X)
        rng = check_random_state(self.random_state) if self.shuffle else None
        fold_of_row, n_splits = self._fold_of_row(X, y, groups, rng)
        for fold in range(n_splits):
            test = fold_of_row == fold
            yield np.flatnonzero(~test), np.flatnonzero(test)

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of splits: ``n_splits``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; present for API compatibility.

        Returns
        -------
        n_splits : int
        """
        return _check_int(self.n_splits, "n_splits", 2)


class RepeatedQueryGroupKFold(BaseCrossValidator):
    """:class:`QueryGroupKFold` repeated with different shuffles.

    scikit-learn has no repeated group k-fold; this one reshuffles the queries
    ``n_repeats`` times and yields ``n_splits * n_repeats`` splits.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds per repetition, at least 2.
    n_repeats : int, default=10
        Number of repetitions, at least 1.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffles. An int gives the same splits at every call.
    stratify : {None, "has_relevant", "size"}, default=None
        As in :class:`QueryGroupKFold`.
    groups_from : str, default="qid"
        As in :class:`QueryGroupKFold`.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.model_selection import RepeatedQueryGroupKFold
    >>> groups = np.repeat([0, 1, 2, 3], 2)
    >>> cv = RepeatedQueryGroupKFold(n_splits=2, n_repeats=3, random_state=0)
    >>> cv.get_n_splits()
    6
    >>> len(list(cv.split(np.zeros((8, 1)), groups=groups)))
    6
    """

    __metadata_request__split: ClassVar[dict] = {"groups": True}

    def __init__(
        self,
        n_splits=5,
        *,
        n_repeats=10,
        random_state=None,
        stratify=None,
        groups_from="qid",
    ):
        self.n_splits = n_splits
        self.n_repeats = n_repeats
        self.random_state = random_state
        self.stratify = stratify
        self.groups_from = groups_from

    def split(self, X, y=None, groups=None):
        """Generate ascending train and test indices, repetition by repetition.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; a DataFrame may carry the query ids in an index
            level named ``groups_from``.
        y : array-like of shape (n_samples,), default=None
            Relevance labels; needed for ``stratify="has_relevant"``.
        groups : array-like of shape (n_samples,), default=None
            The query of each row; read from ``X`` when None.

        Yields
        ------
        train, test : ndarray
            Ascending indices.
        """
        _refuse_row_subsampling(type(self).__name__)
        n_repeats = _check_int(self.n_repeats, "n_repeats", 1)
        rng = check_random_state(self.random_state)
        for _ in range(n_repeats):
            cv = QueryGroupKFold(
                self.n_splits,
                shuffle=True,
                random_state=rng,
                stratify=self.stratify,
                groups_from=self.groups_from,
            )
            yield from cv.split(X, y, groups)

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of splits: ``n_splits * n_repeats``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; present for API compatibility.

        Returns
        -------
        n_splits : int
        """
        n_splits = _check_int(self.n_splits, "n_splits", 2)
        return n_splits * _check_int(self.n_repeats, "n_repeats", 1)


# --------------------------------------------------------------------------
# Shuffle splits
# --------------------------------------------------------------------------


class QueryGroupShuffleSplit(BaseCrossValidator):
    """Random train/test splits of the queries, each query kept whole.

    Like :class:`sklearn.model_selection.GroupShuffleSplit`, with the query
    ids optionally read from a pandas index level and ascending indices.

    Parameters
    ----------
    n_splits : int, default=5
        Number of re-shuffling and splitting iterations.
    test_size : float, int or None, default=None
        Fraction of the queries (or number of queries) in the test set.
        ``None`` means the complement of ``train_size``, or 0.2 if that is
        None too.
    train_size : float, int or None, default=None
        Fraction (or number) of queries in the training set; ``None`` means
        the complement of ``test_size``.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffles.
    groups_from : str, default="qid"
        The pandas index level (or column) read for the query ids when
        ``groups`` is None.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.model_selection import QueryGroupShuffleSplit
    >>> groups = np.repeat([0, 1, 2, 3, 4], 2)
    >>> cv = QueryGroupShuffleSplit(n_splits=1, test_size=0.4, random_state=0)
    >>> train, test = next(cv.split(np.zeros((10, 1)), groups=groups))
    >>> np.unique(groups[test]).tolist(), np.unique(groups[train]).tolist()
    ([0, 2], [1, 3, 4])
    """

    __metadata_request__split: ClassVar[dict] = {"groups": True}

    def __init__(
        self,
        n_splits=5,
        *,
        test_size=None,
        train_size=None,
        random_state=None,
        groups_from="qid",
    ):
        self.n_splits = n_splits
        self.test_size = test_size
        self.train_size = train_size
        self.random_state = random_state
        self.groups_from = groups_from

    def split(self, X, y=None, groups=None):
        """Generate ascending train and test indices.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; a DataFrame may carry the query ids in an index
            level named ``groups_from``.
        y : object
            Ignored.
        groups : array-like of shape (n_samples,), default=None
            The query of each row; read from ``X`` when None.

        Yields
        ------
        train, test : ndarray
            Ascending indices.
        """
        _refuse_row_subsampling(type(self).__name__)
        n_splits = _check_int(self.n_splits, "n_splits", 1)
        test_size = check_size(self.test_size, "test_size")
        train_size = check_size(self.train_size, "train_size")
        check_groups_from(self.groups_from)
        (X,) = indexable(X)
        codes, n_groups = _resolve_groups(
            type(self).__name__, X, groups, self.groups_from
        )
        n_train, n_test = _n_train_test(
            n_groups, test_size, train_size, type(self).__name__
        )
        rng = check_random_state(self.random_state)
        for _ in range(n_splits):
            perm = rng.permutation(n_groups)
            side = np.full(n_groups, -1, dtype=np.int8)
            side[perm[:n_test]] = 1
            side[perm[n_test : n_test + n_train]] = 0
            row_side = side[codes]
            yield np.flatnonzero(row_side == 0), np.flatnonzero(row_side == 1)

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of splits: ``n_splits``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; present for API compatibility.

        Returns
        -------
        n_splits : int
        """
        return _check_int(self.n_splits, "n_splits", 1)


def train_test_split_groups(
    *arrays,
    groups=None,
    test_size=None,
    train_size=None,
    random_state=None,
    groups_from="qid",
):
    """Split arrays into train and test subsets, keeping each query whole.

    The query-aware :func:`sklearn.model_selection.train_test_split`: the
    queries, not the rows, are drawn for the test set, and the rows of each
    subset keep their original (ascending) order.

    Parameters
    ----------
    *arrays : sequence of indexables of the same length
        Lists, numpy arrays, scipy sparse matrices or pandas objects.
    groups : array-like of shape (n_samples,), default=None
        The query of each row. When None, read from the index level (or
        column) ``groups_from`` of the first array, a DataFrame; failing
        that, the last of three or more arrays is taken as the query ids, so
        ``train_test_split_groups(X, y, groups)`` works as
        :func:`~sklearn.model_selection.train_test_split` does with the same
        arrays (and returns the split query ids last).
    test_size, train_size : float, int or None, default=None
        Fractions or numbers of queries, as in
        :class:`QueryGroupShuffleSplit` (by default 20% of the queries go to
        the test set).
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffle.
    groups_from : str, default="qid"
        The index level or column read when ``groups`` is None.

    Returns
    -------
    splitting : list of length 2 * len(arrays)
        ``[a_train, a_test, b_train, b_test, ...]``. Pass the query ids among
        the arrays too to get them split.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.model_selection import train_test_split_groups
    >>> X = np.arange(12).reshape(6, 2)
    >>> y = np.array([1, 0, 2, 0, 1, 0])
    >>> groups = np.array(["a", "a", "b", "b", "c", "c"])
    >>> X_train, X_test, y_train, y_test, g_train, g_test = train_test_split_groups(
    ...     X, y, groups, test_size=1, random_state=0)
    >>> g_train.tolist(), g_test.tolist()
    (['a', 'a', 'b', 'b'], ['c', 'c'])
    """
    if not arrays:
        raise ValueError("train_test_split_groups() needs at least one array")
    lengths = [n_rows(a) for a in arrays]
    if len(set(lengths)) > 1:
        raise ValueError(
            "train_test_split_groups() needs arrays with the same number of rows, "
            f"got lengths {lengths}"
        )
    arrays = indexable(*arrays)
    if groups is None and len(arrays) > 2:
        # (X, y, groups) as train_test_split takes them; with two arrays the
        # second is most likely y, so the query ids must be named.
        found = groups_from_frame(arrays[0], check_groups_from(groups_from))
        groups = arrays[-1] if found is None else found
    cv = QueryGroupShuffleSplit(
        n_splits=1,
        test_size=test_size,
        train_size=train_size,
        random_state=random_state,
        groups_from=groups_from,
    )
    train, test = next(cv.split(arrays[0], groups=groups))
    out = []
    for a in arrays:
        take = a.iloc if hasattr(a, "iloc") else None
        if take is not None:
            out.extend([take[train], take[test]])
        elif isinstance(a, list):
            out.extend([[a[i] for i in train], [a[i] for i in test]])
        else:
            out.extend([a[train], a[test]])
    return out
