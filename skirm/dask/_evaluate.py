"""Evaluate rows held in Dask collections with skirm's numpy engine.

Nothing here computes a metric: the rows of each query are brought into one
partition by Dask's shuffle on the query id, each partition goes through the
same functions as :func:`skirm.metrics.evaluate` (or
:func:`skirm.trec.evaluate_run`), and the per-query values of the partitions
are merged as :meth:`~skirm.metrics.EvaluationResult.concat` merges results.
"""

from __future__ import annotations

import glob as _glob
import gzip
import os

import numpy as np

from skirm._engine import TIES, check_input
from skirm._validation import check_choice, check_no_relevant, describe
from skirm.metrics._evaluate import bind_input_wide, bind_metrics, per_query_values
from skirm.metrics._result import merge, merged_ids

__all__ = ["evaluate", "evaluate_run", "per_query_frame"]

_RUN_COLUMNS = ("query_id", "doc_id", "score")  # as skirm.io.Run.to_frame


def _import_dask():
    """``(dask, dask.dataframe, pandas)``, or an ImportError naming the extra."""
    try:
        import dask
        import dask.dataframe as dd
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "skirm.dask requires dask[dataframe] and pandas; install them with "
            "`pip install skirm[dask]`"
        ) from exc
    return dask, dd, pd


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
                raise ValueError(
                    f"`{name}` must be a 1-D Dask array, got shape {column.shape}"
                )
            column = dd.from_dask_array(column)
        elif not isinstance(column, dd.Series):
            raise TypeError(
                f"`{name}` must be a Dask Series or a 1-D Dask array, got "
                f"{describe(column)}; for in-memory arrays use "
                "skirm.metrics.evaluate"
            )
        series[name] = column
    frame = series.pop("y_true").to_frame(name="y_true")
    return frame.assign(**series)


def _empty_frame(pd, labels, weighted, id_dtype):
    data = {label: np.zeros(0) for label in labels}
    if weighted:
        data["weight"] = np.zeros(0)
    return pd.DataFrame(data, index=pd.Index([], dtype=id_dtype, name="query"))


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
    )
    group_ids, per_query, weights = per_query_values(bound, checked, no_relevant)
    frame = pd.DataFrame(per_query, index=pd.Index(group_ids, name="query"))
    if weighted:
        frame["weight"] = weights
    return frame


def per_query_frame(
    y_true,
    y_score,
    *,
    groups,
    metrics=("ndcg@10", "map", "mrr"),
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    shuffle=True,
    **params,
):
    """Per-query metric values of rows in Dask collections, as a lazy frame.

    The arguments are those of :func:`evaluate`. Use this function when the
    queries themselves are too many to gather in one process; otherwise
    :func:`evaluate` gives the means too.

    Returns
    -------
    frame : dask.dataframe.DataFrame
        One row per query, indexed by the query label (``"query"``), one
        float column per metric (NaN for queries left out by
        ``no_relevant="skip"``), and a ``"weight"`` column when
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
        y_true, y_score, groups, metrics, sample_weight, ties, no_relevant, params
    )
    return _values_frame(frame, bound, no_relevant, ties, sample_weight, shuffle)


def _prepare(y_true, y_score, groups, metrics, sample_weight, ties, no_relevant, p):
    """Client-side checks, the rows as one frame, and the bound metrics."""
    _import_dask()
    check_choice(ties, "ties", TIES)
    check_no_relevant(no_relevant)
    bound = bind_metrics(metrics, p)
    if groups is None:
        raise ValueError(
            "`groups` is required: pass the query id of each row (a Dask Series "
            "or a 1-D Dask array)"
        )
    frame = _rows_frame(
        {
            "y_true": y_true,
            "y_score": y_score,
            "groups": groups,
            "sample_weight": sample_weight,
        }
    )
    # Defaults taken over all the rows (ERR's max_grade) cost one reduction.
    bound = bind_input_wide(bound, lambda: frame["y_true"].max().compute())
    return frame, bound


def _values_frame(frame, bound, no_relevant, ties, sample_weight, shuffle):
    _, _, pd = _import_dask()
    no_relevant = check_no_relevant(no_relevant)
    if shuffle:
        if ties == "first":
            raise ValueError(
                "`ties='first'` keeps the input order of tied rows, which the "
                "shuffle on the query id does not preserve; pass shuffle=False "
                "with partitions that hold whole queries, or another tie policy"
            )
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


def evaluate(
    y_true,
    y_score,
    *,
    groups,
    metrics=("ndcg@10", "map", "mrr"),
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    shuffle=True,
    **params,
):
    """Compute several metrics on rows held in Dask collections.

    The rows are shuffled on the query id so that each query's rows sit in
    one partition, each partition is ranked and measured by the numpy engine
    of :func:`skirm.metrics.evaluate`, and the per-query values are merged:
    the result equals that of :func:`skirm.metrics.evaluate` on all the rows
    in one process (to the last bits of the per-query sums).

    Requires dask (``pip install skirm[dask]``). Uses the current Dask
    scheduler (a ``distributed.Client`` if one is active).

    Parameters
    ----------
    y_true, y_score : dask.dataframe.Series or 1-D dask.array.Array
        Relevance labels and scores, one per row; columns of one Dask
        DataFrame, or Dask arrays with the same chunks.
    groups : dask.dataframe.Series or 1-D dask.array.Array
        The query of each row. Rows of a query may be in any partitions.
    metrics : sequence of str or Metric, default=("ndcg@10", "map", "mrr")
        As in :func:`skirm.metrics.evaluate`.
    sample_weight : dask.dataframe.Series or 1-D dask.array.Array, default=None
        Query weights given per row, constant within each query.
    ties : {"average", "first", "optimistic", "pessimistic"}, default="average"
        The tie policy. ``"first"`` (input order among ties) needs
        ``shuffle=False``: a shuffle does not keep the input order.
    no_relevant : float in [0, 1], "skip" or "raise", default=0.0
        The value of a query without relevant rows; ``"skip"`` leaves such
        queries out of the means across all partitions.
    shuffle : bool, default=True
        Shuffle the rows on the query id. Pass False when the partitions
        already hold whole queries (e.g. Parquet files written by query):
        a query found in two partitions then raises ValueError.
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
    """
    dask, _, _ = _import_dask()
    frame, bound = _prepare(
        y_true, y_score, groups, metrics, sample_weight, ties, no_relevant, params
    )
    values = _values_frame(frame, bound, no_relevant, ties, sample_weight, shuffle)
    parts = dask.compute(*values.to_delayed())
    weighted = sample_weight is not None
    parts = [_as_part(p, bound, weighted) for p in parts if len(p)]
    if not parts:
        raise ValueError("`y_true` must hold at least one row, got none")
    return merge(parts)


def _as_part(frame, labels, weighted):
    """``(group_ids, per_query, weights)`` of one partition's frame."""
    group_ids = frame.index.to_numpy()
    if group_ids.dtype == object and all(isinstance(g, str) for g in group_ids):
        group_ids = group_ids.astype(str)  # as skirm.metrics.evaluate gives them
    per_query = {label: frame[label].to_numpy(dtype=np.float64) for label in labels}
    weights = frame["weight"].to_numpy(dtype=np.float64) if weighted else None
    return group_ids, per_query, weights


# --------------------------------------------------------------------------
# TREC runs
# --------------------------------------------------------------------------


def _read_run_frame(path):
    """One run file as a pandas frame of ``query_id, doc_id, score``."""
    from skirm.io import read_run

    run = read_run(path)
    return _run_pandas(run.query_ids, run.doc_ids, run.scores)


def _run_pandas(query_ids, doc_ids, scores):
    _, _, pd = _import_dask()
    return pd.DataFrame(
        dict(zip(_RUN_COLUMNS, (query_ids, doc_ids, scores), strict=True))
    )


def _last_run_id(path):
    """The run id of a run file's last line, as trec_eval takes it."""
    opener = gzip.open if str(path).endswith(".gz") else open
    last = b""
    with opener(path, "rb") as handle:
        for line in handle:
            if line.strip():
                last = line
    fields = last.split()
    return fields[5].decode("utf-8", "replace") if len(fields) > 5 else ""


def _run_frame(run):
    """``(Dask DataFrame of the run rows, delayed run id or None)``."""
    dask, dd, _ = _import_dask()
    if isinstance(run, dd.DataFrame):
        missing = [c for c in _RUN_COLUMNS if c not in run.columns]
        if missing:
            raise ValueError(
                f"`run` must have the columns {list(_RUN_COLUMNS)} (as "
                f"skirm.io.Run.to_frame gives them), missing {missing}"
            )
        return run[list(_RUN_COLUMNS)], None
    if isinstance(run, (str, os.PathLike)):
        paths = sorted(_glob.glob(os.fspath(run)))
    elif isinstance(run, (list, tuple)):
        paths = [os.fspath(p) for p in run]
    else:
        raise TypeError(
            "`run` must be a Dask DataFrame, a glob pattern of run files or a "
            f"list of paths, got {describe(run)}"
        )
    if not paths:
        raise ValueError(f"`run` matches no file: {run!r}")
    empty = np.zeros(0, dtype=str)
    meta = _run_pandas(empty, empty, np.zeros(0))
    parts = [dask.delayed(_read_run_frame)(p) for p in paths]
    return dd.from_delayed(parts, meta=meta), dask.delayed(_last_run_id)(paths[-1])


def _partition_run(rows, index, outputs, options):
    """Per-query trec_eval values of one partition's run rows against the
    indexed qrels.

    Returns ``(judged, outcome)``: the partition's queries that are in the
    qrels, and either a pandas frame of their values, each as
    :func:`skirm.trec.evaluate_run` gives it whatever qrels topics the
    partition lacks (the rule on those applies to the whole run, in
    :func:`evaluate_run`), or the ValueError of the evaluation, raised by the
    caller after the checks that trec_eval makes first. When no query is
    judged, ``outcome`` holds the first query ids, for the message.
    """
    from skirm.io import Run
    from skirm.trec._evaluate import query_values
    from skirm.trec._inputs import run_input

    _, _, pd = _import_dask()
    query_ids = np.asarray(rows["query_id"].to_numpy(), dtype=str)
    judged = np.isin(query_ids, index.topic_ids)
    if not judged.any():
        return query_ids[:0], query_ids[:3]
    block = run_input(
        Run(
            query_ids[judged],
            np.asarray(rows["doc_id"].to_numpy(), dtype=str)[judged],
            rows["score"].to_numpy(dtype=np.float64)[judged],
        )
    )
    try:
        group_ids, per_query = query_values(index, block, outputs, options, "leave out")
    except ValueError as exc:
        return np.unique(query_ids[judged]), exc
    return group_ids, pd.DataFrame(per_query, index=pd.Index(group_ids))


def _run_tasks(partitions, index, outputs, options):
    import dask

    return [
        dask.delayed(_partition_run)(part, index, outputs, options)
        for part in partitions
    ]


def _placeholder_part(index, outputs, present, options):
    """The per-query values trec_eval 10.0 ``-c`` gives the qrels topics
    missing from ``present`` (the evaluated queries of the whole run)."""
    from skirm.trec._evaluate import query_values

    _, _, pd = _import_dask()
    # Every qrels topic on a placeholder ranking.
    group_ids, per_query = query_values(index, None, outputs, options, "score")
    absent = ~np.isin(group_ids, present)
    return pd.DataFrame(
        {name: values[absent] for name, values in per_query.items()},
        index=pd.Index(group_ids[absent]),
    )


def _checked_run(parts, index, missing):
    """The evaluated queries of the whole run, after the checks of
    :func:`skirm.trec.evaluate_run` in its order: a run without qrels
    queries, qrels queries missing from the run (under ``missing="raise"``),
    then the errors of the partitions (duplicate docnos)."""
    from skirm.trec._missing import missing_queries_error, no_common_error

    present = np.unique(np.concatenate([ids for ids, _ in parts]))
    if not present.shape[0]:
        sample = np.concatenate([out[:3] for _, out in parts])
        raise no_common_error(sample, index.topic_ids)
    if missing == "raise" and present.shape[0] < index.n_topics:
        raise missing_queries_error(np.setdiff1d(index.topic_ids, present))
    for _, outcome in parts:
        if isinstance(outcome, ValueError):
            raise outcome
    return present


def _merged_frames(frames):
    """``(group_ids, per_query)`` of disjoint per-query frames."""
    group_ids, order = merged_ids([p.index.to_numpy().astype(str) for p in frames])
    per_query = {
        name: np.concatenate([p[name].to_numpy() for p in frames])[order]
        for name in frames[0].columns
    }
    return group_ids, per_query


def evaluate_run(
    qrels,
    run,
    metrics="official",
    *,
    relevance_level=1,
    judged_only=False,
    max_docs=None,
    all_queries=False,
    compat="10.0",
    shuffle=True,
):
    """Evaluate a TREC run too large for one process, as trec_eval does.

    The run rows are shuffled on the query id, each partition is evaluated by
    :func:`skirm.trec.evaluate_run` against the whole qrels (held once in
    the task graph), and the per-query values are merged and summarised as
    trec_eval summarises them: the result equals that of
    :func:`skirm.trec.evaluate_run` on the whole run, errors included.

    ERR's default ``max_grade`` (for skirm's ``err`` metrics) is the largest
    label of the qrels, as in :func:`skirm.trec.evaluate_run`, whatever the
    partitions.

    Requires dask (``pip install skirm[dask]``).

    Parameters
    ----------
    qrels : Qrels, str or path-like
        Judgements, read in this process (see :func:`skirm.io.read_qrels`).
    run : dask.dataframe.DataFrame, str or list of paths
        The run: a Dask DataFrame with the columns ``query_id``,
        ``doc_id`` and ``score`` (as :meth:`skirm.io.Run.to_frame` names
        them), or a glob pattern (or list) of run files
        read on the workers, one task per file. A query may be split across
        files.
    metrics, relevance_level, judged_only, max_docs, all_queries, compat
        As in :func:`skirm.trec.evaluate_run`. The rule on qrels queries
        missing from the run (an error, placeholder rankings with
        ``all_queries=True``, or left out with ``compat="9.0"``) applies to
        the whole run, not to each partition.
    shuffle : bool, default=True
        Shuffle the rows on the query id; pass False when each partition
        already holds whole queries (a query found in two partitions then
        raises ValueError).

    Returns
    -------
    result : EvaluationResult
        As :func:`skirm.trec.evaluate_run` returns it; ``run_id`` is that of
        the last line of the last file, or ``""`` for a DataFrame.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> from skirm.io import Qrels, Run
    >>> from skirm.dask import evaluate_run
    >>> qrels = Qrels(["q1", "q1", "q2"], ["d1", "d2", "d1"], [1, 0, 1])
    >>> run = Run(["q1", "q1", "q2", "q2"], ["d1", "d2", "d2", "d1"],
    ...           [0.5, 0.7, 0.9, 0.1])
    >>> rows = dd.from_pandas(run.to_frame(), npartitions=2)
    >>> evaluate_run(qrels, rows, ["map", "num_ret"]).means
    {'num_ret': 4.0, 'map': 0.5}
    """
    dask, _, _ = _import_dask()
    from skirm.metrics import EvaluationResult
    from skirm.trec._inputs import qrels_input
    from skirm.trec._join import QrelsIndex
    from skirm.trec._missing import missing_rule
    from skirm.trec._request import (
        Options,
        check_compat,
        check_level,
        check_max_docs,
        parse_measures,
    )
    from skirm.trec._summary import summarize_outputs

    compat = check_compat(compat)
    outputs = parse_measures(metrics, compat)
    level = check_level(relevance_level)
    check_max_docs(max_docs)
    options = Options(level, bool(judged_only), max_docs, bool(all_queries), compat)
    # The qrels are read and indexed once, here; the index goes to the tasks.
    index = QrelsIndex(qrels_input(qrels))
    frame, run_id = _run_frame(run)
    if shuffle:
        frame = frame.shuffle(on="query_id")
    partitions = frame.to_delayed()
    shared = dask.delayed(index, traverse=False)
    tasks = _run_tasks(partitions, shared, outputs, options)
    parts, run_id = dask.compute(tasks, run_id)
    missing = missing_rule(options.all_queries, compat)
    present = _checked_run(parts, index, missing)
    frames = [out for ids, out in parts if len(ids)]
    n_topics = index.n_topics
    if missing == "score" and present.shape[0] < n_topics:
        frames.append(_placeholder_part(index, outputs, present, options))
    group_ids, per_query = _merged_frames(frames)
    n_total = n_topics if options.all_queries else group_ids.shape[0]
    means = summarize_outputs(
        outputs,
        per_query,
        n_total,
        n_total - group_ids.shape[0],
        index.n_relevant,
        options.all_queries,
    )
    result = EvaluationResult(group_ids, per_query, means)
    result.run_id = run_id if run_id is not None else ""
    return result
