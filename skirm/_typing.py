"""Type aliases of the public signatures, for type checkers and editors.

The modules of skirm import these names under ``TYPE_CHECKING`` only: their
annotations stay strings at run time (``from __future__ import
annotations``), so typing costs no import. The option values spelled out
here are the ones the argument checks accept; the numpydoc docstrings
remain the user-facing description of each parameter.
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING, Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from dask.array import Array as DaskArray
    from dask.dataframe import Series as DaskSeries
    from scipy.sparse import sparray, spmatrix

__all__ = [
    "ArrayLike",
    "Conventions",
    "DaskColumn",
    "FloatArray",
    "FusionMethod",
    "FusionNorm",
    "Gain",
    "MatrixLike",
    "NDArray",
    "NoRelevant",
    "PathOrFile",
    "RandomState",
    "ResponseMethod",
    "Seed",
    "Ties",
    "Unjudged",
]

#: How rows with equal scores are ordered within a query.
Ties: TypeAlias = Literal["average", "first", "optimistic", "pessimistic"]

#: The value of a query without any relevant row: a number in [0, 1], or
#: leave the query out of the mean, or raise.
NoRelevant: TypeAlias = float | Literal["skip", "raise"]

#: What a NaN label (an unjudged row) means.
Unjudged: TypeAlias = Literal["raise", "nonrelevant", "condensed"]

#: The gain of a label: the label itself, or ``2 ** label - 1``.
Gain: TypeAlias = Literal["linear", "exponential"]

#: A fusion method of :mod:`skirm.fusion`: the rank methods, then the score
#: methods.
FusionMethod: TypeAlias = Literal[
    "rrf", "isr", "borda", "rbc", "combsum", "combmnz", "combmax", "combmin", "combanz"
]

#: A per-query normalisation of :mod:`skirm.fusion`.
FusionNorm: TypeAlias = Literal[
    "min-max", "max", "sum", "zscore", "rank", "borda", "none"
]

#: The presets reproducing another library's numbers.
Conventions: TypeAlias = Literal[
    "sklearn",
    "lightgbm",
    "xgboost",
    "torchmetrics",
    "beir",
    "spark",
    "torchrec",
    "tf_ranking",
    "lenskit",
]

#: The estimator methods a scorer or a display asks for scores, or several
#: in order of preference.
ResponseMethod: TypeAlias = (
    Literal["auto", "predict", "decision_function", "predict_proba"]
    | list[Literal["predict", "decision_function", "predict_proba"]]
    | tuple[Literal["predict", "decision_function", "predict_proba"], ...]
)

#: scikit-learn's seed: what :func:`sklearn.utils.check_random_state` takes.
RandomState: TypeAlias = int | np.random.RandomState | None

#: The seed of the statistics: a non-negative int, a numpy Generator, or
#: None (a fresh seed, recorded in the result).
Seed: TypeAlias = int | np.random.Generator | None

#: A path (``.gz`` read transparently) or an open file, text or binary.
PathOrFile: TypeAlias = str | os.PathLike[str] | IO[str] | IO[bytes]

#: Features: any array-like (a DataFrame too) or a scipy sparse matrix.
MatrixLike: TypeAlias = "ArrayLike | spmatrix | sparray"

#: A float64 array.
FloatArray: TypeAlias = NDArray[np.float64]

#: A column of rows held by Dask: a Dask Series or a 1-D Dask array.
DaskColumn: TypeAlias = "DaskSeries | DaskArray"
