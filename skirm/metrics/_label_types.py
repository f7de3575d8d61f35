"""Type aliases of the metric inputs, for type checkers and editors.

Imported under ``TYPE_CHECKING`` only, like :mod:`skirm._typing`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set as AbstractSet
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from skirm._engine import RankedLists

__all__ = ["Labels"]

#: ``y_true`` of a metric: relevance labels (flat or 2-D, any array-like);
#: the ground truth of ranked id lists, one relevant set or ``{id: grade}``
#: dict per query (the lists then come as ``y_score``); or the
#: :class:`~skirm.metrics.RankedLists` of :func:`~skirm.metrics.from_lists`
#: (``y_score=None``).
Labels: TypeAlias = (
    "ArrayLike | RankedLists"
    " | Sequence[AbstractSet[Any]] | Sequence[Mapping[Any, float]]"
)
