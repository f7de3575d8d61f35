"""Small HTML builders for the notebook displays (``_repr_html_``) of results.

Jupyter and sphinx-gallery show an object's ``_repr_html_`` in place of its
text repr. The result objects build theirs from these helpers, with the
standard library only: every piece of text is escaped unless it is
:class:`Markup` (HTML built here), tags always close in order, and the style
is scoped to the ``skirm-repr`` class so that it cannot leak into a page.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

__all__ = ["CSS_CLASS", "Markup", "document", "escape", "paragraph", "table"]

#: The class of the outer ``<div>``: every style rule is scoped to it.
CSS_CLASS = "skirm-repr"

_STYLE = (
    "<style>"
    f".{CSS_CLASS}{{font-size:0.9em}}"
    f".{CSS_CLASS} table{{border-collapse:collapse;margin:0.3em 0 0.6em}}"
    f".{CSS_CLASS} caption{{text-align:left;font-weight:bold;padding:0.2em 0}}"
    f".{CSS_CLASS} th,.{CSS_CLASS} td{{padding:0.15em 0.6em;text-align:right;"
    "border-bottom:1px solid #ddd;white-space:nowrap}"
    f".{CSS_CLASS} .text{{text-align:left}}"
    f".{CSS_CLASS} p{{margin:0.2em 0}}"
    "</style>"
)


class Markup(str):
    """Text that is HTML already: the builders insert it as it is."""

    __slots__ = ()


def escape(value) -> Markup:
    """``value`` as HTML text: ``str(value)`` escaped, quotes included, unless
    it is :class:`Markup` already."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def paragraph(*parts) -> Markup:
    """A ``<p>`` of the parts, each escaped unless it is Markup."""
    return Markup("<p>" + "".join(map(escape, parts)) + "</p>")


def table(
    header: Sequence,
    rows: Iterable[Sequence],
    *,
    caption=None,
    text_columns: int = 1,
) -> Markup:
    """A ``<table>``: one header row, then the rows, every cell escaped
    unless it is Markup.

    The first ``text_columns`` columns (names, ids) are aligned left and the
    others (numbers) right; header cells are ``<th>``, and so is the first
    cell of each row, which names it.
    """

    def line(cells, head):
        out = []
        for c, value in enumerate(cells):
            tag = "th" if head or c == 0 else "td"
            align = ' class="text"' if c < text_columns else ""
            out.append(f"<{tag}{align}>{escape(value)}</{tag}>")
        return "<tr>" + "".join(out) + "</tr>"

    parts = ["<table>"]
    if caption is not None:
        parts.append(f"<caption>{escape(caption)}</caption>")
    parts.append("<thead>" + line(header, True) + "</thead>")
    parts.append("<tbody>" + "".join(line(row, False) for row in rows) + "</tbody>")
    parts.append("</table>")
    return Markup("".join(parts))


def document(title, *parts) -> Markup:
    """The whole display: the scoped style, a bold title and the parts."""
    body = "".join(map(escape, parts))
    return Markup(
        f'<div class="{CSS_CLASS}">{_STYLE}'
        f"<p><strong>{escape(title)}</strong></p>{body}</div>"
    )
