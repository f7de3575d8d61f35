"""Evaluate rows held in Dask collections with skirm's numpy engine.

Nothing here computes a metric: the rows of each query are brought into one
partition (by Dask's shuffle on the query id, unless the partitions already
hold whole queries), each partition goes through the
same functions as :func:`skirm.metrics.evaluate` (or
:func:`skirm.trec.evaluate_run`, in :mod:`._run_partitions`), and the per-query values
of the partitions are merged as :meth:`~skirm.metrics.EvaluationResult.concat`
merges results.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import check_input
from skirm._errors import (
    InvalidInputError,
    InvalidParameterError,
    MissingDependencyError,
)
from skirm._measures._table import DEFAULT_METRICS
from skirm._params import (
    BOOLEAN,
    NO_RELEVANT,
    TIES,
    OneOf,
    Param,
    checked,
    describe,
)
from skirm._progress import VERBOSE, reporting
from skirm.metrics._evaluate import (
    bind_input_wide,
    bind_metrics,
    per_query_values,
    weighs_queries,
)
from skirm.metrics._result import first_repeated, merge
from skirm.metrics._spec import frame_arguments

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Literal

    from dask.dataframe import DataFrame

    from skirm._typing import DaskColumn, NoRelevant, Ties
    from skirm.metrics import EvaluationResult, Metric

__all__ = ["evaluate", "per_query_frame"]


def _import_dask():
    """``(dask, dask.dataframe, pandas)``, or an ImportError naming the extra."""
    try:
        import dask
        import dask.dataframe as dd
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            "skirm.dask requires dask[dataframe] and pandas; install them with "
            "`pip install skirm[dask]`"
        ) from exc
    return dask, dd, pd


def _client():
    """The default ``distributed.Client``, or None (a local scheduler)."""
    try:
        from distributed import default_client
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    try:
        return default_client()
    except ValueError:
        return None


@contextlib.contextmanager
def _progress(verbose, title):
    """The reporter of a function called with ``verbose``; with ``verbose >
    0``, its stages as lines on standard error and, on a local scheduler,
    Dask's own ``dask.diagnostics.ProgressBar`` there around each
    computation (a ``distributed.Client`` has its dashboard: its address is
    named)."""
    verbose = int(VERBOSE(verbose))
    with reporting(verbose, title) as progress:
        if verbose == 0:
            yield progress
            return
        client = _client()
        if client is not None:
            progress.stage(
                "computing on the distributed scheduler; follow it on its "
                f"dashboard, {client.dashboard_link}"
            )
            yield progress
            return
        from dask.diagnostics import ProgressBar

        with ProgressBar(out=sys.stderr):
            yield progress


# --------------------------------------------------------------------------
# Arrays
# --------------------------------------------------------------------------


def _rows_frame(columns):
    """One Dask DataFrame of the given Dask Series / 1-D Dask arrays."""
    _, dd, _ = _import_dask()
    import dask.array as da

    series = {}
    for name, column in columns.items():
        if column is None:
            continue
        if isinstance(column, da.Array):
            if column.ndim != 1:
                raise InvalidInputError(
                    f"`{name}` must be a 1-D Dask array, got shape {column.shape}"
                )
            column = dd.from_dask_array(column)
        elif not isinstance(column, dd.Series):
            raise InvalidInputError(
                f"`{name}` must be a Dask Series or a 1-D Dask array, got "
                f"{describe(column)}; for in-memory arrays use "
                "skirm.metrics.evaluate"
            )
        series[name] = column
    frame = series.pop("y_true").to_frame(name="y_true")
    return frame.assign(**series)


def _own_weights(bound):
    """The labels of the metrics whose mean weights the queries by the data,
    and the name of their weights' column in a per-query frame."""
    return {
        label: f"weight {label}"
        for label, metric in bound.items()
        if weighs_queries(metric)
    }


def _empty_frame(pd, bound, weighted, id_dtype):
    data = {label: np.zeros(0) for label in bound}
    data.update({column: np.zeros(0) for column in _own_weights(bound).values()})
    if weighted:
        data["weight"] = np.zeros(0)
    return pd.DataFrame(data, index=pd.Index([], dtype=id_dtype, name="query"))


#: Whether the rows are shuffled on the query id: ``"auto"`` only when a
#: query's rows are in two partitions.
SHUFFLE = Param("shuffle", BOOLEAN, OneOf("auto"), expected="True, False or 'auto'")


def _whole_by_metadata(groups):
    """Whether the metadata alone says each partition holds whole queries:
    one partition, or known divisions on the query index."""
    _, dd, _ = _import_dask()
    if not isinstance(groups, dd.Series):  # a Dask array: its chunks
        return groups.numblocks[0] == 1
    if groups.npartitions == 1:
        return True
    return isinstance(groups, dd.Index) and groups.known_divisions


def _repeated_query(id_sets):
    """A query found in more than one of ``id_sets`` (arrays of distinct
    ids), or None."""
    if len(id_sets) < 2:
        return None
    try:
        ids = np.sort(np.concatenate(id_sets))
    except TypeError:  # ids of mixed kinds: let the merge name them
        return None
    return first_repeated(ids)


def _partition_values(rows, bound, no_relevant, ties, weighted):
    """Per-query values of one partition's rows (whole queries)."""
    _, _, pd = _import_dask()
    if len(rows) == 0:
        return _empty_frame(pd, bound, weighted, rows["groups"].dtype)
    checked = check_input(
        rows["y_true"].to_numpy(),
        rows["y_score"].to_numpy(),
        groups=rows["groups"].to_numpy(),
        sample_weight=rows["sample_weight"].to_numpy() if weighted else None,
        ties=ties,
        propensity=(
            rows["propensity"].to_numpy() if "propensity" in rows.columns else None
        ),
    )
    group_ids, per_query, weights, own = per_query_values(bound, checked, no_relevant)
    frame = pd.DataFrame(per_query, index=pd.Index(group_ids, name="query"))
    for label, column in _own_weights(bound).items():
        frame[column] = own[label]
    if weighted:
        frame["weight"] = weights
    return frame


def _values_as_they_stand(rows, bound, no_relevant, ties, weighted):
    """``(distinct query ids, per-query frame or the error)`` of one
    partition evaluated as it stands; the error is raised by the caller only
    if no query spans two partitions (else the partition held part of a
    query and its error may not be one of the whole data)."""
    _, _, pd = _import_dask()
    ids = pd.unique(rows["groups"].to_numpy())
    try:
        values = _partition_values(rows, bound, no_relevant, ties, weighted)
    except (ValueError, TypeError) as exc:
        return ids, exc
    return ids, values


@checked(ties=TIES, no_relevant=NO_RELEVANT, shuffle=SHUFFLE)
def per_query_frame(
    y_true: DaskColumn,
    y_score: DaskColumn,
    *,
    groups: DaskColumn,
    metrics: str | Metric | Sequence[str | Metric] = DEFAULT_METRICS,
    sample_weight: DaskColumn | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    shuffle: bool | Literal["auto"] = "auto",
    propensity: DaskColumn | None = None,
    **params: Any,
) -> DataFrame:
    """Per-query metric values of rows in Dask collections, as a lazy frame.

    The arguments are those of :func:`evaluate`. Use this function when the
    queries themselves are too many to gather in one process; otherwise
    :func:`evaluate` gives the means too. The frame stays lazy, so
    ``shuffle="auto"`` reads only the metadata here: no shuffle with one
    partition or known divisions on the query index (``groups=rows.index``),
    a shuffle otherwise; pass ``shuffle=False`` for partitions known to hold
    whole queries.

    Returns
    -------
    frame : dask.dataframe.DataFrame
        One row per query, indexed by the query label (``"query"``), one
        float column per metric (NaN for queries left out by
        ``no_relevant="skip"`` or ``one_class="skip"``), a ``"weight <name>"``
        column for each metric whose mean weights the queries by the data
        (``gauc``'s impressions, ...), and a ``"weight"`` column when
        ``sample_weight`` is given. Partitions hold disjoint query sets; the
        index is not sorted across partitions.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from skirm.dask import per_query_frame
    >>> rows = dd.from_pandas(pd.DataFrame({
    ...     "qid": [1, 2, 1, 2], "label": [1, 0, 0, 1], "score": [0.2, 0.9, 0.8, 0.1]
    ... }), npartitions=2)
    >>> frame = per_query_frame(rows["label"], rows["score"], groups=rows["qid"],
    ...                         metrics=["mrr"])
    >>> frame.compute().sort_index()
           mrr
    query
    1      0.5
    2      0.5
    """
    frame, bound = _prepare(
        y_true,
        y_score,
        groups,
        metrics,
        sample_weight,
        ties,
        no_relevant,
        params,
        propensity,
    )
    if shuffle == "auto":
        shuffle = not _whole_by_metadata(groups)
    return _values_frame(frame, bound, no_relevant, ties, sample_weight, shuffle)


def _prepare(
    y_true, y_score, groups, metrics, sample_weight, ties, no_relevant, p, propensity
):
    """Client-side checks, the rows as one frame, and the bound metrics."""
    _import_dask()
    bound = bind_metrics(metrics, p)
    if groups is None:
        raise InvalidParameterError(
            "`groups` is required: pass the query id of each row (a Dask Series "
            "or a 1-D Dask array)"
        )
    frame = _rows_frame(
        {
            "y_true": y_true,
            "y_score": y_score,
            "groups": groups,
            "sample_weight": sample_weight,
            "propensity": propensity,
        }
    )
    # Defaults taken over all the rows (ERR's max_grade, NE's base rate)
    # cost one reduction each.
    bound = bind_input_wide(
        bound,
        lambda: frame["y_true"].max().compute(),
        lambda threshold: _click_rate(frame, threshold, sample_weight is not None),
    )
    return frame, bound


def _click_rate(frame, threshold, weighted):
    """The share of relevant rows of the whole frame (each weighted by its
    query's ``sample_weight``), as :func:`~skirm.metrics._evaluate.click_rate`."""
    labels = frame["y_true"]
    relevant = (labels > 0) if threshold is None else (labels >= threshold)
    if not weighted:
        hits, rows = relevant.sum().compute(), len(frame)
        return float(hits) / max(int(rows), 1)
    weights = frame["sample_weight"]
    hits, total = (relevant * weights).sum().compute(), weights.sum().compute()
    return float(hits) / float(total) if total > 0 else 0.0


def _shuffle_error(split=None):
    """``ties="first"`` with a shuffle: asked for (``shuffle=True``), an
    invalid parameter; found needed (a query in two partitions), invalid
    input."""
    if split is None:
        error, where = InvalidParameterError, ""
    else:
        error, where = InvalidInputError, f" (query {split!r} is in two partitions)"
    return error(
        "`ties='first'` keeps the input order of tied rows, which the "
        "shuffle on the query id does not preserve; give partitions that "
        f"hold whole queries{where}, or another tie policy"
    )


def _values_frame(frame, bound, no_relevant, ties, sample_weight, shuffle):
    _, _, pd = _import_dask()
    if shuffle:
        if ties == "first":
            raise _shuffle_error()
        frame = frame.shuffle(on="groups")
    weighted = sample_weight is not None
    meta = _empty_frame(pd, bound, weighted, frame["groups"].dtype)
    return frame.map_partitions(
        _partition_values,
        bound,
        no_relevant,
        ties,
        weighted,
        meta=meta,
        align_dataframes=False,
    )


def _as_they_stand(frame, bound, no_relevant, ties, weighted, progress):
    """The per-query frames of the partitions evaluated as they stand, or
    None when a query spans two partitions (the shuffle is then needed, and
    the work is done again)."""
    dask, _, _ = _import_dask()
    tasks = [
        dask.delayed(_values_as_they_stand)(part, bound, no_relevant, ties, weighted)
        for part in frame.to_delayed()
    ]
    outcomes = dask.compute(*tasks)
    split = _repeated_query([ids for ids, _ in outcomes])
    if split is not None:
        if ties == "first":
            raise _shuffle_error(split)
        progress.stage(f"query {split!r} spans partitions: shuffling on the query id")
        return None
    for _, outcome in outcomes:
        if isinstance(outcome, Exception):
            raise outcome
    return [values for _, values in outcomes]


@checked(ties=TIES, no_relevant=NO_RELEVANT, shuffle=SHUFFLE, verbose=VERBOSE)
def evaluate(
    y_true: DaskColumn | None = None,
    y_score: DaskColumn | Sequence[str | Metric] | None = None,
    /,
    *,
    groups: DaskColumn | str | None = None,
    metrics: str | Metric | Sequence[str | Metric] = DEFAULT_METRICS,
    sample_weight: DaskColumn | None = None,
    ties: Ties = "average",
    no_relevant: NoRelevant = 0.0,
    shuffle: bool | Literal["auto"] = "auto",
    verbose: int = 0,
    propensity: DaskColumn | str | None = None,
    **params: Any,
) -> EvaluationResult:
    """Compute several metrics on rows held in Dask collections.

    The rows are shuffled on the query id so that each query's rows sit in
    one partition (unless they already do: see ``shuffle``), each partition
    is ranked and measured by the numpy engine
    of :func:`skirm.metrics.evaluate`, and the per-query values are merged:
    the result equals that of :func:`skirm.metrics.evaluate` on all the rows
    in one process (to the last bits of the per-query sums).

    Requires dask (``pip install skirm[dask]``). Uses the current Dask
    scheduler (a ``distributed.Client`` if one is active).

    Parameters
    ----------
    y_true, y_score : dask.dataframe.Series or 1-D dask.array.Array
        Relevance labels and scores, one per row; columns of one Dask
        DataFrame, or Dask arrays with the same chunks. Or a Dask DataFrame
        passed first, its columns named by keyword (and the metrics, if
        given, second): ``evaluate(rows, ["ndcg@10"], y_true="label",
        y_score="score", groups="qid")``.
    groups : dask.dataframe.Series or 1-D dask.array.Array, or str
        The query of each row. Rows of a query may be in any partitions.
        With a frame: the name of its query column.
    metrics : sequence of str or Metric, default=("ndcg@10", "map", "mrr")
        As in :func:`skirm.metrics.evaluate`.
    sample_weight : dask.dataframe.Series or 1-D dask.array.Array, default=None
        Query weights given per row, constant within each query.
    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        The tie policy. ``"first"`` (input order among ties) needs
        partitions that hold whole queries: a shuffle does not keep the
        input order.
    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        The value of a query without relevant rows; ``"skip"`` leaves such
        queries out of the means across all partitions.
    shuffle : bool or "auto", default="auto"
        Whether to shuffle the rows on the query id. ``"auto"`` shuffles only
        when a query's rows sit in more than one partition: one partition or
        known divisions on the query index (``groups=rows.index``) say so
        without any work; otherwise each partition is evaluated as it
        stands, with its distinct query ids, and if a query is found in two
        partitions those values are dropped and the rows shuffled (the
        evaluation is then done twice: pass True for data known to split
        queries). False never shuffles: a query found in two partitions
        raises ValueError. True always shuffles.
    verbose : int, default=0
        Progress on standard error: 0 prints none; above 0, the stages as
        lines and, on a local scheduler, Dask's
        ``dask.diagnostics.ProgressBar`` during each computation (with
        a ``distributed.Client``, the address of its dashboard).
    propensity : dask.dataframe.Series or 1-D dask.array.Array, or str, \
default=None
        Each row's probability of being observed, for the propensity-scored
        metrics, as in :func:`skirm.metrics.evaluate`. With a frame: the
        name of its column.
    **params
        Metric options, as in :func:`skirm.metrics.evaluate`.

    Returns
    -------
    result : EvaluationResult
        Per-query values of every query (sorted by query label) and the
        (weighted) means, as :func:`skirm.metrics.evaluate` returns them.

    See Also
    --------
    per_query_frame : the per-query values as a lazy Dask DataFrame.
    skirm.metrics.EvaluationResult.concat : the merge of disjoint query sets.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from skirm.dask import evaluate
    >>> rows = dd.from_pandas(pd.DataFrame({
    ...     "qid": ["a", "b", "a", "b"],
    ...     "label": [1, 0, 0, 0],
    ...     "score": [0.2, 0.9, 0.8, 0.1],
    ... }), npartitions=2)
    >>> result = evaluate(rows["label"], rows["score"], groups=rows["qid"],
    ...                   metrics=["mrr", "ndcg@2"], no_relevant="skip")
    >>> result
    EvaluationResult(n_queries=2, n_scored=1, means={'mrr': 0.5000, 'ndcg@2': 0.6309})
    >>> result.per_query["mrr"]
    array([0.5, nan])

    The frame, its columns named:

    >>> evaluate(rows, ["mrr"], y_true="label", y_score="score", groups="qid",
    ...          no_relevant="skip")
    EvaluationResult(n_queries=2, n_scored=1, means={'mrr': 0.5000})
    """
    dask, _, _ = _import_dask()
    given = {name: params.pop(name) for name in ("y_true", "y_score") if name in params}
    y_true, y_score, groups, sample_weight, metrics, propensity = frame_arguments(
        y_true,
        y_score,
        groups,
        sample_weight,
        metrics,
        given,
        "skirm.dask.evaluate",
        propensity=propensity,
        is_table=_is_dask_frame,
        columns_of=lambda frame: [str(c) for c in frame.columns],
        column=lambda frame, name: frame[name],
    )
    with _progress(verbose, "skirm.dask.evaluate") as progress:
        progress.stage("preparing the rows")
        frame, bound = _prepare(
            y_true,
            y_score,
            groups,
            metrics,
            sample_weight,
            ties,
            no_relevant,
            params,
            propensity,
        )
        weighted = sample_weight is not None
        if shuffle == "auto" and _whole_by_metadata(groups):
            shuffle = False
        parts = None
        if shuffle == "auto":
            progress.stage("evaluating the partitions as they stand")
            parts = _as_they_stand(frame, bound, no_relevant, ties, weighted, progress)
            shuffle = True  # read only when a query spans partitions
        if parts is None:
            values = _values_frame(
                frame, bound, no_relevant, ties, sample_weight, shuffle
            )
            delayed = values.to_delayed()
            progress.stage(f"evaluating {len(delayed)} partitions")
            parts = dask.compute(*delayed)
        progress.stage("merging the per-query values")
        parts = [_as_part(p, bound, weighted) for p in parts if len(p)]
        if not parts:
            raise InvalidInputError("`y_true` must hold at least one row, got none")
        result = merge(parts)
        progress.finish()
    return result


def _is_dask_frame(obj):
    """A Dask DataFrame (by its type's module: dask is not imported). Dask
    2024.x's frames are dask-expr's (``dask_expr._collection``), later ones
    ``dask.dataframe``'s."""
    root = type(obj).__module__.partition(".")[0]
    return root in ("dask", "dask_expr") and hasattr(obj, "columns")


def _as_part(frame, bound, weighted):
    """``(group_ids, per_query, weights, metric_weights)`` of one partition's
    frame."""
    group_ids = frame.index.to_numpy()
    if group_ids.dtype == object and all(isinstance(g, str) for g in group_ids):
        group_ids = group_ids.astype(str)  # as skirm.metrics.evaluate gives them
    per_query = {label: frame[label].to_numpy(dtype=np.float64) for label in bound}
    weights = frame["weight"].to_numpy(dtype=np.float64) if weighted else None
    own = {
        label: frame[column].to_numpy(dtype=np.float64)
        for label, column in _own_weights(bound).items()
    }
    return group_ids, per_query, weights, own
