"""Output formats: trec_eval's lines, tables, JSON and CSV.

``skirm eval`` prints trec_eval's exact layout in pipes and files (and a
table with one column per run on a terminal); ``skirm compare`` prints a
comparison as a table, Markdown, LaTeX, CSV or JSON.
"""

from __future__ import annotations

import math
import sys

from skirm._measures._table import RUNID


def _spellings(request):
    """``{printed name: trec_eval spelling}`` of a request's outputs (None
    for skirm's metrics; the diversity measures are not among them)."""
    return {o.name: o.spelling for o in request.outputs}


def _is_integer(spelling):
    return spelling is not None and spelling.integer


def _per_query(spelling):
    return spelling is None or spelling.per_query


def _numbers(values, integer, zscored=False):
    """Numbers (a list) as trec_eval prints them: integers whole, the rest
    with 4 decimals, a NaN as C's printf shows trec_eval's 0.0 / 0.0; with
    ``-Z`` every number with 4 decimals and a NaN with its sign."""
    if zscored:
        return [f"{v:6.4f}" if v == v else _nan(v) for v in values]
    if integer:
        return [f"{round(v)}" if v == v else "  -nan" for v in values]
    return [f"{v:6.4f}" if v == v else "  -nan" for v in values]


def _fmt(value, integer):
    return value if isinstance(value, str) else _numbers([value], integer)[0]


def _nan(value):
    """A NaN as C's printf shows it: ``-nan`` when its sign bit is set (the
    result of 0.0 / 0.0), ``nan`` otherwise (``nan`` read from a file)."""
    return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"


def _trec_line(name, qid, value, integer, zscored):
    """One line as trec_eval prints it (``-Z``: a ``Z`` before the name;
    strings are never converted)."""
    if isinstance(value, str):
        return f"{name:<22}\t{qid}\t'{value}'"
    z = "Z" if zscored else ""
    return f"{z}{name:<22}\t{qid}\t{_numbers([value], integer, zscored)[0]}"


#: Queries whose per-query lines are formatted and written at a time: the
#: output of a run of many queries is never held whole.
LINES_QUERIES = 4096


def _column_lines(name, column, ids, integer, zscored):
    """One measure's per-query lines (``column``: its values for ``ids``)."""
    values = column.tolist()
    if column.dtype.kind in "OSU":  # strings, as trec_eval's relstring
        return [
            _trec_line(name, qid, value, integer, zscored) + "\n"
            for qid, value in zip(ids, values, strict=True)
        ]
    head = f"{'Z' if zscored else ''}{name:<22}\t"
    texts = _numbers(values, integer, zscored)
    return [f"{head}{qid}\t{text}\n" for qid, text in zip(ids, texts, strict=True)]


def trec_text(result, request, per_query, summary=True):
    """trec_eval's lines of one run, in pieces of :data:`LINES_QUERIES`
    queries: with ``per_query``, each query's measures in turn, then the
    summary."""
    spellings = _spellings(request)
    zscored = getattr(result, "zscored", False)
    if per_query:
        columns = [
            (name, values, _is_integer(spelling))
            for name, values in result.per_query.items()
            for spelling in [spellings.get(name)]
            if _per_query(spelling)
        ]
        qids = result.group_ids
        for lo in range(0, len(qids), LINES_QUERIES):
            part = slice(lo, lo + LINES_QUERIES)
            ids = qids[part].tolist()
            lines = [
                _column_lines(name, values[part], ids, integer, zscored)
                for name, values, integer in columns
            ]
            yield "".join(line for query in zip(*lines, strict=True) for line in query)
    if not summary:
        return
    lines = []
    for output in request.outputs:
        if output.measure is RUNID:
            lines.append(f"{output.name:<22}\tall\t{result.run_id}\n")
    for name, value in result.means.items():
        integer = _is_integer(spellings.get(name))
        lines.append(_trec_line(name, "all", value, integer, zscored) + "\n")
    yield "".join(lines)


def table(results, labels, request, per_query, summary=True):
    spellings = _spellings(request)
    names = list(results[0].per_query)
    rows = [["measure", *(["query"] if per_query else []), *labels]]
    if per_query:
        qids = sorted({q for r in results for q in r.group_ids.tolist()})
        indexes = [{q: i for i, q in enumerate(r.group_ids.tolist())} for r in results]
        for qid in qids:
            for name in names:
                spelling = spellings.get(name)
                if not _per_query(spelling):
                    continue
                cells = []
                for r, index in zip(results, indexes, strict=True):
                    i = index.get(qid)
                    cells.append(
                        "-"
                        if i is None
                        else _fmt(
                            r.per_query[name][i].item(), _is_integer(spelling)
                        ).strip()
                    )
                rows.append([name, qid, *cells])
    for name in results[0].means if summary else ():
        integer = _is_integer(spellings.get(name))
        cells = [_fmt(r.means[name], integer).strip() for r in results]
        rows.append([name, *(["all"] if per_query else []), *cells])
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    n_left = 2 if per_query else 1
    out = []
    for row in rows:
        cells = [
            c.ljust(w) if j < n_left else c.rjust(w)
            for j, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def records(result, per_query, summary=True):
    if per_query:
        for i, qid in enumerate(result.group_ids.tolist()):
            for name, values in result.per_query.items():
                yield qid, name, values[i].item()
    for name, value in result.means.items() if summary else ():
        yield "all", name, float(value)


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------


def output_format(choice):
    """``--format``, else trec_eval's layout unless standard output is a
    terminal (a person reading: the table)."""
    if choice is not None:
        return choice
    isatty = getattr(sys.stdout, "isatty", None)
    return "table" if isatty is not None and isatty() else "trec"


def write_eval(args, results, labels, request, out, paths=None):
    """The results of the runs (labelled ``labels``; their files ``paths``,
    default all) in the ``--format`` chosen. In trec_eval's format each run
    of several starts with trec_eval's ``runid`` line, unless ``-m runid``
    prints it already."""
    fmt, summary = output_format(args.format), not args.no_summary
    paths = args.runs if paths is None else paths
    if fmt == "trec":
        named = len(args.runs) > 1 and not any(
            output.measure is RUNID for output in request.outputs
        )
        for label, result in zip(labels, results, strict=True):
            if named:
                out.write(f"{RUNID.trec[0].name:<22}\tall\t{label}\n")
            for text in trec_text(result, request, args.per_query, summary):
                out.write(text)
    elif fmt == "table":
        lines = table(results, labels, request, args.per_query, summary)
        out.write("\n".join(lines) + "\n")
    elif fmt == "json":
        doc = []
        for path, result in zip(paths, results, strict=True):
            entry = {"file": path, "run_id": result.run_id}
            if summary:
                entry["summary"] = result.means
            if getattr(result, "zscored", False):
                entry["zscores"] = True  # values are z-scores (-Z)
            if args.per_query:
                entry["per_query"] = {
                    qid: {n: v[i].item() for n, v in result.per_query.items()}
                    for i, qid in enumerate(result.group_ids.tolist())
                }
            doc.append(entry)
        import json

        json.dump(doc, out, indent=2)
        out.write("\n")
    else:
        import csv

        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["run", "query", "measure", "value"])
        for label, result in zip(labels, results, strict=True):
            for qid, name, value in records(result, args.per_query, summary):
                text = value if isinstance(value, str) else repr(value)
                writer.writerow([label, qid, name, text])


def _comparison_csv(systems, pairs, out):
    """One CSV of both tables: a ``table`` column says ``systems`` (each
    system's mean, and its test against the baseline if any) or ``pairs``
    (each pair's test: every pair without a baseline); a pair's interval of
    the difference is ``delta_ci_low``/``delta_ci_high``, as in the systems
    rows, and ``other`` names the second system of a pair."""
    import csv

    renamed = {"ci_low": "delta_ci_low", "ci_high": "delta_ci_high"}
    pairs = [{renamed.get(k, k): v for k, v in row.items()} for row in pairs]
    columns = ["table", "system", "other"]
    for row in (*systems[:1], *pairs[:1]):
        columns += [key for key in row if key not in columns]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for table, rows in (("systems", systems), ("pairs", pairs)):
        for row in rows:
            cells = {"table": table, **row}
            writer.writerow(
                [
                    " ".join(v) if isinstance(v, tuple) else v
                    for v in (cells.get(key, "") for key in columns)
                ]
            )


def _json_value(value):
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, tuple):
        return list(value)
    return value


def write_comparison(comparison, fmt, out):
    if fmt == "table":
        out.write(str(comparison) + "\n")
    elif fmt == "markdown":
        out.write(comparison.to_markdown())
    elif fmt == "latex":
        out.write(comparison.to_latex())
    else:
        rows = comparison.to_records("systems")
        if fmt == "csv":
            _comparison_csv(rows, comparison.to_records("pairs"), out)
            return
        doc = {
            "systems": comparison.systems,
            "baseline": comparison.baseline,
            "metrics": comparison.metrics,
            "test": comparison.test,
            "correction": comparison.correction,
            "alpha": comparison.alpha,
            "seed": comparison.random_state,
            "n_queries": comparison.n_queries,
            "method": comparison.describe_method(),
            "systems_table": [{k: _json_value(v) for k, v in r.items()} for r in rows],
            "pairs_table": [
                {k: _json_value(v) for k, v in r.items()}
                for r in comparison.to_records("pairs")
            ],
        }
        import json

        json.dump(doc, out, indent=2)
        out.write("\n")
