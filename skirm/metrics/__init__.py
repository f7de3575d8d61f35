"""Ranking metrics computed per query and averaged, in scikit-learn's shape.

Every function takes flat ``y_true`` and ``y_score`` plus ``groups``, one query
label per row (or 2-D arrays with one query per row), and returns a Python
float: the mean over queries.
"""

from skirm._engine import RankedLists, from_lists
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

__all__ = [
    "EvaluationResult",
    "Metric",
    "RankedLists",
    "RankingScorer",
    "accuracy_score",
    "alpha_dcg_score",
    "alpha_ndcg_score",
    "bpm_score",
    "capped_recall_at_k_score",
    "compatibility_score",
    "cumulative_gain_score",
    "cwl_report",
    "dcg_score",
    "diversity_report",
    "err_ia_score",
    "evaluate",
    "expected_reciprocal_rank_score",
    "f1_at_k_score",
    "from_lists",
    "get_metric",
    "get_scorer",
    "get_scorer_names",
    "hit_rate_at_k_score",
    "insq_score",
    "inst_score",
    "judged_at_k_score",
    "make_ranking_scorer",
    "map_ia_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "metric_names",
    "ndcg_score",
    "nerr8_score",
    "nerr9_score",
    "nerr10_score",
    "nerr11_score",
    "nerr_ia_score",
    "nnrbp_score",
    "nrbp_score",
    "precision_at_k_score",
    "precision_ia_score",
    "r_precision_score",
    "rank_biased_precision_score",
    "recall_at_k_score",
    "sdcg_score",
    "subtopic_recall_score",
]
