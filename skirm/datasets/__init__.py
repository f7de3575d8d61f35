"""Data for learning-to-rank: a seeded synthetic generator and a file loader."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.datasets._svmlight import (
        load_svmlight_ranking as load_svmlight_ranking,
    )
    from skirm.datasets._synthetic import (
        make_ranking as make_ranking,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
