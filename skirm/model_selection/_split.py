"""Cross-validation splitters that keep every query whole.

All splitters subclass scikit-learn's public ``BaseCrossValidator``, request
``groups`` by default under metadata routing (as scikit-learn's group
splitters do), read the query ids from a pandas index level when ``groups`` is
not given, and yield ascending train and test indices, so data sorted by query
stays sorted in every fold (LightGBM and XGBoost need that).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state, indexable

from skirm._engine import encode_groups
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import BOOLEAN, NONE, Interval, OneOf, Param
from skirm._query_ids import GROUPS_FROM, resolve_groups

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray

    from skirm._typing import MatrixLike, RandomState

__all__ = ["QueryGroupKFold", "RepeatedQueryGroupKFold"]

#: How queries are dealt to the folds (None: contiguous blocks).
STRATIFY = (None, "has_relevant", "size")
STRATIFICATION = Param(
    "stratify",
    NONE,
    OneOf(*STRATIFY[1:]),
    expected="None, 'has_relevant' or 'size'",
)
#: The folds of a k-fold.
N_FOLDS = Param("n_splits", Interval(int, 2, closed="left"))
#: Whether the queries are shuffled before the folds are cut.
SHUFFLE = Param("shuffle", BOOLEAN)
#: The repetitions of a repeated k-fold.
N_REPEATS = Param("n_repeats", Interval(int, 1, closed="left", text="an integer >= 1"))


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
            raise InvalidParameterError(
                f"{owner} was wrapped by a halving search with "
                "resource='n_samples', which keeps a random fraction of the rows "
                "of every fold and so cuts queries apart. Use "
                "skirm.model_selection.QueryHalvingGridSearchCV or "
                "QueryHalvingRandomSearchCV (whole queries as the resource), or "
                "resource='estimator__n_estimators' (boosting rounds)"
            )
        frame = frame.f_back


def _resolve_groups(owner, X, groups, groups_from):
    """Per-row query codes and the number of queries."""
    codes, uniques = encode_groups(resolve_groups(owner, X, groups, groups_from))
    return codes, uniques.shape[0]


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
        n_splits: int = 5,
        *,
        shuffle: bool = False,
        random_state: RandomState = None,
        stratify: Literal["has_relevant", "size"] | None = None,
        groups_from: str = "qid",
    ) -> None:
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state
        self.stratify = stratify
        self.groups_from = groups_from

    def _check_params(self):
        n_splits = N_FOLDS(self.n_splits)
        SHUFFLE(self.shuffle)
        STRATIFICATION(self.stratify)
        GROUPS_FROM(self.groups_from)
        return n_splits

    def _fold_of_group(self, codes, n_groups, y, n_splits, rng):
        """The fold of every query (vectorised)."""
        order = np.arange(n_groups)
        if self.shuffle:
            order = rng.permutation(n_groups)
        if self.stratify == "has_relevant":
            if y is None:
                raise InvalidParameterError(
                    "QueryGroupKFold(stratify='has_relevant') needs `y` to tell "
                    "queries with relevant rows from those without, got y=None"
                )
            y = np.asarray(y)
            if y.ndim != 1 or y.shape[0] != codes.shape[0]:
                raise InvalidInputError(
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
            raise InvalidParameterError(
                f"Cannot have number of splits n_splits={n_splits} greater than the "
                f"number of queries (groups): {n_groups}"
            )
        return self._fold_of_group(codes, n_groups, y, n_splits, rng)[codes], n_splits

    def split(
        self, X: MatrixLike, y: ArrayLike | None = None, groups: ArrayLike | None = None
    ) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
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

    def get_n_splits(
        self, X: object = None, y: object = None, groups: object = None
    ) -> int:
        """The number of splits: ``n_splits``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; present for API compatibility.

        Returns
        -------
        n_splits : int
        """
        return N_FOLDS(self.n_splits)


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
        n_splits: int = 5,
        *,
        n_repeats: int = 10,
        random_state: RandomState = None,
        stratify: Literal["has_relevant", "size"] | None = None,
        groups_from: str = "qid",
    ) -> None:
        self.n_splits = n_splits
        self.n_repeats = n_repeats
        self.random_state = random_state
        self.stratify = stratify
        self.groups_from = groups_from

    def split(
        self, X: MatrixLike, y: ArrayLike | None = None, groups: ArrayLike | None = None
    ) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
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
        n_repeats = N_REPEATS(self.n_repeats)
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

    def get_n_splits(
        self, X: object = None, y: object = None, groups: object = None
    ) -> int:
        """The number of splits: ``n_splits * n_repeats``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; present for API compatibility.

        Returns
        -------
        n_splits : int
        """
        return N_FOLDS(self.n_splits) * N_REPEATS(self.n_repeats)
