"""The documentation's tables of measures, from the measure table.

``metric-table``: the metrics on arrays (the registry's records);
``names-table``: every measure's spellings side by side (skirm,
trec_eval, ir_measures) and the tool whose definition it follows;
``diversity-table``: the diversity measures. Every row comes from
:mod:`skirm._measures` (through :data:`skirm.metrics._registry.SPECS` for
the functions), so the tables in the documentation can never disagree with
the code.
"""

from typing import ClassVar

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

#: The metrics at a glance, as two tables that each fit the page: how a
#: metric is named, then what it computes.
NAMES_HEADER = ("function", "names", "labels", "trec_eval")
DEFINITIONS_HEADER = ("name", "definition (per query)", "options (default)")


def _text(text):
    return nodes.paragraph(text=text)


def _literals(items):
    if not items:
        return _text("-")
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


def _add_row(body, cells):
    row = nodes.row()
    for cell in cells:
        row += nodes.entry("", cell)
    body += row


def _trec_names(measure, arrays_only=False):
    """trec_eval's spellings of a measure (``P_k`` for a cutoff measure)."""
    return [
        f"{t.name}_k" if t.params == "cutoffs" else t.name
        for t in measure.trec
        if (t.arrays or not arrays_only) and not t.unsupported
    ]


def _ir_names(measure):
    names = []
    for ir in measure.ir_measures:
        options = f"({','.join(ir.options)})" if ir.options else ""
        cutoff = {"@k": "@k", "@level": "@level"}.get(ir.cutoff, "")
        names.append(f"{ir.name}{options}{cutoff}")
    return names


class _Directive(SphinxDirective):
    has_content = False

    def _function(self, name, source):
        container = nodes.container()
        ref = f":func:`~skirm.metrics.{name}`"
        self.state.nested_parse(StringList([ref], source), 0, container)
        return container


class MetricTable(_Directive):
    """The registered metrics, in two tables: ``:part: names`` (the
    function, its names, binary or graded, trec_eval's spelling) or
    ``:part: definitions`` (what it computes and its options)."""

    option_spec: ClassVar = {"part": lambda value: value.strip()}

    def run(self):
        from skirm.metrics._registry import SPECS

        part = self.options.get("part", "names")
        if part == "names":
            table, group, body = _table(NAMES_HEADER, (22, 14, 9, 11))
        else:
            table, group, body = _table(DEFINITIONS_HEADER, (8, 30, 14))
        for spec in SPECS:
            names = [
                f"{name}[@k]" if spec.takes_k else name
                for name in (spec.name, *spec.aliases)
            ]
            if part == "names":
                cells = [
                    self._function(spec.function.__name__, "<metric-table>"),
                    _literals(names),
                    _text(spec.kind),
                    _literals(_trec_names(spec.measure, arrays_only=True)),
                ]
            else:
                options = [f"{key}={value!r}" for key, value in spec.params.items()]
                cells = [
                    _literals([spec.name]),
                    _text(spec.definition),
                    _literals(options),
                ]
            _add_row(body, cells)
        group += body
        return [table]


class NamesTable(_Directive):
    """One row per measure with its spellings in the three grammars of
    names (the diversity measures have their own table)."""

    def run(self):
        from skirm._measures._rows import DIVERSITY
        from skirm._measures._table import MEASURES

        header = ("skirm", "trec_eval", "ir_measures", "definition follows")
        table, group, body = _table(header, (16, 22, 22, 20))
        for measure in MEASURES:
            if measure.engine == DIVERSITY or not (measure.skirm or measure.trec):
                continue
            skirm = [f"{n}@k" if measure.takes_k else n for n in measure.skirm]
            _add_row(
                body,
                [
                    _literals(skirm) if skirm else _text("(on a run and its qrels)"),
                    _literals(_trec_names(measure)),
                    _literals(_ir_names(measure)),
                    _text(measure.reference.name),
                ],
            )
        group += body
        return [table]


class DiversityTable(_Directive):
    """One row per diversity measure: its function and every spelling a
    measure string may use."""

    def run(self):
        from skirm._measures._table import DIVERSITY_MEASURES, STREC

        header = (
            "function",
            "names (ir_measures, ndeval, skirm)",
            "cutoff @k",
            "options",
        )
        table, group, body = _table(header, (16, 34, 6, 14))
        for measure in DIVERSITY_MEASURES:
            names = [
                *(ir.name for ir in measure.ir_measures),
                *measure.ndeval,
                *measure.skirm,
            ]
            options = [*measure.ir_measures[0].options, "rel"]
            if measure is not STREC:
                options.append("judged_only")
            _add_row(
                body,
                [
                    self._function(measure.function, "<diversity-table>"),
                    _literals(list(dict.fromkeys(names))),
                    _text("yes" if measure.takes_k else "no"),
                    _literals(options),
                ],
            )
        group += body
        return [table]


def setup(app):
    app.add_directive("metric-table", MetricTable)
    app.add_directive("names-table", NamesTable)
    app.add_directive("diversity-table", DiversityTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
