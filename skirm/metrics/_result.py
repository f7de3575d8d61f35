"""The result of an evaluation: per-query values and means of several metrics.

:class:`EvaluationResult` holds what :func:`skirm.metrics.evaluate` and
:func:`skirm.trec.evaluate_run` return; :meth:`EvaluationResult.concat`
merges results of disjoint query sets exactly. Statistics on a result
(intervals, comparisons) are functions of :mod:`skirm.stats`, a layer above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import (
    InvalidInputError,
    InvalidParameterError,
    MissingDependencyError,
)
from skirm._params import describe
from skirm._validation import first_repeat
from skirm.metrics._spec import average, query_weights

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, Literal

    from numpy.typing import NDArray


def _pandas(method):
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
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
    metric_weights : dict of str to ndarray of shape (n_groups,)
        The query weights of the metrics whose mean weights the queries by
        the data (``gauc`` by impressions, ``pcoc`` by clicks, ...: their
        ``weights`` option), by metric; each mean is taken with these times
        ``weights``. :meth:`weights_of` gives a metric's.
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
    run_id : str
        Results of :func:`skirm.trec.evaluate_run` and
        :func:`skirm.dask.evaluate_run` only: the run id.
    zscored : bool
        Results of :func:`skirm.trec.evaluate_run` only: whether its
        ``zscores`` converted the values.

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

    n_unjudged: NDArray[np.intp] | None = None
    judge_per_query: dict[str, NDArray[np.float64]] | None = None
    judge_means: dict[str, NDArray[np.float64]] | None = None
    judge_spread: dict[str, float] | None = None
    # Declared, not set: only the results of a TREC evaluation have them.
    run_id: str
    zscored: bool

    def __init__(
        self,
        group_ids: NDArray[Any],
        per_query: dict[str, NDArray[Any]],
        means: dict[str, float],
        weights: NDArray[np.float64] | None = None,
        *,
        metric_weights: dict[str, NDArray[np.float64]] | None = None,
    ) -> None:
        self.group_ids = group_ids
        self.per_query = per_query
        self.means = means
        self.weights = weights
        self.metric_weights = dict(metric_weights or {})

    def weights_of(self, name: str) -> NDArray[np.float64] | None:
        """The query weights of metric ``name``'s mean: ``weights`` times the
        metric's own (``metric_weights``); None for a plain mean.

        Parameters
        ----------
        name : str
            A metric's name, a key of ``means``.

        Returns
        -------
        ndarray of shape (n_queries,) or None
            One weight per query of ``group_ids``.

        Examples
        --------
        >>> from skirm.metrics import evaluate
        >>> result = evaluate([1, 0, 0, 1, 0, 1, 0], [3, 2, 1, 2, 1, 2, 1],
        ...                   groups=[0, 0, 0, 1, 1, 2, 2], metrics=["gauc", "mrr"])
        >>> result.weights_of("gauc").tolist(), result.weights_of("mrr")
        ([3.0, 2.0, 2.0], None)
        """
        own = self.metric_weights.get(name)
        if own is None or self.weights is None:
            return self.weights if own is None else own
        return self.weights * own

    @property
    def metrics(self) -> list[str]:
        """The metric names, in the order requested (string-valued TREC
        measures such as ``relstring`` included: they have no mean)."""
        return list(self.per_query)

    def __getitem__(self, name: str) -> float:
        return self.means[name]

    def __repr__(self) -> str:
        body = ", ".join(f"{name!r}: {value:.4f}" for name, value in self.means.items())
        n_queries = len(self.group_ids)
        # Queries left out by no_relevant="skip" are in group_ids but not in
        # the means: say over how many queries each mean is.
        scored = {
            name: int(np.count_nonzero(~np.isnan(values)))
            for name, values in self.per_query.items()
            if values.dtype.kind == "f"  # a string measure has no NaN
        }
        counts = set(scored.values())
        if counts == {n_queries} or not counts:
            extra = ""
        elif len(counts) == 1:
            extra = f", n_scored={counts.pop()}"
        else:
            extra = f", n_scored={scored}"
        return f"EvaluationResult(n_queries={n_queries}{extra}, means={{{body}}})"

    def _repr_html_(self) -> str:
        """The notebook display: the counts, a row per metric (mean, queries
        scored and skipped, quartiles of the per-query values) and the first
        queries, of a size that does not grow with the number of queries."""
        from skirm.metrics._result_html import render

        return render(self)

    @classmethod
    def concat(cls, results: Iterable[EvaluationResult]) -> EvaluationResult:
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
        InvalidInputError
            If a query appears in two results, the metrics differ, or some
            results have query weights and others not (a ``ValueError``).

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
        skirm.InvalidInputError: query 'a' appears in more than one result...
        """
        results = _check_parts(results)
        return merge(
            [(r.group_ids, r.per_query, r.weights, r.metric_weights) for r in results]
        )

    def to_frame(
        self, tidy: bool = False, backend: Literal["pandas", "polars"] = "pandas"
    ) -> Any:
        """The per-query values as a pandas (or polars) DataFrame.

        Requires pandas (``pip install skirm[pandas]``), or polars for
        ``backend="polars"`` (``pip install skirm[polars]``).

        Parameters
        ----------
        tidy : bool, default=False
            False: one row per query (the index, named ``query``) and one
            column per metric. True: one row per (query, metric) pair, with
            columns ``query``, ``metric`` and ``value``, queries in
            ``group_ids`` order and metrics in request order within each.
        backend : {"pandas", "polars"}, default="pandas"
            The library of the frame. A polars frame has no index: the
            query ids are its first column, ``query``, and NaN (queries left
            out by ``no_relevant="skip"``) is null, as ``polars.from_pandas``
            converts the pandas frame (with its index reset).

        Returns
        -------
        frame : pandas.DataFrame or polars.DataFrame

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
        from skirm._frames import BACKEND, polars_frame

        library = BACKEND(backend)
        if not isinstance(tidy, (bool, np.bool_)):
            raise InvalidParameterError(f"`tidy` must be True or False, got {tidy!r}")
        if not tidy:
            if library == "polars":
                wide = {"query": self.group_ids, **self.per_query}
                return polars_frame(wide, "EvaluationResult.to_frame")
            pd = _pandas("to_frame")
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
        tidy_columns = {
            "query": np.repeat(np.asarray(self.group_ids), len(names)),
            "metric": np.tile(np.asarray(names, dtype=object), n),
            "value": values,
        }
        if library == "polars":
            return polars_frame(tidy_columns, "EvaluationResult.to_frame")
        return _pandas("to_frame").DataFrame(tidy_columns)

    def to_dict(self) -> dict[Any, dict[str, float]]:
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

    if not TYPE_CHECKING:
        # Hidden from type checkers, which then report a misspelt attribute
        # (and the moved methods) instead of typing it as this method's.

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
        raise InvalidParameterError(
            "`results` must be an iterable of EvaluationResult, got one "
            "EvaluationResult; pass a list"
        )
    results = list(results)
    if not results:
        raise InvalidParameterError(
            "`results` must hold at least one EvaluationResult, got none"
        )
    for result in results:
        if not isinstance(result, EvaluationResult):
            raise InvalidParameterError(
                f"`results` must hold EvaluationResult objects, got {describe(result)}"
            )
        if hasattr(result, "run_id"):
            raise InvalidParameterError(
                "`results` must not hold results of skirm.trec.evaluate_run: "
                "their summaries (sums, geometric means, -c) are not means of "
                "the per-query values; use skirm.dask.evaluate_run for runs "
                "split across partitions"
            )
    first = results[0]
    for result in results[1:]:
        if result.metrics != first.metrics:
            raise InvalidInputError(
                "`results` must hold the same metrics in the same order, got "
                f"{first.metrics} and {result.metrics}"
            )
        if set(result.metric_weights) != set(first.metric_weights):
            raise InvalidInputError(
                "`results` must weight the same metrics' queries by the data, "
                f"got {sorted(first.metric_weights)} and "
                f"{sorted(result.metric_weights)}"
            )
        if (result.weights is None) != (first.weights is None):
            raise InvalidInputError(
                "`results` must all have query weights (`sample_weight`) or all "
                "have none, got a mix"
            )
    return results


def merge(parts) -> EvaluationResult:
    """The result of ``(group_ids, per_query, weights[, metric_weights])``
    parts of disjoint query sets with the same metrics: values in query
    order, means anew."""
    group_ids, order = merged_ids([p[0] for p in parts])
    weights = None
    if parts[0][2] is not None:
        weights = np.concatenate([p[2] for p in parts])[order]
    per_query = {
        name: np.concatenate([p[1][name] for p in parts])[order] for name in parts[0][1]
    }
    own = parts[0][3] if len(parts[0]) > 3 else {}
    metric_weights = {
        name: np.concatenate([p[3][name] for p in parts])[order] for name in own
    }
    return assemble(group_ids, per_query, weights, metric_weights)


def merged_ids(parts):
    """The sorted query labels of disjoint parts and the order that sorts them."""
    kinds = {"b": "i", "i": "i", "u": "i"}
    found = {kinds.get(p.dtype.kind, p.dtype.kind) for p in parts}
    if len(found) > 1 or found <= {"f", "c"}:
        raise InvalidInputError(
            "`results` must have query labels of one kind (integers, strings or "
            f"objects), got dtypes {sorted({str(p.dtype) for p in parts})}"
        )
    group_ids = np.concatenate(parts)
    if group_ids.dtype.kind == "f":  # int64 and uint64 labels: no common type
        raise InvalidInputError(
            "`results` must have query labels of one integer type, got dtypes "
            f"{sorted({str(p.dtype) for p in parts})}"
        )
    try:
        order = np.argsort(group_ids, kind="stable")
    except TypeError as exc:
        raise InvalidInputError(
            f"`results` must have mutually comparable query labels: {exc}"
        ) from None
    group_ids = group_ids[order]
    query = first_repeated(group_ids)
    if query is not None:
        raise InvalidInputError(
            f"query {query!r} appears in more than one result; concat merges "
            "results of disjoint query sets"
        )
    return group_ids, order


def first_repeated(sorted_ids):
    """The first label that ``sorted_ids`` (sorted) holds twice, as a Python
    scalar, or None."""
    pair = first_repeat(sorted_ids)
    if pair is None:
        return None
    query = sorted_ids[pair[1]]
    return query.item() if isinstance(query, np.generic) else query


def assemble(group_ids, per_query, weights, metric_weights=None) -> EvaluationResult:
    """The result of sorted, distinct queries: the means from the values
    (each metric's own query weights, ``metric_weights``, times ``weights``)."""
    means = {}
    metric_weights = metric_weights or {}
    for name, values in per_query.items():
        these = query_weights(weights, metric_weights.get(name))
        if these is None:
            # A NaN (a skipped query) makes the mean NaN: only then look for
            # them, one pass over the values instead of three without.
            mean = average(values, None, name)
            if mean == mean:
                means[name] = mean
                continue
        skipped = np.isnan(values)
        means[name] = average(
            values,
            these,
            name,
            ~skipped if skipped.any() else None,
            own=name in metric_weights,
            plain=weights,
        )
    return EvaluationResult(
        group_ids, per_query, means, weights, metric_weights=metric_weights
    )
