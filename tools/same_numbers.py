"""Before/after check that a change leaves skirm's numbers unchanged, bit for bit.

A refactoring must not move a single bit of any output. This script computes,
through the public API only, a large fixed set of outputs on seeded generated
inputs and either saves them or compares them with a saved set:

- every registry metric name (no cutoff, k = 1, 3, 10, 100, and batches of
  cutoffs) on flat rows of several shapes (grouped and shuffled queries,
  integer and string ids, ties and none, 3-row and 2,000-row queries,
  fractional labels, 2-D input, ranked lists, unjudged rows, query weights,
  judge samples), under every tie policy and ``n_jobs`` 1 and 2, with
  inputs large enough to be cut into several blocks of queries;
- every trec_eval measure of ``all_trec`` and the other nicknames, through
  :func:`skirm.trec.evaluate_run` on generated qrels/run files and on
  trec_eval's conformance files, with ``-l``, ``-J``, ``-M``, ``-c``,
  ``-N``, ``-Z``, ``-R qrels_jg`` / ``prefs`` / ``qrels_prefs`` and
  ``compat="9.0"``; and the bytes ``skirm eval`` and ``skirm compare`` print;
- statistics (paired tests, corrections, intervals, Tukey HSD), scorers,
  the beyond-accuracy metrics, and the messages of a set of bad inputs;
- the doors: the ir_measures drop-in (every registered name and some of
  their options, with ties, on dicts, named tuples and frames), the
  pytrec_eval drop-in and evaluate_run on dicts, frames, tuples and
  records (pooled and sparse judgements), the variants of measure names,
  the diversity measures (and ndeval's report), judgment groups and
  preferences given as records.

Usage::

    python tools/same_numbers.py save BASELINE.npz    # on the commit before
    python tools/same_numbers.py check BASELINE.npz   # on the commit after
    python tools/same_numbers.py show BASELINE.npz    # ... and what changed

``check`` prints the number of outputs that differ (0 when the change keeps
every number) and exits 1 if any does; ``show`` also prints, for every
output that differs, its value before and after, and counts how many of
them are numbers (every other output is a message or printed text). Floats
are compared by their bits, so NaN equals NaN and -0.0 differs from 0.0.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile
import warnings
from functools import partial

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFORMANCE = os.path.join(ROOT, "tests", "data", "trec_eval")
CUTOFFS = (1, 3, 10, 100)
TIES = ("average", "first", "optimistic", "pessimistic")


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _grouped(rng, n_queries, size, ties, labels=5):
    sizes = rng.integers(1, 2 * size, n_queries)
    groups = np.repeat(np.arange(n_queries) * 3 + 7, sizes)
    n = groups.shape[0]
    y_true = rng.integers(0, labels, n)
    y_score = rng.normal(size=n)
    if ties:
        y_score = np.round(y_score, 1)
    return y_true, y_score, groups


def array_inputs():
    """``{name: (y_true, y_score, groups, extra kwargs)}``, seeded."""
    rng = np.random.default_rng(20261124)
    out = {}
    y, s, g = _grouped(rng, 3000, 100, ties=True)
    out["grouped_ties"] = (y, s, g, {})
    y, s, g = _grouped(rng, 3000, 100, ties=False)
    out["grouped_distinct"] = (y, s, g, {})
    y, s, g = _grouped(rng, 600, 80, ties=True)
    perm = rng.permutation(y.shape[0])
    out["shuffled_strings"] = (
        y[perm],
        s[perm],
        np.array([f"q{v}" for v in g[perm]]),
        {},
    )
    n = 3 * 4000
    out["three_row_strings"] = (
        rng.integers(0, 3, n),
        np.round(rng.random(n), 2),
        np.repeat(np.array([f"u{i:05d}" for i in range(4000)]), 3),
        {},
    )
    out["long_queries"] = (
        rng.integers(0, 4, 40000),
        np.round(rng.normal(size=40000), 1),
        np.repeat(np.arange(20), 2000),
        {},
    )
    y, s, g = _grouped(rng, 500, 60, ties=True)
    out["fractional_labels"] = (np.round(rng.random(y.shape[0]) * 3, 2), s, g, {})
    y, s, g = _grouped(rng, 400, 30, ties=True)
    w = rng.random(g.max() + 1)[g]
    out["weighted"] = (y, s, g, {"sample_weight": w})
    y, s, g = _grouped(rng, 300, 30, ties=True)
    y = y.astype(float)
    y[rng.random(y.shape[0]) < 0.2] = np.nan
    out["unjudged_nonrelevant"] = (y, s, g, {"unjudged": "nonrelevant"})
    out["unjudged_condensed"] = (y, s, g, {"unjudged": "condensed"})
    y, s, g = _grouped(rng, 200, 20, ties=True)
    samples = rng.integers(0, 3, (y.shape[0], 3))
    out["judge_samples"] = (y, s, g, {"label_samples": samples})
    out["two_d"] = (
        rng.integers(0, 4, (200, 50)),
        np.round(rng.normal(size=(200, 50)), 1),
        None,
        {},
    )
    return out


def _refuses_average(name):
    """Whether the registry lists ``name``'s measure among those without
    ``ties="average"`` on tied scores."""
    from skirm.metrics import _registry, get_metric

    if hasattr(_registry, "not_held"):  # the table of measures (since 0.4)
        refused = _registry.not_held("average_ties")
    else:
        refused = _registry.NOT_HELD["average_ties"]
    return get_metric(name).spec.name in refused


def metric_requests():
    """Metric names: every registry name at no cutoff and the usual cutoffs,
    but those that read scores as probabilities, which these inputs are not."""
    from skirm.metrics import get_metric, metric_names

    names = []
    for name in metric_names():
        base = name[:-2] if name.endswith("@k") else name
        if getattr(get_metric(base).spec.measure, "scores", "ranking") != "ranking":
            continue
        if name.endswith("@k"):
            names += [f"{name[:-2]}@{k}" for k in CUTOFFS]
        else:
            names.append(name)
    return names


# --------------------------------------------------------------------------
# Outputs
# --------------------------------------------------------------------------


def _put(out, key, value):
    if key in out:
        raise AssertionError(f"two outputs named {key!r}")
    out[key] = np.asarray(value)


def _put_result(out, key, result):
    _put(out, f"{key}/group_ids", np.asarray(result.group_ids).astype(str))
    for name, values in result.per_query.items():
        _put(out, f"{key}/{name}/per_query", values)
    for name, value in result.means.items():
        _put(out, f"{key}/{name}/mean", value)
    for attr in ("judge_means", "judge_spread", "judge_per_query"):
        table = getattr(result, attr, None)
        for name, value in (table or {}).items():
            _put(out, f"{key}/{name}/{attr}", value)
    if getattr(result, "n_unjudged", None) is not None:
        _put(out, f"{key}/n_unjudged", result.n_unjudged)


def _error(call):
    try:
        call()
    except Exception as exc:  # every message is an output
        return f"{type(exc).__name__}: {exc}"
    return "no error"


def array_outputs(out):
    from skirm.metrics import evaluate, from_lists, get_metric

    names = metric_requests()
    for label, (y_true, y_score, groups, extra) in array_inputs().items():
        for ties in TIES:
            # Measures without an exact mean over tied orderings refuse
            # ties="average" on tied scores: their message is the output.
            asked = names
            if ties == "average":
                asked = [n for n in names if not _refuses_average(n)]
                for name in sorted(set(names) - set(asked)):
                    call = partial(
                        evaluate,
                        y_true,
                        y_score,
                        groups=groups,
                        metrics=[name],
                        **extra,
                    )
                    _put(out, f"arrays/{label}/average/{name}/error", _error(call))
            for n_jobs in (None, 2):
                if label in ("judge_samples", "two_d", "weighted") and n_jobs:
                    continue
                result = evaluate(
                    y_true,
                    y_score,
                    groups=groups,
                    metrics=asked,
                    ties=ties,
                    n_jobs=n_jobs,
                    **extra,
                )
                _put_result(out, f"arrays/{label}/{ties}/{n_jobs}", result)
        # Options: gains, thresholds, empty queries, presets, batched cutoffs.
        if label in ("grouped_ties", "shuffled_strings", "fractional_labels"):
            many = [f"ndcg@{k}" for k in range(1, 41)] + [
                f"err@{k}" for k in range(1, 41)
            ]
            for options in (
                {"gain": "exponential"},
                {"no_relevant": "skip"},
                {"no_relevant": 1.0},
            ):
                result = evaluate(
                    y_true, y_score, groups=groups, metrics=many, **options, **extra
                )
                _put_result(
                    out, f"arrays/{label}/many/{sorted(options.items())}", result
                )
            bound = [
                get_metric("map@10", denominator="min_k"),
                get_metric("rbp", p=0.5),
                get_metric("dcg@5", log_base=10.0),
                get_metric("precision@5", relevance_threshold=2),
                get_metric("err@10", max_grade=6.0),
                "P(rel=2)@5",
                "nDCG@10",
                "ndcg_cut.10",
                "RBP(p=0.8)",
            ]
            result = evaluate(y_true, y_score, groups=groups, metrics=bound, **extra)
            _put_result(out, f"arrays/{label}/options", result)
            for preset in ("sklearn", "lightgbm", "xgboost", "torchmetrics"):
                for metric in ("ndcg@10", "map@10", "mrr@10"):
                    key = f"arrays/{label}/preset/{preset}/{metric}"
                    try:
                        result = evaluate(
                            y_true,
                            y_score,
                            groups=groups,
                            metrics=[metric],
                            conventions=preset,
                            **extra,
                        )
                    except ValueError as exc:
                        _put(out, key, str(exc))
                        continue
                    _put_result(out, key, result)
    # Every metric function, as a float.
    import skirm.metrics as m

    y_true, y_score, groups, _ = array_inputs()["shuffled_strings"]
    for name in sorted(m.__all__):
        function = getattr(m, name)
        if not name.endswith("_score"):
            continue
        for k in (None, 5) if "at_k" in name or "ndcg" in name else (None,):
            kwargs = {"k": k} if k is not None else {}
            if "at_k" in name and k is None:
                kwargs = {"k": 10}
            try:
                value = function(y_true, y_score, groups=groups, **kwargs)
            except ValueError as exc:  # diversity measures take 2-D labels
                value = f"ValueError: {exc}"
            _put(out, f"functions/{name}/{k}", value)
    # Ranked lists.
    rng = np.random.default_rng(7)
    ranked = [list(rng.permutation(50)[: rng.integers(1, 20)]) for _ in range(300)]
    truth = [
        {int(i): int(rng.integers(0, 3)) for i in rng.choice(50, 6, replace=False)}
        for _ in range(300)
    ]
    lists = from_lists(ranked, truth, groups=[f"u{i}" for i in range(300)][::-1])
    for ties in ("average", "first"):
        result = evaluate(lists, None, metrics=names, ties=ties)
        _put_result(out, f"lists/{ties}", result)
    sets = [{k for k, v in t.items() if v} for t in truth]
    _put_result(out, "lists/sets", evaluate(sets, ranked, metrics=names))
    y, s, g = lists.to_rows()
    _put(out, "lists/to_rows", np.concatenate([y, s]))
    _put(out, "lists/to_rows/groups", g.astype(str))


def trec_files(directory):
    """Generated qrels/run pairs: ``[(name, qrels path, run path)]``."""
    rng = np.random.default_rng(99)
    cases = []
    for case in range(6):
        n_queries = int(rng.integers(3, 40))
        qrels, run = [], []
        for q in range(n_queries):
            qid = f"{q + 1:0{1 + case % 3}d}"
            docs = [f"doc{'x' * int(rng.integers(0, 12))}{i}" for i in range(60)]
            for d in rng.choice(docs, int(rng.integers(1, 30)), replace=False):
                label = int(rng.integers(-1 if case == 3 else 0, 4))
                qrels.append(f"{qid} 0 {d} {label}")
            if case == 4 and q % 5 == 0:
                continue  # a judged query the run lacks
            depth = int(rng.integers(1, 60))
            scores = np.round(rng.normal(size=depth), 1 if case % 2 else 6)
            for r, (d, sc) in enumerate(
                zip(rng.choice(docs, depth, replace=False), scores, strict=True)
            ):
                run.append(f"{qid} Q0 {d} {r + 1} {sc} run{case}")
        if case == 5:
            run.append("999 Q0 nowhere 1 1.0 run5")  # a query without qrels
        # A second system on the same queries: the scores plus noise.
        other = []
        for line in run:
            fields = line.split()
            fields[4] = repr(round(float(fields[4]) + rng.normal(), 3))
            other.append(" ".join(fields))
        texts = {f"qrels{case}": qrels, f"run{case}": run, f"run{case}b": other}
        for name, lines in texts.items():
            with open(os.path.join(directory, name), "w") as fh:
                fh.write("\n".join(lines) + "\n")
        cases.append(
            (
                f"gen{case}",
                os.path.join(directory, f"qrels{case}"),
                os.path.join(directory, f"run{case}"),
            )
        )
    cases.append(
        (
            "conformance",
            os.path.join(directory, "qrels.test"),
            os.path.join(directory, "results.test"),
        )
    )
    return cases


TREC_MEASURES = [
    "all_trec",
    "ndcg.1=3,2=9",
    "relstring.20",
    "judged.5,10",
    "P@7",
    "utility.1,-1,0,0",
    "err@20",
    "ndcg@10",
]


def trec_outputs(out, directory):
    from skirm.trec import RelevanceEvaluator, evaluate_run

    data = directory
    option_sets = {
        "default": {},
        "level2": {"relevance_level": 2},
        "judged_only": {"judged_only": True},
        "max_docs": {"max_docs": 5},
        "all_queries": {"all_queries": True},
        "all_queries_J": {"all_queries": True, "judged_only": True},
        "N": {"collection_size": 5000},
        "compat9": {"compat": "9.0"},
        "compat9_c": {"compat": "9.0", "all_queries": True},
    }
    for label, qrels, run in trec_files(directory):
        for opt_label, options in option_sets.items():
            key = f"trec/{label}/{opt_label}"
            try:
                result = evaluate_run(qrels, run, TREC_MEASURES, **options)
            except ValueError as exc:
                _put(out, f"{key}/error", str(exc))
                continue
            _put_result(out, key, result)
            _put(out, f"{key}/run_id", result.run_id)
        # The same run given as records and as dicts.
        from skirm.io import read_qrels, read_run

        q, r = read_qrels(qrels), read_run(run)
        result = evaluate_run(q, r, "official", all_queries=True)
        _put_result(out, f"trec/{label}/records", result)
        dq = {}
        for qid, doc, rel in zip(q.query_ids, q.doc_ids, q.labels, strict=True):
            dq.setdefault(str(qid), {})[str(doc)] = int(rel)
        dr = {}
        for qid, doc, sc in zip(r.query_ids, r.doc_ids, r.scores, strict=True):
            dr.setdefault(str(qid), {})[str(doc)] = float(sc)
        values = RelevanceEvaluator(dq, {"map", "ndcg_cut", "P", "bpref"}).evaluate(dr)
        for qid in sorted(values):
            for name in sorted(values[qid]):
                _put(out, f"trec/{label}/pytrec/{qid}/{name}", values[qid][name])
    # A run of many blocks (streamed, in threads), and the same run with its
    # queries interleaved (read again in parts).
    big_qrels, big_run, mixed_run = _large_run(directory)
    for label, run in (("large", big_run), ("interleaved", mixed_run)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = evaluate_run(big_qrels, run, ["all_trec", "err@20"])
        _put_result(out, f"trec/{label}", result)
    special = {
        "zscores": (
            "qrels.test",
            "results.test",
            {"zscores": os.path.join(data, "zscores_file")},
            ["map", "P.10", "ndcg"],
        ),
        "qrels_jg": (
            "qrels.test",  # replaced below by the judgment groups
            "results.test",
            {"rel_format": "qrels_jg"},
            ["qrels_jg"],
        ),
        "prefs": (
            "prefs.test",
            "prefs.results.test",
            {"rel_format": "prefs"},
            ["all_prefs"],
        ),
        "qrels_prefs": (
            "qrels.test",
            "results.test",
            {"rel_format": "qrels_prefs"},
            ["all_prefs"],
        ),
    }
    for label, (qrels, run, options, measures) in special.items():
        qpath = os.path.join(data, qrels)
        if label == "qrels_jg":
            qpath = _judgment_groups(directory)
        for extra in ({}, {"all_queries": True}, {"max_docs": 10}):
            key = f"trec/special/{label}/{sorted(extra)}"
            try:
                result = evaluate_run(
                    qpath, os.path.join(data, run), measures, **options, **extra
                )
            except ValueError as exc:
                _put(out, f"{key}/error", str(exc))
                continue
            _put_result(out, key, result)


def _large_run(directory):
    """A 400-query qrels file, a run of 400,000 lines grouped by query, and
    the same lines with the queries interleaved."""
    rng = np.random.default_rng(17)
    n_queries, depth = 400, 1000
    qids = np.repeat(np.arange(n_queries), depth)
    docs = rng.integers(0, 5000, qids.shape[0])
    keep = np.ones(qids.shape[0], dtype=bool)
    key = qids * 5000 + docs
    _, first = np.unique(key, return_index=True)
    keep[:] = False
    keep[first] = True
    qids, docs = qids[keep], docs[keep]
    scores = np.round(rng.normal(size=qids.shape[0]), 2)
    lines = [
        f"{q} Q0 D{d:05d} 0 {s} big"
        for q, d, s in zip(qids.tolist(), docs.tolist(), scores.tolist(), strict=True)
    ]
    judged = rng.random(qids.shape[0]) < 0.1
    labels = rng.integers(0, 3, qids.shape[0])
    qrels = [
        f"{q} 0 D{d:05d} {label}"
        for q, d, label in zip(
            qids[judged].tolist(),
            docs[judged].tolist(),
            labels[judged].tolist(),
            strict=True,
        )
    ]
    paths = [os.path.join(directory, n) for n in ("big.qrels", "big.run", "mix.run")]
    order = np.argsort(np.arange(len(lines)) % 7, kind="stable")
    for path, rows in zip(
        paths, (qrels, lines, [lines[i] for i in order]), strict=True
    ):
        with open(path, "w") as fh:
            fh.write("\n".join(rows) + "\n")
    return paths


def _judgment_groups(directory):
    """A qrels_jg file: two judgment groups for each judged query."""
    rng = np.random.default_rng(5)
    lines = []
    for line in open(os.path.join(CONFORMANCE, "qrels.test")):
        qid, _, doc, rel = line.split()
        for group in ("a", "b"):
            if rng.random() < 0.7:
                label = int(rel) if group == "a" else int(rng.integers(0, 3))
                lines.append(f"{qid} {group} {doc} {label}")
    path = os.path.join(directory, "qrels_jg")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def _cli(argv):
    from skirm._cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    raw = io.BytesIO()
    wrapper = io.TextIOWrapper(raw, encoding="utf-8")
    with contextlib.redirect_stdout(wrapper), contextlib.redirect_stderr(stderr):
        status = main(argv)
        wrapper.flush()
    printed = raw.getvalue().decode("utf-8", "replace") + stdout.getvalue()
    return f"{status}\n{printed}\n--\n{stderr.getvalue()}"


def cli_outputs(out, directory):
    data = directory
    qrels = os.path.join(data, "qrels.test")
    run = os.path.join(data, "results.test")
    gen = trec_files(directory)
    calls = {
        "q_all_trec": ["eval", "-q", "-m", "all_trec", qrels, run],
        "official": ["eval", qrels, run],
        "c_J_M": ["eval", "-c", "-J", "-M", "20", "-m", "official", qrels, run],
        "l2_9": ["eval", "-l", "2", "--compat", "9.0", "-q", qrels, run],
        "gen_q": ["eval", "-q", "-m", "all_trec", gen[0][1], gen[0][2]],
        "gen_missing": ["eval", "-m", "map", gen[4][1], gen[4][2]],
        "table": [
            "eval",
            "--format",
            "table",
            "-m",
            "map",
            "-m",
            "P.5",
            gen[0][1],
            gen[0][2],
            gen[0][2] + "b",
        ],
        "csv": ["eval", "--format", "csv", "-q", "-m", "map", gen[1][1], gen[1][2]],
        "json": ["eval", "--format", "json", "-m", "map", "-m", "P.5", qrels, run],
        "prefs": [
            "eval",
            "-R",
            "prefs",
            "-m",
            "all_prefs",
            os.path.join(data, "prefs.test"),
            os.path.join(data, "prefs.results.test"),
        ],
        "compare": [
            "compare",
            gen[1][1],
            gen[1][2],
            gen[1][2] + "b",
            "-m",
            "map",
            "-m",
            "ndcg_cut.10",
            "--test",
            "randomization",
            "--seed",
            "0",
        ],
        "compare_latex": [
            "compare",
            gen[2][1],
            gen[2][2],
            gen[2][2] + "b",
            "-m",
            "map",
            "--format",
            "latex",
        ],
        "bad_measure": ["eval", "-m", "mapp", qrels, run],
        "swapped": ["eval", run, qrels],
        "usage": ["eval", "--no-such-option", qrels, run],
    }
    for label, argv in calls.items():
        _put(out, f"cli/{label}", _cli(argv))


def stats_outputs(out):
    from skirm.metrics import evaluate
    from skirm.stats import adjust_pvalues, compare, paired_test, tukey_hsd

    rng = np.random.default_rng(11)
    y_true, y_score, groups = _grouped(rng, 60, 20, ties=True)
    results = {
        f"s{i}": evaluate(
            y_true,
            y_score + rng.normal(scale=0.3 * i, size=y_score.shape[0]),
            groups=groups,
            metrics=["ndcg@10", "map", "mrr"],
        )
        for i in range(4)
    }
    for test in ("t", "randomization", "bootstrap", "wilcoxon", "sign", "tukey_hsd"):
        for baseline in (None, "s0"):
            comparison = compare(
                results,
                baseline=baseline,
                test=test,
                n_resamples=2000,
                random_state=3,
            )
            frame = comparison.to_frame()
            for column in frame.columns:
                values = frame[column].to_numpy()
                if values.dtype.kind == "O":
                    values = np.array([repr(v) for v in values])
                _put(out, f"stats/compare/{test}/{baseline}/{column}", values)
            _put(out, f"stats/compare/{test}/{baseline}/text", str(comparison))
            _put(out, f"stats/compare/{test}/{baseline}/latex", comparison.to_latex())
            _put(
                out,
                f"stats/compare/{test}/{baseline}/markdown",
                comparison.to_markdown(),
            )
    a = results["s1"].per_query["map"]
    b = results["s0"].per_query["map"]
    for test in ("t", "randomization", "bootstrap", "wilcoxon", "sign"):
        res = paired_test(a, b, test=test, n_resamples=2000, random_state=1)
        _put(out, f"stats/paired/{test}", [res.statistic, res.pvalue])
    p = rng.random(20)
    for method in ("holm", "bonferroni", "fdr_bh"):
        _put(out, f"stats/adjust/{method}", adjust_pvalues(p, method=method))
    stacked = np.vstack([r.per_query["map"] for r in results.values()])
    for method in ("paired", "randomized"):
        tukey = tukey_hsd(stacked, method=method, n_resamples=500, random_state=2)
        _put(out, f"stats/tukey/{method}", np.asarray(tukey.pvalue))
    import skirm.stats as st

    for method in ("t", "bootstrap", "percentile", "bca"):
        intervals = getattr(st, "confidence_intervals", None)
        if intervals is not None:
            ci = intervals(results["s2"], method, n_resamples=1000, random_state=4)
        else:
            ci = results["s2"].ci(method, n_resamples=1000, random_state=4)
        for name, (low, high) in ci.items():
            _put(out, f"stats/ci/{method}/{name}", [low, high])


def other_outputs(out):
    from sklearn.linear_model import Ridge

    from skirm.datasets import make_ranking
    from skirm.metrics import make_ranking_scorer
    from skirm.recsys import (
        average_popularity,
        catalog_coverage,
        gini_index,
        intra_list_diversity,
        kendall_tau,
        novelty,
        rank_biased_overlap,
        tau_ap,
    )

    X, y, groups = make_ranking(n_groups=80, random_state=0)
    model = Ridge().fit(X, y)
    scorer = make_ranking_scorer(["ndcg@10", "map", "mrr@5", "err@10"])
    for name, value in scorer(model, X, y, groups=groups).items():
        _put(out, f"scorer/{name}", value)
    rng = np.random.default_rng(3)
    lists = [list(rng.permutation(100)[:10]) for _ in range(50)]
    popularity = {i: int(rng.integers(1, 100)) for i in range(100)}
    _put(out, "recsys/coverage", catalog_coverage(lists, catalog=list(range(100))))
    _put(out, "recsys/gini", gini_index(lists, catalog=list(range(100)), k=5))
    _put(
        out,
        "recsys/novelty",
        novelty(lists, item_popularity=popularity, n_users=200),
    )
    _put(
        out, "recsys/popularity", average_popularity(lists, item_popularity=popularity)
    )
    features = {i: rng.random(5) for i in range(100)}
    _put(out, "recsys/ild", intra_list_diversity(lists, item_features=features))
    a, b = rng.permutation(30), rng.permutation(30)
    _put(out, "recsys/rbo", rank_biased_overlap(a, b, p=0.9))
    _put(out, "recsys/tau", kendall_tau(a, b))
    _put(out, "recsys/tau_ap", tau_ap(a, b))


def _door_data(seed, n_queries, pooled, ties=True, n_subtopics=3):
    """Subtopic judgment rows ``(q, subtopic, doc, grade)`` and run rows
    ``(q, doc, score)`` in the order given: pooled (every judged document
    retrieved) or sparse (few), with tied scores or none, some documents
    judged twice, a run query without judgments, a judged query the run
    lacks."""
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for q in range(n_queries):
        qid = f"{q + 1}" if q % 3 else f"t{q}"
        pool = [f"D{q}-{i}" for i in range(int(rng.integers(3, 30)))]
        for doc in pool:
            grades = rng.choice(4, size=n_subtopics, p=[0.6, 0.2, 0.1, 0.1])
            for sub, grade in enumerate(grades):
                if sub == 0 or rng.random() < 0.5:
                    q_rows.append((qid, str(sub + 1), doc, int(grade)))
        if q == n_queries - 1:
            continue  # judged, not retrieved
        if pooled:
            retrieved = [d for d in pool if rng.random() < 0.9]
        else:
            retrieved = [d for d in pool if rng.random() < 0.2]
        retrieved += [f"U{q}-{i}" for i in range(int(rng.integers(1, 40)))]
        retrieved = list(rng.permutation(retrieved))
        scores = rng.normal(size=len(retrieved))
        scores = np.round(scores, 1) if ties else scores
        if q % 4 == 0:
            scores = np.abs(scores)  # no negative score
        r_rows += [
            (qid, str(d), float(s)) for d, s in zip(retrieved, scores, strict=True)
        ]
    r_rows.append(("nowhere", "x", 1.0))
    return q_rows, r_rows


def _plain_rows(q_rows):
    seen, rows = set(), []
    for q, _, d, g in q_rows:
        if (q, d) not in seen:
            seen.add((q, d))
            rows.append((q, d, g))
    return rows


def _dicts(rows):
    out = {}
    for q, d, v in rows:
        out.setdefault(q, {})[d] = v
    return out


#: Options of ir_measures' names (each applied per measure).
OPTION_SPELLINGS = [
    "NumRet(rel=2)",
    "Bpref(rel=2)",
    "IPrec(judged_only=True)@0.2",
    "nDCG(judged_only=True)@10",
    "nDCG(gains={0:0,1:1,2:3,3:7})@5",
    "nDCG(cutoff=5)",
    "P(rel=2,judged_only=True)@10",
    "AP(rel=2)@20",
    "SetP(relative=True)",
    "MRR@10",
    "NDCG(judged_only=True)",
    "Precision(rel=2)@5",
]


def door_outputs(out):
    """The doors: the ir_measures drop-in (every registered name, with ties,
    on dicts, named tuples and frames), the pytrec_eval drop-in (pooled and
    sparse dicts), evaluate_run on dicts, frames and tuples, the variants of
    measure names, the diversity measures and the judgment-group and
    preference records."""
    import ir_measures
    import pandas as pd

    from skirm.io import Prefs, Qrels, QrelsJG, Run
    from skirm.trec import (
        RelevanceEvaluator,
        calc,
        evaluate_diversity,
        evaluate_run,
        format_ndeval,
    )

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from _ir_names import SPELLINGS

    for label, seed, pooled, ties in (
        ("pooled", 1, True, True),
        ("sparse", 2, False, True),
        ("distinct", 3, True, False),
    ):
        q_rows, r_rows = _door_data(seed, 30, pooled, ties)
        plain = _plain_rows(q_rows)
        dq, dr = _dicts(plain), _dicts(r_rows)
        names = list(dict.fromkeys([*SPELLINGS.values(), *OPTION_SPELLINGS]))
        shapes = {
            "dicts": (
                q_rows,
                dr,
            ),
            "tuples": (
                [ir_measures.Qrel(q, d, g, s) for q, s, d, g in q_rows],
                [ir_measures.ScoredDoc(q, d, s) for q, d, s in r_rows],
            ),
            "frames": (
                pd.DataFrame(
                    q_rows, columns=["query_id", "iteration", "doc_id", "relevance"]
                ),
                pd.DataFrame(r_rows, columns=["query_id", "doc_id", "score"]),
            ),
        }
        for shape, (qrels, run) in shapes.items():
            if shape == "dicts":  # ir_measures' dicts hold no subtopic
                qrels = dq
            for name in names:
                key = f"doors/{label}/ir/{shape}/{name}"
                try:
                    result = calc([name], qrels, run)
                except Exception as exc:
                    _put(out, f"{key}/error", f"{type(exc).__name__}: {exc}")
                    continue
                _put(out, f"{key}/mean", result.aggregated[name])
                ids = [m.query_id for m in result.per_query]
                _put(out, f"{key}/ids", np.asarray(ids, dtype=str))
                _put(out, f"{key}/values", [m.value for m in result.per_query])
            many = calc(names[:40], qrels, run)
            _put(out, f"doors/{label}/ir/{shape}/many", list(many.aggregated.values()))
        # pytrec_eval's drop-in: a first and a second run, options
        other = [(q, d, s + 0.5 * (i % 3)) for i, (q, d, s) in enumerate(r_rows)]
        for options in ({}, {"relevance_level": 2}, {"judged_docs_only_flag": True}):
            evaluator = RelevanceEvaluator(dq, {"all_trec"}, **options)
            for run_label, run in (("first", dr), ("second", _dicts(other))):
                values = evaluator.evaluate(run)
                key = f"doors/{label}/pytrec/{sorted(options)}/{run_label}"
                for qid in sorted(values):
                    _put(out, f"{key}/{qid}", list(values[qid].values()))
                    _put(out, f"{key}/{qid}/names", list(values[qid]))
        # evaluate_run on dicts, frames, tuples and records
        frames = (
            pd.DataFrame(plain, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(r_rows, columns=["query_id", "doc_id", "score"]),
        )
        records = (
            Qrels(*(list(c) for c in zip(*plain, strict=True))),
            Run(*(list(c) for c in zip(*r_rows, strict=True))),
        )
        for shape, (qrels, run) in {
            "dicts": (dq, dr),
            "frames": frames,
            "tuples": (plain, r_rows),
            "records": records,
        }.items():
            for options in (
                {"all_queries": True},
                {"compat": "9.0"},
                {"compat": "9.0", "judged_only": True, "max_docs": 7},
            ):
                key = f"doors/{label}/evaluate_run/{shape}/{sorted(options.items())}"
                try:
                    result = evaluate_run(
                        qrels, run, ["all_trec", "err@10", "ndcg@5"], **options
                    )
                except ValueError as exc:
                    _put(out, f"{key}/error", str(exc))
                    continue
                _put_result(out, key, result)
            variants = [
                "P(rel=2)@10",
                "P(judged_only=True)@5",
                "nDCG(gains={0:0,1:1,2:3,3:7})@5",
                "map",
                "AP(rel=2)",
            ]
            key = f"doors/{label}/variants/{shape}"
            _put_result(out, key, evaluate_run(qrels, run, variants, compat="9.0"))
        # diversity
        jg = QrelsJG(*(list(c) for c in zip(*q_rows, strict=True)))
        run = records[1]
        report = evaluate_diversity(jg, run)
        for name, value in report.items():
            if isinstance(value, np.ndarray):
                _put(out, f"doors/{label}/diversity/{name}", value)
        _put(out, f"doors/{label}/diversity/mean", list(report["mean"].values()))
        _put(out, f"doors/{label}/ndeval", format_ndeval(report))
        report = evaluate_diversity(
            jg,
            run,
            ["alpha_nDCG(rel=2)@10", "ERR_IA@5", "NRBP", "nNRBP"],
            judged_only=True,
            all_queries=True,
        )
        _put(out, f"doors/{label}/diversity_options", format_ndeval(report))
        for options in ({}, {"all_queries": True}, {"judged_only": True}):
            key = f"doors/{label}/diversity_run/{sorted(options)}"
            result = evaluate_run(
                jg, run, ["alpha_nDCG@20", "P_IA@5", "StRecall@10"], **options
            )
            _put_result(out, key, result)
        # judgment groups and preferences from records
        for options in (
            {"all_queries": True},
            {"compat": "9.0"},
            {"compat": "9.0", "max_docs": 5},
        ):
            key = f"doors/{label}/qrels_jg/{sorted(options)}"
            try:
                result = evaluate_run(
                    jg, run, ["qrels_jg"], rel_format="qrels_jg", **options
                )
                _put_result(out, key + "/result", result)
            except ValueError as exc:
                _put(out, key + "/error", str(exc))
            prefs = Prefs(
                [q for q, _, _, _ in q_rows],
                [s for _, s, _, _ in q_rows],
                ["0"] * len(q_rows),
                [d for _, _, d, _ in q_rows],
                [float(g) for _, _, _, g in q_rows],
            )
            key = f"doors/{label}/prefs/{sorted(options)}"
            try:
                result = evaluate_run(
                    prefs, run, ["all_prefs"], rel_format="prefs", **options
                )
                _put_result(out, key, result)
            except ValueError as exc:
                _put(out, key + "/error", str(exc))


def dask_outputs(out, directory):
    import dask
    import dask.dataframe as dd
    import pandas as pd

    import skirm.dask

    # Scores without ties: Dask's shuffle does not keep the order of the rows
    # within a query, and sums over a tie block may round with that order.
    rng = np.random.default_rng(23)
    y_true, y_score, groups = _grouped(rng, 500, 40, ties=False)
    perm = rng.permutation(y_true.shape[0])
    frame = pd.DataFrame(
        {"y": y_true[perm], "s": y_score[perm], "g": [f"q{v}" for v in groups[perm]]}
    )
    ddf = dd.from_pandas(frame, npartitions=4)
    with dask.config.set(scheduler="synchronous"):
        result = skirm.dask.evaluate(
            ddf["y"], ddf["s"], groups=ddf["g"], metrics=["ndcg@10", "map", "err@5"]
        )
        _put_result(out, "dask/evaluate", result)
        qrels = os.path.join(directory, "qrels1")
        run = os.path.join(directory, "run1")
        for options in ({}, {"all_queries": True}, {"compat": "9.0"}):
            result = skirm.dask.evaluate_run(
                qrels, run, ["official", "ndcg_cut.10", "err@10"], **options
            )
            _put_result(out, f"dask/evaluate_run/{sorted(options.items())}", result)


def error_outputs(out):
    from skirm.io import Qrels, Run, read_qrels, read_run
    from skirm.metrics import evaluate, get_metric, ndcg_score
    from skirm.trec import evaluate_run

    calls = {
        "unknown_metric": lambda: get_metric("ndgc@10"),
        "trec_only": lambda: get_metric("bpref"),
        "elsewhere": lambda: get_metric("Compat"),
        "k_zero": lambda: ndcg_score([1, 0], [1, 0], groups=[0, 0], k=0),
        "no_groups": lambda: ndcg_score([1, 0], [1, 0]),
        "nan_score": lambda: ndcg_score([1, 0], [np.nan, 0], groups=[0, 0]),
        "bad_ties": lambda: evaluate([1], [1], groups=[0], ties="random"),
        "weights_vary": lambda: evaluate(
            [1, 0], [1, 0], groups=[0, 0], sample_weight=[1, 2]
        ),
        "trec_unknown": lambda: evaluate_run(
            Qrels(["q"], ["d"], [1]), Run(["q"], ["d"], [1.0]), "mapp"
        ),
        "trec_dup": lambda: evaluate_run(
            Qrels(["q"], ["d"], [1]), Run(["q", "q"], ["d", "d"], [1.0, 2.0]), "map"
        ),
        "trec_dup_qrels": lambda: evaluate_run(
            io.StringIO("q 0 d 1\nq 0 d 0\n"), Run(["q"], ["d"], [1.0]), "map"
        ),
        "trec_no_common": lambda: evaluate_run(
            Qrels(["q"], ["d"], [1]), Run(["x"], ["d"], [1.0]), "map"
        ),
        "trec_missing": lambda: evaluate_run(
            Qrels(["q", "r"], ["d", "d"], [1, 1]), Run(["q"], ["d"], [1.0]), "map"
        ),
        "read_fields": lambda: read_qrels(io.StringIO("1 0 d1\n")),
        "read_score": lambda: read_run(io.StringIO("1 Q0 d1 1 abc run\n")),
        "read_label": lambda: read_qrels(io.StringIO("1 0 d1 0.5\n")),
    }
    for label, call in calls.items():
        _put(out, f"errors/{label}", _error(call))


def compute():
    out = {}
    warnings.simplefilter("ignore")
    # Files are named relative to a scratch directory: their names appear in
    # messages and printed headers, the same on every machine and run.
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        directory = os.path.join(scratch, "files")
        shutil.copytree(CONFORMANCE, directory)
        os.chdir(directory)
        try:
            array_outputs(out)
            trec_outputs(out, ".")
            cli_outputs(out, ".")
            dask_outputs(out, ".")
        finally:
            os.chdir(here)
    stats_outputs(out)
    other_outputs(out)
    error_outputs(out)
    door_outputs(out)
    return out


def _same(a, b):
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return False
    if a.dtype.kind == "f":
        a = np.ascontiguousarray(a, dtype=np.float64)
        b = np.ascontiguousarray(b, dtype=np.float64)
        return bool(np.array_equal(a.view(np.uint64), b.view(np.uint64)))
    return bool(np.array_equal(a, b))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in ("save", "check", "show"):
        print(__doc__.split("Usage::")[1].split("``check``")[0].strip())
        return 2
    command, path = argv
    import skirm

    print(f"skirm {skirm.__version__} from {os.path.dirname(skirm.__file__)}")
    outputs = compute()
    if command == "save":
        np.savez_compressed(path, **outputs)
        print(f"saved {len(outputs)} outputs to {path}")
        return 0
    saved = np.load(path)
    differ = sorted(k for k in saved.files if k not in outputs)
    differ += sorted(k for k in outputs if k not in saved.files)
    differ += sorted(
        k for k in outputs if k in saved.files and not _same(outputs[k], saved[k])
    )
    if command == "show":
        _show(differ, saved, outputs)
    else:
        for key in differ[:40]:
            print(f"differs: {key}")
    print(f"{len(differ)} of {len(outputs)} outputs differ")
    return 1 if differ else 0


def _show(differ, saved, outputs):
    """Each differing output before and after; how many are numbers."""
    numbers = 0
    for key in differ:
        before = saved[key] if key in saved.files else None
        after = outputs.get(key)
        textual = all(v is None or v.dtype.kind in "US" for v in (before, after))
        numbers += not textual
        print(f"== {key}{'' if textual else '  (numbers)'}")
        for label, value in (("before", before), ("after", after)):
            text = "(absent)" if value is None else str(value.tolist())
            print(f"  {label}: {text[:2000]}")
    print(f"{numbers} of the {len(differ)} outputs that differ hold numbers")


if __name__ == "__main__":
    sys.exit(main())
