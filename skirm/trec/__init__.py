"""trec_eval-exact evaluation of TREC runs.

:func:`evaluate_run` evaluates a run against qrels with trec_eval 10.0's
semantics, or 9.0.x's with ``compat="9.0"`` (ties by docno, R and the ideal
DCG from the qrels, ``-l``, ``-J``, ``-M``, ``-c``) on the same ranking engine
as :func:`skirm.metrics.evaluate`.
Files are read with :mod:`skirm.io`; dicts of dicts, DataFrames and tuples
are taken directly. :class:`RelevanceEvaluator` is a drop-in for
pytrec_eval's (with its module's :func:`parse_qrel`, :func:`parse_run`,
:func:`compute_aggregated_measure`, ``supported_measures`` and
``supported_nicknames``); :func:`calc_aggregate`, :func:`iter_calc`, :func:`calc` and
:func:`evaluator` for ir_measures' (ties ordered as its providers order
them), and :func:`register_ir_measures_provider` makes skirm an ir_measures
provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm._errors import (
        DuplicateDocnoError as DuplicateDocnoError,
        EmptyRunError as EmptyRunError,
        MeasureParameterError as MeasureParameterError,
        MissingQueriesError as MissingQueriesError,
        NoCommonQueryError as NoCommonQueryError,
    )
    from skirm._measures._names import (
        trec_measure_names as trec_measure_names,
    )
    from skirm.io._zscores import (
        ZScores as ZScores,
        read_zscores as read_zscores,
    )
    from skirm.trec._evaluate_run import (
        evaluate_run as evaluate_run,
    )
    from skirm.trec._fuse import (
        TunedFusion as TunedFusion,
        fuse as fuse,
        tune_fusion as tune_fusion,
    )
    from skirm.trec._ir_measures import (
        CalcResults as CalcResults,
        Evaluator as Evaluator,
        QueryValue as QueryValue,
        calc as calc,
        calc_aggregate as calc_aggregate,
        evaluator as evaluator,
        iter_calc as iter_calc,
    )
    from skirm.trec._ir_provider import (
        register_ir_measures_provider as register_ir_measures_provider,
    )
    from skirm.trec._ndeval_report import (
        OneSubtopicWarning as OneSubtopicWarning,
        evaluate_diversity as evaluate_diversity,
        format_ndeval as format_ndeval,
    )
    from skirm.trec._pytrec import (
        RelevanceEvaluator as RelevanceEvaluator,
        supported_measures as supported_measures,
        supported_nicknames as supported_nicknames,
    )
    from skirm.trec._pytrec_functions import (
        compute_aggregated_measure as compute_aggregated_measure,
        parse_qrel as parse_qrel,
        parse_run as parse_run,
    )

#: Names that changed: still importable, with a FutureWarning.
_RENAMED = {"Metric": "QueryValue"}

__getattr__, __dir__ = lazy_exports(__name__, __file__, renamed=_RENAMED)
