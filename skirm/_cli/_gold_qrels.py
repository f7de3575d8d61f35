"""``--gold-qrels``: runs evaluated against a judge's qrels, corrected by a
qrels of human judgements of some queries (prediction-powered inference).

Each run is evaluated against both qrels (two results: every query under the
judge, the gold queries under the humans), and :func:`skirm.stats.ppi_mean`
(``skirm eval``) or :func:`skirm.stats.ppi_compare` (``skirm compare``)
reads the two. A query is gold when the gold qrels has it.
"""

from __future__ import annotations

from skirm._cli._formats import _comparison_csv, _json_value
from skirm._cli._usage import UsageError, check_options
from skirm._errors import InvalidParameterError

#: Options that do not apply with --gold-qrels, by command: (attribute,
#: option, default).
_NOT_WITH_GOLD = {
    "eval": (
        ("rel_format", "-R", "qrels"),
        ("zscores", "-Z", None),
        ("plot", "--plot", None),
        ("per_query", "-q", False),
        ("no_summary", "-n", False),
    ),
    "compare": (
        ("test", "--test", "t"),
        ("power", "--power", None),
        ("plot", "--plot", None),
        ("seed", "--seed", None),
        ("n_resamples", "--n-resamples", 10_000),
        ("missing", "--missing", "raise"),
    ),
}
FORMATS = ("table", "json", "csv")


def check_ppi_options(args):
    """``--ppi-method`` and ``--ppi-interval`` checked by their rules when
    given (:mod:`skirm.stats` is imported then only), and refused without
    ``--gold-qrels``."""
    given = [
        option
        for option, name, default in (
            ("--ppi-method", "ppi_method", "ppi++"),
            ("--ppi-interval", "ppi_interval", "t"),
        )
        if getattr(args, name) != default
    ]
    if not given and args.gold_qrels is None:
        return
    from skirm.stats._ppi_mean import PPI_INTERVAL, PPI_METHOD

    check_options(args, ppi_method=PPI_METHOD, ppi_interval=PPI_INTERVAL)
    if args.gold_qrels is None:
        raise UsageError(f"{given[0]} applies with --gold-qrels only")


def check_gold_options(args, command):
    """The options that do not apply with ``--gold-qrels`` refused; the runs
    are read twice, so none is standard input."""
    for name, option, default in _NOT_WITH_GOLD[command]:
        if getattr(args, name) != default:
            raise UsageError(f"{option} does not apply with --gold-qrels")
    if args.format is not None and args.format not in FORMATS:
        raise UsageError(
            f"--gold-qrels prints {', '.join(FORMATS)}; got --format {args.format}"
        )
    if "-" in args.runs or args.gold_qrels == "-":
        raise UsageError(
            "--gold-qrels reads each run twice and the gold qrels from a file: "
            "give them as files, not '-'"
        )


def read_gold(path, qrels):
    """The gold qrels, on the judge's scale (:func:`skirm.stats`' rule)."""
    from skirm.io._trec_files import read_qrels
    from skirm.stats._ppi_inputs import check_scales

    gold = read_qrels(path)
    if len(gold) == 0 or len(qrels) == 0:
        raise UsageError(f"the gold qrels file is empty: {path}")
    check_scales(
        float(qrels.labels.max()),
        float(gold.labels.max()),
        "QRELS",
        f"--gold-qrels {path}",
    )
    return gold


def ppi_results(judge_results, gold_results, names, args):
    """:func:`skirm.stats.ppi_mean` of each run."""
    from skirm.stats import ppi_mean

    return [
        ppi_mean(
            judge,
            gold,
            metrics=names,
            method=args.ppi_method,
            interval=args.ppi_interval,
        )
        for judge, gold in zip(judge_results, gold_results, strict=True)
    ]


def write_means(results, labels, paths, fmt, out):
    """Each run's :class:`~skirm.stats.PPIResult` as text, JSON or CSV."""
    fmt = fmt or "table"
    if fmt == "table":
        for label, result in zip(labels, results, strict=True):
            out.write(f"{label}\n{result}\n\n")
    elif fmt == "json":
        import json

        doc = [
            {
                "file": path,
                "run": label,
                "estimates": [
                    {k: _json_value(v) for k, v in r.items()}
                    for r in result.to_records()
                ],
            }
            for path, label, result in zip(paths, labels, results, strict=True)
        ]
        json.dump(doc, out, indent=2)
        out.write("\n")
    else:
        import csv

        writer = csv.writer(out, lineterminator="\n")
        rows = [
            {"run": label, **row}
            for label, result in zip(labels, results, strict=True)
            for row in result.to_records()
        ]
        writer.writerow(list(rows[0]))
        for row in rows:
            writer.writerow(
                [repr(v) if isinstance(v, float) else v for v in row.values()]
            )


def compare_runs(judge, gold, names, baseline, args):
    """:func:`skirm.stats.ppi_compare` of the runs (labelled alike in the
    two dicts)."""
    from skirm.stats import ppi_compare

    correction = None if args.correction == "none" else args.correction
    try:
        return ppi_compare(
            judge, gold, baseline=baseline, metrics=names, method=args.ppi_method,
            correction=correction, alpha=args.alpha, interval=args.ppi_interval,
        )  # fmt: skip
    except InvalidParameterError as exc:
        raise UsageError(exc.command_line or str(exc)) from None


def write_comparison(comparison, fmt, out):
    """A :class:`~skirm.stats.PPIComparison` as text, CSV or JSON."""
    if fmt == "table":
        out.write(str(comparison) + "\n")
        return
    systems, pairs = comparison.to_records("systems"), comparison.to_records("pairs")
    if fmt == "csv":
        _comparison_csv(systems, pairs, out)
        return
    import json

    doc = {
        "systems": comparison.systems,
        "baselines": comparison.baselines,
        "metrics": comparison.metrics,
        "method": comparison.method,
        "interval": comparison.interval,
        "correction": comparison.correction,
        "alpha": comparison.alpha,
        "n_queries": comparison.n_queries,
        "n_gold": comparison.n_gold,
        "kendall_tau": {k: _json_value(v) for k, v in comparison.kendall_tau.items()},
        "systems_table": [{k: _json_value(v) for k, v in r.items()} for r in systems],
        "pairs_table": [{k: _json_value(v) for k, v in r.items()} for r in pairs],
    }
    json.dump(doc, out, indent=2)
    out.write("\n")
