"""Evaluation of rows held in Dask collections, on skirm's numpy engine.

Requires dask[dataframe] and pandas (``pip install skirm[dask]``); they are
imported when a function is called, so that importing this module does not.
"""

from skirm.dask._evaluate import evaluate, per_query_frame
from skirm.dask._trec import evaluate_run

__all__ = ["evaluate", "evaluate_run", "per_query_frame"]
