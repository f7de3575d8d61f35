"""Splitters that keep every query whole, and halving searches over queries."""

from skirm.model_selection._halving import (
    QueryHalvingGridSearchCV,
    QueryHalvingRandomSearchCV,
)
from skirm.model_selection._shuffle import (
    QueryGroupShuffleSplit,
    train_test_split_groups,
)
from skirm.model_selection._split import QueryGroupKFold, RepeatedQueryGroupKFold

__all__ = [
    "QueryGroupKFold",
    "QueryGroupShuffleSplit",
    "QueryHalvingGridSearchCV",
    "QueryHalvingRandomSearchCV",
    "RepeatedQueryGroupKFold",
    "train_test_split_groups",
]
