"""Many metrics on one ranking."""

from __future__ import annotations

import numpy as np

from skirm._ranking import rank_input, relabel
from skirm._validation import check_no_relevant, check_y_true
from skirm.metrics._base import PARAM_CHECKS
from skirm.metrics._conventions import apply_conventions, check_scores
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
    n_unjudged : ndarray of shape (n_groups,) or None
        The rows of each query whose label was NaN (unjudged), when
        ``evaluate`` was given such labels with ``unjudged`` set.
    judge_per_query : dict of str to ndarray of shape (n_groups, n_judges) or None
        With ``label_samples``: each metric's per-query value under each
        judge's labels.
    judge_means : dict of str to ndarray of shape (n_judges,) or None
        With ``label_samples``: each metric's mean under each judge's labels.
    judge_spread : dict of str to float or None
        With ``label_samples``: the standard deviation (``ddof=1``) of
        ``judge_means``, the spread the judges induce (0 for one judge).

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

    n_unjudged = None
    judge_per_query = None
    judge_means = None
    judge_spread = None

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
    conventions=None,
    unjudged="raise",
    label_samples=None,
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
    conventions : {"sklearn", "lightgbm", "xgboost", "torchmetrics", "beir", \
"spark"}, default=None
        Reproduce another library's numbers: the preset sets ``ties``,
        ``no_relevant`` and metric options (``gain``, ``denominator``) that
        are left at their defaults; arguments given other values win. A
        metric the library has no counterpart for raises ValueError. See
        :ref:`conventions`.
    unjudged : {"raise", "nonrelevant", "condensed"}, default="raise"
        What a NaN label (an unjudged row) means: an error, a non-relevant
        row (label 0, as trec_eval reads documents missing from the qrels),
        or a row to drop before ranking (Sakai's condensed lists, trec_eval
        ``-J``). ``result.n_unjudged`` counts such rows per query, and the
        metric ``judged@k`` gives the share of judged rows in the top k.
    label_samples : array-like of shape (n_samples, n_judges), default=None
        Several judgements of every row (human assessors, LLM judge samples),
        for 1-D input. Each metric is also computed under each judge's labels
        on the same ranking (one sort for all): ``result.judge_means[name]``
        holds the mean per judge, ``result.judge_spread[name]`` their
        standard deviation, ``result.judge_per_query[name]`` the per-query
        values per judge.
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

    trec_eval names and ir_measures strings work too, and a preset
    reproduces another library (here LightGBM: gains ``2**label - 1``, input
    order among ties, 1 for a query without relevant rows):

    >>> evaluate(y_true, y_score, groups=groups, metrics=["ndcg_cut.2", "nDCG@2"])
    EvaluationResult(n_queries=2, means={'ndcg_cut.2': 0.3801, 'nDCG@2': 0.3801})
    >>> round(evaluate(y_true, y_score, groups=groups, metrics=["ndcg@2"],
    ...                conventions="lightgbm")["ndcg@2"], 4)
    0.4131
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
    if conventions is not None:
        bound, ties, no_relevant = apply_conventions(
            conventions, bound, ties, no_relevant
        )
    ranking = rank_input(
        y_true,
        y_score,
        groups=groups,
        sample_weight=sample_weight,
        ties=ties,
        unjudged=unjudged,
    )
    if conventions is not None:
        check_scores(conventions, bound, ranking)
    per_query, means = {}, {}
    for label, metric in bound.items():
        means[label], per_query[label] = metric.per_query(ranking, no_relevant)
    result = EvaluationResult(
        np.asarray(ranking.group_ids), per_query, means, ranking.group_weights
    )
    result.n_unjudged = ranking.n_unjudged
    if label_samples is not None:
        _judge_spread(result, ranking, bound, no_relevant, label_samples, unjudged)
    return result


def _judge_spread(result, ranking, bound, no_relevant, label_samples, unjudged):
    """Every metric under every judge's labels, on the ranking already built."""
    if ranking.judgments is not None or unjudged == "condensed":
        raise ValueError(
            "`label_samples` needs flat rows ranked as given: it does not combine "
            "with ranked lists or unjudged='condensed'"
        )
    samples = check_y_true(label_samples, "label_samples")
    if samples.ndim != 2 or samples.shape[0] != ranking.n_rows:
        raise ValueError(
            "`label_samples` must have shape (n_samples, n_judges) with one row "
            f"per row of `y_true` ({ranking.n_rows}), got shape {samples.shape}"
        )
    ranked = samples[ranking.order]
    result.judge_per_query, result.judge_means, result.judge_spread = {}, {}, {}
    for label, metric in bound.items():
        per_judge, means = [], []
        for j in range(ranked.shape[1]):
            mean, values = metric.per_query(relabel(ranking, ranked[:, j]), no_relevant)
            per_judge.append(values)
            means.append(mean)
        result.judge_per_query[label] = np.column_stack(per_judge)
        result.judge_means[label] = np.asarray(means)
        spread = np.std(means, ddof=1) if len(means) > 1 else 0.0
        result.judge_spread[label] = float(spread)
