"""The ``skirm`` command line: ``skirm eval`` and ``skirm compare``."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys

from skirm._trec_names import MEASURES, parse_trec_name, trec_measure_names
from skirm.io._prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from skirm.io._trec import read_qrels
from skirm.metrics._registry import get_metric, metric_names
from skirm.trec._evaluate import evaluate_run
from skirm.trec._formats import REL_FORMATS, check_rel_format
from skirm.trec._request import COMPAT
from skirm.trec._request import parse_measures as _parse_metrics
from skirm.trec._zscores import read_zscores

__all__ = ["main"]

_EPILOG = """\
measures (-m), trec_eval names and nicknames:
  {trec}
  Parameters as in trec_eval: P.5,10  ndcg_cut.10  map_cut.100  recall.1000
  iprec_at_recall.0.5  Rprec_mult.1.0  utility.1,-1,0,0  set_F.0.5
  ndcg.1=3,2=9 (custom gains); also P_10 (pytrec_eval style) and P@10.
  judged.k: the fraction of the top min(k, retrieved) documents that are in
  the qrels. relstring.N: the relevance values of the top N documents as a
  string (per query only). yaap: log((1+S)/(1+R-S)), S the sum of precisions
  at the relevant documents. utility.p1,p2,p3,p4 uses -N for the documents
  neither retrieved nor relevant.
  With -R qrels_jg (second qrels column = judgment group): map_avgjg,
  P_avgjg, Rprec_mult_avgjg (nickname qrels_jg), averaged over the groups.
  With -R prefs or -R qrels_prefs: the preference measures prefs_*
  (nicknames all_prefs and prefs).
  trec_eval's ndcg_p is not compiled into trec_eval 10.0 and not offered.

skirm metric names (computed with trec_eval's tie order, R from the qrels;
a trec_eval name such as rbp means trec_eval's measure):
  {skirm}

exit status: 0 on success, 1 on an input error (unreadable or malformed file,
a docno twice in an evaluated query, no query in common, qrels queries missing
from the run without -c as in trec_eval 10.0), 2 on a usage error (bad option
or measure name).
"""


_READERS = {
    "qrels": read_qrels,
    "qrels_jg": read_qrels_jg,
    "prefs": read_prefs,
    "qrels_prefs": read_qrels_prefs,
}


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _wrap(names, width=76):
    lines, line = [], ""
    for name in names:
        if line and len(line) + 1 + len(name) > width:
            lines.append(line)
            line = name
        else:
            line = f"{line} {name}" if line else name
    lines.append(line)
    return "\n  ".join(lines)


def _build_parser(compare_options=True):
    parser = _Parser(
        prog="skirm",
        description="Information-retrieval and learning-to-rank metrics.",
    )
    parser.add_argument(
        "-v",
        "--version",
        action="version",
        version=_version(),
        help="print skirm's version and the trec_eval version it follows",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    ev = sub.add_parser(
        "eval",
        help="evaluate TREC runs against qrels (a trec_eval replacement)",
        description="Evaluate TREC runs against qrels with trec_eval 10.0's\n"
        "semantics (or 9.0.x's with --compat 9.0): ties broken by docno\n"
        "descending, R and the ideal DCG from the qrels, run queries missing\n"
        "from the qrels ignored. A RUN of '-' is read from standard input.",
        epilog=_EPILOG.format(
            trec=_wrap(trec_measure_names()), skirm=_wrap(metric_names())
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("qrels", metavar="QRELS", help="qrels file (qid iter docno rel)")
    ev.add_argument(
        "runs",
        metavar="RUN",
        nargs="+",
        help="run file(s) (qid iter docno rank score run_id); .gz is read "
        "transparently; '-' reads standard input",
    )
    ev.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="a measure to compute (repeatable); default: official",
    )
    ev.add_argument(
        "-q",
        "--query_eval_wanted",
        "--per-query",
        dest="per_query",
        action="store_true",
        help="also print per-query values",
    )
    ev.add_argument(
        "-n",
        "--nosummary",
        dest="no_summary",
        action="store_true",
        help="do not print the summary over all queries (with -q: only "
        "per-query values)",
    )
    ev.add_argument(
        "-l",
        "--level_for_rel",
        "--relevance-level",
        dest="relevance_level",
        type=int,
        default=1,
        metavar="LEVEL",
        help="qrels level at or above which a document is relevant (default 1)",
    )
    ev.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        "--all-queries",
        dest="all_queries",
        action="store_true",
        help="average over every qrels query; missing ones count as 0",
    )
    ev.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        "--max-docs",
        dest="max_docs",
        type=int,
        metavar="N",
        help="evaluate only the top N documents of each query",
    )
    ev.add_argument(
        "-J",
        "--Judged_docs_only",
        "--judged-only",
        dest="judged_only",
        action="store_true",
        help="drop documents missing from the qrels before evaluating",
    )
    ev.add_argument(
        "--compat",
        choices=COMPAT,
        default=COMPAT[0],
        help="the trec_eval version to follow: 10.0 (default) or 9.0 (9.0.x, as "
        "pytrec_eval: scores compared as C floats, the older recall cutoffs of "
        "iprec_at_recall and 11pt_avg, qrels queries missing from the run left "
        "out, all_trec without rbp, rbp_resid and unj)",
    )
    ev.add_argument(
        "-N",
        "--collection-size",
        type=int,
        default=0,
        metavar="N",
        help="number of documents in the collection (for utility; default 0)",
    )
    ev.add_argument(
        "-R",
        "--rel-format",
        choices=REL_FORMATS,
        default="qrels",
        help="format of QRELS: qrels (default); qrels_jg (judgment groups in "
        "the second column, for the *_avgjg measures); prefs (qid jg jsg docno "
        "level) or qrels_prefs (qrels read as preferences) for the prefs_* "
        "measures",
    )
    ev.add_argument(
        "-Z",
        "--zscores",
        metavar="FILE",
        help="print z-scores: per-query values standardised with the "
        "'qid measure mean stddev' lines of FILE, before the summary",
    )
    ev.add_argument(
        "--format",
        choices=("table", "trec", "json", "csv"),
        help="output layout: a table with one column per run, trec_eval's "
        "exact layout, JSON or CSV; default: table on a terminal, trec "
        "otherwise (in pipes and files, as trec_eval prints)",
    )
    _add_plot_option(
        ev,
        "NDCG@k (k = 1..100) and the interpolated precision-recall curve of the runs",
    )
    ev.add_argument(
        "-v",
        "--version",
        action="version",
        version=_version(),
        help="print skirm's version and the trec_eval version it follows",
    )
    cmp = _add_compare_parser(sub, compare_options)
    parser.commands = {"eval": ev, "compare": cmp}
    return parser


def _version():
    from skirm import __version__

    return f"skirm {__version__} (trec_eval {COMPAT[0]} semantics)"


def _add_plot_option(parser, what):
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help=f"also write a figure to FILE (PNG, PDF, SVG, ... by its "
        f"extension): {what}; needs matplotlib (pip install skirm[plot])",
    )


_COMPARE_EPILOG = """\
Tests: t (paired Student t), randomization (Fisher, sign flips), bootstrap
(shift method), wilcoxon, sign; tukey_hsd and randomized_tukey_hsd over all
runs. The correction applies per measure over the pairs compared (auto: Holm
for several pairs, none for Tukey). Measures as in `skirm eval`; only
measures with per-query values can be compared.
"""


def _add_compare_parser(sub, options=True):
    cmp = sub.add_parser(
        "compare",
        help="compare TREC runs with paired significance tests",
        description="Compare TREC runs on the same queries: paired tests,\n"
        "multiple-comparison corrections, intervals and a report.",
        epilog=_COMPARE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if not options:  # `skirm eval` needs neither them nor scipy.stats
        return
    from skirm.stats._compare import MISSING, TUKEY
    from skirm.stats._paired import TESTS

    cmp.add_argument("qrels", metavar="QRELS", help="qrels file (qid iter docno rel)")
    cmp.add_argument("runs", metavar="RUN", nargs="+", help="two or more run files")
    cmp.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="a measure to compare (repeatable); default: map and ndcg_cut.10",
    )
    cmp.add_argument(
        "--baseline",
        metavar="NAME",
        help="compare every run with this one (its run id or file name); "
        "default: every pair",
    )
    cmp.add_argument("--test", choices=(*TESTS, *TUKEY), default="t")
    cmp.add_argument(
        "--correction",
        choices=("auto", "holm", "bonferroni", "fdr_bh", "none"),
        default="auto",
    )
    cmp.add_argument("--alpha", type=float, default=0.05, help="default 0.05")
    cmp.add_argument(
        "--n-resamples", type=int, default=10_000, metavar="B", help="default 10000"
    )
    cmp.add_argument("--seed", type=int, metavar="SEED", help="seed of the draws")
    cmp.add_argument(
        "--missing",
        choices=MISSING,
        default="raise",
        help="a query missing from a run: error (default), 0, or dropped",
    )
    cmp.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        "--all-queries",
        dest="all_queries",
        action="store_true",
        help="every qrels query counts; one missing from a run scores 0 (trec_eval -c)",
    )
    cmp.add_argument(
        "--compat",
        choices=COMPAT,
        default=COMPAT[0],
        help="the trec_eval version to follow, as in `skirm eval` (with 9.0, "
        "qrels queries missing from a run are left out: see --missing)",
    )
    cmp.add_argument(
        "-l",
        "--level_for_rel",
        "--relevance-level",
        dest="relevance_level",
        type=int,
        default=1,
        metavar="LEVEL",
        help="qrels level at or above which a document is relevant (default 1)",
    )
    cmp.add_argument(
        "--format",
        choices=("table", "markdown", "latex", "csv", "json"),
        default="table",
        help="output: a readable table (default), Markdown, LaTeX (booktabs), "
        "CSV or JSON rows (one per run and measure)",
    )
    _add_plot_option(cmp, "the forest plot of each measure, one panel each")
    return cmp


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def _is_integer(name, base):
    return base is not None and MEASURES[base].integer


def _fmt(value, integer):
    if isinstance(value, str):
        return value
    if value != value:  # NaN, as C's printf shows trec_eval's 0.0 / 0.0
        return "  -nan"
    return f"{round(value)}" if integer else f"{value:6.4f}"


def _nan(value):
    """A NaN as C's printf shows it: ``-nan`` when its sign bit is set (the
    result of 0.0 / 0.0), ``nan`` otherwise (``nan`` read from a file)."""
    return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"


def _trec_line(name, qid, value, integer, zscored):
    """One line as trec_eval prints it (``-Z``: a ``Z`` before the name and
    every number with 4 decimals; strings are never converted)."""
    if isinstance(value, str):
        return f"{name:<22}\t{qid}\t'{value}'"
    if zscored:
        text = f"{value:6.4f}" if value == value else _nan(value)
        return f"Z{name:<22}\t{qid}\t{text}"
    return f"{name:<22}\t{qid}\t{_fmt(value, integer)}"


def _trec_lines(result, outputs, per_query, summary=True):
    bases = {
        name: (base if kind == "trec" else None) for name, kind, base, _ in outputs
    }
    zscored = getattr(result, "zscored", False)
    lines = []
    if per_query:
        for i, qid in enumerate(result.group_ids.tolist()):
            for name, values in result.per_query.items():
                base = bases[name]
                if base is not None and not MEASURES[base].per_query:
                    continue
                value = values[i].item()
                integer = _is_integer(name, base)
                lines.append(_trec_line(name, qid, value, integer, zscored))
    if not summary:
        return lines
    if "runid" in bases:
        lines.append(f"{'runid':<22}\tall\t{result.run_id}")
    for name, value in result.means.items():
        integer = _is_integer(name, bases[name])
        lines.append(_trec_line(name, "all", value, integer, zscored))
    return lines


def _table(results, labels, outputs, per_query, summary=True):
    bases = {
        name: (base if kind == "trec" else None) for name, kind, base, _ in outputs
    }
    names = list(results[0].per_query)
    rows = [["measure", *(["query"] if per_query else []), *labels]]
    if per_query:
        qids = sorted({q for r in results for q in r.group_ids.tolist()})
        for qid in qids:
            for name in names:
                base = bases[name]
                if base is not None and not MEASURES[base].per_query:
                    continue
                cells = []
                for r in results:
                    index = {q: i for i, q in enumerate(r.group_ids.tolist())}
                    i = index.get(qid)
                    cells.append(
                        "-"
                        if i is None
                        else _fmt(
                            r.per_query[name][i].item(), _is_integer(name, base)
                        ).strip()
                    )
                rows.append([name, qid, *cells])
    for name in results[0].means if summary else ():
        base = bases[name]
        cells = [_fmt(r.means[name], _is_integer(name, base)).strip() for r in results]
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


def _records(result, per_query, summary=True):
    if per_query:
        for i, qid in enumerate(result.group_ids.tolist()):
            for name, values in result.per_query.items():
                yield qid, name, values[i].item()
    for name, value in result.means.items() if summary else ():
        yield "all", name, float(value)


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------


def _measure_error(measures, exc):
    """The registry's own message for a name that is no trec_eval name."""
    for name in measures:
        try:
            if parse_trec_name(name) is None:
                get_metric(name)
        except ValueError as err:
            return str(err)
    return str(exc)


def _source(path):
    """A path, or standard input (bytes) for ``-``."""
    return sys.stdin.buffer if path == "-" else path


def _run_eval(args, out):
    measures = args.measures or ["official"]
    try:
        outputs = _parse_metrics(measures, args.compat)
        check_rel_format(args.rel_format, outputs)
    except (ValueError, TypeError) as exc:
        raise _UsageError(_measure_error(measures, exc)) from None
    if args.relevance_level < 1:
        raise _UsageError(f"-l must be an integer >= 1, got {args.relevance_level}")
    if args.max_docs is not None and args.max_docs < 1:
        raise _UsageError(f"-M must be a positive integer, got {args.max_docs}")
    if args.collection_size < 0:
        raise _UsageError(f"-N must be an integer >= 0, got {args.collection_size}")
    if [args.qrels, *args.runs].count("-") > 1:
        raise _UsageError("standard input ('-') can be read once only")
    if args.plot is not None and args.rel_format != "qrels":
        raise _UsageError(f"--plot needs -R qrels, got -R {args.rel_format}")
    _check_plot(args.plot)
    if args.plot is not None and "-" in args.runs:
        raise _UsageError("--plot reads the runs again: give them as files, not '-'")
    qrels = _READERS[args.rel_format](_source(args.qrels))
    zscores = read_zscores(args.zscores) if args.zscores is not None else None
    params = {
        "relevance_level": args.relevance_level,
        "judged_only": args.judged_only,
        "max_docs": args.max_docs,
        "all_queries": args.all_queries,
        "compat": args.compat,
    }
    results = [
        _evaluate_path(
            qrels,
            path,
            measures,
            rel_format=args.rel_format,
            collection_size=args.collection_size,
            zscores=zscores,
            **params,
        )
        for path in args.runs
    ]
    labels = [r.run_id for r in results]
    if len(set(labels)) != len(labels):
        labels = list(args.runs)
    _write_eval(args, results, labels, outputs, out)
    if args.plot is not None:
        _plot_eval(args.plot, qrels, args.runs, labels, params)


def _output_format(choice):
    """``--format``, else trec_eval's layout unless standard output is a
    terminal (a person reading: the table)."""
    if choice is not None:
        return choice
    isatty = getattr(sys.stdout, "isatty", None)
    return "table" if isatty is not None and isatty() else "trec"


def _write_eval(args, results, labels, outputs, out):
    fmt, summary = _output_format(args.format), not args.no_summary
    if fmt == "trec":
        for result in results:
            lines = _trec_lines(result, outputs, args.per_query, summary)
            out.write("".join(line + "\n" for line in lines))
    elif fmt == "table":
        lines = _table(results, labels, outputs, args.per_query, summary)
        out.write("\n".join(lines) + "\n")
    elif fmt == "json":
        doc = []
        for path, result in zip(args.runs, results, strict=True):
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
        json.dump(doc, out, indent=2)
        out.write("\n")
    else:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["run", "query", "measure", "value"])
        for label, result in zip(labels, results, strict=True):
            for qid, name, value in _records(result, args.per_query, summary):
                text = value if isinstance(value, str) else repr(value)
                writer.writerow([label, qid, name, text])


def _evaluate_path(qrels, path, measures, **options):
    """:func:`evaluate_run` of a run file, streamed block by block; an empty
    file is named."""
    try:
        return evaluate_run(qrels, _source(path), measures, **options)
    except ValueError as exc:
        if str(exc).startswith("the run is empty"):
            where = "standard input" if path == "-" else path
            raise ValueError(f"the run file is empty: {where}") from None
        raise


def _compare_measures(measures, compat):
    try:
        outputs = _parse_metrics(measures, compat)
    except (ValueError, TypeError) as exc:
        raise _UsageError(str(exc)) from None
    for name, kind, base, _ in outputs:
        if kind == "trec" and not MEASURES[base].per_query:
            raise _UsageError(f"measure {name!r} has no per-query values to compare")
    return [name for name, *_ in outputs]


def _run_labels(results, paths):
    labels = [r.run_id for r in results]
    if len(set(labels)) != len(labels):
        labels = list(paths)
    if len(set(labels)) != len(labels):
        raise _UsageError("give each run once")
    return labels


def _json_value(value):
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, tuple):
        return list(value)
    return value


def _run_compare(args, out):
    from skirm.stats import compare

    measures = args.measures or ["map", "ndcg_cut.10"]
    names = _compare_measures(measures, args.compat)
    if len(args.runs) < 2:
        raise _UsageError("compare needs at least two runs")
    _check_plot(args.plot)
    if args.relevance_level < 1:
        raise _UsageError(f"-l must be an integer >= 1, got {args.relevance_level}")
    qrels = read_qrels(args.qrels)
    results = [
        _evaluate_path(
            qrels,
            path,
            measures,
            relevance_level=args.relevance_level,
            all_queries=args.all_queries,
            compat=args.compat,
        )
        for path in args.runs
    ]
    labels = _run_labels(results, args.runs)
    baseline = args.baseline
    if baseline is not None and baseline not in labels:
        if baseline not in args.runs:
            raise _UsageError(
                f"--baseline must be one of the runs {labels}, got {baseline!r}"
            )
        baseline = labels[list(args.runs).index(baseline)]
    correction = None if args.correction == "none" else args.correction
    try:
        comparison = compare(
            dict(zip(labels, results, strict=True)),
            baseline=baseline,
            metrics=names,
            test=args.test,
            correction=correction,
            alpha=args.alpha,
            n_resamples=args.n_resamples,
            missing="zero" if args.all_queries else args.missing,
            random_state=args.seed,
        )
    except ValueError as exc:
        if "`alpha`" in str(exc) or "`n_resamples`" in str(exc):
            raise _UsageError(str(exc)) from None
        raise
    _write_comparison(comparison, args.format, out)
    if args.plot is not None:
        _plot_compare(args.plot, comparison)


def _write_comparison(comparison, fmt, out):
    if fmt == "table":
        out.write(str(comparison) + "\n")
    elif fmt == "markdown":
        out.write(comparison.to_markdown())
    elif fmt == "latex":
        out.write(comparison.to_latex())
    else:
        rows = comparison.to_records("systems")
        if fmt == "csv":
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(list(rows[0]))
            for row in rows:
                writer.writerow(
                    [" ".join(v) if isinstance(v, tuple) else v for v in row.values()]
                )
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
        json.dump(doc, out, indent=2)
        out.write("\n")


# --------------------------------------------------------------------------
# Figures (--plot)
# --------------------------------------------------------------------------


def _check_plot(path):
    """Fail before any work when ``--plot`` is given without matplotlib."""
    if path is None:
        return
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise _UsageError(
            "--plot needs matplotlib; install it with `pip install skirm[plot]`"
        ) from None


def _figure(n_panels):
    """A figure of ``n_panels`` side by side on the Agg canvas (no pyplot
    window, no global backend change)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.0 * n_panels, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, n_panels, squeeze=False)[0]
    return figure, axes


def _plot_eval(path, qrels, runs, labels, params):
    from skirm.plot import MetricAtKDisplay, PrecisionRecallDisplay

    figure, (left, right) = _figure(2)
    for run, label in zip(runs, labels, strict=True):
        MetricAtKDisplay.from_run(
            qrels,
            run,
            metric="ndcg",
            k=range(1, 101),
            name=label,
            ax=left,
            run_params=params,
        )
        PrecisionRecallDisplay.from_run(
            qrels, run, name=label, ax=right, run_params=params
        )
    figure.savefig(path)


def _plot_compare(path, comparison):
    from skirm.plot import ComparisonDisplay

    figure, axes = _figure(len(comparison.metrics))
    for metric, ax in zip(comparison.metrics, axes, strict=True):
        ComparisonDisplay.from_comparison(comparison, metric=metric, ax=ax)
    figure.savefig(path)


def _write_out(text):
    """Write to standard output; ids read from non-UTF-8 files go back out
    as the bytes they were."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("utf-8", "surrogateescape"))
    buffer.flush()


def main(argv=None) -> int:
    """Run the ``skirm`` command line; returns the exit status.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments (``sys.argv[1:]`` by default).

    Returns
    -------
    status : int
        0 on success, 1 on an input error, 2 on a usage error.

    Examples
    --------
    >>> from skirm._cli import main
    >>> main(["eval", "no-such-qrels", "no-such-run"])  # the error goes to stderr
    1
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    # importing skirm.stats (scipy.stats) costs more than most evaluations
    parser = _build_parser(compare_options=argv[:1] != ["eval"])
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # reported with the command's usage line, not skirm's
            command = parser.commands[args.command]
            command.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:
        return int(exc.code or 0)
    run = _run_compare if args.command == "compare" else _run_eval
    command = f"skirm {args.command}"
    try:
        out = io.StringIO()
        run(args, out)
        _write_out(out.getvalue())
    except _UsageError as exc:
        parser.commands[args.command].print_usage(sys.stderr)
        print(f"{command}: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, TypeError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, OSError) and exc.filename is not None:
            text = f"cannot read {exc.filename}: {exc.strerror}"
        print(f"{command}: error: {text}", file=sys.stderr)
        return 1
    return 0
