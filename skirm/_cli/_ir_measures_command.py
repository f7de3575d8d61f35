"""``skirm ir_measures``: ir_measures' command line, computed by skirm."""

from __future__ import annotations

import argparse
import json
import sys

from skirm._cli._usage import UsageError

_DESCRIPTION = """\
Evaluate a TREC run with ir_measures' measures, as the `ir_measures` command
does (`ir_measures QRELS RUN "nDCG@10 P@5"`): one line per measure, its value
over the queries, each computed as ir_measures' default pipeline computes
it (skirm.trec.calc_aggregate: the tie order, the queries and the summary of
the provider ir_measures would use). MEASURES are ir_measures names, several
in one argument separated by spaces. QRELS is read as ir_measures reads a
qrels file: its second column is each judgment's subtopic (iteration)."""

_FORMATS = ("tsv", "jsonl")
_PLACES = 4


def add_ir_measures_parser(sub, epilog):
    parser = sub.add_parser(
        "ir_measures",
        help="evaluate a run with ir_measures' measures (as the ir_measures command)",
        description=_DESCRIPTION,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "qrels", metavar="QRELS", help="qrels file (qid iteration docno relevance)"
    )
    parser.add_argument(
        "run", metavar="RUN", help="run file (qid iter docno rank score run_id)"
    )
    parser.add_argument(
        "measures",
        metavar="MEASURES",
        nargs="+",
        help="ir_measures names ('nDCG@10 P@5', 'RBP(rel=1)')",
    )
    parser.add_argument(
        "-p",
        "--places",
        type=int,
        default=_PLACES,
        help="decimal places of the values (default 4; -1: every digit)",
    )
    parser.add_argument(
        "-q",
        "--by_query",
        action="store_true",
        help="a line per query and measure, then the summaries (query 'all')",
    )
    parser.add_argument(
        "-n",
        "--no_summary",
        action="store_true",
        help="with -q: no summary lines",
    )
    parser.add_argument(
        "-o",
        "--output_format",
        choices=_FORMATS,
        default=_FORMATS[0],
        help="tsv (default) or jsonl (a JSON object per line)",
    )
    return parser


def run_ir_measures(args, out):
    from skirm.trec._ir_measures import Evaluator

    if args.no_summary and not args.by_query:
        raise UsageError("--no_summary (-n) applies with --by_query (-q) only")
    if args.places < -1:
        raise UsageError(f"--places must be -1 or more, got {args.places}")
    names = list(dict.fromkeys(m for text in args.measures for m in text.split()))
    if not names:
        raise UsageError("MEASURES must name at least one measure")
    line = _line(args)
    evaluator = Evaluator(names, args.qrels)
    if not args.by_query:
        results = evaluator.calc_aggregate(args.run)
        out.write("".join(line(None, name, results[name]) for name in names))
        return
    results = evaluator.calc(args.run)
    out.write("".join(line(m.query_id, m.measure, m.value) for m in results.per_query))
    if not args.no_summary:
        out.write("".join(line("all", n, results.aggregated[n]) for n in names))


def _line(args):
    """``line(query_id, measure, value)``: one output line, as ir_measures
    prints it (the query id with ``-q`` only)."""
    if args.output_format == "jsonl":
        if args.places != _PLACES:
            sys.stderr.write("--places is ignored when using --output jsonl\n")

        def jsonl(query_id, measure, value):
            record = {"query_id": query_id, "measure": measure, "value": value}
            if not args.by_query:
                del record["query_id"]
            return json.dumps(record) + "\n"

        return jsonl
    spec = "" if args.places == -1 else f".{args.places}f"

    def tsv(query_id, measure, value):
        text = f"{measure}\t{value:{spec}}\n"
        return f"{query_id}\t{text}" if args.by_query else text

    return tsv
