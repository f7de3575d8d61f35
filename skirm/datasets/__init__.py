"""Data for learning-to-rank: a seeded synthetic generator and a file loader."""

from skirm.datasets._svmlight import load_svmlight_ranking
from skirm.datasets._synthetic import make_ranking

__all__ = ["load_svmlight_ranking", "make_ranking"]
