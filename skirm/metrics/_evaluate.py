"""Many metrics on one ranking."""

from __future__ import annotations

from functools import partial

import numpy as np

from skirm._engine import (
    CheckedInput,
    enter,
    map_query_blocks,
    rank_checked,
    relabel,
)
from skirm._validation import check_no_relevant, check_y_true, describe
from skirm.metrics._base import (
    PARAM_CHECKS,
    apply_no_relevant,
    average,
    mean_over_queries,
)
from skirm.metrics._conventions import apply_conventions, check_scores
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

    Queries left out of the means (``no_relevant="skip"``) are counted apart:

    >>> evaluate([1, 0, 0, 0], [2, 1, 2, 1], groups=["b", "b", "a", "a"],
    ...          metrics=["mrr"], no_relevant="skip")
    EvaluationResult(n_queries=2, n_scored=1, means={'mrr': 1.0000})
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
        """The metric names, in the order requested (string-valued TREC
        measures such as ``relstring`` included: they have no mean)."""
        return list(self.per_query)

    def __getitem__(self, name) -> float:
        return self.means[name]

    def __repr__(self):
        body = ", ".join(f"{name!r}: {value:.4f}" for name, value in self.means.items())
        n_queries = len(self.group_ids)
        # Queries left out by no_relevant="skip" are in group_ids but not in
        # the means: say over how many queries each mean is.
        scored = {
            name: int(np.count_nonzero(~np.isnan(values)))
            for name, values in self.per_query.items()
        }
        counts = set(scored.values())
        if counts == {n_queries} or not counts:
            extra = ""
        elif len(counts) == 1:
            extra = f", n_scored={counts.pop()}"
        else:
            extra = f", n_scored={scored}"
        return f"EvaluationResult(n_queries={n_queries}{extra}, means={{{body}}})"

    @classmethod
    def concat(cls, results):
        """Merge the results of disjoint query sets into one.

        The per-query values are put in the order of the sorted query labels
        and the means recomputed from them and the query weights, exactly as
        :func:`evaluate` takes them: the merged result does not depend on how
        the queries were split nor on the order of ``results``, and equals
        the result of evaluating all the rows at once. A query in two results
        is an error, never averaged twice.

        Parameters
        ----------
        results : iterable of EvaluationResult
            Results of the same metrics, all with query weights or all
            without, on disjoint sets of queries.

        Returns
        -------
        result : EvaluationResult

        Raises
        ------
        ValueError
            If a query appears in two results, the metrics differ, or some
            results have query weights and others not.

        Examples
        --------
        >>> from skirm.metrics import EvaluationResult, evaluate
        >>> y_true, y_score = [1, 0, 0, 1, 1, 0], [2, 1, 2, 1, 3, 1]
        >>> groups = ["a", "a", "b", "b", "c", "c"]
        >>> whole = evaluate(y_true, y_score, groups=groups, metrics="mrr")
        >>> left = evaluate(y_true[:2], y_score[:2], groups=groups[:2], metrics="mrr")
        >>> right = evaluate(y_true[2:], y_score[2:], groups=groups[2:], metrics="mrr")
        >>> merged = EvaluationResult.concat([right, left])
        >>> merged.group_ids.tolist(), merged["mrr"] == whole["mrr"]
        (['a', 'b', 'c'], True)
        >>> EvaluationResult.concat([left, left])
        Traceback (most recent call last):
        ...
        ValueError: query 'a' appears in more than one result...
        """
        results = _check_parts(results)
        return merge([(r.group_ids, r.per_query, r.weights) for r in results])

    def to_frame(self, tidy=False):
        """The per-query values as a pandas DataFrame.

        Requires pandas (``pip install skirm[pandas]``).

        Parameters
        ----------
        tidy : bool, default=False
            False: one row per query (the index, named ``query``) and one
            column per metric. True: one row per (query, metric) pair, with
            columns ``query``, ``metric`` and ``value``, queries in
            ``group_ids`` order and metrics in request order within each.

        Returns
        -------
        frame : pandas.DataFrame

        Examples
        --------
        >>> from skirm.metrics import evaluate
        >>> result = evaluate([1, 0, 0, 1], [2, 1, 2, 1], groups=["b", "b", "a", "a"],
        ...                   metrics=["mrr", "precision@1"])
        >>> result.to_frame()
               mrr  precision@1
        query
        a      0.5          0.0
        b      1.0          1.0
        >>> result.to_frame(tidy=True)
          query       metric  value
        0     a          mrr    0.5
        1     a  precision@1    0.0
        2     b          mrr    1.0
        3     b  precision@1    1.0
        """
        pd = _pandas("to_frame")
        if not isinstance(tidy, (bool, np.bool_)):
            raise TypeError(f"`tidy` must be True or False, got {tidy!r}")
        if not tidy:
            index = pd.Index(self.group_ids, name="query")
            return pd.DataFrame(self.per_query, index=index)
        names = list(self.per_query)
        n = len(self.group_ids)
        columns = [np.asarray(self.per_query[m]) for m in names]
        numeric = all(c.dtype.kind in "biuf" for c in columns)
        dtype = np.result_type(*columns) if numeric and columns else object
        values = np.empty(n * len(names), dtype=dtype)
        for j, column in enumerate(columns):  # one pass per metric
            values[j :: len(names)] = column
        return pd.DataFrame(
            {
                "query": np.repeat(np.asarray(self.group_ids), len(names)),
                "metric": np.tile(np.asarray(names, dtype=object), n),
                "value": values,
            }
        )

    def to_dict(self):
        """The per-query values as ``{query: {metric: value}}``.

        The shape of pytrec_eval's ``RelevanceEvaluator.evaluate``: one inner
        dict per query of ``group_ids`` (as Python scalars), metrics in
        request order, values as Python floats. Means are in ``means``.
        For ``gm_map`` and ``gm_bpref`` the per-query values are AP and
        bpref; :class:`skirm.trec.RelevanceEvaluator` gives pytrec_eval's
        logarithms.

        Returns
        -------
        values : dict of dict

        Examples
        --------
        >>> from skirm.metrics import evaluate
        >>> result = evaluate([1, 0, 0, 1], [2, 1, 2, 1], groups=["b", "b", "a", "a"],
        ...                   metrics=["mrr", "precision@1"])
        >>> result.to_dict()
        {'a': {'mrr': 0.5, 'precision@1': 0.0}, 'b': {'mrr': 1.0, 'precision@1': 1.0}}
        """
        names = list(self.per_query)
        columns = [np.asarray(self.per_query[m]).tolist() for m in names]
        queries = np.asarray(self.group_ids).tolist()
        rows = zip(*columns, strict=True) if names else [()] * len(queries)
        return {
            q: dict(zip(names, row, strict=True))
            for q, row in zip(queries, rows, strict=True)
        }

    def __getattr__(self, name):
        # Statistics live in skirm.stats, a layer above the metrics: say
        # where the methods of earlier releases went.
        moved = _MOVED.get(name)
        if moved is None:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r}"
            )
        raise AttributeError(
            f"EvaluationResult.{name}() moved to skirm.stats: use {moved}"
        )


#: Methods of earlier releases that are functions of skirm.stats now.
_MOVED = {
    "ci": "skirm.stats.confidence_intervals(result, ...)",
    "describe": "skirm.stats.describe(result, ...)",
    "compare": (
        "skirm.stats.compare({'this': result, 'other': other}, baseline='other')"
    ),
}


def _check_parts(results):
    """The results :meth:`EvaluationResult.concat` can merge, as a list."""
    if isinstance(results, EvaluationResult):
        raise TypeError(
            "`results` must be an iterable of EvaluationResult, got one "
            "EvaluationResult; pass a list"
        )
    results = list(results)
    if not results:
        raise ValueError("`results` must hold at least one EvaluationResult, got none")
    for result in results:
        if not isinstance(result, EvaluationResult):
            raise TypeError(
                f"`results` must hold EvaluationResult objects, got {describe(result)}"
            )
        if hasattr(result, "run_id"):
            raise ValueError(
                "`results` must not hold results of skirm.trec.evaluate_run: "
                "their summaries (sums, geometric means, -c) are not means of "
                "the per-query values; use skirm.dask.evaluate_run for runs "
                "split across partitions"
            )
    first = results[0]
    for result in results[1:]:
        if result.metrics != first.metrics:
            raise ValueError(
                "`results` must hold the same metrics in the same order, got "
                f"{first.metrics} and {result.metrics}"
            )
        if (result.weights is None) != (first.weights is None):
            raise ValueError(
                "`results` must all have query weights (`sample_weight`) or all "
                "have none, got a mix"
            )
    return results


def merge(parts) -> EvaluationResult:
    """The result of ``(group_ids, per_query, weights)`` parts of disjoint
    query sets with the same metrics: values in query order, means anew."""
    group_ids, order = merged_ids([p[0] for p in parts])
    weights = None
    if parts[0][2] is not None:
        weights = np.concatenate([p[2] for p in parts])[order]
    per_query = {
        name: np.concatenate([p[1][name] for p in parts])[order] for name in parts[0][1]
    }
    return assemble(group_ids, per_query, weights)


def merged_ids(parts):
    """The sorted query labels of disjoint parts and the order that sorts them."""
    kinds = {"b": "i", "i": "i", "u": "i"}
    found = {kinds.get(p.dtype.kind, p.dtype.kind) for p in parts}
    if len(found) > 1 or found <= {"f", "c"}:
        raise TypeError(
            "`results` must have query labels of one kind (integers, strings or "
            f"objects), got dtypes {sorted({str(p.dtype) for p in parts})}"
        )
    group_ids = np.concatenate(parts)
    if group_ids.dtype.kind == "f":  # int64 and uint64 labels: no common type
        raise TypeError(
            "`results` must have query labels of one integer type, got dtypes "
            f"{sorted({str(p.dtype) for p in parts})}"
        )
    try:
        order = np.argsort(group_ids, kind="stable")
    except TypeError as exc:
        raise TypeError(
            f"`results` must have mutually comparable query labels: {exc}"
        ) from None
    group_ids = group_ids[order]
    repeated = group_ids[1:] == group_ids[:-1]
    if repeated.any():
        query = group_ids[int(np.argmax(repeated))]
        query = query.item() if isinstance(query, np.generic) else query
        raise ValueError(
            f"query {query!r} appears in more than one result; concat merges "
            "results of disjoint query sets"
        )
    return group_ids, order


def _batches(bound):
    """Group the requested metrics that differ only in their cutoff.

    Yields ``(labels, metrics)``; a metric without a cutoff, or alone with
    its options, forms a batch of one.
    """
    groups = {}
    for label, metric in bound.items():
        key = (label,)
        if metric.k is not None:
            key = (id(metric.spec), tuple(sorted(metric.params.items(), key=str)))
        groups.setdefault(key, ([], []))
        groups[key][0].append(label)
        groups[key][1].append(metric)
    return list(groups.values())


def evaluate(
    y_true,
    y_score,
    *,
    groups=None,
    metrics=("ndcg@10", "map", "mrr"),
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    n_jobs=None,
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
    n_jobs : int, default=None
        Threads ranking blocks of whole queries at once (``None`` is one,
        ``-1`` all CPUs). The queries are cut into blocks of a fixed size,
        whatever ``n_jobs``: the results are identical for any value.
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
    bound = bind_metrics(metrics, params)
    no_relevant = check_no_relevant(no_relevant)
    if conventions is not None:
        bound, ties, no_relevant = apply_conventions(
            conventions, bound, ties, no_relevant
        )
    ranking = enter(
        y_true,
        y_score,
        groups=groups,
        sample_weight=sample_weight,
        ties=ties,
        unjudged=unjudged,
        n_jobs=n_jobs,
    )
    if isinstance(ranking, CheckedInput):
        checked = ranking
        if conventions is not None:
            check_scores(conventions, bound, checked.y_score)
        if checked.missing is None and label_samples is None:
            # Plain rows: blocks of whole queries, in threads if asked.
            result = assemble(*per_query_values(bound, checked, no_relevant, n_jobs))
            result.n_unjudged = None
            return result
        ranking = rank_checked(checked)
    # Ranked lists, unjudged rows and judge samples: one ranking of all rows.
    means, per_query = compute_metrics(bound, ranking, no_relevant)
    result = EvaluationResult(
        np.asarray(ranking.group_ids), per_query, means, ranking.group_weights
    )
    result.n_unjudged = ranking.n_unjudged
    if label_samples is not None:
        _judge_spread(result, ranking, bound, no_relevant, label_samples, unjudged)
    return result


def bind_metrics(metrics, params) -> dict:
    """``{label: Metric}`` with the options routed to the metrics that take them."""
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise ValueError("`metrics` must name at least one metric, got none")
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
    return bound


def per_query_values(bound, checked, no_relevant, n_jobs=None):
    """``(group_ids, per_query, weights)`` of checked rows, before any mean.

    Queries left out by ``no_relevant="skip"`` hold NaN.
    """
    bound = bind_input_wide(bound, lambda: checked.y_true.max())
    batches = _batches(bound)
    blocks = map_query_blocks(partial(_block_values, batches), checked, n_jobs)
    weights = None
    if checked.sample_weight is not None:
        weights = np.concatenate([w for w, _ in blocks])
    group_ids = np.asarray(checked.group_ids)
    found = {}
    for b, (labels, batch) in enumerate(batches):
        # One line per metric: a batch's columns (one per cutoff) become
        # contiguous lines, so that a weighted mean (a dot product) adds as
        # it does for one cutoff; each block is turned while in cache.
        parts = [block[b][0].T for _, block in blocks]
        values = np.empty((*parts[0].shape[:-1], group_ids.shape[0]))
        np.concatenate(parts, axis=-1, out=values)
        empty = np.concatenate([block[b][1] for _, block in blocks])
        values = apply_no_relevant(
            values, empty, group_ids, no_relevant, batch[0].name, copy=False
        )
        if values.ndim == 1:
            found[labels[0]] = values
        else:
            found.update(zip(labels, values, strict=True))
    return group_ids, {label: found[label] for label in bound}, weights


def assemble(group_ids, per_query, weights) -> EvaluationResult:
    """The result of sorted, distinct queries: the means from the values."""
    means = {}
    for name, values in per_query.items():
        skipped = np.isnan(values)
        means[name] = average(
            values, weights, name, ~skipped if skipped.any() else None
        )
    return EvaluationResult(group_ids, per_query, means, weights)


def takes_input_wide(metric):
    """Whether a metric has an option left to a default taken over all the
    rows (bound by :func:`bind_input_wide`)."""
    return "max_grade" in metric.params and metric.params["max_grade"] is None


def bind_input_wide(bound, max_label):
    """Bind the options whose default is taken over all the rows.

    ERR's ``max_grade`` defaults to the largest label of the whole input, not
    of one block of queries: it is fixed, from ``max_label()``, before the
    rows are split.
    """
    out, top = {}, None
    for label, metric in bound.items():
        if takes_input_wide(metric):
            top = float(max_label()) if top is None else top
            metric = get_metric(metric, max_grade=top)
        out[label] = metric
    return out


def _block_values(batches, ranking):
    """Query weights and ``(values, empty)`` of each batch on one block."""
    return ranking.group_weights, batch_values(batches, ranking)


def batch_values(batches, ranking):
    """``(values, empty)`` of each batch of :func:`_batches` on one ranking.

    Metrics that differ only in their cutoff are computed together, in one
    pass over the ranking: one kernel call, ``values`` with one column per
    cutoff.
    """
    out = []
    for _, batch in batches:
        if len(batch) == 1:
            out.append(batch[0].values(ranking))
            continue
        first = batch[0]
        cutoffs = np.array([metric.k for metric in batch])
        out.append(first.spec.values(ranking, cutoffs, first.params))
    return out


def metric_values(bound, ranking):
    """``(values, empty)`` of each bound metric (label -> Metric) on one
    ranking, the cutoffs of a metric computed together."""
    out = {}
    batches = _batches(bound)
    for (labels, _), (values, empty) in zip(
        batches, batch_values(batches, ranking), strict=True
    ):
        if values.ndim == 1:
            out[labels[0]] = (values, empty)
            continue
        for j, label in enumerate(labels):
            out[label] = (values[:, j], empty)
    return [out[label] for label in bound]


def compute_metrics(bound, ranking, no_relevant):
    """``(means, per_query)`` of bound metrics on one ranking (the scorers')."""
    means, per_query = {}, {}
    pairs = zip(bound.items(), metric_values(bound, ranking), strict=True)
    for (label, metric), (values, empty) in pairs:
        means[label], per_query[label] = mean_over_queries(
            values, empty, ranking, no_relevant, metric.name
        )
    return means, per_query


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
