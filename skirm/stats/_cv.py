"""Out-of-fold per-query values of several estimators on the same query folds."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from skirm._errors import InvalidParameterError
from skirm._measures._table import DEFAULT_METRICS
from skirm._params import Interval, Param, Satisfies, checked, describe

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

    from skirm._typing import MatrixLike
    from skirm.metrics import EvaluationResult, Metric


#: The folds: a number of query folds, or a splitter.
CV = Param(
    "cv",
    Interval(int),
    Satisfies(lambda cv: hasattr(cv, "split"), "a splitter", rejected=(object(),)),
    expected="an int or a splitter with a split() method (such as QueryGroupKFold)",
)


def _splitter(cv):
    """The splitter of a checked ``cv``: an int is a QueryGroupKFold."""
    from skirm.model_selection import QueryGroupKFold

    return QueryGroupKFold(n_splits=cv) if isinstance(cv, int) else cv


@checked(cv=CV)
def cross_val_evaluate(
    estimators: Mapping[str, Any],
    X: MatrixLike,
    y: ArrayLike,
    *,
    groups: ArrayLike,
    cv: int | Any = 5,
    metrics: str | Metric | Sequence[str | Metric] = DEFAULT_METRICS,
    params: Mapping[str, Any] | None = None,
    n_jobs: int | None = None,
    **evaluate_params: Any,
) -> dict[str, EvaluationResult]:
    """Per-query values of each estimator's out-of-fold predictions.

    The folds are drawn once and shared by every estimator, so each query is
    scored by every model trained without it, on the same training queries:
    the per-query values are paired and ready for :func:`compare`. This is
    how rankers tuned in scikit-learn are compared with a significance test.

    Parameters
    ----------
    estimators : dict of str to estimator
        The models, by name. An estimator whose ``fit`` takes ``groups``
        (such as :class:`~skirm.ranker.QueryRanker`) receives each training
        fold's query ids.
    X : array-like of shape (n_samples, n_features)
        Features.
    y : array-like of shape (n_samples,)
        Relevance labels.
    groups : array-like of shape (n_samples,)
        The query of each row.
    cv : int or splitter, default=5
        An int: :class:`~skirm.model_selection.QueryGroupKFold` with that
        many folds. A splitter must put each query's rows in one test fold
        (every QueryGroup splitter does); it is called once.
    metrics : sequence of str, default=("ndcg@10", "map", "mrr")
        Metrics evaluated on the out-of-fold predictions.
    params : dict, default=None
        Further fit parameters, passed as in
        :func:`sklearn.model_selection.cross_val_predict`.
    n_jobs : int, default=None
        Folds fitted in parallel.
    **evaluate_params
        Options of :func:`skirm.metrics.evaluate` (``ties``, ``no_relevant``,
        ``sample_weight``, metric options).

    Returns
    -------
    results : dict of str to EvaluationResult
        One result per estimator, over every query.

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn.dummy import DummyRegressor
    >>> from skirm.datasets import make_ranking
    >>> from skirm.model_selection import QueryGroupKFold
    >>> from skirm.stats import compare, cross_val_evaluate
    >>> X, y, groups = make_ranking(n_groups=60, random_state=0)
    >>> results = cross_val_evaluate(
    ...     {"constant": DummyRegressor(), "linear": LinearRegression()},
    ...     X, y, groups=groups, metrics=["ndcg@10"],
    ...     cv=QueryGroupKFold(5, shuffle=True, random_state=0),
    ... )
    >>> comparison = compare(results, baseline="constant")
    >>> bool(comparison.to_frame()["significant"].iloc[1])
    True
    """
    from sklearn.model_selection import cross_val_predict

    from skirm.metrics import evaluate

    if not hasattr(estimators, "items") or not estimators:
        raise InvalidParameterError(
            "`estimators` must be a non-empty dict of names to estimators, got "
            f"{describe(estimators)}"
        )
    if groups is None:
        raise InvalidParameterError(
            "`groups` (the query of each row) is required, got None"
        )
    folds = list(_splitter(cv).split(X, y, groups))
    results = {}
    for name, estimator in estimators.items():
        fit_params = dict(params or {})
        if "groups" in inspect.signature(estimator.fit).parameters:
            fit_params.setdefault("groups", groups)
        predictions = cross_val_predict(
            estimator, X, y, cv=folds, params=fit_params or None, n_jobs=n_jobs
        )
        results[name] = evaluate(
            y, predictions, groups=groups, metrics=metrics, **evaluate_params
        )
    return results
