"""skirm: information-retrieval and learning-to-rank metrics for scikit-learn.

Metric functions live in :mod:`skirm.metrics` and are re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

__version__ = "0.1.0.dev0"

if TYPE_CHECKING:
    from skirm._errors import (
        InvalidInputError as InvalidInputError,
        InvalidParameterError as InvalidParameterError,
        MissingDependencyError as MissingDependencyError,
        SkirmError as SkirmError,
    )
    from skirm.metrics import (
        EvaluationResult as EvaluationResult,
        Metric as Metric,
        RankingScorer as RankingScorer,
        capped_recall_at_k_score as capped_recall_at_k_score,
        cumulative_gain_score as cumulative_gain_score,
        dcg_score as dcg_score,
        evaluate as evaluate,
        expected_reciprocal_rank_score as expected_reciprocal_rank_score,
        f1_at_k_score as f1_at_k_score,
        get_metric as get_metric,
        get_scorer as get_scorer,
        get_scorer_names as get_scorer_names,
        hit_rate_at_k_score as hit_rate_at_k_score,
        make_ranking_scorer as make_ranking_scorer,
        mean_average_precision_score as mean_average_precision_score,
        mean_reciprocal_rank_score as mean_reciprocal_rank_score,
        metric_names as metric_names,
        ndcg_score as ndcg_score,
        precision_at_k_score as precision_at_k_score,
        r_precision_score as r_precision_score,
        rank_biased_precision_score as rank_biased_precision_score,
        recall_at_k_score as recall_at_k_score,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__, defined=("__version__",))
