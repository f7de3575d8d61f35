"""Diversity measures named in :func:`evaluate_run` (and ``skirm eval``).

``evaluate_run(qrels, run, ["alpha_nDCG@20", "map"])`` reads the qrels as
subtopic judgments (``topic subtopic docno judgment``: the second column,
which trec_eval ignores, names the subtopic, as ndeval and ir_measures read
it), computes the request's diversity measures with
:func:`evaluate_diversity`, and :func:`evaluate_run` computes its other
measures on the same judgments with the subtopics dropped
(:func:`plain_qrels`). Both parts cover the same queries (the run's judged
queries, or every judged query with ``all_queries``), so :func:`merged`
lines their per-query values up in one :class:`~skirm.metrics.EvaluationResult`.
"""

from __future__ import annotations

import numpy as np

from skirm._errors import DuplicateDocnoError, EmptyRunError, InvalidParameterError
from skirm.io import Qrels, Run
from skirm.io._convert import convert_run
from skirm.metrics._result import EvaluationResult
from skirm.trec._diversity import evaluate_diversity
from skirm.trec._groups import as_qrels_jg

__all__ = [
    "diversity_part",
    "merged",
    "plain_qrels",
    "refuse_options",
    "subtopics_twice",
]


def refuse_options(request, given):
    """The options that do not apply to the diversity measures are refused:
    ``given`` maps ``(python name, command-line option)`` to whether it was
    given."""
    given = [names for names, was_given in given.items() if was_given]
    if not given:
        return
    labels = ", ".join(d.text for d in request.diversity)
    text = "{} {} not apply to the diversity measures ({}); evaluate them apart"
    verb = "does" if len(given) == 1 else "do"
    raise InvalidParameterError(
        text.format(" and ".join(python for python, _ in given), verb, labels),
        command_line=text.format(
            " and ".join(option for _, option in given), verb, labels
        ),
    )


def diversity_part(qrels, run, request, options):
    """``(judgments, run, report)``: the subtopic judgments, the run and
    :func:`evaluate_diversity`'s report of the request's diversity
    measures."""
    jg = as_qrels_jg(qrels)
    run = run if isinstance(run, Run) else convert_run(run, "run")
    if len(run) == 0:
        raise EmptyRunError("the run is empty: nothing to evaluate")
    report = evaluate_diversity(
        jg,
        run,
        request.diversity,
        relevance_threshold=options.level,
        judged_only=options.judged_only,
        all_queries=options.all_queries,
    )
    return jg, run, report


def plain_qrels(jg):
    """The subtopic judgments as ordinary qrels (the subtopics dropped)."""
    return Qrels(jg.query_ids, jg.doc_ids, jg.labels)


def subtopics_twice(exc: DuplicateDocnoError) -> DuplicateDocnoError:
    """A docno twice in a query of the plain qrels, told as a subtopic
    judgments' matter."""
    return DuplicateDocnoError(
        f"{exc}; subtopic qrels list a document once per subtopic, and "
        "trec_eval's measures need it once per query: evaluate them with plain "
        "qrels, apart from the diversity measures"
    )


def merged(request, jg, run, report, standard, all_queries):
    """One result: ``standard`` (the evaluation of the request's other
    measures, or None) and the diversity ``report``, on the same queries."""
    if all_queries:
        ids = np.unique(jg.query_ids)
    else:
        ids = np.sort(report["query_ids"][report["judged"]].astype(str))
    per_query, means = {}, {}
    run_id, zscored = run.run_id, False
    if standard is not None:
        ids = standard.group_ids
        per_query.update(standard.per_query)
        means.update(standard.means)
        run_id, zscored = standard.run_id, standard.zscored
    # the report's values, put in the order of ``ids`` (0 for a judged query
    # the run lacks, which ndeval -c counts as 0)
    known = report["query_ids"].astype(str)
    order = np.argsort(known, kind="stable")
    at = np.searchsorted(known[order], ids)
    found = at < known.shape[0]
    found[found] = known[order][at[found]] == ids[found]
    rows = order[np.where(found, at, 0)]
    for name in request.diversity:
        values = np.where(found, report[name.text][rows], 0.0)
        per_query[name.text] = values
        means[name.text] = report["mean"][name.text]
    result = EvaluationResult(ids, per_query, means)
    result.run_id = run_id
    result.zscored = zscored
    return result
