"""skirm: information-retrieval and learning-to-rank metrics for scikit-learn.

Metric functions live in :mod:`skirm.metrics` and are re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

__version__ = "0.1.0.dev0"

if TYPE_CHECKING:
    from skirm._errors import (
        InvalidInputError,
        InvalidParameterError,
        MissingDependencyError,
        SkirmError,
    )
    from skirm.metrics import (
        EvaluationResult,
        Metric,
        RankingScorer,
        capped_recall_at_k_score,
        cumulative_gain_score,
        dcg_score,
        evaluate,
        expected_reciprocal_rank_score,
        f1_at_k_score,
        get_metric,
        get_scorer,
        get_scorer_names,
        hit_rate_at_k_score,
        make_ranking_scorer,
        mean_average_precision_score,
        mean_reciprocal_rank_score,
        metric_names,
        ndcg_score,
        precision_at_k_score,
        r_precision_score,
        rank_biased_precision_score,
        recall_at_k_score,
    )


__getattr__, __dir__, __all__ = lazy_exports(
    "skirm",
    {
        "skirm._errors": (
            "InvalidInputError",
            "InvalidParameterError",
            "MissingDependencyError",
            "SkirmError",
        ),
        "skirm.metrics": (
            "EvaluationResult",
            "Metric",
            "RankingScorer",
            "capped_recall_at_k_score",
            "cumulative_gain_score",
            "dcg_score",
            "evaluate",
            "expected_reciprocal_rank_score",
            "f1_at_k_score",
            "get_metric",
            "get_scorer",
            "get_scorer_names",
            "hit_rate_at_k_score",
            "make_ranking_scorer",
            "mean_average_precision_score",
            "mean_reciprocal_rank_score",
            "metric_names",
            "ndcg_score",
            "precision_at_k_score",
            "r_precision_score",
            "rank_biased_precision_score",
            "recall_at_k_score",
        ),
    },
    defined=("__version__",),
)
