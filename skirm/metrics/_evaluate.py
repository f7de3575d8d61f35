"""Many metrics on one ranking."""

from __future__ import annotations

import numpy as np

from skirm._ranking import rank_input
from skirm._validation import check_no_relevant
from skirm.metrics._base import PARAM_CHECKS
from skirm.metrics._registry import Metric, get_metric


def _pandas(method):
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"EvaluationResult.{method} requires pandas; install it with "
            "`pip install skirm[pandas]`"
        ) from exc
    return pd


class EvaluationResult:
    """Per-query values and means of several metrics on one ranking.

    Attributes
    ----------
    group_ids : ndarray of shape (n_groups,)
        The sorted distinct query labels.
    per_query : dict of str to ndarray of shape (n_groups,)
        Each metric's value per query, aligned to ``group_ids``. Queries left
        out by ``no_relevant="skip"`` hold NaN.
    means : dict of str to float
        Each metric's (weighted) mean over queries.
    weights : ndarray of shape (n_groups,) or None
        The query weights, if ``sample_weight`` was given.

    Examples
    --------
    >>> from skirm.metrics import evaluate
    >>> result = evaluate([1, 0, 0, 1], [2, 1, 2, 1], groups=["b", "b", "a", "a"],
    ...                   metrics=["mrr", "precision@1"])
    >>> result
    EvaluationResult(n_queries=2, means={'mrr': 0.7500, 'precision@1': 0.5000})
    >>> result.group_ids.tolist(), result.per_query["mrr"].tolist()
    (['a', 'b'], [0.5, 1.0])
    >>> result["precision@1"]
    0.5
    """

    def __init__(self, group_ids, per_query, means, weights=None):
        self.group_ids = group_ids
        self.per_query = per_query
        self.means = means
        self.weights = weights

    @property
    def metrics(self) -> list[str]:
        """The metric names, in the order requested."""
        return list(self.means)

    def __getitem__(self, name) -> float:
        return self.means[name]

    def __repr__(self):
        body = ", ".join(f"{name!r}: {value:.4f}" for name, value in self.means.items())
        return f"EvaluationResult(n_queries={len(self.group_ids)}, means={{{body}}})"

    def to_frame(self):
        """The per-query values as a pandas DataFrame indexed by query.

        Requires pandas (``pip install skirm[pandas]``).
        """
        pd = _pandas("to_frame")
        index = pd.Index(self.group_ids, name="query")
        return pd.DataFrame(self.per_query, index=index)

    def ci(self, method="t", confidence=0.95, *, n_resamples=10_000, random_state=None):
        """Confidence interval of each metric's mean over queries.

        Parameters
        ----------
        method : {"t", "bootstrap", "percentile", "bca"}, default="t"
            Student t, or from ``n_resamples`` bootstrap draws of the queries
            (``"bootstrap"`` is BCa, as in :func:`scipy.stats.bootstrap`).
            Query weights, if any, weight the means.
        confidence : float, default=0.95
            The confidence level.
        n_resamples : int, default=10_000
            Bootstrap draws.
        random_state : int, numpy Generator or None, default=None
            Seed of the draws.

        Returns
        -------
        intervals : dict of str to tuple of float
            ``(low, high)`` per metric. Queries holding NaN
            (``no_relevant="skip"``) are left out.

        Examples
        --------
        >>> from skirm.metrics import evaluate
        >>> result = evaluate([1, 0, 0, 1, 1, 0, 0, 0, 1], [3, 2, 3, 2, 3, 2, 3, 2, 1],
        ...                   groups=[1, 1, 2, 2, 3, 3, 4, 4, 4], metrics=["mrr"])
        >>> result.per_query["mrr"]
        array([1.        , 0.5       , 1.        , 0.33333333])
        >>> low, high = result.ci()["mrr"]
        >>> round(low, 4), round(high, 4)
        (0.1616, 1.2551)

        With four queries the t interval even leaves [0, 1].
        """
        from skirm.stats._intervals import result_intervals

        rows = result_intervals(
            self,
            method=method,
            confidence=confidence,
            n_resamples=n_resamples,
            random_state=random_state,
        )
        return {name: (row[1], row[2]) for name, row in rows.items()}

    def describe(
        self, method="t", confidence=0.95, *, n_resamples=10_000, random_state=None
    ):
        """Mean, confidence interval, standard deviation and count per metric.

        Takes the arguments of :meth:`ci`. Requires pandas
        (``pip install skirm[pandas]``).

        Returns
        -------
        frame : pandas.DataFrame
            Indexed by metric, with columns ``mean, ci_low, ci_high, std, n``
            (``std`` over queries, with ``n - 1``).

        Examples
        --------
        >>> from skirm.metrics import evaluate
        >>> y_true = [1, 0, 0, 1, 1, 0, 0, 0, 1]
        >>> y_score = [3, 2, 3, 2, 3, 2, 3, 2, 1]
        >>> groups = [1, 1, 2, 2, 3, 3, 4, 4, 4]
        >>> result = evaluate(y_true, y_score, groups=groups, metrics=["mrr", "p@1"])
        >>> result.describe().round(3)
                 mean  ci_low  ci_high    std  n
        metric
        mrr     0.708   0.162    1.255  0.344  4
        p@1     0.500  -0.419    1.419  0.577  4
        """
        from skirm.stats._intervals import result_intervals

        pd = _pandas("describe")
        rows = result_intervals(
            self,
            method=method,
            confidence=confidence,
            n_resamples=n_resamples,
            random_state=random_state,
        )
        frame = pd.DataFrame.from_dict(
            rows, orient="index", columns=["mean", "ci_low", "ci_high", "std", "n"]
        )
        frame.index.name = "metric"
        return frame

    def compare(self, other, *, names=("this", "other"), **kwargs):
        """Compare with another result on the same queries (``other`` is the baseline).

        A shortcut for ``skirm.stats.compare({names[0]: self, names[1]: other},
        baseline=names[1], **kwargs)``; see :func:`skirm.stats.compare`.

        Returns
        -------
        comparison : skirm.stats.Comparison

        Examples
        --------
        >>> from skirm.metrics import evaluate
        >>> y, groups = [1, 0, 0, 1, 0, 1, 1, 0], [1, 1, 2, 2, 3, 3, 4, 4]
        >>> new = evaluate(y, [2, 1, 2, 1, 1, 2, 2, 1], groups=groups, metrics=["mrr"])
        >>> old = evaluate(y, [1, 2, 1, 2, 2, 1, 1, 2], groups=groups, metrics=["mrr"])
        >>> res = new.compare(old, names=("new", "old"), test="randomization")
        >>> res.to_frame()[["system", "mean", "delta", "p_value", "wins", "losses"]]
          system   mean  delta  p_value  wins  losses
        0    old  0.625   0.00      NaN     0       0
        1    new  0.875   0.25    0.625     3       1

        Four queries cannot show a difference: the exact randomization test
        gives p = 0.625.
        """
        from skirm.stats import compare

        return compare({names[0]: self, names[1]: other}, baseline=names[1], **kwargs)


def evaluate(
    y_true,
    y_score,
    *,
    groups=None,
    metrics=("ndcg@10", "map", "mrr"),
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    **params,
):
    """Compute several metrics from one ranking of the rows.

    The rows are validated and sorted once; each metric is then a reduction
    over that ranking, so ten metrics cost little more than one.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs)
        Relevance labels.
    y_score : array-like of the same shape as ``y_true``
        Scores; higher ranks first.
    groups : array-like of shape (n_samples,), default=None
        The query of each row; required for 1-D input.
    metrics : sequence of str or Metric, default=("ndcg@10", "map", "mrr")
        Names understood by :func:`get_metric`, or metrics it returned.
    sample_weight : array-like of shape (n_samples,), default=None
        Query weights given per row, constant within each query.
    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        The tie policy, shared by all metrics.
    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        The value of a query without relevant rows, for every metric.
    **params
        Metric options (``gain``, ``relevance_threshold``, ``p``, ...), given
        to each metric that takes them. An option no requested metric takes
        raises TypeError. Options of one metric only can be bound with
        :func:`get_metric`.

    Returns
    -------
    result : EvaluationResult
        ``result.group_ids``, ``result.per_query[name]``,
        ``result.means[name]`` (also ``result[name]``) and
        ``result.to_frame()``.

    Examples
    --------
    >>> from skirm.metrics import evaluate
    >>> y_true = [2, 0, 1, 0, 0, 1]
    >>> y_score = [0.9, 0.8, 0.7, 0.9, 0.8, 0.7]
    >>> groups = ["q1", "q1", "q1", "q2", "q2", "q2"]
    >>> result = evaluate(y_true, y_score, groups=groups, metrics=["ndcg@2", "mrr"])
    >>> result.group_ids
    array(['q1', 'q2'], dtype='<U2')
    >>> result.per_query["mrr"]
    array([1.        , 0.33333333])
    >>> round(result["ndcg@2"], 4)
    0.3801
    """
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise ValueError("`metrics` must name at least one metric, got none")
    no_relevant = check_no_relevant(no_relevant)
    for key, value in params.items():
        if key not in PARAM_CHECKS or key == "ignore_ties":
            raise TypeError(f"evaluate() got an unexpected keyword argument {key!r}")
        PARAM_CHECKS[key](value)
    bound = {}
    for metric in metrics:
        parsed = get_metric(metric)
        label = metric if isinstance(metric, str) else parsed.name
        if label in bound:
            raise ValueError(f"`metrics` names {label!r} twice")
        options = {p: v for p, v in params.items() if p in parsed.spec.params}
        bound[label] = get_metric(parsed, **options) if options else parsed
    for key in params:
        if not any(key in m.spec.params for m in bound.values()):
            raise TypeError(
                f"option {key!r} is taken by none of the requested metrics "
                f"({', '.join(bound)})"
            )
    ranking = rank_input(
        y_true, y_score, groups=groups, sample_weight=sample_weight, ties=ties
    )
    per_query, means = {}, {}
    for label, metric in bound.items():
        means[label], per_query[label] = metric.per_query(ranking, no_relevant)
    return EvaluationResult(
        np.asarray(ranking.group_ids), per_query, means, ranking.group_weights
    )
