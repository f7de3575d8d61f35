"""A seeded synthetic learning-to-rank data generator."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, overload

import numpy as np
from sklearn.utils import check_random_state

from skirm._errors import InvalidParameterError, MissingDependencyError
from skirm._params import BOOLEAN, Interval, Param, checked, describe

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import NDArray
    from sklearn.utils import Bunch

    from skirm._typing import FloatArray, RandomState

    #: ``(X, y, groups)``.
    Arrays = tuple[FloatArray, NDArray[np.int64], NDArray[np.intp]]


#: The numbers of queries, of features and of grades.
N_GROUPS = Param("n_groups", Interval(int, 1, closed="left", text="an integer >= 1"))
N_FEATURES = Param(
    "n_features", Interval(int, 1, closed="left", text="an integer >= 1")
)
N_RELEVANCE_LEVELS = Param("n_relevance_levels", Interval(int, 2, closed="left"))
#: Rows per query: a fixed size, or each bound of a ``(low, high)`` range.
GROUP_SIZE = Param(
    "group_size", Interval(int, 1, closed="left", text="an integer >= 1")
)
#: The standard deviation of the noise on the labels.
NOISE = Param("noise", Interval(float, 0, closed="left"))
#: The share of queries without a relevant row.
NO_RELEVANT_FRACTION = Param("no_relevant_fraction", Interval(float, 0, 1))
#: Whether pandas objects are returned.
AS_FRAME = Param("as_frame", BOOLEAN)


@overload
def make_ranking(
    n_groups: int = ...,
    group_size: int | tuple[int, int] = ...,
    n_features: int = ...,
    n_relevance_levels: int = ...,
    noise: float = ...,
    no_relevant_fraction: float = ...,
    random_state: RandomState = ...,
    as_frame: Literal[False] = ...,
) -> Arrays: ...


@overload
def make_ranking(
    n_groups: int = ...,
    group_size: int | tuple[int, int] = ...,
    n_features: int = ...,
    n_relevance_levels: int = ...,
    noise: float = ...,
    no_relevant_fraction: float = ...,
    random_state: RandomState = ...,
    *,
    as_frame: Literal[True],
) -> Bunch: ...


@overload
def make_ranking(
    n_groups: int = ...,
    group_size: int | tuple[int, int] = ...,
    n_features: int = ...,
    n_relevance_levels: int = ...,
    noise: float = ...,
    no_relevant_fraction: float = ...,
    random_state: RandomState = ...,
    as_frame: bool = ...,
) -> Arrays | Bunch: ...


@checked(
    n_groups=N_GROUPS,
    as_frame=AS_FRAME,
    n_features=N_FEATURES,
    n_relevance_levels=N_RELEVANCE_LEVELS,
    no_relevant_fraction=NO_RELEVANT_FRACTION,
    noise=NOISE,
)
def make_ranking(
    n_groups: int = 100,
    group_size: int | tuple[int, int] = (5, 50),
    n_features: int = 10,
    n_relevance_levels: int = 5,
    noise: float = 0.5,
    no_relevant_fraction: float = 0.05,
    random_state: RandomState = None,
    as_frame: bool = False,
) -> Arrays | Bunch:
    """Generate a learning-to-rank problem: features, graded labels, queries.

    Each query draws a random number of rows (documents). Every row has a
    latent relevance that is a linear function of its features plus a query
    offset; the labels are that latent relevance plus noise, cut into
    ``n_relevance_levels`` grades with most rows at grade 0. A fraction of the
    queries get no relevant row at all, as in real judgement pools. Rows are
    sorted by query.

    Parameters
    ----------
    n_groups : int, default=100
        Number of queries.
    group_size : int or (int, int), default=(5, 50)
        Rows per query: a fixed size, or the inclusive range sizes are drawn
        from uniformly.
    n_features : int, default=10
        Number of features; about half of them carry signal.
    n_relevance_levels : int, default=5
        Number of grades; labels are integers in ``[0, n_relevance_levels)``.
    noise : float, default=0.5
        Standard deviation of the noise between the features' signal and the
        labels (the signal has unit variance). 0 makes the labels a
        deterministic function of the features.
    no_relevant_fraction : float in [0, 1], default=0.05
        Fraction of queries whose labels are all 0.
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible output.
    as_frame : bool, default=False
        Return a :class:`~sklearn.utils.Bunch` of pandas objects instead of
        the ``(X, y, groups)`` tuple: ``data`` is a DataFrame whose index is
        the query id (an index level named ``"qid"``, which skirm's scorers,
        splitters and rankers read when no ``groups`` is passed). Requires
        pandas.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Integer relevance labels.
    groups : ndarray of shape (n_samples,)
        Integer query ids, non-decreasing.
    data : sklearn.utils.Bunch
        Only with ``as_frame=True``, instead of the tuple: ``data``
        (DataFrame of features ``feature_0``... indexed by ``qid``),
        ``target`` (Series ``relevance``, same index), ``groups`` (ndarray of
        query ids), ``frame`` (features and ``relevance`` in one DataFrame),
        ``feature_names`` and ``target_names``.

    Examples
    --------
    >>> from skirm.datasets import make_ranking
    >>> X, y, groups = make_ranking(n_groups=3, group_size=4, n_features=2,
    ...                             random_state=0)
    >>> X.shape, y.shape, groups.tolist()
    ((12, 2), (12,), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    >>> int(y.max()) < 5
    True

    With ``as_frame=True`` the query ids travel in the index:

    >>> data = make_ranking(n_groups=3, group_size=2, n_features=2,
    ...                     random_state=0, as_frame=True)
    >>> data.data.index.names, list(data.data.columns)
    (FrozenList(['qid']), ['feature_0', 'feature_1'])
    >>> data.target.name, data.groups.tolist()
    ('relevance', [0, 0, 1, 1, 2, 2])
    """
    if isinstance(group_size, numbers.Integral) and not isinstance(group_size, bool):
        low = high = GROUP_SIZE(group_size)
    else:
        low, high = _size_range(group_size)
    rng = check_random_state(random_state)

    sizes = rng.randint(low, high + 1, size=n_groups)
    groups = np.repeat(np.arange(n_groups), sizes)
    n_samples = int(sizes.sum())
    X = rng.normal(size=(n_samples, n_features))
    n_informative = max(1, n_features // 2)
    coef = np.zeros(n_features)
    coef[:n_informative] = rng.normal(size=n_informative)
    coef /= np.linalg.norm(coef)
    query_offset = rng.normal(scale=0.5, size=n_groups)
    latent = X @ coef + query_offset[groups] + noise * rng.normal(size=n_samples)
    # Grades by quantile: about 60% of rows at 0, the rest spread over the
    # higher grades with fewer rows at each step.
    cuts = np.quantile(latent, 1.0 - 0.4 * 0.5 ** np.arange(n_relevance_levels - 1))
    y = np.searchsorted(cuts, latent, side="right")
    empty = rng.rand(n_groups) < no_relevant_fraction
    y[empty[groups]] = 0
    y = y.astype(np.int64)
    if as_frame:
        return _as_frame(X, y, groups)
    return X, y, groups


def _size_range(group_size):
    """``(low, high)`` of a checked ``(low, high)`` pair of group sizes."""
    try:
        low, high = group_size
    except (TypeError, ValueError):
        raise InvalidParameterError(
            "`group_size` must be a positive integer or a (low, high) pair, "
            f"got {describe(group_size)}"
        ) from None
    low = GROUP_SIZE(low, "group_size[0]")
    if not (GROUP_SIZE.accepts(high) and high >= low):
        raise InvalidParameterError(
            f"`group_size[1]` must be an integer >= {low}, got {describe(high)}"
        )
    return low, int(high)


def _as_frame(X, y, groups):
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            "make_ranking(as_frame=True) requires pandas; install it with "
            "`pip install skirm[pandas]`"
        ) from exc
    from sklearn.utils import Bunch

    feature_names = [f"feature_{i}" for i in range(X.shape[1])]
    index = pd.Index(groups, name="qid")
    data = pd.DataFrame(X, columns=feature_names, index=index)
    target = pd.Series(y, index=index, name="relevance")
    return Bunch(
        data=data,
        target=target,
        groups=groups,
        frame=data.assign(relevance=target),
        feature_names=feature_names,
        target_names=["relevance"],
    )
