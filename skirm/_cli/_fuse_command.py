"""``skirm fuse``: runs fused into one, written as a TREC run; with
``--tune``, the weights chosen per fold and the held-out run compared with
each input run."""

from __future__ import annotations

import argparse
import io
import sys

from skirm._cli._usage import UsageError, check_options

_DESCRIPTION = """\
Fuse TREC runs into one run, written to standard output in TREC format
(ranked by fused score, ties by docno descending). Each query's documents
are the union of those the runs returned; each run's scores are normalised
(or ranked) per query and combined.

With --tune MEASURE and --qrels QRELS, the weights of the runs are chosen
per fold of queries: each fold's queries are fused with the weights that
maximise MEASURE on the other folds' queries, so the run written holds
held-out scores only. A report (the weights of each fold, and the held-out
run compared with each input run by a paired test with a correction) goes
to standard error, or to --report FILE."""

_EPILOG = """\
methods: rrf (sum of w / (k + rank)), isr (inverse square rank), borda
(Borda count), rbc (rank-biased centroid) read each run's order; combsum
(weighted sum), combmnz, combmax, combmin, combanz read the scores
normalised by --norm (min-max, max, sum, zscore, rank, borda, none).
"""


def add_fuse_parser(sub, exit_statuses):
    # skirm.stats (scipy.stats) is imported when a report is made, not to
    # build the parser: `skirm --version` does not pay for it
    from skirm.fusion._rules import METHODS, NORMS

    fu = sub.add_parser(
        "fuse",
        help="fuse TREC runs into one (reciprocal rank fusion, CombSUM, ...)",
        description=_DESCRIPTION,
        epilog=lambda: _EPILOG + "\n" + exit_statuses(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fu.add_argument("runs", metavar="RUN", nargs="+", help="run files to fuse")
    fu.add_argument(
        "-m",
        "--method",
        default="rrf",
        metavar="METHOD",
        help=f"the fusion method: {', '.join(METHODS)} (default rrf)",
    )
    fu.add_argument(
        "--norm",
        default="min-max",
        metavar="NORM",
        help=f"the normalisation of the score methods: {', '.join(NORMS)} "
        "(default min-max)",
    )
    fu.add_argument("--k", type=float, default=60.0, help="rrf's constant (default 60)")
    fu.add_argument(
        "--phi", type=float, default=0.8, help="rbc's persistence (default 0.8)"
    )
    fu.add_argument(
        "--weights",
        metavar="W,W,...",
        help="one weight per run, comma-separated (default 1 each)",
    )
    fu.add_argument(
        "--run-id", default="fused", help="run id of the fused run (default fused)"
    )
    fu.add_argument(
        "--tune",
        metavar="MEASURE",
        help="choose the weights per fold of queries to maximise MEASURE "
        "(e.g. ndcg@10, map); needs --qrels",
    )
    fu.add_argument("--qrels", metavar="QRELS", help="qrels file, for --tune")
    fu.add_argument("--folds", type=int, default=5, help="folds of queries (default 5)")
    fu.add_argument(
        "--weight-step",
        type=float,
        default=0.1,
        metavar="STEP",
        help="weights searched: multiples of STEP summing to 1 (default 0.1)",
    )
    fu.add_argument(
        "--seed",
        type=int,
        metavar="SEED",
        help="shuffle the queries into folds (and seed the tests' draws)",
    )
    fu.add_argument(
        "--test",
        default="t",
        metavar="TEST",
        help="the report's paired test: t (default), randomization, bootstrap, "
        "wilcoxon, sign, or tukey_hsd, randomized_tukey_hsd over all runs",
    )
    fu.add_argument(
        "--correction",
        choices=("auto", "holm", "bonferroni", "fdr_bh", "none"),
        default="auto",
        help="default auto (Holm for several runs)",
    )
    fu.add_argument("--alpha", type=float, default=0.05, help="default 0.05")
    fu.add_argument("--report", metavar="FILE", help="write the --tune report to FILE")
    return fu


def _weights(text):
    if text is None:
        return None
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(
            f"--weights must be numbers separated by commas, got {text!r}"
        ) from None


def run_fuse(args, out):
    from skirm.fusion._rules import METHOD, NORM, PHI, RRF_K, WEIGHT_STEP, WEIGHTS
    from skirm.io import write_run
    from skirm.stats._compare import ALPHA, COMPARE_TEST
    from skirm.stats._resampling import RANDOM_STATE
    from skirm.trec._fuse import FOLDS, fuse, tune_fusion

    args.weights = _weights(args.weights)
    check_options(args, method=METHOD, norm=NORM, k=RRF_K, phi=PHI, weights=WEIGHTS)
    check_options(args, folds=FOLDS, weight_step=WEIGHT_STEP, alpha=ALPHA)
    check_options(args, seed=RANDOM_STATE, test=COMPARE_TEST)
    settings = {"method": args.method, "norm": args.norm, "k": args.k}
    settings.update(phi=args.phi, run_id=args.run_id)
    tuned = None
    if args.tune is None:
        for option in ("qrels", "report"):
            if getattr(args, option) is not None:
                raise UsageError(f"--{option} goes with --tune")
        run = fuse(args.runs, weights=args.weights, **settings)
    else:
        if args.qrels is None:
            raise UsageError("--tune needs --qrels")
        if args.weights is not None:
            raise UsageError("--tune chooses the weights: leave out --weights")
        tuned = tune_fusion(
            args.qrels,
            args.runs,
            args.tune,
            folds=args.folds,
            weight_step=args.weight_step,
            random_state=args.seed,
            **settings,
        )
        run = tuned.run
    write_run(out, run.query_ids, run.doc_ids, run.scores, run_id=args.run_id)
    if tuned is not None:
        report = io.StringIO()
        _report(args, tuned, report)
        if args.report is None:
            sys.stderr.write(report.getvalue())
        else:
            with open(args.report, "w", encoding="utf-8") as fh:
                fh.write(report.getvalue())


def _report(args, tuned, report):
    """The weights of each fold, then the held-out run compared with each
    input run."""
    from skirm.stats import compare

    names = list(tuned.results)[1:]
    report.write(
        f"skirm fuse: {args.method}, weights chosen per fold on {tuned.metric} "
        f"({len(tuned.folds)} folds, step {args.weight_step:g}); weights of "
        f"{', '.join(names)}\n"
        f"fold  queries  train {tuned.metric}  weights\n"
    )
    for f, queries in enumerate(tuned.folds):
        weights = " ".join(f"{w:g}" for w in tuned.weights[f])
        report.write(
            f"{f + 1:>4}  {len(queries):>7}  {tuned.train_scores[f]:.4f}  {weights}\n"
        )
    comparison = compare(
        tuned.results,
        baseline=args.run_id,
        test=args.test,
        correction=None if args.correction == "none" else args.correction,
        alpha=args.alpha,
        random_state=args.seed,
    )
    report.write("\n" + str(comparison) + "\n")
