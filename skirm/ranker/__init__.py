"""Learning-to-rank models and adapters for scikit-learn's model selection."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.ranker._eval_metric import (
        EvalMetric as EvalMetric,
        make_eval_metric as make_eval_metric,
    )
    from skirm.ranker._fusion import (
        FusionRanker as FusionRanker,
    )
    from skirm.ranker._pairwise import (
        PairwiseRanker as PairwiseRanker,
    )
    from skirm.ranker._query import (
        QueryRanker as QueryRanker,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
