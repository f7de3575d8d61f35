"""Summarise: per-query values of every block, sorted, and trec_eval's "all".

The blocks of a run hold disjoint queries; their values are put in the order
of the query ids (``strcmp`` order, as trec_eval prints them) and reduced the
way trec_eval does (:func:`skirm.trec._measures.summarize`): the mean for
most measures, the sum for the counts, the query count for ``num_q`` and the
geometric mean for ``gm_map`` and ``gm_bpref``.
"""

from __future__ import annotations

import numpy as np

from skirm._trec_names import MEASURES
from skirm.trec._measures import summarize
from skirm.trec._zscores import zscore_summary


def concatenate(parts):
    """``(ids, {name: values})``: the blocks' ``(ids, values)`` in id order."""
    ids = np.concatenate([p[0] for p in parts])
    order = np.argsort(ids, kind="stable")
    names = parts[0][1].keys()
    values = {
        name: np.concatenate([p[1][name] for p in parts])[order] for name in names
    }
    return ids[order], values


def summarize_outputs(
    outputs, per_query, n_total, n_missing, n_relevant, all_queries, zscored=False
):
    """trec_eval's summary ("all") of each measure's per-query values
    (``zscored``: of their z-scores). String measures have none.

    ``n_relevant()`` counts the relevant judgements of every qrels topic,
    which ``num_rel`` sums to under ``-c``."""
    means = {}
    for name, kind, what, _ in outputs:
        if name not in per_query:
            continue  # runid
        if kind == "trec" and MEASURES[what].string:
            continue  # relstring: per query only
        if what == "num_rel" and all_queries:
            # trec_eval -c recounts num_rel over every qrels topic, rel > 0.
            means[name] = float(n_relevant())
            continue
        summary = "mean" if kind == "skirm" else MEASURES[what].summary
        if zscored:
            means[name] = zscore_summary(summary, per_query[name], n_total)
        else:
            means[name] = summarize(summary, per_query[name], n_total, n_missing)
    return means
