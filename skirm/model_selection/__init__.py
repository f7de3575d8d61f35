"""Splitters that keep every query whole, and halving searches over queries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.model_selection._halving import (
        QueryHalvingGridSearchCV as QueryHalvingGridSearchCV,
        QueryHalvingRandomSearchCV as QueryHalvingRandomSearchCV,
    )
    from skirm.model_selection._shuffle import (
        QueryGroupShuffleSplit as QueryGroupShuffleSplit,
        train_test_split_groups as train_test_split_groups,
    )
    from skirm.model_selection._split import (
        QueryGroupKFold as QueryGroupKFold,
        RepeatedQueryGroupKFold as RepeatedQueryGroupKFold,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
