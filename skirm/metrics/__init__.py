"""Ranking metrics computed per query and averaged, in scikit-learn's shape.

Every function takes flat ``y_true`` and ``y_score`` plus ``groups``, one query
label per row (or 2-D arrays with one query per row), and returns a Python
float: the mean over queries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm._engine import (
        RankedLists as RankedLists,
        from_lists as from_lists,
    )
    from skirm._errors import (
        UnknownMeasureError as UnknownMeasureError,
    )
    from skirm.metrics._accumulator import (
        MetricAccumulator as MetricAccumulator,
    )
    from skirm.metrics._accuracy import (
        accuracy_score as accuracy_score,
    )
    from skirm.metrics._auc import (
        average_relevance_position_loss as average_relevance_position_loss,
        fallout_loss as fallout_loss,
        group_auc_score as group_auc_score,
        ordered_pair_accuracy_score as ordered_pair_accuracy_score,
    )
    from skirm.metrics._calibration import (
        expected_calibration_error as expected_calibration_error,
        normalized_entropy_loss as normalized_entropy_loss,
        predicted_to_observed_ratio as predicted_to_observed_ratio,
    )
    from skirm.metrics._compat import (
        compatibility_score as compatibility_score,
    )
    from skirm.metrics._counts import (
        capped_recall_at_k_score as capped_recall_at_k_score,
        f1_at_k_score as f1_at_k_score,
        precision_at_k_score as precision_at_k_score,
        r_precision_score as r_precision_score,
        recall_at_k_score as recall_at_k_score,
    )
    from skirm.metrics._curves import (
        recall_at_fixed_precision as recall_at_fixed_precision,
    )
    from skirm.metrics._cwl import (
        cwl_report as cwl_report,
    )
    from skirm.metrics._cwl_measures import (
        bpm_score as bpm_score,
        insq_score as insq_score,
        inst_score as inst_score,
        nerr8_score as nerr8_score,
        nerr9_score as nerr9_score,
        nerr10_score as nerr10_score,
        nerr11_score as nerr11_score,
        sdcg_score as sdcg_score,
    )
    from skirm.metrics._dcg import (
        cumulative_gain_score as cumulative_gain_score,
        dcg_score as dcg_score,
        ndcg_score as ndcg_score,
    )
    from skirm.metrics._diversity_measures import (
        alpha_dcg_score as alpha_dcg_score,
        alpha_ndcg_score as alpha_ndcg_score,
        diversity_report as diversity_report,
        err_ia_score as err_ia_score,
        map_ia_score as map_ia_score,
        nerr_ia_score as nerr_ia_score,
        nnrbp_score as nnrbp_score,
        nrbp_score as nrbp_score,
        precision_ia_score as precision_ia_score,
        subtopic_recall_score as subtopic_recall_score,
    )
    from skirm.metrics._err import (
        expected_reciprocal_rank_score as expected_reciprocal_rank_score,
    )
    from skirm.metrics._evaluate import (
        evaluate as evaluate,
    )
    from skirm.metrics._get_scorer import (
        get_scorer as get_scorer,
        get_scorer_names as get_scorer_names,
    )
    from skirm.metrics._judged import (
        judged_at_k_score as judged_at_k_score,
    )
    from skirm.metrics._positions import (
        hit_rate_at_k_score as hit_rate_at_k_score,
        mean_average_precision_score as mean_average_precision_score,
        mean_reciprocal_rank_score as mean_reciprocal_rank_score,
        rank_biased_precision_score as rank_biased_precision_score,
    )
    from skirm.metrics._propensities import (
        item_counts as item_counts,
        jain_propensity as jain_propensity,
        popularity_propensity as popularity_propensity,
        position_propensity as position_propensity,
    )
    from skirm.metrics._propensity import (
        ips_dcg_score as ips_dcg_score,
        ips_precision_at_k_score as ips_precision_at_k_score,
        ips_rbp_score as ips_rbp_score,
        ips_recall_at_k_score as ips_recall_at_k_score,
        propensity_scored_ndcg_score as propensity_scored_ndcg_score,
        propensity_scored_precision_score as propensity_scored_precision_score,
    )
    from skirm.metrics._registry import (
        Metric as Metric,
        get_metric as get_metric,
        metric_names as metric_names,
    )
    from skirm.metrics._result import (
        EvaluationResult as EvaluationResult,
    )
    from skirm.metrics._scorer import (
        RankingScorer as RankingScorer,
        make_ranking_scorer as make_ranking_scorer,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
