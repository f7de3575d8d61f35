"""Evaluate a TREC run held in Dask collections or files, as trec_eval does.

The run rows are shuffled on the query id when a query spans partitions (as
the rows of :mod:`skirm.dask._row_partitions`), each partition is evaluated
by the stages of :func:`skirm.trec.evaluate_run` against the whole qrels,
and the per-query values are merged and summarised as trec_eval summarises them.
"""

from __future__ import annotations

import glob as _glob
import gzip
import os
from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures._table import OFFICIAL
from skirm._params import describe
from skirm.dask._row_partitions import (
    SHUFFLE,
    _import_dask,
    _progress,
    _repeated_query,
)
from skirm.io._sources import is_path
from skirm.metrics._result import merged_ids

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from dask.dataframe import DataFrame

    from skirm.io._input_types import QrelsLike
    from skirm.metrics import EvaluationResult, Metric

__all__ = ["evaluate_run"]

_RUN_COLUMNS = ("query_id", "doc_id", "score")  # as skirm.io.Run.to_frame


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
            raise InvalidInputError(
                f"`run` must have the columns {list(_RUN_COLUMNS)} (as "
                f"skirm.io.Run.to_frame gives them), missing {missing}"
            )
        return run[list(_RUN_COLUMNS)], None
    if is_path(run):
        paths = sorted(_glob.glob(os.fspath(run)))
    elif isinstance(run, (list, tuple)):
        paths = [os.fspath(p) for p in run]
    else:
        raise InvalidParameterError(
            "`run` must be a Dask DataFrame, a glob pattern of run files or a "
            f"list of paths, got {describe(run)}"
        )
    if not paths:
        raise InvalidParameterError(f"`run` matches no file: {run!r}")
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
    from skirm.trec._evaluate_run import query_values
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
    from skirm.trec._evaluate_run import query_values

    _, _, pd = _import_dask()
    # Every qrels topic on a placeholder ranking.
    group_ids, per_query = query_values(index, None, outputs, options, "score")
    absent = ~np.isin(group_ids, present)
    return pd.DataFrame(
        {name: values[absent] for name, values in per_query.items()},
        index=pd.Index(group_ids[absent]),
    )


def _spans_partitions(parts):
    """Whether a judged query was evaluated in more than one partition."""
    return _repeated_query([ids for ids, _ in parts]) is not None


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
        raise missing_queries_error(index.absent_topics([present]))
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
    qrels: QrelsLike,
    run: DataFrame | str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    metrics: str | Metric | Sequence[str | Metric] = OFFICIAL,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    max_docs: int | None = None,
    all_queries: bool = False,
    compat: Literal["10.0", "9.0"] = "10.0",
    shuffle: bool | Literal["auto"] = "auto",
    verbose: int = 0,
) -> EvaluationResult:
    """Evaluate a TREC run too large for one process, as trec_eval does.

    The run rows are shuffled on the query id when a query spans partitions
    (see ``shuffle``), each partition is evaluated by
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
    shuffle : bool or "auto", default="auto"
        Whether to shuffle the rows on the query id. ``"auto"`` evaluates
        each partition as it stands and shuffles only when a judged query
        is found in two partitions; that evaluation is then done again
        after the shuffle, so pass True for runs known to split queries
        across files. Pass False when each partition holds whole queries
        (a query found in two partitions then raises ValueError).
    verbose : int, default=0
        Progress on standard error: 0 prints none; above 0, the stages as
        lines and, on a local scheduler, Dask's
        ``dask.diagnostics.ProgressBar`` during the computation (with
        a ``distributed.Client``, the address of its dashboard).

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
    from skirm.trec._inputs import qrels_input
    from skirm.trec._missing import missing_rule
    from skirm.trec._request import (
        COMPAT,
        MAX_DOCS,
        RELEVANCE_LEVEL,
        Options,
        parse_measures,
    )
    from skirm.trec._summary import finish

    shuffle = SHUFFLE(shuffle)
    compat = COMPAT(compat)
    outputs = parse_measures(metrics, compat).outputs
    level = RELEVANCE_LEVEL(relevance_level)
    MAX_DOCS(max_docs)
    options = Options(level, bool(judged_only), max_docs, bool(all_queries), compat)
    with _progress(verbose, "skirm.dask.evaluate_run") as progress:
        # The qrels are read and indexed once, here; the index goes to the tasks.
        progress.stage("reading the qrels")
        index = qrels_input(qrels)
        frame, run_id = _run_frame(run)
        shared = dask.delayed(index, traverse=False)
        if shuffle is True:
            progress.stage("shuffling the run on the query id")
            frame = frame.shuffle(on="query_id")
        tasks = _run_tasks(frame.to_delayed(), shared, outputs, options)
        progress.stage(f"evaluating {len(tasks)} partitions")
        parts, run_id = dask.compute(tasks, run_id)
        if shuffle == "auto" and _spans_partitions(parts):
            progress.stage("a query spans partitions: shuffling on the query id")
            frame = frame.shuffle(on="query_id")
            tasks = _run_tasks(frame.to_delayed(), shared, outputs, options)
            (parts,) = dask.compute(tasks)
        progress.finish()
    missing = missing_rule(options.all_queries, compat)
    present = _checked_run(parts, index, missing)
    frames = [out for ids, out in parts if len(ids)]
    if missing == "score" and present.shape[0] < index.n_topics:
        frames.append(_placeholder_part(index, outputs, present, options))
    group_ids, per_query = _merged_frames(frames)
    return finish(
        outputs,
        group_ids,
        per_query,
        run_id=run_id if run_id is not None else "",
        n_topics=index.n_topics,
        n_relevant=index.n_relevant,
        all_queries=options.all_queries,
    )
