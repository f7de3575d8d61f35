"""Query ids to dense codes, and where each query's rows start.

The first stage of the engine: the query label of every row becomes a dense
integer code (``uniques[codes] == groups``), in one pass over the rows when
they are already grouped by query (the usual layout of a learning-to-rank
file), and the rows of each code are located by counting or bisection.
"""

from __future__ import annotations

import numpy as np

from skirm._engine._runs import changed_rows, label_runs
from skirm._engine._threads import share_out
from skirm._errors import InvalidInputError
from skirm.io._keys import key_table

#: Fixed-width string labels at least this many bytes wide, and at least
#: :data:`SPLIT_ROWS` of them, are compared with their neighbours in one part
#: per thread: numpy compares strings without the GIL, and wide labels make
#: that comparison the longest step of the encoding.
SPLIT_WIDTH = 32
SPLIT_ROWS = 1 << 16


def encode_groups(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense integer codes for query labels.

    Returns ``(codes, uniques)`` where ``uniques`` holds the sorted distinct
    labels and ``uniques[codes] == groups``. Avoids a full sort of the rows when
    the labels are integers in a compact range or already contiguous.
    """
    return encode_grouped(groups)[:2]


def encode_grouped(groups: np.ndarray, runs: np.ndarray | None = None, n_threads=1):
    """``(codes, uniques, starts)``: :func:`encode_groups`, and the first row
    of each query (``starts``, with ``n`` last) when the rows are grouped by
    query in code order, else None for ``starts``.

    Integer labels sorted ascending (the usual layout of a learning-to-rank
    file) take one pass over the rows to find where the label changes, and
    one more to shift them to codes when the smallest is not 0. String and
    object labels take one comparison of each label with the next; ``runs``
    (:func:`~skirm._engine._runs.label_runs` of ``groups``) is that comparison's
    result when the caller has it. ``n_threads`` threads share that
    comparison for wide fixed-width strings.
    """
    n = groups.shape[0]
    if groups.dtype.kind in "biu" and not (
        groups.dtype.kind == "u"
        and groups.dtype.itemsize == 8
        and groups.max() > np.iinfo(np.int64).max
    ):
        g = groups.astype(np.int64, copy=False)
        grouped = encode_grouped_ints(g, groups)
        if grouped is not None:
            return grouped
        gmin, gmax = int(np.min(g)), int(np.max(g))
        shifted = g - gmin if gmin else g
        present = key_table(shifted, gmax - gmin + 1)
        if present is not None:
            if present.all():  # every label in the range is used: no lookup
                # in int64 throughout: gmax + 1 may pass the int64 range
                uniques = (gmin + np.arange(gmax - gmin + 1, dtype=np.int64)).astype(
                    groups.dtype, copy=False
                )
                if shifted is groups:  # never hand out the caller's array
                    shifted = shifted.view()
                    shifted.flags.writeable = False
                return shifted, uniques, None
            lookup = np.cumsum(present) - 1
            uniques = np.flatnonzero(present) + gmin
            return lookup[g - gmin], uniques.astype(groups.dtype, copy=False), None
        return (*_encode_by_sort(groups), None)
    # Strings and objects: when rows of a query are contiguous (the usual
    # layout), sort only one label per block.
    block_starts = shared_label_runs(groups, n_threads) if runs is None else runs
    try:
        uniques, inverse = np.unique(groups[block_starts], return_inverse=True)
    except TypeError as exc:
        raise InvalidInputError(
            "`groups` labels must be mutually comparable (all ints or all "
            f"strings), got a mix: {exc}"
        ) from None
    if uniques.shape[0] == block_starts.shape[0]:
        inverse = inverse.reshape(-1)
        starts = np.append(block_starts, n)
        codes = np.repeat(inverse, np.diff(starts))
        if np.all(inverse[1:] > inverse[:-1]):  # the blocks in label order
            return merge_padded(codes, uniques, starts)
        return merge_padded(codes, uniques, None)
    codes, uniques = _encode_by_sort(groups)
    return merge_padded(codes, uniques, None)


def merge_padded(codes, uniques, starts):
    """``(codes, uniques, starts)`` with the labels that differ only by
    trailing NUL characters made one: numpy's rule for strings (``"a\\x00"``
    is ``"a"`` in a ``str`` array, and in a list numpy reads), applied to
    the containers that keep them (object arrays, pandas and Arrow
    columns), so that every container gives the same queries. Work per
    distinct label, not per row."""
    if uniques.dtype.kind == "O" and uniques.shape[0] and isinstance(uniques[0], str):
        text = uniques.astype(str)  # drops them
        if not np.any(text != uniques):
            return codes, uniques, starts
    elif uniques.dtype.kind == "U" and uniques.shape[0] > 1:
        # labels made str after being told apart (Arrow's): equal neighbours
        text = uniques
        if not np.any(text[1:] == text[:-1]):
            return codes, uniques, starts
    else:
        return codes, uniques, starts
    merged, inverse = np.unique(text, return_inverse=True)
    codes = inverse.reshape(-1)[codes]
    return codes, merged.astype(uniques.dtype, copy=False), None


def shared_label_runs(groups, n_threads):
    """:func:`~skirm._engine._runs.label_runs` of ``groups``, its comparisons
    cut in ``n_threads`` parts run at once when the labels are wide
    fixed-width strings (:data:`SPLIT_WIDTH`, :data:`SPLIT_ROWS`)."""
    n = groups.shape[0]
    if (
        n_threads < 2
        or groups.dtype.kind not in "US"
        or groups.dtype.itemsize < SPLIT_WIDTH
        or n < SPLIT_ROWS
    ):
        return label_runs(groups)
    cuts = np.linspace(1, n, n_threads + 1).astype(np.intp)
    parts = [np.zeros(1, dtype=np.intp)] + [None] * n_threads

    def part(i):
        parts[i + 1] = changed_rows(groups, cuts[i], cuts[i + 1])

    share_out(part, n_threads, n_threads)
    return np.concatenate(parts)


def encode_grouped_ints(g, groups):
    """:func:`encode_grouped` of int64 labels ``g`` (of ``groups``) sorted
    ascending, from one pass over the rows; None when they are not sorted."""
    n = g.shape[0]
    if n == 0:
        return None
    change = np.flatnonzero(g[1:] != g[:-1])
    change += 1
    # Between two changes the labels are equal: sorted if they rise at each.
    step = g[change] - g[change - 1]
    if not np.all(step > 0):
        return None
    starts = np.empty(change.shape[0] + 2, dtype=np.intp)
    starts[0], starts[1:-1], starts[-1] = 0, change, n
    gmin = int(g[0])
    if np.all(step == 1):  # every label from the first to the last is used
        if gmin:
            codes = g - gmin
        else:  # the labels are the codes: never hand out the caller's array
            codes = g.view()
            codes.flags.writeable = False
        # gmin + np.arange, not np.arange(gmin, stop): a stop past the int64
        # range (labels up to 2**63 - 1) makes numpy count in float64
        uniques = gmin + np.arange(starts.shape[0] - 1, dtype=np.int64)
        return codes, uniques.astype(groups.dtype, copy=False), starts
    uniques = g[starts[:-1]].astype(groups.dtype, copy=False)
    codes = np.repeat(np.arange(uniques.shape[0], dtype=np.intp), np.diff(starts))
    return codes, uniques, starts


def _encode_by_sort(groups):
    try:
        uniques, codes = np.unique(groups, return_inverse=True)
    except TypeError as exc:
        raise InvalidInputError(
            "`groups` labels must be mutually comparable (all ints or all "
            f"strings), got a mix: {exc}"
        ) from None
    return codes.reshape(-1), uniques


def counted_starts(codes, n_groups):
    """Where each code's rows start once the rows are sorted by code
    (``n_groups + 1`` offsets, ``n`` last), by counting the codes."""
    starts = np.zeros(n_groups + 1, dtype=np.intp)
    np.cumsum(np.bincount(codes, minlength=n_groups), out=starts[1:])
    return starts


def sorted_code_starts(codes, n_groups):
    """:func:`counted_starts` of sorted ``codes``.

    By bisection while the offsets are few (a block of queries: no pass over
    the rows, and no ``bincount``, which holds the GIL), else by counting.
    """
    if n_groups <= 1 << 14:
        return codes.searchsorted(np.arange(n_groups + 1))
    return counted_starts(codes, n_groups)
