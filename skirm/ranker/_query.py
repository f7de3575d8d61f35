"""QueryRanker: give any ranker (or regressor) the query ids it needs."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.utils.validation import check_is_fitted

from skirm._query_ids import n_rows
from skirm._ranking import encode_groups
from skirm._validation import check_sample_weight, describe
from skirm.metrics._registry import get_metric
from skirm.ranker._base import QueryScoreMixin

__all__ = ["LIBRARIES", "QueryRanker"]

#: How each library's ranker wants the queries.
LIBRARIES = ("auto", "lightgbm", "xgboost", "catboost", "pointwise")

_RANKER_CLASSES = {
    "lightgbm": ("lightgbm", "LGBMRanker"),
    "xgboost": ("xgboost", "XGBRanker"),
    "catboost": ("catboost", "CatBoostRanker"),
}


def detect_library(estimator) -> str:
    """``"lightgbm"``, ``"xgboost"``, ``"catboost"`` or ``"pointwise"``.

    By class: an ``LGBMRanker``, ``XGBRanker`` or ``CatBoostRanker`` (or a
    subclass) from its library; anything else is pointwise. Nothing is
    imported.
    """
    for cls in type(estimator).__mro__:
        root = cls.__module__.split(".")[0]
        for library, (module, name) in _RANKER_CLASSES.items():
            if root == module and cls.__name__ == name:
                return library
    return "pointwise"


def _take(X, rows):
    """Rows of an array, sparse matrix or DataFrame."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if isinstance(X, list):
        return [X[i] for i in rows]
    return X[rows]


class QueryRanker(QueryScoreMixin, MetaEstimatorMixin, BaseEstimator):
    """Fit a ranker (or any regressor) per query, inside scikit-learn tools.

    ``fit(X, y, groups=...)`` takes the query of each row, as scikit-learn's
    group splitters do, sorts the rows stably by query and calls the wrapped
    estimator with what its library needs:

    - LightGBM ``LGBMRanker``: ``group=`` query *sizes* in row order;
    - XGBoost ``XGBRanker``: ``qid=`` sorted per-row ids (per-row
      ``sample_weight`` is reduced to one weight per query, its mean, as
      LightGBM does internally);
    - CatBoost ``CatBoostRanker``: ``group_id=`` per-row ids, contiguous;
    - anything else (a regressor or classifier, a pointwise ranker): the rows
      as given, without the query ids.

    The library is detected from the estimator's class; ``library=``
    overrides it, e.g. for a custom class with the same ``fit`` signature.
    ``predict`` returns one score per row, in the caller's row order.
    ``score`` returns NDCG@10 per query (``metric=``), so ``scoring=None``
    works in a search.

    Under metadata routing ``fit`` and ``score`` request ``groups`` by
    default, so ``GridSearchCV(QueryRanker(...), ...).fit(X, y, groups=qid)``
    gives each fold its own query ids. Without routing (or when nothing is
    passed) the ids are read from the pandas index level (or column) of ``X``
    named ``groups_from``.

    Parameters
    ----------
    estimator : estimator object
        The model to fit, e.g. ``LGBMRanker()``, ``XGBRanker()``,
        ``CatBoostRanker()`` or ``HistGradientBoostingRegressor()``. It is
        cloned in ``fit``; tune its parameters as ``estimator__<name>``.
    library : {"auto", "lightgbm", "xgboost", "catboost", "pointwise"}, \
default="auto"
        How to pass the queries to ``estimator.fit`` (see above). ``"auto"``
        detects it from the class.
    metric : str, default="ndcg@10"
        The registered metric :meth:`score` computes.
    groups_from : str, default="qid"
        The index level (or column) of a pandas ``X`` read for the query ids
        when ``groups`` is None.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    library_ : str
        The library convention used.
    n_features_in_ : int
        Number of features seen in ``fit`` (when the estimator records it).

    See Also
    --------
    PairwiseRanker : A ranker needing only scikit-learn.

    Notes
    -----
    CatBoost is supported by class detection (``CatBoostRanker``) or
    ``library="catboost"``; its path is tested with a stand-in class that has
    ``CatBoostRanker``'s ``fit(X, y, group_id=..., sample_weight=...)``
    signature, not with CatBoost itself.

    For a classifier, :meth:`predict` returns the expected label
    ``predict_proba(X) @ classes_`` (numeric classes), which ranks graded and
    binary relevance alike.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from skirm.datasets import make_ranking
    >>> from skirm.ranker import QueryRanker
    >>> X, y, groups = make_ranking(n_groups=20, random_state=0)
    >>> model = QueryRanker(Ridge()).fit(X, y, groups=groups)
    >>> model.library_
    'pointwise'
    >>> model.predict(X[:3]).shape
    (3,)
    >>> 0.5 < model.score(X, y, groups=groups) <= 1.0
    True
    """

    def __init__(
        self, estimator, *, library="auto", metric="ndcg@10", groups_from="qid"
    ):
        self.estimator = estimator
        self.library = library
        self.metric = metric
        self.groups_from = groups_from

    def _library(self):
        if self.library not in LIBRARIES or not isinstance(self.library, str):
            raise ValueError(
                f"`library` must be one of {', '.join(map(repr, LIBRARIES))}, got "
                f"{describe(self.library)}"
            )
        if self.library == "auto":
            return detect_library(self.estimator)
        return self.library

    def fit(self, X, y, groups=None, sample_weight=None):
        """Sort the rows by query and fit the wrapped estimator.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Features; a DataFrame may carry the query ids in an index level
            named ``groups_from``.
        y : array-like of shape (n_samples,)
            Relevance labels.
        groups : array-like of shape (n_samples,), default=None
            The query of each row, in any order. Required for library rankers
            (or read from ``X``); unused by pointwise estimators.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights, passed along (for XGBoost, averaged per query).

        Returns
        -------
        self : QueryRanker
        """
        library = self._library()
        if self.estimator is None or not hasattr(self.estimator, "fit"):
            raise TypeError(
                "`estimator` must be an estimator with a fit method, got "
                f"{describe(self.estimator)}"
            )
        get_metric(self.metric)  # fail early on a bad name
        n_samples = n_rows(X)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != n_samples:
            raise ValueError(
                f"`y` must be 1-D with one label per row of X (length {n_samples}), "
                f"got shape {y.shape}"
            )
        sw = check_sample_weight(sample_weight, n_samples)
        estimator = clone(self.estimator)
        groups = self._groups(X, groups, required=library != "pointwise")
        if library == "pointwise":
            kwargs = {} if sw is None else {"sample_weight": sw}
            estimator.fit(X, y, **kwargs)
        else:
            codes, _ = encode_groups(groups)
            order = np.argsort(codes, kind="stable")
            codes = codes[order]
            X_sorted, y_sorted = _take(X, order), y[order]
            kwargs = {}
            if library == "lightgbm":
                kwargs["group"] = np.bincount(codes)
                if sw is not None:
                    kwargs["sample_weight"] = sw[order]
            elif library == "xgboost":
                kwargs["qid"] = codes
                if sw is not None:
                    sums = np.bincount(codes, weights=sw[order])
                    kwargs["sample_weight"] = sums / np.bincount(codes)
            else:  # catboost
                kwargs["group_id"] = codes
                if sw is not None:
                    kwargs["sample_weight"] = sw[order]
            estimator.fit(X_sorted, y_sorted, **kwargs)
        self.estimator_ = estimator
        self.library_ = library
        if hasattr(estimator, "n_features_in_"):
            self.n_features_in_ = estimator.n_features_in_
        if hasattr(estimator, "feature_names_in_"):
            self.feature_names_in_ = estimator.feature_names_in_
        return self

    def predict(self, X):
        """One ranking score per row, in the order of ``X``.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        y_score : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "estimator_")
        est = self.estimator_
        if is_classifier(est) and hasattr(est, "predict_proba"):
            classes = np.asarray(est.classes_)
            if classes.dtype.kind in "biuf":
                return np.asarray(est.predict_proba(X)) @ classes.astype(np.float64)
        y_score = np.asarray(est.predict(X))
        if y_score.ndim == 2 and y_score.shape[1] == 1:
            y_score = y_score[:, 0]
        return y_score

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            inner = self.estimator.__sklearn_tags__()
        except (AttributeError, TypeError):  # pragma: no cover - foreign estimators
            return tags
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        return tags
