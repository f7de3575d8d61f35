"""``skirm ndeval``: the diversity measures of a run, in ndeval's layout."""

from __future__ import annotations

import argparse

from skirm._cli._usage import check_options

_DESCRIPTION = """\
Evaluate a TREC run with ndeval's novelty and diversity measures (the TREC
Web track's diversity task): ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG at 5, 10
and 20, NRBP, nNRBP, MAP-IA, P-IA and subtopic recall, printed as ndeval
prints them (CSV: one line per run query, then the mean, 'amean').

QRELS holds subtopic judgments, 'topic subtopic docno judgment' per line.
The run is ranked by score, ties by docno descending, as trec_eval and
'ndeval -traditional' rank it (ndeval's default trusts the rank column)."""


def add_ndeval_parser(sub, epilog):
    nd = sub.add_parser(
        "ndeval",
        help="diversity measures of a run against subtopic qrels (as ndeval)",
        description=_DESCRIPTION,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    nd.add_argument("qrels", metavar="QRELS", help="topic subtopic docno judgment")
    nd.add_argument(
        "run", metavar="RUN", help="run file (qid iter docno rank score id)"
    )
    nd.add_argument(
        "-c",
        "--all-queries",
        dest="all_queries",
        action="store_true",
        help="average over every judged query (ndeval -c)",
    )
    nd.add_argument(
        "--alpha",
        type=float,
        default=0.5,
        help="redundancy intolerance, in [0, 1] (default 0.5)",
    )
    nd.add_argument(
        "--beta",
        type=float,
        default=0.5,
        help="patience of NRBP, in [0, 1] (default 0.5)",
    )
    nd.add_argument(
        "-l",
        "--relevance-level",
        dest="relevance_level",
        type=int,
        default=1,
        metavar="LEVEL",
        help="judgment at or above which a document is relevant to a subtopic "
        "(default 1)",
    )
    return nd


def run_ndeval(args, out):
    from skirm._measures._options import ALPHA, BETA
    from skirm.trec._ndeval_report import evaluate_diversity, format_ndeval

    check_options(args, alpha=ALPHA, beta=BETA)
    report = evaluate_diversity(
        args.qrels,
        args.run,
        alpha=args.alpha,
        beta=args.beta,
        relevance_threshold=args.relevance_level,
        all_queries=args.all_queries,
    )
    out.write(format_ndeval(report))
