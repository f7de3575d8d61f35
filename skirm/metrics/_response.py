"""What a scorer or a display asks of an estimator: one score per row of X.

``response_method`` names the estimator methods to try, in order; ``"auto"``
tries ``decision_function`` then ``predict_proba`` for a classifier (the
positive class's column) and ``predict`` first for anything else.
"""

from __future__ import annotations

import inspect

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import describe

RESPONSE_METHODS = ("predict", "decision_function", "predict_proba")
_AUTO_REGRESSOR = ("predict", "decision_function", "predict_proba")
_AUTO_CLASSIFIER = ("decision_function", "predict_proba")


def check_response_method(response_method):
    if isinstance(response_method, str):
        if response_method == "auto":
            return "auto"
        methods = (response_method,)
    elif isinstance(response_method, (list, tuple)) and response_method:
        methods = tuple(response_method)
    else:
        methods = (response_method,)
    for method in methods:
        if not isinstance(method, str) or method not in RESPONSE_METHODS:
            raise InvalidParameterError(
                "`response_method` must be 'auto', one of "
                f"{', '.join(repr(m) for m in RESPONSE_METHODS)}, or a non-empty "
                f"list of them in order of preference, got {describe(response_method)}"
            )
    return methods


def _takes_groups(method) -> bool:
    """Whether an estimator's method has a ``groups`` parameter (a fusion
    of retrievers, whose scores depend on the other rows of each query)."""
    try:
        return "groups" in inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins, C methods
        return False


def response(estimator, X, methods, groups=None):
    """One score per row of ``X`` from the first of ``methods`` the
    estimator has; a method with a ``groups`` parameter is given the query
    of each row."""
    from sklearn.base import is_classifier

    if methods == "auto":
        methods = _AUTO_CLASSIFIER if is_classifier(estimator) else _AUTO_REGRESSOR
    for method in methods:
        fn = getattr(estimator, method, None)
        if fn is None:
            continue
        if groups is not None and _takes_groups(fn):
            y_score = np.asarray(fn(X, groups=groups))
        else:
            y_score = np.asarray(fn(X))
        if method == "predict_proba":
            y_score = y_score[:, -1]
        elif y_score.ndim == 2 and y_score.shape[1] == 1:
            y_score = y_score[:, 0]
        if y_score.ndim != 1:
            raise InvalidInputError(
                f"{type(estimator).__name__}.{method} returned an array of shape "
                f"{y_score.shape}; a ranking scorer needs one score per row"
            )
        return y_score
    raise InvalidParameterError(
        f"{type(estimator).__name__} has none of the response methods "
        f"{list(methods)} the scorer tries (`response_method`)"
    )
