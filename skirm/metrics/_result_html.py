"""The notebook display of an :class:`~skirm.metrics.EvaluationResult`.

One table of the metrics (mean, queries scored and skipped, the quartiles
of the per-query values) and one of the first queries: its size does not
grow with the number of queries.
"""

from __future__ import annotations

import numpy as np

from skirm._html import Markup, document, paragraph, table
from skirm._params import as_python

#: Queries shown one per row; the others are summarised.
HEAD = 5
#: The longest text of a per-query value shown (string-valued TREC measures).
TEXT_WIDTH = 40
_LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)


def _value(value) -> str:
    """A per-query value as the text repr writes a mean (``.4f``)."""
    value = as_python(value)
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, (bool, int)):
        return str(int(value))
    text = str(value)
    return text if len(text) <= TEXT_WIDTH else text[: TEXT_WIDTH - 1] + "…"


def _metric_row(result, name, values, n_queries):
    """``[name, mean, scored, skipped, min, 25%, median, 75%, max]``."""
    mean = result.means.get(name)
    row = [name, "" if mean is None else f"{mean:.4f}"]
    if values.dtype.kind not in "biuf":  # strings: no mean, no quartiles
        return [*row, str(n_queries), "0", *[""] * len(_LEVELS)]
    scored = values[~np.isnan(values)] if values.dtype.kind == "f" else values
    row += [str(scored.shape[0]), str(n_queries - scored.shape[0])]
    if scored.shape[0] == 0:
        return [*row, *[""] * len(_LEVELS)]
    return row + [f"{q:.4f}" for q in np.quantile(scored, _LEVELS)]


def render(result) -> Markup:
    """The HTML of ``result``: counts, a row per metric, the first queries."""
    ids = np.asarray(result.group_ids)
    n_queries = ids.shape[0]
    facts = [f"queries: {n_queries}"]
    if getattr(result, "run_id", None):
        facts.append(f"run: {result.run_id}")
    if result.weights is not None:
        facts.append("means weighted by the query weights")
    if result.n_unjudged is not None:
        facts.append(f"unjudged rows: {int(np.sum(result.n_unjudged))}")
    # A run's summaries are trec_eval's (sums, geometric means), not all means.
    mean = "summary" if hasattr(result, "run_id") else "mean"
    header = ["metric", mean, "scored", "skipped", "min", "25%", "median", "75%"]
    header.append("max")
    rows = [
        _metric_row(result, name, np.asarray(values), n_queries)
        for name, values in result.per_query.items()
    ]
    if result.judge_spread is not None:
        n_judges = len(next(iter(result.judge_means.values()), ()))
        facts.append(f"judges: {n_judges}")
        header.append("judge spread")
        for row, name in zip(rows, result.per_query, strict=True):
            spread = result.judge_spread.get(name)
            row.append("" if spread is None else f"{spread:.4f}")
    head = [
        [as_python(ids[q]), *(_value(v[q]) for v in result.per_query.values())]
        for q in range(min(HEAD, n_queries))
    ]
    caption = "Queries" if n_queries <= HEAD else f"First {HEAD} of {n_queries} queries"
    parts = [
        paragraph(", ".join(facts)),
        table(header, rows, caption="Metrics over queries"),
        table(["query", *result.per_query], head, caption=caption),
    ]
    return document("EvaluationResult", *parts)
