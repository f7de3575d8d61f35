"""Learning-to-rank models and adapters for scikit-learn's model selection."""

from skirm.ranker._pairwise import PairwiseRanker
from skirm.ranker._query import QueryRanker

__all__ = ["PairwiseRanker", "QueryRanker"]
