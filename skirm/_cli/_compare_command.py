"""``skirm compare``: runs compared with paired significance tests."""

from __future__ import annotations

import skirm._cli._gold_qrels as ppi
from skirm._cli._eval_command import evaluate_paths, options_of, qrels_name
from skirm._cli._formats import write_comparison
from skirm._cli._plots import check_plot, plot_compare
from skirm._cli._usage import UsageError, check_options, per_query_request
from skirm._errors import InvalidParameterError
from skirm._measures._table import COMPARE_METRICS
from skirm._progress import current
from skirm.io._trec_files import read_qrels
from skirm.stats._power import POWER
from skirm.trec._request import RELEVANCE_LEVEL


def _run_labels(results, paths):
    labels = [r.run_id for r in results]
    if len(set(labels)) != len(labels):
        labels = list(paths)
    if len(set(labels)) != len(labels):
        raise UsageError("give each run once")
    return labels


def _baseline_label(baseline, labels, runs):
    if baseline in labels:
        return baseline
    if baseline not in runs:
        raise UsageError(
            f"--baseline must be one of the runs {labels}, got {baseline!r}"
        )
    return labels[list(runs).index(baseline)]


def _detectable(comparison, power):
    """The minimum detectable effect of each pair and measure: ``d_z`` from
    the paired t test on the comparison's queries, at alpha divided by the
    pairs of a measure when a correction was applied (Bonferroni's bound on
    any of the corrections), times the standard deviation of the pair's
    differences for the measure's units."""
    from skirm.stats import minimum_detectable_effect

    m = len(comparison.pairs)
    alpha = (
        comparison.alpha / m if comparison.correction is not None else comparison.alpha
    )
    side = comparison.alternative
    d_z = minimum_detectable_effect(
        comparison.n_queries, power=power, alpha=alpha, alternative=side
    ).effect_size
    level = f"{comparison.alpha:g}/{m}" if alpha != comparison.alpha else f"{alpha:g}"
    lines = [
        f"\nMinimum detectable effect at power {power:g} (paired t test, alpha "
        f"{level} per pair, {comparison.n_queries} queries): d_z {d_z:.4f}; in "
        "each measure's units (d_z times the standard deviation of the pair's "
        "differences):"
    ]
    for metric in comparison.metrics:
        for a, b in comparison.pairs:
            diffs = comparison.per_query[a][metric] - comparison.per_query[b][metric]
            lines.append(f"{metric}: {a} - {b} = {abs(d_z) * diffs.std(ddof=1):.4f}")
    return "\n".join(lines) + "\n"


def run_compare(args, out):
    from skirm.stats import compare

    request, names = per_query_request(args.measures or COMPARE_METRICS, args.compat)
    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    check_plot(args.plot)
    check_options(args, relevance_level=RELEVANCE_LEVEL)
    if args.power is not None:
        check_options(args, power=POWER)
        if args.format != "table":
            raise UsageError("--power adds lines to --format table only")
    ppi.check_ppi_options(args)
    if args.gold_qrels is not None:
        ppi.check_gold_options(args, "compare")
    current().stage(f"reading {qrels_name(args.qrels)}")
    qrels = read_qrels(args.qrels)
    judgements = [qrels]
    if args.gold_qrels is not None:
        judgements.append(ppi.read_gold(args.gold_qrels, qrels))
    sides = []
    for each in judgements:
        results = []
        for result in evaluate_paths(each, args.runs, request, options_of(args)):
            if isinstance(result, BaseException):
                raise result  # a comparison needs every run
            results.append(result)
        sides.append(results)
    results = sides[0]
    labels = _run_labels(results, args.runs)
    baseline = None
    if args.baseline is not None:
        baseline = [_baseline_label(b, labels, args.runs) for b in args.baseline]
        baseline = baseline[0] if len(baseline) == 1 else baseline
    if args.gold_qrels is not None:
        comparison = ppi.compare_runs(
            dict(zip(labels, sides[0], strict=True)),
            dict(zip(labels, sides[1], strict=True)),
            names,
            baseline,
            args,
        )
        ppi.write_comparison(comparison, args.format, out)
        return
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
    if args.power is not None:
        out.write(_detectable(comparison, args.power))
    if args.plot is not None:
        plot_compare(args.plot, comparison)
