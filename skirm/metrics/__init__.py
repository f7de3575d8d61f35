"""Ranking metrics computed per query and averaged, in scikit-learn's shape.

Every function takes flat ``y_true`` and ``y_score`` plus ``groups``, one query
label per row (or 2-D arrays with one query per row), and returns a Python
float: the mean over queries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm._engine import RankedLists, from_lists
    from skirm._errors import UnknownMeasureError
    from skirm.metrics._accuracy import accuracy_score
    from skirm.metrics._compat import compatibility_score
    from skirm.metrics._counts import (
        capped_recall_at_k_score,
        f1_at_k_score,
        precision_at_k_score,
        r_precision_score,
        recall_at_k_score,
    )
    from skirm.metrics._cwl import cwl_report
    from skirm.metrics._cwl_measures import (
        bpm_score,
        insq_score,
        inst_score,
        nerr8_score,
        nerr9_score,
        nerr10_score,
        nerr11_score,
        sdcg_score,
    )
    from skirm.metrics._dcg import cumulative_gain_score, dcg_score, ndcg_score
    from skirm.metrics._diversity_measures import (
        alpha_dcg_score,
        alpha_ndcg_score,
        diversity_report,
        err_ia_score,
        map_ia_score,
        nerr_ia_score,
        nnrbp_score,
        nrbp_score,
        precision_ia_score,
        subtopic_recall_score,
    )
    from skirm.metrics._err import expected_reciprocal_rank_score
    from skirm.metrics._evaluate import evaluate
    from skirm.metrics._get_scorer import get_scorer, get_scorer_names
    from skirm.metrics._judged import judged_at_k_score
    from skirm.metrics._positions import (
        hit_rate_at_k_score,
        mean_average_precision_score,
        mean_reciprocal_rank_score,
        rank_biased_precision_score,
    )
    from skirm.metrics._registry import Metric, get_metric, metric_names
    from skirm.metrics._result import EvaluationResult
    from skirm.metrics._scorer import (
        RankingScorer,
        make_ranking_scorer,
    )

__getattr__, __dir__, __all__ = lazy_exports(
    "skirm.metrics",
    {
        "skirm._engine": ("RankedLists", "from_lists"),
        "skirm._errors": ("UnknownMeasureError",),
        "skirm.metrics._accuracy": ("accuracy_score",),
        "skirm.metrics._compat": ("compatibility_score",),
        "skirm.metrics._counts": (
            "capped_recall_at_k_score",
            "f1_at_k_score",
            "precision_at_k_score",
            "r_precision_score",
            "recall_at_k_score",
        ),
        "skirm.metrics._cwl": ("cwl_report",),
        "skirm.metrics._cwl_measures": (
            "bpm_score",
            "insq_score",
            "inst_score",
            "nerr8_score",
            "nerr9_score",
            "nerr10_score",
            "nerr11_score",
            "sdcg_score",
        ),
        "skirm.metrics._dcg": ("cumulative_gain_score", "dcg_score", "ndcg_score"),
        "skirm.metrics._diversity_measures": (
            "alpha_dcg_score",
            "alpha_ndcg_score",
            "diversity_report",
            "err_ia_score",
            "map_ia_score",
            "nerr_ia_score",
            "nnrbp_score",
            "nrbp_score",
            "precision_ia_score",
            "subtopic_recall_score",
        ),
        "skirm.metrics._err": ("expected_reciprocal_rank_score",),
        "skirm.metrics._evaluate": ("evaluate",),
        "skirm.metrics._get_scorer": ("get_scorer", "get_scorer_names"),
        "skirm.metrics._judged": ("judged_at_k_score",),
        "skirm.metrics._positions": (
            "hit_rate_at_k_score",
            "mean_average_precision_score",
            "mean_reciprocal_rank_score",
            "rank_biased_precision_score",
        ),
        "skirm.metrics._registry": ("Metric", "get_metric", "metric_names"),
        "skirm.metrics._result": ("EvaluationResult",),
        "skirm.metrics._scorer": ("RankingScorer", "make_ranking_scorer"),
    },
)
