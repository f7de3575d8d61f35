"""Reading and writing TREC files: qrels, runs.

:func:`read_qrels` and :func:`read_run` return light column-oriented records
(:class:`Qrels`, :class:`Run`) that :func:`skirm.trec.evaluate_run` takes;
:func:`write_run` turns a model's scores into a run file.
:func:`as_qrels` and :func:`as_run` build them from the shapes other tools
use: dicts of dicts, DataFrames, tuples, ir_datasets datasets.
"""

from skirm._errors import RunNotGroupedError, TrecFormatError
from skirm.io._convert import as_qrels, as_run
from skirm.io._prefs import (
    Prefs,
    QrelsJG,
    read_prefs,
    read_qrels_jg,
    read_qrels_prefs,
)
from skirm.io._records import Qrels, Run
from skirm.io._trec import read_qrels, read_run, write_run

__all__ = [
    "Prefs",
    "Qrels",
    "QrelsJG",
    "Run",
    "RunNotGroupedError",
    "TrecFormatError",
    "as_qrels",
    "as_run",
    "read_prefs",
    "read_qrels",
    "read_qrels_jg",
    "read_qrels_prefs",
    "read_run",
    "write_run",
]
