"""Diversity measures named in :func:`evaluate_run` (and ``skirm eval``).

``evaluate_run(qrels, run, ["alpha_nDCG@20", "map"])`` reads the qrels as
subtopic judgments (``topic subtopic docno judgment``: the second column,
which trec_eval ignores, names the subtopic, as ndeval and ir_measures read
it), computes the request's diversity measures with
:func:`evaluate_diversity`, and :func:`evaluate_run` computes its other
measures on the same judgments with the subtopics dropped
(:func:`plain_qrels`). Both parts cover the same queries (the run's judged
queries, or every judged query with ``all_queries``), so
:func:`diversity_values` lines their per-query values up with the others'.
"""

from __future__ import annotations

import numpy as np

from skirm._errors import DuplicateDocnoError, EmptyRunError
from skirm.io import Run
from skirm.io._convert import convert_run
from skirm.metrics._diversity import NDEVAL_KS
from skirm.trec._inputs import SUBTOPICS, judgements
from skirm.trec._ndeval_report import (
    diversity_report,
    diversity_requests,
    warn_one_subtopic,
)

__all__ = ["diversity_part", "diversity_values", "plain_qrels", "subtopics_twice"]


def diversity_part(qrels, run, request, options):
    """``(judgments, run, report)``: the subtopic judgments, the run and
    :func:`evaluate_diversity`'s report of the request's diversity
    measures."""
    jg = judgements(qrels, SUBTOPICS)
    run = run if isinstance(run, Run) else convert_run(run, "run")
    if len(run) == 0:
        raise EmptyRunError("the run is empty: nothing to evaluate")
    defaults = {
        "alpha": 0.5,
        "beta": 0.5,
        "rel": options.level,
        "judged_only": options.judged_only,
    }
    requests = diversity_requests(request.diversity, NDEVAL_KS, defaults)
    warn_one_subtopic(jg)
    report = diversity_report(jg, run, requests, options.all_queries, options.ties)
    return jg, run, report


def plain_qrels(jg):
    """The subtopic judgments as ordinary qrels (the subtopics dropped), the
    same object the diversity measures' join indexed."""
    return jg._graded()


def subtopics_twice(exc: DuplicateDocnoError) -> DuplicateDocnoError:
    """A docno twice in a query of the plain qrels, told as a subtopic
    judgments' matter."""
    return DuplicateDocnoError(
        f"{exc}; subtopic qrels list a document once per subtopic, and "
        "trec_eval's measures need it once per query: evaluate them with plain "
        "qrels, apart from the diversity measures"
    )


def diversity_values(request, jg, report, ids, all_queries):
    """``(ids, per_query, means)`` of the request's diversity measures, on
    the queries ``ids`` of the evaluation of its other measures (None when
    it has none: then the run's judged queries, or every judged query with
    ``all_queries``), 0 for a judged query the run lacks (which ndeval -c
    counts as 0); the means are ndeval's."""
    if ids is None and all_queries:
        ids = np.unique(jg.query_ids)
    elif ids is None:
        ids = np.sort(report["query_ids"][report["judged"]].astype(str))
    known = report["query_ids"].astype(str)
    order = np.argsort(known, kind="stable")
    at = np.searchsorted(known[order], ids)
    found = at < known.shape[0]
    found[found] = known[order][at[found]] == ids[found]
    rows = order[np.where(found, at, 0)]
    per_query, means = {}, {}
    for name in request.diversity:
        per_query[name.text] = np.where(found, report[name.text][rows], 0.0)
        means[name.text] = report["mean"][name.text]
    return ids, per_query, means
