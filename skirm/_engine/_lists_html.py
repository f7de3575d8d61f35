"""The notebook display of :class:`~skirm.metrics.RankedLists`.

The counts of its repr, the spread of the list sizes and the first lists
with the grades of their first items: its size does not grow with the
number of lists.
"""

from __future__ import annotations

import numpy as np

from skirm._html import Markup, document, table
from skirm._params import as_python

#: Lists shown one per row; the others are summarised.
HEAD = 5
#: Grades shown per list.
FIRST = 10


def render(lists) -> Markup:
    """The HTML of ``lists``: counts, list sizes, the first lists."""
    n = lists.n_queries
    sizes = lists.sizes
    starts = np.cumsum(sizes) - sizes
    shown = min(HEAD, n)
    relevant = lists.judged_labels > 0
    per_query = np.bincount(lists.judged_codes[relevant], minlength=n)[:shown]
    head = []
    for q in range(shown):
        size = int(sizes[q])
        grades = lists.labels[starts[q] : starts[q] + min(size, FIRST)]
        text = " ".join(f"{g:g}" for g in grades.tolist())
        head.append(
            [
                as_python(lists.group_ids[q]),
                str(size),
                str(int(per_query[q])),
                text + (" …" if size > FIRST else ""),
            ]
        )
    low, median, high = np.quantile(sizes, (0.0, 0.5, 1.0))
    counts = [
        ["lists (queries)", str(n)],
        ["items listed", str(int(lists.labels.shape[0]))],
        ["judged ids", str(int(lists.judged_labels.shape[0]))],
        ["relevant ids (grade > 0)", str(int(np.count_nonzero(relevant)))],
        ["relevant items listed", str(int(np.count_nonzero(lists.labels > 0)))],
        ["empty lists", str(int(np.count_nonzero(sizes == 0)))],
        ["list size: min / median / max", f"{low:g} / {median:g} / {high:g}"],
    ]
    parts = [
        table(["", "count"], counts, caption="Counts"),
        table(
            ["query", "size", "relevant ids", f"grades of the first {FIRST} items"],
            head,
            caption="Lists" if n <= HEAD else f"First {HEAD} of {n} lists",
        ),
    ]
    return document("RankedLists", *parts)
