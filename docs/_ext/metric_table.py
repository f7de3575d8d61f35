"""The ``metric-table`` directive: the table of metrics, from the registry;
and ``diversity-table``: the diversity measures, from the name table.

Every row comes from :data:`skirm.metrics._registry.SPECS` (or, for the
diversity measures, which need subtopic judgments and are not in the
registry, :data:`skirm.metrics._names.IR_MEASURES_DIVERSITY`), so the tables
in the documentation can never disagree with the code.
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


def _table(header, widths):
    """``(table, group, body)``: an empty table with its header row."""
    table = nodes.table(classes=["skirm-metric-table"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for title in header:
        row += nodes.entry("", _text(title))
    head += row
    group += head
    return table, group, nodes.tbody()


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

        table, group, body = _table(HEADER, (14, 8, 8, 6, 6, 34, 10, 14))
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


class DiversityTable(SphinxDirective):
    """Render one row per diversity measure: its function and every
    spelling a measure string may use."""

    has_content = False

    def run(self):
        from skirm.metrics._names import IR_MEASURES_DIVERSITY

        spellings = {}
        for spelling, spec in IR_MEASURES_DIVERSITY.items():
            spellings.setdefault(spec.column, (spec, []))[1].append(spelling)
        header = (
            "function",
            "names (ir_measures, ndeval, skirm)",
            "cutoff @k",
            "options",
        )
        table, group, body = _table(header, (16, 34, 6, 14))
        for spec, names in spellings.values():
            function = nodes.container()
            ref = f":func:`~skirm.metrics.{spec.function}`"
            self.state.nested_parse(StringList([ref], "<diversity-table>"), 0, function)
            options = [*spec.options, "rel"]
            if spec.column != "strec":
                options.append("judged_only")
            cells = [
                function,
                _literals(names),
                _text("yes" if spec.takes_k else "no"),
                _literals(options),
            ]
            row = nodes.row()
            for cell in cells:
                row += nodes.entry("", cell)
            body += row
        group += body
        return [table]


def setup(app):
    app.add_directive("metric-table", MetricTable)
    app.add_directive("diversity-table", DiversityTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
