"""Shuffle splits that keep every query whole: :class:`QueryGroupShuffleSplit`
and :func:`train_test_split_groups`, its one-split function."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state, indexable

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import NONE, Interval, Param, checked
from skirm._query_ids import GROUPS_FROM, groups_from_frame, n_rows
from skirm.model_selection._split import _refuse_row_subsampling, _resolve_groups

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from numpy.typing import ArrayLike, NDArray

    from skirm._typing import MatrixLike, RandomState

__all__ = ["QueryGroupShuffleSplit", "train_test_split_groups"]


#: The queries of one side of a split: None (the rest), a fraction of the
#: queries or a number of them.
SIZES = (
    NONE,
    Interval(int, 1, closed="left"),
    Interval(float, 0, 1, closed="neither"),
)
SIZE_TEXT = "None, a fraction in (0, 1) or a number of queries >= 1"
TEST_SIZE = Param("test_size", *SIZES, expected=SIZE_TEXT)
TRAIN_SIZE = Param("train_size", *SIZES, expected=SIZE_TEXT)
#: The random splits of a shuffle split.
N_SPLITS = Param("n_splits", Interval(int, 1, closed="left", text="an integer >= 1"))


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
        raise InvalidParameterError(
            f"{owner}: with {n_groups} queries, test_size={test_size!r} and "
            f"train_size={train_size!r} give {n_test} test and {n_train} train "
            "queries; each side needs at least one query and together at most "
            f"{n_groups}"
        )
    return n_train, n_test


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
        n_splits: int = 5,
        *,
        test_size: float | None = None,
        train_size: float | None = None,
        random_state: RandomState = None,
        groups_from: str = "qid",
    ) -> None:
        self.n_splits = n_splits
        self.test_size = test_size
        self.train_size = train_size
        self.random_state = random_state
        self.groups_from = groups_from

    def split(
        self, X: MatrixLike, y: ArrayLike | None = None, groups: ArrayLike | None = None
    ) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
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
        n_splits = N_SPLITS(self.n_splits)
        test_size = TEST_SIZE(self.test_size)
        train_size = TRAIN_SIZE(self.train_size)
        GROUPS_FROM(self.groups_from)
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
        return N_SPLITS(self.n_splits)


@checked(test_size=TEST_SIZE, train_size=TRAIN_SIZE, groups_from=GROUPS_FROM)
def train_test_split_groups(
    *arrays: Any,
    groups: ArrayLike | None = None,
    test_size: float | None = None,
    train_size: float | None = None,
    random_state: RandomState = None,
    groups_from: str = "qid",
) -> list[Any]:
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
        raise InvalidParameterError(
            "train_test_split_groups() needs at least one array"
        )
    lengths = [n_rows(a) for a in arrays]
    if len(set(lengths)) > 1:
        raise InvalidInputError(
            "train_test_split_groups() needs arrays with the same number of rows, "
            f"got lengths {lengths}"
        )
    arrays = indexable(*arrays)
    if groups is None and len(arrays) > 2:
        # (X, y, groups) as train_test_split takes them; with two arrays the
        # second is most likely y, so the query ids must be named.
        found = groups_from_frame(arrays[0], groups_from)
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
