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
              weight)``                       (``groups=``), and their labels
                                              (``y_true=``), which tell the
                                              validation set from the
                                              training set
============  ==============================  ===============================

A weighted validation set weighs its queries as the library's own metrics
do: LightGBM passes per-row weights and weighs a query by their mean
(summed in float32, as its ``Metadata`` does); XGBoost's ``DMatrix`` holds
one weight per query; CatBoost passes its group weights repeated on each row
(object weights, which vary within a query, its ranking metrics ignore).

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
from skirm.metrics._conventions import apply_conventions, weighted_mean_rules
from skirm.metrics._evaluate import (
    bind_input_wide,
    bind_metrics,
    compute_metrics,
    metric_values,
)

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

    from skirm._typing import Conventions, NoRelevant, Ties
    from skirm.metrics._registry import Metric

__all__ = ["EvalMetric", "make_eval_metric"]

#: The libraries an evaluation metric is made for.
EVAL_LIBRARIES = ("lightgbm", "xgboost", "catboost")
EVAL_LIBRARY = Param("library", OneOf(*EVAL_LIBRARIES))


def lightgbm_query_weights(weight, codes, n_groups):
    """LightGBM's query weights: the mean of each query's row weights, summed
    row by row in float32 and divided in float32 (``Metadata``'s
    ``CalculateQueryWeights``). The sums run over the rank positions, each
    position one vectorised step over the queries that long."""
    order = np.argsort(codes, kind="stable")
    w = np.asarray(weight, dtype=np.float32).reshape(-1)[order]
    sizes = np.bincount(codes, minlength=n_groups)
    starts = np.cumsum(sizes) - sizes
    longest_first = np.argsort(-sizes, kind="stable")
    lengths = sizes[longest_first]
    firsts = starts[longest_first]
    sums = np.zeros(n_groups, dtype=np.float32)
    for position in range(int(lengths[0]) if n_groups else 0):
        alive = int(np.searchsorted(-lengths, -position, side="left"))
        sums[:alive] += w[firsts[:alive] + position]
    means = np.empty(n_groups, dtype=np.float32)
    means[longest_first] = sums / lengths.astype(np.float32)
    return means.astype(np.float64)


def constant_query_weights(weight, codes, n_groups):
    """One weight per query from per-row weights constant within each query
    (CatBoost's group weights), else None (object weights, which CatBoost's
    ranking metrics ignore)."""
    w = np.asarray(weight, dtype=np.float64).reshape(-1)
    per_query = np.zeros(n_groups)
    per_query[codes] = w
    return per_query if np.array_equal(per_query[codes], w) else None


class FixedQueries:
    """The validation rows' queries, labels and query weights, prepared once;
    :meth:`mean` of new scores sorts them within the queries and reduces.

    ``weight`` is what the library passed (None: unweighted), turned into one
    weight per query by ``weigh(weight, codes, n_groups)``. ``rules`` are
    the library's rules of a weighted mean (see
    :func:`~skirm.metrics._conventions.weighted_mean_rules`).
    """

    def __init__(self, bound, ties, no_relevant, y_true, groups, weight, weigh, rules):
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
        self._weight = None if weight is None else np.array(weight)
        n_groups = int(self.group_ids.shape[0])
        self.query_weights = (
            None if weight is None else weigh(self._weight, self.codes, n_groups)
        )
        empty_once, self.capped = rules
        self.empty_once = (
            empty_once
            and self.query_weights is not None
            and not isinstance(no_relevant, str)
        )

    def matches(self, y_true, groups, weight) -> bool:
        """Whether these are the rows (and weights) this structure was built for."""
        if (weight is None) != (self._weight is None) or (
            weight is not None and not np.array_equal(self._weight, weight)
        ):
            return False
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
        ranking = ranking_of(
            ordered, self.y_true[ordered.order], self.group_ids, self.query_weights
        )
        if self._cached is None:
            # Per query, the rows of each grade: the same for any scores.
            self._cached = {"_at_least": ranking._at_least}
        else:
            ranking.__dict__.update(self._cached)
        return ranking

    def mean(self, y_score) -> float:
        """The metric's mean over the queries for these scores."""
        ranking = self.ranking(y_score)
        if not self.empty_once:
            means, _ = compute_metrics(self.bound, ranking, self.no_relevant)
            return float(next(iter(means.values())))
        ((values, empty, own),) = metric_values(self.bound, ranking)
        w = self.query_weights if own is None else self.query_weights * own
        total = w.sum()
        if total <= 0:
            raise InvalidInputError(
                "the query weights of the validation set sum to zero"
            )
        kept = np.dot(w[~empty], values[~empty])
        mean = (kept + np.count_nonzero(empty) * self.no_relevant) / total
        return float(min(mean, 1.0) if self.capped else mean)


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
    y_true : ndarray or None
        The bound labels of the validation rows (CatBoost).
    """

    #: CatBoost: do not try to compile the methods with numba.
    no_jit = True
    higher_is_better = True

    def __init__(
        self,
        args: tuple,
        bound: dict,
        ties: str,
        no_relevant: Any,
        groups: Any,
        y_true: Any = None,
    ) -> None:
        self._args = args
        ((self.name, self.metric),) = bound.items()
        self.library = args[1]
        self._ties = ties
        self._no_relevant = no_relevant
        self.groups = None if groups is None else np.asarray(groups)
        self.y_true = None if y_true is None else np.asarray(y_true)
        self._fixed: list[FixedQueries] = []  # the validation sets seen
        self._targets: list[np.ndarray] = []  # CatBoost's sets of that size
        self._rules = weighted_mean_rules(args[2].get("conventions"), self.metric)

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
        return self._score(y_true, y_score, groups, None, None)

    def _score(self, y_true, y_score, groups, weight, weigh) -> float:
        """:meth:`score` with the library's ``weight``, one per query by
        ``weigh`` (see :class:`FixedQueries`)."""
        for fixed in self._fixed:
            if fixed.matches(y_true, groups, weight):
                return fixed.mean(y_score)
        bound = {self.name: self.metric}
        fixed = FixedQueries(
            bound,
            self._ties,
            self._no_relevant,
            y_true,
            groups,
            weight,
            weigh,
            self._rules,
        )
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
            weight = data.get_weight()
            y_pred = preds
        groups = self._groups_of(group, len(y_true))
        weight = _given(weight)
        value = self._score(y_true, y_pred, groups, weight, lightgbm_query_weights)
        return self.name, value, True

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
        weight = _given(dmatrix.get_weight())
        n_queries = np.unique(groups).shape[0]
        if weight is not None and weight.shape[0] != n_queries:
            raise InvalidInputError(
                f"{self.name}: XGBoost's ranking metrics take one weight per query "
                f"(DMatrix.set_weight); the validation DMatrix holds "
                f"{weight.shape[0]} weights for {n_queries} queries"
            )
        value = self._score(y_true, predt, groups, weight, _per_query)
        return self.name, value

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

        The validation rows are those with the bound ``groups``' row count
        and the bound ``y_true`` labels. Without bound labels, a second data
        set of the same row count (the training set) is refused, as it
        cannot be told apart from the validation set.

        Parameters
        ----------
        approxes : list of array-like
            CatBoost's predictions, one array per dimension (one here).
        target : array-like
            The labels of the rows evaluated.
        weight : array-like or None
            CatBoost's weights (its group weights, repeated on every row, weigh
            the queries; weights that vary within a query are ignored).
        """
        target = np.asarray(target)
        if not self._is_validation(target):
            return 0.0, 1.0
        weight = _given(weight)
        value = self._score(
            target, approxes[0], self.groups, weight, constant_query_weights
        )
        return value, 1.0

    def _is_validation(self, target):
        """Whether CatBoost's ``target`` are the bound validation rows."""
        if self.groups is None or target.shape[0] != self.groups.shape[0]:
            return False
        if self.y_true is not None:
            as_float32 = np.float32  # CatBoost holds labels in float32
            return np.array_equal(
                target.astype(as_float32), self.y_true.astype(as_float32)
            )
        if not any(np.array_equal(target, seen) for seen in self._targets):
            self._targets.append(target.copy())
        if len(self._targets) > 1:
            raise InvalidInputError(
                f"{self.name}: CatBoost evaluates two data sets of "
                f"{target.shape[0]} rows (the training and the validation set), "
                "and the bound `groups` cannot tell them apart; bind the validation "
                "labels too: make_eval_metric(..., groups=groups_valid, "
                "y_true=y_valid)"
            )
        return True

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


def _given(weight):
    """The library's weights as an array, or None when it has none."""
    if weight is None:
        return None
    weight = np.asarray(weight).reshape(-1)
    return weight if weight.shape[0] > 0 else None


def _per_query(weight, codes, n_groups):
    """XGBoost's weights: already one per query, in query order."""
    return np.asarray(weight, dtype=np.float64)


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
    y_true: ArrayLike | None = None,
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
          the validation ``Pool``, in its row order, and ``y_true`` its
          labels.

        A weighted validation set weighs the queries as the library's own
        metrics do: LightGBM by the mean of each query's row weights
        (``Dataset(weight=...)``, ``eval_sample_weight``), XGBoost by its one
        weight per query (``DMatrix.set_weight``), CatBoost by its group
        weights (``Pool(group_weight=...)``; object weights, which its
        ranking metrics ignore, are ignored).
    groups : array-like of shape (n_validation_rows,), default=None
        The validation rows' query ids, for a library that does not pass
        them (CatBoost).
    y_true : array-like of shape (n_validation_rows,), default=None
        The validation rows' labels (CatBoost, with ``groups``). CatBoost
        also evaluates the training set, for which the metric reports 0;
        the labels tell the two sets apart when they have the same number of
        rows (without them, a training set of the validation set's size is
        refused).
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

    CatBoost passes no query ids; bind them, with the labels:

    >>> cb = make_eval_metric(
    ...     "err@20", "catboost", groups=[0, 0, 0, 1, 1, 1], y_true=[1, 0, 0, 2, 0, 0]
    ... )
    >>> type(cb).__name__, cb.is_max_optimal()
    ('err@20', True)
    """
    options = dict(options)
    args_options = dict(options)
    for key, value in (
        ("groups", groups),
        ("y_true", y_true),
        ("conventions", conventions),
        ("ties", ties),
        ("no_relevant", no_relevant),
    ):
        if key in ("groups", "y_true", "conventions") and value is not None:
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
    if y_true is not None:
        y_true = _bound_labels(library, y_true, groups)
    ((name, _),) = bound.items()
    cls = _named(library, name)
    return cls(
        (metric, library, args_options), bound, ties, no_relevant, groups, y_true
    )


def _bound_labels(library, y_true, groups):
    """The validation labels bound for CatBoost, checked against ``groups``."""
    if library != "catboost":
        raise InvalidParameterError(
            "`y_true` binds CatBoost's validation labels; "
            f"{library} passes the labels itself, got library={library!r}"
        )
    if groups is None:
        raise InvalidParameterError(
            "`y_true` needs `groups`: bind the validation rows' query ids with "
            "their labels"
        )
    y_true = np.asarray(y_true)
    if y_true.shape != groups.shape:
        raise InvalidInputError(
            "`y_true` must hold one label per validation row, as `groups` "
            f"({groups.shape[0]} rows), got shape {y_true.shape}"
        )
    return y_true
