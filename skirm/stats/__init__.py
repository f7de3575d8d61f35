"""Comparing systems: paired tests, intervals and corrections on per-query values.

:func:`paired_test` tests two systems on one metric; :func:`compare` takes
several :class:`~skirm.metrics.EvaluationResult` objects and returns a
:class:`Comparison` with every test, interval and correction, ready to print
as a table, Markdown or LaTeX; :func:`confidence_intervals` and
:func:`describe` give one system's intervals. See :ref:`comparing_systems`.
"""

from skirm.stats._compare import compare
from skirm.stats._correction import adjust_pvalues
from skirm.stats._cv import cross_val_evaluate
from skirm.stats._intervals import confidence_intervals, describe
from skirm.stats._paired import PairedTestResult, paired_test
from skirm.stats._report import Comparison
from skirm.stats._tukey import TukeyHSDResult, tukey_hsd

__all__ = [
    "Comparison",
    "PairedTestResult",
    "TukeyHSDResult",
    "adjust_pvalues",
    "compare",
    "confidence_intervals",
    "cross_val_evaluate",
    "describe",
    "paired_test",
    "tukey_hsd",
]
