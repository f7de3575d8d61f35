"""Model inspection for rankers: permutation importance within queries."""

from skirm.inspection._permutation import permutation_importance

__all__ = ["permutation_importance"]
