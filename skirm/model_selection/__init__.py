"""Splitters that keep every query whole, on scikit-learn's BaseCrossValidator."""

from skirm.model_selection._split import (
    QueryGroupKFold,
    QueryGroupShuffleSplit,
    RepeatedQueryGroupKFold,
    train_test_split_groups,
)

__all__ = [
    "QueryGroupKFold",
    "QueryGroupShuffleSplit",
    "RepeatedQueryGroupKFold",
    "train_test_split_groups",
]
