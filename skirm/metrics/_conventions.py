"""Conventions presets: other libraries' rules as skirm's existing options.

A preset only sets options skirm already has (``ties``, ``no_relevant``,
``gain``, ``denominator``). It covers the metrics whose numbers it
reproduces; asking for another metric under a preset is an error rather
than a number the library would not give.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from skirm._errors import InvalidParameterError
from skirm._measures import _table as table
from skirm._params import OneOf, Param

_NDCG, _DCG, _MAP, _MRR = table.NDCG, table.DCG, table.MAP, table.MRR
_PRECISION, _RECALL = table.PRECISION, table.RECALL


class Preset(NamedTuple):
    ties: str
    no_relevant: float
    options: dict  # metric option -> value, for the metrics that take it
    metrics: tuple  # the measures the preset reproduces
    positive_scores: tuple = ()  # measures for which scores <= 0 are not retrieved
    without_cutoff: tuple = ()  # measures it reproduces without a cutoff only
    # measures whose weighted mean adds a query without relevant rows
    # unweighted (its value once), though its weight is in the denominator
    unweighted_empty: tuple = ()
    capped: bool = False  # the library's mean is capped at 1
    measure_options: dict | None = None  # measure -> its own options, over them


PRESETS = {
    # sklearn.metrics.ndcg_score / dcg_score: tie-averaged, linear gain,
    # an all-zero row scores 0.
    "sklearn": Preset("average", 0.0, {"gain": "linear"}, (_NDCG, _DCG)),
    # LightGBM's ndcg@k and map@k: stable sort (input order among ties),
    # 2**label - 1 gains, 1 for a query without relevant rows, AP@k divided
    # by min(k, R). On a weighted validation set its ndcg adds 1 for such a
    # query, not its weight (rank_metric.hpp), which make_eval_metric follows.
    "lightgbm": Preset(
        "first",
        1.0,
        {"gain": "exponential", "denominator": "min_k"},
        (_NDCG, _MAP),
        unweighted_empty=(_NDCG,),
    ),
    # XGBoost's ndcg@k and map@k (add no_relevant=0.0 for its "-" variants).
    # Its weighted ndcg adds a query without relevant rows as LightGBM's does
    # (rank_metric.cc), and caps the mean at 1.
    "xgboost": Preset(
        "first",
        1.0,
        {"gain": "exponential", "denominator": "min_k"},
        (_NDCG, _MAP),
        unweighted_empty=(_NDCG,),
        capped=True,
    ),
    # torchmetrics' retrieval metrics: tie-averaged NDCG, linear gain,
    # empty_target_action="neg" (0), MAP@k divided by the hits in the top k.
    # Since torchmetrics 1.8 its MAP, MRR, precision and recall count a row
    # scored <= 0 as not retrieved (evaluate's preset_metrics follows).
    "torchmetrics": Preset(
        "average",
        0.0,
        {"gain": "linear", "denominator": "hits"},
        (
            _NDCG,
            _MAP,
            _MRR,
            _PRECISION,
            _RECALL,
            table.HIT_RATE,
            table.R_PRECISION,
            table.GAUC,
            table.FALLOUT,
        ),
        (_MAP, _MRR, _PRECISION, _RECALL),
        # RetrievalAUROC is the uniform mean of the queries' AUC, 0 for a
        # query of one class; RetrievalFallOut gives 1 to a query without
        # non-relevant rows (its empty_target_action="pos"), fall-out's own
        # default.
        measure_options={table.GAUC: {"weights": "uniform", "one_class": 0.0}},
    ),
    # TorchRec's uAUC (the uniform mean of the users' AUC, one-class users
    # left out; its wuAUC is gauc's default, by impressions), its NE of every
    # row and its calibration: its sort leaves tied scores in no stated
    # order, so the numbers meet on distinct scores.
    "torchrec": Preset(
        "average",
        0.0,
        {},
        (table.GAUC, table.NE, table.PCOC),
        measure_options={table.GAUC: {"weights": "uniform", "one_class": "skip"}},
    ),
    # TF-Ranking's OPAMetric: a pair of tied scores counts as misordered
    # (I[s_i > s_j]), which is the pessimistic order of tied rows, and the
    # lists are weighted by their pairs (OPA's default).
    "tf_ranking": Preset("pessimistic", 0.0, {}, (table.OPA,)),
    # LensKit's IPSRBP: the self-normalised estimate, patience 0.85, the
    # recommendation list in its given order.
    "lenskit": Preset(
        "first",
        0.0,
        {},
        (table.IPS_RBP,),
        measure_options={table.IPS_RBP: {"estimator": "snips", "p": 0.85}},
    ),
    # BEIR (pytrec_eval underneath): trec_eval's rules. Ties go by document
    # id there; from arrays, "first" on rows sorted by document id descending.
    "beir": Preset(
        "first",
        0.0,
        {"gain": "linear", "denominator": "R"},
        (_NDCG, _MAP, _RECALL, _PRECISION, table.CAPPED_RECALL, _MRR),
    ),
    # Spark's RankingMetrics on ranked lists: rank = position, precision@k
    # divided by k, MAP@k by min(k, R), 2**rel - 1 gains, empty ground truth 0.
    "spark": Preset(
        "first",
        0.0,
        {"gain": "exponential", "denominator": "min_k"},
        (_NDCG, _MAP, _PRECISION, _RECALL),
    ),
}
#: Another library's rules, as skirm's options.
CONVENTIONS = Param("conventions", OneOf(*PRESETS))


def apply_conventions(name, bound, ties, no_relevant):
    """``(bound, ties, no_relevant)`` with the preset ``name`` applied.

    The preset fills the arguments left at their defaults (``ties="average"``,
    ``no_relevant=0.0``) and the metric options not bound by the caller.
    """
    from skirm.metrics._registry import get_metric

    preset = PRESETS[CONVENTIONS(name)]
    out = {}
    for label, metric in bound.items():
        if not _covers(preset, metric):
            shown = metric.name if label == "score" else label
            raise InvalidParameterError(
                f"conventions={name!r} reproduces {_covered(preset)} only; "
                f"{shown!r} has no {name} counterpart"
            )
        wanted = {
            **preset.options,
            **(preset.measure_options or {}).get(metric.spec.measure, {}),
        }
        options = {
            key: value
            for key, value in wanted.items()
            if key in metric.spec.params and key not in metric._given
        }
        out[label] = get_metric(metric, **options) if options else metric
    ties = preset.ties if ties == "average" else ties
    no_relevant = preset.no_relevant if no_relevant == 0.0 else no_relevant
    return out, ties, no_relevant


def _covers(preset, metric):
    measure = metric.spec.measure
    if measure in preset.metrics:
        return True
    return measure in preset.without_cutoff and metric.k is None


def _covered(preset):
    covered = [m.name for m in preset.metrics]
    covered[1:1] = [f"{m.name} (without a cutoff)" for m in preset.without_cutoff]
    return ", ".join(covered)


def not_retrieved(name, bound, scores) -> list:
    """The labels of the bound metrics for which preset ``name``'s library
    counts a row scored <= 0 as not retrieved (torchmetrics since 1.8: MAP,
    MRR, precision and recall), when ``scores`` hold such a row; else []."""
    preset = PRESETS[name]
    if not preset.positive_scores or scores.shape[0] == 0 or np.min(scores) > 0:
        return []
    return [
        label for label, m in bound.items() if m.spec.measure in preset.positive_scores
    ]


def weighted_mean_rules(name, metric) -> tuple[bool, bool]:
    """How preset ``name``'s library takes the weighted mean of ``metric``:
    ``(unweighted_empty, capped)``, whether a query without relevant rows
    adds its value unweighted (LightGBM's and XGBoost's ndcg), and whether
    the mean is capped at 1 (XGBoost)."""
    if name is None:
        return False, False
    preset = PRESETS[name]
    return metric.spec.measure in preset.unweighted_empty, preset.capped
