"""The notebook display of a :class:`~skirm.stats.Comparison`.

The table the text repr prints, as HTML: the means with the best per metric
in bold and the letters of the systems each one beats significantly, then
one row per (pair, metric) with the difference, its interval, the effect
size, the p-values before and after the correction and the queries won,
tied and lost, then the sentence naming the test, the correction and alpha.
"""

from __future__ import annotations

from skirm._html import Markup, document, paragraph, table
from skirm.stats._paired import LARGE_N, large_n_note


def render(comparison) -> Markup:
    """The HTML of ``comparison`` (numbers formatted as by ``str``)."""
    c = comparison
    letters, cells = c._cells(
        lambda t: f"<strong>{t}</strong>", lambda m: f"<sup>{m}</sup>"
    )
    means = [
        [
            letters[system],
            system if system not in c.baselines else f"{system} (baseline)",
            *map(Markup, row),
        ]
        for system, row in zip(c.systems, cells, strict=True)
    ]
    t = c._table
    pairs = [
        [
            m,
            f"{a} - {b}",
            f"{t['delta'][p, j]:+.4f}",
            f"[{t['ci_low'][p, j]:+.4f}, {t['ci_high'][p, j]:+.4f}]",
            f"{t['effect_size'][p, j]:+.2f}",
            f"{t['pvalue'][p, j]:.3g}",
            f"{t['p_adjusted'][p, j]:.3g}",
            "*" if t["significant"][p, j] else "",
            f"{t['wins'][p, j]}/{t['ties'][p, j]}/{t['losses'][p, j]}",
        ]
        for p, (a, b) in enumerate(c.pairs)
        for j, m in enumerate(c.metrics)
    ]
    header = ["metric", "difference", "delta", f"{c.confidence:.0%} interval"]
    header += ["d_z", "p", "adjusted p", "significant", "W/T/L"]
    notes = [paragraph(c.describe_method())]
    if c.n_queries >= LARGE_N:
        notes.append(paragraph(large_n_note(c.n_queries)))
    return document(
        f"Comparison of {len(c.systems)} systems on {c.n_queries} queries",
        table(["", "system", *c.metrics], means, caption="Means", text_columns=2),
        paragraph(c._legend()),
        table(header, pairs, caption="Differences", text_columns=2),
        *notes,
    )
