"""PairwiseRanker: the RankSVM pairwise transform on scikit-learn classifiers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from skirm._engine import encode_groups
from skirm._errors import InvalidInputError
from skirm._params import NONE, Interval, Param
from skirm._query_ids import without_id_column
from skirm._validation import check_sample_weight, check_y_true
from skirm.metrics._registry import get_metric
from skirm.ranker._mixin import QueryScoreMixin

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from skirm._typing import FloatArray, MatrixLike, RandomState

__all__ = ["PairwiseRanker", "sample_pairs"]

#: The pairs drawn per query (None: every pair).
MAX_PAIRS_PER_GROUP = Param(
    "max_pairs_per_group", Interval(int, 1, closed="left"), NONE
)


def _decode_pairs(p, n):
    """Unordered pair ``(i, j)``, ``i < j < n``, of pair index ``p`` (row-major)."""
    p = p.astype(np.float64)
    n = n.astype(np.float64)
    i = np.floor(
        n - 2.0 - np.floor(np.sqrt(4.0 * n * (n - 1.0) - 8.0 * p - 7.0) / 2.0 - 0.5)
    )
    # Pairs before row i: i * n - i * (i + 1) / 2; guard against rounding.
    before = i * n - i * (i + 1.0) / 2.0
    low = p < before
    i[low] -= 1.0
    before = i * n - i * (i + 1.0) / 2.0
    high = p >= before + (n - i - 1.0)
    i[high] += 1.0
    before = i * n - i * (i + 1.0) / 2.0
    j = p - before + i + 1.0
    return i.astype(np.intp), j.astype(np.intp)


def sample_pairs(codes, max_pairs_per_group=None, random_state=None):
    """Pairs of rows within the same query, without a loop over queries.

    Queries with at most ``max_pairs_per_group`` unordered pairs give all of
    them; larger ones give ``max_pairs_per_group`` pairs drawn uniformly with
    replacement.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Dense integer query codes ``0..n_groups-1``.
    max_pairs_per_group : int or None
        The cap; None enumerates every pair.
    random_state : int, RandomState instance or None
        Seed of the draws.

    Returns
    -------
    a, b : ndarray of shape (n_pairs,)
        Row indices with ``codes[a] == codes[b]`` and ``a != b``.
    """
    rng = check_random_state(random_state)
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    n_pairs = sizes * (sizes - 1) // 2
    if max_pairs_per_group is None:
        take = n_pairs
    else:
        take = np.minimum(n_pairs, max_pairs_per_group)
    total = int(take.sum())
    group = np.repeat(np.arange(sizes.shape[0]), take)
    enumerate_all = (take == n_pairs)[group]
    offsets = np.concatenate(([0], np.cumsum(take)[:-1]))
    p = np.arange(total) - offsets[group]
    drawn = ~enumerate_all
    if drawn.any():
        p[drawn] = np.floor(rng.random_sample(int(drawn.sum())) * n_pairs[group[drawn]])
    i, j = _decode_pairs(p, sizes[group])
    return order[starts[group] + i], order[starts[group] + j]


class PairwiseRanker(QueryScoreMixin, MetaEstimatorMixin, BaseEstimator):
    """A learning-to-rank model in pure scikit-learn: the pairwise transform.

    For pairs of rows of the same query with different labels, a binary
    classifier learns which row of the pair is more relevant from the
    difference of their feature vectors (Herbrich et al.; Joachims's
    RankSVM). A linear classifier then scores single rows: the higher the
    decision function, the higher the rank. It gives a real ranker to users
    without LightGBM or XGBoost.

    Parameters
    ----------
    estimator : classifier, default=None
        Fitted on the pair differences; it should have ``decision_function``
        (or ``predict_proba``). ``None`` means
        ``LogisticRegression(fit_intercept=False)``. Cloned in ``fit``.
    max_pairs_per_group : int or None, default=100
        At most this many pairs per query: smaller queries give all their
        pairs, larger ones a uniform sample (with replacement). Pairs with
        equal labels are then dropped. ``None`` takes every pair (memory grows
        with the square of the query size).
    random_state : int, RandomState instance or None, default=None
        Seed of the pair sampling and of the random orientation of each pair
        (half the pairs are flipped so both classes are present).
    metric : str, default="ndcg@10"
        The registered metric :meth:`score` computes.
    groups_from : str, default="qid"
        The pandas index level (or column) of ``X`` read for the query ids
        when ``groups`` is None.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone of ``estimator``.
    n_pairs_ : int
        Number of pairs it was fitted on.
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    QueryRanker : The adapter for LightGBM, XGBoost, CatBoost and regressors.

    Notes
    -----
    Pair sampling is vectorised: one ``np.repeat`` over the queries, no
    Python loop. Scale the features (e.g. a ``StandardScaler`` in a
    ``Pipeline`` around this model) when they have very different ranges.

    Examples
    --------
    >>> from skirm.datasets import make_ranking
    >>> from skirm.ranker import PairwiseRanker
    >>> X, y, groups = make_ranking(n_groups=30, random_state=0)
    >>> model = PairwiseRanker(random_state=0).fit(X, y, groups=groups)
    >>> model.predict(X[:2]).shape
    (2,)
    >>> 0.7 < model.score(X, y, groups=groups) <= 1.0
    True
    """

    def __init__(
        self,
        estimator: Any = None,
        *,
        max_pairs_per_group: int | None = 100,
        random_state: RandomState = None,
        metric: str = "ndcg@10",
        groups_from: str = "qid",
    ) -> None:
        self.estimator = estimator
        self.max_pairs_per_group = max_pairs_per_group
        self.random_state = random_state
        self.metric = metric
        self.groups_from = groups_from

    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Fit the classifier on within-query pair differences.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Features; a DataFrame may carry the query ids in an index level
            or a column named ``groups_from`` (a column is dropped from the
            features: no model is trained on the ids).
        y : array-like of shape (n_samples,)
            Relevance labels.
        groups : array-like of shape (n_samples,), default=None
            The query of each row, in any order; read from ``X`` when None.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights; a pair weighs the mean of its two rows.

        Returns
        -------
        self : PairwiseRanker
        """
        cap = MAX_PAIRS_PER_GROUP(self.max_pairs_per_group)
        get_metric(self.metric)
        query_ids = self._groups(X, groups)
        X = without_id_column(X, self.groups_from)  # the ids are no feature
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        y = check_y_true(y, "y")
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise InvalidInputError(
                f"`y` must be 1-D with one label per row of X (length {X.shape[0]}), "
                f"got shape {y.shape}"
            )
        sw = check_sample_weight(sample_weight, X.shape[0])
        codes, _ = encode_groups(query_ids)
        rng = check_random_state(self.random_state)
        a, b = sample_pairs(codes, cap, rng)
        keep = y[a] != y[b]
        a, b = a[keep], b[keep]
        if a.shape[0] == 0:
            raise InvalidInputError(
                "PairwiseRanker found no pair of rows within a query with different "
                "labels in `y`, so there is nothing to learn; check `groups` and `y`"
            )
        flip = rng.random_sample(a.shape[0]) < 0.5
        a, b = np.where(flip, b, a), np.where(flip, a, b)
        target = (y[a] > y[b]).astype(np.int64)
        if target.min() == target.max():  # a single orientation: force both
            a[0], b[0] = b[0], a[0]
            target[0] = 1 - target[0]
        diff = X[a] - X[b]
        estimator = (
            LogisticRegression(fit_intercept=False)
            if self.estimator is None
            else clone(self.estimator)
        )
        kwargs = {} if sw is None else {"sample_weight": (sw[a] + sw[b]) / 2.0}
        estimator.fit(diff, target, **kwargs)
        self.estimator_ = estimator
        self.n_pairs_ = int(a.shape[0])
        return self

    def predict(self, X: MatrixLike) -> FloatArray:
        """One ranking score per row: the classifier's decision on the row.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        y_score : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "estimator_")
        X = validate_data(
            self,
            without_id_column(X, self.groups_from),
            accept_sparse="csr",
            reset=False,
        )
        est = self.estimator_
        if hasattr(est, "decision_function"):
            return np.asarray(est.decision_function(X), dtype=np.float64)
        if hasattr(est, "predict_proba"):
            return np.asarray(est.predict_proba(X))[:, -1]
        return np.asarray(est.predict(X), dtype=np.float64)
