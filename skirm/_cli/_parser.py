"""Argument parsing: the ``skirm`` parser, its ``eval`` and ``compare`` commands.

Option names follow trec_eval's (``-m``, ``-q``, ``-l``, ``-c``, ``-M``,
``-J``, ``-N``, ``-R``, ``-Z``, with its long forms); the epilogs list the
measure names. The ``compare`` options are built only when asked for, since
they need :mod:`skirm.stats` (scipy.stats), which ``eval`` does not.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from skirm._errors import EXIT_STATUSES, USAGE
from skirm.trec._request import VERSIONS

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

{exit_statuses}"""


def _columns():
    """The terminal's width as :func:`shutil.get_terminal_size` tells it
    (``COLUMNS``, else standard output's terminal, else 80), without
    importing :mod:`shutil`, which loads ``bz2`` and ``lzma``."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _Sized:
    """A help formatter whose default width is :func:`_columns` less 2 (as
    argparse's): argparse builds a formatter for every option added, and
    its own default imports :mod:`shutil` to size it."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class _HelpFormatter(_Sized, argparse.HelpFormatter):
    pass


class _RawDescriptionHelpFormatter(_Sized, argparse.RawDescriptionHelpFormatter):
    pass


_SIZED = {
    argparse.HelpFormatter: _HelpFormatter,
    argparse.RawDescriptionHelpFormatter: _RawDescriptionHelpFormatter,
}


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, formatter_class=argparse.HelpFormatter, **kwargs):
        formatter_class = _SIZED.get(formatter_class, formatter_class)
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def format_help(self):
        # An epilog given as a function is written when help is asked for:
        # the lists of measure names are not built for every run.
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(USAGE)


#: Where the user guide and the API reference are read (pyproject.toml's
#: ``Documentation`` URL, which a test holds this to).
DOCUMENTATION = "https://skirm.readthedocs.io"


def _exit_statuses():
    """The exit statuses of every command, for the end of its ``--help``
    (written when help is asked for, as the epilogs that end with it)."""
    lines = ["exit status (every command; trec_eval's where it has one):"]
    for status, meaning in EXIT_STATUSES:
        lines.append(
            textwrap.fill(
                meaning, 76, initial_indent=f"  {status}  ", subsequent_indent="     "
            )
        )
    return "\n".join(lines) + "\n"


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


def _eval_epilog():
    """The epilog of ``skirm eval --help``: every measure name."""
    from skirm._measures._names import trec_measure_names
    from skirm.metrics._registry import metric_names

    return _EPILOG.format(
        trec=_wrap(trec_measure_names()),
        skirm=_wrap(metric_names()),
        exit_statuses=_exit_statuses(),
    )


def build_parser(compare_options=True, *, only=None):
    """The ``skirm`` parser; ``parser.commands`` maps each command built to
    its parser. With ``only`` (a command's name, ``argv[0]``), that command's
    parser alone is built: the others' would be parsed for nothing (argparse
    builds a help formatter per option and looks for a translation catalogue
    per parser), and no output of ``only`` names them."""
    parser = _Parser(
        prog="skirm",
        description="Information-retrieval and learning-to-rank metrics.",
        epilog=f"documentation: {DOCUMENTATION}",
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
        epilog=_eval_epilog,
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
        choices=VERSIONS,
        default=VERSIONS[0],
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
        # Checked by the command, not here: trec_eval exits 2, not 1, on an
        # illegal rel_format.
        metavar="FORMAT",
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
    _add_gold_options(
        ev,
        "print each run's measures estimated from the judge's QRELS corrected "
        "by these human judgements of some queries (prediction-powered "
        "inference; table, json or csv)",
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
    _add_quiet_option(ev, "the bytes of each run read and the queries evaluated")
    ev.add_argument(
        "-v",
        "--version",
        action="version",
        version=_version(),
        help="print skirm's version and the trec_eval version it follows",
    )
    parser.commands = {"eval": ev}
    if only == "eval":
        return parser
    from skirm._cli._fuse_command import add_fuse_parser
    from skirm._cli._ir_measures_command import add_ir_measures_parser
    from skirm._cli._ndeval_command import add_ndeval_parser

    parser.commands["compare"] = _add_compare_parser(sub, compare_options)
    parser.commands["ndeval"] = add_ndeval_parser(sub, _exit_statuses)
    parser.commands["ir_measures"] = add_ir_measures_parser(sub, _exit_statuses)
    parser.commands["fuse"] = add_fuse_parser(sub, _exit_statuses)
    return parser


def _version():
    from skirm import __version__

    return f"skirm {__version__} (trec_eval {VERSIONS[0]} semantics)"


def _add_plot_option(parser, what):
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help=f"also write a figure to FILE (PNG, PDF, SVG, ... by its "
        f"extension): {what}; needs matplotlib (pip install skirm[plot])",
    )


def _add_gold_options(parser, what):
    # No choices here: their rules (skirm.stats) are checked when the
    # options are used, and `skirm eval` does not import scipy.stats.
    parser.add_argument("--gold-qrels", metavar="GOLD", help=what)
    parser.add_argument(
        "--ppi-method",
        default="ppi++",
        metavar="METHOD",
        help="with --gold-qrels: ppi++ (default: the judge weighted by the "
        "tuned lambda) or ppi (weight 1)",
    )
    parser.add_argument(
        "--ppi-interval",
        default="t",
        metavar="INTERVAL",
        help="with --gold-qrels: t (default; for few gold queries) or z "
        "(ppi_py's normal intervals)",
    )


def _add_quiet_option(parser, what):
    # No -q: trec_eval's -q asks for the per-query values.
    parser.add_argument(
        "--quiet",
        action="store_true",
        help=f"no progress line on standard error (shown where standard error "
        f"is a terminal, once the work has lasted a second: {what})",
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
        epilog=lambda: _COMPARE_EPILOG + "\n" + _exit_statuses(),
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
        action="append",
        help="compare every run with this one (its run id or file name); "
        "repeatable: every other run against each baseline, one correction "
        "over all those pairs; default: every pair",
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
        "--power",
        type=float,
        metavar="POWER",
        help="after the table, the minimum detectable effect of each pair at "
        "this power (paired t test on the comparison's queries)",
    )
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
        choices=VERSIONS,
        default=VERSIONS[0],
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
    _add_gold_options(
        cmp,
        "compare the runs on the judge's QRELS corrected by these human "
        "judgements of some queries (prediction-powered inference; table, csv "
        "or json)",
    )
    cmp.add_argument(
        "--format",
        choices=("table", "markdown", "latex", "csv", "json"),
        default="table",
        help="output: a readable table (default), Markdown, LaTeX (booktabs), "
        "CSV or JSON rows (one per run and measure)",
    )
    _add_plot_option(cmp, "the forest plot of each measure, one panel each")
    _add_quiet_option(
        cmp, "the bytes of each run read, the queries evaluated, the resamples drawn"
    )
    return cmp
