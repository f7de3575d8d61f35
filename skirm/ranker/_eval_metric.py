"""Any skirm metric as a boosting library's validation metric.

:func:`make_eval_metric` returns an object each library calls once per
boosting round with the validation scores. What each library passes:

============  ==============================  ===============================
library       called as                       the queries
============  ==============================  ===============================
LightGBM      ``eval_metric`` of the          group sizes (``group``), passed
              scikit-learn API:               by LightGBM
              ``(y_true, y_pred, weight,
              group)``; ``feval`` of
              ``lgb.train``: ``(preds,
              Dataset)``
XGBoost       ``custom_metric`` of            ``group_ptr`` of the
              ``xgb.train``: ``(predt,        ``DMatrix``, passed by XGBoost
              DMatrix)``
CatBoost      ``eval_metric`` object:         none: the validation rows'
              ``evaluate(approxes, target,    query ids are bound
              weight)``                       (``groups=``)
============  ==============================  ===============================

The query structure of a validation set (query codes and offsets, the label
counts of each query that its ideal ordering is built from) is computed at
the first call and kept; each later call only sorts the new scores within
the queries and reduces them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import check_input, rank_order, ranking_of
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._params import NO_RELEVANT, TIES, OneOf, Param, checked
from skirm.metrics._conventions import apply_conventions
from skirm.metrics._evaluate import bind_input_wide, bind_metrics, compute_metrics

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

    from skirm._typing import Conventions, NoRelevant, Ties
    from skirm.metrics._registry import Metric

__all__ = ["EvalMetric", "make_eval_metric"]

#: The libraries an evaluation metric is made for.
EVAL_LIBRARIES = ("lightgbm", "xgboost", "catboost")
EVAL_LIBRARY = Param("library", OneOf(*EVAL_LIBRARIES))


class FixedQueries:
    """The validation rows' queries and labels, prepared once; :meth:`mean`
    of new scores sorts them within the queries and reduces."""

    def __init__(self, bound, ties, no_relevant, y_true, groups):
        y_true = np.asarray(y_true, dtype=np.float64)
        checked_rows = check_input(
            y_true, np.zeros(y_true.shape[0]), groups=groups, ties=ties
        )
        self.y_true = checked_rows.y_true.astype(np.float64, copy=False)
        self.codes = checked_rows.codes
        self.group_ids = checked_rows.group_ids
        self.starts = checked_rows.starts
        self.ties = ties
        self.no_relevant = no_relevant
        self.bound = bind_input_wide(bound, lambda: self.y_true.max())
        self._cached = None  # label-only parts of the first ranking
        self._labels = np.array(y_true, dtype=np.float64)
        self._groups = np.array(groups)

    def matches(self, y_true, groups) -> bool:
        """Whether these are the rows this structure was built for."""
        return np.array_equal(
            self._labels, np.asarray(y_true, dtype=np.float64)
        ) and np.array_equal(self._groups, np.asarray(groups))

    def ranking(self, y_score):
        """The :class:`~skirm._engine.Ranking` of new scores."""
        y_score = np.asarray(y_score, dtype=np.float64).reshape(-1)
        if y_score.shape[0] != self.y_true.shape[0]:
            raise InvalidInputError(
                f"the scores have {y_score.shape[0]} rows but the validation set "
                f"bound to this metric has {self.y_true.shape[0]}"
            )
        if not np.isfinite(y_score).all():
            raise InvalidInputError("the validation scores must be finite")
        ordered = rank_order(
            y_score,
            self.codes,
            int(self.group_ids.shape[0]),
            self.ties,
            y_true=self.y_true,
            starts=self.starts,
        )
        ranking = ranking_of(ordered, self.y_true[ordered.order], self.group_ids)
        if self._cached is None:
            # Per query, the rows of each grade: the same for any scores.
            self._cached = {"_at_least": ranking._at_least}
        else:
            ranking.__dict__.update(self._cached)
        return ranking

    def mean(self, y_score) -> float:
        """The metric's mean over the queries for these scores."""
        means, _ = compute_metrics(self.bound, self.ranking(y_score), self.no_relevant)
        return float(next(iter(means.values())))


class EvalMetric:
    """A skirm metric called by a boosting library: made by
    :func:`make_eval_metric`.

    Attributes
    ----------
    name : str
        The metric's name in the library's evaluation history.
    library : str
        The library it is called by.
    metric : Metric
        The bound metric, with the preset's options applied.
    higher_is_better : bool
        True: every skirm metric is a score.
    groups : ndarray or None
        The bound query ids of the validation rows (CatBoost).
    """

    #: CatBoost: do not try to compile the methods with numba.
    no_jit = True
    higher_is_better = True

    def __init__(
        self, args: tuple, bound: dict, ties: str, no_relevant: Any, groups: Any
    ) -> None:
        self._args = args
        ((self.name, self.metric),) = bound.items()
        self.library = args[1]
        self._ties = ties
        self._no_relevant = no_relevant
        self.groups = None if groups is None else np.asarray(groups)
        self._fixed: list[FixedQueries] = []  # the validation sets seen

    def __repr__(self):
        metric, library, options = self._args
        shown = "".join(f", {key}={value!r}" for key, value in options.items())
        return f"make_eval_metric({metric!r}, {library!r}{shown})"

    def __reduce__(self):
        metric, library, options = self._args
        return _rebuild, (metric, library, options)

    def score(self, y_true: ArrayLike, y_score: ArrayLike, groups: ArrayLike) -> float:
        """The metric on one validation set (its structure kept for the
        next call with the same ``y_true`` and ``groups``).

        Parameters
        ----------
        y_true, y_score, groups : array-like of shape (n_samples,)

        Returns
        -------
        value : float
        """
        for fixed in self._fixed:
            if fixed.matches(y_true, groups):
                return fixed.mean(y_score)
        bound = {self.name: self.metric}
        fixed = FixedQueries(bound, self._ties, self._no_relevant, y_true, groups)
        self._fixed = [*self._fixed[-3:], fixed]
        return fixed.mean(y_score)

    def _groups_of(self, sizes, n_rows):
        """Query codes from the library's sizes, else the bound ``groups``."""
        if sizes is not None and len(sizes) > 0:
            sizes = np.asarray(sizes, dtype=np.intp)
            return np.repeat(np.arange(sizes.shape[0]), sizes)
        if self.groups is None or self.groups.shape[0] != n_rows:
            raise InvalidInputError(
                f"{self.name}: the library passed no query sizes for these "
                f"{n_rows} rows; bind the validation rows' query ids with "
                "make_eval_metric(..., groups=...)"
            )
        return self.groups

    # -- LightGBM ------------------------------------------------------------

    def __call__(
        self, y_true: Any, y_pred: Any, weight: Any = None, group: Any = None
    ) -> tuple[Any, ...]:
        """LightGBM: ``(name, value, is_higher_better)``; XGBoost ``(name,
        value)``. See :func:`make_eval_metric`."""
        if self.library == "xgboost":
            return self._xgboost(y_true, y_pred)
        if self.library == "catboost":
            raise InvalidParameterError(
                "a CatBoost evaluation metric is passed as CatBoost's "
                "`eval_metric` object, not called"
            )
        if hasattr(y_pred, "get_label"):  # lgb.train's feval(preds, Dataset)
            preds, data = y_true, y_pred
            y_true, group = data.get_label(), data.get_group()
            y_pred = preds
        groups = self._groups_of(group, len(y_true))
        return self.name, self.score(y_true, y_pred, groups), True

    # -- XGBoost -------------------------------------------------------------

    def _xgboost(self, predt, dmatrix):
        if not hasattr(dmatrix, "get_label"):
            raise InvalidInputError(
                f"{self.name}: XGBRanker's scikit-learn `eval_metric` calls a "
                "custom metric with the rows of one query at a time; pass this "
                "metric as `custom_metric` of xgboost.train, or use "
                "skirm.ranker.QueryRanker(eval_metric=...), which evaluates "
                "the whole validation set each round"
            )
        y_true = dmatrix.get_label()
        ptr = np.asarray(dmatrix.get_uint_info("group_ptr"))
        sizes = np.diff(ptr) if ptr.shape[0] > 1 else None
        groups = self._groups_of(sizes, len(y_true))
        return self.name, self.score(y_true, predt, groups)

    # -- CatBoost ------------------------------------------------------------

    def is_max_optimal(self) -> bool:
        """CatBoost: higher is better."""
        return True

    def evaluate(
        self, approxes: Any, target: ArrayLike, weight: Any
    ) -> tuple[float, float]:
        """CatBoost: ``(value, 1.0)`` on the bound validation rows; 0 on
        other rows (the training set, which CatBoost also evaluates, its
        queries unknown).

        Parameters
        ----------
        approxes : list of array-like
            CatBoost's predictions, one array per dimension (one here).
        target : array-like
            The labels of the rows evaluated.
        weight : array-like or None
            CatBoost's row weights (not used: query weights are skirm's).
        """
        target = np.asarray(target)
        if self.groups is None or target.shape[0] != self.groups.shape[0]:
            return 0.0, 1.0
        return self.score(target, approxes[0], self.groups), 1.0

    def get_final_error(self, error: float, weight: float) -> float:
        """CatBoost: the value of :meth:`evaluate`.

        Parameters
        ----------
        error : float
            The value :meth:`evaluate` returned.
        weight : float
            Its weight (not used).
        """
        return error


def _rebuild(metric, library, options):
    return make_eval_metric(metric, library, **options)


def _named(library, name):
    """The class of an evaluation metric: CatBoost names its history after
    the class, so the class is named after the metric."""
    if library != "catboost":
        return EvalMetric
    return type(name, (EvalMetric,), {"__module__": __name__, "__qualname__": name})


@checked(library=EVAL_LIBRARY, ties=TIES, no_relevant=NO_RELEVANT)
def make_eval_metric(
    metric: str | Metric,
    library: str,
    *,
    groups: ArrayLike | None = None,
    conventions: Conventions | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    **options: Any,
) -> EvalMetric:
    """A skirm metric as LightGBM's, XGBoost's or CatBoost's validation metric.

    The returned object is called by the library every boosting round with
    the validation scores; the value goes into the library's evaluation
    history under the skirm name, declared higher-is-better, so early
    stopping stops on it. The validation set's query structure is computed
    at the first call and reused: each round only sorts the new scores
    within the queries.

    Parameters
    ----------
    metric : str or Metric
        A registered metric name (``"map@10"``, ``"err@20"``, ``"ndcg@10"``,
        a trec_eval name, ...) or a metric from
        :func:`~skirm.metrics.get_metric`.
    library : {"lightgbm", "xgboost", "catboost"}
        The library that calls it:

        - ``"lightgbm"``: ``LGBMRanker.fit(..., eval_metric=m)`` (set the
          estimator's ``metric="None"`` to stop on it alone) or
          ``lightgbm.train(..., feval=m)``; LightGBM passes the query sizes.
        - ``"xgboost"``: ``xgboost.train(..., custom_metric=m,
          maximize=True)``; XGBoost passes the ``DMatrix`` with its query
          offsets. ``XGBRanker``'s scikit-learn ``eval_metric`` calls a
          custom metric with one query at a time (and averages the values
          weighted by query size), so it is refused there; use
          :class:`~skirm.ranker.QueryRanker` ``(eval_metric=...)``.
        - ``"catboost"``: ``CatBoostRanker(eval_metric=m)``. CatBoost passes
          no query ids, so ``groups`` must give the query id of each row of
          the validation ``Pool``, in its row order.
    groups : array-like of shape (n_validation_rows,), default=None
        The validation rows' query ids, for a library that does not pass
        them (CatBoost).
    conventions : {"lightgbm", "xgboost", ...}, default=None
        A preset of :func:`~skirm.metrics.evaluate`: ``"lightgbm"`` and
        ``"xgboost"`` reproduce those libraries' own ``ndcg@k`` and
        ``map@k`` (the same number every round).
    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        The order of rows with equal scores.
    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        The value of a validation query without relevant rows.
    **options
        Metric options (``gain``, ``relevance_threshold``, ...).

    Returns
    -------
    eval_metric : EvalMetric
        Callable for LightGBM and XGBoost, a custom metric object for
        CatBoost; ``eval_metric.name`` is its key in the history.

    See Also
    --------
    QueryRanker : Fits a ranker with ``eval_metric=`` any skirm metric.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.ranker import make_eval_metric
    >>> m = make_eval_metric("map@10", "lightgbm")
    >>> m
    make_eval_metric('map@10', 'lightgbm')
    >>> y_val = np.array([1, 0, 0, 1, 0, 0])
    >>> scores = np.array([0.9, 0.8, 0.7, 0.1, 0.8, 0.7])
    >>> name, value, higher_is_better = m(y_val, scores, None, [3, 3])
    >>> name, round(value, 4), higher_is_better
    ('map@10', 0.6667, True)

    CatBoost passes no query ids; bind them:

    >>> cb = make_eval_metric("err@20", "catboost", groups=[0, 0, 0, 1, 1, 1])
    >>> type(cb).__name__, cb.is_max_optimal()
    ('err@20', True)
    """
    options = dict(options)
    args_options = dict(options)
    for key, value in (
        ("groups", groups),
        ("conventions", conventions),
        ("ties", ties),
        ("no_relevant", no_relevant),
    ):
        if key in ("groups", "conventions") and value is not None:
            args_options[key] = value
        elif key == "ties" and value != "average":
            args_options[key] = value
        elif key == "no_relevant" and value != 0.0:
            args_options[key] = value
    bound = bind_metrics([metric], options)
    if conventions is not None:
        bound, ties, no_relevant = apply_conventions(
            conventions, bound, ties, no_relevant
        )
    if groups is not None:
        groups = np.asarray(groups)
        if groups.ndim != 1:
            raise InvalidInputError(
                f"`groups` must be 1-D, one query id per validation row, got "
                f"shape {groups.shape}"
            )
    ((name, _),) = bound.items()
    cls = _named(library, name)
    return cls((metric, library, args_options), bound, ties, no_relevant, groups)
