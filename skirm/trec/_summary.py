"""Summarise: per-query values of every block, sorted, and trec_eval's "all".

The blocks of a run hold disjoint queries; their values are put in the order
of the query ids (``strcmp`` order, as trec_eval prints them) and reduced the
way trec_eval does: the mean for most measures, the sum for the counts, the
query count for ``num_q`` and the geometric mean for ``gm_map`` and
``gm_bpref``.
"""

from __future__ import annotations

import math

import numpy as np

GM_FLOOR = 1e-5  # trec_eval's floor for the geometric means


def concatenate(parts):
    """``(ids, {name: values})``: the blocks' ``(ids, values)`` in id order."""
    ids = np.concatenate([p[0] for p in parts])
    order = np.argsort(ids, kind="stable")
    names = parts[0][1].keys()
    values = {
        name: np.concatenate([p[1][name] for p in parts])[order] for name in names
    }
    return ids[order], values


def summarize(kind, values, n_total, n_missing):
    """trec_eval's summary of per-query values (``-c``: ``n_missing`` zeros)."""
    if kind == "sum":
        return float(np.sum(values))
    if kind == "count":
        return float(n_total)
    if kind == "gm":
        logs = np.log(np.maximum(values, GM_FLOOR))
        return float(math.exp((logs.sum() + n_missing * math.log(GM_FLOOR)) / n_total))
    return float(np.sum(values) / n_total)
