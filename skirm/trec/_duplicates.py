"""A docno twice in an evaluated query: found on the tokens, reported by line.

trec_eval accepts a docno listed twice for a query it does not evaluate, and
stops on one it does (within ``-M`` for a run): the join checks the qrels'
evaluated topics, the rank stage the run's ranked rows, and the other
relevance formats their own rows, each through :func:`block_repeat` (the
one duplicate finder, :func:`~skirm._validation.first_repeat`, on the
tokens), and report the first repeat with :func:`duplicate_error`.
"""

from __future__ import annotations

import numpy as np

from skirm._errors import DuplicateDocnoError
from skirm.io._tokens import first_duplicate


def block_repeat(block, rows):
    """The first repeated (query, docno) among the ``rows`` of a run block:
    ``(first, second)`` rows of the block, or None."""
    rows = np.asarray(rows, dtype=np.int64)
    codes = block.queries()[0][rows]
    return first_duplicate(codes, block.d.take(rows), rows)


def duplicate_error(query, d, pair, lines, name, what):
    """The ValueError for a docno repeated in ``query`` (a str): ``pair`` are
    the rows of both copies in the docnos ``d`` (see
    :func:`~skirm.io._tokens.first_duplicate`), ``lines`` their 0-based file
    lines (None for records built from arrays)."""
    first, second = pair
    doc = str(d.strings(np.array([second]))[0])
    if lines is not None:
        where = f"{name}:{int(lines[second]) + 1}: "
        at = f"line {int(lines[first]) + 1}"
    else:
        where, at = "", f"row {first}"
    return DuplicateDocnoError(
        f"{where}duplicate docno {doc!r} for query {query!r} (first at {at}); "
        f"expected each docno once per evaluated query in {what}"
    )


def block_duplicate_error(block, pair, what):
    """:func:`duplicate_error` of a repeat found in a run block."""
    query = str(block.q.strings(np.array([pair[1]]))[0])
    return duplicate_error(query, block.d, pair, block.lines, block.name, what)
