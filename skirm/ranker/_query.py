"""QueryRanker: give any ranker (or regressor) the query ids it needs."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from skirm._engine import encode_groups
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import (
    NONE,
    Interval,
    OneOf,
    Param,
    Satisfies,
    as_python,
    describe,
)
from skirm._query_ids import n_rows, resolve_groups, without_id_column
from skirm._validation import check_sample_weight
from skirm.metrics._registry import get_metric
from skirm.model_selection._shuffle import SIZE_TEXT, SIZES
from skirm.ranker._libraries import (
    after_fit,
    early_stopping_history,
    library_metric_name,
    query_fit_kwargs,
    skirm_metric,
    validation_fit_kwargs,
)
from skirm.ranker._mixin import QueryScoreMixin

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from skirm._typing import MatrixLike, RandomState

__all__ = ["LIBRARIES", "QueryRanker"]

#: How each library's ranker wants the queries.
LIBRARIES = ("auto", "lightgbm", "xgboost", "catboost", "pointwise")
LIBRARY = Param("library", OneOf(*LIBRARIES))
#: The model fitted on the queries.
ESTIMATOR = Param(
    "estimator",
    Satisfies(
        lambda estimator: hasattr(estimator, "fit"),
        "an estimator with a fit method",
        rejected=(None, "model"),
    ),
)
#: The training queries held out for validation: a fraction or a number.
VALIDATION_FRACTION = Param("validation_fraction", *SIZES, expected=SIZE_TEXT)
#: Rounds without improvement before early stopping (None: no stopping).
EARLY_STOPPING_ROUNDS = Param(
    "early_stopping_rounds",
    NONE,
    Interval(int, 1, closed="left"),
    expected="None or a positive integer",
)
#: The queries drawn to train on (None: every query).
MAX_QUERIES = Param(
    "max_queries",
    NONE,
    Interval(int, 1, closed="left"),
    expected="None or a positive integer",
)

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


#: Fitted attributes that only a fit with a validation set sets.
_VALIDATION_ATTRIBUTES = (
    "best_iteration_",
    "best_score_",
    "eval_metric_",
    "evals_result_",
    "validation_groups_",
)


def _check_y(y, n_samples, name, rows="of X") -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise InvalidInputError(
            f"`{name}` must be 1-D with one label per row {rows} (length "
            f"{n_samples}), got shape {y.shape}"
        )
    return y


def _pick_queries(codes, n_groups, n_pick, rng):
    """Row mask of ``n_pick`` queries drawn at random, each query whole."""
    picked = np.zeros(n_groups, dtype=bool)
    picked[rng.permutation(n_groups)[:n_pick]] = True
    return picked[codes]


def _draw_queries(groups, n_samples, max_queries, rng):
    """Ascending rows of at most ``max_queries`` whole queries."""
    if max_queries is None:
        return np.arange(n_samples)
    codes, uniques = encode_groups(groups)
    if max_queries >= uniques.shape[0]:
        return np.arange(n_samples)
    return np.flatnonzero(_pick_queries(codes, uniques.shape[0], max_queries, rng))


def _split_queries(groups, rows, size, rng):
    """``(train rows, validation rows)``: whole queries held out of ``rows``."""
    codes, uniques = encode_groups(groups[rows])
    n_groups = uniques.shape[0]
    n_val = int(np.ceil(size * n_groups)) if isinstance(size, float) else size
    if not 1 <= n_val < n_groups:
        raise InvalidParameterError(
            f"`validation_fraction`={size!r} holds out {n_val} of the {n_groups} "
            "training queries; at least one query must be held out and one left "
            "for training"
        )
    held = _pick_queries(codes, n_groups, n_val, rng)
    return rows[~held], rows[held]


def _sorted_by_query(X, y, groups, sample_weight):
    """Rows sorted stably by query, with consecutive query codes."""
    codes, _ = encode_groups(groups)
    order = np.argsort(codes, kind="stable")
    weights = None if sample_weight is None else sample_weight[order]
    return _take(X, order), y[order], codes[order], weights


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
        The index level (or column) of a pandas ``X``, or the column of a
        polars ``X``, read for the query ids when ``groups`` is None.
    validation_fraction : float, int or None, default=None
        Hold out this fraction (or this number) of the training *queries*,
        drawn at random (``random_state``), as a validation set passed to the
        library in its own form (LightGBM ``eval_X``/``eval_y`` with
        ``eval_group``, XGBoost ``eval_set`` with ``eval_qid``, CatBoost an
        ``eval_set`` ``Pool`` with ``group_id``). Each query lies whole on one
        side. Inside a search it is drawn from each training fold, so no test
        row is ever seen. LightGBM, XGBoost and CatBoost rankers only.
    early_stopping_rounds : int or None, default=None
        Stop boosting when the validation metric has not improved for this
        many rounds; the model then predicts with its best round. Needs a
        validation set (``validation_fraction`` or ``eval_set``). Set early
        stopping here, not on the wrapped estimator: for XGBoost this value
        replaces the estimator's own ``early_stopping_rounds``.
    eval_metric : str, Metric or None, default=None
        The validation metric that stops the boosting. A name ``"ndcg@k"``
        sets the library's own NDCG: LightGBM's ``ndcg`` with
        ``eval_at=[k]``, XGBoost's ``ndcg@k``, CatBoost's
        ``NDCG:top=k;type=Exp``. Any other registered metric (``"map@10"``,
        ``"err@20"``, ...), or a :class:`~skirm.metrics.Metric` from
        :func:`~skirm.metrics.get_metric` (``get_metric("ndcg@10")`` for
        skirm's tie-averaged NDCG), is computed by skirm on the whole
        validation set every round (see :func:`make_eval_metric`), recorded
        under its skirm name and maximised. None keeps the library's own
        configured metric (LightGBM: the first of its metrics; XGBoost: the
        last). See the user guide for which skirm options equal each.
    max_queries : int or None, default=None
        Fit on at most this many whole queries of the training rows, drawn
        at random (``random_state``); None uses all. The resource of
        :class:`~skirm.model_selection.QueryHalvingGridSearchCV`, and the
        parameter for a learning curve over queries in
        :func:`~sklearn.model_selection.validation_curve`.
    random_state : int, RandomState instance or None, default=None
        Seed of the query draws of ``max_queries`` and
        ``validation_fraction``. An int makes every fit repeatable.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    library_ : str
        The library convention used.
    n_features_in_ : int
        Number of features seen in ``fit`` (when the estimator records it).
    best_iteration_ : int
        0-based index of the last boosting round the model predicts with:
        the best validation round under early stopping, else the last round
        trained (LightGBM's own ``best_iteration_`` counts from 1). Set only
        when fitted with a validation set, like the attributes below.
    best_score_ : float
        The stopping metric on the validation set at ``best_iteration_``.
    eval_metric_ : str
        The name of the stopping metric (the library's, or skirm's for a
        metric skirm computes), a key of ``evals_result_``.
    evals_result_ : dict of str to ndarray
        The validation history: every metric the library evaluated (its own
        names), one value per boosting round.
    validation_groups_ : ndarray
        The queries of the validation set, none of which was trained on.

    See Also
    --------
    PairwiseRanker : A ranker needing only scikit-learn.

    Notes
    -----
    The query ids never reach the wrapped model as a feature: a column of
    ``X`` named ``groups_from`` (pandas, polars or pyarrow) is read as the
    queries when ``groups`` is None and dropped from the features in
    ``fit`` and ``predict``, for every library. A model trained on the ids
    could score well on the queries it saw and mean nothing on new ones.
    For an ``XGBRanker`` a column named ``qid``, XGBoost's own convention
    for the query ids, is dropped too, so the ids reach XGBoost once, as
    ``qid=``.

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

    __metadata_request__fit: ClassVar[dict] = {"groups": True, "eval_set": True}

    def __init__(
        self,
        estimator: Any,
        *,
        library: Literal[
            "auto", "lightgbm", "xgboost", "catboost", "pointwise"
        ] = "auto",
        metric: str = "ndcg@10",
        groups_from: str = "qid",
        validation_fraction: float | None = None,
        early_stopping_rounds: int | None = None,
        eval_metric: str | None = None,
        max_queries: int | None = None,
        random_state: RandomState = None,
    ) -> None:
        self.estimator = estimator
        self.library = library
        self.metric = metric
        self.groups_from = groups_from
        self.validation_fraction = validation_fraction
        self.early_stopping_rounds = early_stopping_rounds
        self.eval_metric = eval_metric
        self.max_queries = max_queries
        self.random_state = random_state

    def _library(self):
        if LIBRARY(self.library) == "auto":
            return detect_library(self.estimator)
        return self.library

    def _check_params(self, library, eval_set):
        """The validated tuning parameters; errors name the argument."""
        ESTIMATOR(self.estimator)
        get_metric(self.metric)  # fail early on a bad name
        rounds = EARLY_STOPPING_ROUNDS(self.early_stopping_rounds)
        max_queries = MAX_QUERIES(self.max_queries)
        fraction = VALIDATION_FRACTION(self.validation_fraction)
        validated = fraction is not None or eval_set is not None
        if fraction is not None and eval_set is not None:
            raise InvalidParameterError(
                "pass either `validation_fraction` (a validation set split off the "
                "training queries) or `eval_set` (your own), not both"
            )
        if validated and library == "pointwise":
            raise InvalidParameterError(
                "a validation set (`validation_fraction` or `eval_set`) needs a "
                "LightGBM, XGBoost or CatBoost ranker; the estimator "
                f"{type(self.estimator).__name__} is fitted pointwise"
            )
        for name, value in (
            ("early_stopping_rounds", rounds),
            ("eval_metric", self.eval_metric),
        ):
            if value is not None and not validated:
                raise InvalidParameterError(
                    f"`{name}` needs a validation set: set `validation_fraction` "
                    "(e.g. 0.2 of the training queries) or pass `eval_set=(X_val, "
                    f"y_val, groups_val)` to fit, got {name}={value!r} without one"
                )
        eval_name = library_metric_name(library, self.eval_metric)
        return (
            rounds,
            max_queries,
            fraction,
            (eval_name, skirm_metric(self.eval_metric)),
        )

    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        eval_set: tuple[MatrixLike, ArrayLike, ArrayLike | None] | None = None,
    ) -> Self:
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
            The validation set is not weighted.
        eval_set : tuple (X_val, y_val, groups_val), default=None
            A validation set of your own, with the query of each of its rows
            (``groups_val`` may be None when ``X_val`` carries them like
            ``X``). None of its queries may appear in ``groups``. Under
            metadata routing it is requested by default.

        Returns
        -------
        self : QueryRanker
        """
        library = self._library()
        rounds, max_queries, fraction, stopping = self._check_params(library, eval_set)
        n_samples = n_rows(X)
        y = _check_y(y, n_samples, "y")
        sw = check_sample_weight(sample_weight, n_samples)
        need_groups = library != "pointwise" or max_queries is not None
        query_ids = self._groups(X, groups, required=need_groups)
        rng = check_random_state(self.random_state)
        train = _draw_queries(query_ids, n_samples, max_queries, rng)
        validation = None
        if fraction is not None:
            train, held_out = _split_queries(query_ids, train, fraction, rng)
            validation = (_take(X, held_out), y[held_out], query_ids[held_out])
        elif eval_set is not None:
            validation = self._check_eval_set(eval_set, query_ids[train])
        w = None if sw is None else sw[train]
        estimator = clone(self.estimator)
        if library == "pointwise":
            if train.shape[0] < n_samples:  # max_queries drew a subset
                X, y = _take(X, train), y[train]
            kwargs = {} if w is None else {"sample_weight": w}
            estimator.fit(self._features(X, library), y, **kwargs)
        else:
            data = (_take(X, train), y[train], query_ids[train], w)
            self._fit_ranker(estimator, library, data, validation, rounds, stopping)
        self.estimator_ = estimator
        self.library_ = library
        self._record(estimator, library, rounds, validation)
        return self

    def _fit_ranker(self, estimator, library, data, validation, rounds, stopping):
        """Fit a library ranker on rows sorted by query, with the validation set.

        ``stopping`` is ``(the library's metric name, skirm's metric)``, one
        of them or both None."""
        X, y, groups, w = data
        eval_name, metric = stopping
        X, y, codes, w = _sorted_by_query(self._features(X, library), y, groups, w)
        kwargs = query_fit_kwargs(library, codes, w)
        callbacks = estimator.get_params().get("callbacks")
        if validation is not None:
            X_val, y_val, groups_val = validation
            X_val, y_val, codes_val, _ = _sorted_by_query(
                self._features(X_val, library), y_val, groups_val, None
            )
            kwargs.update(
                validation_fit_kwargs(
                    library,
                    estimator,
                    X_val,
                    y_val,
                    codes_val,
                    rounds,
                    eval_name,
                    metric,
                )
            )
        estimator.fit(X, y, **kwargs)
        if validation is not None and metric is not None:
            after_fit(library, estimator, callbacks)

    def _record(self, estimator, library, rounds, validation):
        """Fitted attributes: features seen, and the validation history."""
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimator, name):
                setattr(self, name, getattr(estimator, name))
            elif hasattr(self, name):
                delattr(self, name)
        for name in _VALIDATION_ATTRIBUTES:
            if hasattr(self, name):
                delattr(self, name)
        if validation is None:
            return
        history, key, best = early_stopping_history(library, estimator, rounds)
        self.evals_result_ = history
        self.eval_metric_ = key
        self.best_iteration_ = best
        self.best_score_ = float(history[key][best])
        self.validation_groups_ = np.unique(validation[2])

    def _check_eval_set(self, eval_set, train_groups):
        """``(X_val, y_val, groups_val)`` checked, with no training query."""
        if not isinstance(eval_set, (tuple, list)) or len(eval_set) != 3:
            raise InvalidParameterError(
                "`eval_set` must be a tuple (X_val, y_val, groups_val), got "
                f"{describe(eval_set)}"
            )
        X_val, y_val, groups_val = eval_set
        n_val = n_rows(X_val)
        y_val = _check_y(y_val, n_val, "y_val", "of X_val")
        owner = f"{type(self).__name__} (eval_set)"
        groups_val = resolve_groups(owner, X_val, groups_val, self.groups_from)
        codes, _ = encode_groups(np.concatenate([train_groups, groups_val]))
        n_train = train_groups.shape[0]
        clash = np.isin(codes[n_train:], codes[:n_train])
        if clash.any():
            raise InvalidInputError(
                "`eval_set` must hold other queries than the training rows, but "
                f"{np.unique(codes[n_train:][clash]).size} of its queries also "
                f"appear in `groups` (e.g. {as_python(groups_val[clash][0])!r}); "
                "early stopping on training queries would not be a validation"
            )
        return X_val, y_val, groups_val

    def _features(self, X, library):
        """``X`` without its query-id column (``groups_from``): no estimator
        is trained on the ids; for XGBoost, without its special ``qid``
        column either (its ids come as ``qid=``)."""
        X = without_id_column(X, self.groups_from)
        if library == "xgboost":
            X = without_id_column(X, "qid")
        return X

    def predict(self, X: MatrixLike) -> NDArray[Any]:
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
        X = self._features(X, self.library_)
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
