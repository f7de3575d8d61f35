"""What the generic, registry-driven tests need to call the measures of
impression logs (per-group AUC, calibration, propensity-scored) the way
they call every metric: which rows those are, which read the scores as
probabilities, and a version of each defined on any input."""

from __future__ import annotations

import numpy as np

from skirm._measures import _impressions, _table
from skirm.metrics import get_metric
from skirm.metrics._registry import not_held

#: The names of the measures of impression logs (their own slow reference:
#: ``impression_reference`` in ``_reference.py``).
IMPRESSIONS = {m.name for m in _table._rows(_impressions)}
#: The metrics that read the scores as probabilities in [0, 1].
PROBABILITY = set(not_held("score_transform"))


def scores_for(name, y_score):
    """The scores metric ``name`` reads: for a metric of probabilities, the
    scores through a strictly increasing map into (0, 1) (ties kept)."""
    if name.partition("@")[0] not in PROBABILITY:
        return y_score
    return 1.0 / (1.0 + np.exp(-np.asarray(y_score, dtype=float)))


def defined(name):
    """The metric of ``name``, defined on every input: a query of one class
    of labels scores 1/2 rather than being left out (``one_class``), the
    queries weigh alike (``weights``) and NE's base rate is each group's."""
    metric = get_metric(name)
    options = {}
    if metric.params.get("one_class") == "skip":
        options["one_class"] = 0.5
    if "weights" in metric.params:
        options["weights"] = "uniform"
    if "base_rate" in metric.params:
        options["base_rate"] = "group"
    return get_metric(metric, **options) if options else metric


def reads_probabilities(name):
    """Whether the metric ``name`` (any spelling, with ``@k`` or the
    placeholder ``@k``) reads the scores as probabilities."""
    return get_metric(name.replace("@k", "@3")).spec.name in PROBABILITY
