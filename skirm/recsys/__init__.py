"""Recommender evaluation beyond accuracy, and agreement between rankings.

Corpus-level metrics that need item information (catalog coverage, Gini index
of exposure, novelty, intra-list diversity, average popularity) and measures
of agreement between two rankings (rank-biased overlap, Kendall's tau,
tau-AP). Accuracy metrics of ranked lists are in :mod:`skirm.metrics`
(:func:`skirm.metrics.from_lists`).
"""

from skirm.recsys._agreement import kendall_tau, rank_biased_overlap, tau_ap
from skirm.recsys._beyond import (
    average_popularity,
    catalog_coverage,
    gini_index,
    intra_list_diversity,
    novelty,
)

__all__ = [
    "average_popularity",
    "catalog_coverage",
    "gini_index",
    "intra_list_diversity",
    "kendall_tau",
    "novelty",
    "rank_biased_overlap",
    "tau_ap",
]
