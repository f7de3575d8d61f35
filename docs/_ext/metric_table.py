"""The ``metric-table`` directive: the table of metrics, from the registry.

Every row comes from :data:`skirm.metrics._registry.SPECS`, so the table in
the documentation can never disagree with the code.
"""

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

HEADER = (
    "function",
    "name",
    "aliases",
    "cutoff @k",
    "labels",
    "definition (per query)",
    "trec_eval",
    "options (default)",
)


def _text(text):
    return nodes.paragraph(text=text)


def _literals(items):
    paragraph = nodes.paragraph()
    for i, item in enumerate(items):
        if i:
            paragraph += nodes.Text(", ")
        paragraph += nodes.literal(text=item)
    return paragraph


class MetricTable(SphinxDirective):
    """Render one row per registered metric."""

    has_content = False

    def _function_cell(self, spec):
        container = nodes.container()
        if spec.function is None:
            container += _text("(registry only)")
            return container
        ref = f":func:`~skirm.metrics.{spec.function.__name__}`"
        self.state.nested_parse(StringList([ref], "<metric-table>"), 0, container)
        return container

    def run(self):
        from skirm.metrics._registry import SPECS

        table = nodes.table(classes=["skirm-metric-table"])
        group = nodes.tgroup(cols=len(HEADER))
        table += group
        for width in (14, 8, 8, 6, 6, 34, 10, 14):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        row = nodes.row()
        for title in HEADER:
            row += nodes.entry("", _text(title))
        head += row
        group += head
        body = nodes.tbody()
        for spec in SPECS:
            options = [
                f"{key}={value!r}"
                for key, value in spec.params.items()
                if key != "ignore_ties"
            ]
            cells = [
                self._function_cell(spec),
                _literals([spec.name]),
                _literals(spec.aliases) if spec.aliases else _text("-"),
                _text("yes" if spec.takes_k else "no"),
                _text(spec.kind),
                _text(spec.definition),
                _literals([spec.trec_name]) if spec.trec_name else _text("-"),
                _literals(options) if options else _text("-"),
            ]
            row = nodes.row()
            for cell in cells:
                row += nodes.entry("", cell)
            body += row
        group += body
        return [table]


def setup(app):
    app.add_directive("metric-table", MetricTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
