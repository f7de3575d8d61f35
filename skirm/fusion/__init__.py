"""Fusion of several retrievers' scores: per-query normalisations and the
fusion methods, on flat rows with the query of each row.

:func:`fuse_scores` fuses a matrix of scores (one column per retriever, NaN
where it did not return the row); :func:`normalize_scores` normalises it.
The same kernels serve :class:`skirm.ranker.FusionRanker` (fusion as an
estimator, with weights learnt on a metric) and :func:`skirm.trec.fuse`
(runs in, a run out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.fusion._matrix import (
        fuse_scores as fuse_scores,
        normalize_scores as normalize_scores,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
