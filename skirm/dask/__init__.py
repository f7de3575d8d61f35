"""Evaluation of rows held in Dask collections, on skirm's numpy engine.

Requires dask[dataframe] and pandas (``pip install skirm[dask]``); they are
imported when a function is called, so that importing this module does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skirm._lazy import lazy_exports

if TYPE_CHECKING:
    from skirm.dask._row_partitions import (
        evaluate as evaluate,
        per_query_frame as per_query_frame,
    )
    from skirm.dask._run_partitions import (
        evaluate_run as evaluate_run,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)
