"""trec_eval-exact evaluation of TREC runs.

:func:`evaluate_run` evaluates a run against qrels with trec_eval 10.0's
semantics, or 9.0.x's with ``compat="9.0"`` (ties by docno, R and the ideal
DCG from the qrels, ``-l``, ``-J``, ``-M``, ``-c``) on the same ranking engine
as :func:`skirm.metrics.evaluate`.
Files are read with :mod:`skirm.io`; dicts of dicts, DataFrames and tuples
are taken directly. :class:`RelevanceEvaluator` is a drop-in for
pytrec_eval's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm._errors import (
        DuplicateDocnoError,
        EmptyRunError,
        MeasureParameterError,
        MissingQueriesError,
        NoCommonQueryError,
    )
    from skirm._measures._names import trec_measure_names
    from skirm.trec._diversity import evaluate_diversity, format_ndeval
    from skirm.trec._evaluate import evaluate_run
    from skirm.trec._pytrec import RelevanceEvaluator
    from skirm.trec._zscores import ZScores, read_zscores

__getattr__, __dir__, __all__ = lazy_exports(
    "skirm.trec",
    {
        "skirm._errors": (
            "DuplicateDocnoError",
            "EmptyRunError",
            "MeasureParameterError",
            "MissingQueriesError",
            "NoCommonQueryError",
        ),
        "skirm._measures._names": ("trec_measure_names",),
        "skirm.trec._diversity": ("evaluate_diversity", "format_ndeval"),
        "skirm.trec._evaluate": ("evaluate_run",),
        "skirm.trec._pytrec": ("RelevanceEvaluator",),
        "skirm.trec._zscores": ("ZScores", "read_zscores"),
    },
)
