"""Recommender evaluation beyond accuracy, and agreement between rankings.

Corpus-level metrics that need item information (catalog coverage, Gini index
of exposure, novelty, intra-list diversity, average popularity) and measures
of agreement between two rankings (rank-biased overlap, Kendall's tau,
tau-AP). Accuracy metrics of ranked lists are in :mod:`skirm.metrics`
(:func:`skirm.metrics.from_lists`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.recsys._beyond import (
        average_popularity as average_popularity,
        catalog_coverage as catalog_coverage,
        gini_index as gini_index,
        intra_list_diversity as intra_list_diversity,
        novelty as novelty,
    )
    from skirm.recsys._ranking_agreement import (
        kendall_tau as kendall_tau,
        rank_biased_overlap as rank_biased_overlap,
        tau_ap as tau_ap,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
