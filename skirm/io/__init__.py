"""Reading and writing TREC files: qrels, runs.

:func:`read_qrels` and :func:`read_run` return light column-oriented records
(:class:`Qrels`, :class:`Run`) that :func:`skirm.trec.evaluate_run` takes;
:func:`write_run` turns a model's scores into a run file.
"""

from skirm.io._prefs import (
    Prefs,
    QrelsJG,
    read_prefs,
    read_qrels_jg,
    read_qrels_prefs,
)
from skirm.io._trec import Qrels, Run, read_qrels, read_run, write_run

__all__ = [
    "Prefs",
    "Qrels",
    "QrelsJG",
    "Run",
    "read_prefs",
    "read_qrels",
    "read_qrels_jg",
    "read_qrels_prefs",
    "read_run",
    "write_run",
]
