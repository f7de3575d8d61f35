"""``skirm compare``: runs compared with paired significance tests."""

from __future__ import annotations

from skirm._cli._eval import evaluate_paths, options_of, qrels_name
from skirm._cli._formats import write_comparison
from skirm._cli._plots import check_plot, plot_compare
from skirm._cli._usage import UsageError, check_options
from skirm._errors import InvalidParameterError
from skirm._measures._table import COMPARE_METRICS
from skirm._progress import current
from skirm.io._trec import read_qrels
from skirm.trec._request import RELEVANCE_LEVEL, parse_measures


def _compare_measures(measures, compat):
    """The request of ``-m``, and the names of its outputs."""
    try:
        request = parse_measures(measures, compat)
    except InvalidParameterError as exc:
        raise UsageError(str(exc)) from None
    for output in request.outputs:
        if output.spelling is not None and not output.spelling.per_query:
            raise UsageError(
                f"measure {output.name!r} has no per-query values to compare"
            )
    return request, [output.name for output in request.outputs]


def _run_labels(results, paths):
    labels = [r.run_id for r in results]
    if len(set(labels)) != len(labels):
        labels = list(paths)
    if len(set(labels)) != len(labels):
        raise UsageError("give each run once")
    return labels


def run_compare(args, out):
    from skirm.stats import compare

    request, names = _compare_measures(args.measures or COMPARE_METRICS, args.compat)
    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    check_plot(args.plot)
    check_options(args, relevance_level=RELEVANCE_LEVEL)
    current().stage(f"reading {qrels_name(args.qrels)}")
    qrels = read_qrels(args.qrels)
    results = []
    for result in evaluate_paths(qrels, args.runs, request, options_of(args)):
        if isinstance(result, BaseException):
            raise result  # a comparison needs every run
        results.append(result)
    labels = _run_labels(results, args.runs)
    baseline = args.baseline
    if baseline is not None and baseline not in labels:
        if baseline not in args.runs:
            raise UsageError(
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
    except InvalidParameterError as exc:
        raise UsageError(exc.command_line or str(exc)) from None
    write_comparison(comparison, args.format, out)
    if args.plot is not None:
        plot_compare(args.plot, comparison)
