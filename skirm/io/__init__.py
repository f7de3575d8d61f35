"""Reading and writing TREC files: qrels, runs.

:func:`read_qrels` and :func:`read_run` return light column-oriented records
(:class:`Qrels`, :class:`Run`) that :func:`skirm.trec.evaluate_run` takes;
:func:`write_run` turns a model's scores into a run file.
:func:`as_qrels` and :func:`as_run` build them from the shapes other tools
use: dicts of dicts, DataFrames, tuples, ir_datasets datasets, ranx's
objects; :func:`as_qrels_jg` builds subtopic judgments (:class:`QrelsJG`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm._errors import (
        RunNotGroupedError as RunNotGroupedError,
        TrecFormatError as TrecFormatError,
    )
    from skirm.io._convert import (
        as_qrels as as_qrels,
        as_run as as_run,
    )
    from skirm.io._prefs import (
        Prefs as Prefs,
        QrelsJG as QrelsJG,
        read_prefs as read_prefs,
        read_qrels_jg as read_qrels_jg,
        read_qrels_prefs as read_qrels_prefs,
    )
    from skirm.io._records import (
        Qrels as Qrels,
        Run as Run,
    )
    from skirm.io._subtopics import (
        as_qrels_jg as as_qrels_jg,
    )
    from skirm.io._trec_files import (
        read_qrels as read_qrels,
        read_run as read_run,
        write_run as write_run,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
