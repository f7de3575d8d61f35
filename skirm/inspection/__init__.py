"""Model inspection for rankers: permutation importance within queries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.inspection._permutation import (
        permutation_importance as permutation_importance,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
