"""``skirm eval``: runs evaluated against qrels, as trec_eval does."""

from __future__ import annotations

import os
import sys

from skirm._cli._formats import output_format, write_eval
from skirm._cli._gold_qrels import check_ppi_options
from skirm._cli._usage import UsageError, check_options
from skirm._errors import (
    EmptyRunError,
    InvalidInputError,
    InvalidParameterError,
    MeasureParameterError,
    MissingQueriesError,
    NoCommonQueryError,
    SkirmError,
    TrecFormatError,
)
from skirm._measures._options import REL_FORMAT
from skirm._measures._rows import PREFS, QRELS, QRELS_JG, QRELS_PREFS
from skirm._measures._table import OFFICIAL
from skirm._progress import current
from skirm.io._prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from skirm.io._trec_files import read_qrels
from skirm.io._zscores import read_zscores
from skirm.trec._evaluate_run import evaluate_request
from skirm.trec._rel_formats import check_rel_format
from skirm.trec._request import (
    COLLECTION_SIZE,
    MAX_DOCS,
    RELEVANCE_LEVEL,
    Options,
    parse_measures,
)

READERS = {
    QRELS: read_qrels,
    QRELS_JG: read_qrels_jg,
    PREFS: read_prefs,
    QRELS_PREFS: read_qrels_prefs,
}


def source(path):
    """A path, or standard input (bytes) for ``-``."""
    return sys.stdin.buffer if path == "-" else path


def qrels_name(path):
    """The qrels file as the progress line names it."""
    return "standard input" if path == "-" else os.path.basename(path)


def run_eval(args, out):
    check_ppi_options(args)
    if args.gold_qrels is not None:
        return _run_eval_gold(args, out)
    REL_FORMAT(args.rel_format)
    try:
        request = parse_measures(
            args.measures or [OFFICIAL], args.compat, diversity=True
        )
        check_rel_format(args.rel_format, request.outputs)
    except MeasureParameterError:
        raise  # a known measure: trec_eval cannot initialize it (status 2)
    except InvalidParameterError as exc:
        raise UsageError(exc.command_line or str(exc)) from None
    check_options(
        args,
        relevance_level=RELEVANCE_LEVEL,
        max_docs=MAX_DOCS,
        collection_size=COLLECTION_SIZE,
    )
    if [args.qrels, *args.runs].count("-") > 1:
        raise UsageError("standard input ('-') can be read once only")
    if args.plot is not None and args.rel_format != QRELS:
        raise UsageError(f"--plot needs -R qrels, got -R {args.rel_format}")
    if args.plot is not None:  # the figures' module loads for --plot only
        from skirm._cli._plots import check_plot

        check_plot(args.plot)
    if args.plot is not None and "-" in args.runs:
        raise UsageError("--plot reads the runs again: give them as files, not '-'")
    current().stage(f"reading {qrels_name(args.qrels)}")
    # diversity measures read the second column as the subtopic (ndeval)
    reader = read_qrels_jg if request.diversity else READERS[args.rel_format]
    qrels = reader(source(args.qrels))
    if len(qrels) == 0:  # trec_eval: "Cannot read qrels file" (status 2)
        where = "standard input" if args.qrels == "-" else args.qrels
        raise TrecFormatError(f"the qrels file is empty: {where}")
    if request.diversity:
        _check_subtopics(qrels, args.qrels, request)
    zscores = read_zscores(args.zscores) if args.zscores is not None else None
    options = options_of(args)
    # Nothing lost: the runs evaluated before one that fails are written
    # (trec_eval's format as soon as each is done), then the failure is
    # reported, with its status.
    # Ctrl-C likewise: the runs done are written, then the interruption is
    # reported (status 130), in every layout.
    streamed = output_format(args.format) == "trec"
    results, failure = [], None
    try:
        for result in evaluate_paths(
            qrels,
            args.runs,
            request,
            options,
            rel_format=args.rel_format,
            zscores=zscores,
        ):
            if isinstance(result, BaseException):
                failure = result
                break
            results.append(result)
            if streamed:
                write_eval(args, [result], [result.run_id], request, out)
                out.send()
    except KeyboardInterrupt as exc:
        failure = exc
    paths = args.runs[: len(results)]
    labels = [r.run_id for r in results]
    if len(set(labels)) != len(labels):
        labels = list(paths)
    if results and not streamed:
        write_eval(args, results, labels, request, out, paths)
    if failure is not None:
        raise failure
    if args.plot is not None:
        from skirm._cli._plots import plot_eval

        plot_eval(args.plot, qrels, args.runs, labels, options.keywords())


def _run_eval_gold(args, out):
    """``--gold-qrels``: each run's measures from the judge's qrels corrected
    by the gold qrels (:mod:`skirm._cli._gold_qrels`)."""
    import skirm._cli._gold_qrels as _ppi
    from skirm._cli._usage import per_query_request
    from skirm._measures._table import COMPARE_METRICS

    request, names = per_query_request(args.measures or COMPARE_METRICS, args.compat)
    _ppi.check_gold_options(args, "eval")
    check_options(
        args,
        relevance_level=RELEVANCE_LEVEL,
        max_docs=MAX_DOCS,
        collection_size=COLLECTION_SIZE,
    )
    current().stage(f"reading {qrels_name(args.qrels)}")
    qrels = read_qrels(source(args.qrels))
    gold = _ppi.read_gold(args.gold_qrels, qrels)
    options = options_of(args)
    sides = []
    for judgements in (qrels, gold):
        results = []
        for result in evaluate_paths(judgements, args.runs, request, options):
            if isinstance(result, BaseException):
                raise result  # every run is evaluated against both
            results.append(result)
        sides.append(results)
    labels = [r.run_id for r in sides[0]]
    if len(set(labels)) != len(labels):
        labels = list(args.runs)
    results = _ppi.ppi_results(*sides, names, args)
    _ppi.write_means(results, labels, args.runs, args.format, out)


def _check_subtopics(qrels, path, request):
    """Ordinary qrels given to diversity measures are refused (the library
    warns): every query with one subtopic, the second field of its lines."""
    from skirm.trec._ndeval_report import one_subtopic_message  # diversity only

    if one_subtopic_message(qrels) is None:
        return
    where = "standard input" if path == "-" else path
    names = ", ".join(d.text for d in request.diversity)
    raise InvalidInputError(
        f"the diversity measures ({names}) need subtopic judgments, and every "
        f"query of {where} has only 1 subtopic: the subtopic column, the second "
        "field of `topic subtopic docno judgment` lines, holds one value per "
        "query (ordinary qrels hold 0 there); give qrels whose second field "
        "names each judgment's subtopic (as ndeval reads them), or evaluate "
        "the other measures apart"
    )


def options_of(args):
    """The evaluation's :class:`Options` from the checked command-line
    options (``skirm compare`` has no ``-J``, ``-M``, ``-N``)."""
    return Options(
        args.relevance_level,
        getattr(args, "judged_only", False),
        getattr(args, "max_docs", None),
        args.all_queries,
        args.compat,
        getattr(args, "collection_size", 0),
    )


def evaluate_paths(qrels, paths, request, options, *, rel_format=QRELS, zscores=None):
    """:func:`evaluate_path` of each run in turn, with one parsed request,
    yielded as soon as it is done; the error of a run that cannot be
    evaluated is yielded in its place, and ends the runs. The progress line
    (if any) says which run of several is read."""
    progress = current()
    for i, path in enumerate(paths, 1):
        if len(paths) > 1:
            progress.set_context(f"[run {i} of {len(paths)}]")
        try:
            result = evaluate_path(qrels, path, request, options, rel_format, zscores)
        except (MissingQueriesError, NoCommonQueryError) as exc:
            # about the run as a whole: which of several runs is named
            yield _of_run(exc, path) if len(paths) > 1 else exc
            return
        except (OSError, SkirmError) as exc:
            yield exc
            return
        yield result
    progress.set_context("")


def _of_run(exc, path):
    """``exc`` (an error about a whole run) with the run's file named."""
    where = "standard input" if path == "-" else str(path)
    command_line = None if exc.command_line is None else f"{where}: {exc.command_line}"
    return type(exc)(f"{where}: {exc}", command_line=command_line)


def evaluate_path(qrels, path, request, options, rel_format, zscores):
    """The evaluation of a run file, streamed block by block; an empty file
    is named."""
    verbose = 0  # the command's own progress line reports
    try:
        return evaluate_request(
            qrels, source(path), request, options, rel_format=rel_format,
            zscores=zscores, verbose=verbose,
        )  # fmt: skip
    except EmptyRunError:
        where = "standard input" if path == "-" else path
        raise TrecFormatError(f"the run file is empty: {where}") from None
