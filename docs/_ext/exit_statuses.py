"""The ``exit-statuses`` directive: the ``skirm`` command's exit statuses.

The table is :data:`skirm._errors.EXIT_STATUSES`, the one the commands'
``--help`` prints, so the page and the command cannot disagree.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from skirm._errors import EXIT_STATUSES


class ExitStatuses(SphinxDirective):
    """A two-column table: each status and its meaning."""

    def run(self):
        table = nodes.table()
        group = nodes.tgroup(cols=2)
        table += group
        group += nodes.colspec(colwidth=8)
        group += nodes.colspec(colwidth=72)
        head = nodes.thead()
        group += head
        row = nodes.row()
        for title in ("status", "meaning"):
            row += nodes.entry("", nodes.paragraph(text=title))
        head += row
        body = nodes.tbody()
        group += body
        for status, meaning in EXIT_STATUSES:
            row = nodes.row()
            row += nodes.entry("", nodes.paragraph(text=str(status)))
            row += nodes.entry("", nodes.paragraph(text=meaning))
            body += row
        return [table]


def setup(app):
    app.add_directive("exit-statuses", ExitStatuses)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
