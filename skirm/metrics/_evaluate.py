"""Many metrics on one ranking: :func:`evaluate`.

The rows are checked once and ranked once (block by block, in threads, for
large inputs); every requested metric is then a reduction of that ranking,
the cutoffs of one metric computed together in one pass.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import (
    CheckedInput,
    check_input,
    in_appearance_order,
    map_query_blocks,
    rank,
    relabel,
    safe_divide,
)
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures._options import OPTIONS
from skirm._measures._table import DEFAULT_METRICS, RECALL
from skirm._params import NO_RELEVANT
from skirm._validation import check_y_true
from skirm.metrics._conventions import apply_conventions, not_retrieved
from skirm.metrics._registry import Metric, get_metric
from skirm.metrics._result import EvaluationResult, assemble
from skirm.metrics._spec import (
    apply_no_relevant,
    frame_arguments,
    mean_over_queries,
    nothing_defined,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

    from skirm._typing import Conventions, NoRelevant, Ties, Unjudged
    from skirm.metrics._label_types import Labels


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
    y_true: Labels | None = None,
    y_score: ArrayLike | str | Sequence[str | Metric] | None = None,
    /,
    *,
    groups: ArrayLike | str | None = None,
    metrics: str | Metric | Sequence[str | Metric] = DEFAULT_METRICS,
    sample_weight: ArrayLike | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    n_jobs: int | None = None,
    conventions: Conventions | None = None,
    unjudged: Unjudged = "raise",
    label_samples: ArrayLike | None = None,
    propensity: ArrayLike | str | None = None,
    **params: Any,
) -> EvaluationResult:
    """Compute several metrics from one ranking of the rows.

    The rows are validated and sorted once; each metric is then a reduction
    over that ranking, so ten metrics cost little more than one.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_queries, n_docs), or DataFrame
        Relevance labels; or a frame (pandas, polars, pyarrow ``Table``)
        whose columns ``y_true``, ``y_score``, ``groups`` and
        ``sample_weight`` are named by keyword:
        ``evaluate(frame, ["ndcg@10"], y_true="rel", y_score="score",
        groups="qid")``. ``y_true`` and ``y_score`` may also be given by
        keyword as arrays.
    y_score : array-like of the same shape as ``y_true``
        Scores; higher ranks first. After a frame: the metrics (or give
        them as ``metrics=``).
    groups : array-like of shape (n_samples,), or str, default=None
        The query of each row; required for 1-D input. With a frame: the
        name of its query column.
    metrics : sequence of str or Metric, default=("ndcg@10", "map", "mrr")
        Names understood by :func:`get_metric`, or metrics it returned.
    sample_weight : array-like of shape (n_samples,), or str, default=None
        Query weights given per row, constant within each query. With a
        frame: the name of its column.
    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        The tie policy, shared by all metrics.
    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        The value of a query without relevant rows, for every metric.
    n_jobs : int, default=None
        Threads ranking blocks of whole queries at once (``-1`` all CPUs;
        ``None`` is one, or the ``n_jobs`` of an active
        ``joblib.parallel_config`` with a local backend, as in
        scikit-learn). The queries are cut into blocks of a fixed size,
        whatever ``n_jobs``: the results are identical for any value.
    conventions : {"sklearn", "lightgbm", "xgboost", "torchmetrics", "beir", \
"spark", "torchrec", "tf_ranking", "lenskit"}, default=None
        Reproduce another library's numbers: the preset sets ``ties``,
        ``no_relevant`` and metric options (``gain``, ``denominator``,
        ``weights``, ...) that are left at their defaults; arguments given
        other values win. A metric the library has no counterpart for raises
        ValueError. See
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
    propensity : array-like of shape (n_samples,), or str, default=None
        Each row's probability of being observed, in (0, 1], for the
        propensity-scored metrics (``psp@k``, ``psndcg@k``, ``ips_dcg@k``,
        ...); the other metrics do not read it. ``None`` means every row
        was observed. With a frame: the name of its column. See
        :ref:`impressions`.
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

    A frame, its columns named (pandas here; polars and pyarrow alike):

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"qid": groups, "rel": y_true, "score": y_score})
    >>> evaluate(frame, ["ndcg@2", "mrr"], y_true="rel", y_score="score",
    ...          groups="qid")
    EvaluationResult(n_queries=2, means={'ndcg@2': 0.3801, 'mrr': 0.6667})
    """
    given = {name: params.pop(name) for name in ("y_true", "y_score") if name in params}
    y_true, y_score, groups, sample_weight, metrics, propensity = frame_arguments(
        y_true,
        y_score,
        groups,
        sample_weight,
        metrics,
        given,
        "evaluate",
        propensity=propensity,
    )
    bound = bind_metrics(metrics, params)
    no_relevant = NO_RELEVANT(no_relevant)
    if conventions is not None:
        bound, ties, no_relevant = apply_conventions(
            conventions, bound, ties, no_relevant
        )
    ranking = check_input(
        y_true,
        y_score,
        groups=groups,
        sample_weight=sample_weight,
        ties=ties,
        unjudged=unjudged,
        n_jobs=n_jobs,
        propensity=propensity,
    )
    if isinstance(ranking, CheckedInput):
        checked = ranking
        plain = conventions is None or not not_retrieved(
            conventions, bound, checked.y_score
        )
        if plain and checked.missing is None and label_samples is None:
            # Plain rows: blocks of whole queries, in threads if asked.
            result = assemble(*per_query_values(bound, checked, no_relevant, n_jobs))
            result.n_unjudged = None
            return result
        ranking = rank(checked)
    # Ranked lists, unjudged rows, judge samples and a preset's rows not
    # retrieved: one ranking of all rows.
    means, per_query, metric_weights = preset_metrics(
        conventions, bound, ranking, no_relevant
    )
    result = EvaluationResult(
        np.asarray(ranking.group_ids),
        per_query,
        means,
        ranking.group_weights,
        metric_weights=metric_weights,
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
        raise InvalidParameterError("`metrics` must name at least one metric, got none")
    for key, value in params.items():
        if key not in OPTIONS or key == "ignore_ties":
            raise InvalidParameterError(
                f"evaluate() got an unexpected keyword argument {key!r}"
            )
        OPTIONS[key](value)
    bound = {}
    for metric in metrics:
        parsed = get_metric(metric)
        label = metric if isinstance(metric, str) else parsed.name
        if label in bound:
            raise InvalidParameterError(f"`metrics` names {label!r} twice")
        options = {p: v for p, v in params.items() if p in parsed.spec.params}
        bound[label] = get_metric(parsed, **options) if options else parsed
    for key in params:
        if not any(key in m.spec.params for m in bound.values()):
            raise InvalidParameterError(
                f"option {key!r} is taken by none of the requested metrics "
                f"({', '.join(bound)})"
            )
    return bound


def per_query_values(bound, checked, no_relevant, n_jobs=None):
    """``(group_ids, per_query, weights, metric_weights)`` of checked rows,
    before any mean: ``metric_weights`` holds the query weights of the
    metrics whose mean weights them (impressions, clicks, ...).

    Queries left out (``no_relevant="skip"``, ``one_class="skip"``) hold NaN.
    """
    bound = bind_input_wide(
        bound,
        lambda: checked.y_true.max(),
        lambda threshold: click_rate(checked.y_true, threshold, checked.sample_weight),
    )
    batches = _batches(bound)
    group_ids = np.asarray(checked.group_ids)
    # Queries together but out of code order are measured as they lie, and
    # their values put in code order afterwards (``order``).
    regrouped, order = in_appearance_order(checked) or (checked, None)
    blocks = map_query_blocks(partial(_block_values, batches), regrouped, n_jobs)
    weights = None
    if checked.sample_weight is not None:
        weights = np.concatenate([w for w, _ in blocks])
        weights = weights if order is None else weights[order]
    found, found_weights = {}, {}
    for b, (labels, batch) in enumerate(batches):
        # One line per metric: a batch's columns (one per cutoff) become
        # contiguous lines, so that a weighted mean (a dot product) adds as
        # it does for one cutoff; each block is turned while in cache.
        values = _lines([block[b][0] for _, block in blocks], group_ids.shape[0])
        empty = np.concatenate([block[b][1] for _, block in blocks])
        own = None
        if blocks[0][1][b][2] is not None:
            own = _lines([block[b][2] for _, block in blocks], group_ids.shape[0])
        if order is not None:
            values, empty = values[..., order], empty[order]
            own = None if own is None else own[..., order]
        values = apply_no_relevant(
            values, empty, group_ids, no_relevant, batch[0].name, copy=False
        )
        undefined_everywhere(values, batch, labels)
        if values.ndim == 1:
            found[labels[0]] = values
            if own is not None:
                found_weights[labels[0]] = own
        else:
            found.update(zip(labels, values, strict=True))
            if own is not None:
                found_weights.update(zip(labels, own, strict=True))
    return (
        group_ids,
        {label: found[label] for label in bound},
        weights,
        {label: found_weights[label] for label in bound if label in found_weights},
    )


def _lines(parts, n_groups):
    """Per-block values (a column per cutoff) as one line per cutoff, the
    queries along it."""
    parts = [part.T for part in parts]
    values = np.empty((*parts[0].shape[:-1], n_groups))
    np.concatenate(parts, axis=-1, out=values)
    return values


def undefined_everywhere(values, batch, labels):
    """Raise :func:`~skirm.metrics._spec.nothing_defined` for a metric of a
    batch that leaves every query out with ``one_class="skip"``."""
    if batch[0].params.get("one_class") != "skip" or values.shape[-1] == 0:
        return
    for line, label in zip(np.atleast_2d(values), labels, strict=True):
        if np.isnan(line).all():
            raise nothing_defined(label)


def click_rate(y_true, threshold, sample_weight=None):
    """The share of relevant rows (``y_true > 0``, or ``>= threshold``),
    each row weighted by its query's ``sample_weight``."""
    relevant = y_true > 0 if threshold is None else y_true >= threshold
    if sample_weight is None:
        return float(np.count_nonzero(relevant)) / max(relevant.shape[0], 1)
    total = float(sample_weight.sum())
    return float(np.dot(relevant, sample_weight)) / total if total > 0 else 0.0


def weighs_queries(metric):
    """Whether a metric's mean weights its queries by the data: its kernel
    returns query weights (a ``weights`` option other than ``"uniform"``,
    or psP's and psnDCG's ``average="micro"``)."""
    params = metric.params
    return params.get("weights", "uniform") != "uniform" or (
        params.get("average") == "micro"
    )


def bind_input_wide(bound, max_label, rate=None):
    """Bind the options whose default is taken over all the rows.

    ERR's ``max_grade`` defaults to the largest label of the whole input, not
    of one block of queries: it is fixed, from ``max_label()``, before the
    rows are split. So is NE's ``base_rate="overall"``, from
    ``rate(relevance_threshold)``, the share of relevant rows of the whole
    input.
    """
    out, top = {}, None
    for label, metric in bound.items():
        if "max_grade" in metric.params and metric.params["max_grade"] is None:
            top = float(max_label()) if top is None else top
            metric = get_metric(metric, max_grade=top)
        elif rate is not None and metric.params.get("base_rate") == "overall":
            value = rate(metric.params["relevance_threshold"])
            if not 0.0 < value < 1.0:
                raise InvalidInputError(
                    f"{label}: every row is {'relevant' if value else 'not relevant'}"
                    ", so the base rate's entropy is 0 and the normalized "
                    "entropy is undefined"
                )
            metric = get_metric(metric, base_rate=value)
        out[label] = metric
    return out


def _block_values(batches, ranking):
    """Query weights and ``(values, empty, weights)`` of each batch on one
    block."""
    return ranking.group_weights, batch_values(batches, ranking)


def batch_values(batches, ranking):
    """``(values, empty, weights)`` of each batch of :func:`_batches` on one
    ranking (``weights`` None but for the metrics that weight their queries).

    Metrics that differ only in their cutoff are computed together, in one
    pass over the ranking: one kernel call, ``values`` with one column per
    cutoff.
    """
    out = []
    for _, batch in batches:
        if len(batch) == 1:
            out.append(batch[0].weighted_values(ranking))
            continue
        first = batch[0]
        cutoffs = np.array([metric.k for metric in batch])
        out.append(first.spec.weighted_values(ranking, cutoffs, first.params))
    return out


def metric_values(bound, ranking):
    """``(values, empty, weights)`` of each bound metric (label -> Metric) on
    one ranking, the cutoffs of a metric computed together."""
    out = {}
    batches = _batches(bound)
    for (labels, _), (values, empty, weights) in zip(
        batches, batch_values(batches, ranking), strict=True
    ):
        if values.ndim == 1:
            out[labels[0]] = (values, empty, weights)
            continue
        for j, label in enumerate(labels):
            if weights is None:
                out[label] = (values[:, j], empty, None)
                continue
            # Contiguous columns: a weighted mean (a dot product) then adds
            # as it does for one cutoff alone.
            out[label] = (
                np.ascontiguousarray(values[:, j]),
                empty,
                np.ascontiguousarray(weights[:, j]),
            )
    return [out[label] for label in bound]


def preset_metrics(conventions, bound, ranking, no_relevant):
    """:func:`compute_metrics` (with the metrics' own query weights) under a
    preset (None: none): ``(means, per_query, metric_weights)``.

    Where the preset's library counts a row scored <= 0 as not retrieved
    (:func:`~skirm.metrics._conventions.not_retrieved`), those metrics are
    computed with such rows' labels 0: relevant rows not retrieved. Recall
    keeps them in R, and a query whose every relevant row is left out so
    scores 0 (the library's value, whatever ``no_relevant`` says of queries
    without relevant rows).
    """
    means, per_query, weights_of = compute_metrics(
        bound, ranking, no_relevant, with_weights=True
    )
    hit = (
        [] if conventions is None else not_retrieved(conventions, bound, ranking.scores)
    )
    if not hit:
        return means, per_query, weights_of
    labels = np.where(ranking.scores > 0, ranking.labels, 0)
    retrieved = relabel(ranking, labels.astype(ranking.labels.dtype, copy=False))
    sub = {label: bound[label] for label in hit}
    for label, (values, left_out, _) in zip(
        hit, metric_values(sub, retrieved), strict=True
    ):
        metric = bound[label]
        threshold = metric.params.get("relevance_threshold")
        R, kept = ranking.n_relevant(threshold), retrieved.n_relevant(threshold)
        values = np.where(left_out, 0.0, values)
        if metric.spec.measure is RECALL:  # hits / R: R of every relevant row
            values = safe_divide(values * kept, R)
        means[label], per_query[label] = mean_over_queries(
            values, R == 0, ranking, no_relevant, metric.name
        )
    return means, per_query, weights_of


def compute_metrics(bound, ranking, no_relevant, *, with_weights=False):
    """``(means, per_query)`` of bound metrics on one ranking (the scorers'),
    and with ``with_weights`` the query weights of the metrics that weight
    them (``{label: weights}``)."""
    means, per_query, weights_of = {}, {}, {}
    pairs = zip(bound.items(), metric_values(bound, ranking), strict=True)
    for (label, metric), (values, empty, weights) in pairs:
        means[label], per_query[label] = mean_over_queries(
            values, empty, ranking, no_relevant, metric.name, weights
        )
        if weights is not None:
            weights_of[label] = weights
    if with_weights:
        return means, per_query, weights_of
    return means, per_query


def _judge_spread(result, ranking, bound, no_relevant, label_samples, unjudged):
    """Every metric under every judge's labels, on the ranking already built."""
    if ranking.judgments is not None or unjudged == "condensed":
        raise InvalidParameterError(
            "`label_samples` needs flat rows ranked as given: it does not combine "
            "with ranked lists or unjudged='condensed'"
        )
    samples = check_y_true(label_samples, "label_samples")
    if samples.ndim != 2 or samples.shape[0] != ranking.n_rows:
        raise InvalidInputError(
            "`label_samples` must have shape (n_samples, n_judges) with one row "
            f"per row of `y_true` ({ranking.n_rows}), got shape {samples.shape}"
        )
    ranked = samples[ranking.order]
    result.judge_per_query, result.judge_means, result.judge_spread = {}, {}, {}
    for label, metric in bound.items():
        per_judge, means = [], []
        for j in range(ranked.shape[1]):
            judged = relabel(ranking, ranked[:, j])
            judged.propensity = ranking.propensity
            mean, values = metric.per_query(judged, no_relevant)
            per_judge.append(values)
            means.append(mean)
        result.judge_per_query[label] = np.column_stack(per_judge)
        result.judge_means[label] = np.asarray(means)
        spread = np.std(means, ddof=1) if len(means) > 1 else 0.0
        result.judge_spread[label] = float(spread)
