"""``skirm eval``: runs evaluated against qrels, as trec_eval does."""

from __future__ import annotations

import os
import sys

from skirm._cli._formats import write_eval
from skirm._cli._parser import UsageError, check_options
from skirm._cli._plots import check_plot, plot_eval
from skirm._errors import (
    EmptyRunError,
    InvalidParameterError,
    MeasureParameterError,
    TrecFormatError,
)
from skirm._progress import current
from skirm._trec_names import parse_trec_name
from skirm.io._prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from skirm.io._trec import read_qrels
from skirm.metrics._registry import get_metric
from skirm.trec._evaluate import evaluate_run
from skirm.trec._formats import REL_FORMAT, check_rel_format
from skirm.trec._request import (
    COLLECTION_SIZE,
    MAX_DOCS,
    RELEVANCE_LEVEL,
    is_diversity_name,
    parse_measures,
)
from skirm.trec._zscores import read_zscores

READERS = {
    "qrels": read_qrels,
    "qrels_jg": read_qrels_jg,
    "prefs": read_prefs,
    "qrels_prefs": read_qrels_prefs,
}


def _measure_error(measures, exc):
    """The registry's own message for a name that is no trec_eval name."""
    for name in measures:
        try:
            if parse_trec_name(name) is None:
                get_metric(name)
        except ValueError as err:
            if is_diversity_name(name):  # its own message: a cutoff, an option
                continue
            return str(err)
    return str(exc)


def source(path):
    """A path, or standard input (bytes) for ``-``."""
    return sys.stdin.buffer if path == "-" else path


def qrels_name(path):
    """The qrels file as the progress line names it."""
    return "standard input" if path == "-" else os.path.basename(path)


def run_eval(args, out):
    REL_FORMAT(args.rel_format)
    measures = args.measures or ["official"]
    try:
        outputs = parse_measures(measures, args.compat, diversity=True)
        check_rel_format(args.rel_format, outputs)
    except MeasureParameterError:
        raise  # a known measure: trec_eval cannot initialize it (status 2)
    except InvalidParameterError as exc:
        if exc.command_line is not None:  # -R against the measures
            raise UsageError(exc.command_line) from None
        raise UsageError(_measure_error(measures, exc)) from None
    check_options(
        args,
        relevance_level=RELEVANCE_LEVEL,
        max_docs=MAX_DOCS,
        collection_size=COLLECTION_SIZE,
    )
    if [args.qrels, *args.runs].count("-") > 1:
        raise UsageError("standard input ('-') can be read once only")
    if args.plot is not None and args.rel_format != "qrels":
        raise UsageError(f"--plot needs -R qrels, got -R {args.rel_format}")
    check_plot(args.plot)
    if args.plot is not None and "-" in args.runs:
        raise UsageError("--plot reads the runs again: give them as files, not '-'")
    current().stage(f"reading {qrels_name(args.qrels)}")
    # diversity measures read the second column as the subtopic (ndeval)
    diversity = any(kind == "diversity" for _, kind, _, _ in outputs)
    reader = read_qrels_jg if diversity else READERS[args.rel_format]
    qrels = reader(source(args.qrels))
    if len(qrels) == 0:  # trec_eval: "Cannot read qrels file" (status 2)
        where = "standard input" if args.qrels == "-" else args.qrels
        raise TrecFormatError(f"the qrels file is empty: {where}")
    zscores = read_zscores(args.zscores) if args.zscores is not None else None
    params = {
        "relevance_level": args.relevance_level,
        "judged_only": args.judged_only,
        "max_docs": args.max_docs,
        "all_queries": args.all_queries,
        "compat": args.compat,
    }
    results = evaluate_paths(
        qrels,
        args.runs,
        measures,
        rel_format=args.rel_format,
        collection_size=args.collection_size,
        zscores=zscores,
        **params,
    )
    labels = [r.run_id for r in results]
    if len(set(labels)) != len(labels):
        labels = list(args.runs)
    write_eval(args, results, labels, outputs, out)
    if args.plot is not None:
        plot_eval(args.plot, qrels, args.runs, labels, params)


def evaluate_paths(qrels, paths, measures, **options):
    """:func:`evaluate_path` of each run; the progress line (if any) says
    which run of several is read."""
    progress = current()
    results = []
    for i, path in enumerate(paths, 1):
        if len(paths) > 1:
            progress.set_context(f"[run {i} of {len(paths)}]")
        results.append(evaluate_path(qrels, path, measures, **options))
    progress.set_context("")
    return results


def evaluate_path(qrels, path, measures, **options):
    """:func:`evaluate_run` of a run file, streamed block by block; an empty
    file is named."""
    try:
        return evaluate_run(qrels, source(path), measures, **options)
    except EmptyRunError:
        where = "standard input" if path == "-" else path
        raise TrecFormatError(f"the run file is empty: {where}") from None
