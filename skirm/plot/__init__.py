"""Ranking displays in scikit-learn's Display API (matplotlib, optional).

Each display is built by a ``from_*`` class method that computes its values
through :mod:`skirm.metrics` (or :func:`skirm.trec.evaluate_run`) and draws
them; ``plot(ax=...)`` redraws, and several systems share one axes by
passing ``ax=display.ax_``. matplotlib is imported when a display draws:
``pip install skirm[plot]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.plot._comparison import (
        ComparisonDisplay as ComparisonDisplay,
    )
    from skirm.plot._meta_analysis import (
        MetaAnalysisDisplay as MetaAnalysisDisplay,
    )
    from skirm.plot._metric_at_k import (
        MetricAtKDisplay as MetricAtKDisplay,
    )
    from skirm.plot._per_query import (
        PerQueryDisplay as PerQueryDisplay,
    )
    from skirm.plot._power_curve import (
        PowerCurveDisplay as PowerCurveDisplay,
    )
    from skirm.plot._ppi_width import (
        PPIWidthDisplay as PPIWidthDisplay,
    )
    from skirm.plot._precision_recall import (
        PrecisionRecallDisplay as PrecisionRecallDisplay,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
