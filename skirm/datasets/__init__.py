"""Data for learning-to-rank: a seeded synthetic generator."""

from skirm.datasets._synthetic import make_ranking

__all__ = ["make_ranking"]
