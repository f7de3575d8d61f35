"""Diversity measures named in :func:`evaluate_run` (and ``skirm eval``).

``evaluate_run(qrels, run, ["alpha_nDCG@20", "map"])`` reads the qrels as
subtopic judgments (``topic subtopic docno judgment``: the second column,
which trec_eval ignores, names the subtopic, as ndeval and ir_measures read
it), computes the diversity measures with :func:`evaluate_diversity`, and
trec_eval's and skirm's measures on the same judgments with the subtopics
dropped. Both parts cover the same queries (the run's judged queries, or
every judged query with ``all_queries``), so their per-query values line up
in one :class:`~skirm.metrics.EvaluationResult`.
"""

from __future__ import annotations

import numpy as np

from skirm._errors import DuplicateDocnoError, EmptyRunError, InvalidParameterError
from skirm.io import Qrels, Run
from skirm.io._convert import convert_run
from skirm.metrics._result import EvaluationResult
from skirm.trec._diversity import evaluate_diversity
from skirm.trec._groups import as_qrels_jg

__all__ = ["evaluate_with_diversity"]


def evaluate_with_diversity(
    standard, qrels, run, metrics, outputs, *, relevance_level, judged_only,
    all_queries, refused,
):  # fmt: skip
    """One result for a request that names diversity measures.

    ``standard(qrels, run, metrics)`` is :func:`evaluate_run` bound to the
    other options, for the measures that are not diversity measures;
    ``refused`` maps the options that do not apply to diversity measures
    (``(python name, command-line option)``) to whether they were given.
    """
    labels = _labels(outputs)
    given = [names for names, was_given in refused.items() if was_given]
    if given:
        text = "{} {} not apply to the diversity measures ({}); evaluate them apart"
        verb = "does" if len(given) == 1 else "do"
        raise InvalidParameterError(
            text.format(
                " and ".join(python for python, _ in given), verb, ", ".join(labels)
            ),
            command_line=text.format(
                " and ".join(option for _, option in given), verb, ", ".join(labels)
            ),
        )
    jg = as_qrels_jg(
        qrels,
        "the diversity measures need subtopic judgments (`topic subtopic docno "
        "judgment` lines) in `qrels`",
    )
    run = run if isinstance(run, Run) else convert_run(run, "run")
    if len(run) == 0:
        raise EmptyRunError("the run is empty: nothing to evaluate")
    report = evaluate_diversity(
        jg,
        run,
        labels,
        relevance_threshold=relevance_level,
        judged_only=judged_only,
        all_queries=all_queries,
    )
    if all_queries:
        ids = np.unique(jg.query_ids)
    else:
        ids = np.sort(report["query_ids"][report["judged"]].astype(str))
    others = [m for m in metrics if not (isinstance(m, str) and m in labels)]
    per_query, means = {}, {}
    run_id = run.run_id
    zscored = False
    if others:
        plain = Qrels(jg.query_ids, jg.doc_ids, jg.labels)
        try:
            result = standard(plain, run, others)
        except DuplicateDocnoError as exc:
            raise DuplicateDocnoError(
                f"{exc}; subtopic qrels list a document once per subtopic, "
                "and trec_eval's measures need it once per query: evaluate "
                "them with plain qrels, apart from the diversity measures"
            ) from None
        ids = result.group_ids
        per_query.update(result.per_query)
        means.update(result.means)
        run_id, zscored = result.run_id, result.zscored
    # the report's values, put in the order of ``ids`` (0 for a judged query
    # the run lacks, which ndeval -c counts as 0)
    known = report["query_ids"].astype(str)
    order = np.argsort(known, kind="stable")
    at = np.searchsorted(known[order], ids)
    found = at < known.shape[0]
    found[found] = known[order][at[found]] == ids[found]
    rows = order[np.where(found, at, 0)]
    for label in labels:
        values = np.where(found, report[label][rows], 0.0)
        per_query[label] = values
        means[label] = report["mean"][label]
    result = EvaluationResult(ids, per_query, means)
    result.run_id = run_id
    result.zscored = zscored
    return result


def _labels(outputs):
    return [name for name, kind, _, _ in outputs if kind == "diversity"]
