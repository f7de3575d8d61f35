"""Comparing systems: paired tests, intervals and corrections on per-query values.

:func:`paired_test` tests two systems on one metric; :func:`compare` takes
several :class:`~skirm.metrics.EvaluationResult` objects and returns a
:class:`Comparison` with every test, interval and correction, ready to print
as a table, Markdown or LaTeX; :func:`confidence_intervals` and
:func:`describe` give one system's intervals. See :ref:`comparing_systems`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.stats._agreement import (
        AgreementResult as AgreementResult,
        label_agreement as label_agreement,
    )
    from skirm.stats._compare import (
        compare as compare,
    )
    from skirm.stats._correction import (
        adjust_pvalues as adjust_pvalues,
    )
    from skirm.stats._cv import (
        cross_val_evaluate as cross_val_evaluate,
    )
    from skirm.stats._intervals import (
        confidence_intervals as confidence_intervals,
        describe as describe,
    )
    from skirm.stats._meta import (
        MetaAnalysisResult as MetaAnalysisResult,
        meta_analysis as meta_analysis,
    )
    from skirm.stats._paired import (
        PairedTestResult as PairedTestResult,
        paired_test as paired_test,
    )
    from skirm.stats._power import (
        PowerResult as PowerResult,
        minimum_detectable_effect as minimum_detectable_effect,
        power as power,
        sample_size as sample_size,
    )
    from skirm.stats._ppi_budget import (
        GoldBudget as GoldBudget,
        ppi_sample_size as ppi_sample_size,
    )
    from skirm.stats._ppi_compare import (
        PPIComparison as PPIComparison,
        ppi_compare as ppi_compare,
    )
    from skirm.stats._ppi_mean import (
        PPIResult as PPIResult,
        ppi_mean as ppi_mean,
    )
    from skirm.stats._ppi_rows import (
        ppi_evaluate as ppi_evaluate,
    )
    from skirm.stats._ppi_select import (
        select_gold_queries as select_gold_queries,
    )
    from skirm.stats._report import (
        Comparison as Comparison,
    )
    from skirm.stats._systems import (
        SystemAgreementResult as SystemAgreementResult,
        system_agreement as system_agreement,
    )
    from skirm.stats._tukey import (
        TukeyHSDResult as TukeyHSDResult,
        tukey_hsd as tukey_hsd,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
