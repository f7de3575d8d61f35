"""Blocks of whole queries, ranked and measured on their own, in threads.

Large inputs are cut into blocks of about :data:`BLOCK_ROWS` rows of whole
queries; each block is ranked and measured on its own, so that the arrays of
a block stay in cache and two threads share the work. The blocks do not
depend on the number of threads: neither does any value.
"""

from __future__ import annotations

import numpy as np

from skirm._engine._check import CheckedInput
from skirm._engine._encode import counted_starts
from skirm._engine._rank import rank
from skirm._engine._runs import label_runs
from skirm._engine._threads import share_out
from skirm._validation import check_n_jobs
from skirm.io._keys import stable_code_sort

#: Rows per block of whole queries in :func:`map_query_blocks` (a larger query
#: is a block of its own). Fixed, so that the blocks, and with them every
#: per-query value, are the same for any number of threads.
BLOCK_ROWS = 1 << 17


def in_appearance_order(checked: CheckedInput):
    """``(regrouped, order)`` when each query's rows are together but the
    queries are not in code order (string labels out of label order, integer
    labels not sorted), else None.

    ``regrouped`` holds the same rows, coded by the order in which their
    queries first appear (``group_ids`` in that order, ``starts`` known), so
    that :func:`map_query_blocks` cuts them as they lie: no stable sort of the
    rows by code and no gather of each block's rows. Per-query results in
    that order return to code order as ``values[..., order]``. It costs one
    comparison of each row's code with the next.
    """
    codes = checked.codes
    n_groups = checked.group_ids.shape[0]
    if checked.starts is not None:
        return None
    runs = label_runs(codes)
    if runs.shape[0] != n_groups:  # some query's rows are apart
        return None
    run_codes = codes[runs]
    starts = np.empty(n_groups + 1, dtype=np.intp)
    starts[:-1], starts[-1] = runs, codes.shape[0]
    order = np.empty(n_groups, dtype=np.intp)
    order[run_codes] = np.arange(n_groups)
    regrouped = checked._replace(
        codes=np.repeat(np.arange(n_groups), np.diff(starts)),
        group_ids=checked.group_ids[run_codes],
        starts=starts,
    )
    return regrouped, order


def map_query_blocks(function, checked: CheckedInput, n_jobs=None):
    """``function(ranking)`` on each block of whole queries, in threads.

    The queries, in code order, are cut into consecutive blocks of about
    :data:`BLOCK_ROWS` rows; each block is ranked on its own and given to
    ``function``. Returns the results in block order; the block of the
    queries with codes ``[c0, c1)`` has them as its codes ``0 .. c1 - c0``.
    The blocks do not depend on ``n_jobs``: numpy releases the GIL in the
    sorts and array operations, so threads share the work without changing
    a single value. Rows whose starts ``checked`` does not tell are put in
    code order first (a stable sort of the codes); a caller whose queries'
    rows are together hands them over through :func:`in_appearance_order`.
    """
    n_threads = check_n_jobs(n_jobs)
    block_rows = BLOCK_ROWS
    codes = checked.codes
    n, n_groups = codes.shape[0], checked.group_ids.shape[0]
    if n <= block_rows:
        return [function(rank(checked))]
    starts, order = checked.starts, None  # known when grouped in code order
    if starts is None:  # the rows put in code order, each query's kept
        starts = counted_starts(codes, n_groups)
        order = stable_code_sort(codes, n_groups)
    cuts = np.searchsorted(starts[:-1], np.arange(block_rows, n, block_rows))
    edges = np.concatenate(([0], cuts, [n_groups]))  # ascending
    # distinct by neighbours: a plain np.unique imports numpy.ma, a cost a
    # first call notices
    edges = edges[np.concatenate(([True], edges[1:] != edges[:-1]))]

    def block(b):
        c0, c1 = int(edges[b]), int(edges[b + 1])
        rows = slice(starts[c0], starts[c1])
        if order is not None:
            rows = order[rows]
        tiebreak, weight = checked.tiebreak, checked.sample_weight
        propensity = checked.propensity
        part = CheckedInput(
            checked.y_true[rows],
            checked.y_score[rows],
            codes[rows] - c0,
            checked.group_ids[c0:c1],
            checked.ties,
            None if tiebreak is None else tiebreak[rows],
            None if weight is None else weight[rows],
            starts=starts[c0 : c1 + 1] - starts[c0],  # grouped in code order
            propensity=None if propensity is None else propensity[rows],
        )
        return function(rank(part))

    n_blocks = edges.shape[0] - 1
    if n_threads == 1:
        return [block(b) for b in range(n_blocks)]
    return share_out(block, n_blocks, min(n_threads, n_blocks))
