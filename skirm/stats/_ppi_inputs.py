"""The inputs of the prediction-powered estimates: a judge's and the gold
per-query values of one or several systems, aligned by query id, and the
strata of the queries.

A query is gold for a metric where the gold side has a finite value for it;
the judge side must have a value for every query. Either side is an
:class:`~skirm.metrics.EvaluationResult` (the judge's: every query under the
judge's labels; the gold's: the queries humans judged, under their labels,
as :func:`~skirm.trec.evaluate_run` gives against a gold qrels) or an array
of per-query values (the gold's with NaN where no human judged). A judge
result evaluated with ``label_samples`` (several draws of the judge's labels)
gives, per query, the mean over its draws: the expected metric under the
judge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skirm._errors import (
    InvalidInputError,
    InvalidParameterError,
    MissingDependencyError,
)
from skirm._frames import polars_records
from skirm._params import describe
from skirm._validation import as_numeric_array
from skirm.metrics import EvaluationResult

#: The metric's name when the values are given as arrays.
ARRAY_METRIC = "metric"
#: Labels on one scale: neither label set's largest label more than this
#: many times the other's.
SCALE_RATIO = 1.5


def check_scales(judge_top, gold_top, judge_name, gold_name):
    """The judge's and the humans' labels on one scale: their largest labels
    within a factor of :data:`SCALE_RATIO` (0 to 1 against 0 to 4, or
    probabilities against grades, are not)."""
    high, low = max(judge_top, gold_top), min(judge_top, gold_top)
    if high > SCALE_RATIO * low:
        raise InvalidInputError(
            f"the labels are on different scales: {gold_name} goes up to "
            f"{gold_top:g} and {judge_name} (the judge's) up to {judge_top:g}; "
            "map them to one scale (the same grades) first"
        )


@dataclass
class Aligned:
    """Per-query values of ``systems`` x ``metrics`` on the judge's queries.

    ``judge`` and ``gold`` have shape (systems, metrics, queries); ``gold``
    holds NaN where a query has no gold value. ``n_draws`` is the number of
    the judge's label draws averaged (None for one set of labels).
    """

    systems: list
    metrics: list
    group_ids: np.ndarray
    judge: np.ndarray
    gold: np.ndarray
    n_draws: int | None
    judge_results: dict
    gold_results: dict


def _array_result(values, name, *, judge):
    """An array of per-query values as an EvaluationResult (ids 0..n-1);
    the judge's may have a column per draw of its labels."""
    arr = as_numeric_array(values, name)
    shape = "(n_queries,) or (n_queries, n_draws)" if judge else "(n_queries,)"
    if arr.ndim not in ((1, 2) if judge else (1,)) or arr.shape[0] == 0:
        raise InvalidInputError(
            f"`{name}` must hold per-query values of shape {shape}, got shape "
            f"{arr.shape}"
        )
    if np.isinf(arr).any():
        raise InvalidInputError(f"`{name}` must hold finite values or NaN, got inf")
    ids = np.arange(arr.shape[0])
    per_query = arr.mean(axis=1) if arr.ndim == 2 else arr
    known = per_query[np.isfinite(per_query)]
    mean = float(known.mean()) if known.size else float("nan")
    result = EvaluationResult(ids, {ARRAY_METRIC: per_query}, {ARRAY_METRIC: mean})
    if arr.ndim == 2:
        result.judge_per_query = {ARRAY_METRIC: arr}
    return result


def _as_result(value, name, *, judge):
    if isinstance(value, EvaluationResult):
        if value.weights is not None:
            raise InvalidInputError(
                f"`{name}` carries query weights (sample_weight); the "
                "prediction-powered estimates weight every query alike: evaluate "
                "without weights"
            )
        return value
    if hasattr(value, "items") or isinstance(value, (str, bytes)):
        raise InvalidParameterError(
            f"`{name}` must be an EvaluationResult or an array of per-query "
            f"values, got {describe(value)}"
        )
    return _array_result(value, name, judge=judge)


def _check_metrics(judge_results, gold_results, metrics):
    results = [*judge_results.values(), *gold_results.values()]
    if metrics is None:
        first = next(iter(judge_results.values()))
        metrics = [m for m in first.per_query if all(m in r.per_query for r in results)]
        if not metrics:
            raise InvalidInputError(
                "`judge` and `gold` share no metric; evaluate the same metrics "
                "under both label sets"
            )
        return metrics
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise InvalidParameterError("`metrics` must name at least one metric, got none")
    for metric in metrics:
        for side, group in (("judge", judge_results), ("gold", gold_results)):
            for system, result in group.items():
                if metric not in result.per_query:
                    where = f"`{_name(side, system)}`"
                    raise InvalidParameterError(
                        f"`metrics` names {metric!r}, which {where} does not hold; "
                        f"it has {', '.join(result.per_query)}"
                    )
    return metrics


def _judge_values(result, metric):
    draws = result.judge_per_query
    if draws is not None and metric in draws:
        return draws[metric].mean(axis=1), draws[metric].shape[1]
    return np.asarray(result.per_query[metric], dtype=np.float64), None


def _name(side, system):
    return side if system is None else f"{side}[{system!r}]"


def _kinds_match(a, b):
    number = "biuf"
    return (a.dtype.kind in number) == (b.dtype.kind in number)


def align(judge, gold, metrics, *, systems=None) -> Aligned:
    """``judge`` and ``gold`` (one system each, or mappings of ``systems``
    to them) aligned on the judge's queries."""
    if systems is None:
        raw_judge, raw_gold = {None: judge}, {None: gold}
    else:
        raw_judge = {s: judge[s] for s in systems}
        raw_gold = {s: gold[s] for s in systems}
    kinds = {
        isinstance(v, EvaluationResult)
        for v in (*raw_judge.values(), *raw_gold.values())
    }
    if len(kinds) > 1:
        raise InvalidParameterError(
            "`judge` and `gold` must both be EvaluationResults or both arrays "
            f"of per-query values, got {describe(judge)} and {describe(gold)}"
        )
    judge_results = {s: _as_result(v, _name("judge", s), judge=True)
                     for s, v in raw_judge.items()}  # fmt: skip
    gold_results = {s: _as_result(v, _name("gold", s), judge=False)
                    for s, v in raw_gold.items()}  # fmt: skip
    if kinds == {False}:  # arrays: one metric, named by `metrics` if given
        label = ARRAY_METRIC
        if metrics is not None:
            names = [metrics] if isinstance(metrics, str) else list(metrics)
            if len(names) != 1:
                raise InvalidParameterError(
                    "`metrics` names the one metric of per-query arrays, got "
                    f"{describe(metrics)}"
                )
            label = names[0]
        for result in (*judge_results.values(), *gold_results.values()):
            result.per_query = {label: result.per_query[ARRAY_METRIC]}
            if result.judge_per_query is not None:
                result.judge_per_query = {label: result.judge_per_query[ARRAY_METRIC]}
    metrics = _check_metrics(judge_results, gold_results, metrics)
    first = next(iter(judge_results.values()))
    ids = np.asarray(first.group_ids)
    for system, result in judge_results.items():
        other = np.asarray(result.group_ids)
        if (
            other.shape != ids.shape
            or not _kinds_match(ids, other)
            or (other != ids).any()
        ):
            raise InvalidInputError(
                f"`{_name('judge', system)}` covers other queries than "
                f"`{_name('judge', next(iter(judge_results)))}`: the systems must be "
                "judged on the same queries"
            )
    n_systems, n_metrics = len(judge_results), len(metrics)
    judge_values = np.empty((n_systems, n_metrics, ids.size))
    gold_values = np.full((n_systems, n_metrics, ids.size), np.nan)
    n_draws = None
    for s, system in enumerate(judge_results):
        jr, gr = judge_results[system], gold_results[system]
        gold_ids = np.asarray(gr.group_ids)
        where = f"`{_name('gold', system)}`"
        if gold_ids.size and not _kinds_match(ids, gold_ids):
            raise InvalidInputError(
                f"the query ids of {where} are numbers and those of `judge` "
                "strings, or the other way round; give both the same kind of ids"
            )
        # the judge's ids in any order: looked up through their sorted order
        order = np.argsort(ids, kind="stable")
        pos = np.minimum(np.searchsorted(ids[order], gold_ids), ids.size - 1)
        found = ids[order][pos] == gold_ids
        pos = order[pos]
        if gold_ids.size and not found.any():
            raise InvalidInputError(
                f"{where} shares no query with `judge` (no overlap): its queries "
                f"start {gold_ids[:3].tolist()}, the judge's {ids[:3].tolist()}"
            )
        if not found.all():
            lost = gold_ids[~found]
            raise InvalidInputError(
                f"{where} has {lost.size} queries that `judge` lacks (first: "
                f"{lost[0].item()!r}); the judge must give a value for every query"
            )
        for j, metric in enumerate(metrics):
            values, draws = _judge_values(jr, metric)
            n_draws = draws if draws is not None else n_draws
            bad = ~np.isfinite(values)
            if bad.any():
                raise InvalidInputError(
                    f"`judge` must hold a finite value of {metric!r} for every "
                    f"query, got NaN in {np.count_nonzero(bad)} of {bad.size} "
                    "(evaluate with a number for no_relevant, not 'skip')"
                )
            judge_values[s, j] = values
            gold_values[s, j, pos] = np.asarray(gr.per_query[metric], dtype=np.float64)
    return Aligned(
        systems=list(judge_results),
        metrics=metrics,
        group_ids=ids,
        judge=judge_values,
        gold=gold_values,
        n_draws=n_draws,
        judge_results=judge_results,
        gold_results=gold_results,
    )


def gold_split(gold_rows, metric, what="`gold`"):
    """The gold queries of one metric (finite in every row), checked: at
    least 2 of them, and at least one other query."""
    mask = np.isfinite(gold_rows).all(axis=0)
    partial = np.isfinite(gold_rows).any(axis=0) & ~mask
    if partial.any():
        raise InvalidInputError(
            f"{what} has gold values of {metric!r} for {np.count_nonzero(partial)} "
            "queries in some systems and not in others; the systems compared need "
            "the same gold queries"
        )
    n = int(np.count_nonzero(mask))
    if n == 0:
        raise InvalidInputError(
            f"{what} holds no gold value of {metric!r} on the judge's queries (no "
            "overlap): a query is gold where it has a value"
        )
    if n < 2:
        raise InvalidInputError(
            f"{what} must hold gold values of {metric!r} for at least 2 queries "
            f"(an interval needs two), got {n}"
        )
    if n == mask.size:
        raise InvalidInputError(
            f"every query has a gold value of {metric!r} in {what}: the judge has "
            "no other query to add, and the gold mean is the estimate"
        )
    return mask


def check_strata(strata, group_ids, arrays):
    """Stratum codes per query (aligned to ``group_ids``), or None."""
    if strata is None:
        return None
    if hasattr(strata, "items"):
        keys = {
            k.item() if isinstance(k, np.generic) else k: v for k, v in strata.items()
        }
        missing = [q for q in group_ids.tolist() if q not in keys]
        if missing:
            raise InvalidInputError(
                f"`strata` must give a stratum for every query, got none for "
                f"{len(missing)} (first: {missing[0]!r})"
            )
        labels = np.asarray([keys[q] for q in group_ids.tolist()])
    else:
        labels = np.asarray(strata)
        if labels.shape != group_ids.shape:
            order = "the arrays" if arrays else "the judge's sorted query ids"
            raise InvalidInputError(
                f"`strata` must hold one stratum per query ({group_ids.size}, in "
                f"the order of {order}) or map query ids to strata, got shape "
                f"{labels.shape}"
            )
    _, codes = np.unique(labels, return_inverse=True)
    return labels, codes.ravel()


def check_strata_gold(codes, labels, mask, metric):
    """Each stratum has at least 2 gold queries of ``metric``."""
    counts = np.bincount(codes[mask], minlength=codes.max() + 1)
    short = np.flatnonzero(counts < 2)
    if short.size:
        name = labels[np.flatnonzero(codes == short[0])[0]]
        raise InvalidInputError(
            f"`strata`: stratum {name.item()!r} has {counts[short[0]]} gold "
            f"queries of {metric!r}; each stratum needs at least 2"
        )


def records_frame(rows, owner, backend):
    """A result's records as a pandas (or polars) DataFrame, the counts
    ``n_gold`` and ``n_queries`` as integers."""
    if backend == "polars":
        return polars_records(rows, owner, integers=("n_gold", "n_queries"))
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            f"{owner} requires pandas; install it with `pip install skirm[pandas]`"
        ) from exc
    return pd.DataFrame(rows)
