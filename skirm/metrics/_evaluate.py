"""Many metrics on one ranking."""

from __future__ import annotations

import numpy as np

from skirm._ranking import rank_input
from skirm._validation import check_no_relevant
from skirm.metrics._base import PARAM_CHECKS
from skirm.metrics._registry import Metric, get_metric


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
        """The metric names, in the order requested (string-valued TREC
        measures such as ``relstring`` included: they have no mean)."""
        return list(self.per_query)

    def __getitem__(self, name) -> float:
        return self.means[name]

    def __repr__(self):
        body = ", ".join(f"{name!r}: {value:.4f}" for name, value in self.means.items())
        return f"EvaluationResult(n_queries={len(self.group_ids)}, means={{{body}}})"

    def to_frame(self):
        """The per-query values as a pandas DataFrame indexed by query.

        Requires pandas (``pip install skirm[pandas]``).
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "EvaluationResult.to_frame requires pandas; install it with "
                "`pip install skirm[pandas]`"
            ) from exc
        index = pd.Index(self.group_ids, name="query")
        return pd.DataFrame(self.per_query, index=index)


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
