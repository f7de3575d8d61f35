"""Type aliases of the qrels and runs users hold, for type checkers and editors.

Imported under ``TYPE_CHECKING`` only, like :mod:`skirm._typing`: the shapes
:func:`skirm.io.as_qrels` and :func:`skirm.io.as_run` take, and so every
function that converts its ``qrels`` or ``run`` argument with them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

if TYPE_CHECKING:
    from skirm._typing import PathOrFile
    from skirm.io._prefs import QrelsJG
    from skirm.io._records import Qrels, Run

__all__ = ["QrelsDataset", "QrelsJGLike", "QrelsLike", "RunDataset", "RunLike"]


class QrelsDataset(Protocol):
    """A dataset with judgements, such as ir_datasets': ``qrels_iter()``."""

    def qrels_iter(self) -> Iterable[Any]: ...


class RunDataset(Protocol):
    """A dataset with a ranked run, such as ir_datasets':
    ``scoreddocs_iter()``."""

    def scoreddocs_iter(self) -> Iterable[Any]: ...


#: Judgements: a :class:`~skirm.io.Qrels`, a TREC qrels file, a dict of dicts
#: ``{qid: {docid: relevance}}``, a DataFrame or an iterable of
#: ``(qid, docid, relevance)`` tuples, or a dataset.
QrelsLike: TypeAlias = (
    "Qrels | PathOrFile | Mapping[Any, Mapping[Any, float]] | Iterable[Any]"
    " | QrelsDataset"
)

#: A run: a :class:`~skirm.io.Run`, a TREC run file, a dict of dicts
#: ``{qid: {docid: score}}``, a DataFrame or an iterable of
#: ``(qid, docid, score)`` tuples, or a dataset.
RunLike: TypeAlias = (
    "Run | PathOrFile | Mapping[Any, Mapping[Any, float]] | Iterable[Any] | RunDataset"
)

#: Subtopic judgments: a :class:`~skirm.io.QrelsJG`, a file of ``topic
#: subtopic docno judgment`` lines, a dict of dicts of dicts
#: ``{qid: {subtopic: {docid: relevance}}}``, a DataFrame or an iterable of
#: ``(qid, subtopic, docid, relevance)`` tuples or ``Qrel`` named tuples, or
#: a dataset.
QrelsJGLike: TypeAlias = (
    "QrelsJG | PathOrFile | Mapping[Any, Mapping[Any, Any]] | Iterable[Any]"
    " | QrelsDataset"
)
